//! The built-in test course (layout documented on [`super::Course::default_course`]).

use glam::{Vec2, Vec3};

use super::{Course, Primitive, Role, Section, Shape};

/// Distance (m) between the lanes of neighbouring sections of the default course (along
/// world X). Sections are 4 m wide, so 2 m of nothing separates them.
pub const SECTION_SPACING_M: f32 = 6.0;

/// Names of the default course's sections, in lane order (section `i` at `x = i · 6`).
pub const SECTION_NAMES: [&str; 22] = [
    "flat",
    "stairs_15cm",
    "stairs_20cm",
    "ramp_10deg",
    "ramp_20deg",
    "ramp_30deg",
    "ramp_40deg",
    "ramp_50deg",
    "cross_slope_20deg",
    "pebbles",
    "beam",
    "gap_1m",
    "low_ceiling",
    "wall",
    "ledge_0_5m",
    "ledge_3m",
    "beam_narrow",
    "beam_inclined",
    "ramp_stairs",
    "stairs_ramp",
    "rolling_bumps",
    "plaza",
];

/// Half width (m) of every section (across the lane).
const HALF_WIDTH_M: f32 = 2.0;
/// Flat run-up before each feature (m).
const RUN_UP_M: f32 = 3.0;
/// Spawn distance from the section start (m).
const SPAWN_Z_M: f32 = 1.0;
/// Floor slab thickness (m).
const FLOOR_THICKNESS_M: f32 = 0.5;
/// Stairs: steps per flight, tread depth, landing length (m).
const STEPS: u32 = 8;
const TREAD_M: f32 = 0.28;
const LANDING_M: f32 = 2.0;
/// Ramps: rise and top platform length (m).
const RAMP_RISE_M: f32 = 1.5;
const RAMP_PLATFORM_M: f32 = 2.0;
/// Junctions (ramp meets stairs): the ramps' angle and rise, the flights' step count and
/// riser. Stairs are the usual 0.28 m treads; an 18° ramp is a steep but common one.
const JUNCTION_RAMP_DEG: f32 = 18.0;
const JUNCTION_RAMP_RISE_M: f32 = 0.6;
const JUNCTION_STEPS: u32 = 5;
const JUNCTION_RISER_M: f32 = 0.17;

pub(super) fn build() -> Course {
    let sections = SECTION_NAMES
        .iter()
        .enumerate()
        .map(|(lane, name)| {
            let x = lane as f32 * SECTION_SPACING_M;
            let (primitives, spawn_y, length_m) = match *name {
                "flat" => (vec![floor(x, 0.0, 12.0)], 0.0, 10.0),
                "stairs_15cm" => stairs(x, 0.15),
                "stairs_20cm" => stairs(x, 0.20),
                "ramp_10deg" => ramp(x, 10.0),
                "ramp_20deg" => ramp(x, 20.0),
                "ramp_30deg" => ramp(x, 30.0),
                "ramp_40deg" => ramp(x, 40.0),
                "ramp_50deg" => ramp(x, 50.0),
                "cross_slope_20deg" => cross_slope(x, 20.0),
                "pebbles" => pebbles(x),
                "beam" => beam(x, 0.125),
                "gap_1m" => gap(x),
                "low_ceiling" => low_ceiling(x),
                "wall" => wall(x),
                "ledge_0_5m" => ledge(x, 0.5),
                "ledge_3m" => ledge(x, 3.0),
                // 12 cm: narrower than the gait's stance, the feet must come in.
                "beam_narrow" => beam(x, 0.06),
                "beam_inclined" => beam_inclined(x),
                "ramp_stairs" => junction(x, true),
                "stairs_ramp" => junction(x, false),
                "rolling_bumps" => rolling_bumps(x),
                _ => plaza(x),
            };
            Section {
                name: (*name).to_string(),
                spawn_world: Vec3::new(x, spawn_y, SPAWN_Z_M),
                direction_world: Vec3::Z,
                length_m,
                primitives,
            }
        })
        .collect();
    Course { sections }
}

type Built = (Vec<Primitive>, f32, f32);

fn ground(shape: Shape) -> Primitive {
    Primitive {
        role: Role::Ground,
        shape,
    }
}

/// An axis-aligned box spanning the lane's width, `z0..z1` along the lane and
/// `bottom..top` in height.
fn slab(x: f32, z0: f32, z1: f32, bottom_y: f32, top_y: f32, half_width: f32) -> Shape {
    Shape::Box {
        center_world: Vec3::new(x, 0.5 * (bottom_y + top_y), 0.5 * (z0 + z1)),
        half_extents_m: Vec3::new(half_width, 0.5 * (top_y - bottom_y), 0.5 * (z1 - z0)),
        yaw_deg: 0.0,
    }
}

