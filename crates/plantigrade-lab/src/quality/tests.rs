//! The metrics on hand-built traces with known answers.

use glam::{Quat, Vec3};

use super::csv::trace_csv_columns;
use super::*;
use plantigrade::ik::segment_distance_m;

const HZ: f32 = 60.0;

/// A foot on flat ground at height 0: heel at `(x, y, z)`, ball 0.15 m ahead, ankle above
/// the heel, fully in contact.
fn foot_at(x: f32, y: f32, z: f32) -> FootSample {
    FootSample {
        ankle_world: Vec3::new(x, y + 0.08, z),
        heel_world: Vec3::new(x, y, z),
        ball_world: Vec3::new(x, y, z + 0.15),
        ground_under_heel_m: Some(0.0),
        ground_under_ball_m: Some(0.0),
        ground_under_mid_m: Some(0.0),
        contact: 1.0,
        ik_alpha: 1.0,
        ..FootSample::default()
    }
}

/// A grounded tick `i` at `hz` with both feet planted on flat ground.
fn tick(i: usize, hz: f32) -> TickSample {
    TickSample {
        time_s: i as f32 / hz,
        state: "locomotion".into(),
        pelvis_world: Vec3::new(0.0, 0.95, 0.0),
        pelvis_rotation_world: Quat::IDENTITY,
        grounded: true,
        feet: [foot_at(0.1, 0.0, 0.0), foot_at(-0.1, 0.0, 0.0)],
        ..TickSample::default()
    }
}

fn trace(n: usize, hz: f32, mut edit: impl FnMut(usize, &mut TickSample)) -> Vec<TickSample> {
    (0..n)
        .map(|i| {
            let mut s = tick(i, hz);
            edit(i, &mut s);
            s
        })
        .collect()
}

fn assert_close(actual: f32, expected: f32, tolerance: f32, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: {actual} vs expected {expected}"
    );
}

#[test]
fn penetration_mean_and_max_are_exact() {
    // Both feet 10 mm under flat ground for 20 ticks.
    let samples = trace(20, HZ, |_, s| {
        s.feet = [foot_at(0.1, -0.010, 0.0), foot_at(-0.1, -0.010, 0.0)];
    });
    let q = foot_quality(&samples, HZ);
    assert_close(q.penetration_mean_mm, 10.0, 1e-4, "mean");
    assert_close(q.penetration_max_mm, 10.0, 1e-4, "max");

    // Left: heel 10 mm under, ball 4 mm under (deeper point counts); right 5 mm above
    // (counts 0). An airborne tick and an off-course foot, both deep, are skipped.
    let samples = trace(12, HZ, |i, s| {
        let mut left = foot_at(0.1, -0.010, 0.0);
        left.ball_world.y = -0.004;
        s.feet = [left, foot_at(-0.1, 0.005, 0.0)];
        if i == 5 {
            s.grounded = false;
            s.feet[0].heel_world.y = -0.5;
        }
        if i == 6 {
            s.feet[1] = foot_at(-0.1, -0.3, 0.0);
            s.feet[1].ground_under_heel_m = None;
            s.feet[1].ground_under_ball_m = None;
        }
    });
    let q = foot_quality(&samples, HZ);
    // 11 grounded ticks: 11 left foot-ticks at 10 mm, 10 right at 0 mm.
    assert_close(q.penetration_mean_mm, 110.0 / 21.0, 1e-4, "mixed mean");
    assert_close(q.penetration_max_mm, 10.0, 1e-4, "mixed max");
}

#[test]
fn penetration_is_the_depth_inside_the_ground_where_known() {
    // A toe 3 mm into a riser, 200 mm below the tread above it, for 10 ticks; the heel
    // on its tread. Penetration is the 3 mm depth; straight down it is 200 mm.
    let samples = trace(10, HZ, |_, s| {
        let mut left = foot_at(0.1, 0.0, 0.0);
        left.ground_under_ball_m = Some(0.2);
        left.heel_depth_m = Some(0.0);
        left.ball_depth_m = Some(0.003);
        s.feet[0] = left;
    });
    let q = foot_quality(&samples, HZ);
    assert_close(q.penetration_max_mm, 3.0, 1e-4, "depth max");
    assert_close(q.penetration_mean_mm, 1.5, 1e-4, "depth mean");
    assert_close(q.penetration_vertical_max_mm, 200.0, 1e-3, "vertical max");
    assert_close(q.penetration_vertical_mean_mm, 100.0, 1e-3, "vertical mean");
}

