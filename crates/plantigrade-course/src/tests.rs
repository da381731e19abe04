use glam::Vec3;

use super::*;

fn course() -> Course {
    Course::default_course()
}

fn lane(name: &str) -> f32 {
    let index = SECTION_NAMES
        .iter()
        .position(|n| *n == name)
        .expect("known section");
    index as f32 * SECTION_SPACING_M
}

fn assert_close(actual: f32, expected: f32, tolerance: f32, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: expected {expected}, got {actual}"
    );
}

fn assert_normal(actual: Vec3, expected: Vec3, what: &str) {
    assert!(
        (actual - expected).length() < 1e-4,
        "{what}: expected normal {expected}, got {actual}"
    );
    assert_close(actual.length(), 1.0, 1e-5, what);
}

fn height(c: &Course, x: f32, z: f32) -> f32 {
    c.ground_height(x, z)
        .unwrap_or_else(|| panic!("no ground at ({x}, {z})"))
}

#[test]
fn default_course_is_valid_and_named_as_documented() {
    let c = course();
    c.validate().unwrap();
    let names: Vec<&str> = c.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, SECTION_NAMES);
    for section in &c.sections {
        assert_eq!(section.direction_world, Vec3::Z);
        assert!(section.length_m > 3.0, "{}", section.name);
        // The spawn stands on the section's ground.
        let spawn = section.spawn_world;
        assert_close(
            height(&c, spawn.x, spawn.z),
            spawn.y,
            1e-6,
            &format!("{} spawn height", section.name),
        );
        // The run-up is flat for at least a metre ahead of the spawn.
        for ahead in [0.0, 0.5, 1.0] {
            let p = spawn + section.direction_world * ahead;
            assert_close(height(&c, p.x, p.z), spawn.y, 1e-6, &section.name);
            assert_normal(c.ground_normal(p.x, p.z).unwrap(), Vec3::Y, &section.name);
        }
        // The end of the scenario is on the ground after the feature.
        let end = section.end_world();
        assert!(c.ground_height(end.x, end.z).is_some(), "{}", section.name);
    }
    assert!(c.section("ramp_30deg").is_some());
    assert!(c.section("nope").is_none());
}

#[test]
fn sections_do_not_overlap_and_off_course_is_none() {
    let c = course();
    for (i, section) in c.sections.iter().enumerate() {
        let x = i as f32 * SECTION_SPACING_M;
        // The plaza, the last lane, spreads 8 m toward +X, where no lane follows.
        let plaza = section.name == "plaza";
        assert!(
            !plaza || i + 1 == c.sections.len(),
            "the plaza is the last lane"
        );
        for z in [-0.5, 0.5, 5.0, 10.0, 30.0] {
            // Halfway between lanes there is nothing.
            if !plaza {
                assert_eq!(c.ground(x + 0.5 * SECTION_SPACING_M, z), None);
            }
            assert_eq!(c.ground(x - 0.5 * SECTION_SPACING_M, z), None);
        }
        assert_eq!(c.ground(x, -0.5), None, "{} before its start", section.name);
        // Every ground primitive of a section stays within its lane (±2 m; the plaza
        // from 2 m before it to 8 m past it).
        let reach_m = if plaza { 8.0 } else { 2.0 };
        for primitive in &section.primitives {
            if let Shape::Box {
                center_world,
                half_extents_m,
                ..
            } = primitive.shape
            {
                assert!(center_world.x - half_extents_m.x >= x - 2.0 - 1e-4);
                assert!(center_world.x + half_extents_m.x <= x + reach_m + 1e-4);
            }
        }
    }
    assert_eq!(c.ground(-3.0, 5.0), None);
    assert_eq!(c.ground(1000.0, 5.0), None);
}

#[test]
fn non_finite_queries_give_none() {
    let c = course();
    assert_eq!(c.ground(f32::NAN, 1.0), None);
    assert_eq!(c.ground(0.0, f32::INFINITY), None);
    assert_eq!(c.surface_below(0.0, 1.0, f32::NAN), None);
    assert_eq!(c.surface_below(0.0, 1.0, f32::NEG_INFINITY), None);
}

#[test]
fn flat_ground() {
    let c = course();
    let x = lane("flat");
    for z in [0.0, 1.0, 6.0, 12.0] {
        assert_eq!(height(&c, x, z), 0.0);
        assert_eq!(height(&c, x + 1.9, z), 0.0);
        assert_eq!(c.ground_normal(x, z), Some(Vec3::Y));
    }
    assert_eq!(c.ground(x, 12.01), None);
    assert_eq!(c.ground(x + 2.01, 5.0), None);
}

