//! The report page: plain HTML with inline CSS, no script, images by relative path, so it
//! opens from the disk with no network. Pure string building over [`RunSummary`]s, for the
//! single report and the side-by-side comparison of two runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::runs::{CheckRow, RunSummary, Status};

/// One picture of a run: its path relative to the page, and what it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub file: String,
    pub caption: String,
}

/// The pictures drawn per (scenario, column).
pub type Images = BTreeMap<(String, String), Vec<Image>>;

/// Text made safe inside HTML elements and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An anchor id for a scenario: its letters, digits and `_`, the rest as `-`.
fn anchor(scenario: &str) -> String {
    let id: String = scenario
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("s-{id}")
}

/// A figure as the tables print it: about four significant digits, `—` for none.
pub fn number(value: Option<f64>) -> String {
    match value {
        None => "—".into(),
        Some(v) if !v.is_finite() => format!("{v}"),
        Some(v) if v == v.trunc() && v.abs() < 1e6 => format!("{v:.0}"),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 10.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}\
table{border-collapse:collapse;margin:.5em 0 1.2em}\
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:right}\
td:first-child,th:first-child{text-align:left}\
.fail{background:#f8c8c0}.unmet{background:#fbeaa8}.pass{background:#d4f0d0}\
.diff{background:#ffe08a;font-weight:bold}.flip{outline:2px solid #c00}\
.checks li{font-size:13px}.blocking{color:#a00}.target{color:#875b00}\
figure{display:inline-block;margin:.4em;vertical-align:top}\
figure img{max-width:100%;border:1px solid #ddd}\
figcaption{font-size:12px;color:#555}\
h2{border-top:2px solid #888;padding-top:.5em;margin-top:2em}";

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
}

/// Values in first-seen order.
fn unique<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

/// The scenarios of `runs`, failing ones first (a blocking check failed in any column),
/// then those with a target not met, then the rest; catalog order within each.
pub fn scenario_order(runs: &[RunSummary]) -> Vec<String> {
    let mut scenarios = unique(runs.iter().map(|r| r.scenario.as_str()));
    let status = |name: &str| {
        runs.iter()
            .filter(|r| r.scenario == name)
            .map(RunSummary::status)
            .min()
            .unwrap_or(Status::Pass)
    };
    // A stable sort keeps the catalog order inside each status.
    scenarios.sort_by_key(|s| status(s));
    scenarios
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Fail => "fail",
        Status::Unmet => "unmet",
        Status::Pass => "pass",
    }
}

/// A summary cell's text: `FAIL n`, `target n` or `pass`.
fn status_text(run: &RunSummary) -> String {
    let failed = |blocking: bool| {
        run.checks
            .iter()
            .filter(|c| !c.pass && c.blocking == blocking)
            .count()
    };
    match run.status() {
        Status::Fail => format!("FAIL {}", failed(true)),
        Status::Unmet => format!("target {}", failed(false)),
        Status::Pass => "pass".into(),
    }
}

fn find<'a>(runs: &'a [RunSummary], scenario: &str, column: &str) -> Option<&'a RunSummary> {
    runs.iter()
        .find(|r| r.scenario == scenario && r.column == column)
}

/// The failing checks as list items: every blocking failure, then every unmet target.
pub fn failing_checks(runs: &[RunSummary], others: &[(String, CheckRow)]) -> Vec<String> {
    let mut rows: Vec<(bool, String)> = Vec::new();
    for run in runs {
        for c in run.checks.iter().filter(|c| !c.pass) {
            rows.push((
                c.blocking,
                format!(
                    "<a href=\"#{}\">{}</a> ({}): <b>{}</b> {}",
                    anchor(&run.scenario),
                    escape(&run.scenario),
                    escape(&run.column),
                    escape(&c.name),
                    escape(&c.detail)
                ),
            ));
        }
    }
    for (what, c) in others.iter().filter(|(_, c)| !c.pass) {
        rows.push((
            c.blocking,
            format!(
                "{}: <b>{}</b> {}",
                escape(what),
                escape(&c.name),
                escape(&c.detail)
            ),
        ));
    }
    let item = |(blocking, text): &(bool, String)| {
        if *blocking {
            format!("<li class=\"blocking\">FAIL {text}</li>")
        } else {
            format!("<li class=\"target\">target {text}</li>")
        }
    };
    let mut items: Vec<String> = rows.iter().filter(|r| r.0).map(item).collect();
    items.extend(rows.iter().filter(|r| !r.0).map(item));
    items
}

/// The metric names of a scenario's runs, in first-seen order.
fn metric_names(runs: &[&RunSummary]) -> Vec<String> {
    unique(
        runs.iter()
            .flat_map(|r| r.metrics.iter().map(|(k, _)| k.as_str())),
    )
}

fn metric(run: Option<&RunSummary>, name: &str) -> Option<Option<f64>> {
    run?.metrics
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| *v)
}

/// The page of one lab run: the summary (scenarios × columns, failing first), the list of
/// failing checks, then per scenario its metrics side by side, its failing checks and its
/// pictures. `intro` is HTML placed under the title (what was run, what is drawn).
pub fn report_page(
    title: &str,
    intro: &str,
    runs: &[RunSummary],
    others: &[(String, CheckRow)],
    images: &Images,
) -> String {
    let mut out = String::new();
    head(&mut out, title);
    out.push_str(intro);
    let columns = unique(runs.iter().map(|r| r.column.as_str()));
    let scenarios = scenario_order(runs);

    summary_head(&mut out, "Summary", &columns);
    for s in &scenarios {
        summary_row_head(&mut out, s);
        for c in &columns {
            match find(runs, s, c) {
                Some(run) => {
                    let _ = write!(
                        out,
                        "<td class=\"{}\">{}</td>",
                        status_class(run.status()),
                        status_text(run)
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    let failing = failing_checks(runs, others);
    let blocking = failing
        .iter()
        .filter(|i| i.contains("class=\"blocking\""))
        .count();
    let _ = writeln!(
        out,
        "<h2>Failing checks: {blocking} failed, {} targets not met</h2>\n<ul class=\"checks\">{}</ul>",
        failing.len() - blocking,
        failing.join("\n")
    );

    for s in &scenarios {
        let scenario_runs: Vec<&RunSummary> =
            columns.iter().filter_map(|c| find(runs, s, c)).collect();
        let _ = writeln!(out, "<h2 id=\"{}\">{}</h2>", anchor(s), escape(s));
        out.push_str("<table><tr><th>metric</th>");
        for r in &scenario_runs {
            let _ = write!(
                out,
                "<th class=\"{}\">{}</th>",
                status_class(r.status()),
                escape(&r.column)
            );
        }
        out.push_str("</tr>\n");
        for name in metric_names(&scenario_runs) {
            let _ = write!(out, "<tr><td>{}</td>", escape(&name));
            for r in &scenario_runs {
                let _ = write!(out, "<td>{}</td>", number(metric(Some(r), &name).flatten()));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
        let owned: Vec<RunSummary> = scenario_runs.iter().map(|r| (*r).clone()).collect();
        let failing = failing_checks(&owned, &[]);
        if !failing.is_empty() {
            let _ = writeln!(out, "<ul class=\"checks\">{}</ul>", failing.join("\n"));
        }
        for c in &columns {
            for image in images.get(&(s.clone(), c.clone())).into_iter().flatten() {
                let _ = writeln!(
                    out,
                    "<figure><a href=\"{0}\"><img src=\"{0}\" alt=\"{1}\" loading=\"lazy\"></a>\
                     <figcaption>{1}</figcaption></figure>",
                    escape(&image.file),
                    escape(&image.caption)
                );
            }
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// The page comparing run A with run B: the summary with both verdicts per cell (a cell
/// whose verdict changed outlined), the checks whose pass flipped, then per scenario the
/// metrics of A and B side by side per column, a figure that prints differently
/// highlighted. Scenarios in only one run are listed as such.
pub fn compare_page(title: &str, intro: &str, a: &[RunSummary], b: &[RunSummary]) -> String {
    let mut out = String::new();
    head(&mut out, title);
    out.push_str(intro);
    let both: Vec<RunSummary> = a.iter().chain(b).cloned().collect();
    let columns = unique(both.iter().map(|r| r.column.as_str()));
    let scenarios = scenario_order(&both);

    summary_head(&mut out, "Summary (A → B)", &columns);
    for s in &scenarios {
        summary_row_head(&mut out, s);
        for c in &columns {
            let (ra, rb) = (find(a, s, c), find(b, s, c));
            let text = |r: Option<&RunSummary>| r.map_or("—".to_string(), status_text);
            let worst = [ra, rb]
                .iter()
                .flatten()
                .map(|r| r.status())
                .min()
                .unwrap_or(Status::Pass);
            let flipped = ra.map(RunSummary::status) != rb.map(RunSummary::status);
            let _ = write!(
                out,
                "<td class=\"{}{}\">{} → {}</td>",
                status_class(worst),
                if flipped { " flip" } else { "" },
                text(ra),
                text(rb)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");

    for (name, only, other) in [("A", a, b), ("B", b, a)] {
        let missing: Vec<String> = only
            .iter()
            .filter(|r| find(other, &r.scenario, &r.column).is_none())
            .map(|r| format!("{} ({})", escape(&r.scenario), escape(&r.column)))
            .collect();
        if !missing.is_empty() {
            let _ = writeln!(
                out,
                "<p>Runs only in {name} ({}): {}</p>",
                missing.len(),
                missing.join(", ")
            );
        }
    }
    let flips = flipped_checks(a, b);
    let _ = writeln!(
        out,
        "<h2>Checks whose pass flipped ({})</h2>\n<ul class=\"checks\">{}</ul>",
        flips.len(),
        flips.join("\n")
    );

    for s in &scenarios {
        let _ = writeln!(out, "<h2 id=\"{}\">{}</h2>", anchor(s), escape(s));
        let cols: Vec<&String> = columns
            .iter()
            .filter(|c| find(a, s, c).is_some() || find(b, s, c).is_some())
            .collect();
        let present: Vec<&RunSummary> = cols
            .iter()
            .flat_map(|c| [find(a, s, c), find(b, s, c)])
            .flatten()
            .collect();
        out.push_str("<table><tr><th>metric</th>");
        for c in &cols {
            let _ = write!(out, "<th>{0} A</th><th>{0} B</th>", escape(c));
        }
        out.push_str("</tr>\n");
        for name in metric_names(&present) {
            let _ = write!(out, "<tr><td>{}</td>", escape(&name));
            for c in &cols {
                let (va, vb) = (metric(find(a, s, c), &name), metric(find(b, s, c), &name));
                let show = |v: Option<Option<f64>>| v.map_or("".to_string(), number);
                let class = if show(va) != show(vb) {
                    " class=\"diff\""
                } else {
                    ""
                };
                let _ = write!(
                    out,
                    "<td{class}>{}</td><td{class}>{}</td>",
                    show(va),
                    show(vb)
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Checks whose pass differs between A and B in a run both have, and checks only one of
/// them has, as list items (blocking ones first).
pub fn flipped_checks(a: &[RunSummary], b: &[RunSummary]) -> Vec<String> {
    let mut rows: Vec<(bool, String)> = Vec::new();
    let verdict = |c: Option<&CheckRow>| match c {
        None => "absent",
        Some(c) if c.pass => "pass",
        Some(c) if c.blocking => "FAIL",
        Some(_) => "target unmet",
    };
    // Every (scenario, column, check) of either run, in first-seen order.
    let mut seen = std::collections::HashSet::new();
    let mut keys: Vec<(&str, &str, &str)> = Vec::new();
    for run in a.iter().chain(b) {
        for c in &run.checks {
            let key = (run.scenario.as_str(), run.column.as_str(), c.name.as_str());
            if seen.insert(key) {
                keys.push(key);
            }
        }
    }
    for (s, col, name) in keys {
        // A run only one side has is listed as such, not check by check.
        if find(a, s, col).is_none() || find(b, s, col).is_none() {
            continue;
        }
        let check = |runs: &[RunSummary]| {
            find(runs, s, col)
                .and_then(|r| r.checks.iter().find(|c| c.name == name))
                .cloned()
        };
        let (ca, cb) = (check(a), check(b));
        if ca.as_ref().map(|c| c.pass) == cb.as_ref().map(|c| c.pass) {
            continue;
        }
        let blocking = [&ca, &cb]
            .iter()
            .any(|c| c.as_ref().is_some_and(|c| c.blocking));
        let detail = cb
            .as_ref()
            .or(ca.as_ref())
            .map_or("", |c| c.detail.as_str());
        rows.push((
            blocking,
            format!(
                "<li class=\"{}\"><a href=\"#{}\">{}</a> ({}): <b>{}</b> {} → {} <i>{}</i></li>",
                if blocking { "blocking" } else { "target" },
                anchor(s),
                escape(s),
                escape(col),
                escape(name),
                verdict(ca.as_ref()),
                verdict(cb.as_ref()),
                escape(detail)
            ),
        ));
    }
    let mut items: Vec<String> = rows.iter().filter(|r| r.0).map(|r| r.1.clone()).collect();
    items.extend(rows.iter().filter(|r| !r.0).map(|r| r.1.clone()));
    items
}

/// The summary table's heading and its header row: a scenario column, then `columns`.
fn summary_head(out: &mut String, title: &str, columns: &[String]) {
    let _ = write!(
        out,
        "<h2>{}</h2>\n<table><tr><th>scenario</th>",
        escape(title)
    );
    for c in columns {
        let _ = write!(out, "<th>{}</th>", escape(c));
    }
    out.push_str("</tr>\n");
}

/// A summary row's first cell: the scenario, linked to its section.
fn summary_row_head(out: &mut String, scenario: &str) {
    let _ = write!(
        out,
        "<tr><td><a href=\"#{}\">{}</a></td>",
        anchor(scenario),
        escape(scenario)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, pass: bool, blocking: bool) -> CheckRow {
        CheckRow {
            name: name.into(),
            pass,
            blocking,
            detail: format!("{name} detail"),
        }
    }

    fn run(scenario: &str, column: &str, checks: Vec<CheckRow>, metric: f64) -> RunSummary {
        RunSummary {
            scenario: scenario.into(),
            column: column.into(),
            checks,
            metrics: vec![("penetration_max_mm".into(), Some(metric))],
        }
    }

    #[test]
    fn names_and_details_are_escaped() {
        assert_eq!(
            escape(r#"<b>"a" & 'b'</b>"#),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
        let runs = [run(
            "stairs<script>",
            "predictive & co",
            vec![check("x\"y", false, true)],
            1.0,
        )];
        let page = report_page("t", "", &runs, &[], &Images::new());
        assert!(!page.contains("<script>"));
        assert!(page.contains("stairs&lt;script&gt;"));
        assert!(page.contains("predictive &amp; co"));
        assert!(page.contains("x&quot;y"));
        // The anchor is letters, digits and dashes only.
        assert!(page.contains("id=\"s-stairs-script-\""));
    }

    #[test]
    fn failing_scenarios_come_first_then_unmet_targets_then_passes() {
        let runs = vec![
            run("a_pass", "none", vec![check("c", true, true)], 0.0),
            run("b_target", "none", vec![check("t", false, false)], 0.0),
            run("c_fail", "none", vec![check("c", true, true)], 0.0),
            // Failing in one column is enough to come first.
            run("c_fail", "predictive", vec![check("c", false, true)], 0.0),
            run("d_pass", "none", vec![], 0.0),
            run("e_fail", "none", vec![check("c", false, true)], 0.0),
        ];
        assert_eq!(
            scenario_order(&runs),
            ["c_fail", "e_fail", "b_target", "a_pass", "d_pass"]
        );
        // Blocking failures are listed before targets, whatever the file order.
        let items = failing_checks(
            &runs,
            &[("graph timeline".into(), check("g", false, false))],
        );
        assert_eq!(items.len(), 4);
        assert!(items[0].contains("FAIL") && items[0].contains("c_fail"));
        assert!(items[1].contains("FAIL") && items[1].contains("e_fail"));
        assert!(items[2].starts_with("<li class=\"target\">") && items[2].contains("b_target"));
        assert!(items[3].contains("graph timeline"));
        let page = report_page("t", "", &runs, &[], &Images::new());
        assert!(page.contains("Failing checks: 2 failed, 1 targets not met"));
        let at = |text: &str| page.find(text).unwrap();
        assert!(at("id=\"s-c_fail\"") < at("id=\"s-b_target\""));
        assert!(at("id=\"s-b_target\"") < at("id=\"s-a_pass\""));
    }

    #[test]
    fn the_comparison_marks_figures_that_differ_and_checks_that_flipped() {
        let a = vec![
            run(
                "s",
                "predictive",
                vec![check("k", true, true), check("t", false, false)],
                1.0,
            ),
            run("only_a", "none", vec![check("k", true, true)], 0.0),
        ];
        let b = vec![run(
            "s",
            "predictive",
            vec![check("k", false, true), check("t", false, false)],
            2.5,
        )];
        let flips = flipped_checks(&a, &b);
        assert_eq!(flips.len(), 1, "{flips:?}");
        assert!(flips[0].contains("<b>k</b> pass → FAIL"));
        let page = compare_page("t", "", &a, &b);
        // The figure differs: both cells highlighted.
        assert!(page.contains("<td class=\"diff\">1</td><td class=\"diff\">2.500</td>"));
        // The verdict changed: the summary cell is outlined.
        assert!(page.contains("class=\"fail flip\">target 1 → FAIL 1</td>"));
        assert!(page.contains("Runs only in A (1): only_a (none)"));
        // The same run against itself: nothing marked.
        let same = compare_page("t", "", &b, &b);
        assert!(!same.contains("class=\"diff\""));
        assert!(!same.contains(" flip\""));
        assert!(flipped_checks(&b, &b).is_empty());
    }

    #[test]
    fn numbers_print_with_about_four_digits() {
        assert_eq!(number(None), "—");
        assert_eq!(number(Some(3.0)), "3");
        assert_eq!(number(Some(0.04392)), "0.044");
        assert_eq!(number(Some(12.3456)), "12.35");
        assert_eq!(number(Some(2171.64)), "2171.6");
    }
}
