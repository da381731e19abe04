//! Small scalar helpers every stage uses, written once: an easing curve, frame-rate
//! independent smoothing, angle wrap and a finite fallback.

use std::f32::consts::{PI, TAU};

/// Hermite smoothstep `3x² − 2x³`: zero slope at both ends. Input is clamped to 0..=1.
pub fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// The share of the way to its target an exponential smoothing at `rate_per_s` (1/s)
/// covers in `dt_s`: `1 − e^(−rate·dt)`, so any tick rate ends in the same place.
pub fn damp_share(rate_per_s: f32, dt_s: f32) -> f32 {
    1.0 - (-rate_per_s * dt_s).exp()
}

/// Wraps an angle into `-π..=π` (0 for non-finite input); angles already in range are
/// returned unchanged (bit for bit).
pub fn wrap_angle(angle_rad: f32) -> f32 {
    if (-PI..=PI).contains(&angle_rad) {
        return angle_rad;
    }
    let wrapped = (angle_rad + PI).rem_euclid(TAU) - PI;
    if wrapped.is_finite() {
        wrapped
    } else {
        0.0
    }
}

/// `value`, or `fallback` when it is NaN or infinite.
pub fn finite_or(value: f32, fallback: f32) -> f32 {
    if value.is_finite() {
        value
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoothstep_is_flat_at_both_ends_and_clamped() {
        assert_eq!(smoothstep(-1.0), 0.0);
        assert_eq!(smoothstep(0.5), 0.5);
        assert_eq!(smoothstep(2.0), 1.0);
        assert!(smoothstep(0.01) < 0.001);
    }

    #[test]
    fn damping_ends_in_the_same_place_at_any_tick_rate() {
        let run = |hz: f32| {
            let mut x = 0.0f32;
            for _ in 0..(hz as usize) {
                x += (1.0 - x) * damp_share(5.0, 1.0 / hz);
            }
            x
        };
        let expected = 1.0 - (-5.0f32).exp();
        for hz in [30.0, 60.0, 144.0] {
            assert!((run(hz) - expected).abs() < 1e-4, "{hz} Hz: {}", run(hz));
        }
        assert_eq!(damp_share(0.0, 1.0), 0.0);
    }

    #[test]
    fn angles_wrap_into_range_and_garbage_becomes_zero() {
        assert_eq!(wrap_angle(1.0), 1.0);
        assert!((wrap_angle(TAU + 1.0) - 1.0).abs() < 1e-5);
        assert!((wrap_angle(-PI - 0.5) - (PI - 0.5)).abs() < 1e-5);
        assert_eq!(wrap_angle(f32::NAN), 0.0);
        assert_eq!(wrap_angle(f32::INFINITY), 0.0);
        assert_eq!(finite_or(f32::NAN, 2.0), 2.0);
        assert_eq!(finite_or(1.0, 2.0), 1.0);
    }
}
