//! `crowd` (SPEC PERF-2, issue 19): N mannequins walk the course's lanes (stairs, ramps,
//! pebbles, flat, … every section) back and forth from seeded random starts, with LOD tiers
//! by distance from a viewer, ticked in parallel with rayon; then the same on one thread.
//! It prints, per LOD tier and per tick stage, µs per character-tick, the wall time per
//! frame, characters per 16.6 ms frame and heap bytes per character, and writes
//! `<out>/crowd.json`.
//!
//! Parallel ticks need no locks: the characters share one rapier world of the course that
//! is only queried (`RapierWorld`'s ray and capsule casts take `&self`, and the world is
//! `Sync`), and their capsules are not in it, so characters do not collide with each other
//! and no character's tick reads another's state. Capsules move by the core's
//! [`QueryMover`] on those casts: rapier's own `KinematicCharacterController` takes `&self`
//! too, but allocates on every move (about 80 allocations a tick, counted), and the crowd's
//! tick allocates nothing. Each
//! character draws from its own seeded stream. A tick's result therefore does not depend
//! on the thread or the order it ran in: the final poses of 1 and N threads are compared
//! bit for bit.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use plantigrade::character::ProbeTiming;
use plantigrade::motion::PathFollower;
use plantigrade::prelude::*;
use plantigrade::world::QueryMover;
use plantigrade_course::Course;
use plantigrade_rapier::RapierWorld;
use rayon::prelude::*;
use serde::Serialize;

use crate::alloc_count;
use crate::seeded::{Rng, KILL_PLANE_Y_M};

/// One frame's budget at 60 Hz (ms).
const FRAME_BUDGET_MS: f64 = 1000.0 / 60.0;
/// Simulated time (s) run before the timing starts: first ticks place LOD tiers and warm
/// buffers.
const WARM_UP_S: f32 = 0.25;
/// The viewer's eye height above the course's spawns (m), when `--viewer` is not given.
const EYE_HEIGHT_M: f32 = 1.7;

/// How many characters get full detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullDetail {
    /// Every character, no LOD (no viewer is set).
    All,
    /// The `k` nearest the viewer: after every frame the full tier's edge is moved to the
    /// k-th nearest's distance (the tier's hysteresis band still applies).
    Nearest(u32),
}

/// The LOD tiers' outer edges of a crowd (m from the viewer).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Edges {
    full_m: f32,
    reduced_m: f32,
}

/// Keeps the nearest `full_k` characters in the full tier and the nearest `reduced_k` in
/// the reduced one: after each frame, the tier edges of every character are moved to the
/// k-th nearest's distance from the viewer.
pub(crate) struct Tiering {
    viewer: Vec3,
    full_k: u32,
    reduced_k: u32,
    /// Distances of this frame (reused: no allocation per frame).
    distances: Vec<f32>,
}

impl Tiering {
    /// The edges for where the agents are now.
    fn edges(&mut self, agents: &[Agent]) -> Edges {
        self.distances.clear();
        self.distances.extend(
            agents
                .iter()
                .map(|a| a.character.feet_world().distance(self.viewer)),
        );
        let kth = |distances: &mut [f32], k: u32| {
            if distances.is_empty() {
                return 0.0;
            }
            let index = (k as usize).clamp(1, distances.len()) - 1;
            *distances.select_nth_unstable_by(index, f32::total_cmp).1
        };
        let full_m = kth(&mut self.distances, self.full_k);
        Edges {
            full_m,
            reduced_m: kth(&mut self.distances, self.reduced_k).max(full_m),
        }
    }

    /// Moves every agent's tier edges to where the agents are now; the edges.
    pub(crate) fn apply(&mut self, agents: &mut [Agent]) -> Edges {
        let edges = self.edges(agents);
        for agent in agents {
            let config = agent.character.lod_config_mut();
            config.full_max_distance_m = edges.full_m;
            config.reduced_max_distance_m = edges.reduced_m;
        }
        edges
    }
}

