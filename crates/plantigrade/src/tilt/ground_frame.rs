//! The ground frame under the pelvis from downward rays (SPEC TILT-1, TILT-8, TILT-11).
//!
//! Three rays, at the pelvis centre and under the left and right feet (world `xz`), start
//! at pelvis height above the root (the character's feet point) and reach
//! [`GroundFrameConfig::ray_reach_below_feet_fraction`] × pelvis height **below** the feet.
//! (SPEC TILT-1 says "length pelvis height × 0.6"; a ray that long starting at pelvis height
//! would stop 0.4 × pelvis height above the feet and never see flat ground, so the 0.6 is
//! read as the reach below the feet: enough to see the TILT-5 exit distance of 0.3 ×
//! pelvis height and the next treads down a flight of stairs.)
//!
//! The hits decide one [`FrameCase`], checked in this order:
//!
//! 1. [`FrameCase::Airborne`]: no walkable hit within
//!    [`GroundFrameConfig::airborne_drop_fraction`] × pelvis height below the feet (TILT-5).
//! 2. [`FrameCase::Stairs`] (TILT-11): two hits differ in height by more than
//!    [`GroundFrameConfig::step_min_height_m`] *and* neither hit's surface plane explains
//!    the difference (a ramp does not trigger it), or the previous tick saw a riser. Then a
//!    probe of rays along the facing through the pelvis looks for risers between
//!    neighbouring samples; the first and last riser are located by bisection, and the
//!    pelvis pitches with the line through their **nosings** (the top edges of the
//!    risers) — the flight, not each riser. Needs at least two risers stepping the same way,
//!    each no taller than [`GroundFrameConfig::step_max_height_fraction`] × pelvis height or
//!    [`GroundFrameConfig::step_max_height_min_m`], whichever is more; the probe's rays
//!    reach at least 2.2 such risers above and below the feet.
//! 3. [`FrameCase::NarrowEdge`] (TILT-8): the left and right normals differ by more than
//!    [`GroundFrameConfig::narrow_edge_angle_rad`], or a foot ray finds no walkable ground
//!    within the exit distance while the centre does (a box-topped beam or a ledge side:
//!    the normals agree but one foot is over the drop). The centre ray alone gives the
//!    normal and roll is dropped.
//! 4. [`FrameCase::Plane`]: the average of the usable hit normals.
//!
//! Every ray cast (origin, end, hit) is recorded in [`GroundFrame::rays`] for debug draw
//! (TILT-10). Nothing here allocates: the frame is a fixed-size caller-owned buffer.

use glam::Vec3;

use super::decompose::MIN_GROUND_NORMAL_UP;
use crate::world::{QueryFilter, RayHit, SpatialQueries};

/// Most samples of the stairs probe ([`GroundFrameConfig::stairs_probe_samples`]).
pub const MAX_PROBE_SAMPLES: usize = 15;
/// Most bisection rays per located riser ([`GroundFrameConfig::stairs_refine_iterations`]).
pub const MAX_REFINE_ITERATIONS: usize = 8;
/// Capacity of [`GroundFrame::rays`]: 3 basic rays, the probe and two refined risers.
pub const MAX_FRAME_RAYS: usize = 3 + MAX_PROBE_SAMPLES + 2 * MAX_REFINE_ITERATIONS;
/// Pelvis heights (m) below this, or non-finite, make the frame [`FrameCase::Invalid`]:
/// the ray lengths scale with the pelvis height.
pub const MIN_PELVIS_HEIGHT_M: f32 = 0.05;
/// Pelvis heights (m) above this make the frame [`FrameCase::Invalid`] (garbage input).
pub const MAX_PELVIS_HEIGHT_M: f32 = 100.0;

