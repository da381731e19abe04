//! Where a foot goes and how high (IK-1, IK-4): a swinging sole's ground between lift-off
//! and landing, the bounded drop of a swinging foot, and narrow supports.

use glam::{Quat, Vec2, Vec3};

use super::{lerp, FootIkConfig, FootIkInput, FootState};
use crate::ik::foot::FootProbeResult;
use crate::math::{damp_share, smoothstep};
use crate::world::RayHit;

/// Tread placement, carried between ticks: the wanted and the applied (smoothed) xz offset
/// of the foot (m).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Placement {
    pub(super) wanted_world: Vec2,
    pub(super) applied_world: Vec2,
}

/// Narrow support (a beam), carried between ticks: the foot is brought in toward the body's
/// line by `shift_world` (world xz, smoothed) while the ground where the animation would set
/// it down is far below the body's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct NarrowSupport {
    pub(super) active: bool,
    pub(super) shift_world: Vec2,
    /// The last probes found the landing far below the body's ground (past an edge beside
    /// it, or a step or a ledge ahead): the next probe also checks the body's line.
    pub(super) landing_low: bool,
}

/// A swinging sole's ground (m) at `swing_progress` (0 lift-off … 1 touch-down): from
/// `here_m` (the ground under it) to `there_m` (where it lands). The part of the rise the
/// surface under it carries on to the landing (`carried_m`, a ramp's) is followed over
/// the whole swing; what the landing has above that is a step, climbed by
/// [`STEP_CLIMB_PROGRESS`] of the swing so the toe is over the nosing before it gets there
/// (a bump of a few cm is taken in the stride).
pub(super) fn swing_ground_m(
    here_m: f32,
    carried_m: f32,
    there_m: f32,
    swing_progress: f32,
) -> f32 {
    let progress = swing_progress.clamp(0.0, 1.0);
    let toward_landing = smoothstep(progress);
    let over_steps = smoothstep((progress / STEP_CLIMB_PROGRESS).min(1.0));
    let step_up_m = (there_m - carried_m.max(here_m)).max(0.0);
    let step = smoothstep((step_up_m / STEP_MIN_M).min(1.0));
    let climb = lerp(toward_landing, over_steps, step);
    lerp(here_m, there_m - step_up_m, toward_landing) + step_up_m * climb
}

/// The lowest a swinging foot's target may go this tick (m, world): from `last_y`, moving
/// at `last_speed_m_s` (m/s, up positive), speeding up downward by at most
/// [`SWING_DROP_ACCEL_M_S2`]. Slowing down, rising or stopping is not limited.
pub(super) fn limit_drop_m(last_y: f32, last_speed_m_s: f32, dt_s: f32) -> f32 {
    if !(last_y.is_finite() && last_speed_m_s.is_finite() && dt_s > 0.0) {
        return f32::MIN;
    }
    let speed = last_speed_m_s.min(0.0) - SWING_DROP_ACCEL_M_S2 * dt_s;
    last_y + speed * dt_s
}

/// How fast a swinging foot may speed up downward (m/s²): a tread's 20 cm in about 0.05 s
/// from rest, well above what a gait's own swing asks.
const SWING_DROP_ACCEL_M_S2: f32 = 150.0;

/// Share of the swing (0..1) by which a step up between a foot and its landing is climbed.
const STEP_CLIMB_PROGRESS: f32 = 0.4;

/// A swinging foot climbing to higher ground keeps at most this much (m) of the
/// animation's lift over it: a step's clearance, not a heel kick.
pub(super) const CLIMB_LIFT_MAX_M: f32 = 0.12;

/// A rise between a foot and its landing this high (m) or more is a step to climb early.
const STEP_MIN_M: f32 = 0.08;

/// A landing this far below the body's ground (m) is off the support, not on it...
const OFF_SUPPORT_DROP_M: f32 = 0.3;
/// ...and on a narrow support the foot comes in to this far from the body's line (m).
const NARROW_OFFSET_M: f32 = 0.02;

