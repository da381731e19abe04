//! What the plugin's integration tests (and the examples that include this file) share:
//! the test course as each backend's colliders, and each backend's physics plugins.
#![allow(dead_code)] // each test binary uses its part

use bevy::prelude::*;
use plantigrade_bevy::PhysicsBackend;
use plantigrade_course::{Course, Solid, SolidShape};

/// The course's solids as static rapier colliders (no collision groups: on every layer),
/// each with its place.
#[cfg(feature = "rapier")]
pub fn course_colliders(course: &Course) -> Vec<(Transform, bevy_rapier3d::prelude::Collider)> {
    course
        .solids()
        .iter()
        .map(|solid| (placement(solid), rapier_shape(solid)))
        .collect()
}

/// The rapier collider of `solid`'s shape.
#[cfg(feature = "rapier")]
pub fn rapier_shape(solid: &Solid) -> bevy_rapier3d::prelude::Collider {
    use bevy_rapier3d::prelude::Collider;
    match solid.shape {
        SolidShape::Cuboid {
            half_extents_m: h, ..
        } => Collider::cuboid(h.x, h.y, h.z),
        SolidShape::ConvexHull {
            ref points_local, ..
        } => Collider::convex_hull(points_local).expect("the course's hulls are valid"),
        SolidShape::Ball { radius_m, .. } => Collider::ball(radius_m),
    }
}

/// The avian collider of `solid`'s shape (avian's cuboid takes full lengths).
#[cfg(feature = "avian")]
pub fn avian_shape(solid: &Solid) -> avian3d::prelude::Collider {
    use avian3d::prelude::Collider;
    match solid.shape {
        SolidShape::Cuboid {
            half_extents_m: h, ..
        } => Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z),
        SolidShape::ConvexHull {
            ref points_local, ..
        } => Collider::convex_hull(points_local.clone()).expect("the course's hulls are valid"),
        SolidShape::Ball { radius_m, .. } => Collider::sphere(radius_m),
    }
}

/// Where a solid's collider sits.
pub fn placement(solid: &Solid) -> Transform {
    match solid.shape {
        SolidShape::Cuboid {
            center_world,
            rotation_world,
            ..
        } => Transform::from_translation(center_world).with_rotation(rotation_world),
        SolidShape::ConvexHull { center_world, .. } | SolidShape::Ball { center_world, .. } => {
            Transform::from_translation(center_world)
        }
    }
}

/// Adds `backend`'s physics to `app`, stepping in the fixed schedule (rapier in
/// `FixedUpdate` after the characters, avian in its default `FixedPostUpdate`).
pub fn add_physics(app: &mut App, backend: PhysicsBackend) {
    match backend {
        #[cfg(feature = "rapier")]
        PhysicsBackend::Rapier => {
            use bevy_rapier3d::prelude::{NoUserData, RapierPhysicsPlugin};
            app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default().in_fixed_schedule());
        }
        #[cfg(feature = "avian")]
        PhysicsBackend::Avian => {
            app.add_plugins(avian3d::prelude::PhysicsPlugins::default());
        }
    }
}

/// Inserts `backend`'s static collider of `solid`'s shape on `entity` (placed by the
/// caller, e.g. with [`placement`]). rapier: no collision groups, every layer; avian: no
/// collision layers, avian's first layer, plantigrade's `GROUND`.
pub fn insert_solid_collider(entity: &mut EntityCommands, solid: &Solid, backend: PhysicsBackend) {
    match backend {
        #[cfg(feature = "rapier")]
        PhysicsBackend::Rapier => {
            entity.insert(rapier_shape(solid));
        }
        #[cfg(feature = "avian")]
        PhysicsBackend::Avian => {
            entity.insert((avian_shape(solid), avian3d::prelude::RigidBody::Static));
        }
    }
}

/// Inserts `backend`'s static box collider of `half_extents_m` on `entity`.
pub fn insert_box_collider(
    entity: &mut EntityCommands,
    half_extents_m: Vec3,
    backend: PhysicsBackend,
) {
    let h = half_extents_m;
    match backend {
        #[cfg(feature = "rapier")]
        PhysicsBackend::Rapier => {
            entity.insert(bevy_rapier3d::prelude::Collider::cuboid(h.x, h.y, h.z));
        }
        #[cfg(feature = "avian")]
        PhysicsBackend::Avian => {
            entity.insert((
                avian3d::prelude::Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z),
                avian3d::prelude::RigidBody::Static,
            ));
        }
    }
}

/// Spawns the course's solids as `backend`'s static colliders.
pub fn spawn_course(commands: &mut Commands, course: &Course, backend: PhysicsBackend) {
    for solid in course.solids() {
        let mut entity = commands.spawn(placement(&solid));
        insert_solid_collider(&mut entity, &solid, backend);
    }
}
