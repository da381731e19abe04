//! Foot lock (SPEC IK-9): a planted foot stays where it landed in world space, pointing
//! where it pointed, until its stance ends or holding it would over-stretch or twist the
//! leg, then it goes back to the animation over a short release instead of snapping (a
//! release forced while the stance goes on is a step: the foot stage lifts it on the way).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::math::smoothstep;
use crate::motion::wrap_angle;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LockConfig {
    pub enabled: bool,
    /// Contact weight at and above which a foot locks (and below which it releases).
    pub contact_threshold: f32,
    /// Release when the locked point is this far (m, horizontal) from where the animation
    /// puts the foot: the leg would over-extend or the stride no longer fits.
    pub max_distance_m: f32,
    /// Release when the character has turned this much since the lock (rad).
    pub max_twist_rad: f32,
    /// Time to glide from the released lock back to the animation (s).
    pub release_s: f32,
    /// Standing still, a locked foot this far (m, horizontal) from where the animation
    /// has it (a stop that left the feet split, while Idle has them side by side) steps
    /// there once it has waited [`Self::settle_after_s`]: the final adjusting step.
    pub settle_distance_m: f32,
    pub settle_after_s: f32,
    /// A release that has this far (m, horizontal) to go back to the animation is a step,
    /// whatever ended the lock (a stop whose blend carries the animated foot along the
    /// ground): the foot lifts on the way instead of sliding.
    pub step_min_offset_m: f32,
    /// Release when holding the locked foot would ask the pelvis this much lower (m), the
    /// foot as far below the hip as the animation has it: the hip has gone on out of the
    /// leg's reach over the ground and the foot steps after it rather than the body
    /// squatting to stay on it (a foot on a lower tread is not out of reach). A clip whose stance
    /// outlasts the leg (Quaternius' walk played slower, or a first step that landed
    /// short) otherwise sat the pelvis down 20 cm and then dragged the foot anyway.
    pub max_reach_drop_m: f32,
}

impl Default for LockConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            contact_threshold: 0.5,
            max_distance_m: 0.45,
            max_twist_rad: 60f32.to_radians(),
            release_s: 0.15,
            settle_distance_m: 0.06,
            settle_after_s: 0.15,
            step_min_offset_m: 0.05,
            max_reach_drop_m: 0.1,
        }
    }
}

/// Why a lock ended (for metrics and debug).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Release {
    StanceEnded,
    TooFar,
    Twisted,
    /// Standing still, away from where the animation has the foot: an adjusting step.
    Settle,
    /// The hip has gone on out of the leg's reach (see [`LockConfig::max_reach_drop_m`]).
    OutOfReach,
    Airborne,
}

/// Lock state of one foot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootLock {
    /// The locked ankle xz (world) and the facing yaw at lock time.
    locked: Option<(Vec2, f32)>,
    /// After a release: offset from the animation that is fading out (m, world xz), and
    /// the foot's yaw offset from the facing (rad), fading out with it.
    release_offset: Vec2,
    release_yaw_rad: f32,
    /// Fraction of the release left (1 → 0).
    release_left: f32,
    /// The last release, for metrics.
    pub last_release: Option<Release>,
    /// How long the foot has been waiting to settle (s).
    settle_wait_s: f32,
    /// What [`Self::nudge`] moved the lock by (set down on a tread on purpose): not a
    /// gap to settle.
    nudged: Vec2,
    /// The release under way is a step (see [`Self::stepping`]).
    release_is_step: bool,
    /// A step's landing point (world xz), fixed once it starts coming down, so the foot
    /// comes straight down there whatever the animation does meanwhile.
    step_landing_xz: Option<Vec2>,
    /// The lock came from the foot touching down, not from its contact curve.
    touch_lock: bool,
    /// The animated foot has been up (above [`LIFTED_M`]) since its last lock.
    lifted: bool,
}

