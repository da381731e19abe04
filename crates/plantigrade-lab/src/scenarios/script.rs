//! What the stick does: a gait's intent along a direction, and the timed scripts of the
//! plaza runs.

use glam::{Vec2, Vec3};
use plantigrade::motion::Intent;

use super::catalog::{Gait, Kind, Scenario};
use Gait::*;
use Kind::*;

/// Where a plaza script starts, from the plaza's spawn at its near edge (m; the plaza
/// spreads 8 m toward +X and 20 m along +Z): room for what the script does.
pub(super) fn plaza_start(scenario: &Scenario) -> Vec3 {
    match (scenario.kind, scenario.gait) {
        // 2 s of running left is about 7 m.
        (Strafe, Run) => Vec3::new(-1.0, 0.0, 3.0),
        (Strafe, _) => Vec3::new(0.5, 0.0, 3.0),
        (Backpedal | Diagonal, _) => Vec3::new(0.0, 0.0, 1.5),
        (BuildUp, _) => Vec3::new(3.0, 0.0, 0.5),
        (StandingJump, _) => Vec3::new(3.0, 0.0, 3.0),
        _ => Vec3::ZERO,
    }
}

/// Seconds a strafe moves each way.
pub(super) fn strafe_side_s(gait: Gait) -> f32 {
    match gait {
        Run | Sprint => 2.0,
        CrouchWalk => 2.5,
        Walk => 3.0,
    }
}

/// When a plaza script ends (s).
pub(super) fn plaza_script_s(scenario: &Scenario) -> f32 {
    match scenario.kind {
        // Aim at 0.5 s, move from 1 s each way, stop, let go of aim 0.7 s later.
        Strafe => 1.0 + 2.0 * strafe_side_s(scenario.gait) + 2.2,
        Backpedal | Diagonal => PLAZA_LEAD_IN_S + backpedal_move_s(scenario.gait) + 2.0,
        BuildUp => 6.5,
        StandingJump => 3.5,
        _ => 0.0,
    }
}

/// Seconds a backpedal or a diagonal stands before it moves: it starts from a standing
/// pose, not from the spawn's first tick.
pub(super) const PLAZA_LEAD_IN_S: f32 = 0.5;

/// Seconds a backpedal or a diagonal moves.
pub(super) fn backpedal_move_s(gait: Gait) -> f32 {
    if gait == Run {
        2.5
    } else {
        4.0
    }
}

/// The intent of a plaza script at `t` (s), facing along `dir` (or against it,
/// backpedalling); `left` is the facing's left.
pub(super) fn plaza_intent(scenario: &Scenario, t: f32, dir: Vec3, jumped: &mut bool) -> Intent {
    let left = Vec3::new(dir.z, 0.0, -dir.x);
    let ahead = dir.x.atan2(dir.z);
    let aimed = |intent: Intent, aim: bool| Intent {
        aim,
        face_yaw_rad: Some(ahead),
        ..intent
    };
    match scenario.kind {
        Strafe => {
            let side = strafe_side_s(scenario.gait);
            let end_move = 1.0 + 2.0 * side;
            let moving = if (1.0..1.0 + side).contains(&t) {
                intent_for(scenario.gait, left, 1.0)
            } else if (1.0 + side..end_move).contains(&t) {
                intent_for(scenario.gait, -left, 1.0)
            } else {
                Intent {
                    crouch: scenario.gait == CrouchWalk,
                    ..Intent::IDLE
                }
            };
            aimed(moving, t >= 0.5 && t < end_move + 0.7)
        }
        Backpedal => {
            let moving = if (PLAZA_LEAD_IN_S..PLAZA_LEAD_IN_S + backpedal_move_s(scenario.gait))
                .contains(&t)
            {
                intent_for(scenario.gait, dir, 1.0)
            } else {
                Intent::IDLE
            };
            Intent {
                face_yaw_rad: Some(ahead + std::f32::consts::PI),
                ..moving
            }
        }
        Diagonal => {
            let moving = if (PLAZA_LEAD_IN_S..PLAZA_LEAD_IN_S + backpedal_move_s(scenario.gait))
                .contains(&t)
            {
                intent_for(scenario.gait, (dir + left).normalize(), 1.0)
            } else {
                Intent::IDLE
            };
            aimed(moving, true)
        }
        BuildUp => match t {
            t if t < 1.5 => intent_for(Walk, dir, 1.0),
            t if t < 3.0 => intent_for(Run, dir, 1.0),
            t if t < 4.5 => intent_for(Sprint, dir, 1.0),
            _ => Intent::IDLE,
        },
        StandingJump => {
            let jump = t >= 1.0 && !*jumped;
            *jumped |= jump;
            Intent {
                jump,
                ..Intent::IDLE
            }
        }
        _ => intent_for(scenario.gait, dir, 1.0),
    }
}

pub(super) fn intent_for(gait: Gait, dir: Vec3, magnitude_scale: f32) -> Intent {
    let (magnitude, sprint, crouch) = match gait {
        Walk => (0.5, false, false),
        Run => (1.0, false, false),
        Sprint => (1.0, true, false),
        CrouchWalk => (1.0, false, true),
    };
    Intent {
        move_world: Vec2::new(dir.x, dir.z) * magnitude * magnitude_scale,
        sprint,
        crouch,
        ..Intent::IDLE
    }
}
