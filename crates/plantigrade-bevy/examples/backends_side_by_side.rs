//! The same scripted walks in a headless Bevy app (MinimalPlugins, 60 Hz fixed step) on each
//! physics backend, graded with the lab's own foot metrics: the stairs (20 cm), the 20°
//! ramp and the pebbles of the test course, each walked straight ahead at half stick for
//! 5 s by the built-in mannequin. The metrics are `plantigrade-lab`'s QUAL-1..3 code
//! (`quality/foot.rs`, compiled in here from the lab's source, so both backends and the lab
//! grade alike), fed per tick from the plugin's character and the course's analytic ground.
//!
//! `cargo run -p plantigrade-bevy --example backends_side_by_side --features avian`
//!
//! Prints one row per scenario and backend: penetration (max, mm), float (p95, mm),
//! planted drift (mean, mm), stances, the feet's end point, and the relative difference of
//! avian from rapier.
//!
//! Two more rows per scenario, each a core `Character` ticked outside the plugin on the same
//! app's world (which is what the plugin ticks, bit for bit: the headless tests check it):
//! - rapier's queries with the core's `QueryMover` as the mover: the mover the avian backend
//!   uses, on rapier's casts, so that avian vs this row is the engines' casts alone and
//!   rapier vs this row the movers alone;
//! - avian's queries with avian 0.7's own `MoveAndSlide` moving the capsule instead of the
//!   core's `QueryMover` (grounded read by the same downward probe `QueryMover` makes;
//!   `MoveAndSlide` has no step-up, ground snap or slope limit): the avian backend's choice
//!   of mover.

// The lab's metric modules, as the lab compiles them (it is a binary, not a library).
#[allow(dead_code, clippy::all)]
#[path = "../../plantigrade-lab/src/quality/foot.rs"]
mod foot;
#[allow(dead_code, clippy::all)]
#[path = "../../plantigrade-lab/src/quality/sample.rs"]
mod sample;
#[allow(dead_code, clippy::all)]
#[path = "../../plantigrade-lab/src/quality/stats.rs"]
mod stats;
// The integration tests' course colliders and physics plugins per backend.
#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use avian3d::prelude::{
    Collider, LayerMask, MoveAndSlide, MoveAndSlideConfig, MoveAndSlideHitResponse,
    SpatialQueryFilter,
};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use plantigrade::character::Character;
use plantigrade::mannequin::Mannequin;
use plantigrade::motion::Intent;
use plantigrade::prelude::CharacterSettings;
use plantigrade::world::{
    Capsule, CharacterMover, CharacterPhysics, MoveRequest, MoveResult, QueryFilter, QueryMover,
    RayHit, SpatialQueries,
};
use plantigrade_bevy::{
    spawn_character, CharacterIntent, PhysicsBackend, PlantigradeCharacter, PlantigradePlugin,
    PlantigradeSystems, PlantigradeWorld,
};
use plantigrade_course::Course;

use foot::{foot_quality, FootQuality};
use sample::{FootSample, TickSample};

const HZ: f32 = 60.0;
/// Ticks per scenario: 5 s.
const TICKS: u64 = 300;
/// The course sections walked (the lab's stairs, ramp and pebble lanes).
const SECTIONS: [&str; 3] = ["stairs_20cm", "ramp_20deg", "pebbles"];

/// The samples of the run so far.
#[derive(Resource, Default)]
struct Samples(Vec<TickSample>);

#[derive(Resource)]
struct Ground(Course);

/// Straight ahead (+Z, the course's direction) at half stick: a walk.
const WALK: Intent = Intent {
    move_world: Vec2::new(0.0, 0.5),
    ..Intent::IDLE
};

fn walk(mut q: Query<&mut CharacterIntent>) {
    for mut intent in &mut q {
        *intent = WALK.into();
    }
}

/// One [`TickSample`] per plugin character tick.
fn sample(mut samples: ResMut<Samples>, course: Res<Ground>, q: Query<&PlantigradeCharacter>) {
    let Ok(pc) = q.single() else { return };
    if samples.0.len() as u64 >= pc.ticks() {
        return;
    }
    let tick = sample_of(pc.character(), &course.0, samples.0.len());
    samples.0.push(tick);
}

