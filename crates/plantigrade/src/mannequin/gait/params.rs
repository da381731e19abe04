//! A gait family's tuning resolved for one direction of travel: timing in frames, foot
//! placement, pitches, pelvis and arm motion.

use glam::{Quat, Vec3};

use super::style::GaitStyle;
use super::GaitKind;
use crate::bone_map::Side;
use crate::mannequin::keys::KEY_RATE_HZ;

/// Heel socket to ball socket of the mannequin's foot (m), for spacing the feet.
const HEEL_TO_BALL_M: f32 = 0.1755;

/// Resolved parameters of one gait clip (radians, metres). Timing is in *frames* of the
/// 60 Hz tick ([`KEY_RATE_HZ`]); fast gaits put `keys_per_frame` keys in each frame.
#[derive(Clone, Debug)]
pub(in crate::mannequin) struct GaitParams {
    pub speed_m_s: f32,
    /// Unit ground direction in the gait frame: model space turned by `hip_yaw_rad`, in
    /// which the legs, pelvis and spine are planned.
    pub direction_model: Vec3,
    /// Yaw of the whole lower body (rad, about +Y) against the facing, with the spine
    /// turning the chest back to face ahead: 0 except for the hip-turned sideways runs.
    pub hip_yaw_rad: f32,
    /// Frames per cycle (even, so the right foot starts exactly half a cycle later).
    pub cycle_frames: usize,
    /// Frames each foot is planted: its ball socket is fixed from its contact-start frame
    /// through `stance_frames` frames later (`stance_share` of the cycle's time), so
    /// sampled at 60 Hz `stance_frames + 1` samples of each cycle are planted.
    pub stance_frames: usize,
    /// Keys per frame: walks and runs key at 120 Hz and the sprint at 180 Hz, so a planted
    /// foot, which sweeps far under the hip between two keys, stays on the ground (within
    /// half a millimetre) between them too, sampled at any rate (144 Hz as well).
    pub keys_per_frame: usize,
    /// Deepest pelvis dip the reach fit may add to the designed bob (m).
    pub max_dip_m: f32,
    /// Left foot's mid-stance ball socket relative to the point under the hips (the
    /// right foot mirrors it through that point), before `ball_ahead_m` (m).
    pub left_stance_offset_model: Vec3,
    pub ball_ahead_m: f32,
    pub swing_bulge_m: f32,
    pub swing_lift_m: f32,
    pub swing_lift_peak: f32,
    pub liftoff_speed_m_s: f32,
    pub touchdown_speed_m_s: f32,
    pub swing_accelerate_share: f32,
    pub swing_brake_share: f32,
    pub heel_strike_rad: f32,
    pub heel_strike_frames: usize,
    pub ball_landing_rad: f32,
    pub landing_roll_frames: usize,
    pub heel_off_rad: f32,
    pub heel_off_frames: usize,
    pub toe_lift_rad: f32,
    pub toe_lift_frames: usize,
    pub pelvis_height_m: f32,
    pub pelvis_bob_m: f32,
    pub pelvis_sway_m: f32,
    pub pelvis_yaw_rad: f32,
    pub pelvis_roll_rad: f32,
    pub pelvis_lean_rad: f32,
    pub spine_lean_rad: f32,
    pub chest_counter_yaw: f32,
    pub arm_lower_rad: f32,
    pub arm_swing_rad: f32,
    pub arm_forward_rad: f32,
    pub elbow_flex_rad: f32,
    pub elbow_swing_flex_rad: f32,
    pub finger_curl_rad: f32,
}

