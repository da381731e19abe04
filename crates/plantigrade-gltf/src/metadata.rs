//! plantigrade's clip metadata in an animation's `extras`: looping, authored velocity, exact
//! duration, float curves, events and the gait's sync marker, none of which glTF can
//! express.
//!
//! ```json
//! "extras": { "plantigrade": {
//!     "looping": true,
//!     "authored_velocity_model_m_s": [0.0, 0.0, 1.75],
//!     "duration_s": 1.2,
//!     "curves": [{ "name": "FootContact_L", "interpolation": "LINEAR",
//!                  "times_s": [0.0, 0.6], "values": [1.0, 0.0] }],
//!     "events": [{ "name": "Footstep_L", "time_s": 0.0 }],
//!     "left_foot_down_phase": 0.0
//! } }
//! ```
//!
//! Numbers are written as the exact `f64` value of each `f32`, so they read back bit for bit.
//! Every field is optional on import.

use glam::Vec3;
use plantigrade::{Clip, ClipError, FloatCurve, Interpolation, Track};
use serde::{Deserialize, Serialize};

/// The key under `extras` that holds [`ClipMetadata`].
pub(crate) const EXTRAS_KEY: &str = "plantigrade";

/// What the `extras` of one animation hold (the whole object, with other keys kept aside).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Extras {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plantigrade: Option<ClipMetadata>,
}

/// plantigrade's per-clip metadata.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ClipMetadata {
    pub looping: Option<bool>,
    pub authored_velocity_model_m_s: Option<[f64; 3]>,
    pub duration_s: Option<f64>,
    pub curves: Vec<CurveMetadata>,
    pub events: Vec<EventMetadata>,
    /// [`Clip::left_foot_down_phase`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_foot_down_phase: Option<f64>,
}

/// One float curve: raw values as in a [`Track`] (triples for `CUBICSPLINE`).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CurveMetadata {
    pub name: String,
    #[serde(default = "linear_name")]
    pub interpolation: String,
    pub times_s: Vec<f64>,
    pub values: Vec<f64>,
}

/// One event on the clip timeline.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct EventMetadata {
    pub name: String,
    pub time_s: f64,
}

fn linear_name() -> String {
    "LINEAR".into()
}

