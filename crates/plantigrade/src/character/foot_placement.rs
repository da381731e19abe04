//! The foot placement stage of a tick: the feet as animated (contact gated by the pose,
//! stride warped on slopes), where and when each is about to land (landing prediction and
//! phase tracking), the probes (now, or batched between ticks) and the foot IK solve. It
//! owns the foot IK state and everything that times it.

use std::sync::Arc;

use glam::{Quat, Vec3};

use super::posture::{ScaleAhead, StrideNow};
use super::{CharacterError, ProbeTiming};
use crate::debug::DebugDraw;
use crate::graph::GraphInstance;
use crate::ik::{
    run_foot_probe, AnimatedFoot, FootIk, FootIkError, FootIkInput, FootIkMode, FootIkOutput,
    FootProbeRequest, FootProbeResult, LandingPoses,
};
use crate::pose::{ModelPose, Pose};
use crate::skeleton::Skeleton;
use crate::world::{QueryFilter, SpatialQueries};

/// Slower than this (m/s) the gait has no stride to fit to a flight's treads.
const MIN_STRIDE_SPEED_M_S: f32 = 0.3;

/// Foot IK and what feeds it.
#[derive(Clone, Debug)]
pub(super) struct FootPlacement {
    /// Foot IK, when the rig has a pelvis and two legs with feet (else the reason).
    pub(super) foot_ik: Result<FootIk, FootIkError>,
    pub(super) animated_feet: [AnimatedFoot; 2],
    pub(super) contact_curves: [Option<usize>; 2],
    /// This tick's contact per foot: the blended curve, gated by the animated foot's lift
    /// (see [`crate::ik::FootIkConfig::contact_lift_full_m`]); NaN without curves.
    pub(super) foot_contact: [f32; 2],
    /// Each clip's feet at their touch-downs, and this tick's blended, stride-warped
    /// prediction of where each foot lands (IK-1).
    pub(super) landing_poses: Arc<LandingPoses>,
    pub(super) landing_feet: [Option<AnimatedFoot>; 2],
    /// The dominant clip and its phase last tick, and the phase rate measured from them
    /// (1/s), to time the next landing (see [`FootPlacement::time_to_landing_s`]).
    phase_last: Option<(usize, f32)>,
    phase_rate_per_s: f32,
    pub(super) landing_in_s: [f32; 2],
    pub(super) probe_timing: ProbeTiming,
    pub(super) probe_requests: [FootProbeRequest; 2],
    /// Batched results waiting for the next tick.
    pub(super) probe_results: Option<[FootProbeResult; 2]>,
    /// Batched timing has run a tick (the first one probes at once: nothing is waiting).
    pub(super) batched_started: bool,
}

/// What the foot IK solve needs from the rest of the tick.
pub(super) struct PlacementInput<'a> {
    pub world: &'a dyn SpatialQueries,
    pub skeleton: &'a Skeleton,
    pub ground: QueryFilter,
    pub root_world: Vec3,
    pub facing_yaw_rad: f32,
    pub velocity_world: Vec3,
    /// This tick's step-up overshoot (see `MovementOutput::step_overshoot_world`).
    pub step_overshoot_world: Vec3,
    pub grounded: bool,
    pub dt_s: f32,
    pub lod_weight: f32,
    pub probe_feet: [bool; 2],
}

impl FootPlacement {
    pub(super) fn new(
        foot_ik: Result<FootIk, FootIkError>,
        contact_curves: [Option<usize>; 2],
        landing_poses: Arc<LandingPoses>,
    ) -> Self {
        Self {
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
        }
    }

    /// Forgets where the feet were (a teleport): locks, planes and smoothing, the landing
    /// prediction and phase tracking, and probe results cast at the old place (batched
    /// timing probes at once on the next tick, as at spawn).
    pub(super) fn reset(&mut self) {
        if let Ok(foot_ik) = &mut self.foot_ik {
            foot_ik.reset();
        }
        self.landing_feet = [None; 2];
        self.phase_last = None;
        self.phase_rate_per_s = 0.0;
        self.landing_in_s = [f32::NAN; 2];
        self.probe_results = None;
        self.batched_started = false;
    }

    /// Foot IK is on, so the gait's stride is warped with the slope (TILT-7).
    pub(super) fn warps_stride(&self) -> bool {
        self.foot_ik
            .as_ref()
            .is_ok_and(|f| f.config.mode != FootIkMode::None)
    }

