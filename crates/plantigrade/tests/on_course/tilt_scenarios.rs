//! The tilt stage driven over the test course with [`AnalyticWorld`] (from the core's `tilt`
//! unit tests): the root moves along a section at a steady speed with its height on the
//! analytic ground, the feet swing ±0.3 m fore and aft around it (0.1 m to each side), and
//! the stage ticks at a fixed rate.

use glam::Vec3;

use plantigrade::tilt::*;
use plantigrade::world::QueryFilter;
use plantigrade_course::{AnalyticWorld, Course, Shape};

const PELVIS_MODEL: Vec3 = Vec3::new(0.0, 0.93, 0.0);
/// Distance (m) of one full gait cycle: feet at ±0.3 m, so 0.6 m per step.
const STRIDE_M: f32 = 1.2;

/// One tick of a run.
#[derive(Clone, Copy, Debug)]
struct Tick {
    /// Distance travelled from the start (m).
    s_m: f32,
    pitch_rad: f32,
    roll_rad: f32,
    case: FrameCase,
    /// Angular speed of the applied pelvis offset since the previous tick (rad/s).
    angular_speed_rad_per_s: f32,
}

/// Drives a stage along `section` (reversed: from its end back to the spawn, facing the
/// other way) at `speed_mps` and `hz`.
fn drive(
    course: &Course,
    section: &str,
    speed_mps: f32,
    hz: f32,
    reversed: bool,
    config: TiltConfig,
) -> Vec<Tick> {
    let world = AnalyticWorld::new(course);
    let section = course.section(section).expect("section exists");
    let (start, direction) = if reversed {
        (section.end_world(), -section.direction_world)
    } else {
        (section.spawn_world, section.direction_world)
    };
    let yaw = direction.x.atan2(direction.z);
    let left = Vec3::new(yaw.cos(), 0.0, -yaw.sin());
    let dt = 1.0 / hz;
    let ticks = (section.length_m / speed_mps * hz).floor() as usize;
    let mut stage = PelvisTilt::new(config);
    let mut previous = glam::Quat::IDENTITY;
    let mut out = Vec::with_capacity(ticks);
    for k in 1..=ticks {
        let s_m = speed_mps * k as f32 * dt;
        let mut root = start + direction * s_m;
        root.y = course
            .ground_height(root.x, root.z)
            .expect("ground on the lane");
        let swing = 0.3 * (std::f32::consts::TAU * s_m / STRIDE_M).sin();
        let feet = [
            root + direction * swing + left * 0.1,
            root - direction * swing - left * 0.1,
        ];
        let input = TiltInput {
            world: &world,
            filter: QueryFilter::GROUND,
            root_world: root,
            facing_yaw_rad: yaw,
            pelvis_model: PELVIS_MODEL,
            feet_world: feet,
            grounded: true,
            aiming: false,
            dt_s: dt,
        };
        let output = stage.update(&input, &NormalSourceChoice::Ground);
        assert!(output.pitch_rad.is_finite() && output.roll_rad.is_finite());
        // The filtered ground frame's rotation: the filter is what must be frame-rate
        // independent (the posture is a fixed function of it).
        let frame =
            plantigrade::tilt::pelvis_tilt_rotation_model(output.pitch_rad, output.roll_rad);
        let angular_speed_rad_per_s = previous.angle_between(frame) / dt;
        previous = frame;
        out.push(Tick {
            s_m,
            pitch_rad: output.pitch_rad,
            roll_rad: output.roll_rad,
            case: output.frame.case,
            angular_speed_rad_per_s,
        });
    }
    out
}

fn rms_angular_speed(ticks: &[Tick], from_m: f32, to_m: f32) -> f32 {
    let window: Vec<f32> = ticks
        .iter()
        .filter(|t| t.s_m >= from_m && t.s_m <= to_m)
        .map(|t| t.angular_speed_rad_per_s)
        .collect();
    assert!(!window.is_empty());
    (window.iter().map(|w| w * w).sum::<f32>() / window.len() as f32).sqrt()
}

fn in_window(ticks: &[Tick], from_m: f32, to_m: f32) -> Vec<Tick> {
    let window: Vec<Tick> = ticks
        .iter()
        .copied()
        .filter(|t| t.s_m >= from_m && t.s_m <= to_m)
        .collect();
    assert!(window.len() >= 3, "window {from_m}..{to_m} too short");
    window
}

