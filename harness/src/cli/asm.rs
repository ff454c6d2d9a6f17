//! `ds-harness asm` and `ds-harness disasm`: LLVM-syntax text to bytes and back, line by line, in
//! llvm-mc-19's output format. A bad line is reported on stderr with its number; the rest are
//! still processed, and the exit status is 2 if any line failed.

use super::{EXIT_OK, EXIT_USAGE};
use ds_isa::ds::{syntax, DsInst};
use ds_isa::error::ParseError;
use ds_isa::target::Target;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Assembles each line of `input` for `target` (its generation's DS table, spelling and layout,
/// and the target's own DS features: which ops, `gds`, AccVGPRs, register alignment); prints
/// `\t<text> ; encoding: [...]` per instruction.
pub fn assemble(
    target: &'static Target,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let mut failed = 0usize;
    for (n, line) in text_lines(input) {
        let Some(line) = line? else {
            failed += 1;
            continue;
        };
        match syntax::parse(target, &line) {
            Ok(inst) => writeln!(out, "{}", syntax::llvm_mc_line(target, &inst)?)?,
            Err(ParseError::Empty) => {}
            Err(e) => {
                failed += 1;
                eprintln!(
                    "<stdin>:{n}: error: {}\n    {}",
                    excerpt(&e.to_string()),
                    excerpt(line.trim())
                );
            }
        }
    }
    Ok(finish(failed))
}

/// Decodes each line of bytes of `input` for `target` (as [`assemble`] reads it), 8 bytes per
/// instruction; prints `\t<text>` for each, in the generation's spelling.
pub fn disassemble(
    target: &'static Target,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let gen = target.generation;
    let mut failed = 0usize;
    for (n, line) in text_lines(input) {
        let Some(line) = line? else {
            failed += 1;
            continue;
        };
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
                    match DsInst::from_bytes(target, word) {
                        Ok(inst) => writeln!(out, "\t{}", inst.text(gen))?,
                        Err(e) => {
                            failed += 1;
                            eprintln!("<stdin>:{n}: error: instruction {} on the line: {e}", i + 1);
                        }
                    }
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("<stdin>:{n}: error: {}", excerpt(&e));
            }
        }
    }
    Ok(finish(failed))
}

/// Longest stretch of an input line quoted back in an error message.
const QUOTED: usize = 120;

/// `text` when short; else its first [`QUOTED`] characters and how long it was.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        None => text.to_string(),
        Some((end, _)) => format!("{}... ({} bytes in all)", &text[..end], text.len()),
    }
}

/// The longest input line `asm` and `disasm` read (a DS instruction is under 200 characters; a
/// line of bytes for `disasm` holds hundreds of instructions within this). A longer line is
/// skipped without being held in memory, and reported with its length.
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// The lines of `input` with their 1-based numbers: `Ok(Some(text))`, or `Ok(None)` for a line
/// that is not UTF-8 or is longer than [`MAX_LINE_BYTES`] (reported on stderr with its number),
/// or the read error. Memory is bounded by [`MAX_LINE_BYTES`] whatever the input.
fn text_lines(
    mut input: impl BufRead,
) -> impl Iterator<Item = (usize, std::io::Result<Option<String>>)> {
    let mut n = 0usize;
    std::iter::from_fn(move || {
        let mut line = Vec::new();
        let total = match read_line_bounded(&mut input, &mut line) {
            Ok(None) => return None,
            Ok(Some(total)) => total,
            Err(e) => return Some((n + 1, Err(e))),
        };
        n += 1;
        if total > MAX_LINE_BYTES {
            eprintln!(
                "<stdin>:{n}: error: the line is {total} bytes long, more than the {} bytes a \
                 line may have (one instruction per line, or the bytes of a few hundred)",
                MAX_LINE_BYTES
            );
            return Some((n, Ok(None)));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = String::from_utf8(line)
            .map_err(|e| {
                eprintln!(
                    "<stdin>:{n}: error: not UTF-8 text (invalid byte at column {}); \
                     the input is LLVM-syntax text",
                    e.utf8_error().valid_up_to() + 1
                )
            })
            .ok();
        Some((n, Ok(text)))
    })
}

/// Reads one line (without its `\n`) into `line`, keeping at most [`MAX_LINE_BYTES`] + 1 bytes
/// of it; returns the line's whole length, or `None` at the end of the input.
fn read_line_bounded(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<usize>> {
    let mut total = 0usize;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((total > 0).then_some(total));
        }
        let (take, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        total += take;
        input.consume(take + usize::from(end));
        if end {
            return Ok(Some(total));
        }
    }
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
            ds_isa::text::parse_int(t)
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
