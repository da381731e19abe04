//! Foot-contact analysis of a gait clip played in place at its authored speed on flat
//! ground: stance share per foot, planted drift of the ball point per stance (SPEC QUAL-3)
//! and ground skid per footfall (QUAL-4). Used by the lab's clip table and scenarios and by
//! the mannequin's own tests.

use glam::Vec3;

use crate::bone_map::{BoneMapError, HumanoidMap, Side};
use crate::clip::{Clip, ClipError};
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;

/// Names of the contact curves read per side (1 = planted, 0 = swing).
pub const FOOT_CONTACT_CURVES: [&str; 2] = ["FootContact_L", "FootContact_R"];
/// Prefix of footstep events (`Footstep_L`, `Footstep_R`).
pub const FOOTSTEP_EVENT_PREFIX: &str = "Footstep";
/// A sole point this close to the ground, or closer, is on it for the ground skid (m).
pub const GROUND_SKID_HEIGHT_M: f32 = 0.01;

/// One footfall's ground skid (SPEC QUAL-4): the foot came within
/// [`GROUND_SKID_HEIGHT_M`] of the ground at sample `start` and stayed there through `end`
/// (inclusive; its lower sole point); `skid_m` is the larger of the heel's and the ball's
/// horizontal travel while that point itself was that close.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footfall {
    pub start: usize,
    pub end: usize,
    pub skid_m: f32,
}

/// Footfalls of one foot and their ground skid, independent of any contact curve: over
/// samples of its heel and ball points (world) and their heights above the true ground
/// (`None` off the ground's extent, which ends a footfall). A planted foot skids 0; a foot
/// that sweeps along the floor before it stops skids the length of the sweep; a foot that
/// pivots on its ball with the heel down skids the heel's arc.
pub fn footfalls(
    heel_world: &[Vec3],
    ball_world: &[Vec3],
    heel_height_m: &[Option<f32>],
    ball_height_m: &[Option<f32>],
) -> Vec<Footfall> {
    let n = heel_world
        .len()
        .min(ball_world.len())
        .min(heel_height_m.len())
        .min(ball_height_m.len());
    let near = |h: Option<f32>| h.is_some_and(|h| h <= GROUND_SKID_HEIGHT_M);
    let horizontal = |a: Vec3, b: Vec3| {
        let d = b - a;
        let l = Vec3::new(d.x, 0.0, d.z).length();
        if l.is_finite() {
            l
        } else {
            0.0
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !(near(heel_height_m[i]) || near(ball_height_m[i])) {
            i += 1;
            continue;
        }
        let start = i;
        let (mut heel_m, mut ball_m) = (0.0f32, 0.0f32);
        while i + 1 < n && (near(heel_height_m[i + 1]) || near(ball_height_m[i + 1])) {
            if near(heel_height_m[i]) && near(heel_height_m[i + 1]) {
                heel_m += horizontal(heel_world[i], heel_world[i + 1]);
            }
            if near(ball_height_m[i]) && near(ball_height_m[i + 1]) {
                ball_m += horizontal(ball_world[i], ball_world[i + 1]);
            }
            i += 1;
        }
        out.push(Footfall {
            start,
            end: i,
            skid_m: heel_m.max(ball_m),
        });
        i += 1;
    }
    out
}

/// How a clip is analysed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitAnalysisConfig {
    /// Evaluation rate (Hz); default 60, the library's tick.
    pub sample_rate_hz: f32,
    /// A foot is in stance while its contact curve is at least this (default 0.5).
    pub contact_threshold: f32,
    /// Without a contact curve, a foot is in stance while its ball point moves slower than
    /// this in world space (m/s; default 0.35, SPEC IK-5).
    pub stance_speed_threshold_m_s: f32,
}

impl Default for GaitAnalysisConfig {
    fn default() -> Self {
        Self {
            sample_rate_hz: 60.0,
            contact_threshold: 0.5,
            stance_speed_threshold_m_s: 0.35,
        }
    }
}

/// One stance of one foot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stance {
    /// Clip time at which the stance starts (seconds, within one cycle).
    pub start_s: f32,
    pub duration_s: f32,
    /// Horizontal path length of the ball point during the stance (mm).
    pub drift_mm: f32,
    /// Highest |height| of the ball point above the flat ground during the stance (mm).
    pub max_height_mm: f32,
}

/// Per-foot result.
#[derive(Clone, Debug, PartialEq)]
pub struct FootGait {
    pub side: Side,
    /// Share of the cycle this foot is in stance (0..=1).
    pub stance_share: f32,
    /// Whether stance came from the clip's contact curve (else from foot speed).
    pub from_contact_curve: bool,
    pub stances: Vec<Stance>,
    /// Ground skid of each footfall that starts in the measured cycle (m, QUAL-4).
    pub ground_skids_m: Vec<f32>,
}

