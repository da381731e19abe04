//! SPEC PERF-3: Bevy 0.19's own animation (`AnimationGraph` + `AnimationPlayer`) side by side
//! with plantigrade's graph, on the same UAL clips and the same 53-joint skeleton, for 1 000
//! characters, each blending the same three clips with the same weights.
//!
//! `cargo bench -p plantigrade-bevy --bench animation_vs_bevy`
//!
//! What is timed, per frame (one fixed step of 1/60 s), and nothing else:
//! - Bevy: a schedule holding only `bevy_animation::advance_animations` then
//!   `bevy_animation::animate_targets` (the two systems of `AnimationPlugin` that do the
//!   work; its other systems handle transitions, events and asset changes, none of which
//!   happen here). Each character is an `AnimationPlayer` entity with an `AnimationGraph`
//!   (root → blend node → three clip nodes weighted 0.5 / 0.3 / 0.2, all playing and
//!   repeating) and one entity per joint (`Transform`, `AnimationTargetId`, `AnimatedBy`,
//!   `ChildOf`). Output: every joint's local `Transform`.
//! - plantigrade: a schedule holding `GraphInstance::tick` for every character (a blend
//!   space placing the three clips on a triangle, the parameters at the point where the
//!   weights are 0.5 / 0.3 / 0.2, no phase sync, root motion left in the pose), then the
//!   copy of each pose into the joint entities' local `Transform`s, as the plugin's
//!   `write_transforms` does. Output: every joint's local `Transform`. The graph-only time
//!   (pose buffers, no ECS write) is printed too.
//!
//! Both sides iterate the characters with `Query::par_iter_mut` on Bevy's
//! `ComputeTaskPool` (Bevy's `animate_targets` iterates the joints that way), so both get
//! the same parallelism from the same pool. Bevy's task pools are global to a process and
//! set once, so each pairing runs in its own child process (the same bench binary), with
//! Bevy and plantigrade side by side inside it, their rounds interleaved:
//! - `1 thread`: `TaskPoolOptions::with_num_threads(1)` and the single-threaded executor.
//! - `default pools`: `TaskPoolOptions::default()` and the multi-threaded executor. Bevy
//!   gives the compute pool the cores left after one IO and one async-compute thread: on a
//!   2-core machine that is 1 thread, and `par_iter_mut` then runs serially.
//! - `compute = all cores`: the default pools but with the compute pool given every core,
//!   so both sides really do run in parallel.
//!
//! Transform propagation, rendering and skinning are not run on either side. Each row gives
//! the median over the rounds of the wall-clock time and of the process's on-CPU time (all
//! its threads, `CLOCK_PROCESS_CPUTIME_ID`, on 64-bit Linux: on a machine shared with other
//! work the wall clock also counts the time the others held the cores), per character per
//! frame, and Bevy's time over ours.
//!
//! Before timing, one character on each side is run for 240 frames and every joint's local
//! transform compared: each clip alone (the sampling: same keys, same interpolation), then
//! the blend. The blends differ by design in how rotations are averaged: Bevy folds the
//! clips in one at a time with a slerp by the accumulated weight, plantigrade takes the
//! normalised weighted sum of the quaternions (nlerp); for rotations far apart (a shin
//! between walk and sprint) the two answers differ by up to a degree or two. A clip alone
//! agrees to float rounding except on a frame that lands exactly on the loop point: Bevy
//! wraps each clip's clock every frame (`%`), our unsynced blend keeps the elapsed time and
//! wraps it when sampling (`rem_euclid`), so the two roundings can fall on either side of the
//! end and one samples the last key while the other samples the first (`Sprint_Loop`'s
//! differ by 0.65° at the left forearm).
//!
//! Under `cargo test` (no `--bench` argument) it runs a small smoke pass instead. Without
//! ../shared/assets it prints why and skips.

