//! Where a foot goes and how high (IK-1, IK-4): tread placement eased in, the ankle behind
//! the held ball, a swinging sole's ground between lift-off and landing and its clearance,
//! the bounded drop of a swinging foot, the feet kept apart, and narrow supports.

use glam::{Quat, Vec2, Vec3};

use super::locking::Held;
use super::support::{tread_shift, tread_shift_within};
use super::{
    lerp, AnimatedFoot, FeetTargets, FootIkConfig, FootIkInput, FootIkOutput, FootState, FootTick,
    Tick, LANDING_TIME_CONSTANTS,
};
use crate::ik::feet_gap::feet_distance_m;
use crate::ik::foot::{FootProbeResult, SupportPlane, SupportSource};
use crate::math::{damp_share, smoothstep};
use crate::world::RayHit;

/// A foot's contact at and above which it is planted: its lower sole point stands on its
/// ground, whatever lift the pose has...
const PLANTED_CONTACT: f32 = 0.5;
/// ...but for this much of the pose's lift (m), a gait's own roll onto its toes (a
/// planted foot's float is up to this by design)...
pub const PLANTED_LIFT_KEPT_M: f32 = 0.002;
/// ...and the pose's lift comes in as the contact falls this much below it...
const LIFT_IN_CONTACT_SPAN: f32 = 0.25;
/// ...what was held down let out at this rate (1/s) once it does.
const PLANTED_HOLD_LET_OUT_PER_S: f32 = 20.0;

/// A swinging foot moving over the ground at v (m/s) keeps at least v × this (s) above
/// it, up to the cap (m): 1.5 cm at 1 m/s, 2.5 cm from 1.7 m/s.
const SWING_CLEARANCE_S: f32 = 0.015;
const SWING_CLEARANCE_MAX_M: f32 = 0.025;
/// Airborne, a foot's sole keeps at least this much above the ground under it (m): over
/// the ground-skid height, so a foot crossing an edge does not skim it.
const AIRBORNE_CLEARANCE_M: f32 = 0.015;
/// An airborne foot held up by what was under it is let down with this time constant (s)
/// once that is gone.
const AIRBORNE_LIFT_RELEASE_S: f32 = 0.06;

/// A swinging foot's tread placement moves it at most about this fast (m/s) on its way to
/// a tread: one further than this × the time to landing is out of reach.
const PLACEMENT_SPEED_M_S: f32 = 1.5;
/// A swinging foot's applied placement moves at most this fast (m/s) over the ground, on
/// top of the swing: a tread chosen late (the stride shortening as a flight comes into
/// view moves the landing back) is reached in a few ticks, not leapt to in one.
const PLACEMENT_STEP_MAX_M_S: f32 = 3.0;
/// Late in a swing down, a foot kept on the nearer tread may be placed this many times
/// [`FootIkConfig::max_placement_m`] from where the animation sets it down. More sets it a
/// tread further down the flight, and the pelvis drop to reach it folds the other leg.
const LATE_PLACEMENT_STRETCH: f32 = 1.25;

/// The least distance a swinging foot keeps from the planted one (m): the lab's gate is
/// 5 cm between the feet's ankle–heel–ball segments; a little more, for the solve.
const FEET_CLEARANCE_M: f32 = 0.06;

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
    /// The support last found under the body's line or under the brought-in foot: its
    /// height stands in for the low hits while the foot is still being brought in.
    pub(super) support: Option<RayHit>,
}

/// Tread placement, after the swing's phase: while swinging, a landing across an edge
/// moves the foot onto one tread; the applied placement eases toward the wanted one.
pub(super) fn update_tread_placement(
    state: &mut FootState,
    foot: &FootTick,
    planted_now: bool,
    dt_s: f32,
    config: &FootIkConfig,
) {
    let result = foot.result;
    let landing_in_s = foot.landing_in_s;
    // Only in the air: once the lock has the foot (it pins on the curve's own
    // rise, before the eased contact reaches 0.5) probes cast where the animation
    // carries on would pull it off the tread it landed on.
    if !planted_now && !state.lock.is_locked() && result.ran {
        let applied = state.placement.applied_world;
        if let (Some(SupportSource::Edge), Some(mut shift)) = (
            state.ground.source,
            tread_shift(
                &result,
                config,
                applied,
                foot.tread_preference_world,
                &foot.reach,
                true,
            ),
        ) {
            // Late in a swing down, the other tread (taken when the nearer one is
            // past the limit) is too far to reach without the foot leaping across:
            // at the top of a flight or a crest the stride shortens while the foot
            // swings, the placement follows the landing forward to its limit, then
            // turns back 10-20 cm in the last three ticks (or flips every tick). The
            // foot goes on to the nearer tread, past the limit by a little.
            let reachable_m = PLACEMENT_SPEED_M_S * landing_in_s;
            if swinging_down(state, &result)
                && landing_in_s.is_finite()
                && shift.length() > reachable_m
            {
                // The shorter move (preferring the placement it has now), within the
                // stretched limit.
                let stretched_m = config.max_placement_m * LATE_PLACEMENT_STRETCH;
                if let Some(nearer) = tread_shift_within(
                    &result,
                    config,
                    applied,
                    applied,
                    &foot.reach,
                    true,
                    stretched_m,
                )
                .filter(|nearer| nearer.length() < shift.length())
                {
                    shift = nearer;
                }
            }
            // The probes were cast with the applied placement, not the wanted one.
            state.placement.wanted_world = applied + shift;
        }
    }
    // Like the plane, a placement found late in the swing must be in by touch-down:
    // a foot set down short of it is nudged onto its tread on landing, a visible pop.
    let mut placement_per_s = config.swing_smoothing_per_s;
    if !planted_now && landing_in_s.is_finite() && landing_in_s > 0.0 {
        placement_per_s = placement_per_s.max(LANDING_TIME_CONSTANTS / landing_in_s);
    }
    state.placement.applied_world += placement_step(
        state.placement.wanted_world - state.placement.applied_world,
        placement_per_s,
        dt_s,
        !planted_now,
    );
}

/// This tick's move (m, world xz) of the applied placement `to_go` short of the wanted
/// one: eased at `per_s`, and in the air no faster than [`PLACEMENT_STEP_MAX_M_S`].
fn placement_step(to_go: Vec2, per_s: f32, dt_s: f32, in_air: bool) -> Vec2 {
    let step = to_go * damp_share(per_s, dt_s);
    if in_air {
        step.clamp_length_max(PLACEMENT_STEP_MAX_M_S * dt_s.max(0.0))
    } else {
        step
    }
}

