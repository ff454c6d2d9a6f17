//! `ds-harness asm` against each installed oracle LLVM (llvm-mc-19 and llvm-mc-22) on spellings
//! written by LLVM's own MC tests and on every alias: the built binary reads each line and prints
//! exactly what llvm-mc prints for it (up to the one documented difference: LLVM 22's swizzle
//! macros from 0xC000, `common::llvm::printed_by`), with the bytes the spelling file gives.
//!
//! `tests/vectors/gfx12_ds_mc_spellings.txt`: the 622 DS spellings of LLVM's gfx12 MC tests
//! (`gfx12_asm_ds.s`, 612; `gfx12_asm_ds_alias.s`, 10), each with the bytes llvm-mc-22 prints.

mod common;

use common::llvm::{installed, line_printed_by, pairs};
use common::{ds_harness, run, stderr, stdout};
use ds_isa::ds::DsOp;
use ds_isa::gen::Generation;
use ds_isa::target::Target;

/// (spelling, bytes, which MC test file) per line of the spelling file.
fn spellings() -> Vec<(String, Vec<u8>, String)> {
    include_str!("vectors/gfx12_ds_mc_spellings.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (body, file) = l.rsplit_once('#').expect("`spelling | bytes  # file`");
            let (text, bytes) = body.rsplit_once('|').expect("`spelling | bytes`");
            let bytes = bytes
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
                .collect();
            (text.trim().to_string(), bytes, file.trim().to_string())
        })
        .collect()
}

/// The `; encoding: [...]` bytes of one -show-encoding line.
fn encoding(line: &str) -> Vec<u8> {
    let (_, enc) = line.split_once("encoding: [").expect("an encoding");
    enc.trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
        .collect()
}

/// `ds-harness asm --target t` on `lines`: one output line per input line, exit 0.
fn asm(t: &Target, lines: &[String]) -> Vec<String> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = ds_harness(&["asm", "--target", t.name], &input);
    assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
    let printed: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(printed.len(), lines.len(), "{t}: one line per spelling");
    printed
}

/// llvm-mc's instruction lines for `lines` (no error allowed).
fn llvm_mc(mc: &std::path::Path, cpu: &str, lines: &[String]) -> Vec<String> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mcpu = format!("-mcpu={cpu}");
    let out = run(
        mc.to_str().unwrap(),
        &["-arch=amdgcn", &mcpu, "-show-encoding"],
        &input,
    );
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    stdout(&out)
        .lines()
        .filter(|l| l.contains("; encoding: "))
        .map(str::to_string)
        .collect()
}

/// Our lines against one release's: equal, up to the documented difference. Returns how many
/// differ only by it.
fn compare(label: &str, major: u32, lines: &[String], ours: &[String], theirs: &[String]) -> usize {
    assert_eq!(theirs.len(), lines.len(), "{label}: one line per spelling");
    let mut bad = Vec::new();
    let mut documented = 0;
    for ((text, o), t) in lines.iter().zip(ours).zip(theirs) {
        let printed = line_printed_by(major, o);
        if printed != *t {
            bad.push(format!("`{text}`\n    llvm-mc: {t}\n    ours:    {o}"));
        } else if printed != *o {
            documented += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{label}: {} of {} differ:\n{}",
        bad.len(),
        lines.len(),
        bad[..bad.len().min(10)].join("\n")
    );
    documented
}

#[test]
fn asm_reads_all_622_llvm_gfx12_ds_spellings_with_the_bytes_llvm_prints() {
    let v = spellings();
    assert_eq!(v.len(), 622, "the gfx12 DS MC tests' spellings");
    assert_eq!(v.iter().filter(|s| s.2 == "asm").count(), 612);
    assert_eq!(v.iter().filter(|s| s.2 == "alias").count(), 10);
    let gfx1200 = Target::by_name("gfx1200").unwrap();
    let lines: Vec<String> = v.iter().map(|s| s.0.clone()).collect();
    let ours = asm(gfx1200, &lines);
    for ((text, bytes, _), line) in v.iter().zip(&ours) {
        assert_eq!(&encoding(line), bytes, "`{text}`: {line}");
    }
    println!(
        "ds-harness asm --target gfx1200: {} of 622 spellings with the file's bytes",
        ours.len()
    );
    for llvm in installed() {
        let theirs = llvm_mc(&llvm.mc(), gfx1200.name, &lines);
        let documented = compare(&llvm.label(), llvm.major, &lines, &ours, &theirs);
        println!(
            "{}: all 622 lines as ds-harness asm prints them ({documented} differ only by its \
             swizzle macro)",
            llvm.label()
        );
    }
}

/// Every alias each release reads, for each generation (every op's older name and the
/// generation's own aliases, for every op the release knows), through `ds-harness asm` for the
/// generation's processor: the same line as llvm-mc, printed with the op's mnemonic.
#[test]
fn asm_reads_every_alias_of_each_generation_as_each_llvm_does() {
    for pair in pairs() {
        let mut lines = Vec::new();
        for op in DsOp::all(pair.gen).filter(|op| op.info().oracle.known_to(pair.llvm.major)) {
            for alias in op.aliases_in(pair.gen) {
                let text = ds_isa::ds::doc::example(Generation::Gfx11, op)
                    .text(Generation::Gfx11)
                    .to_string();
                lines.push(text.replacen(op.name(), alias, 1));
            }
        }
        let ours = asm(pair.cpu, &lines);
        for (o, line) in ours.iter().zip(&lines) {
            let op = DsOp::from_name_in(pair.gen, line.split(' ').next().unwrap()).unwrap();
            assert!(o.starts_with(&format!("\t{} ", op.name())), "{o}");
        }
        let theirs = llvm_mc(&pair.llvm.mc(), pair.cpu.name, &lines);
        compare(&pair.label(), pair.llvm.major, &lines, &ours, &theirs);
        println!(
            "{}: {} alias lines read as llvm-mc reads them",
            pair.label(),
            lines.len()
        );
    }
}
