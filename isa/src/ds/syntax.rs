//! LLVM's assembly syntax for DS instructions, both ways, as `llvm-mc-19 -mcpu=<target>` prints
//! and parses it for the target's generation: `ds_add_rtn_u32 v4, v1, v2 offset:16 gds`.
//!
//! Operands come in the order vdst, addr, data0, data1 (those the op uses); a tuple is `v[a:b]`
//! (`v7` and `v[7]` for one register). Then the modifiers, in this order: `offset:N` or
//! `offset0:N offset1:M` (each omitted when zero, `offset:swizzle(...)` for `ds_swizzle_b32`), and
//! `gds`. Numbers are decimal, `0x` hex, `0b` binary or `0`-prefixed octal, as LLVM reads them.

use super::{suggest_in, swizzle, DsInst, DsOp, Field, Generation, Isa, OffsetForm};
use crate::error::{InstError, ParseError};
use crate::text::parse_int;
use std::fmt;

/// An instruction as generation `gen` prints it ([`DsInst::text`]).
#[derive(Debug)]
pub struct InstText<'a> {
    inst: &'a DsInst,
    gen: Generation,
}

impl DsInst {
    /// The instruction as LLVM prints it for a target of generation `gen`: the generation's
    /// mnemonic ([`DsOp::mnemonic`]), AccVGPRs (`a1`, `a[2:3]`) for vdst and data when `acc`
    /// is set.
    pub fn text(&self, gen: Generation) -> InstText<'_> {
        InstText { inst: self, gen }
    }
}

impl fmt::Display for InstText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inst = self.inst;
        let info = inst.info();
        f.write_str(inst.op.mnemonic(self.gen))?;
        let mut first = true;
        for field in Field::ALL {
            let dwords = info.operands.dwords(field);
            if dwords == 0 {
                continue;
            }
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            let file = if inst.acc && field != Field::Addr {
                'a'
            } else {
                'v'
            };
            write_reg(f, file, inst.reg(field), dwords)?;
        }
        match info.offset {
            OffsetForm::Single if inst.offset16() != 0 => write!(f, " offset:{}", inst.offset16())?,
            OffsetForm::Pair | OffsetForm::Stride64 => {
                if inst.offset0 != 0 {
                    write!(f, " offset0:{}", inst.offset0)?;
                }
                if inst.offset1 != 0 {
                    write!(f, " offset1:{}", inst.offset1)?;
                }
            }
            OffsetForm::Swizzle => {
                if let Some(text) = swizzle::print(inst.offset16()) {
                    write!(f, " offset:{text}")?;
                }
            }
            _ => {}
        }
        if inst.gds {
            f.write_str(" gds")?;
        }
        Ok(())
    }
}

fn write_reg(f: &mut fmt::Formatter<'_>, file: char, first: u8, dwords: u8) -> fmt::Result {
    if dwords == 1 {
        write!(f, "{file}{first}")
    } else {
        write!(
            f,
            "{file}[{first}:{}]",
            u32::from(first) + u32::from(dwords) - 1
        )
    }
}

/// Strips a trailing `//` or `;` comment.
pub fn strip_comment(line: &str) -> &str {
    let cut = [line.find("//"), line.find(';')]
        .into_iter()
        .flatten()
        .min();
    cut.map_or(line, |i| &line[..i])
}

