//! The legs (IK-8): the reach helped by rolling a foot onto its ball, the forefoot-first
//! pitch on stairs, and the model transforms of the legs after they are solved.

use glam::{Quat, Vec2, Vec3};

use super::{AnimatedFoot, FootIk, FootIkConfig, FootIkError, FootState};
use crate::math::smoothstep;
use crate::pose::{local_to_model, local_to_model_joints, ModelPose, Pose};
use crate::skeleton::Skeleton;

impl FootIk {
    /// Model transforms of the legs again after their local rotations changed (the rest of
    /// the skeleton is already up to date).
    pub(super) fn update_legs(
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
}

/// IK-8's reach, helped by the foot: an ankle target farther than `reach_m` from the hip is
/// brought closer by rolling the foot heel-up about its ball (the foot's ankle→ball vector
/// `ball_offset`, its sole's `up`, all model space), by the least angle up to `max_rad`
/// that reaches, or the angle that comes closest. `None` when the target is within reach
/// or rolling does not help. Returns the roll (model space) and the rolled ankle target.
pub(super) fn roll_onto_ball(
    hip: Vec3,
    reach_m: f32,
    ankle_target: Vec3,
    ball_offset: Vec3,
    up: Vec3,
    max_rad: f32,
) -> Option<(Quat, Vec3)> {
    let usable = max_rad > 0.0 && reach_m > 0.0;
    if !usable || hip.distance(ankle_target) <= reach_m {
        return None;
    }
    let forward = (ball_offset - up * up.dot(ball_offset)).try_normalize()?;
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
/// `stair_heel_lower_s` once the lock has the foot (the heel lowers about the ball).
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
    if state.lock.is_locked() || state.contact >= 0.5 {
        let rate = if config.stair_heel_lower_s > 0.0 {
            dt_s / config.stair_heel_lower_s
        } else {
            1.0
        };
        state.stair_pitch_w = (state.stair_pitch_w - rate).max(0.0);
    } else {
        // Where the ball lands, as its probe found it (the smoothed plane may still be a
        // ramp's, or a crease's, when the landing is the first tread after a ramp).
        let onto_step = match (state.swing.liftoff_height_m, state.last_probe.toe) {
            (Some(liftoff), Some(hit)) => {
                (hit.point.y - liftoff).abs() >= STAIR_STEP_MIN_M
                    && hit.normal.y >= STAIR_TREAD_MIN_UP
            }
            _ => false,
        };
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

    #[test]
    fn a_foot_rolls_onto_its_ball_by_the_least_angle_that_reaches() {
        let hip = Vec3::new(0.0, 0.9, 0.0);
        let ball_offset = Vec3::new(0.0, -0.08, 0.13);
        let max = 40f32.to_radians();
        // Within reach, or the roll switched off: nothing to do.
        let near = Vec3::new(0.0, 0.15, 0.0);
        assert!(roll_onto_ball(hip, 0.8, near, ball_offset, Vec3::Y, max).is_none());
        let far = Vec3::new(0.0, 0.08, -0.05);
        assert!(roll_onto_ball(hip, 0.8, far, ball_offset, Vec3::Y, 0.0).is_none());
        // 2.3 cm out of reach: rolled until the ankle is just within reach, heel up, the
        // ball where it was.
        let (roll, ankle) = roll_onto_ball(hip, 0.8, far, ball_offset, Vec3::Y, max).unwrap();
        let reach_left = 0.8 - hip.distance(ankle);
        assert!((0.0..2e-3).contains(&reach_left), "reach left {reach_left}");
        assert!(ankle.y > far.y, "ankle {ankle}");
        let ball = far + ball_offset;
        assert!((ankle + roll * ball_offset).distance(ball) < 1e-5);
        let heel_offset = Vec3::new(0.0, -0.08, -0.05);
        assert!((roll * heel_offset).y > heel_offset.y, "heel comes up");
        assert!(roll.angle_between(Quat::IDENTITY) < max);
        // Far out of reach: the whole allowed roll, and no more.
        let (roll, _) = roll_onto_ball(hip, 0.6, far, ball_offset, Vec3::Y, max).unwrap();
        assert!((roll.angle_between(Quat::IDENTITY) - max).abs() < 1e-4);
        // Degenerate input never gives a non-finite answer.
        for bad in [Vec3::NAN, Vec3::ZERO] {
            let rolled = roll_onto_ball(hip, 0.8, far, bad, Vec3::Y, max);
            assert!(rolled.is_none(), "{rolled:?}");
        }
        assert!(roll_onto_ball(hip, f32::NAN, far, ball_offset, Vec3::Y, max).is_none());
    }
}
