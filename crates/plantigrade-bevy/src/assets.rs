//! Characters from files, through Bevy's `AssetServer` (SPEC ENG-2: glTF characters).
//!
//! Three asset types, each with its loader (registered by [`PlantigradeAssetPlugin`], which
//! [`PlantigradePlugin`](crate::PlantigradePlugin) adds when `AssetPlugin` is already there):
//!
//! - [`RigAsset`]: the skeleton and every clip of a `.glb` / `.gltf`, read by
//!   `plantigrade-gltf` (not Bevy's glTF loader: the core needs its own clip format). Its
//!   loader claims **no file extension**, so it never takes a `.glb` from `bevy_gltf`: it is
//!   chosen only by asset type, `asset_server.load::<RigAsset>("hero.glb")`, and a game can
//!   load the same file as a `Gltf`/scene too (Bevy keys handles by path *and* type).
//!   A `.gltf` must hold its buffers (GLB chunk or `data:` URIs): external buffer files are
//!   refused with a typed error, since the loader sees bytes, not a folder.
//! - [`GraphSource`]: a RON graph definition (`GraphDef`, the format of
//!   `default_als.ron`), syntax-checked on load; it is compiled against a rig's clips when a
//!   character is built, once per (rig, graph) pair, and shared by every character using it
//!   (recompiled for characters built after either file changes; built ones keep theirs).
//!   Extension `graph.ron`; any other name loads with `load::<GraphSource>(path)`. A
//!   clip-role map (`ClipRoles`, extension `roles.ron`: which clip is the idle, the walk
//!   forward, …) is a graph source too: the graph is generated from it on the rig's clips.
//!   A user's glTF character and a roles file are enough for foot IK. A character with no
//!   clips at all takes `graphs.add(GraphSource::generated_clips())`: the built-in clip set
//!   authored on its rig, under the default graph.
//! - [`BoneMapAsset`]: a RON `BoneNames` (explicit bone map). Extension `bones.ron`.
//!
//! An entity with a [`CharacterSource`] (and a `Transform`: the spawn point and facing)
//! becomes a character once its files are loaded: `build_characters` makes the core
//! `Character` (graph, bone map, settings) and attaches the body, capsule and joints as
//! [`spawn_character`](crate::spawn_character) does. Its [`CharacterSourceStatus`] says
//! where it is; a file that fails to load, a graph that does not compile or a bad bone map
//! sets `Failed` (and logs one error): the entity stays as it is, no panic.
//!
//! Joints by name: when the entity already has descendants with `Name`s (e.g. a scene from
//! `bevy_gltf`'s `SceneRoot`), skeleton joints are bound to the descendants of the same
//! name, so the game's skinned mesh follows the pose. A joint with no namesake gets an
//! entity of its own (with a warning naming them), so the pose stays whole. Nodes above the
//! skeleton root in the file (an armature with a rotation or scale) are baked into the root
//! joint by `plantigrade-gltf`; a bound joint whose entity parent is not its skeleton
//! parent's entity is written relative to that actual parent ([`JointRebase`]), so such a
//! node is not applied twice.

use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{
    Asset, AssetApp, AssetEvent, AssetId, AssetLoader, AssetServer, Assets, Handle, LoadContext,
    LoadState,
};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use glam::Affine3A;
use plantigrade::bone_map::BoneMapError;
use plantigrade::bone_map::BoneNames;
use plantigrade::character::Character;
use plantigrade::graph::roles::{generate_graph_at, ClipRoles, GaitSpeeds, RolesLoadError};
use plantigrade::graph::{GraphAsset, GraphDef, GraphLoadError, GraphProblem, SourcePos};
use plantigrade::prelude::CharacterSettings;
use plantigrade::rig_clips::{clips_for_character, RigClipsError};
use plantigrade::{Clip, HumanoidMap, Skeleton};
use plantigrade_gltf::{error_chain, GltfError, ImportOptions, SkinVertices};

use crate::{attach_character, PlantigradeCharacter};

/// Registers the three asset types and loaders and the system that builds characters from
/// [`CharacterSource`]s. Needs `AssetPlugin` (added before it). Adding it twice is harmless.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlantigradeAssetPlugin;

/// Marks the asset plugin as built (it is not unique, so a second add is a no-op).
#[derive(Resource)]
struct AssetPluginBuilt;

impl Plugin for PlantigradeAssetPlugin {
    fn build(&self, app: &mut App) {
        if app.world().contains_resource::<AssetPluginBuilt>() {
            return;
        }
        app.insert_resource(AssetPluginBuilt)
            .init_asset::<RigAsset>()
            .init_asset::<GraphSource>()
            .init_asset::<BoneMapAsset>()
            .register_asset_loader(RigLoader)
            .register_asset_loader(GraphLoader)
            .register_asset_loader(BoneMapLoader)
            .init_resource::<CompiledGraphs>()
            .add_systems(Update, (forget_stale_graphs, build_characters).chain());
    }

