//! Decoding [`Inst`] for an instruction set ([`Isa`]: a generation, or a target with its DS
//! features): the shared formats of [`super::codec`], the SMEM, VOP3 and GLOBAL formats and the
//! operand codes of the generation's data (`Spec`; every bit no field of a format covers is a bit
//! the template never sets), DS words by the DS table ([`DsInst`]). Nothing here asks which
//! generation it decodes for.

use super::codec::{
    odd_tuple, vop3_sources, DS, SOP1, SOP2, SOPC, SOPK, SOPP, VOP1, VOP2_TOP, VOP3_MODIFIERS, VOPC,
};
use super::ops::{sopk_kind, sopp_kind};
use super::{
    GlobalOp, Inst, Operand, SmemOp, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op,
    Vop3Op, VopcOp, LITERAL_CODE,
};
use crate::ds::{DsInst, Isa};
use crate::error::DecodeError;
use crate::gen::{Bits, Generation, SmemOffset, Spec};

/// Reads the dword at `at`, or says how many bytes were needed.
fn dword(bytes: &[u8], at: usize) -> Result<u32, DecodeError> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .ok_or(DecodeError::Truncated {
            needed: at + 4,
            have: bytes.len(),
        })
}

/// The dwords of the generation's SMEM, VOP3 or GLOBAL instruction `w0` starts, `None` for
/// another format's word, or `Err` for another generation's SMEM, VOP3 or GLOBAL word (not an
/// instruction of the template here).
fn long_format(spec: &Spec, w0: u32) -> Result<Option<usize>, ()> {
    let is_global = |s: &Spec| s.global.prefix.0.get(&[w0]) == s.global.prefix.1;
    let top = w0 >> 26;
    if is_global(spec) {
        Ok(Some(spec.global.dwords))
    } else if top == spec.smem.prefix || top == spec.vop3.prefix || top == DS {
        Ok(Some(2))
    } else if Generation::ALL
        .iter()
        .map(|g| g.spec())
        .any(|s| top == s.smem.prefix || top == s.vop3.prefix || is_global(s))
    {
        Err(())
    } else {
        Ok(None)
    }
}

