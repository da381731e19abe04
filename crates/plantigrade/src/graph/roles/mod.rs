//! A graph from a clip-role map: which of a character's clips plays which part (idle, walk
//! forward, run left, jump start, …), as a RON [`ClipRoles`] file, and
//! [`generate_graph`], which builds a [`crate::graph::GraphDef`] shaped like the default
//! ALS graph from it, with no hand edits.
//!
//! ```ron
//! // Roles of the UAL rig's clips. Every role but `idle` and one forward gait is optional.
//! ClipRoles(
//!     idle: "Idle_Loop",
//!     walk_forward: "Walk_Loop",
//!     run_forward: "Jog_Fwd_Loop",
//!     sprint_forward: "Sprint_Loop",
//!     crouch_idle: "Crouch_Idle_Loop",
//!     crouch_walk: "Crouch_Fwd_Loop",
//!     jump_start: "Jump_Start",
//!     jump_loop: "Jump_Loop",
//!     jump_land: "Jump_Land",
//!     aim: "Pistol_Aim_Neutral",
//!     push_wall: "Push_Loop",
//! )
//! ```
//!
//! Clip names are exact (with any armature prefix, `Rig_Medium|Idle_A`). A role may be
//! written `"Clip"` or `Some("Clip")`, and left out or `None` when the rig has no such
//! clip. An unknown field (a misspelt role) is an error with its line and column.
//!
//! Where each gait sits on the speed axis is measured from the clip
//! ([`measure_clip_speed`]), never guessed; see [`generate_graph`] for the graph's shape and
//! what stands in for a missing role.

mod generate;
mod speed;
// The tests generate graphs on the built-in mannequin's clips.
#[cfg(all(test, feature = "mannequin"))]
mod tests;

pub use generate::{
    generate_graph, generate_graph_at, typical_speed_m_s, GaitSpeeds, GenerateError,
    GeneratedGraph, MissingRole, RoleSpeed,
};
pub use speed::{measure_clip_speed, MeasuredSpeed, SpeedError, SpeedSource, MIN_GAIT_SPEED_M_S};

use serde::{Deserialize, Serialize};

use crate::source_pos::SourcePos;

/// What a clip is for in the generated graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Idle,
    WalkForward,
    RunForward,
    SprintForward,
    WalkBack,
    RunBack,
    WalkLeft,
    WalkRight,
    RunLeft,
    RunRight,
    CrouchIdle,
    CrouchWalk,
    JumpStart,
    JumpLoop,
    JumpLand,
    JumpLandHeavy,
    /// The upper-body aim overlay.
    Aim,
    PushWall,
}

impl Role {
    /// Every role, in the order of the [`ClipRoles`] fields.
    pub const ALL: [Role; 18] = [
        Role::Idle,
        Role::WalkForward,
        Role::RunForward,
        Role::SprintForward,
        Role::WalkBack,
        Role::RunBack,
        Role::WalkLeft,
        Role::WalkRight,
        Role::RunLeft,
        Role::RunRight,
        Role::CrouchIdle,
        Role::CrouchWalk,
        Role::JumpStart,
        Role::JumpLoop,
        Role::JumpLand,
        Role::JumpLandHeavy,
        Role::Aim,
        Role::PushWall,
    ];

    /// The role's field name in a [`ClipRoles`] file (`walk_forward`).
    pub fn name(self) -> &'static str {
        match self {
            Role::Idle => "idle",
            Role::WalkForward => "walk_forward",
            Role::RunForward => "run_forward",
            Role::SprintForward => "sprint_forward",
            Role::WalkBack => "walk_back",
            Role::RunBack => "run_back",
            Role::WalkLeft => "walk_left",
            Role::WalkRight => "walk_right",
            Role::RunLeft => "run_left",
            Role::RunRight => "run_right",
            Role::CrouchIdle => "crouch_idle",
            Role::CrouchWalk => "crouch_walk",
            Role::JumpStart => "jump_start",
            Role::JumpLoop => "jump_loop",
            Role::JumpLand => "jump_land",
            Role::JumpLandHeavy => "jump_land_heavy",
            Role::Aim => "aim",
            Role::PushWall => "push_wall",
        }
    }

    /// The direction of travel a gait role is placed at on the direction axis (degrees: 0
    /// forward, +90 left, −90 right, 180 back); `None` for roles that are not directional
    /// gaits (crouch walk plays in every direction).
    pub fn direction_deg(self) -> Option<f32> {
        match self {
            Role::WalkForward | Role::RunForward | Role::SprintForward => Some(0.0),
            Role::WalkLeft | Role::RunLeft => Some(90.0),
            Role::WalkRight | Role::RunRight => Some(-90.0),
            Role::WalkBack | Role::RunBack => Some(180.0),
            _ => None,
        }
    }

    /// True for the walking gaits (every direction, and the crouched walk): played slower
    /// they still look like a walk, where a run played slower floats through its flight.
    pub fn is_walk(self) -> bool {
        matches!(
            self,
            Role::WalkForward
                | Role::WalkLeft
                | Role::WalkRight
                | Role::WalkBack
                | Role::CrouchWalk
        )
    }

    /// True for the running gaits (every direction; not the sprint).
    pub fn is_run(self) -> bool {
        matches!(
            self,
            Role::RunForward | Role::RunLeft | Role::RunRight | Role::RunBack
        )
    }

    /// True for the roles that travel (gaits), whose speed is measured.
    pub fn is_gait(self) -> bool {
        self.direction_deg().is_some() || self == Role::CrouchWalk
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which clip plays each role (exact clip names). See the [module docs](self) for the
/// file format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClipRoles {
    pub idle: Option<String>,
    pub walk_forward: Option<String>,
    pub run_forward: Option<String>,
    pub sprint_forward: Option<String>,
    pub walk_back: Option<String>,
    pub run_back: Option<String>,
    pub walk_left: Option<String>,
    pub walk_right: Option<String>,
    pub run_left: Option<String>,
    pub run_right: Option<String>,
    pub crouch_idle: Option<String>,
    pub crouch_walk: Option<String>,
    pub jump_start: Option<String>,
    pub jump_loop: Option<String>,
    pub jump_land: Option<String>,
    /// A landing from a fall at or above the heavy-landing speed (5 m/s by default).
    pub jump_land_heavy: Option<String>,
    /// The upper-body aim overlay (blended while `aiming`).
    pub aim: Option<String>,
    pub push_wall: Option<String>,
    /// The aim overlay's per-joint weights, as a graph layer's `mask` (each joint inherits
    /// its nearest listed ancestor's weight). `None`: a gradient up the detected spine,
    /// full on the neck and the shoulders.
    pub aim_mask: Option<Vec<(String, f32)>>,
}