/// What [`FootLock::update_with`] is told about the animated foot each tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LockInput {
    /// Where the animation has the locked point (world xz).
    pub animated_xz: Vec2,
    /// How fast that point moves over the ground (m/s); `None` when not known yet.
    pub animated_speed_m_s: Option<f32>,
    /// How high the animation holds the foot's lower sole point above its ground (m).
    pub animated_lift_m: f32,
    /// Contact weight (0..1, the `FootContact_*` curve).
    pub contact: f32,
    pub grounded: bool,
    /// The character's facing (world yaw, rad).
    pub facing_yaw_rad: f32,
    /// The body stands still and no other foot is stepping: a lock far from the
    /// animation may let go as an adjusting step.
    pub may_settle: bool,
    /// How much lower (m) the pelvis must come for the leg to reach the locked foot, were
    /// the foot as far below the hip as the animation has it (0 when it reaches).
    pub reach_drop_m: f32,
    pub dt_s: f32,
}

impl Default for LockInput {
    /// A planted-looking foot at the origin with nothing else known.
    fn default() -> Self {
        Self {
            animated_xz: Vec2::ZERO,
            animated_speed_m_s: None,
            animated_lift_m: 0.0,
            contact: 0.0,
            grounded: true,
            facing_yaw_rad: 0.0,
            may_settle: false,
            reach_drop_m: 0.0,
            dt_s: 0.0,
        }
    }
}

/// An animated foot this high (its lower sole point, m) is off the ground...
const LIFTED_M: f32 = 0.02;
/// ...and, having been lifted, this low again is down on it, when its contact curve is
/// above this (some clip in the blend has the foot planted)...
const TOUCHED_M: f32 = 0.01;
const TOUCH_CONTACT_MIN: f32 = 0.05;
/// ...or when it moves slower than this over the ground (m/s).
const TOUCH_SPEED_MAX_M_S: f32 = 0.6;

/// Share of a step after which its landing point is fixed and the foot comes down.
const STEP_DESCENT_FROM: f32 = 0.6;

impl FootLock {
    pub fn is_locked(&self) -> bool {
        self.locked.is_some()
    }

    /// While gliding back to the animation after a release: the fraction of the glide
    /// done (0 → 1).
    pub fn release_progress(&self) -> Option<f32> {
        (self.release_left > 0.0).then_some(1.0 - self.release_left)
    }

    /// Moves the locked point by `offset` (world xz), e.g. off a step edge on the tick it
    /// landed. No effect when not locked or for a non-finite offset.
    pub fn nudge(&mut self, offset: Vec2) {
        if let (Some((xz, _)), true) = (&mut self.locked, offset.is_finite()) {
            *xz += offset;
            self.nudged += offset;
        }
    }

    /// Moves the locked point by `offset` (world xz) because the point the lock stands for
    /// changed (heel to ball as the heel lifts), not the foot: where the foot is held does
    /// not change, and nothing counts as moved. No effect when not locked or non-finite.
    pub fn rebase(&mut self, offset: Vec2) {
        if let (Some((xz, _)), true) = (&mut self.locked, offset.is_finite()) {
            *xz += offset;
        }
    }

    /// How far (m, horizontal) the locked foot is from where the animation has it,
    /// leaving out what [`Self::nudge`] moved it on purpose; 0 when not locked.
    pub fn settle_gap_m(&self, animated_xz: Vec2) -> f32 {
        match self.locked {
            Some((xz, _)) => {
                let gap = (xz - self.nudged).distance(animated_xz);
                if gap.is_finite() {
                    gap
                } else {
                    0.0
                }
            }
            None => 0.0,
        }
    }

    /// The locked point (world xz), while locked.
    pub fn locked_xz(&self) -> Option<Vec2> {
        self.locked.map(|(xz, _)| xz)
    }

