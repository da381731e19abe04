//! The generator: a [`GraphDef`] shaped like the default ALS graph from a [`ClipRoles`] map,
//! the clips and the skeleton.

use std::collections::BTreeSet;

use super::speed::{measure_clip_speed, MeasuredSpeed, MIN_GAIT_SPEED_M_S};
use super::{ClipRoles, Role, RolesError};
use crate::bone_map::{HumanoidMap, Side};
use crate::clip::Clip;
use crate::graph::asset::{GraphAsset, GraphLoadError};
use crate::graph::def::{
    BlendCurve, BlendSpaceOptions, GraphDef, LayerDef, NodeDef, ParamDef, RootMotionDef, Sample1D,
    Sample2D, StateDef, StateMachineDef, TransitionDef,
};
use crate::graph::names;
use crate::motion::{CharacterConfig, IS_PUSHING_WALL, REVERSED};
use crate::skeleton::Skeleton;

/// The walking gaits by direction: forward, left, right, back.
const WALK: [Role; 4] = [
    Role::WalkForward,
    Role::WalkLeft,
    Role::WalkRight,
    Role::WalkBack,
];
/// The running gaits by direction: forward, left, right, back.
const RUN: [Role; 4] = [
    Role::RunForward,
    Role::RunLeft,
    Role::RunRight,
    Role::RunBack,
];
/// Two samples of the locomotion plane closer than this in speed (m/s) at one direction
/// would make a degenerate triangulation: the later one is left out.
const SAME_SPEED_M_S: f32 = 0.05;
/// Speeds are written rounded to this (m/s): centimetres per second.
const SPEED_STEP_M_S: f32 = 0.01;
/// The slowest a generated gait blend plays a clip placed at the character's speed.
const LOWEST_RATE: f32 = 0.25;
/// The runs are placed at the character's run speed, and played slower, when its forward
/// run is measured more than this many times as fast (see [`GaitSpeeds`]).
const RUN_SLOWED_ABOVE: f32 = 2.0;
/// Below this ground speed (m/s) a touchdown plays the landing clip; faster goes straight
/// back into the gait (as the default graph does).
const LAND_IN_PLACE_BELOW_M_S: f32 = 0.5;

/// A role the map does not fill, or fills with a clip the graph cannot use, and what the
/// graph does about it.
#[derive(Clone, Debug, PartialEq)]
pub struct MissingRole {
    pub role: Role,
    /// Another role's clip that plays in its place, if any.
    pub instead: Option<Role>,
    /// What the graph does without it, in words.
    pub effect: String,
}

impl std::fmt::Display for MissingRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.role, self.effect)
    }
}

/// How a gait clip was placed on the speed axis.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleSpeed {
    pub role: Role,
    pub clip: String,
    /// Where the graph places the clip on the speed axis (m/s, rounded to cm/s).
    pub speed_m_s: f32,
    /// What was measured (see [`measure_clip_speed`]); `None` when it could not be.
    pub measured: Option<MeasuredSpeed>,
    /// Why the role's typical speed ([`typical_speed_m_s`]) stands in for a measurement:
    /// the clip could not be measured, or it steps on the spot.
    pub fallback: Option<String>,
}

/// What stands in for a gait's speed (m/s) when its clip cannot be measured (a rig whose
/// legs are not recognised, an in-place clip without stances): the speeds the UAL graph's
/// hand-placed samples use. Always reported in [`RoleSpeed::fallback`].
pub fn typical_speed_m_s(role: Role) -> f32 {
    match role {
        Role::WalkForward | Role::WalkBack | Role::WalkLeft | Role::WalkRight => 1.5,
        Role::RunForward | Role::RunBack | Role::RunLeft | Role::RunRight => 3.5,
        Role::SprintForward => 6.0,
        Role::CrouchWalk => 1.0,
        _ => 0.0,
    }
}

/// The character's own gait speeds (m/s): [`generate_graph_at`] places each gait on the
/// speed axis no slower than the character moves in it. A clip measured slower is played
/// faster to match (within the blend's rate range): the stride stays the clip's and the
/// cadence rises, as a person's does. Placed at its measured speed instead, UAL's walk
/// (1.13 m/s) was blended toward its 5.9 m/s jog to move at 1.75 m/s and took the jog's
/// stride: a lunge over four stair treads.
///
/// A walk measured faster is placed at the character's walk speed too and played slower:
/// blended toward Idle instead, Quaternius' 1.95 m/s walk moved at the rig's 1.14 m/s
/// with 42 % of a standing pose in it, both feet half planted. A run measured faster keeps
/// its place, and the blend toward the walk shortens its stride (played slower instead,
/// UAL's bounding jog, 1.6 times the rig's run speed, floats in slow motion), unless the
/// forward run is more than twice as fast: then every run is placed at the character's
/// run speed and played slower. Quaternius' 5.9 m/s dash at the rig's 2.4 m/s was
/// otherwise three quarters walk, its stances the walk's long ones under a foot the dash
/// lifts, floating a centimetre at both ends of each. (KayKit's run, 1.98 times, meets
/// every check either way; the runs go together, or a strafe placed at the run speed
/// beside a forward run placed faster blends into running straight.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitSpeeds {
    pub walk_m_s: f32,
    pub run_m_s: f32,
    pub sprint_m_s: f32,
    pub crouch_m_s: f32,
}

