//! From per-key model-space intent to a clip: pelvis lowering where a leg cannot reach,
//! the key solve, and tracks for the joints that move (LINEAR keys at 60 Hz, or at 120 or
//! 180 Hz where limbs move fast).

use glam::{Quat, Vec3};

use super::body::{solve_key, BodyTargets};
use super::easing::smooth_cover;
use super::rig::Rig;
use crate::clip::{Clip, ClipError, FloatCurve, Interpolation, JointTracks, Track};
use crate::skeleton::Transform;

/// Key rate of the authored clips (Hz), one key per tick of the library's default 60 Hz.
/// Fast gaits key at a multiple of it (see [`SolvedKeys::key_rate_hz`]).
pub(super) const KEY_RATE_HZ: f32 = 60.0;
/// Leg extension the pelvis is lowered to keep (share of the leg length): knees never lock
/// straight, and the solve's own clamp ([`super::body::MAX_LIMB_EXTENSION`]) is never hit.
pub(super) const COMFORT_EXTENSION: f32 = 0.99;
/// Rotations and translations closer than this to the rest pose count as unchanged.
const UNCHANGED_EPSILON: f32 = 1e-5;

/// Time of key `key` at [`KEY_RATE_HZ`] (seconds).
pub(super) fn key_time_s(key: usize) -> f32 {
    key as f32 / KEY_RATE_HZ
}

/// How the pelvis comes down where a leg could not otherwise reach its foot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PelvisFit {
    /// A local dip is spread over this many keys on each side, so it has no kinks.
    pub smoothing_keys: usize,
    /// Deepest dip (m) the designed motion may gain; a clip needing more comes down as a
    /// whole by the excess, so its bob keeps the authored shape.
    pub max_dip_m: f32,
}

impl PelvisFit {
    /// Poses: dip wherever needed, keep the designed height elsewhere.
    pub const LOCAL: Self = Self {
        smoothing_keys: 3,
        max_dip_m: f32::INFINITY,
    };
}

/// Which joints get tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JointSet {
    /// Every joint that moves away from the rest pose.
    FullBody,
    /// Only the chain from spine_01 up (spine, neck, head, arms): an overlay that leaves
    /// the pelvis and legs to the base layer.
    UpperBody,
}

/// Authoring diagnostics for one clip.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct AuthorStats {
    /// Keys at which some limb solve was clamped (0 for a well-authored clip).
    pub clamped_keys: usize,
    /// Largest pelvis lowering applied so the legs reach (m).
    pub max_pelvis_drop_m: f32,
    /// Keys whose pelvis had to come down at all.
    pub lowered_keys: usize,
}

/// A clip with its authoring diagnostics.
#[derive(Clone, Debug)]
pub(super) struct AuthoredClip {
    pub clip: Clip,
    /// Read by the mannequin tests (no key may need a clamped limb).
    #[cfg_attr(not(test), allow(dead_code))]
    pub stats: AuthorStats,
}

/// The solved keys of one clip.
pub(super) struct SolvedKeys {
    /// One local pose per key, keys `1 / key_rate_hz` apart.
    pub poses: Vec<Vec<Transform>>,
    pub key_rate_hz: f32,
    pub stats: AuthorStats,
}

/// Solves `bodies` (one per key, `key_rate_hz` keys per second), first lowering the pelvis
/// as `fit` says wherever a leg could not reach (pelvis heights are designed for the
/// mannequin: they are raised by [`Rig::pelvis_height_offset_m`] first). With `looping`,
/// the keys are one cycle without its closing key: smoothing wraps around and the first
/// pose is appended as the closing key so the loop is seamless.
pub(super) fn solve_keys(
    rig: &Rig,
    mut bodies: Vec<BodyTargets>,
    looping: bool,
    fit: PelvisFit,
    key_rate_hz: f32,
) -> SolvedKeys {
    for body in &mut bodies {
        body.pelvis_position_model.y += rig.pelvis_height_offset_m;
    }
    let drops: Vec<f32> = bodies
        .iter()
        .map(|b| b.pelvis_drop_for_reach(rig, COMFORT_EXTENSION))
        .collect();
    let lowered_keys = drops.iter().filter(|&&d| d > 0.0).count();
    // Lowering everything by `whole_m` takes exactly that much off every key's need.
    let deepest_m = drops.iter().copied().fold(0.0, f32::max);
    let whole_m = (deepest_m - fit.max_dip_m).max(0.0);
    let dips: Vec<f32> = drops.iter().map(|d| (d - whole_m).max(0.0)).collect();
    let dips = if dips.iter().any(|&d| d > 0.0) {
        smooth_cover(&dips, fit.smoothing_keys, looping)
    } else {
        dips
    };
    let mut stats = AuthorStats {
        lowered_keys,
        max_pelvis_drop_m: whole_m + dips.iter().copied().fold(0.0, f32::max),
        ..AuthorStats::default()
    };
    for (body, dip_m) in bodies.iter_mut().zip(&dips) {
        body.pelvis_position_model.y -= whole_m + dip_m;
    }
    let mut poses: Vec<Vec<Transform>> = bodies
        .iter()
        .map(|body| {
            let solved = solve_key(rig, body);
            stats.clamped_keys += usize::from(solved.clamped_limbs > 0);
            solved.local
        })
        .collect();
    if looping {
        if let Some(first) = poses.first().cloned() {
            poses.push(first);
        }
    }
    SolvedKeys {
        poses,
        key_rate_hz,
        stats,
    }
}

