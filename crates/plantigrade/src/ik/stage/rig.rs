//! The bones foot IK drives, found once per skeleton: each leg's chain, foot sockets and
//! length, and the joints below each thigh that a solve recomputes.

use glam::Vec3;

use super::{AnimatedFoot, FootIkError};
use crate::bone_map::{FootSockets, HumanoidMap, LegChain, Side};
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Skeleton;

/// The joints and foot points of one leg.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegRig {
    pub chain: LegChain,
    pub sockets: FootSockets,
    /// Thigh + calf length in the rest pose (m).
    pub leg_length_m: f32,
    /// For an IK-target foot ([`LegChain::foot_is_ik_target`]): the ankle in the calf's
    /// local frame (the foot joint's rest position), the shin's end that the legs are solved
    /// for. `None` for a foot below its calf.
    pub ankle_in_calf: Option<Vec3>,
}

impl LegRig {
    /// Where the shin ends in `model` (model space): the foot joint, or for an IK-target foot
    /// the virtual ankle fixed in the calf's frame (the clips put the foot joint there).
    pub fn ankle_model(&self, model: &ModelPose) -> Vec3 {
        match self.ankle_in_calf {
            Some(local) => model.joints_model()[self.chain.calf].transform_point3(local),
            None => model.position_model(self.chain.foot),
        }
    }
}

/// The bones foot IK drives, found once per skeleton.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootRig {
    /// The joint the pelvis drop moves: the mapped pelvis, or on a rig whose thighs hang
    /// from a joint above it (Quaternius: `Body → Hips`, `Body → UpperLeg.L`) that joint,
    /// the lowest that carries both thighs and the pelvis, so the hips go down with the
    /// trunk (moving `Hips` alone left the legs up and the feet over lower ground).
    pub pelvis: usize,
    pub legs: [LegRig; 2],
    /// Each leg's joints from the thigh down (and, for an IK-target foot, the foot and the
    /// joints below it), parent-first: after the legs are solved only these need model
    /// transforms again. `None` for a leg with more than
    /// [`LegJoints::MAX`] (then the whole skeleton is recomputed).
    pub leg_joints: [Option<LegJoints>; 2],
}

/// A leg's joints from the thigh down, parent-first (fixed size: no allocation per tick).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegJoints {
    joints: [usize; LegJoints::MAX],
    len: usize,
}

impl LegJoints {
    pub const MAX: usize = 16;

    /// `thigh`, `foot` and every joint below them, in skeleton (parent-first) order; `None`
    /// past [`LegJoints::MAX`].
    fn below(skeleton: &Skeleton, thigh: usize, foot: usize) -> Option<LegJoints> {
        let mut set = LegJoints {
            joints: [0; LegJoints::MAX],
            len: 0,
        };
        let mut inside = vec![false; skeleton.num_joints()];
        for joint in 0..skeleton.num_joints() {
            let below = joint == thigh
                || joint == foot
                || skeleton.parent(joint).is_some_and(|p| inside[p]);
            if below {
                inside[joint] = true;
                *set.joints.get_mut(set.len)? = joint;
                set.len += 1;
            }
        }
        Some(set)
    }

    pub fn as_slice(&self) -> &[usize] {
        &self.joints[..self.len]
    }
}

/// The lowest joint at or above `pelvis` that both `thighs` hang below (`pelvis` when none
/// does: legs in another branch are left as they are).
fn legs_carrier(skeleton: &Skeleton, pelvis: usize, thighs: [usize; 2]) -> usize {
    let carries = |joint: usize, thigh: usize| {
        let mut at = Some(thigh);
        while let Some(j) = at {
            if j == joint {
                return true;
            }
            at = skeleton.parent(j);
        }
        false
    };
    let mut at = Some(pelvis);
    while let Some(joint) = at {
        if thighs.iter().all(|&t| carries(joint, t)) {
            return joint;
        }
        at = skeleton.parent(joint);
    }
    pelvis
}

impl FootRig {
    /// Finds the pelvis and both legs (with sockets) of `map` on `skeleton`.
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap) -> Result<FootRig, FootIkError> {
        let pelvis = map.pelvis.ok_or(FootIkError::NoPelvis)?;
        let rest = Pose::rest(skeleton);
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(skeleton, &rest, &mut model)?;
        let num_joints = skeleton.num_joints();
        let mut legs = [None, None];
        for side in Side::BOTH {
            let chain = map.leg(side)?;
            for joint in [pelvis, chain.thigh, chain.calf, chain.foot] {
                if joint >= num_joints {
                    return Err(FootIkError::JointOutOfRange { joint, num_joints });
                }
            }
            let sockets = map.feet[side.index()].ok_or(FootIkError::NoSockets(match side {
                Side::Left => "left",
                Side::Right => "right",
            }))?;
            let hip = model.position_model(chain.thigh);
            let knee = model.position_model(chain.calf);
            let ankle = model.position_model(chain.foot);
            let ankle_in_calf = chain
                .foot_is_ik_target
                .then(|| chain.ankle_in_calf(skeleton))
                .filter(|p| p.is_finite());
            if chain.foot_is_ik_target && ankle_in_calf.is_none() {
                return Err(FootIkError::JointOutOfRange {
                    joint: chain.foot,
                    num_joints,
                });
            }
            legs[side.index()] = Some(LegRig {
                chain,
                sockets,
                leg_length_m: hip.distance(knee) + knee.distance(ankle),
                ankle_in_calf,
            });
        }
        match legs {
            [Some(left), Some(right)] => Ok(FootRig {
                pelvis: legs_carrier(skeleton, pelvis, [left.chain.thigh, right.chain.thigh]),
                legs: [left, right],
                leg_joints: [left, right]
                    .map(|leg| LegJoints::below(skeleton, leg.chain.thigh, leg.chain.foot)),
            }),
            _ => Err(FootIkError::NoPelvis),
        }
    }

    /// The animated feet of a model pose (model space).
    pub fn animated_feet(&self, model: &ModelPose) -> [AnimatedFoot; 2] {
        self.legs.map(|leg| {
            let foot = model.joints_model()[leg.chain.foot];
            let (_, rotation_model, _) = foot.to_scale_rotation_translation();
            AnimatedFoot {
                ankle_model: foot.translation.into(),
                heel_model: foot.transform_point3(leg.sockets.heel_foot_local),
                ball_model: foot.transform_point3(leg.sockets.ball_foot_local),
                rotation_model,
                off_shin_m: leg.ankle_in_calf.map_or(0.0, |_| {
                    Some(Vec3::from(foot.translation).distance(leg.ankle_model(model)))
                        .filter(|d| d.is_finite())
                        .unwrap_or(0.0)
                }),
            }
        })
    }
}
