//! The scenario catalog: gaits, what each kind of scenario does, and every scenario in run
//! order.

use plantigrade::motion::LandingGrade;

/// How hard the stick is pushed for each gait (walk magnitude ≤ 0.5, run above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gait {
    Walk,
    Run,
    Sprint,
    CrouchWalk,
}

use Gait::*;
use Kind::*;
use Part::*;

/// What a scenario does and checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Cross the section (optionally only its rising or falling half) without getting stuck.
    Traverse { part: Part },
    /// Walk at a slope that must not be climbed.
    Blocked,
    /// Walk along a raised beam without falling off.
    Beam,
    /// Run and jump the gap at its edge.
    GapJump,
    /// Crouch under the low ceiling, let go of crouch there, and stay crouched.
    LowCeiling,
    /// Walk into the wall and keep pushing.
    WallPush,
    /// Walk off a ledge; the landing must have this grade.
    Drop(LandingGrade),
    /// Run, then reverse the stick; time the 180° turn.
    Turn180,
    /// Run around a circle of [`CIRCLE_RADIUS_M`] on the plaza (turning left); the body
    /// must lean into it.
    Circle,
    /// On the plaza, aiming ahead: stand, aim, move to the left, reverse to the right,
    /// stop, let go of aim (the directional-locomotion issue's strafe with a reversal).
    Strafe,
    /// On the plaza, facing back along the lane while moving along it.
    Backpedal,
    /// On the plaza, aiming ahead while moving forward-left at 45°.
    Diagonal,
    /// Along the plaza: walk, run, sprint, let go of the stick and stop.
    BuildUp,
    /// On the plaza: stand, jump in place, land, stand.
    StandingJump,
}

/// The scripted runs on the plaza (directional locomotion): timed, not goal-driven.
pub fn is_plaza_script(kind: Kind) -> bool {
    matches!(kind, Strafe | Backpedal | Diagonal | BuildUp | StandingJump)
}

/// Radius of the circle scenario (m).
pub const CIRCLE_RADIUS_M: f32 = 3.0;
/// The circle's lean is judged from this time on (s): the run is up to speed and on the
/// circle.
pub(super) const CIRCLE_SETTLED_S: f32 = 3.0;
/// The lean into a steady turn: between these shares of the balance angle
/// `atan(v² / (r·g))` (the motion issue on directional locomotion).
pub(super) const CIRCLE_LEAN_SHARE: (f32, f32) = (0.5, 1.0);

/// Which part of a there-and-back section (stairs, ramps) a traverse covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    Whole,
    /// From the spawn up to the middle of the top.
    Up,
    /// From the middle of the top down to the end.
    Down,
}

#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub section: &'static str,
    pub gait: Gait,
    pub kind: Kind,
}

const fn sc(name: &'static str, section: &'static str, gait: Gait, kind: Kind) -> Scenario {
    Scenario {
        name,
        section,
        gait,
        kind,
    }
}

