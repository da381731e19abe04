//! One character (SPEC §0): settings plus state, and `tick(dt, intent, &world)`, which runs
//! its stages in order, each a module that owns its state:
//!
//! - `locomotion`: intent → movement plan → collide-and-slide in the world → movement
//!   apply (actual speed, grounded, landing, push-wall);
//! - `animator`: locomotion variables → animation graph → local pose (root motion kept for
//!   the next tick's move) → model-space pose;
//! - `foot_placement` reads the animation: the feet as animated, contacts, where and when
//!   each lands, the stride warped on slopes;
//! - `posture`: slope tilt, landing impact and lean on pelvis and trunk;
//! - `foot_placement` again: probes and foot IK (support planes, lock, pelvis drop,
//!   two-bone legs);
//! - `look`: head and spine toward a target → final model-space pose.
//!
//! Every stage is plain data in and out; the character only owns the stages. The world
//! is only queried: a host that keeps the character's collider in its physics world moves it
//! to [`Character::feet_world`] after the tick.

mod animator;
mod foot_placement;
mod locomotion;
mod look;
mod posture;

use std::sync::Arc;

use glam::{Quat, Vec3};

use animator::{AnimationLod, Animator};
use foot_placement::{FootPlacement, PlacementInput};
use locomotion::Locomotion;
pub use locomotion::TELEPORT_DETECT_M;
use look::Look;
use posture::Posture;

use crate::bone_map::{BoneMapError, BoneNames, HumanoidMap};
use crate::debug::DebugDraw;
use crate::graph::{GraphAsset, GraphError, GraphEvent, GraphInstance, RootMotionDef, RootSource};
use crate::ik::look_at::{LookAt, LookAtChain};
use crate::ik::{
    run_foot_probe, AnimatedFoot, FootIk, FootIkConfig, FootIkError, FootIkMode, FootIkOutput,
    FootProbeRequest, FootProbeResult, LandingPoses,
};
use crate::impact::{ImpactOutput, LandingImpactConfig};
use crate::lean::{LeanConfig, LeanOutput};
use crate::lod::{distance_to_viewer, Lod, LodConfig, LodTier};
use crate::motion::{CharacterConfig, ConfigError, Intent, Movement, MovementOutput};
use crate::pose::{blend_layer, local_to_model, ModelPose, Pose, PoseError};
use crate::settings::{CharacterSettings, QueryLayers, SettingsError};
use crate::tilt::{NormalSourceChoice, TiltConfig, TiltOutput};
use crate::world::{
    BodyId, CharacterPhysics, GroundFollow, MoveResult, QueryFilter, SpatialQueries,
};

