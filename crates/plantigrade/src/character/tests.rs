//! The character's tests: the builder, the landing poses and the posture stage on the
//! mannequin. The stages together on the test course are the integration tests in
//! `tests/on_course/character.rs` (a unit test cannot use `plantigrade-course`).

use super::*;
use crate::world::testing::HeightWorld;

#[test]
fn characters_of_one_graph_share_its_touch_downs_when_told() {
    // The mannequin with the default graph, at the test course's `flat` spawn.
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let a = Character::new(
        CharacterConfig::default(),
        graph,
        Vec3::new(0.0, 0.0, 1.0),
        0.0,
    )
    .unwrap();
    let b = Character::builder(a.graph().asset().clone())
        .landing_poses(a.landing_poses().clone())
        .spawn(Vec3::ZERO, 0.0)
        .unwrap();
    assert!(Arc::ptr_eq(a.landing_poses(), b.landing_poses()));
    // Read again, they come out the same.
    let c = Character::new(
        CharacterConfig::default(),
        a.graph().asset().clone(),
        Vec3::ZERO,
        0.0,
    )
    .unwrap();
    assert_eq!(**a.landing_poses(), **c.landing_poses());
}

#[test]
fn the_builder_takes_settings_a_bone_map_and_a_root_motion_source() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let mut settings = CharacterSettings::default();
    settings.motion.walk_speed_m_s = 1.5;
    settings.look_at.yaw_limit_rad = 0.5;
    settings.query_layers.ground = crate::world::Layers::GROUND.union(crate::world::Layers::PROPS);
    settings.root_motion = Some(crate::graph::RootMotionDef {
        joint: Some("pelvis".into()),
        ..Default::default()
    });
    let names = crate::bone_map::BoneNames {
        pelvis: Some("pelvis".into()),
        thigh_l: Some("thigh_l".into()),
        calf_l: Some("calf_l".into()),
        foot_l: Some("foot_l".into()),
        ball_l: Some("ball_l".into()),
        thigh_r: Some("thigh_r".into()),
        calf_r: Some("calf_r".into()),
        foot_r: Some("foot_r".into()),
        ball_r: Some("ball_r".into()),
        ..Default::default()
    };
    let c = Character::builder(graph.clone())
        .settings(settings.clone())
        .bone_map(names.clone())
        .body(BodyId(7))
        .spawn(Vec3::new(1.0, 0.0, 2.0), 0.3)
        .unwrap();
    assert!(
        c.foot_ik().is_ok(),
        "an explicit map with both legs gets foot IK"
    );
    let back = c.settings();
    assert_eq!(back.motion.walk_speed_m_s, 1.5);
    assert_eq!(back.look_at.yaw_limit_rad, 0.5);
    assert_eq!(back.query_layers, settings.query_layers);
    assert_eq!(back.bone_map, Some(names));
    assert_eq!(back.root_motion, settings.root_motion);
    assert_eq!(
        c.graph().root_motion_source().joint.as_deref(),
        Some("pelvis")
    );
    assert_eq!(c.ground_filter().layers, settings.query_layers.ground);
    assert_eq!(c.ground_filter().exclude, Some(BodyId(7)));
}

