//! Frame-rate independent filtering of the pelvis tilt (SPEC TILT-4, §0).
//!
//! The chain is: low-pass the ground normal ([`low_pass_normal`], world space) → decompose
//! it ([`super::decompose_ground_normal`]) → rate-limit the pitch/roll target → damp the
//! tilt toward the limited target ([`TiltDamping`]). [`TiltFilter`] holds the state of all
//! three stages as plain `Copy` data.
//!
//! Frame-rate independence is exact for a target held constant between ticks: within a tick
//! the rate-limited target is a ramp at the limit rate followed by a hold, and each damping
//! mode is integrated in closed form over both pieces (`1 - exp(-k·dt)` for the exponential,
//! the analytic solution for the critically damped spring). So a step response sampled at
//! 30, 60 or 144 Hz lies on the same continuous curve. No `lerp(a, b, k·dt)` anywhere.
//!
//! Robustness: a tick with `dt_s` ≤ 0, NaN or ∞, or with a non-finite target, changes
//! nothing and returns the previous tilt. NaN configuration values fall back to the
//! defaults, negative ones to 0 (which freezes that stage).

use glam::Vec3;

use crate::math::damp_share;

/// Default normal low-pass rate (1/s), SPEC TILT-4 range 10–15.
pub const DEFAULT_NORMAL_K_PER_S: f32 = 12.0;
/// Default exponential damping rate (1/s), SPEC TILT-4 range 8–12.
pub const DEFAULT_DAMPING_K_PER_S: f32 = 10.0;
/// Default rate limit on the tilt target: 90°/s in rad/s.
pub const DEFAULT_MAX_TARGET_RATE_RAD_PER_S: f32 = std::f32::consts::FRAC_PI_2;
/// Default speed for [`TiltDamping::FixedRate`] when its value is NaN: 60°/s in rad/s.
pub const DEFAULT_FIXED_RATE_RAD_PER_S: f32 = std::f32::consts::FRAC_PI_3;
/// Default natural frequency for [`TiltDamping::CriticalSpring`] when its value is NaN
/// (1/s).
pub const DEFAULT_SPRING_OMEGA_PER_S: f32 = 12.0;

/// Rates above this (1/s or rad/s) are treated as this, which already snaps within one
/// tick; keeps `ω²` and friends finite.
const MAX_RATE: f32 = 1.0e6;

/// How the tilt follows its rate-limited target, per axis (pitch and roll independently).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub enum TiltDamping {
    /// Exponential approach: the gap shrinks by `exp(-k_per_s · dt)` per tick (for a held
    /// target). `k_per_s` in 1/s; SPEC range 8–12, default 10. 0 freezes, ∞ snaps.
    Exponential {
        /// Rate (1/s).
        k_per_s: f32,
    },
    /// Move toward the target at a fixed angular speed (`move_toward`), rad/s. Reaches the
    /// target in finite time, never overshoots. 0 freezes, ∞ snaps.
    FixedRate {
        /// Speed (rad/s).
        rad_per_s: f32,
    },
    /// Critically damped spring `x'' = ω²(target − x) − 2ω·x'`, integrated exactly.
    /// Smoother start than the exponential (continuous velocity); settles to 2 % in about
    /// `5.8 / ω` s. `omega_per_s` in 1/s (e.g. 12). 0 freezes, ∞ snaps.
    CriticalSpring {
        /// Natural angular frequency ω (1/s).
        omega_per_s: f32,
    },
}

impl Default for TiltDamping {
    /// `Exponential { k_per_s: 10 }`.
    fn default() -> Self {
        Self::Exponential {
            k_per_s: DEFAULT_DAMPING_K_PER_S,
        }
    }
}

impl TiltDamping {
    /// This mode with NaN replaced by the mode's default, negatives by 0 and values above
    /// 1e6 by 1e6.
    pub fn sanitized(&self) -> Self {
        match *self {
            Self::Exponential { k_per_s } => Self::Exponential {
                k_per_s: sanitize_rate(k_per_s, DEFAULT_DAMPING_K_PER_S),
            },
            Self::FixedRate { rad_per_s } => Self::FixedRate {
                rad_per_s: sanitize_rate(rad_per_s, DEFAULT_FIXED_RATE_RAD_PER_S),
            },
            Self::CriticalSpring { omega_per_s } => Self::CriticalSpring {
                omega_per_s: sanitize_rate(omega_per_s, DEFAULT_SPRING_OMEGA_PER_S),
            },
        }
    }

