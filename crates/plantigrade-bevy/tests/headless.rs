//! The plugin in a headless Bevy app (MinimalPlugins, no window, no GPU) over a physics
//! world holding the test course, once per backend compiled in (`rapier::…` tests over
//! bevy_rapier3d, `avian::…` over avian3d, the same test bodies), at a fixed 60 Hz step
//! (`TimeUpdateStrategy::ManualDuration`, one fixed tick per `App::update`): the mannequin
//! climbs the stairs, footstep messages alternate, the stance feet written to the joint
//! entities stand on the ground, the pose is the core's own on the same inputs, a jump
//! sends its jump, landing and state messages, crouching resizes the capsule collider, and
//! settings edited through reflection apply from the next tick while a NaN is refused.
//!
//! Under rapier, the pose is compared with a core `Character` ticked on the plugin's own physics world
//! (same colliders, same broad phase): against a `plantigrade_rapier::RapierWorld` built
//! from the same course, the two walks are bit-identical for 31 ticks up the stairs and
//! then part by a few tenths of a millimetre, because rapier's character controller moves
//! the capsule differently by that much from the same request in the two worlds. Colliders,
//! shapes and poses are identical, and rays and capsule casts agree exactly (see
//! `queries_match_a_rapier_world_of_the_same_course`); the difference is the broad-phase
//! tree. The controller's contact passes take their candidates from the tree's leaf boxes
//! as they are (`intersect_aabb_conservative`); rapier's broad phase keeps boxes of its own
//! making, `RapierWorld` exact ones. The same move on bevy_rapier's colliders over a tree of exact boxes gives
//! `RapierWorld`'s result bit for bit (checked once by hand at the first tick that differs).

mod common;

use std::any::TypeId;
use std::sync::Arc;
use std::time::Duration;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy::reflect::GetPath;
use bevy::time::TimeUpdateStrategy;
use plantigrade::character::Character;
use plantigrade::ik::FootIkMode;
use plantigrade::mannequin::Mannequin;
use plantigrade::motion::{CharacterConfig, Intent, LandingGrade};
use plantigrade::pose::ModelPose;
use plantigrade::prelude::CharacterSettings;
use plantigrade::world::QueryFilter;
use plantigrade_bevy::{
    spawn_character, CharacterCapsule, CharacterIntent, CharacterJoints, CharacterToggles,
    FootIkChoice, FootSide, Footstep, Jumped, Landed, PhysicsBackend, PlantigradeCharacter,
    PlantigradePlugin, PlantigradeSettings, PlantigradeSystems, PlantigradeWorld, StateEntered,
};
use plantigrade_course::Course;

/// The tests run on every backend compiled in: `$name` becomes `rapier::$name` and
/// `avian::$name`, each calling the function `$name` with its [`PhysicsBackend`].
macro_rules! on_each_backend {
    ($($name:ident),* $(,)?) => {
        #[cfg(feature = "rapier")]
        mod rapier {
            $(
                #[test]
                fn $name() {
                    super::$name(super::PhysicsBackend::Rapier);
                }
            )*
        }
        #[cfg(feature = "avian")]
        mod avian {
            $(
                #[test]
                fn $name() {
                    super::$name(super::PhysicsBackend::Avian);
                }
            )*
        }
    };
}

on_each_backend!(
    climbs_the_20_cm_stairs,
    footstep_messages_alternate,
    jump_landing_and_state_messages_arrive,
    crouching_shrinks_the_capsule_collider,
    settings_edited_through_reflection_apply_and_bad_ones_are_refused,
    stance_feet_stay_on_flat_ground,
    stance_feet_stay_on_the_stairs,
    the_pose_is_the_cores_on_the_stairs,
    the_pose_is_the_cores_walking_running_turning_and_jumping,
    setting_the_entitys_transform_teleports_the_character,
    queries_skip_the_characters_own_capsule,
);

const HZ: f64 = 60.0;

/// The intent of tick `tick` (0-based) of a scripted run.
type Script = fn(u64) -> Intent;

/// A walk straight ahead (+Z, the course's direction), half the stick.
fn walk(_: u64) -> Intent {
    Intent {
        move_world: Vec2::new(0.0, 0.5),
        ..Intent::IDLE
    }
}

/// Walk, run, turn right while running, jump, then stop.
fn walk_run_turn_jump_stop(tick: u64) -> Intent {
    let mut intent = Intent::IDLE;
    match tick {
        0..60 => intent.move_world = Vec2::new(0.0, 0.5),
        60..150 => intent.move_world = Vec2::new(0.0, 1.0),
        150..220 => intent.move_world = Vec2::new(0.7, 0.7),
        220 => {
            intent.move_world = Vec2::new(0.7, 0.7);
            intent.jump = true;
        }
        221..280 => intent.move_world = Vec2::new(0.7, 0.7),
        _ => {}
    }
    intent
}