    fn is_unique(&self) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------------------
// Assets and loaders

/// A rig read from a glTF file: its skeleton and every animation as a clip.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct RigAsset {
    skeleton: Skeleton,
    clips: Vec<Clip>,
    skipped_channels: usize,
    skipped_clips: Vec<(String, String)>,
    /// The skinned meshes' rest vertices: the feet's sockets on a rig without toe joints.
    skin_vertices: SkinVertices,
}

impl RigAsset {
    /// The skeleton (joints of every skin, armature transforms baked into the roots).
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// One clip per glTF animation, named as in the file, as the file has it: the foot
    /// contacts a clip lacks are derived when a character is built, on its bone map
    /// ([`Self::clips_for`]).
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// The bone map a character of this rig is built on, as the lab's `--character` builds
    /// it: `names` (a bone-map file or `CharacterSettings::bone_map`) or detected, with the
    /// sockets of a foot without a toe joint taken from the vertices weighted to it
    /// ([`HumanoidMap::sockets_from_skin`]) instead of leg proportions.
    pub fn bone_map(&self, names: Option<&BoneNames>) -> Result<HumanoidMap, BoneMapError> {
        let mut map = match names {
            Some(names) => HumanoidMap::from_names(&self.skeleton, names)?,
            None => HumanoidMap::detect(&self.skeleton),
        };
        self.skin_vertices
            .feet_sockets_into(&self.skeleton, &mut map);
        Ok(map)
    }

    /// The clips ready for a character on `map` ([`clips_for_character`]): contacts derived
    /// where a clip has none, travel out of the pelvis of a rig that starts there.
    pub fn clips_for(&self, map: &HumanoidMap) -> Result<Vec<Clip>, RigClipsError> {
        Ok(clips_for_character(&self.skeleton, map, self.clips.clone())?.0)
    }

    /// How many animation channels were left out (morph weights, non-joint nodes …).
    pub fn skipped_channels(&self) -> usize {
        self.skipped_channels
    }

    /// The animations that could not be made into clips, as `(name, reason)`; the others
    /// loaded.
    pub fn skipped_clips(&self) -> &[(String, String)] {
        &self.skipped_clips
    }
}

/// Why a rig file did not load. The message carries the whole reason (Bevy logs a loader
/// error's message only), so the wrapped error is not also a `source()`.
#[derive(Debug, thiserror::Error)]
pub enum RigLoadError {
    #[error("cannot read '{path}': {}", error_chain(error))]
    Io { path: String, error: std::io::Error },
    #[error("'{path}': {}", error_chain(error))]
    Gltf { path: String, error: GltfError },
}

/// Loads a [`RigAsset`] from `.glb` / `.gltf` bytes with `plantigrade-gltf`. It claims no
/// extension (see the module docs): load with `asset_server.load::<RigAsset>(path)`.
#[derive(Debug, Clone, Copy, Default, TypePath)]
pub struct RigLoader;

impl AssetLoader for RigLoader {
    type Asset = RigAsset;
    type Settings = ();
    type Error = RigLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<RigAsset, RigLoadError> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        if let Err(error) = reader.read_to_end(&mut bytes).await {
            return Err(RigLoadError::Io { path, error });
        }
        // No base folder: the bytes may not come from the file system. The skin's vertices
        // give sockets to feet without toe joints; contacts are derived at build time, on
        // the bone map the character uses.
        let options = ImportOptions::default()
            .with_skin_vertices(true)
            .with_foot_contacts(false);
        let imported =
            plantigrade_gltf::load_slice_with(&bytes, None, options).map_err(|error| {
                RigLoadError::Gltf {
                    path: path.clone(),
                    error,
                }
            })?;
        // A bad clip does not block the others: it is left out, said once here, and listed.
        let skipped_clips: Vec<(String, String)> = imported
            .skipped_clips
            .iter()
            .map(|s| (s.name.clone(), error_chain(s.error.as_ref())))
            .collect();
        for (name, reason) in &skipped_clips {
            warn!("plantigrade: '{path}': clip '{name}' left out: {reason}");
        }
        Ok(RigAsset {
            skeleton: imported.skeleton,
            clips: imported.clips,
            skipped_channels: imported.skipped_channels.len(),
            skipped_clips,
            skin_vertices: imported.skin_vertices,
        })
    }

    fn extensions(&self) -> &[&str] {
        // Deliberately none: `.glb`/`.gltf` belong to bevy_gltf's loader when a game has it.
        &[]
    }
}

