//! The template's instruction formats that every generation shares (their prefixes and field
//! positions, the ISA guides' "Microcode Formats": SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2,
//! VOPC and the DS prefix) and the operand rules the encoder ([`super::encode`]) and the decoder
//! ([`super::decode`]) both hold. The formats that differ between generations (SMEM, VOP3, GLOBAL,
//! the `s_waitcnt` immediate, the operand codes) are each generation's data
//! ([`crate::gen::Spec`]), which both read; neither asks which generation it works for.

use super::{GlobalOp, Operand};
use crate::ds::{DsFeatures, Isa};
use crate::gen::Generation;

/// SOP1: \[31:23\] = 0b1_0111_1101; SDST [22:16], OP [15:8], SSRC0 [7:0].
pub(super) const SOP1: u32 = 0x17d;
/// SOPC: \[31:23\] = 0b1_0111_1110; OP [22:16], SSRC1 [15:8], SSRC0 [7:0].
pub(super) const SOPC: u32 = 0x17e;
/// SOPP: \[31:23\] = 0b1_0111_1111; OP [22:16], SIMM16 [15:0].
pub(super) const SOPP: u32 = 0x17f;
/// SOPK: \[31:28\] = 0b1011; OP [27:23], SDST [22:16], SIMM16 [15:0].
pub(super) const SOPK: u32 = 0xb;
/// SOP2: \[31:30\] = 0b10; OP [29:23], SDST [22:16], SSRC1 [15:8], SSRC0 [7:0].
pub(super) const SOP2: u32 = 0b10;
/// DS: \[31:26\] = 0b11_0110.
pub(super) const DS: u32 = 0x36;
/// VOP1: \[31:25\] = 0b011_1111; VDST [24:17], OP [16:9], SRC0 [8:0].
pub(super) const VOP1: u32 = 0x3f;
/// VOPC: \[31:25\] = 0b011_1110; OP [24:17], VSRC1 [16:9], SRC0 [8:0].
pub(super) const VOPC: u32 = 0x3e;
/// VOP2: bit 31 clear; OP [30:25], VDST [24:17], VSRC1 [16:9], SRC0 [8:0].
pub(super) const VOP2_TOP: u32 = 0;
/// VOP3's modifier bits the template never sets: ABS/OP_SEL/CLAMP [15:8] of the first dword,
/// OMOD/NEG [31:27] of the second.
pub(super) const VOP3_MODIFIERS: [u32; 2] = [0xff00, 0xf800_0000];

/// Why a GLOBAL access's VGPR tuples do not fit `isa`: CDNA 2 and later (DS features without
/// `unaligned-tuples`, LLVM `FeatureRequiresAlignedVGPRs`) need every tuple of two or more
/// VGPRs at an even register (`llvm-mc-22 -disassemble` for a CDNA 2 target marks an odd one
/// "Invalid register, operand has 'AV_64_Align2' register class").
pub(super) fn odd_tuple(
    isa: Isa,
    op: GlobalOp,
    vdata: u8,
    vaddr: u8,
    saddr: Option<u8>,
) -> Option<String> {
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
pub(super) fn vop3_sources(gen: Generation, srcs: &[Operand]) -> Option<String> {
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
