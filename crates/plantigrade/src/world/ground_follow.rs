//! [`GroundFollow`]: the cheap mover of far characters (movement LOD, issue 19). One ray
//! straight down through where the move ends, from a step's height above the feet: the feet
//! go onto what it hits. A riser up to the step height is met by that ray, so stairs are
//! climbed without a step-up search; ground steeper than the climb limit above the feet, or
//! a ray starting inside a solid (a wall), stops the horizontal move (then a second ray
//! straight down from where the feet are). Nothing sideways is swept: a wall thinner than
//! the move, or a low ceiling, is not seen. Far away, where no one sees the difference, it
//! costs one ray instead of the full collide-and-slide.
//!
//! Space: world space, metres, Y up. The feet rest exactly on the hit point.

use glam::Vec3;

use super::mover::{MAX_COORDINATE_M, MAX_MOVE_M, ZERO_MOVE};
use super::{
    Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
};

/// A [`CharacterMover`] that only follows the ground (see the module docs), and the
/// [`SpatialQueries`] of `Q` passed through. `Q` may be a reference.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroundFollow<Q> {
    pub queries: Q,
}

impl<Q> GroundFollow<Q> {
    pub fn new(queries: Q) -> Self {
        Self { queries }
    }
}

impl<Q: SpatialQueries> SpatialQueries for GroundFollow<Q> {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.queries
            .cast_ray(origin, direction, max_distance_m, filter)
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.queries
            .cast_capsule(capsule, center, direction, max_distance_m, filter)
    }
}

impl<Q: SpatialQueries> CharacterMover for GroundFollow<Q> {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        follow_ground(&self.queries, request)
    }
}

/// Where one ray down puts the feet after `translation` from `feet` (see the module docs);
/// `None` when the move is blocked (a wall, or ground too steep to climb).
fn land<Q: SpatialQueries + ?Sized>(
    queries: &Q,
    request: &MoveRequest,
    translation: Vec3,
) -> Option<MoveResult> {
    let MoveRequest {
        limits,
        feet,
        filter,
        ..
    } = *request;
    let step_m = limits.step_height_m.unwrap_or(0.0);
    let end = feet + translation;
    // A rising move (a jump) is not pulled down; otherwise ground within the snap distance
    // below the end is stood on.
    let reach_below_m = if translation.y > 0.0 {
        0.0
    } else {
        limits.snap_to_ground_m.unwrap_or(0.0)
    };
    let top_y = feet.y.max(end.y) + step_m;
    let origin = Vec3::new(end.x, top_y, end.z);
    let length_m = top_y - (end.y - reach_below_m);
    let Some(hit) = queries.cast_ray(origin, Vec3::NEG_Y, length_m, filter) else {
        // Nothing below: in the air.
        return Some(MoveResult {
            translation,
            ..ZERO_MOVE
        });
    };
    let climbing = hit.point.y > feet.y + 1.0e-3;
    let too_steep = hit.normal.y < limits.max_slope_climb_rad.cos();
    if hit.distance_m <= 0.0 || (climbing && too_steep) {
        return None;
    }
    if translation.y > 0.0 && hit.point.y < end.y {
        // Rising with the ground below the end: still in the air.
        return Some(MoveResult {
            translation,
            ..ZERO_MOVE
        });
    }
    Some(MoveResult {
        translation: hit.point - feet,
        grounded: true,
        floor_normal: Some(hit.normal),
        sliding_down_slope: hit.normal.y < limits.min_slope_slide_rad.cos(),
        hit_wall: false,
    })
}