/// A RON animation graph definition (`*.graph.ron`), or a clip-role map (`*.roles.ron`:
/// which of the rig's clips is the idle, the walk forward, …) to generate one from, checked
/// for syntax; compiled against a rig's clips when a character is built. Or, made in code
/// with [`GraphSource::generated_clips`], the built-in clip set authored on the rig and the
/// default graph over it, for a rig with no clips of its own.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct GraphSource {
    source: String,
    /// The role map, when the file is one.
    roles: Option<ClipRoles>,
    /// The clips are authored on the rig ([`GraphSource::generated_clips`]).
    generated_clips: bool,
}

impl GraphSource {
    /// The built-in clip set (idle, 8-way walks and runs, sprint, crouch, jumps, landings,
    /// push, aim, turns) authored on the character's rig with
    /// [`plantigrade::mannequin::generate_clips`], proportioned to it, under the default
    /// graph: a rigged character with no clips (or none that fit) walks. The rig's own
    /// clips are not used. Add it with `graphs.add(GraphSource::generated_clips())`.
    pub fn generated_clips() -> Self {
        Self {
            source: String::new(),
            roles: None,
            generated_clips: true,
        }
    }

    /// True for [`GraphSource::generated_clips`].
    pub fn is_generated_clips(&self) -> bool {
        self.generated_clips
    }

    /// The RON text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The clip-role map the graph is generated from, when the file is one.
    pub fn roles(&self) -> Option<&ClipRoles> {
        self.roles.as_ref()
    }

    /// The graph compiled against `rig`'s skeleton and clips; from a role map, generated
    /// on them first (bones detected, each gait placed no slower than `gait_speeds`, the
    /// character's, and played at the rate that matches: see [`GaitSpeeds`]); from
    /// [`GraphSource::generated_clips`], the default graph over the clip set authored on
    /// the rig (bones detected).
    pub fn compile(
        &self,
        rig: &RigAsset,
        gait_speeds: GaitSpeeds,
    ) -> Result<GraphAsset, GraphLoadError> {
        self.compile_with_bones(rig, gait_speeds, None)
    }

    /// [`Self::compile`] on the character's own bone map (a bone-map file or
    /// `CharacterSettings::bone_map`) instead of detected bones, so a rig whose joints are
    /// not found by name gets its role-map graph (or its generated clips) from the map it
    /// is given.
    pub fn compile_with_bones(
        &self,
        rig: &RigAsset,
        gait_speeds: GaitSpeeds,
        bone_names: Option<&BoneNames>,
    ) -> Result<GraphAsset, GraphLoadError> {
        let bones = rig.bone_map(bone_names).map_err(|e| GraphLoadError {
            pos: None,
            problem: GraphProblem::Roles(format!(
                "the character's bone map does not fit the rig: {e}"
            )),
        })?;
        let rig_clips = || {
            rig.clips_for(&bones).map_err(|e| GraphLoadError {
                pos: None,
                problem: GraphProblem::Roles(e.to_string()),
            })
        };
        if self.roles.is_none() && !self.generated_clips {
            let graph = GraphAsset::from_ron(&self.source, &rig.skeleton, rig_clips()?)?;
            // A graph written for another size of character (its walk placed at the
            // mannequin's 1.75 m/s over a small rig walking at 0.8) plays half Idle.
            if let Ok(def) = ron::from_str::<GraphDef>(&self.source) {
                for misfit in def.speed_misfits(gait_speeds.walk_m_s) {
                    warn!("plantigrade: graph: {misfit}");
                }
            }
            return Ok(graph);
        }
        let Some(roles) = &self.roles else {
            let generated =
                plantigrade::mannequin::generate_clips(&rig.skeleton, &bones).map_err(|e| {
                    GraphLoadError {
                        pos: None,
                        problem: GraphProblem::Generated(e.to_string()),
                    }
                })?;
            return generated.default_graph(&rig.skeleton);
        };
        let clips = rig_clips()?;
        let generated = generate_graph_at(roles, &rig.skeleton, &bones, &clips, Some(gait_speeds))
            .map_err(|e| GraphLoadError {
                pos: None,
                problem: GraphProblem::Roles(e.to_string()),
            })?;
        let clips = generated.clips_with_measured_speeds(clips);
        GraphAsset::from_def(&generated.def, &rig.skeleton, clips)
    }
}

/// Why a RON file (graph or bone map) did not load (the whole reason in the message).
#[derive(Debug, thiserror::Error)]
pub enum RonLoadError {
    #[error("cannot read '{path}': {}", error_chain(error))]
    Io { path: String, error: std::io::Error },
    #[error("'{path}' is not UTF-8")]
    NotUtf8 { path: String },
    /// Syntax or a field that does not fit the format, with its line and column.
    #[error("'{path}': {}", error_chain(error))]
    Syntax { path: String, error: GraphLoadError },
    /// A clip-role map that does not parse or names no idle or no forward gait.
    #[error("'{path}': {}", error_chain(error))]
    Roles { path: String, error: RolesLoadError },
}

