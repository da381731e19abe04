//! What movement hands the animation graph each tick (SPEC GRAPH-1, MOVE-2, MOVE-6): the
//! locomotion variables, jump phase and landing grade, plus [`LocomotionParams`], the
//! resolved graph handles that write them into a [`ParamSet`] without string lookups.

use crate::graph::{names, BoolParam, FloatParam, ParamSet};

/// Name of the default graph's push-wall bool (not one of the [`names`] standard set).
pub const IS_PUSHING_WALL: &str = "is_pushing_wall";
/// Name of the default graph's hip-orientation bool (not one of the [`names`] standard
/// set): see [`LocomotionVars::hips_back`].
pub const HIPS_BACK: &str = "hips_back";
/// How far (deg) the movement direction must swing round in a tick to be a reversal.
pub const REVERSAL_DEG: f32 = 135.0;

/// Name of the default graph's reversal trigger (not one of the [`names`] standard set):
/// see [`LocomotionVars::reversed`].
pub const REVERSED: &str = "reversed";

/// Airborne phase by vertical velocity (SPEC MOVE-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum JumpPhase {
    /// Rising: `vy > threshold`.
    Start,
    /// Near the top: `|vy| ≤ threshold`.
    Apex,
    /// Falling: `vy < −threshold`.
    Fall,
}

impl JumpPhase {
    /// The phase for vertical velocity `vy_m_s` (world up positive) and `threshold_m_s`
    /// (default 0.5). NaN counts as Apex.
    pub fn from_vertical_velocity(vy_m_s: f32, threshold_m_s: f32) -> JumpPhase {
        let threshold = threshold_m_s.abs();
        if vy_m_s > threshold {
            JumpPhase::Start
        } else if vy_m_s < -threshold {
            JumpPhase::Fall
        } else {
            JumpPhase::Apex
        }
    }
}

/// How hard a landing was (SPEC MOVE-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LandingGrade {
    /// Impact below the threshold (default 5 m/s).
    Light,
    /// Impact at or above the threshold.
    Heavy,
}

impl LandingGrade {
    /// Grades a downward impact speed (m/s, positive) against `heavy_threshold_m_s`.
    pub fn from_impact(impact_speed_m_s: f32, heavy_threshold_m_s: f32) -> LandingGrade {
        if impact_speed_m_s >= heavy_threshold_m_s {
            LandingGrade::Heavy
        } else {
            LandingGrade::Light
        }
    }
}

/// One touchdown.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Landing {
    pub grade: LandingGrade,
    /// Downward speed at touchdown (m/s, ≥ 0).
    pub impact_speed_m_s: f32,
}

/// The locomotion variables of one tick, for the animation graph (SPEC GRAPH-1). All
/// finite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocomotionVars {
    /// Actual horizontal speed from the controller's real displacement (m/s); drives blend
    /// spaces (SPEC MOVE-2).
    pub speed: f32,
    /// The speed the intent asks for (m/s); drives state decisions (SPEC MOVE-2).
    pub input_speed: f32,
    /// Movement direction relative to the facing, **degrees** in −180..=180: 0 forward,
    /// +90 left (+X in model space), ±180 backward. Held at its last value while standing.
    pub direction_deg: f32,
    /// Moving (actual speed above the threshold) or wanting to move.
    pub is_moving: bool,
    pub is_crouching: bool,
    pub is_grounded: bool,
    /// In the air for no longer than the coyote time after walking off an edge, with no
    /// jump (a step down): the graph's `is_grounded` parameter stays true, so a step down
    /// plays no fall; foot IK and posture go by [`LocomotionVars::is_grounded`].
    pub stepping_off: bool,
    /// Vertical velocity (m/s, up positive; 0 while grounded).
    pub vertical_velocity: f32,
    /// Downward speed at the last landing (m/s, ≥ 0; 0 before the first).
    pub land_velocity: f32,
    /// Input drives into a wall that does not give (SPEC MOVE-2 `Push_Wall`).
    pub is_pushing_wall: bool,
    /// Aim is held.
    pub aiming: bool,
    /// Moving mostly backward, with hysteresis ([`super::CharacterConfig::hips_back_band_deg`]):
    /// a sideways run turns its hips away from the travel (back) instead of into it.
    /// Held while standing.
    pub hips_back: bool,
    /// True on the one tick a strafe reverses: the facing held by the intent, on the
    /// ground, the movement direction swings round by more than [`REVERSAL_DEG`] in a
    /// tick (the velocity passing through zero toward the stick). The default graph
    /// restarts the gait there, heading the new way, so the new leading foot steps off
    /// from the planted one instead of one sidestep's legs blending into its mirror's
    /// (which crossed the feet).
    pub reversed: bool,
    /// Airborne phase; `None` while grounded.
    pub jump_phase: Option<JumpPhase>,
    /// A landing happened this tick.
    pub landing: Option<LandingGrade>,
}

impl Default for LocomotionVars {
    /// At rest on the ground (the graph's declared defaults).
    fn default() -> Self {
        Self {
            speed: 0.0,
            input_speed: 0.0,
            direction_deg: 0.0,
            is_moving: false,
            is_crouching: false,
            is_grounded: true,
            stepping_off: false,
            vertical_velocity: 0.0,
            land_velocity: 0.0,
            is_pushing_wall: false,
            aiming: false,
            hips_back: false,
            reversed: false,
            jump_phase: None,
            landing: None,
        }
    }
}

