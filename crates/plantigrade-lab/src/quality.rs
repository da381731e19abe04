//! Foot-quality and tilt metrics from per-tick samples (SPEC QUAL-1..6), and the trace CSV
//! they can be re-derived from.
//!
//! Pure on purpose: plain samples in, plain numbers out, only `std`, `glam` and `serde`, so
//! every metric is tested here on hand-built traces with known answers. The scenario loop fills
//! one [`TickSample`] per tick; [`foot_quality`] and [`tilt_quality`] reduce a whole run.
//!
//! Conventions shared by every metric:
//! - Heights and depths are measured against the analytic ground height under each sole point
//!   (`ground_under_*_m`). A point whose ground is `None` (off the course) is skipped, and a
//!   foot with neither point over the course is skipped for that tick (it is then also not in
//!   stance).
//! - Non-finite positions or angles are skipped, never propagated: every output is finite (or
//!   `None` where documented). Such ticks are counted in `nan_count`.
//! - `hz` must be finite and > 0; otherwise the metrics are all 0 except the counts.
//! - Internally everything is accumulated in `f64` so third differences keep their digits.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use glam::{DQuat, DVec3, Quat, Vec2, Vec3};
use plantigrade::clip_analysis::GROUND_SKID_HEIGHT_M;
use plantigrade::ik::feet_distance_m;
use serde::{Deserialize, Serialize};

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
/// Ground truth that moves less than this from where it settled is "steady" (QUAL-6).
pub const STEADY_TRUTH_TOLERANCE_DEG: f32 = 1.0;
/// Default time the ground truth must hold steady before tilt is judged (QUAL-6).
pub const DEFAULT_SETTLE_S: f32 = 0.3;
/// Below this mean |tilt pitch| (deg) the head deviation ratio is undefined (`None`).
pub const MIN_TILT_FOR_RATIO_DEG: f32 = 0.01;

/// One foot at one tick (world space, metres).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootSample {
    pub ankle_world: Vec3,
    /// Heel sole point.
    pub heel_world: Vec3,
    /// Ball sole point.
    pub ball_world: Vec3,
    /// Analytic ground height under the heel point (m); `None` off the course.
    pub ground_under_heel_m: Option<f32>,
    /// Analytic ground height under the ball point (m); `None` off the course.
    pub ground_under_ball_m: Option<f32>,
    /// Analytic ground height half way between heel and ball (m): on a slope it is the
    /// mean of the two, across a step edge it is one of them.
    pub ground_under_mid_m: Option<f32>,
    /// How deep the heel and ball points are inside the ground: the distance to the nearest
    /// surface, 0 on or above it (m; see `Course::depth_below_surface_m`). `None` when not
    /// known; penetration then takes the height below the ground under the point.
    pub heel_depth_m: Option<f32>,
    pub ball_depth_m: Option<f32>,
    /// 0..1 from the FootContact curve; NaN when the clip has none (stance then falls back to
    /// the foot's speed).
    pub contact: f32,
    pub ik_alpha: f32,
    pub predicted_landing_world: Option<Vec3>,
    pub heel_probe_hit: bool,
    pub toe_probe_hit: bool,
    pub locked: bool,
    /// The foot IK is stepping the foot (a lock let go mid-stance and the foot is lifted
    /// to where the animation has it): not in stance, whatever the curve says.
    pub stepping: bool,
}

