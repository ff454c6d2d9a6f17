//! Issue 11, "never harm, never pretend": what a user's output paths point at stays what it was,
//! bad outputs are refused before anything runs, overrides that cannot be honoured are errors,
//! empty selections succeed, case files are strict, and every command keeps the exit-code
//! contract (0 agree, 1 disagree, 2 bad usage or input, 3 backend unavailable).

mod common;

use common::{ds_harness_no_env as ds, stderr, temp_dir};
use std::fs;
use std::os::unix::fs::{symlink, FileTypeExt, MetadataExt};
use std::path::Path;

fn code(out: &std::process::Output) -> i32 {
    out.status.code().expect("exited, not killed")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A short run: one op, few cases, on the emulated device.
fn small_run<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--cases",
        "8",
    ];
    a.extend_from_slice(extra);
    a
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

// Finding 1: `run --json/--junit/--markdown` into a device node or a symlink.
#[test]
fn run_reports_into_a_mknod_device_and_a_symlink_leave_them_what_they_were() {
    if !common::require(is_root(), "not root: mknod needs root") {
        return;
    }
    let dir = temp_dir("safety-mknod");
    let dev = dir.join("null");
    let c = std::ffi::CString::new(s(&dev)).unwrap();
    // SAFETY: a valid path; a character device with /dev/null's numbers (1, 3).
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(rc, 0, "mknod: {}", std::io::Error::last_os_error());
    let real = dir.join("real.xml");
    let link = dir.join("link.xml");
    symlink(&real, &link).unwrap();
    let out = ds(&small_run(&[
        "--out",
        s(&dir.join("out")),
        "--json",
        s(&dev),
        "--junit",
        s(&link),
    ]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m = fs::symlink_metadata(&dev).unwrap();
    assert!(
        m.file_type().is_char_device(),
        "the device was replaced: {m:?}"
    );
    assert_eq!(m.rdev(), libc::makedev(1, 3));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let xml = fs::read_to_string(&real).unwrap();
    assert!(xml.contains("<testsuites"), "{xml}");
}

// Finding 1: a FIFO gets the final report once (a stream cannot be rewritten).
#[test]
fn run_json_into_a_fifo_writes_one_complete_report() {
    let dir = temp_dir("safety-fifo");
    let fifo = dir.join("pipe");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let out = ds(&small_run(&[
        "--op",
        "ds_sub_u32",
        "--out",
        s(&dir.join("out")),
        "--json",
        s(&fifo),
    ]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(v["complete"], true);
    assert_eq!(v["totals"]["ops"], 2);
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

// Finding 6: outputs are checked before the first op runs.
#[test]
fn bad_output_paths_are_refused_before_anything_runs() {
    let dir = temp_dir("safety-outputs");
    let out_dir = dir.join("out");
    let probes: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--record".into(), "/proc/ds-harness-rec".into()],
            "--record /proc/ds-harness-rec",
        ),
        (
            vec![
                "--json".into(),
                s(&dir.join("r")).into(),
                "--junit".into(),
                s(&dir.join("r")).into(),
            ],
            "same file as --json",
        ),
        (
            vec!["--json".into(), s(&dir.join("no/such/r.json")).into()],
            "does not exist",
        ),
        (vec!["--markdown".into(), s(&dir).into()], "is a directory"),
        (vec!["--json".into(), "-".into()], "summary on stdout"),
        (
            vec!["--out".into(), s(&dir.join("a/b")).into()],
            "does not exist",
        ),
    ];
    for (extra, want) in probes {
        let mut args: Vec<&str> = if extra[0] == "--out" {
            small_run(&[])
        } else {
            small_run(&["--out", s(&out_dir)])
        };
        args.extend(extra.iter().map(String::as_str));
        let out = ds(&args);
        let e = stderr(&out);
        assert_eq!(code(&out), 2, "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(
            !e.contains("backend:"),
            "checked before the device opened: {e}"
        );
    }
    assert!(!dir.join("no").exists(), "no directory is created");
    assert!(!dir.join("a").exists(), "no directory is created");
    assert!(!dir.join("r").exists());
}
