//! Malformed and unsupported files give typed errors naming the problem (ANIM-4, ROB-2).

mod common;

use plantigrade::ClipError;
use plantigrade_gltf::{
    export_glb, load_path, load_slice, load_slice_with, GltfError, ImportOptions,
};
use serde_json::{json, Value};

use common::*;

fn sample_glb() -> Vec<u8> {
    let skeleton = synthetic_skeleton();
    export_glb(&skeleton, &synthetic_clips(&skeleton)).unwrap()
}

/// Loads in strict mode, so that one bad clip refuses the file and its error is returned.
fn load_err(bytes: &[u8]) -> GltfError {
    match load_slice_with(bytes, None, ImportOptions::default().with_strict(true)) {
        Ok(asset) => panic!(
            "expected an error, loaded {} joints",
            asset.skeleton.num_joints()
        ),
        Err(e) => {
            // Every error renders a message, and says each detail once.
            assert!(!e.to_string().is_empty());
            assert_says_each_detail_once(&e);
            e
        }
    }
}

fn json_len(glb: &[u8]) -> usize {
    u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize
}

/// Index of accessor used as `field` ("input"/"output") by sampler `s` of animation `a`.
fn sampler_accessor(json: &Value, a: usize, s: usize, field: &str) -> usize {
    json["animations"][a]["samplers"][s][field]
        .as_u64()
        .unwrap() as usize
}

/// Byte offset in the BIN chunk where accessor `index` starts.
fn accessor_offset(json: &Value, index: usize) -> usize {
    let accessor = &json["accessors"][index];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    view["byteOffset"].as_u64().unwrap_or(0) as usize
        + accessor["byteOffset"].as_u64().unwrap_or(0) as usize
}

