//! Where the animation will set each swinging foot down (IK-1's predicted landing).
//!
//! IK-1 carries the foot on by the body's velocity, which during a swing is short of the
//! landing by the foot's own travel ahead of the body. The clips know better: each clip's
//! foot at the rise of its `FootContact_*` curve is where, relative to the body, that clip
//! sets the foot down. Those poses are read once per clip here, and each tick blended with
//! the graph's current clip weights, so a blend that changes with slope or speed lands
//! where it will.

use glam::Vec3;

use super::stage::{AnimatedFoot, FootRig};
use crate::graph::{
    root_motion::strip_root_motion, GraphAsset, GraphInstance, RootMotionDef, SampledClip,
};
use crate::pose::{local_to_model, ModelPose, Pose};

/// One clip's foot at one of its touch-downs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Touchdown {
    /// Phase of the contact curve's rise (0..1).
    phase: f32,
    foot: AnimatedFoot,
    /// The foot's hip at that phase (model space), for stride warping.
    hip_model: Vec3,
}

/// A predicted landing: the blended foot and hip (model space) at touch-down.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Landing {
    pub foot: AnimatedFoot,
    pub hip_model: Vec3,
}

/// Below this share of the clip weight with a touch-down ahead, nothing is predicted (an
/// idle blending in or out says nothing about where a step lands).
const MIN_LANDING_WEIGHT: f32 = 0.25;

/// Each clip's touch-downs per foot, read from the clips once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LandingPoses {
    /// `[clip][foot]`, in phase order.
    touchdowns: Vec<[Vec<Touchdown>; 2]>,
}

impl LandingPoses {
    /// Samples every clip of `asset` at each rise of the feet's contact curves
    /// (`contact_curves`: ids of `FootContact_L`/`_R`, `None` when the graph lacks one).
    /// Clips that cannot be sampled (a wrong joint count) simply predict nothing.
    pub fn new(asset: &GraphAsset, rig: &FootRig, contact_curves: [Option<usize>; 2]) -> Self {
        Self::with_root_motion(
            asset,
            rig,
            contact_curves,
            &asset.root_motion,
            asset.root_joint,
        )
    }

    /// [`LandingPoses::new`] for one character's graph instance: its clips posed with the
    /// root motion it takes (its own source, when it has one, else the graph's).
    pub fn for_graph(
        graph: &GraphInstance,
        rig: &FootRig,
        contact_curves: [Option<usize>; 2],
    ) -> Self {
        Self::with_root_motion(
            graph.asset(),
            rig,
            contact_curves,
            graph.root_motion_source(),
            graph.root_motion_joint(),
        )
    }

    fn with_root_motion(
        asset: &GraphAsset,
        rig: &FootRig,
        contact_curves: [Option<usize>; 2],
        root_motion: &RootMotionDef,
        root_joint: usize,
    ) -> Self {
        let skeleton = asset.skeleton();
        let rest = skeleton.rest_local();
        let mut pose = Pose::rest(skeleton);
        let mut model = ModelPose::new(pose.num_joints());
        let mut touchdowns = Vec::with_capacity(asset.clips().len());
        for (clip_index, clip) in asset.clips().iter().enumerate() {
            let mut per_foot: [Vec<Touchdown>; 2] = Default::default();
            for (foot, curve) in contact_curves.into_iter().enumerate() {
                let rises = curve.and_then(|id| asset.curve_rises.get(clip_index)?.get(id));
                for &phase in rises.into_iter().flatten() {
                    if clip.sample_phase(phase, rest, &mut pose).is_err() {
                        continue;
                    }
                    strip_root_motion(&mut pose, root_joint, &rest[root_joint], root_motion);
                    if local_to_model(skeleton, &pose, &mut model).is_err() {
                        continue;
                    }
                    let touchdown = Touchdown {
                        phase,
                        foot: rig.animated_feet(&model)[foot],
                        hip_model: model.position_model(rig.legs[foot].chain.thigh),
                    };
                    if touchdown.foot.ankle_model.is_finite() && touchdown.hip_model.is_finite() {
                        per_foot[foot].push(touchdown);
                    }
                }
            }
            touchdowns.push(per_foot);
        }
        Self { touchdowns }
    }