/// What `crowd` is asked to do.
#[derive(Clone, Debug)]
pub struct CrowdArgs {
    /// Crowd sizes, each run in turn.
    pub characters: Vec<u32>,
    /// Threads of the parallel run (the one-thread run always follows).
    pub threads: usize,
    /// Simulated seconds per run.
    pub seconds: f32,
    /// The viewer (camera) for LOD tiers, world (m); the middle of the course by default.
    pub viewer: Option<Vec3>,
    pub full_detail: FullDetail,
    /// Foot probes inside each tick, or gathered and run as one batch after the frame's
    /// ticks (SPEC IK-13), used next tick.
    pub probes: ProbeTiming,
    /// With a viewer, the reduced tier reaches the this-many nearest (the rest is
    /// `Off`).
    pub reduced_detail: u32,
    pub seed: u64,
    /// Beyond full detail, the fingers go to rest and are not sampled (SPEC PERF-5).
    pub joint_culling: bool,
    pub hz: f32,
    /// Exit non-zero unless 1 and N threads end in bit-identical poses.
    pub check: bool,
    /// Where crowd.json goes.
    pub out: PathBuf,
}

/// Time spent in each stage (ns) over a number of character-ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StageNs {
    movement: u64,
    animation: u64,
    procedural: u64,
    /// The batched probes' pass (0 when the probes run inside the procedural stage).
    probes: u64,
    ticks: u64,
}

impl StageNs {
    fn add(&mut self, other: &StageNs) {
        self.movement += other.movement;
        self.animation += other.animation;
        self.procedural += other.procedural;
        self.probes += other.probes;
        self.ticks += other.ticks;
    }

    /// Mean µs per character-tick of each stage.
    fn per_tick_us(&self) -> StageUs {
        let per = |ns: u64| ns as f64 / 1000.0 / self.ticks.max(1) as f64;
        StageUs {
            movement: per(self.movement),
            animation: per(self.animation),
            procedural: per(self.procedural),
            probes: per(self.probes),
            total: per(self.movement + self.animation + self.procedural + self.probes),
        }
    }
}

/// The tier's slot in per-tier arrays.
fn tier_index(tier: LodTier) -> usize {
    match tier {
        LodTier::Full => 0,
        LodTier::Reduced => 1,
        LodTier::Off => 2,
    }
}

const TIER_NAMES: [&str; 3] = ["full", "reduced", "off"];
/// What each tier runs, in the crowd's settings (LodConfig's defaults but for the ground
/// follow).
const TIER_NOTES: [&str; 3] = [
    "graph every tick, full mover, both feet probed",
    "graph every 2nd tick, full mover, one foot probed a tick",
    "graph every 4th tick, ground follow, IK faded out",
];

/// Walks its lane back and forth: to the lane's end, back to its start, again.
#[derive(Clone, Debug)]
struct Walker {
    path: PathFollower,
}

impl Walker {
    fn intent(&mut self, feet_world: Vec3, config: &CharacterConfig) -> Intent {
        if self.path.is_finished() {
            self.path.restart();
        }
        self.path.intent(feet_world, config)
    }
}

/// A crowd member: the character, what drives it, where it goes back to after a fall, and
/// what its ticks cost per tier (kept here so threads never share a counter).
#[derive(Clone, Debug)]
pub(crate) struct Agent {
    character: Character,
    walker: Walker,
    home_world: Vec3,
    cost: [StageNs; 3],
}

impl Agent {
    #[cfg(test)]
    pub(crate) fn character(&self) -> &Character {
        &self.character
    }
}

