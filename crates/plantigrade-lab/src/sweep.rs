//! `sweep`: the foot checks of chosen scenarios over tick rates and start offsets.
//!
//! One run of a stairs scenario is one sample of where the footfalls happen to land on the
//! treads; moving the start by a few centimetres or changing the tick rate gives another.
//! The sweep runs every scenario at 30, 60 and 144 Hz from `offsets` starts spread over
//! one tread of the default course (0.28 m), and counts, per scenario and check, in how
//! many of those runs the check passed. By default it covers every terrain family
//! ([`DEFAULT_SCENARIOS`]). It then sets the foot figures at the three rates side by side
//! (SPEC ROB-4: they agree within 10 %, or within an absolute floor near zero) and marks
//! each as agreeing or not. With `--check` it is issue 21's rate gate: any figure that
//! disagrees across the rates, or any run with a failed blocking check, fails it
//! ([`failures`]).

use std::collections::BTreeMap;

use plantigrade::ik::FootIkMode;
use plantigrade_course::Course;
use serde::Serialize;

use crate::scenarios::{self, Actor, RunOptions, ScenarioResult};

/// Tick rates every scenario runs at (ROB-4).
pub const RATES_HZ: [f32; 3] = [30.0, 60.0, 144.0];

/// The span the start offsets cover: one tread of the default course (m).
pub const OFFSET_SPAN_M: f32 = 0.28;

/// The default sweep: every terrain family of the course with a walk and a run where the
/// course has both (the plain flights, the ramps up to 40°, the cross-slope, the pebbles,
/// the beams, the ramps that run into stairs, the rolling bumps).
pub const DEFAULT_SCENARIOS: &[&str] = &[
    "stairs_up_15cm_walk",
    "stairs_up_15cm_run",
    "stairs_down_15cm_walk",
    "stairs_down_15cm_run",
    "stairs_up_20cm_walk",
    "stairs_up_20cm_run",
    "stairs_down_20cm_walk",
    "stairs_down_20cm_run",
    "ramp_10_up_walk",
    "ramp_10_down_run",
    "ramp_20_up_walk",
    "ramp_20_down_run",
    "ramp_30_up_walk",
    "ramp_30_down_run",
    "ramp_40_up_walk",
    "ramp_40_down_walk",
    "cross_slope_20_walk",
    "cross_slope_20_run",
    "pebbles_walk",
    "pebbles_run",
    "beam_walk",
    "beam_run",
    "beam_narrow_walk",
    "beam_inclined_walk",
    "ramp_stairs_up_walk",
    "ramp_stairs_up_run",
    "ramp_stairs_down_walk",
    "ramp_stairs_down_run",
    "stairs_ramp_up_walk",
    "stairs_ramp_up_run",
    "stairs_ramp_down_walk",
    "stairs_ramp_down_run",
    "rolling_bumps_walk",
    "rolling_bumps_run",
];

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
    /// The same figures rate by rate, in [`RATES_HZ`] order.
    pub rates: Vec<RateFigures>,
    /// Whether each foot figure agrees across the rates (ROB-4), in [`FIGURES`] order.
    pub agreement: Vec<Agreement>,
}

/// One scenario's runs at one tick rate: the blocking checks and the foot figures, each as
/// the median and the worst over the starts.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RateFigures {
    pub hz: f32,
    pub runs: u32,
    /// Runs in which a blocking check failed, and the names of those checks.
    pub runs_failing: u32,
    pub failing_checks: Vec<String>,
    /// Per figure name ([`FIGURES`]): median and worst over the starts.
    pub figures: BTreeMap<String, [f32; 2]>,
}

/// One foot figure at the three rates: the medians over the starts, and whether they agree.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Agreement {
    pub figure: String,
    /// Medians at 30, 60 and 144 Hz.
    pub median: [f32; 3],
    /// Largest minus smallest median.
    pub spread: f32,
    /// What the spread may be: 10 % of the largest median, or the absolute floor if larger.
    pub allowed: f32,
    pub agree: bool,
}

/// The foot figures compared across rates: name, unit, absolute floor (below it a spread is
/// noise near zero, not a disagreement), how to read it from a run.
pub struct Figure {
    pub name: &'static str,
    pub unit: &'static str,
    pub floor: f32,
    pub value: fn(&ScenarioResult) -> f32,
}

/// Within 10 % of the largest of the three (ROB-4).
pub const AGREE_RATIO: f32 = 0.10;

