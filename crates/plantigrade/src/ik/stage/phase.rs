//! The gait phase of each foot: its contact (IK-5), how long it has swung, how long its
//! swings last, and the ground it lifted off from.

use glam::{Vec2, Vec3};

use super::{ease, FootIkConfig, FootState, Tick, STEP_DOWN_M};
use crate::ik::foot::SupportPlane;

/// A foot's swing, carried between ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Swing {
    pub(super) planted: bool,
    /// Time since this foot lifted off (s) and how long its last swing lasted (s; 0 until
    /// one has been seen).
    pub(super) time_s: f32,
    pub(super) last_s: f32,
    /// Height of the ground under the ball when this swing lifted off (m), to tell a swing
    /// onto another tread of a flight from one along the level.
    pub(super) liftoff_height_m: Option<f32>,
    /// The plane this foot stood on when its swing lifted off: the ground a swing starts
    /// from, and carries on over it (a ramp's), whatever it passes over on the way.
    pub(super) liftoff_plane: Option<SupportPlane>,
}

impl Swing {
    /// How far (m) ground at height `landing_y_m` is above the ground under the ball when
    /// this swing lifted off (below: negative); `None` before a lift-off was seen.
    pub(super) fn rise_from_liftoff_m(&self, landing_y_m: f32) -> Option<f32> {
        self.liftoff_height_m.map(|liftoff| landing_y_m - liftoff)
    }

    /// Whether ground at height `landing_y_m` is a step down from where this swing lifted
    /// off: [`STEP_DOWN_M`] or more below it.
    pub(super) fn steps_down_to(&self, landing_y_m: f32) -> bool {
        self.rise_from_liftoff_m(landing_y_m)
            .is_some_and(|rise| rise < -STEP_DOWN_M)
    }

    /// The look-ahead for this foot: the IK-1 time, but never past the moment the foot is
    /// expected to land (read on the animation's contact curve, else its last swing's
    /// length minus the time swung so far) — a foot about to land looks where it lands,
    /// not a stride further.
    pub(super) fn time_left_s(&self, look_ahead_s: f32, landing_in_s: f32) -> f32 {
        if landing_in_s.is_finite() {
            look_ahead_s.min(landing_in_s.max(0.0))
        } else if self.last_s > 0.0 {
            look_ahead_s.min((self.last_s - self.time_s).max(0.0))
        } else {
            look_ahead_s
        }
    }
}

/// IK-5: the foot's contact this tick, and the eased contact brought up to date in
/// `state`. Returns the contact before easing (the lock pins on it).
pub(super) fn update_contact(
    state: &mut FootState,
    contact_curve: f32,
    ankle_anim_world: Vec3,
    tick: &Tick,
    config: &FootIkConfig,
) -> f32 {
    let (dt_s, first) = (tick.dt_s, tick.first);
    // IK-5: contact from the curve, else from the foot's own speed.
    let raw_contact = if contact_curve.is_finite() {
        contact_curve.clamp(0.0, 1.0)
    } else {
        let speed = match (state.prev_ankle_world, dt_s > 0.0) {
            (Some(prev), true) => {
                let d = ankle_anim_world - prev;
                Vec2::new(d.x, d.z).length() / dt_s
            }
            _ => 0.0,
        };
        (speed < config.contact_speed_threshold_m_s) as u8 as f32
    };
    state.prev_ankle_world = Some(ankle_anim_world);
    state.contact = if first {
        raw_contact
    } else {
        ease(state.contact, raw_contact, dt_s, config.contact_ease_s)
    };
    raw_contact
}

/// Lift-off and touch-down, on the eased contact: a swing starts from the animation and
/// the ground the foot stood on, and a touch-down keeps how long the swing lasted. Returns
/// whether the foot is planted now.
pub(super) fn update_swing(state: &mut FootState, ball_xz: Vec2, dt_s: f32) -> bool {
    // Tread placement: a new swing starts from the animation; while swinging, a
    // landing across an edge moves the foot onto one tread, the shorter way.
    let planted_now = state.contact >= 0.5;
    if state.swing.planted && !planted_now {
        state.placement.wanted_world = Vec2::ZERO;
        state.swing.time_s = 0.0;
        let ball = ball_xz;
        state.swing.liftoff_height_m = state.ground.plane.map(|p| p.height_at(ball.x, ball.y));
        state.swing.liftoff_plane = state.ground.plane;
    }
    if planted_now && !state.swing.planted && state.swing.time_s > 0.0 {
        state.swing.last_s = state.swing.time_s;
    }
    if !planted_now {
        state.swing.time_s += dt_s;
    }
    state.swing.planted = planted_now;
    planted_now
}