/// One tick of one agent, each stage timed when `timed`. Touches nothing but the agent:
/// the world is only queried.
pub(crate) fn step(
    agent: &mut Agent,
    world: &Physics,
    dt_s: f32,
    timed: bool,
) -> Result<(), CharacterError> {
    let Agent {
        character,
        walker,
        home_world,
        cost,
    } = agent;
    if character.feet_world().y < KILL_PLANE_Y_M {
        character.teleport(*home_world, None)?;
        walker.path.restart();
    }
    let intent = walker.intent(character.feet_world(), character.config());
    let t0 = Instant::now();
    character.tick_movement(dt_s, &intent, world)?;
    let t1 = Instant::now();
    character.tick_animation()?;
    let t2 = Instant::now();
    character.tick_procedural(world)?;
    if timed {
        let t3 = Instant::now();
        let slot = &mut cost[tier_index(character.lod().tier())];
        slot.movement += (t1 - t0).as_nanos() as u64;
        slot.animation += (t2 - t1).as_nanos() as u64;
        slot.procedural += (t3 - t2).as_nanos() as u64;
        slot.ticks += 1;
    }
    Ok(())
}

/// What the crowd's characters move and probe in: the course in rapier, capsules moved by
/// the core's query mover on rapier's casts.
pub(crate) type Physics = QueryMover<RapierWorld>;

/// One agent's share of the frame's probe batch (SPEC IK-13): the requests of its tick,
/// cast now, used by its next tick. Timed when `timed`.
pub(crate) fn probe(agent: &mut Agent, world: &Physics, timed: bool) {
    let started = Instant::now();
    agent.character.run_probes(world);
    if timed {
        let slot = &mut agent.cost[tier_index(agent.character.lod().tier())];
        slot.probes += started.elapsed().as_nanos() as u64;
    }
}

/// The shared, read-only part of a crowd: the course, its rapier world and the graph.
pub(crate) struct Stage {
    course: Course,
    pub(crate) world: Physics,
    graph: Arc<GraphAsset>,
    /// The joints tiered characters cull beyond full detail (SPEC PERF-5): the
    /// mannequin's fingers.
    pub(crate) culled_joints: Vec<String>,
}

impl Stage {
    pub(crate) fn new() -> anyhow::Result<Self> {
        let course = Course::default_course();
        let world = RapierWorld::from_course(&course).context("building the course in rapier")?;
        let graph = Arc::new(plantigrade::mannequin::Mannequin::new().default_graph()?);
        let skeleton = graph.skeleton();
        let culled_joints = plantigrade::lod::suggested_culled_joints(
            skeleton,
            &plantigrade::bone_map::HumanoidMap::detect(skeleton),
        );
        Ok(Self {
            course,
            world: QueryMover::new(world),
            graph,
            culled_joints,
        })
    }

    /// The middle of the course's spawns, at eye height.
    fn default_viewer(&self) -> Vec3 {
        let spawns = &self.course.sections;
        let sum: Vec3 = spawns.iter().map(|s| s.spawn_world).sum();
        sum / spawns.len().max(1) as f32 + Vec3::Y * EYE_HEIGHT_M
    }

