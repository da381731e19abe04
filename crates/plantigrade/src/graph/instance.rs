//! One character's graph state (GRAPH-3..8): node times and phases, state machines with
//! crossfades, layer weights, events and root motion. `tick` advances and evaluates into a
//! caller-owned pose without allocating.

use std::sync::Arc;

use glam::Vec2;

use super::asset::{
    synced_time_s, BlendOptions, BlendSample, BlendSpace, GraphAsset, Node, NodeId,
};
use super::blend_space::{SparseWeights, SpeedScaling};
use super::def::{BlendCurve, RootMotionDef};
use super::events::{
    for_each_event_in_span, EventNameId, GraphEvent, MachineId, StateId, TimeSpan,
};
use super::params::ParamSet;
use super::root_motion::{clip_root_delta, strip_root_motion, RootMotionDelta};
use crate::clip::Clip;
use crate::math::{damp_share, smoothstep};
use crate::pose::{blend, blend_layer, blend_layer_model_space, Pose, PoseError};

/// Per-node playback state.
#[derive(Clone, Debug, Default)]
struct NodeState {
    /// Clip node: clip-local time.
    time_s: f32,
    /// Unsynced blend: elapsed time, which each clip wraps by its own duration. f64: it
    /// never wraps itself, and an f32 would step by 8 ms after a day of play.
    elapsed_s: f64,
    /// Unsynced blend: the elapsed time the last update started from.
    last_elapsed_s: f64,
    /// Synced blend: shared normalized phase.
    phase: f32,
    /// Span covered by the last update (clip node: clip time; synced blend: phase).
    last_start: f32,
    last_advance: f32,
    /// Reset and not advanced yet: events at the very start fire once.
    fresh: bool,
    /// Smoothed blend-space position.
    query: Vec2,
    /// Clips and weights of the last update, merged by clip (at most three).
    clip_weights: [(usize, f32); 3],
    /// Each weighted clip's [`BlendSample::sync_offset`] (parallel to `clip_weights`).
    clip_sync_offsets: [f32; 3],
    num_clips: usize,
    /// Synced blend: shared cycle length of the last update (seconds).
    shared_duration_s: f32,
    /// Synced blend: all weight was on clips with no authored speed (at rest) last update.
    at_rest: bool,
    /// Synced blend entered by a transition with a start phase: its first update starts
    /// there (instead of at 0 or at the blend's own `start_phase`).
    entry_phase: Option<f32>,
}

/// Where a crossfade comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FadeSource {
    /// A state still playing (the first transition).
    State(StateId),
    /// The frozen pose shown when a transition was interrupted.
    Snapshot,
}

#[derive(Clone, Copy, Debug)]
struct Crossfade {
    source: FadeSource,
    elapsed_s: f32,
    duration_s: f32,
    curve: BlendCurve,
}

impl Crossfade {
    fn target_weight(&self) -> f32 {
        if self.duration_s <= 0.0 {
            1.0
        } else {
            self.curve.weight(self.elapsed_s / self.duration_s)
        }
    }
}

#[derive(Clone, Debug)]
struct MachineState {
    current: StateId,
    fade: Option<Crossfade>,
    /// The machine's last output (becomes the snapshot a crossfade starts from when it
    /// interrupts another or restarts the current state).
    last_output: Pose,
    snapshot: Pose,
    pending_travel: Option<(StateId, f32)>,
    time_in_state_s: f32,
}

/// A clip that contributed to the last tick's base pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampledClip {
    /// Index into the asset's clips.
    pub clip: usize,
    /// Share of the base pose (0..=1).
    pub weight: f32,
    /// Clip time as a fraction of its duration (0..=1).
    pub normalized_time: f32,
}

