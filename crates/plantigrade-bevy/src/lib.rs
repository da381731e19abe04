//! plantigrade's character as a Bevy plugin over the game's own `bevy_rapier3d` world (SPEC
//! ENG-2, ENG-3).
//!
//! - [`PlantigradePlugin`] runs every character once per run of its schedule
//!   (`FixedUpdate` by default), in the public sets of [`PlantigradeSystems`]: the game's
//!   [`Intent`](PlantigradeSystems::Intent) systems write [`CharacterIntent`]; then the
//!   core tick's three stages run as [`Movement`](PlantigradeSystems::Movement),
//!   [`Animation`](PlantigradeSystems::Animation) (in parallel over characters) and
//!   [`Procedural`](PlantigradeSystems::Procedural) (pelvis tilt, foot IK, look-at), which
//!   also sends the messages [`Footstep`], [`Landed`], [`Jumped`] and [`StateEntered`]; then
//!   [`WriteTransforms`](PlantigradeSystems::WriteTransforms) writes the character's
//!   `Transform` (feet and facing), its capsule collider and every skeleton joint's local
//!   `Transform`. Bevy's own animation must not drive those joints.
//! - [`spawn_character`] makes the entities: the character (at its feet, facing its yaw)
//!   with a kinematic rapier body, its capsule as a child with a normal rapier collider (on
//!   the `CHARACTERS` layer), and one entity per joint as a `ChildOf` hierarchy under it.
//! - [`PlantigradeSettings`]: the character's whole setup (the core's `CharacterSettings`)
//!   as a reflected component an inspector can edit; an edit applies before the next
//!   movement stage, and one that cannot work is refused with a warning and set back.
//! - [`assets`]: characters from files through the `AssetServer` (a glTF rig with its clips,
//!   a RON graph, a RON bone map), bound by name to a scene's joints when there is one.
//! - `render` (cargo feature `render`): the built-in mannequin's skinned body, debug
//!   gizmos and transform interpolation between fixed ticks, for a game with a renderer.
//! - Physics: the character's queries and moves run on the default rapier context (the
//!   one marked `DefaultRapierContext`; without it no character ticks) through
//!   `plantigrade-rapier`'s functions (rapier's `KinematicCharacterController` moves the
//!   capsule), with its own capsule excluded. A collider without `CollisionGroups` is on
//!   every layer, so any level collider is ground. A character waits (does not tick) until
//!   rapier has taken in its capsule, so the level spawned with it is there on its first
//!   tick.
//!
//! Units: metres, seconds, radians; world space is Bevy's (Y up).

pub mod assets;
mod backend;
pub mod body;
#[cfg(feature = "render")]
pub mod render;
mod settings;

use std::sync::Arc;

use bevy::app::{App, FixedUpdate, Plugin};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_rapier3d::prelude::{
    Collider, CollisionGroups, Group, PhysicsSet, ReadRapierContext, RigidBody,
};
use plantigrade::character::{Character, TickStage};
use plantigrade::graph::GraphEvent;
use plantigrade::ik::FootIkMode;
use plantigrade::motion::{Intent, LandingGrade};
use plantigrade::world::{BodyId, Capsule, CharacterPhysics, Layers};
use plantigrade_rapier::ControllerConfig;

use backend::RapierBackend;
pub use settings::PlantigradeSettings;

/// The character plugin; see the crate docs. [`PlantigradePlugin::default`] runs in
/// `FixedUpdate`.
#[derive(Debug, Clone)]
pub struct PlantigradePlugin {
    schedule: Interned<dyn ScheduleLabel>,
}

impl PlantigradePlugin {
    /// The plugin with its systems in `schedule` (e.g. `FixedUpdate`, or `Update` for a
    /// variable step; each run ticks every character by that schedule's `Time` delta).
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Default for PlantigradePlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

/// The plugin's system sets, run in this order in the plugin's schedule, before rapier's
/// `SyncBackend` when rapier runs in the same schedule.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlantigradeSystems {
    /// The game's player-input and AI systems that write [`CharacterIntent`] and
    /// [`LookTarget`] (the plugin adds none here).
    Intent,
    /// Each character's movement: intent → movement plan → collide-and-slide.
    Movement,
    /// Each character's animation graph → local pose (no physics; in parallel).
    Animation,
    /// Each character's procedural pass over the animated pose: tilt, landing impact, lean,
    /// foot IK, look-at; then the tick's messages.
    Procedural,
    /// Character, capsule and joint `Transform`s from the tick's result.
    WriteTransforms,
}