use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::app::{App, TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
use bevy::asset::{AssetPlugin, Assets, Handle};
use bevy::ecs::schedule::{MultiThreadedExecutor, ScheduleLabel, SingleThreadedExecutor};
use bevy::math::curve::{ConstantCurve, Interval};
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy_animation::animated_field;
use bevy_animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve, AnimatedField};
use bevy_animation::gltf_curves::SteppedKeyframeCurve;
use bevy_animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy_animation::{
    advance_animations, animate_targets, AnimatedBy, AnimationClip, AnimationPlayer,
    AnimationPlugin, AnimationTargetId,
};
use plantigrade::clip::Interpolation;
use plantigrade::graph::def::{
    BlendSpaceOptions, GraphDef, NodeDef, ParamDef, RootAxis, RootMotionDef, Sample2D,
};
use plantigrade::graph::{GraphAsset, GraphInstance};
use plantigrade::pose::Pose;
use plantigrade::{Clip, Skeleton};

/// The three UAL clips blended, and their weights.
const CLIPS: [&str; 3] = ["Walk_Loop", "Jog_Fwd_Loop", "Sprint_Loop"];
const WEIGHTS: [f32; 3] = [0.5, 0.3, 0.2];
const DT_S: f32 = 1.0 / 60.0;
/// The environment variable that makes this binary run one pairing (a child process).
const MODE_VAR: &str = "PLANTIGRADE_PERF3_MODE";

/// Sizes of a run.
#[derive(Clone, Copy, Debug)]
struct Plan {
    characters: usize,
    warmup_frames: usize,
    rounds: usize,
    frames_per_round: usize,
}

const FULL: Plan = Plan {
    characters: 1000,
    warmup_frames: 20,
    rounds: 15,
    frames_per_round: 8,
};

const SMOKE: Plan = Plan {
    characters: 4,
    warmup_frames: 1,
    rounds: 1,
    frames_per_round: 1,
};

/// A thread setup (one pairing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    OneThread,
    DefaultPools,
    AllCores,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::OneThread, Mode::DefaultPools, Mode::AllCores];

    fn key(self) -> &'static str {
        match self {
            Mode::OneThread => "one",
            Mode::DefaultPools => "default",
            Mode::AllCores => "all",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Mode::OneThread => "1 thread",
            Mode::DefaultPools => "default pools",
            Mode::AllCores => "compute = all cores",
        }
    }

    fn from_key(key: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.key() == key)
    }

    fn task_pools(self) -> TaskPoolOptions {
        match self {
            Mode::OneThread => TaskPoolOptions::with_num_threads(1),
            Mode::DefaultPools => TaskPoolOptions::default(),
            Mode::AllCores => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                TaskPoolOptions {
                    compute: TaskPoolThreadAssignmentPolicy {
                        min_threads: cores,
                        max_threads: usize::MAX,
                        percent: 1.0,
                        on_thread_spawn: None,
                        on_thread_destroy: None,
                    },
                    ..Default::default()
                }
            }
        }
    }

    fn set_executor(self, schedule: &mut Schedule) {
        match self {
            Mode::OneThread => schedule.set_executor(SingleThreadedExecutor::new()),
            _ => schedule.set_executor(MultiThreadedExecutor::new()),
        };
    }
}

/// The rig both sides animate: our loader's skeleton and the three clips.
struct Rig {
    skeleton: Skeleton,
    clips: Vec<Clip>,
}

fn load_rig() -> Option<Rig> {
    let path = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb")?;
    let asset = match plantigrade_gltf::load_path(&path) {
        Ok(a) => a,
        Err(err) => {
            eprintln!("skipping PERF-3: {} ({err})", path.display());
            return None;
        }
    };
    let mut clips = Vec::new();
    for name in CLIPS {
        let Some(clip) = asset.clips.iter().find(|c| c.name() == name) else {
            eprintln!("skipping PERF-3: the UAL rig has no clip {name}");
            return None;
        };
        clips.push(clip.clone());
    }
    Some(Rig {
        skeleton: asset.skeleton,
        clips,
    })
}

