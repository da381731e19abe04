//! The `SpatialQueries` and `CharacterMover` answers written against any rapier [`QueryPipeline`], so a host that owns its
//! own rapier world (e.g. a Bevy app with `bevy_rapier3d`) can run plantigrade's queries on
//! it: build a pipeline with [`rapier_filter`] (or its own filter) and call these.
//!
//! Space: world space, metres, Y up.

use glam::Vec3;
use plantigrade::world::mover::{reads_as_sliding_down_slope, reads_as_wall};
use plantigrade::world::{Capsule, Layers, MoveResult, RayHit};
use rapier3d::control::{
    CharacterLength, EffectiveCharacterMovement, KinematicCharacterController,
};
use rapier3d::geometry::{ColliderHandle, Group, InteractionGroups, InteractionTestMode, Ray};
use rapier3d::math::Pose;
use rapier3d::parry::query::ShapeCastOptions;
use rapier3d::parry::shape::Capsule as CapsuleShape;
use rapier3d::pipeline::{QueryFilter as RapierFilter, QueryPipeline};

/// The query limits every backend applies (also a single move's longest span here).
pub use plantigrade::world::{MAX_COORDINATE_M, MAX_QUERY_DISTANCE_M};

/// The rapier collision groups of a collider on `layers`: member of those layers,
/// interacting with all.
pub fn collider_groups(layers: Layers) -> InteractionGroups {
    InteractionGroups::new(
        Group::from_bits_retain(layers.0),
        Group::ALL,
        InteractionTestMode::And,
    )
}

/// The rapier collision groups of a query that sees colliders on any of `layers`.
pub fn query_groups(layers: Layers) -> InteractionGroups {
    InteractionGroups::new(
        Group::ALL,
        Group::from_bits_retain(layers.0),
        InteractionTestMode::And,
    )
}

/// A rapier filter for plantigrade layers, optionally skipping one collider (the querying
/// character's own capsule).
pub fn rapier_filter(layers: Layers, exclude: Option<ColliderHandle>) -> RapierFilter<'static> {
    RapierFilter {
        groups: Some(query_groups(layers)),
        exclude_collider: exclude,
        ..RapierFilter::default()
    }
    .exclude_sensors()
}

fn finite_point(p: Vec3) -> bool {
    p.is_finite() && p.abs().max_element() <= MAX_COORDINATE_M
}

/// A unit direction and a clamped distance, or `None` for unusable input.
fn ray_params(direction: Vec3, max_distance_m: f32) -> Option<(Vec3, f32)> {
    if !direction.is_finite() || max_distance_m.is_nan() || max_distance_m < 0.0 {
        return None;
    }
    let direction = direction.try_normalize()?;
    Some((direction, max_distance_m.min(MAX_QUERY_DISTANCE_M)))
}

/// First hit of a solid ray (a ray starting inside a collider hits it at distance 0).
/// `None` for non-finite input, a zero direction or a negative distance.
pub fn cast_ray(
    queries: &QueryPipeline,
    origin: Vec3,
    direction: Vec3,
    max_distance_m: f32,
) -> Option<(ColliderHandle, RayHit)> {
    if !finite_point(origin) {
        return None;
    }
    let (direction, max_distance_m) = ray_params(direction, max_distance_m)?;
    let ray = Ray::new(origin, direction);
    let (handle, hit) = queries.cast_ray_and_get_normal(&ray, max_distance_m, true)?;
    Some((
        handle,
        RayHit {
            point: origin + direction * hit.time_of_impact,
            // Starting inside a shape gives no reliable normal: face the ray back.
            normal: hit.normal.try_normalize().unwrap_or(-direction),
            distance_m: hit.time_of_impact,
        },
    ))
}

/// The rapier shape of an upright capsule, or `None` for a non-finite or non-positive size.
pub fn capsule_shape(capsule: Capsule) -> Option<CapsuleShape> {
    capsule
        .is_usable(MAX_QUERY_DISTANCE_M)
        .then(|| CapsuleShape::new_y(capsule.half_height_m, capsule.radius_m))
}