#[test]
fn the_builder_refuses_what_it_cannot_use() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let bad_bone = Character::builder(graph.clone())
        .bone_map(crate::bone_map::BoneNames {
            pelvis: Some("no_such_bone".into()),
            ..Default::default()
        })
        .spawn(Vec3::ZERO, 0.0)
        .unwrap_err();
    assert!(matches!(bad_bone, CharacterError::BoneMap(_)), "{bad_bone}");
    let settings = CharacterSettings {
        root_motion: Some(crate::graph::RootMotionDef {
            joint: Some("tail".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let bad_root = Character::builder(graph.clone())
        .settings(settings)
        .spawn(Vec3::ZERO, 0.0)
        .unwrap_err();
    assert!(bad_root.to_string().contains("tail"), "{bad_root}");
    let mut settings = CharacterSettings::default();
    settings.foot_ik.contact_ease_s = f32::NAN;
    let bad_value = Character::builder(graph.clone())
        .settings(settings)
        .spawn(Vec3::ZERO, 0.0)
        .unwrap_err();
    assert!(
        matches!(bad_value, CharacterError::Settings(_)),
        "{bad_value}"
    );
    let bad_spawn = Character::builder(graph)
        .spawn(Vec3::new(f32::NAN, 0.0, 0.0), 0.0)
        .unwrap_err();
    assert_eq!(bad_spawn, CharacterError::BadSpawn);
}

#[test]
fn fixed_timestep_accumulates_and_caps() {
    let mut step = FixedTimestep::new(60.0);
    assert_eq!(step.advance(1.0 / 120.0), 0);
    assert_eq!(step.advance(1.0 / 120.0), 1);
    assert_eq!(step.advance(0.055), 3);
    assert!((0.0..1.0).contains(&step.alpha()));
    // A 2 s stall runs 8 ticks, not 120, and does not carry the rest.
    assert_eq!(step.advance(2.0), 8);
    assert!(step.advance(0.0) <= 1);
    assert_eq!(step.advance(f32::NAN), 0);
    assert_eq!(step.advance(-1.0), 0);
}

#[test]
fn a_character_of_its_own_root_motion_predicts_landings_with_it() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let own_root = Character::builder(graph.clone())
        .settings(CharacterSettings {
            root_motion: Some(crate::graph::RootMotionDef {
                joint: Some("pelvis".into()),
                ..Default::default()
            }),
            ..Default::default()
        })
        .spawn(Vec3::ZERO, 0.0)
        .unwrap();
    let graph_root = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    assert_ne!(**own_root.landing_poses(), **graph_root.landing_poses());
}

/// The tilt's input for a mannequin-sized body standing at `root` facing +Z, its feet
/// 15 cm ahead and behind, at 60 Hz.
fn standing_tilt_input(world: &dyn SpatialQueries, root: Vec3) -> crate::tilt::TiltInput<'_> {
    crate::tilt::TiltInput {
        world,
        filter: QueryFilter::GROUND,
        root_world: root,
        facing_yaw_rad: 0.0,
        pelvis_model: Vec3::Y * 0.95,
        feet_world: [root + Vec3::Z * 0.15, root - Vec3::Z * 0.15],
        grounded: true,
        aiming: false,
        dt_s: 1.0 / 60.0,
    }
}

#[test]
fn the_posture_stage_fits_the_stride_to_a_flights_treads() {
    // The posture stage alone, on plain data: a tilt settled mid-flight on the course's
    // 20 cm stairs (0.28 m treads), and a gait stepping 0.875 m at playback scale 1.
    use crate::tilt::{PelvisTilt, TiltConfig};
    // The course's `stairs_20cm` flight up its lane: floor for z < 3, then 8 risers of
    // 0.20 m on 0.28 m treads, then the landing at 1.6 m (a riser counts from 10 µm before
    // its line, as the course's stairs do).
    let height_m = |z: f32| 0.20 * (((z - 3.0 + 1e-5) / 0.28).floor() + 1.0).clamp(0.0, 8.0);
    let world = HeightWorld::new(move |_, z| Some((height_m(z), Vec3::Y)));
    let z = 4.25;
    let root = Vec3::new(0.0, height_m(z), z);
    let mannequin = crate::mannequin::Mannequin::new();
    let mut posture = Posture::new(
        &mannequin.bones,
        TiltConfig::default(),
        Default::default(),
        Default::default(),
    );
    let mut tilt = PelvisTilt::new(TiltConfig::default());
    let input = standing_tilt_input(&world, root);
    let source = crate::tilt::NormalSourceChoice::Ground;
    for _ in 0..60 {
        posture.tilt_output = Some(tilt.update(&input, &source));
    }
    let slope_scale = posture.tilt_output.unwrap().slope_speed_scale;
    assert_eq!(slope_scale, 1.5, "35.5° capped");
    let step_at_scale_one_m = 0.875;
    let run = |posture: &mut Posture, velocity: Vec3, stride: bool| {
        let mut scale = 1.0;
        for _ in 0..60 {
            let now = super::posture::StrideNow {
                step_m: step_at_scale_one_m / scale,
                scale_now: scale,
            };
            scale = posture.playback_scale(true, stride.then_some(now), velocity, 0.0, 1.0 / 60.0);
        }
        scale
    };
    // The slope alone steps 0.58 m, 2.08 treads; fitted, exactly two.
    let up = run(&mut posture, Vec3::Z * 1.75, true);
    assert!(
        (step_at_scale_one_m / up - 0.56).abs() < 2e-3,
        "scale {up}: step {}",
        step_at_scale_one_m / up
    );
    // Across the flight (no stride along its treads) or with no stride known: the slope's.
    let across = run(&mut posture, Vec3::X * 1.75, true);
    assert!((across - slope_scale).abs() < 1e-3, "{across}");
    let unknown = run(&mut posture, Vec3::Z * 1.75, false);
    assert!((unknown - slope_scale).abs() < 1e-3, "{unknown}");
    // Without foot IK the stride is not warped: 1.
    assert_eq!(
        posture.playback_scale(false, None, Vec3::Z, 0.0, 1.0 / 60.0),
        1.0
    );
}

#[test]
fn a_stride_too_long_for_the_legs_on_a_steep_ramp_is_shortened() {
    // Down a 40° ramp the slope's scale is capped at 1.5. The mannequin's walk (0.875 m a
    // step at scale 1) then steps 0.58 m and drops 0.49 m a step, within its 0.85 m; a
    // stride of 1.216 m (Quaternius' walk, on legs 0.65 of the mannequin's: 0.55 m) would
    // step 0.81 m and drop 0.68 m, so it is played faster until a step drops 0.55 m.
    use crate::tilt::{PelvisTilt, TiltConfig};
    let grade = 40f32.to_radians().tan();
    let world =
        HeightWorld::new(move |_, z| Some((-grade * z, Vec3::new(0.0, 1.0, grade).normalize())));
    let root = Vec3::new(0.0, -grade * 2.0, 2.0);
    let mannequin = crate::mannequin::Mannequin::new();
    let run = |config: TiltConfig, step_at_scale_one_m: f32| {
        let mut posture = Posture::new(
            &mannequin.bones,
            config,
            Default::default(),
            Default::default(),
        );
        let mut tilt = PelvisTilt::new(config);
        let input = standing_tilt_input(&world, root);
        let source = crate::tilt::NormalSourceChoice::Ground;
        let mut scale = 1.0;
        for _ in 0..120 {
            posture.tilt_output = Some(tilt.update(&input, &source));
            let now = super::posture::StrideNow {
                step_m: step_at_scale_one_m / scale,
                scale_now: scale,
            };
            scale = posture.playback_scale(true, Some(now), Vec3::Z, 0.0, 1.0 / 60.0);
        }
        (scale, posture.tilt_output.unwrap().slope_speed_scale)
    };
    let (mannequin_scale, slope_scale) = run(TiltConfig::default(), 0.875);
    assert_eq!(slope_scale, 1.5);
    assert!((mannequin_scale - 1.5).abs() < 1e-3, "{mannequin_scale}");
    let mut small = TiltConfig::default();
    small.slope_speed.max_step_rise_m *= 0.65;
    let (scale, _) = run(small, 1.216);
    let drop_m = 1.216 / scale * grade;
    assert!(
        (drop_m - small.slope_speed.max_step_rise_m).abs() < 5e-3,
        "scale {scale}: a step drops {drop_m} m"
    );
    assert!(scale <= small.slope_speed.flight_max_scale);
}

#[test]
fn the_tick_stages_in_order_are_the_tick_and_out_of_order_is_an_error() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let mut whole = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    let mut staged = whole.clone();
    let walk = Intent {
        move_world: glam::Vec2::new(0.3, 0.6),
        ..Default::default()
    };
    for _ in 0..90 {
        whole.tick(1.0 / 60.0, &walk, &world).unwrap();
        staged.tick_movement(1.0 / 60.0, &walk, &world).unwrap();
        staged.tick_animation().unwrap();
        staged.tick_procedural(&world).unwrap();
    }
    assert!(
        whole.feet_world().z > 0.3,
        "it walked: {}",
        whole.feet_world()
    );
    assert_eq!(whole.feet_world(), staged.feet_world());
    assert_eq!(whole.pose(), staged.pose());

    // Animation or procedural before their turn is refused and changes nothing...
    let before = staged.pose().clone();
    assert_eq!(
        staged.tick_animation(),
        Err(CharacterError::StageOrder {
            due: TickStage::Movement,
            called: TickStage::Animation
        })
    );
    staged.tick_movement(1.0 / 60.0, &walk, &world).unwrap();
    assert!(matches!(
        staged.tick_procedural(&world),
        Err(CharacterError::StageOrder {
            due: TickStage::Animation,
            called: TickStage::Procedural
        })
    ));
    assert_eq!(staged.pose(), &before);
    // ...and a new movement stage starts the next tick afresh.
    staged.tick(1.0 / 60.0, &walk, &world).unwrap();
    assert!(staged
        .pose()
        .local()
        .iter()
        .all(|t| t.translation.is_finite()));
}