#[test]
fn stairs_treads_edges_landing_and_down_flight() {
    let c = course();
    for (name, riser) in [("stairs_15cm", 0.15f32), ("stairs_20cm", 0.20)] {
        let x = lane(name);
        let tread = 0.28f32;
        // Run-up.
        assert_eq!(height(&c, x, 2.99), 0.0);
        for step in 0..8u32 {
            let edge = 3.0 + tread * step as f32;
            let expected = riser * (step + 1) as f32;
            // Just past the riser, mid tread, and just before the next riser.
            for z in [edge + 0.001, edge + 0.5 * tread, edge + tread - 0.001] {
                assert_close(height(&c, x, z), expected, 1e-5, name);
                assert_normal(c.ground_normal(x + 0.7, z).unwrap(), Vec3::Y, name);
            }
        }
        // A riser edge belongs to the higher step.
        assert_close(height(&c, x, 3.0 + tread), 2.0 * riser, 1e-5, name);
        // Landing at the top.
        let top = 8.0 * riser;
        let landing_start = 3.0 + 8.0 * tread;
        for z in [
            landing_start + 0.01,
            landing_start + 1.0,
            landing_start + 1.99,
        ] {
            assert_close(height(&c, x, z), top, 1e-5, name);
        }
        // Down flight: step heights fall back to the floor.
        let down_start = landing_start + 2.0;
        for step in 0..8u32 {
            let z = down_start + tread * (step as f32 + 0.5);
            assert_close(height(&c, x, z), riser * (8 - step) as f32, 1e-5, name);
        }
        let run_out = down_start + 8.0 * tread;
        assert_close(height(&c, x, run_out + 0.01), 0.0, 1e-6, name);
        assert_close(height(&c, x, run_out + 2.9), 0.0, 1e-6, name);
    }
}

#[test]
fn ramps_follow_their_angle() {
    let c = course();
    for angle_deg in [10.0f32, 20.0, 30.0, 40.0, 50.0] {
        let name = format!("ramp_{}deg", angle_deg as u32);
        let x = lane(&name);
        let a = angle_deg.to_radians();
        let length = 1.5 / a.tan();
        // Up ramp: mid point and slope.
        let mid = 3.0 + 0.5 * length;
        assert_close(height(&c, x, mid), 0.75, 1e-4, &name);
        let dz = 0.1 * length;
        let slope = (height(&c, x + 1.0, mid + dz) - height(&c, x + 1.0, mid - dz)) / (2.0 * dz);
        assert_close(slope, a.tan(), 1e-3, &name);
        let up_normal = Vec3::new(0.0, a.cos(), -a.sin());
        assert_normal(c.ground_normal(x, mid).unwrap(), up_normal, &name);
        // Foot of the ramp meets the floor; top meets the platform.
        assert_close(height(&c, x, 3.0 + 0.01 * length), 0.015, 1e-4, &name);
        let platform = 3.0 + length + 1.0;
        assert_close(height(&c, x, platform), 1.5, 1e-5, &name);
        assert_normal(c.ground_normal(x, platform).unwrap(), Vec3::Y, &name);
        // Down ramp mirrors it.
        let down_mid = 3.0 + length + 2.0 + 0.5 * length;
        assert_close(height(&c, x, down_mid), 0.75, 1e-4, &name);
        let down_normal = Vec3::new(0.0, a.cos(), a.sin());
        assert_normal(c.ground_normal(x, down_mid).unwrap(), down_normal, &name);
        // Run-out.
        let run_out = 3.0 + 2.0 * length + 2.0 + 1.0;
        assert_close(height(&c, x, run_out), 0.0, 1e-6, &name);
    }
}

