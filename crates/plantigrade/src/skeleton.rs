//! Skeleton: joint names, parent indices (parents before children) and the rest pose (ANIM-1).

use std::collections::HashMap;

use glam::{Affine3A, Quat, Vec3};

/// A joint's transform relative to its parent (or to model space for a root joint):
/// translation in metres, rotation, scale. Applied as scale, then rotation, then translation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    pub fn from_translation_rotation(translation: Vec3, rotation: Quat) -> Self {
        Self {
            translation,
            rotation,
            scale: Vec3::ONE,
        }
    }

    /// The affine matrix of this transform.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// `self ∘ child`: the child's transform expressed in this transform's parent space.
    /// Exact when `self.scale` is uniform (the case for skeletons); with non-uniform scale the
    /// shear that a matrix would carry is dropped, so use [`Transform::to_affine`] there.
    pub fn mul_transform(&self, child: &Transform) -> Transform {
        Transform {
            translation: self.translation + self.rotation * (self.scale * child.translation),
            rotation: (self.rotation * child.rotation).normalize(),
            scale: self.scale * child.scale,
        }
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// One joint given to [`Skeleton::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    pub name: String,
    /// Index of the parent joint, which must come before this joint; `None` for a root.
    pub parent: Option<usize>,
    /// Rest (bind) transform relative to the parent.
    pub rest_local: Transform,
}

/// Why a skeleton could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkeletonError {
    #[error("a skeleton needs at least one joint")]
    Empty,
    #[error("skeleton has {0} joints; at most {max} are supported", max = Skeleton::MAX_JOINTS)]
    TooManyJoints(usize),
    #[error("joint {joint} ('{name}') names parent {parent}, which does not come before it")]
    ParentNotBefore {
        joint: usize,
        name: String,
        parent: usize,
    },
    #[error("two joints are named '{0}'")]
    DuplicateName(String),
    #[error("joint {joint} ('{name}') has a non-finite rest transform")]
    NonFiniteRest { joint: usize, name: String },
}

/// A joint hierarchy in parent-before-child order with its rest pose.
#[derive(Clone, Debug)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    rest_local: Vec<Transform>,
    index_by_name: HashMap<String, usize>,
}

impl Skeleton {
    /// Joint indices are stored as `u16` in compact data (clip tracks, masks).
    pub const MAX_JOINTS: usize = u16::MAX as usize;

    /// Builds a skeleton; parents must come before their children and names must be unique.
    pub fn new(joints: Vec<Joint>) -> Result<Self, SkeletonError> {
        if joints.is_empty() {
            return Err(SkeletonError::Empty);
        }
        if joints.len() > Self::MAX_JOINTS {
            return Err(SkeletonError::TooManyJoints(joints.len()));
        }
        let mut index_by_name = HashMap::with_capacity(joints.len());
        let mut names = Vec::with_capacity(joints.len());
        let mut parents = Vec::with_capacity(joints.len());
        let mut rest_local = Vec::with_capacity(joints.len());
        for (index, joint) in joints.into_iter().enumerate() {
            if let Some(parent) = joint.parent {
                if parent >= index {
                    return Err(SkeletonError::ParentNotBefore {
                        joint: index,
                        name: joint.name,
                        parent,
                    });
                }
            }
            if !joint.rest_local.is_finite() {
                return Err(SkeletonError::NonFiniteRest {
                    joint: index,
                    name: joint.name,
                });
            }
            if index_by_name.insert(joint.name.clone(), index).is_some() {
                return Err(SkeletonError::DuplicateName(joint.name));
            }
            names.push(joint.name);
            parents.push(joint.parent);
            let mut rest = joint.rest_local;
            rest.rotation = rest.rotation.normalize();
            rest_local.push(rest);
        }
        Ok(Self {
            names,
            parents,
            rest_local,
            index_by_name,
        })
    }

    pub fn num_joints(&self) -> usize {
        self.names.len()
    }

    pub fn name(&self, joint: usize) -> &str {
        &self.names[joint]
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Parent of `joint`, `None` for a root.
    pub fn parent(&self, joint: usize) -> Option<usize> {
        self.parents[joint]
    }

    pub fn parents(&self) -> &[Option<usize>] {
        &self.parents
    }

    /// Index of the joint with exactly this name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index_by_name.get(name).copied()
    }

    /// Rest pose, each joint relative to its parent.
    pub fn rest_local(&self) -> &[Transform] {
        &self.rest_local
    }

    /// Whether `ancestor` is `joint` itself or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, joint: usize) -> bool {
        let mut current = Some(joint);
        while let Some(j) = current {
            if j == ancestor {
                return true;
            }
            current = self.parents[j];
        }
        false
    }

    /// Direct children of `joint`, in index order.
    pub fn children(&self, joint: usize) -> impl Iterator<Item = usize> + '_ {
        self.parents
            .iter()
            .enumerate()
            .filter(move |(_, p)| **p == Some(joint))
            .map(|(i, _)| i)
    }

    /// Depth of `joint` (0 for a root).
    pub fn depth(&self, joint: usize) -> usize {
        let mut depth = 0;
        let mut current = self.parents[joint];
        while let Some(j) = current {
            depth += 1;
            current = self.parents[j];
        }
        depth
    }

    /// Rest pose in model space, one affine per joint.
    pub fn rest_model(&self) -> Vec<Affine3A> {
        let mut model = Vec::with_capacity(self.num_joints());
        for (joint, rest) in self.rest_local.iter().enumerate() {
            let local = rest.to_affine();
            let m = match self.parents[joint] {
                Some(p) => model[p] * local,
                None => local,
            };
            model.push(m);
        }
        model
    }

    /// Rest position of `joint` in model space (metres).
    pub fn rest_position_model(&self, joint: usize) -> Vec3 {
        let mut p = Vec3::ZERO;
        let mut current = Some(joint);
        while let Some(j) = current {
            p = self.rest_local[j].to_affine().transform_point3(p);
            current = self.parents[j];
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(name: &str, parent: Option<usize>, y: f32) -> Joint {
        Joint {
            name: name.into(),
            parent,
            rest_local: Transform::from_translation(Vec3::new(0.0, y, 0.0)),
        }
    }

    #[test]
    fn parents_must_come_first() {
        let err = Skeleton::new(vec![joint("a", Some(1), 0.0), joint("b", None, 0.0)]);
        assert!(matches!(
            err,
            Err(SkeletonError::ParentNotBefore { joint: 0, .. })
        ));
        assert_eq!(Skeleton::new(vec![]).unwrap_err(), SkeletonError::Empty);
        let dup = Skeleton::new(vec![joint("a", None, 0.0), joint("a", Some(0), 0.0)]);
        assert_eq!(dup.unwrap_err(), SkeletonError::DuplicateName("a".into()));
    }

    #[test]
    fn rest_model_accumulates_down_the_chain() {
        let s = Skeleton::new(vec![
            joint("root", None, 1.0),
            joint("mid", Some(0), 2.0),
            joint("tip", Some(1), 3.0),
        ])
        .unwrap();
        assert_eq!(s.rest_position_model(2), Vec3::new(0.0, 6.0, 0.0));
        assert_eq!(
            s.rest_model()[2].translation,
            Vec3::new(0.0, 6.0, 0.0).into()
        );
        assert!(s.is_ancestor_or_self(0, 2));
        assert!(!s.is_ancestor_or_self(2, 0));
        assert_eq!(s.depth(2), 2);
        assert_eq!(s.children(0).collect::<Vec<_>>(), vec![1]);
        assert_eq!(s.find("mid"), Some(1));
    }
}
