//! Import: a skeleton from the file's skins (or node hierarchy) and one clip per animation.

use std::path::Path;
use std::sync::Arc;

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use gltf::json;
use gltf::json::animation::{Interpolation as GltfInterpolation, Property};
use gltf::json::validation::Checked;
use plantigrade::foot_contacts::{add_derived_foot_contacts, ClipContacts, FootContactConfig};
use plantigrade::{
    Clip, ClipError, HumanoidMap, Interpolation, Joint, JointTracks, Skeleton, Track, Transform,
};

use crate::buffers::{read_floats, Buffers, Components};
use crate::compression::Compression;
use crate::container;
use crate::error::GltfError;
use crate::metadata;
use crate::skin::{self, SkinVertices};

/// Most `clips × joints` entries an import builds (each clip holds a track slot per joint):
/// 4 M, far above real assets, far below what would exhaust memory.
pub(crate) const MAX_CLIP_JOINT_SLOTS: usize = 1 << 22;

/// How [`load_path_with`] and [`load_slice_with`] treat what they cannot import.
/// `ImportOptions::default()` is what [`load_path`] and [`load_slice`] use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// `false` (the default): an animation that cannot be imported is left out and listed in
    /// [`ImportedAsset::skipped_clips`], and the other clips load. `true`: the first such
    /// animation refuses the whole file with its error.
    pub strict: bool,
    /// `false` (the default): meshes are not read. `true`: the vertices of uncompressed
    /// skinned meshes are read into [`ImportedAsset::skin_vertices`] (for foot sockets on
    /// rigs without toe joints, [`ImportedAsset::sockets_from_skin`]); a primitive that
    /// cannot be read is listed there and never fails the import.
    pub skin_vertices: bool,
    /// `true` (the default): each clip without a `FootContact_L`/`FootContact_R` curve gets
    /// one derived from its feet's height and ground speed
    /// ([`plantigrade::foot_contacts::add_derived_foot_contacts`], on the detected bone map
    /// with its default sockets, or the skin's with [`ImportOptions::skin_vertices`]);
    /// authored curves win. What was done per clip is in [`ImportedAsset::foot_contacts`].
    /// `false`: clips are imported as they are (derive later with your own bone map).
    pub foot_contacts: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            strict: false,
            skin_vertices: false,
            foot_contacts: true,
        }
    }
}

impl ImportOptions {
    /// These options with [`ImportOptions::strict`] set to `strict`.
    pub fn with_strict(self, strict: bool) -> Self {
        Self { strict, ..self }
    }

    /// These options with [`ImportOptions::skin_vertices`] set to `read`.
    pub fn with_skin_vertices(self, read: bool) -> Self {
        Self {
            skin_vertices: read,
            ..self
        }
    }

    /// These options with [`ImportOptions::foot_contacts`] set to `derive`.
    pub fn with_foot_contacts(self, derive: bool) -> Self {
        Self {
            foot_contacts: derive,
            ..self
        }
    }
}

/// Least weight (0..=1) for a vertex to count as part of a foot in
/// [`ImportedAsset::sockets_from_skin`].
pub const FOOT_VERTEX_MIN_WEIGHT: f32 = 0.5;

