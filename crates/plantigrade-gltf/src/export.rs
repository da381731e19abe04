//! Export: a skeleton and its clips as a `.glb` that Blender (or any glTF viewer) opens as a
//! skinned stick figure with its animations.

use std::collections::HashMap;
use std::path::Path;

use glam::{Affine3A, Mat4, Quat, Vec3};
use gltf::json;
use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::validation::{Checked, USize64};
use gltf::json::Index;
use plantigrade::{Clip, Interpolation, Skeleton, Track};

use crate::error::GltfError;
use crate::metadata::{self, ClipMetadata};

/// Writes `skeleton` and `clips` as binary glTF (`.glb`) bytes.
///
/// The file holds one node per joint (rest pose as translation/rotation/scale), a skin with
/// inverse bind matrices of the rest pose, a mesh of one octahedral "bone" per joint rigidly
/// skinned to it, and one animation per clip. Tracks keep their interpolation and raw values
/// (cubic-spline tangents included), so [`crate::load_slice`] reads back the same clips;
/// looping, authored velocity, exact duration, float curves and events go into the
/// animation's `extras` (see the crate docs).
pub fn export_glb(skeleton: &Skeleton, clips: &[Clip]) -> Result<Vec<u8>, GltfError> {
    for clip in clips {
        if clip.joint_tracks().len() != skeleton.num_joints() {
            return Err(GltfError::ClipSkeletonMismatch {
                clip: clip.name().to_string(),
                tracks: clip.joint_tracks().len(),
                joints: skeleton.num_joints(),
            });
        }
    }
    let mut builder = Builder::default();
    builder.root.asset = json::Asset {
        copyright: None,
        extensions: None,
        extras: Default::default(),
        generator: Some(format!("plantigrade-gltf {}", env!("CARGO_PKG_VERSION"))),
        min_version: None,
        version: "2.0".into(),
    };
    builder.add_skeleton(skeleton)?;
    for clip in clips {
        builder.add_clip(skeleton, clip)?;
    }
    builder.finish()
}

