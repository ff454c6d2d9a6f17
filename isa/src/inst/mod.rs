//! The kernel template's instructions as data: [`Inst`], a structured gfx11 instruction an
//! interpreter can execute (operands as fields), with [`encode`], [`decode`] and LLVM syntax
//! through `Display` (the text `llvm-objdump-19 -d --mcpu=<target>` prints for every gfx11 target).
//!
//! Formats and field layouts come from AMD's "RDNA3 Instruction Set Architecture Reference Guide",
//! chapter "Microcode Formats" (SOP1, SOP2, SOPK, SOPC, SOPP, SMEM, VOP1, VOP2, VOP3, VOPC, FLAT,
//! DS); operand codes from its "Scalar and vector operands" tables (SSRC / SRC encodings: SGPRs
//! 0..105, VCC 106/107, trap temporaries TTMP0..15 108..123, NULL 124, M0 125, EXEC 126/127,
//! integer inline constants 128..208, float inline constants 240..248, literal 255, VGPRs
//! 256..511; the RDNA4 guide's tables give gfx12 the same codes). DS instructions are the reference
//! crate's [`DsInst`] (the one DS table). Everything is checked against `llvm-mc-19` and
//! `llvm-objdump-19` in `tests/llvm_inst.rs` and `tests/vectors/inst.txt`.

pub mod acc;
mod codec;
pub mod ops;
mod print;

pub use codec::{decode, decode_in, encode, encode_in, encode_into, encode_into_in};
pub use ops::{
    GlobalOp, SmemOp, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op, Vop3Op, VopcOp,
};
pub use print::Text;

use crate::ds::{DsInst, Generation};
use std::fmt;

/// A scalar or vector source (or a scalar destination), as the 8-bit SSRC / 9-bit SRC field
/// encodes it. For 64-bit operands, the register names the first of the pair (`VccLo` is `vcc`,
/// `ExecLo` is `exec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `sN`, N in 0..=105 (codes 0..105).
    Sgpr(u8),
    /// `vcc_lo` (106).
    VccLo,
    /// `vcc_hi` (107).
    VccHi,
    /// `ttmpN`, N in 0..=15 (codes 108..123): trap temporaries. A kernel only reads them: gfx12
    /// delivers the workgroup ids there (`ttmp9`, `ttmp7`; see [`crate::entry`]); writes outside
    /// a trap handler are ignored by the hardware, so no template writes one.
    Ttmp(u8),
    /// `null` (124): reads 0, writes are discarded.
    Null,
    /// `m0` (125).
    M0,
    /// `exec_lo` (126): the wave32 EXEC mask.
    ExecLo,
    /// `exec_hi` (127).
    ExecHi,
    /// An integer inline constant -16..=64 (codes 128..208), sign-extended to the operand width.
    Int(i8),
    /// A float inline constant, by its code 240..=248 (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0,
    /// 1/(2*pi)); see [`Operand::float_bits`].
    Float(u8),
    /// A 32-bit literal (code 255): the dword after the instruction.
    Literal(u32),
    /// `vN` (codes 256..511; only where the field is 9 bits wide).
    Vgpr(u8),
}

/// The encoding of an operand in an SSRC/SRC field.
pub(crate) const LITERAL_CODE: u16 = 255;
/// The code of `ttmp0` in an SSRC/SRC field.
pub(crate) const TTMP_CODE: u16 = 108;
/// The last SGPR of gfx9 (s101; 102..105 are `flat_scratch` and `xnack_mask`).
pub(crate) const LAST_SGPR_GFX9: u8 = 101;
/// The SGPR number `null` stands for in an SDST / SADDR / SOFFSET field (gfx11, gfx12).
pub(crate) const NULL_CODE: u8 = 124;

