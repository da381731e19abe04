//! A graph compiled against a skeleton and a clip set: names resolved, expressions parsed,
//! blend spaces triangulated, masks built. Immutable and shareable (`Arc`) between the
//! characters that use it; each character owns a [`super::GraphInstance`].

use std::collections::HashMap;

use glam::Vec2;

use super::blend_space::{BlendSpace1D, BlendSpace2D, BlendSpaceError};
use super::def::{
    BlendCurve, GraphDef, LayerDef, NodeDef, ParamDef, RootMotionDef, StateMachineDef,
};
use super::events::{EventNameId, MachineId, StateId};
use super::expr::{Expr, ExprError};
use super::params::{BoolParam, FloatParam, ParamError, ParamId, ParamKind, ParamSet};
use crate::clip::Clip;
use crate::pose::{BoneMask, PoseError};
use crate::skeleton::Skeleton;

pub use crate::source_pos::SourcePos;

/// What is wrong with a graph definition. A variant that wraps another error says it in
/// its message and gives no `source()`, so a report printing the chain says it once.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GraphProblem {
    #[error("RON syntax: {0}")]
    Syntax(String),
    #[error("unknown clip '{0}'")]
    UnknownClip(String),
    #[error("unknown parameter '{0}'")]
    UnknownParameter(String),
    #[error("parameter '{name}': {error}")]
    Parameter { name: String, error: ParamError },
    #[error("unknown bone '{0}'")]
    UnknownBone(String),
    #[error("unknown state '{0}'")]
    UnknownState(String),
    #[error("two states are named '{0}'")]
    DuplicateState(String),
    #[error("state machine has no states")]
    NoStates,
    #[error("bad expression '{expression}': {error}")]
    BadExpression {
        expression: String,
        error: ExprError,
    },
    #[error("blend space: {0}")]
    BlendSpace(BlendSpaceError),
    #[error("blend space has no samples")]
    EmptyBlendSpace,
    #[error("mask: {0}")]
    Mask(PoseError),
    #[error("{what} must be finite and not negative, got {value}")]
    BadNumber { what: &'static str, value: f32 },
    #[error("marker '{marker}' is not an event of any clip of state '{state}'")]
    UnknownMarker { marker: String, state: String },
    #[error("clip '{clip}' was built for {tracks} joints but the skeleton has {joints}")]
    ClipJointCount {
        clip: String,
        tracks: usize,
        joints: usize,
    },
    #[error("graph nests deeper than {0} levels")]
    TooDeep(usize),
    /// A graph generated from a clip-role map could not be made (see
    /// [`super::roles::GenerateError`]).
    #[error("from the role map: {0}")]
    Roles(String),
    /// The built-in clip set could not be authored on the rig (see
    /// `plantigrade::mannequin::generate_clips`).
    #[error("authoring the built-in clip set on the rig: {0}")]
    Generated(String),
}

/// A graph that failed to load: the problem and where it is in the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{problem}", .pos.map(|p| format!("{p}: ")).unwrap_or_default())]
pub struct GraphLoadError {
    pub pos: Option<SourcePos>,
    pub problem: GraphProblem,
}

/// Index of a node in the asset's node list.
pub type NodeId = usize;

/// A float or bool parameter read as a float (bool: 0 or 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ScalarParam {
    Float(FloatParam),
    Bool(BoolParam),
}

