//! [`RapierWorld`]: static level colliders, character capsules and the character controller,
//! answering plantigrade's [`SpatialQueries`] and [`CharacterMover`].

use glam::Vec3;
use plantigrade::world::{
    BodyId, Capsule, CharacterMover, Layers, MoveLimits, MoveRequest, MoveResult, QueryFilter,
    RayHit, SpatialQueries,
};
use plantigrade_course::{Course, Solid, SolidShape};
use rapier3d::control::KinematicCharacterController;
use rapier3d::dynamics::RigidBodySet;
use rapier3d::geometry::{Collider, ColliderBuilder, ColliderHandle, ColliderSet};
use rapier3d::math::Pose;
use rapier3d::parry::partitioning::Bvh;
use rapier3d::parry::query::DefaultQueryDispatcher;
use rapier3d::pipeline::QueryPipeline;

use crate::config::ControllerConfig;
use crate::queries;
use crate::RapierWorldError;

/// `Collider::user_data` of a character capsule (level colliders have 0).
const CHARACTER_TAG: u128 = 1;
/// Margin (m) by which a character's tree leaf is fattened, so small moves do not touch the
/// tree.
const CHARACTER_LEAF_MARGIN_M: f32 = 0.05;

/// A rapier3d world for plantigrade: static level colliders (e.g. a [`Course`]) and the
/// characters' capsules, with rapier's kinematic character controller.
///
/// It holds only what scene queries need — a [`ColliderSet`], an empty [`RigidBodySet`]
/// (rapier's queries take one) and a bounding-volume tree ([`Bvh`]) over the colliders that
/// it keeps up to date itself — and never steps a simulation: nothing moves unless you
/// call [`RapierWorld::set_character_position`]. Same calls in the same order give
/// bit-identical results.
///
/// Every collider is a member of plantigrade [`Layers`] (mapped bit for bit to rapier
/// collision [`Group`](rapier3d::geometry::Group)s); a [`QueryFilter`] sees the colliders
/// on any of its layers, minus the character it excludes.
pub struct RapierWorld {
    colliders: ColliderSet,
    bodies: RigidBodySet,
    bvh: Bvh,
    config: ControllerConfig,
}

impl Default for RapierWorld {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RapierWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RapierWorld")
            .field("colliders", &self.colliders.len())
            .field("config", &self.config)
            .finish()
    }
}

impl RapierWorld {
    /// An empty world with the default [`ControllerConfig`].
    pub fn new() -> Self {
        let config = ControllerConfig::default();
        Self {
            colliders: ColliderSet::new(),
            bodies: RigidBodySet::new(),
            bvh: Bvh::new(),
            config,
        }
    }

    /// An empty world with `config` (validated).
    pub fn with_config(config: ControllerConfig) -> Result<Self, RapierWorldError> {
        config.validate()?;
        Ok(Self {
            config,
            ..Self::new()
        })
    }

    /// A world holding `course`'s geometry on [`Layers::GROUND`], default controller.
    pub fn from_course(course: &Course) -> Result<Self, RapierWorldError> {
        Self::from_course_with_config(course, ControllerConfig::default())
    }

    /// A world holding `course`'s geometry on [`Layers::GROUND`], with `config`.
    pub fn from_course_with_config(
        course: &Course,
        config: ControllerConfig,
    ) -> Result<Self, RapierWorldError> {
        let mut world = Self::with_config(config)?;
        world.add_course(course)?;
        Ok(world)
    }

    /// Adds every solid of `course` (validated first) as a static collider on
    /// [`Layers::GROUND`] — walls and ceilings too: level geometry, whatever its role.
    pub fn add_course(&mut self, course: &Course) -> Result<(), RapierWorldError> {
        course.validate()?;
        for solid in course.solids() {
            let Solid { section, shape, .. } = solid;
            self.add_solid(&shape, Layers::GROUND)
                .map_err(|e| match e {
                    RapierWorldError::DegenerateHull { .. } => RapierWorldError::DegenerateHull {
                        section: Some(course.sections[section].name.clone()),
                    },
                    other => other,
                })?;
        }
        Ok(())
    }

