//! Pelvis tilt tracking and smoothness (SPEC QUAL-5 angular part, QUAL-6), judged on the
//! ticks where the ground truth has held steady.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use super::sample::TickSample;
use super::stats::{push_jerks, to_f32, valid_hz, MeanMax, Rms};

/// Ground truth that moves less than this from where it settled is "steady" (QUAL-6).
pub const STEADY_TRUTH_TOLERANCE_DEG: f32 = 1.0;
/// Default time the ground truth must hold steady before tilt is judged (QUAL-6).
pub const DEFAULT_SETTLE_S: f32 = 0.3;
/// Below this mean |tilt pitch| (deg) the head deviation ratio is undefined (`None`).
pub const MIN_TILT_FOR_RATIO_DEG: f32 = 0.01;

/// Pelvis tilt metrics of one run (SPEC QUAL-5 angular part, QUAL-6). Angles in degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TiltQuality {
    /// RMS of the full pelvis world angular speed between consecutive ticks (deg/s).
    pub pelvis_angvel_rms_deg_s: f32,
    /// RMS angular speed of the tilt offset alone, `R_x(-pitch)·R_z(roll)` between consecutive
    /// ticks (deg/s): isolates the tilt from the gait's own pelvis motion.
    pub tilt_angvel_rms_deg_s: f32,
    /// Mean |applied − truth| pitch over settled ticks (deg).
    pub tilt_pitch_error_deg: f32,
    /// Mean |applied − truth| roll over settled ticks (deg).
    pub tilt_roll_error_deg: f32,
    /// Largest |applied − truth| pitch over settled ticks (deg).
    pub tilt_pitch_error_max_deg: f32,
    /// Largest |applied − truth| roll over settled ticks (deg).
    pub tilt_roll_error_max_deg: f32,
    /// Largest peak-to-peak of applied pitch within one settled stretch (deg): per-step
    /// oscillation on stairs. Measured per stretch so two different slopes don't add up.
    pub tilt_pitch_p2p_deg: f32,
    /// Mean |final − anim| head pitch over settled ticks (deg).
    pub head_pitch_dev_deg: f32,
    /// `head_pitch_dev_deg` / mean |applied tilt pitch| over the same ticks: 0 = the head is
    /// fully stabilised, 1 = it follows the pelvis tilt. `None` without settled ticks or with
    /// mean tilt below [`MIN_TILT_FOR_RATIO_DEG`].
    pub head_pitch_dev_ratio: Option<f32>,
    /// RMS of `‖Δ³(pitch, roll)‖·f³` over every four consecutive ticks (deg/s³).
    pub tilt_jitter_deg_s3: f32,
    /// Ticks judged for tilt error (see [`tilt_quality`]).
    pub settled_ticks: u64,
    /// Ticks in the run.
    pub ticks: u64,
}

/// Per tick, the first tick of its steady stretch when it is settled (see
/// [`tilt_quality`]), else `None`.
pub(super) fn settled_ticks(samples: &[TickSample], hz: f32, settle_s: f32) -> Vec<Option<usize>> {
    let mut out = vec![None; samples.len()];
    let Some(hz64) = valid_hz(hz) else {
        return out;
    };
    let settle_s = if settle_s.is_finite() {
        f64::from(settle_s.max(0.0))
    } else {
        f64::from(DEFAULT_SETTLE_S)
    };
    let settle_ticks = settle_s * hz64 - 1e-6;
    let tolerance_rad = f64::from(STEADY_TRUTH_TOLERANCE_DEG).to_radians();
    let mut stretch: Option<(usize, f64, f64)> = None;
    for (i, s) in samples.iter().enumerate() {
        let truth = match (s.ground_pitch_rad, s.ground_roll_rad) {
            (Some(p), Some(r)) if s.grounded && p.is_finite() && r.is_finite() => {
                Some((f64::from(p), f64::from(r)))
            }
            _ => None,
        };
        stretch = match (truth, stretch) {
            (None, _) => None,
            (Some((p, r)), Some((start, p0, r0)))
                if (p - p0).abs() <= tolerance_rad && (r - r0).abs() <= tolerance_rad =>
            {
                Some((start, p0, r0))
            }
            (Some((p, r)), _) => Some((i, p, r)),
        };
        if let Some((start, _, _)) = stretch {
            out[i] = (((i - start) as f64) >= settle_ticks).then_some(start);
        }
    }
    out
}

/// Angle (rad) of the shortest rotation from `a` to `b`; `None` for non-finite or zero-length
/// quaternions.
fn rotation_angle_rad(a: DQuat, b: DQuat) -> Option<f64> {
    let (la, lb) = (a.length(), b.length());
    if !(la.is_finite() && lb.is_finite() && la > 1e-9 && lb > 1e-9) {
        return None;
    }
    let rel = (b / lb) * (a / la).conjugate();
    // atan2 keeps its digits for small angles where acos(w) does not.
    let angle = 2.0 * rel.xyz().length().atan2(rel.w.abs());
    angle.is_finite().then_some(angle)
}

/// The tilt offset rotation in the library's convention, `R_x(-pitch) · R_z(roll)`.
fn tilt_rotation(pitch_rad: f32, roll_rad: f32) -> DQuat {
    DQuat::from_rotation_x(-f64::from(pitch_rad)) * DQuat::from_rotation_z(f64::from(roll_rad))
}

