//! Predictive ground probes and the support plane of one foot (SPEC IK-1..4, IK-13).
//!
//! A foot does not look where it is but where it is about to land: its heel and ball points
//! (world) are pushed ahead by the character's **horizontal** velocity × a look-ahead time
//! that grows with speed (IK-1). Two downward rays, from 0.30 m above those predicted points
//! to 1.20 m below (IK-2), give the heel and toe hits; a miss retries with half the
//! look-ahead, at most twice (IK-3). The hits become a [`SupportPlane`] (IK-4): riser and
//! edge hits (too steep, or heel and toe on two different surfaces) are rejected and the
//! better single hit is kept.
//!
//! The probe is split into a [`FootProbeRequest`] (plain data: where to cast) and
//! [`run_foot_probe`] (casting it), so a host can gather every character's requests and run
//! them as one batch (IK-13) and hand the results back next tick.

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

use crate::world::{QueryFilter, RayHit, SpatialQueries};

/// How the feet are placed: no IK, classic IK (ray at the current foot, one point), or
/// predictive IK (heel + toe at the predicted landing point, support plane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub enum FootIkMode {
    /// The animation as it is: feet on the model's ground plane at the root's height.
    None,
    /// Same code with look-ahead 0 and one ray at the current mid-foot (what ALS and most
    /// engines do).
    Classic,
    /// Look-ahead, heel and toe probes, support plane (SPEC IK-1..4).
    #[default]
    Predictive,
}

impl FootIkMode {
    pub const ALL: [FootIkMode; 3] = [
        FootIkMode::None,
        FootIkMode::Classic,
        FootIkMode::Predictive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FootIkMode::None => "none",
            FootIkMode::Classic => "classic",
            FootIkMode::Predictive => "predictive",
        }
    }

    pub fn from_name(name: &str) -> Option<FootIkMode> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Where and how far the probes look (SPEC IK-1..4 defaults).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct ProbeConfig {
    /// Look-ahead at rest (s).
    pub look_ahead_base_s: f32,
    /// Extra look-ahead at and above `look_ahead_full_speed_m_s` (s).
    pub look_ahead_gain_s: f32,
    /// The speed at which the look-ahead reaches base + gain (m/s; the max walk speed).
    pub look_ahead_full_speed_m_s: f32,
    /// Ray start above the predicted point (m).
    pub probe_up_m: f32,
    /// Ray end below the predicted point (m).
    pub probe_down_m: f32,
    /// A probe ahead of the foot starts higher by what a walkable slope rises over the
    /// look-ahead, up to this much (m): about a step, so a ray far up a ramp does not start
    /// inside it, nor one under a low ceiling on top of it.
    pub max_rise_ahead_m: f32,
    /// Retries with half the look-ahead each after a total miss.
    pub max_retries: u8,
    /// Hits steeper than this are risers or walls, not support (rad).
    pub max_support_slope_rad: f32,
    /// Heel and toe hits further than this from one plane are on two surfaces (an edge): m.
    pub edge_mismatch_m: f32,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            look_ahead_base_s: 0.05,
            look_ahead_gain_s: 0.15,
            look_ahead_full_speed_m_s: 1.75,
            probe_up_m: 0.30,
            probe_down_m: 1.20,
            max_rise_ahead_m: 0.45,
            max_retries: 2,
            max_support_slope_rad: 45f32.to_radians(),
            edge_mismatch_m: 0.03,
        }
    }
}

impl ProbeConfig {
    /// IK-1: `clamp(speed / full_speed, 0, 1) · gain + base`, 0 for non-finite speed.
    pub fn look_ahead_s(&self, horizontal_speed_m_s: f32) -> f32 {
        if !horizontal_speed_m_s.is_finite() || self.look_ahead_full_speed_m_s <= 0.0 {
            return self.look_ahead_base_s;
        }
        (horizontal_speed_m_s / self.look_ahead_full_speed_m_s).clamp(0.0, 1.0)
            * self.look_ahead_gain_s
            + self.look_ahead_base_s
    }
}

/// What to cast for one foot this tick: heel and ball points (world) at the current foot
/// and the horizontal offset the look-ahead adds. Retry `k` uses `offset / 2^k`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootProbeRequest {
    /// Heel sole point of the animated foot, world.
    pub heel_world: Vec3,
    /// Ball sole point of the animated foot, world.
    pub ball_world: Vec3,
    /// Horizontal velocity × look-ahead (m, world xz).
    pub look_ahead_offset_world: Vec2,
    /// Where the heel will land relative to the ball (world xz), when the foot's shape at
    /// landing is known (a swinging foot is pitched, a landing one flat): the heel probe goes
    /// there instead of the heel's own point moved by the look-ahead.
    pub landing_heel_from_ball_xz: Option<Vec2>,
    /// Classic mode: one ray at the mid-foot, no retries.
    pub single_point: bool,
    /// Cast nothing (LOD, IK off): the result is [`FootProbeResult::NOT_RUN`].
    pub skip: bool,
    /// Just ahead of a swinging ball (world): one more ray there, and its hit stands for
    /// [`FootProbeResult::toe_here`] when it is a step above the ground under the ball (a
    /// riser just ahead of a ball leaving its tread is cleared before the ball reaches it).
    pub ball_ahead_world: Option<Vec3>,
    /// Feed-forward (IK-10): one more ray here (world; the character's feet point pushed
    /// ahead by the full look-ahead), so movement code hears of a gap a step early.
    pub ahead_world: Option<Vec3>,
    /// Narrow supports: one more ray this far (world xz) beside the predicted landing, to
    /// see whether the ground there is the body's (a beam's centre line, or where the foot
    /// would land without being brought in toward it).
    pub support_check_offset_world: Option<Vec2>,
    /// Cast that ray only when the landing's hits are both missing or below this height
    /// (world y, m): the first tick a swinging foot's landing falls past a beam's edge is
    /// then checked at once, and the usual tick costs no ray. `None` casts it always.
    pub support_check_below_y: Option<f32>,
    /// Where the body stands (world; the root, on its ground). When every ray from the foot
    /// misses, heel and toe are cast once more from a walkable slope's rise over their
    /// distance from here: up a steep ramp a foot landing far ahead of a small rig's body
    /// (Quaternius' stride is longer than its leg) has its ground higher than rays from its
    /// animated sole start. `None`: no such ray.
    pub body_ground_world: Option<Vec3>,
}

