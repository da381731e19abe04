//! Foot quality against the analytic ground (SPEC QUAL-1..5, QUAL-7 counts): penetration,
//! float, planted drift, skate, skid, footfalls onto steps, stances and the feet's distance.

use glam::{DVec3, Vec2, Vec3};
use plantigrade::clip_analysis::GROUND_SKID_HEIGHT_M;
use plantigrade::ik::feet_distance_m;
use serde::{Deserialize, Serialize};

use super::sample::{FootSample, TickSample};
use super::stats::{percentile, push_jerks, to_f32, valid_hz, MeanMax, Rms};

/// Contact-curve value at and above which a foot is in stance (SPEC §6).
pub const STANCE_CONTACT_MIN: f32 = 0.5;
/// Without a contact curve, a foot whose lower sole point moves slower than this (horizontally)
/// is in stance (SPEC §6).
pub const STANCE_SPEED_MAX_M_PER_S: f32 = 0.35;
/// Stances shorter than this many ticks are ignored by the planted drift (QUAL-3): one- or
/// two-tick flickers of the contact curve are not plants.
pub const MIN_STANCE_TICKS: usize = 3;
/// A foot lower than this above ground may skate (QUAL-4, GMD's 5 cm).
pub const SKATE_HEIGHT_MAX_M: f32 = 0.05;
/// Horizontal speed above which a low foot skates (QUAL-4, GMD's 0.5 m/s).
pub const SKATE_SPEED_MIN_M_PER_S: f32 = 0.5;
/// Width of the moving average the skate speed must also exceed (QUAL-4, GMD's 5 frames).
pub const SKATE_WINDOW_FRAMES: usize = 5;
/// A footfall on a step: heel and ball ground within this of each other (m)...
const STEP_LANDING_LEVEL_M: f32 = 0.01;
/// ...at least this far up or down from the same foot's last landing (m).
const STEP_LANDING_RISE_M: f32 = 0.05;

/// Foot metrics of one run (SPEC QUAL-1..5, QUAL-7 counts). Field names are the JSON keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FootQuality {
    /// QUAL-1, mean over foot-ticks of grounded ticks with at least one sole point over the
    /// course: per foot, the depth of its deeper sole point inside the ground (the distance
    /// to the nearest surface), 0 when both are above (mm).
    pub penetration_mean_mm: f32,
    /// QUAL-1, the deepest sole point over those foot-ticks (mm).
    pub penetration_max_mm: f32,
    /// The same two measured straight down: the height of the ground above the sole point.
    /// They differ at a riser: a toe 3 mm into it is 3 mm deep but a whole step below the
    /// tread above it (mm).
    pub penetration_vertical_mean_mm: f32,
    pub penetration_vertical_max_mm: f32,
    /// QUAL-2, mean over stance foot-ticks (grounded ticks only) of the height of the lower
    /// sole point above its ground, 0 when below (penetration is reported separately) (mm).
    pub float_mean_mm: f32,
    /// QUAL-2, 95th percentile of the same values, linear interpolation between closest ranks
    /// (numpy's default: rank `0.95·(n−1)`) (mm).
    pub float_p95_mm: f32,
    /// QUAL-3, mean over stances of at least [`MIN_STANCE_TICKS`] ticks of each stance's drift:
    /// how far the sole point on the ground slid (see [`StanceDrift::drift_m`]) (mm).
    pub planted_drift_mean_mm: f32,
    /// QUAL-3, the largest drift of any stance (mm).
    pub planted_drift_max_mm: f32,
    /// QUAL-4, skating foot-intervals / all foot-intervals with ground known at both ends (see
    /// [`foot_quality`]). 0..1.
    pub skate_ratio: f32,
    /// QUAL-4 restricted to stance: of the foot-intervals in stance at both ends, the share
    /// that skate by the same test. A gait whose swinging foot passes low and fast (most
    /// do, at lift-off and touch-down) counts in `skate_ratio` but not here. 0..1.
    pub skate_ratio_stance: f32,
    /// QUAL-4 ground skid, contact-curve independent: per footfall, the horizontal travel
    /// of a sole point while within 1 cm of the true ground (see
    /// `plantigrade::clip_analysis::footfalls`), mean over both feet's footfalls (cm).
    pub ground_skid_mean_cm: f32,
    /// QUAL-4, the largest ground skid of any footfall (cm).
    pub ground_skid_max_cm: f32,
    /// Footfalls counted by the ground skid (both feet).
    pub footfalls: u64,
    /// The closest the two feet came (cm): over grounded and airborne ticks, the least
    /// distance between the feet, each taken as the three segments between its ankle, heel
    /// and ball points (a foot through the other, or the legs crossing at the feet, shows
    /// here). 0 when a sample is non-finite.
    #[serde(default)]
    pub feet_min_distance_cm: f32,
    /// Footfalls onto a step: level ground under heel and ball (within 1 cm of each other)
    /// at a height 5 cm or more from where the same foot last landed, on level ground too
    /// (a tread up or down a flight; not a ramp, whose ground is not level under the foot,
    /// nor the flat at a ramp's foot).
    pub step_landings: u64,
    /// Of those, the ones that touched down forefoot first: the ball within 1 cm of the
    /// ground with the heel still more than 1 cm higher than the ball (item 8 of the
    /// motion issue: people land forefoot first on stairs, up and down).
    #[serde(default)]
    pub step_landings_forefoot: u64,
    /// Stances (as the planted drift counts them) across a step edge at mid-stance, the
    /// ground under the ball more than 1 cm below the ground under the heel: toes hanging
    /// over a nosing, the sole not on one tread.
    #[serde(default)]
    pub stances_toes_over_edge: u64,
    /// The other way across an edge: the ball on the higher tread and the heel hanging
    /// over the lower one, as a foot running up a flight stands on its forefoot. Counted,
    /// not a fault.
    #[serde(default)]
    pub stances_heel_over_edge: u64,
    /// QUAL-5, RMS over both ankles of `‖p(t+3) − 3p(t+2) + 3p(t+1) − p(t)‖·f³` (m/s³).
    pub foot_jerk_rms: f32,
    /// QUAL-5, the same on the pelvis position (m/s³).
    pub pelvis_jerk_rms: f32,
    /// QUAL-7, sum of knee-flip events.
    pub knee_flips: u64,
    /// QUAL-7, sum of reach-clamp events.
    pub reach_clamps: u64,
    /// QUAL-7, ticks flagged `non_finite` or carrying a non-finite position/rotation (must be 0).
    pub nan_count: u64,
    /// Stances counted by the planted drift (both feet).
    pub stances: u64,
    /// Ticks in the run.
    pub ticks: u64,
}