async fn read_text(
    reader: &mut dyn Reader,
    load_context: &LoadContext<'_>,
) -> Result<String, RonLoadError> {
    let path = load_context.path().to_string();
    let mut bytes = Vec::new();
    if let Err(error) = reader.read_to_end(&mut bytes).await {
        return Err(RonLoadError::Io { path, error });
    }
    String::from_utf8(bytes).map_err(|_| RonLoadError::NotUtf8 { path })
}

/// `text` parsed as `T`, or a syntax error with its position.
fn parse_ron<T: serde::de::DeserializeOwned>(text: &str, path: String) -> Result<T, RonLoadError> {
    ron::from_str(text).map_err(|e| RonLoadError::Syntax {
        path,
        error: GraphLoadError {
            pos: Some(SourcePos::of_ron_error(&e)),
            problem: GraphProblem::Syntax(e.code.to_string()),
        },
    })
}

/// Loads a [`GraphSource`] (`*.graph.ron`, or any path with `load::<GraphSource>`).
#[derive(Debug, Clone, Copy, Default, TypePath)]
pub struct GraphLoader;

impl AssetLoader for GraphLoader {
    type Asset = GraphSource;
    type Settings = ();
    type Error = RonLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<GraphSource, RonLoadError> {
        let source = read_text(reader, load_context).await?;
        let path = load_context.path().to_string();
        // Syntax now (a load error, logged by Bevy); clips and bones when compiled.
        if path.ends_with(".roles.ron") {
            let roles = ClipRoles::from_ron(&source)
                .map_err(|error| RonLoadError::Roles { path, error })?;
            return Ok(GraphSource {
                source,
                roles: Some(roles),
                generated_clips: false,
            });
        }
        parse_ron::<GraphDef>(&source, path)?;
        Ok(GraphSource {
            source,
            roles: None,
            generated_clips: false,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["graph.ron", "roles.ron"]
    }
}

/// An explicit bone map (`BoneNames`), e.g. for a rig whose names no preset knows.
#[derive(Asset, TypePath, Debug, Clone, Default, PartialEq)]
pub struct BoneMapAsset(pub BoneNames);

/// Loads a [`BoneMapAsset`] (`*.bones.ron`, or any path with `load::<BoneMapAsset>`).
#[derive(Debug, Clone, Copy, Default, TypePath)]
pub struct BoneMapLoader;

impl AssetLoader for BoneMapLoader {
    type Asset = BoneMapAsset;
    type Settings = ();
    type Error = RonLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<BoneMapAsset, RonLoadError> {
        let text = read_text(reader, load_context).await?;
        parse_ron(&text, load_context.path().to_string()).map(BoneMapAsset)
    }

    fn extensions(&self) -> &[&str] {
        &["bones.ron"]
    }
}

// ---------------------------------------------------------------------------------------
// Characters from assets

/// A character to build from files: put it on an entity with a `Transform` (where it
/// stands, and its facing yaw). See the module docs.
#[derive(Component, Debug, Clone)]
#[require(Transform, CharacterSourceStatus)]
pub struct CharacterSource {
    pub rig: Handle<RigAsset>,
    pub graph: Handle<GraphSource>,
    /// Bones by name; `None` detects them (presets and heuristics). Wins over
    /// `settings.bone_map`.
    pub bone_map: Option<Handle<BoneMapAsset>>,
    pub settings: CharacterSettings,
    /// `settings` are for the mannequin's size and are scaled to the rig's leg length when
    /// the character is built ([`CharacterSettings::scaled_to_rig`]: capsule, probe reach,
    /// lock and placement distances, gait speeds …), as the lab's `--character` does. True
    /// from [`Self::new`] and [`Self::with_mannequin_sized_settings`]; false from
    /// [`Self::with_settings`], whose settings are taken as given.
    pub scale_settings_to_rig: bool,
    pub joints: JointBinding,
}

impl CharacterSource {
    /// A character of `rig` driven by `graph`, with default settings scaled to the rig's
    /// size, bones detected, [`JointBinding::Auto`].
    pub fn new(rig: Handle<RigAsset>, graph: Handle<GraphSource>) -> Self {
        Self {
            rig,
            graph,
            bone_map: None,
            settings: CharacterSettings::default(),
            scale_settings_to_rig: true,
            joints: JointBinding::Auto,
        }
    }

    pub fn with_bone_map(mut self, bone_map: Handle<BoneMapAsset>) -> Self {
        self.bone_map = Some(bone_map);
        self
    }

    /// Settings taken as given, for this rig's size (not scaled).
    pub fn with_settings(mut self, settings: CharacterSettings) -> Self {
        self.settings = settings;
        self.scale_settings_to_rig = false;
        self
    }

    /// Settings tuned at the mannequin's size (e.g. the defaults with a field changed),
    /// scaled to the rig when the character is built.
    pub fn with_mannequin_sized_settings(mut self, settings: CharacterSettings) -> Self {
        self.settings = settings;
        self.scale_settings_to_rig = true;
        self
    }

    pub fn with_joints(mut self, joints: JointBinding) -> Self {
        self.joints = joints;
        self
    }
}

/// Where a [`CharacterSource`]'s joint entities come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Reflect)]
pub enum JointBinding {
    /// Bind to named descendants when any descendant is named like a skeleton joint;
    /// otherwise spawn joint entities.
    #[default]
    Auto,
    /// Wait until a descendant is named like a skeleton joint, then bind. Use this with a
    /// scene that spawns later (a `SceneRoot` whose scene is still loading), which `Auto`
    /// would not wait for.
    ByName,
    /// Always spawn joint entities (as [`spawn_character`](crate::spawn_character)).
    Spawn,
}

/// Where a [`CharacterSource`] stands.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub enum CharacterSourceStatus {
    /// Its files are loading.
    #[default]
    Loading,
    /// Its files are loaded; waiting for named joint entities ([`JointBinding::ByName`]).
    WaitingForJoints,
    /// The character is built: the entity has [`PlantigradeCharacter`].
    Built {
        /// Joints bound to existing entities (the rest got entities of their own).
        bound_joints: usize,
    },
    /// It will not be built; the entity is left as it is.
    Failed(CharacterSourceError),
}

/// Why a [`CharacterSource`] could not become a character.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CharacterSourceError {
    /// A file did not load (missing, unreadable, malformed); the reason is the loader's.
    #[error("{what} '{path}' did not load: {reason}")]
    Load {
        what: &'static str,
        path: String,
        reason: String,
    },
    /// The graph does not compile against the rig (unknown clip, bone, parameter …).
    #[error("graph '{path}' against rig '{rig}': {error}")]
    Graph {
        path: String,
        rig: String,
        error: Box<GraphLoadError>,
    },
    /// The core refused the character (bad settings, a bone map naming absent joints …).
    /// Neither this nor `Graph` gives its wrapped error as `source()`: the message already
    /// says it, and a report printing the chain would say it twice.
    #[error("character: {0}")]
    Character(Box<plantigrade::character::CharacterError>),
}

