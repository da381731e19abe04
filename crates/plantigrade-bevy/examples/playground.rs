//! The playground: the test course as meshes with colliders, the mannequin as the player
//! and a few AI characters walking the stairs and ramps, with the debug gizmos a key away.
//!
//! `cargo run --release -p plantigrade-bevy --features playground --example playground`
//! runs on bevy_rapier3d; on avian3d:
//! `cargo run --release -p plantigrade-bevy --no-default-features --features avian,playground --example playground`
//! (or `--backend avian` with both features on).
//!
//! Keys: WASD move (camera-relative), X walk/run, Shift sprint, Space jump, C crouch,
//! left mouse drag orbits the camera, wheel zooms, right mouse aims at the cursor;
//! F1 / F2 / F3 foot IK predictive / classic / off, F4 pelvis tilt on/off, G gizmos,
//! P pause. A gamepad's left stick moves, its buttons jump (South) and crouch (East).
//!
//! Flags: `--backend rapier|avian` picks the physics (default: rapier when its feature is
//! on); `--autopilot` walks the player along a scripted route; `--gizmos` starts with
//! the debug gizmos on; `--screenshot FILE`
//! saves a PNG after `--frames N` frames (default 240) and exits; `--frames N` alone exits
//! after N frames. With either, every frame is exactly 1/60 s of game time, so the same
//! frame shows the same moment on any machine.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::gamepad::{Gamepad, GamepadButton};
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use bevy::window::{PrimaryWindow, WindowResolution};
use plantigrade::character::Character;
use plantigrade::graph::{GraphAsset, MachineId};
use plantigrade::mannequin::Mannequin;
use plantigrade::motion::{direction_to_yaw, shape_input, InputConfig, InputDevice, PathFollower};
use plantigrade::settings::CharacterSettings;
use plantigrade_bevy::render::{MannequinBody, PlantigradeGizmos, PlantigradeRenderPlugin};
use plantigrade_bevy::{
    spawn_character, CharacterIntent, CharacterToggles, FootIkChoice, LookTarget, PhysicsBackend,
    PlantigradeCharacter, PlantigradePlugin, PlantigradeSettings, PlantigradeSystems,
};
use plantigrade_course::{Course, Role, SolidShape};

/// The fixed tick rate (Hz).
const TICK_HZ: f64 = 60.0;
/// The lane the player starts on, and the lanes the AI characters walk (with their gait).
const PLAYER_LANE: &str = "stairs_20cm";
const AI_LANES: [(&str, bool); 5] = [
    ("stairs_15cm", false),
    ("ramp_10deg", true),
    ("ramp_20deg", false),
    ("ramp_30deg", false),
    ("stairs_ramp", true),
];
/// Frames before `--screenshot` takes its picture when `--frames` is not given.
const DEFAULT_SCREENSHOT_FRAMES: u32 = 240;

fn main() {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("playground: {message}\n\n{}", Options::USAGE);
            std::process::exit(2);
        }
    };
    if options.help {
        println!("{}", Options::USAGE);
        return;
    }
    let mut app = App::new();
    let backend = options.backend;
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "plantigrade playground".into(),
            resolution: WindowResolution::new(1280, 720),
            ..default()
        }),
        ..default()
    }));
    common::add_physics(&mut app, backend);
    app.add_plugins((
        PlantigradePlugin::default().with_backend(options.backend),
        PlantigradeRenderPlugin::default(),
    ))
    .insert_resource(Time::<Fixed>::from_hz(TICK_HZ))
    .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
    .insert_resource(GlobalAmbientLight {
        color: Color::srgb(0.8, 0.85, 1.0),
        brightness: 500.0,
        ..default()
    })
    .init_resource::<Walking>()
    .add_systems(
        Startup,
        (spawn_course, spawn_characters, spawn_camera_and_panel),
    )
    // Input once per frame, before the frame's fixed ticks (a press is never lost or
    // doubled); routes once per tick.
    .add_systems(
        RunFixedMainLoop,
        player_intent.in_set(RunFixedMainLoopSystems::BeforeFixedMainLoop),
    )
    .add_systems(FixedUpdate, route_intent.in_set(PlantigradeSystems::Intent))
    .add_systems(Update, (keys, orbit_camera, panel));
    if options.frames.is_some() {
        // One frame is one tick of game time, however long the renderer takes.
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / TICK_HZ,
        )))
        .add_systems(Last, finish_after_frames);
    }
    app.insert_resource(PlantigradeGizmos {
        enabled: options.gizmos,
    })
    .insert_resource(options)
    .run();
}