/// Everything the metrics need from one tick of a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickSample {
    pub time_s: f32,
    /// Graph state name.
    pub state: String,
    pub root_world: Vec3,
    pub pelvis_world: Vec3,
    pub pelvis_rotation_world: Quat,
    pub grounded: bool,
    /// Left, right.
    pub feet: [FootSample; 2],
    /// Knee-flip events this tick.
    pub knee_flips: u32,
    /// Reach-clamp events this tick.
    pub reach_clamps: u32,
    /// Any NaN/∞ in the pose or position this tick.
    pub non_finite: bool,
    /// Applied pelvis tilt pitch (the procedural offset only), library convention: the tilt
    /// rotation is `R_x(-pitch) · R_z(roll)` in model space.
    pub tilt_pitch_rad: f32,
    pub tilt_roll_rad: f32,
    /// Truth: slope under the root along the facing, when on a uniform slope or stair flight.
    pub ground_pitch_rad: Option<f32>,
    pub ground_roll_rad: Option<f32>,
    /// Final head pitch (world).
    pub head_pitch_world_rad: f32,
    /// Head pitch before the procedural pass (what it would be on flat ground).
    pub head_pitch_anim_rad: f32,
    /// The character's forward (facing), horizontal unit vector.
    pub forward_world: Vec3,
    /// The trunk's top (neck, or the highest spine joint) and the head, final pose.
    pub neck_world: Vec3,
    pub head_world: Vec3,
    /// The trunk's lean as animated, before the procedural pass: the pelvis → neck line
    /// against vertical, signed along the facing, forward positive (rad).
    pub torso_lean_anim_rad: f32,
    /// The forward lean the character adds for its speed changes this tick (rad; see
    /// `plantigrade::lean`): part of the lean the posture profile expects, not an error.
    pub lean_pitch_rad: f32,
    /// Every joint of the final pose, in skeleton order (for filmstrips; may be empty).
    pub joints_world: Vec<Vec3>,
    /// How far the hips (the line between the thigh joints) are turned from the facing
    /// (rad, positive toward the left; see `crate::continuity::hips_yaw_rad`).
    pub hips_yaw_rad: f32,
}

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
    /// the largest horizontal distance of the ball point from where it was on the stance's
    /// first tick (mm).
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
    /// at a height 5 cm or more from where the same foot last landed (a tread up or down a
    /// flight; not a ramp, whose ground is not level under the foot).
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

/// Pelvis tilt metrics of one run (SPEC QUAL-5 angular part, QUAL-6). Angles in degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TiltQuality {
    /// RMS of the full pelvis world angular speed between consecutive ticks (deg/s).
    pub pelvis_angvel_rms_deg_s: f32,
    /// RMS angular speed of the tilt offset alone, `R_x(-pitch)·R_z(roll)` between consecutive
    /// ticks (deg/s): isolates the tilt from the gait's own pelvis motion.
    pub tilt_angvel_rms_deg_s: f32,
    /// Mean |applied − truth| pitch over settled ticks (deg).
    pub tilt_pitch_error_deg: f32,
    /// Mean |applied − truth| roll over settled ticks (deg).
    pub tilt_roll_error_deg: f32,
    /// Largest |applied − truth| pitch over settled ticks (deg).
    pub tilt_pitch_error_max_deg: f32,
    /// Largest |applied − truth| roll over settled ticks (deg).
    pub tilt_roll_error_max_deg: f32,
    /// Largest peak-to-peak of applied pitch within one settled stretch (deg): per-step
    /// oscillation on stairs. Measured per stretch so two different slopes don't add up.
    pub tilt_pitch_p2p_deg: f32,
    /// Mean |final − anim| head pitch over settled ticks (deg).
    pub head_pitch_dev_deg: f32,
    /// `head_pitch_dev_deg` / mean |applied tilt pitch| over the same ticks: 0 = the head is
    /// fully stabilised, 1 = it follows the pelvis tilt. `None` without settled ticks or with
    /// mean tilt below [`MIN_TILT_FOR_RATIO_DEG`].
    pub head_pitch_dev_ratio: Option<f32>,
    /// RMS of `‖Δ³(pitch, roll)‖·f³` over every four consecutive ticks (deg/s³).
    pub tilt_jitter_deg_s3: f32,
    /// Ticks judged for tilt error (see [`tilt_quality`]).
    pub settled_ticks: u64,
    /// Ticks in the run.
    pub ticks: u64,
}

/// The TILT-12 posture profile the torso lean is judged against: going up a slope of
/// angle θ the trunk leans forward by `uphill_min..uphill_max` × θ more than its gait does
/// on flat ground; going down it leans back by at most `downhill_back_max_deg` (and not
/// forward of the gait's own lean); on the level (a cross-slope included) it keeps the
/// gait's own lean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostureProfile {
    pub uphill_min: f32,
    pub uphill_max: f32,
    pub downhill_back_max_deg: f32,
}

