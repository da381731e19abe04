//! One character (SPEC §0): configuration plus state, and `tick(dt, intent, &world)`, which
//! runs the stages of a tick in order:
//!
//! intent → movement plan → collide-and-slide in the world → movement apply (actual speed,
//! grounded, landing, push-wall) → locomotion variables → animation graph → local pose (root
//! motion kept for the next tick's move) → model-space pose.
//!
//! Every stage is plain data in and out; the character only owns the buffers. The world
//! is only queried: a host that keeps the character's collider in its physics world moves it
//! to [`Character::feet_world`] after the tick.

use std::sync::Arc;

use glam::{Quat, Vec3};

use crate::graph::{GraphAsset, GraphError, GraphEvent, GraphInstance, RootMotionDelta};
use crate::motion::{
    CharacterConfig, ConfigError, Intent, LocomotionParams, LocomotionVars, Movement,
    MovementOutput,
};
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::world::{BodyId, Layers, MoveResult, QueryFilter, World};

/// Why a character could not be made or ticked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CharacterError {
    #[error("character config: {0}")]
    Config(#[from] ConfigError),
    #[error("spawn position is not finite")]
    BadSpawn,
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error(transparent)]
    Pose(#[from] PoseError),
}

/// A character: movement state, animation graph instance and pose buffers.
#[derive(Clone, Debug)]
pub struct Character {
    config: CharacterConfig,
    movement: Movement,
    graph: GraphInstance,
    params: LocomotionParams,
    body: Option<BodyId>,
    /// The character's feet (capsule bottom, root joint), world space.
    feet_world: Vec3,
    /// Root motion the graph produced last tick, moved through collide-and-slide this tick.
    pending_root_motion: RootMotionDelta,
    output: MovementOutput,
    last_move: MoveResult,
    pose: Pose,
    model: ModelPose,
}

impl Character {
    /// A character standing at `feet_world` facing `facing_yaw_rad` (world yaw; 0 faces +Z),
    /// animated by `graph`.
    pub fn new(
        config: CharacterConfig,
        graph: Arc<GraphAsset>,
        feet_world: Vec3,
        facing_yaw_rad: f32,
    ) -> Result<Self, CharacterError> {
        config.validate()?;
        if !feet_world.is_finite() || !facing_yaw_rad.is_finite() {
            return Err(CharacterError::BadSpawn);
        }
        let movement = Movement::new(facing_yaw_rad);
        let graph = GraphInstance::new(graph);
        let params = LocomotionParams::resolve(graph.params());
        let pose = Pose::rest(graph.asset().skeleton());
        let model = ModelPose::new(pose.num_joints());
        Ok(Self {
            output: MovementOutput {
                vars: LocomotionVars::default(),
                landing: None,
                jumped: false,
                actual_velocity_world: Vec3::ZERO,
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
            graph,
            params,
            body: None,
            feet_world,
            pending_root_motion: RootMotionDelta::ZERO,
            pose,
            model,
        })
    }

    /// Names the character's own collider in the world, so its queries skip it.
    pub fn with_body(mut self, body: BodyId) -> Self {
        self.body = Some(body);
        self
    }

    /// Runs one fixed tick of `dt_s` seconds (see the module docs for the stage order).
    /// `dt_s` is sanitised (NaN → 0, clamped to `motion::MAX_TICK_S`) by the stages.
    pub fn tick(
        &mut self,
        dt_s: f32,
        intent: &Intent,
        world: &dyn World,
    ) -> Result<(), CharacterError> {
        let filter = QueryFilter {
            layers: Layers::GROUND
                .union(Layers::PROPS)
                .union(Layers::CHARACTERS),
            exclude: self.body,
        };
        // Movement and physics.
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
        if result.translation.is_finite() {
            self.feet_world += result.translation;
        }
        self.last_move = result;

        // Animation.
        self.params
            .write(&self.output.vars, self.graph.params_mut());
        self.graph.tick(dt_s, &mut self.pose)?;
        self.pending_root_motion = self.graph.root_motion();
        local_to_model(self.graph.asset().skeleton(), &self.pose, &mut self.model)?;
        Ok(())
    }

    /// Feet (capsule bottom, root joint) in world space (m).
    pub fn feet_world(&self) -> Vec3 {
        self.feet_world
    }

    /// Facing as a world yaw (rad; 0 faces +Z, positive turns toward +X).
    pub fn facing_yaw_rad(&self) -> f32 {
        self.movement.facing_yaw_rad()
    }

    /// The root's world rotation (yaw only: the root stays upright, SPEC TILT-3).
    pub fn facing_world(&self) -> Quat {
        Quat::from_rotation_y(self.facing_yaw_rad())
    }

    /// A model-space point (e.g. a joint position) in world space.
    pub fn model_to_world(&self, point_model: Vec3) -> Vec3 {
        self.feet_world + self.facing_world() * point_model
    }

    /// Local pose of the last tick.
    pub fn pose(&self) -> &Pose {
        &self.pose
    }

    /// Model-space pose of the last tick.
    pub fn model_pose(&self) -> &ModelPose {
        &self.model
    }

    /// Graph events of the last tick.
    pub fn events(&self) -> &[GraphEvent] {
        self.graph.events()
    }

    /// Movement output of the last tick (locomotion variables, landing, actual velocity).
    pub fn output(&self) -> &MovementOutput {
        &self.output
    }

    /// What collide-and-slide did in the last tick.
    pub fn last_move(&self) -> &MoveResult {
        &self.last_move
    }

    pub fn config(&self) -> &CharacterConfig {
        &self.config
    }

    pub fn movement(&self) -> &Movement {
        &self.movement
    }

    pub fn graph(&self) -> &GraphInstance {
        &self.graph
    }

    /// The graph instance, e.g. to pause it or force a travel.
    pub fn graph_mut(&mut self) -> &mut GraphInstance {
        &mut self.graph
    }

    /// The capsule in use (crouched or standing).
    pub fn capsule(&self) -> crate::world::Capsule {
        self.config.capsule(self.output.vars.is_crouching)
    }
}

/// Fixed-tick accumulator for hosts with a variable frame time: each frame, `advance`
/// says how many fixed ticks to run; `alpha` is how far the frame lies between the last
/// two ticks, for interpolating what is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedTimestep {
    step_s: f32,
    accumulator_s: f32,
    /// At most this many ticks per frame; the rest of a long stall is dropped, so a hitch
    /// never snowballs into ever longer frames.
    max_steps_per_frame: u32,
}

