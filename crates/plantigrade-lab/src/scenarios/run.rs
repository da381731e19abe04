//! Running scenarios: one run's setup, the tick loop and its figures, and every chosen
//! scenario in every mode with the checks across runs added at the end.

use glam::Vec3;
use plantigrade::character::{run_probe_batch, Character, ProbeTiming};
use plantigrade::graph::MachineId;
use plantigrade::ik::FootIkMode;
use plantigrade::world::{CharacterPhysics, QueryMover};
use plantigrade_course::Course;
use plantigrade_rapier::RapierWorld;
use serde::Serialize;

use super::actor::Actor;
use super::catalog::{chosen, is_plaza_script, Kind, Scenario, CIRCLE_RADIUS_M, CIRCLE_SETTLED_S};
use super::checks::{
    add_feet_apart_checks, add_foot_checks, add_pop_checks, add_skid_checks, add_tilt_checks,
    checks_for, Context,
};
use super::path::{circle_centre, first_drop, horizontal, obstacle_span, path_for};
use super::sample::Sampler;
use super::script::{intent_for, plaza_intent, plaza_script_s};
use super::trace::{Trace, DEBUG_DRAW_EVERY_TICKS};
use crate::continuity::{self, ContinuityQuality};
use crate::quality::{self, FootQuality, PostureProfile, PostureQuality, TickSample, TiltQuality};
use crate::report::Check;
use Kind::*;

/// One scenario's figures and checks, as written to results.json.
#[derive(Serialize, Clone, Debug)]
pub struct ScenarioResult {
    pub name: String,
    /// Foot IK mode: `none`, `classic` or `predictive`.
    pub mode: String,
    /// Pelvis tilt: `on`, `off`, or `raw` (on, unfiltered; for the pebble check).
    pub tilt: String,
    pub hz: f32,
    /// Which mover moved the capsule: written only when it is not rapier's (the default),
    /// so a default run's results.json is unchanged.
    #[serde(skip_serializing_if = "Mover::is_rapier_name")]
    pub mover: String,
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

/// Runs one scenario at `hz` with foot IK in `mode`.
pub fn run_scenario(
    scenario: &Scenario,
    course: &Course,
    world: &RapierWorld,
    actor: &Actor,
    hz: f32,
    setup: Setup,
) -> anyhow::Result<(ScenarioResult, Trace)> {
    let graph = &actor.graph;
    let Setup {
        ik: mode,
        tilt,
        probes,
        start_offset_m,
        mover,
    } = setup;
    // Queries (foot probes, tilt, headroom) always come from the rapier world; only the
    // capsule's collide-and-slide changes with the mover.
    let query_mover = QueryMover::new(world);
    let physics: &dyn CharacterPhysics = match mover {
        Mover::Rapier => world,
        Mover::Queries => &query_mover,
    };
    let path = path_for(course, scenario, start_offset_m)?;
    let config = actor.settings.motion.clone();
    let facing = if scenario.kind == Backpedal {
        (-path.direction.x).atan2(-path.direction.z)
    } else {
        path.direction.x.atan2(path.direction.z)
    };
    let mut character = Character::builder(graph.clone())
        .settings(actor.settings.clone())
        .spawn(path.spawn, facing)?;
    character.set_foot_ik_mode(mode);
    character.set_probe_timing(probes);
    character.set_debug_draw(setup_debug_draw(mode));
    tilt.configure(character.tilt_config_mut());
    let sampler = Sampler::new(graph, actor.settings.bone_map.as_ref());
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
        character.tick(dt, &intent, physics)?;
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
        mover: mover.name().into(),
        start_offset_m,
        metrics,
        checks,
    };
    Ok((result, trace))
}

/// Debug draw is recorded for the predictive runs only (the others draw the same probes
/// minus the prediction).
fn setup_debug_draw(mode: FootIkMode) -> bool {
    mode == FootIkMode::Predictive
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

/// Runs the chosen scenarios (all when `names` is empty) on `course`.
pub fn run_all(
    names: &[String],
    course: &Course,
    actor: &Actor,
    hz: f32,
    options: &RunOptions,
) -> anyhow::Result<Vec<ScenarioResult>> {
    run_all_observed(names, course, actor, hz, options, &mut |_, _, _| Ok(()))
}

/// [`run_all`], handing each run to `observe` as it finishes (the report draws it): its
/// scenario, its result before the checks across runs are added, and its trace.
pub fn run_all_observed(
    names: &[String],
    course: &Course,
    actor: &Actor,
    hz: f32,
    options: &RunOptions,
    observe: &mut crate::report::draw::Observer,
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
                let setup = Setup::new(mode, tilt)
                    .starting_at(options.start_offset_m)
                    .with_mover(options.mover);
                let (result, trace) = run_scenario(scenario, course, &world, actor, hz, setup)?;
                if let Some(dir) = &options.trace_dir {
                    let suffix = if tilt == TiltMode::On {
                        String::new()
                    } else {
                        format!("_tilt_{}", tilt.name())
                    };
                    let file = dir.join(format!("{}_{}{suffix}.csv", scenario.name, mode.name()));
                    quality::write_trace_csv(&file, &trace.samples)
                        .map_err(|e| anyhow::anyhow!("writing {}: {e}", file.display()))?;
                    let file = dir.join(format!(
                        "{}_{}{suffix}_pose.csv",
                        scenario.name,
                        mode.name()
                    ));
                    quality::write_pose_csv(&file, &trace.samples, actor.graph.skeleton().names())
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
                observe(scenario, &result, trace)?;
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
            actor,
            hz,
            Setup::new(FootIkMode::Predictive, TiltMode::Raw)
                .starting_at(options.start_offset_m)
                .with_mover(options.mover),
        )?;
    }
    Ok(results)
}

/// How one scenario run is set up: foot IK mode, pelvis tilt, probe timing, where it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub ik: FootIkMode,
    pub tilt: TiltMode,
    pub probes: ProbeTiming,
    /// The start moved this far along the scenario's path (m).
    pub start_offset_m: f32,
    /// What moves the capsule.
    pub mover: Mover,
}

impl Setup {
    pub fn new(ik: FootIkMode, tilt: TiltMode) -> Self {
        Self {
            ik,
            tilt,
            probes: ProbeTiming::Immediate,
            start_offset_m: 0.0,
            mover: Mover::Rapier,
        }
    }

    pub fn with_mover(self, mover: Mover) -> Self {
        Self { mover, ..self }
    }

    pub fn starting_at(self, start_offset_m: f32) -> Self {
        Self {
            start_offset_m,
            ..self
        }
    }
}

/// What moves the character's capsule in a run (`--mover`): rapier's
/// `KinematicCharacterController` through `RapierWorld` (the default), or the core's
/// [`QueryMover`] on the same world's queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    Rapier,
    Queries,
}

impl Mover {
    pub const ALL: [Mover; 2] = [Mover::Rapier, Mover::Queries];

    pub fn name(self) -> &'static str {
        match self {
            Mover::Rapier => "rapier",
            Mover::Queries => "queries",
        }
    }

    pub fn from_name(name: &str) -> Option<Mover> {
        Mover::ALL.into_iter().find(|m| m.name() == name)
    }

    fn is_rapier_name(name: &str) -> bool {
        name == Mover::Rapier.name()
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
    /// What moves the capsule in every run.
    pub mover: Mover,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            modes: FootIkMode::ALL.to_vec(),
            tilts: vec![TiltMode::On],
            trace_dir: None,
            start_offset_m: 0.0,
            mover: Mover::Rapier,
        }
    }
}
