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
    fit_support_plane, other_surface, tread_plane, FootIkMode, FootProbeRequest, FootProbeResult,
    ProbeConfig, SupportPlane, SupportSource,
};
use super::lock::{FootLock, LockConfig, LockInput};
use super::pelvis::{required_drop_m, PelvisConfig, PelvisOffset};
use super::two_bone::{knee_pole_model, TwoBoneIkJob};
use crate::bone_map::{FootSockets, HumanoidMap, LegChain, Side};
use crate::math::{damp_share, finite_or, smoothstep};
use crate::pose::{local_to_model, local_to_model_joints, ModelPose, Pose, PoseError};
use crate::skeleton::Skeleton;
use crate::tilt::{decompose_ground_normal, TiltLimits};
use crate::world::RayHit;

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

/// The joints and foot points of one leg.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegRig {
    pub chain: LegChain,
    pub sockets: FootSockets,
    /// Thigh + calf length in the rest pose (m).
    pub leg_length_m: f32,
}

/// The bones foot IK drives, found once per skeleton.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootRig {
    pub pelvis: usize,
    pub legs: [LegRig; 2],
    /// Each leg's joints from the thigh down, parent-first: after the legs are solved only
    /// these need model transforms again. `None` for a leg with more than
    /// [`LegJoints::MAX`] (then the whole skeleton is recomputed).
    pub leg_joints: [Option<LegJoints>; 2],
}

/// A leg's joints from the thigh down, parent-first (fixed size: no allocation per tick).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegJoints {
    joints: [usize; LegJoints::MAX],
    len: usize,
}

impl LegJoints {
    pub const MAX: usize = 16;

    /// `thigh` and every joint below it, in skeleton (parent-first) order; `None` past
    /// [`LegJoints::MAX`].
    fn below(skeleton: &Skeleton, thigh: usize) -> Option<LegJoints> {
        let mut set = LegJoints {
            joints: [0; LegJoints::MAX],
            len: 0,
        };
        let mut inside = vec![false; skeleton.num_joints()];
        for joint in 0..skeleton.num_joints() {
            let below = joint == thigh || skeleton.parent(joint).is_some_and(|p| inside[p]);
            if below {
                inside[joint] = true;
                *set.joints.get_mut(set.len)? = joint;
                set.len += 1;
            }
        }
        Some(set)
    }

    pub fn as_slice(&self) -> &[usize] {
        &self.joints[..self.len]
    }
}

impl FootRig {
    /// Finds the pelvis and both legs (with sockets) of `map` on `skeleton`.
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap) -> Result<FootRig, FootIkError> {
        let pelvis = map.pelvis.ok_or(FootIkError::NoPelvis)?;
        let rest = Pose::rest(skeleton);
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(skeleton, &rest, &mut model)?;
        let num_joints = skeleton.num_joints();
        let mut legs = [None, None];
        for side in Side::BOTH {
            let chain = map.leg(side)?;
            for joint in [pelvis, chain.thigh, chain.calf, chain.foot] {
                if joint >= num_joints {
                    return Err(FootIkError::JointOutOfRange { joint, num_joints });
                }
            }
            let sockets = map.feet[side.index()].ok_or(FootIkError::NoSockets(match side {
                Side::Left => "left",
                Side::Right => "right",
            }))?;
            let hip = model.position_model(chain.thigh);
            let knee = model.position_model(chain.calf);
            let ankle = model.position_model(chain.foot);
            legs[side.index()] = Some(LegRig {
                chain,
                sockets,
                leg_length_m: hip.distance(knee) + knee.distance(ankle),
            });
        }
        match legs {
            [Some(left), Some(right)] => Ok(FootRig {
                pelvis,
                legs: [left, right],
                leg_joints: [left, right].map(|leg| LegJoints::below(skeleton, leg.chain.thigh)),
            }),
            _ => Err(FootIkError::NoPelvis),
        }
    }

    /// The animated feet of a model pose (model space).
    pub fn animated_feet(&self, model: &ModelPose) -> [AnimatedFoot; 2] {
        self.legs.map(|leg| {
            let foot = model.joints_model()[leg.chain.foot];
            let (_, rotation_model, _) = foot.to_scale_rotation_translation();
            AnimatedFoot {
                ankle_model: foot.translation.into(),
                heel_model: foot.transform_point3(leg.sockets.heel_foot_local),
                ball_model: foot.transform_point3(leg.sockets.ball_foot_local),
                rotation_model,
            }
        })
    }
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

