//! Clips that are poses with a little life in them: standing and crouched idles, the three
//! jump phases, the two landings, pushing against a wall and the upper-body aim overlay.
//! Planted feet are solved with the same knee solve as the gaits, so they stay put.

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Quat, Vec3};

use super::body::{mirror_point, rotation_from_axes, ArmPose, ArmTarget, BodyTargets, FootTarget};
use super::easing::smoothstep;
use super::keys::{
    clip_from_keys, constant_curve, solve_keys, AuthoredClip, JointSet, PelvisFit, SolvedKeys,
    KEY_RATE_HZ,
};
use super::rig::{side_sign, Rig};
use crate::bone_map::Side;
use crate::clip::ClipError;

/// Standing pelvis height (m): knees just off straight.
pub(super) const STAND_PELVIS_HEIGHT_M: f32 = 0.925;
/// Standing feet: ankles this far from the midline (m) and toes turned out (rad).
const STAND_ANKLE_HALF_WIDTH_M: f32 = 0.11;
const STAND_TOE_OUT_RAD: f32 = 0.12;
/// Arms hanging relaxed: lowered from the T-pose, a little forward, elbows soft (rad).
const RELAXED_ARM_LOWER_RAD: f32 = 1.36;
const RELAXED_ARM_FORWARD_RAD: f32 = 0.06;
const RELAXED_ELBOW_RAD: f32 = 0.22;

/// A planted foot of the standing pose: ankle beside the hip, toes turned out a little.
fn standing_foot(rig: &Rig, side: Side) -> FootTarget {
    let sign = side_sign(side);
    FootTarget::flat_at_ankle(
        rig.leg(side),
        Vec3::new(
            rig.out(side, STAND_ANKLE_HALF_WIDTH_M),
            ankle_height_m(rig, side),
            0.0,
        ),
        sign * STAND_TOE_OUT_RAD,
    )
}

/// Height of the ankle above a flat sole (m).
fn ankle_height_m(rig: &Rig, side: Side) -> f32 {
    -rig.leg(side).ball_socket_foot_local.y
}

/// Both standing feet, side by side.
pub(super) fn standing_feet(rig: &Rig) -> [FootTarget; 2] {
    [
        standing_foot(rig, Side::Left),
        standing_foot(rig, Side::Right),
    ]
}

/// Arms hanging at the sides; `sway_rad` swings them a little (the right mirrors the left).
pub(super) fn relaxed_arms(sway_rad: f32) -> [ArmPose; 2] {
    [Side::Left, Side::Right].map(|side| {
        let swing = RELAXED_ARM_FORWARD_RAD + side_sign(side) * sway_rad;
        ArmPose::swing(RELAXED_ARM_LOWER_RAD, swing, RELAXED_ELBOW_RAD)
    })
}

/// Spine rotations sharing a bend (lean forward, turn, side bend; rad) over three joints.
pub(super) fn spine_bend(lean_rad: f32, yaw_rad: f32, roll_rad: f32) -> [Quat; 3] {
    let each = Quat::from_rotation_y(yaw_rad / 3.0)
        * Quat::from_rotation_x(lean_rad / 3.0)
        * Quat::from_rotation_z(roll_rad / 3.0);
    [each; 3]
}

/// A pelvis rotation: yaw, then forward lean, then roll (positive drops the right hip).
fn pelvis_rotation(yaw_rad: f32, lean_rad: f32, roll_rad: f32) -> Quat {
    Quat::from_rotation_y(yaw_rad)
        * Quat::from_rotation_x(lean_rad)
        * Quat::from_rotation_z(roll_rad)
}

fn keys_for(duration_s: f32) -> usize {
    (duration_s * KEY_RATE_HZ).round().max(1.0) as usize
}

/// Looping clip of `duration_s` keyed at 60 Hz: bodies at keys 0..N, `body_at_phase`
/// takes the phase 0..1 (the closing key repeats key 0).
fn looping_clip(
    rig: &Rig,
    name: &str,
    duration_s: f32,
    set: JointSet,
    body_at_phase: impl Fn(f32) -> BodyTargets,
) -> Result<AuthoredClip, ClipError> {
    let n = keys_for(duration_s);
    let bodies = (0..n).map(|k| body_at_phase(k as f32 / n as f32)).collect();
    let keys = solve_keys(rig, bodies, true, PelvisFit::LOCAL, KEY_RATE_HZ);
    authored(rig, name, keys, set, true)
}

