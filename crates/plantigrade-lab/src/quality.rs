//! Foot-quality and tilt metrics from per-tick samples (SPEC QUAL-1..6). Being written.