impl Default for PostureProfile {
    fn default() -> Self {
        Self {
            uphill_min: 0.3,
            uphill_max: 0.5,
            downhill_back_max_deg: 5.0,
        }
    }
}

impl PostureProfile {
    /// The band of torso lean (deg, forward +) the profile allows on a slope of
    /// `slope_deg` along the facing (up +), for a gait that leans `anim_deg` on the level.
    pub fn band_deg(&self, slope_deg: f64, anim_deg: f64) -> (f64, f64) {
        if slope_deg >= 0.0 {
            (
                anim_deg + f64::from(self.uphill_min) * slope_deg,
                anim_deg + f64::from(self.uphill_max) * slope_deg,
            )
        } else {
            (anim_deg - f64::from(self.downhill_back_max_deg), anim_deg)
        }
    }
}

/// Posture of one run (SPEC QUAL-8). Angles in degrees, lean forward positive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PostureQuality {
    /// Mean torso lean (pelvis → neck against vertical, along the facing) over grounded
    /// ticks.
    pub torso_lean_mean_deg: f32,
    /// Mean distance of the torso lean from the [`PostureProfile`] band over settled ticks
    /// (the ground truth steady for the settle time, as for the tilt error); 0 inside it.
    pub torso_lean_error_deg: f32,
    pub torso_lean_error_max_deg: f32,
    /// Mean torso lean over settled ticks going up (truth pitch > 3°) and down (< −3°);
    /// `None` without such ticks.
    pub torso_lean_uphill_deg: Option<f32>,
    pub torso_lean_downhill_deg: Option<f32>,
    /// Grounded ticks going up a slope of more than 3° with the head behind the pelvis
    /// (along the facing).
    pub head_behind_pelvis_ticks: u64,
    /// Ticks judged for the lean error.
    pub posture_ticks: u64,
}

/// Lean (rad, forward +) of the line `from → to` against vertical, along `forward`.
pub fn lean_along_rad(from: Vec3, to: Vec3, forward: Vec3) -> f32 {
    let d = to - from;
    let along = d.dot(Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::Z));
    along.atan2(d.y)
}

