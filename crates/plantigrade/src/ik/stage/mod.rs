//! The foot IK stage of a tick (SPEC IK-1..11): after the animation graph (and the pelvis
//! tilt), place both feet on the ground they are about to land on.
//!
//! Per tick, in order:
//! 1. [`FootIk::plan_probes`]: from the animated feet (model space, before tilt), the
//!    character's velocity and each foot's gait phase, where each foot will land
//!    ([`super::foot::FootProbeRequest`], IK-1).
//! 2. The host runs the requests ([`super::foot::run_foot_probe`]) now, or batches them
//!    with other characters' and hands the results back next tick (IK-13).
//! 3. [`FootIk::solve`]: support planes (IK-4), two-speed smoothing (IK-6), foot lock
//!    (IK-9), the predictive pelvis drop (IK-7), two-bone IK on each leg (IK-8) and the foot
//!    aligned to its plane, written into the local pose.
//!
//! This module holds the stage's types and `solve`, a call per step; the steps live in
//! their own modules: `probes` (step 1, and IK-10's no support ahead), `phase` (contact and
//! the swing's timing), `support` (the support plane and tread placement across an edge),
//! `placement` (narrow supports, where the foot goes and how high, its clearance),
//! `locking` (how the stage drives [`super::lock::FootLock`]), `pelvis_drop` (how it drives
//! [`super::pelvis::PelvisOffset`]), `legs` (the two-bone legs and the feet aligned) and
//! `rig` (the bones, found once).
//!
//! Everything is fixed-size per character: no allocation per tick.

use glam::{Quat, Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::foot::{FootIkMode, FootProbeResult, ProbeConfig, SupportSource};
use super::lock::{FootLock, LockConfig};
use super::pelvis::{PelvisConfig, PelvisOffset};
use crate::math::{finite_or, smoothstep};
use crate::pose::{ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;

mod legs;
mod locking;
mod pelvis_drop;
mod phase;
mod placement;
mod probes;
mod rig;
mod support;
#[cfg(test)]
mod tests;

use legs::{align_to_plane, turn_foot};
use locking::{animated_balls_xz, hold_ball, lift_stepping_foot, may_settle, LockAnchor};
use phase::{update_contact, update_swing, Swing};
pub use placement::PLANTED_LIFT_KEPT_M;
use placement::{
    ankle_floor_y, ankle_height_m, ankle_xz, hold_planted_lift_m, keep_feet_apart, keep_off_ground,
    keep_swing_under_hip, keep_swinging_leg_open, limit_swing_height, narrow_support,
    release_airborne_lift, update_tread_placement, LegFold, NarrowSupport, Placement,
};
use probes::no_support_ahead;
pub use rig::{FootRig, LegJoints, LegRig};
use support::{tread_preferences, update_ground, Ground, TreadReach};

/// Everything the foot IK stage can be tuned with (SPEC IK defaults).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
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
    /// Two-bone soften (IK-8): start easing the reach at this fraction of the leg. Just
    /// under the pelvis's extension cap (`PelvisConfig::max_leg_extension`), so a target
    /// the pelvis made reachable is reached within 0.06 % of the leg, and a knee is never
    /// straight enough to jump when its foot is let go. A cap well above the soft zone
    /// (0.99 against 0.97) left the feet short: float p95 up the 20 cm flight 2 → 6 mm.
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
            soften: 0.98,
        }
    }
}

