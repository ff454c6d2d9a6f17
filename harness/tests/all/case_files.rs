//! Case files, the failing case always on disk with its replay command: `eval` prints the model's
//! outcome of one and `replay` runs it on a device, on the target the file names (another with
//! `--target`), in its wave size (a wave32 case in wave64 with `--wave 64`); every target's case
//! files, its own ops' and LDS sizes' among them, read back and evaluate; and a case file is
//! strict (a malformed one, a word given twice, an unknown field at any depth, an impossible LDS
//! size are refused naming line and column or the field).

use crate::common;
use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use crate::common::refused;
use crate::common::results;
use crate::common::s;
use crate::common::sample_case_json;
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use crate::common::write_case;
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_isa::ds::runnable_ops_on;
use ds_isa::ds::DsOp;
use ds_isa::gen::Generation;
use ds_isa::target::Target;
use ds_isa::target::DEFAULT;
use ds_kernels::kernel_targets;
use ds_kernels::wave_sizes;
use ds_reference::wave::WaveSize;
use serde_json::Value;
use std::path::Path;

#[test]
fn a_malformed_case_file_is_a_usage_error_naming_line_and_column() {
    let dir = temp_dir("bad-case");
    let path = dir.join("bad.json");
    std::fs::write(&path, "{\n  \"format\": 1,\n  \"id\": oops\n}\n").unwrap();
    for cmd in ["eval", "replay"] {
        let out = ds(&[cmd, path.to_str().unwrap()]);
        assert_eq!(code(&out), 2, "{cmd}");
        let e = stderr(&out);
        assert!(e.contains(&format!("{}:3:", path.display())), "{cmd}: {e}");
        assert!(e.contains("docs/case-format.md"), "{e}");
    }
    let out = ds(&["eval", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cannot read case file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn eval_prints_the_model_outcome_and_replay_agrees_on_emu() {
    let dir = temp_dir("eval-replay");
    let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
    let vc = &corpus::for_op(op, 1, 9)[1];
    let gc = &vc.cases[0];
    let file = CaseFile::new(
        &gc.id,
        1,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    );
    let path = dir.join("case.json");
    file.write(&path).unwrap();

    let out = ds(&["eval", path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let want = ds_reference::model::execute(DEFAULT, &vc.variant.inst(), vc.variant.mode, &gc.case)
        .unwrap();
    assert_eq!(v["outcome"], serde_json::to_value(&want).unwrap());
    assert_eq!(v["id"], gc.id.as_str());

    let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
    let so = stdout(&out);
    assert_eq!(code(&out), 0, "{so}\n{}", stderr(&out));
    assert!(so.contains("AGREE"), "{so}");
    let shown = ds_kernels::generator::test_inst(Generation::Gfx11, &vc.variant)
        .unwrap()
        .text(Generation::Gfx11)
        .to_string();
    assert!(so.contains(&shown), "{so}");
}

#[test]
fn a_case_file_names_its_target_and_replays_on_it() {
    let t = ds_isa::target::Target::by_name("gfx1151").unwrap();
    let dir = temp_dir("replay-target");
    let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
    let vc = &corpus::for_op(op, 1, 9)[1];
    let gc = &vc.cases[0];
    let path = dir.join("case.json");
    CaseFile::new(&gc.id, 1, t, vc.variant, gc.case.clone())
        .write(&path)
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"target\": \"gfx1151\""), "{text}");
    let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("target: gfx1151 (the case file names gfx1151)"),
        "{}",
        stderr(&out)
    );
    // --target runs it on another target of the generation.
    let out = ds(&[
        "replay",
        path.to_str().unwrap(),
        "--backend",
        "emu",
        "--target",
        "gfx1102",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("target: gfx1102 (the case file names gfx1151)"));
}

/// A case file of a gfx12-only op on a gfx12 target reads, evaluates and replays (its offsets are
/// checked in its target's generation), in wave64 as in wave32.
#[test]
fn a_gfx12_case_file_of_a_gfx12_only_op_evaluates_and_replays_in_wave64() {
    let dir = temp_dir("g12w64-own-op");
    let t = Target::by_name("gfx1200").unwrap();
    let op = DsOp::from_name_in(t.generation, "ds_cond_sub_rtn_u32").unwrap();
    assert!(!op.info().in_generation(Generation::Gfx11));
    for (name, v, c) in ds_reference::model::snapshot::snapshot_corpus_wave64(op)
        .into_iter()
        .take(2)
    {
        let path = dir.join(format!("{}.json", name.replace('/', "_")));
        let mut file = CaseFile::new(&name, 0, t, v, c);
        file.case.lds.set_word(0, 7);
        file.write(&path).unwrap();
        let out = ds(&["eval", path.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{name}: {}", stderr(&out));
        let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
        assert_eq!(code(&out), 0, "{name}: {}\n{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    }
}

#[test]
fn wave64_case_files_replay_and_wave32_ones_replay_in_wave64() {
    let dir = temp_dir("w64-replay");
    // A wave64 case of the run's corpus, as a case file.
    let plan = &corpus::plan_in(DsOp::BpermuteB32, 7, 8, WaveSize::Wave64)[0];
    let case = plan.case(0);
    assert_eq!(case.wave.lanes.len(), 64);
    let path = dir.join("w64.json");
    CaseFile::new(plan.id(0), 7, DEFAULT, plan.variant, case)
        .write(&path)
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"wave\": 64"), "{text}");
    let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    // The same file in wave32: refused when an upper lane is active, in words.
    if plan.case(0).wave.exec >> 32 != 0 {
        let out = ds(&[
            "replay",
            path.to_str().unwrap(),
            "--backend",
            "emu",
            "--wave",
            "32",
        ]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot run in wave32"),
            "{}",
            stderr(&out)
        );
    }
    // A wave32 case replayed in wave64: lanes 32..63 added inactive.
    let plan32 = &corpus::plan(DsOp::BpermuteB32, 7, 8)[0];
    let p32 = dir.join("w32.json");
    CaseFile::new(plan32.id(1), 7, DEFAULT, plan32.variant, plan32.case(1))
        .write(&p32)
        .unwrap();
    let out = ds(&[
        "replay",
        p32.to_str().unwrap(),
        "--backend",
        "emu",
        "--wave",
        "64",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("replaying the wave32 case in wave64"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
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
/// which `reference/tests/all/target_table_llvm.rs` holds to `llc`'s: 160 KiB on gfx950, 64 KiB elsewhere
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
