//! The joints and measurements clip authoring needs, looked up once from the skeleton and
//! its bone map.
//!
//! Authoring assumes the mannequin's conventions: every rest rotation is the identity, legs
//! hang along model −Y, the left arm points along +X and the right along −X (T-pose).
//! [`Rig::new`] refuses a skeleton that breaks them.

use glam::{Quat, Vec3};

use crate::bone_map::{HumanoidMap, Side};
use crate::skeleton::{Skeleton, Transform};

/// One leg: joints, bone lengths and foot sockets.
#[derive(Clone, Debug)]
pub(super) struct LegRig {
    pub thigh: usize,
    pub calf: usize,
    pub foot: usize,
    pub ball: usize,
    /// Hip (thigh joint) position in the pelvis frame (m).
    pub hip_pelvis_local: Vec3,
    pub thigh_length_m: f32,
    pub calf_length_m: f32,
    /// Ball socket (sole under the ball joint) in the foot frame (m).
    pub ball_socket_foot_local: Vec3,
    /// Heel socket (sole behind the ankle) in the foot frame (m).
    pub heel_socket_foot_local: Vec3,
}

impl LegRig {
    /// Hip-to-ankle length with the knee straight (m).
    pub fn length_m(&self) -> f32 {
        self.thigh_length_m + self.calf_length_m
    }
}

/// One arm: joints and bone lengths. Fingers are the hand's direct children.
#[derive(Clone, Debug)]
pub(super) struct ArmRig {
    pub side: Side,
    pub clavicle: usize,
    pub upperarm: usize,
    pub lowerarm: usize,
    pub hand: usize,
    pub fingers: Vec<usize>,
    /// Shoulder (upperarm joint) position in the clavicle frame (m).
    pub shoulder_clavicle_local: Vec3,
    pub upperarm_length_m: f32,
    pub lowerarm_length_m: f32,
}

/// Everything the authoring code looks up on the mannequin skeleton.
#[derive(Clone, Debug)]
pub(super) struct Rig {
    /// The mannequin skeleton itself (rest pose, hierarchy).
    pub skeleton: Skeleton,
    pub root: usize,
    pub pelvis: usize,
    pub spine: [usize; 3],
    pub neck: usize,
    pub head: usize,
    /// Indexed by [`Side::index`].
    pub legs: [LegRig; 2],
    pub arms: [ArmRig; 2],
    /// The rest pelvis's height above the mannequin's (m): 0 for the mannequin. Authoring
    /// designs pelvis heights (and the places hands and lifted feet go with it) for the
    /// mannequin; on a rig of other proportions (normalised to the mannequin's leg length)
    /// they move by this, so the legs bend as much as the mannequin's.
    pub pelvis_height_offset_m: f32,
    /// How much farther from the midline the hips are than the mannequin's (m): 0 for the
    /// mannequin. Authored foot placements move out by this, so the feet track under the
    /// hips as the mannequin's do.
    pub hip_width_offset_m: f32,
    /// The same for the ball socket of a straight leg (the sole's, where gaits plant the
    /// feet): its distance from the midline over the mannequin's (0 for the mannequin).
    pub sole_width_offset_m: f32,
}

/// The mannequin's hip (thigh joint) distance from the midline (m).
pub(super) const MANNEQUIN_HIP_HALF_WIDTH_M: f32 = 0.10;

/// The mannequin's rest pelvis height (m), which authored pelvis heights are designed for.
pub(super) const MANNEQUIN_PELVIS_HEIGHT_M: f32 = 0.95;

