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
use crate::math::damp_share;
use crate::pose::{local_to_model, ModelPose, Pose};
use crate::skeleton::Skeleton;
use crate::tilt::{
    apply_posture, flight_stride_scale, slope_angle_along_rad, slope_speed_scale,
    NormalSourceChoice, PelvisTilt, PostureOffsets, SlopeSpeedConfig, TiltConfig, TiltInput,
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
    /// The share the slope's playback scale is corrected by, eased: off 1 while a flight
    /// of stairs fits the stride to a whole number of treads, or a slope shortens a step
    /// that would climb or descend more than the legs span ([`step_rise_share`]).
    flight_stride_share: f32,
    /// What [`Self::flight_stride_share`] eases toward, and the slope's scale it corrects.
    flight_stride_share_target: f32,
    slope_speed_scale: f32,
    slope_speed_scale_target: f32,
}

/// The playback scale a touch-down some time ahead will be played at: the scale now, and
/// where the flight's share of it is easing to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ScaleAhead {
    pub now: f32,
    slope_now: f32,
    slope_target: f32,
    share_now: f32,
    share_target: f32,
}

impl ScaleAhead {
    /// The scale `in_s` seconds ahead (the scale now when that is not finite).
    pub(super) fn at(&self, in_s: f32) -> f32 {
        if !(in_s.is_finite() && in_s > 0.0) {
            return self.now;
        }
        let share_eased = damp_share(FLIGHT_STRIDE_EASE_PER_S, in_s);
        let slope_eased = damp_share(SLOPE_SCALE_EASE_PER_S, in_s);
        let slope = self.slope_now + (self.slope_target - self.slope_now) * slope_eased;
        slope * (self.share_now + (self.share_target - self.share_now) * share_eased)
    }
}

/// The gait's step now: its length (m) at the playback scale it was measured with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct StrideNow {
    pub step_m: f32,
    pub scale_now: f32,
}

/// Off a flight (TILT-7): what the slope's playback scale `slope_scale` is raised by so a
/// step, as `stride` takes it, climbs or descends no more than the config's
/// `max_step_rise_m` on ground rising `grade` (|tan|) along the movement; at least 1, and
/// never past `flight_max_scale` in all. Quaternius' walk steps 1.2 m on 0.53 m legs: down
/// the 40° ramp at the slope's 1.5 a foot landed 0.47 m ahead of the hip and 0.4 m below it,
/// out of reach, and slid 7 cm down the slope as it came down.
fn step_rise_share(
    stride: StrideNow,
    slope_scale: f32,
    grade: f32,
    config: &SlopeSpeedConfig,
) -> f32 {
    let usable = |v: f32| v.is_finite() && v > 0.0;
    if !(usable(slope_scale) && usable(config.max_step_rise_m)) {
        return 1.0;
    }
    let step_at_slope_m = stride.step_m * stride.scale_now / slope_scale;
    let share = step_at_slope_m * grade / config.max_step_rise_m;
    if share.is_finite() {
        share.min(config.flight_max_scale / slope_scale).max(1.0)
    } else {
        1.0
    }
}