#[test]
fn ramps_run_straight_into_stairs_both_ways() {
    let c = course();
    let a = 18f32.to_radians();
    let ramp_run = 0.6 / a.tan();
    let (stairs_run, riser, top) = (5.0 * 0.28, 0.17f32, 0.6 + 5.0 * 0.17);
    for (name, ramp_first) in [("ramp_stairs", true), ("stairs_ramp", false)] {
        let x = lane(name);
        let (first_run, second_run) = if ramp_first {
            (ramp_run, stairs_run)
        } else {
            (stairs_run, ramp_run)
        };
        let junction_up = 3.0 + first_run;
        let landing = junction_up + second_run;
        let junction_down = landing + 2.0 + second_run;
        let end = junction_down + first_run;
        // Each junction: the ramp's end height on one side, the step next to it on the
        // other, with no flat in between (going up, then going down).
        let ramp_edge = if ramp_first { 0.6 } else { 5.0 * riser };
        let step = if ramp_first { 0.6 + riser } else { 5.0 * riser };
        let side = if ramp_first { 0.01 } else { -0.01 };
        for (junction, toward_ramp) in [(junction_up, -side), (junction_down, side)] {
            let on_ramp = height(&c, x, junction + toward_ramp);
            assert_close(on_ramp, ramp_edge, 0.01 * a.tan() + 1e-4, name);
            assert_close(height(&c, x, junction - toward_ramp), step, 1e-5, name);
        }
        // The ramps follow 18°, the landing is at the top, the run-out at the floor.
        let mid_ramp = if ramp_first {
            3.0 + 0.5 * ramp_run
        } else {
            junction_up + 0.5 * ramp_run
        };
        let up_normal = Vec3::new(0.0, a.cos(), -a.sin());
        assert_normal(c.ground_normal(x, mid_ramp).unwrap(), up_normal, name);
        assert_close(height(&c, x, landing + 1.0), top, 1e-5, name);
        assert_close(height(&c, x, end + 1.0), 0.0, 1e-6, name);
        assert!(c.section(name).unwrap().end_world().z > end, "{name}");
    }
}

#[test]
fn rolling_bumps_are_large_smooth_caps() {
    let c = course();
    let x = lane("rolling_bumps");
    let section = c.section("rolling_bumps").unwrap();
    let mut highest = 0.0f32;
    let mut steepest_deg = 0.0f32;
    let mut z = 1.0;
    while z < section.end_world().z {
        let h = height(&c, x, z);
        let n = c.ground_normal(x, z).unwrap();
        highest = highest.max(h);
        steepest_deg = steepest_deg.max(n.y.acos().to_degrees());
        z += 0.02;
    }
    // A crest of 0.35 m; slopes a person walks over (under 25°), flat before the first.
    assert_close(highest, 0.35, 1e-3, "highest crest");
    assert!(
        steepest_deg > 10.0 && steepest_deg < 25.0,
        "{steepest_deg}°"
    );
    assert_close(height(&c, x, 3.0), 0.0, 1e-6, "run-up");
    assert_close(height(&c, x, 12.8), 0.35, 1e-4, "crest of the largest cap");
}

#[test]
fn cross_slope_is_perpendicular_to_travel() {
    let c = course();
    let x = lane("cross_slope_20deg");
    let section = c.section("cross_slope_20deg").unwrap();
    let a = 20f32.to_radians();
    for z in [3.5, 6.0, 8.5] {
        // Level with the run-up on the lane's centre line.
        assert_close(height(&c, x, z), 0.0, 1e-5, "lane centre");
        assert_close(height(&c, x + 1.0, z), a.tan(), 1e-4, "uphill side");
        assert_close(height(&c, x - 1.0, z), -a.tan(), 1e-4, "downhill side");
        let n = c.ground_normal(x + 0.5, z).unwrap();
        assert_normal(n, Vec3::new(-a.sin(), a.cos(), 0.0), "cross-slope normal");
        // The slope's fall line is across the direction of travel.
        assert_close(n.dot(section.direction_world), 0.0, 1e-6, "perpendicular");
    }
}