/// What the test reads back after each tick.
#[derive(Resource, Default)]
struct Recorded {
    /// The character's model pose and feet after each of its ticks.
    ticks: Vec<(ModelPose, Vec3)>,
    footsteps: Vec<FootSide>,
    /// The tick (1-based count) each `Jumped` and `Landed` arrived after, and the landings.
    jumps: Vec<u64>,
    landings: Vec<(u64, Landed)>,
    /// The states entered, as `machine/state`.
    states: Vec<String>,
}

#[derive(Resource)]
struct Scripted(Script);

fn mannequin(spawn_world: Vec3) -> Character {
    let graph = Arc::new(Mannequin::new().default_graph().unwrap());
    Character::builder(graph)
        .settings(CharacterSettings::default())
        .spawn(spawn_world, 0.0)
        .unwrap()
}

fn write_intent(
    script: Res<Scripted>,
    mut q: Query<(&PlantigradeCharacter, &mut CharacterIntent)>,
) {
    for (pc, mut intent) in &mut q {
        *intent = script.0(pc.ticks()).into();
    }
}

#[allow(clippy::too_many_arguments)]
fn record(
    mut recorded: ResMut<Recorded>,
    q: Query<&PlantigradeCharacter>,
    mut steps: MessageReader<Footstep>,
    mut jumps: MessageReader<Jumped>,
    mut landings: MessageReader<Landed>,
    mut states: MessageReader<StateEntered>,
) {
    for pc in &q {
        let c = pc.character();
        if recorded.ticks.len() < pc.ticks() as usize {
            recorded
                .ticks
                .push((c.model_pose().clone(), c.feet_world()));
        }
    }
    recorded.footsteps.extend(steps.read().map(|s| s.foot));
    let tick = q.iter().map(|pc| pc.ticks()).max().unwrap_or(0);
    recorded.jumps.extend(jumps.read().map(|_| tick));
    recorded
        .landings
        .extend(landings.read().map(|l| (tick, *l)));
    recorded
        .states
        .extend(states.read().map(|s| format!("{}/{}", s.machine, s.state)));
}

/// A headless app on `backend` with the course and the mannequin at `section`'s spawn,
/// driven by `script`. Returns the app and the character entity.
fn app_on(
    backend: PhysicsBackend,
    course: &Course,
    section: &str,
    script: Script,
) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin));
    common::add_physics(&mut app, backend);
    finish_app(app, backend, course, section, script)
}

/// Adds the plugin on `backend` to `app` (which has the physics plugins), the course and
/// the mannequin at `section`'s spawn, driven by `script`.
fn finish_app(
    mut app: App,
    backend: PhysicsBackend,
    course: &Course,
    section: &str,
    script: Script,
) -> (App, Entity) {
    app.add_plugins(PlantigradePlugin::default().with_backend(backend))
        .insert_resource(Time::<Fixed>::from_hz(HZ))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / HZ,
        )))
        .insert_resource(Scripted(script))
        .init_resource::<Recorded>()
        .add_systems(
            FixedUpdate,
            (
                write_intent.in_set(PlantigradeSystems::Intent),
                record.after(PlantigradeSystems::WriteTransforms),
            ),
        );
    let spawn_world = course.section(section).unwrap().spawn_world;
    let character = {
        let mut commands = app.world_mut().commands();
        common::spawn_course(&mut commands, course, backend);
        spawn_character(&mut commands, mannequin(spawn_world))
    };
    app.world_mut().flush();
    app.finish();
    app.cleanup();
    (app, character)
}

/// Runs until the character has made `ticks` ticks.
fn run_ticks(app: &mut App, character: Entity, ticks: u64) {
    for _ in 0..ticks * 2 + 10 {
        let done = app
            .world()
            .get::<PlantigradeCharacter>(character)
            .unwrap()
            .ticks();
        if done >= ticks {
            assert_eq!(done, ticks, "one fixed tick per update");
            return;
        }
        app.update();
    }
    panic!("the character did not tick {ticks} times");
}

/// Where the up flight of the stairs sections ends (z, m): 8 treads of 0.28 m from z = 3.
const FLIGHT_END_Z: f32 = 3.0 + 8.0 * 0.28;

fn climbs_the_20_cm_stairs(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "stairs_20cm", walk);
    let mut top_reached = false;
    for tick in 1..=360 {
        run_ticks(&mut app, character, tick);
        let feet = app
            .world()
            .get::<PlantigradeCharacter>(character)
            .unwrap()
            .character()
            .feet_world();
        assert!(feet.is_finite());
        // On the landing at the top of the flight (1.6 m), past its last tread.
        if feet.z > FLIGHT_END_Z + 0.3 && feet.z < FLIGHT_END_Z + 1.5 {
            assert!((feet.y - 1.6).abs() < 0.03, "tick {tick}: feet at {feet}");
            top_reached = true;
        }
    }
    assert!(top_reached, "never got onto the top landing");
    // The entity's Transform is the character's feet and facing.
    let transform = app.world().get::<GlobalTransform>(character).unwrap();
    let c = app.world().get::<PlantigradeCharacter>(character).unwrap();
    assert!(transform.translation().distance(c.character().feet_world()) < 1e-5);
}