/// What a [`FootProbeRequest`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootProbeResult {
    pub ran: bool,
    pub heel: Option<RayHit>,
    pub toe: Option<RayHit>,
    /// The predicted mid-foot point the hits belong to (world; y = the foot's height).
    pub predicted_world: Vec3,
    /// Retries used (0 = the full look-ahead hit).
    pub retries: u8,
    /// Ground under the heel and ball where they are now (cast only when the prediction
    /// looks ahead): the swinging foot must clear it, e.g. the nosing it is still above
    /// when the landing ahead is a step down.
    pub heel_here: Option<RayHit>,
    pub toe_here: Option<RayHit>,
    /// When heel and toe landed on two surfaces: where the edge between them lies, as a
    /// fraction of the way from the heel probe to the toe probe (found by bisection).
    pub edge_fraction: Option<f32>,
    /// The edge is a riser: across the last bisection bracket (about 1 cm) the ground jumps
    /// by more than `edge_mismatch_m`. A step, whatever the slopes on either side (a
    /// flight's last nosing above a ramp), not a crease where two slopes meet.
    pub riser: bool,
    /// The toe's ray started inside a step and was cast again from above the heel's
    /// ground, where it found the step's tread: the body is a tread or more below a step
    /// up the foot is over (a small rig climbing, a long stride running up).
    pub toe_seen_from_above: bool,
    /// The heel and toe probe points (world xz) the hits belong to.
    pub heel_probe_xz: Vec2,
    pub toe_probe_xz: Vec2,
    /// The look-ahead the hits were found at (m, world xz; after retries).
    pub look_ahead_used_xz: Vec2,
    /// The feed-forward ray, when one was asked for: `Some(hit or None)`.
    pub ahead: Option<Option<RayHit>>,
    /// The support check beside the landing, when one was asked for.
    pub support_check: Option<Option<RayHit>>,
    /// Rays cast, for the probe budget (IK-11) and the bench.
    pub rays_cast: u8,
}

impl FootProbeResult {
    pub const NOT_RUN: FootProbeResult = FootProbeResult {
        ran: false,
        heel: None,
        toe: None,
        predicted_world: Vec3::ZERO,
        retries: 0,
        heel_here: None,
        toe_here: None,
        edge_fraction: None,
        riser: false,
        toe_seen_from_above: false,
        heel_probe_xz: Vec2::ZERO,
        toe_probe_xz: Vec2::ZERO,
        look_ahead_used_xz: Vec2::ZERO,
        ahead: None,
        support_check: None,
        rays_cast: 0,
    };

    pub fn any_hit(&self) -> bool {
        self.heel.is_some() || self.toe.is_some()
    }
}

/// Rays spent locating an edge between heel and toe (each halves the uncertainty: 4 rays
/// put it within 1/32 of the foot, about 6 mm).
const EDGE_BISECTIONS: u8 = 4;

/// What a ray down found.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cast {
    Ground(RayHit),
    Nothing,
    /// It started inside something (a wall, a step it is below): no ground to stand on
    /// there, but something higher than the ray's start.
    StartedInside,
}

impl Cast {
    fn hit(self) -> Option<RayHit> {
        match self {
            Cast::Ground(hit) => Some(hit),
            Cast::Nothing | Cast::StartedInside => None,
        }
    }
}

/// A ray down through `point_world`, from `probe_up_m` plus `extra_up_m` above it to
/// `probe_down_m` below it.
fn cast_down_seen(
    world: &dyn SpatialQueries,
    point_world: Vec3,
    extra_up_m: f32,
    config: &ProbeConfig,
    filter: QueryFilter,
) -> Cast {
    let up_m = config.probe_up_m + extra_up_m;
    let origin = point_world + Vec3::Y * up_m;
    match world.cast_ray(origin, -Vec3::Y, up_m + config.probe_down_m, filter) {
        Some(hit) if hit.distance_m > STARTED_INSIDE_M => Cast::Ground(hit),
        Some(_) => Cast::StartedInside,
        None => Cast::Nothing,
    }
}

/// [`cast_down_seen`]'s ground, if any.
fn cast_down(
    world: &dyn SpatialQueries,
    point_world: Vec3,
    extra_up_m: f32,
    config: &ProbeConfig,
    filter: QueryFilter,
) -> Option<RayHit> {
    cast_down_seen(world, point_world, extra_up_m, config, filter).hit()
}

/// A hit this close to the ray's start (m) means the ray started inside geometry.
const STARTED_INSIDE_M: f32 = 1e-3;

/// How much higher (m) the ground may be `distance_m` further along: a walkable slope's
/// rise over it, up to `max_rise_ahead_m`. A probe that far ahead of the foot starts that
/// much higher, or on a steep ramp its ray would start inside the ground.
fn rise_allowance_m(distance_m: f32, config: &ProbeConfig) -> f32 {
    let tan = config.max_support_slope_rad.clamp(0.0, 1.5).tan();
    let cap = config.max_rise_ahead_m.min(config.probe_down_m).max(0.0);
    (distance_m * tan).clamp(0.0, cap)
}

/// The heel and ball points `request` probes with its look-ahead `offset` (world xz): the
/// ball moved by it, the heel where it lands relative to the ball when that is known.
fn probe_points(request: &FootProbeRequest, offset: Vec2) -> (Vec3, Vec3) {
    let shift = Vec3::new(offset.x, 0.0, offset.y);
    let ball = request.ball_world + shift;
    let heel = match request.landing_heel_from_ball_xz.filter(|v| v.is_finite()) {
        Some(v) if offset.length_squared() > 0.0 => {
            Vec3::new(ball.x + v.x, request.heel_world.y, ball.z + v.y)
        }
        _ => request.heel_world + shift,
    };
    (heel, ball)
}

