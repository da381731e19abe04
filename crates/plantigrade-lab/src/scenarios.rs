//! Headless scenarios on the test course (SPEC QUAL-7): scripted intents drive
//! `Character::tick` on rapier, and the state timeline is checked — jump phases in order,
//! landings graded, crouch held under a ceiling, push-wall at the wall without penetration,
//! stairs and ramps climbed without getting stuck, the 50° ramp refused, the 180° turn as
//! long as the turn-rate curve implies.

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3};
use plantigrade::character::{run_probe_batch, Character, ProbeTiming};
use plantigrade::course::{Course, Role, Shape};
use plantigrade::graph::{GraphAsset, MachineId};
use plantigrade::ik::FootIkMode;
use plantigrade::motion::{CharacterConfig, Intent, LandingGrade};
use plantigrade_rapier::RapierWorld;
use serde::Serialize;

use crate::continuity::{self, ContinuityQuality};
use crate::quality::{
    self, FootQuality, FootSample, PostureProfile, PostureQuality, TickSample, TiltQuality,
};
use crate::report::Check;

/// How hard the stick is pushed for each gait (walk magnitude ≤ 0.5, run above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gait {
    Walk,
    Run,
    Sprint,
    CrouchWalk,
}

/// What a scenario does and checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Cross the section (optionally only its rising or falling half) without getting stuck.
    Traverse { part: Part },
    /// Walk at a slope that must not be climbed.
    Blocked,
    /// Walk along a raised beam without falling off.
    Beam,
    /// Run and jump the gap at its edge.
    GapJump,
    /// Crouch under the low ceiling, let go of crouch there, and stay crouched.
    LowCeiling,
    /// Walk into the wall and keep pushing.
    WallPush,
    /// Walk off a ledge; the landing must have this grade.
    Drop(LandingGrade),
    /// Run, then reverse the stick; time the 180° turn.
    Turn180,
    /// Run around a circle of [`CIRCLE_RADIUS_M`] on the plaza (turning left); the body
    /// must lean into it.
    Circle,
    /// On the plaza, aiming ahead: stand, aim, move to the left, reverse to the right,
    /// stop, let go of aim (the directional-locomotion issue's strafe with a reversal).
    Strafe,
    /// On the plaza, facing back along the lane while moving along it.
    Backpedal,
    /// On the plaza, aiming ahead while moving forward-left at 45°.
    Diagonal,
    /// Along the plaza: walk, run, sprint, let go of the stick and stop.
    BuildUp,
    /// On the plaza: stand, jump in place, land, stand.
    StandingJump,
}

/// The scripted runs on the plaza (directional locomotion): timed, not goal-driven.
pub fn is_plaza_script(kind: Kind) -> bool {
    matches!(kind, Strafe | Backpedal | Diagonal | BuildUp | StandingJump)
}

/// The closest the two feet may come, ankle–heel–ball segments against each other (cm).
const FEET_MIN_DISTANCE_CM: f32 = 5.0;

/// Radius of the circle scenario (m).
pub const CIRCLE_RADIUS_M: f32 = 3.0;
/// The circle's lean is judged from this time on (s): the run is up to speed and on the
/// circle.
const CIRCLE_SETTLED_S: f32 = 3.0;
/// The lean into a steady turn: between these shares of the balance angle
/// `atan(v² / (r·g))` (the motion issue on directional locomotion).
const CIRCLE_LEAN_SHARE: (f32, f32) = (0.5, 1.0);

/// Which part of a there-and-back section (stairs, ramps) a traverse covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    Whole,
    /// From the spawn up to the middle of the top.
    Up,
    /// From the middle of the top down to the end.
    Down,
}

#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub section: &'static str,
    pub gait: Gait,
    pub kind: Kind,
}

const fn sc(name: &'static str, section: &'static str, gait: Gait, kind: Kind) -> Scenario {
    Scenario {
        name,
        section,
        gait,
        kind,
    }
}

use Gait::*;
use Kind::*;
use Part::*;

/// Every scenario, in run order.
pub const SCENARIOS: &[Scenario] = &[
    sc("flat_walk", "flat", Walk, Traverse { part: Whole }),
    sc("flat_run", "flat", Run, Traverse { part: Whole }),
    sc("flat_sprint", "flat", Sprint, Traverse { part: Whole }),
    sc(
        "stairs_up_15cm_walk",
        "stairs_15cm",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_up_15cm_run",
        "stairs_15cm",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_down_15cm_walk",
        "stairs_15cm",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_down_15cm_run",
        "stairs_15cm",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "stairs_up_20cm_walk",
        "stairs_20cm",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_up_20cm_run",
        "stairs_20cm",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_down_20cm_walk",
        "stairs_20cm",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_down_20cm_run",
        "stairs_20cm",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_10_up_walk", "ramp_10deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_10_down_run",
        "ramp_10deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_20_up_walk", "ramp_20deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_20_down_run",
        "ramp_20deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_30_up_walk", "ramp_30deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_30_down_run",
        "ramp_30deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_40_up_walk", "ramp_40deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_40_down_walk",
        "ramp_40deg",
        Walk,
        Traverse { part: Down },
    ),
    sc("ramp_50_blocked", "ramp_50deg", Walk, Blocked),
    sc(
        "cross_slope_20_walk",
        "cross_slope_20deg",
        Walk,
        Traverse { part: Whole },
    ),
    sc(
        "cross_slope_20_run",
        "cross_slope_20deg",
        Run,
        Traverse { part: Whole },
    ),
    sc("pebbles_walk", "pebbles", Walk, Traverse { part: Whole }),
    sc("pebbles_run", "pebbles", Run, Traverse { part: Whole }),
    sc("beam_walk", "beam", Walk, Beam),
    sc("beam_run", "beam", Run, Beam),
    sc("beam_narrow_walk", "beam_narrow", Walk, Beam),
    sc("beam_inclined_walk", "beam_inclined", Walk, Beam),
    sc("gap_jump_run", "gap_1m", Run, GapJump),
    sc("low_ceiling_crouch", "low_ceiling", CrouchWalk, LowCeiling),
    sc("wall_push", "wall", Walk, WallPush),
    sc("drop_0_5m", "ledge_0_5m", Walk, Drop(LandingGrade::Light)),
    sc("drop_3m", "ledge_3m", Walk, Drop(LandingGrade::Heavy)),
    sc("turn_180_run", "flat", Run, Turn180),
    sc("circle_3m_run", "plaza", Run, Circle),
    sc("strafe_walk_reversal", "plaza", Walk, Strafe),
    sc("strafe_run_reversal", "plaza", Run, Strafe),
    sc("crouch_strafe_reversal", "plaza", CrouchWalk, Strafe),
    sc("backpedal_walk", "plaza", Walk, Backpedal),
    sc("backpedal_run", "plaza", Run, Backpedal),
    sc("diagonal_walk", "plaza", Walk, Diagonal),
    sc("diagonal_run", "plaza", Run, Diagonal),
    sc("build_up_to_sprint", "plaza", Sprint, BuildUp),
    sc("standing_jump", "plaza", Walk, StandingJump),
    // Where a ramp meets stairs: going up the `ramp_stairs` section crosses ramp → stairs,
    // going down stairs → ramp; `stairs_ramp` the other two.
    sc(
        "ramp_stairs_up_walk",
        "ramp_stairs",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "ramp_stairs_up_run",
        "ramp_stairs",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "ramp_stairs_down_walk",
        "ramp_stairs",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "ramp_stairs_down_run",
        "ramp_stairs",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "stairs_ramp_up_walk",
        "stairs_ramp",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_ramp_up_run",
        "stairs_ramp",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_ramp_down_walk",
        "stairs_ramp",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_ramp_down_run",
        "stairs_ramp",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "rolling_bumps_walk",
        "rolling_bumps",
        Walk,
        Traverse { part: Whole },
    ),
    sc(
        "rolling_bumps_run",
        "rolling_bumps",
        Run,
        Traverse { part: Whole },
    ),
];

/// A state of the default graph's gait: `Locomotion`, or `Locomotion_HipsBack` (the same
/// blend with the hips turned the other way running sideways).
fn is_gait_state(state: &str) -> bool {
    state.starts_with("Locomotion")
}

/// A scenario up or down one of the plain flights (`stairs_15cm`, `stairs_20cm`).
pub fn is_flight(name: &str) -> bool {
    name.starts_with("stairs_up_") || name.starts_with("stairs_down_")
}

/// A scenario over a section where a ramp runs straight into stairs.
pub fn is_junction(name: &str) -> bool {
    name.starts_with("ramp_stairs_") || name.starts_with("stairs_ramp_")
}

/// One scenario's figures and checks, as written to results.json.
#[derive(Serialize, Clone, Debug)]
pub struct ScenarioResult {
    pub name: String,
    /// Foot IK mode: `none`, `classic` or `predictive`.
    pub mode: String,
    /// Pelvis tilt: `on`, `off`, or `raw` (on, unfiltered; for the pebble check).
    pub tilt: String,
    pub hz: f32,
    /// How far along its path the start was moved (m; `--start-offset`).
    pub start_offset_m: f32,
    pub metrics: Metrics,
    pub checks: Vec<Check>,
}