/// The floor slab (top at y = 0) for `z0..z1`.
fn floor(x: f32, z0: f32, z1: f32) -> Primitive {
    ground(slab(x, z0, z1, -FLOOR_THICKNESS_M, 0.0, HALF_WIDTH_M))
}

/// A lane-wide ramp from `start_z` over `length_m` along +Z, its top going from
/// `start_top_m` to `end_top_m`, solid down to 0.25 m below the floor.
fn lane_ramp(x: f32, start_z: f32, length_m: f32, start_top_m: f32, end_top_m: f32) -> Primitive {
    ground(Shape::Ramp {
        center_xz_world: Vec2::new(x, start_z + 0.5 * length_m),
        half_width_m: HALF_WIDTH_M,
        half_length_m: 0.5 * length_m,
        yaw_deg: 0.0,
        bottom_y_m: -0.25,
        start_top_y_m: start_top_m,
        end_top_y_m: end_top_m,
    })
}

/// A lane-wide flight of `steps` from `base_y` at `start_z`, up along +Z (yaw 0) or, from
/// its far end, along -Z (yaw 180).
fn lane_flight(
    x: f32,
    start_z: f32,
    base_y: f32,
    yaw_deg: f32,
    steps: u32,
    riser_m: f32,
) -> Primitive {
    ground(Shape::Stairs {
        start_world: Vec3::new(x, base_y, start_z),
        yaw_deg,
        width_m: 2.0 * HALF_WIDTH_M,
        step_count: steps,
        riser_m,
        tread_m: TREAD_M,
    })
}

/// Up a flight, a landing, down a flight, on a floor.
fn stairs(x: f32, riser_m: f32) -> Built {
    let run = TREAD_M * STEPS as f32;
    let top = riser_m * STEPS as f32;
    let up_start = RUN_UP_M;
    let landing_start = up_start + run;
    let down_end = landing_start + LANDING_M + run;
    let total = down_end + RUN_UP_M;
    let flight = |start_z: f32, yaw_deg: f32| lane_flight(x, start_z, 0.0, yaw_deg, STEPS, riser_m);
    let primitives = vec![
        floor(x, 0.0, total),
        flight(up_start, 0.0),
        ground(slab(
            x,
            landing_start,
            landing_start + LANDING_M,
            0.0,
            top,
            HALF_WIDTH_M,
        )),
        // The down flight is a flight ascending toward -Z from the far end.
        flight(down_end, 180.0),
    ];
    (primitives, 0.0, down_end + 1.5 - SPAWN_Z_M)
}

/// Up a ramp of `angle_deg` to a platform 1.5 m high, and down an equal ramp.
fn ramp(x: f32, angle_deg: f32) -> Built {
    let length = RAMP_RISE_M / (angle_deg as f64).to_radians().tan() as f32;
    let up_start = RUN_UP_M;
    let platform_start = up_start + length;
    let down_start = platform_start + RAMP_PLATFORM_M;
    let down_end = down_start + length;
    let total = down_end + RUN_UP_M;
    let wedge = |start_z: f32, start_top: f32, end_top: f32| {
        lane_ramp(x, start_z, length, start_top, end_top)
    };
    let primitives = vec![
        floor(x, 0.0, total),
        wedge(up_start, 0.0, RAMP_RISE_M),
        ground(slab(
            x,
            platform_start,
            down_start,
            0.0,
            RAMP_RISE_M,
            HALF_WIDTH_M,
        )),
        wedge(down_start, RAMP_RISE_M, 0.0),
    ];
    (primitives, 0.0, down_end + 1.5 - SPAWN_Z_M)
}

/// A slope rising toward +X (across the lane) whose surface is level with the floor on
/// the lane's centre line, between two flat run-ups.
fn cross_slope(x: f32, angle_deg: f32) -> Built {
    let rise_half = HALF_WIDTH_M * (angle_deg as f64).to_radians().tan() as f32;
    let primitives = vec![
        floor(x, 0.0, 3.0),
        ground(Shape::Ramp {
            center_xz_world: Vec2::new(x, 6.0),
            // Yaw 90°: local +Z (the rise) is world +X, local X (the width) is world -Z.
            half_width_m: 3.0,
            half_length_m: HALF_WIDTH_M,
            yaw_deg: 90.0,
            bottom_y_m: -rise_half - FLOOR_THICKNESS_M,
            start_top_y_m: -rise_half,
            end_top_y_m: rise_half,
        }),
        floor(x, 9.0, 12.0),
    ];
    (primitives, 0.0, 10.0)
}

