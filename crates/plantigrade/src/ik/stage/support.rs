//! The support plane under each foot (IK-4, IK-6): the fitted plane smoothed toward where
//! the foot is going, and tread placement across a step edge.

use glam::{Vec2, Vec3};

use super::FootIkConfig;
use crate::ik::foot::{FootProbeResult, SupportPlane, SupportSource};
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
    pub(super) source: Option<SupportSource>,
    /// Just landed, or set off an edge onto another tread: the next plane found under the
    /// foot is taken as it is (it is where the foot now stands, not noise to smooth).
    pub(super) replant: bool,
}

/// Tread placement (IK-4): for heel and toe probes across a step edge, the move along the
/// foot (world xz) that puts it fully on one side, with the margin; `None` without a
/// located step edge or with placement off. The shorter way, unless that would take the
/// foot's whole placement (`placed_world`, already in the probes, plus the move) past
/// [`FootIkConfig::max_placement_m`] while the other way stays within it: a foot already
/// moved forward most of the limit is not pushed against it (and set down across the
/// edge) when going back onto the other tread fits.
pub(super) fn tread_shift(
    result: &FootProbeResult,
    config: &FootIkConfig,
    placed_world: Vec2,
    crests: bool,
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
    let fits = |shift: Vec2| (placed_world + shift).length() <= config.max_placement_m;
    let (shorter, longer) = if forward.length() <= backward.length() {
        (forward, backward)
    } else {
        (backward, forward)
    };
    let shift = if !fits(shorter) && fits(longer) {
        longer
    } else {
        shorter
    };
    // Within the limit as a whole placement, not only as this move.
    let limited = (placed_world + shift).clamp_length_max(config.max_placement_m);
    Some(limited - placed_world)
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
