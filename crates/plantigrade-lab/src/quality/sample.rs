//! What one tick of a run looks like to the metrics: the feet, pelvis, head and tilt,
//! world space.

use glam::{Quat, Vec3};

/// One foot at one tick (world space, metres).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootSample {
    /// The knee (the calf joint).
    pub knee_world: Vec3,
    pub ankle_world: Vec3,
    /// Heel sole point.
    pub heel_world: Vec3,
    /// Ball sole point.
    pub ball_world: Vec3,
    /// Analytic ground height under the heel point (m); `None` off the course.
    pub ground_under_heel_m: Option<f32>,
    /// Analytic ground height under the ball point (m); `None` off the course.
    pub ground_under_ball_m: Option<f32>,
    /// Analytic ground height half way between heel and ball (m): on a slope it is the
    /// mean of the two, across a step edge it is one of them.
    pub ground_under_mid_m: Option<f32>,
    /// How deep the heel and ball points are inside the ground: the distance to the nearest
    /// surface, 0 on or above it (m; see `Course::depth_below_surface_m`). `None` when not
    /// known; penetration then takes the height below the ground under the point.
    pub heel_depth_m: Option<f32>,
    pub ball_depth_m: Option<f32>,
    /// 0..1 from the FootContact curve; NaN when the clip has none (stance then falls back to
    /// the foot's speed).
    pub contact: f32,
    pub ik_alpha: f32,
    pub predicted_landing_world: Option<Vec3>,
    pub heel_probe_hit: bool,
    pub toe_probe_hit: bool,
    pub locked: bool,
    /// The foot IK is stepping the foot (a lock let go mid-stance and the foot is lifted
    /// to where the animation has it): not in stance, whatever the curve says.
    pub stepping: bool,
}

/// Everything the metrics need from one tick of a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickSample {
    pub time_s: f32,
    /// Graph state name.
    pub state: String,
    pub root_world: Vec3,
    pub pelvis_world: Vec3,
    pub pelvis_rotation_world: Quat,
    pub grounded: bool,
    /// Left, right.
    pub feet: [FootSample; 2],
    /// Knee-flip events this tick.
    pub knee_flips: u32,
    /// Reach-clamp events this tick.
    pub reach_clamps: u32,
    /// Any NaN/∞ in the pose or position this tick.
    pub non_finite: bool,
    /// Applied pelvis tilt pitch (the procedural offset only), library convention: the tilt
    /// rotation is `R_x(-pitch) · R_z(roll)` in model space.
    pub tilt_pitch_rad: f32,
    pub tilt_roll_rad: f32,
    /// Truth: slope under the root along the facing, when on a uniform slope or stair flight.
    pub ground_pitch_rad: Option<f32>,
    pub ground_roll_rad: Option<f32>,
    /// Final head pitch (world).
    pub head_pitch_world_rad: f32,
    /// Head pitch before the procedural pass (what it would be on flat ground).
    pub head_pitch_anim_rad: f32,
    /// The character's forward (facing), horizontal unit vector.
    pub forward_world: Vec3,
    /// The trunk's top (neck, or the highest spine joint) and the head, final pose.
    pub neck_world: Vec3,
    pub head_world: Vec3,
    /// The trunk's lean as animated, before the procedural pass: the pelvis → neck line
    /// against vertical, signed along the facing, forward positive (rad).
    pub torso_lean_anim_rad: f32,
    /// The forward lean the character adds for its speed changes this tick (rad; see
    /// `plantigrade::lean`): part of the lean the posture profile expects, not an error.
    pub lean_pitch_rad: f32,
    /// Every joint of the final pose, in skeleton order (for filmstrips; may be empty).
    pub joints_world: Vec<Vec3>,
    /// How far the hips (the line between the thigh joints) are turned from the facing
    /// (rad, positive toward the left; see `crate::continuity::hips_yaw_rad`).
    pub hips_yaw_rad: f32,
}
