//! Retargeting (issue 22, item 2): clips authored for one humanoid rig played on another,
//! joints matched through the two rigs' humanoid bone maps.
//!
//! Each clip is resampled at a fixed rate. At every sample the source's pose is taken to
//! model space, and each mapped target joint is given the turn its source joint has made
//! from its own rest pose, in model space, on top of the target joint's rest (so the two
//! rigs may point their bones along any local axes). The rigs' model frames are matched
//! first: each rig's left (left thigh minus right thigh), up and forward, from its rest
//! pose. Joints the map does not cover keep their rest pose relative to their parent.
//! The pelvis moves as the source's does, scaled by the ratio of leg lengths, and so do
//! the clip's authored velocity; curves (`FootContact_*`) and events carry over as they
//! are. Each leg is then bent (two-bone IK) to put its ankle where the source's is, scaled,
//! at the height that sets its lower sole point as high over the floor as the source's:
//! legs of other proportions (thigh to shin, foot to leg) keep a planted foot on the floor
//! instead of lifting it off or pushing it in. A target foot that is an IK target (it
//! hangs from the root, not its shin: Quaternius) is then moved to the end of its shin, so
//! the clip carries it. Foot IK at run time handles the terrain.
//!
//! Rest postures may differ: each arm bone (shoulder, upper arm, forearm) is first turned
//! so its rest points the way its source's rest points (an A-pose arm raised to a
//! T-pose's), then turned as the source's turns. The legs, spine, neck and head are not:
//! their rests stand upright on any humanoid.

use glam::{Affine3A, Mat3, Quat, Vec3, Vec3A};

use crate::bone_map::{HumanoidMap, LegChain, Side};
use crate::clip::{Clip, ClipError, FloatCurve, JointTracks, Track};
use crate::ik::two_bone::{knee_pole_model, TwoBoneIkJob};
use crate::pose::Pose;
use crate::skeleton::{Skeleton, Transform};

/// Why two rigs cannot be retargeted between.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetError {
    #[error("the {rig} rig has no {role} in its bone map")]
    MissingRole {
        rig: &'static str,
        role: &'static str,
    },
    #[error("the {rig} rig's rest pose gives no frame: {why}")]
    NoFrame {
        rig: &'static str,
        why: &'static str,
    },
    #[error("clip '{clip}' has {tracks} joint tracks; the source rig has {joints} joints")]
    JointCount {
        clip: String,
        tracks: usize,
        joints: usize,
    },
    #[error("sample rate {0} Hz: it must be a finite number above 0")]
    SampleRate(f32),
    #[error(transparent)]
    Clip(#[from] ClipError),
}

/// Default rate (Hz) a retargeted clip is resampled at.
pub const DEFAULT_SAMPLE_HZ: f32 = 60.0;

/// How the joints of one rig (the source) drive another's (the target); see the module
/// docs. Built once per pair of rigs; [`Retarget::clip`] then converts clips.
#[derive(Clone, Debug)]
pub struct Retarget {
    source: Skeleton,
    target: Skeleton,
    /// For each target joint, the source joint driving it (`None`: kept at rest).
    source_of: Vec<Option<usize>>,
    /// The source's model frame turned into the target's.
    frame: Quat,
    /// Per target joint, the turn (model space) that points its rest bone the way its
    /// source's rest bone points: an A-pose arm raised to a T-pose one's.
    rest_fix: Vec<Quat>,
    /// Target leg length over source leg length.
    scale: f32,
    source_pelvis: usize,
    target_pelvis: usize,
    source_rest_rotations: Vec<Quat>,
    source_rest_model: Vec<Affine3A>,
    target_rest_rotations: Vec<Quat>,
    target_rest_model: Vec<Affine3A>,
    /// The target's feet that hang from elsewhere than their shins (IK-target feet).
    ik_feet: Vec<IkFoot>,
    /// Added to the target pelvis's model position (source model units, source frame,
    /// before the scale): zero unless set with [`Retarget::with_pelvis_offset`].
    pelvis_offset: Vec3,
    /// Per leg both rigs have, how the target's ankle is brought to the source's (see
    /// [`Retarget::without_leg_reach`]); empty when off.
    leg_reach: Vec<LegReach>,
}