impl GaitSpeeds {
    /// The gait speeds a character moves at with `config`.
    pub fn of(config: &CharacterConfig) -> GaitSpeeds {
        GaitSpeeds {
            walk_m_s: config.walk_speed_m_s,
            run_m_s: config.run_speed_m_s,
            sprint_m_s: config.sprint_speed_m_s,
            crouch_m_s: config.crouch_speed_m_s,
        }
    }

    /// Where `role` goes: its gait's speed (`None` for roles that are not gaits, or a
    /// speed that is not a positive number).
    fn for_role(&self, role: Role) -> Option<f32> {
        let speed = match role {
            Role::WalkForward | Role::WalkBack | Role::WalkLeft | Role::WalkRight => self.walk_m_s,
            Role::RunForward | Role::RunBack | Role::RunLeft | Role::RunRight => self.run_m_s,
            Role::SprintForward => self.sprint_m_s,
            Role::CrouchWalk => self.crouch_m_s,
            _ => return None,
        };
        (speed.is_finite() && speed > 0.0).then_some(speed)
    }
}

/// A generated graph and everything a user should know about it.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedGraph {
    pub def: GraphDef,
    /// Every role left empty (or whose clip goes unused), with what stands in for it.
    pub missing: Vec<MissingRole>,
    /// Each gait clip used, where it sits on the speed axis and how that was measured.
    pub speeds: Vec<RoleSpeed>,
    /// Things that work but look wrong (a strafe that travels the other way, a run slower
    /// than the walk, travel on a joint root motion does not take out …).
    pub warnings: Vec<String>,
}

impl GeneratedGraph {
    /// `clips` with each measured gait clip's speed as its authored velocity (a clip that
    /// has one keeps it), for a graph from [`generate_graph_at`]: playback is matched to
    /// the speed by the clips' authored speeds.
    pub fn clips_with_measured_speeds(&self, clips: Vec<Clip>) -> Vec<Clip> {
        clips
            .into_iter()
            .map(|clip| {
                let measured = self
                    .speeds
                    .iter()
                    .filter(|s| s.clip == clip.name() && s.fallback.is_none())
                    .find_map(|s| s.measured.as_ref());
                match measured {
                    Some(m) if clip.authored_velocity_model_m_s().is_none() => {
                        let v = m.velocity_model_m_s;
                        clip.clone().with_authored_velocity(v).unwrap_or(clip)
                    }
                    _ => clip,
                }
            })
            .collect()
    }

    /// The graph as a RON `GraphDef` (what [`GraphAsset::from_ron`] reads), headed by
    /// comments with the measured speeds and the missing roles.
    pub fn to_ron(&self) -> String {
        let mut out = String::from(
            "// Generated from a clip-role map by plantigrade::graph::roles::generate_graph.\n",
        );
        for s in &self.speeds {
            let how = match (&s.measured, &s.fallback) {
                (_, Some(why)) => format!("typical speed, not measured: {why}"),
                (Some(m), None) => format!("{}, heading {:.0} deg", m.source, m.direction_deg()),
                (None, None) => String::new(),
            };
            out.push_str(&format!(
                "// {:<16} {:<32} {:>5.2} m/s  ({how})\n",
                s.role.name(),
                s.clip,
                s.speed_m_s
            ));
        }
        for m in &self.missing {
            out.push_str(&format!("// missing {m}\n"));
        }
        for w in &self.warnings {
            out.push_str(&format!("// warning: {w}\n"));
        }
        out.push_str(
            &ron::ser::to_string_pretty(&self.def, ron::ser::PrettyConfig::default())
                .expect("a graph definition is plain data and always serialises"),
        );
        out.push('\n');
        out
    }
}

/// Why a graph could not be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Roles(#[from] RolesError),
    #[error("{role} names clip '{clip}', which is not among the clips{}", hint(.close))]
    UnknownClip {
        role: Role,
        clip: String,
        /// Clip names that contain the name, or that it contains (e.g. without the
        /// armature prefix).
        close: Vec<String>,
    },
    #[error("aim_mask names joint '{0}', which the skeleton does not have")]
    UnknownMaskJoint(String),
    /// The generated definition does not compile (a bug in the generator, reported rather
    /// than handed on).
    #[error("the generated graph does not compile: {0}")]
    Invalid(GraphLoadError),
}

