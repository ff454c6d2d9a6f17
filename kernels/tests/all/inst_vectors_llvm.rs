//! The non-DS instruction forms against each installed oracle LLVM (llvm-mc-19 and llvm-mc-22),
//! both directions: every line of each generation's vector file (`tests/vectors/inst*.txt`) is
//! assembled (text -> bytes) and disassembled (bytes -> text) by each release and must agree with
//! the file, which the unit tests hold our encoder, decoder and printer to. The kernel listings
//! themselves are checked the same way in `llvm_tools.rs`.

use crate::common;

fn vectors() -> Vec<(Vec<u8>, String)> {
    parse(include_str!("../../../isa/tests/vectors/inst.txt"))
}

fn parse(file: &str) -> Vec<(Vec<u8>, String)> {
    file.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (hex, text) = l.split_once('|').unwrap();
            let bytes = hex
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap())
                .collect();
            (bytes, text.split('#').next().unwrap().trim().to_string())
        })
        .collect()
}

/// Parses `llvm-mc -show-encoding` output into byte lists, one per instruction.
fn encodings(out: &str) -> Vec<Vec<u8>> {
    out.lines()
        .filter_map(|l| l.split_once("encoding: [").map(|(_, rest)| rest))
        .map(|rest| {
            rest.trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
                .collect()
        })
        .collect()
}

/// One vector file: (bytes, text) per line.
type Vectors = Vec<(Vec<u8>, String)>;

/// Each generation's vector files, by generation. The wave64 EXEC forms (`exec`, `s_*_b64`,
/// `tests/vectors/inst_wave64.txt`) are checked with `+wavefrontsize64`.
fn vector_files(gen: ds_isa::ds::Generation) -> Vec<(Vectors, Vec<&'static str>)> {
    use ds_isa::ds::Generation;
    match gen {
        Generation::Gfx11 => vec![
            (vectors(), vec![]),
            (
                parse(include_str!("../../../isa/tests/vectors/inst_wave64.txt")),
                vec!["-mattr=+wavefrontsize64"],
            ),
        ],
        Generation::Gfx12 => vec![(
            parse(include_str!("../../../isa/tests/vectors/inst_gfx12.txt")),
            vec![],
        )],
        Generation::Gfx10 => vec![
            (
                parse(include_str!("../../../isa/tests/vectors/inst_gfx10.txt")),
                vec![],
            ),
            (
                parse(include_str!(
                    "../../../isa/tests/vectors/inst_gfx10_wave64.txt"
                )),
                vec!["-mattr=+wavefrontsize64"],
            ),
        ],
        // gfx12's forms (gfx1250 encodes and prints them alike) and the forms only gfx1250's
        // template uses.
        Generation::Gfx12_5 => vec![
            (
                parse(include_str!("../../../isa/tests/vectors/inst_gfx12.txt")),
                vec![],
            ),
            (
                parse(include_str!("../../../isa/tests/vectors/inst_gfx1250.txt")),
                vec![],
            ),
        ],
        // Wave64 only: one file.
        Generation::Gfx9 => vec![(
            parse(include_str!("../../../isa/tests/vectors/inst_gfx9.txt")),
            vec![],
        )],
    }
}

/// The vector files and the llvm-mc arguments that check them: for every (installed LLVM,
/// generation) pair of `common::llvm::pairs()`, the generation's files for its processor (the
/// instruction forms are checked for every generation that has them, kernels or not).
fn files() -> Vec<(String, std::path::PathBuf, Vectors, Vec<String>)> {
    let mut out = Vec::new();
    for pair in common::llvm::pairs() {
        for (v, attrs) in vector_files(pair.gen) {
            let mut args = vec![format!("-mcpu={}", pair.cpu)];
            args.extend(attrs.iter().map(ToString::to_string));
            out.push((pair.label(), pair.llvm.mc(), v, args));
        }
    }
    out
}

#[test]
fn llvm_mc_assembles_every_vector_text_to_its_bytes() {
    for (label, mc, v, cpu) in files() {
        let input: String = v.iter().map(|(_, t)| format!("{t}\n")).collect();
        let args: Vec<&str> = ["-arch=amdgcn", "-show-encoding"]
            .into_iter()
            .chain(cpu.iter().map(String::as_str))
            .collect();
        let out = common::run(&mc, &args, Some(&input));
        let got = encodings(&out);
        assert_eq!(got.len(), v.len(), "llvm-mc output:\n{out}");
        for ((bytes, text), llvm) in v.iter().zip(got) {
            assert_eq!(
                &llvm, bytes,
                "{label} {cpu:?} `{text}`: llvm-mc encodes {llvm:02x?}, the vector says {bytes:02x?}"
            );
        }
        println!(
            "{label} {cpu:?}: {} vector texts assemble to their bytes",
            v.len()
        );
    }
}

#[test]
fn llvm_mc_disassembles_every_vector_to_its_text() {
    for (label, mc, v, cpu) in files() {
        let input: String = v
            .iter()
            .map(|(b, _)| {
                b.iter()
                    .map(|x| format!("{x:#04x}"))
                    .collect::<Vec<_>>()
                    .join(",")
                    + "\n"
            })
            .collect();
        let args: Vec<&str> = ["-arch=amdgcn", "-disassemble"]
            .into_iter()
            .chain(cpu.iter().map(String::as_str))
            .collect();
        let out = common::run(&mc, &args, Some(&input));
        let texts: Vec<&str> = out
            .lines()
            .map(|l| l.split(';').next().unwrap().trim())
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .collect();
        assert_eq!(texts.len(), v.len(), "llvm-mc output:\n{out}");
        for ((bytes, text), llvm) in v.iter().zip(texts) {
            assert_eq!(llvm, text, "{label} {cpu:?} {bytes:02x?}");
        }
        println!(
            "{label} {cpu:?}: {} vectors disassemble to their text",
            v.len()
        );
    }
}
