//! Step 1 of the stage (IK-1): where each foot probes this tick, from the animated feet,
//! the body's velocity and each foot's gait phase.

use glam::{Quat, Vec2, Vec3};

use super::placement::{swinging_down, OFF_SUPPORT_DROP_M};
use super::{AnimatedFoot, FeetTargets, FootIk, FootIkConfig, FootIkInput};
use crate::ik::foot::{FootIkMode, FootProbeRequest, FootProbeResult};
use crate::math::finite_or;

/// Below this horizontal speed (m/s) nothing is "ahead" (IK-10).
const NO_SUPPORT_MIN_SPEED_M_S: f32 = 0.5;

impl FootIk {
    /// Step 1: where each foot should probe this tick (IK-1). A planted foot probes where
    /// it stands; a swinging one is pushed ahead by the horizontal velocity × look-ahead,
    /// scaled by how much it is swinging.
    pub fn plan_probes(
        &self,
        input: &FootIkInput,
        animated: &[AnimatedFoot; 2],
    ) -> [FootProbeRequest; 2] {
        let facing = Quat::from_rotation_y(finite_or(input.facing_yaw_rad, 0.0));
        let velocity = if input.velocity_world.is_finite() {
            Vec2::new(input.velocity_world.x, input.velocity_world.z)
        } else {
            Vec2::ZERO
        };
        let look_ahead_s = match self.config.mode {
            FootIkMode::Predictive => self.config.probe.look_ahead_s(velocity.length()),
            _ => 0.0,
        };
        let skip_all = self.config.mode == FootIkMode::None || !input.root_world.is_finite();
        let overshoot = input.step_overshoot_world;
        let horizontal_overshoot = Some(Vec3::new(overshoot.x, 0.0, overshoot.z))
            .filter(|o| o.is_finite())
            .unwrap_or_default();
        std::array::from_fn(|i| {
            let foot = &animated[i];
            // A locked foot has landed: it probes where it stands.
            let swing = if self.feet[i].lock.is_locked() {
                0.0
            } else {
                1.0 - self.feet[i].contact.clamp(0.0, 1.0)
            };
            let placement = self.feet[i].placement_world();
            let placement = Vec3::new(placement.x, 0.0, placement.y);
            // On the body, which lags a capsule step (this tick's taken back as the solve
            // will take it).
            let body = input.root_world + self.pelvis.step_lag_world - horizontal_overshoot;
            let mut heel_world = body + facing * foot.heel_model + placement;
            let mut ball_world = body + facing * foot.ball_model + placement;
            // A locked foot probes where it is held, not where the animation has it; one
            // gliding back after a release, where it will be this tick (its ground is what
            // it must clear as it lifts: probed a tick's glide ahead of it, KayKit's ball
            // was 1.4 cm short of a nosing its probe had passed, and went 12 mm into it).
            let shift = match self.feet[i].locked_ball_xz() {
                Some(locked) => Vec2::new(locked.x - ball_world.x, locked.y - ball_world.z),
                None => self.feet[i]
                    .lock
                    .release_offset_xz_after(&self.config.lock, input.dt_s),
            };
            // Just ahead of a swinging ball, the way the animation carries it: the ground
            // there is probed too, so a riser the ball is about to reach as it leaves its
            // tread is cleared before it gets there (at 144 Hz the ball was seen 7 mm into
            // it; at 60 Hz it passed through between ticks).
            let ball_ahead_xz = match self.feet[i].last_ball_xz {
                Some(last) if !self.feet[i].lock.is_locked() && input.dt_s > 0.0 => {
                    let travel = Vec2::new(ball_world.x, ball_world.z) - last;
                    (travel.length() > BALL_AHEAD_MIN_SPEED_M_S * input.dt_s)
                        .then(|| travel.normalize_or_zero() * BALL_AHEAD_M)
                }
                _ => None,
            };
            heel_world += Vec3::new(shift.x, 0.0, shift.y);
            ball_world += Vec3::new(shift.x, 0.0, shift.y);
            // IK-1 with the clips' help: the foot lands where its clips set it down
            // relative to the body, carried on by the body's travel until the contact
            // curve rises; the probes take the foot's shape at landing (a swinging foot is
            // pitched, a landing one flat). Once the curve has risen (landing in 0 s) the
            // touch-down is behind: the foot is down where the animation has it, and the
            // landing pose, the body up to a tick ago, would send the probes a tick's
            // travel ahead of it (10 cm at 30 Hz running).
            let landing = input.landing_feet_model[i].filter(|_| {
                self.config.landing_from_clips && look_ahead_s > 0.0 && input.landing_in_s[i] > 0.0
            });
            let time_left_s = if landing.is_some() {
                input.landing_in_s[i].max(0.0)
            } else {
                self.feet[i]
                    .swing
                    .time_left_s(look_ahead_s, input.landing_in_s[i])
            };
            let landing_offset = landing.map_or(Vec2::ZERO, |landing| {
                let landed_ball = body + facing * landing.ball_model + placement;
                Vec2::new(landed_ball.x - ball_world.x, landed_ball.z - ball_world.z)
            });
            // Stepping down, the heel where it stands once the foot is down flat on a level
            // tread: the landing pose's direction at the sole's whole length. A pitched
            // landing pose is shorter across the ground; set down forefoot first on the
            // ball, the foot's heel then came down on the nosing behind (KayKit down the
            // 20 cm flight: 2.5 cm short, then slid 7 cm planted). Going up a heel may
            // hang over the tread below: that is how a foot climbs.
            let down = swinging_down(&self.feet[i], &self.feet[i].last_probe);
            let landing_heel_from_ball_xz = landing.map(|landing| {
                let sole = facing * (landing.heel_model - landing.ball_model);
                let across = Vec2::new(sole.x, sole.z);
                let then = if down {
                    across.normalize_or_zero() * sole.length()
                } else {
                    across
                };
                let now = heel_world - ball_world;
                Vec2::new(now.x, now.z).lerp(then, swing)
            });
            // Narrow supports: brought in toward the body's line, check whether the ground
            // where the animation would set the foot down is still the body's (the support
            // has widened again); landing far below the body, check the body's line (a
            // beam's edge beside the foot, or only a step or a ledge ahead).
            let state = &self.feet[i];
            let left = facing * Vec3::X;
            let to_body_line = || {
                let mid = 0.5 * (heel_world + ball_world) - input.root_world;
                Vec2::new(-left.x, -left.z) * mid.dot(left)
            };
            let (support_check_offset_world, support_check_below_y) =
                if self.config.mode != FootIkMode::Predictive {
                    (None, None)
                } else if state.narrow.active {
                    (Some(-state.narrow.shift_world), None)
                } else if state.narrow.landing_low {
                    (Some(to_body_line()), None)
                } else if input.grounded {
                    // Only if this tick's landing is the first to fall low.
                    let low_y = input.root_world.y - OFF_SUPPORT_DROP_M;
                    (Some(to_body_line()), Some(low_y))
                } else {
                    (None, None)
                };
            FootProbeRequest {
                support_check_offset_world,
                support_check_below_y,
                body_ground_world: (self.config.mode == FootIkMode::Predictive)
                    .then_some(input.root_world),
                heel_world,
                ball_world,
                look_ahead_offset_world: (velocity * time_left_s + landing_offset) * swing,
                landing_heel_from_ball_xz,
                ball_ahead_world: ball_ahead_xz.map(|t| ball_world + Vec3::new(t.x, 0.0, t.y)),
                single_point: self.config.mode == FootIkMode::Classic,
                skip: skip_all || !input.probe_feet[i],
                // IK-10: one feed-forward ray, carried by the left foot's request, at the
                // feet point pushed ahead by the full look-ahead (uncapped by the swing).
                ahead_world: (i == 0
                    && self.config.mode == FootIkMode::Predictive
                    && velocity.length() > NO_SUPPORT_MIN_SPEED_M_S)
                    .then(|| {
                        let offset = velocity * look_ahead_s;
                        input.root_world + Vec3::new(offset.x, 0.0, offset.y)
                    }),
            }
        })
    }
}

/// How far ahead of a swinging ball (m) its ground is probed. Seen farther ahead (2 or 4 cm),
/// a riser lifted the foot over it sooner and faster: runs of the lab sweep with a pop went
/// from 25 to 30 or 40 of 816.
const BALL_AHEAD_M: f32 = 0.01;
/// ...when the animation carries it at least this fast (m/s).
const BALL_AHEAD_MIN_SPEED_M_S: f32 = 0.1;

/// IK-10, after the feet are placed: moving, and the feed-forward ray or every probe of a
/// swinging foot missed: no ground ahead.
pub(super) fn no_support_ahead(
    config: &FootIkConfig,
    input: &FootIkInput,
    results: &[FootProbeResult; 2],
    feet: &FeetTargets,
) -> bool {
    let moving_all_missed = feet.moving_all_missed;
    let speed = Vec2::new(input.velocity_world.x, input.velocity_world.z).length();
    let ahead_missed = results.iter().any(|r| matches!(r.ahead, Some(None)));
    config.mode == FootIkMode::Predictive
        && speed > NO_SUPPORT_MIN_SPEED_M_S
        && (ahead_missed || moving_all_missed.iter().any(|&m| m))
}
