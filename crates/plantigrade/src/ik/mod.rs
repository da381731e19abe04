//! Inverse kinematics (SPEC §4, IK). Each solver is a small job over plain data in the
//! character's **model** space (+Y up, +Z forward, +X left, metres): inputs are joint
//! positions from the animated pose plus a target, outputs are rotation corrections the
//! caller applies to its own pose buffers.
//!
//! - [`foot`]: predictive probes and the support plane (IK-1..4); [`landing`]: where the
//!   clips set each foot down (IK-1's landing); [`lock`]: foot lock
//!   (IK-9); [`pelvis`]: the predictive pelvis drop (IK-7); [`stage`]: the foot IK stage that
//!   runs them in order with the gait phase and smoothing (IK-5, IK-6).
//! - [`two_bone`]: hip–knee–ankle two-bone IK with a pole vector, soften and reach clamping
//!   (IK-8); [`look_at`]: head and spine toward a target (IK-14).

pub mod feet_gap;
pub mod foot;
pub mod landing;
pub mod lock;
pub mod look_at;
pub mod pelvis;
pub mod stage;
pub mod two_bone;

pub use feet_gap::{feet_distance_m, segment_distance_m};
pub use foot::{
    crest_surface, fit_support_plane, other_surface, run_foot_probe, FootIkMode, FootProbeRequest,
    FootProbeResult, ProbeConfig, SupportPlane, SupportSource,
};
pub use landing::{Landing, LandingPoses};
pub use lock::{FootLock, LockConfig, LockInput, Release};
pub use pelvis::{required_drop_m, PelvisConfig, PelvisOffset};
pub use stage::{
    AnimatedFoot, FootIk, FootIkConfig, FootIkError, FootIkInput, FootIkOutput, FootReport,
    FootRig, LegRig,
};
pub use two_bone::{knee_pole_model, TwoBoneIkError, TwoBoneIkJob, TwoBoneIkOutput};