/// A floor with a 3 m × 6 m field of 2–5 cm bumps.
fn pebbles(x: f32) -> Built {
    let primitives = vec![
        floor(x, 0.0, 12.0),
        ground(Shape::Bumps {
            center_world: Vec3::new(x, 0.0, 6.0),
            half_size_m: Vec2::new(1.5, 3.0),
            yaw_deg: 0.0,
            seed: 0x5EED_0001,
            count: 60,
            height_min_m: 0.02,
            height_max_m: 0.05,
            radius_min_m: 0.15,
            radius_max_m: 0.25,
        }),
    ];
    (primitives, 0.0, 10.0)
}

/// A beam `2 × half_width_m` wide, 0.5 m up between two platforms, over a floor.
fn beam(x: f32, half_width_m: f32) -> Built {
    let top = 0.5;
    let primitives = vec![
        floor(x, 0.0, 12.0),
        ground(slab(x, 0.0, 3.0, 0.0, top, 1.0)),
        ground(slab(x, 3.0, 9.0, 0.0, top, half_width_m)),
        ground(slab(x, 9.0, 12.0, 0.0, top, 1.0)),
    ];
    (primitives, top, 10.0)
}

/// A 25 cm wide beam rising 8° (0.84 m over 6 m) between a low and a high platform.
fn beam_inclined(x: f32) -> Built {
    let (low, high) = (0.5, 0.5 + 6.0 * 8f32.to_radians().tan());
    let primitives = vec![
        floor(x, 0.0, 12.0),
        ground(slab(x, 0.0, 3.0, 0.0, low, 1.0)),
        ground(Shape::Ramp {
            center_xz_world: Vec2::new(x, 6.0),
            half_width_m: 0.125,
            half_length_m: 3.0,
            yaw_deg: 0.0,
            bottom_y_m: 0.0,
            start_top_y_m: low,
            end_top_y_m: high,
        }),
        ground(slab(x, 9.0, 12.0, 0.0, high, 1.0)),
    ];
    (primitives, low, 10.0)
}

/// Two platforms with a 1 m wide, 2 m deep pit between them.
fn gap(x: f32) -> Built {
    let bottom = -3.0;
    let primitives = vec![
        ground(slab(x, 0.0, 4.0, bottom, 0.0, HALF_WIDTH_M)),
        ground(slab(x, 4.0, 5.0, bottom, -2.0, HALF_WIDTH_M)),
        ground(slab(x, 5.0, 9.0, bottom, 0.0, HALF_WIDTH_M)),
    ];
    (primitives, 0.0, 6.0)
}

/// A floor with a ceiling slab 1.2 m above it for z 3–9.
fn low_ceiling(x: f32) -> Built {
    let primitives = vec![
        floor(x, 0.0, 12.0),
        Primitive {
            role: Role::Obstacle,
            shape: slab(x, 3.0, 9.0, 1.2, 1.5, HALF_WIDTH_M),
        },
    ];
    (primitives, 0.0, 10.0)
}

/// A floor with a 3 m wall across the lane at z 5–5.3; the scenario walks into it.
fn wall(x: f32) -> Built {
    let primitives = vec![
        floor(x, 0.0, 10.0),
        Primitive {
            role: Role::Obstacle,
            shape: slab(x, 5.0, 5.3, 0.0, 3.0, HALF_WIDTH_M),
        },
    ];
    (primitives, 0.0, 6.0)
}

/// A platform `height_m` high for z 0–4, then the floor.
fn ledge(x: f32, height_m: f32) -> Built {
    let primitives = vec![
        floor(x, 0.0, 10.0),
        ground(slab(x, 0.0, 4.0, 0.0, height_m, HALF_WIDTH_M)),
    ];
    (primitives, height_m, 6.0)
}

