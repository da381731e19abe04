//! One authored key as model-space intent — where the pelvis is, where each foot's ball
//! socket touches, where the hands go, which way the head looks — and its solve into local
//! joint rotations (local = parent_model⁻¹ · model).

use glam::{Mat3, Quat, Vec3};

use super::limb_ik::{solve_limb, LimbRest};
use super::rig::{mirror_for, side_sign, ArmRig, LegRig, Rig};
use crate::bone_map::Side;
use crate::ik::required_drop_m;
use crate::pose::nlerp;
use crate::skeleton::Transform;

/// Knee solves are clamped at this share of the leg length; a gait key that needs the
/// clamp is an authoring bug (its pelvis should have come down instead).
pub(super) const MAX_LIMB_EXTENSION: f32 = 0.999;
/// Share of the chest-to-head correction the neck takes; the head takes the rest.
const NECK_SHARE: f32 = 0.4;

/// One foot's placement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FootTarget {
    /// Ball socket (the sole under the ball joint), model space (m).
    pub ball_socket_model: Vec3,
    /// Heading about +Y (rad); 0 points the toes along +Z.
    pub yaw_rad: f32,
    /// Pitch about the foot's own X axis (rad): positive lifts the heel (toes down),
    /// negative lifts the toes (heel strike).
    pub pitch_rad: f32,
    /// Toe (ball joint) bend relative to the foot (rad), same sign as the pitch.
    pub toe_bend_rad: f32,
}

impl FootTarget {
    /// A foot whose toes stay flat on the ground while its heel is up.
    pub fn with_flat_toes(ball_socket_model: Vec3, yaw_rad: f32, pitch_rad: f32) -> Self {
        Self {
            ball_socket_model,
            yaw_rad,
            pitch_rad,
            toe_bend_rad: -pitch_rad.max(0.0),
        }
    }

    /// A flat foot whose ankle (foot joint) is at `ankle_model`.
    pub fn flat_at_ankle(leg: &LegRig, ankle_model: Vec3, yaw_rad: f32) -> Self {
        let rotation = Quat::from_rotation_y(yaw_rad);
        Self::with_flat_toes(
            ankle_model + rotation * leg.ball_socket_foot_local,
            yaw_rad,
            0.0,
        )
    }

    /// A foot of pitch `pitch_rad` whose ankle is at `ankle_model` (for feet in the air).
    pub fn at_ankle(leg: &LegRig, ankle_model: Vec3, yaw_rad: f32, pitch_rad: f32) -> Self {
        let target = Self::with_flat_toes(Vec3::ZERO, yaw_rad, pitch_rad);
        Self {
            ball_socket_model: ankle_model + target.rotation_model() * leg.ball_socket_foot_local,
            toe_bend_rad: 0.0,
            ..target
        }
    }

    /// The foot joint's model rotation: heading, then pitch.
    pub fn rotation_model(&self) -> Quat {
        Quat::from_rotation_y(self.yaw_rad) * Quat::from_rotation_x(self.pitch_rad)
    }

    /// Where the ankle (foot joint) must be for the ball socket to land on target.
    pub fn ankle_model(&self, leg: &LegRig) -> Vec3 {
        self.ball_socket_model - self.rotation_model() * leg.ball_socket_foot_local
    }
}

/// An arm posed by angles relative to the chest (spine_03) frame, for swinging arms.
/// Angles are for the left arm; the right arm mirrors them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ArmSwing {
    /// How far the upper arm comes down from the T-pose (rad; π/2 hangs straight down).
    pub lower_rad: f32,
    /// Fore-aft swing of the upper arm about the chest's X axis (rad, positive forward).
    pub swing_rad: f32,
    /// Elbow bend (rad, 0 straight).
    pub elbow_flex_rad: f32,
}

