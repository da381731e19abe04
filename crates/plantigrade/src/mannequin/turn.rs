//! Turning in place (Turn_L90, Turn_R90, Turn_L180, Turn_R180): one-shot clips whose root
//! joint yaws by the turn angle while the feet re-plant in small pivot steps.
//!
//! Sign convention: turning **left** rotates the facing (+Z) toward the character's left
//! (+X), which is a **positive** rotation about +Y; turning right is negative. A 90° left
//! turn ends with the root's +Z pointing along model +X.
//!
//! Feet are authored in model space, where the character stands still: a planted foot
//! keeps its model position and heading exactly while the root turns (its local
//! transforms counter-rotate against the root), and the contact curves are 1 exactly then.

use glam::{Quat, Vec3};

use super::body::{BodyTargets, FootTarget};
use super::easing::{hump, min_jerk, smoothstep};
use super::keys::{
    clip_from_keys, contact_curve, key_time_s, solve_keys, AuthoredClip, JointSet, PelvisFit,
    KEY_RATE_HZ,
};
use super::poses::{relaxed_arms, spine_bend, standing_feet, STAND_PELVIS_HEIGHT_M};
use super::rig::Rig;
use crate::bone_map::Side;
use crate::clip::ClipError;

/// Peak lift of a stepping foot (m) and dip of the pelvis during a step (m).
const STEP_LIFT_M: f32 = 0.05;
const STEP_PELVIS_DIP_M: f32 = 0.015;
/// Share of the way toward the stance foot's ankle the pelvis shifts during a step.
const STEP_WEIGHT_SHIFT: f32 = 0.25;

/// One re-plant: `side` lifts at `start` and lands at `end` (shares of the clip), turned
/// to `turn_share` of the whole turn.
#[derive(Clone, Copy, Debug)]
struct Step {
    side: Side,
    start: f32,
    end: f32,
    turn_share: f32,
}

/// A turn in place of `yaw_rad` (positive = left) over `duration_s`: two steps for up to
/// 90°, three (inner, outer, inner) beyond.
pub(super) fn turn_in_place(
    rig: &Rig,
    name: &str,
    yaw_rad: f32,
    duration_s: f32,
) -> Result<AuthoredClip, ClipError> {
    // The foot on the side of the turn opens first.
    let (inner, outer) = if yaw_rad >= 0.0 {
        (Side::Left, Side::Right)
    } else {
        (Side::Right, Side::Left)
    };
    let step = |side, start, end, turn_share| Step {
        side,
        start,
        end,
        turn_share,
    };
    let steps = if yaw_rad.abs() <= std::f32::consts::FRAC_PI_2 + 1e-3 {
        vec![step(inner, 0.05, 0.38, 1.0), step(outer, 0.42, 0.75, 1.0)]
    } else {
        vec![
            step(inner, 0.04, 0.30, 0.5),
            step(outer, 0.34, 0.62, 1.0),
            step(inner, 0.66, 0.90, 1.0),
        ]
    };
    let key_count = (duration_s * KEY_RATE_HZ).round().max(1.0) as usize;
    let step_keys: Vec<(Step, usize, usize)> = steps
        .iter()
        .map(|&s| {
            let start = (s.start * key_count as f32).round() as usize;
            let end = ((s.end * key_count as f32).round() as usize).max(start + 1);
            (s, start, end)
        })
        .collect();

    let stand = standing_feet(rig);
    let bodies = (0..=key_count)
        .map(|key| body_at_key(&stand, &step_keys, yaw_rad, key, key_count))
        .collect();
    let keys = solve_keys(rig, bodies, false, PelvisFit::LOCAL, KEY_RATE_HZ);
    let mut clip = clip_from_keys(rig, name, &keys, JointSet::FullBody, false)?;
    for (side, curve_name, event_name) in [
        (Side::Left, "FootContact_L", "Footstep_L"),
        (Side::Right, "FootContact_R", "Footstep_R"),
    ] {
        // Planted from the clip start to each lift-off key, and from each landing key on.
        let mut planted = Vec::new();
        let mut from = 0;
        for &(_, start, end) in step_keys.iter().filter(|(s, _, _)| s.side == side) {
            planted.push((from, start));
            from = end;
        }
        planted.push((from, key_count));
        clip = clip.with_curve(contact_curve(curve_name, &planted, None, KEY_RATE_HZ)?)?;
        for &(_, _, end) in step_keys.iter().filter(|(s, _, _)| s.side == side) {
            clip = clip.with_event(event_name, key_time_s(end))?;
        }
    }
    Ok(AuthoredClip {
        clip,
        stats: keys.stats,
    })
}