/// Where a ramp meets stairs with no flat between them: up a ramp straight into a flight
/// of stairs, a landing, then down stairs straight into a ramp (`ramp_first`), or the
/// other order (stairs up into a ramp up, ramp down into stairs down). Either way one
/// traverse crosses both junction kinds, one going up and the other going down.
fn junction(x: f32, ramp_first: bool) -> Built {
    let ramp_run = JUNCTION_RAMP_RISE_M / JUNCTION_RAMP_DEG.to_radians().tan();
    let stairs_run = TREAD_M * JUNCTION_STEPS as f32;
    let stairs_rise = JUNCTION_RISER_M * JUNCTION_STEPS as f32;
    let top = JUNCTION_RAMP_RISE_M + stairs_rise;
    // Lengths along the lane and the base height of each piece, going up.
    let (first_run, second_run) = if ramp_first {
        (ramp_run, stairs_run)
    } else {
        (stairs_run, ramp_run)
    };
    let first_top = if ramp_first {
        JUNCTION_RAMP_RISE_M
    } else {
        stairs_rise
    };
    let second_start = RUN_UP_M;
    let second_z = second_start + first_run;
    let landing_start = second_z + second_run;
    let down_start = landing_start + LANDING_M;
    let down_second_end = down_start + second_run;
    let down_end = down_second_end + first_run;
    let total = down_end + RUN_UP_M;
    let wedge = |start_z: f32, start_top: f32, end_top: f32| {
        lane_ramp(x, start_z, ramp_run, start_top, end_top)
    };
    let flight = |start_z: f32, base_y: f32, yaw_deg: f32| {
        lane_flight(
            x,
            start_z,
            base_y,
            yaw_deg,
            JUNCTION_STEPS,
            JUNCTION_RISER_M,
        )
    };
    let mut primitives = vec![
        floor(x, 0.0, total),
        ground(slab(x, landing_start, down_start, 0.0, top, HALF_WIDTH_M)),
    ];
    if ramp_first {
        primitives.extend([
            wedge(second_start, 0.0, first_top),
            flight(second_z, first_top, 0.0),
            flight(down_second_end, first_top, 180.0),
            wedge(down_second_end, first_top, 0.0),
            // The flights stand on blocks as high as the ramps' tops (steps are solid
            // only down to their base).
            ground(slab(
                x,
                second_z,
                landing_start,
                0.0,
                first_top,
                HALF_WIDTH_M,
            )),
            ground(slab(
                x,
                down_start,
                down_second_end,
                0.0,
                first_top,
                HALF_WIDTH_M,
            )),
        ]);
    } else {
        primitives.extend([
            flight(second_start, 0.0, 0.0),
            wedge(second_z, first_top, top),
            wedge(down_start, top, first_top),
            flight(down_end, 0.0, 180.0),
        ]);
    }
    (primitives, 0.0, down_end + 1.5 - SPAWN_Z_M)
}

/// Rolling ground: a row of large smooth caps (0.15–0.3 m high, 1.2–1.8 m base radius)
/// across the lane, some touching and some with floor between, so a walk goes over
/// crests, down into hollows and across the creases where two caps meet. Each cap is its
/// own one-cap field just as wide as the cap, which leaves the cap no room to move: it
/// sits exactly where it is put.
fn rolling_bumps(x: f32) -> Built {
    // (z of the centre, height, base radius, sideways shift) per cap (m).
    const CAPS: [(f32, f32, f32, f32); 5] = [
        (4.6, 0.20, 1.5, 0.0),
        (7.4, 0.30, 1.6, 0.3),
        (10.4, 0.15, 1.2, -0.2),
        (12.8, 0.35, 1.8, 0.0),
        (16.0, 0.25, 1.4, -0.3),
    ];
    let end_z = 21.0;
    let mut primitives = vec![floor(x, 0.0, end_z)];
    for (seed, &(z, height_m, radius_m, shift_m)) in CAPS.iter().enumerate() {
        primitives.push(ground(Shape::Bumps {
            center_world: Vec3::new(x + shift_m, 0.0, z),
            half_size_m: Vec2::splat(radius_m),
            yaw_deg: 0.0,
            seed: seed as u64,
            count: 1,
            height_min_m: height_m,
            height_max_m: height_m,
            radius_min_m: radius_m,
            radius_max_m: radius_m,
        }));
    }
    (primitives, 0.0, end_z - 2.5 - SPAWN_Z_M)
}

/// Width of the plaza's floor toward +X (m): room for a 3 m circle beside the lane, and
/// for strafing 7 m sideways.
const PLAZA_WIDTH_M: f32 = 10.0;
/// Length of the plaza's floor along +Z (m): room to build up from a walk to a sprint and
/// stop.
const PLAZA_LENGTH_M: f32 = 20.0;

/// A 10 m by 20 m rectangle of flat floor from the lane out toward +X (the last lane, so
/// it overlaps none): z 1–21, x from 2 m before the lane to 8 m past it. Room to run a 3 m
/// circle centred 3 m toward +X of the spawn, to strafe, backpedal and sprint.
fn plaza(x: f32) -> Built {
    let half = 0.5 * PLAZA_WIDTH_M;
    let primitives = vec![ground(slab(
        x + 3.0,
        1.0,
        1.0 + PLAZA_LENGTH_M,
        -FLOOR_THICKNESS_M,
        0.0,
        half,
    ))];
    (primitives, 0.0, 8.0)
}