/// What [`load_path`] and [`load_slice`] return: the skeleton, every animation as a clip, and
/// what was left out.
#[derive(Clone, Debug)]
pub struct ImportedAsset {
    /// The joints of every skin (parents before children), with node transforms above the
    /// root joints baked into them; see the crate docs.
    pub skeleton: Skeleton,
    /// One clip per glTF animation that could be imported, in file order, named exactly as
    /// in the file.
    pub clips: Vec<Clip>,
    /// The glTF node index of each skeleton joint (`joint_nodes[joint] = node`), to match the
    /// skeleton to the file's skins and meshes.
    pub joint_nodes: Vec<usize>,
    /// Animation channels that were not imported, and why (channels of skipped clips are not
    /// listed here).
    pub skipped_channels: Vec<SkippedChannel>,
    /// Animations that could not be imported, in file order, each with its error (only when
    /// [`ImportOptions::strict`] is off; otherwise the first one refuses the file).
    pub skipped_clips: Vec<SkippedClip>,
    /// Meshes whose data exists only compressed with an extension this importer does not
    /// decode. Meshes are never imported (they are the renderer's business); this lists the
    /// ones whose data only a decoder for that extension can read.
    pub skipped_meshes: Vec<SkippedMesh>,
    /// The skinned meshes' vertices in the rest pose, with [`ImportOptions::skin_vertices`];
    /// empty otherwise.
    pub skin_vertices: SkinVertices,
    /// Per clip (in [`ImportedAsset::clips`] order), whether its foot contacts are authored,
    /// derived or missing, each foot's stance share, and why derivation failed when it did.
    /// Empty when [`ImportOptions::foot_contacts`] is off.
    pub foot_contacts: Vec<ClipContacts>,
}

impl ImportedAsset {
    /// Sockets from the skin for the feet of `map` that have no toe joint (their sockets
    /// came from leg proportions): the vertices weighted at least
    /// [`FOOT_VERTEX_MIN_WEIGHT`] to each foot joint
    /// ([`plantigrade::FootSockets::from_sole_points`]). Needs
    /// [`ImportOptions::skin_vertices`]; returns how many feet changed.
    pub fn sockets_from_skin(&self, map: &mut HumanoidMap) -> usize {
        self.skin_vertices.feet_sockets_into(&self.skeleton, map)
    }
}

/// An animation left out of [`ImportedAsset::clips`].
#[derive(Clone, Debug)]
pub struct SkippedClip {
    /// Index of the animation in the file's `animations` array.
    pub animation: usize,
    /// The name the clip would have had (the animation's name, or `animation_{index}`).
    pub name: String,
    /// Why it could not be imported. Print it with its [`source`](std::error::Error::source)
    /// chain (e.g. anyhow's `{:#}`) for the whole reason.
    pub error: Arc<GltfError>,
}

/// A mesh whose data is compressed with an extension this importer does not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedMesh {
    /// Index of the mesh in the file's `meshes` array.
    pub mesh: usize,
    /// The mesh's name, if it has one.
    pub name: Option<String>,
    /// The extension its data is compressed with: `KHR_draco_mesh_compression` or
    /// `EXT_meshopt_compression`.
    pub extension: String,
}

/// An animation channel left out of a clip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedChannel {
    /// Name of the clip (animation) the channel belongs to.
    pub animation: String,
    /// Index of the channel in the animation's `channels` array.
    pub channel: usize,
    pub reason: SkipReason,
}

/// Why a channel was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The channel animates a node that is not a skeleton joint (e.g. the armature object,
    /// whose rest transform is baked into the root joints instead).
    NotAJoint { node: usize },
    /// Morph target weights: meshes are the renderer's business.
    MorphWeights,
    /// A target path this importer does not know (e.g. from an extension).
    UnknownPath,
    /// A second channel for the same joint and property; the first one is kept.
    DuplicateTarget,
}

/// Loads a `.glb` or `.gltf` file. External buffers of a `.gltf` are read from files beside
/// it; nothing is downloaded. An animation that cannot be imported is left out and listed in
/// [`ImportedAsset::skipped_clips`]; see [`load_path_with`] to refuse the file instead.
pub fn load_path(path: &Path) -> Result<ImportedAsset, GltfError> {
    load_path_with(path, ImportOptions::default())
}