/// Why a tick could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GraphError {
    #[error(transparent)]
    Pose(#[from] PoseError),
    #[error("root motion names joint '{0}', but the skeleton has no such joint")]
    UnknownRootJoint(String),
    #[error(transparent)]
    Clip(#[from] crate::clip::ClipError),
    #[error("culled joint {joint} is out of range: the skeleton has {joints} joints")]
    CulledJointOutOfRange { joint: usize, joints: usize },
    #[error("joint {joint} cannot be culled: root motion is read from it")]
    CulledRootMotionJoint { joint: usize },
}

/// One character's instance of a [`GraphAsset`].
#[derive(Clone, Debug)]
pub struct GraphInstance {
    asset: Arc<GraphAsset>,
    params: ParamSet,
    nodes: Vec<NodeState>,
    machines: Vec<MachineState>,
    layer_weights: Vec<f32>,
    /// Each layer's eased weight as a linear ramp: the weight is `smoothstep(ramp)`.
    layer_ramps: Vec<f32>,
    /// Blended float curves of the base layer (index = curve id).
    curves: Vec<f32>,
    /// Clips sampled for the base layer in the last tick.
    sampled: Vec<SampledClip>,
    scratch: Vec<Pose>,
    /// Model rotations for layers blended in model space (three per joint).
    rotation_scratch: Vec<glam::Quat>,
    events: Vec<GraphEvent>,
    root_motion: RootMotionDelta,
    /// This character's own root-motion source (its axes and the joint resolved), in place
    /// of the asset's; see [`GraphInstance::set_root_motion`].
    root_motion_source: Option<(RootMotionDef, usize)>,
    paused: bool,
    /// Clock scale (see [`GraphInstance::set_playback_scale`]).
    playback_scale: f32,
    started: bool,
    /// Joints not sampled while [`GraphInstance::set_culling`] is on (index = joint; empty:
    /// none), and whether it is on.
    culled_joints: Vec<bool>,
    culling: bool,
}

/// A clip slower than this (authored, m/s) is a rest pose for `start_phase`.
const REST_SPEED_M_S: f32 = 0.05;
/// Weight that may sit off the rest clips while a blend still counts as at rest.
const REST_WEIGHT_TOLERANCE: f32 = 1e-3;

/// Events reserved up front so ordinary ticks never grow the list.
const EVENT_CAPACITY: usize = 64;

impl GraphInstance {
    pub fn new(asset: Arc<GraphAsset>) -> Self {
        let rest = Pose::rest(&asset.skeleton);
        let machines = asset
            .machines
            .iter()
            .map(|m| MachineState {
                current: m.initial,
                fade: None,
                last_output: rest.clone(),
                snapshot: rest.clone(),
                pending_travel: None,
                time_in_state_s: 0.0,
            })
            .collect();
        let nodes = vec![
            NodeState {
                fresh: true,
                ..Default::default()
            };
            asset.nodes.len()
        ];
        Self {
            params: asset.params.clone(),
            nodes,
            machines,
            layer_weights: vec![0.0; asset.layers.len()],
            layer_ramps: vec![0.0; asset.layers.len()],
            curves: vec![0.0; asset.curve_names.len()],
            sampled: Vec::with_capacity(3 * asset.nodes.len()),
            scratch: vec![rest; asset.scratch_poses.max(1)],
            rotation_scratch: if asset.layers.iter().any(|l| l.model_space_rotation) {
                vec![glam::Quat::IDENTITY; 3 * asset.skeleton.num_joints()]
            } else {
                Vec::new()
            },
            events: Vec::with_capacity(EVENT_CAPACITY),
            root_motion: RootMotionDelta::ZERO,
            root_motion_source: None,
            paused: false,
            playback_scale: 1.0,
            started: false,
            culled_joints: Vec::new(),
            culling: false,
            asset,
        }
    }

    pub fn asset(&self) -> &Arc<GraphAsset> {
        &self.asset
    }

    /// Parameter values (handles from `asset().params()` work here).
    pub fn params(&self) -> &ParamSet {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut ParamSet {
        &mut self.params
    }

    /// Events of the last tick.
    pub fn events(&self) -> &[GraphEvent] {
        &self.events
    }

    /// Root motion of the last tick, filtered by the graph's root-motion axes.
    pub fn root_motion(&self) -> RootMotionDelta {
        self.root_motion
    }

    /// Takes root motion from `source` (its joint and axes) instead of the graph's own, from
    /// the next tick on: one rig's first joint is its root, another's is its pelvis. A
    /// joint the skeleton does not have is refused and the current source kept.
    pub fn set_root_motion(&mut self, source: RootMotionDef) -> Result<(), GraphError> {
        let joint = match &source.joint {
            Some(name) => self
                .asset
                .skeleton
                .find(name)
                .ok_or_else(|| GraphError::UnknownRootJoint(name.clone()))?,
            None => 0,
        };
        self.root_motion_source = Some((source, joint));
        Ok(())
    }

    /// The root-motion source in use: this character's, else the graph's.
    pub fn root_motion_source(&self) -> &RootMotionDef {
        self.root_motion_override()
            .unwrap_or(&self.asset.root_motion)
    }

    /// This character's own root-motion source, when it has one.
    pub fn root_motion_override(&self) -> Option<&RootMotionDef> {
        self.root_motion_source.as_ref().map(|(def, _)| def)
    }

    /// The joint root motion is taken from (index into the skeleton): this character's
    /// source's, else the graph's.
    pub fn root_motion_joint(&self) -> usize {
        self.root_motion_source
            .as_ref()
            .map_or(self.asset.root_joint, |&(_, joint)| joint)
    }

    /// The joints (skeleton indices) that [`GraphInstance::set_culling`] stops sampling
    /// (SPEC PERF-5: fingers, twist bones, what no one sees on a far character); they then
    /// keep their rest transform. Replaces the last list; empty culls none. Refused, with
    /// nothing changed, for a joint out of range or the root-motion joint.
    pub fn set_culled_joints(&mut self, joints: &[usize]) -> Result<(), GraphError> {
        let count = self.asset.skeleton.num_joints();
        let root = self.root_motion_joint();
        let mut culled = vec![false; if joints.is_empty() { 0 } else { count }];
        for &joint in joints {
            if joint >= count {
                return Err(GraphError::CulledJointOutOfRange {
                    joint,
                    joints: count,
                });
            }
            if joint == root {
                return Err(GraphError::CulledRootMotionJoint { joint });
            }
            culled[joint] = true;
        }
        self.culled_joints = culled;
        Ok(())
    }

    /// Which joints culling stops sampling (index = joint; empty: none).
    pub fn culled_joints(&self) -> &[bool] {
        &self.culled_joints
    }

    /// Turns joint culling on or off from the next tick (see
    /// [`GraphInstance::set_culled_joints`]). A host switching it must blend the culled
    /// joints itself if it must not pop; `Character` does (over the LOD blend time).
    pub fn set_culling(&mut self, on: bool) {
        self.culling = on;
    }

    /// Whether joint culling is on.
    pub fn culling(&self) -> bool {
        self.culling
    }

    /// The state a machine is in (the target while a crossfade runs).
    pub fn current_state(&self, machine: MachineId) -> Option<StateId> {
        self.machines.get(machine.0 as usize).map(|m| m.current)
    }

    /// Seconds since the machine entered its current state.
    pub fn time_in_state_s(&self, machine: MachineId) -> f32 {
        self.machines
            .get(machine.0 as usize)
            .map_or(0.0, |m| m.time_in_state_s)
    }

    /// Weight of the current state in a running crossfade (1 when none runs).
    pub fn crossfade_weight(&self, machine: MachineId) -> f32 {
        self.machines
            .get(machine.0 as usize)
            .and_then(|m| m.fade)
            .map_or(1.0, |f| f.target_weight())
    }

    /// Value of a float curve (see [`GraphAsset::curve_id`]) in the base layer's blended
    /// pose of the last tick: the weighted mean over the clips sampled, a clip without the
    /// curve counting as 0 (so `FootContact_L` blends to a contact weight).
    pub fn curve(&self, curve_id: usize) -> f32 {
        self.curves.get(curve_id).copied().unwrap_or(0.0)
    }

    /// The clips sampled for the last tick's base pose, with their weights and times (for
    /// debugging, and to check phase sync).
    pub fn sampled_clips(&self) -> &[SampledClip] {
        &self.sampled
    }

    /// Smoothed weight of an overlay layer after the last tick.
    pub fn layer_weight(&self, layer: usize) -> f32 {
        self.layer_weights.get(layer).copied().unwrap_or(0.0)
    }

    /// Forces a transition to `state` with a crossfade of `duration_s`, on the next tick,
    /// ahead of any condition.
    pub fn travel(&mut self, machine: MachineId, state: StateId, duration_s: f32) {
        let valid = self
            .asset
            .machines
            .get(machine.0 as usize)
            .is_some_and(|m| (state.0 as usize) < m.states.len());
        if let (true, Some(m)) = (valid, self.machines.get_mut(machine.0 as usize)) {
            let duration_s = if duration_s.is_finite() {
                duration_s.max(0.0)
            } else {
                0.0
            };
            m.pending_travel = Some((state, duration_s));
        }
    }

    /// Freezes (`true`) or resumes the graph: while paused, time does not advance, no event
    /// fires and root motion is zero; the pose holds.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Scales the graph's clock (1 = real time): every clip, blend, crossfade and event
    /// runs this much faster. Foot IK's stride warping plays the gait faster and shortens
    /// the stride by the same factor so ground speed is kept (SPEC TILT-7). Non-finite or
    /// non-positive values reset it to 1; it is clamped to 0.25..4.
    pub fn set_playback_scale(&mut self, scale: f32) {
        self.playback_scale = if scale.is_finite() && scale > 0.0 {
            scale.clamp(0.25, 4.0)
        } else {
            1.0
        };
    }

    pub fn playback_scale(&self) -> f32 {
        self.playback_scale
    }

    /// Advances the graph by `dt_s` (non-finite or negative counts as 0) and writes the
    /// pose into `out` (one transform per skeleton joint).
    pub fn tick(&mut self, dt_s: f32, out: &mut Pose) -> Result<(), GraphError> {
        let expected = self.asset.skeleton.num_joints();
        if out.num_joints() != expected {
            return Err(PoseError::JointCount {
                expected,
                got: out.num_joints(),
            }
            .into());
        }
        let dt_s = if dt_s.is_finite() && dt_s > 0.0 {
            dt_s * self.playback_scale
        } else {
            0.0
        };
        self.events.clear();
        self.root_motion = RootMotionDelta::ZERO;
        let asset = Arc::clone(&self.asset);
        if !self.started {
            self.started = true;
            for (i, m) in asset.machines.iter().enumerate() {
                if is_active_machine(&asset, &self.machines, asset.base, MachineId(i as u16)) {
                    self.events.push(GraphEvent::StateEntered {
                        machine: MachineId(i as u16),
                        state: m.initial,
                    });
                }
            }
        }
        let root_joint = self.root_motion_joint();
        if !self.paused {
            let mut ctx = Update {
                asset: &asset,
                root_joint,
                params: &self.params,
                nodes: &mut self.nodes,
                machines: &mut self.machines,
                events: &mut self.events,
            };
            let delta = ctx.update(asset.base, dt_s, true);
            for (i, layer) in asset.layers.iter().enumerate() {
                ctx.update(layer.node, dt_s, false);
                let target = (layer.weight_param.map_or(1.0, |p| p.get(&self.params))
                    * layer.weight)
                    .clamp(0.0, 1.0);
                self.layer_ramps[i] =
                    ramp_toward(self.layer_ramps[i], target, layer.weight_smoothing_s, dt_s);
                self.layer_weights[i] = smoothstep(self.layer_ramps[i]);
            }
            if delta.is_finite() {
                let source = self.root_motion_source.as_ref().map(|(def, _)| def);
                self.root_motion = delta.filtered(source.unwrap_or(&asset.root_motion));
            }
        }
        self.curves.fill(0.0);
        self.sampled.clear();
        // Sampling never grows this list in the tick (it records up to its capacity), and
        // a clone of the instance keeps only the length: bring the capacity back, once.
        self.sampled.reserve(3 * asset.nodes.len());
        let mut eval = Evaluate {
            asset: &asset,
            nodes: &self.nodes,
            machines: &mut self.machines,
            curves: Some(&mut self.curves),
            sampled: Some(&mut self.sampled),
            curve_weight: 0.0,
            culled: if self.culling {
                &self.culled_joints
            } else {
                &[]
            },
        };
        eval.evaluate(asset.base, out, &mut self.scratch, 1.0)?;
        eval.finish_curves();
        eval.curves = None;
        eval.sampled = None;
        for (i, layer) in asset.layers.iter().enumerate() {
            let weight = self.layer_weights[i];
            if weight <= 0.0 {
                continue;
            }
            let (layer_pose, rest_scratch) = self.scratch.split_at_mut(1);
            eval.evaluate(layer.node, &mut layer_pose[0], rest_scratch, weight)?;
            if layer.model_space_rotation {
                blend_layer_model_space(
                    out,
                    &layer_pose[0],
                    weight,
                    layer.mask.as_ref(),
                    asset.skeleton.parents(),
                    &mut self.rotation_scratch,
                )?;
            } else {
                blend_layer(out, &layer_pose[0], weight, layer.mask.as_ref())?;
            }
        }
        let source = self.root_motion_source.as_ref().map(|(def, _)| def);
        strip_root_motion(
            out,
            root_joint,
            &asset.skeleton.rest_local()[root_joint],
            source.unwrap_or(&asset.root_motion),
        );
        Ok(())
    }
}

/// Exponential approach to `target` that settles within 5 % after `up_s` (rising) or
/// `down_s` (falling) seconds; 0 s snaps. Frame-rate independent.
fn approach(current: f32, target: f32, up_s: f32, down_s: f32, dt_s: f32) -> f32 {
    let settle_s = if target > current { up_s } else { down_s };
    if settle_s <= 0.0 || !current.is_finite() {
        return target;
    }
    // e^(−k·settle) = 0.05 ⇒ k = ln 20 / settle.
    let k = 20f32.ln() / settle_s;
    current + (target - current) * damp_share(k, dt_s)
}

/// One tick of a layer weight's ramp: `ramp` moves linearly, a whole 0 → 1 in
/// `full_s` seconds, toward the ramp value whose [`smoothstep`] is `target` (0..=1). The
/// weight eased through smoothstep starts and stops with zero speed: a layer switched on
/// does not jump its bones on the first tick (an exponential approach moved the hands
/// 11–16 cm in that tick when aim came on). 0 s snaps. Frame-rate independent.
fn ramp_toward(ramp: f32, target: f32, full_s: f32, dt_s: f32) -> f32 {
    let goal = inverse_smoothstep(target.clamp(0.0, 1.0));
    if full_s <= 0.0 || !ramp.is_finite() {
        return goal;
    }
    let step = dt_s.max(0.0) / full_s;
    ramp + (goal - ramp).clamp(-step, step)
}

/// The `x` in 0..=1 whose [`smoothstep`] is `y` (0..=1).
fn inverse_smoothstep(y: f32) -> f32 {
    0.5 - ((1.0 - 2.0 * y.clamp(0.0, 1.0)).asin() / 3.0).sin()
}

fn wrap_into(value: f32, (lo, hi): (f32, f32)) -> f32 {
    lo + (value - lo).rem_euclid(hi - lo)
}

/// Whether `machine` is reachable through active states from `node`.
fn is_active_machine(
    asset: &GraphAsset,
    machines: &[MachineState],
    node: NodeId,
    machine: MachineId,
) -> bool {
    match &asset.nodes[node] {
        Node::Machine(m) if *m == machine => true,
        Node::Machine(m) => {
            let current = machines[m.0 as usize].current;
            let state_node = asset.machines[m.0 as usize].states[current.0 as usize].1;
            is_active_machine(asset, machines, state_node, machine)
        }
        _ => false,
    }
}

struct Update<'a> {
    asset: &'a GraphAsset,
    /// The joint root motion is taken from.
    root_joint: usize,
    params: &'a ParamSet,
    nodes: &'a mut [NodeState],
    machines: &'a mut [MachineState],
    events: &'a mut Vec<GraphEvent>,
}

impl Update<'_> {
    fn root_delta(&self, clip: usize, span: TimeSpan) -> RootMotionDelta {
        let asset = self.asset;
        let root = self.root_joint;
        clip_root_delta(
            &asset.clips[clip],
            root,
            &asset.skeleton.rest_local()[root],
            span,
        )
    }

    fn emit_clip_events(&mut self, clip: usize, span: TimeSpan) {
        let asset = self.asset;
        let names = &asset.clip_event_names[clip];
        let events = &mut *self.events;
        for_each_event_in_span(&asset.clips[clip], span, |i| {
            events.push(GraphEvent::Clip {
                name: names[i],
                clip: clip as u32,
            });
        });
    }

    /// Advances `node` by `dt_s`; emits clip events when `emit`; returns its root motion.
    fn update(&mut self, node: NodeId, dt_s: f32, emit: bool) -> RootMotionDelta {
        let asset = self.asset;
        match &asset.nodes[node] {
            Node::Clip { clip, rate } => {
                let clip_index = *clip;
                let clip = &asset.clips[clip_index];
                let st = &mut self.nodes[node];
                let span = TimeSpan {
                    start_s: st.time_s,
                    advance_s: dt_s * rate,
                    inclusive_start: st.fresh,
                };
                st.last_start = span.start_s;
                st.last_advance = span.advance_s;
                st.fresh = false;
                st.time_s = clip.local_time_s(st.time_s + span.advance_s);
                if emit {
                    self.emit_clip_events(clip_index, span);
                }
                self.root_delta(clip_index, span)
            }
            Node::Blend {
                x,
                y,
                space,
                samples,
                options,
            } => {
                let target = Vec2::new(
                    self.params.get_float(*x),
                    y.map_or(0.0, |y| self.params.get_float(y)),
                );
                let st = &mut self.nodes[node];
                st.query = if st.fresh {
                    target
                } else {
                    smooth_query(st.query, target, options, dt_s)
                };
                let sparse = match space {
                    BlendSpace::One(s) => s.sample_weights_sparse(st.query.x),
                    BlendSpace::Two(s) => s.sample_weights_sparse(st.query),
                };
                merge_by_clip(&sparse, samples, st);
                // Leaving rest: the gait starts from its start phase (see BlendSpaceOptions).
                let rest_weight: f32 = st.clip_weights[..st.num_clips]
                    .iter()
                    .filter(|&&(c, _)| {
                        asset.clips[c].authored_speed_m_s().unwrap_or(0.0) < REST_SPEED_M_S
                    })
                    .map(|&(_, w)| w)
                    .sum();
                let at_rest = rest_weight >= 1.0 - REST_WEIGHT_TOLERANCE;
                // A node that has not played yet starts as from rest.
                let was_at_rest = st.at_rest || st.fresh;
                let leaving_rest = options.sync && was_at_rest && !at_rest;
                if let Some(phase) = st.entry_phase.take().filter(|_| options.sync) {
                    st.phase = phase;
                } else if leaving_rest {
                    // The start phase of the moving sample the blend heads for, else the
                    // blend's. Read at the parameters, not at the smoothed position still
                    // near the last direction; on a plane at no less than the slowest
                    // moving sample's y (speed), where the moving samples alone share the
                    // weight by x (direction) instead of by how the rest corner happens
                    // to be triangulated.
                    let moving = |sample: &BlendSample| {
                        asset.clips[sample.clip].authored_speed_m_s().unwrap_or(0.0)
                            >= REST_SPEED_M_S
                    };
                    let heading = match space {
                        BlendSpace::One(s) => s.sample_weights_sparse(target.x),
                        BlendSpace::Two(s) => {
                            let slowest_y = s
                                .positions()
                                .iter()
                                .zip(samples.iter())
                                .filter(|(_, sample)| moving(sample))
                                .map(|(p, _)| p.y)
                                .fold(f32::INFINITY, f32::min);
                            let y = if slowest_y.is_finite() {
                                target.y.max(slowest_y)
                            } else {
                                target.y
                            };
                            s.sample_weights_sparse(Vec2::new(target.x, y))
                        }
                    };
                    let leading = heading
                        .as_slice()
                        .iter()
                        .filter_map(|&(sample, w)| samples.get(sample).map(|s| (s, w)))
                        .filter(|(s, _)| moving(s))
                        .max_by(|a, b| a.1.total_cmp(&b.1))
                        .and_then(|(s, _)| s.start_phase);
                    if let Some(phase) = leading.or(options.start_phase) {
                        st.phase = phase;
                    }
                }
                st.at_rest = at_rest;
                let rate = self.playback_rate(node, options);
                let st = &mut self.nodes[node];
                let weighted = &st.clip_weights[..st.num_clips];
                let all_one_shot = weighted.iter().all(|&(c, _)| !asset.clips[c].is_looping());
                let shared = weighted
                    .iter()
                    .map(|&(c, w)| w * asset.clips[c].duration_s())
                    .sum::<f32>();
                st.shared_duration_s = shared;
                let inclusive = st.fresh;
                st.fresh = false;
                let mut spans = [TimeSpan::default(); 3];
                if options.sync && shared > 0.0 {
                    let advance = dt_s * rate / shared;
                    st.last_start = st.phase;
                    st.last_advance = advance;
                    let next = st.phase + advance;
                    st.phase = if all_one_shot {
                        next.min(1.0)
                    } else {
                        next - next.floor()
                    };
                    for ((span, &(c, _)), &offset) in
                        spans.iter_mut().zip(weighted).zip(&st.clip_sync_offsets)
                    {
                        let d = asset.clips[c].duration_s();
                        *span = TimeSpan {
                            start_s: synced_time_s(&asset.clips[c], st.last_start, offset),
                            advance_s: advance * d,
                            inclusive_start: inclusive,
                        };
                    }
                } else {
                    st.last_elapsed_s = st.elapsed_s;
                    st.last_advance = dt_s * rate;
                    st.elapsed_s += f64::from(dt_s * rate);
                    for (span, &(c, _)) in spans.iter_mut().zip(weighted) {
                        let clip = &asset.clips[c];
                        *span = TimeSpan {
                            start_s: clip.local_time_of_elapsed_s(st.last_elapsed_s),
                            advance_s: st.last_advance,
                            inclusive_start: inclusive,
                        };
                    }
                }
                let weighted: [(usize, f32); 3] = st.clip_weights;
                let n = st.num_clips;
                let mut delta = RootMotionDelta::ZERO;
                for i in 0..n {
                    delta = delta.plus(
                        self.root_delta(weighted[i].0, spans[i])
                            .scaled(weighted[i].1),
                    );
                }
                if emit {
                    // Only the dominant clip speaks, so a blend never doubles footsteps.
                    if let Some(i) = (0..n).max_by(|&a, &b| weighted[a].1.total_cmp(&weighted[b].1))
                    {
                        self.emit_clip_events(weighted[i].0, spans[i]);
                    }
                }
                delta
            }
            Node::Machine(machine) => self.update_machine(*machine, dt_s, emit),
        }
    }

    fn playback_rate(&self, node: NodeId, options: &BlendOptions) -> f32 {
        let asset = self.asset;
        let Some(param) = options.match_speed else {
            return 1.0;
        };
        let st = &self.nodes[node];
        let authored: f32 = st.clip_weights[..st.num_clips]
            .iter()
            .map(|&(c, w)| w * asset.clips[c].authored_speed_m_s().unwrap_or(0.0))
            .sum();
        let scaling = SpeedScaling {
            min_rate: options.rate_range.0,
            max_rate: options.rate_range.1,
            ..Default::default()
        };
        scaling.rate(self.params.get_float(param), authored)
    }

    fn update_machine(&mut self, machine: MachineId, dt_s: f32, emit: bool) -> RootMotionDelta {
        let asset = self.asset;
        let m = machine.0 as usize;
        let def = &asset.machines[m];
        let current = self.machines[m].current;
        let current_node = def.states[current.0 as usize].1;
        self.machines[m].time_in_state_s += dt_s;

        let mut delta;
        match self.machines[m].fade {
            Some(mut fade) => {
                fade.elapsed_s += dt_s;
                let w = fade.target_weight();
                delta = self.update(current_node, dt_s, emit && w >= 0.5).scaled(w);
                if let FadeSource::State(source) = fade.source {
                    let source_node = def.states[source.0 as usize].1;
                    delta = delta.plus(
                        self.update(source_node, dt_s, emit && w < 0.5)
                            .scaled(1.0 - w),
                    );
                }
                if fade.elapsed_s >= fade.duration_s {
                    self.machines[m].fade = None;
                    self.events.push(GraphEvent::TransitionFinished {
                        machine,
                        to: current,
                    });
                } else {
                    self.machines[m].fade = Some(fade);
                }
            }
            None => delta = self.update(current_node, dt_s, emit),
        }

        if let Some((to, duration_s)) = self.machines[m].pending_travel.take() {
            if to != current {
                self.start_transition(machine, to, duration_s, BlendCurve::EaseInOut, None, false);
            }
            return delta;
        }
        for t in &def.transitions {
            // Into the current state only by a transition written from it to itself (a
            // restart, e.g. the gait on a reversal); "*" never re-enters.
            let restart = t.from == Some(current) && t.to == current;
            if (t.to == current && !restart) || t.from.is_some_and(|f| f != current) {
                continue;
            }
            let at_end_ok = !t.at_end || self.remaining_s(current_node) <= t.duration_s.max(1e-4);
            let marker_ok = t
                .at_marker
                .is_none_or(|marker| self.crossed(current_node, marker));
            let condition_ok = t.condition.as_ref().is_none_or(|c| c.eval(self.params));
            if at_end_ok && marker_ok && condition_ok {
                self.start_transition(
                    machine,
                    t.to,
                    t.duration_s,
                    t.curve,
                    t.start_phase,
                    t.inherit_phase,
                );
                break;
            }
        }
        delta
    }

    fn start_transition(
        &mut self,
        machine: MachineId,
        to: StateId,
        duration_s: f32,
        curve: BlendCurve,
        start_phase: Option<f32>,
        inherit_phase: bool,
    ) {
        let asset = self.asset;
        let m = machine.0 as usize;
        let state = &mut self.machines[m];
        let from = state.current;
        let source = if state.fade.is_some() || from == to {
            // Interrupted, or restarting the state: fade from exactly what was shown last
            // tick (the state itself is about to start over).
            std::mem::swap(&mut state.snapshot, &mut state.last_output);
            FadeSource::Snapshot
        } else {
            FadeSource::State(from)
        };
        state.fade = Some(Crossfade {
            source,
            elapsed_s: 0.0,
            duration_s,
            curve,
        });
        state.current = to;
        state.time_in_state_s = 0.0;
        self.events.push(GraphEvent::TransitionStarted {
            machine,
            from,
            to,
            duration_s,
        });
        self.events.push(GraphEvent::StateLeft {
            machine,
            state: from,
        });
        self.events
            .push(GraphEvent::StateEntered { machine, state: to });
        let to_node = asset.machines[m].states[to.0 as usize].1;
        let from_node = asset.machines[m].states[from.0 as usize].1;
        let inherited = match &asset.nodes[from_node] {
            Node::Blend { options, .. } if inherit_phase && options.sync => {
                Some(self.nodes[from_node].phase)
            }
            _ => None,
        };
        self.reset(to_node);
        self.nodes[to_node].entry_phase = inherited.or(start_phase);
    }

    /// Restarts a node's subtree (times to 0, machines to their initial state).
    fn reset(&mut self, node: NodeId) {
        let asset = self.asset;
        self.nodes[node] = NodeState {
            fresh: true,
            ..Default::default()
        };
        if let Node::Machine(machine) = &asset.nodes[node] {
            let m = machine.0 as usize;
            let initial = asset.machines[m].initial;
            let st = &mut self.machines[m];
            st.current = initial;
            st.fade = None;
            st.time_in_state_s = 0.0;
            self.events.push(GraphEvent::StateEntered {
                machine: *machine,
                state: initial,
            });
            let child = asset.machines[m].states[initial.0 as usize].1;
            self.reset(child);
        }
    }

    /// Seconds left before the node's clip (or dominant synced cycle) ends.
    fn remaining_s(&self, node: NodeId) -> f32 {
        let asset = self.asset;
        let st = &self.nodes[node];
        match &asset.nodes[node] {
            Node::Clip { clip, rate } => {
                let d = asset.clips[*clip].duration_s();
                if *rate > 0.0 {
                    (d - st.time_s).max(0.0) / rate
                } else {
                    f32::INFINITY
                }
            }
            Node::Blend { options, .. } if options.sync => (1.0 - st.phase) * st.shared_duration_s,
            Node::Blend { .. } => st.clip_weights[..st.num_clips]
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(f32::INFINITY, |&(c, _)| {
                    let clip = &asset.clips[c];
                    (clip.duration_s() - clip.local_time_of_elapsed_s(st.elapsed_s)).max(0.0)
                }),
            Node::Machine(machine) => {
                let m = machine.0 as usize;
                let state = self.machines[m].current;
                self.remaining_s(asset.machines[m].states[state.0 as usize].1)
            }
        }
    }

    /// Whether the node crossed `marker` during its last update.
    fn crossed(&self, node: NodeId, marker: EventNameId) -> bool {
        let asset = self.asset;
        let st = &self.nodes[node];
        let clip_crossed = |clip: usize, span: TimeSpan| {
            let names = &asset.clip_event_names[clip];
            let mut hit = false;
            for_each_event_in_span(&asset.clips[clip], span, |i| hit |= names[i] == marker);
            hit
        };
        match &asset.nodes[node] {
            Node::Clip { clip, .. } => clip_crossed(
                *clip,
                TimeSpan {
                    start_s: st.last_start,
                    advance_s: st.last_advance,
                    inclusive_start: false,
                },
            ),
            Node::Blend { options, .. } => (0..st.num_clips).any(|i| {
                let c = st.clip_weights[i].0;
                let clip = &asset.clips[c];
                let span = if options.sync {
                    TimeSpan {
                        start_s: synced_time_s(clip, st.last_start, st.clip_sync_offsets[i]),
                        advance_s: st.last_advance * clip.duration_s(),
                        inclusive_start: false,
                    }
                } else {
                    TimeSpan {
                        start_s: clip.local_time_of_elapsed_s(st.last_elapsed_s),
                        advance_s: st.last_advance,
                        inclusive_start: false,
                    }
                };
                clip_crossed(c, span)
            }),
            Node::Machine(machine) => {
                let m = machine.0 as usize;
                let state = self.machines[m].current;
                self.crossed(asset.machines[m].states[state.0 as usize].1, marker)
            }
        }
    }
}

