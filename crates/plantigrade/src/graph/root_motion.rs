//! Root motion (GRAPH-5): the root joint's motion over a tick, as a delta in the character's
//! frame, filtered per axis; the extracted and discarded parts are taken out of the pose so
//! the mesh stays on the capsule. The controller applies the delta as a velocity (collide
//! and slide), never as a teleport.

use glam::{Quat, Vec3};

use super::def::{RootAxis, RootMotionDef};
use super::events::TimeSpan;
use crate::clip::Clip;
use crate::math::wrap_angle;
use crate::pose::Pose;
use crate::skeleton::Transform;

/// Motion of the root over one tick, in the character's frame at the start of the tick
/// (x left, y up, z forward): translation in metres and yaw in radians (positive turns
/// +Z toward +X, i.e. left).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootMotionDelta {
    pub translation_m: Vec3,
    pub yaw_rad: f32,
}

impl RootMotionDelta {
    pub const ZERO: Self = Self {
        translation_m: Vec3::ZERO,
        yaw_rad: 0.0,
    };

    /// `self` then `next` (whose translation is in the frame reached after `self`).
    pub fn then(self, next: RootMotionDelta) -> RootMotionDelta {
        RootMotionDelta {
            translation_m: self.translation_m
                + Quat::from_rotation_y(self.yaw_rad) * next.translation_m,
            yaw_rad: self.yaw_rad + next.yaw_rad,
        }
    }

    /// Weighted sum, for blending deltas.
    pub fn scaled(self, weight: f32) -> RootMotionDelta {
        RootMotionDelta {
            translation_m: self.translation_m * weight,
            yaw_rad: self.yaw_rad * weight,
        }
    }

    pub fn plus(self, other: RootMotionDelta) -> RootMotionDelta {
        RootMotionDelta {
            translation_m: self.translation_m + other.translation_m,
            yaw_rad: self.yaw_rad + other.yaw_rad,
        }
    }

    /// Keeps only the axes set to [`RootAxis::Extract`].
    pub fn filtered(self, def: &RootMotionDef) -> RootMotionDelta {
        let keep = |axis: RootAxis, v: f32| if axis == RootAxis::Extract { v } else { 0.0 };
        RootMotionDelta {
            translation_m: Vec3::new(
                keep(def.x, self.translation_m.x),
                keep(def.y, self.translation_m.y),
                keep(def.z, self.translation_m.z),
            ),
            yaw_rad: keep(def.yaw, self.yaw_rad),
        }
    }

    pub fn is_finite(&self) -> bool {
        self.translation_m.is_finite() && self.yaw_rad.is_finite()
    }
}

/// The rotation about +Y contained in `rotation` (swing-twist decomposition), in radians.
pub fn yaw_of(rotation: Quat) -> f32 {
    let twist_len = (rotation.y * rotation.y + rotation.w * rotation.w).sqrt();
    if twist_len < 1e-6 {
        return 0.0;
    }
    2.0 * (rotation.y / twist_len).atan2(rotation.w / twist_len)
}

fn root_at(clip: &Clip, joint: usize, rest: &Transform, time_s: f32) -> (Vec3, f32) {
    match clip.joint_tracks().get(joint) {
        Some(tracks) => {
            let t = tracks.sample(time_s, rest);
            (t.translation, yaw_of(t.rotation))
        }
        None => (rest.translation, yaw_of(rest.rotation)),
    }
}

fn segment(clip: &Clip, joint: usize, rest: &Transform, from_s: f32, to_s: f32) -> RootMotionDelta {
    let (p0, yaw0) = root_at(clip, joint, rest, from_s);
    let (p1, yaw1) = root_at(clip, joint, rest, to_s);
    RootMotionDelta {
        translation_m: Quat::from_rotation_y(-yaw0) * (p1 - p0),
        yaw_rad: wrap_angle(yaw1 - yaw0),
    }
}

/// The root joint's motion over `span` of `clip` (wrapping once at the loop point).
pub fn clip_root_delta(
    clip: &Clip,
    joint: usize,
    rest: &Transform,
    span: TimeSpan,
) -> RootMotionDelta {
    let duration = clip.duration_s();
    if duration <= 0.0
        || span.advance_s.is_nan()
        || span.advance_s <= 0.0
        || !span.start_s.is_finite()
    {
        return RootMotionDelta::ZERO;
    }
    let start = span.start_s.clamp(0.0, duration);
    let end = start + span.advance_s.min(duration);
    if end <= duration || !clip.is_looping() {
        return segment(clip, joint, rest, start, end.min(duration));
    }
    segment(clip, joint, rest, start, duration).then(segment(
        clip,
        joint,
        rest,
        0.0,
        end - duration,
    ))
}

