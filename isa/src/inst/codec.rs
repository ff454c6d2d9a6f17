//! Encoding and decoding of [`Inst`] per [`Generation`] (RDNA3 ISA guide, "Microcode Formats": the
//! bit layouts written beside each format below; checked against `llvm-mc-19` for the first target
//! of each generation). gfx12 (RDNA4 ISA guide, "Microcode Formats") keeps the SOP*, VOP* and DS
//! layouts and changes two: SMEM (opcode at \[20:13\], a signed 24-bit offset) and GLOBAL, which
//! becomes the 96-bit VGLOBAL format.

use super::ops::sopp_kind;
use super::{
    null_code, DecodeError, EncodeError, GlobalOp, Inst, Operand, SmemOp, Sop1Op, Sop2Op, SopcOp,
    SopkOp, SoppOp, Vop1Op, Vop2Op, Vop3Op, VopcOp, Waitcnt, LITERAL_CODE,
};
use crate::ds::{DsFeatures, DsInst, Generation, Isa};

/// SOP1: \[31:23\] = 0b1_0111_1101.
const SOP1: u32 = 0x17d;
/// SOPC: \[31:23\] = 0b1_0111_1110.
const SOPC: u32 = 0x17e;
/// SOPP: \[31:23\] = 0b1_0111_1111.
const SOPP: u32 = 0x17f;
/// SOPK: \[31:28\] = 0b1011.
const SOPK: u32 = 0xb;
/// SOP2: \[31:30\] = 0b10.
const SOP2: u32 = 0b10;
/// SMEM: \[31:26\] = 0b11_1101 (gfx9: [`SMEM_GFX9`]).
const SMEM: u32 = 0x3d;
/// VOP3: \[31:26\] = 0b11_0101 (gfx9: [`VOP3_GFX9`]).
const VOP3: u32 = 0x35;
/// gfx9 SMEM: \[31:26\] = 0b11_0000 (Vega and CDNA3 ISA guides, "Microcode Formats", SMEM).
const SMEM_GFX9: u32 = 0x30;
/// gfx9 VOP3: \[31:26\] = 0b11_0100 (same guides, VOP3A; VOP3P shares the prefix with
/// \[25:23\] = 0b111, opcodes no VOP3 op of the template has).
const VOP3_GFX9: u32 = 0x34;
/// gfx9 SMEM bits: IMM (the offset field is an immediate) 17, GLC 16, NV 15, SOE (an SGPR
/// offset in \[63:57\] besides the immediate) 14.
const SMEM9_IMM: u32 = 1 << 17;
const SMEM9_SOE: u32 = 1 << 14;

/// The SMEM and VOP3 format codes (\[31:26\]) of generation `gen`.
fn smem_vop3(gen: Generation) -> (u32, u32) {
    match gen {
        Generation::Gfx9 => (SMEM_GFX9, VOP3_GFX9),
        Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12 => (SMEM, VOP3),
    }
}
/// DS: \[31:26\] = 0b11_0110.
pub(super) const DS: u32 = 0x36;
/// FLAT/GLOBAL/SCRATCH: \[31:26\] = 0b11_0111; SEG \[17:16\] = 2 is GLOBAL.
const FLAT: u32 = 0x37;
const SEG_GLOBAL: u32 = 2;
/// VOP1: \[31:25\] = 0b011_1111.
const VOP1: u32 = 0x3f;
/// VOPC: \[31:25\] = 0b011_1110.
const VOPC: u32 = 0x3e;
/// gfx12 VGLOBAL: \[31:24\] = 0b1110_1110 (VFLAT 0xec, VSCRATCH 0xed).
const VGLOBAL: u32 = 0xee;

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
                    return Err(bad(self.inst, "two different literals: gfx11 encodes one"))
                }
                _ => self.value = Some(v),
            }
        }
        Ok(())
    }
}

