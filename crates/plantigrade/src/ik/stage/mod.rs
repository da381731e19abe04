//! The foot IK stage of a tick (SPEC IK-1..11): after the animation graph (and the pelvis
//! tilt), place both feet on the ground they are about to land on.
//!
//! Per tick, in order:
//! 1. [`FootIk::plan_probes`]: from the animated feet (model space, before tilt), the
//!    character's velocity and each foot's gait phase, where each foot will land
//!    ([`FootProbeRequest`], IK-1).
//! 2. The host runs the requests ([`super::foot::run_foot_probe`]) now, or batches them
//!    with other characters' and hands the results back next tick (IK-13).
//! 3. [`FootIk::solve`]: support planes (IK-4), two-speed smoothing (IK-6), foot lock
//!    (IK-9), the predictive pelvis drop (IK-7), two-bone IK on each leg (IK-8) and the foot
//!    aligned to its plane, written into the local pose.
//!
//! Everything is fixed-size per character: no allocation per tick.

use glam::{Quat, Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::feet_gap::feet_distance_m;
use super::foot::{
    fit_support_plane, other_surface, tread_plane, FootIkMode, FootProbeResult, ProbeConfig,
    SupportPlane, SupportSource,
};
use super::lock::{FootLock, LockConfig, LockInput};
use super::pelvis::{required_drop_m, PelvisConfig, PelvisOffset};
use super::two_bone::{knee_pole_model, TwoBoneIkJob};
use crate::math::{damp_share, finite_or, smoothstep};
use crate::pose::{local_to_model, ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;
use crate::tilt::{decompose_ground_normal, TiltLimits};

mod legs;
mod phase;
mod placement;
mod probes;
mod rig;
mod support;
#[cfg(test)]
mod tests;

use legs::{roll_onto_ball, stair_pitch};
use phase::Swing;
use placement::{
    limit_drop_m, narrow_support, swing_ground_m, NarrowSupport, Placement, CLIMB_LIFT_MAX_M,
};
pub use rig::{FootRig, LegJoints, LegRig};
use support::{smooth_plane, tread_shift, Ground};

/// A swinging foot moving over the ground at v (m/s) keeps at least v × this (s) above
/// it, up to the cap (m): 1.5 cm at 1 m/s, 2.5 cm from 1.7 m/s.
const SWING_CLEARANCE_S: f32 = 0.015;
const SWING_CLEARANCE_MAX_M: f32 = 0.025;
/// Airborne, a foot's sole keeps at least this much above the ground under it (m): over
/// the ground-skid height, so a foot crossing an edge does not skim it.
const AIRBORNE_CLEARANCE_M: f32 = 0.015;
/// Below this horizontal speed (m/s) the body stands still and split feet settle.
const SETTLE_MAX_SPEED_M_S: f32 = 0.1;

/// Everything the foot IK stage can be tuned with (SPEC IK defaults).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FootIkConfig {
    pub mode: FootIkMode,
    pub probe: ProbeConfig,
    pub pelvis: PelvisConfig,
    pub lock: LockConfig,
    /// Support-plane smoothing while the foot swings (1/s; IK-6: 10–15).
    pub swing_smoothing_per_s: f32,
    /// Support-plane smoothing at contact (1/s; IK-6: 30+).
    pub contact_smoothing_per_s: f32,
    /// Without a contact curve, a foot slower than this (horizontal, m/s) is planted (IK-5).
    pub contact_speed_threshold_m_s: f32,
    /// Time to ease the contact weight between 0 and 1 (s; IK-5: 0.05–0.1).
    pub contact_ease_s: f32,
    /// IK-5 with the pose's help: a contact curve counts only while the animated foot is
    /// down. With its lower sole point (model space, before tilt) this high or lower (m)
    /// the curve's value stands; from [`FootIkConfig::contact_lift_none_m`] up the foot is
    /// in the air. In a crossfade the blended curve can say "planted" for a foot the
    /// blended pose is already lifting: an idle-to-run start pushes off at contact 0.6
    /// with the ball 10 cm up.
    pub contact_lift_full_m: f32,
    pub contact_lift_none_m: f32,
    /// Time to ease the IK in and out (landing, take-off, mode changes) (s).
    pub weight_ease_s: f32,
    /// Time to fade the IK out after every probe missed (IK-3) (s).
    pub miss_fade_s: f32,
    /// Tread placement (IK-4): a foot about to land across a step edge is moved, along
    /// its length, fully onto one tread (the nearer way), by at most this much (m). 0
    /// turns it off.
    pub max_placement_m: f32,
    /// Clearance kept between the moved foot and the edge (m).
    pub placement_margin_m: f32,
    /// A lock released because the leg was over-stretched becomes a step: the foot lifts
    /// this high (m) on its way back to the animation instead of sliding.
    pub release_step_height_m: f32,
    /// A planted foot the leg cannot reach (the pelvis has not come down far enough yet,
    /// or cannot) rolls heel-up about its ball by at most this much (rad), as a foot pushing
    /// off a lower step does, so the ball stays on the ground. 0 turns it off.
    pub max_reach_roll_rad: f32,
    /// IK-1 with the clips' help: a swinging foot probes where the animation will set it
    /// down (its clips' touch-down poses, carried on by the body's travel until the contact
    /// curve rises), not where velocity × look-ahead carries it. Needs `FootContact_*`
    /// curves; without them, or off, the IK-1 look-ahead is where the probes go (the
    /// pelvis still comes down ahead of a landing the clips say it could not reach).
    pub landing_from_clips: bool,
    /// On stairs, up and down, people land forefoot first: a foot swinging onto another
    /// tread (level ground 5 cm or more above or below where it lifted off) is pitched
    /// toes-down over the second half of the swing so its sole meets the tread at least
    /// this steeply (rad), then lowers its heel about the planted ball over
    /// `stair_heel_lower_s`. 0 turns it off.
    pub stair_toe_down_rad: f32,
    pub stair_heel_lower_s: f32,
    /// Foot alignment clamps (IK-4: 45° pitch, 25° roll).
    pub foot_max_pitch_rad: f32,
    pub foot_max_roll_rad: f32,
    /// Two-bone soften (IK-8): start easing the reach at this fraction of the leg. At the
    /// pelvis's extension cap, so a reachable target is reached exactly.
    pub soften: f32,
}

impl Default for FootIkConfig {
    fn default() -> Self {
        Self {
            mode: FootIkMode::Predictive,
            probe: ProbeConfig::default(),
            pelvis: PelvisConfig::default(),
            lock: LockConfig::default(),
            swing_smoothing_per_s: 12.0,
            contact_smoothing_per_s: 30.0,
            contact_speed_threshold_m_s: 0.35,
            contact_ease_s: 0.08,
            contact_lift_full_m: 0.01,
            contact_lift_none_m: 0.04,
            weight_ease_s: 0.1,
            miss_fade_s: 0.25,
            max_placement_m: 0.15,
            placement_margin_m: 0.03,
            release_step_height_m: 0.06,
            max_reach_roll_rad: 40f32.to_radians(),
            landing_from_clips: true,
            stair_toe_down_rad: 15f32.to_radians(),
            stair_heel_lower_s: 0.15,
            foot_max_pitch_rad: 45f32.to_radians(),
            foot_max_roll_rad: 25f32.to_radians(),
            soften: 0.99,
        }
    }
}

/// Why a rig cannot get foot IK.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FootIkError {
    #[error("foot IK needs both legs: {0}")]
    Leg(#[from] crate::bone_map::BoneMapError),
    #[error("foot IK needs the {0} foot's sockets (heel, ball)")]
    NoSockets(&'static str),
    #[error("foot IK needs a pelvis joint")]
    NoPelvis,
    #[error("joint {joint} is out of range for a skeleton of {num_joints} joints")]
    JointOutOfRange { joint: usize, num_joints: usize },
    #[error(transparent)]
    Pose(#[from] PoseError),
}
/// One foot as the animation has it, in model space (before tilt and IK).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimatedFoot {
    pub ankle_model: Vec3,
    pub heel_model: Vec3,
    pub ball_model: Vec3,
    pub rotation_model: Quat,
}

impl AnimatedFoot {
    /// The contact a curve value stands for with this foot's pose: the curve's value while
    /// the lower sole point is down, fading to 0 as it lifts (see
    /// [`FootIkConfig::contact_lift_full_m`]). NaN (no curve) stays NaN.
    pub fn gated_contact(&self, curve: f32, config: &FootIkConfig) -> f32 {
        let lift_m = self.heel_model.y.min(self.ball_model.y);
        let span_m = config.contact_lift_none_m - config.contact_lift_full_m;
        let down = if span_m > 0.0 && lift_m.is_finite() {
            1.0 - smoothstep(((lift_m - config.contact_lift_full_m) / span_m).clamp(0.0, 1.0))
        } else {
            1.0
        };
        curve * down
    }
}

/// What the stage needs from the rest of the tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootIkInput {
    /// The character's feet point (root joint), world.
    pub root_world: Vec3,
    pub facing_yaw_rad: f32,
    /// Actual velocity of the character, world (m/s).
    pub velocity_world: Vec3,
    pub grounded: bool,
    pub dt_s: f32,
    /// Each foot's `FootContact_*` curve value (0..1), NaN when the graph has none.
    pub contact_curve: [f32; 2],
    /// LOD weight of the procedural pass (0..1, IK-11).
    pub lod_weight: f32,
    /// Which feet may cast probes this tick (LOD alternation, IK-11).
    pub probe_feet: [bool; 2],
    /// How long until each swinging foot lands (s), read ahead on the animation's contact
    /// curve; NaN when not known (then the foot's last swing times it).
    pub landing_in_s: [f32; 2],
    /// Where the animation will set each swinging foot down (model space, relative to the
    /// body as it will be then; see [`super::landing`]), `None` when not known (then the
    /// foot as it is now, carried on by the body's velocity, is the prediction: IK-1).
    pub landing_feet_model: [Option<AnimatedFoot>; 2],
}

/// What happened to one foot this tick (for metrics, traces and debug draw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FootReport {
    /// Contact weight after easing (0 swing … 1 planted).
    pub contact: f32,
    /// Overall IK weight applied (grounded × support × LOD).
    pub ik_alpha: f32,
    /// The predicted landing point the probes looked at (world), when they ran.
    pub predicted_world: Option<Vec3>,
    pub heel_hit: bool,
    pub toe_hit: bool,
    pub source: Option<SupportSource>,
    pub locked: bool,
    /// The foot is stepping: its lock let go while the stance went on (over-stretched or
    /// twisted by a turn), and it is lifted on its way to where the animation has it.
    pub stepping: bool,
    /// The ankle target (world) after smoothing, lock and weight.
    pub ankle_target_world: Vec3,
    /// Height of the smoothed support plane under the foot (world y), when there is one.
    pub support_height_m: Option<f32>,
}