impl Plugin for PlantigradePlugin {
    fn build(&self, app: &mut App) {
        // Characters from files need the AssetServer; a game without it (or that adds
        // AssetPlugin later) adds `assets::PlantigradeAssetPlugin` itself.
        if app.is_plugin_added::<bevy::asset::AssetPlugin>() {
            app.add_plugins(assets::PlantigradeAssetPlugin);
        }
        app.register_type::<CharacterIntent>()
            .register_type::<LookTarget>()
            .register_type::<CharacterToggles>()
            .register_type::<FootIkChoice>()
            .register_type::<SkeletonJoint>()
            .register_type::<PlantigradeConfig>()
            .register_type::<PlantigradeSettings>()
            .init_resource::<PlantigradeConfig>()
            .add_message::<Footstep>()
            .add_message::<Landed>()
            .add_message::<Jumped>()
            .add_message::<StateEntered>()
            .configure_sets(
                self.schedule,
                (
                    PlantigradeSystems::Intent,
                    PlantigradeSystems::Movement,
                    PlantigradeSystems::Animation,
                    PlantigradeSystems::Procedural,
                    PlantigradeSystems::WriteTransforms,
                )
                    .chain()
                    .before(PhysicsSet::SyncBackend),
            )
            .add_systems(
                self.schedule,
                (
                    settings::apply_settings
                        .in_set(PlantigradeSystems::Movement)
                        .before(move_characters),
                    move_characters.in_set(PlantigradeSystems::Movement),
                    animate_characters.in_set(PlantigradeSystems::Animation),
                    finish_characters.in_set(PlantigradeSystems::Procedural),
                    write_transforms.in_set(PlantigradeSystems::WriteTransforms),
                ),
            );
    }
}

/// Plugin-wide settings of the physics backend (editable in an inspector).
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Resource, Default)]
pub struct PlantigradeConfig {
    /// Whether characters step up onto dynamic bodies. Default false.
    pub autostep_onto_dynamic_bodies: bool,
    /// A tiny push away from surfaces slid along (m). Default 1e-4.
    pub normal_nudge_m: f32,
}

impl Default for PlantigradeConfig {
    fn default() -> Self {
        let c = ControllerConfig::default();
        Self {
            autostep_onto_dynamic_bodies: c.autostep_include_dynamic_bodies,
            normal_nudge_m: c.normal_nudge_m,
        }
    }
}

impl PlantigradeConfig {
    fn controller(&self) -> ControllerConfig {
        let config = ControllerConfig {
            autostep_include_dynamic_bodies: self.autostep_onto_dynamic_bodies,
            normal_nudge_m: self.normal_nudge_m,
        };
        // An inspector may type anything: a bad nudge falls back to the default.
        if config.validate().is_ok() {
            config
        } else {
            ControllerConfig {
                normal_nudge_m: ControllerConfig::default().normal_nudge_m,
                ..config
            }
        }
    }
}

/// A character: the core state and settings (`plantigrade::character::Character`), on the
/// entity [`spawn_character`] made. Read its state through [`Self::character`].
#[derive(Component, Debug)]
pub struct PlantigradeCharacter {
    character: Character,
    /// The child entity with the capsule collider.
    capsule_entity: Entity,
    /// The capsule the collider has now (the crouched or the standing one).
    collider_capsule: Capsule,
    ticks: u64,
}

impl PlantigradeCharacter {
    /// The core character (pose, feet, facing, events and outputs of the last tick).
    pub fn character(&self) -> &Character {
        &self.character
    }

    /// The core character, to change its settings (`set_config`, `tilt_config_mut`, …).
    pub fn character_mut(&mut self) -> &mut Character {
        &mut self.character
    }

