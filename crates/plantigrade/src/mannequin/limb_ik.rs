//! Analytic two-bone solve (law of cosines) used while authoring: places a knee or elbow so
//! the limb's end lands exactly on a target, bending toward a pole direction, and returns
//! the two bones' model-space rotations.
//!
//! This is authoring code, not the runtime foot IK (SPEC IK-8): it knows the mannequin's
//! rest conventions (bones along a model axis, identity rest rotations) and reports instead
//! of hiding a target it could not reach.

use glam::{Mat3, Quat, Vec3};

/// Rest-pose shape of a two-bone limb, in model space (identity rest rotations make the
/// bones' local axes equal to the model axes).
#[derive(Clone, Copy, Debug)]
pub(super) struct LimbRest {
    pub upper_length_m: f32,
    pub lower_length_m: f32,
    /// Unit direction both bones point along in the rest pose (legs −Y, left arm +X).
    pub bone_axis: Vec3,
    /// Unit axis the middle joint bends about in the rest pose, perpendicular to
    /// `bone_axis`, signed so that bending toward the pole is `pole × bone_axis` (knee +X,
    /// left elbow −Y).
    pub hinge_axis: Vec3,
}

/// Where the limb ended up.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(test), allow(dead_code))] // joint positions are checked by the tests
pub(super) struct LimbSolution {
    /// Knee or elbow, model space (m).
    pub middle_model: Vec3,
    /// Ankle or wrist, model space (m); the target unless the solve was clamped.
    pub end_model: Vec3,
    pub upper_rotation_model: Quat,
    pub lower_rotation_model: Quat,
    /// The target was farther than `max_extension` of the limb length (or too close) and
    /// the end stops short of it.
    pub clamped: bool,
}

/// Solves root → middle → end so the end reaches `target_model`, with the middle joint
/// displaced toward `pole_model` (a direction, not a point; only its component
/// perpendicular to the root–target line counts). Reach is clamped to `max_extension` of
/// the limb length; a pole parallel to the limb falls back to the rest hinge.
pub(super) fn solve_limb(
    root_model: Vec3,
    target_model: Vec3,
    pole_model: Vec3,
    rest: &LimbRest,
    max_extension: f32,
) -> LimbSolution {
    let (l1, l2) = (rest.upper_length_m, rest.lower_length_m);
    let to_target = target_model - root_model;
    let distance = to_target.length();
    let along = if distance > 1e-6 {
        to_target / distance
    } else {
        rest.bone_axis
    };
    let max_reach = max_extension * (l1 + l2);
    let min_reach = (l1 - l2).abs() + 1e-4;
    let reach = distance.clamp(min_reach, max_reach);
    let clamped = distance > max_reach || distance < min_reach;

    // Bend direction: the pole's part perpendicular to the limb line.
    let pole_perpendicular = pole_model - along * pole_model.dot(along);
    let bend = if pole_perpendicular.length_squared() > 1e-8 {
        pole_perpendicular.normalize()
    } else {
        // Pole along the limb: bend the way the rest hinge would.
        rest.bone_axis.cross(rest.hinge_axis).normalize()
    };
    let cos_root = ((l1 * l1 + reach * reach - l2 * l2) / (2.0 * l1 * reach)).clamp(-1.0, 1.0);
    let sin_root = (1.0 - cos_root * cos_root).max(0.0).sqrt();
    let middle_model = root_model + l1 * (cos_root * along + sin_root * bend);
    let end_model = root_model + along * reach;

    let hinge = bend.cross(along).normalize();
    let upper_axis = (middle_model - root_model).normalize();
    let lower_axis = (end_model - middle_model).normalize();
    LimbSolution {
        middle_model,
        end_model,
        upper_rotation_model: rotation_between_frames(
            rest.bone_axis,
            rest.hinge_axis,
            upper_axis,
            hinge,
        ),
        lower_rotation_model: rotation_between_frames(
            rest.bone_axis,
            rest.hinge_axis,
            lower_axis,
            hinge,
        ),
        clamped,
    }
}

/// The rotation taking the orthonormal pair (`axis_from`, `hinge_from`) onto
/// (`axis_to`, `hinge_to`); both pairs must be unit and perpendicular.
pub(super) fn rotation_between_frames(
    axis_from: Vec3,
    hinge_from: Vec3,
    axis_to: Vec3,
    hinge_to: Vec3,
) -> Quat {
    let from = Mat3::from_cols(axis_from, hinge_from, axis_from.cross(hinge_from));
    let to = Mat3::from_cols(axis_to, hinge_to, axis_to.cross(hinge_to));
    Quat::from_mat3(&(to * from.transpose())).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEG: LimbRest = LimbRest {
        upper_length_m: 0.42,
        lower_length_m: 0.40,
        bone_axis: Vec3::NEG_Y,
        hinge_axis: Vec3::X,
    };

    #[test]
    fn knee_lands_the_ankle_exactly_and_bends_forward() {
        let hip = Vec3::new(0.1, 0.85, 0.0);
        let ankle = Vec3::new(0.12, 0.1, 0.25);
        let s = solve_limb(hip, ankle, Vec3::Z, &LEG, 0.999);
        assert!(!s.clamped);
        assert!((s.end_model - ankle).length() < 1e-5);
        assert!(((s.middle_model - hip).length() - 0.42).abs() < 1e-5);
        assert!(((s.end_model - s.middle_model).length() - 0.40).abs() < 1e-5);
        // Forward knee: ahead of the hip–ankle line at the knee's height.
        let t = (hip.y - s.middle_model.y) / (hip.y - ankle.y);
        assert!(s.middle_model.z > hip.z + t * (ankle.z - hip.z));
        // The rotations reproduce the joint positions from the rest bones.
        let knee = hip + s.upper_rotation_model * (Vec3::NEG_Y * 0.42);
        let end = knee + s.lower_rotation_model * (Vec3::NEG_Y * 0.40);
        assert!((knee - s.middle_model).length() < 1e-5);
        assert!((end - ankle).length() < 1e-5);
        // The knee hinge stays about +X (no twist for a leg moving in its plane).
        assert!((s.upper_rotation_model * Vec3::X).x > 0.99);
    }

    #[test]
    fn unreachable_targets_clamp_without_nan() {
        let hip = Vec3::new(0.0, 1.0, 0.0);
        let s = solve_limb(hip, Vec3::new(0.0, -1.0, 0.0), Vec3::Z, &LEG, 0.999);
        assert!(s.clamped);
        assert!(s.upper_rotation_model.is_finite() && s.lower_rotation_model.is_finite());
        // A pole along the limb still gives a finite forward bend.
        let s = solve_limb(
            hip,
            hip + Vec3::new(0.0, -0.6, 0.0),
            Vec3::NEG_Y,
            &LEG,
            0.999,
        );
        assert!(s.middle_model.is_finite() && s.middle_model.z > 0.0);
    }

    #[test]
    fn hip_drop_makes_the_ankle_reachable() {
        let hip = Vec3::new(0.0, 0.9, 0.0);
        let ankle = Vec3::new(0.0, 0.08, 0.45);
        let drop = crate::ik::required_drop_m(hip, ankle, 0.82, 0.99);
        assert!(drop > 0.0);
        let lowered = hip - Vec3::Y * drop;
        assert!(((ankle - lowered).length() - 0.99 * 0.82).abs() < 1e-4);
        assert_eq!(
            crate::ik::required_drop_m(hip, Vec3::new(0.0, 0.3, 0.0), 0.82, 0.99),
            0.0
        );
    }
}
