//! The gfx10 (RDNA 1, RDNA 2) parts of the kernel template. Waits: one `s_waitcnt` covering the
//! VM (loads), EXP and LGKM counters in gfx10's own field layout (AMD "RDNA 2 Instruction Set
//! Architecture Reference Guide", SOPP `S_WAITCNT`: VM_CNT \[3:0\] and \[15:14\], EXP_CNT \[6:4\],
//! LGKM_CNT \[13:8\]; [`Waitcnt::to_simm16_in`]). Stores count on gfx10's separate VS_CNT
//! (`s_waitcnt_vscnt`, same guide, "Data Dependency Resolution"), as on gfx11: the template never
//! reads memory it stored (results and the LDS copy-out go to buffers only the host reads, after
//! the kernel ends, and the end of a kernel waits for its stores), so no wait of the template is a
//! store wait for the data's sake. One hazard needs it: an LDS access and a vector memory access
//! separated by a branch (LLVM `GCNHazardRecognizer::fixLdsBranchVmemWARHazard`, which puts
//! `s_waitcnt_vscnt null, 0x0` before the second; `llc-19` does so in a copy loop for the RDNA 1
//! targets, not for RDNA 2 or gfx11): the template's copy loops are that shape, so the gfx10
//! [`Template::branch_fence`] is that wait, at each loop's head and after its branch, on the
//! targets whose errata column has the hazard (`Errata::LDS_BRANCH_VMEM_WAR`: the RDNA 1 rows). Descriptor: ENABLE_DX10_CLAMP and
//! ENABLE_IEEE_MODE as on gfx11 (LLVM AMDGPUUsage, "compute_pgm_rsrc1 for GFX6-GFX12": bits 21
//! and 23 on GFX6-GFX11), WGP_MODE, MEM_ORDERED and FWD_PROGRESS at bits 29-31 (GFX10+), wave32 in
//! kernel_code_properties (ENABLE_WAVEFRONT_SIZE32, GFX10+): the same bits and directives as
//! gfx11, checked against `llvm-mc-19`/`-22` for every gfx10 target (`tests/oracle.rs`).

use super::gfx11::Gfx11;
use super::Template;
use ds_isa::inst::{Inst, Operand, SopkOp, Waitcnt};
use ds_isa::target::Generation;
use ds_reference::wave::FpMode;

/// The gfx10 template.
#[derive(Debug)]
pub struct Gfx10;

impl Template for Gfx10 {
    fn generation(&self) -> Generation {
        Generation::Gfx10
    }

    fn wait(&self, w: Waitcnt) -> Vec<Inst> {
        vec![Inst::waitcnt(Generation::Gfx10, w)]
    }

    /// As gfx11: DX10 clamp always (LLVM's default), IEEE mode as the variant says.
    fn rsrc1_mode(&self, mode: FpMode) -> u32 {
        Gfx11.rsrc1_mode(mode)
    }

    fn mode_directives(&self, rsrc1: u32) -> String {
        Gfx11.mode_directives(rsrc1)
    }

    /// `s_waitcnt_vscnt null, 0x0`: no store outstanding.
    fn branch_fence(&self) -> Vec<Inst> {
        vec![Inst::Sopk {
            op: SopkOp::WaitcntVscnt,
            sdst: Operand::Null,
            simm16: 0,
        }]
    }
}