/// Tick `index` of `c`, as the lab's sampler fills the fields the foot metrics read.
fn sample_of(c: &Character, course: &Course, index: usize) -> TickSample {
    let model = c.model_pose();
    let ik = c.foot_ik_output().copied().unwrap_or_default();
    let mut tick = TickSample {
        time_s: index as f32 / HZ,
        root_world: c.feet_world(),
        grounded: c.output().vars.is_grounded,
        pelvis_rotation_world: Quat::IDENTITY,
        forward_world: c.facing_world() * Vec3::Z,
        reach_clamps: ik.reach_clamps,
        non_finite: !c.feet_world().is_finite()
            || !model.joints_model().iter().all(|m| m.is_finite()),
        ..TickSample::default()
    };
    let legs = c.foot_ik().expect("the mannequin has foot IK").rig().legs;
    for (i, leg) in legs.iter().enumerate() {
        let joint = leg.chain.foot;
        let heel_world = c.model_to_world(model.point_model(joint, leg.sockets.heel_foot_local));
        let ball_world = c.model_to_world(model.point_model(joint, leg.sockets.ball_foot_local));
        let mid = 0.5 * (heel_world + ball_world);
        let report = ik.feet[i];
        tick.feet[i] = FootSample {
            knee_world: c.model_to_world(model.position_model(leg.chain.calf)),
            ankle_world: c.model_to_world(model.position_model(joint)),
            heel_world,
            ball_world,
            ground_under_heel_m: course.ground_height(heel_world.x, heel_world.z),
            ground_under_ball_m: course.ground_height(ball_world.x, ball_world.z),
            ground_under_mid_m: course.ground_height(mid.x, mid.z),
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
    }
    tick
}

/// avian 0.7's `MoveAndSlide` as plantigrade's mover, on the avian backend's queries
/// (`queries`), for the mover measurement only.
struct MoveAndSlideWorld<'a, 'w, 's> {
    queries: &'a dyn CharacterPhysics,
    move_and_slide: &'a MoveAndSlide<'w, 's>,
}

impl SpatialQueries for MoveAndSlideWorld<'_, '_, '_> {
    fn cast_ray(&self, origin: Vec3, direction: Vec3, max: f32, f: QueryFilter) -> Option<RayHit> {
        self.queries.cast_ray(origin, direction, max, f)
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max: f32,
        f: QueryFilter,
    ) -> Option<RayHit> {
        self.queries
            .cast_capsule(capsule, center, direction, max, f)
    }
}

impl CharacterMover for MoveAndSlideWorld<'_, '_, '_> {
    /// The capsule floats a skin above the feet, as `QueryMover`'s does; `MoveAndSlide`
    /// keeps that skin (`skin_width`). Grounded: walkable ground within skin + 5 cm below
    /// the end (the probe `QueryMover` makes, rapier's ground-detection reach).
    fn move_capsule(&self, r: &MoveRequest) -> MoveResult {
        let none = MoveResult {
            translation: Vec3::ZERO,
            grounded: false,
            floor_normal: None,
            sliding_down_slope: false,
            hit_wall: false,
        };
        if !(r.dt_s > 0.0 && r.desired_translation.is_finite() && r.feet.is_finite()) {
            return none;
        }
        let skin_m = r.limits.skin_m;
        let center = r.capsule.center_from_feet(r.feet) + Vec3::Y * skin_m;
        let shape = Collider::capsule(r.capsule.radius_m, 2.0 * r.capsule.half_height_m);
        let filter = SpatialQueryFilter::from_mask(LayerMask(r.filter.layers.0));
        let config = MoveAndSlideConfig {
            skin_width: skin_m,
            ..MoveAndSlideConfig::default()
        };
        let out = self.move_and_slide.move_and_slide(
            &shape,
            center,
            Quat::IDENTITY,
            r.desired_translation / r.dt_s,
            Duration::from_secs_f32(r.dt_s),
            &config,
            &filter,
            |_| MoveAndSlideHitResponse::Accept,
        );
        let floor = self
            .queries
            .cast_capsule(r.capsule, out.position, -Vec3::Y, skin_m + 0.05, r.filter)
            .filter(|hit| hit.normal.y >= r.limits.max_slope_climb_rad.cos());
        MoveResult {
            translation: out.position - center,
            grounded: floor.is_some(),
            floor_normal: floor.map(|hit| hit.normal),
            ..none
        }
    }
}