/// What the stage did this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FootIkOutput {
    pub feet: [FootReport; 2],
    /// Pelvis offset along model +Y (m, negative = down).
    pub pelvis_offset_m: f32,
    /// IK-10: moving, and every probe of the swinging feet missed: no ground ahead.
    pub no_support_ahead: bool,
    /// Knees that ended on the other side of the hip–ankle line than the animation's.
    pub knee_flips: u32,
    /// Legs whose target was out of reach (clamped to full extension).
    pub reach_clamps: u32,
    /// Rays the probes cast this tick.
    pub rays_cast: u32,
}

/// Per-foot state carried between ticks, a part per step of the stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FootState {
    contact: f32,
    prev_ankle_world: Option<Vec3>,
    /// When this foot lifted off and how long its swings last.
    swing: Swing,
    /// The support plane under the foot, smoothed.
    ground: Ground,
    /// Where the foot is moved onto one tread.
    placement: Placement,
    /// Where the foot is brought in on a narrow support.
    narrow: NarrowSupport,
    lock: FootLock,
    last_probe: FootProbeResult,
    /// Where the animation had the ball last tick (world xz, as the lock sees it), for
    /// its speed over the ground.
    last_ball_xz: Option<Vec2>,
    /// How much of the forefoot-first pitch the foot has (0..1): in over the end of a
    /// swing onto a step, out as the heel comes down after touch-down.
    stair_pitch_w: f32,
    /// The ankle target's world height last tick and its vertical speed then (m, m/s), for
    /// [`limit_drop_m`].
    last_target_y: Option<(f32, f32)>,
}

