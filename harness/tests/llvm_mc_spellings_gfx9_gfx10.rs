//! `ds-harness asm` and `disasm` for gfx9 and gfx10 targets against each installed oracle LLVM
//! (llvm-mc-19 and llvm-mc-22, each on the targets it knows) on spellings rewritten from the rules
//! of LLVM's gfx9 and gfx10 DS MC tests (`tests/vectors/gfx9_gfx10_ds_mc_spellings.txt`, whose
//! header says which rules): the built binary reads each line and prints exactly what llvm-mc
//! prints for it, with the file's bytes, and reads each word back to the text llvm-mc
//! disassembles it to (up to the one documented difference: LLVM 22's swizzle macros from
//! 0xC000, `common::llvm::printed_by`).

mod common;

use common::llvm::{installed, line_printed_by, printed_by};
use common::{ds_harness, run, stderr, stdout};
use ds_isa::ds::{DsFeatures, DsOp};
use ds_isa::target::{Target, TARGETS};

/// (spelling, bytes, target named by the line) per line of the file.
fn spellings() -> Vec<(String, Vec<u8>, &'static Target)> {
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

/// The `; encoding: [...]` bytes of one -show-encoding line.
fn encoding(line: &str) -> Vec<u8> {
    let (_, enc) = line.split_once("encoding: [").expect("an encoding");
    enc.trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
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
fn llvm_mc(mc: &std::path::Path, t: &Target, extra: &[&str], input: &str) -> Vec<String> {
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
    let all = spellings();
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
            let theirs = llvm_mc(&llvm.mc(), t, &[], &input);
            assert_eq!(theirs.len(), lines.len(), "{t} {}", llvm.label());
            for ((text, o), l) in lines.iter().map(|(t, _)| t).zip(&ours).zip(&theirs) {
                assert_eq!(
                    &line_printed_by(major, o),
                    l,
                    "{} {t}: `{text}`",
                    llvm.label()
                );
            }
            let theirs = llvm_mc(&llvm.mc(), t, &["-disassemble"], &words);
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
