//! Scalar shaping curves (input and output on 0..=1 unless noted) that time the authored
//! motion, and the smoothing used when the pelvis has to come down for reach.

use std::f32::consts::PI;

pub(crate) use crate::math::smoothstep;

/// Minimum-jerk profile (10x³ − 15x⁴ + 6x⁵): zero velocity and acceleration at both ends,
/// the shape of a relaxed reaching or stepping motion. Input is clamped to 0..=1.
pub(super) fn min_jerk(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * x * (10.0 + x * (-15.0 + 6.0 * x))
}

/// Eases 0 → 1 from rest (zero slope at 0), arriving with slope `end_slope` (at least 0;
/// 0 is smoothstep, 2 a parabola like a fall from rest, steeper ones hold back longer and
/// drop late). Input is clamped to 0..=1.
pub(super) fn ease_in_to_slope(x: f32, end_slope: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    let k = end_slope.max(0.0);
    if k <= 2.0 {
        // (3 − k)x² + (k − 2)x³: F(1) = 1, F′(0) = 0, F′(1) = k.
        x * x * ((3.0 - k) + (k - 2.0) * x)
    } else {
        // xᵏ: the same parabola at k = 2.
        x.powf(k)
    }
}

/// Swing-foot lift over the swing: 0 at lift-off and touch-down, 1 at `peak` (share of
/// the swing, 0.05..0.95), reached at rest. It leaves the ground with slope
/// `liftoff_slope` and lands with slope `touchdown_slope` (lifts per share of the rise and
/// of the descent, at least 0; see [`ease_in_to_slope`]): a foot that comes down with some
/// vertical speed spends little time just above the floor, where it must not move
/// horizontally. An early peak is the heel kick of running.
pub(super) fn swing_lift(u: f32, peak: f32, liftoff_slope: f32, touchdown_slope: f32) -> f32 {
    let u = u.clamp(0.0, 1.0);
    let peak = peak.clamp(0.05, 0.95);
    if u <= peak {
        1.0 - ease_in_to_slope(1.0 - u / peak, liftoff_slope)
    } else {
        1.0 - ease_in_to_slope((u - peak) / (1.0 - peak), touchdown_slope)
    }
}