/// Analysis of one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct GaitReport {
    pub clip: String,
    pub duration_s: f32,
    /// Authored ground speed (m/s); 0 for a clip without one.
    pub speed_m_s: f32,
    pub feet: [FootGait; 2],
    /// Footstep events per cycle (events whose name starts with `Footstep`).
    pub footsteps_per_cycle: usize,
}

impl GaitReport {
    fn drifts(&self) -> impl Iterator<Item = f32> + '_ {
        self.feet
            .iter()
            .flat_map(|f| f.stances.iter().map(|s| s.drift_mm))
    }

    /// Mean planted drift over every stance of both feet (mm); 0 with no stance.
    pub fn planted_drift_mean_mm(&self) -> f32 {
        let (sum, n) = self
            .drifts()
            .fold((0.0, 0usize), |(s, n), d| (s + d, n + 1));
        if n == 0 {
            0.0
        } else {
            sum / n as f32
        }
    }

    /// Largest planted drift of any stance (mm).
    pub fn planted_drift_max_mm(&self) -> f32 {
        self.drifts().fold(0.0, f32::max)
    }

    /// Mean ground skid over both feet's footfalls (cm; 0 without footfalls).
    pub fn ground_skid_mean_cm(&self) -> f32 {
        let skids: Vec<f32> = self
            .feet
            .iter()
            .flat_map(|f| f.ground_skids_m.iter().copied())
            .collect();
        if skids.is_empty() {
            0.0
        } else {
            100.0 * skids.iter().sum::<f32>() / skids.len() as f32
        }
    }

    /// The largest ground skid of any footfall (cm).
    pub fn ground_skid_max_cm(&self) -> f32 {
        100.0
            * self
                .feet
                .iter()
                .flat_map(|f| f.ground_skids_m.iter().copied())
                .fold(0.0, f32::max)
    }

    /// Number of stances per cycle over both feet.
    pub fn stance_count(&self) -> usize {
        self.feet.iter().map(|f| f.stances.len()).sum()
    }
}