/// What an arm reaches for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ArmTarget {
    Swing(ArmSwing),
    /// Wrist (hand joint) at a model-space point, elbow bent toward a model direction
    /// (not mirrored for the right arm).
    ReachModel {
        wrist_model: Vec3,
        elbow_pole_model: Vec3,
    },
    /// Wrist at an offset from the chest joint measured along the facing axes (the root's
    /// heading), so a held weapon keeps pointing ahead while the spine twists; the pole is
    /// a direction in the same axes. Neither is mirrored for the right arm.
    ReachFromChest {
        wrist_offset_facing: Vec3,
        elbow_pole_facing: Vec3,
    },
}

/// One arm's pose, including the clavicle and hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ArmPose {
    pub target: ArmTarget,
    /// Clavicle raise (rad, positive up) and protraction (rad, positive forward).
    pub clavicle_raise_rad: f32,
    pub clavicle_forward_rad: f32,
    /// Hand rotation relative to the forearm (written for the left hand; the right mirrors
    /// it), unless `hand_rotation_model` is set: then the hand's rotation in the facing
    /// frame (left hand; the right mirrors it).
    pub wrist_local: Quat,
    pub hand_rotation_model: Option<Quat>,
    /// Finger curl toward the palm (rad).
    pub finger_curl_rad: f32,
}

impl ArmPose {
    pub fn swing(lower_rad: f32, swing_rad: f32, elbow_flex_rad: f32) -> Self {
        Self {
            target: ArmTarget::Swing(ArmSwing {
                lower_rad,
                swing_rad,
                elbow_flex_rad,
            }),
            clavicle_raise_rad: 0.0,
            clavicle_forward_rad: 0.0,
            wrist_local: Quat::IDENTITY,
            hand_rotation_model: None,
            finger_curl_rad: 0.35,
        }
    }

    pub fn reach(target: ArmTarget) -> Self {
        Self {
            target,
            ..Self::swing(0.0, 0.0, 0.0)
        }
    }
}

/// A full-body key in model space.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BodyTargets {
    /// Heading of the root joint about +Y (rad); 0 except while turning in place.
    pub root_yaw_rad: f32,
    pub pelvis_position_model: Vec3,
    pub pelvis_rotation_model: Quat,
    /// Local rotations of spine_01..03 (each relative to its parent).
    pub spine_local: [Quat; 3],
    /// Head orientation in model space (level and facing ahead unless looking around).
    pub head_rotation_model: Quat,
    /// Indexed by [`Side::index`].
    pub feet: [FootTarget; 2],
    pub arms: [ArmPose; 2],
}

impl BodyTargets {
    /// Heading rotation of the root.
    pub fn facing(&self) -> Quat {
        Quat::from_rotation_y(self.root_yaw_rad)
    }

    fn pelvis_model(&self) -> Transform {
        Transform::from_translation_rotation(self.pelvis_position_model, self.pelvis_rotation_model)
    }

    /// How far the pelvis must come down (m) for both legs to reach their feet within
    /// `max_extension` of the leg length.
    pub fn pelvis_drop_for_reach(&self, rig: &Rig, max_extension: f32) -> f32 {
        let [left, right] = self.leg_drops_for_reach(rig, max_extension);
        left.max(right)
    }

    /// How far the pelvis must come down (m) for each leg (by [`Side::index`]) to reach
    /// its foot within `max_extension` of the leg length.
    pub fn leg_drops_for_reach(&self, rig: &Rig, max_extension: f32) -> [f32; 2] {
        let pelvis = self.pelvis_model();
        [0, 1].map(|i| {
            let (leg, foot) = (&rig.legs[i], &self.feet[i]);
            let hip = transform_point(&pelvis, leg.hip_pelvis_local);
            required_drop_m(hip, foot.ankle_model(leg), leg.length_m(), max_extension)
        })
    }
}

/// One key's local pose with what the solve had to give up.
#[derive(Clone, Debug)]
pub(super) struct SolvedKey {
    /// One local transform per joint.
    pub local: Vec<Transform>,
    /// Limbs whose target was out of reach (the end stops short).
    pub clamped_limbs: usize,
}