/// Whether a foot's swing is going down: some of its landing (the probe hits of `result`)
/// is below the ground it lifted off from.
pub(super) fn swinging_down(state: &FootState, result: &FootProbeResult) -> bool {
    [result.heel, result.toe]
        .into_iter()
        .flatten()
        .map(|hit| hit.point.y)
        .reduce(f32::min)
        .and_then(|landing_m| state.swing.rise_from_liftoff_m(landing_m))
        .is_some_and(|rise_m| rise_m < -DESCENT_MIN_M)
}

/// Where the ankle goes (world xz): behind the ball the lock holds at `anchored_ball_xz`,
/// by the aligned foot's offset.
pub(super) fn ankle_xz(
    anchored_ball_xz: Vec2,
    align: Quat,
    anim: &AnimatedFoot,
    facing: Quat,
) -> Vec2 {
    let ball_offset_world = facing * (align * (anim.ball_model - anim.ankle_model));
    let ball_offset_xz = Vec2::new(ball_offset_world.x, ball_offset_world.z);
    anchored_ball_xz - ball_offset_xz
}

/// The ankle's height (world y, m) that sets the foot held at `xz` on its ground, each sole
/// point (heel, ball) over the ground under it: a swinging foot's climbs from lift-off to
/// landing, and the animation's lift over it is kept. Also returns the probe hits under
/// the foot (what it must clear).
pub(super) fn ankle_height_m(
    state: &FootState,
    foot: &FootTick,
    held: &Held,
    align: Quat,
    xz: Vec2,
    facing: Quat,
) -> (f32, [Option<RayHit>; 2]) {
    let anim = foot.anim;
    let plane = held.plane;
    let (ball_speed_m_s, landed_now) = (held.ball_speed_m_s, held.landed_now);
    // Never below its own ground: a blend that sinks a sole must not sink it here.
    let mut lift_m = pose_lift_m(&anim);
    // A swinging foot the animation carries along the floor (two gaits' swings,
    // or a gait and a rest pose, blended low) is held clear of it, by more the
    // faster it goes: it would skid otherwise. A gait's own touch-down and
    // lift-off are vertical over the ground, so they get none.
    if let (false, true, Some(speed)) =
        (state.lock.is_locked(), state.contact < 0.5, ball_speed_m_s)
    {
        lift_m = lift_m.max((speed * SWING_CLEARANCE_S).min(SWING_CLEARANCE_MAX_M));
    }
    // A planted foot's lift is held down (see [`hold_planted_lift_m`]), and let out
    // from under the clearance too: a foot just let go by the lock glides off where it
    // stood (slowly at first), not carried along the floor, and would otherwise leap
    // to the clearance in a tick.
    lift_m = (lift_m - state.planted_hold_m).max(0.0);
    // A swinging foot also clears the ground it is above now (a step down ahead
    // must not pull it through the nosing it has not passed yet).
    let look_ahead_xz = if state.lock.is_locked() {
        Vec2::ZERO
    } else {
        state.last_probe.look_ahead_used_xz
    };
    // With no look-ahead left (end of the swing) the probes themselves are under
    // the foot: their raw hits, not the smoothed plane, are what it must clear.
    let probe = &state.last_probe;
    let under_foot = if probe.look_ahead_used_xz.length_squared() > 1e-6 {
        [probe.heel_here, probe.toe_here]
    } else {
        [probe.heel, probe.toe]
    };
    // Swinging, or landing this very tick (the smoothed plane has not caught up
    // with where the foot is set down yet). Not a foot just moved onto one tread: the
    // hits are from where it was, across the edge (a heel's hit on the nosing behind
    // would hold it a whole step up over its new tread), and its plane is the tread's.
    let clear = (state.contact < 0.5 || landed_now) && !held.moved_onto_tread;
    // A sole point whose probe missed clears the other's ground, as the floor the swing is
    // kept over has it (`ankle_floor_y`); cleared only where it hit, KayKit's ball came
    // down 12 mm into a tread's nosing as its heel passed over the edge.
    let [heel_hit, ball_hit] = under_foot;
    let clearance = [heel_hit.or(ball_hit), ball_hit.or(heel_hit)].map(|hit| hit.filter(|_| clear));
    // A swinging foot's ground goes, over the swing, from the ground under it at
    // lift-off to the ground where it lands at touch-down: a landing a stride up a
    // ramp or a flight is climbed to, not leapt to (and the plane fitted there is
    // not stretched back to where the foot is). What is under it is cleared too.
    let swinging = look_ahead_xz.length_squared() > 1e-6;
    let landing_in_s = foot.landing_in_s;
    let swing_progress = if landing_in_s.is_finite() && landing_in_s > 0.0 {
        state.swing.time_s / (state.swing.time_s + landing_in_s)
    } else {
        1.0
    };
    let ground_at = |at: Vec2| {
        let mut ground = plane.height_at(at.x, at.y);
        if let Some(second) = state.ground.second_plane {
            ground = ground.max(second.height_at(at.x, at.y));
        }
        if let Some(crest) = state.ground.crest_plane {
            ground = ground.min(crest.height_at(at.x, at.y));
        }
        ground
    };
    let mut ankle_y = f32::MIN;
    let landing_points = [probe.heel_probe_xz, probe.toe_probe_xz];
    let landing_top_m = [probe.heel, probe.toe]
        .into_iter()
        .flatten()
        .map(|hit| hit.point.y)
        .reduce(f32::max)
        .unwrap_or(f32::INFINITY);
    for (((sole, here), clear), landing_xz) in [anim.heel_model, anim.ball_model]
        .into_iter()
        .zip(under_foot)
        .zip(clearance)
        .zip(landing_points)
    {
        let offset_world = facing * (align * (sole - anim.ankle_model));
        let sole_xz = xz + Vec2::new(offset_world.x, offset_world.z);
        let mut sole_y = if swinging {
            // The surface under the foot, carried on to the landing: a ramp's own
            // rise, followed over the whole swing; what the landing has above it
            // is a step.
            let (here_m, carried_m) = match here {
                Some(h) => (
                    h.point.y,
                    SupportPlane::through(h.point, h.normal)
                        .map_or(h.point.y, |p| p.height_at(landing_xz.x, landing_xz.y)),
                ),
                None => (ground_at(sole_xz), ground_at(landing_xz)),
            };
            // Going up, from the ground it left, not from what it is over now: a
            // nosing or a ramp's foot passed under the sole would restart the
            // climb from another height (what it is over is cleared below).
            let (here_m, carried_m) = match state.swing.liftoff_plane {
                Some(left) if left.height_at(sole_xz.x, sole_xz.y) < here_m => (
                    left.height_at(sole_xz.x, sole_xz.y),
                    left.height_at(landing_xz.x, landing_xz.y),
                ),
                _ => (here_m, carried_m),
            };
            // Near touch-down the plane there is also where the foot is (one that
            // overshoots its landing spot up a slope clears the ground it is over).
            // A plane still easing over from where the foot was (a ramp's, up to
            // its crest) is not let above what the probes hit at the landing: it
            // would be climbed to and dropped from.
            let there_m = ground_at(landing_xz)
                .min(landing_top_m)
                .max(ground_at(sole_xz));
            let climbed_m = swing_ground_m(here_m, carried_m, there_m, swing_progress);
            // The animation's lift over the ground climbed to, but a climb is
            // not stacked on a high swing (a run's heel kick over two treads
            // would fold the leg into the hip): the foot keeps the animation's
            // height over the ground it left, or a step's clearance over the
            // ground it climbs to, whichever is higher.
            let over_left_m = here_m.min(climbed_m) + lift_m;
            over_left_m.max(climbed_m + lift_m.min(CLIMB_LIFT_MAX_M))
        } else {
            // Landed (no look-ahead left): the ground under itself.
            ground_at(sole_xz) + lift_m
        };
        // What was hit, at the sole: a probe cast a few cm from where the sole is now
        // (planned last tick) hits a slope higher or lower than under the sole (3 cm on
        // a 40° ramp, held until the smoothed contact says planted, then dropped in a
        // tick); a tread's plane is level, so a nosing is cleared at its own height.
        if let Some(hit) = clear {
            let here = SupportPlane::through(hit.point, hit.normal)
                .map_or(hit.point.y, |p| p.height_at(sole_xz.x, sole_xz.y));
            sole_y = sole_y.max(here + lift_m);
        }
        ankle_y = ankle_y.max(sole_y - offset_world.y);
    }
    (ankle_y, under_foot)
}

