//! The default run's scripted parameter timeline: idle → walk → run → stop → crouch → jump
//! → land, played through the default graph on flat ground with the character moving at
//! the commanded speed. Reports per state the time spent and the planted drift of the
//! resulting feet (SPEC QUAL-3).

use std::sync::Arc;

use glam::{Quat, Vec3};
use plantigrade::graph::{GraphAsset, GraphEvent, GraphInstance, MachineId};
use plantigrade::mannequin::{self, Mannequin};
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::Side;
use serde::Serialize;

use crate::report::Check;

/// What the script asks for from a time on.
#[derive(Clone, Copy)]
struct Command {
    from_s: f32,
    label: &'static str,
    speed_m_s: f32,
    crouch: bool,
    /// Jump with this take-off speed (m/s) at `from_s`.
    jump_m_s: Option<f32>,
}

const fn cmd(
    from_s: f32,
    label: &'static str,
    speed_m_s: f32,
    crouch: bool,
    jump_m_s: Option<f32>,
) -> Command {
    Command {
        from_s,
        label,
        speed_m_s,
        crouch,
        jump_m_s,
    }
}

const SCRIPT: [Command; 9] = [
    cmd(0.0, "idle", 0.0, false, None),
    cmd(1.0, "walk", 1.75, false, None),
    cmd(3.5, "run", 3.75, false, None),
    cmd(6.0, "stop", 0.0, false, None),
    cmd(7.5, "crouch walk", 1.5, true, None),
    cmd(10.0, "stand", 0.0, false, None),
    cmd(11.0, "jump (heavy landing)", 0.0, false, Some(9.0)),
    cmd(13.5, "jump (light landing)", 0.0, false, Some(3.5)),
    cmd(15.5, "idle", 0.0, false, None),
];
const END_S: f32 = 17.0;
/// How fast the commanded speed changes (m/s²), like a movement model would.
const ACCELERATION_M_S2: f32 = 8.0;
const GRAVITY_M_S2: f32 = 9.8 * 2.5;

#[derive(Serialize, Default, Clone)]
pub struct StateRow {
    pub state: String,
    pub time_s: f32,
    pub stances: usize,
    pub planted_drift_mean_mm: f32,
    /// The typical stance: steady gaits sit here, transitions pull the mean and max up.
    pub planted_drift_median_mm: f32,
    pub planted_drift_max_mm: f32,
}

#[derive(Serialize)]
pub struct TimelineResult {
    pub hz: f32,
    pub states: Vec<StateRow>,
    /// `(time_s, state)` at each state entry of the base machine, in order.
    pub entered: Vec<(f32, String)>,
    pub checks: Vec<Check>,
}

struct Stance {
    state: usize,
    last_ball_world: Vec3,
    drift_m: f32,
}

