//! The movement tuning of one character (SPEC MOVE-2..8): gait speeds, acceleration,
//! deceleration and turn-rate curves, gravity and jump, air control, landing grades, the two
//! capsules and the push-wall detector. Loadable from RON (every field optional, defaults from
//! the SPEC) and buildable in code:
//!
//! ```
//! use plantigrade::motion::CharacterConfig;
//! let cfg = CharacterConfig::default().with_walk_speed(2.0).with_jump_speed(7.0);
//! assert!(cfg.validate().is_ok());
//! let from_file = CharacterConfig::from_ron("(run_speed_m_s: 4.0, coyote_time_s: 0.12)").unwrap();
//! assert_eq!(from_file.run_speed_m_s, 4.0);
//! ```

use crate::world::Capsule;

use super::curve::{Curve, CurveError};

/// When input drives the character into a wall without moving it (SPEC MOVE-2), the graph
/// plays `Push_Wall` instead of `Run`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PushWallConfig {
    /// Input speed must exceed this fraction of the walk speed. Default 0.5.
    pub min_input_fraction_of_walk: f32,
    /// Actual horizontal speed must stay below this (m/s). Default 0.1.
    pub max_actual_speed_m_s: f32,
    /// …for at least this long (s), while the controller reports a wall hit. Default 0.1.
    pub hold_s: f32,
}

impl Default for PushWallConfig {
    fn default() -> Self {
        Self {
            min_input_fraction_of_walk: 0.5,
            max_actual_speed_m_s: 0.1,
            hold_s: 0.1,
        }
    }
}

/// Movement tuning of one character. Defaults are the SPEC values (ALS-Refactored gait
/// speeds, seed 000 jump and air control).
///
/// The three curves are sampled by **normalized speed** = horizontal speed / the top speed
/// ([`CharacterConfig::top_speed_m_s`], the sprint speed by default): 0 at rest, 1 at sprint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct CharacterConfig {
    /// Walk speed (m/s), reached at an intent magnitude of [`Self::walk_input_max`].
    /// Default 1.75.
    pub walk_speed_m_s: f32,
    /// Run speed (m/s), reached at full intent. Default 3.75.
    pub run_speed_m_s: f32,
    /// Sprint speed (m/s), reached at full intent with sprint held. Default 6.5.
    pub sprint_speed_m_s: f32,
    /// Crouched speed (m/s) at full intent. Default 1.5.
    pub crouch_speed_m_s: f32,
    /// Intent magnitude that means "walk" (`0 < walk_input_max < 1`). Below it the speed is
    /// the walk speed scaled down linearly to 0; above it the speed rises linearly from walk
    /// to run (or sprint) at magnitude 1, so stick noise at the boundary never jumps a gait.
    /// Default 0.5.
    pub walk_input_max: f32,
    /// Acceleration (m/s²) over normalized speed: high to start, lower while cruising, higher
    /// again near the top. Default `[(0, 12), (0.5, 6), (1, 9)]`.
    pub acceleration_m_s2: Curve,
    /// Deceleration / braking (m/s²) over normalized speed. Default `[(0, 14), (1, 10)]`.
    pub deceleration_m_s2: Curve,
    /// Turn-rate limit (rad/s) over normalized speed, falling as speed rises (SPEC MOVE-4).
    /// Default `[(0, 12), (1, 4)]`: 12 rad/s at rest, 4 rad/s at sprint.
    pub turn_rate_rad_s: Curve,
    /// Gravity (m/s², positive = down). Default 9.8 × 2.5 = 24.5.
    pub gravity_m_s2: f32,
    /// Terminal fall speed (m/s, positive). Default 50.
    pub max_fall_speed_m_s: f32,
    /// Upward speed given by a jump (m/s). Default 8.
    pub jump_speed_m_s: f32,
    /// A jump still works this long after walking off a ledge (s), and for that long the
    /// animation graph is still told grounded (a step down plays no fall). Default 0.1.
    pub coyote_time_s: f32,
    /// A jump pressed this long before landing fires on landing (s). Default 0.1.
    pub jump_buffer_s: f32,
    /// Fraction of the ground acceleration and deceleration available in the air (`0..=1`);
    /// the max speed is unchanged. Default 0.4.
    pub air_control: f32,
    /// Landing impact speed (m/s, downward) at or above which a landing is heavy. Default 5.
    pub heavy_landing_speed_m_s: f32,
    /// Jump phases: Start while `vy > t`, Apex while `|vy| ≤ t`, Fall while `vy < −t` (m/s).
    /// Default 0.5.
    pub jump_phase_threshold_m_s: f32,
    /// Horizontal speed (m/s) above which the character counts as moving even without input.
    /// Default 0.05.
    pub moving_speed_threshold_m_s: f32,
    /// Standing capsule. Default 1.8 m tall, radius 0.3 m.
    pub stand_capsule: Capsule,
    /// Crouched capsule (feet stay put when switching). Default 1.1 m tall, radius 0.3 m, so
    /// it passes under a 1.2 m ceiling with the controller's skin to spare.
    pub crouch_capsule: Capsule,
    /// The push-wall detector.
    pub push_wall: PushWallConfig,
    /// Hysteresis band of the `hips_back` locomotion variable (degrees of |direction|,
    /// `(lower, upper)`): it turns on once the movement direction is more than `upper`
    /// from straight ahead and off once it is less than `lower`, and holds in between, so
    /// a sideways run near ±90° does not flip its hips from one side to the other every
    /// step. Default `(70, 110)`.
    pub hips_back_band_deg: (f32, f32),
    /// How far the capsule may step, snap and climb (SPEC MOVE-7), sent with every move.
    pub move_limits: crate::world::MoveLimits,
}

