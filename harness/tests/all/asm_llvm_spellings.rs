//! `ds-harness asm` against each installed oracle LLVM (llvm-mc-19 and llvm-mc-22) on spellings
//! written by LLVM's own MC tests and on every alias: the built binary reads each line and prints
//! exactly what llvm-mc prints for it (up to the one documented difference: LLVM 22's swizzle
//! macros from 0xC000, `common::llvm::printed_by`), with the bytes the spelling file gives.
//!
//! `tests/all/vectors/gfx12_ds_mc_spellings.txt`: the 622 DS spellings of LLVM's gfx12 MC tests
//! (`gfx12_asm_ds.s`, 612; `gfx12_asm_ds_alias.s`, 10), each with the bytes llvm-mc-22 prints.
//! `tests/all/vectors/gfx1250_ds_mc_spellings.txt`: the 649 DS spellings of LLVM's gfx1250 MC
//! tests rewritten from their rules (its header says which), both directions (`asm` and
//! `disasm`), for gfx1250 and gfx1251, against llvm-mc-22 (LLVM 19 knows neither).
//!
//! And `ds-harness asm` and `disasm` for gfx9 and gfx10 targets against each installed oracle LLVM
//! (llvm-mc-19 and llvm-mc-22, each on the targets it knows) on spellings rewritten from the rules
//! of LLVM's gfx9 and gfx10 DS MC tests (`tests/all/vectors/gfx9_gfx10_ds_mc_spellings.txt`, whose
//! header says which rules): the built binary reads each line and prints exactly what llvm-mc
//! prints for it, with the file's bytes, and reads each word back to the text llvm-mc
//! disassembles it to (up to the one documented difference: LLVM 22's swizzle macros from
//! 0xC000, `common::llvm::printed_by`).

use crate::common;

use common::llvm::{installed, line_printed_by, pairs, printed_by};
use common::{ds_harness, run, stderr, stdout};
use ds_isa::ds::{DsFeatures, DsOp};
use ds_isa::gen::Generation;
use ds_isa::target::{Target, TARGETS};

/// (spelling, bytes, which MC test file) per line of the gfx12 spelling file.
fn gfx12_spellings() -> Vec<(String, Vec<u8>, String)> {
    spellings_of(include_str!("vectors/gfx12_ds_mc_spellings.txt"))
}