/// How high the pose holds the foot's lower sole point over its ground (m, never below).
fn pose_lift_m(anim: &AnimatedFoot) -> f32 {
    anim.heel_model.y.min(anim.ball_model.y).max(0.0)
}

/// How much of the pose's lift (m) a planted foot is held down by this tick, into
/// `state.planted_hold_m` for [`ankle_height_m`]. A foot the lock holds and its contact calls planted
/// stands on its ground: a crossfade's pose that lifts it while the curve still says
/// planted (an idle-to-run push-off, the ball 2 cm up at contact 0.6) gets its lift only
/// as the contact falls below planted, and what was held down is let out at
/// [`PLANTED_HOLD_LET_OUT_PER_S`], not in one tick. Not on the tick it lands: a foot
/// coming down fast (off a drop) keeps the pose's last centimetre rather than jumping it.
pub(super) fn hold_planted_lift_m(
    state: &mut FootState,
    foot: &FootTick,
    landed_now: bool,
    dt_s: f32,
) {
    let lift_m = pose_lift_m(&foot.anim);
    let planted_share = ((foot.raw_contact - (PLANTED_CONTACT - LIFT_IN_CONTACT_SPAN))
        / LIFT_IN_CONTACT_SPAN)
        .clamp(0.0, 1.0);
    let held_now_m = if state.lock.is_locked() && !landed_now && planted_share.is_finite() {
        (lift_m - PLANTED_LIFT_KEPT_M).max(0.0) * smoothstep(planted_share)
    } else {
        0.0
    };
    let let_out_m = state.planted_hold_m * (1.0 - damp_share(PLANTED_HOLD_LET_OUT_PER_S, dt_s));
    let hold_m = held_now_m.max(let_out_m).min(lift_m);
    state.planted_hold_m = if hold_m.is_finite() { hold_m } else { 0.0 };
}

/// The blended ankle target of a foot the IK does not hold in full, kept off the hits
/// `under_foot`; a foot raised keeps a little IK weight (`alpha`) so the raise is applied.
/// Airborne, the raise over the animation is kept in `airborne_lift_m` and let go eased
/// (see [`release_airborne_lift`]); on the ground it is zero.
#[allow(clippy::too_many_arguments)]
pub(super) fn keep_off_ground(
    blended: &mut Vec3,
    alpha: &mut f32,
    airborne_lift_m: &mut f32,
    dt_s: f32,
    grounded: bool,
    under_foot: [Option<RayHit>; 2],
    anim: &AnimatedFoot,
    align: Quat,
    facing: Quat,
) {
    let [heel_m, ball_m] = under_foot.map(|hit| hit.map(|h| h.point.y));
    if !grounded {
        // Airborne the IK fades out to the animation, but a foot is never let down
        // into what is under it, nor skimming it (the trailing foot of a step off a
        // ledge crosses its edge as the body drops).
        let lowest_y = ankle_floor_y([heel_m, ball_m], anim, align, facing) + AIRBORNE_CLEARANCE_M;
        let needed_m = (lowest_y - blended.y).max(0.0);
        let lift_m = release_airborne_lift(*airborne_lift_m, needed_m, dt_s);
        *airborne_lift_m = lift_m;
        if lift_m > 0.0 {
            blended.y += lift_m;
            *alpha = alpha.max(1e-3);
        }
        return;
    }
    *airborne_lift_m = 0.0;
    if *alpha >= 1.0 {
        return;
    }
    // On the ground, a foot held in part (its weight easing back in after a few ticks in
    // the air, its support fading after a miss) is blended toward the animation, which
    // the body's drop to the next tread takes below the step the foot still stands on:
    // neither sole point goes below what the probes hit, the one whose probe missed held
    // at the other's ground (a foot at a nosing stays level, not toe-down into it). Going
    // down 20 cm stairs, KayKit's capsule rolled off each nosing and its trailing ball
    // sank 6 cm into the tread it stood on, and locked there.
    let lowest_y = ankle_floor_y([heel_m.or(ball_m), ball_m.or(heel_m)], anim, align, facing);
    if blended.y < lowest_y {
        blended.y = lowest_y;
        *alpha = alpha.max(1e-3);
    }
}