#[derive(Serialize, Clone, Debug, Default)]
pub struct Metrics {
    pub duration_s: f32,
    /// Progress along the section's direction (m).
    pub progress_m: f32,
    pub target_progress_m: f32,
    pub start_height_m: f32,
    pub max_height_m: f32,
    pub min_height_m: f32,
    pub final_height_m: f32,
    pub mean_speed_m_s: f32,
    /// Longest time with input held and less than 0.1 m of progress (s).
    pub longest_stall_s: f32,
    pub airborne_s: f32,
    pub landings: Vec<String>,
    pub jump_phases: Vec<String>,
    pub states: Vec<String>,
    pub nan_count: usize,
    /// Scenario-specific figures (turn time, wall clearance, …).
    pub extra: Vec<(String, f32)>,
    /// Foot quality against the analytic ground (SPEC QUAL-1..5, QUAL-7).
    #[serde(flatten)]
    pub foot: FootQuality,
    /// Pelvis tilt tracking and smoothness (SPEC QUAL-5, QUAL-6).
    #[serde(flatten)]
    pub tilt: TiltQuality,
    /// Torso lean against the slope profile (SPEC QUAL-8, TILT-12).
    #[serde(flatten)]
    pub posture: PostureQuality,
    /// Pops and crossed legs (directional locomotion, items 1 and 3).
    #[serde(flatten)]
    pub continuity: ContinuityQuality,
}

/// Figures of the path along a section, sampled from the analytic course.
pub struct PathInfo {
    pub spawn: Vec3,
    pub direction: Vec3,
    /// Progress (m) of the start and the end of the run.
    start_s: f32,
    end_s: f32,
}

fn ground_along(course: &Course, spawn: Vec3, dir: Vec3, s: f32) -> Option<f32> {
    let p = spawn + dir * s;
    course.ground_height(p.x, p.z)
}

/// The highest stretch along the path (the stairs landing, the ramp platform): its middle.
fn top_middle(course: &Course, spawn: Vec3, dir: Vec3, length: f32) -> f32 {
    let samples: Vec<(f32, f32)> = (0..=(length * 20.0) as usize)
        .map(|i| i as f32 * 0.05)
        .filter_map(|s| ground_along(course, spawn, dir, s).map(|h| (s, h)))
        .collect();
    let top = samples.iter().map(|&(_, h)| h).fold(f32::MIN, f32::max);
    let on_top: Vec<f32> = samples
        .iter()
        .filter(|&&(_, h)| h > top - 0.01)
        .map(|&(s, _)| s)
        .collect();
    match (on_top.first(), on_top.last()) {
        (Some(a), Some(b)) => 0.5 * (a + b),
        _ => length * 0.5,
    }
}

/// Progress where the ground first drops more than 0.4 m below the spawn's (the edge).
fn first_drop(course: &Course, spawn: Vec3, dir: Vec3, length: f32) -> Option<f32> {
    let base = ground_along(course, spawn, dir, 0.0)?;
    (0..=(length * 50.0) as usize)
        .map(|i| i as f32 * 0.02)
        .find(|&s| ground_along(course, spawn, dir, s).is_none_or(|h| h < base - 0.4))
}

/// Progress range (m) where an obstacle overhangs the path lower than `below_m` above the
/// ground (the low ceiling), or stands on it (a wall: `below_m` large, bottom at the floor).
fn obstacle_span(
    course: &Course,
    section: &str,
    spawn: Vec3,
    dir: Vec3,
    length: f32,
    ceiling: bool,
) -> Option<(f32, f32)> {
    let section = course.section(section)?;
    let mut span: Option<(f32, f32)> = None;
    for i in 0..=(length * 50.0) as usize {
        let s = i as f32 * 0.02;
        let p = spawn + dir * s;
        let ground = course.ground_height(p.x, p.z).unwrap_or(0.0);
        let hit = section.primitives.iter().any(|prim| {
            let Shape::Box {
                center_world,
                half_extents_m,
                yaw_deg,
            } = &prim.shape
            else {
                return false;
            };
            if prim.role != Role::Obstacle {
                return false;
            }
            let local = Vec2::from_angle(-yaw_deg.to_radians())
                .rotate(Vec2::new(p.x - center_world.x, p.z - center_world.z));
            let inside = local.x.abs() <= half_extents_m.x && local.y.abs() <= half_extents_m.z;
            let bottom = center_world.y - half_extents_m.y;
            inside
                && if ceiling {
                    bottom > ground + 0.5 && bottom < ground + 1.8
                } else {
                    bottom <= ground + 0.1
                }
        });
        if hit {
            span = Some(span.map_or((s, s), |(a, _)| (a, s)));
        }
    }
    span
}

/// The scenario's path on `course`, its start moved `start_offset_m` along it.
pub fn path_for(
    course: &Course,
    scenario: &Scenario,
    start_offset_m: f32,
) -> anyhow::Result<PathInfo> {
    let section = course.section(scenario.section).ok_or_else(|| {
        anyhow::anyhow!(
            "the course has no section '{}' (scenario {})",
            scenario.section,
            scenario.name
        )
    })?;
    let dir =
        Vec3::new(section.direction_world.x, 0.0, section.direction_world.z).normalize_or(Vec3::Z);
    let spawn = section.spawn_world;
    let length = section.length_m;
    let (start_s, end_s) = match scenario.kind {
        Traverse { part: Up } => (0.0, top_middle(course, spawn, dir, length)),
        Traverse { part: Down } => (top_middle(course, spawn, dir, length), length),
        _ => (0.0, length),
    };
    let start_s = start_s + start_offset_m;
    let mut start = spawn + dir * start_s + plaza_start(scenario);
    if let Some(h) = course.ground_height(start.x, start.z) {
        start.y = h;
    }
    Ok(PathInfo {
        spawn: start,
        direction: dir,
        start_s,
        end_s,
    })
}

