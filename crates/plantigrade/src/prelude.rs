//! What a game needs to make a character and drive it: `use plantigrade::prelude::*;`.

pub use crate::bone_map::{BoneNames, FootSockets};
pub use crate::character::{Character, CharacterBuilder, CharacterError, FixedTimestep, TickStage};
pub use crate::graph::{GraphAsset, RootAxis, RootMotionDef};
pub use crate::ik::FootIkMode;
pub use crate::lod::LodTier;
pub use crate::motion::{Buttons, CharacterConfig, InputConfig, InputDevice, Intent};
pub use crate::settings::{CharacterSettings, QueryLayers, SettingsError, SettingsLoadError};
pub use crate::world::{
    BodyId, CharacterMover, CharacterPhysics, Layers, MoveLimits, QueryFilter, SpatialQueries,
};
pub use glam::{Quat, Vec2, Vec3};