// ----------------------------------------------------------------------------------------
// Bevy's side
// ----------------------------------------------------------------------------------------

#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct BevyAnimation;

/// Adds one track as a keyframe curve the way Bevy's glTF loader builds one
/// (`AnimatableKeyframeCurve`: linear for vectors, slerp for rotations; `SteppedKeyframeCurve`
/// for step tracks), or as a constant for a one-key track. A macro, so each field keeps its own accessor closure as in the loader.
macro_rules! add_track {
    ($clip:expr, $target:expr, $track:expr, $field:ident) => {{
        let track = $track;
        if track.times_s().len() == 1 {
            let curve = ConstantCurve::new(Interval::EVERYWHERE, track.values()[0]);
            $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(animated_field!(Transform::$field), curve),
            );
        } else if track.interpolation() == Interpolation::Step {
            let keys = track
                .times_s()
                .iter()
                .copied()
                .zip(track.values().iter().copied());
            let curve = SteppedKeyframeCurve::new(keys).map_err(|e| e.to_string())?;
            $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(animated_field!(Transform::$field), curve),
            );
        } else if track.interpolation() != Interpolation::Linear {
            return Err(format!(
                "a {:?} track (only linear and step tracks are converted)",
                track.interpolation()
            ));
        } else {
            let keys = track
                .times_s()
                .iter()
                .copied()
                .zip(track.values().iter().copied());
            let curve = AnimatableKeyframeCurve::new(keys).map_err(|e| e.to_string())?;
            $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(animated_field!(Transform::$field), curve),
            );
        }
    }};
}

/// The same clip as a Bevy `AnimationClip`: the same keys, times and interpolation, one
/// target per joint (its id from the joint's path of names, as Bevy's glTF loader does).
fn bevy_clip(clip: &Clip, targets: &[AnimationTargetId]) -> Result<AnimationClip, String> {
    let mut out = AnimationClip::default();
    for (tracks, &target) in clip.joint_tracks().iter().zip(targets) {
        if let Some(t) = &tracks.translation {
            add_track!(out, target, t, translation);
        }
        if let Some(t) = &tracks.rotation {
            add_track!(out, target, t, rotation);
        }
        if let Some(t) = &tracks.scale {
            add_track!(out, target, t, scale);
        }
    }
    out.set_duration(clip.duration_s());
    Ok(out)
}

fn target_ids(skeleton: &Skeleton) -> Vec<AnimationTargetId> {
    (0..skeleton.num_joints())
        .map(|joint| {
            let mut path = vec![skeleton.name(joint)];
            let mut j = joint;
            while let Some(parent) = skeleton.parent(j) {
                path.push(skeleton.name(parent));
                j = parent;
            }
            path.reverse();
            AnimationTargetId::from_iter(path)
        })
        .collect()
}

fn to_bevy(t: &plantigrade::skeleton::Transform) -> Transform {
    Transform {
        translation: t.translation,
        rotation: t.rotation,
        scale: t.scale,
    }
}

/// Bevy's side: its app and the joint entities of character 0.
struct BevySide {
    app: App,
    first_joints: Vec<Entity>,
}