fn smooth_query(current: Vec2, target: Vec2, options: &BlendOptions, dt_s: f32) -> Vec2 {
    let x = match options.x_wraps {
        Some(range) => {
            // Shortest way round, then back into the range.
            let span = range.1 - range.0;
            let diff = (target.x - current.x + span * 0.5).rem_euclid(span) - span * 0.5;
            let moved = approach(
                0.0,
                diff,
                options.smoothing_up_s.x,
                options.smoothing_up_s.x,
                dt_s,
            );
            wrap_into(current.x + moved, range)
        }
        None => approach(
            current.x,
            target.x,
            options.smoothing_up_s.x,
            options.smoothing_down_s.x,
            dt_s,
        ),
    };
    let y = approach(
        current.y,
        target.y,
        options.smoothing_up_s.y,
        options.smoothing_down_s.y,
        dt_s,
    );
    Vec2::new(x, y)
}

/// Sums the weights of samples that play the same clip (e.g. Idle at several directions).
fn merge_by_clip(sparse: &SparseWeights, samples: &[BlendSample], st: &mut NodeState) {
    st.num_clips = 0;
    for &(sample, w) in sparse.as_slice() {
        let Some(clip) = samples.get(sample).map(|s| s.clip) else {
            continue;
        };
        if let Some(entry) = st.clip_weights[..st.num_clips]
            .iter_mut()
            .find(|e| e.0 == clip)
        {
            entry.1 += w;
        } else if st.num_clips < 3 {
            st.clip_weights[st.num_clips] = (clip, w);
            st.clip_sync_offsets[st.num_clips] = samples[sample].sync_offset;
            st.num_clips += 1;
        }
    }
    if st.num_clips == 0 {
        let first = samples.first();
        st.clip_weights[0] = (first.map_or(0, |s| s.clip), 1.0);
        st.clip_sync_offsets[0] = first.map_or(0.0, |s| s.sync_offset);
        st.num_clips = 1;
    }
}

