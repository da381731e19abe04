//! The tilt and posture checks on tilt on + predictive runs (SPEC TILT, QUAL-5/6/8).

use std::sync::Arc;

use plantigrade::course::Course;
use plantigrade::graph::GraphAsset;
use plantigrade::ik::FootIkMode;
use plantigrade_rapier::RapierWorld;

use crate::report::Check;
use crate::scenarios::catalog::{is_flight, SCENARIOS};
use crate::scenarios::run::{run_scenario, ScenarioResult, Setup, TiltMode};

/// Issue 6 and 14 targets (SPEC TILT, QUAL-5/6/8), on tilt on + predictive IK: the ground
/// frame's tracking of the 10–30° ramps and the cross-slope, a level head, the torso's lean
/// against the TILT-12 profile, the pebble field against the raw normal, the beam's roll,
/// the stairs' flight pitch.
pub(crate) fn add_tilt_checks(
    results: &mut [ScenarioResult],
    course: &Course,
    world: &RapierWorld,
    graph: &Arc<GraphAsset>,
    hz: f32,
    start_offset_m: f32,
) -> anyhow::Result<()> {
    let flat_angvel = results
        .iter()
        .find(|r| r.name == "flat_walk" && r.mode == "predictive" && r.tilt == "on")
        .map(|r| r.metrics.tilt.tilt_angvel_rms_deg_s);
    for r in results.iter_mut() {
        if r.mode != "predictive" || r.tilt != "on" {
            continue;
        }
        let t = r.metrics.tilt;
        let mut checks = Vec::new();
        let slope = ["ramp_10", "ramp_20", "ramp_30", "cross_slope_20"]
            .iter()
            .any(|p| r.name.starts_with(p));
        if slope {
            // The filtered ground frame the posture is built from follows the true slope.
            let err = t.tilt_pitch_error_deg.max(t.tilt_roll_error_deg);
            checks.push(Check::new(
                "slope_tracking",
                t.settled_ticks > 0 && err <= 2.0,
                format!(
                    "ground frame pitch {:.2}°, roll {:.2}° mean error after settling ({} ticks; ≤ 2°)",
                    t.tilt_pitch_error_deg, t.tilt_roll_error_deg, t.settled_ticks
                ),
            ));
            // TILT-6/12: the head stays level while the trunk leans.
            checks.push(Check::new(
                "head_level",
                t.settled_ticks > 0 && t.head_pitch_dev_deg <= 2.0,
                format!(
                    "head pitch {:.2}° from the animation's on average (≤ 2°)",
                    t.head_pitch_dev_deg
                ),
            ));
        }
        // TILT-12 / QUAL-8: the trunk leans into a climb and stays near upright going
        // down, everywhere but against the slope it cannot climb.
        if r.name != "ramp_50_blocked" {
            let p = r.metrics.posture;
            checks.push(Check::new(
                "torso_lean_profile",
                p.torso_lean_error_deg <= 1.0,
                format!(
                    "{:.2}° mean outside the profile over {} settled ticks (≤ 1°); lean {:.1}° mean, {} up, {} down",
                    p.torso_lean_error_deg,
                    p.posture_ticks,
                    p.torso_lean_mean_deg,
                    p.torso_lean_uphill_deg.map_or("-".into(), |v| format!("{v:.1}°")),
                    p.torso_lean_downhill_deg.map_or("-".into(), |v| format!("{v:.1}°")),
                ),
            ));
            checks.push(Check::new(
                "head_not_behind_pelvis",
                p.head_behind_pelvis_ticks == 0,
                format!(
                    "{} ticks climbing with the head behind the pelvis",
                    p.head_behind_pelvis_ticks
                ),
            ));
        }
        if is_flight(&r.name) {
            checks.push(Check::new(
                "tilt_stairs_flight",
                t.settled_ticks > 0 && t.tilt_pitch_error_deg <= 3.0,
                format!(
                    "pitch {:.2}° from the flight's slope, peak-to-peak {:.2}° ({} ticks; ≤ 3°)",
                    t.tilt_pitch_error_deg, t.tilt_pitch_p2p_deg, t.settled_ticks
                ),
            ));
        }
        if r.name == "beam_walk" {
            let flat = flat_angvel.unwrap_or(0.0);
            checks.push(Check::new(
                "tilt_beam_no_roll",
                t.tilt_roll_error_max_deg <= 0.5 || t.settled_ticks == 0,
                format!("largest roll error {:.2}°", t.tilt_roll_error_max_deg),
            ));
            checks.push(Check::new(
                "tilt_beam_calm",
                t.tilt_angvel_rms_deg_s <= flat + 5.0,
                format!(
                    "tilt angular velocity RMS {:.2}°/s (flat {:.2} + 5)",
                    t.tilt_angvel_rms_deg_s, flat
                ),
            ));
        }
        if r.name.starts_with("pebbles") {
            let scenario = SCENARIOS.iter().find(|s| s.name == r.name);
            if let Some(scenario) = scenario {
                let (raw, _) = run_scenario(
                    scenario,
                    course,
                    world,
                    graph,
                    hz,
                    Setup::new(FootIkMode::Predictive, TiltMode::Raw).starting_at(start_offset_m),
                )?;
                let raw = raw.metrics.tilt.tilt_angvel_rms_deg_s;
                checks.push(Check::new(
                    "tilt_pebbles_filtered",
                    raw >= 3.0 * t.tilt_angvel_rms_deg_s,
                    format!(
                        "tilt angular velocity RMS {:.1}°/s filtered vs {:.1}°/s raw ({:.1}×; ≥ 3×)",
                        t.tilt_angvel_rms_deg_s,
                        raw,
                        raw / t.tilt_angvel_rms_deg_s.max(1e-6)
                    ),
                ));
            }
        }
        r.checks.extend(checks);
    }
    Ok(())
}