/// An airborne foot's lift over the animation (m) this tick: what is under it needs
/// `needed_m`; more than that, held last tick (`last_m`), is let go with the time
/// constant [`AIRBORNE_LIFT_RELEASE_S`], so a trailing foot whose heel slides off a
/// ledge's edge as the body drops comes down over a few ticks (it fell 39 cm in one).
pub(super) fn release_airborne_lift(last_m: f32, needed_m: f32, dt_s: f32) -> f32 {
    let kept_m = if last_m.is_finite() && dt_s.is_finite() {
        last_m * (-dt_s.max(0.0) / AIRBORNE_LIFT_RELEASE_S).exp()
    } else {
        0.0
    };
    if needed_m.is_finite() {
        needed_m.max(kept_m)
    } else {
        kept_m
    }
}

/// The ankle height (world y, m) that sets the foot's sole points (heel, ball) at least on
/// the heights `under_sole_m` (world y): the lowest it may go. `f32::MIN` with none.
pub(super) fn ankle_floor_y(
    under_sole_m: [Option<f32>; 2],
    anim: &AnimatedFoot,
    align: Quat,
    facing: Quat,
) -> f32 {
    let mut floor_y = f32::MIN;
    for (sole, under) in [anim.heel_model, anim.ball_model]
        .into_iter()
        .zip(under_sole_m)
    {
        if let Some(under_m) = under {
            let offset_world = facing * (align * (sole - anim.ankle_model));
            floor_y = floor_y.max(under_m - offset_world.y);
        }
    }
    floor_y
}

/// What [`keep_swinging_leg_open`] needs of a leg this tick.
pub(super) struct LegFold {
    /// The hip (world), with the pelvis where it was brought down to last tick.
    pub(super) hip_world: Vec3,
    /// How far below the hip the animation holds the ankle (m).
    pub(super) animated_gap_m: f32,
    pub(super) leg_length_m: f32,
    /// The lowest the ankle may go ([`ankle_floor_y`] on the hits under the foot).
    pub(super) floor_y: f32,
    /// How far the ground the foot lifted off from is above the body's (m).
    pub(super) liftoff_above_root_m: f32,
}

/// The height (world y, m) of a swinging ankle `target` behind the hip, kept open. Running
/// down a flight the pelvis comes down to the tread the other foot lands on while this one
/// still clears the tread it left; held at its lift over that, the ankle would come up
/// level with the hip, and the folded knee swing from behind to in front in one tick as it
/// passed. The foot goes down toward its ground instead (never into it; the bounded drop
/// that follows paces it), to a share of the leg below the hip or as far below as the
/// animation holds it (a sprint's heel kick is high). Only for a foot that lifted off
/// ground higher than the body's, and eased in, so a gait on the flat is left alone.
pub(super) fn keep_swinging_leg_open(
    target: Vec3,
    fold: &LegFold,
    contact: f32,
    facing: Quat,
) -> f32 {
    let d = facing.inverse() * (target - fold.hip_world);
    let Some(excess_m) = over_hip_gap_m(target.y, fold, open_gap_m(fold)) else {
        return target.y;
    };
    let weight = smoothstep((-d.z / SWING_FOLD_BEHIND_M).clamp(0.0, 1.0))
        * smoothstep((fold.liftoff_above_root_m / SWING_FOLD_GROUND_M).clamp(0.0, 1.0))
        * (1.0 - smoothstep(contact));
    // Eased in as the excess grows (e²/(e+k)), not a corner the foot's path turns at.
    let lowered_m = excess_m * excess_m / (excess_m + SWING_FOLD_EASE_M);
    target.y - lowered_m * weight
}

/// The height (world y, m) of a swinging ankle `target` kept under the hip it passes. Up a
/// ramp or a flight a swing's lift is kept over ground that rises ahead of the body, and a
/// small rig's high swing (KayKit's walk lifts the foot within 0.1 m of its hip) can put
/// the target up at the hip, or over it, as it passes: the knee then has no side to bend
/// to and turns about the hip with every centimetre (KayKit's knee, 71 cm in a tick up the
/// 30° ramp). Near the hip across the ground the target stays a share of the leg below it
/// (or as far below as the animation holds it, if that is less), the limit easing out as
/// the foot gets [`UNDER_HIP_REACH`] of the leg away, where a high step is taken with the
/// knee up; never into the ground, and eased in as the excess grows.
pub(super) fn keep_swing_under_hip(
    target: Vec3,
    fold: &LegFold,
    contact: f32,
    facing: Quat,
) -> f32 {
    let d = facing.inverse() * (target - fold.hip_world);
    let across_m = Vec2::new(d.x, d.z).length();
    let near = 1.0 - smoothstep((across_m / (UNDER_HIP_REACH * fold.leg_length_m)).clamp(0.0, 1.0));
    let Some(excess_m) = over_hip_gap_m(target.y, fold, open_gap_m(fold).max(0.0) * near) else {
        return target.y;
    };
    let ease_m = UNDER_HIP_EASE * fold.leg_length_m;
    let lowered_m = excess_m * excess_m / (excess_m + ease_m);
    target.y - lowered_m * (1.0 - smoothstep(contact))
}

/// The gap (m) a leg kept open holds a swinging ankle under its hip: the animation's own, at
/// most [`SWING_FOLD_MIN_DROP`] of the leg.
fn open_gap_m(fold: &LegFold) -> f32 {
    fold.animated_gap_m
        .min(SWING_FOLD_MIN_DROP * fold.leg_length_m)
}

/// How far (m) a swinging ankle at `target_y` is above `gap_m` under the hip, or above
/// the ground where that is higher. `None` when it is not above.
fn over_hip_gap_m(target_y: f32, fold: &LegFold, gap_m: f32) -> Option<f32> {
    let lowest_y = (fold.hip_world.y - gap_m).max(fold.floor_y + AIRBORNE_CLEARANCE_M);
    let excess_m = target_y - lowest_y;
    (excess_m > 0.0).then_some(excess_m)
}

/// How far from the hip across the ground (share of the leg's length) a swinging ankle is
/// no longer held under it ([`keep_swing_under_hip`])...
const UNDER_HIP_REACH: f32 = 0.6;
/// ...and over how much excess (share of the leg) the hold comes in.
const UNDER_HIP_EASE: f32 = 0.05;

