//! The animation stage of a tick: locomotion variables → graph → local pose → model-space
//! pose. It owns the graph instance, the parameter handles and the pose buffers.

use super::CharacterError;
use crate::graph::GraphInstance;
use crate::motion::{LocomotionParams, LocomotionVars};
use crate::pose::{local_to_model, ModelPose, Pose};

/// The graph instance and the poses it writes.
#[derive(Clone, Debug)]
pub(super) struct Animator {
    pub(super) graph: GraphInstance,
    pub(super) params: LocomotionParams,
    pub(super) pose: Pose,
    pub(super) model: ModelPose,
}

impl Animator {
    pub(super) fn new(graph: GraphInstance) -> Self {
        let params = LocomotionParams::resolve(graph.params());
        let pose = Pose::rest(graph.asset().skeleton());
        let model = ModelPose::new(pose.num_joints());
        Self {
            graph,
            params,
            pose,
            model,
        }
    }

    /// Writes `vars` into the graph, ticks it `dt_s` at `playback_scale` (TILT-7's stride
    /// warping plays the gait faster on a slope) and builds the model-space pose.
    pub(super) fn step(
        &mut self,
        dt_s: f32,
        vars: &LocomotionVars,
        playback_scale: f32,
    ) -> Result<(), CharacterError> {
        self.graph.set_playback_scale(playback_scale);
        self.params.write(vars, self.graph.params_mut());
        self.graph.tick(dt_s, &mut self.pose)?;
        let skeleton = self.graph.asset().skeleton();
        local_to_model(skeleton, &self.pose, &mut self.model)?;
        Ok(())
    }
}
