//! The one error type of this crate: every way a file can be refused, named with the index of
//! the glTF object at fault.

use std::path::PathBuf;

use plantigrade::{ClipError, SkeletonError};

/// Why a glTF file could not be imported, or a skeleton and clips could not be exported.
///
/// Indices (`buffer`, `accessor`, `node`, `channel`, …) are the positions of the objects in
/// the file's JSON arrays, so `accessor: 12` is `accessors[12]`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// A file could not be read or written.
    #[error("cannot access '{path}': {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The bytes are not glTF: a bad GLB header or chunk, or JSON that does not parse
    /// (the message names the line and column).
    #[error("not a readable glTF file: {0}")]
    Parse(String),

    /// A `.glb` whose header declares more bytes than the file holds (a cut download).
    #[error("truncated .glb: the header declares {declared} bytes but the file has {actual}")]
    Truncated { declared: u64, actual: u64 },

    /// The JSON parsed but breaks the glTF rules, e.g. an accessor index past the end of the
    /// accessor array. The message lists the JSON paths at fault
    /// (`animations[0].samplers[1].output: Index out of bounds`).
    #[error("invalid glTF: {0}")]
    Invalid(String),

    /// The file lists an extension in `extensionsRequired` that changes how nodes, skins,
    /// animations or buffers must be read, and this importer does not implement it
    /// (e.g. `EXT_meshopt_compression`, `KHR_draco_mesh_compression`).
    #[error("the file requires the glTF extension '{name}', which is not supported")]
    UnsupportedExtension { name: String },

    /// A buffer has no data: no `uri` and no GLB binary chunk to stand for it.
    #[error("buffer {index} has no data (no uri, and no GLB binary chunk for it)")]
    MissingBuffer { index: usize },

    /// A buffer URI this importer will not follow: only `data:` URIs (base64) and paths
    /// relative to the `.gltf` file are read; nothing is downloaded.
    #[error("buffer {buffer}: unsupported URI '{uri}' (only base64 data: URIs and relative file paths are read)")]
    UnsupportedUri { buffer: usize, uri: String },

    /// A `data:` URI that is not base64 or does not decode.
    #[error("buffer {buffer}: bad data URI: {reason}")]
    BadDataUri { buffer: usize, reason: String },

    /// A buffer refers to a file, but the bytes were given without a base directory to
    /// resolve it against (see [`crate::load_slice`]).
    #[error("buffer {buffer} refers to the file '{uri}', but no base directory was given")]
    NoBaseDirectory { buffer: usize, uri: String },

    /// A buffer's data is shorter than its declared `byteLength`.
    #[error("buffer {buffer} holds {got} bytes but declares {needed}")]
    BufferTooShort {
        buffer: usize,
        needed: u64,
        got: u64,
    },

    /// A buffer view reaches past the end of its buffer.
    #[error("buffer view {view} (bytes {start}..{end}) reaches past the end of buffer {buffer} ({buffer_length} bytes)")]
    BufferViewOutOfBounds {
        view: usize,
        buffer: usize,
        start: u64,
        end: u64,
        buffer_length: u64,
    },

    /// An accessor reads past the end of its buffer view, or a sparse index points past the
    /// accessor's element count.
    #[error("accessor {accessor} reads outside its data: {reason}")]
    AccessorOutOfBounds { accessor: usize, reason: String },

    /// An accessor whose type or component type does not fit its use (e.g. a rotation stored
    /// as `VEC3`, key times stored as integers), or that is too large to import.
    #[error("accessor {accessor}: {reason}")]
    UnsupportedAccessor { accessor: usize, reason: String },

    /// A node whose transform cannot be represented: a `matrix` with shear.
    #[error("node {node} ('{name}'): {reason}")]
    UnsupportedNodeTransform {
        node: usize,
        name: String,
        reason: String,
    },

    /// A node above the skeleton's root joints (e.g. a Blender armature object) whose
    /// transform is not rotation + translation + uniform scale, so it cannot be baked into
    /// the root joints.
    #[error("node {node} ('{name}') above the skeleton root cannot be baked into it: {reason}")]
    UnsupportedArmatureTransform {
        node: usize,
        name: String,
        reason: String,
    },

    /// The node hierarchy is not a forest: a node with two parents, or a cycle.
    #[error("node {node}: {reason}")]
    BadHierarchy { node: usize, reason: String },

    /// The file has no skin and no nodes: there is no skeleton to import.
    #[error("the file has no skin and no nodes: nothing to build a skeleton from")]
    NoSkeleton,

    /// The joints found do not make a valid [`plantigrade::Skeleton`].
    #[error("skeleton: {0}")]
    Skeleton(#[from] SkeletonError),

    /// An animation channel whose keys do not make a valid track (times not increasing,
    /// value count not matching the key count, non-finite values …).
    #[error("animation '{animation}' channel {channel} (accessor {accessor}): {source}")]
    BadAnimation {
        animation: String,
        channel: usize,
        accessor: usize,
        #[source]
        source: ClipError,
    },

    /// An animation channel that cannot be read for another reason (its target node does not
    /// exist, a rotation key of zero length, …).
    #[error("animation '{animation}' channel {channel}: {reason}")]
    BadChannel {
        animation: String,
        channel: usize,
        reason: String,
    },

    /// The plantigrade metadata in an animation's `extras` is malformed.
    #[error("animation '{animation}': bad plantigrade metadata in extras: {reason}")]
    BadMetadata { animation: String, reason: String },

    /// The file is beyond this importer's size limits (protects against files that would
    /// need gigabytes of memory).
    #[error("too large: {0}")]
    TooLarge(String),

    /// Export: a clip has tracks for a different number of joints than the skeleton.
    #[error("clip '{clip}' has tracks for {tracks} joints but the skeleton has {joints}")]
    ClipSkeletonMismatch {
        clip: String,
        tracks: usize,
        joints: usize,
    },

    /// Export: a joint's rest transform in model space cannot be inverted (zero scale), so
    /// no inverse bind matrix exists for it.
    #[error("joint {joint} ('{name}') has a rest transform that cannot be inverted")]
    NonInvertibleRest { joint: usize, name: String },

    /// Export: serialising the glTF JSON failed.
    #[error("writing the glTF JSON failed: {0}")]
    Serialize(String),
}