    /// How far the foot's yaw is from the character's facing `facing_yaw_rad` (rad, in
    /// −π..π): while locked, the foot keeps pointing where it did when it planted while
    /// the body turns over it; through a release the offset fades out with the glide.
    pub fn yaw_offset_rad(&self, facing_yaw_rad: f32) -> f32 {
        let offset = match self.locked {
            Some((_, yaw)) => wrap_angle(yaw - facing_yaw_rad),
            None => self.release_yaw_rad * smoothstep(self.release_left),
        };
        if offset.is_finite() {
            offset
        } else {
            0.0
        }
    }

    /// The release under way is a step, and how far along (0 → 1): it was forced while
    /// the stance went on (over-stretched, twisted, settling), or it has far to go
    /// ([`LockConfig::step_min_offset_m`]). The foot must lift, not slide.
    pub fn stepping(&self) -> Option<f32> {
        self.release_progress().filter(|_| self.release_is_step)
    }

    /// While gliding back after a release: how far the foot still is from the animation
    /// (world xz, as of the last update); zero otherwise.
    pub fn release_offset_xz(&self) -> Vec2 {
        self.release_offset * smoothstep(self.release_left)
    }

    /// [`Self::release_offset_xz`] as the next update will leave it, `dt_s` on: where a
    /// gliding foot will be this tick, for the probes planned before the update.
    pub fn release_offset_xz_after(&self, config: &LockConfig, dt_s: f32) -> Vec2 {
        let left = if config.release_s > 0.0 && dt_s.is_finite() {
            (self.release_left - dt_s.max(0.0) / config.release_s).max(0.0)
        } else {
            0.0
        };
        self.release_offset * smoothstep(left)
    }

    /// Drops the lock and any release in progress (teleport, IK off).
    pub fn reset(&mut self) {
        *self = FootLock::default();
    }

    /// Locks the foot at `at` facing `facing_yaw_rad`, ending any release; `touch_lock`
    /// when it touched down before its curve said planted.
    fn plant(&mut self, at: Vec2, facing_yaw_rad: f32, touch_lock: bool) {
        self.release_left = 0.0;
        self.step_landing_xz = None;
        self.locked = Some((at, facing_yaw_rad));
        self.touch_lock = touch_lock;
        self.lifted = false;
        self.nudged = Vec2::ZERO;
    }

    /// One tick: given the animated ankle xz (world) and contact weight, returns the ankle
    /// xz to aim for. Locks on a contact rising through the threshold while grounded.
    pub fn update(
        &mut self,
        config: &LockConfig,
        animated_xz: Vec2,
        contact: f32,
        grounded: bool,
        facing_yaw_rad: f32,
        dt_s: f32,
    ) -> Vec2 {
        self.update_with(
            config,
            &LockInput {
                animated_xz,
                contact,
                grounded,
                facing_yaw_rad,
                dt_s,
                ..LockInput::default()
            },
        )
    }

