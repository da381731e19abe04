//! Skinned vertices read in the rest pose (ImportOptions::skin_vertices), for foot sockets on
//! rigs without toe joints (SPEC RIG-3): exported files (one octahedral bone per joint,
//! rigidly bound), a rest pose moved away from the bind pose, and malformed skin data that
//! must be listed, never panic or fail the import.

mod common;

use glam::Vec3;
use plantigrade::bone_map::{BoneNames, HumanoidMap, Side, SocketSource};
use plantigrade::mannequin::Mannequin;
use plantigrade_gltf::{export_glb, load_slice_with, ImportOptions};
use serde_json::json;

use common::*;

fn with_skin() -> ImportOptions {
    ImportOptions::default().with_skin_vertices(true)
}

#[test]
fn vertices_are_read_only_when_asked() {
    let m = Mannequin::new();
    let bytes = export_glb(&m.skeleton, &m.clips).unwrap();
    let plain = load_slice_with(&bytes, None, ImportOptions::default()).unwrap();
    assert!(plain.skin_vertices.is_empty());
    let asset = load_slice_with(&bytes, None, with_skin()).unwrap();
    assert!(
        asset.skin_vertices.skipped.is_empty(),
        "{:?}",
        asset.skin_vertices.skipped
    );
    let v = &asset.skin_vertices;
    // 8 triangles × 3 vertices per octahedral bone.
    assert!(v.positions_model.len() > 24 && v.positions_model.len() % 24 == 0);
    assert_eq!(v.positions_model.len(), v.influences.len());
    for inf in &v.influences {
        // Rigid binding: one joint with weight 1.
        assert_eq!(inf[0].1, 1.0);
        assert!(inf[1..].iter().all(|&(_, w)| w == 0.0));
    }
    // The bone bound to the left calf runs from the knee to the ankle: its vertices lie within
    // 6 cm of that segment, and reach both ends.
    let calf = m.skeleton.find("calf_l").unwrap();
    let foot = m.skeleton.find("foot_l").unwrap();
    let (knee, ankle) = (
        m.skeleton.rest_position_model(calf),
        m.skeleton.rest_position_model(foot),
    );
    let points = v.weighted_to(calf, 0.5);
    assert_eq!(points.len(), 24);
    for p in &points {
        let t = ((*p - knee).dot(ankle - knee) / (ankle - knee).length_squared()).clamp(0.0, 1.0);
        let off = (*p - (knee + t * (ankle - knee))).length();
        assert!(off < 0.061, "{p} is {off} m from the shin");
    }
    assert!(points.iter().any(|p| (*p - knee).length() < 1e-4));
    assert!(points.iter().any(|p| (*p - ankle).length() < 1e-4));
}

#[test]
fn vertices_follow_the_rest_pose_not_the_bind_pose() {
    let m = Mannequin::new();
    let bytes = export_glb(&m.skeleton, &m.clips).unwrap();
    let bound = load_slice_with(&bytes, None, with_skin()).unwrap();
    // Move the root joint's node 1 m along +X after the inverse bind matrices were written.
    let moved = edit_glb(&bytes, |json| {
        let root_node = json["skins"][0]["joints"][0].as_u64().unwrap() as usize;
        let node = &mut json["nodes"][root_node];
        let t = node["translation"]
            .as_array()
            .cloned()
            .unwrap_or(vec![json!(0.0); 3]);
        let x = t[0].as_f64().unwrap() + 1.0;
        node["translation"] = json!([x, t[1], t[2]]);
    });
    let asset = load_slice_with(&moved, None, with_skin()).unwrap();
    let (a, b) = (&bound.skin_vertices, &asset.skin_vertices);
    assert_eq!(a.positions_model.len(), b.positions_model.len());
    for (p, q) in a.positions_model.iter().zip(&b.positions_model) {
        assert!((*q - *p - Vec3::X).length() < 1e-4, "{p} → {q}");
    }
}

#[test]
fn bad_skin_data_is_listed_and_the_rest_still_loads() {
    let m = Mannequin::new();
    let bytes = export_glb(&m.skeleton, &m.clips).unwrap();
    // JOINTS_0 pointed at the POSITION accessor (VEC3 floats): refused by kind.
    let wrong_kind = edit_glb(&bytes, |json| {
        let attributes = &mut json["meshes"][0]["primitives"][0]["attributes"];
        attributes["JOINTS_0"] = attributes["POSITION"].clone();
    });
    let asset = load_slice_with(&wrong_kind, None, with_skin()).unwrap();
    assert!(asset.skin_vertices.is_empty());
    assert_eq!(asset.clips.len(), m.clips.len());
    let skipped = &asset.skin_vertices.skipped;
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0].contains("JOINTS_0: expected Vec4, found Vec3"),
        "{skipped:?}"
    );
    // An accessor offset far past its buffer: refused, no overflow.
    let far = edit_glb(&bytes, |json| {
        let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize;
        json["accessors"][position]["byteOffset"] = json!(u32::MAX);
    });
    match load_slice_with(&far, None, with_skin()) {
        // The document's validation or the offset check catches it; either way it is listed.
        Ok(asset) => {
            assert!(asset.skin_vertices.is_empty());
            assert_eq!(asset.skin_vertices.skipped.len(), 1);
        }
        Err(err) => panic!("the import itself failed: {err}"),
    }
}

#[test]
fn a_skin_without_a_sole_leaves_the_proportions() {
    // The exported mannequin's foot geometry is one slanted octahedron from the ankle down to
    // the ball joint: its lowest tenth is the tip alone, no sole to take a heel and a ball
    // from. Mapped without its ball joints, the feet keep their proportion sockets.
    let m = Mannequin::new();
    let bytes = export_glb(&m.skeleton, &m.clips).unwrap();
    let asset = load_slice_with(&bytes, None, with_skin()).unwrap();
    let names = BoneNames {
        ball_l: None,
        ball_r: None,
        ..HumanoidMap::detect(&asset.skeleton).to_names(&asset.skeleton)
    };
    let mut map = HumanoidMap::from_names(&asset.skeleton, &names).unwrap();
    assert_eq!(map.feet_source, [Some(SocketSource::Proportions); 2]);
    let before = map.feet;
    let foot = map.leg(Side::Left).unwrap().foot;
    assert_eq!(asset.skin_vertices.weighted_to(foot, 0.5).len(), 24);
    assert_eq!(asset.sockets_from_skin(&mut map), 0);
    assert_eq!(map.feet_source, [Some(SocketSource::Proportions); 2]);
    assert_eq!(map.feet, before);
}
