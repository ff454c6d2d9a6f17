//! Helpers shared by the reference crate's integration tests: the LLVM oracles (`llvm`: which
//! releases, which generations; `llvm-mc-N -arch=amdgcn`, Debian packages `llvm-19` and
//! `llvm-22`), running llvm-mc on a batch of lines in one process, and reading the iced-style
//! vector files `tests/vectors*.txt`.
//!
//! A test that needs llvm-mc prints why it skips and returns when a release is missing, except
//! under `CI=true`, where a missing release is a failure: CI installs both, so an absence is a bug.
#![allow(dead_code)] // Each test binary uses its own subset.

pub mod both;
pub mod data;
pub mod llvm;

use ds_isa::ds::{DsFeatures, DsInst, DsOp, Family, Field, Gds, Generation, Isa, OffsetForm};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs llvm-mc for the processor `cpu` with `args`, feeding `input` on stdin.
pub fn run_llvm_mc_for(mc: &Path, cpu: &str, args: &[&str], input: &str) -> (String, String) {
    let mut child = Command::new(mc)
        .arg("-arch=amdgcn")
        .arg(format!("-mcpu={cpu}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_string();
    // Write from a thread so a full stdout pipe cannot deadlock us.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc runs");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    (
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// The 1-based line numbers of `<stdin>:LINE:COL: KIND:` diagnostics, with their columns.
fn diagnostics(stderr: &str, kind: &str) -> BTreeMap<usize, BTreeSet<usize>> {
    let mut lines: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for l in stderr.lines() {
        let Some(rest) = l.strip_prefix("<stdin>:") else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(line), Some(col), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if !tail.trim_start().starts_with(kind) {
            continue;
        }
        if let (Ok(line), Ok(col)) = (line.parse(), col.parse()) {
            lines.entry(line).or_default().insert(col);
        }
    }
    lines
}

/// Assembles every line in one llvm-mc process for the processor `cpu`. Per input line: `Ok(the
/// full output line)` (tab, text, padding, `; encoding: [...]`) or `Err(llvm-mc's error message)`.
pub fn mc_assemble_for(mc: &Path, cpu: &str, lines: &[String]) -> Vec<Result<String, String>> {
    assert!(lines.iter().all(|l| !l.contains('\n')));
    let (stdout, stderr) =
        run_llvm_mc_for(mc, cpu, &["-show-encoding"], &(lines.join("\n") + "\n"));
    let errors = diagnostics(&stderr, "error");
    let messages: BTreeMap<usize, String> = stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("<stdin>:")?;
            let (line, tail) = rest.split_once(':')?;
            let msg = tail.split_once("error:")?.1.trim().to_string();
            Some((line.parse().ok()?, msg))
        })
        .collect();
    let mut out = stdout.lines().filter(|l| l.trim() != ".text");
    let result: Vec<Result<String, String>> = (1..=lines.len())
        .map(|n| {
            if errors.contains_key(&n) {
                Err(messages.get(&n).cloned().unwrap_or_default())
            } else {
                Ok(out
                    .next()
                    .unwrap_or_else(|| panic!("llvm-mc printed no line for input line {n}"))
                    .to_string())
            }
        })
        .collect();
    assert!(
        out.next().is_none(),
        "llvm-mc printed more lines than it was given"
    );
    result
}

/// Disassembles 8-byte words in one llvm-mc process for the processor `cpu` (one word per input
/// line). Per word: `Some(text)` (the canonical text, no tab) or `None` when llvm-mc calls it
/// invalid.
pub fn mc_disassemble_for(mc: &Path, cpu: &str, words: &[[u8; 8]]) -> Vec<Option<String>> {
    let input: String = words.iter().map(|w| bytes_line(w) + "\n").collect();
    let (stdout, stderr) = run_llvm_mc_for(mc, cpu, &["-disassemble", "-show-encoding"], &input);
    let warnings = diagnostics(&stderr, "warning");
    let mut out = stdout.lines().filter(|l| l.trim() != ".text");
    let mut result = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        match warnings.get(&(i + 1)) {
            None => {
                let line = out.next().expect("llvm-mc printed a line per valid word");
                let (text, enc) = line
                    .split_once("; encoding: ")
                    .expect("-show-encoding output");
                // (-show-encoding prints the word re-encoded: with a reserved bit clear, bit 16
                // or, on gfx9 targets without acc, bit 25: compared without them.)
                let plain = |w: [u8; 8]| {
                    let mut w = w;
                    w[2] &= !1;
                    w[3] &= !2;
                    bytes_line(&w)
                };
                let printed: Vec<u8> = enc
                    .trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
                    .collect();
                assert_eq!(
                    printed.try_into().map(plain).ok(),
                    Some(plain(*word)),
                    "output line out of step with the input at word {}",
                    i + 1
                );
                result.push(Some(text.trim().to_string()));
            }
            Some(cols) => {
                // llvm-mc retries 4 bytes later after an invalid 8-byte word; when that second
                // half decodes (as some 32-bit instruction), it prints a line we skip.
                if !cols.contains(&21) {
                    out.next();
                }
                result.push(None);
            }
        }
    }
    assert!(
        out.next().is_none(),
        "llvm-mc printed more lines than expected"
    );
    result
}

