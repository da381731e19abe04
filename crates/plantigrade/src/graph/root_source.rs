//! Where a rig's root motion comes from, and what its clips do with it (issue 17, item 5).
//!
//! Most rigs have a root joint above the pelvis (UE, Rigify/UAL, KayKit, Quaternius):
//! the default root motion (vertical and yaw extracted from the first joint) fits them.
//! Others (Mixamo's) start at the pelvis: extracting its vertical motion would lift the
//! capsule with every step's bob, and its yaw would turn the capsule with the hips. For
//! those the pelvis's motion stays in the pose, except the travel of a clip that moves
//! forward, which is taken out of the clip once (it becomes the clip's authored velocity)
//! so a walk plays in place on the capsule with its sway and bob intact.

use glam::Vec3;

use super::def::{RootAxis, RootMotionDef};
use crate::bone_map::HumanoidMap;
use crate::clip::{Clip, ClipError, JointTracks, Track};
use crate::skeleton::Skeleton;

/// A clip whose root moves less than this on average, horizontally, is in place (m/s).
pub const IN_PLACE_MAX_M_S: f32 = 0.05;

/// Which joint carries a rig's root motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootSource {
    /// A joint above the pelvis (the pelvis's topmost ancestor): the default root motion
    /// fits.
    AboveThePelvis { joint: usize },
    /// The pelvis itself is a top joint: nothing above it moves the body.
    Pelvis { joint: usize },
}

impl RootSource {
    /// The source of `map`'s pelvis on `skeleton`; `None` without a pelvis.
    pub fn of(skeleton: &Skeleton, map: &HumanoidMap) -> Option<RootSource> {
        let pelvis = map.pelvis?;
        let mut top = pelvis;
        while let Some(parent) = skeleton.parent(top) {
            top = parent;
        }
        Some(if top == pelvis {
            RootSource::Pelvis { joint: pelvis }
        } else {
            RootSource::AboveThePelvis { joint: top }
        })
    }

    pub fn joint(self) -> usize {
        match self {
            RootSource::AboveThePelvis { joint } | RootSource::Pelvis { joint } => joint,
        }
    }

    /// The root motion that fits `clips`: `None` for a root above the pelvis (the graph's
    /// own, by default vertical and yaw extracted, fits). For a pelvis root, the pelvis
    /// named, its bob and hip yaw kept in the pose (movement drives the capsule); its
    /// sway and surge kept too when every clip is in place, or else discarded, as a
    /// clip's travel would walk the body off the capsule ([`remove_travel`] takes the
    /// travel out of such clips and keeps the sway).
    pub fn root_motion(self, skeleton: &Skeleton, clips: &[Clip]) -> Option<RootMotionDef> {
        match self {
            RootSource::AboveThePelvis { .. } => None,
            RootSource::Pelvis { joint } => {
                let travels = clips.iter().any(|c| !clip_travel(c, joint).in_place);
                let horizontal = if travels {
                    RootAxis::Discard
                } else {
                    RootAxis::Keep
                };
                Some(RootMotionDef {
                    joint: Some(skeleton.name(joint).to_string()),
                    x: horizontal,
                    y: RootAxis::Keep,
                    z: horizontal,
                    yaw: RootAxis::Keep,
                })
            }
        }
    }
}

/// How far a clip's root joint travels horizontally, on average (model space, m/s; its
/// translation is model space as a top joint's is), and whether that is in place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipTravel {
    pub velocity_model_m_s: Vec3,
    pub in_place: bool,
}

/// The travel of `clip`'s `joint` from its first key to its last, over the clip's
/// duration, horizontal only.
pub fn clip_travel(clip: &Clip, joint: usize) -> ClipTravel {
    let track = clip
        .joint_tracks()
        .get(joint)
        .and_then(|t| t.translation.as_ref());
    let velocity = match track {
        Some(track) if clip.duration_s() > 0.0 => {
            let first = track.sample(0.0);
            let last = track.sample(clip.duration_s());
            let travel = (last - first) / clip.duration_s();
            Vec3::new(travel.x, 0.0, travel.z)
        }
        _ => Vec3::ZERO,
    };
    ClipTravel {
        velocity_model_m_s: velocity,
        in_place: velocity.length() < IN_PLACE_MAX_M_S,
    }
}