/// The code `null` (or `off`) has in an SADDR / SOFFSET field of generation `gen` (gfx9, which
/// has no `null`: GLOBAL's `off`, 0x7f, as `llvm-mc-19` for Vega and CDNA 3 encodes it).
pub(crate) fn null_code(gen: Generation) -> u8 {
    match gen {
        Generation::Gfx9 => GLOBAL_OFF_GFX9,
        _ => Operand::Null.code_in(gen) as u8,
    }
}

/// gfx9 GLOBAL's SADDR code for `off`.
const GLOBAL_OFF_GFX9: u8 = 0x7f;

impl Operand {
    /// The operand for constant `value`: an inline constant when one fits, else a literal.
    pub fn imm(value: i32) -> Operand {
        match value {
            -16..=64 => Operand::Int(value as i8),
            _ => Operand::Literal(value as u32),
        }
    }

    /// The 32-bit value of a constant operand (inline integer, inline float or literal).
    pub fn constant(self) -> Option<u32> {
        match self {
            Operand::Int(v) => Some(i32::from(v) as u32),
            Operand::Float(code) => Operand::float_bits(code),
            Operand::Literal(v) => Some(v),
            _ => None,
        }
    }

    /// The binary32 bits of float inline constant `code` (240..=248).
    pub fn float_bits(code: u8) -> Option<u32> {
        Some(match code {
            240 => 0x3f00_0000, // 0.5
            241 => 0xbf00_0000, // -0.5
            242 => 0x3f80_0000, // 1.0
            243 => 0xbf80_0000, // -1.0
            244 => 0x4000_0000, // 2.0
            245 => 0xc000_0000, // -2.0
            246 => 0x4080_0000, // 4.0
            247 => 0xc080_0000, // -4.0
            248 => 0x3e22_f983, // 1/(2*pi)
            _ => return None,
        })
    }

    /// The field code of this operand (9-bit space; scalar fields use the low 256 codes).
    pub fn code(self) -> u16 {
        match self {
            Operand::Sgpr(n) => u16::from(n),
            Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::Ttmp(n) => TTMP_CODE + u16::from(n),
            Operand::Null => u16::from(NULL_CODE),
            Operand::M0 => 125,
            Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::Int(v) if v >= 0 => 128 + v as u16,
            Operand::Int(v) => 192 + (-i16::from(v)) as u16,
            Operand::Float(code) => u16::from(code),
            Operand::Literal(_) => LITERAL_CODE,
            Operand::Vgpr(n) => 256 + u16::from(n),
        }
    }

    /// The operand with field code `code` (`literal` supplies the dword for code 255), or `None`
    /// for a code this crate does not model (e.g. `src_scc`, DPP markers).
    pub fn from_code(code: u16, literal: u32) -> Option<Operand> {
        Some(match code {
            0..=105 => Operand::Sgpr(code as u8),
            106 => Operand::VccLo,
            107 => Operand::VccHi,
            108..=123 => Operand::Ttmp((code - TTMP_CODE) as u8),
            124 => Operand::Null,
            125 => Operand::M0,
            126 => Operand::ExecLo,
            127 => Operand::ExecHi,
            128..=192 => Operand::Int((code - 128) as i8),
            193..=208 => Operand::Int(-((code - 192) as i8)),
            240..=248 => Operand::Float(code as u8),
            255 => Operand::Literal(literal),
            256..=511 => Operand::Vgpr((code - 256) as u8),
            _ => return None,
        })
    }

    /// The field code of this operand in generation `gen`: gfx9 and gfx10 have `m0` at 124
    /// (RDNA 2 ISA guide and Vega ISA guide, "Scalar and vector operands"; `llvm-mc-19` encodes
    /// it so for every gfx9 and gfx10 target), gfx10 `null` at 125, gfx11 and gfx12 the other
    /// way round; gfx9 has no `null` ([`Operand::exists_in`]); every other code is shared.
    pub fn code_in(self, gen: Generation) -> u16 {
        match (gen, self) {
            (Generation::Gfx9 | Generation::Gfx10, Operand::M0) => u16::from(NULL_CODE),
            (Generation::Gfx10, Operand::Null) => 125,
            _ => self.code(),
        }
    }

