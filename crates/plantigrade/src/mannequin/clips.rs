//! The mannequin's procedurally authored clip set (SPEC ANIM-5), in a fixed order:
//! Idle; Walk in eight directions; Run in eight directions, the two sideways ones in two
//! hip orientations each (Run_L_HipsFwd, Run_L_HipsBack in place of Run_L, the same for
//! R); Sprint; Crouch_Idle; Crouch_Walk in eight directions; Jump_Start/Apex/Fall;
//! Land_Light/Heavy; Push_Wall; Aim; Turn_L90/R90/L180/R180.
//!
//! Directions name the ground velocity while the character faces +Z: F = +Z, L = +X (the
//! character's left), FL = normalize(+X +Z) and so on. Walks and crouch walks sidestep
//! straight sideways (the feet never cross); a run crosses its feet over, so sideways it
//! turns the hips into the crossover, forward or back (the graph picks one with
//! hysteresis), and diagonally it turns them 45° along the travel (the legs run straight
//! ahead or back under them), while the chest keeps facing ahead.

use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

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
    /// A sideways run along [`DIRECTIONS`]`[index]` with the hips turned into it.
    HipsTurnedRun(usize, HipTurn),
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

/// Which way the hips turn running sideways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HipTurn {
    /// Toward the travel: the legs run the forward diagonal in the hips' frame.
    Fwd,
    /// Away from it: the legs run the backward diagonal.
    Back,
}

/// How far the hips turn out of the facing for a sideways run: a crossover reads as a
/// run only with the hips turned well into it (at least 30°).
const RUN_HIP_YAW_RAD: f32 = FRAC_PI_4;

/// Hip yaw (rad, positive toward +X) of a run along `travel_model`: a diagonal run turns
/// the hips along the travel, so the legs run straight ahead (forward diagonals) or
/// straight back (backward ones) in the hips' frame instead of crossing over with the
/// hips square; straight ahead and back the hips stay square.
fn diagonal_run_hip_yaw_rad(travel_model: glam::Vec3) -> f32 {
    if travel_model.x.abs() < 1e-3 {
        return 0.0;
    }
    let travel_yaw = travel_model.x.atan2(travel_model.z);
    if travel_model.z >= 0.0 {
        travel_yaw
    } else {
        travel_yaw - PI * travel_yaw.signum()
    }
}

impl HipTurn {
    fn suffix(self) -> &'static str {
        match self {
            HipTurn::Fwd => "HipsFwd",
            HipTurn::Back => "HipsBack",
        }
    }

    /// Hip yaw (rad, positive toward +X) for travel along `travel_model`: forward turns
    /// the hips toward the travel's side.
    fn yaw_rad(self, travel_model: glam::Vec3) -> f32 {
        let toward_travel = RUN_HIP_YAW_RAD * travel_model.x.signum();
        match self {
            HipTurn::Fwd => toward_travel,
            HipTurn::Back => -toward_travel,
        }
    }
}

impl Recipe {
    fn name(&self) -> String {
        match *self {
            Recipe::Idle => "Idle".into(),
            Recipe::Gait(GaitKind::Sprint, _) => "Sprint".into(),
            Recipe::Gait(kind, direction) => {
                format!("{}_{}", kind.prefix(), DIRECTIONS[direction].0)
            }
            Recipe::HipsTurnedRun(direction, turn) => format!(
                "{}_{}_{}",
                GaitKind::Run.prefix(),
                DIRECTIONS[direction].0,
                turn.suffix()
            ),
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
            Recipe::Gait(GaitKind::Run, direction) => {
                let travel = direction_model(DIRECTIONS[direction].1);
                let params = GaitParams::hips_turned(
                    GaitKind::Run,
                    travel,
                    diagonal_run_hip_yaw_rad(travel),
                );
                build_gait_clip(rig, &self.name(), &params)
            }
            Recipe::Gait(kind, direction) => {
                let params = GaitParams::new(kind, direction_model(DIRECTIONS[direction].1));
                build_gait_clip(rig, &self.name(), &params)
            }
            Recipe::HipsTurnedRun(direction, turn) => {
                let travel = direction_model(DIRECTIONS[direction].1);
                let params = GaitParams::hips_turned(GaitKind::Run, travel, turn.yaw_rad(travel));
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
    for d in directions() {
        if DIRECTIONS[d].1[1] == 0.0 {
            list.extend([HipTurn::Fwd, HipTurn::Back].map(|turn| Recipe::HipsTurnedRun(d, turn)));
        } else {
            list.push(Recipe::Gait(GaitKind::Run, d));
        }
    }
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