#[test]
fn settings_set_on_a_live_character_come_back_and_are_used() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let mut c = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    let walk = Intent {
        move_world: glam::Vec2::new(0.0, 1.0),
        ..Default::default()
    };
    for _ in 0..30 {
        c.tick(1.0 / 60.0, &walk, &world).unwrap();
    }
    let mut settings = c.settings();
    settings.motion.run_speed_m_s = 3.0;
    settings.foot_ik.probe.probe_down_m = 0.9;
    settings.foot_ik.mode = FootIkMode::Classic;
    settings.tilt.head_keep_fraction = 0.3;
    settings.look_at.use_spine = false;
    settings.lod.blend_time_s = 0.5;
    settings.lean.turn_factor = 0.5;
    settings.impact.max_dip_m = 0.1;
    settings.query_layers.ground = crate::world::Layers::GROUND.union(crate::world::Layers::PROPS);
    c.set_settings(settings.clone()).unwrap();
    assert_eq!(c.settings(), settings);
    assert_eq!(c.config().run_speed_m_s, 3.0);
    assert_eq!(
        c.foot_ik().unwrap().config.mode,
        FootIkMode::Classic,
        "the mode switches as set_foot_ik_mode would"
    );
    assert_eq!(c.ground_filter().layers, settings.query_layers.ground);
    // The character carries on with them, running at the new speed.
    for _ in 0..120 {
        c.tick(1.0 / 60.0, &walk, &world).unwrap();
    }
    let speed = c.output().actual_velocity_world.length();
    assert!((speed - 3.0).abs() < 0.1, "runs at the new speed: {speed}");
    assert!(c.model_pose().joints_model().iter().all(|m| m.is_finite()));
}

