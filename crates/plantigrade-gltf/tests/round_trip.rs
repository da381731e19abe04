//! Export then import gives back the same skeleton and clips (mannequin and a synthetic rig
//! using every feature), as `.glb`, as `.gltf` with a base64 buffer and as `.gltf` with an
//! external buffer file. Also: armature baking, shared skins, skins listed child-first.

mod common;

use std::path::PathBuf;

use base64::Engine as _;
use glam::{Affine3A, Quat, Vec3};
use plantigrade::foot_contacts::ContactSource;
use plantigrade::mannequin::Mannequin;
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::{Clip, Skeleton};
use plantigrade_gltf::{
    export_glb, export_glb_to_path, load_path, load_path_with, load_slice, GltfError, ImportOptions,
};
use serde_json::{json, Value};

use common::*;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("plantigrade-gltf-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn synthetic_rig_round_trips_exactly() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let asset = load_slice(&glb, None).unwrap();
    assert_same(&skeleton, &clips, &asset);
    assert!(asset.skipped_channels.is_empty());
    assert_eq!(
        asset.joint_nodes,
        (0..skeleton.num_joints()).collect::<Vec<_>>()
    );
}

#[test]
fn mannequin_round_trips_exactly() {
    let mannequin = Mannequin::new();
    let path = scratch_dir("mannequin").join("mannequin.glb");
    export_glb_to_path(&mannequin.skeleton, &mannequin.clips, &path).unwrap();
    // Exactly what was written: no contacts derived.
    let options = ImportOptions::default().with_foot_contacts(false);
    let asset = load_path_with(&path, options).unwrap();
    assert_same(&mannequin.skeleton, &mannequin.clips, &asset);
    println!(
        "mannequin: {} joints, {} clips round-tripped",
        asset.skeleton.num_joints(),
        asset.clips.len()
    );
    // By default, authored contact curves come back untouched and only a clip without
    // them (the upper-body Aim overlay) gets derived ones.
    let derived = load_path(&path).unwrap();
    for ((written, read), report) in mannequin
        .clips
        .iter()
        .zip(&derived.clips)
        .zip(&derived.foot_contacts)
    {
        assert_eq!(report.clip, written.name());
        for (f, name) in ["FootContact_L", "FootContact_R"].into_iter().enumerate() {
            match written.curve(name) {
                Some(curve) => {
                    assert_eq!(read.curve(name), Some(curve), "{}", written.name());
                    assert_eq!(report.source[f], ContactSource::Authored);
                }
                None => {
                    assert!(read.curve(name).is_some(), "{}", written.name());
                    assert_eq!(report.source[f], ContactSource::Derived);
                }
            }
        }
    }
}

