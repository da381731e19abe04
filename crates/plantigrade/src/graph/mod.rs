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

pub mod blend_space;
pub mod expr;
pub mod params;

pub use blend_space::{
    clip_playback_rate, shared_cycle_duration_s, weighted_average, BlendSpace1D, BlendSpace2D,
    BlendSpaceError, SparseWeights, SpeedScaling, SyncGroup,
};
pub use expr::{Expr, ExprError, ValueType};
pub use params::{
    names, BoolParam, FloatParam, ParamError, ParamId, ParamKind, ParamSet, Vec2Param,
};