fn hint(close: &[String]) -> String {
    if close.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", close.join(", "))
    }
}

/// Builds a graph like the default ALS graph from `roles`, for `clips` on `skeleton`
/// (`bones` finds the feet that measure in-place gaits and the spine that the aim overlay
/// masks; [`HumanoidMap::detect`] gives it):
///
/// - **Locomotion**: a 2D blend space over `direction` (degrees: 0 forward, +90 left, −90
///   right, ±180 back) and `speed` (m/s). Idle sits at speed 0 in every direction used;
///   each gait at its direction and its **measured** speed ([`measure_clip_speed`]). A
///   direction a gait lacks takes the other gait's clip of that direction (walk left from
///   the run left, played at its own speed), else its own forward clip (the character
///   plays its forward gait whichever way it moves, as the UAL graph does); so a rig with
///   no strafes and no backward clips uses its forward clips in every direction. Sprint
///   sits ahead only.
/// - **Crouch** (with `crouch_idle`): a 1D blend over `speed` to `crouch_walk`.
/// - **Jump** (with `jump_start` and/or `jump_loop`): a 1D blend over `vertical_velocity`,
///   rising to falling; **Land** (with `jump_land`, blended to `jump_land_heavy` over
///   `land_velocity` at the heavy-landing speed) when touching down standing still.
/// - **Push_Wall** (with `push_wall`) while `is_pushing_wall`.
/// - An **Aim** layer (with `aim`) while `aiming`, in model space, on `aim_mask` or a
///   gradient up the spine, full on the neck and shoulders.
///
/// Playback is matched to `speed` only when every gait clip has an authored speed (the
/// runtime scales by authored speeds). Every parameter `Character` drives is declared.
/// Missing roles are listed, never silently dropped; the result is compiled against the
/// clips before it is returned.
pub fn generate_graph(
    roles: &ClipRoles,
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clips: &[Clip],
) -> Result<GeneratedGraph, GenerateError> {
    generate_graph_at(roles, skeleton, bones, clips, None)
}

/// [`generate_graph`], with each gait placed at the character's own speed when
/// `gait_speeds` is given (see [`GaitSpeeds`]) rather than at its measured one. Playback is
/// then matched to `speed` by the measured speeds: give the graph
/// [`GeneratedGraph::clips_with_measured_speeds`].
pub fn generate_graph_at(
    roles: &ClipRoles,
    skeleton: &Skeleton,
    bones: &HumanoidMap,
    clips: &[Clip],
    gait_speeds: Option<GaitSpeeds>,
) -> Result<GeneratedGraph, GenerateError> {
    roles.validate()?;
    let mut gen = Generator {
        roles,
        skeleton,
        bones,
        clips,
        gait_speeds,
        missing: Vec::new(),
        speeds: Vec::new(),
        warnings: Vec::new(),
    };
    for role in Role::ALL {
        if let Some(name) = roles.clip(role) {
            gen.find(role, name)?;
        }
    }

    let mut states = Vec::new();
    let locomotion = gen.locomotion();
    states.push(state("Locomotion", locomotion.node));
    let crouch = gen.crouch();
    let has_crouch = crouch.is_some();
    if let Some(node) = crouch {
        states.push(state("Crouch", node));
    }
    let jump = gen.jump();
    let has_jump = jump.is_some();
    if let Some(node) = jump {
        states.push(state("Jump", node));
    }
    let land = gen.land(has_jump);
    let has_land = land.is_some();
    if let Some(node) = land {
        states.push(state("Land", node));
    }
    let has_push = match roles.clip(Role::PushWall) {
        Some(clip) => {
            states.push(state("Push_Wall", clip_node(clip)));
            true
        }
        None => {
            gen.missing(
                Role::PushWall,
                None,
                "no Push_Wall state: pushing into a wall keeps the gait",
            );
            false
        }
    };
    let layers = gen.aim_layer()?;

    let mut transitions = Vec::new();
    if has_jump {
        transitions.push(transition("*", "Jump", "!is_grounded", 0.15, true));
    }
    if locomotion.sideways {
        // A strafe reversing starts the gait over heading the new way, so one sidestep is
        // not blended into its mirror (which crosses the feet).
        transitions.push(transition("Locomotion", "Locomotion", REVERSED, 0.3, true));
    }
    if has_land {
        transitions.push(transition(
            "Jump",
            "Land",
            &format!("is_grounded && speed < {LAND_IN_PLACE_BELOW_M_S:?}"),
            0.15,
            false,
        ));
    }
    if has_jump && has_crouch {
        transitions.push(transition(
            "Jump",
            "Crouch",
            "is_grounded && is_crouching",
            0.15,
            false,
        ));
    }
    if has_jump {
        transitions.push(transition("Jump", "Locomotion", "is_grounded", 0.15, false));
    }
    if has_land {
        if has_crouch {
            transitions.push(TransitionDef {
                at_end: true,
                ..transition("Land", "Crouch", "is_crouching", 0.25, true)
            });
        }
        // Moving off cuts the landing short; standing, it plays out.
        transitions.push(transition(
            "Land",
            "Locomotion",
            &format!("input_speed > {LAND_IN_PLACE_BELOW_M_S:?}"),
            0.25,
            true,
        ));
        transitions.push(TransitionDef {
            condition: None,
            at_end: true,
            ..transition("Land", "Locomotion", "", 0.25, true)
        });
    }
    if has_push {
        transitions.push(transition(
            "Locomotion",
            "Push_Wall",
            IS_PUSHING_WALL,
            0.2,
            true,
        ));
        transitions.push(transition(
            "Push_Wall",
            "Locomotion",
            &format!("!{IS_PUSHING_WALL}"),
            0.2,
            true,
        ));
    }
    if has_crouch {
        transitions.push(transition(
            "Locomotion",
            "Crouch",
            names::IS_CROUCHING,
            0.25,
            true,
        ));
        transitions.push(transition(
            "Crouch",
            "Locomotion",
            &format!("!{}", names::IS_CROUCHING),
            0.25,
            true,
        ));
    }

    let def = GraphDef {
        parameters: parameters(),
        base: NodeDef::StateMachine(StateMachineDef {
            initial: "Locomotion".into(),
            states,
            transitions,
        }),
        layers,
        root_motion: RootMotionDef::default(),
    };
    gen.check_root_motion();

    // Compiled here so a generator bug is an error, not a graph that fails later.
    let mut used = BTreeSet::new();
    collect_clips(&def.base, &mut used);
    for layer in &def.layers {
        collect_clips(&layer.node, &mut used);
    }
    let used_clips: Vec<Clip> = clips
        .iter()
        .filter(|c| used.remove(c.name()))
        .cloned()
        .collect();
    GraphAsset::from_def(&def, skeleton, used_clips).map_err(GenerateError::Invalid)?;

    Ok(GeneratedGraph {
        def,
        missing: gen.missing,
        speeds: gen.speeds,
        warnings: gen.warnings,
    })
}