    /// The child entity holding the character's capsule collider.
    pub fn capsule_entity(&self) -> Entity {
        self.capsule_entity
    }

    /// The id the character's queries exclude (its capsule collider), for a game's own
    /// queries on its behalf through [`PlantigradeWorld`].
    pub fn body_id(&self) -> BodyId {
        backend::body_of(self.capsule_entity)
    }

    /// How many ticks this character has run (it waits, without ticking, until the physics
    /// world has its capsule).
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

/// What the player or an AI wants this tick: the core's `Intent` as reflectable data.
/// `move_world` is world `(x, z)` with length 0..=1 (0.5 walks, 1 runs).
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct CharacterIntent {
    /// Move direction and strength in the world XZ plane, as `(x, z)`.
    pub move_world: Vec2,
    /// Jump pressed (an edge): the next tick consumes it and sets it back to false.
    pub jump: bool,
    /// Crouch held.
    pub crouch: bool,
    /// Sprint held.
    pub sprint: bool,
    /// Aim held.
    pub aim: bool,
    /// World yaw (rad) to face while aiming or strafing; `None` faces the movement.
    pub face_yaw_rad: Option<f32>,
}

impl CharacterIntent {
    /// The core intent.
    pub fn to_intent(&self) -> Intent {
        Intent {
            move_world: self.move_world,
            jump: self.jump,
            crouch: self.crouch,
            sprint: self.sprint,
            aim: self.aim,
            face_yaw_rad: self.face_yaw_rad,
        }
    }
}

impl From<Intent> for CharacterIntent {
    fn from(i: Intent) -> Self {
        Self {
            move_world: i.move_world,
            jump: i.jump,
            crouch: i.crouch,
            sprint: i.sprint,
            aim: i.aim,
            face_yaw_rad: i.face_yaw_rad,
        }
    }
}

/// A world point the head and spine turn toward (`None`: look ahead). Default `None`.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct LookTarget {
    pub target_world: Option<Vec3>,
}

/// Which foot IK runs (the core's `FootIkMode`).
#[derive(Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FootIkChoice {
    /// The animation as it is.
    None,
    /// One ray under the foot now, no look-ahead.
    Classic,
    /// Look-ahead, heel and toe probes, support planes (the default).
    #[default]
    Predictive,
}

impl From<FootIkChoice> for FootIkMode {
    fn from(c: FootIkChoice) -> Self {
        match c {
            FootIkChoice::None => FootIkMode::None,
            FootIkChoice::Classic => FootIkMode::Classic,
            FootIkChoice::Predictive => FootIkMode::Predictive,
        }
    }
}

/// Per-character switches, applied before each tick.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default)]
pub struct CharacterToggles {
    /// Record the core's debug-draw commands each tick (`Character::debug_draw`).
    /// Default false.
    pub debug_draw: bool,
    /// Foot IK mode. Default predictive.
    pub foot_ik: FootIkChoice,
}

/// On each joint entity: the joint's index in the character's skeleton.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component)]
pub struct SkeletonJoint {
    pub index: usize,
}

/// On the character: its joint entities, by skeleton joint index.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct CharacterJoints(Vec<Entity>);

impl CharacterJoints {
    /// The joint entities, indexed like the skeleton's joints.
    pub fn entities(&self) -> &[Entity] {
        &self.0
    }
}

/// On a character's capsule collider entity: the character it belongs to.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharacterCapsule {
    pub character: Entity,
}

/// Which foot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Reflect)]
pub enum FootSide {
    Left,
    Right,
}

/// A foot was set down: the dominant clip crossed its `Footstep_L` / `Footstep_R` event.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Footstep {
    pub character: Entity,
    pub foot: FootSide,
    /// The foot joint after the tick (world, m); the character's feet when foot IK found
    /// no legs in the rig.
    pub foot_world: Vec3,
}

/// The character touched down after being airborne.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Landed {
    pub character: Entity,
    pub grade: LandingGrade,
    /// Downward speed at touchdown (m/s, ≥ 0).
    pub impact_speed_m_s: f32,
}

/// The character started a jump.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Jumped {
    pub character: Entity,
}

