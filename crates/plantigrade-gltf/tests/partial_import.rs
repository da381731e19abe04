//! What loads when part of a file cannot: compressed meshes (Draco, meshopt) are skipped and
//! listed, compressed animation data is a clear error, and one bad clip is listed while the
//! others load (unless strict).

mod common;

use plantigrade::ClipError;
use plantigrade_gltf::{load_slice, load_slice_with, GltfError, ImportOptions, SkippedMesh};
use serde_json::{json, Value};

use common::*;

const GOOD_TIMES: [f32; 3] = [0.0, 0.5, 1.0];
const DECREASING_TIMES: [f32; 3] = [0.0, 1.0, 0.5];

fn strict() -> ImportOptions {
    ImportOptions::default().with_strict(true)
}

fn clip_names(asset: &plantigrade_gltf::ImportedAsset) -> Vec<&str> {
    asset.clips.iter().map(|c| c.name()).collect()
}

/// The accessor used as `field` ("input"/"output") by the first sampler of animation `a`.
fn sampler_accessor(json: &Value, a: usize, field: &str) -> usize {
    json["animations"][a]["samplers"][0][field]
        .as_u64()
        .unwrap() as usize
}

fn position_accessor(json: &Value) -> usize {
    json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize
}

#[test]
fn the_tiny_rig_loads_whole() {
    let (json, bin) = tiny_rig(GOOD_TIMES);
    let asset = load_slice(&make_glb(&json, Some(&bin)), None).unwrap();
    assert_eq!(asset.skeleton.names(), ["root", "leg"]);
    assert_eq!(clip_names(&asset), ["Good", "Other"]);
    assert!(asset.skipped_clips.is_empty());
    assert!(asset.skipped_meshes.is_empty());
    // The scale channel on the mesh node.
    assert_eq!(asset.skipped_channels.len(), 1);
}

#[test]
fn draco_compressed_mesh_is_skipped_and_reported() {
    let (mut json, mut bin) = tiny_rig(GOOD_TIMES);
    // As a Draco encoder writes it: the primitive's accessors have no buffer view, the
    // compressed bytes are in a view named by the extension.
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let draco_at = bin.len();
    bin.extend_from_slice(b"DRACO\x02\x02\x01\x01\x00garbage");
    json["buffers"][0]["byteLength"] = json!(bin.len());
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": draco_at, "byteLength": 17}));
    let draco_view = views.len() - 1;
    let position = position_accessor(&json);
    let indices = json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize;
    for accessor in [position, indices] {
        json["accessors"][accessor]
            .as_object_mut()
            .unwrap()
            .remove("bufferView");
    }
    json["meshes"][0]["primitives"][0]["extensions"] = json!({
        "KHR_draco_mesh_compression": {"bufferView": draco_view, "attributes": {"POSITION": 0}}
    });
    use_extension(&mut json, "KHR_draco_mesh_compression", true);

    for options in [ImportOptions::default(), strict()] {
        let asset = load_slice_with(&make_glb(&json, Some(&bin)), None, options).unwrap();
        assert_eq!(asset.skeleton.names(), ["root", "leg"]);
        assert_eq!(clip_names(&asset), ["Good", "Other"]);
        assert!(asset.skipped_clips.is_empty());
        assert_eq!(
            asset.skipped_meshes,
            [SkippedMesh {
                mesh: 0,
                name: Some("body".into()),
                extension: "KHR_draco_mesh_compression".into(),
            }]
        );
    }
}

#[test]
fn meshopt_on_a_view_only_a_mesh_uses_loads_and_the_mesh_is_reported() {
    let (mut json, bin) = tiny_rig(GOOD_TIMES);
    let view = view_of(&json, position_accessor(&json));
    meshopt_compress_view(&mut json, view);
    let asset = load_slice_with(&make_glb(&json, Some(&bin)), None, strict()).unwrap();
    assert_eq!(clip_names(&asset), ["Good", "Other"]);
    assert_eq!(
        asset.skipped_meshes,
        [SkippedMesh {
            mesh: 0,
            name: Some("body".into()),
            extension: "EXT_meshopt_compression".into(),
        }]
    );

    // Used but not required: every view keeps uncompressed fallback data, read as usual.
    let (mut json, bin) = tiny_rig(GOOD_TIMES);
    let input = sampler_accessor(&json, 0, "input");
    let view = view_of(&json, input);
    json["bufferViews"][view]["extensions"] = json!({"EXT_meshopt_compression": {
        "buffer": 0, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "ATTRIBUTES"
    }});
    use_extension(&mut json, "EXT_meshopt_compression", false);
    let asset = load_slice_with(&make_glb(&json, Some(&bin)), None, strict()).unwrap();
    assert_eq!(clip_names(&asset), ["Good", "Other"]);
    assert!(asset.skipped_meshes.is_empty());
}