#[test]
fn exported_file_is_a_complete_gltf_scene() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let (json, bin) = split_glb(&export_glb(&skeleton, &clips).unwrap());
    assert_eq!(json["asset"]["version"], "2.0");
    // One node per joint plus the mesh node, a skin over every joint, a skinned mesh.
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), skeleton.num_joints() + 1);
    let skin = &json["skins"][0];
    assert_eq!(
        skin["joints"].as_array().unwrap().len(),
        skeleton.num_joints()
    );
    let mesh_node = nodes.last().unwrap();
    assert_eq!(mesh_node["skin"], 0);
    assert_eq!(mesh_node["mesh"], 0);
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    for semantic in ["POSITION", "NORMAL", "JOINTS_0", "WEIGHTS_0"] {
        assert!(attributes[semantic].is_u64(), "{semantic}");
    }
    let position = &json["accessors"][attributes["POSITION"].as_u64().unwrap() as usize];
    assert!(position["min"].is_array() && position["max"].is_array());
    assert!(position["count"].as_u64().unwrap() >= 3);
    assert!(json["meshes"][0]["primitives"][0]["indices"].is_u64());
    // Inverse bind matrices of the rest pose.
    let ibm = &json["accessors"][skin["inverseBindMatrices"].as_u64().unwrap() as usize];
    assert_eq!(ibm["type"], "MAT4");
    assert_eq!(ibm["count"], skeleton.num_joints());
    let view = &json["bufferViews"][ibm["bufferView"].as_u64().unwrap() as usize];
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let floats: Vec<f32> = bin[offset..offset + 64 * skeleton.num_joints()]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    for (j, model) in skeleton.rest_model().iter().enumerate() {
        let ibm = glam::Mat4::from_cols_slice(&floats[16 * j..16 * j + 16]);
        let identity = ibm * glam::Mat4::from(*model);
        assert!(
            identity.abs_diff_eq(glam::Mat4::IDENTITY, 1e-5),
            "joint {j}"
        );
    }
    // Animation extras hold the plantigrade metadata.
    let walk = &json["animations"][0];
    assert_eq!(walk["name"], "Rig|Walk_F");
    let meta = &walk["extras"]["plantigrade"];
    assert_eq!(meta["looping"], true);
    assert_eq!(meta["authored_velocity_model_m_s"], json!([0.0, 0.0, 1.5]));
    assert_eq!(meta["events"][1]["name"], "Footstep_R");
    assert_eq!(meta["curves"][2]["interpolation"], "CUBICSPLINE");
    let interpolations: Vec<&str> = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["samplers"].as_array().unwrap())
        .map(|s| s["interpolation"].as_str().unwrap_or("LINEAR"))
        .collect();
    for mode in ["LINEAR", "STEP", "CUBICSPLINE"] {
        assert!(
            interpolations.contains(&mode),
            "{mode} in {interpolations:?}"
        );
    }
    // The clip without tracks still has a channel.
    assert_eq!(
        json["animations"][3]["channels"].as_array().unwrap().len(),
        1
    );
}

/// The `.glb` as a `.gltf` JSON whose buffer is `uri`.
fn as_gltf(glb: &[u8], uri: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut json, bin) = split_glb(glb);
    json["buffers"][0]["uri"] = Value::from(uri);
    (serde_json::to_vec_pretty(&json).unwrap(), bin)
}

#[test]
fn gltf_with_base64_buffer_round_trips() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let (_, bin) = split_glb(&glb);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bin);
    let (gltf, _) = as_gltf(
        &glb,
        &format!("data:application/octet-stream;base64,{encoded}"),
    );
    assert_same(&skeleton, &clips, &load_slice(&gltf, None).unwrap());
}

#[test]
fn gltf_with_external_buffer_round_trips() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let dir = scratch_dir("external");
    let (gltf, bin) = as_gltf(&glb, "rig%20data.bin");
    std::fs::write(dir.join("rig data.bin"), &bin).unwrap();
    std::fs::write(dir.join("rig.gltf"), &gltf).unwrap();
    assert_same(
        &skeleton,
        &clips,
        &load_path(&dir.join("rig.gltf")).unwrap(),
    );
    assert_same(&skeleton, &clips, &load_slice(&gltf, Some(&dir)).unwrap());
    // Without a base directory the file cannot be found.
    assert!(matches!(
        load_slice(&gltf, None),
        Err(GltfError::NoBaseDirectory { buffer: 0, .. })
    ));
    // A missing file is an I/O error naming the path.
    let (gltf, _) = as_gltf(&glb, "missing.bin");
    match load_slice(&gltf, Some(&dir)) {
        Err(GltfError::Io { path, .. }) => assert!(path.ends_with("missing.bin")),
        other => panic!("{other:?}"),
    }
}