/// Settings of the ground rays (SPEC TILT-1, TILT-5, TILT-8, TILT-11). Serde with defaults.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct GroundFrameConfig {
    /// How far below the feet the rays reach, as a fraction of the pelvis height. Default
    /// 0.6 (see the module docs for the reading of SPEC TILT-1).
    pub ray_reach_below_feet_fraction: f32,
    /// Ground farther than this fraction of the pelvis height below the feet does not
    /// count: airborne when no ray finds nearer ground (SPEC TILT-5). Default 0.3.
    pub airborne_drop_fraction: f32,
    /// Left and right normals further apart than this (rad) are a narrow edge (SPEC
    /// TILT-8). Default 15°.
    pub narrow_edge_angle_rad: f32,
    /// Smallest height jump (m) between hits that counts as a step. Default 0.07: above the
    /// course's 2–5 cm pebbles, below any stair riser.
    pub step_min_height_m: f32,
    /// Largest riser (m), as a fraction of the pelvis height; a bigger drop is a ledge, not
    /// a step. Default 0.35 (33 cm for a 0.95 m pelvis).
    pub step_max_height_fraction: f32,
    /// Risers up to this height (m) are steps whatever the pelvis height: a pelvis that
    /// sits low for its legs (a crouch, a rig whose pelvis joint is under its hips, as
    /// Quaternius' is, 0.33–0.47 m up over a walk on 0.53 m legs) still reads a flight,
    /// rather than a flight whose risers are steps on one tick and ledges on the next.
    /// Default 0.35, scaled with the legs.
    pub step_max_height_min_m: f32,
    /// The stairs probe covers ± this distance (m) along the facing around the pelvis.
    /// Default 0.6.
    pub stairs_probe_half_length_m: f32,
    /// Rays in the stairs probe (3..=15, odd numbers keep one at the pelvis). Their spacing
    /// must stay below the shortest tread to see every riser. Default 9 (0.15 m apart).
    pub stairs_probe_samples: u32,
    /// Bisection rays per located riser (0..=8). Default 5: ±4.7 mm at 0.15 m spacing.
    pub stairs_refine_iterations: u32,
}

impl Default for GroundFrameConfig {
    fn default() -> Self {
        Self {
            ray_reach_below_feet_fraction: 0.6,
            airborne_drop_fraction: 0.3,
            narrow_edge_angle_rad: 15f32.to_radians(),
            step_min_height_m: 0.07,
            step_max_height_fraction: 0.35,
            step_max_height_min_m: 0.35,
            stairs_probe_half_length_m: 0.6,
            stairs_probe_samples: 9,
            stairs_refine_iterations: 5,
        }
    }
}

impl GroundFrameConfig {
    /// This config with NaN/∞ or out-of-range values replaced: fractions and lengths
    /// non-finite → default, negative → 0 (reach at least the exit distance), counts
    /// clamped to their ranges.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let fix = |v: f32, fallback: f32, max: f32| {
            if v.is_finite() {
                v.clamp(0.0, max)
            } else {
                fallback
            }
        };
        let airborne_drop_fraction =
            fix(self.airborne_drop_fraction, d.airborne_drop_fraction, 10.0);
        Self {
            ray_reach_below_feet_fraction: fix(
                self.ray_reach_below_feet_fraction,
                d.ray_reach_below_feet_fraction,
                10.0,
            )
            .max(airborne_drop_fraction),
            airborne_drop_fraction,
            narrow_edge_angle_rad: fix(
                self.narrow_edge_angle_rad,
                d.narrow_edge_angle_rad,
                std::f32::consts::PI,
            ),
            step_min_height_m: fix(self.step_min_height_m, d.step_min_height_m, 10.0),
            step_max_height_fraction: fix(
                self.step_max_height_fraction,
                d.step_max_height_fraction,
                10.0,
            ),
            step_max_height_min_m: fix(self.step_max_height_min_m, d.step_max_height_min_m, 10.0),
            stairs_probe_half_length_m: fix(
                self.stairs_probe_half_length_m,
                d.stairs_probe_half_length_m,
                10.0,
            ),
            stairs_probe_samples: self.stairs_probe_samples.clamp(3, MAX_PROBE_SAMPLES as u32),
            stairs_refine_iterations: self
                .stairs_refine_iterations
                .min(MAX_REFINE_ITERATIONS as u32),
        }
    }
}