/// Why a rig cannot get foot IK.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FootIkError {
    #[error("foot IK needs both legs: {0}")]
    Leg(crate::bone_map::BoneMapError),
    #[error("foot IK needs the {0} foot's sockets (heel, ball)")]
    NoSockets(&'static str),
    #[error("foot IK needs a pelvis joint")]
    NoPelvis,
    #[error("joint {joint} is out of range for a skeleton of {num_joints} joints")]
    JointOutOfRange { joint: usize, num_joints: usize },
    #[error(transparent)]
    Pose(#[from] PoseError),
}

from_cause_in_message!(crate::bone_map::BoneMapError => FootIkError::Leg);
/// One foot as the animation has it, in model space (before tilt and IK).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimatedFoot {
    pub ankle_model: Vec3,
    pub heel_model: Vec3,
    pub ball_model: Vec3,
    pub rotation_model: Quat,
    /// How far (m) the animation holds an IK-target foot off the end of its shin: a clip
    /// may put the foot where the leg cannot reach (Quaternius' walk: up to 12 cm at the
    /// ends of a stride), and the foot may then stand off its solved shin as far. 0 for a
    /// foot below its calf.
    pub off_shin_m: f32,
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
    /// How far this tick's capsule move went past the one asked for (m, world,
    /// horizontal): a step-up set down beyond the request. The body lags it, easing in
    /// (see `PelvisOffset::step_lag_world`). Zero otherwise.
    pub step_overshoot_world: Vec3,
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
    /// Which sole point the lock pins: the heel from a heel strike until the heel lifts,
    /// else the ball.
    lock_anchor: LockAnchor,
    /// From the lock's anchor to the ball, last tick (world xz, m): 0 for the ball.
    lock_anchor_to_ball_xz: Vec2,
    last_probe: FootProbeResult,
    /// Where the animation had the ball last tick (world xz, as the lock sees it), for
    /// its speed over the ground.
    last_ball_xz: Option<Vec2>,
    /// How much of the forefoot-first pitch the foot has (0..1): in over the end of a
    /// swing onto a step, out as the heel comes down after touch-down.
    stair_pitch_w: f32,
    /// The ankle target last tick (world) and its vertical speed then (m/s), for
    /// [`placement::limit_drop_m`] and [`placement::limit_rise_m`].
    last_target: Option<(Vec3, f32)>,
    /// The knee's bend last tick (rad, 0 straight) and how fast it was bending (rad/s),
    /// for [`legs::limit_knee_bend`].
    last_knee_bend: Option<(f32, f32)>,
    /// How far a swinging foot held back over the ground (lifting clear of a step first)
    /// still is behind its path (world xz, m): made up over [`placement`]'s fade.
    swing_hold_offset: Vec2,
    /// How much of the pose's lift the planted foot is held down by (m), see
    /// [`placement::hold_planted_lift_m`].
    planted_hold_m: f32,
    /// The ankle's move from where the animation has it, per unit of IK weight, on the
    /// last grounded tick (world, m). Once airborne it fades with the weight while
    /// riding with the body, so a take-off does not hold the foot down for a tick while
    /// the capsule leaves (the knee snapped forward and back).
    grounded_offset_per_weight: Vec3,
    /// How far (m) an airborne foot is held up over the animation by what is under it,
    /// see [`placement::keep_off_ground`]: let go eased, not at once.
    airborne_lift_m: f32,
    /// How much lower (m) the pelvis had to come on the last tick for this leg to reach
    /// its locked foot, were the foot as far below the hip as the animation has it: how far
    /// the hip has gone on from it over the ground. Asking too much lets the foot go as a
    /// step (see [`crate::ik::lock::LockConfig::max_reach_drop_m`]).
    overreach_m: f32,
}

impl FootState {
    /// Where the foot is moved from where the animation has it (world xz): onto one tread
    /// (tread placement) and in toward the body's line on a narrow support.
    fn placement_world(&self) -> Vec2 {
        self.placement.applied_world + self.narrow.shift_world
    }

    /// Where the lock holds the ball (world xz), when locked.
    fn locked_ball_xz(&self) -> Option<Vec2> {
        self.lock
            .locked_xz()
            .map(|anchor| anchor + self.lock_anchor_to_ball_xz)
    }
}

/// This tick as every step sees it.
#[derive(Clone, Copy, Debug)]
struct Tick {
    dt_s: f32,
    root_world: Vec3,
    /// How far the body lags the capsule across the ground (m, world; see
    /// `PelvisOffset::step_lag_world`): the animated feet and hips are placed on the body.
    body_lag_world: Vec3,
    yaw_rad: f32,
    /// The facing as a rotation (model to world, about +Y).
    facing: Quat,
    /// The stage's first tick: contact and weight are taken as they are.
    first: bool,
    /// The animated feet (model space, before tilt).
    animated: [AnimatedFoot; 2],
    /// Each leg's hip as animated (model space, before the pelvis drop).
    hips_model: [Vec3; 2],
}