/// [`load_path`] with options.
pub fn load_path_with(path: &Path, options: ImportOptions) -> Result<ImportedAsset, GltfError> {
    let bytes = std::fs::read(path).map_err(|source| GltfError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_slice_with(&bytes, path.parent(), options)
}

/// Loads a `.glb` or `.gltf` held in memory. `base_dir` resolves buffer URIs that name
/// files; without it only GLB binary chunks and base64 `data:` URIs can be read. An
/// animation that cannot be imported is left out and listed in
/// [`ImportedAsset::skipped_clips`]; see [`load_slice_with`] to refuse the file instead.
pub fn load_slice(bytes: &[u8], base_dir: Option<&Path>) -> Result<ImportedAsset, GltfError> {
    load_slice_with(bytes, base_dir, ImportOptions::default())
}

/// [`load_slice`] with options.
pub fn load_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    options: ImportOptions,
) -> Result<ImportedAsset, GltfError> {
    let container = container::split(bytes)?;
    let (root, compression) = container::parse_json(container.json)?;
    let buffers = Buffers::load(&root, container.bin, base_dir, &compression)?;
    let tree = NodeTree::new(&root)?;
    let rig = build_rig(&root, &tree)?;

    let slots = root
        .animations
        .len()
        .saturating_mul(rig.skeleton.num_joints());
    if slots > MAX_CLIP_JOINT_SLOTS {
        return Err(GltfError::TooLarge(format!(
            "{} animations over {} joints",
            root.animations.len(),
            rig.skeleton.num_joints()
        )));
    }
    let mut skipped_channels = Vec::new();
    let mut skipped_clips = Vec::new();
    let mut clips = Vec::with_capacity(root.animations.len());
    let file = File {
        root: &root,
        buffers: &buffers,
        compression: &compression,
        rig: &rig,
    };
    for (index, animation) in root.animations.iter().enumerate() {
        let mut clip_skipped_channels = Vec::new();
        match import_animation(&file, index, animation, &mut clip_skipped_channels) {
            Ok(clip) => {
                clips.push(clip);
                skipped_channels.append(&mut clip_skipped_channels);
            }
            // Compressed animation data is an unsupported file, not one bad clip.
            Err(error @ GltfError::CompressedAnimationData { .. }) => return Err(error),
            Err(error) if options.strict => return Err(error),
            Err(error) => skipped_clips.push(SkippedClip {
                animation: index,
                name: animation_name(index, animation),
                error: Arc::new(error),
            }),
        }
    }
    let skin_vertices = if options.skin_vertices {
        skin::read(
            &root,
            &buffers,
            &compression,
            &rig.skeleton,
            &rig.joint_of_node,
        )
    } else {
        SkinVertices::default()
    };
    let (clips, foot_contacts) = if options.foot_contacts {
        let mut map = HumanoidMap::detect(&rig.skeleton);
        skin_vertices.feet_sockets_into(&rig.skeleton, &mut map);
        add_derived_foot_contacts(&rig.skeleton, &map, clips, &FootContactConfig::default())
    } else {
        (clips, Vec::new())
    };
    Ok(ImportedAsset {
        skin_vertices,
        skeleton: rig.skeleton,
        clips,
        foot_contacts,
        joint_nodes: rig.joint_nodes,
        skipped_channels,
        skipped_clips,
        skipped_meshes: compression.skipped_meshes().to_vec(),
    })
}

/// What importing one animation reads from.
struct File<'f> {
    root: &'f json::Root,
    buffers: &'f Buffers<'f>,
    compression: &'f Compression,
    rig: &'f Rig,
}

fn animation_name(index: usize, animation: &json::Animation) -> String {
    animation
        .name
        .clone()
        .unwrap_or_else(|| format!("animation_{index}"))
}

/// Parent of every node, checked to form a forest (one parent at most, no cycles).
struct NodeTree {
    parent: Vec<Option<usize>>,
}

