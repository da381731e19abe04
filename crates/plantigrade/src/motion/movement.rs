//! The movement model of one character (SPEC MOVE-2..8): speed curves, turning, gravity,
//! jump with coyote time and buffering, air control, crouch with a headroom check, root
//! motion as velocity, landing grades, jump phases and push-wall detection.
//!
//! Two calls per tick around the physics move:
//!
//! 1. [`Movement::plan`] turns an [`Intent`] into velocities and a [`MoveRequest`];
//! 2. the caller runs [`CharacterMover::move_capsule`](crate::world::CharacterMover::move_capsule) and moves its feet by the result's translation;
//! 3. [`Movement::apply`] reads the [`MoveResult`] (the real displacement, grounded, walls)
//!    and returns the [`LocomotionVars`] for the animation graph.
//!
//! Space: velocities are world space; the horizontal velocity is a `Vec2` holding world
//! `(x, z)`. Yaw is about +Y, positive turns +Z toward +X (left); 0 faces +Z.

use glam::{Quat, Vec2, Vec3};

use crate::graph::RootMotionDelta;
use crate::world::{Capsule, MoveRequest, MoveResult, QueryFilter, SpatialQueries};

use super::config::CharacterConfig;
use super::intent::{direction_to_yaw, Intent};
use super::vars::{JumpPhase, Landing, LandingGrade, LocomotionVars};

/// The longest tick honoured (s); longer `dt` values are treated as this (a 1 s hitch moves
/// the character by one second of motion, not more).
pub const MAX_TICK_S: f32 = 1.0;

/// Gap (m) left between the crouched capsule's bottom and the floor when sweeping for
/// headroom, so the sweep does not start touching the ground.
pub const HEADROOM_SKIN_M: f32 = 0.02;

/// Intent magnitudes below this count as no input.
const INPUT_EPSILON: f32 = 1e-4;

/// Timers stop growing here (s), so they stay finite and precise over long runs.
const TIMER_CAP_S: f32 = 1.0e6;

pub use crate::math::wrap_angle;

/// Turns `current_rad` toward `target_rad` along the shortest arc by at most `max_step_rad`
/// (≥ 0): 350° → 10° turns +20°, never −340°. The result is wrapped into `-π..=π`.
pub fn turn_toward(current_rad: f32, target_rad: f32, max_step_rad: f32) -> f32 {
    let max_step = if max_step_rad.is_finite() {
        max_step_rad.max(0.0)
    } else {
        0.0
    };
    let delta = wrap_angle(target_rad - current_rad);
    wrap_angle(current_rad + delta.clamp(-max_step, max_step))
}

/// Moves `from` toward `to` by at most `max_step` (a straight line in velocity space).
/// The part of `translation` past `requested` (horizontal, m) along it: a step-up's
/// overshoot, as a horizontal world vector (zero when the move went no farther than asked,
/// or nothing was asked).
fn overshoot_m(translation: Vec3, requested: Vec2) -> Vec3 {
    let Some(dir) = requested.try_normalize() else {
        return Vec3::ZERO;
    };
    let along = Vec2::new(translation.x, translation.z).dot(dir);
    let past = along - requested.length();
    if past.is_finite() && past > OVERSHOOT_MIN_M {
        Vec3::new(dir.x * past, 0.0, dir.y * past)
    } else {
        Vec3::ZERO
    }
}

/// A move this little past the request (m) is rounding, not a step-up's overshoot.
const OVERSHOOT_MIN_M: f32 = 1e-3;

pub fn move_toward(from: Vec2, to: Vec2, max_step: f32) -> Vec2 {
    let max_step = if max_step.is_nan() {
        0.0
    } else {
        max_step.max(0.0)
    };
    let delta = to - from;
    let distance = delta.length();
    if !distance.is_finite() || distance <= max_step {
        return to;
    }
    from + delta * (max_step / distance)
}

