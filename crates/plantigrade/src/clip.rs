//! Clips: per-joint translation/rotation/scale tracks with glTF 2.0 interpolation, float
//! curves and events on the clip timeline (ANIM-2).

use glam::{Quat, Vec3, Vec4};

use crate::pose::Pose;
use crate::skeleton::Transform;

/// How values between two keys are found, as in glTF 2.0 animation samplers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Interpolation {
    /// Hold the previous key's value.
    Step,
    /// Linear for vectors and scalars; spherical linear for rotations.
    #[default]
    Linear,
    /// Cubic Hermite spline; each key stores an in-tangent, a value and an out-tangent.
    CubicSpline,
}

/// A value a [`Track`] can hold.
pub trait TrackValue: Copy + PartialEq + std::fmt::Debug {
    fn lerp_value(a: Self, b: Self, t: f32) -> Self;
    /// glTF cubic Hermite: `v0`, `out_tangent0`, `in_tangent1`, `v1`, with tangents already
    /// scaled by the key interval.
    fn hermite(v0: Self, out0: Self, in1: Self, v1: Self, t: f32) -> Self;
    fn is_finite_value(&self) -> bool;
    /// The value times a scalar (tangents are scaled by the key interval).
    fn scaled(self, factor: f32) -> Self;
    /// A key value made canonical (rotations normalised), or `None` when it cannot be
    /// (a zero-length rotation).
    fn canonical_key(self) -> Option<Self> {
        Some(self)
    }
}

#[inline]
fn hermite_basis(t: f32) -> [f32; 4] {
    let t2 = t * t;
    let t3 = t2 * t;
    [
        2.0 * t3 - 3.0 * t2 + 1.0,
        t3 - 2.0 * t2 + t,
        -2.0 * t3 + 3.0 * t2,
        t3 - t2,
    ]
}

impl TrackValue for f32 {
    #[inline]
    fn lerp_value(a: Self, b: Self, t: f32) -> Self {
        a + (b - a) * t
    }
    #[inline]
    fn hermite(v0: Self, out0: Self, in1: Self, v1: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        h00 * v0 + h10 * out0 + h01 * v1 + h11 * in1
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn scaled(self, factor: f32) -> Self {
        self * factor
    }
}

impl TrackValue for Vec3 {
    #[inline]
    fn lerp_value(a: Self, b: Self, t: f32) -> Self {
        a.lerp(b, t)
    }
    #[inline]
    fn hermite(v0: Self, out0: Self, in1: Self, v1: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        h00 * v0 + h10 * out0 + h01 * v1 + h11 * in1
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn scaled(self, factor: f32) -> Self {
        self * factor
    }
}

impl TrackValue for Quat {
    #[inline]
    fn lerp_value(a: Self, b: Self, t: f32) -> Self {
        // glTF specifies slerp for rotations; glam's slerp takes the shortest arc.
        a.slerp(b, t)
    }
    #[inline]
    fn hermite(v0: Self, out0: Self, in1: Self, v1: Self, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        let v = h00 * Vec4::from(v0)
            + h10 * Vec4::from(out0)
            + h01 * Vec4::from(v1)
            + h11 * Vec4::from(in1);
        // glTF: the spline is evaluated per component, then normalised. Tangents in a file
        // can be anything finite: a sum that overflows or cancels to zero has no direction,
        // and the keys' own arc stands in for it.
        Quat::from_vec4(v)
            .canonical_key()
            .unwrap_or_else(|| v0.slerp(v1, t))
    }
    fn canonical_key(self) -> Option<Self> {
        // Scaled to its largest component first: a key like (0, 1e30, 1e30, 1) is finite
        // but its squared length is not (it was kept as a zero rotation).
        // A key shorter than 1e-6 (its largest component at most that) is no rotation.
        let largest = Vec4::from(self).abs().max_element();
        if !(largest.is_finite() && largest > 1e-6) {
            return None;
        }
        let scaled = self * largest.recip();
        Some(scaled * scaled.length().recip())
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn scaled(self, factor: f32) -> Self {
        self * factor
    }
}

/// Why a clip or track was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    #[error("track has no keys")]
    NoKeys,
    #[error(
        "track has {times} key times but {values} values ({interpolation:?} needs {expected})"
    )]
    ValueCount {
        times: usize,
        values: usize,
        interpolation: Interpolation,
        expected: usize,
    },
    #[error("key time {index} is not finite or is negative")]
    BadKeyTime { index: usize },
    #[error("key times must increase: key {index} at {time_s} s comes after {previous_s} s")]
    KeyTimesNotIncreasing {
        index: usize,
        time_s: f32,
        previous_s: f32,
    },
    #[error("value {index} is not finite")]
    NonFiniteValue { index: usize },
    #[error("value {index} is a zero-length rotation")]
    DegenerateValue { index: usize },
    #[error("clip duration {0} s is not finite or is negative")]
    BadDuration(f32),
    #[error("clip '{clip}' has tracks for {tracks} joints but the skeleton has {joints}")]
    JointCount {
        clip: String,
        tracks: usize,
        joints: usize,
    },
    #[error("event '{name}' at {time_s} s lies outside the clip (0..{duration_s} s)")]
    EventOutOfRange {
        name: String,
        time_s: f32,
        duration_s: f32,
    },
    #[error("two float curves are named '{0}'")]
    DuplicateCurve(String),
    #[error("authored velocity is not finite")]
    BadVelocity,
    #[error("a phase must be in 0..1 (got {0})")]
    BadPhase(f32),
}