fn mean(values: impl Iterator<Item = f32>) -> f32 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n as f32
}

/// Riser and tread of the (first) flight of a section, from the course data.
fn flight_of(course: &Course, section: &str) -> (f32, f32, f32, f32) {
    let section = course.section(section).unwrap();
    section
        .primitives
        .iter()
        .find_map(|p| match p.shape {
            Shape::Stairs {
                start_world,
                step_count,
                riser_m,
                tread_m,
                ..
            } => Some((
                riser_m,
                tread_m,
                start_world.z - section.spawn_world.z,
                step_count as f32 * tread_m,
            )),
            _ => None,
        })
        .unwrap()
}

/// Horizontal length (m) and start distance from the spawn of a section's first ramp.
fn ramp_of(course: &Course, section: &str) -> (f32, f32) {
    let section = course.section(section).unwrap();
    section
        .primitives
        .iter()
        .find_map(|p| match p.shape {
            Shape::Ramp {
                center_xz_world,
                half_length_m,
                ..
            } => Some((
                2.0 * half_length_m,
                center_xz_world.y - half_length_m - section.spawn_world.z,
            )),
            _ => None,
        })
        .unwrap()
}

/// Settle time (s) after every ray is on a uniform surface before the error is measured
/// (QUAL-6 uses 0.3 s).
const SETTLE_S: f32 = 0.3;

#[test]
fn ramps_and_cross_slope_settle_within_two_degrees() {
    let course = Course::default_course();
    let speed = 1.5;
    for (name, angle_deg) in [
        ("ramp_10deg", 10.0f32),
        ("ramp_20deg", 20.0),
        ("ramp_30deg", 30.0),
    ] {
        let (length, start) = ramp_of(&course, name);
        let ticks = drive(&course, name, speed, 60.0, false, TiltConfig::default());
        // Up the ramp, then down the second one after the 2 m platform. The feet reach
        // 0.3 m either side of the root: all rays are on the ramp from start + 0.3 m.
        let up_from = start + 0.3 + speed * SETTLE_S;
        let up_to = start + length - 0.3;
        let down_from = start + length + 2.0 + 0.3 + speed * SETTLE_S;
        let down_to = start + 2.0 * length + 2.0 - 0.3;
        let mut worst = 0f32;
        for (from, to, sign) in [(up_from, up_to, 1.0), (down_from, down_to, -1.0)] {
            for t in in_window(&ticks, from, to) {
                let error = (t.pitch_rad - sign * angle_deg.to_radians()).abs();
                worst = worst.max(error);
                assert!(t.roll_rad.abs() < 1e-3, "{name}: roll {}", t.roll_rad);
                assert_eq!(t.case, FrameCase::Plane, "{name} at {}", t.s_m);
            }
        }
        println!(
            "{name}: worst settled pitch error {:.2}°",
            worst.to_degrees()
        );
        assert!(worst.to_degrees() <= 2.0, "{name}: {}°", worst.to_degrees());
    }

    // The cross-slope rises toward +X, the character's left when walking along +Z: roll
    // +20°, pitch 0, for z 3–9 (s 2–8).
    let ticks = drive(
        &course,
        "cross_slope_20deg",
        speed,
        60.0,
        false,
        TiltConfig::default(),
    );
    let mut worst = 0f32;
    for t in in_window(&ticks, 2.0 + 0.3 + speed * SETTLE_S, 8.0 - 0.3) {
        worst = worst.max((t.roll_rad - 20f32.to_radians()).abs());
        worst = worst.max(t.pitch_rad.abs());
    }
    println!(
        "cross_slope_20deg: worst settled error {:.2}°",
        worst.to_degrees()
    );
    assert!(worst.to_degrees() <= 2.0, "{}°", worst.to_degrees());
}