/// A state machine of the character's animation graph entered a state.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct StateEntered {
    pub character: Entity,
    /// The machine's name in the graph.
    pub machine: String,
    /// The state's name.
    pub state: String,
}

/// Spawns `character` (made with `Character::builder`): the character entity at its feet
/// and facing, with [`PlantigradeCharacter`], [`PlantigradeSettings`], [`CharacterIntent`],
/// [`LookTarget`], [`CharacterToggles`] and [`CharacterJoints`]; a kinematic rapier body; a
/// child with its capsule collider (layer `CHARACTERS`, seeing all layers) and
/// [`CharacterCapsule`]; and one child entity per skeleton joint, parented as the skeleton
/// is, each with a `Name`, [`SkeletonJoint`] and its local `Transform`. The character's
/// queries skip that capsule (its body id is set here). Returns the character entity.
pub fn spawn_character(commands: &mut Commands, character: Character) -> Entity {
    let root = commands.spawn(Name::new("plantigrade character")).id();
    let joints = character.pose().local().len();
    attach_character(commands, root, character, &vec![None; joints], None);
    root
}

/// Makes `root` (an existing entity) the character: its body, capsule child and joints.
/// `bound[i]` is an existing entity to drive as joint `i` (it gets [`SkeletonJoint`]);
/// joints without one get a new child entity under their parent joint's entity (or the
/// root). `rebase` says how to write bound joints whose entity parent is not their
/// skeleton parent's entity (see [`assets`]).
pub(crate) fn attach_character(
    commands: &mut Commands,
    root: Entity,
    character: Character,
    bound: &[Option<Entity>],
    rebase: Option<assets::JointRebase>,
) {
    let skeleton = Arc::clone(character.graph().asset());
    let skeleton = skeleton.skeleton();
    let capsule = character.capsule();
    let settings = PlantigradeSettings(character.settings());
    let toggles = CharacterToggles {
        debug_draw: false,
        // The mode it was set up with (the movement stage sets the toggles' mode).
        foot_ik: settings.0.foot_ik.mode.into(),
    };
    commands.entity(root).insert((
        root_transform(&character),
        RigidBody::KinematicPositionBased,
    ));
    let capsule_entity = commands
        .spawn((
            Name::new("plantigrade capsule"),
            capsule_transform(capsule),
            capsule_collider(capsule),
            CollisionGroups::new(Group::from_bits_retain(Layers::CHARACTERS.0), Group::ALL),
            CharacterCapsule { character: root },
            ChildOf(root),
        ))
        .id();
    let local = character.pose().local();
    let mut joints: Vec<Entity> = Vec::with_capacity(skeleton.num_joints());
    for (index, t) in local.iter().enumerate() {
        if let Some(existing) = bound.get(index).copied().flatten() {
            // Its transform is written by `write_transforms` from the first tick on.
            commands.entity(existing).insert(SkeletonJoint { index });
            joints.push(existing);
            continue;
        }
        let parent = skeleton.parent(index).map_or(root, |p| joints[p]);
        let joint = commands
            .spawn((
                Name::new(skeleton.name(index).to_owned()),
                joint_transform(t),
                SkeletonJoint { index },
                ChildOf(parent),
            ))
            .id();
        joints.push(joint);
    }
    let character = character.with_body(backend::body_of(capsule_entity));
    let mut root = commands.entity(root);
    root.insert((
        PlantigradeCharacter {
            character,
            capsule_entity,
            collider_capsule: capsule,
            ticks: 0,
        },
        settings,
        CharacterIntent::default(),
        LookTarget::default(),
        toggles,
        CharacterJoints(joints),
    ));
    if let Some(rebase) = rebase {
        root.insert(rebase);
    }
}

fn root_transform(character: &Character) -> Transform {
    Transform::from_translation(character.feet_world()).with_rotation(character.facing_world())
}

/// The capsule's centre relative to the feet.
fn capsule_transform(capsule: Capsule) -> Transform {
    Transform::from_translation(capsule.center_from_feet(Vec3::ZERO))
}

fn capsule_collider(capsule: Capsule) -> Collider {
    Collider::capsule_y(capsule.half_height_m, capsule.radius_m)
}

