//! How the stage drives the pelvis (IK-7, the offset itself is [`crate::ik::pelvis`]): the
//! drop that makes this tick's ankle targets, and the landings ahead, reachable, written
//! into the pose.

use glam::Vec3;

use super::{FeetTargets, FootIk, FootIkError, FootIkInput, Tick, LANDING_TIME_CONSTANTS};
use crate::ik::pelvis::{drop_to_reach_m, required_drop_m};
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Skeleton;

impl FootIk {
    /// The pelvis brought down for the targets in `feet`, moved in `pose` with `model`
    /// recomputed. Returns the pelvis offset along model +Y (m, negative = down).
    pub(super) fn drop_pelvis(
        &mut self,
        input: &FootIkInput,
        tick: &Tick,
        feet: &FeetTargets,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
    ) -> Result<f32, FootIkError> {
        let config = self.config;
        let (root, facing, dt_s) = (tick.root_world, tick.facing, tick.dt_s);
        let (targets_world, alphas) = (&feet.targets_world, &feet.alphas);
        // IK-7: lower the pelvis so both (predicted) targets are reachable, and ahead of a
        // landing, so the landing foot is reachable when it comes down.
        let mut drop_m = 0.0f32;
        // A step down's drop is asked for in full from this long before the landing (the
        // offset follows at the down rate, one time constant behind: asked for only as the
        // foot came down, two thirds of it was there at touch-down, and a foot stepping
        // down a flight landed hanging at full reach, 9 cm over its tread)...
        let time_constant_s = 1.0 / config.pelvis.down_rate_per_s.max(1e-3);
        let full_before_s = LANDING_LEAD_TIME_CONSTANTS * time_constant_s;
        // ...eased in over this long before that.
        let anticipation_s = LANDING_TIME_CONSTANTS * time_constant_s;
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let hip_model = model.position_model(leg.chain.thigh);
            let hip_world = root + facing * hip_model + tick.body_lag_world;
            // An IK-target foot may stand off its shin as far as the animation has it.
            let reach_m = leg.leg_length_m * config.pelvis.max_leg_extension.clamp(0.5, 1.0)
                + tick.animated[i].off_shin_m;
            drop_m = drop_m.max(drop_to_reach_m(hip_world, targets_world[i], reach_m));
            // How far a locked foot the hip has left behind is out of reach across the
            // ground: the drop it would ask were the ankle no farther below the hip than the
            // animation has it (a foot on a lower tread asks a drop by being lower, and that
            // is how a leg steps down; one on a higher tread, left behind walking down, is
            // nearer than that). A foot ahead, landing, waits for the body to come over it.
            let behind_hip = (facing.inverse() * (targets_world[i] - hip_world)).z < 0.0;
            self.feet[i].overreach_m = if self.feet[i].lock.is_locked() && behind_hip {
                let below_hip_m = hip_model.y - model.position_model(leg.chain.foot).y;
                let level_target = Vec3::new(
                    targets_world[i].x,
                    targets_world[i].y.max(hip_world.y - below_hip_m),
                    targets_world[i].z,
                );
                drop_to_reach_m(hip_world, level_target, reach_m)
            } else {
                0.0
            };
            let state = &self.feet[i];
            let landing_in_s = input.landing_in_s[i];
            if let (Some(landed), Some(plane), true) = (
                input.landing_feet_model[i],
                state.ground.plane,
                state.contact < 0.5 && landing_in_s.is_finite() && landing_in_s >= 0.0,
            ) {
                let travel = input.velocity_world * landing_in_s;
                let hip_then =
                    hip_world + Some(travel).filter(|t| t.is_finite()).unwrap_or_default();
                let mut ankle_then = root + facing * landed.ankle_model + tick.body_lag_world;
                ankle_then.x += hip_then.x - hip_world.x;
                ankle_then.z += hip_then.z - hip_world.z;
                // Where tread placement moves the foot from the animation's landing (onto
                // one tread) is where it lands: on a step down it took KayKit's foot 7 cm
                // farther from the hip, which then came down out of reach and hung 2-4 cm
                // over its tread for two ticks after it landed. (Not the narrow support's
                // shift: a rig with wide hips cannot reach a beam under its middle however
                // low the pelvis goes, and asking for it sank Quaternius' pelvis.)
                let shift = Some(state.placement.applied_world)
                    .filter(|s| s.is_finite())
                    .unwrap_or_default();
                ankle_then.x += shift.x;
                ankle_then.z += shift.y;
                let ground_then = plane.height_at(ankle_then.x, ankle_then.z);
                ankle_then.y = ground_then + landed.ankle_model.y;
                // Only a step down (a landing below where the foot lifted off) is asked for
                // ahead of time: going up or on the level, an early drop bent the legs into
                // the climb (more knee pops up flights).
                let lead_s = if state.swing.steps_down_to(ground_then) {
                    full_before_s
                } else {
                    0.0
                };
                let anticipation = 1.0 - ((landing_in_s - lead_s) / anticipation_s).clamp(0.0, 1.0);
                let landing_drop_m = required_drop_m(
                    hip_then,
                    ankle_then,
                    leg.leg_length_m,
                    config.pelvis.max_leg_extension,
                );
                drop_m = drop_m.max(anticipation * alphas[i] * landing_drop_m);
            }
        }
        let offset_m = self.pelvis.update(
            &config.pelvis,
            -drop_m * self.weight,
            root.y,
            input.grounded,
            dt_s,
        );
        // The body's lag behind a capsule step, across the ground, in the model's frame.
        let lag_model = facing.inverse() * self.pelvis.step_lag_world;
        let offset_model = Vec3::new(lag_model.x, offset_m, lag_model.z);
        // Into the parent's frame by its whole transform, not only its rotation: an armature
        // scale baked into the joints (Quaternius: 100) makes a parent-local unit that many
        // metres.
        let offset_in_parent = skeleton.parent(self.rig.pelvis).map_or(offset_model, |p| {
            model.joints_model()[p]
                .inverse()
                .transform_vector3(offset_model)
        });
        if offset_in_parent.is_finite() {
            pose.local_mut()[self.rig.pelvis].translation += offset_in_parent;
        }
        local_to_model(skeleton, pose, model)?;
        Ok(offset_m)
    }
}

/// Time constants of the pelvis's down rate before a landing a step down (see
/// `Swing::steps_down_to`) by which its drop is asked for in full.
const LANDING_LEAD_TIME_CONSTANTS: f32 = 2.0;
