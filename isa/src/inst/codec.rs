//! Encoding and decoding of [`Inst`] for an instruction set ([`Isa`]: a generation, or a target
//! with its DS features). The formats that differ between generations (SMEM, VOP3, GLOBAL, the
//! `s_waitcnt` immediate, the operand codes) are the generation's data ([`Spec`]: each
//! generation's module says where its fields sit, with the sources); this module reads it and
//! never asks which generation it encodes for. The SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2 and
//! VOPC layouts are the same in every generation (the ISA guides' "Microcode Formats", bit
//! layouts beside each constant below), and DS words are the DS table's ([`DsInst`]).

use super::ops::sopp_kind;
use super::{
    GlobalOp, Inst, Operand, SmemOp, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op,
    Vop3Op, VopcOp, LITERAL_CODE,
};
use crate::ds::{DsFeatures, DsInst, Isa};
use crate::error::{DecodeError, EncodeError};
use crate::gen::{Bits, Generation, SmemOffset, Spec};

/// SOP1: \[31:23\] = 0b1_0111_1101; SDST [22:16], OP [15:8], SSRC0 [7:0].
const SOP1: u32 = 0x17d;
/// SOPC: \[31:23\] = 0b1_0111_1110; OP [22:16], SSRC1 [15:8], SSRC0 [7:0].
const SOPC: u32 = 0x17e;
/// SOPP: \[31:23\] = 0b1_0111_1111; OP [22:16], SIMM16 [15:0].
const SOPP: u32 = 0x17f;
/// SOPK: \[31:28\] = 0b1011; OP [27:23], SDST [22:16], SIMM16 [15:0].
const SOPK: u32 = 0xb;
/// SOP2: \[31:30\] = 0b10; OP [29:23], SDST [22:16], SSRC1 [15:8], SSRC0 [7:0].
const SOP2: u32 = 0b10;
/// DS: \[31:26\] = 0b11_0110.
const DS: u32 = 0x36;
/// VOP1: \[31:25\] = 0b011_1111; VDST [24:17], OP [16:9], SRC0 [8:0].
const VOP1: u32 = 0x3f;
/// VOPC: \[31:25\] = 0b011_1110; OP [24:17], VSRC1 [16:9], SRC0 [8:0].
const VOPC: u32 = 0x3e;
/// VOP2: bit 31 clear; OP [30:25], VDST [24:17], VSRC1 [16:9], SRC0 [8:0].
const VOP2_TOP: u32 = 0;
/// VOP3's modifier bits the template never sets: ABS/OP_SEL/CLAMP [15:8] of the first dword,
/// OMOD/NEG [31:27] of the second.
const VOP3_MODIFIERS: [u32; 2] = [0xff00, 0xf800_0000];

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

/// Why a GLOBAL access's VGPR tuples do not fit `isa`: CDNA 2 and later (DS features without
/// `unaligned-tuples`, LLVM `FeatureRequiresAlignedVGPRs`) need every tuple of two or more
/// VGPRs at an even register (`llvm-mc-22 -disassemble` for a CDNA 2 target marks an odd one
/// "Invalid register, operand has 'AV_64_Align2' register class").
fn odd_tuple(isa: Isa, op: GlobalOp, vdata: u8, vaddr: u8, saddr: Option<u8>) -> Option<String> {
    if isa.has(DsFeatures::UNALIGNED) {
        return None;
    }
    if op.dwords() > 1 && vdata % 2 == 1 {
        return Some(format!(
            "{isa} needs the data tuple at an even VGPR, not v{vdata}"
        ));
    }
    if saddr.is_none() && vaddr % 2 == 1 {
        return Some(format!(
            "{isa} needs the address pair at an even VGPR, not v{vaddr}"
        ));
    }
    None
}

/// The VOP3 sources `srcs` break the generation's rules: a literal where it takes none, more
/// distinct scalar registers than its constant bus reads (gfx9: Vega and CDNA3 ISA guides, VOP3A;
/// `llvm-mc-19` refuses both: "literal operands are not supported", "violates constant bus
/// restrictions").
fn vop3_sources(gen: Generation, srcs: &[Operand]) -> Option<String> {
    let f = gen.spec().vop3;
    if !f.literal && srcs.iter().any(|s| matches!(s, Operand::Literal(_))) {
        return Some(format!("{gen}'s VOP3 takes no literal"));
    }
    let mut scalars: Vec<Operand> = srcs
        .iter()
        .copied()
        .filter(|s| s.is_register() && !matches!(s, Operand::Vgpr(_)))
        .collect();
    scalars.dedup();
    match f.scalar_reads {
        Some(n) if scalars.len() > n => {
            Some(format!("{gen}'s VOP3 reads {n} scalar register(s) at most"))
        }
        _ => None,
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
            words[0] = SOPK << 28
                | u32::from(op.opcode(gen).ok_or_else(absent)?) << 23
                | sdst(inst, gen, d)? << 16
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
            f.dwords
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
        Inst::Sopk {
            op,
            sdst: sdst_of(w0 >> 16 & 0x7f)?,
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