/// The hip-orientation flag after a tick moving along `direction_deg` (relative to the
/// facing): on beyond the band's upper edge, off inside its lower edge, held within it.
pub fn hips_back_after(
    previous: bool,
    direction_deg: f32,
    (lower_deg, upper_deg): (f32, f32),
) -> bool {
    let off_ahead_deg = direction_deg.abs();
    if off_ahead_deg > upper_deg {
        true
    } else if off_ahead_deg < lower_deg {
        false
    } else {
        previous
    }
}

fn sanitize_dt(dt_s: f32) -> f32 {
    if dt_s.is_finite() && dt_s > 0.0 {
        dt_s.min(MAX_TICK_S)
    } else if dt_s == f32::INFINITY {
        MAX_TICK_S
    } else {
        0.0
    }
}

use crate::math::finite_or;

/// What `plan` decided, for `apply` of the same tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct TickPlan {
    input_speed_m_s: f32,
    has_input: bool,
    /// Unit intent direction, world (x, z); zero without input.
    input_direction: Vec2,
    aim: bool,
    /// The intent holds the facing (`face_yaw_rad`): strafing, not turning to the move.
    facing_held: bool,
    jumped: bool,
    /// Root-motion translation added this tick (m, world).
    root_motion_world_m: Vec3,
    /// The horizontal move asked for this tick (m, world x, z).
    requested_horizontal_m: Vec2,
    /// Vertical displacement asked for by the vertical velocity alone (m).
    vertical_request_m: f32,
    /// Vertical velocity at the start of the tick, after a jump (m/s).
    vertical_start_m_s: f32,
    /// Gravity applied this tick (m/s², ≥ 0).
    gravity_m_s2: f32,
}

/// What [`Movement::apply`] returns each tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovementOutput {
    /// The variables for the animation graph.
    pub vars: LocomotionVars,
    /// A landing happened this tick (grade and impact speed).
    pub landing: Option<Landing>,
    /// A jump started this tick.
    pub jumped: bool,
    /// The real velocity of the move (m/s, world): displacement / dt (zero for dt = 0),
    /// less `step_overshoot_world`.
    pub actual_velocity_world: Vec3,
    /// How far this tick's move went past the horizontal move asked for, along it (m,
    /// world, horizontal): a capsule stepping up a riser set down on the tread beyond the
    /// request. Zero otherwise. The capsule went there; the body catches up with it.
    pub step_overshoot_world: Vec3,
    /// Facing after this tick (rad, world yaw, `-π..=π`).
    pub facing_yaw_rad: f32,
}

/// Per-character movement state. Plain data, `Copy`, no allocation; every value stays finite
/// whatever the inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Movement {
    /// World (x, z), m/s.
    horizontal_velocity: Vec2,
    /// m/s, up positive.
    vertical_velocity: f32,
    /// World yaw, `-π..=π`.
    facing_yaw_rad: f32,
    grounded: bool,
    /// Time since last grounded (s); 0 while grounded.
    time_since_grounded_s: f32,
    /// Time left on a buffered jump press (s).
    jump_buffer_left_s: f32,
    /// A jump was made since the last time grounded (no coyote jump after a jump).
    jumped_since_grounded: bool,
    /// The capsule left the ground going down (walked off an edge), not lifted off it.
    left_ground_going_down: bool,
    crouched: bool,
    jump_phase: Option<JumpPhase>,
    last_landing: Option<Landing>,
    /// How long the push-wall condition has held (s).
    push_wall_s: f32,
    pushing_wall: bool,
    /// Horizontal speed of the last real displacement (m/s).
    actual_speed_m_s: f32,
    /// Last movement direction relative to the facing (rad).
    direction_rad: f32,
    /// See [`LocomotionVars::hips_back`].
    hips_back: bool,
    tick: TickPlan,
}

impl Default for Movement {
    fn default() -> Self {
        Movement::new(0.0)
    }
}