/// Compiled graphs by (rig, graph source, gait speeds), shared by every character of the
/// three.
#[derive(Resource, Default)]
struct CompiledGraphs(HashMap<CompiledKey, Arc<GraphAsset>>);

/// A graph compiled for a rig, for the gait speeds (as bits) a role map placed its gaits
/// at, and for the bone map it was generated on (its RON text; `None`: detected).
type CompiledKey = (
    AssetId<RigAsset>,
    AssetId<GraphSource>,
    [u32; 4],
    Option<String>,
);

/// Drops compiled graphs whose rig or graph file changed (hot reload) or is no longer
/// used, so characters built later compile the new one. Characters already built keep
/// theirs.
fn forget_stale_graphs(
    mut compiled: ResMut<CompiledGraphs>,
    mut rig_events: MessageReader<AssetEvent<RigAsset>>,
    mut graph_events: MessageReader<AssetEvent<GraphSource>>,
) {
    for event in rig_events.read() {
        if let AssetEvent::Modified { id }
        | AssetEvent::Removed { id }
        | AssetEvent::Unused { id } = *event
        {
            compiled.0.retain(|(rig, ..), _| *rig != id);
        }
    }
    for event in graph_events.read() {
        if let AssetEvent::Modified { id }
        | AssetEvent::Removed { id }
        | AssetEvent::Unused { id } = *event
        {
            compiled.0.retain(|(_, graph, ..), _| *graph != id);
        }
    }
}

/// On a character whose joints were bound into an existing hierarchy: how to write the
/// joints whose entity parent is not their skeleton parent's entity.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct JointRebase {
    /// Per joint: `None` writes the pose's local transform as it is.
    joints: Vec<Option<Rebased>>,
}

/// A joint entity under `offset` (the fixed transforms of non-joint nodes) below `anchor`
/// (a joint, or the character's model space when `None`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rebased {
    anchor: Option<usize>,
    offset: Affine3A,
}

impl JointRebase {
    /// How many joints are written relative to a parent other than their skeleton parent.
    pub fn rebased_joints(&self) -> usize {
        self.joints.iter().flatten().count()
    }

