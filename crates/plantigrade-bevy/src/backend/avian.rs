//! The avian backend (feature `avian`): plantigrade's [`SpatialQueries`] over avian3d's
//! [`SpatialQuery`], and the core's [`QueryMover`] on those queries as the mover. Internal:
//! no avian type leaves this module.
//!
//! - Layers: plantigrade's [`Layers`](plantigrade::world::Layers) bits are avian
//!   `LayerMask` bits, bit for bit. A query sees a collider whose memberships meet the
//!   filter's layers. A collider without `CollisionLayers` is avian's default, a member of
//!   the first layer only: that is plantigrade's `GROUND`, so any level collider is ground.
//! - The excluded [`BodyId`] is the character's capsule entity, put in the avian filter's
//!   excluded entities. Sensors are never hit (as rapier's filter excludes them).
//! - Casts are avian's own: solid rays, and shape casts that stop at penetration with the
//!   contact computed there, which is what the core's
//!   `cast_capsule` asks (a capsule starting in contact hits at distance 0) and what the
//!   rapier backend passes to rapier.
//! - Mover: the core's query-only [`QueryMover`]. avian 0.7's `MoveAndSlide` slides but
//!   neither climbs steps, snaps to ground nor applies slope limits, which the character
//!   needs (SPEC MOVE-7); the `backends_side_by_side` example measures the two (see the
//!   repository README, "Pick a physics backend").
//!
//! Queries read avian's collider trees as its last physics step left them (the plugin
//! runs before avian's schedule), as the rapier backend reads rapier's.

use std::cell::RefCell;

use avian3d::collider_tree::ColliderTreeProxyKey;
use avian3d::prelude::{
    Collider, CollisionLayers, LayerMask, PhysicsSystems, RigidBody, Sensor, ShapeCastConfig,
    SpatialQuery, SpatialQueryFilter,
};
use bevy::app::App;
use bevy::ecs::entity::Entity;
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use plantigrade::world::{
    BodyId, Capsule, CharacterPhysics, Layers, QueryFilter, QueryMover, RayHit, SpatialQueries,
    MAX_COORDINATE_M, MAX_QUERY_DISTANCE_M,
};

use crate::{PlantigradeSystems, Writers};

/// Capsule shapes kept for casts: a character sweeps its body and the body grown by half
/// its skin, standing and crouched; a few characters of different sizes share the rest.
const CACHED_SHAPES: usize = 8;