/// One-shot clip of `duration_s` keyed `keys_per_frame` times per 60 Hz frame: bodies at
/// keys 0..=N, `body_at_time` takes seconds.
fn one_shot_clip(
    rig: &Rig,
    name: &str,
    duration_s: f32,
    keys_per_frame: usize,
    body_at_time: impl Fn(f32) -> BodyTargets,
) -> Result<AuthoredClip, ClipError> {
    let key_rate_hz = KEY_RATE_HZ * keys_per_frame as f32;
    let n = keys_for(duration_s) * keys_per_frame;
    let bodies = (0..=n)
        .map(|k| body_at_time(k as f32 / key_rate_hz))
        .collect();
    let keys = solve_keys(rig, bodies, false, PelvisFit::LOCAL, key_rate_hz);
    authored(rig, name, keys, JointSet::FullBody, false)
}

fn authored(
    rig: &Rig,
    name: &str,
    keys: SolvedKeys,
    set: JointSet,
    looping: bool,
) -> Result<AuthoredClip, ClipError> {
    Ok(AuthoredClip {
        clip: clip_from_keys(rig, name, &keys, set, looping)?,
        stats: keys.stats,
    })
}

/// Both contact curves held at `value` (1 planted, 0 airborne).
fn with_contact(authored: AuthoredClip, value: f32) -> Result<AuthoredClip, ClipError> {
    let clip = authored
        .clip
        .with_curve(constant_curve("FootContact_L", value))?
        .with_curve(constant_curve("FootContact_R", value))?;
    Ok(AuthoredClip { clip, ..authored })
}

/// Idle (3.6 s loop): two breaths, a slow weight shift from foot to foot with the pelvis
/// swaying and rolling over the loaded leg, a glance aside; feet planted.
pub(super) fn idle(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    let authored = looping_clip(rig, "Idle", 3.6, JointSet::FullBody, |phase| {
        let shift = (TAU * phase).sin();
        let breath = (2.0 * TAU * phase).sin();
        let roll = 0.025 * shift;
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: Vec3::new(
                0.02 * shift,
                STAND_PELVIS_HEIGHT_M + 0.002 * breath,
                0.0,
            ),
            pelvis_rotation_model: pelvis_rotation(0.03 * shift, 0.02, roll),
            // Inhaling straightens the chest a little.
            spine_local: spine_bend(0.04 - 0.015 * breath, -0.03 * shift, -0.8 * roll),
            head_rotation_model: Quat::from_rotation_y(0.05 * (TAU * phase + 1.0).sin()),
            feet: standing_feet(rig),
            arms: relaxed_arms(0.02 * shift).map(|arm| ArmPose {
                clavicle_raise_rad: 0.015 * breath,
                ..arm
            }),
        }
    })?;
    with_contact(authored, 1.0)
}

/// Crouch_Idle (2.4 s loop): pelvis 0.35 m below standing, feet apart and staggered, the
/// trunk bent forward, arms ready; breathing.
pub(super) fn crouch_idle(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    let feet = [
        crouch_foot(rig, Side::Left, 0.06),
        crouch_foot(rig, Side::Right, -0.06),
    ];
    let authored = looping_clip(rig, "Crouch_Idle", 2.4, JointSet::FullBody, |phase| {
        let breath = (TAU * phase).sin();
        let shift = (TAU * phase).cos();
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: Vec3::new(
                0.01 * shift,
                STAND_PELVIS_HEIGHT_M - 0.35 + 0.004 * breath,
                -0.05,
            ),
            pelvis_rotation_model: pelvis_rotation(0.0, 0.25, 0.01 * shift),
            spine_local: spine_bend(0.30 - 0.02 * breath, 0.0, 0.0),
            head_rotation_model: Quat::IDENTITY,
            feet,
            arms: [Side::Left, Side::Right].map(|_| ArmPose {
                clavicle_raise_rad: 0.01 * breath,
                finger_curl_rad: 0.5,
                ..ArmPose::swing(1.25, 0.5, 0.95)
            }),
        }
    })?;
    with_contact(authored, 1.0)
}

fn crouch_foot(rig: &Rig, side: Side, forward_m: f32) -> FootTarget {
    let sign = side_sign(side);
    FootTarget::flat_at_ankle(
        rig.leg(side),
        Vec3::new(rig.out(side, 0.15), ankle_height_m(rig, side), forward_m),
        sign * 0.25,
    )
}

