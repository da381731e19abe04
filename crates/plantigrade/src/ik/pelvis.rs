//! The predictive pelvis (SPEC IK-7): how far the pelvis must come down so both feet can
//! reach their **predicted** targets with the leg at most 99 % extended, and the smoothed
//! offset that follows it (down faster than up).
//!
//! The offset also hides the capsule's discrete step-ups and snap-downs on stairs: the part
//! of the root's vertical motion faster than a walk or run up a slope ever goes is taken
//! back, so the pelvis (and the whole body) keeps its world height and only then eases to
//! the new target. A speed, not a distance per tick, so 30, 60 and 144 Hz see the same
//! steps (a capsule climbs a riser over several ticks at 144 Hz, each under any per-tick
//! threshold).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::math::damp_share;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PelvisConfig {
    /// Leg extension cap: hip-to-ankle distance over leg length. IK-7 says 0.99; the
    /// default is 0.985, inside the two-bone solve's soft zone (`FootIkConfig::soften`,
    /// 0.98), where a target is still reached within 0.06 % of the leg. A knee near
    /// straight moves about 3.5 times as far as its ankle at 0.99 and 2.8 times at 0.985:
    /// a trailing foot let go at full stretch up the 40° ramp moved the knee 18.8 cm in a
    /// tick (a pop) at 0.99, 16.8 cm now. (At 0.975 and 0.97 a first step landing at the
    /// crest of the 30° ramp down fell short and skated for a tick at 30 Hz.)
    pub max_leg_extension: f32,
    /// Largest drop (m).
    pub max_drop_m: f32,
    /// Largest raise the step compensation may leave for a moment (m).
    pub max_raise_m: f32,
    /// Exponential rate while moving down (1/s).
    pub down_rate_per_s: f32,
    /// Exponential rate while moving up (1/s): slower, so the body settles, not bounces.
    pub up_rate_per_s: f32,
    /// Vertical root speed (m/s) above which the root is stepping: the excess is taken
    /// back. Above a run up a 30° ramp (1.9 m/s), below a capsule's step-up (3–7 m/s).
    pub step_speed_m_s: f32,
}

impl Default for PelvisConfig {
    fn default() -> Self {
        Self {
            max_leg_extension: 0.985,
            max_drop_m: 0.5,
            max_raise_m: 0.45,
            down_rate_per_s: 18.0,
            up_rate_per_s: 7.0,
            step_speed_m_s: 2.0,
        }
    }
}

/// How far (m, ≥ 0) a hip at `hip_world` must come down so that an ankle target at
/// `target_world` lies within `max_extension × leg_length_m` (law of cosines on the leg:
/// the vertical leg that remains for the horizontal distance). A target out of reach
/// horizontally needs the hip down to the target's height.
pub fn required_drop_m(
    hip_world: Vec3,
    target_world: Vec3,
    leg_length_m: f32,
    max_extension: f32,
) -> f32 {
    if leg_length_m.is_nan() || leg_length_m <= 0.0 {
        return 0.0;
    }
    drop_to_reach_m(
        hip_world,
        target_world,
        leg_length_m * max_extension.clamp(0.5, 1.0),
    )
}

/// How far (m, ≥ 0) a hip at `hip_world` must come down so that `target_world` lies within
/// `reach` of it (see [`required_drop_m`]); 0 for a non-finite input.
pub fn drop_to_reach_m(hip_world: Vec3, target_world: Vec3, reach: f32) -> f32 {
    if !hip_world.is_finite() || !target_world.is_finite() || !reach.is_finite() || reach <= 0.0 {
        return 0.0;
    }
    let d = hip_world - target_world;
    let horizontal_sq = d.x * d.x + d.z * d.z;
    let vertical_room = (reach * reach - horizontal_sq).max(0.0).sqrt();
    (d.y - vertical_room).max(0.0)
}

/// The pelvis offset state (m along model +Y; negative = down).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PelvisOffset {
    pub offset_m: f32,
    /// The part of `offset_m` that is root steps taken back, easing out with it (m): how
    /// far the body lags the capsule's step. The animated feet are placed on the body, so
    /// they lag with it too, rather than rise with the capsule while the pelvis stays
    /// (KayKit's own clips over the terrain runs from four starts: 1206 → 1166 pops).
    pub step_taken_back_m: f32,
    /// How far the body lags the capsule across the ground (m, world, horizontal): a
    /// step-up's overshoot past the move asked for (see [`Self::take_back_overshoot`]),
    /// easing out with `step_taken_back_m`. Applied to the pelvis and to the animated feet.
    pub step_lag_world: Vec3,
    last_root_y_m: Option<f32>,
}

