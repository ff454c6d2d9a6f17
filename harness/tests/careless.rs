//! Careless commands (issue 23): flags out of range, outputs naming inputs, results whose counts do
//! not add up, inputs that never end, duplicate rows, recordings under another target's name,
//! paths in the way. Each is refused before any work, exit 2, naming the problem and the fix;
//! and the run's own bookkeeping holds up (a launch that faults loses only the cases that fault,
//! a case the legal-outcome search cannot decide is `undecided`, never a mismatch).

mod common;

use common::bounded::run_bounded;
use common::{code, ds_harness_env, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_devices::{Device, DeviceError, DeviceInfo, ModuleId};
use ds_harness::run::{self, RunConfig};
use ds_kernels::launch::Launch;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A small run's results (and recordings, when `record`) in `dir`.
fn results(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(format!("{name}.json"));
    let mut args = vec![
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--op",
        "ds_sub_u32",
        "--cases",
        "8",
        "--wave",
        "32",
        "--json",
        s(&file),
    ];
    let out = dir.join(format!("out-{name}"));
    args.extend_from_slice(&["--out", s(&out)]);
    args.extend_from_slice(extra);
    let o = ds(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    file
}

fn refused(args: &[&str], says: &str) {
    let o = ds(args);
    assert_eq!(code(&o), 2, "{args:?}: {}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
}

#[test]
fn numbers_out_of_range_are_usage_errors_naming_the_range() {
    refused(
        &[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            "x",
            "--device-timeout",
            "1e300",
        ],
        "to 604800",
    );
    refused(
        &[
            "run",
            "--backend",
            "emu",
            "--duration",
            "18446744073709551615",
        ],
        "longest time budget",
    );
    refused(
        &["run", "--backend", "emu", "--jobs", "100000"],
        "--jobs 100000: at most",
    );
    // Limits said by the harness, not by the argument parser (issue 33 L12).
    for (args, says) in [
        (
            vec!["--shard", "1/18446744073709551615"],
            "--shard 1/18446744073709551615: at most 4294967295 shards",
        ),
        (
            vec!["--cases", "18446744073709551615"],
            "`18446744073709551615` is more than 4294967295",
        ),
        (vec!["--cases", "0"], "`0` is 0; at least 1 is needed"),
        (
            vec!["--jobs=x3"],
            "`x3` is not a whole number (from 1 to 4294967295)",
        ),
    ] {
        let mut all = vec!["run", "--backend", "emu"];
        all.extend(args);
        let o = ds(&all);
        assert_eq!(code(&o), 2, "{all:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("target type"), "{}", stderr(&o));
    }
    let o = ds_harness_env(
        &["run", "--backend", "auto", "--op", "ds_add_u32"],
        &[("DS_HARNESS_HIP_TIMEOUT", "1e300")],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("to 604800"), "{}", stderr(&o));
}

/// Shards of runs that differ are refused naming the difference in words, never in Rust's
/// debugging notation (issue 33 L12: `[Wave32, Wave64]`).
#[test]
fn shards_that_differ_are_named_in_words() {
    let dir = temp_dir("careless-mixed");
    let a = results(&dir, "a", &["--shard", "1/2"]);
    let b = {
        let file = dir.join("b.json");
        let o = ds(&[
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_add_u32",
            "--op",
            "ds_sub_u32",
            "--cases",
            "8",
            "--shard",
            "2/2",
            "--json",
            s(&file),
            "--out",
            s(&dir.join("out-b")),
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        file
    };
    let o = ds(&["merge", s(&a), s(&b)]);
    let e = stderr(&o);
    assert_eq!(code(&o), 2, "{e}");
    assert!(
        e.contains("wave32") && e.contains("wave32 and wave64"),
        "{e}"
    );
    assert!(!e.contains("Wave32") && !e.contains('['), "{e}");
}

/// The help says what the harness covers, every generation of its tables, not the first one
/// it had (issue 33 L13).
#[test]
fn the_help_names_every_generation_not_only_the_first() {
    let help = stdout(&ds(&["--help"]));
    for g in ds_isa::ds::Generation::ALL {
        assert!(help.contains(g.name()), "{g}: {help}");
    }
    assert!(!help.contains("RDNA 3 and RDNA 3.5 GPUs"), "{help}");
    for cmd in ["list", "kernel", "doc", "run"] {
        let h = stdout(&ds(&[cmd, "--help"]));
        assert!(!h.contains("every gfx11 DS opcode"), "{cmd}: {h}");
        assert!(!h.contains("(gfx11 or pre-gfx11 mnemonic)"), "{cmd}: {h}");
    }
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
fn merge_refuses_counts_that_do_not_add_up_and_other_formats() {
    let dir = temp_dir("careless-counts");
    let s1 = results(&dir, "s1", &["--shard", "1/2"]);
    let s2 = results(&dir, "s2", &["--shard", "2/2"]);
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let mut v = json(&s1);
        f(&mut v);
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    let one_short = edit("short.json", &|v| {
        let o = &mut v["ops"][0];
        let agree = o["agree"].as_u64().unwrap();
        o["agree"] = (agree - 1).into();
    });
    refused(&["merge", s(&one_short), s(&s2)], "not its");
    let classes = edit("classes.json", &|v| {
        let o = &mut v["ops"][0];
        o["fidelity"]["exact"] = 1.into();
    });
    refused(&["merge", s(&classes), s(&s2)], "fidelity classes");
    let huge = edit("huge.json", &|v| {
        let o = &mut v["ops"][0];
        o["cases"] = u64::MAX.into();
        o["agree"] = u64::MAX.into();
    });
    refused(&["merge", s(&huge), s(&s2)], "");
    let format2 = edit("format2.json", &|v| v["format"] = 2.into());
    refused(
        &["merge", s(&format2), s(&s2)],
        "results format 2 is not supported",
    );
}

#[test]
fn matrix_refuses_duplicate_and_unknown_op_rows() {
    let dir = temp_dir("careless-matrix");
    let r = results(&dir, "r", &[]);
    let mut v = json(&r);
    let first = v["ops"][0].clone();
    v["ops"].as_array_mut().unwrap().push(first);
    let dup = dir.join("dup.json");
    std::fs::write(&dup, v.to_string()).unwrap();
    refused(&["matrix", s(&dup)], "has two rows");
    let mut v = json(&r);
    v["ops"][0]["op"] = "ds_add_u33".into();
    let unknown = dir.join("unknown.json");
    std::fs::write(&unknown, v.to_string()).unwrap();
    refused(&["matrix", s(&unknown)], "is not a DS op");
}

#[test]
fn inputs_that_never_end_are_refused_at_their_ceiling() {
    // Bounded: a revision that reads /dev/zero to the end runs out of its address space.
    for args in [
        &["merge", "/dev/zero", "/dev/zero"][..],
        &["matrix", "/dev/zero"],
        &["eval", "/dev/zero"],
        &["replay", "/dev/zero", "--backend", "emu"],
    ] {
        let ran = run_bounded(args, &[], b"", Duration::from_secs(60));
        assert!(!ran.killed, "{args:?} did not end");
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("larger than"),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

#[test]
fn against_checks_the_recordings_directory_wave_and_flags() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/hardware/emulated-gfx1100");
    let dir = temp_dir("careless-against");
    // The recordings of the default target under another target's emulated directory.
    let other = ds_isa::target::TARGETS
        .iter()
        .find(|t| *t != ds_isa::target::DEFAULT && ds_kernels::check_target(t).is_ok())
        .expect("a second target");
    let wrong = dir.join(format!("emulated-{other}"));
    std::fs::create_dir_all(&wrong).unwrap();
    for f in std::fs::read_dir(&fixture).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, wrong.join(f.file_name().unwrap())).unwrap();
    }
    refused(
        &["run", "--backend", "emu", "--against", s(&wrong)],
        "recordings live under the directory of their target",
    );
    refused(
        &[
            "run",
            "--backend",
            "emu",
            "--against",
            s(&fixture),
            "--seed",
            "5",
        ],
        "--seed or --cases",
    );
    // --wave chooses among the recordings.
    for wave in [32u64, 64] {
        let json = dir.join(format!("w{wave}.json"));
        let w = wave.to_string();
        let o = ds(&[
            "run",
            "--backend",
            "emu",
            "--against",
            s(&fixture),
            "--wave",
            &w,
            "--json",
            s(&json),
            "--out",
            s(&dir.join("out")),
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let r = self::json(&json);
        assert_eq!(
            r["meta"]["waves"],
            serde_json::json!([wave]),
            "{}",
            r["meta"]
        );
        let ops = r["ops"].as_array().unwrap();
        assert!(!ops.is_empty() && ops.iter().all(|o| o["wave"] == wave));
    }
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

#[test]
fn case_files_with_a_word_given_twice_are_refused() {
    let dir = temp_dir("careless-dup-word");
    let r = results(&dir, "r", &[]);
    let _ = r;
    // A case file from the corpus, with one LDS word given twice.
    let (variant, case) = {
        let vc = &ds_harness::corpus::for_op(common::op("ds_add_u32"), 1, 1)[0];
        (vc.variant, vc.cases[0].case.clone())
    };
    let file = ds_harness::case::CaseFile::new("dup", 1, ds_isa::target::DEFAULT, variant, case);
    let mut v: Value = serde_json::from_str(&file.to_json()).unwrap();
    v["case"]["lds"]["words"] = serde_json::json!([[0, 1], [0, 2]]);
    let path = dir.join("dup.json");
    std::fs::write(&path, v.to_string()).unwrap();
    refused(&["eval", s(&path)], "byte offset 0 is given twice");
}

#[test]
fn kernel_offsets_take_hex() {
    let dir = temp_dir("careless-kernel-hex");
    let o = ds(&[
        "kernel",
        "ds_add_u32",
        "--offset",
        "0x10",
        "--out",
        s(&dir.join("k.co")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = ds(&["kernel", "ds_add_u32", "--offset", "0x1ffff", "--listing"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn an_incomplete_run_with_no_ops_is_not_all_agree() {
    let mut r = ds_harness::run::report::Report::new(common::meta("emu", 8));
    assert!(
        !r.to_markdown().starts_with("**All agree**"),
        "{}",
        r.to_markdown()
    );
    // Complete with nothing selected (an empty shard): no case to agree about.
    r.complete = true;
    assert!(r.to_markdown().starts_with("**Nothing selected**"));
    assert!(r.all_agree(), "an empty selection exits 0");
}

/// The emulated device, except that a launch holding the case whose first lane's address is
/// `poison` faults, as a device does when one workgroup faults.
struct OneBadCase {
    inner: EmuDevice,
    /// Lane 0's (address, data0).
    poison: (u32, u32),
    launches: usize,
}

impl Device for OneBadCase {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, code: &[u8]) -> Result<ModuleId, DeviceError> {
        self.inner.load(code)
    }
    fn launch(&mut self, m: ModuleId, l: &mut Launch) -> Result<(), DeviceError> {
        self.launches += 1;
        let lanes = &l.buffers[ds_kernels::abi::LANES_IN].bytes;
        let stride = lanes.len() / l.workgroups as usize;
        let word = |at: usize| u32::from_le_bytes(lanes[at..at + 4].try_into().unwrap());
        let bad = (0..l.workgroups as usize).any(|c| {
            let at = c * stride;
            (
                word(at + ds_kernels::abi::LANE_IN_ADDR as usize),
                word(at + ds_kernels::abi::LANE_IN_DATA0 as usize),
            ) == self.poison
        });
        if bad {
            return Err(DeviceError::Launch(
                "memory violation in a workgroup".into(),
            ));
        }
        self.inner.launch(m, l)
    }
}

#[test]
fn a_faulting_case_loses_only_itself_and_gets_a_case_file() {
    let dir = temp_dir("careless-bisect");
    let op = common::op("ds_add_rtn_u32");
    let mut cfg = RunConfig::new(vec![op]);
    cfg.cases_per_op = 64;
    cfg.out_dir = dir.join("out");
    // The poison: lane 0's address and data of the third case of the first variant.
    let plan =
        &ds_harness::corpus::plan_in(op, cfg.seed, 64, ds_reference::wave::WaveSize::Wave32)[0];
    let poisoned = plan.case(2);
    let poison = (poisoned.wave.lanes[0].addr, poisoned.wave.lanes[0].data0[0]);
    let same = (0..plan.count)
        .filter(|&i| {
            let l = plan.case(i).wave.lanes[0];
            (l.addr, l.data0[0]) == poison
        })
        .count();
    let mut dev = OneBadCase {
        inner: EmuDevice::new(),
        poison,
        launches: 0,
    };
    let report = run::run(&cfg, &mut dev, common::meta("one bad case", 64)).unwrap();
    let v: Value = serde_json::from_str(&report.to_json()).unwrap();
    let o = &v["ops"][0];
    assert_eq!(o["errors"], same as u64, "{o}");
    assert_eq!(o["fidelity"]["device_error"], same as u64);
    assert_eq!(
        o["agree"].as_u64().unwrap() + same as u64 + o["skipped"].as_u64().unwrap(),
        o["cases"].as_u64().unwrap()
    );
    let lost = o["lost"].as_array().expect("the lost cases are listed");
    assert_eq!(lost.len(), same);
    assert_eq!(lost[0]["id"], plan.id(2));
    let file = ds_harness::case::CaseFile::read(Path::new(lost[0]["path"].as_str().unwrap()))
        .expect("a case file to replay");
    assert_eq!(file.case, poisoned);
    assert!(dev.launches < 40, "{} launches", dev.launches);
}

#[test]
fn a_case_the_search_cannot_decide_is_undecided_not_a_mismatch() {
    use ds_harness::run::legal::Legality;
    fn give_up(
        _: &ds_isa::target::Target,
        _: &ds_reference::wave::Variant,
        _: &ds_reference::wave::Case,
        _: &ds_reference::wave::Outcome,
        _: &ds_reference::wave::Outcome,
    ) -> Legality {
        Legality::Undecided("gave up (a stand-in judge)".into())
    }
    let op = common::op("ds_add_rtn_u32");
    let mut cfg = RunConfig::new(vec![op]);
    cfg.out_dir = temp_dir("careless-undecided");
    cfg.judge = give_up;
    let mut dev = EmuDevice::new().with_fault(ds_devices::emu::Fault {
        op,
        lane: 0,
        word: 0,
        xor: 1,
    });
    let report = run::run(&cfg, &mut dev, common::meta("undecided", 160)).unwrap();
    let v: Value = serde_json::from_str(&report.to_json()).unwrap();
    let o = &v["ops"][0];
    assert_eq!(o["disagree"], 0, "{o}");
    assert!(o["undecided"].as_u64().unwrap() > 0, "{o}");
    assert_eq!(o["fidelity"]["undecided"], o["undecided"]);
    assert!(o["fidelity"].get("mismatch").is_none(), "{o}");
    assert!(report.all_agree(), "undecided does not fail the run");
    assert!(
        report.summary().contains("undecided"),
        "{}",
        report.summary()
    );
}

#[test]
fn the_shrunk_report_shows_every_active_lanes_inputs() {
    // A store whose lane 3 stored the wrong word: the difference is in LDS only.
    let op = common::op("ds_store_b32");
    let plan = &ds_harness::corpus::plan_in(op, 1, 1, ds_reference::wave::WaveSize::Wave32)[0];
    let mut case = plan.case(0);
    case.wave.exec = 1 << 3;
    case.wave.lanes[3].addr = 8;
    case.wave.lanes[3].data0[0] = 0x1234;
    let expected = ds_reference::model::execute(
        ds_isa::target::DEFAULT,
        &plan.variant.inst(),
        plan.variant.mode,
        &case,
    )
    .unwrap();
    let mut device = expected.clone();
    device.lds.set_word(8, 0x1235);
    let differences = ds_harness::run::diff::diff(
        plan.variant.inst().info(),
        case.wave.exec,
        &expected,
        &device,
    );
    let size = ds_harness::shrink::size(&plan.variant, &case);
    let sh = ds_harness::shrink::Shrunk {
        id: "x".into(),
        seed: 1,
        target: ds_isa::target::DEFAULT,
        variant: plan.variant,
        case,
        expected,
        device,
        differences,
        steps: 0,
        launches: 1,
        candidates: 0,
        size_before: size,
        size_after: size,
    };
    let text = sh.report("ds-harness replay x");
    assert!(
        text.contains("lane 3 (active) in: addr=0x00000008 data0=00001234"),
        "{text}"
    );
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

/// `--against` a recording an external device made and called hardware says it is hardware as
/// the device reported it, not the harness's own finding (the residue of issue 33).
#[test]
fn a_recording_an_external_device_called_hardware_is_described_as_its_word() {
    let dir = temp_dir("careless-exec-hardware");
    results(&dir, "r", &["--record", s(&dir.join("rec"))]);
    let src = dir.join("rec/emulated-gfx1100/ds_add_u32.txt");
    let text = std::fs::read_to_string(&src).unwrap();
    let mut rec = ds_harness::record::parse(&text, &src).unwrap();
    for (k, v) in rec.provenance.pairs.iter_mut() {
        if k == "backend" {
            *v = "exec".into();
        }
    }
    rec.provenance
        .pairs
        .push(("hardware".into(), "true".into()));
    let said = ds_harness::against::describe(&[rec.clone()], &dir);
    assert!(
        said.ends_with(", hardware as reported by the device)"),
        "{said}"
    );
    rec.provenance.pairs.retain(|(k, _)| k != "hardware");
    let said = ds_harness::against::describe(&[rec], &dir);
    assert!(said.ends_with(", not hardware)"), "{said}");
}