/// Every parameter `Character` writes (see `LocomotionParams`), with the defaults of a
/// character standing on the ground.
fn parameters() -> Vec<ParamDef> {
    vec![
        ParamDef::Float(names::SPEED.into(), 0.0),
        ParamDef::Float(names::INPUT_SPEED.into(), 0.0),
        ParamDef::Float(names::DIRECTION.into(), 0.0),
        ParamDef::Bool(names::IS_MOVING.into(), false),
        ParamDef::Bool(names::IS_CROUCHING.into(), false),
        ParamDef::Bool(names::IS_GROUNDED.into(), true),
        ParamDef::Float(names::VERTICAL_VELOCITY.into(), 0.0),
        ParamDef::Float(names::LAND_VELOCITY.into(), 0.0),
        ParamDef::Bool(names::AIMING.into(), false),
        ParamDef::Bool(IS_PUSHING_WALL.into(), false),
        ParamDef::Bool(REVERSED.into(), false),
    ]
}

fn state(name: &str, node: NodeDef) -> StateDef {
    StateDef {
        name: name.into(),
        node,
    }
}

fn clip_node(clip: &str) -> NodeDef {
    NodeDef::Clip {
        clip: clip.into(),
        rate: 1.0,
    }
}

fn transition(from: &str, to: &str, condition: &str, duration_s: f32, ease: bool) -> TransitionDef {
    TransitionDef {
        from: from.into(),
        to: to.into(),
        condition: (!condition.is_empty()).then(|| condition.into()),
        duration_s,
        curve: if ease {
            BlendCurve::EaseInOut
        } else {
            BlendCurve::Linear
        },
        at_end: false,
        at_marker: None,
        start_phase: None,
        inherit_phase: false,
    }
}

fn collect_clips(node: &NodeDef, out: &mut BTreeSet<String>) {
    match node {
        NodeDef::Clip { clip, .. } => {
            out.insert(clip.clone());
        }
        NodeDef::BlendSpace1D { samples, .. } => {
            out.extend(samples.iter().map(|s| s.clip.clone()));
        }
        NodeDef::BlendSpace2D { samples, .. } => {
            out.extend(samples.iter().map(|s| s.clip.clone()));
        }
        NodeDef::StateMachine(machine) => {
            for s in &machine.states {
                collect_clips(&s.node, out);
            }
        }
    }
}

fn round_speed(speed_m_s: f32) -> f32 {
    (speed_m_s / SPEED_STEP_M_S).round() * SPEED_STEP_M_S
}

