//! One character (SPEC §0): configuration plus state, and `tick(dt, intent, &world)`, which
//! runs the stages of a tick in order:
//!
//! intent → movement plan → collide-and-slide in the world → movement apply (actual speed,
//! grounded, landing, push-wall) → locomotion variables → animation graph → local pose (root
//! motion kept for the next tick's move) → model-space pose → foot IK (probes, support
//! planes, lock, pelvis drop, two-bone legs) → final model-space pose.
//!
//! Every stage is plain data in and out; the character only owns the buffers. The world
//! is only queried: a host that keeps the character's collider in its physics world moves it
//! to [`Character::feet_world`] after the tick.

use std::sync::Arc;

use glam::{Quat, Vec3};

use crate::bone_map::{BoneMapError, BoneNames, HumanoidMap};
use crate::debug::DebugDraw;
use crate::graph::{GraphAsset, GraphError, GraphEvent, GraphInstance, RootMotionDelta};
use crate::ik::look_at::{LookAt, LookAtChain};
use crate::ik::{
    run_foot_probe, AnimatedFoot, FootIk, FootIkConfig, FootIkError, FootIkInput, FootIkMode,
    FootIkOutput, FootProbeRequest, FootProbeResult, LandingPoses,
};
use crate::impact::{ImpactOutput, LandingImpact, LandingImpactConfig};
use crate::lean::{Lean, LeanConfig, LeanOutput};
use crate::lod::{distance_to_viewer, Lod, LodConfig, LodTier};
use crate::motion::{
    CharacterConfig, ConfigError, Intent, LocomotionParams, LocomotionVars, Movement,
    MovementOutput,
};
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::settings::{CharacterSettings, QueryLayers, SettingsError};
use crate::tilt::{
    apply_posture, NormalSourceChoice, PelvisTilt, PostureOffsets, TiltConfig, TiltInput,
    TiltOutput,
};
use crate::world::{BodyId, MoveResult, QueryFilter, World};

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
    #[error(transparent)]
    FootIk(#[from] FootIkError),
    #[error("pelvis tilt: {0}")]
    Tilt(String),
    #[error("settings: {0}")]
    Settings(#[from] SettingsError),
    #[error("bone map: {0}")]
    BoneMap(#[from] BoneMapError),
}

/// When the foot probes run (SPEC IK-13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProbeTiming {
    /// Cast inside `tick`, used the same tick.
    #[default]
    Immediate,
    /// `tick` leaves its requests in [`Character::probe_requests`]; the host runs every
    /// character's as one batch (e.g. [`run_probe_batch`]) and they are used next tick.
    Batched,
}

/// A character: movement state, animation graph instance and pose buffers.
#[derive(Clone, Debug)]
pub struct Character {
    config: CharacterConfig,
    /// The layers the character's queries see.
    query_layers: QueryLayers,
    /// The bone map it was given (`None`: detected).
    bone_map: Option<BoneNames>,
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
    /// Foot IK, when the rig has a pelvis and two legs with feet (else the reason).
    foot_ik: Result<FootIk, FootIkError>,
    animated_feet: [AnimatedFoot; 2],
    contact_curves: [Option<usize>; 2],
    /// This tick's contact per foot: the blended curve, gated by the animated foot's lift
    /// (see [`crate::ik::FootIkConfig::contact_lift_full_m`]); NaN without curves.
    foot_contact: [f32; 2],
    /// Each clip's feet at their touch-downs, and this tick's blended, stride-warped
    /// prediction of where each foot lands (IK-1).
    landing_poses: Arc<LandingPoses>,
    landing_feet: [Option<AnimatedFoot>; 2],
    /// The dominant clip and its phase last tick, and the phase rate measured from them
    /// (1/s), to time the next landing (see [`Character::time_to_landing_s`]).
    phase_last: Option<(usize, f32)>,
    phase_rate_per_s: f32,
    landing_in_s: [f32; 2],
    probe_timing: ProbeTiming,
    probe_requests: [FootProbeRequest; 2],
    /// Batched results waiting for the next tick.
    probe_results: Option<[FootProbeResult; 2]>,
    /// Batched timing has run a tick (the first one probes at once: nothing is waiting).
    batched_started: bool,
    /// LOD tier by distance to the viewer (IK-11); full detail while no viewer is set.
    lod: Lod,
    viewer_world: Option<Vec3>,
    /// Head and spine look-at (IK-14) and its target.
    look_at: LookAt,
    look_at_chain: LookAtChain,
    look_target_world: Option<Vec3>,
    /// Debug draw commands of the last tick (IK-12), when enabled.
    debug: DebugDraw,
    /// Slope-aware pelvis (TILT), its normal source and last output.
    tilt: PelvisTilt,
    tilt_source: NormalSourceChoice,
    tilt_output: Option<TiltOutput>,
    pelvis: Option<usize>,
    /// The landing impact over locomotion and its last output.
    impact: LandingImpact,
    impact_config: LandingImpactConfig,
    impact_output: ImpactOutput,
    /// The lean with the body's acceleration and its config.
    lean: Lean,
    lean_config: LeanConfig,
    /// The trunk's first joint above the pelvis (the posture's spine counter-rotation).
    spine_base: Option<usize>,
    /// The trunk's top: the neck, else the highest spine joint.
    neck: Option<usize>,
    head: Option<usize>,
    /// The head's model rotation as animated, before tilt, foot IK and look-at.
    head_rotation_anim_model: Quat,
    /// The trunk's lean as animated (pelvis → neck against vertical, forward +, rad).
    torso_lean_anim_rad: f32,
}

impl Character {
    /// A character standing at `feet_world` facing `facing_yaw_rad` (world yaw; 0 faces +Z),
    /// animated by `graph`, with `config` for its movement and the defaults for the rest.
    /// [`Character::builder`] sets up everything else.
    pub fn new(
        config: CharacterConfig,
        graph: Arc<GraphAsset>,
        feet_world: Vec3,
        facing_yaw_rad: f32,
    ) -> Result<Self, CharacterError> {
        Self::builder(graph)
            .settings(CharacterSettings {
                motion: config,
                ..CharacterSettings::default()
            })
            .spawn(feet_world, facing_yaw_rad)
    }

    /// Sets up a character animated by `graph`: its settings, an explicit bone map, its own
    /// collider, shared landing poses; then [`CharacterBuilder::spawn`].
    pub fn builder(graph: Arc<GraphAsset>) -> CharacterBuilder {
        CharacterBuilder {
            graph,
            settings: CharacterSettings::default(),
            body: None,
            landing_poses: None,
        }
    }

    fn from_builder(
        builder: CharacterBuilder,
        feet_world: Vec3,
        facing_yaw_rad: f32,
    ) -> Result<Self, CharacterError> {
        let CharacterBuilder {
            graph,
            settings,
            body,
            landing_poses,
        } = builder;
        settings.validate()?;
        let CharacterSettings {
            motion: config,
            foot_ik: foot_ik_config,
            tilt: tilt_config,
            look_at: look_at_config,
            lod: lod_config,
            lean: lean_config,
            impact: impact_config,
            query_layers,
            bone_map,
            root_motion,
        } = settings;
        if !feet_world.is_finite() || !facing_yaw_rad.is_finite() {
            return Err(CharacterError::BadSpawn);
        }
        let movement = Movement::new(facing_yaw_rad);
        let mut graph = GraphInstance::new(graph);
        if let Some(source) = root_motion {
            graph.set_root_motion(source)?;
        }
        let params = LocomotionParams::resolve(graph.params());
        let skeleton = graph.asset().skeleton();
        let pose = Pose::rest(skeleton);
        let model = ModelPose::new(pose.num_joints());
        let bones = match &bone_map {
            Some(names) => HumanoidMap::from_names(skeleton, names)?,
            None => HumanoidMap::detect(skeleton),
        };
        let foot_ik =
            crate::ik::FootRig::new(skeleton, &bones).map(|rig| FootIk::new(foot_ik_config, rig));
        let look_at_chain = LookAtChain::from_humanoid(&bones, &look_at_config);
        let contact_curves = [
            graph.asset().curve_id("FootContact_L"),
            graph.asset().curve_id("FootContact_R"),
        ];
        // Read from the clips once per graph and rig, not once per character: a crowd
        // shares them (see CharacterBuilder::landing_poses).
        let landing_poses = match (&foot_ik, landing_poses) {
            (Ok(_), Some(shared)) => shared,
            (Ok(foot_ik), None) => Arc::new(LandingPoses::new(
                graph.asset(),
                foot_ik.rig(),
                contact_curves,
            )),
            (Err(_), _) => Arc::new(LandingPoses::default()),
        };
        Ok(Self {
            foot_ik,
            animated_feet: [AnimatedFoot::default(); 2],
            contact_curves,
            foot_contact: [f32::NAN; 2],
            landing_poses,
            landing_feet: [None; 2],
            phase_last: None,
            phase_rate_per_s: 0.0,
            landing_in_s: [f32::NAN; 2],
            probe_timing: ProbeTiming::Immediate,
            probe_requests: [FootProbeRequest::default(); 2],
            probe_results: None,
            batched_started: false,
            lod: Lod::new(lod_config),
            viewer_world: None,
            look_at: LookAt::new(look_at_config),
            look_at_chain,
            look_target_world: None,
            debug: DebugDraw::new(false),
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
            query_layers,
            bone_map,
            movement,
            graph,
            params,
            body,
            feet_world,
            pending_root_motion: RootMotionDelta::ZERO,
            pose,
            model,
        })
    }

    /// Replaces the movement settings (speeds, curves, jump, capsules) from the next tick
    /// on, e.g. for a power-up; the current motion carries on. A config that does not
    /// validate is refused and the old one kept.
    pub fn set_config(&mut self, config: CharacterConfig) -> Result<(), CharacterError> {
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// Where the graph's clips set each foot down, to share with the next character of the
    /// same graph and rig ([`CharacterBuilder::landing_poses`]).
    pub fn landing_poses(&self) -> &Arc<LandingPoses> {
        &self.landing_poses
    }

    /// The settings in use now (the ones it was spawned with, as changed since).
    pub fn settings(&self) -> CharacterSettings {
        CharacterSettings {
            motion: self.config.clone(),
            foot_ik: self
                .foot_ik
                .as_ref()
                .map_or_else(|_| FootIkConfig::default(), |f| f.config),
            tilt: self.tilt.config,
            look_at: self.look_at.config,
            lod: self.lod.config,
            lean: self.lean_config,
            impact: self.impact_config,
            query_layers: self.query_layers,
            bone_map: self.bone_map.clone(),
            root_motion: self.graph.root_motion_override().cloned(),
        }
    }

    /// Changes which layers the character's queries see, from the next tick on.
    pub fn set_query_layers(&mut self, layers: QueryLayers) {
        self.query_layers = layers;
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
            layers: self.query_layers.movement,
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

        // Animation. TILT-7 as stride warping: on a slope or a flight of stairs the gait
        // plays faster by the slope scale (last tick's; 1 on flat ground and in the air) and
        // foot IK shortens the stride by as much, so the feet keep the ground speed.
        let stride_warp = self
            .foot_ik
            .as_ref()
            .is_ok_and(|f| f.config.mode != FootIkMode::None);
        let slope_scale = self
            .tilt_output
            .as_ref()
            .filter(|_| stride_warp)
            .map_or(1.0, |t| t.slope_speed_scale);
        self.graph.set_playback_scale(slope_scale);
        self.params
            .write(&self.output.vars, self.graph.params_mut());
        self.graph.tick(dt_s, &mut self.pose)?;
        self.pending_root_motion = self.graph.root_motion();
        let skeleton = self.graph.asset().skeleton();
        local_to_model(skeleton, &self.pose, &mut self.model)?;

        self.debug.clear();

        if let Some(head) = self.head {
            let (_, rotation, _) = self.model.joints_model()[head].to_scale_rotation_translation();
            self.head_rotation_anim_model = rotation;
        }
        if let (Some(pelvis), Some(neck)) = (self.pelvis, self.neck) {
            let trunk = self.model.position_model(neck) - self.model.position_model(pelvis);
            self.torso_lean_anim_rad = trunk.z.atan2(trunk.y);
        }

        // The feet as animated, before tilt moves them (foot IK keeps their lift), with the
        // stride shortened along the movement by the graph's playback scale.
        // The contact curves as blended; with foot IK, gated by the animated feet.
        let curves = self
            .contact_curves
            .map(|id| id.map_or(f32::NAN, |id| self.graph.curve(id)));
        if let Ok(foot_ik) = &self.foot_ik {
            self.animated_feet = foot_ik.rig().animated_feet(&self.model);
            self.foot_contact =
                [0, 1].map(|i| self.animated_feet[i].gated_contact(curves[i], &foot_ik.config));
            let landings = self
                .landing_poses
                .predict(self.graph.asset(), self.graph.sampled_clips());
            let mut landing_feet = landings.map(|l| l.map(|l| l.foot));
            let scale = self.graph.playback_scale();
            let v = self.output.actual_velocity_world;
            let v_model = self.facing_world().inverse() * Vec3::new(v.x, 0.0, v.z);
            if let (Some(along), true) = (v_model.try_normalize(), scale != 1.0) {
                let hips = foot_ik
                    .rig()
                    .legs
                    .map(|l| self.model.position_model(l.chain.thigh));
                for i in 0..2 {
                    warp_stride(&mut self.animated_feet[i], hips[i], along, scale);
                    if let (Some(foot), Some(landing)) = (&mut landing_feet[i], landings[i]) {
                        warp_stride(foot, landing.hip_model, along, scale);
                    }
                }
            }
            self.landing_feet = landing_feet;
        } else {
            self.foot_contact = curves;
        }
        let landing_in_s = self.time_to_landing_s(dt_s);
        self.landing_in_s = landing_in_s;
        let skeleton = self.graph.asset().skeleton();

        // Slope-aware pelvis (TILT-1..6): a rotation of the pelvis, before foot IK so the
        // feet still land.
        if let Some(pelvis) = self.pelvis {
            let facing = self.facing_world();
            let feet_world = self
                .animated_feet
                .map(|f| self.feet_world + facing * f.ankle_model);
            let input = TiltInput {
                world,
                filter: self.ground_filter(),
                root_world: self.feet_world,
                facing_yaw_rad: self.movement.facing_yaw_rad(),
                pelvis_model: self.model.position_model(pelvis),
                feet_world,
                grounded: self.output.vars.is_grounded,
                aiming: self.output.vars.aiming,
                dt_s,
            };
            let output = self.tilt.update(&input, &self.tilt_source);
            if self.debug.enabled() {
                // TILT-10: the rays, and the pelvis axes beside the target and actual tilt.
                for ray in output.frame.rays() {
                    self.debug
                        .ray_probe(ray.origin_world, ray.end_world, ray.hit.map(|h| h.point));
                }
                let pelvis_world = self.feet_world + facing * self.model.position_model(pelvis);
                let target = self
                    .tilt
                    .config
                    .posture
                    .sanitized()
                    .offsets(output.target_pitch_rad, output.target_roll_rad)
                    .pelvis_model;
                self.debug.tilt_axes(
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
                self.output.landing,
                self.output.vars.speed,
                self.output.vars.is_grounded,
                dt_s,
            );
            // The lean with the body's acceleration (into turns, with speed changes)
            // tips pelvis and trunk together, over the slope posture.
            let lean = self.lean.update(
                &self.lean_config,
                self.output.actual_velocity_world,
                self.movement.facing_yaw_rad(),
                self.output.vars.is_grounded,
                self.last_move.sliding_down_slope || self.last_move.hit_wall,
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
            if output.enabled || impact != ImpactOutput::default() || lean != LeanOutput::default()
            {
                apply_posture(
                    skeleton,
                    pelvis,
                    self.spine_base,
                    self.head.map(|head| (head, self.tilt.head_keep_fraction())),
                    offsets,
                    &self.model,
                    &mut self.pose,
                )
                .map_err(|e| CharacterError::Tilt(e.to_string()))?;
                local_to_model(skeleton, &self.pose, &mut self.model)?;
            }
            self.impact_output = impact;
            self.tilt_output = Some(output);
        }

        // LOD (IK-11): the viewer's distance picks the tier; the weight fades, never pops.
        let (lod_weight, probe_feet) = match self.viewer_world {
            Some(viewer) => {
                self.lod
                    .update(distance_to_viewer(self.feet_world, viewer), dt_s);
                (
                    self.lod.procedural_weight(),
                    [0, 1].map(|i| self.lod.probe_foot_this_tick(i)),
                )
            }
            None => (1.0, [true; 2]),
        };

        // Foot IK.
        let ground = self.ground_filter();
        if let Ok(foot_ik) = &mut self.foot_ik {
            let input = FootIkInput {
                root_world: self.feet_world,
                facing_yaw_rad: self.movement.facing_yaw_rad(),
                velocity_world: self.output.actual_velocity_world,
                grounded: self.output.vars.is_grounded,
                dt_s,
                contact_curve: self.foot_contact,
                lod_weight,
                probe_feet,
                landing_in_s,
                landing_feet_model: self.landing_feet,
            };
            let skip =
                self.viewer_world.is_some() && self.lod.tier() == LodTier::Off && lod_weight <= 0.0;
            if !skip {
                let requests = foot_ik.plan_probes(&input, &self.animated_feet);

                let results = match self.probe_timing {
                    ProbeTiming::Immediate => {
                        requests.map(|r| run_foot_probe(world, ground, &foot_ik.config.probe, &r))
                    }
                    ProbeTiming::Batched => match self.probe_results.take() {
                        Some(results) => results,
                        // The first batched tick has nothing to consume yet: it probes at
                        // once, so a new character never shows the animation's own feet.
                        None if !self.batched_started => requests
                            .map(|r| run_foot_probe(world, ground, &foot_ik.config.probe, &r)),
                        None => [FootProbeResult::NOT_RUN; 2],
                    },
                };
                if self.probe_timing == ProbeTiming::Batched {
                    self.batched_started = true;
                }
                self.probe_requests = requests;
                let output = *foot_ik.solve(
                    &input,
                    &self.animated_feet,
                    &results,
                    skeleton,
                    &mut self.pose,
                    &mut self.model,
                )?;
                if self.debug.enabled() {
                    draw_feet(&mut self.debug, &foot_ik.config.probe, &results, &output);
                }
            }
        }

        // Look-at (IK-14), after everything that moves the spine.
        if let Some(head) = self.look_at_chain.as_slice().last().map(|&(j, _)| j) {
            let head_model = self.model.position_model(head);
            self.look_at.update(
                self.look_target_world,
                self.feet_world,
                self.movement.facing_yaw_rad(),
                head_model,
                dt_s,
            );
            if self.look_at.weight() > 0.0 {
                let chain = self.look_at_chain;
                if self
                    .look_at
                    .apply(skeleton, chain.as_slice(), &self.model, &mut self.pose)
                    .is_ok()
                {
                    local_to_model(skeleton, &self.pose, &mut self.model)?;
                }
            }
        }
        Ok(())
    }

    /// How landings with horizontal speed dip the body (see [`crate::impact`]).
    pub fn landing_impact_config_mut(&mut self) -> &mut LandingImpactConfig {
        &mut self.impact_config
    }

    /// What the landing impact did in the last tick.
    pub fn impact_output(&self) -> ImpactOutput {
        self.impact_output
    }

    /// How the body leans with its acceleration (see [`crate::lean`]).
    pub fn lean_config_mut(&mut self) -> &mut LeanConfig {
        &mut self.lean_config
    }

    /// The lean of the last tick.
    pub fn lean_output(&self) -> LeanOutput {
        self.lean.output()
    }

    /// The trunk's lean as animated in the last tick, before the procedural pass: the
    /// pelvis → neck line against vertical along the facing, forward positive (rad; 0 on a
    /// rig without pelvis or neck).
    pub fn torso_lean_anim_rad(&self) -> f32 {
        self.torso_lean_anim_rad
    }

    /// What the pelvis tilt did in the last tick (`None` on a rig without a pelvis).
    pub fn tilt_output(&self) -> Option<&TiltOutput> {
        self.tilt_output.as_ref()
    }

    /// The head's model rotation as the animation had it this tick (before the procedural
    /// pass), to measure what tilt and look-at did to it.
    pub fn head_rotation_anim_model(&self) -> Quat {
        self.head_rotation_anim_model
    }

    /// Pelvis tilt settings (on/off, limits, filters, head compensation, slope speed).
    pub fn tilt_config_mut(&mut self) -> &mut TiltConfig {
        &mut self.tilt.config
    }

    /// Where the tilt's ground normal comes from (TILT-9): the ground rays, or a fixed up
    /// vector (a mount or vehicle). Hosts with their own source call
    /// [`PelvisTilt::update`] themselves.
    pub fn set_tilt_source(&mut self, source: NormalSourceChoice) {
        self.tilt_source = source;
    }

    /// Where the viewer (camera) is, for LOD tiers (IK-11); `None` = always full detail.
    pub fn set_viewer(&mut self, viewer_world: Option<Vec3>) {
        self.viewer_world = viewer_world.filter(|v| v.is_finite());
    }

    /// LOD settings and state.
    pub fn lod(&self) -> &Lod {
        &self.lod
    }

    pub fn set_lod_config(&mut self, config: LodConfig) {
        self.lod = Lod::new(config);
    }

    /// A point for head and spine to turn toward (IK-14); `None` eases back to the
    /// animation.
    pub fn set_look_target(&mut self, target_world: Option<Vec3>) {
        self.look_target_world = target_world.filter(|t| t.is_finite());
    }

    pub fn look_at(&self) -> &LookAt {
        &self.look_at
    }

    /// Turns debug draw (IK-12) on or off; the commands of each tick are in
    /// [`Character::debug_draw`].
    pub fn set_debug_draw(&mut self, enabled: bool) {
        self.debug.set_enabled(enabled);
    }

    pub fn debug_draw(&self) -> &DebugDraw {
        &self.debug
    }

    /// The foot IK stage, or why this rig has none.
    pub fn foot_ik(&self) -> Result<&FootIk, &FootIkError> {
        self.foot_ik.as_ref()
    }

    /// Foot IK settings (mode, probes, pelvis, lock), when the rig has foot IK.
    pub fn foot_ik_config_mut(&mut self) -> Option<&mut FootIkConfig> {
        self.foot_ik.as_mut().ok().map(|f| &mut f.config)
    }

    /// Switches the foot IK mode (no-op on a rig without foot IK).
    pub fn set_foot_ik_mode(&mut self, mode: FootIkMode) {
        if let Some(config) = self.foot_ik_config_mut() {
            config.mode = mode;
        }
    }

    /// What foot IK did in the last tick (`None` on a rig without foot IK).
    pub fn foot_ik_output(&self) -> Option<&FootIkOutput> {
        self.foot_ik.as_ref().ok().map(|f| f.output())
    }

    /// IK-10: moving with no ground where the feet are about to land (e.g. a gap's edge).
    /// Movement or AI code can jump on it.
    pub fn no_support_ahead(&self) -> bool {
        self.foot_ik_output().is_some_and(|o| o.no_support_ahead)
    }

    /// Each foot's contact weight of the last tick (0..1; left, right): the animation's
    /// `FootContact_*` curves as blended, counting only while the animated foot is down.
    /// NaN when the graph has no contact curves. Foot IK, landing timing and the lab's
    /// stance all read this.
    pub fn foot_contact(&self) -> [f32; 2] {
        self.foot_contact
    }

    /// The animated feet of the last tick (model space, before IK).
    pub fn animated_feet(&self) -> &[AnimatedFoot; 2] {
        &self.animated_feet
    }

    pub fn set_probe_timing(&mut self, timing: ProbeTiming) {
        self.probe_timing = timing;
        self.probe_results = None;
        self.batched_started = false;
    }

    /// The probes the last tick asked for (batched timing runs them between ticks).
    pub fn probe_requests(&self) -> &[FootProbeRequest; 2] {
        &self.probe_requests
    }

    /// Hands the results of [`Character::probe_requests`] to the next tick.
    pub fn set_probe_results(&mut self, results: [FootProbeResult; 2]) {
        self.probe_results = Some(results);
    }

    /// How long until each foot lands (s; left, right) as of the last tick, read ahead on
    /// the animation's contact curves: 0 for a foot in contact, NaN when the graph has no
    /// contact curves. With [`Character::foot_ik_output`]'s predicted points, where and
    /// when the feet come down (IK-10).
    pub fn landing_in_s(&self) -> [f32; 2] {
        self.landing_in_s
    }

    /// IK-1: how long until each foot lands (s), read ahead on the contact curve of the
    /// clip that weighs most, at the rate its phase moved last tick; 0 while the foot is in
    /// contact. NaN when the clip has no contact curve or the rate is not known yet.
    fn time_to_landing_s(&mut self, dt_s: f32) -> [f32; 2] {
        let dominant = self
            .graph
            .sampled_clips()
            .iter()
            .copied()
            .max_by(|a, b| a.weight.total_cmp(&b.weight));
        let Some(sampled) = dominant.filter(|s| s.normalized_time.is_finite()) else {
            self.phase_last = None;
            return [f32::NAN; 2];
        };
        let phase = sampled.normalized_time;
        let asset = self.graph.asset();
        let duration_s = asset.clips()[sampled.clip].duration_s();
        // The phase rate, measured while the same clip leads; else its own clock.
        self.phase_rate_per_s = match self.phase_last {
            Some((last_clip, last_phase)) if last_clip == sampled.clip && dt_s > 0.0 => {
                let moved = (phase - last_phase).rem_euclid(1.0);
                if moved < 0.5 {
                    moved / dt_s
                } else {
                    self.phase_rate_per_s
                }
            }
            _ if duration_s > 0.0 => self.graph.playback_scale() / duration_s,
            _ => 0.0,
        };
        self.phase_last = Some((sampled.clip, phase));
        let rate = self.phase_rate_per_s;
        let contact = self.foot_contact;
        [0, 1].map(|i| {
            let Some(id) = self.contact_curves[i] else {
                return f32::NAN;
            };
            // In contact by the same contact foot IK reads.
            if contact[i] >= 0.5 {
                return 0.0;
            }
            if rate.is_nan() || rate <= 0.0 {
                return f32::NAN;
            }
            asset
                .phase_to_curve_rise(sampled.clip, id, phase)
                .map_or(f32::NAN, |ahead| ahead / rate)
        })
    }
    /// Ground layers, this character's own collider left out: what foot and tilt probes see.
    fn ground_filter(&self) -> QueryFilter {
        QueryFilter {
            layers: self.query_layers.ground,
            exclude: self.body,
        }
    }

    /// The probe settings and filter a batch runner should use for this character.
    pub fn probe_setup(&self) -> Option<(crate::ik::ProbeConfig, QueryFilter)> {
        let foot_ik = self.foot_ik.as_ref().ok()?;
        Some((foot_ik.config.probe, self.ground_filter()))
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

/// TILT-7 as stride warping: the foot's reach ahead of or behind its hip along the movement
/// (`along`, model space) shortened by the playback `scale`, moving the foot as a whole (its
/// heel-to-ball length stays).
fn warp_stride(foot: &mut AnimatedFoot, hip_model: Vec3, along: Vec3, scale: f32) {
    let reach = (foot.ankle_model - hip_model).dot(along);
    let shift = -along * (reach * (1.0 - 1.0 / scale));
    foot.ankle_model += shift;
    foot.heel_model += shift;
    foot.ball_model += shift;
}

/// IK-12: each probe ray (green hit, red miss, hit points), the predicted landing points and
/// the ankle targets.
fn draw_feet(
    debug: &mut DebugDraw,
    probe: &crate::ik::ProbeConfig,
    results: &[FootProbeResult; 2],
    output: &FootIkOutput,
) {
    let up = Vec3::Y * probe.probe_up_m;
    let down = Vec3::Y * probe.probe_down_m;
    for (result, report) in results.iter().zip(&output.feet) {
        if !result.ran {
            continue;
        }
        let hits = [
            (result.heel, result.predicted_world),
            (result.toe, result.predicted_world),
        ];
        for (hit, at) in hits {
            let point = hit.map_or(at, |h| Vec3::new(h.point.x, at.y, h.point.z));
            debug.ray_probe(point + up, point - down, hit.map(|h| h.point));
        }
        debug.predicted_point(result.predicted_world);
        debug.sphere(
            report.ankle_target_world,
            0.02,
            crate::debug::Rgba::PREDICTED,
        );
    }
}

/// Runs every character's pending probe requests (SPEC IK-13) as one batch, split over
/// `threads` scoped threads (1 = on this thread), and hands each its results for its next
/// tick. Needs a world that can be queried from several threads.
pub fn run_probe_batch(world: &(dyn World + Sync), characters: &mut [Character], threads: usize) {
    let run = |chunk: &mut [Character]| {
        for c in chunk {
            if let Some((config, filter)) = c.probe_setup() {
                let requests = c.probe_requests;
                c.set_probe_results(requests.map(|r| run_foot_probe(world, filter, &config, &r)));
            }
        }
    };
    let threads = threads.clamp(1, 64);
    if threads == 1 || characters.len() < 2 {
        run(characters);
        return;
    }
    let chunk = characters.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for part in characters.chunks_mut(chunk) {
            scope.spawn(move || run(part));
        }
    });
}

/// How a character is set up before it is spawned ([`Character::builder`]).
#[derive(Clone, Debug)]
pub struct CharacterBuilder {
    graph: Arc<GraphAsset>,
    settings: CharacterSettings,
    body: Option<BodyId>,
    landing_poses: Option<Arc<LandingPoses>>,
}

impl CharacterBuilder {
    /// Its whole setup (default: [`CharacterSettings::default`]).
    pub fn settings(mut self, settings: CharacterSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Its bones by name, in place of detection (also settable as `settings.bone_map`).
    pub fn bone_map(mut self, names: BoneNames) -> Self {
        self.settings.bone_map = Some(names);
        self
    }

    /// Its own collider in the world, which its queries skip.
    pub fn body(mut self, body: BodyId) -> Self {
        self.body = Some(body);
        self
    }

    /// Where the graph's clips set each foot down, read once and shared by every character
    /// of the same graph and rig ([`Character::landing_poses`] of the first one): a crowd
    /// reads the clips once, not once per character.
    pub fn landing_poses(mut self, shared: Arc<LandingPoses>) -> Self {
        self.landing_poses = Some(shared);
        self
    }

    /// The character, standing at `feet_world` facing `facing_yaw_rad` (world yaw; 0 faces
    /// +Z). Settings that do not validate, a bone map naming joints the skeleton lacks, a
    /// root-motion joint it lacks or a non-finite spawn are errors.
    pub fn spawn(self, feet_world: Vec3, facing_yaw_rad: f32) -> Result<Character, CharacterError> {
        Character::from_builder(self, feet_world, facing_yaw_rad)
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
    use crate::course::{AnalyticWorld, Course};

    /// The mannequin with the default graph, standing at the spawn of `section`.
    fn mannequin_on(course: &Course, section: &str) -> Character {
        let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
        let spawn = course.section(section).unwrap().spawn_world;
        Character::new(CharacterConfig::default(), graph, spawn, 0.0).unwrap()
    }

    #[test]
    fn debug_draw_shows_probes_and_tilt_when_enabled() {
        use crate::debug::DebugCommand;
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let mut c = mannequin_on(&course, "ramp_20deg");
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        assert!(c.debug_draw().commands().is_empty(), "off by default");
        c.set_debug_draw(true);
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        let commands = c.debug_draw().commands();
        let lines = commands
            .iter()
            .filter(|d| matches!(d, DebugCommand::Line { .. }))
            .count();
        let spheres = commands
            .iter()
            .filter(|d| matches!(d, DebugCommand::Sphere { .. }))
            .count();
        let axes = commands
            .iter()
            .filter(|d| matches!(d, DebugCommand::Axes { .. }))
            .count();
        // 3 tilt rays + 2 probe rays per foot; hit spheres, predicted points, targets;
        // pelvis, target and actual tilt axes.
        assert!(lines >= 3 + 4, "{lines} lines");
        assert!(spheres >= 4, "{spheres} spheres");
        assert_eq!(axes, 3);
        // Cleared every tick, not accumulated.
        let count = commands.len();
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        assert_eq!(c.debug_draw().commands().len(), count);
    }

    #[test]
    fn landing_time_is_read_ahead_on_the_contact_curve() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let dt = 1.0 / 60.0;
        // Walking and running down the 12 m flat lane, timed after the start-up.
        for (speed, ticks) in [(0.5f32, 300), (1.0, 150)] {
            let mut c = mannequin_on(&course, "flat");
            let intent = Intent {
                move_world: glam::Vec2::new(0.0, speed),
                ..Intent::IDLE
            };
            let mut predicted = Vec::new();
            let mut contact = Vec::new();
            for tick in 0..ticks {
                c.tick(dt, &intent, &world).unwrap();
                if tick >= 60 {
                    predicted.push(c.landing_in_s());
                    contact.push(c.foot_contact().map(|w| w >= 0.5));
                }
            }
            let mut checked = 0;
            for foot in 0..2 {
                for (i, p) in predicted.iter().enumerate() {
                    let p = p[foot];
                    assert!(
                        p.is_finite() && p >= 0.0,
                        "{speed}: {p} tick {i} foot {foot}"
                    );
                    assert_eq!(p == 0.0, contact[i][foot], "{speed}: tick {i}: {p}");
                    let Some(j) = (i + 1..contact.len()).find(|&j| contact[j][foot]) else {
                        continue;
                    };
                    if p > 0.0 {
                        let actual = (j - i) as f32 * dt;
                        assert!(
                            (p - actual).abs() <= 1.5 * dt,
                            "{speed}: foot {foot} tick {i}: predicted {p} s, lands in {actual} s"
                        );
                        checked += 1;
                    }
                }
            }
            assert!(
                checked > 40,
                "{speed}: only {checked} swinging ticks checked"
            );
        }
    }

    #[test]
    fn characters_of_one_graph_share_its_touch_downs_when_told() {
        let course = Course::default_course();
        let a = mannequin_on(&course, "flat");
        let b = Character::builder(a.graph().asset().clone())
            .landing_poses(a.landing_poses().clone())
            .spawn(Vec3::ZERO, 0.0)
            .unwrap();
        assert!(Arc::ptr_eq(a.landing_poses(), b.landing_poses()));
        // Read again, they come out the same.
        let c = Character::new(
            CharacterConfig::default(),
            a.graph().asset().clone(),
            Vec3::ZERO,
            0.0,
        )
        .unwrap();
        assert_eq!(**a.landing_poses(), **c.landing_poses());
    }

    #[test]
    fn the_builder_takes_settings_a_bone_map_and_a_root_motion_source() {
        let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
        let mut settings = CharacterSettings::default();
        settings.motion.walk_speed_m_s = 1.5;
        settings.look_at.yaw_limit_rad = 0.5;
        settings.query_layers.ground =
            crate::world::Layers::GROUND.union(crate::world::Layers::PROPS);
        settings.root_motion = Some(crate::graph::RootMotionDef {
            joint: Some("pelvis".into()),
            ..Default::default()
        });
        let names = crate::bone_map::BoneNames {
            pelvis: Some("pelvis".into()),
            thigh_l: Some("thigh_l".into()),
            calf_l: Some("calf_l".into()),
            foot_l: Some("foot_l".into()),
            ball_l: Some("ball_l".into()),
            thigh_r: Some("thigh_r".into()),
            calf_r: Some("calf_r".into()),
            foot_r: Some("foot_r".into()),
            ball_r: Some("ball_r".into()),
            ..Default::default()
        };
        let c = Character::builder(graph.clone())
            .settings(settings.clone())
            .bone_map(names.clone())
            .body(BodyId(7))
            .spawn(Vec3::new(1.0, 0.0, 2.0), 0.3)
            .unwrap();
        assert!(
            c.foot_ik().is_ok(),
            "an explicit map with both legs gets foot IK"
        );
        let back = c.settings();
        assert_eq!(back.motion.walk_speed_m_s, 1.5);
        assert_eq!(back.look_at.yaw_limit_rad, 0.5);
        assert_eq!(back.query_layers, settings.query_layers);
        assert_eq!(back.bone_map, Some(names));
        assert_eq!(back.root_motion, settings.root_motion);
        assert_eq!(
            c.graph().root_motion_source().joint.as_deref(),
            Some("pelvis")
        );
        assert_eq!(c.ground_filter().layers, settings.query_layers.ground);
        assert_eq!(c.ground_filter().exclude, Some(BodyId(7)));
    }

    #[test]
    fn the_builder_refuses_what_it_cannot_use() {
        let graph = Arc::new(crate::mannequin::Mannequin::new().default_graph().unwrap());
        let bad_bone = Character::builder(graph.clone())
            .bone_map(crate::bone_map::BoneNames {
                pelvis: Some("no_such_bone".into()),
                ..Default::default()
            })
            .spawn(Vec3::ZERO, 0.0)
            .unwrap_err();
        assert!(matches!(bad_bone, CharacterError::BoneMap(_)), "{bad_bone}");
        let settings = CharacterSettings {
            root_motion: Some(crate::graph::RootMotionDef {
                joint: Some("tail".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let bad_root = Character::builder(graph.clone())
            .settings(settings)
            .spawn(Vec3::ZERO, 0.0)
            .unwrap_err();
        assert!(bad_root.to_string().contains("tail"), "{bad_root}");
        let mut settings = CharacterSettings::default();
        settings.foot_ik.contact_ease_s = f32::NAN;
        let bad_value = Character::builder(graph.clone())
            .settings(settings)
            .spawn(Vec3::ZERO, 0.0)
            .unwrap_err();
        assert!(
            matches!(bad_value, CharacterError::Settings(_)),
            "{bad_value}"
        );
        let bad_spawn = Character::builder(graph)
            .spawn(Vec3::new(f32::NAN, 0.0, 0.0), 0.0)
            .unwrap_err();
        assert_eq!(bad_spawn, CharacterError::BadSpawn);
    }

    #[test]
    fn on_a_beam_narrower_than_the_stance_the_feet_come_in_and_stay_on_it() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let dt = 1.0 / 60.0;
        let mut c = mannequin_on(&course, "beam_narrow");
        let beam_x = course.section("beam_narrow").unwrap().spawn_world.x;
        let intent = Intent {
            move_world: glam::Vec2::new(0.0, 0.5),
            ..Intent::IDLE
        };
        let legs = c.foot_ik().unwrap().rig().legs;
        let mut planted_on_beam = 0;
        let mut was_locked = [false; 2];
        for _ in 0..300 {
            c.tick(dt, &intent, &world).unwrap();
            let root = c.feet_world();
            let out = *c.foot_ik_output().unwrap();
            let locked = [0, 1].map(|i| out.feet[i].locked);
            let previous = std::mem::replace(&mut was_locked, locked);
            // Well onto the 12 cm beam (z 3–9), the body on it.
            if !(4.0..8.0).contains(&root.z) || (root.y - 0.5).abs() > 0.01 {
                continue;
            }
            let was_locked = previous;
            for (i, leg) in legs.iter().enumerate() {
                if !out.feet[i].locked {
                    continue;
                }
                let sole =
                    |socket| c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket));
                let (heel, ball) = (
                    sole(leg.sockets.heel_foot_local),
                    sole(leg.sockets.ball_foot_local),
                );
                // Brought in over the beam (half width 6 cm), standing on its top (the heel
                // first, as a walk lands).
                for p in [heel, ball] {
                    assert!(
                        (p.x - beam_x).abs() < 0.06,
                        "foot {i} at x {}",
                        p.x - beam_x
                    );
                }
                // Mid-stance (not rolling onto or off the ball), on the beam's top.
                let lower = heel.y.min(ball.y);
                if was_locked[i] && out.feet[i].contact > 0.95 {
                    assert!((lower - 0.5).abs() < 0.01, "foot {i} at y {lower}");
                }
                planted_on_beam += 1;
            }
        }
        assert!(
            planted_on_beam > 60,
            "{planted_on_beam} planted foot-ticks checked"
        );
    }

    #[test]
    fn a_swinging_foot_probes_where_the_clips_set_it_down() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let dt = 1.0 / 60.0;
        // Worst horizontal miss (m) of the predicted landing (the middle of the heel and
        // ball probes) against where heel and ball are when the foot locks, over the
        // ticks with 0.05–0.25 s of swing left, walking and running on flat ground.
        let worst_miss_m = |from_clips: bool, speed: f32| {
            let mut c = mannequin_on(&course, "flat");
            c.foot_ik_config_mut().unwrap().landing_from_clips = from_clips;
            let intent = Intent {
                move_world: glam::Vec2::new(0.0, speed),
                ..Intent::IDLE
            };
            let legs = c.foot_ik().unwrap().rig().legs;
            let mut pending: [Vec<Vec3>; 2] = Default::default();
            let mut was_locked = [true; 2];
            let (mut worst, mut checked) = (0.0f32, 0);
            for tick in 0..240 {
                c.tick(dt, &intent, &world).unwrap();
                let out = *c.foot_ik_output().unwrap();
                for (i, leg) in legs.iter().enumerate() {
                    let report = out.feet[i];
                    let landing_in_s = c.landing_in_s()[i];
                    if (0.05..=0.25).contains(&landing_in_s) && tick >= 60 && !report.locked {
                        pending[i].extend(report.predicted_world);
                    }
                    if report.locked && !was_locked[i] {
                        let sole = |socket| {
                            c.model_to_world(c.model_pose().point_model(leg.chain.foot, socket))
                        };
                        let landed = 0.5
                            * (sole(leg.sockets.heel_foot_local)
                                + sole(leg.sockets.ball_foot_local));
                        for p in pending[i].drain(..) {
                            let miss = glam::Vec2::new(p.x - landed.x, p.z - landed.z).length();
                            worst = worst.max(miss);
                            checked += 1;
                        }
                    }
                    was_locked[i] = report.locked;
                }
            }
            assert!(checked > 20, "{speed}: only {checked} ticks checked");
            worst
        };
        for speed in [0.5f32, 1.0] {
            let from_clips = worst_miss_m(true, speed);
            let ik1 = worst_miss_m(false, speed);
            assert!(
                from_clips < 0.01,
                "{speed}: from the clips, missed by {from_clips} m"
            );
            // IK-1 alone is short by the foot's own travel ahead of the body.
            assert!(ik1 > 0.1, "{speed}: IK-1 alone missed by only {ik1} m");
        }
    }

    #[test]
    fn the_first_batched_tick_probes_at_once_and_later_ones_wait_for_results() {
        let course = Course::default_course();
        let world = AnalyticWorld::new(&course);
        let mut c = mannequin_on(&course, "ramp_20deg");
        c.set_probe_timing(ProbeTiming::Batched);
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        let first = *c.foot_ik_output().unwrap();
        assert!(first.rays_cast > 0, "first tick: {first:?}");
        assert!(first.feet.iter().all(|f| f.ik_alpha > 0.99), "{first:?}");
        // Later ticks cast nothing themselves: they consume what the host hands back.
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        assert_eq!(c.foot_ik_output().unwrap().rays_cast, 0);
        let results = c.probe_requests().map(|r| {
            run_foot_probe(
                &world,
                c.ground_filter(),
                &FootIkConfig::default().probe,
                &r,
            )
        });
        c.set_probe_results(results);
        c.tick(1.0 / 60.0, &Intent::IDLE, &world).unwrap();
        assert!(c.foot_ik_output().unwrap().rays_cast > 0);
    }

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
