//! Shared test helpers: a small synthetic rig with clips that use every feature, GLB
//! editing (split into JSON + BIN, re-pack), and a thorough asset comparison.

#![allow(dead_code)]

mod said_once;

pub use plantigrade_gltf::error_chain;
// Not every test file checks errors.
#[allow(unused_imports)]
pub use said_once::assert_says_each_detail_once;

use glam::{Quat, Vec3};
use plantigrade::pose::{local_to_model, ModelPose, Pose};
use plantigrade::{
    Clip, FloatCurve, Interpolation, Joint, JointTracks, Skeleton, Track, Transform,
};
use plantigrade_gltf::ImportedAsset;
use serde_json::Value;

/// A 5-joint rig with non-trivial rest rotations and one non-uniform scale.
pub fn synthetic_skeleton() -> Skeleton {
    let joint = |name: &str, parent: Option<usize>, t: [f32; 3], r: Quat, s: [f32; 3]| Joint {
        name: name.into(),
        parent,
        rest_local: Transform {
            translation: Vec3::from(t),
            rotation: r,
            scale: Vec3::from(s),
        },
    };
    Skeleton::new(vec![
        joint("root", None, [0.0, 0.0, 0.0], Quat::IDENTITY, [1.0; 3]),
        joint(
            "hips",
            Some(0),
            [0.0, 1.0, 0.1],
            Quat::from_rotation_y(0.3),
            [1.0; 3],
        ),
        joint(
            "spine",
            Some(1),
            [0.0, 0.3, 0.0],
            Quat::from_rotation_x(-0.2),
            [1.0, 1.1, 0.9],
        ),
        joint(
            "leg",
            Some(1),
            [0.1, -0.1, 0.0],
            Quat::from_rotation_z(3.0),
            [1.0; 3],
        ),
        joint(
            "foot",
            Some(3),
            [0.0, 0.8, 0.0],
            Quat::from_rotation_x(1.0),
            [1.0; 3],
        ),
    ])
    .unwrap()
}