    /// `n` agents from `seed`: each on a random lane at a random point along it, walking
    /// or running toward the lane's end. With a viewer, the full tier reaches the
    /// `full_detail`-th nearest and the reduced tier the `reduced_detail`-th (the
    /// [`Tiering`] returned keeps them so); the far tier follows the ground (movement LOD).
    pub(crate) fn spawn(
        &self,
        n: u32,
        seed: u64,
        viewer: Option<Vec3>,
        (full_detail, reduced_detail): (FullDetail, u32),
        probes: ProbeTiming,
    ) -> anyhow::Result<(Vec<Agent>, Option<Tiering>)> {
        let sections = &self.course.sections;
        anyhow::ensure!(!sections.is_empty(), "the course has no sections");
        let mut starts = Vec::with_capacity(n as usize);
        for k in 0..n {
            let mut rng = Rng::for_character(seed, k);
            let section = &sections[rng.index(sections.len())];
            let along_m = rng.range(0.0, section.length_m);
            let mut at = section.spawn_world + section.direction_world * along_m;
            at.y = self
                .course
                .ground_height(at.x, at.z)
                .unwrap_or(section.spawn_world.y);
            let run = rng.chance(0.5);
            starts.push((section, at, run));
        }
        let mut tiering = match (viewer, full_detail) {
            (Some(viewer), FullDetail::Nearest(full_k)) => Some(Tiering {
                viewer,
                full_k,
                reduced_k: reduced_detail,
                distances: Vec::with_capacity(n as usize),
            }),
            _ => None,
        };
        let mut settings = CharacterSettings::default();
        if tiering.is_some() {
            // Movement LOD: the far tier follows the ground with one ray.
            settings.lod.ground_follow_when_off = true;
            settings.lod_culled_joints = self.culled_joints.clone();
        }
        let mut agents = Vec::with_capacity(n as usize);
        let mut landing_poses = None;
        for (section, at, run) in starts {
            let direction = section.direction_world;
            let yaw = direction.x.atan2(direction.z);
            let mut builder =
                Character::builder(Arc::clone(&self.graph)).settings(settings.clone());
            if let Some(shared) = &landing_poses {
                builder = builder.landing_poses(Arc::clone(shared));
            }
            let mut character = builder.spawn(at, yaw)?;
            landing_poses.get_or_insert_with(|| Arc::clone(character.landing_poses()));
            character.set_probe_timing(probes);
            if tiering.is_some() {
                character.set_viewer(viewer);
            }
            let end = section.end_world();
            let path = PathFollower::new(&[end, section.spawn_world]).with_run(run);
            agents.push(Agent {
                character,
                walker: Walker { path },
                home_world: section.spawn_world,
                cost: [StageNs::default(); 3],
            });
        }
        if let Some(tiering) = &mut tiering {
            tiering.apply(&mut agents);
        }
        Ok((agents, tiering))
    }
}

/// What one run measured.
#[derive(Clone, Debug)]
struct RunFigures {
    threads: usize,
    frames_timed: u32,
    wall_ms_mean: f64,
    wall_ms_max: f64,
    /// Per tier, summed over the agents.
    tiers: [StageNs; 3],
    /// The tier edges, mean over the timed frames (`None` without LOD).
    edges_mean: Option<Edges>,
    /// Moving the tier edges after each frame (ms; in the wall time).
    retier_ms_mean: f64,
    bytes_per_character: f64,
    digest: u64,
}

/// A digest of every agent's final place, facing and model pose, bit for bit.
pub(crate) fn digest(agents: &[Agent]) -> u64 {
    // FNV-1a over the floats' bits.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: f32| {
        for byte in x.to_bits().to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for agent in agents {
        let c = &agent.character;
        c.feet_world().to_array().into_iter().for_each(&mut eat);
        eat(c.facing_yaw_rad());
        for joint in c.model_pose().joints_model() {
            joint.to_cols_array().into_iter().for_each(&mut eat);
        }
    }
    hash
}

/// Ticks `agents` for `frames` frames of `dt_s`, on the current thread (`pool` `None`) or
/// in parallel on `pool`. With `probes` batched, each frame starts with one pass that casts
/// the probes the last frame's ticks asked for. The first `warm_up` frames are not timed.
pub(crate) fn run_frames(
    agents: &mut [Agent],
    world: &Physics,
    (pool, probes): (Option<&rayon::ThreadPool>, ProbeTiming),
    dt_s: f32,
    (frames, warm_up): (u32, u32),
    mut on_frame: impl FnMut(&mut [Agent], Option<f64>),
) -> anyhow::Result<()> {
    for frame in 0..frames {
        let timed = frame >= warm_up;
        let started = Instant::now();
        if probes == ProbeTiming::Batched {
            match pool {
                None => agents.iter_mut().for_each(|a| probe(a, world, timed)),
                Some(pool) => {
                    pool.install(|| agents.par_iter_mut().for_each(|a| probe(a, world, timed)))
                }
            }
        }
        let result = match pool {
            None => agents
                .iter_mut()
                .enumerate()
                .try_for_each(|(k, a)| step(a, world, dt_s, timed).map_err(|e| (k, e))),
            Some(pool) => pool.install(|| {
                agents
                    .par_iter_mut()
                    .enumerate()
                    .try_for_each(|(k, a)| step(a, world, dt_s, timed).map_err(|e| (k, e)))
            }),
        };
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        if let Err((k, e)) = result {
            anyhow::bail!("character {k}, frame {frame}: {e}");
        }
        on_frame(agents, timed.then_some(wall_ms));
    }
    Ok(())
}

