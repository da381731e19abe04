//! A character's whole setup (the core's `CharacterSettings`: movement, foot IK, tilt,
//! look-at, LOD, lean, landing impact, query layers) as a reflected component, so an
//! inspector can read and edit it while the game runs.
//!
//! An edit is applied before the character's next movement stage
//! (`Character::set_settings`). Settings that cannot work (a NaN, a negative radius, a
//! different bone map or root-motion source, which only a new spawn can change) are refused
//! with a warning, and the component is set back to the settings in force, so what an
//! inspector shows is always what the character uses.

use bevy::prelude::*;
use plantigrade::ik::FootIkMode;
use plantigrade::settings::CharacterSettings;

use crate::{CharacterToggles, FootIkChoice, PlantigradeCharacter};

/// On the character entity: its settings, as [`spawn_character`](crate::spawn_character)
/// found them. Edit it (in code, or through reflection in an inspector) to change them from
/// the next tick on. The foot IK mode is the one [`CharacterToggles::foot_ik`] sets: an
/// edit of either changes both.
#[derive(Component, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct PlantigradeSettings(pub CharacterSettings);

impl From<FootIkMode> for FootIkChoice {
    fn from(mode: FootIkMode) -> Self {
        match mode {
            FootIkMode::None => FootIkChoice::None,
            FootIkMode::Classic => FootIkChoice::Classic,
            FootIkMode::Predictive => FootIkChoice::Predictive,
        }
    }
}

/// Applies each edited [`PlantigradeSettings`] (not on the tick it was added: it holds what
/// the character was spawned with) and keeps the component showing the settings in force.
/// Runs in [`PlantigradeSystems::Movement`](crate::PlantigradeSystems::Movement), before
/// the characters move.
pub(crate) fn apply_settings(
    mut characters: Query<(
        Entity,
        &mut PlantigradeCharacter,
        &mut PlantigradeSettings,
        Option<&mut CharacterToggles>,
    )>,
) {
    for (entity, mut pc, mut settings, mut toggles) in &mut characters {
        let edited = settings.is_changed() && !settings.is_added();
        let toggles_edited = toggles.as_ref().is_some_and(|t| t.is_changed());
        if !edited && !toggles_edited {
            continue;
        }
        if edited {
            match pc.character_mut().set_settings(settings.0.clone()) {
                Ok(()) => {
                    // The movement stage sets the toggles' mode: it follows the edit.
                    let choice = FootIkChoice::from(settings.0.foot_ik.mode);
                    if let Some(toggles) = toggles.as_mut().filter(|t| t.foot_ik != choice) {
                        toggles.foot_ik = choice;
                    }
                }
                Err(e) => warn!(
                    "plantigrade: character {entity}: settings refused, the ones in force \
                     kept: {e}"
                ),
            }
        }
        // What is in force: the character's settings, with the foot IK mode the movement
        // stage is about to set from the toggles (on a rig with foot IK).
        let mut in_force = pc.character().settings();
        if let Some(toggles) = &toggles {
            if pc.character().foot_ik().is_ok() {
                in_force.foot_ik.mode = toggles.foot_ik.into();
            }
        }
        if in_force != settings.0 {
            // Not an edit: the next run must not apply it again.
            settings.bypass_change_detection().0 = in_force;
        }
    }
}
