//! Every runnable op of every target agrees with the model on the emulated device through `run`
//! as a user types it: the default run without a GPU (both wave sizes of the default target, the
//! JSON, JUnit and markdown reports read back), one run per target kernels are built for (naming
//! the target; a target without kernels refused saying why), gfx1201 in both wave sizes, every
//! gfx9 target (the op count of each, `--wave 32` refused, `kernel` building for it) and gfx10's
//! targets (compare-stores and src2 ops where the target has them).

use crate::common;
use crate::common::ds_harness;
use crate::common::every_gfx12_op_agrees_in_both_waves;
use crate::common::GFX12_RUNNABLE;
use crate::text_commands::gfx9_gfx10;
use ds_isa::target::Target;
use ds_isa::target::TARGETS;

use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_harness::corpus;
use ds_isa::ds::{runnable_ops, DsOp};
use ds_isa::gen::Generation;
use serde_json::Value;

#[test]
fn run_without_a_gpu_runs_every_runnable_op_on_emu_and_all_agree() {
    let dir = temp_dir("run-all");
    let (json, junit, markdown) = (dir.join("r.json"), dir.join("r.xml"), dir.join("r.md"));
    // Half the default cases per op and wave size: the run covers wave32 and wave64 (the default
    // target has both), so it runs as many cases as a wave32-only default run.
    let per_op = corpus::DEFAULT_CASES_PER_OP as u64 / 2;
    let out = ds(&[
        "run",
        "--cases",
        &per_op.to_string(),
        "--out",
        dir.join("out").to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    let (so, se) = (stdout(&out), stderr(&out));
    assert_eq!(code(&out), 0, "{so}\n{se}");
    // auto says which device it took and why, on every run.
    let line = se
        .lines()
        .find(|l| l.starts_with("backend: "))
        .expect("backend line");
    assert!(line.contains("--backend auto: "), "{line}");
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11).collect();
    assert_eq!(ops.len(), 117);

    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["format"], 1);
    assert_eq!(r["complete"], true);
    let t = &r["totals"];
    assert_eq!(t["ops"], 117);
    assert_eq!(r["meta"]["waves"], serde_json::json!([32, 64]));
    assert_eq!(t["cases"], 2 * 117 * per_op);
    assert_eq!(t["disagree"], 0);
    assert_eq!(t["errors"], 0);
    assert_eq!(
        t["agree"].as_u64().unwrap() + t["skipped"].as_u64().unwrap(),
        2 * 117 * per_op
    );
    // A row per op and wave size, wave32 first; each variant names its wave size.
    let listed: Vec<(String, u64)> = r["ops"]
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
    let names: Vec<(String, u64)> = ops
        .iter()
        .flat_map(|o| [(o.name().to_string(), 32), (o.name().to_string(), 64)])
        .collect();
    assert_eq!(listed, names);
    for o in r["ops"].as_array().unwrap() {
        assert_eq!(o["cases"], per_op, "{}", o["op"]);
        for v in o["variants"].as_array().unwrap() {
            assert_eq!(v["wave"], o["wave"], "{}", v["tag"]);
            assert_eq!(
                v["tag"].as_str().unwrap().ends_with("-w64"),
                o["wave"] == 64
            );
        }
        assert!(o["agree"].as_u64().unwrap() > 0, "{} ran no case", o["op"]);
    }
    // The summary table has a row per op and the totals.
    assert!(so.lines().any(|l| l.starts_with("ds_add_u32 ")), "{so}");
    let row = |wave: &str| {
        so.lines()
            .any(|l| l.split_whitespace().take(2).eq(["ds_add_u32", wave]))
    };
    assert!(row("32") && row("64"), "{so}");
    assert!(so.contains("117 ops in wave32 and wave64"), "{so}");
    assert!(so.lines().any(|l| l.starts_with("total ")), "{so}");

    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2 * 117);
    assert!(suites
        .iter()
        .any(|s| s.attribute("name") == Some("ds_add_u32 wave64")));
    let variants: usize = r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["variants"].as_array().unwrap().len())
        .sum();
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(cases, variants);
    assert_eq!(root.attribute("tests"), Some(variants.to_string().as_str()));
    assert_eq!(root.attribute("failures"), Some("0"));
    assert!(!doc
        .descendants()
        .any(|n| n.has_tag_name("failure") || n.has_tag_name("error")));
    // The markdown summary: a header, one row per op, a totals row, all agreeing.
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.starts_with("**All agree** on "), "{md}");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `ds_")).collect();
    assert_eq!(rows.len(), 2 * 117, "{md}");
    assert!(md.contains("| `ds_add_u32` | 64 |"), "{md}");
    assert!(
        rows.iter()
            .all(|r| r.split('|').nth(5).unwrap().trim() == "0"),
        "{md}"
    );
    assert!(
        md.contains("| **total (117 ops)** | | 18720 | 18720 | 0 | 0 |"),
        "{md}"
    );
    // No mismatch, no case files.
    assert!(!dir.join("out").exists());
}

#[test]
fn emu_runs_every_op_on_every_target_agreeing_and_naming_the_target() {
    let dir = temp_dir("run-targets");
    // One wave size per target, its first (wave32 where it runs it; gfx9 wave64): this is about
    // targets (the default run's test covers wave64 through the CLI, tests/all/wave64_lanes.rs every gfx11
    // target in wave64); doubling it would double its time.
    let per_op = 12u64;
    for t in ds_kernels::kernel_targets() {
        let json = dir.join(format!("{t}.json"));
        let wave = ds_kernels::wave_sizes(t)[0].lanes().to_string();
        let out = ds(&[
            "run",
            "--backend",
            "emu",
            "--target",
            t.name,
            "--wave",
            &wave,
            "--cases",
            &per_op.to_string(),
            "--out",
            dir.join(t.name).to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ]);
        let (so, se) = (stdout(&out), stderr(&out));
        assert_eq!(code(&out), 0, "{t}: {so}\n{se}");
        assert!(
            se.contains(&format!("target: {t} (emulated {t} (ds-harness emu))")),
            "{se}"
        );
        assert!(so.contains(&format!("on emulated {t} ")), "{so}");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["meta"]["target"], t.name);
        assert_eq!(
            r["meta"]["device"],
            format!("emulated {t} (ds-harness emu)")
        );
        let totals = &r["totals"];
        // Every runnable op of the target: 117 on gfx11, 123 on gfx12, 116 to 147 on gfx9/gfx10.
        let ops = ds_isa::ds::runnable_ops_on(t).count() as u64;
        assert_eq!(totals["ops"], ops, "{t}");
        assert_eq!(
            r["meta"]["waves"],
            serde_json::json!([wave.parse::<u32>().unwrap()])
        );
        // Ops with AccVGPR twins (targets with ACC) run each of their cases twice.
        let twins = ds_isa::ds::runnable_ops_on(t)
            .filter(|&op| ds_reference::wave::Variant::acc_settings(op, t).contains(&true))
            .count() as u64;
        assert_eq!(totals["cases"], (ops + twins) * per_op, "{t}");
        assert_eq!(
            (totals["disagree"].as_u64(), totals["errors"].as_u64()),
            (Some(0), Some(0))
        );
        for o in r["ops"].as_array().unwrap() {
            // An op the model runs but does not judge has every case counted apart.
            let op = ds_isa::ds::DsOp::from_name(o["op"].as_str().unwrap()).unwrap();
            if ds_reference::model::judged(t, op).is_err() {
                assert_eq!(o["skipped"], o["cases"], "{t}: {op}");
                continue;
            }
            assert!(
                o["agree"].as_u64().unwrap() > 0,
                "{t}: {} ran no case",
                o["op"]
            );
        }
        println!("emu {t}: {ops} ops, {} cases, all agree", totals["cases"]);
    }
    // A target of the table kernels are not built for yet: refused as bad usage, saying why.
    for t in ds_isa::target::TARGETS {
        let Err(why) = ds_kernels::check_target(t) else {
            continue;
        };
        let out = ds(&["run", "--backend", "emu", "--target", t.name]);
        assert_eq!(code(&out), 2, "{t}");
        assert!(stderr(&out).contains(&why), "{t}: {}", stderr(&out));
    }
    let out = ds(&["run", "--backend", "emu", "--target", "gfx1115"]);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(
        e.contains("unknown target `gfx1115`") && e.contains("did you mean"),
        "{e}"
    );
}

#[test]
fn every_runnable_gfx12_op_agrees_on_the_emulated_gfx1201() {
    assert_eq!(runnable_ops(Generation::Gfx12).count(), GFX12_RUNNABLE);
    let dir = common::temp_dir("emu");
    let json = dir.join("r.json");
    let out = ds_harness(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1201",
            "--cases",
            "24",
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("on emulated gfx1201"),
        "{}",
        stdout(&out)
    );
    let v = every_gfx12_op_agrees_in_both_waves(&json, "gfx1201");
    assert_eq!(v["totals"]["cases"], (2 * GFX12_RUNNABLE * 24) as u64);
}

/// `disasm`'s contract (README, "Commands"): a word LLVM's disassembler prints but LLVM's own
/// assembler refuses for the target (a register tuple or GWS data register starting at an odd
/// register, on the targets that need even ones), or prints as if a bit the target lacks were
/// clear (`gds` on a target without GDS), is refused with the reason and exit 2; on a target
/// with the feature the same word prints. `llvm-mc-22 -disassemble` prints every refused word.
#[test]
fn disasm_refuses_the_words_llvms_assembler_would_not_write_for_the_target() {
    use ds_isa::ds::DsInst;
    use ds_isa::ds_features::DsFeatures as F;
    let llvm = common::tool("llvm-mc-22", "install Debian's llvm-22");
    let inst = |op, vdst, data0, gds| DsInst {
        op,
        vdst,
        addr: 0,
        data0,
        data1: 0,
        offset0: 0,
        offset1: 0,
        gds,
        acc: false,
    };
    let even = "needs register tuples (and GWS data) to start at an even register";
    let words = [
        (inst(DsOp::LoadB64, 1, 0, false), F::UNALIGNED, even),
        (inst(DsOp::GwsInit, 0, 1, true), F::UNALIGNED, even),
        (inst(DsOp::LoadB64, 2, 0, true), F::GDS, "has no GDS"),
    ];
    let mut refused = std::collections::BTreeSet::new();
    for t in gfx9_gfx10() {
        // The word as a target with every feature writes it.
        let free = TARGETS
            .iter()
            .find(|o| {
                o.generation == t.generation && o.ds_features.contains(F::UNALIGNED.union(F::GDS))
            })
            .unwrap();
        for (i, feature, why) in &words {
            let bytes = i.to_bytes(free).unwrap();
            let line: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
            let line = line.join(",") + "\n";
            let out = ds_harness(&["disasm", "--target", t.name], &line);
            let text = i.text(t.generation).to_string();
            if t.ds_features.contains(*feature) {
                assert_eq!(out.status.code(), Some(0), "{t} {text}: {}", stderr(&out));
                assert_eq!(stdout(&out).trim(), text, "{t}");
                continue;
            }
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{t} {text}: {}", stdout(&out));
            assert!(stdout(&out).is_empty(), "{t} {text}: nothing printed");
            assert!(
                err.contains(why)
                    && err.contains(t.name)
                    && err.contains(i.op.mnemonic(t.generation)),
                "{t} {text}: {err}"
            );
            if llvm {
                let mcpu = format!("-mcpu={t}");
                let theirs = common::run(
                    "llvm-mc-22",
                    &["-triple=amdgcn", &mcpu, "-disassemble"],
                    &line,
                );
                let theirs = stdout(&theirs);
                assert!(
                    theirs.contains(i.op.mnemonic(t.generation)),
                    "{t}: llvm-mc-22 prints `{text}`'s word: {theirs}"
                );
            }
            refused.insert(t.name);
        }
    }
    // The targets without unaligned tuples and GDS: CDNA 2 and later.
    let expected: std::collections::BTreeSet<&str> = gfx9_gfx10()
        .filter(|t| !t.ds_features.contains(F::UNALIGNED) || !t.ds_features.contains(F::GDS))
        .map(|t| t.name)
        .collect();
    assert_eq!(refused, expected);
    assert!(
        refused.contains("gfx90a") && refused.len() == 3,
        "{refused:?}"
    );
}

/// Every gfx9 target (gfx942 first) runs every runnable op of the target on the emulated device
/// in wave64 and all agree: 147 ops on gfx900-908 and the Vega APUs and Vega 12 (the src2 ops),
/// 118 on gfx90a (the f64 adds),
/// 122 on gfx942 and gfx950 (the packed 16-bit adds); `--wave 32` is refused in words; `kernel`
/// builds a compare-store and wave64 without `--wave`.
#[test]
fn gfx9_kernels_build_and_run_on_the_emulated_device() {
    let mut gfx9: Vec<&Target> = TARGETS
        .iter()
        .filter(|t| t.generation == ds_isa::ds::Generation::Gfx9)
        .collect();
    gfx9.sort_by_key(|t| t.name != "gfx942");
    assert_eq!(gfx9.len(), 10);
    let dir = common::temp_dir("gfx9-emu");
    for t in gfx9 {
        let json = dir.join(format!("{t}.json"));
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                t.name,
                "--cases",
                "16",
                "--json",
                json.to_str().unwrap(),
                "--out",
                dir.join(format!("{t}-out")).to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let ops = ds_isa::ds::runnable_ops_on(t).count();
        let want = match t.name {
            // Vega, the Vega APUs and Vega 12, CDNA 1: the src2 ops.
            "gfx900" | "gfx902" | "gfx904" | "gfx909" | "gfx90c" | "gfx906" | "gfx908" => 147,
            "gfx90a" => 118,
            // The four transpose loads (b4 and b6 run unjudged: ASSUMPTIONS.md V9).
            "gfx950" => 126,
            _ => 122,
        };
        assert_eq!(ops, want, "{t}");
        let totals = &report["totals"];
        assert_eq!(totals["ops"], ops, "{t}");
        // Where the target has AccVGPR operands, every op with data or vdst runs twice.
        let twins = ds_isa::ds::runnable_ops_on(t)
            .filter(|&op| ds_reference::wave::Variant::acc_settings(op, t).contains(&true))
            .count();
        assert_eq!(
            twins == 0,
            !t.ds_features.contains(ds_isa::ds::DsFeatures::ACC)
        );
        assert_eq!(totals["cases"], (ops + twins) * 16, "{t}");
        // Every case agrees, or the model does not judge it (gfx950's transposes: V9).
        let sum = totals["agree"].as_u64().unwrap() + totals["skipped"].as_u64().unwrap();
        assert_eq!(Some(sum), totals["cases"].as_u64(), "{t}");
        assert_eq!(totals["disagree"], 0, "{t}");
        assert_eq!(report["meta"]["waves"], serde_json::json!([64]), "{t}");
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                t.name,
                "--wave",
                "32",
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(
            stderr(&out).contains("does not run wave32"),
            "{}",
            stderr(&out)
        );
        let cmpst = dir.join(format!("{t}-cmpst.co"));
        let out = ds_harness(
            &[
                "kernel",
                "ds_cmpst_b32",
                "--target",
                t.name,
                "--out",
                cmpst.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let co = dir.join(format!("{t}.co"));
        let out = ds_harness(
            &[
                "kernel",
                "ds_add_u32",
                "--target",
                t.name,
                "--out",
                co.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let flags = ds_kernels::code_object::e_flags(t);
        let bytes = std::fs::read(&co).unwrap();
        assert_eq!(
            u32::from_le_bytes(bytes[48..52].try_into().unwrap()),
            flags,
            "{t}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// gfx10 kernels are built and run on the emulated device in both wave sizes, the compare-stores
/// (DATA0 the compare value in this generation) among them.
#[test]
fn gfx10_kernels_build_and_run_on_the_emulated_device() {
    let dir = common::temp_dir("gfx10-emu");
    for name in ["gfx1010", "gfx1030"] {
        for wave in ["32", "64"] {
            let out = ds_harness(
                &[
                    "run",
                    "--backend",
                    "emu",
                    "--target",
                    name,
                    "--wave",
                    wave,
                    "--cases",
                    "8",
                    "--op",
                    "ds_add_rtn_u32",
                    "--op",
                    "ds_read2_b64",
                    "--op",
                    "ds_bpermute_b32",
                    "--op",
                    "ds_cmpst_rtn_b32",
                ],
                "",
            );
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {wave}: {}",
                stderr(&out)
            );
        }
        let co = dir.join(format!("{name}-cmpst.co"));
        let co = co.to_str().unwrap();
        let out = ds_harness(
            &["kernel", "ds_cmpst_b32", "--target", name, "--out", co],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    }
}

/// The src2 ops run on the gfx10 targets with the src2 feature and agree with the model, in both
/// wave sizes; gfx1030, which lacks them, refuses one by name, naming the feature.
#[test]
fn src2_ops_run_where_the_target_has_them() {
    for wave in ["32", "64"] {
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                "gfx1010",
                "--wave",
                wave,
                "--cases",
                "16",
                "--op",
                "ds_add_src2_u32",
                "--op",
                "ds_max_src2_f64",
                "--op",
                "ds_write_src2_b64",
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{wave}: {}", stderr(&out));
    }
    let out = ds_harness(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1030",
            "--op",
            "ds_add_src2_u32",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs the src2 feature"),
        "{}",
        stderr(&out)
    );
}