impl Default for CharacterConfig {
    fn default() -> Self {
        Self {
            walk_speed_m_s: 1.75,
            run_speed_m_s: 3.75,
            sprint_speed_m_s: 6.5,
            crouch_speed_m_s: 1.5,
            walk_input_max: 0.5,
            acceleration_m_s2: Curve::new([(0.0, 12.0), (0.5, 6.0), (1.0, 9.0)])
                .unwrap_or_else(|_| Curve::constant(9.0)),
            deceleration_m_s2: Curve::new([(0.0, 14.0), (1.0, 10.0)])
                .unwrap_or_else(|_| Curve::constant(12.0)),
            turn_rate_rad_s: Curve::new([(0.0, 12.0), (1.0, 4.0)])
                .unwrap_or_else(|_| Curve::constant(8.0)),
            gravity_m_s2: 9.8 * 2.5,
            max_fall_speed_m_s: 50.0,
            jump_speed_m_s: 8.0,
            coyote_time_s: 0.1,
            jump_buffer_s: 0.1,
            air_control: 0.4,
            heavy_landing_speed_m_s: 5.0,
            jump_phase_threshold_m_s: 0.5,
            moving_speed_threshold_m_s: 0.05,
            stand_capsule: Capsule::from_height(1.8, 0.3),
            crouch_capsule: Capsule::from_height(1.1, 0.3),
            push_wall: PushWallConfig::default(),
            hips_back_band_deg: (70.0, 110.0),
            move_limits: crate::world::MoveLimits::default(),
        }
    }
}

/// A value of a [`CharacterConfig`] that cannot work.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("`{field}` is not finite")]
    NonFinite { field: &'static str },
    #[error("`{field}` must be greater than 0 (is {value})")]
    NotPositive { field: &'static str, value: f32 },
    #[error("`{field}` must not be negative (is {value})")]
    Negative { field: &'static str, value: f32 },
    #[error("`{field}` must be within {min}..={max} (is {value})")]
    OutOfRange {
        field: &'static str,
        value: f32,
        min: f32,
        max: f32,
    },
    #[error(
        "gait speeds must satisfy walk ≤ run ≤ sprint (walk {walk}, run {run}, sprint {sprint})"
    )]
    SpeedsNotOrdered { walk: f32, run: f32, sprint: f32 },
    #[error("curve `{field}`: {error}")]
    Curve {
        field: &'static str,
        error: CurveError,
    },
    #[error("curve `{field}` must be greater than 0 everywhere (its minimum is {min})")]
    CurveNotPositive { field: &'static str, min: f32 },
    #[error(
        "the crouch capsule ({crouch_m} m) must not be taller than the standing one ({stand_m} m)"
    )]
    CrouchTallerThanStand { crouch_m: f32, stand_m: f32 },
    #[error(transparent)]
    MoveLimits(#[from] crate::world::MoveLimitsError),
}

/// A character config file that could not be loaded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigLoadError {
    #[error("character config, line {line}, column {col}: {message}")]
    Parse {
        line: usize,
        col: usize,
        message: String,
    },
    #[error("character config: {0}")]
    Invalid(ConfigError),
}