/// The graph handles of the locomotion variables, resolved once from a [`ParamSet`]. A
/// parameter the graph does not declare (or declares with another type) is skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LocomotionParams {
    pub speed: Option<FloatParam>,
    pub input_speed: Option<FloatParam>,
    pub direction: Option<FloatParam>,
    pub is_moving: Option<BoolParam>,
    pub is_crouching: Option<BoolParam>,
    pub is_grounded: Option<BoolParam>,
    pub vertical_velocity: Option<FloatParam>,
    pub land_velocity: Option<FloatParam>,
    pub aiming: Option<BoolParam>,
    pub is_pushing_wall: Option<BoolParam>,
    pub hips_back: Option<BoolParam>,
    pub reversed: Option<BoolParam>,
}

impl LocomotionParams {
    /// Looks up the standard names ([`names`], [`IS_PUSHING_WALL`] and [`HIPS_BACK`]) once.
    pub fn resolve(params: &ParamSet) -> LocomotionParams {
        LocomotionParams {
            speed: params.float(names::SPEED).ok(),
            input_speed: params.float(names::INPUT_SPEED).ok(),
            direction: params.float(names::DIRECTION).ok(),
            is_moving: params.bool(names::IS_MOVING).ok(),
            is_crouching: params.bool(names::IS_CROUCHING).ok(),
            is_grounded: params.bool(names::IS_GROUNDED).ok(),
            vertical_velocity: params.float(names::VERTICAL_VELOCITY).ok(),
            land_velocity: params.float(names::LAND_VELOCITY).ok(),
            aiming: params.bool(names::AIMING).ok(),
            is_pushing_wall: params.bool(IS_PUSHING_WALL).ok(),
            hips_back: params.bool(HIPS_BACK).ok(),
            reversed: params.bool(REVERSED).ok(),
        }
    }

    /// Writes `vars` through the resolved handles (no allocation, no string lookup).
    pub fn write(&self, vars: &LocomotionVars, params: &mut ParamSet) {
        let floats = [
            (self.speed, vars.speed),
            (self.input_speed, vars.input_speed),
            (self.direction, vars.direction_deg),
            (self.vertical_velocity, vars.vertical_velocity),
            (self.land_velocity, vars.land_velocity),
        ];
        for (handle, value) in floats {
            if let Some(handle) = handle {
                params.set_float(handle, value);
            }
        }
        let bools = [
            (self.is_moving, vars.is_moving),
            (self.is_crouching, vars.is_crouching),
            (self.is_grounded, vars.is_grounded || vars.stepping_off),
            (self.aiming, vars.aiming),
            (self.is_pushing_wall, vars.is_pushing_wall),
            (self.hips_back, vars.hips_back),
            (self.reversed, vars.reversed),
        ];
        for (handle, value) in bools {
            if let Some(handle) = handle {
                params.set_bool(handle, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_and_grades() {
        use JumpPhase::*;
        let p = |vy| JumpPhase::from_vertical_velocity(vy, 0.5);
        assert_eq!(
            [p(3.0), p(0.51), p(0.5), p(0.0), p(-0.5), p(-0.51)],
            [Start, Start, Apex, Apex, Apex, Fall]
        );
        assert_eq!(p(f32::NAN), Apex);
        assert_eq!(LandingGrade::from_impact(4.0, 5.0), LandingGrade::Light);
        assert_eq!(LandingGrade::from_impact(4.999, 5.0), LandingGrade::Light);
        assert_eq!(LandingGrade::from_impact(5.0, 5.0), LandingGrade::Heavy);
        assert_eq!(LandingGrade::from_impact(6.0, 5.0), LandingGrade::Heavy);
    }

    #[test]
    fn writes_into_a_param_set() {
        let mut set = ParamSet::als_locomotion();
        let push = set.add_bool(IS_PUSHING_WALL, false).unwrap();
        let hips_back = set.add_bool(HIPS_BACK, false).unwrap();
        let handles = LocomotionParams::resolve(&set);
        assert!(handles.speed.is_some() && handles.is_pushing_wall.is_some());
        let vars = LocomotionVars {
            speed: 2.0,
            input_speed: 3.75,
            direction_deg: 90.0,
            is_moving: true,
            is_grounded: false,
            vertical_velocity: -1.0,
            is_pushing_wall: true,
            hips_back: true,
            ..LocomotionVars::default()
        };
        handles.write(&vars, &mut set);
        assert_eq!(set.get_float(set.float(names::SPEED).unwrap()), 2.0);
        assert_eq!(set.get_float(set.float(names::DIRECTION).unwrap()), 90.0);
        assert_eq!(set.get_float(set.float(names::INPUT_SPEED).unwrap()), 3.75);
        assert!(!set.get_bool(set.bool(names::IS_GROUNDED).unwrap()));
        // Stepping off a tread, the graph is still told grounded.
        let stepping = LocomotionVars {
            stepping_off: true,
            ..vars
        };
        handles.write(&stepping, &mut set);
        assert!(set.get_bool(set.bool(names::IS_GROUNDED).unwrap()));
        handles.write(&vars, &mut set);
        assert!(set.get_bool(push));
        assert!(set.get_bool(hips_back));
        // A set without the push-wall flag still works.
        let plain = ParamSet::als_locomotion();
        let handles = LocomotionParams::resolve(&plain);
        assert_eq!(handles.is_pushing_wall, None);
        assert_eq!(handles.hips_back, None);
        let mut plain = plain;
        handles.write(&vars, &mut plain);
    }
}