/// Decodes the instruction of `isa` (a generation, or a target: a DS word decodes only if the
/// target has it, by its DS features) at the start of `bytes`, returning it and its length in
/// bytes.
pub fn decode(isa: impl Into<Isa>, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    let isa: Isa = isa.into();
    let gen = isa.gen;
    let spec = gen.spec();
    let w0 = dword(bytes, 0)?;
    let unknown = DecodeError::Unknown { word: w0 };
    let unmodelled = |what| DecodeError::Unmodelled { word: w0, what };
    let base = match long_format(spec, w0) {
        Ok(n) => n.unwrap_or(1),
        Err(()) => return Err(unknown),
    };
    let mut w = [w0, 0, 0];
    for (i, word) in w.iter_mut().enumerate().take(base).skip(1) {
        *word = dword(bytes, 4 * i)?;
    }
    let literal_at = 4 * base;
    let mut uses_literal = false;
    let mut src = |code: u32| -> Result<Operand, DecodeError> {
        let code = code as u16;
        let lit = if code == LITERAL_CODE {
            uses_literal = true;
            dword(bytes, literal_at)?
        } else {
            0
        };
        Operand::from_code(gen, code, lit).ok_or(unmodelled("this operand code"))
    };
    let sdst_of = |code: u32| -> Result<Operand, DecodeError> {
        match Operand::from_code(gen, code as u16, 0) {
            Some(
                op @ (Operand::Sgpr(_)
                | Operand::VccLo
                | Operand::VccHi
                | Operand::Null
                | Operand::M0
                | Operand::ExecLo
                | Operand::ExecHi),
            ) => Ok(op),
            _ => Err(unmodelled("this scalar destination")),
        }
    };
    let top = w0 >> 26;
    let inst = if w0 >> 23 == SOP1 {
        let op = Sop1Op::from_opcode(gen, (w0 >> 8 & 0xff) as u16).ok_or(unknown)?;
        let src0 = src(w0 & 0xff)?;
        if op.b() == 2 && matches!(src0, Operand::Literal(_)) {
            return Err(unmodelled("a 64-bit literal"));
        }
        Inst::Sop1 {
            op,
            sdst: sdst_of(w0 >> 16 & 0x7f)?,
            src0,
        }
    } else if w0 >> 23 == SOPC {
        let op = SopcOp::from_opcode(gen, (w0 >> 16 & 0x7f) as u16).ok_or(unknown)?;
        Inst::Sopc {
            op,
            src0: src(w0 & 0xff)?,
            src1: src(w0 >> 8 & 0xff)?,
        }
    } else if w0 >> 23 == SOPP {
        let op = SoppOp::from_opcode(gen, (w0 >> 16 & 0x7f) as u16).ok_or(unknown)?;
        let simm16 = w0 as u16;
        if op.b() == sopp_kind::NONE && simm16 != 0 {
            return Err(unmodelled("a non-zero immediate on an op without one"));
        }
        if op.b() == sopp_kind::WAITCNT && simm16 & spec.waitcnt.unused() != 0 {
            return Err(unmodelled("s_waitcnt with its unused bit set"));
        }
        Inst::Sopp { op, simm16 }
    } else if w0 >> 28 == SOPK {
        let op = SopkOp::from_opcode(gen, (w0 >> 23 & 0x1f) as u16).ok_or(unknown)?;
        let sdst = if op.b() == sopk_kind::HWREG_IMM32 {
            // `s_setreg_imm32_b32`: SDST bits 0, the value in the literal after the word.
            if w0 >> 16 & 0x7f != 0 {
                return Err(unmodelled("s_setreg_imm32_b32 with SDST bits set"));
            }
            src(u32::from(LITERAL_CODE))?
        } else {
            sdst_of(w0 >> 16 & 0x7f)?
        };
        Inst::Sopk {
            op,
            sdst,
            simm16: w0 as u16,
        }
    } else if w0 >> 30 == SOP2 {
        let op = Sop2Op::from_opcode(gen, (w0 >> 23 & 0x7f) as u16).ok_or(unknown)?;
        Inst::Sop2 {
            op,
            sdst: sdst_of(w0 >> 16 & 0x7f)?,
            src0: src(w0 & 0xff)?,
            src1: src(w0 >> 8 & 0xff)?,
        }
    } else if top == spec.smem.prefix {
        decode_smem(spec, gen, &w, unmodelled)
            .transpose()
            .ok_or(unknown)??
    } else if spec.global.prefix.0.get(&w) == spec.global.prefix.1 {
        decode_global(spec, isa, &w, unmodelled)
            .transpose()
            .ok_or(unknown)??
    } else if top == spec.vop3.prefix {
        let op = Vop3Op::from_opcode(gen, spec.vop3.op.get(&w) as u16).ok_or(unknown)?;
        if w0 & VOP3_MODIFIERS[0] != 0 || w[1] & VOP3_MODIFIERS[1] != 0 {
            return Err(unmodelled(
                "a VOP3 modifier (abs, neg, clamp, op_sel, omod)",
            ));
        }
        let mut srcs = [Operand::Sgpr(0); 3];
        for (i, s) in srcs.iter_mut().enumerate() {
            let code = w[1] >> (9 * i) & 0x1ff;
            if i >= op.sources() {
                if code != 0 {
                    return Err(unmodelled("a non-zero unused VOP3 source"));
                }
            } else {
                *s = src(code)?;
            }
        }
        if vop3_sources(gen, &srcs[..op.sources()]).is_some() {
            return Err(unmodelled(
                "a VOP3 literal or scalar read the generation's VOP3 does not take",
            ));
        }
        Inst::Vop3 {
            op,
            vdst: w0 as u8,
            src: srcs,
        }
    } else if top == DS {
        let word = u64::from(w0) | u64::from(w[1]) << 32;
        return DsInst::decode(isa, word).map(|d| (Inst::Ds(d), 8));
    } else if w0 >> 25 == VOP1 {
        let op = Vop1Op::from_opcode(gen, (w0 >> 9 & 0xff) as u16).ok_or(unknown)?;
        Inst::Vop1 {
            op,
            vdst: (w0 >> 17) as u8,
            src0: src(w0 & 0x1ff)?,
        }
    } else if w0 >> 25 == VOPC {
        let op = VopcOp::from_opcode(gen, (w0 >> 17 & 0xff) as u16).ok_or(unknown)?;
        Inst::Vopc {
            op,
            src0: src(w0 & 0x1ff)?,
            vsrc1: (w0 >> 9) as u8,
        }
    } else if w0 >> 31 == VOP2_TOP {
        let op = Vop2Op::from_opcode(gen, (w0 >> 25 & 0x3f) as u16).ok_or(unknown)?;
        Inst::Vop2 {
            op,
            vdst: (w0 >> 17) as u8,
            src0: src(w0 & 0x1ff)?,
            vsrc1: (w0 >> 9) as u8,
        }
    } else {
        return Err(unknown);
    };
    let len = 4 * base + if uses_literal { 4 } else { 0 };
    Ok((inst, len))
}

