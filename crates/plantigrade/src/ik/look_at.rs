//! Look-at for head and spine (SPEC IK-14): the head turns toward a world target point,
//! with part of the turn spread down the neck and spine, within yaw/pitch limits relative
//! to the character's facing, damped frame-rate independently.
//!
//! Two steps per tick, both allocation-free:
//! - [`LookAt::update`] turns the target into a clamped look direction in **model** space
//!   (yaw about +Y, positive toward +X = left; pitch positive = up), damps it, and fades a
//!   blend weight in (target present) or out (no target: back to the animation).
//! - [`LookAt::apply`] writes local rotations for a chain of joints (e.g.
//!   [`LookAtChain::from_humanoid`]: mid spine, upper spine, neck, head) so that the last
//!   joint's forward points along the look direction. It works on whatever pose it is given,
//!   so it composes after the pelvis tilt and the foot IK.
//!
//! How the turn is shared: from the aim joint's current forward (yaw₀, pitch₀) to the look
//! direction (yaw₁, pitch₁), the chain joint `i` gets the rotation that moves a direction
//! from (yaw₀, pitch₀) to (yaw₀ + Wᵢ·Δyaw, pitch₀ + Wᵢ·Δpitch), applied in model space on
//! top of its current model rotation, where `Wᵢ` is the sum of the chain weights up to and
//! including joint `i`. Children inherit their parents' turn, so joint `i` itself adds only
//! its own share; with weights summing to 1 the head ends exactly on the look direction,
//! and a spine joint with cumulative weight 0.1 turns a tenth of the way.
//!
//! "Forward" of the aim joint is the local axis that pointed to model +Z in the skeleton's
//! rest pose. Uniform scale along the chain is assumed (as in [`super::two_bone`]).

use std::f32::consts::PI;

use glam::{Quat, Vec3};

use crate::bone_map::HumanoidMap;
use crate::math::{damp_share, wrap_angle};
use crate::pose::{ModelPose, Pose};
use crate::skeleton::Skeleton;

/// Default yaw limit either side of the facing: 70°.
pub const DEFAULT_YAW_LIMIT_RAD: f32 = 70.0 * PI / 180.0;
/// Default pitch limit up and down: 40°.
pub const DEFAULT_PITCH_LIMIT_RAD: f32 = 40.0 * PI / 180.0;
/// Default damping rate of the look direction (1/s): the gap shrinks by `exp(−k·dt)`.
pub const DEFAULT_DAMPING_K_PER_S: f32 = 10.0;
/// Default rate of the blend weight fading in and out (1/s).
pub const DEFAULT_BLEND_K_PER_S: f32 = 6.0;

/// A target within this distance of the head (metres) has no direction: treated as none.
const MIN_TARGET_DISTANCE_M: f32 = 1e-3;
/// Below this the blend weight counts as 0 (the exponential never reaches it exactly).
const WEIGHT_EPSILON: f32 = 1e-4;
/// A target within this yaw of straight behind (rad) keeps the side the head already
/// turned to, so walking past behind the character does not swing the head across.
const BEHIND_BAND_RAD: f32 = 20.0 * PI / 180.0;
/// Rates above this (1/s) are capped; it already snaps within a tick.
const MAX_RATE_PER_S: f32 = 1.0e6;

/// Settings of [`LookAt`]. Serde with defaults for missing fields.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LookAtConfig {
    /// Largest yaw either side of the character's facing (rad). Default 70°. Clamped to
    /// `[0, π]`.
    pub yaw_limit_rad: f32,
    /// Largest pitch up or down (rad). Default 40°. Clamped to `[0, π/2]`.
    pub pitch_limit_rad: f32,
    /// Damping of the look direction toward the clamped target (1/s), exponential and
    /// exact for a held target. Default 10. 0 freezes, large values snap.
    pub damping_k_per_s: f32,
    /// Rate at which the blend weight fades in when a target appears and out when it goes
    /// (1/s). Default 6 (95 % in half a second).
    pub blend_k_per_s: f32,
    /// Share of the turn taken by the head. Default 0.5.
    pub head_weight: f32,
    /// Share taken by the neck. Default 0.25.
    pub neck_weight: f32,
    /// Share taken by the upper spine (the highest spine joint). Default 0.15.
    pub upper_spine_weight: f32,
    /// Share taken by the mid spine (the spine joint below it). Default 0.1.
    pub mid_spine_weight: f32,
    /// When false only the head turns, with the whole sum of the shares. Default true.
    pub use_spine: bool,
}

impl Default for LookAtConfig {
    fn default() -> Self {
        Self {
            yaw_limit_rad: DEFAULT_YAW_LIMIT_RAD,
            pitch_limit_rad: DEFAULT_PITCH_LIMIT_RAD,
            damping_k_per_s: DEFAULT_DAMPING_K_PER_S,
            blend_k_per_s: DEFAULT_BLEND_K_PER_S,
            head_weight: 0.5,
            neck_weight: 0.25,
            upper_spine_weight: 0.15,
            mid_spine_weight: 0.1,
            use_spine: true,
        }
    }
}

