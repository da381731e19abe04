//! Poses as reusable buffers: weighted blending, masked layers, additive layers and
//! local-to-model conversion (ANIM-3). Nothing here allocates once the buffers exist.

use glam::{Affine3A, Quat, Vec3, Vec4};

use crate::skeleton::{Skeleton, Transform};

/// Why a pose operation was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PoseError {
    #[error("pose has {got} joints, expected {expected}")]
    JointCount { expected: usize, got: usize },
    #[error("blend needs at least one input pose")]
    NoInputs,
    #[error("mask names unknown bone '{0}'")]
    UnknownBone(String),
    #[error("mask weight {weight} for '{bone}' is outside 0..=1")]
    BadMaskWeight { bone: String, weight: f32 },
}

/// A pose in local space: one [`Transform`] per joint, each relative to its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    local: Vec<Transform>,
}

impl Pose {
    /// A pose of `num_joints` identity transforms.
    pub fn new(num_joints: usize) -> Self {
        Self {
            local: vec![Transform::IDENTITY; num_joints],
        }
    }

    /// The skeleton's rest pose.
    pub fn rest(skeleton: &Skeleton) -> Self {
        Self {
            local: skeleton.rest_local().to_vec(),
        }
    }

    pub fn num_joints(&self) -> usize {
        self.local.len()
    }

    /// Local transforms, each relative to the joint's parent.
    pub fn local(&self) -> &[Transform] {
        &self.local
    }

    pub fn local_mut(&mut self) -> &mut [Transform] {
        &mut self.local
    }

    /// Overwrites this pose with `other` (same joint count) without allocating.
    pub fn copy_from(&mut self, other: &Pose) -> Result<(), PoseError> {
        check_len(self.num_joints(), other.num_joints())?;
        self.local.copy_from_slice(&other.local);
        Ok(())
    }
}

fn check_len(expected: usize, got: usize) -> Result<(), PoseError> {
    if expected == got {
        Ok(())
    } else {
        Err(PoseError::JointCount { expected, got })
    }
}

/// A float weight per joint in 0..=1, for masked layers (not a binary bone group).
#[derive(Clone, Debug, PartialEq)]
pub struct BoneMask {
    weights: Vec<f32>,
}

impl BoneMask {
    /// Every joint at `weight` (clamped to 0..=1; NaN counts as 0).
    pub fn uniform(num_joints: usize, weight: f32) -> Self {
        Self {
            weights: vec![clamp_weight(weight); num_joints],
        }
    }

    /// A mask from explicit per-joint weights (clamped to 0..=1; NaN counts as 0).
    pub fn from_weights(weights: Vec<f32>) -> Self {
        Self {
            weights: weights.into_iter().map(clamp_weight).collect(),
        }
    }

