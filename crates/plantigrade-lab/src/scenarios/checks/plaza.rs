//! The checks of the plaza scripts: strafed, held the aim or facing, reached sprint, landed
//! in place, no crossed legs.

use glam::Vec3;
use plantigrade::motion::CharacterConfig;

use crate::continuity;
use crate::report::Check;
use crate::scenarios::catalog::{Gait, Kind, Scenario};
use crate::scenarios::path::{horizontal, PathInfo};
use crate::scenarios::run::Metrics;
use crate::scenarios::trace::Trace;
use Gait::*;
use Kind::*;

/// The checks of a plaza script (see [`Kind`]).
pub(crate) fn plaza_checks(
    scenario: &Scenario,
    m: &Metrics,
    trace: &Trace,
    config: &CharacterConfig,
    path: &PathInfo,
) -> Vec<Check> {
    let dir = path.direction;
    let left = Vec3::new(dir.z, 0.0, -dir.x);
    let along = |v: Vec3, axis: Vec3| (v - path.spawn).dot(axis);
    let facing_error_deg = |wanted: f32| {
        trace
            .facing_yaw_rad
            .iter()
            .map(|&yaw| {
                plantigrade::motion::wrap_angle(yaw - wanted)
                    .abs()
                    .to_degrees()
            })
            .fold(0.0f32, f32::max)
    };
    let ahead = dir.x.atan2(dir.z);
    let mut checks = Vec::new();
    let c = &m.continuity;
    match scenario.kind {
        Strafe => {
            let most_left = trace
                .feet_world
                .iter()
                .map(|&p| along(p, left))
                .fold(f32::MIN, f32::max);
            let end_left = trace.feet_world.last().map_or(0.0, |&p| along(p, left));
            checks.push(Check::new(
                "strafed_both_ways",
                most_left > 2.0 && most_left - end_left > 2.0,
                format!(
                    "{most_left:.2} m to the left, then {:.2} m back to the right (> 2 each)",
                    most_left - end_left
                ),
            ));
            let error = facing_error_deg(ahead);
            checks.push(Check::new(
                "held_the_aim",
                error <= 2.0,
                format!("facing within {error:.2}° of the aim (≤ 2)"),
            ));
        }
        Backpedal | Diagonal => {
            let moved = m.progress_m;
            checks.push(Check::new(
                "moved",
                moved > 3.0,
                format!("{moved:.2} m along the lane (> 3)"),
            ));
            let wanted = if scenario.kind == Backpedal {
                ahead + std::f32::consts::PI
            } else {
                ahead
            };
            let error = facing_error_deg(wanted);
            checks.push(Check::new(
                "held_the_facing",
                error <= 2.0,
                format!("facing within {error:.2}° of the one asked for (≤ 2)"),
            ));
        }
        BuildUp => {
            let peak = trace.speed_m_s.iter().copied().fold(0.0f32, f32::max);
            let end = trace.speed_m_s.last().copied().unwrap_or(f32::NAN);
            checks.push(Check::new(
                "reached_sprint_and_stopped",
                peak >= 0.95 * config.sprint_speed_m_s && end < 0.05,
                format!(
                    "peak {peak:.2} m/s (sprint {:.2}), {end:.2} m/s at the end",
                    config.sprint_speed_m_s
                ),
            ));
        }
        StandingJump => {
            let order = ["Start", "Apex", "Fall", "Land"];
            checks.push(Check::new(
                "jump_phases_in_order",
                m.jump_phases == order,
                format!("{:?}", m.jump_phases),
            ));
            let drift = trace
                .feet_world
                .last()
                .map_or(f32::NAN, |&p| horizontal(p - path.spawn).length());
            checks.push(Check::new(
                "landed_in_place",
                drift < 0.2,
                format!("{drift:.2} m from where it jumped (< 0.2)"),
            ));
        }
        _ => {}
    }
    // Strafing at a walk sidesteps: the ankles never cross with the hips square.
    if matches!(scenario.kind, Strafe | Diagonal | Backpedal) {
        let gate = if matches!(scenario.gait, Walk | CrouchWalk) {
            Check::new
        } else {
            Check::target
        };
        checks.push(gate(
            "no_crossed_legs_with_square_hips",
            c.crossed_square_share == 0.0,
            format!(
                "{:.1} % of ticks crossed with the hips turned under {}° (0); crossed {:.1} %, \
                 ankles {:.1} cm apart at the least, hips turned up to {:.0}°",
                100.0 * c.crossed_square_share,
                continuity::HIPS_TURNED_DEG,
                100.0 * c.crossed_share,
                c.ankle_lateral_min_cm,
                c.hips_turn_max_deg
            ),
        ));
    }
    checks
}