#[test]
fn stairs_pitch_with_the_flight_not_the_risers() {
    let course = Course::default_course();
    for name in ["stairs_15cm", "stairs_20cm"] {
        let (riser, tread, start, run) = flight_of(&course, name);
        let flight_rad = (riser / tread).atan();
        for speed in [1.5f32, 3.5] {
            for reversed in [false, true] {
                let ticks = drive(&course, name, speed, 60.0, reversed, TiltConfig::default());
                let length = course.section(name).unwrap().length_m;
                // Up flight [start, start + run], landing 2 m, down flight after it; walking
                // the section backwards swaps the order.
                let flights = [(start, 1.0f32), (start + run + 2.0, -1.0)];
                for (flight_start, sign) in flights {
                    let (from, to, sign) = if reversed {
                        (length - (flight_start + run), length - flight_start, -sign)
                    } else {
                        (flight_start, flight_start + run, sign)
                    };
                    // Settled: from 0.3 s after the first riser, to the last riser.
                    let window = in_window(&ticks, from + speed * SETTLE_S, to - tread);
                    let expected = sign * flight_rad;
                    let worst = window
                        .iter()
                        .map(|t| (t.pitch_rad - expected).abs())
                        .fold(0f32, f32::max);
                    let max = window.iter().map(|t| t.pitch_rad).fold(f32::MIN, f32::max);
                    let min = window.iter().map(|t| t.pitch_rad).fold(f32::MAX, f32::min);
                    let stairs_share = window
                        .iter()
                        .filter(|t| t.case == FrameCase::Stairs)
                        .count() as f32
                        / window.len() as f32;
                    println!(
                        "{name} {speed} m/s {} {}: flight {:+.1}°, worst error {:.2}°, \
                         peak-to-peak {:.2}°, stairs case {:.0} %",
                        if reversed { "backward" } else { "forward" },
                        if sign > 0.0 { "up" } else { "down" },
                        expected.to_degrees(),
                        worst.to_degrees(),
                        (max - min).to_degrees(),
                        stairs_share * 100.0
                    );
                    assert!(
                        worst.to_degrees() <= 3.0,
                        "{name} {speed} {reversed} {sign}"
                    );
                    assert!((max - min).to_degrees() <= 3.0);
                    assert_eq!(stairs_share, 1.0);
                }
            }
        }
    }
}

#[test]
fn course_runs_are_frame_rate_independent() {
    let course = Course::default_course();
    let speed = 1.5;
    for name in ["ramp_20deg", "cross_slope_20deg", "stairs_20cm", "pebbles"] {
        let runs: Vec<(f32, Vec<Tick>)> = [30.0, 60.0, 144.0]
            .into_iter()
            .map(|hz| {
                (
                    hz,
                    drive(&course, name, speed, hz, false, TiltConfig::default()),
                )
            })
            .collect();
        // Settled windows: on the feature, after the settle time.
        let window = match name {
            "ramp_20deg" => {
                let (length, start) = ramp_of(&course, name);
                (start + 0.3 + speed * SETTLE_S, start + length - 0.3)
            }
            "stairs_20cm" => {
                let (_, tread, start, run) = flight_of(&course, name);
                (start + speed * SETTLE_S, start + run - tread)
            }
            _ => (2.0 + 0.3 + speed * SETTLE_S, 8.0 - 0.3),
        };
        let length = course.section(name).unwrap().length_m;
        let figures: Vec<(f32, f32, f32, f32)> = runs
            .iter()
            .map(|(hz, ticks)| {
                let settled = in_window(ticks, window.0, window.1);
                let pitch = mean(settled.iter().map(|t| t.pitch_rad));
                let roll = mean(settled.iter().map(|t| t.roll_rad));
                let rms = rms_angular_speed(ticks, 0.0, length);
                println!(
                    "{name} at {hz} Hz: settled pitch {:+.2}°, roll {:+.2}°, RMS angular \
                     speed {:.2}°/s",
                    pitch.to_degrees(),
                    roll.to_degrees(),
                    rms.to_degrees()
                );
                (*hz, pitch, roll, rms)
            })
            .collect();
        let reference = figures[2];
        for &(hz, pitch, roll, rms) in &figures[..2] {
            // Within 10 % of the 144 Hz figure (or 0.2° when the figure is near zero).
            let close = |a: f32, b: f32| (a - b).abs() <= (0.1 * b.abs()).max(0.2f32.to_radians());
            assert!(close(pitch, reference.1), "{name} {hz} Hz pitch");
            assert!(close(roll, reference.2), "{name} {hz} Hz roll");
            assert!(
                (rms - reference.3).abs() <= 0.1 * reference.3,
                "{name} {hz} Hz RMS {} vs {}",
                rms.to_degrees(),
                reference.3.to_degrees()
            );
        }
    }
}

