//! The character's stages together, on the mannequin and the test course (from
//! `character`'s unit tests).

use std::sync::Arc;

use glam::Vec3;
use plantigrade::character::ProbeTiming;
use plantigrade::ik::{run_foot_probe, FootIkConfig};
use plantigrade::prelude::*;
use plantigrade_course::{AnalyticWorld, Course};

/// The mannequin with the default graph, standing at the spawn of `section`.
fn mannequin_on(course: &Course, section: &str) -> Character {
    let graph = Arc::new(
        plantigrade::mannequin::Mannequin::new()
            .default_graph()
            .unwrap(),
    );
    let spawn = course.section(section).unwrap().spawn_world;
    Character::new(CharacterConfig::default(), graph, spawn, 0.0).unwrap()
}

#[test]
fn debug_draw_shows_probes_and_tilt_when_enabled() {
    use plantigrade::debug::DebugCommand;
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let mut c = mannequin_on(&course, "ramp_20deg");
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    assert!(c.debug_draw().commands().is_empty(), "off by default");
    c.set_debug_draw(true);
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    let commands = c.debug_draw().commands();
    let lines = commands
        .iter()
        .filter(|d| matches!(d, DebugCommand::Line { .. }))
        .count();
    let spheres = commands
        .iter()
        .filter(|d| matches!(d, DebugCommand::Sphere { .. }))
        .count();
    let axes = commands
        .iter()
        .filter(|d| matches!(d, DebugCommand::Axes { .. }))
        .count();
    // 3 tilt rays + 2 probe rays per foot; hit spheres, predicted points, targets;
    // pelvis, target and actual tilt axes.
    assert!(lines >= 3 + 4, "{lines} lines");
    assert!(spheres >= 4, "{spheres} spheres");
    assert_eq!(axes, 3);
    // Cleared every tick, not accumulated.
    let count = commands.len();
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    assert_eq!(c.debug_draw().commands().len(), count);
}

#[test]
fn landing_time_is_read_ahead_on_the_contact_curve() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let dt = 1.0 / 60.0;
    // Walking and running down the 12 m flat lane, timed after the start-up.
    for (speed, ticks) in [(0.5f32, 300), (1.0, 150)] {
        let mut c = mannequin_on(&course, "flat");
        let intent = Intent {
            move_world: glam::Vec2::new(0.0, speed),
            ..Intent::IDLE
        };
        let mut predicted = Vec::new();
        let mut contact = Vec::new();
        for tick in 0..ticks {
            c.tick(dt, &intent, &world).unwrap();
            if tick >= 60 {
                predicted.push(c.landing_in_s());
                contact.push(c.foot_contact().map(|w| w >= 0.5));
            }
        }
        let mut checked = 0;
        for foot in 0..2 {
            for (i, p) in predicted.iter().enumerate() {
                let p = p[foot];
                assert!(
                    p.is_finite() && p >= 0.0,
                    "{speed}: {p} tick {i} foot {foot}"
                );
                assert_eq!(p == 0.0, contact[i][foot], "{speed}: tick {i}: {p}");
                let Some(j) = (i + 1..contact.len()).find(|&j| contact[j][foot]) else {
                    continue;
                };
                if p > 0.0 {
                    let actual = (j - i) as f32 * dt;
                    assert!(
                        (p - actual).abs() <= 1.5 * dt,
                        "{speed}: foot {foot} tick {i}: predicted {p} s, lands in {actual} s"
                    );
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 40,
            "{speed}: only {checked} swinging ticks checked"
        );
    }
}

#[test]
fn on_a_beam_narrower_than_the_stance_the_feet_come_in_and_stay_on_it() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let dt = 1.0 / 60.0;
    let mut c = mannequin_on(&course, "beam_narrow");
    let beam_x = course.section("beam_narrow").unwrap().spawn_world.x;
    let intent = Intent {
        move_world: glam::Vec2::new(0.0, 0.5),
        ..Intent::IDLE
    };
    let legs = c.foot_ik().unwrap().rig().legs;
    let mut planted_on_beam = 0;
    let mut was_locked = [false; 2];
    for _ in 0..300 {
        c.tick(dt, &intent, &world).unwrap();
        let root = c.feet_world();
        let out = *c.foot_ik_output().unwrap();
        let locked = [0, 1].map(|i| out.feet[i].locked);
        let previous = std::mem::replace(&mut was_locked, locked);
        // Well onto the 12 cm beam (z 3–9), the body on it.
        if !(4.0..8.0).contains(&root.z) || (root.y - 0.5).abs() > 0.01 {
            continue;
        }
        let was_locked = previous;
        for (i, leg) in legs.iter().enumerate() {
            if !out.feet[i].locked {
                continue;
            }
            let sole =
                |socket| c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket));
            let (heel, ball) = (
                sole(leg.sockets.heel_foot_local),
                sole(leg.sockets.ball_foot_local),
            );
            // Brought in over the beam (half width 6 cm), standing on its top (the heel
            // first, as a walk lands).
            for p in [heel, ball] {
                assert!(
                    (p.x - beam_x).abs() < 0.06,
                    "foot {i} at x {}",
                    p.x - beam_x
                );
            }
            // Mid-stance (not rolling onto or off the ball), on the beam's top.
            let lower = heel.y.min(ball.y);
            if was_locked[i] && out.feet[i].contact > 0.95 {
                assert!((lower - 0.5).abs() < 0.01, "foot {i} at y {lower}");
            }
            planted_on_beam += 1;
        }
    }
    assert!(
        planted_on_beam > 60,
        "{planted_on_beam} planted foot-ticks checked"
    );
}