/// Which rule produced the frame (see the module docs).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum FrameCase {
    /// Average of the usable ray normals.
    Plane,
    /// Left and right disagree (TILT-8): centre ray only, roll dropped.
    NarrowEdge,
    /// A flight of stairs (TILT-11): the plane through the nosings.
    Stairs,
    /// No ground within the exit distance below the feet (TILT-5): no tilt.
    Airborne,
    /// A fixed normal from a mount or vehicle (TILT-9).
    Fixed,
    /// Unusable input (non-finite positions or facing, pelvis height out of range, a bad
    /// fixed normal): no tilt.
    #[default]
    Invalid,
}

/// What a ray was cast for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RayRole {
    /// Under the pelvis centre.
    Centre,
    /// Under the left foot.
    LeftFoot,
    /// Under the right foot.
    RightFoot,
    /// A sample of the stairs probe along the facing.
    StairsProbe,
    /// A bisection ray locating a riser.
    StairsRefine,
}

/// One ray as cast, for debug draw (TILT-10): green when `hit` is some, red otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameRay {
    pub role: RayRole,
    /// Start of the ray (world).
    pub origin_world: Vec3,
    /// End of the ray at full length (world).
    pub end_world: Vec3,
    /// The first hit (world), any surface the filter lets through.
    pub hit: Option<RayHit>,
}

impl FrameRay {
    const EMPTY: FrameRay = FrameRay {
        role: RayRole::Centre,
        origin_world: Vec3::ZERO,
        end_world: Vec3::ZERO,
        hit: None,
    };
}

/// The flight of stairs fitted by the probe (TILT-11).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightFit {
    /// Rise over run of the flight along the facing (positive = up ahead).
    pub slope: f32,
    /// Risers seen by the probe (at least 2 for a fit).
    pub riser_count: u32,
    /// Nosing of the first located riser (world; the top edge of the riser).
    pub first_nosing_world: Vec3,
    /// Nosing of the last located riser (world).
    pub last_nosing_world: Vec3,
}

impl FlightFit {
    /// The tread depth along the facing (m): the run from the first located nosing to the
    /// last over the treads between them. `None` when it is not a usable length.
    pub fn tread_m(&self) -> Option<f32> {
        if self.riser_count < 2 {
            return None;
        }
        let d = self.last_nosing_world - self.first_nosing_world;
        let tread_m = d.x.hypot(d.z) / (self.riser_count - 1) as f32;
        (tread_m.is_finite() && tread_m > MIN_TREAD_M).then_some(tread_m)
    }
}

/// Shorter treads than this (m) are not read as a flight's: no stair is built so.
const MIN_TREAD_M: f32 = 0.1;

/// The ground frame of one tick: the normal the stage should follow and how it was found.
/// Plain `Copy` data with a fixed-size ray list; fill it with [`sample_ground_frame`] or a
/// [`super::NormalSource`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundFrame {
    pub case: FrameCase,
    /// Unit ground normal to follow (world); +Y for [`FrameCase::Airborne`] and
    /// [`FrameCase::Invalid`].
    pub normal_world: Vec3,
    /// Roll must be dropped this tick ([`FrameCase::NarrowEdge`]).
    pub roll_dropped: bool,
    /// How far (m) below the feet the nearest walkable ground hit by the three basic rays
    /// is, even beyond the exit distance (negative when it is above them, e.g. the next
    /// tread); `None` when no basic ray hit walkable ground.
    pub ground_drop_m: Option<f32>,
    /// Angle (rad) between the left and right foot normals when both were usable.
    pub left_right_angle_rad: Option<f32>,
    /// Risers the stairs probe saw this tick (0 when it did not run). The stage keeps
    /// probing on the next tick while this is non-zero (hysteresis on the stairs profile).
    pub stairs_risers_seen: u32,
    /// The fitted flight when the case is [`FrameCase::Stairs`].
    pub flight: Option<FlightFit>,
    /// The rays cast, in order; only the first `ray_count` are meaningful.
    pub rays: [FrameRay; MAX_FRAME_RAYS],
    pub ray_count: usize,
}

