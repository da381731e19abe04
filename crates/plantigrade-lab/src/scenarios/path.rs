//! A scenario's path on the course: where it starts and ends, and what stands along it
//! (the edge, the ceiling, the wall), sampled from the analytic course.

use glam::{Vec2, Vec3};
use plantigrade_course::{Course, Role, Shape};

use super::catalog::{Kind, Part, Scenario, CIRCLE_RADIUS_M};
use super::script::plaza_start;
use Kind::*;
use Part::*;

/// Figures of the path along a section, sampled from the analytic course.
pub struct PathInfo {
    pub spawn: Vec3,
    pub direction: Vec3,
    /// Progress (m) of the start and the end of the run.
    pub(super) start_s: f32,
    pub(super) end_s: f32,
}

fn ground_along(course: &Course, spawn: Vec3, dir: Vec3, s: f32) -> Option<f32> {
    let p = spawn + dir * s;
    course.ground_height(p.x, p.z)
}

/// The highest stretch along the path (the stairs landing, the ramp platform): its middle.
fn top_middle(course: &Course, spawn: Vec3, dir: Vec3, length: f32) -> f32 {
    let samples: Vec<(f32, f32)> = (0..=(length * 20.0) as usize)
        .map(|i| i as f32 * 0.05)
        .filter_map(|s| ground_along(course, spawn, dir, s).map(|h| (s, h)))
        .collect();
    let top = samples.iter().map(|&(_, h)| h).fold(f32::MIN, f32::max);
    let on_top: Vec<f32> = samples
        .iter()
        .filter(|&&(_, h)| h > top - 0.01)
        .map(|&(s, _)| s)
        .collect();
    match (on_top.first(), on_top.last()) {
        (Some(a), Some(b)) => 0.5 * (a + b),
        _ => length * 0.5,
    }
}

/// Progress where the ground first drops more than 0.4 m below the spawn's (the edge).
pub(super) fn first_drop(course: &Course, spawn: Vec3, dir: Vec3, length: f32) -> Option<f32> {
    let base = ground_along(course, spawn, dir, 0.0)?;
    (0..=(length * 50.0) as usize)
        .map(|i| i as f32 * 0.02)
        .find(|&s| ground_along(course, spawn, dir, s).is_none_or(|h| h < base - 0.4))
}

/// Progress range (m) where an obstacle overhangs the path lower than `below_m` above the
/// ground (the low ceiling), or stands on it (a wall: `below_m` large, bottom at the floor).
pub(super) fn obstacle_span(
    course: &Course,
    section: &str,
    spawn: Vec3,
    dir: Vec3,
    length: f32,
    ceiling: bool,
) -> Option<(f32, f32)> {
    let section = course.section(section)?;
    let mut span: Option<(f32, f32)> = None;
    for i in 0..=(length * 50.0) as usize {
        let s = i as f32 * 0.02;
        let p = spawn + dir * s;
        let ground = course.ground_height(p.x, p.z).unwrap_or(0.0);
        let hit = section.primitives.iter().any(|prim| {
            let Shape::Box {
                center_world,
                half_extents_m,
                yaw_deg,
            } = &prim.shape
            else {
                return false;
            };
            if prim.role != Role::Obstacle {
                return false;
            }
            let local = Vec2::from_angle(-yaw_deg.to_radians())
                .rotate(Vec2::new(p.x - center_world.x, p.z - center_world.z));
            let inside = local.x.abs() <= half_extents_m.x && local.y.abs() <= half_extents_m.z;
            let bottom = center_world.y - half_extents_m.y;
            inside
                && if ceiling {
                    bottom > ground + 0.5 && bottom < ground + 1.8
                } else {
                    bottom <= ground + 0.1
                }
        });
        if hit {
            span = Some(span.map_or((s, s), |(a, _)| (a, s)));
        }
    }
    span
}

/// The scenario's path on `course`, its start moved `start_offset_m` along it.
pub fn path_for(
    course: &Course,
    scenario: &Scenario,
    start_offset_m: f32,
) -> anyhow::Result<PathInfo> {
    let section = course.section(scenario.section).ok_or_else(|| {
        anyhow::anyhow!(
            "the course has no section '{}' (scenario {})",
            scenario.section,
            scenario.name
        )
    })?;
    let dir =
        Vec3::new(section.direction_world.x, 0.0, section.direction_world.z).normalize_or(Vec3::Z);
    let spawn = section.spawn_world;
    let length = section.length_m;
    let (start_s, end_s) = match scenario.kind {
        Traverse { part: Up } => (0.0, top_middle(course, spawn, dir, length)),
        Traverse { part: Down } => (top_middle(course, spawn, dir, length), length),
        _ => (0.0, length),
    };
    let start_s = start_s + start_offset_m;
    let mut start = spawn + dir * start_s + plaza_start(scenario);
    if let Some(h) = course.ground_height(start.x, start.z) {
        start.y = h;
    }
    Ok(PathInfo {
        spawn: start,
        direction: dir,
        start_s,
        end_s,
    })
}

/// Where the circle scenario's circle is centred: [`CIRCLE_RADIUS_M`] toward +X of the
/// spawn (the plaza spreads that way) and 4.5 m ahead, so the whole circle is on the
/// plaza; the run steers onto it from the spawn.
pub(super) fn circle_centre(path: &PathInfo) -> Vec3 {
    path.spawn + Vec3::X * CIRCLE_RADIUS_M + Vec3::Z * 4.5
}

pub(super) fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}
