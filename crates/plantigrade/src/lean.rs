//! Lean with the body's acceleration (as ALS leans): into turns, forward when speeding up,
//! back when braking. A body running a curve of radius `r` at speed `v` balances at
//! `atan(v² / (r·g))` from vertical, toward the centre; the centripetal `v²/r` is the
//! sideways part of the body's acceleration, so one rule covers turns and speed changes:
//! the lean is `atan(a / g)` of the horizontal acceleration `a`, split into its sideways
//! (roll) and forward (pitch) parts, each times its factor and capped.
//!
//! The acceleration is the velocity's change, in the facing frame, smoothed over
//! [`LeanConfig::smoothing_s`] by two exponential stages of half that time each (frame-rate
//! independent, so a 30 Hz and a 144 Hz tick lean alike). Two stages, because one passes a
//! one-tick velocity hiccup through at full height, more the finer the tick: a capsule
//! meeting a riser falls a few millimetres behind in one tick and makes them up in the
//! next, and one stage leaned the trunk back up to 5° for that tick at the foot of a flight
//! (the head behind the pelvis at 144 Hz). Through two the dip and its recovery mostly
//! cancel. In the air the lean is scaled down: the legs do not push the body around there.
//!
//! The lean is a rotation of the pelvis and the trunk together (model space), composed with
//! the slope posture by the character; foot IK after it keeps the feet planted.

use glam::{Quat, Vec2, Vec3};

use crate::math::damp_share;

/// Standard gravity (m/s²).
const GRAVITY_M_S2: f32 = 9.81;

/// How the body leans with its acceleration.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LeanConfig {
    /// Share of the balance angle leaned into turns. Default 0.75.
    pub turn_factor: f32,
    /// Share of `atan(a/g)` leaned forward when speeding up, back when braking. Default
    /// 0.5.
    pub speed_change_factor: f32,
    /// Largest lean sideways (rad). Default 20°.
    pub max_roll_rad: f32,
    /// Largest lean forward or back (rad). Default 8°.
    pub max_pitch_rad: f32,
    /// Time constant of the acceleration's smoothing (s). Default 0.15.
    pub smoothing_s: f32,
    /// Share of the lean kept in the air. Default 0.2.
    pub airborne_share: f32,
}

impl Default for LeanConfig {
    fn default() -> Self {
        Self {
            turn_factor: 0.75,
            speed_change_factor: 0.5,
            max_roll_rad: 20f32.to_radians(),
            max_pitch_rad: 8f32.to_radians(),
            smoothing_s: 0.15,
            airborne_share: 0.2,
        }
    }
}

impl LeanConfig {
    /// NaN → default, negatives → 0, caps at most 45°, smoothing at least 10 ms.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let pick = |v: f32, fallback: f32| if v.is_nan() { fallback } else { v.max(0.0) };
        let quarter = std::f32::consts::FRAC_PI_4;
        Self {
            turn_factor: pick(self.turn_factor, d.turn_factor),
            speed_change_factor: pick(self.speed_change_factor, d.speed_change_factor),
            max_roll_rad: pick(self.max_roll_rad, d.max_roll_rad).min(quarter),
            max_pitch_rad: pick(self.max_pitch_rad, d.max_pitch_rad).min(quarter),
            smoothing_s: pick(self.smoothing_s, d.smoothing_s).max(0.01),
            airborne_share: pick(self.airborne_share, d.airborne_share).min(1.0),
        }
    }
}

/// This tick's lean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LeanOutput {
    /// Sideways lean (rad): toward the character's left (model +X) positive.
    pub roll_rad: f32,
    /// Forward lean (rad): toward +Z (forward) positive.
    pub pitch_rad: f32,
}

impl LeanOutput {
    /// The lean as a model-space rotation: the up axis tips by `roll` toward +X and by
    /// `pitch` toward +Z.
    pub fn rotation_model(&self) -> Quat {
        Quat::from_rotation_x(self.pitch_rad) * Quat::from_rotation_z(-self.roll_rad)
    }
}

/// The lean's state between ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lean {
    last_velocity_xz: Option<Vec2>,
    /// Smoothed horizontal acceleration in the facing frame (m/s²): x to the character's
    /// left, y forward. Smoothed there, not in the world: on a steady curve the
    /// centripetal acceleration turns with the body, and a world-frame average would lag
    /// behind it into a forward or backward part. `acceleration_facing_first` is the first
    /// of the two smoothing stages.
    acceleration_facing_first: Vec2,
    acceleration_facing: Vec2,
    output: LeanOutput,
}