    /// The operand with field code `code` in generation `gen` (see [`Operand::code_in`]). On
    /// gfx9, codes 102..105 are `flat_scratch` and `xnack_mask` (not SGPRs: the Vega guide's
    /// SGPRs end at s101) and 125 is reserved: neither is modelled.
    pub fn from_code_in(gen: Generation, code: u16, literal: u32) -> Option<Operand> {
        match (gen, code) {
            (Generation::Gfx9, 102..=105 | 125) => None,
            (Generation::Gfx9 | Generation::Gfx10, 124) => Some(Operand::M0),
            (Generation::Gfx10, 125) => Some(Operand::Null),
            _ => Operand::from_code(code, literal),
        }
    }

    /// Whether generation `gen` has this operand: gfx9 has no `null` and its SGPRs end at s101
    /// (Vega and CDNA3 ISA guides, "Scalar and vector operands"; `llvm-mc-19` for a Vega target
    /// refuses `s102` and `null`).
    pub fn exists_in(self, gen: Generation) -> bool {
        match (gen, self) {
            (Generation::Gfx9, Operand::Null) => false,
            (Generation::Gfx9, Operand::Sgpr(n)) => n <= LAST_SGPR_GFX9,
            _ => true,
        }
    }

    /// A register (SGPR, special scalar register or VGPR), as opposed to a constant.
    pub fn is_register(self) -> bool {
        self.constant().is_none()
    }
}

/// The gfx11 `s_waitcnt` immediate: VM_CNT \[15:10\], LGKM_CNT \[9:4\], EXP_CNT \[2:0\] (bit 3 unused).
/// A field at its maximum does not wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Waitcnt {
    /// Outstanding vector memory loads allowed (0..=63).
    pub vmcnt: u8,
    /// Outstanding exports / GDS operations allowed (0..=7).
    pub expcnt: u8,
    /// Outstanding LDS, GDS, constant (SMEM) and message operations allowed (0..=63).
    pub lgkmcnt: u8,
}

impl Waitcnt {
    /// Largest VM_CNT (no wait).
    pub const VM_MAX: u8 = 63;
    /// Largest EXP_CNT (no wait).
    pub const EXP_MAX: u8 = 7;
    /// Largest LGKM_CNT (no wait).
    pub const LGKM_MAX: u8 = 63;
    /// Waits for nothing.
    pub const NONE: Waitcnt = Waitcnt {
        vmcnt: 63,
        expcnt: 7,
        lgkmcnt: 63,
    };

    /// Wait until at most `n` vector memory loads are outstanding.
    pub fn vm(n: u8) -> Waitcnt {
        Waitcnt {
            vmcnt: n,
            ..Waitcnt::NONE
        }
    }

    /// Wait until at most `n` LDS/SMEM operations are outstanding.
    pub fn lgkm(n: u8) -> Waitcnt {
        Waitcnt {
            lgkmcnt: n,
            ..Waitcnt::NONE
        }
    }

    /// The 16-bit immediate (bit 3 zero).
    pub fn to_simm16(self) -> u16 {
        u16::from(self.vmcnt & 63) << 10
            | u16::from(self.lgkmcnt & 63) << 4
            | u16::from(self.expcnt & 7)
    }