/// After a landing (the first sample), in how many steps the feet alternate: the stance
/// starts (contact curve rising through [`STANCE_CONTACT_MIN`]) in time order, and the
/// index of the first one whose foot differs from the one before. 1 means the first two
/// steps already alternate; `None` with fewer than two steps or no alternation. A foot
/// planted at touch-down counts as a step there.
pub fn steps_to_alternate(samples: &[TickSample]) -> Option<usize> {
    let mut steps: Vec<usize> = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        for foot in 0..2 {
            let on = s.feet[foot].contact >= STANCE_CONTACT_MIN;
            let was_on = i > 0 && samples[i - 1].feet[foot].contact >= STANCE_CONTACT_MIN;
            if on && !was_on {
                steps.push(foot);
            }
        }
    }
    steps.windows(2).position(|w| w[0] != w[1]).map(|k| k + 1)
}

/// Which sole point of a foot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SolePoint {
    Heel,
    Ball,
}

fn sole_point(foot: &FootSample, which: SolePoint) -> (Vec3, Option<f32>) {
    match which {
        SolePoint::Heel => (foot.heel_world, foot.ground_under_heel_m),
        SolePoint::Ball => (foot.ball_world, foot.ground_under_ball_m),
    }
}

/// Height (m) of a sole point above the ground under it; `None` off the course or non-finite.
fn height_above_ground_m(foot: &FootSample, which: SolePoint) -> Option<f32> {
    let (point, ground) = sole_point(foot, which);
    let height = point.y - ground?;
    (point.is_finite() && height.is_finite()).then_some(height)
}

/// Whether `which` sole point is on its ground: within [`GROUND_SKID_HEIGHT_M`] above it,
/// or pressed into its top. A point far below the ground straight above it but near the
/// surface it is in is beside a step, against its riser, not on the tread above (a heel
/// scraping down a riser as the foot comes down a flight: 10 cm under the tread, 2 cm into
/// the riser); it is penetration, measured as such, not a planted foot.
fn on_its_ground(foot: &FootSample, which: SolePoint) -> bool {
    let Some(height) = height_above_ground_m(foot, which) else {
        return false;
    };
    let depth = match which {
        SolePoint::Heel => foot.heel_depth_m,
        SolePoint::Ball => foot.ball_depth_m,
    };
    let beside_a_riser =
        height < 0.0 && depth.is_some_and(|d| d.is_finite() && d < RISER_DEPTH_SHARE * -height);
    height <= GROUND_SKID_HEIGHT_M && !beside_a_riser
}