/// The glTF name of an interpolation mode.
pub(crate) fn interpolation_name(interpolation: Interpolation) -> &'static str {
    match interpolation {
        Interpolation::Step => "STEP",
        Interpolation::Linear => "LINEAR",
        Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

fn interpolation_from_name(name: &str) -> Option<Interpolation> {
    match name {
        "STEP" => Some(Interpolation::Step),
        "LINEAR" => Some(Interpolation::Linear),
        "CUBICSPLINE" => Some(Interpolation::CubicSpline),
        _ => None,
    }
}

impl ClipMetadata {
    /// The metadata of `clip`.
    pub(crate) fn of_clip(clip: &Clip) -> Self {
        let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
        Self {
            looping: Some(clip.is_looping()),
            authored_velocity_model_m_s: clip
                .authored_velocity_model_m_s()
                .map(|v| v.to_array().map(f64::from)),
            duration_s: Some(f64::from(clip.duration_s())),
            curves: clip
                .curves()
                .iter()
                .map(|c| CurveMetadata {
                    name: c.name.clone(),
                    interpolation: interpolation_name(c.track.interpolation()).into(),
                    times_s: wide(c.track.times_s()),
                    values: wide(c.track.values()),
                })
                .collect(),
            events: clip
                .events()
                .iter()
                .map(|e| EventMetadata {
                    name: e.name.clone(),
                    time_s: f64::from(e.time_s),
                })
                .collect(),
            left_foot_down_phase: clip.left_foot_down_phase().map(f64::from),
        }
    }

    /// The clip duration to use, if the metadata gives one.
    pub(crate) fn duration_s(&self) -> Option<f32> {
        self.duration_s.map(|d| d as f32)
    }

    /// Applies looping, velocity, curves, events and the sync marker to `clip`. Errors are
    /// described as text for [`crate::GltfError::BadMetadata`].
    pub(crate) fn apply(&self, mut clip: Clip) -> Result<Clip, String> {
        let describe = |what: &str, e: ClipError| format!("{what}: {e}");
        if let Some(looping) = self.looping {
            clip = clip.with_looping(looping);
        }
        if let Some(v) = self.authored_velocity_model_m_s {
            let v = Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
            clip = clip
                .with_authored_velocity(v)
                .map_err(|e| describe("authored_velocity_model_m_s", e))?;
        }
        for curve in &self.curves {
            let interpolation = interpolation_from_name(&curve.interpolation).ok_or_else(|| {
                format!(
                    "curve '{}': unknown interpolation '{}'",
                    curve.name, curve.interpolation
                )
            })?;
            let narrow = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
            let track = Track::new(interpolation, narrow(&curve.times_s), narrow(&curve.values))
                .map_err(|e| describe(&format!("curve '{}'", curve.name), e))?;
            clip = clip
                .with_curve(FloatCurve {
                    name: curve.name.clone(),
                    track,
                })
                .map_err(|e| describe("curves", e))?;
        }
        for event in &self.events {
            clip = clip
                .with_event(event.name.clone(), event.time_s as f32)
                // The error names the event already.
                .map_err(|e| describe("events", e))?;
        }
        if let Some(phase) = self.left_foot_down_phase {
            clip = clip
                .with_left_foot_down_phase(phase as f32)
                .map_err(|e| describe("left_foot_down_phase", e))?;
        }
        Ok(clip)
    }
}

/// Reads the metadata from raw `extras` JSON. `Ok(None)` when the extras hold no
/// `plantigrade` key; an error (as text) when that key is malformed.
pub(crate) fn from_extras(
    extras: &serde_json::value::RawValue,
) -> Result<Option<ClipMetadata>, String> {
    let value: serde_json::Value = serde_json::from_str(extras.get()).map_err(|e| e.to_string())?;
    let Some(metadata) = value.get(EXTRAS_KEY) else {
        return Ok(None);
    };
    ClipMetadata::deserialize(metadata)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The raw `extras` JSON holding `metadata` under [`EXTRAS_KEY`].
pub(crate) fn to_extras(
    metadata: ClipMetadata,
) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(&Extras {
        plantigrade: Some(metadata),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use plantigrade::JointTracks;

    #[test]
    fn metadata_round_trips_bit_for_bit() {
        let clip = Clip::new("c", Some(1.1), vec![JointTracks::default()])
            .unwrap()
            .with_looping(false)
            .with_authored_velocity(Vec3::new(0.1, 0.0, 1.7))
            .unwrap()
            .with_curve(FloatCurve {
                name: "FootContact_L".into(),
                track: Track::new(Interpolation::Step, vec![0.0, 0.3], vec![1.0, 0.0]).unwrap(),
            })
            .unwrap()
            .with_event("Footstep_L", 0.1)
            .unwrap()
            .with_left_foot_down_phase(0.95)
            .unwrap();
        let raw = to_extras(ClipMetadata::of_clip(&clip)).unwrap();
        let back = from_extras(&raw).unwrap().unwrap();
        assert_eq!(back.duration_s(), Some(1.1));
        let bare = Clip::new("c", back.duration_s(), vec![JointTracks::default()]).unwrap();
        assert_eq!(back.apply(bare).unwrap(), clip);
    }

    #[test]
    fn foreign_extras_are_ignored_and_bad_metadata_reported() {
        let raw = serde_json::value::to_raw_value(&serde_json::json!({"author": "x"})).unwrap();
        assert!(from_extras(&raw).unwrap().is_none());
        let raw =
            serde_json::value::to_raw_value(&serde_json::json!({"plantigrade": {"looping": 3}}))
                .unwrap();
        assert!(from_extras(&raw).is_err());
        let meta = ClipMetadata {
            events: vec![EventMetadata {
                name: "late".into(),
                time_s: 5.0,
            }],
            ..Default::default()
        };
        let clip = Clip::new("c", Some(1.0), vec![]).unwrap();
        assert!(meta.apply(clip).is_err());
        let meta = ClipMetadata {
            left_foot_down_phase: Some(1.5),
            ..Default::default()
        };
        let clip = Clip::new("c", Some(1.0), vec![]).unwrap();
        let error = meta.apply(clip).unwrap_err();
        assert!(error.contains("left_foot_down_phase"), "{error}");
    }
}
