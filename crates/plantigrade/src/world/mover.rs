//! [`QueryMover`]: a [`CharacterMover`] built on [`SpatialQueries`] alone (SPEC ENG-1,
//! MOVE-7), so an engine that offers only ray and capsule casts still gets a working
//! character. It follows what rapier's `KinematicCharacterController` documents (collide and
//! slide, autostep, snap to ground, climb and slide slope limits) and the readings
//! `plantigrade-rapier` adds around it (floor-plane moves, ledges, step-up continuation,
//! `hit_wall`), written on our query trait.
//!
//! Space: world space, metres, Y up. The capsule floats `skin_m` above the reported feet, so
//! a character resting on the ground has its feet exactly on the surface.

use glam::Vec3;

use super::{
    Capsule, CharacterMover, MoveLimits, MoveRequest, MoveResult, QueryFilter, RayHit,
    SpatialQueries,
};

/// Largest distance (m) of one move; longer requests are clamped.
pub const MAX_MOVE_M: f32 = 10_000.0;
pub use super::MAX_COORDINATE_M;

/// The result of a move that did nothing (non-finite or unusable input).
pub const ZERO_MOVE: MoveResult = MoveResult {
    translation: Vec3::ZERO,
    grounded: false,
    floor_normal: None,
    sliding_down_slope: false,
    hit_wall: false,
};

/// Collide-and-slide passes per move (rapier's limit too).
const MAX_SLIDES: usize = 20;
/// Moves shorter than this (m) are no move (rapier's threshold).
const MIN_MOVE_M: f32 = 1.0e-5;
/// Push (m) away from a surface slid along, so the next cast does not start on it.
const NORMAL_NUDGE_M: f32 = 1.0e-4;
/// Ground-detection reach beyond the skin (m), as rapier's.
const GROUND_PREDICTION_M: f32 = 0.05;
/// Height (m) above a floor contact from which a ray reads the surface's own normal.
const FACE_PROBE_M: f32 = 0.02;
/// A contact whose normal's up component is below this is no ground (rapier's 89.94°).
const MIN_GROUND_UP: f32 = 1.0e-3;
/// Rise (m) beyond the requested vertical motion that marks a move as climbing a step.
const STEP_LIFT_M: f32 = 1.0e-3;
/// Horizontal move (m) left after a step-up lift that is worth a further move.
const STEP_CONTINUE_MIN_M: f32 = 1.0e-3;
/// At most this many moves continue a step-up in one tick.
const STEP_CONTINUE_MOVES: usize = 6;
/// A continuation asks for at most 1 / this times what is left.
const STEP_CONTINUE_MIN_KEPT: f32 = 0.25;
/// Wall contacts remembered per move for `hit_wall` (fixed, no allocation).
const MAX_WALLS: usize = 16;

/// A [`CharacterMover`] (and [`SpatialQueries`], passed through) made from any query source
/// `Q`: wrap a world that only answers queries and hand it to anything that takes
/// `&dyn CharacterPhysics`. `Q` may be a reference (`QueryMover::new(&world)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct QueryMover<Q> {
    pub queries: Q,
}

impl<Q> QueryMover<Q> {
    pub fn new(queries: Q) -> Self {
        Self { queries }
    }
}

impl<Q: SpatialQueries> SpatialQueries for QueryMover<Q> {
    fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.queries
            .cast_ray(origin, direction, max_distance_m, filter)
    }

    fn cast_capsule(
        &self,
        capsule: Capsule,
        center: Vec3,
        direction: Vec3,
        max_distance_m: f32,
        filter: QueryFilter,
    ) -> Option<RayHit> {
        self.queries
            .cast_capsule(capsule, center, direction, max_distance_m, filter)
    }
}

impl<Q: SpatialQueries> CharacterMover for QueryMover<Q> {
    fn move_capsule(&self, request: &MoveRequest) -> MoveResult {
        move_capsule(&self.queries, request)
    }
}