/// The smoothing and playback of the default graph's gait blends; `lowest_rate` is the
/// slowest a clip placed on them needs to play (see [`Generator::lowest_rate`]).
fn gait_options(match_speed: bool, wraps: bool, lowest_rate: f32) -> BlendSpaceOptions {
    let defaults = BlendSpaceOptions::default();
    BlendSpaceOptions {
        sync: true,
        match_speed_param: match_speed.then(|| names::SPEED.into()),
        rate_range: (
            defaults.rate_range.0.min(lowest_rate),
            defaults.rate_range.1,
        ),
        // Walk->Run settles in 0.2 s, Run->Idle in 0.3 s (SPEC GRAPH-3).
        smoothing_up_s: (0.2, 0.2),
        smoothing_down_s: (0.2, 0.3),
        x_wraps: wraps.then_some((-180.0, 180.0)),
        ..defaults
    }
}

struct Locomotion {
    node: NodeDef,
    /// It has a sideways gait of its own (a strafe), so a reversal restarts it.
    sideways: bool,
}

struct Generator<'a> {
    roles: &'a ClipRoles,
    skeleton: &'a Skeleton,
    bones: &'a HumanoidMap,
    clips: &'a [Clip],
    gait_speeds: Option<GaitSpeeds>,
    missing: Vec<MissingRole>,
    speeds: Vec<RoleSpeed>,
    warnings: Vec<String>,
}

