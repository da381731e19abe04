//! The look-at stage of a tick (IK-14), after everything that moves the spine: head and
//! spine turned toward a target. It owns the look-at state, its chain and the target.

use glam::Vec3;

use super::CharacterError;
use crate::ik::look_at::{LookAt, LookAtChain};
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Skeleton;

/// Head and spine look-at and its target.
#[derive(Clone, Debug)]
pub(super) struct Look {
    pub(super) look_at: LookAt,
    chain: LookAtChain,
    pub(super) target_world: Option<Vec3>,
}

impl Look {
    pub(super) fn new(look_at: LookAt, chain: LookAtChain) -> Self {
        Self {
            look_at,
            chain,
            target_world: None,
        }
    }

    /// Forgets the turn it had eased to (a teleport): from the animation again, so the
    /// head does not sweep from the old place's direction to the target.
    pub(super) fn reset(&mut self) {
        self.look_at = LookAt::new(self.look_at.config);
    }

    /// Turns `chain` from now on (the look-at settings' weights changed); the look's
    /// state carries on.
    pub(super) fn set_chain(&mut self, chain: LookAtChain) {
        self.chain = chain;
    }

    /// Eases toward the target (or back to the animation) and turns the chain in `pose`
    /// and `model`, for a character at `root_world` facing `facing_yaw_rad`.
    pub(super) fn apply(
        &mut self,
        root_world: Vec3,
        facing_yaw_rad: f32,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
        dt_s: f32,
    ) -> Result<(), CharacterError> {
        let Some(head) = self.chain.as_slice().last().map(|&(j, _)| j) else {
            return Ok(());
        };
        let head_model = model.position_model(head);
        self.look_at.update(
            self.target_world,
            root_world,
            facing_yaw_rad,
            head_model,
            dt_s,
        );
        if self.look_at.weight() > 0.0 {
            let chain = self.chain;
            if self
                .look_at
                .apply(skeleton, chain.as_slice(), model, pose)
                .is_ok()
            {
                local_to_model(skeleton, pose, model)?;
            }
        }
        Ok(())
    }
}