#[test]
fn step_footfalls_and_stances_across_an_edge_are_told_apart() {
    // The left foot lands on the floor, then ball first on a tread 0.2 m up, then heel
    // first on the next tread, then on a slope and off it onto the flat; the right foot stands once with its toes
    // over a nosing and once with its heel off a step up.
    let mut samples = Vec::new();
    let mut push = |n: usize, left: FootSample, right: FootSample| {
        for _ in 0..n {
            let mut s = tick(samples.len(), HZ);
            s.feet = [left, right];
            samples.push(s);
        }
    };
    let mut air = foot_at(0.1, 0.3, 0.0);
    air.contact = 0.0;
    air.ground_under_heel_m = None;
    air.ground_under_ball_m = None;
    let on = |y: f32| {
        let mut f = foot_at(0.1, y, 0.0);
        f.ground_under_heel_m = Some(y);
        f.ground_under_ball_m = Some(y);
        f.ground_under_mid_m = Some(y);
        f
    };
    let mut toes_over = foot_at(-0.1, 0.2, 0.0);
    (toes_over.ground_under_heel_m, toes_over.ground_under_ball_m) = (Some(0.2), Some(0.0));
    toes_over.ground_under_mid_m = Some(0.2);
    let mut heel_over = foot_at(-0.1, 0.2, 0.0);
    (heel_over.ground_under_heel_m, heel_over.ground_under_ball_m) = (Some(0.0), Some(0.2));
    heel_over.ground_under_mid_m = Some(0.2);
    // Down a slope: heel and ball 5 cm apart in height, the middle between them.
    let mut sloped = on(0.4);
    (sloped.ground_under_heel_m, sloped.ground_under_mid_m) = (Some(0.45), Some(0.425));
    let mut ball_first = on(0.2);
    ball_first.heel_world.y += 0.02;
    let mut heel_first = on(0.4);
    heel_first.ball_world.y += 0.02;
    push(10, on(0.0), toes_over);
    push(5, air, air);
    push(1, ball_first, air);
    push(10, on(0.2), heel_over);
    push(5, air, air);
    push(1, heel_first, air);
    push(10, on(0.4), air);
    push(5, air, air);
    push(10, sloped, air);
    // Off the slope, heel first onto the flat at its foot 0.2 m lower: no riser behind
    // it, not a step.
    let mut off_slope = on(0.2);
    off_slope.ball_world.y += 0.02;
    push(5, air, air);
    push(1, off_slope, air);
    push(10, on(0.2), air);
    let q = foot_quality(&samples, HZ);
    assert_eq!(q.step_landings, 2, "{q:?}");
    assert_eq!(q.step_landings_forefoot, 1, "{q:?}");
    assert_eq!(q.stances_toes_over_edge, 1, "{q:?}");
    assert_eq!(q.stances_heel_over_edge, 1, "{q:?}");
}