    /// Advances one axis `(value, rate)` for `duration_s` while the target moves linearly:
    /// `target(t) = target_start + target_slope · t`. Closed form; `duration_s` > 0 and the
    /// mode sanitized.
    fn advance(
        &self,
        value: f32,
        rate_per_s: f32,
        target_start: f32,
        target_slope_per_s: f32,
        duration_s: f32,
    ) -> (f32, f32) {
        let target_end = target_start + target_slope_per_s * duration_s;
        match *self {
            Self::Exponential { k_per_s } => {
                // x(t) = u(t) − s/k + (x0 − u0 + s/k)·e^{−kt}, written without s/k so k → 0
                // stays finite: x1 = u1 + (x0 − u0)(1 − a) − s·t·a/(k·t), a = 1 − e^{−kt}.
                let kt = k_per_s * duration_s;
                let a = -(-kt).exp_m1();
                let a_over_kt = if kt < 1e-4 { 1.0 - 0.5 * kt } else { a / kt };
                let next = target_end + (value - target_start) * (1.0 - a)
                    - target_slope_per_s * duration_s * a_over_kt;
                (next, k_per_s.min(MAX_RATE) * (target_end - next))
            }
            Self::FixedRate { rad_per_s } => {
                let next = move_toward(value, target_end, rad_per_s * duration_s);
                (next, (next - value) / duration_s)
            }
            Self::CriticalSpring { omega_per_s } => {
                if omega_per_s <= 1e-6 {
                    return (value, 0.0);
                }
                // y = x − u(t) obeys y'' + 2ωy' + ω²y = −2ω·s; z = y + 2s/ω is homogeneous.
                let offset = 2.0 * target_slope_per_s / omega_per_s;
                let z0 = value - target_start + offset;
                let z_rate0 = rate_per_s - target_slope_per_s;
                let wt = omega_per_s * duration_s;
                let (z, z_rate) = if wt > 60.0 {
                    (0.0, 0.0)
                } else {
                    let decay = (-wt).exp();
                    let c = z_rate0 + omega_per_s * z0;
                    (
                        (z0 + c * duration_s) * decay,
                        (z_rate0 - omega_per_s * c * duration_s) * decay,
                    )
                };
                (target_end + z - offset, z_rate + target_slope_per_s)
            }
        }
    }
}

/// Settings of [`TiltFilter`] (SPEC TILT-4). Serde with defaults for missing fields.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TiltFilterConfig {
    /// Low-pass rate of the ground normal (1/s), used by [`TiltFilter::filter_normal`].
    /// Default 12 (SPEC 10–15).
    pub normal_k_per_s: f32,
    /// Largest speed (rad/s) at which the pitch and the roll target may each move. Default
    /// 90°/s (π/2). `f32::INFINITY` disables the limit; 0 holds the target where it is.
    pub max_target_rate_rad_per_s: f32,
    /// How the tilt follows the limited target. Default `Exponential { k_per_s: 10 }`.
    pub damping: TiltDamping,
}

impl Default for TiltFilterConfig {
    fn default() -> Self {
        Self {
            normal_k_per_s: DEFAULT_NORMAL_K_PER_S,
            max_target_rate_rad_per_s: DEFAULT_MAX_TARGET_RATE_RAD_PER_S,
            damping: TiltDamping::default(),
        }
    }
}

impl TiltFilterConfig {
    /// This config with NaN replaced by the defaults and negative rates by 0. Infinite rate
    /// limit stays infinite (no limit); other rates are capped at 1e6.
    pub fn sanitized(&self) -> Self {
        let max_target_rate_rad_per_s = if self.max_target_rate_rad_per_s.is_nan() {
            DEFAULT_MAX_TARGET_RATE_RAD_PER_S
        } else {
            self.max_target_rate_rad_per_s.max(0.0)
        };
        Self {
            normal_k_per_s: sanitize_rate(self.normal_k_per_s, DEFAULT_NORMAL_K_PER_S),
            max_target_rate_rad_per_s,
            damping: self.damping.sanitized(),
        }
    }
}

