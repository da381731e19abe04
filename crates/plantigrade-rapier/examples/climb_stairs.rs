//! A character in your game: settings from RON, the builder, a fixed tick, rapier for
//! physics. It walks up the test course's 20 cm flight and prints where it got to; the
//! README's "A character in your game" is this file.
//! `cargo run --release -p plantigrade-rapier --example climb_stairs`
use std::sync::Arc;

use plantigrade::mannequin::Mannequin;
use plantigrade::prelude::*;
use plantigrade_course::Course;
use plantigrade_rapier::RapierWorld;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let course = Course::default_course();
    let world = RapierWorld::from_course(&course)?;
    let graph = Arc::new(Mannequin::new().default_graph()?);
    let settings = CharacterSettings::from_ron("(motion: (walk_speed_m_s: 1.6))")?;
    let spawn = course
        .section("stairs_20cm")
        .ok_or("no stairs")?
        .spawn_world;
    let mut hero = Character::builder(graph)
        .settings(settings)
        .spawn(spawn, 0.0)?;
    let mut clock = FixedTimestep::new(60.0);
    // Half the stick toward +Z: a walk (from a game, `Intent::from_input(stick, camera, …)`).
    let walk = Intent {
        move_world: Vec2::new(0.0, 0.5),
        ..Intent::IDLE
    };
    for _frame in 0..180 {
        for _ in 0..clock.advance(1.0 / 60.0) {
            hero.tick(clock.step_s(), &walk, &world)?;
        }
    }
    // Draw from hero.feet_world(), hero.facing_world() and hero.model_pose().
    let (feet, grounded) = (hero.feet_world(), hero.output().vars.is_grounded);
    println!("after 3 s the feet are at {feet:.2} m, grounded: {grounded}");
    Ok(())
}