/// Clips using LINEAR, STEP and CUBICSPLINE on translation, rotation and scale; curves of
/// each interpolation; events; authored velocity; a one-shot clip whose keys end before its
/// duration; a single-key clip; a clip with no tracks at all.
pub fn synthetic_clips(skeleton: &Skeleton) -> Vec<Clip> {
    let n = skeleton.num_joints();
    let q = |x: f32, y: f32, z: f32| Quat::from_euler(glam::EulerRot::YXZ, y, x, z);

    let mut walk = vec![JointTracks::default(); n];
    walk[0].translation = Some(
        Track::linear([
            (0.0, Vec3::ZERO),
            (0.5, Vec3::new(0.0, 0.05, 0.3)),
            (1.0, Vec3::new(0.0, 0.0, 0.6)),
        ])
        .unwrap(),
    );
    walk[0].scale =
        Some(Track::linear([(0.0, Vec3::ONE), (0.6, Vec3::new(1.1, 0.9, 1.0))]).unwrap());
    walk[1].rotation = Some(
        Track::linear([
            (0.0, q(0.1, 0.3, 0.0)),
            (0.5, q(-0.1, 0.2, 0.1)),
            (1.0, q(0.1, 0.3, 0.0)),
        ])
        .unwrap(),
    );
    walk[3].rotation = Some(
        Track::new(
            Interpolation::Step,
            vec![0.0, 0.25, 0.75],
            vec![q(0.0, 0.0, 3.0), q(0.5, 0.0, 3.0), q(-0.5, 0.0, 3.1)],
        )
        .unwrap(),
    );
    walk[2].scale = Some(
        Track::new(
            Interpolation::Step,
            vec![0.0, 0.5],
            vec![Vec3::new(1.0, 1.1, 0.9), Vec3::splat(1.2)],
        )
        .unwrap(),
    );
    let walk = Clip::new("Rig|Walk_F", None, walk)
        .unwrap()
        .with_authored_velocity(Vec3::new(0.0, 0.0, 1.5))
        .unwrap()
        .with_curve(FloatCurve {
            name: "FootContact_L".into(),
            track: Track::linear([(0.0, 1.0), (0.4, 1.0), (0.5, 0.0), (0.9, 0.0), (1.0, 1.0)])
                .unwrap(),
        })
        .unwrap()
        .with_curve(FloatCurve {
            name: "Stepped".into(),
            track: Track::new(Interpolation::Step, vec![0.0, 0.5], vec![0.0, 1.0]).unwrap(),
        })
        .unwrap()
        .with_curve(FloatCurve {
            name: "Smooth".into(),
            track: Track::new(
                Interpolation::CubicSpline,
                vec![0.0, 1.0],
                vec![0.0, 0.0, 2.0, -1.0, 1.0, 0.0],
            )
            .unwrap(),
        })
        .unwrap()
        .with_event("Footstep_L", 0.0)
        .unwrap()
        .with_event("Footstep_R", 0.5)
        .unwrap();

    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut cubic = vec![JointTracks::default(); n];
    cubic[0].translation = Some(
        Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 0.7, 1.5],
            vec![
                Vec3::ZERO,
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(0.5, 1.0, 0.0),
                Vec3::new(-0.2, 0.0, 0.4),
                Vec3::new(0.3, 0.2, 0.1),
                Vec3::new(0.0, -1.0, 0.0),
                Vec3::new(0.1, 0.1, 0.1),
                Vec3::new(0.0, 0.5, 1.0),
                Vec3::ZERO,
            ],
        )
        .unwrap(),
    );
    cubic[0].rotation = Some(
        Track::new(
            Interpolation::CubicSpline,
            vec![0.1, 0.9],
            vec![
                zero,
                q(0.0, 0.5, 0.0),
                Quat::from_xyzw(0.0, 0.4, 0.0, -0.1),
                Quat::from_xyzw(0.2, -0.3, 0.0, 0.1),
                q(0.1, -0.5, 0.2),
                zero,
            ],
        )
        .unwrap(),
    );
    cubic[4].rotation = Some(
        Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 1.5],
            vec![
                zero,
                q(1.0, 0.0, 0.0),
                Quat::from_xyzw(0.3, 0.0, 0.1, 0.0),
                Quat::from_xyzw(-0.2, 0.1, 0.0, 0.0),
                q(0.2, 0.4, 0.0),
                zero,
            ],
        )
        .unwrap(),
    );
    cubic[1].scale = Some(
        Track::new(
            Interpolation::CubicSpline,
            vec![0.2, 1.0],
            vec![
                Vec3::ZERO,
                Vec3::ONE,
                Vec3::splat(0.5),
                Vec3::splat(-0.5),
                Vec3::splat(1.3),
                Vec3::ZERO,
            ],
        )
        .unwrap(),
    );
    let cubic = Clip::new("Jump_Start", Some(2.0), cubic)
        .unwrap()
        .with_looping(false)
        .with_event("recovered", 1.9)
        .unwrap();

    let mut single = vec![JointTracks::default(); n];
    single[2].rotation = Some(Track::constant(q(0.4, 0.0, 0.0)));
    let single = Clip::new("Aim", None, single).unwrap();

    let empty = Clip::new("Nothing", Some(0.5), vec![JointTracks::default(); n])
        .unwrap()
        .with_looping(false);

    vec![walk, cubic, single, empty]
}

/// Splits a `.glb` into its JSON (parsed) and BIN chunk.
pub fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let rest = &bytes[20 + json_len..];
    let bin = if rest.len() >= 8 {
        let bin_len = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
        rest[8..8 + bin_len].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// Packs JSON and an optional BIN chunk into a `.glb` (padding both to 4 bytes).
pub fn make_glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(json).unwrap();
    while json_bytes.len() % 4 != 0 {
        json_bytes.push(b' ');
    }
    let mut bin = bin.map(|b| b.to_vec());
    if let Some(b) = &mut bin {
        while b.len() % 4 != 0 {
            b.push(0);
        }
    }
    let total = 12 + 8 + json_bytes.len() + bin.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    if let Some(b) = &bin {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(b);
    }
    out
}

/// Re-packs a `.glb` after editing its JSON.
pub fn edit_glb(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (mut json, bin) = split_glb(bytes);
    edit(&mut json);
    make_glb(&json, Some(&bin))
}

fn close_vec3(a: Vec3, b: Vec3, eps: f32) -> bool {
    (a - b).abs().max_element() <= eps
}