/// Tracks for the joints in `set` that leave the rest pose; a joint that holds one pose
/// gets a single key.
fn joint_tracks(
    rig: &Rig,
    keys: &SolvedKeys,
    set: JointSet,
) -> Result<Vec<JointTracks>, ClipError> {
    let poses = &keys.poses;
    let times_s: Vec<f32> = (0..poses.len())
        .map(|k| k as f32 / keys.key_rate_hz)
        .collect();
    let upper_root = rig.spine[0];
    (0..rig.num_joints())
        .map(|joint| {
            let included = match set {
                JointSet::FullBody => true,
                JointSet::UpperBody => rig.skeleton.is_ancestor_or_self(upper_root, joint),
            };
            if !included {
                return Ok(JointTracks::default());
            }
            let rest = &rig.rest_local()[joint];
            let rotations: Vec<Quat> =
                continuous_hemisphere(poses.iter().map(|p| p[joint].rotation));
            let translations: Vec<Vec3> = poses.iter().map(|p| p[joint].translation).collect();
            Ok(JointTracks {
                translation: changed_track(&times_s, translations, rest.translation, |a, b| {
                    a.abs_diff_eq(b, UNCHANGED_EPSILON)
                })?,
                rotation: changed_track(&times_s, rotations, rest.rotation, |a, b| {
                    a.abs_diff_eq(b, UNCHANGED_EPSILON) || a.abs_diff_eq(-b, UNCHANGED_EPSILON)
                })?,
                scale: None,
            })
        })
        .collect()
}

/// Flips quaternion signs so neighbouring keys sit in the same hemisphere.
fn continuous_hemisphere(rotations: impl Iterator<Item = Quat>) -> Vec<Quat> {
    let mut previous = Quat::IDENTITY;
    rotations
        .map(|q| {
            let q = if q.dot(previous) < 0.0 { -q } else { q };
            previous = q;
            q
        })
        .collect()
}

/// `None` when every value equals `rest`, one key when all values are equal, else a LINEAR
/// track over `times_s`.
fn changed_track<T: crate::clip::TrackValue>(
    times_s: &[f32],
    values: Vec<T>,
    rest: T,
    same: impl Fn(T, T) -> bool,
) -> Result<Option<Track<T>>, ClipError> {
    let Some(&first) = values.first() else {
        return Ok(None);
    };
    if values.iter().all(|&v| same(v, rest)) {
        return Ok(None);
    }
    if values.iter().all(|&v| same(v, first)) {
        return Track::linear([(0.0, first)]).map(Some);
    }
    Track::new(Interpolation::Linear, times_s.to_vec(), values).map(Some)
}

/// How far a contact window reaches past its first and last planted key (s): far less
/// than a key interval, far more than the rounding of a sample time, so sampling exactly
/// at a key classifies it the same way whichever way the sample time rounds.
const CONTACT_EDGE_S: f32 = 1e-4;

/// A STEP `FootContact` curve that is 1 over each planted window and 0 elsewhere.
/// `planted_keys` are inclusive key ranges (first and last key at which the foot is
/// planted, keys `key_rate_hz` per second); with `period_keys` they repeat with that period
/// and may run past its end.
pub(super) fn contact_curve(
    name: &str,
    planted_keys: &[(usize, usize)],
    period_keys: Option<usize>,
    key_rate_hz: f32,
) -> Result<FloatCurve, ClipError> {
    let time_s = |key: usize| key as f32 / key_rate_hz;
    let windows_s: Vec<(f32, f32)> = planted_keys
        .iter()
        .map(|&(first, last)| {
            (
                time_s(first) - CONTACT_EDGE_S,
                time_s(last) + CONTACT_EDGE_S,
            )
        })
        .collect();
    let period_s = period_keys.map(time_s);
    let inside = |t_s: f32| {
        windows_s.iter().any(|&(start_s, end_s)| match period_s {
            Some(period_s) => (t_s - start_s).rem_euclid(period_s) <= end_s - start_s,
            None => (start_s..=end_s).contains(&t_s),
        })
    };
    // Keys at 0 and at every window edge inside the clip; each holds the value of the span
    // that follows it.
    let mut edges_s: Vec<f32> = vec![0.0];
    for &(start_s, end_s) in &windows_s {
        for edge_s in [start_s, end_s] {
            let edge_s = period_s.map_or(edge_s, |p| edge_s.rem_euclid(p));
            if edge_s > 0.0 && period_s.is_none_or(|p| edge_s < p) {
                edges_s.push(edge_s);
            }
        }
    }
    edges_s.sort_by(f32::total_cmp);
    edges_s.dedup();
    let mut times_s = Vec::with_capacity(edges_s.len());
    let mut values = Vec::with_capacity(edges_s.len());
    for (i, &edge_s) in edges_s.iter().enumerate() {
        let next_s = edges_s
            .get(i + 1)
            .copied()
            .unwrap_or(edge_s + 2.0 * CONTACT_EDGE_S);
        let value = if inside(0.5 * (edge_s + next_s)) {
            1.0
        } else {
            0.0
        };
        if values.last() != Some(&value) {
            times_s.push(edge_s);
            values.push(value);
        }
    }
    Ok(FloatCurve {
        name: name.to_string(),
        track: Track::new(Interpolation::Step, times_s, values)?,
    })
}

/// A curve holding `value` for the whole clip.
pub(super) fn constant_curve(name: &str, value: f32) -> FloatCurve {
    FloatCurve {
        name: name.to_string(),
        track: Track::constant(value),
    }
}

/// Builds a clip from solved keys; the duration is the last key's time.
pub(super) fn clip_from_keys(
    rig: &Rig,
    name: &str,
    keys: &SolvedKeys,
    set: JointSet,
    looping: bool,
) -> Result<Clip, ClipError> {
    let duration_s = keys.poses.len().saturating_sub(1) as f32 / keys.key_rate_hz;
    let tracks = joint_tracks(rig, keys, set)?;
    Ok(Clip::new(name, Some(duration_s), tracks)?.with_looping(looping))
}