struct Evaluate<'a> {
    asset: &'a GraphAsset,
    nodes: &'a [NodeState],
    machines: &'a mut [MachineState],
    /// Curve accumulators while evaluating the base layer (`None` for overlays).
    curves: Option<&'a mut [f32]>,
    sampled: Option<&'a mut Vec<SampledClip>>,
    curve_weight: f32,
    /// Joints given their rest transform instead of sampled (empty: none).
    culled: &'a [bool],
}

impl Evaluate<'_> {
    /// Samples a clip; `weight` is its share of the final pose, for curve blending.
    fn sample(
        &mut self,
        clip: usize,
        time_s: f32,
        out: &mut Pose,
        weight: f32,
    ) -> Result<(), GraphError> {
        let asset = self.asset;
        let clip_index = clip;
        let clip: &Clip = &asset.clips[clip];
        if self.culled.is_empty() {
            clip.sample(time_s, asset.skeleton.rest_local(), out)?;
        } else {
            clip.sample_culled(time_s, asset.skeleton.rest_local(), self.culled, out)?;
        }
        if let Some(sampled) = self.sampled.as_deref_mut() {
            let duration = clip.duration_s();
            let normalized_time = if duration > 0.0 {
                clip.local_time_s(time_s) / duration
            } else {
                0.0
            };
            // Capacity covers every node's samples; never grow in the tick.
            if sampled.len() < sampled.capacity() {
                sampled.push(SampledClip {
                    clip: clip_index,
                    weight,
                    normalized_time,
                });
            }
        }
        if let Some(curves) = self.curves.as_deref_mut() {
            if weight > 0.0 {
                let t = clip.local_time_s(time_s);
                for (curve, &id) in clip.curves().iter().zip(&asset.clip_curve_ids[clip_index]) {
                    curves[id] += weight * curve.track.sample(t);
                }
                self.curve_weight += weight;
            }
        }
        Ok(())
    }

    /// Turns accumulated curve sums into weighted means (a frozen crossfade snapshot
    /// contributes no curves, so the live side is renormalised).
    fn finish_curves(&mut self) {
        let total = self.curve_weight;
        if let Some(curves) = self.curves.as_deref_mut() {
            if total > 0.0 {
                curves.iter_mut().for_each(|c| *c /= total);
            }
        }
    }

    /// Writes `node`'s pose into `out`, using `scratch` for intermediate poses.
    fn evaluate(
        &mut self,
        node: NodeId,
        out: &mut Pose,
        scratch: &mut [Pose],
        weight: f32,
    ) -> Result<(), GraphError> {
        let asset = self.asset;
        let st = &self.nodes[node];
        match &asset.nodes[node] {
            Node::Clip { clip, .. } => self.sample(*clip, st.time_s, out, weight),
            Node::Blend { options, .. } => {
                let n = st.num_clips.min(scratch.len());
                if n == 0 {
                    return Ok(());
                }
                for ((&(clip, clip_weight), &offset), pose) in st.clip_weights[..n]
                    .iter()
                    .zip(&st.clip_sync_offsets)
                    .zip(scratch.iter_mut())
                {
                    let time_s = if options.sync {
                        // A one-shot held at its end stays on its last frame.
                        synced_time_s(&asset.clips[clip], st.phase, offset)
                    } else {
                        asset.clips[clip].local_time_of_elapsed_s(st.elapsed_s)
                    };
                    self.sample(clip, time_s, pose, weight * clip_weight)?;
                }
                let w = &st.clip_weights;
                match n {
                    1 => out.copy_from(&scratch[0])?,
                    2 => blend(&[(&scratch[0], w[0].1), (&scratch[1], w[1].1)], out)?,
                    _ => blend(
                        &[
                            (&scratch[0], w[0].1),
                            (&scratch[1], w[1].1),
                            (&scratch[2], w[2].1),
                        ],
                        out,
                    )?,
                }
                Ok(())
            }
            Node::Machine(machine) => self.evaluate_machine(*machine, out, scratch, weight),
        }
    }

    fn evaluate_machine(
        &mut self,
        machine: MachineId,
        out: &mut Pose,
        scratch: &mut [Pose],
        weight: f32,
    ) -> Result<(), GraphError> {
        let asset = self.asset;
        let m = machine.0 as usize;
        let def = &asset.machines[m];
        let current = self.machines[m].current;
        let current_node = def.states[current.0 as usize].1;
        let Some(fade) = self.machines[m].fade else {
            self.evaluate(current_node, out, scratch, weight)?;
            // Kept for a restart of the state (a transition from it to itself).
            self.machines[m].last_output.copy_from(out)?;
            return Ok(());
        };
        let Some((source_pose, rest)) = scratch.split_first_mut() else {
            return self.evaluate(current_node, out, scratch, weight);
        };
        let w = fade.target_weight();
        match fade.source {
            FadeSource::State(source) => {
                let source_node = def.states[source.0 as usize].1;
                self.evaluate(source_node, source_pose, rest, weight * (1.0 - w))?;
            }
            FadeSource::Snapshot => source_pose.copy_from(&self.machines[m].snapshot)?,
        }
        self.evaluate(current_node, out, rest, weight * w)?;
        // out = lerp(source, target, w): move the source toward the target, then copy.
        blend_layer(source_pose, out, w, None)?;
        out.copy_from(source_pose)?;
        self.machines[m].last_output.copy_from(out)?;
        Ok(())
    }
}