    /// A gradient along a chain: each named bone gets its weight, and every joint inherits
    /// the weight of its nearest named ancestor (0 when it has none). The upper-body default
    /// `[("spine_01", 0.3), ("spine_02", 0.6), ("spine_03", 0.9), ("neck_01", 1.0),
    /// ("clavicle_l", 1.0), ("clavicle_r", 1.0)]` leaves the legs at 0.
    pub fn from_chain_weights(
        skeleton: &Skeleton,
        bone_weights: &[(&str, f32)],
    ) -> Result<Self, PoseError> {
        let mut explicit: Vec<Option<f32>> = vec![None; skeleton.num_joints()];
        for &(bone, weight) in bone_weights {
            let joint = skeleton
                .find(bone)
                .ok_or_else(|| PoseError::UnknownBone(bone.to_string()))?;
            if !(0.0..=1.0).contains(&weight) {
                return Err(PoseError::BadMaskWeight {
                    bone: bone.to_string(),
                    weight,
                });
            }
            explicit[joint] = Some(weight);
        }
        // Parents come before children, so one forward pass propagates the inheritance.
        let mut weights = vec![0.0; skeleton.num_joints()];
        for joint in 0..skeleton.num_joints() {
            weights[joint] = match (explicit[joint], skeleton.parent(joint)) {
                (Some(w), _) => w,
                (None, Some(parent)) => weights[parent],
                (None, None) => 0.0,
            };
        }
        Ok(Self { weights })
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    pub fn weight(&self, joint: usize) -> f32 {
        self.weights.get(joint).copied().unwrap_or(0.0)
    }
}

fn clamp_weight(w: f32) -> f32 {
    if w.is_nan() {
        0.0
    } else {
        w.clamp(0.0, 1.0)
    }
}

/// Weighted blend of N poses into `out`: translations and scales averaged, rotations by
/// normalised weighted sum (nlerp) with each quaternion flipped into the first input's
/// hemisphere so opposite signs of the same rotation never cancel.
///
/// Weights are normalised by their sum; negative or NaN weights count as 0. If no weight is
/// positive, the first pose is copied.
pub fn blend(inputs: &[(&Pose, f32)], out: &mut Pose) -> Result<(), PoseError> {
    let Some(&(first, _)) = inputs.first() else {
        return Err(PoseError::NoInputs);
    };
    let joints = out.num_joints();
    for (pose, _) in inputs {
        check_len(joints, pose.num_joints())?;
    }
    let total: f32 = inputs.iter().map(|&(_, w)| clamp_blend_weight(w)).sum();
    if total <= f32::EPSILON {
        out.local.copy_from_slice(&first.local);
        return Ok(());
    }
    let inv_total = 1.0 / total;
    for joint in 0..joints {
        let reference = Vec4::from(first.local[joint].rotation);
        let mut translation = Vec3::ZERO;
        let mut rotation = Vec4::ZERO;
        let mut scale = Vec3::ZERO;
        for &(pose, w) in inputs {
            let w = clamp_blend_weight(w) * inv_total;
            let t = &pose.local[joint];
            translation += t.translation * w;
            scale += t.scale * w;
            let q = Vec4::from(t.rotation);
            rotation += if q.dot(reference) < 0.0 {
                -q * w
            } else {
                q * w
            };
        }
        out.local[joint] = Transform {
            translation,
            rotation: normalize_or_identity(rotation),
            scale,
        };
    }
    Ok(())
}

fn clamp_blend_weight(w: f32) -> f32 {
    if w > 0.0 && w.is_finite() {
        w
    } else {
        0.0
    }
}

#[inline]
fn normalize_or_identity(q: Vec4) -> Quat {
    let len_sq = q.length_squared();
    if len_sq > 1e-12 && len_sq.is_finite() {
        Quat::from_vec4(q * len_sq.sqrt().recip())
    } else {
        Quat::IDENTITY
    }
}

/// Shortest-arc normalised lerp between two rotations.
#[inline]
pub fn nlerp(a: Quat, b: Quat, t: f32) -> Quat {
    let va = Vec4::from(a);
    let mut vb = Vec4::from(b);
    if va.dot(vb) < 0.0 {
        vb = -vb;
    }
    normalize_or_identity(va + (vb - va) * t)
}

/// Override layer: moves `base` toward `overlay` by `weight × mask[joint]` per joint
/// (no mask: `weight` everywhere). Weight is clamped to 0..=1.
pub fn blend_layer(
    base: &mut Pose,
    overlay: &Pose,
    weight: f32,
    mask: Option<&BoneMask>,
) -> Result<(), PoseError> {
    check_len(base.num_joints(), overlay.num_joints())?;
    if let Some(mask) = mask {
        check_len(base.num_joints(), mask.weights.len())?;
    }
    let weight = clamp_weight(weight);
    for (joint, (b, o)) in base.local.iter_mut().zip(&overlay.local).enumerate() {
        let w = weight * mask.map_or(1.0, |m| m.weights[joint]);
        if w <= 0.0 {
            continue;
        }
        b.translation = b.translation.lerp(o.translation, w);
        b.rotation = nlerp(b.rotation, o.rotation, w);
        b.scale = b.scale.lerp(o.scale, w);
    }
    Ok(())
}

/// Override layer blended in model space (ALS's mesh-space rotation blend): each masked
/// joint's rotation *relative to the root* moves toward the overlay's by
/// `weight × mask[joint]`, and its local rotation is solved under its (already blended)
/// parent; translations and scales blend locally as in [`blend_layer`]. An upper-body
/// overlay then keeps the orientation it was authored with whatever the joints below it
/// do (a spine turned back over hips turned sideways stays facing ahead), where a local
/// blend would replace the spine's own counter-turn with the overlay's.
///
/// `parents` is the skeleton's parent list (parents before children); `scratch` is grown
/// to three rotations per joint if shorter (keep it across calls: no allocation then).
pub fn blend_layer_model_space(
    base: &mut Pose,
    overlay: &Pose,
    weight: f32,
    mask: Option<&BoneMask>,
    parents: &[Option<usize>],
    scratch: &mut Vec<Quat>,
) -> Result<(), PoseError> {
    let n = base.num_joints();
    check_len(n, overlay.num_joints())?;
    check_len(n, parents.len())?;
    if let Some(mask) = mask {
        check_len(n, mask.weights.len())?;
    }
    if scratch.len() < 3 * n {
        scratch.resize(3 * n, Quat::IDENTITY);
    }
    let (base_model, rest) = scratch.split_at_mut(n);
    let (overlay_model, out_model) = rest.split_at_mut(n);
    let weight = clamp_weight(weight);
    for joint in 0..n {
        let w = weight * mask.map_or(1.0, |m| m.weights[joint]);
        let (b, o) = (&mut base.local[joint], &overlay.local[joint]);
        let Some(parent) = parents[joint] else {
            // Roots: the frame the rest is measured in; blended locally.
            base_model[joint] = Quat::IDENTITY;
            overlay_model[joint] = Quat::IDENTITY;
            out_model[joint] = Quat::IDENTITY;
            if w > 0.0 {
                b.translation = b.translation.lerp(o.translation, w);
                b.rotation = nlerp(b.rotation, o.rotation, w);
                b.scale = b.scale.lerp(o.scale, w);
            }
            continue;
        };
        base_model[joint] = base_model[parent] * b.rotation;
        overlay_model[joint] = overlay_model[parent] * o.rotation;
        if w > 0.0 {
            let target = nlerp(base_model[joint], overlay_model[joint], w);
            b.rotation = normalize_or_identity(Vec4::from(out_model[parent].inverse() * target));
            b.translation = b.translation.lerp(o.translation, w);
            b.scale = b.scale.lerp(o.scale, w);
        }
        out_model[joint] = out_model[parent] * b.rotation;
    }
    Ok(())
}

/// Writes into `delta` the additive difference `pose − reference` per joint: translation
/// difference, rotation `reference⁻¹ · pose` (local), scale ratio.
pub fn make_additive(pose: &Pose, reference: &Pose, delta: &mut Pose) -> Result<(), PoseError> {
    check_len(pose.num_joints(), reference.num_joints())?;
    check_len(pose.num_joints(), delta.num_joints())?;
    for ((d, p), r) in delta
        .local
        .iter_mut()
        .zip(&pose.local)
        .zip(&reference.local)
    {
        let safe_scale = Vec3::select(r.scale.abs().cmpgt(Vec3::splat(1e-6)), r.scale, Vec3::ONE);
        *d = Transform {
            translation: p.translation - r.translation,
            rotation: (r.rotation.inverse() * p.rotation).normalize(),
            scale: p.scale / safe_scale,
        };
    }
    Ok(())
}

/// Additive layer: applies an additive `delta` (from [`make_additive`]) on top of `base`,
/// scaled by `weight × mask[joint]`. The weight is clamped to [0, 1] (NaN is 0), as in
/// [`blend_layer`]: an unbounded weight scaled the delta's translation without limit (a
/// weight of 1e30 moved a joint 1e30 m).
pub fn add_additive(
    base: &mut Pose,
    delta: &Pose,
    weight: f32,
    mask: Option<&BoneMask>,
) -> Result<(), PoseError> {
    check_len(base.num_joints(), delta.num_joints())?;
    if let Some(mask) = mask {
        check_len(base.num_joints(), mask.weights.len())?;
    }
    let weight = clamp_weight(weight);
    for (joint, (b, d)) in base.local.iter_mut().zip(&delta.local).enumerate() {
        let w = weight * mask.map_or(1.0, |m| m.weights[joint]);
        if w == 0.0 {
            continue;
        }
        b.translation += d.translation * w;
        b.rotation = (b.rotation * nlerp(Quat::IDENTITY, d.rotation, w)).normalize();
        b.scale *= Vec3::ONE.lerp(d.scale, w);
    }
    Ok(())
}

/// A pose in model space: one affine per joint, relative to the character's root (model)
/// frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPose {
    joints_model: Vec<Affine3A>,
}