/// Where a plaza script starts, from the plaza's spawn at its near edge (m; the plaza
/// spreads 8 m toward +X and 20 m along +Z): room for what the script does.
fn plaza_start(scenario: &Scenario) -> Vec3 {
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
fn strafe_side_s(gait: Gait) -> f32 {
    match gait {
        Run | Sprint => 2.0,
        CrouchWalk => 2.5,
        Walk => 3.0,
    }
}

/// When a plaza script ends (s).
fn plaza_script_s(scenario: &Scenario) -> f32 {
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
const PLAZA_LEAD_IN_S: f32 = 0.5;

/// Seconds a backpedal or a diagonal moves.
fn backpedal_move_s(gait: Gait) -> f32 {
    if gait == Run {
        2.5
    } else {
        4.0
    }
}

/// The intent of a plaza script at `t` (s), facing along `dir` (or against it,
/// backpedalling); `left` is the facing's left.
fn plaza_intent(scenario: &Scenario, t: f32, dir: Vec3, jumped: &mut bool) -> Intent {
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

fn intent_for(gait: Gait, dir: Vec3, magnitude_scale: f32) -> Intent {
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

/// Runs one scenario at `hz` with foot IK in `mode`.
pub fn run_scenario(
    scenario: &Scenario,
    course: &Course,
    world: &RapierWorld,
    graph: &Arc<GraphAsset>,
    hz: f32,
    setup: Setup,
) -> anyhow::Result<(ScenarioResult, Trace)> {
    let Setup {
        ik: mode,
        tilt,
        probes,
        start_offset_m,
    } = setup;
    let path = path_for(course, scenario, start_offset_m)?;
    let config = CharacterConfig::default();
    let facing = if scenario.kind == Backpedal {
        (-path.direction.x).atan2(-path.direction.z)
    } else {
        path.direction.x.atan2(path.direction.z)
    };
    let mut character = Character::new(config.clone(), graph.clone(), path.spawn, facing)?;
    character.set_foot_ik_mode(mode);
    character.set_probe_timing(probes);
    character.set_debug_draw(setup_debug_draw(mode));
    tilt.configure(character.tilt_config_mut());
    let sampler = Sampler::new(graph);
    let dt = 1.0 / hz;
    let travel = path.end_s - path.start_s;
    let max_time_s = match scenario.kind {
        Blocked | WallPush => 6.0,
        Turn180 => 6.0,
        Circle => 9.0,
        kind if is_plaza_script(kind) => plaza_script_s(scenario),
        _ => (travel / 0.8).max(6.0) + 4.0,
    };
    let edge = first_drop(course, path.spawn, path.direction, travel);
    let ceiling = obstacle_span(
        course,
        scenario.section,
        path.spawn,
        path.direction,
        travel,
        true,
    );
    let wall = obstacle_span(
        course,
        scenario.section,
        path.spawn,
        path.direction,
        travel,
        false,
    );
    let base = MachineId(0);

    let mut trace = Trace::default();
    let mut metrics = Metrics {
        start_height_m: path.spawn.y,
        max_height_m: path.spawn.y,
        min_height_m: path.spawn.y,
        target_progress_m: travel,
        ..Default::default()
    };
    let mut last_progress_mark = (0.0f32, 0.0f32);
    let mut jumped = false;
    let mut reversed_at: Option<f32> = None;
    let mut settle_after_s: Option<f32> = None;
    let ticks = (max_time_s * hz).ceil() as usize;
    for tick in 0..ticks {
        let t = tick as f32 * dt;
        let progress = (character.feet_world() - path.spawn).dot(path.direction);
        let mut intent = intent_for(scenario.gait, path.direction, 1.0);
        match scenario.kind {
            // Predictive IK sees the gap coming (IK-10) and jumps on it; the other modes
            // have no look-ahead, so the script jumps at a fixed distance from the edge.
            GapJump
                if mode == FootIkMode::Predictive && !jumped && character.no_support_ahead() =>
            {
                intent.jump = true;
                jumped = true;
                metrics.extra.push((
                    "jump_distance_to_edge_m".into(),
                    edge.unwrap_or(0.0) - progress,
                ));
            }
            GapJump if mode == FootIkMode::Predictive => {}
            GapJump => {
                if let Some(edge) = edge {
                    if !jumped && progress >= edge - 0.45 {
                        intent.jump = true;
                        jumped = true;
                    }
                }
            }
            LowCeiling => {
                // Crouch into the ceiling; let go once well under it; hold the stick on.
                if let Some((a, _)) = ceiling {
                    intent.crouch = progress < a + 1.0;
                }
            }
            // Run for two seconds, then pull the stick the other way.
            Turn180 if t >= 2.0 => {
                reversed_at.get_or_insert(t);
                intent = intent_for(scenario.gait, -path.direction, 1.0);
            }
            // Along the circle's tangent, steered back onto it when off.
            Circle => {
                let radial = horizontal(character.feet_world() - circle_centre(&path));
                let out = radial.normalize_or(Vec3::X);
                let tangent = Vec3::Y.cross(out);
                let drift = (radial.length() - CIRCLE_RADIUS_M) / CIRCLE_RADIUS_M;
                let steer = (tangent - out * drift).normalize_or(tangent);
                intent = intent_for(scenario.gait, steer, 1.0);
            }
            kind if is_plaza_script(kind) => {
                intent = plaza_intent(scenario, t, path.direction, &mut jumped);
            }
            _ => {}
        }
        character.tick(dt, &intent, world)?;
        if probes == ProbeTiming::Batched {
            // The host's batch between ticks (IK-13): used by the next tick.
            run_probe_batch(world, std::slice::from_mut(&mut character), 1);
        }
        let feet = character.feet_world();
        let out = *character.output();
        if !feet.is_finite()
            || !character
                .model_pose()
                .joints_model()
                .iter()
                .all(|m| m.is_finite())
        {
            metrics.nan_count += 1;
        }
        let progress = (feet - path.spawn).dot(path.direction);
        metrics.max_height_m = metrics.max_height_m.max(feet.y);
        metrics.min_height_m = metrics.min_height_m.min(feet.y);
        if !out.vars.is_grounded {
            metrics.airborne_s += dt;
        }
        if let Some(phase) = out.vars.jump_phase {
            let name = format!("{phase:?}");
            if metrics.jump_phases.last() != Some(&name) {
                metrics.jump_phases.push(name);
            }
        }
        if let Some(landing) = out.landing {
            metrics.landings.push(format!("{:?}", landing.grade));
            metrics.jump_phases.push("Land".into());
        }
        let state = character
            .graph()
            .current_state(base)
            .map(|s| graph.state_name(base, s).to_string())
            .unwrap_or_default();
        if metrics.states.last() != Some(&state) {
            metrics.states.push(state.clone());
        }
        // Stall: input held, no progress for a while.
        if progress > last_progress_mark.1 + 0.1 {
            last_progress_mark = (t, progress);
        } else if !matches!(scenario.kind, Blocked | WallPush | Turn180 | Circle)
            && !is_plaza_script(scenario.kind)
        {
            metrics.longest_stall_s = metrics.longest_stall_s.max(t - last_progress_mark.0);
        }
        trace.record(t, feet, &out, &state, character.capsule().height_m());
        trace
            .samples
            .push(sampler.sample(&character, course, t, &state));
        if tick % DEBUG_DRAW_EVERY_TICKS == 0 && character.debug_draw().enabled() {
            trace
                .debug_draw
                .push(serde_json::json!({ "time_s": t, "draw": character.debug_draw() }));
        }
        metrics.progress_m = progress;
        metrics.final_height_m = feet.y;
        metrics.duration_s = t + dt;
        let done = match scenario.kind {
            Blocked | WallPush | Turn180 | Circle => false,
            kind if is_plaza_script(kind) => false,
            _ => progress >= travel - 0.05 && out.vars.is_grounded,
        };
        if done && settle_after_s.is_none() {
            // After a jump or a drop, let the landing play out before stopping.
            let settle_s = if matches!(scenario.kind, GapJump | Drop(_)) {
                0.4
            } else {
                0.0
            };
            settle_after_s = Some(t + settle_s);
        }
        if settle_after_s.is_some_and(|until| t >= until) {
            break;
        }
        if reversed_at.is_some_and(|r| t >= r + 2.0) {
            break;
        }
    }
    metrics.mean_speed_m_s = if metrics.duration_s > 0.0 {
        metrics.progress_m.max(0.0) / metrics.duration_s
    } else {
        0.0
    };

    // Stance feet standing on something lower than what the body stands on (reaching
    // down past a beam's edge to the floor): foot-ticks, grounded, more than 0.2 m below.
    let feet_below_support = trace
        .samples
        .iter()
        .filter(|s| s.grounded)
        .map(|s| {
            let support = course.ground_height(s.root_world.x, s.root_world.z);
            s.feet
                .iter()
                .filter(|f| f.contact >= quality::STANCE_CONTACT_MIN && !f.stepping)
                .filter(|f| {
                    let lowest = match (f.ground_under_heel_m, f.ground_under_ball_m) {
                        (Some(h), Some(b)) => Some(h.max(b)),
                        (h, b) => h.or(b),
                    };
                    matches!((support, lowest), (Some(s), Some(g)) if g < s - 0.2)
                })
                .count()
        })
        .sum::<usize>();
    metrics
        .extra
        .push(("feet_below_support_ticks".into(), feet_below_support as f32));
    if scenario.kind == Circle {
        metrics
            .extra
            .extend(circle_lean(&trace, circle_centre(&path)));
    }

    // Pops judged against the gait clips at this rate; capsule steps left out as the
    // pelvis offset takes them back.
    let step_speed_m_s = character.foot_ik().map_or(
        plantigrade::ik::PelvisConfig::default().step_speed_m_s,
        |ik| ik.config.pelvis.step_speed_m_s,
    );
    let threshold_cm =
        continuity::pop_threshold(graph, hz).map_or(f32::INFINITY, |p| p.threshold_cm);
    metrics.continuity =
        continuity::continuity_quality(&trace.samples, hz, threshold_cm, step_speed_m_s);

    // How far the feet end above (or below) the true ground where they stop.
    let end = character.feet_world();
    let end_ground_gap_m = course.ground_height(end.x, end.z).map(|g| end.y - g);
    let checks = checks_for(
        scenario,
        &metrics,
        &trace,
        &config,
        hz,
        Context {
            edge,
            ceiling,
            wall,
            reversed_at,
            path: &path,
            end_ground_gap_m,
        },
    );
    metrics.foot = quality::foot_quality(&trace.samples, hz);
    metrics.tilt = quality::tilt_quality(&trace.samples, hz, quality::DEFAULT_SETTLE_S);
    metrics.posture = quality::posture_quality(
        &trace.samples,
        hz,
        quality::DEFAULT_SETTLE_S,
        &PostureProfile::default(),
    );
    metrics.nan_count = metrics.nan_count.max(metrics.foot.nan_count as usize);
    let result = ScenarioResult {
        name: scenario.name.to_string(),
        mode: mode.name().into(),
        tilt: tilt.name().into(),
        hz,
        start_offset_m,
        metrics,
        checks,
    };
    Ok((result, trace))
}

/// Per tick, what the checks need.
#[derive(Default, Clone, Debug)]
pub struct Trace {
    pub time_s: Vec<f32>,
    pub feet_world: Vec<Vec3>,
    pub speed_m_s: Vec<f32>,
    pub facing_yaw_rad: Vec<f32>,
    pub crouching: Vec<bool>,
    pub pushing_wall: Vec<bool>,
    pub capsule_height_m: Vec<f32>,
    pub grounded: Vec<bool>,
    pub state: Vec<String>,
    /// What the quality metrics and the CSV trace are computed from.
    pub samples: Vec<TickSample>,
    /// Debug draw commands (IK-12, TILT-10) every [`DEBUG_DRAW_EVERY_TICKS`] ticks, as
    /// JSON values `{time_s, draw}`.
    pub debug_draw: Vec<serde_json::Value>,
}

/// How often a run keeps the character's debug draw for `--trace` (ticks).
pub const DEBUG_DRAW_EVERY_TICKS: usize = 30;

/// Debug draw is recorded for the predictive runs only (the others draw the same probes
/// minus the prediction).
fn setup_debug_draw(mode: FootIkMode) -> bool {
    mode == FootIkMode::Predictive
}

/// The true slope under `root` along and across the facing (rad), from the analytic
/// course: the plane normal on ramps and cross-slopes, and on stairs the flight's slope
/// (heights two treads ahead and behind: a window of whole treads sees the nosing line,
/// not the risers). `None` where the ground is not a plane (bumps) or off the course.
fn ground_truth(course: &Course, root: Vec3, yaw: f32) -> (Option<f32>, Option<f32>) {
    let forward = Vec3::new(yaw.sin(), 0.0, yaw.cos());
    let left = Vec3::new(forward.z, 0.0, -forward.x);
    let at = |p: Vec3| course.ground_height(p.x, p.z);
    let window = 0.56;
    let (Some(ahead), Some(behind), Some(here)) = (
        at(root + forward * window),
        at(root - forward * window),
        at(root),
    ) else {
        return (None, None);
    };
    let (Some(l), Some(r)) = (at(root + left * 0.3), at(root - left * 0.3)) else {
        return (None, None);
    };
    let Some(normal) = course.ground_normal(root.x, root.z) else {
        return (None, None);
    };
    let planar = |h: f32, d: Vec3, dist: f32| {
        // Heights the plane through `here` with `normal` predicts `dist` along `d`.
        here - (normal.x * d.x + normal.z * d.z) * dist / normal.y - h
    };
    let is_plane = [
        planar(ahead, forward, window),
        planar(behind, -forward, window),
        planar(l, left, 0.3),
        planar(r, -left, 0.3),
    ]
    .iter()
    .all(|e| e.abs() < 0.005);
    if is_plane {
        let tilt = plantigrade::tilt::decompose_ground_normal(
            normal,
            yaw,
            &plantigrade::tilt::TiltLimits::default(),
        );
        return (
            Some(tilt.unclamped_pitch_rad),
            Some(tilt.unclamped_roll_rad),
        );
    }
    // Stairs: level across, a constant rise along.
    if (l - r).abs() < 0.005 && normal.y > 0.999 && (ahead - behind).abs() > 0.1 {
        return (Some(((ahead - behind) / (2.0 * window)).atan()), Some(0.0));
    }
    (None, None)
}

/// Thigh, calf and foot joints, heel and ball sockets (foot-local) of one leg.
type SampledLeg = (usize, usize, usize, Vec3, Vec3);

/// Reads the feet, pelvis and IK report of a character into a [`TickSample`].
pub(crate) struct Sampler {
    pelvis: Option<usize>,
    neck: Option<usize>,
    head: Option<usize>,
    legs: Option<[SampledLeg; 2]>,
}

impl Sampler {
    pub(crate) fn new(graph: &GraphAsset) -> Sampler {
        let skeleton = graph.skeleton();
        let map = plantigrade::HumanoidMap::detect(skeleton);
        let legs = plantigrade::Side::BOTH.map(|side| {
            let leg = map.leg(side).ok()?;
            let sockets = map.feet[side.index()]?;
            Some((
                leg.thigh,
                leg.calf,
                leg.foot,
                sockets.heel_foot_local,
                sockets.ball_foot_local,
            ))
        });
        Sampler {
            pelvis: map.pelvis,
            neck: map.neck.or(map.spine.last().copied()),
            head: map.head,
            legs: match legs {
                [Some(l), Some(r)] => Some([l, r]),
                _ => None,
            },
        }
    }

    pub(crate) fn sample(&self, c: &Character, course: &Course, t: f32, state: &str) -> TickSample {
        let model = c.model_pose();
        let facing = c.facing_world();
        let ik = c.foot_ik_output().copied().unwrap_or_default();
        let mut sample = TickSample {
            forward_world: facing * Vec3::Z,
            joints_world: (0..model.joints_model().len())
                .map(|j| c.model_to_world(model.position_model(j)))
                .collect(),
            torso_lean_anim_rad: c.torso_lean_anim_rad(),
            lean_pitch_rad: c.lean_output().pitch_rad,
            time_s: t,
            state: state.to_string(),
            root_world: c.feet_world(),
            grounded: c.output().vars.is_grounded,
            reach_clamps: ik.reach_clamps,
            non_finite: !c.feet_world().is_finite()
                || !model.joints_model().iter().all(|m| m.is_finite()),
            ..TickSample::default()
        };
        if let Some(pelvis) = self.pelvis {
            let (_, rotation, translation) =
                model.joints_model()[pelvis].to_scale_rotation_translation();
            sample.pelvis_world = c.model_to_world(translation);
            sample.pelvis_rotation_world = facing * rotation;
        } else {
            sample.pelvis_rotation_world = Quat::IDENTITY;
        }
        if let Some(neck) = self.neck {
            sample.neck_world = c.model_to_world(model.position_model(neck));
        }
        if let Some(head) = self.head {
            sample.head_world = c.model_to_world(model.position_model(head));
        }
        if let Some(t) = c.tilt_output() {
            sample.tilt_pitch_rad = t.pitch_rad;
            sample.tilt_roll_rad = t.roll_rad;
        }
        let (pitch, roll) = ground_truth(course, c.feet_world(), c.facing_yaw_rad());
        sample.ground_pitch_rad = pitch;
        sample.ground_roll_rad = roll;
        // What the procedural pass did to the head's pitch (the animation's is 0 here).
        if let Some(head) = self.head {
            let (_, now, _) = model.joints_model()[head].to_scale_rotation_translation();
            let delta = now * c.head_rotation_anim_model().inverse();
            let forward = delta * Vec3::Z;
            sample.head_pitch_world_rad = forward.y.atan2(forward.x.hypot(forward.z));
            sample.head_pitch_anim_rad = 0.0;
        }
        let Some(legs) = self.legs else {
            return sample;
        };
        let [left_thigh, right_thigh] =
            legs.map(|leg| c.model_to_world(model.position_model(leg.0)));
        sample.hips_yaw_rad =
            crate::continuity::hips_yaw_rad(left_thigh, right_thigh, sample.forward_world);
        for (i, &(thigh, calf, foot, heel, ball)) in legs.iter().enumerate() {
            let heel_world = c.model_to_world(model.point_model(foot, heel));
            let ball_world = c.model_to_world(model.point_model(foot, ball));
            let report = ik.feet[i];
            sample.feet[i] = FootSample {
                ankle_world: c.model_to_world(model.position_model(foot)),
                heel_world,
                ball_world,
                ground_under_heel_m: course.ground_height(heel_world.x, heel_world.z),
                ground_under_ball_m: course.ground_height(ball_world.x, ball_world.z),
                ground_under_mid_m: {
                    let mid = 0.5 * (heel_world + ball_world);
                    course.ground_height(mid.x, mid.z)
                },
                heel_depth_m: course.depth_below_surface_m(heel_world),
                ball_depth_m: course.depth_below_surface_m(ball_world),
                contact: c.foot_contact()[i],
                ik_alpha: report.ik_alpha,
                predicted_landing_world: report.predicted_world,
                heel_probe_hit: report.heel_hit,
                toe_probe_hit: report.toe_hit,
                locked: report.locked,
                stepping: report.stepping,
            };
            // A knee flip, measured here rather than trusted from the solver: a knee is a
            // hinge about the character's left axis, so thigh × shin points left (+X in
            // model space) when it bends the right way; pointing right by more than ~3° of
            // bend is a flip. Straight legs (cross ≈ 0) are not.
            let thigh_dir = model.position_model(calf) - model.position_model(thigh);
            let shin_dir = model.position_model(foot) - model.position_model(calf);
            let bend = thigh_dir.cross(shin_dir);
            if bend.x < -0.05 * thigh_dir.length() * shin_dir.length() {
                sample.knee_flips += 1;
            }
        }
        sample
    }
}

impl Trace {
    fn record(
        &mut self,
        t: f32,
        feet: Vec3,
        out: &plantigrade::motion::MovementOutput,
        state: &str,
        capsule_height_m: f32,
    ) {
        self.time_s.push(t);
        self.feet_world.push(feet);
        self.speed_m_s.push(out.vars.speed);
        self.facing_yaw_rad.push(out.facing_yaw_rad);
        self.crouching.push(out.vars.is_crouching);
        self.pushing_wall.push(out.vars.is_pushing_wall);
        self.capsule_height_m.push(capsule_height_m);
        self.grounded.push(out.vars.is_grounded);
        self.state.push(state.to_string());
    }
}

struct Context<'a> {
    edge: Option<f32>,
    ceiling: Option<(f32, f32)>,
    wall: Option<(f32, f32)>,
    reversed_at: Option<f32>,
    path: &'a PathInfo,
    end_ground_gap_m: Option<f32>,
}

fn checks_for(
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

/// The checks of a plaza script (see [`Kind`]).
fn plaza_checks(
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

/// Where the circle scenario's circle is centred: [`CIRCLE_RADIUS_M`] toward +X of the
/// spawn (the plaza spreads that way) and 4.5 m ahead, so the whole circle is on the
/// plaza; the run steers onto it from the spawn.
fn circle_centre(path: &PathInfo) -> Vec3 {
    path.spawn + Vec3::X * CIRCLE_RADIUS_M + Vec3::Z * 4.5
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// The circle run's figures, from [`CIRCLE_SETTLED_S`] on: `turn_lean_deg`, the mean lean
/// of the trunk (pelvis → neck) toward the centre; `turn_balance_deg`, the balance angle
/// `atan(v² / (r·g))` of the mean speed and radius run; `circle_radius_m`.
fn circle_lean(trace: &Trace, centre: Vec3) -> Vec<(String, f32)> {
    let settled: Vec<&TickSample> = trace
        .samples
        .iter()
        .filter(|s| s.time_s >= CIRCLE_SETTLED_S && s.grounded)
        .collect();
    if settled.len() < 2 {
        return Vec::new();
    }
    let (mut lean_deg, mut radius_m) = (0.0f64, 0.0f64);
    for s in &settled {
        let inward = horizontal(centre - s.root_world).normalize_or_zero();
        let trunk = s.neck_world - s.pelvis_world;
        lean_deg += f64::from(trunk.dot(inward).atan2(trunk.y).to_degrees());
        radius_m += f64::from(horizontal(s.root_world - centre).length());
    }
    let n = settled.len() as f64;
    let travelled_m: f32 = settled
        .windows(2)
        .map(|w| horizontal(w[1].root_world - w[0].root_world).length())
        .sum();
    let duration_s = settled[settled.len() - 1].time_s - settled[0].time_s;
    let speed_m_s = if duration_s > 0.0 {
        travelled_m / duration_s
    } else {
        0.0
    };
    let radius_m = (radius_m / n) as f32;
    let balance_deg = (speed_m_s * speed_m_s / (radius_m.max(0.1) * 9.81))
        .atan()
        .to_degrees();
    vec![
        ("turn_lean_deg".into(), (lean_deg / n) as f32),
        ("turn_balance_deg".into(), balance_deg),
        ("circle_radius_m".into(), radius_m),
        ("circle_speed_m_s".into(), speed_m_s),
    ]
}

/// The scenarios named (all when `names` is empty), in run order; an unknown name is an
/// error listing the known ones.
pub fn chosen(names: &[String]) -> anyhow::Result<Vec<&'static Scenario>> {
    for name in names {
        if !SCENARIOS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
            anyhow::bail!("unknown scenario '{name}'; known: {}", known.join(", "));
        }
    }
    Ok(SCENARIOS
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|n| n == s.name))
        .collect())
}

/// Runs the chosen scenarios (all when `names` is empty) on `course`.
pub fn run_all(
    names: &[String],
    course: &Course,
    graph: &Arc<GraphAsset>,
    hz: f32,
    options: &RunOptions,
) -> anyhow::Result<Vec<ScenarioResult>> {
    let chosen = chosen(names)?;
    let world = RapierWorld::from_course(course)?;
    let progress = indicatif::ProgressBar::new((chosen.len() * options.modes.len()) as u64)
        .with_style(
            indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
    progress.set_prefix("scenarios");
    let mut results = Vec::with_capacity(chosen.len());
    if let Some(dir) = &options.trace_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    }
    for scenario in chosen {
        for &tilt in &options.tilts {
            for &mode in &options.modes {
                progress.set_message(format!(
                    "{} ({}, tilt {})",
                    scenario.name,
                    mode.name(),
                    tilt.name()
                ));
                let setup = Setup::new(mode, tilt).starting_at(options.start_offset_m);
                let (result, trace) = run_scenario(scenario, course, &world, graph, hz, setup)?;
                if let Some(dir) = &options.trace_dir {
                    let suffix = if tilt == TiltMode::On {
                        String::new()
                    } else {
                        format!("_tilt_{}", tilt.name())
                    };
                    let file = dir.join(format!("{}_{}{suffix}.csv", scenario.name, mode.name()));
                    quality::write_trace_csv(&file, &trace.samples)
                        .map_err(|e| anyhow::anyhow!("writing {}: {e}", file.display()))?;
                    if !trace.debug_draw.is_empty() {
                        let file = dir.join(format!(
                            "{}_{}{suffix}_debug_draw.jsonl",
                            scenario.name,
                            mode.name()
                        ));
                        let lines: Vec<String> =
                            trace.debug_draw.iter().map(|v| v.to_string()).collect();
                        std::fs::write(&file, lines.join("\n") + "\n")
                            .map_err(|e| anyhow::anyhow!("writing {}: {e}", file.display()))?;
                    }
                }
                results.push(result);
                progress.inc(1);
            }
        }
    }
    progress.finish_and_clear();
    add_foot_checks(&mut results);
    add_skid_checks(&mut results);
    add_feet_apart_checks(&mut results);
    add_pop_checks(&mut results);
    if options.tilts.contains(&TiltMode::On) && options.modes.contains(&FootIkMode::Predictive) {
        add_tilt_checks(
            &mut results,
            course,
            &world,
            graph,
            hz,
            options.start_offset_m,
        )?;
    }
    Ok(results)
}

/// Issue 6 and 14 targets (SPEC TILT, QUAL-5/6/8), on tilt on + predictive IK: the ground
/// frame's tracking of the 10–30° ramps and the cross-slope, a level head, the torso's lean
/// against the TILT-12 profile, the pebble field against the raw normal, the beam's roll,
/// the stairs' flight pitch.
fn add_tilt_checks(
    results: &mut [ScenarioResult],
    course: &Course,
    world: &RapierWorld,
    graph: &Arc<GraphAsset>,
    hz: f32,
    start_offset_m: f32,
) -> anyhow::Result<()> {
    let flat_angvel = results
        .iter()
        .find(|r| r.name == "flat_walk" && r.mode == "predictive" && r.tilt == "on")
        .map(|r| r.metrics.tilt.tilt_angvel_rms_deg_s);
    for r in results.iter_mut() {
        if r.mode != "predictive" || r.tilt != "on" {
            continue;
        }
        let t = r.metrics.tilt;
        let mut checks = Vec::new();
        let slope = ["ramp_10", "ramp_20", "ramp_30", "cross_slope_20"]
            .iter()
            .any(|p| r.name.starts_with(p));
        if slope {
            // The filtered ground frame the posture is built from follows the true slope.
            let err = t.tilt_pitch_error_deg.max(t.tilt_roll_error_deg);
            checks.push(Check::new(
                "slope_tracking",
                t.settled_ticks > 0 && err <= 2.0,
                format!(
                    "ground frame pitch {:.2}°, roll {:.2}° mean error after settling ({} ticks; ≤ 2°)",
                    t.tilt_pitch_error_deg, t.tilt_roll_error_deg, t.settled_ticks
                ),
            ));
            // TILT-6/12: the head stays level while the trunk leans.
            checks.push(Check::new(
                "head_level",
                t.settled_ticks > 0 && t.head_pitch_dev_deg <= 2.0,
                format!(
                    "head pitch {:.2}° from the animation's on average (≤ 2°)",
                    t.head_pitch_dev_deg
                ),
            ));
        }
        // TILT-12 / QUAL-8: the trunk leans into a climb and stays near upright going
        // down, everywhere but against the slope it cannot climb.
        if r.name != "ramp_50_blocked" {
            let p = r.metrics.posture;
            checks.push(Check::new(
                "torso_lean_profile",
                p.torso_lean_error_deg <= 1.0,
                format!(
                    "{:.2}° mean outside the profile over {} settled ticks (≤ 1°); lean {:.1}° mean, {} up, {} down",
                    p.torso_lean_error_deg,
                    p.posture_ticks,
                    p.torso_lean_mean_deg,
                    p.torso_lean_uphill_deg.map_or("-".into(), |v| format!("{v:.1}°")),
                    p.torso_lean_downhill_deg.map_or("-".into(), |v| format!("{v:.1}°")),
                ),
            ));
            checks.push(Check::new(
                "head_not_behind_pelvis",
                p.head_behind_pelvis_ticks == 0,
                format!(
                    "{} ticks climbing with the head behind the pelvis",
                    p.head_behind_pelvis_ticks
                ),
            ));
        }
        if is_flight(&r.name) {
            checks.push(Check::new(
                "tilt_stairs_flight",
                t.settled_ticks > 0 && t.tilt_pitch_error_deg <= 3.0,
                format!(
                    "pitch {:.2}° from the flight's slope, peak-to-peak {:.2}° ({} ticks; ≤ 3°)",
                    t.tilt_pitch_error_deg, t.tilt_pitch_p2p_deg, t.settled_ticks
                ),
            ));
        }
        if r.name == "beam_walk" {
            let flat = flat_angvel.unwrap_or(0.0);
            checks.push(Check::new(
                "tilt_beam_no_roll",
                t.tilt_roll_error_max_deg <= 0.5 || t.settled_ticks == 0,
                format!("largest roll error {:.2}°", t.tilt_roll_error_max_deg),
            ));
            checks.push(Check::new(
                "tilt_beam_calm",
                t.tilt_angvel_rms_deg_s <= flat + 5.0,
                format!(
                    "tilt angular velocity RMS {:.2}°/s (flat {:.2} + 5)",
                    t.tilt_angvel_rms_deg_s, flat
                ),
            ));
        }
        if r.name.starts_with("pebbles") {
            let scenario = SCENARIOS.iter().find(|s| s.name == r.name);
            if let Some(scenario) = scenario {
                let (raw, _) = run_scenario(
                    scenario,
                    course,
                    world,
                    graph,
                    hz,
                    Setup::new(FootIkMode::Predictive, TiltMode::Raw).starting_at(start_offset_m),
                )?;
                let raw = raw.metrics.tilt.tilt_angvel_rms_deg_s;
                checks.push(Check::new(
                    "tilt_pebbles_filtered",
                    raw >= 3.0 * t.tilt_angvel_rms_deg_s,
                    format!(
                        "tilt angular velocity RMS {:.1}°/s filtered vs {:.1}°/s raw ({:.1}×; ≥ 3×)",
                        t.tilt_angvel_rms_deg_s,
                        raw,
                        raw / t.tilt_angvel_rms_deg_s.max(1e-6)
                    ),
                ));
            }
        }
        r.checks.extend(checks);
    }
    Ok(())
}

/// On stairs, at least this share of the footfalls onto a tread touch down ball first.
const FOREFOOT_FIRST_MIN_SHARE: f32 = 0.8;

/// The feet never collide (directional locomotion's item 4): on every run, every mode, the
/// two feet (ankle–heel–ball segments) stay at least [`FEET_MIN_DISTANCE_CM`] apart. (The
/// foot IK lifts a swinging foot over the planted one where they would pass closer: on the
/// 12 cm beam and as a sideways run stops.)
fn add_feet_apart_checks(results: &mut [ScenarioResult]) {
    for r in results.iter_mut() {
        let apart_cm = r.metrics.foot.feet_min_distance_cm;
        r.checks.push(Check::new(
            "feet_apart",
            apart_cm >= FEET_MIN_DISTANCE_CM,
            format!(
                "the feet came within {apart_cm:.1} cm of each other (≥ {FEET_MIN_DISTANCE_CM})"
            ),
        ));
    }
}

/// Runs whose pops are known and not fixed yet: the count is measured, not gated. Up
/// stairs and their junctions a swinging foot walking two or three treads a step has its
/// toe over the next nosing a tick or two after it lifts off, and is lifted a riser in a
/// tick (18–23 cm); the 12 cm beam and the 40° ramp move a knee 19–24 cm placing a foot;
/// the gap jump's take-off moves a knee 19 cm. Their worst pop is held to a target of
/// [`KNOWN_POP_MAX_SHARE`] × the threshold: a knee flick running up (55–72 cm until the
/// climb stopped stacking a heel kick on the rise) is still 39–58 cm at some start offsets
/// of the 20 cm flight, so it is measured, not gated yet.
fn pops_known(name: &str) -> bool {
    ((is_flight(name) || is_junction(name)) && name.contains("_up_"))
        || ["ramp_40_up_walk", "beam_narrow_walk", "gap_jump_run"].contains(&name)
}

/// The worst pop a run [`pops_known`] lists may have, as a share of the pop threshold.
const KNOWN_POP_MAX_SHARE: f32 = 1.5;

/// No joint jumps (directional locomotion, item 3): 0 pops on every predictive run, except
/// the ones [`pops_known`] lists, whose worst is bounded; the other modes are measured.
fn add_pop_checks(results: &mut [ScenarioResult]) {
    for r in results.iter_mut() {
        let c = &r.metrics.continuity;
        if r.mode == FootIkMode::Predictive.name() && pops_known(&r.name) {
            r.checks.push(Check::target(
                "known_pops_bounded",
                c.pop_worst_cm <= KNOWN_POP_MAX_SHARE * c.pop_threshold_cm,
                format!(
                    "worst pop {:.1} cm at {:.2} s, joint {} (≤ {KNOWN_POP_MAX_SHARE} × {:.1} cm)",
                    c.pop_worst_cm, c.pop_worst_time_s, c.pop_worst_joint, c.pop_threshold_cm
                ),
            ));
        }
        let gate = if r.mode == FootIkMode::Predictive.name() && !pops_known(&r.name) {
            Check::new
        } else {
            Check::target
        };
        r.checks.push(gate(
            "no_pops",
            c.pop_count == 0,
            format!(
                "{} joint-ticks jumped more than {:.1} cm in a tick (1.5 × the gait clips' \
                 largest); worst {:.1} cm at {:.2} s, joint {}",
                c.pop_count,
                c.pop_threshold_cm,
                c.pop_worst_cm,
                c.pop_worst_time_s,
                c.pop_worst_joint
            ),
        ));
    }
}

/// QUAL-4 ground skid on every predictive run: mean ≤ 2 cm and worst ≤ 5 cm per footfall,
/// pivots, stops and landings included. Against the 50° slope the capsule itself slides
/// back down with the feet on it: measured, not gated.
fn add_skid_checks(results: &mut [ScenarioResult]) {
    for r in results.iter_mut() {
        if r.mode != FootIkMode::Predictive.name() || r.tilt != "on" {
            continue;
        }
        let f = r.metrics.foot;
        let gate = if r.name == "ramp_50_blocked" {
            Check::target
        } else {
            Check::new
        };
        r.checks.push(gate(
            "ground_skid_mean",
            f.ground_skid_mean_cm <= 2.0,
            format!(
                "{:.2} cm over {} footfalls (≤ 2)",
                f.ground_skid_mean_cm, f.footfalls
            ),
        ));
        r.checks.push(gate(
            "ground_skid_max",
            f.ground_skid_max_cm <= 5.0,
            format!("{:.2} cm worst footfall (≤ 5)", f.ground_skid_max_cm),
        ));
    }
}

/// How one scenario run is set up: foot IK mode, pelvis tilt, probe timing, where it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub ik: FootIkMode,
    pub tilt: TiltMode,
    pub probes: ProbeTiming,
    /// The start moved this far along the scenario's path (m).
    pub start_offset_m: f32,
}

impl Setup {
    pub fn new(ik: FootIkMode, tilt: TiltMode) -> Self {
        Self {
            ik,
            tilt,
            probes: ProbeTiming::Immediate,
            start_offset_m: 0.0,
        }
    }

    pub fn starting_at(self, start_offset_m: f32) -> Self {
        Self {
            start_offset_m,
            ..self
        }
    }
}

/// Pelvis tilt in a run: on (the default), off, or on with every filter open (the raw
/// normal, to show what filtering buys on rough ground).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TiltMode {
    On,
    Off,
    Raw,
}

