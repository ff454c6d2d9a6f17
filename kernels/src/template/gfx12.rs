//! The gfx12 (RDNA 4) parts of the kernel template. gfx12 splits gfx11's counters (AMD "RDNA4
//! Instruction Set Architecture Reference Guide", "Data Dependency Resolution"): VM_CNT's loads
//! are LOADcnt (`s_wait_loadcnt`); LGKM_CNT is KMcnt for scalar memory (`s_wait_kmcnt`) and DScnt
//! for LDS (`s_wait_dscnt`); so a gfx11 wait is the same wait on each counter it covered. The
//! descriptor has neither DX10_CLAMP nor IEEE_MODE (AMDGPUUsage, "compute_pgm_rsrc1 for
//! GFX6-GFX12": bit 21 is ENABLE_WG_RR_EN and bit 23 reserved on GFX12; `llvm-mc-19` refuses
//! `.amdhsa_dx10_clamp` and `.amdhsa_ieee_mode` there with "directive unsupported on gfx12+"),
//! so a variant's `ieee` switch is not encoded (gfx12 has no IEEE mode).

use super::Template;
use ds_isa::inst::{Inst, SoppOp, Waitcnt};
use ds_isa::target::Generation;
use ds_reference::wave::FpMode;

/// The gfx12 template.
#[derive(Debug)]
pub struct Gfx12;

impl Template for Gfx12 {
    fn generation(&self) -> Generation {
        Generation::Gfx12
    }

    fn wait(&self, w: Waitcnt) -> Vec<Inst> {
        let mut waits = Vec::with_capacity(3);
        if w.vmcnt != Waitcnt::VM_MAX {
            waits.push((SoppOp::WaitLoadcnt, w.vmcnt));
        }
        if w.lgkmcnt != Waitcnt::LGKM_MAX {
            waits.push((SoppOp::WaitKmcnt, w.lgkmcnt));
            waits.push((SoppOp::WaitDscnt, w.lgkmcnt));
        }
        waits
            .into_iter()
            .map(|(op, n)| Inst::Sopp {
                op,
                simm16: u16::from(n),
            })
            .collect()
    }

    fn rsrc1_mode(&self, _mode: FpMode) -> u32 {
        0
    }

    fn mode_directives(&self, _rsrc1: u32) -> String {
        String::new()
    }
}