/// What is under a capsule (see [`Mover::probe_floor`]).
#[derive(Clone, Copy, Debug, Default)]
struct FloorProbe {
    /// Normal of the support the capsule touches or nearly touches, walkable or not.
    contact_normal: Option<Vec3>,
    /// Normal of the walkable ground the capsule stands on, if it stands.
    walkable_normal: Option<Vec3>,
    /// The walkable contact is an edge (a stair nosing), not a face.
    on_edge: bool,
    /// The contact is the rim of a drop deeper than a step.
    over_ledge: bool,
}

/// One collide-and-slide pass and what it met.
#[derive(Clone, Copy, Debug)]
struct Movement {
    translation: Vec3,
    /// A contact of upward normal within reach at the end (rapier's `grounded`).
    grounded: bool,
    /// The slide let the motion run down a surface (rapier's `is_sliding_down_slope`).
    sliding: bool,
    walls: [Vec3; MAX_WALLS],
    wall_count: usize,
}

impl Movement {
    fn add_wall(&mut self, normal: Vec3) {
        if self.wall_count < MAX_WALLS {
            self.walls[self.wall_count] = normal;
            self.wall_count += 1;
        }
    }
}

/// One request's fixed inputs.
struct Mover<'a, Q: ?Sized> {
    queries: &'a Q,
    filter: QueryFilter,
    /// The character's capsule (its gap to the world is kept near `skin`).
    body: Capsule,
    /// The capsule swept by collide-and-slide: `body` grown by half the skin, so a cast
    /// stops half a skin short of contact and never starts touching what it rests on.
    swept: Capsule,
    half_skin_m: f32,
    limits: MoveLimits,
    cos_max_climb: f32,
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// Angle (rad) between +Y and unit `n`.
fn angle_from_up(n: Vec3) -> f32 {
    n.y.clamp(-1.0, 1.0).acos()
}

