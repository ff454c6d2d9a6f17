//! The generator's AccVGPR steps for an `acc` variant (data and vdst in AccVGPRs): after the lane
//! registers are loaded into their staging VGPRs ([`Layout::vgpr_of`]), `v_accvgpr_write_b32`
//! moves each into the AccVGPR of its number; after the instruction (and EXEC restored),
//! `v_accvgpr_read_b32` moves each register the dump stores back. Both run over every lane.
//!
//! Hazards: none to pad. LLVM's hazard recognizer (`post-RA-hazard-rec`, `GCNHazardRecognizer`)
//! inserts no wait state between a `v_accvgpr_write_b32` and a DS instruction that reads the
//! AccVGPR it wrote, between a DS load into an AccVGPR (after `s_waitcnt lgkmcnt(0)`) and a
//! `v_accvgpr_read_b32` of it, nor between that read and a global store of its VGPR, for every
//! target with ACC each of llc-19 and llc-22 knows, while it pads a control sequence (a VALU SGPR
//! write then `v_readlane_b32` using it) with `s_nop 3`: `kernels/tests/llvm_acc.rs` on
//! `tests/fixtures/acc_hazards.mir`. In LLVM's `GCNHazardRecognizer.cpp`, the rule that pads an
//! AccVGPR read before a load/store using its VGPR (`checkMAILdStHazards`, 2 wait states) returns
//! 0 on targets with `GFX90AInsts` (their hazards are `checkMAIVALUHazards`', which are about
//! registers an MFMA or DOT instruction wrote: these kernels run none).
//!
//! Register budget (LLVM AMDGPUUsage, the unified register file of the targets with ACC;
//! `getTotalNumVGPRs` in `AMDGPUBaseInfo.cpp`, reviews.llvm.org/D119912): AccVGPRs follow the
//! architected VGPRs at `accum_offset` = the VGPR count rounded up to 4, and the descriptor's
//! VGPR count is `accum_offset` + the AccVGPR count ([`crate::template::unified_vgprs`]).

use super::emit::Asm;
use super::error::GenError;
use super::layout::Layout;
use ds_isa::ds::Field;
use ds_isa::inst::acc::AccMove;
use ds_isa::inst::Inst;

/// The operands that live in AccVGPRs, in the order they are moved.
const FIELDS: [Field; 3] = [Field::Data0, Field::Data1, Field::Vdst];

/// `v_accvgpr_write_b32` of `dwords(field)` registers of each AccVGPR operand from its staging
/// VGPRs (nothing without `acc`).
pub(super) fn write_operands(
    a: &mut Asm,
    l: &Layout,
    dwords: impl Fn(Field) -> u8,
) -> Result<(), GenError> {
    moves(
        a,
        l,
        dwords,
        "data and vdst into their AccVGPRs",
        AccMove::write,
    )
}

/// `v_accvgpr_read_b32` of `dwords(field)` registers of each AccVGPR operand into its staging
/// VGPRs, for the dump (nothing without `acc`).
pub(super) fn read_operands(
    a: &mut Asm,
    l: &Layout,
    dwords: impl Fn(Field) -> u8,
) -> Result<(), GenError> {
    moves(
        a,
        l,
        dwords,
        "the AccVGPR operands back, for the dump",
        |agpr, vgpr| AccMove::read(vgpr, agpr),
    )
}

/// One move per register of each AccVGPR operand, `mv(agpr, staging vgpr)`, the first noted.
fn moves(
    a: &mut Asm,
    l: &Layout,
    dwords: impl Fn(Field) -> u8,
    mut note: &'static str,
    mv: impl Fn(u8, u8) -> AccMove,
) -> Result<(), GenError> {
    if l.stage.is_none() {
        return Ok(());
    }
    for field in FIELDS {
        for k in 0..dwords(field) {
            a.emit(Inst::Acc(mv(l.reg(field) + k, l.vgpr_of(field) + k)), note)?;
            note = "";
        }
    }
    Ok(())
}