/// A game that leaves bevy_rapier in its default schedule (`PostUpdate`): the characters
/// still tick in `FixedUpdate`, on the world as the last step left it.
#[cfg(feature = "rapier")]
#[test]
fn walks_with_rapier_in_its_default_schedule() {
    use bevy_rapier3d::prelude::{NoUserData, RapierPhysicsPlugin};
    let course = Course::default_course();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        RapierPhysicsPlugin::<NoUserData>::default(),
    ));
    let (mut app, character) = finish_app(app, PhysicsBackend::Rapier, &course, "flat", walk);
    let spawn_world = course.section("flat").unwrap().spawn_world;
    run_ticks(&mut app, character, 180);
    let c = app.world().get::<PlantigradeCharacter>(character).unwrap();
    let feet = c.character().feet_world();
    // Three seconds at a walk (1.75 m/s once up to speed), on the floor all the way.
    assert!(feet.z - spawn_world.z > 4.5, "feet at {feet}");
    assert!((feet.x - spawn_world.x).abs() < 1e-3, "feet at {feet}");
    for (tick, (_, feet)) in app.world().resource::<Recorded>().ticks.iter().enumerate() {
        assert!(feet.y.abs() < 0.01, "tick {tick}: feet at {feet}");
    }
}

fn footstep_messages_alternate(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", walk);
    run_ticks(&mut app, character, 300);
    let steps = &app.world().resource::<Recorded>().footsteps;
    // Five seconds of walking: a step every half second or so.
    assert!(steps.len() >= 8, "{} footsteps: {steps:?}", steps.len());
    for pair in steps.windows(2) {
        assert_ne!(pair[0], pair[1], "footsteps {steps:?}");
    }
}

fn jump_landing_and_state_messages_arrive(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "plaza", walk_run_turn_jump_stop);
    run_ticks(&mut app, character, 300);
    let recorded = app.world().resource::<Recorded>();
    // The script presses jump on tick 220 (0-based): one jump, then one light landing.
    assert_eq!(
        recorded.jumps,
        vec![221],
        "jumps after ticks {:?}",
        recorded.jumps
    );
    assert_eq!(recorded.landings.len(), 1, "{:?}", recorded.landings);
    let (landed_after, landing) = recorded.landings[0];
    assert!(
        landed_after > 221 && landed_after < 300,
        "landed after tick {landed_after}"
    );
    assert_eq!(landing.character, character);
    // On flat ground it lands as fast as it took off: the default 8 m/s jump, above the
    // default 5 m/s heavy-landing threshold.
    let config = CharacterConfig::default();
    assert!(
        (landing.impact_speed_m_s - config.jump_speed_m_s).abs() < 0.3,
        "{landing:?}"
    );
    assert_eq!(
        landing.grade,
        LandingGrade::from_impact(landing.impact_speed_m_s, config.heavy_landing_speed_m_s)
    );
    assert_eq!(landing.grade, LandingGrade::Heavy);
    // The graph went into its Jump state and back out of it.
    let jump = recorded.states.iter().position(|s| s.ends_with("/Jump"));
    let jump = jump.unwrap_or_else(|| panic!("states {:?}", recorded.states));
    assert!(
        recorded.states[jump + 1..]
            .iter()
            .any(|s| !s.ends_with("/Jump")),
        "states {:?}",
        recorded.states
    );
}

fn crouch(_: u64) -> Intent {
    Intent {
        crouch: true,
        ..Intent::IDLE
    }
}

/// The total height (m) of the capsule collider on `entity`, as `backend` has it.
fn collider_height_m(world: &World, entity: Entity, backend: PhysicsBackend) -> f32 {
    match backend {
        #[cfg(feature = "rapier")]
        PhysicsBackend::Rapier => {
            let collider = world
                .get::<bevy_rapier3d::prelude::Collider>(entity)
                .unwrap();
            let capsule = collider.as_capsule().unwrap();
            capsule.height() + 2.0 * capsule.radius()
        }
        #[cfg(feature = "avian")]
        PhysicsBackend::Avian => {
            let collider = world.get::<avian3d::prelude::Collider>(entity).unwrap();
            let capsule = collider.shape().as_capsule().unwrap();
            capsule.height() + 2.0 * capsule.radius
        }
    }
}