#[test]
fn meshopt_on_a_view_an_animation_sampler_uses_is_a_clear_error() {
    for field in ["input", "output"] {
        let (mut json, bin) = tiny_rig(GOOD_TIMES);
        // The mesh is compressed too, as gltfpack would do.
        let mesh_view = view_of(&json, position_accessor(&json));
        meshopt_compress_view(&mut json, mesh_view);
        let accessor = sampler_accessor(&json, 1, field);
        let view = view_of(&json, accessor);
        meshopt_compress_view(&mut json, view);
        let glb = make_glb(&json, Some(&bin));
        // Not one bad clip but an unsupported file: refused in either mode.
        for options in [ImportOptions::default(), strict()] {
            let error = load_slice_with(&glb, None, options).unwrap_err();
            match &error {
                GltfError::CompressedAnimationData {
                    animation,
                    channel,
                    accessor: a,
                    view: v,
                    extension,
                } => {
                    assert_eq!(animation, "Other");
                    assert_eq!(*channel, 0);
                    assert_eq!((*a, *v), (accessor, view));
                    assert_eq!(extension, "EXT_meshopt_compression");
                }
                other => panic!("{field}: {other:?}"),
            }
            let message = error_chain(&error);
            for part in [
                "EXT_meshopt_compression",
                "animation 'Other' channel 0",
                &format!("accessor {accessor}"),
                &format!("buffer view {view}"),
            ] {
                assert!(message.contains(part), "{message}");
            }
            assert_says_each_detail_once(&error);
        }
    }
}

#[test]
fn meshopt_on_a_sparse_view_of_an_animation_is_an_error() {
    let (mut json, mut bin) = tiny_rig(GOOD_TIMES);
    let output = sampler_accessor(&json, 0, "output");
    let (_, vv) = add_sparse_override(&mut json, &mut bin, output);
    // Uncompressed, the sparse override applies.
    let asset = load_slice(&make_glb(&json, Some(&bin)), None).unwrap();
    assert_eq!(clip_names(&asset), ["Good", "Other"]);
    meshopt_compress_view(&mut json, vv);
    assert!(matches!(
        load_slice(&make_glb(&json, Some(&bin)), None),
        Err(GltfError::CompressedAnimationData { view, accessor, .. }) if view == vv && accessor == output
    ));
}

#[test]
fn one_bad_clip_is_listed_and_the_others_load() {
    let (json, bin) = tiny_rig(DECREASING_TIMES);
    let glb = make_glb(&json, Some(&bin));
    let input = sampler_accessor(&json, 1, "input");

    let asset = load_slice(&glb, None).unwrap();
    assert_eq!(asset.skeleton.names(), ["root", "leg"]);
    assert_eq!(clip_names(&asset), ["Good"]);
    assert_eq!(asset.skipped_clips.len(), 1);
    let skipped = &asset.skipped_clips[0];
    assert_eq!((skipped.animation, skipped.name.as_str()), (1, "Other"));
    match &*skipped.error {
        GltfError::BadAnimation {
            animation,
            channel,
            accessor,
            source,
        } => {
            assert_eq!(
                (animation.as_str(), *channel, *accessor),
                ("Other", 0, input)
            );
            assert!(matches!(
                source,
                ClipError::KeyTimesNotIncreasing { index: 2, .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    let message = error_chain(&*skipped.error);
    assert!(message.contains("key times must increase"), "{message}");
    assert_says_each_detail_once(&*skipped.error);
    // The skipped clip's skipped channel (scale on the mesh node) is not listed.
    assert!(asset.skipped_channels.is_empty());

    // Strict: the whole file is refused with the clip's error.
    match load_slice_with(&glb, None, strict()) {
        Err(GltfError::BadAnimation {
            animation, source, ..
        }) => {
            assert_eq!(animation, "Other");
            assert!(matches!(source, ClipError::KeyTimesNotIncreasing { .. }));
        }
        other => panic!("{other:?}"),
    }

    // Every clip bad: the skeleton still loads, with no clips.
    let (mut json, bin) = tiny_rig(DECREASING_TIMES);
    json["animations"][0]["samplers"][0]["input"] = json!(input);
    let asset = load_slice(&make_glb(&json, Some(&bin)), None).unwrap();
    assert_eq!(asset.skeleton.num_joints(), 2);
    assert!(asset.clips.is_empty());
    let names: Vec<&str> = asset
        .skipped_clips
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["Good", "Other"]);
}

#[test]
fn other_kinds_of_bad_clip_are_listed_too() {
    type Edit = (&'static str, fn(&mut Value));
    let edits: [Edit; 3] = [
        ("bad metadata", |json| {
            json["animations"][1]["extras"] = json!({"plantigrade": {"looping": "yes"}})
        }),
        ("missing target node", |json| {
            json["animations"][1]["channels"][0]["target"]["node"] = json!(99)
        }),
        ("rotation stored as VEC3", |json| {
            json["animations"][1]["channels"][0]["target"]["path"] = json!("rotation")
        }),
    ];
    for (what, edit) in edits {
        let (mut json, bin) = tiny_rig(GOOD_TIMES);
        edit(&mut json);
        let glb = make_glb(&json, Some(&bin));
        let asset = load_slice(&glb, None).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert_eq!(clip_names(&asset), ["Good"], "{what}");
        assert_eq!(asset.skipped_clips.len(), 1, "{what}");
        assert_eq!(asset.skipped_clips[0].name, "Other", "{what}");
        assert_says_each_detail_once(&*asset.skipped_clips[0].error);
        assert!(load_slice_with(&glb, None, strict()).is_err(), "{what}");
    }
}
