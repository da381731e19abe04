//! The trace CSVs: one row per tick, every field of a [`TickSample`], so the metrics can be
//! re-derived outside the lab; and the pose, every joint's world position per tick, so a
//! filmstrip can be redrawn from the trace alone.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use glam::Vec3;

use super::sample::TickSample;

/// Column names of the trace CSV, in order. Per-foot columns are prefixed `l_` and `r_`.
pub fn trace_csv_columns() -> Vec<String> {
    let mut columns: Vec<String> = ["time_s", "state"].map(String::from).to_vec();
    for name in ["root", "pelvis"] {
        columns.extend(["x", "y", "z"].map(|c| format!("{name}_{c}")));
    }
    columns.extend(["qx", "qy", "qz", "qw"].map(|c| format!("pelvis_{c}")));
    columns.push("grounded".into());
    for side in ["l", "r"] {
        for point in ["knee", "ankle", "heel", "ball"] {
            columns.extend(["x", "y", "z"].map(|c| format!("{side}_{point}_{c}")));
        }
        for name in [
            "ground_heel_m",
            "ground_ball_m",
            "heel_depth_m",
            "ball_depth_m",
            "contact",
            "ik_alpha",
            "pred_x",
            "pred_y",
            "pred_z",
            "heel_hit",
            "toe_hit",
            "locked",
            "stepping",
        ] {
            columns.push(format!("{side}_{name}"));
        }
    }
    columns.extend(
        [
            "tilt_pitch_deg",
            "tilt_roll_deg",
            "ground_pitch_deg",
            "ground_roll_deg",
            "head_pitch_final_deg",
            "head_pitch_anim_deg",
            "knee_flips",
            "reach_clamps",
            "non_finite",
        ]
        .map(String::from),
    );
    // The trunk, for the posture checks and for pops above the legs.
    for name in ["neck", "head"] {
        columns.extend(["x", "y", "z"].map(|c| format!("{name}_{c}")));
    }
    columns.extend(["torso_lean_anim_deg", "lean_pitch_deg"].map(String::from));
    columns
}

/// One CSV row being built: fields joined by commas.
struct Row(String);

impl Row {
    fn field(&mut self, value: impl std::fmt::Display) {
        if !self.0.is_empty() {
            self.0.push(',');
        }
        // Writing into a String cannot fail.
        let _ = write!(self.0, "{value}");
    }
    /// f32 prints as the shortest text that parses back to the same value (NaN as `NaN`).
    fn vec3(&mut self, v: Vec3) {
        v.to_array().iter().for_each(|c| self.field(c));
    }
    fn optional(&mut self, value: Option<f32>) {
        match value {
            Some(v) => self.field(v),
            None => self.field(""),
        }
    }
    fn flag(&mut self, value: bool) {
        self.field(u8::from(value));
    }
    fn text(&mut self, value: &str) {
        if value.contains([',', '"', '\n', '\r']) {
            self.field(format_args!("\"{}\"", value.replace('"', "\"\"")));
        } else {
            self.field(value);
        }
    }
}

/// Writes one row per tick with a header row (columns: [`trace_csv_columns`]), so anyone can
/// re-derive the metrics. Positions in metres; tilt, ground truth and head pitch in degrees;
/// `None` values are empty fields; flags are 0/1; a text field with a comma or quote is quoted
/// (RFC 4180). Creates the parent directory if needed.
pub fn write_trace_csv(path: &Path, samples: &[TickSample]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "{}", trace_csv_columns().join(","))?;
    let deg = |rad: f32| rad.to_degrees();
    for s in samples {
        let mut row = Row(String::new());
        row.field(s.time_s);
        row.text(&s.state);
        row.vec3(s.root_world);
        row.vec3(s.pelvis_world);
        s.pelvis_rotation_world
            .to_array()
            .iter()
            .for_each(|c| row.field(c));
        row.flag(s.grounded);
        for foot in &s.feet {
            row.vec3(foot.knee_world);
            row.vec3(foot.ankle_world);
            row.vec3(foot.heel_world);
            row.vec3(foot.ball_world);
            row.optional(foot.ground_under_heel_m);
            row.optional(foot.ground_under_ball_m);
            row.optional(foot.heel_depth_m);
            row.optional(foot.ball_depth_m);
            row.field(foot.contact);
            row.field(foot.ik_alpha);
            for axis in 0..3 {
                row.optional(foot.predicted_landing_world.map(|p| p[axis]));
            }
            row.flag(foot.heel_probe_hit);
            row.flag(foot.toe_probe_hit);
            row.flag(foot.locked);
            row.flag(foot.stepping);
        }
        row.field(deg(s.tilt_pitch_rad));
        row.field(deg(s.tilt_roll_rad));
        row.optional(s.ground_pitch_rad.map(deg));
        row.optional(s.ground_roll_rad.map(deg));
        row.field(deg(s.head_pitch_world_rad));
        row.field(deg(s.head_pitch_anim_rad));
        row.field(s.knee_flips);
        row.field(s.reach_clamps);
        row.flag(s.non_finite);
        row.vec3(s.neck_world);
        row.vec3(s.head_world);
        row.field(deg(s.torso_lean_anim_rad));
        row.field(deg(s.lean_pitch_rad));
        writeln!(out, "{}", row.0)?;
    }
    out.flush()
}

/// Column names of the pose CSV: `time_s`, then `<joint>_x`, `<joint>_y`, `<joint>_z` per
/// joint in skeleton order.
pub fn pose_csv_columns(joint_names: &[String]) -> Vec<String> {
    let mut columns = vec!["time_s".to_string()];
    for name in joint_names {
        columns.extend(["x", "y", "z"].map(|c| format!("{name}_{c}")));
    }
    columns
}

/// Writes every joint's world position per tick (m; columns: [`pose_csv_columns`]): the
/// whole skeleton, where the trace CSV has only the legs and trunk. A tick without a pose
/// (or with fewer joints) leaves its fields empty; a column name with a comma or quote is
/// quoted. Creates the parent directory if needed.
pub fn write_pose_csv(
    path: &Path,
    samples: &[TickSample],
    joint_names: &[String],
) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut header = Row(String::new());
    for column in pose_csv_columns(joint_names) {
        header.text(&column);
    }
    writeln!(out, "{}", header.0)?;
    for s in samples {
        let mut row = Row(String::new());
        row.field(s.time_s);
        for j in 0..joint_names.len() {
            match s.joints_world.get(j) {
                Some(&p) => row.vec3(p),
                None => (0..3).for_each(|_| row.field("")),
            }
        }
        writeln!(out, "{}", row.0)?;
    }
    out.flush()
}