impl ModelPose {
    pub fn new(num_joints: usize) -> Self {
        Self {
            joints_model: vec![Affine3A::IDENTITY; num_joints],
        }
    }

    pub fn num_joints(&self) -> usize {
        self.joints_model.len()
    }

    /// Each joint's transform in model space.
    pub fn joints_model(&self) -> &[Affine3A] {
        &self.joints_model
    }

    /// Position of `joint` in model space (metres).
    #[inline]
    pub fn position_model(&self, joint: usize) -> Vec3 {
        self.joints_model[joint].translation.into()
    }

    /// A point given in `joint`'s local frame, in model space (e.g. a foot socket).
    #[inline]
    pub fn point_model(&self, joint: usize, point_joint_local: Vec3) -> Vec3 {
        self.joints_model[joint].transform_point3(point_joint_local)
    }
}

/// Converts a local pose to model space: each joint's model transform is its parent's model
/// transform times its local transform (parents come first, so one pass suffices).
pub fn local_to_model(
    skeleton: &Skeleton,
    local: &Pose,
    out: &mut ModelPose,
) -> Result<(), PoseError> {
    check_len(skeleton.num_joints(), local.num_joints())?;
    check_len(skeleton.num_joints(), out.num_joints())?;
    let parents = skeleton.parents();
    for (joint, (t, parent)) in local.local.iter().zip(parents).enumerate() {
        let local_affine =
            Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        out.joints_model[joint] = match *parent {
            Some(parent) => out.joints_model[parent] * local_affine,
            None => local_affine,
        };
    }
    Ok(())
}

