//! The tilt stage on the course's ramps (from `tilt::stage`'s unit tests).

use glam::{Quat, Vec3};
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::tilt::stage::DEFAULT_HEAD_KEEP_FRACTION;
use plantigrade::tilt::{
    FrameCase, NormalSourceChoice, PelvisTilt, TiltConfig, TiltDamping, TiltFilterConfig,
    TiltInput, TiltOutput,
};
use plantigrade::world::QueryFilter;
use plantigrade_course::{AnalyticWorld, Course};

const DT: f32 = 1.0 / 60.0;

/// Standing on `section` at distance `along_m` from its spawn, `lift_m` above the
/// ground, facing along the section (or back).
fn standing<'a>(
    course: &Course,
    world: &'a AnalyticWorld<'a>,
    section: &str,
    along_m: f32,
    lift_m: f32,
    backward: bool,
) -> TiltInput<'a> {
    let section = course.section(section).unwrap();
    let mut root = section.spawn_world + section.direction_world * along_m;
    root.y = course.ground_height(root.x, root.z).unwrap() + lift_m;
    let forward = if backward {
        -section.direction_world
    } else {
        section.direction_world
    };
    TiltInput {
        world,
        filter: QueryFilter::GROUND,
        root_world: root,
        facing_yaw_rad: forward.x.atan2(forward.z),
        pelvis_model: Vec3::new(0.0, 0.93, 0.0),
        feet_world: [root + forward * 0.25, root - forward * 0.25],
        grounded: true,
        aiming: false,
        dt_s: DT,
    }
}

fn run(stage: &mut PelvisTilt, input: &TiltInput<'_>, ticks: usize) -> TiltOutput {
    let mut out = stage.update(input, &NormalSourceChoice::Ground);
    for _ in 1..ticks {
        out = stage.update(input, &NormalSourceChoice::Ground);
    }
    out
}

#[test]
fn settles_on_a_ramp_and_reports_slope_speed() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    // ramp_20deg rises for z 3–7.12: stand at z 5, 4 m past the spawn at z 1.
    let mut stage = PelvisTilt::default();
    let out = run(
        &mut stage,
        &standing(&course, &world, "ramp_20deg", 4.0, 0.0, false),
        120,
    );
    assert_eq!(out.frame.case, FrameCase::Plane);
    assert!(
        (out.pitch_rad - 20f32.to_radians()).abs() < 1e-3,
        "{}",
        out.pitch_rad
    );
    assert!((out.target_pitch_rad - 20f32.to_radians()).abs() < 1e-4);
    assert!(out.roll_rad.abs() < 1e-4 && !out.airborne && out.enabled);
    assert!((out.slope_speed_scale - (1.0 + 20.0 / 70.0)).abs() < 1e-3);
    // TILT-12: the trunk leans into the climb, 0.4 × 20° = 8° forward, the pelvis half
    // of that; neither's up axis tips back toward the slope's normal.
    assert!((out.trunk_lean_rad - 8f32.to_radians()).abs() < 1e-3);
    let trunk_up = out.trunk_offset_model * Vec3::Y;
    assert!((trunk_up.z.atan2(trunk_up.y) - 8f32.to_radians()).abs() < 1e-3);
    let pelvis_up = out.pelvis_offset_model * Vec3::Y;
    assert!((pelvis_up.z.atan2(pelvis_up.y) - 4f32.to_radians()).abs() < 1e-3);
    assert_eq!(stage.pelvis_offset_model(), out.pelvis_offset_model);
    // Facing downhill: -20°, and the same shorter steps (downhill_shortens).
    let mut stage = PelvisTilt::default();
    let out = run(
        &mut stage,
        &standing(&course, &world, "ramp_20deg", 4.0, 0.0, true),
        120,
    );
    assert!((out.pitch_rad + 20f32.to_radians()).abs() < 1e-3);
    assert!((out.slope_speed_scale - (1.0 + 20.0 / 70.0)).abs() < 1e-3);
}

