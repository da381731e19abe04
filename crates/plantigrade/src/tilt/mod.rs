//! Slope tilt of the pelvis (SPEC §5, TILT): the pure-math core.
//!
//! - [`decompose`]: a ground normal (**world** space) and the character's facing (world
//!   yaw) → clamped pelvis pitch and roll in the character's **model** frame, and the tilt
//!   rotation built from them (TILT-2).
//! - [`filter`]: frame-rate independent filtering: normal low-pass, rate limit on the tilt
//!   target, damping toward it in exponential, fixed-rate or critically damped spring mode
//!   (TILT-4).
//!
//! Conventions: radians, seconds; model space is +Y up, +Z forward, +X left; world yaw 0
//! faces +Z and positive yaw turns +Z toward +X. Pitch > 0 means the ground rises ahead,
//! roll > 0 means the ground rises to the character's left.
//!
//! A tick, in order: [`TiltFilter::filter_normal`] on the averaged ray normal →
//! [`decompose_ground_normal`] on the filtered normal → [`TiltFilter::step`] with the
//! clamped angles (0, 0 when airborne, TILT-5) → [`pelvis_tilt_rotation_model`] on the
//! result. Nothing here allocates or panics; NaN/∞ inputs leave the state unchanged or give
//! zero tilt with a flag.

pub mod decompose;
pub mod filter;

pub use decompose::{
    decompose_ground_normal, pelvis_tilt_rotation_model, tilted_up_model, world_to_model_direction,
    GroundNormalStatus, GroundTilt, TiltLimits,
};
pub use filter::{low_pass_normal, move_toward, TiltDamping, TiltFilter, TiltFilterConfig};