impl ScalarParam {
    pub(crate) fn get(self, params: &ParamSet) -> f32 {
        match self {
            ScalarParam::Float(p) => params.get_float(p),
            ScalarParam::Bool(p) => f32::from(u8::from(params.get_bool(p))),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum BlendSpace {
    One(BlendSpace1D),
    Two(BlendSpace2D),
}

/// Compiled blend-space playback options.
#[derive(Clone, Debug)]
pub(crate) struct BlendOptions {
    pub sync: bool,
    pub match_speed: Option<FloatParam>,
    pub rate_range: (f32, f32),
    pub smoothing_up_s: Vec2,
    pub smoothing_down_s: Vec2,
    pub x_wraps: Option<(f32, f32)>,
    pub start_phase: Option<f32>,
}

/// One sample of a compiled blend space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlendSample {
    pub clip: usize,
    /// See [`super::def::Sample2D::start_phase`].
    pub start_phase: Option<f32>,
    /// A synced blend plays this sample's clip at the shared phase plus this (0 ≤ o < 1):
    /// its left touch-down's phase less that of the blend's first gait that has one, so
    /// gaits whose cycles start at different points of the stride (common in third-party
    /// clips) put their feet down together. One sync marker per cycle
    /// ([`Clip::left_foot_down_phase`]); 0 for clips without one, and in unsynced blends.
    pub sync_offset: f32,
}

/// Where a synced blend at `phase` samples `clip` (s): the shared phase shifted by the
/// sample's `sync_offset`. Without an offset a one-shot clip holds its end at phase 1.
pub(crate) fn synced_time_s(clip: &Clip, phase: f32, sync_offset: f32) -> f32 {
    let phase = if sync_offset == 0.0 {
        phase
    } else {
        (phase + sync_offset).rem_euclid(1.0)
    };
    phase * clip.duration_s()
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Clip {
        clip: usize,
        rate: f32,
    },
    Blend {
        x: FloatParam,
        y: Option<FloatParam>,
        space: BlendSpace,
        samples: Vec<BlendSample>,
        options: BlendOptions,
    },
    Machine(MachineId),
}

#[derive(Clone, Debug)]
pub(crate) struct Transition {
    /// `None`: from any state.
    pub from: Option<StateId>,
    pub to: StateId,
    pub condition: Option<Expr>,
    pub duration_s: f32,
    pub curve: BlendCurve,
    pub at_end: bool,
    pub at_marker: Option<EventNameId>,
    /// Entry phase of a synced blend in the destination (0..1).
    pub start_phase: Option<f32>,
    /// The destination's synced blend takes the source's phase.
    pub inherit_phase: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Machine {
    pub name: String,
    pub states: Vec<(String, NodeId)>,
    pub initial: StateId,
    pub transitions: Vec<Transition>,
}

#[derive(Clone, Debug)]
pub(crate) struct Layer {
    pub name: String,
    pub node: NodeId,
    pub weight_param: Option<ScalarParam>,
    pub weight: f32,
    pub mask: Option<BoneMask>,
    pub weight_smoothing_s: f32,
    pub model_space_rotation: bool,
}

/// A compiled, immutable animation graph.
#[derive(Clone, Debug)]
pub struct GraphAsset {
    pub(crate) skeleton: Skeleton,
    pub(crate) clips: Vec<Clip>,
    /// Event-name id per event of each clip (parallel to `Clip::events`).
    pub(crate) clip_event_names: Vec<Vec<EventNameId>>,
    pub(crate) event_names: Vec<String>,
    /// Float-curve names over all clips, and per clip the curve id of each of its curves.
    pub(crate) curve_names: Vec<String>,
    pub(crate) clip_curve_ids: Vec<Vec<usize>>,
    /// Per clip, per curve id: the phases (0..1, ascending) where the curve rises through
    /// 0.5 (a foot's touch-down on `FootContact_*`); empty for curves the clip lacks.
    pub(crate) curve_rises: Vec<Vec<Vec<f32>>>,
    pub(crate) params: ParamSet,
    pub(crate) nodes: Vec<Node>,
    pub(crate) machines: Vec<Machine>,
    pub(crate) base: NodeId,
    pub(crate) layers: Vec<Layer>,
    pub(crate) root_motion: RootMotionDef,
    pub(crate) root_joint: usize,
    /// Scratch poses an evaluation needs (deepest nesting × poses per level).
    pub(crate) scratch_poses: usize,
}

/// The phases (0..1, ascending) where `curve` rises through 0.5 over one pass of `clip`,
/// sampled at 240 Hz (at least 64 samples) and bisected to within 1/64 of a sample. A
/// looping clip's rise across its end counts at phase 0.
fn curve_rise_phases(clip: &Clip, curve: &crate::clip::FloatCurve) -> Vec<f32> {
    let duration = clip.duration_s();
    if !duration.is_finite() || duration <= 0.0 {
        return Vec::new();
    }
    let above = |phase: f32| curve.track.sample(clip.time_at_phase_s(phase)) >= 0.5;
    let samples = ((duration * 240.0).ceil() as usize).clamp(64, 1 << 16);
    let step = 1.0 / samples as f32;
    let mut rises = Vec::new();
    // Before phase 0: the end of the loop, or nothing for a one-shot clip.
    let mut was_above = clip.is_looping() && above(1.0 - 0.5 * step);
    for k in 0..samples {
        let phase = k as f32 * step;
        let now = above(phase);
        if now && !was_above {
            let (mut lo, mut hi) = ((phase - step).max(0.0), phase);
            if k > 0 {
                for _ in 0..6 {
                    let mid = 0.5 * (lo + hi);
                    if above(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
            }
            rises.push(hi);
        }
        was_above = now;
    }
    rises
}

/// Deepest nesting of state machines and blend spaces accepted.
pub const MAX_GRAPH_DEPTH: usize = 16;

impl GraphAsset {
    /// Parses a RON graph and compiles it against `skeleton` and `clips`.
    pub fn from_ron(
        source: &str,
        skeleton: &Skeleton,
        clips: Vec<Clip>,
    ) -> Result<Self, GraphLoadError> {
        let def: GraphDef = ron::from_str(source).map_err(|e| GraphLoadError {
            pos: Some(SourcePos::of_ron_error(&e)),
            problem: GraphProblem::Syntax(e.code.to_string()),
        })?;
        Self::compile(&def, skeleton, clips).map_err(|(problem, anchor)| GraphLoadError {
            pos: anchor.and_then(|a| locate(source, &a)),
            problem,
        })
    }

    /// Where the graph takes root motion from (joint and axes), as its file says.
    pub fn root_motion(&self) -> &RootMotionDef {
        &self.root_motion
    }

    /// Compiles an already-parsed definition; errors carry no file position.
    pub fn from_def(
        def: &GraphDef,
        skeleton: &Skeleton,
        clips: Vec<Clip>,
    ) -> Result<Self, GraphLoadError> {
        Self::compile(def, skeleton, clips)
            .map_err(|(problem, _)| GraphLoadError { pos: None, problem })
    }

    fn compile(
        def: &GraphDef,
        skeleton: &Skeleton,
        clips: Vec<Clip>,
    ) -> Result<Self, (GraphProblem, Option<Anchor>)> {
        for clip in &clips {
            if clip.joint_tracks().len() != skeleton.num_joints() {
                return Err((
                    GraphProblem::ClipJointCount {
                        clip: clip.name().to_string(),
                        tracks: clip.joint_tracks().len(),
                        joints: skeleton.num_joints(),
                    },
                    None,
                ));
            }
        }
        let mut params = ParamSet::new();
        for p in &def.parameters {
            let result = match p {
                ParamDef::Float(n, v) => params.add_float(n, *v).map(|_| ()),
                ParamDef::Bool(n, v) => params.add_bool(n, *v).map(|_| ()),
                ParamDef::Vec2(n, (x, y)) => params.add_vec2(n, Vec2::new(*x, *y)).map(|_| ()),
            };
            result.map_err(|error| {
                (
                    GraphProblem::Parameter {
                        name: p.name().to_string(),
                        error,
                    },
                    Some(Anchor::quoted(p.name())),
                )
            })?;
        }
        let mut event_names: Vec<String> = Vec::new();
        let mut event_index: HashMap<String, EventNameId> = HashMap::new();
        let clip_event_names: Vec<Vec<EventNameId>> = clips
            .iter()
            .map(|clip| {
                clip.events()
                    .iter()
                    .map(|e| intern(&mut event_names, &mut event_index, &e.name))
                    .collect()
            })
            .collect();
        let mut curve_names: Vec<String> = Vec::new();
        let clip_curve_ids = clips
            .iter()
            .map(|clip| {
                clip.curves()
                    .iter()
                    .map(|c| match curve_names.iter().position(|n| *n == c.name) {
                        Some(i) => i,
                        None => {
                            curve_names.push(c.name.clone());
                            curve_names.len() - 1
                        }
                    })
                    .collect()
            })
            .collect();
        let root_joint = match &def.root_motion.joint {
            Some(name) => skeleton.find(name).ok_or_else(|| {
                (
                    GraphProblem::UnknownBone(name.clone()),
                    Some(Anchor::quoted(name)),
                )
            })?,
            None => 0,
        };
        let mut compiler = Compiler {
            skeleton,
            clips: &clips,
            params: &params,
            clip_event_names: &clip_event_names,
            event_index: &event_index,
            nodes: Vec::new(),
            machines: Vec::new(),
        };
        let (base, base_depth) = compiler.node(&def.base, "base", 0)?;
        let mut scratch_poses = base_depth;
        let mut layers = Vec::with_capacity(def.layers.len());
        for layer in &def.layers {
            let (node, depth) = compiler.node(&layer.node, &layer.name, 0)?;
            // One pose holds the layer's result while its node evaluates.
            scratch_poses = scratch_poses.max(depth + 1);
            layers.push(compiler.layer(layer, node)?);
        }
        let (nodes, machines) = (compiler.nodes, compiler.machines);
        let curve_rises = clips
            .iter()
            .map(|clip| {
                (0..curve_names.len())
                    .map(|id| {
                        clip.curve(&curve_names[id])
                            .map_or_else(Vec::new, |c| curve_rise_phases(clip, c))
                    })
                    .collect()
            })
            .collect();
        Ok(Self {
            skeleton: skeleton.clone(),
            clips,
            clip_event_names,
            event_names,
            curve_names,
            clip_curve_ids,
            curve_rises,
            params,
            nodes,
            machines,
            base,
            layers,
            root_motion: def.root_motion.clone(),
            root_joint,
            scratch_poses,
        })
    }

    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// How far ahead (in phase, 0 < d ≤ 1) curve `curve_id` of clip `clip` next rises
    /// through 0.5 from `phase` (a foot's next touch-down on `FootContact_*`), wrapping
    /// around a looping clip; `None` when the clip lacks the curve or it never rises
    /// ahead. Found once per clip at load, so this is a short search.
    pub fn phase_to_curve_rise(&self, clip: usize, curve_id: usize, phase: f32) -> Option<f32> {
        let rises = self.curve_rises.get(clip)?.get(curve_id)?;
        if !phase.is_finite() {
            return None;
        }
        if let Some(&next) = rises.iter().find(|&&r| r > phase) {
            return Some(next - phase);
        }
        let looping = self.clips.get(clip)?.is_looping();
        let first = *rises.first()?;
        looping.then_some(first + 1.0 - phase)
    }

    /// The clips the graph plays from, in the order given at load.
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// The parameters with their defaults (each instance gets a copy).
    pub fn params(&self) -> &ParamSet {
        &self.params
    }

    /// Name of an interned clip event.
    pub fn event_name(&self, id: EventNameId) -> &str {
        self.event_names
            .get(id.0 as usize)
            .map_or("", String::as_str)
    }

    /// Id of a clip event name, to compare with [`super::GraphEvent::Clip`] without strings.
    pub fn event_id(&self, name: &str) -> Option<EventNameId> {
        self.event_names
            .iter()
            .position(|n| n == name)
            .map(|i| EventNameId(i as u32))
    }

    /// Index of a float curve (e.g. `FootContact_L`) for [`super::GraphInstance::curve`].
    pub fn curve_id(&self, name: &str) -> Option<usize> {
        self.curve_names.iter().position(|n| n == name)
    }

    /// Names of every float curve the graph's clips carry (index = curve id).
    pub fn curve_names(&self) -> &[String] {
        &self.curve_names
    }

    /// Number of state machines (the base machine is 0 when the base node is a machine).
    pub fn num_machines(&self) -> usize {
        self.machines.len()
    }

    /// A state machine's name: the state (or layer) that holds it, `base` for the root.
    pub fn machine_name(&self, machine: MachineId) -> &str {
        self.machines
            .get(machine.0 as usize)
            .map_or("", |m| m.name.as_str())
    }

    /// The machine with this name.
    pub fn machine_id(&self, name: &str) -> Option<MachineId> {
        self.machines
            .iter()
            .position(|m| m.name == name)
            .map(|i| MachineId(i as u16))
    }

    /// Names of a machine's states, in declaration order (index = [`StateId`]).
    pub fn state_names(&self, machine: MachineId) -> impl Iterator<Item = &str> {
        self.machines
            .get(machine.0 as usize)
            .into_iter()
            .flat_map(|m| m.states.iter().map(|(n, _)| n.as_str()))
    }

    pub fn state_name(&self, machine: MachineId, state: StateId) -> &str {
        self.machines
            .get(machine.0 as usize)
            .and_then(|m| m.states.get(state.0 as usize))
            .map_or("", |(n, _)| n.as_str())
    }

    pub fn state_id(&self, machine: MachineId, name: &str) -> Option<StateId> {
        let m = self.machines.get(machine.0 as usize)?;
        m.states
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| StateId(i as u16))
    }

    /// `(from, to, condition, duration_s)` of each transition of a machine, for listings.
    pub fn transitions(&self, machine: MachineId) -> Vec<(String, String, String, f32)> {
        let Some(m) = self.machines.get(machine.0 as usize) else {
            return Vec::new();
        };
        m.transitions
            .iter()
            .map(|t| {
                let from = t
                    .from
                    .map_or("*".to_string(), |s| m.states[s.0 as usize].0.clone());
                let to = m.states[t.to.0 as usize].0.clone();
                let mut cond = t
                    .condition
                    .as_ref()
                    .map(|c| c.source().to_string())
                    .unwrap_or_default();
                if t.at_end {
                    cond = join_trigger(cond, "at end");
                }
                if let Some(marker) = t.at_marker {
                    cond = join_trigger(cond, &format!("at marker '{}'", self.event_name(marker)));
                }
                (from, to, cond, t.duration_s)
            })
            .collect()
    }

    /// Names of the overlay layers.
    pub fn layer_names(&self) -> impl Iterator<Item = &str> {
        self.layers.iter().map(|l| l.name.as_str())
    }
}

fn join_trigger(cond: String, trigger: &str) -> String {
    if cond.is_empty() {
        trigger.to_string()
    } else {
        format!("{cond} ({trigger})")
    }
}

fn intern(
    names: &mut Vec<String>,
    index: &mut HashMap<String, EventNameId>,
    name: &str,
) -> EventNameId {
    if let Some(&id) = index.get(name) {
        return id;
    }
    let id = EventNameId(names.len() as u32);
    names.push(name.to_string());
    index.insert(name.to_string(), id);
    id
}

/// What to look for in the source to place an error: a quoted name, optionally with an
/// offset into it (for expression errors).
#[derive(Clone, Debug)]
struct Anchor {
    text: String,
    offset_chars: usize,
    /// Which occurrence of the literal (0 = first), e.g. 1 for a duplicate's second use.
    nth: usize,
}

impl Anchor {
    fn quoted(name: &str) -> Self {
        Self {
            text: name.to_string(),
            offset_chars: 0,
            nth: 0,
        }
    }
}

/// Where an anchor's literal is in `source`.
fn locate(source: &str, anchor: &Anchor) -> Option<SourcePos> {
    SourcePos::of_quoted(source, &anchor.text, anchor.nth, anchor.offset_chars)
}

type CompileResult<T> = Result<T, (GraphProblem, Option<Anchor>)>;

struct Compiler<'a> {
    skeleton: &'a Skeleton,
    clips: &'a [Clip],
    params: &'a ParamSet,
    clip_event_names: &'a [Vec<EventNameId>],
    event_index: &'a HashMap<String, EventNameId>,
    nodes: Vec<Node>,
    machines: Vec<Machine>,
}

impl Compiler<'_> {
    fn clip(&self, name: &str) -> CompileResult<usize> {
        self.clips
            .iter()
            .position(|c| c.name() == name)
            .ok_or_else(|| {
                (
                    GraphProblem::UnknownClip(name.to_string()),
                    Some(Anchor::quoted(name)),
                )
            })
    }

    fn float_param(&self, name: &str) -> CompileResult<FloatParam> {
        self.params.float(name).map_err(|e| param_problem(name, e))
    }

    fn scalar_param(&self, name: &str) -> CompileResult<ScalarParam> {
        match self.params.id(name) {
            Ok(ParamId::Float(p)) => Ok(ScalarParam::Float(p)),
            Ok(ParamId::Bool(p)) => Ok(ScalarParam::Bool(p)),
            Ok(ParamId::Vec2(_)) => Err(param_problem(
                name,
                ParamError::WrongType {
                    name: name.to_string(),
                    expected: ParamKind::Float,
                    found: ParamKind::Vec2,
                },
            )),
            Err(e) => Err(param_problem(name, e)),
        }
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Compiles a node; returns its id and the scratch poses its evaluation needs.
    fn node(&mut self, def: &NodeDef, name: &str, depth: usize) -> CompileResult<(NodeId, usize)> {
        if depth > MAX_GRAPH_DEPTH {
            return Err((
                GraphProblem::TooDeep(MAX_GRAPH_DEPTH),
                Some(Anchor::quoted(name)),
            ));
        }
        match def {
            NodeDef::Clip { clip, rate } => {
                let clip = self.clip(clip)?;
                let rate = finite_non_negative("clip rate", *rate, name)?;
                Ok((self.push(Node::Clip { clip, rate }), 0))
            }
            NodeDef::BlendSpace1D {
                param,
                samples,
                options,
            } => {
                let x = self.float_param(param)?;
                let clips: Vec<&str> = samples.iter().map(|s| s.clip.as_str()).collect();
                let positions: Vec<f32> = samples.iter().map(|s| s.position).collect();
                let starts: Vec<Option<f32>> = samples.iter().map(|s| s.start_phase).collect();
                let space = BlendSpace1D::new(&positions).map(BlendSpace::One);
                self.blend_node(name, x, None, (&clips, &starts), space, options)
            }
            NodeDef::BlendSpace2D {
                x_param,
                y_param,
                samples,
                options,
            } => {
                let x = self.float_param(x_param)?;
                let y = self.float_param(y_param)?;
                let clips: Vec<&str> = samples.iter().map(|s| s.clip.as_str()).collect();
                let positions: Vec<Vec2> = samples
                    .iter()
                    .map(|s| Vec2::new(s.position.0, s.position.1))
                    .collect();
                let starts: Vec<Option<f32>> = samples.iter().map(|s| s.start_phase).collect();
                let space = BlendSpace2D::new(&positions).map(BlendSpace::Two);
                self.blend_node(name, x, Some(y), (&clips, &starts), space, options)
            }
            NodeDef::StateMachine(machine) => self.machine(machine, name, depth),
        }
    }

    /// A blend-space node over `clip_names` and `start_phases` (one each per sample); it
    /// samples up to three poses into scratch and blends them into the output.
    fn blend_node(
        &mut self,
        name: &str,
        x: FloatParam,
        y: Option<FloatParam>,
        (clip_names, start_phases): (&[&str], &[Option<f32>]),
        space: Result<BlendSpace, BlendSpaceError>,
        options: &super::def::BlendSpaceOptions,
    ) -> CompileResult<(NodeId, usize)> {
        if clip_names.is_empty() {
            return Err((GraphProblem::EmptyBlendSpace, Some(Anchor::quoted(name))));
        }
        let clips = clip_names
            .iter()
            .map(|c| self.clip(c))
            .collect::<CompileResult<Vec<_>>>()?;
        let space = space.map_err(|e| blend_problem(e, clip_names))?;
        let options = self.options(options, name)?;
        for phase in start_phases.iter().flatten() {
            check_phase("sample start_phase", *phase, name)?;
        }
        let touch_downs: Vec<Option<f32>> = clips
            .iter()
            .map(|&c| {
                let clip = &self.clips[c];
                clip.left_foot_down_phase()
                    .filter(|_| options.sync && clip.is_looping())
            })
            .collect();
        let reference = touch_downs.iter().flatten().next().copied();
        let samples = clips
            .into_iter()
            .zip(start_phases)
            .zip(touch_downs)
            .map(|((clip, &start_phase), touch_down)| BlendSample {
                clip,
                start_phase,
                sync_offset: match (touch_down, reference) {
                    (Some(t), Some(r)) => (t - r).rem_euclid(1.0),
                    _ => 0.0,
                },
            })
            .collect();
        let node = self.push(Node::Blend {
            x,
            y,
            space,
            samples,
            options,
        });
        Ok((node, 3))
    }

    fn options(
        &self,
        def: &super::def::BlendSpaceOptions,
        name: &str,
    ) -> CompileResult<BlendOptions> {
        let match_speed = match &def.match_speed_param {
            Some(p) => Some(self.float_param(p)?),
            None => None,
        };
        for (what, v) in [
            ("smoothing_up_s", def.smoothing_up_s.0),
            ("smoothing_up_s", def.smoothing_up_s.1),
            ("smoothing_down_s", def.smoothing_down_s.0),
            ("smoothing_down_s", def.smoothing_down_s.1),
            ("rate_range", def.rate_range.0),
            ("rate_range", def.rate_range.1),
        ] {
            finite_non_negative(what, v, name)?;
        }
        if let Some((lo, hi)) = def.x_wraps {
            if !(lo.is_finite() && hi.is_finite() && hi > lo) {
                return Err((
                    GraphProblem::BadNumber {
                        what: "x_wraps range",
                        value: hi - lo,
                    },
                    Some(Anchor::quoted(name)),
                ));
            }
        }
        if let Some(phase) = def.start_phase {
            check_phase("start_phase", phase, name)?;
        }
        Ok(BlendOptions {
            sync: def.sync,
            start_phase: def.start_phase,
            match_speed,
            rate_range: def.rate_range,
            smoothing_up_s: Vec2::new(def.smoothing_up_s.0, def.smoothing_up_s.1),
            smoothing_down_s: Vec2::new(def.smoothing_down_s.0, def.smoothing_down_s.1),
            x_wraps: def.x_wraps,
        })
    }

    fn machine(
        &mut self,
        def: &StateMachineDef,
        name: &str,
        depth: usize,
    ) -> CompileResult<(NodeId, usize)> {
        if def.states.is_empty() {
            return Err((GraphProblem::NoStates, Some(Anchor::quoted(name))));
        }
        let machine_id = MachineId(self.machines.len() as u16);
        // Reserve the slot so nested machines get later ids.
        self.machines.push(Machine {
            name: name.to_string(),
            states: Vec::new(),
            initial: StateId(0),
            transitions: Vec::new(),
        });
        let mut states: Vec<(String, NodeId)> = Vec::with_capacity(def.states.len());
        let mut deepest = 0;
        for state in &def.states {
            if states.iter().any(|(n, _)| *n == state.name) {
                // Point at the second declaration, after every earlier use of the name.
                let earlier = source_uses(def, &state.name);
                let anchor = Anchor {
                    nth: earlier,
                    ..Anchor::quoted(&state.name)
                };
                return Err((
                    GraphProblem::DuplicateState(state.name.clone()),
                    Some(anchor),
                ));
            }
            let (node, needs) = self.node(&state.node, &state.name, depth + 1)?;
            deepest = deepest.max(needs);
            states.push((state.name.clone(), node));
        }
        let find_state = |n: &str| -> CompileResult<StateId> {
            states
                .iter()
                .position(|(s, _)| s == n)
                .map(|i| StateId(i as u16))
                .ok_or_else(|| {
                    (
                        GraphProblem::UnknownState(n.to_string()),
                        Some(Anchor::quoted(n)),
                    )
                })
        };
        let initial = find_state(&def.initial)?;
        let mut transitions = Vec::with_capacity(def.transitions.len());
        for t in &def.transitions {
            let from = if t.from == "*" {
                None
            } else {
                Some(find_state(&t.from)?)
            };
            let to = find_state(&t.to)?;
            let condition = match &t.condition {
                Some(src) => Some(Expr::parse(src, self.params).map_err(|error| {
                    let offset_chars = error.column().saturating_sub(1);
                    (
                        GraphProblem::BadExpression {
                            expression: src.clone(),
                            error,
                        },
                        Some(Anchor {
                            text: src.clone(),
                            offset_chars,
                            nth: 0,
                        }),
                    )
                })?),
                None => None,
            };
            let duration_s = finite_non_negative("transition duration_s", t.duration_s, &t.to)?;
            let at_marker = match &t.at_marker {
                Some(marker) => {
                    let id = self.event_index.get(marker).copied();
                    let from_states: Vec<usize> = match from {
                        Some(s) => vec![s.0 as usize],
                        None => (0..states.len()).collect(),
                    };
                    let found = id.is_some_and(|id| {
                        from_states
                            .iter()
                            .any(|&s| self.node_has_event(states[s].1, id))
                    });
                    match (found, id) {
                        (true, Some(id)) => Some(id),
                        _ => {
                            return Err((
                                GraphProblem::UnknownMarker {
                                    marker: marker.clone(),
                                    state: t.from.clone(),
                                },
                                Some(Anchor::quoted(marker)),
                            ))
                        }
                    }
                }
                None => None,
            };
            let start_phase = match t.start_phase {
                Some(p) if (0.0..=1.0).contains(&p) => Some(p.rem_euclid(1.0)),
                Some(value) => {
                    return Err((
                        GraphProblem::BadNumber {
                            what: "transition start_phase",
                            value,
                        },
                        Some(Anchor::quoted(&t.to)),
                    ))
                }
                None => None,
            };
            transitions.push(Transition {
                from,
                to,
                condition,
                duration_s,
                curve: t.curve,
                at_end: t.at_end,
                at_marker,
                start_phase,
                inherit_phase: t.inherit_phase,
            });
        }
        self.machines[machine_id.0 as usize] = Machine {
            name: name.to_string(),
            states,
            initial,
            transitions,
        };
        // One pose for the crossfade's other side.
        Ok((self.push(Node::Machine(machine_id)), deepest + 1))
    }

    fn node_has_event(&self, node: NodeId, id: EventNameId) -> bool {
        match &self.nodes[node] {
            Node::Clip { clip, .. } => self.clip_event_names[*clip].contains(&id),
            Node::Blend { samples, .. } => samples
                .iter()
                .any(|s| self.clip_event_names[s.clip].contains(&id)),
            Node::Machine(m) => self.machines[m.0 as usize]
                .states
                .iter()
                .any(|&(_, n)| self.node_has_event(n, id)),
        }
    }

    fn layer(&self, def: &LayerDef, node: NodeId) -> CompileResult<Layer> {
        let weight_param = match &def.weight_param {
            Some(p) => Some(self.scalar_param(p)?),
            None => None,
        };
        let weight = finite_non_negative("layer weight", def.weight, &def.name)?;
        let weight_smoothing_s =
            finite_non_negative("weight_smoothing_s", def.weight_smoothing_s, &def.name)?;
        let mask = if def.mask.is_empty() {
            None
        } else {
            let pairs: Vec<(&str, f32)> = def.mask.iter().map(|(n, w)| (n.as_str(), *w)).collect();
            Some(
                BoneMask::from_chain_weights(self.skeleton, &pairs).map_err(|e| {
                    let anchor = match &e {
                        PoseError::UnknownBone(b) | PoseError::BadMaskWeight { bone: b, .. } => {
                            Some(Anchor::quoted(b))
                        }
                        _ => Some(Anchor::quoted(&def.name)),
                    };
                    match e {
                        PoseError::UnknownBone(b) => (GraphProblem::UnknownBone(b), anchor),
                        other => (GraphProblem::Mask(other), anchor),
                    }
                })?,
            )
        };
        Ok(Layer {
            name: def.name.clone(),
            node,
            weight_param,
            weight,
            mask,
            weight_smoothing_s,
            model_space_rotation: def.model_space_rotation,
        })
    }
}

/// A phase must lie in 0..=1.
fn check_phase(what: &'static str, phase: f32, name: &str) -> CompileResult<()> {
    if (0.0..=1.0).contains(&phase) {
        Ok(())
    } else {
        Err((
            GraphProblem::BadNumber { what, value: phase },
            Some(Anchor::quoted(name)),
        ))
    }
}

fn param_problem(name: &str, e: ParamError) -> (GraphProblem, Option<Anchor>) {
    let problem = match e {
        ParamError::Unknown { .. } => GraphProblem::UnknownParameter(name.to_string()),
        other => GraphProblem::Parameter {
            name: name.to_string(),
            error: other,
        },
    };
    (problem, Some(Anchor::quoted(name)))
}

fn blend_problem(e: BlendSpaceError, clips: &[&str]) -> (GraphProblem, Option<Anchor>) {
    let anchor = match e {
        BlendSpaceError::Duplicate { second, .. } => clips.get(second).map(|c| Anchor::quoted(c)),
        BlendSpaceError::NonFinite { index } => clips.get(index).map(|c| Anchor::quoted(c)),
        _ => None,
    };
    (GraphProblem::BlendSpace(e), anchor)
}

fn finite_non_negative(what: &'static str, value: f32, near: &str) -> CompileResult<f32> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err((
            GraphProblem::BadNumber { what, value },
            Some(Anchor::quoted(near)),
        ))
    }
}

/// How often `name` appears as a quoted literal in a machine before its second state
/// declaration: the initial state name (if it is `name`) and the first declaration.
fn source_uses(def: &StateMachineDef, name: &str) -> usize {
    usize::from(def.initial == name) + 1
}