fn crouching_shrinks_the_capsule_collider(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", crouch);
    let capsule_entity = app
        .world()
        .get::<PlantigradeCharacter>(character)
        .unwrap()
        .capsule_entity();
    let height = |app: &App| {
        let height_m = collider_height_m(app.world(), capsule_entity, backend);
        let center = app
            .world()
            .get::<Transform>(capsule_entity)
            .unwrap()
            .translation;
        (height_m, center.y)
    };
    let (standing_m, _) = height(&app);
    assert!(
        (standing_m - 1.8).abs() < 1e-3,
        "standing capsule {standing_m} m"
    );
    run_ticks(&mut app, character, 30);
    let (crouched_m, center_y) = height(&app);
    let c = app.world().get::<PlantigradeCharacter>(character).unwrap();
    assert!(c.character().output().vars.is_crouching);
    assert!(
        (crouched_m - 1.1).abs() < 1e-3,
        "crouched capsule {crouched_m} m"
    );
    // Still standing on its feet: the centre is half its height above them.
    assert!(
        (center_y - 0.55).abs() < 1e-3,
        "centre {center_y} m above the feet"
    );
    let owner = app.world().get::<CharacterCapsule>(capsule_entity).unwrap();
    assert_eq!(owner.character, character);
}

/// Sets a number in the character's [`PlantigradeSettings`] by its reflection path, through
/// the type registry's `ReflectComponent`, as an inspector does.
fn edit_settings(app: &mut App, character: Entity, path: &str, value: f32) {
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let component = registry
        .get_type_data::<ReflectComponent>(TypeId::of::<PlantigradeSettings>())
        .expect("the plugin registers PlantigradeSettings as a reflected component");
    let mut settings = component
        .reflect_mut(app.world_mut().entity_mut(character))
        .expect("the character has PlantigradeSettings");
    settings
        .reflect_path_mut(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .apply(&value);
}

/// The core character's settings in force, and the component's.
fn settings_of(app: &App, character: Entity) -> (CharacterSettings, CharacterSettings) {
    let pc = app.world().get::<PlantigradeCharacter>(character).unwrap();
    let component = app.world().get::<PlantigradeSettings>(character).unwrap();
    (pc.character().settings(), component.0.clone())
}

fn settings_edited_through_reflection_apply_and_bad_ones_are_refused(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", walk);
    run_ticks(&mut app, character, 10);
    let (spawned, shown) = settings_of(&app, character);
    assert_eq!(
        shown, spawned,
        "the component holds the settings it was spawned with"
    );

    edit_settings(&mut app, character, ".0.foot_ik.probe.probe_down_m", 0.9);
    edit_settings(&mut app, character, ".0.motion.walk_speed_m_s", 1.25);
    run_ticks(&mut app, character, 11);
    let (edited, shown) = settings_of(&app, character);
    assert_eq!(edited.foot_ik.probe.probe_down_m, 0.9);
    assert_eq!(edited.motion.walk_speed_m_s, 1.25);
    assert_eq!(shown, edited);
    // The half-stick walk goes at the new walk speed.
    run_ticks(&mut app, character, 100);
    let speed = app
        .world()
        .get::<PlantigradeCharacter>(character)
        .unwrap()
        .character()
        .output()
        .actual_velocity_world
        .length();
    assert!((speed - 1.25).abs() < 0.05, "walks at {speed} m/s");

    // A NaN is refused: nothing changes and the component shows the settings in force.
    edit_settings(&mut app, character, ".0.motion.run_speed_m_s", f32::NAN);
    assert!(settings_of(&app, character).1.motion.run_speed_m_s.is_nan());
    run_ticks(&mut app, character, 101);
    let (in_force, shown) = settings_of(&app, character);
    assert_eq!(in_force, edited);
    assert_eq!(shown, edited, "the component is set back");
    // …and the character carries on.
    run_ticks(&mut app, character, 160);
    let recorded = &app.world().resource::<Recorded>().ticks;
    assert_eq!(recorded.len(), 160);
    for (tick, (pose, feet)) in recorded.iter().enumerate() {
        assert!(feet.is_finite(), "tick {tick}: feet at {feet}");
        assert!(
            pose.joints_model().iter().all(|m| m.is_finite()),
            "tick {tick}: a joint is not finite"
        );
    }

    // The foot IK mode is the toggles': switching it there shows in the settings.
    app.world_mut()
        .get_mut::<CharacterToggles>(character)
        .unwrap()
        .foot_ik = FootIkChoice::Classic;
    run_ticks(&mut app, character, 161);
    let (in_force, shown) = settings_of(&app, character);
    assert_eq!(in_force.foot_ik.mode, FootIkMode::Classic);
    assert_eq!(shown, in_force);
}

/// Walks `section` for `ticks` and checks that each foot in stance (locked, full contact,
/// locked the tick before), as the joint entities' `GlobalTransform`s place it, has its
/// lower sole point within 2 cm of the course's true ground. Returns the foot-ticks checked.
fn stance_feet_on_the_ground(backend: PhysicsBackend, section: &str, ticks: u64) -> usize {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, section, walk);
    let mut checked = 0;
    let mut was_locked = [false; 2];
    for tick in 1..=ticks {
        run_ticks(&mut app, character, tick);
        let world = app.world();
        let c = world
            .get::<PlantigradeCharacter>(character)
            .unwrap()
            .character();
        let joints = world.get::<CharacterJoints>(character).unwrap();
        let out = *c.foot_ik_output().unwrap();
        let legs = c.foot_ik().unwrap().rig().legs;
        for (i, leg) in legs.iter().enumerate() {
            let locked = out.feet[i].locked;
            let stance = locked && was_locked[i] && out.feet[i].contact > 0.95;
            was_locked[i] = locked;
            if !stance {
                continue;
            }
            let foot = world
                .get::<GlobalTransform>(joints.entities()[leg.chain.foot])
                .unwrap();
            let heel = foot.transform_point(leg.sockets.heel_foot_local);
            let ball = foot.transform_point(leg.sockets.ball_foot_local);
            let lower = if heel.y < ball.y { heel } else { ball };
            let ground = course
                .surface_below(lower.x, lower.z, lower.y + 0.1)
                .unwrap()
                .height_m;
            assert!(
                (lower.y - ground).abs() < 0.02,
                "{section} tick {tick}: foot {i} sole at {lower}, ground {ground}"
            );
            checked += 1;
        }
    }
    checked
}