#[test]
fn pebble_bumps_are_two_to_five_centimetres() {
    let c = course();
    let x = lane("pebbles");
    let section = c.section("pebbles").unwrap();
    let caps = section.bump_caps();
    assert_eq!(caps.len(), 60);
    for cap in &caps {
        assert!((0.02..=0.05).contains(&cap.height_m), "{}", cap.height_m);
        // Inside the 3 m × 6 m field.
        assert!((cap.base_center_world.x - x).abs() + cap.base_radius_m <= 1.5 + 1e-4);
        assert!((cap.base_center_world.z - 6.0).abs() + cap.base_radius_m <= 3.0 + 1e-4);
        // At a cap's centre the ground is at least that cap's top (overlaps take the max).
        let h = height(&c, cap.base_center_world.x, cap.base_center_world.z);
        assert!(h >= cap.height_m - 1e-6 && h <= 0.05 + 1e-6, "{h}");
    }
    // Over a grid: never below the floor, never above 5 cm, some bare floor, normals up.
    let (mut bare, mut bumped) = (0, 0);
    for i in 0..=60 {
        for j in 0..=120 {
            let px = x - 1.5 + 0.05 * i as f32;
            let pz = 3.0 + 0.05 * j as f32;
            let g = c.ground(px, pz).unwrap();
            assert!((0.0..=0.05 + 1e-6).contains(&g.height_m));
            assert!(g.normal_world.y > 0.75, "{}", g.normal_world);
            if g.height_m == 0.0 {
                bare += 1;
            } else {
                bumped += 1;
            }
        }
    }
    assert!(bare > 100 && bumped > 100, "bare {bare}, bumped {bumped}");
    // Deterministic: the same seed gives the same caps.
    assert_eq!(caps, Course::default_course().sections[9].bump_caps());
}

#[test]
fn beam_top_and_the_floor_beside_it() {
    let c = course();
    let x = lane("beam");
    for z in [3.5, 6.0, 8.9] {
        assert_close(height(&c, x, z), 0.5, 1e-6, "beam top");
        assert_close(height(&c, x + 0.12, z), 0.5, 1e-6, "beam edge");
        assert_close(height(&c, x + 0.13, z), 0.0, 1e-6, "beside the beam");
        assert_close(height(&c, x - 0.3, z), 0.0, 1e-6, "beside the beam");
        // A foot over the beam edge at beam height sees the beam; one below its top (or
        // off the beam) sees the floor.
        let on = c.surface_below(x + 0.1, z, 0.5 + 0.1).unwrap();
        assert_close(on.height_m, 0.5, 1e-6, "on the beam");
        let below = c.surface_below(x + 0.1, z, 0.4).unwrap();
        assert_close(below.height_m, 0.0, 1e-6, "under the beam top");
        let off = c.surface_below(x + 0.2, z, 0.6).unwrap();
        assert_close(off.height_m, 0.0, 1e-6, "off the beam");
    }
    // Start and end platforms.
    assert_close(height(&c, x + 0.9, 1.0), 0.5, 1e-6, "start platform");
    assert_close(height(&c, x - 0.9, 11.0), 0.5, 1e-6, "end platform");
    assert_eq!(c.surface_below(x, 6.0, -0.1), None);
}

#[test]
fn gap_has_a_deep_pit() {
    let c = course();
    let x = lane("gap_1m");
    assert_close(height(&c, x, 3.99), 0.0, 1e-6, "near edge");
    for z in [4.01, 4.5, 4.99] {
        assert_close(height(&c, x, z), -2.0, 1e-6, "pit floor");
        assert_close(height(&c, x + 1.5, z), -2.0, 1e-6, "pit floor");
    }
    assert_close(height(&c, x, 5.01), 0.0, 1e-6, "far edge");
    assert_close(height(&c, x, 8.9), 0.0, 1e-6, "far platform");
    assert_eq!(c.ground(x, 9.1), None);
}

#[test]
fn ceiling_and_wall_are_not_ground() {
    let c = course();
    let x = lane("low_ceiling");
    for z in [3.5, 6.0, 8.5] {
        assert_eq!(height(&c, x, z), 0.0, "the floor under the ceiling");
        assert_eq!(c.surface_below(x, z, 2.0).unwrap().height_m, 0.0);
    }
    let ceiling = c.section("low_ceiling").unwrap().primitives[1].clone();
    assert_eq!(ceiling.role, Role::Obstacle);
    match ceiling.shape {
        Shape::Box {
            center_world,
            half_extents_m,
            ..
        } => assert_close(center_world.y - half_extents_m.y, 1.2, 1e-6, "ceiling"),
        _ => panic!("ceiling is a box"),
    }
    let x = lane("wall");
    assert_eq!(height(&c, x, 5.15), 0.0, "under the wall's footprint");
    assert_eq!(height(&c, x, 4.0), 0.0);
    assert_eq!(height(&c, x, 7.0), 0.0);
}

#[test]
fn ledges_drop_to_the_floor() {
    let c = course();
    for (name, h) in [("ledge_0_5m", 0.5f32), ("ledge_3m", 3.0)] {
        let x = lane(name);
        assert_close(height(&c, x, 1.0), h, 1e-6, name);
        assert_close(height(&c, x, 3.99), h, 1e-6, name);
        assert_close(height(&c, x, 4.01), 0.0, 1e-6, name);
        assert_close(height(&c, x, 9.0), 0.0, 1e-6, name);
        assert_close(
            c.surface_below(x, 2.0, h - 0.1).unwrap().height_m,
            0.0,
            0.0,
            name,
        );
    }
}

