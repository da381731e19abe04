//! The checks of one run by what its scenario does: reached the end, climbed, crossed the
//! gap, crouched under the ceiling, pushed the wall, landed, turned, ran the circle.

use glam::Vec3;
use plantigrade::motion::CharacterConfig;

use super::plaza::plaza_checks;
use crate::quality;
use crate::report::Check;
use crate::scenarios::catalog::{
    is_gait_state, Kind, Part, Scenario, CIRCLE_LEAN_SHARE, CIRCLE_RADIUS_M,
};
use crate::scenarios::path::PathInfo;
use crate::scenarios::run::Metrics;
use crate::scenarios::trace::Trace;
use Kind::*;

/// What the run found along its path that the checks of its kind need.
pub(crate) struct Context<'a> {
    pub(crate) edge: Option<f32>,
    pub(crate) ceiling: Option<(f32, f32)>,
    pub(crate) wall: Option<(f32, f32)>,
    pub(crate) reversed_at: Option<f32>,
    pub(crate) path: &'a PathInfo,
    pub(crate) end_ground_gap_m: Option<f32>,
}

pub(crate) fn checks_for(
    scenario: &Scenario,
    m: &Metrics,
    trace: &Trace,
    config: &CharacterConfig,
    hz: f32,
    cx: Context,
) -> Vec<Check> {
    let mut checks = vec![Check::new(
        "no_nan",
        m.nan_count == 0,
        format!("{} non-finite ticks", m.nan_count),
    )];
    // Wherever a run ends, the character stands on the true ground there.
    let on_ground = trace.grounded.last() == Some(&true)
        && cx.end_ground_gap_m.is_some_and(|gap| gap.abs() < 0.1);
    checks.push(Check::new(
        "ends_on_ground",
        on_ground,
        match cx.end_ground_gap_m {
            Some(gap) => format!("feet {:.3} m from the true ground at the end", gap),
            None => "no ground under the end point (fell off the course)".to_string(),
        },
    ));
    // QUAL-9: after a landing the feet alternate again within two steps (a standing jump
    // lands standing).
    if let Some(landed) = (scenario.kind != StandingJump)
        .then(|| (1..trace.grounded.len()).find(|&i| trace.grounded[i] && !trace.grounded[i - 1]))
        .flatten()
    {
        let steps = quality::steps_to_alternate(&trace.samples[landed..]);
        checks.push(Check::new(
            "feet_alternate_after_landing",
            steps.is_some_and(|n| n <= 2),
            match steps {
                Some(n) => format!("the feet alternate from step {n} after touch-down (≤ 2)"),
                None => "no alternating steps after touch-down".to_string(),
            },
        ));
    }
    let progress_of = |p: Vec3| (p - cx.path.spawn).dot(cx.path.direction);
    let reached = m.progress_m >= m.target_progress_m - 0.1;
    match scenario.kind {
        Traverse { part } => {
            checks.push(Check::new(
                "reached_end",
                reached,
                format!(
                    "{:.2} of {:.2} m in {:.1} s",
                    m.progress_m, m.target_progress_m, m.duration_s
                ),
            ));
            checks.push(Check::new(
                "not_stuck",
                m.longest_stall_s < 1.0,
                format!("longest stall {:.2} s", m.longest_stall_s),
            ));
            if part == Part::Up {
                let climbed = m.max_height_m - m.start_height_m;
                checks.push(Check::new(
                    "climbed",
                    climbed > 0.5,
                    format!("rose {climbed:.2} m"),
                ));
            }
        }
        Blocked => {
            let rise = m.max_height_m - m.start_height_m;
            checks.push(Check::new(
                "not_climbed",
                rise < 0.5,
                format!("rose {rise:.2} m on a slope it must not climb"),
            ));
        }
        Beam => {
            checks.push(Check::new(
                "reached_end",
                reached,
                format!("{:.2} of {:.2} m", m.progress_m, m.target_progress_m),
            ));
            // The beam is level with the platforms at both ends: falling off shows as a drop.
            let drop = m.start_height_m - m.min_height_m;
            checks.push(Check::new(
                "stayed_on_beam",
                drop < 0.1,
                format!("lowest point {:.2} m below the start", drop),
            ));
        }
        GapJump => {
            checks.push(Check::new(
                "lands_into_gait",
                m.states
                    .iter()
                    .skip_while(|s| *s != "Jump")
                    .nth(1)
                    .is_some_and(|s| is_gait_state(s)),
                format!("states {:?}", m.states),
            ));
            checks.push(Check::new(
                "found_edge",
                cx.edge.is_some(),
                format!("edge at {:?} m", cx.edge),
            ));
            checks.push(Check::new(
                "crossed_gap",
                reached && m.min_height_m > m.start_height_m - 0.3,
                format!(
                    "progress {:.2} m, lowest {:.2} m",
                    m.progress_m, m.min_height_m
                ),
            ));
            // IK-10: in predictive mode the jump came from the feed-forward, a step early.
            if let Some(&(_, d)) = m.extra.iter().find(|(k, _)| k == "jump_distance_to_edge_m") {
                checks.push(Check::new(
                    "jumped_on_no_support_ahead",
                    d > 0.3,
                    format!("jumped {d:.2} m before the edge (> 0.3)"),
                ));
            }
            let order = ["Start", "Apex", "Fall", "Land"];
            let ok = m.jump_phases == order;
            checks.push(Check::new(
                "jump_phases_in_order",
                ok,
                format!("{:?}", m.jump_phases),
            ));
        }
        LowCeiling => {
            let Some((a, b)) = cx.ceiling else {
                checks.push(Check::new(
                    "found_ceiling",
                    false,
                    "no ceiling on the path".to_string(),
                ));
                return checks;
            };
            let under: Vec<usize> = (0..trace.time_s.len())
                .filter(|&i| {
                    let s = progress_of(trace.feet_world[i]);
                    s > a + 0.3 && s < b - 0.3
                })
                .collect();
            let held = under.iter().all(|&i| trace.crouching[i]);
            checks.push(Check::new(
                "stays_crouched_under_ceiling",
                !under.is_empty() && held,
                format!("{} ticks under the ceiling", under.len()),
            ));
            let stood_after = trace.crouching.last() == Some(&false);
            checks.push(Check::new(
                "stands_after_ceiling",
                stood_after && reached,
                format!("progress {:.2} m", m.progress_m),
            ));
            // The capsule top never goes into the 1.2 m ceiling.
            let worst = under
                .iter()
                .map(|&i| trace.capsule_height_m[i])
                .fold(0.0, f32::max);
            checks.push(Check::new(
                "fits_under_ceiling",
                worst <= 1.2 + 1e-3,
                format!("tallest capsule under it {worst:.2} m"),
            ));
        }
        WallPush => {
            let Some((face, _)) = cx.wall else {
                checks.push(Check::new(
                    "found_wall",
                    false,
                    "no wall on the path".to_string(),
                ));
                return checks;
            };
            let radius = config.stand_capsule.radius_m;
            let deepest = trace
                .feet_world
                .iter()
                .map(|p| progress_of(*p) + radius - face)
                .fold(f32::MIN, f32::max);
            checks.push(Check::new(
                "no_wall_penetration",
                deepest <= 1e-3,
                format!(
                    "capsule front {:.1} mm past the wall face",
                    deepest * 1000.0
                ),
            ));
            let pushed = trace.state.iter().any(|s| s == "Push_Wall");
            let at_wall = trace
                .feet_world
                .iter()
                .any(|p| progress_of(*p) + radius > face - 0.1);
            checks.push(Check::new(
                "push_wall_entered",
                pushed && at_wall,
                format!("states {:?}", m.states),
            ));
        }
        Drop(grade) => {
            let wanted = format!("{grade:?}");
            checks.push(Check::new(
                format!("lands_{}", wanted.to_lowercase()),
                m.landings.first() == Some(&wanted),
                format!("landings {:?}", m.landings),
            ));
            // Walking off the ledge the landing has horizontal speed: the gait goes on
            // (the full-body Land is for landings standing still, the timeline's).
            let after_jump = m
                .states
                .iter()
                .skip_while(|s| *s != "Jump")
                .nth(1)
                .cloned()
                .unwrap_or_default();
            checks.push(Check::new(
                "lands_into_gait",
                is_gait_state(&after_jump),
                format!("states {:?}", m.states),
            ));
            let phases_ok = m
                .jump_phases
                .ends_with(&["Fall".to_string(), "Land".to_string()]);
            checks.push(Check::new(
                "fall_then_land",
                phases_ok,
                format!("{:?}", m.jump_phases),
            ));
        }
        Turn180 => {
            let Some(t0) = cx.reversed_at else {
                checks.push(Check::new("turned", false, "never reversed"));
                return checks;
            };
            let start = trace.time_s.iter().position(|&t| t >= t0).unwrap_or(0);
            let yaw0 = trace.facing_yaw_rad[start.saturating_sub(1)];
            let target = yaw0 + std::f32::consts::PI;
            let diff = |yaw: f32| {
                (yaw - target + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                    - std::f32::consts::PI
            };
            let done =
                (start..trace.time_s.len()).find(|&i| diff(trace.facing_yaw_rad[i]).abs() < 1e-3);
            // What the turn-rate curve implies for the speeds actually run: integrate the rate.
            let top = config.top_speed_m_s();
            let dt = 1.0 / hz;
            let mut turned = 0.0;
            let mut implied = None;
            for i in start..trace.time_s.len() {
                let speed = if i > 0 { trace.speed_m_s[i - 1] } else { 0.0 };
                turned += config.turn_rate_rad_s.sample(speed / top) * dt;
                if turned >= std::f32::consts::PI - 1e-3 {
                    implied = Some((i + 1 - start) as f32 * dt);
                    break;
                }
            }
            let actual = done.map(|i| (i + 1 - start) as f32 * dt);
            let ok = match (actual, implied) {
                (Some(a), Some(e)) => (a - e).abs() <= 0.1 * e + dt,
                _ => false,
            };
            checks.push(Check::new(
                "turn_time_matches_curve",
                ok,
                format!(
                    "turned 180° in {:?} s, the curve implies {:?} s",
                    actual, implied
                ),
            ));
        }
        Strafe | Backpedal | Diagonal | BuildUp | StandingJump => {
            checks.extend(plaza_checks(scenario, m, trace, config, cx.path));
        }
        Circle => {
            let figure = |key: &str| {
                m.extra
                    .iter()
                    .find(|(k, _)| k == key)
                    .map_or(f32::NAN, |&(_, v)| v)
            };
            let radius = figure("circle_radius_m");
            checks.push(Check::new(
                "ran_the_circle",
                (radius - CIRCLE_RADIUS_M).abs() <= 0.5,
                format!("mean radius {radius:.2} m (the circle's {CIRCLE_RADIUS_M} m ± 0.5)"),
            ));
            let (lean, balance) = (figure("turn_lean_deg"), figure("turn_balance_deg"));
            let (lo, hi) = CIRCLE_LEAN_SHARE;
            checks.push(Check::new(
                "leans_into_the_turn",
                lean >= lo * balance && lean <= hi * balance,
                format!(
                    "trunk {lean:.1}° toward the centre; balance angle {balance:.1}° \
                     ({:.0}–{:.0} % of it wanted)",
                    100.0 * lo,
                    100.0 * hi
                ),
            ));
        }
    }
    checks
}
