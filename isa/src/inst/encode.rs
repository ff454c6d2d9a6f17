//! Encoding [`Inst`] for an instruction set ([`Isa`]: a generation, or a target with its DS
//! features): the shared formats of [`super::codec`], the SMEM, VOP3 and GLOBAL formats, the
//! operand codes and the `s_waitcnt` layout of the generation's data (`Spec`), DS words by the DS
//! table ([`DsInst`]). Nothing here asks which generation it encodes for.

use super::codec::{odd_tuple, vop3_sources, SOP1, SOP2, SOPC, SOPK, SOPP, VOP1, VOP2_TOP, VOPC};
use super::ops::{sopk_kind, sopp_kind};
use super::{GlobalOp, Inst, Operand, SmemOp};
use crate::ds::Isa;
use crate::error::EncodeError;
use crate::gen::{Bits, Generation, SmemOffset, Spec};

fn bad(inst: &Inst, why: impl Into<String>) -> EncodeError {
    EncodeError::Operand {
        inst: format!("{inst:?}"),
        why: why.into(),
    }
}

/// Collects the one literal an instruction may carry.
struct Lit<'a> {
    inst: &'a Inst,
    gen: Generation,
    value: Option<u32>,
}

impl Lit<'_> {
    fn take(&mut self, op: Operand) -> Result<(), EncodeError> {
        if let Operand::Literal(v) = op {
            match self.value {
                Some(old) if old != v => {
                    return Err(bad(
                        self.inst,
                        format!("two different literals: {} encodes one", self.gen),
                    ))
                }
                _ => self.value = Some(v),
            }
        }
        Ok(())
    }
}

/// The code of `op` in `gen`, or why the generation has no such operand.
fn code(inst: &Inst, gen: Generation, op: Operand) -> Result<u32, EncodeError> {
    match op {
        Operand::Ttmp(n) if n > 15 => Err(bad(inst, format!("ttmp{n} is past ttmp15"))),
        Operand::Sgpr(n) if n >= gen.spec().operands.sgprs => Err(bad(
            inst,
            format!("s{n} is past s{}", gen.spec().operands.sgprs - 1),
        )),
        _ => op
            .code(gen)
            .map(u32::from)
            .ok_or_else(|| bad(inst, format!("{gen} has no operand {op}"))),
    }
}

/// A scalar source code (8 bits): no VGPRs.
fn ssrc(inst: &Inst, op: Operand, lit: &mut Lit) -> Result<u32, EncodeError> {
    if let Operand::Vgpr(_) = op {
        return Err(bad(inst, "a VGPR in a scalar source field"));
    }
    let c = code(inst, lit.gen, op)?;
    lit.take(op)?;
    Ok(c)
}

/// A vector source code (9 bits).
fn vsrc(inst: &Inst, op: Operand, lit: &mut Lit) -> Result<u32, EncodeError> {
    let c = code(inst, lit.gen, op)?;
    lit.take(op)?;
    Ok(c)
}

/// A scalar destination code (7 bits): a register, not a constant.
fn sdst(inst: &Inst, gen: Generation, op: Operand) -> Result<u32, EncodeError> {
    match op {
        Operand::Sgpr(_)
        | Operand::VccLo
        | Operand::VccHi
        | Operand::Null
        | Operand::M0
        | Operand::ExecLo
        | Operand::ExecHi => code(inst, gen, op),
        _ => Err(bad(inst, "the destination must be a scalar register")),
    }
}

fn sgpr_tuple(inst: &Inst, spec: &Spec, first: u8, dwords: u8) -> Result<(), EncodeError> {
    let n = u32::from(spec.operands.sgprs);
    if u32::from(first) + u32::from(dwords) > n {
        return Err(bad(
            inst,
            format!("s{first} plus {dwords} dwords runs past s{}", n - 1),
        ));
    }
    Ok(())
}

fn vgpr_tuple(inst: &Inst, first: u8, dwords: u8) -> Result<(), EncodeError> {
    if u32::from(first) + u32::from(dwords) > 256 {
        return Err(bad(
            inst,
            format!("v{first} plus {dwords} dwords runs past v255"),
        ));
    }
    Ok(())
}