/// A point below its ground whose depth into the surface nearest it is less than this
/// share of its depth straight down is against a riser, not in the ground under it (on a
/// 40° slope the two are 0.77 apart, at a riser a few hundredths).
const RISER_DEPTH_SHARE: f32 = 0.5;

/// The lower sole point (by height above its own ground) and that height; `None` when neither
/// point is over the course.
fn lower_sole(foot: &FootSample) -> Option<(SolePoint, f32)> {
    let heel = height_above_ground_m(foot, SolePoint::Heel).map(|h| (SolePoint::Heel, h));
    let ball = height_above_ground_m(foot, SolePoint::Ball).map(|h| (SolePoint::Ball, h));
    match (heel, ball) {
        (Some(h), Some(b)) => Some(if b.1 < h.1 { b } else { h }),
        (h, b) => h.or(b),
    }
}

fn horizontal_m(delta: Vec3) -> f32 {
    Vec2::new(delta.x, delta.z).length()
}

/// Horizontal speed (m/s) of `which` sole point from `prev` to `cur`; `None` if non-finite.
fn point_speed_m_per_s(
    prev: &FootSample,
    cur: &FootSample,
    which: SolePoint,
    hz: f32,
) -> Option<f32> {
    let delta = sole_point(cur, which).0 - sole_point(prev, which).0;
    let speed = horizontal_m(delta) * hz;
    speed.is_finite().then_some(speed)
}

/// Horizontal speed (m/s) of tick `i`'s lower sole point: backward difference from tick
/// `i − 1` (forward difference on tick 0; 0 for a one-tick run).
fn sole_speed_m_per_s(samples: &[TickSample], foot: usize, i: usize, hz: f32) -> Option<f32> {
    let (which, _) = lower_sole(&samples[i].feet[foot])?;
    let (prev, cur) = if i > 0 {
        (i - 1, i)
    } else if samples.len() > 1 {
        (0, 1)
    } else {
        return Some(0.0);
    };
    point_speed_m_per_s(
        &samples[prev].feet[foot],
        &samples[cur].feet[foot],
        which,
        hz,
    )
}

/// Stance: grounded, over the course, and contact ≥ 0.5 — or, when the clip has no contact
/// curve (non-finite contact), the lower sole point moving slower than 0.35 m/s. A foot the
/// foot IK is stepping (lifted mid-stance, see [`FootSample::stepping`]) is not in stance:
/// it is not planted, and the ground skid still sees it if it is dragged instead.
pub fn in_stance(samples: &[TickSample], foot: usize, i: usize, hz: f32) -> bool {
    let sample = &samples[i];
    let foot_sample = &sample.feet[foot];
    if !sample.grounded || lower_sole(foot_sample).is_none() || foot_sample.stepping {
        return false;
    }
    if foot_sample.contact.is_finite() {
        foot_sample.contact >= STANCE_CONTACT_MIN
    } else {
        sole_speed_m_per_s(samples, foot, i, hz).is_some_and(|v| v < STANCE_SPEED_MAX_M_PER_S)
    }
}

/// Any non-finite position or rotation the sample itself carries (contact NaN is legitimate).
fn sample_has_non_finite(sample: &TickSample) -> bool {
    let feet_bad = sample.feet.iter().any(|f| {
        !f.ankle_world.is_finite() || !f.heel_world.is_finite() || !f.ball_world.is_finite()
    });
    feet_bad
        || !sample.root_world.is_finite()
        || !sample.pelvis_world.is_finite()
        || !sample.pelvis_rotation_world.is_finite()
}

