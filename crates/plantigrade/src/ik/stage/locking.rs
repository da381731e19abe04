//! How the stage drives the foot lock (IK-9, the lock itself is [`crate::ik::lock`]):
//! where the animation has each ball as the lock sees it, which foot may settle, the lock's
//! update with a foot landed across an edge set down on one tread, and the lift of a foot
//! stepping back after a release.

use glam::{Quat, Vec2};

use super::support::{tread_shift, TreadReach};
use super::{AnimatedFoot, FootIkConfig, FootIkInput, FootState, FootTick, Tick};
use crate::ik::foot::{tread_plane, FootIkMode, SupportPlane, SupportSource};
use crate::ik::lock::{FootLock, LockInput};

/// Below this horizontal speed (m/s) the body stands still and split feet settle.
const SETTLE_MAX_SPEED_M_S: f32 = 0.1;

/// Below this body speed (m/s) a foot landed with its heel hanging off a step up is set
/// down fully on the tread.
const SETTLE_HEEL_MAX_SPEED_M_S: f32 = 0.5;

/// A foot strikes heel first when the animation has its heel this much lower than its
/// ball (m, model space): toes well up, as a walk's heel strike has them. A run landing
/// nearly flat stays on its ball.
const HEEL_STRIKE_M: f32 = 0.03;
/// Above this body speed (m/s, between a walk and a run) a foot is pinned on its ball.
const HEEL_STRIKE_MAX_SPEED_M_S: f32 = 2.5;
/// Above that speed, a heel this much lower than the ball still strikes first (m): a
/// heel-striking runner's (UAL's jog lands with the toes 9 cm up, and running up a ramp
/// 6 cm: at 0.06 that foot was held on its ball and its heel slid 3.5 cm down the ramp
/// as the sole came down).
const RUN_HEEL_STRIKE_M: f32 = 0.045;
/// The ball this much lower than the heel has taken over (m): heel-off.
const HEEL_OFF_M: f32 = 0.01;

/// Which sole point a planted foot turns about, and so which one the lock pins. A foot
/// that strikes heel first comes down flat about its heel; pinning the ball then (held in
/// the air where it was at contact) swings the heel along the ground as the sole comes
/// down, a skid of several cm on an upward ramp. From heel-off on it rolls over its ball.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum LockAnchor {
    Heel,
    #[default]
    Ball,
}

impl LockAnchor {
    /// Where the ball is from this anchor (world xz) on the foot turned by `align`: nothing
    /// for the ball itself, the aligned heel-to-ball for the heel.
    pub(super) fn to_ball_xz(self, align: Quat, anim: &AnimatedFoot, facing: Quat) -> Vec2 {
        match self {
            LockAnchor::Ball => Vec2::ZERO,
            LockAnchor::Heel => {
                let offset = facing * (align * (anim.ball_model - anim.heel_model));
                let offset = Vec2::new(offset.x, offset.z);
                if offset.is_finite() {
                    offset
                } else {
                    Vec2::ZERO
                }
            }
        }
    }

    /// The anchor for an animated foot: the heel on a heel strike, the ball from heel-off,
    /// else `self`.
    fn next(self, heel_y: f32, ball_y: f32) -> LockAnchor {
        if heel_y < ball_y - HEEL_STRIKE_M {
            LockAnchor::Heel
        } else if ball_y < heel_y - HEEL_OFF_M {
            LockAnchor::Ball
        } else {
            self
        }
    }
}

/// Where the animation has each ball, as the lock sees it (world xz).
pub(super) fn animated_balls_xz(feet: &[FootState; 2], tick: &Tick) -> [Vec2; 2] {
    let (root, facing, animated) = (tick.root_world, tick.facing, &tick.animated);
    [0, 1].map(|i| {
        let ball = root + facing * animated[i].ball_model + tick.body_lag_world;
        Vec2::new(ball.x, ball.z) + feet[i].placement_world()
    })
}

/// Standing still, a locked foot away from where the animation has it (a stop that
/// left the feet split) steps into place: the farther one first, one at a time.
pub(super) fn may_settle(
    feet: &[FootState; 2],
    input: &FootIkInput,
    ball_xz: &[Vec2; 2],
) -> [bool; 2] {
    let still =
        Vec2::new(input.velocity_world.x, input.velocity_world.z).length() < SETTLE_MAX_SPEED_M_S;
    let settle_gap = [0, 1].map(|i| {
        feet[i]
            .lock
            .settle_gap_m(ball_xz[i] - feet[i].lock_anchor_to_ball_xz)
    });
    let any_stepping = feet.iter().any(|f| f.lock.stepping().is_some());
    [0, 1].map(|i| still && !any_stepping && settle_gap[i] >= settle_gap[1 - i])
}