fn close_quat(a: Quat, b: Quat, eps: f32) -> bool {
    // q and -q are the same rotation.
    (glam::Vec4::from(a) - glam::Vec4::from(b))
        .abs()
        .max_element()
        <= eps
        || (glam::Vec4::from(a) + glam::Vec4::from(b))
            .abs()
            .max_element()
            <= eps
}

pub fn assert_transform_close(a: &Transform, b: &Transform, eps: f32, what: &str) {
    assert!(
        close_vec3(a.translation, b.translation, eps)
            && close_quat(a.rotation, b.rotation, eps)
            && close_vec3(a.scale, b.scale, eps),
        "{what}: {a:?} vs {b:?}"
    );
}

fn assert_slices_close(a: &[f32], b: &[f32], eps: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= eps, "{what}[{i}]: {x} vs {y}");
    }
}

fn flat<T: Copy, const N: usize>(values: &[T], to: impl Fn(T) -> [f32; N]) -> Vec<f32> {
    values.iter().flat_map(|&v| to(v)).collect()
}

/// Asserts that `asset` holds exactly `skeleton` and `clips`: joints, parents, rest pose,
/// clip metadata, curves, events, raw tracks (interpolation, times, values) and sampled
/// poses.
pub fn assert_same(skeleton: &Skeleton, clips: &[Clip], asset: &ImportedAsset) {
    let got = &asset.skeleton;
    assert_eq!(got.names(), skeleton.names(), "joint names");
    assert_eq!(got.parents(), skeleton.parents(), "parents");
    for (j, (a, b)) in skeleton
        .rest_local()
        .iter()
        .zip(got.rest_local())
        .enumerate()
    {
        assert_transform_close(a, b, 1e-6, &format!("rest of {}", skeleton.name(j)));
    }
    assert_eq!(asset.clips.len(), clips.len(), "clip count");
    for (want, got_clip) in clips.iter().zip(&asset.clips) {
        let name = want.name();
        assert_eq!(got_clip.name(), name);
        assert_eq!(got_clip.duration_s(), want.duration_s(), "{name} duration");
        assert_eq!(got_clip.is_looping(), want.is_looping(), "{name} looping");
        assert_eq!(
            got_clip.authored_velocity_model_m_s(),
            want.authored_velocity_model_m_s(),
            "{name} velocity"
        );
        assert_eq!(got_clip.curves(), want.curves(), "{name} curves");
        assert_eq!(got_clip.events(), want.events(), "{name} events");
        assert_tracks_same(want, got_clip);
        assert_samples_same(skeleton, want, got, got_clip);
    }
}

fn assert_tracks_same(want: &Clip, got: &Clip) {
    let name = want.name();
    let has_tracks = want.joint_tracks().iter().any(|t| !t.is_empty());
    for (j, (a, b)) in want
        .joint_tracks()
        .iter()
        .zip(got.joint_tracks())
        .enumerate()
    {
        let what = |channel: &str| format!("{name} joint {j} {channel}");
        match (&a.translation, &b.translation) {
            (Some(a), Some(b)) => {
                assert_eq!(
                    a.interpolation(),
                    b.interpolation(),
                    "{}",
                    what("translation")
                );
                assert_eq!(a.times_s(), b.times_s(), "{}", what("translation times"));
                let (va, vb) = (
                    flat(a.values(), |v: Vec3| v.to_array()),
                    flat(b.values(), |v: Vec3| v.to_array()),
                );
                assert_slices_close(&va, &vb, 1e-6, &what("translation"));
            }
            (None, None) => {}
            _ => panic!("{}: present on one side only", what("translation")),
        }
        match (&a.rotation, &b.rotation) {
            (Some(a), Some(b)) => {
                assert_eq!(a.interpolation(), b.interpolation(), "{}", what("rotation"));
                assert_eq!(a.times_s(), b.times_s(), "{}", what("rotation times"));
                let (va, vb) = (
                    flat(a.values(), |q: Quat| q.to_array()),
                    flat(b.values(), |q: Quat| q.to_array()),
                );
                assert_slices_close(&va, &vb, 1e-6, &what("rotation"));
            }
            (None, None) => {}
            // A clip without tracks is written with a placeholder rotation on joint 0.
            (None, Some(b)) if !has_tracks && j == 0 => assert_eq!(b.times_s(), &[0.0]),
            _ => panic!("{}: present on one side only", what("rotation")),
        }
        match (&a.scale, &b.scale) {
            (Some(a), Some(b)) => {
                assert_eq!(a.interpolation(), b.interpolation(), "{}", what("scale"));
                assert_eq!(a.times_s(), b.times_s(), "{}", what("scale times"));
                let (va, vb) = (
                    flat(a.values(), |v: Vec3| v.to_array()),
                    flat(b.values(), |v: Vec3| v.to_array()),
                );
                assert_slices_close(&va, &vb, 1e-6, &what("scale"));
            }
            (None, None) => {}
            _ => panic!("{}: present on one side only", what("scale")),
        }
    }
}