/// `0x00,0x00,...` as llvm-mc's `-disassemble` reads and `-show-encoding` prints.
pub fn bytes_line(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// One line of `tests/vectors.txt`: `bytes | text  # why` (text `invalid: <part of the error>`
/// for bytes the decoder must reject).
#[derive(Debug, Clone)]
pub struct Vector {
    /// 1-based line number in the file.
    pub line: usize,
    /// The 8 instruction bytes, in memory order.
    pub bytes: [u8; 8],
    /// The canonical text, or `Err(expected error text)` for an invalid encoding.
    pub text: Result<String, String>,
    /// Why the vector is there.
    pub why: String,
}

/// Reads `tests/vectors.txt` (gfx11).
pub fn vectors() -> Vec<Vector> {
    vectors_in("vectors.txt")
}

/// Reads a vector file of `tests/` (`vectors.txt` for gfx11, `vectors_gfx12.txt` for gfx12).
pub fn vectors_in(name: &str) -> Vec<Vector> {
    let path = format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for (i, raw) in file.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (body, why) = line.split_once('#').unwrap_or((line, ""));
        let (bytes, text) = body
            .split_once('|')
            .unwrap_or_else(|| panic!("vectors.txt:{}: expected `bytes | text  # why`", i + 1));
        let bytes: Vec<u8> = bytes
            .split([',', ' '])
            .filter(|t| !t.is_empty())
            .map(|t| {
                u8::from_str_radix(t.trim_start_matches("0x"), 16)
                    .unwrap_or_else(|_| panic!("vectors.txt:{}: bad byte `{t}`", i + 1))
            })
            .collect();
        let bytes: [u8; 8] = bytes
            .try_into()
            .unwrap_or_else(|_| panic!("vectors.txt:{}: expected 8 bytes", i + 1));
        let text = text.trim();
        let text = match text.strip_prefix("invalid:") {
            Some(err) => Err(err.trim().to_string()),
            None => Ok(text.to_string()),
        };
        assert!(!why.trim().is_empty(), "vectors.txt:{}: say why", i + 1);
        out.push(Vector {
            line: i + 1,
            bytes,
            text,
            why: why.trim().to_string(),
        });
    }
    out
}

/// [`legalize_in`] for gfx11.
pub fn legalize(op: DsOp, regs: [u8; 4], offset: u16, gds: bool) -> DsInst {
    legalize_in(Generation::Gfx11, op, regs, offset, gds)
}

/// Turns arbitrary field values into a legal instruction of `op` in the instruction set `isa` (a
/// target, or a generation): unused fields zero, tuples within v255 (and starting even where the
/// target needs it), `gds` forced where the op requires or forbids it there (never on a
/// generation without the bit), no offset on `ds_nop`.
pub fn legalize_in(isa: impl Into<Isa>, op: DsOp, regs: [u8; 4], offset: u16, gds: bool) -> DsInst {
    legalize_acc(isa, op, regs, offset, gds, false)
}

