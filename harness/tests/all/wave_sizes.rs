//! Each target runs the wave sizes its target-table row lists, and the default run covers them
//! all: `run --wave 64` runs every runnable op in wave64 on the emulated device and all agree
//! (the exec patterns that straddle the halves among the cases); the default run of a gfx12
//! target covers wave32 and wave64; a generic target's code objects run in the wave sizes of its
//! family's processors; a size that is none is refused in words.

use crate::common::all_gfx12_ops_agree_in_wave64;
use crate::common::code;
use crate::common::ds_harness;
use crate::common::ds_harness_no_env as ds;
use crate::common::run_report;
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use ds_harness::corpus;
use ds_isa::ds::runnable_ops;
use ds_isa::ds::DsOp;
use ds_isa::gen::Generation;
use ds_isa::target::GENERIC_TARGETS;
use ds_isa::target::TARGETS;
use ds_reference::wave::WaveSize;
use serde_json::Value;

#[test]
fn run_gfx1200_wave64_on_emu_runs_every_runnable_gfx12_op_and_all_agree() {
    let (code, err, r) = run_report(
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
fn the_default_run_of_a_gfx12_target_covers_both_wave_sizes() {
    let (code, err, r) = run_report(
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
fn the_emulated_device_runs_every_op_of_a_generic_target_in_both_wave_sizes() {
    for g in GENERIC_TARGETS {
        let dir = temp_dir(g.name);
        let json = dir.join("r.json");
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                g.name,
                "--cases",
                "4",
                "--out",
                dir.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{g}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["meta"]["target"], g.name);
        // The wave sizes runs take on the family's processors.
        let member = g.members().next().unwrap();
        let waves: Vec<u64> = ds_kernels::wave_sizes(member)
            .iter()
            .map(|w| w.lanes() as u64)
            .collect();
        assert_eq!(ds_kernels::wave_sizes(g), ds_kernels::wave_sizes(member));
        assert_eq!(r["meta"]["waves"], serde_json::json!(waves), "{g}");
        let ops = ds_isa::ds::runnable_ops_on(g).count() as u64;
        assert_eq!(r["totals"]["ops"], ops, "{g}");
        assert_eq!(r["totals"]["disagree"], 0, "{g}");
        assert_eq!(r["totals"]["errors"], 0, "{g}");
        println!(
            "emu {g}: {ops} ops in wave {waves:?}, {} cases, all agree",
            r["totals"]["cases"]
        );
    }
}