/// Why a role map cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RolesError {
    #[error("no idle clip: `idle` is required")]
    NoIdle,
    #[error(
        "no forward gait: at least one of walk_forward, run_forward and sprint_forward is \
         required"
    )]
    NoForwardGait,
    #[error("{role} names an empty clip name")]
    EmptyName { role: Role },
    #[error("aim_mask weight of '{joint}' is {weight}; it must be within 0..=1")]
    BadMaskWeight { joint: String, weight: f32 },
}

/// Why a role-map file could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RolesLoadError {
    #[error("roles line {line}, column {col}: {message}")]
    Parse {
        line: usize,
        col: usize,
        message: String,
    },
    #[error(transparent)]
    Invalid(#[from] RolesError),
}

impl ClipRoles {
    /// Parses RON `ClipRoles(...)` or `(...)` and validates it ([`ClipRoles::validate`]). A
    /// syntax error or an unknown field names its line and column.
    pub fn from_ron(source: &str) -> Result<Self, RolesLoadError> {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let roles: ClipRoles = options.from_str(source).map_err(|e| {
            let at = SourcePos::of_ron_error(&e);
            RolesLoadError::Parse {
                line: at.line,
                col: at.col,
                message: e.code.to_string(),
            }
        })?;
        roles.validate()?;
        Ok(roles)
    }

    /// Checks the map can make a graph: an idle and at least one forward gait, no empty
    /// clip name, aim-mask weights within 0..=1.
    pub fn validate(&self) -> Result<(), RolesError> {
        for role in Role::ALL {
            if self.clip(role).is_some_and(|name| name.trim().is_empty()) {
                return Err(RolesError::EmptyName { role });
            }
        }
        if self.idle.is_none() {
            return Err(RolesError::NoIdle);
        }
        if [Role::WalkForward, Role::RunForward, Role::SprintForward]
            .iter()
            .all(|&r| self.clip(r).is_none())
        {
            return Err(RolesError::NoForwardGait);
        }
        for (joint, weight) in self.aim_mask.iter().flatten() {
            if !(0.0..=1.0).contains(weight) {
                return Err(RolesError::BadMaskWeight {
                    joint: joint.clone(),
                    weight: *weight,
                });
            }
        }
        Ok(())
    }

    /// The clip named for `role`, if any.
    pub fn clip(&self, role: Role) -> Option<&str> {
        let name = match role {
            Role::Idle => &self.idle,
            Role::WalkForward => &self.walk_forward,
            Role::RunForward => &self.run_forward,
            Role::SprintForward => &self.sprint_forward,
            Role::WalkBack => &self.walk_back,
            Role::RunBack => &self.run_back,
            Role::WalkLeft => &self.walk_left,
            Role::WalkRight => &self.walk_right,
            Role::RunLeft => &self.run_left,
            Role::RunRight => &self.run_right,
            Role::CrouchIdle => &self.crouch_idle,
            Role::CrouchWalk => &self.crouch_walk,
            Role::JumpStart => &self.jump_start,
            Role::JumpLoop => &self.jump_loop,
            Role::JumpLand => &self.jump_land,
            Role::JumpLandHeavy => &self.jump_land_heavy,
            Role::Aim => &self.aim,
            Role::PushWall => &self.push_wall,
        };
        name.as_deref()
    }
}