/// Keyframes of one value over time, with one interpolation mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T: TrackValue> {
    interpolation: Interpolation,
    times_s: Vec<f32>,
    /// One value per key, or for [`Interpolation::CubicSpline`] three per key
    /// (in-tangent, value, out-tangent), as in glTF.
    values: Vec<T>,
    /// Keys per second when the keys are evenly spaced (baked clips are), else 0: sampling
    /// then guesses the key from the time and checks it, instead of a binary search.
    keys_per_s: f32,
    /// Every key holds the same value (most joints' translation and scale in a baked
    /// clip): sampling returns it without a search.
    constant: bool,
}

impl<T: TrackValue> Track<T> {
    /// A track from key times (seconds, increasing) and values (see [`Track::values`]).
    pub fn new(
        interpolation: Interpolation,
        times_s: Vec<f32>,
        values: Vec<T>,
    ) -> Result<Self, ClipError> {
        if times_s.is_empty() {
            return Err(ClipError::NoKeys);
        }
        let expected = match interpolation {
            Interpolation::CubicSpline => times_s.len() * 3,
            _ => times_s.len(),
        };
        if values.len() != expected {
            return Err(ClipError::ValueCount {
                times: times_s.len(),
                values: values.len(),
                interpolation,
                expected,
            });
        }
        for (index, &time_s) in times_s.iter().enumerate() {
            if !time_s.is_finite() || time_s < 0.0 {
                return Err(ClipError::BadKeyTime { index });
            }
            if index > 0 && time_s <= times_s[index - 1] {
                return Err(ClipError::KeyTimesNotIncreasing {
                    index,
                    time_s,
                    previous_s: times_s[index - 1],
                });
            }
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite_value()) {
            return Err(ClipError::NonFiniteValue { index });
        }
        // Key values (not cubic tangents) must be canonical: unit rotations.
        let mut values = values;
        let stride = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let first = if interpolation == Interpolation::CubicSpline {
            1
        } else {
            0
        };
        for index in (first..values.len()).step_by(stride) {
            values[index] = values[index]
                .canonical_key()
                .ok_or(ClipError::DegenerateValue { index })?;
        }
        let keys_per_s = even_keys_per_s(&times_s);
        let constant = interpolation != Interpolation::CubicSpline
            && values.windows(2).all(|pair| pair[0] == pair[1]);
        Ok(Self {
            interpolation,
            times_s,
            values,
            keys_per_s,
            constant,
        })
    }

    /// A track holding one value for all time.
    pub fn constant(value: T) -> Self {
        Self {
            interpolation: Interpolation::Step,
            times_s: vec![0.0],
            values: vec![value],
            keys_per_s: 0.0,
            constant: true,
        }
    }

    /// A linear track from `(time_s, value)` keys already in increasing time order.
    pub fn linear(keys: impl IntoIterator<Item = (f32, T)>) -> Result<Self, ClipError> {
        let (times, values) = keys.into_iter().unzip();
        Self::new(Interpolation::Linear, times, values)
    }

    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    pub fn times_s(&self) -> &[f32] {
        &self.times_s
    }