/// [`export_glb`], written to `path`.
pub fn export_glb_to_path(
    skeleton: &Skeleton,
    clips: &[Clip],
    path: &Path,
) -> Result<(), GltfError> {
    let bytes = export_glb(skeleton, clips)?;
    std::fs::write(path, bytes).map_err(|source| GltfError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn index<T>(i: usize) -> Result<Index<T>, GltfError> {
    u32::try_from(i)
        .map(Index::new)
        .map_err(|_| GltfError::TooLarge(format!("more than {} glTF objects", u32::MAX)))
}

fn dims(ty: Type) -> usize {
    match ty {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

/// The glTF document being built and its single binary buffer.
#[derive(Default)]
struct Builder {
    root: json::Root,
    bin: Vec<u8>,
    /// Key-time accessors already written, by the bits of their times (shared by tracks).
    times_accessors: HashMap<Vec<u32>, Index<json::Accessor>>,
}

impl Builder {
    fn push_view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> Result<Index<json::buffer::View>, GltfError> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let view = index(self.root.buffer_views.len())?;
        self.root.buffer_views.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        });
        Ok(view)
    }

    fn push_accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        ty: Type,
        target: Option<json::buffer::Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Result<Index<json::Accessor>, GltfError> {
        let view = self.push_view(bytes, target)?;
        let accessor = index(self.root.accessors.len())?;
        let (min, max) = match bounds {
            Some((min, max)) => (Some(json::Value::from(min)), Some(json::Value::from(max))),
            None => (None, None),
        };
        self.root.accessors.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        });
        Ok(accessor)
    }

    /// A float accessor of `values.len() / dims(ty)` elements, with per-component min/max
    /// when `bounds` (glTF requires them for positions and key times).
    fn push_floats(
        &mut self,
        values: &[f32],
        ty: Type,
        target: Option<json::buffer::Target>,
        bounds: bool,
    ) -> Result<Index<json::Accessor>, GltfError> {
        let n = dims(ty);
        let bounds = bounds.then(|| {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for element in values.chunks_exact(n) {
                for (c, &v) in element.iter().enumerate() {
                    min[c] = min[c].min(v);
                    max[c] = max[c].max(v);
                }
            }
            (min, max)
        });
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.push_accessor(
            &bytes,
            values.len() / n,
            ComponentType::F32,
            ty,
            target,
            bounds,
        )
    }

    fn times_accessor(&mut self, times_s: &[f32]) -> Result<Index<json::Accessor>, GltfError> {
        let key: Vec<u32> = times_s.iter().map(|t| t.to_bits()).collect();
        if let Some(&accessor) = self.times_accessors.get(&key) {
            return Ok(accessor);
        }
        let accessor = self.push_floats(times_s, Type::Scalar, None, true)?;
        self.times_accessors.insert(key, accessor);
        Ok(accessor)
    }

    /// Nodes (one per joint, then the mesh node), the skin, the mesh and the scene.
    fn add_skeleton(&mut self, skeleton: &Skeleton) -> Result<(), GltfError> {
        let joints = skeleton.num_joints();
        for (joint, rest) in skeleton.rest_local().iter().enumerate() {
            let children: Vec<Index<json::Node>> = skeleton
                .children(joint)
                .map(index)
                .collect::<Result<_, _>>()?;
            self.root.nodes.push(json::Node {
                name: Some(skeleton.name(joint).to_string()),
                translation: Some(rest.translation.to_array()),
                rotation: Some(json::scene::UnitQuaternion(rest.rotation.to_array())),
                scale: (rest.scale != Vec3::ONE).then(|| rest.scale.to_array()),
                children: (!children.is_empty()).then_some(children),
                ..Default::default()
            });
        }

        let rest_model = skeleton.rest_model();
        let mut inverse_bind = Vec::with_capacity(joints * 16);
        for (joint, model) in rest_model.iter().enumerate() {
            let inverse = Mat4::from(model.inverse());
            if !inverse.is_finite() || model.matrix3.determinant().abs() < 1e-12 {
                return Err(GltfError::NonInvertibleRest {
                    joint,
                    name: skeleton.name(joint).to_string(),
                });
            }
            inverse_bind.extend_from_slice(&inverse.to_cols_array());
        }
        let inverse_bind = self.push_floats(&inverse_bind, Type::Mat4, None, false)?;
        let roots: Vec<usize> = (0..joints)
            .filter(|&j| skeleton.parent(j).is_none())
            .collect();
        self.root.skins.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(inverse_bind),
            joints: (0..joints).map(index).collect::<Result<_, _>>()?,
            name: Some("plantigrade_skin".into()),
            skeleton: match roots.as_slice() {
                [single] => Some(index(*single)?),
                _ => None,
            },
        });

        let mesh = BoneMesh::of_skeleton(skeleton, &rest_model);
        self.add_mesh(&mesh)?;
        let mesh_node = index(self.root.nodes.len())?;
        self.root.nodes.push(json::Node {
            name: Some("plantigrade_mesh".into()),
            mesh: Some(Index::new(0)),
            skin: Some(Index::new(0)),
            ..Default::default()
        });

        let mut scene_nodes: Vec<Index<json::Node>> =
            roots.iter().map(|&r| index(r)).collect::<Result<_, _>>()?;
        scene_nodes.push(mesh_node);
        self.root.scenes.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("plantigrade".into()),
            nodes: scene_nodes,
        });
        self.root.scene = Some(Index::new(0));
        Ok(())
    }

    fn add_mesh(&mut self, mesh: &BoneMesh) -> Result<(), GltfError> {
        use json::buffer::Target::{ArrayBuffer, ElementArrayBuffer};
        use json::mesh::Semantic;
        let flat3 = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>();
        let positions =
            self.push_floats(&flat3(&mesh.positions), Type::Vec3, Some(ArrayBuffer), true)?;
        let normals =
            self.push_floats(&flat3(&mesh.normals), Type::Vec3, Some(ArrayBuffer), false)?;
        let joint_bytes: Vec<u8> = mesh
            .joints
            .iter()
            .flat_map(|&j| [j, 0, 0, 0])
            .flat_map(u16::to_le_bytes)
            .collect();
        let joints = self.push_accessor(
            &joint_bytes,
            mesh.joints.len(),
            ComponentType::U16,
            Type::Vec4,
            Some(ArrayBuffer),
            None,
        )?;
        let weight_values: Vec<f32> = mesh
            .joints
            .iter()
            .flat_map(|_| [1.0, 0.0, 0.0, 0.0])
            .collect();
        let weights = self.push_floats(&weight_values, Type::Vec4, Some(ArrayBuffer), false)?;
        let vertex_count = u32::try_from(mesh.positions.len())
            .map_err(|_| GltfError::TooLarge("mesh vertex count".into()))?;
        let index_bytes: Vec<u8> = (0..vertex_count).flat_map(u32::to_le_bytes).collect();
        let indices = self.push_accessor(
            &index_bytes,
            mesh.positions.len(),
            ComponentType::U32,
            Type::Scalar,
            Some(ElementArrayBuffer),
            None,
        )?;
        let attributes = [
            (Semantic::Positions, positions),
            (Semantic::Normals, normals),
            (Semantic::Joints(0), joints),
            (Semantic::Weights(0), weights),
        ]
        .into_iter()
        .map(|(semantic, accessor)| (Checked::Valid(semantic), accessor))
        .collect();
        self.root.meshes.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some("plantigrade_bones".into()),
            primitives: vec![json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: None,
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: None,
            }],
            weights: None,
        });
        Ok(())
    }

    fn add_channel(
        &mut self,
        animation: &mut json::Animation,
        joint: usize,
        property: json::animation::Property,
        keys: Keys<'_>,
    ) -> Result<(), GltfError> {
        let input = self.times_accessor(keys.times_s)?;
        let output = self.push_floats(&keys.values, keys.ty, None, false)?;
        let sampler = index(animation.samplers.len())?;
        animation.samplers.push(json::animation::Sampler {
            extensions: None,
            extras: Default::default(),
            input,
            interpolation: Checked::Valid(match keys.interpolation {
                Interpolation::Step => json::animation::Interpolation::Step,
                Interpolation::Linear => json::animation::Interpolation::Linear,
                Interpolation::CubicSpline => json::animation::Interpolation::CubicSpline,
            }),
            output,
        });
        animation.channels.push(json::animation::Channel {
            sampler,
            target: json::animation::Target {
                extensions: None,
                extras: Default::default(),
                node: index(joint)?,
                path: Checked::Valid(property),
            },
            extensions: None,
            extras: Default::default(),
        });
        Ok(())
    }

    fn add_clip(&mut self, skeleton: &Skeleton, clip: &Clip) -> Result<(), GltfError> {
        use json::animation::Property;
        let extras = metadata::to_extras(ClipMetadata::of_clip(clip))
            .map_err(|e| GltfError::Serialize(e.to_string()))?;
        let mut animation = json::Animation {
            extensions: None,
            extras: Some(extras),
            channels: Vec::new(),
            name: Some(clip.name().to_string()),
            samplers: Vec::new(),
        };
        for (joint, tracks) in clip.joint_tracks().iter().enumerate() {
            if let Some(track) = &tracks.translation {
                self.add_channel(
                    &mut animation,
                    joint,
                    Property::Translation,
                    Keys::vec3(track),
                )?;
            }
            if let Some(track) = &tracks.rotation {
                self.add_channel(&mut animation, joint, Property::Rotation, Keys::quat(track))?;
            }
            if let Some(track) = &tracks.scale {
                self.add_channel(&mut animation, joint, Property::Scale, Keys::vec3(track))?;
            }
        }
        if animation.channels.is_empty() {
            // glTF animations need a channel: hold the first joint's rest rotation.
            let rest: Quat = skeleton
                .rest_local()
                .first()
                .map_or(Quat::IDENTITY, |t| t.rotation);
            let keys = Keys {
                interpolation: Interpolation::Step,
                times_s: &[0.0],
                values: rest.to_array().to_vec(),
                ty: Type::Vec4,
            };
            self.add_channel(&mut animation, 0, Property::Rotation, keys)?;
        }
        self.root.animations.push(animation);
        Ok(())
    }

    /// Serialises the JSON and packs the GLB (header, JSON chunk, BIN chunk).
    fn finish(mut self) -> Result<Vec<u8>, GltfError> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        self.root.buffers.push(json::Buffer {
            byte_length: USize64::from(self.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        let mut json_bytes =
            serde_json::to_vec(&self.root).map_err(|e| GltfError::Serialize(e.to_string()))?;
        while json_bytes.len() % 4 != 0 {
            json_bytes.push(b' ');
        }
        let total = 12 + 8 + json_bytes.len() + 8 + self.bin.len();
        let too_large = || GltfError::TooLarge(format!("a {total}-byte .glb (limit 4 GiB)"));
        let total_u32 = u32::try_from(total).map_err(|_| too_large())?;
        let json_len = u32::try_from(json_bytes.len()).map_err(|_| too_large())?;
        let bin_len = u32::try_from(self.bin.len()).map_err(|_| too_large())?;
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&total_u32.to_le_bytes());
        out.extend_from_slice(&json_len.to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_bytes);
        out.extend_from_slice(&bin_len.to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&self.bin);
        Ok(out)
    }
}