impl<Q: SpatialQueries + ?Sized> Mover<'_, Q> {
    fn walkable(&self, n: Vec3) -> bool {
        n.y >= self.cos_max_climb - 1.0e-4
    }

    /// The first surface met by the body moving `distance_m` along unit `dir` from
    /// `center` closer than its skin: how far it may go and the hit (rapier's cast with a
    /// target distance, which our query trait lacks).
    fn sweep(&self, center: Vec3, dir: Vec3, distance_m: f32) -> Option<(f32, RayHit)> {
        // Look half a skin further: a surface just out of reach of the swept capsule may
        // still come within the skin, and short moves that missed it would creep closer
        // tick by tick until a cast starts touching it.
        let hit = self.queries.cast_capsule(
            self.swept,
            center,
            dir,
            distance_m + self.half_skin_m,
            self.filter,
        )?;
        if !(hit.distance_m.is_finite() && hit.normal.is_finite() && hit.point.is_finite()) {
            return None;
        }
        let normal = hit.normal.try_normalize()?;
        // Back off along `dir` until the body is a whole skin away from the surface.
        let approach = (-dir.dot(normal)).max(1.0e-3);
        let allowed = hit.distance_m - self.half_skin_m / approach;
        if allowed >= distance_m {
            return None;
        }
        Some((allowed.max(0.0), RayHit { normal, ..hit }))
    }

    /// How far (m) the capsule at `center` drops onto what is below, within `distance_m`,
    /// keeping its skin: `None` when nothing is there. Negative (a lift of at most half a
    /// skin per call) only over walkable ground the body came closer to than its skin (off
    /// a stair nosing onto the tread); never off a steeper surface, where lifting the
    /// capsule out each tick would walk it up a slope it is pushed against.
    fn drop_to_ground(&self, center: Vec3, distance_m: f32) -> Option<f32> {
        let hit = self.queries.cast_capsule(
            self.swept,
            center,
            -Vec3::Y,
            distance_m + self.half_skin_m,
            self.filter,
        )?;
        let n = hit.normal.try_normalize()?;
        if !hit.distance_m.is_finite() {
            return None;
        }
        // Dropping by `d` closes the gap along `n` by `d · n.y`.
        let lift = self.half_skin_m / n.y.max(0.1);
        let lowest = if self.walkable(n) { -lift } else { 0.0 };
        Some((hit.distance_m - lift).clamp(lowest, distance_m))
    }

    /// What the body at `center` stands on: a downward cast of skin + 5 cm (rapier's
    /// ground-detection range). A contact within `max_slope_climb_rad` of +Y is walkable and
    /// its normal is read by a short ray onto the contact point (the surface's own normal;
    /// none under it means a stair nosing). A steeper edge is a step when a ray down the
    /// capsule's axis finds walkable ground at most a step below the edge, else a ledge.
    fn probe_floor(&self, center: Vec3) -> FloorProbe {
        let probe_m = 2.0 * self.half_skin_m + GROUND_PREDICTION_M;
        let step_m = self.limits.step_height_m.unwrap_or(0.0);
        let contact = self
            .queries
            .cast_capsule(self.body, center, -Vec3::Y, probe_m, self.filter)
            .and_then(|hit| {
                let n = hit.normal.try_normalize()?;
                (hit.point.is_finite() && n.y >= MIN_GROUND_UP).then_some((hit.point, n))
            });
        let ray_down = |from: Vec3, reach: f32| {
            self.queries
                .cast_ray(from, -Vec3::Y, reach, self.filter)
                .map(|hit| hit.normal)
        };
        let mut on_edge = false;
        let walkable_normal = match contact {
            Some((point, normal)) if self.walkable(normal) => {
                let face = ray_down(point + Vec3::Y * FACE_PROBE_M, 2.0 * FACE_PROBE_M)
                    .filter(|n| self.walkable(*n));
                on_edge = face.is_none();
                Some(face.unwrap_or(normal))
            }
            Some((point, _)) => {
                let reach = center.y - (point.y - step_m - probe_m);
                if reach > 0.0 {
                    ray_down(center, reach).filter(|n| self.walkable(*n))
                } else {
                    None
                }
            }
            None => None,
        };
        let over_ledge = match contact {
            Some((point, normal)) if on_edge || !self.walkable(normal) => {
                let reach = center.y - (point.y - step_m);
                reach > 0.0 && ray_down(center, reach).is_none()
            }
            _ => false,
        };
        FloorProbe {
            contact_normal: contact.map(|(_, n)| n),
            walkable_normal,
            on_edge,
            over_ledge,
        }
    }

    /// Step-up onto what was hit (rapier's autostep rules): room above for the step
    /// height, a free tread at least `step_min_width_m` deep up there, ground on it no
    /// steeper than the climb limit. The capsule is then lifted, moved on by the horizontal
    /// move left and set down on what is below (the tread, or the nosing its rounded bottom
    /// rides up while the move left is short). On success that motion is added to `moved`
    /// and `remaining` is spent but for a rise asked for (a fall is the set-down).
    ///
    /// rapier lifts by the step, nudges onto the tread and leaves the lift in the move's
    /// vertical remainder; with a short move left the capsule falls back along the
    /// nosing, which with these sweeps stalled a walk at the first riser.
    fn step_up(&self, center: Vec3, remaining: &mut Vec3, moved: &mut Vec3) -> bool {
        let Some(step_m) = self.limits.step_height_m else {
            return false;
        };
        let skin = 2.0 * self.half_skin_m;
        let max_height = step_m + skin;
        let min_width = self.limits.step_min_width_m + skin;
        let left_h = horizontal(*remaining);
        let Some(forward) = left_h.try_normalize() else {
            return false;
        };
        let from = center + *moved;
        if self.sweep(from, Vec3::Y, max_height).is_some() {
            return false; // no headroom
        }
        let lifted = from + Vec3::Y * max_height;
        if self.sweep(lifted, forward, min_width).is_some() {
            return false; // the tread is too shallow (or a wall above the step)
        }
        let Some((_, tread)) = self.sweep(lifted + forward * min_width, -Vec3::Y, max_height)
        else {
            return false; // nothing to step onto within the step height
        };
        if angle_from_up(tread.normal) > self.limits.max_slope_climb_rad {
            return false; // a ramp too steep beyond the step
        }
        // Up there, the move left (swept when longer than the tread checked), then down.
        let left_m = left_h.length();
        let ahead_m = if left_m > min_width {
            self.sweep(lifted, forward, left_m)
                .map_or(left_m, |(d, _)| d)
        } else {
            left_m
        };
        let over = lifted + forward * ahead_m;
        let Some((down_m, _)) = self.sweep(over, -Vec3::Y, max_height) else {
            return false;
        };
        let rise_m = max_height - down_m;
        if rise_m <= 0.0 {
            return false; // no higher than where it was: a slide, not a step
        }
        *moved += forward * ahead_m + Vec3::Y * rise_m;
        // A rise asked for (a jump) goes on from up there; a fall is the set-down.
        *remaining = Vec3::Y * remaining.y.max(0.0);
        true
    }

    /// Collide-and-slide from `center` by `desired` (rapier's `move_shape`): sweep, stop a
    /// skin short, step up onto walls low enough, otherwise slide along the surface within
    /// the slope limits; then snap down when it started grounded and `snap` allows.
    fn slide(&self, center: Vec3, desired: Vec3, snap: bool) -> Movement {
        let mut out = Movement {
            translation: Vec3::ZERO,
            grounded: false,
            sliding: false,
            walls: [Vec3::ZERO; MAX_WALLS],
            wall_count: 0,
        };
        let grounded_at_start = self.probe_floor(center).contact_normal.is_some();
        let desired_h = horizontal(desired);
        let mut remaining = desired;
        for _ in 0..MAX_SLIDES {
            let distance = remaining.length();
            // (A NaN length stops too.)
            if distance.is_nan() || distance <= MIN_MOVE_M {
                break;
            }
            let dir = remaining / distance;
            let Some((allowed, hit)) = self.sweep(center + out.translation, dir, distance) else {
                out.translation += remaining;
                break;
            };
            out.translation += dir * allowed;
            remaining -= dir * allowed;
            let n = hit.normal;
            // Started within half a skin of the surface (the cast hits at 0 whatever the
            // direction): step out along its normal, or the same hit comes back each pass.
            if hit.distance_m <= 0.0 && dir.dot(n) > -1.0e-3 {
                out.translation += n * self.half_skin_m;
                continue;
            }
            if n.y < self.cos_max_climb - 1.0e-4 && n.y > -0.5 {
                out.add_wall(n);
            }
            // A riser's face is vertical; the cast's normal may tip a hair below level
            // (-5e-6 on the 15 cm flight), which read as a ceiling refused the step and
            // stalled a small rig at a riser for good.
            let is_ceiling = n.y < -MIN_GROUND_UP;
            let angle = angle_from_up(n);
            let is_wall = angle >= self.limits.max_slope_climb_rad && !is_ceiling;
            if is_wall && self.step_up(center, &mut remaining, &mut out.translation) {
                continue;
            }
            let is_nonslip = angle <= self.limits.min_slope_slide_rad;
            remaining = self.slide_along(
                desired_h, desired.y, remaining, n, is_wall, is_nonslip, &mut out,
            );
        }
        let end = center + out.translation;
        out.grounded = self.probe_floor(end).contact_normal.is_some();
        // Snap to the ground below, only when the move started grounded and is not rising.
        // A move that asked for no rise snaps even when it rose (the slide nudges off a
        // steep slope pushed into would otherwise creep the capsule up it).
        if let (true, true, Some(snap_m)) = (
            snap && grounded_at_start,
            out.translation.y <= 0.0 || desired.y <= 0.0,
            self.limits.snap_to_ground_m,
        ) {
            if let Some(drop) = self.drop_to_ground(end, snap_m) {
                out.translation.y -= drop;
                out.grounded = true;
            }
        }
        out
    }

    /// What of `remaining` is kept after hitting a surface of normal `n` (rapier's
    /// `handle_slopes`): no climbing a wall by pushing into it, no slipping down a
    /// walkable slope by pushing into it; otherwise the free slide along the surface.
    #[allow(clippy::too_many_arguments)]
    fn slide_along(
        &self,
        desired_h: Vec3,
        desired_y: f32,
        remaining: Vec3,
        n: Vec3,
        is_wall: bool,
        is_nonslip: bool,
        out: &mut Movement,
    ) -> Vec3 {
        // Split into the part away from the surface, the level tangent and the rest.
        let split = |v: Vec3| {
            let into = v.dot(n);
            let normal_part = if into > 0.0 { n * into } else { Vec3::ZERO };
            let tangent = v - n * into;
            let level_dir = n.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::ZERO);
            let level = level_dir * tangent.dot(level_dir);
            (normal_part, level, tangent - level)
        };
        let (_, _, input_vertical) = split(desired_h);
        let (normal_part, level, vertical) = split(remaining);
        let slipping_intent = input_vertical.y < 0.0;
        let slipping = vertical.y < 0.0;
        let climbing_intent = desired_y > 0.0;
        let climbing = vertical.y > 0.0;
        let kept = if (is_wall && climbing && !climbing_intent)
            || (is_nonslip && slipping && !slipping_intent)
        {
            level + normal_part
        } else {
            out.sliding = true;
            normal_part + level + vertical
        };
        kept + n * NORMAL_NUDGE_M
    }
}