/// State of the tilt filter chain (SPEC TILT-4): plain data, `Copy`, no allocation. Angles
/// are the pelvis pitch/roll of [`super::decompose_ground_normal`] (model frame, rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiltFilter {
    /// Settings, read every tick (sanitized on use).
    pub config: TiltFilterConfig,
    /// Low-passed unit ground normal, **world** space. Starts at +Y.
    pub normal_world: Vec3,
    /// Rate-limited pitch target (rad).
    pub limited_target_pitch_rad: f32,
    /// Rate-limited roll target (rad).
    pub limited_target_roll_rad: f32,
    /// Current (damped) pitch (rad); the output.
    pub pitch_rad: f32,
    /// Current (damped) roll (rad); the output.
    pub roll_rad: f32,
    /// Pitch angular velocity (rad/s), carried by the spring mode.
    pub pitch_rate_rad_per_s: f32,
    /// Roll angular velocity (rad/s), carried by the spring mode.
    pub roll_rate_rad_per_s: f32,
}

impl Default for TiltFilter {
    fn default() -> Self {
        Self::new(TiltFilterConfig::default())
    }
}

impl TiltFilter {
    /// A filter at rest with no tilt and an upward normal.
    pub fn new(config: TiltFilterConfig) -> Self {
        Self {
            config,
            normal_world: Vec3::Y,
            limited_target_pitch_rad: 0.0,
            limited_target_roll_rad: 0.0,
            pitch_rad: 0.0,
            roll_rad: 0.0,
            pitch_rate_rad_per_s: 0.0,
            roll_rate_rad_per_s: 0.0,
        }
    }

    /// Jumps to a tilt (rad) at rest, with the limited target there too (e.g. on spawn or
    /// teleport). Non-finite angles become 0.
    pub fn reset(&mut self, pitch_rad: f32, roll_rad: f32) {
        let finite_or_zero = |a: f32| if a.is_finite() { a } else { 0.0 };
        self.pitch_rad = finite_or_zero(pitch_rad);
        self.roll_rad = finite_or_zero(roll_rad);
        self.limited_target_pitch_rad = self.pitch_rad;
        self.limited_target_roll_rad = self.roll_rad;
        self.pitch_rate_rad_per_s = 0.0;
        self.roll_rate_rad_per_s = 0.0;
    }

    /// Low-passes a raw ground normal (world space) into [`Self::normal_world`] with
    /// [`TiltFilterConfig::normal_k_per_s`] and returns it (unit). See [`low_pass_normal`].
    pub fn filter_normal(&mut self, raw_normal_world: Vec3, dt_s: f32) -> Vec3 {
        let k_per_s = self.config.sanitized().normal_k_per_s;
        self.normal_world = low_pass_normal(self.normal_world, raw_normal_world, k_per_s, dt_s);
        self.normal_world
    }

    /// Advances one tick of `dt_s` seconds toward the target tilt (rad; usually the clamped
    /// angles of a [`super::GroundTilt`], or 0/0 when airborne): rate-limit the target, then
    /// damp toward it. Returns the new `(pitch_rad, roll_rad)`.
    ///
    /// `dt_s` ≤ 0 or non-finite, or a non-finite target, changes nothing and returns the
    /// current tilt.
    pub fn step(&mut self, target_pitch_rad: f32, target_roll_rad: f32, dt_s: f32) -> (f32, f32) {
        let usable = dt_s > 0.0
            && dt_s.is_finite()
            && target_pitch_rad.is_finite()
            && target_roll_rad.is_finite();
        if !usable {
            return (self.pitch_rad, self.roll_rad);
        }
        let config = self.config.sanitized();
        let pitch = step_axis(
            AxisState {
                value: self.pitch_rad,
                rate_per_s: self.pitch_rate_rad_per_s,
                limited_target: self.limited_target_pitch_rad,
            },
            target_pitch_rad,
            &config,
            dt_s,
        );
        let roll = step_axis(
            AxisState {
                value: self.roll_rad,
                rate_per_s: self.roll_rate_rad_per_s,
                limited_target: self.limited_target_roll_rad,
            },
            target_roll_rad,
            &config,
            dt_s,
        );
        self.pitch_rad = pitch.value;
        self.pitch_rate_rad_per_s = pitch.rate_per_s;
        self.limited_target_pitch_rad = pitch.limited_target;
        self.roll_rad = roll.value;
        self.roll_rate_rad_per_s = roll.rate_per_s;
        self.limited_target_roll_rad = roll.limited_target;
        (self.pitch_rad, self.roll_rad)
    }
}

