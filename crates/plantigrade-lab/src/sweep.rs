//! `sweep`: the foot checks of chosen scenarios over tick rates and start offsets.
//!
//! One run of a stairs scenario is one sample of where the footfalls happen to land on the
//! treads; moving the start by a few centimetres or changing the tick rate gives another.
//! The sweep runs every scenario at 30, 60 and 144 Hz from `offsets` starts spread over
//! one tread of the default course (0.28 m), and counts, per scenario and check, in how
//! many of those runs the check passed. It measures; it does not gate (`--check` does not
//! apply).

use std::collections::BTreeMap;
use std::sync::Arc;

use plantigrade::course::Course;
use plantigrade::graph::GraphAsset;
use plantigrade::ik::FootIkMode;
use serde::Serialize;

use crate::scenarios::{self, RunOptions, ScenarioResult};

/// Tick rates every scenario runs at (ROB-4).
pub const RATES_HZ: [f32; 3] = [30.0, 60.0, 144.0];

/// The span the start offsets cover: one tread of the default course (m).
pub const OFFSET_SPAN_M: f32 = 0.28;

/// One scenario's tally over the sweep (predictive mode, tilt on).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SweepRow {
    pub scenario: String,
    pub runs: u32,
    /// Per check name: runs in which it passed.
    pub passed: BTreeMap<String, u32>,
    /// Median and worst over the runs (mm).
    pub penetration_max_mm: [f32; 2],
    pub float_p95_mm: [f32; 2],
    pub planted_drift_mean_mm: [f32; 2],
}

/// The checks shown as columns (check name, header), in order.
const COLUMNS: [(&str, &str); 7] = [
    ("penetration_max", "pen max"),
    ("float_p95", "float p95"),
    ("planted_drift_mean", "drift mean"),
    ("skate_ratio_stance", "stance skate"),
    ("forefoot_first_on_steps", "forefoot"),
    ("sole_on_tread", "on tread"),
    ("beats_classic_penetration", "vs classic"),
];

/// Start offsets (m): `count` evenly over [0, [`OFFSET_SPAN_M`]).
pub fn offsets_m(count: u32) -> Vec<f32> {
    (0..count)
        .map(|k| OFFSET_SPAN_M * k as f32 / count as f32)
        .collect()
}

/// Runs the sweep: `names` (every stairs scenario when empty) at every rate and offset.
pub fn run(
    names: &[String],
    course: &Course,
    graph: &Arc<GraphAsset>,
    offsets: u32,
) -> anyhow::Result<Vec<SweepRow>> {
    if offsets == 0 || offsets > 64 {
        anyhow::bail!("--offsets must be between 1 and 64, got {offsets}");
    }
    let names: Vec<String> = if names.is_empty() {
        scenarios::SCENARIOS
            .iter()
            .filter(|s| s.name.starts_with("stairs_"))
            .map(|s| s.name.to_string())
            .collect()
    } else {
        names.to_vec()
    };
    let mut runs: BTreeMap<String, Vec<ScenarioResult>> = BTreeMap::new();
    for hz in RATES_HZ {
        for offset in offsets_m(offsets) {
            let options = RunOptions {
                modes: vec![FootIkMode::Classic, FootIkMode::Predictive],
                start_offset_m: offset,
                ..RunOptions::default()
            };
            for result in scenarios::run_all(&names, course, graph, hz, &options)? {
                if result.mode == FootIkMode::Predictive.name() && result.tilt == "on" {
                    runs.entry(result.name.clone()).or_default().push(result);
                }
            }
        }
    }
    let order = |name: &str| names.iter().position(|n| n == name);
    let mut rows: Vec<SweepRow> = runs
        .into_iter()
        .map(|(scenario, results)| tally(scenario, &results))
        .collect();
    rows.sort_by_key(|r| order(&r.scenario));
    Ok(rows)
}

fn tally(scenario: String, results: &[ScenarioResult]) -> SweepRow {
    let mut passed = BTreeMap::new();
    for check in results.iter().flat_map(|r| &r.checks) {
        *passed.entry(check.name.clone()).or_insert(0) += u32::from(check.pass);
    }
    let spread = |value: fn(&ScenarioResult) -> f32| {
        let mut values: Vec<f32> = results.iter().map(value).collect();
        values.sort_by(f32::total_cmp);
        match values.len() {
            0 => [0.0; 2],
            n => [values[n / 2], values[n - 1]],
        }
    };
    SweepRow {
        scenario,
        runs: results.len() as u32,
        passed,
        penetration_max_mm: spread(|r| r.metrics.foot.penetration_max_mm),
        float_p95_mm: spread(|r| r.metrics.foot.float_p95_mm),
        planted_drift_mean_mm: spread(|r| r.metrics.foot.planted_drift_mean_mm),
    }
}

/// The table: per scenario, runs in which each check passed, then median / worst figures.
pub fn print(rows: &[SweepRow], offsets: u32) {
    println!(
        "Foot checks passed over {} runs per scenario (predictive; {} Hz × {offsets} starts over {OFFSET_SPAN_M} m)",
        RATES_HZ.len() as u32 * offsets,
        RATES_HZ.map(|hz| format!("{hz}")).join("/"),
    );
    print!("{:<24}", "scenario");
    for (_, header) in COLUMNS {
        print!(" {header:>12}");
    }
    println!("   pen max / float p95 / drift mean mm (median, worst)");
    for row in rows {
        print!("{:<24}", row.scenario);
        for (column, _) in COLUMNS {
            let cell = row
                .passed
                .get(column)
                .map_or("-".to_string(), |n| format!("{n}/{}", row.runs));
            print!(" {cell:>12}");
        }
        let [pm, pw] = row.penetration_max_mm;
        let [fm, fw] = row.float_p95_mm;
        let [dm, dw] = row.planted_drift_mean_mm;
        println!("   {pm:.0}, {pw:.0} / {fm:.0}, {fw:.0} / {dm:.0}, {dw:.0}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_spread_over_one_tread() {
        let offsets = offsets_m(4);
        assert_eq!(offsets.len(), 4);
        for (k, offset) in offsets.iter().enumerate() {
            assert!((offset - 0.07 * k as f32).abs() < 1e-6, "{offsets:?}");
        }
    }

    #[test]
    fn a_sweep_counts_each_check_once_per_rate_and_start() {
        let course = Course::default_course();
        let graph = Arc::new(
            plantigrade::mannequin::Mannequin::new()
                .default_graph()
                .unwrap(),
        );
        let names = vec!["stairs_up_15cm_run".to_string()];
        let rows = run(&names, &course, &graph, 2).unwrap();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.runs, 6);
        for (name, _) in COLUMNS {
            let passed = row.passed.get(name).copied();
            assert!(passed.is_some_and(|n| n <= 6), "{name}: {passed:?}");
        }
        assert!(row.float_p95_mm[0] <= row.float_p95_mm[1]);
        // Bad requests are errors, not panics.
        assert!(run(&names, &course, &graph, 0).is_err());
        assert!(run(&["nowhere".to_string()], &course, &graph, 1).is_err());
    }
}
