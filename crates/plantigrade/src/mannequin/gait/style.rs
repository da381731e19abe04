//! Tuning of the four gait families. Everything that makes a walk a walk and a sprint a
//! sprint is a number here; the generator in the parent module is shared.
//!
//! Values were chosen for the mannequin's proportions (leg 0.82 m, hip 0.90 m): cycle
//! durations and stance shares from SPEC MOVE-3 speeds and typical human gait, the
//! stance centres (`ball_ahead_m`) by scanning them (1 cm steps, per direction) for the
//! least pelvis lowering (the crouch walk needs none), the rest by eye on stick-figure
//! renders.

/// Tuning of one gait family. Angles in degrees here (`_deg`), converted once in
/// [`super::params::GaitParams::new`]; "forward", "backward" and "lateral" values are
/// blended by the clip's direction.
#[derive(Clone, Copy, Debug)]
pub(super) struct GaitStyle {
    pub speed_m_s: f32,
    /// Cycle (two steps) when moving straight forward, backward and sideways (s).
    /// Backward and sideways cycles are shorter so strides stay within the legs' reach.
    pub cycle_forward_s: f32,
    pub cycle_backward_s: f32,
    pub cycle_lateral_s: f32,
    /// Share of the cycle each foot is planted, as sampled at 60 Hz.
    pub stance_share: f32,
    /// Ball sockets' distance from the midline (m).
    pub foot_half_width_m: f32,
    /// Mid-stance ball sockets ahead of the hips (m), moving at 0°, 45°, 90°, 135° and
    /// 180° from straight ahead (interpolated between); tuned for the least pelvis
    /// lowering.
    pub ball_ahead_m: [f32; 5],
    /// Least distance between the two feet's heel–ball lines as they pass each other (m).
    /// Moving diagonally or sideways without a sidestep (runs) the feet are also staggered
    /// fore-aft to keep it.
    pub foot_clearance_m: f32,
    /// Sideways swing path bulge away from the planted foot (m, at pure sideways).
    pub swing_bulge_m: f32,
    /// Peak lift of the swinging foot's ball socket (m) and where in the swing it peaks.
    pub swing_lift_m: f32,
    pub swing_lift_peak: f32,
    /// Vertical speed of the foot's lower sole point leaving the ground at toe-off and
    /// reaching it at touch-down (m/s, ground frame). Below a set-down height the foot
    /// moves only vertically, so the faster it rises and lands the less of the swing that
    /// takes.
    pub liftoff_speed_m_s: f32,
    pub touchdown_speed_m_s: f32,
    /// Shares of the swing spent speeding the foot up and braking it (ground frame).
    pub swing_accelerate_share: f32,
    pub swing_brake_share: f32,
    /// Heel strike: toes up at touch-down, pivoting about the heel for `heel_strike_frames`.
    pub heel_strike_deg: f32,
    pub heel_strike_frames: usize,
    /// Ball-first landing, heel coming down over `landing_roll_share` of stance: walking
    /// backward, and the sprint's forefoot strike moving forward.
    pub ball_landing_backward_deg: f32,
    pub ball_landing_forward_deg: f32,
    pub ball_landing_lateral_deg: f32,
    pub landing_roll_share: f32,
    /// Heel-off roll about the ball at the end of stance, over `heel_off_share` of stance.
    pub heel_off_deg: f32,
    pub heel_off_share: f32,
    /// Walking backward: toes lift about the heel after the ball leaves the ground.
    pub toe_lift_backward_deg: f32,
    pub toe_lift_frames: usize,
    /// Keys per 60 Hz frame (see [`super::params::GaitParams::keys_per_frame`]).
    pub keys_per_frame: usize,
    /// Deepest dip the reach fit may add to the designed bob before the whole clip comes
    /// down instead (m).
    pub max_dip_m: f32,
    /// Mean pelvis height before any lowering for reach (m), bob (m; positive is
    /// highest at mid-stance as in walking, negative lowest as in running), sway toward
    /// the stance foot (m), yaw with the stepping leg, roll (swing side drops), lean into
    /// the direction of travel.
    pub pelvis_height_m: f32,
    pub pelvis_bob_m: f32,
    pub pelvis_sway_m: f32,
    pub pelvis_yaw_deg: f32,
    pub pelvis_roll_deg: f32,
    pub pelvis_lean_deg: f32,
    /// Extra forward bend of the spine (deg), and how far the chest turns against the
    /// pelvis yaw (share of the pelvis yaw).
    pub spine_lean_deg: f32,
    pub chest_counter_yaw: f32,
    /// Arms: lowered from the T-pose, fore-aft swing amplitude, forward bias, elbow bend
    /// and extra bend as the arm swings forward, finger curl (deg).
    pub arm_lower_deg: f32,
    pub arm_swing_deg: f32,
    pub arm_forward_deg: f32,
    pub elbow_flex_deg: f32,
    pub elbow_swing_flex_deg: f32,
    pub finger_curl_deg: f32,
    /// Stepping straight sideways (L and R only) as a side-shuffle that keeps the feet
    /// apart instead of crossing them; `None` crosses them as the diagonals do.
    pub sidestep: Option<SidestepStyle>,
}