    /// [`Self::update`], with more known about the animated foot (see [`LockInput`]):
    ///
    /// - A foot the animation sets down on the ground after lifting it is locked where it
    ///   touches, even while its contact curve still says swing (a blend between a gait
    ///   and a rest pose lowers a swinging foot onto the floor while carrying it along);
    ///   the lock is the curve's once the curve says planted, and lets go when the
    ///   animation lifts the foot again first.
    /// - With `may_settle`, a lock far from the animation lets go as an adjusting step.
    pub fn update_with(&mut self, config: &LockConfig, input: &LockInput) -> Vec2 {
        let LockInput {
            animated_xz,
            animated_speed_m_s,
            animated_lift_m,
            contact,
            grounded,
            facing_yaw_rad,
            may_settle,
            reach_drop_m,
            dt_s,
        } = *input;
        let dt_s = if dt_s.is_finite() { dt_s.max(0.0) } else { 0.0 };
        if !animated_xz.is_finite() || !facing_yaw_rad.is_finite() {
            return animated_xz;
        }
        if !config.enabled {
            self.reset();
            return animated_xz;
        }
        let planted = grounded && contact >= config.contact_threshold;
        let lift_m = if animated_lift_m.is_finite() {
            animated_lift_m
        } else {
            0.0
        };
        if planted {
            self.touch_lock = false;
        }
        if let Some((xz, yaw)) = self.locked {
            let twist = wrap_angle(facing_yaw_rad - yaw);
            let stance_ended = if self.touch_lock {
                lift_m > LIFTED_M
            } else {
                !planted
            };
            let release = if !grounded {
                Some(Release::Airborne)
            } else if stance_ended {
                Some(Release::StanceEnded)
            } else if xz.distance(animated_xz) > config.max_distance_m {
                Some(Release::TooFar)
            } else if twist.abs() > config.max_twist_rad {
                Some(Release::Twisted)
            } else if reach_drop_m > config.max_reach_drop_m {
                Some(Release::OutOfReach)
            } else if may_settle && self.settle_gap_m(animated_xz) > config.settle_distance_m {
                self.settle_wait_s += dt_s;
                (self.settle_wait_s >= config.settle_after_s).then_some(Release::Settle)
            } else {
                self.settle_wait_s = 0.0;
                None
            };
            match release {
                None => return xz,
                Some(why) => {
                    self.locked = None;
                    self.touch_lock = false;
                    self.settle_wait_s = 0.0;
                    self.nudged = Vec2::ZERO;
                    self.last_release = Some(why);
                    self.release_offset = xz - animated_xz;
                    self.step_landing_xz = None;
                    self.release_is_step = why != Release::Airborne
                        && (why != Release::StanceEnded
                            || self.release_offset.length() >= config.step_min_offset_m);
                    self.release_yaw_rad = -twist;
                    self.release_left = 1.0;
                }
            }
        } else {
            if lift_m > LIFTED_M {
                self.lifted = true;
            }
            // Down, where some planted clip is in the blend (a gait easing into a rest
            // pose) or the foot has all but stopped over the ground: a foot grazing the
            // floor fast mid-swing in a pure gait blend is not down.
            let slow = animated_speed_m_s.is_some_and(|v| v < TOUCH_SPEED_MAX_M_S);
            let touched = grounded
                && self.lifted
                && lift_m <= TOUCHED_M
                && (contact > TOUCH_CONTACT_MIN || (contact > 0.0 && slow));
            // A step finishes before it plants; a foot merely gliding off an old lock
            // plants where it is when it touches down, or when its curve says planted
            // again (a body off the ground for a tick mid-stance let it go: gliding on
            // to the animation for the whole release, it would slide with the body).
            let gliding = self.release_left > 0.0 && !self.release_is_step;
            if (planted || touched) && (gliding || self.release_left <= 0.0) {
                // Lock where the foot is now, or where its step came down.
                let at = self
                    .step_landing_xz
                    .unwrap_or(animated_xz + self.release_offset_xz());
                self.plant(at, facing_yaw_rad, !planted);
                return at;
            }
        }
        if self.release_left > 0.0 {
            self.release_left = if config.release_s > 0.0 {
                (self.release_left - dt_s / config.release_s).max(0.0)
            } else {
                0.0
            };
            // A step onto a foot the animation has planted (or holds on the floor) comes
            // straight down: from its descent on, it heads for where the animation had the
            // foot then, not where the body carries that since. (A swinging animated foot
            // is followed.)
            let mut destination = animated_xz;
            let animated_down = planted || (grounded && lift_m <= TOUCHED_M);
            if !animated_down {
                self.step_landing_xz = None;
            } else if self.release_is_step && 1.0 - self.release_left >= STEP_DESCENT_FROM {
                destination = *self.step_landing_xz.get_or_insert(animated_xz);
            }
            // Smoothstep fade: no velocity jump at either end.
            let at = destination + self.release_offset_xz();
            // A step that comes down this tick onto a foot the curve has planted plants
            // now: a tick later, the foot hovered at the end of its arc for that tick.
            if self.release_left <= 0.0 && self.release_is_step && planted {
                self.plant(at, facing_yaw_rad, false);
            }
            return at;
        }
        self.step_landing_xz = None;
        animated_xz
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foot_set_down_while_its_curve_says_swing_locks_where_it_touches() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        let step = |lock: &mut FootLock, z: f32, contact: f32, lift: f32| {
            let input = LockInput {
                animated_xz: Vec2::new(0.0, z),
                animated_lift_m: lift,
                contact,
                dt_s: DT,
                ..LockInput::default()
            };
            lock.update_with(&config, &input)
        };
        // Swinging, lifted 5 cm, then lowered to the floor while still carried along (a
        // rest pose blending in: its contact creeps up).
        step(&mut lock, 0.0, 0.0, 0.05);
        assert!(!lock.is_locked());
        // Grazing the floor in a pure swing (contact 0) is not a touch-down.
        step(&mut lock, 0.05, 0.0, 0.005);
        assert!(!lock.is_locked());
        assert_eq!(step(&mut lock, 0.1, 0.2, 0.005), Vec2::new(0.0, 0.1));
        assert!(lock.is_locked());
        // Carried on by the blend, it stays where it touched down; the curve takes over.
        assert_eq!(step(&mut lock, 0.2, 0.3, 0.0), Vec2::new(0.0, 0.1));
        assert_eq!(step(&mut lock, 0.25, 0.8, 0.0), Vec2::new(0.0, 0.1));
        // A foot never lifted (standing, its curve low) is not locked by touch.
        let mut standing = FootLock::default();
        step(&mut standing, 0.0, 0.0, 0.0);
        assert!(!standing.is_locked());
        // Touch-locked, it lets go when the animation lifts it again.
        let mut shuffle = FootLock::default();
        step(&mut shuffle, 0.0, 0.0, 0.05);
        step(&mut shuffle, 0.0, 0.3, 0.0);
        assert!(shuffle.is_locked());
        step(&mut shuffle, 0.0, 0.3, 0.03);
        assert!(!shuffle.is_locked());
        assert_eq!(shuffle.last_release, Some(Release::StanceEnded));
    }

