//! Sampling, blending, layering and local-to-model allocate nothing once the pose buffers
//! exist (SPEC ANIM-3, PERF-4). A counting global allocator sees every allocation made on
//! this test's thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{add_additive, blend, blend_layer, local_to_model, make_additive};
use plantigrade::pose::{BoneMask, ModelPose, Pose};

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with` so allocations during thread teardown are not an error.
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn per_tick_pose_work_does_not_allocate() {
    let m = Mannequin::new();
    let clip = |name: &str| {
        m.clip(name)
            .unwrap_or_else(|| panic!("mannequin clip {name} missing"))
    };
    let (walk, walk_left, run, aim) = (clip("Walk_F"), clip("Walk_FL"), clip("Run_F"), clip("Aim"));
    let rest = m.skeleton.rest_local();
    let mask = BoneMask::from_chain_weights(
        &m.skeleton,
        &[
            ("spine_01", 0.3),
            ("spine_02", 0.6),
            ("spine_03", 0.9),
            ("neck_01", 1.0),
        ],
    )
    .unwrap();
    let mut poses = [
        Pose::rest(&m.skeleton),
        Pose::rest(&m.skeleton),
        Pose::rest(&m.skeleton),
    ];
    let mut overlay = Pose::rest(&m.skeleton);
    let mut delta = Pose::rest(&m.skeleton);
    let mut out = Pose::rest(&m.skeleton);
    let mut model = ModelPose::new(m.skeleton.num_joints());
    let reference = Pose::rest(&m.skeleton);

    let before = allocations();
    for tick in 0..240 {
        let phase = tick as f32 / 60.0;
        walk.sample_phase(phase, rest, &mut poses[0]).unwrap();
        walk_left.sample_phase(phase, rest, &mut poses[1]).unwrap();
        run.sample_phase(phase, rest, &mut poses[2]).unwrap();
        blend(
            &[(&poses[0], 0.5), (&poses[1], 0.25), (&poses[2], 0.25)],
            &mut out,
        )
        .unwrap();
        aim.sample(phase, rest, &mut overlay).unwrap();
        blend_layer(&mut out, &overlay, 0.7, Some(&mask)).unwrap();
        make_additive(&overlay, &reference, &mut delta).unwrap();
        add_additive(&mut out, &delta, 0.2, Some(&mask)).unwrap();
        let _ = walk.sample_curve("FootContact_L", phase);
        local_to_model(&m.skeleton, &out, &mut model).unwrap();
    }
    assert_eq!(
        allocations() - before,
        0,
        "the per-tick pose path allocated"
    );
    assert!(model.joints_model().iter().all(|m| m.is_finite()));
}

#[test]
fn graph_tick_does_not_allocate_after_warm_up() {
    use plantigrade::graph::GraphInstance;
    use std::sync::Arc;
    let m = Mannequin::new();
    let asset = Arc::new(m.default_graph().unwrap());
    let mut graph = GraphInstance::new(asset.clone());
    let mut pose = Pose::rest(&m.skeleton);
    let p = asset.params();
    let (speed, direction, grounded, vy, aiming, crouch) = (
        p.float("speed").unwrap(),
        p.float("direction").unwrap(),
        p.bool("is_grounded").unwrap(),
        p.float("vertical_velocity").unwrap(),
        p.bool("aiming").unwrap(),
        p.bool("is_crouching").unwrap(),
    );
    // Script: walk, turn, run, crouch, aim, jump and land, twice; the second pass is counted.
    let run = |graph: &mut GraphInstance, pose: &mut Pose| {
        for tick in 0..600 {
            let t = tick as f32 / 60.0;
            let params = graph.params_mut();
            params.set_float(speed, if t < 4.0 { t } else { 0.0 });
            params.set_float(direction, (t * 60.0) % 360.0 - 180.0);
            params.set_bool(aiming, (2.0..3.0).contains(&t));
            params.set_bool(crouch, (4.0..5.0).contains(&t));
            params.set_bool(grounded, !(6.0..7.0).contains(&t));
            params.set_float(vy, 6.0 - (t - 6.0) * 12.0);
            graph.tick(1.0 / 60.0, pose).unwrap();
        }
    };
    run(&mut graph, &mut pose);
    let before = allocations();
    run(&mut graph, &mut pose);
    assert_eq!(
        allocations() - before,
        0,
        "graph ticks allocated after warm-up"
    );
}

/// The whole procedural pass (pelvis tilt with its stairs profile, predictive foot IK with
/// lock and pelvis, look-at) inside `Character::tick` allocates nothing per tick once warm,
/// walking up the course's stairs and a ramp on the analytic world.
#[test]
fn character_tick_with_tilt_foot_ik_and_look_at_does_not_allocate() {
    use plantigrade::character::Character;
    use plantigrade::glam::{Vec2, Vec3};
    use plantigrade::motion::{CharacterConfig, Intent};
    use plantigrade_course::{AnalyticWorld, Course};
    use std::sync::Arc;

    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let graph = Arc::new(Mannequin::new().default_graph().unwrap());
    for section in ["stairs_20cm", "ramp_20deg"] {
        let s = course.section(section).unwrap();
        let mut c = Character::new(
            CharacterConfig::default(),
            graph.clone(),
            s.spawn_world,
            0.0,
        )
        .unwrap();
        c.set_look_target(Some(s.spawn_world + Vec3::new(2.0, 1.6, 6.0)));
        let intent = Intent {
            move_world: Vec2::new(0.0, 0.5),
            ..Intent::IDLE
        };
        for _ in 0..120 {
            c.tick(1.0 / 60.0, &intent, &world).unwrap();
        }
        let before = allocations();
        for _ in 0..300 {
            c.tick(1.0 / 60.0, &intent, &world).unwrap();
        }
        let made = allocations() - before;
        assert_eq!(made, 0, "{section}: {made} allocations in 300 ticks");
        assert!(c.foot_ik_output().is_some_and(|o| o.rays_cast > 0));
        assert!(c.tilt_output().is_some());
    }
}

/// The core's query mover (collide-and-slide, step-up, snap) allocates nothing per move:
/// a character walks on a floor whose only answers are ray and capsule casts.
#[test]
fn character_tick_on_the_query_mover_does_not_allocate() {
    use plantigrade::character::Character;
    use plantigrade::glam::{Vec2, Vec3};
    use plantigrade::motion::{CharacterConfig, Intent};
    use plantigrade::world::{Capsule, QueryFilter, QueryMover, RayHit, SpatialQueries};
    use std::sync::Arc;

    /// The floor y = 0 (solid below), answering rays and capsule casts.
    struct Floor;
    impl Floor {
        fn cast(bottom: Vec3, dir: Vec3, max: f32) -> Option<RayHit> {
            let dir = dir.try_normalize()?;
            let t = if bottom.y <= 0.0 {
                0.0
            } else if dir.y < 0.0 {
                bottom.y / -dir.y
            } else {
                return None;
            };
            (t <= max).then_some(RayHit {
                point: bottom + dir * t,
                normal: Vec3::Y,
                distance_m: t,
            })
        }
    }
    impl SpatialQueries for Floor {
        fn cast_ray(&self, o: Vec3, dir: Vec3, max: f32, _: QueryFilter) -> Option<RayHit> {
            Floor::cast(o, dir, max)
        }
        fn cast_capsule(
            &self,
            c: Capsule,
            center: Vec3,
            dir: Vec3,
            max: f32,
            _: QueryFilter,
        ) -> Option<RayHit> {
            Floor::cast(center - Vec3::Y * (c.half_height_m + c.radius_m), dir, max)
        }
    }

    let world = QueryMover::new(Floor);
    let graph = Arc::new(Mannequin::new().default_graph().unwrap());
    let mut c = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    let intent = Intent {
        move_world: Vec2::new(0.3, 0.8),
        ..Intent::IDLE
    };
    for _ in 0..120 {
        c.tick(1.0 / 60.0, &intent, &world).unwrap();
    }
    let before = allocations();
    for _ in 0..300 {
        c.tick(1.0 / 60.0, &intent, &world).unwrap();
    }
    let made = allocations() - before;
    assert_eq!(made, 0, "{made} allocations in 300 ticks");
    assert!(c.feet_world().y.abs() < 1e-3 && c.feet_world().z > 2.0);
}
