//! What the workspace's integration tests share (a dev-dependency of each crate, never a
//! dependency, never published): a test that needs a tool skips with a printed reason when run by
//! hand without it and fails when `CI=true` ([`require`], [`tool`]); the LLVM oracle releases and
//! their tools ([`llvm`]); a command builder that runs a built binary or a tool where its stray
//! output cannot reach the work tree ([`Cmd`]); and temporary directories ([`temp_dir`]).
//!
//! The rule behind [`require`] is the project's (README, "What the test command needs"): CI
//! installs every tool, so under `CI=true` a missing one is a bug, not a reason to skip.

pub mod command;
pub mod llvm;
pub mod temp;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

pub use command::Cmd;
pub use temp::{catch_expected_panic, scratch_dir, temp_dir};

/// Whether this is a CI run (`CI=true`), where a missing tool fails the test instead of skipping
/// it.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `found`, or (when not) prints why the test skips and returns false, or panics under `CI=true`
/// saying why.
///
/// # Panics
/// When `found` is false and [`ci`].
pub fn require(found: bool, why: &str) -> bool {
    match decide(found, why, ci()) {
        Ok(run) => run,
        Err(failure) => panic!("{failure}"),
    }
}

/// [`require`]'s decision: run (`Ok(true)`), skip saying why (`Ok(false)`, printed), or fail
/// (`Err`, the message) when the tool is missing under CI.
fn decide(found: bool, why: &str, ci: bool) -> Result<bool, String> {
    match (found, ci) {
        (true, _) => Ok(true),
        (false, true) => Err(format!("CI=true and {why}")),
        (false, false) => {
            eprintln!("skipped: {why}");
            Ok(false)
        }
    }
}

/// Whether `program --version` runs; when it does not, [`require`]'s answer, saying
/// `{program} not found: {install}`.
pub fn tool(program: &str, install: &str) -> bool {
    let found = version_runs(Path::new(program));
    require(found, &format!("{program} not found: {install}"))
}

/// Whether `path --version` succeeds, asked once per tool and test binary: an LLVM tool takes tens
/// of milliseconds to start (loading libLLVM), and the oracle tests ask for a tool per target.
pub(crate) fn version_runs(path: &Path) -> bool {
    static KNOWN: Mutex<BTreeMap<PathBuf, bool>> = Mutex::new(BTreeMap::new());
    if let Some(&known) = KNOWN.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return known;
    }
    let runs = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    KNOWN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path.to_path_buf(), runs);
    runs
}

#[cfg(test)]
mod tests;