from_cause_in_message!(ConfigError => ConfigLoadError::Invalid);

fn finite(field: &'static str, value: f32) -> Result<f32, ConfigError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ConfigError::NonFinite { field })
    }
}

fn positive(field: &'static str, value: f32) -> Result<(), ConfigError> {
    if finite(field, value)? > 0.0 {
        Ok(())
    } else {
        Err(ConfigError::NotPositive { field, value })
    }
}

fn non_negative(field: &'static str, value: f32) -> Result<(), ConfigError> {
    if finite(field, value)? >= 0.0 {
        Ok(())
    } else {
        Err(ConfigError::Negative { field, value })
    }
}

fn within(field: &'static str, value: f32, min: f32, max: f32) -> Result<(), ConfigError> {
    if (min..=max).contains(&finite(field, value)?) {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange {
            field,
            value,
            min,
            max,
        })
    }
}

fn positive_curve(field: &'static str, curve: &Curve) -> Result<(), ConfigError> {
    curve
        .check()
        .map_err(|error| ConfigError::Curve { field, error })?;
    let min = curve.min_y();
    if min > 0.0 {
        Ok(())
    } else {
        Err(ConfigError::CurveNotPositive { field, min })
    }
}

fn capsule(prefix: &'static [&'static str; 2], c: &Capsule) -> Result<(), ConfigError> {
    positive(prefix[0], c.radius_m)?;
    non_negative(prefix[1], c.half_height_m)
}

