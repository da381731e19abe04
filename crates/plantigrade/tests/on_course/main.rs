//! The core's stages on the test course's analytic ground (`plantigrade-course`). These were
//! the core's unit tests; they are integration tests because the course crate depends on the
//! core: as a dev-dependency of a unit test it would build a second copy of the core, whose
//! traits `AnalyticWorld` implements and the unit test's copy does not.

mod character;
mod foot_probe;
mod ground_frame;
mod tilt_scenarios;
mod tilt_stage;