/// Casts a foot's probes (IK-2, IK-3): heel and toe at the predicted point, retrying with
/// half the look-ahead while both miss. Non-finite requests cast nothing.
pub fn run_foot_probe(
    world: &dyn SpatialQueries,
    filter: QueryFilter,
    config: &ProbeConfig,
    request: &FootProbeRequest,
) -> FootProbeResult {
    let finite = request.heel_world.is_finite()
        && request.ball_world.is_finite()
        && request.look_ahead_offset_world.is_finite();
    if request.skip || !finite {
        return FootProbeResult::NOT_RUN;
    }
    let mid = 0.5 * (request.heel_world + request.ball_world);
    let ahead = request
        .ahead_world
        .filter(|p| p.is_finite())
        .map(|p| cast_down(world, p, 0.0, config, filter));
    let ahead_rays = u8::from(ahead.is_some());
    if request.single_point {
        let hit = cast_down(world, mid, 0.0, config, filter);
        return FootProbeResult {
            ran: true,
            heel: hit,
            toe: hit,
            predicted_world: mid,
            rays_cast: 1 + ahead_rays,
            ahead,
            ..FootProbeResult::NOT_RUN
        };
    }
    let mut result = FootProbeResult {
        ran: true,
        ahead,
        rays_cast: ahead_rays,
        ..FootProbeResult::NOT_RUN
    };
    let mut scale = 1.0;
    for retry in 0..=config.max_retries {
        let offset = request.look_ahead_offset_world * scale;
        let (h, b) = probe_points(request, offset);
        let extra_up_m = rise_allowance_m(offset.length(), config);
        let mut heel = cast_down_seen(world, h, extra_up_m, config, filter);
        let mut toe = cast_down_seen(world, b, extra_up_m, config, filter);
        result.rays_cast += 2;
        // One ray found ground and the other started inside something: a step up under
        // that point, its tread above where the rays start (they start from the body's
        // height, and the body has not climbed it yet). Cast that one again from above the
        // ground the other found, as from a foot standing there; without it a foot planted
        // across a riser saw only its heel's tread and its toe stayed in the step ahead
        // (Quaternius up the 20 cm flight: 7 cm, until the capsule stepped up and its
        // rays saw the tread at last, and the planted foot jumped 8 cm). Only when that
        // ground is above the point: from no higher, it would be the same ray.
        let mut toe_seen_from_above = false;
        match (heel, toe) {
            (Cast::StartedInside, Cast::Ground(found)) if found.point.y > h.y => {
                let up_m = found.point.y - h.y + extra_up_m;
                heel = cast_down_seen(world, h, up_m, config, filter);
                result.rays_cast += 1;
            }
            (Cast::Ground(found), Cast::StartedInside) if found.point.y > b.y => {
                let up_m = found.point.y - b.y + extra_up_m;
                toe = cast_down_seen(world, b, up_m, config, filter);
                result.rays_cast += 1;
                toe_seen_from_above = matches!(toe, Cast::Ground(_));
            }
            _ => {}
        }
        let (heel, toe) = (heel.hit(), toe.hit());
        result.heel = heel;
        result.toe = toe;
        result.toe_seen_from_above = toe_seen_from_above;
        result.predicted_world = 0.5 * (h + b);
        result.retries = retry;
        result.heel_probe_xz = Vec2::new(h.x, h.z);
        result.toe_probe_xz = Vec2::new(b.x, b.z);
        result.look_ahead_used_xz = offset;
        if heel.is_some() || toe.is_some() {
            break;
        }
        scale *= 0.5;
    }
    // Both missed from the foot (see `FootProbeRequest::body_ground_world`): once more, each
    // ray starting a walkable slope's rise over its distance from the body's ground.
    let tan = config.max_support_slope_rad.clamp(0.0, 1.5).tan();
    let body = request.body_ground_world.filter(|b| b.is_finite());
    let over_body_m = |p: Vec3, offset: Vec2| {
        let from_foot_m = rise_allowance_m(offset.length(), config);
        body.map_or(from_foot_m, |body| {
            let away_m = Vec2::new(p.x - body.x, p.z - body.z).length();
            let rise_m = (away_m * tan).clamp(0.0, config.probe_down_m.max(0.0));
            (body.y + rise_m - p.y).max(from_foot_m)
        })
    };
    let mut from_body = false;
    if let (None, None, Some(_)) = (result.heel, result.toe, body) {
        let offset = request.look_ahead_offset_world;
        let (h, b) = probe_points(request, offset);
        result.heel = cast_down(world, h, over_body_m(h, offset), config, filter);
        result.toe = cast_down(world, b, over_body_m(b, offset), config, filter);
        result.rays_cast += 2;
        if result.heel.is_some() || result.toe.is_some() {
            from_body = true;
            result.predicted_world = 0.5 * (h + b);
            result.retries = config.max_retries.saturating_add(1);
            result.heel_probe_xz = Vec2::new(h.x, h.z);
            result.toe_probe_xz = Vec2::new(b.x, b.z);
            result.look_ahead_used_xz = offset;
        }
    }
    if let (Some(heel), Some(toe)) = (result.heel, result.toe) {
        if (heel.point.y - toe.point.y).abs() > config.edge_mismatch_m {
            // Bisect for the edge: which side of it a point is on, by its height.
            let (mut lo, mut hi) = (0.0f32, 1.0f32);
            let from = Vec3::new(
                result.heel_probe_xz.x,
                request.heel_world.y,
                result.heel_probe_xz.y,
            );
            let to = Vec3::new(
                result.toe_probe_xz.x,
                request.ball_world.y,
                result.toe_probe_xz.y,
            );
            let extra_up_m = rise_allowance_m(result.look_ahead_used_xz.length(), config);
            // The ground's height at both ends of the bracket (a miss counts as no ground).
            let (mut lo_y, mut hi_y) = (Some(heel.point.y), Some(toe.point.y));
            for _ in 0..EDGE_BISECTIONS {
                let t = 0.5 * (lo + hi);
                let at = from.lerp(to, t);
                let extra_up_m = if from_body {
                    over_body_m(at, result.look_ahead_used_xz)
                } else {
                    extra_up_m
                };
                let hit = cast_down(world, at, extra_up_m, config, filter);
                result.rays_cast += 1;
                let near_heel = hit.is_some_and(|h| {
                    (h.point.y - heel.point.y).abs() < 0.5 * (toe.point.y - heel.point.y).abs()
                });
                if near_heel {
                    lo = t;
                    lo_y = hit.map(|h| h.point.y);
                } else {
                    hi = t;
                    hi_y = hit.map(|h| h.point.y);
                }
            }
            result.edge_fraction = Some(0.5 * (lo + hi));
            result.riser = match (lo_y, hi_y) {
                (Some(a), Some(b)) => (a - b).abs() > config.edge_mismatch_m,
                _ => true,
            };
        }
    }
    if request.look_ahead_offset_world.length_squared() > 1e-6 {
        // Under the animated heel and ball. A ray that starts inside something is cast
        // again from a step higher: a small rig's body (and its animated feet) can be a
        // tread or two below the stairs its swinging foot is over, and a foot with nothing
        // under it is not kept off the tread it passes through.
        for (point, here) in [
            (request.heel_world, &mut result.heel_here),
            (request.ball_world, &mut result.toe_here),
        ] {
            let seen = cast_down_seen(world, point, 0.0, config, filter);
            result.rays_cast += 1;
            *here = match seen {
                Cast::StartedInside => {
                    result.rays_cast += 1;
                    cast_down(world, point, config.max_rise_ahead_m, config, filter)
                }
                seen => seen.hit(),
            };
        }
        if let Some(ahead) = request.ball_ahead_world.filter(|p| p.is_finite()) {
            let hit = cast_down(world, ahead, 0.0, config, filter);
            result.rays_cast += 1;
            // A step, not the slope the ball is on carried on.
            let ground_there = |here: RayHit| {
                SupportPlane::through(here.point, here.normal)
                    .map_or(here.point.y, |plane| plane.height_at(ahead.x, ahead.z))
            };
            if let Some(hit) = hit.filter(|hit| {
                result
                    .toe_here
                    .is_none_or(|here| hit.point.y > ground_there(here) + config.edge_mismatch_m)
            }) {
                result.toe_here = Some(hit);
            }
        }
    }
    let low = |hit: Option<RayHit>, y: f32| hit.is_none_or(|h| h.point.y < y);
    let wanted = request
        .support_check_below_y
        .is_none_or(|y| low(result.heel, y) && low(result.toe, y));
    if let Some(offset) = request
        .support_check_offset_world
        .filter(|o| o.is_finite() && wanted)
    {
        let at = result.predicted_world + Vec3::new(offset.x, 0.0, offset.y);
        let extra_up_m = rise_allowance_m(result.look_ahead_used_xz.length(), config);
        result.support_check = Some(cast_down(world, at, extra_up_m, config, filter));
        result.rays_cast += 1;
    }
    result
}

