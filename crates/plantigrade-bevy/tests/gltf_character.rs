//! Characters from files through the AssetServer, headless (MinimalPlugins + AssetPlugin,
//! no GPU), at a fixed 60 Hz step: the Mesh2Motion UAL rig (a third-party CC0 file read
//! from the shared assets folder, skipped with a printed reason when absent) with its own
//! clips, the graph `assets/ual_als.graph.ron` and the bone map `assets/ual.bones.ron`,
//! walks the flat lane and the 20 cm stairs of the test course; its joints bind to a
//! hand-built named hierarchy (with an armature node above the skeleton root) without
//! duplicates or a doubled armature transform; malformed and missing files are reported on
//! the entity and leave it inert. On the rapier backend: file loading does not touch the
//! physics backend, which `headless.rs` tests on each.
#![cfg(feature = "rapier")]

mod common;

use std::path::Path;
use std::time::Duration;

use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::{AssetApp, AssetPlugin};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_rapier3d::prelude::{Collider, NoUserData, RapierPhysicsPlugin};
use plantigrade::mannequin::{Mannequin, DEFAULT_GRAPH_RON};
use plantigrade_bevy::assets::{
    BoneMapAsset, CharacterSource, CharacterSourceError, CharacterSourceStatus, GraphSource,
    JointBinding, RigAsset,
};
use plantigrade_bevy::{
    CharacterIntent, CharacterJoints, PlantigradeCharacter, PlantigradePlugin, PlantigradeSystems,
    SkeletonJoint,
};
use plantigrade_course::Course;

const HZ: f64 = 60.0;
const UAL: &str = "Mesh2Motion_HumanBase_UAL1.glb";
/// The asset source the tests register at the folder of the third-party rigs.
const RIGS: &str = "pg-rigs";

/// A headless app with the plugin, rapier, an AssetServer rooted at this crate's `assets/`
/// and the named sources `extra` (name, folder), registered before `AssetPlugin` as Bevy
/// requires.
fn app(extra: &[(&'static str, &Path)]) -> App {
    let mut app = App::new();
    for (name, dir) in extra {
        let dir = dir.to_str().expect("a UTF-8 path");
        app.register_asset_source(*name, AssetSourceBuilder::platform_default(dir, None));
    }
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        RapierPhysicsPlugin::<NoUserData>::default().in_fixed_schedule(),
        PlantigradePlugin::default(),
    ))
    .insert_resource(Time::<Fixed>::from_hz(HZ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / HZ,
    )))
    .add_systems(FixedUpdate, walk_forward.in_set(PlantigradeSystems::Intent));
    app
}

/// Half the stick straight ahead (+Z, the course's direction).
fn walk_forward(mut q: Query<&mut CharacterIntent>) {
    for mut intent in &mut q {
        intent.move_world = Vec2::new(0.0, 0.5);
    }
}

/// The asset source the tests register at the repository's example role maps.
const EXAMPLES: &str = "pg-examples";

/// A third-party rig of the shared assets and the repository's example role map for it.
#[derive(Clone, Copy, Debug)]
struct Rig {
    file: &'static str,
    roles: &'static str,
}

const UAL_RIG: Rig = Rig {
    file: UAL,
    roles: "ual.roles.ron",
};
/// Quaternius' platformer character: feet hanging from the root as IK targets, no toe
/// joints, legs of 0.53 m (0.65 of the mannequin's), every clip in the one file.
const QUATERNIUS: Rig = Rig {
    file: "Quaternius_Platformer_Character.glb",
    roles: "quaternius.roles.ron",
};

/// How a character is described to the AssetServer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum UalFiles {
    /// The hand-written graph and bone map in this crate's `assets/` (UAL's).
    GraphAndBoneMap,
    /// Only the repository's example role map: graph generated, bones detected.
    Roles,
    /// No clips of its own: the built-in set authored on the rig, the default graph.
    GeneratedClips,
}