/// A foot in the air: ankle position for the left foot (the right mirrors X), pitch
/// (positive points the toes).
fn airborne_foot(rig: &Rig, side: Side, ankle_left: Vec3, pitch_rad: f32) -> FootTarget {
    // Lifted with the body: the pelvis is raised by the rig's offset when the key is solved.
    let ankle_left =
        ankle_left + Vec3::new(rig.hip_width_offset_m, rig.pelvis_height_offset_m, 0.0);
    FootTarget::at_ankle(
        rig.leg(side),
        mirror_point(side, ankle_left),
        side_sign(side) * 0.08,
        pitch_rad,
    )
}

/// A jump pose in the air, looping over 0.5 s with a little motion.
struct AirPose {
    pelvis_height_m: f32,
    lean_rad: f32,
    /// Left and right ankles, each given as a left-side position (X mirrored for the right).
    ankles_left: [Vec3; 2],
    foot_pitch_rad: [f32; 2],
    arm_lower_rad: f32,
    arm_swing_rad: f32,
    elbow_rad: f32,
    /// Amplitude of the breathing-like motion of arms and legs (m and rad).
    motion: f32,
}

fn air_clip(rig: &Rig, name: &str, pose: AirPose) -> Result<AuthoredClip, ClipError> {
    let authored = looping_clip(rig, name, 0.5, JointSet::FullBody, |phase| {
        let wave = (TAU * phase).sin();
        let feet = [Side::Left, Side::Right].map(|side| {
            let i = side.index();
            let bob = Vec3::new(0.0, pose.motion * wave * side_sign(side), 0.0);
            airborne_foot(rig, side, pose.ankles_left[i] + bob, pose.foot_pitch_rad[i])
        });
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: Vec3::new(
                0.0,
                pose.pelvis_height_m + 0.3 * pose.motion * wave,
                0.0,
            ),
            pelvis_rotation_model: pelvis_rotation(0.0, pose.lean_rad, 0.0),
            spine_local: spine_bend(0.5 * pose.lean_rad, 0.0, 0.0),
            head_rotation_model: Quat::IDENTITY,
            feet,
            arms: [Side::Left, Side::Right].map(|side| {
                let flutter = 3.0 * pose.motion * wave * side_sign(side);
                ArmPose::swing(
                    pose.arm_lower_rad - flutter,
                    pose.arm_swing_rad + flutter,
                    pose.elbow_rad,
                )
            }),
        }
    })?;
    with_contact(authored, 0.0)
}

/// Jump_Start: pushing off — legs extended with the toes pointed, arms thrown up.
pub(super) fn jump_start(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    air_clip(
        rig,
        "Jump_Start",
        AirPose {
            pelvis_height_m: 0.96,
            lean_rad: 0.08,
            ankles_left: [Vec3::new(0.11, 0.22, 0.06), Vec3::new(0.11, 0.20, -0.14)],
            foot_pitch_rad: [0.6, 0.75],
            arm_lower_rad: 1.2,
            arm_swing_rad: 1.9,
            elbow_rad: 0.4,
            motion: 0.01,
        },
    )
}

/// Jump_Apex: knees tucked up, arms out for balance.
pub(super) fn jump_apex(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    air_clip(
        rig,
        "Jump_Apex",
        AirPose {
            pelvis_height_m: 0.95,
            lean_rad: 0.12,
            ankles_left: [Vec3::new(0.12, 0.45, -0.02), Vec3::new(0.12, 0.40, -0.10)],
            foot_pitch_rad: [0.35, 0.45],
            arm_lower_rad: 0.7,
            arm_swing_rad: 0.5,
            elbow_rad: 0.5,
            motion: 0.008,
        },
    )
}

/// Jump_Fall: legs reaching down for the ground, arms out.
pub(super) fn jump_fall(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    air_clip(
        rig,
        "Jump_Fall",
        AirPose {
            pelvis_height_m: 0.95,
            lean_rad: -0.05,
            ankles_left: [Vec3::new(0.12, 0.15, 0.10), Vec3::new(0.12, 0.20, -0.06)],
            foot_pitch_rad: [0.15, 0.3],
            arm_lower_rad: 0.35,
            arm_swing_rad: 0.2,
            elbow_rad: 0.3,
            motion: 0.012,
        },
    )
}