impl PelvisOffset {
    /// One tick: take back a root step (when grounded now and before), then ease toward
    /// `target_offset_m` (down at the down rate, up at the up rate). Returns the offset.
    pub fn update(
        &mut self,
        config: &PelvisConfig,
        target_offset_m: f32,
        root_y_m: f32,
        grounded: bool,
        dt_s: f32,
    ) -> f32 {
        self.take_back_step(config, root_y_m, grounded, dt_s);
        self.ease(config, target_offset_m, dt_s)
    }

    /// The first half of [`Self::update`]: the part of the root's vertical motion since the
    /// last call faster than `step_speed_m_s` taken back (grounded now and before). Called
    /// again in the same tick with the same root, it does nothing.
    pub fn take_back_step(
        &mut self,
        config: &PelvisConfig,
        root_y_m: f32,
        grounded: bool,
        dt_s: f32,
    ) {
        let dt_s = if dt_s.is_finite() { dt_s.max(0.0) } else { 0.0 };
        if let (Some(last), true) = (self.last_root_y_m, grounded) {
            let jump = root_y_m - last;
            let allowed = config.step_speed_m_s.max(0.0) * dt_s;
            if jump.is_finite() && jump.abs() > allowed {
                let excess = jump - jump.clamp(-allowed, allowed);
                self.offset_m -= excess;
                self.step_taken_back_m -= excess;
            }
        }
        self.last_root_y_m = if grounded && root_y_m.is_finite() {
            Some(root_y_m)
        } else {
            None
        };
    }

    /// A capsule step-up's horizontal overshoot past the move asked for (m, world; see
    /// `MovementOutput::step_overshoot_world`) taken back: the body stays where the move
    /// asked and catches up as the step eases out, rather than jump ahead with the capsule
    /// (KayKit's 7 cm in a tick at every riser, the mannequin's 13 cm at 144 Hz where a
    /// ramp meets a flight).
    pub fn take_back_overshoot(&mut self, config: &PelvisConfig, overshoot_world: Vec3) {
        let horizontal = Vec3::new(overshoot_world.x, 0.0, overshoot_world.z);
        if horizontal.is_finite() {
            self.step_lag_world =
                (self.step_lag_world - horizontal).clamp_length_max(config.max_drop_m.max(0.0));
        }
    }

