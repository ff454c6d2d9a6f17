//! Issue 11, "never harm, never pretend": what a user's output paths point at stays what it was,
//! bad outputs are refused before anything runs, overrides that cannot be honoured are errors,
//! empty selections succeed, case files are strict, and every command keeps the exit-code
//! contract (0 agree, 1 disagree, 2 bad usage or input, 3 backend unavailable).

mod common;

use common::{code, ds_harness_env as ds_env, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_isa::gen::Generation;
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

// Finding 2: a DS_HARNESS_HIP_LIB that does not load is an error naming it, never a silent
// substitute (this machine has Debian's libamdhip64-5, which would otherwise load).
#[test]
fn a_hip_lib_override_that_does_not_load_is_an_error_naming_it() {
    let dir = temp_dir("safety-override");
    let out_dir = dir.join("out");
    for lib in ["/nonexistent/libamdhip64.so", "/etc/passwd", "libz.so.1"] {
        let env = [("DS_HARNESS_HIP_LIB", lib)];
        let info = ds_env(&["info"], &env);
        let (so, se) = (stdout(&info), stderr(&info));
        assert_eq!(code(&info), 3, "info with {lib}: {so}{se}");
        assert!(
            so.contains(&format!("DS_HARNESS_HIP_LIB: {lib}: NOT loaded")),
            "{so}"
        );
        assert!(!so.contains("HIP library: libamdhip64"), "{so}");
        let json = ds_env(&["info", "--json"], &env);
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(v["override_lib"]["path"], lib);
        assert_eq!(v["override_lib"]["loaded"], false);
        assert!(v["library"].is_null(), "{v}");
        for backend in ["auto", "hip"] {
            let run = ds_env(
                &[
                    "run",
                    "--backend",
                    backend,
                    "--op",
                    "ds_add_u32",
                    "--cases",
                    "2",
                    "--out",
                    s(&out_dir),
                ],
                &env,
            );
            let se = stderr(&run);
            assert_eq!(code(&run), 3, "run --backend {backend} with {lib}: {se}");
            assert!(se.contains(&format!("DS_HARNESS_HIP_LIB={lib}")), "{se}");
            assert!(!se.contains("backend: emu"), "no silent emulated run: {se}");
        }
    }
}

#[test]
fn a_hip_lib_override_that_loads_is_shown_by_info() {
    let Some(lib) = common::standin_lib() else {
        return;
    };
    let info = ds_env(&["info", "--json"], &[("DS_HARNESS_HIP_LIB", &lib)]);
    assert_eq!(code(&info), 0, "{}", stderr(&info));
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["override_lib"]["loaded"], true);
    assert!(v["override_lib"]["error"].is_null());
    assert!(
        v["library"]["path"].as_str().unwrap().starts_with(&lib),
        "{v}"
    );
}

// Finding 8: an explicit --device that cannot be honoured is an error, not an emulated run.
#[test]
fn an_explicit_device_that_cannot_be_honoured_is_an_error() {
    let dir = temp_dir("safety-device");
    let base = ["--op", "ds_add_u32", "--cases", "2", "--out", s(&dir)];
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut a = vec!["run"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&base);
        ds_env(&a, env)
    };
    // No GPU here: device 5 does not exist.
    let out = run(&["--device", "5"], &[]);
    let se = stderr(&out);
    assert_eq!(code(&out), 3, "{se}");
    assert!(
        se.contains("--device 5") && se.contains("no device 5"),
        "{se}"
    );
    assert!(!se.contains("backend: emu"), "{se}");
    // --device means nothing to the emulated device.
    let out = run(&["--backend", "emu", "--device", "0"], &[]);
    let se = stderr(&out);
    assert_eq!(code(&out), 2, "{se}");
    assert!(
        se.contains("--device 0") && se.contains("--backend emu"),
        "{se}"
    );
    // Through the stand-in: device 1 claims another arch; asking for it is refused.
    if let Some(lib) = common::standin_lib() {
        let out = run(&["--device", "1"], &[("DS_HARNESS_HIP_LIB", &lib)]);
        let se = stderr(&out);
        assert_eq!(code(&out), 3, "{se}");
        assert!(
            se.contains("HIP device 1") && se.contains("not usable"),
            "{se}"
        );
    }
}