/// Why a character could not be made or ticked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CharacterError {
    #[error("character config: {0}")]
    Config(ConfigError),
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
    Settings(SettingsError),
    #[error("bone map: {0}")]
    BoneMap(BoneMapError),
    #[error(
        "settings: {field} decides how the rig was bound at spawn and cannot change on a \
         live character; spawn a new one"
    )]
    RespawnNeeded { field: &'static str },
    #[error("teleport to {feet_world} facing {facing_yaw_rad:?}: not a finite place")]
    Teleport {
        feet_world: Vec3,
        facing_yaw_rad: Option<f32>,
    },
    #[error("lod_culled_joints: '{name}' {why}")]
    CulledJoint { name: String, why: &'static str },
    #[error("tick stages out of order: {called:?} was called while {due:?} was due")]
    StageOrder { due: TickStage, called: TickStage },
}

from_cause_in_message!(BoneMapError => CharacterError::BoneMap);

from_cause_in_message!(SettingsError => CharacterError::Settings);

from_cause_in_message!(ConfigError => CharacterError::Config);

/// The joints `names` culls (see [`CharacterSettings::lod_culled_joints`]), as skeleton
/// indices: each must be a joint of the rig, and neither a bone of the humanoid map nor
/// above one (culled, it would move the legs the foot IK solves, or the spine the tilt
/// bends), nor the root-motion joint.
fn resolve_culled_joints(
    graph: &GraphInstance,
    bones: &HumanoidMap,
    names: &[String],
) -> Result<Vec<usize>, CharacterError> {
    let skeleton = graph.asset().skeleton();
    let mapped = bones.joints();
    let mut joints = Vec::with_capacity(names.len());
    for name in names {
        let refuse = |why| CharacterError::CulledJoint {
            name: name.clone(),
            why,
        };
        let joint = skeleton
            .find(name)
            .ok_or_else(|| refuse("is not a joint of the rig"))?;
        if joint == graph.root_motion_joint() {
            return Err(refuse("is the root-motion joint"));
        }
        if mapped
            .iter()
            .any(|&m| skeleton.is_ancestor_or_self(joint, m))
        {
            return Err(refuse("is a bone of the humanoid map, or holds one up"));
        }
        joints.push(joint);
    }
    Ok(joints)
}

/// The three stages of a tick, run in this order (see [`Character::tick`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TickStage {
    /// [`Character::tick_movement`].
    Movement,
    /// [`Character::tick_animation`].
    Animation,
    /// [`Character::tick_procedural`].
    Procedural,
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

/// A character: a pipeline of owned stages, one per step of the tick (SPEC §0).
#[derive(Clone, Debug)]
pub struct Character {
    /// Movement, the capsule's place, the last move and the root motion for the next.
    locomotion: Locomotion,
    /// Graph instance, parameter handles and pose buffers.
    animator: Animator,
    /// Foot IK, landing prediction, phase tracking, stride warp and probe timing.
    feet: FootPlacement,
    /// Tilt, landing impact and lean.
    posture: Posture,
    /// Head and spine look-at.
    look: Look,
    /// LOD tier by distance to the viewer (IK-11); full detail while no viewer is set.
    lod: Lod,
    viewer_world: Option<Vec3>,
    /// Debug draw commands of the last tick (IK-12), when enabled.
    debug: DebugDraw,
    /// The layers the character's queries see, and its own collider, which they skip.
    query_layers: QueryLayers,
    body: Option<BodyId>,
    /// The joints it culls beyond full detail, as it was given them.
    lod_culled_joints: Vec<String>,
    /// The bone map it was given (`None`: detected).
    bone_map: Option<BoneNames>,
    /// The root-motion source it was given (`None`: the graph's, or the one that fits a
    /// rig starting at its pelvis).
    root_motion: Option<RootMotionDef>,
    /// The stage due next, and the tick's `dt_s` as its movement stage was given it.
    next_stage: TickStage,
    stage_dt_s: f32,
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
            lod_culled_joints,
            lean: lean_config,
            impact: impact_config,
            query_layers,
            bone_map,
            root_motion,
        } = settings;
        if !feet_world.is_finite() || !facing_yaw_rad.is_finite() {
            return Err(CharacterError::BadSpawn);
        }
        let mut graph = GraphInstance::new(graph);
        let skeleton = graph.asset().skeleton();
        let bones = match &bone_map {
            Some(names) => HumanoidMap::from_names(skeleton, names)?,
            None => HumanoidMap::detect(skeleton),
        };
        // Root motion as given; else the graph's, unless the graph names no joint and the
        // rig starts at its pelvis (whose bob would lift the capsule).
        let given_root_motion = root_motion.clone();
        let fitting = match (&root_motion, &graph.asset().root_motion.joint) {
            (Some(given), _) => Some(given.clone()),
            (None, Some(_)) => None,
            (None, None) => RootSource::of(skeleton, &bones)
                .and_then(|source| source.root_motion(skeleton, graph.asset().clips())),
        };
        if let Some(source) = fitting {
            graph.set_root_motion(source)?;
        }
        let culled = resolve_culled_joints(&graph, &bones, &lod_culled_joints)?;
        let skeleton = graph.asset().skeleton();
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
            (Ok(foot_ik), None) => Arc::new(LandingPoses::for_graph(
                &graph,
                foot_ik.rig(),
                contact_curves,
            )),
            (Err(_), _) => Arc::new(LandingPoses::default()),
        };
        // Characters spawned in different places get different animation LOD phases.
        let mut animator = Animator::new(graph, spawn_phase(feet_world));
        animator.set_culled_joints(culled)?;
        Ok(Self {
            locomotion: Locomotion::new(config, feet_world, facing_yaw_rad),
            feet: FootPlacement::new(foot_ik, contact_curves, landing_poses),
            posture: Posture::new(&bones, tilt_config, impact_config, lean_config),
            look: Look::new(LookAt::new(look_at_config), look_at_chain),
            animator,
            lod: Lod::new(lod_config),
            lod_culled_joints,
            viewer_world: None,
            debug: DebugDraw::new(false),
            query_layers,
            body,
            bone_map,
            root_motion: given_root_motion,
            next_stage: TickStage::Movement,
            stage_dt_s: 0.0,
        })
    }

    /// Replaces the movement settings (speeds, curves, jump, capsules) from the next tick
    /// on, e.g. for a power-up; the current motion carries on. A config that does not
    /// validate is refused and the old one kept.
    pub fn set_config(&mut self, config: CharacterConfig) -> Result<(), CharacterError> {
        config.validate()?;
        self.locomotion.config = config;
        Ok(())
    }

    /// Where the graph's clips set each foot down, to share with the next character of the
    /// same graph and rig ([`CharacterBuilder::landing_poses`]).
    pub fn landing_poses(&self) -> &Arc<LandingPoses> {
        &self.feet.landing_poses
    }

    /// The settings in use now (the ones it was spawned with, as changed since).
    pub fn settings(&self) -> CharacterSettings {
        CharacterSettings {
            motion: self.locomotion.config.clone(),
            foot_ik: self
                .feet
                .foot_ik
                .as_ref()
                .map_or_else(|_| FootIkConfig::default(), |f| f.config),
            tilt: self.posture.tilt.config,
            look_at: self.look.look_at.config,
            lod: self.lod.config,
            lod_culled_joints: self.lod_culled_joints.clone(),
            lean: self.posture.lean_config,
            impact: self.posture.impact_config,
            query_layers: self.query_layers,
            bone_map: self.bone_map.clone(),
            root_motion: self.root_motion.clone(),
        }
    }

    /// Replaces the whole setup from the next tick on (e.g. edited in an inspector): the
    /// movement as [`Character::set_config`] does, the foot IK settings (mode included, as
    /// [`Character::set_foot_ik_mode`] would switch it; ignored on a rig without foot IK),
    /// tilt, look-at (its chain rebuilt when its weights change), LOD, lean, landing impact
    /// and query layers. Each stage's state carries on (locks, filters, LOD tier).
    ///
    /// Settings that do not [validate](CharacterSettings::validate) are refused and nothing
    /// changes. So are a different `bone_map` or `root_motion`, which decide how the rig was
    /// bound at spawn: [`CharacterError::RespawnNeeded`] names the field.
    pub fn set_settings(&mut self, settings: CharacterSettings) -> Result<(), CharacterError> {
        settings.validate()?;
        if settings.bone_map != self.bone_map {
            return Err(CharacterError::RespawnNeeded { field: "bone_map" });
        }
        if settings.root_motion != self.root_motion {
            return Err(CharacterError::RespawnNeeded {
                field: "root_motion",
            });
        }
        if settings.lod_culled_joints != self.lod_culled_joints {
            return Err(CharacterError::RespawnNeeded {
                field: "lod_culled_joints",
            });
        }
        // The one step that can fail, before anything changes.
        let look_at_chain = if settings.look_at != self.look.look_at.config {
            let skeleton = self.animator.graph.asset().skeleton();
            let bones = match &self.bone_map {
                Some(names) => HumanoidMap::from_names(skeleton, names)?,
                None => HumanoidMap::detect(skeleton),
            };
            Some(LookAtChain::from_humanoid(&bones, &settings.look_at))
        } else {
            None
        };
        let CharacterSettings {
            motion,
            foot_ik,
            tilt,
            look_at,
            lod,
            lod_culled_joints: _,
            lean,
            impact,
            query_layers,
            bone_map: _,
            root_motion: _,
        } = settings;
        self.locomotion.config = motion;
        if let Some(config) = self.foot_ik_config_mut() {
            *config = foot_ik;
        }
        self.posture.tilt.config = tilt;
        self.look.look_at.config = look_at;
        if let Some(chain) = look_at_chain {
            self.look.set_chain(chain);
        }
        self.lod.config = lod;
        self.posture.lean_config = lean;
        self.posture.impact_config = impact;
        self.query_layers = query_layers;
        Ok(())
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

    /// Runs one fixed tick of `dt_s` seconds (see the module docs for the stage order):
    /// [`Character::tick_movement`], [`Character::tick_animation`] and
    /// [`Character::tick_procedural`] in turn. `dt_s` is sanitised (NaN → 0, clamped to
    /// `motion::MAX_TICK_S`) by the stages.
    pub fn tick(
        &mut self,
        dt_s: f32,
        intent: &Intent,
        world: &dyn CharacterPhysics,
    ) -> Result<(), CharacterError> {
        self.tick_movement(dt_s, intent, world)?;
        self.tick_animation()?;
        self.tick_procedural(world)
    }

    /// The tick's first stage: intent → movement → collide-and-slide in `world`. Always
    /// allowed: it starts a new tick (a tick left unfinished is abandoned, its pose kept).
    /// Hosts that schedule the stages separately (a Bevy system each) call the three stages
    /// in order, once each; [`Character::tick`] does exactly that.
    pub fn tick_movement(
        &mut self,
        dt_s: f32,
        intent: &Intent,
        world: &dyn CharacterPhysics,
    ) -> Result<(), CharacterError> {
        let movement_filter = QueryFilter {
            layers: self.query_layers.movement,
            exclude: self.body,
        };
        self.debug.clear();
        self.stage_dt_s = dt_s;
        // Movement LOD: far away, the cheap ground follow, when the settings ask for it.
        let follow = GroundFollow::new(world);
        let world: &dyn CharacterPhysics =
            if self.lod_tier() == LodTier::Off && self.lod.config.ground_follow_when_off {
                &follow
            } else {
                world
            };
        if self.locomotion.step(dt_s, intent, world, movement_filter) {
            self.forget_place();
        }
        self.next_stage = TickStage::Animation;
        Ok(())
    }

    /// Moves the character to `feet_world` (the capsule's bottom, world space) in one go,
    /// facing `facing_yaw_rad` (world yaw; `None` keeps its facing), at rest as at spawn:
    /// a spawn point, a respawn, a cutscene's mark. What it carried from the old place is
    /// forgotten: foot locks, support planes and smoothing, the landing prediction and
    /// probe results, pelvis tilt, the landing dip, lean and the look-at's turn. No foot
    /// stays behind and nothing eases in from there. Call it between ticks; the next tick
    /// starts there. A move the physics makes of more than
    /// [`TELEPORT_DETECT_M`] further than the one asked for resets the same way.
    /// Non-finite input is an error and changes nothing.
    pub fn teleport(
        &mut self,
        feet_world: Vec3,
        facing_yaw_rad: Option<f32>,
    ) -> Result<(), CharacterError> {
        let yaw = facing_yaw_rad.unwrap_or(self.locomotion.movement.facing_yaw_rad());
        if !(feet_world.is_finite() && yaw.is_finite()) {
            return Err(CharacterError::Teleport {
                feet_world,
                facing_yaw_rad,
            });
        }
        self.locomotion.teleport(feet_world, yaw);
        self.forget_place();
        self.next_stage = TickStage::Movement;
        Ok(())
    }

    /// Forgets the procedural state of where the character was (see [`Self::teleport`]).
    fn forget_place(&mut self) {
        self.feet.reset();
        self.posture.reset();
        self.look.reset();
    }

    /// The tick's second stage: the movement's variables → animation graph → local and
    /// model-space pose, played faster on a slope by as much as foot IK shortens the stride
    /// (TILT-7); the feet as animated (contacts, where and when each lands). Touches no
    /// world, so hosts may run it for many characters in parallel. An error if the
    /// movement stage did not run first this tick.
    pub fn tick_animation(&mut self) -> Result<(), CharacterError> {
        self.enter_stage(TickStage::Animation)?;
        let dt_s = self.stage_dt_s;
        let velocity = self.locomotion.output.actual_velocity_world;
        let stride = self.feet.stride_now(
            Vec3::new(velocity.x, 0.0, velocity.z).length(),
            self.animator.graph.playback_scale(),
        );
        let playback_scale = self.posture.playback_scale(
            self.feet.warps_stride(),
            stride,
            velocity,
            self.locomotion.movement.facing_yaw_rad(),
            dt_s,
        );
        let vars = self.locomotion.output.vars;
        self.locomotion.pending_root_motion =
            self.animator
                .step(dt_s, &vars, playback_scale, self.animation_lod())?;
        self.posture.read_animation(&self.animator.model);
        self.feet.read_animation(
            &self.animator.graph,
            &self.animator.model,
            self.locomotion.output.actual_velocity_world,
            self.facing_world(),
            self.posture
                .scale_ahead(self.animator.graph.playback_scale()),
            dt_s,
        );
        self.next_stage = TickStage::Procedural;
        Ok(())
    }

    /// The tick's last stage, over the animated pose: the LOD tier; slope tilt, landing
    /// impact and lean (faded by the LOD weight, skipped once faded out in the far tier:
    /// [`Character::tilt_output`] then keeps its last value); foot probes and foot IK;
    /// look-at → the final pose. An error if the animation stage did not run first this
    /// tick.
    pub fn tick_procedural(&mut self, world: &dyn CharacterPhysics) -> Result<(), CharacterError> {
        self.enter_stage(TickStage::Procedural)?;
        let dt_s = self.stage_dt_s;
        let ground = self.ground_filter();

        // LOD (IK-11): the viewer's distance picks the tier; the weight fades, never pops.
        let (lod_weight, probe_feet) = match self.viewer_world {
            Some(viewer) => {
                self.lod
                    .update(distance_to_viewer(self.locomotion.feet_world, viewer), dt_s);
                (
                    self.lod.procedural_weight(),
                    [0, 1].map(|i| self.lod.probe_foot_this_tick(i)),
                )
            }
            None => (1.0, [true; 2]),
        };
        let faded_out =
            self.viewer_world.is_some() && self.lod.tier() == LodTier::Off && lod_weight <= 0.0;

        // Posture: tilt, landing impact and lean, before foot IK so the feet still land;
        // faded by the LOD weight like the foot IK, and not run at all once faded out (its
        // rays are most of a far character's procedural cost). Coming back, it fades in
        // from where it left off.
        let skeleton = Arc::clone(self.animator.graph.asset());
        let skeleton = skeleton.skeleton();
        if !faded_out {
            self.posture.apply(
                &self.locomotion,
                &self.feet.animated_feet,
                world,
                ground,
                skeleton,
                &mut self.animator.pose,
                &mut self.animator.model,
                &mut self.debug,
                dt_s,
            )?;
            if lod_weight < 1.0 {
                // Back toward the animated pose (this tick's, before any procedural change).
                blend_layer(
                    &mut self.animator.pose,
                    &self.animator.animated,
                    1.0 - lod_weight,
                    None,
                )?;
                local_to_model(skeleton, &self.animator.pose, &mut self.animator.model)?;
            }
        }
        let skip_feet = faded_out;

        // Foot IK.
        let output = &self.locomotion.output;
        let placement = PlacementInput {
            world,
            skeleton,
            ground,
            root_world: self.locomotion.feet_world,
            facing_yaw_rad: self.locomotion.movement.facing_yaw_rad(),
            velocity_world: output.actual_velocity_world,
            step_overshoot_world: output.step_overshoot_world,
            grounded: output.vars.is_grounded,
            dt_s,
            lod_weight,
            probe_feet,
        };
        self.feet.solve(
            &placement,
            skip_feet,
            &mut self.animator.pose,
            &mut self.animator.model,
            &mut self.debug,
        )?;

        // Look-at (IK-14), after everything that moves the spine.
        self.look.apply(
            self.locomotion.feet_world,
            self.locomotion.movement.facing_yaw_rad(),
            skeleton,
            &mut self.animator.pose,
            &mut self.animator.model,
            dt_s,
        )
    }

    /// The LOD tier in effect: `Full` while no viewer is set.
    fn lod_tier(&self) -> LodTier {
        match self.viewer_world {
            Some(_) => self.lod.tier(),
            None => LodTier::Full,
        }
    }

    /// The animation's pacing and joint culling at the current LOD tier (SPEC PERF-5).
    fn animation_lod(&self) -> AnimationLod {
        let tier = self.lod_tier();
        AnimationLod {
            every_ticks: self.lod.config.graph_every_ticks(tier),
            cull: tier != LodTier::Full,
            blend_time_s: self.lod.config.blend_time_s,
        }
    }

    /// The tick stage due next: [`TickStage::Movement`] between ticks.
    pub fn next_stage(&self) -> TickStage {
        self.next_stage
    }

    /// Checks that `stage` is the one due, and consumes it: whatever the stage then returns,
    /// the next due is a new tick's movement until the stage succeeds and says otherwise.
    fn enter_stage(&mut self, stage: TickStage) -> Result<(), CharacterError> {
        let due = self.next_stage;
        self.next_stage = TickStage::Movement;
        if due == stage {
            Ok(())
        } else {
            Err(CharacterError::StageOrder { due, called: stage })
        }
    }

    /// How landings with horizontal speed dip the body (see [`crate::impact`]).
    pub fn landing_impact_config_mut(&mut self) -> &mut LandingImpactConfig {
        &mut self.posture.impact_config
    }

    /// What the landing impact did in the last tick.
    pub fn impact_output(&self) -> ImpactOutput {
        self.posture.impact_output
    }

    /// How the body leans with its acceleration (see [`crate::lean`]).
    pub fn lean_config_mut(&mut self) -> &mut LeanConfig {
        &mut self.posture.lean_config
    }

    /// The lean of the last tick.
    pub fn lean_output(&self) -> LeanOutput {
        self.posture.lean.output()
    }

    /// The trunk's lean as animated in the last tick, before the procedural pass: the
    /// pelvis → neck line against vertical along the facing, forward positive (rad; 0 on a
    /// rig without pelvis or neck).
    pub fn torso_lean_anim_rad(&self) -> f32 {
        self.posture.torso_lean_anim_rad
    }

    /// What the pelvis tilt did in the last tick (`None` on a rig without a pelvis).
    pub fn tilt_output(&self) -> Option<&TiltOutput> {
        self.posture.tilt_output.as_ref()
    }

    /// The head's model rotation as the animation had it this tick (before the procedural
    /// pass), to measure what tilt and look-at did to it.
    pub fn head_rotation_anim_model(&self) -> Quat {
        self.posture.head_rotation_anim_model
    }

    /// Pelvis tilt settings (on/off, limits, filters, head compensation, slope speed).
    pub fn tilt_config_mut(&mut self) -> &mut TiltConfig {
        &mut self.posture.tilt.config
    }

    /// Where the tilt's ground normal comes from (TILT-9): the ground rays, or a fixed up
    /// vector (a mount or vehicle). Hosts with their own source call
    /// [`crate::tilt::PelvisTilt::update`] themselves.
    pub fn set_tilt_source(&mut self, source: NormalSourceChoice) {
        self.posture.tilt_source = source;
    }

    /// Where the viewer (camera) is, for LOD tiers (IK-11); `None` = always full detail.
    pub fn set_viewer(&mut self, viewer_world: Option<Vec3>) {
        self.viewer_world = viewer_world.filter(|v| v.is_finite());
    }

    /// LOD settings and state.
    pub fn lod(&self) -> &Lod {
        &self.lod
    }

    /// How far the culled joints ([`CharacterSettings::lod_culled_joints`]) are toward
    /// their rest pose: 0 animated (full detail) … 1 at rest and not sampled.
    pub fn lod_cull_weight(&self) -> f32 {
        self.animator.cull_weight()
    }

    pub fn set_lod_config(&mut self, config: LodConfig) {
        self.lod = Lod::new(config);
    }

    /// LOD settings, changed in place: the tier, its fade and the graph's window carry on
    /// (a crowd moving its tier edges every frame), where [`Character::set_lod_config`]
    /// starts the LOD state over.
    pub fn lod_config_mut(&mut self) -> &mut LodConfig {
        &mut self.lod.config
    }

    /// A point for head and spine to turn toward (IK-14); `None` eases back to the
    /// animation.
    pub fn set_look_target(&mut self, target_world: Option<Vec3>) {
        self.look.target_world = target_world.filter(|t| t.is_finite());
    }

    pub fn look_at(&self) -> &LookAt {
        &self.look.look_at
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
        self.feet.foot_ik.as_ref()
    }

    /// Foot IK settings (mode, probes, pelvis, lock), when the rig has foot IK.
    pub fn foot_ik_config_mut(&mut self) -> Option<&mut FootIkConfig> {
        self.feet.foot_ik.as_mut().ok().map(|f| &mut f.config)
    }

    /// Switches the foot IK mode (no-op on a rig without foot IK).
    pub fn set_foot_ik_mode(&mut self, mode: FootIkMode) {
        if let Some(config) = self.foot_ik_config_mut() {
            config.mode = mode;
        }
    }

    /// What foot IK did in the last tick (`None` on a rig without foot IK).
    pub fn foot_ik_output(&self) -> Option<&FootIkOutput> {
        self.feet.foot_ik.as_ref().ok().map(|f| f.output())
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
        self.feet.foot_contact
    }

    /// The animated feet of the last tick (model space, before IK).
    pub fn animated_feet(&self) -> &[AnimatedFoot; 2] {
        &self.feet.animated_feet
    }

    pub fn set_probe_timing(&mut self, timing: ProbeTiming) {
        self.feet.probe_timing = timing;
        self.feet.probe_results = None;
        self.feet.batched_started = false;
    }

    /// The probes the last tick asked for (batched timing runs them between ticks).
    pub fn probe_requests(&self) -> &[FootProbeRequest; 2] {
        &self.feet.probe_requests
    }

    /// Hands the results of [`Character::probe_requests`] to the next tick.
    pub fn set_probe_results(&mut self, results: [FootProbeResult; 2]) {
        self.feet.probe_results = Some(results);
    }

    /// How long until each foot lands (s; left, right) as of the last tick, read ahead on
    /// the animation's contact curves: 0 for a foot in contact, NaN when the graph has no
    /// contact curves. With [`Character::foot_ik_output`]'s predicted points, where and
    /// when the feet come down (IK-10).
    pub fn landing_in_s(&self) -> [f32; 2] {
        self.feet.landing_in_s
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
        let foot_ik = self.feet.foot_ik.as_ref().ok()?;
        Some((foot_ik.config.probe, self.ground_filter()))
    }

    /// Runs this character's pending probe requests in `world` and hands it the results
    /// for its next tick: one character's share of [`run_probe_batch`], for a host that
    /// spreads the batch over its own threads (a rayon `par_iter_mut`).
    pub fn run_probes(&mut self, world: &dyn SpatialQueries) {
        if let Some((config, filter)) = self.probe_setup() {
            let requests = self.feet.probe_requests;
            self.set_probe_results(requests.map(|r| run_foot_probe(world, filter, &config, &r)));
        }
    }

    /// Feet (capsule bottom, root joint) in world space (m).
    pub fn feet_world(&self) -> Vec3 {
        self.locomotion.feet_world
    }

    /// Facing as a world yaw (rad; 0 faces +Z, positive turns toward +X).
    pub fn facing_yaw_rad(&self) -> f32 {
        self.locomotion.movement.facing_yaw_rad()
    }

    /// The root's world rotation (yaw only: the root stays upright, SPEC TILT-3).
    pub fn facing_world(&self) -> Quat {
        Quat::from_rotation_y(self.facing_yaw_rad())
    }

    /// A model-space point (e.g. a joint position) in world space.
    pub fn model_to_world(&self, point_model: Vec3) -> Vec3 {
        self.locomotion.feet_world + self.facing_world() * point_model
    }

    /// Local pose of the last tick.
    pub fn pose(&self) -> &Pose {
        &self.animator.pose
    }

    /// Model-space pose of the last tick.
    pub fn model_pose(&self) -> &ModelPose {
        &self.animator.model
    }

    /// Graph events of the last tick (none on a tick the graph skipped for animation
    /// LOD; the next update reports them).
    pub fn events(&self) -> &[GraphEvent] {
        if self.animator.graph_ran {
            self.animator.graph.events()
        } else {
            &[]
        }
    }

    /// Movement output of the last tick (locomotion variables, landing, actual velocity).
    pub fn output(&self) -> &MovementOutput {
        &self.locomotion.output
    }

    /// What collide-and-slide did in the last tick.
    pub fn last_move(&self) -> &MoveResult {
        &self.locomotion.last_move
    }

    pub fn config(&self) -> &CharacterConfig {
        &self.locomotion.config
    }

    pub fn movement(&self) -> &Movement {
        &self.locomotion.movement
    }

    pub fn graph(&self) -> &GraphInstance {
        &self.animator.graph
    }

    /// The graph instance, e.g. to pause it or force a travel.
    pub fn graph_mut(&mut self) -> &mut GraphInstance {
        &mut self.animator.graph
    }

    /// The capsule in use (crouched or standing).
    pub fn capsule(&self) -> crate::world::Capsule {
        self.locomotion
            .config
            .capsule(self.locomotion.output.vars.is_crouching)
    }
}

/// Runs every character's pending probe requests (SPEC IK-13) as one batch, split over
/// `threads` scoped threads (1 = on this thread), and hands each its results for its next
/// tick. Needs a world that can be queried from several threads.
pub fn run_probe_batch(
    world: &(dyn SpatialQueries + Sync),
    characters: &mut [Character],
    threads: usize,
) {
    let run = |chunk: &mut [Character]| {
        for c in chunk {
            c.run_probes(world);
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

/// A number from where a character is spawned (deterministic, spread over `u32`): its
/// animation LOD phase.
fn spawn_phase(feet_world: Vec3) -> u32 {
    let bits = [feet_world.x, feet_world.y, feet_world.z].map(f32::to_bits);
    // FNV-1a over the coordinates' bits.
    let mut hash = 0x811c_9dc5u32;
    for byte in bits.iter().flat_map(|b| b.to_le_bytes()) {
        hash = (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193);
    }
    hash
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
    /// of the same graph, rig and root-motion source ([`Character::landing_poses`] of the
    /// first one): a crowd reads the clips once, not once per character.
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
mod tests;
