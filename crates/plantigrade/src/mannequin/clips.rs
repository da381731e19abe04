//! The mannequin's procedurally authored clip set (SPEC ANIM-5), in a fixed order:
//! Idle; Walk, Run in eight directions; Sprint; Crouch_Idle; Crouch_Walk in eight
//! directions; Jump_Start/Apex/Fall; Land_Light/Heavy; Push_Wall; Aim; Turn_L90/R90/L180/R180.
//!
//! Directions name the ground velocity while the character faces +Z: F = +Z, L = +X (the
//! character's left), FL = normalize(+X +Z) and so on.

use std::f32::consts::{FRAC_PI_2, PI};

use super::gait::{build_gait_clip, direction_model, GaitKind, GaitParams, DIRECTIONS};
use super::keys::AuthoredClip;
use super::poses;
use super::rig::Rig;
use super::turn::turn_in_place;
use crate::bone_map::HumanoidMap;
use crate::clip::{Clip, ClipError};
use crate::skeleton::Skeleton;

/// One entry of the clip set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Recipe {
    Idle,
    /// A gait along [`DIRECTIONS`]`[index]`.
    Gait(GaitKind, usize),
    CrouchIdle,
    JumpStart,
    JumpApex,
    JumpFall,
    LandLight,
    LandHeavy,
    PushWall,
    Aim,
    /// Turn in place by a yaw (rad, positive = left) over a duration (s).
    Turn(&'static str, f32, f32),
}

impl Recipe {
    fn name(&self) -> String {
        match *self {
            Recipe::Idle => "Idle".into(),
            Recipe::Gait(GaitKind::Sprint, _) => "Sprint".into(),
            Recipe::Gait(kind, direction) => {
                format!("{}_{}", kind.prefix(), DIRECTIONS[direction].0)
            }
            Recipe::CrouchIdle => "Crouch_Idle".into(),
            Recipe::JumpStart => "Jump_Start".into(),
            Recipe::JumpApex => "Jump_Apex".into(),
            Recipe::JumpFall => "Jump_Fall".into(),
            Recipe::LandLight => "Land_Light".into(),
            Recipe::LandHeavy => "Land_Heavy".into(),
            Recipe::PushWall => "Push_Wall".into(),
            Recipe::Aim => "Aim".into(),
            Recipe::Turn(name, _, _) => name.into(),
        }
    }

    fn build(&self, rig: &Rig) -> Result<AuthoredClip, ClipError> {
        match *self {
            Recipe::Idle => poses::idle(rig),
            Recipe::Gait(kind, direction) => {
                let params = GaitParams::new(kind, direction_model(DIRECTIONS[direction].1));
                build_gait_clip(rig, &self.name(), &params)
            }
            Recipe::CrouchIdle => poses::crouch_idle(rig),
            Recipe::JumpStart => poses::jump_start(rig),
            Recipe::JumpApex => poses::jump_apex(rig),
            Recipe::JumpFall => poses::jump_fall(rig),
            Recipe::LandLight => poses::land_light(rig),
            Recipe::LandHeavy => poses::land_heavy(rig),
            Recipe::PushWall => poses::push_wall(rig),
            Recipe::Aim => poses::aim(rig),
            Recipe::Turn(name, yaw_rad, duration_s) => {
                turn_in_place(rig, name, yaw_rad, duration_s)
            }
        }
    }
}

/// Every clip of the set, in order.
fn recipes() -> Vec<Recipe> {
    let directions = || 0..DIRECTIONS.len();
    let mut list = vec![Recipe::Idle];
    list.extend(directions().map(|d| Recipe::Gait(GaitKind::Walk, d)));
    list.extend(directions().map(|d| Recipe::Gait(GaitKind::Run, d)));
    // The sprint runs straight ahead only (DIRECTIONS[0] is F).
    list.push(Recipe::Gait(GaitKind::Sprint, 0));
    list.push(Recipe::CrouchIdle);
    list.extend(directions().map(|d| Recipe::Gait(GaitKind::CrouchWalk, d)));
    list.extend([
        Recipe::JumpStart,
        Recipe::JumpApex,
        Recipe::JumpFall,
        Recipe::LandLight,
        Recipe::LandHeavy,
        Recipe::PushWall,
        Recipe::Aim,
        Recipe::Turn("Turn_L90", FRAC_PI_2, 0.8),
        Recipe::Turn("Turn_R90", -FRAC_PI_2, 0.8),
        Recipe::Turn("Turn_L180", PI, 1.2),
        Recipe::Turn("Turn_R180", -PI, 1.2),
    ]);
    list
}

/// Names of every built-in clip, in the order `build_all` returns them (the order of
/// [`Mannequin::clips`](super::Mannequin::clips)).
pub fn clip_names() -> Vec<String> {
    recipes().iter().map(Recipe::name).collect()
}

/// Authors every clip for the mannequin skeleton (see [`clip_names`] for the order).
///
/// The authoring relies on the mannequin's shape (identity rest rotations, legs hanging
/// along −Y, arms in a T-pose, UE joint names); for a skeleton that is not shaped like it
/// the result is empty.
pub fn build_all(skeleton: &Skeleton, bones: &HumanoidMap) -> Vec<Clip> {
    match author_all(skeleton, bones) {
        Ok(authored) => authored.into_iter().map(|a| a.clip).collect(),
        Err(error) => {
            // Only reachable through an authoring bug: every key is finite and ordered.
            debug_assert!(false, "mannequin clip authoring failed: {error}");
            Vec::new()
        }
    }
}

/// Every clip with its authoring diagnostics; an empty list for a skeleton the authoring
/// cannot drive.
pub(super) fn author_all(
    skeleton: &Skeleton,
    bones: &HumanoidMap,
) -> Result<Vec<AuthoredClip>, ClipError> {
    let Some(rig) = Rig::new(skeleton, bones) else {
        return Ok(Vec::new());
    };
    recipes().iter().map(|recipe| recipe.build(&rig)).collect()
}
