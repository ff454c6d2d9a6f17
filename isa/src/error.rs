//! The errors of every encoder, decoder and parser of the crate, one family: [`InstError`] (an
//! instruction's fields do not fit its op), [`EncodeError`] (an instruction that cannot be
//! encoded), [`DecodeError`] (bytes that are no instruction of the instruction set asked for) and
//! [`ParseError`] (a line that is no instruction in LLVM syntax). Each knows the generation it was
//! raised for, so its message spells the op as that generation does (gfx9 and gfx10 by their
//! gfx9 names) and says what to do; none is printed in a default generation's words.
//!
//! Facts: the field positions and LLVM's messages quoted are the DS table's and the ISA guides'
//! (`crate::ds::encode`, `crate::ds::syntax`, `crate::inst`).

use crate::ds::{doc, DsFeatures, DsOp, Family, Field, Isa};
use crate::gen::Generation;
use std::fmt;

/// A DS instruction whose fields do not fit its op in the instruction set it is for (shared by
/// the DS encoder, decoder and parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstError {
    /// A register field the op does not use holds a non-zero value.
    UnusedField {
        op: DsOp,
        field: Field,
        value: u8,
        gen: Generation,
    },
    /// A register tuple runs past the generation's last VGPR (v255; gfx12.5's v1023).
    RegisterRange {
        op: DsOp,
        field: Field,
        first: u8,
        dwords: u8,
        gen: Generation,
    },
    /// `gds` set on an op that only addresses LDS.
    GdsForbidden { op: DsOp, gen: Generation },
    /// `gds` missing on an op that only addresses GDS.
    GdsRequired { op: DsOp, gen: Generation },
    /// Non-zero offset bytes on an op that takes no offset.
    OffsetNotAllowed { op: DsOp, gen: Generation },
    /// The op does not exist in the generation encoded for.
    NotInGeneration { op: DsOp, gen: Generation },
    /// `gds` set in a generation without a GDS bit.
    NoGdsBit { op: DsOp, gen: Generation },
    /// The op is in the generation but not on this target (it lacks a feature the op needs).
    NotOnTarget { op: DsOp, isa: Isa },
    /// `gds` on an LDS op of a target without GDS (the bit is kept for the GWS ops).
    NoGds { op: DsOp, isa: Isa },
    /// `acc` on a target without AccVGPR operands, or on an op with no vdst or data.
    Acc { op: DsOp, isa: Isa },
    /// A register tuple (or a GWS data register) at an odd register on a target that needs even.
    Misaligned {
        op: DsOp,
        field: Field,
        first: u8,
        isa: Isa,
    },
}

impl InstError {
    /// The generation the error was raised for (whose spelling its message uses).
    pub fn gen(&self) -> Generation {
        match *self {
            InstError::UnusedField { gen, .. }
            | InstError::RegisterRange { gen, .. }
            | InstError::GdsForbidden { gen, .. }
            | InstError::GdsRequired { gen, .. }
            | InstError::OffsetNotAllowed { gen, .. }
            | InstError::NotInGeneration { gen, .. }
            | InstError::NoGdsBit { gen, .. } => gen,
            InstError::NotOnTarget { isa, .. }
            | InstError::NoGds { isa, .. }
            | InstError::Acc { isa, .. }
            | InstError::Misaligned { isa, .. } => isa.gen,
        }
    }
}