/// Sample times covering the clip, past its end, and key times themselves.
pub fn sample_times(clip: &Clip) -> Vec<f32> {
    let d = clip.duration_s();
    let mut times: Vec<f32> = (0..=12).map(|k| d * k as f32 / 12.0).collect();
    times.extend([0.013, 0.37 * d, 1.3 * d + 0.01]);
    times
}

fn assert_samples_same(skeleton: &Skeleton, want: &Clip, got_skeleton: &Skeleton, got: &Clip) {
    let mut a = Pose::rest(skeleton);
    let mut b = Pose::rest(got_skeleton);
    let mut ma = ModelPose::new(skeleton.num_joints());
    let mut mb = ModelPose::new(got_skeleton.num_joints());
    for t in sample_times(want) {
        want.sample(t, skeleton.rest_local(), &mut a).unwrap();
        got.sample(t, got_skeleton.rest_local(), &mut b).unwrap();
        for (j, (x, y)) in a.local().iter().zip(b.local()).enumerate() {
            assert_transform_close(x, y, 1e-5, &format!("{} t={t} joint {j}", want.name()));
        }
        local_to_model(skeleton, &a, &mut ma).unwrap();
        local_to_model(got_skeleton, &b, &mut mb).unwrap();
        for j in 0..skeleton.num_joints() {
            let (p, q) = (ma.position_model(j), mb.position_model(j));
            assert!(
                close_vec3(p, q, 1e-5),
                "{} t={t} joint {j}: {p} vs {q}",
                want.name()
            );
        }
        for curve in want.curves() {
            let (x, y) = (
                want.sample_curve(&curve.name, t),
                got.sample_curve(&curve.name, t),
            );
            assert_eq!(x, y, "{} curve {} at {t}", want.name(), curve.name);
        }
    }
}

/// A small hand-built rig: joints `root` → `leg`, a mesh node `body` skinned to them (mesh
/// 0, one primitive with POSITION and indices), and two animations, each accessor in its
/// own buffer view:
///
/// - `Good`: a rotation of `leg` (keys at 0, 0.5, 1 s);
/// - `Other`: a translation of `root` with key times `other_times`, and a scale channel on
///   the mesh node (not a joint, so skipped).
pub fn tiny_rig(other_times: [f32; 3]) -> (Value, Vec<u8>) {
    use serde_json::json;
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |bytes: Vec<u8>,
                    component: u32,
                    ty: &str,
                    count: usize,
                    bounds: Option<(Value, Value)>| {
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
        bin.extend_from_slice(&bytes);
        let mut accessor = json!({
            "bufferView": views.len() - 1, "componentType": component, "type": ty, "count": count
        });
        if let Some((min, max)) = bounds {
            accessor["min"] = min;
            accessor["max"] = max;
        }
        accessors.push(accessor);
        accessors.len() - 1
    };
    let floats = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let times = |t: &[f32]| {
        let min = t.iter().copied().fold(f32::INFINITY, f32::min);
        let max = t.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        (json!([min]), json!([max]))
    };

    let position = push(
        floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        5126,
        "VEC3",
        3,
        Some((json!([0.0, 0.0, 0.0]), json!([1.0, 1.0, 0.0]))),
    );
    let indices = push(
        [0u16, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect(),
        5123,
        "SCALAR",
        3,
        None,
    );
    let good_times = [0.0, 0.5, 1.0];
    let good_input = push(
        floats(&good_times),
        5126,
        "SCALAR",
        3,
        Some(times(&good_times)),
    );
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let good_output = push(
        floats(&[0.0, 0.0, 0.0, 1.0, s, 0.0, 0.0, s, 0.0, 0.0, 0.0, 1.0]),
        5126,
        "VEC4",
        3,
        None,
    );
    let other_input = push(
        floats(&other_times),
        5126,
        "SCALAR",
        3,
        Some(times(&other_times)),
    );
    let other_output = push(
        floats(&[0.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.2, 0.0]),
        5126,
        "VEC3",
        3,
        None,
    );
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "leg", "translation": [0.0, -1.0, 0.0]},
            {"name": "body", "mesh": 0, "skin": 0}
        ],
        "skins": [{"joints": [0, 1]}],
        "meshes": [{"name": "body", "primitives": [
            {"attributes": {"POSITION": position}, "indices": indices}
        ]}],
        "animations": [
            {"name": "Good",
             "samplers": [{"input": good_input, "output": good_output}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]},
            {"name": "Other",
             "samplers": [{"input": other_input, "output": other_output}],
             "channels": [
                 {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                 {"sampler": 0, "target": {"node": 2, "path": "scale"}}
             ]}
        ],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len()}]
    });
    (json, bin)
}

