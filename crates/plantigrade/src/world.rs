//! What the core needs from a physics world (SPEC MOVE-7, IK-2, TILT-1): ray and capsule
//! queries with a filter that leaves out the character's own colliders and picks the ground
//! layers, and a capsule collide-and-slide that reports where the capsule really went. The
//! rapier3d implementation lives in `plantigrade-rapier`; tests may implement it too. An
//! engine that answers only the queries gets the collide-and-slide from [`QueryMover`].
//!
//! Space: everything here is world space, metres, Y up.

use glam::Vec3;

pub mod ground_follow;
pub mod mover;
pub use ground_follow::GroundFollow;
pub use mover::QueryMover;

/// Longest ray or sweep (m) a [`SpatialQueries`] backend casts; longer ones are clamped.
pub const MAX_QUERY_DISTANCE_M: f32 = 10_000.0;
/// Largest coordinate magnitude (m) a query or a move starts from; beyond it there is no
/// answer (f32 has no centimetres left there).
pub const MAX_COORDINATE_M: f32 = 1.0e6;

/// A set of collision layers as bits (bit 0 = [`Layers::GROUND`], …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub struct Layers(pub u32);

impl Layers {
    /// Static level geometry a character can stand on.
    pub const GROUND: Layers = Layers(1 << 0);
    /// Other characters' capsules.
    pub const CHARACTERS: Layers = Layers(1 << 1);
    /// Dynamic props.
    pub const PROPS: Layers = Layers(1 << 2);
    pub const ALL: Layers = Layers(u32::MAX);

    pub fn contains(self, other: Layers) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Layers) -> bool {
        self.0 & other.0 != 0
    }

    pub fn union(self, other: Layers) -> Layers {
        Layers(self.0 | other.0)
    }
}

/// An opaque handle the world gives a character's own collider(s), so queries can skip
/// them (IK-2: "excluded by a filter, not by luck").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BodyId(pub u64);

/// Which colliders a query sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryFilter {
    /// Only colliders on one of these layers.
    pub layers: Layers,
    /// Skip every collider belonging to this body (the querying character).
    pub exclude: Option<BodyId>,
}

impl QueryFilter {
    /// Ground geometry only, nothing excluded.
    pub const GROUND: QueryFilter = QueryFilter {
        layers: Layers::GROUND,
        exclude: None,
    };

    pub fn excluding(self, body: BodyId) -> Self {
        Self {
            exclude: Some(body),
            ..self
        }
    }
}

/// A ray hit, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    pub point: Vec3,
    /// Unit surface normal at the hit.
    pub normal: Vec3,
    /// Distance from the ray origin (m).
    pub distance_m: f32,
}

/// An upright capsule: a cylinder of `2 × half_height_m` with hemispheres of `radius_m`.
/// Total height = `2 × (half_height_m + radius_m)`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub struct Capsule {
    pub radius_m: f32,
    pub half_height_m: f32,
}

impl Capsule {
    /// A capsule of total `height_m` and `radius_m` (height clamped to at least 2 × radius).
    pub fn from_height(height_m: f32, radius_m: f32) -> Self {
        Self {
            radius_m,
            half_height_m: (height_m * 0.5 - radius_m).max(0.0),
        }
    }

    pub fn height_m(&self) -> f32 {
        2.0 * (self.half_height_m + self.radius_m)
    }

    /// A capsule a query or a mover can use: finite, a positive radius, a half height of
    /// 0 or more, and no taller than `max_height_m`.
    pub fn is_usable(&self, max_height_m: f32) -> bool {
        self.radius_m.is_finite()
            && self.radius_m > 0.0
            && self.half_height_m.is_finite()
            && self.half_height_m >= 0.0
            && self.height_m() <= max_height_m
    }

    /// Centre of the capsule standing with its bottom at `feet_world`.
    pub fn center_from_feet(&self, feet_world: Vec3) -> Vec3 {
        feet_world + Vec3::Y * (self.half_height_m + self.radius_m)
    }
}