impl FixedTimestep {
    /// Ticks at `hz` (default 60; non-finite or non-positive → 60), at most 8 per frame.
    pub fn new(hz: f32) -> Self {
        let hz = if hz.is_finite() && hz > 0.0 { hz } else { 60.0 };
        Self {
            step_s: 1.0 / hz,
            accumulator_s: 0.0,
            max_steps_per_frame: 8,
        }
    }

    pub fn with_max_steps_per_frame(mut self, max: u32) -> Self {
        self.max_steps_per_frame = max.max(1);
        self
    }

    /// Seconds per tick.
    pub fn step_s(&self) -> f32 {
        self.step_s
    }

    /// Adds a frame's time and returns how many ticks to run now.
    pub fn advance(&mut self, frame_dt_s: f32) -> u32 {
        if frame_dt_s.is_finite() && frame_dt_s > 0.0 {
            self.accumulator_s += frame_dt_s;
        }
        let mut steps = 0;
        while self.accumulator_s >= self.step_s && steps < self.max_steps_per_frame {
            self.accumulator_s -= self.step_s;
            steps += 1;
        }
        if steps == self.max_steps_per_frame {
            self.accumulator_s = self.accumulator_s.min(self.step_s);
        }
        steps
    }

    /// Fraction of a tick left in the accumulator (0..1).
    pub fn alpha(&self) -> f32 {
        (self.accumulator_s / self.step_s).clamp(0.0, 1.0)
    }
}

impl Default for FixedTimestep {
    fn default() -> Self {
        Self::new(60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_timestep_accumulates_and_caps() {
        let mut step = FixedTimestep::new(60.0);
        assert_eq!(step.advance(1.0 / 120.0), 0);
        assert_eq!(step.advance(1.0 / 120.0), 1);
        assert_eq!(step.advance(0.055), 3);
        assert!((0.0..1.0).contains(&step.alpha()));
        // A 2 s stall runs 8 ticks, not 120, and does not carry the rest.
        assert_eq!(step.advance(2.0), 8);
        assert!(step.advance(0.0) <= 1);
        assert_eq!(step.advance(f32::NAN), 0);
        assert_eq!(step.advance(-1.0), 0);
    }
}