    /// The raw values: one per key, or in-tangent/value/out-tangent triples for cubic splines.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Time of the last key (seconds).
    pub fn end_time_s(&self) -> f32 {
        *self.times_s.last().unwrap_or(&0.0)
    }

    #[inline]
    fn key_value(&self, key: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[key * 3 + 1],
            _ => self.values[key],
        }
    }

    /// Value at `time_s`; before the first key the first value, after the last the last.
    #[inline]
    pub fn sample(&self, time_s: f32) -> T {
        if self.constant {
            return self.values[0];
        }
        let times = &self.times_s;
        let last = times.len() - 1;
        // A NaN time holds the first key.
        if last == 0 || time_s.is_nan() || time_s <= times[0] {
            return self.key_value(0);
        }
        if time_s >= times[last] {
            return self.key_value(last);
        }
        // The key at or before `time_s` and the one after; prev in 0..last by the checks
        // above.
        let prev = self.key_before(time_s);
        let next = prev + 1;
        let interval_s = times[next] - times[prev];
        let t = (time_s - times[prev]) / interval_s;
        match self.interpolation {
            Interpolation::Step => self.values[prev],
            Interpolation::Linear => T::lerp_value(self.values[prev], self.values[next], t),
            Interpolation::CubicSpline => {
                let v0 = self.values[prev * 3 + 1];
                let out0 = self.values[prev * 3 + 2];
                let in1 = self.values[next * 3];
                let v1 = self.values[next * 3 + 1];
                T::hermite(v0, out0.scaled(interval_s), in1.scaled(interval_s), v1, t)
            }
        }
    }
}

impl<T: TrackValue> Track<T> {
    /// The last key at or before `time_s`, for `times[0] < time_s < times[last]`: with
    /// evenly spaced keys the one the time points at, stepped to the right one if rounding
    /// missed it by one (the same key a binary search finds); else a binary search.
    #[inline]
    fn key_before(&self, time_s: f32) -> usize {
        let times = &self.times_s;
        let last = times.len() - 1;
        if self.keys_per_s > 0.0 {
            let guess = ((time_s - times[0]) * self.keys_per_s) as usize;
            let mut prev = guess.min(last - 1);
            if times[prev] > time_s {
                prev = prev.saturating_sub(1);
            } else if times[prev + 1] <= time_s {
                prev = (prev + 1).min(last - 1);
            }
            if times[prev] <= time_s && time_s < times[prev + 1] {
                return prev;
            }
        }
        times.partition_point(|&k| k <= time_s) - 1
    }
}

/// Keys per second of `times_s` when every gap is within 1 % of the mean gap (a guessed
/// key is then off by at most one), else 0.
fn even_keys_per_s(times_s: &[f32]) -> f32 {
    let (Some(&first), Some(&last)) = (times_s.first(), times_s.last()) else {
        return 0.0;
    };
    let gaps = times_s.len().saturating_sub(1);
    if gaps < 2 {
        return 0.0;
    }
    let mean_gap_s = (last - first) / gaps as f32;
    let even = times_s
        .windows(2)
        .all(|w| ((w[1] - w[0]) - mean_gap_s).abs() <= 0.01 * mean_gap_s);
    if even && mean_gap_s > 0.0 {
        1.0 / mean_gap_s
    } else {
        0.0
    }
}

/// The animated channels of one joint; a missing channel keeps the rest pose's value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointTracks {
    /// Translation relative to the parent (metres).
    pub translation: Option<Track<Vec3>>,
    /// Rotation relative to the parent.
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
}

impl JointTracks {
    pub fn is_empty(&self) -> bool {
        self.translation.is_none() && self.rotation.is_none() && self.scale.is_none()
    }

    /// The joint's local transform at `time_s`, falling back to `rest` per channel.
    #[inline]
    pub fn sample(&self, time_s: f32, rest: &Transform) -> Transform {
        Transform {
            translation: self
                .translation
                .as_ref()
                .map_or(rest.translation, |t| t.sample(time_s)),
            rotation: self
                .rotation
                .as_ref()
                .map_or(rest.rotation, |t| t.sample(time_s)),
            scale: self.scale.as_ref().map_or(rest.scale, |t| t.sample(time_s)),
        }
    }