impl Default for GroundFrame {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl GroundFrame {
    /// No rays, [`FrameCase::Invalid`], +Y.
    pub const EMPTY: GroundFrame = GroundFrame {
        case: FrameCase::Invalid,
        normal_world: Vec3::Y,
        roll_dropped: false,
        ground_drop_m: None,
        left_right_angle_rad: None,
        stairs_risers_seen: 0,
        flight: None,
        rays: [FrameRay::EMPTY; MAX_FRAME_RAYS],
        ray_count: 0,
    };

    /// The rays cast this tick.
    pub fn rays(&self) -> &[FrameRay] {
        &self.rays[..self.ray_count.min(MAX_FRAME_RAYS)]
    }

    /// Resets to [`Self::EMPTY`] without touching the ray buffer's contents.
    pub fn clear(&mut self) {
        self.case = FrameCase::Invalid;
        self.normal_world = Vec3::Y;
        self.roll_dropped = false;
        self.ground_drop_m = None;
        self.left_right_angle_rad = None;
        self.stairs_risers_seen = 0;
        self.flight = None;
        self.ray_count = 0;
    }

    /// A frame from a fixed normal (a mount's up vector, TILT-9): [`FrameCase::Fixed`] with
    /// the unit normal, or [`FrameCase::Invalid`] with +Y when it is non-finite, (near)
    /// zero or points below [`MIN_GROUND_NORMAL_UP`].
    pub fn fixed(normal_world: Vec3) -> Self {
        let mut frame = Self::EMPTY;
        if let Some(unit) = usable_normal(normal_world) {
            frame.case = FrameCase::Fixed;
            frame.normal_world = unit;
        }
        frame
    }

    fn push_ray(&mut self, ray: FrameRay) {
        if self.ray_count < MAX_FRAME_RAYS {
            self.rays[self.ray_count] = ray;
            self.ray_count += 1;
        }
    }
}

/// What a normal source is asked for one tick (all world space).
#[derive(Clone, Copy)]
pub struct FrameQuery<'a> {
    pub world: &'a dyn SpatialQueries,
    /// Ground layers only, the character's own body excluded.
    pub filter: QueryFilter,
    /// The character's feet point (world).
    pub root_world: Vec3,
    /// World yaw of the facing (rad; 0 faces +Z, positive turns +Z toward +X).
    pub facing_yaw_rad: f32,
    /// The animated pelvis position (world); the centre ray and the probe go through its
    /// `xz`.
    pub pelvis_world: Vec3,
    /// Pelvis height above the root (m); the ray lengths scale with it.
    pub pelvis_height_m: f32,
    /// Left and right animated feet (world); their `xz` place the foot rays. A non-finite
    /// foot is replaced by the pelvis centre.
    pub feet_world: [Vec3; 2],
    /// Probe for stairs even if the basic rays see no step (the previous tick saw risers).
    pub stairs_hint: bool,
    pub config: &'a GroundFrameConfig,
}

impl std::fmt::Debug for FrameQuery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameQuery")
            .field("filter", &self.filter)
            .field("root_world", &self.root_world)
            .field("facing_yaw_rad", &self.facing_yaw_rad)
            .field("pelvis_world", &self.pelvis_world)
            .field("pelvis_height_m", &self.pelvis_height_m)
            .field("feet_world", &self.feet_world)
            .field("stairs_hint", &self.stairs_hint)
            .field("config", self.config)
            .finish_non_exhaustive()
    }
}

/// A usable ray hit: its point and unit walkable normal.
#[derive(Clone, Copy, Debug)]
struct Sample {
    point: Vec3,
    normal: Vec3,
}