/// An SMEM word of `spec`'s format (`Ok(None)`: its opcode names no op of the generation).
fn decode_smem(
    spec: &Spec,
    gen: Generation,
    w: &[u32; 3],
    unmodelled: impl Fn(&'static str) -> DecodeError,
) -> Result<Option<Inst>, DecodeError> {
    let f = spec.smem;
    let sgprs = spec.operands.sgprs;
    let Some(op) = SmemOp::from_opcode(gen, f.op.get(w) as u16) else {
        return Ok(None);
    };
    let bit = |b: u32| w[0] & 1 << b != 0;
    let flags = match f.soffset {
        SmemOffset::ImmSoe { imm, soe, .. } => 1 << imm | 1 << soe,
        SmemOffset::Soffset(_) => 0,
    };
    let fields = Bits::at(0, 26, 6).mask() | f.op.mask() | f.sdata.mask() | f.sbase.mask();
    if w[0] & !(fields | flags) != 0 {
        return Err(unmodelled(
            "a cache-policy (GLC, DLC, NV, SCOPE, TH) or reserved SMEM bit",
        ));
    }
    let sdata = f.sdata.get(w) as u8;
    if u32::from(sdata) + u32::from(op.dwords()) > u32::from(sgprs) {
        return Err(unmodelled("an SMEM destination past the last SGPR"));
    }
    let sgpr = |code: u32| match Operand::from_code(gen, code as u16, 0) {
        Some(Operand::Sgpr(s)) => Ok(s),
        _ => Err(unmodelled("an SGPR offset that is not an SGPR")),
    };
    let (offset, soffset) = match f.soffset {
        SmemOffset::Soffset(field) => {
            let soffset = match field.get(w) as u8 {
                n if n == spec.operands.off => None,
                s if s < sgprs => Some(s),
                _ => return Err(unmodelled("an SOFFSET that is not an SGPR or null")),
            };
            if w[1] & !(f.offset.mask() | field.mask()) != 0 {
                return Err(unmodelled("reserved SMEM bits of the second dword"));
            }
            (f.offset.get_signed(w), soffset)
        }
        SmemOffset::ImmSoe {
            imm,
            soe,
            soffset,
            sgpr: sgpr_field,
        } => {
            let used = match (bit(imm), bit(soe)) {
                (true, false) => f.offset.mask(),
                (true, true) => f.offset.mask() | soffset.mask(),
                (false, false) => sgpr_field.mask(),
                (false, true) => 0,
            };
            if used == 0 || w[1] & !used != 0 {
                return Err(unmodelled("this SMEM offset form or its reserved bits"));
            }
            let off = if bit(imm) { f.offset.get_signed(w) } else { 0 };
            let s = match (bit(imm), bit(soe)) {
                (true, false) => None,
                (true, true) => Some(sgpr(soffset.get(w))?),
                _ => Some(sgpr(sgpr_field.get(w))?),
            };
            if off == 0 && bit(soe) {
                return Err(unmodelled(
                    "SOE with a zero immediate (LLVM writes the SGPR form)",
                ));
            }
            (off, s)
        }
    };
    Ok(Some(Inst::Smem {
        op,
        sdata,
        sbase: (f.sbase.get(w) * 2) as u8,
        offset,
        soffset,
    }))
}

/// A GLOBAL word of `spec`'s format (`Ok(None)`: its opcode names no op of the generation).
fn decode_global(
    spec: &Spec,
    isa: Isa,
    w: &[u32; 3],
    unmodelled: impl Fn(&'static str) -> DecodeError,
) -> Result<Option<Inst>, DecodeError> {
    let f = spec.global;
    if let Some((seg, global)) = f.seg {
        if seg.get(w) != global {
            return Err(unmodelled("FLAT and SCRATCH segments"));
        }
    }
    if (0..f.dwords).any(|i| w[i] & f.reserved(i) != 0) {
        return Err(unmodelled(
            "a cache-policy (GLC, SLC, DLC, NV, SCOPE, TH), LDS or reserved GLOBAL bit",
        ));
    }
    let Some(op) = GlobalOp::from_opcode(isa.gen, f.op.get(w) as u16) else {
        return Ok(None);
    };
    let offset = f.offset.get_signed(w);
    if !Bits::at(0, 0, f.offset_range).fits_signed(i64::from(offset)) {
        return Err(unmodelled("a GLOBAL offset beyond the template's"));
    }
    let sgprs = u32::from(spec.operands.sgprs);
    let saddr = match f.saddr.get(w) as u8 {
        n if n == spec.operands.off => None,
        s if s % 2 == 0 && u32::from(s) + 2 <= sgprs => Some(s),
        _ => return Err(unmodelled("an SADDR that is not an even SGPR pair or off")),
    };
    let (vdst, data) = (f.vdst.get(w) as u8, f.data.get(w) as u8);
    let vdata = if op.is_store() {
        if vdst != 0 {
            return Err(unmodelled("a non-zero VDST on a store"));
        }
        data
    } else {
        if data != 0 {
            return Err(unmodelled("a non-zero DATA on a load"));
        }
        vdst
    };
    let vaddr = f.vaddr.get(w) as u8;
    if odd_tuple(isa, op, vdata, vaddr, saddr).is_some() {
        return Err(unmodelled(
            "an odd VGPR tuple on a target that needs even ones",
        ));
    }
    Ok(Some(Inst::Global {
        op,
        vdata,
        vaddr,
        saddr,
        offset: offset as i16,
    }))
}