/// First hit of `capsule` (centred at `center`) swept along `direction` up to
/// `max_distance_m`: the contact point and normal on the collider hit (the normal points
/// out of it, toward the capsule) and the distance travelled. A capsule that starts
/// overlapping something hits it at distance 0.
pub fn cast_capsule(
    queries: &QueryPipeline,
    capsule: Capsule,
    center: Vec3,
    direction: Vec3,
    max_distance_m: f32,
) -> Option<(ColliderHandle, RayHit)> {
    if !finite_point(center) {
        return None;
    }
    let shape = capsule_shape(capsule)?;
    let (direction, max_distance_m) = ray_params(direction, max_distance_m)?;
    let (handle, hit) = queries.cast_shape(
        &Pose::from_translation(center),
        direction,
        &shape,
        ShapeCastOptions {
            max_time_of_impact: max_distance_m,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: true,
        },
    )?;
    Some((
        handle,
        RayHit {
            point: hit.witness1,
            normal: hit.normal1.try_normalize().unwrap_or(-direction),
            distance_m: hit.time_of_impact,
        },
    ))
}

/// Height (m) above a floor contact from which a ray reads the surface's own normal.
const FACE_PROBE_M: f32 = 0.02;
/// Rise (m) beyond the requested vertical motion that marks a move as climbing a step.
const STEP_LIFT_M: f32 = 1.0e-3;
/// rapier's ground-detection distance beyond the offset (m).
const GROUND_PREDICTION_M: f32 = 0.05;

/// Horizontal move (m) left over after a step-up lift that is worth a second move.
const STEP_CONTINUE_MIN_M: f32 = 1.0e-3;

/// At most this many moves continue a step-up in one tick.
const STEP_CONTINUE_MOVES: usize = 6;

/// A continuation asks for at most 1 / this times what is left.
const STEP_CONTINUE_MIN_KEPT: f32 = 0.25;

/// The result of a move that did nothing (non-finite or unusable input).
pub const ZERO_MOVE: MoveResult = MoveResult {
    translation: Vec3::ZERO,
    grounded: false,
    floor_normal: None,
    sliding_down_slope: false,
    hit_wall: false,
};

/// Wall contacts recorded during one move (fixed capacity, no allocation).
#[derive(Clone, Copy)]
struct WallNormals {
    normals: [Vec3; 16],
    count: usize,
}

/// What is under a capsule (see [`probe_floor`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloorProbe {
    /// Normal (world, unit) of the support the capsule touches or nearly touches, walkable
    /// or not (`None`: nothing within the probe distance).
    pub contact_normal: Option<Vec3>,
    /// Normal (world, unit) of the walkable ground the capsule stands on, if it stands.
    pub walkable_normal: Option<Vec3>,
    /// The walkable contact is an edge (a stair nosing the capsule's rounded bottom rests
    /// on, with no face under the contact point): `walkable_normal` is then the rounded
    /// contact's, tilted toward the drop, not a surface's.
    pub on_edge: bool,
    /// The contact is the rim of a drop deeper than a step: straight down the capsule's
    /// axis there is no ground within `step_m` below the contact point. A capsule rolling
    /// over a ledge's rim is falling, not stepping down.
    pub over_ledge: bool,
}

