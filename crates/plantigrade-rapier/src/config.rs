//! Configuration of the kinematic character controller (SPEC MOVE-7).

use rapier3d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};

use crate::RapierWorldError;

/// How [`RapierWorld`](crate::RapierWorld) moves capsules
/// ([`World::move_capsule`](plantigrade::world::World::move_capsule)): rapier's
/// [`KinematicCharacterController`] settings, in metres and radians. Build it with the
/// `with_*` methods (rapier's builder style) or by struct update from `default()`.
///
/// The controller's up direction is always world +Y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControllerConfig {
    /// Highest step (m) climbed automatically; `None` disables autostep. Default 0.4.
    pub autostep_max_height_m: Option<f32>,
    /// Free tread depth (m) needed beyond a step for autostep to take it. Default 0.15.
    pub autostep_min_width_m: f32,
    /// Whether autostep climbs onto dynamic bodies. Default false.
    pub autostep_include_dynamic_bodies: bool,
    /// Ground within this distance (m) below the capsule is snapped to while the character
    /// was grounded (keeps it on stairs and slopes going down); `None` disables snapping.
    /// Default 0.35.
    pub snap_to_ground_m: Option<f32>,
    /// Steepest slope (radians from horizontal) the character can walk up. Default 45°.
    pub max_slope_climb_angle_rad: f32,
    /// Slopes steeper than this (radians) make the character slide down. Default 45°.
    pub min_slope_slide_angle_rad: f32,
    /// Gap (m) kept between the capsule and the world, for numerical stability; must be
    /// positive. Default 0.01.
    pub offset_m: f32,
    /// rapier's `normal_nudge_factor`: a tiny push away from surfaces slid along (m).
    /// Default 1e-4.
    pub normal_nudge_m: f32,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            autostep_max_height_m: Some(0.4),
            autostep_min_width_m: 0.15,
            autostep_include_dynamic_bodies: false,
            snap_to_ground_m: Some(0.35),
            max_slope_climb_angle_rad: 45f32.to_radians(),
            min_slope_slide_angle_rad: 45f32.to_radians(),
            offset_m: 0.01,
            normal_nudge_m: 1.0e-4,
        }
    }
}

impl ControllerConfig {
    /// Autostep up to `max_height_m` onto treads at least `min_width_m` deep.
    pub fn with_autostep(mut self, max_height_m: f32, min_width_m: f32) -> Self {
        self.autostep_max_height_m = Some(max_height_m);
        self.autostep_min_width_m = min_width_m;
        self
    }

    /// No autostep.
    pub fn without_autostep(mut self) -> Self {
        self.autostep_max_height_m = None;
        self
    }

    /// Snap to ground within `distance_m` (`None`: no snapping).
    pub fn with_snap_to_ground(mut self, distance_m: Option<f32>) -> Self {
        self.snap_to_ground_m = distance_m;
        self
    }

    /// Walkable slope limit and slide threshold (radians).
    pub fn with_slopes(mut self, max_climb_rad: f32, min_slide_rad: f32) -> Self {
        self.max_slope_climb_angle_rad = max_climb_rad;
        self.min_slope_slide_angle_rad = min_slide_rad;
        self
    }

    /// Skin gap (m).
    pub fn with_offset(mut self, offset_m: f32) -> Self {
        self.offset_m = offset_m;
        self
    }

    /// Checks every value is finite and in range.
    pub fn validate(&self) -> Result<(), RapierWorldError> {
        let bad = |what: &'static str, value: f32| RapierWorldError::BadConfig { what, value };
        let non_negative = |what: &'static str, value: f32| {
            if value.is_finite() && value >= 0.0 {
                Ok(())
            } else {
                Err(bad(what, value))
            }
        };
        if let Some(h) = self.autostep_max_height_m {
            non_negative("autostep_max_height_m", h)?;
        }
        non_negative("autostep_min_width_m", self.autostep_min_width_m)?;
        if let Some(d) = self.snap_to_ground_m {
            non_negative("snap_to_ground_m", d)?;
        }
        let half_pi = std::f32::consts::FRAC_PI_2;
        for (what, angle) in [
            ("max_slope_climb_angle_rad", self.max_slope_climb_angle_rad),
            ("min_slope_slide_angle_rad", self.min_slope_slide_angle_rad),
        ] {
            if !(angle.is_finite() && (0.0..=half_pi).contains(&angle)) {
                return Err(bad(what, angle));
            }
        }
        if !(self.offset_m.is_finite() && self.offset_m > 0.0) {
            return Err(bad("offset_m", self.offset_m));
        }
        non_negative("normal_nudge_m", self.normal_nudge_m)
    }

    /// The rapier controller these settings describe (lengths absolute, up = +Y).
    pub fn to_controller(&self) -> KinematicCharacterController {
        KinematicCharacterController {
            up: rapier3d::math::Vector::Y,
            offset: CharacterLength::Absolute(self.offset_m),
            slide: true,
            autostep: self.autostep_max_height_m.map(|h| CharacterAutostep {
                max_height: CharacterLength::Absolute(h),
                min_width: CharacterLength::Absolute(self.autostep_min_width_m),
                include_dynamic_bodies: self.autostep_include_dynamic_bodies,
            }),
            max_slope_climb_angle: self.max_slope_climb_angle_rad,
            min_slope_slide_angle: self.min_slope_slide_angle_rad,
            snap_to_ground: self.snap_to_ground_m.map(CharacterLength::Absolute),
            normal_nudge_factor: self.normal_nudge_m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_values() {
        let c = ControllerConfig::default();
        c.validate().unwrap();
        let k = c.to_controller();
        assert_eq!(
            k.autostep.unwrap().max_height,
            CharacterLength::Absolute(0.4)
        );
        assert!(!k.autostep.unwrap().include_dynamic_bodies);
        assert_eq!(k.snap_to_ground, Some(CharacterLength::Absolute(0.35)));
        assert!((k.max_slope_climb_angle.to_degrees() - 45.0).abs() < 1e-4);
        assert!((k.min_slope_slide_angle.to_degrees() - 45.0).abs() < 1e-4);
        assert_eq!(k.up, glam::Vec3::Y);
    }

    #[test]
    fn bad_values_are_refused() {
        let base = ControllerConfig::default();
        for bad in [
            base.with_offset(0.0),
            base.with_offset(f32::NAN),
            base.with_autostep(-0.1, 0.15),
            base.with_autostep(0.4, f32::INFINITY),
            base.with_snap_to_ground(Some(f32::NAN)),
            base.with_slopes(2.0, 0.5),
            base.with_slopes(0.5, -0.1),
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert!(base
            .without_autostep()
            .with_snap_to_ground(None)
            .validate()
            .is_ok());
    }
}
