//! The legs (IK-8): the reach helped by rolling a foot onto its ball, the forefoot-first
//! pitch on stairs, and the model transforms of the legs after they are solved.

use glam::{Affine3A, Quat, Vec2, Vec3};

use super::{
    lerp, rotation_of, AnimatedFoot, FeetTargets, FootIk, FootIkConfig, FootIkError, FootIkOutput,
    FootState, FootTick, Tick,
};
use crate::ik::foot::SupportPlane;
use crate::ik::two_bone::{knee_pole_model, TwoBoneIkJob};
use crate::math::smoothstep;
use crate::pose::{local_to_model, local_to_model_joints, ModelPose, Pose};
use crate::skeleton::Skeleton;
use crate::tilt::{decompose_ground_normal, TiltLimits};

impl FootIk {
    /// IK-8: each leg solved for its ankle target, a planted foot out of reach rolled onto
    /// its ball and a swinging one waiting above its target, a swinging knee straightening
    /// no faster than [`limit_knee_bend`] lets it. Returns each foot's roll and each knee's
    /// bend as solved (rad, `None` when the leg was not solved).
    #[allow(clippy::type_complexity)]
    pub(super) fn solve_legs(
        &self,
        tick: &Tick,
        feet: &mut FeetTargets,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
        out: &mut FootIkOutput,
    ) -> Result<([Quat; 2], [Option<f32>; 2]), FootIkError> {
        let config = self.config;
        let (root, facing, animated) = (tick.root_world, tick.facing, &tick.animated);
        let FeetTargets {
            targets_world,
            align_model,
            alphas,
            ..
        } = feet;
        // IK-8: both legs, then each foot aligned to its plane.
        let inverse_facing = facing.inverse();
        let mut reach_rolls = [Quat::IDENTITY; 2];
        let mut knee_bends = [None; 2];
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let mut target_model = inverse_facing * (targets_world[i] - root);
            let hip = model.position_model(leg.chain.thigh);
            let knee = model.position_model(leg.chain.calf);
            // The shin's end: the foot joint, or an IK-target foot's virtual ankle.
            let ankle = leg.ankle_model(model);
            // Out of reach while planted: roll onto the ball first (by up to the limit, in
            // as the contact does so it never pops), and solve for the rolled ankle.
            let planted = smoothstep(self.feet[i].contact);
            let reach_m =
                config.soften.clamp(0.0, 1.0) * (hip.distance(knee) + knee.distance(ankle));
            // An IK-target foot reaches as far past its shin as the animation puts it.
            let off_shin_m = animated[i].off_shin_m;
            let foot_reach_m = reach_m + off_shin_m;
            // Out of reach while swinging (a foot bound for a tread the pelvis has not come
            // down to yet): the foot waits above its target rather than being pulled back
            // along the leg, which on a way down cuts through the nosing it is passing.
            // Only ahead of the hip (a foot kicked back at toe-off is the solver's), and
            // eased in over the first few cm past the reach, so a leg the animation itself
            // stretches straight is left alone.
            if alphas[i] > 0.0 && planted < 1.0 {
                if let Some(raised_y) = raise_out_of_reach_swing(hip, target_model, foot_reach_m) {
                    target_model.y = lerp(target_model.y, raised_y, 1.0 - planted);
                    out.feet[i].ankle_target_world = root + facing * target_model;
                }
            }
            if alphas[i] > 0.0 && planted > 0.0 {
                let anim = &animated[i];
                let ball_offset = align_model[i] * (anim.ball_model - anim.ankle_model);
                let heel_to_ball = align_model[i] * (anim.ball_model - anim.heel_model);
                if let Some((roll, rolled)) = roll_onto_ball(
                    hip,
                    foot_reach_m,
                    target_model,
                    (ball_offset, heel_to_ball),
                    align_model[i] * Vec3::Y,
                    config.max_reach_roll_rad * planted,
                ) {
                    target_model = rolled;
                    align_model[i] = roll * align_model[i];
                    reach_rolls[i] = roll;
                    out.feet[i].ankle_target_world = root + facing * rolled;
                }
            }
            let (thigh_m, shin_m) = (hip.distance(knee), knee.distance(ankle));
            if let (true, Some((last_rad, speed_rad_s))) = (
                feet.swinging_free[i] && alphas[i] > 0.0,
                self.feet[i].last_knee_bend,
            ) {
                let bend = KneeBend {
                    thigh_m,
                    shin_m,
                    reach_m,
                };
                if let Some(limited) =
                    limit_knee_bend(target_model - hip, bend, last_rad, speed_rad_s, tick.dt_s)
                {
                    target_model = hip + limited;
                    out.feet[i].ankle_target_world = root + facing * target_model;
                }
            }
            // Never folded flatter than a knee can: a swinging foot whose target came
            // up to the hip (running up stairs at 144 Hz, its tread a tick ahead of the
            // pelvis; Quaternius' uphill foot on a cross slope, its ground level with the
            // hip) is held out from it, or the solve turned the knee about the hip with
            // every centimetre the target moved.
            if let Some(held_out) =
                limit_leg_fold(target_model - hip, thigh_m + shin_m, hip.distance(ankle))
            {
                target_model = target_model.lerp(hip + held_out, 1.0 - planted);
                out.feet[i].ankle_target_world = root + facing * target_model;
            }
            // The leg is solved for the foot's target less what it may stand off its shin.
            let off_shin = stand_off_shin(target_model - hip, reach_m, off_shin_m);
            feet.off_shin_model[i] = off_shin;
            let leg_target_model = target_model - off_shin;
            let forward = Vec3::Z;
            // A knee is a hinge about the character's left axis: for the hip→target line
            // `d`, the knee side that bends the shin backward is `d × left` (forward for a
            // leg hanging down, down for a foot kicked back to hip height). The animated
            // knee's side is mixed in at half weight for the leg's own splay; it can never
            // outvote the hinge, so the knee cannot flip.
            let animated_pole = knee_pole_model(hip, knee, ankle, forward);
            let hinge_pole = (target_model - hip)
                .cross(Vec3::X)
                .try_normalize()
                .unwrap_or(forward);
            let pole = (hinge_pole + 0.5 * animated_pole)
                .try_normalize()
                .unwrap_or(hinge_pole);
            let mut job = TwoBoneIkJob::for_leg(model, &leg.chain, leg_target_model, pole)
                .map_err(|_| FootIkError::JointOutOfRange {
                    joint: leg.chain.foot,
                    num_joints: model.num_joints(),
                })?;
            job.end_model = ankle;
            job.soften = config.soften;
            let solved = job.run();
            if solved.clamped {
                out.reach_clamps += 1;
            }
            // A flip: the solved knee lies on the other side of the hip–target line.
            if let Some(line) = (target_model - hip).try_normalize() {
                let knee_offset = solved.mid_model - hip;
                let knee_offset = knee_offset - line * knee_offset.dot(line);
                if knee_offset.length() > 1e-3 && knee_offset.dot(pole) < 0.0 {
                    out.knee_flips += 1;
                }
            }
            if !solved.degenerate {
                knee_bends[i] = bend_of(hip.distance(solved.end_model), thigh_m, shin_m);
            }
            solved
                .apply_to_pose(skeleton, model, leg.chain.thigh, leg.chain.calf, pose)
                .map_err(|_| FootIkError::JointOutOfRange {
                    joint: leg.chain.calf,
                    num_joints: model.num_joints(),
                })?;
        }
        self.update_legs(skeleton, pose, model, &feet.off_shin_model)?;
        Ok((reach_rolls, knee_bends))
    }

    /// Each foot turned to its alignment on its solved leg (IK-4); the toes of a foot
    /// rolled onto its ball (`reach_rolls`) stay as they were.
    pub(super) fn align_feet(
        &self,
        tick: &Tick,
        feet: &FeetTargets,
        reach_rolls: [Quat; 2],
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
    ) -> Result<(), FootIkError> {
        let animated = &tick.animated;
        let (align_model, alphas) = (&feet.align_model, &feet.alphas);
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let foot = leg.chain.foot;
            let wanted_model = align_model[i] * animated[i].rotation_model;
            let parent = skeleton
                .parent(foot)
                .map_or(Quat::IDENTITY, |p| rotation_of(model, p));
            let local = (parent.inverse() * wanted_model).normalize();
            if local.is_finite() && alphas[i] > 0.0 {
                pose.local_mut()[foot].rotation = local;
                // The toes stay as they were: a foot rolled onto its ball bends there.
                let roll = reach_rolls[i];
                if let (Some(toe), false) = (leg.chain.ball, roll == Quat::IDENTITY) {
                    if skeleton.parent(toe) == Some(foot) {
                        let foot_model = (parent * local).normalize();
                        let unroll = foot_model.inverse() * roll.inverse() * foot_model;
                        let toe_local = (unroll * pose.local()[toe].rotation).normalize();
                        if toe_local.is_finite() {
                            pose.local_mut()[toe].rotation = toe_local;
                        }
                    }
                }
            }
        }
        self.update_legs(skeleton, pose, model, &feet.off_shin_model)?;
        Ok(())
    }

    /// Model transforms of the legs again after their local rotations changed (the rest of
    /// the skeleton is already up to date), with each IK-target foot moved to the end of
    /// its shin, stood off it by `off_shin_model`.
    pub(super) fn update_legs(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
        off_shin_model: &[Vec3; 2],
    ) -> Result<(), FootIkError> {
        self.update_leg_models(skeleton, pose, model)?;
        if self.place_ik_target_feet(skeleton, pose, model, off_shin_model) {
            // Again, for the feet (and what hangs from them) at their new place.
            self.update_leg_models(skeleton, pose, model)?;
        }
        Ok(())
    }

    fn update_leg_models(
        &self,
        skeleton: &Skeleton,
        pose: &Pose,
        model: &mut ModelPose,
    ) -> Result<(), FootIkError> {
        match self.rig.leg_joints {
            [Some(left), Some(right)] => {
                local_to_model_joints(skeleton, pose, model, left.as_slice())?;
                local_to_model_joints(skeleton, pose, model, right.as_slice())?;
            }
            _ => local_to_model(skeleton, pose, model)?,
        }
        Ok(())
    }

    /// Sets each IK-target foot's local translation (relative to its own parent, whatever
    /// that is) so that its model position is the virtual ankle at the end of its solved
    /// shin plus its `off_shin_model`; its rotation is left to the alignment. `model` must
    /// be up to date for the calves and the feet's parents. Returns whether any foot was
    /// placed.
    fn place_ik_target_feet(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &ModelPose,
        off_shin_model: &[Vec3; 2],
    ) -> bool {
        let mut placed = false;
        for (leg, off_shin) in self.rig.legs.iter().zip(off_shin_model) {
            if leg.ankle_in_calf.is_none() {
                continue;
            }
            let foot = leg.chain.foot;
            let parent_model = skeleton
                .parent(foot)
                .map_or(Affine3A::IDENTITY, |p| model.joints_model()[p]);
            let local = parent_model
                .inverse()
                .transform_point3(leg.ankle_model(model) + *off_shin);
            if local.is_finite() {
                pose.local_mut()[foot].translation = local;
                placed = true;
            }
        }
        placed
    }
}

