//! The file container: a `.glb` (header, JSON chunk, optional BIN chunk) or a `.gltf` (JSON
//! text), split without trusting any declared length, then the JSON parsed and validated.

use gltf::json;

use crate::compression::{self, Compression};
use crate::error::GltfError;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const GLB_HEADER_LEN: usize = 12;
const CHUNK_HEADER_LEN: usize = 8;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The JSON text and, for a `.glb`, the binary chunk that stands for buffer 0.
pub(crate) struct Container<'a> {
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

/// Splits `bytes` into JSON and BIN chunk. A file starting with `glTF` is read as GLB;
/// anything else as JSON text (an UTF-8 byte order mark is skipped).
pub(crate) fn split(bytes: &[u8]) -> Result<Container<'_>, GltfError> {
    if bytes.starts_with(GLB_MAGIC) {
        return split_glb(bytes);
    }
    let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    Ok(Container { json, bin: None })
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(word))
}

fn split_glb(bytes: &[u8]) -> Result<Container<'_>, GltfError> {
    if bytes.len() < GLB_HEADER_LEN {
        return Err(GltfError::Truncated {
            declared: GLB_HEADER_LEN as u64,
            actual: bytes.len() as u64,
        });
    }
    let version = read_u32(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(GltfError::Parse(format!(
            "GLB version {version} is not supported (only version 2)"
        )));
    }
    let declared = read_u32(bytes, 8).unwrap_or(0) as usize;
    if declared > bytes.len() {
        return Err(GltfError::Truncated {
            declared: declared as u64,
            actual: bytes.len() as u64,
        });
    }
    if declared < GLB_HEADER_LEN + CHUNK_HEADER_LEN {
        return Err(GltfError::Parse(format!(
            "GLB header declares {declared} bytes, too short for a JSON chunk"
        )));
    }
    // Bytes past the declared length are ignored.
    let glb = &bytes[..declared];

    let mut json = None;
    let mut bin = None;
    let mut at = GLB_HEADER_LEN;
    let mut chunk = 0usize;
    while at + CHUNK_HEADER_LEN <= glb.len() {
        let length = read_u32(glb, at).unwrap_or(0) as usize;
        let kind = read_u32(glb, at + 4).unwrap_or(0);
        let start = at + CHUNK_HEADER_LEN;
        let end = start
            .checked_add(length)
            .filter(|&end| end <= glb.len())
            .ok_or_else(|| {
                GltfError::Parse(format!(
                    "GLB chunk {chunk} declares {length} bytes but only {} remain",
                    glb.len() - start
                ))
            })?;
        let data = &glb[start..end];
        match (chunk, kind) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, _) => {
                return Err(GltfError::Parse(format!(
                    "the first GLB chunk must be JSON, found type {kind:#010x}"
                )))
            }
            (_, CHUNK_BIN) if bin.is_none() => bin = Some(data),
            // Unknown chunk types (and further BIN chunks) are skipped, as the spec asks.
            _ => {}
        }
        at = end;
        chunk += 1;
    }
    let json = json.ok_or_else(|| GltfError::Parse("GLB has no JSON chunk".into()))?;
    Ok(Container { json, bin })
}

/// Extensions that may appear in `extensionsRequired` without changing how nodes, skins,
/// animations or buffers are read (they concern materials, textures, lights, mesh data).
/// The mesh compression extensions are among them: what they compress is found by
/// [`Compression::read`], and animation data compressed with meshopt is refused where it is
/// needed.
fn extension_is_harmless(name: &str) -> bool {
    const PREFIXES: [&str; 3] = ["KHR_materials_", "KHR_texture_", "EXT_texture_"];
    const NAMES: [&str; 6] = [
        "KHR_lights_punctual",
        "KHR_mesh_quantization",
        "MSFT_texture_dds",
        "EXT_mesh_gpu_instancing",
        compression::DRACO,
        compression::MESHOPT,
    ];
    PREFIXES.iter().any(|p| name.starts_with(p)) || NAMES.contains(&name)
}