impl Retarget {
    /// Pairs the joints of `source` and `target` through their bone maps: pelvis, the
    /// spine (spread over the shorter chain by position along it), neck, head, and per
    /// side thigh, calf, foot, ball, upper arm, forearm and hand, where both maps have
    /// them. Both need a pelvis and two thighs and feet (for the frame and the scale).
    pub fn new(
        source: &Skeleton,
        source_map: &HumanoidMap,
        target: &Skeleton,
        target_map: &HumanoidMap,
    ) -> Result<Self, RetargetError> {
        let source_frame = rest_frame(source, source_map, "source")?;
        let target_frame = rest_frame(target, target_map, "target")?;
        let (source_pelvis, source_leg_m) = (source_frame.pelvis, source_frame.leg_m);
        let (target_pelvis, target_leg_m) = (target_frame.pelvis, target_frame.leg_m);
        let mut source_of = vec![None; target.num_joints()];
        for (t, s) in joint_pairs(source, source_map, target, target_map) {
            source_of[t] = Some(s);
        }
        let frame = target_frame.rotation * source_frame.rotation.inverse();
        let rest_fix = rest_fixes(source, source_map, target, target_map, frame);
        let (source_rest_model, target_rest_model) = (source.rest_model(), target.rest_model());
        let leg_reach = Side::BOTH
            .into_iter()
            .filter_map(|side| {
                let (s, t) = (source_map.leg(side).ok()?, target_map.leg(side).ok()?);
                let soles = |map: &HumanoidMap, rest_model: &[Affine3A], foot: usize| {
                    map.feet[side.index()].map(|sockets| {
                        let points = [sockets.heel_foot_local, sockets.ball_foot_local];
                        (points, lowest_y(rest_model[foot], points))
                    })
                };
                Some(LegReach {
                    source_foot: s.foot,
                    source_ankle_rest: source_rest_model[s.foot].translation.into(),
                    source_soles: soles(source_map, &source_rest_model, s.foot),
                    target: t,
                    target_ankle_in_calf: t.ankle_in_calf(target),
                    target_ankle_rest: target_rest_model[t.calf]
                        .transform_point3(t.ankle_in_calf(target)),
                    target_soles: soles(target_map, &target_rest_model, t.foot),
                })
            })
            .collect();
        Ok(Self {
            source: source.clone(),
            target: target.clone(),
            source_of,
            frame,
            rest_fix,
            scale: target_leg_m / source_leg_m,
            source_pelvis,
            target_pelvis,
            source_rest_rotations: model_rotations(source, source.rest_local()),
            source_rest_model,
            target_rest_rotations: model_rotations(target, target.rest_local()),
            target_rest_model,
            pelvis_offset: Vec3::ZERO,
            ik_feet: ik_feet_of(target, target_map),
            leg_reach,
        })
    }

    /// The same, without bringing each target ankle to the source's (scaled): the legs
    /// then take the source's joint turns only, and a leg of other proportions (thigh to
    /// shin, hip height) lifts a planted foot off the floor or pushes it in (KayKit's
    /// from the mannequin's run: 2.5 cm mid-stance). For a source built to the target's
    /// proportions (the generated clip set), whose turns already land the feet.
    pub fn without_leg_reach(mut self) -> Self {
        self.leg_reach.clear();
        self
    }

    /// The same, with the pelvis's moves and the authored speeds scaled by `scale` in
    /// place of the ratio of leg lengths (hip to knee to ankle at rest): for a source built
    /// to the target's proportions at a known scale.
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// The same, with `offset` (source model space, metres of the source) added to the
    /// source pelvis's move from its rest: for a source whose rest pelvis stands higher
    /// or lower, for the target's proportions, than the target's does.
    pub fn with_pelvis_offset(mut self, offset: Vec3) -> Self {
        self.pelvis_offset = offset;
        self
    }

