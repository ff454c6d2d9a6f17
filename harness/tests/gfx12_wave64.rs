//! RDNA4 in wave64 end to end, as a user types it: `run --target gfx1200 --wave 64` runs every
//! runnable gfx12 op on the emulated device, through `serve-device --backend emu --target gfx1200`
//! and on the stand-in's gfx1201 device, and all agree; the default run of a gfx12 target covers
//! both wave sizes; `kernel` writes a gfx12 wave64 code object; and a case file's target decides
//! the rules `eval` and `replay` use: the same wave64 bpermute case (lane 0 naming index 40) gives
//! gfx1100's answer (lane 8, within its half) and gfx1200's (lane 40, over the whole wave).

mod common;

use common::{
    code, ds_harness_env, ds_harness_no_env as ds, standin_lib, stderr, stdout, temp_dir,
};
use ds_harness::case::CaseFile;
use ds_isa::ds::{runnable_ops, DsOp, Generation};
use ds_isa::target::Target;
use ds_kernels::code_object;
use ds_reference::wave::{Case, FpMode, Lds, Variant, Wave, WaveSize};
use serde_json::Value;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");
const RUNNABLE: usize = 123;

fn target(name: &str) -> &'static Target {
    Target::by_name(name).unwrap()
}

/// `run ARGS --json F --out D`: exit code, stderr and the results.
fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, Value) {
    let dir = temp_dir(name);
    let json = dir.join("r.json");
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    let (j, o) = (json.to_str().unwrap(), dir.join("out"));
    all.extend_from_slice(&["--json", j, "--out", o.to_str().unwrap()]);
    let started = Instant::now();
    let out = ds_harness_env(&all, env);
    let r: Value = std::fs::read(&json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    eprintln!(
        "{name}: {} cases in {:.2} s",
        r["totals"]["cases"],
        started.elapsed().as_secs_f64()
    );
    (code(&out), stderr(&out), r)
}

/// Every runnable gfx12 op has one wave64 row, in table order, and every row agrees.
fn all_gfx12_ops_agree_in_wave64(r: &Value, target: &str, cases: u64) {
    assert_eq!(r["meta"]["target"], target);
    assert_eq!(r["meta"]["waves"], serde_json::json!([64]));
    assert_eq!(r["totals"]["disagree"], 0, "{}", r["totals"]);
    assert_eq!(r["totals"]["errors"], 0, "{}", r["totals"]);
    let want: Vec<&str> = runnable_ops(Generation::Gfx12).map(|o| o.name()).collect();
    assert_eq!(want.len(), RUNNABLE);
    let rows = r["ops"].as_array().unwrap();
    let got: Vec<&str> = rows.iter().map(|o| o["op"].as_str().unwrap()).collect();
    assert_eq!(got, want);
    for o in rows {
        assert_eq!(o["wave"], 64, "{}", o["op"]);
        assert_eq!(o["agree"], cases, "{}", o["op"]);
    }
    assert_eq!(r["totals"]["cases"], RUNNABLE as u64 * cases);
}

#[test]
fn run_gfx1200_wave64_on_emu_runs_every_runnable_gfx12_op_and_all_agree() {
    let (code, err, r) = run(
        "g12w64-emu",
        &[
            "--backend",
            "emu",
            "--target",
            "gfx1200",
            "--wave",
            "64",
            "--cases",
            "40",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("waves: wave64 (40 cases per op in each)"),
        "{err}"
    );
    all_gfx12_ops_agree_in_wave64(&r, "gfx1200", 40);
}

#[test]
fn run_gfx1200_wave64_through_serve_device_agrees_on_every_op() {
    let cmd = format!("'{BIN}' serve-device --backend emu --target gfx1200");
    let (code, err, r) = run(
        "g12w64-exec",
        &[
            "--backend",
            "exec",
            "--device-cmd",
            &cmd,
            "--target",
            "gfx1200",
            "--wave",
            "64",
            "--cases",
            "16",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(r["meta"]["backend"], "exec");
    all_gfx12_ops_agree_in_wave64(&r, "gfx1200", 16);
}

#[test]
fn the_standins_gfx1201_device_runs_every_gfx12_op_in_wave64_and_all_agree() {
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    let (code, err, r) = run(
        "g12w64-standin",
        &[
            "--backend",
            "hip",
            "--target",
            "gfx1201",
            "--wave",
            "64",
            "--cases",
            "8",
        ],
        &env,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("stand-in HIP device (emulated gfx1201"),
        "{err}"
    );
    all_gfx12_ops_agree_in_wave64(&r, "gfx1201", 8);
}

#[test]
fn the_default_run_of_a_gfx12_target_covers_both_wave_sizes() {
    let (code, err, r) = run(
        "g12-both",
        &[
            "--backend",
            "emu",
            "--target",
            "gfx1201",
            "--op",
            "ds_bpermute_b32",
            "--op",
            "ds_permute_b32",
            "--cases",
            "24",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("waves: wave32 and wave64"), "{err}");
    assert_eq!(r["meta"]["waves"], serde_json::json!([32, 64]));
    let rows: Vec<(String, u64)> = r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["op"].as_str().unwrap().to_string(),
                o["wave"].as_u64().unwrap(),
            )
        })
        .collect();
    for op in ["ds_permute_b32", "ds_bpermute_b32"] {
        for wave in [32, 64] {
            assert!(rows.contains(&(op.to_string(), wave)), "{rows:?}");
        }
    }
    assert_eq!(r["totals"]["disagree"], 0);
}

#[test]
fn kernel_target_gfx1200_wave_64_writes_a_gfx12_wave64_code_object() {
    let dir = temp_dir("g12w64-kernel");
    let file = dir.join("k.co");
    let out = ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--target",
        "gfx1200",
        "--wave",
        "64",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let co = code_object::read(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(co.target, target("gfx1200"));
    assert_eq!(co.kernels[0].descriptor.wave_size(), WaveSize::Wave64);
    assert!(
        co.kernels[0].name.ends_with("_w64"),
        "{}",
        co.kernels[0].name
    );
}

/// A wave64 `ds_bpermute_b32` case whose lane 0 names index 40 (lane 40's DATA0 is 0x1028,
/// lane 8's 0x1008), every lane active.
fn index_40_case(t: &'static Target) -> CaseFile {
    let variant = Variant {
        op: DsOp::BpermuteB32,
        offset0: 0,
        offset1: 0,
        lds_size: 256,
        mode: FpMode::default(),
        wave: WaveSize::Wave64,
        regs: None,
        acc: false,
    };
    let mut wave = Wave::new(WaveSize::Wave64);
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 4 * i as u32;
        l.data0[0] = 0x1000 + i as u32;
        l.vdst = [0xdead_beef; 4];
    }
    wave.lanes[0].addr = 4 * 40;
    let case = Case {
        lds: Lds::zeroed(256),
        wave,
    };
    CaseFile::new("bpermute.index40", 0, t, variant, case)
}

/// Lane 0's vdst[0] in `eval`'s JSON.
fn eval_lane0(path: &std::path::Path) -> (u64, Value) {
    let out = ds(&["eval", path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    (v["outcome"]["vdst"][0][0].as_u64().unwrap(), v)
}

#[test]
fn a_case_files_target_decides_the_rules_of_eval_and_replay() {
    let dir = temp_dir("g12w64-rules");
    let (g11, g12) = (target("gfx1100"), target("gfx1200"));
    let (p11, p12) = (dir.join("gfx1100.json"), dir.join("gfx1200.json"));
    index_40_case(g11).write(&p11).unwrap();
    index_40_case(g12).write(&p12).unwrap();
    // eval: gfx1100 reads within lane 0's half (index 40 & 31 = lane 8), gfx1200 the whole wave.
    let (a, va) = eval_lane0(&p11);
    let (b, vb) = eval_lane0(&p12);
    assert_eq!((a, b), (0x1008, 0x1028));
    assert_eq!(
        (va["target"].as_str(), vb["target"].as_str()),
        (Some("gfx1100"), Some("gfx1200"))
    );
    // replay: each file on the emulated device of its target agrees, the model on its rules.
    for (p, t) in [(&p11, g11), (&p12, g12)] {
        let out = ds(&["replay", p.to_str().unwrap(), "--backend", "emu"]);
        assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
        assert!(
            stderr(&out).contains(&format!("model: {t}'s rules")),
            "{}",
            stderr(&out)
        );
    }
    // The gfx1100 file replayed on a gfx1200 device: the model takes the device's target's rules.
    let out = ds(&[
        "replay",
        p11.to_str().unwrap(),
        "--backend",
        "emu",
        "--target",
        "gfx1200",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("model: gfx1200's rules"),
        "{}",
        stderr(&out)
    );
    // The doc card of the op on each target says which reading applies.
    for (t, says) in [
        (g11, "within each 32-lane half"),
        (g12, "over the whole wave64"),
    ] {
        let out = ds(&["doc", "ds_bpermute_b32", "--target", t.name, "--wave", "64"]);
        assert!(stdout(&out).contains(says), "{t}: {}", stdout(&out));
    }
}

/// A case file of a gfx12-only op on a gfx12 target reads, evaluates and replays (its offsets are
/// checked in its target's generation), in wave64 as in wave32.
#[test]
fn a_gfx12_case_file_of_a_gfx12_only_op_evaluates_and_replays_in_wave64() {
    let dir = temp_dir("g12w64-own-op");
    let t = target("gfx1200");
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

/// `kernel` and `doc` in wave64 for every runnable gfx12 op on both gfx12 targets (through the
/// library the commands call): each op gets a wave64 gfx12 kernel and a wave64 card by its
/// target's rules, with examples the model computes.
#[test]
fn every_runnable_gfx12_op_has_a_wave64_kernel_and_card_on_each_gfx12_target() {
    use ds_kernels::generator::generate_for;
    let mut n = 0;
    for t in Generation::Gfx12.targets() {
        for op in runnable_ops(t.generation) {
            let (_, v, _) = ds_reference::model::snapshot::snapshot_corpus_wave64(op)
                .into_iter()
                .next()
                .expect("a wave64 case");
            let k = generate_for(t, &v).unwrap_or_else(|e| panic!("{t} {op}: {e}"));
            assert_eq!(k.descriptor.wave_size(), WaveSize::Wave64, "{t} {op}");
            let card = ds_harness::doc::card_in(op, t, &[], WaveSize::Wave64);
            assert!(
                card.starts_with(&format!("{op} in wave64 on {t}")),
                "{card}"
            );
            assert!(!card.contains("Examples: none"), "{t} {op}: {card}");
            n += 1;
        }
    }
    assert_eq!(n, 2 * RUNNABLE);
}