impl TiltMode {
    pub fn name(self) -> &'static str {
        match self {
            TiltMode::On => "on",
            TiltMode::Off => "off",
            TiltMode::Raw => "raw",
        }
    }

    fn configure(self, config: &mut plantigrade::tilt::TiltConfig) {
        use plantigrade::tilt::{TiltDamping, TiltFilterConfig};
        match self {
            TiltMode::On => config.enabled = true,
            TiltMode::Off => config.enabled = false,
            TiltMode::Raw => {
                let raw = TiltFilterConfig {
                    normal_k_per_s: f32::INFINITY,
                    max_target_rate_rad_per_s: f32::INFINITY,
                    damping: TiltDamping::Exponential {
                        k_per_s: f32::INFINITY,
                    },
                };
                config.enabled = true;
                config.filter = raw;
                config.stairs_filter = raw;
            }
        }
    }
}

/// What `run_all` runs besides the scenario list.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Foot IK modes to run every scenario in (side by side in the table).
    pub modes: Vec<FootIkMode>,
    /// Pelvis tilt settings to run every scenario with.
    pub tilts: Vec<TiltMode>,
    /// Write one CSV per scenario and mode here.
    pub trace_dir: Option<std::path::PathBuf>,
    /// Every scenario starts this far along its path (m): where the footfalls land on
    /// stairs moves with it.
    pub start_offset_m: f32,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            modes: FootIkMode::ALL.to_vec(),
            tilts: vec![TiltMode::On],
            trace_dir: None,
            start_offset_m: 0.0,
        }
    }
}