impl NodeTree {
    fn new(root: &json::Root) -> Result<Self, GltfError> {
        let count = root.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; count];
        for (index, node) in root.nodes.iter().enumerate() {
            for child in node.children.iter().flatten() {
                let child = child.value();
                if child >= count {
                    return Err(GltfError::BadHierarchy {
                        node: index,
                        reason: format!("lists child {child}, which does not exist"),
                    });
                }
                if let Some(first) = parent[child] {
                    return Err(GltfError::BadHierarchy {
                        node: child,
                        reason: format!("is a child of both node {first} and node {index}"),
                    });
                }
                parent[child] = Some(index);
            }
        }
        // Walk up from every node; a walk that meets a node of its own path is a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Unvisited,
            OnPath,
            Done,
        }
        let mut state = vec![State::Unvisited; count];
        let mut path = Vec::new();
        for start in 0..count {
            let mut current = Some(start);
            while let Some(node) = current {
                match state[node] {
                    State::Done => break,
                    State::OnPath => {
                        return Err(GltfError::BadHierarchy {
                            node,
                            reason: "is its own ancestor (the node hierarchy has a cycle)".into(),
                        })
                    }
                    State::Unvisited => {
                        state[node] = State::OnPath;
                        path.push(node);
                        current = parent[node];
                    }
                }
            }
            for node in path.drain(..) {
                state[node] = State::Done;
            }
        }
        Ok(Self { parent })
    }

    /// Ancestors of `node`, nearest first (terminates: the tree has no cycles).
    fn ancestors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parent.get(node).copied().flatten(), move |&n| {
            self.parent.get(n).copied().flatten()
        })
    }
}

/// The skeleton and how its joints map to the file's nodes.
struct Rig {
    skeleton: Skeleton,
    joint_nodes: Vec<usize>,
    /// `joint_of_node[node]`: the joint a node became, if any.
    joint_of_node: Vec<Option<usize>>,
    /// For root joints under non-identity ancestors: the ancestors' transform, baked into
    /// the joint's rest pose and into its animation keys.
    baked: Vec<Option<Transform>>,
}

fn node_name(root: &json::Root, node: usize) -> String {
    root.nodes
        .get(node)
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("node_{node}"))
}

/// A node's local transform (TRS, or a decomposed `matrix` without shear).
fn node_transform(root: &json::Root, index: usize) -> Result<Transform, GltfError> {
    let unsupported = |reason: &str| GltfError::UnsupportedNodeTransform {
        node: index,
        name: node_name(root, index),
        reason: reason.into(),
    };
    let node = root
        .nodes
        .get(index)
        .ok_or_else(|| unsupported("no such node"))?;
    let transform = match node.matrix {
        Some(m) => {
            let matrix = Mat4::from_cols_array(&m);
            let (scale, rotation, translation) = matrix.to_scale_rotation_translation();
            // The 3×3 part must be rotation × scale (no shear); the last row (0, 0, 0, 1).
            let linear = Mat3::from_mat4(matrix);
            let rebuilt = Mat3::from_quat(rotation) * Mat3::from_diagonal(scale);
            let magnitude = linear
                .to_cols_array()
                .iter()
                .fold(0.0f32, |acc, v| acc.max(v.abs()));
            let affine = matrix.row(3).abs_diff_eq(Vec4::W, 1e-6);
            if !matrix.is_finite() || !affine || !rebuilt.abs_diff_eq(linear, 1e-4 * magnitude) {
                return Err(unsupported(
                    "its matrix has shear or projection, which a joint transform cannot hold",
                ));
            }
            Transform {
                translation,
                rotation,
                scale,
            }
        }
        None => Transform {
            translation: node.translation.map_or(Vec3::ZERO, Vec3::from),
            rotation: node
                .rotation
                .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0)),
            scale: node.scale.map_or(Vec3::ONE, Vec3::from),
        },
    };
    let length_squared = transform.rotation.length_squared();
    if !length_squared.is_finite() || length_squared <= 1e-12 {
        return Err(unsupported("its rotation is not a unit quaternion"));
    }
    Ok(Transform {
        rotation: transform.rotation.normalize(),
        ..transform
    })
}