    /// The local transform to write for `joint`, given the model-space pose, or `None` to
    /// write the pose's own local transform.
    pub(crate) fn local(&self, joint: usize, model: &[Affine3A]) -> Option<Transform> {
        let r = self.joints.get(joint).copied().flatten()?;
        let anchor = r.anchor.map_or(Affine3A::IDENTITY, |a| model[a]);
        let parent = anchor * r.offset;
        let local = parent.inverse() * model[joint];
        Some(Transform::from_matrix(local.into()))
    }
}

/// The facing yaw (0 faces +Z, positive toward +X) of a rotation.
pub(crate) fn yaw_of(rotation: Quat) -> f32 {
    let forward = rotation * Vec3::Z;
    if forward.x.abs() + forward.z.abs() < 1e-6 {
        0.0
    } else {
        forward.x.atan2(forward.z)
    }
}

#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn build_characters(
    mut commands: Commands,
    server: Res<AssetServer>,
    rigs: Res<Assets<RigAsset>>,
    graphs: Res<Assets<GraphSource>>,
    bone_maps: Res<Assets<BoneMapAsset>>,
    mut compiled: ResMut<CompiledGraphs>,
    mut sources: Query<
        (
            Entity,
            &CharacterSource,
            &mut CharacterSourceStatus,
            &Transform,
        ),
        Without<PlantigradeCharacter>,
    >,
    hierarchy: Hierarchy,
) {
    for (entity, source, mut status, transform) in &mut sources {
        if !matches!(
            *status,
            CharacterSourceStatus::Loading | CharacterSourceStatus::WaitingForJoints
        ) {
            continue;
        }
        let built = try_build(
            &mut commands,
            &server,
            (&rigs, &graphs, &bone_maps),
            &mut compiled,
            entity,
            source,
            transform,
            &hierarchy,
        );
        let new_status = match built {
            Ok(Some(s)) => s,
            Ok(None) => continue, // still loading
            Err(e) => {
                error!("plantigrade: character source {entity} failed: {e}");
                CharacterSourceStatus::Failed(e)
            }
        };
        if *status != new_status {
            *status = new_status;
        }
    }
}

/// Read access to the entity hierarchy for binding joints by name.
#[derive(bevy::ecs::system::SystemParam)]
struct Hierarchy<'w, 's> {
    children: Query<'w, 's, &'static Children>,
    names: Query<'w, 's, &'static Name>,
    parents: Query<'w, 's, &'static ChildOf>,
    transforms: Query<'w, 's, &'static Transform>,
}

/// `Ok(None)`: not loaded yet; `Ok(Some(status))`: the new status.
#[allow(clippy::too_many_arguments)]
fn try_build(
    commands: &mut Commands,
    server: &AssetServer,
    (rigs, graphs, bone_maps): (
        &Assets<RigAsset>,
        &Assets<GraphSource>,
        &Assets<BoneMapAsset>,
    ),
    compiled: &mut CompiledGraphs,
    entity: Entity,
    source: &CharacterSource,
    transform: &Transform,
    hierarchy: &Hierarchy,
) -> Result<Option<CharacterSourceStatus>, CharacterSourceError> {
    let rig = loaded(server, rigs, &source.rig, "rig");
    let graph = loaded(server, graphs, &source.graph, "graph");
    let bone_map = source
        .bone_map
        .as_ref()
        .map(|h| loaded(server, bone_maps, h, "bone map"));
    // Every `?` first: a failure is reported even while another file is still loading.
    let (rig, graph, bone_map) = (rig?, graph?, bone_map.transpose()?);
    let (Some(rig), Some(graph)) = (rig, graph) else {
        return Ok(None);
    };
    let bone_map = match bone_map {
        Some(None) => return Ok(None), // asked for, still loading
        bone_map => bone_map.flatten(),
    };

    let bound = match source.joints {
        JointBinding::Spawn => None,
        JointBinding::Auto | JointBinding::ByName => {
            let found = hierarchy.find_joints(entity, rig.skeleton());
            if found.iter().any(Option::is_some) {
                Some(found)
            } else if source.joints == JointBinding::ByName {
                return Ok(Some(CharacterSourceStatus::WaitingForJoints));
            } else {
                None
            }
        }
    };

    // The bone map the character is built with (a bone-map file wins over the settings'),
    // sockets from the skin included: a role map's graph is generated on it too.
    let bone_names = bone_map.map(|m| &m.0).or(source.settings.bone_map.as_ref());
    let map = rig.bone_map(bone_names).map_err(|e| {
        CharacterSourceError::Character(Box::new(plantigrade::character::CharacterError::BoneMap(
            e,
        )))
    })?;
    let settings = settings_for_rig(entity, source, rig.skeleton(), &map);
    let gait_speeds = GaitSpeeds::of(&settings.motion);
    let key = (
        source.rig.id(),
        source.graph.id(),
        [
            gait_speeds.walk_m_s,
            gait_speeds.run_m_s,
            gait_speeds.sprint_m_s,
            gait_speeds.crouch_m_s,
        ]
        .map(f32::to_bits),
        bone_names.map(|names| format!("{names:?}")),
    );
    let asset = match compiled.0.get(&key) {
        Some(asset) => Arc::clone(asset),
        None => {
            let compiled_graph = graph.compile_with_bones(rig, gait_speeds, bone_names);
            let asset = Arc::new(compiled_graph.map_err(|e| CharacterSourceError::Graph {
                path: path_of(server, &source.graph),
                rig: path_of(server, &source.rig),
                error: Box::new(e),
            })?);
            compiled.0.insert(key, Arc::clone(&asset));
            asset
        }
    };
    let character = Character::builder(asset)
        .settings(settings)
        .spawn(transform.translation, yaw_of(transform.rotation))
        .map_err(|e| CharacterSourceError::Character(Box::new(e)))?;

    let skeleton = rig.skeleton();
    let (bound, rebase) = match bound {
        Some(bound) => {
            let missing: Vec<&str> = bound
                .iter()
                .enumerate()
                .filter(|(_, e)| e.is_none())
                .map(|(i, _)| skeleton.name(i))
                .collect();
            if !missing.is_empty() {
                warn!(
                    "plantigrade: character {entity}: {} of {} joints have no entity of the same name and get their own: {missing:?}",
                    missing.len(),
                    skeleton.num_joints()
                );
            }
            let rebase = hierarchy.rebase(entity, skeleton, &bound);
            (bound, rebase)
        }
        None => (vec![None; skeleton.num_joints()], None),
    };
    let bound_joints = bound.iter().flatten().count();
    attach_character(commands, entity, character, &bound, rebase);
    Ok(Some(CharacterSourceStatus::Built { bound_joints }))
}