    /// Where each foot lands next, blended over the clips the graph sampled this tick
    /// (each clip's next touch-down after its own phase, wrapping on a looping clip).
    /// `None` for a foot when too little of the blend has a touch-down ahead.
    pub fn predict(&self, asset: &GraphAsset, sampled: &[SampledClip]) -> [Option<Landing>; 2] {
        std::array::from_fn(|foot| {
            let mut total_weight = 0.0f32;
            let mut landing_weight = 0.0f32;
            let (mut ankle, mut heel, mut ball, mut hip) =
                (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
            // Positions blend by weight; the rotation is the heaviest clip's (the stage
            // reads positions only).
            let mut heaviest: Option<(f32, Touchdown)> = None;
            for s in sampled {
                if !(s.weight > 0.0 && s.normalized_time.is_finite()) {
                    continue;
                }
                total_weight += s.weight;
                let Some(touchdowns) = self.touchdowns.get(s.clip).map(|t| &t[foot]) else {
                    continue;
                };
                let looping = asset.clips().get(s.clip).is_some_and(|c| c.is_looping());
                let next = touchdowns
                    .iter()
                    .find(|t| t.phase > s.normalized_time)
                    .or_else(|| touchdowns.first().filter(|_| looping));
                let Some(&t) = next else {
                    continue;
                };
                let w = s.weight;
                landing_weight += w;
                ankle += t.foot.ankle_model * w;
                heel += t.foot.heel_model * w;
                ball += t.foot.ball_model * w;
                hip += t.hip_model * w;
                if heaviest.is_none_or(|(most, _)| w > most) {
                    heaviest = Some((w, t));
                }
            }
            let (_, heaviest) = heaviest?;
            if landing_weight < MIN_LANDING_WEIGHT * total_weight {
                return None;
            }
            let inv = 1.0 / landing_weight;
            let landing = Landing {
                foot: AnimatedFoot {
                    ankle_model: ankle * inv,
                    heel_model: heel * inv,
                    ball_model: ball * inv,
                    rotation_model: heaviest.foot.rotation_model,
                    off_shin_m: heaviest.foot.off_shin_m,
                },
                hip_model: hip * inv,
            };
            (landing.foot.ankle_model.is_finite()
                && landing.foot.heel_model.is_finite()
                && landing.foot.ball_model.is_finite()
                && landing.hip_model.is_finite())
            .then_some(landing)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::Mannequin;

    struct Setup {
        asset: GraphAsset,
        rig: FootRig,
        poses: LandingPoses,
    }

    fn setup() -> Setup {
        let mannequin = Mannequin::new();
        let asset = mannequin.default_graph().unwrap();
        let rig = FootRig::new(&mannequin.skeleton, &mannequin.bones).unwrap();
        let curves = ["FootContact_L", "FootContact_R"].map(|n| asset.curve_id(n));
        let poses = LandingPoses::new(&asset, &rig, curves);
        Setup { asset, rig, poses }
    }

    fn clip(s: &Setup, name: &str) -> usize {
        s.asset
            .clips()
            .iter()
            .position(|c| c.name() == name)
            .unwrap()
    }

    fn sampled(clip: usize, weight: f32, normalized_time: f32) -> SampledClip {
        SampledClip {
            clip,
            weight,
            normalized_time,
        }
    }

    /// The clip's own feet at `phase`, as the graph would pose them.
    fn feet_at(s: &Setup, clip: usize, phase: f32) -> [AnimatedFoot; 2] {
        let skeleton = s.asset.skeleton();
        let rest = skeleton.rest_local();
        let mut pose = Pose::rest(skeleton);
        let mut model = ModelPose::new(pose.num_joints());
        s.asset.clips()[clip]
            .sample_phase(phase, rest, &mut pose)
            .unwrap();
        let root = s.asset.root_joint;
        strip_root_motion(&mut pose, root, &rest[root], &s.asset.root_motion);
        local_to_model(skeleton, &pose, &mut model).unwrap();
        s.rig.animated_feet(&model)
    }

    #[test]
    fn a_foot_lands_as_its_clip_has_it_at_the_next_contact_rise() {
        let s = setup();
        let walk = clip(&s, "Walk_F");
        let left = s.asset.curve_id("FootContact_L").unwrap();
        let rises = &s.asset.curve_rises[walk][left];
        assert!(!rises.is_empty(), "the walk sets the left foot down");
        let rise = rises[0];
        // From just before the rise, and (wrapping round the loop) from just after it.
        for phase in [rise - 0.05, rise + 0.02] {
            let landing = s.poses.predict(&s.asset, &[sampled(walk, 1.0, phase)])[0]
                .expect("a walk's foot lands");
            let truth = feet_at(
                &s,
                walk,
                rises.iter().copied().find(|&r| r > phase).unwrap_or(rise),
            )[0];
            assert!(
                landing.foot.ball_model.distance(truth.ball_model) < 1e-5,
                "{phase}: {:?} vs {:?}",
                landing.foot.ball_model,
                truth.ball_model
            );
            // At touch-down the foot is on the ground, ahead of where it is mid-swing.
            assert!(landing.foot.ball_model.y < 0.03, "{:?}", landing.foot);
        }
    }

    #[test]
    fn a_blend_lands_at_the_weighted_mean_of_its_clips_and_idle_predicts_nothing() {
        let s = setup();
        let (walk, back, idle) = (clip(&s, "Walk_F"), clip(&s, "Walk_B"), clip(&s, "Idle"));
        let at = |sampled: &[SampledClip]| s.poses.predict(&s.asset, sampled)[1];
        let phase = 0.1;
        let walk_only = at(&[sampled(walk, 1.0, phase)]).unwrap();
        let back_only = at(&[sampled(back, 1.0, phase)]).unwrap();
        let mixed = at(&[sampled(walk, 0.25, phase), sampled(back, 0.75, phase)]).unwrap();
        let mean = walk_only
            .foot
            .ball_model
            .lerp(back_only.foot.ball_model, 0.75);
        assert!(mixed.foot.ball_model.distance(mean) < 1e-5);
        assert!(
            walk_only
                .foot
                .ball_model
                .distance(back_only.foot.ball_model)
                > 0.05
        );
        // Idle never sets a foot down: alone, or as most of a blend, nothing is predicted;
        // as half of one, the stepping clip's landing stands.
        assert_eq!(at(&[sampled(idle, 1.0, phase)]), None);
        assert_eq!(
            at(&[sampled(idle, 0.8, phase), sampled(walk, 0.2, phase)]),
            None
        );
        assert_eq!(
            at(&[sampled(idle, 0.5, phase), sampled(walk, 0.5, phase)]),
            Some(walk_only)
        );
        // Bad input predicts nothing rather than garbage.
        assert_eq!(at(&[]), None);
        assert_eq!(at(&[sampled(walk, f32::NAN, phase)]), None);
        assert_eq!(at(&[sampled(walk, 1.0, f32::NAN)]), None);
        assert_eq!(at(&[sampled(999, 1.0, phase)]), None);
    }
}
