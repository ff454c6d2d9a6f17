//! Recordings under `snapshots/hardware/`: every one replays against the model, disagreements
//! must be listed (with reason and source) in `known-divergences.json`, corrupt or cut files are
//! errors naming file and line, and the provenance rule keeps emulated results out of GPU names;
//! every target's snapshot corpus records through the emulated device and through the hip device
//! on the stand-in, and the recordings replay under their target against its model.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_env;
use crate::common::replayed;
use crate::common::standin_lib;
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use ds_isa::ds::runnable_ops_on;
use ds_isa::ds::DsFeatures;
use ds_kernels::kernel_targets;
use ds_kernels::wave_sizes;

use common::op;
use ds_isa::gen::Generation;

use ds_devices::emu::EmuDevice;
use ds_devices::{Backend, Device, DeviceInfo};
use ds_harness::record::{self, RecordError, Verdict};
use ds_isa::ds::DsOp;
use ds_reference::wave::WaveSize;
use std::path::{Path, PathBuf};

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/hardware")
}

#[test]
fn every_shipped_recording_replays_against_the_model() {
    let sum = match record::check_all(&shipped()) {
        Ok(s) => s,
        Err(problems) => panic!("{}", problems.join("\n")),
    };
    eprintln!("{sum:?}");
    // The emulated fixture at least: the mechanism is exercised on every machine.
    assert!(sum.recordings >= 1 && sum.cases >= 3, "{sum:?}");
    assert_eq!(
        sum.agree + sum.legal.values().sum::<usize>() + sum.known,
        sum.cases
    );
    let fixture = shipped().join("emulated-gfx1100");
    let recs: Vec<_> = record::load_dir(&shipped())
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    for r in &recs {
        let dir = r
            .path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        assert_eq!(
            dir.starts_with("emulated-"),
            !r.provenance.is_hardware(),
            "{}",
            r.path.display()
        );
        for key in ["backend", "gpu", "arch", "harness", "date", "fp_modes"] {
            assert!(
                r.provenance.get(key).is_some(),
                "{} lacks {key}",
                r.path.display()
            );
        }
    }
    assert!(recs.iter().any(|r| r.path.starts_with(&fixture)));
}

/// Records `op` on the emulated device into a fresh directory and returns the file.
fn fresh_recording(name: &str, op_name: &str) -> (PathBuf, PathBuf) {
    let root = common::temp_dir(name);
    let mut dev = EmuDevice::new();
    let path = record::record_op(&root, &mut dev, op(op_name), WaveSize::Wave32).unwrap();
    (root, path)
}

#[test]
fn recording_writes_atomically_under_an_emulated_name_and_reads_back() {
    let (root, path) = fresh_recording("rec-roundtrip", "ds_add_rtn_u32");
    assert_eq!(
        path,
        root.join("emulated-gfx1100").join("ds_add_rtn_u32.txt")
    );
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    let rec = record::read(&path).unwrap();
    assert_eq!(rec.provenance.backend(), "emu");
    assert!(!rec.provenance.is_hardware());
    let model =
        ds_reference::model::snapshot::model_entries(ds_isa::target::DEFAULT, op("ds_add_rtn_u32"))
            .unwrap();
    assert_eq!(
        rec.entries, model,
        "the emulated device agrees with the model"
    );
    assert!(record::replay(&rec)
        .iter()
        .all(|r| r.verdict == Verdict::Agree));
}