/// `clip` played in place: the constant horizontal travel of `joint` taken out of its
/// keys, so its position at the end of a loop is where it began, with the rest of its
/// motion (sway, bob, the stride's surge) intact. The travel becomes the clip's authored
/// velocity unless it has one. An in-place clip is returned unchanged.
pub fn remove_travel(clip: &Clip, joint: usize) -> Result<Clip, ClipError> {
    let travel = clip_travel(clip, joint);
    if travel.in_place {
        return Ok(clip.clone());
    }
    let velocity = travel.velocity_model_m_s;
    let joints = clip
        .joint_tracks()
        .iter()
        .enumerate()
        .map(|(j, tracks)| {
            let translation = match (&tracks.translation, j == joint) {
                (Some(track), true) => Some(untravelled(track, velocity)?),
                (other, _) => other.clone(),
            };
            Ok(JointTracks {
                translation,
                ..tracks.clone()
            })
        })
        .collect::<Result<Vec<_>, ClipError>>()?;
    clip.with_joint_tracks(joints)
        .with_authored_velocity(clip.authored_velocity_model_m_s().unwrap_or(velocity))
}

/// `track` minus `velocity × t`: each value at its key time, and for a cubic spline each
/// tangent (a rate, per second) minus the velocity.
fn untravelled(track: &Track<Vec3>, velocity: Vec3) -> Result<Track<Vec3>, ClipError> {
    let times = track.times_s();
    let values: Vec<Vec3> = match track.interpolation() {
        crate::clip::Interpolation::CubicSpline => track
            .values()
            .chunks(3)
            .zip(times)
            .flat_map(|(key, &t)| [key[0] - velocity, key[1] - velocity * t, key[2] - velocity])
            .collect(),
        _ => track
            .values()
            .iter()
            .zip(times)
            .map(|(&v, &t)| v - velocity * t)
            .collect(),
    };
    Track::new(track.interpolation(), times.to_vec(), values)
}

/// A graph's root-motion settings that do not fit its rig or clips.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RootMotionMisfit {
    #[error("root motion comes from '{joint}', which is the pelvis or below it: extracting its vertical motion lifts the capsule with every step's bob (keep it: `y: Keep`)")]
    VerticalFromPelvis { joint: String },
    #[error("root motion comes from '{joint}', which is the pelvis or below it: extracting its yaw turns the capsule with the hips (keep it: `yaw: Keep`)")]
    YawFromPelvis { joint: String },
    #[error("root motion comes from '{joint}', which is not above the pelvis '{pelvis}': its motion does not carry the body")]
    NotAbovePelvis { joint: String, pelvis: String },
    #[error("horizontal root motion is extracted but every clip is in place: the character would not move from its clips (movement drives it when x and z are discarded)")]
    NothingToExtract,
    #[error("clip '{clip}' travels {speed_m_s:.2} m/s on '{joint}', which is the pelvis: kept in the pose, the body walks off the capsule (take the travel out, e.g. with `remove_travel`)")]
    TravelKeptOnPelvis {
        clip: String,
        joint: String,
        speed_m_s: f32,
    },
}