/// One crowd size on `threads` threads (1: the current thread, no pool).
fn run_one(
    stage: &Stage,
    args: &CrowdArgs,
    n: u32,
    threads: usize,
    viewer: Option<Vec3>,
    progress: &ProgressBar,
) -> anyhow::Result<RunFigures> {
    let dt_s = 1.0 / args.hz;
    let frames = (args.seconds * args.hz).round().max(1.0) as u32;
    let warm_up = ((WARM_UP_S * args.hz).round() as u32).min(frames / 4);
    let pool = if threads > 1 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .context("starting the thread pool")?,
        )
    } else {
        None
    };
    progress.set_message(format!("{n} characters, {threads} thread(s)"));
    let bytes_before = alloc_count::live_bytes();
    let (mut agents, mut tiering) = stage.spawn(
        n,
        args.seed,
        viewer,
        (args.full_detail, args.reduced_detail),
        args.probes,
    )?;
    let (mut wall_sum_ms, mut wall_max_ms) = (0.0f64, 0.0f64);
    let (mut retier_sum_ms, mut edges_sum) = (0.0f64, Edges::default());
    run_frames(
        &mut agents,
        &stage.world,
        (pool.as_ref(), args.probes),
        dt_s,
        (frames, warm_up),
        |agents, wall_ms| {
            // The host's share of LOD: the tier edges follow the crowd.
            let started = Instant::now();
            let edges = tiering.as_mut().map(|t| t.apply(agents));
            let retier_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let Some(ms) = wall_ms {
                wall_sum_ms += ms + retier_ms;
                wall_max_ms = wall_max_ms.max(ms + retier_ms);
                retier_sum_ms += retier_ms;
                if let Some(edges) = edges {
                    edges_sum.full_m += edges.full_m;
                    edges_sum.reduced_m += edges.reduced_m;
                }
            }
            progress.inc(1);
        },
    )?;
    // Everything the agents hold after running (buffers grown in their first ticks
    // included), the shared course, world and graph not.
    let bytes = alloc_count::live_bytes().saturating_sub(bytes_before);
    let mut tiers = [StageNs::default(); 3];
    for agent in &agents {
        for (sum, cost) in tiers.iter_mut().zip(&agent.cost) {
            sum.add(cost);
        }
    }
    let frames_timed = frames - warm_up;
    let per_frame = 1.0 / f64::from(frames_timed.max(1));
    Ok(RunFigures {
        threads,
        frames_timed,
        wall_ms_mean: wall_sum_ms * per_frame,
        wall_ms_max: wall_max_ms,
        tiers,
        edges_mean: tiering.is_some().then(|| Edges {
            full_m: (f64::from(edges_sum.full_m) * per_frame) as f32,
            reduced_m: (f64::from(edges_sum.reduced_m) * per_frame) as f32,
        }),
        retier_ms_mean: retier_sum_ms * per_frame,
        bytes_per_character: bytes as f64 / f64::from(n),
        digest: digest(&agents),
    })
}

#[derive(Serialize)]
struct StageUs {
    movement: f64,
    animation: f64,
    procedural: f64,
    /// Batched probes (`--probes batched`), else 0.
    probes: f64,
    total: f64,
}

#[derive(Serialize)]
struct TierJson {
    /// Mean characters in the tier per frame.
    characters: f64,
    stage_us: StageUs,
}

