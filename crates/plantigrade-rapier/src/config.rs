//! Configuration of the kinematic character controller (SPEC MOVE-7).

use plantigrade::world::MoveLimits;
use rapier3d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};

use crate::RapierWorldError;

/// How [`RapierWorld`](crate::RapierWorld) drives rapier's [`KinematicCharacterController`]
/// beyond what each character asks for: a character's step, snap, slope and skin limits
/// come with every move ([`MoveLimits`] in [`MoveRequest`](plantigrade::world::MoveRequest)),
/// these settings are the world's. The controller's up direction is always world +Y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControllerConfig {
    /// Whether steps are climbed onto dynamic bodies. Default false.
    pub autostep_include_dynamic_bodies: bool,
    /// rapier's `normal_nudge_factor`: a tiny push away from surfaces slid along (m).
    /// Default 1e-4.
    pub normal_nudge_m: f32,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            autostep_include_dynamic_bodies: false,
            normal_nudge_m: 1.0e-4,
        }
    }
}

impl ControllerConfig {
    /// Checks every value is finite and in range.
    pub fn validate(&self) -> Result<(), RapierWorldError> {
        if self.normal_nudge_m.is_finite() && self.normal_nudge_m >= 0.0 {
            Ok(())
        } else {
            Err(RapierWorldError::BadConfig {
                what: "normal_nudge_m",
                value: self.normal_nudge_m,
            })
        }
    }

    /// The rapier controller for one move of a character with `limits` (lengths absolute,
    /// up = +Y).
    pub fn to_controller(&self, limits: &MoveLimits) -> KinematicCharacterController {
        KinematicCharacterController {
            up: rapier3d::math::Vector::Y,
            offset: CharacterLength::Absolute(limits.skin_m),
            slide: true,
            autostep: limits.step_height_m.map(|h| CharacterAutostep {
                max_height: CharacterLength::Absolute(h),
                min_width: CharacterLength::Absolute(limits.step_min_width_m),
                include_dynamic_bodies: self.autostep_include_dynamic_bodies,
            }),
            max_slope_climb_angle: limits.max_slope_climb_rad,
            min_slope_slide_angle: limits.min_slope_slide_rad,
            snap_to_ground: limits.snap_to_ground_m.map(CharacterLength::Absolute),
            normal_nudge_factor: self.normal_nudge_m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_limits_give_the_spec_controller() {
        let c = ControllerConfig::default();
        c.validate().unwrap();
        let k = c.to_controller(&MoveLimits::default());
        assert_eq!(
            k.autostep.unwrap().max_height,
            CharacterLength::Absolute(0.4)
        );
        assert_eq!(
            k.autostep.unwrap().min_width,
            CharacterLength::Absolute(0.15)
        );
        assert!(!k.autostep.unwrap().include_dynamic_bodies);
        assert_eq!(k.snap_to_ground, Some(CharacterLength::Absolute(0.35)));
        assert_eq!(k.offset, CharacterLength::Absolute(0.01));
        assert!((k.max_slope_climb_angle.to_degrees() - 45.0).abs() < 1e-4);
        assert!((k.min_slope_slide_angle.to_degrees() - 45.0).abs() < 1e-4);
        assert_eq!(k.up, glam::Vec3::Y);
        let no_step = MoveLimits {
            step_height_m: None,
            snap_to_ground_m: None,
            ..MoveLimits::default()
        };
        let k = c.to_controller(&no_step);
        assert!(k.autostep.is_none() && k.snap_to_ground.is_none());
    }

    #[test]
    fn bad_values_are_refused() {
        let c = ControllerConfig {
            normal_nudge_m: f32::NAN,
            ..ControllerConfig::default()
        };
        assert!(c.validate().is_err());
        let base = MoveLimits::default();
        for bad in [
            MoveLimits {
                skin_m: 0.0,
                ..base
            },
            MoveLimits {
                skin_m: f32::NAN,
                ..base
            },
            MoveLimits {
                step_height_m: Some(-0.1),
                ..base
            },
            MoveLimits {
                step_min_width_m: f32::INFINITY,
                ..base
            },
            MoveLimits {
                snap_to_ground_m: Some(f32::NAN),
                ..base
            },
            MoveLimits {
                max_slope_climb_rad: 2.0,
                ..base
            },
            MoveLimits {
                min_slope_slide_rad: -0.1,
                ..base
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