#[test]
fn settings_that_cannot_work_on_a_live_character_are_refused_and_change_nothing() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let mut c = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    let before = c.settings();

    let mut nan_speed = before.clone();
    nan_speed.motion.run_speed_m_s = f32::NAN;
    nan_speed.lean.turn_factor = 0.1;
    let err = c.set_settings(nan_speed).unwrap_err();
    assert!(matches!(err, CharacterError::Settings(_)), "{err}");
    assert_eq!(c.settings(), before);

    let mut negative = before.clone();
    negative.lod.hysteresis_m = -0.5;
    negative.motion.stand_capsule.radius_m = -0.3;
    let err = c.set_settings(negative).unwrap_err();
    assert!(matches!(err, CharacterError::Settings(_)), "{err}");
    assert_eq!(c.settings(), before);

    let mut other_bones = before.clone();
    other_bones.bone_map = Some(crate::bone_map::BoneNames {
        pelvis: Some("pelvis".into()),
        ..Default::default()
    });
    other_bones.motion.run_speed_m_s = 3.0;
    let err = c.set_settings(other_bones).unwrap_err();
    assert_eq!(err, CharacterError::RespawnNeeded { field: "bone_map" });
    assert!(err.to_string().contains("bone_map"), "{err}");
    assert_eq!(c.settings(), before);

    let mut other_root = before.clone();
    other_root.root_motion = Some(crate::graph::RootMotionDef::default());
    let err = c.set_settings(other_root).unwrap_err();
    assert_eq!(
        err,
        CharacterError::RespawnNeeded {
            field: "root_motion"
        }
    );
    assert_eq!(c.settings(), before);
}

