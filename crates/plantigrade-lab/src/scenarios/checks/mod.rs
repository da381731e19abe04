//! What a scenario run is judged on. [`kind`] and [`plaza`] judge one run by what its
//! scenario does; [`foot`] and [`tilt`] judge the runs together once all have run (against
//! classic, against the flat walk, against a raw-tilt rerun), their plain thresholds as
//! [`table`] rows.

mod foot;
mod kind;
mod plaza;
mod table;
mod tilt;

pub(super) use foot::{
    add_feet_apart_checks, add_foot_checks, add_pop_checks, add_skid_checks, foot_gated,
};
pub(super) use kind::{checks_for, Context};
pub(super) use tilt::add_tilt_checks;
