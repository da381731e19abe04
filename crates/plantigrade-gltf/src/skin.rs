//! Skinned vertices in the skeleton's rest pose, read with the `gltf` crate's accessor
//! readers, for estimating foot sockets on rigs without toe joints (SPEC RIG-3).

use glam::{Affine3A, Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::json;
use gltf::mesh::util::{ReadJoints, ReadWeights};
use plantigrade::Skeleton;

use crate::buffers::Buffers;
use crate::compression::Compression;

/// Most vertices one primitive may hold (16 M), as for other accessors.
const MAX_VERTICES: usize = 1 << 24;
/// Largest byte stride glTF allows for a vertex attribute.
const MAX_STRIDE: usize = 252;

/// The vertices of the file's skinned meshes, skinned by the skeleton's rest pose, with
/// their joint weights. Read only with [`ImportOptions::skin_vertices`](crate::ImportOptions)
/// (meshes are otherwise the renderer's business); empty without skinned meshes. Only the
/// first four influences (`JOINTS_0`, `WEIGHTS_0`) are read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinVertices {
    /// Each vertex in model space (metres, the skeleton's rest pose; y up, +Z forward for a
    /// rig that follows glTF's convention).
    pub positions_model: Vec<Vec3>,
    /// Per vertex, up to four (skeleton joint, weight) pairs; weights sum to 1, unused
    /// slots have weight 0.
    pub influences: Vec<[(u32, f32); 4]>,
    /// Mesh primitives that could not be read, each with the reason (compressed, quantized,
    /// malformed …).
    pub skipped: Vec<String>,
}

impl SkinVertices {
    /// Model-space positions of the vertices whose weight for `joint` is at least
    /// `min_weight` (0..=1).
    pub fn weighted_to(&self, joint: usize, min_weight: f32) -> Vec<Vec3> {
        self.positions_model
            .iter()
            .zip(&self.influences)
            .filter(|(_, inf)| {
                inf.iter()
                    .any(|&(j, w)| j as usize == joint && w >= min_weight && w > 0.0)
            })
            .map(|(p, _)| *p)
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.positions_model.is_empty()
    }

    /// Sockets from these vertices for the feet of `map` that have no toe joint (their
    /// sockets came from leg proportions): the vertices weighted at least
    /// [`crate::FOOT_VERTEX_MIN_WEIGHT`] to each foot joint
    /// ([`plantigrade::FootSockets::from_sole_points`]). Returns how many feet changed (0
    /// without vertices).
    pub fn feet_sockets_into(
        &self,
        skeleton: &plantigrade::Skeleton,
        map: &mut plantigrade::HumanoidMap,
    ) -> usize {
        if self.is_empty() {
            return 0;
        }
        map.sockets_from_skin(skeleton, |foot| {
            self.weighted_to(foot, crate::FOOT_VERTEX_MIN_WEIGHT)
        })
    }
}

/// Reads every primitive of every skinned mesh node. `joint_of_node[node]` is the skeleton
/// joint a node became. Never fails: what cannot be read is listed in
/// [`SkinVertices::skipped`].
pub(crate) fn read(
    root: &json::Root,
    buffers: &Buffers<'_>,
    compression: &Compression,
    skeleton: &Skeleton,
    joint_of_node: &[Option<usize>],
) -> SkinVertices {
    let mut out = SkinVertices::default();
    if !root
        .nodes
        .iter()
        .any(|n| n.mesh.is_some() && n.skin.is_some())
    {
        return out;
    }
    // The document's validation checks every index, so the crate's readers cannot panic on
    // a dangling one; accessor kinds and sizes are checked below.
    let document = match gltf::Document::from_json(root.clone()) {
        Ok(document) => document,
        Err(err) => {
            out.skipped.push(format!(
                "skinned meshes not read: the file fails validation: {err}"
            ));
            return out;
        }
    };
    let rest_model = skeleton.rest_model();
    let data = |buffer: gltf::Buffer<'_>| buffers.get(buffer.index());
    for node in document.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let mesh_name = mesh.name().unwrap_or("(unnamed)");
        if compression
            .skipped_meshes()
            .iter()
            .any(|m| m.mesh == mesh.index())
        {
            out.skipped
                .push(format!("mesh {} '{mesh_name}': compressed", mesh.index()));
            continue;
        }
        // Joint matrix of each skin joint: rest pose (model space) × inverse bind matrix.
        let joints: Vec<Option<usize>> = skin
            .joints()
            .map(|n| joint_of_node.get(n.index()).copied().flatten())
            .collect();
        let inverse_binds: Vec<Affine3A> = match skin.inverse_bind_matrices() {
            None => vec![Affine3A::IDENTITY; joints.len()],
            Some(accessor) => {
                let ok = check(&accessor, Dimensions::Mat4, &[DataType::F32], joints.len());
                let read = ok.and_then(|()| {
                    skin.reader(data)
                        .read_inverse_bind_matrices()
                        .ok_or_else(|| "its data is out of range".to_string())
                });
                match read {
                    Ok(matrices) => matrices
                        .take(joints.len())
                        .map(|m| Affine3A::from_mat4(Mat4::from_cols_array_2d(&m)))
                        .collect(),
                    Err(reason) => {
                        out.skipped.push(format!(
                            "mesh {} '{mesh_name}': skin {} inverse bind matrices: {reason}",
                            mesh.index(),
                            skin.index()
                        ));
                        continue;
                    }
                }
            }
        };
        let joint_matrices: Vec<Option<(u32, Affine3A)>> = joints
            .iter()
            .zip(&inverse_binds)
            .map(|(joint, ibm)| {
                let joint = (*joint)?;
                Some((joint as u32, rest_model[joint] * *ibm))
            })
            .collect();
        for primitive in mesh.primitives() {
            let at = format!(
                "mesh {} '{mesh_name}' primitive {}",
                mesh.index(),
                primitive.index()
            );
            match read_primitive(&primitive, data, &joint_matrices, &mut out) {
                Ok(()) => {}
                Err(reason) => out.skipped.push(format!("{at}: {reason}")),
            }
        }
    }
    out
}