/// A swinging ankle behind the hip stays at least this share of the leg's length below
/// the hip, or as far as the animation holds it if that is less...
const SWING_FOLD_MIN_DROP: f32 = 0.3;
/// ...once it is this far (m) behind the hip, eased in from level with it...
const SWING_FOLD_BEHIND_M: f32 = 0.1;
/// ...and lifted off ground this much (m) or more above the body's, eased in from level;
/// the lowering comes in over about this much (m) of excess.
const SWING_FOLD_GROUND_M: f32 = 0.1;
const SWING_FOLD_EASE_M: f32 = 0.05;

/// The bounded drop and rise of a swinging foot's target ([`limit_drop_m`],
/// [`limit_rise_m`]), and its place and vertical speed kept for the next tick. `floor_y`
/// is the ankle height at which its sole touches what is under it. Returns whether the
/// foot swings free (grounded, unlocked, off its contact).
pub(super) fn limit_swing_height(
    state: &mut FootState,
    blended: &mut Vec3,
    floor_y: f32,
    grounded: bool,
    dt_s: f32,
) -> bool {
    // A swinging foot whose ground drops away under it (past a nosing, off a
    // ledge) follows it down at most as fast as a body falls hard, not a tread
    // in one tick (a 20–25 cm pop). Holding back down lifts the foot clear, never into
    // anything.
    let swinging_free = grounded && !state.lock.is_locked() && state.contact < 0.5;
    // So does one the lock has taken while it is still up over a step down (the contact
    // curve rose before it was down on the tread below): it comes down onto it, not the
    // rest of the way in a tick (a knee 22 cm in a tick at 144 Hz, once the pelvis was low
    // enough to let it). Onto a step up or the level it is set down at once: the limits
    // held UAL's run up the 15 cm flight 16 mm over its treads for a few ticks each.
    let landing_from_above = grounded
        && state.lock.is_locked()
        && floor_y.is_finite()
        && state.last_target.is_some_and(|(last, _)| {
            last.y > floor_y + LANDED_ABOVE_FLOOR_M
                && state
                    .ground
                    .plane
                    .is_some_and(|plane| state.swing.steps_down_to(plane.height_at(last.x, last.z)))
        });
    if let (true, Some((last, last_speed))) =
        (swinging_free || landing_from_above, state.last_target)
    {
        let wanted_y = blended.y;
        blended.y = wanted_y
            .max(limit_drop_m(last.y, last_speed, dt_s))
            .max(brake_drop_m(last.y, wanted_y, dt_s));
    }
    if let (true, Some((last, last_speed))) = (swinging_free, state.last_target) {
        // Up likewise, a riser in a tick (a foot set down close to a riser has its toe
        // over the next tread a tick after it lifts off). Held lower than asked, the sole
        // would be in what it is over now, or skim it: then it does not move on over the
        // ground either until it clears it. It lifts, then swings over, as a person's
        // does.
        // Braking short of where it swings is never let hold the sole in what it is over.
        let braked_y = brake_rise_m(last.y, blended.y, dt_s).max(floor_y + AIRBORNE_CLEARANCE_M);
        let highest_y = limit_rise_m(last.y, last_speed, dt_s).min(braked_y);
        let wanted_xz = Vec2::new(blended.x, blended.z);
        let mut held = false;
        if blended.y > highest_y {
            if highest_y < floor_y + AIRBORNE_CLEARANCE_M {
                blended.x = last.x;
                blended.z = last.z;
                held = true;
            }
            blended.y = highest_y;
        }
        // Let go, it does not catch up with its path in a tick (11–19 cm): how far it was
        // held back fades over a few hundredths of a second, as a lock's release does.
        if held {
            state.swing_hold_offset = Vec2::new(last.x, last.z) - wanted_xz;
        } else if state.swing_hold_offset != Vec2::ZERO {
            state.swing_hold_offset *= (-dt_s / SWING_HOLD_FADE_S).exp();
            if state.swing_hold_offset.length() < 1e-3 || !state.swing_hold_offset.is_finite() {
                state.swing_hold_offset = Vec2::ZERO;
            }
            blended.x = wanted_xz.x + state.swing_hold_offset.x;
            blended.z = wanted_xz.y + state.swing_hold_offset.y;
        }
    } else {
        state.swing_hold_offset = Vec2::ZERO;
    }
    state.last_target = match (blended.is_finite(), state.last_target) {
        (true, Some((last, _))) if dt_s > 0.0 => Some((*blended, (blended.y - last.y) / dt_s)),
        (true, _) => Some((*blended, 0.0)),
        (false, _) => None,
    };
    swinging_free
}

