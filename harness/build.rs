//! Build script: records the harness revision (`git describe --always --tags`) for
//! recordings' provenance as `DS_HARNESS_REVISION`; without git or a repository it is left unset
//! ("unknown"). Reruns when HEAD, the checked-out branch or the packed refs move, not on every
//! index change. Paths come from `git rev-parse --git-path`, so a linked worktree (where `.git`
//! is a file) and a repository whose refs were packed are watched as well as a plain checkout.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DS_HARNESS_REVISION");
    // Watch only files that exist: a missing path would rerun this script on every build.
    let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(branch);
    }
    for name in watch {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = PathBuf::from(path);
            if path.is_file() {
                let path = std::fs::canonicalize(&path).unwrap_or(path);
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    if std::env::var_os("DS_HARNESS_REVISION").is_some() {
        return; // set by the builder: passed through by cargo as is
    }
    if let Some(rev) = git(&["describe", "--always", "--tags"]) {
        println!("cargo:rustc-env=DS_HARNESS_REVISION={rev}");
    }
}
