//! The runs of a results.json as the HTML report shows them: one [`RunSummary`] per
//! scenario run, with its checks and its figures flattened to named numbers. Built from the
//! JSON text (not the lab's structs), so `report --compare` works from two results.json
//! files alone, whichever lab version wrote them.

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

/// One check as results.json records it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRow {
    pub name: String,
    pub pass: bool,
    /// `false`: a target not met yet, listed but not failing `--check`.
    pub blocking: bool,
    pub detail: String,
}

/// How a run, or a set of checks, stands: the worst of its checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// A blocking check failed.
    Fail,
    /// Every blocking check passed; a target is not met.
    Unmet,
    Pass,
}

impl Status {
    pub fn of(checks: &[CheckRow]) -> Status {
        if checks.iter().any(|c| !c.pass && c.blocking) {
            Status::Fail
        } else if checks.iter().any(|c| !c.pass) {
            Status::Unmet
        } else {
            Status::Pass
        }
    }
}

/// One scenario run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub scenario: String,
    /// The table column it goes in: the foot IK mode, with the tilt and the mover when they
    /// are not the defaults (`predictive tilt off`, `classic queries`).
    pub column: String,
    pub checks: Vec<CheckRow>,
    /// Every number under `metrics` (and each `extra` figure) by name, in file order;
    /// `None` for a JSON null.
    pub metrics: Vec<(String, Option<f64>)>,
}

impl RunSummary {
    pub fn status(&self) -> Status {
        Status::of(&self.checks)
    }
}

/// The column of a run: `mode`, then ` tilt X` unless tilt is on, then the mover unless it
/// is rapier (results.json leaves the default mover out).
pub fn column_key(mode: &str, tilt: &str, mover: Option<&str>) -> String {
    let mut key = mode.to_string();
    if tilt != "on" {
        key.push_str(&format!(" tilt {tilt}"));
    }
    if let Some(mover) = mover.filter(|m| *m != "rapier") {
        key.push_str(&format!(" {mover}"));
    }
    key
}

fn text<'a>(value: &'a Value, key: &str, what: &str) -> anyhow::Result<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .with_context(|| format!("{what} has no text field '{key}'"))
}

/// The checks in a JSON array of `{name, pass, detail, blocking}` (blocking defaults to
/// true: files older than targets had none).
pub fn checks_of(value: Option<&Value>, what: &str) -> anyhow::Result<Vec<CheckRow>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let list = value
        .as_array()
        .with_context(|| format!("{what}: 'checks' is not a list"))?;
    list.iter()
        .map(|c| {
            Ok(CheckRow {
                name: text(c, "name", what)?.to_string(),
                pass: c
                    .get("pass")
                    .and_then(Value::as_bool)
                    .with_context(|| format!("{what}: a check has no 'pass'"))?,
                blocking: c.get("blocking").and_then(Value::as_bool).unwrap_or(true),
                detail: c
                    .get("detail")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
        })
        .collect()
}

/// The numbers of a `metrics` object: numbers and nulls by key, and `extra`'s
/// `[name, number]` pairs; lists of names (states, landings) and flags are left out.
fn metrics_of(metrics: Option<&Value>) -> Vec<(String, Option<f64>)> {
    let Some(Value::Object(map)) = metrics else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in map {
        match value {
            Value::Number(n) => out.push((key.clone(), n.as_f64())),
            Value::Null => out.push((key.clone(), None)),
            Value::Array(items) if key == "extra" => {
                for pair in items {
                    if let (Some(name), Some(v)) = (
                        pair.get(0).and_then(Value::as_str),
                        pair.get(1).and_then(Value::as_f64),
                    ) {
                        out.push((name.to_string(), Some(v)));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The scenario runs of a parsed results.json, in file order (the catalog's).
pub fn scenario_runs(results: &Value) -> anyhow::Result<Vec<RunSummary>> {
    let Some(list) = results.get("scenarios") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .context("'scenarios' is not a list of runs")?;
    list.iter()
        .enumerate()
        .map(|(i, run)| {
            let what = format!("scenario run {}", i + 1);
            let scenario = text(run, "name", &what)?.to_string();
            let what = format!("scenario run {} ({scenario})", i + 1);
            let mode = text(run, "mode", &what)?;
            let tilt = run.get("tilt").and_then(Value::as_str).unwrap_or("on");
            let mover = run.get("mover").and_then(Value::as_str);
            Ok(RunSummary {
                column: column_key(mode, tilt, mover),
                checks: checks_of(run.get("checks"), &what)?,
                metrics: metrics_of(run.get("metrics")),
                scenario,
            })
        })
        .collect()
}

/// The checks outside the scenarios (the clip table's, the graph timeline's), each with
/// what it belongs to.
pub fn other_checks(results: &Value) -> anyhow::Result<Vec<(String, CheckRow)>> {
    let mut out = Vec::new();
    if let Some(clips) = results.get("clips").and_then(Value::as_array) {
        for clip in clips {
            let name = clip.get("clip").and_then(Value::as_str).unwrap_or("clip");
            let what = format!("clip {name}");
            for check in checks_of(clip.get("checks"), &what)? {
                out.push((what.clone(), check));
            }
        }
    }
    if let Some(timeline) = results.get("graph_timeline") {
        for check in checks_of(timeline.get("checks"), "graph timeline")? {
            out.push(("graph timeline".to_string(), check));
        }
    }
    Ok(out)
}

/// A results.json read and parsed, with an error naming the file when it is missing, not
/// JSON, or not a lab results object.
pub fn load(path: &Path) -> anyhow::Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    if !value.is_object() || !(value.get("scenarios").is_some() || value.get("clips").is_some()) {
        anyhow::bail!(
            "{} is not a plantigrade-lab results.json (no 'scenarios' or 'clips')",
            path.display()
        );
    }
    Ok(value)
}
