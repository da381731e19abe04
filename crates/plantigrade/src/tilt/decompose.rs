//! Ground-normal decomposition into pelvis pitch and roll (SPEC TILT-2).
//!
//! Spaces: the ground normal comes in **world** space (+Y up); the character's facing is a
//! world yaw (0 faces +Z, positive turns +Z toward +X). Everything else is in the
//! character's **model** space (+Y up, +Z forward, +X left), i.e. the world rotated by
//! `-facing_yaw_world_rad` about +Y.
//!
//! Angle definitions, exact for any facing (`n` is the unit normal in model space):
//!
//! - `pitch_rad = atan2(-n.z, n.y)`: the grade of the ground along the facing direction.
//!   Positive = ground rising ahead (uphill in front). A 20° ramp climbed head-on gives
//!   +20°, walked down gives −20°, crossed sideways gives 0.
//! - `roll_rad = asin(-n.x)`: the angle between the normal and the character's
//!   forward–up plane. Positive = ground rising to the character's **left** (+X model).
//!   On a pure side slope (pitch 0) it is exactly the side grade.
//!
//! The pelvis tilt is `R_x(-pitch) · R_z(roll)` ([`pelvis_tilt_rotation_model`]). It maps
//! model +Y onto the ground normal `(-sin roll, cos roll · cos pitch, -cos roll · sin pitch)`
//! and model +Z (forward) onto `(0, sin pitch, cos pitch)`, which lies in the ground plane
//! straight along the facing: the tilted pelvis never yaws.

use glam::{Quat, Vec3};

/// Unit normals whose world +Y component is below this are "near-horizontal or downward"
/// (steeper than about 84°): no tilt, [`GroundNormalStatus::TooSteep`].
pub const MIN_GROUND_NORMAL_UP: f32 = 0.1;

/// The largest pitch or roll limit accepted (89°); larger limits are reduced to it so the
/// tilt never reaches a horizontal pelvis.
pub const MAX_TILT_LIMIT_RAD: f32 = 89.0 * std::f32::consts::PI / 180.0;

/// Clamps for the pelvis tilt (SPEC TILT-2). Beyond a clamp the slope is left to other
/// systems (slide, climb); [`GroundTilt`] reports that the clamp was hit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TiltLimits {
    /// Largest |pitch| (rad) about the character's left axis. Default 45° (π/4).
    /// NaN means the default; negative values are taken by magnitude; capped at 89°.
    pub max_pitch_rad: f32,
    /// Largest |roll| (rad) about the character's forward axis. Default 25°.
    /// NaN means the default; negative values are taken by magnitude; capped at 89°.
    pub max_roll_rad: f32,
    /// When false, roll is always 0 and the tilt is pitch only. Default true.
    pub roll_enabled: bool,
}

impl Default for TiltLimits {
    fn default() -> Self {
        Self {
            max_pitch_rad: 45f32.to_radians(),
            max_roll_rad: 25f32.to_radians(),
            roll_enabled: true,
        }
    }
}

impl TiltLimits {
    /// These limits with NaN replaced by the default, signs dropped and each capped at
    /// [`MAX_TILT_LIMIT_RAD`].
    pub fn sanitized(&self) -> Self {
        let default = Self::default();
        let fix = |value: f32, fallback: f32| {
            if value.is_nan() {
                fallback
            } else {
                value.abs().min(MAX_TILT_LIMIT_RAD)
            }
        };
        Self {
            max_pitch_rad: fix(self.max_pitch_rad, default.max_pitch_rad),
            max_roll_rad: fix(self.max_roll_rad, default.max_roll_rad),
            roll_enabled: self.roll_enabled,
        }
    }
}

/// Whether the ground normal could be decomposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GroundNormalStatus {
    /// The normal was usable; the angles are meaningful.
    Valid,
    /// The normal or the facing yaw was NaN/∞, or the normal had (near) zero length: zero
    /// tilt.
    NonFinite,
    /// The normal points near-horizontally or downward (unit world Y below
    /// [`MIN_GROUND_NORMAL_UP`]): zero tilt; a wall or ceiling is not ground.
    TooSteep,
}

