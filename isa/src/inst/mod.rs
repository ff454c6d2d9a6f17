//! The kernel template's instructions as data: [`Inst`], a structured instruction an
//! interpreter can execute (operands as fields), with [`encode`], [`decode`] and LLVM syntax
//! ([`Inst::text`]: the text `llvm-objdump-19 -d --mcpu=<target>` prints), each for the
//! generation (or target) it is asked for.
//!
//! The formats are the ISA guides' "Microcode Formats" (SOP1, SOP2, SOPK, SOPC, SOPP, SMEM, VOP1,
//! VOP2, VOP3, VOPC, FLAT/GLOBAL, DS); operand codes their "Scalar and vector operands" tables
//! (SSRC / SRC encodings: SGPRs from 0, VCC 106/107, trap temporaries TTMP0..15 108..123, EXEC
//! 126/127, integer inline constants 128..208, float inline constants 240..248, literal 255, VGPRs
//! 256..511, the same in every generation; M0, NULL and the last SGPR are each generation's:
//! [`crate::gen::OperandCodes`]). Where a generation's formats differ, its module of
//! [`crate::gen`] says so and the codec reads it. DS instructions are the DS table's [`DsInst`].
//! Everything is checked against `llvm-mc-19` and `llvm-objdump-19` in
//! `kernels/tests/all/inst_vectors_llvm.rs` with `isa/tests/vectors/inst*.txt`.

pub mod acc;
mod codec;
mod decode;
mod encode;
pub mod ops;
mod print;

pub use decode::decode;
pub use encode::{encode, encode_into};
pub use ops::{
    GlobalOp, SmemOp, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op, Vop3Op, VopcOp,
};
pub use print::Text;

use crate::ds::DsInst;
use crate::gen::Generation;

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

/// The code of a literal in an SSRC/SRC field.
pub(crate) const LITERAL_CODE: u16 = 255;
/// The code of `ttmp0` in an SSRC/SRC field.
const TTMP_CODE: u16 = 108;

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

    /// The field code of this operand in generation `gen` (9-bit space; scalar fields use the
    /// low 256 codes): `m0` and `null` where the generation puts them ([`OperandCodes`](crate::gen::OperandCodes)), the
    /// shared codes otherwise. `None` where the generation has no such operand (gfx9's `null`,
    /// an SGPR past its last).
    pub fn code(self, gen: Generation) -> Option<u16> {
        let c = gen.spec().operands;
        Some(match self {
            Operand::Sgpr(n) if n >= c.sgprs => return None,
            Operand::Sgpr(n) => u16::from(n),
            Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::Ttmp(n) => TTMP_CODE + u16::from(n),
            Operand::Null => return c.null,
            Operand::M0 => c.m0,
            Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::Int(v) if v >= 0 => 128 + v as u16,
            Operand::Int(v) => 192 + (-i16::from(v)) as u16,
            Operand::Float(code) => u16::from(code),
            Operand::Literal(_) => LITERAL_CODE,
            Operand::Vgpr(n) => 256 + u16::from(n),
        })
    }

    /// The operand with field code `code` in generation `gen` (`literal` supplies the dword for
    /// code 255), or `None` for a code this crate does not model there (e.g. `src_scc`, DPP
    /// markers, gfx9's `flat_scratch`: [`OperandCodes::unmodelled`](crate::gen::OperandCodes::unmodelled)).
    pub fn from_code(gen: Generation, code: u16, literal: u32) -> Option<Operand> {
        let c = gen.spec().operands;
        if c.unmodelled.iter().any(|&(a, b)| (a..=b).contains(&code)) {
            return None;
        }
        if code == c.m0 {
            return Some(Operand::M0);
        }
        if c.null == Some(code) {
            return Some(Operand::Null);
        }
        Some(match code {
            0..=105 if code < u16::from(c.sgprs) => Operand::Sgpr(code as u8),
            106 => Operand::VccLo,
            107 => Operand::VccHi,
            108..=123 => Operand::Ttmp((code - TTMP_CODE) as u8),
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

    /// A register (SGPR, special scalar register or VGPR), as opposed to a constant.
    pub fn is_register(self) -> bool {
        self.constant().is_none()
    }
}

/// The counts an `s_waitcnt` waits for: at most this many operations of each kind may be
/// outstanding. A count at its maximum does not wait. Where each count sits in the immediate is
/// the generation's ([`WaitcntLayout`](crate::gen::WaitcntLayout): [`Waitcnt::to_simm16`], [`Waitcnt::from_simm16`]).
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

    /// The 16-bit immediate in generation `gen`'s layout, its unused bits zero. A count past its
    /// field's largest value is that value (no wait): gfx9's 4-bit LGKM_CNT cannot wait for 15
    /// or more.
    pub fn to_simm16(self, gen: Generation) -> u16 {
        let l = gen.spec().waitcnt;
        let mut w = [0u32];
        let mut vm = u32::from(self.vmcnt).min(l.vm_max());
        for f in l.vm {
            f.put(&mut w, vm);
            vm >>= f.bits;
        }
        l.exp.put(&mut w, u32::from(self.expcnt).min(l.exp.max()));
        l.lgkm
            .put(&mut w, u32::from(self.lgkmcnt).min(l.lgkm.max()));
        w[0] as u16
    }

    /// The counts of generation `gen`'s 16-bit immediate (its unused bits ignored). A field at
    /// its largest value reads as the count's maximum (no wait): gfx9's LGKM_CNT of 15 is
    /// [`Waitcnt::LGKM_MAX`].
    pub fn from_simm16(gen: Generation, simm16: u16) -> Waitcnt {
        let l = gen.spec().waitcnt;
        let w = [u32::from(simm16)];
        let mut vm = 0;
        let mut at = 0;
        for f in l.vm {
            vm |= f.get(&w) << at;
            at += f.bits;
        }
        let read = |v: u32, max: u32, none: u8| if v == max { none } else { v as u8 };
        Waitcnt {
            vmcnt: read(vm, l.vm_max(), Waitcnt::VM_MAX),
            expcnt: read(l.exp.get(&w), l.exp.max(), Waitcnt::EXP_MAX),
            lgkmcnt: read(l.lgkm.get(&w), l.lgkm.max(), Waitcnt::LGKM_MAX),
        }
    }

    /// The bits of generation `gen`'s immediate that no counter uses (gfx11 bit 3, gfx10 bit 7,
    /// gfx9 bits 7, 12 and 13): the encoder refuses them and [`decode`] rejects them.
    pub fn unused_bits(gen: Generation) -> u16 {
        gen.spec().waitcnt.unused()
    }
}

/// One instruction of the kernel template. Register numbers are first registers of tuples;
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
    /// `op sdst, simm16` (SOPK). `s_getreg_b32 sdst, hwreg(..)` reads a hardware register field
    /// (`simm16` is the `hwreg`); `s_setreg_imm32_b32 hwreg(..), imm` writes one, its 32-bit
    /// value in `sdst` as an [`Operand::Literal`] (encoded as the dword after the instruction).
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

    /// `s_waitcnt` with the given counts in generation `gen`'s layout.
    pub fn waitcnt(gen: Generation, w: Waitcnt) -> Inst {
        Inst::Sopp {
            op: SoppOp::Waitcnt,
            simm16: w.to_simm16(gen),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gfx10;
#[cfg(test)]
mod tests_gfx9;