fn joint_transform(t: &plantigrade::skeleton::Transform) -> Transform {
    Transform {
        translation: t.translation,
        rotation: t.rotation,
        scale: t.scale,
    }
}

/// The physics world the characters live in, as plantigrade's [`CharacterPhysics`] (the
/// default rapier context), for a game's own probes with the characters' filters (e.g. an
/// AI's ground check, or a look target picked by a ray).
#[derive(SystemParam)]
pub struct PlantigradeWorld<'w, 's> {
    rapier: ReadRapierContext<'w, 's>,
    config: Res<'w, PlantigradeConfig>,
}

impl PlantigradeWorld<'_, '_> {
    /// Runs `f` on the world; `None` when there is not exactly one rapier context.
    pub fn with_physics<T>(&self, f: impl FnOnce(&dyn CharacterPhysics) -> T) -> Option<T> {
        let context = self.rapier.single().ok()?;
        let world = RapierBackend {
            context,
            controller: self.config.controller(),
        };
        Some(f(&world))
    }
}

/// The tick's movement stage: intent → collide-and-slide in the rapier world.
#[allow(clippy::type_complexity)]
fn move_characters(
    time: Res<Time>,
    rapier: ReadRapierContext,
    config: Res<PlantigradeConfig>,
    mut characters: Query<(
        Entity,
        &mut PlantigradeCharacter,
        &mut CharacterIntent,
        &LookTarget,
        &CharacterToggles,
        &Transform,
    )>,
) {
    let Ok(context) = rapier.single() else {
        return;
    };
    let world = RapierBackend {
        context,
        controller: config.controller(),
    };
    let dt_s = time.delta_secs();
    for (entity, mut pc, mut intent, look, toggles, transform) in &mut characters {
        // Not in the physics world yet (spawned this frame): no tick, so no later stage.
        if !world.has_collider(pc.capsule_entity) {
            continue;
        }
        let c = &mut pc.character;
        teleport_if_moved_by_game(entity, c, transform);
        c.set_look_target(look.target_world);
        c.set_debug_draw(toggles.debug_draw);
        c.set_foot_ik_mode(toggles.foot_ik.into());
        if let Err(e) = c.tick_movement(dt_s, &intent.to_intent(), &world) {
            warn!("plantigrade: character {entity} movement failed: {e}");
        }
        intent.jump = false;
    }
}

/// The entity's Transform moved further than this (m) from the character's feet, or
/// turned further than [`TURNED_BY_GAME_RAD`] from its facing, is the game's doing: the
/// plugin writes it from the character every tick.
const MOVED_BY_GAME_M: f32 = 1e-3;
const TURNED_BY_GAME_RAD: f32 = 1e-3;

/// A game that set the character entity's Transform (a spawn point, a respawn) teleports
/// the character there ([`Character::teleport`]): it stands there at rest with nothing
/// carried from the old place, instead of being written back where it was.
fn teleport_if_moved_by_game(entity: Entity, c: &mut Character, transform: &Transform) {
    let placed = transform.translation;
    let yaw = assets::yaw_of(transform.rotation);
    let moved = placed.distance(c.feet_world()) > MOVED_BY_GAME_M;
    let turned = plantigrade::math::wrap_angle(yaw - c.facing_yaw_rad()).abs() > TURNED_BY_GAME_RAD;
    if moved || turned {
        if let Err(e) = c.teleport(placed, Some(yaw)) {
            warn!("plantigrade: character {entity} cannot be moved there: {e}");
        }
    }
}

/// The tick's animation stage: graph → pose. It reads no physics, so characters run in
/// parallel (with Bevy's `multi_threaded` feature, on by default in games).
fn animate_characters(mut characters: Query<(Entity, &mut PlantigradeCharacter)>) {
    characters.par_iter_mut().for_each(|(entity, mut pc)| {
        if pc.character.next_stage() != TickStage::Animation {
            return;
        }
        if let Err(e) = pc.character.tick_animation() {
            warn!("plantigrade: character {entity} animation failed: {e}");
        }
    });
}