/// Probes what a capsule centred at `center` stands on: a downward capsule cast of
/// `probe_m` (rapier's ground-detection range is `offset + 5 cm`). The contact is walkable
/// when its normal is within `max_climb_rad` of +Y; the walkable normal is then read by a
/// short ray onto the contact point (exact on faces — the shape cast's normal carries a
/// small numerical error — and the tread on a stair nosing). An edge too steep to stand on
/// is a step when a ray straight down the capsule's axis finds walkable ground at most
/// `step_m` below the edge, and a ledge to fall from otherwise.
pub fn probe_floor(
    queries: &QueryPipeline,
    shape: &CapsuleShape,
    center: Vec3,
    probe_m: f32,
    max_climb_rad: f32,
    step_m: f32,
) -> FloorProbe {
    let cos_max_climb = max_climb_rad.cos();
    let walkable = |n: Vec3| n.y >= cos_max_climb - 1.0e-4;
    let below = queries.cast_shape(
        &Pose::from_translation(center),
        -Vec3::Y,
        shape,
        ShapeCastOptions {
            max_time_of_impact: probe_m,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: true,
        },
    );
    let contact = below.and_then(|(_, hit)| Some((hit.witness1, hit.normal1.try_normalize()?)));
    let mut on_edge = false;
    let walkable_normal = match contact {
        Some((point, normal)) if walkable(normal) => {
            let face = cast_ray(
                queries,
                point + Vec3::Y * FACE_PROBE_M,
                -Vec3::Y,
                2.0 * FACE_PROBE_M,
            )
            .map(|(_, hit)| hit.normal)
            .filter(|n| walkable(*n));
            on_edge = face.is_none();
            Some(face.unwrap_or(normal))
        }
        Some((point, _)) => {
            let reach = center.y - (point.y - step_m - probe_m);
            if reach > 0.0 {
                cast_ray(queries, center, -Vec3::Y, reach)
                    .map(|(_, hit)| hit.normal)
                    .filter(|n| walkable(*n))
            } else {
                None
            }
        }
        None => None,
    };
    // Only a tilted contact can be a rim: on a face the capsule stands on the ground.
    let over_ledge = match contact {
        Some((point, normal)) if on_edge || !walkable(normal) => {
            let reach = center.y - (point.y - step_m);
            reach > 0.0 && cast_ray(queries, center, -Vec3::Y, reach).is_none()
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

/// How far (m) a capsule centred at `center` drops straight down onto what is below it,
/// leaving `skin_m` between them; `None` when nothing is within `max_m`.
fn drop_to_floor(
    queries: &QueryPipeline,
    shape: &CapsuleShape,
    center: Vec3,
    max_m: f32,
    skin_m: f32,
) -> Option<f32> {
    let (_, hit) = queries.cast_shape(
        &Pose::from_translation(center),
        -Vec3::Y,
        shape,
        ShapeCastOptions {
            max_time_of_impact: max_m + skin_m,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: true,
        },
    )?;
    Some((hit.time_of_impact - skin_m).max(0.0))
}

fn length_of(length: CharacterLength, capsule: Capsule) -> f32 {
    match length {
        CharacterLength::Absolute(v) => v,
        CharacterLength::Relative(r) => r * capsule.height_m(),
    }
}

/// How far (m) a capsule of `radius_m` against a riser must be carried past where it
/// stands to rest on the nosing at `max_climb_rad` or less from level: the bottom sphere
/// touches the edge at that angle once its centre is `radius · sin(max_climb)` from it,
/// and it starts `radius` (plus the skin) back.
fn step_reach_m(radius_m: f32, max_climb_rad: f32, skin_m: f32) -> f32 {
    // A little past the limiting angle, so the contact is not read as too steep.
    let sin = (max_climb_rad.sin() * 0.9).clamp(0.0, 1.0);
    radius_m * (1.0 - sin) + 2.0 * skin_m
}

/// A step up a riser the way a person takes it, for a capsule that rapier's autostep left
/// against it: up by at most `step_m`, `over` along the tread, then down onto it. `None`
/// when the capsule has no room up there or across, or when what it lands on is not higher
/// than where it stood (no riser) or more than a step up. The returned translation leaves
/// the capsule `skin_m` above what it lands on, as rapier does.
fn step_onto_riser(
    queries: &QueryPipeline,
    shape: &CapsuleShape,
    center: Vec3,
    over: Vec3,
    step_m: f32,
    skin_m: f32,
) -> Option<Vec3> {
    let cast = |from: Vec3, direction: Vec3, distance_m: f32| {
        queries
            .cast_shape(
                &Pose::from_translation(from),
                direction,
                shape,
                ShapeCastOptions {
                    max_time_of_impact: distance_m,
                    target_distance: 0.0,
                    stop_at_penetration: false,
                    compute_impact_geometry_on_penetration: false,
                },
            )
            .map(|(_, hit)| hit.time_of_impact)
    };
    let over_m = over.length();
    let direction = over.try_normalize()?;
    // Room above, then across at that height (less the skin on both moves).
    let up_m = cast(center, Vec3::Y, step_m + skin_m).map_or(step_m, |t| t - skin_m);
    if up_m <= STEP_LIFT_M {
        return None;
    }
    let high = center + Vec3::Y * up_m;
    if cast(high, direction, over_m + skin_m).is_some() {
        return None;
    }
    let above = high + over;
    let down_m = cast(above, -Vec3::Y, up_m + skin_m)? - skin_m;
    let rise_m = up_m - down_m;
    if !(rise_m > STEP_LIFT_M && rise_m <= step_m) {
        return None;
    }
    let translation = over + Vec3::Y * rise_m;
    translation.is_finite().then_some(translation)
}

/// Collide-and-slide of `capsule` standing with its bottom at `feet_world`, by rapier's
/// [`KinematicCharacterController::move_shape`]: sliding, autostep, snap to ground and the
/// slope limits are rapier's. Around that call:
///
/// - **Skin.** rapier keeps the capsule `offset` (0.01 m) away from everything. The capsule
///   is placed `offset` above `feet_world`, so a character resting on the ground reports its
///   feet exactly on the surface (and a spawn point on the ground is a valid start).
/// - **Floor plane (MOVE-7).** When the capsule starts on walkable ground and the desired
///   translation points into it (gravity while walking), it is turned parallel to the floor
///   plane, keeping its horizontal part (the vertical part is replaced by the floor's rise
///   under that horizontal motion); rapier's snap to ground then keeps contact. Without it,
///   pushing into the floor eats into rapier's skin gap and horizontal motion is lost on
///   some ticks (rapier issue #418). On a stair nosing (an edge, see
///   [`FloorProbe::on_edge`]) a move along the rounded contact's plane that leaves the
///   ground is run again with a level floor plane. Translations away from the floor (a
///   jump) and moves that start airborne or on a too-steep slope are passed unchanged.
/// - **Step-up keeps the horizontal move.** A move that lifted the capsule (a riser being
///   climbed) but kept only part of its horizontal motion is continued from where it got
///   to, asking for the rest scaled by the share the last move kept, at most
///   `STEP_CONTINUE_MOVES` calls; a continuation that went past the rest is run again
///   scaled down (and dropped if it still does), and one that leaves the ground is dropped.
/// - **Step-down finishes the snap.** A move down or level that started on walkable ground
///   and ends over nothing within the ground probe (rapier's snap stopped on a nosing's
///   rim) is taken straight down onto walkable ground within the snap distance.
///
/// The output is read as follows:
///
/// - `translation`: rapier's effective translation.
/// - `grounded`: rapier reports ground contact **and** [`probe_floor`] at the end position
///   finds walkable ground (a contact no steeper than `max_slope_climb_angle`, or a stair
///   nosing with a tread within one autostep height below; a ledge edge is not ground).
/// - `floor_normal`: that walkable surface's normal, when grounded.
/// - `sliding_down_slope`: rapier let the motion slide (`is_sliding_down_slope`) **and**
///   the contact under the capsule is steeper than `min_slope_slide_angle` (rapier's flag
///   alone is also set on flat floors, whenever it lets a motion slide).
/// - `hit_wall`: a contact whose normal is too steep to walk on (and not a ceiling)
///   removed at least half of the desired horizontal motion into it, and the controller did
///   not lift the capsule above the requested height (which it does while autostepping) —
///   a wall, another character, or a riser too high or too steep to step; a riser being
///   climbed does not count.
///
/// Returns [`ZERO_MOVE`] for non-finite or out-of-range input (ROB-1).
pub fn move_capsule(
    queries: &QueryPipeline,
    controller: &KinematicCharacterController,
    capsule: Capsule,
    feet_world: Vec3,
    desired_translation: Vec3,
    dt_s: f32,
) -> MoveResult {
    let Some(shape) = capsule_shape(capsule) else {
        return ZERO_MOVE;
    };
    if !finite_point(feet_world)
        || !desired_translation.is_finite()
        || !dt_s.is_finite()
        || dt_s < 0.0
    {
        return ZERO_MOVE;
    }
    let offset_m = length_of(controller.offset, capsule);
    let step_m = controller
        .autostep
        .map_or(0.0, |a| length_of(a.max_height, capsule));
    let probe_m = offset_m + GROUND_PREDICTION_M;
    let max_climb = controller.max_slope_climb_angle;
    let center = capsule.center_from_feet(feet_world) + Vec3::Y * offset_m;

    let requested = desired_translation.clamp_length_max(MAX_QUERY_DISTANCE_M);
    let start = probe_floor(queries, &shape, center, probe_m, max_climb, step_m);
    // The requested move along the floor plane `n` when it pushes into it.
    let along_floor = |n: Vec3| {
        let mut desired = requested;
        if desired.dot(n) < 0.0 && n.y > 0.0 {
            desired.y = -(n.x * desired.x + n.z * desired.z) / n.y;
        }
        desired
    };
    let cos_max_climb = max_climb.cos();
    // Off a ledge, rapier still counts the capsule grounded while it slides down the
    // ledge's side or rolls over its rim, and snaps it to the floor below when that is
    // within the snap distance: a 0.5 m ledge pulled the body down 0.30 m in one tick at
    // 144 Hz, its trailing heel through the ledge's side. With nothing under the capsule,
    // or only the rim of a drop higher than a step, there is no snap: the capsule falls.
    let unsnapped;
    let nothing_under = start.contact_normal.is_none() || start.over_ledge;
    let controller = if nothing_under && controller.snap_to_ground.is_some() {
        unsnapped = KinematicCharacterController {
            snap_to_ground: None,
            ..*controller
        };
        &unsnapped
    } else {
        controller
    };
    let move_from = |center: Vec3, desired: Vec3| {
        let mut walls = WallNormals {
            normals: [Vec3::ZERO; 16],
            count: 0,
        };
        let movement = controller.move_shape(
            dt_s,
            queries,
            &shape,
            &Pose::from_translation(center),
            desired,
            |collision| {
                let n = collision.hit.normal1;
                let is_wall = n.y < cos_max_climb - 1.0e-4 && n.y > -0.5;
                if is_wall && walls.count < walls.normals.len() {
                    walls.normals[walls.count] = n;
                    walls.count += 1;
                }
            },
        );
        (movement, walls)
    };
    let floor_after_translation = |translation: Vec3| {
        probe_floor(
            queries,
            &shape,
            center + translation,
            probe_m,
            max_climb,
            step_m,
        )
    };
    let floor_after =
        |movement: &EffectiveCharacterMovement| floor_after_translation(movement.translation);
    let run = |desired: Vec3| {
        let (movement, walls) = move_from(center, desired);
        let end = floor_after(&movement);
        (desired, movement, walls, end)
    };

    let (mut desired, mut movement, mut walls, mut end) =
        run(start.walkable_normal.map_or(requested, along_floor));
    // Resting on a stair nosing, the contact's normal tilts toward the drop; a long tick
    // along it can launch the capsule off the step (at 30 Hz, a run up 15 cm stairs rose
    // 8 cm into the air and played a jump). A floor-plane move that leaves the ground from
    // an edge is run again level: rapier's autostep and snap then climb, as on a riser.
    if start.on_edge && !(movement.grounded && end.walkable_normal.is_some()) {
        let level = along_floor(Vec3::Y);
        if level != desired {
            (desired, movement, walls, end) = run(level);
        }
    }
    // Whether the first move met a riser (a wall facing the walk), before the climb below
    // replaces the walls with its own.
    let wanted_h = Vec3::new(desired.x, 0.0, desired.z);
    let against_riser = walls.normals[..walls.count]
        .iter()
        .any(|n| n.dot(wanted_h) < -0.5 * wanted_h.length() * n.length());
    // Climbing a riser, rapier rides the capsule's round bottom up the nosing and keeps
    // little of the horizontal move (a walk up 20 cm stairs dropped from 1.75 to 0.2-0.8
    // m/s for five ticks a step, and the animation with it). Once lifted, the rest of the
    // horizontal move is made from up there, as a step-up does.
    let horizontal = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    // The share of a horizontal request the last move kept: the next one asks for the rest
    // over it, so the climb converges in a move or two instead of losing that share of
    // what is left each time. A move that went farther than what was left (the climb got
    // easier) is run again, scaled down, so the tick never outruns the request.
    let mut kept =
        horizontal(movement.translation).length() / horizontal(desired).length().max(1e-6);
    let mut moves = 0;
    let mut continued = false;
    let before_continuing = (
        movement.translation,
        movement.grounded,
        movement.is_sliding_down_slope,
        walls,
        end,
    );
    while moves < STEP_CONTINUE_MOVES {
        let lifted = movement.translation.y > desired.y + STEP_LIFT_M;
        let left_h = horizontal(desired) - horizontal(movement.translation);
        let left_m = left_h.length();
        if !lifted
            || !movement.translation.is_finite()
            || left_m <= STEP_CONTINUE_MIN_M
            || left_h.dot(horizontal(desired)) <= 0.0
        {
            break;
        }
        let from = center + movement.translation;
        let mut ask = left_h / kept.clamp(STEP_CONTINUE_MIN_KEPT, 1.0);
        let (mut step, mut step_walls) = move_from(from, ask);
        moves += 1;
        let mut went_m = horizontal(step.translation).length();
        while went_m > left_m + STEP_CONTINUE_MIN_M && moves < STEP_CONTINUE_MOVES {
            ask *= left_m / went_m;
            (step, step_walls) = move_from(from, ask);
            moves += 1;
            went_m = horizontal(step.translation).length();
        }
        kept = went_m / ask.length().max(1e-6);
        if went_m > left_m + STEP_CONTINUE_MIN_M || !(step.translation.is_finite() && step.grounded)
        {
            break;
        }
        movement.translation += step.translation;
        movement.is_sliding_down_slope = step.is_sliding_down_slope;
        walls = step_walls;
        continued = true;
    }
    // The floor is probed once where the continued move ended (not after every move).
    if continued {
        end = floor_after(&movement);
    }
    // A small capsule lifted half way up a riser by its nosing, and carried on from there
    // without being over the tread, can end over no floor at all: it hangs for a tick,
    // which the character reads as a jump (four times walking up one 15 cm flight). Such
    // a climb is undone: to where it was before carrying on if that had a floor under it,
    // else to where it started; the riser is then taken below, as one that held the
    // capsule back.
    if against_riser && start.walkable_normal.is_some() && end.contact_normal.is_none() {
        let (translation, grounded, sliding, walls_before, end_before) = before_continuing;
        if continued && end_before.contact_normal.is_some() {
            movement.translation = translation;
            movement.grounded = grounded;
            movement.is_sliding_down_slope = sliding;
            (walls, end) = (walls_before, end_before);
        } else {
            movement.translation = Vec3::ZERO;
            movement.grounded = true;
            movement.is_sliding_down_slope = false;
            end = start;
        }
    }
    // Stepping down a riser, rapier's snap can stop part way, where the capsule's round
    // bottom leaves the nosing's rim: a capsule of radius 0.14 m running down 20 cm stairs
    // was left 5 cm down the drop over nothing, then fell for three ticks. The character
    // read that as airborne, and its foot IK faded out just as the foot landed (floating
    // 8 cm over the tread). A capsule that stood on walkable ground and ends over nothing
    // is taken the rest of the way down, when walkable ground is within the snap distance
    // (not when it was asked to go up: a jump's take-off).
    let snap_m = controller.snap_to_ground.map(|d| length_of(d, capsule));
    if let (Some(snap_m), true) = (
        snap_m,
        start.walkable_normal.is_some()
            && end.contact_normal.is_none()
            && !against_riser
            && requested.y <= 0.0,
    ) {
        let hanging = center + movement.translation;
        if let Some(drop_m) = drop_to_floor(queries, &shape, hanging, snap_m, offset_m) {
            let lowered = movement.translation - Vec3::Y * drop_m;
            let landed = floor_after_translation(lowered);
            if landed.walkable_normal.is_some() {
                movement.translation = lowered;
                movement.grounded = true;
                end = landed;
            }
        }
    }
    // A capsule whose round bottom is lower than a riser meets it as a wall, and rapier's
    // autostep does not always climb it: it refused a capsule of radius 0.14 m at the foot
    // of 20 cm stairs for every request, and on a tread it lifted it a little without
    // carrying it over, so the snap took it back down. Walking up those stairs, a rig half
    // the mannequin's size stalled 3.6 s at a riser, its speed zeroed by the wall every
    // tick. Still held back on walkable ground, the capsule takes the step itself, far
    // enough over the nosing to rest on it at a walkable angle: a short request overshoots
    // by at most that reach (a few cm, once per riser).
    let got_h = horizontal(movement.translation);
    if step_m > 0.0
        && against_riser
        && start.walkable_normal.is_some()
        && got_h.dot(wanted_h) < 0.5 * wanted_h.length_squared()
    {
        let reach_m = step_reach_m(capsule.radius_m, max_climb, offset_m);
        let stepped = wanted_h.try_normalize().and_then(|direction| {
            // The whole request when there is room for it up there, else just the reach
            // (tried once when the request is no longer: walking into a wall runs this
            // every tick).
            let wanted_m = wanted_h.length();
            let longer = (wanted_m > reach_m).then_some(wanted_m);
            longer
                .into_iter()
                .chain([reach_m])
                .find_map(|over_m| {
                    let lift = step_onto_riser(
                        queries,
                        &shape,
                        center,
                        direction * over_m,
                        step_m,
                        offset_m,
                    )?;
                    let landed = floor_after_translation(lift);
                    // On the nosing or the tread itself, not against a steep face (a
                    // 50° ramp's foot) with flat ground found under the axis.
                    let on_walkable = landed
                        .contact_normal
                        .is_some_and(|n| n.y >= cos_max_climb - 1.0e-4);
                    (on_walkable && landed.walkable_normal.is_some())
                        .then_some((over_m, lift, landed))
                })
                .map(|(over_m, lift, landed)| (direction * over_m, lift, landed))
        });
        if let Some((over, lift, landed)) =
            stepped.filter(|(_, lift, _)| lift.y > movement.translation.y)
        {
            desired = over + Vec3::Y * desired.y;
            movement.translation = lift;
            movement.grounded = true;
            movement.is_sliding_down_slope = false;
            walls.count = 0;
            end = landed;
        }
    }
    let translation = movement.translation;
    if !translation.is_finite() {
        return ZERO_MOVE;
    }
    let grounded = movement.grounded && end.walkable_normal.is_some();
    let sliding_down_slope = reads_as_sliding_down_slope(
        movement.is_sliding_down_slope,
        grounded,
        end.contact_normal,
        controller.min_slope_slide_angle,
    );

    // Autostep lifts the capsule above the requested height while it climbs a riser: a
    // contact it is climbing is not a wall, even when it slowed the capsule down.
    let hit_wall = reads_as_wall(desired, translation, &walls.normals[..walls.count]);

    MoveResult {
        translation,
        grounded,
        floor_normal: if grounded { end.walkable_normal } else { None },
        sliding_down_slope,
        hit_wall,
    }
}