#[derive(Serialize)]
struct RunJson {
    characters: u32,
    threads: usize,
    /// Mean characters at full detail per frame.
    full_detail: f64,
    wall_ms_per_frame: f64,
    wall_ms_per_frame_max: f64,
    characters_per_16_6ms_frame: f64,
    /// µs per character-tick over every character.
    stage_us: StageUs,
    tiers: BTreeMap<&'static str, TierJson>,
    /// Heap bytes the agents hold after the run, over the character count.
    bytes_per_character: f64,
    seconds: f32,
    hz: f32,
    frames_timed: u32,
    /// The tier edges (m from the viewer), mean over the frames.
    full_tier_edge_m: Option<f32>,
    reduced_tier_edge_m: Option<f32>,
    /// Moving the tier edges after each frame (ms per frame; in `wall_ms_per_frame`).
    retier_ms_per_frame: f64,
    viewer: Option<[f32; 3]>,
    final_pose_digest: String,
}

#[derive(Serialize)]
struct CrowdJson {
    runs: Vec<RunJson>,
}

fn to_json(n: u32, f: &RunFigures, args: &CrowdArgs, viewer: Option<Vec3>) -> RunJson {
    let frames = f64::from(f.frames_timed.max(1));
    let mut all = StageNs::default();
    f.tiers.iter().for_each(|t| all.add(t));
    let tiers = TIER_NAMES
        .iter()
        .zip(&f.tiers)
        .map(|(name, t)| {
            (
                *name,
                TierJson {
                    characters: t.ticks as f64 / frames,
                    stage_us: t.per_tick_us(),
                },
            )
        })
        .collect();
    RunJson {
        characters: n,
        threads: f.threads,
        full_detail: f.tiers[0].ticks as f64 / frames,
        wall_ms_per_frame: f.wall_ms_mean,
        wall_ms_per_frame_max: f.wall_ms_max,
        characters_per_16_6ms_frame: f64::from(n) * FRAME_BUDGET_MS / f.wall_ms_mean.max(1e-9),
        stage_us: all.per_tick_us(),
        tiers,
        bytes_per_character: f.bytes_per_character,
        seconds: args.seconds,
        hz: args.hz,
        frames_timed: f.frames_timed,
        full_tier_edge_m: f.edges_mean.map(|e| e.full_m),
        reduced_tier_edge_m: f.edges_mean.map(|e| e.reduced_m),
        retier_ms_per_frame: f.retier_ms_mean,
        viewer: viewer.map(|v| v.to_array()),
        final_pose_digest: format!("{:016x}", f.digest),
    }
}