    #[test]
    fn standing_still_a_split_foot_steps_into_place() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        let at = Vec2::new(0.0, 0.3);
        lock.update(&config, at, 1.0, true, 0.0, DT);
        // A stop: the animation brings the foot back beside the other, 25 cm behind.
        let idle = Vec2::new(0.0, 0.05);
        let settling = |may_settle: bool| LockInput {
            animated_xz: idle,
            contact: 1.0,
            may_settle,
            dt_s: DT,
            ..LockInput::default()
        };
        // Still moving: held.
        for _ in 0..30 {
            assert_eq!(lock.update_with(&config, &settling(false)), at);
        }
        // Standing still: it waits 0.15 s, then steps.
        for _ in 0..8 {
            assert_eq!(lock.update_with(&config, &settling(true)), at);
        }
        lock.update_with(&config, &settling(true));
        assert_eq!(lock.last_release, Some(Release::Settle));
        assert!(lock.stepping().is_some());
        for _ in 0..12 {
            lock.update_with(&config, &settling(true));
        }
        // Planted again where Idle has it, and it stays.
        assert_eq!(lock.locked_xz(), Some(idle));
        for _ in 0..30 {
            assert_eq!(lock.update_with(&config, &settling(true)), idle);
        }
    }

    #[test]
    fn a_locked_foot_keeps_its_yaw_and_a_twist_releases_it_as_a_step() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        let at = Vec2::new(0.0, 0.3);
        lock.update(&config, at, 1.0, true, 0.0, DT);
        // The body turns over the planted foot: the foot keeps pointing ahead.
        for k in 1..=10 {
            let yaw = 0.05 * k as f32;
            assert_eq!(lock.update(&config, at, 1.0, true, yaw, DT), at);
            assert!((lock.yaw_offset_rad(yaw) + yaw).abs() < 1e-6);
        }
        assert_eq!(lock.stepping(), None);
        // Past the twist limit it lets go though the stance goes on: a step, whose yaw
        // offset fades to none as it goes.
        let yaw = 61f32.to_radians();
        lock.update(&config, at + Vec2::X * 0.1, 1.0, true, yaw, DT);
        assert_eq!(lock.last_release, Some(Release::Twisted));
        assert!(lock.stepping().is_some());
        let first = lock.yaw_offset_rad(yaw).abs();
        assert!(first > 0.9 && first <= 61f32.to_radians() + 1e-4, "{first}");
        for _ in 0..20 {
            lock.update(&config, at + Vec2::X * 0.1, 1.0, true, yaw, DT);
        }
        // Re-planted where the animation has it, pointing with the body again.
        assert!(lock.is_locked());
        assert_eq!(lock.yaw_offset_rad(yaw), 0.0);
    }

    const DT: f32 = 1.0 / 60.0;

    #[test]
    fn the_release_offset_fades_to_zero_over_the_release() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 0.0, DT);
        assert_eq!(lock.release_offset_xz(), Vec2::ZERO, "locked: no offset");
        // The stance ends with the animation 0.3 m on: the foot is still at the lock.
        let anim = Vec2::new(0.0, 0.3);
        let at = lock.update(&config, anim, 0.0, true, 0.0, DT);
        assert!((anim + lock.release_offset_xz() - at).length() < 1e-5);
        let mut last = lock.release_offset_xz().length();
        assert!(last > 0.25, "{last}");
        for _ in 0..20 {
            lock.update(&config, anim, 0.0, true, 0.0, DT);
            let now = lock.release_offset_xz().length();
            assert!(now <= last, "{now} after {last}");
            last = now;
        }
        assert_eq!(lock.release_offset_xz(), Vec2::ZERO);
    }

    #[test]
    fn locks_on_contact_and_holds_while_the_animation_slides() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        // Swing: follows the animation.
        assert_eq!(
            lock.update(&config, Vec2::new(0.0, 0.0), 0.0, true, 0.0, DT),
            Vec2::ZERO
        );
        // Contact: locks at the current point, holds while the animated foot slides 10 cm.
        let at = Vec2::new(0.0, 0.3);
        assert_eq!(lock.update(&config, at, 1.0, true, 0.0, DT), at);
        for i in 1..=10 {
            let anim = at + Vec2::new(0.0, 0.01 * i as f32);
            assert_eq!(lock.update(&config, anim, 1.0, true, 0.0, DT), at);
        }
        assert!(lock.is_locked());
    }

    #[test]
    fn releases_smoothly_when_the_stance_ends() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 0.0, DT);
        let anim = Vec2::new(0.0, 0.1);
        // Stance ends with the animation 10 cm away: the target starts at the lock and
        // glides to the animation over release_s, never jumping more than a bit per tick.
        let mut last = lock.update(&config, anim, 0.0, true, 0.0, DT);
        assert_eq!(lock.last_release, Some(Release::StanceEnded));
        assert!(last.distance(Vec2::ZERO) < 0.01);
        let ticks = (config.release_s / DT).ceil() as usize;
        for _ in 0..ticks {
            let p = lock.update(&config, anim, 0.0, true, 0.0, DT);
            assert!(p.distance(last) < 0.02, "jumped {}", p.distance(last));
            last = p;
        }
        assert!(last.distance(anim) < 1e-5);
    }

    #[test]
    fn releases_when_too_far_or_twisted_or_airborne() {
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 0.0, DT);
        lock.update(&config, Vec2::new(0.4, 0.0), 1.0, true, 0.0, DT);
        assert!(lock.is_locked(), "0.4 m is within the 0.45 m limit");
        lock.update(&config, Vec2::new(0.5, 0.0), 1.0, true, 0.0, DT);
        assert_eq!(lock.last_release, Some(Release::TooFar));

        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 3.1, DT);
        // Turning from 3.1 to -3.1 rad is 0.08 rad the short way: still locked.
        lock.update(&config, Vec2::ZERO, 1.0, true, -3.1, DT);
        assert!(lock.is_locked());
        lock.update(&config, Vec2::ZERO, 1.0, true, 3.1 - 1.2, DT);
        assert_eq!(lock.last_release, Some(Release::Twisted));

        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 0.0, DT);
        lock.update(&config, Vec2::ZERO, 1.0, false, 0.0, DT);
        assert_eq!(lock.last_release, Some(Release::Airborne));
        assert!(!lock.is_locked());
    }

    #[test]
    fn a_foot_the_hip_has_left_out_of_reach_is_let_go_as_a_step_and_planted_where_it_ends() {
        // Mid-stance, the pelvis would have to come down more than the limit for the leg
        // to reach the held foot: it steps after the body (lifted on the way) instead.
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        let input = |reach_drop_m: f32| LockInput {
            animated_xz: Vec2::new(0.1, 0.0),
            contact: 1.0,
            reach_drop_m,
            dt_s: DT,
            ..LockInput::default()
        };
        lock.update_with(&config, &input(0.0));
        lock.update_with(&config, &input(config.max_reach_drop_m * 0.9));
        assert!(lock.is_locked(), "within the limit it holds");
        lock.update_with(&config, &input(config.max_reach_drop_m * 1.1));
        assert_eq!(lock.last_release, Some(Release::OutOfReach));
        assert!(lock.stepping().is_some(), "a step, not a slide");
        // On the tick the step's glide ends the curve still says planted, and the foot is
        // locked where it came down, not a tick later (hovering at the end of its arc for
        // that tick: Quaternius' runs floated 5 mm there).
        let mut ticks = 0;
        while lock.stepping().is_some() {
            let at = lock.update_with(&config, &input(0.0));
            ticks += 1;
            assert!(ticks < 100, "the step ends");
            if lock.stepping().is_none() {
                assert!(lock.is_locked(), "planted on the tick the step ends");
                assert_eq!(lock.locked_xz(), Some(at));
            }
        }
        let held = lock.locked_xz();
        lock.update_with(&config, &input(0.0));
        assert_eq!(lock.locked_xz(), held, "and it holds there");
    }

    #[test]
    fn a_foot_let_go_for_a_tick_off_the_ground_relocks_where_it_is() {
        // The body leaves the ground for one tick mid-stance (a capsule stepping up a
        // riser): the lock lets go, and takes the foot again where it is on the next
        // grounded tick while the curve still says planted, rather than gliding it on
        // to the animation (which a blend toward the jump then carries 6 cm a tick) for
        // the whole release.
        let config = LockConfig::default();
        let mut lock = FootLock::default();
        lock.update(&config, Vec2::ZERO, 1.0, true, 0.0, DT);
        lock.update(&config, Vec2::new(0.0, -0.01), 1.0, false, 0.0, DT);
        assert_eq!(lock.last_release, Some(Release::Airborne));
        let at = lock.update(&config, Vec2::new(0.0, -0.02), 1.0, true, 0.0, DT);
        assert!(lock.is_locked());
        assert!(at.distance(Vec2::ZERO) < 0.015, "relocked at {at}");
        for i in 1..7 {
            let anim = Vec2::new(0.0, -0.06 * i as f32);
            assert_eq!(lock.update(&config, anim, 1.0, true, 0.0, DT), at);
        }
    }

    #[test]
    fn disabled_or_bad_input_passes_the_animation_through() {
        let mut lock = FootLock::default();
        let off = LockConfig {
            enabled: false,
            ..LockConfig::default()
        };
        let p = Vec2::new(1.0, 2.0);
        assert_eq!(lock.update(&off, p, 1.0, true, 0.0, DT), p);
        assert!(!lock.is_locked());
        let on = LockConfig::default();
        let nan = Vec2::new(f32::NAN, 0.0);
        assert!(lock.update(&on, nan, 1.0, true, 0.0, DT).x.is_nan());
        assert!(!lock.is_locked(), "a NaN point is never locked");
    }
}
