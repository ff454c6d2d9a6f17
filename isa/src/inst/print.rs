//! LLVM assembly syntax for [`Inst`]: exactly the text `llvm-objdump-19 -d --mcpu=<target>` prints
//! (which `llvm-mc-19` also reads back). Conventions observed from LLVM 19's AMDGPU instruction
//! printer: integer inline constants in decimal, literals in hex, VOP1/VOP2/VOPC mnemonics with
//! `_e32`, SMEM immediate offsets in hex (`null` when both offsets are absent), GLOBAL offsets in
//! decimal, branch distances as unsigned 16-bit decimals, `s_waitcnt` fields that wait.

use super::ops::sopp_kind;
use super::{Inst, Operand, Waitcnt};
use crate::ds::Generation;
use std::fmt::{self, Display, Formatter};

/// An operand printed with a width in dwords.
struct Wide(Operand, u8);

impl Display for Wide {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Wide(op, dwords) = *self;
        match op {
            Operand::Sgpr(n) if dwords > 1 => {
                write!(f, "s[{n}:{}]", u32::from(n) + u32::from(dwords) - 1)
            }
            Operand::Sgpr(n) => write!(f, "s{n}"),
            Operand::Vgpr(n) => VReg(n, dwords).fmt(f),
            Operand::VccLo if dwords == 2 => f.write_str("vcc"),
            Operand::ExecLo if dwords == 2 => f.write_str("exec"),
            Operand::VccLo => f.write_str("vcc_lo"),
            Operand::VccHi => f.write_str("vcc_hi"),
            Operand::Ttmp(n) if dwords > 1 => {
                write!(f, "ttmp[{n}:{}]", u32::from(n) + u32::from(dwords) - 1)
            }
            Operand::Ttmp(n) => write!(f, "ttmp{n}"),
            Operand::Null => f.write_str("null"),
            Operand::M0 => f.write_str("m0"),
            Operand::ExecLo => f.write_str("exec_lo"),
            Operand::ExecHi => f.write_str("exec_hi"),
            Operand::Int(v) => write!(f, "{v}"),
            Operand::Float(code) => f.write_str(match code {
                240 => "0.5",
                241 => "-0.5",
                242 => "1.0",
                243 => "-1.0",
                244 => "2.0",
                245 => "-2.0",
                246 => "4.0",
                247 => "-4.0",
                _ => "0.15915494",
            }),
            Operand::Literal(v) => write!(f, "{v:#x}"),
        }
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Wide(*self, 1).fmt(f)
    }
}

/// `vN` or `v[N:M]`.
struct VReg(u8, u8);

impl Display for VReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let VReg(n, dwords) = *self;
        if dwords > 1 {
            write!(f, "v[{n}:{}]", u32::from(n) + u32::from(dwords) - 1)
        } else {
            write!(f, "v{n}")
        }
    }
}

/// `sN` or `s[N:M]`.
struct SReg(u8, u8);

impl Display for SReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Wide(Operand::Sgpr(self.0), self.1).fmt(f)
    }
}

/// A signed offset in LLVM's hex form (`0x10`, `-0x10`).
struct SignedHex(i32);

impl Display for SignedHex {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "-{:#x}", -i64::from(self.0))
        } else {
            write!(f, "{:#x}", self.0)
        }
    }
}

impl Display for Waitcnt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::with_capacity(3);
        if self.vmcnt != Waitcnt::VM_MAX {
            parts.push(format!("vmcnt({})", self.vmcnt));
        }
        if self.expcnt != Waitcnt::EXP_MAX {
            parts.push(format!("expcnt({})", self.expcnt));
        }
        if self.lgkmcnt != Waitcnt::LGKM_MAX {
            parts.push(format!("lgkmcnt({})", self.lgkmcnt));
        }
        if parts.is_empty() {
            // Nothing waits: LLVM prints every field.
            return write!(
                f,
                "vmcnt({}) expcnt({}) lgkmcnt({})",
                self.vmcnt, self.expcnt, self.lgkmcnt
            );
        }
        f.write_str(&parts.join(" "))
    }
}

impl Display for Inst {
    /// The gfx11 text (see [`Inst::text`]).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.text(Generation::Gfx11).fmt(f)
    }
}

/// An instruction's text in one generation's syntax.
#[derive(Debug)]
pub struct Text<'a> {
    gen: Generation,
    inst: &'a Inst,
}

impl Inst {
    /// The text `llvm-objdump-19` prints for this instruction on a target of generation `gen`
    /// (gfx12 renames some scalar ops and prints SMEM offsets always; gfx10 names SMEM and GLOBAL
    /// widths in dwords).
    pub fn text(&self, gen: Generation) -> Text<'_> {
        Text { gen, inst: self }
    }
}