/// The command line.
#[derive(Resource, Debug, Clone, PartialEq, Default)]
struct Options {
    /// `--help`: print the usage and exit.
    help: bool,
    autopilot: bool,
    gizmos: bool,
    screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot (or before exiting, without one).
    frames: Option<u32>,
    /// `--backend`: the physics the course and characters live in.
    backend: PhysicsBackend,
}

impl Options {
    const USAGE: &str =
        "usage: playground [--backend rapier|avian] [--autopilot] [--gizmos] [--screenshot FILE.png] [--frames N]";
    /// A backend whose cargo feature is off.
    #[allow(dead_code)] // with both features on
    const NOT_BUILT_IN: &str =
        "--backend {}: built without its cargo feature (add `--features {}`)";

    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Options::default();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--backend" => {
                    let name = args.next().ok_or("--backend needs rapier or avian")?;
                    options.backend = match name.as_str() {
                        #[cfg(feature = "rapier")]
                        "rapier" => PhysicsBackend::Rapier,
                        #[cfg(feature = "avian")]
                        "avian" => PhysicsBackend::Avian,
                        #[cfg(not(feature = "rapier"))]
                        "rapier" => return Err(Options::NOT_BUILT_IN.replace("{}", "rapier")),
                        #[cfg(not(feature = "avian"))]
                        "avian" => return Err(Options::NOT_BUILT_IN.replace("{}", "avian")),
                        other => return Err(format!("--backend {other}: rapier or avian")),
                    };
                }
                "--autopilot" => options.autopilot = true,
                "--gizmos" => options.gizmos = true,
                "--screenshot" => {
                    let file = args.next().ok_or("--screenshot needs a file name")?;
                    if !file.to_ascii_lowercase().ends_with(".png") {
                        return Err(format!("--screenshot {file}: the file must end in .png"));
                    }
                    options.screenshot = Some(PathBuf::from(file));
                }
                "--frames" => {
                    let n = args.next().ok_or("--frames needs a number")?;
                    let n: u32 = n
                        .parse()
                        .map_err(|_| format!("--frames {n}: not a whole number of frames"))?;
                    if n == 0 {
                        return Err("--frames must be at least 1".into());
                    }
                    options.frames = Some(n);
                }
                "-h" | "--help" => options.help = true,
                other => return Err(format!("unknown argument {other}")),
            }
        }
        if options.screenshot.is_some() && options.frames.is_none() {
            options.frames = Some(DEFAULT_SCREENSHOT_FRAMES);
        }
        Ok(options)
    }
}

/// The player's character.
#[derive(Component)]
struct Player;

/// An AI character (or the player on autopilot): a route there and back, forever.
#[derive(Component)]
struct Route(PathFollower);

/// The player walks (X toggles) rather than runs.
#[derive(Resource)]
struct Walking(bool);

impl Default for Walking {
    fn default() -> Self {
        Self(true)
    }
}

/// The orbit camera: angles and distance around the player's chest.
#[derive(Component)]
struct Orbit {
    yaw_rad: f32,
    pitch_rad: f32,
    distance_m: f32,
    /// The point looked at, easing after the player (`None` until the first frame).
    focus_world: Option<Vec3>,
}

#[derive(Component)]
struct Panel;

