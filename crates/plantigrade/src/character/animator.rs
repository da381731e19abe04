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
//!
//! Joint culling (SPEC PERF-5): beyond the full-detail tier a rig's listed joints (fingers,
//! twist bones) go to their rest pose over the LOD blend time, and once there the graph
//! stops sampling them; nearer again, it samples them at once and they come back over the
//! same time. The blend moves each by at most `dt / blend time` of the way a tick.

use super::CharacterError;
use crate::graph::{GraphInstance, RootMotionDelta};
use crate::motion::{LocomotionParams, LocomotionVars};
use crate::pose::{blend_layer, local_to_model, nlerp, ModelPose, Pose};

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
    /// The joints culled beyond full detail (skeleton indices), and how far toward their
    /// rest pose they are (0 animated .. 1 at rest, not sampled).
    culled: Vec<usize>,
    cull_weight: f32,
}

/// How the animation stage is paced and culled this tick, by LOD tier.
#[derive(Clone, Copy, Debug)]
pub(super) struct AnimationLod {
    /// One graph run every this many ticks.
    pub every_ticks: u32,
    /// The rig's culled joints go to rest (and are then not sampled).
    pub cull: bool,
    /// Time for them to go to rest or come back (s); 0 switches at once.
    pub blend_time_s: f32,
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
            culled: Vec::new(),
            cull_weight: 0.0,
        }
    }

    /// The joints culled beyond full detail (see the module docs); refused for a joint out
    /// of range or the root-motion joint.
    pub(super) fn set_culled_joints(&mut self, joints: Vec<usize>) -> Result<(), CharacterError> {
        self.graph.set_culled_joints(&joints)?;
        self.culled = joints;
        Ok(())
    }

    /// How far the culled joints are toward their rest pose (0..1).
    pub(super) fn cull_weight(&self) -> f32 {
        self.cull_weight
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
        lod: AnimationLod,
    ) -> Result<RootMotionDelta, CharacterError> {
        let every_ticks = lod.every_ticks.max(1);
        self.update_cull_weight(lod, dt_s);
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
        self.blend_culled_to_rest();
        let skeleton = self.graph.asset().skeleton();
        local_to_model(skeleton, &self.pose, &mut self.model)?;
        let share = 1.0 / self.window_ticks as f32;
        Ok(RootMotionDelta {
            translation_m: self.window_root_motion.translation_m * share,
            yaw_rad: self.window_root_motion.yaw_rad * share,
        })
    }
}

impl Animator {
    /// Moves the cull weight toward 1 (cull) or 0 by `dt / blend time`, and has the graph
    /// sample the culled joints unless they are all the way at rest.
    fn update_cull_weight(&mut self, lod: AnimationLod, dt_s: f32) {
        let cull = lod.cull && !self.culled.is_empty();
        let step = if lod.blend_time_s > 0.0 && dt_s.is_finite() {
            (dt_s.max(0.0) / lod.blend_time_s).min(1.0)
        } else {
            1.0
        };
        self.cull_weight = if cull {
            (self.cull_weight + step).min(1.0)
        } else {
            (self.cull_weight - step).max(0.0)
        };
        self.graph.set_culling(cull && self.cull_weight >= 1.0);
    }

    /// The culled joints of this tick's animated pose (and so of the pose the procedural
    /// pass starts from, and blends back to while it fades by LOD) moved toward rest by
    /// the cull weight: all the way once culled, where the graph already wrote rest for
    /// them or is interpolating there.
    fn blend_culled_to_rest(&mut self) {
        let w = self.cull_weight;
        if w <= 0.0 {
            return;
        }
        let rest = self.graph.asset().skeleton().rest_local();
        for pose in [&mut self.animated, &mut self.pose] {
            let local = pose.local_mut();
            for &joint in &self.culled {
                let (Some(t), Some(r)) = (local.get_mut(joint), rest.get(joint)) else {
                    continue;
                };
                if w >= 1.0 {
                    *t = *r;
                } else {
                    t.translation = t.translation.lerp(r.translation, w);
                    t.rotation = nlerp(t.rotation, r.rotation, w);
                    t.scale = t.scale.lerp(r.scale, w);
                }
            }
        }
    }
}