#[test]
fn a_cut_or_corrupt_recording_names_its_file_and_line() {
    let (root, path) = fresh_recording("rec-corrupt", "ds_mskor_b32");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();

    // Cut in half, as a write without the temp-file rename could leave it.
    let half = lines[..lines.len() / 2].join("\n") + "\n";
    std::fs::write(&path, &half).unwrap();
    let err = record::read(&path).unwrap_err();
    let RecordError::Corrupt { line, ref what, .. } = err else {
        panic!("{err}")
    };
    assert_eq!(line, lines.len() / 2, "the last line there is: {what}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{}:{line}: ", path.display())),
        "{msg}"
    );
    assert!(msg.contains("cut short"), "{msg}");
    // load_dir reports it too: a broken file is never skipped.
    let all = record::load_dir(&root);
    assert_eq!(all.len(), 1);
    assert!(all[0].is_err());
    assert!(record::check_all(&root).unwrap_err()[0].contains("cut short"));

    // A damaged value on one line: that line is named.
    let bad_at = lines.iter().position(|l| l.starts_with("lds.in")).unwrap();
    let mut damaged: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    damaged[bad_at] = damaged[bad_at].replacen('=', "=zz", 1);
    std::fs::write(&path, damaged.join("\n") + "\n").unwrap();
    match record::read(&path).unwrap_err() {
        RecordError::Corrupt { line, what, .. } => {
            assert_eq!(line, bad_at + 1, "{what}");
            assert!(what.contains("not a hex dword"), "{what}");
        }
        e => panic!("{e}"),
    }

    // A whole case dropped from the end: the end marker's count catches it.
    let last_case = lines.iter().rposition(|l| l.starts_with("case ")).unwrap();
    let mut dropped: Vec<&str> = lines[..last_case].to_vec();
    dropped.push(lines[lines.len() - 1]);
    std::fs::write(&path, dropped.join("\n") + "\n").unwrap();
    let msg = record::read(&path).unwrap_err().to_string();
    let n = ds_reference::model::snapshot::snapshot_corpus(op("ds_mskor_b32")).len();
    assert!(
        msg.contains(&format!(
            "end marker says {n} cases but the file holds {}",
            n - 1
        )),
        "{msg}"
    );

    // A whole file under another op's name: the first variant line is named.
    let wrong = path.with_file_name("ds_or_b32.txt");
    std::fs::write(&wrong, &text).unwrap();
    let variant_line = lines
        .iter()
        .position(|l| l.starts_with("variant "))
        .unwrap()
        + 1;
    let msg = record::read(&wrong).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}:{variant_line}: ", wrong.display())),
        "{msg}"
    );
    assert!(msg.contains("name it ds_mskor_b32.txt"), "{msg}");
}

#[test]
fn emulated_results_cannot_pass_for_a_gpu() {
    let (root, path) = fresh_recording("rec-provenance", "ds_store_b32");
    let under_gpu = root.join("gfx1100");
    std::fs::create_dir_all(&under_gpu).unwrap();
    std::fs::rename(&path, under_gpu.join("ds_store_b32.txt")).unwrap();
    let all = record::load_dir(&root);
    match &all[..] {
        [Err(RecordError::Provenance { what, .. })] => {
            assert!(
                what.contains("backend emu recorded under `gfx1100`"),
                "{what}"
            )
        }
        other => panic!("{other:?}"),
    }
    // The emulated device's directory name always says so, and so does the HIP stand-in's
    // (the hip backend over an emulated device); only a GPU gets the bare arch name.
    assert_eq!(
        record::dir_name(EmuDevice::new().info()),
        "emulated-gfx1100"
    );
    let hip = |provenance: &str| DeviceInfo {
        backend: Backend::Hip,
        name: "n".into(),
        target: ds_isa::target::DEFAULT,
        details: vec![("provenance".into(), provenance.into())],
    };
    assert_eq!(
        record::dir_name(&hip("stand-in runtime (emulated device), not a GPU")),
        "emulated-hip-standin-gfx1100"
    );
    assert_eq!(record::dir_name(&hip("GPU")), "gfx1100");
}

#[test]
fn an_unlisted_disagreement_fails_and_a_listed_one_needs_reason_and_source() {
    let (root, path) = fresh_recording("rec-divergence", "ds_add_rtn_u32");
    // A device that differs on case `edges`: lane 0 returned a wrong old value.
    let mut rec = record::read(&path).unwrap();
    let e = rec.entries.iter_mut().find(|e| e.name == "edges").unwrap();
    e.outcome.vdst[0][0] ^= 1;
    let text = record::render(rec.op, &rec.provenance, &rec.entries);
    std::fs::write(&path, text).unwrap();
    let problems = record::check_all(&root).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("case edges disagrees"),
        "{}",
        problems[0]
    );
    assert!(
        problems[0].contains("lane 0 (active) vdst[0]"),
        "{}",
        problems[0]
    );

    let list = root.join(record::KNOWN_DIVERGENCES);
    std::fs::write(
        &list,
        r#"[{"recording": "emulated-gfx1100/ds_add_rtn_u32.txt", "case": "edges", "reason": "", "source": ""}]"#,
    )
    .unwrap();
    let problems = record::check_all(&root).unwrap_err();
    assert!(
        problems[0].contains("needs a reason and a source"),
        "{problems:?}"
    );

    std::fs::write(
        &list,
        r#"[{"recording": "emulated-gfx1100/ds_add_rtn_u32.txt", "case": "edges",
             "reason": "test: a flipped return bit", "source": "this test"}]"#,
    )
    .unwrap();
    let sum = record::check_all(&root).unwrap();
    let n = ds_reference::model::snapshot::snapshot_corpus(op("ds_add_rtn_u32")).len();
    assert_eq!((sum.known, sum.cases), (1, n));

    // Once the recording agrees again, the stale entry is reported.
    record::record_op(
        &root,
        &mut EmuDevice::new(),
        op("ds_add_rtn_u32"),
        WaveSize::Wave32,
    )
    .unwrap();
    let problems = record::check_all(&root).unwrap_err();
    assert!(problems[0].contains("agrees now"), "{problems:?}");
}