/// Issue 17 item 5: a rig that starts at its pelvis (as Mixamo's do) keeps its capsule on
/// the ground while it walks: the pelvis's bob stays in the pose, where extracting it (the
/// default for a root above the pelvis) lifts the capsule every step.
#[test]
fn a_rig_starting_at_its_pelvis_does_not_lift_its_capsule() {
    let m = crate::mannequin::Mannequin::new();
    let (skeleton, clips) = crate::graph::root_source::without_first_joint(&m.skeleton, &m.clips);
    let graph = Arc::new(
        GraphAsset::from_ron(
            include_str!("../mannequin/default_als.ron"),
            &skeleton,
            clips,
        )
        .unwrap(),
    );
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let walk = Intent {
        move_world: glam::Vec2::new(0.0, 1.0),
        ..Default::default()
    };
    // Ticks off the ground and the highest the feet rose, walking then running 3 s.
    let lift = |settings: CharacterSettings| {
        let mut c = Character::builder(graph.clone())
            .settings(settings)
            .spawn(Vec3::ZERO, 0.0)
            .unwrap();
        let (mut airborne, mut highest_m) = (0, 0.0f32);
        let mut pelvis_y = (f32::INFINITY, f32::NEG_INFINITY);
        let mut yaw = (f32::INFINITY, f32::NEG_INFINITY);
        for tick in 0..180 {
            let intent = Intent {
                move_world: walk.move_world * if tick < 90 { 0.5 } else { 1.0 },
                ..walk
            };
            c.tick(1.0 / 60.0, &intent, &world).unwrap();
            airborne += usize::from(!c.output().vars.is_grounded);
            highest_m = highest_m.max(c.feet_world().y);
            if tick >= 120 {
                let y = c.model_pose().position_model(0).y;
                pelvis_y = (pelvis_y.0.min(y), pelvis_y.1.max(y));
                let f = c.facing_yaw_rad();
                yaw = (yaw.0.min(f), yaw.1.max(f));
            }
        }
        let bob_m = pelvis_y.1 - pelvis_y.0;
        let sway_rad = yaw.1 - yaw.0;
        (airborne, highest_m, bob_m, pelvis_y.1, sway_rad, c)
    };
    let (airborne, highest_m, bob_m, pelvis_top_m, sway_rad, c) =
        lift(CharacterSettings::default());
    assert_eq!(
        c.graph().root_motion_source().joint.as_deref(),
        Some("pelvis")
    );
    assert_eq!(c.settings().root_motion, None, "detected, not given");
    assert_eq!(airborne, 0);
    assert!(highest_m < 1e-3, "the feet rose {highest_m} m");
    // The run's bob and lowered pelvis stay in the pose; the capsule faces steadily.
    assert!(
        bob_m > 0.005 && pelvis_top_m < 0.9,
        "{bob_m} m, top {pelvis_top_m} m"
    );
    assert!(sway_rad < 1e-3, "facing swayed {sway_rad} rad");
    // What the detection saves it from: the pelvis's vertical motion and yaw extracted
    // (rapier's controller on stairs is then lifted off the treads, issue 17's 21–29
    // airborne ticks; this flat test world snaps it back down). The bob is gone from
    // the pose, the pelvis stands at its rest height, the capsule swings with the hips.
    let extracted = CharacterSettings {
        root_motion: Some(crate::graph::RootMotionDef {
            joint: Some("pelvis".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let (_, _, bob_m, pelvis_top_m, sway_rad, _) = lift(extracted);
    assert!(
        bob_m < 1e-3 && pelvis_top_m > 0.94,
        "{bob_m} m, top {pelvis_top_m} m"
    );
    assert!(sway_rad > 0.01, "facing swayed {sway_rad} rad");
}

/// A 15° ramp up +z for |x| < 5 (standing on it tilts the pelvis), flat ground at 0
/// elsewhere; `jump` moves the capsule by that much more than asked on the next move (a
/// host or physics engine teleporting it).
struct RampThenFlat {
    jump: std::cell::Cell<Vec3>,
}

impl RampThenFlat {
    fn height_and_normal(x: f32, z: f32) -> (f32, Vec3) {
        let tan = 15f32.to_radians().tan();
        if x.abs() < 5.0 && z > 0.0 {
            (z * tan, Vec3::new(0.0, 1.0, -tan).normalize())
        } else {
            (0.0, Vec3::Y)
        }
    }
}

impl crate::world::SpatialQueries for RampThenFlat {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: crate::world::QueryFilter,
    ) -> Option<crate::world::RayHit> {
        HeightWorld::new(|x, z| Some(Self::height_and_normal(x, z))).cast_ray(
            origin,
            direction,
            max_distance_m,
            filter,
        )
    }

    fn cast_capsule(
        &self,
        _: crate::world::Capsule,
        _: Vec3,
        _: Vec3,
        _: f32,
        _: crate::world::QueryFilter,
    ) -> Option<crate::world::RayHit> {
        None
    }
}

impl crate::world::CharacterMover for RampThenFlat {
    fn move_capsule(&self, request: &crate::world::MoveRequest) -> crate::world::MoveResult {
        crate::world::MoveResult {
            translation: request.desired_translation + self.jump.replace(Vec3::ZERO),
            grounded: true,
            floor_normal: None,
            sliding_down_slope: false,
            hit_wall: false,
        }
    }
}

/// Stands the mannequin on the ramp for a second (feet locked there, pelvis tilted), moves
/// it 50 m away onto flat ground with `teleport`, ticks once, and returns the character
/// and how far its farthest joint is from its new feet (m).
fn stood_on_the_ramp_then_moved(
    teleport: impl FnOnce(&mut Character, &RampThenFlat),
) -> (Character, f32) {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = RampThenFlat {
        jump: std::cell::Cell::new(Vec3::ZERO),
    };
    let start = Vec3::new(0.0, RampThenFlat::height_and_normal(0.0, 2.0).0, 2.0);
    let mut c = Character::new(CharacterConfig::default(), graph, start, 0.0).unwrap();
    let still = Intent::default();
    for _ in 0..60 {
        c.tick(1.0 / 60.0, &still, &world).unwrap();
    }
    let tilted = c.tilt_output().unwrap().pitch_rad;
    assert!(tilted > 5f32.to_radians(), "tilted on the ramp: {tilted}");
    teleport(&mut c, &world);
    c.tick(1.0 / 60.0, &still, &world).unwrap();
    let feet = c.feet_world();
    let farthest = c
        .model_pose()
        .joints_model()
        .iter()
        .map(|m| c.model_to_world(Vec3::from(m.translation)).distance(feet))
        .fold(0.0, f32::max);
    (c, farthest)
}

#[test]
fn a_teleport_forgets_the_old_place_and_a_jump_by_the_physics_is_one() {
    let there = Vec3::new(50.0, 0.0, 50.0);
    for how in ["teleport", "physics"] {
        let (c, farthest_m) = stood_on_the_ramp_then_moved(|c, world| match how {
            "teleport" => c.teleport(there, Some(1.0)).unwrap(),
            _ => world.jump.set(there - c.feet_world()),
        });
        assert!(
            c.feet_world().distance(there) < 0.05,
            "{how}: at {}",
            c.feet_world()
        );
        // No foot left locked on the ramp 70 m back: the whole body is at the new place.
        assert!(
            farthest_m < 2.0,
            "{how}: a joint {farthest_m} m from the feet"
        );
        let ik = c.foot_ik_output().unwrap();
        assert_eq!(ik.reach_clamps, 0, "{how}: {ik:?}");
        // The tilt starts from rest on the flat, not easing down from the ramp's 15°.
        let pitch = c.tilt_output().unwrap().pitch_rad;
        assert!(pitch.abs() < 1f32.to_radians(), "{how}: pitch {pitch}");
        if how == "teleport" {
            assert!((c.facing_yaw_rad() - 1.0).abs() < 1e-4);
        }
    }
    // Without the reset the lock would hold a foot at the ramp; the same jump short of
    // the threshold is ordinary movement and keeps the tilt easing.
    let (c, _) = stood_on_the_ramp_then_moved(|_, world| {
        world.jump.set(Vec3::new(0.0, 0.0, 0.5 * TELEPORT_DETECT_M))
    });
    assert!(c.tilt_output().unwrap().pitch_rad > 5f32.to_radians());
}

#[test]
fn a_teleport_to_nowhere_is_an_error_and_changes_nothing() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let mut c = Character::new(CharacterConfig::default(), graph, Vec3::ZERO, 0.0).unwrap();
    for (to, yaw) in [
        (Vec3::new(f32::NAN, 0.0, 0.0), None),
        (Vec3::new(0.0, f32::INFINITY, 0.0), Some(0.0)),
        (Vec3::ZERO, Some(f32::NAN)),
    ] {
        assert!(matches!(
            c.teleport(to, yaw),
            Err(CharacterError::Teleport { .. })
        ));
        assert_eq!(c.feet_world(), Vec3::ZERO);
        assert_eq!(c.facing_yaw_rad(), 0.0);
    }
}

/// The largest rotation (rad) any joint turns between two local poses.
fn largest_turn_rad(a: &Pose, b: &Pose) -> f32 {
    a.local()
        .iter()
        .zip(b.local())
        .map(|(x, y)| x.rotation.angle_between(y.rotation))
        .fold(0.0, f32::max)
}

/// Animation LOD (SPEC PERF-5): the graph runs every tick near, every 2nd tick in
/// `Reduced`, every 4th in `Off`; and when the tier changes, mid-window or not, no joint
/// of the animated pose turns further in a tick than it does in a normal full-detail tick
/// of the same walk. (The animated pose, before the procedural pass: that pass fades by
/// tier on its own ramp, and its foot IK turns a leg by up to 3 rad in one tick of this
/// turning walk even at full detail, which would hide any pop.)
#[test]
fn animation_lod_paces_the_graph_by_tier_and_a_tier_switch_never_pops() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let dt_s = 1.0 / 60.0;
    // Walk, then run, turning: the pose changes every tick.
    let intent = |tick: usize| Intent {
        move_world: glam::Vec2::from_angle(tick as f32 * 0.01) * if tick < 200 { 0.5 } else { 1.0 },
        ..Intent::IDLE
    };
    // The viewer near, far and in between, switching every 37 ticks (mid-window).
    let distance_m = |tick: usize| [2.0, 15.0, 50.0, 15.0, 2.0, 50.0, 2.0][(tick / 37) % 7];
    let expected_every = |tier: LodTier| match tier {
        LodTier::Full => 1,
        LodTier::Reduced => 2,
        LodTier::Off => 4,
    };
    let spawn = || Character::new(CharacterConfig::default(), graph.clone(), Vec3::ZERO, 0.0);
    let (mut full, mut paced) = (spawn().unwrap(), spawn().unwrap());
    let (mut full_turn_max, mut switch_turn_max) = (0.0f32, 0.0f32);
    let mut runs = [[0u32; 2]; 3];
    let mut last_tier = LodTier::Full;
    let mut since_switch = usize::MAX;
    for tick in 0..400 {
        let before = (
            full.animator.animated.clone(),
            paced.animator.animated.clone(),
        );
        full.tick(dt_s, &intent(tick), &world).unwrap();
        paced.set_viewer(Some(paced.feet_world() + Vec3::X * distance_m(tick)));
        let tier = paced.lod_tier();
        paced.tick(dt_s, &intent(tick), &world).unwrap();
        // Count the graph's runs per tier (the tier in effect when the tick started).
        let slot = &mut runs[match tier {
            LodTier::Full => 0,
            LodTier::Reduced => 1,
            LodTier::Off => 2,
        }];
        slot[0] += 1;
        slot[1] += u32::from(paced.animator.graph_ran);
        if tick < 30 {
            continue; // starting to walk
        }
        full_turn_max = full_turn_max.max(largest_turn_rad(&before.0, &full.animator.animated));
        since_switch = if tier != last_tier {
            0
        } else {
            since_switch.saturating_add(1)
        };
        last_tier = tier;
        if since_switch <= 8 {
            switch_turn_max =
                switch_turn_max.max(largest_turn_rad(&before.1, &paced.animator.animated));
        }
    }
    for (i, tier) in [LodTier::Full, LodTier::Reduced, LodTier::Off]
        .into_iter()
        .enumerate()
    {
        let [ticks, ran] = runs[i];
        let every = expected_every(tier);
        assert!(ticks > 40, "{tier:?}: {ticks} ticks");
        // Windows straddle the switches: within one run per switch of ticks / every.
        let ideal = ticks / every;
        assert!(
            ran.abs_diff(ideal) <= 6,
            "{tier:?}: graph ran {ran} times in {ticks} ticks"
        );
    }
    assert!(switch_turn_max > 0.0);
    assert!(
        switch_turn_max <= full_turn_max,
        "largest joint turn in a tick at a tier switch {switch_turn_max} rad, in a full-detail tick {full_turn_max} rad"
    );
}

/// The far tier fades the posture (tilt, landing dip, lean) out with the foot IK, then stops
/// running it (no rays at all), and fades it back in near: standing on a 15° ramp while the
/// viewer comes and goes, the pelvis never turns in a tick by more than the animation turns
/// it plus one step of the fade.
#[test]
fn the_far_tier_fades_the_tilt_out_stops_its_rays_and_fades_it_back() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = HeightWorld::new(|x, z| Some(RampThenFlat::height_and_normal(x, z)));
    let start = Vec3::new(0.0, RampThenFlat::height_and_normal(0.0, 2.0).0, 2.0);
    let pelvis = graph
        .skeleton()
        .names()
        .iter()
        .position(|n| n == "pelvis")
        .unwrap();
    let dt_s = 1.0 / 60.0;
    let still = Intent::default();
    let spawn = || Character::new(CharacterConfig::default(), graph.clone(), start, 0.0).unwrap();
    let pelvis_turn = |before: &Pose, c: &Character| {
        before.local()[pelvis]
            .rotation
            .angle_between(c.pose().local()[pelvis].rotation)
    };

    // Full detail throughout: how far the pelvis turns in a tick, and the tilt.
    let mut full = spawn();
    let mut animation_turn_max = 0.0f32;
    for tick in 0..240 {
        let before = full.pose().clone();
        full.tick(dt_s, &still, &world).unwrap();
        if tick >= 60 {
            animation_turn_max = animation_turn_max.max(pelvis_turn(&before, &full));
        }
    }
    let tilt_rad = full.tilt_output().unwrap().pitch_rad.abs();
    assert!(
        tilt_rad > 5f32.to_radians(),
        "tilted on the ramp: {tilt_rad}"
    );

    // Near for a second, far for a second, and again.
    let mut paced = spawn();
    let fade_step_rad = tilt_rad * dt_s / crate::lod::DEFAULT_BLEND_TIME_S;
    let (mut faded_ticks, mut near_rays) = (0, 0);
    for tick in 0..240 {
        let far = (tick / 60) % 2 == 1;
        let offset_m = if far { 80.0 } else { 1.0 };
        paced.set_viewer(Some(paced.feet_world() + Vec3::X * offset_m));
        let faded_before =
            paced.lod().tier() == LodTier::Off && paced.lod().procedural_weight() <= 0.0;
        let (before, rays_before) = (paced.pose().clone(), world.rays());
        paced.tick(dt_s, &still, &world).unwrap();
        let rays = world.rays() - rays_before;
        if faded_before && far {
            faded_ticks += 1;
            assert_eq!(rays, 0, "tick {tick}: faded out, yet {rays} rays");
        }
        if !far {
            near_rays += rays;
        }
        if tick >= 60 {
            let turn = pelvis_turn(&before, &paced);
            assert!(
                turn <= animation_turn_max + 1.25 * fade_step_rad + 1e-4,
                "tick {tick}: the pelvis turned {turn} rad (animation at most {animation_turn_max}, fade step {fade_step_rad})"
            );
        }
        if tick == 179 {
            let back = paced.tilt_output().unwrap().pitch_rad.abs();
            assert!(
                (back - tilt_rad).abs() < 0.2 * tilt_rad,
                "tilt back near: {back} rad, {tilt_rad} rad at full detail"
            );
        }
    }
    assert!(faded_ticks > 60, "{faded_ticks} ticks faded out");
    assert!(near_rays > 0);
}