/// What in `def` does not fit `skeleton` (its pelvis from `map`) and `clips`; empty when
/// it fits or there is no pelvis to judge by.
pub fn check_root_motion(
    def: &RootMotionDef,
    skeleton: &Skeleton,
    map: &HumanoidMap,
    clips: &[Clip],
) -> Vec<RootMotionMisfit> {
    let Some(pelvis) = map.pelvis else {
        return Vec::new();
    };
    let joint = match &def.joint {
        Some(name) => match skeleton.find(name) {
            Some(j) => j,
            // An unknown joint is the graph's own error.
            None => return Vec::new(),
        },
        None => 0,
    };
    let name = skeleton.name(joint).to_string();
    let mut misfits = Vec::new();
    let at_or_below_pelvis = skeleton.is_ancestor_or_self(pelvis, joint);
    if at_or_below_pelvis {
        if def.y == RootAxis::Extract {
            misfits.push(RootMotionMisfit::VerticalFromPelvis {
                joint: name.clone(),
            });
        }
        if def.yaw == RootAxis::Extract {
            misfits.push(RootMotionMisfit::YawFromPelvis {
                joint: name.clone(),
            });
        }
        if def.x == RootAxis::Keep || def.z == RootAxis::Keep {
            for clip in clips {
                let travel = clip_travel(clip, joint);
                if !travel.in_place {
                    misfits.push(RootMotionMisfit::TravelKeptOnPelvis {
                        clip: clip.name().to_string(),
                        joint: name.clone(),
                        speed_m_s: travel.velocity_model_m_s.length(),
                    });
                }
            }
        }
    } else if !skeleton.is_ancestor_or_self(joint, pelvis) {
        misfits.push(RootMotionMisfit::NotAbovePelvis {
            joint: name.clone(),
            pelvis: skeleton.name(pelvis).to_string(),
        });
    }
    let extracts_horizontal = def.x == RootAxis::Extract || def.z == RootAxis::Extract;
    if extracts_horizontal
        && !clips.is_empty()
        && clips.iter().all(|c| clip_travel(c, joint).in_place)
    {
        misfits.push(RootMotionMisfit::NothingToExtract);
    }
    misfits
}

