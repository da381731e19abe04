//! Everything a character is set up with, as one piece of data: movement, foot IK, tilt,
//! look-at, LOD, lean, landing impact, the query layers, an optional explicit bone map and
//! root-motion source. It loads from RON (missing fields take their defaults) and
//! [`CharacterSettings::validate`] refuses values the stages cannot work with, so a bad file
//! is an error at load time, not garbage at run time.

use crate::bone_map::BoneNames;
use crate::graph::RootMotionDef;
use crate::ik::look_at::LookAtConfig;
use crate::ik::FootIkConfig;
use crate::impact::LandingImpactConfig;
use crate::lean::LeanConfig;
use crate::lod::LodConfig;
use crate::motion::{CharacterConfig, ConfigError};
use crate::source_pos::SourcePos;
use crate::tilt::TiltConfig;
use crate::world::Layers;

/// Which collision layers a character's queries see (SPEC MOVE-7, IK-2, TILT-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct QueryLayers {
    /// What the capsule collides with while it moves: ground, props and other characters.
    pub movement: Layers,
    /// What the feet and the pelvis tilt stand on: the ground.
    pub ground: Layers,
}

impl Default for QueryLayers {
    fn default() -> Self {
        Self {
            movement: Layers::GROUND
                .union(Layers::PROPS)
                .union(Layers::CHARACTERS),
            ground: Layers::GROUND,
        }
    }
}

/// A character's whole setup. `Default` is the built-in one: the mannequin's tuning, bones
/// detected by name, root motion as the graph says.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct CharacterSettings {
    /// Speeds, acceleration and turn curves, jump, capsules (SPEC MOVE).
    pub motion: CharacterConfig,
    /// Predictive foot IK (SPEC IK-1..13).
    pub foot_ik: FootIkConfig,
    /// The slope-aware pelvis and posture (SPEC TILT).
    pub tilt: TiltConfig,
    /// Head and spine look-at (SPEC IK-14).
    pub look_at: LookAtConfig,
    /// Detail by distance to the viewer (SPEC IK-11).
    pub lod: LodConfig,
    /// Joints (by name) that no one sees on a far character: beyond the full-detail tier
    /// they go to their rest pose over `lod.blend_time_s` and are then not sampled (SPEC
    /// PERF-5), e.g. fingers and twist bones; [`crate::lod::suggested_culled_joints`]
    /// lists a rig's. None may be, or hold up, a bone of the humanoid map or the root-motion
    /// joint. Empty (the default): none. Decided at spawn.
    pub lod_culled_joints: Vec<String>,
    /// The lean with the body's acceleration.
    pub lean: LeanConfig,
    /// The dip of a landing with horizontal speed.
    pub impact: LandingImpactConfig,
    /// The layers the character's queries see.
    pub query_layers: QueryLayers,
    /// The rig's bones by name (and foot sockets), when detection by name is not enough;
    /// `None` detects them.
    pub bone_map: Option<BoneNames>,
    /// Where root motion comes from (joint and axes), in place of the graph's own; `None`
    /// keeps the graph's.
    pub root_motion: Option<RootMotionDef>,
}