impl fmt::Display for InstError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gen = self.gen();
        let name = |op: DsOp| op.mnemonic(gen);
        match *self {
            InstError::UnusedField {
                op, field, value, ..
            } => write!(
                f,
                "{} does not use the {} field (bits {}), but it holds {value}: it must be 0{}",
                name(op),
                field.name(),
                field.bits(),
                if op.info().family == Family::Gws && field == Field::Data0 {
                    " (GWS ops keep their data0 register in the ADDR byte)"
                } else {
                    ""
                }
            ),
            InstError::RegisterRange {
                op,
                field,
                first,
                dwords,
                gen,
            } => {
                let last = u32::from(gen.spec().vgprs) - 1;
                write!(
                    f,
                    "{} reads {dwords} dwords of {} from v{first}: v[{first}:{}] runs past v{last} \
                     (the registers are v0..v{last}): start at v{} or lower",
                    name(op),
                    field.name(),
                    u32::from(first) + u32::from(dwords) - 1,
                    last + 1 - u32::from(dwords)
                )
            }
            InstError::GdsForbidden { op, .. } => {
                write!(f, "{} cannot address GDS: remove `gds`", name(op))
            }
            InstError::GdsRequired { op, .. } => write!(
                f,
                "{} only addresses GDS: it must be written with `gds`",
                name(op)
            ),
            InstError::OffsetNotAllowed { op, .. } => {
                write!(
                    f,
                    "{} takes no offset: the offset bytes must be 0",
                    name(op)
                )
            }
            InstError::NotInGeneration { op, gen } => {
                let has: Vec<&str> = op.info().generations().map(Generation::name).collect();
                let has = match has.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => has.join(""),
                };
                write!(
                    f,
                    "{op} is not a {gen} DS instruction (it is {has}): pick a target of that generation or another op"
                )
            }
            InstError::NoGdsBit { op, gen } => write!(
                f,
                "{}: {gen} has no GDS (its DS encoding has no gds bit): remove `gds`",
                name(op)
            ),
            InstError::NotOnTarget { op, isa } => {
                let lacking = op.info().needs.difference(isa.features);
                let on: Vec<&str> = crate::target::TARGETS
                    .iter()
                    .filter(|t| op.info().on(*t))
                    .map(|t| t.name)
                    .collect();
                write!(
                    f,
                    "{} is not a {isa} DS instruction: it needs the {lacking} feature, which {isa} \
                     lacks (the targets that have it: {})",
                    name(op),
                    if on.is_empty() {
                        "none".to_string()
                    } else {
                        on.join(", ")
                    }
                )
            }
            InstError::NoGds { op, isa } => write!(
                f,
                "{}: {isa} has no GDS (its gds bit is only for the GWS ops): remove `gds`",
                name(op)
            ),
            InstError::Acc { op, isa } if isa.has(DsFeatures::ACC) => write!(
                f,
                "{} has no vdst or data operand to put in AccVGPRs: it takes no `a` registers",
                name(op)
            ),
            InstError::Acc { op, isa } => write!(
                f,
                "{}: {isa} has no AccVGPR operands for DS instructions (no acc bit): write v \
                 registers",
                name(op)
            ),
            InstError::Misaligned {
                op,
                field,
                first,
                isa,
            } => write!(
                f,
                "{} {} starts at register {first}: {isa} needs register tuples (and GWS data) to \
                 start at an even register (LLVM: \"vgpr tuples must be 64 bit aligned\")",
                name(op),
                field.name()
            ),
        }
    }
}

impl std::error::Error for InstError {}

/// Why an instruction cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// An operand that does not fit its field (e.g. a VGPR in a scalar field, a register past
    /// the file, two different literals), or an op the generation lacks: the instruction (as
    /// written) and why.
    Operand { inst: String, why: String },
    /// A DS instruction's fields do not fit its op.
    Inst(InstError),
}