/// A core character ticked outside the plugin (no capsule in the world, so nothing to
/// exclude).
#[derive(Resource)]
struct Standalone(Character);

/// Whether the physics world has the course yet (rapier takes colliders in at its first
/// step): the ground under `c`'s feet answers a ray. The plugin's characters wait the same
/// way, for their capsule.
fn world_ready(world: &dyn CharacterPhysics, c: &Character) -> bool {
    let above = c.feet_world() + Vec3::Y * 0.5;
    world
        .cast_ray(above, -Vec3::Y, 1.0, QueryFilter::GROUND)
        .is_some()
}

fn tick_with_move_and_slide(
    time: Res<Time>,
    world: PlantigradeWorld,
    move_and_slide: MoveAndSlide,
    course: Res<Ground>,
    mut character: ResMut<Standalone>,
    mut samples: ResMut<Samples>,
) {
    let c = &mut character.0;
    let ticked = world
        .with_physics(|queries| {
            let world = MoveAndSlideWorld {
                queries,
                move_and_slide: &move_and_slide,
            };
            world_ready(&world, c).then(|| c.tick(time.delta_secs(), &WALK, &world))
        })
        .expect("an avian world");
    // Before the world has the course there is no tick to sample.
    let Some(tick) = ticked else { return };
    tick.expect("a tick");
    let index = samples.0.len();
    samples.0.push(sample_of(c, &course.0, index));
}

fn tick_with_query_mover(
    time: Res<Time>,
    world: PlantigradeWorld,
    course: Res<Ground>,
    mut character: ResMut<Standalone>,
    mut samples: ResMut<Samples>,
) {
    let c = &mut character.0;
    let ticked = world
        .with_physics(|queries| {
            let world = QueryMover::new(queries);
            world_ready(&world, c).then(|| c.tick(time.delta_secs(), &WALK, &world))
        })
        .expect("a rapier context");
    // Before the world has the course there is no tick to sample.
    let Some(tick) = ticked else { return };
    tick.expect("a tick");
    let index = samples.0.len();
    samples.0.push(sample_of(c, &course.0, index));
}

/// What moves the capsule in a run, on which queries.
#[derive(Clone, Copy, PartialEq)]
enum Setup {
    /// The plugin's own, on `backend`.
    Plugin(PhysicsBackend),
    /// avian's `MoveAndSlide`, on a core character outside the plugin.
    AvianMoveAndSlide,
    /// The core's `QueryMover` on rapier's queries, on a core character outside the plugin.
    RapierQueryMover,
}

