//! The support plane under each foot (IK-3, IK-4, IK-6): the fitted plane smoothed toward
//! where the foot is going, a total miss fading the IK out, and the tread shift that puts a
//! foot across a step edge onto one tread.

use glam::{Vec2, Vec3};

use super::{ease, lerp, FootIkConfig, FootState, FootTick, Tick, LANDING_TIME_CONSTANTS};
use crate::ik::foot::{
    crest_surface, fit_support_plane, other_surface, tread_plane, FootProbeResult, SupportPlane,
    SupportSource,
};
use crate::math::damp_share;

/// The ground under a foot, carried between ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Ground {
    /// 1 while probes find support, fading to 0 over `miss_fade_s` after a total miss.
    pub(super) support: f32,
    pub(super) plane: Option<SupportPlane>,
    /// Where the plane was last evaluated (world xz).
    pub(super) plane_eval_xz: Vec2,
    /// How far ahead of the foot (m) that was: a look-ahead that grows (a lift-off) moves
    /// the evaluation point without saying anything new about the ground.
    pub(super) plane_ahead_m: f32,
    /// On an edge, the lower surface's plane: the sole stays above it too.
    pub(super) second_plane: Option<SupportPlane>,
    /// On a convex crest, the lower side's plane: a sole point stands on the lower of it
    /// and the plane (see [`crest_surface`]).
    pub(super) crest_plane: Option<SupportPlane>,
    pub(super) source: Option<SupportSource>,
    /// Just landed, or set off an edge onto another tread: the next plane found under the
    /// foot is taken as it is (it is where the foot now stands, not noise to smooth).
    pub(super) replant: bool,
}

/// IK-4, IK-6: this tick's probes (when they ran) fitted to a plane, and the foot's
/// smoothed plane eased toward it; a total miss keeps the last plane and fades the support
/// out (IK-3). Returns whether the probes of a swinging foot all missed.
pub(super) fn update_ground(
    state: &mut FootState,
    foot: &FootTick,
    tick: &Tick,
    config: &FootIkConfig,
) -> bool {
    let (result, ankle_anim_world) = (foot.result, foot.ankle_anim_world);
    let (dt_s, first) = (tick.dt_s, tick.first);
    let mut moving_all_missed = false;
    if result.ran {
        state.last_probe = result;
        match fit_support_plane(&result, &config.probe) {
            Some((plane, source)) => {
                // The first plane ever (spawn, or the first batched result):
                // nothing to fade from.
                state.ground.support = if first || state.ground.plane.is_none() {
                    1.0
                } else {
                    ease(state.ground.support, 1.0, dt_s, config.miss_fade_s)
                };
                state.ground.source = Some(source);
                state.ground.second_plane = other_surface(&result, source);
                state.ground.crest_plane = crest_surface(&result, source);
                // A swinging foot that will be set down on one tread of a step
                // takes that tread's plane, not the higher one: a toe probe a
                // hair past the next riser must not lift the whole foot a step.
                // A foot the lock already has stands where it is (its heel may hang
                // off a step up): the higher tread holds it.
                let mut plane = plane;
                if let (SupportSource::Edge, true, Some(shift)) = (
                    source,
                    state.contact < 0.5 && !state.lock.is_locked(),
                    tread_shift(
                        &result,
                        config,
                        state.placement.applied_world,
                        foot.tread_preference_world,
                        &foot.reach,
                        true,
                    ),
                ) {
                    let toward_toe = shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                    if let Some(side) = tread_plane(&result, toward_toe) {
                        plane = side;
                        state.ground.second_plane = None;
                        state.ground.crest_plane = None;
                    }
                }
                // Heights are compared where the foot is going (the landing
                // point), not extrapolated back to where it is.
                let ahead = result.look_ahead_used_xz;
                let eval = ankle_anim_world + Vec3::new(ahead.x, 0.0, ahead.y);
                let previous = state.ground.plane.map(|p| (p, state.ground.plane_eval_xz));
                let ahead_grew = ahead.length() > state.ground.plane_ahead_m;
                state.ground.plane_eval_xz = Vec2::new(eval.x, eval.z);
                state.ground.plane_ahead_m = ahead.length();
                // IK-6's two speeds, but a swinging foot's plane must have arrived
                // by the time it lands: at least 3 time constants in the swing left.
                let mut rate_per_s = lerp(
                    config.swing_smoothing_per_s,
                    config.contact_smoothing_per_s,
                    state.contact,
                );
                let landing_in_s = foot.landing_in_s;
                if landing_in_s.is_finite() && landing_in_s > 0.0 {
                    rate_per_s = rate_per_s.max(LANDING_TIME_CONSTANTS / landing_in_s);
                }
                let under_foot = ahead.length_squared() < 1e-6;
                state.ground.plane = if state.ground.replant && under_foot {
                    state.ground.replant = false;
                    Some(plane)
                } else {
                    Some(smooth_plane(
                        previous, plane, eval, rate_per_s, dt_s, ahead_grew,
                    ))
                };
            }
            None => {
                // IK-3: keep the last plane, fade the IK out.
                state.ground.support = ease(state.ground.support, 0.0, dt_s, config.miss_fade_s);
                state.ground.source = None;
                state.ground.second_plane = None;
                state.ground.crest_plane = None;
                moving_all_missed = !result.any_hit() && state.contact < 0.5;
            }
        }
    }
    moving_all_missed
}