/// [`local_to_model`] for `joints` only: each listed joint's model transform from its
/// parent's. The list must be parent-first, and every parent outside it already up to date
/// (e.g. a limb's joints after only that limb's local rotations changed).
pub fn local_to_model_joints(
    skeleton: &Skeleton,
    local: &Pose,
    out: &mut ModelPose,
    joints: &[usize],
) -> Result<(), PoseError> {
    check_len(skeleton.num_joints(), local.num_joints())?;
    check_len(skeleton.num_joints(), out.num_joints())?;
    let parents = skeleton.parents();
    for &joint in joints {
        let (Some(t), Some(parent)) = (local.local.get(joint), parents.get(joint)) else {
            continue;
        };
        let local_affine =
            Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        out.joints_model[joint] = match *parent {
            Some(parent) => out.joints_model[parent] * local_affine,
            None => local_affine,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::Joint;
    use approx::assert_abs_diff_eq;
    use std::f32::consts::FRAC_PI_2;

    fn pose_with(rotation: Quat, translation: Vec3) -> Pose {
        let mut p = Pose::new(1);
        p.local_mut()[0] = Transform::from_translation_rotation(translation, rotation);
        p
    }

    fn chain() -> Skeleton {
        // root at origin, a joint 1 m up rotated 90° about Z, a tip 1 m along its local +Y.
        Skeleton::new(vec![
            Joint {
                name: "root".into(),
                parent: None,
                rest_local: Transform::IDENTITY,
            },
            Joint {
                name: "elbow".into(),
                parent: Some(0),
                rest_local: Transform::from_translation_rotation(
                    Vec3::Y,
                    Quat::from_rotation_z(FRAC_PI_2),
                ),
            },
            Joint {
                name: "tip".into(),
                parent: Some(1),
                rest_local: Transform::from_translation(Vec3::Y),
            },
        ])
        .unwrap()
    }

    #[test]
    fn blend_normalises_weights() {
        let a = pose_with(Quat::IDENTITY, Vec3::ZERO);
        let b = pose_with(Quat::IDENTITY, Vec3::new(4.0, 0.0, 0.0));
        let mut out = Pose::new(1);
        // Weights 1 and 3 sum to 4: normalised 0.25 / 0.75.
        blend(&[(&a, 1.0), (&b, 3.0)], &mut out).unwrap();
        assert_abs_diff_eq!(out.local()[0].translation.x, 3.0, epsilon = 1e-6);
        // Equal weights of any size give the midpoint.
        blend(&[(&a, 7.0), (&b, 7.0)], &mut out).unwrap();
        assert_abs_diff_eq!(out.local()[0].translation.x, 2.0, epsilon = 1e-6);
        // All-zero or NaN weights copy the first pose.
        blend(&[(&a, 0.0), (&b, f32::NAN)], &mut out).unwrap();
        assert_eq!(out.local()[0].translation, Vec3::ZERO);
        assert_eq!(blend(&[], &mut out), Err(PoseError::NoInputs));
        let mut wrong = Pose::new(2);
        assert!(blend(&[(&a, 1.0)], &mut wrong).is_err());
    }

    #[test]
    fn blend_fixes_hemisphere() {
        // The same 60° rotation stored as q and -q: a naive sum would cancel to nothing.
        let q = Quat::from_rotation_y(60f32.to_radians());
        let a = pose_with(q, Vec3::ZERO);
        let b = pose_with(-q, Vec3::ZERO);
        let mut out = Pose::new(1);
        blend(&[(&a, 0.5), (&b, 0.5)], &mut out).unwrap();
        assert!(out.local()[0].rotation.abs_diff_eq(q, 1e-5));
        // 0° and 90° (stored negated) blend to 45°, not to a spin the long way.
        let c = pose_with(Quat::IDENTITY, Vec3::ZERO);
        let d = pose_with(-Quat::from_rotation_y(FRAC_PI_2), Vec3::ZERO);
        blend(&[(&c, 0.5), (&d, 0.5)], &mut out).unwrap();
        assert!(out.local()[0]
            .rotation
            .abs_diff_eq(Quat::from_rotation_y(FRAC_PI_2 / 2.0), 1e-5));
    }

    #[test]
    fn mask_gradient_inherits_down_the_chain() {
        let s = Skeleton::new(
            [
                "root", "pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head", "thigh_l",
            ]
            .iter()
            .enumerate()
            .map(|(i, n)| Joint {
                name: n.to_string(),
                parent: match i {
                    0 => None,
                    7 => Some(1),
                    _ => Some(i - 1),
                },
                rest_local: Transform::IDENTITY,
            })
            .collect(),
        )
        .unwrap();
        let mask = BoneMask::from_chain_weights(
            &s,
            &[
                ("spine_01", 0.3),
                ("spine_02", 0.6),
                ("spine_03", 0.9),
                ("neck_01", 1.0),
            ],
        )
        .unwrap();
        assert_eq!(mask.weights(), &[0.0, 0.0, 0.3, 0.6, 0.9, 1.0, 1.0, 0.0]);
        assert_eq!(
            BoneMask::from_chain_weights(&s, &[("spine_9", 1.0)]),
            Err(PoseError::UnknownBone("spine_9".into()))
        );
        assert!(BoneMask::from_chain_weights(&s, &[("head", 1.5)]).is_err());
        // Layer through the mask: spine_02 goes 60 % of the way, the thigh not at all.
        let mut base = Pose::new(8);
        let mut overlay = Pose::new(8);
        for t in overlay.local_mut() {
            t.translation = Vec3::X;
        }
        blend_layer(&mut base, &overlay, 1.0, Some(&mask)).unwrap();
        assert_abs_diff_eq!(base.local()[3].translation.x, 0.6, epsilon = 1e-6);
        assert_eq!(base.local()[7].translation.x, 0.0);
        // Half the layer weight halves every joint's share.
        let mut base = Pose::new(8);
        blend_layer(&mut base, &overlay, 0.5, Some(&mask)).unwrap();
        assert_abs_diff_eq!(base.local()[6].translation.x, 0.5, epsilon = 1e-6);
        // An empty (all-zero) mask changes nothing.
        let mut base = Pose::new(8);
        blend_layer(&mut base, &overlay, 1.0, Some(&BoneMask::uniform(8, 0.0))).unwrap();
        assert_eq!(base, Pose::new(8));
    }

    #[test]
    fn model_space_layer_keeps_the_overlay_orientation_over_a_turned_parent() {
        // root -> hips -> spine -> chest: the base turns the hips 45° and the spine back.
        let s = Skeleton::new(
            ["root", "hips", "spine", "chest"]
                .iter()
                .enumerate()
                .map(|(i, n)| Joint {
                    name: n.to_string(),
                    parent: i.checked_sub(1),
                    rest_local: Transform::IDENTITY,
                })
                .collect(),
        )
        .unwrap();
        let yaw = Quat::from_rotation_y;
        let mut base = Pose::new(4);
        base.local_mut()[0].rotation = yaw(1.0); // a root turn is not the layer's business
        base.local_mut()[1].rotation = yaw(FRAC_PI_2 / 2.0);
        base.local_mut()[2].rotation = yaw(-FRAC_PI_2 / 2.0);
        // The overlay bends the chest 0.3 rad over square hips.
        let mut overlay = Pose::new(4);
        overlay.local_mut()[3].rotation = Quat::from_rotation_x(0.3);
        let mask = BoneMask::from_chain_weights(&s, &[("spine", 0.5), ("chest", 1.0)]).unwrap();
        let parents = s.parents();
        let mut scratch = Vec::new();
        let model_of = |pose: &Pose, joint: usize| {
            let mut model = ModelPose::new(4);
            local_to_model(&s, pose, &mut model).unwrap();
            Quat::from_affine3a(&model.joints_model()[joint])
        };

        let mut out = base.clone();
        blend_layer_model_space(&mut out, &overlay, 1.0, Some(&mask), parents, &mut scratch)
            .unwrap();
        // Relative to the root, the chest is exactly the overlay's; the hips untouched; the
        // spine halfway (in model space) between the base's square spine and the overlay's.
        let root = model_of(&out, 0);
        let chest = root.inverse() * model_of(&out, 3);
        assert!(
            chest.abs_diff_eq(Quat::from_rotation_x(0.3), 1e-5),
            "{chest}"
        );
        assert_eq!(out.local()[0..2], base.local()[0..2]);
        let spine = root.inverse() * model_of(&out, 2);
        assert!(spine.abs_diff_eq(Quat::IDENTITY, 1e-5), "{spine}");
        // A local blend would have kept the base's spine turn under the overlay's chest.
        let mut local = base.clone();
        blend_layer(&mut local, &overlay, 1.0, Some(&mask)).unwrap();
        let chest_local = root.inverse() * model_of(&local, 3);
        assert!(!chest_local.abs_diff_eq(Quat::from_rotation_x(0.3), 1e-2));

        // Weight 0 changes nothing; a mismatched pose is an error.
        let mut out = base.clone();
        blend_layer_model_space(&mut out, &overlay, 0.0, Some(&mask), parents, &mut scratch)
            .unwrap();
        assert_eq!(out, base);
        assert!(
            blend_layer_model_space(&mut out, &Pose::new(3), 1.0, None, parents, &mut scratch)
                .is_err()
        );
    }

    #[test]
    fn additive_round_trips() {
        let reference = pose_with(Quat::from_rotation_x(0.2), Vec3::new(0.0, 1.0, 0.0));
        let pose = pose_with(Quat::from_rotation_x(0.5), Vec3::new(0.1, 1.0, 0.0));
        let mut delta = Pose::new(1);
        make_additive(&pose, &reference, &mut delta).unwrap();
        let mut base = reference.clone();
        add_additive(&mut base, &delta, 1.0, None).unwrap();
        assert!(base.local()[0]
            .rotation
            .abs_diff_eq(pose.local()[0].rotation, 1e-5));
        assert!(base.local()[0]
            .translation
            .abs_diff_eq(pose.local()[0].translation, 1e-6));
        // Half weight: half the extra rotation.
        let mut half = reference.clone();
        add_additive(&mut half, &delta, 0.5, None).unwrap();
        assert!(half.local()[0]
            .rotation
            .abs_diff_eq(Quat::from_rotation_x(0.35), 1e-5));
        // Weights outside [0, 1] are clamped: a huge one adds the delta once, a negative
        // or NaN one nothing.
        for (weight, expected) in [(1e30, &base), (-4.0, &reference), (f32::NAN, &reference)] {
            let mut out = reference.clone();
            add_additive(&mut out, &delta, weight, None).unwrap();
            assert!(
                out.local()[0]
                    .translation
                    .abs_diff_eq(expected.local()[0].translation, 1e-6),
                "{weight}: {:?}",
                out.local()[0]
            );
        }
    }

    #[test]
    fn local_to_model_on_a_known_chain() {
        let s = chain();
        let mut model = ModelPose::new(3);
        local_to_model(&s, &Pose::rest(&s), &mut model).unwrap();
        // The elbow is at (0,1,0) rotated 90° about Z, so its local +Y points to model -X.
        assert!(model.position_model(1).abs_diff_eq(Vec3::Y, 1e-6));
        assert!(model
            .position_model(2)
            .abs_diff_eq(Vec3::new(-1.0, 1.0, 0.0), 1e-6));
        assert!(model
            .point_model(2, Vec3::Y)
            .abs_diff_eq(Vec3::new(-2.0, 1.0, 0.0), 1e-6));
        // Bending the root 90° about X swings the whole chain into +Z.
        let mut pose = Pose::rest(&s);
        pose.local_mut()[0].rotation = Quat::from_rotation_x(FRAC_PI_2);
        local_to_model(&s, &pose, &mut model).unwrap();
        assert!(model
            .position_model(2)
            .abs_diff_eq(Vec3::new(-1.0, 0.0, 1.0), 1e-6));
        assert!(local_to_model(&s, &Pose::new(2), &mut model).is_err());
    }
}