/// The `x` in `lo..=hi` at which the increasing `f` reaches `level` (bisection; `lo` or
/// `hi` when `level` is outside `f`'s range there).
pub(super) fn increasing_inverse(f: impl Fn(f32) -> f32, level: f32, lo: f32, hi: f32) -> f32 {
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Progress of a swinging foot along its path (ground frame, 0..=1 over the swing): it
/// leaves and arrives at rest, speeding up over the first `accelerate_share` of the swing
/// and braking over the last `brake_share` (smoothstep speed ramps around a constant
/// cruise). Short ramps keep the foot from trailing far behind the hip after toe-off and
/// from overshooting the landing point before touch-down, which the body keeps moving
/// toward while the foot slows.
pub(super) fn swing_progress(u: f32, accelerate_share: f32, brake_share: f32) -> f32 {
    let u = u.clamp(0.0, 1.0);
    let mut accelerate = accelerate_share.clamp(1e-3, 1.0);
    let mut brake = brake_share.clamp(1e-3, 1.0);
    let ramps = accelerate + brake;
    if ramps > 1.0 {
        accelerate /= ramps;
        brake /= ramps;
    }
    // Cruise speed so the whole path is covered: each ramp loses half its length.
    let cruise = 1.0 / (1.0 - 0.5 * (accelerate + brake));
    // Distance covered ramping up with smoothstep speed: ∫₀ˣ (3t² − 2t³) dt.
    let ramp = |x: f32| x * x * x * (1.0 - 0.5 * x);
    if u < accelerate {
        cruise * accelerate * ramp(u / accelerate)
    } else if u > 1.0 - brake {
        1.0 - cruise * brake * ramp((1.0 - u) / brake)
    } else {
        cruise * (u - 0.5 * accelerate)
    }
}

/// A symmetric bump, `sin²(πu)`: 0 with zero slope at both ends, 1 in the middle.
pub(super) fn hump(u: f32) -> f32 {
    let s = (PI * u.clamp(0.0, 1.0)).sin();
    s * s
}

/// A smooth curve lying on or above `values` everywhere: a running maximum over
/// `2·radius` keys followed by two box blurs of `radius` keys (each output averages values
/// that are all at least the input at that key). `circular` treats the keys as a loop.
pub(super) fn smooth_cover(values: &[f32], radius: usize, circular: bool) -> Vec<f32> {
    let n = values.len();
    if n == 0 || radius == 0 {
        return values.to_vec();
    }
    let maxed = window_pass(values, 2 * radius, circular, |w| {
        w.iter().copied().fold(f32::MIN, f32::max)
    });
    let blurred = window_pass(&maxed, radius, circular, mean);
    window_pass(&blurred, radius, circular, mean)
}

fn mean(window: &[f32]) -> f32 {
    window.iter().sum::<f32>() / window.len().max(1) as f32
}

/// Applies `reduce` to the window of `radius` keys on each side of every key; at the ends
/// of a non-circular series the window is clamped to the series.
fn window_pass(
    values: &[f32],
    radius: usize,
    circular: bool,
    reduce: impl Fn(&[f32]) -> f32,
) -> Vec<f32> {
    let n = values.len();
    let mut window = Vec::with_capacity(2 * radius + 1);
    (0..n)
        .map(|i| {
            window.clear();
            for offset in 0..=2 * radius {
                let j = i as isize + offset as isize - radius as isize;
                let index = if circular {
                    Some(j.rem_euclid(n as isize) as usize)
                } else {
                    (0..n as isize).contains(&j).then_some(j as usize)
                };
                if let Some(index) = index {
                    window.push(values[index]);
                }
            }
            reduce(&window)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_start_and_end_where_they_should() {
        for f in [smoothstep, min_jerk] {
            assert_eq!(f(0.0), 0.0);
            assert!((f(1.0) - 1.0).abs() < 1e-6);
            assert!((f(0.5) - 0.5).abs() < 1e-6);
        }
        for k in [0.0, 1.0, 2.0, 3.0, 6.0] {
            assert_eq!(ease_in_to_slope(0.0, k), 0.0);
            assert!((ease_in_to_slope(1.0, k) - 1.0).abs() < 1e-6);
            // Arrives with slope k.
            let slope = (ease_in_to_slope(1.0, k) - ease_in_to_slope(1.0 - 1e-3, k)) / 1e-3;
            assert!((slope - k).abs() < 0.02, "{k}: {slope}");
            // Increasing.
            let mut previous = 0.0;
            for i in 1..=100 {
                let y = ease_in_to_slope(i as f32 / 100.0, k);
                assert!(y >= previous, "{k} at {i}");
                previous = y;
            }
        }
        for (peak, off, down) in [(0.3, 0.0, 0.0), (0.4, 1.0, 2.0), (0.3, 3.0, 5.0)] {
            let lift = |u| swing_lift(u, peak, off, down);
            assert!((lift(peak) - 1.0).abs() < 1e-5);
            assert!(lift(peak - 0.05) < 1.0 && lift(peak + 0.05) < 1.0);
            assert_eq!(lift(0.0), 0.0);
            assert!(lift(1.0).abs() < 1e-6);
            // Leaves and lands with the slopes asked for (per share of the whole swing).
            let h = 1e-3;
            let (off, down) = (off / peak, down / (1.0 - peak));
            assert!((lift(h) / h - off).abs() < 0.05 + 0.02 * off, "{off}");
            assert!(
                (lift(1.0 - h) / h - down).abs() < 0.05 + 0.02 * down,
                "{down}"
            );
            let up = increasing_inverse(lift, 0.25, 0.0, peak);
            assert!((lift(up) - 0.25).abs() < 1e-4);
        }
        for (a, b) in [(0.3, 0.12), (0.5, 0.5), (0.8, 0.6)] {
            assert_eq!(swing_progress(0.0, a, b), 0.0);
            assert!((swing_progress(1.0, a, b) - 1.0).abs() < 1e-6);
            // Continuous and increasing.
            let mut previous = 0.0;
            for i in 1..=200 {
                let p = swing_progress(i as f32 / 200.0, a, b);
                assert!(p >= previous && p - previous < 0.02, "{a} {b} at {i}");
                previous = p;
            }
        }
        assert!((hump(0.5) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn smooth_cover_never_dips_below_the_input() {
        let mut values = vec![0.0; 40];
        values[3] = 1.0;
        values[38] = 0.5;
        for circular in [true, false] {
            let covered = smooth_cover(&values, 3, circular);
            for (c, v) in covered.iter().zip(&values) {
                assert!(*c >= *v - 1e-6);
            }
        }
        // Circular: the bump at key 38 spreads across the loop point to key 1.
        assert!(smooth_cover(&values, 3, true)[1] > 0.0);
    }
}