/// The settings a character of `source` is built with: scaled to the rig's leg length
/// unless given for its size (a rig whose legs cannot be measured keeps them, with a
/// warning), with the bone map in use (`map`, skin sockets included) written in.
fn settings_for_rig(
    entity: Entity,
    source: &CharacterSource,
    skeleton: &Skeleton,
    map: &HumanoidMap,
) -> CharacterSettings {
    let settings = if source.scale_settings_to_rig {
        match source.settings.scaled_to_rig(skeleton, map) {
            Ok((scaled, _)) => scaled,
            Err(e) => {
                warn!(
                    "plantigrade: character {entity}: settings left at the mannequin's size: {e}"
                );
                source.settings.clone()
            }
        }
    } else {
        source.settings.clone()
    };
    CharacterSettings {
        bone_map: Some(map.to_names(skeleton)),
        ..settings
    }
}

/// The asset if loaded, `None` while loading, an error if its load failed.
fn loaded<'a, A: Asset>(
    server: &AssetServer,
    assets: &'a Assets<A>,
    handle: &Handle<A>,
    what: &'static str,
) -> Result<Option<&'a A>, CharacterSourceError> {
    if let Some(asset) = assets.get(handle) {
        return Ok(Some(asset));
    }
    match server.get_load_state(handle.id()) {
        Some(LoadState::Failed(e)) => Err(CharacterSourceError::Load {
            what,
            path: path_of(server, handle),
            // The first line: Bevy's error text goes on with a backtrace when
            // RUST_BACKTRACE is set.
            reason: e.to_string().lines().next().unwrap_or_default().to_owned(),
        }),
        _ => Ok(None),
    }
}

fn path_of<A: Asset>(server: &AssetServer, handle: &Handle<A>) -> String {
    server
        .get_path(handle.id())
        .map_or_else(|| format!("{:?}", handle.id()), |p| p.to_string())
}

impl Hierarchy<'_, '_> {
    /// Per skeleton joint, the first descendant of `root` (breadth first) with its name.
    fn find_joints(&self, root: Entity, skeleton: &Skeleton) -> Vec<Option<Entity>> {
        let mut by_name: HashMap<&str, Entity> = HashMap::default();
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(e) = queue.pop_front() {
            if let Ok(children) = self.children.get(e) {
                for &child in children {
                    if let Ok(name) = self.names.get(child) {
                        by_name.entry(name.as_str()).or_insert(child);
                    }
                    queue.push_back(child);
                }
            }
        }
        skeleton
            .names()
            .iter()
            .map(|n| by_name.get(n.as_str()).copied())
            .collect()
    }