/// (spelling, bytes, which MC test file) per line of a spelling file.
fn spellings_of(file: &str) -> Vec<(String, Vec<u8>, String)> {
    file.lines()
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
    let v = gfx12_spellings();
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

/// `ds-harness asm` and `disasm` for gfx1250 and gfx1251 on the spellings of LLVM's gfx1250 DS
/// MC tests: the file's bytes, and llvm-mc-22's line and text for every spelling and word.
#[test]
fn asm_and_disasm_read_all_649_llvm_gfx1250_ds_spellings_as_llvm_22_does() {
    let v = spellings_of(include_str!("vectors/gfx1250_ds_mc_spellings.txt"));
    assert_eq!(v.len(), 649, "the gfx1250 DS MC tests' spellings");
    assert_eq!(v.iter().filter(|s| s.2 == "tr").count(), 11);
    let lines: Vec<String> = v.iter().map(|s| s.0.clone()).collect();
    let words: String = v
        .iter()
        .map(|(_, b, _)| {
            let hex: Vec<String> = b.iter().map(|x| format!("{x:#04x}")).collect();
            hex.join(",") + "\n"
        })
        .collect();
    for name in ["gfx1250", "gfx1251"] {
        let t = Target::by_name(name).unwrap();
        let ours = asm(t, &lines);
        for ((text, bytes, _), line) in v.iter().zip(&ours) {
            assert_eq!(&encoding(line), bytes, "{t}: `{text}`: {line}");
        }
        let out = ds_harness(&["disasm", "--target", t.name], &words);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let texts: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
        assert_eq!(texts.len(), v.len(), "{t}: one text per word");
        let mut checked = 0;
        for llvm in installed().into_iter().filter(|l| l.knows(t)) {
            let theirs = llvm_mc(&llvm.mc(), t.name, &lines);
            let documented = compare(&llvm.label(), llvm.major, &lines, &ours, &theirs);
            let mcpu = format!("-mcpu={}", t.name);
            let dis = run(
                llvm.mc().to_str().unwrap(),
                &["-arch=amdgcn", &mcpu, "-disassemble"],
                &words,
            );
            let dis = stdout(&dis);
            let theirs: Vec<&str> = dis
                .lines()
                .map(|l| l.split(';').next().unwrap().trim())
                .filter(|l| !l.is_empty() && !l.starts_with('.'))
                .collect();
            assert_eq!(theirs.len(), v.len(), "{t} {}", llvm.label());
            for ((o, l), (text, _, _)) in texts.iter().zip(&theirs).zip(&v) {
                assert_eq!(
                    printed_by(llvm.major, o.trim()),
                    *l,
                    "{} {t}: `{text}`",
                    llvm.label()
                );
            }
            println!(
                "{} {t}: all 649 lines both ways as ds-harness prints them ({documented} differ \
                 only by its swizzle macro)",
                llvm.label()
            );
            checked += 1;
        }
        if checked == 0 {
            println!("skipped: no installed LLVM knows {t} (LLVM 22 does)");
        }
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
                // (An example legal on the pair's target: even tuples where it needs them.)
                let text = ds_isa::ds::doc::example(pair.isa(), op)
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

/// (spelling, bytes, target named by the line) per line of the file.
fn gfx9_gfx10_spellings() -> Vec<(String, Vec<u8>, &'static Target)> {
    include_str!("vectors/gfx9_gfx10_ds_mc_spellings.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (body, target) = l.rsplit_once('#').expect("`spelling | bytes  # target`");
            let (text, bytes) = body.rsplit_once('|').expect("`spelling | bytes`");
            let bytes = bytes
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
                .collect();
            let target = Target::by_name(target.trim()).expect("a target of the table");
            (text.trim().to_string(), bytes, target)
        })
        .collect()
}

/// The lines each target reads: those of every target of its generation whose DS features it
/// has all of (gfx900's for gfx906 and gfx908, gfx90a's for gfx942 and gfx950, gfx1010's for
/// gfx1011-gfx1013), and on RDNA 2 gfx1010's lines but the src2 ops.
fn lines_for(
    t: &'static Target,
    all: &[(String, Vec<u8>, &'static Target)],
) -> Vec<(String, Vec<u8>)> {
    all.iter()
        .filter(|(text, _, named)| {
            let op = DsOp::from_name_in(t.generation, text.split(' ').next().unwrap());
            let lacking = named.ds_features.difference(t.ds_features);
            named.generation == t.generation
                && (lacking == DsFeatures::NONE
                    || (lacking == DsFeatures::SRC2 && op.is_some_and(|op| op.info().on(t))))
        })
        .map(|(text, bytes, _)| (text.clone(), bytes.clone()))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `ds-harness asm|disasm --target t` on `input`: its lines, exit 0.
fn harness(cmd: &str, t: &Target, input: &str) -> Vec<String> {
    let out = ds_harness(&[cmd, "--target", t.name], input);
    assert_eq!(out.status.code(), Some(0), "{cmd} {t}: {}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}

/// llvm-mc's instruction lines for `input` (no error allowed).
fn llvm_mc_lines(mc: &std::path::Path, t: &Target, extra: &[&str], input: &str) -> Vec<String> {
    let mcpu = format!("-mcpu={}", t.name);
    let mut args = vec!["-arch=amdgcn", &mcpu, "-show-encoding"];
    args.extend_from_slice(extra);
    let out = run(mc.to_str().unwrap(), &args, input);
    assert!(
        out.status.success() && !stderr(&out).contains("error"),
        "{t}: {}",
        stderr(&out)
    );
    stdout(&out)
        .lines()
        .filter(|l| l.contains("; encoding: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn asm_and_disasm_agree_with_llvm_on_the_gfx9_and_gfx10_mc_test_spellings() {
    let all = gfx9_gfx10_spellings();
    assert_eq!(all.len(), 5141, "the file's spellings");
    let mut report = Vec::new();
    for t in TARGETS.iter().filter(|t| t.generation.gfx9_mnemonics()) {
        let lines = lines_for(t, &all);
        assert!(!lines.is_empty(), "{t} reads no line");
        let input: String = lines.iter().map(|(l, _)| format!("{l}\n")).collect();
        let ours = harness("asm", t, &input);
        assert_eq!(ours.len(), lines.len(), "{t}: one line per spelling");
        for ((text, bytes), line) in lines.iter().zip(&ours) {
            assert_eq!(&encoding(line), bytes, "{t}: `{text}`: {line}");
        }
        let words: String = lines.iter().map(|(_, b)| format!("{}\n", hex(b))).collect();
        let texts = harness("disasm", t, &words);
        assert_eq!(texts.len(), lines.len(), "{t}: one text per word");
        let mut checked = Vec::new();
        for llvm in installed().into_iter().filter(|l| l.knows(t)) {
            let major = llvm.major;
            let theirs = llvm_mc_lines(&llvm.mc(), t, &[], &input);
            assert_eq!(theirs.len(), lines.len(), "{t} {}", llvm.label());
            for ((text, o), l) in lines.iter().map(|(t, _)| t).zip(&ours).zip(&theirs) {
                assert_eq!(
                    &line_printed_by(major, o),
                    l,
                    "{} {t}: `{text}`",
                    llvm.label()
                );
            }
            let theirs = llvm_mc_lines(&llvm.mc(), t, &["-disassemble"], &words);
            assert_eq!(theirs.len(), lines.len(), "{t} {}", llvm.label());
            for (o, l) in texts.iter().zip(&theirs) {
                let text = l.split_once(';').map_or(l.as_str(), |(t, _)| t).trim();
                assert_eq!(printed_by(major, o.trim()), text, "{} {t}", llvm.label());
            }
            checked.push(llvm.label());
        }
        report.push(format!(
            "{t} {} lines ({})",
            lines.len(),
            if checked.is_empty() {
                "no installed LLVM knows it".into()
            } else {
                checked.join(", ")
            }
        ));
    }
    println!(
        "ds-harness asm/disasm agree with llvm-mc on the gfx9/gfx10 MC-test spellings, both \
         directions: {}",
        report.join("; ")
    );
}