    fn end_time_s(&self) -> f32 {
        let t = self.translation.as_ref().map_or(0.0, Track::end_time_s);
        let r = self.rotation.as_ref().map_or(0.0, Track::end_time_s);
        let s = self.scale.as_ref().map_or(0.0, Track::end_time_s);
        t.max(r).max(s)
    }
}

/// A named scalar curve on the clip timeline, e.g. `FootContact_L` (1 planted, 0 in swing).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatCurve {
    pub name: String,
    pub track: Track<f32>,
}

/// A named instant on the clip timeline: a notify such as `Footstep_L`, or a marker such as
/// `recovered` that a state machine can advance at.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClipEvent {
    pub name: String,
    pub time_s: f32,
}

/// An animation clip for one skeleton: one [`JointTracks`] per joint (in skeleton order),
/// float curves and events.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    name: String,
    duration_s: f32,
    looping: bool,
    joints: Vec<JointTracks>,
    curves: Vec<FloatCurve>,
    events: Vec<ClipEvent>,
    authored_velocity_model_m_s: Option<Vec3>,
    left_foot_down_phase: Option<f32>,
}

impl Clip {
    /// A clip over `joints.len()` joints (one entry per skeleton joint, in order). When
    /// `duration_s` is `None` it is the time of the last key of any joint track.
    pub fn new(
        name: impl Into<String>,
        duration_s: Option<f32>,
        joints: Vec<JointTracks>,
    ) -> Result<Self, ClipError> {
        let end_s = joints
            .iter()
            .map(JointTracks::end_time_s)
            .fold(0.0, f32::max);
        let duration_s = duration_s.unwrap_or(end_s);
        if !duration_s.is_finite() || duration_s < 0.0 {
            return Err(ClipError::BadDuration(duration_s));
        }
        Ok(Self {
            name: name.into(),
            duration_s,
            looping: true,
            joints,
            curves: Vec::new(),
            events: Vec::new(),
            authored_velocity_model_m_s: None,
            left_foot_down_phase: None,
        })
    }

    /// Sets whether time wraps around at the end (default: looping).
    pub fn with_looping(mut self, looping: bool) -> Self {
        self.looping = looping;
        self
    }

    /// Adds a float curve; names must be unique within the clip.
    pub fn with_curve(mut self, curve: FloatCurve) -> Result<Self, ClipError> {
        if self.curves.iter().any(|c| c.name == curve.name) {
            return Err(ClipError::DuplicateCurve(curve.name));
        }
        self.curves.push(curve);
        Ok(self)
    }

    /// Adds an event; its time must lie within `0..=duration_s`. Events stay sorted by time.
    pub fn with_event(mut self, name: impl Into<String>, time_s: f32) -> Result<Self, ClipError> {
        let name = name.into();
        if !(0.0..=self.duration_s).contains(&time_s) {
            return Err(ClipError::EventOutOfRange {
                name,
                time_s,
                duration_s: self.duration_s,
            });
        }
        let at = self.events.partition_point(|e| e.time_s <= time_s);
        self.events.insert(at, ClipEvent { name, time_s });
        Ok(self)
    }

    /// Sets the ground velocity the clip was authored for, in model space (m/s; a forward
    /// walk at 1.75 m/s is `(0, 0, 1.75)`). The clip itself stays in place.
    pub fn with_authored_velocity(mut self, velocity_model_m_s: Vec3) -> Result<Self, ClipError> {
        if !velocity_model_m_s.is_finite() {
            return Err(ClipError::BadVelocity);
        }
        self.authored_velocity_model_m_s = Some(velocity_model_m_s);
        Ok(self)
    }

    /// Marks where a looping gait's left foot touches down (phase, 0 ≤ p < 1): the sync
    /// marker synced blend spaces line their gaits up by. Clips whose contacts are derived
    /// get one from the feet at load ([`crate::foot_contacts`]); without one, a synced
    /// blend reads it from an authored `FootContact_L` curve.
    pub fn with_left_foot_down_phase(mut self, phase: f32) -> Result<Self, ClipError> {
        if !(phase.is_finite() && (0.0..1.0).contains(&phase)) {
            return Err(ClipError::BadPhase(phase));
        }
        self.left_foot_down_phase = Some(phase);
        Ok(self)
    }

