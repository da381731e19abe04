//! The graph as data (GRAPH-6): serde types a RON file deserialises into, before names are
//! resolved against a skeleton, a clip set and the parameters. See `default_als.ron` for a
//! complete example.

use serde::{Deserialize, Serialize};

/// A whole animation graph: parameters, the base (full-body) node, overlay layers and how
/// root motion is extracted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphDef {
    /// Every parameter code may set, with its type and default.
    pub parameters: Vec<ParamDef>,
    /// The base layer: usually a state machine.
    pub base: NodeDef,
    /// Overlay layers blended over the base in order.
    #[serde(default)]
    pub layers: Vec<LayerDef>,
    #[serde(default)]
    pub root_motion: RootMotionDef,
}

/// A parameter declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamDef {
    Float(String, f32),
    Bool(String, bool),
    Vec2(String, (f32, f32)),
}

impl ParamDef {
    pub fn name(&self) -> &str {
        match self {
            ParamDef::Float(n, _) | ParamDef::Bool(n, _) | ParamDef::Vec2(n, _) => n,
        }
    }
}

/// A node of the graph: what produces a pose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NodeDef {
    /// Plays one clip. `rate` scales playback speed (default 1).
    Clip {
        clip: String,
        #[serde(default = "one")]
        rate: f32,
    },
    /// Blends clips placed along one parameter.
    BlendSpace1D {
        param: String,
        samples: Vec<Sample1D>,
        #[serde(default)]
        options: BlendSpaceOptions,
    },
    /// Blends clips placed on a plane of two parameters, through a Delaunay triangulation.
    BlendSpace2D {
        x_param: String,
        y_param: String,
        samples: Vec<Sample2D>,
        #[serde(default)]
        options: BlendSpaceOptions,
    },
    /// A state machine whose states hold nodes (so machines nest as sub-graphs).
    StateMachine(StateMachineDef),
}

fn one() -> f32 {
    1.0
}

/// A clip at a position on a 1D blend space's axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample1D {
    pub clip: String,
    pub position: f32,
    /// The gait's start phase (0..1) when the blend leaves rest heading for this sample
    /// (the most weight among the moving clips at the parameters' values, before any
    /// smoothing; on a 2D space with y raised to the slowest moving sample's): overrides
    /// the blend's `start_phase`, so a sidestep to the left can start on the left foot and
    /// one to the right on the right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_phase: Option<f32>,
}

/// A clip at a position on a 2D blend space's plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample2D {
    pub clip: String,
    pub position: (f32, f32),
    /// The gait's start phase (0..1) when the blend leaves rest heading for this sample
    /// (the most weight among the moving clips at the parameters' values, before any
    /// smoothing; on a 2D space with y raised to the slowest moving sample's): overrides
    /// the blend's `start_phase`, so a sidestep to the left can start on the left foot and
    /// one to the right on the right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_phase: Option<f32>,
}

/// How a blend space plays its clips.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BlendSpaceOptions {
    /// Clips share one normalized phase (weighted cycle length) so feet stay in step.
    pub sync: bool,
    /// Scale playback so the blended authored speed matches this parameter (m/s), e.g.
    /// `Some("speed")`; clamped to `rate_range`.
    pub match_speed_param: Option<String>,
    pub rate_range: (f32, f32),
    /// Seconds for the blend position to settle (within 5 %) after a step up / step down
    /// on each axis: the spec's Walk→Run 0.2 s and Run→Idle 0.3 s live here.
    pub smoothing_up_s: (f32, f32),
    pub smoothing_down_s: (f32, f32),
    /// An axis whose values wrap around (e.g. direction −180..180), smoothed the short way.
    pub x_wraps: Option<(f32, f32)>,
    /// Synced blends: the phase (0..1) the gait starts from when the blend leaves rest
    /// (all its weight on clips with no authored speed, e.g. Idle). Pick the phase where
    /// one foot is planted under the body as it is at rest, so that foot finishes its
    /// stance instead of starting a whole new one from behind. A sample's own
    /// `start_phase` wins while that sample leads.
    pub start_phase: Option<f32>,
}

impl Default for BlendSpaceOptions {
    fn default() -> Self {
        Self {
            sync: true,
            match_speed_param: None,
            rate_range: (0.5, 2.0),
            smoothing_up_s: (0.0, 0.0),
            smoothing_down_s: (0.0, 0.0),
            x_wraps: None,
            start_phase: None,
        }
    }
}