/// A sidestep, for every direction with a sideways part: the leading foot steps out, the
/// trailing foot closes toward it, and the feet never cross. Without flight the gap
/// between the feet changes by the whole sideways stride (`speed · cycle · sideways
/// share`) each cycle, from `2 · foot_half_width_m − stride / 2` (as the trailing foot
/// lands) to `2 · foot_half_width_m + stride / 2` (as the leading foot lands): a wide
/// stance keeps the narrowest gap open, and the cycle is cut short where the stride would
/// close it (straight sideways and on the diagonals); the pelvis comes down so the legs
/// reach the wide landings.
#[derive(Clone, Copy, Debug)]
pub(super) struct SidestepStyle {
    /// Ball sockets' distance from the midline at mid-stance (m).
    pub foot_half_width_m: f32,
    /// Narrowest sideways gap between the ankles (m), which sets the longest cycle.
    pub min_gap_m: f32,
    /// Mean pelvis height (m) moving straight sideways, blended toward the style's by the
    /// sideways share: bent knees for the wide stance.
    pub pelvis_height_m: f32,
    /// Peak lift of the swinging foot (m) moving straight sideways, blended the same way:
    /// a shuffle stays low.
    pub swing_lift_m: f32,
}

pub(super) const WALK: GaitStyle = GaitStyle {
    speed_m_s: 1.75,
    cycle_forward_s: 0.967,
    cycle_backward_s: 0.867,
    cycle_lateral_s: 0.7,
    stance_share: 0.575,
    foot_half_width_m: 0.09,
    ball_ahead_m: [0.02, -0.05, 0.13, 0.03, 0.05],
    foot_clearance_m: 0.12,
    swing_bulge_m: 0.06,
    swing_lift_m: 0.08,
    swing_lift_peak: 0.3,
    liftoff_speed_m_s: 1.0,
    touchdown_speed_m_s: 0.8,
    swing_accelerate_share: 0.25,
    swing_brake_share: 0.12,
    heel_strike_deg: 15.0,
    heel_strike_frames: 1,
    ball_landing_backward_deg: 25.0,
    ball_landing_forward_deg: 0.0,
    ball_landing_lateral_deg: 0.0,
    landing_roll_share: 0.3,
    heel_off_deg: 50.0,
    heel_off_share: 0.5,
    toe_lift_backward_deg: 15.0,
    toe_lift_frames: 3,
    // Two keys per frame: sampled at 144 Hz between 60 Hz keys a planted ball
    // drifted 2.0–2.5 mm per stance (limit 2).
    keys_per_frame: 2,
    max_dip_m: 0.02,
    pelvis_height_m: 0.905,
    pelvis_bob_m: 0.02,
    pelvis_sway_m: 0.025,
    pelvis_yaw_deg: 6.0,
    pelvis_roll_deg: 4.0,
    pelvis_lean_deg: 3.0,
    spine_lean_deg: 2.0,
    chest_counter_yaw: 0.7,
    arm_lower_deg: 76.0,
    arm_swing_deg: 18.0,
    arm_forward_deg: 0.0,
    elbow_flex_deg: 18.0,
    elbow_swing_flex_deg: 15.0,
    finger_curl_deg: 20.0,
    // Straight sideways: a 0.40 s cycle (0.70 m stride), ankles 0.14-0.84 m apart.
    sidestep: Some(SidestepStyle {
        foot_half_width_m: 0.245,
        min_gap_m: 0.14,
        pelvis_height_m: 0.85,
        swing_lift_m: 0.06,
    }),
};

pub(super) const RUN: GaitStyle = GaitStyle {
    speed_m_s: 3.75,
    cycle_forward_s: 0.7,
    cycle_backward_s: 0.6,
    cycle_lateral_s: 0.55,
    stance_share: 0.37,
    foot_half_width_m: 0.07,
    ball_ahead_m: [0.03, 0.01, 0.03, 0.0, 0.03],
    foot_clearance_m: 0.10,
    swing_bulge_m: 0.08,
    swing_lift_m: 0.25,
    swing_lift_peak: 0.3,
    liftoff_speed_m_s: 1.5,
    touchdown_speed_m_s: 1.5,
    swing_accelerate_share: 0.3,
    swing_brake_share: 0.12,
    heel_strike_deg: 0.0,
    heel_strike_frames: 0,
    ball_landing_backward_deg: 25.0,
    ball_landing_forward_deg: 10.0,
    ball_landing_lateral_deg: 20.0,
    landing_roll_share: 0.3,
    heel_off_deg: 55.0,
    heel_off_share: 0.5,
    toe_lift_backward_deg: 10.0,
    toe_lift_frames: 2,
    keys_per_frame: 2,
    max_dip_m: 0.02,
    pelvis_height_m: 0.865,
    pelvis_bob_m: -0.015,
    pelvis_sway_m: 0.015,
    pelvis_yaw_deg: 8.0,
    pelvis_roll_deg: 3.0,
    pelvis_lean_deg: 6.0,
    spine_lean_deg: 5.0,
    chest_counter_yaw: 0.8,
    arm_lower_deg: 78.0,
    arm_swing_deg: 30.0,
    arm_forward_deg: 8.0,
    elbow_flex_deg: 80.0,
    elbow_swing_flex_deg: 15.0,
    finger_curl_deg: 50.0,
    // Running sideways the hips turn into the travel (see `GaitParams::hips_turned`).
    sidestep: None,
};