impl FootState {
    /// Where the foot is moved from where the animation has it (world xz): onto one tread
    /// (tread placement) and in toward the body's line on a narrow support.
    fn placement_world(&self) -> Vec2 {
        self.placement.applied_world + self.narrow.shift_world
    }
}

/// The foot IK stage of one character.
#[derive(Clone, Debug, PartialEq)]
pub struct FootIk {
    pub config: FootIkConfig,
    rig: FootRig,
    feet: [FootState; 2],
    /// Eased 0..1: IK on while grounded and the mode is not `None`.
    weight: f32,
    pelvis: PelvisOffset,
    output: FootIkOutput,
    /// False until the first solve: the first tick takes contact and weight as they are.
    started: bool,
}

impl FootIk {
    pub fn new(config: FootIkConfig, rig: FootRig) -> Self {
        Self {
            config,
            rig,
            feet: Default::default(),
            weight: 0.0,
            pelvis: PelvisOffset::default(),
            output: FootIkOutput::default(),
            started: false,
        }
    }

    pub fn rig(&self) -> &FootRig {
        &self.rig
    }

    /// The report of the last [`FootIk::solve`].
    pub fn output(&self) -> &FootIkOutput {
        &self.output
    }

    /// Forgets locks, planes and smoothing (after a teleport).
    pub fn reset(&mut self) {
        self.feet = Default::default();
        self.pelvis = PelvisOffset::default();
        self.weight = 0.0;
        self.started = false;
    }