/// [`legalize_in`], with `acc` set where the target has it and the op has vdst or data.
pub fn legalize_acc(
    isa: impl Into<Isa>,
    op: DsOp,
    regs: [u8; 4],
    offset: u16,
    gds: bool,
    acc: bool,
) -> DsInst {
    let isa = isa.into();
    let info = op.info();
    let even = !isa.has(DsFeatures::UNALIGNED);
    let mut inst = DsInst::new(op).with_offset16(offset);
    for (field, value) in Field::ALL.into_iter().zip(regs) {
        let dwords = info.operands.dwords(field);
        if dwords > 0 {
            let mut r = u16::from(value).min(256 - u16::from(dwords)) as u8;
            let gws_data = info.family == Family::Gws && field == Field::Data0;
            if even && (dwords > 1 || gws_data) {
                r &= !1;
            }
            inst.set_reg(field, r);
        }
    }
    inst.gds = match info.gds_on(isa) {
        Gds::Allowed => gds,
        Gds::Required => true,
        Gds::Forbidden => false,
    };
    inst.acc = acc && isa.has(DsFeatures::ACC) && info.acc_capable();
    if info.offset == OffsetForm::NoOffset {
        inst = inst.with_offset16(0);
    }
    inst
}

/// Two `ds_swizzle_b32` instructions that differ only in bit-mask offsets with the same lane map
/// (`((lane & and) | or) ^ xor` for all 32 lanes of a group). LLVM's BITMASK_PERM text (and its
/// BROADCAST/SWAP/REVERSE forms) names each source-lane bit as 0, 1, kept or inverted, so a
/// triple such as and=1, or=1 prints like and=0, or=1 and reads back as the latter.
pub fn same_swizzle(a: &DsInst, b: &DsInst) -> bool {
    let lanes = |o: u16| -> Vec<u16> {
        let (and, or, xor) = (o & 0x1f, (o >> 5) & 0x1f, (o >> 10) & 0x1f);
        (0..32).map(|i| ((i & and) | or) ^ xor).collect()
    };
    let (x, y) = (a.offset16(), b.offset16());
    a.op == DsOp::SwizzleB32
        && a.with_offset16(0) == b.with_offset16(0)
        && x & 0x8000 == 0
        && y & 0x8000 == 0
        && lanes(x) == lanes(y)
}

/// Register patterns before legalising, as [vdst, addr, data0, data1]: all v0, low and distinct,
/// the last legal register or tuple (255 is clamped to 256 - dwords), and values across bit 7.
pub const REG_PATTERNS: [[u8; 4]; 4] = [
    [0, 0, 0, 0],
    [5, 1, 2, 3],
    [255, 255, 255, 255],
    [128, 127, 200, 100],
];

/// The 16-bit offsets tried for each offset form (pairs as offset1 << 8 | offset0).
pub fn offsets(form: OffsetForm) -> &'static [u16] {
    match form {
        OffsetForm::Single => &[0, 1, 255, 256, 65535, 0x1234],
        OffsetForm::Pair | OffsetForm::Stride64 => &[0, 1, 0x0100, 0x00ff, 0xffff, 0xc807],
        // Zero, quad-perm, swap, broadcast, reverse, bit-mask, FFT, rotate, undefined.
        OffsetForm::Swizzle => &[
            0, 0x801b, 0x041f, 0x00bc, 0x3c1f, 0x7fff, 0xe003, 0xc421, 0x8100,
        ],
        OffsetForm::NoOffset => &[0],
    }
}

/// How to write one instruction: mnemonic (the row's or an alias), number base, register and
/// separator style.
#[derive(Clone, Copy)]
pub struct Spelling {
    pub alias: Option<&'static str>,
    pub upper_mnemonic: bool,
    pub radix: u32,
    pub brackets: bool,
    pub commas: bool,
    pub zero_offsets: bool,
}

pub const CANONICAL: Spelling = Spelling {
    alias: None,
    upper_mnemonic: false,
    radix: 10,
    brackets: false,
    commas: true,
    zero_offsets: false,
};

/// Other ways LLVM accepts to write the same instruction of generation `gen`, written out: number
/// bases, brackets, no commas, upper case, and each alias LLVM reads for the op in `gen` (its
/// older name, and the generation's own aliases).
pub fn spellings_in(gen: Generation, inst: &DsInst) -> Vec<String> {
    let mut v = vec![
        Spelling {
            radix: 16,
            ..CANONICAL
        },
        Spelling {
            radix: 8,
            brackets: true,
            ..CANONICAL
        },
        Spelling {
            radix: 2,
            commas: false,
            zero_offsets: true,
            ..CANONICAL
        },
        Spelling {
            upper_mnemonic: true,
            brackets: true,
            ..CANONICAL
        },
    ];
    for alias in inst.op.aliases_in(gen) {
        v.push(Spelling {
            alias: Some(alias),
            ..CANONICAL
        });
        v.push(Spelling {
            alias: Some(alias),
            radix: 16,
            commas: false,
            ..CANONICAL
        });
    }
    v.into_iter().map(|s| spell_in(gen, inst, s)).collect()
}