impl LookAtConfig {
    /// This config made usable: NaN takes the field's default, limits are clamped to their
    /// ranges, rates to `[0, 1e6]`, shares to `[0, 1]`.
    pub fn sanitized(&self) -> Self {
        let d = Self::default();
        let or = |value: f32, default: f32| if value.is_nan() { default } else { value };
        let share = |value: f32, default: f32| or(value, default).clamp(0.0, 1.0);
        let rate = |value: f32, default: f32| or(value, default).clamp(0.0, MAX_RATE_PER_S);
        Self {
            yaw_limit_rad: or(self.yaw_limit_rad, d.yaw_limit_rad).clamp(0.0, PI),
            pitch_limit_rad: or(self.pitch_limit_rad, d.pitch_limit_rad).clamp(0.0, 0.5 * PI),
            damping_k_per_s: rate(self.damping_k_per_s, d.damping_k_per_s),
            blend_k_per_s: rate(self.blend_k_per_s, d.blend_k_per_s),
            head_weight: share(self.head_weight, d.head_weight),
            neck_weight: share(self.neck_weight, d.neck_weight),
            upper_spine_weight: share(self.upper_spine_weight, d.upper_spine_weight),
            mid_spine_weight: share(self.mid_spine_weight, d.mid_spine_weight),
            use_spine: self.use_spine,
        }
    }
}

/// Why [`LookAt::apply`] refused a chain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookAtError {
    #[error("look-at chain is empty")]
    EmptyChain,
    #[error("joint index {joint} out of range for {num_joints} joints")]
    JointOutOfRange { joint: usize, num_joints: usize },
    #[error("pose has {got} joints, skeleton has {expected}")]
    JointCount { expected: usize, got: usize },
    #[error("look-at chain joint {child} does not descend from the previous entry {parent}")]
    NotAChain { parent: usize, child: usize },
}

/// Up to four `(joint, share)` pairs, spine first and the aim joint (head) last, stored
/// inline so building and using it never allocates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAtChain {
    entries: [(usize, f32); 4],
    len: usize,
}

impl LookAtChain {
    /// The chain of a humanoid: mid spine, upper spine, neck, head with the config's
    /// shares (or the head alone when `use_spine` is false). The share of a joint the map
    /// lacks goes to the next joint up (to the last present joint for a missing head), so
    /// the shares still sum as configured. Empty when the map has neither head nor neck.
    pub fn from_humanoid(map: &HumanoidMap, config: &LookAtConfig) -> Self {
        let c = config.sanitized();
        let upper = map.spine.last().copied();
        let mid = map
            .spine
            .len()
            .checked_sub(2)
            .and_then(|i| map.spine.get(i).copied());
        let slots: [(Option<usize>, f32); 4] = if c.use_spine {
            [
                (mid, c.mid_spine_weight),
                (upper, c.upper_spine_weight),
                (map.neck, c.neck_weight),
                (map.head, c.head_weight),
            ]
        } else {
            let total = c.mid_spine_weight + c.upper_spine_weight + c.neck_weight + c.head_weight;
            [(None, 0.0), (None, 0.0), (None, 0.0), (map.head, total)]
        };
        let mut chain = Self {
            entries: [(0, 0.0); 4],
            len: 0,
        };
        let mut carry = 0.0;
        for (joint, share) in slots {
            carry += share;
            if let Some(joint) = joint {
                chain.entries[chain.len] = (joint, carry);
                chain.len += 1;
                carry = 0.0;
            }
        }
        if chain.len > 0 {
            chain.entries[chain.len - 1].1 += carry;
        }
        chain
    }

    /// The `(joint, share)` pairs, spine first, aim joint last.
    pub fn as_slice(&self) -> &[(usize, f32)] {
        &self.entries[..self.len]
    }
}

/// Look-at state of one character: the damped look direction and the blend weight.
/// Plain `Copy` data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAt {
    /// Settings, sanitized on use.
    pub config: LookAtConfig,
    yaw_rad: f32,
    pitch_rad: f32,
    weight: f32,
}

impl Default for LookAt {
    fn default() -> Self {
        Self::new(LookAtConfig::default())
    }
}

impl LookAt {
    /// Looking straight ahead with weight 0 (the animation untouched).
    pub fn new(config: LookAtConfig) -> Self {
        Self {
            config,
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            weight: 0.0,
        }
    }

    /// Damped look yaw in the model frame (rad, positive toward +X, the character's left).
    pub fn yaw_rad(&self) -> f32 {
        self.yaw_rad
    }

    /// Damped look pitch in the model frame (rad, positive up).
    pub fn pitch_rad(&self) -> f32 {
        self.pitch_rad
    }

    /// Blend weight in `[0, 1]`: how far [`LookAt::apply`] moves the head from the animation
    /// to the look direction.
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// The damped look direction, a unit vector in **model** space.
    pub fn direction_model(&self) -> Vec3 {
        direction(self.yaw_rad, self.pitch_rad)
    }