impl From<InstError> for EncodeError {
    fn from(e: InstError) -> EncodeError {
        EncodeError::Inst(e)
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Operand { inst, why } => write!(f, "cannot encode `{inst}`: {why}"),
            EncodeError::Inst(e) => write!(f, "cannot encode DS instruction: {e}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why bytes are not an instruction of the instruction set asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The instruction (or its literal) runs past the end of the bytes.
    Truncated { needed: usize, have: usize },
    /// The word belongs to no format, or names no opcode, of the template's instructions.
    Unknown { word: u32 },
    /// A valid instruction using something this crate does not model (a modifier, cache bit,
    /// operand kind): may be legal, but the template never emits it.
    Unmodelled { word: u32, what: &'static str },
    /// Bits [31:26] are not the DS encoding 0b110110: the word belongs to another format.
    NotDs { encoding: u8 },
    /// The OP field names no DS instruction of the generation.
    UnknownOpcode(u8, Generation),
    /// The DS reserved bit (16; gfx9 without `acc`: 25) is set.
    ReservedBit(u32),
    /// The DS fields do not fit the op.
    Inst(InstError),
}

impl DecodeError {
    /// The field error, if that is why the word was refused.
    pub fn inst(&self) -> Option<InstError> {
        match *self {
            DecodeError::Inst(e) => Some(e),
            _ => None,
        }
    }
}

impl From<InstError> for DecodeError {
    fn from(e: InstError) -> DecodeError {
        DecodeError::Inst(e)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { needed, have } => write!(
                f,
                "instruction truncated: it needs {needed} bytes, {have} are left (is the code cut short?)"
            ),
            DecodeError::Unknown { word } => write!(
                f,
                "{word:#010x} is not an instruction of the kernel template's formats (SOP*, SMEM, VOP1/2/3/C, GLOBAL, DS)"
            ),
            DecodeError::Unmodelled { word, what } => write!(
                f,
                "{word:#010x}: {what} is not modelled here (the kernel template never emits it)"
            ),
            DecodeError::NotDs { encoding } => write!(
                f,
                "not a DS instruction: bits [31:26] are {encoding:#08b}, DS is 0b110110 (is the word in little-endian byte order?)"
            ),
            DecodeError::UnknownOpcode(op, gen) => write!(
                f,
                "opcode {op:#04x} is not a {gen} DS instruction (`ds-harness list` shows the defined ones)"
            ),
            DecodeError::ReservedBit(bit) => {
                write!(f, "reserved bit {bit} is set: it must be 0 (llvm-mc-19 ignores it)")
            }
            DecodeError::Inst(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a line is not a DS instruction of an instruction set in LLVM syntax. The errors that
/// name an op carry the generation it was parsed for, whose spelling the message uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Nothing but white space and comments.
    Empty,
    /// The mnemonic does not start with `ds_`: some other instruction.
    NotDs(String),
    /// Another generation's spelling of an op this generation writes by its mnemonic (e.g.
    /// gfx12's `ds_subrev_u32` on gfx11).
    ForeignAlias {
        name: String,
        op: DsOp,
        gen: Generation,
    },
    /// A `ds_` mnemonic that the generation does not define.
    UnknownMnemonic {
        name: String,
        near: Vec<&'static str>,
    },
    /// The number of register operands does not fit the op.
    OperandCount {
        op: DsOp,
        expected: usize,
        found: usize,
        gen: Generation,
    },
    /// A register operand that is not `vN`, `v[N]` or `v[N:M]` within v0..v255.
    BadRegister { text: String, why: String },
    /// A register tuple of the wrong width.
    RegisterWidth {
        op: DsOp,
        field: Field,
        expected: u8,
        found: u8,
        gen: Generation,
    },
    /// A number the syntax does not read.
    BadNumber { text: String },
    /// An offset outside its field.
    OffsetRange {
        op: DsOp,
        modifier: &'static str,
        value: u64,
        max: u32,
        gen: Generation,
    },
    /// A modifier this op does not take, a repeated one, or one out of order.
    Modifier {
        op: DsOp,
        text: String,
        why: String,
        gen: Generation,
    },
    /// A malformed `swizzle(...)` macro.
    Swizzle(String),
    /// Operands that do not split into registers and modifiers (stray commas, brackets...).
    Syntax(String),
    /// The fields do not fit the op (e.g. `gds` where it is forbidden).
    Inst(InstError),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "no instruction on this line"),
            ParseError::NotDs(m) => {
                write!(f, "`{m}` is not a DS instruction: only ds_* mnemonics are assembled here")
            }
            ParseError::ForeignAlias { name, op, gen } => write!(
                f,
                "`{name}` is not a {gen} spelling (LLVM reads it for another generation): write `{}`",
                op.mnemonic(*gen)
            ),
            ParseError::UnknownMnemonic { name, near } if near.is_empty() => {
                write!(f, "unknown DS mnemonic `{name}` (`ds-harness list` shows all of them)")
            }
            ParseError::UnknownMnemonic { name, near } => {
                write!(f, "unknown DS mnemonic `{name}`: did you mean {}?", near.join(", "))
            }
            ParseError::OperandCount {
                op,
                expected,
                found,
                gen,
            } => write!(
                f,
                "{} takes {expected} register operand(s) ({}), found {found}: for example `{}`",
                op.mnemonic(*gen),
                operand_names(*op),
                doc::numbered(*op).text(*gen)
            ),
            ParseError::BadRegister { text, why } => write!(f, "bad register `{text}`: {why}"),
            ParseError::RegisterWidth {
                op,
                field,
                expected,
                found,
                gen,
            } => write!(
                f,
                "{} takes {expected} dword(s) in {}, found a {found}-register operand: write {}",
                op.mnemonic(*gen),
                field.name(),
                if *expected == 1 {
                    "vN".to_string()
                } else {
                    format!("v[N:N+{}]", expected - 1)
                }
            ),
            ParseError::BadNumber { text } => write!(
                f,
                "`{text}` is not an unsigned number (decimal, 0x hex, 0b binary or 0-prefixed octal)"
            ),
            ParseError::OffsetRange {
                op,
                modifier,
                value,
                max,
                gen,
            } => {
                let scale = op.info().offset_scale();
                if *modifier == "offset" {
                    write!(
                        f,
                        "{modifier}:{value} is too large for {}: the offset is an unsigned \
                         16-bit byte count, at most {max}",
                        op.mnemonic(*gen)
                    )
                } else {
                    write!(
                        f,
                        "{modifier}:{value} is too large for {}: {modifier} is an 8-bit count \
                         of {scale}-byte units, at most {max} ({} bytes)",
                        op.mnemonic(*gen),
                        max * scale
                    )
                }
            }
            ParseError::Modifier { op, text, why, gen } => {
                write!(f, "`{text}` on {}: {why}", op.mnemonic(*gen))
            }
            ParseError::Swizzle(why) => write!(f, "bad swizzle: {why}"),
            ParseError::Syntax(why) => write!(f, "cannot read the operands: {why}"),
            ParseError::Inst(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ParseError {}

fn operand_names(op: DsOp) -> String {
    let names: Vec<&str> = Field::ALL
        .iter()
        .filter(|&&fl| op.info().operands.dwords(fl) > 0)
        .map(|fl| fl.name())
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
