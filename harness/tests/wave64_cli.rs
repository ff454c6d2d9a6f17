//! `--wave` on `run`, `replay`, `kernel` and `doc` as a user types them: a wave64 run of every
//! runnable op on the emulated device agrees and says so per row; the wave64 kernel a user asks
//! for is a wave64 code object; a wave64 case file replays, a wave32 one replays in wave64, and
//! what cannot run in the size asked for is refused with exit 2.

mod common;

use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_isa::ds::{runnable_ops, DsOp, Generation};
use ds_isa::target::{DEFAULT, TARGETS};
use ds_kernels::code_object;
use ds_reference::wave::WaveSize;
use serde_json::Value;

#[test]
fn run_wave_64_runs_every_runnable_op_in_wave64_on_emu_and_all_agree() {
    let dir = temp_dir("w64-run");
    let json = dir.join("r.json");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--wave",
        "64",
        "--cases",
        "40",
        "--out",
        dir.join("out").to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let (so, se) = (stdout(&out), stderr(&out));
    assert_eq!(code(&out), 0, "{so}\n{se}");
    assert!(
        se.contains("waves: wave64 (40 cases per op in each)"),
        "{se}"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ops = runnable_ops(Generation::Gfx11).count() as u64;
    assert_eq!(r["meta"]["waves"], serde_json::json!([64]));
    assert_eq!(r["totals"]["ops"], ops);
    assert_eq!(r["totals"]["cases"], ops * 40);
    assert_eq!(r["totals"]["disagree"], 0);
    assert_eq!(r["totals"]["errors"], 0);
    for o in r["ops"].as_array().unwrap() {
        assert_eq!(o["wave"], 64, "{}", o["op"]);
        assert!(o["agree"].as_u64().unwrap() > 0, "{} ran no case", o["op"]);
    }
    // The exec patterns that straddle the halves are in the run.
    let plan = corpus::plan_in(
        DsOp::BpermuteB32,
        corpus::DEFAULT_SEED,
        40,
        WaveSize::Wave64,
    );
    let ids: Vec<String> = plan
        .iter()
        .flat_map(|p| (0..p.count).map(|i| p.id(i)))
        .collect();
    for pattern in ["exec-upper", "exec-31-32"] {
        assert!(
            ids.iter().any(|id| id.contains(pattern)),
            "{pattern}: {ids:?}"
        );
    }
}

#[test]
fn every_target_runs_the_wave_sizes_of_its_row_and_a_size_that_is_none_is_refused() {
    // Both generations' kernels are built and run in every wave size the table lists (the
    // model asks the target's generation for its wave64 rules).
    for t in TARGETS {
        let listed: Vec<usize> = t.wave_sizes.iter().map(|&n| n as usize).collect();
        let built: Vec<usize> = ds_kernels::wave_sizes(t)
            .iter()
            .map(|w| w.lanes())
            .collect();
        assert_eq!(built, listed, "{t}");
    }
    let out = ds(&["run", "--backend", "emu", "--wave", "48"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`48` is not a wave size: use 32 or 64"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn kernel_wave_64_writes_a_wave64_code_object() {
    let dir = temp_dir("w64-kernel");
    let file = dir.join("k.co");
    let out = ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--wave",
        "64",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let co = code_object::read(&std::fs::read(&file).unwrap()).unwrap();
    let k = &co.kernels[0];
    assert!(k.name.ends_with("_w64"), "{}", k.name);
    assert_eq!(k.descriptor.wave_size(), WaveSize::Wave64);
    let listing = stdout(&ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--wave",
        "64",
        "--listing",
    ]));
    assert!(listing.contains("s_mov_b64 exec, -1"), "{listing}");
    let listing32 = stdout(&ds(&["kernel", "ds_bpermute_b32", "--listing"]));
    assert!(!listing32.contains("s_mov_b64 exec"), "{listing32}");
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

#[test]
fn doc_wave_64_shows_what_differs_for_the_op() {
    let out = ds(&["doc", "ds_bpermute_b32", "--wave", "64"]);
    let so = stdout(&out);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(so.contains("What differs from wave32"), "{so}");
    assert!(so.contains("W1."), "{so}");
    assert!(so.contains("case w64_index_32_to_63"), "{so}");
    let out = ds(&["doc", "ds_load_b32", "--wave", "64"]);
    assert!(
        stdout(&out).contains("nothing wave-size-dependent"),
        "{}",
        stdout(&out)
    );
}