    /// Advances one tick. `target_world`: the point to look at (**world** space, metres),
    /// `None` to ease back to the animation. `root_world` and `facing_yaw_rad` place the
    /// model frame in the world (origin, yaw about +Y; yaw 0 faces +Z). `head_position_model`:
    /// the head (aim joint) position in the current model pose, metres.
    ///
    /// The target's yaw and pitch seen from the head are clamped to the limits; the look
    /// direction is damped toward them (`1 − exp(−k·dt)`, exact at any tick rate) and the
    /// weight toward 1. Without a usable target the direction holds and the weight fades
    /// to 0. While the weight is 0 a new target is taken at once (the fade-in hides it).
    ///
    /// Fallbacks: a non-finite target, root, facing or head position, or a target within
    /// 1 mm of the head, counts as `None`. `dt_s` NaN, ∞ or ≤ 0 changes nothing.
    pub fn update(
        &mut self,
        target_world: Option<Vec3>,
        root_world: Vec3,
        facing_yaw_rad: f32,
        head_position_model: Vec3,
        dt_s: f32,
    ) {
        if !(dt_s.is_finite() && dt_s > 0.0) {
            return;
        }
        let config = self.config.sanitized();
        let desired = target_world.and_then(|target_world| {
            self.desired_angles(
                &config,
                target_world,
                root_world,
                facing_yaw_rad,
                head_position_model,
            )
        });
        let blend = damp_share(config.blend_k_per_s, dt_s);
        match desired {
            Some((yaw_rad, pitch_rad)) => {
                if self.weight <= WEIGHT_EPSILON {
                    self.yaw_rad = yaw_rad;
                    self.pitch_rad = pitch_rad;
                } else {
                    let damping = damp_share(config.damping_k_per_s, dt_s);
                    self.yaw_rad += (yaw_rad - self.yaw_rad) * damping;
                    self.pitch_rad += (pitch_rad - self.pitch_rad) * damping;
                }
                self.weight += (1.0 - self.weight) * blend;
            }
            None => {
                self.weight -= self.weight * blend;
                if self.weight <= WEIGHT_EPSILON {
                    self.weight = 0.0;
                }
            }
        }
    }

    /// Clamped (yaw, pitch) of the target seen from the head, model frame; `None` when the
    /// inputs are unusable.
    fn desired_angles(
        &self,
        config: &LookAtConfig,
        target_world: Vec3,
        root_world: Vec3,
        facing_yaw_rad: f32,
        head_position_model: Vec3,
    ) -> Option<(f32, f32)> {
        if !(target_world.is_finite()
            && root_world.is_finite()
            && facing_yaw_rad.is_finite()
            && head_position_model.is_finite())
        {
            return None;
        }
        let world_to_model = Quat::from_rotation_y(-facing_yaw_rad);
        let to_target_model = world_to_model * (target_world - root_world) - head_position_model;
        let distance_m = to_target_model.length();
        if !(distance_m.is_finite() && distance_m > MIN_TARGET_DISTANCE_M) {
            return None;
        }
        let horizontal_m = Vec3::new(to_target_model.x, 0.0, to_target_model.z).length();
        let mut yaw_rad = to_target_model.x.atan2(to_target_model.z);
        let pitch_rad = to_target_model.y.atan2(horizontal_m);
        // Straight behind: stay on the side already turned to rather than swinging across.
        if yaw_rad.abs() > PI - BEHIND_BAND_RAD
            && self.weight > WEIGHT_EPSILON
            && self.yaw_rad * yaw_rad < 0.0
        {
            yaw_rad = -yaw_rad;
        }
        Some((
            yaw_rad.clamp(-config.yaw_limit_rad, config.yaw_limit_rad),
            pitch_rad.clamp(-config.pitch_limit_rad, config.pitch_limit_rad),
        ))
    }

