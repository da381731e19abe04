//! The animation stage of a tick: locomotion variables → graph → local pose → model-space
//! pose. It owns the graph instance, the parameter handles and the pose buffers.
//!
//! Animation LOD (SPEC PERF-5): far away the graph runs once every N ticks (N by LOD tier),
//! ticked for all N at once, and the pose moves toward that result over those N ticks,
//! arriving on the last. Each tick then moves the pose by about one tick's worth of
//! animation, whatever N is, and N changes only when a window ends: a tier switch never
//! jumps. The root motion of a window is handed out evenly over its ticks. The first
//! window at a new N is shortened by the character's own phase (from where it was
//! spawned), so a crowd that changes tier together does not run all its graphs on the same
//! tick.

use super::CharacterError;
use crate::graph::{GraphInstance, RootMotionDelta};
use crate::motion::{LocomotionParams, LocomotionVars};
use crate::pose::{blend_layer, local_to_model, ModelPose, Pose};

/// The graph instance and the poses it writes.
#[derive(Clone, Debug)]
pub(super) struct Animator {
    pub(super) graph: GraphInstance,
    pub(super) params: LocomotionParams,
    /// The pose of this tick: as animated, then changed by the procedural pass.
    pub(super) pose: Pose,
    pub(super) model: ModelPose,
    /// The animated pose of this tick before the procedural pass (where the next tick's
    /// interpolation starts).
    pub(super) animated: Pose,
    /// The graph's result at the end of the current window.
    target: Pose,
    /// Ticks of the current window, and how many are left (0: the graph runs next tick).
    window_ticks: u32,
    window_left: u32,
    /// The cadence (ticks per graph run) of the current window; 1 ticks straight into
    /// `pose`.
    window_every: u32,
    /// This character's phase among others of the same cadence.
    phase: u32,
    window_root_motion: RootMotionDelta,
    /// Whether the graph ran this tick (its events are this tick's).
    pub(super) graph_ran: bool,
}

impl Animator {
    /// `phase` spreads characters' graph runs over the ticks of a window (any number;
    /// characters with different phases run on different ticks).
    pub(super) fn new(graph: GraphInstance, phase: u32) -> Self {
        let params = LocomotionParams::resolve(graph.params());
        let pose = Pose::rest(graph.asset().skeleton());
        let model = ModelPose::new(pose.num_joints());
        Self {
            graph,
            params,
            animated: pose.clone(),
            target: pose.clone(),
            pose,
            model,
            window_ticks: 1,
            window_left: 0,
            window_every: 1,
            phase,
            window_root_motion: RootMotionDelta::ZERO,
            graph_ran: false,
        }
    }

    /// Writes `vars` into the graph, ticks it (`dt_s` at `playback_scale`; TILT-7's stride
    /// warping plays the gait faster on a slope) once every `every_ticks` ticks for that
    /// many ticks, and builds this tick's local and model-space pose. Returns this tick's
    /// share of the root motion.
    pub(super) fn step(
        &mut self,
        dt_s: f32,
        vars: &LocomotionVars,
        playback_scale: f32,
        every_ticks: u32,
    ) -> Result<RootMotionDelta, CharacterError> {
        let every_ticks = every_ticks.max(1);
        self.graph_ran = self.window_left == 0;
        if self.graph_ran {
            self.graph.set_playback_scale(playback_scale);
            self.params.write(vars, self.graph.params_mut());
            // A new cadence starts with a window of 1 to N ticks, by phase.
            let ticks = if every_ticks == self.window_every {
                every_ticks
            } else {
                1 + self.phase % every_ticks
            };
            self.window_every = every_ticks;
            self.window_ticks = ticks;
            self.window_left = ticks;
            if every_ticks == 1 {
                // Every tick, straight into the pose: full detail as without LOD.
                self.graph.tick(dt_s, &mut self.pose)?;
            } else {
                // From the pose the graph wrote last, whichever buffer that was.
                self.target.copy_from(&self.animated)?;
                self.graph.tick(dt_s * ticks as f32, &mut self.target)?;
            }
            self.window_root_motion = self.graph.root_motion();
        }
        if self.window_every == 1 {
            self.animated.copy_from(&self.pose)?;
        } else {
            // 1/left of the way from the last animated pose: on the window's last tick, the
            // graph's result.
            blend_layer(
                &mut self.animated,
                &self.target,
                1.0 / self.window_left as f32,
                None,
            )?;
            self.pose.copy_from(&self.animated)?;
        }
        self.window_left -= 1;
        let skeleton = self.graph.asset().skeleton();
        local_to_model(skeleton, &self.pose, &mut self.model)?;
        let share = 1.0 / self.window_ticks as f32;
        Ok(RootMotionDelta {
            translation_m: self.window_root_motion.translation_m * share,
            yaw_rad: self.window_root_motion.yaw_rad * share,
        })
    }
}