/// Leaves a settled 20° tilt through `exit` and checks the return to the animation is
/// smooth: no tick moves faster than the target rate limit, the first tick moves
/// little, it never overshoots, and it is back to level within 1.5 s.
fn assert_smooth_return(exit: &TiltInput<'_>) {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let mut stage = PelvisTilt::default();
    let settled = run(
        &mut stage,
        &standing(&course, &world, "ramp_20deg", 4.0, 0.0, false),
        120,
    );
    let max_rate = stage.config.filter.max_target_rate_rad_per_s;
    let mut previous = settled.pitch_rad;
    for tick in 0..90 {
        let out = stage.update(exit, &NormalSourceChoice::Ground);
        assert!(out.airborne, "tick {tick}");
        assert_eq!((out.target_pitch_rad, out.target_roll_rad), (0.0, 0.0));
        assert_eq!(out.slope_speed_scale, 1.0);
        let step = previous - out.pitch_rad;
        assert!(step >= 0.0, "tick {tick}: overshoot or reversal");
        assert!(
            step <= max_rate * DT * 1.001,
            "tick {tick}: {step} rad in one tick"
        );
        if tick == 0 {
            assert!(
                step.to_degrees() < 1.0,
                "first tick jumps {}°",
                step.to_degrees()
            );
        }
        previous = out.pitch_rad;
    }
    assert!(
        previous.to_degrees().abs() < 0.2,
        "{}°",
        previous.to_degrees()
    );
}

#[test]
fn exit_when_not_grounded_or_ground_too_far_below_returns_smoothly() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let on_ramp = standing(&course, &world, "ramp_20deg", 4.0, 0.0, false);
    // The controller says airborne.
    assert_smooth_return(&TiltInput {
        grounded: false,
        ..on_ramp
    });
    // Ground 0.4 m below the feet: beyond 0.3 × 0.93 = 0.279 m.
    let lifted = standing(&course, &world, "ramp_20deg", 4.0, 0.4, false);
    assert_smooth_return(&lifted);
    // 0.2 m below still tilts.
    let mut stage = PelvisTilt::default();
    let near = run(
        &mut stage,
        &standing(&course, &world, "ramp_20deg", 4.0, 0.2, false),
        120,
    );
    assert!(!near.airborne);
    assert!((near.pitch_rad - 20f32.to_radians()).abs() < 1e-3);
}

#[test]
fn disabled_reports_the_frame_but_applies_nothing() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let input = standing(&course, &world, "ramp_20deg", 4.0, 0.0, false);
    let mut stage = PelvisTilt::new(TiltConfig {
        enabled: false,
        ..TiltConfig::default()
    });
    let out = run(&mut stage, &input, 120);
    assert!(!out.enabled);
    assert_eq!(out.frame.case, FrameCase::Plane);
    assert_eq!(out.frame.ray_count, 3);
    assert!((out.target_pitch_rad - 20f32.to_radians()).abs() < 1e-4);
    assert_eq!((out.pitch_rad, out.roll_rad), (0.0, 0.0));
    assert_eq!(out.pelvis_offset_model, Quat::IDENTITY);
    // Turned on: it ramps in from level.
    stage.config.enabled = true;
    let out = stage.update(&input, &NormalSourceChoice::Ground);
    assert!(out.pitch_rad > 0.0 && out.pitch_rad.to_degrees() < 1.0);
}

#[test]
fn roll_can_be_switched_off() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let input = standing(&course, &world, "cross_slope_20deg", 5.0, 0.0, false);
    let mut stage = PelvisTilt::default();
    let out = run(&mut stage, &input, 120);
    assert!((out.roll_rad - 20f32.to_radians()).abs() < 1e-3);
    let mut config = TiltConfig::default();
    config.limits.roll_enabled = false;
    let mut stage = PelvisTilt::new(config);
    let out = run(&mut stage, &input, 120);
    assert_eq!(out.roll_rad, 0.0);
    assert_eq!(out.target_roll_rad, 0.0);
}

