//! The gfx11 (RDNA 3, RDNA 3.5) parts of the kernel template: one `s_waitcnt` covering the VM,
//! EXP and LGKM counters (AMD "RDNA3 Instruction Set Architecture Reference Guide", "Data
//! Dependency Resolution"), and a descriptor with ENABLE_DX10_CLAMP and ENABLE_IEEE_MODE (LLVM
//! AMDGPUUsage, "compute_pgm_rsrc1 for GFX6-GFX12": bits 21 and 23 on GFX6-GFX11), set by the
//! `.amdhsa_dx10_clamp` and `.amdhsa_ieee_mode` directives.

use super::Template;
use crate::code_object::descriptor::rsrc1;
use ds_isa::inst::{Inst, Waitcnt};
use ds_isa::target::Generation;
use ds_reference::wave::FpMode;

/// The gfx11 template.
#[derive(Debug)]
pub struct Gfx11;

impl Template for Gfx11 {
    fn generation(&self) -> Generation {
        Generation::Gfx11
    }

    fn wait(&self, w: Waitcnt) -> Vec<Inst> {
        vec![Inst::waitcnt(Generation::Gfx11, w)]
    }

    /// DX10 clamp always (LLVM's default), IEEE mode as the variant says.
    fn rsrc1_mode(&self, mode: FpMode) -> u32 {
        rsrc1::DX10_CLAMP | if mode.ieee { rsrc1::IEEE_MODE } else { 0 }
    }

    fn mode_directives(&self, rsrc1: u32) -> String {
        format!(
            "  .amdhsa_dx10_clamp {}\n  .amdhsa_ieee_mode {}\n",
            u8::from(rsrc1 & rsrc1::DX10_CLAMP != 0),
            u8::from(rsrc1 & rsrc1::IEEE_MODE != 0)
        )
    }
}