fn bevy_side(
    rig: &Rig,
    characters: usize,
    mode: Mode,
    weights: [f32; 3],
) -> Result<BevySide, String> {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin {
            task_pool_options: mode.task_pools(),
        },
        AssetPlugin::default(),
        AnimationPlugin,
    ));
    app.insert_resource(Time::<()>::default());
    let targets = target_ids(&rig.skeleton);
    let world = app.world_mut();
    let mut handles: Vec<Handle<AnimationClip>> = Vec::new();
    for clip in &rig.clips {
        let bevy_clip =
            bevy_clip(clip, &targets).map_err(|e| format!("clip {} has {e}", clip.name()))?;
        handles.push(world.resource_mut::<Assets<AnimationClip>>().add(bevy_clip));
    }
    let mut graph = AnimationGraph::new();
    let blend = graph.add_blend(1.0, graph.root);
    let nodes: Vec<AnimationNodeIndex> = handles
        .iter()
        .zip(weights)
        .map(|(h, w)| graph.add_clip(h.clone(), w, blend))
        .collect();
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);

    let rest = rig.skeleton.rest_local();
    let mut first_joints = Vec::new();
    for c in 0..characters {
        let mut player = AnimationPlayer::default();
        // A clip node with no weight is left stopped. (Playing it would not cost the blend
        // anything, but when the first two clips a blend node folds in both weigh 0 Bevy
        // divides 0 by 0 and the joint's rotation becomes NaN.)
        for (&node, &w) in nodes.iter().zip(&weights) {
            if w > 0.0 {
                player.play(node).repeat();
            }
        }
        let root = world
            .spawn((
                player,
                AnimationGraphHandle(graph.clone()),
                Transform::from_xyz(c as f32, 0.0, 0.0),
            ))
            .id();
        let mut joints: Vec<Entity> = Vec::with_capacity(rest.len());
        for (j, rest) in rest.iter().enumerate() {
            let parent = rig.skeleton.parent(j).map_or(root, |p| joints[p]);
            let e = world
                .spawn((to_bevy(rest), targets[j], AnimatedBy(root), ChildOf(parent)))
                .id();
            joints.push(e);
        }
        if c == 0 {
            first_joints = joints;
        }
    }

    let mut schedule = Schedule::new(BevyAnimation);
    schedule.add_systems((advance_animations, animate_targets).chain());
    mode.set_executor(&mut schedule);
    app.add_schedule(schedule);
    app.finish();
    app.cleanup();
    // Two updates so the plugin threads the graph (from the asset events) and everything
    // is in place. Time has not advanced, so every clip is still at time 0.
    app.update();
    app.update();
    Ok(BevySide { app, first_joints })
}

impl BevySide {
    fn frame(&mut self, dt: Duration) {
        let world = self.app.world_mut();
        world.resource_mut::<Time>().advance_by(dt);
        world.run_schedule(BevyAnimation);
    }

    fn pose(&mut self) -> Vec<Transform> {
        let world = self.app.world();
        self.first_joints
            .iter()
            .map(|&e| *world.get::<Transform>(e).expect("joint"))
            .collect()
    }
}

// ----------------------------------------------------------------------------------------
// plantigrade's side
// ----------------------------------------------------------------------------------------

#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct OursFull;

#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct OursGraphOnly;

#[derive(Resource)]
struct OursDt(f32);

#[derive(Component)]
struct OursCharacter {
    graph: GraphInstance,
    pose: Pose,
    joints: Vec<Entity>,
}

#[derive(Component)]
struct OursJoint;

fn ours_tick(dt: Res<OursDt>, mut characters: Query<&mut OursCharacter>) {
    let dt = dt.0;
    characters.par_iter_mut().for_each(|mut c| {
        let c = &mut *c;
        c.graph.tick(dt, &mut c.pose).ok();
    });
}

fn ours_write(
    characters: Query<&OursCharacter>,
    mut joints: Query<&mut Transform, With<OursJoint>>,
) {
    for c in &characters {
        for (t, &joint) in c.pose.local().iter().zip(&c.joints) {
            if let Ok(mut transform) = joints.get_mut(joint) {
                *transform = to_bevy(t);
            }
        }
    }
}