/// Solves a key: pelvis and spine as given, head toward its model rotation, arms by angles
/// or reach, legs by the analytic knee solve onto the foot targets.
pub(super) fn solve_key(rig: &Rig, body: &BodyTargets) -> SolvedKey {
    let mut local = rig.rest_local().to_vec();
    let facing = body.facing();
    let root_model =
        Transform::from_translation_rotation(rig.rest_local()[rig.root].translation, facing);
    local[rig.root].rotation = facing;
    let root_inverse = facing.inverse();
    local[rig.pelvis] = Transform::from_translation_rotation(
        root_inverse * (body.pelvis_position_model - root_model.translation),
        (root_inverse * body.pelvis_rotation_model).normalize(),
    );
    let pelvis_model = body.pelvis_model();

    let mut chest_model = pelvis_model;
    for (&joint, &rotation) in rig.spine.iter().zip(&body.spine_local) {
        local[joint].rotation = rotation.normalize();
        chest_model = chest_model.mul_transform(&local[joint]);
    }

    // The neck takes part of the turn from the chest to the head's aim, the head the rest.
    let chest_to_head = (chest_model.rotation.inverse() * body.head_rotation_model).normalize();
    local[rig.neck].rotation = nlerp(Quat::IDENTITY, chest_to_head, NECK_SHARE);
    let neck_model = chest_model.mul_transform(&local[rig.neck]);
    local[rig.head].rotation =
        (neck_model.rotation.inverse() * body.head_rotation_model).normalize();

    let mut clamped_limbs = 0;
    for (arm, pose) in rig.arms.iter().zip(&body.arms) {
        clamped_limbs += usize::from(solve_arm(arm, pose, &chest_model, facing, &mut local));
    }
    for (leg, foot) in rig.legs.iter().zip(&body.feet) {
        clamped_limbs += usize::from(solve_leg(leg, foot, &pelvis_model, &mut local));
    }
    SolvedKey {
        local,
        clamped_limbs,
    }
}

/// Poses one arm; returns whether its reach was clamped.
fn solve_arm(
    arm: &ArmRig,
    pose: &ArmPose,
    chest_model: &Transform,
    facing: Quat,
    local: &mut [Transform],
) -> bool {
    let side = arm.side;
    let clavicle_left = Quat::from_rotation_y(-pose.clavicle_forward_rad)
        * Quat::from_rotation_z(pose.clavicle_raise_rad);
    local[arm.clavicle].rotation = mirror_for(side, clavicle_left);
    let clavicle_model = chest_model.mul_transform(&local[arm.clavicle]);
    let shoulder_model = transform_point(&clavicle_model, arm.shoulder_clavicle_local);

    let reach = |wrist_model: Vec3, pole_model: Vec3, local: &mut [Transform]| {
        let solution = solve_limb(
            shoulder_model,
            wrist_model,
            pole_model,
            &arm_rest(arm),
            MAX_LIMB_EXTENSION,
        );
        local[arm.upperarm].rotation =
            (clavicle_model.rotation.inverse() * solution.upper_rotation_model).normalize();
        local[arm.lowerarm].rotation =
            (solution.upper_rotation_model.inverse() * solution.lower_rotation_model).normalize();
        solution.clamped
    };
    let clamped = match pose.target {
        ArmTarget::Swing(swing) => {
            // Lower the arm out of the T-pose, then swing it fore-aft, in the chest frame.
            let in_chest_left =
                Quat::from_rotation_x(-swing.swing_rad) * Quat::from_rotation_z(-swing.lower_rad);
            let upper_model = chest_model.rotation * mirror_for(side, in_chest_left);
            local[arm.upperarm].rotation =
                (clavicle_model.rotation.inverse() * upper_model).normalize();
            // The elbow bends the forearm toward the upper arm's +Z (forward when hanging).
            local[arm.lowerarm].rotation =
                mirror_for(side, Quat::from_rotation_y(-swing.elbow_flex_rad));
            false
        }
        ArmTarget::ReachModel {
            wrist_model,
            elbow_pole_model,
        } => reach(wrist_model, elbow_pole_model, local),
        ArmTarget::ReachFromChest {
            wrist_offset_facing,
            elbow_pole_facing,
        } => {
            let wrist_model = chest_model.translation + facing * wrist_offset_facing;
            reach(wrist_model, facing * elbow_pole_facing, local)
        }
    };

    local[arm.hand].rotation = match pose.hand_rotation_model {
        Some(hand_left) => {
            let forearm_model = clavicle_model
                .rotation
                .mul_quat(local[arm.upperarm].rotation)
                .mul_quat(local[arm.lowerarm].rotation);
            (forearm_model.inverse() * facing * mirror_for(side, hand_left)).normalize()
        }
        None => mirror_for(side, pose.wrist_local),
    };
    // Fingers point along the arm with the palm down in the T-pose: curling is about −Z.
    let curl = mirror_for(side, Quat::from_rotation_z(-pose.finger_curl_rad));
    for &finger in &arm.fingers {
        local[finger].rotation = curl;
    }
    clamped
}

