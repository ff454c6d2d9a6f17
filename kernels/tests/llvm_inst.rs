//! The non-DS instruction forms against llvm-mc-19, both directions: every line of
//! `tests/vectors/inst.txt` is assembled (text -> bytes) and disassembled (bytes -> text) by
//! llvm-mc-19 and must agree with the file, which the unit tests hold our encoder, decoder and
//! printer to. The kernel listings themselves are checked the same way in `llvm_tools.rs`.

mod common;

fn vectors() -> Vec<(Vec<u8>, String)> {
    parse(include_str!("vectors/inst.txt"))
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

/// The vector file and the processor llvm-mc checks it for, per generation: the first target of
/// each generation in the target table.
/// The wave64 EXEC forms (`exec`, `s_*_b64`, `tests/vectors/inst_wave64.txt`) are checked for the
/// gfx11 processor with `+wavefrontsize64`.
fn files() -> Vec<(Vectors, Vec<String>)> {
    use ds_reference::isa::Generation;
    let cpu = |g: Generation| format!("-mcpu={}", g.targets().next().expect("a target").name);
    vec![
        (vectors(), vec![cpu(Generation::Gfx11)]),
        (
            parse(include_str!("vectors/inst_wave64.txt")),
            vec![cpu(Generation::Gfx11), "-mattr=+wavefrontsize64".into()],
        ),
        (
            parse(include_str!("vectors/inst_gfx12.txt")),
            vec![cpu(Generation::Gfx12)],
        ),
    ]
}

#[test]
fn llvm_mc_assembles_every_vector_text_to_its_bytes() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    for (v, cpu) in files() {
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
                "{cpu:?} `{text}`: llvm-mc-19 encodes {llvm:02x?}, the vector says {bytes:02x?}"
            );
        }
    }
}

#[test]
fn llvm_mc_disassembles_every_vector_to_its_text() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    for (v, cpu) in files() {
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
            assert_eq!(llvm, text, "{cpu:?} {bytes:02x?}");
        }
    }
}