pub(super) const SPRINT: GaitStyle = GaitStyle {
    speed_m_s: 6.5,
    cycle_forward_s: 0.533,
    cycle_backward_s: 0.567,
    cycle_lateral_s: 0.567,
    stance_share: 0.315,
    foot_half_width_m: 0.06,
    ball_ahead_m: [0.02, 0.02, 0.02, 0.02, 0.02],
    foot_clearance_m: 0.10,
    swing_bulge_m: 0.08,
    swing_lift_m: 0.40,
    swing_lift_peak: 0.3,
    liftoff_speed_m_s: 2.5,
    touchdown_speed_m_s: 2.5,
    // Up to speed sooner after toe-off: the trailing leg reaches less far back.
    swing_accelerate_share: 0.2,
    swing_brake_share: 0.12,
    heel_strike_deg: 0.0,
    heel_strike_frames: 0,
    ball_landing_backward_deg: 0.0,
    ball_landing_forward_deg: 12.0,
    ball_landing_lateral_deg: 12.0,
    landing_roll_share: 0.25,
    heel_off_deg: 60.0,
    heel_off_share: 0.5,
    toe_lift_backward_deg: 0.0,
    toe_lift_frames: 0,
    keys_per_frame: 3,
    max_dip_m: 0.02,
    pelvis_height_m: 0.84,
    pelvis_bob_m: -0.02,
    pelvis_sway_m: 0.01,
    pelvis_yaw_deg: 10.0,
    pelvis_roll_deg: 2.0,
    pelvis_lean_deg: 10.0,
    spine_lean_deg: 8.0,
    chest_counter_yaw: 0.8,
    arm_lower_deg: 80.0,
    arm_swing_deg: 45.0,
    arm_forward_deg: 10.0,
    elbow_flex_deg: 88.0,
    elbow_swing_flex_deg: 10.0,
    finger_curl_deg: 60.0,
    sidestep: None,
};

pub(super) const CROUCH_WALK: GaitStyle = GaitStyle {
    speed_m_s: 1.5,
    cycle_forward_s: 1.2,
    cycle_backward_s: 1.1,
    cycle_lateral_s: 0.9,
    stance_share: 0.65,
    foot_half_width_m: 0.12,
    ball_ahead_m: [0.045, 0.03, 0.05, 0.08, 0.08],
    foot_clearance_m: 0.12,
    swing_bulge_m: 0.06,
    swing_lift_m: 0.06,
    swing_lift_peak: 0.4,
    liftoff_speed_m_s: 0.6,
    touchdown_speed_m_s: 0.6,
    // Shorter ramps leave room for the vertical set-down without a faster cruise.
    swing_accelerate_share: 0.3,
    swing_brake_share: 0.2,
    heel_strike_deg: 10.0,
    heel_strike_frames: 3,
    ball_landing_backward_deg: 20.0,
    ball_landing_forward_deg: 0.0,
    ball_landing_lateral_deg: 0.0,
    landing_roll_share: 0.3,
    heel_off_deg: 30.0,
    heel_off_share: 0.35,
    toe_lift_backward_deg: 10.0,
    toe_lift_frames: 3,
    // Two keys per frame: sampled at 144 Hz between 60 Hz keys a planted ball
    // drifted 2.0–2.5 mm per stance (limit 2).
    keys_per_frame: 2,
    max_dip_m: 0.02,
    pelvis_height_m: 0.62,
    pelvis_bob_m: 0.01,
    pelvis_sway_m: 0.03,
    pelvis_yaw_deg: 5.0,
    pelvis_roll_deg: 3.0,
    pelvis_lean_deg: 14.0,
    spine_lean_deg: 16.0,
    chest_counter_yaw: 0.6,
    arm_lower_deg: 74.0,
    arm_swing_deg: 12.0,
    arm_forward_deg: 25.0,
    elbow_flex_deg: 45.0,
    elbow_swing_flex_deg: 10.0,
    finger_curl_deg: 30.0,
    // Straight sideways: a 0.467 s cycle (0.70 m stride), ankles 0.20-0.90 m apart. The
    // crouched legs reach wider; at 0.14 m the closing foot came down 2 cm from the
    // planted one at 30 and 144 Hz while the body sped up.
    sidestep: Some(SidestepStyle {
        foot_half_width_m: 0.275,
        min_gap_m: 0.20,
        pelvis_height_m: 0.6,
        swing_lift_m: 0.05,
    }),
};