/// Where one foot is at `key`: its turn share so far and, mid-step, the step's progress.
fn foot_progress(step_keys: &[(Step, usize, usize)], side: Side, key: usize) -> (f32, Option<f32>) {
    let mut share = 0.0;
    for &(step, start, end) in step_keys.iter().filter(|(s, _, _)| s.side == side) {
        if key >= end {
            share = step.turn_share;
        } else if key > start {
            let u = (key - start) as f32 / (end - start) as f32;
            return (share + (step.turn_share - share) * min_jerk(u), Some(u));
        } else {
            break;
        }
    }
    (share, None)
}

/// A standing foot carried round the origin by `yaw_rad`, lifted by `lift_m`.
fn turned_foot(stand: &FootTarget, yaw_rad: f32, lift_m: f32) -> FootTarget {
    FootTarget {
        ball_socket_model: Quat::from_rotation_y(yaw_rad) * stand.ball_socket_model
            + Vec3::Y * lift_m,
        yaw_rad: stand.yaw_rad + yaw_rad,
        ..*stand
    }
}

fn body_at_key(
    stand: &[FootTarget; 2],
    step_keys: &[(Step, usize, usize)],
    yaw_rad: f32,
    key: usize,
    key_count: usize,
) -> BodyTargets {
    let t = key as f32 / key_count as f32;
    let mut feet = *stand;
    let mut feet_yaw_sum = 0.0;
    let mut pelvis_offset = Vec3::ZERO;
    for side in Side::BOTH {
        let (share, stepping) = foot_progress(step_keys, side, key);
        let lift = stepping.map_or(0.0, |u| STEP_LIFT_M * hump(u));
        feet[side.index()] = turned_foot(&stand[side.index()], share * yaw_rad, lift);
        feet_yaw_sum += share * yaw_rad;
        if let Some(u) = stepping {
            pelvis_offset.y -= STEP_PELVIS_DIP_M * hump(u);
        }
    }
    // While one foot steps, the weight shifts over the other.
    for side in Side::BOTH {
        if let (_, Some(u)) = foot_progress(step_keys, side, key) {
            let support = feet[1 - side.index()].ball_socket_model;
            pelvis_offset += Vec3::new(support.x, 0.0, support.z) * (STEP_WEIGHT_SHIFT * hump(u));
        }
    }
    // The head leads the turn, the root follows, the pelvis sits between root and feet.
    let root_yaw = yaw_rad * smoothstep(t / 0.85);
    let head_yaw = yaw_rad * smoothstep(t / 0.6);
    let pelvis_yaw = 0.5 * (root_yaw + 0.5 * feet_yaw_sum);
    let chest_yaw = 0.5 * (pelvis_yaw + head_yaw);
    BodyTargets {
        root_yaw_rad: root_yaw,
        pelvis_position_model: Vec3::new(0.0, STAND_PELVIS_HEIGHT_M, 0.0) + pelvis_offset,
        pelvis_rotation_model: Quat::from_rotation_y(pelvis_yaw) * Quat::from_rotation_x(0.02),
        spine_local: spine_bend(0.04, chest_yaw - pelvis_yaw, 0.0),
        head_rotation_model: Quat::from_rotation_y(head_yaw),
        feet,
        arms: relaxed_arms(0.0),
    }
}