/// Scenarios whose feet the gate judges (issue 5: walk and run over stairs, ramps up to
/// 40°, the cross-slope, pebbles and the beam; issue 14: ramps into stairs, rolling bumps).
fn foot_gated(name: &str) -> bool {
    is_flight(name)
        || is_junction(name)
        || name.starts_with("rolling_bumps")
        || [
            "ramp_10",
            "ramp_20",
            "ramp_30",
            "ramp_40",
            "cross_slope",
            "pebbles",
            "beam",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// SPEC QUAL targets (issue 5) on predictive mode, and predictive against classic on
/// stairs. What the foot IK meets today gates `--check`; the targets it does not meet yet
/// are recorded as non-blocking (see the issue notes for why each is missed).
fn add_foot_checks(results: &mut [ScenarioResult]) {
    let classic: Vec<(String, FootQuality)> = results
        .iter()
        .filter(|r| r.mode == FootIkMode::Classic.name() && r.tilt == "on")
        .map(|r| (r.name.clone(), r.metrics.foot))
        .collect();
    for r in results.iter_mut() {
        if r.mode != FootIkMode::Predictive.name() || r.tilt != "on" || !foot_gated(&r.name) {
            continue;
        }
        let f = r.metrics.foot;
        // Junctions have flights too: their toes meet risers as on the plain flights.
        let stairs = is_flight(&r.name) || is_junction(&r.name);
        let mut checks = vec![
            Check::new(
                "knee_flips",
                f.knee_flips == 0,
                format!("{} knee flips", f.knee_flips),
            ),
            Check::new(
                "foot_nan",
                f.nan_count == 0,
                format!("{} non-finite ticks", f.nan_count),
            ),
        ];
        if r.name.starts_with("beam") {
            // The feet too: no planted foot down on the floor beside the beam.
            let below = r
                .metrics
                .extra
                .iter()
                .find(|(k, _)| k == "feet_below_support_ticks")
                .map_or(0.0, |&(_, v)| v);
            checks.push(Check::new(
                "feet_on_beam",
                below == 0.0,
                format!("{below} stance foot-ticks on ground 0.2 m or more below the body's"),
            ));
        }
        let penetration_mean = if stairs { Check::target } else { Check::new };
        checks.push(penetration_mean(
            "penetration_mean",
            f.penetration_mean_mm <= 5.0,
            format!("{:.1} mm (≤ 5)", f.penetration_mean_mm),
        ));
        checks.push(Check::target(
            "penetration_max",
            f.penetration_max_mm <= 20.0,
            format!("{:.1} mm (≤ 20)", f.penetration_max_mm),
        ));
        checks.push(Check::target(
            "float_p95",
            f.float_p95_mm <= 15.0,
            format!("{:.1} mm (≤ 15)", f.float_p95_mm),
        ));
        checks.push(Check::target(
            "planted_drift_mean",
            f.planted_drift_mean_mm <= 10.0,
            format!("{:.1} mm (≤ 10)", f.planted_drift_mean_mm),
        ));
        // QUAL-4 as written counts the swinging foot whenever it passes low and fast
        // (lift-off, touch-down): the animation alone scores ~0.05–0.2 on flat ground. The
        // stance share is the foot-sliding measure, and it gates.
        checks.push(Check::new(
            "skate_ratio_stance",
            f.skate_ratio_stance <= 0.02,
            format!(
                "{:.3} of stance frames skate (≤ 0.02)",
                f.skate_ratio_stance
            ),
        ));
        checks.push(Check::target(
            "skate_ratio",
            f.skate_ratio <= 0.02,
            format!("{:.3} (≤ 0.02, all frames, swing included)", f.skate_ratio),
        ));
        if stairs {
            // People land forefoot first on stairs, up and down (the motion issue, item 8).
            let share = if f.step_landings == 0 {
                0.0
            } else {
                f.step_landings_forefoot as f32 / f.step_landings as f32
            };
            checks.push(Check::new(
                "forefoot_first_on_steps",
                share >= FOREFOOT_FIRST_MIN_SHARE,
                format!(
                    "{} of {} footfalls onto a tread ball first (≥ {:.0} %)",
                    f.step_landings_forefoot,
                    f.step_landings,
                    100.0 * FOREFOOT_FIRST_MIN_SHARE
                ),
            ));
            // Each footfall on one tread (item 8): never the toes over a nosing. A heel
            // hanging off a step up, the ball on the tread, is how a runner climbs.
            checks.push(Check::new(
                "sole_on_tread",
                f.stances_toes_over_edge == 0,
                format!(
                    "{} of {} stances with the toes over a step edge at mid-stance (0); {} \
                     with the heel hanging off a step up",
                    f.stances_toes_over_edge, f.stances, f.stances_heel_over_edge
                ),
            ));
            if let Some((_, c)) = classic.iter().find(|(n, _)| *n == r.name) {
                let pen_ok = f.penetration_max_mm <= 0.6 * c.penetration_max_mm;
                checks.push(Check::target(
                    "beats_classic_penetration",
                    pen_ok,
                    format!(
                        "max {:.1} mm vs classic {:.1} mm (≥ 40 % lower)",
                        f.penetration_max_mm, c.penetration_max_mm
                    ),
                ));
                checks.push(Check::target(
                    "beats_classic_float",
                    f.float_p95_mm <= c.float_p95_mm + 0.5,
                    format!(
                        "p95 {:.1} mm vs classic {:.1} mm (no worse)",
                        f.float_p95_mm, c.float_p95_mm
                    ),
                ));
            }
        }
        r.checks.extend(checks);
    }
}

pub fn print(results: &[ScenarioResult]) {
    let hz = results.first().map_or(60.0, |r| r.hz);
    let mut modes: Vec<&str> = Vec::new();
    for r in results {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
    }
    let predictive = FootIkMode::Predictive.name();
    let main_mode = if modes.contains(&predictive) {
        predictive
    } else {
        modes.first().copied().unwrap_or(predictive)
    };
    println!("\nScenarios on the test course, {hz} Hz (movement, foot IK {main_mode}; ground skid per footfall mean / max, torso lean forward +)");
    println!(
        "{:<24} {:>6} {:>8} {:>7} {:>7} {:>7} {:>12} {:>7} {:>6}  states",
        "scenario", "time s", "progress", "m/s", "rise m", "air s", "skid cm", "lean °", "ok"
    );
    for r in results.iter().filter(|r| r.mode == main_mode) {
        let m = &r.metrics;
        let ok = if results
            .iter()
            .filter(|o| o.name == r.name)
            .all(|o| o.checks.iter().all(|c| c.pass || !c.blocking))
        {
            "yes"
        } else {
            "FAIL"
        };
        println!(
            "{:<24} {:>6.2} {:>8.2} {:>7.2} {:>7.2} {:>7.2} {:>12} {:>7.1} {:>6}  {}",
            r.name,
            m.duration_s,
            m.progress_m,
            m.mean_speed_m_s,
            m.max_height_m - m.start_height_m,
            m.airborne_s,
            format!(
                "{:.1} / {:.1}",
                m.foot.ground_skid_mean_cm, m.foot.ground_skid_max_cm
            ),
            m.posture.torso_lean_mean_deg,
            ok,
            m.states.join(" → ")
        );
    }
    println!(
        "\nFoot quality against the analytic ground, modes side by side ({})",
        modes.join(" / ")
    );
    println!(
        "{:<24} {:>20} {:>20} {:>20} {:>20} {:>20} {:>9}",
        "scenario",
        "penetr. mean mm",
        "penetr. max mm",
        "float p95 mm",
        "drift mean mm",
        "skate (stance)",
        "flips"
    );
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.name.as_str()) {
            names.push(&r.name);
        }
    }
    for name in names {
        let row: Vec<&FootQuality> = modes
            .iter()
            .filter_map(|mode| {
                results
                    .iter()
                    .find(|r| r.name == name && r.mode == *mode)
                    .map(|r| &r.metrics.foot)
            })
            .collect();
        let cell = |f: &dyn Fn(&FootQuality) -> f32, digits: usize| {
            row.iter()
                .map(|q| format!("{:.*}", digits, f(q)))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "{:<24} {:>20} {:>20} {:>20} {:>20} {:>20} {:>9}",
            name,
            cell(&|q| q.penetration_mean_mm, 1),
            cell(&|q| q.penetration_max_mm, 1),
            cell(&|q| q.float_p95_mm, 1),
            cell(&|q| q.planted_drift_mean_mm, 1),
            cell(&|q| q.skate_ratio_stance, 3),
            cell(&|q| q.knee_flips as f32, 0),
        );
    }
}

