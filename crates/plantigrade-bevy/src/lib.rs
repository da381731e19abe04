//! plantigrade's character as a Bevy plugin over the game's own physics world, a
//! `bevy_rapier3d` or an `avian3d` one (SPEC ENG-2, ENG-3).
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
//!   with a kinematic body, its capsule as a child with a capsule collider (on the
//!   `CHARACTERS` layer), and one entity per joint as a `ChildOf` hierarchy under it.
//! - [`PlantigradeSettings`]: the character's whole setup (the core's `CharacterSettings`)
//!   as a reflected component an inspector can edit; an edit applies before the next
//!   movement stage, and one that cannot work is refused with a warning and set back.
//! - [`assets`]: characters from files through the `AssetServer` (a glTF rig with its clips,
//!   a RON graph, a RON bone map), bound by name to a scene's joints when there is one.
//! - `render` (cargo feature `render`): the built-in mannequin's skinned body, debug
//!   gizmos and transform interpolation between fixed ticks, for a game with a renderer.
//! - Physics: one backend per cargo feature, both allowed at once; the plugin's constructor
//!   picks one ([`PhysicsBackend`]). The character's own capsule is excluded from its
//!   queries; a character waits (does not tick) until the physics world has its capsule,
//!   so the level spawned with it is there on its first tick.
//!   - `rapier` (default; `PlantigradePlugin::rapier`, and [`PlantigradePlugin::default`]
//!     with this feature on): the default rapier context (the one marked
//!     `DefaultRapierContext`; without it no character ticks) through
//!     `plantigrade-rapier`'s functions (rapier's `KinematicCharacterController` moves the
//!     capsule). A collider without `CollisionGroups` is on every layer, so any level
//!     collider is ground.
//!   - `avian` (`PlantigradePlugin::avian`, and the default without `rapier`): avian3d's
//!     `SpatialQuery` (ray and shape casts), with the core's query-only `QueryMover` moving
//!     the capsule. Layers are avian `LayerMask` bits; a collider without `CollisionLayers`
//!     is on avian's first layer, plantigrade's `GROUND`, so any level collider is ground.
//!
//! Units: metres, seconds, radians; world space is Bevy's (Y up).

pub mod assets;
mod backend;
pub use backend::PhysicsBackend;
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
use plantigrade::character::{Character, TickStage};
use plantigrade::graph::GraphEvent;
use plantigrade::ik::FootIkMode;
use plantigrade::motion::{Intent, LandingGrade};
use plantigrade::world::{BodyId, Capsule, CharacterPhysics};

pub use settings::PlantigradeSettings;

/// The character plugin; see the crate docs. [`PlantigradePlugin::default`] runs in
/// `FixedUpdate` on the default [`PhysicsBackend`] (rapier when the `rapier` feature is on,
/// else avian).
#[derive(Debug, Clone)]
pub struct PlantigradePlugin {
    schedule: Interned<dyn ScheduleLabel>,
    backend: PhysicsBackend,
}

impl PlantigradePlugin {
    /// The plugin with its systems in `schedule` (e.g. `FixedUpdate`, or `Update` for a
    /// variable step; each run ticks every character by that schedule's `Time` delta), on
    /// the default backend.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            backend: PhysicsBackend::default(),
        }
    }

    /// The plugin in `FixedUpdate` over bevy_rapier3d (feature `rapier`).
    #[cfg(feature = "rapier")]
    pub fn rapier() -> Self {
        Self::default().with_backend(PhysicsBackend::Rapier)
    }

    /// The plugin in `FixedUpdate` over avian3d (feature `avian`).
    #[cfg(feature = "avian")]
    pub fn avian() -> Self {
        Self::default().with_backend(PhysicsBackend::Avian)
    }

    /// The same plugin on `backend`.
    pub fn with_backend(self, backend: PhysicsBackend) -> Self {
        Self { backend, ..self }
    }

    /// The backend the characters will live in.
    pub fn backend(&self) -> PhysicsBackend {
        self.backend
    }
}

impl Default for PlantigradePlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