fn spawn_course(
    options: Res<Options>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let course = Course::default_course();
    // Ground between and around the lanes, 2 cm under their floors (no z-fighting).
    let mut ground = commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(400.0, 1.0, 400.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.36, 0.42, 0.33))),
        Transform::from_xyz(60.0, -0.52, 20.0),
    ));
    common::insert_box_collider(&mut ground, Vec3::new(200.0, 0.5, 200.0), options.backend);
    // Two tones per lane, alternating solid by solid, so every step's edge reads.
    let tones = [
        [Color::srgb(0.78, 0.76, 0.72), Color::srgb(0.66, 0.64, 0.61)],
        [Color::srgb(0.72, 0.74, 0.78), Color::srgb(0.60, 0.62, 0.67)],
    ];
    let palette: Vec<[Handle<StandardMaterial>; 2]> = tones
        .iter()
        .map(|pair| pair.map(|c| materials.add(StandardMaterial::from(c))))
        .collect();
    let obstacle = materials.add(Color::srgb(0.62, 0.34, 0.28));
    let solids = course.solids();
    for (i, solid) in solids.iter().enumerate() {
        let mesh = match &solid.shape {
            SolidShape::Cuboid { half_extents_m, .. } => {
                Mesh::from(Cuboid::from_size(*half_extents_m * 2.0))
            }
            SolidShape::ConvexHull { points_local, .. } => hull_mesh(points_local),
            SolidShape::Ball { radius_m, .. } => Sphere::new(*radius_m).mesh().uv(32, 16),
        };
        let material = match solid.role {
            Role::Obstacle => obstacle.clone(),
            Role::Ground => palette[solid.section % 2][i % 2].clone(),
        };
        let mut entity = commands.spawn((
            Mesh3d(meshes.add(mesh)),
            MeshMaterial3d(material),
            common::placement(solid),
        ));
        common::insert_solid_collider(&mut entity, solid, options.backend);
    }
    // Low sun from the front left: treads lit, risers in shade, shadows along the lanes.
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(-30.0, 40.0, -20.0).looking_at(Vec3::new(10.0, 0.0, 10.0), Vec3::Y),
        CascadeShadowConfigBuilder {
            maximum_distance: 60.0,
            first_cascade_far_bound: 12.0,
            ..default()
        }
        .build(),
    ));
}