#[test]
fn segment_distances_are_exact_and_the_feet_minimum_is_taken() {
    let v = Vec3::new;
    // Skew lines 1 m apart, crossing in plan: the common perpendicular.
    let d = segment_distance_m(
        v(-1.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, -1.0),
        v(0.0, 1.0, 1.0),
    );
    assert!((d - 1.0).abs() < 1e-6, "{d}");
    // Parallel, offset along their length: end to end.
    let d = segment_distance_m(
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(2.0, 0.0, 0.0),
        v(3.0, 0.0, 0.0),
    );
    assert!((d - 1.0).abs() < 1e-6, "{d}");
    // A point against a segment, and two points.
    let d = segment_distance_m(
        v(0.5, 0.3, 0.0),
        v(0.5, 0.3, 0.0),
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
    );
    assert!((d - 0.3).abs() < 1e-6, "{d}");
    assert!((segment_distance_m(Vec3::ZERO, Vec3::ZERO, Vec3::X, Vec3::X) - 1.0).abs() < 1e-6);
    // Two feet 0.2 m apart, then one crossing the other: the minimum is 0.
    let samples = trace(10, HZ, |i, s| {
        let x = if i == 5 { 0.1 } else { -0.1 };
        s.feet = [foot_at(0.1, 0.0, 0.0), foot_at(x, 0.0, 0.05)];
    });
    let q = foot_quality(&samples, HZ);
    assert!(q.feet_min_distance_cm < 1e-3, "{}", q.feet_min_distance_cm);
    let samples = trace(10, HZ, |_, s| {
        s.feet = [foot_at(0.1, 0.0, 0.0), foot_at(-0.1, 0.0, 0.0)];
    });
    assert!((foot_quality(&samples, HZ).feet_min_distance_cm - 20.0).abs() < 1e-3);
}

#[test]
fn float_mean_and_p95_over_stance() {
    // Left stance: 10 ticks at 3 mm then 10 at 20 mm (heel is the lower point; ball 8 mm
    // higher). Right foot in swing (contact 0) far above ground: not stance.
    let samples = trace(20, HZ, |i, s| {
        let height = if i < 10 { 0.003 } else { 0.020 };
        let mut left = foot_at(0.1, height, 0.0);
        left.ball_world.y += 0.008;
        let mut right = foot_at(-0.1, 0.2, 0.0);
        right.contact = 0.0;
        s.feet = [left, right];
    });
    let q = foot_quality(&samples, HZ);
    assert_close(q.float_mean_mm, 11.5, 1e-4, "mean");
    // rank 0.95·19 = 18.05 between two 20 mm values.
    assert_close(q.float_p95_mm, 20.0, 1e-4, "p95");

    // 39 ticks at 3 mm and one outlier at 20 mm: the mean sees it, the p95 does not
    // (rank 0.95·39 = 37.05 lands between two 3 mm values).
    let samples = trace(40, HZ, |i, s| {
        let height = if i == 7 { 0.020 } else { 0.003 };
        let mut right = foot_at(-0.1, 0.2, 0.0);
        right.contact = 0.0;
        s.feet = [foot_at(0.1, height, 0.0), right];
    });
    let q = foot_quality(&samples, HZ);
    assert_close(
        q.float_mean_mm,
        (39.0 * 3.0 + 20.0) / 40.0,
        1e-4,
        "outlier mean",
    );
    assert_close(q.float_p95_mm, 3.0, 1e-4, "outlier p95");

    // 0, 1, …, 10 mm: rank 0.95·10 = 9.5 interpolates halfway between 9 and 10 mm.
    let samples = trace(11, HZ, |i, s| {
        let mut right = foot_at(-0.1, 0.2, 0.0);
        right.contact = 0.0;
        s.feet = [foot_at(0.1, 0.001 * i as f32, 0.0), right];
    });
    let q = foot_quality(&samples, HZ);
    assert_close(q.float_mean_mm, 5.0, 1e-4, "ramp mean");
    assert_close(q.float_p95_mm, 9.5, 1e-4, "ramp p95");
}

#[test]
fn stance_falls_back_to_speed_without_a_contact_curve() {
    // No contact curve (NaN): the left foot stands still 5 mm up (stance), the right one
    // slides at 1 m/s 5 mm up (not stance) — only the left one's float counts.
    let samples = trace(10, HZ, |i, s| {
        let mut left = foot_at(0.1, 0.005, 0.0);
        let mut right = foot_at(-0.1, 0.040, i as f32 / HZ);
        left.contact = f32::NAN;
        right.contact = f32::NAN;
        s.feet = [left, right];
    });
    let q = foot_quality(&samples, HZ);
    assert_close(q.float_mean_mm, 5.0, 1e-4, "float from the still foot only");
    assert_eq!(q.stances, 1);
    assert_close(q.float_p95_mm, 5.0, 1e-4, "p95");
}