impl CharacterConfig {
    /// Parses a RON `CharacterConfig(...)` or `(...)` (missing fields take their defaults)
    /// and validates it.
    pub fn from_ron(source: &str) -> Result<CharacterConfig, ConfigLoadError> {
        let config: CharacterConfig = ron::from_str(source).map_err(|e| {
            let at = crate::source_pos::SourcePos::of_ron_error(&e);
            ConfigLoadError::Parse {
                line: at.line,
                col: at.col,
                message: e.code.to_string(),
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks that every value can work: finite, positive speeds in gait order, positive
    /// curves with well-formed points (see [`Curve::check`]), times and thresholds not
    /// negative, `air_control` in `0..=1`, `walk_input_max` in `0.01..=0.99`, valid capsules
    /// with the crouch one not taller, the `hips_back` band ordered within `0..=180`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("walk_speed_m_s", self.walk_speed_m_s)?;
        positive("run_speed_m_s", self.run_speed_m_s)?;
        positive("sprint_speed_m_s", self.sprint_speed_m_s)?;
        positive("crouch_speed_m_s", self.crouch_speed_m_s)?;
        if !(self.walk_speed_m_s <= self.run_speed_m_s
            && self.run_speed_m_s <= self.sprint_speed_m_s)
        {
            return Err(ConfigError::SpeedsNotOrdered {
                walk: self.walk_speed_m_s,
                run: self.run_speed_m_s,
                sprint: self.sprint_speed_m_s,
            });
        }
        within("walk_input_max", self.walk_input_max, 0.01, 0.99)?;
        positive_curve("acceleration_m_s2", &self.acceleration_m_s2)?;
        positive_curve("deceleration_m_s2", &self.deceleration_m_s2)?;
        positive_curve("turn_rate_rad_s", &self.turn_rate_rad_s)?;
        positive("gravity_m_s2", self.gravity_m_s2)?;
        positive("max_fall_speed_m_s", self.max_fall_speed_m_s)?;
        non_negative("jump_speed_m_s", self.jump_speed_m_s)?;
        non_negative("coyote_time_s", self.coyote_time_s)?;
        non_negative("jump_buffer_s", self.jump_buffer_s)?;
        within("air_control", self.air_control, 0.0, 1.0)?;
        non_negative("heavy_landing_speed_m_s", self.heavy_landing_speed_m_s)?;
        non_negative("jump_phase_threshold_m_s", self.jump_phase_threshold_m_s)?;
        non_negative(
            "moving_speed_threshold_m_s",
            self.moving_speed_threshold_m_s,
        )?;
        capsule(
            &["stand_capsule.radius_m", "stand_capsule.half_height_m"],
            &self.stand_capsule,
        )?;
        capsule(
            &["crouch_capsule.radius_m", "crouch_capsule.half_height_m"],
            &self.crouch_capsule,
        )?;
        let (crouch_m, stand_m) = (
            self.crouch_capsule.height_m(),
            self.stand_capsule.height_m(),
        );
        if crouch_m > stand_m {
            return Err(ConfigError::CrouchTallerThanStand { crouch_m, stand_m });
        }
        non_negative(
            "push_wall.min_input_fraction_of_walk",
            self.push_wall.min_input_fraction_of_walk,
        )?;
        non_negative(
            "push_wall.max_actual_speed_m_s",
            self.push_wall.max_actual_speed_m_s,
        )?;
        non_negative("push_wall.hold_s", self.push_wall.hold_s)?;
        let (lower_deg, upper_deg) = self.hips_back_band_deg;
        within("hips_back_band_deg.0", lower_deg, 0.0, 180.0)?;
        within("hips_back_band_deg.1", upper_deg, lower_deg, 180.0)?;
        self.move_limits.validate()?;
        Ok(())
    }

    /// The speed that normalizes the curves' x axis (m/s): the largest gait speed (the sprint
    /// speed by default); at least a small positive value even for a broken config.
    pub fn top_speed_m_s(&self) -> f32 {
        let top = self
            .walk_speed_m_s
            .max(self.run_speed_m_s)
            .max(self.sprint_speed_m_s)
            .max(self.crouch_speed_m_s);
        if top.is_finite() && top > 1e-3 {
            top
        } else {
            1.0
        }
    }

    /// The target ground speed (m/s) for an intent of `magnitude` (`0..=1`), the "input
    /// speed" of SPEC MOVE-2. Crouched: `magnitude × crouch speed`. Otherwise up to
    /// [`Self::walk_input_max`] the walk speed scaled linearly, then linearly from walk to
    /// run (sprint when `sprint`) at magnitude 1. Always finite and ≥ 0.
    pub fn gait_speed_m_s(&self, magnitude: f32, sprint: bool, crouched: bool) -> f32 {
        let m = if magnitude.is_finite() {
            magnitude.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let speed = if crouched {
            m * self.crouch_speed_m_s
        } else {
            let walk_max = if self.walk_input_max.is_finite() {
                self.walk_input_max.clamp(0.01, 0.99)
            } else {
                0.5
            };
            let top = if sprint {
                self.sprint_speed_m_s
            } else {
                self.run_speed_m_s
            };
            if m <= walk_max {
                self.walk_speed_m_s * (m / walk_max)
            } else {
                let t = (m - walk_max) / (1.0 - walk_max);
                self.walk_speed_m_s + (top - self.walk_speed_m_s) * t
            }
        };
        if speed.is_finite() {
            speed.max(0.0)
        } else {
            0.0
        }
    }

    /// The capsule in use: crouched or standing.
    pub fn capsule(&self, crouched: bool) -> Capsule {
        if crouched {
            self.crouch_capsule
        } else {
            self.stand_capsule
        }
    }

    /// Builder: walk speed (m/s).
    pub fn with_walk_speed(mut self, m_s: f32) -> Self {
        self.walk_speed_m_s = m_s;
        self
    }

    /// Builder: run speed (m/s).
    pub fn with_run_speed(mut self, m_s: f32) -> Self {
        self.run_speed_m_s = m_s;
        self
    }

    /// Builder: sprint speed (m/s).
    pub fn with_sprint_speed(mut self, m_s: f32) -> Self {
        self.sprint_speed_m_s = m_s;
        self
    }

    /// Builder: crouched speed (m/s).
    pub fn with_crouch_speed(mut self, m_s: f32) -> Self {
        self.crouch_speed_m_s = m_s;
        self
    }

    /// Builder: intent magnitude meaning "walk".
    pub fn with_walk_input_max(mut self, magnitude: f32) -> Self {
        self.walk_input_max = magnitude;
        self
    }

    /// Builder: acceleration curve (m/s² over normalized speed).
    pub fn with_acceleration(mut self, curve: Curve) -> Self {
        self.acceleration_m_s2 = curve;
        self
    }

    /// Builder: deceleration curve (m/s² over normalized speed).
    pub fn with_deceleration(mut self, curve: Curve) -> Self {
        self.deceleration_m_s2 = curve;
        self
    }

    /// Builder: turn-rate curve (rad/s over normalized speed).
    pub fn with_turn_rate(mut self, curve: Curve) -> Self {
        self.turn_rate_rad_s = curve;
        self
    }

    /// Builder: gravity (m/s², positive = down).
    pub fn with_gravity(mut self, m_s2: f32) -> Self {
        self.gravity_m_s2 = m_s2;
        self
    }

    /// Builder: terminal fall speed (m/s).
    pub fn with_max_fall_speed(mut self, m_s: f32) -> Self {
        self.max_fall_speed_m_s = m_s;
        self
    }

    /// Builder: jump speed (m/s).
    pub fn with_jump_speed(mut self, m_s: f32) -> Self {
        self.jump_speed_m_s = m_s;
        self
    }

    /// Builder: coyote time (s).
    pub fn with_coyote_time(mut self, s: f32) -> Self {
        self.coyote_time_s = s;
        self
    }

    /// Builder: jump buffer (s).
    pub fn with_jump_buffer(mut self, s: f32) -> Self {
        self.jump_buffer_s = s;
        self
    }

    /// Builder: air control fraction (`0..=1`).
    pub fn with_air_control(mut self, fraction: f32) -> Self {
        self.air_control = fraction;
        self
    }

    /// Builder: impact speed (m/s) from which landings are heavy.
    pub fn with_heavy_landing_speed(mut self, m_s: f32) -> Self {
        self.heavy_landing_speed_m_s = m_s;
        self
    }

    /// Builder: jump-phase threshold (m/s).
    pub fn with_jump_phase_threshold(mut self, m_s: f32) -> Self {
        self.jump_phase_threshold_m_s = m_s;
        self
    }

    /// Builder: "is moving" speed threshold (m/s).
    pub fn with_moving_speed_threshold(mut self, m_s: f32) -> Self {
        self.moving_speed_threshold_m_s = m_s;
        self
    }

    /// Builder: standing capsule.
    pub fn with_stand_capsule(mut self, capsule: Capsule) -> Self {
        self.stand_capsule = capsule;
        self
    }

    /// Builder: crouched capsule.
    pub fn with_crouch_capsule(mut self, capsule: Capsule) -> Self {
        self.crouch_capsule = capsule;
        self
    }

    /// Builder: push-wall detector.
    pub fn with_push_wall(mut self, push_wall: PushWallConfig) -> Self {
        self.push_wall = push_wall;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_values_and_valid() {
        let c = CharacterConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(
            (
                c.walk_speed_m_s,
                c.run_speed_m_s,
                c.sprint_speed_m_s,
                c.crouch_speed_m_s
            ),
            (1.75, 3.75, 6.5, 1.5)
        );
        assert!((c.gravity_m_s2 - 24.5).abs() < 1e-5);
        assert_eq!(c.jump_speed_m_s, 8.0);
        assert_eq!((c.coyote_time_s, c.jump_buffer_s), (0.1, 0.1));
        assert_eq!(c.air_control, 0.4);
        assert_eq!(c.heavy_landing_speed_m_s, 5.0);
        assert_eq!(c.jump_phase_threshold_m_s, 0.5);
        assert!((c.stand_capsule.height_m() - 1.8).abs() < 1e-6);
        assert!((c.crouch_capsule.height_m() - 1.1).abs() < 1e-6);
        // Acceleration: high at rest, lower cruising, higher near the top.
        let a = &c.acceleration_m_s2;
        assert!(a.sample(0.0) > a.sample(0.5) && a.sample(1.0) > a.sample(0.5));
        // Turn rate: 12 rad/s at rest to 4 at sprint, falling.
        assert_eq!(c.turn_rate_rad_s.sample(0.0), 12.0);
        assert_eq!(c.turn_rate_rad_s.sample(1.0), 4.0);
        assert_eq!(c.top_speed_m_s(), 6.5);
    }

    #[test]
    fn gait_speed_from_intent_magnitude() {
        let c = CharacterConfig::default();
        assert_eq!(c.gait_speed_m_s(0.0, false, false), 0.0);
        assert!((c.gait_speed_m_s(0.25, false, false) - 0.875).abs() < 1e-6);
        assert!((c.gait_speed_m_s(0.5, false, false) - 1.75).abs() < 1e-6);
        assert!((c.gait_speed_m_s(0.75, false, false) - 2.75).abs() < 1e-6);
        assert!((c.gait_speed_m_s(1.0, false, false) - 3.75).abs() < 1e-6);
        assert!((c.gait_speed_m_s(1.0, true, false) - 6.5).abs() < 1e-6);
        assert!((c.gait_speed_m_s(0.5, true, false) - 1.75).abs() < 1e-6);
        assert!((c.gait_speed_m_s(1.0, true, true) - 1.5).abs() < 1e-6);
        assert_eq!(c.gait_speed_m_s(f32::NAN, true, false), 0.0);
        assert!((c.gait_speed_m_s(7.0, false, false) - 3.75).abs() < 1e-6);
    }

    #[test]
    fn builder_and_ron() {
        let c = CharacterConfig::default()
            .with_walk_speed(2.0)
            .with_run_speed(4.0)
            .with_coyote_time(0.2)
            .with_turn_rate(Curve::constant(6.0));
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.walk_speed_m_s, 2.0);
        let text = ron::to_string(&c).unwrap();
        assert_eq!(CharacterConfig::from_ron(&text).unwrap(), c);
        let partial = CharacterConfig::from_ron(
            "CharacterConfig(sprint_speed_m_s: 7.0, acceleration_m_s2: [(0.0, 10.0), (1.0, 8.0)])",
        )
        .unwrap();
        assert_eq!(partial.sprint_speed_m_s, 7.0);
        assert_eq!(partial.acceleration_m_s2.sample(0.5), 9.0);
        assert_eq!(partial.walk_speed_m_s, 1.75);
    }

    #[test]
    fn load_errors_name_the_problem() {
        match CharacterConfig::from_ron("(walk_speed_m_s: 1.0,\n  bogus: 3.0)") {
            Err(ConfigLoadError::Parse { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
        match CharacterConfig::from_ron("(turn_rate_rad_s: [(1.0, 4.0), (0.0, 12.0)])") {
            Err(ConfigLoadError::Parse { message, .. }) => {
                assert!(message.contains("larger x"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            CharacterConfig::from_ron("(walk_speed_m_s: 5.0)"),
            Err(ConfigLoadError::Invalid(ConfigError::SpeedsNotOrdered {
                walk: 5.0,
                run: 3.75,
                sprint: 6.5
            }))
        );
    }

    #[test]
    fn validate_refuses_bad_values() {
        let d = CharacterConfig::default;
        let cases: Vec<(CharacterConfig, &str)> = vec![
            (d().with_walk_speed(f32::NAN), "walk_speed_m_s"),
            (d().with_walk_speed(0.0), "walk_speed_m_s"),
            (d().with_crouch_speed(-1.0), "crouch_speed_m_s"),
            (d().with_sprint_speed(3.0), "sprint"),
            (d().with_walk_input_max(1.0), "walk_input_max"),
            (
                d().with_acceleration(Curve::constant(0.0)),
                "acceleration_m_s2",
            ),
            (
                d().with_deceleration(Curve::constant(-1.0)),
                "deceleration_m_s2",
            ),
            (d().with_turn_rate(Curve::constant(0.0)), "turn_rate_rad_s"),
            (d().with_gravity(0.0), "gravity_m_s2"),
            (d().with_max_fall_speed(f32::INFINITY), "max_fall_speed_m_s"),
            (d().with_jump_speed(-8.0), "jump_speed_m_s"),
            (d().with_coyote_time(-0.1), "coyote_time_s"),
            (d().with_jump_buffer(f32::NAN), "jump_buffer_s"),
            (d().with_air_control(1.5), "air_control"),
            (
                d().with_heavy_landing_speed(-5.0),
                "heavy_landing_speed_m_s",
            ),
            (
                d().with_jump_phase_threshold(-0.5),
                "jump_phase_threshold_m_s",
            ),
            (
                d().with_moving_speed_threshold(f32::NAN),
                "moving_speed_threshold",
            ),
            (
                d().with_stand_capsule(Capsule {
                    radius_m: 0.0,
                    half_height_m: 0.6,
                }),
                "stand_capsule.radius_m",
            ),
            (
                d().with_crouch_capsule(Capsule::from_height(2.5, 0.3)),
                "crouch capsule",
            ),
            (
                d().with_push_wall(PushWallConfig {
                    hold_s: -1.0,
                    ..PushWallConfig::default()
                }),
                "push_wall.hold_s",
            ),
        ];
        for (config, needle) in cases {
            let err = config.validate().expect_err(needle);
            assert!(err.to_string().contains(needle), "{needle}: {err}");
        }
    }
}
