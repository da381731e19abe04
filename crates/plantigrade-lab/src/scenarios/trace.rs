//! What a run records per tick for its checks, the CSV trace and the debug draw.

use glam::Vec3;

use crate::quality::TickSample;

/// Per tick, what the checks need.
#[derive(Default, Clone, Debug)]
pub struct Trace {
    pub time_s: Vec<f32>,
    pub feet_world: Vec<Vec3>,
    pub speed_m_s: Vec<f32>,
    pub facing_yaw_rad: Vec<f32>,
    pub crouching: Vec<bool>,
    pub pushing_wall: Vec<bool>,
    pub capsule_height_m: Vec<f32>,
    pub grounded: Vec<bool>,
    pub state: Vec<String>,
    /// What the quality metrics and the CSV trace are computed from.
    pub samples: Vec<TickSample>,
    /// Debug draw commands (IK-12, TILT-10) every [`DEBUG_DRAW_EVERY_TICKS`] ticks, as
    /// JSON values `{time_s, draw}`.
    pub debug_draw: Vec<serde_json::Value>,
}

impl Trace {
    pub(super) fn record(
        &mut self,
        t: f32,
        feet: Vec3,
        out: &plantigrade::motion::MovementOutput,
        state: &str,
        capsule_height_m: f32,
    ) {
        self.time_s.push(t);
        self.feet_world.push(feet);
        self.speed_m_s.push(out.vars.speed);
        self.facing_yaw_rad.push(out.facing_yaw_rad);
        self.crouching.push(out.vars.is_crouching);
        self.pushing_wall.push(out.vars.is_pushing_wall);
        self.capsule_height_m.push(capsule_height_m);
        self.grounded.push(out.vars.is_grounded);
        self.state.push(state.to_string());
    }
}

/// How often a run keeps the character's debug draw for `--trace` (ticks).
pub const DEBUG_DRAW_EVERY_TICKS: usize = 30;
