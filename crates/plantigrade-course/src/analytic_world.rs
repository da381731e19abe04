//! [`AnalyticWorld`]: the course's analytic ground as a [`World`], for tests and tools that
//! must not depend on a physics engine. Rays are marched against the ground truth
//! ([`Course::ground`]), so a downward ray is exact; capsule casts see nothing and
//! collide-and-slide only follows the ground (no walls, no steps limits). Use
//! `plantigrade-rapier` for real physics.

use glam::Vec3;

use super::Course;
use plantigrade::world::{
    Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
};

/// A read-only view of a course's analytic ground as [`SpatialQueries`] and a
/// [`CharacterMover`].
#[derive(Clone, Copy, Debug)]
pub struct AnalyticWorld<'a> {
    pub course: &'a Course,
}

impl<'a> AnalyticWorld<'a> {
    pub fn new(course: &'a Course) -> Self {
        Self { course }
    }
}

/// Step of the ray march for non-vertical rays (m); the hit is then refined by bisection.
const MARCH_STEP_M: f32 = 0.01;
impl SpatialQueries for AnalyticWorld<'_> {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        if !filter.layers.intersects(plantigrade::world::Layers::GROUND)
            || !origin.is_finite()
            || !direction.is_finite()
            || !max_distance_m.is_finite()
            || max_distance_m <= 0.0
        {
            return None;
        }
        let direction = direction.try_normalize()?;
        // Straight down: exact.
        if direction.y < -0.9999 {
            let sample = self.course.surface_below(origin.x, origin.z, origin.y)?;
            let distance_m = origin.y - sample.height_m;
            return (distance_m <= max_distance_m).then_some(RayHit {
                point: Vec3::new(origin.x, sample.height_m, origin.z),
                normal: sample.normal_world,
                distance_m,
            });
        }
        // Otherwise march until the point is under the ground, then bisect.
        let below = |d: f32| {
            let p = origin + direction * d;
            self.course
                .ground_height(p.x, p.z)
                .is_some_and(|h| p.y <= h)
        };
        if below(0.0) {
            return None;
        }
        let steps = (max_distance_m / MARCH_STEP_M).ceil() as usize;
        let mut prev = 0.0;
        for i in 1..=steps {
            let d = (i as f32 * MARCH_STEP_M).min(max_distance_m);
            if below(d) {
                let (mut lo, mut hi) = (prev, d);
                for _ in 0..20 {
                    let mid = 0.5 * (lo + hi);
                    if below(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                let point = origin + direction * hi;
                let normal = self.course.ground_normal(point.x, point.z)?;
                return Some(RayHit {
                    point,
                    normal,
                    distance_m: hi,
                });
            }
            prev = d;
        }
        None
    }

    fn cast_capsule(
        &self,
        _capsule: Capsule,
        _center: Vec3,
        _direction: Vec3,
        _max_distance_m: f32,
        _filter: QueryFilter,
    ) -> Option<RayHit> {
        None
    }
}

impl CharacterMover for AnalyticWorld<'_> {
    /// Moves horizontally as asked and puts the feet on the ground there (falling when
    /// there is none within 0.5 m below).
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        let wanted = request.feet + request.desired_translation;
        let ground = self
            .course
            .surface_below(wanted.x, wanted.z, wanted.y + 0.5);
        match ground {
            Some(g) if wanted.y - g.height_m <= 0.5 => MoveResult {
                translation: Vec3::new(wanted.x, g.height_m, wanted.z) - request.feet,
                grounded: true,
                floor_normal: Some(g.normal_world),
                sliding_down_slope: false,
                hit_wall: false,
            },
            _ => MoveResult {
                translation: request.desired_translation,
                grounded: false,
                floor_normal: None,
                sliding_down_slope: false,
                hit_wall: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn down_ray_hits_stairs_treads_exactly() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let stairs = course.section("stairs_20cm").unwrap();
        for i in 0..40 {
            let p = stairs.spawn_world + stairs.direction_world * (i as f32 * 0.1);
            let truth = course.ground_height(p.x, p.z).unwrap();
            let hit = world
                .cast_ray(p + Vec3::Y * 2.0, -Vec3::Y, 5.0, QueryFilter::GROUND)
                .unwrap();
            assert!((hit.point.y - truth).abs() < 1e-5, "at {p}");
        }
    }

    #[test]
    fn slanted_ray_hits_a_ramp() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let ramp = course.section("ramp_20deg").unwrap();
        let p = ramp.spawn_world + ramp.direction_world * 1.0 + Vec3::Y * 1.0;
        let dir = Vec3::new(0.0, -1.0, 0.3).normalize();
        let hit = world.cast_ray(p, dir, 5.0, QueryFilter::GROUND).unwrap();
        let truth = course.ground_height(hit.point.x, hit.point.z).unwrap();
        assert!((hit.point.y - truth).abs() < 1e-3);
        assert!(world
            .cast_ray(p, Vec3::Y, 5.0, QueryFilter::GROUND)
            .is_none());
    }
}