/// The three clips on a triangle: at (x, y) the weights are (1 − x − y, x, y).
fn ours_graph(rig: &Rig, weights: [f32; 3]) -> Result<GraphAsset, String> {
    let def = GraphDef {
        parameters: vec![
            ParamDef::Float("x".into(), weights[1]),
            ParamDef::Float("y".into(), weights[2]),
        ],
        base: NodeDef::BlendSpace2D {
            x_param: "x".into(),
            y_param: "y".into(),
            samples: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
                .into_iter()
                .zip(CLIPS)
                .map(|(position, clip)| Sample2D {
                    clip: clip.into(),
                    position,
                    start_phase: None,
                })
                .collect(),
            options: BlendSpaceOptions {
                // Bevy plays each clip on its own clock; so does an unsynced blend.
                sync: false,
                ..Default::default()
            },
        },
        layers: Vec::new(),
        root_motion: RootMotionDef {
            joint: None,
            x: RootAxis::Keep,
            y: RootAxis::Keep,
            z: RootAxis::Keep,
            yaw: RootAxis::Keep,
        },
    };
    GraphAsset::from_def(&def, &rig.skeleton, rig.clips.clone()).map_err(|e| e.to_string())
}

struct OursSide {
    world: World,
    first: Entity,
}

fn ours_side(
    rig: &Rig,
    characters: usize,
    mode: Mode,
    weights: [f32; 3],
) -> Result<OursSide, String> {
    let asset = Arc::new(ours_graph(rig, weights)?);
    let mut world = World::new();
    world.insert_resource(OursDt(DT_S));
    let rest = rig.skeleton.rest_local();
    let mut first = Entity::PLACEHOLDER;
    for c in 0..characters {
        let root = world.spawn(Transform::from_xyz(c as f32, 0.0, 0.0)).id();
        let mut joints: Vec<Entity> = Vec::with_capacity(rest.len());
        for (j, rest) in rest.iter().enumerate() {
            let parent = rig.skeleton.parent(j).map_or(root, |p| joints[p]);
            joints.push(
                world
                    .spawn((to_bevy(rest), OursJoint, ChildOf(parent)))
                    .id(),
            );
        }
        world.entity_mut(root).insert(OursCharacter {
            graph: GraphInstance::new(asset.clone()),
            pose: Pose::rest(&rig.skeleton),
            joints,
        });
        if c == 0 {
            first = root;
        }
    }
    let mut full = Schedule::new(OursFull);
    full.add_systems((ours_tick, ours_write).chain());
    mode.set_executor(&mut full);
    world.add_schedule(full);
    let mut graph_only = Schedule::new(OursGraphOnly);
    graph_only.add_systems(ours_tick);
    mode.set_executor(&mut graph_only);
    world.add_schedule(graph_only);
    Ok(OursSide { world, first })
}

impl OursSide {
    fn frame(&mut self, dt_s: f32, write: bool) {
        self.world.resource_mut::<OursDt>().0 = dt_s;
        if write {
            self.world.run_schedule(OursFull);
        } else {
            self.world.run_schedule(OursGraphOnly);
        }
    }

    fn pose(&mut self) -> Vec<Transform> {
        let c = self
            .world
            .get::<OursCharacter>(self.first)
            .expect("character");
        let joints = c.joints.clone();
        joints
            .iter()
            .map(|&e| *self.world.get::<Transform>(e).expect("joint"))
            .collect()
    }
}

// ----------------------------------------------------------------------------------------
// Equivalence and timing
// ----------------------------------------------------------------------------------------

/// The largest differences between the two sides' joint transforms.
#[derive(Default)]
struct Difference {
    translation_m: (f32, usize, usize),
    rotation_deg: (f32, usize, usize),
    scale: f32,
}

/// The angle between two rotations (degrees), from the chord between the quaternions:
/// `Quat::angle_between` goes through `acos` of their dot product, which near 1 cannot
/// resolve less than about 0.04° in f32.
fn angle_deg(a: Quat, b: Quat) -> f32 {
    let (a, b) = (Vec4::from(a), Vec4::from(b));
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (4.0 * ((a - b).length() * 0.5).min(1.0).asin()).to_degrees()
}

