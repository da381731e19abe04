//! One foot's trajectory over a gait cycle, planned in the ground frame (see the parent
//! module): planted, rolling over the ball, swinging to the next landing point.

use glam::{Quat, Vec3};

use super::params::{lerp, GaitParams};
use crate::bone_map::Side;
use crate::mannequin::body::FootTarget;
use crate::mannequin::easing::{hump, increasing_inverse, smoothstep, swing_lift, swing_progress};
use crate::mannequin::keys::key_time_s;
use crate::mannequin::rig::Rig;

/// Below this height (its lower sole point) the swinging foot moves only vertically in the
/// ground frame: it rises before it moves off and sets down where it lands, so it neither
/// scuffs nor skids (QUAL-4 counts horizontal travel within 1 cm of the ground; the rest
/// is margin for the pitch blend).
const SET_DOWN_HEIGHT_M: f32 = 0.015;

/// One foot's plan over a cycle, measured from its contact start.
#[derive(Clone, Debug)]
pub(super) struct FootPlan {
    /// Ball socket where it lands, model space at contact start (m).
    landing_model: Vec3,
    velocity_model_m_s: Vec3,
    /// Heel socket minus ball socket in the foot frame (m).
    heel_from_ball_foot: Vec3,
    cycle_s: f32,
    stance_s: f32,
    landing_roll_s: f32,
    heel_off_s: f32,
    toe_lift_s: f32,
    heel_strike_s: f32,
    ball_landing_rad: f32,
    heel_off_rad: f32,
    toe_lift_rad: f32,
    heel_strike_rad: f32,
    swing_lift_m: f32,
    swing_lift_peak: f32,
    /// Slopes of the lift curve leaving and reaching the ground (see `swing_lift`).
    liftoff_slope: f32,
    touchdown_slope: f32,
    /// Shares of the free swing at which the foot starts and stops moving over the ground:
    /// where its lift passes [`SET_DOWN_HEIGHT_M`].
    move_start_share: f32,
    move_end_share: f32,
    swing_accelerate_share: f32,
    swing_brake_share: f32,
    /// Peak sideways offset of the swing path (m, horizontal).
    swing_bulge_model: Vec3,
}

impl FootPlan {
    pub(super) fn new(params: &GaitParams, rig: &Rig, side: Side) -> Self {
        let velocity = params.velocity_model_m_s();
        let stance_s = key_time_s(params.stance_frames);
        let offset = match side {
            Side::Left => params.left_stance_offset_model,
            Side::Right => -params.left_stance_offset_model,
        };
        // Out under the rig's hips (0 for the mannequin).
        let offset = offset + Vec3::X * rig.sole_out(side, 0.0);
        let stance_centre = offset + Vec3::Z * params.ball_ahead_m;
        let leg = rig.leg(side);
        let cycle_s = key_time_s(params.cycle_frames);
        let toe_lift_s = key_time_s(params.toe_lift_frames);
        let heel_strike_s = key_time_s(params.heel_strike_frames);
        let free_s = (cycle_s - stance_s - toe_lift_s - heel_strike_s).max(1e-6);
        let lift_m = params.swing_lift_m.max(1e-6);
        let peak = params.swing_lift_peak;
        // Vertical speeds (m/s) as slopes of the lift curve over its rise and its descent.
        let liftoff_slope = params.liftoff_speed_m_s * peak * free_s / lift_m;
        let touchdown_slope = params.touchdown_speed_m_s * (1.0 - peak) * free_s / lift_m;
        let lift = |u: f32| lift_m * swing_lift(u, peak, liftoff_slope, touchdown_slope);
        let (move_start_share, move_end_share) = if lift_m > 2.0 * SET_DOWN_HEIGHT_M {
            (
                increasing_inverse(lift, SET_DOWN_HEIGHT_M, 0.0, peak),
                1.0 - increasing_inverse(|x| lift(1.0 - x), SET_DOWN_HEIGHT_M, 0.0, 1.0 - peak),
            )
        } else {
            // A shuffle too low to clear the set-down height moves over the whole swing.
            (0.0, 1.0)
        };
        Self {
            landing_model: stance_centre + velocity * (stance_s / 2.0),
            velocity_model_m_s: velocity,
            heel_from_ball_foot: leg.heel_socket_foot_local - leg.ball_socket_foot_local,
            cycle_s,
            stance_s,
            landing_roll_s: key_time_s(params.landing_roll_frames),
            heel_off_s: key_time_s(params.heel_off_frames),
            toe_lift_s,
            heel_strike_s,
            ball_landing_rad: params.ball_landing_rad,
            heel_off_rad: params.heel_off_rad,
            toe_lift_rad: params.toe_lift_rad,
            heel_strike_rad: params.heel_strike_rad,
            swing_lift_m: params.swing_lift_m,
            swing_lift_peak: peak,
            liftoff_slope,
            touchdown_slope,
            move_start_share,
            move_end_share,
            swing_accelerate_share: params.swing_accelerate_share,
            swing_brake_share: params.swing_brake_share,
            // Staggered feet swing around each other on their own side.
            swing_bulge_model: Vec3::Z * (offset.z.signum() * params.swing_bulge_m),
        }
    }

