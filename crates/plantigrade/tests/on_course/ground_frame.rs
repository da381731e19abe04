//! The ground frame on the course: flat floor, the beam, stairs and ramps (from
//! `tilt::ground_frame`'s unit tests).

use glam::Vec3;
use plantigrade::tilt::ground_frame::{MAX_PROBE_SAMPLES, MAX_REFINE_ITERATIONS};
use plantigrade::tilt::{
    sample_ground_frame, FrameCase, FrameQuery, GroundFrame, GroundFrameConfig, RayRole,
    MAX_FRAME_RAYS,
};
use plantigrade::world::{QueryFilter, SpatialQueries};
use plantigrade_course::{AnalyticWorld, Course};

const PELVIS_HEIGHT_M: f32 = 0.93;

fn frame_at(
    world: &dyn SpatialQueries,
    root_world: Vec3,
    facing_yaw_rad: f32,
    feet_world: [Vec3; 2],
    stairs_hint: bool,
) -> GroundFrame {
    let config = GroundFrameConfig::default();
    let query = FrameQuery {
        world,
        filter: QueryFilter::GROUND,
        root_world,
        facing_yaw_rad,
        pelvis_world: root_world + Vec3::Y * PELVIS_HEIGHT_M,
        pelvis_height_m: PELVIS_HEIGHT_M,
        feet_world,
        stairs_hint,
        config: &config,
    };
    let mut frame = GroundFrame::EMPTY;
    sample_ground_frame(&query, &mut frame);
    assert!(frame.normal_world.is_finite());
    frame
}

#[test]
fn three_rays_from_pelvis_height_reaching_below_the_feet() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let root = Vec3::new(0.0, 0.0, 5.0);
    let feet = [
        root + Vec3::new(0.1, 0.0, 0.3),
        root + Vec3::new(-0.1, 0.0, -0.3),
    ];
    let frame = frame_at(&world, root, 0.0, feet, false);
    assert_eq!(frame.case, FrameCase::Plane);
    assert_eq!(frame.normal_world, Vec3::Y);
    assert_eq!(frame.ground_drop_m, Some(0.0));
    let rays = frame.rays();
    assert_eq!(rays.len(), 3);
    let roles: Vec<RayRole> = rays.iter().map(|r| r.role).collect();
    assert_eq!(
        roles,
        [RayRole::Centre, RayRole::LeftFoot, RayRole::RightFoot]
    );
    for (ray, xz) in rays.iter().zip([root, feet[0], feet[1]]) {
        assert_eq!(ray.origin_world, Vec3::new(xz.x, PELVIS_HEIGHT_M, xz.z));
        // Reach 0.6 × pelvis height below the feet.
        assert!((ray.end_world.y + 0.6 * PELVIS_HEIGHT_M).abs() < 1e-5);
        let hit = ray.hit.unwrap();
        assert!((hit.distance_m - PELVIS_HEIGHT_M).abs() < 1e-5);
    }
}

#[test]
fn ground_beyond_the_exit_distance_is_airborne() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    // 0.3 × 0.93 = 0.279 m: 0.25 m above the floor still tilts, 0.4 m does not.
    let at = |height: f32| {
        let root = Vec3::new(0.0, height, 5.0);
        frame_at(&world, root, 0.0, [root, root], false)
    };
    let near = at(0.25);
    assert_eq!(near.case, FrameCase::Plane);
    assert!((near.ground_drop_m.unwrap() - 0.25).abs() < 1e-5);
    let far = at(0.4);
    assert_eq!(far.case, FrameCase::Airborne);
    assert!((far.ground_drop_m.unwrap() - 0.4).abs() < 1e-5);
    assert_eq!(far.normal_world, Vec3::Y);
    // The rays still hit the floor (they reach 0.558 m below the feet) and are reported.
    assert!(far.rays().iter().all(|r| r.hit.is_some()));
    let gone = at(5.0);
    assert_eq!(gone.case, FrameCase::Airborne);
    assert!(gone.rays().iter().all(|r| r.hit.is_none()));
}