#[test]
fn stepping_from_a_platform_onto_a_narrow_beam_no_sole_dips_past_its_edge() {
    // The first swing whose landing falls beside the 12 cm beam (z 3–9) used to take the
    // floor 0.5 m below as ground for a tick, before the body's line was checked, and a
    // foot swinging in from the wide end followed the floor under it once it passed the
    // beam's side: the foot dipped 12 cm below the beam's top and the knee popped
    // 22–25 cm coming back. From several starts, so the step onto the beam falls
    // differently.
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let dt = 1.0 / 60.0;
    let intent = Intent {
        move_world: glam::Vec2::new(0.0, 0.5),
        ..Intent::IDLE
    };
    for start_m in [0.0, 0.07, 0.14, 0.175, 0.21] {
        let graph = Arc::new(
            plantigrade::mannequin::Mannequin::new()
                .default_graph()
                .unwrap(),
        );
        let spawn = course.section("beam_narrow").unwrap().spawn_world + Vec3::Z * start_m;
        let mut c = Character::new(CharacterConfig::default(), graph, spawn, 0.0).unwrap();
        let legs = c.foot_ik().unwrap().rig().legs;
        let mut lowest_m = f32::INFINITY;
        let mut checked = 0;
        for _ in 0..240 {
            c.tick(dt, &intent, &world).unwrap();
            let root = c.feet_world();
            if !(2.5..5.0).contains(&root.z) || (root.y - 0.5).abs() > 0.01 {
                continue;
            }
            for leg in &legs {
                for socket in [leg.sockets.heel_foot_local, leg.sockets.ball_foot_local] {
                    let p = c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket));
                    lowest_m = lowest_m.min(p.y);
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 200,
            "start {start_m}: {checked} sole points checked"
        );
        assert!(
            lowest_m > 0.49,
            "start {start_m}: a sole went down to y {lowest_m}"
        );
    }
}

#[test]
fn a_swinging_foot_probes_where_the_clips_set_it_down() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let dt = 1.0 / 60.0;
    // Worst horizontal miss (m) of the predicted landing (the middle of the heel and
    // ball probes) against where heel and ball are when the foot locks, over the
    // ticks with 0.05–0.25 s of swing left, walking and running on flat ground.
    let worst_miss_m = |from_clips: bool, speed: f32| {
        let mut c = mannequin_on(&course, "flat");
        c.foot_ik_config_mut().unwrap().landing_from_clips = from_clips;
        let intent = Intent {
            move_world: glam::Vec2::new(0.0, speed),
            ..Intent::IDLE
        };
        let legs = c.foot_ik().unwrap().rig().legs;
        let mut pending: [Vec<Vec3>; 2] = Default::default();
        let mut was_locked = [true; 2];
        let (mut worst, mut checked) = (0.0f32, 0);
        for tick in 0..240 {
            c.tick(dt, &intent, &world).unwrap();
            let out = *c.foot_ik_output().unwrap();
            for (i, leg) in legs.iter().enumerate() {
                let report = out.feet[i];
                let landing_in_s = c.landing_in_s()[i];
                if (0.05..=0.25).contains(&landing_in_s) && tick >= 60 && !report.locked {
                    pending[i].extend(report.predicted_world);
                }
                if report.locked && !was_locked[i] {
                    let sole = |socket| {
                        c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket))
                    };
                    let landed = 0.5
                        * (sole(leg.sockets.heel_foot_local) + sole(leg.sockets.ball_foot_local));
                    for p in pending[i].drain(..) {
                        let miss = glam::Vec2::new(p.x - landed.x, p.z - landed.z).length();
                        worst = worst.max(miss);
                        checked += 1;
                    }
                }
                was_locked[i] = report.locked;
            }
        }
        assert!(checked > 20, "{speed}: only {checked} ticks checked");
        worst
    };
    for speed in [0.5f32, 1.0] {
        let from_clips = worst_miss_m(true, speed);
        let ik1 = worst_miss_m(false, speed);
        assert!(
            from_clips < 0.01,
            "{speed}: from the clips, missed by {from_clips} m"
        );
        // IK-1 alone is short by the foot's own travel ahead of the body.
        assert!(ik1 > 0.1, "{speed}: IK-1 alone missed by only {ik1} m");
    }
}