fn stance_feet_stay_on_flat_ground(backend: PhysicsBackend) {
    let checked = stance_feet_on_the_ground(backend, "flat", 240);
    assert!(checked > 150, "{checked} stance foot-ticks checked");
}

fn stance_feet_stay_on_the_stairs(backend: PhysicsBackend) {
    let checked = stance_feet_on_the_ground(backend, "stairs_20cm", 300);
    assert!(checked > 150, "{checked} stance foot-ticks checked");
}

/// A second character, ticked by the core alone (`Character::tick`) on the plugin's physics
/// world, with the same settings, spawn, intents and time steps as the plugin's character,
/// and its queries excluding the same capsule.
#[derive(Resource)]
struct Reference {
    character: Option<Character>,
    spawn_world: Vec3,
    /// Its model pose and feet after each tick.
    ticks: Vec<(ModelPose, Vec3)>,
}

fn tick_reference(
    time: Res<Time>,
    script: Res<Scripted>,
    mut reference: ResMut<Reference>,
    world: PlantigradeWorld,
    q: Query<&PlantigradeCharacter>,
) {
    let Ok(pc) = q.single() else { return };
    let reference = &mut *reference;
    // Tick only when the plugin's character ticked in this run.
    if reference.ticks.len() as u64 >= pc.ticks() {
        return;
    }
    let tick = reference.ticks.len() as u64;
    let spawn_world = reference.spawn_world;
    let c = reference
        .character
        .get_or_insert_with(|| mannequin(spawn_world).with_body(pc.body_id()));
    world
        .with_physics(|w| c.tick(time.delta_secs(), &script.0(tick), w))
        .unwrap()
        .unwrap();
    reference
        .ticks
        .push((c.model_pose().clone(), c.feet_world()));
}

fn max_pose_difference(a: &ModelPose, b: &ModelPose) -> f32 {
    a.joints_model()
        .iter()
        .zip(b.joints_model())
        .map(|(x, y)| {
            let d = x.to_cols_array();
            let e = y.to_cols_array();
            d.iter()
                .zip(&e)
                .map(|(p, q)| (p - q).abs())
                .fold(0.0, f32::max)
        })
        .fold(0.0, f32::max)
}

/// Runs `script` on `section` for `ticks` and checks, after every tick, the plugin's pose
/// and feet against the core's own tick on the same world, and every joint entity's
/// `GlobalTransform` against that pose placed at the feet and facing.
fn pose_matches_the_core(backend: PhysicsBackend, section: &str, script: Script, ticks: u64) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, section, script);
    app.insert_resource(Reference {
        character: None,
        spawn_world: course.section(section).unwrap().spawn_world,
        ticks: Vec::new(),
    })
    .add_systems(
        FixedUpdate,
        // On the world the plugin's character saw: before the writes that precede the
        // physics step.
        tick_reference
            .after(PlantigradeSystems::Procedural)
            .before(PlantigradeSystems::WriteTransforms),
    );
    for tick in 1..=ticks {
        run_ticks(&mut app, character, tick);
        let world = app.world();
        let pc = world.get::<PlantigradeCharacter>(character).unwrap();
        let c = pc.character();
        let (ref_pose, ref_feet) = world.resource::<Reference>().ticks.last().unwrap();
        let pose_diff = max_pose_difference(c.model_pose(), ref_pose);
        let feet_diff = (c.feet_world() - *ref_feet).abs().max_element();
        assert!(
            pose_diff <= 1e-4 && feet_diff <= 1e-4,
            "{section} tick {tick}: pose differs by {pose_diff}, feet by {feet_diff}"
        );
        // The joint entities carry that pose: root (feet, facing) ∘ model pose.
        let joints = world.get::<CharacterJoints>(character).unwrap();
        let root = Transform::from_translation(*ref_feet).with_rotation(c.facing_world());
        for (joint, &entity) in joints.entities().iter().enumerate() {
            let global = world.get::<GlobalTransform>(entity).unwrap();
            let expected = root.to_matrix() * Mat4::from(ref_pose.joints_model()[joint]);
            let diff = (global.to_matrix() - expected)
                .to_cols_array()
                .iter()
                .fold(0.0f32, |m, v| m.max(v.abs()));
            assert!(
                diff <= 1e-4,
                "{section} tick {tick}: joint {joint} entity off by {diff}"
            );
        }
    }
    assert_eq!(
        app.world().resource::<Reference>().ticks.len() as u64,
        ticks
    );
}