/// The plane a foot stands on: `normal · x = offset_m` (world, unit normal with +Y up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupportPlane {
    pub normal_world: Vec3,
    pub offset_m: f32,
}

/// Which hits made the plane (IK-4), for metrics and debug draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum SupportSource {
    /// Heel and toe on one surface: the plane through both.
    #[default]
    HeelAndToe,
    /// Heel and toe on two surfaces (a step edge): the higher hit alone.
    Edge,
    /// Heel and toe on two differently sloped surfaces meeting in a concave crease (the
    /// foot of a ramp): the plane through both hits, so heel and toe both touch.
    Crease,
    /// Only the heel hit was usable (the toe missed or hit a riser).
    HeelOnly,
    /// Only the toe hit was usable.
    ToeOnly,
}

impl SupportPlane {
    pub const FLAT_AT_ZERO: SupportPlane = SupportPlane {
        normal_world: Vec3::Y,
        offset_m: 0.0,
    };

    /// The plane through `point_world` with `normal_world` (normalised; `None` when not
    /// finite or facing down).
    pub fn through(point_world: Vec3, normal_world: Vec3) -> Option<SupportPlane> {
        let n = normal_world.try_normalize()?;
        if n.y <= 1e-3 || !point_world.is_finite() {
            return None;
        }
        Some(SupportPlane {
            normal_world: n,
            offset_m: n.dot(point_world),
        })
    }

    /// Height of the plane at world `(x, z)`.
    pub fn height_at(&self, x: f32, z: f32) -> f32 {
        let n = self.normal_world;
        (self.offset_m - n.x * x - n.z * z) / n.y
    }
}

/// Fits the support plane from a probe result (IK-4). Hits steeper than the walkable limit
/// are rejected; when heel and toe are usable but lie further than `edge_mismatch_m` from
/// each other's plane, the foot is over an edge and the **higher** hit is kept (the foot
/// cannot be lower than the nosing it overhangs). `None` when nothing usable was hit.
pub fn fit_support_plane(
    result: &FootProbeResult,
    config: &ProbeConfig,
) -> Option<(SupportPlane, SupportSource)> {
    let min_up = config.max_support_slope_rad.cos();
    let usable = |hit: Option<RayHit>| {
        hit.filter(|h| h.point.is_finite() && h.normal.is_finite() && h.normal.y >= min_up)
    };
    let heel = usable(result.heel);
    let toe = usable(result.toe);
    match (heel, toe) {
        (Some(h), Some(t)) => {
            let heel_plane = SupportPlane::through(h.point, h.normal)?;
            let toe_plane = SupportPlane::through(t.point, t.normal)?;
            let toe_gap = (t.point.y - heel_plane.height_at(t.point.x, t.point.z)).abs();
            let heel_gap = (h.point.y - toe_plane.height_at(h.point.x, h.point.z)).abs();
            // Hits on the same slope at about the same height with no riser found between
            // them are one uneven surface (two pebbles, a bump's flanks), not a step: their
            // tangent planes may miss each other by more than the mismatch, but keeping the
            // higher hit's plane would sink the other sole point (3 cm into a pebble).
            let stepped = result.riser || (h.point.y - t.point.y).abs() > config.edge_mismatch_m;
            let uneven = !stepped && same_slope(h, t);
            if toe_gap.max(heel_gap) <= config.edge_mismatch_m || uneven {
                // Through both hits, tilted across the foot as the two normals say. The
                // two normals' mean alone, through the midpoint, holds each sole point off
                // its hit by half their mismatch: a heel on a 2 cm pebble and a ball on the
                // floor stood a whole stance with the ball 8 mm in the air.
                let mid = 0.5 * (h.point + t.point);
                let mean = h.normal + t.normal;
                let normal = match (t.point - h.point).try_normalize() {
                    Some(chord) => mean - chord * chord.dot(mean),
                    None => mean,
                };
                let plane = SupportPlane::through(mid, normal)
                    .or_else(|| SupportPlane::through(mid, mean))?;
                Some((plane, SupportSource::HeelAndToe))
            } else if let Some(plane) = crease_plane(h, t).filter(|_| !result.riser) {
                Some((plane, SupportSource::Crease))
            } else if t.point.y >= h.point.y {
                Some((toe_plane, SupportSource::Edge))
            } else {
                Some((heel_plane, SupportSource::Edge))
            }
        }
        (Some(h), None) => Some((
            SupportPlane::through(h.point, h.normal)?,
            SupportSource::HeelOnly,
        )),
        (None, Some(t)) => Some((
            SupportPlane::through(t.point, t.normal)?,
            SupportSource::ToeOnly,
        )),
        (None, None) => None,
    }
}

/// Heel and toe hits on surfaces of the same slope (within 5°): a step between them is a
/// riser, not a crease or a crest.
pub(crate) fn same_slope(heel: RayHit, toe: RayHit) -> bool {
    heel.normal.angle_between(toe.normal) < 5f32.to_radians()
}