#[test]
fn solids_cover_every_primitive() {
    let c = course();
    let solids = c.solids();
    let mut expected = 0;
    for section in &c.sections {
        for p in &section.primitives {
            expected += match p.shape {
                Shape::Stairs { step_count, .. } => step_count as usize,
                Shape::Bumps { count, .. } => count as usize,
                _ => 1,
            };
        }
    }
    assert_eq!(solids.len(), expected);
    for solid in &solids {
        match &solid.shape {
            SolidShape::Cuboid {
                center_world,
                half_extents_m,
                rotation_world,
            } => {
                assert!(center_world.is_finite() && rotation_world.is_finite());
                assert!(half_extents_m.min_element() > 0.0);
            }
            SolidShape::ConvexHull {
                center_world,
                points_local,
            } => {
                assert!(center_world.is_finite());
                assert_eq!(points_local.len(), 8);
            }
            SolidShape::Ball {
                center_world,
                radius_m,
            } => {
                assert!(center_world.is_finite() && *radius_m > 0.0);
                // The ball's top is the cap's top: 2–5 cm above the floor for pebbles,
                // 15–35 cm for the rolling bumps.
                let tops = match c.sections[solid.section].name.as_str() {
                    "rolling_bumps" => 0.15..=0.35 + 1e-6,
                    _ => 0.02..=0.05 + 1e-6,
                };
                assert!(tops.contains(&(center_world.y + radius_m)));
            }
        }
    }
    // A ramp hull spans exactly the analytic ramp: lowest point is its bottom, its highest
    // the ramp top.
    let ramp_section = SECTION_NAMES
        .iter()
        .position(|n| *n == "ramp_20deg")
        .unwrap();
    let hull = solids
        .iter()
        .find(|s| s.section == ramp_section && matches!(s.shape, SolidShape::ConvexHull { .. }))
        .unwrap();
    if let SolidShape::ConvexHull {
        center_world,
        points_local,
    } = &hull.shape
    {
        let top = points_local
            .iter()
            .map(|p| center_world.y + p.y)
            .fold(f32::MIN, f32::max);
        assert_close(top, 1.5, 1e-5, "ramp hull top");
    }
}

#[test]
fn ron_round_trip_of_the_default_course() {
    let c = course();
    let text = c.to_ron().unwrap();
    let back = Course::from_ron(&text).unwrap();
    assert_eq!(back, c);
    // And again, byte for byte.
    assert_eq!(back.to_ron().unwrap(), text);
}

#[test]
fn role_defaults_to_ground_and_yaw_to_zero() {
    let text = r#"Course(sections: [(
        name: "tiny",
        spawn_world: (0.0, 0.0, 0.0),
        direction_world: (1.0, 0.0, 0.0),
        length_m: 1.0,
        primitives: [(shape: Box(center_world: (0.0, -0.5, 0.0), half_extents_m: (2.0, 0.5, 2.0)))],
    )])"#;
    let c = Course::from_ron(text).unwrap();
    assert_eq!(c.sections[0].primitives[0].role, Role::Ground);
    assert_eq!(c.ground_height(1.0, 1.0), Some(0.0));
}

#[test]
fn malformed_ron_reports_line_and_column() {
    let text = "Course(sections: [\n  (\n    name: \"a\",\n    spawn_world: (0.0, 0.0 0.0),\n";
    let err = Course::from_ron(text).unwrap_err();
    assert!(matches!(err.problem, CourseProblem::Syntax(_)), "{err}");
    assert_eq!(err.pos.unwrap().line, 4, "{err}");
    assert!(err.to_string().starts_with("line 4, column "), "{err}");

    let err = Course::from_ron("Course(sections: [(name: \"a\", bogus: 1)])").unwrap_err();
    assert!(matches!(err.problem, CourseProblem::Syntax(_)), "{err}");
    assert!(err.to_string().contains("bogus"), "{err}");

    let err = Course::from_ron("").unwrap_err();
    assert!(matches!(err.problem, CourseProblem::Syntax(_)));
}