/// How fast the stride eases to and from a flight's whole treads (1/s): within about a
/// step, so neither the first step onto a flight nor the first off it jumps.
const FLIGHT_STRIDE_EASE_PER_S: f32 = 8.0;
/// About how fast the tilt's slope (and its playback scale) turns to a flight's (1/s): its
/// pitch filter's rate.
const SLOPE_SCALE_EASE_PER_S: f32 = 15.0;
/// Moving further off the facing than this (cos), a flight's treads are not stridden.
const MIN_FLIGHT_STRIDE_COS: f32 = 0.8;

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
            flight_stride_share: 1.0,
            flight_stride_share_target: 1.0,
            slope_speed_scale: 1.0,
            slope_speed_scale_target: 1.0,
        }
    }

    /// Forgets the ground it stood on (a teleport): tilt back at rest, no landing dip, no
    /// lean carried from the old place, the slope's playback scale back to 1.
    pub(super) fn reset(&mut self) {
        self.tilt.reset();
        self.tilt_output = None;
        self.impact.reset();
        self.impact_output = ImpactOutput::default();
        self.lean = Lean::default();
        self.flight_stride_share = 1.0;
        self.flight_stride_share_target = 1.0;
        self.slope_speed_scale = 1.0;
        self.slope_speed_scale_target = 1.0;
    }

    /// TILT-7: how much faster the gait plays on this slope (from last tick's tilt; 1 on
    /// flat ground, in the air, or when the stride is not warped). On a flight of stairs
    /// the slope's scale is corrected, eased, by the share that makes each step a whole
    /// number of treads ([`flight_stride_scale`], from the step the gait takes now,
    /// `stride`, over the flight's own slope rather than the tilt's still-turning one), so
    /// the way onto a flight and off it stays the slope's. `velocity_world` is the body's:
    /// the tread is measured along the facing.
    pub(super) fn playback_scale(
        &mut self,
        warps_stride: bool,
        stride: Option<StrideNow>,
        velocity_world: Vec3,
        facing_yaw_rad: f32,
        dt_s: f32,
    ) -> f32 {
        let Some(tilt) = self.tilt_output.as_ref().filter(|_| warps_stride) else {
            self.flight_stride_share = 1.0;
            self.flight_stride_share_target = 1.0;
            self.slope_speed_scale = 1.0;
            self.slope_speed_scale_target = 1.0;
            return 1.0;
        };
        let forward = Vec3::new(facing_yaw_rad.sin(), 0.0, facing_yaw_rad.cos());
        let along_facing = Vec3::new(velocity_world.x, 0.0, velocity_world.z)
            .try_normalize()
            .map_or(0.0, |v| v.dot(forward).abs());
        let config = &self.tilt.config.slope_speed;
        // The probe measured the treads along the facing: along the movement they are
        // longer by 1 / cos of the angle between; sideways across a flight, no stride.
        let share = tilt
            .frame
            .flight
            .filter(|_| !tilt.airborne && along_facing >= MIN_FLIGHT_STRIDE_COS)
            .zip(stride)
            .and_then(|(flight, stride)| {
                let tread_m = flight.tread_m()? / along_facing;
                let flight_scale = slope_speed_scale(flight.slope.atan(), config);
                let whole_treads = flight_stride_scale(
                    stride.step_m,
                    stride.scale_now,
                    flight_scale,
                    tread_m,
                    config,
                )?;
                Some(whole_treads / flight_scale)
            })
            .unwrap_or_else(|| {
                // Off a flight: a step that would climb or descend more than the legs span
                // is shortened.
                let grade = slope_angle_along_rad(tilt.frame.normal_world, velocity_world)
                    .map_or(0.0, |a| a.tan().abs());
                stride.filter(|_| !tilt.airborne).map_or(1.0, |stride| {
                    step_rise_share(stride, tilt.slope_speed_scale, grade, config)
                })
            });
        if dt_s.is_finite() && dt_s > 0.0 {
            let ease = damp_share(FLIGHT_STRIDE_EASE_PER_S, dt_s);
            self.flight_stride_share += (share - self.flight_stride_share) * ease;
        }
        self.flight_stride_share_target = share;
        self.slope_speed_scale = tilt.slope_speed_scale;
        // Where the slope's scale is heading: a flight's own, while the tilt still turns
        // toward it.
        self.slope_speed_scale_target = tilt
            .frame
            .flight
            .filter(|_| !tilt.airborne && along_facing >= MIN_FLIGHT_STRIDE_COS)
            .map_or(tilt.slope_speed_scale, |flight| {
                slope_speed_scale(flight.slope.atan(), config)
            });
        tilt.slope_speed_scale * self.flight_stride_share
    }

    /// The playback scale this tick ([`Self::playback_scale`]'s) and where it is heading.
    pub(super) fn scale_ahead(&self, scale_now: f32) -> ScaleAhead {
        ScaleAhead {
            now: scale_now,
            slope_now: self.slope_speed_scale,
            slope_target: self.slope_speed_scale_target,
            share_now: self.flight_stride_share,
            share_target: self.flight_stride_share_target,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_touch_down_ahead_is_warped_at_the_scale_it_will_be_played_at() {
        // A flight just came into view: the slope's scale turning from 1 to its 1.5, the
        // whole-treads share from 1 to 0.9.
        let ahead = ScaleAhead {
            now: 1.0,
            slope_now: 1.0,
            slope_target: 1.5,
            share_now: 1.0,
            share_target: 0.9,
        };
        assert_eq!(ahead.at(0.0), 1.0);
        assert_eq!(ahead.at(f32::NAN), 1.0);
        // Easing both tick by tick for 0.2 s ends where `at(0.2)` said.
        let (mut slope, mut share, dt_s) = (1.0f32, 1.0f32, 1.0 / 60.0);
        for _ in 0..12 {
            slope += (1.5 - slope) * damp_share(SLOPE_SCALE_EASE_PER_S, dt_s);
            share += (0.9 - share) * damp_share(FLIGHT_STRIDE_EASE_PER_S, dt_s);
        }
        assert!(
            (ahead.at(0.2) - slope * share).abs() < 1e-4,
            "{}",
            ahead.at(0.2)
        );
        assert!((ahead.at(100.0) - 1.35).abs() < 1e-4);
    }
}
