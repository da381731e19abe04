//! Buffer data (GLB binary chunk, base64 `data:` URIs, files beside a `.gltf`) and a checked
//! accessor reader: every byte range is checked against the data actually present before it
//! is read, so a file that lies about its lengths gives an error, never a panic.

use std::borrow::Cow;
use std::path::Path;

use base64::Engine as _;
use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;

use crate::compression::Compression;
use crate::error::GltfError;

/// Most elements one accessor may hold (16 M): a guard against files that declare counts
/// needing gigabytes.
const MAX_ACCESSOR_ELEMENTS: u64 = 1 << 24;

/// The data of every buffer of a file, each cut to its declared `byteLength`; `None` for a
/// meshopt fallback buffer that is not loaded.
pub(crate) struct Buffers<'a> {
    data: Vec<Option<Cow<'a, [u8]>>>,
}

impl<'a> Buffers<'a> {
    /// Resolves every buffer: buffer 0 without a `uri` is the GLB binary chunk; `data:` URIs
    /// are decoded; other URIs are files relative to `base_dir`. Anything with a scheme
    /// (`http:`, `file:` …) is refused. Meshopt fallback buffers of a file that requires
    /// meshopt are not loaded (they may hold no data); reading one is a
    /// [`GltfError::MissingBuffer`].
    pub(crate) fn load(
        root: &json::Root,
        bin: Option<&'a [u8]>,
        base_dir: Option<&Path>,
        compression: &Compression,
    ) -> Result<Self, GltfError> {
        let mut data = Vec::with_capacity(root.buffers.len());
        for (index, buffer) in root.buffers.iter().enumerate() {
            if compression.skips_buffer(index) {
                data.push(None);
                continue;
            }
            let bytes: Cow<'a, [u8]> = match &buffer.uri {
                None => match (index, bin) {
                    (0, Some(bin)) => Cow::Borrowed(bin),
                    _ => return Err(GltfError::MissingBuffer { index }),
                },
                Some(uri) => Cow::Owned(read_uri(index, uri, base_dir)?),
            };
            let needed = buffer.byte_length.0;
            let got = bytes.len() as u64;
            if got < needed {
                return Err(GltfError::BufferTooShort {
                    buffer: index,
                    needed,
                    got,
                });
            }
            // `needed <= got`, which is a usize.
            let needed = needed as usize;
            data.push(Some(match bytes {
                Cow::Borrowed(b) => Cow::Borrowed(&b[..needed]),
                Cow::Owned(mut v) => {
                    v.truncate(needed);
                    Cow::Owned(v)
                }
            }));
        }
        Ok(Self { data })
    }

    pub(crate) fn get(&self, index: usize) -> Option<&[u8]> {
        self.data.get(index).and_then(|d| d.as_deref())
    }
}

fn shorten(uri: &str) -> String {
    const MAX: usize = 80;
    match uri.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &uri[..at]),
        None => uri.to_string(),
    }
}

fn read_uri(buffer: usize, uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, GltfError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        return decode_data_uri(buffer, rest);
    }
    if has_scheme(uri) || uri.starts_with('/') || uri.starts_with('\\') {
        return Err(GltfError::UnsupportedUri {
            buffer,
            uri: shorten(uri),
        });
    }
    let Some(base_dir) = base_dir else {
        return Err(GltfError::NoBaseDirectory {
            buffer,
            uri: shorten(uri),
        });
    };
    let relative = percent_decode(uri).ok_or_else(|| GltfError::UnsupportedUri {
        buffer,
        uri: shorten(uri),
    })?;
    let path = base_dir.join(relative);
    std::fs::read(&path).map_err(|source| GltfError::Io { path, source })
}