/// Per-foot state carried between ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FootState {
    contact: f32,
    /// 1 while probes find support, fading to 0 over `miss_fade_s` after a total miss.
    support: f32,
    plane: Option<SupportPlane>,
    /// Where the plane was last evaluated (world xz).
    plane_eval_xz: Vec2,
    /// How far ahead of the foot (m) that was: a look-ahead that grows (a lift-off) moves
    /// the evaluation point without saying anything new about the ground.
    plane_ahead_m: f32,
    /// On an edge, the lower surface's plane: the sole stays above it too.
    second_plane: Option<SupportPlane>,
    source: Option<SupportSource>,
    lock: FootLock,
    prev_ankle_world: Option<Vec3>,
    last_probe: FootProbeResult,
    /// Tread placement: the wanted and the applied (smoothed) xz offset of the foot (m).
    placement_world: Vec2,
    placement_applied_world: Vec2,
    planted: bool,
    /// Time since this foot lifted off (s) and how long its last swing lasted (s; 0 until
    /// one has been seen).
    swing_time_s: f32,
    last_swing_s: f32,
    /// Just landed, or set off an edge onto another tread: the next plane found under the
    /// foot is taken as it is (it is where the foot now stands, not noise to smooth).
    replant: bool,
    /// Where the animation had the ball last tick (world xz, as the lock sees it), for
    /// its speed over the ground.
    last_ball_xz: Option<Vec2>,
    /// Narrow support (a beam): the foot is brought in toward the body's line by this
    /// (world xz, smoothed) while the ground where the animation would set it down is far
    /// below the body's.
    narrow: bool,
    narrow_shift_world: Vec2,
    /// The last probes found the landing far below the body's ground (past an edge beside
    /// it, or a step or a ledge ahead): the next probe also checks the body's line.
    landing_low: bool,
    /// Height of the ground under the ball when this swing lifted off (m), to tell a swing
    /// onto another tread of a flight from one along the level.
    liftoff_height_m: Option<f32>,
    /// The plane this foot stood on when its swing lifted off: the ground a swing starts
    /// from, and carries on over it (a ramp's), whatever it passes over on the way.
    liftoff_plane: Option<SupportPlane>,
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
        self.placement_applied_world + self.narrow_shift_world
    }

    /// The look-ahead for this foot: the IK-1 time, but never past the moment the foot is
    /// expected to land (read on the animation's contact curve, else its last swing's
    /// length minus the time swung so far) — a foot about to land looks where it lands,
    /// not a stride further.
    fn swing_time_left_s(&self, look_ahead_s: f32, landing_in_s: f32) -> f32 {
        if landing_in_s.is_finite() {
            look_ahead_s.min(landing_in_s.max(0.0))
        } else if self.last_swing_s > 0.0 {
            look_ahead_s.min((self.last_swing_s - self.swing_time_s).max(0.0))
        } else {
            look_ahead_s
        }
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

    /// Step 1: where each foot should probe this tick (IK-1). A planted foot probes where
    /// it stands; a swinging one is pushed ahead by the horizontal velocity × look-ahead,
    /// scaled by how much it is swinging.
    pub fn plan_probes(
        &self,
        input: &FootIkInput,
        animated: &[AnimatedFoot; 2],
    ) -> [FootProbeRequest; 2] {
        let facing = Quat::from_rotation_y(finite_or(input.facing_yaw_rad, 0.0));
        let velocity = if input.velocity_world.is_finite() {
            Vec2::new(input.velocity_world.x, input.velocity_world.z)
        } else {
            Vec2::ZERO
        };
        let look_ahead_s = match self.config.mode {
            FootIkMode::Predictive => self.config.probe.look_ahead_s(velocity.length()),
            _ => 0.0,
        };
        let skip_all = self.config.mode == FootIkMode::None || !input.root_world.is_finite();
        std::array::from_fn(|i| {
            let foot = &animated[i];
            // A locked foot has landed: it probes where it stands.
            let swing = if self.feet[i].lock.is_locked() {
                0.0
            } else {
                1.0 - self.feet[i].contact.clamp(0.0, 1.0)
            };
            let placement = self.feet[i].placement_world();
            let placement = Vec3::new(placement.x, 0.0, placement.y);
            let mut heel_world = input.root_world + facing * foot.heel_model + placement;
            let mut ball_world = input.root_world + facing * foot.ball_model + placement;
            // A locked foot probes where it is held, not where the animation has it; one
            // gliding back after a release, where it still is (its ground is what it must
            // clear as it lifts).
            let lock = &self.feet[i].lock;
            let shift = match lock.locked_xz() {
                Some(locked) => Vec2::new(locked.x - ball_world.x, locked.y - ball_world.z),
                None => lock.release_offset_xz(),
            };
            heel_world += Vec3::new(shift.x, 0.0, shift.y);
            ball_world += Vec3::new(shift.x, 0.0, shift.y);
            // IK-1 with the clips' help: the foot lands where its clips set it down
            // relative to the body, carried on by the body's travel until the contact
            // curve rises; the probes take the foot's shape at landing (a swinging foot is
            // pitched, a landing one flat).
            let landing = input.landing_feet_model[i].filter(|_| {
                self.config.landing_from_clips
                    && look_ahead_s > 0.0
                    && input.landing_in_s[i].is_finite()
            });
            let time_left_s = if landing.is_some() {
                input.landing_in_s[i].max(0.0)
            } else {
                self.feet[i].swing_time_left_s(look_ahead_s, input.landing_in_s[i])
            };
            let landing_offset = landing.map_or(Vec2::ZERO, |landing| {
                let landed_ball = input.root_world + facing * landing.ball_model + placement;
                Vec2::new(landed_ball.x - ball_world.x, landed_ball.z - ball_world.z)
            });
            let landing_heel_from_ball_xz = landing.map(|landing| {
                let then = facing * (landing.heel_model - landing.ball_model);
                let now = heel_world - ball_world;
                Vec2::new(now.x, now.z).lerp(Vec2::new(then.x, then.z), swing)
            });
            // Narrow supports: brought in toward the body's line, check whether the ground
            // where the animation would set the foot down is still the body's (the support
            // has widened again); landing far below the body, check the body's line (a
            // beam's edge beside the foot, or only a step or a ledge ahead).
            let state = &self.feet[i];
            let left = facing * Vec3::X;
            let support_check_offset_world = if self.config.mode != FootIkMode::Predictive {
                None
            } else if state.narrow {
                Some(-state.narrow_shift_world)
            } else if state.landing_low {
                let mid = 0.5 * (heel_world + ball_world) - input.root_world;
                let lateral = mid.dot(left);
                Some(Vec2::new(-left.x, -left.z) * lateral)
            } else {
                None
            };
            FootProbeRequest {
                support_check_offset_world,
                heel_world,
                ball_world,
                look_ahead_offset_world: (velocity * time_left_s + landing_offset) * swing,
                landing_heel_from_ball_xz,
                single_point: self.config.mode == FootIkMode::Classic,
                skip: skip_all || !input.probe_feet[i],
                // IK-10: one feed-forward ray, carried by the left foot's request, at the
                // feet point pushed ahead by the full look-ahead (uncapped by the swing).
                ahead_world: (i == 0
                    && self.config.mode == FootIkMode::Predictive
                    && velocity.length() > NO_SUPPORT_MIN_SPEED_M_S)
                    .then(|| {
                        let offset = velocity * look_ahead_s;
                        input.root_world + Vec3::new(offset.x, 0.0, offset.y)
                    }),
            }
        })
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
                        state.support = if first || state.plane.is_none() {
                            1.0
                        } else {
                            ease(state.support, 1.0, dt_s, config.miss_fade_s)
                        };
                        state.source = Some(source);
                        state.second_plane = other_surface(&result, source);
                        // A swinging foot that will be set down on one tread of a step
                        // takes that tread's plane, not the higher one: a toe probe a
                        // hair past the next riser must not lift the whole foot a step.
                        // A foot the lock already has stands where it is (its heel may hang
                        // off a step up): the higher tread holds it.
                        let mut plane = plane;
                        if let (SupportSource::Edge, true, Some(shift)) = (
                            source,
                            state.contact < 0.5 && !state.lock.is_locked(),
                            tread_shift(&result, &config, state.placement_applied_world, true),
                        ) {
                            let toward_toe =
                                shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                            if let Some(side) = tread_plane(&result, toward_toe) {
                                plane = side;
                                state.second_plane = None;
                            }
                        }
                        // Heights are compared where the foot is going (the landing
                        // point), not extrapolated back to where it is.
                        let ahead = result.look_ahead_used_xz;
                        let eval = ankle_anim_world + Vec3::new(ahead.x, 0.0, ahead.y);
                        let previous = state.plane.map(|p| (p, state.plane_eval_xz));
                        let ahead_grew = ahead.length() > state.plane_ahead_m;
                        state.plane_eval_xz = Vec2::new(eval.x, eval.z);
                        state.plane_ahead_m = ahead.length();
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
                        state.plane = if state.replant && under_foot {
                            state.replant = false;
                            Some(plane)
                        } else {
                            Some(smooth_plane(
                                previous, plane, eval, rate_per_s, dt_s, ahead_grew,
                            ))
                        };
                    }
                    None => {
                        // IK-3: keep the last plane, fade the IK out.
                        state.support = ease(state.support, 0.0, dt_s, config.miss_fade_s);
                        state.source = None;
                        state.second_plane = None;
                        moving_all_missed[i] = !result.any_hit() && state.contact < 0.5;
                    }
                }
            }
            // Tread placement: a new swing starts from the animation; while swinging, a
            // landing across an edge moves the foot onto one tread, the shorter way.
            let planted_now = state.contact >= 0.5;
            if state.planted && !planted_now {
                state.placement_world = Vec2::ZERO;
                state.swing_time_s = 0.0;
                let ball = ball_xz[i];
                state.liftoff_height_m = state.plane.map(|p| p.height_at(ball.x, ball.y));
                state.liftoff_plane = state.plane;
            }
            if planted_now && !state.planted && state.swing_time_s > 0.0 {
                state.last_swing_s = state.swing_time_s;
            }
            if !planted_now {
                state.swing_time_s += dt_s;
            }
            state.planted = planted_now;
            // Only in the air: once the lock has the foot (it pins on the curve's own
            // rise, before the eased contact reaches 0.5) probes cast where the animation
            // carries on would pull it off the tread it landed on.
            if !planted_now && !state.lock.is_locked() && result.ran {
                if let (Some(SupportSource::Edge), Some(shift)) = (
                    state.source,
                    tread_shift(&result, &config, state.placement_applied_world, true),
                ) {
                    // The probes were cast with the applied placement, not the wanted one.
                    state.placement_world = state.placement_applied_world + shift;
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
            state.placement_applied_world +=
                (state.placement_world - state.placement_applied_world) * placement_rate;
            out.feet[i] = FootReport {
                contact: state.contact,
                predicted_world: result.ran.then_some(result.predicted_world),
                heel_hit: state.last_probe.heel.is_some(),
                toe_hit: state.last_probe.toe.is_some(),
                source: state.source,
                ankle_target_world: ankle_anim_world,
                ..FootReport::default()
            };
            let Some(mut plane) = state.plane else {
                continue;
            };
            let alpha = self.weight * state.support * input.lod_weight.clamp(0.0, 1.0);
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
                    state.replant = true;
                }
                match (
                    settle_now,
                    state.source,
                    tread_shift(&result, &config, Vec2::ZERO, false),
                ) {
                    (true, Some(SupportSource::Edge), Some(shift)) => {
                        state.lock.nudge(shift);
                        state.replant = true;
                        landed_now = true;
                        // It stands on that tread from this tick on: set down on the
                        // plane it left, a ball moved onto the higher tread is in the step.
                        let toward_toe =
                            shift.dot(result.toe_probe_xz - result.heel_probe_xz) > 0.0;
                        if let Some(tread) = tread_plane(&result, toward_toe) {
                            plane = tread;
                            state.plane = Some(tread);
                            state.second_plane = None;
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
                state.swing_time_s / (state.swing_time_s + landing_in_s)
            } else {
                1.0
            };
            let ground_at = |at: Vec2| {
                let mut ground = plane.height_at(at.x, at.y);
                if let Some(second) = state.second_plane {
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
                    let (here_m, carried_m) = match state.liftoff_plane {
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
                state.plane,
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

    /// Model transforms of the legs again after their local rotations changed (the rest of
    /// the skeleton is already up to date).
    fn update_legs(
        &self,
        skeleton: &Skeleton,
        pose: &Pose,
        model: &mut ModelPose,
    ) -> Result<(), FootIkError> {
        match self.rig.leg_joints {
            [Some(left), Some(right)] => {
                local_to_model_joints(skeleton, pose, model, left.as_slice())?;
                local_to_model_joints(skeleton, pose, model, right.as_slice())?;
            }
            _ => local_to_model(skeleton, pose, model)?,
        }
        Ok(())
    }
}

fn rotation_of(model: &ModelPose, joint: usize) -> Quat {
    let (_, rotation, _) = model.joints_model()[joint].to_scale_rotation_translation();
    rotation
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t.clamp(0.0, 1.0)
}

/// IK-8's reach, helped by the foot: an ankle target farther than `reach_m` from the hip is
/// brought closer by rolling the foot heel-up about its ball (the foot's ankle→ball vector
/// `ball_offset`, its sole's `up`, all model space), by the least angle up to `max_rad`
/// that reaches, or the angle that comes closest. `None` when the target is within reach
/// or rolling does not help. Returns the roll (model space) and the rolled ankle target.
fn roll_onto_ball(
    hip: Vec3,
    reach_m: f32,
    ankle_target: Vec3,
    ball_offset: Vec3,
    up: Vec3,
    max_rad: f32,
) -> Option<(Quat, Vec3)> {
    let usable = max_rad > 0.0 && reach_m > 0.0;
    if !usable || hip.distance(ankle_target) <= reach_m {
        return None;
    }
    let forward = (ball_offset - up * up.dot(ball_offset)).try_normalize()?;
    let axis = up.cross(forward).try_normalize()?;
    let ball = ankle_target + ball_offset;
    let rolled = |angle: f32| {
        let roll = Quat::from_axis_angle(axis, angle);
        (roll, ball - roll * ball_offset)
    };
    let miss = |angle: f32| hip.distance(rolled(angle).1) - reach_m;
    // Coarse steps to the first angle that reaches (or the closest), then bisection.
    const STEPS: u32 = 8;
    let (mut lo, mut best, mut best_miss) = (0.0f32, 0.0f32, miss(0.0));
    for k in 1..=STEPS {
        let angle = max_rad * k as f32 / STEPS as f32;
        let m = miss(angle);
        if m <= 0.0 {
            let mut hi = angle;
            for _ in 0..8 {
                let mid = 0.5 * (lo + hi);
                if miss(mid) <= 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(rolled(hi)).filter(|(r, a)| r.is_finite() && a.is_finite());
        }
        if m < best_miss {
            (best, best_miss) = (angle, m);
        }
        lo = angle;
    }
    (best > 0.0)
        .then(|| rolled(best))
        .filter(|(r, a)| r.is_finite() && a.is_finite())
}

/// Ground this much higher or lower than at lift-off makes a swing one onto another tread
/// (m), for the forefoot-first pitch.
const STAIR_STEP_MIN_M: f32 = 0.05;
/// A tread is level: its plane's normal within this of vertical (cos of 10°).
const STAIR_TREAD_MIN_UP: f32 = 0.985;

/// The forefoot-first pitch of a foot on stairs (see [`FootIkConfig::stair_toe_down_rad`]),
/// as a rotation about the character's lateral axis (model space, toes down), and its
/// weight brought up to date in `state`: in over the second half of a swing whose landing
/// (the ball's landing probe's hit) is a level tread
/// [`STAIR_STEP_MIN_M`] or more above or below where it lifted off, out over
/// `stair_heel_lower_s` once the lock has the foot (the heel lowers about the ball).
fn stair_pitch(
    state: &mut FootState,
    anim: AnimatedFoot,
    landing_in_s: f32,
    config: &FootIkConfig,
    dt_s: f32,
) -> Quat {
    if config.stair_toe_down_rad <= 0.0 || dt_s.is_nan() || dt_s < 0.0 {
        state.stair_pitch_w = 0.0;
        return Quat::IDENTITY;
    }
    if state.lock.is_locked() || state.contact >= 0.5 {
        let rate = if config.stair_heel_lower_s > 0.0 {
            dt_s / config.stair_heel_lower_s
        } else {
            1.0
        };
        state.stair_pitch_w = (state.stair_pitch_w - rate).max(0.0);
    } else {
        // Where the ball lands, as its probe found it (the smoothed plane may still be a
        // ramp's, or a crease's, when the landing is the first tread after a ramp).
        let onto_step = match (state.liftoff_height_m, state.last_probe.toe) {
            (Some(liftoff), Some(hit)) => {
                (hit.point.y - liftoff).abs() >= STAIR_STEP_MIN_M
                    && hit.normal.y >= STAIR_TREAD_MIN_UP
            }
            _ => false,
        };
        let progress = if landing_in_s.is_finite() && landing_in_s >= 0.0 {
            state.swing_time_s / (state.swing_time_s + landing_in_s).max(1e-6)
        } else {
            0.0
        };
        state.stair_pitch_w = if onto_step {
            smoothstep(((progress - 0.5) / 0.5).clamp(0.0, 1.0))
        } else {
            0.0
        };
    }
    if state.stair_pitch_w <= 0.0 {
        return Quat::IDENTITY;
    }
    // The animation's own pitch (toes down positive): a heel strike needs more turning.
    let sole = anim.ball_model - anim.heel_model;
    let along = Vec2::new(sole.x, sole.z).length();
    let anim_toe_down_rad = (-sole.y).atan2(along);
    let extra_rad = (config.stair_toe_down_rad - anim_toe_down_rad).max(0.0);
    Quat::from_rotation_x(state.stair_pitch_w * extra_rad)
}

/// Tread placement (IK-4): for heel and toe probes across a step edge, the move along the
/// foot (world xz) that puts it fully on one side, with the margin; `None` without a
/// located step edge or with placement off. The shorter way, unless that would take the
/// foot's whole placement (`placed_world`, already in the probes, plus the move) past
/// [`FootIkConfig::max_placement_m`] while the other way stays within it: a foot already
/// moved forward most of the limit is not pushed against it (and set down across the
/// edge) when going back onto the other tread fits.
fn tread_shift(
    result: &FootProbeResult,
    config: &FootIkConfig,
    placed_world: Vec2,
    crests: bool,
) -> Option<Vec2> {
    if config.max_placement_m <= 0.0 {
        return None;
    }
    // Steps (a riser between, the same slope on both sides or found by the probes, as
    // from a flight's last tread onto a ramp) and, with `crests`, a swinging foot across a
    // crest (a platform's edge above a ramp going down: set down across it, it stands on
    // its heel with the toes in the air). A planted foot on a crest is left there: moved,
    // it would slide. A concave crease (the foot of a ramp) is stood on as it is.
    let (heel, toe) = (result.heel?, result.toe?);
    let crest = crests && super::foot::lower_plane_if_concave(heel, toe).is_none();
    if !super::foot::same_slope(heel, toe) && !result.riser && !crest {
        return None;
    }
    let f = result.edge_fraction?;
    let along = result.toe_probe_xz - result.heel_probe_xz;
    let length = along.length();
    let dir = along.try_normalize()?;
    let edge = f * length;
    let forward = dir * (edge + config.placement_margin_m);
    let backward = -dir * (length - edge + config.placement_margin_m);
    let fits = |shift: Vec2| (placed_world + shift).length() <= config.max_placement_m;
    let (shorter, longer) = if forward.length() <= backward.length() {
        (forward, backward)
    } else {
        (backward, forward)
    };
    let shift = if !fits(shorter) && fits(longer) {
        longer
    } else {
        shorter
    };
    // Within the limit as a whole placement, not only as this move.
    let limited = (placed_world + shift).clamp_length_max(config.max_placement_m);
    Some(limited - placed_world)
}

/// A swinging sole's ground (m) at `swing_progress` (0 lift-off … 1 touch-down): from
/// `here_m` (the ground under it) to `there_m` (where it lands). The part of the rise the
/// surface under it carries on to the landing (`carried_m`, a ramp's) is followed over
/// the whole swing; what the landing has above that is a step, climbed by
/// [`STEP_CLIMB_PROGRESS`] of the swing so the toe is over the nosing before it gets there
/// (a bump of a few cm is taken in the stride).
fn swing_ground_m(here_m: f32, carried_m: f32, there_m: f32, swing_progress: f32) -> f32 {
    let progress = swing_progress.clamp(0.0, 1.0);
    let toward_landing = smoothstep(progress);
    let over_steps = smoothstep((progress / STEP_CLIMB_PROGRESS).min(1.0));
    let step_up_m = (there_m - carried_m.max(here_m)).max(0.0);
    let step = smoothstep((step_up_m / STEP_MIN_M).min(1.0));
    let climb = lerp(toward_landing, over_steps, step);
    lerp(here_m, there_m - step_up_m, toward_landing) + step_up_m * climb
}

/// The least distance a swinging foot keeps from the planted one (m): the lab's gate is
/// 5 cm between the feet's ankle–heel–ball segments; a little more, for the solve.
const FEET_CLEARANCE_M: f32 = 0.06;

/// The lowest a swinging foot's target may go this tick (m, world): from `last_y`, moving
/// at `last_speed_m_s` (m/s, up positive), speeding up downward by at most
/// [`SWING_DROP_ACCEL_M_S2`]. Slowing down, rising or stopping is not limited.
fn limit_drop_m(last_y: f32, last_speed_m_s: f32, dt_s: f32) -> f32 {
    if !(last_y.is_finite() && last_speed_m_s.is_finite() && dt_s > 0.0) {
        return f32::MIN;
    }
    let speed = last_speed_m_s.min(0.0) - SWING_DROP_ACCEL_M_S2 * dt_s;
    last_y + speed * dt_s
}

/// How fast a swinging foot may speed up downward (m/s²): a tread's 20 cm in about 0.05 s
/// from rest, well above what a gait's own swing asks.
const SWING_DROP_ACCEL_M_S2: f32 = 150.0;

/// Share of the swing (0..1) by which a step up between a foot and its landing is climbed.
const STEP_CLIMB_PROGRESS: f32 = 0.4;

/// A swinging foot climbing to higher ground keeps at most this much (m) of the
/// animation's lift over it: a step's clearance, not a heel kick.
const CLIMB_LIFT_MAX_M: f32 = 0.12;

/// A rise between a foot and its landing this high (m) or more is a step to climb early.
const STEP_MIN_M: f32 = 0.08;

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

/// How far (m) a smoothed support plane is extrapolated from where it was last evaluated.
const MAX_PLANE_EXTRAPOLATION_M: f32 = 0.15;

/// A landing this far below the body's ground (m) is off the support, not on it...
const OFF_SUPPORT_DROP_M: f32 = 0.3;
/// ...and on a narrow support the foot comes in to this far from the body's line (m).
const NARROW_OFFSET_M: f32 = 0.02;

/// Narrow supports (a beam narrower than the stance): when the probes find the landing far
/// below the body's ground while the body's line at the landing is on it, the foot is
/// brought in toward that line (`narrow_shift_world`) until its probes find the support,
/// and the low hits are not taken as ground meanwhile (a foot never reaches down past the
/// edge). Once the ground where the animation would set the foot down is the body's again,
/// the shift goes. Steps and ledges ahead are low at the body's line too: left alone.
fn narrow_support(
    state: &mut FootState,
    result: &mut FootProbeResult,
    input: &FootIkInput,
    facing: Quat,
    dt_s: f32,
    config: &FootIkConfig,
) {
    let support_y = input.root_world.y - OFF_SUPPORT_DROP_M;
    let off = |hit: Option<RayHit>| hit.is_none_or(|h| h.point.y < support_y);
    let on = |hit: Option<RayHit>| hit.is_some_and(|h| h.point.y >= support_y);
    let landing_low =
        input.grounded && result.heel.is_some() && off(result.heel) && off(result.toe);
    match result.support_check {
        Some(check) if !state.narrow && landing_low && on(check) => state.narrow = true,
        Some(check) if state.narrow && on(check) => state.narrow = false,
        _ => {}
    }
    if !input.grounded {
        state.narrow = false;
    }
    state.landing_low = landing_low;
    // Only a swinging foot moves; a planted one stays where it was set down.
    let left = facing * Vec3::X;
    let left_xz = Vec2::new(left.x, left.z);
    if state.contact < 0.5 && dt_s > 0.0 {
        let target = if state.narrow {
            let mid = result.predicted_world - input.root_world;
            let lateral = Vec2::new(mid.x, mid.z).dot(left_xz);
            let unshifted = lateral - state.narrow_shift_world.dot(left_xz);
            let wanted = unshifted.signum() * unshifted.abs().min(NARROW_OFFSET_M);
            left_xz * (wanted - unshifted)
        } else {
            Vec2::ZERO
        };
        let rate = damp_share(config.swing_smoothing_per_s, dt_s);
        state.narrow_shift_world += (target - state.narrow_shift_world) * rate;
    }
    // Off the support while still being brought in: not ground to stand on. The foot
    // keeps to the support's height, found on the body's line, meanwhile.
    if state.narrow && landing_low {
        let support = result.support_check.flatten().filter(|h| on(Some(*h)));
        let at = |xz: Vec2| {
            support.map(|h| RayHit {
                point: Vec3::new(xz.x, h.point.y, xz.y),
                ..h
            })
        };
        result.heel = at(result.heel_probe_xz);
        result.toe = at(result.toe_probe_xz);
        result.edge_fraction = None;
    }
}

/// Moves `value` toward `target` by at most `dt / time` (a linear ease; `time` ≤ 0 snaps).
fn ease(value: f32, target: f32, dt_s: f32, time_s: f32) -> f32 {
    if time_s.is_nan() || time_s <= 0.0 {
        return target;
    }
    let step = dt_s / time_s;
    value + (target - value).clamp(-step, step)
}

/// IK-6: eases the smoothed plane toward `target` at `rate_per_s`, measured where the foot
/// is (height there and normal), so a uniform slope never lags however fast the foot moves.
///
/// The smoothed plane is only trusted near where it was last evaluated: when the point
/// jumps back (a landing ends the look-ahead), the new measurement under the foot is taken
/// as it is, since a plane fitted 0.7 m ahead (a pebble, the next flight) says nothing
/// about the ground under the foot. A jump ahead (`look_ahead_grew`: a lift-off) eases
/// from the plane the foot stood on, or the foot would leap to its landing's height.
fn smooth_plane(
    current: Option<(SupportPlane, Vec2)>,
    target: SupportPlane,
    foot_world: Vec3,
    rate_per_s: f32,
    dt_s: f32,
    look_ahead_grew: bool,
) -> SupportPlane {
    let Some((current, last_xz)) = current else {
        return target;
    };
    let a = damp_share(rate_per_s.max(0.0), dt_s);
    let (x, z) = (foot_world.x, foot_world.z);
    if !look_ahead_grew && last_xz.distance(Vec2::new(x, z)) > MAX_PLANE_EXTRAPOLATION_M {
        return target;
    }
    let h_now = current.height_at(x, z);
    let h = h_now + (target.height_at(x, z) - h_now) * a;
    let normal = current.normal_world.lerp(target.normal_world, a);
    SupportPlane::through(Vec3::new(x, h, z), normal).unwrap_or(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::foot::run_foot_probe;
    use crate::mannequin::Mannequin;
    use crate::world::testing::HeightWorld;
    use crate::world::{QueryFilter, World};

    #[test]
    fn contact_counts_only_while_the_animated_foot_is_down() {
        let config = FootIkConfig::default();
        let at = |lift_m: f32| AnimatedFoot {
            heel_model: Vec3::new(0.0, lift_m + 0.05, -0.05),
            ball_model: Vec3::new(0.0, lift_m, 0.15),
            ..AnimatedFoot::default()
        };
        // Down (or a hair up): the curve's value stands.
        assert_eq!(at(0.0).gated_contact(0.8, &config), 0.8);
        assert_eq!(
            at(config.contact_lift_full_m).gated_contact(0.8, &config),
            0.8
        );
        // Halfway: faded; the lower sole point counts, not the heel.
        let half = 0.5 * (config.contact_lift_full_m + config.contact_lift_none_m);
        let faded = at(half).gated_contact(1.0, &config);
        assert!((faded - 0.5).abs() < 1e-4, "{faded}");
        // A blend lifting the foot 10 cm is in the air, whatever the curve says.
        assert_eq!(at(0.10).gated_contact(0.6, &config), 0.0);
        // No curve stays no curve; a sunk foot is down.
        assert!(at(0.0).gated_contact(f32::NAN, &config).is_nan());
        assert_eq!(at(-0.03).gated_contact(1.0, &config), 1.0);
    }

    /// Ground at `left_m` for x > 0 (the character's left at yaw 0), `right_m` for x ≤ 0;
    /// `None` is a hole.
    fn split_world(
        left_m: Option<f32>,
        right_m: Option<f32>,
    ) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
        HeightWorld::new(move |x, _| if x > 0.0 { left_m } else { right_m }.map(|h| (h, Vec3::Y)))
    }

    /// A step: ground at 0 for z < `edge_z`, at `step_m` beyond.
    fn step_world(
        edge_z: f32,
        step_m: f32,
    ) -> HeightWorld<impl Fn(f32, f32) -> Option<(f32, Vec3)>> {
        HeightWorld::new(move |_, z| Some((if z < edge_z { 0.0 } else { step_m }, Vec3::Y)))
    }

    struct Rig {
        mannequin: Mannequin,
        pose: Pose,
        model: ModelPose,
        ik: FootIk,
    }

    fn rig(mode: FootIkMode) -> Rig {
        let mannequin = Mannequin::new();
        let rig = FootRig::new(&mannequin.skeleton, &mannequin.bones).unwrap();
        let pose = Pose::rest(&mannequin.skeleton);
        let model = ModelPose::new(pose.num_joints());
        let config = FootIkConfig {
            mode,
            ..FootIkConfig::default()
        };
        Rig {
            ik: FootIk::new(config, rig),
            mannequin,
            pose,
            model,
        }
    }

    fn input(root: Vec3, contact: f32) -> FootIkInput {
        FootIkInput {
            root_world: root,
            facing_yaw_rad: 0.0,
            velocity_world: Vec3::ZERO,
            grounded: true,
            dt_s: 1.0 / 60.0,
            contact_curve: [contact; 2],
            lod_weight: 1.0,
            probe_feet: [true; 2],
            landing_in_s: [f32::NAN; 2],
            landing_feet_model: [None; 2],
        }
    }

    /// One tick on the Idle pose; returns each foot's lowest sole point (world y).
    fn tick(r: &mut Rig, world: &dyn World, input: &FootIkInput) -> [f32; 2] {
        tick_bent(r, world, input, 0.0)
    }

    /// [`tick`] with the animated right knee bent by `right_knee_rad` (a foot lifted as in
    /// a swing).
    fn tick_bent(
        r: &mut Rig,
        world: &dyn World,
        input: &FootIkInput,
        right_knee_rad: f32,
    ) -> [f32; 2] {
        tick_swung(r, world, input, 0.0, right_knee_rad)
    }

    /// [`tick_bent`] with the right thigh also swung forward by `right_hip_rad`.
    fn tick_swung(
        r: &mut Rig,
        world: &dyn World,
        input: &FootIkInput,
        right_hip_rad: f32,
        right_knee_rad: f32,
    ) -> [f32; 2] {
        let idle = r.mannequin.clip("Idle").unwrap();
        idle.sample(0.0, r.mannequin.skeleton.rest_local(), &mut r.pose)
            .unwrap();
        let chain = r.ik.rig().legs[1].chain;
        // The mannequin's rest rotations are identity: a turn about -X swings the leg
        // forward, about +X bends the knee back.
        r.pose.local_mut()[chain.thigh].rotation *= Quat::from_rotation_x(-right_hip_rad);
        r.pose.local_mut()[chain.calf].rotation *= Quat::from_rotation_x(right_knee_rad);
        local_to_model(&r.mannequin.skeleton, &r.pose, &mut r.model).unwrap();
        let animated = r.ik.rig().animated_feet(&r.model);
        let requests = r.ik.plan_probes(input, &animated);
        let config = r.ik.config.probe;
        let results = requests.map(|q| run_foot_probe(world, QueryFilter::GROUND, &config, &q));
        r.ik.solve(
            input,
            &animated,
            &results,
            &r.mannequin.skeleton,
            &mut r.pose,
            &mut r.model,
        )
        .unwrap();
        [0, 1].map(|i| {
            let (heel, ball) = sole_points(r, i);
            input.root_world.y + heel.y.min(ball.y)
        })
    }

    /// The feet of the Idle pose (left into the rig's pose buffers; a tick resamples).
    fn idle_feet(r: &mut Rig) -> [AnimatedFoot; 2] {
        let idle = r.mannequin.clip("Idle").unwrap();
        idle.sample(0.0, r.mannequin.skeleton.rest_local(), &mut r.pose)
            .unwrap();
        local_to_model(&r.mannequin.skeleton, &r.pose, &mut r.model).unwrap();
        r.ik.rig().animated_feet(&r.model)
    }

    /// `foot` moved `dz_m` forward (model +Z).
    fn moved_ahead(mut foot: AnimatedFoot, dz_m: f32) -> AnimatedFoot {
        for p in [
            &mut foot.ankle_model,
            &mut foot.heel_model,
            &mut foot.ball_model,
        ] {
            p.z += dz_m;
        }
        foot
    }

    /// Tick `k` (60 Hz) of a 0.4 s swing of the right foot from `planted` to `landing`
    /// (its landing pose, as the clips would say), the body creeping forward.
    fn swing_input(planted: FootIkInput, landing: AnimatedFoot, k: usize) -> FootIkInput {
        let mut swinging = planted;
        swinging.contact_curve[1] = 0.0;
        swinging.landing_in_s[1] = 0.4 - k as f32 / 60.0;
        swinging.landing_feet_model[1] = Some(landing);
        swinging.velocity_world = Vec3::new(0.0, 0.0, 0.01);
        swinging
    }

    /// Heel and ball sole points of leg `i` in the rig's current model pose.
    fn sole_points(r: &Rig, i: usize) -> (Vec3, Vec3) {
        let leg = r.ik.rig().legs[i];
        (
            r.model
                .point_model(leg.chain.foot, leg.sockets.heel_foot_local),
            r.model
                .point_model(leg.chain.foot, leg.sockets.ball_foot_local),
        )
    }

    #[test]
    fn the_legs_alone_are_recomputed_and_the_model_pose_stays_whole() {
        let r = rig(FootIkMode::Predictive);
        let foot_rig = *r.ik.rig();
        for (leg, joints) in foot_rig.legs.iter().zip(foot_rig.leg_joints) {
            let joints = joints.expect("the mannequin's legs fit");
            let set = joints.as_slice();
            assert_eq!(set[0], leg.chain.thigh);
            for joint in [leg.chain.calf, leg.chain.foot] {
                assert!(set.contains(&joint), "{joint} in {set:?}");
            }
            assert!(!set.contains(&foot_rig.pelvis));
            for (k, &joint) in set.iter().enumerate().skip(1) {
                let parent = r.mannequin.skeleton.parent(joint).unwrap();
                assert!(set[..k].contains(&parent), "parent of {joint} comes first");
            }
        }
        // After a solve that moved the pelvis and both legs, the model pose is exactly the
        // local pose's (nothing left stale by the partial updates).
        let mut r = rig(FootIkMode::Predictive);
        let world = split_world(Some(0.05), Some(-0.2));
        for _ in 0..10 {
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        assert!(r.ik.output().pelvis_offset_m < -0.01);
        let mut full = ModelPose::new(r.pose.num_joints());
        local_to_model(&r.mannequin.skeleton, &r.pose, &mut full).unwrap();
        for (a, b) in r.model.joints_model().iter().zip(full.joints_model()) {
            assert!(a.abs_diff_eq(*b, 1e-6), "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn each_foot_stands_on_its_own_ground() {
        let mut r = rig(FootIkMode::Predictive);
        let world = split_world(Some(0.08), Some(-0.04));
        let mut soles = [0.0; 2];
        for _ in 0..60 {
            soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        assert!((soles[0] - 0.08).abs() < 2e-3, "left sole at {}", soles[0]);
        assert!((soles[1] + 0.04).abs() < 2e-3, "right sole at {}", soles[1]);
        let out = r.ik.output();
        assert_eq!(out.knee_flips, 0);
        assert!(out.feet.iter().all(|f| f.locked && f.ik_alpha == 1.0));
    }

    #[test]
    fn the_pelvis_comes_down_when_a_foot_cannot_reach() {
        let mut r = rig(FootIkMode::Predictive);
        let world = split_world(Some(0.0), Some(-0.3));
        let mut soles = [0.0; 2];
        for _ in 0..90 {
            soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        let out = *r.ik.output();
        assert!(
            out.pelvis_offset_m < -0.1,
            "pelvis offset {}",
            out.pelvis_offset_m
        );
        assert!((soles[1] + 0.3).abs() < 5e-3, "right sole at {}", soles[1]);
        assert!(soles[0].abs() < 5e-3, "left sole at {}", soles[0]);
        // Flat again: the pelvis returns, slower than it went down.
        let flat = split_world(Some(0.0), Some(0.0));
        tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
        let after_one = r.ik.output().pelvis_offset_m;
        assert!(
            after_one < out.pelvis_offset_m * 0.8,
            "rose too fast: {after_one}"
        );
        for _ in 0..120 {
            tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
        }
        assert!(r.ik.output().pelvis_offset_m.abs() < 5e-3);
    }

    #[test]
    fn a_foot_rolls_onto_its_ball_by_the_least_angle_that_reaches() {
        let hip = Vec3::new(0.0, 0.9, 0.0);
        let ball_offset = Vec3::new(0.0, -0.08, 0.13);
        let max = 40f32.to_radians();
        // Within reach, or the roll switched off: nothing to do.
        let near = Vec3::new(0.0, 0.15, 0.0);
        assert!(roll_onto_ball(hip, 0.8, near, ball_offset, Vec3::Y, max).is_none());
        let far = Vec3::new(0.0, 0.08, -0.05);
        assert!(roll_onto_ball(hip, 0.8, far, ball_offset, Vec3::Y, 0.0).is_none());
        // 2.3 cm out of reach: rolled until the ankle is just within reach, heel up, the
        // ball where it was.
        let (roll, ankle) = roll_onto_ball(hip, 0.8, far, ball_offset, Vec3::Y, max).unwrap();
        let reach_left = 0.8 - hip.distance(ankle);
        assert!((0.0..2e-3).contains(&reach_left), "reach left {reach_left}");
        assert!(ankle.y > far.y, "ankle {ankle}");
        let ball = far + ball_offset;
        assert!((ankle + roll * ball_offset).distance(ball) < 1e-5);
        let heel_offset = Vec3::new(0.0, -0.08, -0.05);
        assert!((roll * heel_offset).y > heel_offset.y, "heel comes up");
        assert!(roll.angle_between(Quat::IDENTITY) < max);
        // Far out of reach: the whole allowed roll, and no more.
        let (roll, _) = roll_onto_ball(hip, 0.6, far, ball_offset, Vec3::Y, max).unwrap();
        assert!((roll.angle_between(Quat::IDENTITY) - max).abs() < 1e-4);
        // Degenerate input never gives a non-finite answer.
        for bad in [Vec3::NAN, Vec3::ZERO] {
            let rolled = roll_onto_ball(hip, 0.8, far, bad, Vec3::Y, max);
            assert!(rolled.is_none(), "{rolled:?}");
        }
        assert!(roll_onto_ball(hip, f32::NAN, far, ball_offset, Vec3::Y, max).is_none());
    }

    #[test]
    fn a_planted_foot_out_of_reach_stands_on_its_ball_not_in_the_air() {
        // The right ground drops 8 cm: on the first tick the pelvis has only begun to come
        // down, so the right leg cannot reach a flat foot there.
        let world = split_world(Some(0.0), Some(-0.08));
        let run = |max_roll_deg: f32| {
            let mut r = rig(FootIkMode::Predictive);
            r.ik.config.max_reach_roll_rad = max_roll_deg.to_radians();
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
            let (heel, ball) = sole_points(&r, 1);
            let toe = r.ik.rig().legs[1].chain.ball.unwrap();
            (heel, ball, rotation_of(&r.model, toe), *r.ik.output())
        };
        let (flat_heel, flat_ball, flat_toe, flat_out) = run(0.0);
        assert!(
            flat_out.reach_clamps > 0,
            "the test needs a leg out of reach"
        );
        assert!(
            flat_ball.y > -0.08 + 0.01,
            "without the roll it floats: {flat_ball}"
        );
        assert!((flat_heel.y - flat_ball.y).abs() < 0.01);
        let (heel, ball, toe, out) = run(40.0);
        assert!((ball.y + 0.08).abs() < 2e-3, "ball {ball}");
        assert!(heel.y > ball.y + 0.02, "heel up: {heel}, ball {ball}");
        assert_eq!(out.knee_flips, 0);
        // The toes stay as the plane has them: the foot bends at the ball.
        assert!(
            toe.angle_between(flat_toe) < 1e-3,
            "toe {toe} vs {flat_toe}"
        );
    }

    #[test]
    fn the_pelvis_comes_down_ahead_of_a_landing_it_could_not_reach() {
        // The right foot swings with its knee bent over ground 25 cm lower, to land as the
        // Idle pose has it: reachable now, not when it lands.
        let world = split_world(Some(0.0), Some(-0.25));
        let flat = split_world(Some(0.0), Some(0.0));
        let swing = |landing_in_s: f32| {
            let mut r = rig(FootIkMode::Predictive);
            tick(&mut r, &flat, &input(Vec3::ZERO, 1.0));
            let landing = idle_feet(&mut r)[1];
            let mut swinging = input(Vec3::ZERO, 1.0);
            swinging.contact_curve[1] = 0.0;
            swinging.landing_in_s[1] = landing_in_s;
            swinging.landing_feet_model[1] = Some(landing);
            let mut offsets = Vec::new();
            for _ in 0..6 {
                tick_bent(&mut r, &world, &swinging, 70f32.to_radians());
                offsets.push(r.ik.output().pelvis_offset_m);
            }
            offsets
        };
        let unknown = swing(f32::NAN);
        let far_off = swing(1.0);
        let soon = swing(0.05);
        assert_eq!(
            unknown, far_off,
            "a landing a second away changes nothing yet"
        );
        let (last_unknown, last_soon) = (unknown[5], soon[5]);
        assert!(
            last_soon < last_unknown - 0.05,
            "pelvis {last_soon} vs {last_unknown} without the landing time"
        );
        // Still the pelvis's own rate: no step bigger than the down rate allows.
        let rate = 1.0 - (-PelvisConfig::default().down_rate_per_s / 60.0).exp();
        for w in soon.windows(2) {
            assert!(w[0] - w[1] <= rate * 0.5 + 1e-4, "{soon:?}");
        }
    }

    #[test]
    fn a_foot_gliding_back_after_a_release_probes_where_it_is() {
        // Its ground is what a lifting foot must clear: the animated foot may already be
        // a step further on (over the next tread down).
        let world = split_world(Some(0.0), Some(0.0));
        let mut r = rig(FootIkMode::Predictive);
        for _ in 0..5 {
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        let (_, held_ball) = sole_points(&r, 0);
        // The body moves on 20 cm and the stance ends: the lock lets go and glides back.
        let moved = input(Vec3::new(0.0, 0.0, 0.2), 0.0);
        while r.ik.output().feet[0].locked {
            tick(&mut r, &world, &moved);
        }
        let mut pose = Pose::rest(&r.mannequin.skeleton);
        let mut model = ModelPose::new(pose.num_joints());
        let idle = r.mannequin.clip("Idle").unwrap();
        idle.sample(0.0, r.mannequin.skeleton.rest_local(), &mut pose)
            .unwrap();
        local_to_model(&r.mannequin.skeleton, &pose, &mut model).unwrap();
        let animated = r.ik.rig().animated_feet(&model);
        let request = r.ik.plan_probes(&moved, &animated)[0];
        let animated_ball_z = 0.2 + animated[0].ball_model.z;
        assert!(
            (request.ball_world.z - held_ball.z).abs() < 0.05,
            "probes at z {} (held at {}, animated at {animated_ball_z})",
            request.ball_world.z,
            held_ball.z
        );
    }

    #[test]
    fn contact_comes_from_the_curve_or_else_the_foot_speed() {
        let world = split_world(Some(0.0), Some(0.0));
        // Curve says swing: contact eases to 0 within the ease time.
        let mut r = rig(FootIkMode::Predictive);
        tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        for _ in 0..6 {
            tick(&mut r, &world, &input(Vec3::ZERO, 0.0));
        }
        assert_eq!(r.ik.output().feet[0].contact, 0.0);
        // No curve: the Idle feet carried at 2 m/s are swinging, standing still planted.
        let mut r = rig(FootIkMode::Predictive);
        let mut root = Vec3::ZERO;
        for _ in 0..10 {
            root.z += 2.0 / 60.0;
            tick(&mut r, &world, &input(root, f32::NAN));
        }
        assert!(r.ik.output().feet.iter().all(|f| f.contact == 0.0));
        for _ in 0..10 {
            tick(&mut r, &world, &input(root, f32::NAN));
        }
        assert!(r.ik.output().feet.iter().all(|f| f.contact == 1.0));
    }

    #[test]
    fn a_foot_landing_across_a_step_edge_is_set_down_on_one_tread() {
        let mut r = rig(FootIkMode::Predictive);
        // Where the Idle left foot's heel and ball are (model z), put the edge between them.
        let feet = idle_feet(&mut r);
        let edge_z = 0.5 * (feet[0].heel_model.z + feet[0].ball_model.z);
        let world = step_world(edge_z, 0.15);
        for _ in 0..30 {
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        let (heel, ball) = sole_points(&r, 0);
        let side = |z: f32| z >= edge_z;
        assert_eq!(
            side(heel.z),
            side(ball.z),
            "heel {heel}, ball {ball}, edge {edge_z}"
        );
        // And it stands on that tread: no float, no penetration.
        let ground = if side(ball.z) { 0.15 } else { 0.0 };
        assert!(
            (heel.y.min(ball.y) - ground).abs() < 3e-3,
            "sole {heel} {ball}"
        );
        assert_eq!(r.ik.output().knee_flips, 0);

        // A step down (the toe hanging over the nosing) is settled too, on the first
        // probes taken where the foot stands; and once set down on its tread it stands on
        // it from the next tick (the plane there is taken as it is, not eased down to; a
        // 6 cm step, which the leg reaches without waiting for the pelvis).
        let low = step_world(edge_z, -0.06);
        let mut r = rig(FootIkMode::Predictive);
        let mut settled_at = None;
        for k in 0..30 {
            tick(&mut r, &low, &input(Vec3::ZERO, 1.0));
            let (heel, ball) = sole_points(&r, 0);
            if side(heel.z) == side(ball.z) && settled_at.is_none() {
                settled_at = Some(k);
            }
            if settled_at.is_some_and(|at| k > at) {
                let ground = if side(ball.z) { -0.06 } else { 0.0 };
                let sole = heel.y.min(ball.y);
                assert!(
                    (sole - ground).abs() < 3e-3,
                    "tick {k}: sole {sole} over {ground}"
                );
            }
        }
        assert!(
            settled_at.is_some_and(|at| at < 5),
            "settled at {settled_at:?}"
        );
        let down = step_world(edge_z, -0.15);
        let mut r = rig(FootIkMode::Predictive);
        for _ in 0..30 {
            tick(&mut r, &down, &input(Vec3::ZERO, 1.0));
        }
        let (heel, ball) = sole_points(&r, 0);
        assert_eq!(side(heel.z), side(ball.z), "down: heel {heel}, ball {ball}");
        let ground = if side(ball.z) { -0.15 } else { 0.0 };
        assert!(
            (heel.y.min(ball.y) - ground).abs() < 3e-3,
            "down: sole {heel} {ball}"
        );

        // With placement off the same foot stays across the edge.
        let mut r = rig(FootIkMode::Predictive);
        r.ik.config.max_placement_m = 0.0;
        for _ in 0..30 {
            tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        }
        let (heel, ball) = sole_points(&r, 0);
        assert_ne!(side(heel.z), side(ball.z), "placement off: {heel} {ball}");
    }

    #[test]
    fn a_swinging_foot_across_a_step_takes_the_tread_it_will_be_set_on() {
        // The right foot swings with a step up 4 cm behind its ball: most of the foot is
        // over the lower tread, so it is moved back onto it and takes its height, not
        // lifted a whole step by the toe's probe.
        let mut r = rig(FootIkMode::Predictive);
        let feet = idle_feet(&mut r);
        let edge_z = feet[1].ball_model.z - 0.04;
        let world = step_world(edge_z, 0.15);
        let mut swinging = input(Vec3::ZERO, 1.0);
        swinging.contact_curve[1] = 0.0;
        for k in 0..10 {
            tick(&mut r, &world, &swinging);
            let report = r.ik.output().feet[1];
            if k == 0 {
                assert_eq!(report.source, Some(SupportSource::Edge));
            }
            let support = report.support_height_m.unwrap();
            assert!(
                support.abs() < 1e-3,
                "tick {k}: support at {support}, not the lower tread"
            );
        }
        // The step ahead is cleared, not stood on.
        let (heel, ball) = sole_points(&r, 1);
        assert!(heel.y.min(ball.y) > -1e-3, "sole {heel} {ball}");
    }

    #[test]
    fn a_swinging_foot_across_a_crest_is_set_on_one_side_of_it() {
        // A platform at 0 ending between the right foot's heel and ball, then a 40° ramp
        // down: set down across the crest, the foot would stand on its heel with the toes
        // in the air. Swinging, it is moved onto the platform or the ramp.
        let mut r = rig(FootIkMode::Predictive);
        let feet = idle_feet(&mut r);
        let edge_z = 0.5 * (feet[1].heel_model.z + feet[1].ball_model.z);
        let slope = 40f32.to_radians();
        let down = Vec3::new(0.0, slope.cos(), slope.sin());
        let world = HeightWorld::new(move |_, z: f32| {
            Some(if z < edge_z {
                (0.0, Vec3::Y)
            } else {
                (-(z - edge_z) * slope.tan(), down)
            })
        });
        let mut swinging = input(Vec3::ZERO, 1.0);
        swinging.contact_curve[1] = 0.0;
        for _ in 0..20 {
            tick(&mut r, &world, &swinging);
        }
        let (heel, ball) = sole_points(&r, 1);
        assert_eq!(
            heel.z < edge_z,
            ball.z < edge_z,
            "heel {heel}, ball {ball}, crest {edge_z}"
        );
    }

    #[test]
    fn a_foot_lifting_off_for_a_higher_landing_rises_over_the_swing_not_at_once() {
        // The right foot stands on the floor and swings (0.4 s) to land on a 25 cm step
        // 0.6 m ahead, as its landing pose and the body's travel say.
        let mut r = rig(FootIkMode::Predictive);
        let world = step_world(0.3, 0.25);
        let planted = input(Vec3::ZERO, 1.0);
        for _ in 0..10 {
            tick(&mut r, &world, &planted);
        }
        let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
        let mut heights = Vec::new();
        for k in 0..24 {
            heights.push(tick(&mut r, &world, &swing_input(planted, landing, k))[1]);
        }
        // It gets there: over the step by touch-down.
        assert!(heights[23] > 0.2, "{heights:?}");
        // But no tick lifts it by more than a third of the step.
        for w in heights.windows(2) {
            assert!(w[1] - w[0] < 0.08, "{heights:?}");
        }
    }

    #[test]
    fn a_foot_swinging_onto_a_step_lands_ball_first_then_lowers_its_heel() {
        // As above, but with the flat Idle foot: over the second half of the swing the
        // foot pitches toes-down, so its ball meets the 25 cm step before its heel; planted,
        // the heel comes down about the ball within `stair_heel_lower_s`.
        let heel_above_ball = |toe_down_rad: f32| {
            let mut r = rig(FootIkMode::Predictive);
            r.ik.config.stair_toe_down_rad = toe_down_rad;
            let world = step_world(0.3, 0.25);
            let planted = input(Vec3::ZERO, 1.0);
            for _ in 0..10 {
                tick(&mut r, &world, &planted);
            }
            let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
            let mut swinging = planted;
            for k in 0..24 {
                swinging = swing_input(planted, landing, k);
                tick(&mut r, &world, &swinging);
            }
            let (heel, ball) = sole_points(&r, 1);
            let at_touch_down = heel.y - ball.y;
            // Planted for 0.3 s (twice the heel's time) where it landed.
            let mut landed = swinging;
            landed.contact_curve[1] = 1.0;
            landed.landing_in_s[1] = 0.0;
            for _ in 0..18 {
                tick(&mut r, &world, &landed);
            }
            let (heel, ball) = sole_points(&r, 1);
            (at_touch_down, heel.y - ball.y)
        };
        let (touch_down, planted) = heel_above_ball(15f32.to_radians());
        // A 0.2 m sole at 15°: the heel 5 cm above the ball.
        assert!(touch_down > 0.04, "heel {touch_down} m above the ball");
        assert!(
            planted.abs() < 0.005,
            "heel {planted} m above the ball, planted"
        );
        // Off: the Idle foot comes down flat.
        let (touch_down, _) = heel_above_ball(0.0);
        assert!(
            touch_down.abs() < 0.005,
            "heel {touch_down} m above the ball, off"
        );
    }

    #[test]
    fn a_swinging_sole_follows_a_ramp_and_climbs_a_step_early() {
        let at = |progress: f32| swing_ground_m(0.0, 0.3, 0.3, progress);
        // Up a ramp (the surface under the foot carries on to the landing): the ground
        // goes from here to there over the swing, half way at half the swing.
        assert_eq!(at(0.0), 0.0);
        assert!((at(0.5) - 0.15).abs() < 1e-6);
        assert!((at(1.0) - 0.3).abs() < 1e-6);
        // Up a 0.3 m step (the floor under the foot carried on stays at 0): climbed by
        // 40 % of the swing.
        let step = |progress: f32| swing_ground_m(0.0, 0.0, 0.3, progress);
        assert_eq!(step(0.0), 0.0);
        assert!(step(0.2) > 0.14, "{}", step(0.2));
        assert!((step(STEP_CLIMB_PROGRESS) - 0.3).abs() < 1e-6);
        assert!((step(0.7) - 0.3).abs() < 1e-6);
        // A 2 cm bump is taken in the stride, like a ramp.
        let bump = swing_ground_m(0.0, 0.0, 0.02, 0.2);
        assert!(bump < 0.01, "{bump}");
        // Down (the landing lower): over the whole swing; out-of-range progress clamps.
        assert!((swing_ground_m(0.3, 0.3, 0.0, 0.5) - 0.15).abs() < 1e-6);
        assert_eq!(swing_ground_m(0.3, 0.3, 0.0, 7.0), 0.0);
        assert_eq!(swing_ground_m(0.3, 0.3, 0.0, -1.0), 0.3);
    }

    #[test]
    fn a_swinging_foot_follows_a_drop_at_a_bounded_acceleration() {
        // Ground falling 0.2 m away under a foot at rest: the target goes down by a·dt²
        // the first tick (4 cm at 60 Hz), faster each tick after, reaching the new ground
        // in a few ticks rather than one.
        let dt = 1.0 / 60.0;
        let (mut y, mut speed, mut ticks) = (0.2f32, 0.0f32, 0);
        while y > 0.0 {
            let next = limit_drop_m(y, speed, dt).max(0.0);
            assert!(y - next < 0.2, "dropped {} m in one tick", y - next);
            speed = (next - y) / dt;
            y = next;
            ticks += 1;
        }
        assert!((3..=5).contains(&ticks), "{ticks} ticks");
        // Already moving down at 2 m/s (a gait's own swing), it may go on at that speed
        // plus the allowed speed-up; rising is never held back.
        assert!((limit_drop_m(0.5, -2.0, dt) - (0.5 - (2.0 + 150.0 * dt) * dt)).abs() < 1e-6);
        assert!(limit_drop_m(0.5, 3.0, dt) < 0.5);
        assert_eq!(limit_drop_m(f32::NAN, 0.0, dt), f32::MIN);
        assert_eq!(limit_drop_m(0.5, 0.0, 0.0), f32::MIN);
    }

    #[test]
    fn a_foot_lifting_off_turns_to_its_landing_slope_gradually() {
        // Flat floor, then a 25° ramp from 0.3 m ahead; the right foot lifts off to land
        // 0.6 m ahead, on the ramp. Its plane eases from the floor to the ramp rather than
        // snapping there on the first swing tick (the foot would flip its pitch at once).
        let tan = 25f32.to_radians().tan();
        let ramp = Vec3::new(0.0, 1.0, -tan).normalize();
        let world = HeightWorld::new(move |_, z: f32| {
            Some(if z < 0.3 {
                (0.0, Vec3::Y)
            } else {
                ((z - 0.3) * tan, ramp)
            })
        });
        let mut r = rig(FootIkMode::Predictive);
        let planted = input(Vec3::ZERO, 1.0);
        for _ in 0..10 {
            tick(&mut r, &world, &planted);
        }
        let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
        let foot = r.ik.rig().legs[1].chain.foot;
        let rotation_of_foot = |r: &Rig| {
            let (_, rotation, _) = r.model.joints_model()[foot].to_scale_rotation_translation();
            rotation
        };
        tick(&mut r, &world, &planted);
        let mut last = rotation_of_foot(&r);
        let mut swinging = planted;
        swinging.contact_curve[1] = 0.0;
        swinging.landing_in_s[1] = 0.4;
        swinging.landing_feet_model[1] = Some(landing);
        for k in 0..12 {
            tick(&mut r, &world, &swinging);
            let now = rotation_of_foot(&r);
            let turn = now.angle_between(last).to_degrees();
            assert!(turn < 10.0, "tick {k}: the foot turned {turn}° at once");
            last = now;
        }
    }

    #[test]
    fn up_a_ramp_a_lifting_foot_takes_the_ground_near_it_not_at_its_landing() {
        // A 20° ramp; the right foot lifts off to land 0.6 m further up (22 cm higher).
        let tan = 20f32.to_radians().tan();
        let normal = Vec3::new(0.0, 1.0, -tan).normalize();
        let world = HeightWorld::new(move |_, z: f32| Some((z * tan, normal)));
        let mut r = rig(FootIkMode::Predictive);
        let planted = input(Vec3::ZERO, 1.0);
        for _ in 0..10 {
            tick(&mut r, &world, &planted);
        }
        let standing = tick(&mut r, &world, &planted)[1];
        let landing = moved_ahead(idle_feet(&mut r)[1], 0.6);
        let mut swinging = planted;
        swinging.contact_curve[1] = 0.0;
        swinging.landing_in_s[1] = 0.4;
        swinging.landing_feet_model[1] = Some(landing);
        let lifted: Vec<f32> = (0..12)
            .map(|_| tick(&mut r, &world, &swinging)[1] - standing)
            .collect();
        // It climbs with the ramp (0.36 m/s × swing time here), not to the landing height
        // at lift-off.
        for w in lifted.windows(2) {
            assert!(w[1] - w[0] < 0.03, "{lifted:?}");
        }
        assert!(lifted[6] < 0.05, "{lifted:?}");
    }

    #[test]
    fn a_swinging_foot_out_of_reach_waits_above_its_target() {
        // The right foot swings forward over a drop deeper than the pelvis may come
        // down: its target is out of reach. The foot stays over where it is going (the
        // target is raised to the leg's reach), not pulled in toward the hip along the leg.
        let mut r = rig(FootIkMode::Predictive);
        let world = split_world(Some(0.0), Some(-0.9));
        let mut swinging = input(Vec3::ZERO, 1.0);
        swinging.contact_curve[1] = 0.0;
        for _ in 0..20 {
            tick_swung(&mut r, &world, &swinging, 30f32.to_radians(), 0.0);
        }
        let out = *r.ik.output();
        let target = out.feet[1].ankle_target_world;
        let ankle = r.model.position_model(r.ik.rig().legs[1].chain.foot);
        let horizontal = Vec2::new(ankle.x - target.x, ankle.z - target.z).length();
        assert!(horizontal < 2e-3, "ankle {ankle} vs target {target}");
        assert!(target.y > -0.9, "raised target {target}");
        assert!(
            (ankle.y - target.y).abs() < 5e-3,
            "ankle {ankle} reaches {target}"
        );
        assert_eq!(out.knee_flips, 0);
    }

    #[test]
    fn a_total_miss_fades_the_ik_out_without_a_snap() {
        let mut r = rig(FootIkMode::Predictive);
        let ground = split_world(Some(0.1), Some(0.1));
        for _ in 0..30 {
            tick(&mut r, &ground, &input(Vec3::ZERO, 1.0));
        }
        let hole = split_world(None, None);
        let mut last = tick(&mut r, &hole, &input(Vec3::ZERO, 1.0));
        let mut last_alpha = r.ik.output().feet[0].ik_alpha;
        let max_step = (1.0 / 60.0) / r.ik.config.miss_fade_s + 1e-5;
        for _ in 0..30 {
            let soles = tick(&mut r, &hole, &input(Vec3::ZERO, 1.0));
            let alpha = r.ik.output().feet[0].ik_alpha;
            assert!(
                last_alpha - alpha <= max_step,
                "alpha {last_alpha} → {alpha}"
            );
            assert!((soles[0] - last[0]).abs() < 0.01, "foot snapped");
            last = soles;
            last_alpha = alpha;
        }
        assert_eq!(last_alpha, 0.0);
        assert!(last[0].abs() < 2e-3, "back on the animation: {}", last[0]);
    }

    #[test]
    fn mode_none_and_bad_input_leave_the_animation_alone() {
        let world = split_world(Some(0.1), Some(0.1));
        let mut r = rig(FootIkMode::None);
        let soles = tick(&mut r, &world, &input(Vec3::ZERO, 1.0));
        assert!(soles.iter().all(|s| s.abs() < 2e-3), "{soles:?}");
        assert_eq!(r.ik.output().rays_cast, 0);
        let mut r = rig(FootIkMode::Predictive);
        let mut bad = input(Vec3::NAN, 1.0);
        bad.dt_s = f32::NAN;
        bad.facing_yaw_rad = f32::INFINITY;
        tick(&mut r, &world, &bad);
        assert!(r.model.joints_model().iter().all(|m| m.is_finite()));
    }
}