#[test]
fn planted_drift_is_the_largest_horizontal_travel_per_stance() {
    // Left foot: stance A (ticks 0..10) whose ball slides out 12 mm along +X and comes back
    // to 4 mm, rising 5 mm (vertical travel is not drift); swing 10..15; stance B
    // (15..21) still; swing 21..23; a 2-tick stance (23..25) sliding 50 mm: ignored.
    // Right foot always in swing.
    let samples = trace(25, HZ, |i, s| {
        let mut left = foot_at(0.1, 0.0, 0.0);
        match i {
            0..=9 => {
                let out_mm = if i <= 6 {
                    2.0 * i as f32
                } else {
                    12.0 - 4.0 * (i - 6) as f32
                };
                left.ball_world.x += out_mm / 1000.0;
                left.ball_world.y += 0.0005 * i as f32;
            }
            10..=14 | 21..=22 => left.contact = 0.0,
            15..=20 => {}
            _ => left.ball_world.x += 0.050 * (i - 23) as f32,
        }
        let mut right = foot_at(-0.1, 0.1, 0.0);
        right.contact = 0.0;
        s.feet = [left, right];
    });
    let q = foot_quality(&samples, HZ);
    assert_eq!(q.stances, 2);
    assert_close(q.planted_drift_max_mm, 12.0, 1e-3, "max");
    assert_close(q.planted_drift_mean_mm, 6.0, 1e-3, "mean");
}

#[test]
fn a_heel_against_a_riser_is_not_a_planted_heel() {
    // A foot coming down a flight, its contact already up: its heel scrapes 4 cm forward
    // down the riser behind it, 2 cm into it and 10 cm under the tread above, then the
    // foot settles on its own tread, the ball still. Only the settled ticks are drift.
    // The heel at `heel_y` over its first 4 ticks, `ground_y` under it, 2 cm deep in the
    // surface nearest it, sliding 1 cm a tick; then settled on its tread, 4 cm on.
    let drift_mm = |heel_y: f32, ground_y: f32| {
        let samples = trace(10, HZ, |i, s| {
            let mut left = foot_at(0.1, 0.0, 0.0);
            if i < 4 {
                left.heel_world.z += 0.01 * i as f32;
                left.heel_world.y = heel_y;
                left.ground_under_heel_m = Some(ground_y);
                left.heel_depth_m = Some(0.02);
            } else {
                left.heel_world.z += 0.04;
            }
            s.feet[0] = left;
        });
        foot_quality(&samples, HZ).planted_drift_max_mm
    };
    assert_close(drift_mm(0.1, 0.2), 0.0, 1e-4, "against the riser");
    // Pressed 2 cm into its own tread, the same slide is drift.
    assert_close(drift_mm(-0.02, 0.0), 40.0, 1e-3, "pressed into its tread");
}

#[test]
fn skate_ratio_counts_low_fast_foot_intervals() {
    // Left foot slides at 1 m/s along +Z 2 cm up, right foot stands: 10 of 20 intervals.
    let samples = trace(11, HZ, |i, s| {
        s.feet[0] = foot_at(0.1, 0.02, i as f32 / HZ);
        s.feet[1] = foot_at(-0.1, 0.02, 0.0);
    });
    let q = foot_quality(&samples, HZ);
    assert_eq!(q.skate_ratio, 0.5);
    // Both feet are in stance (contact 1): the stance share is the same 10 of 20.
    assert_eq!(q.skate_ratio_stance, 0.5);
    // Marked as swinging (contact 0), the slide still counts in the GMD ratio but
    // not in the stance one.
    let samples = trace(11, HZ, |i, s| {
        s.feet[0] = foot_at(0.1, 0.02, i as f32 / HZ);
        s.feet[0].contact = 0.0;
        s.feet[1] = foot_at(-0.1, 0.02, 0.0);
    });
    let q = foot_quality(&samples, HZ);
    assert_eq!(q.skate_ratio, 0.5);
    assert_eq!(q.skate_ratio_stance, 0.0);

    // The same slide 6 cm up is a swing, not a skate.
    let samples = trace(11, HZ, |i, s| s.feet[0] = foot_at(0.1, 0.06, i as f32 / HZ));
    assert_eq!(foot_quality(&samples, HZ).skate_ratio, 0.0);

    // A single 2 cm pop (1.2 m/s for one interval) fails the 5-frame average.
    let samples = trace(11, HZ, |i, s| {
        if i >= 5 {
            s.feet[0] = foot_at(0.12, 0.0, 0.0);
        }
    });
    assert_eq!(foot_quality(&samples, HZ).skate_ratio, 0.0);
}

