//! The mannequin's joint hierarchy and rest pose (a T-pose), with UE mannequin names.

use glam::Vec3;

use crate::skeleton::{Joint, Skeleton, Transform};

/// Where each joint sits relative to its parent (metres, model axes: +X left, +Y up, +Z
/// forward; identity rest rotations), for the left side of the limbs; the right side
/// mirrors X. The skeleton clip authoring runs on is built from these
/// ([`skeleton_with`]): the mannequin's own ([`Proportions::mannequin`]) or another rig's,
/// measured from its rest pose (see `generate`).
///
/// The legs hang straight down (`thigh_m` and `calf_m` are lengths along −Y) and the arms
/// point straight out (`upperarm_m`, `lowerarm_m` along +X), the shape the authoring
/// needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proportions {
    /// Root to pelvis (the root stands on the ground, y = 0).
    pub pelvis: Vec3,
    /// Pelvis to spine_01, spine_01 to spine_02, spine_02 to spine_03.
    pub spine: [Vec3; 3],
    /// spine_03 to neck_01, neck_01 to head.
    pub neck: Vec3,
    pub head: Vec3,
    /// spine_03 to clavicle_l, clavicle_l to upperarm_l (the shoulder).
    pub clavicle: Vec3,
    pub shoulder: Vec3,
    /// Upper arm and forearm lengths (shoulder to elbow, elbow to wrist).
    pub upperarm_m: f32,
    pub lowerarm_m: f32,
    /// Finger offsets from the hand are the mannequin's times this.
    pub hand_scale: f32,
    /// Pelvis to thigh_l (the hip).
    pub hip: Vec3,
    /// Thigh and shin lengths (hip to knee, knee to ankle).
    pub thigh_m: f32,
    pub calf_m: f32,
    /// Ankle (foot_l) to the ball (toe) joint.
    pub ball: Vec3,
    /// Ankle to the ball and heel sockets on the sole; `None`: estimated from the bones
    /// (as for the mannequin, whose sockets [`crate::bone_map::HumanoidMap::detect`]
    /// places).
    pub sockets: Option<[Vec3; 2]>,
}

/// The mannequin's trunk: joint name, parent name.
const TRUNK: &[(&str, Option<&str>)] = &[
    ("root", None),
    ("pelvis", Some("root")),
    ("spine_01", Some("pelvis")),
    ("spine_02", Some("spine_01")),
    ("spine_03", Some("spine_02")),
    ("neck_01", Some("spine_03")),
    ("head", Some("neck_01")),
];

/// The mannequin's limbs (left side; the right mirrors): joint name, parent name.
const LIMB: &[(&str, &str)] = &[
    ("clavicle", "spine_03"),
    ("upperarm", "clavicle"),
    ("lowerarm", "upperarm"),
    ("hand", "lowerarm"),
    ("thumb_01", "hand"),
    ("index_01", "hand"),
    ("middle_01", "hand"),
    ("thigh", "pelvis"),
    ("calf", "thigh"),
    ("foot", "calf"),
    ("ball", "foot"),
];

/// The mannequin's fingers, offsets from the hand (left side).
const FINGERS: [[f32; 3]; 3] = [[0.03, -0.01, 0.035], [0.09, 0.0, 0.025], [0.095, 0.0, 0.0]];

impl Proportions {
    /// The built-in mannequin's: hips 0.90 m up, thigh 0.42 m, shin 0.40 m.
    pub fn mannequin() -> Self {
        Self {
            pelvis: Vec3::new(0.0, 0.95, 0.0),
            spine: [
                Vec3::new(0.0, 0.10, -0.01),
                Vec3::new(0.0, 0.12, -0.01),
                Vec3::new(0.0, 0.14, 0.0),
            ],
            neck: Vec3::new(0.0, 0.19, 0.0),
            head: Vec3::new(0.0, 0.10, 0.02),
            clavicle: Vec3::new(0.03, 0.14, 0.0),
            shoulder: Vec3::new(0.15, 0.0, -0.01),
            upperarm_m: 0.28,
            lowerarm_m: 0.25,
            hand_scale: 1.0,
            hip: Vec3::new(0.10, -0.05, 0.0),
            thigh_m: 0.42,
            calf_m: 0.40,
            ball: Vec3::new(0.0, -0.05, 0.13),
            sockets: None,
        }
    }

    /// Hip to ankle with the leg straight (m).
    pub fn leg_m(&self) -> f32 {
        self.thigh_m + self.calf_m
    }

    /// Offset of trunk joint `name` from its parent.
    fn trunk(&self, name: &str) -> Vec3 {
        match name {
            "pelvis" => self.pelvis,
            "spine_01" => self.spine[0],
            "spine_02" => self.spine[1],
            "spine_03" => self.spine[2],
            "neck_01" => self.neck,
            "head" => self.head,
            _ => Vec3::ZERO,
        }
    }

    /// Offset of left limb joint `name` from its parent.
    fn limb(&self, name: &str) -> Vec3 {
        let finger = |k: usize| Vec3::from(FINGERS[k]) * self.hand_scale;
        match name {
            "clavicle" => self.clavicle,
            "upperarm" => self.shoulder,
            "lowerarm" => Vec3::new(self.upperarm_m, 0.0, 0.0),
            "hand" => Vec3::new(self.lowerarm_m, 0.0, 0.0),
            "thumb_01" => finger(0),
            "index_01" => finger(1),
            "middle_01" => finger(2),
            "thigh" => self.hip,
            "calf" => Vec3::new(0.0, -self.thigh_m, 0.0),
            "foot" => Vec3::new(0.0, -self.calf_m, 0.0),
            "ball" => self.ball,
            _ => Vec3::ZERO,
        }
    }
}

/// The mannequin skeleton: 7 trunk joints and 11 per side (29 joints).
pub fn skeleton() -> Skeleton {
    skeleton_with(&Proportions::mannequin())
}

/// A skeleton with the mannequin's joints, names and conventions (identity rest
/// rotations, T-pose, legs hanging straight down) and these proportions.
pub fn skeleton_with(proportions: &Proportions) -> Skeleton {
    let mut joints: Vec<Joint> = Vec::new();
    let index_of = |joints: &[Joint], name: &str| joints.iter().position(|j| j.name == name);
    for &(name, parent) in TRUNK {
        let parent = parent.and_then(|p| index_of(&joints, p));
        joints.push(Joint {
            name: name.to_string(),
            parent,
            rest_local: Transform::from_translation(proportions.trunk(name)),
        });
    }
    for (suffix, mirror) in [("l", 1.0), ("r", -1.0)] {
        for &(name, parent) in LIMB {
            let parent_name = if TRUNK.iter().any(|t| t.0 == parent) {
                parent.to_string()
            } else {
                format!("{parent}_{suffix}")
            };
            let Vec3 { x, y, z } = proportions.limb(name);
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