/// The UAL rig and its graph (and bone map) through the AssetServer.
fn ual_source(app: &mut App, files: UalFiles) -> CharacterSource {
    rig_source(app, UAL_RIG, files)
}

/// `rig` and its graph (and bone map) through the AssetServer.
fn rig_source(app: &mut App, rig: Rig, files: UalFiles) -> CharacterSource {
    let server = app.world().resource::<AssetServer>().clone();
    let handle = server.load::<RigAsset>(format!("{RIGS}://{}", rig.file));
    match files {
        UalFiles::GeneratedClips => {
            let graphs = &mut app.world_mut().resource_mut::<Assets<GraphSource>>();
            CharacterSource::new(handle, graphs.add(GraphSource::generated_clips()))
        }
        UalFiles::GraphAndBoneMap => {
            assert_eq!(rig.file, UAL, "the graph and bone map in assets/ are UAL's");
            CharacterSource::new(handle, server.load::<GraphSource>("ual_als.graph.ron"))
                .with_bone_map(server.load::<BoneMapAsset>("ual.bones.ron"))
        }
        UalFiles::Roles => CharacterSource::new(
            handle,
            server.load::<GraphSource>(format!("{EXAMPLES}://{}", rig.roles)),
        ),
    }
}

/// The repository's `examples/characters` folder.
fn examples_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/characters")
}

fn status(app: &App, entity: Entity) -> CharacterSourceStatus {
    app.world()
        .get::<CharacterSourceStatus>(entity)
        .unwrap()
        .clone()
}