/// The plugin's system sets, run in this order in the plugin's schedule, before the
/// physics step when it runs in the same schedule (rapier's `SyncBackend`, avian's
/// `PhysicsSystems::First`).
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
            .register_type::<PhysicsBackend>()
            .insert_resource(self.backend)
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
                    .chain(),
            )
            .add_systems(
                self.schedule,
                (
                    settings::apply_settings.in_set(PlantigradeSystems::Movement),
                    animate_characters.in_set(PlantigradeSystems::Animation),
                    write_transforms.in_set(PlantigradeSystems::WriteTransforms),
                ),
            );
        // The movement and procedural stages query the backend's world.
        match self.backend {
            #[cfg(feature = "rapier")]
            PhysicsBackend::Rapier => backend::rapier::add_systems(app, self.schedule),
            #[cfg(feature = "avian")]
            PhysicsBackend::Avian => backend::avian::add_systems(app, self.schedule),
        }
    }
}

/// Plugin-wide settings of the rapier backend's character controller (editable in an
/// inspector). The avian backend's mover (the core's `QueryMover`) has no such settings and
/// ignores these.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Resource, Default)]
pub struct PlantigradeConfig {
    /// Whether characters step up onto dynamic bodies. Default false.
    pub autostep_onto_dynamic_bodies: bool,
    /// A tiny push away from surfaces slid along (m); a bad value falls back to the
    /// default. Default 1e-4.
    pub normal_nudge_m: f32,
}

