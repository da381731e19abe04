//! Two-bone IK (SPEC IK-8): bends a start–mid–end chain (hip–knee–ankle) so that the end
//! joint reaches a target, with the mid joint (knee) bending toward a pole direction.
//!
//! The job follows ozz-animation's `IKTwoBoneJob` shape: a plain input struct
//! ([`TwoBoneIkJob`]), [`TwoBoneIkJob::validate`] and [`TwoBoneIkJob::run`], and a plain
//! output struct ([`TwoBoneIkOutput`]). Everything is in the character's **model space**
//! (+Y up, +Z forward, +X left, metres): positions come from a [`ModelPose`], corrections are
//! model-space rotation deltas. No allocation; `run` never panics and never returns NaN.
//!
//! Guarantees of `run`, for finite inputs with non-zero bone lengths:
//! - Bone lengths are preserved exactly (the corrections are rotations).
//! - A reachable target (distance from the start joint within `[|a − b|, soften · (a + b)]`,
//!   `a`, `b` the bone lengths) is hit exactly at weight 1 ([`TwoBoneIkOutput::reached`]).
//! - An unreachable target puts the end joint on the start→target line at the nearest
//!   reachable distance ([`TwoBoneIkOutput::clamped`]); with soften, the far limit is
//!   approached smoothly and never reached (no snap to straight).
//! - The knee never flips: at weight 1 the new knee lies on the pole side of the
//!   start→end line (its offset from that line has a non-negative component along the pole),
//!   and the bend plane varies continuously with the target and the pole.
//!
//! The knee hinge: the mid correction is a pure rotation about the knee's hinge axis,
//! carried over from the current pose (the normal of the current hip–knee–ankle plane), so
//! a rig's knee never twists in its local frame. The whole leg is swung about the hip to put
//! that plane through the pole.

use glam::{Mat3, Quat, Vec3};

use crate::bone_map::LegChain;
use crate::pose::{ModelPose, Pose};
use crate::skeleton::Skeleton;

/// Bones shorter than this (metres) make the chain degenerate: `run` returns identity.
pub const MIN_BONE_LENGTH_M: f32 = 1e-5;

/// With weight 1, a target the end joint lands within this distance of (metres) counts as
/// [`TwoBoneIkOutput::reached`].
pub const REACH_TOLERANCE_M: f32 = 1e-4;

/// Below this sine of the knee angle, the current leg counts as straight and its hinge axis
/// comes from [`TwoBoneIkJob::knee_axis_model`] or the pole instead of the current bend.
const STRAIGHT_SIN: f32 = 1e-4;

/// Directions shorter than this (after removing a component) count as undefined.
const DIRECTION_EPSILON: f32 = 1e-6;

/// Default [`TwoBoneIkJob::soften`]: softening starts at 97 % of the chain length.
pub const DEFAULT_SOFTEN: f32 = 0.97;

/// Inputs of one two-bone IK solve. Every position and direction is in **model space**
/// (the character's root frame: +Y up, +Z forward, +X left; metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneIkJob {
    /// Model-space position of the start joint (hip / thigh), metres, from the current
    /// animated pose. It does not move. Default `Vec3::ZERO`. Non-finite: `run` returns
    /// identity corrections with [`TwoBoneIkOutput::degenerate`] set.
    pub start_model: Vec3,
    /// Model-space position of the mid joint (knee / calf), metres, from the current pose.
    /// Default `(0, -0.45, 0)`. Non-finite, or closer than [`MIN_BONE_LENGTH_M`] to the
    /// start or end joint: identity corrections, `degenerate` set.
    pub mid_model: Vec3,
    /// Model-space position of the end joint (ankle / foot), metres, from the current pose.
    /// Default `(0, -0.9, 0)`. Non-finite: identity corrections, `degenerate` set.
    pub end_model: Vec3,
    /// Model-space position the end joint should reach, metres. Default `(0, -0.9, 0)` (the
    /// default end joint: a no-op). Non-finite: identity corrections, `degenerate` set.
    /// Closer to the start than `|a − b|` or farther than the (softened) chain length: the
    /// end joint stops at the nearest reachable point on the start→target line (`clamped`).
    /// Exactly at the start joint: the direction is taken from the current start→end line.
    pub target_model: Vec3,
    /// Model-space **direction** (not a point) the knee should bend toward, e.g. "in front
    /// of the knee": the character's forward turned by the leg's facing, or
    /// [`knee_pole_model`] of the current pose. Any length; only its component
    /// perpendicular to the start→target line is used. Default `Vec3::Z` (forward).
    /// Zero, non-finite, or parallel to the start→target line: the bend side falls back to
    /// the current knee, then to +Z, then to +X ([`TwoBoneIkOutput::pole_used`] is false).
    pub pole_model: Vec3,
    /// Optional model-space knee hinge axis, oriented so that a normal (forward) knee bend
    /// is a positive rotation about it, i.e. `thigh_dir × calf_dir` of a bent knee (for a
    /// leg pointing down with the knee forward that is +X). Used only to orient a straight
    /// or hyperextended current leg; it is read from the rig (the calf's model rotation
    /// times its local hinge axis). Default `Vec3::ZERO`: derived from the current bend,
    /// and from the pole when the leg is straight. Non-finite: treated as zero.
    pub knee_axis_model: Vec3,
    /// Blend of the correction, 0 = animation untouched (identity), 1 = full IK; the
    /// corrections are slerped from identity. Unitless, default 1. Clamped to `[0, 1]`;
    /// NaN counts as 0.
    pub weight: f32,
    /// Fraction of the chain length `a + b` from which the reach is softened (ozz's
    /// `soften`): target distances `d` beyond `s = soften · (a + b)` are mapped to
    /// `s + (a + b − s) · (1 − exp(−(d − s) / (a + b − s)))`, which meets `d` with slope 1 at
    /// `s` and approaches the full length without reaching it, so the knee never snaps
    /// straight. Unitless, default [`DEFAULT_SOFTEN`] (0.97); typical 0.97–0.99; 1 disables
    /// softening (hard clamp at full extension). Clamped to `[0, 1]`; NaN counts as 1.
    pub soften: f32,
}