    /// See [`Self::with_left_foot_down_phase`].
    pub fn left_foot_down_phase(&self) -> Option<f32> {
        self.left_foot_down_phase
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn duration_s(&self) -> f32 {
        self.duration_s
    }

    pub fn is_looping(&self) -> bool {
        self.looping
    }

    /// Per-joint tracks, in skeleton order.
    pub fn joint_tracks(&self) -> &[JointTracks] {
        &self.joints
    }

    /// This clip over other joint tracks (one entry per joint of the skeleton they are
    /// for: a rig resized, remapped or with a joint removed), its name, duration, looping,
    /// curves, events, authored velocity and sync marker kept.
    pub fn with_joint_tracks(&self, joints: Vec<JointTracks>) -> Clip {
        Clip {
            name: self.name.clone(),
            duration_s: self.duration_s,
            looping: self.looping,
            joints,
            curves: self.curves.clone(),
            events: self.events.clone(),
            authored_velocity_model_m_s: self.authored_velocity_model_m_s,
            left_foot_down_phase: self.left_foot_down_phase,
        }
    }

    /// This clip with no authored velocity (as a third-party clip comes).
    pub fn without_authored_velocity(mut self) -> Clip {
        self.authored_velocity_model_m_s = None;
        self
    }

    pub fn curves(&self) -> &[FloatCurve] {
        &self.curves
    }

    pub fn curve(&self, name: &str) -> Option<&FloatCurve> {
        self.curves.iter().find(|c| c.name == name)
    }

    /// Events sorted by time.
    pub fn events(&self) -> &[ClipEvent] {
        &self.events
    }

    /// Ground velocity the clip was authored for (model space, m/s), if it is a gait clip.
    pub fn authored_velocity_model_m_s(&self) -> Option<Vec3> {
        self.authored_velocity_model_m_s
    }

    /// Ground speed the clip was authored for (m/s), if it is a gait clip.
    pub fn authored_speed_m_s(&self) -> Option<f32> {
        self.authored_velocity_model_m_s.map(Vec3::length)
    }

    /// Maps any time (seconds) into the clip: wrapped when looping, clamped otherwise.
    /// Non-finite time maps to 0.
    #[inline]
    pub fn local_time_s(&self, time_s: f32) -> f32 {
        if !time_s.is_finite() || self.duration_s <= 0.0 {
            return 0.0;
        }
        if self.looping {
            let t = time_s.rem_euclid(self.duration_s);
            // rem_euclid can round up to the divisor itself.
            if t >= self.duration_s {
                0.0
            } else {
                t
            }
        } else {
            time_s.clamp(0.0, self.duration_s)
        }
    }

    /// [`Clip::local_time_s`] of a long-running elapsed time (s), wrapped in f64 so that
    /// hours of play keep sub-microsecond steps.
    pub fn local_time_of_elapsed_s(&self, time_s: f64) -> f32 {
        let duration_s = f64::from(self.duration_s);
        if !time_s.is_finite() || duration_s <= 0.0 {
            return 0.0;
        }
        if !self.looping {
            return time_s.clamp(0.0, duration_s) as f32;
        }
        let t = time_s.rem_euclid(duration_s) as f32;
        // Rounding can land on the duration itself, which is the next loop's start.
        if t >= self.duration_s {
            0.0
        } else {
            t
        }
    }

    /// Clip time (seconds) at normalized phase `phase` (0 = start, 1 = end; wraps if looping).
    #[inline]
    pub fn time_at_phase_s(&self, phase: f32) -> f32 {
        self.local_time_s(phase * self.duration_s)
    }

    /// Samples the pose at `time_s` (mapped by [`Clip::local_time_s`]) into `out`, using the
    /// rest pose for joints and channels without tracks.
    ///
    /// `rest_local` is the skeleton's rest pose; `out` must have as many joints as the clip.
    pub fn sample(
        &self,
        time_s: f32,
        rest_local: &[Transform],
        out: &mut Pose,
    ) -> Result<(), ClipError> {
        let joints = out.num_joints();
        if self.joints.len() != joints || rest_local.len() != joints {
            return Err(ClipError::JointCount {
                clip: self.name.clone(),
                tracks: self.joints.len(),
                joints: joints.min(rest_local.len()),
            });
        }
        let t = self.local_time_s(time_s);
        for ((out, tracks), rest) in out.local_mut().iter_mut().zip(&self.joints).zip(rest_local) {
            *out = tracks.sample(t, rest);
        }
        Ok(())
    }

    /// As [`Clip::sample`], but a joint whose entry in `culled` is true is not sampled: it
    /// gets its rest transform (SPEC PERF-5's joint culling: fingers and twist bones of a
    /// far character). Joints past the end of `culled` are sampled.
    pub fn sample_culled(
        &self,
        time_s: f32,
        rest_local: &[Transform],
        culled: &[bool],
        out: &mut Pose,
    ) -> Result<(), ClipError> {
        let joints = out.num_joints();
        if self.joints.len() != joints || rest_local.len() != joints {
            return Err(ClipError::JointCount {
                clip: self.name.clone(),
                tracks: self.joints.len(),
                joints: joints.min(rest_local.len()),
            });
        }
        let t = self.local_time_s(time_s);
        let culled = culled.iter().copied().chain(std::iter::repeat(false));
        for (((out, tracks), rest), culled) in out
            .local_mut()
            .iter_mut()
            .zip(&self.joints)
            .zip(rest_local)
            .zip(culled)
        {
            *out = if culled {
                *rest
            } else {
                tracks.sample(t, rest)
            };
        }
        Ok(())
    }

    /// Samples at normalized phase (see [`Clip::time_at_phase_s`]).
    pub fn sample_phase(
        &self,
        phase: f32,
        rest_local: &[Transform],
        out: &mut Pose,
    ) -> Result<(), ClipError> {
        self.sample(phase * self.duration_s, rest_local, out)
    }

    /// Value of the named curve at `time_s` (mapped like the pose), `None` if absent.
    pub fn sample_curve(&self, name: &str, time_s: f32) -> Option<f32> {
        let t = self.local_time_s(time_s);
        self.curve(name).map(|c| c.track.sample(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn evenly_keyed_tracks_find_the_keys_a_binary_search_finds() {
        // Baked at 30 fps (with the float rounding of i/30), nearly even (every gap within
        // 1 %, so a guess can be off), and uneven.
        let even: Vec<f32> = (0..90).map(|i| i as f32 / 30.0).collect();
        let nearly: Vec<f32> = (0..90)
            .map(|i| i as f32 / 30.0 + if i % 2 == 1 { 0.0003 } else { 0.0 })
            .collect();
        let uneven: Vec<f32> = (0..90).map(|i| (i * i) as f32 / 900.0).collect();
        for times in [even, nearly, uneven] {
            let values: Vec<f32> = (0..times.len()).map(|i| (i * 7 % 11) as f32).collect();
            let track = Track::new(Interpolation::Linear, times.clone(), values).unwrap();
            let end = *times.last().unwrap();
            for step in 0..=20_000 {
                let time_s = end * step as f32 / 20_000.0;
                if time_s <= times[0] || time_s >= end {
                    continue;
                }
                let expected = times.partition_point(|&k| k <= time_s) - 1;
                assert_eq!(track.key_before(time_s), expected, "at {time_s} s");
            }
        }
    }

    #[test]
    fn step_holds_previous_key() {
        let t = Track::new(
            Interpolation::Step,
            vec![0.0, 1.0, 2.0],
            vec![1.0f32, 5.0, 9.0],
        )
        .unwrap();
        assert_eq!(t.sample(-1.0), 1.0);
        assert_eq!(t.sample(0.0), 1.0);
        assert_eq!(t.sample(0.99), 1.0);
        assert_eq!(t.sample(1.0), 5.0);
        assert_eq!(t.sample(1.5), 5.0);
        assert_eq!(t.sample(2.0), 9.0);
        assert_eq!(t.sample(7.0), 9.0);
        assert_eq!(t.sample(f32::NAN), 1.0);
    }

    #[test]
    fn linear_vec3_matches_hand_computed() {
        let t = Track::linear([(0.0, Vec3::ZERO), (2.0, Vec3::new(2.0, -4.0, 8.0))]).unwrap();
        assert_eq!(t.sample(0.5), Vec3::new(0.5, -1.0, 2.0));
        assert_eq!(t.sample(1.0), Vec3::new(1.0, -2.0, 4.0));
    }

    #[test]
    fn linear_rotation_is_slerp() {
        // 0° to 90° about Y: at t = 1/3 exactly 30°, which nlerp would miss by ~1.6°.
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let t = Track::linear([(0.0, a), (3.0, b)]).unwrap();
        let q = t.sample(1.0);
        let expected = Quat::from_rotation_y(30f32.to_radians());
        assert!(q.abs_diff_eq(expected, 1e-5), "{q:?}");
    }

    #[test]
    fn linear_rotation_takes_shortest_arc() {
        // The second key is stored in the far hemisphere (-q): the result must not spin.
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3);
        let t = Track::linear([(0.0, a), (1.0, b)]).unwrap();
        assert!(t.sample(0.5).abs_diff_eq(Quat::from_rotation_y(0.2), 1e-5));
    }

    #[test]
    fn cubic_spline_matches_hand_computed() {
        // One segment 0..2 s from 0 to 1 with out-tangent 0.5/s and in-tangent 0 /s:
        // p(s) = h00·0 + h10·(2·0.5) + h01·1 + h11·(2·0), at s = 0.5:
        // h10 = 0.125 - 0.5 + 0.5 = 0.125, h01 = -0.25 + 0.75 = 0.5 → 0.625.
        let t = Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 2.0],
            vec![9.0f32, 0.0, 0.5, 0.0, 1.0, 9.0],
        )
        .unwrap();
        assert_abs_diff_eq!(t.sample(1.0), 0.625, epsilon = 1e-6);
        assert_eq!(t.sample(0.0), 0.0);
        assert_eq!(t.sample(2.0), 1.0);
        assert_eq!(t.sample(3.0), 1.0);
    }

    #[test]
    fn cubic_spline_rotation_is_normalised() {
        let q0 = Quat::IDENTITY;
        let q1 = Quat::from_rotation_x(1.0);
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let t = Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            vec![zero, q0, zero, zero, q1, zero],
        )
        .unwrap();
        let q = t.sample(0.5);
        assert_abs_diff_eq!(q.length(), 1.0, epsilon = 1e-6);
        // Zero tangents and symmetric basis: halfway is the normalised average, 0.5 rad.
        assert!(q.abs_diff_eq(Quat::from_rotation_x(0.5), 1e-5));
    }