/// Ray geometry shared by every ray of one tick.
#[derive(Clone, Copy)]
struct Caster<'a> {
    world: &'a dyn SpatialQueries,
    filter: QueryFilter,
    top_y: f32,
    length_m: f32,
}

impl Caster<'_> {
    /// Casts straight down at `xz` (`x`, `z` of the point), records the ray and returns the
    /// hit if it is walkable ground.
    fn cast(&self, at: Vec3, role: RayRole, frame: &mut GroundFrame) -> Option<Sample> {
        let origin_world = Vec3::new(at.x, self.top_y, at.z);
        let hit = self
            .world
            .cast_ray(origin_world, -Vec3::Y, self.length_m, self.filter)
            .filter(|h| h.point.is_finite() && h.distance_m.is_finite());
        frame.push_ray(FrameRay {
            role,
            origin_world,
            end_world: origin_world - Vec3::Y * self.length_m,
            hit,
        });
        let hit = hit?;
        let normal = usable_normal(hit.normal)?;
        Some(Sample {
            point: hit.point,
            normal,
        })
    }
}

/// The unit normal if it is finite, not (near) zero and walkable (unit Y at least
/// [`MIN_GROUND_NORMAL_UP`]).
fn usable_normal(normal: Vec3) -> Option<Vec3> {
    if !normal.is_finite() {
        return None;
    }
    let unit = normal.try_normalize()?;
    (unit.y >= MIN_GROUND_NORMAL_UP).then_some(unit)
}

/// Height change (m) from `a` to `b` that neither surface's plane explains: the smaller of
/// the two residuals against the planes through `a` and through `b`. 0 on a ramp, the riser
/// on stairs.
fn unexplained_rise(a: &Sample, b: &Sample) -> f32 {
    let d = b.point - a.point;
    let predicted = |n: Vec3| -(n.x * d.x + n.z * d.z) / n.y;
    (d.y - predicted(a.normal))
        .abs()
        .min((d.y - predicted(b.normal)).abs())
}

/// A height jump between two hits that looks like a step: bigger than `step_min_m` both
/// raw and after the surfaces' own slopes are taken out.
fn is_step(a: &Sample, b: &Sample, step_min_m: f32) -> bool {
    (b.point.y - a.point.y).abs() > step_min_m && unexplained_rise(a, b) > step_min_m
}