/// Each floor is the clip table's own bar for the figure, what an authored clip may show and
/// still count as none: 2 mm for the mm figures (its drift limit; a foot's sole is tens of
/// mm thick), 1 cm for the skid (its ground-skid target). A 30 Hz tick samples a footfall's
/// last centimetre over the ground once or not at all, so below that the skid measures
/// the sampling more than the foot.
pub const FIGURES: [Figure; 5] = [
    Figure {
        name: "penetration_max_mm",
        unit: "mm",
        floor: 2.0,
        value: |r| r.metrics.foot.penetration_max_mm,
    },
    Figure {
        name: "float_p95_mm",
        unit: "mm",
        floor: 2.0,
        value: |r| r.metrics.foot.float_p95_mm,
    },
    Figure {
        name: "planted_drift_mean_mm",
        unit: "mm",
        floor: 2.0,
        value: |r| r.metrics.foot.planted_drift_mean_mm,
    },
    Figure {
        name: "ground_skid_mean_cm",
        unit: "cm",
        floor: 1.0,
        value: |r| r.metrics.foot.ground_skid_mean_cm,
    },
    Figure {
        name: "ground_skid_max_cm",
        unit: "cm",
        floor: 1.0,
        value: |r| r.metrics.foot.ground_skid_max_cm,
    },
];

