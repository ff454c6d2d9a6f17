//! The gfx9 (Vega, CDNA 1-4) parts of the kernel template. Waits: one `s_waitcnt` in gfx9's field
//! layout (AMD "Vega" and "CDNA3 Instruction Set Architecture" guides, SOPP `S_WAITCNT`: VM_CNT
//! \[3:0\] and \[15:14\], EXP_CNT \[6:4\], LGKM_CNT \[11:8\]; [`Waitcnt::to_simm16_in`]). gfx9 has no
//! separate store counter: stores count in VM_CNT, and the template never waits for its own
//! stores (results and the LDS copy-out go to buffers only the host reads after the kernel ends).
//!
//! Hazards (LLVM `GCNHazardRecognizer`, the rules that apply to gfx9, gfx90a and gfx940 and to
//! the template's sequences; `llc-19`/`-22 -mcpu=gfx900|gfx90a|gfx942` on a kernel of the same
//! shape inserts nothing else): the one wait state between the SALU write of M0 and a DS op that
//! reads it (`checkReadM0Hazards`, `hasReadM0LdsDmaHazard`/`hasReadM0SendMsgHazard`: gfx9's
//! `ds_*_addtid` and GWS read M0; the generic template's `s_nop 0` after the EXEC write covers it);
//! none of the others fires: no VALU writes an SGPR or VCC that a VMEM or SMEM reads
//! (`checkVMEMHazards`, `checkSMRDHazards` is SI only), no store of more than 8 bytes has its
//! data overwritten by the next VALU (`checkVALUHazards`' 12-dword-store rule: the stores' data
//! registers are not written again), no DPP, readlane, MFMA or transcendental op, and no SMEM or
//! VMEM soft clause writes a register another member of it reads (`checkSoftClauseHazards`, which
//! gfx9 with XNACK needs). gfx10's LDS/branch/VMEM hazard does not exist on gfx9
//! ([`Template::branch_fence`] stays empty). Code is padded with `s_nop 0` (gfx9 has no
//! `s_code_end`).
//!
//! Descriptor (LLVM AMDGPUUsage, "Kernel Descriptor", "compute_pgm_rsrc1 for GFX6-GFX12",
//! "compute_pgm_rsrc3 for GFX90A, GFX942"): ENABLE_DX10_CLAMP and ENABLE_IEEE_MODE as on gfx10 and
//! gfx11 (bits 21 and 23); no WGP_MODE, MEM_ORDERED or FWD_PROGRESS (bits 29-31 are GFX10+) and no
//! ENABLE_WAVEFRONT_SIZE32 (gfx9 is wave64 only); GRANULATED_WAVEFRONT_SGPR_COUNT as LLVM
//! computes it for GFX6-GFX9 with its default reservations (gfx10+ leave it 0). On targets with one unified VGPR/AccVGPR file
//! (target column `unified_vgprs`: gfx90a, gfx942, gfx950) VGPRs count in granules of 8 and
//! compute_pgm_rsrc3 carries ACCUM_OFFSET \[5:0\] (`accum_offset / 4 - 1`, the AccVGPRs start at
//! the first multiple of 4 past the VGPRs the kernel uses: it uses none) with TG_SPLIT \[16\]
//! clear. Each descriptor equals the one `llvm-mc-19`/`-22` + `ld.lld` write for the same
//! directives ([`Template::descriptor_directives`]; `tests/oracle.rs`).

use super::gfx11::Gfx11;
use super::Template;
use crate::code_object::descriptor::KernelDescriptor;
use crate::inst::{Inst, Waitcnt};
use ds_reference::target::{Generation, Target};
use ds_reference::wave::FpMode;

/// The gfx9 template.
#[derive(Debug)]
pub struct Gfx9;

/// SGPRs per GRANULATED_WAVEFRONT_SGPR_COUNT granule on GFX6-GFX9 (AMDGPUUsage,
/// "compute_pgm_rsrc1 for GFX6-GFX12": granules of 8, minus one).
const SGPR_GRANULE: u32 = 8;
/// SGPRs LLVM allocates past `.amdhsa_next_free_sgpr` on GFX8-GFX9 (`AMDGPU::IsaInfo::
/// getNumExtraSGPRs`): with FLAT_SCRATCH reserved, as `.amdhsa_reserve_flat_scratch` defaults,
/// 6 (VCC, FLAT_SCRATCH and XNACK_MASK sit at the top of the wave's SGPRs). `llvm-mc-19`/`-22`
/// write GRANULATED_WAVEFRONT_SGPR_COUNT 3 for 20 SGPRs on all six gfx9 targets.
const EXTRA_SGPRS: u32 = 6;

impl Gfx9 {
    /// GRANULATED_WAVEFRONT_SGPR_COUNT for a kernel using `sgprs` SGPRs.
    pub fn sgpr_granules(sgprs: u32) -> u32 {
        (sgprs + EXTRA_SGPRS).max(1).div_ceil(SGPR_GRANULE) - 1
    }
}

impl Template for Gfx9 {
    fn generation(&self) -> Generation {
        Generation::Gfx9
    }

    fn wait(&self, w: Waitcnt) -> Vec<Inst> {
        vec![Inst::waitcnt_in(Generation::Gfx9, w)]
    }

    /// As gfx11: DX10 clamp always (LLVM's default), IEEE mode as the variant says.
    fn rsrc1_mode(&self, mode: FpMode) -> u32 {
        Gfx11.rsrc1_mode(mode)
    }

    fn mode_directives(&self, rsrc1: u32) -> String {
        Gfx11.mode_directives(rsrc1)
    }

    /// `s_nop 0`: gfx9 has no `s_code_end`; it is what `llvm-mc` pads gfx9 code with (its
    /// assembler backend's nop fill, as `llvm-objdump` shows between two `.p2align 8` kernels).
    fn code_padding(&self) -> [u8; 4] {
        let nop = Inst::Sopp {
            op: crate::inst::SoppOp::Nop,
            simm16: 0,
        };
        let bytes = crate::inst::encode_in(Generation::Gfx9, &nop).expect("s_nop 0 encodes");
        bytes.try_into().expect("one dword")
    }

    /// None of GFX10's bits 29-31.
    fn rsrc1_generation_bits(&self) -> u32 {
        0
    }

    fn sgpr_granules(&self, _target: &Target, sgprs: u32) -> u32 {
        Gfx9::sgpr_granules(sgprs)
    }

    /// No wave32 or GFX10 mode directive (`llvm-mc` refuses them for gfx9); `.amdhsa_accum_offset`
    /// on a target with a unified VGPR file, where `llvm-mc` requires it.
    fn generation_directives(&self, target: &Target, d: &KernelDescriptor) -> String {
        if target.unified_vgprs {
            format!("  .amdhsa_accum_offset {}\n", d.accum_offset())
        } else {
            String::new()
        }
    }
}