/// Poses one leg so its ball socket lands on the foot target; returns whether the knee
/// solve was clamped.
fn solve_leg(
    leg: &LegRig,
    foot: &FootTarget,
    pelvis_model: &Transform,
    local: &mut [Transform],
) -> bool {
    let hip_model = transform_point(pelvis_model, leg.hip_pelvis_local);
    let foot_rotation = foot.rotation_model();
    let pole = knee_pole_model(pelvis_model.rotation, foot.yaw_rad);
    let solution = solve_limb(
        hip_model,
        foot.ankle_model(leg),
        pole,
        &leg_rest(leg),
        MAX_LIMB_EXTENSION,
    );
    local[leg.thigh].rotation =
        (pelvis_model.rotation.inverse() * solution.upper_rotation_model).normalize();
    local[leg.calf].rotation =
        (solution.upper_rotation_model.inverse() * solution.lower_rotation_model).normalize();
    local[leg.foot].rotation =
        (solution.lower_rotation_model.inverse() * foot_rotation).normalize();
    local[leg.ball].rotation = Quat::from_rotation_x(foot.toe_bend_rad);
    solution.clamped
}

/// Knees point ahead: between the pelvis's facing and the foot's, never backward.
fn knee_pole_model(pelvis_rotation_model: Quat, foot_yaw_rad: f32) -> Vec3 {
    let pelvis_forward = pelvis_rotation_model * Vec3::Z;
    let pole = Vec3::new(pelvis_forward.x, 0.0, pelvis_forward.z).normalize_or_zero()
        + Quat::from_rotation_y(foot_yaw_rad) * Vec3::Z;
    pole.normalize_or(Vec3::Z)
}

fn leg_rest(leg: &LegRig) -> LimbRest {
    LimbRest {
        upper_length_m: leg.thigh_length_m,
        lower_length_m: leg.calf_length_m,
        bone_axis: Vec3::NEG_Y,
        hinge_axis: Vec3::X,
    }
}

fn arm_rest(arm: &ArmRig) -> LimbRest {
    // Left arm along +X bending its forearm forward about −Y; the right mirrors.
    let sign = side_sign(arm.side);
    LimbRest {
        upper_length_m: arm.upperarm_length_m,
        lower_length_m: arm.lowerarm_length_m,
        bone_axis: Vec3::X * sign,
        hinge_axis: Vec3::NEG_Y * sign,
    }
}

/// A left-side point or direction mirrored for `side`.
pub(super) fn mirror_point(side: Side, point: Vec3) -> Vec3 {
    Vec3::new(point.x * side_sign(side), point.y, point.z)
}

/// A rigid transform applied to a point (the skeleton has unit scale).
pub(super) fn transform_point(transform: &Transform, point: Vec3) -> Vec3 {
    transform.translation + transform.rotation * point
}

/// Rotation from three orthonormal basis columns (where local X, Y, Z end up).
pub(super) fn rotation_from_axes(x: Vec3, y: Vec3, z: Vec3) -> Quat {
    Quat::from_mat3(&Mat3::from_cols(x, y, z)).normalize()
}
