//! The README's "Use it in Bevy" on avian3d ("Pick a physics backend"): a floor, the
//! mannequin, a walk; headless, 2 s at 60 Hz.
//! `cargo run -p plantigrade-bevy --no-default-features --features avian --example minimal_avian`
use std::sync::Arc;
use std::time::Duration;

use avian3d::prelude::*;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use plantigrade::{mannequin::Mannequin, prelude::*};
use plantigrade_bevy::{spawn_character, CharacterIntent, PlantigradeCharacter, PlantigradePlugin};

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin))
        .add_plugins(PhysicsPlugins::default()) // steps in FixedPostUpdate
        .add_plugins(PlantigradePlugin::avian()) // FixedUpdate, before avian's step
        .add_systems(Startup, setup)
        .add_systems(Update, walk_forward)
        // Headless: each update is 1/60 s of game time (a game calls app.run() instead).
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));
    // What app.run() does first: avian sets some of its resources up in Plugin::finish.
    app.finish();
    app.cleanup();
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
    // Any avian collider without CollisionLayers is ground (avian's first layer).
    commands.spawn((
        Transform::from_xyz(0.0, -0.5, 0.0),
        RigidBody::Static,
        Collider::cuboid(100.0, 1.0, 100.0), // full lengths
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
