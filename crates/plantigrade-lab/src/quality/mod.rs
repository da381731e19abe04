//! Foot-quality and tilt metrics from per-tick samples (SPEC QUAL-1..6), and the trace CSV
//! they can be re-derived from.
//!
//! Pure on purpose: plain samples in, plain numbers out, only `std`, `glam` and `serde`, so
//! every metric is tested here on hand-built traces with known answers. The scenario loop fills
//! one [`TickSample`] per tick; [`foot_quality`] and [`tilt_quality`] reduce a whole run.
//!
//! Conventions shared by every metric:
//! - Heights and depths are measured against the analytic ground height under each sole point
//!   (`ground_under_*_m`). A point whose ground is `None` (off the course) is skipped, and a
//!   foot with neither point over the course is skipped for that tick (it is then also not in
//!   stance).
//! - Non-finite positions or angles are skipped, never propagated: every output is finite (or
//!   `None` where documented). Such ticks are counted in `nan_count`.
//! - `hz` must be finite and > 0; otherwise the metrics are all 0 except the counts.
//! - Internally everything is accumulated in `f64` so third differences keep their digits.

//!
//! By concern: [`sample`] what a tick looks like, [`foot`], [`tilt`] and [`posture`] the
//! metrics, [`stats`] the statistics they share, [`csv`] the trace file.

mod csv;
mod foot;
mod posture;
mod sample;
mod stats;
mod tilt;

pub use csv::{write_pose_csv, write_trace_csv};
pub use foot::{
    foot_quality, footfalls, in_stance, stance_drifts, steps_to_alternate, FootQuality,
    STANCE_CONTACT_MIN,
};
pub use posture::{lean_along_rad, posture_quality, PostureProfile, PostureQuality};
pub use sample::{FootSample, TickSample};
pub use tilt::{tilt_quality, TiltQuality, DEFAULT_SETTLE_S};

#[cfg(test)]
mod tests;
