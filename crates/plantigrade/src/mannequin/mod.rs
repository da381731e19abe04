//! The built-in mannequin (ANIM-5): a UE-style humanoid skeleton and a procedurally authored
//! clip set, so the library runs with no assets.
//!
//! The skeleton stands on model-space y = 0, faces +Z, its left is +X, and every rest
//! rotation is the identity (bones are placed by translation only), which keeps procedural
//! authoring in model space simple.
//!
//! Clip authoring is split by concern: `clips` lists the set; `gait` plans walks, runs
//! and crouch walks from foot trajectories; `poses` holds idles, jumps, landings, the wall
//! push and the aim overlay; `turn` the turns in place. They describe each key in model
//! space (`body`), solve legs and arms with an analytic two-bone solve (`limb_ik`) on the
//! joints looked up in `rig`, and turn the keys into tracks (`keys`).
//!
//! `generate` authors the same set on any humanoid rig: on a skeleton of the mannequin's
//! shape with the rig's proportions ([`Proportions`], [`skeleton_with`]), retargeted onto
//! the rig ([`generate_clips`]).

mod body;
mod clips;
pub(crate) mod easing;
mod gait;
mod generate;
mod keys;
mod limb_ik;
mod poses;
mod rig;
mod skeleton;
mod turn;

#[cfg(test)]
mod tests;

pub use clips::clip_names;
pub use generate::{generate_clips, GenerateError, GeneratedClips, GENERATED_SAMPLE_HZ};
pub use skeleton::{skeleton, skeleton_with, Proportions};

use crate::bone_map::HumanoidMap;
use crate::clip::Clip;
use crate::skeleton::Skeleton;

/// The mannequin: skeleton, its bone map and every built-in clip.
#[derive(Clone, Debug)]
pub struct Mannequin {
    pub skeleton: Skeleton,
    pub bones: HumanoidMap,
    pub clips: Vec<Clip>,
}

impl Mannequin {
    /// Builds the skeleton and authors every clip (a few milliseconds).
    pub fn new() -> Self {
        let skeleton = skeleton();
        let bones = HumanoidMap::detect(&skeleton);
        let clips = clips::build_all(&skeleton, &bones);
        Self {
            skeleton,
            bones,
            clips,
        }
    }

    /// The clip with exactly this name.
    pub fn clip(&self, name: &str) -> Option<&Clip> {
        self.clips.iter().find(|c| c.name() == name)
    }

    /// Clips authored for a ground speed (walks, runs, sprint, crouch walks), in clip order.
    pub fn gait_clips(&self) -> impl Iterator<Item = &Clip> {
        self.clips
            .iter()
            .filter(|c| c.authored_speed_m_s().is_some_and(|s| s > 0.0))
    }
}

impl Default for Mannequin {
    fn default() -> Self {
        Self::new()
    }
}

/// The default ALS-style graph for the mannequin, as RON (SPEC GRAPH-6): Locomotion
/// (direction × speed over Idle, 8-way Walk and Run, Sprint), Crouch, Jump (over vertical
/// velocity), Land (over impact speed, leaving at `recovered`) and Push_Wall, with an Aim
/// overlay on a spine-gradient mask. A starting point for your own graph files.
pub const DEFAULT_GRAPH_RON: &str = include_str!("default_als.ron");

impl Mannequin {
    /// The default graph compiled against this mannequin's skeleton and clips.
    pub fn default_graph(&self) -> Result<crate::graph::GraphAsset, crate::graph::GraphLoadError> {
        crate::graph::GraphAsset::from_ron(DEFAULT_GRAPH_RON, &self.skeleton, self.clips.clone())
    }
}

/// The default graph ([`DEFAULT_GRAPH_RON`]) for another rig, `size` times the mannequin's
/// (by leg length): each joint its layers' masks name (the mannequin's) renamed by
/// `rename`, which gives the rig's joint or `None` (the joint is left out of the mask), and
/// its speeds made the rig's. Ground speeds go with `size` (the clips' and the movement's
/// do: [`crate::rig_scale`]), vertical and impact speeds with its square root (falls under
/// the same gravity). For clips retargeted from the mannequin or generated on the rig
/// ([`GeneratedClips::default_graph_def`]).
pub fn default_graph_def_on_rig(
    size: f32,
    rename: impl Fn(&str) -> Option<String>,
) -> Result<crate::graph::GraphDef, crate::graph::GraphLoadError> {
    use crate::graph::params::names;
    use crate::graph::{GraphLoadError, GraphProblem, SourcePos};
    let mut def: crate::graph::GraphDef =
        ron::from_str(DEFAULT_GRAPH_RON).map_err(|e| GraphLoadError {
            pos: Some(SourcePos::of_ron_error(&e)),
            problem: GraphProblem::Syntax(e.code.to_string()),
        })?;
    for layer in &mut def.layers {
        layer.mask = layer
            .mask
            .iter()
            .filter_map(|(name, weight)| rename(name).map(|rig_name| (rig_name, *weight)))
            .collect();
    }
    for ground in [names::SPEED, names::INPUT_SPEED] {
        def.scale_param(ground, size);
    }
    for fall in [names::VERTICAL_VELOCITY, names::LAND_VELOCITY] {
        def.scale_param(fall, size.sqrt());
    }
    Ok(def)
}