/// How a landing absorbs the impact.
struct Landing {
    duration_s: f32,
    /// Pelvis dip (m) reached at `bottom_s`, held until `hold_end_s`, recovered by
    /// `recover_end_s`.
    dip_m: f32,
    bottom_s: f32,
    hold_end_s: f32,
    recover_end_s: f32,
    /// Forward lean of pelvis and spine at the bottom (rad), and how far back the pelvis
    /// sits (m) to keep balance over the feet.
    lean_rad: f32,
    sit_back_m: f32,
    /// Arms at the bottom: forward swing and elbow bend (rad).
    arm_swing_rad: f32,
    elbow_rad: f32,
    /// Marker from which locomotion may resume (s).
    recovered_s: f32,
}

/// 0 → 1 → 0: the dip of a landing over time.
fn landing_depth(landing: &Landing, t_s: f32) -> f32 {
    if t_s < landing.bottom_s {
        // Arrives moving down (the blend from the fall carries the impact), settles in.
        (FRAC_PI_2 * t_s / landing.bottom_s).sin()
    } else if t_s < landing.hold_end_s {
        1.0
    } else {
        1.0 - smoothstep((t_s - landing.hold_end_s) / (landing.recover_end_s - landing.hold_end_s))
    }
}

fn landing_clip(rig: &Rig, name: &str, landing: Landing) -> Result<AuthoredClip, ClipError> {
    let feet = standing_feet(rig);
    // The legs fold fast: key at 180 Hz so planted feet stay put between keys too.
    let authored = one_shot_clip(rig, name, landing.duration_s, 3, |t_s| {
        let depth = landing_depth(&landing, t_s);
        let lean = landing.lean_rad * depth;
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: Vec3::new(
                0.0,
                STAND_PELVIS_HEIGHT_M - landing.dip_m * depth,
                -landing.sit_back_m * depth,
            ),
            pelvis_rotation_model: pelvis_rotation(0.0, 0.02 + lean, 0.0),
            spine_local: spine_bend(0.04 + lean, 0.0, 0.0),
            head_rotation_model: Quat::IDENTITY,
            feet,
            arms: [Side::Left, Side::Right].map(|_| {
                ArmPose::swing(
                    RELAXED_ARM_LOWER_RAD - 0.3 * depth,
                    RELAXED_ARM_FORWARD_RAD + landing.arm_swing_rad * depth,
                    RELAXED_ELBOW_RAD + landing.elbow_rad * depth,
                )
            }),
        }
    })?;
    let authored = with_contact(authored, 1.0)?;
    let clip = authored.clip.with_event("recovered", landing.recovered_s)?;
    Ok(AuthoredClip { clip, ..authored })
}

/// Land_Light (0.5 s one-shot): a 10 cm dip and back; `recovered` at 60 %.
pub(super) fn land_light(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    landing_clip(
        rig,
        "Land_Light",
        Landing {
            duration_s: 0.5,
            dip_m: 0.10,
            bottom_s: 0.12,
            hold_end_s: 0.14,
            recover_end_s: 0.42,
            lean_rad: 0.12,
            sit_back_m: 0.02,
            arm_swing_rad: 0.15,
            elbow_rad: 0.2,
            recovered_s: 0.3,
        },
    )
}

/// Land_Heavy (1.0 s one-shot): a deep 35 cm crouch with the arms thrown forward, a
/// slower recovery; `recovered` at 60 %.
pub(super) fn land_heavy(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    landing_clip(
        rig,
        "Land_Heavy",
        Landing {
            duration_s: 1.0,
            dip_m: 0.35,
            bottom_s: 0.28,
            hold_end_s: 0.4,
            recover_end_s: 0.92,
            lean_rad: 0.35,
            sit_back_m: 0.10,
            arm_swing_rad: 0.8,
            elbow_rad: 0.5,
            recovered_s: 0.6,
        },
    )
}

