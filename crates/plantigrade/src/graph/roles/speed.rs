//! How fast a gait clip travels, measured from the clip itself: where a generated graph
//! places it on the speed axis.

use glam::Vec3;

use crate::bone_map::{BoneMapError, HumanoidMap, Side};
use crate::clip::{Clip, ClipError};
use crate::clip_analysis::FOOT_CONTACT_CURVES;
use crate::foot_contacts::{sample_unwrapped, FootContactError};
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;

/// Slower than this (m/s) is not travelling: a gait measured below it is stepping on the
/// spot, and a root that moves less is in place.
pub const MIN_GAIT_SPEED_M_S: f32 = 0.1;
/// Rate (Hz) the feet are sampled at for [`SpeedSource::PlantedFoot`]: twice the tick, so
/// a run's stance of three ticks still gives several intervals.
const SAMPLE_RATE_HZ: f32 = 120.0;
/// Fewest planted intervals (over both feet) a planted-foot measurement needs.
const MIN_STANCE_INTERVALS: usize = 4;

/// How a clip's speed was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpeedSource {
    /// The clip's authored ground velocity ([`Clip::authored_velocity_model_m_s`]).
    Authored,
    /// The net horizontal travel of this joint over one loop, per second (the clip carries
    /// root motion).
    RootTravel { joint: String },
    /// An in-place clip: minus the median ground velocity of the lower sole point (heel or
    /// ball) of each foot while its contact curve says it is planted (an in-place gait's
    /// planted foot slides back at the gait's speed).
    PlantedFoot,
}

impl std::fmt::Display for SpeedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpeedSource::Authored => f.write_str("authored velocity"),
            SpeedSource::RootTravel { joint } => write!(f, "travel of '{joint}' over a loop"),
            SpeedSource::PlantedFoot => f.write_str("planted foot's slide in stance"),
        }
    }
}

/// A clip's measured ground velocity.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredSpeed {
    /// Horizontal speed (m/s).
    pub speed_m_s: f32,
    /// Horizontal velocity in model space (m/s; x left, z forward).
    pub velocity_model_m_s: Vec3,
    pub source: SpeedSource,
}

impl MeasuredSpeed {
    /// Direction of travel relative to the model's forward, in degrees (0 forward, +90
    /// left, −90 right, ±180 back); 0 when it does not travel.
    pub fn direction_deg(&self) -> f32 {
        let v = self.velocity_model_m_s;
        if v.x == 0.0 && v.z == 0.0 {
            0.0
        } else {
            // + 0.0 turns atan2's -0 (straight ahead, a hair to the right) into 0.
            v.x.atan2(v.z).to_degrees() + 0.0
        }
    }
}

/// Why a clip's speed could not be measured.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpeedError {
    #[error("clip '{0}' has zero duration: no motion to measure")]
    ZeroDuration(String),
    #[error("the root does not travel and the feet cannot be measured: {0}")]
    NoLegs(BoneMapError),
    #[error("the root does not travel and the {0:?} foot has no sockets")]
    NoSockets(Side),
    #[error("the root does not travel and the clip has no {0} curve to find the stances by")]
    NoContactCurve(&'static str),
    #[error(
        "the root does not travel and the feet are planted over only {intervals} sample \
         intervals (at least {MIN_STANCE_INTERVALS} needed)"
    )]
    TooLittleStance { intervals: usize },
    #[error("sampling the clip: {0}")]
    Clip(ClipError),
    #[error("posing the skeleton: {0}")]
    Pose(PoseError),
    #[error("clip '{clip}' gives a non-finite position at {time_s} s")]
    NonFinite { clip: String, time_s: f32 },
}

from_cause_in_message!(PoseError => SpeedError::Pose);

from_cause_in_message!(ClipError => SpeedError::Clip);

/// How fast `clip` travels over the ground, from the clip itself: its authored velocity
/// if it has one (faster than [`MIN_GAIT_SPEED_M_S`]); else the net horizontal travel per
/// second over one loop of the skeleton's first joint (the root-motion joint) or, failing
/// that, of the pelvis, if it travels; else, for an in-place clip, how fast the planted
/// foot slides back in stance (stances from the `FootContact_L`/`_R` curves, as derived at
/// import). The result may still be slower than [`MIN_GAIT_SPEED_M_S`] (a clip that
/// steps on the spot).
pub fn measure_clip_speed(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clip: &Clip,
) -> Result<MeasuredSpeed, SpeedError> {
    if let Some(v) = clip.authored_velocity_model_m_s() {
        let v = Vec3::new(v.x, 0.0, v.z);
        if v.length() >= MIN_GAIT_SPEED_M_S {
            return Ok(MeasuredSpeed {
                speed_m_s: v.length(),
                velocity_model_m_s: v,
                source: SpeedSource::Authored,
            });
        }
    }
    let duration_s = clip.duration_s();
    if !(duration_s.is_finite() && duration_s > 0.0) {
        return Err(SpeedError::ZeroDuration(clip.name().to_string()));
    }
    if let Some(found) = root_travel(skeleton, bones, clip)? {
        return Ok(found);
    }
    planted_foot(skeleton, bones, clip)
}

