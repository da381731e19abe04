//! A rig's own clips made ready for a character built on a bone map (issue 17): the foot
//! contacts a clip lacks are derived on that map, and on a rig that starts at its pelvis
//! the travel a clip carries in the pelvis is taken out (the body moves the capsule, not
//! the pose). The lab's `--character` and the Bevy plugin's file characters both build on
//! it, so a rig plays the same in both.

use crate::bone_map::HumanoidMap;
use crate::clip::{Clip, ClipError};
use crate::foot_contacts::{add_derived_foot_contacts, ClipContacts, FootContactConfig};
use crate::graph::root_source::{remove_travel, RootSource};
use crate::skeleton::Skeleton;

/// Why a rig's clips could not be made ready.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("clip '{clip}': taking its travel out of the pelvis: {error}")]
pub struct RigClipsError {
    pub clip: String,
    pub error: ClipError,
}

/// `clips` of `skeleton` ready for a character on `map`: each clip without contact curves
/// gets derived ones ([`add_derived_foot_contacts`]; authored curves win), and when the
/// rig's pelvis is a top joint ([`RootSource::Pelvis`]) each travelling clip plays in place
/// ([`remove_travel`]). Also returns what was done with each clip's contacts.
pub fn clips_for_character(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    clips: Vec<Clip>,
) -> Result<(Vec<Clip>, Vec<ClipContacts>), RigClipsError> {
    let (clips, contacts) =
        add_derived_foot_contacts(skeleton, map, clips, &FootContactConfig::default());
    let clips = match RootSource::of(skeleton, map) {
        Some(RootSource::Pelvis { joint }) => clips
            .iter()
            .map(|clip| {
                remove_travel(clip, joint).map_err(|error| RigClipsError {
                    clip: clip.name().to_string(),
                    error,
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => clips,
    };
    Ok((clips, contacts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::Track;
    use crate::clip_analysis::FOOT_CONTACT_CURVES;
    use crate::foot_contacts::ContactSource;
    use crate::graph::root_source::{clip_travel, without_first_joint};
    use crate::mannequin::Mannequin;
    use glam::Vec3;

    /// A rig that starts at its pelvis, whose clips have no contact curves and whose walk
    /// travels forward in the pelvis (as Mixamo's "not in place" exports do), comes back
    /// with derived contacts and a walk in place.
    #[test]
    fn contacts_are_derived_and_pelvis_travel_taken_out() {
        let m = Mannequin::new();
        let (skeleton, clips) = without_first_joint(&m.skeleton, &m.clips);
        let map = HumanoidMap::detect(&skeleton);
        let bare: Vec<Clip> = clips
            .iter()
            .filter(|c| c.name() == "Walk_F" || c.name() == "Idle")
            .map(|c| {
                let mut joints = c.joint_tracks().to_vec();
                if c.name() == "Walk_F" {
                    let track = joints[0].translation.clone().unwrap();
                    let values = track
                        .values()
                        .iter()
                        .zip(track.times_s())
                        .map(|(&v, &t)| v + Vec3::Z * 1.5 * t)
                        .collect();
                    joints[0].translation = Some(
                        Track::new(track.interpolation(), track.times_s().to_vec(), values)
                            .unwrap(),
                    );
                }
                Clip::new(c.name(), Some(c.duration_s()), joints).unwrap()
            })
            .collect();
        let walk = |clips: &[Clip]| clips.iter().find(|c| c.name() == "Walk_F").unwrap().clone();
        assert!(!clip_travel(&walk(&bare), 0).in_place);
        assert!(walk(&bare).curve(FOOT_CONTACT_CURVES[0]).is_none());

        let (ready, contacts) = clips_for_character(&skeleton, &map, bare).unwrap();
        assert!(clip_travel(&walk(&ready), 0).in_place);
        for name in FOOT_CONTACT_CURVES {
            assert!(walk(&ready).curve(name).is_some(), "{name}");
        }
        let report = contacts.iter().find(|c| c.clip == "Walk_F").unwrap();
        assert_eq!(report.source, [ContactSource::Derived; 2]);

        // A rig with a root above the pelvis keeps its clips' travel (the root motion's).
        let m_map = HumanoidMap::detect(&m.skeleton);
        let original = walk(&m.clips);
        let (kept, _) = clips_for_character(&m.skeleton, &m_map, vec![original.clone()]).unwrap();
        assert_eq!(kept[0].joint_tracks(), original.joint_tracks());
    }
}
