//! One character tick on the test course: movement, rapier's kinematic character
//! controller, locomotion variables, the default graph and local-to-model (no foot IK yet).
//! `move_capsule` alone is measured beside it, so the controller's share shows.
//!
//! `cargo bench -p plantigrade-lab --bench character_tick`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Vec2, Vec3};
use plantigrade::character::Character;
use plantigrade::mannequin::Mannequin;
use plantigrade::motion::{CharacterConfig, Intent};
use plantigrade::world::{CharacterMover, MoveLimits, MoveRequest, QueryFilter};
use plantigrade_course::Course;
use plantigrade_rapier::RapierWorld;

fn character_tick(c: &mut Criterion) {
    let course = Course::default_course();
    let world = RapierWorld::from_course(&course).expect("default course builds");
    let graph = Arc::new(
        Mannequin::new()
            .default_graph()
            .expect("default graph loads"),
    );
    let mut group = c.benchmark_group("character_tick");
    for section in ["flat", "stairs_20cm", "pebbles"] {
        let s = course.section(section).expect("section exists");
        let spawn = s.spawn_world;
        let dir = Vec2::new(s.direction_world.x, s.direction_world.z);
        // Respawned with the first one's landing poses, as a crowd of one graph shares them
        // (reading them is a spawn's work, not a tick's).
        let first =
            Character::new(CharacterConfig::default(), graph.clone(), spawn, 0.0).expect("spawn");
        let landing_poses = first.landing_poses().clone();
        let new_character = || {
            Character::builder(graph.clone())
                .landing_poses(landing_poses.clone())
                .spawn(spawn, 0.0)
                .expect("spawn")
        };
        let mut character = first;
        let mut ticks = 0;
        group.bench_function(format!("{section}_run"), |b| {
            b.iter(|| {
                // Run along the section; start over before its end.
                if ticks == 90 {
                    character = new_character();
                    ticks = 0;
                }
                let intent = Intent {
                    move_world: dir,
                    ..Intent::IDLE
                };
                character.tick(black_box(1.0 / 60.0), &intent, &world).ok();
                ticks += 1;
                black_box(character.feet_world());
            })
        });
    }
    let flat = course.section("flat").expect("flat section");
    let request = MoveRequest {
        capsule: CharacterConfig::default().stand_capsule,
        limits: MoveLimits::default(),
        feet: flat.spawn_world,
        desired_translation: Vec3::new(0.0, -0.4 / 60.0, 3.75 / 60.0),
        dt_s: 1.0 / 60.0,
        filter: QueryFilter::GROUND,
    };
    group.bench_function("move_capsule_only_flat", |b| {
        b.iter(|| black_box(world.move_capsule(black_box(&request))))
    });
    group.finish();
}

criterion_group!(benches, character_tick);
criterion_main!(benches);