/// One axis of [`TiltFilter`].
#[derive(Clone, Copy, Debug)]
struct AxisState {
    value: f32,
    rate_per_s: f32,
    limited_target: f32,
}

/// Rate-limits `target` and damps one axis for `dt_s` (> 0, finite; `target` finite).
/// A non-finite state is repaired first (value and limited target snap to the target).
fn step_axis(state: AxisState, target: f32, config: &TiltFilterConfig, dt_s: f32) -> AxisState {
    let mut state = state;
    if !state.value.is_finite() {
        state.value = target;
    }
    if !state.limited_target.is_finite() {
        state.limited_target = state.value;
    }
    if !state.rate_per_s.is_finite() {
        state.rate_per_s = 0.0;
    }

    // The limited target within the tick: a ramp at ±rate for ramp_s, then a hold.
    let max_rate = config.max_target_rate_rad_per_s;
    let gap = target - state.limited_target;
    let (ramp_start, slope_per_s, ramp_s, hold_target) = if max_rate.is_infinite() || gap == 0.0 {
        (target, 0.0, 0.0, target)
    } else if max_rate * dt_s < gap.abs() {
        let slope = max_rate.copysign(gap);
        let end = state.limited_target + slope * dt_s;
        (state.limited_target, slope, dt_s, end)
    } else {
        let slope = max_rate.copysign(gap);
        (state.limited_target, slope, gap.abs() / max_rate, target)
    };

    let damping = config.damping;
    let (mut value, mut rate) = (state.value, state.rate_per_s);
    if ramp_s > 0.0 {
        (value, rate) = damping.advance(value, rate, ramp_start, slope_per_s, ramp_s);
    }
    let hold_s = dt_s - ramp_s;
    if hold_s > 0.0 {
        (value, rate) = damping.advance(value, rate, hold_target, 0.0, hold_s);
    }
    if !value.is_finite() || !rate.is_finite() {
        // Unreachable with sanitized inputs; never let NaN escape.
        return state;
    }
    AxisState {
        value,
        rate_per_s: rate,
        limited_target: hold_target,
    }
}

/// Low-passes a unit direction (e.g. a ground normal; any space, same for both arguments):
/// `normalize(current + (target − current)·(1 − exp(−k_per_s·dt_s)))` (SPEC TILT-4,
/// k 10–15 1/s).
///
/// Robustness: a non-finite or zero-length `target` keeps `current`; a non-finite or
/// zero-length `current` jumps to `target` (+Y if both are bad); `dt_s` ≤ 0 or
/// non-finite, or NaN `k_per_s`, returns `current` unchanged; negative `k_per_s` acts as 0.
/// When the blend cancels out (opposite directions) the result is whichever end is nearer.
pub fn low_pass_normal(current: Vec3, target: Vec3, k_per_s: f32, dt_s: f32) -> Vec3 {
    let usable = |v: Vec3| v.is_finite() && v.length_squared() > 1e-12;
    match (usable(current), usable(target)) {
        (false, false) => return Vec3::Y,
        (false, true) => return target.normalize_or(Vec3::Y),
        (true, false) => return current,
        (true, true) => {}
    }
    if !(dt_s > 0.0 && dt_s.is_finite()) || k_per_s.is_nan() {
        return current;
    }
    let current_unit = current.normalize_or(Vec3::Y);
    let target_unit = target.normalize_or(Vec3::Y);
    let blend = damp_share(k_per_s.max(0.0), dt_s);
    let mixed = current_unit + (target_unit - current_unit) * blend;
    mixed.normalize_or(if blend >= 0.5 {
        target_unit
    } else {
        current_unit
    })
}

/// Moves `value` toward `target` by at most `max_step` (≥ 0; negative acts as 0), without
/// overshooting. A NaN `target` or `max_step` leaves `value` unchanged.
pub fn move_toward(value: f32, target: f32, max_step: f32) -> f32 {
    if target.is_nan() || max_step.is_nan() {
        return value;
    }
    let gap = target - value;
    if gap.abs() <= max_step {
        target
    } else {
        value + max_step.max(0.0).copysign(gap)
    }
}

