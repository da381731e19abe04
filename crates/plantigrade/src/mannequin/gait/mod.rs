//! The gait generator: walks, runs, the sprint and crouch walks authored from foot
//! trajectories, so a planted foot does not slide (SPEC ANIM-5, QUAL-3).
//!
//! Each foot is planned in the *ground frame* (the world, with the body moving at the clip's
//! velocity `v`): while planted its ball socket is a fixed ground point, so in model space
//! (where the clip lives) it moves at exactly −v. Between plants the foot swings to the
//! next landing point one stride (`v · cycle`) ahead. The cycle, for each foot, measured
//! from its contact start:
//!
//! 1. stance (contact curve 1, ball socket fixed): an optional landing roll (heel coming
//!    down onto a ball that landed first), flat, then heel-off rolling about the ball with
//!    the toes counter-rotated so they stay flat;
//! 2. swing (contact 0): an optional toe lift pivoting about the heel (walking backward),
//!    a free swing (in the ground frame the foot leaves and arrives at rest, speeding up
//!    and braking over short ramps, with a lift and, for sideways gaits, a bulge around
//!    the other foot), and a heel strike pivoting about the planted heel until the ball
//!    comes down. The free swing rises straight up off the ground before it moves and
//!    comes straight down onto its landing point once it has stopped, so no footfall
//!    skids along the floor (QUAL-4).
//!
//! The left foot's contact starts at phase 0 and the right's at phase ½ in every gait clip,
//! so blend spaces can sync them. The pelvis bobs, sways toward the stance foot, rolls
//! (swing side drops) and yaws with the stepping leg; it comes down smoothly wherever a leg
//! could not otherwise reach. The spine counter-rotates, the head stays level and facing
//! ahead, the arms swing against the legs.
//!
//! Submodules: `style` holds the tuning of each family, `params` resolves it for one
//! direction, `foot` plans one foot.

mod foot;
mod params;
mod style;

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use self::foot::FootPlan;
pub(super) use self::params::GaitParams;
use self::style::{GaitStyle, CROUCH_WALK, RUN, SPRINT, WALK};
use super::body::{ArmPose, BodyTargets};
use super::keys::{
    clip_from_keys, contact_curve, key_time_s, solve_keys, AuthoredClip, JointSet, PelvisFit,
};
use super::rig::{side_sign, Rig};
use crate::bone_map::Side;
use crate::clip::ClipError;

/// Gait families (SPEC MOVE-3 speeds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GaitKind {
    Walk,
    Run,
    Sprint,
    CrouchWalk,
}

impl GaitKind {
    /// Clip name prefix (`Walk_F`, `Crouch_Walk_BL`, `Sprint`).
    pub fn prefix(self) -> &'static str {
        match self {
            GaitKind::Walk => "Walk",
            GaitKind::Run => "Run",
            GaitKind::Sprint => "Sprint",
            GaitKind::CrouchWalk => "Crouch_Walk",
        }
    }

    fn style(self) -> &'static GaitStyle {
        match self {
            GaitKind::Walk => &WALK,
            GaitKind::Run => &RUN,
            GaitKind::Sprint => &SPRINT,
            GaitKind::CrouchWalk => &CROUCH_WALK,
        }
    }
}

/// The eight ground directions by clip-name suffix, as (x, z) before normalising:
/// F = +Z, L = +X (the character's left). The character always faces +Z.
pub(super) const DIRECTIONS: [(&str, [f32; 2]); 8] = [
    ("F", [0.0, 1.0]),
    ("FL", [1.0, 1.0]),
    ("L", [1.0, 0.0]),
    ("BL", [1.0, -1.0]),
    ("B", [0.0, -1.0]),
    ("BR", [-1.0, -1.0]),
    ("R", [-1.0, 0.0]),
    ("FR", [-1.0, 1.0]),
];

/// Unit ground direction in model space from a [`DIRECTIONS`] entry.
pub(super) fn direction_model([x, z]: [f32; 2]) -> Vec3 {
    Vec3::new(x, 0.0, z).normalize_or(Vec3::Z)
}

/// Builds one gait clip: keys, contact curves, footstep events, authored velocity.
pub(super) fn build_gait_clip(
    rig: &Rig,
    name: &str,
    params: &GaitParams,
) -> Result<AuthoredClip, ClipError> {
    let plans = [
        FootPlan::new(params, rig, Side::Left),
        FootPlan::new(params, rig, Side::Right),
    ];
    let bodies = (0..params.cycle_keys())
        .map(|key| body_at_key(params, &plans, key))
        .collect();
    let fit = PelvisFit {
        smoothing_keys: 3 * params.keys_per_frame,
        max_dip_m: params.max_dip_m,
    };
    let keys = solve_keys(rig, bodies, true, fit, params.key_rate_hz());
    let mut clip = clip_from_keys(rig, name, &keys, JointSet::FullBody, true)?;
    for (side, curve_name, event_name) in [
        (Side::Left, "FootContact_L", "Footstep_L"),
        (Side::Right, "FootContact_R", "Footstep_R"),
    ] {
        let first_frame = params.contact_start_frame(side);
        let per = params.keys_per_frame;
        let planted = [(
            first_frame * per,
            (first_frame + params.stance_frames) * per,
        )];
        let curve = contact_curve(
            curve_name,
            &planted,
            Some(params.cycle_keys()),
            params.key_rate_hz(),
        )?;
        clip = clip
            .with_curve(curve)?
            .with_event(event_name, key_time_s(first_frame))?;
    }
    let clip = clip.with_authored_velocity(params.travel_velocity_model_m_s())?;
    Ok(AuthoredClip {
        clip,
        stats: keys.stats,
    })
}