/// The keys of one track, flattened for a glTF sampler (raw values: cubic triples kept).
struct Keys<'a> {
    interpolation: Interpolation,
    times_s: &'a [f32],
    values: Vec<f32>,
    ty: Type,
}

impl<'a> Keys<'a> {
    fn vec3(track: &'a Track<Vec3>) -> Self {
        Self {
            interpolation: track.interpolation(),
            times_s: track.times_s(),
            values: track.values().iter().flat_map(|v| v.to_array()).collect(),
            ty: Type::Vec3,
        }
    }

    fn quat(track: &'a Track<Quat>) -> Self {
        Self {
            interpolation: track.interpolation(),
            times_s: track.times_s(),
            values: track.values().iter().flat_map(|q| q.to_array()).collect(),
            ty: Type::Vec4,
        }
    }
}

/// A flat-shaded mesh in model space at the rest pose: one octahedral bone per joint.
#[derive(Default)]
struct BoneMesh {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    /// The joint each vertex is rigidly bound to.
    joints: Vec<u16>,
}

impl BoneMesh {
    /// For every joint with a parent, a bone from the parent to it, bound to the parent;
    /// for every leaf joint, a short bone continuing past it, bound to it. A root joint at
    /// the model origin is a ground-level motion joint, not a body part: no bone starts there.
    fn of_skeleton(skeleton: &Skeleton, rest_model: &[Affine3A]) -> Self {
        let position = |j: usize| Vec3::from(rest_model[j].translation);
        let mut mesh = Self::default();
        for joint in 0..skeleton.num_joints() {
            let here = position(joint);
            let bind = u16::try_from(joint).unwrap_or(u16::MAX);
            if let Some(parent) = skeleton.parent(joint) {
                let from = position(parent);
                let parent_is_ground = skeleton.parent(parent).is_none() && from.length() < 1e-3;
                if !parent_is_ground {
                    mesh.add_bone(from, here, u16::try_from(parent).unwrap_or(u16::MAX));
                }
            }
            if skeleton.children(joint).next().is_none() {
                let (direction, length) = match skeleton.parent(joint) {
                    Some(parent) => {
                        let along = here - position(parent);
                        let length = (0.5 * along.length()).clamp(0.03, 0.15);
                        (along.try_normalize().unwrap_or(Vec3::Y), length)
                    }
                    None => (Vec3::Y, 0.1),
                };
                mesh.add_bone(here, here + direction * length, bind);
            }
        }
        mesh
    }