    /// The 16-bit immediate in generation `gen`: gfx11's layout ([`Waitcnt::to_simm16`]), or
    /// gfx10's: VM_CNT \[3:0\] and \[15:14\], EXP_CNT \[6:4\], LGKM_CNT \[13:8\], bit 7 unused
    /// (RDNA 2 ISA guide, SOPP `S_WAITCNT`; `llvm-mc-19` for gfx10 encodes
    /// `s_waitcnt vmcnt(0)` as 0x3f70), or gfx9's: as gfx10's with a 4-bit LGKM_CNT \[11:8\]
    /// (Vega and CDNA3 ISA guides, SOPP `S_WAITCNT`; `llvm-mc-19` for Vega and CDNA 3 encodes
    /// `s_waitcnt vmcnt(0)` as 0x0f70), so an LGKM count of 15 or more does not wait there.
    pub fn to_simm16_in(self, gen: Generation) -> u16 {
        let lgkm_bits = match gen {
            Generation::Gfx9 => 15,
            Generation::Gfx10 => 63,
            Generation::Gfx11 | Generation::Gfx12 => return self.to_simm16(),
        };
        let vm = u16::from(self.vmcnt & 63);
        (vm & 15)
            | (vm >> 4) << 14
            | u16::from(self.lgkmcnt.min(lgkm_bits)) << 8
            | u16::from(self.expcnt & 7) << 4
    }

    /// The fields of generation `gen`'s 16-bit immediate (its unused bits ignored). gfx9's
    /// LGKM_CNT of 15 (no wait) reads as [`Waitcnt::LGKM_MAX`].
    pub fn from_simm16_in(gen: Generation, simm16: u16) -> Waitcnt {
        let lgkm_bits = match gen {
            Generation::Gfx9 => 15,
            Generation::Gfx10 => 63,
            Generation::Gfx11 | Generation::Gfx12 => return Waitcnt::from_simm16(simm16),
        };
        let lgkmcnt = match (simm16 >> 8) as u8 & lgkm_bits {
            n if n == lgkm_bits => Waitcnt::LGKM_MAX,
            n => n,
        };
        Waitcnt {
            vmcnt: (simm16 & 15 | (simm16 >> 14) << 4) as u8,
            lgkmcnt,
            expcnt: (simm16 >> 4) as u8 & 7,
        }
    }

    /// The bits of generation `gen`'s immediate that no counter uses (gfx11 bit 3, gfx10 bit
    /// 7, gfx9 bits 7, 12 and 13): the encoder refuses them and [`decode`] rejects them.
    pub fn unused_bits(gen: Generation) -> u16 {
        match gen {
            Generation::Gfx9 => 0x3080,
            Generation::Gfx10 => 0x80,
            Generation::Gfx11 | Generation::Gfx12 => 8,
        }
    }

    /// The fields of a 16-bit immediate (bit 3 ignored; [`decode`] rejects it).
    pub fn from_simm16(simm16: u16) -> Waitcnt {
        Waitcnt {
            vmcnt: (simm16 >> 10) as u8 & 63,
            lgkmcnt: (simm16 >> 4) as u8 & 63,
            expcnt: simm16 as u8 & 7,
        }
    }
}