/// One foot this tick, as the steps after its contact see it.
#[derive(Clone, Copy, Debug)]
struct FootTick {
    anim: AnimatedFoot,
    /// Where the animation has the ankle (world).
    ankle_anim_world: Vec3,
    /// Where the animation has the ball, as the lock sees it (world xz).
    ball_xz: Vec2,
    /// This tick's probes, a narrow support's low hits replaced.
    result: FootProbeResult,
    /// The contact before easing (0..1): the lock pins on it.
    raw_contact: f32,
    /// How long until the foot lands (s), NaN when not known.
    landing_in_s: f32,
    may_settle: bool,
    /// The placement (world xz) a tread shift should end nearest: the other foot's, while
    /// it stands shifted onto its tread, else this foot's own (the shorter move).
    tread_preference_world: Vec2,
    /// What the leg reaches: the hip as low as the pelvis goes (world), and the reach from
    /// it to the sole (m), for a tread shift to take a tread the foot can stand on.
    reach: TreadReach,
}

/// How far the body travels across the ground (m, world) until foot `i` lands: none when
/// that is not known.
fn travel_until_landing(input: &FootIkInput, i: usize) -> Vec3 {
    let v = input.velocity_world;
    let travel = Vec3::new(v.x, 0.0, v.z) * input.landing_in_s[i];
    if travel.is_finite() && input.landing_in_s[i] >= 0.0 {
        travel
    } else {
        Vec3::ZERO
    }
}