/// The pelvis tilt a ground normal asks for, in the character's model frame (see the
/// module docs for the angle definitions and signs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundTilt {
    /// Clamped pitch (rad) about the character's left axis; positive = ground rising
    /// ahead. 0 unless `status` is [`GroundNormalStatus::Valid`].
    pub pitch_rad: f32,
    /// Clamped roll (rad) about the character's forward axis; positive = ground rising to
    /// the character's left. 0 when roll is disabled or `status` is not valid.
    pub roll_rad: f32,
    /// Pitch (rad) before the clamp (0 when not valid).
    pub unclamped_pitch_rad: f32,
    /// Roll (rad) before the clamp and before `roll_enabled` (0 when not valid).
    pub unclamped_roll_rad: f32,
    /// The pitch clamp was hit: the slope along the facing is beyond
    /// [`TiltLimits::max_pitch_rad`] (leave it to other systems).
    pub pitch_clamped: bool,
    /// The roll clamp was hit (only when roll is enabled).
    pub roll_clamped: bool,
    /// The unit ground normal in **model** space, unclamped; +Y when not valid.
    pub ground_normal_model: Vec3,
    /// Whether the input was usable.
    pub status: GroundNormalStatus,
}

impl GroundTilt {
    /// No tilt, with the given status.
    pub fn zero(status: GroundNormalStatus) -> Self {
        Self {
            pitch_rad: 0.0,
            roll_rad: 0.0,
            unclamped_pitch_rad: 0.0,
            unclamped_roll_rad: 0.0,
            pitch_clamped: false,
            roll_clamped: false,
            ground_normal_model: Vec3::Y,
            status,
        }
    }

    /// Either clamp was hit.
    pub fn clamped(&self) -> bool {
        self.pitch_clamped || self.roll_clamped
    }

    /// The pelvis tilt rotation (model space) for the clamped angles; see
    /// [`pelvis_tilt_rotation_model`].
    pub fn rotation_model(&self) -> Quat {
        pelvis_tilt_rotation_model(self.pitch_rad, self.roll_rad)
    }

    /// The clamped ground normal in model space: model +Y rotated by
    /// [`Self::rotation_model`]. Equals `ground_normal_model` when no clamp was hit and roll
    /// is enabled.
    pub fn up_model(&self) -> Vec3 {
        tilted_up_model(self.pitch_rad, self.roll_rad)
    }
}

/// A world-space direction expressed in the model space of a character facing
/// `facing_yaw_world_rad` (world yaw, rad): rotates it by `-yaw` about +Y.
pub fn world_to_model_direction(direction_world: Vec3, facing_yaw_world_rad: f32) -> Vec3 {
    Quat::from_rotation_y(-facing_yaw_world_rad) * direction_world
}

/// Decomposes a ground normal (world space, any positive length) for a character facing
/// `facing_yaw_world_rad` (world yaw, rad) into clamped pelvis pitch and roll
/// (SPEC TILT-2). Exact for any facing; never panics: non-finite input or a normal that is
/// near-horizontal or downward gives zero tilt and a non-valid
/// [`GroundTilt::status`].
pub fn decompose_ground_normal(
    normal_world: Vec3,
    facing_yaw_world_rad: f32,
    limits: &TiltLimits,
) -> GroundTilt {
    if !normal_world.is_finite() || !facing_yaw_world_rad.is_finite() {
        return GroundTilt::zero(GroundNormalStatus::NonFinite);
    }
    // Scale by the largest component first so huge finite normals do not overflow.
    let largest = normal_world.abs().max_element();
    if largest <= 1e-12 {
        return GroundTilt::zero(GroundNormalStatus::NonFinite);
    }
    let unit_world = (normal_world / largest).normalize();
    if unit_world.y < MIN_GROUND_NORMAL_UP {
        return GroundTilt::zero(GroundNormalStatus::TooSteep);
    }
    let n = world_to_model_direction(unit_world, facing_yaw_world_rad);
    let limits = limits.sanitized();

    let unclamped_pitch_rad = (-n.z).atan2(n.y);
    let unclamped_roll_rad = (-n.x).clamp(-1.0, 1.0).asin();

    let pitch_rad = unclamped_pitch_rad.clamp(-limits.max_pitch_rad, limits.max_pitch_rad);
    let (roll_rad, roll_clamped) = if limits.roll_enabled {
        let roll = unclamped_roll_rad.clamp(-limits.max_roll_rad, limits.max_roll_rad);
        (roll, roll != unclamped_roll_rad)
    } else {
        (0.0, false)
    };
    GroundTilt {
        pitch_rad,
        roll_rad,
        unclamped_pitch_rad,
        unclamped_roll_rad,
        pitch_clamped: pitch_rad != unclamped_pitch_rad,
        roll_clamped,
        ground_normal_model: n,
        status: GroundNormalStatus::Valid,
    }
}