    /// Step 3: fits, smooths, locks and solves; writes the pelvis and both legs into
    /// `pose` and leaves `model` matching it. `animated` are the feet before tilt;
    /// `pose`/`model` are the pose after tilt. `results` answer this tick's (immediate) or
    /// last tick's (batched) requests.
    pub fn solve(
        &mut self,
        input: &FootIkInput,
        animated: &[AnimatedFoot; 2],
        results: &[FootProbeResult; 2],
        skeleton: &Skeleton,
        pose: &mut Pose,
        model: &mut ModelPose,
    ) -> Result<&FootIkOutput, FootIkError> {
        let config = self.config;
        let dt_s = if input.dt_s.is_finite() {
            input.dt_s.clamp(0.0, 0.25)
        } else {
            0.0
        };
        let mut out = FootIkOutput {
            rays_cast: results.iter().map(|r| r.rays_cast as u32).sum(),
            ..FootIkOutput::default()
        };
        let root = input.root_world;
        let yaw = finite_or(input.facing_yaw_rad, 0.0);
        if !root.is_finite() {
            self.output = out;
            return Ok(&self.output);
        }
        let facing = Quat::from_rotation_y(yaw);
        let on = config.mode != FootIkMode::None && input.grounded;
        let first = !self.started;
        self.started = true;
        self.weight = if first {
            on as u8 as f32
        } else {
            ease(self.weight, on as u8 as f32, dt_s, config.weight_ease_s)
        };

        // Gait phase, probes → support planes, smoothing, lock, ankle targets.
        let mut targets_world = [Vec3::ZERO; 2];
        let mut align_model = [Quat::IDENTITY; 2];
        // Swinging free (grounded, unlocked, off its contact), as the foot loop found it.
        let mut swinging_free = [false; 2];
        let mut alphas = [0.0f32; 2];
        let mut moving_all_missed = [false; 2];
        // Standing still, a locked foot away from where the animation has it (a stop that
        // left the feet split) steps into place: the farther one first, one at a time.
        let still = Vec2::new(input.velocity_world.x, input.velocity_world.z).length()
            < SETTLE_MAX_SPEED_M_S;
        // Where the animation has each ball, as the lock sees it (world xz).
        let ball_xz = [0, 1].map(|i| {
            let ball = root + facing * animated[i].ball_model;
            Vec2::new(ball.x, ball.z) + self.feet[i].placement_world()
        });
        let settle_gap = [0, 1].map(|i| self.feet[i].lock.settle_gap_m(ball_xz[i]));
        let any_stepping = self.feet.iter().any(|f| f.lock.stepping().is_some());
        let may_settle =
            [0, 1].map(|i| still && !any_stepping && settle_gap[i] >= settle_gap[1 - i]);
        for i in 0..2 {
            let anim = animated[i];
            let state = &mut self.feet[i];
            let ankle_anim_world = root + facing * anim.ankle_model;
            targets_world[i] = ankle_anim_world;
            // IK-5: contact from the curve, else from the foot's own speed.
            let raw_contact = if input.contact_curve[i].is_finite() {
                input.contact_curve[i].clamp(0.0, 1.0)
            } else {
                let speed = match (state.prev_ankle_world, dt_s > 0.0) {
                    (Some(prev), true) => {
                        let d = ankle_anim_world - prev;
                        Vec2::new(d.x, d.z).length() / dt_s
                    }
                    _ => 0.0,
                };
                (speed < config.contact_speed_threshold_m_s) as u8 as f32
            };
            state.prev_ankle_world = Some(ankle_anim_world);
            state.contact = if first {
                raw_contact
            } else {
                ease(state.contact, raw_contact, dt_s, config.contact_ease_s)
            };

            let mut result = results[i];
            if result.ran && config.mode == FootIkMode::Predictive {
                narrow_support(state, &mut result, input, facing, dt_s, &config);
            }
            if result.ran {
                state.last_probe = result;
                match fit_support_plane(&result, &config.probe) {
                    Some((plane, source)) => {
                        // The first plane ever (spawn, or the first batched result):
                        // nothing to fade from.
                        state.ground.support = if first || state.ground.plane.is_none() {
                            1.0
                        } else {
                            ease(state.ground.support, 1.0, dt_s, config.miss_fade_s)
                        };
                        state.ground.source = Some(source);
                        state.ground.second_plane = other_surface(&result, source);
                        // A swinging foot that will be set down on one tread of a step
                        // takes that tread's plane, not the higher one: a toe probe a
                        // hair past the next riser must not lift the whole foot a step.
                        // A foot the lock already has stands where it is (its heel may hang
                        // off a step up): the higher tread holds it.
                        let mut plane = plane;
                        if let (SupportSource::Edge, true, Some(shift)) = (
                            source,
                            state.contact < 0.5 && !state.lock.is_locked(),
                            tread_shift(&result, &config, state.placement.applied_world, true),
                        ) {
                            let toward_toe =
                                shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                            if let Some(side) = tread_plane(&result, toward_toe) {
                                plane = side;
                                state.ground.second_plane = None;
                            }
                        }
                        // Heights are compared where the foot is going (the landing
                        // point), not extrapolated back to where it is.
                        let ahead = result.look_ahead_used_xz;
                        let eval = ankle_anim_world + Vec3::new(ahead.x, 0.0, ahead.y);
                        let previous = state.ground.plane.map(|p| (p, state.ground.plane_eval_xz));
                        let ahead_grew = ahead.length() > state.ground.plane_ahead_m;
                        state.ground.plane_eval_xz = Vec2::new(eval.x, eval.z);
                        state.ground.plane_ahead_m = ahead.length();
                        // IK-6's two speeds, but a swinging foot's plane must have arrived
                        // by the time it lands: at least 3 time constants in the swing left.
                        let mut rate_per_s = lerp(
                            config.swing_smoothing_per_s,
                            config.contact_smoothing_per_s,
                            state.contact,
                        );
                        let landing_in_s = input.landing_in_s[i];
                        if landing_in_s.is_finite() && landing_in_s > 0.0 {
                            rate_per_s = rate_per_s.max(LANDING_TIME_CONSTANTS / landing_in_s);
                        }
                        let under_foot = ahead.length_squared() < 1e-6;
                        state.ground.plane = if state.ground.replant && under_foot {
                            state.ground.replant = false;
                            Some(plane)
                        } else {
                            Some(smooth_plane(
                                previous, plane, eval, rate_per_s, dt_s, ahead_grew,
                            ))
                        };
                    }
                    None => {
                        // IK-3: keep the last plane, fade the IK out.
                        state.ground.support =
                            ease(state.ground.support, 0.0, dt_s, config.miss_fade_s);
                        state.ground.source = None;
                        state.ground.second_plane = None;
                        moving_all_missed[i] = !result.any_hit() && state.contact < 0.5;
                    }
                }
            }
            // Tread placement: a new swing starts from the animation; while swinging, a
            // landing across an edge moves the foot onto one tread, the shorter way.
            let planted_now = state.contact >= 0.5;
            if state.swing.planted && !planted_now {
                state.placement.wanted_world = Vec2::ZERO;
                state.swing.time_s = 0.0;
                let ball = ball_xz[i];
                state.swing.liftoff_height_m =
                    state.ground.plane.map(|p| p.height_at(ball.x, ball.y));
                state.swing.liftoff_plane = state.ground.plane;
            }
            if planted_now && !state.swing.planted && state.swing.time_s > 0.0 {
                state.swing.last_s = state.swing.time_s;
            }
            if !planted_now {
                state.swing.time_s += dt_s;
            }
            state.swing.planted = planted_now;
            // Only in the air: once the lock has the foot (it pins on the curve's own
            // rise, before the eased contact reaches 0.5) probes cast where the animation
            // carries on would pull it off the tread it landed on.
            if !planted_now && !state.lock.is_locked() && result.ran {
                if let (Some(SupportSource::Edge), Some(shift)) = (
                    state.ground.source,
                    tread_shift(&result, &config, state.placement.applied_world, true),
                ) {
                    // The probes were cast with the applied placement, not the wanted one.
                    state.placement.wanted_world = state.placement.applied_world + shift;
                }
            }
            // Like the plane, a placement found late in the swing must be in by touch-down:
            // a foot set down short of it is nudged onto its tread on landing, a visible pop.
            let mut placement_per_s = config.swing_smoothing_per_s;
            let landing_in_s = input.landing_in_s[i];
            if !planted_now && landing_in_s.is_finite() && landing_in_s > 0.0 {
                placement_per_s = placement_per_s.max(LANDING_TIME_CONSTANTS / landing_in_s);
            }
            let placement_rate = damp_share(placement_per_s, dt_s);
            state.placement.applied_world +=
                (state.placement.wanted_world - state.placement.applied_world) * placement_rate;
            out.feet[i] = FootReport {
                contact: state.contact,
                predicted_world: result.ran.then_some(result.predicted_world),
                heel_hit: state.last_probe.heel.is_some(),
                toe_hit: state.last_probe.toe.is_some(),
                source: state.ground.source,
                ankle_target_world: ankle_anim_world,
                ..FootReport::default()
            };
            let Some(mut plane) = state.ground.plane else {
                continue;
            };
            let alpha = self.weight * state.ground.support * input.lod_weight.clamp(0.0, 1.0);
            alphas[i] = alpha;

            // IK-4: the foot turns to the plane (clamped).
            let limits = TiltLimits {
                max_pitch_rad: config.foot_max_pitch_rad,
                max_roll_rad: config.foot_max_roll_rad,
                roll_enabled: true,
            };
            let tilt = decompose_ground_normal(plane.normal_world, yaw, &limits);
            let align = Quat::IDENTITY.slerp(tilt.rotation_model(), alpha);
            // IK-9: the planted foot holds its world xz. The ball is what stays put through
            // a stance (the foot rolls over it at heel-off), so the ball is the anchor: the
            // lock pins it, and the ankle sits behind it by the aligned foot's offset.
            let ball_xz = ball_xz[i];
            // Where the animated foot points (world yaw, rad): the facing plus the foot's
            // own heading in the animation, which a blend can turn during a stance (a run
            // easing between square and hip-turned clips).
            let heel_to_ball = anim.ball_model - anim.heel_model;
            let foot_yaw = yaw + heel_to_ball.x.atan2(heel_to_ball.z);
            let foot_yaw = if foot_yaw.is_finite() { foot_yaw } else { yaw };
            // How fast the animation carries the ball over the ground (m/s).
            let ball_speed_m_s = state
                .last_ball_xz
                .filter(|_| dt_s > 0.0)
                .map(|last| last.distance(ball_xz) / dt_s)
                .filter(|v| v.is_finite());
            state.last_ball_xz = Some(ball_xz);
            let mut landed_now = false;
            let anchored_ball_xz = if config.mode == FootIkMode::None {
                state.lock.reset();
                ball_xz
            } else {
                let was_locked = state.lock.is_locked();
                // Locks on the curve's own contact (not the eased one), so the foot is
                // pinned on the tick it lands.
                let pinned = state.lock.update_with(
                    &config.lock,
                    &LockInput {
                        animated_xz: ball_xz,
                        animated_speed_m_s: ball_speed_m_s,
                        animated_lift_m: anim.heel_model.y.min(anim.ball_model.y),
                        contact: raw_contact.max(state.contact),
                        grounded: input.grounded && alpha > 0.5,
                        facing_yaw_rad: foot_yaw,
                        may_settle: may_settle[i],
                        dt_s,
                    },
                );
                // Landed across a step edge anyway (the prediction was off, or it spawned
                // there): set the foot down fully on one tread, the nearer way. A toe
                // hanging over a nosing (heel on the higher tread) is judged on probes
                // taken where the foot stands (on the landing tick they may still be the
                // swing's), for as long as the lock holds it: the animation under a
                // locked foot moves a little, and a heel a few mm past a nosing behind
                // would otherwise hold the ball a whole step above its tread.
                let landed = !was_locked && state.lock.is_locked();
                landed_now = landed;
                let under_foot = result.ran && result.look_ahead_used_xz.length_squared() < 1e-6;
                let toe_overhangs = matches!(
                    (result.heel, result.toe),
                    (Some(h), Some(t)) if h.point.y > t.point.y
                );
                // A heel over the lower tread of a step up is moved onto the tread only
                // when standing (a spawn, a stop): walking or running up, it is how a foot
                // climbs, and the move would be a visible slide at touch-down.
                let body_speed_m_s =
                    Vec2::new(input.velocity_world.x, input.velocity_world.z).length();
                let standing = body_speed_m_s < SETTLE_HEEL_MAX_SPEED_M_S;
                let settle_now = (landed && !toe_overhangs && standing)
                    || (state.lock.is_locked() && under_foot && toe_overhangs);
                if landed {
                    // The first probes where it stands give its plane outright: eased in
                    // at the stance rate, a tread a few cm off would hold the sole in it
                    // (or above it) for several ticks.
                    state.ground.replant = true;
                }
                match (
                    settle_now,
                    state.ground.source,
                    tread_shift(&result, &config, Vec2::ZERO, false),
                ) {
                    (true, Some(SupportSource::Edge), Some(shift)) => {
                        state.lock.nudge(shift);
                        state.ground.replant = true;
                        landed_now = true;
                        // It stands on that tread from this tick on: set down on the
                        // plane it left, a ball moved onto the higher tread is in the step.
                        let toward_toe =
                            shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                        if let Some(tread) = tread_plane(&result, toward_toe) {
                            plane = tread;
                            state.ground.plane = Some(tread);
                            state.ground.second_plane = None;
                        }
                        pinned + shift
                    }
                    _ => pinned,
                }
            };
            // A planted foot keeps pointing where it landed while the body turns over it,
            // or the animation turns it (its heel would otherwise sweep the floor about the
            // ball), and turns back with its release. Yawed first, then aligned, so its sole
            // stays on the plane.
            let align = align * Quat::from_rotation_y(state.lock.yaw_offset_rad(foot_yaw));
            let align = align * stair_pitch(state, anim, input.landing_in_s[i], &config, dt_s);
            let ball_offset_world = facing * (align * (anim.ball_model - anim.ankle_model));
            let ball_offset_xz = Vec2::new(ball_offset_world.x, ball_offset_world.z);
            let xz = anchored_ball_xz - ball_offset_xz;
            // Never below its own ground: a blend that sinks a sole must not sink it here.
            let mut lift_m = anim.heel_model.y.min(anim.ball_model.y).max(0.0);
            // A swinging foot the animation carries along the floor (two gaits' swings,
            // or a gait and a rest pose, blended low) is held clear of it, by more the
            // faster it goes: it would skid otherwise. A gait's own touch-down and
            // lift-off are vertical over the ground, so they get none.
            if let (false, true, Some(speed)) =
                (state.lock.is_locked(), state.contact < 0.5, ball_speed_m_s)
            {
                lift_m = lift_m.max((speed * SWING_CLEARANCE_S).min(SWING_CLEARANCE_MAX_M));
            }
            // A swinging foot also clears the ground it is above now (a step down ahead
            // must not pull it through the nosing it has not passed yet).
            let look_ahead_xz = if state.lock.is_locked() {
                Vec2::ZERO
            } else {
                state.last_probe.look_ahead_used_xz
            };
            // With no look-ahead left (end of the swing) the probes themselves are under
            // the foot: their raw hits, not the smoothed plane, are what it must clear.
            let probe = &state.last_probe;
            let under_foot = if probe.look_ahead_used_xz.length_squared() > 1e-6 {
                [probe.heel_here, probe.toe_here]
            } else {
                [probe.heel, probe.toe]
            };
            // Swinging, or landing this very tick (the smoothed plane has not caught up
            // with where the foot is set down yet).
            let clear = state.contact < 0.5 || landed_now;
            let clearance = under_foot.map(|hit| hit.filter(|_| clear).map(|h| h.point.y));
            // A swinging foot's ground goes, over the swing, from the ground under it at
            // lift-off to the ground where it lands at touch-down: a landing a stride up a
            // ramp or a flight is climbed to, not leapt to (and the plane fitted there is
            // not stretched back to where the foot is). What is under it is cleared too.
            let swinging = look_ahead_xz.length_squared() > 1e-6;
            let landing_in_s = input.landing_in_s[i];
            let swing_progress = if landing_in_s.is_finite() && landing_in_s > 0.0 {
                state.swing.time_s / (state.swing.time_s + landing_in_s)
            } else {
                1.0
            };
            let ground_at = |at: Vec2| {
                let mut ground = plane.height_at(at.x, at.y);
                if let Some(second) = state.ground.second_plane {
                    ground = ground.max(second.height_at(at.x, at.y));
                }
                ground
            };
            let mut ankle_y = f32::MIN;
            let landing_points = [probe.heel_probe_xz, probe.toe_probe_xz];
            let landing_top_m = [probe.heel, probe.toe]
                .into_iter()
                .flatten()
                .map(|hit| hit.point.y)
                .reduce(f32::max)
                .unwrap_or(f32::INFINITY);
            for (((sole, here), clear), landing_xz) in [anim.heel_model, anim.ball_model]
                .into_iter()
                .zip(under_foot)
                .zip(clearance)
                .zip(landing_points)
            {
                let offset_world = facing * (align * (sole - anim.ankle_model));
                let sole_xz = xz + Vec2::new(offset_world.x, offset_world.z);
                let mut sole_y = if swinging {
                    // The surface under the foot, carried on to the landing: a ramp's own
                    // rise, followed over the whole swing; what the landing has above it
                    // is a step.
                    let (here_m, carried_m) = match here {
                        Some(h) => (
                            h.point.y,
                            SupportPlane::through(h.point, h.normal)
                                .map_or(h.point.y, |p| p.height_at(landing_xz.x, landing_xz.y)),
                        ),
                        None => (ground_at(sole_xz), ground_at(landing_xz)),
                    };
                    // Going up, from the ground it left, not from what it is over now: a
                    // nosing or a ramp's foot passed under the sole would restart the
                    // climb from another height (what it is over is cleared below).
                    let (here_m, carried_m) = match state.swing.liftoff_plane {
                        Some(left) if left.height_at(sole_xz.x, sole_xz.y) < here_m => (
                            left.height_at(sole_xz.x, sole_xz.y),
                            left.height_at(landing_xz.x, landing_xz.y),
                        ),
                        _ => (here_m, carried_m),
                    };
                    // Near touch-down the plane there is also where the foot is (one that
                    // overshoots its landing spot up a slope clears the ground it is over).
                    // A plane still easing over from where the foot was (a ramp's, up to
                    // its crest) is not let above what the probes hit at the landing: it
                    // would be climbed to and dropped from.
                    let there_m = ground_at(landing_xz)
                        .min(landing_top_m)
                        .max(ground_at(sole_xz));
                    let climbed_m = swing_ground_m(here_m, carried_m, there_m, swing_progress);
                    // The animation's lift over the ground climbed to, but a climb is
                    // not stacked on a high swing (a run's heel kick over two treads
                    // would fold the leg into the hip): the foot keeps the animation's
                    // height over the ground it left, or a step's clearance over the
                    // ground it climbs to, whichever is higher.
                    let over_left_m = here_m.min(climbed_m) + lift_m;
                    over_left_m.max(climbed_m + lift_m.min(CLIMB_LIFT_MAX_M))
                } else {
                    // Landed (no look-ahead left): the ground under itself.
                    ground_at(sole_xz) + lift_m
                };
                if let Some(here) = clear {
                    sole_y = sole_y.max(here + lift_m);
                }
                ankle_y = ankle_y.max(sole_y - offset_world.y);
            }
            // A lock that lets go while the stance goes on (over-stretched, or twisted by
            // a turn) is a step: the foot lifts on its way back.
            if let Some(progress) = state.lock.stepping() {
                ankle_y += config.release_step_height_m * (std::f32::consts::PI * progress).sin();
            }
            let target = Vec3::new(xz.x, ankle_y, xz.y);
            let mut blended = ankle_anim_world.lerp(target, alpha);
            // Airborne the IK fades out to the animation, but a foot is never let down
            // into what is under it, nor skimming it (the trailing foot of a step off a
            // ledge crosses its edge as the body drops).
            if !input.grounded {
                let mut floor_y = f32::MIN;
                for (sole, hit) in [anim.heel_model, anim.ball_model]
                    .into_iter()
                    .zip(under_foot)
                {
                    if let Some(hit) = hit {
                        let offset_world = facing * (align * (sole - anim.ankle_model));
                        floor_y = floor_y.max(hit.point.y - offset_world.y);
                    }
                }
                let clear_y = floor_y + AIRBORNE_CLEARANCE_M;
                if blended.y < clear_y {
                    blended.y = clear_y;
                    alphas[i] = alphas[i].max(1e-3);
                }
            }
            // A swinging foot whose ground drops away under it (past a nosing, off a
            // ledge) follows it down at most as fast as a body falls hard, not a tread
            // in one tick (a 20–25 cm pop). Only down, where holding back lifts the foot
            // clear, never into anything.
            swinging_free[i] = input.grounded && !state.lock.is_locked() && state.contact < 0.5;
            if let (true, Some((last_y, last_speed))) = (swinging_free[i], state.last_target_y) {
                blended.y = blended.y.max(limit_drop_m(last_y, last_speed, dt_s));
            }
            state.last_target_y = match (blended.is_finite(), state.last_target_y) {
                (true, Some((last_y, _))) if dt_s > 0.0 => {
                    Some((blended.y, (blended.y - last_y) / dt_s))
                }
                (true, _) => Some((blended.y, 0.0)),
                (false, _) => None,
            };
            targets_world[i] = if blended.is_finite() {
                blended
            } else {
                ankle_anim_world
            };
            align_model[i] = align;
            let report = &mut out.feet[i];
            report.ik_alpha = alpha;
            report.locked = state.lock.is_locked();
            report.stepping = state.lock.stepping().is_some();
            report.ankle_target_world = targets_world[i];
            report.support_height_m = Some(plane.height_at(xz.x, xz.y));
        }
        // The feet never through each other: a swinging foot passing close by the planted
        // one (a crossover uncrossing as a sideways run stops) is lifted over it, by as
        // much as it comes closer than FEET_CLEARANCE_M. Only up, so it never sinks.
        let sole_world = |k: usize, ankle: Vec3| {
            let anim = &animated[k];
            let offset = |p: Vec3| facing * (align_model[k] * (p - anim.ankle_model));
            [
                ankle,
                ankle + offset(anim.heel_model),
                ankle + offset(anim.ball_model),
            ]
        };
        for i in 0..2 {
            // Both feet solved this tick: one with no support plane has no target (it
            // keeps the animation) to keep clear of.
            if !swinging_free[i] || swinging_free[1 - i] || alphas[i] <= 0.0 || alphas[1 - i] <= 0.0
            {
                continue;
            }
            // Lifting a foot beside the other (rather than above it) gains less than the
            // lift: a few rounds reach the clearance from any side.
            for _ in 0..4 {
                let Some(gap_m) = feet_distance_m(
                    sole_world(i, targets_world[i]),
                    sole_world(1 - i, targets_world[1 - i]),
                ) else {
                    break;
                };
                if gap_m >= FEET_CLEARANCE_M {
                    break;
                }
                targets_world[i].y += FEET_CLEARANCE_M - gap_m;
                out.feet[i].ankle_target_world = targets_world[i];
            }
        }
        let speed = Vec2::new(input.velocity_world.x, input.velocity_world.z).length();
        let ahead_missed = results.iter().any(|r| matches!(r.ahead, Some(None)));
        out.no_support_ahead = config.mode == FootIkMode::Predictive
            && speed > NO_SUPPORT_MIN_SPEED_M_S
            && (ahead_missed || moving_all_missed.iter().any(|&m| m));

        if config.mode == FootIkMode::None && self.weight <= 0.0 {
            self.pelvis = PelvisOffset::default();
            self.output = out;
            return Ok(&self.output);
        }

        // IK-7: lower the pelvis so both (predicted) targets are reachable, and ahead of a
        // landing, so the landing foot is reachable when it comes down.
        let mut drop_m = 0.0f32;
        let anticipation_s = LANDING_TIME_CONSTANTS / config.pelvis.down_rate_per_s.max(1e-3);
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let hip_world = root + facing * model.position_model(leg.chain.thigh);
            drop_m = drop_m.max(required_drop_m(
                hip_world,
                targets_world[i],
                leg.leg_length_m,
                config.pelvis.max_leg_extension,
            ));
            let state = &self.feet[i];
            let landing_in_s = input.landing_in_s[i];
            if let (Some(landed), Some(plane), true) = (
                input.landing_feet_model[i],
                state.ground.plane,
                state.contact < 0.5 && landing_in_s.is_finite() && landing_in_s >= 0.0,
            ) {
                let anticipation = 1.0 - (landing_in_s / anticipation_s).clamp(0.0, 1.0);
                let travel = input.velocity_world * landing_in_s;
                let hip_then =
                    hip_world + Some(travel).filter(|t| t.is_finite()).unwrap_or_default();
                let mut ankle_then = root + facing * landed.ankle_model;
                ankle_then.x += hip_then.x - hip_world.x;
                ankle_then.z += hip_then.z - hip_world.z;
                ankle_then.y = plane.height_at(ankle_then.x, ankle_then.z) + landed.ankle_model.y;
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
        out.pelvis_offset_m = offset_m;
        let pelvis_parent_rotation = skeleton
            .parent(self.rig.pelvis)
            .map_or(Quat::IDENTITY, |p| rotation_of(model, p));
        pose.local_mut()[self.rig.pelvis].translation +=
            pelvis_parent_rotation.inverse() * Vec3::new(0.0, offset_m, 0.0);
        local_to_model(skeleton, pose, model)?;

        // IK-8: both legs, then each foot aligned to its plane.
        let inverse_facing = facing.inverse();
        let mut reach_rolls = [Quat::IDENTITY; 2];
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let mut target_model = inverse_facing * (targets_world[i] - root);
            let hip = model.position_model(leg.chain.thigh);
            let knee = model.position_model(leg.chain.calf);
            let ankle = model.position_model(leg.chain.foot);
            // Out of reach while planted: roll onto the ball first (by up to the limit, in
            // as the contact does so it never pops), and solve for the rolled ankle.
            let planted = smoothstep(self.feet[i].contact);
            let reach_m =
                config.soften.clamp(0.0, 1.0) * (hip.distance(knee) + knee.distance(ankle));
            // Out of reach while swinging (a foot bound for a tread the pelvis has not come
            // down to yet): the foot waits above its target rather than being pulled back
            // along the leg, which on a way down cuts through the nosing it is passing.
            // Only ahead of the hip (a foot kicked back at toe-off is the solver's), and
            // eased in over the first few cm past the reach, so a leg the animation itself
            // stretches straight is left alone.
            if alphas[i] > 0.0 && planted < 1.0 {
                let d = target_model - hip;
                let room_sq = reach_m * reach_m - (d.x * d.x + d.z * d.z);
                let past_reach_m = d.length() - reach_m;
                if room_sq > 0.0 && past_reach_m > 0.0 {
                    let lowest_y = hip.y - room_sq.sqrt();
                    let weight = smoothstep((past_reach_m / SWING_LIFT_EASE_M).min(1.0))
                        * smoothstep((d.z / SWING_LIFT_AHEAD_M).clamp(0.0, 1.0));
                    target_model.y = lerp(target_model.y, lowest_y, weight * (1.0 - planted));
                    out.feet[i].ankle_target_world = root + facing * target_model;
                }
            }
            if alphas[i] > 0.0 && planted > 0.0 {
                let anim = &animated[i];
                let ball_offset = align_model[i] * (anim.ball_model - anim.ankle_model);
                if let Some((roll, rolled)) = roll_onto_ball(
                    hip,
                    reach_m,
                    target_model,
                    ball_offset,
                    align_model[i] * Vec3::Y,
                    config.max_reach_roll_rad * planted,
                ) {
                    target_model = rolled;
                    align_model[i] = roll * align_model[i];
                    reach_rolls[i] = roll;
                    out.feet[i].ankle_target_world = root + facing * rolled;
                }
            }
            let forward = Vec3::Z;
            // A knee is a hinge about the character's left axis: for the hip→target line
            // `d`, the knee side that bends the shin backward is `d × left` (forward for a
            // leg hanging down, down for a foot kicked back to hip height). The animated
            // knee's side is mixed in at half weight for the leg's own splay; it can never
            // outvote the hinge, so the knee cannot flip.
            let animated_pole = knee_pole_model(hip, knee, ankle, forward);
            let hinge_pole = (target_model - hip)
                .cross(Vec3::X)
                .try_normalize()
                .unwrap_or(forward);
            let pole = (hinge_pole + 0.5 * animated_pole)
                .try_normalize()
                .unwrap_or(hinge_pole);
            let mut job =
                TwoBoneIkJob::for_leg(model, &leg.chain, target_model, pole).map_err(|_| {
                    FootIkError::JointOutOfRange {
                        joint: leg.chain.foot,
                        num_joints: model.num_joints(),
                    }
                })?;
            job.soften = config.soften;
            let solved = job.run();
            if solved.clamped {
                out.reach_clamps += 1;
            }
            // A flip: the solved knee lies on the other side of the hip–target line.
            if let Some(line) = (target_model - hip).try_normalize() {
                let knee_offset = solved.mid_model - hip;
                let knee_offset = knee_offset - line * knee_offset.dot(line);
                if knee_offset.length() > 1e-3 && knee_offset.dot(pole) < 0.0 {
                    out.knee_flips += 1;
                }
            }
            solved
                .apply_to_pose(skeleton, model, leg.chain.thigh, leg.chain.calf, pose)
                .map_err(|_| FootIkError::JointOutOfRange {
                    joint: leg.chain.calf,
                    num_joints: model.num_joints(),
                })?;
        }
        self.update_legs(skeleton, pose, model)?;
        for (i, leg) in self.rig.legs.iter().enumerate() {
            let foot = leg.chain.foot;
            let wanted_model = align_model[i] * animated[i].rotation_model;
            let parent = skeleton
                .parent(foot)
                .map_or(Quat::IDENTITY, |p| rotation_of(model, p));
            let local = (parent.inverse() * wanted_model).normalize();
            if local.is_finite() && alphas[i] > 0.0 {
                pose.local_mut()[foot].rotation = local;
                // The toes stay as they were: a foot rolled onto its ball bends there.
                let roll = reach_rolls[i];
                if let (Some(toe), false) = (leg.chain.ball, roll == Quat::IDENTITY) {
                    if skeleton.parent(toe) == Some(foot) {
                        let foot_model = (parent * local).normalize();
                        let unroll = foot_model.inverse() * roll.inverse() * foot_model;
                        let toe_local = (unroll * pose.local()[toe].rotation).normalize();
                        if toe_local.is_finite() {
                            pose.local_mut()[toe].rotation = toe_local;
                        }
                    }
                }
            }
        }
        self.update_legs(skeleton, pose, model)?;
        self.output = out;
        Ok(&self.output)
    }
}