/// Narrow supports (a beam narrower than the stance): when the probes find the landing far
/// below the body's ground while the body's line at the landing is on it, the foot is
/// brought in toward that line ([`NarrowSupport::shift_world`]) until its probes find the support,
/// and the low hits are not taken as ground meanwhile (a foot never reaches down past the
/// edge). Once the ground where the animation would set the foot down is the body's again,
/// the shift goes. Steps and ledges ahead are low at the body's line too: left alone.
pub(super) fn narrow_support(
    state: &mut FootState,
    result: &mut FootProbeResult,
    input: &FootIkInput,
    facing: Quat,
    dt_s: f32,
    config: &FootIkConfig,
) {
    let support_y = input.root_world.y - OFF_SUPPORT_DROP_M;
    let off = |hit: Option<RayHit>| hit.is_none_or(|h| h.point.y < support_y);
    let on = |hit: Option<RayHit>| hit.is_some_and(|h| h.point.y >= support_y);
    let landing_low =
        input.grounded && result.heel.is_some() && off(result.heel) && off(result.toe);
    match result.support_check {
        Some(check) if !state.narrow.active && landing_low && on(check) => {
            state.narrow.active = true
        }
        Some(check) if state.narrow.active && on(check) => state.narrow.active = false,
        _ => {}
    }
    if !input.grounded {
        state.narrow.active = false;
    }
    state.narrow.landing_low = landing_low;
    // Only a swinging foot moves; a planted one stays where it was set down.
    let left = facing * Vec3::X;
    let left_xz = Vec2::new(left.x, left.z);
    if state.contact < 0.5 && dt_s > 0.0 {
        let target = if state.narrow.active {
            let mid = result.predicted_world - input.root_world;
            let lateral = Vec2::new(mid.x, mid.z).dot(left_xz);
            let unshifted = lateral - state.narrow.shift_world.dot(left_xz);
            let wanted = unshifted.signum() * unshifted.abs().min(NARROW_OFFSET_M);
            left_xz * (wanted - unshifted)
        } else {
            Vec2::ZERO
        };
        let rate = damp_share(config.swing_smoothing_per_s, dt_s);
        state.narrow.shift_world += (target - state.narrow.shift_world) * rate;
    }
    // Off the support while still being brought in: not ground to stand on. The foot
    // keeps to the support's height, found on the body's line, meanwhile.
    if state.narrow.active && landing_low {
        let support = result.support_check.flatten().filter(|h| on(Some(*h)));
        let at = |xz: Vec2| {
            support.map(|h| RayHit {
                point: Vec3::new(xz.x, h.point.y, xz.y),
                ..h
            })
        };
        result.heel = at(result.heel_probe_xz);
        result.toe = at(result.toe_probe_xz);
        result.edge_fraction = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swinging_sole_follows_a_ramp_and_climbs_a_step_early() {
        let at = |progress: f32| swing_ground_m(0.0, 0.3, 0.3, progress);
        // Up a ramp (the surface under the foot carries on to the landing): the ground
        // goes from here to there over the swing, half way at half the swing.
        assert_eq!(at(0.0), 0.0);
        assert!((at(0.5) - 0.15).abs() < 1e-6);
        assert!((at(1.0) - 0.3).abs() < 1e-6);
        // Up a 0.3 m step (the floor under the foot carried on stays at 0): climbed by
        // 40 % of the swing.
        let step = |progress: f32| swing_ground_m(0.0, 0.0, 0.3, progress);
        assert_eq!(step(0.0), 0.0);
        assert!(step(0.2) > 0.14, "{}", step(0.2));
        assert!((step(STEP_CLIMB_PROGRESS) - 0.3).abs() < 1e-6);
        assert!((step(0.7) - 0.3).abs() < 1e-6);
        // A 2 cm bump is taken in the stride, like a ramp.
        let bump = swing_ground_m(0.0, 0.0, 0.02, 0.2);
        assert!(bump < 0.01, "{bump}");
        // Down (the landing lower): over the whole swing; out-of-range progress clamps.
        assert!((swing_ground_m(0.3, 0.3, 0.0, 0.5) - 0.15).abs() < 1e-6);
        assert_eq!(swing_ground_m(0.3, 0.3, 0.0, 7.0), 0.0);
        assert_eq!(swing_ground_m(0.3, 0.3, 0.0, -1.0), 0.3);
    }

    #[test]
    fn a_swinging_foot_follows_a_drop_at_a_bounded_acceleration() {
        // Ground falling 0.2 m away under a foot at rest: the target goes down by a·dt²
        // the first tick (4 cm at 60 Hz), faster each tick after, reaching the new ground
        // in a few ticks rather than one.
        let dt = 1.0 / 60.0;
        let (mut y, mut speed, mut ticks) = (0.2f32, 0.0f32, 0);
        while y > 0.0 {
            let next = limit_drop_m(y, speed, dt).max(0.0);
            assert!(y - next < 0.2, "dropped {} m in one tick", y - next);
            speed = (next - y) / dt;
            y = next;
            ticks += 1;
        }
        assert!((3..=5).contains(&ticks), "{ticks} ticks");
        // Already moving down at 2 m/s (a gait's own swing), it may go on at that speed
        // plus the allowed speed-up; rising is never held back.
        assert!((limit_drop_m(0.5, -2.0, dt) - (0.5 - (2.0 + 150.0 * dt) * dt)).abs() < 1e-6);
        assert!(limit_drop_m(0.5, 3.0, dt) < 0.5);
        assert_eq!(limit_drop_m(f32::NAN, 0.0, dt), f32::MIN);
        assert_eq!(limit_drop_m(0.5, 0.0, 0.0), f32::MIN);
    }
}