/// What the lock made of one foot this tick.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    /// Where the ball is held (world xz).
    pub(super) ball_xz: Vec2,
    /// Where the animated foot points (world yaw, rad).
    pub(super) foot_yaw_rad: f32,
    /// How fast the animation carries the ball over the ground (m/s).
    pub(super) ball_speed_m_s: Option<f32>,
    /// Set down this tick: landed, or settled onto one tread.
    pub(super) landed_now: bool,
    /// Landed this tick at the end of a step (a lock's release that lifted the foot and set
    /// it down again while the curve said planted), gliding in, not dropping.
    pub(super) stepped_down_now: bool,
    /// Moved onto one tread this tick: this tick's probes were cast where the foot was,
    /// across the edge, and [`Held::plane`] is the tread it is on now.
    pub(super) moved_onto_tread: bool,
    /// The plane the foot stands on: a settled foot's tread.
    pub(super) plane: SupportPlane,
}

/// The lock brought up to date for one foot on `plane` with IK weight `alpha` (its
/// alignment to the plane `align`), a foot landed across a step edge set down on one
/// tread.
pub(super) fn hold_ball(
    state: &mut FootState,
    foot: &FootTick,
    mut plane: SupportPlane,
    (align, alpha): (Quat, f32),
    input: &FootIkInput,
    tick: &Tick,
    config: &FootIkConfig,
) -> Held {
    let (anim, result, raw_contact) = (foot.anim, foot.result, foot.raw_contact);
    let (yaw, dt_s) = (tick.yaw_rad, tick.dt_s);
    // IK-9: the planted foot holds its world xz. The lock pins the sole point the foot
    // turns about (the heel from a heel strike until it lifts, else the ball: see
    // `LockAnchor`), and the ball sits ahead of it by the aligned foot's offset.
    let ball_xz = foot.ball_xz;
    let anchor_to_ball_xz = |anchor: LockAnchor| anchor.to_ball_xz(align, &anim, tick.facing);
    let body_speed_m_s = Vec2::new(input.velocity_world.x, input.velocity_world.z).length();
    // Which point the animation has lower over its ground (model space, before the foot
    // is turned to the plane under it, which tips a flat foot with the slope).
    let (heel_y, ball_y) = (anim.heel_model.y, anim.ball_model.y);
    let anchor = match state.lock_anchor.next(heel_y, ball_y) {
        // A planted foot does not rock back onto its heel: once on the ball it stays.
        LockAnchor::Heel if state.lock.is_locked() && state.lock_anchor == LockAnchor::Ball => {
            LockAnchor::Ball
        }
        // Onto a tread the foot is pitched forefoot first whatever the animation does: it
        // comes down on its ball.
        LockAnchor::Heel if state.stair_pitch_w > 0.0 => LockAnchor::Ball,
        // Gliding or stepping back after a release the lock holds a world point for the
        // ball (a step's landing): the anchor stays the ball until it has landed.
        LockAnchor::Heel if state.lock.release_progress().is_some() => LockAnchor::Ball,
        // A run's foot comes down flat or nearly, fast: its heel strike (if the clip has
        // one) lasts a tick or two, and pinning the heel then slides the ball.
        // A running heel strike pronounced enough is kept from the tick it lands to
        // heel-off, however fast the ball then comes down.
        LockAnchor::Heel
            if body_speed_m_s > HEEL_STRIKE_MAX_SPEED_M_S
                && heel_y > ball_y - RUN_HEEL_STRIKE_M
                && !(state.lock.is_locked() && state.lock_anchor == LockAnchor::Heel) =>
        {
            LockAnchor::Ball
        }
        next => next,
    };
    if anchor != state.lock_anchor {
        // The held foot stays where it is: only the point that stands for it moves.
        state
            .lock
            .rebase(state.lock_anchor_to_ball_xz - anchor_to_ball_xz(anchor));
        state.lock_anchor = anchor;
    }
    let to_ball = anchor_to_ball_xz(anchor);
    state.lock_anchor_to_ball_xz = to_ball;
    // Where the animation has the anchor (world xz). A heel-struck foot follows its
    // animated heel, not its ball less the aligned heel-to-ball: on a slope the aligned
    // foot's horizontal length grows as its toes come down, and measured from the ball
    // the heel slid back down the slope by that much as the sole came down (2.7 cm on
    // the 30° ramp up).
    let anchor_xz = match anchor {
        LockAnchor::Ball => ball_xz,
        LockAnchor::Heel => {
            let heel = tick.root_world + tick.facing * anim.heel_model + tick.body_lag_world;
            let heel_xz = Vec2::new(heel.x, heel.z) + state.placement_world();
            if heel_xz.is_finite() {
                heel_xz
            } else {
                ball_xz - to_ball
            }
        }
    };
    // Where the animated foot points (world yaw, rad): the facing plus the foot's
    // own heading in the animation, which a blend can turn during a stance (a run
    // easing between square and hip-turned clips).
    let heel_to_ball = anim.ball_model - anim.heel_model;
    let foot_yaw = yaw + heel_to_ball.x.atan2(heel_to_ball.z);
    let foot_yaw = if foot_yaw.is_finite() { foot_yaw } else { yaw };
    // How fast the animation carries the ball over the ground (m/s).
    let ball_speed_m_s = state
        .last_ball_xz
        .filter(|_| dt_s > 0.0)
        .map(|last| last.distance(ball_xz) / dt_s)
        .filter(|v| v.is_finite());
    state.last_ball_xz = Some(ball_xz);
    let mut landed_now = false;
    let mut stepped_down_now = false;
    let mut moved_onto_tread = false;
    let anchored_ball_xz = if config.mode == FootIkMode::None {
        state.lock.reset();
        ball_xz
    } else {
        let was_locked = state.lock.is_locked();
        let was_stepping = state.lock.stepping().is_some();
        // Locks on the curve's own contact (not the eased one), so the foot is
        // pinned on the tick it lands.
        let pinned = to_ball
            + state.lock.update_with(
                &config.lock,
                &LockInput {
                    animated_xz: anchor_xz,
                    animated_speed_m_s: ball_speed_m_s,
                    animated_lift_m: anim.heel_model.y.min(anim.ball_model.y),
                    contact: raw_contact.max(state.contact),
                    grounded: input.grounded && alpha > 0.5,
                    facing_yaw_rad: foot_yaw,
                    may_settle: foot.may_settle,
                    reach_drop_m: state.overreach_m,
                    dt_s,
                },
            );
        // Landed across a step edge anyway (the prediction was off, or it spawned
        // there): set the foot down fully on one tread, the nearer way. A toe
        // hanging over a nosing (heel on the higher tread) is judged on probes
        // taken where the foot stands (on the landing tick they may still be the
        // swing's), for as long as the lock holds it: the animation under a
        // locked foot moves a little, and a heel a few mm past a nosing behind
        // would otherwise hold the ball a whole step above its tread.
        let landed = !was_locked && state.lock.is_locked();
        landed_now = landed;
        stepped_down_now = landed && was_stepping;
        let under_foot = result.ran && result.look_ahead_used_xz.length_squared() < 1e-6;
        let toe_overhangs = matches!(
            (result.heel, result.toe),
            (Some(h), Some(t)) if h.point.y > t.point.y
        );
        // A heel over the lower tread of a step up is moved onto the tread only
        // when standing (a spawn, a stop): walking or running up, it is how a foot
        // climbs, and the move would be a visible slide at touch-down.
        let body_speed_m_s = Vec2::new(input.velocity_world.x, input.velocity_world.z).length();
        let standing = body_speed_m_s < SETTLE_HEEL_MAX_SPEED_M_S;
        let settle_now = (landed && !toe_overhangs && standing)
            || (state.lock.is_locked() && under_foot && toe_overhangs);
        if landed {
            // The first probes where it stands give its plane outright: eased in
            // at the stance rate, a tread a few cm off would hold the sole in it
            // (or above it) for several ticks.
            state.ground.replant = true;
        }
        match (
            settle_now,
            state.ground.source,
            tread_shift(
                &result,
                config,
                Vec2::ZERO,
                Vec2::ZERO,
                &TreadReach::ANY,
                false,
            ),
        ) {
            (true, Some(SupportSource::Edge), Some(shift)) => {
                state.lock.nudge(shift);
                state.ground.replant = true;
                landed_now = true;
                moved_onto_tread = true;
                // It stands on that tread from this tick on: set down on the
                // plane it left, a ball moved onto the higher tread is in the step.
                let toward_toe = shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                if let Some(tread) = tread_plane(&result, toward_toe) {
                    plane = tread;
                    state.ground.plane = Some(tread);
                    state.ground.second_plane = None;
                    state.ground.crest_plane = None;
                }
                pinned + shift
            }
            _ => pinned,
        }
    };
    Held {
        ball_xz: anchored_ball_xz,
        foot_yaw_rad: foot_yaw,
        ball_speed_m_s,
        landed_now,
        stepped_down_now,
        moved_onto_tread,
        plane,
    }
}

/// The ankle's height (`ankle_y`, world) with a stepping foot's lift.
pub(super) fn lift_stepping_foot(lock: &FootLock, mut ankle_y: f32, config: &FootIkConfig) -> f32 {
    // A lock that lets go while the stance goes on (over-stretched, or twisted by
    // a turn) is a step: the foot lifts on its way back.
    if let Some(progress) = lock.stepping() {
        ankle_y += config.release_step_height_m * (std::f32::consts::PI * progress).sin();
    }
    ankle_y
}