impl Display for Text<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let gen = self.gen;
        let gfx12 = gen == Generation::Gfx12;
        let gfx9 = gen == Generation::Gfx9;
        match *self.inst {
            Inst::Sop1 { op, sdst, src0 } => {
                write!(f, "{op} {}, {}", Wide(sdst, op.a()), Wide(src0, op.b()))
            }
            Inst::Sop2 {
                op,
                sdst,
                src0,
                src1,
            } => write!(
                f,
                "{} {}, {}, {}",
                op.name_in(gen),
                Wide(sdst, op.a()),
                Wide(src0, op.b()),
                Wide(src1, op.b())
            ),
            Inst::Sopk { op, sdst, simm16 } => {
                write!(f, "{} {sdst}, {simm16:#x}", op.name_in(gen))
            }
            Inst::Sopc { op, src0, src1 } => write!(f, "{op} {src0}, {src1}"),
            Inst::Sopp { op, simm16 } => match op.b() {
                sopp_kind::NONE => write!(f, "{op}"),
                // gfx9's LGKM_CNT is 4 bits: a wait for nothing prints its 15.
                sopp_kind::WAITCNT
                    if gfx9 && Waitcnt::from_simm16_in(gen, simm16) == Waitcnt::NONE =>
                {
                    write!(f, "{op} vmcnt(63) expcnt(7) lgkmcnt(15)")
                }
                sopp_kind::WAITCNT => write!(f, "{op} {}", Waitcnt::from_simm16_in(gen, simm16)),
                sopp_kind::WAIT12 | sopp_kind::HEX => write!(f, "{op} {simm16:#x}"),
                _ => write!(f, "{op} {simm16}"),
            },
            Inst::Smem {
                op,
                sdata,
                sbase,
                offset,
                soffset,
            } => {
                write!(
                    f,
                    "{} {}, {}, ",
                    op.name_in(gen),
                    SReg(sdata, op.dwords()),
                    SReg(sbase, 2)
                )?;
                match (soffset, offset) {
                    // gfx12 prints the immediate offset even when it is zero.
                    (None, off) if gfx12 => SignedHex(off).fmt(f),
                    (Some(s), off) if gfx12 => write!(f, "s{s} offset:{}", SignedHex(off)),
                    // gfx9 has no `null`: an absent offset prints as 0x0.
                    (None, 0) if gfx9 => f.write_str("0x0"),
                    (None, 0) => f.write_str("null"),
                    (None, off) => SignedHex(off).fmt(f),
                    (Some(s), 0) => write!(f, "s{s}"),
                    (Some(s), off) => write!(f, "s{s} offset:{}", SignedHex(off)),
                }
            }
            Inst::Vop1 { op, vdst, src0 } => write!(f, "{op}_e32 v{vdst}, {src0}"),
            Inst::Vop2 {
                op,
                vdst,
                src0,
                vsrc1,
            } => write!(f, "{}_e32 v{vdst}, {src0}, v{vsrc1}", op.name_in(gen)),
            Inst::Vop3 { op, vdst, src } => {
                write!(f, "{} v{vdst}", op.name_in(gen))?;
                for s in &src[..op.sources()] {
                    write!(f, ", {s}")?;
                }
                Ok(())
            }
            // gfx9 is wave64 only: its compares write `vcc`.
            Inst::Vopc { op, src0, vsrc1 } if gfx9 => write!(f, "{op}_e32 vcc, {src0}, v{vsrc1}"),
            Inst::Vopc { op, src0, vsrc1 } => write!(f, "{op}_e32 vcc_lo, {src0}, v{vsrc1}"),
            Inst::Global {
                op,
                vdata,
                vaddr,
                saddr,
                offset,
            } => {
                let addr = VReg(vaddr, if saddr.is_some() { 1 } else { 2 });
                let data = VReg(vdata, op.dwords());
                let name = op.name_in(gen);
                if op.is_store() {
                    write!(f, "{name} {addr}, {data}, ")?;
                } else {
                    write!(f, "{name} {data}, {addr}, ")?;
                }
                match saddr {
                    Some(s) => SReg(s, 2).fmt(f)?,
                    None => f.write_str("off")?,
                }
                if offset != 0 {
                    write!(f, " offset:{offset}")?;
                }
                Ok(())
            }
            Inst::Ds(ds) => ds.text_in(gen).fmt(f),
            Inst::Acc(m) => m.fmt(f),
        }
    }
}