#[test]
fn run_record_writes_one_file_per_selected_op() {
    let root = common::temp_dir("rec-cli");
    let out = common::ds_harness(
        &[
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_and_b32",
            "--op",
            "ds_load_b64",
            "--cases",
            "2",
            "--out",
            root.join("cases").to_str().unwrap(),
            "--record",
            root.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let so = common::stdout(&out);
    assert!(
        so.contains("recorded 4 recordings (2 ops in wave32 and wave64) under"),
        "{so}"
    );
    let mut names: Vec<String> = std::fs::read_dir(root.join("emulated-gfx1100"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    // One file per op and wave size (the wave64 one named so), and the run's status beside them.
    assert_eq!(
        names,
        [
            "ds_and_b32.txt",
            "ds_and_b32.wave64.txt",
            "ds_load_b64.txt",
            "ds_load_b64.wave64.txt",
            "run.json"
        ]
    );
    let sum = record::check_all(&root).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert_eq!(sum.recordings, 4);
    // The wave64 recording says so in its provenance and holds 64-lane cases that replay.
    let rec = record::read(&root.join("emulated-gfx1100/ds_load_b64.wave64.txt")).unwrap();
    assert_eq!(rec.provenance.get("wave"), Some("64"));
    assert_eq!(rec.wave, WaveSize::Wave64);
    assert!(rec.entries.iter().all(|e| e.case.wave.lanes.len() == 64));
    assert!(record::replay(&rec)
        .iter()
        .all(|r| r.verdict == Verdict::Agree));
}

#[test]
fn a_recording_of_every_runnable_op_on_the_emulated_device_replays_clean() {
    let root = common::temp_dir("rec-all");
    let ops: Vec<DsOp> = ds_isa::ds::runnable_ops(Generation::Gfx11).collect();
    let paths = record::record_ops(&root, &mut EmuDevice::new(), &ops).unwrap();
    assert_eq!(paths.len(), ops.len());
    let sum = record::check_all(&root).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert_eq!(sum.recordings, ops.len());
    assert_eq!(sum.hardware, 0);
    assert_eq!(sum.agree, sum.cases, "{sum:?}");
    eprintln!(
        "{} ops, {} cases recorded and replayed",
        sum.recordings, sum.cases
    );
}

/// The wave size a target's recordings are made in here: its first (wave32 where it runs it).
fn wave_of(t: &ds_isa::target::Target) -> WaveSize {
    ds_kernels::wave_sizes(t)[0]
}

#[test]
fn recordings_live_under_their_target_and_replay_against_its_model() {
    let targets: Vec<_> = ds_kernels::kernel_targets().collect();
    let root = common::temp_dir("rec-targets");
    for &t in &targets {
        let mut dev = EmuDevice::for_target(t);
        let path = record::record_op(&root, &mut dev, op("ds_add_rtn_u32"), wave_of(t)).unwrap();
        // The recording's name says its wave size where it is not wave32 (gfx9: wave64 only).
        let stem = record::recording_stem(op("ds_add_rtn_u32"), wave_of(t));
        assert_eq!(
            path,
            root.join(format!("emulated-{t}"))
                .join(format!("{stem}.txt"))
        );
        let rec = record::read(&path).unwrap();
        assert_eq!(rec.target(), t);
        assert_eq!(rec.provenance.get("arch"), Some(t.name));
        assert!(record::replay(&rec)
            .iter()
            .all(|r| matches!(r.verdict, Verdict::Agree | Verdict::Legal(_))));
    }
    let sum = record::check_all(&root).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert_eq!(sum.recordings, targets.len());

    // Under another target's directory: refused, naming both.
    let (a, b) = (targets[0], targets[1]);
    let wrong = common::temp_dir("rec-wrong-target");
    std::fs::create_dir_all(wrong.join(format!("emulated-{b}"))).unwrap();
    std::fs::copy(
        root.join(format!("emulated-{a}/ds_add_rtn_u32.txt")),
        wrong.join(format!("emulated-{b}/ds_add_rtn_u32.txt")),
    )
    .unwrap();
    match &record::load_dir(&wrong)[..] {
        [Err(RecordError::Provenance { what, .. })] => assert!(
            what.contains(&format!("made on {a} lies under `emulated-{b}`")),
            "{what}"
        ),
        other => panic!("{other:?}"),
    }

    // A recording of a target the table does not know: corrupt, at its arch line.
    let text = std::fs::read_to_string(root.join(format!("emulated-{a}/ds_add_rtn_u32.txt")))
        .unwrap()
        .replace(
            &format!("# provenance arch: {a}\n"),
            "# provenance arch: gfx803\n",
        );
    let line = text
        .lines()
        .position(|l| l == "# provenance arch: gfx803")
        .unwrap()
        + 1;
    let p = wrong.join("x.txt");
    let e = record::parse(&text, &p).unwrap_err().to_string();
    assert!(
        e.contains(&format!("x.txt:{line}: corrupt recording")),
        "{e}"
    );
    assert!(e.contains("unknown target `gfx803`"), "{e}");
}

/// Every target's snapshot corpus, every runnable op in every wave size its kernels are built
/// in, records on the emulated device of that target (the corpus holds only instructions the
/// target accepts: even register tuples from CDNA 2 on), and every recorded case replays against
/// the model; the targets with AccVGPR DS operands record the acc twins too.
#[test]
fn every_targets_snapshot_corpus_records_on_the_emulated_device_and_replays() {
    let root = temp_dir("every-target-emu");
    for t in kernel_targets() {
        let mut dev = EmuDevice::for_target(t);
        let dir = root.join(t.name);
        for wave in wave_sizes(t) {
            for op in runnable_ops_on(t) {
                record::record_op(&dir, &mut dev, op, wave)
                    .unwrap_or_else(|e| panic!("{t} {op} {wave}: {e}"));
            }
        }
        let (cases, acc, problems) = replayed(&dir);
        assert!(problems.is_empty(), "{t}: {problems:#?}");
        // Over 600 cases in each wave size (gfx1250 runs wave32 only).
        let waves = wave_sizes(t).len();
        assert!(cases > 600 * waves, "{t}: {cases} cases recorded");
        let has_acc = t.ds_features.contains(DsFeatures::ACC);
        assert_eq!(acc > 0, has_acc, "{t}: {acc} acc cases recorded");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// README's recording step (`run --record`) completes on every target through the hip device's
/// own code on the stand-in runtime (a device per target), and what it records replays.
#[test]
fn run_record_completes_on_every_target_through_the_standin() {
    let Some(lib) = standin_lib() else { return };
    let root = temp_dir("every-target-standin");
    let mut never = Vec::new();
    for t in kernel_targets() {
        // A processor ROCm never reports (its chip's KFD version is an earlier row's): refused
        // in words naming the row ROCm runs the chip as.
        let owner = ds_isa::target::Target::by_kfd_version(t.kfd_version).unwrap();
        if owner != t {
            let o = ds_harness_env(
                &[
                    "run",
                    "--backend",
                    "hip",
                    "--target",
                    t.name,
                    "--cases",
                    "1",
                ],
                &[
                    ("DS_HARNESS_HIP_LIB", &lib),
                    ("DS_HARNESS_HIP_SEARCH", "only-env"),
                ],
            );
            assert_eq!(code(&o), 3, "{t}: {}", stdout(&o));
            assert!(
                stderr(&o).contains(&format!(
                    "no GPU is ever a {t} to ROCm: the kernel driver reports a {t} chip with \
                     {owner}'s gfx_target_version"
                )),
                "{t}: {}",
                stderr(&o)
            );
            never.push(t.name);
            continue;
        }
        let out = root.join(format!("out-{t}"));
        let rec = root.join(format!("rec-{t}"));
        let o = ds_harness_env(
            &[
                "run",
                "--backend",
                "hip",
                "--target",
                t.name,
                "--cases",
                "1",
                "--out",
                out.to_str().unwrap(),
                "--record",
                rec.to_str().unwrap(),
            ],
            &[
                ("DS_HARNESS_HIP_LIB", &lib),
                ("DS_HARNESS_HIP_SEARCH", "only-env"),
            ],
        );
        assert_eq!(code(&o), 0, "{t}: {}\n{}", stdout(&o), stderr(&o));
        let dir = rec.join(format!("emulated-hip-standin-{t}"));
        let status = std::fs::read_to_string(dir.join("run.json")).expect("run.json");
        assert!(status.contains("\"complete\": true"), "{t}: {status}");
        let files = std::fs::read_dir(&dir).unwrap().count() - 1;
        let want: usize = wave_sizes(t).len() * runnable_ops_on(t).count();
        assert_eq!(files, want, "{t}: one recording per op and wave size");
        let (_, acc, problems) = replayed(&rec);
        assert!(problems.is_empty(), "{t}: {problems:#?}");
        assert_eq!(acc > 0, t.ds_features.contains(DsFeatures::ACC), "{t}");
    }
    assert_eq!(never, ["gfx909"]);
    let _ = std::fs::remove_dir_all(&root);
}