impl Default for TwoBoneIkJob {
    fn default() -> Self {
        Self {
            start_model: Vec3::ZERO,
            mid_model: Vec3::new(0.0, -0.45, 0.0),
            end_model: Vec3::new(0.0, -0.9, 0.0),
            target_model: Vec3::new(0.0, -0.9, 0.0),
            pole_model: Vec3::Z,
            knee_axis_model: Vec3::ZERO,
            weight: 1.0,
            soften: DEFAULT_SOFTEN,
        }
    }
}

/// Why a [`TwoBoneIkJob`] or applying its output cannot be done as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TwoBoneIkError {
    #[error("two-bone IK input `{0}` is not finite")]
    NonFinite(&'static str),
    #[error("two-bone IK bone `{0}` is shorter than {MIN_BONE_LENGTH_M} m")]
    ZeroLengthBone(&'static str),
    #[error("joint index {joint} out of range for a pose of {num_joints} joints")]
    JointOutOfRange { joint: usize, num_joints: usize },
    #[error("mid joint {mid} is not a descendant of start joint {start}")]
    NotAChain { start: usize, mid: usize },
}

/// Result of [`TwoBoneIkJob::run`]. Rotations are model-space deltas; positions are model
/// space, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneIkOutput {
    /// Model-space rotation delta for the start joint (hip): its new model rotation is
    /// `start_correction_model * current_start_rotation_model`, pivoting about the start
    /// joint's position. Already weighted. Identity when `degenerate`.
    pub start_correction_model: Quat,
    /// Model-space rotation delta for the mid joint (knee), **total** (it includes the swing
    /// inherited from the start joint): the new model rotation is
    /// `mid_correction_model * current_mid_rotation_model`, pivoting about the mid joint's
    /// new position. Already weighted. Identity when `degenerate`.
    pub mid_correction_model: Quat,
    /// Model-space position of the mid joint after the weighted corrections, metres (for
    /// debug draw and checks). The input mid joint when `degenerate`.
    pub mid_model: Vec3,
    /// Model-space position of the end joint after the weighted corrections, metres. The
    /// input end joint when `degenerate`.
    pub end_model: Vec3,
    /// At weight 1 the end joint lands on the target (within [`REACH_TOLERANCE_M`]).
    pub reached: bool,
    /// The target lay outside the reachable shell `[|a − b|, a + b]`: the end joint is put
    /// on the start→target line at the nearest reachable distance (full extension, minus
    /// softening, for a far target).
    pub clamped: bool,
    /// The pole was usable (finite, not parallel to the start→target line) and set the bend
    /// side; false when a fallback chose it (current knee, then +Z, then +X).
    pub pole_used: bool,
    /// The inputs could not be solved (non-finite, or a bone shorter than
    /// [`MIN_BONE_LENGTH_M`]): corrections are identity and the other flags false.
    pub degenerate: bool,
}

impl TwoBoneIkOutput {
    fn identity(job: &TwoBoneIkJob) -> Self {
        Self {
            start_correction_model: Quat::IDENTITY,
            mid_correction_model: Quat::IDENTITY,
            mid_model: job.mid_model,
            end_model: job.end_model,
            reached: false,
            clamped: false,
            pole_used: false,
            degenerate: true,
        }
    }

    /// New local rotations of the start and mid joints, from the model-space rotations of
    /// the current pose: `start_parent_rotation_model` (identity for a root),
    /// `start_rotation_model`, `mid_parent_rotation_model` (the start joint, or a joint
    /// between start and mid, as it is *before* the correction) and `mid_rotation_model`.
    /// `local_new = parent_new_model⁻¹ · correction · current_model`, where the mid joint's
    /// parent is itself swung by the start correction. Returns `(start_local, mid_local)`,
    /// normalised. Assumes uniform scale along the chain.
    pub fn local_rotations(
        &self,
        start_parent_rotation_model: Quat,
        start_rotation_model: Quat,
        mid_parent_rotation_model: Quat,
        mid_rotation_model: Quat,
    ) -> (Quat, Quat) {
        let start_local = start_parent_rotation_model.inverse()
            * self.start_correction_model
            * start_rotation_model;
        let mid_parent_new_model = self.start_correction_model * mid_parent_rotation_model;
        let mid_local =
            mid_parent_new_model.inverse() * self.mid_correction_model * mid_rotation_model;
        (start_local.normalize(), mid_local.normalize())
    }

