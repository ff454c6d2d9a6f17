//! What a user's output paths point at stays what it was: reports into a device node, a symlink or
//! a FIFO leave them what they were (or write one complete report), an output never overwrites an
//! input or a file of the device command, a file where the recordings go is refused before the
//! run, `/dev/stdout` redirected to a file never replaces it; bad outputs are refused before
//! anything runs; an empty selection writes valid empty reports; a recording that fails during
//! the run says where the results are.

use crate::common;
use crate::common::refused;
use crate::common::results;

use common::{code, ds_harness_no_env as ds, stderr, temp_dir};
use std::fs;
use std::os::unix::fs::{symlink, FileTypeExt, MetadataExt};
use std::path::Path;

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
    // Nobody reads it: refused before any work, at once, saying so (issue 33 M4: the run hung).
    let start = std::time::Instant::now();
    let out = ds(&small_run(&[
        "--op",
        "ds_sub_u32",
        "--out",
        s(&dir.join("out")),
        "--markdown",
        s(&fifo),
    ]));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nobody is reading"),
        "{}",
        stderr(&out)
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    // The reader is waiting in open(2) before the run looks for it.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = ds(&small_run(&[
        "--op",
        "ds_sub_u32",
        "--out",
        s(&dir.join("out")),
        "--json",
        s(&fifo),
    ]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Checked before waiting for the reader: a replaced FIFO would leave it waiting forever.
    assert!(
        fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO was replaced"
    );
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

// Finding 3: an empty selection succeeds with valid empty reports and builds no code object.
#[test]
fn an_empty_shard_writes_valid_empty_reports_and_exits_0() {
    let dir = temp_dir("safety-empty");
    let (json, junit, md) = (dir.join("r.json"), dir.join("r.xml"), dir.join("r.md"));
    for shard in ["2/2", "118/118"] {
        let out = ds(&[
            "run",
            "--op",
            "ds_add_u32",
            "--shard",
            shard,
            "--out",
            s(&dir.join("out")),
            "--json",
            s(&json),
            "--junit",
            s(&junit),
            "--markdown",
            s(&md),
        ]);
        let se = stderr(&out);
        assert_eq!(code(&out), 0, "--shard {shard}: {se}");
        assert!(se.contains("nothing to run"), "{se}");
        assert!(!se.contains("rejected"), "{se}");
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["complete"], true);
        assert_eq!(v["totals"]["ops"], 0);
        assert_eq!(v["ops"].as_array().unwrap().len(), 0);
        let xml = fs::read_to_string(&junit).unwrap();
        roxmltree::Document::parse(&xml).expect("well-formed JUnit");
        assert!(fs::read_to_string(&md).unwrap().contains("total"));
    }
}

// Finding 6: a recording that still fails although its directory passed the check says so and
// where the results so far are, rather than an unexplained exit 2.
#[test]
fn a_recording_that_fails_during_the_run_says_where_the_results_are() {
    let dir = temp_dir("safety-record-late");
    let rec = dir.join("rec");
    fs::create_dir(&rec).unwrap();
    // Where the emulated device records its first op: a directory in the way of the file. (A file
    // in the way of the device's directory itself is refused before the run:
    // `a_file_where_the_recordings_go_is_refused_before_the_run_naming_it`, below.)
    use ds_devices::{emu::EmuDevice, Device};
    let name = ds_harness::record::dir_name(EmuDevice::new().info());
    fs::create_dir_all(rec.join(name).join("ds_add_u32.txt")).unwrap();
    let json = dir.join("r.json");
    let out = ds(&small_run(&[
        "--out",
        s(&dir.join("out")),
        "--record",
        s(&rec),
        "--json",
        s(&json),
    ]));
    let se = stderr(&out);
    assert_eq!(code(&out), 2, "{se}");
    assert!(se.contains(&format!("--record {}", s(&rec))), "{se}");
    assert!(
        se.contains("the ops finished before it are in the results files"),
        "{se}"
    );
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["totals"]["ops"], 1, "{v}");
}