impl Lean {
    /// One tick: from the body's velocity (world), its facing and whether it is on the
    /// ground. `pushed`: the world, not the legs, changed the velocity this tick (the
    /// capsule slid down a slope too steep to stand on, or ran into a wall); that change is
    /// not leaned into (a body slid back down a slope does not brace as if braking), and
    /// the lean eases back. A bad input (non-finite, dt ≤ 0) leaves the lean as it was.
    pub fn update(
        &mut self,
        config: &LeanConfig,
        velocity_world: Vec3,
        facing_yaw_rad: f32,
        grounded: bool,
        pushed: bool,
        dt_s: f32,
    ) -> LeanOutput {
        let config = config.sanitized();
        let velocity = Vec2::new(velocity_world.x, velocity_world.z);
        if !(velocity.is_finite() && facing_yaw_rad.is_finite() && dt_s > 0.0 && dt_s.is_finite()) {
            return self.output;
        }
        let raw = match self.last_velocity_xz {
            Some(last) if !pushed => (velocity - last) / dt_s,
            _ => Vec2::ZERO,
        };
        self.last_velocity_xz = Some(velocity);
        // Into the facing frame: model +Z is forward, +X the character's left (world +X
        // turned by the yaw).
        let (sin, cos) = facing_yaw_rad.sin_cos();
        let forward = Vec2::new(sin, cos);
        let side = Vec2::new(cos, -sin);
        let raw_facing = Vec2::new(raw.dot(side), raw.dot(forward));
        let ease = damp_share(2.0 / config.smoothing_s, dt_s);
        if raw_facing.is_finite() {
            self.acceleration_facing_first += (raw_facing - self.acceleration_facing_first) * ease;
            self.acceleration_facing +=
                (self.acceleration_facing_first - self.acceleration_facing) * ease;
        }
        let a = self.acceleration_facing;
        let share = if grounded { 1.0 } else { config.airborne_share };
        let lean = |along: f32, factor: f32, cap: f32| {
            (factor * (along / GRAVITY_M_S2).atan() * share).clamp(-cap, cap)
        };
        self.output = LeanOutput {
            roll_rad: lean(a.x, config.turn_factor, config.max_roll_rad),
            pitch_rad: lean(a.y, config.speed_change_factor, config.max_pitch_rad),
        };
        self.output
    }