#[test]
fn jerk_of_a_cubic_is_six() {
    // p = t³ at 8 Hz: t = i/8 makes every t³ exact in f32, so Δ³·f³ is exactly 6.
    let hz = 8.0;
    let cube = |i: usize| (i as f32 / hz).powi(3);
    let samples = trace(16, hz, |i, s| {
        s.feet[0].ankle_world = Vec3::new(cube(i), 0.08, 0.0);
        s.pelvis_world = Vec3::new(0.0, 0.95 + cube(i), 0.5 * i as f32 / hz);
    });
    let q = foot_quality(&samples, hz);
    // Pooled: 13 windows at 6 (left) and 13 at 0 (right, still): RMS = 6/√2.
    assert_close(q.foot_jerk_rms, 6.0 / 2f32.sqrt(), 1e-5, "foot");
    // The pelvis's constant forward speed adds no jerk.
    assert_close(q.pelvis_jerk_rms, 6.0, 1e-5, "pelvis");

    // At 60 Hz the cubic's values round in f32; f64 differences keep it close to 6.
    let samples = trace(60, HZ, |i, s| {
        s.pelvis_world = Vec3::splat((i as f32 / HZ).powi(3));
    });
    let q = foot_quality(&samples, HZ);
    assert_close(
        q.pelvis_jerk_rms,
        6.0 * 3f32.sqrt(),
        0.05,
        "60 Hz, on three axes",
    );
    assert_eq!(q.foot_jerk_rms, 0.0);
}

#[test]
fn jerk_agrees_across_tick_rates() {
    // Pelvis bobbing 5 cm at 1 Hz over 2 s: jerk RMS = A·(2π)³/√2 ≈ 8.77 m/s³ at any rate
    // (ROB-4 compares 30, 60 and 144 Hz).
    let expected = 0.05 * std::f32::consts::TAU.powi(3) / 2f32.sqrt();
    for hz in [30.0, 60.0, 144.0] {
        let n = (2.0 * hz) as usize;
        let samples = trace(n, hz, |i, s| {
            let t = i as f32 / hz;
            s.pelvis_world.y = 0.95 + 0.05 * (std::f32::consts::TAU * t).sin();
        });
        let jerk = foot_quality(&samples, hz).pelvis_jerk_rms;
        assert_close(jerk, expected, 0.03 * expected, &format!("{hz} Hz"));
    }
}

#[test]
fn steps_alternate_after_a_landing() {
    let contact = |l: f32, r: f32| {
        let mut s = TickSample::default();
        s.feet[0].contact = l;
        s.feet[1].contact = r;
        s
    };
    // Left planted at touch-down, then right, then left: alternate from step 1.
    let walk = [
        contact(1.0, 0.0),
        contact(1.0, 1.0),
        contact(0.0, 1.0),
        contact(1.0, 1.0),
    ];
    assert_eq!(steps_to_alternate(&walk), Some(1));
    // The left foot comes down twice before the right does: alternation starts at the
    // second step; without the right foot's step it never does.
    let hop = [
        contact(0.0, 0.0),
        contact(1.0, 0.0),
        contact(0.0, 0.0),
        contact(1.0, 0.0),
        contact(0.0, 0.0),
        contact(0.0, 1.0),
    ];
    assert_eq!(steps_to_alternate(&hop), Some(2));
    assert_eq!(steps_to_alternate(&hop[..5]), None);
    assert_eq!(steps_to_alternate(&[]), None);
}

