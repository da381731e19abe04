//! One check, shared by the crate's error unit test (through `#[path]`) and the integration
//! tests: an error's whole chain says each detail once.

use super::error_chain;

/// Asserts that the rendered chain of `error` says each detail once: no ": "-separated part
/// (of 8 characters or more) appears inside another part, and no run of four words
/// appears twice.
pub fn assert_says_each_detail_once(error: &dyn std::error::Error) {
    let rendered = error_chain(error);
    let parts: Vec<&str> = rendered
        .split(": ")
        .map(str::trim)
        .filter(|p| p.len() >= 8)
        .collect();
    for (i, a) in parts.iter().enumerate() {
        for (j, b) in parts.iter().enumerate() {
            assert!(
                i == j || !b.contains(a),
                "'{a}' is said twice in: {rendered}"
            );
        }
    }
    let words: Vec<String> = rendered
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut seen = std::collections::HashSet::new();
    for run in words.windows(4) {
        assert!(
            seen.insert(run.join(" ")),
            "'{}' is said twice in: {rendered}",
            run.join(" ")
        );
    }
}