    /// The foot target `since_contact_s` after contact start, in model space.
    pub(super) fn target(&self, since_contact_s: f32) -> FootTarget {
        let (ball_ground, pitch_rad) = self.ground_pose(since_contact_s);
        let ball_model = ball_ground - self.velocity_model_m_s * since_contact_s;
        FootTarget::with_flat_toes(ball_model, 0.0, pitch_rad)
    }

    /// Ball socket in the ground frame (coinciding with model space at contact start) and
    /// foot pitch.
    fn ground_pose(&self, since_contact_s: f32) -> (Vec3, f32) {
        let s = since_contact_s;
        if s <= self.stance_s {
            return (self.landing_model, self.stance_pitch(s));
        }
        let swing_s = s - self.stance_s;
        let swing_total_s = self.cycle_s - self.stance_s;
        let next_landing = self.landing_model + self.velocity_model_m_s * self.cycle_s;

        // Toe lift: pivot about the heel where it was when the ball left the ground.
        let heel_at_lift = self.pivot_point(self.landing_model, self.heel_off_rad);
        let lifted_pitch = self.heel_off_rad - self.toe_lift_rad;
        if swing_s < self.toe_lift_s {
            let pitch =
                self.heel_off_rad - self.toe_lift_rad * smoothstep(swing_s / self.toe_lift_s);
            return (self.ball_about_heel(heel_at_lift, pitch), pitch);
        }

        // Heel strike: pivot about the heel where it will be when the ball comes down.
        let heel_at_landing = self.pivot_point(next_landing, self.ball_landing_rad);
        let strike_pitch = self.ball_landing_rad - self.heel_strike_rad;
        let strike_start_s = swing_total_s - self.heel_strike_s;
        if swing_s > strike_start_s {
            let u = (swing_s - strike_start_s) / self.heel_strike_s;
            let pitch = strike_pitch + self.heel_strike_rad * smoothstep(u);
            return (self.ball_about_heel(heel_at_landing, pitch), pitch);
        }

        // Free swing between the two pivots, each with its lower sole point on the ground:
        // the foot rises there, moves over the ground only while high enough, and comes
        // straight down onto the next (the ground frame's descent is vertical).
        let from = self.ball_about_heel(heel_at_lift, lifted_pitch);
        let to = self.ball_about_heel(heel_at_landing, strike_pitch);
        let free_s = (strike_start_s - self.toe_lift_s).max(1e-6);
        let u = (swing_s - self.toe_lift_s) / free_s;
        let moving = ((u - self.move_start_share)
            / (self.move_end_share - self.move_start_share).max(1e-6))
        .clamp(0.0, 1.0);
        let progress = swing_progress(moving, self.swing_accelerate_share, self.swing_brake_share);
        let mut ball = from.lerp(to, progress) + self.swing_bulge_model * hump(moving);
        ball.y += self.swing_lift_m
            * swing_lift(
                u,
                self.swing_lift_peak,
                self.liftoff_slope,
                self.touchdown_slope,
            );
        (ball, lerp(lifted_pitch, strike_pitch, progress))
    }

    /// Pitch while planted: the ball-first landing rolls down, then the heel rises.
    fn stance_pitch(&self, s: f32) -> f32 {
        let landing = if self.landing_roll_s > 0.0 {
            self.ball_landing_rad * (1.0 - smoothstep(s / self.landing_roll_s))
        } else {
            0.0
        };
        let heel_off = if self.heel_off_s > 0.0 {
            let start_s = self.stance_s - self.heel_off_s;
            self.heel_off_rad * smoothstep((s - start_s) / self.heel_off_s)
        } else {
            0.0
        };
        landing + heel_off
    }

    /// Heel socket of a foot with its ball socket at `ball` and pitch `pitch_rad`.
    fn pivot_point(&self, ball: Vec3, pitch_rad: f32) -> Vec3 {
        ball + Quat::from_rotation_x(pitch_rad) * self.heel_from_ball_foot
    }

    /// Ball socket of a foot pivoting about `heel` at pitch `pitch_rad`.
    fn ball_about_heel(&self, heel: Vec3, pitch_rad: f32) -> Vec3 {
        heel - Quat::from_rotation_x(pitch_rad) * self.heel_from_ball_foot
    }
}