    /// Writes the look into `pose`: for each `(joint, share)` of `chain` (spine first, the
    /// aim joint last, each a descendant of the previous), a new local rotation, computed
    /// from the model rotations in `model` (the model pose of `pose` as it is now, after
    /// tilt and IK). Translations and scales are untouched; recompute the model pose with
    /// [`crate::pose::local_to_model`] afterwards. Shares are clamped to `[0, 1]` (NaN
    /// counts as 0) and their running sum to at most 1.
    ///
    /// Weight 0 or a non-finite model pose leaves `pose` unchanged. Errors (never panics)
    /// on an empty chain, out-of-range joints, mismatched pose sizes, or a chain whose
    /// entries are not a descending line of joints.
    pub fn apply(
        &self,
        skeleton: &Skeleton,
        chain: &[(usize, f32)],
        model: &ModelPose,
        pose: &mut Pose,
    ) -> Result<(), LookAtError> {
        let num_joints = skeleton.num_joints();
        for got in [model.num_joints(), pose.num_joints()] {
            if got != num_joints {
                return Err(LookAtError::JointCount {
                    expected: num_joints,
                    got,
                });
            }
        }
        let Some(&(aim, _)) = chain.last() else {
            return Err(LookAtError::EmptyChain);
        };
        let mut previous: Option<usize> = None;
        for &(joint, _) in chain {
            if joint >= num_joints {
                return Err(LookAtError::JointOutOfRange { joint, num_joints });
            }
            if let Some(parent) = previous {
                if parent == joint || !skeleton.is_ancestor_or_self(parent, joint) {
                    return Err(LookAtError::NotAChain {
                        parent,
                        child: joint,
                    });
                }
            }
            previous = Some(joint);
        }
        let weight = if self.weight.is_finite() {
            self.weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if weight <= 0.0 {
            return Ok(());
        }

        // The aim joint's forward now, and the yaw/pitch it must travel (shortest way).
        let forward_current_model = rotation_model(model, aim) * rest_forward_local(skeleton, aim);
        if !forward_current_model.is_finite() || forward_current_model.length_squared() < 1e-12 {
            return Ok(());
        }
        let (yaw0, pitch0) = angles(forward_current_model.normalize());
        let delta_yaw = wrap_angle(self.yaw_rad - yaw0) * weight;
        let delta_pitch = (self.pitch_rad - pitch0) * weight;
        if !(delta_yaw.is_finite() && delta_pitch.is_finite()) {
            return Ok(());
        }
        // Turn shared up to a running weight W: from (yaw0, pitch0) to (yaw0 + W·Δyaw,
        // pitch0 + W·Δpitch), as a model-space rotation.
        let unpitch = Quat::from_rotation_x(pitch0) * Quat::from_rotation_y(-yaw0);
        let turn = |running: f32| -> Quat {
            Quat::from_rotation_y(yaw0 + running * delta_yaw)
                * Quat::from_rotation_x(-(pitch0 + running * delta_pitch))
                * unpitch
        };

        let mut running = 0.0f32;
        let mut parent_turn = Quat::IDENTITY;
        for &(joint, share) in chain {
            let share = if share.is_nan() {
                0.0
            } else {
                share.clamp(0.0, 1.0)
            };
            running = (running + share).min(1.0);
            let joint_turn = turn(running);
            let parent_rotation_model = skeleton
                .parent(joint)
                .map_or(Quat::IDENTITY, |p| rotation_model(model, p));
            let new_parent_model = parent_turn * parent_rotation_model;
            let new_model = joint_turn * rotation_model(model, joint);
            let local = (new_parent_model.inverse() * new_model).normalize();
            if local.is_finite() {
                pose.local_mut()[joint].rotation = local;
            }
            parent_turn = joint_turn;
        }
        Ok(())
    }
}

/// Unit direction for a yaw (about +Y, toward +X) and pitch (up), model frame.
fn direction(yaw_rad: f32, pitch_rad: f32) -> Vec3 {
    let (sin_yaw, cos_yaw) = yaw_rad.sin_cos();
    let (sin_pitch, cos_pitch) = pitch_rad.sin_cos();
    Vec3::new(cos_pitch * sin_yaw, sin_pitch, cos_pitch * cos_yaw)
}

/// (yaw, pitch) of a unit direction, the inverse of [`direction`].
fn angles(direction_model: Vec3) -> (f32, f32) {
    let horizontal = Vec3::new(direction_model.x, 0.0, direction_model.z).length();
    (
        direction_model.x.atan2(direction_model.z),
        direction_model.y.atan2(horizontal),
    )
}

fn rotation_model(model: &ModelPose, joint: usize) -> Quat {
    let (_, rotation, _) = model.joints_model()[joint].to_scale_rotation_translation();
    rotation
}

/// The local axis of `joint` that pointed to model +Z in the rest pose (walks the parents;
/// no allocation).
fn rest_forward_local(skeleton: &Skeleton, joint: usize) -> Vec3 {
    let rest = skeleton.rest_local();
    let mut rotation_model = Quat::IDENTITY;
    let mut current = Some(joint);
    while let Some(j) = current {
        rotation_model = rest[j].rotation * rotation_model;
        current = skeleton.parent(j);
    }
    rotation_model.normalize().inverse() * Vec3::Z
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin;
    use crate::pose::local_to_model;

    struct Rig {
        skeleton: Skeleton,
        map: HumanoidMap,
        pose: Pose,
        model: ModelPose,
    }

    fn rig() -> Rig {
        let skeleton = mannequin::skeleton();
        let map = HumanoidMap::detect(&skeleton);
        let pose = Pose::rest(&skeleton);
        let mut model = ModelPose::new(skeleton.num_joints());
        local_to_model(&skeleton, &pose, &mut model).unwrap();
        Rig {
            skeleton,
            map,
            pose,
            model,
        }
    }

    fn head(rig: &Rig) -> usize {
        rig.map.head.unwrap()
    }

    /// Forward of `joint` after the look: its model rotation times its rest forward.
    fn forward_model(rig: &Rig, model: &ModelPose, joint: usize) -> Vec3 {
        rotation_model(model, joint) * rest_forward_local(&rig.skeleton, joint)
    }

    fn angle_deg(a: Vec3, b: Vec3) -> f32 {
        a.normalize()
            .dot(b.normalize())
            .clamp(-1.0, 1.0)
            .acos()
            .to_degrees()
    }

    /// Runs `seconds` of look-at at `hz` toward a fixed target, then applies it to the rest
    /// pose; returns the state and the new model pose.
    fn settle(
        rig: &Rig,
        config: LookAtConfig,
        target_world: Vec3,
        root_world: Vec3,
        facing_yaw_rad: f32,
        hz: f32,
        seconds: f32,
    ) -> (LookAt, ModelPose) {
        let mut look = LookAt::new(config);
        let head_model = rig.model.position_model(head(rig));
        let ticks = (seconds * hz).round() as usize;
        for _ in 0..ticks {
            look.update(
                Some(target_world),
                root_world,
                facing_yaw_rad,
                head_model,
                1.0 / hz,
            );
        }
        let chain = LookAtChain::from_humanoid(&rig.map, &look.config);
        let mut pose = rig.pose.clone();
        look.apply(&rig.skeleton, chain.as_slice(), &rig.model, &mut pose)
            .unwrap();
        let mut model = ModelPose::new(rig.skeleton.num_joints());
        local_to_model(&rig.skeleton, &pose, &mut model).unwrap();
        (look, model)
    }

    /// A world point `distance_m` from the head at `yaw_deg` (left positive) and `pitch_deg`
    /// in the character's frame.
    fn target_world(
        rig: &Rig,
        root_world: Vec3,
        facing_yaw_rad: f32,
        yaw_deg: f32,
        pitch_deg: f32,
        distance_m: f32,
    ) -> Vec3 {
        let head_model = rig.model.position_model(head(rig));
        let point_model =
            head_model + direction(yaw_deg.to_radians(), pitch_deg.to_radians()) * distance_m;
        root_world + Quat::from_rotation_y(facing_yaw_rad) * point_model
    }

    #[test]
    fn default_chain_is_spine_neck_head_summing_to_one() {
        let rig = rig();
        let chain = LookAtChain::from_humanoid(&rig.map, &LookAtConfig::default());
        let find = |name: &str| rig.skeleton.find(name).unwrap();
        assert_eq!(
            chain.as_slice(),
            &[
                (find("spine_02"), 0.1),
                (find("spine_03"), 0.15),
                (find("neck_01"), 0.25),
                (find("head"), 0.5),
            ]
        );
        // No neck: its share moves up to the head. Head only: the whole sum.
        let mut no_neck = rig.map.clone();
        no_neck.neck = None;
        let chain = LookAtChain::from_humanoid(&no_neck, &LookAtConfig::default());
        assert_eq!(chain.as_slice().len(), 3);
        assert!((chain.as_slice()[2].1 - 0.75).abs() < 1e-6);
        let head_only = LookAtConfig {
            use_spine: false,
            ..LookAtConfig::default()
        };
        let chain = LookAtChain::from_humanoid(&rig.map, &head_only);
        assert_eq!(chain.as_slice().len(), 1);
        assert_eq!(chain.as_slice()[0].0, find("head"));
        assert!((chain.as_slice()[0].1 - 1.0).abs() < 1e-6);
        // No head: the neck aims with everything above the spine.
        let mut no_head = rig.map.clone();
        no_head.head = None;
        let chain = LookAtChain::from_humanoid(&no_head, &LookAtConfig::default());
        assert_eq!(chain.as_slice().last().unwrap(), &(find("neck_01"), 0.75));
    }

    #[test]
    fn head_points_at_a_target_45_degrees_left() {
        let rig = rig();
        let head = head(&rig);
        // A character placed and turned in the world, so both transforms are exercised.
        let root_world = Vec3::new(3.0, 0.5, -2.0);
        let facing = 0.7;
        let target = target_world(&rig, root_world, facing, 45.0, 0.0, 3.0);
        let (look, model) = settle(
            &rig,
            LookAtConfig::default(),
            target,
            root_world,
            facing,
            60.0,
            3.0,
        );
        assert!((look.yaw_rad().to_degrees() - 45.0).abs() < 0.01);
        assert!(look.pitch_rad().abs() < 1e-4);
        assert!(look.weight() > 0.999);
        let head_model = model.position_model(head);
        let target_model = Quat::from_rotation_y(-facing) * (target - root_world);
        let error = angle_deg(forward_model(&rig, &model, head), target_model - head_model);
        assert!(error < 2.0, "head misses the target by {error}°");
        // It turned left (+X), not right.
        assert!(forward_model(&rig, &model, head).x > 0.6);
    }

    /// Yaw (degrees) of a model-space forward vector, 0 along +Z, positive toward +X.
    fn yaw_deg(f: Vec3) -> f32 {
        f.x.atan2(f.z).to_degrees()
    }

    #[test]
    fn spine_joints_turn_less_than_the_head_by_their_running_shares() {
        let rig = rig();
        let root_world = Vec3::ZERO;
        let target = target_world(&rig, root_world, 0.0, 40.0, 0.0, 50.0);
        let (look, model) = settle(
            &rig,
            LookAtConfig::default(),
            target,
            root_world,
            0.0,
            60.0,
            4.0,
        );
        let yaw = look.yaw_rad().to_degrees();
        assert!((yaw - 40.0).abs() < 0.01);
        // Running shares 0.1, 0.25, 0.5, 1.0 of the 40° yaw: 4°, 10°, 20°, 40°.
        let chain = LookAtChain::from_humanoid(&rig.map, &look.config);
        let expected = [4.0, 10.0, 20.0, 40.0];
        for (&(joint, _), expected_deg) in chain.as_slice().iter().zip(expected) {
            let f = forward_model(&rig, &model, joint);
            let yaw_deg = yaw_deg(f);
            assert!(
                (yaw_deg - expected_deg * look.weight()).abs() < 0.05,
                "{}: {yaw_deg}° vs {expected_deg}°",
                rig.skeleton.name(joint)
            );
        }
        // Shares summing to 0.6 stop the head at 60 % of the way.
        let partial = LookAtConfig {
            head_weight: 0.3,
            neck_weight: 0.2,
            upper_spine_weight: 0.1,
            mid_spine_weight: 0.0,
            ..LookAtConfig::default()
        };
        let (look, model) = settle(&rig, partial, target, root_world, 0.0, 60.0, 4.0);
        let f = forward_model(&rig, &model, head(&rig));
        let yaw_deg = yaw_deg(f);
        assert!(
            (yaw_deg - 0.6 * 40.0 * look.weight()).abs() < 0.05,
            "{yaw_deg}"
        );
    }

    #[test]
    fn yaw_and_pitch_are_clamped() {
        let rig = rig();
        let head = head(&rig);
        let root_world = Vec3::ZERO;
        // Behind-left (135°): the head stops at 70°.
        let target = target_world(&rig, root_world, 0.0, 135.0, 0.0, 2.0);
        let (look, model) = settle(
            &rig,
            LookAtConfig::default(),
            target,
            root_world,
            0.0,
            60.0,
            3.0,
        );
        assert!((look.yaw_rad().to_degrees() - 70.0).abs() < 0.01);
        let f = forward_model(&rig, &model, head);
        assert!((yaw_deg(f) - 70.0).abs() < 0.2);
        // Behind-right: −70°.
        let target = target_world(&rig, root_world, 0.0, -150.0, 0.0, 2.0);
        let (look, _) = settle(
            &rig,
            LookAtConfig::default(),
            target,
            root_world,
            0.0,
            60.0,
            3.0,
        );
        assert!((look.yaw_rad().to_degrees() + 70.0).abs() < 0.01);
        // High up (60° pitch, straight ahead): 40°; far below: −40°.
        for (pitch_deg, expected_deg) in [(60.0, 40.0), (-75.0, -40.0), (25.0, 25.0)] {
            let target = target_world(&rig, root_world, 0.0, 0.0, pitch_deg, 2.0);
            let (look, model) = settle(
                &rig,
                LookAtConfig::default(),
                target,
                root_world,
                0.0,
                60.0,
                3.0,
            );
            assert!((look.pitch_rad().to_degrees() - expected_deg).abs() < 0.01);
            let f = forward_model(&rig, &model, head);
            let pitch = f.y.atan2(Vec3::new(f.x, 0.0, f.z).length()).to_degrees();
            assert!((pitch - expected_deg).abs() < 0.2, "{pitch_deg}: {pitch}");
        }
    }

    #[test]
    fn damping_is_frame_rate_independent() {
        let rig = rig();
        let root_world = Vec3::ZERO;
        let first = target_world(&rig, root_world, 0.0, -20.0, 0.0, 3.0);
        let second = target_world(&rig, root_world, 0.0, 50.0, 10.0, 3.0);
        let head_model = rig.model.position_model(head(&rig));
        let mut results = Vec::new();
        for hz in [30.0f32, 60.0, 144.0] {
            let mut look = LookAt::default();
            // Settle on the first target (taken at once, then faded in), then switch and
            // run 0.5 s: 15, 30 and 72 ticks.
            for _ in 0..(hz as usize) {
                look.update(Some(first), root_world, 0.0, head_model, 1.0 / hz);
            }
            for _ in 0..((0.5 * hz).round() as usize) {
                look.update(Some(second), root_world, 0.0, head_model, 1.0 / hz);
            }
            results.push((look.yaw_rad(), look.pitch_rad(), look.weight()));
        }
        // Exact expectation: the gap shrinks by exp(−10 · 0.5) from −20° to 50°.
        let expected_yaw = 50.0 - 70.0 * (-5.0f32).exp();
        for &(yaw, pitch, weight) in &results {
            assert!((yaw.to_degrees() - expected_yaw).abs() < 0.01 * expected_yaw.abs());
            assert!((pitch.to_degrees() - 10.0 * (1.0 - (-5.0f32).exp())).abs() < 0.1);
            assert!((weight - (1.0 - (-6.0f32 * 1.5).exp())).abs() < 1e-4);
        }
        let (reference, _, _) = results[0];
        for &(yaw, _, _) in &results[1..] {
            assert!((yaw - reference).abs() <= 0.01 * reference.abs());
        }
    }

    #[test]
    fn no_target_eases_back_to_the_animation() {
        let rig = rig();
        let head = head(&rig);
        let head_model = rig.model.position_model(head);
        let target = target_world(&rig, Vec3::ZERO, 0.0, 45.0, 0.0, 3.0);
        let mut look = LookAt::default();
        for _ in 0..120 {
            look.update(Some(target), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
        }
        let mut previous = look.weight();
        for _ in 0..120 {
            look.update(None, Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
            assert!(look.weight() <= previous);
            previous = look.weight();
        }
        // exp(−6 · 2) ≈ 6e-6 is below the snap threshold.
        assert_eq!(look.weight(), 0.0);
        let chain = LookAtChain::from_humanoid(&rig.map, &look.config);
        let mut pose = rig.pose.clone();
        look.apply(&rig.skeleton, chain.as_slice(), &rig.model, &mut pose)
            .unwrap();
        assert_eq!(pose, rig.pose);
    }

    #[test]
    fn odd_inputs_never_panic_or_give_nan() {
        let rig = rig();
        let head = head(&rig);
        let head_model = rig.model.position_model(head);
        let chain = LookAtChain::from_humanoid(&rig.map, &LookAtConfig::default());
        let mut look = LookAt::default();
        // Fade in on a real target first so bad inputs meet a live state.
        let good = target_world(&rig, Vec3::ZERO, 0.0, 30.0, 5.0, 2.0);
        for _ in 0..30 {
            look.update(Some(good), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
        }
        let before = look;
        let cases: [(Option<Vec3>, Vec3, f32, Vec3, f32); 8] = [
            (Some(head_model), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0), // at the head
            (Some(Vec3::NAN), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0),
            (Some(good), Vec3::INFINITY, 0.0, head_model, 1.0 / 60.0),
            (Some(good), Vec3::ZERO, f32::NAN, head_model, 1.0 / 60.0),
            (Some(good), Vec3::ZERO, 0.0, Vec3::NAN, 1.0 / 60.0),
            (Some(good), Vec3::ZERO, 0.0, head_model, f32::NAN),
            (Some(good), Vec3::ZERO, 0.0, head_model, -1.0),
            (
                Some(target_world(&rig, Vec3::ZERO, 0.0, 180.0, 0.0, 2.0)), // straight behind
                Vec3::ZERO,
                0.0,
                head_model,
                1.0 / 60.0,
            ),
        ];
        for (i, (target, root, facing, head_pos, dt)) in cases.into_iter().enumerate() {
            let mut l = before;
            l.update(target, root, facing, head_pos, dt);
            assert!(
                l.yaw_rad().is_finite() && l.pitch_rad().is_finite(),
                "case {i}"
            );
            assert!((0.0..=1.0).contains(&l.weight()), "case {i}");
            let mut pose = rig.pose.clone();
            l.apply(&rig.skeleton, chain.as_slice(), &rig.model, &mut pose)
                .unwrap();
            assert!(pose.local().iter().all(|t| t.is_finite()), "case {i}");
        }
        // Bad dt leaves the state exactly as it was.
        let mut l = before;
        l.update(Some(good), Vec3::ZERO, 0.0, head_model, f32::INFINITY);
        assert_eq!(l, before);
        // Straight behind keeps the side already turned to (left here), clamped.
        let mut l = before;
        let behind = target_world(&rig, Vec3::ZERO, 0.0, -179.0, 0.0, 2.0);
        for _ in 0..300 {
            l.update(Some(behind), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
        }
        assert!((l.yaw_rad().to_degrees() - 70.0).abs() < 0.01);
        // A NaN config falls back to the defaults.
        let mut nan_config = LookAt::new(LookAtConfig {
            yaw_limit_rad: f32::NAN,
            damping_k_per_s: f32::NAN,
            head_weight: f32::NAN,
            ..LookAtConfig::default()
        });
        nan_config.update(Some(good), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
        assert!(nan_config.yaw_rad().is_finite());
        assert_eq!(nan_config.config.sanitized(), LookAtConfig::default());
        // NaN model pose: apply leaves the pose alone.
        let mut nan_model = ModelPose::new(rig.skeleton.num_joints());
        let mut nan_pose = rig.pose.clone();
        nan_pose.local_mut()[head].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        local_to_model(&rig.skeleton, &nan_pose, &mut nan_model).unwrap();
        let mut pose = rig.pose.clone();
        before
            .apply(&rig.skeleton, chain.as_slice(), &nan_model, &mut pose)
            .unwrap();
        assert!(pose.local().iter().all(|t| t.is_finite()));
    }

    #[test]
    fn aims_from_a_tilted_pose_and_rotated_rest_frames() {
        use crate::skeleton::{Joint, Transform};
        use std::f32::consts::FRAC_PI_2;
        // A rig whose bones have non-identity rest rotations (as glTF rigs do): the head's
        // forward is whatever local axis pointed to model +Z at rest.
        let joint = |name: &str, parent: Option<usize>, t: Vec3, r: Quat| Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation_rotation(t, r),
        };
        let skeleton = Skeleton::new(vec![
            joint("root", None, Vec3::ZERO, Quat::IDENTITY),
            joint(
                "pelvis",
                Some(0),
                Vec3::new(0.0, 0.95, 0.0),
                Quat::from_rotation_x(-FRAC_PI_2),
            ),
            joint(
                "spine_01",
                Some(1),
                Vec3::new(0.0, 0.0, 0.2),
                Quat::from_rotation_z(0.4),
            ),
            joint(
                "neck_01",
                Some(2),
                Vec3::new(0.0, 0.0, 0.35),
                Quat::from_rotation_y(-0.3),
            ),
            joint(
                "head",
                Some(3),
                Vec3::new(0.0, 0.0, 0.1),
                Quat::from_rotation_x(0.5) * Quat::from_rotation_z(1.1),
            ),
        ])
        .unwrap();
        let map = HumanoidMap::detect(&skeleton);
        assert_eq!(map.head, Some(4));
        // The animation (after tilt): pelvis pitched forward 12°, neck turned a little.
        let mut pose = Pose::rest(&skeleton);
        pose.local_mut()[1].rotation = Quat::from_rotation_x(0.21) * pose.local()[1].rotation;
        pose.local_mut()[3].rotation = pose.local()[3].rotation * Quat::from_rotation_y(0.2);
        let mut model = ModelPose::new(5);
        local_to_model(&skeleton, &pose, &mut model).unwrap();
        let head_model = model.position_model(4);
        let target_model = head_model + direction(0.5, 0.2) * 4.0;
        let mut look = LookAt::default();
        for _ in 0..240 {
            look.update(Some(target_model), Vec3::ZERO, 0.0, head_model, 1.0 / 60.0);
        }
        let chain = LookAtChain::from_humanoid(&map, &look.config);
        assert_eq!(chain.as_slice().len(), 3);
        let mut looked = pose.clone();
        look.apply(&skeleton, chain.as_slice(), &model, &mut looked)
            .unwrap();
        let mut after = ModelPose::new(5);
        local_to_model(&skeleton, &looked, &mut after).unwrap();
        let forward = rotation_model(&after, 4) * rest_forward_local(&skeleton, 4);
        let error = angle_deg(forward, target_model - after.position_model(4));
        assert!(error < 2.0, "misses by {error}°");
        // Rest forward really is the axis that pointed to +Z at rest.
        let rest_head = skeleton.rest_model()[4];
        let (_, rest_rotation, _) = rest_head.to_scale_rotation_translation();
        assert!((rest_rotation * rest_forward_local(&skeleton, 4) - Vec3::Z).length() < 1e-5);
    }

    #[test]
    fn bad_chains_are_errors() {
        let mut rig = rig();
        let head = head(&rig);
        let neck = rig.map.neck.unwrap();
        let mut look = LookAt::default();
        let target = target_world(&rig, Vec3::ZERO, 0.0, 30.0, 0.0, 2.0);
        look.update(
            Some(target),
            Vec3::ZERO,
            0.0,
            rig.model.position_model(head),
            1.0 / 60.0,
        );
        let n = rig.skeleton.num_joints();
        let Rig {
            skeleton,
            model,
            pose,
            ..
        } = &mut rig;
        assert_eq!(
            look.apply(skeleton, &[], model, pose),
            Err(LookAtError::EmptyChain)
        );
        assert_eq!(
            look.apply(skeleton, &[(99, 1.0)], model, pose),
            Err(LookAtError::JointOutOfRange {
                joint: 99,
                num_joints: n
            })
        );
        assert_eq!(
            look.apply(skeleton, &[(head, 0.5), (neck, 0.5)], model, pose),
            Err(LookAtError::NotAChain {
                parent: head,
                child: neck
            })
        );
        let mut short = Pose::new(3);
        assert!(matches!(
            look.apply(skeleton, &[(head, 1.0)], model, &mut short),
            Err(LookAtError::JointCount { .. })
        ));
        // A chain that skips joints (spine_01 → head) is still a line of descent.
        let spine_01 = skeleton.find("spine_01").unwrap();
        assert!(look
            .apply(skeleton, &[(spine_01, 0.5), (head, 0.5)], model, pose)
            .is_ok());
    }
}