/// What placing the feet hands on to the pelvis and the legs.
#[derive(Clone, Copy, Debug, Default)]
struct FeetTargets {
    /// Each ankle's target (world).
    targets_world: [Vec3; 2],
    /// Each foot's turn to its plane (model space).
    align_model: [Quat; 2],
    /// Swinging free (grounded, unlocked, off its contact), as the foot loop found it.
    swinging_free: [bool; 2],
    /// Each foot's IK weight (0..1).
    alphas: [f32; 2],
    moving_all_missed: [bool; 2],
    /// Where each IK-target foot stands off the end of its solved shin (model space; zero
    /// for a foot the leg reaches, and always for a foot below its calf).
    off_shin_model: [Vec3; 2],
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
        let mut out = FootIkOutput {
            rays_cast: results.iter().map(|r| r.rays_cast as u32).sum(),
            ..FootIkOutput::default()
        };
        let Some(tick) = self.start_tick(input, animated, model) else {
            self.output = out;
            return Ok(&self.output);
        };
        let mut feet = self.place_feet(input, &tick, results, &mut out);
        keep_feet_apart(&mut feet, &tick, &mut out);
        out.no_support_ahead = no_support_ahead(&self.config, input, results, &feet);
        if self.config.mode == FootIkMode::None && self.weight <= 0.0 {
            self.pelvis = PelvisOffset::default();
            self.output = out;
            return Ok(&self.output);
        }
        out.pelvis_offset_m = self.drop_pelvis(input, &tick, &feet, skeleton, pose, model)?;
        let (reach_rolls, knee_bends) =
            self.solve_legs(&tick, &mut feet, skeleton, pose, model, &mut out)?;
        for (state, bend) in self.feet.iter_mut().zip(knee_bends) {
            state.last_knee_bend = match (bend, state.last_knee_bend) {
                (Some(b), Some((last, _))) if tick.dt_s > 0.0 => Some((b, (b - last) / tick.dt_s)),
                (Some(b), _) => Some((b, 0.0)),
                (None, _) => None,
            };
        }
        self.align_feet(&tick, &feet, reach_rolls, skeleton, pose, model)?;
        self.output = out;
        Ok(&self.output)
    }

    /// This tick's frame, and the IK weight eased toward on (grounded, with a mode) or off.
    /// `None`, with nothing touched, when the root is not finite.
    fn start_tick(
        &mut self,
        input: &FootIkInput,
        animated: &[AnimatedFoot; 2],
        model: &ModelPose,
    ) -> Option<Tick> {
        let config = self.config;
        let dt_s = if input.dt_s.is_finite() {
            input.dt_s.clamp(0.0, 0.25)
        } else {
            0.0
        };
        let root = input.root_world;
        let yaw = finite_or(input.facing_yaw_rad, 0.0);
        if !root.is_finite() {
            return None;
        }
        let facing = Quat::from_rotation_y(yaw);
        // A capsule step taken back now, before the feet are placed: they are placed
        // on the body as it is this tick (see `PelvisOffset::step_taken_back_m`).
        self.pelvis
            .take_back_step(&config.pelvis, root.y, input.grounded, dt_s);
        self.pelvis
            .take_back_overshoot(&config.pelvis, input.step_overshoot_world);
        let on = config.mode != FootIkMode::None && input.grounded;
        let first = !self.started;
        self.started = true;
        self.weight = if first {
            on as u8 as f32
        } else {
            ease(self.weight, on as u8 as f32, dt_s, config.weight_ease_s)
        };
        Some(Tick {
            dt_s,
            root_world: root,
            body_lag_world: self.pelvis.step_lag_world,
            yaw_rad: yaw,
            facing,
            first,
            animated: *animated,
            hips_model: [0, 1].map(|i| model.position_model(self.rig.legs[i].chain.thigh)),
        })
    }

    /// Gait phase, probes → support planes, smoothing, lock, ankle targets: each foot's
    /// target (world) and alignment (model), one step after another; the reports go in
    /// `out`.
    fn place_feet(
        &mut self,
        input: &FootIkInput,
        tick: &Tick,
        results: &[FootProbeResult; 2],
        out: &mut FootIkOutput,
    ) -> FeetTargets {
        let config = self.config;
        let mut feet = FeetTargets::default();
        let ball_xz = animated_balls_xz(&self.feet, tick);
        let may_settle = may_settle(&self.feet, input, &ball_xz);
        let tread_preference = tread_preferences(&self.feet);
        for i in 0..2 {
            let anim = tick.animated[i];
            let state = &mut self.feet[i];
            // The animated foot goes with the body, which lags the capsule's step.
            let ankle_anim_world = tick.root_world
                + tick.facing * anim.ankle_model
                + Vec3::Y * self.pelvis.step_taken_back_m
                + tick.body_lag_world;
            feet.targets_world[i] = ankle_anim_world;
            let contact_curve = input.contact_curve[i];
            let raw_contact = update_contact(state, contact_curve, ankle_anim_world, tick, &config);
            let mut result = results[i];
            if result.ran && config.mode == FootIkMode::Predictive {
                narrow_support(
                    state,
                    &mut result,
                    input,
                    input.landing_in_s[i],
                    tick.facing,
                    tick.dt_s,
                    &config,
                );
            }
            let foot = FootTick {
                anim,
                ankle_anim_world,
                ball_xz: ball_xz[i],
                result,
                raw_contact,
                landing_in_s: input.landing_in_s[i],
                may_settle: may_settle[i],
                tread_preference_world: tread_preference[i],
                reach: TreadReach {
                    hip_lowest_world: tick.root_world
                        + tick.facing * tick.hips_model[i]
                        + tick.body_lag_world
                        + travel_until_landing(input, i)
                        - Vec3::Y * config.pelvis.max_drop_m.max(0.0),
                    ankle_reach_m: self.rig.legs[i].leg_length_m * config.pelvis.max_leg_extension,
                    ankle_over_sole_m: (anim.ankle_model.y
                        - anim.heel_model.y.min(anim.ball_model.y))
                    .max(0.0),
                },
            };
            feet.moving_all_missed[i] = update_ground(state, &foot, tick, &config);
            let planted_now = update_swing(state, foot.ball_xz, tick.dt_s);
            update_tread_placement(state, &foot, planted_now, tick.dt_s, &config);
            out.feet[i] = FootReport {
                contact: state.contact,
                predicted_world: result.ran.then_some(result.predicted_world),
                heel_hit: state.last_probe.heel.is_some(),
                toe_hit: state.last_probe.toe.is_some(),
                source: state.ground.source,
                ankle_target_world: ankle_anim_world,
                ..FootReport::default()
            };
            let airborne_target = (!input.grounded)
                .then(|| ankle_anim_world + state.grounded_offset_per_weight * self.weight)
                .filter(|t| t.is_finite());
            let Some(plane) = state.ground.plane else {
                // Nothing under it: an airborne foot still held up lets go eased; on the
                // ground there is nothing to hold it up (none is kept for the next jump).
                state.airborne_lift_m = match airborne_target {
                    Some(_) => release_airborne_lift(state.airborne_lift_m, 0.0, tick.dt_s),
                    None => 0.0,
                };
                if let Some(target) = airborne_target {
                    feet.targets_world[i] = target + Vec3::Y * state.airborne_lift_m;
                }
                continue;
            };
            let alpha = self.weight * state.ground.support * input.lod_weight.clamp(0.0, 1.0);
            feet.alphas[i] = alpha;
            let align = align_to_plane(plane, tick.yaw_rad, alpha, &config);
            let held = hold_ball(state, &foot, plane, (align, alpha), input, tick, &config);
            let turned = turn_foot(state, align, held.foot_yaw_rad, &foot, tick.dt_s, &config);
            // A foot the lock pins at its heel turns about its heel: the ball goes with
            // the turn (held where it landed, or pitched onto a tread).
            let mut ball_xz = held.ball_xz;
            if state.lock.is_locked() {
                let to_ball = state.lock_anchor.to_ball_xz(turned, &anim, tick.facing);
                ball_xz += to_ball - state.lock_anchor_to_ball_xz;
                state.lock_anchor_to_ball_xz = to_ball;
            }
            let align = turned;
            let xz = ankle_xz(ball_xz, align, &anim, tick.facing);
            // A step's end glides in: held down from the tick it lands, as a foot already
            // planted is.
            let dropped_now = held.landed_now && !held.stepped_down_now;
            hold_planted_lift_m(state, &foot, dropped_now, tick.dt_s);
            let (ankle_y, under_foot) = ankle_height_m(state, &foot, &held, align, xz, tick.facing);
            let ankle_y = lift_stepping_foot(&state.lock, ankle_y, &config);
            let mut target = Vec3::new(xz.x, ankle_y, xz.y);
            let hip_world = tick.root_world
                + tick.facing * tick.hips_model[i]
                + Vec3::Y * self.pelvis.offset_m
                + tick.body_lag_world;
            // The ankle height at which the sole touches what is under it; a sole point
            // whose probe missed is held at the other's ground, as in `keep_off_ground`
            // (a toe-off ball over a nosing, its probe planned a tick back, was taken 8 cm
            // into the tread KayKit's trailing foot was leaving, as the capsule stepped
            // down and the leg was kept open).
            let [heel_m, ball_m] = under_foot.map(|hit| hit.map(|h| h.point.y));
            let floor_y = ankle_floor_y(
                [heel_m.or(ball_m), ball_m.or(heel_m)],
                &anim,
                align,
                tick.facing,
            );
            let fold = LegFold {
                hip_world,
                animated_gap_m: tick.hips_model[i].y - anim.ankle_model.y,
                leg_length_m: self.rig.legs[i].leg_length_m,
                floor_y,
                liftoff_above_root_m: state
                    .swing
                    .liftoff_height_m
                    .filter(|h| h.is_finite())
                    .map_or(0.0, |h| h - tick.root_world.y),
            };
            target.y = keep_swinging_leg_open(target, &fold, state.contact, tick.facing);
            target.y = keep_swing_under_hip(target, &fold, state.contact, tick.facing);
            let mut blended = match airborne_target {
                Some(fading) => fading,
                None => ankle_anim_world.lerp(target, alpha),
            };
            if input.grounded {
                state.grounded_offset_per_weight = if self.weight > 1e-3 {
                    (blended - ankle_anim_world) / self.weight
                } else {
                    Vec3::ZERO
                };
            }
            keep_off_ground(
                &mut blended,
                &mut feet.alphas[i],
                &mut state.airborne_lift_m,
                tick.dt_s,
                input.grounded,
                under_foot,
                &anim,
                align,
                tick.facing,
            );
            feet.swinging_free[i] =
                limit_swing_height(state, &mut blended, floor_y, input.grounded, tick.dt_s);
            feet.targets_world[i] = if blended.is_finite() {
                blended
            } else {
                ankle_anim_world
            };
            feet.align_model[i] = align;
            let report = &mut out.feet[i];
            report.ik_alpha = alpha;
            report.locked = state.lock.is_locked();
            report.stepping = state.lock.stepping().is_some();
            report.ankle_target_world = feet.targets_world[i];
            report.support_height_m = Some(held.plane.height_at(xz.x, xz.y));
        }
        feet
    }
}

fn rotation_of(model: &ModelPose, joint: usize) -> Quat {
    let (_, rotation, _) = model.joints_model()[joint].to_scale_rotation_translation();
    rotation
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t.clamp(0.0, 1.0)
}

/// Time constants of the swing smoothing a foot has left before it lands, at least.
const LANDING_TIME_CONSTANTS: f32 = 3.0;

/// A landing this much (m) or more below where the foot lifted off is a step down.
const STEP_DOWN_M: f32 = 0.05;

/// Moves `value` toward `target` by at most `dt / time` (a linear ease; `time` ≤ 0 snaps).
fn ease(value: f32, target: f32, dt_s: f32, time_s: f32) -> f32 {
    if time_s.is_nan() || time_s <= 0.0 {
        return target;
    }
    let step = dt_s / time_s;
    value + (target - value).clamp(-step, step)
}