/// Far characters spawned in different places run their graphs on different ticks, not
/// all on every 4th: a crowd's frames stay even.
#[test]
fn far_characters_spread_their_graph_runs_over_the_window() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let mut crowd: Vec<Character> = (0..32)
        .map(|k| {
            let at = Vec3::new(k as f32 * 0.7, 0.0, (k % 5) as f32);
            let mut c = Character::new(CharacterConfig::default(), graph.clone(), at, 0.0).unwrap();
            c.set_viewer(Some(Vec3::new(0.0, 0.0, -500.0)));
            c
        })
        .collect();
    let mut runs_per_tick = Vec::new();
    for tick in 0..40 {
        let mut ran = 0;
        for c in &mut crowd {
            c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
            ran += usize::from(c.animator.graph_ran);
        }
        if tick >= 8 {
            runs_per_tick.push(ran);
        }
    }
    // Every 4th tick each: 8 a tick on average; no tick with most of the crowd.
    let total: usize = runs_per_tick.iter().sum();
    assert_eq!(total, 32 * runs_per_tick.len() / 4);
    let busiest = *runs_per_tick.iter().max().unwrap();
    assert!(
        busiest <= 16,
        "{busiest} of 32 graphs on one tick: {runs_per_tick:?}"
    );
}

/// SPEC PERF-5's joint culling: the mannequin's fingers (the rig's suggested list) go to
/// their rest pose beyond full detail and are then not sampled; near again they come back.
/// No culled joint turns in a tick by more than any joint of the animated pose turns in a
/// full-detail tick of the same walk (the animated pose: foot IK turns a leg by far more),
/// and the rest of the body is animated exactly as without culling.
#[test]
fn culled_joints_go_to_rest_far_away_and_come_back_near_without_a_pop() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let skeleton = graph.skeleton().clone();
    let culled_names =
        crate::lod::suggested_culled_joints(&skeleton, &HumanoidMap::detect(&skeleton));
    assert_eq!(
        culled_names.len(),
        6,
        "three fingers a hand: {culled_names:?}"
    );
    let culled: Vec<usize> = culled_names
        .iter()
        .map(|n| skeleton.find(n).unwrap())
        .collect();
    let world = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
    let dt_s = 1.0 / 60.0;
    let intent = |tick: usize| Intent {
        move_world: glam::Vec2::from_angle(tick as f32 * 0.01) * 0.5,
        ..Intent::IDLE
    };
    let spawn = |names: Vec<String>| {
        let mut settings = CharacterSettings {
            lod_culled_joints: names,
            ..CharacterSettings::default()
        };
        // Only the culling differs between the two: both run the graph every tick.
        settings.lod.graph_every_reduced_ticks = 1;
        settings.lod.graph_every_off_ticks = 1;
        Character::builder(graph.clone())
            .settings(settings)
            .spawn(Vec3::ZERO, 0.0)
            .unwrap()
    };
    let (mut plain, mut culling) = (spawn(Vec::new()), spawn(culled_names.clone()));
    assert_eq!(culling.settings().lod_culled_joints, culled_names);
    // Near, far (culled), near again: 60 ticks each, well over the 0.25 s blend.
    let far = |tick: usize| (60..120).contains(&tick) || (180..240).contains(&tick);
    let (mut full_turn_max, mut culled_turn_max) = (0.0f32, 0.0f32);
    for tick in 0..300 {
        let before = (
            plain.animator.animated.clone(),
            culling.animator.pose.clone(),
        );
        for c in [&mut plain, &mut culling] {
            let distance_m = if far(tick) { 50.0 } else { 2.0 };
            c.set_viewer(Some(c.feet_world() + Vec3::X * distance_m));
            c.tick(dt_s, &intent(tick), &world).unwrap();
        }
        let (now, culled_now) = (culling.animator.animated.clone(), culling.pose().clone());
        if tick >= 30 && !far(tick) && culling.lod_cull_weight() == 0.0 {
            full_turn_max =
                full_turn_max.max(largest_turn_rad(&before.0, &plain.animator.animated));
        }
        if tick >= 30 {
            for &j in &culled {
                let turn = before.1.local()[j]
                    .rotation
                    .angle_between(culled_now.local()[j].rotation);
                culled_turn_max = culled_turn_max.max(turn);
            }
        }
        // Culling changes nothing but the culled joints.
        for j in (0..skeleton.num_joints()).filter(|j| !culled.contains(j)) {
            let (a, b) = (plain.animator.animated.local()[j], now.local()[j]);
            assert!(
                same_rotation(a.rotation, b.rotation),
                "tick {tick}: joint {j} differs"
            );
        }
        // Well into the far stretch: at rest, and the graph no longer samples them.
        if tick == 110 || tick == 230 {
            assert_eq!(culling.lod_cull_weight(), 1.0);
            assert!(culling.animator.graph.culling());
            for &j in &culled {
                let (pose, rest) = (culled_now.local()[j], skeleton.rest_local()[j]);
                assert!(same_rotation(pose.rotation, rest.rotation), "joint {j}");
            }
        }
        // Well into a near stretch: animated again, as without culling.
        if tick == 170 || tick == 290 {
            assert_eq!(culling.lod_cull_weight(), 0.0);
            assert!(!culling.animator.graph.culling());
            for j in 0..skeleton.num_joints() {
                let (a, b) = (plain.pose().local()[j], culled_now.local()[j]);
                assert!(
                    same_rotation(a.rotation, b.rotation),
                    "tick {tick}: joint {j}"
                );
            }
        }
    }
    let rest_to_animated = culled
        .iter()
        .map(|&j| {
            skeleton.rest_local()[j]
                .rotation
                .angle_between(plain.pose().local()[j].rotation)
        })
        .fold(0.0, f32::max);
    assert!(
        rest_to_animated > full_turn_max,
        "the fingers are curled when animated, by more than a tick's turn: {rest_to_animated} rad"
    );
    assert!(
        culled_turn_max <= full_turn_max,
        "a culled joint turned {culled_turn_max} rad in a tick; any joint at full detail {full_turn_max} rad"
    );
}