/// Two hits on differently sloped surfaces in a concave crease (the higher hit rises above
/// the lower surface carried on, as at the foot of a ramp, not a step's riser): the plane
/// through both hits, level across the foot. `None` for steps (same slope both sides: a
/// riser between them) and for convex crests.
fn crease_plane(heel: RayHit, toe: RayHit) -> Option<SupportPlane> {
    if same_slope(heel, toe) {
        return None;
    }
    lower_plane_if_concave(heel, toe)?;
    let chord = (toe.point - heel.point).try_normalize()?;
    // Up, minus its part along the chord: normal to the chord, level across the foot.
    let normal = (Vec3::Y - chord * chord.y).try_normalize()?;
    SupportPlane::through(0.5 * (heel.point + toe.point), normal)
}

/// On a concave edge ([`SupportSource::Edge`] where the higher hit rises above the lower
/// surface), the plane of the lower hit: the foot must stay above both surfaces, which at
/// the foot of a ramp is not the same as above the higher one alone. `None` when the hits
/// do not form an edge, or at a convex crest.
pub fn other_surface(result: &FootProbeResult, source: SupportSource) -> Option<SupportPlane> {
    if source != SupportSource::Edge {
        return None;
    }
    lower_plane_if_concave(result.heel?, result.toe?)
}

/// On a convex crest the heel and toe probes straddle (a bump, a pebble, a ramp's top;
/// not a riser), the lower hit's tangent plane. [`SupportSource::Edge`] fits the higher
/// hit's plane alone, which carried over the lower side holds that sole point in the air
/// (a ball 3 cm over a pebble's flank through a whole stance). Each tangent plane of a
/// convex surface lies above it, so the lower of the two under each sole point sets it on
/// its own side without sinking it. `None` for any other fit.
pub fn crest_surface(result: &FootProbeResult, source: SupportSource) -> Option<SupportPlane> {
    let (heel, toe) = (result.heel?, result.toe?);
    if source != SupportSource::Edge || result.riser || same_slope(heel, toe) {
        return None;
    }
    if lower_plane_if_concave(heel, toe).is_some() {
        return None;
    }
    let lower = if toe.point.y >= heel.point.y {
        heel
    } else {
        toe
    };
    SupportPlane::through(lower.point, lower.normal)
}

/// The plane of one side of a step the heel and toe probes straddle: the toe's tread
/// (`toward_toe`) or the heel's.
pub fn tread_plane(result: &FootProbeResult, toward_toe: bool) -> Option<SupportPlane> {
    let hit = if toward_toe {
        result.toe?
    } else {
        result.heel?
    };
    SupportPlane::through(hit.point, hit.normal)
}