/// A flat-shaded mesh of the convex hull of `points` (a ramp's wedge).
fn hull_mesh(points: &[Vec3]) -> Mesh {
    #[cfg(not(feature = "rapier"))]
    use avian3d::parry::transformation::convex_hull;
    #[cfg(feature = "rapier")]
    use bevy_rapier3d::parry::transformation::convex_hull;
    let (vertices, triangles) = convex_hull(points);
    let centre = vertices.iter().copied().sum::<Vec3>() / vertices.len().max(1) as f32;
    let mut positions = Vec::with_capacity(triangles.len() * 3);
    let mut normals = Vec::with_capacity(triangles.len() * 3);
    for tri in &triangles {
        let [a, b, c] = tri.map(|i| vertices[i as usize]);
        let mut normal = (b - a).cross(c - a).normalize_or_zero();
        // Face outward whatever winding the hull came with.
        let (b, c) = if normal.dot((a + b + c) / 3.0 - centre) < 0.0 {
            normal = -normal;
            (c, b)
        } else {
            (b, c)
        };
        positions.extend([a, b, c].map(|p| p.to_array()));
        normals.extend([normal.to_array(); 3]);
    }
    Mesh::new(
        bevy::mesh::PrimitiveTopology::TriangleList,
        bevy::asset::RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
}

/// The mannequin on `course`'s lane `lane`, at `along_m` metres along it (on its ground),
/// facing `facing` (+1 along the lane, −1 back).
fn mannequin_on(
    graph: &Arc<GraphAsset>,
    course: &Course,
    lane: &str,
    along_m: f32,
    facing: f32,
) -> Option<(Character, Vec3, Vec3)> {
    let section = course.section(lane)?;
    let start = section.spawn_world;
    let end = section.end_world();
    let mut at = start + section.direction_world * along_m;
    at.y = course.surface_below(at.x, at.z, at.y + 3.0)?.height_m;
    let yaw = direction_to_yaw(Vec2::new(
        section.direction_world.x * facing,
        section.direction_world.z * facing,
    ));
    let character = Character::builder(Arc::clone(graph))
        .settings(CharacterSettings::default())
        .spawn(at, yaw)
        .ok()?;
    Some((character, start, end))
}

fn spawn_characters(mut commands: Commands, options: Res<Options>) {
    let course = Course::default_course();
    let graph = Arc::new(
        Mannequin::new()
            .default_graph()
            .expect("the built-in graph builds"),
    );
    let Some((player, start, end)) = mannequin_on(&graph, &course, PLAYER_LANE, 0.0, 1.0) else {
        error!("the course has no lane {PLAYER_LANE}");
        return;
    };
    let hero = spawn_character(&mut commands, player);
    commands.entity(hero).insert((
        Player,
        MannequinBody {
            color: Color::srgb(0.93, 0.55, 0.22),
        },
    ));
    if options.autopilot {
        let route = PathFollower::new(&[start, end, start]).with_run(false);
        commands.entity(hero).insert(Route(route));
    }
    for (k, (lane, run)) in AI_LANES.iter().enumerate() {
        // Spread along their lanes: some start far along and come back first.
        let along = [9.0, 2.0, 6.0, 1.0, 4.0][k % 5];
        let facing = if k % 2 == 0 { -1.0 } else { 1.0 };
        let Some((ai, start, end)) = mannequin_on(&graph, &course, lane, along, facing) else {
            warn!("the course has no lane {lane}");
            continue;
        };
        let route = if facing < 0.0 {
            [start, end, start]
        } else {
            [end, start, end]
        };
        let ai = spawn_character(&mut commands, ai);
        commands.entity(ai).insert((
            Name::new(format!("AI on {lane}")),
            Route(PathFollower::new(&route).with_run(*run)),
            MannequinBody {
                color: Color::srgb(0.35, 0.48, 0.62),
            },
        ));
    }
}

fn spawn_camera_and_panel(mut commands: Commands) {
    commands.spawn((
        Camera3d::default(),
        // No LUT to ship (the default tone mapper needs one).
        Tonemapping::AcesFitted,
        Transform::default(),
        Orbit {
            yaw_rad: -1.75,
            pitch_rad: 0.22,
            distance_m: 4.5,
            focus_world: None,
        },
    ));
    commands.spawn((
        Panel,
        Text::new(""),
        TextFont {
            font_size: FontSize::Px(15.0),
            ..default()
        },
        TextColor(Color::WHITE),
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55)),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(10.0),
            left: Val::Px(10.0),
            padding: UiRect::all(Val::Px(8.0)),
            ..default()
        },
    ));
}

/// What the player's input writes.
type PlayerInput = (
    &'static PlantigradeCharacter,
    &'static mut CharacterIntent,
    &'static mut LookTarget,
);

/// The player's intent from the keyboard, a gamepad and the mouse, in the camera's frame
/// (not on autopilot).
#[allow(clippy::too_many_arguments)]
fn player_intent(
    keys: Res<ButtonInput<KeyCode>>,
    mouse: Res<ButtonInput<MouseButton>>,
    gamepads: Query<&Gamepad>,
    walking: Res<Walking>,
    windows: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform, &Orbit)>,
    mut player: Query<PlayerInput, (With<Player>, Without<Route>)>,
) {
    let Ok((pc, mut intent, mut look)) = player.single_mut() else {
        return;
    };
    let Ok((camera, camera_world, orbit)) = camera.single() else {
        return;
    };
    let c = pc.character();
    // Keys give a direction in the camera's frame: x right, y forward.
    let mut raw = Vec2::ZERO;
    for (key, v) in [
        (KeyCode::KeyW, Vec2::Y),
        (KeyCode::KeyS, Vec2::NEG_Y),
        (KeyCode::KeyD, Vec2::X),
        (KeyCode::KeyA, Vec2::NEG_X),
    ] {
        if keys.pressed(key) {
            raw += v;
        }
    }
    let mut stick = shape_input(raw, InputDevice::Keyboard, &InputConfig::default());
    if walking.0 {
        stick *= c.config().walk_input_max;
    }
    let mut jump = keys.just_pressed(KeyCode::Space);
    let mut crouch = keys.pressed(KeyCode::KeyC);
    for pad in &gamepads {
        let s = pad.left_stick();
        if s.length_squared() > 0.0 {
            stick = shape_input(s, InputDevice::Gamepad, &InputConfig::default());
        }
        jump |= pad.just_pressed(GamepadButton::South);
        crouch |= pad.pressed(GamepadButton::East);
    }
    // Camera frame → world XZ: forward is where the camera looks, flattened.
    let (sin, cos) = orbit.yaw_rad.sin_cos();
    let forward = -Vec2::new(sin, cos);
    let right = Vec2::new(-forward.y, forward.x);
    let move_world = right * stick.x + forward * stick.y;
    let aim_at = mouse
        .pressed(MouseButton::Right)
        .then(|| cursor_on_ground(&windows, camera, camera_world, c.feet_world().y))
        .flatten();
    intent.move_world = move_world;
    intent.jump |= jump;
    intent.crouch = crouch;
    intent.sprint = keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight);
    intent.aim = aim_at.is_some();
    intent.face_yaw_rad = aim_at.map(|p| {
        let d = p - c.feet_world();
        direction_to_yaw(Vec2::new(d.x, d.z))
    });
    // Look at the aim point at chest height.
    look.target_world = aim_at.map(|p| p + Vec3::Y * 1.3);
}