#[cfg(test)]
mod layer_weight_tests {
    use super::{inverse_smoothstep, ramp_toward, smoothstep};

    #[test]
    fn inverse_smoothstep_inverts() {
        for i in 0..=20 {
            let y = i as f32 / 20.0;
            assert!((smoothstep(inverse_smoothstep(y)) - y).abs() < 1e-5, "{y}");
        }
    }

    /// Switched on, the weight takes exactly the smoothing time, starts and ends at rest,
    /// and gets there the same at 30 and 144 Hz.
    #[test]
    fn the_weight_eases_in_over_the_smoothing_time() {
        for hz in [30.0f32, 60.0, 144.0] {
            let dt = 1.0 / hz;
            let (mut ramp, mut weights) = (0.0, vec![0.0]);
            for _ in 0..(0.3 * hz) as usize {
                ramp = ramp_toward(ramp, 1.0, 0.2, dt);
                weights.push(smoothstep(ramp));
            }
            // The weight after i ticks is smoothstep of the time over 0.2 s, whatever the rate.
            for (i, &w) in weights.iter().enumerate() {
                let wanted = smoothstep(i as f32 * dt / 0.2);
                assert!(
                    (w - wanted).abs() < 1e-4,
                    "{hz} Hz, tick {i}: {w} vs {wanted}"
                );
            }
            assert_eq!(weights.last(), Some(&1.0));
            // The first step is small: the weight starts at rest (smoothstep of one tick's
            // ramp), unlike an exponential approach's 22 % at 60 Hz.
            let first = weights[1];
            assert!(
                first < 3.0 * (dt / 0.2f32).powi(2) + 1e-6,
                "{hz} Hz: {first}"
            );
            // Going back down is the mirror image.
            let mut down = ramp;
            let ticks = (0.1 * hz).round();
            for _ in 0..ticks as usize {
                down = ramp_toward(down, 0.0, 0.2, dt);
            }
            let wanted = 1.0 - smoothstep(ticks * dt / 0.2);
            assert!((smoothstep(down) - wanted).abs() < 1e-4, "{hz} Hz");
        }
        // 0 s snaps; a target in between is held exactly.
        assert_eq!(smoothstep(ramp_toward(0.0, 1.0, 0.0, 0.016)), 1.0);
        let mut ramp = 0.0;
        for _ in 0..100 {
            ramp = ramp_toward(ramp, 0.3, 0.2, 1.0 / 60.0);
        }
        assert!((smoothstep(ramp) - 0.3).abs() < 1e-5);
    }
}
