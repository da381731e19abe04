//! Mesh compression extensions this importer does not decode: Draco
//! (`KHR_draco_mesh_compression`, on mesh primitives) and meshopt (`EXT_meshopt_compression`,
//! on buffer views, with "fallback" buffers that may hold no data).
//!
//! Meshes are never imported, so a file whose meshes are compressed loads; the meshes whose
//! data is only available compressed are listed. Meshopt can also compress the buffer views
//! of animations: [`Compression::compressed_view_of`] tells the importer when an accessor it
//! needs cannot be read.
//!
//! `gltf-json` (without its `extensions` feature) drops extension objects, so they are read
//! here from the JSON text, and only when `extensionsUsed` or `extensionsRequired` names one
//! of these extensions.

use gltf::json;
use serde::Deserialize;

use crate::error::GltfError;
use crate::import::SkippedMesh;

pub(crate) const DRACO: &str = "KHR_draco_mesh_compression";
pub(crate) const MESHOPT: &str = "EXT_meshopt_compression";

/// Which parts of a file are compressed beyond this importer's reach.
#[derive(Debug, Default)]
pub(crate) struct Compression {
    /// `compressed_views[view]`: the view's data exists only compressed with meshopt
    /// (the extension is required, so its `buffer` may hold no data).
    compressed_views: Vec<bool>,
    /// `skipped_buffers[buffer]`: a meshopt fallback buffer of a file that requires meshopt;
    /// it is not loaded (it may have no data at all).
    skipped_buffers: Vec<bool>,
    /// Meshes whose data exists only compressed, with the extension.
    skipped_meshes: Vec<SkippedMesh>,
}

/// Only the parts of the JSON that carry these extensions.
#[derive(Default, Deserialize)]
#[serde(default)]
struct RawRoot {
    #[serde(rename = "bufferViews")]
    buffer_views: Vec<RawObject>,
    buffers: Vec<RawObject>,
    meshes: Vec<RawMesh>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawObject {
    extensions: serde_json::Value,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawMesh {
    primitives: Vec<RawObject>,
}

impl RawObject {
    fn extension(&self, name: &str) -> Option<&serde_json::Value> {
        self.extensions.get(name)
    }
}

impl Compression {
    /// Reads the compression extensions of `root` (parsed from `json_bytes`).
    pub(crate) fn read(root: &json::Root, json_bytes: &[u8]) -> Result<Self, GltfError> {
        let named = |name: &str| {
            root.extensions_used.iter().any(|n| n == name)
                || root.extensions_required.iter().any(|n| n == name)
        };
        if !named(DRACO) && !named(MESHOPT) {
            return Ok(Self::default());
        }
        let raw: RawRoot = serde_json::from_slice(json_bytes)
            .map_err(|e| GltfError::Parse(format!("JSON: {e}")))?;
        let required = |name: &str| root.extensions_required.iter().any(|n| n == name);

        // Without the extension in `extensionsRequired`, every compressed view and primitive
        // has uncompressed fallback data, which is read as usual.
        let meshopt = required(MESHOPT);
        let compressed_views: Vec<bool> = raw
            .buffer_views
            .iter()
            .map(|v| meshopt && v.extension(MESHOPT).is_some())
            .collect();
        let skipped_buffers = raw
            .buffers
            .iter()
            .map(|b| {
                meshopt
                    && b.extension(MESHOPT)
                        .and_then(|e| e.get("fallback"))
                        .and_then(serde_json::Value::as_bool)
                        == Some(true)
            })
            .collect();

        let mut compression = Self {
            compressed_views,
            skipped_buffers,
            skipped_meshes: Vec::new(),
        };
        let draco = required(DRACO);
        for (index, mesh) in root.meshes.iter().enumerate() {
            let skipped = |extension: &str| SkippedMesh {
                mesh: index,
                name: mesh.name.clone(),
                extension: extension.to_string(),
            };
            let raw_primitives = raw.meshes.get(index).map_or(&[][..], |m| &m.primitives);
            if draco && raw_primitives.iter().any(|p| p.extension(DRACO).is_some()) {
                compression.skipped_meshes.push(skipped(DRACO));
            }
            let uses_compressed_view = mesh.primitives.iter().any(|primitive| {
                let targets = primitive
                    .targets
                    .iter()
                    .flatten()
                    .flat_map(|t| [t.positions, t.normals, t.tangents].into_iter().flatten());
                primitive
                    .attributes
                    .values()
                    .copied()
                    .chain(primitive.indices)
                    .chain(targets)
                    .any(|accessor| {
                        compression
                            .compressed_view_of(root, accessor.value())
                            .is_some()
                    })
            });
            if uses_compressed_view {
                compression.skipped_meshes.push(skipped(MESHOPT));
            }
        }
        Ok(compression)
    }

    /// Whether buffer `index` is a meshopt fallback buffer that is not loaded.
    pub(crate) fn skips_buffer(&self, index: usize) -> bool {
        self.skipped_buffers.get(index).copied().unwrap_or(false)
    }

    /// The first buffer view of accessor `accessor` (its data, or a sparse part) whose data
    /// exists only compressed, with the extension that compressed it.
    pub(crate) fn compressed_view_of(
        &self,
        root: &json::Root,
        accessor: usize,
    ) -> Option<(usize, &'static str)> {
        let accessor = root.accessors.get(accessor)?;
        let sparse = accessor
            .sparse
            .iter()
            .flat_map(|s| [s.indices.buffer_view, s.values.buffer_view]);
        accessor
            .buffer_view
            .into_iter()
            .chain(sparse)
            .map(|view| view.value())
            .find(|&view| self.compressed_views.get(view).copied().unwrap_or(false))
            .map(|view| (view, MESHOPT))
    }

    /// The meshes whose data exists only compressed.
    pub(crate) fn skipped_meshes(&self) -> &[SkippedMesh] {
        &self.skipped_meshes
    }
}