/// The plugin's systems and set order for avian: the character sets run before avian's
/// physics step when it runs in the same schedule (by default it runs later, in
/// `FixedPostUpdate`).
pub(crate) fn add_systems(app: &mut App, schedule: Interned<dyn ScheduleLabel>) {
    app.configure_sets(
        schedule,
        PlantigradeSystems::WriteTransforms.before(PhysicsSystems::First),
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

/// Gives the character `root` a kinematic avian body and its capsule child the capsule
/// collider, a member of `CHARACTERS` that collides with every layer.
pub(crate) fn insert_body(
    world: &mut World,
    root: Entity,
    capsule_entity: Entity,
    capsule: Capsule,
) {
    if let Ok(mut root) = world.get_entity_mut(root) {
        root.insert(RigidBody::Kinematic);
    }
    if let Ok(mut entity) = world.get_entity_mut(capsule_entity) {
        entity.insert((
            capsule_collider(capsule),
            CollisionLayers::new(LayerMask(Layers::CHARACTERS.0), LayerMask::ALL),
        ));
    }
}

/// Sets the capsule entity's collider to `capsule`, in place.
pub(crate) fn resize_collider(world: &mut World, capsule_entity: Entity, capsule: Capsule) {
    if let Some(mut collider) = world.get_mut::<Collider>(capsule_entity) {
        *collider = capsule_collider(capsule);
    }
}

/// avian's upright capsule: `length` is its cylinder's, twice plantigrade's half height.
fn capsule_collider(capsule: Capsule) -> Collider {
    Collider::capsule(capsule.radius_m, 2.0 * capsule.half_height_m)
}

/// What the avian queries need from the ECS.
#[derive(SystemParam)]
pub(crate) struct AvianWorld<'w, 's> {
    spatial: SpatialQuery<'w, 's>,
    sensors: Query<'w, 's, (), With<Sensor>>,
    in_tree: Query<'w, 's, &'static ColliderTreeProxyKey>,
}

/// The plugin's systems' [`AvianWorld`], with query scratch kept between runs so a tick
/// allocates nothing once warm.
#[derive(SystemParam)]
pub(crate) struct AvianParams<'w, 's> {
    world: AvianWorld<'w, 's>,
    scratch: Local<'s, Scratch>,
}

/// Reused query state: capsule colliders by size and one avian filter.
#[derive(Default)]
pub(crate) struct Scratch {
    shapes: Vec<(Capsule, Collider)>,
    /// The next slot to overwrite once `shapes` is full.
    next_slot: usize,
    filter: SpatialQueryFilter,
    /// The body whose capsule `filter` excludes now.
    excluded: Option<BodyId>,
}

impl Scratch {
    /// The index in `shapes` of the avian collider of `capsule` (made once per size, up to
    /// `CACHED_SHAPES` sizes).
    fn shape(&mut self, capsule: Capsule) -> usize {
        match self.shapes.iter().position(|(c, _)| *c == capsule) {
            Some(i) => i,
            None if self.shapes.len() < CACHED_SHAPES => {
                self.shapes.push((capsule, capsule_collider(capsule)));
                self.shapes.len() - 1
            }
            None => {
                let i = self.next_slot;
                self.next_slot = (i + 1) % CACHED_SHAPES;
                self.shapes[i] = (capsule, capsule_collider(capsule));
                i
            }
        }
    }

    /// Makes `filter` the avian filter for `query` (its layers and excluded capsule).
    fn set_filter(&mut self, query: QueryFilter) {
        self.filter.mask = LayerMask(query.layers.0);
        if self.excluded != query.exclude {
            // Clearing keeps the set's capacity: no allocation once one body was excluded.
            self.filter.excluded_entities.clear();
            if let Some(entity) = query.exclude.and_then(|b| Entity::try_from_bits(b.0)) {
                self.filter.excluded_entities.insert(entity);
            }
            self.excluded = query.exclude;
        }
    }
}

/// One avian world seen as plantigrade's queries, for the length of a system run.
pub(crate) struct AvianQueries<'a, 'w, 's> {
    spatial: &'a SpatialQuery<'w, 's>,
    sensors: &'a Query<'w, 's, (), With<Sensor>>,
    scratch: RefCell<Scratch>,
}

impl AvianWorld<'_, '_> {
    /// Runs `f` on this world as plantigrade's [`CharacterPhysics`] (queries and the core's
    /// query-only mover), with a ready-check for capsule entities; the query scratch comes
    /// from and goes back to `scratch`.
    fn with_scratch<T>(
        &self,
        scratch: &mut Scratch,
        f: impl FnOnce(&dyn CharacterPhysics, &dyn Fn(Entity) -> bool) -> T,
    ) -> T {
        let queries = AvianQueries {
            spatial: &self.spatial,
            sensors: &self.sensors,
            scratch: RefCell::new(std::mem::take(scratch)),
        };
        let world = QueryMover::new(&queries);
        // A capsule is in avian's collider tree once its key is no placeholder.
        let ready = |capsule: Entity| {
            self.in_tree
                .get(capsule)
                .is_ok_and(|key| *key != ColliderTreeProxyKey::PLACEHOLDER)
        };
        let out = f(&world, &ready);
        *scratch = queries.scratch.into_inner();
        out
    }

    /// [`Self::with_scratch`] on fresh scratch (a game's own probes).
    pub(crate) fn with_physics<T>(
        &self,
        f: impl FnOnce(&dyn CharacterPhysics, &dyn Fn(Entity) -> bool) -> T,
    ) -> T {
        self.with_scratch(&mut Scratch::default(), f)
    }
}

impl AvianParams<'_, '_> {
    /// [`AvianWorld::with_scratch`] on the scratch kept between runs.
    fn with_physics<T>(
        &mut self,
        f: impl FnOnce(&dyn CharacterPhysics, &dyn Fn(Entity) -> bool) -> T,
    ) -> T {
        self.world.with_scratch(&mut self.scratch, f)
    }
}

fn finite_point(p: Vec3) -> bool {
    p.is_finite() && p.abs().max_element() <= MAX_COORDINATE_M
}

/// A unit direction and a clamped distance, or `None` for unusable input.
fn ray_params(direction: Vec3, max_distance_m: f32) -> Option<(Dir3, f32)> {
    if max_distance_m.is_nan() || max_distance_m < 0.0 {
        return None;
    }
    let direction = Dir3::new(direction).ok()?;
    Some((direction, max_distance_m.min(MAX_QUERY_DISTANCE_M)))
}

impl SpatialQueries for AvianQueries<'_, '_, '_> {
    /// First hit of a solid ray (one starting inside a collider hits it at distance 0).
    /// `None` for non-finite input, a zero direction or a negative distance.
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        if !finite_point(origin) {
            return None;
        }
        let (direction, max_distance_m) = ray_params(direction, max_distance_m)?;
        let mut scratch = self.scratch.borrow_mut();
        scratch.set_filter(filter);
        let not_sensor = |e: Entity| !self.sensors.contains(e);
        let hit = self.spatial.cast_ray_predicate(
            origin,
            direction,
            max_distance_m,
            true,
            &scratch.filter,
            &not_sensor,
        )?;
        Some(RayHit {
            point: origin + direction * hit.distance,
            // Starting inside a shape gives no reliable normal: face the ray back.
            normal: hit.normal.try_normalize().unwrap_or(-*direction),
            distance_m: hit.distance,
        })
    }

    /// First hit of `capsule` swept from `center`: the contact point and normal on the
    /// collider hit (pointing out of it) and the distance travelled; a capsule that starts
    /// overlapping something hits it at distance 0.
    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        if !capsule.is_usable(MAX_QUERY_DISTANCE_M) || !finite_point(center) {
            return None;
        }
        let (direction, max_distance_m) = ray_params(direction, max_distance_m)?;
        let mut scratch = self.scratch.borrow_mut();
        scratch.set_filter(filter);
        let shape = scratch.shape(capsule);
        let config = ShapeCastConfig {
            // Stop at penetration (a cast starting in contact hits at 0) and compute the
            // contact there, as the rapier backend asks rapier.
            ignore_origin_penetration: false,
            compute_contact_on_penetration: true,
            ..ShapeCastConfig::from_max_distance(max_distance_m)
        };
        let not_sensor = |e: Entity| !self.sensors.contains(e);
        let hit = self.spatial.cast_shape_predicate(
            &scratch.shapes[shape].1,
            center,
            Quat::IDENTITY,
            direction,
            &config,
            &scratch.filter,
            &not_sensor,
        )?;
        Some(RayHit {
            point: hit.point1,
            normal: hit.normal1.try_normalize().unwrap_or(-*direction),
            distance_m: hit.distance,
        })
    }
}

/// The tick's movement stage on avian's world.
/// Without avian's physics plugins (no collider trees) no character ticks, with a warning.
fn move_characters(
    time: Res<Time>,
    avian: Option<AvianParams>,
    mut characters: crate::MovingCharacters,
) {
    let Some(mut avian) = avian else {
        warn_once!(
            "plantigrade: the plugin runs on avian but avian's PhysicsPlugins are not added; \
             no character ticks"
        );
        return;
    };
    let dt_s = time.delta_secs();
    avian.with_physics(|world, ready| {
        crate::move_characters_on(world, ready, dt_s, &mut characters);
    });
}

/// The tick's procedural stage on avian's world, then the tick's messages.
fn finish_characters(
    avian: Option<AvianParams>,
    mut characters: Query<(Entity, &mut crate::PlantigradeCharacter)>,
    mut writers: Writers,
) {
    let Some(mut avian) = avian else { return };
    avian.with_physics(|world, _| {
        crate::finish_characters_on(world, &mut characters, &mut writers);
    });
}