/// Foot metrics of a run sampled at `hz` ticks per second (SPEC QUAL-1..5, QUAL-7 counts).
///
/// Skate ratio (QUAL-4, after GMD/OmniControl but per foot): for each foot and each pair of
/// consecutive ticks `(i − 1, i)` whose lower sole points are over the course, the interval
/// skates when the lower sole point is below 5 cm above ground at both ticks, and the
/// horizontal speed of tick `i`'s lower sole point (from its position at `i − 1`) exceeds
/// 0.5 m/s both on its own and averaged over a centred window of 5 intervals (truncated at
/// the ends of the run, where GMD pads with zeros). Denominator: every such foot-interval, so
/// a run of `n` ticks on the course has `2·(n − 1)`.
pub fn foot_quality(samples: &[TickSample], hz: f32) -> FootQuality {
    let mut quality = FootQuality {
        ticks: samples.len() as u64,
        ..FootQuality::default()
    };
    for sample in samples {
        quality.knee_flips += u64::from(sample.knee_flips);
        quality.reach_clamps += u64::from(sample.reach_clamps);
        quality.nan_count += u64::from(sample.non_finite || sample_has_non_finite(sample));
    }
    let Some(hz64) = valid_hz(hz) else {
        return quality;
    };

    // QUAL-1: per grounded foot-tick, the deeper sole point inside the ground (and, beside
    // it, below the ground straight up).
    let mut penetration_m = MeanMax::default();
    let mut penetration_vertical_m = MeanMax::default();
    for sample in samples.iter().filter(|s| s.grounded) {
        for foot in &sample.feet {
            let below = [SolePoint::Heel, SolePoint::Ball]
                .map(|which| height_above_ground_m(foot, which).map(|h| f64::from(-h).max(0.0)));
            let depths = [foot.heel_depth_m, foot.ball_depth_m]
                .map(|d| d.filter(|d| d.is_finite()).map(|d| f64::from(d).max(0.0)));
            let inside = [0, 1].map(|k| below[k].map(|b| depths[k].unwrap_or(b)));
            if let Some(deepest) = below.into_iter().flatten().reduce(f64::max) {
                penetration_vertical_m.push(deepest);
            }
            if let Some(deepest) = inside.into_iter().flatten().reduce(f64::max) {
                penetration_m.push(deepest);
            }
        }
    }

    // QUAL-2 over stance ticks, QUAL-3 per stance.
    let mut floats_m = Vec::new();
    for foot in 0..2 {
        for i in 0..samples.len() {
            if in_stance(samples, foot, i, hz) {
                if let Some((_, height)) = lower_sole(&samples[i].feet[foot]) {
                    floats_m.push(f64::from(height).max(0.0));
                }
            }
        }
    }
    let mut drift_m = MeanMax::default();
    let (mut toes_over, mut heel_over) = (0u64, 0u64);
    for stance in stance_drifts(samples, hz) {
        drift_m.push(stance.drift_m);
        let foot = &samples[stance.start + stance.ticks / 2].feet[stance.foot];
        if let Some(rise) = step_between_heel_and_ball_m(foot) {
            toes_over += u64::from(rise < 0.0);
            heel_over += u64::from(rise > 0.0);
        }
    }

    // QUAL-4: per foot, interval speeds then the moving-average test.
    let mut skating = 0u64;
    let mut intervals = 0u64;
    let mut skating_stance = 0u64;
    let mut stance_intervals = 0u64;
    for foot in 0..2 {
        // (low at both ends, speed) per interval ending at tick i; None off the course.
        let per_interval: Vec<Option<(bool, f32)>> = (1..samples.len())
            .map(|i| {
                let prev = &samples[i - 1].feet[foot];
                let cur = &samples[i].feet[foot];
                let (which, height_cur) = lower_sole(cur)?;
                let (_, height_prev) = lower_sole(prev)?;
                let speed = point_speed_m_per_s(prev, cur, which, hz)?;
                let low = height_cur < SKATE_HEIGHT_MAX_M && height_prev < SKATE_HEIGHT_MAX_M;
                Some((low, speed))
            })
            .collect();
        let half = SKATE_WINDOW_FRAMES / 2;
        for (j, entry) in per_interval.iter().enumerate() {
            let Some((low, speed)) = *entry else { continue };
            intervals += 1;
            // Interval j runs from tick j to tick j + 1.
            let stance = in_stance(samples, foot, j, hz) && in_stance(samples, foot, j + 1, hz);
            stance_intervals += u64::from(stance);
            if !low || speed <= SKATE_SPEED_MIN_M_PER_S {
                continue;
            }
            let window =
                &per_interval[j.saturating_sub(half)..(j + half + 1).min(per_interval.len())];
            let (sum, count) = window
                .iter()
                .flatten()
                .fold((0.0f64, 0u32), |(s, c), (_, v)| (s + f64::from(*v), c + 1));
            if count > 0 && sum / f64::from(count) > f64::from(SKATE_SPEED_MIN_M_PER_S) {
                skating += 1;
                skating_stance += u64::from(stance);
            }
        }
    }

    // QUAL-4 ground skid, per footfall; and which part of the foot lands first on a step.
    let mut skid_m = MeanMax::default();
    let (mut step_landings, mut forefoot_first) = (0u64, 0u64);
    for foot in 0..2 {
        let mut last_landing_m: Option<f32> = None;
        for fall in footfalls(samples, foot) {
            skid_m.push(f64::from(fall.skid_m));
            let sample = &samples[fall.start].feet[foot];
            let (Some(ground_heel), Some(ground_ball)) =
                (sample.ground_under_heel_m, sample.ground_under_ball_m)
            else {
                last_landing_m = None;
                continue;
            };
            let level = (ground_heel - ground_ball).abs() <= STEP_LANDING_LEVEL_M;
            let stepped = last_landing_m
                .is_some_and(|last| (ground_ball - last).abs() >= STEP_LANDING_RISE_M);
            if level && stepped {
                step_landings += 1;
                let heel_up = sample.heel_world.y - sample.ball_world.y;
                forefoot_first += u64::from(heel_up > GROUND_SKID_HEIGHT_M);
            }
            // From one tread to another: a landing off a ramp (onto the flat at its foot,
            // or the first tread past its top) has no riser behind it.
            last_landing_m = level.then_some(ground_ball);
        }
    }

    // The feet never collide (directional locomotion's item 4).
    let mut feet_min_m = f32::INFINITY;
    for sample in samples {
        let points = |f: &FootSample| [f.ankle_world, f.heel_world, f.ball_world];
        let [l, r] = &sample.feet;
        // A non-finite sample counts as the feet touching.
        feet_min_m = feet_min_m.min(feet_distance_m(points(l), points(r)).unwrap_or(0.0));
    }

    // QUAL-5: jerk on both ankles (pooled) and on the pelvis.
    let mut foot_jerk = Rms::default();
    for foot in 0..2 {
        let ankles: Vec<DVec3> = samples
            .iter()
            .map(|s| s.feet[foot].ankle_world.as_dvec3())
            .collect();
        push_jerks(&mut foot_jerk, &ankles, hz64);
    }
    let mut pelvis_jerk = Rms::default();
    let pelvis: Vec<DVec3> = samples.iter().map(|s| s.pelvis_world.as_dvec3()).collect();
    push_jerks(&mut pelvis_jerk, &pelvis, hz64);

    quality.penetration_mean_mm = to_f32(penetration_m.mean() * 1000.0);
    quality.penetration_max_mm = to_f32(penetration_m.max * 1000.0);
    quality.penetration_vertical_mean_mm = to_f32(penetration_vertical_m.mean() * 1000.0);
    quality.penetration_vertical_max_mm = to_f32(penetration_vertical_m.max * 1000.0);
    quality.float_mean_mm = to_f32(MeanMax::mean_of(&floats_m) * 1000.0);
    quality.float_p95_mm = to_f32(percentile(&mut floats_m, 0.95) * 1000.0);
    quality.planted_drift_mean_mm = to_f32(drift_m.mean() * 1000.0);
    quality.planted_drift_max_mm = to_f32(drift_m.max * 1000.0);
    quality.stances = drift_m.count;
    quality.skate_ratio = if intervals == 0 {
        0.0
    } else {
        to_f32(skating as f64 / intervals as f64)
    };
    quality.skate_ratio_stance = if stance_intervals == 0 {
        0.0
    } else {
        to_f32(skating_stance as f64 / stance_intervals as f64)
    };
    quality.ground_skid_mean_cm = to_f32(skid_m.mean() * 100.0);
    quality.ground_skid_max_cm = to_f32(skid_m.max * 100.0);
    quality.footfalls = skid_m.count;
    quality.feet_min_distance_cm = if feet_min_m.is_finite() {
        feet_min_m * 100.0
    } else {
        0.0
    };
    quality.step_landings = step_landings;
    quality.stances_toes_over_edge = toes_over;
    quality.stances_heel_over_edge = heel_over;
    quality.step_landings_forefoot = forefoot_first;
    quality.foot_jerk_rms = to_f32(foot_jerk.rms());
    quality.pelvis_jerk_rms = to_f32(pelvis_jerk.rms());
    quality
}