/// Whether a URI starts with `scheme:` (RFC 3986: a letter, then letters, digits, `+-.`).
fn has_scheme(uri: &str) -> bool {
    let Some(colon) = uri.find(':') else {
        return false;
    };
    let scheme = &uri[..colon];
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Decodes `%XX` escapes; `None` if an escape is malformed or the result is not UTF-8.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `rest` is what follows `data:`: `[<mediatype>];base64,<data>`.
fn decode_data_uri(buffer: usize, rest: &str) -> Result<Vec<u8>, GltfError> {
    let Some((header, payload)) = rest.split_once(',') else {
        return Err(GltfError::BadDataUri {
            buffer,
            reason: "no ',' before the data".into(),
        });
    };
    if !header.ends_with(";base64") {
        return Err(GltfError::BadDataUri {
            buffer,
            reason: format!("only base64 data URIs are supported, got 'data:{header},…'"),
        });
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(payload.trim())
        .map_err(|e| GltfError::BadDataUri {
            buffer,
            reason: e.to_string(),
        })
}

/// Which component types an accessor may use for a given purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Components {
    /// 32-bit floats only (key times, translations, scales).
    Float,
    /// Floats, or normalized signed/unsigned bytes and shorts (rotations).
    FloatOrNormalized,
}

fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

fn type_for_dims(dims: usize) -> Option<Type> {
    match dims {
        1 => Some(Type::Scalar),
        2 => Some(Type::Vec2),
        3 => Some(Type::Vec3),
        4 => Some(Type::Vec4),
        _ => None,
    }
}

fn component_size(component: ComponentType) -> usize {
    match component {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

/// Decodes one component at the start of `bytes` (which holds at least its size) as f32,
/// applying the glTF normalisation for integer types.
fn decode_component(component: ComponentType, bytes: &[u8]) -> f32 {
    let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match component {
        ComponentType::F32 => f32::from_le_bytes([b(0), b(1), b(2), b(3)]),
        ComponentType::I8 => (f32::from(b(0) as i8) / 127.0).max(-1.0),
        ComponentType::U8 => f32::from(b(0)) / 255.0,
        ComponentType::I16 => (f32::from(i16::from_le_bytes([b(0), b(1)])) / 32767.0).max(-1.0),
        ComponentType::U16 => f32::from(u16::from_le_bytes([b(0), b(1)])) / 65535.0,
        ComponentType::U32 => u32::from_le_bytes([b(0), b(1), b(2), b(3)]) as f32,
    }
}

/// A checked view of the bytes one buffer view covers.
fn view_bytes<'b>(
    root: &json::Root,
    buffers: &'b Buffers<'_>,
    view_index: usize,
    accessor: usize,
) -> Result<(&'b [u8], Option<usize>), GltfError> {
    let view = root
        .buffer_views
        .get(view_index)
        .ok_or_else(|| GltfError::AccessorOutOfBounds {
            accessor,
            reason: format!("buffer view {view_index} does not exist"),
        })?;
    let buffer = view.buffer.value();
    let data = buffers
        .get(buffer)
        .ok_or(GltfError::MissingBuffer { index: buffer })?;
    let start = view.byte_offset.map_or(0, |o| o.0);
    let end = start.checked_add(view.byte_length.0);
    match end {
        Some(end) if end <= data.len() as u64 => {
            // Both fit in the data's length, a usize.
            let stride = view.byte_stride.map(|s| s.0);
            Ok((&data[start as usize..end as usize], stride))
        }
        _ => Err(GltfError::BufferViewOutOfBounds {
            view: view_index,
            buffer,
            start,
            end: end.unwrap_or(u64::MAX),
            buffer_length: data.len() as u64,
        }),
    }
}

/// Where one run of tightly or strided packed elements lies inside a buffer view.
struct Layout {
    offset: usize,
    stride: usize,
    element_size: usize,
    count: usize,
}

impl Layout {
    /// Checks that every element lies inside `view` (`offset + stride·(count−1) + size`).
    fn check(&self, view_len: usize, accessor: usize) -> Result<(), GltfError> {
        if self.count == 0 {
            return Ok(());
        }
        let end = (self.count - 1)
            .checked_mul(self.stride)
            .and_then(|v| v.checked_add(self.offset))
            .and_then(|v| v.checked_add(self.element_size));
        match end {
            Some(end) if end <= view_len => Ok(()),
            _ => Err(GltfError::AccessorOutOfBounds {
                accessor,
                reason: format!(
                    "{} elements of {} bytes, stride {}, from offset {} do not fit in its {}-byte buffer view",
                    self.count, self.element_size, self.stride, self.offset, view_len
                ),
            }),
        }
    }
}

/// Reads accessor `index` as `dims` floats per element (flat, `count · dims` values).
///
/// Checks the accessor's type (`SCALAR`, `VEC3`, `VEC4` for `dims` 1, 3, 4), its component
/// type against `components`, and every byte range. Sparse accessors are applied on top of
/// their base values (zeros when they have no buffer view).
pub(crate) fn read_floats(
    root: &json::Root,
    buffers: &Buffers<'_>,
    index: usize,
    dims: usize,
    components: Components,
) -> Result<Vec<f32>, GltfError> {
    let accessor = root
        .accessors
        .get(index)
        .ok_or_else(|| GltfError::AccessorOutOfBounds {
            accessor: index,
            reason: "no such accessor".into(),
        })?;
    let unsupported = |reason: String| GltfError::UnsupportedAccessor {
        accessor: index,
        reason,
    };
    let Checked::Valid(ty) = accessor.type_ else {
        return Err(unsupported("unknown type".into()));
    };
    let Checked::Valid(json::accessor::GenericComponentType(component)) = accessor.component_type
    else {
        return Err(unsupported("unknown component type".into()));
    };
    let wanted = type_for_dims(dims).ok_or_else(|| unsupported(format!("{dims} components")))?;
    if ty != wanted {
        return Err(unsupported(format!(
            "expected {}, found {}",
            type_name(wanted),
            type_name(ty)
        )));
    }
    let component_ok = match component {
        ComponentType::F32 => true,
        ComponentType::I8 | ComponentType::U8 | ComponentType::I16 | ComponentType::U16 => {
            components == Components::FloatOrNormalized && accessor.normalized
        }
        ComponentType::U32 => false,
    };
    if !component_ok {
        return Err(unsupported(format!(
            "component type {component:?}{} is not allowed here (expected {})",
            if accessor.normalized {
                " (normalized)"
            } else {
                ""
            },
            match components {
                Components::Float => "FLOAT",
                Components::FloatOrNormalized => "FLOAT or a normalized integer type",
            }
        )));
    }
    let count = accessor.count.0;
    if count > MAX_ACCESSOR_ELEMENTS {
        return Err(unsupported(format!(
            "{count} elements is more than this importer reads ({MAX_ACCESSOR_ELEMENTS})"
        )));
    }
    // Bounded by MAX_ACCESSOR_ELEMENTS.
    let count = count as usize;
    let size = component_size(component);
    let element_size = size * dims;

    let mut values = match accessor.buffer_view {
        None => vec![0.0; count * dims],
        Some(view_index) => {
            let (view, stride) = view_bytes(root, buffers, view_index.value(), index)?;
            let stride = stride.unwrap_or(element_size);
            if stride < element_size {
                return Err(unsupported(format!(
                    "byte stride {stride} is smaller than its {element_size}-byte elements"
                )));
            }
            let offset = usize::try_from(accessor.byte_offset.map_or(0, |o| o.0))
                .map_err(|_| unsupported("byte offset too large".into()))?;
            let layout = Layout {
                offset,
                stride,
                element_size,
                count,
            };
            layout.check(view.len(), index)?;
            read_elements(view, &layout, component, dims)
        }
    };

    if let Some(sparse) = &accessor.sparse {
        apply_sparse(root, buffers, index, sparse, component, dims, &mut values)?;
    }
    Ok(values)
}

/// Reads `layout.count` elements of `dims` components; `layout` has been checked.
fn read_elements(view: &[u8], layout: &Layout, component: ComponentType, dims: usize) -> Vec<f32> {
    let size = component_size(component);
    let mut values = Vec::with_capacity(layout.count * dims);
    let elements = view
        .get(layout.offset..)
        .unwrap_or(&[])
        .chunks(layout.stride.max(1))
        .take(layout.count);
    for element in elements {
        match component {
            ComponentType::F32 => values.extend(
                element[..element.len().min(layout.element_size)]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            ),
            _ => values.extend(
                element
                    .chunks(size)
                    .take(dims)
                    .map(|b| decode_component(component, b)),
            ),
        }
    }
    // `layout` was checked, so every element was complete; pad defensively all the same.
    values.resize(layout.count * dims, 0.0);
    values
}

fn apply_sparse(
    root: &json::Root,
    buffers: &Buffers<'_>,
    index: usize,
    sparse: &json::accessor::sparse::Sparse,
    component: ComponentType,
    dims: usize,
    values: &mut [f32],
) -> Result<(), GltfError> {
    let out_of_bounds = |reason: String| GltfError::AccessorOutOfBounds {
        accessor: index,
        reason,
    };
    let element_count = values.len() / dims.max(1);
    let count = sparse.count.0;
    if count > element_count as u64 {
        return Err(out_of_bounds(format!(
            "sparse count {count} exceeds the accessor's {element_count} elements"
        )));
    }
    let count = count as usize;

    let Checked::Valid(json::accessor::IndexComponentType(index_type)) =
        sparse.indices.component_type
    else {
        return Err(GltfError::UnsupportedAccessor {
            accessor: index,
            reason: "unknown sparse index component type".into(),
        });
    };
    let (indices_view, _) = view_bytes(root, buffers, sparse.indices.buffer_view.value(), index)?;
    let index_size = component_size(index_type);
    let indices_layout = Layout {
        offset: usize::try_from(sparse.indices.byte_offset.0)
            .map_err(|_| out_of_bounds("sparse index offset too large".into()))?,
        stride: index_size,
        element_size: index_size,
        count,
    };
    indices_layout.check(indices_view.len(), index)?;

    let (values_view, _) = view_bytes(root, buffers, sparse.values.buffer_view.value(), index)?;
    let element_size = component_size(component) * dims;
    let values_layout = Layout {
        offset: usize::try_from(sparse.values.byte_offset.0)
            .map_err(|_| out_of_bounds("sparse value offset too large".into()))?,
        stride: element_size,
        element_size,
        count,
    };
    values_layout.check(values_view.len(), index)?;
    let replacements = read_elements(values_view, &values_layout, component, dims);

    for k in 0..count {
        let at = indices_layout.offset + k * index_size;
        let bytes = indices_view.get(at..at + index_size).unwrap_or(&[]);
        let target = match bytes {
            [a] => usize::from(*a),
            [a, b] => usize::from(u16::from_le_bytes([*a, *b])),
            [a, b, c, d] => u32::from_le_bytes([*a, *b, *c, *d]) as usize,
            _ => usize::MAX,
        };
        if target >= element_count {
            return Err(out_of_bounds(format!(
                "sparse index {target} is past its {element_count} elements"
            )));
        }
        let dst = values.get_mut(target * dims..(target + 1) * dims);
        let src = replacements.get(k * dims..(k + 1) * dims);
        if let (Some(dst), Some(src)) = (dst, src) {
            dst.copy_from_slice(src);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_percent_escapes() {
        assert!(has_scheme("http://example.com/a.bin"));
        assert!(has_scheme("file:///tmp/a.bin"));
        assert!(has_scheme("C:/a.bin"));
        assert!(!has_scheme("a.bin"));
        assert!(!has_scheme("dir/a:b.bin"));
        assert_eq!(
            percent_decode("my%20file.bin").as_deref(),
            Some("my file.bin")
        );
        assert_eq!(percent_decode("bad%2"), None);
        assert_eq!(percent_decode("bad%zz"), None);
    }

    #[test]
    fn data_uris_decode_base64_only() {
        assert_eq!(
            decode_data_uri(0, "application/octet-stream;base64,AAEC").unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(
            decode_data_uri(0, "application/octet-stream;base64,AAE").unwrap(),
            vec![0, 1]
        );
        assert!(matches!(
            decode_data_uri(0, "text/plain,hello"),
            Err(GltfError::BadDataUri { .. })
        ));
        assert!(matches!(
            decode_data_uri(0, "application/octet-stream;base64,@@@@"),
            Err(GltfError::BadDataUri { .. })
        ));
        assert!(matches!(
            decode_data_uri(0, "no comma"),
            Err(GltfError::BadDataUri { .. })
        ));
    }

    #[test]
    fn normalized_components_follow_the_spec() {
        assert_eq!(decode_component(ComponentType::I8, &[127]), 1.0);
        assert_eq!(decode_component(ComponentType::I8, &[0x80]), -1.0);
        assert_eq!(decode_component(ComponentType::U8, &[255]), 1.0);
        assert_eq!(decode_component(ComponentType::I16, &[0xff, 0x7f]), 1.0);
        assert_eq!(decode_component(ComponentType::I16, &[0x00, 0x80]), -1.0);
        assert_eq!(decode_component(ComponentType::U16, &[0xff, 0xff]), 1.0);
        assert_eq!(
            decode_component(ComponentType::F32, &1.5f32.to_le_bytes()),
            1.5
        );
    }

    #[test]
    fn layout_check_catches_overflow_and_overrun() {
        let ok = Layout {
            offset: 4,
            stride: 16,
            element_size: 12,
            count: 2,
        };
        assert!(ok.check(32, 0).is_ok());
        assert!(ok.check(31, 0).is_err());
        let huge = Layout {
            offset: usize::MAX - 2,
            stride: usize::MAX,
            element_size: 12,
            count: usize::MAX,
        };
        assert!(huge.check(100, 0).is_err());
    }
}