    #[test]
    fn malformed_tracks_are_refused() {
        assert_eq!(
            Track::<f32>::new(Interpolation::Linear, vec![], vec![]),
            Err(ClipError::NoKeys)
        );
        assert!(matches!(
            Track::new(Interpolation::CubicSpline, vec![0.0], vec![1.0f32]),
            Err(ClipError::ValueCount { expected: 3, .. })
        ));
        assert!(matches!(
            Track::new(Interpolation::Linear, vec![0.0, 0.0], vec![1.0f32, 2.0]),
            Err(ClipError::KeyTimesNotIncreasing { index: 1, .. })
        ));
        assert!(matches!(
            Track::new(
                Interpolation::Linear,
                vec![0.0, f32::NAN],
                vec![1.0f32, 2.0]
            ),
            Err(ClipError::BadKeyTime { index: 1 })
        ));
        assert!(matches!(
            Track::new(Interpolation::Linear, vec![0.0], vec![f32::INFINITY]),
            Err(ClipError::NonFiniteValue { index: 0 })
        ));
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        assert_eq!(
            Track::new(Interpolation::Step, vec![0.0], vec![zero]),
            Err(ClipError::DegenerateValue { index: 0 })
        );
        // Non-unit rotation keys are normalised.
        let t = Track::new(Interpolation::Linear, vec![0.0], vec![Quat::IDENTITY * 2.0]).unwrap();
        assert_eq!(t.sample(0.0), Quat::IDENTITY);
    }

