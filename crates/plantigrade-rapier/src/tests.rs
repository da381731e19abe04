//! Unit tests on small hand-built worlds; the course scenarios are in `tests/course.rs`.

use glam::{Quat, Vec3};
use plantigrade::world::{
    BodyId, Capsule, CharacterMover, Layers, MoveLimits, MoveRequest, QueryFilter, SpatialQueries,
};

use crate::queries::ZERO_MOVE;
use crate::{ControllerConfig, RapierWorld, RapierWorldError};
use plantigrade_course::SolidShape;

fn floor_world() -> RapierWorld {
    let mut world = RapierWorld::new();
    world
        .add_solid(
            &SolidShape::Cuboid {
                center_world: Vec3::new(0.0, -0.5, 0.0),
                half_extents_m: Vec3::new(10.0, 0.5, 10.0),
                rotation_world: Quat::IDENTITY,
            },
            Layers::GROUND,
        )
        .unwrap();
    world
}

const CAPSULE: Capsule = Capsule {
    radius_m: 0.3,
    half_height_m: 0.6,
};

#[test]
fn empty_world_misses_everything() {
    let world = RapierWorld::new();
    assert_eq!(
        world.cast_ray(Vec3::ZERO, -Vec3::Y, 100.0, QueryFilter::GROUND),
        None
    );
    assert_eq!(
        world.cast_capsule(CAPSULE, Vec3::ZERO, Vec3::Y, 10.0, QueryFilter::GROUND),
        None
    );
    let result = world.move_capsule(&MoveRequest {
        capsule: CAPSULE,
        limits: MoveLimits::default(),
        feet: Vec3::ZERO,
        desired_translation: Vec3::new(0.1, -0.1, 0.0),
        dt_s: 1.0 / 60.0,
        filter: QueryFilter::GROUND,
    });
    assert_eq!(result.translation, Vec3::new(0.1, -0.1, 0.0));
    assert!(!result.grounded);
}

#[test]
fn body_ids_map_to_character_colliders_only() {
    let mut world = floor_world();
    let a = world
        .add_character_capsule(CAPSULE, Vec3::new(1.0, 0.0, 0.0))
        .unwrap();
    let b = world
        .add_character_capsule(CAPSULE, Vec3::new(-1.0, 0.0, 0.0))
        .unwrap();
    assert_ne!(a, b);
    let ha = world.collider_of(a).unwrap();
    assert_eq!(world.body_of(ha), Some(a));
    assert_eq!(world.character_feet(a), Some(Vec3::new(1.0, 0.0, 0.0)));
    // The floor is not a character.
    let floor = world.colliders().iter().next().unwrap().0;
    assert_eq!(world.body_of(floor), None);
    let floor_id = BodyId(floor.into_raw_parts().0 as u64);
    assert_eq!(
        world.set_character_position(floor_id, Vec3::ZERO),
        Err(RapierWorldError::UnknownBody(floor_id))
    );
    assert!(world
        .set_character_position(BodyId(u64::MAX), Vec3::ZERO)
        .is_err());
    // Move, then remove: a stale id is refused.
    world
        .set_character_position(a, Vec3::new(3.0, 0.0, 0.0))
        .unwrap();
    assert_eq!(world.character_feet(a), Some(Vec3::new(3.0, 0.0, 0.0)));
    let hit = world
        .cast_ray(
            Vec3::new(3.0, 5.0, 0.0),
            -Vec3::Y,
            10.0,
            QueryFilter {
                layers: Layers::CHARACTERS,
                exclude: None,
            },
        )
        .unwrap();
    assert!((hit.point.y - 1.8).abs() < 1e-4, "{hit:?}");
    world.remove_character(a).unwrap();
    assert!(world.remove_character(a).is_err());
    assert!(world.character_feet(a).is_none());
    assert!(world.character_feet(b).is_some());
    // A new capsule reusing the slot gets a different id.
    let c = world.add_character_capsule(CAPSULE, Vec3::ZERO).unwrap();
    assert_ne!(c, a);
}