/// The footfalls of one foot (0 left, 1 right) over a run and their ground skid (QUAL-4;
/// see `plantigrade::clip_analysis::footfalls`), heights against the ground under each
/// sole point.
pub fn footfalls(samples: &[TickSample], foot: usize) -> Vec<plantigrade::clip_analysis::Footfall> {
    let heel: Vec<Vec3> = samples.iter().map(|s| s.feet[foot].heel_world).collect();
    let ball: Vec<Vec3> = samples.iter().map(|s| s.feet[foot].ball_world).collect();
    let height = |which: SolePoint| -> Vec<Option<f32>> {
        samples
            .iter()
            .map(|s| height_above_ground_m(&s.feet[foot], which))
            .collect()
    };
    plantigrade::clip_analysis::footfalls(
        &heel,
        &ball,
        &height(SolePoint::Heel),
        &height(SolePoint::Ball),
    )
}

/// The rise (m) of a step edge between a foot's heel and ball (ball higher positive), or
/// `None` when they stand on one surface: the grounds under them differ by a riser's
/// height at least ([`STEP_LANDING_RISE_M`]) and the ground half way is not on the line
/// between them (a slope's is, a ramp's crest nearly is), as at a riser.
fn step_between_heel_and_ball_m(foot: &FootSample) -> Option<f32> {
    let (heel, mid, ball) = (
        foot.ground_under_heel_m?,
        foot.ground_under_mid_m?,
        foot.ground_under_ball_m?,
    );
    let rise = ball - heel;
    let off_line = (mid - 0.5 * (heel + ball)).abs();
    (rise.abs() >= STEP_LANDING_RISE_M && off_line > 0.3 * rise.abs()).then_some(rise)
}

