//! Build script: records the harness revision (`git describe --always --tags`) for recordings'
//! provenance as `DS_HARNESS_REVISION`; without git or a repository it is left unset ("unknown").
//! Reruns when HEAD or the checked-out branch moves, not on every index change.

use std::path::Path;
use std::process::Command;

fn main() {
    let git = Path::new("../.git");
    // Watch only files that exist: a missing path would rerun this script on every build.
    println!("cargo:rerun-if-changed=build.rs");
    if let Ok(head) = std::fs::read_to_string(git.join("HEAD")) {
        println!("cargo:rerun-if-changed=../.git/HEAD");
        if let Some(r) = head.trim().strip_prefix("ref: ") {
            if git.join(r).is_file() {
                println!("cargo:rerun-if-changed=../.git/{r}");
            }
        }
    }
    println!("cargo:rerun-if-env-changed=DS_HARNESS_REVISION");
    if std::env::var_os("DS_HARNESS_REVISION").is_some() {
        return; // set by the builder: passed through by cargo as is
    }
    let out = Command::new("git")
        .args(["describe", "--always", "--tags"])
        .output();
    if let Ok(out) = out {
        let rev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !rev.is_empty() {
            println!("cargo:rustc-env=DS_HARNESS_REVISION={rev}");
        }
    }
}