/// Parses one instruction of the instruction set `isa` (a target's, or a generation's:
/// [`Isa`]) in LLVM syntax, as `llvm-mc-19` reads it for that target (a trailing comment is
/// allowed). gfx9 and gfx10 read their own mnemonics only; AccVGPRs (`a1`, `a[2:3]`) for vdst and
/// data set the acc bit on targets that have it.
pub fn parse(isa: impl Into<Isa>, line: &str) -> Result<DsInst, ParseError> {
    let isa = isa.into();
    let gen = isa.gen;
    let text = strip_comment(line).trim();
    if text.is_empty() {
        return Err(ParseError::Empty);
    }
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let lower = mnemonic.to_ascii_lowercase();
    if !lower.starts_with("ds_") {
        return Err(ParseError::NotDs(mnemonic.to_string()));
    }
    let op = match DsOp::from_name_in(gen, &lower) {
        Some(op) => op,
        // Another generation's op or spelling: say so rather than guess at spellings.
        None => match DsOp::from_name(&lower) {
            Some(op) if op.info().in_generation(gen) => {
                return Err(ParseError::ForeignAlias {
                    name: mnemonic.to_string(),
                    op,
                    gen,
                })
            }
            Some(op) => return Err(ParseError::Inst(InstError::NotInGeneration { op, gen })),
            None => {
                return Err(ParseError::UnknownMnemonic {
                    name: mnemonic.to_string(),
                    near: suggest_in(gen, &lower, 3),
                })
            }
        },
    };
    let info = op.info();
    let mut inst = DsInst::new(op);

    let (regs, modifiers) = split_operands(rest)?;
    let fields: Vec<Field> = Field::ALL
        .into_iter()
        .filter(|&fl| info.operands.dwords(fl) > 0)
        .collect();
    if regs.len() != fields.len() {
        return Err(ParseError::OperandCount {
            op,
            expected: fields.len(),
            found: regs.len(),
            gen,
        });
    }
    let mut files = Vec::new();
    for (field, text) in fields.into_iter().zip(&regs) {
        let (file, first, dwords) = parse_reg(text)?;
        if field == Field::Addr && file == 'a' {
            return Err(ParseError::BadRegister {
                text: text.to_string(),
                why: "the address is a VGPR (only vdst and data can be AccVGPRs)".into(),
            });
        }
        if field != Field::Addr {
            files.push(file);
        }
        let expected = info.operands.dwords(field);
        if dwords != expected {
            return Err(ParseError::RegisterWidth {
                op,
                field,
                expected,
                found: dwords,
                gen,
            });
        }
        inst.set_reg(field, first);
    }

    if files.contains(&'a') {
        if files.contains(&'v') {
            return Err(ParseError::BadRegister {
                text: regs.join(", "),
                why: "vdst and data are all VGPRs or all AccVGPRs (one acc bit moves them all)"
                    .into(),
            });
        }
        inst.acc = true;
    }

    // Modifiers in LLVM's order; `stage` is how far along that order we are.
    let mut stage = 0;
    for m in &modifiers {
        let m = m.as_str();
        let (key, value) = m.split_once(':').map_or((m, None), |(k, v)| (k, Some(v)));
        let order = match (key, info.offset) {
            ("offset", OffsetForm::Single | OffsetForm::Swizzle) => 1,
            ("offset0", OffsetForm::Pair | OffsetForm::Stride64) => 1,
            ("offset1", OffsetForm::Pair | OffsetForm::Stride64) => 2,
            ("gds", _) => 3,
            _ => {
                let why = match info.offset {
                    _ if key != key.to_ascii_lowercase()
                        && ["offset", "offset0", "offset1", "gds"]
                            .contains(&key.to_ascii_lowercase().as_str()) =>
                    {
                        "modifiers are written in lower case".to_string()
                    }
                    OffsetForm::NoOffset => format!("{op} takes no offset"),
                    OffsetForm::Pair | OffsetForm::Stride64 => {
                        "this op takes offset0:N offset1:M, then gds".to_string()
                    }
                    _ => "this op takes offset:N, then gds".to_string(),
                };
                return Err(ParseError::Modifier {
                    op,
                    text: m.to_string(),
                    why,
                    gen,
                });
            }
        };
        if order <= stage {
            return Err(ParseError::Modifier {
                op,
                text: m.to_string(),
                why: "repeated or out of order (LLVM's order is offset, offset0, offset1, gds)"
                    .into(),
                gen,
            });
        }
        stage = order;
        if key == "gds" {
            if value.is_some() {
                return Err(ParseError::Modifier {
                    op,
                    text: m.into(),
                    why: "gds takes no value".into(),
                    gen,
                });
            }
            inst.gds = true;
            continue;
        }
        let value = value.unwrap_or("");
        if info.offset == OffsetForm::Swizzle {
            if let Some(args) = value
                .strip_prefix("swizzle(")
                .and_then(|v| v.strip_suffix(')'))
            {
                inst = inst.with_offset16(swizzle::parse(args).map_err(ParseError::Swizzle)?);
                continue;
            }
        }
        // LLVM reads the value as an expression: `-0` (any spelling of zero, negated) is 0; any
        // other negative value is out of the unsigned range, as it says.
        let n = match value.trim().strip_prefix('-') {
            Some(v) => parse_int(v).filter(|&n| n == 0),
            None => parse_int(value),
        }
        .ok_or_else(|| ParseError::BadNumber {
            text: value.to_string(),
        })?;
        let max = if key == "offset" {
            u32::from(u16::MAX)
        } else {
            u32::from(u8::MAX)
        };
        if n > max {
            let modifier = match key {
                "offset" => "offset",
                "offset0" => "offset0",
                _ => "offset1",
            };
            return Err(ParseError::OffsetRange {
                op,
                modifier,
                value: u64::from(n),
                max,
                gen,
            });
        }
        match key {
            "offset" => inst = inst.with_offset16(n as u16),
            "offset0" => inst.offset0 = n as u8,
            _ => inst.offset1 = n as u8,
        }
    }
    inst.validate(isa).map_err(ParseError::Inst)?;
    Ok(inst)
}