#[test]
fn truncated_glb_is_refused_at_every_kind_of_cut() {
    let glb = sample_glb();
    let json_end = 20 + json_len(&glb);
    let cuts = [
        4,                       // magic only
        7,                       // inside the version
        11,                      // inside the length
        12,                      // header only
        15,                      // inside the JSON chunk header
        20,                      // JSON chunk header, no JSON
        20 + json_len(&glb) / 2, // inside the JSON
        json_end,                // JSON, no BIN chunk header
        json_end + 5,            // inside the BIN chunk header
        json_end + 8 + 100,      // inside the BIN data
        glb.len() - 1,           // one byte short
    ];
    for cut in cuts {
        match load_err(&glb[..cut]) {
            GltfError::Truncated { declared, actual } => {
                assert_eq!(actual, cut as u64);
                assert!(declared > actual);
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // Header patched to the cut length: now the chunk lengths lie.
    for cut in [20 + json_len(&glb) / 2, json_end + 8 + 100] {
        let mut bytes = glb[..cut].to_vec();
        bytes[8..12].copy_from_slice(&(cut as u32).to_le_bytes());
        assert!(
            matches!(load_err(&bytes), GltfError::Parse(m) if m.contains("chunk")),
            "cut {cut}"
        );
    }
    // BIN chunk cut and both lengths patched: the buffer is shorter than declared.
    let cut = json_end + 8 + 100;
    let mut bytes = glb[..cut].to_vec();
    bytes[8..12].copy_from_slice(&(cut as u32).to_le_bytes());
    bytes[json_end..json_end + 4].copy_from_slice(&100u32.to_le_bytes());
    assert!(matches!(
        load_err(&bytes),
        GltfError::BufferTooShort {
            buffer: 0,
            got: 100,
            ..
        }
    ));
}

#[test]
fn not_gltf_at_all() {
    assert!(matches!(load_err(b""), GltfError::Parse(_)));
    assert!(matches!(load_err(b"hello world"), GltfError::Parse(_)));
    assert!(
        matches!(load_err(b"{\"asset\": {\"version\": \"2.0\""), GltfError::Parse(m) if m.contains("line"))
    );
    let mut wrong_version = sample_glb();
    wrong_version[4] = 1;
    assert!(matches!(load_err(&wrong_version), GltfError::Parse(m) if m.contains("version")));
    // Valid JSON, but not a glTF document (no asset).
    assert!(matches!(load_err(b"{\"nodes\": []}"), GltfError::Parse(_)));
    // Bad JSON inside a GLB.
    let glb = sample_glb();
    let mut bad = glb.clone();
    bad[20] = b'[';
    assert!(matches!(load_err(&bad), GltfError::Parse(_)));
}

#[test]
fn an_empty_document_has_no_skeleton() {
    assert!(matches!(
        load_err(br#"{"asset": {"version": "2.0"}}"#),
        GltfError::NoSkeleton
    ));
    assert!(matches!(
        load_err(br#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}], "nodes": [{}]}"#),
        GltfError::NoSkeleton
    ));
}

#[test]
fn bad_indices_are_named() {
    let glb = sample_glb();
    let bad_output = edit_glb(&glb, |json| {
        json["animations"][0]["samplers"][1]["output"] = json!(9999)
    });
    match load_err(&bad_output) {
        GltfError::Invalid(message) => {
            assert!(
                message.contains("animations[0].samplers[1].output"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    let bad_sampler = edit_glb(&glb, |json| {
        json["animations"][0]["channels"][0]["sampler"] = json!(77)
    });
    assert!(
        matches!(load_err(&bad_sampler), GltfError::Invalid(m) if m.contains("channels[0].sampler"))
    );
    // Channel targets are not checked by the gltf crate's validation: our own error.
    let bad_node = edit_glb(&glb, |json| {
        json["animations"][1]["channels"][2]["target"]["node"] = json!(500)
    });
    match load_err(&bad_node) {
        GltfError::BadChannel {
            animation,
            channel,
            reason,
        } => {
            assert_eq!(animation, "Jump_Start");
            assert_eq!(channel, 2);
            assert!(reason.contains("500"));
        }
        other => panic!("{other:?}"),
    }
    // A mesh primitive's POSITION out of range (gltf-json 1.4's validation would panic).
    let bad_position = edit_glb(&glb, |json| {
        json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(4000)
    });
    assert!(matches!(load_err(&bad_position), GltfError::Invalid(m) if m.contains("POSITION")));
    let bad_child = edit_glb(&glb, |json| json["nodes"][0]["children"] = json!([1, 900]));
    assert!(matches!(load_err(&bad_child), GltfError::Invalid(_)));
}

#[test]
fn accessors_and_views_past_their_data_are_refused() {
    let glb = sample_glb();
    let (json, _) = split_glb(&glb);
    let output = sampler_accessor(&json, 0, 0, "output");

    let too_many = edit_glb(&glb, |json| {
        json["accessors"][output]["count"] = json!(1_000_000)
    });
    assert!(matches!(
        load_err(&too_many),
        GltfError::AccessorOutOfBounds { accessor, .. } if accessor == output
    ));
    let far_offset = edit_glb(&glb, |json| {
        json["accessors"][output]["byteOffset"] = json!(4_000_000_000u64)
    });
    assert!(matches!(
        load_err(&far_offset),
        GltfError::AccessorOutOfBounds { accessor, .. } if accessor == output
    ));
    let huge_count = edit_glb(&glb, |json| {
        json["accessors"][output]["count"] = json!(u64::MAX / 2)
    });
    assert!(
        matches!(load_err(&huge_count), GltfError::UnsupportedAccessor { accessor, .. } if accessor == output)
    );

    let view = json["accessors"][output]["bufferView"].as_u64().unwrap() as usize;
    let long_view = edit_glb(&glb, |json| {
        json["bufferViews"][view]["byteLength"] = json!(10_000_000)
    });
    assert!(matches!(
        load_err(&long_view),
        GltfError::BufferViewOutOfBounds { view: v, buffer: 0, .. } if v == view
    ));
    let overflowing_view = edit_glb(&glb, |json| {
        json["bufferViews"][view]["byteOffset"] = json!(u64::MAX - 2);
        json["bufferViews"][view]["byteLength"] = json!(16);
    });
    assert!(matches!(
        load_err(&overflowing_view),
        GltfError::BufferViewOutOfBounds { .. }
    ));
    let tiny_stride = edit_glb(&glb, |json| {
        json["bufferViews"][view]["byteStride"] = json!(4)
    });
    let err = load_err(&tiny_stride);
    assert!(
        matches!(err, GltfError::UnsupportedAccessor { accessor, .. } if accessor == output),
        "{err:?}"
    );
}

#[test]
fn buffer_shorter_than_declared() {
    let glb = sample_glb();
    let (json, bin) = split_glb(&glb);
    let declared = json["buffers"][0]["byteLength"].as_u64().unwrap();
    let longer = edit_glb(&glb, |json| {
        json["buffers"][0]["byteLength"] = json!(declared + 64)
    });
    match load_err(&longer) {
        GltfError::BufferTooShort {
            buffer,
            needed,
            got,
        } => {
            assert_eq!((buffer, needed, got), (0, declared + 64, bin.len() as u64));
        }
        other => panic!("{other:?}"),
    }
    // No BIN chunk at all: buffer 0 has no data.
    assert!(matches!(
        load_err(&make_glb(&json, None)),
        GltfError::MissingBuffer { index: 0 }
    ));
    // A second buffer without uri: only the first one may be the GLB chunk.
    let second = edit_glb(&glb, |json| {
        json["buffers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"byteLength": 4}))
    });
    assert!(matches!(
        load_err(&second),
        GltfError::MissingBuffer { index: 1 }
    ));
}

#[test]
fn unsupported_required_extensions_are_named() {
    let glb = sample_glb();
    for name in ["KHR_animation_pointer", "KHR_some_future_extension"] {
        let edited = edit_glb(&glb, |json| {
            json["extensionsUsed"] = json!([name]);
            json["extensionsRequired"] = json!([name]);
        });
        assert!(
            matches!(load_err(&edited), GltfError::UnsupportedExtension { name: n } if n == name),
            "{name}"
        );
    }
    // Mesh compression does not stop the import (tests/partial_import.rs compresses data);
    // required but unused, nothing is skipped.
    for name in ["EXT_meshopt_compression", "KHR_draco_mesh_compression"] {
        let edited = edit_glb(&glb, |json| {
            json["extensionsUsed"] = json!([name]);
            json["extensionsRequired"] = json!([name]);
        });
        let asset = load_slice(&edited, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(asset.clips.len(), 4, "{name}");
        assert!(asset.skipped_meshes.is_empty(), "{name}");
    }
    // Extensions about materials or textures do not stop the import.
    let fine = edit_glb(&glb, |json| {
        json["extensionsUsed"] = json!(["KHR_materials_unlit", "KHR_texture_transform"]);
        json["extensionsRequired"] = json!(["KHR_materials_unlit", "KHR_texture_transform"]);
    });
    assert!(load_slice(&fine, None).is_ok());
}

#[test]
fn only_data_and_relative_uris_are_followed() {
    let glb = sample_glb();
    let (json, _) = split_glb(&glb);
    for uri in [
        "http://example.com/rig.bin",
        "https://example.com/rig.bin",
        "file:///etc/passwd",
        "/etc/passwd",
        "C:/rig.bin",
    ] {
        let mut json = json.clone();
        json["buffers"][0]["uri"] = json!(uri);
        let gltf = serde_json::to_vec(&json).unwrap();
        let dir = std::env::temp_dir();
        match load_slice(&gltf, Some(&dir)) {
            Err(GltfError::UnsupportedUri { buffer: 0, uri: u }) => assert_eq!(u, uri),
            other => panic!("{uri}: {other:?}"),
        }
    }
    let mut not_base64 = json.clone();
    not_base64["buffers"][0]["uri"] = json!("data:text/plain,hello");
    assert!(matches!(
        load_err(&serde_json::to_vec(&not_base64).unwrap()),
        GltfError::BadDataUri { buffer: 0, .. }
    ));
    let mut short = json;
    short["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,AAAA");
    assert!(matches!(
        load_err(&serde_json::to_vec(&short).unwrap()),
        GltfError::BufferTooShort {
            buffer: 0,
            got: 3,
            ..
        }
    ));
    // A file that does not exist.
    assert!(matches!(
        load_path(std::path::Path::new("/nonexistent/plantigrade/rig.glb")),
        Err(GltfError::Io { .. })
    ));
}

#[test]
fn bad_keys_name_the_animation_channel_and_accessor() {
    let glb = sample_glb();
    let (json, mut bin) = split_glb(&glb);
    // Walk clip, channel 0: make its key times decrease.
    let input = sampler_accessor(&json, 0, 0, "input");
    let at = accessor_offset(&json, input);
    bin[at + 4..at + 8].copy_from_slice(&0.0f32.to_le_bytes());
    match load_err(&make_glb(&json, Some(&bin))) {
        GltfError::BadAnimation {
            animation,
            channel,
            accessor,
            source,
        } => {
            assert_eq!(animation, "Rig|Walk_F");
            assert_eq!(channel, 0);
            assert_eq!(accessor, input);
            assert!(matches!(
                source,
                ClipError::KeyTimesNotIncreasing { index: 1, .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    // A NaN value: the output accessor is named.
    let (json, mut bin) = split_glb(&glb);
    let output = sampler_accessor(&json, 0, 0, "output");
    let at = accessor_offset(&json, output);
    bin[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        load_err(&make_glb(&json, Some(&bin))),
        GltfError::BadAnimation { accessor, source: ClipError::NonFiniteValue { index: 0 }, .. } if accessor == output
    ));
    // Fewer values than keys.
    let output = sampler_accessor(&json, 0, 1, "output");
    let fewer = edit_glb(&glb, |json| {
        let count = json["accessors"][output]["count"].as_u64().unwrap();
        json["accessors"][output]["count"] = json!(count - 1);
    });
    assert!(matches!(
        load_err(&fewer),
        GltfError::BadAnimation { accessor, source: ClipError::ValueCount { .. }, .. } if accessor == output
    ));
}

/// The channel index and output accessor of the first rotation channel of animation 0.
fn first_rotation_channel(json: &Value) -> (usize, usize) {
    let channels = json["animations"][0]["channels"].as_array().unwrap();
    let channel = channels
        .iter()
        .position(|c| c["target"]["path"] == "rotation")
        .unwrap();
    let sampler = channels[channel]["sampler"].as_u64().unwrap() as usize;
    (channel, sampler_accessor(json, 0, sampler, "output"))
}

#[test]
fn accessors_of_the_wrong_kind_are_refused() {
    let glb = sample_glb();
    let (json, mut bin) = split_glb(&glb);
    let (channel, rotation_output) = first_rotation_channel(&json);
    let as_vec3 = edit_glb(&glb, |json| {
        json["accessors"][rotation_output]["type"] = json!("VEC3")
    });
    match load_err(&as_vec3) {
        GltfError::UnsupportedAccessor { accessor, reason } => {
            assert_eq!(accessor, rotation_output);
            assert!(
                reason.contains("VEC4") && reason.contains("VEC3"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    let input = sampler_accessor(&json, 0, 0, "input");
    let int_times = edit_glb(&glb, |json| {
        json["accessors"][input]["componentType"] = json!(5125)
    });
    assert!(
        matches!(load_err(&int_times), GltfError::UnsupportedAccessor { accessor, .. } if accessor == input)
    );
    let unnormalized = edit_glb(&glb, |json| {
        json["accessors"][rotation_output]["componentType"] = json!(5122)
    });
    assert!(matches!(
        load_err(&unnormalized),
        GltfError::UnsupportedAccessor { .. }
    ));
    // A zero-length rotation key.
    let at = accessor_offset(&json, rotation_output);
    bin[at..at + 16].fill(0);
    match load_err(&make_glb(&json, Some(&bin))) {
        GltfError::BadChannel {
            channel: c, reason, ..
        } => {
            assert_eq!(c, channel);
            assert!(reason.contains("zero length"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sparse_accessors_are_applied_and_checked() {
    let glb = sample_glb();
    let (mut json, mut bin) = split_glb(&glb);
    let (channel, rotation_output) = first_rotation_channel(&json);
    // Sparse override of key 1 with the identity rotation, indices and values appended to BIN.
    let (indices_view, _) = add_sparse_override(&mut json, &mut bin, rotation_output);
    let asset = load_slice(&make_glb(&json, Some(&bin)), None).unwrap();
    let joint = json["animations"][0]["channels"][channel]["target"]["node"]
        .as_u64()
        .unwrap() as usize;
    let track = asset.clips[0].joint_tracks()[joint]
        .rotation
        .as_ref()
        .unwrap();
    assert_eq!(track.values()[1], glam::Quat::IDENTITY);

    // An index past the accessor's elements.
    let indices_pos = json["bufferViews"][indices_view]["byteOffset"]
        .as_u64()
        .unwrap() as usize;
    bin[indices_pos..indices_pos + 2].copy_from_slice(&500u16.to_le_bytes());
    assert!(matches!(
        load_err(&make_glb(&json, Some(&bin))),
        GltfError::AccessorOutOfBounds { accessor, .. } if accessor == rotation_output
    ));
    // More sparse entries than elements.
    json["accessors"][rotation_output]["sparse"]["count"] = json!(1000);
    assert!(matches!(
        load_err(&make_glb(&json, Some(&bin))),
        GltfError::AccessorOutOfBounds { .. }
    ));
}

#[test]
fn broken_hierarchies_and_transforms_are_refused() {
    let glb = sample_glb();
    let cycle = edit_glb(&glb, |json| json["nodes"][4]["children"] = json!([0]));
    assert!(matches!(load_err(&cycle), GltfError::BadHierarchy { .. }));
    let own_child = edit_glb(&glb, |json| json["nodes"][4]["children"] = json!([4]));
    assert!(matches!(
        load_err(&own_child),
        GltfError::BadHierarchy { node: 4, .. }
    ));
    let two_parents = edit_glb(&glb, |json| json["nodes"][4]["children"] = json!([2]));
    assert!(matches!(
        load_err(&two_parents),
        GltfError::BadHierarchy { node: 2, .. }
    ));
    let zero_rotation = edit_glb(&glb, |json| {
        json["nodes"][2]["rotation"] = json!([0.0, 0.0, 0.0, 0.0])
    });
    assert!(matches!(
        load_err(&zero_rotation),
        GltfError::UnsupportedNodeTransform { node: 2, .. }
    ));
    let projective = edit_glb(&glb, |json| {
        let node = json["nodes"][3].as_object_mut().unwrap();
        node.remove("translation");
        node.remove("rotation");
        let mut m = glam::Mat4::IDENTITY.to_cols_array();
        m[11] = 0.5; // third column, last row
        node.insert("matrix".into(), json!(m));
    });
    assert!(matches!(
        load_err(&projective),
        GltfError::UnsupportedNodeTransform { node: 3, .. }
    ));
    let infinite = edit_glb(&glb, |json| {
        json["nodes"][2]["translation"] = json!([1e39, 0.0, 0.0])
    });
    assert!(matches!(load_err(&infinite), GltfError::Skeleton(_)));
}

#[test]
fn bad_metadata_is_reported() {
    let glb = sample_glb();
    let cases = [
        json!({"plantigrade": {"looping": "yes"}}),
        json!({"plantigrade": {"duration_s": -1.0}}),
        json!({"plantigrade": {"events": [{"name": "late", "time_s": 99.0}]}}),
        json!({"plantigrade": {"curves": [{"name": "c", "interpolation": "BEZIER", "times_s": [0.0], "values": [1.0]}]}}),
        json!({"plantigrade": {"curves": [{"name": "c", "times_s": [0.0, 1.0], "values": [1.0]}]}}),
        json!({"plantigrade": {"authored_velocity_model_m_s": [1e300, 0.0, 0.0]}}),
    ];
    for extras in cases {
        let edited = edit_glb(&glb, |json| {
            json["animations"][0]["extras"] = extras.clone()
        });
        match load_err(&edited) {
            GltfError::BadMetadata { animation, .. } => assert_eq!(animation, "Rig|Walk_F"),
            other => panic!("{extras}: {other:?}"),
        }
    }
    // Other keys, or extras that are not an object, are ignored.
    for extras in [json!({"author": "me"}), json!(42)] {
        let edited = edit_glb(&glb, |json| {
            json["animations"][0]["extras"] = extras.clone()
        });
        assert!(load_slice(&edited, None).is_ok(), "{extras}");
    }
}

#[test]
fn errors_say_each_detail_once_through_their_source_chain() {
    let glb = sample_glb();
    // Wrapped sources: a ClipError, a SkeletonError, an io::Error.
    let (json, mut bin) = split_glb(&glb);
    let input = sampler_accessor(&json, 0, 0, "input");
    let at = accessor_offset(&json, input);
    bin[at + 4..at + 8].copy_from_slice(&0.0f32.to_le_bytes());
    let keys = load_err(&make_glb(&json, Some(&bin)));
    assert!(matches!(keys, GltfError::BadAnimation { .. }));
    let rendered = error_chain(&keys);
    assert_eq!(
        rendered.matches("key times must increase").count(),
        1,
        "{rendered}"
    );
    assert!(
        rendered.starts_with("animation 'Rig|Walk_F' channel 0: accessor"),
        "{rendered}"
    );

    let infinite = edit_glb(&glb, |json| {
        json["nodes"][2]["translation"] = json!([1e39, 0.0, 0.0])
    });
    let skeleton = load_err(&infinite);
    assert!(error_chain(&skeleton).contains("non-finite rest transform"));

    let io = load_path(std::path::Path::new("/nonexistent/plantigrade/rig.glb")).unwrap_err();
    assert_says_each_detail_once(&io);
    assert!(error_chain(&io).starts_with("cannot access '/nonexistent/plantigrade/rig.glb': "));

    // Details built from nested reasons: an event outside its clip names the event once.
    let late =
        edit_glb(
            &glb,
            |json| {
                json["animations"][0]["extras"] =
                    json!({"plantigrade": {"events": [{"name": "late", "time_s": 99.0}]}})
            },
        );
    let metadata = load_err(&late);
    assert_eq!(error_chain(&metadata).matches("'late'").count(), 1);
}