/// Updates until `entity`'s status is no longer `Loading` (or a few seconds pass).
fn settle(app: &mut App, entity: Entity) -> CharacterSourceStatus {
    for _ in 0..2000 {
        app.update();
        let s = status(app, entity);
        if s != CharacterSourceStatus::Loading {
            return s;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    status(app, entity)
}

fn ticks(app: &App, entity: Entity) -> u64 {
    app.world()
        .get::<PlantigradeCharacter>(entity)
        .map_or(0, PlantigradeCharacter::ticks)
}

/// What a walk measured.
#[derive(Debug, Default)]
struct Walk {
    stance_foot_ticks: usize,
    /// Largest |sole − ground| of a stance foot (m) at its support point (heel or ball),
    /// as the joint entities place it.
    stance_max_m: f32,
    /// Deepest heel or ball of a stance foot below its ground (m; ≤ 0: none sank).
    sink_max_m: f32,
    /// Mean |sole − ground| of stance feet (m).
    stance_mean_m: f32,
    /// Where the largest error was: tick, foot, support point.
    worst_at: Option<(u64, usize, Vec3)>,
    /// Foot-ticks locked (planted) by foot IK, whatever the contact weight.
    locked_foot_ticks: usize,
    /// Lowest and highest feet (capsule bottom) height (m).
    feet_y: (f32, f32),
    forward_m: f32,
    nan: usize,
    /// The built character's capsule height (m) and heel-to-ball length of each foot's
    /// sockets (m).
    capsule_height_m: f32,
    heel_to_ball_m: [f32; 2],
}

/// Builds the UAL character on `section` and walks it for `seconds`, checking every stance
/// foot (locked, full contact, locked the tick before) on the joint entities'
/// `GlobalTransform`s against the course's true ground.
fn walk_ual(rigs: &Path, section: &str, seconds: f64, files: UalFiles) -> Walk {
    walk_rig(rigs, UAL_RIG, section, seconds, files)
}

/// [`walk_ual`] for any rig.
fn walk_rig(rigs: &Path, rig: Rig, section: &str, seconds: f64, files: UalFiles) -> Walk {
    let course = Course::default_course();
    let examples = examples_dir();
    let mut app = app(&[(RIGS, rigs), (EXAMPLES, &examples)]);
    for collider in common::course_colliders(&course) {
        app.world_mut().spawn(collider);
    }
    let spawn = course.section(section).unwrap().spawn_world;
    let source = rig_source(&mut app, rig, files);
    let entity = app
        .world_mut()
        .spawn((source, Transform::from_translation(spawn)))
        .id();
    let s = settle(&mut app, entity);
    assert!(
        matches!(s, CharacterSourceStatus::Built { bound_joints: 0 }),
        "{s:?}"
    );
    let mut walk = Walk {
        sink_max_m: f32::NEG_INFINITY,
        feet_y: (f32::INFINITY, f32::NEG_INFINITY),
        ..Walk::default()
    };
    let mut was_locked = [false; 2];
    let mut sum = 0.0;
    let target = (seconds * HZ) as u64;
    let mut last = 0;
    for _ in 0..target * 2 + 20 {
        app.update();
        let now = ticks(&app, entity);
        if now == last {
            continue;
        }
        last = now;
        let world = app.world();
        let c = world
            .get::<PlantigradeCharacter>(entity)
            .unwrap()
            .character();
        let feet = c.feet_world();
        if !feet.is_finite() || c.model_pose().joints_model().iter().any(|m| !m.is_finite()) {
            walk.nan += 1;
        }
        walk.forward_m = feet.z - spawn.z;
        walk.feet_y = (walk.feet_y.0.min(feet.y), walk.feet_y.1.max(feet.y));
        let joints = world.get::<CharacterJoints>(entity).unwrap();
        let out = *c.foot_ik_output().expect("foot IK on the rig");
        let legs = c.foot_ik().unwrap().rig().legs;
        for (i, leg) in legs.iter().enumerate() {
            let locked = out.feet[i].locked;
            walk.locked_foot_ticks += usize::from(locked);
            let stance = locked && was_locked[i] && out.feet[i].contact > 0.95;
            was_locked[i] = locked;
            if !stance {
                continue;
            }
            let foot = world
                .get::<GlobalTransform>(joints.entities()[leg.chain.foot])
                .unwrap();
            // The sole's support point: heel or ball, whichever is nearer its own ground
            // (on a stair a stance foot may stand on a tread edge with the other end over
            // the step below); neither may sink into the ground.
            let mut error = f32::INFINITY;
            let mut support = Vec3::ZERO;
            for local in [leg.sockets.heel_foot_local, leg.sockets.ball_foot_local] {
                let p = foot.transform_point(local);
                let ground = course.surface_below(p.x, p.z, p.y + 0.1).unwrap().height_m;
                walk.sink_max_m = walk.sink_max_m.max(ground - p.y);
                if (p.y - ground).abs() < error {
                    error = (p.y - ground).abs();
                    support = p;
                }
            }
            if error > walk.stance_max_m {
                walk.stance_max_m = error;
                walk.worst_at = Some((now, i, support));
            }
            sum += error;
            walk.stance_foot_ticks += 1;
        }
        if now >= target {
            break;
        }
    }
    assert_eq!(last, target, "the character ticked");
    {
        let c = app
            .world()
            .get::<PlantigradeCharacter>(entity)
            .unwrap()
            .character();
        walk.capsule_height_m = c.settings().motion.stand_capsule.height_m();
        let legs = c.foot_ik().expect("foot IK on the rig").rig().legs;
        // In model space (after a tick: a foot joint may carry a scale, Quaternius' 100).
        let model = c.model_pose().joints_model();
        walk.heel_to_ball_m = legs.map(|l| {
            model[l.chain.foot]
                .transform_vector3(l.sockets.ball_foot_local - l.sockets.heel_foot_local)
                .length()
        });
    }
    walk.stance_mean_m = sum / walk.stance_foot_ticks.max(1) as f32;
    eprintln!(
        "{} from assets ({files:?}), {section}, {seconds} s walk: {walk:?}",
        rig.file
    );
    walk
}

#[test]
fn ual_rig_from_assets_walks_the_flat_lane() {
    let Some(path) = plantigrade_test_assets::require(UAL) else {
        return;
    };
    let walk = walk_ual(
        path.parent().unwrap(),
        "flat",
        5.0,
        UalFiles::GraphAndBoneMap,
    );
    assert_walked_planted(&walk);
}

#[test]
fn ual_rig_from_assets_climbs_the_stairs() {
    let Some(path) = plantigrade_test_assets::require(UAL) else {
        return;
    };
    let walk = walk_ual(
        path.parent().unwrap(),
        "stairs_20cm",
        6.0,
        UalFiles::GraphAndBoneMap,
    );
    assert_walked_planted(&walk);
}

/// Issue 17 item 10: a user's glTF character and a roles file, nothing else (graph
/// generated on its clips, bones detected), spawns with foot IK and climbs the stairs.
#[test]
fn ual_rig_with_only_a_roles_file_climbs_the_stairs_with_foot_ik() {
    let Some(path) = plantigrade_test_assets::require(UAL) else {
        return;
    };
    let walk = walk_ual(path.parent().unwrap(), "stairs_20cm", 6.0, UalFiles::Roles);
    assert_walked_planted(&walk);
}

/// Issue 22 item 4: a glTF character whose own clips are not used (as one with none),
/// with the built-in set authored on its rig, spawns with foot IK and climbs the stairs.
#[test]
fn ual_rig_with_generated_clips_climbs_the_stairs_with_foot_ik() {
    let Some(path) = plantigrade_test_assets::require(UAL) else {
        return;
    };
    let walk = walk_ual(
        path.parent().unwrap(),
        "stairs_20cm",
        6.0,
        UalFiles::GeneratedClips,
    );
    assert_walked_planted(&walk);
}

/// Issue 17 item 10 as the lab's `--character` builds it: Quaternius' character with only
/// its role map gets the settings scaled to its legs (0.65 of the mannequin's) and foot
/// sockets from its skin (it has no toe joints, so without the skin they would come from
/// leg proportions), and walks the flat lane, up the 20° ramp and up both flights planted
/// (its rays once started inside the step ahead and left its ball 5–10 cm in the riser).
#[test]
fn quaternius_rig_with_only_a_roles_file_is_sized_and_footed_as_in_the_lab() {
    let Some(path) = plantigrade_test_assets::require(QUATERNIUS.file) else {
        return;
    };
    for section in ["flat", "ramp_20deg", "stairs_15cm", "stairs_20cm"] {
        let walk = walk_rig(
            path.parent().unwrap(),
            QUATERNIUS,
            section,
            6.0,
            UalFiles::Roles,
        );
        // The default 1.8 m capsule at 0.53 / 0.82 of the mannequin's leg.
        assert!(
            (walk.capsule_height_m - 1.8 * 0.533 / 0.82).abs() < 0.02,
            "{walk:?}"
        );
        // The sole from the vertices weighted to the foot: 0.198 m heel to ball.
        for d in walk.heel_to_ball_m {
            assert!((d - 0.198).abs() < 0.01, "{walk:?}");
        }
        assert_walked_planted(&walk);
    }
}

/// No NaN, over 4 m forward, and every one of over 60 stance foot-ticks within 2 cm of its
/// ground, none sinking more than 2 cm.
fn assert_walked_planted(walk: &Walk) {
    assert_eq!(walk.nan, 0);
    assert!(walk.forward_m > 4.0, "{walk:?}");
    assert!(walk.stance_foot_ticks > 60, "{walk:?}");
    assert!(walk.stance_max_m < 0.02, "{walk:?}");
    assert!(walk.sink_max_m < 0.02, "{walk:?}");
}

/// A hierarchy like a glTF scene's, built by hand from the UAL skeleton: an armature node
/// with a rotation, a translation and a scale above the skeleton root (whose local
/// transform is then the file's, without the armature baked in), a mesh node beside it,
/// every joint named as in the skeleton.
#[test]
fn joints_bind_to_a_named_hierarchy_without_duplicates() {
    let Some(path) = plantigrade_test_assets::require(UAL) else {
        return;
    };
    let rig = plantigrade_gltf::load_path(&path).unwrap();
    let skeleton = rig.skeleton;
    let mut app = app(&[(RIGS, path.parent().unwrap())]);
    app.world_mut().spawn((
        Transform::from_xyz(0.0, -0.5, 0.0),
        Collider::cuboid(50.0, 0.5, 50.0),
    ));
    // ByName waits for the scene: none yet.
    let source = ual_source(&mut app, UalFiles::GraphAndBoneMap).with_joints(JointBinding::ByName);
    let entity = app
        .world_mut()
        .spawn((source, Transform::from_xyz(1.0, 0.0, 2.0)))
        .id();
    assert_eq!(
        settle(&mut app, entity),
        CharacterSourceStatus::WaitingForJoints
    );

    let made: Vec<Entity> = named_hierarchy(app.world_mut(), entity, &skeleton, &[])
        .into_iter()
        .flatten()
        .collect();
    let n = skeleton.num_joints();
    let s = settle_while(&mut app, entity, CharacterSourceStatus::WaitingForJoints);
    assert_eq!(s, CharacterSourceStatus::Built { bound_joints: n });
    let joints = app.world().get::<CharacterJoints>(entity).unwrap();
    assert_eq!(
        joints.entities(),
        &made[..],
        "the hand-made entities are the joints"
    );
    let mut q = app.world_mut().query::<&SkeletonJoint>();
    assert_eq!(q.iter(app.world()).count(), n, "no joint entity was added");
    let mut names = app.world_mut().query::<&Name>();
    let hips = names
        .iter(app.world())
        .filter(|n| n.as_str() == "DEF-hips")
        .count();
    assert_eq!(hips, 1);

    // Walk a second; every joint entity sits where the core's model pose puts it: the
    // armature node is neither lost nor applied twice.
    let worst = joints_follow_the_model_pose(&mut app, entity, 60);
    assert!(worst.0 < 1e-3, "{worst:?}");
    assert!(worst.1 < 1e-4, "{worst:?}");
    let c = app.world().get::<PlantigradeCharacter>(entity).unwrap();
    assert!(c.character().feet_world().z > 2.3, "it walked");
}

/// A hierarchy like a glTF scene's under `parent`: an "Armature" node with a rotation, a
/// translation and a scale above the skeleton root (whose local transform is then the
/// file's, without the armature baked in), a "Body mesh" node beside it, and one entity
/// per joint named as in `skeleton`, at rest, except the joints in `skip` (and their
/// descendants). Returns the joint entities by joint index.
fn named_hierarchy(
    world: &mut World,
    parent: Entity,
    skeleton: &plantigrade::Skeleton,
    skip: &[usize],
) -> Vec<Option<Entity>> {
    let armature = Transform {
        translation: Vec3::new(0.1, 0.2, -0.3),
        rotation: Quat::from_rotation_x(-0.5) * Quat::from_rotation_y(0.7),
        scale: Vec3::splat(1.5),
    };
    let armature_entity = world
        .spawn((Name::new("Armature"), armature, ChildOf(parent)))
        .id();
    world.spawn((Name::new("Body mesh"), Transform::IDENTITY, ChildOf(parent)));
    let mut made: Vec<Option<Entity>> = Vec::new();
    for (index, rest) in skeleton.rest_local().iter().enumerate() {
        let rest = Transform {
            translation: rest.translation,
            rotation: rest.rotation,
            scale: rest.scale,
        };
        let (parent, local) = match skeleton.parent(index) {
            Some(p) => (made[p], rest),
            // The file's own root transform: the armature is not baked in.
            None => (
                Some(armature_entity),
                Transform::from_matrix(
                    (armature.compute_affine().inverse() * rest.compute_affine()).into(),
                ),
            ),
        };
        let joint = match parent {
            Some(parent) if !skip.contains(&index) => Some(
                world
                    .spawn((
                        Name::new(skeleton.name(index).to_owned()),
                        local,
                        ChildOf(parent),
                    ))
                    .id(),
            ),
            _ => None,
        };
        made.push(joint);
    }
    made
}

/// Runs `entity` (walking) to `ticks` ticks and returns the worst distance (m) and axis
/// error between each joint entity's `GlobalTransform` and the core's model pose.
fn joints_follow_the_model_pose(app: &mut App, entity: Entity, ticks_to: u64) -> (f32, f32) {
    let mut worst = (0.0f32, 0.0f32);
    let mut last = ticks(app, entity);
    while last < ticks_to {
        app.update();
        if ticks(app, entity) == last {
            continue;
        }
        last = ticks(app, entity);
        let world = app.world();
        let c = world
            .get::<PlantigradeCharacter>(entity)
            .unwrap()
            .character();
        let joints = world.get::<CharacterJoints>(entity).unwrap();
        for (j, &e) in joints.entities().iter().enumerate() {
            let global = world.get::<GlobalTransform>(e).unwrap();
            let want = c.model_to_world(c.model_pose().position_model(j));
            worst.0 = worst.0.max(global.translation().distance(want));
            let (_, model_rot, _) =
                c.model_pose().joints_model()[j].to_scale_rotation_translation();
            let want_rot = c.facing_world() * model_rot;
            // Axes rather than `angle_between`, whose acos has ~1e-3 rad of f32 noise.
            let (_, rot, _) = global.to_scale_rotation_translation();
            for axis in [Vec3::X, Vec3::Y] {
                worst.1 = worst.1.max((rot * axis).distance(want_rot * axis));
            }
        }
    }
    eprintln!(
        "joint entities vs the model pose: worst {:.2e} m, axis error {:.2e}",
        worst.0, worst.1
    );
    worst
}

/// Hand-built scene of the exported mannequin with two leaf joints missing, bound with
/// the default `Auto`: the others are reused, the two get entities of their own under
/// their parent joint's entity, and all follow the model pose.
#[test]
fn unmatched_joints_get_their_own_entities() {
    let dir = mannequin_folder("partial");
    let m = Mannequin::new();
    let skeleton = &m.skeleton;
    let leaves: Vec<usize> = (0..skeleton.num_joints())
        .filter(|&j| skeleton.children(j).next().is_none())
        .take(2)
        .collect();
    let mut app = app(&[("pg-tmp", dir.as_path())]);
    let entity = spawn_exported_mannequin(&mut app);
    let made = named_hierarchy(app.world_mut(), entity, skeleton, &leaves);
    let n = skeleton.num_joints();
    let s = settle(&mut app, entity);
    assert_eq!(
        s,
        CharacterSourceStatus::Built {
            bound_joints: n - 2
        }
    );
    let joints = app.world().get::<CharacterJoints>(entity).unwrap().clone();
    for (j, (&e, made)) in joints.entities().iter().zip(&made).enumerate() {
        match made {
            Some(made) => assert_eq!(e, *made, "joint {j} reused"),
            None => {
                let parent = app.world().get::<ChildOf>(e).unwrap().parent();
                let want = joints.entities()[skeleton.parent(j).unwrap()];
                assert_eq!(parent, want, "joint {j} under its parent joint");
            }
        }
    }
    let mut q = app.world_mut().query::<&SkeletonJoint>();
    assert_eq!(q.iter(app.world()).count(), n);
    let worst = joints_follow_the_model_pose(&mut app, entity, 60);
    assert!(worst.0 < 1e-3, "{worst:?}");
    assert!(worst.1 < 1e-4, "{worst:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Updates while the status is `while_status`.
fn settle_while(
    app: &mut App,
    entity: Entity,
    while_status: CharacterSourceStatus,
) -> CharacterSourceStatus {
    for _ in 0..100 {
        app.update();
        let s = status(app, entity);
        if s != while_status {
            return s;
        }
    }
    status(app, entity)
}

/// A folder in the temp dir holding the mannequin exported as a `.glb` (our own rig, so
/// these tests run without the third-party files) and its default graph.
fn mannequin_folder(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pg-assets-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = Mannequin::new();
    plantigrade_gltf::export_glb_to_path(&m.skeleton, &m.clips, &dir.join("mannequin.glb"))
        .unwrap();
    std::fs::write(dir.join("mannequin.graph.ron"), DEFAULT_GRAPH_RON).unwrap();
    dir
}

/// The mannequin, exported to a `.glb` and read back through the AssetServer with its
/// default graph file, is built with spawned joint entities and walks on its own feet.
#[test]
fn exported_mannequin_from_assets_walks() {
    let dir = mannequin_folder("walk");
    let mut app = app(&[("pg-tmp", dir.as_path())]);
    let entity = spawn_exported_mannequin(&mut app);
    let s = settle(&mut app, entity);
    assert!(
        matches!(s, CharacterSourceStatus::Built { bound_joints: 0 }),
        "{s:?}"
    );
    let n = app
        .world()
        .get::<CharacterJoints>(entity)
        .unwrap()
        .entities()
        .len();
    let mut q = app.world_mut().query::<&SkeletonJoint>();
    assert_eq!(q.iter(app.world()).count(), n);
    while ticks(&app, entity) < 120 {
        app.update();
    }
    let c = app
        .world()
        .get::<PlantigradeCharacter>(entity)
        .unwrap()
        .character();
    let feet = c.feet_world();
    assert!(
        feet.is_finite() && feet.z > 1.5 && feet.y.abs() < 0.02,
        "{feet}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Malformed and missing files: each source fails with its reason on the entity, which
/// gets no character and no joints; nothing panics.
#[test]
fn bad_files_fail_on_the_entity_without_panicking() {
    let dir = mannequin_folder("bad");
    std::fs::write(dir.join("broken.graph.ron"), "GraphDef(parameters: [").unwrap();
    std::fs::write(dir.join("broken.bones.ron"), "(pelvis: 3)").unwrap();
    std::fs::write(dir.join("garbage.glb"), b"glTF\x02\0\0\0 not really").unwrap();
    std::fs::write(
        dir.join("unknown_clip.graph.ron"),
        DEFAULT_GRAPH_RON.replace("clip: \"Idle\"", "clip: \"Loiter\""),
    )
    .unwrap();
    std::fs::write(
        dir.join("unknown_bone.bones.ron"),
        "(pelvis: Some(\"no_such_joint\"))",
    )
    .unwrap();
    std::fs::write(
        dir.join("broken.roles.ron"),
        "ClipRoles(idle: \"Idle\", wlak: 1)",
    )
    .unwrap();
    std::fs::write(
        dir.join("unknown_clip.roles.ron"),
        "ClipRoles(idle: \"Idle\", walk_forward: \"Stroll\")",
    )
    .unwrap();
    let mut app = app(&[("pg-tmp", dir.as_path())]);
    let server = app.world().resource::<AssetServer>().clone();
    let rig = || server.load::<RigAsset>("pg-tmp://mannequin.glb");
    let graph = || server.load::<GraphSource>("pg-tmp://mannequin.graph.ron");
    let cases = [
        (
            "missing rig",
            CharacterSource::new(server.load("no_such_rig.glb"), graph()),
        ),
        (
            "garbage rig",
            CharacterSource::new(server.load("pg-tmp://garbage.glb"), graph()),
        ),
        (
            "broken graph",
            CharacterSource::new(rig(), server.load("pg-tmp://broken.graph.ron")),
        ),
        (
            "missing graph",
            CharacterSource::new(rig(), server.load("no_such.graph.ron")),
        ),
        (
            "broken bone map",
            CharacterSource::new(rig(), graph())
                .with_bone_map(server.load("pg-tmp://broken.bones.ron")),
        ),
        (
            "unknown clip",
            CharacterSource::new(rig(), server.load("pg-tmp://unknown_clip.graph.ron")),
        ),
        (
            "unknown bone",
            CharacterSource::new(rig(), graph())
                .with_bone_map(server.load("pg-tmp://unknown_bone.bones.ron")),
        ),
        (
            "broken roles",
            CharacterSource::new(rig(), server.load("pg-tmp://broken.roles.ron")),
        ),
        (
            "roles naming an unknown clip",
            CharacterSource::new(rig(), server.load("pg-tmp://unknown_clip.roles.ron")),
        ),
    ];
    let entities: Vec<(&str, Entity)> = cases
        .into_iter()
        .map(|(what, source)| (what, app.world_mut().spawn(source).id()))
        .collect();
    for _ in 0..2000 {
        app.update();
        let pending = entities
            .iter()
            .any(|&(_, e)| status(&app, e) == CharacterSourceStatus::Loading);
        if !pending {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // A few more updates: a failed entity stays failed and inert.
    for _ in 0..10 {
        app.update();
    }
    for &(what, e) in &entities {
        let s = status(&app, e);
        eprintln!("{what}: {s:?}");
        let CharacterSourceStatus::Failed(error) = &s else {
            panic!("{what}: {s:?}");
        };
        match (what, error) {
            ("unknown clip", CharacterSourceError::Graph { error, .. }) => {
                assert!(error.to_string().contains("Loiter"), "{error}");
                assert!(error.pos.is_some(), "the error names its line");
            }
            ("unknown bone", CharacterSourceError::Character(e)) => {
                assert!(e.to_string().contains("no_such_joint"), "{e}");
            }
            ("roles naming an unknown clip", CharacterSourceError::Graph { error, .. }) => {
                assert!(error.to_string().contains("Stroll"), "{error}");
            }
            ("broken roles", CharacterSourceError::Load { reason, .. }) => {
                assert!(
                    reason.contains("wlak") && reason.contains("line 1"),
                    "{reason}"
                );
            }
            (
                "unknown clip" | "unknown bone" | "roles naming an unknown clip" | "broken roles",
                other,
            ) => {
                panic!("{what}: {other:?}")
            }
            (_, CharacterSourceError::Load { reason, .. }) => {
                assert!(!reason.is_empty() && !reason.contains('\n'), "{reason}");
            }
            (_, other) => panic!("{what}: {other:?}"),
        }
        assert!(
            app.world().get::<PlantigradeCharacter>(e).is_none(),
            "{what}"
        );
    }
    let mut q = app.world_mut().query::<&SkeletonJoint>();
    assert_eq!(q.iter(app.world()).count(), 0, "no joints were made");
    std::fs::remove_dir_all(&dir).ok();
}

/// The graph copied into `assets/` is the one the core's bench and lab test use.
#[test]
fn the_assets_graph_is_the_benches_graph() {
    assert_eq!(
        include_str!("../assets/ual_als.graph.ron"),
        include_str!("../../plantigrade/benches/ual_als.ron")
    );
}

/// A floor, and an entity whose `CharacterSource` is the exported mannequin and its graph
/// in the `pg-tmp` folder.
fn spawn_exported_mannequin(app: &mut App) -> Entity {
    app.world_mut().spawn((
        Transform::from_xyz(0.0, -0.5, 0.0),
        Collider::cuboid(50.0, 0.5, 50.0),
    ));
    let server = app.world().resource::<AssetServer>().clone();
    let source = CharacterSource::new(
        server.load("pg-tmp://mannequin.glb"),
        server.load("pg-tmp://mannequin.graph.ron"),
    );
    app.world_mut().spawn(source).id()
}