/// IK-4: the foot turned to its plane (clamped), by `alpha` (model space).
pub(super) fn align_to_plane(
    plane: SupportPlane,
    yaw: f32,
    alpha: f32,
    config: &FootIkConfig,
) -> Quat {
    // IK-4: the foot turns to the plane (clamped).
    let limits = TiltLimits {
        max_pitch_rad: config.foot_max_pitch_rad,
        max_roll_rad: config.foot_max_roll_rad,
        roll_enabled: true,
    };
    let tilt = decompose_ground_normal(plane.normal_world, yaw, &limits);
    Quat::IDENTITY.slerp(tilt.rotation_model(), alpha)
}

/// The foot's alignment turned by the lock's yaw and pitched forefoot-first on stairs.
pub(super) fn turn_foot(
    state: &mut FootState,
    align: Quat,
    foot_yaw: f32,
    foot: &FootTick,
    dt_s: f32,
    config: &FootIkConfig,
) -> Quat {
    // A planted foot keeps pointing where it landed while the body turns over it,
    // or the animation turns it (its heel would otherwise sweep the floor about the
    // ball), and turns back with its release. Yawed first, then aligned, so its sole
    // stays on the plane.
    let align = align * Quat::from_rotation_y(state.lock.yaw_offset_rad(foot_yaw));
    align * stair_pitch(state, foot.anim, foot.landing_in_s, config, dt_s)
}