/// One gfx11 instruction of the kernel template. Register numbers are first registers of tuples;
/// tuple widths come from the op's table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// `op sdst, src0` (SOP1).
    Sop1 {
        op: Sop1Op,
        sdst: Operand,
        src0: Operand,
    },
    /// `op sdst, src0, src1` (SOP2); SCC is written as the op defines (carry, non-zero result...).
    Sop2 {
        op: Sop2Op,
        sdst: Operand,
        src0: Operand,
        src1: Operand,
    },
    /// `op sdst, simm16` (SOPK).
    Sopk {
        op: SopkOp,
        sdst: Operand,
        simm16: u16,
    },
    /// `op src0, src1` (SOPC): SCC = the comparison.
    Sopc {
        op: SopcOp,
        src0: Operand,
        src1: Operand,
    },
    /// `op simm16` (SOPP). For branches, `simm16` is the signed distance in dwords from the
    /// instruction after the branch ([`Inst::branch_target`]); for `s_waitcnt`, see [`Waitcnt`].
    Sopp { op: SoppOp, simm16: u16 },
    /// `op sdata, s[sbase:sbase+1], offset` (SMEM): loads `op.dwords()` dwords from
    /// `s[sbase:sbase+1] + offset + soffset` (soffset `None` is `null`, adding 0). `sbase` is even.
    Smem {
        op: SmemOp,
        sdata: u8,
        sbase: u8,
        /// Signed 21-bit byte offset.
        offset: i32,
        soffset: Option<u8>,
    },
    /// `op vdst, src0` (VOP1, `_e32`).
    Vop1 { op: Vop1Op, vdst: u8, src0: Operand },
    /// `op vdst, src0, vsrc1` (VOP2, `_e32`).
    Vop2 {
        op: Vop2Op,
        vdst: u8,
        src0: Operand,
        vsrc1: u8,
    },
    /// `op vdst, src0[, src1[, src2]]` (VOP3, no modifiers). Sources past `op.sources()` are
    /// `Sgpr(0)`, as LLVM encodes them.
    Vop3 {
        op: Vop3Op,
        vdst: u8,
        src: [Operand; 3],
    },
    /// `op vcc_lo, src0, vsrc1` (VOPC, `_e32`): VCC_LO bit i = the comparison in lane i.
    Vopc {
        op: VopcOp,
        src0: Operand,
        vsrc1: u8,
    },
    /// A GLOBAL load or store (no cache-policy bits). With `saddr = Some(s)` the address is
    /// `s[s:s+1] + zext(v[vaddr]) + offset`; with `None` (`off`) it is `v[vaddr:vaddr+1] + offset`.
    /// `vdata` is VDST for loads and DATA for stores.
    Global {
        op: GlobalOp,
        vdata: u8,
        vaddr: u8,
        saddr: Option<u8>,
        /// Signed 13-bit byte offset.
        offset: i16,
    },
    /// A DS instruction (the reference crate's DS table and encoder).
    Ds(DsInst),
    /// An AccVGPR move (`v_accvgpr_write_b32` / `v_accvgpr_read_b32`, [`acc`]): targets whose
    /// DS encoding has the acc bit.
    Acc(acc::AccMove),
}

impl Inst {
    /// The address a branch at byte address `pc` jumps to when taken (`None` for non-branches):
    /// `pc + 4 + 4 * sext(simm16)`.
    pub fn branch_target(&self, pc: u64) -> Option<u64> {
        match *self {
            Inst::Sopp { op, simm16 } if op.b() == ops::sopp_kind::BRANCH => Some(
                pc.wrapping_add(4)
                    .wrapping_add((i64::from(simm16 as i16) * 4) as u64),
            ),
            _ => None,
        }
    }

    /// `s_waitcnt` with the given counts.
    pub fn waitcnt(w: Waitcnt) -> Inst {
        Inst::waitcnt_in(Generation::Gfx11, w)
    }

    /// `s_waitcnt` with the given counts in generation `gen`'s layout.
    pub fn waitcnt_in(gen: Generation, w: Waitcnt) -> Inst {
        Inst::Sopp {
            op: SoppOp::Waitcnt,
            simm16: w.to_simm16_in(gen),
        }
    }
}

/// Why bytes do not decode to an [`Inst`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The instruction (or its literal) runs past the end of the bytes.
    Truncated { needed: usize, have: usize },
    /// The word belongs to no format, or names no opcode, this crate knows.
    Unknown { word: u32 },
    /// A valid gfx11 instruction using something this crate does not model (a modifier, cache
    /// bit, operand kind): may be legal, but the template never emits it.
    Unmodelled { word: u32, what: &'static str },
    /// A DS word that the DS table rejects.
    Ds(crate::ds::DecodeError),
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
            DecodeError::Ds(e) => write!(f, "bad DS instruction: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why an [`Inst`] cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// An operand that does not fit its field (e.g. a VGPR in a scalar field, a register past
    /// the file, two different literals).
    Operand { inst: String, why: String },
    /// The DS fields do not fit the op.
    Ds(crate::ds::InstError),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Operand { inst, why } => write!(f, "cannot encode `{inst}`: {why}"),
            EncodeError::Ds(e) => write!(f, "cannot encode DS instruction: {e}"),
        }
    }
}

impl std::error::Error for EncodeError {}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gfx10;
#[cfg(test)]
mod tests_gfx9;