    /// The second half of [`Self::update`]: the offset eased toward `target_offset_m`, the
    /// step taken back (and the lag across the ground) easing out by the same share.
    /// Returns the offset.
    pub fn ease(&mut self, config: &PelvisConfig, target_offset_m: f32, dt_s: f32) -> f32 {
        let dt_s = if dt_s.is_finite() { dt_s.max(0.0) } else { 0.0 };
        let target = if target_offset_m.is_finite() {
            target_offset_m.clamp(-config.max_drop_m, 0.0)
        } else {
            0.0
        };
        let rate = if target < self.offset_m {
            config.down_rate_per_s
        } else {
            config.up_rate_per_s
        };
        let share = damp_share(rate, dt_s);
        self.offset_m += (target - self.offset_m) * share;
        self.offset_m = self.offset_m.clamp(-config.max_drop_m, config.max_raise_m);
        self.step_taken_back_m *= 1.0 - share;
        self.step_lag_world *= 1.0 - share;
        self.step_taken_back_m = self
            .step_taken_back_m
            .clamp(-config.max_drop_m, config.max_raise_m);
        if !(self.offset_m.is_finite()
            && self.step_taken_back_m.is_finite()
            && self.step_lag_world.is_finite())
        {
            self.offset_m = 0.0;
            self.step_taken_back_m = 0.0;
            self.step_lag_world = Vec3::ZERO;
        }
        self.offset_m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_is_zero_when_reachable_and_exact_when_not() {
        let hip = Vec3::new(0.0, 0.9, 0.0);
        // Straight below at 0.85 of a 0.9 m leg: reachable.
        assert_eq!(
            required_drop_m(hip, Vec3::new(0.0, 0.05, 0.0), 0.9, 0.99),
            0.0
        );
        // Straight below 1.0 m: the hip comes down 1.0 − 0.891.
        let d = required_drop_m(hip, Vec3::new(0.0, -0.1, 0.0), 0.9, 0.99);
        assert!((d - (1.0 - 0.891)).abs() < 1e-5, "{d}");
        // 0.5 m ahead and 0.8 m down: vertical room sqrt(0.891² − 0.25) = 0.7375.
        let d = required_drop_m(hip, Vec3::new(0.0, 0.1, 0.5), 0.9, 0.99);
        assert!(
            (d - (0.8 - (0.891f32 * 0.891 - 0.25).sqrt())).abs() < 1e-5,
            "{d}"
        );
        // Out of horizontal reach: down to the target's height.
        let d = required_drop_m(hip, Vec3::new(0.0, 0.2, 1.5), 0.9, 0.99);
        assert!((d - 0.7).abs() < 1e-5);
        assert_eq!(required_drop_m(Vec3::NAN, hip, 0.9, 0.99), 0.0);
    }

    #[test]
    fn goes_down_faster_than_up() {
        let config = PelvisConfig::default();
        let mut p = PelvisOffset::default();
        let dt = 1.0 / 60.0;
        let mut down_ticks = 0;
        while p.update(&config, -0.2, 0.0, true, dt) > -0.19 {
            down_ticks += 1;
        }
        let mut up_ticks = 0;
        while p.update(&config, 0.0, 0.0, true, dt) < -0.01 {
            up_ticks += 1;
        }
        assert!(
            down_ticks * 2 < up_ticks,
            "down {down_ticks}, up {up_ticks}"
        );
    }

    #[test]
    fn the_step_part_of_the_offset_is_known_and_eases_out_with_it() {
        let config = PelvisConfig::default();
        let dt = 1.0 / 60.0;
        let mut p = PelvisOffset::default();
        // Dropped 10 cm for reach, then the capsule steps up 0.2 m.
        for _ in 0..120 {
            p.update(&config, -0.1, 0.0, true, dt);
        }
        p.take_back_step(&config, 0.2, true, dt);
        let excess = 0.2 - config.step_speed_m_s * dt;
        assert!((p.step_taken_back_m + excess).abs() < 1e-5, "{p:?}");
        assert!((p.offset_m - (-0.1 - excess)).abs() < 1e-3, "{p:?}");
        // Taking it back again in the same tick does nothing; easing shrinks both parts
        // alike, and the drop stays.
        p.take_back_step(&config, 0.2, true, dt);
        let before = p;
        p.ease(&config, -0.1, dt);
        let share = 1.0 - p.step_taken_back_m / before.step_taken_back_m;
        assert!((p.offset_m - (before.offset_m + (-0.1 - before.offset_m) * share)).abs() < 1e-5);
        for _ in 0..300 {
            p.update(&config, -0.1, 0.2, true, dt);
        }
        assert!(
            p.step_taken_back_m.abs() < 1e-4 && (p.offset_m + 0.1).abs() < 1e-3,
            "{p:?}"
        );
    }

    #[test]
    fn a_step_ups_overshoot_is_lagged_and_eases_out_with_the_step() {
        let config = PelvisConfig::default();
        let dt = 1.0 / 60.0;
        let mut p = PelvisOffset::default();
        p.update(&config, 0.0, 0.0, true, dt);
        // Up 0.2 m and 5 cm past the move asked for along +Z.
        p.take_back_overshoot(&config, Vec3::new(0.0, 0.3, 0.05));
        p.take_back_step(&config, 0.2, true, dt);
        assert_eq!(
            p.step_lag_world,
            Vec3::new(0.0, 0.0, -0.05),
            "vertical ignored"
        );
        let before = p;
        p.ease(&config, 0.0, dt);
        let share = 1.0 - p.step_taken_back_m / before.step_taken_back_m;
        assert!((p.step_lag_world.z - before.step_lag_world.z * (1.0 - share)).abs() < 1e-6);
        for _ in 0..300 {
            p.update(&config, 0.0, 0.2, true, dt);
        }
        assert!(p.step_lag_world.length() < 1e-4, "{p:?}");
        // Bad input leaves it as it was; the lag never grows past the pelvis's reach.
        p.take_back_overshoot(&config, Vec3::NAN);
        assert!(p.step_lag_world.is_finite());
        p.take_back_overshoot(&config, Vec3::new(50.0, 0.0, 0.0));
        assert!(
            p.step_lag_world.length() <= config.max_drop_m + 1e-6,
            "{p:?}"
        );
    }

    #[test]
    fn a_root_step_is_taken_back_then_eased_out() {
        let config = PelvisConfig::default();
        let mut p = PelvisOffset::default();
        let dt = 1.0 / 60.0;
        p.update(&config, 0.0, 0.0, true, dt);
        // The capsule steps up 0.2 m: the pelvis rises by no more than the step speed
        // allows (2 m/s: 0.033 m), then by one tick of the up rate: at most
        // 0.033 + 0.167 × (1 − e^(−7/60)) = 0.052 m.
        let o = p.update(&config, 0.0, 0.2, true, dt);
        assert!((0.2 + o) < 0.053, "world pelvis rose {} m", 0.2 + o);
        // And rises smoothly: no tick moves it more than 4 cm.
        let mut last = 0.2 + o;
        for _ in 0..120 {
            let world = 0.2 + p.update(&config, 0.0, 0.2, true, dt);
            assert!((world - last).abs() < 0.04);
            last = world;
        }
        assert!(p.offset_m.abs() < 1e-3);
        assert!(p.step_taken_back_m.abs() < 1e-3);
        // Airborne: no compensation for a fall.
        p.update(&config, 0.0, -1.0, false, dt);
        assert!(p.offset_m.abs() < 1e-3);
    }
}