/// The move of [`GroundFollow`]: [`ZERO_MOVE`] for non-finite or unusable input.
pub fn follow_ground<Q: SpatialQueries + ?Sized>(queries: &Q, request: &MoveRequest) -> MoveResult {
    let MoveRequest {
        limits,
        feet,
        desired_translation,
        ..
    } = *request;
    let usable = limits.validate().is_ok()
        && feet.is_finite()
        && feet.abs().max_element() <= MAX_COORDINATE_M
        && desired_translation.is_finite();
    if !usable {
        return ZERO_MOVE;
    }
    let desired = desired_translation.clamp_length_max(MAX_MOVE_M);
    if let Some(result) = land(queries, request, desired) {
        return result;
    }
    // Blocked: keep the vertical part only, and say a wall stopped it.
    let vertical = Vec3::new(0.0, desired.y, 0.0);
    let result = land(queries, request, vertical).unwrap_or(ZERO_MOVE);
    MoveResult {
        hit_wall: true,
        ..result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Layers, MoveLimits};

    /// A floor at y = 0 up to z = 2, a 0.2 m step up to z = 4, then a 50° slope rising from
    /// z = 4 up to z = 6, and a wall (solid from y = 0 to 3) for x > 5. Rays starting
    /// inside a solid hit at distance 0.
    struct Steps;

    impl Steps {
        fn ground(x: f32, z: f32) -> (f32, Vec3) {
            if x > 5.0 {
                return (3.0, Vec3::Y);
            }
            if z < 2.0 {
                (0.0, Vec3::Y)
            } else if z < 4.0 {
                (0.2, Vec3::Y)
            } else {
                let angle = 50f32.to_radians();
                (
                    0.2 + (z - 4.0) * angle.tan(),
                    Vec3::new(0.0, angle.cos(), -angle.sin()),
                )
            }
        }
    }

    impl SpatialQueries for Steps {
        fn cast_ray(&self, o: Vec3, d: Vec3, max: f32, _: QueryFilter) -> Option<RayHit> {
            assert!(d.y < -0.999, "straight down");
            let (height_m, normal) = Steps::ground(o.x, o.z);
            let distance_m = (o.y - height_m).max(0.0);
            (distance_m <= max).then_some(RayHit {
                point: Vec3::new(o.x, height_m.min(o.y), o.z),
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

    fn request(feet: Vec3, desired: Vec3) -> MoveRequest {
        MoveRequest {
            capsule: Capsule::from_height(1.8, 0.3),
            limits: MoveLimits::default(),
            feet,
            desired_translation: desired,
            dt_s: 1.0 / 60.0,
            filter: QueryFilter {
                layers: Layers::GROUND,
                exclude: None,
            },
        }
    }

    #[test]
    fn follows_floor_steps_up_and_down_and_stops_at_steep_ground_and_walls() {
        let mover = GroundFollow::new(Steps);
        // Walking with gravity on the floor: stays on it.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, -0.01, 0.03),
        ));
        assert!(r.grounded && r.translation.y == 0.0 && (r.translation.z - 0.03).abs() < 1e-6);
        // Onto the 0.2 m step: up on it in one move, no step-up search.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.0, 1.99),
            Vec3::new(0.0, -0.01, 0.03),
        ));
        assert!(r.grounded && (r.translation.y - 0.2).abs() < 1e-6);
        // Back down: snapped onto the floor.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.2, 2.01),
            Vec3::new(0.0, -0.01, -0.03),
        ));
        assert!(r.grounded && (r.translation.y + 0.2).abs() < 1e-6);
        // Up the 50° slope: too steep, the horizontal move is refused, the feet stay down.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.2, 3.99),
            Vec3::new(0.0, -0.01, 0.05),
        ));
        assert!(r.hit_wall && r.grounded && r.translation == Vec3::ZERO);
        // Into the wall: refused.
        let r = mover.move_capsule(&request(
            Vec3::new(4.99, 0.0, 1.0),
            Vec3::new(0.05, -0.01, 0.0),
        ));
        assert!(r.hit_wall && r.translation.x == 0.0);
        // A jump rises freely; falling far above the floor stays in the air.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, 0.1, 0.03),
        ));
        assert!(!r.grounded && r.translation.y == 0.1);
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 2.0, 1.0),
            Vec3::new(0.0, -0.1, 0.0),
        ));
        assert!(!r.grounded && r.translation.y == -0.1);
        // A fall that would pass through the floor lands on it.
        let r = mover.move_capsule(&request(
            Vec3::new(0.0, 0.1, 1.0),
            Vec3::new(0.0, -0.5, 0.0),
        ));
        assert!(r.grounded && (r.translation.y + 0.1).abs() < 1e-6);
        // Bad input is no move.
        assert_eq!(
            mover.move_capsule(&request(Vec3::NAN, Vec3::ZERO)),
            ZERO_MOVE
        );
        assert_eq!(
            mover.move_capsule(&request(Vec3::ZERO, Vec3::INFINITY)),
            ZERO_MOVE
        );
    }
}