#[test]
fn the_first_batched_tick_probes_at_once_and_later_ones_wait_for_results() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let mut c = mannequin_on(&course, "ramp_20deg");
    c.set_probe_timing(ProbeTiming::Batched);
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    let first = *c.foot_ik_output().unwrap();
    assert!(first.rays_cast > 0, "first tick: {first:?}");
    assert!(first.feet.iter().all(|f| f.ik_alpha > 0.99), "{first:?}");
    // Later ticks cast nothing themselves: they consume what the host hands back.
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    assert_eq!(c.foot_ik_output().unwrap().rays_cast, 0);
    // What the character's own (crate-private) ground filter is: its ground layers, no
    // body of its own to leave out.
    let filter = QueryFilter {
        layers: c.settings().query_layers.ground,
        exclude: None,
    };
    let results = c
        .probe_requests()
        .map(|r| run_foot_probe(&world, filter, &FootIkConfig::default().probe, &r));
    c.set_probe_results(results);
    c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
    assert!(c.foot_ik_output().unwrap().rays_cast > 0);
}

/// Treads climbed by each step up a straight 20-step flight of `riser_m` on `tread_m`
/// treads at a walk, from each landing (the lock taking the foot) to the next, both on the
/// flight.
fn treads_per_step_up_a_long_flight(riser_m: f32, tread_m: f32) -> Vec<i32> {
    use plantigrade_course::{Primitive, Role, Section, Shape};
    let flight_start_z = 3.0;
    let steps = 20;
    let course = Course {
        sections: vec![Section {
            name: "long_flight".into(),
            spawn_world: Vec3::new(0.0, 0.0, 1.0),
            direction_world: Vec3::Z,
            length_m: 10.0,
            primitives: vec![
                Primitive {
                    role: Role::Ground,
                    shape: Shape::Box {
                        center_world: Vec3::new(0.0, -0.25, 5.0),
                        half_extents_m: Vec3::new(1.0, 0.25, 6.0),
                        yaw_deg: 0.0,
                    },
                },
                Primitive {
                    role: Role::Ground,
                    shape: Shape::Stairs {
                        start_world: Vec3::new(0.0, 0.0, flight_start_z),
                        yaw_deg: 0.0,
                        width_m: 2.0,
                        step_count: steps,
                        riser_m,
                        tread_m,
                    },
                },
            ],
        }],
    };
    let world = AnalyticWorld::new(&course);
    let mut c = mannequin_on(&course, "long_flight");
    let intent = Intent {
        move_world: glam::Vec2::new(0.0, 0.5),
        ..Intent::IDLE
    };
    let legs = c.foot_ik().unwrap().rig().legs;
    let mut was_locked = [true; 2];
    let mut landings: Vec<i32> = Vec::new();
    for _ in 0..(8.0 * 60.0) as usize {
        c.tick(1.0 / 60.0, &intent, &world).unwrap();
        let out = *c.foot_ik_output().unwrap();
        for (i, leg) in legs.iter().enumerate() {
            let locked = out.feet[i].locked;
            if locked && !was_locked[i] {
                let ball = c.model_to_world(
                    c.model_pose()
                        .point_model(leg.chain.foot, leg.sockets.ball_foot_local),
                );
                let tread = ((ball.z - flight_start_z) / tread_m).floor() as i32;
                if (0..steps as i32).contains(&tread) {
                    landings.push(tread);
                }
            }
            was_locked[i] = locked;
        }
    }
    landings.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn a_long_flight_is_climbed_the_same_number_of_treads_every_step() {
    // 25 cm treads: the slope's shorter stride alone is 2.3 treads a step, and its
    // footfalls walk along the treads until one lands a tread further every few steps
    // (with `whole_treads` off: 2, 3, 2, 2, 2, 3, 2).
    let steps = treads_per_step_up_a_long_flight(0.18, 0.25);
    assert!(steps.len() >= 7, "{steps:?}");
    // The first step onto the flight is the flat gait's; after it, every step the same.
    let settled = &steps[1..];
    assert!(
        settled.iter().all(|&s| s == settled[0]),
        "treads per step {steps:?}"
    );
}