    /// Adds one static convex solid on `layers`; returns its collider.
    pub fn add_solid(
        &mut self,
        shape: &SolidShape,
        layers: Layers,
    ) -> Result<ColliderHandle, RapierWorldError> {
        let builder = match shape {
            SolidShape::Cuboid {
                center_world,
                half_extents_m,
                rotation_world,
            } => {
                finite("cuboid center_world", *center_world)?;
                positive("cuboid half_extents_m", half_extents_m.min_element())?;
                finite("cuboid half_extents_m", *half_extents_m)?;
                if !rotation_world.is_finite() || !rotation_world.is_normalized() {
                    return Err(RapierWorldError::BadValue {
                        what: "cuboid rotation_world",
                        value: rotation_world.length(),
                    });
                }
                ColliderBuilder::cuboid(half_extents_m.x, half_extents_m.y, half_extents_m.z)
                    .position(Pose::from_parts(*center_world, *rotation_world))
            }
            SolidShape::ConvexHull {
                center_world,
                points_local,
            } => {
                finite("convex hull center_world", *center_world)?;
                for p in points_local {
                    finite("convex hull point", *p)?;
                }
                ColliderBuilder::convex_hull(points_local)
                    .ok_or(RapierWorldError::DegenerateHull { section: None })?
                    .translation(*center_world)
            }
            SolidShape::Ball {
                center_world,
                radius_m,
            } => {
                finite("ball center_world", *center_world)?;
                positive("ball radius_m", *radius_m)?;
                ColliderBuilder::ball(*radius_m).translation(*center_world)
            }
        };
        Ok(self.insert(
            builder
                .collision_groups(queries::collider_groups(layers))
                .build(),
        ))
    }

    /// Adds a character's capsule on [`Layers::CHARACTERS`], standing with its bottom at
    /// `feet_world`. Other characters collide with it; pass the returned id in
    /// [`QueryFilter::exclude`] so its own queries skip it.
    pub fn add_character_capsule(
        &mut self,
        capsule: Capsule,
        feet_world: Vec3,
    ) -> Result<BodyId, RapierWorldError> {
        self.add_capsule_on(capsule, feet_world, Layers::CHARACTERS)
    }

    /// [`RapierWorld::add_character_capsule`] on other layers.
    pub fn add_capsule_on(
        &mut self,
        capsule: Capsule,
        feet_world: Vec3,
        layers: Layers,
    ) -> Result<BodyId, RapierWorldError> {
        let shape = queries::capsule_shape(capsule).ok_or(RapierWorldError::BadValue {
            what: "capsule radius_m / half_height_m",
            value: capsule.radius_m.min(capsule.half_height_m),
        })?;
        finite("feet_world", feet_world)?;
        let collider = ColliderBuilder::new(rapier3d::geometry::SharedShape::new(shape))
            .translation(capsule.center_from_feet(feet_world))
            .collision_groups(queries::collider_groups(layers))
            .user_data(CHARACTER_TAG)
            .build();
        let handle = self.insert(collider);
        Ok(body_id(handle))
    }

    /// Moves a character's capsule so its bottom is at `feet_world` (call it after each
    /// [`CharacterMover::move_capsule`] with the character's new position).
    pub fn set_character_position(
        &mut self,
        body: BodyId,
        feet_world: Vec3,
    ) -> Result<(), RapierWorldError> {
        finite("feet_world", feet_world)?;
        let handle = self.character_handle(body)?;
        let collider = self
            .colliders
            .get_mut(handle)
            .ok_or(RapierWorldError::UnknownBody(body))?;
        let half_total = collider
            .shape()
            .as_capsule()
            .map_or(0.0, |c| c.half_height() + c.radius);
        collider.set_translation(feet_world + Vec3::Y * half_total);
        let aabb = collider.compute_aabb();
        self.bvh.reinsert_or_update_with_change_detection(
            aabb,
            handle.into_raw_parts().0,
            CHARACTER_LEAF_MARGIN_M,
        );
        Ok(())
    }

    /// Removes a character's capsule.
    pub fn remove_character(&mut self, body: BodyId) -> Result<(), RapierWorldError> {
        let handle = self.character_handle(body)?;
        self.bvh.remove(handle.into_raw_parts().0);
        let mut islands = rapier3d::dynamics::IslandManager::new();
        self.colliders
            .remove(handle, &mut islands, &mut self.bodies, false)
            .ok_or(RapierWorldError::UnknownBody(body))?;
        Ok(())
    }

