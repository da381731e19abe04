//! Where plantigrade's tests and benches find the third-party CC0 rigs (UAL, KayKit,
//! Quaternius) that nobody on the project wrote and that are never copied into the
//! repository.
//!
//! The folder is `$PLANTIGRADE_ASSETS` when that variable is set (and not empty), else
//! `../shared/assets` beside the workspace checkout. A user's fresh clone has neither, so
//! every caller must treat a missing file as "skip", never as a failure:
//!
//! ```no_run
//! let Some(path) = plantigrade_test_assets::require("Mesh2Motion_HumanBase_UAL1.glb") else {
//!     return; // one line saying what was skipped and why is already printed
//! };
//! ```
//!
//! The skip line is written straight to stderr rather than through `println!`, which the
//! test harness captures and hides for passing tests: a user running `cargo test` sees
//! which tests did not run.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that points at another assets folder.
pub const ENV_VAR: &str = "PLANTIGRADE_ASSETS";

/// Where the folder was taken from, for the skip message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `$PLANTIGRADE_ASSETS`.
    EnvVar,
    /// `../shared/assets` beside the workspace checkout.
    BesideCheckout,
}

/// Why an asset could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The file asked for, or `None` when the folder itself was asked for.
    pub file: Option<String>,
    /// The folder looked in.
    pub dir: PathBuf,
    pub source: Source,
    /// The folder exists (so it is the file that is absent).
    pub dir_exists: bool,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (&self.file, self.dir_exists) {
            (Some(file), true) => format!("{file} is not in {}", self.dir.display()),
            (_, false) => format!("no folder {}", self.dir.display()),
            (None, true) => format!("{} is unusable", self.dir.display()),
        };
        match self.source {
            Source::EnvVar => write!(f, "{what} (from {ENV_VAR})"),
            Source::BesideCheckout => write!(
                f,
                "{what} (the CC0 test rigs live beside the checkout; set {ENV_VAR} to a folder holding them)"
            ),
        }
    }
}

impl std::error::Error for Missing {}

/// The folder the assets are looked for in, and where that choice came from.
pub fn dir_and_source() -> (PathBuf, Source) {
    match std::env::var_os(ENV_VAR) {
        Some(dir) if !dir.is_empty() => (PathBuf::from(dir), Source::EnvVar),
        _ => {
            // crates/plantigrade-test-assets → crates → the checkout → the folder holding it.
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            let beside = manifest.ancestors().nth(3).unwrap_or(manifest);
            (beside.join("shared").join("assets"), Source::BesideCheckout)
        }
    }
}

/// The assets folder, if it exists.
pub fn find_dir() -> Result<PathBuf, Missing> {
    let (dir, source) = dir_and_source();
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Missing {
            file: None,
            dir,
            source,
            dir_exists: false,
        })
    }
}

/// The path of one asset file (e.g. `"Mesh2Motion_HumanBase_UAL1.glb"`), if it exists.
pub fn find(file: &str) -> Result<PathBuf, Missing> {
    let (dir, source) = dir_and_source();
    let path = dir.join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(Missing {
            file: Some(file.to_string()),
            dir_exists: dir.is_dir(),
            dir,
            source,
        })
    }
}

/// [`find`], printing one skip line when the file is missing.
pub fn require(file: &str) -> Option<PathBuf> {
    find(file).map_err(|m| print_skip(&m)).ok()
}

/// [`find_dir`], printing one skip line when the folder is missing.
pub fn require_dir() -> Option<PathBuf> {
    find_dir().map_err(|m| print_skip(&m)).ok()
}

/// Prints `skipped <test>: <reason>` to stderr, past the test harness's capture; once per
/// test, however many of its assets are missing.
pub fn print_skip(missing: &Missing) {
    thread_local!(static PRINTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    // libtest runs each test on its own thread named after it; benches run on `main`.
    let current = std::thread::current();
    let who = match current.name() {
        Some(name) if name != "main" => {
            if PRINTED.with(|p| p.replace(true)) {
                return;
            }
            format!("skipped {name}")
        }
        _ => "skipped".to_string(),
    };
    let _ = writeln!(std::io::stderr().lock(), "{who}: {missing}");
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test touches the variable, so no other test in this binary races on it.
    #[test]
    fn the_variable_overrides_the_folder_and_missing_files_are_named() {
        let empty = std::env::temp_dir().join(format!("pg-assets-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::write(empty.join("present.glb"), b"x").unwrap();
        std::env::set_var(ENV_VAR, &empty);

        assert_eq!(dir_and_source(), (empty.clone(), Source::EnvVar));
        assert_eq!(find("present.glb").unwrap(), empty.join("present.glb"));
        assert_eq!(find_dir().unwrap(), empty);
        let missing = find("absent.glb").unwrap_err();
        assert!(missing.dir_exists);
        let text = missing.to_string();
        assert!(text.contains("absent.glb is not in"), "{text}");
        assert!(text.contains(ENV_VAR), "{text}");

        let gone = empty.join("nowhere");
        std::env::set_var(ENV_VAR, &gone);
        let missing = find_dir().unwrap_err();
        assert!(!missing.dir_exists);
        assert!(missing.to_string().contains("no folder"), "{missing}");
        assert!(!find("present.glb").unwrap_err().dir_exists);

        // Empty means unset: the folder beside the checkout.
        std::env::set_var(ENV_VAR, "");
        let (dir, source) = dir_and_source();
        assert_eq!(source, Source::BesideCheckout);
        assert!(dir.ends_with("shared/assets"), "{}", dir.display());
        assert!(!dir.to_string_lossy().contains(".."), "{}", dir.display());
        std::env::remove_var(ENV_VAR);
        std::fs::remove_dir_all(&empty).unwrap();
    }
}