    /// Writes the corrected local rotations of joints `start` and `mid` into `pose`, with
    /// the model-space rotations read from `model` (the model pose `pose` produced before
    /// this correction). Translations and scales are untouched; `model` is not updated
    /// (recompute it with [`crate::pose::local_to_model`] if needed). A `degenerate` output
    /// leaves the pose unchanged. Errors (never panics) on out-of-range joints or when `mid`
    /// does not descend from `start`.
    pub fn apply_to_pose(
        &self,
        skeleton: &Skeleton,
        model: &ModelPose,
        start: usize,
        mid: usize,
        pose: &mut Pose,
    ) -> Result<(), TwoBoneIkError> {
        let num_joints = skeleton.num_joints();
        for joint in [start, mid] {
            if joint >= num_joints || joint >= model.num_joints() || joint >= pose.num_joints() {
                return Err(TwoBoneIkError::JointOutOfRange { joint, num_joints });
            }
        }
        let mid_parent = match skeleton.parent(mid) {
            Some(parent) if mid != start && skeleton.is_ancestor_or_self(start, parent) => parent,
            _ => return Err(TwoBoneIkError::NotAChain { start, mid }),
        };
        if self.degenerate {
            return Ok(());
        }
        let rotation_model = |joint: usize| -> Quat {
            let (_, rotation, _) = model.joints_model()[joint].to_scale_rotation_translation();
            rotation
        };
        let start_parent_rotation_model = skeleton
            .parent(start)
            .map_or(Quat::IDENTITY, &rotation_model);
        let (start_local, mid_local) = self.local_rotations(
            start_parent_rotation_model,
            rotation_model(start),
            rotation_model(mid_parent),
            rotation_model(mid),
        );
        if start_local.is_finite() && mid_local.is_finite() {
            let local = pose.local_mut();
            local[start].rotation = start_local;
            local[mid].rotation = mid_local;
        }
        Ok(())
    }
}

impl TwoBoneIkJob {
    /// A job for a leg of the current model pose: start/mid/end are the leg's thigh, calf
    /// and foot positions in `model`; the other fields are defaults (weight 1, soften
    /// [`DEFAULT_SOFTEN`], pole +Z, no hinge hint). Errors on out-of-range joints. For an
    /// IK-target foot ([`LegChain::foot_is_ik_target`]) the foot joint is not moved by the
    /// corrections: set `end_model` to the shin's end (the calf's model transform applied
    /// to [`LegChain::ankle_in_calf`]) and place the foot joint there after the solve, as
    /// [`crate::ik::FootIk`] does.
    pub fn for_leg(
        model: &ModelPose,
        leg: &LegChain,
        target_model: Vec3,
        pole_model: Vec3,
    ) -> Result<Self, TwoBoneIkError> {
        for joint in [leg.thigh, leg.calf, leg.foot] {
            if joint >= model.num_joints() {
                return Err(TwoBoneIkError::JointOutOfRange {
                    joint,
                    num_joints: model.num_joints(),
                });
            }
        }
        Ok(Self {
            start_model: model.position_model(leg.thigh),
            mid_model: model.position_model(leg.calf),
            end_model: model.position_model(leg.foot),
            target_model,
            pole_model,
            ..Self::default()
        })
    }

    /// Checks the inputs `run` needs: finite positions and non-degenerate bone lengths.
    /// `run` does not require this (it falls back to identity), but callers can report it.
    pub fn validate(&self) -> Result<(), TwoBoneIkError> {
        let fields = [
            ("start_model", self.start_model),
            ("mid_model", self.mid_model),
            ("end_model", self.end_model),
            ("target_model", self.target_model),
        ];
        for (name, value) in fields {
            if !value.is_finite() {
                return Err(TwoBoneIkError::NonFinite(name));
            }
        }
        if self.start_model.distance(self.mid_model) < MIN_BONE_LENGTH_M {
            return Err(TwoBoneIkError::ZeroLengthBone("start-mid"));
        }
        if self.mid_model.distance(self.end_model) < MIN_BONE_LENGTH_M {
            return Err(TwoBoneIkError::ZeroLengthBone("mid-end"));
        }
        Ok(())
    }