/// Why a clip could not be analysed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GaitAnalysisError {
    #[error(transparent)]
    BoneMap(#[from] BoneMapError),
    #[error("no foot sockets for the {0:?} foot")]
    NoSockets(Side),
    #[error(transparent)]
    Clip(#[from] ClipError),
    #[error(transparent)]
    Pose(#[from] PoseError),
    #[error("clip '{0}' has zero duration")]
    ZeroDuration(String),
    #[error("sample rate must be positive and finite")]
    BadSampleRate,
}

/// Plays `clip` in place at its authored velocity (zero if it has none) for three cycles
/// and measures the middle one, so stances that wrap around the loop point are whole.
pub fn analyze_gait(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clip: &Clip,
    config: &GaitAnalysisConfig,
) -> Result<GaitReport, GaitAnalysisError> {
    if !(config.sample_rate_hz > 0.0 && config.sample_rate_hz.is_finite()) {
        return Err(GaitAnalysisError::BadSampleRate);
    }
    let duration_s = clip.duration_s();
    if duration_s <= 0.0 {
        return Err(GaitAnalysisError::ZeroDuration(clip.name().to_string()));
    }
    let velocity = clip.authored_velocity_model_m_s().unwrap_or(Vec3::ZERO);
    let dt = 1.0 / config.sample_rate_hz;
    let per_cycle = (duration_s * config.sample_rate_hz).round().max(1.0) as usize;
    let total = per_cycle * 3;

    let mut legs = Vec::with_capacity(2);
    for side in Side::BOTH {
        let leg = bones.leg(side)?;
        let sockets = bones.feet[side.index()].ok_or(GaitAnalysisError::NoSockets(side))?;
        legs.push((leg, sockets));
    }

    // Heel and ball points (world) and stance flag per sample and foot.
    let mut ball_world = [vec![Vec3::ZERO; total], vec![Vec3::ZERO; total]];
    let mut heel_world = [vec![Vec3::ZERO; total], vec![Vec3::ZERO; total]];
    let mut contact = [vec![None::<f32>; total], vec![None::<f32>; total]];
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    for i in 0..total {
        let t = i as f32 * dt;
        clip.sample(t, skeleton.rest_local(), &mut pose)?;
        local_to_model(skeleton, &pose, &mut model)?;
        let root_world = velocity * t;
        for (f, (leg, sockets)) in legs.iter().enumerate() {
            ball_world[f][i] = root_world + model.point_model(leg.foot, sockets.ball_foot_local);
            heel_world[f][i] = root_world + model.point_model(leg.foot, sockets.heel_foot_local);
            contact[f][i] = clip.sample_curve(FOOT_CONTACT_CURVES[f], t);
        }
    }

    let feet = [0, 1].map(|f| {
        let from_curve = contact[f][0].is_some();
        let in_stance: Vec<bool> = (0..total)
            .map(|i| match contact[f][i] {
                Some(c) => c >= config.contact_threshold,
                None => {
                    let j = if i + 1 < total { i + 1 } else { i - 1 };
                    let d = ball_world[f][j] - ball_world[f][i];
                    Vec3::new(d.x, 0.0, d.z).length() / dt < config.stance_speed_threshold_m_s
                }
            })
            .collect();
        let middle = per_cycle..2 * per_cycle;
        let stance_samples = in_stance[middle.clone()].iter().filter(|&&s| s).count();
        let mut stances = Vec::new();
        // A foot planted for the whole cycle has no stance start: measure the cycle.
        let always_planted = stance_samples == per_cycle;
        for start in middle {
            let starts_here = in_stance[start] && !in_stance[start - 1];
            if !(starts_here || (always_planted && start == per_cycle)) {
                continue;
            }
            let last = if always_planted {
                2 * per_cycle - 1
            } else {
                total - 1
            };
            let mut end = start;
            let mut drift_m = 0.0;
            let mut max_height_m = ball_world[f][start].y.abs();
            while end < last && in_stance[end + 1] {
                let d = ball_world[f][end + 1] - ball_world[f][end];
                drift_m += Vec3::new(d.x, 0.0, d.z).length();
                max_height_m = max_height_m.max(ball_world[f][end + 1].y.abs());
                end += 1;
            }
            stances.push(Stance {
                start_s: (start - per_cycle) as f32 * dt,
                duration_s: (end + 1 - start) as f32 * dt,
                drift_mm: drift_m * 1000.0,
                max_height_mm: max_height_m * 1000.0,
            });
        }
        // The ground is the plane y = 0.
        let height = |points: &[Vec3]| points.iter().map(|p| Some(p.y)).collect::<Vec<_>>();
        let ground_skids_m = footfalls(
            &heel_world[f],
            &ball_world[f],
            &height(&heel_world[f]),
            &height(&ball_world[f]),
        )
        .into_iter()
        .filter(|fall| (per_cycle..2 * per_cycle).contains(&fall.start))
        .map(|fall| fall.skid_m)
        .collect();
        FootGait {
            side: Side::BOTH[f],
            stance_share: stance_samples as f32 / per_cycle as f32,
            from_contact_curve: from_curve,
            stances,
            ground_skids_m,
        }
    });

    Ok(GaitReport {
        clip: clip.name().to_string(),
        duration_s,
        speed_m_s: velocity.length(),
        feet,
        footsteps_per_cycle: clip
            .events()
            .iter()
            .filter(|e| e.name.starts_with(FOOTSTEP_EVENT_PREFIX))
            .count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{FloatCurve, JointTracks, Track};
    use crate::skeleton::{Joint, Transform};

    /// root → pelvis → thigh → calf → foot → ball per side; the left foot is animated to
    /// slide backward at `slide_m_s` in the first half of a 1 s cycle.
    fn sliding_rig(slide_m_s: f32) -> (Skeleton, HumanoidMap, Clip) {
        let names = [
            "root", "pelvis", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
            "foot_r", "ball_r",
        ];
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(1),
            Some(6),
            Some(7),
            Some(8),
        ];
        let offsets = [
            Vec3::ZERO,
            Vec3::new(0.0, 0.9, 0.0),
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(0.0, -0.4, 0.0),
            Vec3::new(0.0, -0.42, 0.0),
            Vec3::new(0.0, -0.05, 0.12),
            Vec3::new(-0.1, 0.0, 0.0),
            Vec3::new(0.0, -0.4, 0.0),
            Vec3::new(0.0, -0.42, 0.0),
            Vec3::new(0.0, -0.05, 0.12),
        ];
        let skeleton = Skeleton::new(
            (0..10)
                .map(|i| Joint {
                    name: names[i].into(),
                    parent: parents[i],
                    rest_local: Transform::from_translation(offsets[i]),
                })
                .collect(),
        )
        .unwrap();
        let bones = HumanoidMap::detect(&skeleton);
        let mut joints = vec![JointTracks::default(); 10];
        // The calf of the left leg moves back by slide over the stance half.
        joints[3].translation = Some(
            Track::linear([
                (0.0, offsets[3]),
                (0.5, offsets[3] - Vec3::Z * slide_m_s * 0.5),
                (1.0, offsets[3]),
            ])
            .unwrap(),
        );
        let contact = Track::new(
            crate::clip::Interpolation::Step,
            vec![0.0, 0.5],
            vec![1.0, 0.0],
        )
        .unwrap();
        let clip = Clip::new("slide", Some(1.0), joints)
            .unwrap()
            .with_curve(FloatCurve {
                name: "FootContact_L".into(),
                track: contact,
            })
            .unwrap()
            .with_event("Footstep_L", 0.0)
            .unwrap();
        (skeleton, bones, clip)
    }

    #[test]
    fn drift_measures_sliding_stance() {
        // Standing still (no authored velocity), the left ball moves 0.1 m/s × 0.5 s = 50 mm
        // during its stance; the right foot has no curve and never moves, so it is planted
        // the whole cycle with no drift.
        let (skeleton, bones, clip) = sliding_rig(0.1);
        let report =
            analyze_gait(&skeleton, &bones, &clip, &GaitAnalysisConfig::default()).unwrap();
        let left = &report.feet[0];
        assert!(left.from_contact_curve);
        assert_eq!(left.stances.len(), 1);
        assert!(
            (left.stance_share - 0.5).abs() < 0.02,
            "{}",
            left.stance_share
        );
        assert!(
            (left.stances[0].drift_mm - 50.0).abs() < 2.0,
            "{:?}",
            left.stances
        );
        let right = &report.feet[1];
        assert!(!right.from_contact_curve);
        assert_eq!(right.stance_share, 1.0);
        assert!(right.stances[0].drift_mm < 1e-3);
        assert_eq!(report.footsteps_per_cycle, 1);
        assert!(report.planted_drift_max_mm() > 48.0);
    }

    #[test]
    fn footfalls_measure_travel_near_the_ground_only() {
        // A foot sweeps 0.30 m along the floor (heel and ball 5 mm up) over 4 samples, stops
        // for 3, then lifts off 5 cm; a second footfall lands dead still.
        let p = |z: f32, y: f32| Vec3::new(0.0, y, z);
        let ball = [
            p(0.0, 0.05),
            p(0.1, 0.005),
            p(0.2, 0.005),
            p(0.3, 0.005),
            p(0.4, 0.005),
            p(0.4, 0.0),
            p(0.4, 0.0),
            p(0.5, 0.05),
            p(0.6, 0.0),
            p(0.6, 0.0),
        ];
        let heel: Vec<Vec3> = ball.iter().map(|b| *b - Vec3::Z * 0.17).collect();
        let h = |points: &[Vec3]| points.iter().map(|p| Some(p.y)).collect::<Vec<_>>();
        let falls = footfalls(&heel, &ball, &h(&heel), &h(&ball));
        assert_eq!(falls.len(), 2, "{falls:?}");
        assert_eq!((falls[0].start, falls[0].end), (1, 6));
        assert!((falls[0].skid_m - 0.3).abs() < 1e-5, "{falls:?}");
        assert_eq!((falls[1].start, falls[1].end), (8, 9));
        assert_eq!(falls[1].skid_m, 0.0);
        // A heel pivoting on a fixed ball, heel on the ground: the heel's arc counts.
        let pivot: Vec<Vec3> = (0..10)
            .map(|i| {
                let a = i as f32 * 0.1;
                Vec3::new(-0.17 * a.sin(), 0.0, -0.17 * a.cos())
            })
            .collect();
        let still = vec![Vec3::ZERO; 10];
        let falls = footfalls(&pivot, &still, &h(&pivot), &h(&still));
        assert_eq!(falls.len(), 1);
        assert!((falls[0].skid_m - 0.17 * 0.9).abs() < 2e-3, "{falls:?}");
        // Off the ground's extent (None) is not near it.
        let none = vec![None; 10];
        assert!(footfalls(&pivot, &still, &none, &none).is_empty());
    }

    #[test]
    fn authored_velocity_cancels_matching_slide() {
        // Moving the root forward at the speed the foot slides back plants the foot.
        let (skeleton, bones, clip) = sliding_rig(0.4);
        let clip = clip.with_authored_velocity(Vec3::Z * 0.4).unwrap();
        let report =
            analyze_gait(&skeleton, &bones, &clip, &GaitAnalysisConfig::default()).unwrap();
        assert!(
            report.feet[0].stances[0].drift_mm < 0.5,
            "{:?}",
            report.feet[0]
        );
        assert_eq!(report.speed_m_s, 0.4);
    }
}
