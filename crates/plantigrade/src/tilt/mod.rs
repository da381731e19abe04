//! Slope tilt of the pelvis (SPEC §5, TILT): the pure-math core and the stage around it.
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
//!
//! The stage around that core:
//!
//! - [`ground_frame`]: the ground frame from three downward rays, the narrow-edge fallback
//!   and the stairs profile (TILT-1, TILT-8, TILT-11), with every ray for debug draw.
//! - [`source`]: the pluggable normal source (TILT-9): ground rays, a fixed mount normal,
//!   or a host's own [`NormalSource`].
//! - [`stage`]: [`PelvisTilt`], the per-character stage: filter, decompose, exit (TILT-2..5).
//! - [`apply`]: writing the tilt into the pelvis and compensating the head (TILT-3, TILT-6).
//! - [`slope_speed`]: the gait playback scale on slopes (TILT-7).

pub mod apply;
pub mod decompose;
pub mod filter;
pub mod ground_frame;
pub mod slope_speed;
pub mod source;
pub mod stage;

pub use apply::{apply_pelvis_tilt, apply_posture, PostureOffsets, TiltError};
pub use decompose::{
    decompose_ground_normal, pelvis_tilt_rotation_model, tilted_up_model, world_to_model_direction,
    GroundNormalStatus, GroundTilt, TiltLimits,
};
pub use filter::{low_pass_normal, move_toward, TiltDamping, TiltFilter, TiltFilterConfig};
pub use ground_frame::{
    sample_ground_frame, FlightFit, FrameCase, FrameQuery, FrameRay, GroundFrame,
    GroundFrameConfig, RayRole, MAX_FRAME_RAYS,
};
pub use slope_speed::{
    flight_stride_scale, slope_angle_along_rad, slope_speed_scale, slope_speed_scale_for,
    SlopeSpeedConfig,
};
pub use source::{FixedNormal, GroundRays, NormalSource, NormalSourceChoice};
pub use stage::{PelvisTilt, PostureConfig, TiltConfig, TiltInput, TiltOutput};