/// A scalar source code (8 bits): no VGPRs; an SGPR within s0..s105, a ttmp within ttmp0..15.
fn ssrc(inst: &Inst, op: Operand, lit: &mut Lit) -> Result<u32, EncodeError> {
    exists(inst, lit.gen, op)?;
    match op {
        Operand::Vgpr(_) => Err(bad(inst, "a VGPR in a scalar source field")),
        Operand::Sgpr(n) if n > 105 => Err(bad(inst, format!("s{n} is past s105"))),
        Operand::Ttmp(n) if n > 15 => Err(bad(inst, format!("ttmp{n} is past ttmp15"))),
        _ => {
            lit.take(op)?;
            Ok(u32::from(op.code_in(lit.gen)))
        }
    }
}

/// A vector source code (9 bits).
fn vsrc(inst: &Inst, op: Operand, lit: &mut Lit) -> Result<u32, EncodeError> {
    exists(inst, lit.gen, op)?;
    match op {
        Operand::Sgpr(n) if n > 105 => return Err(bad(inst, format!("s{n} is past s105"))),
        Operand::Ttmp(n) if n > 15 => return Err(bad(inst, format!("ttmp{n} is past ttmp15"))),
        _ => {}
    }
    lit.take(op)?;
    Ok(u32::from(op.code_in(lit.gen)))
}

/// A scalar destination code (7 bits): a register, not a constant.
fn sdst(inst: &Inst, gen: Generation, op: Operand) -> Result<u32, EncodeError> {
    exists(inst, gen, op)?;
    match op {
        Operand::Sgpr(n) if n <= 105 => Ok(u32::from(n)),
        Operand::VccLo
        | Operand::VccHi
        | Operand::Null
        | Operand::M0
        | Operand::ExecLo
        | Operand::ExecHi => Ok(u32::from(op.code_in(gen))),
        _ => Err(bad(inst, "the destination must be a scalar register")),
    }
}

/// Why a GLOBAL access's VGPR tuples do not fit `isa`: CDNA 2 and later (DS features without
/// `unaligned-tuples`, LLVM `FeatureRequiresAlignedVGPRs`) need every tuple of two or more
/// VGPRs at an even register (`llvm-mc-22 -disassemble` for a CDNA 2 target marks an odd one "Invalid
/// register, operand has 'AV_64_Align2' register class").
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

/// An operand generation `gen` does not have ([`Operand::exists_in`]) is refused.
fn exists(inst: &Inst, gen: Generation, op: Operand) -> Result<(), EncodeError> {
    if op.exists_in(gen) {
        Ok(())
    } else {
        Err(bad(inst, format!("{gen} has no operand {op}")))
    }
}

/// gfx9's VOP3 takes no literal and reads at most one scalar value (the constant bus; Vega
/// and CDNA3 ISA guides, VOP3A; `llvm-mc-19` for a Vega target refuses both: "literal operands are
/// not supported", "violates constant bus restrictions").
fn gfx9_vop3_sources(inst: &Inst, srcs: &[Operand]) -> Result<(), EncodeError> {
    if srcs.iter().any(|s| matches!(s, Operand::Literal(_))) {
        return Err(bad(inst, "gfx9's VOP3 takes no literal"));
    }
    let mut scalars: Vec<Operand> = srcs
        .iter()
        .copied()
        .filter(|s| s.is_register() && !matches!(s, Operand::Vgpr(_)))
        .collect();
    scalars.dedup();
    if scalars.len() > 1 {
        return Err(bad(inst, "gfx9's VOP3 reads one scalar register at most"));
    }
    Ok(())
}

/// SGPRs of generation `gen` (s0..s105; gfx9 s0..s101).
fn sgprs(gen: Generation) -> u32 {
    if gen == Generation::Gfx9 {
        u32::from(super::LAST_SGPR_GFX9) + 1
    } else {
        106
    }
}