// Finding 7: a bad DS_HARNESS_HIP_TIMEOUT is bad input (exit 2) for every backend that may use
// HIP, found before anything runs, also when auto would not have used HIP.
#[test]
fn a_bad_hip_timeout_is_bad_input_for_run_and_replay() {
    let dir = temp_dir("safety-timeout");
    let case = write_case(&dir, "c.json", &sample_case_json());
    for args in [
        vec![
            "run",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
            "--out",
            s(&dir),
        ],
        vec![
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--out",
            s(&dir),
        ],
        vec!["replay", s(&case)],
    ] {
        for bad in ["soon", "0", "-1", "inf"] {
            let out = ds_env(&args, &[("DS_HARNESS_HIP_TIMEOUT", bad)]);
            let se = stderr(&out);
            assert_eq!(code(&out), 2, "{args:?} with {bad}: {se}");
            assert!(se.contains("DS_HARNESS_HIP_TIMEOUT"), "{se}");
        }
    }
    // The emulated device does not read it.
    let out = ds_env(
        &["replay", s(&case), "--backend", "emu"],
        &[("DS_HARNESS_HIP_TIMEOUT", "soon")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A valid case file's JSON text: the first default-corpus case of `ds_add_u32`, as `run`
/// writes a mismatching case.
fn sample_case_json() -> String {
    use ds_harness::case::CaseFile;
    use ds_harness::corpus;
    let op = ds_isa::ds::DsOp::from_name("ds_add_u32").unwrap();
    let vcs = corpus::for_op(op, corpus::DEFAULT_SEED, 4);
    let (vc, gc) = (&vcs[0], &vcs[0].cases[0]);
    CaseFile::new(
        &gc.id,
        corpus::DEFAULT_SEED,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    )
    .to_json()
}

fn write_case(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
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

/// `text` (a case file) with `"bogus": 1` added to the object at `path` (object keys, or array
/// indices as numbers).
fn with_unknown_field(text: &str, path: &[&str]) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut at = &mut v;
    for key in path {
        at = match key.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[*key],
        };
    }
    at.as_object_mut()
        .unwrap_or_else(|| panic!("{path:?} is an object"))
        .insert("bogus".into(), 1.into());
    serde_json::to_string_pretty(&v).unwrap()
}

// Finding 4: every object of a case file rejects unknown fields, not only the top level.
#[test]
fn nested_unknown_fields_in_a_case_file_are_rejected() {
    let dir = temp_dir("safety-unknown");
    let mut base: serde_json::Value = serde_json::from_str(&sample_case_json()).unwrap();
    // Attach results, so their objects are probed too.
    let outcome = serde_json::json!({
        "lds": base["case"]["lds"].clone(),
        "vdst": vec![[0u32; 4]; 32],
        "addr": vec![0u32; 32],
    });
    base["expected"] = outcome.clone();
    base["device"] = serde_json::json!({"backend": "emu", "name": "x", "outcome": outcome});
    let base = serde_json::to_string_pretty(&base).unwrap();
    let ok = write_case(&dir, "ok.json", &base);
    assert_eq!(code(&ds(&["eval", s(&ok)])), 0);
    let places: [&[&str]; 11] = [
        &[],
        &["variant"],
        &["variant", "mode"],
        &["case"],
        &["case", "lds"],
        &["case", "wave"],
        &["case", "wave", "lanes", "5"],
        &["expected"],
        &["expected", "lds"],
        &["device"],
        &["device", "outcome"],
    ];
    for place in places {
        let path = write_case(&dir, "bad.json", &with_unknown_field(&base, place));
        for cmd in ["eval", "replay"] {
            let out = ds(&[cmd, s(&path), "--backend", "emu"][..if cmd == "eval" { 2 } else { 4 }]);
            let se = stderr(&out);
            assert_eq!(code(&out), 2, "{cmd} with bogus in {place:?}: {se}");
            assert!(se.contains("unknown field `bogus`"), "{place:?}: {se}");
            assert!(se.contains("bad.json:"), "names the file and line: {se}");
        }
    }
}

// Finding 5: one validation for every reader; LDS sizes a kernel cannot allocate are refused by
// eval as by replay, with the field to fix.
#[test]
fn impossible_lds_sizes_are_refused_by_eval_and_replay_alike() {
    let dir = temp_dir("safety-lds");
    for size in [0u32, 65540, 131072] {
        let mut v: serde_json::Value = serde_json::from_str(&sample_case_json()).unwrap();
        v["variant"]["lds_size"] = size.into();
        v["case"]["lds"] = serde_json::json!({"size": size, "words": []});
        let path = write_case(&dir, "c.json", &v.to_string());
        for args in [
            vec!["eval", s(&path)],
            vec!["replay", s(&path), "--backend", "emu"],
        ] {
            let out = ds(&args);
            let se = stderr(&out);
            assert_eq!(code(&out), 2, "{args:?} lds_size {size}: {se}");
            assert!(se.contains(&format!("variant.lds_size is {size}")), "{se}");
            assert!(se.contains("between 4 and 65536"), "{se}");
            assert!(!se.contains("--lds-size"), "replay has no such flag: {se}");
        }
    }
    // Offsets the op cannot take are refused the same way.
    let mut v: serde_json::Value = serde_json::from_str(&sample_case_json()).unwrap();
    v["variant"]["op"] = "ds_nop".into();
    v["variant"]["offset0"] = 4.into();
    let path = write_case(&dir, "c.json", &v.to_string());
    let out = ds(&["eval", s(&path)]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("variant.offset0 4"),
        "{}",
        stderr(&out)
    );
}

// Finding 9: eval prints the instruction with the registers the kernel really uses.
#[test]
fn eval_prints_the_kernels_registers_not_v0_everywhere() {
    use ds_harness::case::CaseFile;
    use ds_harness::corpus;
    let dir = temp_dir("safety-eval-regs");
    let op = ds_isa::ds::DsOp::from_name("ds_load_b64").unwrap();
    let vcs = corpus::for_op(op, corpus::DEFAULT_SEED, 4);
    let (vc, gc) = (&vcs[0], &vcs[0].cases[0]);
    let file = CaseFile::new(
        &gc.id,
        1,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    );
    let path = write_case(&dir, "c.json", &file.to_json());
    let out = ds(&["eval", s(&path)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inst = v["inst"].as_str().unwrap();
    let kernel = ds_kernels::generator::test_inst(Generation::Gfx11, &vc.variant)
        .unwrap()
        .text(Generation::Gfx11)
        .to_string();
    assert_eq!(inst, kernel);
    assert!(!inst.contains("v[0:1], v0"), "{inst}");
}

// Finding 10: the small ones.
#[test]
fn kernel_offsets_must_fit_the_ops_offset_form() {
    let out = ds(&["kernel", "ds_store_2addr_b32", "--offset", "8", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--offset0 N --offset1 M"),
        "{}",
        stderr(&out)
    );
    let out = ds(&["kernel", "ds_add_u32", "--offset1", "8", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("use --offset N"), "{}", stderr(&out));
    let out = ds(&["kernel", "ds_add_u32", "--lds-size", "6", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--lds-size 6"), "{}", stderr(&out));
    let out = ds(&[
        "kernel",
        "ds_store_2addr_b32",
        "--offset0",
        "8",
        "--listing",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("offset0:8"), "{}", stdout(&out));
}

#[test]
fn op_globs_match_legacy_names_and_say_what_they_do_not_support() {
    let dir = temp_dir("safety-glob");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_write_b3?",
        "--cases",
        "2",
        "--out",
        s(&dir),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("ds_store_b32 "), "{}", stdout(&out));
    for pattern in ["ds_[as]*", "ds_{add,sub}_u32"] {
        let out = ds(&["run", "--backend", "emu", "--op", pattern, "--out", s(&dir)]);
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains("not supported"), "{}", stderr(&out));
    }
}

#[test]
fn doc_with_a_missing_recordings_dir_is_an_error() {
    let out = ds(&[
        "doc",
        "ds_add_u32",
        "--recordings",
        "/nonexistent/recordings",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--recordings /nonexistent/recordings"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn asm_quotes_long_lines_briefly_and_numbers_non_utf8_lines() {
    let long = format!("ds_add_u32 {}\n", "v".repeat(1 << 20));
    let out = common::ds_harness(&["asm"], &long);
    assert_eq!(code(&out), 2);
    assert!(
        out.stderr.len() < 2000,
        "{} bytes of stderr",
        out.stderr.len()
    );
    // The line's own length, not the message's (issue 33 L11).
    assert!(
        stderr(&out).contains(&format!("the line is {} bytes long", long.len() - 1)),
        "{}",
        stderr(&out)
    );
    let out = common::run_bytes(
        env!("CARGO_BIN_EXE_ds-harness"),
        &["asm"],
        b"ds_nop\n\xff\xfe\nds_nop\n",
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("<stdin>:2: error: not UTF-8"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        stdout(&out).lines().count(),
        2,
        "the other lines are still assembled"
    );
}

// Finding 6: a recording that still fails although its directory passed the check says so and
// where the results so far are, rather than an unexplained exit 2.
#[test]
fn a_recording_that_fails_during_the_run_says_where_the_results_are() {
    let dir = temp_dir("safety-record-late");
    let rec = dir.join("rec");
    fs::create_dir(&rec).unwrap();
    // Where the emulated device records its first op: a directory in the way of the file. (A file
    // in the way of the device's directory itself is refused before the run: careless.rs.)
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