impl Rig {
    /// Looks the joints up; `None` if the skeleton is not shaped like the mannequin (missing
    /// joints, non-identity rest rotations, a leg not hanging down, no foot sockets).
    pub fn new(skeleton: &Skeleton, bones: &HumanoidMap) -> Option<Self> {
        let identity_rest = skeleton
            .rest_local()
            .iter()
            .all(|t| t.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6) && t.scale == Vec3::ONE);
        if !identity_rest {
            return None;
        }
        let pelvis = bones.pelvis?;
        let root = skeleton.parent(pelvis)?;
        let spine = match bones.spine.as_slice() {
            [a, b, c, ..] => [*a, *b, *c],
            _ => return None,
        };
        let legs = [
            leg_rig(skeleton, bones, Side::Left)?,
            leg_rig(skeleton, bones, Side::Right)?,
        ];
        let arms = [
            arm_rig(skeleton, bones, Side::Left)?,
            arm_rig(skeleton, bones, Side::Right)?,
        ];
        let left = &legs[Side::Left.index()];
        let hip_width_offset_m = left.hip_pelvis_local.x - MANNEQUIN_HIP_HALF_WIDTH_M;
        let sole_width_offset_m =
            left.hip_pelvis_local.x + left.ball_socket_foot_local.x - MANNEQUIN_HIP_HALF_WIDTH_M;
        Some(Self {
            skeleton: skeleton.clone(),
            root,
            pelvis,
            spine,
            neck: bones.neck?,
            head: bones.head?,
            legs,
            arms,
            pelvis_height_offset_m: skeleton.rest_position_model(pelvis).y
                - MANNEQUIN_PELVIS_HEIGHT_M,
            hip_width_offset_m,
            sole_width_offset_m,
        })
    }

    pub fn num_joints(&self) -> usize {
        self.skeleton.num_joints()
    }

    /// Rest pose, each joint relative to its parent.
    pub fn rest_local(&self) -> &[Transform] {
        self.skeleton.rest_local()
    }

    pub fn leg(&self, side: Side) -> &LegRig {
        &self.legs[side.index()]
    }

    /// `x`, a left-side ankle distance from the midline designed for the mannequin, for
    /// this rig's hips, on `side` (the right's negated).
    pub fn out(&self, side: Side, x: f32) -> f32 {
        side_sign(side) * (x + self.hip_width_offset_m)
    }

    /// The same for a ball socket's distance (a sole placed on the ground).
    pub fn sole_out(&self, side: Side, x: f32) -> f32 {
        side_sign(side) * (x + self.sole_width_offset_m)
    }
}

fn leg_rig(skeleton: &Skeleton, bones: &HumanoidMap, side: Side) -> Option<LegRig> {
    let leg = bones.leg(side).ok()?;
    let ball = leg.ball?;
    let sockets = bones.feet[side.index()]?;
    let rest = skeleton.rest_local();
    let calf_offset = rest[leg.calf].translation;
    let foot_offset = rest[leg.foot].translation;
    // The knee solve assumes a leg hanging straight down in the rest pose.
    let hangs_down = calf_offset.normalize_or_zero().dot(Vec3::NEG_Y) > 0.999
        && foot_offset.normalize_or_zero().dot(Vec3::NEG_Y) > 0.999;
    if !hangs_down || skeleton.parent(leg.thigh) != bones.pelvis {
        return None;
    }
    Some(LegRig {
        thigh: leg.thigh,
        calf: leg.calf,
        foot: leg.foot,
        ball,
        hip_pelvis_local: rest[leg.thigh].translation,
        thigh_length_m: calf_offset.length(),
        calf_length_m: foot_offset.length(),
        ball_socket_foot_local: sockets.ball_foot_local,
        heel_socket_foot_local: sockets.heel_foot_local,
    })
}

fn arm_rig(skeleton: &Skeleton, bones: &HumanoidMap, side: Side) -> Option<ArmRig> {
    let arm = bones.arm(side)?;
    let clavicle = skeleton.parent(arm.upperarm)?;
    let rest = skeleton.rest_local();
    let outward = side_sign(side) * Vec3::X;
    let lower_offset = rest[arm.lowerarm].translation;
    let hand_offset = rest[arm.hand].translation;
    // The arm solve assumes a T-pose: both arm bones point straight out to the side.
    let t_pose = lower_offset.normalize_or_zero().dot(outward) > 0.999
        && hand_offset.normalize_or_zero().dot(outward) > 0.999;
    if !t_pose {
        return None;
    }
    Some(ArmRig {
        side,
        clavicle,
        upperarm: arm.upperarm,
        lowerarm: arm.lowerarm,
        hand: arm.hand,
        fingers: skeleton.children(arm.hand).collect(),
        shoulder_clavicle_local: rest[arm.upperarm].translation,
        upperarm_length_m: lower_offset.length(),
        lowerarm_length_m: hand_offset.length(),
    })
}

/// +1 for the left side (+X), −1 for the right.
pub(super) fn side_sign(side: Side) -> f32 {
    match side {
        Side::Left => 1.0,
        Side::Right => -1.0,
    }
}

/// The rotation mirrored across the model's YZ plane (left ↔ right): rotations about X keep
/// their angle, rotations about Y and Z flip. Authoring writes left-side rotations and
/// mirrors them for the right.
pub(super) fn mirror_for(side: Side, rotation: Quat) -> Quat {
    match side {
        Side::Left => rotation,
        Side::Right => Quat::from_xyzw(rotation.x, -rotation.y, -rotation.z, rotation.w),
    }
}