fn sgpr_tuple(inst: &Inst, gen: Generation, first: u8, dwords: u8) -> Result<(), EncodeError> {
    let n = sgprs(gen);
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

/// Encodes one gfx11 instruction (with its literal, if any) as little-endian bytes.
pub fn encode(inst: &Inst) -> Result<Vec<u8>, EncodeError> {
    encode_in(Generation::Gfx11, inst)
}

/// Encodes one instruction of `isa` (a generation, or a target: whose DS features decide which
/// DS words it has) as little-endian bytes.
pub fn encode_in(isa: impl Into<Isa>, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(12);
    encode_into_in(isa, inst, &mut out)?;
    Ok(out)
}

/// Appends the gfx11 encoding of `inst` to `out`, returning its length in bytes.
pub fn encode_into(inst: &Inst, out: &mut Vec<u8>) -> Result<usize, EncodeError> {
    encode_into_in(Generation::Gfx11, inst, out)
}

/// Appends the encoding of `inst` in generation `isa` to `out` (see [`encode_in`]), returning its
/// length in bytes.
pub fn encode_into_in(
    isa: impl Into<Isa>,
    inst: &Inst,
    out: &mut Vec<u8>,
) -> Result<usize, EncodeError> {
    let isa: Isa = isa.into();
    let gen = isa.gen;
    let mut lit = Lit {
        inst,
        gen,
        value: None,
    };
    let absent = || bad(inst, format!("not a {gen} instruction of the template"));
    let words: [u32; 3];
    let len;
    let gfx12 = gen == Generation::Gfx12;
    match *inst {
        Inst::Sop1 { op, sdst: d, src0 } => {
            if op.b() == 2 && matches!(src0, Operand::Literal(_)) {
                return Err(bad(inst, "64-bit literals are not modelled"));
            }
            let w = SOP1 << 23
                | sdst(inst, gen, d)? << 16
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 8
                | ssrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Sop2 {
            op,
            sdst: d,
            src0,
            src1,
        } => {
            let w = SOP2 << 30
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 23
                | sdst(inst, gen, d)? << 16
                | ssrc(inst, src1, &mut lit)? << 8
                | ssrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Sopk {
            op,
            sdst: d,
            simm16,
        } => {
            let w = SOPK << 28
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 23
                | sdst(inst, gen, d)? << 16
                | u32::from(simm16);
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Sopc { op, src0, src1 } => {
            let w = SOPC << 23
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 16
                | ssrc(inst, src1, &mut lit)? << 8
                | ssrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Sopp { op, simm16 } => {
            if op.b() == sopp_kind::NONE && simm16 != 0 {
                return Err(bad(inst, format!("{op} takes no immediate")));
            }
            if op.b() == sopp_kind::WAITCNT && simm16 & Waitcnt::unused_bits(gen) != 0 {
                return Err(bad(inst, "the s_waitcnt bits no counter uses must be 0"));
            }
            let w = SOPP << 23
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 16
                | u32::from(simm16);
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Smem {
            op,
            sdata,
            sbase,
            offset,
            soffset,
        } => {
            sgpr_tuple(inst, gen, sdata, op.dwords())?;
            if sbase % 2 != 0 || u32::from(sbase) + 2 > sgprs(gen) {
                return Err(bad(
                    inst,
                    format!("sbase s{sbase} must be an even SGPR pair within the SGPRs"),
                ));
            }
            let bits = if gfx12 { 24 } else { 21 };
            if !(-(1 << (bits - 1))..1 << (bits - 1)).contains(&offset) {
                return Err(bad(
                    inst,
                    format!("offset {offset} does not fit {bits} signed bits"),
                ));
            }
            let soff = match soffset {
                Some(s) if u32::from(s) >= sgprs(gen) => {
                    return Err(bad(inst, format!("soffset s{s} is past the SGPRs")))
                }
                Some(s) => u32::from(s),
                None => u32::from(null_code(gen)),
            };
            let op_code = u32::from(op.opcode_in(gen).ok_or_else(absent)?);
            let (w0, w1) = if gen == Generation::Gfx9 {
                // gfx9: OP [25:18], IMM 17, SOE 14, SDATA [12:6], SBASE [5:0]; the second dword
                // an immediate offset [20:0] and (SOE) SOFFSET [31:25], or (no IMM) the SGPR
                // offset's code in [7:0] (Vega and CDNA3 ISA guides, SMEM; `llvm-mc-19`).
                let w0 =
                    SMEM_GFX9 << 26 | op_code << 18 | u32::from(sdata) << 6 | u32::from(sbase / 2);
                match soffset {
                    None => (w0 | SMEM9_IMM, offset as u32 & 0x1f_ffff),
                    Some(_) if offset == 0 => (w0, soff),
                    Some(_) => (
                        w0 | SMEM9_IMM | SMEM9_SOE,
                        (offset as u32 & 0x1f_ffff) | soff << 25,
                    ),
                }
            } else if gfx12 {
                // gfx12: OP [20:13]; IOFFSET [23:0] of the second dword.
                (
                    SMEM << 26
                        | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 13
                        | u32::from(sdata) << 6
                        | u32::from(sbase / 2),
                    (offset as u32 & 0xff_ffff) | soff << 25,
                )
            } else {
                (
                    SMEM << 26
                        | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 18
                        | u32::from(sdata) << 6
                        | u32::from(sbase / 2),
                    (offset as u32 & 0x1f_ffff) | soff << 25,
                )
            };
            (words, len) = ([w0, w1, 0], 2);
        }
        Inst::Vop1 { op, vdst, src0 } => {
            let w = VOP1 << 25
                | u32::from(vdst) << 17
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 9
                | vsrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Vop2 {
            op,
            vdst,
            src0,
            vsrc1,
        } => {
            let w = u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 25
                | u32::from(vdst) << 17
                | u32::from(vsrc1) << 9
                | vsrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Vop3 { op, vdst, src } => {
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
            if gen == Generation::Gfx9 {
                gfx9_vop3_sources(inst, &src[..op.sources()])?;
            }
            let w0 = smem_vop3(gen).1 << 26
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 16
                | u32::from(vdst);
            let w1 = codes[0] | codes[1] << 9 | codes[2] << 18;
            (words, len) = ([w0, w1, 0], 2);
        }
        Inst::Vopc { op, src0, vsrc1 } => {
            let w = VOPC << 25
                | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 17
                | u32::from(vsrc1) << 9
                | vsrc(inst, src0, &mut lit)?;
            (words, len) = ([w, 0, 0], 1);
        }
        Inst::Global {
            op,
            vdata,
            vaddr,
            saddr,
            offset,
        } => {
            vgpr_tuple(inst, vdata, op.dwords())?;
            vgpr_tuple(inst, vaddr, if saddr.is_some() { 1 } else { 2 })?;
            if let Some(why) = odd_tuple(isa, op, vdata, vaddr, saddr) {
                return Err(bad(inst, why));
            }
            let bits = if gen == Generation::Gfx10 { 12 } else { 13 };
            let sgpr_pairs_end = sgprs(gen) - 2;
            if !(-(1 << (bits - 1))..1 << (bits - 1)).contains(&offset) {
                return Err(bad(
                    inst,
                    format!("offset {offset} does not fit {bits} signed bits"),
                ));
            }
            let sa = match saddr {
                None => u32::from(null_code(gen)),
                Some(s) if s % 2 == 0 && u32::from(s) <= sgpr_pairs_end => u32::from(s),
                Some(s) => {
                    return Err(bad(
                        inst,
                        format!("saddr s{s} must be an even SGPR pair within s0..s105"),
                    ))
                }
            };
            let (vdst, data) = if op.is_store() {
                (0, vdata)
            } else {
                (vdata, 0)
            };
            if gfx12 {
                // VGLOBAL: SADDR [6:0], OP [21:14], 0xee [31:24]; VDST [39:32], VSRC [62:55];
                // VADDR [71:64], IOFFSET [95:72] (signed 24 bits; the template's fit 13).
                let w0 =
                    VGLOBAL << 24 | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 14 | sa;
                let w1 = u32::from(vdst) | u32::from(data) << 23;
                let w2 = u32::from(vaddr) | (i32::from(offset) as u32 & 0xff_ffff) << 8;
                (words, len) = ([w0, w1, w2], 3);
            } else if matches!(gen, Generation::Gfx9 | Generation::Gfx10) {
                // gfx10 FLAT: OFFSET [11:0] (signed), SEG [15:14], OP [24:18]; the second dword
                // as gfx11's (RDNA 2 ISA guide, "FLAT, Scratch and Global"). gfx9 the same with
                // a 13-bit signed OFFSET [12:0] (LDS at 13; Vega and CDNA3 ISA guides, FLAT).
                let w0 = FLAT << 26
                    | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 18
                    | SEG_GLOBAL << 14
                    | (offset as u32 & if bits == 12 { 0xfff } else { 0x1fff });
                let w1 = u32::from(vaddr) | u32::from(data) << 8 | sa << 16 | u32::from(vdst) << 24;
                (words, len) = ([w0, w1, 0], 2);
            } else {
                let w0 = FLAT << 26
                    | u32::from(op.opcode_in(gen).ok_or_else(absent)?) << 18
                    | SEG_GLOBAL << 16
                    | (offset as u32 & 0x1fff);
                let w1 = u32::from(vaddr) | u32::from(data) << 8 | sa << 16 | u32::from(vdst) << 24;
                (words, len) = ([w0, w1, 0], 2);
            }
        }
        Inst::Ds(ds) => {
            out.extend_from_slice(&ds.to_bytes_in(isa).map_err(EncodeError::Ds)?);
            return Ok(8);
        }
        Inst::Acc(m) => {
            let [w0, w1] = super::acc::encode(gen, inst, m)?;
            words = [w0, w1, 0];
            len = 2;
        }
    }
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

/// Decodes the gfx11 instruction at the start of `bytes`, returning it and its length in bytes.
pub fn decode(bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    decode_in(Generation::Gfx11, bytes)
}

/// Decodes the instruction of generation `gen` at the start of `bytes`, returning it and its
/// length in bytes.
///
/// `isa` is a generation or a target; a DS word decodes only if the target has it (its DS
/// features: an op it lacks, `acc` or `gds` it cannot set, an odd tuple where it needs even ones).
pub fn decode_in(isa: impl Into<Isa>, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    let isa: Isa = isa.into();
    let gen = isa.gen;
    let w0 = dword(bytes, 0)?;
    let unknown = DecodeError::Unknown { word: w0 };
    let unmodelled = |what| DecodeError::Unmodelled { word: w0, what };
    let null = null_code(gen);
    // A global access's SADDR code and its VDST and DATA fields (where each generation puts
    // them) -> (saddr, vdata): a store's data register or a load's destination.
    let global_regs = |op: GlobalOp, sa: u8, vdst: u8, data: u8| {
        let saddr = match sa {
            n if n == null => None,
            s if s % 2 == 0 && u32::from(s) + 2 <= sgprs(gen) => Some(s),
            _ => return Err(unmodelled("an SADDR that is not an even SGPR pair or off")),
        };
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
        Ok((saddr, vdata))
    };
    let gfx12 = gen == Generation::Gfx12;
    let gfx9 = gen == Generation::Gfx9;
    let (smem, vop3) = smem_vop3(gen);
    // Length of the base instruction in dwords; a literal follows it.
    let base = match w0 >> 26 {
        _ if gfx12 && w0 >> 24 == VGLOBAL => 3,
        FLAT if gfx12 => return Err(unknown),
        f if f == smem || f == vop3 => 2,
        DS | FLAT => 2,
        // Another generation's SMEM or VOP3 prefix: not an instruction of the template here.
        f if f == SMEM || f == VOP3 || f == SMEM_GFX9 || f == VOP3_GFX9 => return Err(unknown),
        _ => 1,
    };
    let w1 = if base >= 2 { dword(bytes, 4)? } else { 0 };
    let w2 = if base == 3 { dword(bytes, 8)? } else { 0 };
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
        Operand::from_code_in(gen, code, lit).ok_or(unmodelled("this operand code"))
    };
    let sdst_of = |code: u32| -> Result<Operand, DecodeError> {
        match Operand::from_code_in(gen, code as u16, 0) {
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
    let inst = if w0 >> 23 == SOP1 {
        let op = Sop1Op::from_opcode_in(gen, (w0 >> 8 & 0xff) as u16).ok_or(unknown)?;
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
        let op = SopcOp::from_opcode_in(gen, (w0 >> 16 & 0x7f) as u16).ok_or(unknown)?;
        Inst::Sopc {
            op,
            src0: src(w0 & 0xff)?,
            src1: src(w0 >> 8 & 0xff)?,
        }
    } else if w0 >> 23 == SOPP {
        let op = SoppOp::from_opcode_in(gen, (w0 >> 16 & 0x7f) as u16).ok_or(unknown)?;
        let simm16 = w0 as u16;
        if op.b() == sopp_kind::NONE && simm16 != 0 {
            return Err(unmodelled("a non-zero immediate on an op without one"));
        }
        if op.b() == sopp_kind::WAITCNT && simm16 & Waitcnt::unused_bits(gen) != 0 {
            return Err(unmodelled("s_waitcnt with its unused bit set"));
        }
        Inst::Sopp { op, simm16 }
    } else if w0 >> 28 == SOPK {
        let op = SopkOp::from_opcode_in(gen, (w0 >> 23 & 0x1f) as u16).ok_or(unknown)?;
        Inst::Sopk {
            op,
            sdst: sdst_of(w0 >> 16 & 0x7f)?,
            simm16: w0 as u16,
        }
    } else if w0 >> 30 == SOP2 {
        let op = Sop2Op::from_opcode_in(gen, (w0 >> 23 & 0x7f) as u16).ok_or(unknown)?;
        Inst::Sop2 {
            op,
            sdst: sdst_of(w0 >> 16 & 0x7f)?,
            src0: src(w0 & 0xff)?,
            src1: src(w0 >> 8 & 0xff)?,
        }
    } else if w0 >> 26 == smem && gfx9 {
        let op = SmemOp::from_opcode_in(gen, (w0 >> 18 & 0xff) as u16).ok_or(unknown)?;
        if w0 & 0x3_a000 & !SMEM9_IMM != 0 {
            return Err(unmodelled("GLC, NV or a reserved SMEM bit"));
        }
        let sdata = (w0 >> 6 & 0x7f) as u8;
        if u32::from(sdata) + u32::from(op.dwords()) > sgprs(gen) {
            return Err(unmodelled("an SMEM destination outside s0..s101"));
        }
        let sgpr = |code: u32| match Operand::from_code_in(gen, code as u16, 0) {
            Some(Operand::Sgpr(s)) => Ok(s),
            _ => Err(unmodelled("an SGPR offset that is not an SGPR")),
        };
        let imm = w0 & SMEM9_IMM != 0;
        let soe = w0 & SMEM9_SOE != 0;
        let (offset, soffset) = match (imm, soe) {
            (true, false) if w1 >> 21 == 0 => (((w1 & 0x1f_ffff) << 11) as i32 >> 11, None),
            (true, true) if w1 >> 21 & 0xf == 0 => {
                (((w1 & 0x1f_ffff) << 11) as i32 >> 11, Some(sgpr(w1 >> 25)?))
            }
            (false, false) if w1 >> 8 == 0 => (0, Some(sgpr(w1)?)),
            _ => return Err(unmodelled("this SMEM offset form or its reserved bits")),
        };
        if offset == 0 && soe {
            return Err(unmodelled(
                "SOE with a zero immediate (LLVM writes the SGPR form)",
            ));
        }
        Inst::Smem {
            op,
            sdata,
            sbase: ((w0 & 0x3f) * 2) as u8,
            offset,
            soffset,
        }
    } else if w0 >> 26 == SMEM && gfx12 {
        let op = SmemOp::from_opcode_in(gen, (w0 >> 13 & 0xff) as u16).ok_or(unknown)?;
        if w0 & 0x03e0_0000 != 0 || w1 & (1 << 24) != 0 {
            return Err(unmodelled("SCOPE/TH or a reserved SMEM bit"));
        }
        let sdata = (w0 >> 6 & 0x7f) as u8;
        if u32::from(sdata) + u32::from(op.dwords()) > 106 {
            return Err(unmodelled("an SMEM destination outside s0..s105"));
        }
        let soff = (w1 >> 25) as u8;
        let soffset = match soff {
            n if n == null => None,
            0..=105 => Some(soff),
            _ => return Err(unmodelled("an SOFFSET that is not an SGPR or null")),
        };
        Inst::Smem {
            op,
            sdata,
            sbase: ((w0 & 0x3f) * 2) as u8,
            offset: ((w1 & 0xff_ffff) << 8) as i32 >> 8,
            soffset,
        }
    } else if gfx12 && w0 >> 24 == VGLOBAL {
        if w0 & 0x00c0_3f80 != 0 || w1 & 0x807f_ff00 != 0 {
            return Err(unmodelled("TH/SCOPE, SVE or a reserved VGLOBAL bit"));
        }
        let op = GlobalOp::from_opcode_in(gen, (w0 >> 14 & 0xff) as u16).ok_or(unknown)?;
        let offset = (w2 as i32) >> 8;
        if !(-4096..4096).contains(&offset) {
            return Err(unmodelled("a GLOBAL offset beyond 13 signed bits"));
        }
        let sa = (w0 & 0x7f) as u8;
        let (saddr, vdata) = global_regs(op, sa, w1 as u8, (w1 >> 23) as u8)?;
        Inst::Global {
            op,
            vdata,
            vaddr: w2 as u8,
            saddr,
            offset: offset as i16,
        }
    } else if w0 >> 26 == SMEM {
        let op = SmemOp::from_opcode_in(gen, (w0 >> 18 & 0xff) as u16).ok_or(unknown)?;
        if w0 & 0x3_e000 != 0 {
            return Err(unmodelled("GLC/DLC or a reserved SMEM bit"));
        }
        let sdata = (w0 >> 6 & 0x7f) as u8;
        if u32::from(sdata) + u32::from(op.dwords()) > 106 {
            return Err(unmodelled("an SMEM destination outside s0..s105"));
        }
        let soff = (w1 >> 25) as u8;
        let soffset = match soff {
            n if n == null => None,
            0..=105 => Some(soff),
            _ => return Err(unmodelled("an SOFFSET that is not an SGPR or null")),
        };
        if w1 & 0x01e0_0000 != 0 {
            return Err(unmodelled("reserved SMEM bits [56:53]"));
        }
        // Sign-extend the 21-bit offset.
        let offset = ((w1 & 0x1f_ffff) << 11) as i32 >> 11;
        Inst::Smem {
            op,
            sdata,
            sbase: ((w0 & 0x3f) * 2) as u8,
            offset,
            soffset,
        }
    } else if w0 >> 26 == vop3 {
        let op = Vop3Op::from_opcode_in(gen, (w0 >> 16 & 0x3ff) as u16).ok_or(unknown)?;
        if w0 & 0xff00 != 0 || w1 >> 27 != 0 {
            return Err(unmodelled(
                "a VOP3 modifier (abs, neg, clamp, op_sel, omod)",
            ));
        }
        let mut srcs = [Operand::Sgpr(0); 3];
        for (i, s) in srcs.iter_mut().enumerate() {
            let code = w1 >> (9 * i) & 0x1ff;
            if i >= op.sources() {
                if code != 0 {
                    return Err(unmodelled("a non-zero unused VOP3 source"));
                }
            } else {
                *s = src(code)?;
            }
        }
        let inst = Inst::Vop3 {
            op,
            vdst: w0 as u8,
            src: srcs,
        };
        if gfx9 && gfx9_vop3_sources(&inst, &srcs[..op.sources()]).is_err() {
            return Err(unmodelled("a gfx9 VOP3 literal or second scalar read"));
        }
        inst
    } else if w0 >> 26 == DS {
        let word = u64::from(w0) | u64::from(w1) << 32;
        return DsInst::decode_in(isa, word)
            .map(|d| (Inst::Ds(d), 8))
            .map_err(DecodeError::Ds);
    } else if w0 >> 26 == FLAT && gfx9 {
        if w0 >> 14 & 3 != SEG_GLOBAL {
            return Err(unmodelled("FLAT and SCRATCH segments"));
        }
        // LDS 13, GLC/SC0 16, SLC/NT 17, SC1 25 (gfx940), NV 55.
        if w0 & 0x3_2000 != 0 || w0 & (1 << 25) != 0 || w1 & (1 << 23) != 0 {
            return Err(unmodelled(
                "LDS, GLC/SLC/SC0/SC1/NT/NV or a reserved GLOBAL bit",
            ));
        }
        let op = GlobalOp::from_opcode_in(gen, (w0 >> 18 & 0x7f) as u16).ok_or(unknown)?;
        let offset = ((w0 & 0x1fff) << 19) as i32 >> 19;
        let sa = (w1 >> 16 & 0x7f) as u8;
        let (saddr, vdata) = global_regs(op, sa, (w1 >> 24) as u8, (w1 >> 8) as u8)?;
        if odd_tuple(isa, op, vdata, w1 as u8, saddr).is_some() {
            return Err(unmodelled(
                "an odd VGPR tuple on a target that needs even ones",
            ));
        }
        Inst::Global {
            op,
            vdata,
            vaddr: w1 as u8,
            saddr,
            offset: offset as i16,
        }
    } else if w0 >> 26 == FLAT && gen == Generation::Gfx10 {
        if w0 >> 14 & 3 != SEG_GLOBAL {
            return Err(unmodelled("FLAT and SCRATCH segments"));
        }
        if w0 & 0x3_3000 != 0 || w0 & (1 << 25) != 0 || w1 & (1 << 23) != 0 {
            return Err(unmodelled("GLC/SLC/DLC/LDS or a reserved GLOBAL bit"));
        }
        let op = GlobalOp::from_opcode_in(gen, (w0 >> 18 & 0x7f) as u16).ok_or(unknown)?;
        let offset = ((w0 & 0xfff) << 20) as i32 >> 20;
        let sa = (w1 >> 16 & 0x7f) as u8;
        let (saddr, vdata) = global_regs(op, sa, (w1 >> 24) as u8, (w1 >> 8) as u8)?;
        Inst::Global {
            op,
            vdata,
            vaddr: w1 as u8,
            saddr,
            offset: offset as i16,
        }
    } else if w0 >> 26 == FLAT {
        if w0 >> 16 & 3 != SEG_GLOBAL {
            return Err(unmodelled("FLAT and SCRATCH segments"));
        }
        if w0 & 0xe000 != 0 || w0 & (1 << 25) != 0 || w1 & (1 << 23) != 0 {
            return Err(unmodelled("GLC/SLC/DLC or a reserved GLOBAL bit"));
        }
        let op = GlobalOp::from_opcode_in(gen, (w0 >> 18 & 0x7f) as u16).ok_or(unknown)?;
        let offset = ((w0 & 0x1fff) << 19) as i32 >> 19;
        let sa = (w1 >> 16 & 0x7f) as u8;
        let (saddr, vdata) = global_regs(op, sa, (w1 >> 24) as u8, (w1 >> 8) as u8)?;
        Inst::Global {
            op,
            vdata,
            vaddr: w1 as u8,
            saddr,
            offset: offset as i16,
        }
    } else if w0 >> 25 == VOP1 {
        let op = Vop1Op::from_opcode_in(gen, (w0 >> 9 & 0xff) as u16).ok_or(unknown)?;
        Inst::Vop1 {
            op,
            vdst: (w0 >> 17) as u8,
            src0: src(w0 & 0x1ff)?,
        }
    } else if w0 >> 25 == VOPC {
        let op = VopcOp::from_opcode_in(gen, (w0 >> 17 & 0xff) as u16).ok_or(unknown)?;
        Inst::Vopc {
            op,
            src0: src(w0 & 0x1ff)?,
            vsrc1: (w0 >> 9) as u8,
        }
    } else if w0 >> 31 == 0 {
        let op = Vop2Op::from_opcode_in(gen, (w0 >> 25 & 0x3f) as u16).ok_or(unknown)?;
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
