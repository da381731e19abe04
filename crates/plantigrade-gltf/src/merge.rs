//! Clips from another file onto an already-imported skeleton: packs such as KayKit keep one
//! rig's clips in several `.glb` files (movement, advanced movement, general), each with
//! the same skeleton. See [`ImportedAsset::add_clips_from_path`].

use std::collections::HashSet;
use std::path::Path;

use plantigrade::foot_contacts::{add_derived_foot_contacts, ClipContacts, FootContactConfig};
use plantigrade::{HumanoidMap, JointTracks, Skeleton};

use crate::error::GltfError;
use crate::import::{
    load_slice_with, ImportOptions, ImportedAsset, SkippedChannel, SkippedClip,
    MAX_CLIP_JOINT_SLOTS,
};

/// How many joint names a [`SkeletonMismatch::FewCommonJoints`] lists.
const NAMES_LISTED: usize = 8;

/// Why another file's skeleton cannot carry its clips onto an asset's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkeletonMismatch {
    /// Fewer than half of the file's joints have the name of a joint of the asset: another
    /// rig (two rigs may share a name or two, such as `root`).
    #[error(
        "only {common} of the file's {file_joints} joints are named as in the asset (not \
         found: {})",
        not_found.join(", ")
    )]
    FewCommonJoints {
        common: usize,
        file_joints: usize,
        /// The first of the file's joints the asset lacks, by name.
        not_found: Vec<String>,
    },
    /// A joint both have hangs under another parent in the file: its local keys are
    /// relative to that other parent, so they would pose the asset's joint wrongly.
    #[error(
        "joint '{joint}' hangs under {} in the asset but under {} in the file",
        parent_label(asset_parent),
        parent_label(file_parent)
    )]
    DifferentParent {
        joint: String,
        asset_parent: Option<String>,
        file_parent: Option<String>,
    },
}

fn parent_label(parent: &Option<String>) -> String {
    match parent {
        Some(name) => format!("'{name}'"),
        None => "no parent (a root)".into(),
    }
}

/// A joint the file animates that the asset's skeleton lacks: its channels were skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmatchedJoint {
    /// The clip, as named in the file.
    pub clip: String,
    /// The file's joint, by name.
    pub joint: String,
}

/// What [`ImportedAsset::add_clips_from_path`] added and left out.
#[derive(Clone, Debug, Default)]
pub struct AddedClips {
    /// The clips added to [`ImportedAsset::clips`] (at its end, in file order), by name.
    pub added: Vec<String>,
    /// Clips of the file named like a clip the asset already has (e.g. every KayKit file's
    /// `Rig_Medium|T-Pose`): the asset's is kept and the file's left out.
    pub duplicates: Vec<String>,
    /// Per clip, each joint the file animates that the asset's skeleton lacks (its channels
    /// are skipped; the rest of the clip is added).
    pub unmatched_joints: Vec<UnmatchedJoint>,
    /// The asset's joints the file's skeleton lacks: the added clips hold them at rest.
    pub joints_not_in_file: Vec<String>,
    /// Joints both have whose rest transform differs between the two (the file's keys
    /// are used as they are; a joint without keys takes the asset's rest).
    pub rest_differs: Vec<String>,
    /// Animations of the file that could not be imported (see [`ImportedAsset::skipped_clips`]).
    pub skipped_clips: Vec<SkippedClip>,
    /// Channels of the file's clips that were not imported (see
    /// [`ImportedAsset::skipped_channels`]).
    pub skipped_channels: Vec<SkippedChannel>,
    /// Per added clip, its foot contacts (as [`ImportedAsset::foot_contacts`]); empty when
    /// [`ImportOptions::foot_contacts`] is off.
    pub foot_contacts: Vec<ClipContacts>,
}