/// Prints one crowd size's runs side by side, one column per run.
fn print_size(n: u32, runs: &[RunFigures], args: &CrowdArgs, viewer: Option<Vec3>) {
    let frames = runs.first().map_or(0, |r| r.frames_timed);
    let detail = match (viewer, runs.first().and_then(|r| r.edges_mean)) {
        (Some(v), Some(edges)) => format!(
            "viewer ({:.1}, {:.1}, {:.1}); full tier the nearest {} (edge {:.2} m on average), reduced the nearest {} ({:.2} m), ground follow beyond",
            v.x,
            v.y,
            v.z,
            match args.full_detail {
                FullDetail::Nearest(k) => k.min(n),
                FullDetail::All => n,
            },
            edges.full_m,
            args.reduced_detail.min(n),
            edges.reduced_m,
        ),
        _ => "no viewer: every character at full detail".to_string(),
    };
    println!(
        "\n{n} characters, {} s at {} Hz ({frames} frames timed after {WARM_UP_S} s); {detail}",
        args.seconds, args.hz
    );
    let head: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{} thread{}",
                r.threads,
                if r.threads == 1 { "" } else { "s" }
            )
        })
        .collect();
    let row = |label: &str, cells: Vec<String>| {
        let cells: String = cells.iter().map(|c| format!("{c:>12}")).collect();
        println!("  {label:<40}{cells}");
    };
    row("", head);
    row(
        "wall ms per frame (mean)",
        runs.iter()
            .map(|r| format!("{:.2}", r.wall_ms_mean))
            .collect(),
    );
    row(
        "wall ms per frame (max)",
        runs.iter()
            .map(|r| format!("{:.2}", r.wall_ms_max))
            .collect(),
    );
    row(
        "characters per 16.6 ms frame",
        runs.iter()
            .map(|r| {
                format!(
                    "{:.0}",
                    f64::from(n) * FRAME_BUDGET_MS / r.wall_ms_mean.max(1e-9)
                )
            })
            .collect(),
    );
    println!("  µs per character-tick, per tier (mean characters in it) and stage:");
    let mut all_tiers: Vec<StageNs> = vec![StageNs::default(); runs.len()];
    for (i, name) in TIER_NAMES.iter().enumerate() {
        if runs.iter().all(|r| r.tiers[i].ticks == 0) {
            continue;
        }
        let count = runs[0].tiers[i].ticks as f64 / f64::from(runs[0].frames_timed.max(1));
        let us: Vec<StageUs> = runs.iter().map(|r| r.tiers[i].per_tick_us()).collect();
        println!(
            "    {name}: {count:.0} characters on average; {}",
            TIER_NOTES[i]
        );
        for (stage, pick) in [
            (
                "movement",
                (|u: &StageUs| u.movement) as fn(&StageUs) -> f64,
            ),
            ("animation", |u| u.animation),
            ("procedural (tilt, foot IK, look)", |u| u.procedural),
            ("probes (batched)", |u| u.probes),
            ("total", |u| u.total),
        ] {
            if stage == "probes (batched)" && args.probes == ProbeTiming::Immediate {
                continue;
            }
            row(
                &format!("      {stage}"),
                us.iter().map(|u| format!("{:.2}", pick(u))).collect(),
            );
        }
        for (sum, r) in all_tiers.iter_mut().zip(runs) {
            sum.add(&r.tiers[i]);
        }
    }
    row(
        &format!("  every character ({n}) total"),
        all_tiers
            .iter()
            .map(|t| format!("{:.2}", t.per_tick_us().total))
            .collect(),
    );
    if runs.iter().any(|r| r.edges_mean.is_some()) {
        row(
            "moving the tier edges (ms per frame)",
            runs.iter()
                .map(|r| format!("{:.3}", r.retier_ms_mean))
                .collect(),
        );
    }
    row(
        "heap bytes per character",
        runs.iter()
            .map(|r| format!("{:.0}", r.bytes_per_character))
            .collect(),
    );
    row(
        "final pose digest",
        runs.iter()
            .map(|r| format!("{:08x}", r.digest >> 32))
            .collect(),
    );
}

/// Runs every crowd size on `threads` threads and on one, prints the table, writes
/// crowd.json; `Ok(false)` when `check` and the runs' final poses differ.
pub fn run(args: CrowdArgs) -> anyhow::Result<bool> {
    validate(&args)?;
    let mut stage = Stage::new()?;
    if !args.joint_culling {
        stage.culled_joints.clear();
    }
    let viewer = match args.full_detail {
        FullDetail::All => None,
        FullDetail::Nearest(_) => Some(args.viewer.unwrap_or_else(|| stage.default_viewer())),
    };
    let thread_counts: Vec<usize> = if args.threads > 1 {
        vec![args.threads, 1]
    } else {
        vec![1]
    };
    let frames = (args.seconds * args.hz).round().max(1.0) as u64;
    let progress = ProgressBar::new(frames * (args.characters.len() * thread_counts.len()) as u64)
        .with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} frames  {msg}  ({elapsed})")
                .context("progress bar template")?,
        );
    println!(
        "crowd: the mannequin on the course in rapier (query mover), seed {}, {} thread(s) then 1, probes {}, {} joints culled beyond full detail; µs are each character's own stage times (on its thread)",
        args.seed,
        args.threads,
        match args.probes {
            ProbeTiming::Immediate => "in each tick",
            ProbeTiming::Batched => "batched per frame",
        },
        if viewer.is_some() {
            stage.culled_joints.len()
        } else {
            0
        }
    );
    let mut json = CrowdJson { runs: Vec::new() };
    let mut identical = true;
    for &n in &args.characters {
        let mut figures = Vec::new();
        for &threads in &thread_counts {
            figures.push(run_one(&stage, &args, n, threads, viewer, &progress)?);
        }
        progress.suspend(|| print_size(n, &figures, &args, viewer));
        let same = figures.windows(2).all(|w| w[0].digest == w[1].digest);
        if figures.len() > 1 {
            progress.suspend(|| {
                println!(
                    "  final poses of {} and 1 thread: {}",
                    args.threads,
                    if same { "bit-identical" } else { "DIFFERENT" }
                )
            });
        }
        identical &= same;
        json.runs
            .extend(figures.iter().map(|f| to_json(n, f, &args, viewer)));
    }
    progress.finish_and_clear();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let path = args.out.join("crowd.json");
    let text = serde_json::to_string_pretty(&json).context("serialising the crowd")?;
    std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    println!("\nwrote {}", path.display());
    if !identical {
        println!("FAIL the final poses differ between thread counts");
        return Ok(!args.check);
    }
    Ok(true)
}