    /// The same, with each thigh and shin of the target first turned so its rest points
    /// the way its source's rest points, as the arms are (see the module docs): a target
    /// leg resting bent or splayed then takes the exact hip-knee-ankle shape of the
    /// source's. Right when the source was built to the target's proportions (the
    /// generated clip set), where bone lengths match; the feet are not turned.
    pub fn with_leg_rest_fix(mut self, source_map: &HumanoidMap, target_map: &HumanoidMap) -> Self {
        for side in [Side::Left, Side::Right] {
            let chain = |map: &HumanoidMap| {
                let leg = map.legs[side.index()];
                [leg.thigh, leg.calf, leg.foot]
            };
            let (sc, tc) = (chain(source_map), chain(target_map));
            for k in 0..2 {
                let (Some(s), Some(s_next), Some(t), Some(t_next)) =
                    (sc[k], sc[k + 1], tc[k], tc[k + 1])
                else {
                    continue;
                };
                let along = |skeleton: &Skeleton, a: usize, b: usize| {
                    (skeleton.rest_position_model(b) - skeleton.rest_position_model(a))
                        .try_normalize()
                };
                let target_dir = along(&self.target, t, t_next).map(|d| self.frame.inverse() * d);
                let source_dir = along(&self.source, s, s_next);
                if let Some((from, to)) = target_dir.zip(source_dir) {
                    self.rest_fix[t] =
                        self.frame * Quat::from_rotation_arc(from, to) * self.frame.inverse();
                }
            }
        }
        self
    }

    /// The source joint driving target joint `joint`, if any.
    pub fn source_of(&self, joint: usize) -> Option<usize> {
        self.source_of.get(joint).copied().flatten()
    }

    /// The target's name for the source joint called `name`, when the maps pair it.
    pub fn target_name(&self, name: &str) -> Option<&str> {
        let source = self.source.find(name)?;
        let target = self.source_of.iter().position(|&s| s == Some(source))?;
        Some(self.target.name(target))
    }

