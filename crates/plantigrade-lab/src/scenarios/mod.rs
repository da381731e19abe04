//! Headless scenarios on the test course (SPEC QUAL-7): scripted intents drive
//! `Character::tick` on rapier, and the state timeline is checked — jump phases in order,
//! landings graded, crouch held under a ceiling, push-wall at the wall without penetration,
//! stairs and ramps climbed without getting stuck, the 50° ramp refused, the 180° turn as
//! long as the turn-rate curve implies.
//!
//! By concern: [`actor`] who runs them, [`catalog`] the scenarios, [`script`] what the stick does, [`path`] where a
//! run goes on the course, [`run`] the tick loop and its figures, [`sample`] and [`trace`]
//! what is recorded per tick, [`checks`] what is judged, [`print`](mod@print) the tables.

mod actor;
mod catalog;
mod checks;
mod path;
mod print;
mod run;
mod sample;
mod script;
mod trace;

pub use actor::Actor;
pub use catalog::{chosen, is_flight, is_junction, terrain_scenarios, Kind, Scenario};
// Looked up by name in the sweep's tests.
#[cfg(test)]
pub use catalog::SCENARIOS;
pub use path::path_for;
pub use print::{failures, print, print_movers, unmet_targets};
pub use run::{
    run_all, run_all_observed, run_scenario, Mover, RunOptions, ScenarioResult, Setup, TiltMode,
};
pub(crate) use sample::Sampler;
pub use trace::Trace;

#[cfg(test)]
mod tests;