/// The nodes that become joints, in first-seen order: every skin's joints, or without
/// skins every node of the default scene.
fn joint_candidates(root: &json::Root, tree: &NodeTree) -> Result<Vec<usize>, GltfError> {
    let count = root.nodes.len();
    let mut seen = vec![false; count];
    let mut order = Vec::new();
    for skin in &root.skins {
        for joint in &skin.joints {
            let node = joint.value();
            if node < count && !seen[node] {
                seen[node] = true;
                order.push(node);
            }
        }
    }
    if !order.is_empty() {
        return Ok(order);
    }
    // No skin: the node hierarchy of the default scene (or of every root node).
    let scene = root
        .scene
        .map(|s| s.value())
        .or((!root.scenes.is_empty()).then_some(0));
    let mut stack: Vec<usize> = match scene.and_then(|s| root.scenes.get(s)) {
        Some(scene) => scene.nodes.iter().rev().map(|n| n.value()).collect(),
        None => (0..count)
            .rev()
            .filter(|&n| tree.parent[n].is_none())
            .collect(),
    };
    while let Some(node) = stack.pop() {
        if node >= count || seen[node] {
            continue;
        }
        seen[node] = true;
        order.push(node);
        if let Some(children) = &root.nodes[node].children {
            stack.extend(children.iter().rev().map(|c| c.value()));
        }
    }
    if order.is_empty() {
        return Err(GltfError::NoSkeleton);
    }
    Ok(order)
}

/// Makes joint names unique: the first node keeps its name, later ones get `#node`.
fn unique_names(root: &json::Root, nodes: &[usize]) -> Vec<String> {
    let mut used = std::collections::HashSet::with_capacity(nodes.len());
    nodes
        .iter()
        .map(|&node| {
            let mut name = node_name(root, node);
            while !used.insert(name.clone()) {
                name = format!("{name}#{node}");
            }
            name
        })
        .collect()
}

/// The static transform of the ancestors of a root joint (the armature), checked to be
/// rotation + translation + uniform scale.
fn armature_transform(
    root: &json::Root,
    tree: &NodeTree,
    joint_node: usize,
) -> Result<Transform, GltfError> {
    let mut armature = Transform::IDENTITY;
    for ancestor in tree.ancestors(joint_node) {
        let local = node_transform(root, ancestor)?;
        let s = local.scale;
        let largest = s.abs().max_element();
        let refuse = |reason: String| GltfError::UnsupportedArmatureTransform {
            node: ancestor,
            name: node_name(root, ancestor),
            reason,
        };
        if !local.is_finite() {
            return Err(refuse("its transform is not finite".into()));
        }
        if largest < 1e-8 {
            return Err(refuse("its scale is zero".into()));
        }
        if (s.x - s.y).abs() > 1e-4 * largest || (s.x - s.z).abs() > 1e-4 * largest {
            return Err(refuse(format!(
                "its scale {:?} is not uniform",
                s.to_array()
            )));
        }
        armature = local.mul_transform(&armature);
    }
    Ok(armature)
}