    #[test]
    fn single_key_track_is_constant() {
        let t = Track::linear([(0.3, 4.0f32)]).unwrap();
        assert_eq!(t.sample(0.0), 4.0);
        assert_eq!(t.sample(10.0), 4.0);
    }

    #[test]
    fn looping_and_one_shot_time_mapping() {
        let clip = Clip::new("c", Some(2.0), vec![JointTracks::default()]).unwrap();
        assert_abs_diff_eq!(clip.local_time_s(5.0), 1.0);
        assert_abs_diff_eq!(clip.local_time_s(-0.5), 1.5);
        assert_eq!(clip.local_time_s(f32::NAN), 0.0);
        assert_abs_diff_eq!(clip.time_at_phase_s(1.25), 0.5);
        let once = clip.clone().with_looping(false);
        assert_eq!(once.local_time_s(5.0), 2.0);
        assert_eq!(once.local_time_s(-1.0), 0.0);
        let empty = Clip::new("e", None, vec![]).unwrap();
        assert_eq!(empty.duration_s(), 0.0);
        assert_eq!(empty.local_time_s(3.0), 0.0);
    }

    #[test]
    fn a_track_of_one_repeated_value_samples_it_everywhere() {
        let v = Vec3::new(0.1, 0.95, -0.02);
        let held = Track::linear([(0.0, v), (0.5, v), (1.0, v)]).unwrap();
        let moving = Track::linear([(0.0, v), (0.5, v), (1.0, Vec3::ZERO)]).unwrap();
        for time_s in [-1.0, 0.0, 0.3, 0.7, 1.0, 5.0, f32::NAN] {
            assert_eq!(held.sample(time_s), v);
        }
        assert_eq!(moving.sample(0.25), v);
        assert!((moving.sample(0.75) - v * 0.5).length() < 1e-6);
    }

