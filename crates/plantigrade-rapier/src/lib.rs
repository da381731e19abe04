//! plantigrade's [`CharacterPhysics`](plantigrade::world::CharacterPhysics) (queries and a mover) on rapier3d (SPEC MOVE-7): ray and
//! capsule scene queries with layer and self-exclusion filters, and capsule
//! collide-and-slide by rapier's
//! [`KinematicCharacterController`](rapier3d::control::KinematicCharacterController)
//! (autostep, snap to ground, slope limits — none of it re-written here).
//!
//! # Use
//!
//! ```
//! use plantigrade_course::Course;
//! use plantigrade::glam::Vec3;
//! use plantigrade::world::{
//!     Capsule, CharacterMover, Layers, MoveLimits, MoveRequest, QueryFilter, SpatialQueries,
//! };
//! use plantigrade_rapier::RapierWorld;
//!
//! // 1. A world with the test course's geometry as static colliders on the GROUND layer
//! //    (or `RapierWorld::new()` and `add_solid` for your own level).
//! let course = Course::default_course();
//! let mut world = RapierWorld::from_course(&course)?;
//!
//! // 2. Each character gets a capsule on the CHARACTERS layer, so characters collide with
//! //    each other; its id excludes it from its own queries.
//! let capsule = Capsule::from_height(1.8, 0.3);
//! let mut feet = course.section("flat").unwrap().spawn_world;
//! let me = world.add_character_capsule(capsule, feet)?;
//! let filter = QueryFilter {
//!     layers: Layers::GROUND.union(Layers::CHARACTERS),
//!     exclude: Some(me),
//! };
//!
//! // 3. Each tick: ask for a move (velocity × dt, gravity included), apply the translation
//! //    it returns, and tell the world where the capsule now is.
//! let dt_s = 1.0 / 60.0;
//! let velocity = Vec3::new(0.0, -1.0, 1.75);
//! let result = world.move_capsule(&MoveRequest {
//!     capsule,
//!     limits: MoveLimits::default(),
//!     feet,
//!     desired_translation: velocity * dt_s,
//!     dt_s,
//!     filter,
//! });
//! feet += result.translation;
//! world.set_character_position(me, feet)?;
//! assert!(result.grounded);
//!
//! // Probes (foot IK, tilt, headroom) are queries with the same filter.
//! let hit = world.cast_ray(feet + Vec3::Y * 0.3, -Vec3::Y, 1.2, filter).unwrap();
//! assert!(hit.point.y.abs() < 1e-4 && hit.normal == Vec3::Y);
//! # Ok::<(), plantigrade_rapier::RapierWorldError>(())
//! ```
//!
//! # What it holds
//!
//! A [`RapierWorld`] owns a `ColliderSet`, an empty `RigidBodySet` (rapier's query
//! pipeline takes one) and a bounding-volume tree it updates itself when a collider is added
//! or a character moved; queries build a rapier `QueryPipeline` over them per call with a
//! rapier `QueryFilter` made from the plantigrade [`QueryFilter`](plantigrade::world::QueryFilter):
//! layer bits map one to one onto rapier collision `Group`s (a collider on layers `L` has
//! memberships `L` and filter ALL; a query on layers `Q` has memberships ALL and filter
//! `Q`), and `exclude` maps to `exclude_collider` of that character's capsule. Sensors are
//! never hit. No simulation step ever runs: the world is deterministic (same calls, same
//! order ⇒ bit-identical results) and only characters move, by
//! [`RapierWorld::set_character_position`].
//!
//! # How queries answer
//!
//! - `cast_ray`: rapier's solid ray cast (`cast_ray_and_get_normal`); a ray starting inside
//!   a collider hits at distance 0.
//! - `cast_capsule`: rapier's `cast_shape` with `max_time_of_impact` = the distance and
//!   `stop_at_penetration`; point and normal are on the collider hit.
//! - `move_capsule`: `KinematicCharacterController::move_shape` configured per move by the
//!   request's [`MoveLimits`](plantigrade::world::MoveLimits) (each character's own;
//!   defaults: autostep 0.4 m onto treads ≥ 0.15 m; snap to ground 0.35 m; climb ≤ 45°,
//!   slide ≥ 45°; offset 0.01 m) and the world's [`ControllerConfig`] (not onto dynamic
//!   bodies; up +Y).
//!   Stepping, snapping and slope limits are rapier's; this crate adds two things around
//!   the call, both documented on [`queries::move_capsule`]: the capsule floats by rapier's
//!   0.01 m skin so reported feet rest exactly on the ground, and a move that starts on
//!   walkable ground and pushes into it (gravity) is turned parallel to the floor plane
//!   (MOVE-7; it also avoids rapier issue #418, lost horizontal motion). How `grounded`,
//!   `floor_normal`, `sliding_down_slope` and `hit_wall` are read from rapier's output is
//!   documented there too.
//!
//! Climbing a riser, rapier rides the capsule's rounded bottom up the nosing and keeps
//! little of the tick's horizontal move (a walk up 0.20 m stairs crawled at 0.2–0.8 m/s for
//! five ticks a step). `move_capsule` makes the rest of the horizontal move from where the
//! lift left the capsule (a few more `move_shape` calls on those ticks only), so a flight
//! is climbed at the walking speed, never faster. During those ticks `floor_normal` is the
//! nosing's contact normal (up to 45°).
//! - Non-finite or absurd input (NaN, ∞, zero directions, negative sizes) never panics:
//!   queries miss and moves return [`queries::ZERO_MOVE`].
//!
//! The functions of [`queries`] work on any rapier `QueryPipeline`, for hosts that own their
//! rapier world (a Bevy app with `bevy_rapier3d`).

pub mod config;
pub mod queries;
mod world;

pub use config::ControllerConfig;
pub use world::RapierWorld;

/// rapier3d, re-exported so users get the exact version this crate speaks.
pub use rapier3d;

use plantigrade::world::BodyId;
use plantigrade_course::CourseError;

/// Why a world could not be built or changed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RapierWorldError {
    #[error("course: {0}")]
    Course(CourseError),
    #[error("{what} must be finite and positive (and within 1e6 m), got {value}")]
    BadValue { what: &'static str, value: f32 },
    #[error("controller config: {what} is out of range: {value}")]
    BadConfig { what: &'static str, value: f32 },
    #[error("a convex hull{} has no volume", .section.as_ref().map(|s| format!(" of section '{s}'")).unwrap_or_default())]
    DegenerateHull { section: Option<String> },
    #[error("no character with id {0:?} in this world")]
    UnknownBody(BodyId),
}

impl From<CourseError> for RapierWorldError {
    fn from(error: CourseError) -> Self {
        RapierWorldError::Course(error)
    }
}

#[cfg(test)]
mod tests;
