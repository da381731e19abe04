//! The default run: every built-in gait clip played in place at its authored speed on flat
//! ground, with stance share and planted drift per foot (SPEC QUAL-3), checked against the
//! mannequin's targets.

use indicatif::{ProgressBar, ProgressStyle};
use plantigrade::clip_analysis::{analyze_gait, GaitAnalysisConfig, GaitReport};
use plantigrade::mannequin::Mannequin;
use serde::Serialize;

use crate::report::Check;

/// Planted drift limits for the built-in gait clips (mm).
const DRIFT_MEAN_MAX_MM: f32 = 2.0;
const DRIFT_MAX_MAX_MM: f32 = 5.0;
/// Ground skid limit of every footfall of a built-in gait clip (cm, SPEC QUAL-4).
const GROUND_SKID_MAX_CM: f32 = 1.0;

/// What share of the cycle each foot should be planted, by gait.
fn stance_share_range(clip: &str) -> Option<(&'static str, f32, f32)> {
    if clip.starts_with("Walk_") {
        Some(("walk", 0.55, 0.65))
    } else if clip.starts_with("Crouch_Walk") {
        Some(("crouch walk", 0.55, 0.72))
    } else if clip.starts_with("Run_") || clip.starts_with("Sprint") {
        Some(("run", 0.30, 0.45))
    } else {
        None
    }
}

#[derive(Serialize)]
pub struct ClipRow {
    clip: String,
    duration_s: f32,
    speed_m_s: f32,
    stance_share_l: f32,
    stance_share_r: f32,
    planted_drift_mean_mm: f32,
    planted_drift_max_mm: f32,
    stances_per_cycle: usize,
    footsteps_per_cycle: usize,
    stance_height_max_mm: f32,
    /// QUAL-4 ground skid per footfall, contact-curve independent (cm).
    ground_skid_mean_cm: f32,
    ground_skid_max_cm: f32,
    pub checks: Vec<Check>,
}

fn checks_for(report: &GaitReport, hz: f32) -> Vec<Check> {
    let mean = report.planted_drift_mean_mm();
    let max = report.planted_drift_max_mm();
    let mut checks = vec![
        Check::new(
            "planted_drift_mean",
            mean <= DRIFT_MEAN_MAX_MM,
            format!("{mean:.2} mm (limit {DRIFT_MEAN_MAX_MM} mm)"),
        ),
        Check::new(
            "planted_drift_max",
            max <= DRIFT_MAX_MAX_MM,
            format!("{max:.2} mm (limit {DRIFT_MAX_MAX_MM} mm)"),
        ),
        Check::new(
            "stances_per_foot",
            report.feet.iter().all(|f| f.stances.len() == 1),
            format!(
                "{} left, {} right per cycle (expected 1 each)",
                report.feet[0].stances.len(),
                report.feet[1].stances.len()
            ),
        ),
    ];
    let skid = report.ground_skid_max_cm();
    checks.push(Check::new(
        "ground_skid_max",
        skid <= GROUND_SKID_MAX_CM,
        format!(
            "{skid:.2} cm worst footfall, {:.2} cm mean (limit {GROUND_SKID_MAX_CM} cm)",
            report.ground_skid_mean_cm()
        ),
    ));
    if let Some((gait, lo, hi)) = stance_share_range(&report.clip) {
        // Counted in samples, the share is good to one sample of the cycle: 0.08 for a
        // 0.4 s sidestep at 30 Hz.
        let sample_share = 1.0 / (report.duration_s * hz).max(1.0);
        for foot in &report.feet {
            let share = foot.stance_share;
            checks.push(Check::new(
                format!("stance_share_{}", foot.side.suffix()),
                (lo - sample_share..=hi + sample_share).contains(&share),
                format!(
                    "{share:.2} (a {gait} plants each foot {lo:.2}..{hi:.2} of the cycle, \
                     ± {sample_share:.2} for one sample)"
                ),
            ));
        }
    }
    checks
}