#[test]
fn pebbles_filtering_cuts_the_angular_speed() {
    let course = Course::default_course();
    let raw_filter = TiltFilterConfig {
        normal_k_per_s: f32::INFINITY,
        max_target_rate_rad_per_s: f32::INFINITY,
        damping: TiltDamping::Exponential {
            k_per_s: f32::INFINITY,
        },
    };
    let raw = TiltConfig {
        filter: raw_filter,
        stairs_filter: raw_filter,
        ..TiltConfig::default()
    };
    for hz in [60.0, 144.0] {
        let filtered = drive(&course, "pebbles", 1.5, hz, false, TiltConfig::default());
        let unfiltered = drive(&course, "pebbles", 1.5, hz, false, raw);
        // The bump field spans z 3–9: s 2–8.
        let rms_filtered = rms_angular_speed(&filtered, 2.0, 8.0);
        let rms_raw = rms_angular_speed(&unfiltered, 2.0, 8.0);
        println!(
            "pebbles at {hz} Hz: RMS angular speed filtered {:.1}°/s, raw {:.1}°/s, ratio {:.1}",
            rms_filtered.to_degrees(),
            rms_raw.to_degrees(),
            rms_raw / rms_filtered
        );
        assert!(rms_raw >= 3.0 * rms_filtered);
        // The bumps are never taken for stairs.
        assert!(filtered.iter().all(|t| t.case != FrameCase::Stairs));
    }
}

#[test]
fn beam_walk_with_a_foot_over_the_side_drops_roll() {
    // The beam is 0.25 m wide and 0.5 m up for z 3–9. Walk it after settling on the
    // cross-slope (roll +20°), with the feet swinging ±0.3 m and stepping 0.18 m to the
    // sides, so one foot at a time is over the drop.
    let course = Course::default_course();
    let world = AnalyticWorld::new(&course);
    let mut stage = PelvisTilt::default();
    let cross = course.section("cross_slope_20deg").unwrap();
    let mut root = cross.spawn_world + Vec3::Z * 5.0;
    root.y = course.ground_height(root.x, root.z).unwrap();
    let mut input = TiltInput {
        world: &world,
        filter: QueryFilter::GROUND,
        root_world: root,
        facing_yaw_rad: 0.0,
        pelvis_model: PELVIS_MODEL,
        feet_world: [
            root + Vec3::new(0.1, 0.0, 0.2),
            root - Vec3::new(0.1, 0.0, 0.2),
        ],
        grounded: true,
        aiming: false,
        dt_s: 1.0 / 60.0,
    };
    for _ in 0..120 {
        stage.update(&input, &NormalSourceChoice::Ground);
    }
    assert!((stage.filter_state().roll_rad - 20f32.to_radians()).abs() < 1e-3);

    let beam_x = course.section("beam").unwrap().spawn_world.x;
    let mut narrow_edge_ticks = 0;
    let mut previous_roll = stage.filter_state().roll_rad;
    for k in 0..240 {
        let s_m = 1.5 * k as f32 / 60.0;
        let root = Vec3::new(beam_x, 0.5, 3.5 + s_m);
        let swing = 0.3 * (std::f32::consts::TAU * s_m / STRIDE_M).sin();
        let side = if swing > 0.0 {
            [0.05, -0.18]
        } else {
            [0.18, -0.05]
        };
        input.root_world = root;
        input.feet_world = [
            root + Vec3::new(side[0], 0.0, swing),
            root + Vec3::new(side[1], 0.0, -swing),
        ];
        let out = stage.update(&input, &NormalSourceChoice::Ground);
        assert!(!out.airborne);
        if out.frame.case == FrameCase::NarrowEdge {
            narrow_edge_ticks += 1;
            assert!(out.frame.roll_dropped);
            assert_eq!(out.target_roll_rad, 0.0);
        } else {
            // Both feet on the beam: the low-passed normal is up by now.
            assert_eq!(out.frame.case, FrameCase::Plane);
            assert!(out.target_roll_rad.abs() < 1e-3, "{}", out.target_roll_rad);
        }
        // Roll returns from 20° to 0 smoothly, never past it.
        assert!(out.roll_rad <= previous_roll + 1e-6 && out.roll_rad >= -1e-6);
        assert!(previous_roll - out.roll_rad <= std::f32::consts::FRAC_PI_2 / 60.0 + 1e-5);
        previous_roll = out.roll_rad;
    }
    println!("beam: {narrow_edge_ticks} of 240 ticks narrow edge, final roll {previous_roll}");
    assert!(narrow_edge_ticks > 200);
    assert!(previous_roll.abs() < 1e-3);
}