impl Default for PlantigradeConfig {
    /// `plantigrade_rapier::ControllerConfig`'s defaults (a test checks they agree).
    fn default() -> Self {
        Self {
            autostep_onto_dynamic_bodies: false,
            normal_nudge_m: 1.0e-4,
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
/// [`LookTarget`], [`CharacterToggles`] and [`CharacterJoints`]; a kinematic body of the
/// app's [`PhysicsBackend`] (the one its `PlantigradePlugin` was made with; the default
/// backend before the plugin is added); a child with its capsule collider (layer
/// `CHARACTERS`, seeing all layers) and
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
    commands.entity(root).insert(root_transform(&character));
    let capsule_entity = commands
        .spawn((
            Name::new("plantigrade capsule"),
            capsule_transform(capsule),
            CharacterCapsule { character: root },
            ChildOf(root),
        ))
        .id();
    // The body and collider are the backend's: inserted once the commands run, when the
    // app's backend choice (the plugin's resource) can be read.
    commands.queue(move |world: &mut World| {
        let backend = world
            .get_resource::<PhysicsBackend>()
            .copied()
            .unwrap_or_default();
        backend.insert_body(world, root, capsule_entity, capsule);
    });
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

fn joint_transform(t: &plantigrade::skeleton::Transform) -> Transform {
    Transform {
        translation: t.translation,
        rotation: t.rotation,
        scale: t.scale,
    }
}

/// The physics world the characters live in, as plantigrade's [`CharacterPhysics`] (the
/// app's [`PhysicsBackend`]: the default rapier context, or avian's spatial queries with
/// the core's `QueryMover`), for a game's own probes with the characters' filters (e.g. an
/// AI's ground check, or a look target picked by a ray).
#[derive(SystemParam)]
pub struct PlantigradeWorld<'w, 's> {
    backend: Option<Res<'w, PhysicsBackend>>,
    config: Res<'w, PlantigradeConfig>,
    rapier: backend::RapierWorldParam<'w, 's>,
    avian: backend::AvianWorldParam<'w, 's>,
}

impl PlantigradeWorld<'_, '_> {
    /// Runs `f` on the world; `None` when the plugin's backend has no world (rapier: not
    /// exactly one rapier context; avian: no avian physics plugins).
    pub fn with_physics<T>(&self, f: impl FnOnce(&dyn CharacterPhysics) -> T) -> Option<T> {
        let backend = self.backend.as_deref().copied().unwrap_or_default();
        // (A backend built without its feature has `()` here, read by neither arm.)
        let _ = (&self.config, &self.rapier, &self.avian);
        match backend {
            #[cfg(feature = "rapier")]
            PhysicsBackend::Rapier => {
                backend::rapier::with_physics(self.rapier.as_ref()?, &self.config, |w, _| f(w))
            }
            #[cfg(feature = "avian")]
            PhysicsBackend::Avian => Some(self.avian.as_ref()?.with_physics(|w, _| f(w))),
        }
    }
}

/// The movement stage's view of the characters.
#[allow(clippy::type_complexity)]
type MovingCharacters<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut PlantigradeCharacter,
        &'static mut CharacterIntent,
        &'static LookTarget,
        &'static CharacterToggles,
        &'static Transform,
    ),
>;

/// The tick's movement stage (intent → collide-and-slide) on `world`, for every character
/// whose capsule the physics world has (`ready`).
fn move_characters_on(
    world: &dyn CharacterPhysics,
    ready: &dyn Fn(Entity) -> bool,
    dt_s: f32,
    characters: &mut MovingCharacters,
) {
    for (entity, mut pc, mut intent, look, toggles, transform) in characters {
        // Not in the physics world yet (spawned this frame): no tick, so no later stage.
        if !ready(pc.capsule_entity) {
            continue;
        }
        let c = &mut pc.character;
        teleport_if_moved_by_game(entity, c, transform);
        c.set_look_target(look.target_world);
        c.set_debug_draw(toggles.debug_draw);
        c.set_foot_ik_mode(toggles.foot_ik.into());
        if let Err(e) = c.tick_movement(dt_s, &intent.to_intent(), world) {
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

/// The tick's procedural stage (tilt, landing impact, lean, foot IK, look-at) on `world`,
/// then the tick's messages.
fn finish_characters_on(
    world: &dyn CharacterPhysics,
    characters: &mut Query<(Entity, &mut PlantigradeCharacter)>,
    writers: &mut Writers,
) {
    for (entity, mut pc) in characters {
        if pc.character.next_stage() != TickStage::Procedural {
            continue;
        }
        if let Err(e) = pc.character.tick_procedural(world) {
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
    mut commands: Commands,
    backend: Res<PhysicsBackend>,
    mut characters: Query<(
        &mut PlantigradeCharacter,
        &CharacterJoints,
        &mut Transform,
        &mut GlobalTransform,
        Option<&ChildOf>,
        Option<&assets::JointRebase>,
    )>,
    mut joints: Query<&mut Transform, (With<SkeletonJoint>, Without<PlantigradeCharacter>)>,
    mut capsules: Query<
        (&mut Transform, &mut GlobalTransform),
        (
            With<CharacterCapsule>,
            Without<PlantigradeCharacter>,
            Without<SkeletonJoint>,
        ),
    >,
    parents: Query<&GlobalTransform, (Without<PlantigradeCharacter>, Without<CharacterCapsule>)>,
) {
    let backend = *backend;
    for (mut pc, joint_entities, mut root, mut root_global, child_of, rebase) in &mut characters {
        *root = root_transform(&pc.character);
        // The body's and the collider's GlobalTransform too, now: with two fixed ticks in
        // a frame, rapier reads them before Bevy propagates again (its own propagation in
        // the fixed schedule does not see this change), moved the body back where it was
        // and wrote that into the Transform, which read as the game teleporting the
        // character back: it walked 0.05 m in 2 s.
        let parent_global = child_of
            .and_then(|c| parents.get(c.parent()).ok())
            .copied()
            .unwrap_or_default();
        *root_global = parent_global.mul_transform(*root);
        let capsule = pc.character.capsule();
        if let Ok((mut t, mut global)) = capsules.get_mut(pc.capsule_entity) {
            if capsule != pc.collider_capsule {
                *t = capsule_transform(capsule);
                // The backend's collider, changed in place before the physics step.
                let capsule_entity = pc.capsule_entity;
                commands.queue(move |world: &mut World| {
                    backend.resize_collider(world, capsule_entity, capsule);
                });
            }
            *global = root_global.mul_transform(*t);
        }
        pc.collider_capsule = capsule;
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