#[test]
fn bad_values_are_refused_not_panicked_on() {
    let mut world = floor_world();
    for capsule in [
        Capsule {
            radius_m: 0.0,
            half_height_m: 0.5,
        },
        Capsule {
            radius_m: f32::NAN,
            half_height_m: 0.5,
        },
        Capsule {
            radius_m: 0.3,
            half_height_m: -1.0,
        },
    ] {
        assert!(world.add_character_capsule(capsule, Vec3::ZERO).is_err());
    }
    assert!(world
        .add_character_capsule(CAPSULE, Vec3::new(f32::INFINITY, 0.0, 0.0))
        .is_err());
    let id = world.add_character_capsule(CAPSULE, Vec3::ZERO).unwrap();
    assert!(world
        .set_character_position(id, Vec3::splat(f32::NAN))
        .is_err());
    assert!(world
        .add_solid(
            &SolidShape::Ball {
                center_world: Vec3::ZERO,
                radius_m: -1.0
            },
            Layers::GROUND
        )
        .is_err());
    assert!(matches!(
        world.add_solid(
            &SolidShape::ConvexHull {
                center_world: Vec3::ZERO,
                points_local: vec![Vec3::ZERO; 4],
            },
            Layers::GROUND
        ),
        Err(RapierWorldError::DegenerateHull { .. })
    ));
    assert!(RapierWorld::with_config(ControllerConfig {
        normal_nudge_m: -1.0,
        ..ControllerConfig::default()
    })
    .is_err());
}

#[test]
fn non_finite_queries_miss_and_moves_do_nothing() {
    let world = floor_world();
    let f = QueryFilter::GROUND;
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    assert_eq!(world.cast_ray(Vec3::splat(nan), -Vec3::Y, 1.0, f), None);
    assert_eq!(world.cast_ray(Vec3::Y, Vec3::splat(nan), 1.0, f), None);
    assert_eq!(world.cast_ray(Vec3::Y, Vec3::ZERO, 1.0, f), None);
    assert_eq!(world.cast_ray(Vec3::Y, -Vec3::Y, nan, f), None);
    assert_eq!(world.cast_ray(Vec3::Y, -Vec3::Y, -1.0, f), None);
    // An infinite distance is clamped, not refused.
    assert!(world.cast_ray(Vec3::Y, -Vec3::Y, inf, f).is_some());
    // A direction that is not unit length is normalised.
    let hit = world.cast_ray(Vec3::Y, -Vec3::Y * 3.0, 2.0, f).unwrap();
    assert!((hit.distance_m - 1.0).abs() < 1e-5);
    let center = Vec3::new(0.0, 2.0, 0.0);
    assert_eq!(
        world.cast_capsule(CAPSULE, center, Vec3::splat(inf), 1.0, f),
        None
    );
    assert_eq!(
        world.cast_capsule(
            Capsule {
                radius_m: nan,
                half_height_m: 0.6
            },
            center,
            -Vec3::Y,
            1.0,
            f
        ),
        None
    );
    let request = MoveRequest {
        capsule: CAPSULE,
        limits: MoveLimits::default(),
        feet: Vec3::ZERO,
        desired_translation: Vec3::new(0.1, 0.0, 0.0),
        dt_s: 1.0 / 60.0,
        filter: f,
    };
    for bad in [
        MoveRequest {
            feet: Vec3::splat(nan),
            ..request
        },
        MoveRequest {
            desired_translation: Vec3::new(inf, 0.0, 0.0),
            ..request
        },
        MoveRequest {
            dt_s: nan,
            ..request
        },
        MoveRequest {
            capsule: Capsule {
                radius_m: -0.3,
                half_height_m: 0.6,
            },
            ..request
        },
    ] {
        assert_eq!(world.move_capsule(&bad), ZERO_MOVE);
    }
    // dt = 0 and a 1 s spike are fine.
    for dt_s in [0.0, 1.0] {
        let r = world.move_capsule(&MoveRequest { dt_s, ..request });
        assert!(r.translation.is_finite());
    }
}

#[test]
fn layers_select_colliders() {
    let mut world = floor_world();
    world
        .add_solid(
            &SolidShape::Cuboid {
                center_world: Vec3::new(0.0, 1.0, 0.0),
                half_extents_m: Vec3::splat(0.25),
                rotation_world: Quat::IDENTITY,
            },
            Layers::PROPS,
        )
        .unwrap();
    let down = |layers| {
        world
            .cast_ray(
                Vec3::new(0.0, 3.0, 0.0),
                -Vec3::Y,
                5.0,
                QueryFilter {
                    layers,
                    exclude: None,
                },
            )
            .map(|h| h.point.y)
    };
    assert_eq!(down(Layers::GROUND), Some(0.0));
    assert_eq!(down(Layers::PROPS), Some(1.25));
    assert_eq!(down(Layers::ALL), Some(1.25));
    assert_eq!(down(Layers::CHARACTERS), None);
    assert_eq!(down(Layers(0)), None);
}