    /// Where a character's feet (the capsule's bottom) are.
    pub fn character_feet(&self, body: BodyId) -> Option<Vec3> {
        let handle = self.character_handle(body).ok()?;
        let collider = self.colliders.get(handle)?;
        let capsule = collider.shape().as_capsule()?;
        Some(collider.translation() - Vec3::Y * (capsule.half_height() + capsule.radius))
    }

    /// The rapier collider of a character.
    pub fn collider_of(&self, body: BodyId) -> Option<ColliderHandle> {
        self.character_handle(body).ok()
    }

    /// The character a collider belongs to, if it is a character's capsule.
    pub fn body_of(&self, collider: ColliderHandle) -> Option<BodyId> {
        let c = self.colliders.get(collider)?;
        (c.user_data == CHARACTER_TAG).then(|| body_id(collider))
    }

    /// The controller settings.
    pub fn config(&self) -> &ControllerConfig {
        &self.config
    }

    /// The rapier controller [`CharacterMover::move_capsule`] uses for a character with `limits`.
    pub fn controller(&self, limits: &MoveLimits) -> KinematicCharacterController {
        self.config.to_controller(limits)
    }

    /// The colliders (read only; add and move them through this type so the tree stays
    /// in sync).
    pub fn colliders(&self) -> &ColliderSet {
        &self.colliders
    }

    /// A rapier query pipeline over this world seeing what `filter` sees, for queries
    /// beyond the [`SpatialQueries`] trait.
    pub fn query_pipeline(&self, filter: QueryFilter) -> QueryPipeline<'_> {
        let exclude = filter.exclude.and_then(|b| self.character_handle(b).ok());
        QueryPipeline {
            dispatcher: &DefaultQueryDispatcher,
            bvh: &self.bvh,
            bodies: &self.bodies,
            colliders: &self.colliders,
            filter: queries::rapier_filter(filter.layers, exclude),
        }
    }

    fn insert(&mut self, collider: Collider) -> ColliderHandle {
        let aabb = collider.compute_aabb();
        let is_character = collider.user_data == CHARACTER_TAG;
        let handle = self.colliders.insert(collider);
        let leaf = handle.into_raw_parts().0;
        if is_character {
            self.bvh
                .reinsert_or_update_with_change_detection(aabb, leaf, CHARACTER_LEAF_MARGIN_M);
        } else {
            self.bvh.insert(aabb, leaf);
        }
        handle
    }

    fn character_handle(&self, body: BodyId) -> Result<ColliderHandle, RapierWorldError> {
        let handle = ColliderHandle::from_raw_parts(body.0 as u32, (body.0 >> 32) as u32);
        match self.colliders.get(handle) {
            Some(c) if c.user_data == CHARACTER_TAG => Ok(handle),
            _ => Err(RapierWorldError::UnknownBody(body)),
        }
    }
}

/// A character's id: its collider handle's index (low 32 bits) and generation (high 32).
fn body_id(handle: ColliderHandle) -> BodyId {
    let (index, generation) = handle.into_raw_parts();
    BodyId(((generation as u64) << 32) | index as u64)
}

fn finite(what: &'static str, v: Vec3) -> Result<(), RapierWorldError> {
    if v.is_finite() && v.abs().max_element() <= queries::MAX_COORDINATE_M {
        Ok(())
    } else {
        Err(RapierWorldError::BadValue {
            what,
            value: v.max_element(),
        })
    }
}

fn positive(what: &'static str, v: f32) -> Result<(), RapierWorldError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(RapierWorldError::BadValue { what, value: v })
    }
}
impl SpatialQueries for RapierWorld {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        queries::cast_ray(
            &self.query_pipeline(filter),
            origin,
            direction,
            max_distance_m,
        )
        .map(|(_, hit)| hit)
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        queries::cast_capsule(
            &self.query_pipeline(filter),
            capsule,
            center,
            direction,
            max_distance_m,
        )
        .map(|(_, hit)| hit)
    }
}

impl CharacterMover for RapierWorld {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        queries::move_capsule(
            &self.query_pipeline(request.filter),
            &self.config.to_controller(&request.limits),
            request.capsule,
            request.feet,
            request.desired_translation,
            request.dt_s,
        )
    }
}