fn read_primitive<'a, 's, F>(
    primitive: &'a gltf::Primitive<'a>,
    data: F,
    joint_matrices: &[Option<(u32, Affine3A)>],
    out: &mut SkinVertices,
) -> Result<(), String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    use gltf::Semantic;
    let get = |semantic: Semantic| {
        primitive
            .get(&semantic)
            .ok_or_else(|| format!("no {semantic:?} attribute"))
    };
    let positions = get(Semantic::Positions)?;
    let count = positions.count();
    check(&positions, Dimensions::Vec3, &[DataType::F32], count)
        .map_err(|r| format!("POSITION: {r}"))?;
    let joints = get(Semantic::Joints(0))?;
    check(
        &joints,
        Dimensions::Vec4,
        &[DataType::U8, DataType::U16],
        count,
    )
    .map_err(|r| format!("JOINTS_0: {r}"))?;
    let weights = get(Semantic::Weights(0))?;
    check(
        &weights,
        Dimensions::Vec4,
        &[DataType::F32, DataType::U8, DataType::U16],
        count,
    )
    .map_err(|r| format!("WEIGHTS_0: {r}"))?;
    if weights.data_type() != DataType::F32 && !weights.normalized() {
        return Err("WEIGHTS_0: integer weights that are not normalized".into());
    }
    let reader = primitive.reader(data);
    let out_of_range = |what: &str| format!("{what}: its data is out of range");
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or_else(|| out_of_range("POSITION"))?
        .collect();
    let joints: Vec<[u16; 4]> = match reader.read_joints(0) {
        Some(j @ ReadJoints::U8(_)) | Some(j @ ReadJoints::U16(_)) => j.into_u16().collect(),
        None => return Err(out_of_range("JOINTS_0")),
    };
    let weights: Vec<[f32; 4]> = match reader.read_weights(0) {
        Some(w @ (ReadWeights::F32(_) | ReadWeights::U8(_) | ReadWeights::U16(_))) => {
            w.into_f32().collect()
        }
        None => return Err(out_of_range("WEIGHTS_0")),
    };
    if positions.len() != count || joints.len() != count || weights.len() != count {
        return Err("attribute counts differ".into());
    }
    out.positions_model.reserve(count);
    out.influences.reserve(count);
    for ((p, j), w) in positions.iter().zip(&joints).zip(&weights) {
        let local = Vec3::from(*p);
        let mut influences = [(0u32, 0.0f32); 4];
        let mut sum = 0.0;
        let mut skinned = Vec3::ZERO;
        for k in 0..4 {
            let weight = w[k];
            if !weight.is_finite() || weight <= 0.0 {
                continue;
            }
            // A weight on an index the skin does not have, or on a node that is not a
            // joint, is left out.
            let Some(Some((joint, matrix))) = joint_matrices.get(usize::from(j[k])) else {
                continue;
            };
            influences[k] = (*joint, weight);
            skinned += weight * matrix.transform_point3(local);
            sum += weight;
        }
        if !sum.is_finite() || sum <= 1e-6 || !skinned.is_finite() {
            continue;
        }
        for influence in &mut influences {
            influence.1 /= sum;
        }
        out.positions_model.push(skinned / sum);
        out.influences.push(influences);
    }
    Ok(())
}

/// An accessor the crate's reader can read as `dims` × one of `types` without panicking:
/// its kind matches, it has a buffer view with a glTF-legal stride, no sparse part (skin
/// data is not sparse in practice), and at least `count` elements, at most 16 M.
fn check(
    accessor: &gltf::Accessor<'_>,
    dims: Dimensions,
    types: &[DataType],
    count: usize,
) -> Result<(), String> {
    if accessor.dimensions() != dims {
        return Err(format!(
            "expected {dims:?}, found {:?}",
            accessor.dimensions()
        ));
    }
    if !types.contains(&accessor.data_type()) {
        return Err(format!(
            "unsupported component type {:?}",
            accessor.data_type()
        ));
    }
    if accessor.sparse().is_some() {
        return Err("sparse accessor".into());
    }
    let Some(view) = accessor.view() else {
        return Err("no buffer view (compressed data?)".into());
    };
    if view.stride().is_some_and(|s| s > MAX_STRIDE) {
        return Err("byte stride above 252".into());
    }
    // Offsets and lengths within the buffer, so the reader's sums cannot overflow.
    let view_end = view.offset().checked_add(view.length());
    if view_end.is_none_or(|end| end > view.buffer().length()) || accessor.offset() > view.length()
    {
        return Err("offsets beyond its buffer".into());
    }
    if accessor.count() == 0 || accessor.count() < count || accessor.count() > MAX_VERTICES {
        return Err(format!("{} elements", accessor.count()));
    }
    Ok(())
}