impl ImportedAsset {
    /// Adds the clips of another `.glb`/`.gltf` whose skeleton is this one's (matched joint
    /// by joint by name), as [`ImportedAsset::add_clips_from_slice`] does.
    pub fn add_clips_from_path(
        &mut self,
        path: &Path,
        options: ImportOptions,
    ) -> Result<AddedClips, GltfError> {
        let bytes = std::fs::read(path).map_err(|source| GltfError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.add_clips_from_slice(&bytes, path.parent(), options)
    }

    /// Adds the clips of another file (held in memory; `base_dir` as in
    /// [`crate::load_slice`]) to this asset, on this asset's skeleton: each joint's keys go
    /// to the joint of the same name. The file must be the same rig: at least half of its
    /// joints named as here, and every shared joint under the same parent, else
    /// [`GltfError::SkeletonMismatch`] and nothing changes. Channels of joints this
    /// skeleton lacks are skipped, a clip named like one already here is left out (the
    /// first kept), and both are listed in the returned [`AddedClips`]; the file is read
    /// with `options` (strict or not) like [`load_slice_with`].
    ///
    /// With [`ImportOptions::foot_contacts`] the added clips get derived foot contacts as
    /// at import, on this skeleton's detected bone map (with the skin's sockets when this
    /// asset has skin vertices); their reports are appended to
    /// [`ImportedAsset::foot_contacts`] when that list covers every clip already here.
    pub fn add_clips_from_slice(
        &mut self,
        bytes: &[u8],
        base_dir: Option<&Path>,
        options: ImportOptions,
    ) -> Result<AddedClips, GltfError> {
        let other = load_slice_with(
            bytes,
            base_dir,
            options.with_foot_contacts(false).with_skin_vertices(false),
        )?;
        let joint_map = match_joints(&self.skeleton, &other.skeleton)?;
        let total =
            (self.clips.len() + other.clips.len()).saturating_mul(self.skeleton.num_joints());
        if total > MAX_CLIP_JOINT_SLOTS {
            return Err(GltfError::TooLarge(format!(
                "{} clips over {} joints after adding the file's",
                self.clips.len() + other.clips.len(),
                self.skeleton.num_joints()
            )));
        }

        let mut report = AddedClips {
            skipped_clips: other.skipped_clips,
            skipped_channels: other.skipped_channels,
            ..AddedClips::default()
        };
        let asset_rest = self.skeleton.rest_local();
        let file_rest = other.skeleton.rest_local();
        let mut in_file = vec![false; self.skeleton.num_joints()];
        for (file_joint, asset_joint) in joint_map.iter().enumerate() {
            let Some(asset_joint) = *asset_joint else {
                continue;
            };
            in_file[asset_joint] = true;
            let (a, b) = (&asset_rest[asset_joint], &file_rest[file_joint]);
            // 0.1 mm, or 0.1 % of the bone, and 0.1° of rotation.
            let tolerance_m = 1e-4f32.max(1e-3 * a.translation.length());
            let same = a.translation.distance(b.translation) <= tolerance_m
                && a.rotation.angle_between(b.rotation) <= 0.1f32.to_radians()
                && a.scale
                    .abs_diff_eq(b.scale, 1e-3 * a.scale.abs().max_element());
            if !same {
                report
                    .rest_differs
                    .push(self.skeleton.name(asset_joint).to_string());
            }
        }
        report.joints_not_in_file = (0..self.skeleton.num_joints())
            .filter(|&j| !in_file[j])
            .map(|j| self.skeleton.name(j).to_string())
            .collect();

        let mut names: HashSet<String> = self.clips.iter().map(|c| c.name().to_string()).collect();
        let mut added = Vec::with_capacity(other.clips.len());
        for clip in other.clips {
            if !names.insert(clip.name().to_string()) {
                report.duplicates.push(clip.name().to_string());
                continue;
            }
            let mut tracks = vec![JointTracks::default(); self.skeleton.num_joints()];
            for (file_joint, joint_tracks) in clip.joint_tracks().iter().enumerate() {
                if joint_tracks.is_empty() {
                    continue;
                }
                match joint_map[file_joint] {
                    Some(asset_joint) => tracks[asset_joint] = joint_tracks.clone(),
                    None => report.unmatched_joints.push(UnmatchedJoint {
                        clip: clip.name().to_string(),
                        joint: other.skeleton.name(file_joint).to_string(),
                    }),
                }
            }
            added.push(clip.with_joint_tracks(tracks));
        }

        let added = if options.foot_contacts {
            let mut map = HumanoidMap::detect(&self.skeleton);
            self.sockets_from_skin(&mut map);
            let (clips, contacts) = add_derived_foot_contacts(
                &self.skeleton,
                &map,
                added,
                &FootContactConfig::default(),
            );
            // Only a list that already covers every clip stays aligned with the clips.
            if self.foot_contacts.len() == self.clips.len() {
                self.foot_contacts.extend(contacts.iter().cloned());
            }
            report.foot_contacts = contacts;
            clips
        } else {
            added
        };
        report.added = added.iter().map(|c| c.name().to_string()).collect();
        self.clips.extend(added);
        Ok(report)
    }
}

/// For each joint of `file`, the joint of `asset` with its name; refuses rigs that share
/// fewer than half of the file's joint names, or a shared joint under different parents.
fn match_joints(asset: &Skeleton, file: &Skeleton) -> Result<Vec<Option<usize>>, GltfError> {
    let map: Vec<Option<usize>> = file.names().iter().map(|n| asset.find(n)).collect();
    let common = map.iter().filter(|m| m.is_some()).count();
    if common == 0 || 2 * common < map.len() {
        return Err(GltfError::SkeletonMismatch(
            SkeletonMismatch::FewCommonJoints {
                common,
                file_joints: map.len(),
                not_found: file
                    .names()
                    .iter()
                    .zip(&map)
                    .filter(|(_, m)| m.is_none())
                    .take(NAMES_LISTED)
                    .map(|(n, _)| n.clone())
                    .collect(),
            },
        ));
    }
    for (file_joint, asset_joint) in map.iter().enumerate() {
        let Some(asset_joint) = *asset_joint else {
            continue;
        };
        let asset_parent = asset.parent(asset_joint).map(|p| asset.name(p).to_string());
        let file_parent = file.parent(file_joint).map(|p| file.name(p).to_string());
        if asset_parent != file_parent {
            return Err(GltfError::SkeletonMismatch(
                SkeletonMismatch::DifferentParent {
                    joint: asset.name(asset_joint).to_string(),
                    asset_parent,
                    file_parent,
                },
            ));
        }
    }
    Ok(map)
}