impl Movement {
    /// At rest, standing on the ground, facing `facing_yaw_rad` (non-finite → 0).
    pub fn new(facing_yaw_rad: f32) -> Movement {
        Movement {
            horizontal_velocity: Vec2::ZERO,
            vertical_velocity: 0.0,
            facing_yaw_rad: wrap_angle(facing_yaw_rad),
            grounded: true,
            time_since_grounded_s: 0.0,
            jump_buffer_left_s: 0.0,
            jumped_since_grounded: false,
            left_ground_going_down: false,
            crouched: false,
            jump_phase: None,
            last_landing: None,
            push_wall_s: 0.0,
            pushing_wall: false,
            actual_speed_m_s: 0.0,
            direction_rad: 0.0,
            hips_back: false,
            tick: TickPlan::default(),
        }
    }

    /// Step 1 of a tick: from `intent`, `dt_s` and the feet position, updates velocities,
    /// facing, crouch, jump, and returns the collide-and-slide request for this tick.
    ///
    /// - Speed: target = intent direction × [`CharacterConfig::gait_speed_m_s`]; the
    ///   velocity moves toward it at the acceleration curve's rate when speeding up, the
    ///   deceleration curve's when slowing or reversing (both sampled by normalized speed);
    ///   in the air both rates are scaled by `air_control`, the target speed is not.
    /// - Facing: toward `intent.face_yaw_rad`, else the intent direction, along the shortest
    ///   arc at the turn-rate curve's rate; root-motion yaw is added on top.
    /// - Jump: a press is buffered for `jump_buffer_s`; it fires when grounded or within
    ///   `coyote_time_s` of leaving the ground (once per airborne period), not while
    ///   crouched.
    /// - Crouch: `intent.crouch` crouches at once; releasing it stands up only when a capsule
    ///   sweep up from the crouched capsule (via `world.cast_capsule` with `filter`) finds
    ///   room for the standing capsule.
    /// - Root motion: `root_motion` (character frame at the start of the tick) is rotated by
    ///   the facing and added to the desired translation, so it collides and slides.
    ///
    /// The request's translation is the average velocity over the tick × dt (exact for
    /// constant acceleration, so jump heights do not depend on the tick rate). `dt_s` is
    /// clamped to `0..=`[`MAX_TICK_S`]; NaN counts as 0. With dt = 0 nothing changes but the
    /// crouch state, a buffered press and the root motion given (applied as is).
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        &mut self,
        cfg: &CharacterConfig,
        intent: &Intent,
        dt_s: f32,
        world: &dyn SpatialQueries,
        feet_world: Vec3,
        filter: QueryFilter,
        root_motion: RootMotionDelta,
    ) -> MoveRequest {
        let dt = sanitize_dt(dt_s);
        let intent = intent.sanitized();
        self.sanitize();

        // Jump buffer: a press (re)starts it, time runs it down.
        if intent.jump {
            self.jump_buffer_left_s = finite_or(cfg.jump_buffer_s, 0.0).max(0.0);
        } else {
            self.jump_buffer_left_s = (self.jump_buffer_left_s - dt).max(0.0);
        }

        // Crouch / stand (MOVE-8).
        if intent.crouch {
            self.crouched = true;
        } else if self.crouched && has_headroom_to_stand(cfg, world, feet_world, filter) {
            self.crouched = false;
        }

        // Target velocity from the intent (MOVE-2, MOVE-3).
        let magnitude = intent.move_world.length().min(1.0);
        let has_input = magnitude > INPUT_EPSILON;
        let input_direction = if has_input {
            intent.move_world.normalize_or_zero()
        } else {
            Vec2::ZERO
        };
        let input_speed = if has_input {
            cfg.gait_speed_m_s(magnitude, intent.sprint, self.crouched)
        } else {
            0.0
        };
        let target_velocity = input_direction * input_speed;

        // Acceleration / deceleration by curve, reduced in the air (MOVE-3, MOVE-5).
        let top_speed = cfg.top_speed_m_s();
        let velocity = self.horizontal_velocity;
        let speed = velocity.length();
        let normalized_speed = speed / top_speed;
        let speeding_up = target_velocity.length() > speed && target_velocity.dot(velocity) >= 0.0;
        let curve = if speeding_up {
            &cfg.acceleration_m_s2
        } else {
            &cfg.deceleration_m_s2
        };
        let mut rate = finite_or(curve.sample(normalized_speed), 0.0).max(0.0);
        if !self.grounded {
            rate *= finite_or(cfg.air_control, 0.0).clamp(0.0, 1.0);
        }
        let new_velocity = move_toward(velocity, target_velocity, rate * dt);

        // Turning: shortest arc, rate falling with speed (MOVE-4).
        let facing_at_start = self.facing_yaw_rad;
        let turn_rate = finite_or(cfg.turn_rate_rad_s.sample(normalized_speed), 0.0).max(0.0);
        let target_yaw = match intent.face_yaw_rad {
            Some(yaw) => Some(yaw),
            None if has_input => Some(direction_to_yaw(input_direction)),
            None => None,
        };
        if let Some(target_yaw) = target_yaw {
            self.facing_yaw_rad = turn_toward(self.facing_yaw_rad, target_yaw, turn_rate * dt);
        }
        let root_motion = if root_motion.is_finite() {
            root_motion
        } else {
            RootMotionDelta::ZERO
        };
        self.facing_yaw_rad = wrap_angle(self.facing_yaw_rad + root_motion.yaw_rad);

        // Jump (coyote time + buffer) and gravity (MOVE-5).
        let on_ground_or_coyote = self.grounded || self.time_since_grounded_s <= cfg.coyote_time_s;
        let jumped = dt > 0.0
            && self.jump_buffer_left_s > 0.0
            && !self.crouched
            && !self.jumped_since_grounded
            && on_ground_or_coyote;
        let vy_start = if jumped {
            self.jump_buffer_left_s = 0.0;
            self.jumped_since_grounded = true;
            finite_or(cfg.jump_speed_m_s, 0.0).max(0.0)
        } else {
            self.vertical_velocity
        };
        let gravity = finite_or(cfg.gravity_m_s2, 0.0).max(0.0);
        let max_fall = finite_or(cfg.max_fall_speed_m_s, 50.0).abs();
        let vy_end = (vy_start - gravity * dt).max(-max_fall);

        // Root motion (GRAPH-5) as part of the same collide-and-slide.
        let root_motion_world = Quat::from_rotation_y(facing_at_start) * root_motion.translation_m;
        let root_motion_world = if root_motion_world.is_finite() {
            root_motion_world
        } else {
            Vec3::ZERO
        };

        let horizontal_m = (velocity + new_velocity) * (0.5 * dt);
        let vertical_m = (vy_start + vy_end) * 0.5 * dt;
        let mut desired = Vec3::new(horizontal_m.x, vertical_m, horizontal_m.y) + root_motion_world;
        if !desired.is_finite() {
            desired = Vec3::ZERO;
        }

        self.horizontal_velocity = new_velocity;
        self.vertical_velocity = vy_end;
        self.tick = TickPlan {
            input_speed_m_s: input_speed,
            has_input,
            input_direction,
            aim: intent.aim,
            facing_held: intent.face_yaw_rad.is_some(),
            jumped,
            root_motion_world_m: root_motion_world,
            requested_horizontal_m: Vec2::new(desired.x, desired.z),
            vertical_request_m: if vertical_m.is_finite() {
                vertical_m
            } else {
                0.0
            },
            vertical_start_m_s: vy_start,
            gravity_m_s2: gravity,
        };
        self.sanitize();

        MoveRequest {
            capsule: cfg.capsule(self.crouched),
            limits: cfg.move_limits,
            feet: feet_world,
            desired_translation: desired,
            dt_s: dt,
            filter,
        }
    }

    /// Step 3 of a tick: reads where collide-and-slide really took the character and returns
    /// the locomotion variables.
    ///
    /// - Actual speed = horizontal displacement / dt (kept apart from the input speed).
    /// - Grounded = the controller says so and the character is not rising; a touchdown from
    ///   the air is a landing graded by the downward speed against
    ///   `heavy_landing_speed_m_s`; vertical velocity resets to 0 on the ground.
    /// - In the air, a blocked vertical move (ceiling, a ledge holding the capsule) clips the
    ///   vertical velocity to the real one; a wall hit clips the horizontal velocity to the
    ///   real slide, so velocity never builds up against geometry.
    /// - Jump phase from the vertical velocity while airborne.
    /// - Push-wall: grounded, hitting a wall, input speed above the threshold and actual
    ///   speed below it, for `push_wall.hold_s`.
    pub fn apply(
        &mut self,
        cfg: &CharacterConfig,
        result: &MoveResult,
        dt_s: f32,
    ) -> MovementOutput {
        let dt = sanitize_dt(dt_s);
        self.sanitize();
        let translation = if result.translation.is_finite() {
            result.translation
        } else {
            Vec3::ZERO
        };
        let plan = self.tick;
        let was_grounded = self.grounded;
        let vy_at_contact = self.vertical_velocity;
        let grounded = result.grounded && vy_at_contact <= 0.0;

        // Actual displacement (MOVE-2), less a step-up's overshoot: the controller sets a
        // capsule held back at a riser down on the tread far enough over the nosing to
        // rest there, past the request (KayKit: 7 cm in a tick where it asked 1.3, at every
        // riser). That is no speed the character has: read as one, the gait's blend leapt
        // toward the run for a tick. The body takes it back (see `step_overshoot_world`).
        let step_overshoot = overshoot_m(translation, plan.requested_horizontal_m);
        let translation_asked = translation - step_overshoot;
        let actual_horizontal = Vec2::new(translation_asked.x, translation_asked.z);
        let actual_velocity = if dt > 0.0 {
            translation_asked / dt
        } else {
            Vec3::ZERO
        };
        if dt > 0.0 {
            self.actual_speed_m_s = finite_or(actual_horizontal.length() / dt, 0.0);
        }

        // Landing and vertical velocity (MOVE-5, MOVE-6).
        let mut landing = None;
        if grounded {
            if !was_grounded {
                let impact = impact_speed(&plan, vy_at_contact, translation.y, dt);
                let event = Landing {
                    grade: LandingGrade::from_impact(impact, cfg.heavy_landing_speed_m_s),
                    impact_speed_m_s: impact,
                };
                landing = Some(event);
                self.last_landing = Some(event);
            }
            self.vertical_velocity = 0.0;
            self.time_since_grounded_s = 0.0;
            self.jumped_since_grounded = false;
        } else {
            if was_grounded {
                self.left_ground_going_down = translation.y <= 0.0;
            }
            self.time_since_grounded_s = (self.time_since_grounded_s + dt).min(TIMER_CAP_S);
            let actual_vertical_m = translation.y - plan.root_motion_world_m.y;
            let requested_m = plan.vertical_request_m;
            if dt > 0.0 && requested_m > 1e-6 && actual_vertical_m < 0.5 * requested_m {
                // Head bump: stop rising.
                self.vertical_velocity = self.vertical_velocity.min(0.0);
            } else if dt > 0.0 && requested_m < -1e-6 && actual_vertical_m > 0.5 * requested_m {
                // Held up while falling (steep slope, ledge lip): fall no faster than for real.
                let real_vy = (actual_vertical_m / dt).min(0.0);
                self.vertical_velocity = self.vertical_velocity.max(real_vy);
            }
        }
        self.grounded = grounded;

        // Walls: velocity follows the real slide (no build-up into a wall).
        if result.hit_wall && dt > 0.0 {
            let root_motion_horizontal =
                Vec2::new(plan.root_motion_world_m.x, plan.root_motion_world_m.z);
            let slide = (actual_horizontal - root_motion_horizontal) / dt;
            if slide.is_finite() {
                self.horizontal_velocity =
                    slide.clamp_length_max(self.horizontal_velocity.length());
            }
        }

        // Walked off a step (a tread, a curb), the capsule is in the air for a few ticks
        // before it lands on the one below: within the coyote time, with no jump, the
        // animation graph is told it is still on the ground (`LocomotionVars::stepping_off`)
        // instead of playing a fall. Going down 20 cm stairs, a rig half the mannequin's
        // size, its capsule rolling off every nosing in 3-4 ticks, played Jump on each
        // tread. Only going down: a capsule the step-up launched off a riser is in the air.
        let stepping_off = !grounded
            && !self.jumped_since_grounded
            && self.left_ground_going_down
            && self.time_since_grounded_s <= cfg.coyote_time_s;
        self.jump_phase = if grounded {
            None
        } else {
            Some(JumpPhase::from_vertical_velocity(
                self.vertical_velocity,
                cfg.jump_phase_threshold_m_s,
            ))
        };

        // Push-wall (MOVE-2).
        let push = &cfg.push_wall;
        let pushing_now = grounded
            && result.hit_wall
            && plan.input_speed_m_s > push.min_input_fraction_of_walk * cfg.walk_speed_m_s
            && self.actual_speed_m_s < push.max_actual_speed_m_s;
        self.push_wall_s = if pushing_now {
            (self.push_wall_s + dt).min(TIMER_CAP_S)
        } else {
            0.0
        };
        self.pushing_wall = pushing_now && self.push_wall_s >= push.hold_s;

        // Movement direction relative to the facing; held while standing still.
        let moving_threshold = finite_or(cfg.moving_speed_threshold_m_s, 0.05);
        let direction_source = if self.actual_speed_m_s > moving_threshold {
            Some(actual_horizontal)
        } else if self.horizontal_velocity.length() > moving_threshold {
            Some(self.horizontal_velocity)
        } else if plan.has_input {
            Some(plan.input_direction)
        } else {
            None
        };
        let direction_before_rad = self.direction_rad;
        if let Some(direction) = direction_source {
            self.direction_rad = wrap_angle(direction_to_yaw(direction) - self.facing_yaw_rad);
        }
        // A reversal while strafing: the movement direction swung round on the ground as
        // the velocity passed through zero, the stick held (see `LocomotionVars::reversed`).
        let reversed = self.grounded
            && plan.has_input
            && plan.facing_held
            && wrap_angle(self.direction_rad - direction_before_rad).abs()
                > super::vars::REVERSAL_DEG.to_radians();
        self.sanitize();
        self.hips_back = hips_back_after(
            self.hips_back,
            self.direction_rad.to_degrees(),
            cfg.hips_back_band_deg,
        );

        let vars = LocomotionVars {
            speed: self.actual_speed_m_s,
            input_speed: plan.input_speed_m_s,
            direction_deg: self.direction_rad.to_degrees().clamp(-180.0, 180.0),
            is_moving: self.actual_speed_m_s > moving_threshold || plan.has_input,
            is_crouching: self.crouched,
            is_grounded: self.grounded,
            stepping_off,
            vertical_velocity: self.vertical_velocity,
            land_velocity: self.last_landing.map_or(0.0, |l| l.impact_speed_m_s),
            is_pushing_wall: self.pushing_wall,
            aiming: plan.aim,
            hips_back: self.hips_back,
            reversed,
            jump_phase: self.jump_phase,
            landing: landing.map(|l: Landing| l.grade),
        };
        MovementOutput {
            vars,
            landing,
            jumped: plan.jumped,
            actual_velocity_world: if actual_velocity.is_finite() {
                actual_velocity
            } else {
                Vec3::ZERO
            },
            step_overshoot_world: step_overshoot,
            facing_yaw_rad: self.facing_yaw_rad,
        }
    }

    /// Replaces any non-finite state with a safe value (a NaN that slipped in through a
    /// setter or a broken config never spreads).
    fn sanitize(&mut self) {
        if !self.horizontal_velocity.is_finite() {
            self.horizontal_velocity = Vec2::ZERO;
        }
        self.vertical_velocity = finite_or(self.vertical_velocity, 0.0);
        self.facing_yaw_rad = wrap_angle(self.facing_yaw_rad);
        self.time_since_grounded_s = finite_or(self.time_since_grounded_s, 0.0);
        self.jump_buffer_left_s = finite_or(self.jump_buffer_left_s, 0.0);
        self.push_wall_s = finite_or(self.push_wall_s, 0.0);
        self.actual_speed_m_s = finite_or(self.actual_speed_m_s, 0.0);
        self.direction_rad = wrap_angle(self.direction_rad);
    }

    /// Facing yaw (rad, world, `-π..=π`; 0 faces +Z, positive turns toward +X).
    pub fn facing_yaw_rad(&self) -> f32 {
        self.facing_yaw_rad
    }

    /// Facing as a rotation about +Y (model +Z maps to the facing direction).
    pub fn facing_rotation(&self) -> Quat {
        Quat::from_rotation_y(self.facing_yaw_rad)
    }

    /// Horizontal velocity (m/s), world `(x, z)`.
    pub fn horizontal_velocity(&self) -> Vec2 {
        self.horizontal_velocity
    }

    /// Vertical velocity (m/s, up positive).
    pub fn vertical_velocity(&self) -> f32 {
        self.vertical_velocity
    }

    /// The full velocity (m/s, world).
    pub fn velocity_world(&self) -> Vec3 {
        Vec3::new(
            self.horizontal_velocity.x,
            self.vertical_velocity,
            self.horizontal_velocity.y,
        )
    }

    /// Horizontal speed of the last real displacement (m/s).
    pub fn actual_speed_m_s(&self) -> f32 {
        self.actual_speed_m_s
    }

    /// The speed the last intent asked for (m/s).
    pub fn input_speed_m_s(&self) -> f32 {
        self.tick.input_speed_m_s
    }

    pub fn is_grounded(&self) -> bool {
        self.grounded
    }

    pub fn is_crouched(&self) -> bool {
        self.crouched
    }

    /// Time since the character last stood on the ground (s).
    pub fn time_since_grounded_s(&self) -> f32 {
        self.time_since_grounded_s
    }

    /// Airborne phase (`None` on the ground).
    pub fn jump_phase(&self) -> Option<JumpPhase> {
        self.jump_phase
    }

    /// The most recent landing.
    pub fn last_landing(&self) -> Option<Landing> {
        self.last_landing
    }

    /// Input is driving into a wall that does not give.
    pub fn is_pushing_wall(&self) -> bool {
        self.pushing_wall
    }

    /// The capsule in use this tick (crouched or standing).
    pub fn capsule(&self, cfg: &CharacterConfig) -> Capsule {
        cfg.capsule(self.crouched)
    }

    /// Sets the facing (rad; non-finite → unchanged), e.g. at spawn or after a teleport.
    pub fn set_facing_yaw(&mut self, yaw_rad: f32) {
        if yaw_rad.is_finite() {
            self.facing_yaw_rad = wrap_angle(yaw_rad);
        }
    }

    /// Sets the velocity (m/s; horizontal as world `(x, z)`), e.g. a launch pad or a knock
    /// back. Non-finite components become 0.
    pub fn set_velocity(&mut self, horizontal_world: Vec2, vertical: f32) {
        self.horizontal_velocity = if horizontal_world.is_finite() {
            horizontal_world
        } else {
            Vec2::ZERO
        };
        self.vertical_velocity = finite_or(vertical, 0.0);
        // An `apply` without a `plan` in between sees this velocity, without gravity.
        self.tick.vertical_start_m_s = self.vertical_velocity;
        self.tick.gravity_m_s2 = 0.0;
        self.tick.vertical_request_m = 0.0;
    }
}