/// Where the cursor's ray meets the horizontal plane at `height_m`.
fn cursor_on_ground(
    windows: &Query<&Window, With<PrimaryWindow>>,
    camera: &Camera,
    camera_world: &GlobalTransform,
    height_m: f32,
) -> Option<Vec3> {
    let cursor = windows.single().ok()?.cursor_position()?;
    let ray = camera.viewport_to_world(camera_world, cursor).ok()?;
    let t = ray.intersect_plane(Vec3::Y * height_m, InfinitePlane3d::new(Vec3::Y))?;
    Some(ray.get_point(t))
}

/// AI characters (and the player on autopilot) follow their routes there and back.
fn route_intent(mut walkers: Query<(&PlantigradeCharacter, &mut CharacterIntent, &mut Route)>) {
    for (pc, mut intent, mut route) in &mut walkers {
        let c = pc.character();
        *intent = route.0.intent(c.feet_world(), c.config()).into();
        if route.0.is_finished() {
            route.0.restart();
        }
    }
}

/// The switches: F1–F3 foot IK, F4 tilt, G gizmos, X walk/run, P pause.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut gizmos: ResMut<PlantigradeGizmos>,
    mut walking: ResMut<Walking>,
    mut time: ResMut<Time<Virtual>>,
    mut characters: Query<(&mut PlantigradeSettings, &mut CharacterToggles)>,
) {
    let foot_ik = [
        (KeyCode::F1, FootIkChoice::Predictive),
        (KeyCode::F2, FootIkChoice::Classic),
        (KeyCode::F3, FootIkChoice::None),
    ]
    .into_iter()
    .find(|(key, _)| keys.just_pressed(*key))
    .map(|(_, choice)| choice);
    let flip_tilt = keys.just_pressed(KeyCode::F4);
    for (mut settings, mut toggles) in &mut characters {
        if let Some(choice) = foot_ik {
            toggles.foot_ik = choice;
        }
        if flip_tilt {
            // Through the settings component, as an inspector would edit it.
            let tilt = &mut settings.0.tilt;
            tilt.enabled = !tilt.enabled;
        }
    }
    if keys.just_pressed(KeyCode::KeyG) {
        gizmos.enabled = !gizmos.enabled;
    }
    if keys.just_pressed(KeyCode::KeyX) {
        walking.0 = !walking.0;
    }
    if keys.just_pressed(KeyCode::KeyP) {
        if time.is_paused() {
            time.unpause();
        } else {
            time.pause();
        }
    }
}

