//! The README's "Use it in Bevy": a floor, the mannequin, a walk; headless, 2 s at 60 Hz.
//! `cargo run -p plantigrade-bevy --example minimal`
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_rapier3d::prelude::*;
use plantigrade::{mannequin::Mannequin, prelude::*};
use plantigrade_bevy::{spawn_character, CharacterIntent, PlantigradeCharacter, PlantigradePlugin};

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin))
        .add_plugins(RapierPhysicsPlugin::<NoUserData>::default().in_fixed_schedule())
        .add_plugins(PlantigradePlugin::default()) // FixedUpdate; or ::new(schedule)
        .add_systems(Startup, setup)
        .add_systems(Update, walk_forward)
        // Headless: each update is 1/60 s of game time (a game calls app.run() instead).
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));
    for _ in 0..120 {
        app.update();
    }
    let mut q = app.world_mut().query::<&PlantigradeCharacter>();
    let hero = q.single(app.world()).unwrap();
    println!(
        "{} ticks, feet at {:.2}",
        hero.ticks(),
        hero.character().feet_world()
    );
}

fn setup(mut commands: Commands) {
    // Any bevy_rapier collider is ground (no CollisionGroups: every layer).
    commands.spawn((
        Transform::from_xyz(0.0, -0.5, 0.0),
        Collider::cuboid(50.0, 0.5, 50.0),
    ));
    let graph = Arc::new(Mannequin::new().default_graph().expect("the default graph"));
    let hero = Character::builder(graph)
        .settings(CharacterSettings::default())
        .spawn(Vec3::ZERO, 0.0)
        .expect("a valid spawn");
    spawn_character(&mut commands, hero); // body, capsule collider, joint entities
}

fn walk_forward(mut intents: Query<&mut CharacterIntent>) {
    for mut intent in &mut intents {
        intent.move_world = Vec2::new(0.0, 0.5); // world (x, z); 0.5 walks, 1 runs
    }
}
