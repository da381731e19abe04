//! The posture stage of a tick, before foot IK so the feet still land: the slope-aware
//! pelvis and trunk (TILT), the dip of a landing with speed and the lean with the body's
//! acceleration, all as one set of offsets applied to pelvis, spine and head. It owns the
//! tilt, impact and lean state and reads the trunk's joints.

use glam::{Quat, Vec3};

use super::locomotion::Locomotion;
use super::CharacterError;
use crate::bone_map::HumanoidMap;
use crate::debug::DebugDraw;
use crate::ik::AnimatedFoot;
use crate::impact::{ImpactOutput, LandingImpact, LandingImpactConfig};
use crate::lean::{Lean, LeanConfig, LeanOutput};
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Skeleton;
use crate::tilt::{
    apply_posture, NormalSourceChoice, PelvisTilt, PostureOffsets, TiltConfig, TiltInput,
    TiltOutput,
};
use crate::world::{QueryFilter, SpatialQueries};

/// Tilt, landing impact and lean, and the joints they move.
#[derive(Clone, Debug)]
pub(super) struct Posture {
    /// Slope-aware pelvis (TILT), its normal source and last output.
    pub(super) tilt: PelvisTilt,
    pub(super) tilt_source: NormalSourceChoice,
    pub(super) tilt_output: Option<TiltOutput>,
    pub(super) pelvis: Option<usize>,
    /// The landing impact over locomotion and its last output.
    impact: LandingImpact,
    pub(super) impact_config: LandingImpactConfig,
    pub(super) impact_output: ImpactOutput,
    /// The lean with the body's acceleration and its config.
    pub(super) lean: Lean,
    pub(super) lean_config: LeanConfig,
    /// The trunk's first joint above the pelvis (the posture's spine counter-rotation).
    spine_base: Option<usize>,
    /// The trunk's top: the neck, else the highest spine joint.
    neck: Option<usize>,
    head: Option<usize>,
    /// The head's model rotation as animated, before tilt, foot IK and look-at.
    pub(super) head_rotation_anim_model: Quat,
    /// The trunk's lean as animated (pelvis → neck against vertical, forward +, rad).
    pub(super) torso_lean_anim_rad: f32,
}

impl Posture {
    pub(super) fn new(
        bones: &HumanoidMap,
        tilt_config: TiltConfig,
        impact_config: LandingImpactConfig,
        lean_config: LeanConfig,
    ) -> Self {
        Self {
            tilt: PelvisTilt::new(tilt_config),
            tilt_source: NormalSourceChoice::Ground,
            tilt_output: None,
            pelvis: bones.pelvis,
            impact: LandingImpact::default(),
            impact_config,
            impact_output: ImpactOutput::default(),
            lean: Lean::default(),
            lean_config,
            spine_base: bones.spine.first().copied(),
            neck: bones.neck.or(bones.spine.last().copied()),
            head: bones.head,
            head_rotation_anim_model: Quat::IDENTITY,
            torso_lean_anim_rad: 0.0,
        }
    }

    /// TILT-7: how much faster the gait plays on this slope (last tick's; 1 on flat ground,
    /// in the air, or when the stride is not warped).
    pub(super) fn playback_scale(&self, warps_stride: bool) -> f32 {
        self.tilt_output
            .as_ref()
            .filter(|_| warps_stride)
            .map_or(1.0, |t| t.slope_speed_scale)
    }

    /// Notes the head and the trunk as animated, before anything procedural moves them.
    pub(super) fn read_animation(&mut self, model: &ModelPose) {
        if let Some(head) = self.head {
            let (_, rotation, _) = model.joints_model()[head].to_scale_rotation_translation();
            self.head_rotation_anim_model = rotation;
        }
        if let (Some(pelvis), Some(neck)) = (self.pelvis, self.neck) {
            let trunk = model.position_model(neck) - model.position_model(pelvis);
            self.torso_lean_anim_rad = trunk.z.atan2(trunk.y);
        }
    }

    /// Slope-aware pelvis (TILT-1..6), landing impact and lean: a rotation of the pelvis and
    /// the trunk, written into `pose` and `model`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply(
        &mut self,
        locomotion: &Locomotion,
        animated_feet: &[AnimatedFoot; 2],
        world: &dyn SpatialQueries,
        ground: QueryFilter,
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
        debug: &mut DebugDraw,
        dt_s: f32,
    ) -> Result<(), CharacterError> {
        let Some(pelvis) = self.pelvis else {
            return Ok(());
        };
        let output_now = &locomotion.output;
        let facing_yaw_rad = locomotion.movement.facing_yaw_rad();
        let facing = Quat::from_rotation_y(facing_yaw_rad);
        let root_world = locomotion.feet_world;
        let feet_world = animated_feet.map(|f| root_world + facing * f.ankle_model);
        let input = TiltInput {
            world,
            filter: ground,
            root_world,
            facing_yaw_rad,
            pelvis_model: model.position_model(pelvis),
            feet_world,
            grounded: output_now.vars.is_grounded,
            aiming: output_now.vars.aiming,
            dt_s,
        };
        let output = self.tilt.update(&input, &self.tilt_source);
        if debug.enabled() {
            // TILT-10: the rays, and the pelvis axes beside the target and actual tilt.
            for ray in output.frame.rays() {
                debug.ray_probe(ray.origin_world, ray.end_world, ray.hit.map(|h| h.point));
            }
            let pelvis_world = root_world + facing * model.position_model(pelvis);
            let target = self
                .tilt
                .config
                .posture
                .sanitized()
                .offsets(output.target_pitch_rad, output.target_roll_rad)
                .pelvis_model;
            debug.tilt_axes(
                pelvis_world,
                facing * output.pelvis_offset_model,
                facing * target,
                facing * output.pelvis_offset_model,
                facing * Vec3::X * 0.35,
                0.25,
            );
        }
        // A landing with horizontal speed dips the body over the gait (the graph
        // stays in it); the dip joins the slope posture and both go in at once.
        let impact = self.impact.update(
            &self.impact_config,
            output_now.landing,
            output_now.vars.speed,
            output_now.vars.is_grounded,
            dt_s,
        );
        // The lean with the body's acceleration (into turns, with speed changes)
        // tips pelvis and trunk together, over the slope posture.
        let lean = self.lean.update(
            &self.lean_config,
            output_now.actual_velocity_world,
            facing_yaw_rad,
            output_now.vars.is_grounded,
            locomotion.last_move.sliding_down_slope || locomotion.last_move.hit_wall,
            dt_s,
        );
        let mut offsets = if output.enabled {
            self.tilt.posture_offsets()
        } else {
            PostureOffsets::IDENTITY
        };
        let lean_model = lean.rotation_model();
        offsets.pelvis_model = lean_model * offsets.pelvis_model;
        offsets.trunk_model =
            lean_model * Quat::from_rotation_x(impact.trunk_flex_rad) * offsets.trunk_model;
        offsets.pelvis_drop_m = impact.pelvis_drop_m;
        if output.enabled || impact != ImpactOutput::default() || lean != LeanOutput::default() {
            apply_posture(
                skeleton,
                pelvis,
                self.spine_base,
                self.head.map(|head| (head, self.tilt.head_keep_fraction())),
                offsets,
                model,
                pose,
            )
            .map_err(|e| CharacterError::Tilt(e.to_string()))?;
            local_to_model(skeleton, pose, model)?;
        }
        self.impact_output = impact;
        self.tilt_output = Some(output);
        Ok(())
    }
}