/// Walks `section` for [`TICKS`] with `setup`: the foot metrics and where the feet ended.
fn run(course: &Course, setup: Setup, section: &str) -> (FootQuality, Vec3) {
    let backend = match setup {
        Setup::Plugin(backend) => backend,
        Setup::AvianMoveAndSlide => PhysicsBackend::Avian,
        Setup::RapierQueryMover => PhysicsBackend::Rapier,
    };
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin));
    common::add_physics(&mut app, backend);
    app.add_plugins(PlantigradePlugin::default().with_backend(backend))
        .insert_resource(Time::<Fixed>::from_hz(f64::from(HZ)))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / f64::from(HZ),
        )))
        .insert_resource(Ground(course.clone()))
        .init_resource::<Samples>();
    let spawn_world = course
        .section(section)
        .expect("a course section")
        .spawn_world;
    let graph = Arc::new(
        Mannequin::new()
            .default_graph()
            .expect("the mannequin's graph"),
    );
    let character = Character::builder(graph)
        .settings(CharacterSettings::default())
        .spawn(spawn_world, 0.0)
        .expect("the mannequin spawns");
    common::spawn_course(&mut app.world_mut().commands(), course, backend);
    let entity = match setup {
        Setup::Plugin(_) => {
            app.add_systems(
                FixedUpdate,
                (
                    walk.in_set(PlantigradeSystems::Intent),
                    sample.after(PlantigradeSystems::WriteTransforms),
                ),
            );
            Some(spawn_character(&mut app.world_mut().commands(), character))
        }
        Setup::AvianMoveAndSlide => {
            app.insert_resource(Standalone(character))
                .add_systems(FixedUpdate, tick_with_move_and_slide);
            None
        }
        Setup::RapierQueryMover => {
            app.insert_resource(Standalone(character))
                .add_systems(FixedUpdate, tick_with_query_mover);
            None
        }
    };
    app.world_mut().flush();
    app.finish();
    app.cleanup();
    for _ in 0..TICKS * 2 + 10 {
        if app.world().resource::<Samples>().0.len() as u64 >= TICKS {
            break;
        }
        app.update();
    }
    let samples = &app.world().resource::<Samples>().0;
    assert_eq!(
        samples.len() as u64,
        TICKS,
        "{section}: the character did not tick"
    );
    let feet = match entity {
        Some(entity) => app
            .world()
            .get::<PlantigradeCharacter>(entity)
            .expect("the character")
            .character()
            .feet_world(),
        None => app.world().resource::<Standalone>().0.feet_world(),
    };
    (foot_quality(samples, HZ), feet)
}

/// `b` relative to `a`, in percent ("=" when both are within 0.05 mm).
fn difference(a: f32, b: f32) -> String {
    if (a - b).abs() < 0.05 {
        "=".to_string()
    } else if a.abs() < 1e-6 {
        "new".to_string()
    } else {
        format!("{:+.0}%", 100.0 * (b - a) / a)
    }
}

fn main() {
    let course = Course::default_course();
    println!(
        "| scenario | backend | penetration max (mm) | float p95 (mm) | planted drift mean (mm) | stances | feet at end (m) |"
    );
    println!("|---|---|---:|---:|---:|---:|---|");
    for section in SECTIONS {
        let (rapier, rapier_end) = run(&course, Setup::Plugin(PhysicsBackend::Rapier), section);
        let (avian, avian_end) = run(&course, Setup::Plugin(PhysicsBackend::Avian), section);
        let (slide, slide_end) = run(&course, Setup::AvianMoveAndSlide, section);
        let (rapier_qm, rapier_qm_end) = run(&course, Setup::RapierQueryMover, section);
        for (name, q, end) in [
            ("rapier", &rapier, rapier_end),
            ("avian", &avian, avian_end),
            ("rapier queries, QueryMover", &rapier_qm, rapier_qm_end),
            ("avian queries, MoveAndSlide", &slide, slide_end),
        ] {
            println!(
                "| {section} | {name} | {:.2} | {:.2} | {:.2} | {} | ({:.3}, {:.3}, {:.3}) |",
                q.penetration_max_mm,
                q.float_p95_mm,
                q.planted_drift_mean_mm,
                q.stances,
                end.x,
                end.y,
                end.z
            );
        }
        println!(
            "| {section} | avian vs rapier | {} | {} | {} | {:+} | Δ {:.1} mm |",
            difference(rapier.penetration_max_mm, avian.penetration_max_mm),
            difference(rapier.float_p95_mm, avian.float_p95_mm),
            difference(rapier.planted_drift_mean_mm, avian.planted_drift_mean_mm),
            avian.stances as i64 - rapier.stances as i64,
            1000.0 * avian_end.distance(rapier_end)
        );
        println!(
            "| {section} | avian vs rapier queries, both QueryMover | {} | {} | {} | {:+} | Δ {:.1} mm |",
            difference(rapier_qm.penetration_max_mm, avian.penetration_max_mm),
            difference(rapier_qm.float_p95_mm, avian.float_p95_mm),
            difference(rapier_qm.planted_drift_mean_mm, avian.planted_drift_mean_mm),
            avian.stances as i64 - rapier_qm.stances as i64,
            1000.0 * avian_end.distance(rapier_qm_end)
        );
    }
}
