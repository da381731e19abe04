//! Threshold checks as data: one row per check (which runs, the figure, how it compares with
//! its threshold, gated or a target, the message), walked by [`threshold_checks`]. The rows
//! live next to the checks that need code ([`super::foot`], [`super::tilt`]); a table's
//! order is the order its checks appear in results.json.

use plantigrade::ik::FootIkMode;

use crate::report::Check;
use crate::scenarios::run::{Metrics, ScenarioResult};

/// How a figure is compared with its threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Compare {
    /// figure ≤ threshold
    AtMost,
    /// figure ≥ threshold
    AtLeast,
    /// figure = threshold (counts that must be 0)
    Equal,
}

impl Compare {
    fn holds(self, figure: f32, threshold: f32) -> bool {
        match self {
            Compare::AtMost => figure <= threshold,
            Compare::AtLeast => figure >= threshold,
            Compare::Equal => figure == threshold,
        }
    }
}

/// Which runs a row judges.
#[derive(Clone, Copy)]
pub(crate) struct Runs {
    /// Only the predictive runs with tilt on (where the QUAL and TILT targets are set);
    /// otherwise every mode and tilt.
    pub(crate) predictive_tilt_on: bool,
    /// The scenarios, by name.
    pub(crate) scenarios: fn(&str) -> bool,
}

impl Runs {
    pub(crate) fn include(&self, r: &ScenarioResult) -> bool {
        (!self.predictive_tilt_on || (r.mode == FootIkMode::Predictive.name() && r.tilt == "on"))
            && (self.scenarios)(&r.name)
    }
}

/// Whether a failed row fails `--check`.
#[derive(Clone, Copy)]
pub(crate) enum Gate {
    Gated,
    Target,
    /// A target on the runs this picks (known misses), gated on the others.
    TargetOn(fn(&ScenarioResult) -> bool),
}

/// One threshold check.
#[derive(Clone, Copy)]
pub(crate) struct Threshold {
    pub(crate) name: &'static str,
    pub(crate) runs: Runs,
    /// The figure judged; `None` when the run gave nothing to judge (no settled ticks),
    /// which fails.
    pub(crate) figure: fn(&Metrics) -> Option<f32>,
    pub(crate) compare: Compare,
    pub(crate) threshold: f32,
    pub(crate) gate: Gate,
    /// The check's detail, as results.json and the failure lines show it.
    pub(crate) detail: fn(&Metrics) -> String,
}

/// Every scenario.
pub(crate) fn every(_: &str) -> bool {
    true
}

/// The checks of `rows` that judge run `r`, in table order.
pub(crate) fn threshold_checks(rows: &[Threshold], r: &ScenarioResult) -> Vec<Check> {
    rows.iter()
        .filter(|row| row.runs.include(r))
        .map(|row| {
            let pass = (row.figure)(&r.metrics)
                .is_some_and(|figure| row.compare.holds(figure, row.threshold));
            let detail = (row.detail)(&r.metrics);
            let gated = match row.gate {
                Gate::Gated => true,
                Gate::Target => false,
                Gate::TargetOn(known_miss) => !known_miss(r),
            };
            if gated {
                Check::new(row.name, pass, detail)
            } else {
                Check::target(row.name, pass, detail)
            }
        })
        .collect()
}