fn rotation_of(model: &ModelPose, joint: usize) -> Quat {
    let (_, rotation, _) = model.joints_model()[joint].to_scale_rotation_translation();
    rotation
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t.clamp(0.0, 1.0)
}

/// The least distance a swinging foot keeps from the planted one (m): the lab's gate is
/// 5 cm between the feet's ankle–heel–ball segments; a little more, for the solve.
const FEET_CLEARANCE_M: f32 = 0.06;

/// How far past its reach (m) a swinging foot's target must be to be fully raised to it.
const SWING_LIFT_EASE_M: f32 = 0.03;

/// How far ahead of the hip (m, model +Z) a swinging foot's target must be to be raised
/// fully; behind the hip it is not raised at all.
const SWING_LIFT_AHEAD_M: f32 = 0.1;

/// Below this body speed (m/s) a foot landed with its heel hanging off a step up is set
/// down fully on the tread.
const SETTLE_HEEL_MAX_SPEED_M_S: f32 = 0.5;

/// Time constants of the swing smoothing a foot has left before it lands, at least.
const LANDING_TIME_CONSTANTS: f32 = 3.0;

/// Below this horizontal speed (m/s) nothing is "ahead" (IK-10).
const NO_SUPPORT_MIN_SPEED_M_S: f32 = 0.5;

/// Moves `value` toward `target` by at most `dt / time` (a linear ease; `time` ≤ 0 snaps).
fn ease(value: f32, target: f32, dt_s: f32, time_s: f32) -> f32 {
    if time_s.is_nan() || time_s <= 0.0 {
        return target;
    }
    let step = dt_s / time_s;
    value + (target - value).clamp(-step, step)
}
