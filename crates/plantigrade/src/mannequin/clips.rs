//! Procedurally authored mannequin clips.

use crate::bone_map::HumanoidMap;
use crate::clip::Clip;
use crate::skeleton::Skeleton;

/// Names of every built-in clip, in the order [`build_all`] returns them.
pub fn clip_names() -> Vec<String> {
    Vec::new()
}

/// Authors every clip for the mannequin skeleton.
pub fn build_all(_skeleton: &Skeleton, _bones: &HumanoidMap) -> Vec<Clip> {
    Vec::new()
}