/// A rig of `skeleton` and `clips` with its first joint removed, its children promoted to
/// top joints (their rest and keys carried into model space by the removed joint's rest).
/// For tests of rigs that start at the pelvis, as Mixamo's do.
#[cfg(test)]
pub(crate) fn without_first_joint(skeleton: &Skeleton, clips: &[Clip]) -> (Skeleton, Vec<Clip>) {
    use crate::skeleton::Joint;
    let root = skeleton.rest_local()[0];
    let joints = (1..skeleton.num_joints())
        .map(|j| {
            let rest = skeleton.rest_local()[j];
            let parent = skeleton.parent(j).filter(|&p| p != 0).map(|p| p - 1);
            Joint {
                name: skeleton.name(j).to_string(),
                parent,
                rest_local: if parent.is_none() {
                    root.mul_transform(&rest)
                } else {
                    rest
                },
            }
        })
        .collect();
    let skeleton = Skeleton::new(joints).unwrap();
    let clips = clips
        .iter()
        .map(|clip| clip.with_joint_tracks(clip.joint_tracks()[1..].to_vec()))
        .collect();
    (skeleton, clips)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::Mannequin;

    /// The mannequin's walk with its pelvis moving forward at `speed` (a clip exported with
    /// its travel in the pelvis, as Mixamo's "not in place" clips are).
    fn travelling(clip: &Clip, pelvis: usize, speed: f32) -> Clip {
        let mut joints = clip.joint_tracks().to_vec();
        let track = joints[pelvis].translation.clone().unwrap();
        let values = track
            .values()
            .iter()
            .zip(track.times_s())
            .map(|(&v, &t)| v + Vec3::Z * speed * t)
            .collect();
        joints[pelvis].translation =
            Some(Track::new(track.interpolation(), track.times_s().to_vec(), values).unwrap());
        Clip::new(clip.name(), Some(clip.duration_s()), joints).unwrap()
    }

    #[test]
    fn the_source_is_the_root_above_the_pelvis_or_the_pelvis() {
        let m = Mannequin::new();
        let map = HumanoidMap::detect(&m.skeleton);
        let source = RootSource::of(&m.skeleton, &map).unwrap();
        assert_eq!(source, RootSource::AboveThePelvis { joint: 0 });
        assert_eq!(source.root_motion(&m.skeleton, &m.clips), None);
        assert!(
            check_root_motion(&RootMotionDef::default(), &m.skeleton, &map, &m.clips).is_empty()
        );

        let (skeleton, clips) = without_first_joint(&m.skeleton, &m.clips);
        let map = HumanoidMap::detect(&skeleton);
        let source = RootSource::of(&skeleton, &map).unwrap();
        assert_eq!(source, RootSource::Pelvis { joint: 0 });
        // In place: the pelvis keeps everything.
        let def = source.root_motion(&skeleton, &clips).unwrap();
        assert_eq!(def.joint.as_deref(), Some("pelvis"));
        assert_eq!([def.x, def.y, def.z, def.yaw], [RootAxis::Keep; 4]);
        assert!(check_root_motion(&def, &skeleton, &map, &clips).is_empty());
        // The default (vertical and yaw extracted from the first joint) does not fit.
        let misfits = check_root_motion(&RootMotionDef::default(), &skeleton, &map, &clips);
        assert!(misfits.contains(&RootMotionMisfit::VerticalFromPelvis {
            joint: "pelvis".into()
        }));
        assert!(misfits.contains(&RootMotionMisfit::YawFromPelvis {
            joint: "pelvis".into()
        }));
        // A travelling clip: horizontal discarded, or its travel kept is named.
        let walk = clips.iter().find(|c| c.name() == "Walk_F").unwrap();
        let moving = vec![travelling(walk, 0, 1.5)];
        let def = source.root_motion(&skeleton, &moving).unwrap();
        assert_eq!([def.x, def.z], [RootAxis::Discard; 2]);
        let keep_all = RootMotionDef {
            x: RootAxis::Keep,
            z: RootAxis::Keep,
            ..def
        };
        assert!(matches!(
            check_root_motion(&keep_all, &skeleton, &map, &moving)[..],
            [RootMotionMisfit::TravelKeptOnPelvis { .. }]
        ));
    }

    #[test]
    fn in_place_clips_are_recognised_and_travel_is_taken_out() {
        let m = Mannequin::new();
        let (skeleton, clips) = without_first_joint(&m.skeleton, &m.clips);
        let map = HumanoidMap::detect(&skeleton);
        let walk = clips.iter().find(|c| c.name() == "Walk_F").unwrap();
        assert!(clip_travel(walk, 0).in_place);
        let moving = travelling(walk, 0, 1.5);
        let travel = clip_travel(&moving, 0);
        assert!(!travel.in_place);
        assert!((travel.velocity_model_m_s - Vec3::Z * 1.5).length() < 1e-3);

        let back = remove_travel(&moving, 0).unwrap();
        assert!(clip_travel(&back, 0).in_place);
        // The sway and bob are intact: the pelvis is where the in-place walk has it.
        let pelvis = |c: &Clip, t: f32| c.joint_tracks()[0].translation.as_ref().unwrap().sample(t);
        for t in [0.1, 0.37, 0.6] {
            assert!(
                (pelvis(&back, t) - pelvis(walk, t)).length() < 1e-3,
                "at {t} s"
            );
        }
        // Without an authored velocity, the travel becomes it.
        let bare = Clip::new(
            "bare",
            Some(moving.duration_s()),
            moving.joint_tracks().to_vec(),
        )
        .unwrap();
        let back = remove_travel(&bare, 0).unwrap();
        let v = back.authored_velocity_model_m_s().unwrap();
        assert!((v - Vec3::Z * 1.5).length() < 1e-3);
        // Horizontal root motion extracted from clips that are all in place moves nothing.
        let extract = RootMotionDef {
            joint: Some("pelvis".into()),
            x: RootAxis::Extract,
            y: RootAxis::Keep,
            z: RootAxis::Extract,
            yaw: RootAxis::Keep,
        };
        assert_eq!(
            check_root_motion(&extract, &skeleton, &map, &clips),
            [RootMotionMisfit::NothingToExtract]
        );
    }
}