impl GaitParams {
    /// Parameters of `kind` moving along `direction_model` (unit, horizontal).
    pub(in crate::mannequin) fn new(kind: GaitKind, direction_model: Vec3) -> Self {
        let style: &GaitStyle = kind.style();
        // Any travel with a sideways part sidesteps in the families that can (walks): the
        // feet stay side by side and never cross. Runs cross over (turning the hips).
        let sidestep = style.sidestep.filter(|_| direction_model.x.abs() > 1e-3);
        let forward = direction_model.z.max(0.0);
        let backward = (-direction_model.z).max(0.0);
        let sideways = direction_model.x.abs();
        // Squared weights sum to 1 on the unit circle.
        let (w_forward, w_backward, w_lateral) =
            (forward * forward, backward * backward, sideways * sideways);
        let cycle_s = style.cycle_forward_s * w_forward
            + style.cycle_backward_s * w_backward
            + style.cycle_lateral_s * w_lateral;
        let cycle_frames = match sidestep {
            Some(sidestep) => {
                // The gap between the feet narrows by the sideways stride (speed · cycle ·
                // sideways share) from the leading foot's landing to the trailing foot's:
                // the cycle is short enough for the narrowest gap to stay `min_gap_m`,
                // rounded down to whole frame pairs.
                let longest_s = 2.0 * (2.0 * sidestep.foot_half_width_m - sidestep.min_gap_m)
                    / (style.speed_m_s * sideways);
                let half_frames = (cycle_s.min(longest_s) * KEY_RATE_HZ / 2.0 + 1e-3).floor();
                2.0 * half_frames.max(1.0)
            }
            None => (2.0 * (cycle_s * KEY_RATE_HZ / 2.0).round()).max(2.0),
        } as usize;
        // The style's stance share is of the cycle's time: the ball is fixed for
        // `stance_frames` frames. (Taken as a count of 60 Hz samples, `stance_frames + 1`,
        // the planted time came out one frame short: sampled at 144 Hz, which sees the
        // time and not the fence-post count, a walk planted 0.54 of its cycle.)
        let stance_frames = ((style.stance_share * cycle_frames as f32).round() as usize)
            .clamp(1, cycle_frames - 2);
        let share_frames = |share: f32| (share * stance_frames as f32).round() as usize;
        let (left_stance_offset_model, across) = match sidestep {
            // Side by side, wide apart: no stagger, no swing around the other foot.
            Some(sidestep) => (Vec3::X * sidestep.foot_half_width_m, 0.0),
            None => stance_offset(
                direction_model,
                style.foot_half_width_m,
                style.foot_clearance_m,
            ),
        };

        let ball_landing_deg = style.ball_landing_backward_deg * backward
            + style.ball_landing_forward_deg * forward
            + style.ball_landing_lateral_deg * sideways;
        let heel_strike_deg = style.heel_strike_deg * forward;
        // Heels rise pushing off forward, a little stepping sideways, not walking backward
        // (the foot ends its stance in front, where the toes lift instead).
        let heel_off_deg = style.heel_off_deg * (forward + 0.4 * sideways * (1.0 - backward));
        let toe_lift_deg = style.toe_lift_backward_deg * backward;
        // A roll of under half a degree is no roll: it gets no frames.
        let frames_if = |angle_deg: f32, frames: usize| if angle_deg > 0.5 { frames } else { 0 };
        let landing_roll_frames = frames_if(
            ball_landing_deg,
            share_frames(style.landing_roll_share).max(1),
        );
        let heel_off_frames = frames_if(heel_off_deg, share_frames(style.heel_off_share).max(1))
            .min(stance_frames.saturating_sub(landing_roll_frames));
        let swing_frames = cycle_frames - stance_frames;
        let heel_strike_frames =
            frames_if(heel_strike_deg, style.heel_strike_frames).min(swing_frames / 4);
        let toe_lift_frames = frames_if(toe_lift_deg, style.toe_lift_frames).min(swing_frames / 4);

        Self {
            speed_m_s: style.speed_m_s,
            direction_model,
            hip_yaw_rad: 0.0,
            cycle_frames,
            stance_frames,
            keys_per_frame: style.keys_per_frame,
            max_dip_m: style.max_dip_m,
            left_stance_offset_model,
            ball_ahead_m: by_angle(&style.ball_ahead_m, direction_model),
            swing_bulge_m: style.swing_bulge_m * across,
            swing_lift_m: sidestep.map_or(style.swing_lift_m, |s| {
                lerp(style.swing_lift_m, s.swing_lift_m, sideways)
            }),
            swing_lift_peak: style.swing_lift_peak,
            liftoff_speed_m_s: style.liftoff_speed_m_s,
            touchdown_speed_m_s: style.touchdown_speed_m_s,
            swing_accelerate_share: style.swing_accelerate_share,
            swing_brake_share: style.swing_brake_share,
            heel_strike_rad: heel_strike_deg.to_radians(),
            heel_strike_frames,
            ball_landing_rad: ball_landing_deg.to_radians(),
            landing_roll_frames,
            heel_off_rad: heel_off_deg.to_radians(),
            heel_off_frames,
            toe_lift_rad: toe_lift_deg.to_radians(),
            toe_lift_frames,
            pelvis_height_m: sidestep.map_or(style.pelvis_height_m, |s| {
                lerp(style.pelvis_height_m, s.pelvis_height_m, sideways)
            }),
            pelvis_bob_m: style.pelvis_bob_m,
            pelvis_sway_m: style.pelvis_sway_m,
            pelvis_yaw_rad: style.pelvis_yaw_deg.to_radians(),
            pelvis_roll_rad: style.pelvis_roll_deg.to_radians(),
            pelvis_lean_rad: style.pelvis_lean_deg.to_radians(),
            spine_lean_rad: style.spine_lean_deg.to_radians(),
            chest_counter_yaw: style.chest_counter_yaw,
            arm_lower_rad: style.arm_lower_deg.to_radians(),
            arm_swing_rad: style.arm_swing_deg.to_radians(),
            arm_forward_rad: style.arm_forward_deg.to_radians(),
            elbow_flex_rad: style.elbow_flex_deg.to_radians(),
            elbow_swing_flex_rad: style.elbow_swing_flex_deg.to_radians(),
            finger_curl_rad: style.finger_curl_deg.to_radians(),
        }
    }