/// What a leg reaches, for a tread shift to prefer a tread the foot can stand on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TreadReach {
    /// The hip with the pelvis down as far as it goes (world).
    pub(super) hip_lowest_world: Vec3,
    /// Hip to ankle at the leg's longest (m).
    pub(super) ankle_reach_m: f32,
    /// The ankle's height over the sole (m).
    pub(super) ankle_over_sole_m: f32,
}

impl TreadReach {
    /// No limit: every tread is in reach.
    pub(super) const ANY: TreadReach = TreadReach {
        hip_lowest_world: Vec3::ZERO,
        ankle_reach_m: f32::INFINITY,
        ankle_over_sole_m: 0.0,
    };

    /// Whether a sole set down on a tread at height `tread_y` (m), about `at_xz` (world),
    /// is in reach.
    fn reaches(&self, at_xz: Vec2, tread_y: f32) -> bool {
        let ankle = Vec3::new(at_xz.x, tread_y + self.ankle_over_sole_m, at_xz.y);
        let d = ankle - self.hip_lowest_world;
        !(d.is_finite() && self.ankle_reach_m.is_finite()) || d.length() <= self.ankle_reach_m
    }
}

/// Tread placement (IK-4): for heel and toe probes across a step edge, the move along the
/// foot (world xz) that puts it fully on one side, with the margin; `None` without a
/// located step edge or with placement off.
///
/// Of the two ways, the one that ends the foot's whole placement (`placed_world`, already
/// in the probes, plus the move) nearer `preferred_world`: the other foot's placement
/// while it stands shifted onto its tread, so up or down a flight both feet take the same
/// number of treads per step (choosing each foot's shorter move alone, a stride a little
/// off two treads set one foot 12 cm forward and the next 11 cm back: steps of three
/// risers and one, a limp); else `placed_world` itself, the shorter move. Either way a
/// move that would take the placement past [`FootIkConfig::max_placement_m`] loses to one
/// that stays within it, and a tread out of the leg's `reach` (two risers down while the
/// body is still a tread up) loses to one in it.
pub(super) fn tread_shift(
    result: &FootProbeResult,
    config: &FootIkConfig,
    placed_world: Vec2,
    preferred_world: Vec2,
    reach: &TreadReach,
    crests: bool,
) -> Option<Vec2> {
    tread_shift_within(
        result,
        config,
        placed_world,
        preferred_world,
        reach,
        crests,
        config.max_placement_m,
    )
}