/// Failed blocking checks as `scenario (mode): check detail` lines.
pub fn failures(results: &[ScenarioResult]) -> Vec<String> {
    lines(results, true)
}

/// Targets not met yet (non-blocking checks that fail), same format.
pub fn unmet_targets(results: &[ScenarioResult]) -> Vec<String> {
    lines(results, false)
}

fn lines(results: &[ScenarioResult], blocking: bool) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| {
            r.checks
                .iter()
                .filter(move |c| !c.pass && c.blocking == blocking)
                .map(move |c| format!("{} ({}): {} {}", r.name, r.mode, c.name, c.detail))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use plantigrade::mannequin::Mannequin;

    fn graph() -> Arc<GraphAsset> {
        Arc::new(Mannequin::new().default_graph().unwrap())
    }

    #[test]
    fn same_scenario_twice_is_bit_identical() {
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        let graph = graph();
        let scenario = SCENARIOS
            .iter()
            .find(|s| s.name == "stairs_up_20cm_run")
            .unwrap();
        let run = || {
            let path = path_for(&course, scenario, 0.0).unwrap();
            let mut c =
                Character::new(CharacterConfig::default(), graph.clone(), path.spawn, 0.3).unwrap();
            let mut positions = Vec::new();
            let mut poses = Vec::new();
            for tick in 0..120 {
                let mut intent = intent_for(Gait::Run, path.direction, 1.0);
                intent.jump = tick == 80;
                c.tick(1.0 / 60.0, &intent, &world).unwrap();
                positions.push(c.feet_world().to_array().map(f32::to_bits));
                poses.extend(c.pose().local().iter().flat_map(|t| {
                    let r = t.rotation.to_array().map(f32::to_bits);
                    let p = t.translation.to_array().map(f32::to_bits);
                    [r[0], r[1], r[2], r[3], p[0], p[1], p[2]]
                }));
            }
            (positions, poses)
        };
        let (a, b) = (run(), run());
        assert_eq!(a.0, b.0, "positions differ between two runs");
        assert_eq!(a.1, b.1, "poses differ between two runs");
    }

    #[test]
    fn bad_input_stays_finite() {
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        let flat = course.section("flat").unwrap();
        let mut c =
            Character::new(CharacterConfig::default(), graph(), flat.spawn_world, 0.0).unwrap();
        let bad = [
            Intent {
                move_world: Vec2::new(f32::NAN, 1.0),
                ..Intent::IDLE
            },
            Intent {
                move_world: Vec2::new(f32::INFINITY, f32::NEG_INFINITY),
                jump: true,
                ..Intent::IDLE
            },
            Intent {
                face_yaw_rad: Some(f32::NAN),
                ..Intent::IDLE
            },
        ];
        for (i, dt) in [0.0, 1.0, 1.0 / 60.0, f32::NAN, -1.0, 1.0 / 144.0]
            .into_iter()
            .cycle()
            .take(60)
            .enumerate()
        {
            c.tick(dt, &bad[i % bad.len()], &world).unwrap();
            assert!(c.feet_world().is_finite(), "tick {i}");
            assert!(
                c.model_pose().joints_model().iter().all(|m| m.is_finite()),
                "tick {i}"
            );
        }
    }

    #[test]
    fn no_ground_under_the_spawn_falls_and_is_reported() {
        // A course whose only section has its floor far from the spawn point.
        let text = r#"Course(sections: [(
            name: "flat", spawn_world: (0.0, 0.0, 0.0), direction_world: (0.0, 0.0, 1.0), length_m: 5.0,
            primitives: [(shape: Box(center_world: (100.0, -0.5, 0.0), half_extents_m: (2.0, 0.5, 2.0)))],
        )])"#;
        let course = Course::from_ron(text).unwrap();
        let scenario = Scenario {
            name: "flat_walk",
            section: "flat",
            gait: Gait::Walk,
            kind: Kind::Traverse { part: Part::Whole },
        };
        let world = RapierWorld::from_course(&course).unwrap();
        let (result, _) = run_scenario(
            &scenario,
            &course,
            &world,
            &graph(),
            60.0,
            Setup::new(FootIkMode::Predictive, TiltMode::On),
        )
        .unwrap();
        assert!(
            result.metrics.min_height_m < -10.0,
            "fell: {:?}",
            result.metrics.min_height_m
        );
        assert!(
            result.checks.iter().any(|c| !c.pass),
            "the fall is reported as a failed check"
        );
        assert!(
            result.metrics.duration_s <= 11.0,
            "the run ends on its time limit"
        );
    }

    /// Issue 5: a real rig nobody here wrote (UAL, from ../shared/assets) climbs the 20 cm
    /// stairs with its own clips through a graph file, foot IK on: no NaN, no knee flip.
    #[test]
    fn ual_rig_climbs_the_stairs_with_foot_ik() {
        let Some(path) = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb") else {
            return;
        };
        let rig = plantigrade_gltf::load_path(&path).expect("the UAL rig loads");
        let source = include_str!("../../plantigrade/benches/ual_als.ron");
        let graph = Arc::new(GraphAsset::from_ron(source, &rig.skeleton, rig.clips).unwrap());
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        for name in ["stairs_up_20cm_walk", "stairs_down_20cm_run"] {
            let scenario = SCENARIOS.iter().find(|s| s.name == name).unwrap();
            let path = path_for(&course, scenario, 0.0).unwrap();
            let c =
                Character::new(CharacterConfig::default(), graph.clone(), path.spawn, 0.0).unwrap();
            assert!(
                c.foot_ik().is_ok(),
                "UAL has foot IK: {:?}",
                c.foot_ik().err()
            );
            let (result, trace) = run_scenario(
                scenario,
                &course,
                &world,
                &graph,
                60.0,
                Setup::new(FootIkMode::Predictive, TiltMode::On),
            )
            .unwrap();
            let foot = result.metrics.foot;
            assert_eq!(foot.nan_count, 0, "{name}");
            assert_eq!(result.metrics.nan_count, 0, "{name}");
            assert_eq!(foot.knee_flips, 0, "{name}");
            assert!(trace.samples.iter().any(|s| s.feet[0].ik_alpha > 0.99));
            assert!(
                result.metrics.max_height_m - result.metrics.min_height_m > 1.0,
                "{name} crossed the flight"
            );
        }
    }

    /// IK-13: probes gathered in a batch between ticks and used one tick late keep the
    /// feet as good as immediate probes, within the issue's targets, on flat ground, a
    /// 20° ramp and the pebble field.
    #[test]
    fn batched_probes_one_tick_late_stay_within_targets() {
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        let graph = graph();
        for name in [
            "flat_walk",
            "ramp_20_up_walk",
            "pebbles_walk",
            "cross_slope_20_walk",
        ] {
            let scenario = SCENARIOS.iter().find(|s| s.name == name).unwrap();
            let mut setup = Setup::new(FootIkMode::Predictive, TiltMode::On);
            let (now, _) = run_scenario(scenario, &course, &world, &graph, 60.0, setup).unwrap();
            setup.probes = ProbeTiming::Batched;
            let (late, _) = run_scenario(scenario, &course, &world, &graph, 60.0, setup).unwrap();
            let (a, b) = (now.metrics.foot, late.metrics.foot);
            assert!(b.penetration_mean_mm <= 5.0, "{name}: {b:?}");
            assert!(b.penetration_max_mm <= 20.0, "{name}: {b:?}");
            assert!(b.float_p95_mm <= 15.0, "{name}: {b:?}");
            assert!(b.planted_drift_mean_mm <= 10.0, "{name}: {b:?}");
            assert!(b.skate_ratio_stance <= 0.02, "{name}: {b:?}");
            assert_eq!(b.knee_flips, 0, "{name}");
            assert_eq!(b.nan_count, 0, "{name}");
            // And close to the immediate run (the first tick has no results yet: the
            // animation's own sunk ball shows for one tick).
            assert!(
                (b.penetration_max_mm - a.penetration_max_mm).abs() <= 10.0,
                "{name}: {} vs {}",
                b.penetration_max_mm,
                a.penetration_max_mm
            );
        }
    }

    /// SPEC ROB-4 for issue 6: the tilt metrics agree at 30, 60 and 144 Hz — the tilt's
    /// angular velocity RMS within 10 % of the 60 Hz figure, and the settled error under
    /// the 2° target at every rate — on a ramp, the cross-slope and the pebble field.
    #[test]
    fn tilt_metrics_agree_at_30_60_and_144_hz() {
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).unwrap();
        let graph = graph();
        for name in ["ramp_20_up_walk", "cross_slope_20_walk", "pebbles_walk"] {
            let scenario = SCENARIOS.iter().find(|s| s.name == name).unwrap();
            let setup = Setup::new(FootIkMode::Predictive, TiltMode::On);
            let at = |hz: f32| {
                run_scenario(scenario, &course, &world, &graph, hz, setup)
                    .unwrap()
                    .0
                    .metrics
                    .tilt
            };
            let reference = at(60.0);
            for hz in [30.0, 144.0] {
                let t = at(hz);
                let ratio = t.tilt_angvel_rms_deg_s / reference.tilt_angvel_rms_deg_s;
                assert!(
                    (0.9..=1.1).contains(&ratio),
                    "{name} at {hz} Hz: {} vs {} °/s at 60 Hz",
                    t.tilt_angvel_rms_deg_s,
                    reference.tilt_angvel_rms_deg_s
                );
                assert!(t.settled_ticks > 0, "{name} at {hz} Hz never settled");
                assert!(
                    t.tilt_pitch_error_deg <= 2.0 && t.tilt_roll_error_deg <= 2.0,
                    "{name} at {hz} Hz: {t:?}"
                );
            }
        }
    }

    #[test]
    fn unknown_scenario_is_an_error() {
        let err = run_all(
            &["flat_wlak".to_string()],
            &Course::default_course(),
            &graph(),
            60.0,
            &RunOptions::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown scenario 'flat_wlak'"));
    }
}