/// Parses and validates the glTF JSON. Required extensions are checked first (a typed
/// error), then the document is validated with the `gltf` crate (indices in range, enums
/// known). Also returns what the mesh compression extensions compress.
pub(crate) fn parse_json(json_bytes: &[u8]) -> Result<(json::Root, Compression), GltfError> {
    let mut root: json::Root =
        serde_json::from_slice(json_bytes).map_err(|e| GltfError::Parse(format!("JSON: {e}")))?;
    if let Some(name) = root
        .extensions_required
        .iter()
        .find(|name| !extension_is_harmless(name))
    {
        return Err(GltfError::UnsupportedExtension { name: name.clone() });
    }
    check_before_validation(&root)?;
    let compression = Compression::read(&root, json_bytes)?;
    // The gltf crate refuses every required extension it does not implement itself, and
    // those left here do not concern what is imported.
    root.extensions_required.clear();
    validate(&root)?;
    Ok((root, compression))
}

/// The `gltf` crate's validation (indices in range, enums known, required fields present),
/// except that an accessor may have neither `bufferView` nor `sparse`: the spec reads it as
/// zeros, and Draco-compressed primitives use such accessors (`gltf-json` 1.4 refuses them).
fn validate(root: &json::Root) -> Result<(), GltfError> {
    use json::validation::{Error, Validate};
    let mut errors = Vec::new();
    root.validate(root, json::Path::new, &mut |path, error| {
        let path = path().to_string();
        let accessor_without_data = matches!(error, Error::Missing)
            && path.starts_with("accessors[")
            && path.ends_with("].bufferView");
        if !accessor_without_data {
            errors.push((path, error));
        }
    });
    if errors.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = errors
        .iter()
        .take(8)
        .map(|(path, error)| format!("{path}: {error}"))
        .collect();
    let more = errors.len().saturating_sub(shown.len());
    let mut message = shown.join("; ");
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    Err(GltfError::Invalid(message))
}

/// Checks that `gltf-json` 1.4's validation would index without a bounds check: a mesh
/// primitive's `POSITION` accessor (it panics on an index past the end).
fn check_before_validation(root: &json::Root) -> Result<(), GltfError> {
    let position = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(index) = primitive.attributes.get(&position) {
                if index.value() >= root.accessors.len() {
                    return Err(GltfError::Invalid(format!(
                        "meshes[{m}].primitives[{p}].attributes.POSITION: Index out of bounds"
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        let bin_len = bin.map_or(0, |b| 8 + b.len());
        let total = 12 + 8 + json.len() + bin_len;
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        out.extend_from_slice(json);
        if let Some(bin) = bin {
            out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
            out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
            out.extend_from_slice(bin);
        }
        out
    }

    #[test]
    fn splits_glb_and_skips_unknown_chunks() {
        let mut bytes = glb(b"{}  ", Some(b"abcd"));
        // An unknown chunk after BIN.
        bytes.extend_from_slice(&4u32.to_le_bytes());
        bytes.extend_from_slice(b"XTRA");
        bytes.extend_from_slice(b"wxyz");
        let total = bytes.len() as u32;
        bytes[8..12].copy_from_slice(&total.to_le_bytes());
        let c = split(&bytes).unwrap();
        assert_eq!(c.json, b"{}  ");
        assert_eq!(c.bin, Some(&b"abcd"[..]));
    }

    #[test]
    fn truncated_and_malformed_glb_are_refused() {
        let bytes = glb(b"{}  ", Some(b"abcd"));
        for cut in 0..bytes.len() {
            assert!(split(&bytes[..cut]).is_err() || cut < 4, "cut at {cut}");
        }
        let mut bad_version = bytes.clone();
        bad_version[4] = 3;
        assert!(matches!(split(&bad_version), Err(GltfError::Parse(_))));
        let mut long_chunk = bytes.clone();
        long_chunk[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(split(&long_chunk), Err(GltfError::Parse(_))));
        let mut tiny_length = bytes;
        tiny_length[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(matches!(split(&tiny_length), Err(GltfError::Parse(_))));
    }

    #[test]
    fn required_extensions_are_checked() {
        let json = br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_animation_pointer"]}"#;
        assert!(matches!(
            parse_json(json),
            Err(GltfError::UnsupportedExtension { name }) if name == "KHR_animation_pointer"
        ));
        for fine in [
            &br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_materials_unlit"]}"#[..],
            br#"{"asset":{"version":"2.0"},"extensionsRequired":["EXT_meshopt_compression"]}"#,
            br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_draco_mesh_compression"]}"#,
        ] {
            assert!(parse_json(fine).is_ok());
        }
    }

    #[test]
    fn position_index_out_of_range_is_an_error_not_a_panic() {
        let json = br#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":7}}]}]}"#;
        assert!(matches!(parse_json(json), Err(GltfError::Invalid(_))));
    }
}