/// The default course as RON with its `nth` match of `from` replaced by `to`.
fn mutated(from: &str, nth: usize, to: &str) -> String {
    let text = course().to_ron().unwrap();
    let (at, _) = text.match_indices(from).nth(nth).expect("pattern present");
    format!("{}{}{}", &text[..at], to, &text[at + from.len()..])
}

fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).unwrap();
    text[..at].matches('\n').count() + 1
}

/// Whether a problem is the expected one.
type ProblemCheck = fn(&CourseProblem) -> bool;

#[test]
fn bad_values_are_refused_with_the_section_located() {
    // A negative size in the third section.
    let text = course().to_ron().unwrap();
    let stairs_at = text.find("\"stairs_20cm\"").unwrap();
    let riser_at = stairs_at + text[stairs_at..].find("riser_m: 0.2").unwrap();
    let bad = format!(
        "{}riser_m: -0.2{}",
        &text[..riser_at],
        &text[riser_at + "riser_m: 0.2".len()..]
    );
    let err = Course::from_ron(&bad).unwrap_err();
    assert!(
        matches!(
            &err.problem,
            CourseProblem::NotPositive { section, field: "stairs riser_m", value }
                if section == "stairs_20cm" && *value == -0.2
        ),
        "{err}"
    );
    assert_eq!(err.pos.unwrap().line, line_of(&bad, "\"stairs_20cm\""));
    assert!(err.to_string().contains("stairs_20cm"), "{err}");

    // Non-finite numbers.
    let bad = mutated("length_m: 10.0", 0, "length_m: inf");
    let err = Course::from_ron(&bad).unwrap_err();
    assert!(
        matches!(&err.problem, CourseProblem::NotFinite { section, field: "length_m" } if section == "flat"),
        "{err}"
    );
    assert_eq!(err.pos.unwrap().line, line_of(&bad, "\"flat\""));
    let bad = mutated("spawn_world: (", 4, "spawn_world: (NaN, ");
    let bad = bad.replacen("(NaN, 24.0, ", "(NaN, ", 1);
    let err = Course::from_ron(&bad).unwrap_err();
    assert!(
        matches!(
            &err.problem,
            CourseProblem::NotFinite {
                field: "spawn_world",
                ..
            }
        ),
        "{err}"
    );

    // Duplicate names: located at the second one.
    let bad = mutated("\"ramp_20deg\"", 0, "\"ramp_10deg\"");
    let err = Course::from_ron(&bad).unwrap_err();
    assert_eq!(
        err.problem,
        CourseProblem::DuplicateSection("ramp_10deg".into())
    );
    let second = bad.match_indices("\"ramp_10deg\"").nth(1).unwrap().0;
    assert_eq!(
        err.pos.unwrap().line,
        bad[..second].matches('\n').count() + 1
    );

    // Empty name, bad direction, zero steps, too many bumps, bad bump ranges, ramp bottom.
    let cases: Vec<(String, ProblemCheck)> = vec![
        (mutated("\"wall\"", 0, "\"\""), |p| {
            *p == CourseProblem::EmptyName
        }),
        (
            mutated(
                "direction_world: (0.0, 0.0, 1.0)",
                2,
                "direction_world: (0.0, 1.0, 0.0)",
            ),
            |p| matches!(p, CourseProblem::BadDirection { .. }),
        ),
        (
            mutated(
                "direction_world: (0.0, 0.0, 1.0)",
                2,
                "direction_world: (0.0, 0.0, 2.0)",
            ),
            |p| matches!(p, CourseProblem::BadDirection { .. }),
        ),
        (mutated("step_count: 8", 0, "step_count: 0"), |p| {
            matches!(p, CourseProblem::Invalid { .. })
        }),
        (mutated("step_count: 8", 0, "step_count: 4000000000"), |p| {
            matches!(
                p,
                CourseProblem::TooLarge {
                    field: "stairs step_count",
                    ..
                }
            )
        }),
        (mutated("count: 60", 0, "count: 4000000000"), |p| {
            matches!(
                p,
                CourseProblem::TooLarge {
                    field: "bumps count",
                    ..
                }
            )
        }),
        (mutated("height_max_m: 0.05", 0, "height_max_m: 0.3"), |p| {
            matches!(p, CourseProblem::Invalid { .. })
        }),
        (
            mutated("height_min_m: 0.02", 0, "height_min_m: 0.06"),
            |p| matches!(p, CourseProblem::Invalid { .. }),
        ),
        (mutated("bottom_y_m: -0.25", 0, "bottom_y_m: 0.5"), |p| {
            matches!(p, CourseProblem::Invalid { .. })
        }),
        (
            mutated("half_extents_m: (2.0", 0, "half_extents_m: (0.0"),
            |p| matches!(p, CourseProblem::NotPositive { .. }),
        ),
        (
            mutated("half_extents_m: (2.0", 0, "half_extents_m: (1e30"),
            |p| matches!(p, CourseProblem::TooLarge { .. }),
        ),
    ];
    for (text, expected) in cases {
        let err = Course::from_ron(&text).unwrap_err();
        assert!(expected(&err.problem), "unexpected: {err}");
        assert!(err.pos.is_some(), "{err}");
    }

    let err = Course::from_ron("Course(sections: [])").unwrap_err();
    assert_eq!(err.problem, CourseProblem::NoSections);
    assert_eq!(err.pos, None);
}