/// After both feet have targets: a swinging foot too close to the planted one is lifted.
pub(super) fn keep_feet_apart(feet: &mut FeetTargets, tick: &Tick, out: &mut FootIkOutput) {
    let (animated, facing) = (&tick.animated, tick.facing);
    let FeetTargets {
        targets_world,
        align_model,
        swinging_free,
        alphas,
        ..
    } = feet;
    // The feet never through each other: a swinging foot passing close by the planted
    // one (a crossover uncrossing as a sideways run stops) is lifted over it, by as
    // much as it comes closer than FEET_CLEARANCE_M. Only up, so it never sinks.
    let sole_world = |k: usize, ankle: Vec3| {
        let anim = &animated[k];
        let offset = |p: Vec3| facing * (align_model[k] * (p - anim.ankle_model));
        [
            ankle,
            ankle + offset(anim.heel_model),
            ankle + offset(anim.ball_model),
        ]
    };
    for i in 0..2 {
        // Both feet solved this tick: one with no support plane has no target (it
        // keeps the animation) to keep clear of.
        if !swinging_free[i] || swinging_free[1 - i] || alphas[i] <= 0.0 || alphas[1 - i] <= 0.0 {
            continue;
        }
        // Lifting a foot beside the other (rather than above it) gains less than the
        // lift: a few rounds reach the clearance from any side.
        for _ in 0..4 {
            let Some(gap_m) = feet_distance_m(
                sole_world(i, targets_world[i]),
                sole_world(1 - i, targets_world[1 - i]),
            ) else {
                break;
            };
            if gap_m >= FEET_CLEARANCE_M {
                break;
            }
            targets_world[i].y += FEET_CLEARANCE_M - gap_m;
            out.feet[i].ankle_target_world = targets_world[i];
        }
    }
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

/// The lowest a swinging foot's target may go this tick (m, world) on its way down from
/// `last_y` to `wanted_y` and still slow down to a stop there by at most
/// [`SWING_BRAKE_M_S2`]: one that has sped up after a tread dropping away comes down onto
/// its landing, it does not stop dead at 17 cm a tick (a knee pop).
pub(super) fn brake_drop_m(last_y: f32, wanted_y: f32, dt_s: f32) -> f32 {
    let to_go_m = last_y - wanted_y;
    if !(to_go_m.is_finite() && dt_s > 0.0 && to_go_m > 0.0) {
        return f32::MIN;
    }
    last_y - brake_speed_m_s(to_go_m, dt_s) * dt_s
}

/// The highest a swinging foot's target may go this tick (m, world) on its way up from
/// `last_y` to `wanted_y` and still slow down to a stop there by at most
/// [`SWING_BRAKE_M_S2`]: one climbing to clear the treads ahead comes up to the height it
/// swings at, it does not stop dead there from 20 cm a tick (a foot pop two treads up a
/// 20 cm flight).
pub(super) fn brake_rise_m(last_y: f32, wanted_y: f32, dt_s: f32) -> f32 {
    let to_go_m = wanted_y - last_y;
    if !(to_go_m.is_finite() && dt_s > 0.0 && to_go_m > 0.0) {
        return f32::MAX;
    }
    last_y + brake_speed_m_s(to_go_m, dt_s) * dt_s
}

/// The speed (m/s) from which slowing down by [`SWING_BRAKE_M_S2`]·dt a tick covers
/// `to_go_m` before it stops (a discrete v²/2a + v·dt/2 = d).
fn brake_speed_m_s(to_go_m: f32, dt_s: f32) -> f32 {
    let half_step = 0.5 * SWING_BRAKE_M_S2 * dt_s;
    (half_step * half_step + 2.0 * SWING_BRAKE_M_S2 * to_go_m).sqrt() - half_step
}

/// How fast a swinging foot coming down onto its landing may slow down (m/s²). At 500, a
/// foot that had sped up after a tread dropped away could stop from 12 cm a tick in one
/// (running down 15 cm stairs, the knee moved 19.4 cm in a tick at 60 Hz); at 250 it
/// takes two or three ticks (lab sweep: 5 → 3 scenario-rates with a pop).
const SWING_BRAKE_M_S2: f32 = 250.0;

/// The highest a swinging foot's target may go this tick (m, world): from `last_y`, moving
/// at `last_speed_m_s` (m/s, up positive), speeding up upward by at most
/// [`SWING_RISE_ACCEL_M_S2`]. Slowing down or dropping is not limited.
pub(super) fn limit_rise_m(last_y: f32, last_speed_m_s: f32, dt_s: f32) -> f32 {
    if !(last_y.is_finite() && last_speed_m_s.is_finite() && dt_s > 0.0) {
        return f32::MAX;
    }
    let speed = last_speed_m_s.max(0.0) + SWING_RISE_ACCEL_M_S2 * dt_s;
    last_y + speed * dt_s
}

/// A locked foot's last target this much (m) over where its sole touches is still coming down.
const LANDED_ABOVE_FLOOR_M: f32 = 0.01;

/// How fast a swinging foot may speed up upward (m/s²): from rest 8 cm in its first tick at
/// 60 Hz and 25 cm by its second. Under half the pop threshold (1.5 × the gait clips' largest
/// move in a tick, 660 m/s² at 60 Hz), since a knee near full stretch moves about twice as
/// far as its ankle: a trailing foot let go at toe-off whose toe is over the next riser's
/// nosing rose at 400 and moved the knee 18.4–20.6 cm in a tick (16 of the mannequin's runs
/// from 8 starts at 60 Hz popped; 7 at 300, 10 at 250, 15 at 200, 18 at 150).
const SWING_RISE_ACCEL_M_S2: f32 = 300.0;

/// Time constant (s) over which a swinging foot held back (lifted clear of a step first)
/// makes up the way it was held back.
const SWING_HOLD_FADE_S: f32 = 0.05;

/// How fast a swinging foot may speed up downward (m/s²): a tread's 20 cm in about 0.05 s
/// from rest, well above what a gait's own swing asks.
const SWING_DROP_ACCEL_M_S2: f32 = 150.0;

/// Share of the swing (0..1) by which a step up between a foot and its landing is climbed.
const STEP_CLIMB_PROGRESS: f32 = 0.4;

/// A swinging foot climbing to higher ground keeps at most this much (m) of the
/// animation's lift over it: a step's clearance, not a heel kick.
pub(super) const CLIMB_LIFT_MAX_M: f32 = 0.12;

/// A swing landing this much (m) or more below where it lifted off is going down.
const DESCENT_MIN_M: f32 = 0.02;

/// A rise between a foot and its landing this high (m) or more is a step to climb early.
const STEP_MIN_M: f32 = 0.08;

/// A landing this far below the body's ground (m) is off the support, not on it...
pub(super) const OFF_SUPPORT_DROP_M: f32 = 0.3;
/// ...and on a narrow support the foot comes in to this far from the body's line (m).
const NARROW_OFFSET_M: f32 = 0.02;

/// A narrow support's shift shorter than this (m) is gone.
const SHIFT_GONE_M: f32 = 0.001;

/// ...and a foot brought in stays in while it is down and for the last this much (s) of
/// its swing.
const NARROW_KEPT_BEFORE_LANDING_S: f32 = 0.15;

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
    landing_in_s: f32,
    facing: Quat,
    dt_s: f32,
    config: &FootIkConfig,
) {
    let support_y = input.root_world.y - OFF_SUPPORT_DROP_M;
    let off = |hit: Option<RayHit>| hit.is_none_or(|h| h.point.y < support_y);
    let on = |hit: Option<RayHit>| hit.is_some_and(|h| h.point.y >= support_y);
    let landing_low = input.grounded && off(result.heel) && off(result.toe);
    let landing_soon = state.contact > 0.0
        || (landing_in_s.is_finite() && landing_in_s < NARROW_KEPT_BEFORE_LANDING_S);
    match result.support_check {
        Some(check) if !state.narrow.active && landing_low && on(check) => {
            state.narrow.active = true;
            state.narrow.support = check;
        }
        // Not in the last moments of a swing: a landing moving to and fro across the end
        // of a platform would undo the shift and need it again too late to be in by
        // touch-down.
        Some(check) if state.narrow.active && on(check) && !landing_soon => {
            state.narrow.active = false;
        }
        _ => {}
    }
    if !input.grounded {
        state.narrow.active = false;
        state.narrow.support = None;
    }
    // The support is kept while the shift goes as well as while it comes (below).
    if !state.narrow.active && state.narrow.shift_world.length() < SHIFT_GONE_M {
        state.narrow.support = None;
    } else if state.narrow.active && !landing_low && on(result.heel) {
        state.narrow.support = result.heel;
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
        // In by touch-down, at an even pace over the ticks left: found late (the landing
        // past the end of a platform only in the last ticks of the swing), the foot was
        // otherwise locked where the shift had got to, in the air beside the beam.
        let mut share = damp_share(config.swing_smoothing_per_s, dt_s);
        if landing_in_s.is_finite() && landing_in_s > 0.0 {
            share = share.max((dt_s / landing_in_s).min(1.0));
        }
        state.narrow.shift_world += (target - state.narrow.shift_world) * share;
    }
    // Off the support while still being brought in: not ground to stand on. The foot
    // keeps to the support's height, found on the body's line, meanwhile.
    if state.narrow.active && landing_low {
        // The check is made where the animation would set the foot down while brought
        // in (to see when the shift can go), so it is low there: the support found
        // earlier gives the height.
        let support = result
            .support_check
            .flatten()
            .filter(|h| on(Some(*h)))
            .or(state.narrow.support);
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
    // Nor is the floor beside the support under a foot still swinging in from where it
    // stood (off a wide end onto the beam), or out again toward the far end: it keeps to
    // the support's height, not dipping toward the floor and back (22–25 cm knee pops;
    // Quaternius' foot leaving the beam for the far platform went 19 cm below its top).
    if let Some(support) = state.narrow.support {
        for here in [&mut result.heel_here, &mut result.toe_here] {
            if let Some(h) = here.filter(|h| !on(Some(*h))) {
                *here = Some(RayHit {
                    point: Vec3::new(h.point.x, support.point.y, h.point.z),
                    ..support
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tread_chosen_late_is_reached_over_a_few_ticks_not_in_one() {
        // Three ticks before touch-down the placement turns back 20 cm (the stride
        // shortened as a flight came into view): at 60 Hz the foot gets there in
        // 5 cm moves, not in one leap; a planted foot's placement is not limited.
        let dt_s = 1.0 / 60.0;
        let per_s = LANDING_TIME_CONSTANTS / (3.0 * dt_s);
        let to_go = Vec2::new(0.0, -0.2);
        let step = placement_step(to_go, per_s, dt_s, true);
        assert!(
            (step.length() - PLACEMENT_STEP_MAX_M_S * dt_s).abs() < 1e-6,
            "{step}"
        );
        assert!(step.y < 0.0, "toward the wanted placement: {step}");
        let planted = placement_step(to_go, per_s, dt_s, false);
        assert!(planted.length() > 0.1, "{planted}");
        // A small correction is eased as before.
        let small = Vec2::new(0.0, 0.01);
        let eased = placement_step(small, per_s, dt_s, true);
        assert!(eased.length() < small.length() && eased.y > 0.0, "{eased}");
    }

    #[test]
    fn a_swinging_ankle_passes_under_the_hip_not_over_it() {
        // KayKit's size: a 0.38 m leg, its walk holding the ankle 0.12 m under the hip
        // mid-swing, the ground far below.
        let fold = LegFold {
            hip_world: Vec3::new(0.0, 1.0, 0.0),
            animated_gap_m: 0.12,
            leg_length_m: 0.38,
            floor_y: 0.0,
            liftoff_above_root_m: 0.0,
        };
        let hold = |z: f32, y: f32, contact: f32| {
            keep_swing_under_hip(Vec3::new(0.0, y, z), &fold, contact, Quat::IDENTITY)
        };
        let gap_m = SWING_FOLD_MIN_DROP * fold.leg_length_m;
        // A target up at the hip as it passes (up a ramp, its lift kept over the rising
        // ground) is held under it, most of the way to the gap.
        let at_hip = hold(0.0, 1.0, 0.0);
        assert!(at_hip < 1.0 - 0.6 * gap_m, "{at_hip}");
        // One already under the hip by the gap is left alone; so is one far enough
        // ahead (a high step, the knee up), and a planted foot.
        assert_eq!(hold(0.0, 1.0 - gap_m - 0.01, 0.0), 1.0 - gap_m - 0.01);
        let reach_m = UNDER_HIP_REACH * fold.leg_length_m;
        assert_eq!(hold(reach_m + 0.01, 1.0, 0.0), 1.0);
        assert_eq!(hold(0.0, 1.0, 1.0), 1.0);
        // Never into the ground: a floor up at the hip holds the foot over it.
        let high_floor = LegFold {
            floor_y: 0.95,
            ..fold
        };
        let over = keep_swing_under_hip(Vec3::new(0.0, 1.0, 0.0), &high_floor, 0.0, Quat::IDENTITY);
        assert!(over >= 0.95 + AIRBORNE_CLEARANCE_M - 1e-6, "{over}");
        // Smooth along the swing: a target at hip height moved 1 mm at a time from behind
        // the hip to in front of it never moves more than 2 mm up or down.
        let mut last: Option<f32> = None;
        for k in 0..=600 {
            let y = hold(-0.3 + 0.001 * k as f32, 1.0, 0.0);
            if let Some(last) = last {
                assert!((y - last).abs() < 0.002, "at step {k}: {last} -> {y}");
            }
            last = Some(y);
        }
    }

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

    #[test]
    fn a_swinging_foot_held_back_by_a_step_makes_up_the_way_over_a_few_ticks() {
        // A foot swinging at 4 m/s over the ground, its target 40 cm up (treads ahead):
        // the bounded rise keeps it low and in the step's band for a few ticks, so it is
        // held back over the ground; once clear it used to catch up in one tick (11 cm
        // at 144 Hz, 19 cm at 60 Hz). Now no tick moves it more than its own speed's
        // step plus a share of the way left, and it is back on its path well before a
        // swing ends.
        for hz in [60.0f32, 144.0] {
            let dt = 1.0 / hz;
            let mut state = FootState {
                last_target: Some((Vec3::new(0.0, 0.1, 0.0), 0.0)),
                ..FootState::default()
            };
            let speed_m_s = 4.0;
            let (mut held_ticks, mut largest_step_m, mut last_z) = (0, 0.0f32, 0.0f32);
            let mut back_on_path_s = None;
            for k in 1..=(0.4 * hz) as usize {
                let path_z = speed_m_s * k as f32 * dt;
                let mut target = Vec3::new(0.0, 0.5, path_z);
                let floor_y = 0.5 - AIRBORNE_CLEARANCE_M;
                limit_swing_height(&mut state, &mut target, floor_y, true, dt);
                if target.z < path_z - 1e-3 {
                    held_ticks += 1;
                } else if back_on_path_s.is_none() && held_ticks > 0 {
                    back_on_path_s = Some(k as f32 * dt);
                }
                largest_step_m = largest_step_m.max(target.z - last_z);
                last_z = target.z;
            }
            assert!(held_ticks >= 2, "{hz} Hz: held {held_ticks} ticks");
            let own_step_m = speed_m_s * dt;
            assert!(
                largest_step_m < own_step_m + 0.05,
                "{hz} Hz: {largest_step_m} m in a tick (own step {own_step_m})"
            );
            let back_s = back_on_path_s.expect("never back on its path");
            assert!(back_s < 0.3, "{hz} Hz: back on its path at {back_s} s");
        }
    }

    #[test]
    fn a_swinging_foot_coming_down_onto_its_landing_slows_down_first() {
        // 40 cm to go from rest (two treads down a flight): sped up by the bounded drop,
        // then slowed by the brake, it arrives in a few ticks and does not stop dead from
        // full speed (it used to hit its landing at 17 cm a tick and stop there).
        let come_down = |dt: f32, brake: bool| {
            let (mut y, mut speed, mut ticks) = (0.4f32, 0.0f32, 0);
            let mut largest_change = 0.0f32;
            while y > 0.0 && ticks < 200 {
                let mut next = 0f32.max(limit_drop_m(y, speed, dt));
                if brake {
                    next = next.max(brake_drop_m(y, 0.0, dt));
                }
                let new_speed = (next - y) / dt;
                largest_change = largest_change.max((new_speed - speed).abs());
                speed = new_speed;
                y = next;
                ticks += 1;
            }
            // Then it stands.
            (largest_change.max(speed.abs()), ticks as f32 * dt)
        };
        for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            let (braked, braked_s) = come_down(dt, true);
            let (dead_stop, _) = come_down(dt, false);
            // At 30 and 60 Hz a tick's travel at that speed is most of the way: it comes
            // down about as before (10 % less at 60 Hz); at 144 Hz it slows down.
            let share = if dt > 0.01 { 1.0 } else { 0.5 };
            assert!(
                braked <= share * dead_stop,
                "at {dt}: {braked} m/s in a tick, against {dead_stop} stopping dead"
            );
            assert!(braked_s < 0.15, "{braked_s} s at {dt}");
        }
        // Nothing to go down to, or bad input: no limit.
        assert_eq!(brake_drop_m(0.2, 0.3, 1.0 / 60.0), f32::MIN);
        assert_eq!(brake_drop_m(f32::NAN, 0.0, 1.0 / 60.0), f32::MIN);
        assert_eq!(brake_drop_m(0.2, 0.0, 0.0), f32::MIN);
    }

    #[test]
    fn a_swinging_foot_climbing_to_its_swing_height_slows_down_before_it() {
        // 40 cm up from rest (two treads up a flight, the target there at once): sped up
        // by the bounded rise, then slowed by the brake, it arrives in a few ticks and does
        // not stop dead at 20 cm a tick (the foot pop two treads up a 20 cm flight).
        let climb = |dt: f32, brake: bool| {
            let (mut y, mut speed, mut ticks) = (0.0f32, 0.0f32, 0);
            let mut largest_slowdown = 0.0f32;
            while y < 0.4 && ticks < 200 {
                let mut next = 0.4f32.min(limit_rise_m(y, speed, dt));
                if brake {
                    next = next.min(brake_rise_m(y, 0.4, dt));
                }
                let new_speed = (next - y) / dt;
                largest_slowdown = largest_slowdown.max(speed - new_speed);
                speed = new_speed;
                y = next;
                ticks += 1;
            }
            // Then it swings on at that height.
            (largest_slowdown.max(speed), ticks as f32 * dt)
        };
        for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
            let (braked, braked_s) = climb(dt, true);
            let (dead_stop, _) = climb(dt, false);
            // At 30 Hz the bounded rise's second tick is most of the way: it stops about
            // as before; at 60 and 144 Hz it slows down.
            let share = if dt > 0.02 { 1.0 } else { 0.6 };
            assert!(
                braked <= share * dead_stop,
                "at {dt}: {braked} m/s in a tick, against {dead_stop} stopping dead"
            );
            assert!(braked_s < 0.15, "{braked_s} s at {dt}");
        }
        // Nothing to go up to, or bad input: no limit.
        assert_eq!(brake_rise_m(0.3, 0.2, 1.0 / 60.0), f32::MAX);
        assert_eq!(brake_rise_m(f32::NAN, 0.4, 1.0 / 60.0), f32::MAX);
        assert_eq!(brake_rise_m(0.0, 0.4, 0.0), f32::MAX);
    }

    #[test]
    fn an_airborne_lift_is_let_go_eased_the_same_at_any_rate() {
        // Needed now: all of it, whatever was held.
        assert_eq!(release_airborne_lift(0.0, 0.3, 1.0 / 60.0), 0.3);
        assert_eq!(release_airborne_lift(0.1, 0.3, 1.0 / 60.0), 0.3);
        // No longer needed: down by a share a tick, not at once, and after 0.1 s the same
        // at 30, 60 and 144 Hz.
        let first = release_airborne_lift(0.3, 0.0, 1.0 / 60.0);
        assert!(first > 0.2 && first < 0.3, "{first}");
        let after = |hz: f32| {
            let ticks = (0.1 * hz).round() as usize;
            (0..ticks).fold(0.3, |lift, _| release_airborne_lift(lift, 0.0, 1.0 / hz))
        };
        let at_60 = after(60.0);
        assert!(at_60 < 0.3 * 0.25, "{at_60}");
        for hz in [30.0, 144.0] {
            assert!(
                (after(hz) - at_60).abs() < 0.01,
                "{hz} Hz: {} vs {at_60}",
                after(hz)
            );
        }
        // Bad input lets go rather than holding garbage.
        assert_eq!(release_airborne_lift(f32::NAN, 0.0, 1.0 / 60.0), 0.0);
        assert_eq!(release_airborne_lift(0.2, f32::NAN, f32::NAN), 0.0);
        let kept = release_airborne_lift(0.2, f32::INFINITY, 1.0 / 60.0);
        assert!(kept > 0.0 && kept < 0.2, "{kept}");
    }
}