impl Generator<'_> {
    fn find(&self, role: Role, name: &str) -> Result<&Clip, GenerateError> {
        if let Some(clip) = self.clips.iter().find(|c| c.name() == name) {
            return Ok(clip);
        }
        let lower = name.to_lowercase();
        let close = self
            .clips
            .iter()
            .map(Clip::name)
            .filter(|c| {
                let c = c.to_lowercase();
                c.contains(&lower) || lower.contains(&c)
            })
            .take(4)
            .map(str::to_string)
            .collect();
        Err(GenerateError::UnknownClip {
            role,
            clip: name.into(),
            close,
        })
    }

    fn missing(&mut self, role: Role, instead: Option<Role>, effect: impl Into<String>) {
        self.missing.push(MissingRole {
            role,
            instead,
            effect: effect.into(),
        });
    }

    /// The speed of the gait `role` (measured once per role), or `None` without a clip.
    fn speed(&mut self, role: Role) -> Option<f32> {
        let name = self.roles.clip(role)?;
        if let Some(known) = self.speeds.iter().find(|s| s.role == role) {
            return Some(known.speed_m_s);
        }
        // Looked up in generate_graph already; a missing clip never gets here.
        let clip = self.find(role, name).ok()?;
        let (measured, fallback) = match measure_clip_speed(self.skeleton, self.bones, clip) {
            Ok(m) if m.speed_m_s >= MIN_GAIT_SPEED_M_S => (Some(m), None),
            Ok(m) => {
                let why = format!(
                    "it travels at only {:.2} m/s ({}): it steps on the spot",
                    m.speed_m_s, m.source
                );
                (Some(m), Some(why))
            }
            Err(e) => (None, Some(e.to_string())),
        };
        let gait_m_s = self.gait_speeds.and_then(|g| g.for_role(role));
        let speed_m_s = match (&measured, &fallback, gait_m_s) {
            // A walk at the character's walk speed, whatever its clip's: one measured
            // faster plays slower (see `GaitSpeeds`).
            (Some(_), None, Some(gait)) if role.is_walk() => round_speed(gait),
            // The runs too, all of them, when the forward run is measured more than
            // `RUN_SLOWED_ABOVE` times as fast as the character runs.
            (Some(m), None, Some(gait))
                if role.is_run() && {
                    let forward_m_s = if role == Role::RunForward {
                        Some(m.speed_m_s)
                    } else {
                        self.measured_speed(Role::RunForward)
                    };
                    forward_m_s.is_some_and(|v| v > RUN_SLOWED_ABOVE * gait)
                } =>
            {
                round_speed(gait)
            }
            // Never slower than the character moves in this gait (see `GaitSpeeds`).
            (Some(m), None, Some(gait)) => round_speed(m.speed_m_s.max(gait)),
            (Some(m), None, None) => round_speed(m.speed_m_s),
            (_, _, Some(gait)) => round_speed(gait),
            _ => typical_speed_m_s(role),
        };
        if let (Some(m), None, Some(want)) = (&measured, &fallback, role.direction_deg()) {
            let off = crate::math::wrap_angle((m.direction_deg() - want).to_radians())
                .to_degrees()
                .abs();
            if off > 45.0 {
                self.warnings.push(format!(
                    "{role} ('{name}') travels at {:.0} deg, not {want:.0} deg (0 forward, +90 \
                     left): check the role, or the rig's facing (+Z forward, +X left)",
                    m.direction_deg()
                ));
            }
        }
        self.speeds.push(RoleSpeed {
            role,
            clip: name.into(),
            speed_m_s,
            measured,
            fallback,
        });
        Some(speed_m_s)
    }

    /// What `role`'s clip was measured at (m/s), once measured.
    fn measured_speed(&self, role: Role) -> Option<f32> {
        self.speeds
            .iter()
            .find(|s| s.role == role && s.fallback.is_none())
            .and_then(|s| s.measured.as_ref())
            .map(|m| m.speed_m_s)
    }

    /// The slowest rate a measured gait clip placed at the character's speed plays at
    /// (placed speed / measured speed), never below [`LOWEST_RATE`]; 1 when none is
    /// slowed.
    fn lowest_rate(&self) -> f32 {
        self.speeds
            .iter()
            .filter(|s| s.fallback.is_none())
            .filter_map(|s| s.measured.as_ref().map(|m| s.speed_m_s / m.speed_m_s))
            .filter(|rate| rate.is_finite())
            .fold(1.0f32, f32::min)
            .max(LOWEST_RATE)
    }

    /// Whether playback can be matched to speed on `role`'s clip: it has an authored speed,
    /// or (placed at the character's gait speeds) a measured one it will be given.
    fn uses_authored_speed(&self, role: Role) -> bool {
        let clip = self.roles.clip(role);
        let authored = clip
            .and_then(|name| self.clips.iter().find(|c| c.name() == name))
            .and_then(Clip::authored_speed_m_s)
            .is_some_and(|s| s >= MIN_GAIT_SPEED_M_S);
        let measured = self.gait_speeds.is_some()
            && self
                .speeds
                .iter()
                .any(|s| Some(s.clip.as_str()) == clip && s.fallback.is_none());
        authored || measured
    }

    fn locomotion(&mut self) -> Locomotion {
        // Moving samples: (clip role, direction deg, speed m/s).
        let mut moving: Vec<(Role, f32, f32)> = Vec::new();
        let mut sideways = false;
        for (own, other) in [(WALK, RUN), (RUN, WALK)] {
            let forward = own[0];
            let forward_speed = self.speed(forward);
            for (k, &role) in own.iter().enumerate() {
                let direction = role.direction_deg().unwrap_or(0.0);
                if let Some(speed) = self.speed(role) {
                    moving.push((role, direction, speed));
                    sideways |= k == 1 || k == 2;
                    continue;
                }
                if k == 0 {
                    self.missing(
                        role,
                        None,
                        "no such gait: the blend goes from the next slower sample to the next \
                         faster one",
                    );
                } else if self.roles.clip(other[k]).is_some() {
                    self.missing(
                        role,
                        Some(other[k]),
                        format!(
                            "{}'s clip plays at {direction:+.0} deg, at its own speed",
                            other[k]
                        ),
                    );
                } else if let Some(speed) = forward_speed {
                    moving.push((forward, direction, speed));
                    self.missing(
                        role,
                        Some(forward),
                        format!(
                            "{forward}'s clip plays at {direction:+.0} deg (the forward gait \
                             whichever way it moves)"
                        ),
                    );
                } else {
                    self.missing(role, None, format!("nothing plays at {direction:+.0} deg"));
                }
            }
        }
        match self.speed(Role::SprintForward) {
            Some(speed) => moving.push((Role::SprintForward, 0.0, speed)),
            None => self.missing(
                Role::SprintForward,
                None,
                "no sprint: the fastest gait is the top of the speed axis",
            ),
        }
        self.warn_out_of_order();

        let idle = self.roles.clip(Role::Idle).unwrap_or_default().to_string();
        let mut directions: Vec<f32> = Vec::new();
        let mut samples: Vec<Sample2D> = Vec::new();
        let mut match_speed = true;
        for &(role, direction, speed) in &moving {
            match_speed &= self.uses_authored_speed(role);
            // Back sits at both ends of the direction axis, which does not wrap.
            let at: &[f32] = if direction == 180.0 {
                &[-180.0, 180.0]
            } else {
                &[direction]
            };
            let clip = self.roles.clip(role).unwrap_or_default();
            for &x in at {
                let clash = samples.iter().find(|s| {
                    (s.position.0 - x).abs() < 0.5 && (s.position.1 - speed).abs() < SAME_SPEED_M_S
                });
                if let Some(first) = clash {
                    if first.clip != clip {
                        self.warnings.push(format!(
                            "{role} ('{clip}') is left out at {x:+.0} deg: it measures the same \
                             speed ({speed:.2} m/s) as '{}'",
                            first.clip
                        ));
                    }
                    continue;
                }
                if !directions.contains(&x) {
                    directions.push(x);
                }
                samples.push(Sample2D {
                    clip: clip.to_string(),
                    position: (x, speed),
                    start_phase: None,
                });
            }
        }
        directions.sort_by(f32::total_cmp);
        let mut all = Vec::with_capacity(directions.len() + samples.len());
        all.extend(directions.iter().map(|&x| Sample2D {
            clip: idle.clone(),
            position: (x, 0.0),
            start_phase: None,
        }));
        all.extend(samples);
        Locomotion {
            node: NodeDef::BlendSpace2D {
                x_param: names::DIRECTION.into(),
                y_param: names::SPEED.into(),
                samples: all,
                options: gait_options(match_speed, true, self.lowest_rate()),
            },
            sideways,
        }
    }

    fn warn_out_of_order(&mut self) {
        let at = |gen: &Self, role: Role| {
            gen.speeds
                .iter()
                .find(|s| s.role == role)
                .map(|s| s.speed_m_s)
        };
        for (slow, fast) in [
            (Role::WalkForward, Role::RunForward),
            (Role::RunForward, Role::SprintForward),
            (Role::WalkForward, Role::SprintForward),
        ] {
            if let (Some(a), Some(b)) = (at(self, slow), at(self, fast)) {
                if a >= b {
                    self.warnings.push(format!(
                        "{slow} ({a:.2} m/s) is not slower than {fast} ({b:.2} m/s)"
                    ));
                }
            }
        }
    }

    fn crouch(&mut self) -> Option<NodeDef> {
        let Some(idle) = self.roles.clip(Role::CrouchIdle) else {
            let unused = if self.roles.clip(Role::CrouchWalk).is_some() {
                " (crouch_walk goes unused without it)"
            } else {
                ""
            };
            self.missing(
                Role::CrouchIdle,
                None,
                format!("no Crouch state: crouching keeps the standing gaits{unused}"),
            );
            if self.roles.clip(Role::CrouchWalk).is_none() {
                self.missing(Role::CrouchWalk, None, "no Crouch state");
            }
            return None;
        };
        let Some(speed) = self.speed(Role::CrouchWalk) else {
            self.missing(
                Role::CrouchWalk,
                Some(Role::CrouchIdle),
                "the crouch idle plays at every speed",
            );
            return Some(clip_node(idle));
        };
        let walk = self.roles.clip(Role::CrouchWalk).unwrap_or_default();
        Some(NodeDef::BlendSpace1D {
            param: names::SPEED.into(),
            samples: vec![
                Sample1D {
                    clip: idle.into(),
                    position: 0.0,
                    start_phase: None,
                },
                Sample1D {
                    clip: walk.into(),
                    position: speed,
                    start_phase: None,
                },
            ],
            options: BlendSpaceOptions {
                smoothing_up_s: (0.2, 0.0),
                smoothing_down_s: (0.3, 0.0),
                ..gait_options(
                    self.uses_authored_speed(Role::CrouchWalk),
                    false,
                    self.lowest_rate(),
                )
            },
        })
    }

    fn jump(&mut self) -> Option<NodeDef> {
        let start = self.roles.clip(Role::JumpStart);
        let fall = self.roles.clip(Role::JumpLoop);
        let node = match (start, fall) {
            (Some(start), Some(fall)) => NodeDef::BlendSpace1D {
                param: names::VERTICAL_VELOCITY.into(),
                // Rising at the push-off, falling after; the change spreads over 2 m/s of
                // vertical speed (0.08 s at the default 2.5 g) and settles in 0.1 s.
                samples: vec![
                    Sample1D {
                        clip: fall.into(),
                        position: -1.0,
                        start_phase: None,
                    },
                    Sample1D {
                        clip: start.into(),
                        position: 1.0,
                        start_phase: None,
                    },
                ],
                options: BlendSpaceOptions {
                    sync: false,
                    smoothing_up_s: (0.1, 0.0),
                    smoothing_down_s: (0.1, 0.0),
                    ..BlendSpaceOptions::default()
                },
            },
            (Some(only), None) => {
                self.missing(
                    Role::JumpLoop,
                    Some(Role::JumpStart),
                    "the jump start plays all the way down",
                );
                clip_node(only)
            }
            (None, Some(only)) => {
                self.missing(
                    Role::JumpStart,
                    Some(Role::JumpLoop),
                    "the jump loop plays from the push-off",
                );
                clip_node(only)
            }
            (None, None) => {
                for role in [Role::JumpStart, Role::JumpLoop] {
                    self.missing(
                        role,
                        None,
                        "no Jump state: in the air the character keeps its ground pose",
                    );
                }
                return None;
            }
        };
        Some(node)
    }

    fn land(&mut self, has_jump: bool) -> Option<NodeDef> {
        let light = self.roles.clip(Role::JumpLand);
        let heavy = self.roles.clip(Role::JumpLandHeavy);
        if !has_jump {
            for (role, clip) in [(Role::JumpLand, light), (Role::JumpLandHeavy, heavy)] {
                let effect = if clip.is_some() {
                    "unused: landing is entered from the Jump state, which needs jump_start \
                     or jump_loop"
                } else {
                    "no Land state"
                };
                self.missing(role, None, effect);
            }
            return None;
        }
        let heavy_m_s = CharacterConfig::default().heavy_landing_speed_m_s;
        match (light, heavy) {
            (Some(light), Some(heavy)) => Some(NodeDef::BlendSpace1D {
                param: names::LAND_VELOCITY.into(),
                // Light below the heavy-landing speed, heavy above (SPEC MOVE-6).
                samples: vec![
                    Sample1D {
                        clip: light.into(),
                        position: heavy_m_s - 0.5,
                        start_phase: None,
                    },
                    Sample1D {
                        clip: heavy.into(),
                        position: heavy_m_s + 0.5,
                        start_phase: None,
                    },
                ],
                options: BlendSpaceOptions::default(),
            }),
            (Some(only), None) => {
                self.missing(
                    Role::JumpLandHeavy,
                    Some(Role::JumpLand),
                    "every landing plays the one landing clip",
                );
                Some(clip_node(only))
            }
            (None, Some(only)) => {
                self.missing(
                    Role::JumpLand,
                    Some(Role::JumpLandHeavy),
                    "every landing plays the heavy landing",
                );
                Some(clip_node(only))
            }
            (None, None) => {
                self.missing(
                    Role::JumpLand,
                    None,
                    "no Land state: touching down goes straight back to the gait",
                );
                self.missing(Role::JumpLandHeavy, None, "no Land state");
                None
            }
        }
    }

    fn aim_layer(&mut self) -> Result<Vec<LayerDef>, GenerateError> {
        let Some(aim) = self.roles.clip(Role::Aim) else {
            self.missing(Role::Aim, None, "no Aim layer: aiming changes nothing");
            return Ok(Vec::new());
        };
        let mask = match &self.roles.aim_mask {
            Some(mask) => {
                if let Some((joint, _)) = mask.iter().find(|(j, _)| self.skeleton.find(j).is_none())
                {
                    return Err(GenerateError::UnknownMaskJoint(joint.clone()));
                }
                mask.clone()
            }
            None => self.spine_mask(),
        };
        if mask.is_empty() {
            self.warnings.push(format!(
                "aim ('{aim}') is left out: no spine, neck or arms were found for its mask \
                 (give aim_mask in the role map)"
            ));
            self.missing(Role::Aim, None, "no Aim layer: no mask for it");
            return Ok(Vec::new());
        }
        Ok(vec![LayerDef {
            name: "Aim".into(),
            node: clip_node(aim),
            weight_param: Some(names::AIMING.into()),
            weight: 1.0,
            mask,
            weight_smoothing_s: 0.2,
            // The aim keeps the chest facing where it was authored over turned hips.
            model_space_rotation: true,
        }])
    }

    /// A gradient up the spine (0.9 at its top), full on the neck (or head) and on each
    /// arm from its shoulder (the upper arm's parent, unless that is the spine), legs
    /// untouched: the default graph's SPEC GRAPH-4 mask on any rig.
    fn spine_mask(&self) -> Vec<(String, f32)> {
        let b = self.bones;
        let name = |j: usize| self.skeleton.name(j).to_string();
        let n = b.spine.len();
        let mut mask: Vec<(String, f32)> = b
            .spine
            .iter()
            .enumerate()
            .map(|(k, &j)| (name(j), 0.9 * (k + 1) as f32 / n as f32))
            .collect();
        if let Some(top) = b.neck.or(b.head) {
            mask.push((name(top), 1.0));
        }
        let torso: Vec<usize> = b
            .pelvis
            .into_iter()
            .chain(b.spine.iter().copied())
            .collect();
        for side in Side::BOTH {
            let Some(upper) = b.arms[side.index()].upperarm else {
                continue;
            };
            let shoulder = self
                .skeleton
                .parent(upper)
                .filter(|p| !torso.contains(p) && Some(*p) != b.neck)
                .unwrap_or(upper);
            mask.push((name(shoulder), 1.0));
        }
        // Rounded so the file reads 0.3, 0.6, not 0.29999998.
        for (_, w) in &mut mask {
            *w = (*w * 100.0).round() / 100.0;
        }
        mask
    }

    /// Root motion takes out the skeleton's first joint; travel carried by another joint
    /// stays in the pose and would run the mesh off its capsule.
    fn check_root_motion(&mut self) {
        let first = self.skeleton.names().first().cloned().unwrap_or_default();
        for s in &self.speeds {
            if let Some(MeasuredSpeed {
                source: super::SpeedSource::RootTravel { joint },
                ..
            }) = &s.measured
            {
                if *joint != first {
                    self.warnings.push(format!(
                        "{} ('{}') travels on '{joint}', not on the root-motion joint \
                         '{first}': its travel stays in the pose (set root_motion.joint)",
                        s.role, s.clip
                    ));
                }
            }
        }
    }
}