/// Collide-and-slide of `request.capsule` on `queries` (see [`QueryMover`]), as rapier's
/// controller with `plantigrade-rapier`'s readings around it:
///
/// - The body floats `skin_m` above the reported feet; sweeps stop a skin short of contact.
/// - Starting on walkable ground, a move pushing into it runs along the floor plane
///   (keeping its horizontal part); from a stair nosing, one that leaves the ground is run
///   again level.
/// - Walls up to `step_height_m` with a free tread of `step_min_width_m` are stepped onto;
///   a lifted move that kept only part of its horizontal motion is continued from where it
///   got to (at most `STEP_CONTINUE_MOVES` moves).
/// - Grounded at the start (and not over a ledge's rim), the capsule snaps down onto ground
///   within `snap_to_ground_m` unless the move rises.
/// - `grounded`: walkable ground within skin + 5 cm below at the end; `floor_normal` its
///   normal; `sliding_down_slope`: slid and resting on a slope steeper than
///   `min_slope_slide_rad`; `hit_wall`: a non-walkable contact removed half or more of the
///   horizontal motion into it while not stepping up.
///
/// Returns [`ZERO_MOVE`] for non-finite or unusable input (never panics).
pub fn move_capsule<Q: SpatialQueries + ?Sized>(queries: &Q, request: &MoveRequest) -> MoveResult {
    let MoveRequest {
        capsule,
        limits,
        feet,
        desired_translation,
        dt_s,
        filter,
    } = *request;
    let usable = capsule.is_usable(MAX_MOVE_M)
        && limits.validate().is_ok()
        && feet.is_finite()
        && feet.abs().max_element() <= MAX_COORDINATE_M
        && desired_translation.is_finite()
        && dt_s.is_finite()
        && dt_s >= 0.0;
    if !usable {
        return ZERO_MOVE;
    }
    let half_skin_m = 0.5 * limits.skin_m;
    let mover = Mover {
        queries,
        filter,
        body: capsule,
        swept: Capsule {
            radius_m: capsule.radius_m + half_skin_m,
            ..capsule
        },
        half_skin_m,
        limits,
        cos_max_climb: limits.max_slope_climb_rad.cos(),
    };
    let center = capsule.center_from_feet(feet) + Vec3::Y * limits.skin_m;
    let requested = desired_translation.clamp_length_max(MAX_MOVE_M);

    let start = mover.probe_floor(center);
    // The requested move along the floor plane `n` when it pushes into it (MOVE-7).
    let along_floor = |n: Vec3| {
        let mut desired = requested;
        if desired.dot(n) < 0.0 && n.y > 0.0 {
            desired.y = -(n.x * desired.x + n.z * desired.z) / n.y;
        }
        desired
    };
    // Nothing under the capsule, or only a ledge's rim: it falls, it does not snap.
    let snap = !(start.contact_normal.is_none() || start.over_ledge);
    let run = |desired: Vec3| {
        let movement = mover.slide(center, desired, snap);
        let end = mover.probe_floor(center + movement.translation);
        (desired, movement, end)
    };
    let (mut desired, mut movement, mut end) =
        run(start.walkable_normal.map_or(requested, along_floor));
    // On a stair nosing the contact normal tilts toward the drop; a move along it that
    // leaves the ground is run again level, so the step is climbed, not launched from.
    if start.on_edge && !(movement.grounded && end.walkable_normal.is_some()) {
        let level = along_floor(Vec3::Y);
        if level != desired {
            (desired, movement, end) = run(level);
        }
    }
    // Climbing a riser, the rounded bottom rides up the nosing and keeps little of the
    // horizontal move: once lifted, the rest is made from up there, scaled by the share the
    // last move kept, never past what was asked.
    let mut kept =
        horizontal(movement.translation).length() / horizontal(desired).length().max(1e-6);
    let mut moves = 0;
    let mut continued = false;
    while moves < STEP_CONTINUE_MOVES {
        let lifted = movement.translation.y > desired.y + STEP_LIFT_M;
        let left_h = horizontal(desired) - horizontal(movement.translation);
        let left_m = left_h.length();
        if !lifted || left_m <= STEP_CONTINUE_MIN_M || left_h.dot(horizontal(desired)) <= 0.0 {
            break;
        }
        let from = center + movement.translation;
        let mut ask = left_h / kept.clamp(STEP_CONTINUE_MIN_KEPT, 1.0);
        let mut step = mover.slide(from, ask, true);
        moves += 1;
        let mut went_m = horizontal(step.translation).length();
        while went_m > left_m + STEP_CONTINUE_MIN_M && moves < STEP_CONTINUE_MOVES {
            ask *= left_m / went_m;
            step = mover.slide(from, ask, true);
            moves += 1;
            went_m = horizontal(step.translation).length();
        }
        kept = went_m / ask.length().max(1e-6);
        if went_m > left_m + STEP_CONTINUE_MIN_M || !step.grounded {
            break;
        }
        let translation = movement.translation + step.translation;
        movement = Movement {
            translation,
            ..step
        };
        continued = true;
    }
    if continued {
        end = mover.probe_floor(center + movement.translation);
    }
    let translation = movement.translation;
    if !translation.is_finite() {
        return ZERO_MOVE;
    }
    let grounded = movement.grounded && end.walkable_normal.is_some();
    let sliding_down_slope = reads_as_sliding_down_slope(
        movement.sliding,
        grounded,
        end.contact_normal,
        limits.min_slope_slide_rad,
    );
    let hit_wall = reads_as_wall(desired, translation, &movement.walls[..movement.wall_count]);
    MoveResult {
        translation,
        grounded,
        floor_normal: if grounded { end.walkable_normal } else { None },
        sliding_down_slope,
        hit_wall,
    }
}