/// How far along `hip_to_target` (model space) an IK-target foot stands off its shin's
/// end: the part of the distance past `reach_m`, up to `off_shin_m` (what the animation
/// holds it off by this tick), so the leg is solved for the rest. Zero within reach.
fn stand_off_shin(hip_to_target: Vec3, reach_m: f32, off_shin_m: f32) -> Vec3 {
    let distance_m = hip_to_target.length();
    let off_m = (distance_m - reach_m).min(off_shin_m);
    match hip_to_target.try_normalize() {
        Some(direction) if off_m > 0.0 => direction * off_m,
        _ => Vec3::ZERO,
    }
}

/// IK-8's reach, helped by the foot: an ankle target farther than `reach_m` from the hip is
/// brought closer by rolling the foot heel-up about its ball (the foot's ankle→ball vector
/// `ball_offset`, its heel→ball vector `heel_to_ball`, its sole's `up`, all model space),
/// by the least angle up to `max_rad` that reaches, or the angle that comes closest. The
/// foot pitches about the line across it at the ball (square to heel→ball): on a rig whose
/// ankle joint is off to the side of its sole (Quaternius': 21 cm), a turn square to
/// ankle→ball would swing the ankle sideways. `None` when the target is within reach or
/// rolling does not help. Returns the roll (model space) and the rolled ankle target.
pub(super) fn roll_onto_ball(
    hip: Vec3,
    reach_m: f32,
    ankle_target: Vec3,
    (ball_offset, heel_to_ball): (Vec3, Vec3),
    up: Vec3,
    max_rad: f32,
) -> Option<(Quat, Vec3)> {
    let usable = max_rad > 0.0 && reach_m > 0.0;
    if !usable || hip.distance(ankle_target) <= reach_m {
        return None;
    }
    let forward = (heel_to_ball - up * up.dot(heel_to_ball)).try_normalize()?;
    let axis = up.cross(forward).try_normalize()?;
    let ball = ankle_target + ball_offset;
    let rolled = |angle: f32| {
        let roll = Quat::from_axis_angle(axis, angle);
        (roll, ball - roll * ball_offset)
    };
    let miss = |angle: f32| hip.distance(rolled(angle).1) - reach_m;
    // Coarse steps to the first angle that reaches (or the closest), then bisection.
    const STEPS: u32 = 8;
    let (mut lo, mut best, mut best_miss) = (0.0f32, 0.0f32, miss(0.0));
    for k in 1..=STEPS {
        let angle = max_rad * k as f32 / STEPS as f32;
        let m = miss(angle);
        if m <= 0.0 {
            let mut hi = angle;
            for _ in 0..8 {
                let mid = 0.5 * (lo + hi);
                if miss(mid) <= 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(rolled(hi)).filter(|(r, a)| r.is_finite() && a.is_finite());
        }
        if m < best_miss {
            (best, best_miss) = (angle, m);
        }
        lo = angle;
    }
    (best > 0.0)
        .then(|| rolled(best))
        .filter(|(r, a)| r.is_finite() && a.is_finite())
}

/// A leg's bones and reach (m), for [`limit_knee_bend`].
#[derive(Clone, Copy, Debug)]
pub(super) struct KneeBend {
    pub thigh_m: f32,
    pub shin_m: f32,
    /// The farthest the solve reaches (the softened chain length).
    pub reach_m: f32,
}

/// A knee's bend (rad, 0 straight, π folded) with hip and ankle `hip_to_ankle_m` apart,
/// from the law of cosines. `None` for degenerate bones.
pub(super) fn bend_of(hip_to_ankle_m: f32, thigh_m: f32, shin_m: f32) -> Option<f32> {
    let denominator = 2.0 * thigh_m * shin_m;
    if !(denominator > 1e-8 && hip_to_ankle_m.is_finite()) {
        return None;
    }
    let d = hip_to_ankle_m.clamp((thigh_m - shin_m).abs(), thigh_m + shin_m);
    let cos_inner = ((thigh_m * thigh_m + shin_m * shin_m - d * d) / denominator).clamp(-1.0, 1.0);
    Some(std::f32::consts::PI - cos_inner.acos())
}

/// The hip-to-target vector of a swinging leg (model space) lifted so its knee, bending
/// by `last_rad` last tick at `speed_rad_s`, speeds up its straightening by at most
/// [`SWING_KNEE_ACCEL_RAD_S2`]. A foot chasing a tread that dropped away under it
/// straightened the leg in one tick; near full reach a few cm of the ankle's distance is
/// most of the knee's bend, and the knee moved 20 cm in a tick (running down stairs,
/// some start offsets). `None` when the target is within the limit, is at or above the
/// hip, or anything is not finite.
pub(super) fn limit_knee_bend(
    hip_to_target: Vec3,
    leg: KneeBend,
    last_rad: f32,
    speed_rad_s: f32,
    dt_s: f32,
) -> Option<Vec3> {
    let KneeBend {
        thigh_m,
        shin_m,
        reach_m,
    } = leg;
    if !(dt_s > 0.0 && last_rad.is_finite() && speed_rad_s.is_finite()) {
        return None;
    }
    let distance_m = hip_to_target.length();
    let wanted_rad = bend_of(distance_m.min(reach_m), thigh_m, shin_m)?;
    let change = SWING_KNEE_ACCEL_RAD_S2 * dt_s;
    // Speeding up its straightening is limited; slowing it down, or bending, is not (a
    // knee kept bending by its own momentum folds the foot up to the hip).
    let least_bend_rad = last_rad + (speed_rad_s.min(0.0) - change) * dt_s;
    if wanted_rad >= least_bend_rad {
        return None;
    }
    let limited_rad = least_bend_rad;
    // Back from the bend to the hip–ankle distance (law of cosines).
    let cos_inner = (std::f32::consts::PI - limited_rad).cos();
    let limited_m = (thigh_m * thigh_m + shin_m * shin_m - 2.0 * thigh_m * shin_m * cos_inner)
        .max(0.0)
        .sqrt()
        .min(reach_m);
    // Held back, the foot is lifted to the limited reach: the ground it was kept off is
    // below it. (Bending is left alone: held back, the foot would stay low and behind,
    // through a nosing it is lifting over, or out ahead into a riser.) A foot up at the
    // hip (a short rig running up stairs) is not lifted further.
    if hip_to_target.y >= 0.0 {
        return None;
    }
    let horizontal = Vec2::new(hip_to_target.x, hip_to_target.z);
    let dy_sq = limited_m * limited_m - horizontal.length_squared();
    (dy_sq > 0.0).then(|| Vec3::new(horizontal.x, -dy_sq.sqrt(), horizontal.y))
}

/// Where a swinging foot's target out of reach (`reach_m` from `hip`, model space) waits:
/// its height raised toward the lowest reachable point above it, eased in over the first
/// [`SWING_LIFT_EASE_M`] past the reach, only ahead of the hip, and eased out as the target
/// nears the reach across the ground, where that point rises to the hip's height (lifted
/// all the way up to it on one tick and not at all on the next, Quaternius' running feet,
/// out at the front of their clip's own reach, jumped by up to 40 cm a tick). `None` when
/// it is within reach, out of it across the ground, or above the hip.
fn raise_out_of_reach_swing(hip: Vec3, target: Vec3, reach_m: f32) -> Option<f32> {
    let d = target - hip;
    let across_m = (d.x * d.x + d.z * d.z).sqrt();
    let room_sq = reach_m * reach_m - across_m * across_m;
    let past_reach_m = d.length() - reach_m;
    // Out of reach above the hip (a small rig's front foot up a steep ramp, its pelvis
    // pulled down to the foot behind) there is no reachable point above the target: the
    // lowest one on the reach sphere is under the hip, and lifting "toward" it took the
    // foot 60 cm into the ramp. The solve's reach along the leg is above the ground there
    // (between the hip and a target on the ground). Out of reach means |d.y| > the room,
    // so this switches only where the weight's across term is 0.
    if !(room_sq > 0.0 && past_reach_m > 0.0 && d.y < 0.0) {
        return None;
    }
    let lowest_y = hip.y - room_sq.sqrt();
    let weight = smoothstep((past_reach_m / SWING_LIFT_EASE_M).min(1.0))
        * smoothstep((d.z / SWING_LIFT_AHEAD_M).clamp(0.0, 1.0))
        * smoothstep(((reach_m - across_m) / SWING_LIFT_ACROSS_M).clamp(0.0, 1.0));
    Some(lerp(target.y, lowest_y, weight))
}

/// The hip-to-target vector (model space) held out so the target is at least
/// [`LEG_FOLD_MIN_SHARE`] of the leg (`leg_m`, thigh + shin) from the hip, or the
/// animation's own hip–ankle distance (`animated_m`) when that is less (a clip may fold
/// a leg deeper). It is moved out mostly downward: along its own direction from the hip
/// plus [`LEG_FOLD_DOWN`] straight down, so a target under the hip or level with it goes
/// down (the knee stays under the thigh), and one passing over the hip moves on smoothly
/// (lowered straight down, a target just over the hip went from over it to under it in a
/// tick: Quaternius' knee, 87 cm). `None` when it is far enough or anything is not finite.
pub(super) fn limit_leg_fold(hip_to_target: Vec3, leg_m: f32, animated_m: f32) -> Option<Vec3> {
    let fold_min_m = (LEG_FOLD_MIN_SHARE * leg_m).min(animated_m);
    if !(leg_m.is_finite() && fold_min_m.is_finite() && hip_to_target.is_finite()) {
        return None;
    }
    let d = hip_to_target;
    if d.length() >= fold_min_m {
        return None;
    }
    // Out along `way` to the sphere of radius fold_min: |d + t·way| = fold_min, t ≥ 0.
    let way = (d.try_normalize().unwrap_or(Vec3::ZERO) + LEG_FOLD_DOWN * Vec3::NEG_Y)
        .try_normalize()
        .unwrap_or(Vec3::NEG_Y);
    let along = d.dot(way);
    let t = -along + (along * along - d.length_squared() + fold_min_m * fold_min_m).sqrt();
    Some(d + t.max(0.0) * way)
}

/// How much straight down is added to a too-folded target's own direction from the hip
/// to move it out (see [`limit_leg_fold`]): below 1, so the way out never vanishes and
/// only a target nearly straight over the hip goes up.
const LEG_FOLD_DOWN: f32 = 0.5;

/// The least hip–ankle distance of a leg, as a share of its length (thigh + shin): an
/// inner knee angle of about 23°, deeper than a person folds.
const LEG_FOLD_MIN_SHARE: f32 = 0.2;

/// How fast a swinging knee's straightening may speed up (rad/s²): about 16° a tick² at
/// 60 Hz.
const SWING_KNEE_ACCEL_RAD_S2: f32 = 1000.0;

/// How far past its reach (m) a swinging foot's target must be to be fully raised to it.
const SWING_LIFT_EASE_M: f32 = 0.03;

/// How far inside its reach across the ground (m) a swinging foot's target must be to be
/// raised fully; at the reach it is not raised at all.
const SWING_LIFT_ACROSS_M: f32 = 0.1;

/// How far ahead of the hip (m, model +Z) a swinging foot's target must be to be raised
/// fully; behind the hip it is not raised at all.
const SWING_LIFT_AHEAD_M: f32 = 0.1;

/// Ground this much higher or lower than at lift-off makes a swing one onto another tread
/// (m), for the forefoot-first pitch.
const STAIR_STEP_MIN_M: f32 = 0.05;
/// A tread is level: its plane's normal within this of vertical (cos of 10°).
const STAIR_TREAD_MIN_UP: f32 = 0.985;

/// The forefoot-first pitch of a foot on stairs (see [`FootIkConfig::stair_toe_down_rad`]),
/// as a rotation about the character's lateral axis (model space, toes down), and its
/// weight brought up to date in `state`: in over the second half of a swing whose landing
/// (the ball's landing probe's hit) is a level tread
/// [`STAIR_STEP_MIN_M`] or more above or below where it lifted off, out over
/// `stair_heel_lower_s` once the foot is down (the heel lowers about the ball).
pub(super) fn stair_pitch(
    state: &mut FootState,
    anim: AnimatedFoot,
    landing_in_s: f32,
    config: &FootIkConfig,
    dt_s: f32,
) -> Quat {
    if config.stair_toe_down_rad <= 0.0 || dt_s.is_nan() || dt_s < 0.0 {
        state.stair_pitch_w = 0.0;
        return Quat::IDENTITY;
    }
    // Down: its contact says planted, or the lock has it and the contact curve does not
    // put its landing ahead. A lock may take the foot a tick before the ball is down (at
    // 30 Hz, 7 mm over a tread): the heel starting down then landed the foot flat.
    let landing_ahead = landing_in_s > 0.0;
    if state.contact >= 0.5 || (state.lock.is_locked() && !landing_ahead) {
        let rate = if config.stair_heel_lower_s > 0.0 {
            dt_s / config.stair_heel_lower_s
        } else {
            1.0
        };
        state.stair_pitch_w = (state.stair_pitch_w - rate).max(0.0);
    } else {
        // Where the ball lands, as its probe found it (the smoothed plane may still be a
        // ramp's, or a crease's, when the landing is the first tread after a ramp).
        let onto_step = state.last_probe.toe.is_some_and(|hit| {
            hit.normal.y >= STAIR_TREAD_MIN_UP
                && state
                    .swing
                    .rise_from_liftoff_m(hit.point.y)
                    .is_some_and(|rise| rise.abs() >= STAIR_STEP_MIN_M)
        });
        let progress = if landing_in_s.is_finite() && landing_in_s >= 0.0 {
            state.swing.time_s / (state.swing.time_s + landing_in_s).max(1e-6)
        } else {
            0.0
        };
        state.stair_pitch_w = if onto_step {
            smoothstep(((progress - 0.5) / 0.5).clamp(0.0, 1.0))
        } else {
            0.0
        };
    }
    if state.stair_pitch_w <= 0.0 {
        return Quat::IDENTITY;
    }
    // The animation's own pitch (toes down positive): a heel strike needs more turning.
    let sole = anim.ball_model - anim.heel_model;
    let along = Vec2::new(sole.x, sole.z).length();
    let anim_toe_down_rad = (-sole.y).atan2(along);
    let extra_rad = (config.stair_toe_down_rad - anim_toe_down_rad).max(0.0);
    Quat::from_rotation_x(state.stair_pitch_w * extra_rad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::lock::{LockConfig, LockInput};
    use crate::world::RayHit;

    #[test]
    fn a_foot_the_lock_takes_before_its_landing_keeps_its_forefoot_pitch() {
        let config = FootIkConfig::default();
        let dt_s = 1.0 / 30.0;
        // A walk's heel-strike pose, toes 10° up, in the last tick of a swing that lifted
        // off 25 cm above the tread it lands on (a step down): all the way pitched
        // toes-down.
        let anim = AnimatedFoot {
            ankle_model: Vec3::new(0.0, 0.08, 0.0),
            heel_model: Vec3::new(0.0, 0.0, -0.05),
            ball_model: Vec3::new(0.0, 0.13 * 10f32.to_radians().tan(), 0.08),
            rotation_model: Quat::IDENTITY,
            off_shin_m: 0.0,
        };
        let landing = |w: f32| {
            let mut state = FootState::default();
            state.swing.liftoff_height_m = Some(0.25);
            state.swing.time_s = 0.4;
            state.last_probe.toe = Some(RayHit {
                point: Vec3::new(0.0, 0.0, 0.6),
                normal: Vec3::Y,
                distance_m: 0.3,
            });
            state.stair_pitch_w = w;
            // The lock has it (the curve's contact rose this tick); the eased contact is
            // still 0.
            state.lock.update_with(
                &LockConfig::default(),
                &LockInput {
                    contact: 1.0,
                    dt_s,
                    ..LockInput::default()
                },
            );
            assert!(state.lock.is_locked());
            state
        };
        // The curve puts its landing a few hundredths of a second ahead: still coming down,
        // the pitch stays in.
        let mut state = landing(1.0);
        stair_pitch(&mut state, anim, 0.02, &config, dt_s);
        assert!(state.stair_pitch_w > 0.9, "{}", state.stair_pitch_w);
        // Landed (0), or with no contact curves to say (NaN): the heel starts down.
        for landing_in_s in [0.0, f32::NAN] {
            let mut state = landing(1.0);
            stair_pitch(&mut state, anim, landing_in_s, &config, dt_s);
            let lowered = 1.0 - dt_s / config.stair_heel_lower_s;
            assert!(
                (state.stair_pitch_w - lowered).abs() < 1e-5,
                "{landing_in_s}"
            );
        }
    }

    #[test]
    fn a_foot_rolls_onto_its_ball_by_the_least_angle_that_reaches() {
        let hip = Vec3::new(0.0, 0.9, 0.0);
        let ball_offset = Vec3::new(0.0, -0.08, 0.13);
        let feet = (ball_offset, Vec3::new(0.0, 0.0, 0.18));
        let max = 40f32.to_radians();
        // Within reach, or the roll switched off: nothing to do.
        let near = Vec3::new(0.0, 0.15, 0.0);
        assert!(roll_onto_ball(hip, 0.8, near, feet, Vec3::Y, max).is_none());
        let far = Vec3::new(0.0, 0.08, -0.05);
        assert!(roll_onto_ball(hip, 0.8, far, feet, Vec3::Y, 0.0).is_none());
        // 2.3 cm out of reach: rolled until the ankle is just within reach, heel up, the
        // ball where it was.
        let (roll, ankle) = roll_onto_ball(hip, 0.8, far, feet, Vec3::Y, max).unwrap();
        let reach_left = 0.8 - hip.distance(ankle);
        assert!((0.0..2e-3).contains(&reach_left), "reach left {reach_left}");
        assert!(ankle.y > far.y, "ankle {ankle}");
        let ball = far + ball_offset;
        assert!((ankle + roll * ball_offset).distance(ball) < 1e-5);
        let heel_offset = Vec3::new(0.0, -0.08, -0.05);
        assert!((roll * heel_offset).y > heel_offset.y, "heel comes up");
        assert!(roll.angle_between(Quat::IDENTITY) < max);
        // Far out of reach: the whole allowed roll, and no more.
        let (roll, _) = roll_onto_ball(hip, 0.6, far, feet, Vec3::Y, max).unwrap();
        assert!((roll.angle_between(Quat::IDENTITY) - max).abs() < 1e-4);
        // Degenerate input never gives a non-finite answer.
        for bad in [Vec3::NAN, Vec3::ZERO] {
            let rolled = roll_onto_ball(hip, 0.8, far, (bad, bad), Vec3::Y, max);
            assert!(rolled.is_none(), "{rolled:?}");
        }
        assert!(roll_onto_ball(hip, f32::NAN, far, feet, Vec3::Y, max).is_none());
    }

    #[test]
    fn a_foot_whose_ankle_is_off_its_sole_rolls_about_the_line_across_its_ball() {
        // Quaternius' foot joint stands 21 cm outside its sole's middle: the sole runs
        // straight ahead, the ball ahead and inside of the ankle. Rolled heel-up, the ankle
        // comes up and forward along the foot, not in toward the other foot.
        let hip = Vec3::new(0.54, 0.4, 0.0);
        let far = Vec3::new(0.54, 0.02, -0.5);
        let ball_offset = Vec3::new(-0.21, -0.02, 0.19);
        let heel_to_ball = Vec3::new(0.0, 0.0, 0.2);
        let max = 40f32.to_radians();
        let (roll, ankle) =
            roll_onto_ball(hip, 0.45, far, (ball_offset, heel_to_ball), Vec3::Y, max).unwrap();
        assert!(ankle.y > far.y + 0.01, "heel up: {ankle}");
        assert!((ankle.x - far.x).abs() < 1e-4, "sideways: {ankle}");
        let ball = far + ball_offset;
        assert!((ankle + roll * ball_offset).distance(ball) < 1e-5);
        // Turned square to ankle→ball instead, the ankle went 6 cm in.
        let (_, skewed) =
            roll_onto_ball(hip, 0.45, far, (ball_offset, ball_offset), Vec3::Y, max).unwrap();
        assert!(skewed.x < far.x - 0.05, "{skewed}");
    }

    #[test]
    fn a_knee_bend_is_zero_straight_and_a_right_angle_at_its_distance() {
        let (a, b): (f32, f32) = (0.42, 0.4);
        assert!(bend_of(a + b, a, b).unwrap().abs() < 1e-3);
        assert!(
            bend_of(1.5, a, b).unwrap().abs() < 1e-3,
            "past reach: straight"
        );
        let right = bend_of((a * a + b * b).sqrt(), a, b).unwrap();
        assert!(
            (right - std::f32::consts::FRAC_PI_2).abs() < 1e-4,
            "{right}"
        );
        assert!(bend_of(0.5, 0.0, b).is_none());
        assert!(bend_of(f32::NAN, a, b).is_none());
    }

    /// A swinging foot whose target drops from a bent knee to full reach in one tick (a
    /// tread dropped away under it) straightens the leg over a few ticks, each tick's
    /// change in bending speed within the limit, lifted above the target meanwhile, and
    /// reaches it; a foot that asks for no more than that is left where it is.
    #[test]
    fn a_swinging_knee_speeds_up_its_straightening_no_faster_than_the_limit() {
        let leg = KneeBend {
            thigh_m: 0.42,
            shin_m: 0.4,
            reach_m: 0.81,
        };
        let dt = 1.0 / 60.0;
        let target = Vec3::new(0.0, -0.79, 0.18);
        let bent = bend_of(0.6, leg.thigh_m, leg.shin_m).unwrap();
        let (mut last, mut speed) = (bent, 0.0);
        let mut reached = false;
        for tick in 0..30 {
            let solved = limit_knee_bend(target, leg, last, speed, dt).unwrap_or(target);
            assert!(solved.is_finite());
            assert!(
                solved.y >= target.y - 1e-5,
                "tick {tick}: never below the target"
            );
            assert!((solved.z - target.z).abs() < 1e-5, "the horizontal is kept");
            let bend = bend_of(solved.length().min(leg.reach_m), leg.thigh_m, leg.shin_m).unwrap();
            let new_speed = (bend - last) / dt;
            let limit = SWING_KNEE_ACCEL_RAD_S2 * dt;
            assert!(
                new_speed - speed >= -limit - 1e-2,
                "tick {tick}: {new_speed} after {speed}"
            );
            (last, speed) = (bend, new_speed);
            reached |= solved.distance(target) < 1e-4;
        }
        assert!(reached, "the foot gets to its target");
        assert!(speed.abs() < 1e-3, "and stays there");
        // Within the limit (a small straightening from rest), bending, or above the hip:
        // nothing to do.
        let small = target.normalize() * 0.605;
        assert!(limit_knee_bend(small, leg, bent, 0.0, dt).is_none());
        assert!(limit_knee_bend(target.normalize() * 0.4, leg, bent, 0.0, dt).is_none());
        let up = Vec3::new(0.0, 0.1, 0.8);
        assert!(limit_knee_bend(up, leg, bent, 0.0, dt).is_none());
        for (last, speed, dt) in [
            (f32::NAN, 0.0, dt),
            (bent, f32::INFINITY, dt),
            (bent, 0.0, 0.0),
        ] {
            assert!(limit_knee_bend(target, leg, last, speed, dt).is_none());
        }
    }

    #[test]
    fn a_swinging_foot_out_of_reach_is_raised_without_a_jump_anywhere() {
        // A 0.53 m leg (Quaternius') with its target 15 cm below the hip's reach line,
        // swept ahead from under the hip to out of reach across the ground, 1 mm a step:
        // the raised height never moves by more than a few mm a step.
        let hip = Vec3::new(0.0, 0.4, 0.0);
        let reach_m = 0.53;
        let mut last_y = None;
        let mut raised = 0;
        for k in 0..700 {
            let target = Vec3::new(0.0, 0.05, 0.001 * k as f32);
            let y = raise_out_of_reach_swing(hip, target, reach_m).unwrap_or(target.y);
            raised += usize::from(y > target.y + 0.01);
            if let Some(last) = last_y {
                let step: f32 = y - last;
                assert!(step.abs() < 0.004, "{step} m at {} m ahead", target.z);
            }
            last_y = Some(y);
        }
        assert!(raised > 20, "the foot is raised somewhere in the sweep");
        // Out of reach across the ground, nothing to raise it to.
        assert_eq!(
            raise_out_of_reach_swing(hip, Vec3::new(0.0, 0.05, 0.6), reach_m),
            None
        );
        // Out of reach above the hip (up a steep ramp), swept over it from behind to ahead:
        // never moved down (it was taken to the reach sphere's bottom, under the hip).
        for k in -500..=500 {
            let target = hip + Vec3::new(0.0, 0.45, 0.001 * k as f32);
            if let Some(y) = raise_out_of_reach_swing(hip, target, reach_m) {
                assert!(y >= target.y, "{y} for a target at {target}");
            }
        }
    }

    #[test]
    fn a_leg_is_never_folded_flatter_than_a_knee_can() {
        let leg_m = 0.82;
        let fold_min_m = LEG_FOLD_MIN_SHARE * leg_m;
        // A target up at the hip, a little behind it (a foot kicked up onto a tread the
        // pelvis has not come up to): held out to the least distance, mostly downward.
        let at_hip = Vec3::new(0.01, -0.02, -0.05);
        let held = limit_leg_fold(at_hip, leg_m, 0.8).unwrap();
        assert!((held.length() - fold_min_m).abs() < 1e-5);
        assert!(held.y < -0.09 && held.z < at_hip.z, "{held}");
        // Level with the hip, ahead of it: held below it, the knee under the thigh.
        let level = limit_leg_fold(Vec3::new(0.0, 0.0, 0.05), leg_m, 0.8).unwrap();
        assert!(level.y < -0.04 && level.z > 0.05, "{level}");
        // A clip that folds the leg deeper itself is followed down to its own distance.
        let deep = limit_leg_fold(at_hip, leg_m, 0.1).unwrap();
        assert!((deep.length() - 0.1).abs() < 1e-5);
        // At the hip itself: straight down.
        let down = limit_leg_fold(Vec3::ZERO, leg_m, 0.8).unwrap();
        assert!((down - Vec3::new(0.0, -fold_min_m, 0.0)).length() < 1e-6);
        // A target passing 5 cm over the hip moves on smoothly: a millimetre of the
        // target's path moves it by under 8 mm (lowered straight down, it went from 5 cm
        // over the hip to 16 cm under it between two ticks).
        let mut last: Option<Vec3> = None;
        for k in 0..=600 {
            let z = -0.3 + 0.001 * k as f32;
            let target = Vec3::new(0.0, 0.05, z);
            let held = limit_leg_fold(target, leg_m, 0.8).unwrap_or(target);
            assert!(held.length() >= fold_min_m - 1e-5);
            if let Some(last) = last {
                let step = held.distance(last);
                assert!(step < 0.008, "target at z {z} moved {step} m");
            }
            last = Some(held);
        }
        // Far enough, or not finite: untouched.
        assert!(limit_leg_fold(Vec3::new(0.0, -0.5, 0.2), leg_m, 0.8).is_none());
        assert!(limit_leg_fold(Vec3::new(0.0, 0.0, fold_min_m), leg_m, 0.8).is_none());
        assert!(limit_leg_fold(Vec3::new(f32::NAN, 0.0, 0.0), leg_m, 0.8).is_none());
        assert!(limit_leg_fold(at_hip, f32::NAN, 0.8).is_none());
    }
}
