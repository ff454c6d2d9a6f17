//! The text commands run as a user would: `asm`, `disasm` and `list` on stdin, compared with each
//! installed oracle llvm-mc's (19 and 22) output for the same input (`-show-encoding`;
//! `-disassemble`; `asm` and `disasm` print as LLVM 19 does, LLVM 22 differing only in its
//! swizzle macros from offset 0xC000, `common::llvm::printed_by`); every target's DS instructions
//! in its generation's spelling (gfx9 and gfx10 examples round-trip, gfx12 refuses the other
//! generations' ops and `gds` in words); `info` and `--help` name every target and generation;
//! bad lines are reported by number, briefly, and the rest is read.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use ds_isa::ds::doc::example;
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_isa::target::TARGETS;

use common::llvm::{installed, line_printed_by, Llvm};
use common::{ds_harness, run, stderr, stdout};
use ds_isa::gen::Generation;

const GFX1100: [&str; 2] = ["-arch=amdgcn", "-mcpu=gfx1100"];

/// A program in LLVM syntax with comments, blank lines, legacy names, hex offsets and swizzles.
const PROGRAM: &str = "\
; a comment line
ds_load_b32 v1, v2 offset:16
ds_store_b32 v1, v2 offset:0xffff gds   // trailing comment

ds_write2st64_b64 v255, v[0:1], v[254:255] offset0:1 offset1:255
ds_read_u16_d16_hi v7, v8
ds_cmpstore_rtn_b64 v[0:1], v2, v[4:5], v[6:7] offset:256
ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"01pi0\")
ds_swizzle_b32 v1, v2 offset:0xe003
ds_gws_init v9 offset:4 gds
ds_bvh_stack_rtn_b32 v1, v2, v3, v[252:255] offset:65535
ds_nop
DS_LOAD_B128 v[252:255] v0
";