    #[test]
    fn a_day_of_elapsed_time_still_steps_evenly() {
        // An unsynced blend keeps its elapsed time; after a day of 60 Hz ticks each still
        // moves the clip 1/60 s (an f32 time would move in 0 or 7.8 ms steps).
        let clip = Clip::new("c", Some(1.3), vec![JointTracks::default()]).unwrap();
        let mut elapsed_s = 86_400.0_f64;
        let mut last = clip.local_time_of_elapsed_s(elapsed_s);
        for _ in 0..200 {
            elapsed_s += f64::from(1.0_f32 / 60.0);
            let now = clip.local_time_of_elapsed_s(elapsed_s);
            let step_s = (now - last).rem_euclid(1.3);
            assert!((step_s - 1.0 / 60.0).abs() < 1e-5, "stepped {step_s} s");
            assert!((0.0..1.3).contains(&now));
            last = now;
        }
        assert_eq!(clip.local_time_of_elapsed_s(f64::NAN), 0.0);
        let once = clip.with_looping(false);
        assert_eq!(once.local_time_of_elapsed_s(86_400.0), 1.3);
    }

    #[test]
    fn sample_falls_back_to_rest_and_checks_joint_count() {
        let rest = [
            Transform::from_translation(Vec3::X),
            Transform::from_translation(Vec3::Y),
        ];
        let clip = Clip::new(
            "c",
            None,
            vec![
                JointTracks {
                    rotation: Some(
                        Track::linear([(0.0, Quat::IDENTITY), (1.0, Quat::from_rotation_z(1.0))])
                            .unwrap(),
                    ),
                    ..Default::default()
                },
                JointTracks::default(),
            ],
        )
        .unwrap();
        assert_eq!(clip.duration_s(), 1.0);
        let mut pose = Pose::new(2);
        clip.sample(0.5, &rest, &mut pose).unwrap();
        assert_eq!(pose.local()[0].translation, Vec3::X);
        assert!(pose.local()[0]
            .rotation
            .abs_diff_eq(Quat::from_rotation_z(0.5), 1e-5));
        assert_eq!(pose.local()[1], rest[1]);
        let mut wrong = Pose::new(3);
        assert!(matches!(
            clip.sample(0.0, &rest, &mut wrong),
            Err(ClipError::JointCount { .. })
        ));
        // Culled: rest, not sampled; the rest as sampled; a short list culls no more.
        let mut culled = Pose::new(2);
        clip.sample_culled(0.5, &rest, &[true, false], &mut culled)
            .unwrap();
        assert_eq!(culled.local()[0], rest[0]);
        assert_eq!(culled.local()[1], rest[1]);
        for list in [&[false, false][..], &[][..]] {
            clip.sample_culled(0.5, &rest, list, &mut culled).unwrap();
            assert_eq!(culled.local(), pose.local());
        }
        assert!(clip.sample_culled(0.0, &rest, &[true], &mut wrong).is_err());
    }

    #[test]
    fn events_stay_sorted_and_in_range() {
        let clip = Clip::new("c", Some(1.0), vec![])
            .unwrap()
            .with_event("b", 0.8)
            .unwrap()
            .with_event("a", 0.2)
            .unwrap();
        assert_eq!(clip.events()[0].name, "a");
        assert!(matches!(
            clip.with_event("x", 1.5),
            Err(ClipError::EventOutOfRange { .. })
        ));
    }
}
