//! The locomotion stage of a tick: intent → movement plan → collide-and-slide in the world
//! → movement apply (actual speed, grounded, landing, push-wall). It owns where the
//! character is and the root motion the animation left for the next move.

use glam::Vec3;

use crate::graph::RootMotionDelta;
use crate::motion::{CharacterConfig, Intent, LocomotionVars, Movement, MovementOutput};
use crate::world::{CharacterPhysics, MoveResult, QueryFilter};

/// A move this much longer (m) than the one asked for is a teleport: collide-and-slide
/// only shortens a move, or steps and snaps it by a step's height.
pub const TELEPORT_DETECT_M: f32 = 1.0;

/// Movement state, the capsule's place and what the last move did.
#[derive(Clone, Debug)]
pub(super) struct Locomotion {
    pub(super) config: CharacterConfig,
    pub(super) movement: Movement,
    /// The character's feet (capsule bottom, root joint), world space.
    pub(super) feet_world: Vec3,
    /// Root motion the graph produced last tick, moved through collide-and-slide this tick.
    pub(super) pending_root_motion: RootMotionDelta,
    pub(super) output: MovementOutput,
    pub(super) last_move: MoveResult,
}

impl Locomotion {
    pub(super) fn new(config: CharacterConfig, feet_world: Vec3, facing_yaw_rad: f32) -> Self {
        let movement = Movement::new(facing_yaw_rad);
        Self {
            output: MovementOutput {
                vars: LocomotionVars::default(),
                landing: None,
                jumped: false,
                actual_velocity_world: Vec3::ZERO,
                step_overshoot_world: Vec3::ZERO,
                facing_yaw_rad: movement.facing_yaw_rad(),
            },
            last_move: MoveResult {
                translation: Vec3::ZERO,
                grounded: true,
                floor_normal: None,
                sliding_down_slope: false,
                hit_wall: false,
            },
            config,
            movement,
            feet_world,
            pending_root_motion: RootMotionDelta::ZERO,
        }
    }

    /// Stands the capsule at `feet_world` facing `facing_yaw_rad`, at rest as at spawn:
    /// no velocity, no jump or crouch under way, no root motion left to apply.
    pub(super) fn teleport(&mut self, feet_world: Vec3, facing_yaw_rad: f32) {
        let config = self.config.clone();
        *self = Locomotion::new(config, feet_world, facing_yaw_rad);
    }

    /// Plans the move from `intent` (and last tick's root motion), moves the capsule
    /// through `world` and takes in where it really went. Returns whether the world moved
    /// it more than [`TELEPORT_DETECT_M`] further than asked: a teleport by the host or
    /// the physics (the procedural state of the old place is then stale).
    pub(super) fn step(
        &mut self,
        dt_s: f32,
        intent: &Intent,
        world: &dyn CharacterPhysics,
        filter: QueryFilter,
    ) -> bool {
        let request = self.movement.plan(
            &self.config,
            intent,
            dt_s,
            world,
            self.feet_world,
            filter,
            self.pending_root_motion,
        );
        let result = world.move_capsule(&request);
        self.output = self.movement.apply(&self.config, &result, dt_s);
        let moved = result.translation.is_finite();
        if moved {
            self.feet_world += result.translation;
        }
        self.last_move = result;
        // Further than asked, not just elsewhere: a sprint blocked by a wall on a long tick
        // falls short of its request by more than the threshold, and is no teleport.
        let asked_m = request.desired_translation.length();
        moved && result.translation.length() > asked_m + TELEPORT_DETECT_M
    }
}