/// Samples the ground frame with three downward rays and, on stairs, the probe (see the
/// module docs). Fills `frame` (cleared first); never panics, never writes NaN.
pub fn sample_ground_frame(query: &FrameQuery<'_>, frame: &mut GroundFrame) {
    frame.clear();
    let config = query.config.sanitized();
    let h = query.pelvis_height_m;
    let inputs_ok = query.root_world.is_finite()
        && query.pelvis_world.is_finite()
        && query.facing_yaw_rad.is_finite()
        && h.is_finite()
        && (MIN_PELVIS_HEIGHT_M..=MAX_PELVIS_HEIGHT_M).contains(&h);
    if !inputs_ok {
        return;
    }
    let root = query.root_world;
    let caster = Caster {
        world: query.world,
        filter: query.filter,
        top_y: root.y + h,
        length_m: h * (1.0 + config.ray_reach_below_feet_fraction),
    };
    let drop_limit_m = config.airborne_drop_fraction * h;
    let near = |s: Option<Sample>| s.filter(|s| s.point.y >= root.y - drop_limit_m);

    let foot_at = |foot: Vec3| {
        if foot.is_finite() {
            foot
        } else {
            query.pelvis_world
        }
    };
    let raw_centre = caster.cast(query.pelvis_world, RayRole::Centre, frame);
    let raw_left = caster.cast(foot_at(query.feet_world[0]), RayRole::LeftFoot, frame);
    let raw_right = caster.cast(foot_at(query.feet_world[1]), RayRole::RightFoot, frame);
    let nearest = [raw_centre, raw_left, raw_right]
        .iter()
        .flatten()
        .map(|s| s.point.y)
        .reduce(f32::max);
    frame.ground_drop_m = nearest.map(|y| root.y - y);

    let centre = near(raw_centre);
    // A foot's ground also counts when the centre's plane explains it (down a steep ramp
    // the foot ahead may be lower than the exit distance).
    let foot_near = |s: Option<Sample>| {
        s.filter(|s| {
            s.point.y >= root.y - drop_limit_m
                || centre.is_some_and(|c| unexplained_rise(&c, s) <= config.step_min_height_m)
        })
    };
    let left = foot_near(raw_left);
    let right = foot_near(raw_right);
    let basic = [centre, left, right];
    if basic.iter().all(Option::is_none) {
        frame.case = FrameCase::Airborne;
        return;
    }
    if let (Some(l), Some(r)) = (left, right) {
        frame.left_right_angle_rad = Some(l.normal.angle_between(r.normal));
    }
    let mut sum = Vec3::ZERO;
    for s in basic.iter().flatten() {
        sum += s.normal;
    }
    let average = sum.try_normalize().unwrap_or(Vec3::Y);

    // Stairs (TILT-11).
    let step_seen = (0..3).any(|i| {
        (i + 1..3).any(|j| match (basic[i], basic[j]) {
            (Some(a), Some(b)) => is_step(&a, &b, config.step_min_height_m),
            _ => false,
        })
    });
    if step_seen || query.stairs_hint {
        let (riser_count, flight) = probe_flight(query, &config, &caster, frame);
        frame.stairs_risers_seen = riser_count;
        if let Some(flight) = flight {
            let (forward, left_axis) = facing_axes(query.facing_yaw_rad);
            // The plane y = slope·s + lateral_grade·l: the flight along the facing, the
            // treads' own side slope across it.
            let lateral_grade = -average.dot(left_axis) / average.y;
            let normal = Vec3::Y - forward * flight.slope - left_axis * lateral_grade;
            if let Some(unit) = normal.try_normalize() {
                frame.case = FrameCase::Stairs;
                frame.normal_world = unit;
                frame.flight = Some(flight);
                return;
            }
        }
    }

    // Narrow edge (TILT-8).
    let normals_disagree = frame
        .left_right_angle_rad
        .is_some_and(|a| a > config.narrow_edge_angle_rad);
    let foot_over_drop = centre.is_some() && (left.is_none() || right.is_none());
    if normals_disagree || foot_over_drop {
        frame.case = FrameCase::NarrowEdge;
        frame.roll_dropped = true;
        frame.normal_world = centre.map_or(average, |c| c.normal);
        return;
    }
    frame.case = FrameCase::Plane;
    frame.normal_world = average;
}

/// World forward and left (horizontal units) of a facing yaw.
pub(crate) fn facing_axes(facing_yaw_rad: f32) -> (Vec3, Vec3) {
    let (sin, cos) = facing_yaw_rad.sin_cos();
    (Vec3::new(sin, 0.0, cos), Vec3::new(cos, 0.0, -sin))
}