/// How far a character's capsule may step, snap and climb (SPEC MOVE-7): per character,
/// carried in every [`MoveRequest`], so one world serves characters of any size. Metres and
/// radians.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct MoveLimits {
    /// Highest step climbed without a jump; `None` climbs none. Default 0.4.
    pub step_height_m: Option<f32>,
    /// Free tread depth a step needs beyond its edge to be climbed. Default 0.15.
    pub step_min_width_m: f32,
    /// Ground within this distance below a grounded capsule is snapped to (it stays on
    /// stairs and slopes going down); `None` snaps to nothing. Default 0.35.
    pub snap_to_ground_m: Option<f32>,
    /// Steepest slope walked up (rad from horizontal). Default 45°.
    pub max_slope_climb_rad: f32,
    /// Slopes steeper than this slide the character down (rad). Default 45°.
    pub min_slope_slide_rad: f32,
    /// Gap kept between the capsule and the world, for numerical stability (m, > 0).
    /// Default 0.01.
    pub skin_m: f32,
}

impl Default for MoveLimits {
    fn default() -> Self {
        Self {
            step_height_m: Some(0.4),
            step_min_width_m: 0.15,
            snap_to_ground_m: Some(0.35),
            max_slope_climb_rad: 45f32.to_radians(),
            min_slope_slide_rad: 45f32.to_radians(),
            skin_m: 0.01,
        }
    }
}

/// A [`MoveLimits`] value that cannot work: the field and the value.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("move limit {field} is {value}: {rule}")]
pub struct MoveLimitsError {
    pub field: &'static str,
    pub value: f32,
    pub rule: &'static str,
}

impl MoveLimits {
    /// Lengths finite and not negative (the skin positive), slopes within 0..=90°.
    pub fn validate(&self) -> Result<(), MoveLimitsError> {
        let check = |field, value: f32, ok: bool, rule| {
            if ok {
                Ok(())
            } else {
                Err(MoveLimitsError { field, value, rule })
            }
        };
        let length = |field, value: f32| {
            check(
                field,
                value,
                value.is_finite() && value >= 0.0,
                "it must be finite and not negative",
            )
        };
        if let Some(h) = self.step_height_m {
            length("step_height_m", h)?;
        }
        length("step_min_width_m", self.step_min_width_m)?;
        if let Some(d) = self.snap_to_ground_m {
            length("snap_to_ground_m", d)?;
        }
        let half_pi = std::f32::consts::FRAC_PI_2;
        for (field, angle) in [
            ("max_slope_climb_rad", self.max_slope_climb_rad),
            ("min_slope_slide_rad", self.min_slope_slide_rad),
        ] {
            check(
                field,
                angle,
                angle.is_finite() && (0.0..=half_pi).contains(&angle),
                "it must be within 0..=π/2",
            )?;
        }
        check(
            "skin_m",
            self.skin_m,
            self.skin_m.is_finite() && self.skin_m > 0.0,
            "it must be finite and positive",
        )
    }
}

/// A collide-and-slide request for one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveRequest {
    pub capsule: Capsule,
    /// How far this character may step, snap and climb.
    pub limits: MoveLimits,
    /// Bottom of the capsule (the character's feet), world space.
    pub feet: Vec3,
    /// Where the character wants to go this tick (m): velocity × dt, gravity included.
    pub desired_translation: Vec3,
    pub dt_s: f32,
    pub filter: QueryFilter,
}

/// What collide-and-slide did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveResult {
    /// The translation actually applied (m), after sliding, stepping and snapping.
    pub translation: Vec3,
    /// Standing on walkable ground at the end of the move.
    pub grounded: bool,
    /// Normal of the ground under the capsule, when grounded.
    pub floor_normal: Option<Vec3>,
    /// On a slope steeper than the climb limit, being pushed down it.
    pub sliding_down_slope: bool,
    /// Hit something that is not walkable ground while moving (a wall, a riser too high).
    pub hit_wall: bool,
}

