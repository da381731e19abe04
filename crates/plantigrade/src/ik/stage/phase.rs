//! The gait phase of each foot: how long it has swung, how long its swings last, and the
//! ground it lifted off from.

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