/// Equal rotations up to rounding (`angle_between` reads up to ~1e-3 rad for equal ones).
fn same_rotation(a: Quat, b: Quat) -> bool {
    (a.dot(b).abs() - 1.0).abs() < 1e-6
}

/// A culled joint that is not in the rig, is a bone the character needs (the humanoid
/// map's, or one holding them up), or is the root-motion joint: a clear error at spawn.
/// Culling is decided at spawn: changing the list on a live character is refused.
#[test]
fn a_culled_joint_the_character_needs_or_does_not_have_is_refused() {
    let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
    let spawn = |names: &[&str]| {
        Character::builder(graph.clone())
            .settings(CharacterSettings {
                lod_culled_joints: names.iter().map(|s| s.to_string()).collect(),
                ..CharacterSettings::default()
            })
            .spawn(Vec3::ZERO, 0.0)
    };
    for (names, why) in [
        (&["index_01_l", "pinky_03_l"][..], "is not a joint"),
        (&["foot_r"][..], "is a bone of the humanoid map"),
        (&["spine_01"][..], "is a bone of the humanoid map"),
        (&["root"][..], "root-motion joint"),
    ] {
        let Err(error) = spawn(names).map(|_| ()) else {
            panic!("{names:?} was taken");
        };
        let error = error.to_string();
        assert!(error.contains(why), "{names:?}: {error}");
    }
    let mut c = spawn(&["index_01_l"]).unwrap();
    let mut settings = c.settings();
    settings.lod_culled_joints.clear();
    assert!(matches!(
        c.set_settings(settings),
        Err(CharacterError::RespawnNeeded {
            field: "lod_culled_joints"
        })
    ));
}