#[test]
fn an_output_never_overwrites_an_input() {
    let dir = temp_dir("careless-inputs");
    let s1 = results(
        &dir,
        "s1",
        &["--shard", "1/2", "--record", s(&dir.join("rec1"))],
    );
    let s2 = results(
        &dir,
        "s2",
        &["--shard", "2/2", "--record", s(&dir.join("rec2"))],
    );
    let before = std::fs::read(&s1).unwrap();
    refused(
        &["merge", s(&s1), s(&s2), "--json", s(&s1)],
        "is the input results file",
    );
    refused(
        &["matrix", s(&s1), "--json", s(&s1)],
        "is the input results file",
    );
    refused(
        &[
            "merge",
            s(&s1),
            s(&s2),
            "--recordings",
            s(&dir.join("rec1")),
            "--recordings",
            s(&dir.join("rec2")),
            "--record",
            s(&dir.join("rec1")),
        ],
        "overlaps --recordings",
    );
    assert_eq!(
        std::fs::read(&s1).unwrap(),
        before,
        "the input is untouched"
    );
    let rec = dir.join("rec1");
    refused(
        &[
            "run",
            "--backend",
            "emu",
            "--record",
            s(&rec),
            "--json",
            s(&rec.join("r.json")),
        ],
        "lies inside --record",
    );
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/hardware/emulated-gfx1100");
    refused(
        &[
            "run",
            "--backend",
            "emu",
            "--against",
            s(&fixture),
            "--json",
            s(&fixture.join("x.txt")),
        ],
        "lies inside --against",
    );
}

#[test]
fn a_file_where_the_recordings_go_is_refused_before_the_run_naming_it() {
    let dir = temp_dir("careless-record-file");
    let root = dir.join("rec");
    std::fs::create_dir_all(&root).unwrap();
    let sub = root.join(format!("emulated-{}", ds_isa::target::DEFAULT));
    std::fs::write(&sub, "in the way").unwrap();
    let o = ds(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--record",
        s(&root),
        "--json",
        s(&dir.join("r.json")),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--record {}", sub.display()))
            && stderr(&o).contains("not a directory"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("r.json").exists(), "the run did not start");
}

#[test]
fn a_report_to_dev_stdout_redirected_to_a_file_never_replaces_the_file() {
    let dir = temp_dir("careless-dev-stdout");
    let file = dir.join("out.txt");
    std::fs::write(&file, "").unwrap();
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(&file).unwrap().ino();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' run --backend emu --op ds_add_u32 --cases 4 --json /dev/stdout > '{}'",
            env!("CARGO_BIN_EXE_ds-harness"),
            file.display()
        ))
        .env_remove("DS_HARNESS_HIP_LIB")
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("this command's stdout"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::metadata(&file).unwrap().ino(), inode, "replaced");
}

/// An output that is the device's own program or a file its command names is refused before
/// anything runs, as other inputs are (issue 33 L10), with `--against` too; the file is kept.
#[test]
fn an_output_naming_a_file_of_the_device_command_is_refused() {
    let dir = temp_dir("careless-device-file");
    let script = dir.join("device.sh");
    std::fs::write(&script, "#!/bin/sh\nexec true\n").unwrap();
    let cmd = format!("sh '{}' --serve", s(&script));
    for flag in ["--json", "--markdown", "--junit"] {
        refused(
            &[
                "run",
                "--backend",
                "exec",
                "--device-cmd",
                &cmd,
                flag,
                s(&script),
                "--out",
                s(&dir.join("out")),
            ],
            "is the input file of --device-cmd",
        );
    }
    results(&dir, "rec", &["--record", s(&dir.join("rec"))]);
    refused(
        &[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            &format!("sh -c 'cat {}'", s(&script)),
            "--against",
            s(&dir.join("rec/emulated-gfx1100")),
            "--json",
            s(&script),
        ],
        "is the input file of --device-cmd",
    );
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\nexec true\n"
    );
}
