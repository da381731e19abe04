//! plantigrade: third-person character locomotion with the feel of the Advanced Locomotion
//! System, predictive foot IK and a slope-aware pelvis.
//!
//! This crate is the engine-agnostic core. The data flow of one tick (SPEC §0) is laid out by
//! module; this first layer is the animation runtime:
//!
//! - [`skeleton`]: joints, parent order, rest pose ([`Skeleton`], [`Transform`]).
//! - [`clip`]: keyframed joint tracks, float curves and events ([`Clip`]).
//! - [`pose`]: sampling, blending, masks, additive layers, local-to-model ([`Pose`]).
//! - [`bone_map`]: finding the humanoid bones (pelvis, legs, …) and foot sockets on any rig.
//! - [`mannequin`]: the built-in UE-style mannequin and its procedurally authored clips.
//!
//! Conventions: metres, seconds, radians; Y up, right-handed, a character faces +Z in model
//! space (so its left is +X). Every position or rotation names its space (`_local`,
//! `_model`, `_world`).

pub mod bone_map;
pub mod character;
pub mod clip;
pub mod clip_analysis;
pub mod course;
pub mod graph;
pub mod mannequin;
pub mod motion;
pub mod pose;
pub mod skeleton;
pub mod source_pos;
pub mod world;

pub use bone_map::{FootSockets, HumanoidMap, LegChain, Side};
pub use clip::{Clip, ClipError, ClipEvent, FloatCurve, Interpolation, JointTracks, Track};
pub use pose::{BoneMask, ModelPose, Pose, PoseError};
pub use skeleton::{Joint, Skeleton, SkeletonError, Transform};

/// glam, re-exported so users get the exact version the API speaks.
pub use glam;
