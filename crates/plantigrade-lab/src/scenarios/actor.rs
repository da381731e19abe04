//! Who runs a scenario: a graph (skeleton and clips) and the character's settings, with
//! the rig's size against the mannequin's. The built-in mannequin by default; `run
//! --character` brings a user's glTF rig.

use std::sync::Arc;

use plantigrade::graph::GraphAsset;
use plantigrade::settings::CharacterSettings;

/// A character to run scenarios with.
#[derive(Clone, Debug)]
pub struct Actor {
    /// What the tables call it (the mannequin, or the file's name).
    pub name: String,
    pub graph: Arc<GraphAsset>,
    /// Its whole setup: bone map, root motion, movement scaled to its size.
    pub settings: CharacterSettings,
    /// Its leg length over the mannequin's (1 for the mannequin).
    pub scale: f32,
}

impl Actor {
    /// The built-in mannequin with its default graph and settings.
    pub fn mannequin() -> anyhow::Result<Actor> {
        let m = plantigrade::mannequin::Mannequin::new();
        Ok(Actor::with_graph(Arc::new(m.default_graph()?)))
    }

    /// `graph` with the default settings, at the mannequin's size.
    pub fn with_graph(graph: Arc<GraphAsset>) -> Actor {
        Actor {
            name: "mannequin".into(),
            graph,
            settings: CharacterSettings::default(),
            scale: 1.0,
        }
    }
}
