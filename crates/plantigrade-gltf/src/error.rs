//! The one error type of this crate: every way a file can be refused, named with the index of
//! the glTF object at fault.
//!
//! A variant that wraps another error (`Io`, `Skeleton`, `BadAnimation`) returns it from
//! [`std::error::Error::source`] and does not repeat it in its own message, so a report that
//! prints the whole chain (anyhow's `{:#}`) says each detail once.

use std::path::PathBuf;

use plantigrade::{ClipError, SkeletonError};

/// Why a glTF file could not be imported, or a skeleton and clips could not be exported.
///
/// Indices (`buffer`, `accessor`, `node`, `channel`, …) are the positions of the objects in
/// the file's JSON arrays, so `accessor: 12` is `accessors[12]`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// A file could not be read or written (the I/O error is the [`source`](std::error::Error::source)).
    #[error("cannot access '{path}'")]
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
    /// (e.g. `KHR_animation_pointer`). The mesh compression extensions
    /// (`KHR_draco_mesh_compression`, `EXT_meshopt_compression`) are not refused here: see
    /// [`GltfError::CompressedAnimationData`].
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

    /// The joints found do not make a valid [`plantigrade::Skeleton`] (the reason is the
    /// [`source`](std::error::Error::source)).
    #[error("the joints do not make a valid skeleton")]
    Skeleton(#[from] SkeletonError),

    /// An animation channel whose keys do not make a valid track (times not increasing,
    /// value count not matching the key count, non-finite values …); the [`ClipError`] is the
    /// [`source`](std::error::Error::source).
    #[error("animation '{animation}' channel {channel}: accessor {accessor} does not make a valid track")]
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

    /// An animation channel needs an accessor whose data lies in a buffer view compressed
    /// with `EXT_meshopt_compression` (listed in `extensionsRequired`), which this importer
    /// does not decode. Compressed views used only by meshes are fine (see
    /// [`crate::ImportedAsset::skipped_meshes`]); compressed animation data refuses the whole
    /// file, whatever [`crate::ImportOptions`] say.
    #[error("animation '{animation}' channel {channel} needs accessor {accessor}, whose buffer view {view} is compressed with '{extension}', which is not supported (only mesh data may be compressed)")]
    CompressedAnimationData {
        animation: String,
        channel: usize,
        accessor: usize,
        view: usize,
        extension: String,
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

    /// Clips from another file ([`crate::ImportedAsset::add_clips_from_path`]) whose
    /// skeleton is not the asset's: fewer than half of its joint names in common, or a
    /// shared joint under another parent (the mismatch is the
    /// [`source`](std::error::Error::source)).
    #[error("the file's skeleton does not match the asset's")]
    SkeletonMismatch(#[source] crate::SkeletonMismatch),
}

/// An error and every error below it (its `source()` chain), joined with ": ", as anyhow's
/// `{:#}` prints them: for a log line or a list that shows one message, e.g. a
/// [`crate::SkippedClip`]'s reason.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// The check the integration tests run on every error they provoke.
#[cfg(test)]
#[path = "../tests/common/said_once.rs"]
mod said_once;

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of every kind, with realistic details and sources.
    fn one_of_each() -> Vec<GltfError> {
        let s = String::from;
        vec![
            GltfError::Io {
                path: PathBuf::from("rigs/hero.glb"),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file"),
            },
            GltfError::Parse(s("JSON: EOF while parsing an object at line 1 column 30")),
            GltfError::Truncated {
                declared: 1200,
                actual: 800,
            },
            GltfError::Invalid(s("animations[0].samplers[1].output: Index out of bounds")),
            GltfError::UnsupportedExtension {
                name: s("KHR_animation_pointer"),
            },
            GltfError::MissingBuffer { index: 1 },
            GltfError::UnsupportedUri {
                buffer: 0,
                uri: s("https://example.com/rig.bin"),
            },
            GltfError::BadDataUri {
                buffer: 0,
                reason: s("Invalid symbol 64, offset 0."),
            },
            GltfError::NoBaseDirectory {
                buffer: 0,
                uri: s("rig.bin"),
            },
            GltfError::BufferTooShort {
                buffer: 0,
                needed: 64,
                got: 3,
            },
            GltfError::BufferViewOutOfBounds {
                view: 3,
                buffer: 0,
                start: 16,
                end: 10_000_016,
                buffer_length: 2048,
            },
            GltfError::AccessorOutOfBounds {
                accessor: 7,
                reason: s("sparse index 500 is past its 3 elements"),
            },
            GltfError::UnsupportedAccessor {
                accessor: 7,
                reason: s("expected VEC4, found VEC3"),
            },
            GltfError::UnsupportedNodeTransform {
                node: 3,
                name: s("leg"),
                reason: s("its rotation is not a unit quaternion"),
            },
            GltfError::UnsupportedArmatureTransform {
                node: 0,
                name: s("Armature"),
                reason: s("its scale [1.0, 2.0, 1.0] is not uniform"),
            },
            GltfError::BadHierarchy {
                node: 4,
                reason: s("is its own ancestor (the node hierarchy has a cycle)"),
            },
            GltfError::NoSkeleton,
            GltfError::Skeleton(SkeletonError::NonFiniteRest {
                joint: 2,
                name: s("spine"),
            }),
            GltfError::BadAnimation {
                animation: s("Walk"),
                channel: 0,
                accessor: 6,
                source: ClipError::KeyTimesNotIncreasing {
                    index: 1,
                    time_s: 0.0,
                    previous_s: 0.5,
                },
            },
            GltfError::BadChannel {
                animation: s("Walk"),
                channel: 2,
                reason: s("targets node 500, which does not exist"),
            },
            GltfError::CompressedAnimationData {
                animation: s("Walk"),
                channel: 0,
                accessor: 6,
                view: 4,
                extension: s("EXT_meshopt_compression"),
            },
            GltfError::BadMetadata {
                animation: s("Walk"),
                reason: s("events: event 'late' at 99 s lies outside the clip (0..1 s)"),
            },
            GltfError::TooLarge(s("5000 animations over 1000 joints")),
            GltfError::ClipSkeletonMismatch {
                clip: s("Walk"),
                tracks: 3,
                joints: 5,
            },
            GltfError::NonInvertibleRest {
                joint: 1,
                name: s("hips"),
            },
            GltfError::Serialize(s("key must be a string")),
            GltfError::SkeletonMismatch(crate::SkeletonMismatch::DifferentParent {
                joint: s("hand.l"),
                asset_parent: Some(s("lowerarm.l")),
                file_parent: None,
            }),
        ]
    }

    /// The variant's position in the enum; exhaustive, so a new variant must be added here
    /// (and to `one_of_each`).
    fn kind(error: &GltfError) -> usize {
        match error {
            GltfError::Io { .. } => 0,
            GltfError::Parse(_) => 1,
            GltfError::Truncated { .. } => 2,
            GltfError::Invalid(_) => 3,
            GltfError::UnsupportedExtension { .. } => 4,
            GltfError::MissingBuffer { .. } => 5,
            GltfError::UnsupportedUri { .. } => 6,
            GltfError::BadDataUri { .. } => 7,
            GltfError::NoBaseDirectory { .. } => 8,
            GltfError::BufferTooShort { .. } => 9,
            GltfError::BufferViewOutOfBounds { .. } => 10,
            GltfError::AccessorOutOfBounds { .. } => 11,
            GltfError::UnsupportedAccessor { .. } => 12,
            GltfError::UnsupportedNodeTransform { .. } => 13,
            GltfError::UnsupportedArmatureTransform { .. } => 14,
            GltfError::BadHierarchy { .. } => 15,
            GltfError::NoSkeleton => 16,
            GltfError::Skeleton(_) => 17,
            GltfError::BadAnimation { .. } => 18,
            GltfError::BadChannel { .. } => 19,
            GltfError::CompressedAnimationData { .. } => 20,
            GltfError::BadMetadata { .. } => 21,
            GltfError::TooLarge(_) => 22,
            GltfError::ClipSkeletonMismatch { .. } => 23,
            GltfError::NonInvertibleRest { .. } => 24,
            GltfError::Serialize(_) => 25,
            GltfError::SkeletonMismatch(_) => 26,
        }
    }

    #[test]
    fn every_kind_of_error_says_each_detail_once() {
        let errors = one_of_each();
        let mut kinds: Vec<usize> = errors.iter().map(kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(
            kinds,
            (0..=26).collect::<Vec<_>>(),
            "one error of each kind"
        );
        for error in &errors {
            super::said_once::assert_says_each_detail_once(error);
        }
        // The wrapped errors' details are in the chain, once.
        let chain: Vec<String> = errors.iter().map(|e| error_chain(e)).collect();
        assert_eq!(chain[0], "cannot access 'rigs/hero.glb': No such file");
        assert!(chain[17].ends_with(": joint 2 ('spine') has a non-finite rest transform"));
        assert_eq!(
            chain[26],
            "the file's skeleton does not match the asset's: joint 'hand.l' hangs under \
             'lowerarm.l' in the asset but under no parent (a root) in the file"
        );
        assert_eq!(
            chain[18],
            "animation 'Walk' channel 0: accessor 6 does not make a valid track: \
             key times must increase: key 1 at 0 s comes after 0.5 s"
        );
    }
}