fn the_pose_is_the_cores_on_the_stairs(backend: PhysicsBackend) {
    pose_matches_the_core(backend, "stairs_20cm", walk, 300);
}

fn the_pose_is_the_cores_walking_running_turning_and_jumping(backend: PhysicsBackend) {
    pose_matches_the_core(backend, "plaza", walk_run_turn_jump_stop, 300);
}

/// The plugin's world answers rays and capsule casts exactly as a
/// `plantigrade_rapier::RapierWorld` built from the same course: at each point of a walk up
/// the stairs (the feet of every tick), rays down and ahead and a capsule cast down.
#[cfg(feature = "rapier")]
#[test]
fn queries_match_a_rapier_world_of_the_same_course() {
    use plantigrade::world::SpatialQueries;
    use plantigrade_rapier::RapierWorld;
    let course = Course::default_course();
    let (mut app, character) = app_on(PhysicsBackend::Rapier, &course, "stairs_20cm", walk);
    run_ticks(&mut app, character, 240);
    let path: Vec<Vec3> = app
        .world()
        .resource::<Recorded>()
        .ticks
        .iter()
        .map(|t| t.1)
        .collect();
    let reference = RapierWorld::from_course(&course).unwrap();
    let capsule = app
        .world()
        .get::<PlantigradeCharacter>(character)
        .unwrap()
        .character()
        .capsule();
    let mut state = SystemState::<PlantigradeWorld>::new(app.world_mut());
    let world = state.get(app.world()).unwrap();
    let filter = QueryFilter::GROUND;
    let mut hits = 0;
    world
        .with_physics(|w| {
            for feet in &path {
                for (origin, direction) in [
                    (*feet + Vec3::Y * 0.5, -Vec3::Y),
                    (*feet + Vec3::new(0.0, 0.5, 0.4), -Vec3::Y),
                    (*feet + Vec3::Y * 0.1, Vec3::Z),
                ] {
                    let bevy = w.cast_ray(origin, direction, 2.0, filter);
                    let core = reference.cast_ray(origin, direction, 2.0, filter);
                    assert_eq!(bevy, core, "ray from {origin} along {direction}");
                    hits += bevy.is_some() as usize;
                }
                let center = capsule.center_from_feet(*feet) + Vec3::Y * 0.3;
                let bevy = w.cast_capsule(capsule, center, -Vec3::Y, 1.0, filter);
                let core = reference.cast_capsule(capsule, center, -Vec3::Y, 1.0, filter);
                assert_eq!(bevy, core, "capsule cast from {center}");
                hits += bevy.is_some() as usize;
            }
        })
        .unwrap();
    assert!(hits > 600, "{hits} hits");
}

/// The feet of each tick of a walk up the 20 cm stairs on `backend`, the app and the
/// character's capsule.
#[cfg(feature = "avian")]
fn stairs_path(backend: PhysicsBackend) -> (App, Vec<Vec3>, plantigrade::world::Capsule) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "stairs_20cm", walk);
    run_ticks(&mut app, character, 240);
    let path = app
        .world()
        .resource::<Recorded>()
        .ticks
        .iter()
        .map(|t| t.1)
        .collect();
    let capsule = app
        .world()
        .get::<PlantigradeCharacter>(character)
        .unwrap()
        .character()
        .capsule();
    (app, path, capsule)
}