/// Downward speed (m/s, ≥ 0) at the moment of touchdown within a tick, from the tick's
/// start velocity and the vertical distance really travelled (`v² = v₀² − 2·g·Δy`, constant
/// gravity), so the grade does not depend on where in the tick the contact fell. Never more
/// than the end-of-tick speed `-vy_end`.
fn impact_speed(plan: &TickPlan, vy_end: f32, translation_y: f32, dt: f32) -> f32 {
    let end_speed = (-vy_end).max(0.0);
    if dt <= 0.0 {
        return end_speed;
    }
    let fallen_m = translation_y - plan.root_motion_world_m.y;
    let squared =
        plan.vertical_start_m_s * plan.vertical_start_m_s - 2.0 * plan.gravity_m_s2 * fallen_m;
    let at_contact = squared.max(0.0).sqrt();
    if at_contact.is_finite() {
        at_contact.min(end_speed)
    } else {
        end_speed
    }
}

/// Whether the standing capsule fits: sweeps a capsule of the crouched height (standing
/// radius) upward from just above the feet to the standing height.
fn has_headroom_to_stand(
    cfg: &CharacterConfig,
    world: &dyn SpatialQueries,
    feet_world: Vec3,
    filter: QueryFilter,
) -> bool {
    if !feet_world.is_finite() {
        return false;
    }
    let stand_height = cfg.stand_capsule.height_m();
    let probe = Capsule::from_height(cfg.crouch_capsule.height_m(), cfg.stand_capsule.radius_m);
    let rise = stand_height - probe.height_m() - HEADROOM_SKIN_M;
    if !rise.is_finite() || !probe.radius_m.is_finite() || probe.radius_m <= 0.0 {
        return false;
    }
    if rise <= 0.0 {
        return true;
    }
    let center = probe.center_from_feet(feet_world) + Vec3::Y * HEADROOM_SKIN_M;
    world
        .cast_capsule(probe, center, Vec3::Y, rise, filter)
        .is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::PI;

    #[test]
    fn wrap_and_shortest_arc() {
        assert!(
            (wrap_angle(3.0 * PI) + PI).abs() < 1e-5 || (wrap_angle(3.0 * PI) - PI).abs() < 1e-5
        );
        assert!((wrap_angle(-0.5) + 0.5).abs() < 1e-6);
        assert_eq!(wrap_angle(f32::NAN), 0.0);
        assert_eq!(wrap_angle(f32::INFINITY), 0.0);
        // 350° → 10° turns +20° (through 0), in 5° steps.
        let mut yaw = 350f32.to_radians();
        let target = 10f32.to_radians();
        let mut turned = 0.0;
        for _ in 0..10 {
            let next = turn_toward(yaw, target, 5f32.to_radians());
            turned += wrap_angle(next - yaw);
            yaw = next;
        }
        assert!(
            (turned - 20f32.to_radians()).abs() < 1e-4,
            "{}",
            turned.to_degrees()
        );
        assert!(wrap_angle(yaw - target).abs() < 1e-5);
        // And the other way: 10° → 350° turns −20°.
        let back = turn_toward(10f32.to_radians(), 350f32.to_radians(), 1.0);
        assert!((wrap_angle(back - 350f32.to_radians())).abs() < 1e-5);
        assert_eq!(turn_toward(1.0, 2.0, f32::NAN), 1.0);
    }

    #[test]
    fn move_toward_is_a_straight_capped_step() {
        let v = move_toward(Vec2::ZERO, Vec2::new(3.0, 4.0), 1.0);
        assert!((v - Vec2::new(0.6, 0.8)).length() < 1e-6);
        assert_eq!(
            move_toward(Vec2::ZERO, Vec2::new(3.0, 4.0), 10.0),
            Vec2::new(3.0, 4.0)
        );
        assert_eq!(move_toward(Vec2::ONE, Vec2::ONE, 0.0), Vec2::ONE);
    }

    #[test]
    fn dt_is_sanitised() {
        assert_eq!(sanitize_dt(f32::NAN), 0.0);
        assert_eq!(sanitize_dt(-1.0), 0.0);
        assert_eq!(sanitize_dt(f32::INFINITY), MAX_TICK_S);
        assert_eq!(sanitize_dt(5.0), MAX_TICK_S);
        assert_eq!(sanitize_dt(1.0 / 60.0), 1.0 / 60.0);
    }
}