/// What the core asks a physics engine (SPEC MOVE-7, IK-2, TILT-1): ray and capsule casts
/// with a filter that picks layers and leaves out the character's own collider. Foot
/// probes, tilt rays and the crouch headroom check need nothing else.
pub trait SpatialQueries {
    /// First hit of a ray from `origin` along unit `direction`, up to `max_distance_m`.
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit>;

    /// First hit when sweeping `capsule` (centred at `center`) along unit `direction` up to
    /// `max_distance_m` (e.g. the headroom check before standing up).
    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit>;
}

/// A reference answers as what it points to (so `QueryMover::new(&world)` borrows a world).
impl<T: SpatialQueries + ?Sized> SpatialQueries for &T {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        (**self).cast_ray(origin, direction, max_distance_m, filter)
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        (**self).cast_capsule(capsule, center, direction, max_distance_m, filter)
    }
}

/// Moves a character's capsule: collide-and-slide with stepping, ground snapping and slope
/// limits, as the request's [`MoveLimits`] say. Does not move anything in the world; the
/// caller keeps the character's position.
pub trait CharacterMover {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult;
}

/// Everything a character needs from physics: queries and a mover. Any type with both is
/// one (`plantigrade-rapier`'s world, `plantigrade-course`'s analytic world, a game's own).
pub trait CharacterPhysics: SpatialQueries + CharacterMover {}

impl<T: SpatialQueries + CharacterMover + ?Sized> CharacterPhysics for T {}

/// Worlds for the core's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::cell::Cell;

    use glam::Vec3;

    use super::{
        Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
    };

    /// Ground given by a function of world `(x, z)` → `(height m, unit normal)`, `None`
    /// for a hole. It answers straight-down rays only (every probe in the core casts down,
    /// and this asserts it) and counts them; capsule casts see nothing and
    /// collide-and-slide moves as asked, grounded.
    pub(crate) struct HeightWorld<F> {
        ground: F,
        rays: Cell<u32>,
    }

    impl<F: Fn(f32, f32) -> Option<(f32, Vec3)>> HeightWorld<F> {
        pub(crate) fn new(ground: F) -> Self {
            Self {
                ground,
                rays: Cell::new(0),
            }
        }

        /// Rays cast so far.
        pub(crate) fn rays(&self) -> u32 {
            self.rays.get()
        }
    }

    impl<F: Fn(f32, f32) -> Option<(f32, Vec3)>> SpatialQueries for HeightWorld<F> {
        fn cast_ray(&self, origin: Vec3, dir: Vec3, max: f32, _: QueryFilter) -> Option<RayHit> {
            self.rays.set(self.rays.get() + 1);
            assert!(dir.y < -0.999, "probes cast straight down");
            let (height_m, normal) = (self.ground)(origin.x, origin.z)?;
            let distance_m = origin.y - height_m;
            // The ground is solid, as rapier's ray casts see colliders: a ray starting
            // under its surface hits at once, at distance 0, where it starts.
            if distance_m < 0.0 {
                return Some(RayHit {
                    point: origin,
                    normal,
                    distance_m: 0.0,
                });
            }
            (distance_m <= max).then_some(RayHit {
                point: Vec3::new(origin.x, height_m, origin.z),
                normal,
                distance_m,
            })
        }

        fn cast_capsule(
            &self,
            _: Capsule,
            _: Vec3,
            _: Vec3,
            _: f32,
            _: QueryFilter,
        ) -> Option<RayHit> {
            None
        }
    }

    impl<F: Fn(f32, f32) -> Option<(f32, Vec3)>> CharacterMover for HeightWorld<F> {
        fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
            MoveResult {
                translation: request.desired_translation,
                grounded: true,
                floor_normal: None,
                sliding_down_slope: false,
                hit_wall: false,
            }
        }
    }
}