/// States and transitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateMachineDef {
    /// Name of the state entered first.
    pub initial: String,
    pub states: Vec<StateDef>,
    #[serde(default)]
    pub transitions: Vec<TransitionDef>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateDef {
    pub name: String,
    pub node: NodeDef,
}

/// A transition. Candidates leaving the current state are tried in declaration order and the
/// first whose trigger fires wins. `from: "*"` leaves any state (except `to` itself).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionDef {
    pub from: String,
    pub to: String,
    /// A condition over parameters, e.g. `is_grounded && speed < 0.1`. With `at_end` or
    /// `at_marker` it must also hold when that moment comes.
    #[serde(default)]
    pub condition: Option<String>,
    /// Crossfade length (seconds).
    #[serde(default = "default_crossfade_s")]
    pub duration_s: f32,
    #[serde(default, skip_serializing_if = "BlendCurve::is_linear")]
    pub curve: BlendCurve,
    /// Fire when the source state's clip has `duration_s` or less left to play.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_end: bool,
    /// Fire when the source state's clip crosses this marker (a clip event name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_marker: Option<String>,
    /// A synced blend entered by this transition starts its gait at this normalized phase
    /// (0..1), e.g. a landing that puts the leading foot down at its contact start.
    /// Without it the blend starts at phase 0 or at its `start_phase` leaving rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_phase: Option<f32>,
    /// A synced blend entered by this transition takes over the phase of the synced blend
    /// it leaves (ALS's sync across states): gaits whose feet are in step (left contact
    /// at 0, right at ½) cross-fade without one foot swinging in one and planted in the
    /// other. Without a synced source it falls back to `start_phase`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inherit_phase: bool,
}

fn default_crossfade_s() -> f32 {
    0.2
}

/// Crossfade weight over the transition's normalized time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlendCurve {
    #[default]
    Linear,
    /// Smoothstep: slow start and end.
    EaseInOut,
}

impl BlendCurve {
    /// The default curve (left out when a definition is written as RON).
    pub fn is_linear(&self) -> bool {
        *self == BlendCurve::Linear
    }

    /// Weight of the target at normalized time `t` (clamped to 0..=1).
    pub fn weight(self, t: f32) -> f32 {
        let t = if t.is_nan() { 1.0 } else { t.clamp(0.0, 1.0) };
        match self {
            BlendCurve::Linear => t,
            BlendCurve::EaseInOut => t * t * (3.0 - 2.0 * t),
        }
    }
}

/// An overlay layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerDef {
    pub name: String,
    pub node: NodeDef,
    /// The layer's weight comes from this float parameter (or a bool: 0/1), times `weight`.
    #[serde(default)]
    pub weight_param: Option<String>,
    #[serde(default = "one")]
    pub weight: f32,
    /// Per-bone weights; every joint inherits its nearest listed ancestor's weight (0 if
    /// none). Empty: the whole body at full weight.
    #[serde(default)]
    pub mask: Vec<(String, f32)>,
    /// Seconds the layer weight takes to go all the way from 0 to 1 (or back) after the
    /// parameter changes: it eases in and out (smoothstep), so the layer's bones start and
    /// stop moving gently instead of jumping on the first tick. 0 snaps.
    #[serde(default)]
    pub weight_smoothing_s: f32,
    /// Blend rotations in model space instead of locally (ALS's mesh-space rotation
    /// blend, see [`crate::pose::blend_layer_model_space`]): an upper-body aim keeps its
    /// chest facing where it was authored to face even over hips turned sideways, where a
    /// local blend would undo the spine's counter-turn. Default false.
    #[serde(default)]
    pub model_space_rotation: bool,
}

/// What happens to each component of the root joint's motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub enum RootAxis {
    /// Reported as a per-tick delta for the controller, removed from the pose.
    Extract,
    /// Removed from the pose and not reported (movement drives this axis).
    #[default]
    Discard,
    /// Left in the pose.
    Keep,
}

/// Root motion per axis (model space of the character: x left, y up, z forward).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(deny_unknown_fields, default)]
pub struct RootMotionDef {
    /// The joint whose motion is root motion (default: the skeleton's first joint).
    pub joint: Option<String>,
    pub x: RootAxis,
    pub y: RootAxis,
    pub z: RootAxis,
    pub yaw: RootAxis,
}

impl Default for RootMotionDef {
    /// Vertical and yaw extracted; horizontal translation discarded (SPEC GRAPH-5).
    fn default() -> Self {
        Self {
            joint: None,
            x: RootAxis::Discard,
            y: RootAxis::Extract,
            z: RootAxis::Discard,
            yaw: RootAxis::Extract,
        }
    }
}