    /// Parameters of `kind` travelling along `travel_model` (unit, horizontal) with the
    /// hips yawed by `hip_yaw_rad` (positive turns them toward +X, the left): the legs run
    /// the gait of the direction the travel has in the hips' frame (a sideways run with
    /// the hips turned 45° into it runs the forward diagonal).
    pub(in crate::mannequin) fn hips_turned(
        kind: GaitKind,
        travel_model: Vec3,
        hip_yaw_rad: f32,
    ) -> Self {
        let direction_gait = Quat::from_rotation_y(-hip_yaw_rad) * travel_model;
        Self {
            hip_yaw_rad,
            ..Self::new(kind, direction_gait)
        }
    }

    /// Velocity in the gait frame (m/s), which the feet are planned in.
    pub fn velocity_model_m_s(&self) -> Vec3 {
        self.direction_model * self.speed_m_s
    }

    /// The gait frame's rotation into model space.
    pub fn hip_turn(&self) -> Quat {
        Quat::from_rotation_y(self.hip_yaw_rad)
    }

    /// The body's velocity in model space (m/s): the clip's authored velocity.
    pub fn travel_velocity_model_m_s(&self) -> Vec3 {
        self.hip_turn() * self.velocity_model_m_s()
    }

    /// Frame at which `side`'s contact starts: left at 0, right half a cycle later.
    pub fn contact_start_frame(&self, side: Side) -> usize {
        match side {
            Side::Left => 0,
            Side::Right => self.cycle_frames / 2,
        }
    }

    pub fn cycle_keys(&self) -> usize {
        self.cycle_frames * self.keys_per_frame
    }

    pub fn key_rate_hz(&self) -> f32 {
        KEY_RATE_HZ * self.keys_per_frame as f32
    }

    /// Seconds from `side`'s last contact start to key `key` (exact at keys, so a foot's
    /// last planted key is recognised as such).
    pub fn since_contact_s(&self, side: Side, key: usize) -> f32 {
        let cycle_keys = self.cycle_keys();
        let start_key = self.contact_start_frame(side) * self.keys_per_frame;
        ((key + cycle_keys - start_key) % cycle_keys) as f32 / self.key_rate_hz()
    }
}

/// The left foot's stance offset from the point under the hips for a gait along
/// `direction_model` (the right foot mirrors it through that point), and how sideways the
/// foot tracks lie (0 moving straight ahead or back, 1 moving sideways).
///
/// Each foot's ball socket travels along a line parallel to the direction of travel,
/// through the point under its hip (`half_width_m` out) — unless the two lines would come
/// closer (measured across the travel) than the feet need to pass each other with
/// `clearance_m` between their heel–ball lines; then the lines are pushed apart across the
/// travel. Moving ahead or back the hip width is enough; diagonally and sideways the feet
/// end up staggered. Moving left or forward-left (right, forward-right) the trailing foot
/// passes in front and the leading foot behind; backward diagonals stagger the other way,
/// so the left foot always stays on the left.
fn stance_offset(direction_model: Vec3, half_width_m: f32, clearance_m: f32) -> (Vec3, f32) {
    // Unit vector across the travel, on the left foot's side (+X where that is defined).
    let mut across = Vec3::new(direction_model.z, 0.0, -direction_model.x);
    if across.x < -1e-6 {
        across = -across;
    }
    let under_hip = Vec3::new(half_width_m, 0.0, 0.0);
    // Half the feet's extent across the travel: the heel–ball line is along +Z.
    let needed_m = 0.5 * (clearance_m + HEEL_TO_BALL_M * across.z.abs());
    let along_m = under_hip.dot(direction_model);
    let across_m = under_hip.dot(across).max(needed_m);
    (
        direction_model * along_m + across * across_m,
        across.z.abs(),
    )
}

/// A value tabulated every 45° from straight ahead (+Z) to straight back, linearly
/// interpolated at the angle of `direction_model` (left and right alike).
fn by_angle(table: &[f32; 5], direction_model: Vec3) -> f32 {
    let angle = direction_model.x.abs().atan2(direction_model.z);
    let position = (angle / std::f32::consts::FRAC_PI_4).clamp(0.0, 4.0);
    let below = (position.floor() as usize).min(3);
    lerp(table[below], table[below + 1], position - below as f32)
}

pub(super) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}