/// llvm-mc's instruction lines: its stdout without the leading `\t.text` line and without the
/// empty lines it echoes for blank input lines (`asm` prints one line per instruction).
fn llvm_lines(llvm: &Llvm, args: &[&str], input: &str) -> String {
    let mut all = GFX1100.to_vec();
    all.extend_from_slice(args);
    let out = run(llvm.mc().to_str().unwrap(), &all, input);
    assert!(out.status.success(), "llvm-mc: {}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.trim() != ".text" && !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Our output as release `major` prints it (the documented swizzle difference applied).
fn as_printed_by(major: u32, ours: &str) -> String {
    ours.lines()
        .map(|l| {
            let l = if l.contains("; encoding: ") {
                line_printed_by(major, l)
            } else {
                format!(
                    "\t{}",
                    common::llvm::printed_by(major, l.trim_start_matches('\t'))
                )
            };
            l + "\n"
        })
        .collect()
}

#[test]
fn asm_prints_exactly_what_llvm_mc_prints() {
    let ours = ds_harness(&["asm"], PROGRAM);
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    for llvm in installed() {
        let theirs = llvm_lines(&llvm, &["-show-encoding"], PROGRAM);
        assert_eq!(
            as_printed_by(llvm.major, &stdout(&ours)),
            theirs,
            "{}",
            llvm.label()
        );
        assert_eq!(
            theirs.lines().count(),
            11,
            "every instruction line printed once"
        );
        let differ = stdout(&ours)
            .lines()
            .zip(theirs.lines())
            .filter(|(o, t)| o != t)
            .count();
        assert_eq!(
            differ,
            if llvm.major >= 22 { 1 } else { 0 },
            "{}",
            llvm.label()
        );
        println!(
            "{}: asm agrees ({differ} line differs only by the swizzle macro)",
            llvm.label()
        );
    }
}

#[test]
fn asm_reports_a_bad_line_by_number_and_still_prints_the_rest() {
    let input = "ds_load_b32 v1, v2\nds_load_b32 v1, v2 offset:65536\n\nds_permute_b32 v1, v2, v3 gds\nds_store_b32 v1, v2\n";
    let out = ds_harness(&["asm"], input);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("<stdin>:2:") && err.contains("offset:65536 is too large"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:4:") && err.contains("cannot address GDS"),
        "{err}"
    );
    assert!(
        !err.contains("<stdin>:1:") && !err.contains("<stdin>:5:"),
        "{err}"
    );
    let printed = stdout(&out);
    assert_eq!(printed.lines().count(), 2, "{printed}");
    for llvm in installed() {
        let good = "ds_load_b32 v1, v2\nds_store_b32 v1, v2\n";
        assert_eq!(printed, llvm_lines(&llvm, &["-show-encoding"], good));
    }
}

/// Bytes in llvm-mc's input form: commas or spaces, one or two instructions per line.
const BYTES: &str = "\
0x00,0x00,0xd8,0xd8,0x02,0x00,0x00,0x01
0x10 0x00 0x36 0xd8 0x01 0x02 0x00 0x00
0xff,0xff,0x02,0xd8,0xff,0xff,0x00,0x00, 0x00,0x00,0x50,0xd8,0x00,0x00,0x00,0x00
0x1b,0x80,0xd4,0xd8,0x02,0x00,0x00,0x01
0x03,0xe0,0xd4,0xd8,0x02,0x00,0x00,0x01
0x04,0x00,0x66,0xd8,0x09,0x00,0x00,0x00
0x01,0xff,0x3c,0xd9,0xff,0x00,0xfe,0x00
";

#[test]
fn disasm_prints_exactly_what_llvm_mc_prints() {
    let ours = ds_harness(&["disasm"], BYTES);
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    for llvm in installed() {
        let theirs = llvm_lines(&llvm, &["-disassemble"], BYTES);
        assert_eq!(
            as_printed_by(llvm.major, &stdout(&ours)),
            theirs,
            "{}",
            llvm.label()
        );
        assert_eq!(theirs.lines().count(), 8);
        println!("{}: disasm agrees", llvm.label());
    }
}

#[test]
fn disasm_reports_an_undecodable_line_and_still_prints_the_rest() {
    let input = "0x00,0x00,0xd8,0xd8,0x02,0x00,0x00,0x01\n0x00,0x00,0xd8,0xd8,0x02,0x07,0x00,0x01\n0x00,0x00,0xd8\n0x00,0x00,0x34,0xd8,0x01,0x02,0x00,0x00\n";
    let out = ds_harness(&["disasm"], input);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("<stdin>:2:") && err.contains("does not use the data0 field"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:3:") && err.contains("3 byte(s)"),
        "{err}"
    );
    assert_eq!(
        stdout(&out),
        "\tds_load_b32 v1, v2\n\tds_store_b32 v1, v2\n"
    );
}

#[test]
fn list_json_has_every_row_of_the_table() {
    let out = ds_harness(&["list", "--json"], "");
    assert_eq!(out.status.code(), Some(0));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
    let rows = rows.as_array().expect("an array of rows");
    assert_eq!(rows.len(), 126);
    assert_eq!(rows[0]["name"], "ds_add_u32");
    assert!(rows
        .iter()
        .all(|r| r["opcodes"]["gfx11"].is_u64() && r["operands"]["vdst"].is_u64()));
    assert_eq!(
        rows[0]["opcodes"]["gfx12"], 0,
        "ds_add_u32 is a gfx12 op too"
    );
    assert_eq!(rows[0]["oracle"], "Llvm19");
    let names: std::collections::HashSet<&str> = rows
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 126, "names are unique");
}

#[test]
fn list_markdown_is_the_table_docs() {
    let out = ds_harness(&["list", "--markdown"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), ds_isa::ds::render_markdown(Generation::Gfx11));
    let plain = stdout(&ds_harness(&["list"], ""));
    // The wave64 column: the questions that apply, or `same`.
    let row = |op: &str| {
        plain
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(op))
            .unwrap()
            .to_string()
    };
    assert!(
        row("ds_bpermute_b32").ends_with(" W1"),
        "{}",
        row("ds_bpermute_b32")
    );
    assert!(
        row("ds_load_b32").ends_with(" same"),
        "{}",
        row("ds_load_b32")
    );
    assert!(row("ds_gws_init").ends_with(" -"), "{}", row("ds_gws_init"));
    assert_eq!(
        plain.lines().count(),
        130,
        "header, 126 rows, summary, the wave64 column's key, generation"
    );
}

