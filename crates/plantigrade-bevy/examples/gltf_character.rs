//! A character from files through the AssetServer: the Mesh2Motion UAL rig (a CC0 `.glb`
//! with its own clips), the graph `assets/ual_als.graph.ron` and the bone map
//! `assets/ual.bones.ron`, walking on a floor; headless, 4 s at 60 Hz, printing progress.
//!
//! `cargo run -p plantigrade-bevy --example gltf_character [-- path/to/rig.glb]`
//!
//! Without an argument the rig is looked for where the project's tests find the
//! third-party rigs (`$PLANTIGRADE_ASSETS`, or the shared folder beside the checkout).
//! Another rig works when its clip names match the graph's, or with a graph of its own.
use std::path::PathBuf;
use std::time::Duration;

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_rapier3d::prelude::*;
use plantigrade_bevy::assets::{CharacterSource, CharacterSourceStatus};
use plantigrade_bevy::{CharacterIntent, PlantigradeCharacter, PlantigradePlugin};

fn main() {
    let rig: PathBuf = match std::env::args_os().nth(1) {
        Some(path) => path.into(),
        None => match plantigrade_test_assets::find("Mesh2Motion_HumanBase_UAL1.glb") {
            Ok(path) => path,
            Err(missing) => {
                eprintln!("no rig to load: {missing}; pass a .glb path");
                return;
            }
        },
    };
    let (Some(dir), Some(file)) = (rig.parent(), rig.file_name()) else {
        eprintln!("{} is not a file path", rig.display());
        return;
    };
    let file = file.to_string_lossy().into_owned();
    let mut app = App::new();
    // The rig's folder as a named asset source ("rigs://…"); it must be registered
    // before AssetPlugin. The graph and bone map come from this crate's `assets/`.
    app.register_asset_source(
        "rigs",
        AssetSourceBuilder::platform_default(&dir.to_string_lossy(), None),
    );
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
        .add_plugins(RapierPhysicsPlugin::<NoUserData>::default().in_fixed_schedule())
        // After AssetPlugin: it registers the rig, graph and bone map loaders too.
        .add_plugins(PlantigradePlugin::default())
        .add_systems(Update, walk_forward)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));

    let server = app.world().resource::<AssetServer>().clone();
    app.world_mut().spawn((
        Transform::from_xyz(0.0, -0.5, 0.0),
        Collider::cuboid(50.0, 0.5, 50.0),
    ));
    let hero = app
        .world_mut()
        .spawn((
            CharacterSource::new(
                server.load(format!("rigs://{file}")), // our loader: chosen by asset type
                server.load("ual_als.graph.ron"),
            )
            .with_bone_map(server.load("ual.bones.ron")),
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .id();

    let mut last_status = None;
    let mut printed = 0;
    for frame in 0..2000 {
        app.update();
        let status = app.world().get::<CharacterSourceStatus>(hero).cloned();
        if status != last_status {
            println!("frame {frame}: {status:?}");
            last_status = status.clone();
        }
        match status {
            Some(CharacterSourceStatus::Failed(_)) | None => return,
            Some(CharacterSourceStatus::Built { .. }) => {}
            _ => {
                // Loading happens on other threads' time: give it some.
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
        }
        let pc = app.world().get::<PlantigradeCharacter>(hero).unwrap();
        let ticks = pc.ticks();
        if ticks / 30 > printed / 30 {
            printed = ticks;
            let c = pc.character();
            // Which feet foot IK holds planted (the UAL clips carry no contact curves, so
            // `Character::foot_contact` is NaN for this rig).
            let planted = c
                .foot_ik_output()
                .map(|o| [o.feet[0].locked, o.feet[1].locked]);
            println!(
                "tick {ticks}: feet at {:.2}, planted (left, right) {planted:?}",
                c.feet_world()
            );
        }
        if ticks >= 240 {
            return;
        }
    }
}

fn walk_forward(mut intents: Query<&mut CharacterIntent>) {
    for mut intent in &mut intents {
        intent.move_world = Vec2::new(0.0, 0.5); // world (x, z); 0.5 walks, 1 runs
    }
}
