//! Movement (SPEC §3 MOVE): from raw input to a collide-and-slide request, and from the
//! physics result to the locomotion variables the animation graph reads.
//!
//! - [`input`] (MOVE-1): [`shape_input`], per-device dead zones and the gamepad response.
//! - [`intent`]: [`Intent`], what a player or AI wants this tick, in world space.
//! - [`curve`]: [`Curve`], the piecewise-linear tuning curves.
//! - [`config`] (MOVE-2..8): [`CharacterConfig`], RON-loadable, with builders and
//!   `validate()`.
//! - [`movement`] (MOVE-2..8): [`Movement`], one character's state, with `plan` before and
//!   `apply` after the physics move.
//! - [`vars`]: [`LocomotionVars`] for the graph and [`LocomotionParams`] to write them.
//! - [`ai`] (MOVE-9): [`PathFollower`], a path turned into the same [`Intent`].
//!
//! One tick, in order (the caller owns the position; nothing allocates):
//!
//! ```
//! use plantigrade::glam::{Vec2, Vec3};
//! use plantigrade::graph::RootMotionDelta;
//! use plantigrade::motion::{
//!     Buttons, CharacterConfig, InputConfig, InputDevice, Intent, Movement,
//! };
//! use plantigrade::world::{
//!     Capsule, CharacterMover, MoveRequest, MoveResult, QueryFilter, RayHit, SpatialQueries,
//! };
//!
//! // A flat floor at y = 0 (a real game uses plantigrade-rapier).
//! struct Floor;
//! impl SpatialQueries for Floor {
//!     fn cast_ray(&self, _: Vec3, _: Vec3, _: f32, _: QueryFilter) -> Option<RayHit> {
//!         None
//!     }
//!     fn cast_capsule(&self, _: Capsule, _: Vec3, _: Vec3, _: f32, _: QueryFilter) -> Option<RayHit> {
//!         None
//!     }
//! }
//! impl CharacterMover for Floor {
//!     fn move_capsule(&self, r: &MoveRequest) -> MoveResult {
//!         let end = r.feet + r.desired_translation;
//!         let end = Vec3::new(end.x, end.y.max(0.0), end.z);
//!         MoveResult {
//!             translation: end - r.feet,
//!             grounded: end.y <= 1e-4,
//!             floor_normal: Some(Vec3::Y),
//!             sliding_down_slope: false,
//!             hit_wall: false,
//!         }
//!     }
//! }
//!
//! let cfg = CharacterConfig::default();
//! let input_cfg = InputConfig::default();
//! let world = Floor;
//! let mut movement = Movement::new(0.0);
//! let mut feet = Vec3::ZERO;
//! let dt = 1.0 / 60.0;
//! for _ in 0..60 {
//!     // 1. input → intent (a stick pushed forward, camera looking down +Z)
//!     let intent = Intent::from_input(Vec2::Y, 0.0, InputDevice::Gamepad, Buttons::default(), &input_cfg);
//!     // 2. movement plans the move (root motion comes from last tick's graph update)
//!     let request = movement.plan(&cfg, &intent, dt, &world, feet, QueryFilter::GROUND, RootMotionDelta::ZERO);
//!     // 3. physics: collide and slide; the caller moves its feet
//!     let result = world.move_capsule(&request);
//!     feet += result.translation;
//!     // 4. movement reads the result → locomotion variables for the graph
//!     let out = movement.apply(&cfg, &result, dt);
//!     // 5. (caller) write `out.vars` into the graph with `LocomotionParams::write`, tick
//!     //    the graph, take its root motion for the next `plan`.
//!     assert!(out.vars.speed.is_finite());
//! }
//! assert!((movement.actual_speed_m_s() - cfg.run_speed_m_s).abs() < 0.05);
//! assert!(feet.z > 2.0);
//! ```

pub mod ai;
pub mod config;
pub mod curve;
pub mod input;
pub mod intent;
pub mod movement;
pub mod vars;

pub use ai::PathFollower;
pub use config::{CharacterConfig, ConfigError, ConfigLoadError, PushWallConfig};
pub use curve::{Curve, CurveError};
pub use input::{shape_input, InputConfig, InputDevice};
pub use intent::{direction_to_yaw, yaw_to_direction, Buttons, Intent};
pub use movement::{
    hips_back_after, move_toward, turn_toward, wrap_angle, Movement, MovementOutput, MAX_TICK_S,
};
pub use vars::{
    JumpPhase, Landing, LandingGrade, LocomotionParams, LocomotionVars, HIPS_BACK, IS_PUSHING_WALL,
    REVERSAL_DEG, REVERSED,
};

#[cfg(test)]
mod tests;