/// avian's answers where the course is known exactly: at each point of a walk up the
/// stairs, rays down (at the feet and 40 cm ahead) hit the course's true surface with its
/// normal; a capsule cast down from a hand's breadth above flat ground hits it after that
/// distance; a capsule starting 1 cm into the floor hits it at distance 0 (the core's
/// `cast_capsule` contract, as rapier's `stop_at_penetration`).
#[cfg(feature = "avian")]
#[test]
fn avian_queries_hit_the_course_where_it_is() {
    let course = Course::default_course();
    let (mut app, path, capsule) = stairs_path(PhysicsBackend::Avian);
    let mut state = SystemState::<PlantigradeWorld>::new(app.world_mut());
    let world = state.get(app.world()).unwrap();
    let filter = QueryFilter::GROUND;
    let mut hits = 0;
    world
        .with_physics(|w| {
            for feet in &path {
                for origin in [*feet + Vec3::Y * 0.5, *feet + Vec3::new(0.0, 0.5, 0.4)] {
                    let truth = course.surface_below(origin.x, origin.z, origin.y);
                    let hit = w.cast_ray(origin, -Vec3::Y, 2.0, filter);
                    let (Some(truth), Some(hit)) = (truth, hit) else {
                        panic!("ray from {origin}: {hit:?}, course {truth:?}");
                    };
                    // At a riser's edge the ray may run down its face: the tread is hit
                    // either way within a millimetre.
                    assert!(
                        (hit.point.y - truth.height_m).abs() < 1e-3,
                        "ray from {origin}: hit {hit:?}, surface at {} m",
                        truth.height_m
                    );
                    assert!(hit.normal.dot(truth.normal_world) > 0.999, "{hit:?}");
                    hits += 1;
                }
            }
            let flat = course.section("flat").unwrap().spawn_world;
            let center = capsule.center_from_feet(flat) + Vec3::Y * 0.1;
            let hit = w
                .cast_capsule(capsule, center, -Vec3::Y, 1.0, filter)
                .unwrap();
            // parry's shape cast stops within its tolerance (here 0.34 mm short).
            assert!((hit.distance_m - 0.1).abs() < 1e-3, "{hit:?}");
            assert!((hit.point.y - flat.y).abs() < 1e-4, "{hit:?}");
            assert!(hit.normal.dot(Vec3::Y) > 0.9999, "{hit:?}");
            let sunk = capsule.center_from_feet(flat) - Vec3::Y * 0.01;
            for direction in [-Vec3::Y, Vec3::Y, Vec3::Z] {
                let hit = w.cast_capsule(capsule, sunk, direction, 1.0, filter);
                let hit = hit.unwrap_or_else(|| panic!("no hit starting in the floor"));
                assert_eq!(hit.distance_m, 0.0, "along {direction}: {hit:?}");
            }
        })
        .unwrap();
    assert!(hits > 400, "{hits} hits");
}

/// With both backends compiled in: avian's rays and capsule casts agree with rapier's at
/// each point of a walk up the stairs within 1 mm (two engines, two parry versions:
/// not bit for bit: their shape casts stop within their tolerances, here up to 0.34 mm
/// short and 0.13 mm long of the true 0.3001 m at one point of the stairs).
#[cfg(all(feature = "avian", feature = "rapier"))]
#[test]
fn avian_queries_agree_with_a_rapier_world_of_the_same_course() {
    use plantigrade::world::{RayHit, SpatialQueries};
    use plantigrade_rapier::RapierWorld;
    let course = Course::default_course();
    let (mut app, path, capsule) = stairs_path(PhysicsBackend::Avian);
    let reference = RapierWorld::from_course(&course).unwrap();
    let mut state = SystemState::<PlantigradeWorld>::new(app.world_mut());
    let world = state.get(app.world()).unwrap();
    let filter = QueryFilter::GROUND;
    let close = |a: Option<RayHit>, b: Option<RayHit>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            (a.distance_m - b.distance_m).abs() < 1e-3
                && a.point.distance(b.point) < 1e-3
                && a.normal.dot(b.normal) > 0.999
        }
        _ => false,
    };
    let mut hits = 0;
    world
        .with_physics(|w| {
            for feet in &path {
                for (origin, direction) in [
                    (*feet + Vec3::Y * 0.5, -Vec3::Y),
                    (*feet + Vec3::new(0.0, 0.5, 0.4), -Vec3::Y),
                    (*feet + Vec3::Y * 0.1, Vec3::Z),
                ] {
                    let avian = w.cast_ray(origin, direction, 2.0, filter);
                    let rapier = reference.cast_ray(origin, direction, 2.0, filter);
                    assert!(
                        close(avian, rapier),
                        "ray from {origin} along {direction}: avian {avian:?}, rapier {rapier:?}"
                    );
                    hits += avian.is_some() as usize;
                }
                let center = capsule.center_from_feet(*feet) + Vec3::Y * 0.3;
                let avian = w.cast_capsule(capsule, center, -Vec3::Y, 1.0, filter);
                let rapier = reference.cast_capsule(capsule, center, -Vec3::Y, 1.0, filter);
                assert!(
                    avian
                        .zip(rapier)
                        .is_none_or(|(a, b)| (a.distance_m - b.distance_m).abs() < 1e-3)
                        && avian.is_some() == rapier.is_some(),
                    "capsule cast from {center}: avian {avian:?}, rapier {rapier:?}"
                );
                hits += avian.is_some() as usize;
            }
        })
        .unwrap();
    assert!(hits > 600, "{hits} hits");
}