pub fn run(hz: f32) -> anyhow::Result<TimelineResult> {
    let m = Mannequin::new();
    let asset = Arc::new(GraphAsset::from_ron(
        mannequin::DEFAULT_GRAPH_RON,
        &m.skeleton,
        m.clips.clone(),
    )?);
    let mut graph = GraphInstance::new(asset.clone());
    let p = asset.params();
    let speed = p.float("speed")?;
    let input_speed = p.float("input_speed")?;
    let is_moving = p.bool("is_moving")?;
    let crouching = p.bool("is_crouching")?;
    let grounded = p.bool("is_grounded")?;
    let vertical = p.float("vertical_velocity")?;
    let land = p.float("land_velocity")?;
    let contact_ids = [
        asset.curve_id("FootContact_L"),
        asset.curve_id("FootContact_R"),
    ];
    let base = MachineId(0);
    let state_count = asset.state_names(base).count();
    let mut rows: Vec<StateRow> = asset
        .state_names(base)
        .map(|s| StateRow {
            state: s.to_string(),
            ..Default::default()
        })
        .collect();
    let mut drifts: Vec<Vec<f32>> = vec![Vec::new(); state_count];
    let legs = [m.bones.leg(Side::Left)?, m.bones.leg(Side::Right)?];
    let sockets = [
        m.bones.feet[0].ok_or_else(|| anyhow::anyhow!("no left foot sockets"))?,
        m.bones.feet[1].ok_or_else(|| anyhow::anyhow!("no right foot sockets"))?,
    ];

    let dt = 1.0 / hz;
    let mut pose = Pose::rest(&m.skeleton);
    let mut model = ModelPose::new(m.skeleton.num_joints());
    let mut root_world = Vec3::ZERO;
    let mut yaw_rad = 0.0f32;
    let mut current_speed = 0.0f32;
    let mut vy = 0.0f32;
    let mut airborne = false;
    let mut stances: [Option<Stance>; 2] = [None, None];
    let mut entered = vec![(0.0, rows[0].state.clone())];
    let mut command_index = 0;
    let ticks = (END_S * hz).round() as usize;
    for tick in 0..ticks {
        let t = tick as f32 * dt;
        while command_index + 1 < SCRIPT.len() && t >= SCRIPT[command_index + 1].from_s {
            command_index += 1;
            if let Some(takeoff) = SCRIPT[command_index].jump_m_s {
                vy = takeoff;
                airborne = true;
            }
        }
        let command = SCRIPT[command_index];
        let step = ACCELERATION_M_S2 * dt;
        current_speed += (command.speed_m_s - current_speed).clamp(-step, step);
        let mut landed_at = None;
        if airborne {
            vy -= GRAVITY_M_S2 * dt;
            root_world.y += vy * dt;
            if root_world.y <= 0.0 {
                root_world.y = 0.0;
                airborne = false;
                landed_at = Some(-vy);
            }
        }
        let params = graph.params_mut();
        params.set_float(speed, current_speed);
        params.set_float(input_speed, command.speed_m_s);
        params.set_bool(is_moving, current_speed > 0.05);
        params.set_bool(crouching, command.crouch);
        params.set_bool(grounded, !airborne);
        params.set_float(vertical, if airborne { vy } else { 0.0 });
        if let Some(impact) = landed_at {
            params.set_float(land, impact);
        }
        graph.tick(dt, &mut pose)?;
        let rm = graph.root_motion();
        root_world += Quat::from_rotation_y(yaw_rad) * rm.translation_m;
        yaw_rad += rm.yaw_rad;
        let facing = Quat::from_rotation_y(yaw_rad);
        root_world += facing * Vec3::Z * current_speed * dt;
        local_to_model(&m.skeleton, &pose, &mut model)?;
        for e in graph.events() {
            if let GraphEvent::StateEntered { machine, state } = *e {
                if machine == base && tick > 0 {
                    entered.push((t, asset.state_name(base, state).to_string()));
                }
            }
        }
        let state = graph.current_state(base).map_or(0, |s| s.0 as usize);
        rows[state].time_s += dt;
        for f in 0..2 {
            let ball_world =
                root_world + facing * model.point_model(legs[f].foot, sockets[f].ball_foot_local);
            let contact = contact_ids[f].map_or(0.0, |id| graph.curve(id));
            match (&mut stances[f], contact >= 0.5) {
                (Some(s), true) => {
                    let d = ball_world - s.last_ball_world;
                    s.drift_m += Vec3::new(d.x, 0.0, d.z).length();
                    s.last_ball_world = ball_world;
                }
                (slot @ None, true) => {
                    *slot = Some(Stance {
                        state,
                        last_ball_world: ball_world,
                        drift_m: 0.0,
                    })
                }
                (slot, false) => {
                    if let Some(s) = slot.take() {
                        drifts[s.state].push(s.drift_m * 1000.0);
                    }
                }
            }
        }
    }
    for (row, d) in rows.iter_mut().zip(&drifts) {
        row.stances = d.len();
        row.planted_drift_mean_mm = if d.is_empty() {
            0.0
        } else {
            d.iter().sum::<f32>() / d.len() as f32
        };
        row.planted_drift_max_mm = d.iter().copied().fold(0.0, f32::max);
        let mut sorted = d.clone();
        sorted.sort_by(f32::total_cmp);
        row.planted_drift_median_mm = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    }
    let visited: Vec<&str> = entered.iter().map(|(_, s)| s.as_str()).collect();
    let mut checks = Vec::new();
    for wanted in ["Locomotion", "Crouch", "Jump", "Land"] {
        let n = visited.iter().filter(|s| **s == wanted).count();
        checks.push(Check::new(
            format!("timeline_visits_{}", wanted.to_lowercase()),
            n > 0,
            format!("entered {n} times"),
        ));
    }
    let order_ok = visited
        .windows(2)
        .filter(|w| w[0] == "Jump")
        .all(|w| w[1] == "Land");
    checks.push(Check::new(
        "timeline_jump_then_land",
        order_ok,
        format!("state order: {}", visited.join(" → ")),
    ));
    Ok(TimelineResult {
        hz,
        states: rows,
        entered,
        checks,
    })
}

pub fn print(result: &TimelineResult) {
    println!("\nDefault graph, scripted timeline ({} s at {} Hz): idle → walk → run → stop → crouch → jump → land", END_S, result.hz);
    let script: Vec<String> = SCRIPT
        .iter()
        .map(|c| format!("{:.1} s {}", c.from_s, c.label))
        .collect();
    println!("(script: {})\n", script.join(", "));
    println!(
        "{:<12} {:>8} {:>8} {:>10} {:>10} {:>10}",
        "state", "time s", "stances", "drift mm", "median mm", "drift max"
    );
    for r in &result.states {
        println!(
            "{:<12} {:>8.2} {:>8} {:>10.2} {:>10.2} {:>10.2}",
            r.state,
            r.time_s,
            r.stances,
            r.planted_drift_mean_mm,
            r.planted_drift_median_mm,
            r.planted_drift_max_mm
        );
    }
    println!(
        "(a stance that spans a start, a stop or a state change slides: blending alone cannot"
    );
    println!(" pin a foot while the blend moves it; that is foot lock's job, SPEC IK-9)");
    let entered: Vec<String> = result
        .entered
        .iter()
        .map(|(t, s)| format!("{t:.2} {s}"))
        .collect();
    println!("\nstates entered: {}", entered.join(", "));
}
