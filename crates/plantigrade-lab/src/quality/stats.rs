//! Running mean, maximum and RMS, percentiles, jerks: the statistics the metrics share,
//! accumulated in `f64`.

use glam::DVec3;

/// Running mean and maximum of non-negative values.
#[derive(Default)]
pub(super) struct MeanMax {
    sum: f64,
    pub(super) count: u64,
    pub(super) max: f64,
}

impl MeanMax {
    pub(super) fn push(&mut self, value: f64) {
        if value.is_finite() {
            self.sum += value;
            self.count += 1;
            self.max = self.max.max(value);
        }
    }
    pub(super) fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
    pub(super) fn mean_of(values: &[f64]) -> f64 {
        let mut acc = MeanMax::default();
        values.iter().for_each(|v| acc.push(*v));
        acc.mean()
    }
}

/// Running root mean square.
#[derive(Default)]
pub(super) struct Rms {
    sum_sq: f64,
    count: u64,
}

impl Rms {
    pub(super) fn push(&mut self, value: f64) {
        if value.is_finite() {
            self.sum_sq += value * value;
            self.count += 1;
        }
    }
    pub(super) fn rms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            (self.sum_sq / self.count as f64).sqrt()
        }
    }
}

/// Percentile `p` (0..1) with linear interpolation between closest ranks (numpy's default);
/// 0 for no values. Sorts `values`.
pub(super) fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = p.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    values[lo] + (values[hi] - values[lo]) * (rank - lo as f64)
}

/// `‖p(t+3) − 3p(t+2) + 3p(t+1) − p(t)‖·f³` for every window of four finite points.
pub(super) fn push_jerks(rms: &mut Rms, points: &[DVec3], hz: f64) {
    for w in points.windows(4) {
        if w.iter().all(|p| p.is_finite()) {
            let third = w[3] - 3.0 * w[2] + 3.0 * w[1] - w[0];
            rms.push(third.length() * hz * hz * hz);
        }
    }
}

pub(super) fn valid_hz(hz: f32) -> Option<f64> {
    (hz.is_finite() && hz > 0.0).then_some(hz as f64)
}

pub(super) fn to_f32(value: f64) -> f32 {
    let v = value as f32;
    if v.is_finite() {
        v
    } else {
        0.0
    }
}