/// Encodes one instruction of `isa` (a generation, or a target: whose DS features decide which
/// DS words it has) as little-endian bytes (with its literal, if any).
pub fn encode(isa: impl Into<Isa>, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(12);
    encode_into(isa, inst, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `inst` in `isa` to `out` (see [`encode`]), returning its length in
/// bytes.
pub fn encode_into(
    isa: impl Into<Isa>,
    inst: &Inst,
    out: &mut Vec<u8>,
) -> Result<usize, EncodeError> {
    let isa: Isa = isa.into();
    let gen = isa.gen;
    let spec = gen.spec();
    let mut lit = Lit {
        inst,
        gen,
        value: None,
    };
    let absent = || bad(inst, format!("not a {gen} instruction of the template"));
    let mut words = [0u32; 3];
    let len = match *inst {
        Inst::Sop1 { op, sdst: d, src0 } => {
            if op.b() == 2 && matches!(src0, Operand::Literal(_)) {
                return Err(bad(inst, "64-bit literals are not modelled"));
            }
            words[0] = SOP1 << 23
                | sdst(inst, gen, d)? << 16
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 8
                | ssrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Sop2 {
            op,
            sdst: d,
            src0,
            src1,
        } => {
            words[0] = SOP2 << 30
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 23
                | sdst(inst, gen, d)? << 16
                | ssrc(inst, src1, &mut lit)? << 8
                | ssrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Sopk {
            op,
            sdst: d,
            simm16,
        } => {
            // `s_setreg_imm32_b32`: the value is the literal after the word, SDST bits 0.
            let dst = if op.b() == sopk_kind::HWREG_IMM32 {
                if !matches!(d, Operand::Literal(_)) {
                    return Err(bad(
                        inst,
                        format!("{op} writes a 32-bit immediate (a literal)"),
                    ));
                }
                lit.take(d)?;
                0
            } else {
                sdst(inst, gen, d)?
            };
            words[0] = SOPK << 28
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 23
                | dst << 16
                | u32::from(simm16);
            1
        }
        Inst::Sopc { op, src0, src1 } => {
            words[0] = SOPC << 23
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 16
                | ssrc(inst, src1, &mut lit)? << 8
                | ssrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Sopp { op, simm16 } => {
            if op.b() == sopp_kind::NONE && simm16 != 0 {
                return Err(bad(inst, format!("{op} takes no immediate")));
            }
            if op.b() == sopp_kind::WAITCNT && simm16 & spec.waitcnt.unused() != 0 {
                return Err(bad(inst, "the s_waitcnt bits no counter uses must be 0"));
            }
            words[0] = SOPP << 23
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 16
                | u32::from(simm16);
            1
        }
        Inst::Smem {
            op,
            sdata,
            sbase,
            offset,
            soffset,
        } => {
            let w = smem(inst, spec, gen, (op, sdata, sbase, offset, soffset))?;
            words[..2].copy_from_slice(&w);
            2
        }
        Inst::Vop1 { op, vdst, src0 } => {
            words[0] = VOP1 << 25
                | u32::from(vdst) << 17
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 9
                | vsrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Vop2 {
            op,
            vdst,
            src0,
            vsrc1,
        } => {
            words[0] = VOP2_TOP << 31
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 25
                | u32::from(vdst) << 17
                | u32::from(vsrc1) << 9
                | vsrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Vop3 { op, vdst, src } => {
            let f = spec.vop3;
            let mut codes = [0u32; 3];
            for (i, s) in src.iter().enumerate() {
                if i >= op.sources() && *s != Operand::Sgpr(0) {
                    return Err(bad(
                        inst,
                        format!(
                            "{op} reads {} sources; the others must be s0 (encoded 0)",
                            op.sources()
                        ),
                    ));
                }
                codes[i] = vsrc(inst, *s, &mut lit)?;
            }
            if let Some(why) = vop3_sources(gen, &src[..op.sources()]) {
                return Err(bad(inst, why));
            }
            words[0] = f.prefix << 26 | u32::from(vdst);
            f.op.put(&mut words, u32::from(op.opcode(gen).ok_or_else(absent)?));
            words[1] = codes[0] | codes[1] << 9 | codes[2] << 18;
            2
        }
        Inst::Vopc { op, src0, vsrc1 } => {
            words[0] = VOPC << 25
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 17
                | u32::from(vsrc1) << 9
                | vsrc(inst, src0, &mut lit)?;
            1
        }
        Inst::Global {
            op,
            vdata,
            vaddr,
            saddr,
            offset,
        } => {
            let (w, n) = global(inst, isa, (op, vdata, vaddr, saddr, offset))?;
            words = w;
            n
        }
        Inst::Ds(ds) => {
            out.extend_from_slice(&ds.to_bytes(isa)?);
            return Ok(8);
        }
        Inst::Acc(m) => {
            words[..2].copy_from_slice(&super::acc::encode(gen, inst, m)?);
            2
        }
    };
    for w in &words[..len] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    if let Some(v) = lit.value {
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(4 * len + if lit.value.is_some() { 4 } else { 0 })
}

/// An SMEM load's two dwords in the generation's SMEM format (`Spec::smem`).
fn smem(
    inst: &Inst,
    spec: &Spec,
    gen: Generation,
    (op, sdata, sbase, offset, soffset): (SmemOp, u8, u8, i32, Option<u8>),
) -> Result<[u32; 2], EncodeError> {
    let absent = || bad(inst, format!("not a {gen} instruction of the template"));
    let mut words = [0u32; 2];
    let f = spec.smem;
    let sgprs = spec.operands.sgprs;
    sgpr_tuple(inst, spec, sdata, op.dwords())?;
    if sbase % 2 != 0 || u32::from(sbase) + 2 > u32::from(sgprs) {
        return Err(bad(
            inst,
            format!("sbase s{sbase} must be an even SGPR pair within the SGPRs"),
        ));
    }
    if !f.offset.fits_signed(i64::from(offset)) {
        return Err(bad(
            inst,
            format!("offset {offset} does not fit {} signed bits", f.offset.bits),
        ));
    }
    if let Some(s) = soffset.filter(|&s| s >= sgprs) {
        return Err(bad(inst, format!("soffset s{s} is past the SGPRs")));
    }
    words[0] = f.prefix << 26;
    f.op.put(&mut words, u32::from(op.opcode(gen).ok_or_else(absent)?));
    f.sdata.put(&mut words, u32::from(sdata));
    f.sbase.put(&mut words, u32::from(sbase / 2));
    match (f.soffset, soffset) {
        (SmemOffset::Soffset(field), s) => {
            f.offset.put(&mut words, offset as u32);
            field.put(&mut words, u32::from(s.unwrap_or(spec.operands.off)));
        }
        (SmemOffset::ImmSoe { imm, .. }, None) => {
            words[0] |= 1 << imm;
            f.offset.put(&mut words, offset as u32);
        }
        (SmemOffset::ImmSoe { sgpr, .. }, Some(s)) if offset == 0 => {
            sgpr.put(&mut words, u32::from(s));
        }
        (
            SmemOffset::ImmSoe {
                imm, soe, soffset, ..
            },
            Some(s),
        ) => {
            words[0] |= 1 << imm | 1 << soe;
            f.offset.put(&mut words, offset as u32);
            soffset.put(&mut words, u32::from(s));
        }
    }
    Ok(words)
}

/// A GLOBAL load's or store's dwords in the generation's GLOBAL format (`Spec::global`), and
/// how many there are.
fn global(
    inst: &Inst,
    isa: Isa,
    (op, vdata, vaddr, saddr, offset): (GlobalOp, u8, u8, Option<u8>, i16),
) -> Result<([u32; 3], usize), EncodeError> {
    let (gen, spec) = (isa.gen, isa.gen.spec());
    let absent = || bad(inst, format!("not a {gen} instruction of the template"));
    let mut words = [0u32; 3];
    let f = spec.global;
    let sgprs = u32::from(spec.operands.sgprs);
    vgpr_tuple(inst, vdata, op.dwords())?;
    vgpr_tuple(inst, vaddr, if saddr.is_some() { 1 } else { 2 })?;
    if let Some(why) = odd_tuple(isa, op, vdata, vaddr, saddr) {
        return Err(bad(inst, why));
    }
    if !Bits::at(0, 0, f.offset_range).fits_signed(i64::from(offset)) {
        return Err(bad(
            inst,
            format!(
                "offset {offset} does not fit {} signed bits",
                f.offset_range
            ),
        ));
    }
    let sa = match saddr {
        None => u32::from(spec.operands.off),
        Some(s) if s % 2 == 0 && u32::from(s) + 2 <= sgprs => u32::from(s),
        Some(s) => {
            return Err(bad(
                inst,
                format!(
                    "saddr s{s} must be an even SGPR pair within s0..s{}",
                    sgprs - 1
                ),
            ))
        }
    };
    f.prefix.0.put(&mut words, f.prefix.1);
    if let Some((seg, global)) = f.seg {
        seg.put(&mut words, global);
    }
    f.op.put(&mut words, u32::from(op.opcode(gen).ok_or_else(absent)?));
    f.offset.put(&mut words, i32::from(offset) as u32);
    f.saddr.put(&mut words, sa);
    f.vaddr.put(&mut words, u32::from(vaddr));
    let reg = if op.is_store() { f.data } else { f.vdst };
    reg.put(&mut words, u32::from(vdata));
    Ok((words, f.dwords))
}