#[test]
fn events_and_nan_count_add_up() {
    let samples = trace(10, HZ, |i, s| {
        s.knee_flips = u32::from(i == 2);
        s.reach_clamps = if i == 3 { 4 } else { 0 };
        s.non_finite = i == 4;
        if i == 5 {
            s.feet[1].ankle_world.x = f32::NAN;
            s.pelvis_world.y = f32::INFINITY;
        }
    });
    let q = foot_quality(&samples, HZ);
    assert_eq!(
        (q.knee_flips, q.reach_clamps, q.nan_count, q.ticks),
        (1, 4, 2, 10)
    );
    // The non-finite tick is skipped, not propagated.
    let json = serde_json::to_value(q).unwrap();
    for (key, value) in json.as_object().unwrap() {
        assert!(value.as_f64().unwrap().is_finite(), "{key} = {value}");
    }
    assert_eq!(q.foot_jerk_rms, 0.0);
    assert_eq!(q.pelvis_jerk_rms, 0.0);
}

#[test]
fn pelvis_and_tilt_angular_velocity_of_constant_rates() {
    // Pelvis yaws at 90°/s; the tilt pitches at 30°/s.
    let samples = trace(61, HZ, |i, s| {
        let t = i as f32 / HZ;
        s.pelvis_rotation_world = Quat::from_rotation_y(90f32.to_radians() * t);
        s.tilt_pitch_rad = 30f32.to_radians() * t;
    });
    let q = tilt_quality(&samples, HZ, DEFAULT_SETTLE_S);
    assert_close(q.pelvis_angvel_rms_deg_s, 90.0, 1e-2, "pelvis");
    assert_close(q.tilt_angvel_rms_deg_s, 30.0, 1e-2, "tilt");
    // A constant rate has no jerk.
    assert_close(q.tilt_jitter_deg_s3, 0.0, 1.0, "jitter");

    // The tilt rolls at 20°/s instead; the pelvis stays put. Quaternion sign flips do not
    // count as motion.
    let samples = trace(61, HZ, |i, s| {
        s.tilt_roll_rad = 20f32.to_radians() * i as f32 / HZ;
        if i % 2 == 1 {
            s.pelvis_rotation_world = -Quat::IDENTITY;
        }
    });
    let q = tilt_quality(&samples, HZ, DEFAULT_SETTLE_S);
    assert_close(q.pelvis_angvel_rms_deg_s, 0.0, 1e-3, "pelvis still");
    assert_close(q.tilt_angvel_rms_deg_s, 20.0, 1e-2, "roll");
}

#[test]
fn tilt_error_is_judged_after_the_settle() {
    // Truth: 10° up the slope from tick 0. The tilt starts flat (wildly wrong) and from
    // tick 18 (= 0.3 s at 60 Hz) alternates 11.5° / 12.5°, roll 0.5° against truth 0.
    // The head ends 1° off its animation.
    let samples = trace(60, HZ, |i, s| {
        s.ground_pitch_rad = Some(10f32.to_radians());
        s.ground_roll_rad = Some(0.0);
        if i >= 18 {
            let pitch_deg = if i % 2 == 0 { 11.5 } else { 12.5 };
            s.tilt_pitch_rad = f32::to_radians(pitch_deg);
            s.tilt_roll_rad = 0.5f32.to_radians();
            s.head_pitch_world_rad = 1f32.to_radians();
        } else {
            s.head_pitch_world_rad = 30f32.to_radians();
        }
    });
    let q = tilt_quality(&samples, HZ, DEFAULT_SETTLE_S);
    assert_eq!(q.settled_ticks, 42);
    assert_close(q.tilt_pitch_error_deg, 2.0, 1e-4, "pitch mean");
    assert_close(q.tilt_pitch_error_max_deg, 2.5, 1e-4, "pitch max");
    assert_close(q.tilt_roll_error_deg, 0.5, 1e-4, "roll mean");
    assert_close(q.tilt_roll_error_max_deg, 0.5, 1e-4, "roll max");
    assert_close(q.tilt_pitch_p2p_deg, 1.0, 1e-4, "p2p");
    assert_close(q.head_pitch_dev_deg, 1.0, 1e-4, "head");
    assert_close(
        q.head_pitch_dev_ratio.unwrap(),
        1.0 / 12.0,
        1e-5,
        "head ratio",
    );
    // Δ³ of a ±0.5° alternation is ±4°: jitter = 4·60³ over the settled part (39 of 57
    // windows), the step at tick 18 adds more.
    assert!(q.tilt_jitter_deg_s3 > 4.0 * 60f32.powi(3) * (39f32 / 57.0).sqrt());
}