/// [`tread_shift`] with the whole placement limited to `max_placement_m` (m) instead of
/// [`FootIkConfig::max_placement_m`].
pub(super) fn tread_shift_within(
    result: &FootProbeResult,
    config: &FootIkConfig,
    placed_world: Vec2,
    preferred_world: Vec2,
    reach: &TreadReach,
    crests: bool,
    max_placement_m: f32,
) -> Option<Vec2> {
    if config.max_placement_m <= 0.0 {
        return None;
    }
    // Steps (a riser between, the same slope on both sides or found by the probes, as
    // from a flight's last tread onto a ramp) and, with `crests`, a swinging foot across a
    // crest (a platform's edge above a ramp going down: set down across it, it stands on
    // its heel with the toes in the air). A planted foot on a crest is left there: moved,
    // it would slide. A concave crease (the foot of a ramp) is stood on as it is.
    let (heel, toe) = (result.heel?, result.toe?);
    let crest = crests && crate::ik::foot::lower_plane_if_concave(heel, toe).is_none();
    if !crate::ik::foot::same_slope(heel, toe) && !result.riser && !crest {
        return None;
    }
    let f = result.edge_fraction?;
    let along = result.toe_probe_xz - result.heel_probe_xz;
    let length = along.length();
    let dir = along.try_normalize()?;
    let edge = f * length;
    let forward = dir * (edge + config.placement_margin_m);
    let backward = -dir * (length - edge + config.placement_margin_m);
    let fits = |shift: Vec2| (placed_world + shift).length() <= max_placement_m;
    let off_preferred = |shift: Vec2| (placed_world + shift).distance(preferred_world);
    // Each way's tread (the toe's side forward, the heel's back) and whether the foot set
    // down on it, about the middle of the probes, is in reach: the higher tread always
    // (the knee bends for it), the lower only within the leg's length.
    let middle = 0.5 * (result.heel_probe_xz + result.toe_probe_xz);
    let higher_y = heel.point.y.max(toe.point.y);
    let in_reach = |shift: Vec2| {
        let tread_y = if shift.dot(dir) > 0.0 {
            toe.point.y
        } else {
            heel.point.y
        };
        tread_y >= higher_y || reach.reaches(middle + shift, tread_y)
    };
    let (nearer, farther) = match (in_reach(forward), in_reach(backward)) {
        (true, false) => (forward, backward),
        (false, true) => (backward, forward),
        // A step up the body is a tread or more below (seen only from above it): the
        // foot climbs onto the higher tread, or stays across the nosing on its ball when
        // that is past the limit. Set back onto the lower one it stood with its toes at
        // the riser, the body already over the step, and pushing off went 3.5 cm into
        // the riser (UAL running up the 20 cm flight).
        (true, true) if result.toe_seen_from_above && toe.point.y > heel.point.y => {
            if !fits(forward) {
                return None;
            }
            (forward, backward)
        }
        _ if off_preferred(forward) <= off_preferred(backward) => (forward, backward),
        _ => (backward, forward),
    };
    let shift = if !fits(nearer) && fits(farther) {
        farther
    } else {
        nearer
    };
    // Within the limit as a whole placement, not only as this move.
    let limited = (placed_world + shift).clamp_length_max(max_placement_m);
    Some(limited - placed_world)
}

/// Each foot's [`super::FootTick::tread_preference_world`]: the other foot's placement while
/// it stands shifted onto its tread (locked, moved by more than a centimetre), else the
/// foot's own.
pub(super) fn tread_preferences(feet: &[FootState; 2]) -> [Vec2; 2] {
    [0, 1].map(|i| {
        let other = &feet[1 - i];
        if other.lock.is_locked() && other.placement.applied_world.length() > 0.01 {
            other.placement.applied_world
        } else {
            feet[i].placement.applied_world
        }
    })
}

/// How far (m) a smoothed support plane is extrapolated from where it was last evaluated.
const MAX_PLANE_EXTRAPOLATION_M: f32 = 0.15;