/// Posture metrics of a run sampled at `hz` (SPEC QUAL-8), the lean judged against
/// `profile` on the ticks [`tilt_quality`] calls settled.
pub fn posture_quality(
    samples: &[TickSample],
    hz: f32,
    settle_s: f32,
    profile: &PostureProfile,
) -> PostureQuality {
    let mut quality = PostureQuality::default();
    let settled = settled_ticks(samples, hz, settle_s);
    let mut lean = MeanMax::default();
    let mut error = MeanMax::default();
    let mut uphill = MeanMax::default();
    let mut downhill = MeanMax::default();
    for (i, s) in samples.iter().enumerate() {
        if !s.grounded {
            continue;
        }
        let lean_deg = f64::from(lean_along_rad(
            s.pelvis_world,
            s.neck_world,
            s.forward_world,
        ))
        .to_degrees();
        if !lean_deg.is_finite() {
            continue;
        }
        lean.push(lean_deg);
        let slope_deg = s
            .ground_pitch_rad
            .filter(|p| p.is_finite())
            .map(|p| f64::from(p).to_degrees());
        if slope_deg.is_some_and(|p| p > 3.0) {
            let forward =
                Vec3::new(s.forward_world.x, 0.0, s.forward_world.z).normalize_or(Vec3::Z);
            if (s.head_world - s.pelvis_world).dot(forward) < 0.0 {
                quality.head_behind_pelvis_ticks += 1;
            }
        }
        let (Some(slope_deg), Some(_)) = (slope_deg, settled[i]) else {
            continue;
        };
        // The gait's own lean and the lean for speed changes: the slope's part is judged.
        let anim_deg = f64::from(s.torso_lean_anim_rad + s.lean_pitch_rad).to_degrees();
        let (lo, hi) = profile.band_deg(slope_deg, anim_deg);
        error.push((lo - lean_deg).max(lean_deg - hi).max(0.0));
        if slope_deg > 3.0 {
            uphill.push(lean_deg);
        } else if slope_deg < -3.0 {
            downhill.push(lean_deg);
        }
    }
    quality.torso_lean_mean_deg = to_f32(lean.mean());
    quality.torso_lean_error_deg = to_f32(error.mean());
    quality.torso_lean_error_max_deg = to_f32(error.max);
    quality.torso_lean_uphill_deg = (uphill.count > 0).then(|| to_f32(uphill.mean()));
    quality.torso_lean_downhill_deg = (downhill.count > 0).then(|| to_f32(downhill.mean()));
    quality.posture_ticks = error.count;
    quality
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

/// Per tick, the first tick of its steady stretch when it is settled (see
/// [`tilt_quality`]), else `None`.
fn settled_ticks(samples: &[TickSample], hz: f32, settle_s: f32) -> Vec<Option<usize>> {
    let mut out = vec![None; samples.len()];
    let Some(hz64) = valid_hz(hz) else {
        return out;
    };
    let settle_s = if settle_s.is_finite() {
        f64::from(settle_s.max(0.0))
    } else {
        f64::from(DEFAULT_SETTLE_S)
    };
    let settle_ticks = settle_s * hz64 - 1e-6;
    let tolerance_rad = f64::from(STEADY_TRUTH_TOLERANCE_DEG).to_radians();
    let mut stretch: Option<(usize, f64, f64)> = None;
    for (i, s) in samples.iter().enumerate() {
        let truth = match (s.ground_pitch_rad, s.ground_roll_rad) {
            (Some(p), Some(r)) if s.grounded && p.is_finite() && r.is_finite() => {
                Some((f64::from(p), f64::from(r)))
            }
            _ => None,
        };
        stretch = match (truth, stretch) {
            (None, _) => None,
            (Some((p, r)), Some((start, p0, r0)))
                if (p - p0).abs() <= tolerance_rad && (r - r0).abs() <= tolerance_rad =>
            {
                Some((start, p0, r0))
            }
            (Some((p, r)), _) => Some((i, p, r)),
        };
        if let Some((start, _, _)) = stretch {
            out[i] = (((i - start) as f64) >= settle_ticks).then_some(start);
        }
    }
    out
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
fn in_stance(samples: &[TickSample], foot: usize, i: usize, hz: f32) -> bool {
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

/// Running mean and maximum of non-negative values.
#[derive(Default)]
struct MeanMax {
    sum: f64,
    count: u64,
    max: f64,
}

impl MeanMax {
    fn push(&mut self, value: f64) {
        if value.is_finite() {
            self.sum += value;
            self.count += 1;
            self.max = self.max.max(value);
        }
    }
    fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
    fn mean_of(values: &[f64]) -> f64 {
        let mut acc = MeanMax::default();
        values.iter().for_each(|v| acc.push(*v));
        acc.mean()
    }
}

/// Running root mean square.
#[derive(Default)]
struct Rms {
    sum_sq: f64,
    count: u64,
}

impl Rms {
    fn push(&mut self, value: f64) {
        if value.is_finite() {
            self.sum_sq += value * value;
            self.count += 1;
        }
    }
    fn rms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            (self.sum_sq / self.count as f64).sqrt()
        }
    }
}

/// Percentile `p` (0..1) with linear interpolation between closest ranks (numpy's default);
/// 0 for no values. Sorts `values`.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = p.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    values[lo] + (values[hi] - values[lo]) * (rank - lo as f64)
}

/// `‖p(t+3) − 3p(t+2) + 3p(t+1) − p(t)‖·f³` for every window of four finite points.
fn push_jerks(rms: &mut Rms, points: &[DVec3], hz: f64) {
    for w in points.windows(4) {
        if w.iter().all(|p| p.is_finite()) {
            let third = w[3] - 3.0 * w[2] + 3.0 * w[1] - w[0];
            rms.push(third.length() * hz * hz * hz);
        }
    }
}

fn valid_hz(hz: f32) -> Option<f64> {
    (hz.is_finite() && hz > 0.0).then_some(hz as f64)
}

