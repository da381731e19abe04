//! The scenario tables on stdout, and the failed checks and unmet targets as lines.

use plantigrade::ik::FootIkMode;

use super::run::{Mover, ScenarioResult};
use crate::quality::FootQuality;

pub fn print(results: &[ScenarioResult]) {
    let hz = results.first().map_or(60.0, |r| r.hz);
    let mut modes: Vec<&str> = Vec::new();
    for r in results {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
    }
    let predictive = FootIkMode::Predictive.name();
    let main_mode = if modes.contains(&predictive) {
        predictive
    } else {
        modes.first().copied().unwrap_or(predictive)
    };
    println!("\nScenarios on the test course, {hz} Hz (movement, foot IK {main_mode}; ground skid per footfall mean / max, torso lean forward +)");
    println!(
        "{:<24} {:>6} {:>8} {:>7} {:>7} {:>7} {:>12} {:>7} {:>6}  states",
        "scenario", "time s", "progress", "m/s", "rise m", "air s", "skid cm", "lean °", "ok"
    );
    for r in results.iter().filter(|r| r.mode == main_mode) {
        let m = &r.metrics;
        let ok = if results
            .iter()
            .filter(|o| o.name == r.name)
            .all(|o| o.checks.iter().all(|c| c.pass || !c.blocking))
        {
            "yes"
        } else {
            "FAIL"
        };
        println!(
            "{:<24} {:>6.2} {:>8.2} {:>7.2} {:>7.2} {:>7.2} {:>12} {:>7.1} {:>6}  {}",
            r.name,
            m.duration_s,
            m.progress_m,
            m.mean_speed_m_s,
            m.max_height_m - m.start_height_m,
            m.airborne_s,
            format!(
                "{:.1} / {:.1}",
                m.foot.ground_skid_mean_cm, m.foot.ground_skid_max_cm
            ),
            m.posture.torso_lean_mean_deg,
            ok,
            m.states.join(" → ")
        );
    }
    println!(
        "\nFoot quality against the analytic ground, modes side by side ({})",
        modes.join(" / ")
    );
    println!(
        "{:<24} {:>20} {:>20} {:>20} {:>20} {:>20} {:>9}",
        "scenario",
        "penetr. mean mm",
        "penetr. max mm",
        "float p95 mm",
        "drift mean mm",
        "skate (stance)",
        "flips"
    );
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.name.as_str()) {
            names.push(&r.name);
        }
    }
    for name in names {
        let row: Vec<&FootQuality> = modes
            .iter()
            .filter_map(|mode| {
                results
                    .iter()
                    .find(|r| r.name == name && r.mode == *mode)
                    .map(|r| &r.metrics.foot)
            })
            .collect();
        let cell = |f: &dyn Fn(&FootQuality) -> f32, digits: usize| {
            row.iter()
                .map(|q| format!("{:.*}", digits, f(q)))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "{:<24} {:>20} {:>20} {:>20} {:>20} {:>20} {:>9}",
            name,
            cell(&|q| q.penetration_mean_mm, 1),
            cell(&|q| q.penetration_max_mm, 1),
            cell(&|q| q.float_p95_mm, 1),
            cell(&|q| q.planted_drift_mean_mm, 1),
            cell(&|q| q.skate_ratio_stance, 3),
            cell(&|q| q.knee_flips as f32, 0),
        );
    }
}

/// Failed blocking checks as `scenario (mode): check detail` lines.
pub fn failures(results: &[ScenarioResult]) -> Vec<String> {
    lines(results, true)
}

/// Targets not met yet (non-blocking checks that fail), same format.
pub fn unmet_targets(results: &[ScenarioResult]) -> Vec<String> {
    lines(results, false)
}

fn lines(results: &[ScenarioResult], blocking: bool) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| {
            r.checks
                .iter()
                .filter(move |c| !c.pass && c.blocking == blocking)
                .map(move |c| {
                    // Runs of the default mover keep the lines they always had.
                    let run = if r.mover == Mover::Rapier.name() {
                        r.mode.clone()
                    } else {
                        format!("{}, {} mover", r.mode, r.mover)
                    };
                    format!("{} ({run}): {} {}", r.name, c.name, c.detail)
                })
        })
        .collect()
}

/// The movement figures of each scenario with each mover side by side (`--mover both`):
/// progress, mean speed, rise, airborne time, longest stall, the feet's deepest
/// penetration and the failed blocking checks, in the main foot IK mode (tilt on).
pub fn print_movers(results: &[ScenarioResult]) {
    let mode = if results
        .iter()
        .any(|r| r.mode == FootIkMode::Predictive.name())
    {
        FootIkMode::Predictive.name()
    } else {
        results.first().map_or("", |r| r.mode.as_str())
    };
    let movers: Vec<&str> = Mover::ALL
        .iter()
        .map(|m| m.name())
        .filter(|m| results.iter().any(|r| r.mover == *m))
        .collect();
    println!(
        "\nMovers side by side ({}; foot IK {mode}, tilt on; failed = blocking checks failed in every mode)",
        movers.join(" / ")
    );
    println!(
        "{:<24} {:>13} {:>11} {:>11} {:>11} {:>11} {:>13} {:>9}",
        "scenario", "progress m", "m/s", "rise m", "air s", "stall s", "feet pen. mm", "failed"
    );
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.name.as_str()) {
            names.push(&r.name);
        }
    }
    for name in names {
        let row: Vec<&ScenarioResult> = movers
            .iter()
            .filter_map(|mover| {
                results.iter().find(|r| {
                    r.name == name && r.mover == *mover && r.mode == mode && r.tilt == "on"
                })
            })
            .collect();
        let cell = |f: &dyn Fn(&ScenarioResult) -> f32, digits: usize| {
            row.iter()
                .map(|r| format!("{:.*}", digits, f(r)))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let failed = |r: &ScenarioResult| {
            results
                .iter()
                .filter(|o| o.name == r.name && o.mover == r.mover)
                .flat_map(|o| o.checks.iter())
                .filter(|c| !c.pass && c.blocking)
                .count() as f32
        };
        println!(
            "{:<24} {:>13} {:>11} {:>11} {:>11} {:>11} {:>13} {:>9}",
            name,
            cell(&|r| r.metrics.progress_m, 2),
            cell(&|r| r.metrics.mean_speed_m_s, 2),
            cell(&|r| r.metrics.max_height_m - r.metrics.start_height_m, 2),
            cell(&|r| r.metrics.airborne_s, 2),
            cell(&|r| r.metrics.longest_stall_s, 2),
            cell(&|r| r.metrics.foot.penetration_max_mm, 1),
            cell(&failed, 0),
        );
    }
}