/// The whole body at one key of the cycle.
fn body_at_key(params: &GaitParams, plans: &[FootPlan; 2], key: usize) -> BodyTargets {
    let phase = key as f32 / params.cycle_keys() as f32;
    let duty = (params.stance_frames + 1) as f32 / params.cycle_frames as f32;
    let direction = params.direction_model;
    // +1 at the left foot's mid-stance, −1 at the right's.
    let toward_left = (TAU * (phase - duty / 2.0)).cos();
    // +1 at both mid-stances, −1 between them.
    let twice_per_cycle = (2.0 * TAU * (phase - duty / 2.0)).cos();
    // Negative at the left contact: the left hip comes forward with the left step.
    let step_yaw = -params.pelvis_yaw_rad * direction.z * (TAU * phase).cos();

    let pelvis_position_model = Vec3::new(
        params.pelvis_sway_m * toward_left,
        params.pelvis_height_m + params.pelvis_bob_m * twice_per_cycle,
        0.0,
    );
    let pelvis_roll =
        params.pelvis_roll_rad * toward_left - 0.5 * params.pelvis_lean_rad * direction.x;
    let pelvis_rotation_model = Quat::from_rotation_y(step_yaw)
        * Quat::from_rotation_x(params.pelvis_lean_rad * direction.z)
        * Quat::from_rotation_z(pelvis_roll);

    // Each spine joint takes a third of the counter-turn, the forward bend and most of the
    // roll back, so the chest turns against the pelvis and stays level.
    let spine_each = Quat::from_rotation_y(-(1.0 + params.chest_counter_yaw) * step_yaw / 3.0)
        * Quat::from_rotation_x(params.spine_lean_rad / 3.0)
        * Quat::from_rotation_z(-0.8 * pelvis_roll / 3.0);

    let feet = [Side::Left, Side::Right]
        .map(|side| plans[side.index()].target(params.since_contact_s(side, key)));
    let body = BodyTargets {
        root_yaw_rad: 0.0,
        pelvis_position_model,
        pelvis_rotation_model,
        spine_local: [spine_each; 3],
        head_rotation_model: Quat::IDENTITY,
        feet,
        arms: [Side::Left, Side::Right].map(|side| arm_at_phase(params, side, phase)),
    };
    turn_hips(body, params.hip_yaw_rad)
}

/// Turns a body planned in the gait frame into model space by `hip_yaw_rad`: the pelvis
/// and feet turn about +Y through the origin (a rigid turn, so planted feet stay planted),
/// each spine joint turns a third of the way back so the chest, arms and head keep facing
/// ahead (+Z).
fn turn_hips(mut body: BodyTargets, hip_yaw_rad: f32) -> BodyTargets {
    if hip_yaw_rad == 0.0 {
        return body;
    }
    let turn = Quat::from_rotation_y(hip_yaw_rad);
    body.pelvis_position_model = turn * body.pelvis_position_model;
    body.pelvis_rotation_model = turn * body.pelvis_rotation_model;
    for foot in &mut body.feet {
        foot.ball_socket_model = turn * foot.ball_socket_model;
        foot.yaw_rad += hip_yaw_rad;
    }
    let back_each = Quat::from_rotation_y(-hip_yaw_rad / 3.0);
    for spine in &mut body.spine_local {
        *spine = back_each * *spine;
    }
    body
}

/// Arm swing against the same-side leg: the left arm is back at the left contact (left
/// foot forward) and forward half a cycle later; backward gaits swap, sideways gaits swing
/// a little.
fn arm_at_phase(params: &GaitParams, side: Side, phase: f32) -> ArmPose {
    let direction = params.direction_model;
    let amplitude = params.arm_swing_rad * (0.3 + 0.7 * direction.z.abs());
    let against_legs = if direction.z < -0.1 { -1.0 } else { 1.0 };
    // Arms trail the legs a little.
    let swing_phase = (TAU * (phase - 0.04)).cos();
    let left_forward = -against_legs * swing_phase;
    let forward = side_sign(side) * left_forward;
    let swing_rad = params.arm_forward_rad + amplitude * forward;
    let elbow_flex_rad =
        params.elbow_flex_rad + params.elbow_swing_flex_rad * 0.5 * (1.0 + forward);
    ArmPose {
        clavicle_forward_rad: 0.2 * amplitude * forward,
        finger_curl_rad: params.finger_curl_rad,
        ..ArmPose::swing(params.arm_lower_rad, swing_rad, elbow_flex_rad)
    }
}