fn unwrapped(
    clip: &Clip,
    time_s: f32,
    skeleton: &Skeleton,
    pose: &mut Pose,
) -> Result<(), SpeedError> {
    sample_unwrapped(clip, time_s, skeleton, pose).map_err(|e| match e {
        FootContactError::Clip(e) => SpeedError::Clip(e),
        FootContactError::Pose(e) => SpeedError::Pose(e),
        other => SpeedError::NonFinite {
            clip: format!("{} ({other})", clip.name()),
            time_s,
        },
    })
}

/// The first of the skeleton's first joint and the pelvis that travels over a loop.
fn root_travel(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clip: &Clip,
) -> Result<Option<MeasuredSpeed>, SpeedError> {
    if skeleton.num_joints() == 0 {
        return Ok(None);
    }
    let duration_s = clip.duration_s();
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    let mut ends = [[Vec3::ZERO; 2]; 2];
    let candidates: Vec<usize> = std::iter::once(0)
        .chain(bones.pelvis.filter(|&p| p != 0))
        .collect();
    for (k, time_s) in [0.0, duration_s].into_iter().enumerate() {
        unwrapped(clip, time_s, skeleton, &mut pose)?;
        local_to_model(skeleton, &pose, &mut model)?;
        for (c, &joint) in candidates.iter().enumerate() {
            let p = model.position_model(joint);
            if !p.is_finite() {
                return Err(SpeedError::NonFinite {
                    clip: clip.name().to_string(),
                    time_s,
                });
            }
            ends[c][k] = p;
        }
    }
    for (c, &joint) in candidates.iter().enumerate() {
        let travel = ends[c][1] - ends[c][0];
        let velocity = Vec3::new(travel.x, 0.0, travel.z) / duration_s;
        if velocity.length() >= MIN_GAIT_SPEED_M_S {
            return Ok(Some(MeasuredSpeed {
                speed_m_s: velocity.length(),
                velocity_model_m_s: velocity,
                source: SpeedSource::RootTravel {
                    joint: skeleton.name(joint).to_string(),
                },
            }));
        }
    }
    Ok(None)
}

/// Minus the median horizontal velocity of each foot's lower sole point over the sample
/// intervals where that foot is planted (its contact curve at least 0.5 at both ends).
fn planted_foot(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clip: &Clip,
) -> Result<MeasuredSpeed, SpeedError> {
    let mut feet = Vec::with_capacity(2);
    for (side, curve_name) in Side::BOTH.into_iter().zip(FOOT_CONTACT_CURVES) {
        let leg = bones.leg(side).map_err(SpeedError::NoLegs)?;
        let sockets = bones.feet[side.index()].ok_or(SpeedError::NoSockets(side))?;
        let curve = clip
            .curve(curve_name)
            .ok_or(SpeedError::NoContactCurve(curve_name))?;
        feet.push((leg.foot, sockets, curve));
    }
    let duration_s = clip.duration_s();
    let n = ((duration_s * SAMPLE_RATE_HZ).round() as usize).clamp(8, 1 << 16);
    let dt = duration_s / n as f32;
    let looping = clip.is_looping();
    // One cycle; a one-shot clip also gets its end.
    let count = if looping { n } else { n + 1 };
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    // Heel and ball per foot and sample.
    let mut soles = [Vec::with_capacity(count), Vec::with_capacity(count)];
    let mut planted = [Vec::with_capacity(count), Vec::with_capacity(count)];
    for i in 0..count {
        let time_s = i as f32 * dt;
        clip.sample(time_s, skeleton.rest_local(), &mut pose)?;
        local_to_model(skeleton, &pose, &mut model)?;
        for (f, (foot, sockets, curve)) in feet.iter().enumerate() {
            let heel = model.point_model(*foot, sockets.heel_foot_local);
            let ball = model.point_model(*foot, sockets.ball_foot_local);
            if !(heel.is_finite() && ball.is_finite()) {
                return Err(SpeedError::NonFinite {
                    clip: clip.name().to_string(),
                    time_s,
                });
            }
            soles[f].push([heel, ball]);
            planted[f].push(curve.track.sample(clip.local_time_s(time_s)) >= 0.5);
        }
    }
    // The velocity over each interval whose both ends are planted, of the sole point
    // that is lower at its start (heel or ball: the one the foot rolls over).
    let mut xs = Vec::new();
    let mut zs = Vec::new();
    for f in 0..2 {
        for i in 0..count {
            let next = if looping {
                (i + 1) % count
            } else if i + 1 < count {
                i + 1
            } else {
                continue;
            };
            if !(planted[f][i] && planted[f][next]) {
                continue;
            }
            let which = usize::from(soles[f][i][1].y < soles[f][i][0].y);
            let v = (soles[f][next][which] - soles[f][i][which]) / dt;
            xs.push(v.x);
            zs.push(v.z);
        }
    }
    if xs.len() < MIN_STANCE_INTERVALS {
        return Err(SpeedError::TooLittleStance {
            intervals: xs.len(),
        });
    }
    let median = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    let velocity = -Vec3::new(median(&mut xs), 0.0, median(&mut zs));
    Ok(MeasuredSpeed {
        speed_m_s: velocity.length(),
        velocity_model_m_s: velocity,
        source: SpeedSource::PlantedFoot,
    })
}