#[test]
fn list_and_the_text_tools_take_every_target_and_refuse_unknown_ones() {
    use ds_isa::target::{DEFAULT, TARGETS};
    let default_list = stdout(&ds_harness(&["list"], ""));
    // (gfx9 and gfx10 spell the load by its gfx9 name.)
    let input = |t: &ds_isa::target::Target| {
        let load = ds_isa::ds::DsOp::LoadB32.mnemonic(t.generation);
        format!("ds_add_u32 v1, v2\n{load} v1, v2 offset:8\n")
    };
    // Everything but the last line (which names the target).
    let body = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[..lines.len() - 1].join("\n")
    };
    let mut by_generation = std::collections::HashMap::new();
    for t in TARGETS {
        let out = ds_harness(&["list", "--target", t.name], "");
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        let last = text.lines().last().unwrap();
        assert!(last.contains(&format!("for {t}")), "{last}");
        for other in TARGETS.iter().filter(|o| o.generation == t.generation) {
            assert!(last.contains(other.name), "{last}");
        }
        let asm = ds_harness(&["asm", "--target", t.name], &input(t));
        assert_eq!(asm.status.code(), Some(0), "{t}");
        // The same generation and DS features, the same table and encodings.
        let (list0, asm0) = by_generation
            .entry((t.generation, t.ds_features))
            .or_insert_with(|| (body(&text), stdout(&asm)));
        assert_eq!(&body(&text), list0, "{t}");
        assert_eq!(&stdout(&asm), asm0, "{t}");
    }
    let default_key = (DEFAULT.generation, DEFAULT.ds_features);
    assert_eq!(by_generation[&default_key].0, body(&default_list));
    // Another generation (or another kind of target) lists another table.
    for (g, (list, _)) in &by_generation {
        if *g != default_key {
            assert_ne!(list, &body(&default_list), "{g:?}");
        }
    }
    assert!(default_list
        .lines()
        .last()
        .unwrap()
        .contains(&format!("for {DEFAULT}")));
    for cmd in [&["list"][..], &["asm"], &["disasm"], &["doc", "ds_add_u32"]] {
        let mut args = cmd.to_vec();
        args.extend(["--target", "gfx1151x"]);
        let out = ds_harness(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("unknown target `gfx1151x`") && err.contains("did you mean gfx1151"),
            "{args:?}: {err}"
        );
        for t in TARGETS {
            assert!(err.contains(t.name), "{args:?}: {err}");
        }
    }
}

#[test]
fn info_lists_every_target_with_its_products_and_kernel_support() {
    let out = ds_harness(&["info"], "");
    let text = stdout(&out);
    for t in ds_isa::target::TARGETS {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", t.name)))
            .unwrap_or_else(|| panic!("no line for {t}:\n{text}"));
        assert!(
            line.contains(t.products[0]) && line.contains(t.family),
            "{line}"
        );
        assert_eq!(
            line.contains("no kernels for this generation yet"),
            ds_kernels::check_target(t).is_err(),
            "{line}"
        );
    }
}

/// Spellings LLVM reads that `asm` refused (issue 33 L3): AccVGPRs written `acc1` and
/// `acc[2:3]` (LLVM's other name for `a1`, `a[2:3]`) on targets with AccVGPR DS operands, and a
/// negated zero offset `offset:-0` (LLVM evaluates the expression); `asm` prints what each
/// installed llvm-mc prints, and a negative offset other than zero is still refused.
#[test]
fn acc_register_names_and_a_negated_zero_offset_assemble_as_llvm_does() {
    let input = "\
ds_read_b32 acc1, v0
ds_read_b64 acc[2:3], v0 offset:-0
ds_write_b32 v0, acc5 offset:-0x0
ds_read2_b32 v[2:3], v0 offset0:-0 offset1:1
";
    for target in ["gfx90a", "gfx942"] {
        let ours = ds_harness(&["asm", "--target", target], input);
        assert!(ours.status.success(), "{target}: {}", stderr(&ours));
        for llvm in installed() {
            let args = ["-arch=amdgcn", &format!("-mcpu={target}"), "-show-encoding"];
            let out = run(llvm.mc().to_str().unwrap(), &args, input);
            assert!(out.status.success(), "{}: {}", llvm.label(), stderr(&out));
            let theirs: String = stdout(&out)
                .lines()
                .filter(|l| l.trim() != ".text" && !l.is_empty())
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(stdout(&ours), theirs, "{target}, {}", llvm.label());
        }
    }
    let bad = ds_harness(
        &["asm", "--target", "gfx942"],
        "ds_read_b32 v1, v0 offset:-1\n",
    );
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("`-1`"), "{}", stderr(&bad));
}