#[test]
fn a_new_slope_or_a_jump_restarts_the_settle() {
    // 10° for 30 ticks, then 20° (a jump > 1°: 12 + 12 settled ticks). Half a degree of
    // truth wobble stays within the stretch. An airborne tick at 45 restarts it again.
    let samples = trace(80, HZ, |i, s| {
        let truth_deg = if i < 30 {
            10.0 + 0.5 * (i % 2) as f32
        } else {
            20.0
        };
        s.ground_pitch_rad = Some(truth_deg.to_radians());
        s.ground_roll_rad = Some(0.0);
        s.tilt_pitch_rad = truth_deg.to_radians();
        s.grounded = i != 45;
    });
    let q = tilt_quality(&samples, HZ, DEFAULT_SETTLE_S);
    // Stretches: 0..30 → ticks 18..30 (12); 30..45 → none; 46..80 → 64..80 (16).
    assert_eq!(q.settled_ticks, 12 + 16);
    assert_close(q.tilt_pitch_error_deg, 0.0, 1e-4, "tracks exactly");
    // p2p is per stretch: the 0.5° wobble, not the 10° between the slopes.
    assert_close(q.tilt_pitch_p2p_deg, 0.5, 1e-4, "p2p");
    // No truth (flat, off a measured slope) ⇒ nothing is settled, the ratio is None.
    let flat = trace(80, HZ, |_, _| {});
    let q = tilt_quality(&flat, HZ, DEFAULT_SETTLE_S);
    assert_eq!(q.settled_ticks, 0);
    assert_eq!(q.head_pitch_dev_ratio, None);
}

#[test]
fn empty_short_and_bad_rate_inputs_give_finite_zeros() {
    let one = trace(1, HZ, |_, s| s.feet[0].contact = f32::NAN);
    let two = trace(2, HZ, |_, _| {});
    let cases: [(&[TickSample], f32); 6] = [
        (&[], HZ),
        (&one, HZ),
        (&two, HZ),
        (&two, 0.0),
        (&two, f32::NAN),
        (&two, -60.0),
    ];
    for (samples, hz) in cases {
        let foot = foot_quality(samples, hz);
        let tilt = tilt_quality(samples, hz, f32::NAN);
        for json in [
            serde_json::to_value(foot).unwrap(),
            serde_json::to_value(tilt).unwrap(),
        ] {
            for (key, value) in json.as_object().unwrap() {
                let finite = value.is_null() || value.as_f64().is_some_and(f64::is_finite);
                assert!(
                    finite,
                    "{key} = {value} for {} ticks at {hz} Hz",
                    samples.len()
                );
            }
        }
        assert_eq!(foot.ticks, samples.len() as u64);
        assert_eq!(foot.skate_ratio, 0.0);
        assert_eq!(tilt.head_pitch_dev_ratio, None);
    }
    assert_eq!(foot_quality(&[], HZ), FootQuality::default());
    assert_eq!(tilt_quality(&[], HZ, 0.3), TiltQuality::default());
}