/// Whether three figures agree: their spread within [`AGREE_RATIO`] of the largest, or
/// within `floor`. Returns (spread, allowed, agree).
pub fn agree(values: [f32; 3], floor: f32) -> (f32, f32, bool) {
    if !values.iter().all(|v| v.is_finite()) {
        return (f32::NAN, floor, false);
    }
    let hi = values.iter().copied().fold(f32::MIN, f32::max);
    let lo = values.iter().copied().fold(f32::MAX, f32::min);
    let spread = hi - lo;
    let allowed = (AGREE_RATIO * hi.abs()).max(floor);
    (spread, allowed, spread <= allowed)
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

/// Runs the sweep: `names` ([`DEFAULT_SCENARIOS`] when empty) at every rate and offset,
/// the capsule moved by `mover`.
pub fn run(
    names: &[String],
    course: &Course,
    actor: &Actor,
    offsets: u32,
    mover: scenarios::Mover,
) -> anyhow::Result<Vec<SweepRow>> {
    if offsets == 0 || offsets > 64 {
        anyhow::bail!("--offsets must be between 1 and 64, got {offsets}");
    }
    let names: Vec<String> = if names.is_empty() {
        DEFAULT_SCENARIOS.iter().map(|n| n.to_string()).collect()
    } else {
        names.to_vec()
    };
    // Classic runs only where a check compares predictive with it (the stairs).
    let (with_classic, alone): (Vec<String>, Vec<String>) = names
        .iter()
        .cloned()
        .partition(|n| scenarios::is_flight(n) || scenarios::is_junction(n));
    let mut runs: BTreeMap<String, Vec<ScenarioResult>> = BTreeMap::new();
    for hz in RATES_HZ {
        for offset in offsets_m(offsets) {
            for (batch, modes) in [
                (
                    &with_classic,
                    vec![FootIkMode::Classic, FootIkMode::Predictive],
                ),
                (&alone, vec![FootIkMode::Predictive]),
            ] {
                if batch.is_empty() {
                    continue;
                }
                let options = RunOptions {
                    modes,
                    start_offset_m: offset,
                    mover,
                    ..RunOptions::default()
                };
                for result in scenarios::run_all(batch, course, actor, hz, &options)? {
                    if result.mode == FootIkMode::Predictive.name() && result.tilt == "on" {
                        runs.entry(result.name.clone()).or_default().push(result);
                    }
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
    let spread = |results: &[&ScenarioResult], value: fn(&ScenarioResult) -> f32| {
        let mut values: Vec<f32> = results.iter().map(|r| value(r)).collect();
        values.sort_by(f32::total_cmp);
        match values.len() {
            0 => [0.0; 2],
            n => [values[n / 2], values[n - 1]],
        }
    };
    let all: Vec<&ScenarioResult> = results.iter().collect();
    let rates: Vec<RateFigures> = RATES_HZ
        .iter()
        .map(|&hz| {
            let at: Vec<&ScenarioResult> = results.iter().filter(|r| r.hz == hz).collect();
            let blocking_failures = |r: &ScenarioResult| {
                r.checks
                    .iter()
                    .filter(|c| c.blocking && !c.pass)
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>()
            };
            let mut failing_checks: Vec<String> =
                at.iter().flat_map(|r| blocking_failures(r)).collect();
            failing_checks.sort();
            failing_checks.dedup();
            RateFigures {
                hz,
                runs: at.len() as u32,
                runs_failing: at
                    .iter()
                    .filter(|r| !blocking_failures(r).is_empty())
                    .count() as u32,
                failing_checks,
                figures: FIGURES
                    .iter()
                    .map(|f| (f.name.to_string(), spread(&at, f.value)))
                    .collect(),
            }
        })
        .collect();
    let agreement = FIGURES
        .iter()
        .map(|f| {
            let median = [0, 1, 2].map(|k| rates[k].figures[f.name][0]);
            let (spread, allowed, agree) = agree(median, f.floor);
            Agreement {
                figure: f.name.to_string(),
                median,
                spread,
                allowed,
                agree,
            }
        })
        .collect();
    SweepRow {
        scenario,
        runs: results.len() as u32,
        passed,
        penetration_max_mm: spread(&all, |r| r.metrics.foot.penetration_max_mm),
        float_p95_mm: spread(&all, |r| r.metrics.foot.float_p95_mm),
        planted_drift_mean_mm: spread(&all, |r| r.metrics.foot.planted_drift_mean_mm),
        rates,
        agreement,
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
    print_stairs_targets(rows);
    print_rates(rows, offsets);
}

/// Share of the stairs runs (every `stairs_…` scenario, walks and runs) in which float
/// p95 must be within its 15 mm check (the motion issue's stairs target).
const STAIRS_FLOAT_MIN_SHARE: f32 = 0.9;

/// The motion issue's stairs targets over the sweep: penetration max ≤ 20 mm in every run,
/// float p95 ≤ 15 mm in at least 90 % of them, walks and runs together.
fn print_stairs_targets(rows: &[SweepRow]) {
    let stairs: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| scenarios::is_flight(&r.scenario))
        .collect();
    let runs: u32 = stairs.iter().map(|r| r.runs).sum();
    if runs == 0 {
        return;
    }
    let passed = |check: &str| -> u32 {
        stairs
            .iter()
            .map(|r| r.passed.get(check).copied().unwrap_or(0))
            .sum()
    };
    let (pen, float) = (passed("penetration_max"), passed("float_p95"));
    let float_share = float as f32 / runs as f32;
    let mark = |ok: bool| if ok { "met" } else { "NOT met" };
    println!(
        "\nStairs targets over {runs} runs: penetration max ≤ 20 mm in {pen} ({}; every run), \
         float p95 ≤ 15 mm in {float} ({:.0} %, {}; ≥ {:.0} %)",
        mark(pen == runs),
        100.0 * float_share,
        mark(float_share >= STAIRS_FLOAT_MIN_SHARE),
        100.0 * STAIRS_FLOAT_MIN_SHARE
    );
}

/// What fails `sweep --check`: each figure whose medians disagree across the rates, and each
/// scenario-rate with a run whose blocking check failed.
pub fn failures(rows: &[SweepRow]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        for a in row.agreement.iter().filter(|a| !a.agree) {
            let medians: Vec<String> = a.median.iter().map(|v| format!("{v:.2}")).collect();
            out.push(format!(
                "{}: {} disagrees across {} Hz: {} (spread {:.2}, allowed {:.2})",
                row.scenario,
                a.figure,
                RATES_HZ.map(|hz| hz.to_string()).join(" / "),
                medians.join(" / "),
                a.spread,
                a.allowed
            ));
        }
        out.extend(blocking_failures(row));
    }
    out
}

/// Each scenario-rate of `row` with a run whose blocking check failed, as one line: how
/// many runs, and which checks.
fn blocking_failures(row: &SweepRow) -> impl Iterator<Item = String> + '_ {
    row.rates
        .iter()
        .filter(|r| r.runs_failing > 0)
        .map(move |r| {
            format!(
                "{} at {} Hz: {} of {} runs failed {}",
                row.scenario,
                r.hz,
                r.runs_failing,
                r.runs,
                r.failing_checks.join(", ")
            )
        })
}

/// The rate table (ROB-4): per scenario, the runs with a failed blocking check at each
/// rate, then each foot figure's median over the starts at 30 / 60 / 144 Hz, marked `ok`
/// when they agree and `DIFF` when they do not.
fn print_rates(rows: &[SweepRow], offsets: u32) {
    println!(
        "\nRate agreement (ROB-4): medians over {offsets} starts at {} Hz; ok = spread within {:.0} % of the largest or within the floor ({})",
        RATES_HZ.map(|hz| format!("{hz}")).join(" / "),
        AGREE_RATIO * 100.0,
        FIGURES
            .iter()
            .map(|f| format!("{} {} {}", f.name, f.floor, f.unit))
            .collect::<Vec<_>>()
            .join(", "),
    );
    print!("{:<24} {:>11}", "scenario", "runs failed");
    for header in [
        "pen max mm",
        "float p95 mm",
        "drift mean mm",
        "skid mean cm",
        "skid max cm",
    ] {
        print!(" {header:>22}");
    }
    println!();
    let mut disagreeing = 0;
    for row in rows {
        let failed: Vec<String> = row
            .rates
            .iter()
            .map(|r| r.runs_failing.to_string())
            .collect();
        print!("{:<24} {:>11}", row.scenario, failed.join("/"));
        for a in &row.agreement {
            let digits = if a.figure.ends_with("_cm") { 1 } else { 0 };
            let values: Vec<String> = a.median.iter().map(|v| format!("{v:.digits$}")).collect();
            let mark = if a.agree { "ok" } else { "DIFF" };
            print!(" {:>22}", format!("{} {mark:>4}", values.join("/")));
            disagreeing += usize::from(!a.agree);
        }
        println!();
    }
    let failing: Vec<String> = rows.iter().flat_map(blocking_failures).collect();
    println!(
        "{disagreeing} of {} figures disagree across rates; {} scenario-rates with a failed blocking check{}",
        rows.len() * FIGURES.len(),
        failing.len(),
        if failing.is_empty() { "" } else { ":" }
    );
    for line in failing {
        println!("  {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::Mover;

    #[test]
    fn offsets_spread_over_one_tread() {
        let offsets = offsets_m(4);
        assert_eq!(offsets.len(), 4);
        for (k, offset) in offsets.iter().enumerate() {
            assert!((offset - 0.07 * k as f32).abs() < 1e-6, "{offsets:?}");
        }
    }

    #[test]
    fn figures_agree_within_ten_percent_or_the_floor() {
        // 10 % of the largest.
        assert!(agree([100.0, 95.0, 91.0], 2.0).2);
        assert!(!agree([100.0, 95.0, 89.0], 2.0).2);
        // Near zero the floor decides: 0.2 against 1.9 mm is noise, 0 against 2.5 is not.
        assert!(agree([0.2, 1.9, 0.0], 2.0).2);
        assert!(!agree([0.0, 2.5, 0.0], 2.0).2);
        // Not a number never agrees.
        assert!(!agree([f32::NAN, 1.0, 1.0], 2.0).2);
    }

    #[test]
    fn the_default_sweep_names_known_scenarios_of_every_family() {
        for name in DEFAULT_SCENARIOS {
            assert!(
                scenarios::SCENARIOS.iter().any(|s| s.name == *name),
                "{name}"
            );
        }
        for family in [
            "stairs_up",
            "stairs_down",
            "ramp_",
            "cross_slope",
            "pebbles",
            "beam",
            "ramp_stairs",
            "stairs_ramp",
            "rolling_bumps",
        ] {
            for gait in ["_walk", "_run"] {
                assert!(
                    DEFAULT_SCENARIOS
                        .iter()
                        .any(|n| n.starts_with(family) && n.ends_with(gait)),
                    "{family} {gait}"
                );
            }
        }
    }

    #[test]
    fn a_sweep_counts_each_check_once_per_rate_and_start() {
        let course = Course::default_course();
        let actor = Actor::mannequin().unwrap();
        let names = vec!["stairs_up_15cm_run".to_string()];
        let rows = run(&names, &course, &actor, 2, Mover::Rapier).unwrap();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.runs, 6);
        for (name, _) in COLUMNS {
            let passed = row.passed.get(name).copied();
            assert!(passed.is_some_and(|n| n <= 6), "{name}: {passed:?}");
        }
        assert!(row.float_p95_mm[0] <= row.float_p95_mm[1]);
        assert_eq!(row.rates.len(), 3);
        assert!(row.rates.iter().all(|r| r.runs == 2 && r.runs_failing <= 2));
        assert_eq!(row.agreement.len(), FIGURES.len());
        // The gate fails on a disagreement and on a failed blocking check, and names them.
        assert_eq!(
            failures(&rows).is_empty(),
            row.rates.iter().all(|r| r.runs_failing == 0) && row.agreement.iter().all(|a| a.agree)
        );
        let mut bad = rows.clone();
        bad[0].agreement[1].agree = false;
        bad[0].rates[2].runs_failing = 1;
        bad[0].rates[2].failing_checks = vec!["float_p95".to_string()];
        let listed = failures(&bad);
        assert!(
            listed.iter().any(|f| f.contains("float_p95_mm disagrees")),
            "{listed:?}"
        );
        assert!(
            listed
                .iter()
                .any(|f| f.contains("at 144 Hz: 1 of 2 runs failed float_p95")),
            "{listed:?}"
        );
        // Bad requests are errors, not panics.
        assert!(run(&names, &course, &actor, 0, Mover::Rapier).is_err());
        assert!(run(&["nowhere".to_string()], &course, &actor, 1, Mover::Rapier).is_err());
    }
}