/// Wraps the exported joints under a new `Armature` node with `armature` as its transform.
fn under_armature(glb: &[u8], translation: Vec3, rotation: Quat, scale: f32) -> Vec<u8> {
    edit_glb(glb, |json| {
        let nodes = json["nodes"].as_array_mut().unwrap();
        let armature = nodes.len();
        nodes.push(json!({
            "name": "Armature",
            "children": [0],
            "translation": translation.to_array(),
            "rotation": rotation.to_array(),
            "scale": [scale, scale, scale],
        }));
        let scene = json["scenes"][0]["nodes"].as_array_mut().unwrap();
        scene.retain(|n| n != 0);
        scene.push(Value::from(armature));
        // The armature is animated too (at its rest value), as Blender exports it.
        let anim = &mut json["animations"][0];
        let sampler = anim["samplers"][0].clone();
        let samplers = anim["samplers"].as_array_mut().unwrap();
        samplers.push(sampler);
        let s = samplers.len() - 1;
        anim["channels"]
            .as_array_mut()
            .unwrap()
            .push(json!({"sampler": s, "target": {"node": armature, "path": "translation"}}));
    })
}

fn model_poses(skeleton: &Skeleton, clip: &Clip, t: f32) -> Vec<Affine3A> {
    let mut pose = Pose::rest(skeleton);
    let mut model = ModelPose::new(skeleton.num_joints());
    clip.sample(t, skeleton.rest_local(), &mut pose).unwrap();
    local_to_model(skeleton, &pose, &mut model).unwrap();
    model.joints_model().to_vec()
}

#[test]
fn armature_transform_is_baked_into_root_tracks_including_cubic_tangents() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let (t, r, s) = (
        Vec3::new(1.0, -0.5, 2.0),
        Quat::from_rotation_x(1.2) * Quat::from_rotation_y(0.4),
        2.5,
    );
    let armature = Affine3A::from_scale_rotation_translation(Vec3::splat(s), r, t);
    let asset = load_slice(&under_armature(&glb, t, r, s), None).unwrap();
    assert_eq!(
        asset.skeleton.names(),
        skeleton.names(),
        "the armature is not a joint"
    );
    assert_eq!(
        asset.skipped_channels.len(),
        1,
        "its own channel is skipped"
    );
    let rest_got = asset.skeleton.rest_model();
    for (j, want) in skeleton.rest_model().iter().enumerate() {
        let want = armature * *want;
        assert!(rest_got[j].abs_diff_eq(want, 1e-5), "rest joint {j}");
    }
    for (want_clip, got_clip) in clips.iter().zip(&asset.clips) {
        for time in sample_times(want_clip) {
            let want = model_poses(&skeleton, want_clip, time);
            let got = model_poses(&asset.skeleton, got_clip, time);
            for j in 0..want.len() {
                let w = armature * want[j];
                assert!(
                    got[j].abs_diff_eq(w, 1e-4),
                    "{} t={time} joint {j}: {:?} vs {:?}",
                    want_clip.name(),
                    got[j],
                    w
                );
            }
        }
    }
}

#[test]
fn non_uniform_armature_scale_is_refused() {
    let skeleton = synthetic_skeleton();
    let glb = export_glb(&skeleton, &synthetic_clips(&skeleton)).unwrap();
    let bad = edit_glb(
        &under_armature(&glb, Vec3::ZERO, Quat::IDENTITY, 1.0),
        |json| {
            let armature = json["nodes"].as_array().unwrap().len() - 1;
            json["nodes"][armature]["scale"] = json!([1.0, 2.0, 1.0]);
        },
    );
    assert!(matches!(
        load_slice(&bad, None),
        Err(GltfError::UnsupportedArmatureTransform { name, .. }) if name == "Armature"
    ));
    // A matrix armature with shear is refused too (as a node transform).
    let sheared = edit_glb(
        &under_armature(&glb, Vec3::ZERO, Quat::IDENTITY, 1.0),
        |json| {
            let armature = json["nodes"].as_array().unwrap().len() - 1;
            let node = json["nodes"][armature].as_object_mut().unwrap();
            node.remove("translation");
            node.remove("rotation");
            node.remove("scale");
            node.insert(
                "matrix".into(),
                json!([
                    1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
                ]),
            );
        },
    );
    assert!(matches!(
        load_slice(&sheared, None),
        Err(GltfError::UnsupportedNodeTransform { .. })
    ));
}