/// The stairs probe: samples along the facing through the pelvis, finds risers between
/// neighbours, bisects the first and last, and fits the line through their nosings.
/// Returns the number of risers seen and the fit when there are two or more stepping the
/// same way.
fn probe_flight(
    query: &FrameQuery<'_>,
    config: &GroundFrameConfig,
    caster: &Caster<'_>,
    frame: &mut GroundFrame,
) -> (u32, Option<FlightFit>) {
    let (forward, _) = facing_axes(query.facing_yaw_rad);
    let n = config.stairs_probe_samples as usize;
    let half = config.stairs_probe_half_length_m;
    let spacing = 2.0 * half / (n - 1) as f32;
    if spacing <= 1e-4 {
        return (0, None);
    }
    let step_max_m =
        (config.step_max_height_fraction * query.pelvis_height_m).max(config.step_max_height_min_m);
    // The probe sees at least two of the largest risers above and below the feet, so a
    // pelvis that sits low for its legs still finds the treads up and down ahead.
    let reach_m = 2.2 * step_max_m;
    let top_y = caster.top_y.max(query.root_world.y + reach_m);
    let bottom_y = (caster.top_y - caster.length_m).min(query.root_world.y - reach_m);
    let caster = &Caster {
        top_y,
        length_m: top_y - bottom_y,
        ..*caster
    };
    let along = |s: f32| query.pelvis_world + forward * s;
    let offset = |j: usize| -half + j as f32 * spacing;

    let mut samples: [Option<Sample>; MAX_PROBE_SAMPLES] = [None; MAX_PROBE_SAMPLES];
    for (j, slot) in samples.iter_mut().enumerate().take(n) {
        *slot = caster.cast(along(offset(j)), RayRole::StairsProbe, frame);
    }

    // Risers between neighbours: (index of the lower-s sample, rises ahead?).
    let mut riser_count = 0u32;
    let mut first: Option<(usize, bool)> = None;
    let mut last: Option<(usize, bool)> = None;
    let mut mixed = false;
    for j in 0..n - 1 {
        let (Some(a), Some(b)) = (samples[j], samples[j + 1]) else {
            continue;
        };
        let rise = b.point.y - a.point.y;
        if rise.abs() > step_max_m || !is_step(&a, &b, config.step_min_height_m) {
            continue;
        }
        let up = rise > 0.0;
        riser_count += 1;
        if let Some((_, first_up)) = first {
            mixed |= first_up != up;
        } else {
            first = Some((j, up));
        }
        last = Some((j, up));
    }
    let (Some((first_j, _)), Some((last_j, _))) = (first, last) else {
        return (riser_count, None);
    };
    if riser_count < 2 || mixed || first_j == last_j {
        return (riser_count, None);
    }

    // Bisect a riser between samples j and j + 1: its position along the facing (m) and
    // the nosing (world) at the higher tread's height.
    let locate = |j: usize, frame: &mut GroundFrame| {
        let (a, b) = (samples[j]?, samples[j + 1]?);
        let (mut lo, mut hi) = (offset(j), offset(j + 1));
        for _ in 0..config.stairs_refine_iterations {
            let mid = 0.5 * (lo + hi);
            let Some(hit) = caster.cast(along(mid), RayRole::StairsRefine, frame) else {
                break;
            };
            if (hit.point.y - a.point.y).abs() <= (hit.point.y - b.point.y).abs() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let s = 0.5 * (lo + hi);
        let nosing = along(s);
        Some((s, Vec3::new(nosing.x, a.point.y.max(b.point.y), nosing.z)))
    };
    let Some((s_first, nosing_first)) = locate(first_j, frame) else {
        return (riser_count, None);
    };
    let Some((s_last, nosing_last)) = locate(last_j, frame) else {
        return (riser_count, None);
    };
    let run = s_last - s_first;
    if run <= 1e-3 {
        return (riser_count, None);
    }
    let slope = (nosing_last.y - nosing_first.y) / run;
    if !slope.is_finite() {
        return (riser_count, None);
    }
    (
        riser_count,
        Some(FlightFit {
            slope,
            riser_count,
            first_nosing_world: nosing_first,
            last_nosing_world: nosing_last,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::testing::HeightWorld;

    const PELVIS_HEIGHT_M: f32 = 0.93;

    /// A ground given by a height function `(x, z)` → (height, ∂h/∂x, ∂h/∂z); exact for
    /// downward rays.
    fn field_world(
        field: impl Fn(f32, f32) -> (f32, f32, f32),
    ) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
        HeightWorld::new(move |x, z| {
            let (h, dx, dz) = field(x, z);
            Some((h, Vec3::new(-dx, 1.0, -dz).normalize()))
        })
    }

    fn frame_at(
        world: &dyn SpatialQueries,
        root_world: Vec3,
        facing_yaw_rad: f32,
        feet_world: [Vec3; 2],
        stairs_hint: bool,
    ) -> GroundFrame {
        let config = GroundFrameConfig::default();
        let query = FrameQuery {
            world,
            filter: QueryFilter::GROUND,
            root_world,
            facing_yaw_rad,
            pelvis_world: root_world + Vec3::Y * PELVIS_HEIGHT_M,
            pelvis_height_m: PELVIS_HEIGHT_M,
            feet_world,
            stairs_hint,
            config: &config,
        };
        let mut frame = GroundFrame::EMPTY;
        sample_ground_frame(&query, &mut frame);
        assert!(frame.normal_world.is_finite());
        frame
    }

    #[test]
    fn left_and_right_normals_apart_by_more_than_15_degrees_drop_roll() {
        // A ridge along +Z (20° each side, its crest at x = 0.02) rising 10° ahead.
        let ridge = |side_deg: f32| {
            let side = side_deg.to_radians().tan();
            let ahead = 10f32.to_radians().tan();
            field_world(move |x: f32, z: f32| {
                let dx = x - 0.02;
                (
                    1.0 - dx.abs() * side + z * ahead,
                    -side * dx.signum(),
                    ahead,
                )
            })
        };
        let world = ridge(20.0);
        let root = Vec3::new(0.0, 1.0, 0.0);
        let feet = [Vec3::new(0.12, 0.0, 0.3), Vec3::new(-0.12, 0.0, -0.3)];
        let frame = frame_at(&world, root, 0.0, feet, false);
        assert_eq!(frame.case, FrameCase::NarrowEdge);
        assert!(frame.roll_dropped);
        let angle = frame.left_right_angle_rad.unwrap().to_degrees();
        assert!(angle > 38.0 && angle < 40.0, "{angle}");
        // The centre ray (x = 0, on the crest's -X side) alone gives the normal.
        let centre = frame.rays()[0].hit.unwrap().normal;
        assert_eq!(frame.normal_world, centre);
        assert!(centre.x < -0.3);

        // 7° each side: 14° apart, an ordinary plane (the average).
        let world = ridge(7.0);
        let frame = frame_at(&world, root, 0.0, feet, false);
        assert_eq!(frame.case, FrameCase::Plane);
        assert!(!frame.roll_dropped);
    }

    #[test]
    fn the_stage_on_a_ridge_keeps_the_centre_pitch_and_no_roll() {
        use crate::tilt::{NormalSourceChoice, PelvisTilt, TiltInput};
        // The crest at x = 0.02 with 25° sides, rising 10° ahead; the centre ray lands on
        // the -X side, whose normal alone would ask for 25° of roll.
        let (side, ahead) = (25f32.to_radians().tan(), 10f32.to_radians().tan());
        let world = field_world(move |x: f32, z: f32| {
            let dx = x - 0.02;
            (
                1.0 - dx.abs() * side + z * ahead,
                -side * dx.signum(),
                ahead,
            )
        });
        let root = Vec3::new(0.0, 1.0 - 0.02 * side, 0.0);
        let input = TiltInput {
            world: &world,
            filter: QueryFilter::GROUND,
            root_world: root,
            facing_yaw_rad: 0.0,
            pelvis_model: Vec3::new(0.0, PELVIS_HEIGHT_M, 0.0),
            feet_world: [Vec3::new(0.12, 0.0, 0.2), Vec3::new(-0.12, 0.0, -0.2)],
            grounded: true,
            aiming: false,
            dt_s: 1.0 / 60.0,
        };
        let mut stage = PelvisTilt::default();
        for _ in 0..120 {
            let out = stage.update(&input, &NormalSourceChoice::Ground);
            assert_eq!(out.frame.case, FrameCase::NarrowEdge);
            assert_eq!((out.target_roll_rad, out.roll_rad), (0.0, 0.0));
        }
        let out = stage.update(&input, &NormalSourceChoice::Ground);
        assert!(
            (out.pitch_rad - 10f32.to_radians()).abs() < 1e-3,
            "{}",
            out.pitch_rad
        );
    }
}