#[test]
fn a_foot_over_the_side_of_the_beam_is_a_narrow_edge() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let beam = course.section("beam").unwrap();
    // The beam is 0.25 m wide (half width 0.125) and 0.5 m up for z 3–9.
    let root = Vec3::new(beam.spawn_world.x, 0.5, 6.0);
    let on = [
        root + Vec3::new(0.08, 0.0, 0.3),
        root + Vec3::new(-0.08, 0.0, -0.3),
    ];
    let frame = frame_at(&world, root, 0.0, on, false);
    assert_eq!(frame.case, FrameCase::Plane);
    assert!(!frame.roll_dropped);

    let right_off = [
        root + Vec3::new(0.08, 0.0, 0.3),
        root + Vec3::new(-0.18, 0.0, -0.3),
    ];
    let frame = frame_at(&world, root, 0.0, right_off, false);
    assert_eq!(frame.case, FrameCase::NarrowEdge);
    assert!(frame.roll_dropped);
    assert_eq!(frame.normal_world, Vec3::Y);
    // The right foot's ray found the floor 0.5 m down: beyond the exit distance.
    let right = frame.rays()[2];
    assert_eq!(right.role, RayRole::RightFoot);
    assert!(right.hit.unwrap().point.y.abs() < 1e-6);
    assert_eq!(frame.stairs_risers_seen, 0);
}

#[test]
fn stairs_fit_the_line_through_the_nosings() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let section = course.section("stairs_20cm").unwrap();
    let slope = 0.20 / 0.28;
    // Mid-flight (risers at z = 3 + k·0.28), the feet on different treads.
    for (z, yaw, expected) in [
        (4.1f32, 0.0f32, slope),
        (4.25, 0.0, slope),
        (4.1, std::f32::consts::PI, -slope),
    ] {
        let x = section.spawn_world.x;
        let ground = |z: f32| course.ground_height(x, z).unwrap();
        let root = Vec3::new(x, ground(z), z);
        let forward = Vec3::new(yaw.sin(), 0.0, yaw.cos());
        let feet = [root + forward * 0.3, root - forward * 0.3];
        let frame = frame_at(&world, root, yaw, feet, false);
        assert_eq!(frame.case, FrameCase::Stairs, "z {z} yaw {yaw}");
        let flight = frame.flight.unwrap();
        assert!(
            (flight.slope - expected).abs() < 0.02,
            "z {z} yaw {yaw}: {} vs {expected}",
            flight.slope
        );
        assert!(flight.riser_count >= 4);
        let tread_m = flight.tread_m().unwrap();
        assert!(
            (tread_m - 0.28).abs() < 0.01,
            "z {z} yaw {yaw}: tread {tread_m}"
        );
        // Nosings: on a riser line, at the higher tread's height.
        for nosing in [flight.first_nosing_world, flight.last_nosing_world] {
            let k = ((nosing.z - 3.0) / 0.28).round();
            assert!((nosing.z - (3.0 + k * 0.28)).abs() < 0.006, "{nosing}");
            assert!((nosing.y - 0.2 * (k + 1.0)).abs() < 1e-4, "{nosing}");
        }
        // The normal is the flight's: pitch atan(slope) along the facing, no roll.
        let n = frame.normal_world;
        let rise = -(n.x * forward.x + n.z * forward.z) / n.y;
        assert!((rise - flight.slope).abs() < 1e-4);
        // 3 basic rays, 9 probe samples, 2 × 5 bisections.
        assert_eq!(frame.ray_count, 22);
        let refine = frame
            .rays()
            .iter()
            .filter(|r| r.role == RayRole::StairsRefine);
        assert_eq!(refine.count(), 10);
    }
}

#[test]
fn a_small_character_with_a_low_pelvis_sees_a_flight_of_tall_risers_both_ways() {
    // Quaternius' pelvis joint bobs 0.33–0.47 m up over its walk (under its hips, on
    // 0.53 m legs: 0.65 of the mannequin's), leading its feet; the course's risers are
    // 20 cm. Up and down, on every tick the flight is one, not ledges on the ticks the
    // pelvis is low, nor lost where the rays stop short of the tread below.
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let section = course.section("stairs_20cm").unwrap();
    let size = 0.65;
    let defaults = GroundFrameConfig::default();
    let config = GroundFrameConfig {
        step_min_height_m: defaults.step_min_height_m * size,
        step_max_height_min_m: defaults.step_max_height_min_m * size,
        stairs_probe_half_length_m: defaults.stairs_probe_half_length_m * size,
        ..defaults
    };
    let slope = 0.20 / 0.28;
    for (yaw, expected) in [(0.0f32, slope), (std::f32::consts::PI, -slope)] {
        let forward = Vec3::new(yaw.sin(), 0.0, yaw.cos());
        for pelvis_height_m in [0.33f32, 0.39, 0.47] {
            for z in [3.5f32, 3.7, 3.9, 4.1, 4.25, 4.5, 4.7, 4.9] {
                let x = section.spawn_world.x;
                let root = Vec3::new(x, course.ground_height(x, z).unwrap(), z);
                let query = FrameQuery {
                    world: &world,
                    filter: QueryFilter::GROUND,
                    root_world: root,
                    facing_yaw_rad: yaw,
                    pelvis_world: root + forward * 0.15 + Vec3::Y * pelvis_height_m,
                    pelvis_height_m,
                    feet_world: [root + forward * 0.3, root - forward * 0.3],
                    stairs_hint: true,
                    config: &config,
                };
                let mut frame = GroundFrame::EMPTY;
                sample_ground_frame(&query, &mut frame);
                let at = format!("yaw {yaw} pelvis {pelvis_height_m} z {z}");
                assert_eq!(frame.case, FrameCase::Stairs, "{at}");
                let flight = frame.flight.unwrap();
                assert!((flight.slope - expected).abs() < 0.02, "{at}: {flight:?}");
            }
        }
    }
}