    /// Reads this tick's animation: the feet as animated, before tilt moves them (foot IK
    /// keeps their lift), with the stride shortened along the movement (`velocity_world`,
    /// the body facing `facing_world`) by the graph's playback scale; the contact curves as
    /// blended, gated by the animated feet; where and when each foot lands.
    pub(super) fn read_animation(
        &mut self,
        graph: &GraphInstance,
        model: &ModelPose,
        velocity_world: Vec3,
        facing_world: Quat,
        scale: ScaleAhead,
        dt_s: f32,
    ) {
        let curves = self
            .contact_curves
            .map(|id| id.map_or(f32::NAN, |id| graph.curve(id)));
        let Ok(foot_ik) = &self.foot_ik else {
            self.foot_contact = curves;
            self.landing_in_s = self.time_to_landing_s(graph, dt_s);
            return;
        };
        self.animated_feet = foot_ik.rig().animated_feet(model);
        self.foot_contact =
            [0, 1].map(|i| self.animated_feet[i].gated_contact(curves[i], &foot_ik.config));
        self.landing_in_s = self.time_to_landing_s(graph, dt_s);
        let Ok(foot_ik) = &self.foot_ik else {
            return;
        };
        let landings = self
            .landing_poses
            .predict(graph.asset(), graph.sampled_clips());
        let mut landing_feet = landings.map(|l| l.map(|l| l.foot));
        let v = velocity_world;
        let v_model = facing_world.inverse() * Vec3::new(v.x, 0.0, v.z);
        if let Some(along) = v_model.try_normalize() {
            let hips = foot_ik
                .rig()
                .legs
                .map(|l| model.position_model(l.chain.thigh));
            for i in 0..2 {
                if scale.now != 1.0 {
                    warp_stride(&mut self.animated_feet[i], hips[i], along, scale.now);
                }
                // A landing is set down at the scale it will be played at: as a flight
                // comes into view the stride shortens while the foot swings, and a
                // landing warped at this tick's scale would move back under it.
                let landing_scale = scale.at(self.landing_in_s[i]);
                if let (Some(foot), Some(landing), true) =
                    (&mut landing_feet[i], landings[i], landing_scale != 1.0)
                {
                    warp_stride(foot, landing.hip_model, along, landing_scale);
                }
            }
        }
        self.landing_feet = landing_feet;
    }

    /// The gait's step now (IK-1's phase rate: two steps a cycle): its length at
    /// `speed_m_s` over the ground, with the playback scale it was measured at; `None`
    /// before the rate is known or nearly standing.
    pub(super) fn stride_now(&self, speed_m_s: f32, scale_now: f32) -> Option<StrideNow> {
        let rate = self.phase_rate_per_s;
        let moving = speed_m_s.is_finite() && speed_m_s > MIN_STRIDE_SPEED_M_S;
        (moving && rate.is_finite() && rate > 0.0).then(|| StrideNow {
            step_m: speed_m_s / (2.0 * rate),
            scale_now,
        })
    }

    /// IK-1: how long until each foot lands (s), read ahead on the contact curve of the
    /// clip that weighs most, at the rate its phase moved last tick; 0 while the foot is in
    /// contact. NaN when the clip has no contact curve or the rate is not known yet.
    fn time_to_landing_s(&mut self, graph: &GraphInstance, dt_s: f32) -> [f32; 2] {
        let dominant = graph
            .sampled_clips()
            .iter()
            .copied()
            .max_by(|a, b| a.weight.total_cmp(&b.weight));
        let Some(sampled) = dominant.filter(|s| s.normalized_time.is_finite()) else {
            self.phase_last = None;
            return [f32::NAN; 2];
        };
        let phase = sampled.normalized_time;
        let asset = graph.asset();
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
            _ if duration_s > 0.0 => graph.playback_scale() / duration_s,
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

    /// Probes (now, or the batch's results from between ticks) and the foot IK solve on
    /// `pose` and `model`; with `skip` (LOD off and faded out) nothing runs.
    pub(super) fn solve(
        &mut self,
        input: &PlacementInput,
        skip: bool,
        pose: &mut Pose,
        model: &mut ModelPose,
        debug: &mut DebugDraw,
    ) -> Result<(), CharacterError> {
        let Ok(foot_ik) = &mut self.foot_ik else {
            return Ok(());
        };
        let ik_input = FootIkInput {
            root_world: input.root_world,
            facing_yaw_rad: input.facing_yaw_rad,
            velocity_world: input.velocity_world,
            step_overshoot_world: input.step_overshoot_world,
            grounded: input.grounded,
            dt_s: input.dt_s,
            contact_curve: self.foot_contact,
            lod_weight: input.lod_weight,
            probe_feet: input.probe_feet,
            landing_in_s: self.landing_in_s,
            landing_feet_model: self.landing_feet,
        };
        if skip {
            return Ok(());
        }
        let (world, ground) = (input.world, input.ground);
        let requests = foot_ik.plan_probes(&ik_input, &self.animated_feet);
        let results = match self.probe_timing {
            ProbeTiming::Immediate => {
                requests.map(|r| run_foot_probe(world, ground, &foot_ik.config.probe, &r))
            }
            ProbeTiming::Batched => match self.probe_results.take() {
                Some(results) => results,
                // The first batched tick has nothing to consume yet: it probes at
                // once, so a new character never shows the animation's own feet.
                None if !self.batched_started => {
                    requests.map(|r| run_foot_probe(world, ground, &foot_ik.config.probe, &r))
                }
                None => [FootProbeResult::NOT_RUN; 2],
            },
        };
        if self.probe_timing == ProbeTiming::Batched {
            self.batched_started = true;
        }
        self.probe_requests = requests;
        let output = *foot_ik.solve(
            &ik_input,
            &self.animated_feet,
            &results,
            input.skeleton,
            pose,
            model,
        )?;
        if debug.enabled() {
            draw_feet(debug, &foot_ik.config.probe, &results, &output);
        }
        Ok(())
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