/// Whether a move ended sliding down a slope: the slide let it run down a surface (`slid`),
/// it is not on walkable ground, and the surface it rests on (`contact_normal`) is steeper
/// than `min_slope_slide_rad` but not a wall or ceiling. Shared with `plantigrade-rapier`.
pub fn reads_as_sliding_down_slope(
    slid: bool,
    grounded: bool,
    contact_normal: Option<Vec3>,
    min_slope_slide_rad: f32,
) -> bool {
    let cos_min_slide = min_slope_slide_rad.cos();
    slid && !grounded && contact_normal.is_some_and(|n| n.y < cos_min_slide && n.y > MIN_GROUND_UP)
}

/// Whether a move that asked for `desired` and made `translation` (m, world) hit a wall:
/// one of the contacts `wall_normals` took away more than half of the horizontal motion
/// asked into it. While climbing a riser the capsule rises above the request, and that
/// riser is no wall. Shared with `plantigrade-rapier`'s reading of rapier's controller.
pub fn reads_as_wall(desired: Vec3, translation: Vec3, wall_normals: &[Vec3]) -> bool {
    let stepping = translation.y > desired.y + STEP_LIFT_M;
    let desired_h = horizontal(desired);
    let achieved_h = horizontal(translation);
    !stepping
        && wall_normals.iter().any(|n| {
            let Some(into) = (-horizontal(*n)).try_normalize() else {
                return false;
            };
            let wanted = desired_h.dot(into);
            wanted > 1.0e-6 && achieved_h.dot(into) < 0.5 * wanted
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{CharacterPhysics, Layers};

    /// Solid half-spaces: each is everything below the plane through `point` with outward
    /// unit `normal`. Answers rays and capsule casts exactly (a cast starting inside a
    /// solid hits at 0, as rapier's does with `stop_at_penetration`).
    struct Planes(Vec<(Vec3, Vec3)>);

    impl Planes {
        fn floor() -> Self {
            Planes(vec![(Vec3::ZERO, Vec3::Y)])
        }
    }

    impl SpatialQueries for Planes {
        fn cast_ray(&self, o: Vec3, dir: Vec3, max: f32, _: QueryFilter) -> Option<RayHit> {
            let dir = dir.try_normalize()?;
            self.0
                .iter()
                .filter_map(|&(p, n)| {
                    let gap = n.dot(o - p);
                    let rate = n.dot(dir);
                    let t = if gap <= 0.0 {
                        0.0
                    } else if rate < 0.0 {
                        gap / -rate
                    } else {
                        return None;
                    };
                    (t <= max).then_some(RayHit {
                        point: o + dir * t,
                        normal: n,
                        distance_m: t,
                    })
                })
                .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
        }

        fn cast_capsule(
            &self,
            c: Capsule,
            center: Vec3,
            dir: Vec3,
            max: f32,
            _: QueryFilter,
        ) -> Option<RayHit> {
            let dir = dir.try_normalize()?;
            self.0
                .iter()
                .filter_map(|&(p, n)| {
                    // The capsule's deepest point toward the plane.
                    let deepest = -n * c.radius_m - Vec3::Y * (c.half_height_m * n.y.signum());
                    let gap = n.dot(center + deepest - p);
                    let rate = n.dot(dir);
                    let t = if gap <= 0.0 {
                        0.0
                    } else if rate < 0.0 {
                        gap / -rate
                    } else {
                        return None;
                    };
                    (t <= max).then_some(RayHit {
                        point: center + deepest + dir * t,
                        normal: n,
                        distance_m: t,
                    })
                })
                .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
        }
    }

    fn request(feet: Vec3, desired: Vec3) -> MoveRequest {
        MoveRequest {
            capsule: Capsule::from_height(1.8, 0.3),
            limits: MoveLimits::default(),
            feet,
            desired_translation: desired,
            dt_s: 1.0 / 60.0,
            filter: QueryFilter {
                layers: Layers::GROUND,
                exclude: None,
            },
        }
    }

    /// Runs `ticks` moves of `velocity` (m/s, gravity added) and returns the feet and the
    /// last result.
    fn walk(
        world: &dyn CharacterPhysics,
        mut feet: Vec3,
        velocity: Vec3,
        ticks: usize,
    ) -> (Vec3, MoveResult) {
        let dt = 1.0 / 60.0;
        let mut vy = 0.0;
        let mut last = ZERO_MOVE;
        for _ in 0..ticks {
            vy = if last.grounded { 0.0 } else { vy - 24.5 * dt };
            let desired = Vec3::new(velocity.x, velocity.y + vy - 1.0, velocity.z) * dt;
            last = world.move_capsule(&request(feet, desired));
            feet += last.translation;
        }
        (feet, last)
    }

    #[test]
    fn walks_on_flat_ground_at_the_speed_asked_with_feet_on_the_surface() {
        let world = QueryMover::new(Planes::floor());
        let (feet, last) = walk(&world, Vec3::ZERO, Vec3::new(0.0, 0.0, 1.75), 60);
        assert!((feet.z - 1.75).abs() < 1e-3, "{feet}");
        assert!(feet.y.abs() < 1e-4, "{feet}");
        assert!(last.grounded && last.floor_normal == Some(Vec3::Y));
        assert!(!last.hit_wall && !last.sliding_down_slope);
    }

    #[test]
    fn slides_along_a_wall_it_meets_at_an_angle() {
        // A wall facing -X at x = 1.
        let world = QueryMover::new(Planes(vec![
            (Vec3::ZERO, Vec3::Y),
            (Vec3::new(1.0, 0.0, 0.0), -Vec3::X),
        ]));
        let v = Vec3::new(1.0, 0.0, 1.0).normalize() * 3.0;
        let (feet, last) = walk(&world, Vec3::ZERO, v, 120);
        // Stopped a radius and a skin short of the wall, still sliding along +Z.
        assert!((feet.x - (1.0 - 0.3 - 0.01)).abs() < 2e-3, "{feet}");
        assert!(feet.z > 3.0, "{feet}");
        assert!(last.grounded);
        // Straight into it: no progress and a wall hit.
        let r = world.move_capsule(&request(feet, Vec3::new(0.05, 0.0, 0.0)));
        assert!(r.translation.x.abs() < 1e-3 && r.hit_wall, "{r:?}");
    }

    #[test]
    fn refuses_a_slope_steeper_than_the_climb_limit_and_slides_down_it() {
        // A 60° slope rising along +Z from z = 1.
        let a = 60f32.to_radians();
        let n = Vec3::new(0.0, a.cos(), -a.sin());
        let world = QueryMover::new(Planes(vec![
            (Vec3::ZERO, Vec3::Y),
            (Vec3::new(0.0, 0.0, 1.0), n),
        ]));
        let (feet, _) = walk(&world, Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 120);
        assert!(feet.y < 0.05, "climbed the steep slope to {feet}");
        // Dropped onto it from above, the capsule slides down, not stands.
        let start = Vec3::new(0.0, 1.4, 1.0 + 1.0 / a.tan());
        let r = world.move_capsule(&request(start, Vec3::new(0.0, -0.2, 0.0)));
        assert!(!r.grounded, "{r:?}");
        let (feet, _) = walk(&world, start, Vec3::ZERO, 60);
        assert!(feet.y < 0.3 && feet.z < start.z, "{feet}");
    }

    #[test]
    fn walks_up_a_slope_within_the_climb_limit() {
        let a = 30f32.to_radians();
        let n = Vec3::new(0.0, a.cos(), -a.sin());
        let world = QueryMover::new(Planes(vec![
            (Vec3::ZERO, Vec3::Y),
            (Vec3::new(0.0, 0.0, 1.0), n),
        ]));
        let (feet, last) = walk(&world, Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 120);
        // The rounded bottom rests on the slope off its lowest point: the feet float by
        // (r + skin) (1 / cos a − 1) above the surface under them.
        let expected = (feet.z - 1.0) * a.tan() + 0.31 * (1.0 / a.cos() - 1.0);
        assert!(feet.z > 2.5 && (feet.y - expected).abs() < 0.02, "{feet}");
        assert!(last.grounded && !last.hit_wall);
    }

    #[test]
    fn falls_when_nothing_is_below() {
        let world = QueryMover::new(Planes::floor());
        let start = Vec3::new(0.0, 2.0, 0.0);
        let r = world.move_capsule(&request(start, Vec3::new(0.0, -0.05, 0.0)));
        assert!(
            !r.grounded && (r.translation.y + 0.05).abs() < 1e-5,
            "{r:?}"
        );
        let (feet, last) = walk(&world, start, Vec3::ZERO, 120);
        assert!(feet.y.abs() < 1e-3 && last.grounded, "{feet}");
    }

    #[test]
    fn garbage_input_is_a_zero_move() {
        let world = QueryMover::new(Planes::floor());
        let base = request(Vec3::ZERO, Vec3::new(0.0, 0.0, 0.03));
        let bad = [
            MoveRequest {
                feet: Vec3::NAN,
                ..base
            },
            MoveRequest {
                desired_translation: Vec3::new(f32::INFINITY, 0.0, 0.0),
                ..base
            },
            MoveRequest {
                dt_s: f32::NAN,
                ..base
            },
            MoveRequest {
                capsule: Capsule {
                    radius_m: -1.0,
                    half_height_m: 0.5,
                },
                ..base
            },
            MoveRequest {
                limits: MoveLimits {
                    skin_m: f32::NAN,
                    ..MoveLimits::default()
                },
                ..base
            },
        ];
        for r in bad {
            assert_eq!(world.move_capsule(&r), ZERO_MOVE, "{r:?}");
        }
    }
}
