//! plantigrade: third-person character locomotion with the feel of the Advanced Locomotion
//! System, predictive foot IK and a slope-aware pelvis.
//!
//! This crate is the engine-agnostic core. The stages of one tick (SPEC §0) each have a
//! module, and [`character::Character::tick`] runs them in order:
//!
//! - [`motion`]: input shaping, intent, the movement model (speeds, turning, jump, land,
//!   crouch, push-wall) and AI paths.
//! - [`world`]: what the core needs from physics (queries, collide-and-slide); the rapier3d
//!   implementation is the `plantigrade-rapier` crate.
//! - [`graph`]: the animation graph (parameters, blend spaces, state machines, layers, root
//!   motion, events), loaded from RON.
//! - [`skeleton`], [`clip`], [`pose`]: the animation runtime (sampling, blending, masks,
//!   local-to-model); [`bone_map`] finds the humanoid bones and foot sockets on any rig.
//! - [`ik`]: the procedural pass: predictive foot IK (probes, support planes, foot lock,
//!   pelvis drop, two-bone legs) and look-at (SPEC IK); [`lod`] picks its detail by distance
//!   and [`debug`] records what it did as backend-neutral draw commands.
//! - [`tilt`]: the slope-aware pelvis: ground frame (three rays, narrow edges, a stairs
//!   profile), pluggable normal sources, filters, the posture built from it (the trunk
//!   leaning into a climb, the pelvis taking part of it and the ground's roll, the spine
//!   counter-rotating) with head compensation, slope speed (SPEC TILT).
//! - [`impact`]: a landing with horizontal speed dips the body over the gait instead of
//!   stopping the legs.
//! - [`lean`]: the body leans with its acceleration: into turns, forward speeding up, back
//!   braking.
//! - [`settings`]: a character's whole setup as data (RON), checked by `validate`, set on a
//!   live character with `Character::set_settings`, and `bevy_reflect::Reflect` with the
//!   `reflect` feature (for inspectors); [`prelude`]: what a game needs to spawn and drive
//!   one.
//! - [`rig_scale`]: a rig's size by its leg length, and the settings scaled to it.
//! - [`math`]: the scalar helpers every stage shares (smoothstep, damping, angle wrap).
//! - [`mannequin`]: the built-in skeleton, its procedurally authored clips and default graph.
//! - [`clip_analysis`]: foot contacts and planted drift of a gait clip.
//! - [`foot_contacts`]: `FootContact_L`/`_R` curves derived from the feet of a clip that
//!   has none (height and ground speed with hysteresis); authored curves win.
//!
//! The test course (level geometry as data with its analytic ground truth, and that ground
//! as a world) is the `plantigrade-course` crate.
//!
//! Conventions: metres, seconds, radians; Y up, right-handed, a character faces +Z in model
//! space (so its left is +X). Every position or rotation names its space (`_local`,
//! `_model`, `_world`).

/// `From<$cause> for $error` building `$error::$variant`, for an error variant whose
/// message already says its cause (`"settings: {0}"`): unlike thiserror's `#[from]` it does
/// not also give the cause as `source()`, so a report that prints the whole chain
/// (anyhow's `{:#}`) says the detail once.
macro_rules! from_cause_in_message {
    ($cause:ty => $error:ident :: $variant:ident) => {
        impl From<$cause> for $error {
            fn from(error: $cause) -> Self {
                $error::$variant(error)
            }
        }
    };
}

pub mod bone_map;
pub mod character;
pub mod clip;
pub mod clip_analysis;
pub mod debug;
pub mod foot_contacts;
pub mod graph;
pub mod ik;
pub mod impact;
pub mod lean;
pub mod lod;
#[cfg(feature = "mannequin")]
pub mod mannequin;
pub mod math;
pub mod motion;
pub mod pose;
pub mod prelude;
pub mod retarget;
pub mod rig_clips;
pub mod rig_scale;
pub mod settings;
pub mod skeleton;
pub mod source_pos;
pub mod tilt;
pub mod world;

pub use bone_map::{FootSockets, HumanoidMap, LegChain, Side};
pub use clip::{Clip, ClipError, ClipEvent, FloatCurve, Interpolation, JointTracks, Track};
pub use pose::{BoneMask, ModelPose, Pose, PoseError};
pub use skeleton::{Joint, Skeleton, SkeletonError, Transform};

/// glam, re-exported so users get the exact version the API speaks.
pub use glam;