fn sanitize_rate(value: f32, fallback: f32) -> f32 {
    if value.is_nan() {
        fallback
    } else {
        value.clamp(0.0, MAX_RATE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEP_RAD: f32 = 20.0 * std::f32::consts::PI / 180.0;

    fn modes() -> [TiltDamping; 3] {
        [
            TiltDamping::Exponential { k_per_s: 10.0 },
            TiltDamping::FixedRate {
                rad_per_s: 40f32.to_radians(),
            },
            TiltDamping::CriticalSpring { omega_per_s: 12.0 },
        ]
    }

    fn config(damping: TiltDamping, max_rate: f32) -> TiltFilterConfig {
        TiltFilterConfig {
            damping,
            max_target_rate_rad_per_s: max_rate,
            ..TiltFilterConfig::default()
        }
    }

    /// Pitch and roll at t = 1/6, 2/6, … 1 s (common to 30, 60 and 144 Hz) for a step of
    /// the target from 0 to 20° pitch and −20° roll at t = 0.
    fn step_response(config: TiltFilterConfig, hz: u32) -> Vec<(f32, f32)> {
        let mut filter = TiltFilter::new(config);
        let dt = 1.0 / hz as f32;
        let mut samples = Vec::new();
        for tick in 1..=hz {
            let out = filter.step(STEP_RAD, -STEP_RAD, dt);
            if (tick * 6) % hz == 0 {
                samples.push(out);
            }
        }
        assert_eq!(samples.len(), 6);
        samples
    }

    fn assert_frame_rate_independent(config: TiltFilterConfig) {
        let reference = step_response(config, 144);
        for hz in [30, 60] {
            for (i, (a, b)) in step_response(config, hz).iter().zip(&reference).enumerate() {
                let tolerance = 0.02 * STEP_RAD;
                assert!(
                    (a.0 - b.0).abs() < tolerance && (a.1 - b.1).abs() < tolerance,
                    "{config:?} at {hz} Hz, sample {i}: {a:?} vs {b:?}"
                );
                // In fact they agree to float precision.
                assert!(
                    (a.0 - b.0).abs() < 1e-4,
                    "{config:?} {hz} Hz {i}: {a:?} {b:?}"
                );
            }
        }
        // It moves, reaches the target, and never overshoots.
        let last = reference[5];
        assert!(reference[0].0 > 0.0);
        assert!(last.0 <= STEP_RAD + 1e-6 && last.1 >= -STEP_RAD - 1e-6);
    }

    #[test]
    fn every_mode_is_frame_rate_independent_with_and_without_the_rate_limit() {
        for damping in modes() {
            for max_rate in [DEFAULT_MAX_TARGET_RATE_RAD_PER_S, 0.5, f32::INFINITY] {
                assert_frame_rate_independent(config(damping, max_rate));
            }
        }
    }

    #[test]
    fn exponential_without_limit_matches_the_analytic_curve() {
        let samples = step_response(config(TiltDamping::default(), f32::INFINITY), 60);
        for (i, (pitch, roll)) in samples.iter().enumerate() {
            let t = (i + 1) as f32 / 6.0;
            let expected = STEP_RAD * (1.0 - (-10.0 * t).exp());
            assert!((pitch - expected).abs() < 1e-5);
            assert!((roll + expected).abs() < 1e-5);
        }
    }

    #[test]
    fn rate_limit_caps_the_target_speed() {
        let mut filter = TiltFilter::new(config(
            TiltDamping::Exponential {
                k_per_s: f32::INFINITY,
            },
            DEFAULT_MAX_TARGET_RATE_RAD_PER_S,
        ));
        let dt = 1.0 / 60.0;
        let (pitch, _) = filter.step(STEP_RAD, 0.0, dt);
        // k = ∞ is capped at 1e6 1/s: a lag of rate / k ≈ 1.6e-6 rad behind the ramp.
        assert!((pitch - DEFAULT_MAX_TARGET_RATE_RAD_PER_S * dt).abs() < 1e-5);
        for _ in 0..60 {
            filter.step(STEP_RAD, 0.0, dt);
        }
        assert!((filter.pitch_rad - STEP_RAD).abs() < 1e-6);
        assert_eq!(filter.limited_target_pitch_rad, STEP_RAD);
    }

    #[test]
    fn fixed_rate_moves_linearly() {
        let speed = 10f32.to_radians();
        let mut filter = TiltFilter::new(config(
            TiltDamping::FixedRate { rad_per_s: speed },
            f32::INFINITY,
        ));
        for _ in 0..30 {
            filter.step(STEP_RAD, 0.0, 1.0 / 60.0);
        }
        assert!((filter.pitch_rad - 0.5 * speed).abs() < 1e-5);
    }

    #[test]
    fn dt_zero_and_bad_dt_change_nothing() {
        for damping in modes() {
            let mut filter = TiltFilter::new(config(damping, DEFAULT_MAX_TARGET_RATE_RAD_PER_S));
            for _ in 0..10 {
                filter.step(STEP_RAD, -STEP_RAD, 1.0 / 60.0);
            }
            let before = filter;
            for dt in [0.0, -0.1, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let out = filter.step(0.5, 0.5, dt);
                assert_eq!(filter, before, "{damping:?} dt {dt}");
                assert_eq!(out, (before.pitch_rad, before.roll_rad));
            }
        }
    }

    #[test]
    fn nan_targets_keep_the_previous_state() {
        for damping in modes() {
            let mut filter = TiltFilter::new(config(damping, DEFAULT_MAX_TARGET_RATE_RAD_PER_S));
            for _ in 0..10 {
                filter.step(STEP_RAD, -STEP_RAD, 1.0 / 60.0);
            }
            let before = filter;
            for (p, r) in [(f32::NAN, 0.0), (0.0, f32::NAN), (f32::INFINITY, 0.0)] {
                filter.step(p, r, 1.0 / 60.0);
                assert_eq!(filter, before, "{damping:?}");
            }
        }
    }

    #[test]
    fn one_second_spikes_stay_finite_and_do_not_overshoot() {
        for damping in modes() {
            for max_rate in [DEFAULT_MAX_TARGET_RATE_RAD_PER_S, f32::INFINITY] {
                // From rest.
                let mut filter = TiltFilter::new(config(damping, max_rate));
                let (pitch, roll) = filter.step(STEP_RAD, -STEP_RAD, 1.0);
                assert!(pitch.is_finite() && roll.is_finite());
                assert!(
                    (0.0..=STEP_RAD + 1e-6).contains(&pitch),
                    "{damping:?} {pitch}"
                );
                assert!(
                    (-STEP_RAD - 1e-6..=0.0).contains(&roll),
                    "{damping:?} {roll}"
                );
                // Mid-motion, then a spike, then back to ordinary ticks.
                let mut filter = TiltFilter::new(config(damping, max_rate));
                for _ in 0..5 {
                    filter.step(STEP_RAD, -STEP_RAD, 1.0 / 60.0);
                }
                filter.step(STEP_RAD, -STEP_RAD, 1.0);
                for _ in 0..60 {
                    let (pitch, roll) = filter.step(STEP_RAD, -STEP_RAD, 1.0 / 60.0);
                    assert!(pitch <= STEP_RAD + 1e-6 && roll >= -STEP_RAD - 1e-6);
                }
            }
        }
    }

    #[test]
    fn extreme_configs_stay_finite() {
        let extremes = [0.0, -1.0, f32::NAN, f32::INFINITY, 1e30, f32::MIN_POSITIVE];
        for value in extremes {
            for damping in [
                TiltDamping::Exponential { k_per_s: value },
                TiltDamping::FixedRate { rad_per_s: value },
                TiltDamping::CriticalSpring { omega_per_s: value },
            ] {
                for max_rate in extremes {
                    let mut filter = TiltFilter::new(TiltFilterConfig {
                        normal_k_per_s: value,
                        max_target_rate_rad_per_s: max_rate,
                        damping,
                    });
                    for dt in [1.0 / 60.0, 1.0, 1e-9] {
                        let (pitch, roll) = filter.step(1e3, -STEP_RAD, dt);
                        assert!(
                            pitch.is_finite() && roll.is_finite(),
                            "{damping:?} {max_rate}"
                        );
                        let normal = filter.filter_normal(Vec3::new(0.3, 1.0, 0.0), dt);
                        assert!(normal.is_finite());
                    }
                }
            }
        }
    }

    #[test]
    fn nan_state_is_repaired() {
        let mut filter = TiltFilter {
            pitch_rad: f32::NAN,
            roll_rate_rad_per_s: f32::INFINITY,
            limited_target_roll_rad: f32::NAN,
            ..TiltFilter::default()
        };
        let (pitch, roll) = filter.step(0.1, 0.1, 1.0 / 60.0);
        assert!(pitch.is_finite() && roll.is_finite());
        assert!(filter.roll_rate_rad_per_s.is_finite());
    }

    #[test]
    fn reset_jumps_to_rest() {
        let mut filter = TiltFilter::default();
        filter.reset(0.2, f32::NAN);
        assert_eq!((filter.pitch_rad, filter.roll_rad), (0.2, 0.0));
        assert_eq!(filter.limited_target_pitch_rad, 0.2);
        let (pitch, _) = filter.step(0.2, 0.0, 1.0 / 60.0);
        assert!((pitch - 0.2).abs() < 1e-7);
    }

    /// Angle (rad) between the low-passed normal and the target at t = 1/6 … 1 s for a 20°
    /// step of the target normal.
    fn normal_response(hz: u32) -> Vec<f32> {
        let target = Vec3::new(0.0, STEP_RAD.cos(), -STEP_RAD.sin());
        let mut normal = Vec3::Y;
        let dt = 1.0 / hz as f32;
        let mut samples = Vec::new();
        for tick in 1..=hz {
            normal = low_pass_normal(normal, target, DEFAULT_NORMAL_K_PER_S, dt);
            assert!((normal.length() - 1.0).abs() < 1e-5);
            if (tick * 6) % hz == 0 {
                samples.push(normal.angle_between(target));
            }
        }
        samples
    }

    #[test]
    fn normal_low_pass_is_frame_rate_independent() {
        let reference = normal_response(144);
        for hz in [30, 60] {
            for (i, (a, b)) in normal_response(hz).iter().zip(&reference).enumerate() {
                assert!(
                    (a - b).abs() < 0.02 * STEP_RAD,
                    "{hz} Hz sample {i}: {a} vs {b}"
                );
            }
        }
        // Close to the continuous exponential of the angle.
        for (i, angle) in reference.iter().enumerate() {
            let t = (i + 1) as f32 / 6.0;
            let expected = STEP_RAD * (-DEFAULT_NORMAL_K_PER_S * t).exp();
            assert!((angle - expected).abs() < 0.02 * STEP_RAD);
        }
    }

    #[test]
    fn normal_low_pass_edge_cases() {
        let current = Vec3::new(0.0, 1.0, -0.2).normalize();
        let target = Vec3::new(0.3, 1.0, 0.0).normalize();
        // dt = 0, bad dt, NaN k: unchanged.
        for (k, dt) in [(12.0, 0.0), (12.0, -1.0), (12.0, f32::NAN), (f32::NAN, 0.1)] {
            assert_eq!(low_pass_normal(current, target, k, dt), current);
        }
        // Bad target keeps current; bad current jumps to target; both bad gives +Y.
        assert_eq!(low_pass_normal(current, Vec3::NAN, 12.0, 0.1), current);
        assert_eq!(low_pass_normal(current, Vec3::ZERO, 12.0, 0.1), current);
        assert!((low_pass_normal(Vec3::NAN, target * 3.0, 12.0, 0.1) - target).length() < 1e-6);
        assert_eq!(low_pass_normal(Vec3::ZERO, Vec3::NAN, 12.0, 0.1), Vec3::Y);
        // A 1 s spike nearly reaches the target and stays unit; infinite k snaps.
        let spiked = low_pass_normal(current, target, 12.0, 1.0);
        assert!((spiked - target).length() < 1e-4);
        assert!((low_pass_normal(current, target, f32::INFINITY, 0.01) - target).length() < 1e-6);
        // Opposite directions never give NaN.
        let flipped = low_pass_normal(Vec3::Y, -Vec3::Y, 12.0, 0.0577623);
        assert!(flipped.is_finite() && (flipped.length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn config_round_trips_through_ron_with_defaults() {
        let parsed: TiltFilterConfig =
            ron::from_str("(damping: FixedRate(rad_per_s: 1.0))").expect("parse a partial config");
        assert_eq!(parsed.normal_k_per_s, DEFAULT_NORMAL_K_PER_S);
        assert_eq!(parsed.damping, TiltDamping::FixedRate { rad_per_s: 1.0 });
        let text = ron::to_string(&TiltFilterConfig::default()).expect("serialize");
        let back: TiltFilterConfig = ron::from_str(&text).expect("parse");
        assert_eq!(back, TiltFilterConfig::default());
        assert!(ron::from_str::<TiltFilterConfig>("(typo: 1.0)").is_err());
    }
}
