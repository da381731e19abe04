//! results.json: machine-readable results (top-level keys are stable; later stages add
//! keys), and the HTML report drawn from it: `index.html` beside results.json, its pictures
//! in `img/`.
//!
//! By concern: [`runs`] reads a results.json into what the page shows, [`html`] writes the
//! page, [`plots`] and [`draw`] draw the pictures of the runs, on a thread beside them.

pub mod draw;
pub mod html;
pub mod plots;
pub mod runs;

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

/// Writes `dir/index.html` for the results in `results` (as written to results.json) and
/// the pictures drawn; returns its path. `intro` is HTML under the title.
pub fn write_report(
    dir: &Path,
    results: &impl Serialize,
    intro: &str,
    images: &html::Images,
) -> anyhow::Result<PathBuf> {
    let value = serde_json::to_value(results).context("serialising results for the report")?;
    let page = html::report_page(
        "plantigrade lab report",
        intro,
        &runs::scenario_runs(&value)?,
        &runs::other_checks(&value)?,
        images,
    );
    write_page(dir, &page)
}

/// `report --compare A B`: the summary of two results.json side by side in
/// `out/compare/index.html`, from the files alone; returns its path.
pub fn write_comparison(a: &Path, b: &Path, out: &Path) -> anyhow::Result<PathBuf> {
    let (value_a, value_b) = (runs::load(a)?, runs::load(b)?);
    let runs_a =
        runs::scenario_runs(&value_a).with_context(|| format!("reading {}", a.display()))?;
    let runs_b =
        runs::scenario_runs(&value_b).with_context(|| format!("reading {}", b.display()))?;
    let intro = format!(
        "<p>A: <code>{}</code> ({} runs)<br>B: <code>{}</code> ({} runs)<br>\
         A cell outlined in red changed its verdict; a figure highlighted prints differently \
         in B than in A.</p>\n",
        html::escape(&a.display().to_string()),
        runs_a.len(),
        html::escape(&b.display().to_string()),
        runs_b.len()
    );
    let page = html::compare_page("plantigrade lab: A against B", &intro, &runs_a, &runs_b);
    write_page(&out.join("compare"), &page)
}

fn write_page(dir: &Path, page: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("index.html");
    std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plantigrade::ik::FootIkMode;

    /// Every `src="…"` and `href="…"` of a page that is not an anchor or a web address.
    fn local_references(page: &str) -> Vec<String> {
        let mut out = Vec::new();
        for attribute in ["src=\"", "href=\""] {
            for (at, _) in page.match_indices(attribute) {
                let rest = &page[at + attribute.len()..];
                let value = &rest[..rest.find('"').unwrap()];
                if !value.starts_with('#') {
                    out.push(value.to_string());
                }
            }
        }
        out
    }

    #[test]
    fn a_report_of_one_stairs_run_references_only_files_it_wrote() {
        let dir = std::env::temp_dir().join(format!("plantigrade-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let course = plantigrade_course::Course::default_course();
        let actor = crate::scenarios::Actor::mannequin().unwrap();
        crate::film::register_font().unwrap();
        let drawer = draw::Drawer {
            dir: dir.clone(),
            course: &course,
            bones: crate::film::actor_bones(&actor).unwrap(),
            hz: 60.0,
        };
        let selection = draw::Selection {
            mode: "predictive".into(),
            tilt: "on".into(),
            mover: "rapier".into(),
        };
        let options = crate::scenarios::RunOptions {
            modes: vec![FootIkMode::Predictive],
            ..Default::default()
        };
        let names = ["stairs_up_15cm_walk".to_string()];
        let (results, images) = draw::draw_alongside(Some(drawer), &selection, |observe| {
            crate::scenarios::run_all_observed(&names, &course, &actor, 60.0, &options, observe)
        })
        .unwrap();
        let page_path = write_report(
            &dir,
            &serde_json::json!({ "scenarios": results }),
            "<p>test</p>",
            &images,
        )
        .unwrap();
        let page = std::fs::read_to_string(&page_path).unwrap();
        let references = local_references(&page);
        let missing: Vec<&String> = references
            .iter()
            .filter(|r| !dir.join(r).is_file())
            .collect();
        let pictures: Vec<&String> = references.iter().filter(|r| r.ends_with(".png")).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(missing.is_empty(), "missing: {missing:?}");
        // Three plots, the filmstrip and the close-up of a stairs run, each linked and shown.
        for kind in ["feet", "tilt", "probes", "film", "closeup"] {
            assert!(
                pictures
                    .iter()
                    .any(|p| p.ends_with(&format!("_{kind}.png"))),
                "no {kind} picture in {pictures:?}"
            );
        }
        assert!(page.contains("id=\"s-stairs_up_15cm_walk\""));
    }

    #[test]
    fn comparing_a_missing_or_malformed_file_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("plantigrade-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.json");
        std::fs::write(&good, r#"{"scenarios": []}"#).unwrap();
        let not_json = dir.join("not_json.json");
        std::fs::write(&not_json, "{ nope").unwrap();
        let not_results = dir.join("other.json");
        std::fs::write(&not_results, r#"{"hello": 1}"#).unwrap();
        let bad_runs = dir.join("bad_runs.json");
        std::fs::write(&bad_runs, r#"{"scenarios": [{"mode": "none"}]}"#).unwrap();
        let error = |a: &Path| {
            format!(
                "{:#}",
                write_comparison(a, &good, &dir.join("out")).unwrap_err()
            )
        };
        let messages = [
            error(&dir.join("absent.json")),
            error(&not_json),
            error(&not_results),
            error(&bad_runs),
        ];
        let written = write_comparison(&good, &good, &dir.join("out")).map(|p| p.is_file());
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(messages[0].contains("absent.json"), "{}", messages[0]);
        assert!(messages[1].contains("not valid JSON"), "{}", messages[1]);
        assert!(
            messages[2].contains("not a plantigrade-lab results.json"),
            "{}",
            messages[2]
        );
        assert!(
            messages[3].contains("no text field 'name'"),
            "{}",
            messages[3]
        );
        assert!(written.unwrap());
    }
}
