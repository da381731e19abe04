//! The physics backends, one per cargo feature (bevy-tnua's pattern): `rapier` (default)
//! over bevy_rapier3d, `avian` over avian3d. Both may be compiled in at once (cargo unifies
//! features across a workspace); the app picks one with [`PhysicsBackend`]. No backend type
//! leaves this module but through the plugin's own types.

#[cfg(not(any(feature = "rapier", feature = "avian")))]
compile_error!("plantigrade-bevy needs a physics backend: enable the `rapier` or `avian` feature");

#[cfg(feature = "avian")]
pub(crate) mod avian;
#[cfg(feature = "rapier")]
pub(crate) mod rapier;

/// The rapier world for [`PlantigradeWorld`](crate::PlantigradeWorld) (nothing without the
/// feature).
#[cfg(feature = "rapier")]
pub(crate) type RapierWorldParam<'w, 's> =
    Option<bevy_rapier3d::prelude::ReadRapierContext<'w, 's>>;
#[cfg(not(feature = "rapier"))]
pub(crate) type RapierWorldParam<'w, 's> = ();
/// The avian world for [`PlantigradeWorld`](crate::PlantigradeWorld) (nothing without the
/// feature).
#[cfg(feature = "avian")]
pub(crate) type AvianWorldParam<'w, 's> = Option<avian::AvianWorld<'w, 's>>;
#[cfg(not(feature = "avian"))]
pub(crate) type AvianWorldParam<'w, 's> = ();

use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::prelude::{ReflectResource, Resource};
use bevy::reflect::Reflect;
use plantigrade::world::{BodyId, Capsule};

/// The [`BodyId`] of a character whose capsule collider is `capsule` (both backends).
pub(crate) fn body_of(capsule: Entity) -> BodyId {
    BodyId(capsule.to_bits())
}

/// Which physics engine the characters live in: set by [`PlantigradePlugin`]'s constructor
/// and read by [`spawn_character`] to give a character the right body and collider. Each
/// variant exists with its cargo feature.
///
/// [`PlantigradePlugin`]: crate::PlantigradePlugin
/// [`spawn_character`]: crate::spawn_character
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[reflect(Resource)]
pub enum PhysicsBackend {
    /// bevy_rapier3d's default rapier context (feature `rapier`).
    #[cfg(feature = "rapier")]
    Rapier,
    /// avian3d's `SpatialQuery` (feature `avian`).
    #[cfg(feature = "avian")]
    Avian,
}

/// Rapier when the `rapier` feature is on, else avian.
#[cfg(feature = "rapier")]
const DEFAULT_BACKEND: PhysicsBackend = PhysicsBackend::Rapier;
#[cfg(not(feature = "rapier"))]
const DEFAULT_BACKEND: PhysicsBackend = PhysicsBackend::Avian;

impl Default for PhysicsBackend {
    /// Rapier when the `rapier` feature is on, else avian.
    fn default() -> Self {
        DEFAULT_BACKEND
    }
}

impl PhysicsBackend {
    /// Gives the character `root` its kinematic body and its capsule child `capsule_entity`
    /// the collider of `capsule` (on the `CHARACTERS` layer, seeing every layer).
    pub(crate) fn insert_body(
        self,
        world: &mut World,
        root: Entity,
        capsule_entity: Entity,
        capsule: Capsule,
    ) {
        match self {
            #[cfg(feature = "rapier")]
            PhysicsBackend::Rapier => rapier::insert_body(world, root, capsule_entity, capsule),
            #[cfg(feature = "avian")]
            PhysicsBackend::Avian => avian::insert_body(world, root, capsule_entity, capsule),
        }
    }

    /// Sets the collider of the capsule entity `capsule_entity` to `capsule` (crouching).
    pub(crate) fn resize_collider(
        self,
        world: &mut World,
        capsule_entity: Entity,
        capsule: Capsule,
    ) {
        match self {
            #[cfg(feature = "rapier")]
            PhysicsBackend::Rapier => rapier::resize_collider(world, capsule_entity, capsule),
            #[cfg(feature = "avian")]
            PhysicsBackend::Avian => avian::resize_collider(world, capsule_entity, capsule),
        }
    }
}
