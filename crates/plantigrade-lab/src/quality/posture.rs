//! Torso lean against the TILT-12 slope profile and the head against the pelvis (SPEC
//! QUAL-8).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::sample::TickSample;
use super::stats::{to_f32, MeanMax};
use super::tilt::settled_ticks;

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

impl Default for PostureProfile {
    fn default() -> Self {
        Self {
            uphill_min: 0.3,
            uphill_max: 0.5,
            downhill_back_max_deg: 5.0,
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
/// `profile` on the ticks [`super::tilt::tilt_quality`] calls settled.
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