/// A line longer than the bound is skipped and reported with its true length, and the lines
/// after it are still read (issue 33 L11: a 100 MB line cost `asm` ~300 MB and the error gave
/// the length of the message, not of the line).
#[test]
fn an_overlong_line_is_reported_with_its_length_and_the_rest_is_read() {
    let long = "ds_load_b32 v1, v2 ".to_string() + &"x".repeat(2_000_000);
    let input = format!("{long}\nds_load_b32 v1, v2\n");
    let o = ds_harness(&["asm"], &input);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "<stdin>:1: error: the line is {} bytes long",
            long.len()
        )),
        "{}",
        &e[..e.len().min(400)]
    );
    assert!(e.len() < 1000, "the line is not echoed: {} bytes", e.len());
    assert!(stdout(&o).contains("ds_load_b32 v1, v2"), "{}", stdout(&o));
    let bytes = "0x00,".repeat(400_000);
    let o = ds_harness(&["disasm"], &format!("{bytes}\n"));
    assert!(
        stderr(&o).contains(&format!("the line is {} bytes long", bytes.len())),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_text_commands_speak_gfx12_for_a_gfx12_target() {
    // asm: a gfx12-only op assembles; gds and a gfx11-only op are refused in words.
    let out = ds_harness(
        &["asm", "--target", "gfx1200"],
        "ds_cond_sub_rtn_u32 v1, v2, v3 offset:4\nds_min_f32 v1, v2\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\tds_cond_sub_rtn_u32 v1, v2, v3 offset:4 ; encoding: [0x04,0x00,0xa0,0xda,0x02,0x03,0x00,0x01]\n\
         \tds_min_num_f32 v1, v2                   ; encoding: [0x00,0x00,0x48,0xd8,0x01,0x02,0x00,0x00]\n"
    );
    let out = ds_harness(&["asm", "--target", "gfx1201"], "ds_add_u32 v1, v2 gds\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("gfx12 has no GDS"),
        "{}",
        stderr(&out)
    );
    let out = ds_harness(
        &["asm", "--target", "gfx1201"],
        "ds_wrap_rtn_b32 v1, v2, v3, v4\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is gfx9, gfx10 and gfx11)"),
        "{}",
        stderr(&out)
    );
    // The gfx11 default refuses the gfx12 op the same way.
    let out = ds_harness(&["asm"], "ds_cond_sub_u32 v1, v2\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is gfx12 and gfx12.5)"),
        "{}",
        stderr(&out)
    );

    // disasm: the gfx12 word, and the same word with bit 17 (gfx11's gds) refused.
    let out = ds_harness(
        &["disasm", "--target", "gfx1201"],
        "0x04,0x00,0xa0,0xda,0x02,0x03,0x00,0x01\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("ds_cond_sub_rtn_u32 v1, v2, v3 offset:4"));
    let out = ds_harness(
        &["disasm", "--target", "gfx1201"],
        "0x00,0x00,0x36,0xd8,0x01,0x02,0x00,0x00\n",
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("no GDS") || stdout(&out).contains("no GDS"));

    // list: the gfx12 table.
    let out = ds_harness(&["list", "--target", "gfx1201"], "");
    assert!(
        stdout(&out).contains("123 ops, 123 runnable"),
        "{}",
        stdout(&out)
    );
    let out = ds_harness(&["list", "--target", "gfx1200", "--markdown"], "");
    assert!(stdout(&out).starts_with("# gfx12 DS instructions"));

    // doc: the old min name is the gfx12 op there; a removed op is named as gfx11's.
    let out = ds_harness(&["doc", "--target", "gfx1201", "ds_min_f32"], "");
    assert!(
        stdout(&out).starts_with("ds_min_num_f32 "),
        "{}",
        stdout(&out)
    );
    let out = ds_harness(&["doc", "--target", "gfx1201", "ds_wrap_rtn_b32"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is gfx9, gfx10 and gfx11)"),
        "{}",
        stderr(&out)
    );

    // kernel: the gfx12 template's listing.
    let out = ds_harness(
        &[
            "kernel",
            "--target",
            "gfx1201",
            "ds_pk_add_rtn_bf16",
            "--listing",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.contains("s_wait_kmcnt 0x0") && listing.contains("ds_pk_add_rtn_bf16"));
    assert!(!listing.contains("s_waitcnt"), "{listing}");
}

pub(crate) fn gfx9_gfx10() -> impl Iterator<Item = &'static Target> {
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

/// asm and disasm round-trip every op's example on every gfx9 and gfx10 target (AccVGPR forms
/// where the target has them); asm_llvm_spellings.rs compares them with llvm-mc.
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
