//! What the plugin's integration tests share.

use bevy::prelude::Transform;
use bevy_rapier3d::prelude::Collider;
use plantigrade_course::{Course, SolidShape};

/// The course's solids as static rapier colliders (no collision groups: on every layer),
/// each with its place.
pub fn course_colliders(course: &Course) -> Vec<(Transform, Collider)> {
    course
        .solids()
        .into_iter()
        .map(|solid| match solid.shape {
            SolidShape::Cuboid {
                center_world,
                half_extents_m: h,
                rotation_world,
            } => (
                Transform::from_translation(center_world).with_rotation(rotation_world),
                Collider::cuboid(h.x, h.y, h.z),
            ),
            SolidShape::ConvexHull {
                center_world,
                points_local,
            } => (
                Transform::from_translation(center_world),
                Collider::convex_hull(&points_local).expect("the course's hulls are valid"),
            ),
            SolidShape::Ball {
                center_world,
                radius_m,
            } => (
                Transform::from_translation(center_world),
                Collider::ball(radius_m),
            ),
        })
        .collect()
}