    /// Solves the chain. Never panics; all outputs are finite. See [`TwoBoneIkOutput`] for
    /// what each field means and the module docs for the guarantees.
    pub fn run(&self) -> TwoBoneIkOutput {
        if self.validate().is_err() {
            return TwoBoneIkOutput::identity(self);
        }
        let start = self.start_model;
        let thigh = self.mid_model - start;
        let calf = self.end_model - self.mid_model;
        let thigh_length = thigh.length();
        let calf_length = calf.length();
        let thigh_dir = thigh / thigh_length;
        let calf_dir = calf / calf_length;
        let weight = if self.weight.is_nan() {
            0.0
        } else {
            self.weight.clamp(0.0, 1.0)
        };
        let soften = if self.soften.is_nan() {
            1.0
        } else {
            self.soften.clamp(0.0, 1.0)
        };

        // Aim: the direction from the start joint to the target (or, for a target at the
        // start joint, to the current end joint, then along the thigh).
        let to_target = self.target_model - start;
        let target_distance = to_target.length();
        let aim = [to_target, self.end_model - start, thigh]
            .into_iter()
            .find_map(direction_of)
            .unwrap_or(Vec3::NEG_Y);

        // Reach: soften toward full extension, clamp to the reachable shell.
        let full_length = thigh_length + calf_length;
        let min_length = (thigh_length - calf_length).abs();
        let soften_start = full_length * soften;
        let soften_range = full_length - soften_start;
        let mut reach = target_distance;
        if reach > soften_start && soften_range > DIRECTION_EPSILON {
            reach = soften_start
                + soften_range * (1.0 - (-(reach - soften_start) / soften_range).exp());
        }
        let reach = reach.clamp(min_length, full_length);
        let clamped = target_distance > full_length || target_distance < min_length;

        // Bend side: the pole's component perpendicular to the aim, with fallbacks.
        let pole = if self.pole_model.is_finite() {
            self.pole_model
        } else {
            Vec3::ZERO
        };
        let perpendicular = |v: Vec3| perpendicular_to(v, aim);
        let (bend, pole_used) = match perpendicular(pole) {
            Some(bend) => (bend, true),
            None => (
                [thigh, Vec3::Z, Vec3::X]
                    .into_iter()
                    .find_map(perpendicular)
                    .unwrap_or_else(|| aim.any_orthonormal_vector()),
                false,
            ),
        };

        // New knee and end positions in the plane (aim, bend), by the law of cosines.
        let along = if reach > DIRECTION_EPSILON {
            ((thigh_length * thigh_length - calf_length * calf_length + reach * reach)
                / (2.0 * reach))
                .clamp(-thigh_length, thigh_length)
        } else {
            0.0
        };
        let height = (thigh_length * thigh_length - along * along)
            .max(0.0)
            .sqrt();
        let knee_new = start + aim * along + bend * height;
        let end_new = start + aim * reach;
        let thigh_dir_new = (knee_new - start) / thigh_length;
        let calf_dir_new = ((end_new - knee_new) / calf_length)
            .try_normalize()
            .unwrap_or(aim);
        // Hinge of the new pose: normal of the (aim, bend) plane, so that
        // thigh_dir_new × calf_dir_new points along it.
        let hinge_new = bend.cross(aim);

        // Hinge of the current pose (same orientation convention).
        let hint = if self.knee_axis_model.is_finite() {
            perpendicular_to(self.knee_axis_model, thigh_dir)
        } else {
            None
        };
        let bent = thigh_dir.cross(calf_dir);
        let hinge_current = if bent.length() > STRAIGHT_SIN {
            let hinge = bent.normalize();
            // A hyperextended knee bends the other way round its own hinge.
            match hint {
                Some(hint) if hint.dot(hinge) < 0.0 => -hinge,
                _ => hinge,
            }
        } else {
            hint.or_else(|| perpendicular_to(pole, thigh_dir).map(|b| b.cross(thigh_dir)))
                .or_else(|| perpendicular_to(hinge_new, thigh_dir))
                .unwrap_or_else(|| thigh_dir.any_orthonormal_vector())
        };

        // Start correction: maps the current (thigh, hinge) frame onto the new one, so the
        // knee hinge is carried along and the knee bends in its own plane.
        let frame_current =
            Mat3::from_cols(thigh_dir, hinge_current, thigh_dir.cross(hinge_current));
        let frame_new = Mat3::from_cols(thigh_dir_new, hinge_new, thigh_dir_new.cross(hinge_new));
        let start_correction =
            Quat::from_mat3(&(frame_new * frame_current.transpose())).normalize();

        // Mid correction: after the swing, turn the calf about the new hinge onto its new
        // direction (shortest arc, which is the hinge rotation when both lie in the plane).
        let calf_swung = start_correction * calf_dir;
        let knee_turn = rotation_arc(calf_swung, calf_dir_new, hinge_new);
        let mid_correction = (knee_turn * start_correction).normalize();

        if !start_correction.is_finite() || !mid_correction.is_finite() {
            return TwoBoneIkOutput::identity(self);
        }
        let start_correction_model = Quat::IDENTITY.slerp(start_correction, weight).normalize();
        let mid_correction_model = Quat::IDENTITY.slerp(mid_correction, weight).normalize();
        let mid_model = start + start_correction_model * thigh;
        let end_model = mid_model + mid_correction_model * calf;
        TwoBoneIkOutput {
            start_correction_model,
            mid_correction_model,
            mid_model,
            end_model,
            // Where the full corrections put the end, not where the plan said it would be.
            reached: (start + start_correction * thigh + mid_correction * calf)
                .distance(self.target_model)
                <= REACH_TOLERANCE_M,
            clamped,
            pole_used,
            degenerate: false,
        }
    }
}

/// Rotation taking unit vector `from` onto unit vector `to`, accurate for tiny angles
/// (glam's `from_rotation_arc` snaps angles below about 7e-4 rad to identity, which would
/// miss the target by up to 0.3 mm on a leg). Nearly opposite vectors turn about `hinge`
/// (a unit vector perpendicular to both, up to rounding), then by the small residual arc.
fn rotation_arc(from: Vec3, to: Vec3, hinge: Vec3) -> Quat {
    let small_arc = |from: Vec3, to: Vec3| {
        let axis = from.cross(to);
        Quat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + from.dot(to)).normalize()
    };
    if from.dot(to) > -0.9 {
        return small_arc(from, to);
    }
    let angle = from.cross(to).dot(hinge).atan2(from.dot(to));
    let turn = Quat::from_axis_angle(hinge, angle);
    (small_arc(turn * from, to) * turn).normalize()
}

/// Unit component of `v` perpendicular to the unit vector `axis`, `None` if it vanishes:
/// shorter than [`PARALLEL_SIN`] of `v` (or than [`DIRECTION_EPSILON`]). Rounding leaves a
/// residue of about 1e-8 of a vector parallel to `axis`, pointing anywhere; normalised, it
/// would be taken for a direction off the axis, and a knee bent in that plane misses its
/// target (found by the stage property test: a pole along the hip→target line).
fn perpendicular_to(v: Vec3, axis: Vec3) -> Option<Vec3> {
    let residue = v - axis * v.dot(axis);
    let length = residue.length();
    if length > DIRECTION_EPSILON.max(PARALLEL_SIN * v.length()) {
        residue.try_normalize()
    } else {
        None
    }
}

