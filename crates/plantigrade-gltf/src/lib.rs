//! glTF 2.0 import of skeletons and clips for plantigrade (SPEC ANIM-4, ROB-2), and `.glb`
//! export of a skeleton with its clips (the built-in mannequin, ANIM-5).
//!
//! # Import ([`load_path`], [`load_slice`], their `_with` forms and [`ImportOptions`])
//!
//! Reads `.glb` and `.gltf`. Buffers come from the GLB binary chunk, base64 `data:` URIs, or
//! files relative to the `.gltf`; any other URI (`http:`, `file:`, absolute paths) is refused
//! with [`GltfError::UnsupportedUri`], and nothing is ever downloaded. Meshes, materials and
//! images are the renderer's business and are not read, except on request
//! ([`ImportOptions::skin_vertices`]) the vertices of uncompressed skinned meshes, skinned by
//! the rest pose into [`ImportedAsset::skin_vertices`]: [`ImportedAsset::sockets_from_skin`]
//! places the heel and ball of feet without toe joints from them (SPEC RIG-3). They are read
//! with the `gltf` crate's accessor readers after the document passes its validation and
//! each accessor's kind, stride and range are checked; a primitive that cannot be read is
//! listed in [`SkinVertices::skipped`] and never fails the import.
//!
//! - **Compressed meshes.** Files that require `KHR_draco_mesh_compression` or
//!   `EXT_meshopt_compression` load, since the skeleton and clips do not need the meshes;
//!   the meshes whose data exists only compressed are listed in
//!   [`ImportedAsset::skipped_meshes`]. Meshopt can also compress animation data: an
//!   animation channel whose accessor lies in a compressed buffer view refuses the file with
//!   [`GltfError::CompressedAnimationData`] (naming the extension, animation, channel,
//!   accessor and view). The skeleton is read from nodes only, so it never needs a buffer.
//!   Other extensions that change how nodes, skins, animations or buffers are read refuse
//!   the file with [`GltfError::UnsupportedExtension`].
//!
//! - **Skeleton.** The joints of *all* skins, each node once even when skins share joints
//!   (nodes lying between two joints become joints too). Without a skin, every node of the
//!   default scene. Joints keep the skins' order, except that a joint listed before its
//!   parent is moved after it: parents always come before children. A joint is named after
//!   its node, or `node_{index}` if unnamed; a repeated name gets `#{node index}` appended.
//!   [`ImportedAsset::joint_nodes`] maps joints back to node indices.
//! - **Armature nodes are baked.** Nodes above the skeleton's root joints that are not
//!   joints themselves (Blender's armature object, e.g. `Rig_Medium` with +90° about X over
//!   a `root` joint with −90°) are folded into the root joints: their static transform `A`
//!   premultiplies each root joint's rest transform and every key of its translation
//!   (`t ↦ A.t + A.r·(A.s·t)`), rotation (`q ↦ A.r·q`) and scale (`s ↦ A.s·s`) tracks. Cubic
//!   spline tangents get the linear part only (no translation offset). So the skeleton's
//!   model space is the file's scene space, and no extra joint is added for the armature
//!   (53 joints for a 53-joint skin). `A` must be
//!   rotation + translation + uniform scale, else [`GltfError::UnsupportedArmatureTransform`];
//!   animation of the armature node itself is skipped (see below).
//! - **Clips.** Every animation becomes one [`plantigrade::Clip`], named exactly as in the
//!   file (`Rig_Medium|Walking_A` keeps its armature prefix; unnamed ones are
//!   `animation_{index}`), in file order. Translation, rotation and scale channels keep their
//!   `LINEAR`, `STEP` or `CUBICSPLINE` interpolation and raw values; rotations may be floats
//!   or normalized integers, and `LINEAR`/`STEP` rotation keys that are not unit length are
//!   normalised. Channels on non-joint nodes, morph-target weights and unknown paths are
//!   skipped and listed in [`ImportedAsset::skipped_channels`]. Duration is the last key time
//!   over the clip's channels and clips loop, unless the plantigrade metadata below says
//!   otherwise.
//! - **Foot contacts.** A clip without `FootContact_L`/`FootContact_R` curves (most
//!   third-party clips) gets them derived from its feet's height and ground speed, once at
//!   import, on the detected bone map (SPEC RIG-6,
//!   [`plantigrade::foot_contacts`]); curves the file carries win. The graph's contact
//!   curves, landing prediction and foot lock then read them like authored ones.
//!   [`ImportedAsset::foot_contacts`] says per clip what was done (and why not, e.g. no
//!   legs found). Turn it off with [`ImportOptions::foot_contacts`] (`false`), for
//!   instance to derive with your own bone map
//!   ([`plantigrade::foot_contacts::add_derived_foot_contacts`]).
//! - **Clips from several files.** Packs that ship one rig's clips in several files (KayKit:
//!   `MovementBasic`, `MovementAdvanced`, `General`) load the first file and add the others
//!   with [`ImportedAsset::add_clips_from_path`]: keys go to the joint of the same name,
//!   channels of joints the first skeleton lacks are skipped, a clip name already present
//!   keeps the first clip, all listed in [`AddedClips`]; a file of another rig is refused
//!   with [`GltfError::SkeletonMismatch`]. Foot contacts are derived for the added clips as
//!   at import.
//! - **One bad clip does not block the others.** An animation that cannot be imported (keys
//!   out of order, an accessor of the wrong kind, bad metadata …) is left out and listed
//!   with its error in [`ImportedAsset::skipped_clips`]. With
//!   [`ImportOptions::strict`] ([`load_path_with`], [`load_slice_with`]) the first such
//!   animation refuses the whole file instead.
//! - **Errors, never panics.** Every length the file declares is checked against the bytes
//!   present before anything is read; malformed or unsupported input gives a [`GltfError`]
//!   naming the buffer, accessor, node or channel at fault. An error that wraps another
//!   returns it as its [`source`](std::error::Error::source) and does not repeat it, so print
//!   the chain (anyhow's `{:#}`) for the whole message.
//!
//! # Export ([`export_glb`], [`export_glb_to_path`])
//!
//! One node per joint with its rest transform, a skin with inverse bind matrices of the rest
//! pose, a mesh of one octahedral bone per joint rigidly skinned to it (so Blender shows a
//! figure), and one animation per clip with one channel per track, interpolation and raw
//! values unchanged. A clip without tracks gets a constant rotation channel on the first
//! joint at its rest value (glTF needs at least one channel). Importing an exported file
//! gives back the same skeleton and clips.
//!
//! # Clip metadata in `extras`
//!
//! glTF cannot express looping, authored speeds, float curves or events, so each exported
//! animation carries them in its `extras` (Blender keeps these as custom properties), and
//! the importer reads them back when present:
//!
//! ```json
//! "extras": { "plantigrade": {
//!     "looping": true,
//!     "authored_velocity_model_m_s": [0.0, 0.0, 1.75],
//!     "duration_s": 1.2,
//!     "curves": [{ "name": "FootContact_L", "interpolation": "LINEAR",
//!                  "times_s": [0.0, 0.6], "values": [1.0, 0.0] }],
//!     "events": [{ "name": "Footstep_L", "time_s": 0.0 }]
//! } }
//! ```
//!
//! `authored_velocity_model_m_s` is model space in m/s (or `null`); `duration_s` overrides
//! the last-key duration so a clip whose keys end early keeps its length; curve values are
//! raw track values (in-tangent, value, out-tangent triples for `CUBICSPLINE`). Every field
//! is optional. Numbers are written as the exact decimal of each `f32`, so they read back
//! bit for bit. A malformed `plantigrade` object is a [`GltfError::BadMetadata`]; other keys
//! in `extras` are ignored.

mod buffers;
mod compression;
mod container;
mod error;
mod export;
mod import;
mod merge;
mod metadata;
mod skin;

pub use error::{error_chain, GltfError};
pub use export::{export_glb, export_glb_to_path};
pub use import::{
    load_path, load_path_with, load_slice, load_slice_with, ImportOptions, ImportedAsset,
    SkipReason, SkippedChannel, SkippedClip, SkippedMesh, FOOT_VERTEX_MIN_WEIGHT,
};
pub use merge::{AddedClips, SkeletonMismatch, UnmatchedJoint};
pub use skin::SkinVertices;