/// Splits one CSV line, honouring RFC 4180 quotes.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[test]
fn trace_csv_round_trips_columns() {
    let samples = trace(7, HZ, |i, s| {
        s.root_world = Vec3::new(0.1 * i as f32, 0.0, 1.0 / 3.0);
        s.feet[0].ground_under_heel_m = (i != 3).then_some(0.01 * i as f32 - 0.025);
        s.feet[1].contact = f32::NAN;
        s.feet[1].predicted_landing_world = (i == 2).then_some(Vec3::new(1.5, 0.25, -2.0));
        s.tilt_pitch_rad = 0.1;
        s.ground_pitch_rad = (i > 4).then_some(0.2);
        s.knee_flips = i as u32;
        if i == 6 {
            s.state = "jump, \"land\"".into();
        }
    });
    let dir = std::env::temp_dir().join(format!("plantigrade-quality-{}", std::process::id()));
    let path = dir.join("nested").join("trace.csv");
    write_trace_csv(&path, &samples).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), samples.len() + 1);
    let header = split_csv(lines[0]);
    assert_eq!(header, trace_csv_columns());
    let rows: Vec<Vec<String>> = lines[1..].iter().map(|l| split_csv(l)).collect();
    assert!(rows.iter().all(|r| r.len() == header.len()));
    let column = |name: &str| {
        let at = header.iter().position(|h| h == name).unwrap();
        rows.iter().map(move |r| r[at].clone()).collect::<Vec<_>>()
    };

    let parse = |s: &String| (!s.is_empty()).then(|| s.parse::<f32>().unwrap());
    let heel_ground: Vec<Option<f32>> = column("l_ground_heel_m").iter().map(parse).collect();
    let expected: Vec<Option<f32>> = samples
        .iter()
        .map(|s| s.feet[0].ground_under_heel_m)
        .collect();
    assert_eq!(heel_ground, expected);
    let root_z: Vec<f32> = column("root_z")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(root_z.iter().all(|z| *z == 1.0 / 3.0));
    let time: Vec<f32> = column("time_s")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(time, samples.iter().map(|s| s.time_s).collect::<Vec<_>>());
    assert!(column("r_contact")
        .iter()
        .all(|c| c.parse::<f32>().unwrap().is_nan()));
    assert_eq!(column("r_pred_z")[2], "-2");
    assert_eq!(column("r_pred_x")[3], "");
    assert_eq!(column("ground_pitch_deg")[4], "");
    let tilt: f32 = column("tilt_pitch_deg")[0].parse().unwrap();
    assert_close(tilt, 0.1f32.to_degrees(), 1e-5, "degrees");
    assert_eq!(column("knee_flips")[5], "5");
    assert_eq!(column("grounded")[0], "1");
    assert_eq!(column("state")[6], "jump, \"land\"");
    assert_eq!(column("state")[0], "locomotion");
}

#[test]
fn pose_csv_has_every_joint_per_tick_and_empty_fields_without_a_pose() {
    let names: Vec<String> = ["pelvis", "foot,l"].map(String::from).to_vec();
    let samples = trace(3, HZ, |i, s| {
        s.joints_world = if i == 1 {
            Vec::new()
        } else {
            vec![
                Vec3::new(i as f32, 1.0, 2.0),
                Vec3::new(0.5, 0.25, -1.0 / 3.0),
            ]
        };
    });
    let dir = std::env::temp_dir().join(format!("plantigrade-pose-{}", std::process::id()));
    let path = dir.join("pose.csv");
    write_pose_csv(&path, &samples, &names).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let rows: Vec<Vec<String>> = text.lines().map(split_csv).collect();
    assert_eq!(rows.len(), samples.len() + 1);
    assert_eq!(
        rows[0],
        ["time_s", "pelvis_x", "pelvis_y", "pelvis_z", "foot,l_x", "foot,l_y", "foot,l_z"]
    );
    assert!(rows.iter().all(|r| r.len() == 7));
    assert_eq!(rows[3][1], "2");
    assert_eq!(rows[1][6].parse::<f32>().unwrap(), -1.0 / 3.0);
    // The tick without a pose: its time, and nothing else.
    assert!(!rows[2][0].is_empty());
    assert!(rows[2][1..].iter().all(String::is_empty));
}
