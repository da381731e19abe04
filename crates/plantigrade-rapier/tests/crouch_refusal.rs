//! SPEC MOVE-8 with a real rapier world: under the course's 1.2 m ceiling a crouched
//! character that lets go of crouch stays crouched (the headroom cast hits the ceiling), and
//! stands up once it has walked out from under it.

use glam::Vec2;
use plantigrade::graph::RootMotionDelta;
use plantigrade::motion::{CharacterConfig, Intent, Movement};
use plantigrade::world::{CharacterMover, QueryFilter};
use plantigrade_course::Course;
use plantigrade_rapier::RapierWorld;

#[test]
fn crouch_is_held_under_the_ceiling_and_released_after_it() {
    let course = Course::default_course();
    let world = RapierWorld::from_course(&course).unwrap();
    let section = course.section("low_ceiling").unwrap();
    let cfg = CharacterConfig::default();
    let mut movement = Movement::new(0.0);
    let mut feet = section.spawn_world;
    let dt = 1.0 / 60.0;
    // The ceiling covers z 3..9 of the lane (course docs); the spawn is at z 1.
    let mut crouched_under = 0;
    let mut stood_under = 0;
    let mut stood_after = false;
    for _ in 0..(60 * 14) {
        let z = feet.z - section.spawn_world.z + 1.0;
        let intent = Intent {
            move_world: Vec2::new(0.0, 1.0),
            // Crouch to get in, then let go a metre under the ceiling.
            crouch: z < 4.0,
            ..Intent::IDLE
        };
        let request = movement.plan(
            &cfg,
            &intent,
            dt,
            &world,
            feet,
            QueryFilter::GROUND,
            RootMotionDelta::ZERO,
        );
        let result = world.move_capsule(&request);
        let out = movement.apply(&cfg, &result, dt);
        feet += result.translation;
        if (4.5..8.5).contains(&z) {
            if out.vars.is_crouching {
                crouched_under += 1;
            } else {
                stood_under += 1;
            }
        }
        if z > 10.0 && !out.vars.is_crouching {
            stood_after = true;
            break;
        }
    }
    assert!(
        crouched_under > 60,
        "walked under the ceiling crouched for {crouched_under} ticks"
    );
    assert_eq!(stood_under, 0, "stood up under a 1.2 m ceiling");
    assert!(
        stood_after,
        "stood up after the ceiling (ended at {feet:?})"
    );
    assert!(feet.is_finite() && (feet.y - 0.0).abs() < 0.05, "{feet:?}");
}