pub fn number(n: u32, radix: u32) -> String {
    match (radix, n) {
        (_, 0) => "0".into(),
        (16, _) => format!("{n:#x}"),
        (8, _) => format!("0{n:o}"),
        (2, _) => format!("{n:#b}"),
        _ => n.to_string(),
    }
}

/// Writes the gfx11 `inst` in the spelling `s` (swizzle offsets are written as plain numbers).
pub fn spell(inst: &DsInst, s: Spelling) -> String {
    spell_in(Generation::Gfx11, inst, s)
}

/// Writes `inst` of generation `gen` in the spelling `s`: the generation's mnemonic (or the
/// alias), `a` registers for vdst and data when `acc` is set.
pub fn spell_in(gen: Generation, inst: &DsInst, s: Spelling) -> String {
    let info = inst.info();
    let mut name = s.alias.unwrap_or(inst.op.mnemonic(gen)).to_string();
    if s.upper_mnemonic {
        name = name.to_ascii_uppercase();
    }
    let regs: Vec<String> = Field::ALL
        .into_iter()
        .filter(|&f| info.operands.dwords(f) > 0)
        .map(|f| {
            let (first, n) = (u32::from(inst.reg(f)), u32::from(info.operands.dwords(f)));
            let r = if inst.acc && f != Field::Addr {
                'a'
            } else {
                'v'
            };
            match (n, s.brackets) {
                (1, false) => format!("{r}{first}"),
                (1, true) => format!("{r}[{first}]"),
                (_, false) => format!("{r}[{first}:{}]", first + n - 1),
                (_, true) => format!("{r}[{first} : {}]", first + n - 1),
            }
        })
        .collect();
    let mut text = name;
    if !regs.is_empty() {
        text += " ";
        text += &regs.join(if s.commas { ", " } else { " " });
    }
    let r = s.radix;
    match info.offset {
        OffsetForm::Single | OffsetForm::Swizzle if inst.offset16() != 0 || s.zero_offsets => {
            text += &format!(" offset:{}", number(u32::from(inst.offset16()), r));
        }
        OffsetForm::Pair | OffsetForm::Stride64 => {
            if inst.offset0 != 0 || s.zero_offsets {
                text += &format!(" offset0:{}", number(u32::from(inst.offset0), r));
            }
            if inst.offset1 != 0 || s.zero_offsets {
                text += &format!(" offset1:{}", number(u32::from(inst.offset1), r));
            }
        }
        _ => {}
    }
    if inst.gds {
        text += " gds";
    }
    text
}

/// `line` with its mnemonic (its first word) as generation `gen` spells the op (gfx9 and gfx10:
/// `ds_load_b32` becomes `ds_read_b32`), keeping the word's upper-case letters where the two
/// spellings share positions; a word that names no op is kept.
pub fn respell(gen: Generation, line: &str) -> String {
    if !gen.gfx9_mnemonics() {
        return line.to_string();
    }
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let Some(op) = DsOp::from_name(word).filter(|op| op.info().in_generation(gen)) else {
        return line.to_string();
    };
    if DsOp::from_name_in(gen, word).is_some() {
        return line.to_string();
    }
    let name: String = op
        .mnemonic(gen)
        .chars()
        .enumerate()
        .map(|(i, c)| match word.chars().nth(i) {
            Some(w) if w.is_ascii_uppercase() => c.to_ascii_uppercase(),
            _ => c,
        })
        .collect();
    let sep = &line[word.len()..line.len() - rest.len()];
    format!("{name}{sep}{rest}")
}

/// Prints up to 20 disagreements, then fails if there were any.
pub fn report(what: &str, agree: usize, total: usize, bad: &[String]) {
    println!("{what}: llvm-mc agreement: {agree}/{total}");
    for b in bad.iter().take(20) {
        println!("  DISAGREE {b}");
    }
    assert!(
        bad.is_empty(),
        "{what}: {} disagreement(s) with llvm-mc",
        bad.len()
    );
    assert_eq!(agree, total);
}