fn to_f32(value: f64) -> f32 {
    let v = value as f32;
    if v.is_finite() {
        v
    } else {
        0.0
    }
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
            last_landing_m = Some(ground_ball);
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
    /// The largest horizontal distance of the ball point from where it was on the
    /// stance's first tick (m).
    pub drift_m: f64,
}

/// Every stance of at least [`MIN_STANCE_TICKS`] ticks of both feet (see [`in_stance`]),
/// in order per foot, with its planted drift.
pub fn stance_drifts(samples: &[TickSample], hz: f32) -> Vec<StanceDrift> {
    let mut out = Vec::new();
    for foot in 0..2 {
        // (ball point on the stance's first tick, the stance so far)
        let mut stance: Option<(Vec3, StanceDrift)> = None;
        for i in 0..=samples.len() {
            let planted = i < samples.len() && in_stance(samples, foot, i, hz);
            let ball = if planted {
                samples[i].feet[foot].ball_world
            } else {
                Vec3::NAN
            };
            match (&mut stance, planted) {
                (Some((start, s)), true) => {
                    let d = f64::from(horizontal_m(ball - *start));
                    if d.is_finite() {
                        s.drift_m = s.drift_m.max(d);
                    }
                    s.ticks += 1;
                }
                (None, true) if ball.is_finite() => {
                    stance = Some((
                        ball,
                        StanceDrift {
                            foot,
                            start: i,
                            ticks: 1,
                            drift_m: 0.0,
                        },
                    ))
                }
                (slot, false) => {
                    if let Some((_, s)) = slot.take() {
                        if s.ticks >= MIN_STANCE_TICKS {
                            out.push(s);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Angle (rad) of the shortest rotation from `a` to `b`; `None` for non-finite or zero-length
/// quaternions.
fn rotation_angle_rad(a: DQuat, b: DQuat) -> Option<f64> {
    let (la, lb) = (a.length(), b.length());
    if !(la.is_finite() && lb.is_finite() && la > 1e-9 && lb > 1e-9) {
        return None;
    }
    let rel = (b / lb) * (a / la).conjugate();
    // atan2 keeps its digits for small angles where acos(w) does not.
    let angle = 2.0 * rel.xyz().length().atan2(rel.w.abs());
    angle.is_finite().then_some(angle)
}

/// The tilt offset rotation in the library's convention, `R_x(-pitch) · R_z(roll)`.
fn tilt_rotation(pitch_rad: f32, roll_rad: f32) -> DQuat {
    DQuat::from_rotation_x(-f64::from(pitch_rad)) * DQuat::from_rotation_z(f64::from(roll_rad))
}

/// Tilt metrics of a run sampled at `hz` (SPEC QUAL-5 angular velocity, QUAL-6).
///
/// Settled ticks: a stretch starts on a grounded tick where both ground truths are `Some`
/// and finite, and continues while the character stays grounded and both truths stay within
/// 1° of their values on the stretch's first tick (otherwise a new stretch starts, or none
/// when a truth is `None` or the character is airborne). A tick is settled once its stretch
/// has lasted `settle_s` (counted in ticks: `(i − start)/hz ≥ settle_s`), so the first
/// `settle_s` of every stretch is excluded. A non-finite or negative `settle_s` uses 0.3 s
/// or 0 respectively.
pub fn tilt_quality(samples: &[TickSample], hz: f32, settle_s: f32) -> TiltQuality {
    let mut quality = TiltQuality {
        ticks: samples.len() as u64,
        ..TiltQuality::default()
    };
    let Some(hz64) = valid_hz(hz) else {
        return quality;
    };

    let mut pelvis_angvel = Rms::default();
    let mut tilt_angvel = Rms::default();
    for pair in samples.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (qa, qb) = (
            a.pelvis_rotation_world.as_dquat(),
            b.pelvis_rotation_world.as_dquat(),
        );
        if let Some(angle) = rotation_angle_rad(qa, qb) {
            pelvis_angvel.push(angle.to_degrees() * hz64);
        }
        let tilts_finite = [
            a.tilt_pitch_rad,
            a.tilt_roll_rad,
            b.tilt_pitch_rad,
            b.tilt_roll_rad,
        ]
        .iter()
        .all(|v| v.is_finite());
        if tilts_finite {
            let qa = tilt_rotation(a.tilt_pitch_rad, a.tilt_roll_rad);
            let qb = tilt_rotation(b.tilt_pitch_rad, b.tilt_roll_rad);
            if let Some(angle) = rotation_angle_rad(qa, qb) {
                tilt_angvel.push(angle.to_degrees() * hz64);
            }
        }
    }

    let mut jitter = Rms::default();
    let tilt_deg: Vec<DVec3> = samples
        .iter()
        .map(|s| {
            DVec3::new(
                f64::from(s.tilt_pitch_rad).to_degrees(),
                f64::from(s.tilt_roll_rad).to_degrees(),
                0.0,
            )
        })
        .collect();
    push_jerks(&mut jitter, &tilt_deg, hz64);

    let settled = settled_ticks(samples, hz, settle_s);
    let mut pitch_error = MeanMax::default();
    let mut roll_error = MeanMax::default();
    let mut head_dev = MeanMax::default();
    let mut tilt_abs = MeanMax::default();
    let mut p2p_max_deg = 0.0f64;
    // (stretch start, min, max) of applied pitch (deg) over the stretch's settled ticks.
    let mut p2p: Option<(usize, f64, f64)> = None;
    for (s, start) in samples.iter().zip(&settled) {
        let (Some(start), Some(truth_pitch), Some(truth_roll)) =
            (*start, s.ground_pitch_rad, s.ground_roll_rad)
        else {
            continue;
        };
        let (truth_pitch, truth_roll) = (f64::from(truth_pitch), f64::from(truth_roll));
        quality.settled_ticks += 1;
        let applied_pitch = f64::from(s.tilt_pitch_rad);
        let applied_roll = f64::from(s.tilt_roll_rad);
        pitch_error.push((applied_pitch - truth_pitch).abs().to_degrees());
        roll_error.push((applied_roll - truth_roll).abs().to_degrees());
        let head = f64::from(s.head_pitch_world_rad) - f64::from(s.head_pitch_anim_rad);
        head_dev.push(head.abs().to_degrees());
        tilt_abs.push(applied_pitch.abs().to_degrees());
        let pitch_deg = applied_pitch.to_degrees();
        if pitch_deg.is_finite() {
            p2p = match p2p {
                Some((run, lo, hi)) if run == start => {
                    Some((run, lo.min(pitch_deg), hi.max(pitch_deg)))
                }
                _ => Some((start, pitch_deg, pitch_deg)),
            };
            if let Some((_, lo, hi)) = p2p {
                p2p_max_deg = p2p_max_deg.max(hi - lo);
            }
        }
    }

    quality.pelvis_angvel_rms_deg_s = to_f32(pelvis_angvel.rms());
    quality.tilt_angvel_rms_deg_s = to_f32(tilt_angvel.rms());
    quality.tilt_pitch_error_deg = to_f32(pitch_error.mean());
    quality.tilt_roll_error_deg = to_f32(roll_error.mean());
    quality.tilt_pitch_error_max_deg = to_f32(pitch_error.max);
    quality.tilt_roll_error_max_deg = to_f32(roll_error.max);
    quality.tilt_pitch_p2p_deg = to_f32(p2p_max_deg);
    quality.head_pitch_dev_deg = to_f32(head_dev.mean());
    let mean_tilt_deg = tilt_abs.mean();
    quality.head_pitch_dev_ratio = (head_dev.count > 0
        && mean_tilt_deg >= f64::from(MIN_TILT_FOR_RATIO_DEG))
    .then(|| to_f32(head_dev.mean() / mean_tilt_deg));
    quality.tilt_jitter_deg_s3 = to_f32(jitter.rms());
    quality
}

/// Column names of the trace CSV, in order. Per-foot columns are prefixed `l_` and `r_`.
pub fn trace_csv_columns() -> Vec<String> {
    let mut columns: Vec<String> = ["time_s", "state"].map(String::from).to_vec();
    for name in ["root", "pelvis"] {
        columns.extend(["x", "y", "z"].map(|c| format!("{name}_{c}")));
    }
    columns.extend(["qx", "qy", "qz", "qw"].map(|c| format!("pelvis_{c}")));
    columns.push("grounded".into());
    for side in ["l", "r"] {
        for point in ["ankle", "heel", "ball"] {
            columns.extend(["x", "y", "z"].map(|c| format!("{side}_{point}_{c}")));
        }
        for name in [
            "ground_heel_m",
            "ground_ball_m",
            "heel_depth_m",
            "ball_depth_m",
            "contact",
            "ik_alpha",
            "pred_x",
            "pred_y",
            "pred_z",
            "heel_hit",
            "toe_hit",
            "locked",
            "stepping",
        ] {
            columns.push(format!("{side}_{name}"));
        }
    }
    columns.extend(
        [
            "tilt_pitch_deg",
            "tilt_roll_deg",
            "ground_pitch_deg",
            "ground_roll_deg",
            "head_pitch_final_deg",
            "head_pitch_anim_deg",
            "knee_flips",
            "reach_clamps",
            "non_finite",
        ]
        .map(String::from),
    );
    columns
}

/// One CSV row being built: fields joined by commas.
struct Row(String);

impl Row {
    fn field(&mut self, value: impl std::fmt::Display) {
        if !self.0.is_empty() {
            self.0.push(',');
        }
        // Writing into a String cannot fail.
        let _ = write!(self.0, "{value}");
    }
    /// f32 prints as the shortest text that parses back to the same value (NaN as `NaN`).
    fn vec3(&mut self, v: Vec3) {
        v.to_array().iter().for_each(|c| self.field(c));
    }
    fn optional(&mut self, value: Option<f32>) {
        match value {
            Some(v) => self.field(v),
            None => self.field(""),
        }
    }
    fn flag(&mut self, value: bool) {
        self.field(u8::from(value));
    }
    fn text(&mut self, value: &str) {
        if value.contains([',', '"', '\n', '\r']) {
            self.field(format_args!("\"{}\"", value.replace('"', "\"\"")));
        } else {
            self.field(value);
        }
    }
}

/// Writes one row per tick with a header row (columns: [`trace_csv_columns`]), so anyone can
/// re-derive the metrics. Positions in metres; tilt, ground truth and head pitch in degrees;
/// `None` values are empty fields; flags are 0/1; a text field with a comma or quote is quoted
/// (RFC 4180). Creates the parent directory if needed.
pub fn write_trace_csv(path: &Path, samples: &[TickSample]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "{}", trace_csv_columns().join(","))?;
    let deg = |rad: f32| rad.to_degrees();
    for s in samples {
        let mut row = Row(String::new());
        row.field(s.time_s);
        row.text(&s.state);
        row.vec3(s.root_world);
        row.vec3(s.pelvis_world);
        s.pelvis_rotation_world
            .to_array()
            .iter()
            .for_each(|c| row.field(c));
        row.flag(s.grounded);
        for foot in &s.feet {
            row.vec3(foot.ankle_world);
            row.vec3(foot.heel_world);
            row.vec3(foot.ball_world);
            row.optional(foot.ground_under_heel_m);
            row.optional(foot.ground_under_ball_m);
            row.optional(foot.heel_depth_m);
            row.optional(foot.ball_depth_m);
            row.field(foot.contact);
            row.field(foot.ik_alpha);
            for axis in 0..3 {
                row.optional(foot.predicted_landing_world.map(|p| p[axis]));
            }
            row.flag(foot.heel_probe_hit);
            row.flag(foot.toe_probe_hit);
            row.flag(foot.locked);
            row.flag(foot.stepping);
        }
        row.field(deg(s.tilt_pitch_rad));
        row.field(deg(s.tilt_roll_rad));
        row.optional(s.ground_pitch_rad.map(deg));
        row.optional(s.ground_roll_rad.map(deg));
        row.field(deg(s.head_pitch_world_rad));
        row.field(deg(s.head_pitch_anim_rad));
        row.field(s.knee_flips);
        row.field(s.reach_clamps);
        row.flag(s.non_finite);
        writeln!(out, "{}", row.0)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
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
        // The left foot lands three times: on the floor, then ball first on a tread 0.2 m
        // up, then heel first on the next tread; the right foot stands once with its toes
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
}