/// Tilt metrics of a run sampled at `hz` (SPEC QUAL-5 angular velocity, QUAL-6).
///
/// Settled ticks: a stretch starts on a grounded tick where both ground truths are `Some`
/// and finite, and continues while the character stays grounded and both truths stay within
/// 1° of their values on the stretch's first tick (otherwise a new stretch starts, or none
/// when a truth is `None` or the character is airborne). A tick is settled once its stretch
/// has lasted `settle_s` (counted in ticks: `(i − start)/hz ≥ settle_s`), so the first
/// `settle_s` of every stretch is excluded. A non-finite or negative `settle_s` uses 0.3 s
/// or 0 respectively.
pub fn tilt_quality(samples: &[TickSample], hz: f32, settle_s: f32) -> TiltQuality {
    let mut quality = TiltQuality {
        ticks: samples.len() as u64,
        ..TiltQuality::default()
    };
    let Some(hz64) = valid_hz(hz) else {
        return quality;
    };

    let mut pelvis_angvel = Rms::default();
    let mut tilt_angvel = Rms::default();
    for pair in samples.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (qa, qb) = (
            a.pelvis_rotation_world.as_dquat(),
            b.pelvis_rotation_world.as_dquat(),
        );
        if let Some(angle) = rotation_angle_rad(qa, qb) {
            pelvis_angvel.push(angle.to_degrees() * hz64);
        }
        let tilts_finite = [
            a.tilt_pitch_rad,
            a.tilt_roll_rad,
            b.tilt_pitch_rad,
            b.tilt_roll_rad,
        ]
        .iter()
        .all(|v| v.is_finite());
        if tilts_finite {
            let qa = tilt_rotation(a.tilt_pitch_rad, a.tilt_roll_rad);
            let qb = tilt_rotation(b.tilt_pitch_rad, b.tilt_roll_rad);
            if let Some(angle) = rotation_angle_rad(qa, qb) {
                tilt_angvel.push(angle.to_degrees() * hz64);
            }
        }
    }

    let mut jitter = Rms::default();
    let tilt_deg: Vec<DVec3> = samples
        .iter()
        .map(|s| {
            DVec3::new(
                f64::from(s.tilt_pitch_rad).to_degrees(),
                f64::from(s.tilt_roll_rad).to_degrees(),
                0.0,
            )
        })
        .collect();
    push_jerks(&mut jitter, &tilt_deg, hz64);

    let settled = settled_ticks(samples, hz, settle_s);
    let mut pitch_error = MeanMax::default();
    let mut roll_error = MeanMax::default();
    let mut head_dev = MeanMax::default();
    let mut tilt_abs = MeanMax::default();
    let mut p2p_max_deg = 0.0f64;
    // (stretch start, min, max) of applied pitch (deg) over the stretch's settled ticks.
    let mut p2p: Option<(usize, f64, f64)> = None;
    for (s, start) in samples.iter().zip(&settled) {
        let (Some(start), Some(truth_pitch), Some(truth_roll)) =
            (*start, s.ground_pitch_rad, s.ground_roll_rad)
        else {
            continue;
        };
        let (truth_pitch, truth_roll) = (f64::from(truth_pitch), f64::from(truth_roll));
        quality.settled_ticks += 1;
        let applied_pitch = f64::from(s.tilt_pitch_rad);
        let applied_roll = f64::from(s.tilt_roll_rad);
        pitch_error.push((applied_pitch - truth_pitch).abs().to_degrees());
        roll_error.push((applied_roll - truth_roll).abs().to_degrees());
        let head = f64::from(s.head_pitch_world_rad) - f64::from(s.head_pitch_anim_rad);
        head_dev.push(head.abs().to_degrees());
        tilt_abs.push(applied_pitch.abs().to_degrees());
        let pitch_deg = applied_pitch.to_degrees();
        if pitch_deg.is_finite() {
            p2p = match p2p {
                Some((run, lo, hi)) if run == start => {
                    Some((run, lo.min(pitch_deg), hi.max(pitch_deg)))
                }
                _ => Some((start, pitch_deg, pitch_deg)),
            };
            if let Some((_, lo, hi)) = p2p {
                p2p_max_deg = p2p_max_deg.max(hi - lo);
            }
        }
    }

    quality.pelvis_angvel_rms_deg_s = to_f32(pelvis_angvel.rms());
    quality.tilt_angvel_rms_deg_s = to_f32(tilt_angvel.rms());
    quality.tilt_pitch_error_deg = to_f32(pitch_error.mean());
    quality.tilt_roll_error_deg = to_f32(roll_error.mean());
    quality.tilt_pitch_error_max_deg = to_f32(pitch_error.max);
    quality.tilt_roll_error_max_deg = to_f32(roll_error.max);
    quality.tilt_pitch_p2p_deg = to_f32(p2p_max_deg);
    quality.head_pitch_dev_deg = to_f32(head_dev.mean());
    let mean_tilt_deg = tilt_abs.mean();
    quality.head_pitch_dev_ratio = (head_dev.count > 0
        && mean_tilt_deg >= f64::from(MIN_TILT_FOR_RATIO_DEG))
    .then(|| to_f32(head_dev.mean() / mean_tilt_deg));
    quality.tilt_jitter_deg_s3 = to_f32(jitter.rms());
    quality
}
