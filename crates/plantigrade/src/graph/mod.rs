//! Animation graph (SPEC GRAPH): parameters, condition expressions, blend spaces.
//!
//! - [`params`] (GRAPH-1): a [`ParamSet`] of named float / bool / vec2 slots, resolved once
//!   into typed handles ([`FloatParam`], [`BoolParam`], [`Vec2Param`]) and set each tick
//!   without string lookups; [`names`] lists the standard ALS parameters.
//! - [`expr`] (GRAPH-3 conditions): [`Expr`], a transition condition such as
//!   `is_grounded && speed < 0.1`, parsed and type-checked once, evaluated each tick
//!   without allocation.
//! - [`blend_space`] (GRAPH-2): [`BlendSpace1D`] and Delaunay-based [`BlendSpace2D`]
//!   weights, [`SyncGroup`] phase sync and [`SpeedScaling`] playback rates.
//! - [`def`] (GRAPH-6): the RON data model; [`asset`] compiles it against a skeleton and
//!   clips into a shareable [`GraphAsset`], with errors naming line, column and problem.
//! - [`instance`]: one character's [`GraphInstance`]: state machines with crossfades
//!   (GRAPH-3), overlay layers (GRAPH-4), root motion (GRAPH-5, [`root_motion`]), events
//!   (GRAPH-7, [`events`]) and pause (GRAPH-8).
//! - [`root_source`]: which joint carries a rig's root motion (a root above the pelvis, or
//!   the pelvis itself), in-place clips, and root-motion settings that do not fit a rig.
//! - [`roles`]: a [`roles::ClipRoles`] map (which clip is the idle, the walk forward, the
//!   jump start …, from RON) and [`roles::generate_graph`], which builds a graph like the
//!   default one from it, placing each gait at its measured speed.

pub mod asset;
pub mod blend_space;
pub mod def;
pub mod events;
pub mod expr;
pub mod instance;
mod param_scale;
pub mod params;
pub mod roles;
pub mod root_motion;
pub mod root_source;
mod speed_fit;

pub use asset::{GraphAsset, GraphLoadError, GraphProblem, SourcePos};
pub use blend_space::{
    clip_playback_rate, shared_cycle_duration_s, weighted_average, BlendSpace1D, BlendSpace2D,
    BlendSpaceError, SparseWeights, SpeedScaling, SyncGroup,
};
pub use def::{BlendCurve, GraphDef, RootAxis, RootMotionDef};
pub use events::{EventNameId, GraphEvent, MachineId, StateId};
pub use expr::{Expr, ExprError, ValueType};
pub use instance::{GraphError, GraphInstance, SampledClip};
pub use params::{
    names, BoolParam, FloatParam, ParamError, ParamId, ParamKind, ParamSet, Vec2Param,
};
pub use root_motion::RootMotionDelta;
pub use root_source::{
    check_root_motion, clip_travel, remove_travel, RootMotionMisfit, RootSource,
};
pub use speed_fit::{SpeedMisfit, SPEED_FIT_RATIO};

#[cfg(test)]
mod tests;