/// Evaluates every built-in gait clip at `hz`.
pub fn evaluate(hz: f32) -> anyhow::Result<Vec<ClipRow>> {
    let mannequin = Mannequin::new();
    evaluate_on(&mannequin.skeleton, &mannequin.bones, &mannequin.clips, hz)
}

/// Evaluates the gait clips (those with an authored ground speed) of `clips`, on
/// `skeleton` with bones `bones`, at `hz`, against the mannequin's targets (absolute: a
/// rig smaller than the mannequin meets them more easily).
pub fn evaluate_on(
    skeleton: &plantigrade::skeleton::Skeleton,
    bones: &plantigrade::HumanoidMap,
    clips: &[plantigrade::clip::Clip],
    hz: f32,
) -> anyhow::Result<Vec<ClipRow>> {
    let config = GaitAnalysisConfig {
        sample_rate_hz: hz,
        ..Default::default()
    };
    let gait_clips: Vec<_> = clips
        .iter()
        .filter(|c| c.authored_speed_m_s().is_some_and(|s| s > 0.0))
        .collect();
    if gait_clips.is_empty() {
        anyhow::bail!("no gait clips (clips with an authored ground speed)");
    }
    let progress = ProgressBar::new(gait_clips.len() as u64).with_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress.set_prefix("clips");
    let mut rows = Vec::new();
    for clip in gait_clips {
        progress.set_message(clip.name().to_string());
        let report = analyze_gait(skeleton, bones, clip, &config)?;
        let stance_height_max_mm = report
            .feet
            .iter()
            .flat_map(|f| f.stances.iter().map(|s| s.max_height_mm))
            .fold(0.0, f32::max);
        rows.push(ClipRow {
            clip: report.clip.clone(),
            duration_s: report.duration_s,
            speed_m_s: report.speed_m_s,
            stance_share_l: report.feet[0].stance_share,
            stance_share_r: report.feet[1].stance_share,
            planted_drift_mean_mm: report.planted_drift_mean_mm(),
            planted_drift_max_mm: report.planted_drift_max_mm(),
            stances_per_cycle: report.stance_count(),
            footsteps_per_cycle: report.footsteps_per_cycle,
            stance_height_max_mm,
            ground_skid_mean_cm: report.ground_skid_mean_cm(),
            ground_skid_max_cm: report.ground_skid_max_cm(),
            checks: checks_for(&report, hz),
        });
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(rows)
}

/// Failed checks as `clip: check detail` lines.
pub fn failures(rows: &[ClipRow]) -> Vec<String> {
    rows.iter()
        .flat_map(|r| {
            r.checks
                .iter()
                .filter(|c| !c.pass)
                .map(move |c| format!("{}: {} {}", r.clip, c.name, c.detail))
        })
        .collect()
}

pub fn print_table(rows: &[ClipRow], hz: f32) {
    println!("Built-in gait clips on flat ground at their authored speed, sampled at {hz} Hz");
    println!("(stance = FootContact curve >= 0.5; drift = horizontal travel of the ball point per stance;");
    println!(
        " skid = horizontal travel of a sole point within 1 cm of the ground, per footfall)\n"
    );
    println!(
        "{:<16} {:>7} {:>7} {:>8} {:>8} {:>10} {:>10} {:>8} {:>8} {:>9} {:>6}",
        "clip",
        "dur s",
        "m/s",
        "stance L",
        "stance R",
        "drift mm",
        "drift max",
        "skid cm",
        "skid max",
        "steps/cyc",
        "ok"
    );
    for r in rows {
        let ok = if r.checks.iter().all(|c| c.pass) {
            "yes"
        } else {
            "FAIL"
        };
        println!(
            "{:<16} {:>7.3} {:>7.2} {:>8.2} {:>8.2} {:>10.3} {:>10.3} {:>8.2} {:>8.2} {:>9} {:>6}",
            r.clip,
            r.duration_s,
            r.speed_m_s,
            r.stance_share_l,
            r.stance_share_r,
            r.planted_drift_mean_mm,
            r.planted_drift_max_mm,
            r.ground_skid_mean_cm,
            r.ground_skid_max_cm,
            r.footsteps_per_cycle,
            ok
        );
    }
}