/// Push_Wall (1.2 s loop): leaning ~20° into a wall 0.55 m ahead, hands flat on it at
/// shoulder height, the left foot forward and the right back on its toes, pushing in
/// small surges; hands and feet stay put.
pub(super) fn push_wall(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    let front = FootTarget::flat_at_ankle(
        rig.leg(Side::Left),
        Vec3::new(
            rig.out(Side::Left, 0.12),
            ankle_height_m(rig, Side::Left),
            -0.02,
        ),
        0.1,
    );
    let back = FootTarget::with_flat_toes(
        Vec3::new(rig.sole_out(Side::Right, 0.12), 0.0, -0.33),
        -0.1,
        0.45,
    );
    // Palm on the wall: fingers up, palm facing forward (left hand; the right mirrors).
    let palm_forward = rotation_from_axes(Vec3::Y, Vec3::NEG_Z, Vec3::NEG_X);
    let authored = looping_clip(rig, "Push_Wall", 1.2, JointSet::FullBody, |phase| {
        let effort = (TAU * phase).sin();
        let arms = [Side::Left, Side::Right].map(|side| ArmPose {
            hand_rotation_model: Some(palm_forward),
            finger_curl_rad: 0.1,
            clavicle_forward_rad: 0.1 + 0.03 * effort,
            ..ArmPose::reach(ArmTarget::ReachModel {
                // At the shoulders' height, which rises with the rig's pelvis.
                wrist_model: mirror_point(
                    side,
                    Vec3::new(0.21, 1.30 + rig.pelvis_height_offset_m, 0.50),
                ),
                elbow_pole_model: mirror_point(side, Vec3::new(0.6, -0.8, -0.2)),
            })
        });
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: Vec3::new(0.0, 0.88 + 0.004 * effort, -0.05 + 0.012 * effort),
            pelvis_rotation_model: pelvis_rotation(0.03, 0.2, 0.0),
            spine_local: spine_bend(0.16 + 0.02 * effort, -0.03, 0.0),
            head_rotation_model: Quat::from_rotation_x(0.1),
            feet: [front, back],
            arms,
        }
    })?;
    with_contact(authored, 1.0)
}

/// Aim (2 s loop, upper body only): a rifle held at the right shoulder, the left hand
/// under the barrel, the chest turned a little to the right of the aim with the head
/// looking down the sights; breathing. No pelvis or leg tracks, so it layers over any
/// base pose through the upper-body mask (SPEC GRAPH-4).
pub(super) fn aim(rig: &Rig) -> Result<AuthoredClip, ClipError> {
    // The rest pelvis, as a designed height (`solve_keys` raises it by the rig's offset).
    let rest_pelvis =
        rig.rest_local()[rig.pelvis].translation - Vec3::Y * rig.pelvis_height_offset_m;
    let feet = [Side::Left, Side::Right].map(|side| {
        let leg = rig.leg(side);
        let sign = side_sign(side);
        // Feet under the rest hips, high enough that the rest pelvis needs no lowering.
        let ankle = Vec3::new(
            sign * leg.hip_pelvis_local.x.abs(),
            ankle_height_m(rig, side) + 0.04,
            0.0,
        );
        FootTarget::flat_at_ankle(leg, ankle, 0.0)
    });
    looping_clip(rig, "Aim", 2.0, JointSet::UpperBody, |phase| {
        let breath = (TAU * phase).sin();
        let sway = (TAU * phase + 0.7).sin();
        let right = ArmPose {
            finger_curl_rad: 1.1,
            clavicle_forward_rad: 0.05,
            ..ArmPose::reach(ArmTarget::ReachFromChest {
                wrist_offset_facing: Vec3::new(-0.10, 0.02 + 0.003 * breath, 0.30),
                elbow_pole_facing: Vec3::new(-0.6, -0.8, -0.1),
            })
        };
        let left = ArmPose {
            finger_curl_rad: 0.8,
            clavicle_forward_rad: 0.12,
            ..ArmPose::reach(ArmTarget::ReachFromChest {
                wrist_offset_facing: Vec3::new(0.03, 0.05 + 0.003 * breath, 0.42),
                elbow_pole_facing: Vec3::new(0.3, -0.9, 0.0),
            })
        };
        BodyTargets {
            root_yaw_rad: 0.0,
            pelvis_position_model: rest_pelvis,
            pelvis_rotation_model: Quat::IDENTITY,
            // Left shoulder forward (negative yaw); inhaling straightens the chest.
            spine_local: spine_bend(0.08 - 0.01 * breath, -0.26 + 0.01 * sway, 0.0),
            head_rotation_model: Quat::from_rotation_x(0.08) * Quat::from_rotation_z(0.05),
            feet,
            arms: [left, right],
        }
    })
}