/// One stance of one foot and its planted drift (QUAL-3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StanceDrift {
    pub foot: usize,
    /// First tick of the stance and how many ticks it lasted.
    pub start: usize,
    pub ticks: usize,
    /// How far the foot slid where it touches the ground (m): the largest horizontal
    /// distance of a sole point (heel or ball) from where it first came within
    /// [`GROUND_SKID_HEIGHT_M`] of the ground in the stance, over the ticks it stayed
    /// that close. A stance with neither point that close is judged on its ball.
    pub drift_m: f64,
}

/// One sole point through a stance: where it first touched, and its largest travel since
/// while touching.
#[derive(Clone, Copy, Default)]
struct Planted {
    first_xz: Option<Vec3>,
    drift_m: f64,
}

impl Planted {
    fn push(&mut self, point: Vec3) {
        match self.first_xz {
            None if point.is_finite() => self.first_xz = Some(point),
            Some(first) => {
                let d = f64::from(horizontal_m(point - first));
                if d.is_finite() {
                    self.drift_m = self.drift_m.max(d);
                }
            }
            None => {}
        }
    }
}

/// Every stance of at least [`MIN_STANCE_TICKS`] ticks of both feet (see [`in_stance`]),
/// in order per foot, with its planted drift. A stance counts from the contact curve's
/// rise, while a heel-strike foot's ball is still coming down about its heel: that arc
/// is not drift, the heel sliding along the ground would be.
pub fn stance_drifts(samples: &[TickSample], hz: f32) -> Vec<StanceDrift> {
    let mut out = Vec::new();
    for foot in 0..2 {
        // The stance so far: its heel and ball while each is down, its ball throughout.
        let mut stance: Option<(StanceDrift, [Planted; 2], Planted)> = None;
        for i in 0..=samples.len() {
            let planted = i < samples.len() && in_stance(samples, foot, i, hz);
            if !planted {
                if let Some((mut s, points, ball)) = stance.take() {
                    if s.ticks >= MIN_STANCE_TICKS {
                        s.drift_m = if points.iter().any(|p| p.first_xz.is_some()) {
                            points[0].drift_m.max(points[1].drift_m)
                        } else {
                            ball.drift_m
                        };
                        out.push(s);
                    }
                }
                continue;
            }
            let f = &samples[i].feet[foot];
            let (s, points, ball) = stance.get_or_insert_with(|| {
                (
                    StanceDrift {
                        foot,
                        start: i,
                        ticks: 0,
                        drift_m: 0.0,
                    },
                    [Planted::default(); 2],
                    Planted::default(),
                )
            });
            s.ticks += 1;
            ball.push(f.ball_world);
            for (k, which) in [SolePoint::Heel, SolePoint::Ball].into_iter().enumerate() {
                let down = on_its_ground(f, which);
                if down {
                    points[k].push(sole_point(f, which).0);
                }
            }
        }
    }
    out
}