/// Takes the root joint's extracted and discarded components out of `pose`: those
/// translation axes return to the rest value, and yaw is removed unless kept.
pub fn strip_root_motion(pose: &mut Pose, joint: usize, rest: &Transform, def: &RootMotionDef) {
    let Some(root) = pose.local_mut().get_mut(joint) else {
        return;
    };
    let strip = |axis: RootAxis| axis != RootAxis::Keep;
    if strip(def.x) {
        root.translation.x = rest.translation.x;
    }
    if strip(def.y) {
        root.translation.y = rest.translation.y;
    }
    if strip(def.z) {
        root.translation.z = rest.translation.z;
    }
    if strip(def.yaw) {
        let extra_yaw = yaw_of(root.rotation) - yaw_of(rest.rotation);
        root.rotation = (Quat::from_rotation_y(-extra_yaw) * root.rotation).normalize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{JointTracks, Track};

    fn turning_clip() -> Clip {
        // Root moves 1 m forward (+Z) and turns 90° left over 1 s, in a loop.
        let tracks = JointTracks {
            translation: Some(
                Track::linear([(0.0, Vec3::ZERO), (1.0, Vec3::new(0.0, 0.2, 1.0))]).unwrap(),
            ),
            rotation: Some(
                Track::linear([
                    (0.0, Quat::IDENTITY),
                    (1.0, Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)),
                ])
                .unwrap(),
            ),
            scale: None,
        };
        Clip::new("turn", Some(1.0), vec![tracks]).unwrap()
    }

    #[test]
    fn yaw_decomposition() {
        let q = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.3);
        assert!((yaw_of(q) - 0.7).abs() < 1e-5);
        assert!((yaw_of(Quat::from_rotation_y(-2.0)) + 2.0).abs() < 1e-5);
    }

    #[test]
    fn delta_over_a_span_and_across_the_wrap() {
        let clip = turning_clip();
        let d = clip_root_delta(
            &clip,
            0,
            &Transform::IDENTITY,
            TimeSpan {
                start_s: 0.0,
                advance_s: 0.5,
                inclusive_start: false,
            },
        );
        assert!((d.yaw_rad - std::f32::consts::FRAC_PI_4).abs() < 1e-4);
        assert!((d.translation_m - Vec3::new(0.0, 0.1, 0.5)).length() < 1e-5);
        // Across the wrap: 0.75 → 1.0 → 0.25 turns 45° in total, in two 22.5° parts.
        let w = clip_root_delta(
            &clip,
            0,
            &Transform::IDENTITY,
            TimeSpan {
                start_s: 0.75,
                advance_s: 0.5,
                inclusive_start: false,
            },
        );
        assert!(
            (w.yaw_rad - std::f32::consts::FRAC_PI_4).abs() < 1e-4,
            "{w:?}"
        );
        // Motion accumulates across the wrap instead of jumping back: 0.05 + 0.05 up.
        assert!((w.translation_m.y - 0.1).abs() < 1e-5, "{w:?}");
    }

    #[test]
    fn axis_filtering_and_stripping() {
        let clip = turning_clip();
        let d = clip_root_delta(
            &clip,
            0,
            &Transform::IDENTITY,
            TimeSpan {
                start_s: 0.0,
                advance_s: 0.5,
                inclusive_start: false,
            },
        );
        let def = RootMotionDef::default();
        let f = d.filtered(&def);
        // Default: vertical and yaw extracted, horizontal dropped.
        assert_eq!(f.translation_m.x, 0.0);
        assert_eq!(f.translation_m.z, 0.0);
        assert!((f.translation_m.y - 0.1).abs() < 1e-5);
        assert!((f.yaw_rad - d.yaw_rad).abs() < 1e-6);
        let keep_z = RootMotionDef {
            z: RootAxis::Extract,
            yaw: RootAxis::Discard,
            ..def.clone()
        };
        let f = d.filtered(&keep_z);
        assert!((f.translation_m.z - 0.5).abs() < 1e-5);
        assert_eq!(f.yaw_rad, 0.0);

        let mut pose = Pose::new(1);
        clip.sample(0.5, &[Transform::IDENTITY], &mut pose).unwrap();
        let mut kept = pose.clone();
        strip_root_motion(&mut pose, 0, &Transform::IDENTITY, &def);
        assert_eq!(pose.local()[0].translation, Vec3::ZERO);
        assert!(yaw_of(pose.local()[0].rotation).abs() < 1e-5);
        let keep_all = RootMotionDef {
            x: RootAxis::Keep,
            y: RootAxis::Keep,
            z: RootAxis::Keep,
            yaw: RootAxis::Keep,
            joint: None,
        };
        let before = kept.clone();
        strip_root_motion(&mut kept, 0, &Transform::IDENTITY, &keep_all);
        assert_eq!(kept, before);
    }
}