/// The tick's procedural stage (tilt, landing impact, lean, foot IK, look-at), then the
/// tick's messages.
fn finish_characters(
    rapier: ReadRapierContext,
    config: Res<PlantigradeConfig>,
    mut characters: Query<(Entity, &mut PlantigradeCharacter)>,
    mut writers: Writers,
) {
    let Ok(context) = rapier.single() else {
        return;
    };
    let world = RapierBackend {
        context,
        controller: config.controller(),
    };
    for (entity, mut pc) in &mut characters {
        if pc.character.next_stage() != TickStage::Procedural {
            continue;
        }
        if let Err(e) = pc.character.tick_procedural(&world) {
            warn!("plantigrade: character {entity} procedural pass failed: {e}");
        }
        pc.ticks += 1;
        writers.send(entity, &pc.character);
    }
}

/// The plugin's message writers.
#[derive(SystemParam)]
struct Writers<'w> {
    footsteps: MessageWriter<'w, Footstep>,
    landings: MessageWriter<'w, Landed>,
    jumps: MessageWriter<'w, Jumped>,
    states: MessageWriter<'w, StateEntered>,
}

impl Writers<'_> {
    /// The messages of `c`'s last tick.
    fn send(&mut self, entity: Entity, c: &Character) {
        let Writers {
            footsteps,
            landings,
            jumps,
            states,
        } = self;
        let output = c.output();
        if let Some(landing) = output.landing {
            landings.write(Landed {
                character: entity,
                grade: landing.grade,
                impact_speed_m_s: landing.impact_speed_m_s,
            });
        }
        if output.jumped {
            jumps.write(Jumped { character: entity });
        }
        let asset = c.graph().asset();
        for event in c.events() {
            match *event {
                GraphEvent::Clip { name, .. } => {
                    let foot = match asset.event_name(name) {
                        "Footstep_L" => FootSide::Left,
                        "Footstep_R" => FootSide::Right,
                        _ => continue,
                    };
                    let leg = foot as usize;
                    let foot_world = c.foot_ik().map_or(c.feet_world(), |ik| {
                        let joint = ik.rig().legs[leg].chain.foot;
                        c.model_to_world(c.model_pose().position_model(joint))
                    });
                    footsteps.write(Footstep {
                        character: entity,
                        foot,
                        foot_world,
                    });
                }
                GraphEvent::StateEntered { machine, state } => {
                    states.write(StateEntered {
                        character: entity,
                        machine: asset.machine_name(machine).to_owned(),
                        state: asset.state_name(machine, state).to_owned(),
                    });
                }
                _ => {}
            }
        }
    }
}

#[allow(clippy::type_complexity)]
fn write_transforms(
    mut characters: Query<(
        &mut PlantigradeCharacter,
        &CharacterJoints,
        &mut Transform,
        Option<&assets::JointRebase>,
    )>,
    mut joints: Query<&mut Transform, (With<SkeletonJoint>, Without<PlantigradeCharacter>)>,
    mut capsules: Query<
        (&mut Transform, &mut Collider),
        (
            With<CharacterCapsule>,
            Without<PlantigradeCharacter>,
            Without<SkeletonJoint>,
        ),
    >,
) {
    for (mut pc, joint_entities, mut root, rebase) in &mut characters {
        *root = root_transform(&pc.character);
        let capsule = pc.character.capsule();
        if capsule != pc.collider_capsule {
            if let Ok((mut t, mut collider)) = capsules.get_mut(pc.capsule_entity) {
                *t = capsule_transform(capsule);
                *collider = capsule_collider(capsule);
            }
            pc.collider_capsule = capsule;
        }
        let model = pc.character.model_pose().joints_model();
        for (index, (t, &joint)) in pc
            .character
            .pose()
            .local()
            .iter()
            .zip(&joint_entities.0)
            .enumerate()
        {
            if let Ok(mut transform) = joints.get_mut(joint) {
                // A joint bound into a game's scene whose parent there is not its
                // skeleton parent is written relative to its actual parent.
                *transform = match rebase.and_then(|r| r.local(index, model)) {
                    Some(local) => local,
                    None => joint_transform(t),
                };
            }
        }
    }
}