/// Runs both sides for one character over `frames` ticks with `weights` and compares every
/// joint's local transform after every tick.
fn compare(rig: &Rig, mode: Mode, frames: usize, weights: [f32; 3]) -> Result<Difference, String> {
    let dt = Duration::from_secs_f32(DT_S);
    let dt_s = dt.as_secs_f32();
    let mut bevy = bevy_side(rig, 1, mode, weights)?;
    let mut ours = ours_side(rig, 1, mode, weights)?;
    let mut d = Difference::default();
    for frame in 1..=frames {
        bevy.frame(dt);
        ours.frame(dt_s, true);
        let (b, o) = (bevy.pose(), ours.pose());
        for (j, (b, o)) in b.iter().zip(&o).enumerate() {
            let t = b.translation.distance(o.translation);
            if t > d.translation_m.0 {
                d.translation_m = (t, j, frame);
            }
            let r = angle_deg(b.rotation, o.rotation);
            if !(b.is_finite() && o.is_finite()) {
                return Err(format!(
                    "{}: not finite at frame {frame} (Bevy {b:?}, ours {o:?})",
                    rig.skeleton.name(j)
                ));
            }
            if r > d.rotation_deg.0 {
                d.rotation_deg = (r, j, frame);
            }
            d.scale = d.scale.max((b.scale - o.scale).abs().max_element());
        }
    }
    Ok(d)
}

/// Prints how far apart the two sides' poses are: each clip alone (the sampling), then the
/// benchmarked three-way blend.
fn equivalence(rig: &Rig, mode: Mode, frames: usize) -> Result<(), String> {
    println!(
        "equivalence, 1 character, every joint's local transform after each of {frames} \
         frames of 1/60 s:"
    );
    let mut cases: Vec<(String, [f32; 3])> = CLIPS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut w = [0.0; 3];
            w[i] = 1.0;
            (format!("{name} alone"), w)
        })
        .collect();
    cases.push((format!("blend {WEIGHTS:?}"), WEIGHTS));
    for (label, weights) in cases {
        let d = compare(rig, mode, frames, weights)?;
        println!(
            "  {label:<24} max |Δ translation| {:.2e} m ({}, frame {}), max Δ rotation \
             {:.2e}° ({}, frame {}), max |Δ scale| {:.1e}",
            d.translation_m.0,
            rig.skeleton.name(d.translation_m.1),
            d.translation_m.2,
            d.rotation_deg.0,
            rig.skeleton.name(d.rotation_deg.1),
            d.rotation_deg.2,
            d.scale,
        );
    }
    Ok(())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// On-CPU time of all the threads of this process (nanoseconds), from the process CPU-time
/// clock; `None` where that is not read here (only 64-bit Linux is). Unlike the wall clock it
/// leaves out the time other processes on the machine held the cores.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn process_cpu_ns() -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec (two 64-bit fields on 64-bit Linux) to a
    // valid pointer and reads nothing else.
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn process_cpu_ns() -> Option<u64> {
    None
}

/// Wall and on-CPU time of one timed round.
struct Stopwatch {
    wall: Instant,
    cpu_ns: Option<u64>,
}

impl Stopwatch {
    fn start() -> Self {
        Self {
            cpu_ns: process_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// (wall, CPU) seconds since the start.
    fn stop(self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu_ns, process_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 * 1e-9,
            _ => f64::NAN,
        };
        (wall, cpu)
    }
}

/// Median wall and CPU µs per character per frame of the rounds of one side.
#[derive(Default)]
struct Rounds {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Rounds {
    fn time(&mut self, plan: Plan, mut frame: impl FnMut()) {
        let watch = Stopwatch::start();
        for _ in 0..plan.frames_per_round {
            frame();
        }
        let (wall, cpu) = watch.stop();
        let per = 1e6 / (plan.frames_per_round * plan.characters) as f64;
        self.wall.push(wall * per);
        self.cpu.push(cpu * per);
    }