/// Splits the text after the mnemonic into register operands and the modifiers after them.
///
/// LLVM's AMDGPU parser separates operands by white space and optional commas (`v1, v2`, `v1 v2`
/// and a trailing comma are all accepted; two commas in a row are not), and allows white space
/// around a modifier's `:`. Brackets, parentheses and quotes keep a token whole, so
/// `v[2 : 3]` and `offset:swizzle(QUAD_PERM, 0, 1, 2, 3)` are one token each.
fn split_operands(rest: &str) -> Result<(Vec<String>, Vec<String>), ParseError> {
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut quoted, mut commas) = (0i32, false, 0usize);
    for c in rest.chars() {
        let split = !quoted && depth == 0 && (c == ',' || c.is_whitespace());
        if split {
            if !cur.is_empty() {
                tokens.push(std::mem::take(&mut cur));
                commas = 0;
            }
            if c == ',' {
                commas += 1;
                if commas > 1 || tokens.is_empty() {
                    return Err(ParseError::Syntax(
                        "a stray comma: operands are separated by one comma".into(),
                    ));
                }
            }
            continue;
        }
        match c {
            '"' => quoted = !quoted,
            '[' | '(' if !quoted => depth += 1,
            ']' | ')' if !quoted => depth -= 1,
            _ => {}
        }
        cur.push(c);
    }
    if depth != 0 || quoted {
        return Err(ParseError::Syntax(
            "unbalanced brackets, parentheses or quotes".into(),
        ));
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    // Join `offset :4`, `offset: 4` and `offset : 4` into `offset:4`.
    let mut joined: Vec<String> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(mut t) = iter.next() {
        if t == ":" || t.starts_with(':') {
            if let Some(prev) = joined.pop() {
                t = prev + &t;
            }
        }
        while t.ends_with(':') {
            match iter.next() {
                Some(next) => t += &next,
                None => break,
            }
        }
        joined.push(t);
    }
    let is_modifier = |t: &str| t.eq_ignore_ascii_case("gds") || top_level_colon(t);
    let first_mod = joined
        .iter()
        .position(|t| is_modifier(t))
        .unwrap_or(joined.len());
    let mods = joined.split_off(first_mod);
    if let Some(stray) = mods.iter().find(|t| !is_modifier(t)) {
        return Err(ParseError::Syntax(format!(
            "`{stray}` after the modifiers: register operands come first, then offset and gds"
        )));
    }
    Ok((joined, mods))
}

/// The token has a `:` outside brackets (a `key:value` modifier, not a `v[a:b]` tuple).
fn top_level_colon(t: &str) -> bool {
    let mut depth = 0;
    for c in t.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ':' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Parses `vN`, `v[N]` or `v[N:M]` (or the same with `a` for AccVGPRs) into (register file,
/// first register, dwords).
fn parse_reg(text: &str) -> Result<(char, u8, u8), ParseError> {
    let bad = |why: &str| ParseError::BadRegister {
        text: text.to_string(),
        why: why.to_string(),
    };
    // LLVM spells AccVGPRs `a1` and also reads `acc1` (`acc[2:3]`).
    let (file, body) = match text.strip_prefix("acc") {
        Some(body) => ('a', body),
        None => match text.chars().next().filter(|c| matches!(c, 'v' | 'a')) {
            Some(file) => (file, &text[1..]),
            None => return Err(bad("expected a VGPR such as v7 or v[2:3]")),
        },
    };
    let (lo, hi) = if let Some(inner) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        match inner.split_once(':') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (inner.trim(), inner.trim()),
        }
    } else {
        (body, body)
    };
    let num = |t: &str| -> Result<u32, ParseError> {
        if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad("expected a VGPR such as v7 or v[2:3]"));
        }
        t.parse::<u32>()
            .map_err(|_| bad("register index is out of range (v0..v255)"))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    // The field names the first register; where a tuple may end is the generation's
    // (`DsInst::validate`: v255, or gfx12.5's v1023).
    if lo > 255 || (hi > 255 && lo == hi) || hi > 1023 {
        return Err(bad("register index is out of range (v0..v255)"));
    }
    if hi < lo {
        return Err(bad("the last register of a tuple comes before the first"));
    }
    let dwords = hi - lo + 1;
    if dwords > 16 {
        return Err(bad("tuples are at most 16 registers"));
    }
    Ok((file, lo as u8, dwords as u8))
}

/// The line `llvm-mc-19 -show-encoding` prints for an instruction of the instruction set `isa`
/// (a target, or a generation): a tab, the text padded to column 40 (at least one space), then
/// `; encoding: [0x..,...]`.
pub fn llvm_mc_line(isa: impl Into<Isa>, inst: &DsInst) -> Result<String, InstError> {
    let isa = isa.into();
    let bytes = inst.to_bytes(isa)?;
    let text = inst.text(isa.gen).to_string();
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    Ok(format!("\t{text:<39} ; encoding: [{}]", hex.join(",")))
}