/// Refuses arguments that cannot make a run.
fn validate(args: &CrowdArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !args.characters.is_empty(),
        "--characters needs at least one size"
    );
    for &n in &args.characters {
        anyhow::ensure!(
            (1..=1_000_000).contains(&n),
            "--characters: each size must be 1 to 1000000, got {n}"
        );
    }
    anyhow::ensure!(
        (1..=256).contains(&args.threads),
        "--threads must be 1 to 256, got {}",
        args.threads
    );
    anyhow::ensure!(
        args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= 3600.0,
        "--seconds must be above 0 and at most 3600, got {}",
        args.seconds
    );
    anyhow::ensure!(
        args.hz.is_finite() && (10.0..=1000.0).contains(&args.hz),
        "--hz must be between 10 and 1000, got {}",
        args.hz
    );
    if let Some(v) = args.viewer {
        anyhow::ensure!(
            v.is_finite(),
            "--viewer must be three finite numbers, got {v}"
        );
    }
    if let FullDetail::Nearest(k) = args.full_detail {
        anyhow::ensure!(k >= 1, "--full-detail must be at least 1 (or 'all')");
        anyhow::ensure!(
            args.reduced_detail >= k,
            "--reduced-detail ({}) must be at least --full-detail ({k})",
            args.reduced_detail
        );
    }
    Ok(())
}

/// `--characters 100,1000,10000`.
pub fn parse_sizes(text: &str) -> Result<Vec<u32>, String> {
    text.split(',')
        .map(|part| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{part}' is not a whole number of characters"))
        })
        .collect()
}

/// `--viewer X,Y,Z` (m, world).
pub fn parse_viewer(text: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = text.split(',').collect();
    let [x, y, z] = parts.as_slice() else {
        return Err(format!("expected X,Y,Z (three numbers), got '{text}'"));
    };
    let number = |s: &str| {
        s.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("'{s}' is not a finite number"))
    };
    Ok(Vec3::new(number(x)?, number(y)?, number(z)?))
}

/// `--probes immediate` or `--probes batched`.
pub fn parse_probes(text: &str) -> Result<ProbeTiming, String> {
    match text.trim() {
        "immediate" => Ok(ProbeTiming::Immediate),
        "batched" => Ok(ProbeTiming::Batched),
        other => Err(format!("expected immediate or batched, got '{other}'")),
    }
}

/// `--full-detail 32` or `--full-detail all`.
pub fn parse_full_detail(text: &str) -> Result<FullDetail, String> {
    if text.trim() == "all" {
        return Ok(FullDetail::All);
    }
    text.trim()
        .parse::<u32>()
        .map(FullDetail::Nearest)
        .map_err(|_| format!("expected a number of characters or 'all', got '{text}'"))
}

#[cfg(test)]
mod tests;