/// Every scenario, in run order.
pub const SCENARIOS: &[Scenario] = &[
    sc("flat_walk", "flat", Walk, Traverse { part: Whole }),
    sc("flat_run", "flat", Run, Traverse { part: Whole }),
    sc("flat_sprint", "flat", Sprint, Traverse { part: Whole }),
    sc(
        "stairs_up_15cm_walk",
        "stairs_15cm",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_up_15cm_run",
        "stairs_15cm",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_down_15cm_walk",
        "stairs_15cm",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_down_15cm_run",
        "stairs_15cm",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "stairs_up_20cm_walk",
        "stairs_20cm",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_up_20cm_run",
        "stairs_20cm",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_down_20cm_walk",
        "stairs_20cm",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_down_20cm_run",
        "stairs_20cm",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_10_up_walk", "ramp_10deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_10_down_run",
        "ramp_10deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_20_up_walk", "ramp_20deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_20_down_run",
        "ramp_20deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_30_up_walk", "ramp_30deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_30_down_run",
        "ramp_30deg",
        Run,
        Traverse { part: Down },
    ),
    sc("ramp_40_up_walk", "ramp_40deg", Walk, Traverse { part: Up }),
    sc(
        "ramp_40_down_walk",
        "ramp_40deg",
        Walk,
        Traverse { part: Down },
    ),
    sc("ramp_50_blocked", "ramp_50deg", Walk, Blocked),
    sc(
        "cross_slope_20_walk",
        "cross_slope_20deg",
        Walk,
        Traverse { part: Whole },
    ),
    sc(
        "cross_slope_20_run",
        "cross_slope_20deg",
        Run,
        Traverse { part: Whole },
    ),
    sc("pebbles_walk", "pebbles", Walk, Traverse { part: Whole }),
    sc("pebbles_run", "pebbles", Run, Traverse { part: Whole }),
    sc("beam_walk", "beam", Walk, Beam),
    sc("beam_run", "beam", Run, Beam),
    sc("beam_narrow_walk", "beam_narrow", Walk, Beam),
    sc("beam_inclined_walk", "beam_inclined", Walk, Beam),
    sc("gap_jump_run", "gap_1m", Run, GapJump),
    sc("low_ceiling_crouch", "low_ceiling", CrouchWalk, LowCeiling),
    sc("wall_push", "wall", Walk, WallPush),
    sc("drop_0_5m", "ledge_0_5m", Walk, Drop(LandingGrade::Light)),
    sc("drop_3m", "ledge_3m", Walk, Drop(LandingGrade::Heavy)),
    sc("turn_180_run", "flat", Run, Turn180),
    sc("circle_3m_run", "plaza", Run, Circle),
    sc("strafe_walk_reversal", "plaza", Walk, Strafe),
    sc("strafe_run_reversal", "plaza", Run, Strafe),
    sc("crouch_strafe_reversal", "plaza", CrouchWalk, Strafe),
    sc("backpedal_walk", "plaza", Walk, Backpedal),
    sc("backpedal_run", "plaza", Run, Backpedal),
    sc("diagonal_walk", "plaza", Walk, Diagonal),
    sc("diagonal_run", "plaza", Run, Diagonal),
    sc("build_up_to_sprint", "plaza", Sprint, BuildUp),
    sc("standing_jump", "plaza", Walk, StandingJump),
    // Where a ramp meets stairs: going up the `ramp_stairs` section crosses ramp → stairs,
    // going down stairs → ramp; `stairs_ramp` the other two.
    sc(
        "ramp_stairs_up_walk",
        "ramp_stairs",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "ramp_stairs_up_run",
        "ramp_stairs",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "ramp_stairs_down_walk",
        "ramp_stairs",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "ramp_stairs_down_run",
        "ramp_stairs",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "stairs_ramp_up_walk",
        "stairs_ramp",
        Walk,
        Traverse { part: Up },
    ),
    sc(
        "stairs_ramp_up_run",
        "stairs_ramp",
        Run,
        Traverse { part: Up },
    ),
    sc(
        "stairs_ramp_down_walk",
        "stairs_ramp",
        Walk,
        Traverse { part: Down },
    ),
    sc(
        "stairs_ramp_down_run",
        "stairs_ramp",
        Run,
        Traverse { part: Down },
    ),
    sc(
        "rolling_bumps_walk",
        "rolling_bumps",
        Walk,
        Traverse { part: Whole },
    ),
    sc(
        "rolling_bumps_run",
        "rolling_bumps",
        Run,
        Traverse { part: Whole },
    ),
];

/// A state of the default graph's gait: `Locomotion`, or `Locomotion_HipsBack` (the same
/// blend with the hips turned the other way running sideways).
pub(super) fn is_gait_state(state: &str) -> bool {
    state.starts_with("Locomotion")
}

/// A scenario up or down one of the plain flights (`stairs_15cm`, `stairs_20cm`).
pub fn is_flight(name: &str) -> bool {
    name.starts_with("stairs_up_") || name.starts_with("stairs_down_")
}

/// A scenario over a section where a ramp runs straight into stairs.
pub fn is_junction(name: &str) -> bool {
    name.starts_with("ramp_stairs_") || name.starts_with("stairs_ramp_")
}

/// The scenarios named (all when `names` is empty), in run order; an unknown name is an
/// error listing the known ones.
pub fn chosen(names: &[String]) -> anyhow::Result<Vec<&'static Scenario>> {
    for name in names {
        if !SCENARIOS.iter().any(|s| s.name == name) {
            let known: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
            anyhow::bail!("unknown scenario '{name}'; known: {}", known.join(", "));
        }
    }
    Ok(SCENARIOS
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|n| n == s.name))
        .collect())
}

/// The terrain scenarios, by name: the flat walk and run and every scenario whose feet the
/// gate judges (stairs, ramps, cross-slope, pebbles, beams, junctions, bumps). What `run
/// --character` runs unless told otherwise.
pub fn terrain_scenarios() -> Vec<String> {
    SCENARIOS
        .iter()
        .filter(|s| {
            s.name.starts_with("flat_") && s.gait != Gait::Sprint
                || super::checks::foot_gated(s.name)
        })
        .map(|s| s.name.to_string())
        .collect()
}