#[test]
fn matrix_nodes_are_decomposed() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let as_matrices = edit_glb(&glb, |json| {
        for node in json["nodes"].as_array_mut().unwrap() {
            let node = node.as_object_mut().unwrap();
            let t = node
                .remove("translation")
                .map(|v| serde_json::from_value::<[f32; 3]>(v).unwrap());
            let r = node
                .remove("rotation")
                .map(|v| serde_json::from_value::<[f32; 4]>(v).unwrap());
            let s = node
                .remove("scale")
                .map(|v| serde_json::from_value::<[f32; 3]>(v).unwrap());
            let m = glam::Mat4::from_scale_rotation_translation(
                s.map_or(Vec3::ONE, Vec3::from),
                r.map_or(Quat::IDENTITY, Quat::from_array),
                t.map_or(Vec3::ZERO, Vec3::from),
            );
            node.insert("matrix".into(), json!(m.to_cols_array()));
        }
    });
    let asset = load_slice(&as_matrices, None).unwrap();
    for (j, (a, b)) in skeleton
        .rest_local()
        .iter()
        .zip(asset.skeleton.rest_local())
        .enumerate()
    {
        assert_transform_close(a, b, 1e-5, &format!("joint {j}"));
    }
}

#[test]
fn skins_sharing_joints_and_child_first_order_give_one_parent_first_skeleton() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let edited = edit_glb(&glb, |json| {
        // Skin 0 lists its joints child-first; skin 1 shares three of them.
        let joints: Vec<Value> = json["skins"][0]["joints"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .cloned()
            .collect();
        json["skins"][0]["joints"] = Value::from(joints);
        json["skins"][0]
            .as_object_mut()
            .unwrap()
            .remove("inverseBindMatrices");
        json["skins"]
            .as_array_mut()
            .unwrap()
            .push(json!({"joints": [4, 3, 1]}));
    });
    let asset = load_slice(&edited, None).unwrap();
    let got = &asset.skeleton;
    assert_eq!(
        got.num_joints(),
        skeleton.num_joints(),
        "each node is one joint"
    );
    for j in 0..got.num_joints() {
        if let Some(p) = got.parent(j) {
            assert!(p < j);
        }
        let original = skeleton.find(got.name(j)).unwrap();
        assert_eq!(
            got.parent(j).map(|p| got.name(p)),
            skeleton.parent(original).map(|p| skeleton.name(p)),
            "parent of {}",
            got.name(j)
        );
        assert_eq!(asset.joint_nodes[j], original, "node of {}", got.name(j));
    }
    // The clips still drive the same joints.
    for (want_clip, got_clip) in clips.iter().zip(&asset.clips) {
        for time in sample_times(want_clip) {
            let want = model_poses(&skeleton, want_clip, time);
            let have = model_poses(got, got_clip, time);
            for (name, have) in got.names().iter().zip(have) {
                let original = skeleton.find(name).unwrap();
                assert!(have.abs_diff_eq(want[original], 1e-5), "{name} at {time}");
            }
        }
    }
}

#[test]
fn nodes_between_joints_become_joints_and_names_are_made_unique() {
    let skeleton = synthetic_skeleton();
    let glb = export_glb(&skeleton, &synthetic_clips(&skeleton)).unwrap();
    let edited = edit_glb(&glb, |json| {
        // Skin without `hips` (node 1), which lies between root and its children; and two
        // joints named alike; and one unnamed.
        json["skins"][0]["joints"] = json!([0, 2, 3, 4]);
        json["skins"][0]
            .as_object_mut()
            .unwrap()
            .remove("inverseBindMatrices");
        json["nodes"][3]["name"] = json!("spine");
        json["nodes"][4].as_object_mut().unwrap().remove("name");
    });
    let asset = load_slice(&edited, None).unwrap();
    let names = asset.skeleton.names();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.contains(&"hips".to_string()), "{names:?}");
    assert!(names.contains(&"spine".to_string()));
    assert!(names.contains(&"spine#3".to_string()), "{names:?}");
    assert!(names.contains(&"node_4".to_string()), "{names:?}");
}

