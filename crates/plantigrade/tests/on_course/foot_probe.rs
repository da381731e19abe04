//! The foot probe on the course's stairs (from `ik::foot`'s unit tests).

use glam::{Vec2, Vec3};
use plantigrade::ik::{fit_support_plane, run_foot_probe, FootProbeRequest, ProbeConfig};
use plantigrade::world::QueryFilter;
use plantigrade_course::{AnalyticWorld, Course};

/// A probe for a foot with its heel at `heel_z` (the ball 0.18 m ahead), looking
/// `offset_z` ahead (the same request as `ik::foot`'s unit tests build).
fn request(heel_z: f32, offset_z: f32) -> FootProbeRequest {
    FootProbeRequest {
        heel_world: Vec3::new(0.1, 0.05, heel_z),
        ball_world: Vec3::new(0.1, 0.05, heel_z + 0.18),
        look_ahead_offset_world: Vec2::new(0.0, offset_z),
        landing_heel_from_ball_xz: None,
        single_point: false,
        skip: false,
        ball_ahead_world: None,
        ahead_world: None,
        support_check_offset_world: None,
        support_check_below_y: None,
        body_ground_world: None,
    }
}

#[test]
fn analytic_stairs_give_the_tread_under_the_predicted_foot() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let stairs = course.section("stairs_20cm").unwrap();
    let config = ProbeConfig::default();
    for i in 0..60 {
        let z = stairs.spawn_world.z + 2.0 + i as f32 * 0.05;
        let foot = Vec3::new(stairs.spawn_world.x, 0.0, z);
        let mut req = request(0.0, 0.3);
        req.heel_world = foot;
        req.ball_world = foot + Vec3::Z * 0.18;
        req.heel_world.y = course.ground_height(foot.x, foot.z).unwrap() + 0.05;
        req.ball_world.y = req.heel_world.y;
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        let (plane, _) = fit_support_plane(&r, &config).unwrap();
        let p = r.predicted_world;
        // The tread under each ray's start (a ray cannot see a tread above its origin,
        // which is raised by what a walkable slope could rise over the look-ahead). The
        // rays go straight down, so the heel ray's start is its hit raised by its length:
        // `heel_world.y + probe_up_m + rise_allowance_m(look-ahead)`, that allowance
        // being private to the core.
        let heel = r.heel.unwrap();
        let top = heel.point.y + heel.distance_m;
        let below = |z: f32| course.surface_below(p.x, z, top).unwrap().height_m;
        let (truth_heel, truth_toe) = (below(p.z - 0.09), below(p.z + 0.09));
        let h = plane.height_at(p.x, p.z);
        assert!(
            (h - truth_heel.max(truth_toe)).abs() < 1e-4,
            "at z {z}: plane {h}, treads {truth_heel} / {truth_toe}"
        );
    }
}