/// Why settings were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// Says its detail itself and gives no `source()`, so a report that prints the whole
    /// chain (anyhow's `{:#}`) says it once.
    #[error("motion: {0}")]
    Motion(ConfigError),
    #[error("{field} is {value}; it must be a finite number")]
    NotFinite { field: String, value: f32 },
    #[error("{field} is {value}; it must not be negative")]
    Negative { field: &'static str, value: f32 },
    #[error("query_layers.{which} is empty: the character's queries would see nothing")]
    NoLayers { which: &'static str },
}

from_cause_in_message!(ConfigError => SettingsError::Motion);

/// Why a settings file could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsLoadError {
    #[error("settings line {line}, column {col}: {message}")]
    Parse {
        line: usize,
        col: usize,
        message: String,
    },
    #[error(transparent)]
    Invalid(#[from] SettingsError),
}

impl CharacterSettings {
    /// Parses RON `CharacterSettings(...)` or `(...)` (missing fields take their defaults)
    /// and validates it. A syntax error or unknown field names its line and column.
    pub fn from_ron(source: &str) -> Result<Self, SettingsLoadError> {
        let settings: CharacterSettings = ron::from_str(source).map_err(|e| {
            let at = SourcePos::of_ron_error(&e);
            SettingsLoadError::Parse {
                line: at.line,
                col: at.col,
                message: e.code.to_string(),
            }
        })?;
        settings.validate()?;
        Ok(settings)
    }

    /// The settings as RON (what [`CharacterSettings::from_ron`] reads back).
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("settings are plain data and always serialise")
    }

    /// Checks every value can work: the movement rules of [`CharacterConfig::validate`],
    /// every other number finite, smoothing rates and times not negative, and query layers
    /// that see something.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.motion.validate()?;
        all_finite(self)?;
        let f = &self.foot_ik;
        for (field, value) in [
            ("foot_ik.swing_smoothing_per_s", f.swing_smoothing_per_s),
            ("foot_ik.contact_smoothing_per_s", f.contact_smoothing_per_s),
            ("foot_ik.contact_ease_s", f.contact_ease_s),
            ("look_at.blend_k_per_s", self.look_at.blend_k_per_s),
            ("look_at.damping_k_per_s", self.look_at.damping_k_per_s),
            ("lod.blend_time_s", self.lod.blend_time_s),
            ("lod.hysteresis_m", self.lod.hysteresis_m),
            ("lean.smoothing_s", self.lean.smoothing_s),
        ] {
            if value < 0.0 {
                return Err(SettingsError::Negative { field, value });
            }
        }
        for (which, layers) in [
            ("movement", self.query_layers.movement),
            ("ground", self.query_layers.ground),
        ] {
            if layers.0 == 0 {
                return Err(SettingsError::NoLayers { which });
            }
        }
        Ok(())
    }
}

/// Every number in `settings` finite, found through its serde form so a field added later
/// is checked too; the error names the field by its path (`tilt.posture.lean_share`).
fn all_finite(settings: &CharacterSettings) -> Result<(), SettingsError> {
    let text = ron::to_string(settings).expect("settings are plain data and always serialise");
    // RON writes a non-finite number as `NaN`, `inf` or `-inf`: without either in the text
    // every number is finite, and the slower walk that names the field is not needed (a
    // spawn validates its settings).
    if !(text.contains("NaN") || text.contains("inf")) {
        return Ok(());
    }
    let value: ron::Value = ron::from_str(&text).expect("ron reads back what it wrote");
    check_value(&value, &mut String::new())
}

