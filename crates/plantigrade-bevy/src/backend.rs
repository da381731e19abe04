//! The rapier backend: plantigrade's [`SpatialQueries`] and [`CharacterMover`] over the
//! user's `bevy_rapier3d` world (its default rapier context). Internal: no bevy_rapier
//! type leaves this module.
//!
//! Queries run on the context's broad-phase tree through a rapier `QueryPipeline` with a
//! rapier filter made from the plantigrade [`QueryFilter`] by `plantigrade-rapier`'s
//! [`queries::rapier_filter`]: layer bits are rapier collision groups bit for bit (a
//! collider without `CollisionGroups` is on every layer), and the excluded [`BodyId`] is the
//! character's capsule entity ([`body_of`]), mapped to its rapier collider. The answers and
//! the mover are `plantigrade-rapier`'s functions ([`queries::cast_ray`],
//! [`queries::cast_capsule`], [`queries::move_capsule`] with rapier's
//! `KinematicCharacterController`), so a character here and on a
//! [`plantigrade_rapier::RapierWorld`] with the same colliders takes the same code path.

use bevy::ecs::entity::Entity;
use bevy_rapier3d::prelude::RapierContext;
use glam::Vec3;
use plantigrade::world::{
    BodyId, Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
};
use plantigrade_rapier::queries;
use plantigrade_rapier::rapier3d::geometry::ColliderHandle;
use plantigrade_rapier::rapier3d::parry::query::DefaultQueryDispatcher;
use plantigrade_rapier::rapier3d::pipeline::QueryPipeline;
use plantigrade_rapier::ControllerConfig;

/// The [`BodyId`] of a character whose capsule collider is `capsule`.
pub(crate) fn body_of(capsule: Entity) -> BodyId {
    BodyId(capsule.to_bits())
}

/// One rapier context seen as a plantigrade world, for the length of a system run.
pub(crate) struct RapierBackend<'a> {
    pub(crate) context: RapierContext<'a>,
    pub(crate) controller: ControllerConfig,
}

impl RapierBackend<'_> {
    /// The rapier collider of the capsule entity `body` names, if rapier has it.
    fn collider_of(&self, body: BodyId) -> Option<ColliderHandle> {
        let entity = Entity::try_from_bits(body.0)?;
        self.context
            .colliders
            .entity2collider()
            .get(&entity)
            .copied()
    }

    /// Whether rapier has taken in the collider `capsule` (and stepped once since, so the
    /// broad phase holds the colliders spawned with it).
    pub(crate) fn has_collider(&self, capsule: Entity) -> bool {
        self.collider_of(body_of(capsule)).is_some()
    }

    fn with_pipeline<T>(&self, filter: QueryFilter, f: impl FnOnce(&QueryPipeline) -> T) -> T {
        let exclude = filter.exclude.and_then(|b| self.collider_of(b));
        let pipeline = self.context.simulation.broad_phase.as_query_pipeline(
            &DefaultQueryDispatcher,
            &self.context.rigidbody_set.bodies,
            &self.context.colliders.colliders,
            queries::rapier_filter(filter.layers, exclude),
        );
        f(&pipeline)
    }
}

impl SpatialQueries for RapierBackend<'_> {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.with_pipeline(filter, |p| {
            queries::cast_ray(p, origin, direction, max_distance_m).map(|(_, hit)| hit)
        })
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.with_pipeline(filter, |p| {
            queries::cast_capsule(p, capsule, center, direction, max_distance_m).map(|(_, hit)| hit)
        })
    }
}

impl CharacterMover for RapierBackend<'_> {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        self.with_pipeline(request.filter, |p| {
            queries::move_capsule(
                p,
                &self.controller.to_controller(&request.limits),
                request.capsule,
                request.feet,
                request.desired_translation,
                request.dt_s,
            )
        })
    }
}
