//! The core's [`QueryMover`] on a real rapier world: rapier answers the ray and capsule
//! casts, the collide-and-slide, step-up, snapping and slope limits are the core's
//! (SPEC MOVE-7, ENG-1). Each test also runs rapier's own mover on the same geometry where
//! the two should agree.

use glam::{Quat, Vec3};
use plantigrade::world::{
    Capsule, CharacterMover, CharacterPhysics, Layers, MoveLimits, MoveRequest, MoveResult,
    QueryFilter, QueryMover,
};
use plantigrade_course::SolidShape;
use plantigrade_rapier::RapierWorld;

const DT: f32 = 1.0 / 60.0;

fn cuboid(center: Vec3, half: Vec3) -> SolidShape {
    SolidShape::Cuboid {
        center_world: center,
        half_extents_m: half,
        rotation_world: Quat::IDENTITY,
    }
}

/// A 40 × 40 m floor with its top at y = 0, plus `solids`.
fn world_with(solids: &[SolidShape]) -> RapierWorld {
    let mut world = RapierWorld::new();
    world
        .add_solid(
            &cuboid(Vec3::new(0.0, -0.5, 0.0), Vec3::new(20.0, 0.5, 20.0)),
            Layers::GROUND,
        )
        .unwrap();
    for s in solids {
        world.add_solid(s, Layers::GROUND).unwrap();
    }
    world
}

fn request(feet: Vec3, desired: Vec3) -> MoveRequest {
    MoveRequest {
        capsule: Capsule::from_height(1.8, 0.3),
        limits: MoveLimits::default(),
        feet,
        desired_translation: desired,
        dt_s: DT,
        filter: QueryFilter::GROUND,
    }
}

/// `ticks` moves at horizontal `velocity` (m/s) with gravity (24.5 m/s², MOVE-5) while
/// airborne; returns the feet, the last result and the lowest and highest feet.
fn walk(
    physics: &dyn CharacterPhysics,
    mut feet: Vec3,
    velocity: Vec3,
    ticks: usize,
) -> (Vec3, MoveResult, f32) {
    let mut vy = 0.0f32;
    let mut last = physics.move_capsule(&request(feet, Vec3::ZERO));
    let mut highest = feet.y;
    for _ in 0..ticks {
        vy = if last.grounded { -1.0 } else { vy - 24.5 * DT };
        let desired = Vec3::new(velocity.x, vy, velocity.z) * DT;
        last = physics.move_capsule(&request(feet, desired));
        feet += last.translation;
        highest = highest.max(feet.y);
    }
    (feet, last, highest)
}

#[test]
fn walks_on_flat_ground_at_the_speed_asked() {
    let world = world_with(&[]);
    let mover = QueryMover::new(&world);
    let (feet, last, highest) = walk(&mover, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 60);
    assert!((feet.z - 1.75).abs() < 0.01, "{feet}");
    assert!(feet.y.abs() < 2e-3 && highest < 2e-3, "{feet}");
    assert!(last.grounded && !last.hit_wall, "{last:?}");
    let n = last.floor_normal.unwrap();
    assert!(n.y > 0.999, "{n}");
}

#[test]
fn slides_along_a_wall_and_reports_it_when_pushed_into() {
    // A wall whose face is the plane x = 1.
    let world = world_with(&[cuboid(Vec3::new(1.5, 1.5, 0.0), Vec3::new(0.5, 1.5, 10.0))]);
    let mover = QueryMover::new(&world);
    let v = Vec3::new(1.0, 0.0, 1.0).normalize() * 3.0;
    let (feet, last, _) = walk(&mover, Vec3::ZERO, v, 90);
    assert!(feet.x <= 1.0 - 0.3 + 1e-3, "went into the wall: {feet}");
    assert!(feet.x > 1.0 - 0.3 - 0.02, "{feet}");
    assert!(feet.z > 2.5, "stopped instead of sliding: {feet}");
    assert!(last.grounded, "{last:?}");
    let r = mover.move_capsule(&request(feet, Vec3::new(0.05, -0.02, 0.0)));
    assert!(r.translation.x.abs() < 1e-3 && r.hit_wall, "{r:?}");
}

/// A step of `height_m` whose riser faces -Z at z = 1, 3 m deep.
fn step(height_m: f32) -> SolidShape {
    cuboid(
        Vec3::new(0.0, height_m * 0.5, 2.5),
        Vec3::new(5.0, height_m * 0.5, 1.5),
    )
}