#[test]
fn without_a_skin_the_scene_hierarchy_is_the_skeleton() {
    let skeleton = synthetic_skeleton();
    let clips = synthetic_clips(&skeleton);
    let glb = export_glb(&skeleton, &clips).unwrap();
    let edited = edit_glb(&glb, |json| {
        json.as_object_mut().unwrap().remove("skins");
        let nodes = json["nodes"].as_array_mut().unwrap();
        nodes
            .last_mut()
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("skin");
    });
    let asset = load_slice(&edited, None).unwrap();
    // The joints, then the mesh node (a scene root too).
    assert_eq!(asset.skeleton.num_joints(), skeleton.num_joints() + 1);
    assert_eq!(
        &asset.skeleton.names()[..skeleton.num_joints()],
        skeleton.names()
    );
}

#[test]
fn animation_names_default_and_skipped_channels_are_reported() {
    let skeleton = synthetic_skeleton();
    let glb = export_glb(&skeleton, &synthetic_clips(&skeleton)).unwrap();
    let edited = edit_glb(&glb, |json| {
        json["animations"][1]
            .as_object_mut()
            .unwrap()
            .remove("name");
        json["animations"][1]
            .as_object_mut()
            .unwrap()
            .remove("extras");
        // Morph weights on the mesh node, and a channel on the mesh node.
        let mesh_node = json["nodes"].as_array().unwrap().len() - 1;
        let channels = json["animations"][0]["channels"].as_array_mut().unwrap();
        channels.push(json!({"sampler": 0, "target": {"node": mesh_node, "path": "weights"}}));
        channels.push(json!({"sampler": 0, "target": {"node": mesh_node, "path": "translation"}}));
    });
    let asset = load_slice(&edited, None).unwrap();
    assert_eq!(asset.clips[1].name(), "animation_1");
    assert!(
        asset.clips[1].is_looping(),
        "no metadata: looping by default"
    );
    assert_eq!(
        asset.clips[1].duration_s(),
        1.5,
        "no metadata: the last key time"
    );
    let reasons: Vec<_> = asset
        .skipped_channels
        .iter()
        .map(|s| s.reason.clone())
        .collect();
    assert_eq!(
        reasons,
        vec![
            plantigrade_gltf::SkipReason::MorphWeights,
            plantigrade_gltf::SkipReason::NotAJoint {
                node: skeleton.num_joints()
            },
        ]
    );
}

#[test]
fn normalized_integer_rotations_are_read() {
    // One joint, one rotation channel stored as normalized i16 (90° about Y).
    let h = (std::f32::consts::FRAC_1_SQRT_2 * 32767.0).round() as i16;
    let mut bin = Vec::new();
    for t in [0.0f32, 1.0] {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for v in [0i16, 0, 0, 32767, 0, h, 0, h] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let json = json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "j"}],
        "skins": [{"joints": [0]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 16}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5122, "normalized": true, "count": 2, "type": "VEC4"}
        ],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                        "samplers": [{"input": 0, "output": 1}]}]
    });
    let asset = load_slice(&make_glb(&json, Some(&bin)), None).unwrap();
    let track = asset.clips[0].joint_tracks()[0].rotation.as_ref().unwrap();
    assert!(track
        .sample(1.0)
        .abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-4));
    assert!((track.sample(1.0).length() - 1.0).abs() < 1e-6);
    assert_eq!(asset.clips[0].name(), "animation_0");
}