fn check_value(value: &ron::Value, path: &mut String) -> Result<(), SettingsError> {
    match value {
        ron::Value::Number(n) => {
            let x = n.into_f64();
            if x.is_finite() {
                Ok(())
            } else {
                Err(SettingsError::NotFinite {
                    field: path.trim_start_matches('.').to_string(),
                    value: x as f32,
                })
            }
        }
        ron::Value::Map(map) => {
            for (key, item) in map.iter() {
                let len = path.len();
                match key {
                    ron::Value::String(name) => {
                        path.push('.');
                        path.push_str(name);
                    }
                    _ => path.push_str("[…]"),
                }
                check_value(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        ron::Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_value(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        ron::Value::Option(Some(inner)) => check_value(inner, path),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_validate_and_round_trip_through_ron() {
        let settings = CharacterSettings::default();
        settings.validate().unwrap();
        let back = CharacterSettings::from_ron(&settings.to_ron()).unwrap();
        assert_eq!(back, settings);
    }

    #[test]
    fn a_partial_file_takes_the_defaults_for_the_rest() {
        let s = CharacterSettings::from_ron("(motion: (walk_speed_m_s: 1.5), lean: ())").unwrap();
        assert_eq!(s.motion.walk_speed_m_s, 1.5);
        assert_eq!(s.foot_ik, FootIkConfig::default());
        assert_eq!(s.query_layers, QueryLayers::default());
    }

    #[test]
    fn a_bad_file_names_its_line_and_column() {
        let err =
            CharacterSettings::from_ron("(\n  motion: (),\n  no_such_field: 1,\n)").unwrap_err();
        match err {
            SettingsLoadError::Parse { line, col, .. } => assert_eq!((line, col), (3, 3)),
            other => panic!("{other}"),
        }
        let err = CharacterSettings::from_ron("(motion: (walk_speed_m_s: \"fast\"))").unwrap_err();
        assert!(
            matches!(err, SettingsLoadError::Parse { line: 1, .. }),
            "{err}"
        );
    }

    #[test]
    fn values_the_stages_cannot_use_are_refused_by_name() {
        let mut s = CharacterSettings::default();
        s.tilt.head_keep_fraction = f32::NAN;
        match s.validate().unwrap_err() {
            SettingsError::NotFinite { field, .. } => assert_eq!(field, "tilt.head_keep_fraction"),
            other => panic!("{other}"),
        }
        let mut s = CharacterSettings::default();
        s.foot_ik.swing_smoothing_per_s = -1.0;
        assert!(matches!(
            s.validate(),
            Err(SettingsError::Negative {
                field: "foot_ik.swing_smoothing_per_s",
                ..
            })
        ));
        let mut s = CharacterSettings::default();
        s.motion.walk_speed_m_s = 0.0;
        assert!(matches!(s.validate(), Err(SettingsError::Motion(_))));
        let mut s = CharacterSettings::default();
        s.query_layers.ground = Layers(0);
        assert!(matches!(
            s.validate(),
            Err(SettingsError::NoLayers { which: "ground" })
        ));
        // Infinity written in the file itself.
        let err = CharacterSettings::from_ron("(lod: (full_max_distance_m: inf))").unwrap_err();
        assert!(
            matches!(&err, SettingsLoadError::Invalid(SettingsError::NotFinite { field, .. }) if field == "lod.full_max_distance_m"),
            "{err}"
        );
    }
}

/// The settings through `bevy_reflect`, as an inspector sees them.
#[cfg(all(test, feature = "reflect"))]
mod reflect_tests {
    use bevy_reflect::{structs::Struct, GetPath, PartialReflect, ReflectRef};

    use super::*;
    use crate::bone_map::FootSockets;

    #[test]
    fn a_field_set_by_its_path_changes_the_settings() {
        let mut settings = CharacterSettings::default();
        *settings
            .path_mut::<f32>("foot_ik.probe.probe_down_m")
            .unwrap() = 0.8;
        assert_eq!(settings.foot_ik.probe.probe_down_m, 0.8);
        // The same through the untyped path an inspector uses.
        settings
            .reflect_path_mut("motion.run_speed_m_s")
            .unwrap()
            .apply(&4.25f32);
        assert_eq!(settings.motion.run_speed_m_s, 4.25);
        *settings
            .path_mut::<f32>("tilt.filter.damping.k_per_s")
            .unwrap() = 11.0;
        assert_eq!(
            settings.tilt.filter.damping,
            crate::tilt::TiltDamping::Exponential { k_per_s: 11.0 }
        );
        *settings.path_mut::<u32>("query_layers.ground.0").unwrap() = 0b11;
        assert_eq!(settings.query_layers.ground, Layers(0b11));
        *settings
            .path_mut::<f32>("motion.hips_back_band_deg.1")
            .unwrap() = 100.0;
        assert_eq!(settings.motion.hips_back_band_deg.1, 100.0);
        settings.validate().unwrap();

        // A curve's points can be edited too, so validation checks them again: points
        // out of order are refused, not sampled.
        *settings
            .path_mut::<f32>("motion.turn_rate_rad_s.points[1].0")
            .unwrap() = -1.0;
        assert!(
            matches!(
                settings.validate(),
                Err(SettingsError::Motion(ConfigError::Curve {
                    field: "turn_rate_rad_s",
                    ..
                }))
            ),
            "{:?}",
            settings.validate()
        );
    }

    /// Walks every field below `value`, checking each is reachable from the root by its
    /// path and ends in a plain number, flag, string or field-less enum an inspector can
    /// edit. Returns the leaves' paths.
    fn walk(
        root: &CharacterSettings,
        value: &dyn PartialReflect,
        path: String,
        leaves: &mut Vec<String>,
    ) {
        if !path.is_empty() {
            let found = root
                .reflect_path(path.as_str())
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(
                found.reflect_partial_eq(value).unwrap_or(false),
                "{path} leads to another value"
            );
        }
        let join = |name: &str| {
            if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        match value.reflect_ref() {
            ReflectRef::Struct(s) => {
                for i in 0..s.field_len() {
                    let name = s.name_at(i).unwrap();
                    walk(root, s.field_at(i).unwrap(), join(name), leaves);
                }
            }
            ReflectRef::TupleStruct(t) => {
                for i in 0..t.field_len() {
                    walk(root, t.field(i).unwrap(), join(&i.to_string()), leaves);
                }
            }
            ReflectRef::Tuple(t) => {
                for i in 0..t.field_len() {
                    walk(root, t.field(i).unwrap(), join(&i.to_string()), leaves);
                }
            }
            ReflectRef::List(l) => {
                for i in 0..l.len() {
                    walk(root, l.get(i).unwrap(), format!("{path}[{i}]"), leaves);
                }
            }
            ReflectRef::Enum(e) if e.field_len() > 0 => {
                for i in 0..e.field_len() {
                    let name = e.name_at(i).map_or_else(|| i.to_string(), str::to_string);
                    walk(root, e.field_at(i).unwrap(), join(&name), leaves);
                }
            }
            ReflectRef::Enum(_) => leaves.push(path),
            _ => {
                let plain = value.try_downcast_ref::<f32>().is_some()
                    || value.try_downcast_ref::<u32>().is_some()
                    || value.try_downcast_ref::<u8>().is_some()
                    || value.try_downcast_ref::<bool>().is_some()
                    || value.try_downcast_ref::<String>().is_some();
                assert!(
                    plain,
                    "{path} is {} and not plain data",
                    value.reflect_type_path()
                );
                leaves.push(path);
            }
        }
    }

    #[test]
    fn every_field_is_reachable_by_its_path() {
        // The optional parts set, so the walk goes into them too.
        let sockets = FootSockets {
            heel_foot_local: glam::Vec3::new(0.0, -0.08, -0.05),
            ball_foot_local: glam::Vec3::new(0.0, -0.08, 0.15),
            mid_foot_local: glam::Vec3::new(0.0, -0.08, 0.05),
        };
        let settings = CharacterSettings {
            bone_map: Some(BoneNames {
                pelvis: Some("pelvis".into()),
                spine: vec!["spine_01".into(), "spine_02".into()],
                foot_sockets_l: Some(sockets),
                ..Default::default()
            }),
            root_motion: Some(RootMotionDef {
                joint: Some("root".into()),
                ..Default::default()
            }),
            lod_culled_joints: vec!["index_01_l".into(), "thumb_01_l".into()],
            ..Default::default()
        };
        // Every top-level field by name.
        let names: Vec<&str> = (0..settings.field_len())
            .map(|i| settings.name_at(i).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "motion",
                "foot_ik",
                "tilt",
                "look_at",
                "lod",
                "lod_culled_joints",
                "lean",
                "impact",
                "query_layers",
                "bone_map",
                "root_motion"
            ]
        );
        for name in names {
            assert!(settings.reflect_path(name).is_ok(), "{name}");
        }
        let mut leaves = Vec::new();
        walk(&settings, &settings, String::new(), &mut leaves);
        for expected in [
            "foot_ik.probe.probe_down_m",
            "foot_ik.mode",
            "motion.acceleration_m_s2.points[2].1",
            "motion.move_limits.step_height_m.0",
            "tilt.stairs_filter.damping.k_per_s",
            "query_layers.movement.0",
            "bone_map.0.spine[1]",
            "bone_map.0.foot_sockets_l.0.ball_foot_local.z",
            "root_motion.0.joint.0",
            "root_motion.0.yaw",
            "lod_culled_joints[1]",
        ] {
            assert!(
                leaves.iter().any(|l| l == expected),
                "{expected}: {leaves:?}"
            );
        }
    }
}