#[test]
fn validate_checks_courses_built_in_code() {
    let mut c = course();
    c.sections[0].length_m = f32::NAN;
    assert!(matches!(
        c.validate().unwrap_err().problem,
        CourseProblem::NotFinite { .. }
    ));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Mutated course files give a result or a typed error, never a panic, and an
        /// accepted course answers ground queries without NaN.
        #[test]
        fn mutated_course_files_never_panic(
            cut in 0usize..20_000,
            len in 0usize..8,
            insert in "[-0-9.,()\\[\\]a-zA-Z:\" ]{0,6}",
        ) {
            let text = Course::default_course().to_ron().unwrap();
            let mut bytes = text.into_bytes();
            let at = cut.min(bytes.len());
            let end = (at + len).min(bytes.len());
            bytes.splice(at..end, insert.bytes());
            if let Ok(text) = String::from_utf8(bytes) {
                if let Ok(c) = Course::from_ron(&text) {
                    for section in &c.sections {
                        let p = section.spawn_world;
                        if let Some(g) = c.ground(p.x, p.z + 2.0) {
                            prop_assert!(g.height_m.is_finite() && g.normal_world.is_finite());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn depth_below_surface_is_the_distance_to_the_nearest_ground() {
    let c = course();
    // Flat floor: the height below it, 0 above, nothing off the course.
    let x = lane("flat");
    assert_eq!(c.depth_below_surface_m(Vec3::new(x, 0.05, 5.0)), Some(0.0));
    assert_close(
        c.depth_below_surface_m(Vec3::new(x, -0.012, 5.0)).unwrap(),
        0.012,
        1e-6,
        "flat",
    );
    assert_eq!(c.depth_below_surface_m(Vec3::new(x, -0.01, 12.5)), None);
    assert_eq!(c.depth_below_surface_m(Vec3::new(f32::NAN, 0.0, 5.0)), None);
    // A toe 3 mm into the second riser of the 20 cm flight, 5 cm below its tread: 3 mm
    // deep (±1 mm), not the 5 cm of tread above it. In the middle of the tread, 5 cm.
    let x = lane("stairs_20cm");
    let riser_z = 3.0 + 0.28;
    let toe = Vec3::new(x, 0.35, riser_z + 0.003);
    assert_close(height(&c, x, toe.z), 0.4, 1e-5, "tread above the toe");
    assert_close(c.depth_below_surface_m(toe).unwrap(), 0.003, 0.001, "riser");
    let mid = Vec3::new(x, 0.35, riser_z + 0.14);
    assert_close(c.depth_below_surface_m(mid).unwrap(), 0.05, 1e-5, "tread");
    // 8 mm behind that riser and 1 mm under the lower tread: near the nosing's corner
    // (√(8² + 1²) ≈ 8.1 mm), not the 20 cm of upper tread above it.
    let corner = Vec3::new(x, 0.199, riser_z + 0.008);
    assert_close(
        c.depth_below_surface_m(corner).unwrap(),
        0.0081,
        0.001,
        "corner",
    );
    // A 30° ramp: 1 cm below the surface vertically is cos 30° cm deep.
    let x = lane("ramp_30deg");
    let z = 3.0 + 0.5 * 1.5 / 30f32.to_radians().tan();
    let y = height(&c, x, z) - 0.01;
    assert_close(
        c.depth_below_surface_m(Vec3::new(x, y, z)).unwrap(),
        0.01 * 30f32.to_radians().cos(),
        1e-4,
        "ramp",
    );
}
