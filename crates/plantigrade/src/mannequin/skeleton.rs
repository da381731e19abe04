//! The mannequin's joint hierarchy and rest pose (a T-pose), with UE mannequin names.

use glam::Vec3;

use crate::skeleton::{Joint, Skeleton, Transform};

/// Joint name, parent name and rest offset from the parent (metres, model axes: +X left,
/// +Y up, +Z forward). Left-side joints only for limbs; the right side mirrors X.
const TRUNK: &[(&str, Option<&str>, [f32; 3])] = &[
    ("root", None, [0.0, 0.0, 0.0]),
    ("pelvis", Some("root"), [0.0, 0.95, 0.0]),
    ("spine_01", Some("pelvis"), [0.0, 0.10, -0.01]),
    ("spine_02", Some("spine_01"), [0.0, 0.12, -0.01]),
    ("spine_03", Some("spine_02"), [0.0, 0.14, 0.0]),
    ("neck_01", Some("spine_03"), [0.0, 0.19, 0.0]),
    ("head", Some("neck_01"), [0.0, 0.10, 0.02]),
];

const LIMB: &[(&str, &str, [f32; 3])] = &[
    ("clavicle", "spine_03", [0.03, 0.14, 0.0]),
    ("upperarm", "clavicle", [0.15, 0.0, -0.01]),
    ("lowerarm", "upperarm", [0.28, 0.0, 0.0]),
    ("hand", "lowerarm", [0.25, 0.0, 0.0]),
    ("thumb_01", "hand", [0.03, -0.01, 0.035]),
    ("index_01", "hand", [0.09, 0.0, 0.025]),
    ("middle_01", "hand", [0.095, 0.0, 0.0]),
    ("thigh", "pelvis", [0.10, -0.05, 0.0]),
    ("calf", "thigh", [0.0, -0.42, 0.0]),
    ("foot", "calf", [0.0, -0.40, 0.0]),
    ("ball", "foot", [0.0, -0.05, 0.13]),
];

/// The mannequin skeleton: 7 trunk joints and 11 per side (29 joints).
pub fn skeleton() -> Skeleton {
    let mut joints: Vec<Joint> = Vec::new();
    let index_of = |joints: &[Joint], name: &str| joints.iter().position(|j| j.name == name);
    for &(name, parent, offset) in TRUNK {
        let parent = parent.and_then(|p| index_of(&joints, p));
        joints.push(Joint {
            name: name.to_string(),
            parent,
            rest_local: Transform::from_translation(Vec3::from(offset)),
        });
    }
    for (suffix, mirror) in [("l", 1.0), ("r", -1.0)] {
        for &(name, parent, [x, y, z]) in LIMB {
            let parent_name = if TRUNK.iter().any(|t| t.0 == parent) {
                parent.to_string()
            } else {
                format!("{parent}_{suffix}")
            };
            joints.push(Joint {
                name: format!("{name}_{suffix}"),
                parent: index_of(&joints, &parent_name),
                rest_local: Transform::from_translation(Vec3::new(x * mirror, y, z)),
            });
        }
    }
    // The tables above are parent-first with unique names: building cannot fail.
    Skeleton::new(joints).expect("mannequin skeleton tables are well-formed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bone_map::{BonePreset, HumanoidMap, Side};

    #[test]
    fn mannequin_skeleton_is_a_ue_humanoid_standing_on_zero() {
        let s = skeleton();
        assert_eq!(s.num_joints(), 29);
        let map = HumanoidMap::detect(&s);
        assert_eq!(map.preset, BonePreset::UnrealMannequin);
        assert_eq!(map.spine.len(), 3);
        for side in Side::BOTH {
            let leg = map.leg(side).unwrap();
            assert!(leg.ball.is_some());
            assert!(map.arm(side).is_some());
        }
        let ball_l = s.rest_position_model(s.find("ball_l").unwrap());
        assert!((ball_l - Vec3::new(0.10, 0.03, 0.13)).length() < 1e-5);
        // Left is +X.
        assert!(s.rest_position_model(s.find("hand_l").unwrap()).x > 0.5);
    }
}