    /// How to write each bound joint whose entity parent is not its skeleton parent's
    /// entity: the transforms of the nodes between it and the nearest joint (or the root)
    /// above it, taken as they are now (a glTF armature node does not move).
    fn rebase(
        &self,
        root: Entity,
        skeleton: &Skeleton,
        bound: &[Option<Entity>],
    ) -> Option<JointRebase> {
        let joint_of: HashMap<Entity, usize> = bound
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (e, i)))
            .collect();
        let mut joints = vec![None; bound.len()];
        for (index, entity) in bound.iter().enumerate() {
            let Some(entity) = *entity else { continue };
            let mut offset = Affine3A::IDENTITY;
            let mut above = self.parents.get(entity).ok().map(ChildOf::parent);
            let anchor = loop {
                match above {
                    Some(e) if e == root => break None,
                    Some(e) => {
                        if let Some(&joint) = joint_of.get(&e) {
                            break Some(joint);
                        }
                        let t = self.transforms.get(e).copied().unwrap_or_default();
                        offset = t.compute_affine() * offset;
                        above = self.parents.get(e).ok().map(ChildOf::parent);
                    }
                    // Not below the root: cannot happen for a descendant; write as is.
                    None => break skeleton.parent(index),
                }
            };
            let direct =
                anchor == skeleton.parent(index) && offset.abs_diff_eq(Affine3A::IDENTITY, 1e-6);
            if !direct {
                joints[index] = Some(Rebased { anchor, offset });
            }
        }
        if joints.iter().any(Option::is_some) {
            Some(JointRebase { joints })
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A role map's graph is generated on the bone map the character is given: on a rig
    /// whose joint names no preset knows and whose clips say no speed, only the given map
    /// finds the feet that measure how fast each gait travels.
    #[test]
    fn a_role_map_graph_is_generated_on_the_given_bone_map() {
        let mannequin = plantigrade::mannequin::Mannequin::new();
        let original = &mannequin.skeleton;
        let joints = (0..original.num_joints())
            .map(|j| plantigrade::skeleton::Joint {
                name: format!("bone{j:02}"),
                parent: original.parent(j),
                rest_local: original.rest_local()[j],
            })
            .collect();
        let skeleton = Skeleton::new(joints).unwrap();
        let names = mannequin.bones.to_names(&skeleton);
        assert!(HumanoidMap::detect(&skeleton)
            .leg(plantigrade::Side::Left)
            .is_err());
        let rig = RigAsset {
            skeleton,
            clips: mannequin
                .clips
                .iter()
                .map(|c| c.clone().without_authored_velocity())
                .collect(),
            skipped_channels: 0,
            skipped_clips: Vec::new(),
            skin_vertices: SkinVertices::default(),
        };
        let graph = GraphSource {
            source: String::new(),
            roles: Some(
                ClipRoles::from_ron(
                    r#"ClipRoles(idle: "Idle", walk_forward: "Walk_F", run_forward: "Run_F")"#,
                )
                .unwrap(),
            ),
            generated_clips: false,
        };
        let speeds = GaitSpeeds::of(&CharacterSettings::default().motion);
        let walk_speed = |asset: &GraphAsset| {
            let walk = asset.clips().iter().find(|c| c.name() == "Walk_F").unwrap();
            walk.authored_speed_m_s()
        };
        let detected = graph.compile(&rig, speeds).unwrap();
        assert_eq!(walk_speed(&detected), None, "no feet, nothing measured");
        let given = graph
            .compile_with_bones(&rig, speeds, Some(&names))
            .unwrap();
        let authored = mannequin
            .clip("Walk_F")
            .unwrap()
            .authored_speed_m_s()
            .unwrap();
        let measured = walk_speed(&given).expect("measured from the feet");
        assert!((measured - authored).abs() < 0.1, "{measured} {authored}");
        let mut wrong = names.clone();
        wrong.pelvis = Some("no_such_bone".into());
        let error = graph
            .compile_with_bones(&rig, speeds, Some(&wrong))
            .unwrap_err();
        assert!(error.to_string().contains("no_such_bone"), "{error}");
    }

    /// A rig error's message holds its whole reason once (what Bevy's log line shows) and
    /// has no `source()` that a chain printer would print again.
    #[test]
    fn load_errors_say_every_detail_once() {
        let error = RigLoadError::Gltf {
            path: "rigs/hero.glb".into(),
            error: GltfError::Io {
                path: "rigs/hero.bin".into(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            },
        };
        let text = error.to_string();
        assert_eq!(
            text,
            "'rigs/hero.glb': cannot access 'rigs/hero.bin': no such file"
        );
        assert!(std::error::Error::source(&error).is_none());
        let bad = plantigrade_gltf::load_slice(b"not a glTF file", None).unwrap_err();
        let error = RigLoadError::Gltf {
            path: "x.glb".into(),
            error: bad,
        };
        let text = error.to_string();
        assert!(text.starts_with("'x.glb': "), "{text}");
        assert!(
            text.len() > "'x.glb': ".len() + 10,
            "a reason follows: {text}"
        );
    }
}
