//! Writing the posture into a pose (SPEC TILT-3, TILT-6, TILT-12).
//!
//! Two model-space rotation offsets, each about its joint's own position:
//!
//! - the **pelvis** offset `T_p`: the pelvis's model rotation `M` becomes `T_p · M`. In the
//!   local pose that is `L' = P⁻¹ · T_p · P · L`, with `P` the model rotation of the
//!   pelvis's parent, so the root (and the movement direction) stays level and the legs
//!   follow it (foot IK puts the feet back on the ground);
//! - the **trunk** offset `T_t`, at the first spine joint: its model rotation becomes
//!   `T_t · M_s` whatever the pelvis did, so the spine counter-rotates the pelvis offset and
//!   the chest, neck and arms take the trunk's posture (lean into a climb, stay vertical
//!   on a cross-slope). Without a trunk joint everything above the pelvis follows `T_p`.
//!
//! Head compensation (TILT-6): the head would turn by what its parent inherited (`T_t`, or
//! `T_p`); it is corrected to keep only the fraction `f` of that, `slerp(I, T, f)` (default
//! 0.1, less while aiming), so the gaze stays level. Model and world differ by the
//! character's yaw only, so the fraction holds in world terms too.

use glam::{Affine3A, Quat};

use crate::pose::{ModelPose, Pose};
use crate::skeleton::Skeleton;

/// Why the tilt could not be applied. The pose is left untouched.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TiltError {
    #[error("joint {joint} is out of range: the skeleton has {num_joints} joints")]
    JointOutOfRange { joint: usize, num_joints: usize },
    #[error("joint counts differ: skeleton {skeleton}, local pose {pose}, model pose {model}")]
    JointCount {
        skeleton: usize,
        pose: usize,
        model: usize,
    },
    #[error("head joint {head} is not a descendant of the pelvis joint {pelvis}")]
    HeadNotBelowPelvis { head: usize, pelvis: usize },
    #[error("trunk joint {trunk} is not a descendant of the pelvis joint {pelvis}")]
    TrunkNotBelowPelvis { trunk: usize, pelvis: usize },
    #[error("joint {joint}: non-finite transform in the pose or the model pose")]
    NonFinite { joint: usize },
}

/// The model-space rotation of `joint`'s parent (identity for a root joint), or `None` if
/// it is not a usable rotation.
fn parent_rotation_model(skeleton: &Skeleton, model: &ModelPose, joint: usize) -> Option<Quat> {
    match skeleton.parent(joint) {
        None => Some(Quat::IDENTITY),
        Some(parent) => rotation_of(&model.joints_model()[parent]),
    }
}

fn rotation_of(affine: &Affine3A) -> Option<Quat> {
    if !affine.is_finite() {
        return None;
    }
    let (_, rotation, _) = affine.to_scale_rotation_translation();
    let rotation = rotation.normalize();
    rotation.is_finite().then_some(rotation)
}

/// Applies the model-space tilt offset `tilt_model` to `pelvis_joint` of `pose` (local),
/// everything above it following, and, with `head`, corrects that joint to keep only
/// `keep_fraction` (clamped to 0..=1; NaN acts as 0) of the tilt. The same as
/// [`apply_posture`] without a trunk joint.
pub fn apply_pelvis_tilt(
    skeleton: &Skeleton,
    pelvis_joint: usize,
    head: Option<(usize, f32)>,
    tilt_model: Quat,
    model: &ModelPose,
    pose: &mut Pose,
) -> Result<(), TiltError> {
    let offsets = PostureOffsets {
        pelvis_model: tilt_model,
        trunk_model: tilt_model,
        pelvis_drop_m: 0.0,
    };
    apply_posture(skeleton, pelvis_joint, None, head, offsets, model, pose)
}

/// The two rotation offsets of a posture, model space (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostureOffsets {
    /// Applied to the pelvis about its position (legs below follow).
    pub pelvis_model: Quat,
    /// The trunk's resulting rotation offset at its first spine joint.
    pub trunk_model: Quat,
    /// How far the pelvis is lowered (m, model space, straight down; a landing's impact).
    pub pelvis_drop_m: f32,
}

impl PostureOffsets {
    pub const IDENTITY: Self = Self {
        pelvis_model: Quat::IDENTITY,
        trunk_model: Quat::IDENTITY,
        pelvis_drop_m: 0.0,
    };
}