/// Left-drag orbits, the wheel zooms; the focus follows the player's chest smoothly.
fn orbit_camera(
    time: Res<Time>,
    mouse: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    player: Query<&GlobalTransform, With<Player>>,
    mut camera: Query<(&mut Transform, &mut Orbit)>,
) {
    let Ok((mut transform, mut orbit)) = camera.single_mut() else {
        return;
    };
    if mouse.pressed(MouseButton::Left) {
        orbit.yaw_rad -= motion.delta.x * 0.005;
        orbit.pitch_rad = (orbit.pitch_rad + motion.delta.y * 0.005).clamp(-0.2, 1.4);
    }
    orbit.distance_m = (orbit.distance_m * (1.0 - scroll.delta.y * 0.1)).clamp(2.0, 25.0);
    if let Ok(player) = player.single() {
        let target = player.translation() + Vec3::Y * 1.0;
        // First frame: jump there; then ease (about 0.1 s), so a step up does not jolt.
        let k = 1.0 - (-time.delta_secs() * 10.0).exp();
        orbit.focus_world = Some(orbit.focus_world.map_or(target, |f| f.lerp(target, k)));
    }
    let Some(focus) = orbit.focus_world else {
        return;
    };
    let offset = Quat::from_euler(EulerRot::YXZ, orbit.yaw_rad, -orbit.pitch_rad, 0.0)
        * Vec3::new(0.0, 0.0, orbit.distance_m);
    *transform = Transform::from_translation(focus + offset).looking_at(focus, Vec3::Y);
}

/// The panel: the player's states, speed, look-ahead and LOD tier, and the switches.
fn panel(
    gizmos: Res<PlantigradeGizmos>,
    walking: Res<Walking>,
    time: Res<Time<Virtual>>,
    player: Query<
        (
            &PlantigradeCharacter,
            &PlantigradeSettings,
            &CharacterToggles,
        ),
        With<Player>,
    >,
    ai: Query<(), (With<Route>, Without<Player>)>,
    mut text: Query<&mut Text, With<Panel>>,
) {
    let (Ok((pc, settings, toggles)), Ok(mut text)) = (player.single(), text.single_mut()) else {
        return;
    };
    let c = pc.character();
    let asset = c.graph().asset();
    let states: Vec<String> = (0..asset.num_machines())
        .filter_map(|m| {
            let machine = MachineId(m as u16);
            let state = c.graph().current_state(machine)?;
            Some(format!(
                "{} {}",
                asset.machine_name(machine),
                asset.state_name(machine, state)
            ))
        })
        .collect();
    let speed = c.output().vars.speed;
    let look_ahead = c.foot_ik().ok().map_or("-".to_string(), |ik| {
        format!("{:.0} ms", ik.config.probe.look_ahead_s(speed) * 1e3)
    });
    let on_off = |on: bool| if on { "on" } else { "off" };
    text.0 = format!(
        "state: {}\nspeed: {speed:.2} m/s ({})\nlook-ahead: {look_ahead}\nLOD: {:?}\n\
         foot IK: {:?} (F1 predictive, F2 classic, F3 off)\ntilt: {} (F4)\ngizmos: {} (G){}\n\
         AI characters: {}\n\nWASD move, X walk/run, Shift sprint, Space jump, C crouch\n\
         left drag orbit, wheel zoom, right mouse aim",
        states.join(", "),
        if walking.0 { "walk" } else { "run" },
        c.lod().tier(),
        toggles.foot_ik,
        on_off(settings.0.tilt.enabled),
        on_off(gizmos.enabled),
        if time.is_paused() { "\nPAUSED (P)" } else { "" },
        ai.iter().count(),
    );
}

/// With `--frames N`: the screenshot at frame N (then exit once it is saved), or exit.
fn finish_after_frames(
    mut commands: Commands,
    mut frame: Local<u32>,
    options: Res<Options>,
    mut exit: MessageWriter<AppExit>,
) {
    *frame += 1;
    let Some(frames) = options.frames else {
        return;
    };
    if *frame != frames {
        return;
    }
    match &options.screenshot {
        Some(path) => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path.clone()))
                .observe(
                    |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                        exit.write(AppExit::Success);
                    },
                );
        }
        None => {
            exit.write(AppExit::Success);
        }
    }
}