#[test]
fn ramps_and_a_single_step_are_not_stairs() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    for name in ["ramp_30deg", "ramp_40deg", "ledge_0_5m", "flat"] {
        let section = course.section(name).unwrap();
        for i in 0..100 {
            let mut root = section.spawn_world + Vec3::Z * (i as f32 * 0.08);
            root.y = course.ground_height(root.x, root.z).unwrap();
            let feet = [root + Vec3::Z * 0.3, root - Vec3::Z * 0.3];
            let frame = frame_at(&world, root, 0.0, feet, true);
            assert_ne!(frame.case, FrameCase::Stairs, "{name} at {root}");
        }
    }
}

#[test]
fn bad_input_gives_an_invalid_frame_without_rays() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let root = Vec3::new(0.0, 0.0, 5.0);
    let config = GroundFrameConfig::default();
    let query = FrameQuery {
        world: &world,
        filter: QueryFilter::GROUND,
        root_world: root,
        facing_yaw_rad: 0.0,
        pelvis_world: root + Vec3::Y,
        pelvis_height_m: 1.0,
        feet_world: [root, root],
        stairs_hint: false,
        config: &config,
    };
    let cases = [
        FrameQuery {
            root_world: Vec3::NAN,
            ..query
        },
        FrameQuery {
            facing_yaw_rad: f32::INFINITY,
            ..query
        },
        FrameQuery {
            pelvis_height_m: 0.0,
            ..query
        },
        FrameQuery {
            pelvis_height_m: -1.0,
            ..query
        },
        FrameQuery {
            pelvis_height_m: f32::NAN,
            ..query
        },
        FrameQuery {
            pelvis_world: Vec3::NAN,
            ..query
        },
    ];
    for q in cases {
        let mut frame = GroundFrame::EMPTY;
        sample_ground_frame(&q, &mut frame);
        assert_eq!(frame.case, FrameCase::Invalid, "{q:?}");
        assert_eq!(frame.ray_count, 0);
        assert_eq!(frame.normal_world, Vec3::Y);
    }
    // A non-finite foot falls back to the pelvis centre.
    let mut frame = GroundFrame::EMPTY;
    sample_ground_frame(
        &FrameQuery {
            feet_world: [Vec3::NAN, root],
            ..query
        },
        &mut frame,
    );
    assert_eq!(frame.case, FrameCase::Plane);
    assert!(frame.rays().iter().all(|r| r.origin_world.is_finite()));
    // Garbage config values are sanitized.
    let bad = GroundFrameConfig {
        ray_reach_below_feet_fraction: f32::NAN,
        airborne_drop_fraction: -1.0,
        narrow_edge_angle_rad: f32::INFINITY,
        step_min_height_m: f32::NAN,
        step_max_height_fraction: 1e9,
        step_max_height_min_m: f32::NAN,
        stairs_probe_half_length_m: f32::NEG_INFINITY,
        stairs_probe_samples: 1000,
        stairs_refine_iterations: 1000,
    };
    let sane = bad.sanitized();
    assert_eq!(sane.stairs_probe_samples, MAX_PROBE_SAMPLES as u32);
    assert_eq!(sane.stairs_refine_iterations, MAX_REFINE_ITERATIONS as u32);
    assert_eq!(sane.airborne_drop_fraction, 0.0);
    assert_eq!(sane.ray_reach_below_feet_fraction, 0.6);
    assert_eq!(sane.step_max_height_min_m, 0.35);
    let mut frame = GroundFrame::EMPTY;
    sample_ground_frame(
        &FrameQuery {
            config: &bad,
            stairs_hint: true,
            ..query
        },
        &mut frame,
    );
    assert!(frame.normal_world.is_finite());
    assert!(frame.ray_count <= MAX_FRAME_RAYS);
}