#[test]
fn bad_input_never_gives_nan() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let good = standing(&course, &world, "ramp_20deg", 4.0, 0.0, false);
    let mut stage = PelvisTilt::default();
    run(&mut stage, &good, 30);
    let before = *stage.filter_state();
    // dt ≤ 0 or non-finite: the filter state does not move.
    for dt_s in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let out = stage.update(&TiltInput { dt_s, ..good }, &NormalSourceChoice::Ground);
        assert_eq!(
            (out.pitch_rad, out.roll_rad),
            (before.pitch_rad, before.roll_rad)
        );
    }
    let bad_inputs = [
        TiltInput {
            facing_yaw_rad: f32::NAN,
            ..good
        },
        TiltInput {
            root_world: Vec3::INFINITY,
            ..good
        },
        TiltInput {
            pelvis_model: Vec3::NAN,
            ..good
        },
        TiltInput {
            pelvis_model: Vec3::new(0.0, -1.0, 0.0),
            ..good
        },
        TiltInput {
            feet_world: [Vec3::NAN, Vec3::NEG_INFINITY],
            ..good
        },
        TiltInput { dt_s: 1e30, ..good },
    ];
    for input in bad_inputs {
        let out = stage.update(&input, &NormalSourceChoice::Ground);
        for value in [
            out.pitch_rad,
            out.roll_rad,
            out.target_pitch_rad,
            out.target_roll_rad,
            out.slope_speed_scale,
        ] {
            assert!(value.is_finite(), "{input:?}");
        }
        assert!(out.pelvis_offset_model.is_finite() && out.filtered_normal_world.is_finite());
        assert!(out
            .frame
            .rays()
            .iter()
            .all(|r| r.origin_world.is_finite() && r.end_world.is_finite()));
    }
    // A garbage config is sanitized on use.
    let mut stage = PelvisTilt::new(TiltConfig {
        head_keep_fraction: f32::NAN,
        head_keep_fraction_aiming: 7.0,
        filter: TiltFilterConfig {
            normal_k_per_s: f32::NAN,
            max_target_rate_rad_per_s: -1.0,
            damping: TiltDamping::CriticalSpring {
                omega_per_s: f32::INFINITY,
            },
        },
        ..TiltConfig::default()
    });
    let out = run(&mut stage, &good, 10);
    assert!(out.pitch_rad.is_finite());
    assert_eq!(stage.head_keep_fraction(), DEFAULT_HEAD_KEEP_FRACTION);
    run(
        &mut stage,
        &TiltInput {
            aiming: true,
            ..good
        },
        1,
    );
    assert_eq!(stage.head_keep_fraction(), 1.0);
}

#[test]
fn head_keeps_its_fraction_less_while_aiming() {
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let mannequin = Mannequin::new();
    let skeleton = &mannequin.skeleton;
    let (pelvis, head) = (
        mannequin.bones.pelvis.unwrap(),
        mannequin.bones.head.unwrap(),
    );
    let spine_base = mannequin.bones.spine.first().copied();
    let mut rest_model = ModelPose::new(skeleton.num_joints());
    local_to_model(skeleton, &Pose::rest(skeleton), &mut rest_model).unwrap();
    let input = standing(&course, &world, "ramp_20deg", 4.0, 0.0, false);
    for (aiming, keep) in [(false, 0.1f32), (true, 0.0)] {
        let mut stage = PelvisTilt::default();
        run(&mut stage, &TiltInput { aiming, ..input }, 120);
        assert_eq!(stage.head_keep_fraction(), keep);
        let mut pose = Pose::rest(skeleton);
        stage
            .apply(
                skeleton,
                pelvis,
                spine_base,
                Some(head),
                &rest_model,
                &mut pose,
            )
            .unwrap();
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(skeleton, &pose, &mut model).unwrap();
        let rotation =
            |m: &ModelPose, j: usize| m.joints_model()[j].to_scale_rotation_translation().1;
        // Rest rotations are identity: the head's model rotation is what it kept.
        let pitch = |q: Quat| 2.0 * q.x.atan2(q.w);
        let head_pitch = pitch(rotation(&model, head));
        let pelvis_pitch = pitch(rotation(&model, pelvis));
        let chest_pitch = pitch(rotation(&model, spine_base.unwrap()));
        // Leaning into the 20° climb is a positive rotation about +X (left): the
        // trunk 8°, the pelvis half of it.
        assert!(
            (chest_pitch - 8f32.to_radians()).abs() < 1e-3,
            "{chest_pitch}"
        );
        assert!(
            (pelvis_pitch - 4f32.to_radians()).abs() < 1e-3,
            "{pelvis_pitch}"
        );
        assert!(
            (head_pitch - keep * chest_pitch).abs() < 1e-4,
            "aiming {aiming}: {head_pitch}"
        );
    }
    // Bad joints are errors, not panics.
    let stage = PelvisTilt::default();
    let mut pose = Pose::rest(skeleton);
    assert!(stage
        .apply(
            skeleton,
            999,
            spine_base,
            Some(head),
            &rest_model,
            &mut pose
        )
        .is_err());
}