/// The unit direction of `v`, even where its length overflows (a target 1e30 m away still
/// has a direction); `None` for a zero or non-finite vector.
fn direction_of(v: Vec3) -> Option<Vec3> {
    let largest = v.abs().max_element();
    if largest > 0.0 && largest.is_finite() {
        (v / largest).try_normalize()
    } else {
        None
    }
}

/// A vector within this sine of an axis counts as parallel to it ([`perpendicular_to`]).
const PARALLEL_SIN: f32 = 1e-4;

/// A model-space pole direction "in front of the knee" from the current pose: the unit
/// offset of the knee (`mid_model`) from the hip→ankle line (`start_model`→`end_model`),
/// all model-space positions in metres. When the leg is straight (offset shorter than 1 mm
/// per metre of leg) or the inputs are degenerate or non-finite, returns
/// `fallback_forward_model` made perpendicular to that line (normally the character's
/// forward, `Vec3::Z`, turned by the leg's facing), else `fallback_forward_model`
/// normalised, else `Vec3::Z`. Always a finite unit vector.
pub fn knee_pole_model(
    start_model: Vec3,
    mid_model: Vec3,
    end_model: Vec3,
    fallback_forward_model: Vec3,
) -> Vec3 {
    let fallback = fallback_forward_model.try_normalize().unwrap_or(Vec3::Z);
    let Some(line) = (end_model - start_model).try_normalize() else {
        return fallback;
    };
    let knee = mid_model - start_model;
    let offset = knee - line * knee.dot(line);
    let leg_length = knee.length() + (end_model - mid_model).length();
    if offset.is_finite() && offset.length() > 1e-3 * leg_length {
        if let Some(pole) = offset.try_normalize() {
            return pole;
        }
    }
    perpendicular_to(fallback, line).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::{Joint, Transform};
    use glam::Affine3A;

    const THIGH: f32 = 0.45;
    const CALF: f32 = 0.42;
    const LEG: f32 = THIGH + CALF;

    /// A left leg hanging from the hip at (0.1, 0.9, 0), knee bent slightly forward (+Z).
    fn leg_job() -> TwoBoneIkJob {
        let start = Vec3::new(0.1, 0.9, 0.0);
        let mid = start + Vec3::new(0.0, -1.0, 0.15).normalize() * THIGH;
        let end = mid + Vec3::new(0.0, -1.0, -0.1).normalize() * CALF;
        TwoBoneIkJob {
            start_model: start,
            mid_model: mid,
            end_model: end,
            target_model: end,
            pole_model: Vec3::Z,
            soften: 1.0,
            ..TwoBoneIkJob::default()
        }
    }

    /// Positions after applying the output's corrections to the job's chain.
    fn solved(job: &TwoBoneIkJob, out: &TwoBoneIkOutput) -> (Vec3, Vec3) {
        let mid = job.start_model + out.start_correction_model * (job.mid_model - job.start_model);
        let end = mid + out.mid_correction_model * (job.end_model - job.mid_model);
        (mid, end)
    }

    /// Whether two unit quaternions are the same rotation, component-wise within `tolerance`
    /// (`angle_between` uses `acos`, too coarse near identity for tight checks).
    fn same_rotation(a: Quat, b: Quat, tolerance: f32) -> bool {
        let (a, b) = (glam::Vec4::from(a), glam::Vec4::from(b));
        (a - b).length().min((a + b).length()) < tolerance
    }

    fn assert_finite(out: &TwoBoneIkOutput) {
        assert!(out.start_correction_model.is_finite());
        assert!(out.mid_correction_model.is_finite());
        assert!(out.mid_model.is_finite() && out.end_model.is_finite());
    }

    /// Targets on a grid around the hip within reach: front/behind, below, sideways.
    fn reachable_grid(job: &TwoBoneIkJob) -> Vec<Vec3> {
        let mut targets = Vec::new();
        for ix in -4..=4 {
            for iy in -8..=2 {
                for iz in -6..=6 {
                    let offset = Vec3::new(ix as f32 * 0.08, iy as f32 * 0.1, iz as f32 * 0.1);
                    let d = offset.length();
                    if d > (THIGH - CALF).abs() + 0.02 && d < LEG * 0.99 {
                        targets.push(job.start_model + offset);
                    }
                }
            }
        }
        targets
    }

    #[test]
    fn reachable_targets_are_hit_exactly() {
        let base = leg_job();
        let grid = reachable_grid(&base);
        assert!(grid.len() > 200, "grid too small: {}", grid.len());
        for target in grid {
            let job = TwoBoneIkJob {
                target_model: target,
                ..base
            };
            let out = job.run();
            assert_finite(&out);
            let (mid, end) = solved(&job, &out);
            assert!(end.distance(target) < 1e-5, "missed {target}: {end}");
            assert!(out.end_model.distance(end) < 1e-5);
            assert!(out.mid_model.distance(mid) < 1e-5);
            assert!(out.reached && !out.clamped && !out.degenerate);
            let aim = (target - job.start_model).normalize();
            assert_eq!(out.pole_used, aim.cross(Vec3::Z).length() > 1e-3);
        }
    }

    #[test]
    fn bone_lengths_are_preserved() {
        let base = leg_job();
        for (i, target) in reachable_grid(&base).into_iter().enumerate() {
            let far = base.start_model + (target - base.start_model) * 3.0;
            for target in [target, far] {
                let job = TwoBoneIkJob {
                    target_model: target,
                    weight: [1.0, 0.5, 0.3][i % 3],
                    soften: DEFAULT_SOFTEN,
                    ..base
                };
                let out = job.run();
                let (mid, end) = solved(&job, &out);
                assert!((mid.distance(job.start_model) - THIGH).abs() < 1e-5);
                assert!((end.distance(mid) - CALF).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn unreachable_targets_extend_the_leg_toward_them() {
        let base = leg_job();
        for direction in [
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
            Vec3::X,
            Vec3::new(0.3, -1.0, 0.5),
            Vec3::new(-0.5, 0.2, -1.0),
        ] {
            let direction = direction.normalize();
            let target = base.start_model + direction * 2.0;
            let job = TwoBoneIkJob {
                target_model: target,
                ..base
            };
            let out = job.run();
            assert_finite(&out);
            assert!(out.clamped && !out.reached);
            let (_, end) = solved(&job, &out);
            let expected = base.start_model + direction * LEG;
            assert!(
                end.distance(expected) < 1e-4,
                "{direction}: {end} vs {expected}"
            );
            // Softened: still on the line, never beyond the leg length, within the soften band.
            let soft = TwoBoneIkJob {
                soften: 0.97,
                ..job
            }
            .run();
            let (_, end) = solved(&job, &soft);
            let offset = end - base.start_model;
            assert!(offset.cross(direction).length() < 1e-4);
            assert!(offset.length() <= LEG + 1e-5 && offset.length() > 0.97 * LEG);
        }
    }

    #[test]
    fn too_close_targets_fold_the_leg_on_the_line() {
        let base = leg_job();
        let direction = Vec3::new(0.0, -1.0, 0.2).normalize();
        let job = TwoBoneIkJob {
            target_model: base.start_model + direction * 0.01,
            ..base
        };
        let out = job.run();
        assert_finite(&out);
        assert!(out.clamped);
        let (_, end) = solved(&job, &out);
        let expected = base.start_model + direction * (THIGH - CALF);
        assert!(end.distance(expected) < 1e-4);
    }

    #[test]
    fn degenerate_inputs_give_finite_output_and_never_panic() {
        let base = leg_job();
        let nan = Vec3::splat(f32::NAN);
        let inf = Vec3::new(f32::INFINITY, 0.0, 0.0);
        // Unusable chain or target: identity.
        let identity_cases = [
            TwoBoneIkJob {
                target_model: nan,
                ..base
            },
            TwoBoneIkJob {
                target_model: inf,
                ..base
            },
            TwoBoneIkJob {
                mid_model: base.start_model,
                ..base
            },
            TwoBoneIkJob {
                end_model: base.mid_model,
                ..base
            },
            TwoBoneIkJob {
                start_model: nan,
                ..base
            },
        ];
        for job in identity_cases {
            let out = job.run();
            assert_finite(&out);
            assert!(out.degenerate && job.validate().is_err());
            assert_eq!(out.start_correction_model, Quat::IDENTITY);
            assert_eq!(out.mid_correction_model, Quat::IDENTITY);
        }
        // Usable chain with odd target/pole/weight/soften: solved with fallbacks.
        let hip = base.start_model;
        let fallback_cases = [
            (hip, base.pole_model),         // target at the hip
            (hip + Vec3::Z * 0.5, Vec3::Z), // pole parallel to hip→target
            (hip + Vec3::NEG_Y * 0.7, Vec3::NEG_Y * 3.0),
            (hip + Vec3::NEG_Y * 0.7, nan), // NaN pole
            (hip + Vec3::NEG_Y * 0.7, inf), // infinite pole
            (hip + Vec3::NEG_Y * 0.7, Vec3::ZERO),
        ];
        for (target, pole) in fallback_cases {
            for (weight, soften) in [(1.0, 0.97), (f32::NAN, f32::NAN), (7.0, -2.0)] {
                let job = TwoBoneIkJob {
                    target_model: target,
                    pole_model: pole,
                    knee_axis_model: inf,
                    weight,
                    soften,
                    ..base
                };
                let out = job.run();
                assert_finite(&out);
                assert!(!out.degenerate);
                let (mid, end) = solved(&job, &out);
                assert!((mid.distance(hip) - THIGH).abs() < 1e-5);
                assert!((end.distance(mid) - CALF).abs() < 1e-5);
            }
        }
        // Pole parallel to the aim is reported as not used.
        let out = TwoBoneIkJob {
            target_model: hip + Vec3::Z * 0.5,
            pole_model: Vec3::Z,
            ..base
        }
        .run();
        assert!(!out.pole_used && out.reached);
        // Equal bones, target at the hip: folds completely onto the hip.
        let equal = TwoBoneIkJob {
            mid_model: hip + Vec3::new(0.0, -0.4, 0.0),
            end_model: hip + Vec3::new(0.0, -0.8, 0.0),
            target_model: hip,
            ..base
        };
        let out = equal.run();
        assert_finite(&out);
        let (_, end) = solved(&equal, &out);
        assert!(end.distance(hip) < 1e-4);
    }

    #[test]
    fn knee_stays_on_the_pole_side_and_bends_continuously() {
        let base = leg_job();
        for pole in [Vec3::Z, Vec3::new(0.3, 0.0, 1.0), Vec3::NEG_Z] {
            let mut previous_bend: Option<Vec3> = None;
            let mut previous_target: Option<Vec3> = None;
            for target in reachable_grid(&base) {
                let job = TwoBoneIkJob {
                    target_model: target,
                    pole_model: pole,
                    ..base
                };
                let out = job.run();
                let (mid, end) = solved(&job, &out);
                let line = (end - job.start_model).normalize();
                let knee = mid - job.start_model;
                let knee_offset = knee - line * knee.dot(line);
                let pole_perpendicular = pole - line * pole.dot(line);
                assert!(
                    knee_offset.dot(pole_perpendicular) >= -1e-5,
                    "knee flipped for target {target}, pole {pole}"
                );
                // Neighbouring grid targets (consecutive along z) bend within a small angle.
                let bend = knee_offset.normalize_or_zero();
                if let (Some(prev_bend), Some(prev_target)) = (previous_bend, previous_target) {
                    if prev_target.distance(target) < 0.11
                        && pole_perpendicular.length() > 0.3 * pole.length()
                    {
                        assert!(
                            bend.dot(prev_bend) > 0.5,
                            "bend jumped between {prev_target} and {target}"
                        );
                    }
                }
                previous_bend = Some(bend);
                previous_target = Some(target);
            }
        }
    }

    #[test]
    fn a_knee_bent_the_wrong_way_is_turned_to_the_pole() {
        // Current knee bent backward (-Z), pole forward: the solution bends forward.
        let mut job = leg_job();
        job.mid_model = job.start_model + Vec3::new(0.0, -1.0, -0.3).normalize() * THIGH;
        job.end_model = job.mid_model + Vec3::new(0.0, -1.0, 0.3).normalize() * CALF;
        job.target_model = job.start_model + Vec3::new(0.0, -0.7, 0.1);
        let out = job.run();
        let (mid, end) = solved(&job, &out);
        assert!(end.distance(job.target_model) < 1e-4);
        let line = (end - job.start_model).normalize();
        let knee = mid - job.start_model;
        assert!((knee - line * knee.dot(line)).z > 0.0);
    }

    #[test]
    fn straight_leg_uses_the_knee_axis_hint() {
        let mut job = leg_job();
        job.mid_model = job.start_model + Vec3::NEG_Y * THIGH;
        job.end_model = job.mid_model + Vec3::NEG_Y * CALF;
        job.target_model = job.start_model + Vec3::new(0.0, -0.7, 0.05);
        job.knee_axis_model = Vec3::X;
        let out = job.run();
        let (mid, end) = solved(&job, &out);
        assert!(end.distance(job.target_model) < 1e-4);
        assert!(mid.z > job.start_model.z);
        // The knee turn is a pure hinge rotation about the hinted axis (carried by the swing).
        let knee_turn = out.mid_correction_model * out.start_correction_model.inverse();
        let (axis, angle) = knee_turn.to_axis_angle();
        let hinge = out.start_correction_model * Vec3::X;
        assert!(angle.abs() < 1e-4 || axis.cross(hinge).length() < 1e-3);
    }

    #[test]
    fn weight_blends_the_corrections() {
        let base = TwoBoneIkJob {
            target_model: leg_job().start_model + Vec3::new(0.1, -0.6, 0.3),
            ..leg_job()
        };
        let full = base.run();
        let zero = TwoBoneIkJob {
            weight: 0.0,
            ..base
        }
        .run();
        assert_eq!(zero.start_correction_model, Quat::IDENTITY);
        assert_eq!(zero.mid_correction_model, Quat::IDENTITY);
        assert!(zero.end_model.distance(base.end_model) < 1e-6);
        let half = TwoBoneIkJob {
            weight: 0.5,
            ..base
        }
        .run();
        let expected_start = Quat::IDENTITY.slerp(full.start_correction_model, 0.5);
        let expected_mid = Quat::IDENTITY.slerp(full.mid_correction_model, 0.5);
        assert!(same_rotation(
            half.start_correction_model,
            expected_start,
            1e-5
        ));
        assert!(same_rotation(half.mid_correction_model, expected_mid, 1e-5));
        let full_angle = full.start_correction_model.to_axis_angle().1;
        let half_angle = half.start_correction_model.to_axis_angle().1;
        assert!(full_angle > 0.1);
        assert!((half_angle - 0.5 * full_angle).abs() < 1e-4);
    }

    #[test]
    fn soften_is_monotonic_smooth_and_bounded() {
        let base = TwoBoneIkJob {
            soften: 0.97,
            ..leg_job()
        };
        let direction = Vec3::new(0.0, -1.0, 0.2).normalize();
        let steps = 400;
        let mut distances = Vec::with_capacity(steps + 1);
        for i in 0..=steps {
            let fraction = 0.95 + 0.1 * i as f32 / steps as f32;
            let job = TwoBoneIkJob {
                target_model: base.start_model + direction * LEG * fraction,
                ..base
            };
            let out = job.run();
            let (_, end) = solved(&job, &out);
            distances.push(end.distance(base.start_model));
        }
        let step = LEG * 0.1 / steps as f32;
        let slopes: Vec<f32> = distances.windows(2).map(|w| (w[1] - w[0]) / step).collect();
        for (i, d) in distances.iter().enumerate() {
            assert!(*d <= LEG + 1e-5, "overshoot at {i}: {d}");
        }
        for (i, slope) in slopes.iter().enumerate() {
            assert!(*slope > 0.0, "not rising at {i}: {slope}");
            assert!(*slope <= 1.0 + 0.02, "slope above 1 at {i}: {slope}");
        }
        for (i, pair) in slopes.windows(2).enumerate() {
            assert!(
                (pair[1] - pair[0]).abs() < 0.05,
                "kink at {i}: {pair:?} {:?}",
                &slopes[i.saturating_sub(5)..(i + 5).min(slopes.len())]
            );
        }
        // Below the soften start the target is hit exactly; in the band it is not.
        assert!((distances[0] - 0.95 * LEG).abs() < 1e-4);
        assert!(distances[steps] < LEG && distances[steps] > 0.99 * LEG);
    }

    #[test]
    fn knee_pole_follows_the_knee_and_falls_back_when_straight() {
        let job = leg_job();
        let pole = knee_pole_model(job.start_model, job.mid_model, job.end_model, Vec3::Z);
        assert!(pole.is_normalized() && pole.z > 0.9);
        let hip = Vec3::new(0.1, 0.9, 0.0);
        let straight = knee_pole_model(hip, hip - Vec3::Y * 0.45, hip - Vec3::Y * 0.9, Vec3::Z);
        assert!(straight.distance(Vec3::Z) < 1e-6);
        // Leg pointing along the fallback: a perpendicular is impossible, the fallback stands.
        let along = knee_pole_model(hip, hip + Vec3::Z * 0.45, hip + Vec3::Z * 0.9, Vec3::Z);
        assert!(along.is_finite() && along.is_normalized());
        for odd in [
            knee_pole_model(Vec3::NAN, hip, hip, Vec3::Z),
            knee_pole_model(hip, hip, hip, Vec3::ZERO),
            knee_pole_model(hip, Vec3::INFINITY, hip - Vec3::Y, Vec3::NAN),
        ] {
            assert!(odd.is_finite() && odd.is_normalized());
        }
    }

    #[test]
    fn apply_to_pose_reproduces_the_solved_chain() {
        // pelvis → thigh → calf → foot, with rotated and offset joints so parents matter.
        let skeleton = Skeleton::new(vec![
            Joint {
                name: "pelvis".into(),
                parent: None,
                rest_local: Transform::from_translation_rotation(
                    Vec3::new(0.0, 0.95, 0.0),
                    Quat::from_rotation_y(0.4),
                ),
            },
            Joint {
                name: "thigh_l".into(),
                parent: Some(0),
                rest_local: Transform::from_translation_rotation(
                    Vec3::new(0.1, -0.05, 0.0),
                    Quat::from_rotation_x(2.9) * Quat::from_rotation_z(0.1),
                ),
            },
            Joint {
                name: "calf_l".into(),
                parent: Some(1),
                rest_local: Transform::from_translation_rotation(
                    Vec3::new(0.0, THIGH, 0.0),
                    Quat::from_rotation_x(0.3),
                ),
            },
            Joint {
                name: "foot_l".into(),
                parent: Some(2),
                rest_local: Transform::from_translation(Vec3::new(0.0, CALF, 0.0)),
            },
        ])
        .unwrap();
        let mut pose = Pose::rest(&skeleton);
        let mut model = ModelPose::new(4);
        crate::pose::local_to_model(&skeleton, &pose, &mut model).unwrap();
        let leg = LegChain {
            thigh: 1,
            calf: 2,
            foot: 3,
            ball: None,
            foot_is_ik_target: false,
        };
        let hip = model.position_model(1);
        let target = hip + Vec3::new(0.05, -0.6, 0.25);
        let job = TwoBoneIkJob {
            soften: 1.0,
            ..TwoBoneIkJob::for_leg(&model, &leg, target, Vec3::Z).unwrap()
        };
        let out = job.run();
        assert!(out.reached);
        let before: Vec<Affine3A> = model.joints_model().to_vec();
        out.apply_to_pose(&skeleton, &model, 1, 2, &mut pose)
            .unwrap();
        crate::pose::local_to_model(&skeleton, &pose, &mut model).unwrap();
        assert!(model.position_model(3).distance(target) < 1e-4);
        assert!(model.position_model(2).distance(out.mid_model) < 1e-4);
        // Model rotations are correction · previous, as documented.
        let rotation = |a: &Affine3A| a.to_scale_rotation_translation().1;
        let start_expected = out.start_correction_model * rotation(&before[1]);
        let mid_expected = out.mid_correction_model * rotation(&before[2]);
        assert!(same_rotation(
            rotation(&model.joints_model()[1]),
            start_expected,
            1e-4
        ));
        assert!(same_rotation(
            rotation(&model.joints_model()[2]),
            mid_expected,
            1e-4
        ));
        // Errors, not panics.
        assert!(matches!(
            out.apply_to_pose(&skeleton, &model, 2, 1, &mut pose),
            Err(TwoBoneIkError::NotAChain { .. })
        ));
        assert!(matches!(
            out.apply_to_pose(&skeleton, &model, 1, 9, &mut pose),
            Err(TwoBoneIkError::JointOutOfRange { .. })
        ));
        let bad_leg = LegChain { foot: 9, ..leg };
        assert!(TwoBoneIkJob::for_leg(&model, &bad_leg, target, Vec3::Z).is_err());
    }
}