    /// An octahedron from `from` to `to` with its widest ring a fifth of the way along.
    fn add_bone(&mut self, from: Vec3, to: Vec3, joint: u16) {
        let axis = to - from;
        let length = axis.length();
        if !length.is_finite() || length <= 1e-4 {
            return;
        }
        let direction = axis / length;
        let helper = if direction.y.abs() < 0.9 {
            Vec3::Y
        } else {
            Vec3::X
        };
        let side = direction.cross(helper).normalize();
        let up = side.cross(direction);
        let width = (0.12 * length).clamp(0.008, 0.06);
        let centre = from + axis * 0.2;
        let ring = [
            centre + side * width,
            centre + up * width,
            centre - side * width,
            centre - up * width,
        ];
        for k in 0..4 {
            let (a, b) = (ring[k], ring[(k + 1) % 4]);
            self.add_triangle([from, a, b], centre, joint);
            self.add_triangle([to, a, b], centre, joint);
        }
    }

    /// A triangle wound counter-clockwise seen from outside (`inside` is a point within).
    fn add_triangle(&mut self, [a, mut b, mut c]: [Vec3; 3], inside: Vec3, joint: u16) {
        let mut normal = (b - a).cross(c - a);
        if normal.dot(a - inside) < 0.0 {
            std::mem::swap(&mut b, &mut c);
            normal = -normal;
        }
        let normal = normal.try_normalize().unwrap_or(Vec3::Y);
        for p in [a, b, c] {
            self.positions.push(p);
            self.normals.push(normal);
            self.joints.push(joint);
        }
    }
}
