//! results.json: machine-readable results. Top-level keys are stable; later stages add keys.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

/// One named pass/fail check with a human-readable detail.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub pass: bool,
    pub detail: String,
    /// Whether `--check` fails on it. Targets the code does not meet yet are recorded with
    /// `blocking: false` and listed apart, so they are visible without hiding a regression
    /// of what already passes.
    pub blocking: bool,
}

impl Check {
    pub fn new(name: impl Into<String>, pass: bool, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            pass,
            detail: detail.into(),
            blocking: true,
        }
    }

    /// A target that is measured and reported but not yet gating.
    pub fn target(name: impl Into<String>, pass: bool, detail: impl Into<String>) -> Self {
        Self {
            blocking: false,
            ..Self::new(name, pass, detail)
        }
    }
}

/// Writes `value` as pretty JSON to `dir/results.json`, creating `dir`.
pub fn write_results(dir: &Path, value: &impl Serialize) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("results.json");
    let json = serde_json::to_string_pretty(value).context("serialising results")?;
    std::fs::write(&path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}