/// Adds `name` to `extensionsUsed` and, when `required`, to `extensionsRequired`.
pub fn use_extension(json: &mut Value, name: &str, required: bool) {
    let mut lists = vec!["extensionsUsed"];
    if required {
        lists.push("extensionsRequired");
    }
    for list in lists {
        let entry = json
            .as_object_mut()
            .unwrap()
            .entry(list)
            .or_insert_with(|| Value::Array(Vec::new()));
        entry.as_array_mut().unwrap().push(Value::from(name));
    }
}

/// The buffer view of accessor `accessor`.
pub fn view_of(json: &Value, accessor: usize) -> usize {
    json["accessors"][accessor]["bufferView"].as_u64().unwrap() as usize
}

/// Compresses buffer view `view` with `EXT_meshopt_compression` as gltfpack writes it: the
/// compressed bytes in buffer 0 (here the original bytes stand in for them), the view
/// itself pointing into a fallback buffer that has no data. Adds the fallback buffer on
/// first use and marks the extension required.
pub fn meshopt_compress_view(json: &mut Value, view: usize) {
    use serde_json::json;
    let buffers = json["buffers"].as_array_mut().unwrap();
    let fallback = match buffers
        .iter()
        .position(|b| b["extensions"]["EXT_meshopt_compression"]["fallback"] == true)
    {
        Some(index) => index,
        None => {
            let length = buffers[0]["byteLength"].clone();
            buffers.push(json!({
                "byteLength": length,
                "extensions": {"EXT_meshopt_compression": {"fallback": true}}
            }));
            buffers.len() - 1
        }
    };
    let v = &mut json["bufferViews"][view];
    let length = v["byteLength"].clone();
    let offset = v["byteOffset"].clone();
    v["extensions"] = json!({"EXT_meshopt_compression": {
        "buffer": 0, "byteOffset": offset, "byteLength": length,
        "byteStride": 4, "count": 1, "mode": "ATTRIBUTES"
    }});
    v["buffer"] = json!(fallback);
    let required = json["extensionsRequired"]
        .as_array()
        .is_some_and(|l| l.iter().any(|n| n == "EXT_meshopt_compression"));
    if !required {
        use_extension(json, "EXT_meshopt_compression", true);
    }
}

/// Gives `accessor` (four-float rotation keys) a sparse override of key 1 with the identity
/// rotation: its indices and values are appended to `bin` (4-byte aligned) in two new
/// buffer views. Returns `(indices view, values view)`.
pub fn add_sparse_override(json: &mut Value, bin: &mut Vec<u8>, accessor: usize) -> (usize, usize) {
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let indices_at = bin.len();
    bin.extend_from_slice(&1u16.to_le_bytes());
    bin.extend_from_slice(&[0, 0]);
    let values_at = bin.len();
    for v in [0.0f32, 0.0, 0.0, 1.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    json["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": indices_at, "byteLength": 2}));
    views.push(serde_json::json!({"buffer": 0, "byteOffset": values_at, "byteLength": 16}));
    let (iv, vv) = (views.len() - 2, views.len() - 1);
    json["accessors"][accessor]["sparse"] = serde_json::json!({
        "count": 1,
        "indices": {"bufferView": iv, "componentType": 5123},
        "values": {"bufferView": vv}
    });
    (iv, vv)
}
