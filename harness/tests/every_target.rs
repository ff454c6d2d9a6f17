//! Every target of the table as careful as the first (issue 33): the snapshot corpus records on
//! every target, through the emulated device and through the hip device on the stand-in, and the
//! recordings replay against the model; a recording holds the AccVGPR twins where the target has
//! them, so a device that ignores the acc bit is caught by its recording.

mod common;

use common::{code, ds_harness_env, standin_lib, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_harness::record::{self, Verdict};
use ds_isa::ds::{runnable_ops_on, DsFeatures};
use ds_kernels::{kernel_targets, wave_sizes};
use std::path::Path;

/// The recordings under `root`, replayed: (cases, `.acc` cases, problems).
fn replayed(root: &Path) -> (usize, usize, Vec<String>) {
    let (mut cases, mut acc, mut problems) = (0, 0, Vec::new());
    for rec in record::load_dir(root) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for r in record::replay(&rec) {
            cases += 1;
            acc += usize::from(r.case.ends_with(".acc"));
            if let Verdict::Disagree(d) = r.verdict {
                problems.push(format!("{}: {}: {d:?}", rec.path.display(), r.case));
            }
        }
    }
    (cases, acc, problems)
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

/// The AccVGPR twins are recorded, so a device that ignores the acc bit (reads and writes VGPRs
/// where the instruction names AccVGPRs) leaves a recording the model refuses, on the twins only.
#[test]
fn a_device_ignoring_the_acc_bit_leaves_a_recording_the_model_refuses() {
    let t = kernel_targets()
        .find(|t| t.ds_features.contains(DsFeatures::ACC))
        .expect("a target with AccVGPR DS operands");
    let root = temp_dir("acc-ignored");
    let mut dev = EmuDevice::for_target(t).with_acc_ignored();
    let op = ds_isa::ds::DsOp::from_name("ds_add_rtn_u32").unwrap();
    let wave = wave_sizes(t)[0];
    record::record_op(&root, &mut dev, op, wave).unwrap();
    let (cases, acc, problems) = replayed(&root);
    assert!(acc > 0 && cases > acc, "{cases} cases, {acc} acc");
    assert!(!problems.is_empty(), "the twins disagree");
    assert!(
        problems.iter().all(|p| p.contains(".acc:")),
        "only the twins disagree: {problems:#?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Every case file a run can write, on every target (the first case of every variant of every
/// runnable op, the acc twins too, in every wave size), reads back as the file `run` wrote and
/// evaluates by the model of its target (issue 33 M1: the reader checked an op's features
/// against the generation, so gfx908's src2 and gfx942's f64 adds could not be read back).
#[test]
fn every_case_file_of_every_target_reads_back_and_evaluates() {
    let (mut files, mut unjudged) = (0usize, 0usize);
    for t in kernel_targets() {
        for wave in wave_sizes(t) {
            for op in runnable_ops_on(t) {
                let variants = corpus::variants_for(op, wave, t).len();
                for p in corpus::plan_for(op, corpus::DEFAULT_SEED, variants, wave, t) {
                    let file = CaseFile::new(p.id(0), 1, t, p.variant, p.case(0));
                    let back = CaseFile::parse(&file.to_json(), Path::new("c.json"))
                        .unwrap_or_else(|e| panic!("{t} {}: {e}", p.tag));
                    assert_eq!(back, file);
                    match ds_reference::model::execute_variant(t, &back.variant, &back.case) {
                        Ok(_) => files += 1,
                        // An op that runs unjudged (`not_modelled`) says so, and nothing else
                        // may: the unsourced transposes, and gfx1250's barrier arrives in the
                        // cases the record leaves open (ASSUMPTIONS.md C3).
                        Err(e) => {
                            let why = ds_reference::model::transpose::UNSOURCED_WHY;
                            let barrier = ds_reference::model::barrier::inferred(op).is_some();
                            assert!(e.why == why || barrier, "{t} {}: {e}", p.tag);
                            unjudged += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(files > 20_000, "{files} case files");
    assert!(unjudged > 0, "gfx950's unsourced transposes run unjudged");
}

/// A case file of one gfx9 target's own op (gfx908's src2 op, gfx942's f64 add) and one using
/// gfx950's whole 160 KiB of LDS replays on the emulated device and evaluates through the CLI.
#[test]
fn case_files_of_a_targets_own_ops_and_lds_replay_and_evaluate() {
    let dir = temp_dir("own-ops");
    let by = |n| ds_isa::target::Target::by_name(n).unwrap();
    for (t, name, lds) in [
        (by("gfx908"), "ds_add_src2_u32", None),
        (by("gfx942"), "ds_add_rtn_f64", None),
        (by("gfx950"), "ds_add_rtn_u32", Some(by("gfx950").lds_bytes)),
    ] {
        let op = ds_isa::ds::DsOp::from_name(name).unwrap();
        let p = &corpus::plan_for(op, 7, 1, wave_sizes(t)[0], t)[0];
        let (mut variant, mut case) = (p.variant, p.case(0));
        if let Some(size) = lds {
            // Every lane's address past 64 KiB: the LDS beyond what other targets have.
            variant.lds_size = size;
            let mut big = ds_reference::wave::Lds::zeroed(size);
            for (i, l) in case.wave.lanes.iter_mut().enumerate() {
                l.addr = size - 4 * (i as u32 + 1);
                big.set_word(l.addr, 0x100 + i as u32);
            }
            case.lds = big;
        }
        let path = dir.join(format!("{t}.json"));
        CaseFile::new(p.id(0), 7, t, variant, case)
            .write(&path)
            .unwrap();
        let o = common::ds_harness_no_env(&["eval", path.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{t} eval: {}", stderr(&o));
        assert!(
            stdout(&o).contains(op.mnemonic(t.generation)),
            "{}",
            stdout(&o)
        );
        let o = common::ds_harness_no_env(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
        assert_eq!(code(&o), 0, "{t} replay: {}\n{}", stdout(&o), stderr(&o));
    }
    // The LDS size is the target's own: 160 KiB is too much for gfx942.
    let o = common::ds_harness_no_env(&[
        "kernel",
        "ds_add_u32",
        "--target",
        "gfx942",
        "--lds-size",
        "163840",
        "--listing",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("65536 bytes (the LDS a gfx942 workgroup"),
        "{}",
        stderr(&o)
    );
    let o = common::ds_harness_no_env(&[
        "kernel",
        "ds_add_u32",
        "--target",
        "gfx950",
        "--lds-size",
        "163840",
        "--listing",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// `kernel --lds-size` reaches every target's own LDS limit (the target table's `lds_bytes`,
/// which `reference/tests/target_llvm.rs` holds to `llc`'s: 160 KiB on gfx950, 64 KiB elsewhere
/// and on the generic targets) and stops there: the code object declares the whole size, and 4
/// bytes more is refused naming the target's limit (exit 2).
#[test]
fn kernel_takes_each_targets_whole_lds_and_no_more() {
    let dir = temp_dir("lds-limit");
    let targets: Vec<_> = ds_isa::target::all()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .collect();
    for t in &targets {
        let co = dir.join(format!("{t}.co"));
        let max = t.lds_bytes.to_string();
        let o = common::ds_harness_no_env(&[
            "kernel",
            "ds_add_u32",
            "--target",
            t.name,
            "--lds-size",
            &max,
            "--out",
            co.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 0, "{t}: {}", stderr(&o));
        let read = ds_kernels::code_object::read(&std::fs::read(&co).unwrap()).unwrap();
        assert_eq!(
            read.kernels[0].descriptor.group_segment_fixed_size, t.lds_bytes,
            "{t}"
        );
        let over = (t.lds_bytes + 4).to_string();
        let o = common::ds_harness_no_env(&[
            "kernel",
            "ds_add_u32",
            "--target",
            t.name,
            "--lds-size",
            &over,
            "--listing",
        ]);
        assert_eq!(code(&o), 2, "{t}: {}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!(
                "--lds-size {over}: LDS size {over} is not a multiple of 4 between 4 and {max} \
                 bytes (the LDS a {t} workgroup can have)"
            )),
            "{t}: {}",
            stderr(&o)
        );
    }
    assert!(targets.iter().any(|t| t.lds_bytes > 65536));
}

/// A disagreement on a target's own op (gfx908's src2 op, through the stand-in that flips a bit
/// of every LDS dump) is shrunk, reported in the target's encoding, and its minimal case file
/// replays and evaluates.
#[test]
fn a_disagreement_on_a_targets_own_op_shrinks_and_its_case_replays() {
    let Some(lib) = standin_lib() else { return };
    let dir = temp_dir("own-op-shrink");
    let out = dir.join("out");
    let o = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            "gfx908",
            "--op",
            "ds_add_src2_u32",
            "--cases",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        &[
            ("DS_HARNESS_HIP_LIB", &lib),
            ("DS_HARNESS_HIP_SEARCH", "only-env"),
            ("DS_HIP_STANDIN_FLIP", "1"),
        ],
    );
    let text = stdout(&o);
    assert_eq!(code(&o), 1, "{text}\n{}", stderr(&o));
    assert!(text.contains("SHRUNK"), "{text}");
    assert!(!text.contains("does not encode"), "{text}");
    let min = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: ds-harness replay "))
        .and_then(|l| l.split(' ').next())
        .expect("a replay command");
    for args in [vec!["eval", min], vec!["replay", min, "--backend", "emu"]] {
        let o = common::ds_harness_no_env(&args);
        assert_eq!(code(&o), 0, "{args:?}: {}\n{}", stdout(&o), stderr(&o));
    }
}