/// A query on the characters' layer from inside the character's capsule hits the capsule
/// at once; excluding the character's body, it does not (it reaches the floor on rapier,
/// where a collider without groups is on every layer, and nothing on avian, where the
/// floor is on `GROUND` only); on the ground layer, excluded or not, it hits the floor.
fn queries_skip_the_characters_own_capsule(backend: PhysicsBackend) {
    use plantigrade::world::Layers;
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", walk);
    run_ticks(&mut app, character, 5);
    let pc = app.world().get::<PlantigradeCharacter>(character).unwrap();
    let body = pc.body_id();
    let feet = pc.character().feet_world();
    let mut state = SystemState::<PlantigradeWorld>::new(app.world_mut());
    let world = state.get(app.world()).unwrap();
    let characters = QueryFilter {
        layers: Layers::CHARACTERS,
        exclude: None,
    };
    let origin = feet + Vec3::Y;
    world
        .with_physics(|w| {
            let own = w.cast_ray(origin, -Vec3::Y, 2.0, characters);
            assert_eq!(own.map(|h| h.distance_m), Some(0.0), "{own:?}");
            let excluded = w.cast_ray(origin, -Vec3::Y, 2.0, characters.excluding(body));
            assert!(
                excluded.is_none_or(|h| (h.distance_m - 1.0).abs() < 1e-3),
                "{excluded:?}"
            );
            for filter in [QueryFilter::GROUND, QueryFilter::GROUND.excluding(body)] {
                let floor = w.cast_ray(origin, -Vec3::Y, 2.0, filter);
                assert!(
                    floor.is_some_and(|h| (h.distance_m - 1.0).abs() < 1e-3),
                    "{floor:?}"
                );
            }
        })
        .unwrap();
}

/// A game moving the character's entity (a respawn) teleports it: the next tick starts
/// there at rest, with no foot left behind, instead of the plugin writing it back.
fn setting_the_entitys_transform_teleports_the_character(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", walk);
    run_ticks(&mut app, character, 60);
    let start = course.section("flat").unwrap().spawn_world;
    let there = Vec3::new(start.x, start.y, start.z - 4.0);
    *app.world_mut().get_mut::<Transform>(character).unwrap() =
        Transform::from_translation(there).with_rotation(Quat::from_rotation_y(1.0));
    run_ticks(&mut app, character, 61);
    let pc = app.world().get::<PlantigradeCharacter>(character).unwrap();
    let c = pc.character();
    // One tick of walking from there (the walk picks up again from rest).
    assert!(
        c.feet_world().distance(there) < 0.05,
        "feet at {}",
        c.feet_world()
    );
    let farthest_m = c
        .model_pose()
        .joints_model()
        .iter()
        .map(|m| {
            c.model_to_world(Vec3::from(m.translation))
                .distance(c.feet_world())
        })
        .fold(0.0, f32::max);
    assert!(farthest_m < 2.0, "a joint {farthest_m} m from the feet");
    assert_eq!(c.foot_ik_output().unwrap().reach_clamps, 0);
    // The entity now says where the character is.
    let transform = app.world().get::<Transform>(character).unwrap();
    assert!(transform.translation.distance(c.feet_world()) < 1e-5);
}

/// The plugin on avian without avian's physics plugins: no panic, no character ticks, and
/// the world lent to a game's systems is `None`.
#[cfg(feature = "avian")]
#[test]
fn avian_without_its_physics_plugins_ticks_nothing_and_does_not_panic() {
    let course = Course::default_course();
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin));
    let (mut app, character) = finish_app(app, PhysicsBackend::Avian, &course, "flat", walk);
    for _ in 0..10 {
        app.update();
    }
    let pc = app.world().get::<PlantigradeCharacter>(character).unwrap();
    assert_eq!(pc.ticks(), 0);
    let mut state = SystemState::<PlantigradeWorld>::new(app.world_mut());
    let world = state.get(app.world()).unwrap();
    assert!(world.with_physics(|_| ()).is_none());
}

/// Two fixed ticks per frame (a 120 Hz fixed step at 60 frames per second, as any frame
/// that takes longer than a tick brings, and Bevy's default 64 Hz step at 60 fps now and
/// then): the character still walks at the walk speed. On rapier it was set back at rest
/// again and again (0.05 m in 2 s): rapier read the character's stale GlobalTransform
/// between the two ticks and wrote it back into its Transform.
#[cfg(feature = "avian")]
#[test]
fn avian_walks_at_full_speed_with_two_fixed_ticks_per_frame() {
    walks_at_full_speed_with_two_fixed_ticks_per_frame(PhysicsBackend::Avian);
}

#[cfg(feature = "rapier")]
#[test]
fn rapier_walks_at_full_speed_with_two_fixed_ticks_per_frame() {
    walks_at_full_speed_with_two_fixed_ticks_per_frame(PhysicsBackend::Rapier);
}

fn walks_at_full_speed_with_two_fixed_ticks_per_frame(backend: PhysicsBackend) {
    let course = Course::default_course();
    let (mut app, character) = app_on(backend, &course, "flat", walk);
    app.insert_resource(Time::<Fixed>::from_hz(2.0 * HZ));
    for _ in 0..120 {
        app.update();
    }
    let pc = app.world().get::<PlantigradeCharacter>(character).unwrap();
    assert!(pc.ticks() >= 236, "{} ticks", pc.ticks());
    let walked_m = pc.character().feet_world().z - course.section("flat").unwrap().spawn_world.z;
    // Two seconds at a walk: 1.75 m/s once up to speed.
    assert!(walked_m > 3.0, "walked {walked_m} m");
}