    fn medians(mut self) -> (f64, f64) {
        (median(&mut self.wall), median(&mut self.cpu))
    }
}

/// Times one pairing and prints its table row. The three timed loops take turns, round by
/// round, so a burst of load from elsewhere falls on all of them alike.
fn run_pairing(rig: &Rig, mode: Mode, plan: Plan) -> Result<(), String> {
    let dt = Duration::from_secs_f32(DT_S);
    let dt_s = dt.as_secs_f32();
    let mut bevy = bevy_side(rig, plan.characters, mode, WEIGHTS)?;
    let mut ours = ours_side(rig, plan.characters, mode, WEIGHTS)?;
    let compute_threads = ComputeTaskPool::get().thread_num();
    for _ in 0..plan.warmup_frames {
        bevy.frame(dt);
        ours.frame(dt_s, true);
        ours.frame(dt_s, false);
    }
    let (mut b, mut o, mut g) = (Rounds::default(), Rounds::default(), Rounds::default());
    for _ in 0..plan.rounds {
        b.time(plan, || bevy.frame(dt));
        o.time(plan, || ours.frame(dt_s, true));
        g.time(plan, || ours.frame(dt_s, false));
    }
    black_box(bevy.pose());
    black_box(ours.pose());
    let ((bw, bc), (ow, oc), (gw, gc)) = (b.medians(), o.medians(), g.medians());
    println!(
        "| {:<19} | {:>3} | {:>7.2} | {:>7.2} | {:>5.1}× | {:>7.2} | {:>7.2} | {:>5.1}× | \
         {:>7.2} | {:>7.2} | {:>5.1}× |",
        mode.label(),
        compute_threads,
        bw,
        ow,
        bw / ow,
        bc,
        oc,
        bc / oc,
        gw,
        gc,
        bc / gc,
    );
    Ok(())
}

fn header(plan: Plan, joints: usize) {
    println!(
        "PERF-3: {} characters × {joints} joints, clips {} weighted {:?}, {} rounds of {} \
         frames after {} warm-up frames; µs per character per frame, median of the rounds. \
         wall: elapsed time; CPU: on-CPU time of all the process's threads. Load average \
         before: {}",
        plan.characters,
        CLIPS.join(" / "),
        WEIGHTS,
        plan.rounds,
        plan.frames_per_round,
        plan.warmup_frames,
        std::fs::read_to_string("/proc/loadavg")
            .map_or_else(|_| "unknown".into(), |l| l.trim().to_string()),
    );
    println!(
        "| pairing             | cpt | Bevy    | ours    | ratio  | Bevy    | ours    | ratio  \
         | graph   | graph   | ratio  |"
    );
    println!(
        "|                     |     | wall    | wall    | wall   | CPU     | CPU     | CPU    \
         | wall    | CPU     | CPU    |"
    );
    println!(
        "|---------------------|----:|--------:|--------:|-------:|--------:|--------:|-------:\
         |--------:|--------:|-------:|"
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let Some(rig) = load_rig() else {
        return;
    };
    let joints = rig.skeleton.num_joints();
    let result = match std::env::var(MODE_VAR)
        .ok()
        .as_deref()
        .and_then(Mode::from_key)
    {
        // A child: one pairing.
        Some(mode) => run_pairing(&rig, mode, FULL),
        None if !full => {
            // `cargo test`: a quick pass through every step, in this process.
            header(SMOKE, joints);
            run_pairing(&rig, Mode::OneThread, SMOKE)
                .and_then(|()| equivalence(&rig, Mode::OneThread, 3))
        }
        None => {
            let result = equivalence(&rig, Mode::OneThread, 240);
            header(FULL, joints);
            result.and_then(|()| run_children())
        }
    };
    if let Err(err) = result {
        eprintln!("PERF-3 failed: {err}");
        std::process::exit(1);
    }
}

/// Each pairing in its own process (Bevy's task pools are set once per process).
fn run_children() -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    for mode in Mode::ALL {
        let status = Command::new(&exe)
            .arg("--bench")
            .env(MODE_VAR, mode.key())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("the {} pairing failed ({status})", mode.label()));
        }
    }
    Ok(())
}