fn build_rig(root: &json::Root, tree: &NodeTree) -> Result<Rig, GltfError> {
    let count = root.nodes.len();
    let candidates = joint_candidates(root, tree)?;
    let mut is_joint = vec![false; count];
    for &node in &candidates {
        is_joint[node] = true;
    }
    // Nodes between two joints become joints too, so their transforms (and animation) are
    // kept exactly.
    for &node in &candidates {
        let mut between = Vec::new();
        for ancestor in tree.ancestors(node) {
            if is_joint[ancestor] {
                for &n in &between {
                    is_joint[n] = true;
                }
                break;
            }
            between.push(ancestor);
        }
    }

    // Skin order, made parents-first with the least change: each joint is preceded by those
    // of its joint ancestors not yet placed (top-down). A skin already listed parents-first
    // keeps its order.
    let mut joint_nodes = Vec::new();
    let mut joint_of_node: Vec<Option<usize>> = vec![None; count];
    let mut parents = Vec::new();
    let mut chain = Vec::new();
    for &node in &candidates {
        let mut current = Some(node);
        while let Some(n) = current.filter(|&n| is_joint[n] && joint_of_node[n].is_none()) {
            chain.push(n);
            current = tree.parent[n];
        }
        for n in chain.drain(..).rev() {
            joint_of_node[n] = Some(joint_nodes.len());
            joint_nodes.push(n);
            parents.push(tree.parent[n].and_then(|p| joint_of_node[p]));
        }
    }

    let names = unique_names(root, &joint_nodes);
    let mut joints = Vec::with_capacity(joint_nodes.len());
    let mut baked = Vec::with_capacity(joint_nodes.len());
    for ((&node, name), parent) in joint_nodes.iter().zip(names).zip(parents) {
        let mut rest_local = node_transform(root, node)?;
        let mut bake = None;
        if parent.is_none() {
            let armature = armature_transform(root, tree, node)?;
            if armature != Transform::IDENTITY {
                rest_local = armature.mul_transform(&rest_local);
                bake = Some(armature);
            }
        }
        baked.push(bake);
        joints.push(Joint {
            name,
            parent,
            rest_local,
        });
    }
    Ok(Rig {
        skeleton: Skeleton::new(joints)?,
        joint_nodes,
        joint_of_node,
        baked,
    })
}

/// Which accessor a track error is about: key times come from the input accessor, values
/// from the output accessor.
fn accessor_at_fault(error: &ClipError, input: usize, output: usize) -> usize {
    match error {
        ClipError::NoKeys
        | ClipError::BadKeyTime { .. }
        | ClipError::KeyTimesNotIncreasing { .. } => input,
        _ => output,
    }
}

fn vec3s(flat: &[f32]) -> Vec<Vec3> {
    flat.chunks_exact(3).map(Vec3::from_slice).collect()
}

/// Applies `f` to key values and, for cubic splines, `tangent` to in/out tangents.
fn map_keys<T: Copy>(
    values: &mut [T],
    interpolation: Interpolation,
    value: impl Fn(T) -> T,
    tangent: impl Fn(T) -> T,
) {
    for (i, v) in values.iter_mut().enumerate() {
        let is_value = interpolation != Interpolation::CubicSpline || i % 3 == 1;
        *v = if is_value { value(*v) } else { tangent(*v) };
    }
}