#[test]
fn climbs_an_18_cm_step_without_slowing_much() {
    let world = world_with(&[step(0.18)]);
    for (name, physics) in [
        ("queries", &QueryMover::new(&world) as &dyn CharacterPhysics),
        ("rapier", &world),
    ] {
        let (feet, last, highest) = walk(physics, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 60);
        assert!((feet.y - 0.18).abs() < 2e-3, "{name}: {feet}");
        assert!(feet.z > 1.6, "{name}: slowed to {feet}");
        assert!(highest < 0.18 + 0.02, "{name}: launched to {highest}");
        assert!(last.grounded, "{name}: {last:?}");
    }
}

#[test]
fn refuses_a_step_higher_than_the_step_height() {
    let world = world_with(&[step(0.5)]);
    let mover = QueryMover::new(&world);
    let (feet, last, highest) = walk(&mover, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 60);
    assert!(highest < 1e-2, "climbed to {highest}");
    assert!(feet.z < 1.0 - 0.3 + 1e-3, "{feet}");
    assert!(last.hit_wall && last.grounded, "{last:?}");
}

#[test]
fn refuses_a_slope_steeper_than_the_climb_limit() {
    // A 60° ramp: a thin box tilted about X, its low end near z = 1.
    let angle = 60f32.to_radians();
    let ramp = SolidShape::Cuboid {
        center_world: Vec3::new(0.0, 1.5 * angle.sin(), 1.0 + 1.5 * angle.cos()),
        half_extents_m: Vec3::new(5.0, 0.05, 1.5),
        rotation_world: Quat::from_rotation_x(-angle),
    };
    let world = world_with(&[ramp]);
    let mover = QueryMover::new(&world);
    let (feet, _, highest) = walk(&mover, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 120);
    assert!(highest < 0.15, "climbed the 60° ramp to {highest} ({feet})");
    // A gentle 20° ramp is walked up.
    let angle = 20f32.to_radians();
    let ramp = SolidShape::Cuboid {
        center_world: Vec3::new(0.0, 2.0 * angle.sin() - 0.05, 1.0 + 2.0 * angle.cos()),
        half_extents_m: Vec3::new(5.0, 0.05, 2.0),
        rotation_world: Quat::from_rotation_x(-angle),
    };
    let world = world_with(&[ramp]);
    let mover = QueryMover::new(&world);
    let (feet, last, _) = walk(&mover, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 90);
    assert!(feet.y > 0.4, "did not climb the 20° ramp: {feet}");
    assert!(last.grounded, "{last:?}");
}

#[test]
fn snaps_down_a_small_step_when_grounded_and_falls_off_a_high_ledge() {
    // Walking off a 20 cm platform: snapped down, never airborne.
    let platform = |h: f32| cuboid(Vec3::new(0.0, h * 0.5, -9.0), Vec3::new(5.0, h * 0.5, 10.0));
    let world = world_with(&[platform(0.2)]);
    let mover = QueryMover::new(&world);
    let mut feet = Vec3::new(0.0, 0.2, 0.5);
    let mut airborne = 0;
    for _ in 0..60 {
        let r = mover.move_capsule(&request(feet, Vec3::new(0.0, -1.0, 1.75) * DT));
        feet += r.translation;
        if !r.grounded {
            airborne += 1;
        }
    }
    assert!(feet.y.abs() < 2e-3 && feet.z > 2.0, "{feet}");
    assert_eq!(airborne, 0, "left the ground stepping down 20 cm");
    // Off a 1 m ledge it falls: airborne for several ticks, then lands.
    let world = world_with(&[platform(1.0)]);
    let mover = QueryMover::new(&world);
    let mut feet = Vec3::new(0.0, 1.0, 0.5);
    let mut airborne = 0;
    let mut vy = 0.0f32;
    let mut grounded = true;
    for _ in 0..90 {
        vy = if grounded { -1.0 } else { vy - 24.5 * DT };
        let r = mover.move_capsule(&request(feet, Vec3::new(0.0, vy, 1.75) * DT));
        feet += r.translation;
        grounded = r.grounded;
        if !r.grounded {
            airborne += 1;
        }
    }
    assert!(
        airborne >= 5,
        "snapped down a 1 m ledge ({airborne} airborne ticks)"
    );
    assert!(feet.y.abs() < 2e-3 && grounded, "{feet}");
}

#[test]
fn garbage_input_is_a_zero_move_on_rapier_queries_too() {
    let world = world_with(&[]);
    let mover = QueryMover::new(&world);
    let r = mover.move_capsule(&request(Vec3::NAN, Vec3::Z));
    assert_eq!(r.translation, Vec3::ZERO);
    assert!(!r.grounded);
    let r = mover.move_capsule(&request(Vec3::ZERO, Vec3::new(0.0, f32::NAN, 0.0)));
    assert_eq!(r.translation, Vec3::ZERO);
}
