//! `ds-harness asm` and `ds-harness disasm`: LLVM-syntax text to bytes and back, line by line, in
//! llvm-mc-19's output format. A bad line is reported on stderr with its number; the rest are
//! still processed, and the exit status is 2 if any line failed.

use super::{EXIT_OK, EXIT_USAGE};
use ds_reference::isa::{syntax, DsInst};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Assembles each line of `input`; prints `\t<text> ; encoding: [...]` per instruction.
pub fn assemble(input: impl BufRead, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let mut failed = 0usize;
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        match syntax::parse(&line) {
            Ok(inst) => writeln!(out, "{}", syntax::llvm_mc_line(&inst)?)?,
            Err(syntax::ParseError::Empty) => {}
            Err(e) => {
                failed += 1;
                eprintln!("<stdin>:{}: error: {e}\n    {}", n + 1, line.trim());
            }
        }
    }
    Ok(finish(failed))
}

/// Decodes each line of bytes of `input`, 8 bytes per instruction; prints `\t<text>` for each.
pub fn disassemble(input: impl BufRead, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let mut failed = 0usize;
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        let text = syntax::strip_comment(&line).trim();
        if text.is_empty() {
            continue;
        }
        match parse_bytes(text) {
            Ok(bytes) => {
                for (i, chunk) in bytes.chunks(8).enumerate() {
                    let word: [u8; 8] = chunk
                        .try_into()
                        .expect("whole words: checked by parse_bytes");
                    match DsInst::from_bytes(word) {
                        Ok(inst) => writeln!(out, "\t{inst}")?,
                        Err(e) => {
                            failed += 1;
                            eprintln!(
                                "<stdin>:{}: error: instruction {} on the line: {e}",
                                n + 1,
                                i + 1
                            );
                        }
                    }
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("<stdin>:{}: error: {e}", n + 1);
            }
        }
    }
    Ok(finish(failed))
}

fn finish(failed: usize) -> ExitCode {
    if failed == 0 {
        ExitCode::from(EXIT_OK)
    } else {
        eprintln!("{failed} line(s) failed");
        ExitCode::from(EXIT_USAGE)
    }
}

/// Reads `0x..` bytes separated by commas and/or white space; the count must be a multiple of 8.
pub fn parse_bytes(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            syntax::parse_int(t)
                .filter(|&v| v <= 0xff)
                .map(|v| v as u8)
                .ok_or_else(|| format!("`{t}` is not a byte (write 0x00 to 0xff)"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    if bytes.is_empty() || bytes.len() % 8 != 0 {
        return Err(format!(
            "{} byte(s) on the line: DS instructions are 8 bytes each, in memory (little-endian) order",
            bytes.len()
        ));
    }
    Ok(bytes)
}