fn import_animation(
    file: &File<'_>,
    index: usize,
    animation: &json::Animation,
    skipped: &mut Vec<SkippedChannel>,
) -> Result<Clip, GltfError> {
    let File {
        root,
        buffers,
        compression,
        rig,
    } = *file;
    let name = animation_name(index, animation);
    let mut tracks = vec![JointTracks::default(); rig.skeleton.num_joints()];

    for (channel_index, channel) in animation.channels.iter().enumerate() {
        let bad_channel = |reason: String| GltfError::BadChannel {
            animation: name.clone(),
            channel: channel_index,
            reason,
        };
        let mut skip = |reason: SkipReason| {
            skipped.push(SkippedChannel {
                animation: name.clone(),
                channel: channel_index,
                reason,
            })
        };
        let node = channel.target.node.value();
        if node >= root.nodes.len() {
            return Err(bad_channel(format!(
                "targets node {node}, which does not exist"
            )));
        }
        let property = match channel.target.path {
            Checked::Valid(Property::MorphTargetWeights) => {
                skip(SkipReason::MorphWeights);
                continue;
            }
            Checked::Valid(property) => property,
            Checked::Invalid => {
                skip(SkipReason::UnknownPath);
                continue;
            }
        };
        let Some(joint) = rig.joint_of_node.get(node).copied().flatten() else {
            skip(SkipReason::NotAJoint { node });
            continue;
        };
        let slot = &mut tracks[joint];
        let taken = match property {
            Property::Translation => slot.translation.is_some(),
            Property::Rotation => slot.rotation.is_some(),
            Property::Scale => slot.scale.is_some(),
            Property::MorphTargetWeights => false,
        };
        if taken {
            skip(SkipReason::DuplicateTarget);
            continue;
        }
        let sampler_index = channel.sampler.value();
        let sampler = animation
            .samplers
            .get(sampler_index)
            .ok_or_else(|| bad_channel(format!("sampler {sampler_index} does not exist")))?;
        let interpolation = match sampler.interpolation {
            Checked::Valid(GltfInterpolation::Linear) => Interpolation::Linear,
            Checked::Valid(GltfInterpolation::Step) => Interpolation::Step,
            Checked::Valid(GltfInterpolation::CubicSpline) => Interpolation::CubicSpline,
            Checked::Invalid => return Err(bad_channel("unknown interpolation".into())),
        };
        let input = sampler.input.value();
        let output = sampler.output.value();
        for accessor in [input, output] {
            if let Some((view, extension)) = compression.compressed_view_of(root, accessor) {
                return Err(GltfError::CompressedAnimationData {
                    animation: name.clone(),
                    channel: channel_index,
                    accessor,
                    view,
                    extension: extension.into(),
                });
            }
        }
        let times_s = read_floats(root, buffers, input, 1, Components::Float)?;
        let bad_track = |source: ClipError| GltfError::BadAnimation {
            animation: name.clone(),
            channel: channel_index,
            accessor: accessor_at_fault(&source, input, output),
            source,
        };
        let bake = rig.baked[joint];
        match property {
            Property::Translation => {
                let mut values = vec3s(&read_floats(root, buffers, output, 3, Components::Float)?);
                if let Some(w) = bake {
                    map_keys(
                        &mut values,
                        interpolation,
                        |t| w.translation + w.rotation * (w.scale * t),
                        |d| w.rotation * (w.scale * d),
                    );
                }
                slot.translation =
                    Some(Track::new(interpolation, times_s, values).map_err(bad_track)?);
            }
            Property::Rotation => {
                let flat = read_floats(root, buffers, output, 4, Components::FloatOrNormalized)?;
                let mut values: Vec<Quat> = flat.chunks_exact(4).map(Quat::from_slice).collect();
                if interpolation != Interpolation::CubicSpline {
                    for (key, q) in values.iter_mut().enumerate() {
                        let length_squared = q.length_squared();
                        if !length_squared.is_finite() {
                            continue; // reported by Track::new as a non-finite value
                        }
                        if length_squared < 1e-12 {
                            return Err(bad_channel(format!(
                                "rotation key {key} (accessor {output}) has zero length"
                            )));
                        }
                        if (length_squared - 1.0).abs() > 1e-5 {
                            *q = q.normalize();
                        }
                    }
                }
                if let Some(w) = bake {
                    map_keys(
                        &mut values,
                        interpolation,
                        |q| w.rotation * q,
                        |q| w.rotation * q,
                    );
                }
                slot.rotation =
                    Some(Track::new(interpolation, times_s, values).map_err(bad_track)?);
            }
            Property::Scale => {
                let mut values = vec3s(&read_floats(root, buffers, output, 3, Components::Float)?);
                if let Some(w) = bake {
                    map_keys(&mut values, interpolation, |s| w.scale * s, |s| w.scale * s);
                }
                slot.scale = Some(Track::new(interpolation, times_s, values).map_err(bad_track)?);
            }
            Property::MorphTargetWeights => {}
        }
    }

    let bad_metadata = |reason: String| GltfError::BadMetadata {
        animation: name.clone(),
        reason,
    };
    let metadata = match &animation.extras {
        Some(raw) => metadata::from_extras(raw).map_err(bad_metadata)?,
        None => None,
    };
    let duration_s = metadata.as_ref().and_then(|m| m.duration_s());
    let clip = Clip::new(name.clone(), duration_s, tracks)
        .map_err(|e| bad_metadata(format!("duration_s: {e}")))?;
    match metadata {
        Some(m) => m.apply(clip).map_err(bad_metadata),
        None => Ok(clip),
    }
}
