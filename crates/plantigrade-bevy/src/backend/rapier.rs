//! The rapier backend (feature `rapier`): plantigrade's [`SpatialQueries`] and
//! [`CharacterMover`] over the user's `bevy_rapier3d` world (its default rapier context). Internal: no bevy_rapier
//! type leaves this module.
//!
//! Queries run on the context's broad-phase tree through a rapier `QueryPipeline` with a
//! rapier filter made from the plantigrade [`QueryFilter`] by `plantigrade-rapier`'s
//! [`queries::rapier_filter`]: layer bits are rapier collision groups bit for bit (a
//! collider without `CollisionGroups` is on every layer), and the excluded [`BodyId`] is the
//! character's capsule entity ([`super::body_of`]), mapped to its rapier collider. The answers and
//! the mover are `plantigrade-rapier`'s functions ([`queries::cast_ray`],
//! [`queries::cast_capsule`], [`queries::move_capsule`] with rapier's
//! `KinematicCharacterController`), so a character here and on a
//! [`plantigrade_rapier::RapierWorld`] with the same colliders takes the same code path.

use bevy::app::App;
use bevy::ecs::entity::Entity;
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy_rapier3d::prelude::{
    Collider, CollisionGroups, Group, PhysicsSet, RapierContext, ReadRapierContext, RigidBody,
};
use plantigrade::world::{
    BodyId, Capsule, CharacterMover, CharacterPhysics, Layers, MoveRequest, MoveResult,
    QueryFilter, RayHit, SpatialQueries,
};
use plantigrade_rapier::queries;
use plantigrade_rapier::rapier3d::geometry::ColliderHandle;
use plantigrade_rapier::rapier3d::parry::query::DefaultQueryDispatcher;
use plantigrade_rapier::rapier3d::pipeline::QueryPipeline;
use plantigrade_rapier::ControllerConfig;

use super::body_of;
use crate::{PlantigradeConfig, PlantigradeSystems, Writers};

/// The plugin's systems and set order for rapier: the character sets run before rapier's
/// `SyncBackend` when rapier runs in the same schedule.
pub(crate) fn add_systems(app: &mut App, schedule: Interned<dyn ScheduleLabel>) {
    app.configure_sets(
        schedule,
        PlantigradeSystems::WriteTransforms.before(PhysicsSet::SyncBackend),
    )
    .add_systems(
        schedule,
        (
            move_characters
                .in_set(PlantigradeSystems::Movement)
                .after(crate::settings::apply_settings),
            finish_characters.in_set(PlantigradeSystems::Procedural),
        ),
    );
}

/// Gives the character `root` a kinematic rapier body and its capsule child a capsule
/// collider on the `CHARACTERS` group, seeing every group.
pub(crate) fn insert_body(
    world: &mut World,
    root: Entity,
    capsule_entity: Entity,
    capsule: Capsule,
) {
    if let Ok(mut root) = world.get_entity_mut(root) {
        root.insert(RigidBody::KinematicPositionBased);
    }
    if let Ok(mut entity) = world.get_entity_mut(capsule_entity) {
        entity.insert((
            capsule_collider(capsule),
            CollisionGroups::new(Group::from_bits_retain(Layers::CHARACTERS.0), Group::ALL),
        ));
    }
}

/// Sets the capsule entity's collider to `capsule`, in place.
pub(crate) fn resize_collider(world: &mut World, capsule_entity: Entity, capsule: Capsule) {
    if let Some(mut collider) = world.get_mut::<Collider>(capsule_entity) {
        *collider = capsule_collider(capsule);
    }
}

fn capsule_collider(capsule: Capsule) -> Collider {
    Collider::capsule_y(capsule.half_height_m, capsule.radius_m)
}

/// rapier's controller settings from the plugin's (an inspector may type anything: a bad
/// nudge falls back to the default).
fn controller(config: &PlantigradeConfig) -> ControllerConfig {
    let controller = ControllerConfig {
        autostep_include_dynamic_bodies: config.autostep_onto_dynamic_bodies,
        normal_nudge_m: config.normal_nudge_m,
    };
    if controller.validate().is_ok() {
        controller
    } else {
        ControllerConfig {
            normal_nudge_m: ControllerConfig::default().normal_nudge_m,
            ..controller
        }
    }
}

/// Runs `f` on the default rapier context as plantigrade's [`CharacterPhysics`], with a
/// ready-check for capsule entities; `None` when there is not exactly one context.
pub(crate) fn with_physics<T>(
    rapier: &ReadRapierContext,
    config: &PlantigradeConfig,
    f: impl FnOnce(&dyn CharacterPhysics, &dyn Fn(Entity) -> bool) -> T,
) -> Option<T> {
    let context = rapier.single().ok()?;
    let world = RapierBackend {
        context,
        controller: controller(config),
    };
    Some(f(&world, &|capsule| world.has_collider(capsule)))
}

/// The tick's movement stage on rapier's world.
fn move_characters(
    time: Res<Time>,
    rapier: ReadRapierContext,
    config: Res<PlantigradeConfig>,
    mut characters: crate::MovingCharacters,
) {
    let dt_s = time.delta_secs();
    with_physics(&rapier, &config, |world, ready| {
        crate::move_characters_on(world, ready, dt_s, &mut characters);
    });
}

/// The tick's procedural stage on rapier's world, then the tick's messages.
fn finish_characters(
    rapier: ReadRapierContext,
    config: Res<PlantigradeConfig>,
    mut characters: Query<(Entity, &mut crate::PlantigradeCharacter)>,
    mut writers: Writers,
) {
    with_physics(&rapier, &config, |world, _| {
        crate::finish_characters_on(world, &mut characters, &mut writers);
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_config_defaults_are_the_rapier_controllers() {
        let rapier = ControllerConfig::default();
        let config = PlantigradeConfig::default();
        assert_eq!(controller(&config), rapier);
        assert_eq!(
            config.autostep_onto_dynamic_bodies,
            rapier.autostep_include_dynamic_bodies
        );
        assert_eq!(config.normal_nudge_m, rapier.normal_nudge_m);
    }

    #[test]
    fn a_bad_nudge_falls_back_to_the_default() {
        for nudge in [f32::NAN, -1.0, f32::INFINITY] {
            let config = PlantigradeConfig {
                autostep_onto_dynamic_bodies: true,
                normal_nudge_m: nudge,
            };
            let c = controller(&config);
            assert_eq!(c.normal_nudge_m, ControllerConfig::default().normal_nudge_m);
            assert!(c.autostep_include_dynamic_bodies);
        }
    }
}
