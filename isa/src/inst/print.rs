//! LLVM assembly syntax for [`Inst`]: exactly the text `llvm-objdump-19 -d --mcpu=<target>` prints
//! (which `llvm-mc-19` also reads back). Conventions observed from LLVM 19's AMDGPU instruction
//! printer: integer inline constants in decimal, literals in hex, VOP1/VOP2/VOPC mnemonics with
//! `_e32`, SMEM immediate offsets in hex (`null` when both offsets are absent), GLOBAL offsets in
//! decimal, branch distances as unsigned 16-bit decimals, `s_waitcnt` fields that wait.

use super::ops::{sopk_kind, sopp_kind};
use super::{Inst, Operand, Waitcnt};
use crate::gen::Generation;
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

/// A hardware register field (`s_getreg_b32`'s and `s_setreg_imm32_b32`'s SIMM16: id [5:0],
/// offset [10:6], size - 1 [15:11]) as LLVM prints it: `hwreg(HW_REG_IB_STS2, 6, 4)`, the name
/// the generation gives the id (else the number), and the offset and size unless they cover the
/// whole register (`hwreg(HW_REG_IB_STS2)`).
struct HwReg(u16, Generation);

impl Display for HwReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let HwReg(simm16, gen) = *self;
        let (id, offset, size) = (simm16 & 0x3f, simm16 >> 6 & 0x1f, (simm16 >> 11) + 1);
        f.write_str("hwreg(")?;
        match gen.hwreg_name(id) {
            Some(name) => f.write_str(name)?,
            None => write!(f, "{id}")?,
        }
        if (offset, size) != (0, 32) {
            write!(f, ", {offset}, {size}")?;
        }
        f.write_str(")")
    }
}

/// An `s_waitcnt`'s counts in LLVM's words: the counts that wait, or, when none does, every
/// field at its largest value in the generation's layout (`WaitcntLayout`: gfx9's LGKM_CNT is 15).
struct WaitText(Waitcnt, Generation);

impl Display for WaitText {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let WaitText(w, gen) = *self;
        let mut parts = Vec::with_capacity(3);
        if w.vmcnt != Waitcnt::VM_MAX {
            parts.push(format!("vmcnt({})", w.vmcnt));
        }
        if w.expcnt != Waitcnt::EXP_MAX {
            parts.push(format!("expcnt({})", w.expcnt));
        }
        if w.lgkmcnt != Waitcnt::LGKM_MAX {
            parts.push(format!("lgkmcnt({})", w.lgkmcnt));
        }
        if parts.is_empty() {
            // Nothing waits: LLVM prints every field.
            let l = gen.spec().waitcnt;
            return write!(
                f,
                "vmcnt({}) expcnt({}) lgkmcnt({})",
                l.vm_max(),
                l.exp.max(),
                l.lgkm.max()
            );
        }
        f.write_str(&parts.join(" "))
    }
}

/// An instruction's text in one generation's syntax ([`Inst::text`]).
#[derive(Debug)]
pub struct Text<'a> {
    gen: Generation,
    inst: &'a Inst,
}

impl Inst {
    /// The text `llvm-objdump-19` prints for this instruction on a target of generation `gen`:
    /// the generation's mnemonics (`Spec::renames`), its SMEM offsets, compare destination and
    /// `s_waitcnt` fields.
    pub fn text(&self, gen: Generation) -> Text<'_> {
        Text { gen, inst: self }
    }
}

impl Display for Text<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let gen = self.gen;
        let spec = gen.spec();
        match *self.inst {
            Inst::Sop1 { op, sdst, src0 } => write!(
                f,
                "{} {}, {}",
                op.mnemonic(gen),
                Wide(sdst, op.a()),
                Wide(src0, op.b())
            ),
            Inst::Sop2 {
                op,
                sdst,
                src0,
                src1,
            } => write!(
                f,
                "{} {}, {}, {}",
                op.mnemonic(gen),
                Wide(sdst, op.a()),
                Wide(src0, op.b()),
                Wide(src1, op.b())
            ),
            Inst::Sopk { op, sdst, simm16 } => {
                let name = op.mnemonic(gen);
                match op.b() {
                    sopk_kind::HWREG => write!(f, "{name} {sdst}, {}", HwReg(simm16, gen)),
                    sopk_kind::HWREG_IMM32 => {
                        let imm = Operand::imm(sdst.constant().unwrap_or(0) as i32);
                        write!(f, "{name} {}, {imm}", HwReg(simm16, gen))
                    }
                    _ => write!(f, "{name} {sdst}, {simm16:#x}"),
                }
            }
            Inst::Sopc { op, src0, src1 } => write!(f, "{} {src0}, {src1}", op.mnemonic(gen)),
            Inst::Sopp { op, simm16 } => {
                let name = op.mnemonic(gen);
                match op.b() {
                    sopp_kind::NONE => f.write_str(name),
                    sopp_kind::WAITCNT => {
                        let w = Waitcnt::from_simm16(gen, simm16);
                        write!(f, "{name} {}", WaitText(w, gen))
                    }
                    sopp_kind::HEX => match spec.depctr_names.iter().find(|(v, _)| *v == simm16) {
                        Some((_, text)) => write!(f, "{name} {text}"),
                        None => write!(f, "{name} {simm16:#x}"),
                    },
                    sopp_kind::WAIT12 => write!(f, "{name} {simm16:#x}"),
                    _ => write!(f, "{name} {simm16}"),
                }
            }
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
                    op.mnemonic(gen),
                    SReg(sdata, op.dwords()),
                    SReg(sbase, 2)
                )?;
                let smem = spec.smem;
                match (soffset, offset) {
                    (None, 0) if smem.prints_null => f.write_str("null"),
                    (None, off) => SignedHex(off).fmt(f),
                    (Some(s), 0) if !smem.prints_zero_offset => write!(f, "s{s}"),
                    (Some(s), off) => write!(f, "s{s} offset:{}", SignedHex(off)),
                }
            }
            Inst::Vop1 { op, vdst, src0 } => {
                write!(f, "{}_e32 v{vdst}, {src0}", op.mnemonic(gen))
            }
            Inst::Vop2 {
                op,
                vdst,
                src0,
                vsrc1,
            } => write!(f, "{}_e32 v{vdst}, {src0}, v{vsrc1}", op.mnemonic(gen)),
            Inst::Vop3 { op, vdst, src } => {
                write!(f, "{} v{vdst}", op.mnemonic(gen))?;
                for s in &src[..op.sources()] {
                    write!(f, ", {s}")?;
                }
                Ok(())
            }
            Inst::Vopc { op, src0, vsrc1 } => write!(
                f,
                "{}_e32 {}, {src0}, v{vsrc1}",
                op.mnemonic(gen),
                spec.vopc_sdst
            ),
            Inst::Global {
                op,
                vdata,
                vaddr,
                saddr,
                offset,
            } => {
                let addr = VReg(vaddr, if saddr.is_some() { 1 } else { 2 });
                let data = VReg(vdata, op.dwords());
                let name = op.mnemonic(gen);
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
            Inst::Ds(ds) => ds.text(gen).fmt(f),
            Inst::Acc(m) => m.fmt(f),
        }
    }
}
