//! The text commands for the gfx9 and gfx10 targets: `list`, `doc`, `asm` and `disasm --target`
//! speak each target's DS instructions in the generation's spelling, with the ops the target
//! has; `kernel` and `run --backend emu` build and run their kernels.

mod common;

use common::{ds_harness, stderr, stdout};
use ds_isa::ds::doc::example;
use ds_isa::ds::DsOp;
use ds_isa::target::{Target, TARGETS};

fn gfx9_gfx10() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().filter(|t| t.generation.gfx9_mnemonics())
}

#[test]
fn list_shows_each_targets_ops_in_the_gfx9_spelling() {
    for t in gfx9_gfx10() {
        let out = ds_harness(&["list", "--target", t.name], "");
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let text = stdout(&out);
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("0x")).collect();
        let ops: Vec<DsOp> = DsOp::all_on(t).collect();
        assert_eq!(rows.len(), ops.len(), "{t}");
        for op in ops {
            let name = op.mnemonic(t.generation);
            assert!(
                rows.iter()
                    .any(|r| r.split_whitespace().nth(1) == Some(name)),
                "{t}: {name}"
            );
        }
        assert!(!rows.iter().any(|r| r.contains(" ds_store_b32 ")), "{t}");
        let md = stdout(&ds_harness(&["list", "--markdown", "--target", t.name], ""));
        assert!(md.starts_with(&format!("# {t} DS instructions")), "{t}");
    }
}

/// Every op of a Vega, a CDNA 4 and an RDNA 2 target has a card with the target's encoding; an
/// op the target lacks is refused, naming the targets that have it (exit 2).
#[test]
fn doc_cards_name_the_targets_encoding_and_refuse_ops_it_lacks() {
    for name in ["gfx900", "gfx950", "gfx1030"] {
        let t = Target::by_name(name).unwrap();
        for op in DsOp::all(t.generation) {
            let spelled = op.mnemonic(t.generation);
            let out = ds_harness(&["doc", spelled, "--target", name], "");
            if !op.info().on(t) {
                assert_eq!(out.status.code(), Some(2), "{t} {spelled}");
                assert!(
                    stderr(&out).contains("the targets that have it"),
                    "{}",
                    stderr(&out)
                );
                continue;
            }
            assert_eq!(
                out.status.code(),
                Some(0),
                "{t} {spelled}: {}",
                stderr(&out)
            );
            let ex = example(t, op);
            let bytes = ex.to_bytes(t).unwrap();
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let line = format!(
                "On {t} ({}): spelled {spelled}, opcode {:#04x}",
                t.generation,
                op.opcode(t.generation).unwrap()
            );
            let text = stdout(&out);
            assert!(text.contains(&line), "{t} {spelled}:\n{text}");
            assert!(text.contains(&hex.join(" ")), "{t} {spelled}");
        }
    }
}

/// asm and disasm round-trip every op's example on every gfx9 and gfx10 target (AccVGPR forms
/// where the target has them); llvm_mc_spellings_gfx9_gfx10.rs compares them with llvm-mc.
#[test]
fn asm_and_disasm_round_trip_every_example_on_every_target() {
    for t in gfx9_gfx10() {
        let mut texts = Vec::new();
        for op in DsOp::all_on(t) {
            let ex = example(t, op);
            texts.push(ex.text(t.generation).to_string());
            let acc = ds_isa::ds::DsInst { acc: true, ..ex };
            if acc.to_bytes(t).is_ok() {
                texts.push(acc.text(t.generation).to_string());
            }
        }
        let input: String = texts.iter().map(|l| format!("{l}\n")).collect();
        let out = ds_harness(&["asm", "--target", t.name], &input);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
        assert_eq!(lines.len(), texts.len());
        let words: String = lines
            .iter()
            .map(|l| {
                l.split_once("encoding: [")
                    .unwrap()
                    .1
                    .trim_end_matches(']')
                    .to_string()
                    + "\n"
            })
            .collect();
        let back = ds_harness(&["disasm", "--target", t.name], &words);
        assert_eq!(back.status.code(), Some(0), "{t}: {}", stderr(&back));
        let back: Vec<String> = stdout(&back)
            .lines()
            .map(|l| l.trim().to_string())
            .collect();
        assert_eq!(back, texts, "{t}");
    }
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
        // The code object goes to this test's own temporary file, never into the work tree.
        let co =
            std::env::temp_dir().join(format!("ds-cmpst-kernel-{}-{name}.co", std::process::id()));
        let co_arg = co.to_str().expect("utf-8 temp path");
        let out = ds_harness(
            &["kernel", "ds_cmpst_b32", "--target", name, "--out", co_arg],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(
            co.metadata().is_ok_and(|m| m.len() > 0),
            "{name}: no code object"
        );
        let _ = std::fs::remove_file(&co);
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