    /// Target leg length over source leg length: what the pelvis's moves and the authored
    /// speeds are scaled by.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// `clip` (authored on the source rig) for the target rig, resampled at `sample_hz`.
    pub fn clip(&self, clip: &Clip, sample_hz: f32) -> Result<Clip, RetargetError> {
        if !(sample_hz.is_finite() && sample_hz > 0.0) {
            return Err(RetargetError::SampleRate(sample_hz));
        }
        let source_joints = self.source.num_joints();
        if clip.joint_tracks().len() != source_joints {
            return Err(RetargetError::JointCount {
                clip: clip.name().to_owned(),
                tracks: clip.joint_tracks().len(),
                joints: source_joints,
            });
        }
        let duration_s = clip.duration_s();
        // Every 1 / sample_hz, and the end; a sample closer to the end than a hundredth
        // of the step is the end (at 180 Hz, 96 steps of a 0.5333 s clip land on it).
        let step_s = 1.0 / sample_hz;
        let times: Vec<f32> = (0..)
            .map(|k| k as f32 * step_s)
            .take_while(|&t| t < duration_s - 0.01 * step_s)
            .chain(std::iter::once(duration_s))
            .collect();
        let samples = times.len();
        let joints = self.target.num_joints();
        let mut rotations: Vec<Vec<(f32, Quat)>> = vec![Vec::with_capacity(samples); joints];
        let mut positions: Vec<Vec<(f32, Vec3)>> = vec![Vec::new(); joints];
        let mut source_pose = Pose::new(source_joints);
        let mut target_local: Vec<Transform> = self.target.rest_local().to_vec();
        for &time_s in &times {
            clip.sample(time_s, self.source.rest_local(), &mut source_pose)?;
            self.pose_at(&source_pose, &mut target_local);
            for (track, local) in rotations.iter_mut().zip(&target_local) {
                track.push((time_s, local.rotation));
            }
            for joint in self.moved_joints() {
                positions[joint].push((time_s, target_local[joint].translation));
            }
        }
        let tracks = (0..joints)
            .map(|joint| -> Result<JointTracks, ClipError> {
                let driven = self.source_of[joint].is_some() || joint == self.target_pelvis;
                Ok(JointTracks {
                    rotation: if driven {
                        Some(Track::linear(rotations[joint].iter().copied())?)
                    } else {
                        None
                    },
                    translation: if positions[joint].is_empty() {
                        None
                    } else {
                        Some(Track::linear(positions[joint].iter().copied())?)
                    },
                    scale: None,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut out =
            Clip::new(clip.name(), Some(duration_s), tracks)?.with_looping(clip.is_looping());
        for curve in clip.curves() {
            out = out.with_curve(FloatCurve {
                name: curve.name.clone(),
                track: curve.track.clone(),
            })?;
        }
        for event in clip.events() {
            out = out.with_event(event.name.clone(), event.time_s)?;
        }
        if let Some(velocity) = clip.authored_velocity_model_m_s() {
            out = out.with_authored_velocity(self.frame * velocity * self.scale)?;
        }
        Ok(out)
    }

    /// Target joints whose translation the retarget writes: the pelvis, and each foot
    /// that is an IK target (see [`crate::bone_map::LegChain::foot_is_ik_target`]).
    fn moved_joints(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.target_pelvis).chain(self.ik_feet.iter().map(|f| f.foot))
    }

    /// The target's local pose for one source pose (`target_local` holds the target's
    /// rest pose on entry, or the last call's result: every driven channel is rewritten).
    fn pose_at(&self, source_pose: &Pose, target_local: &mut [Transform]) {
        let source_rotations = model_rotations(&self.source, source_pose.local());
        let mut target_rotations = vec![Quat::IDENTITY; self.target.num_joints()];
        let rest = self.target.rest_local();
        for joint in 0..self.target.num_joints() {
            let parent = self.target.parent(joint);
            let parent_rotation = parent.map_or(Quat::IDENTITY, |p| target_rotations[p]);
            let model_rotation = match self.source_of[joint] {
                Some(s) => {
                    // The source joint's turn from its rest, in model space, in the
                    // target's frame, on top of the target joint's rest.
                    let turn = source_rotations[s] * self.source_rest_rotations[s].inverse();
                    (self.frame
                        * turn
                        * self.frame.inverse()
                        * self.rest_fix[joint]
                        * self.target_rest_rotations[joint])
                        .normalize()
                }
                None => parent_rotation * rest[joint].rotation,
            };
            target_rotations[joint] = model_rotation;
            target_local[joint].rotation = (parent_rotation.inverse() * model_rotation).normalize();
        }
        // The pelvis: its rest place plus the source pelvis's move from its own rest, turned
        // into the target's frame and scaled by leg length; written in its parent's space
        // (at rest above it, as nothing above the pelvis is driven but it).
        let source_model = model_affines(&self.source, source_pose.local());
        let moved = source_model[self.source_pelvis].translation
            - self.source_rest_model[self.source_pelvis].translation
            + Vec3A::from(self.pelvis_offset);
        let target_rest_model = &self.target_rest_model;
        let pelvis_model = Vec3::from(target_rest_model[self.target_pelvis].translation)
            + self.frame * Vec3::from(moved) * self.scale;
        let parent_model = self
            .target
            .parent(self.target_pelvis)
            .map_or(Affine3A::IDENTITY, |p| target_rest_model[p]);
        target_local[self.target_pelvis].translation =
            parent_model.inverse().transform_point3(pelvis_model);
        self.reach_source_ankles(&source_model, target_local);
        // A foot that hangs from elsewhere than its shin is put at the end of the shin,
        // where the leg now puts the ankle, so the clip carries its feet along.
        if !self.ik_feet.is_empty() {
            let model = model_affines(&self.target, target_local);
            for foot in &self.ik_feet {
                let ankle = model[foot.calf].transform_point3(foot.ankle_in_calf);
                let parent = self
                    .target
                    .parent(foot.foot)
                    .map_or(Affine3A::IDENTITY, |p| model[p]);
                target_local[foot.foot].translation = parent.inverse().transform_point3(ankle);
            }
        }
    }

    /// Each target leg bent (two-bone IK) so its ankle is where the source's is, measured
    /// from each rig's rest ankle and scaled by leg length: a source foot flat on its
    /// floor is flat on the target's, whatever the legs' proportions. The foot keeps the
    /// turn it was given; the knee bends the way it already does.
    fn reach_source_ankles(&self, source_model: &[Affine3A], target_local: &mut [Transform]) {
        for leg in &self.leg_reach {
            let model = model_affines(&self.target, target_local);
            let chain = leg.target;
            let rotation = |joint: usize| model[joint].to_scale_rotation_translation().1;
            let foot_rotation = rotation(chain.foot);
            let source_ankle = Vec3::from(source_model[leg.source_foot].translation);
            let mut goal = leg.target_ankle_rest
                + self.frame * (source_ankle - leg.source_ankle_rest) * self.scale;
            // Up or down so the lower sole point is as high over the floor as the source's
            // (scaled): a foot rolled onto its ball or heel has its ankle as high as its
            // own foot's shape puts it, not as the source's does.
            if let (Some((source_points, source_floor)), Some((target_points, target_floor))) =
                (leg.source_soles, leg.target_soles)
            {
                let source_sole = lowest_y(source_model[leg.source_foot], source_points);
                // The foot's turn and scale, about its joint (at the shin's end).
                let foot = model[chain.foot];
                let at_ankle = Affine3A::from_mat3_translation(foot.matrix3.into(), Vec3::ZERO);
                let target_drop = lowest_y(at_ankle, target_points);
                let wanted = target_floor + (source_sole - source_floor) * self.scale;
                let fixed_y = wanted - target_drop;
                if fixed_y.is_finite() {
                    goal.y = fixed_y;
                }
            }
            if !goal.is_finite() {
                continue;
            }
            let (hip, knee) = (
                Vec3::from(model[chain.thigh].translation),
                Vec3::from(model[chain.calf].translation),
            );
            let ankle = model[chain.calf].transform_point3(leg.target_ankle_in_calf);
            let job = TwoBoneIkJob {
                start_model: hip,
                mid_model: knee,
                end_model: ankle,
                target_model: goal,
                pole_model: knee_pole_model(hip, knee, ankle, self.frame * Vec3::Z),
                soften: 1.0,
                ..TwoBoneIkJob::default()
            };
            let solved = job.run();
            let Some(mid_parent) = self.target.parent(chain.calf) else {
                continue;
            };
            if solved.degenerate {
                continue;
            }
            let thigh_parent = self
                .target
                .parent(chain.thigh)
                .map_or(Quat::IDENTITY, rotation);
            let (thigh_local, calf_local) = solved.local_rotations(
                thigh_parent,
                rotation(chain.thigh),
                rotation(mid_parent),
                rotation(chain.calf),
            );
            if !(thigh_local.is_finite() && calf_local.is_finite()) {
                continue;
            }
            target_local[chain.thigh].rotation = thigh_local;
            target_local[chain.calf].rotation = calf_local;
            // The foot keeps its model turn under the re-bent shin.
            if !chain.foot_is_ik_target {
                let model = model_affines(&self.target, target_local);
                if let Some(parent) = self.target.parent(chain.foot) {
                    let parent_rotation = model[parent].to_scale_rotation_translation().1;
                    target_local[chain.foot].rotation =
                        (parent_rotation.inverse() * foot_rotation).normalize();
                }
            }
        }
    }
}

/// One leg's part in [`Retarget::reach_source_ankles`].
#[derive(Clone, Debug)]
struct LegReach {
    source_foot: usize,
    /// The source's ankle at rest (model space, source metres).
    source_ankle_rest: Vec3,
    target: LegChain,
    /// Where the target's shin ends, in its calf's frame (the foot joint, or an IK-target
    /// foot's virtual ankle).
    target_ankle_in_calf: Vec3,
    /// The target's ankle at rest (model space).
    target_ankle_rest: Vec3,
    /// Heel and ball (foot-local) and the floor under them at rest (model y), per rig,
    /// when its map has the foot's sockets.
    source_soles: Option<([Vec3; 2], f32)>,
    target_soles: Option<([Vec3; 2], f32)>,
}

/// Each foot of `map` that is an IK target (it hangs from the root or a control bone, not
/// its shin: Quaternius), to be moved to the end of its shin in every pose so the clip
/// carries its feet along. Left where its rest pose puts it, foot IK would read a foot
/// that never steps (the mannequin's clips on Quaternius floated its feet 48 mm at the
/// 95th percentile walking down the 20 cm flight).
fn ik_feet_of(skeleton: &Skeleton, map: &HumanoidMap) -> Vec<IkFoot> {
    Side::BOTH
        .into_iter()
        .filter_map(|side| map.leg(side).ok())
        .filter(|leg| leg.foot_is_ik_target)
        .map(|leg| IkFoot {
            foot: leg.foot,
            calf: leg.calf,
            ankle_in_calf: leg.ankle_in_calf(skeleton),
        })
        .collect()
}

/// A target foot that is an IK target: placed at the end of its shin in every pose.
#[derive(Clone, Debug)]
struct IkFoot {
    foot: usize,
    calf: usize,
    /// The ankle in the calf's frame, at rest.
    ankle_in_calf: Vec3,
}

/// The lowest model height of `points` (in the frame `transform` places).
fn lowest_y(transform: Affine3A, points: [Vec3; 2]) -> f32 {
    points
        .map(|p| transform.transform_point3(p).y)
        .into_iter()
        .fold(f32::INFINITY, f32::min)
}

/// Model-space rotations of a local pose (scales ignored: they turn nothing).
fn model_rotations(skeleton: &Skeleton, local: &[Transform]) -> Vec<Quat> {
    let mut out = vec![Quat::IDENTITY; skeleton.num_joints()];
    for joint in 0..skeleton.num_joints().min(local.len()) {
        let parent = skeleton.parent(joint).map_or(Quat::IDENTITY, |p| out[p]);
        out[joint] = (parent * local[joint].rotation).normalize();
    }
    out
}

/// Model-space transforms of a local pose.
fn model_affines(skeleton: &Skeleton, local: &[Transform]) -> Vec<Affine3A> {
    let mut out = vec![Affine3A::IDENTITY; skeleton.num_joints()];
    for joint in 0..skeleton.num_joints().min(local.len()) {
        let here = local[joint].to_affine();
        out[joint] = skeleton.parent(joint).map_or(here, |p| out[p] * here);
    }
    out
}

/// A rig's frame at rest (its left, up and forward as a rotation from model axes), its
/// pelvis and its leg length (hip to knee to ankle, mean of both sides).
pub(crate) struct RestFrame {
    pub rotation: Quat,
    pub pelvis: usize,
    pub leg_m: f32,
}

pub(crate) fn rest_frame(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    rig: &'static str,
) -> Result<RestFrame, RetargetError> {
    let missing = |role| RetargetError::MissingRole { rig, role };
    let pelvis = map.pelvis.ok_or_else(|| missing("pelvis"))?;
    let legs = [Side::Left, Side::Right].map(|side| map.legs[side.index()]);
    let [left, right] = legs;
    let joint = |j: Option<usize>, role| j.ok_or_else(|| missing(role));
    let (left_thigh, right_thigh) = (
        joint(left.thigh, "left thigh")?,
        joint(right.thigh, "right thigh")?,
    );
    let (left_foot, right_foot) = (
        joint(left.foot, "left foot")?,
        joint(right.foot, "right foot")?,
    );
    let at = |j: usize| skeleton.rest_position_model(j);
    // Hip to knee to ankle, as the character's settings measure it (`rig_scale`): a rig
    // resting with bent knees (Quaternius: hip to ankle 0.42 m of its 0.53 m of leg) moves
    // at its leg's length, and its clips must stride and travel at the same.
    let leg_of = |thigh: usize, calf: Option<usize>, foot: usize| match calf {
        Some(calf) => at(thigh).distance(at(calf)) + at(calf).distance(at(foot)),
        None => at(thigh).distance(at(foot)),
    };
    let leg_m = 0.5
        * (leg_of(left_thigh, left.calf, left_foot) + leg_of(right_thigh, right.calf, right_foot));
    let no_frame = |why| RetargetError::NoFrame { rig, why };
    if !(leg_m.is_finite() && leg_m > 1e-4) {
        return Err(no_frame("its thighs and feet are at the same place"));
    }
    // Up from the feet to the hips, snapped to the nearest model axis when it is within
    // 30° of one (a rig resting with its ankles a little behind or apart from its hips
    // still stands on its model's floor: taken as it is, up tilted the ground the
    // retargeted feet plant on, 3.4° for UAL, planted feet climbing 6 cm a walking step);
    // left across the hips, square to it.
    let hips_over_feet = (at(left_thigh) + at(right_thigh) - at(left_foot) - at(right_foot))
        .try_normalize()
        .ok_or_else(|| no_frame("its hips are not above its feet"))?;
    let up = nearest_axis(hips_over_feet, 30f32.to_radians().cos()).unwrap_or(hips_over_feet);
    let across = at(left_thigh) - at(right_thigh);
    let left_axis = (across - up * across.dot(up))
        .try_normalize()
        .ok_or_else(|| no_frame("its left and right thighs are not side by side"))?;
    let forward = left_axis.cross(up);
    // Model axes: +X left, +Y up, +Z forward (forward = left × up).
    let rotation = Quat::from_mat3(&Mat3::from_cols(left_axis, up, forward)).normalize();
    Ok(RestFrame {
        rotation,
        pelvis,
        leg_m,
    })
}

/// The model axis (±X, ±Y, ±Z) nearest `direction` (unit), if their cosine is at least
/// `min_cos`.
fn nearest_axis(direction: Vec3, min_cos: f32) -> Option<Vec3> {
    [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::NEG_X,
        Vec3::NEG_Y,
        Vec3::NEG_Z,
    ]
    .into_iter()
    .map(|axis| (axis, axis.dot(direction)))
    .filter(|&(_, cos)| cos >= min_cos)
    .max_by(|a, b| a.1.total_cmp(&b.1))
    .map(|(axis, _)| axis)
}

/// Per target joint, the model-space turn that points its rest bone along its source's
/// rest bone, for the arms (shoulder, upper arm, forearm, hand), where rest postures
/// differ most (A-pose, T-pose). A bone points from its joint to the next in the chain;
/// the hand takes its forearm's turn. Identity elsewhere and where a chain has a gap.
/// Not the legs: a foot's rest (ankle to ball) is not comparable across rigs of other
/// ankle heights, and turning it stood the retargeted feet on their toes or heels
/// (tried: UAL 34 -> 28, KayKit 10 -> 2, Quaternius 28 -> 0 of 36 lab runs at the bar).
fn rest_fixes(
    source_skeleton: &Skeleton,
    source: &HumanoidMap,
    target_skeleton: &Skeleton,
    target: &HumanoidMap,
    frame: Quat,
) -> Vec<Quat> {
    let mut fixes = vec![Quat::IDENTITY; target_skeleton.num_joints()];
    let arm_chain = |map: &HumanoidMap, skeleton: &Skeleton, side: Side| {
        let arm = map.arms[side.index()];
        [
            shoulder(skeleton, map, side),
            arm.upperarm,
            arm.lowerarm,
            arm.hand,
        ]
    };
    for side in [Side::Left, Side::Right] {
        let sc = arm_chain(source, source_skeleton, side);
        let tc = arm_chain(target, target_skeleton, side);
        let mut last_fix = None;
        for k in 0..tc.len() {
            let (Some(t), Some(s)) = (tc[k], sc[k]) else {
                last_fix = None;
                continue;
            };
            let next = tc
                .get(k + 1)
                .copied()
                .flatten()
                .zip(sc.get(k + 1).copied().flatten());
            let fix = match next {
                Some((t_next, s_next)) => {
                    let along = |skeleton: &Skeleton, a: usize, b: usize| {
                        (skeleton.rest_position_model(b) - skeleton.rest_position_model(a))
                            .try_normalize()
                    };
                    let target_dir = along(target_skeleton, t, t_next).map(|d| frame.inverse() * d);
                    let source_dir = along(source_skeleton, s, s_next);
                    target_dir.zip(source_dir).map(|(from, to)| {
                        frame * Quat::from_rotation_arc(from, to) * frame.inverse()
                    })
                }
                None => last_fix,
            };
            if let Some(fix) = fix {
                fixes[t] = fix;
            }
            last_fix = fix;
        }
    }
    fixes
}

/// (target joint, source joint) for every role both maps have; the spine spread by
/// position along the shorter chain; and the joint each arm hangs from.
fn joint_pairs(
    source_skeleton: &Skeleton,
    source: &HumanoidMap,
    target_skeleton: &Skeleton,
    target: &HumanoidMap,
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut pair = |t: Option<usize>, s: Option<usize>| {
        if let (Some(t), Some(s)) = (t, s) {
            pairs.push((t, s));
        }
    };
    pair(target.pelvis, source.pelvis);
    pair(target.neck, source.neck);
    pair(target.head, source.head);
    for side in [Side::Left, Side::Right] {
        let (t, s) = (target.legs[side.index()], source.legs[side.index()]);
        pair(t.thigh, s.thigh);
        pair(t.calf, s.calf);
        pair(t.foot, s.foot);
        pair(t.ball, s.ball);
        let (t, s) = (target.arms[side.index()], source.arms[side.index()]);
        pair(t.upperarm, s.upperarm);
        pair(t.lowerarm, s.lowerarm);
        pair(t.hand, s.hand);
    }
    // The joint an arm hangs from: paired too, or the arms' shrug and swing from the
    // shoulder would be lost.
    for side in [Side::Left, Side::Right] {
        pair(
            shoulder(target_skeleton, target, side),
            shoulder(source_skeleton, source, side),
        );
    }
    let (ts, ss) = (&target.spine, &source.spine);
    if !ts.is_empty() && !ss.is_empty() {
        for (k, &t) in ts.iter().enumerate() {
            // Position along the chain, 0 at its base and 1 at its top.
            let along = if ts.len() > 1 {
                k as f32 / (ts.len() - 1) as f32
            } else {
                1.0
            };
            let s = (along * (ss.len() - 1) as f32).round() as usize;
            pair(Some(t), ss.get(s).copied());
        }
    }
    pairs
}

#[cfg(all(test, feature = "mannequin"))]
pub(crate) mod tests;

/// The joint `side`'s arm hangs from (a clavicle, a shoulder), when the map leaves it out.
pub(crate) fn shoulder(skeleton: &Skeleton, map: &HumanoidMap, side: Side) -> Option<usize> {
    let parent = skeleton.parent(map.arms[side.index()].upperarm?)?;
    (!map.joints().contains(&parent)).then_some(parent)
}
