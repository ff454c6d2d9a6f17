//! `scripts/unreferenced-snapshots.sh`, the check `scripts/test.sh` runs after the suite in CI:
//! given insta's record of the snapshots the tests read (`INSTA_SNAPSHOT_REFERENCES_FILE`), it
//! names every snapshot file under `snapshots/` no test read and fails; with all of them read it
//! passes; an empty record (the variable was not set) is an error, not a pass.

use crate::common::workspace;
use ds_test_support::{temp_dir, Cmd};
use std::path::{Path, PathBuf};

/// Every `.snap` file under `dir`, as insta records them (absolute paths).
fn snaps(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            snaps(&p, out);
        } else if p.extension().is_some_and(|x| x == "snap") {
            out.push(p);
        }
    }
}

/// The script's exit code and stderr with a record of `read`.
fn check(read: &[PathBuf], name: &str) -> (Option<i32>, String) {
    let refs = temp_dir(name).join("refs");
    let text: String = read.iter().map(|p| format!("{}\n", p.display())).collect();
    std::fs::write(&refs, text).unwrap();
    let out = Cmd::new(workspace().join("scripts/unreferenced-snapshots.sh"))
        .arg(&refs)
        .output();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_snapshot_no_test_read_is_named_and_fails_the_check() {
    let mut all = Vec::new();
    snaps(&workspace().join("snapshots"), &mut all);
    assert!(all.len() > 100, "{} snapshot files", all.len());
    // The paths run through `harness/..`, as insta records them: the check resolves them.
    assert!(
        all[0].to_string_lossy().contains("harness/../snapshots/"),
        "{:?}",
        all[0]
    );
    assert_eq!(check(&all, "all-read"), (Some(0), String::new()));

    let unread = all.len() / 2;
    let mut some = all.clone();
    some.remove(unread);
    let (code, err) = check(&some, "one-unread");
    assert_eq!(code, Some(1), "{err}");
    let name = all[unread].strip_prefix(workspace()).unwrap();
    assert!(err.contains(&name.display().to_string()), "{err}");
    assert_eq!(
        err.lines().count(),
        2,
        "only the unread file is named: {err}"
    );

    let (code, err) = check(&[], "none-recorded");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("INSTA_SNAPSHOT_REFERENCES_FILE"), "{err}");
}