    /// The last tick's lean.
    pub fn output(&self) -> LeanOutput {
        self.output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seconds` of running a circle of `radius_m` at `speed_m_s` (counter-clockwise seen
    /// from above, the centre on the character's left), facing along the velocity.
    fn circle(hz: f32, radius_m: f32, speed_m_s: f32, seconds: f32, grounded: bool) -> Lean {
        let config = LeanConfig::default();
        let mut lean = Lean::default();
        let dt = 1.0 / hz;
        for k in 0..(seconds * hz) as usize {
            let angle = speed_m_s / radius_m * k as f32 * dt;
            // Heading +Z at angle 0 and turning toward +X: the centre is on the left.
            let velocity = Vec3::new(angle.sin(), 0.0, angle.cos()) * speed_m_s;
            let yaw = velocity.x.atan2(velocity.z);
            lean.update(&config, velocity, yaw, grounded, false, dt);
        }
        lean
    }

    #[test]
    fn a_circle_leans_toward_its_centre_by_the_share_of_the_balance_angle() {
        let lean = circle(60.0, 3.0, 3.75, 3.0, true).output();
        let balance = (3.75f32 * 3.75 / (3.0 * GRAVITY_M_S2)).atan();
        let want = LeanConfig::default().turn_factor * balance;
        assert!((lean.roll_rad - want).abs() < 0.01, "{lean:?} vs {want}");
        assert!(lean.pitch_rad.abs() < 0.01, "steady speed: {lean:?}");
        // The up axis tips toward the centre (the character's left, model +X).
        let up = lean.rotation_model() * Vec3::Y;
        assert!(up.x > 0.3 && up.z.abs() < 0.02, "{up}");
    }

    #[test]
    fn the_lean_is_the_same_at_30_60_and_144_hz_and_small_in_the_air() {
        let at = |hz: f32| circle(hz, 3.0, 3.75, 3.0, true).output().roll_rad;
        let (a, b, c) = (at(30.0), at(60.0), at(144.0));
        assert!(
            (a - b).abs() < 0.005 && (b - c).abs() < 0.005,
            "{a} {b} {c}"
        );
        let air = circle(60.0, 3.0, 3.75, 3.0, false).output().roll_rad;
        assert!((air - 0.2 * b).abs() < 0.005, "{air} vs {b}");
    }

    #[test]
    fn speeding_up_leans_forward_braking_back_and_both_are_capped() {
        let config = LeanConfig::default();
        let mut lean = Lean::default();
        let dt = 1.0 / 60.0;
        // 0 → 6 m/s in half a second along +Z: 12 m/s², well past the 8° cap.
        for k in 0..=30 {
            lean.update(&config, Vec3::Z * (0.2 * k as f32), 0.0, true, false, dt);
        }
        assert!((lean.output().pitch_rad - config.max_pitch_rad).abs() < 1e-4);
        for _ in 0..60 {
            lean.update(&config, Vec3::Z * 6.0, 0.0, true, false, dt);
        }
        assert!(
            lean.output().pitch_rad.abs() < 0.01,
            "steady: {:?}",
            lean.output()
        );
        for k in 0..=30 {
            lean.update(
                &config,
                Vec3::Z * (6.0 - 0.2 * k as f32),
                0.0,
                true,
                false,
                dt,
            );
        }
        assert!((lean.output().pitch_rad + config.max_pitch_rad).abs() < 1e-4);
    }

    #[test]
    fn a_one_tick_hiccup_of_the_velocity_barely_leans() {
        // Walking at 1.75 m/s, a capsule meeting a riser falls 3 mm behind in one tick and
        // makes them up on the next: not a brake worth leaning back for. One smoothing stage
        // leaned 1.9°, 3.6° and 8° (the cap) back for it at 30, 60 and 144 Hz; two lean
        // 1.0°, 1.3° and 1.4°.
        let config = LeanConfig::default();
        for hz in [30.0, 60.0, 144.0] {
            let dt = 1.0 / hz;
            let mut lean = Lean::default();
            let mut worst = 0.0f32;
            let hiccup_m_s = 0.003 / dt;
            for k in 0..60 {
                let v = match k {
                    30 => 1.75 - hiccup_m_s,
                    31 => 1.75 + hiccup_m_s,
                    _ => 1.75,
                };
                let out = lean.update(&config, Vec3::Z * v, 0.0, true, false, dt);
                worst = worst.max(out.pitch_rad.abs());
            }
            assert!(
                worst < 1.5f32.to_radians(),
                "{hz} Hz: {}°",
                worst.to_degrees()
            );
        }
    }

    #[test]
    fn a_push_from_the_world_is_not_leaned_into() {
        let config = LeanConfig::default();
        let dt = 1.0 / 60.0;
        // Walking at 1.5 m/s, then thrown back to -1.5 m/s over a tenth of a second by a
        // slope too steep to stand on: braking by the legs would lean back the 8° cap.
        let run = |pushed: bool| {
            let mut lean = Lean::default();
            for _ in 0..30 {
                lean.update(&config, Vec3::Z * 1.5, 0.0, true, false, dt);
            }
            for k in 0..=6 {
                let v = 1.5 - 0.5 * k as f32;
                lean.update(&config, Vec3::Z * v, 0.0, true, pushed, dt);
            }
            lean.output().pitch_rad
        };
        assert!(
            (run(false) + config.max_pitch_rad).abs() < 1e-4,
            "{}",
            run(false)
        );
        assert!(run(true).abs() < 1e-4, "{}", run(true));
    }

    #[test]
    fn bad_input_keeps_the_lean_and_bad_config_is_sanitized() {
        let mut lean = circle(60.0, 3.0, 3.75, 1.0, true);
        let before = lean.output();
        let config = LeanConfig::default();
        assert_eq!(
            lean.update(&config, Vec3::NAN, 0.0, true, false, 1.0 / 60.0),
            before
        );
        assert_eq!(
            lean.update(&config, Vec3::Z, f32::NAN, true, false, 1.0 / 60.0),
            before
        );
        assert_eq!(lean.update(&config, Vec3::Z, 0.0, true, false, 0.0), before);
        let wild = LeanConfig {
            turn_factor: f32::NAN,
            max_roll_rad: 9.0,
            smoothing_s: -1.0,
            airborne_share: 5.0,
            ..LeanConfig::default()
        }
        .sanitized();
        assert_eq!(wild.turn_factor, LeanConfig::default().turn_factor);
        assert!(wild.max_roll_rad <= std::f32::consts::FRAC_PI_4);
        assert!(wild.smoothing_s >= 0.01 && wild.airborne_share <= 1.0);
        let out = lean.update(&wild, Vec3::Z * 1e30, 0.0, true, false, 1.0 / 60.0);
        assert!(
            out.roll_rad.is_finite() && out.pitch_rad.is_finite(),
            "{out:?}"
        );
    }
}