/// For two hits at different heights, the lower hit's plane when the higher hit rises
/// above it carried on (concave: the foot of a ramp, a step up), where a foot must clear
/// both; `None` when convex (a crest, where the lower surface carried on would pass above
/// the higher hit).
pub(crate) fn lower_plane_if_concave(heel: RayHit, toe: RayHit) -> Option<SupportPlane> {
    let (higher, lower) = if toe.point.y >= heel.point.y {
        (toe, heel)
    } else {
        (heel, toe)
    };
    let lower_plane = SupportPlane::through(lower.point, lower.normal)?;
    (higher.point.y >= lower_plane.height_at(higher.point.x, higher.point.z)).then_some(lower_plane)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::testing::HeightWorld;

    /// A floor at 0 for z < 1.0 and a step at 0.2 beyond, with a gap (no ground) from
    /// `gap_from_z` on.
    fn step_world(gap_from_z: f32) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
        HeightWorld::new(move |_, z| {
            (z < gap_from_z).then_some((if z < 1.0 { 0.0 } else { 0.2 }, Vec3::Y))
        })
    }

    fn request(heel_z: f32, offset_z: f32) -> FootProbeRequest {
        FootProbeRequest {
            heel_world: Vec3::new(0.1, 0.05, heel_z),
            ball_world: Vec3::new(0.1, 0.05, heel_z + 0.18),
            look_ahead_offset_world: Vec2::new(0.0, offset_z),
            landing_heel_from_ball_xz: None,
            single_point: false,
            skip: false,
            ball_ahead_world: None,
            ahead_world: None,
            support_check_offset_world: None,
            support_check_below_y: None,
            body_ground_world: None,
        }
    }

    #[test]
    fn look_ahead_follows_ik1() {
        let c = ProbeConfig::default();
        assert!((c.look_ahead_s(0.0) - 0.05).abs() < 1e-6);
        assert!((c.look_ahead_s(0.875) - 0.125).abs() < 1e-6);
        assert!((c.look_ahead_s(5.0) - 0.20).abs() < 1e-6);
        assert!((c.look_ahead_s(f32::NAN) - 0.05).abs() < 1e-6);
    }

    #[test]
    fn predictive_probe_sees_the_step_ahead_classic_does_not() {
        let world = step_world(f32::INFINITY);
        let config = ProbeConfig::default();
        // Foot 0.4 m before the riser, 0.5 m of look-ahead: the landing is on the step.
        let predictive = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(0.6, 0.5));
        assert_eq!(predictive.heel.unwrap().point.y, 0.2);
        assert_eq!(predictive.toe.unwrap().point.y, 0.2);
        // Two at the landing, two under the foot as it is now.
        assert_eq!(predictive.rays_cast, 4);
        assert_eq!(predictive.heel_here.unwrap().point.y, 0.0);
        let classic = run_foot_probe(
            &world,
            QueryFilter::GROUND,
            &config,
            &FootProbeRequest {
                single_point: true,
                ..request(0.6, 0.5)
            },
        );
        assert_eq!(classic.heel.unwrap().point.y, 0.0);
        assert_eq!(classic.rays_cast, 1);
    }

    #[test]
    fn retry_halves_the_look_ahead_until_something_is_hit() {
        // Ground ends at z = 1.0. Heel at 0.5, ball at 0.68; offset 0.8 → all miss; 0.4 →
        // heel at 0.9 hits, ball at 1.08 misses.
        let world = step_world(1.0);
        let config = ProbeConfig::default();
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(0.5, 0.8));
        assert_eq!(r.retries, 1);
        assert_eq!(r.rays_cast, 6);
        assert!(r.heel.is_some() && r.toe.is_none());
        assert!((r.predicted_world.z - (0.59 + 0.4)).abs() < 1e-5);
        // Everything ahead is a gap: three tries, six rays, nothing; plus the two under the
        // foot as it is now, which miss too.
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(1.5, 0.8));
        assert_eq!(r.retries, 2);
        assert_eq!(r.rays_cast, 8);
        assert!(r.heel_here.is_none());
        assert!(!r.any_hit());
        assert!(r.ran);
    }

    #[test]
    fn an_edge_between_heel_and_toe_is_located_by_bisection() {
        let world = step_world(f32::INFINITY);
        let config = ProbeConfig::default();
        // Heel at z 0.85 on the floor, ball at 1.03 on the 0.2 m step (edge at z 1.0).
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(0.85, 0.0));
        let f = r.edge_fraction.expect("an edge");
        let edge_z = r.heel_probe_xz.y + f * (r.toe_probe_xz.y - r.heel_probe_xz.y);
        assert!((edge_z - 1.0).abs() < 0.18 / 16.0, "edge at {edge_z}");
        assert_eq!(r.rays_cast, 2 + 4);
        // Heel and toe on one tread: no edge, no extra rays.
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(0.3, 0.0));
        assert!(r.edge_fraction.is_none());
        assert_eq!(r.rays_cast, 2);
    }

    #[test]
    fn a_riser_is_told_from_a_crease_whatever_the_slopes() {
        let config = ProbeConfig::default();
        let slope = 18f32.to_radians();
        let ramp_normal = Vec3::new(0.0, slope.cos(), -slope.sin());
        // A flight's last tread (0.2 m) and, below its nosing at z 1.0, a ramp rising
        // toward +z from the floor: a riser between two slopes.
        let tread_then_ramp = HeightWorld::new(move |_, z: f32| {
            Some(if z < 1.0 {
                (0.2, Vec3::Y)
            } else {
                ((z - 1.0) * slope.tan(), ramp_normal)
            })
        });
        let r = run_foot_probe(
            &tread_then_ramp,
            QueryFilter::GROUND,
            &config,
            &request(0.85, 0.0),
        );
        assert!(r.edge_fraction.is_some() && r.riser, "{r:?}");
        // The floor meeting a steep ramp at z 1.0: heel and toe 4 cm and more apart in
        // height, but no jump anywhere between them.
        let steep = 40f32.to_radians();
        let steep_normal = Vec3::new(0.0, steep.cos(), -steep.sin());
        let crease = HeightWorld::new(move |_, z: f32| {
            Some(if z < 1.0 {
                (0.0, Vec3::Y)
            } else {
                ((z - 1.0) * steep.tan(), steep_normal)
            })
        });
        let r = run_foot_probe(&crease, QueryFilter::GROUND, &config, &request(0.88, 0.0));
        assert!(r.edge_fraction.is_some() && !r.riser, "{r:?}");
        // A plain step is a riser too.
        let r = run_foot_probe(
            &step_world(f32::INFINITY),
            QueryFilter::GROUND,
            &config,
            &request(0.85, 0.0),
        );
        assert!(r.riser);
    }

    #[test]
    fn the_feed_forward_ray_reports_a_gap_ahead() {
        // Ground ends at z = 1.0.
        let world = step_world(1.0);
        let config = ProbeConfig::default();
        let mut req = request(0.2, 0.1);
        req.ahead_world = Some(Vec3::new(0.0, 0.0, 0.7));
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert!(matches!(r.ahead, Some(Some(_))), "ground at 0.7");
        req.ahead_world = Some(Vec3::new(0.0, 0.0, 1.3));
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert_eq!(r.ahead, Some(None), "gap at 1.3");
        assert_eq!(r.rays_cast, 2 + 2 + 1, "heel, toe, under the foot, ahead");
        req.ahead_world = None;
        assert_eq!(
            run_foot_probe(&world, QueryFilter::GROUND, &config, &req).ahead,
            None
        );
    }

    #[test]
    fn non_finite_or_skipped_requests_cast_nothing() {
        let world = step_world(f32::INFINITY);
        let config = ProbeConfig::default();
        let mut bad = request(0.5, 0.1);
        bad.look_ahead_offset_world.x = f32::NAN;
        assert_eq!(
            run_foot_probe(&world, QueryFilter::GROUND, &config, &bad),
            FootProbeResult::NOT_RUN
        );
        let skip = FootProbeRequest {
            skip: true,
            ..request(0.5, 0.1)
        };
        assert_eq!(
            run_foot_probe(&world, QueryFilter::GROUND, &config, &skip),
            FootProbeResult::NOT_RUN
        );
        assert_eq!(world.rays(), 0);
    }

    fn hit(point: Vec3, normal: Vec3) -> Option<RayHit> {
        Some(RayHit {
            point,
            normal: normal.normalize(),
            distance_m: 0.3,
        })
    }

    #[test]
    fn support_plane_through_heel_and_toe_on_a_ramp() {
        let n = Vec3::new(0.0, 20f32.to_radians().cos(), -20f32.to_radians().sin());
        let slope = 20f32.to_radians().tan();
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.0, 0.0), n),
            toe: hit(Vec3::new(0.0, 0.2 * slope, 0.2), n),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&r, &ProbeConfig::default()).unwrap();
        assert_eq!(source, SupportSource::HeelAndToe);
        assert!((plane.height_at(0.0, 1.0) - slope).abs() < 1e-4);
        assert!((plane.normal_world - n).length() < 1e-5);
    }

    #[test]
    fn a_foot_across_two_pebbles_rests_on_both_hits() {
        let config = ProbeConfig::default();
        let touches = |plane: SupportPlane, hit: Option<RayHit>| {
            let p = hit.unwrap().point;
            (plane.height_at(p.x, p.z) - p.y).abs() < 1e-5
        };
        // Heel on a 2 cm pebble's crown (tilted 2°), ball on the floor: the normals agree
        // within the mismatch, and the plane goes through both hits, not between them.
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.02, 0.0), Vec3::new(0.0, 1.0, -0.04)),
            toe: hit(Vec3::new(0.0, 0.0, 0.18), Vec3::Y),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&r, &config).unwrap();
        assert_eq!(source, SupportSource::HeelAndToe);
        assert!(touches(plane, r.heel) && touches(plane, r.toe), "{plane:?}");
        // Heel on one pebble's near flank, ball on the next one's, both facing back about
        // 10° and 6 mm apart in height: their tangent planes miss each other by over 3 cm,
        // but nothing between them is a riser. The higher hit's plane alone held the heel
        // 3 cm inside its pebble for a whole stance.
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.029, 0.0), Vec3::new(0.0, 0.99, -0.135)),
            toe: hit(Vec3::new(0.0, 0.035, 0.175), Vec3::new(0.0, 0.98, -0.206)),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&r, &config).unwrap();
        assert_eq!(source, SupportSource::HeelAndToe);
        assert!(touches(plane, r.heel) && touches(plane, r.toe), "{plane:?}");
        // The same two hits with a riser found between them are a step: the higher tread.
        let r = FootProbeResult { riser: true, ..r };
        let (plane, source) = fit_support_plane(&r, &config).unwrap();
        assert_eq!(source, SupportSource::Edge);
        assert!(touches(plane, r.toe), "{plane:?}");
    }

    #[test]
    fn riser_hits_are_rejected_and_edges_keep_the_higher_tread() {
        let config = ProbeConfig::default();
        // Toe hit a riser (horizontal normal): rejected, heel alone.
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.0, 0.0), Vec3::Y),
            toe: hit(Vec3::new(0.0, 0.1, 0.2), -Vec3::Z),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&r, &config).unwrap();
        assert_eq!(source, SupportSource::HeelOnly);
        assert_eq!(plane.height_at(0.0, 0.2), 0.0);
        // Heel on the lower tread, toe on the upper one 15 cm higher: an edge, keep the top.
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.0, 0.0), Vec3::Y),
            toe: hit(Vec3::new(0.0, 0.15, 0.2), Vec3::Y),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&r, &config).unwrap();
        assert_eq!(source, SupportSource::Edge);
        assert!((plane.height_at(0.0, 0.0) - 0.15).abs() < 1e-6);
        // Going down: heel on the upper tread.
        let r = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.15, 0.0), Vec3::Y),
            toe: hit(Vec3::new(0.0, 0.0, 0.2), Vec3::Y),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        assert_eq!(
            fit_support_plane(&r, &config)
                .unwrap()
                .0
                .height_at(0.0, 0.2),
            0.15
        );
        // The lower surface is kept as the second plane the foot must clear.
        let other = other_surface(&r, fit_support_plane(&r, &config).unwrap().1).unwrap();
        assert_eq!(other.height_at(0.0, 0.2), 0.0);
        // A crest (20° ramp below the heel, flat top under the toe): convex, the flat top
        // alone; the ramp carried on would float the toe above the top.
        let up = Vec3::new(0.0, 20f32.to_radians().cos(), -20f32.to_radians().sin());
        let crest = FootProbeResult {
            heel: hit(Vec3::new(0.0, 1.47, 0.0), up),
            toe: hit(Vec3::new(0.0, 1.50, 0.2), Vec3::Y),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        assert!(other_surface(&crest, fit_support_plane(&crest, &config).unwrap().1).is_none());
        assert_eq!(
            fit_support_plane(&crest, &config).unwrap().1,
            SupportSource::Edge
        );
        // ...and the ramp as the crest plane: the heel on the ramp, not held over it on the
        // top carried back. The lower envelope of the two never dips below either hit.
        let source = fit_support_plane(&crest, &config).unwrap().1;
        let ramp = crest_surface(&crest, source).unwrap();
        assert!((ramp.height_at(0.0, 0.0) - 1.47).abs() < 1e-5);
        assert!(ramp.height_at(0.0, 0.2) > 1.50);
        // A step is no crest: the foot stays on the tread it has (going down, above).
        assert!(crest_surface(&r, fit_support_plane(&r, &config).unwrap().1).is_none());
        // The foot of the same ramp (flat under the heel, ramp under the toe): a concave
        // crease, the plane through both hits so heel and toe both touch.
        let foot_of_ramp = FootProbeResult {
            heel: hit(Vec3::new(0.0, 0.0, 0.0), Vec3::Y),
            toe: hit(Vec3::new(0.0, 0.04, 0.2), up),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        let (plane, source) = fit_support_plane(&foot_of_ramp, &config).unwrap();
        assert_eq!(source, SupportSource::Crease);
        assert!(plane.height_at(0.0, 0.0).abs() < 1e-5);
        assert!((plane.height_at(0.0, 0.2) - 0.04).abs() < 1e-5);
        // Both on risers: no support.
        let r = FootProbeResult {
            heel: hit(Vec3::ZERO, Vec3::Z),
            toe: hit(Vec3::ZERO, Vec3::X),
            ran: true,
            ..FootProbeResult::NOT_RUN
        };
        assert!(fit_support_plane(&r, &config).is_none());
    }

    #[test]
    fn a_ray_that_starts_inside_something_finds_no_support() {
        // A surface exactly where the rays start (30 cm over the foot: a ray starting in a
        // wall or a step hits at once, at distance 0) is not ground to stand on.
        let world = HeightWorld::new(|_, _| Some((0.30, Vec3::Y)));
        let config = ProbeConfig::default();
        let mut req = request(0.0, 0.0);
        req.heel_world.y = 0.0;
        req.ball_world.y = 0.0;
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert!(r.heel.is_none() && r.toe.is_none(), "{r:?}");
        // A hair lower, it is ground.
        let world = HeightWorld::new(|_, _| Some((0.29, Vec3::Y)));
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert_eq!(r.heel.unwrap().point.y, 0.29);
    }

    #[test]
    fn a_toe_under_the_next_tread_is_probed_again_from_its_heels() {
        // A foot planted across a riser a tread above the body: the heel over a tread at
        // 0.2, the ball over the next one at 0.4, the rays starting 0.3 over the body's
        // height (0.05). The heel's finds its tread; the toe's starts inside the step, and
        // cast again from above the heel's ground it finds the tread it is over: an edge,
        // a riser, not a foot flat on the lower tread with its toe in the step.
        let world = HeightWorld::new(|_, z| Some((if z < 1.0 { 0.2 } else { 0.4 }, Vec3::Y)));
        let config = ProbeConfig::default();
        let mut req = request(0.9, 0.0);
        req.heel_world.y = 0.05;
        req.ball_world.y = 0.05;
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert_eq!(r.heel.map(|h| h.point.y), Some(0.2), "{r:?}");
        assert_eq!(r.toe.map(|h| h.point.y), Some(0.4), "{r:?}");
        assert!(r.riser && r.edge_fraction.is_some(), "{r:?}");
        assert!(r.toe_seen_from_above, "{r:?}");
        // Two rays, the toe's again, and the bisection's.
        assert_eq!(r.rays_cast, 3 + 4);
        // Both starting inside: nothing to stand on, nothing cast again (the tries of two
        // rays each only).
        let high = HeightWorld::new(|_, _| Some((0.4, Vec3::Y)));
        let r = run_foot_probe(&high, QueryFilter::GROUND, &config, &req);
        let tries = 1 + config.max_retries;
        assert!(r.heel.is_none() && r.toe.is_none(), "{r:?}");
        assert_eq!(r.rays_cast, 2 * tries, "{r:?}");
    }

    #[test]
    fn ground_over_an_animated_foot_deep_under_it_is_found_from_a_step_higher() {
        // A small rig's body a tread or two below the stairs its swinging foot is over:
        // the animated heel and ball 40 cm under the top of the step they are over, so
        // their rays start inside it. Cast again from a step higher, they find its top.
        let world = HeightWorld::new(|_, z| Some((if z < 1.0 { 0.0 } else { 0.45 }, Vec3::Y)));
        let config = ProbeConfig::default();
        let mut req = request(1.02, 0.1);
        req.heel_world.y = 0.05;
        req.ball_world.y = 0.05;
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert_eq!(r.heel_here.map(|h| h.point.y), Some(0.45), "{r:?}");
        assert_eq!(r.toe_here.map(|h| h.point.y), Some(0.45), "{r:?}");
        // Over the floor, the floor.
        let over_floor = run_foot_probe(&world, QueryFilter::GROUND, &config, &request(0.2, 0.1));
        assert_eq!(over_floor.toe_here.map(|h| h.point.y), Some(0.0));
    }

    #[test]
    fn a_riser_just_ahead_of_a_swinging_toe_is_its_ground_a_slope_is_not() {
        // The ball (request: heel at z 0.5, ball 0.18 on, 5 cm up) swings toward a 20 cm
        // step 5 mm ahead of it: probed 1 cm ahead, the tread above is what it must clear;
        // 5 mm short of the riser, the floor it is over.
        let step_at = |riser_z: f32| {
            HeightWorld::new(move |_, z: f32| Some((if z < riser_z { 0.0 } else { 0.2 }, Vec3::Y)))
        };
        let config = ProbeConfig::default();
        let mut req = request(0.5, 0.6);
        req.ball_ahead_world = Some(req.ball_world + Vec3::Z * 0.01);
        let r = run_foot_probe(&step_at(0.685), QueryFilter::GROUND, &config, &req);
        assert_eq!(r.toe_here.unwrap().point.y, 0.2, "{r:?}");
        let r = run_foot_probe(&step_at(0.695), QueryFilter::GROUND, &config, &req);
        assert_eq!(r.toe_here.unwrap().point.y, 0.0, "{r:?}");
        // Up a 40° ramp the ground 4 cm on is 3.4 cm higher (more than a step's 3 cm): the
        // slope carried on, not a step, so the ground under the ball stands.
        let tan = 40f32.to_radians().tan();
        let normal = Vec3::new(0.0, 1.0, -tan).normalize();
        let ramp = HeightWorld::new(move |_, z: f32| Some((z * tan, normal)));
        req.ball_world.y += req.ball_world.z * tan;
        req.heel_world.y += req.heel_world.z * tan;
        req.ball_ahead_world = Some(req.ball_world + Vec3::Z * 0.04);
        let r = run_foot_probe(&ramp, QueryFilter::GROUND, &config, &req);
        let here = r.toe_here.unwrap();
        assert!(
            (here.point.y - req.ball_world.z * tan).abs() < 1e-4,
            "{here:?}"
        );
    }

    #[test]
    fn a_probe_far_up_a_steep_slope_starts_above_it() {
        // A 40° ramp rising from z = 0; the foot stands at its foot, the landing is 0.7 m
        // up it (0.59 m higher: above where a ray 0.30 m over the foot would start).
        let tan = 40f32.to_radians().tan();
        let normal = Vec3::new(0.0, 1.0, -tan).normalize();
        let world = HeightWorld::new(move |_, z: f32| Some((z.max(0.0) * tan, normal)));
        let config = ProbeConfig::default();
        let mut req = request(-0.09, 0.7);
        req.heel_world.y = 0.0;
        req.ball_world.y = 0.0;
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert_eq!(r.retries, 0, "found at the full look-ahead");
        assert_eq!(r.look_ahead_used_xz, Vec2::new(0.0, 0.7));
        for (hit, z) in [(r.heel, -0.09 + 0.7), (r.toe, 0.09 + 0.7)] {
            let hit = hit.expect("hit the ramp");
            assert!((hit.point.y - z * tan).abs() < 1e-4, "{hit:?} at z {z}");
        }
        // Under the foot, the rays start where they always did.
        let here = r.toe_here.unwrap();
        assert!((here.distance_m - (config.probe_up_m - 0.09 * tan)).abs() < 1e-4);
    }

    #[test]
    fn a_foot_sunk_in_a_steep_ramp_far_ahead_of_the_body_is_probed_from_above_it() {
        // A small rig's long stride up a 40° ramp: the body stands at its foot (z = 0), the
        // animated foot is carried level with the body 0.6 m up the slope (its sole 0.5 m
        // under the surface), with a scaled-down probe. Every ray from the foot starts inside
        // the ramp and misses; once more from a walkable slope's rise over the body, they hit.
        let tan = 40f32.to_radians().tan();
        let normal = Vec3::new(0.0, 1.0, -tan).normalize();
        let world = HeightWorld::new(move |_, z: f32| Some((z.max(0.0) * tan, normal)));
        let config = ProbeConfig {
            probe_up_m: 0.2,
            max_rise_ahead_m: 0.29,
            ..ProbeConfig::default()
        };
        let mut req = request(0.5, 0.1);
        req.heel_world.y = 0.0;
        req.ball_world.y = 0.0;
        let lost = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        assert!(lost.heel.is_none() && lost.toe.is_none(), "{lost:?}");
        req.body_ground_world = Some(Vec3::ZERO);
        let r = run_foot_probe(&world, QueryFilter::GROUND, &config, &req);
        for (hit, z) in [(r.heel, 0.5 + 0.1), (r.toe, 0.68 + 0.1)] {
            let hit = hit.expect("hit the ramp");
            assert!((hit.point.y - z * tan).abs() < 1e-4, "{hit:?} at z {z}");
        }
        // One ramp, not an edge between heel and toe (the bisection's rays start as high).
        assert!(!r.riser, "{r:?}");
        assert!(r.rays_cast > lost.rays_cast);
        // Ground found from the foot: no extra ray.
        let flat = HeightWorld::new(|_, _| Some((0.0, Vec3::Y)));
        let on_flat = run_foot_probe(&flat, QueryFilter::GROUND, &config, &req);
        assert_eq!(on_flat.rays_cast, 4);
    }
}