/// The pelvis tilt as a rotation in the character's **model** space:
/// `R_x(-pitch_rad) · R_z(roll_rad)` (pitch about the left axis, positive = nose up for
/// ground rising ahead; roll about the forward axis, positive = up axis leaning right for
/// ground rising to the left). Premultiply it onto the pelvis's model rotation, about the
/// pelvis position. Non-finite angles give the identity.
pub fn pelvis_tilt_rotation_model(pitch_rad: f32, roll_rad: f32) -> Quat {
    if !pitch_rad.is_finite() || !roll_rad.is_finite() {
        return Quat::IDENTITY;
    }
    Quat::from_rotation_x(-pitch_rad) * Quat::from_rotation_z(roll_rad)
}

/// Model +Y rotated by [`pelvis_tilt_rotation_model`]`(pitch_rad, roll_rad)`, in closed
/// form: `(-sin roll, cos roll · cos pitch, -cos roll · sin pitch)` (model space, unit).
/// Non-finite angles give +Y.
pub fn tilted_up_model(pitch_rad: f32, roll_rad: f32) -> Vec3 {
    if !pitch_rad.is_finite() || !roll_rad.is_finite() {
        return Vec3::Y;
    }
    let (sin_pitch, cos_pitch) = pitch_rad.sin_cos();
    let (sin_roll, cos_roll) = roll_rad.sin_cos();
    Vec3::new(-sin_roll, cos_roll * cos_pitch, -cos_roll * sin_pitch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f32::consts::{FRAC_PI_2, PI};

    const EPS: f32 = 1e-5;

    /// The normal of a ramp rising by `grade_rad` toward the horizontal world direction
    /// `uphill_yaw_rad` (world yaw convention).
    fn ramp_normal_world(grade_rad: f32, uphill_yaw_rad: f32) -> Vec3 {
        let uphill = Vec3::new(uphill_yaw_rad.sin(), 0.0, uphill_yaw_rad.cos());
        (Vec3::Y * grade_rad.cos() - uphill * grade_rad.sin()).normalize()
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    fn unlimited() -> TiltLimits {
        TiltLimits {
            max_pitch_rad: MAX_TILT_LIMIT_RAD,
            max_roll_rad: MAX_TILT_LIMIT_RAD,
            roll_enabled: true,
        }
    }

    #[test]
    fn ramp_rising_along_z_facing_zero_is_pure_pitch() {
        let n = ramp_normal_world(deg(20.0), 0.0);
        let tilt = decompose_ground_normal(n, 0.0, &TiltLimits::default());
        assert_eq!(tilt.status, GroundNormalStatus::Valid);
        assert!((tilt.pitch_rad - deg(20.0)).abs() < EPS, "{tilt:?}");
        assert!(tilt.roll_rad.abs() < EPS);
        assert!(!tilt.clamped());
    }

    #[test]
    fn facing_downhill_is_negative_pitch() {
        let n = ramp_normal_world(deg(20.0), 0.0);
        let tilt = decompose_ground_normal(n, PI, &TiltLimits::default());
        assert!((tilt.pitch_rad + deg(20.0)).abs() < EPS, "{tilt:?}");
        assert!(tilt.roll_rad.abs() < EPS);
    }

    #[test]
    fn side_slopes_are_pure_roll_with_left_positive() {
        let n = ramp_normal_world(deg(20.0), 0.0);
        // Facing +X (yaw 90°): world +Z is on the character's right; ground rises right.
        let tilt = decompose_ground_normal(n, FRAC_PI_2, &TiltLimits::default());
        assert!(tilt.pitch_rad.abs() < EPS, "{tilt:?}");
        assert!((tilt.roll_rad + deg(20.0)).abs() < EPS, "{tilt:?}");
        // Facing -X (yaw -90°): world +Z is on the character's left; ground rises left.
        let tilt = decompose_ground_normal(n, -FRAC_PI_2, &TiltLimits::default());
        assert!(tilt.pitch_rad.abs() < EPS, "{tilt:?}");
        assert!((tilt.roll_rad - deg(20.0)).abs() < EPS, "{tilt:?}");
    }

    #[test]
    fn cross_slope_pitch_is_the_grade_along_the_facing() {
        // A 20° ramp rising toward yaw 0; facing 45° sees tan(pitch) = tan 20° · cos 45°.
        let grade = deg(20.0);
        let n = ramp_normal_world(grade, 0.0);
        let tilt = decompose_ground_normal(n, deg(45.0), &TiltLimits::default());
        let expected_pitch = (grade.tan() * deg(45.0).cos()).atan();
        assert!((tilt.pitch_rad - expected_pitch).abs() < EPS, "{tilt:?}");
        // World +Z is ahead-right of a character facing 45°: the ground rises to the right.
        let expected_roll = (-(grade.sin() * deg(45.0).sin())).asin();
        assert!((tilt.roll_rad - expected_roll).abs() < EPS, "{tilt:?}");
        assert!(tilt.roll_rad < 0.0);
        assert!((tilt.up_model() - tilt.ground_normal_model).length() < EPS);
    }

    #[test]
    fn flat_ground_is_no_tilt_for_any_facing() {
        for i in 0..16 {
            let yaw = i as f32 * 0.7 - 5.0;
            let tilt = decompose_ground_normal(Vec3::Y * 3.0, yaw, &TiltLimits::default());
            assert_eq!(tilt.status, GroundNormalStatus::Valid);
            assert!(tilt.pitch_rad.abs() < EPS && tilt.roll_rad.abs() < EPS);
            assert!(tilt.rotation_model().angle_between(Quat::IDENTITY) < 1e-3);
        }
    }

    #[test]
    fn clamps_are_applied_and_reported() {
        let limits = TiltLimits::default();
        let steep = ramp_normal_world(deg(60.0), 0.0);
        let tilt = decompose_ground_normal(steep, 0.0, &limits);
        assert!(tilt.pitch_clamped && !tilt.roll_clamped);
        assert!((tilt.pitch_rad - deg(45.0)).abs() < EPS);
        assert!((tilt.unclamped_pitch_rad - deg(60.0)).abs() < EPS);

        let tilt = decompose_ground_normal(steep, PI, &limits);
        assert!(tilt.pitch_clamped);
        assert!((tilt.pitch_rad + deg(45.0)).abs() < EPS);

        let side = ramp_normal_world(deg(30.0), 0.0);
        let tilt = decompose_ground_normal(side, -FRAC_PI_2, &limits);
        assert!(tilt.roll_clamped && !tilt.pitch_clamped);
        assert!((tilt.roll_rad - deg(25.0)).abs() < EPS);
        assert!((tilt.unclamped_roll_rad - deg(30.0)).abs() < EPS);

        let just_inside = ramp_normal_world(deg(24.0), 0.0);
        let tilt = decompose_ground_normal(just_inside, -FRAC_PI_2, &limits);
        assert!(!tilt.clamped());
    }

    #[test]
    fn roll_can_be_disabled() {
        let limits = TiltLimits {
            roll_enabled: false,
            ..TiltLimits::default()
        };
        let n = ramp_normal_world(deg(20.0), deg(30.0));
        let tilt = decompose_ground_normal(n, 0.0, &limits);
        assert_eq!(tilt.roll_rad, 0.0);
        assert!(!tilt.roll_clamped);
        assert!(tilt.unclamped_roll_rad.abs() > deg(5.0));
        // The up axis is the normal projected onto the forward-up plane.
        let projected = Vec3::new(0.0, tilt.ground_normal_model.y, tilt.ground_normal_model.z);
        assert!((tilt.up_model() - projected.normalize()).length() < EPS);
    }

    #[test]
    fn bad_normals_and_facings_give_zero_tilt_with_a_flag() {
        let limits = TiltLimits::default();
        let cases = [
            (
                Vec3::new(f32::NAN, 1.0, 0.0),
                0.0,
                GroundNormalStatus::NonFinite,
            ),
            (
                Vec3::new(0.0, f32::INFINITY, 0.0),
                0.0,
                GroundNormalStatus::NonFinite,
            ),
            (Vec3::Y, f32::NAN, GroundNormalStatus::NonFinite),
            (Vec3::Y, f32::NEG_INFINITY, GroundNormalStatus::NonFinite),
            (Vec3::ZERO, 0.0, GroundNormalStatus::NonFinite),
            (Vec3::splat(1e-30), 0.0, GroundNormalStatus::NonFinite),
            (Vec3::X, 0.0, GroundNormalStatus::TooSteep),
            (Vec3::new(1.0, 0.05, 0.0), 0.0, GroundNormalStatus::TooSteep),
            (-Vec3::Y, 0.0, GroundNormalStatus::TooSteep),
        ];
        for (normal, yaw, status) in cases {
            let tilt = decompose_ground_normal(normal, yaw, &limits);
            assert_eq!(tilt.status, status, "{normal:?} {yaw}");
            assert_eq!((tilt.pitch_rad, tilt.roll_rad), (0.0, 0.0));
            assert_eq!(tilt.rotation_model(), Quat::IDENTITY);
        }
        // Huge but finite normals are fine (no overflow in the length).
        let tilt = decompose_ground_normal(Vec3::new(0.0, 1e30, -2e30), 0.0, &limits);
        assert_eq!(tilt.status, GroundNormalStatus::Valid);
        assert!(tilt.pitch_clamped);
    }

    #[test]
    fn nan_limits_fall_back_to_defaults() {
        let limits = TiltLimits {
            max_pitch_rad: f32::NAN,
            max_roll_rad: -0.1,
            roll_enabled: true,
        };
        let n = ramp_normal_world(deg(60.0), deg(40.0));
        let tilt = decompose_ground_normal(n, 0.0, &limits);
        assert!(tilt.pitch_clamped && tilt.roll_clamped, "{tilt:?}");
        assert!((tilt.pitch_rad - deg(45.0)).abs() < EPS, "{tilt:?}");
        assert!((tilt.roll_rad.abs() - 0.1).abs() < EPS, "{tilt:?}");
        assert!(tilt.pitch_rad.is_finite() && tilt.roll_rad.is_finite());
    }

    #[test]
    fn angles_outside_range_do_not_break_the_rotation() {
        assert_eq!(pelvis_tilt_rotation_model(f32::NAN, 0.0), Quat::IDENTITY);
        assert_eq!(tilted_up_model(0.0, f32::INFINITY), Vec3::Y);
    }

    proptest! {
        /// Model +Y rotated by the tilt is the (unclamped) ground normal in model space, and
        /// back in world space it is the input normal; model forward stays in the ground plane
        /// straight along the facing; and pitch is the exact grade along the facing.
        #[test]
        fn up_maps_to_normal_for_any_facing(
            grade_deg in 0.0f32..80.0,
            uphill_yaw in -PI..PI,
            facing_yaw in -10.0f32..10.0,
        ) {
            let n_world = ramp_normal_world(grade_deg.to_radians(), uphill_yaw);
            let tilt = decompose_ground_normal(n_world, facing_yaw, &unlimited());
            prop_assert_eq!(tilt.status, GroundNormalStatus::Valid);
            let q = tilt.rotation_model();
            prop_assert!((q * Vec3::Y - tilt.ground_normal_model).length() < 1e-4);
            prop_assert!((tilt.up_model() - q * Vec3::Y).length() < 1e-5);
            let back_world = Quat::from_rotation_y(facing_yaw) * (q * Vec3::Y);
            prop_assert!((back_world - n_world).length() < 1e-4);

            let forward_model = q * Vec3::Z;
            prop_assert!(forward_model.x.abs() < 1e-5);
            prop_assert!(forward_model.dot(tilt.ground_normal_model).abs() < 1e-4);

            // Independent grade along the facing: height gained per metre walked forward.
            let facing_world = Vec3::new(facing_yaw.sin(), 0.0, facing_yaw.cos());
            let rise = -(n_world.x * facing_world.x + n_world.z * facing_world.z) / n_world.y;
            prop_assert!((tilt.pitch_rad - rise.atan()).abs() < 1e-4);
        }

        /// With the default limits, +Y maps to the clamped normal, the angles stay in range
        /// and the flags say whether the clamp changed anything.
        #[test]
        fn clamped_up_is_consistent(
            grade_deg in 0.0f32..80.0,
            uphill_yaw in -PI..PI,
            facing_yaw in -PI..PI,
        ) {
            let limits = TiltLimits::default();
            let n_world = ramp_normal_world(grade_deg.to_radians(), uphill_yaw);
            let tilt = decompose_ground_normal(n_world, facing_yaw, &limits);
            prop_assert!(tilt.pitch_rad.abs() <= limits.max_pitch_rad + 1e-6);
            prop_assert!(tilt.roll_rad.abs() <= limits.max_roll_rad + 1e-6);
            prop_assert!((tilt.rotation_model() * Vec3::Y - tilt.up_model()).length() < 1e-5);
            prop_assert!((tilt.up_model().length() - 1.0).abs() < 1e-5);
            if !tilt.clamped() {
                prop_assert!((tilt.up_model() - tilt.ground_normal_model).length() < 1e-4);
            } else {
                prop_assert!(
                    tilt.unclamped_pitch_rad.abs() > limits.max_pitch_rad
                        || tilt.unclamped_roll_rad.abs() > limits.max_roll_rad
                );
            }
        }
    }
}