/// IK-6: eases the smoothed plane toward `target` at `rate_per_s`, measured where the foot
/// is (height there and normal), so a uniform slope never lags however fast the foot moves.
///
/// The smoothed plane is only trusted near where it was last evaluated: when the point
/// jumps back (a landing ends the look-ahead), the new measurement under the foot is taken
/// as it is, since a plane fitted 0.7 m ahead (a pebble, the next flight) says nothing
/// about the ground under the foot. A jump ahead (`look_ahead_grew`: a lift-off) eases
/// from the plane the foot stood on, or the foot would leap to its landing's height.
pub(super) fn smooth_plane(
    current: Option<(SupportPlane, Vec2)>,
    target: SupportPlane,
    foot_world: Vec3,
    rate_per_s: f32,
    dt_s: f32,
    look_ahead_grew: bool,
) -> SupportPlane {
    let Some((current, last_xz)) = current else {
        return target;
    };
    let a = damp_share(rate_per_s.max(0.0), dt_s);
    let (x, z) = (foot_world.x, foot_world.z);
    if !look_ahead_grew && last_xz.distance(Vec2::new(x, z)) > MAX_PLANE_EXTRAPOLATION_M {
        return target;
    }
    let h_now = current.height_at(x, z);
    let h = h_now + (target.height_at(x, z) - h_now) * a;
    let normal = current.normal_world.lerp(target.normal_world, a);
    SupportPlane::through(Vec3::new(x, h, z), normal).unwrap_or(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::RayHit;

    /// Heel and toe probes 0.17 m apart along +Z across a riser 0.2 m high, the nosing
    /// `edge_fraction` of the way from heel to toe.
    fn across_a_riser(edge_fraction: f32) -> FootProbeResult {
        let hit = |y: f32, z: f32| RayHit {
            point: Vec3::new(0.0, y, z),
            normal: Vec3::Y,
            distance_m: 0.5,
        };
        FootProbeResult {
            ran: true,
            heel: Some(hit(0.0, 0.0)),
            toe: Some(hit(0.2, 0.17)),
            edge_fraction: Some(edge_fraction),
            riser: true,
            heel_probe_xz: Vec2::ZERO,
            toe_probe_xz: Vec2::new(0.0, 0.17),
            ..FootProbeResult::NOT_RUN
        }
    }

    #[test]
    fn a_tread_shift_goes_the_way_the_other_foot_went() {
        let config = FootIkConfig::default();
        // The nosing 60 % along the foot: back onto the lower tread is the shorter move
        // (0.4 · 0.17 + 0.03), forward onto the upper one the longer (0.6 · 0.17 + 0.03).
        let result = across_a_riser(0.6);
        let (back, ahead) = (-(0.4 * 0.17 + 0.03), 0.6 * 0.17 + 0.03);
        let shift = |placed: Vec2, preferred: Vec2| {
            tread_shift(&result, &config, placed, preferred, &TreadReach::ANY, true)
                .unwrap()
                .y
        };
        // With nothing to follow, the shorter move.
        assert!((shift(Vec2::ZERO, Vec2::ZERO) - back).abs() < 1e-5);
        // The other foot stands 12 cm forward on its tread: this one goes forward too, so
        // both feet step the same number of treads.
        assert!((shift(Vec2::ZERO, Vec2::new(0.0, 0.12)) - ahead).abs() < 1e-5);
        // Unless forward would take this foot past the placement limit.
        let placed = Vec2::new(0.0, 0.05);
        assert!(placed.y + ahead > config.max_placement_m);
        assert!((shift(placed, Vec2::new(0.0, 0.12)) - back).abs() < 1e-5);
        // A step up seen only from above (the body a tread or more below it): onto the
        // higher tread, whatever the shorter move or the other foot.
        let climbing = FootProbeResult {
            toe_seen_from_above: true,
            ..result
        };
        let climb = |placed: Vec2| {
            tread_shift(
                &climbing,
                &config,
                placed,
                Vec2::ZERO,
                &TreadReach::ANY,
                true,
            )
        };
        assert!((climb(Vec2::ZERO).unwrap().y - ahead).abs() < 1e-5);
        // Past the placement limit, across the nosing as it is (on its ball).
        assert_eq!(climb(placed), None);
    }

    #[test]
    fn a_tread_out_of_the_legs_reach_loses_to_one_in_it() {
        let config = FootIkConfig::default();
        // Going down (the toe's side 0.2 m below the heel's), the nosing 30 % along the
        // foot: forward onto the lower tread is the shorter move.
        let mut result = across_a_riser(0.3);
        result.toe = result.toe.map(|t| RayHit {
            point: Vec3::new(0.0, -0.2, 0.17),
            ..t
        });
        let (back, ahead) = (-(0.7 * 0.17 + 0.03), 0.3 * 0.17 + 0.03);
        let shift = |reach: &TreadReach| {
            tread_shift(&result, &config, Vec2::ZERO, Vec2::ZERO, reach, true)
                .unwrap()
                .y
        };
        assert!((shift(&TreadReach::ANY) - ahead).abs() < 1e-5);
        // A small leg whose hip, as low as it goes, is 0.45 m over the upper tread: the
        // lower tread (0.65 m down, with the ankle 0.05 m over the sole) is past its 0.5 m.
        let short = TreadReach {
            hip_lowest_world: Vec3::new(0.0, 0.45, 0.0),
            ankle_reach_m: 0.5,
            ankle_over_sole_m: 0.05,
        };
        assert!((shift(&short) - back).abs() < 1e-5);
        // The higher tread is never out of reach (the knee bends for it), however short
        // the leg.
        let shorter = TreadReach {
            ankle_reach_m: 0.1,
            ..short
        };
        assert!((shift(&shorter) - back).abs() < 1e-5);
    }
}