/// A finite unit rotation, or the identity.
fn usable(rotation: Quat) -> Quat {
    let q = if rotation.is_finite() {
        rotation.normalize()
    } else {
        Quat::IDENTITY
    };
    if q.is_finite() {
        q
    } else {
        Quat::IDENTITY
    }
}

/// Writes `offsets` into `pose` (local): the pelvis turned by the pelvis offset, the
/// `trunk_joint` (the first spine joint, a descendant of the pelvis) set so the trunk
/// turns by the trunk offset, and the `head` (a descendant of the pelvis) keeping
/// `keep_fraction` (clamped to 0..=1; NaN acts as 0) of what it inherits. `model` must be
/// the model pose of `pose` before this call (the caller recomputes it afterwards). Checks
/// every index and count first: an error leaves `pose` unchanged; never panics, never
/// writes NaN; a non-finite offset acts as none.
pub fn apply_posture(
    skeleton: &Skeleton,
    pelvis_joint: usize,
    trunk_joint: Option<usize>,
    head: Option<(usize, f32)>,
    offsets: PostureOffsets,
    model: &ModelPose,
    pose: &mut Pose,
) -> Result<(), TiltError> {
    let num_joints = skeleton.num_joints();
    if pose.num_joints() != num_joints || model.num_joints() != num_joints {
        return Err(TiltError::JointCount {
            skeleton: num_joints,
            pose: pose.num_joints(),
            model: model.num_joints(),
        });
    }
    let check = |joint: usize| {
        if joint < num_joints {
            Ok(())
        } else {
            Err(TiltError::JointOutOfRange { joint, num_joints })
        }
    };
    let below_pelvis =
        |joint: usize| joint != pelvis_joint && skeleton.is_ancestor_or_self(pelvis_joint, joint);
    check(pelvis_joint)?;
    if let Some(trunk) = trunk_joint {
        check(trunk)?;
        if !below_pelvis(trunk) {
            return Err(TiltError::TrunkNotBelowPelvis {
                trunk,
                pelvis: pelvis_joint,
            });
        }
    }
    if let Some((head_joint, _)) = head {
        check(head_joint)?;
        if !below_pelvis(head_joint) {
            return Err(TiltError::HeadNotBelowPelvis {
                head: head_joint,
                pelvis: pelvis_joint,
            });
        }
    }
    let pelvis_offset = usable(offsets.pelvis_model);
    let trunk_offset = match trunk_joint {
        Some(_) => usable(offsets.trunk_model),
        None => pelvis_offset,
    };
    // What a joint's model rotation is turned by once the pelvis and trunk are set.
    let inherited = |joint: usize| match trunk_joint {
        Some(trunk) if skeleton.is_ancestor_or_self(trunk, joint) => trunk_offset,
        _ => pelvis_offset,
    };

    let pelvis_parent =
        parent_rotation_model(skeleton, model, pelvis_joint).ok_or(TiltError::NonFinite {
            joint: pelvis_joint,
        })?;
    let pelvis_local = pose.local()[pelvis_joint].rotation;
    let new_pelvis =
        (pelvis_parent.inverse() * pelvis_offset * pelvis_parent * pelvis_local).normalize();
    // The drop, straight down in model space, in the parent's frame.
    let drop_m = if offsets.pelvis_drop_m.is_finite() {
        offsets.pelvis_drop_m
    } else {
        0.0
    };
    // The parent's whole transform, not only its rotation: an armature scale baked into
    // the joints (Quaternius: 100) makes a parent-local unit that many metres.
    let drop_model = glam::Vec3::NEG_Y * drop_m;
    let drop_in_parent = match skeleton.parent(pelvis_joint) {
        Some(parent) => model.joints_model()[parent]
            .inverse()
            .transform_vector3(drop_model),
        None => drop_model,
    };
    let new_pelvis_translation = pose.local()[pelvis_joint].translation + drop_in_parent;
    if !(new_pelvis.is_finite() && new_pelvis_translation.is_finite()) {
        return Err(TiltError::NonFinite {
            joint: pelvis_joint,
        });
    }

    // A joint below the pelvis whose model rotation must become `offset · M`, given that
    // its parent's turned by what the parent inherits.
    let local_for = |joint: usize, offset: Quat| -> Result<Quat, TiltError> {
        let parent = skeleton
            .parent(joint)
            .ok_or(TiltError::NonFinite { joint })?;
        let parent_model =
            rotation_of(&model.joints_model()[parent]).ok_or(TiltError::NonFinite { joint })?;
        let joint_model =
            rotation_of(&model.joints_model()[joint]).ok_or(TiltError::NonFinite { joint })?;
        let local = (parent_model.inverse() * inherited(parent).inverse() * offset * joint_model)
            .normalize();
        if local.is_finite() && pose.local()[joint].rotation.is_finite() {
            Ok(local)
        } else {
            Err(TiltError::NonFinite { joint })
        }
    };
    let new_trunk = match trunk_joint {
        Some(trunk) => Some((trunk, local_for(trunk, trunk_offset)?)),
        None => None,
    };
    let new_head = match head {
        None => None,
        Some((head_joint, keep_fraction)) => {
            let keep = if keep_fraction.is_nan() {
                0.0
            } else {
                keep_fraction.clamp(0.0, 1.0)
            };
            let parent = skeleton.parent(head_joint).unwrap_or(pelvis_joint);
            let kept = Quat::IDENTITY.slerp(inherited(parent), keep);
            Some((head_joint, local_for(head_joint, kept)?))
        }
    };

    let local = pose.local_mut();
    local[pelvis_joint].rotation = new_pelvis;
    local[pelvis_joint].translation = new_pelvis_translation;
    for (joint, rotation) in new_trunk.into_iter().chain(new_head) {
        local[joint].rotation = rotation;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::Mannequin;
    use crate::pose::local_to_model;
    use crate::tilt::pelvis_tilt_rotation_model;
    use glam::Vec3;

    struct Rig {
        mannequin: Mannequin,
        pose: Pose,
        model: ModelPose,
        pelvis: usize,
        head: usize,
    }

    /// The mannequin in its rest pose with a yawed root and bent spine and neck, so the
    /// parent corrections matter.
    fn rig() -> Rig {
        let mannequin = Mannequin::new();
        let skeleton = &mannequin.skeleton;
        let mut pose = Pose::rest(skeleton);
        let find = |name: &str| skeleton.find(name).unwrap();
        let bends = [
            ("root", Quat::from_rotation_y(0.7)),
            ("pelvis", Quat::from_rotation_x(0.1)),
            (
                "spine_02",
                Quat::from_rotation_z(0.2) * Quat::from_rotation_x(0.15),
            ),
            ("neck_01", Quat::from_rotation_x(-0.3)),
            ("head", Quat::from_rotation_y(0.4)),
        ];
        for (name, rotation) in bends {
            pose.local_mut()[find(name)].rotation = rotation;
        }
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(skeleton, &pose, &mut model).unwrap();
        Rig {
            pelvis: mannequin.bones.pelvis.unwrap(),
            head: mannequin.bones.head.unwrap(),
            mannequin,
            pose,
            model,
        }
    }

    fn rotation(model: &ModelPose, joint: usize) -> Quat {
        model.joints_model()[joint]
            .to_scale_rotation_translation()
            .1
    }

    /// Angle (rad) of `a · b⁻¹`, well conditioned near 0 (unlike `acos`).
    fn angle(a: Quat, b: Quat) -> f32 {
        let d = a * b.inverse();
        2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
    }

    #[test]
    fn pelvis_tilts_about_itself_and_the_head_keeps_ten_percent() {
        for keep in [0.1f32, 0.0, 0.35] {
            let mut r = rig();
            let skeleton = &r.mannequin.skeleton;
            let tilt = pelvis_tilt_rotation_model(20f32.to_radians(), -12f32.to_radians());
            let before = r.model.clone();
            apply_pelvis_tilt(
                skeleton,
                r.pelvis,
                Some((r.head, keep)),
                tilt,
                &before,
                &mut r.pose,
            )
            .unwrap();
            local_to_model(skeleton, &r.pose, &mut r.model).unwrap();
            let after = &r.model;
            let root = skeleton.find("root").unwrap();
            let spine_03 = skeleton.find("spine_03").unwrap();
            let thigh_l = skeleton.find("thigh_l").unwrap();
            // Root untouched; the pelvis stays where it is and turns by the tilt in model
            // space; chest and legs follow it.
            assert_eq!(after.joints_model()[root], before.joints_model()[root]);
            assert!(
                (after.position_model(r.pelvis) - before.position_model(r.pelvis)).length() < 1e-6
            );
            for joint in [r.pelvis, spine_03, thigh_l] {
                let expected = tilt * rotation(&before, joint);
                assert!(
                    angle(rotation(after, joint), expected) < 1e-4,
                    "joint {joint}"
                );
            }
            let chest_offset = before.position_model(spine_03) - before.position_model(r.pelvis);
            let chest = after.position_model(r.pelvis) + tilt * chest_offset;
            assert!((after.position_model(spine_03) - chest).length() < 1e-5);
            // The head keeps `keep` of the tilt: its model rotation is slerp(I, T, keep) · H.
            let head_before = rotation(&before, r.head);
            let head_after = rotation(after, r.head);
            let kept = Quat::IDENTITY.slerp(tilt, keep);
            assert!(angle(head_after, kept * head_before) < 1e-4, "keep {keep}");
            let turned = angle(head_after, head_before);
            assert!(
                (turned - keep * angle(tilt, Quat::IDENTITY)).abs() < 1e-4,
                "keep {keep}: {turned}"
            );
            // The head still sits on the tilted neck.
            let neck = skeleton.parent(r.head).unwrap();
            let neck_offset = before.position_model(r.head) - before.position_model(neck);
            let expected_head = after.position_model(neck) + tilt * neck_offset;
            assert!((after.position_model(r.head) - expected_head).length() < 1e-5);
        }
    }

    #[test]
    fn the_spine_counter_rotates_so_the_trunk_takes_its_own_offset() {
        let mut r = rig();
        let skeleton = &r.mannequin.skeleton;
        let spine_01 = skeleton.find("spine_01").unwrap();
        let spine_03 = skeleton.find("spine_03").unwrap();
        let thigh_l = skeleton.find("thigh_l").unwrap();
        // Uphill on a cross-slope: the pelvis leans forward 6° and rolls 12° with the
        // ground; the trunk leans forward 12° and stays upright across.
        let offsets = PostureOffsets {
            pelvis_model: Quat::from_rotation_x(6f32.to_radians())
                * Quat::from_rotation_z(12f32.to_radians()),
            trunk_model: Quat::from_rotation_x(12f32.to_radians()),
            pelvis_drop_m: 0.05,
        };
        let before = r.model.clone();
        apply_posture(
            skeleton,
            r.pelvis,
            Some(spine_01),
            Some((r.head, 0.1)),
            offsets,
            &before,
            &mut r.pose,
        )
        .unwrap();
        local_to_model(skeleton, &r.pose, &mut r.model).unwrap();
        let after = &r.model;
        for (joint, offset) in [
            (r.pelvis, offsets.pelvis_model),
            (thigh_l, offsets.pelvis_model),
            (spine_01, offsets.trunk_model),
            (spine_03, offsets.trunk_model),
        ] {
            let expected = offset * rotation(&before, joint);
            assert!(
                angle(rotation(after, joint), expected) < 1e-4,
                "joint {joint}"
            );
        }
        // The trunk turns about spine_01, which the pelvis carried.
        // The pelvis went 5 cm straight down.
        let drop = before.position_model(r.pelvis) - after.position_model(r.pelvis);
        assert!((drop - Vec3::Y * 0.05).length() < 1e-5, "{drop}");
        let pelvis_to_spine = before.position_model(spine_01) - before.position_model(r.pelvis);
        let spine_01_after =
            after.position_model(r.pelvis) + offsets.pelvis_model * pelvis_to_spine;
        assert!((after.position_model(spine_01) - spine_01_after).length() < 1e-5);
        let chest_offset = before.position_model(spine_03) - before.position_model(spine_01);
        let chest = spine_01_after + offsets.trunk_model * chest_offset;
        assert!((after.position_model(spine_03) - chest).length() < 1e-5);
        // The head keeps a tenth of the trunk's offset.
        let kept = Quat::IDENTITY.slerp(offsets.trunk_model, 0.1);
        assert!(angle(rotation(after, r.head), kept * rotation(&before, r.head)) < 1e-4);
        // A trunk joint that is not above the head's chain still works; one outside the
        // pelvis's subtree is refused.
        let root = skeleton.find("root").unwrap();
        let mut pose = r.pose.clone();
        assert_eq!(
            apply_posture(
                skeleton,
                r.pelvis,
                Some(root),
                None,
                offsets,
                after,
                &mut pose
            ),
            Err(TiltError::TrunkNotBelowPelvis {
                trunk: root,
                pelvis: r.pelvis
            })
        );
        assert_eq!(pose, r.pose);
    }

    #[test]
    fn bad_joints_are_errors_and_leave_the_pose_alone() {
        let r = rig();
        let skeleton = &r.mannequin.skeleton;
        let n = skeleton.num_joints();
        let tilt = Quat::from_rotation_x(0.3);
        let root = skeleton.find("root").unwrap();
        let cases = [
            (
                n,
                None,
                TiltError::JointOutOfRange {
                    joint: n,
                    num_joints: n,
                },
            ),
            (
                r.pelvis,
                Some((usize::MAX, 0.1)),
                TiltError::JointOutOfRange {
                    joint: usize::MAX,
                    num_joints: n,
                },
            ),
            (
                r.pelvis,
                Some((root, 0.1)),
                TiltError::HeadNotBelowPelvis {
                    head: root,
                    pelvis: r.pelvis,
                },
            ),
            (
                r.pelvis,
                Some((r.pelvis, 0.1)),
                TiltError::HeadNotBelowPelvis {
                    head: r.pelvis,
                    pelvis: r.pelvis,
                },
            ),
        ];
        for (pelvis, head, error) in cases {
            let mut pose = r.pose.clone();
            assert_eq!(
                apply_pelvis_tilt(skeleton, pelvis, head, tilt, &r.model, &mut pose),
                Err(error)
            );
            assert_eq!(pose, r.pose);
        }
        let mut short = Pose::new(3);
        assert!(matches!(
            apply_pelvis_tilt(skeleton, r.pelvis, None, tilt, &r.model, &mut short),
            Err(TiltError::JointCount { .. })
        ));
        // A NaN in the pose is refused, not spread.
        let mut broken = r.pose.clone();
        broken.local_mut()[r.head].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        let copy = broken.clone();
        assert_eq!(
            apply_pelvis_tilt(
                skeleton,
                r.pelvis,
                Some((r.head, 0.1)),
                tilt,
                &r.model,
                &mut broken
            ),
            Err(TiltError::NonFinite { joint: r.head })
        );
        assert_eq!(format!("{broken:?}"), format!("{copy:?}"));
        // A non-finite tilt acts as none; NaN keep fraction as 0.
        let mut pose = r.pose.clone();
        apply_pelvis_tilt(
            skeleton,
            r.pelvis,
            Some((r.head, f32::NAN)),
            Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
            &r.model,
            &mut pose,
        )
        .unwrap();
        for (a, b) in pose.local().iter().zip(r.pose.local()) {
            assert!(a.rotation.angle_between(b.rotation) < 1e-5);
        }
    }

    #[test]
    fn the_pelvis_drop_is_metres_under_an_armature_scale() {
        use crate::skeleton::{Joint, Transform};
        // Quaternius bakes an armature scale of 100 into its root joint: a unit of the
        // pelvis parent's frame is 100 m.
        let skeleton = Skeleton::new(vec![
            Joint {
                name: "Root".into(),
                parent: None,
                rest_local: Transform {
                    scale: Vec3::splat(100.0),
                    rotation: Quat::from_rotation_y(0.5),
                    ..Transform::IDENTITY
                },
            },
            Joint {
                name: "Hips".into(),
                parent: Some(0),
                rest_local: Transform::from_translation(Vec3::new(0.0, 0.009, 0.0)),
            },
        ])
        .unwrap();
        let mut pose = Pose::rest(&skeleton);
        let mut model = ModelPose::new(2);
        local_to_model(&skeleton, &pose, &mut model).unwrap();
        let before = model.position_model(1);
        let offsets = PostureOffsets {
            pelvis_drop_m: 0.05,
            ..PostureOffsets::IDENTITY
        };
        apply_posture(&skeleton, 1, None, None, offsets, &model, &mut pose).unwrap();
        local_to_model(&skeleton, &pose, &mut model).unwrap();
        let moved = model.position_model(1) - before;
        assert!(
            (moved - Vec3::new(0.0, -0.05, 0.0)).length() < 1e-5,
            "{moved}"
        );
    }
}
