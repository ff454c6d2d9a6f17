//! The gfx12.5 (GFX 12.5) parts of the kernel template: gfx12's waits and descriptor bits
//! ([`super::gfx12`]) with what `llc-22` for GFX 12.5 and `llvm-mc-22` do otherwise (the
//! commands and outputs are in the FACTS file):
//! - every kernel `llc-22` writes starts with `s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 25, 1),
//!   1` (bit 25 of MODE is not named publicly; an `s_setreg` to MODE clobbers its VGPR-MSB bits
//!   \[19:12\], llvm-project PRs #156527 and #174681, which the kernels never set): the template
//!   starts with the same instruction ([`Template::prologue`]);
//! - the descriptor has no WGP mode: `llvm-mc-22` refuses `.amdhsa_workgroup_processor_mode`
//!   ("directive unsupported on this processor") and `llc-22` leaves compute_pgm_rsrc1 bit 29 clear
//!   (0xc00f0000 where RDNA 4 has 0xe00f0000); MEM_ORDERED as LLVM defaults it;
//! - code object version 6, `llc-22`'s default (every runtime that knows gfx12.5 is a ROCm 7
//!   release that loads v6);
//! - `ds_atomic_async_barrier_arrive_b64` reads its address VGPR as asynchronous work does:
//!   LLVM 22's hazard recognizer puts `s_wait_alu depctr_vm_vsrc(0)` right before and right after
//!   it (`llc-22` output of the intrinsic; `tests/all/hazards_llvm.rs` with LLVM's own instruction),
//!   and so does the template ([`Template::test_inst_fence`]), which then waits for the arrive
//!   on its own counter (`s_wait_asynccnt 0x0`: the arrive is counted by ASYNCcnt, not DScnt,
//!   and the kernel reads the barrier word back out of LDS after it).
//!
//! The VGPR granule of 16 is the generation's data (`Spec::vgpr_granule32`), the entry state
//! (workgroup id from the cluster registers) [`crate::entry`]'s.

use super::{gfx12, rsrc1, Commented, KernelDescriptor, Template};
use ds_isa::ds::{DsOp, Family};
use ds_isa::inst::{Inst, Operand, SopkOp, SoppOp, Waitcnt};
use ds_isa::target::{Generation, Target};
use ds_reference::wave::FpMode;

/// `hwreg(HW_REG_WAVE_MODE, 25, 1)`: MODE (id 1), offset 25, one bit.
const MODE_BIT_25: u16 = 1 | 25 << 6;
/// `s_wait_alu`'s `depctr_vm_vsrc(0)`: VM_VSRC \[4:2\] zero, every other field at its no-wait
/// value (`llvm-mc-22` for GFX 12.5: 0xff83).
const DEPCTR_VM_VSRC_0: u16 = 0xff83;

/// The gfx12.5 template.
#[derive(Debug)]
pub struct Gfx12_5;

impl Template for Gfx12_5 {
    fn generation(&self) -> Generation {
        Generation::Gfx12_5
    }

    fn wait(&self, w: Waitcnt) -> Vec<Inst> {
        gfx12::Gfx12.wait(w)
    }

    fn rsrc1_mode(&self, mode: FpMode) -> u32 {
        gfx12::Gfx12.rsrc1_mode(mode)
    }

    fn mode_directives(&self, rsrc1: u32) -> String {
        gfx12::Gfx12.mode_directives(rsrc1)
    }

    fn rsrc1_generation_bits(&self, _target: &Target) -> u32 {
        rsrc1::MEM_ORDERED
    }

    fn generation_directives(&self, _target: &Target, d: &KernelDescriptor) -> String {
        let bit = |b: u32| u8::from(d.compute_pgm_rsrc1 & b != 0);
        format!(
            "  .amdhsa_wavefront_size32 {}\n  .amdhsa_memory_ordered {}\n  \
             .amdhsa_forward_progress {}\n",
            u8::from(d.wave32()),
            bit(rsrc1::MEM_ORDERED),
            bit(rsrc1::FWD_PROGRESS)
        )
    }

    fn prologue(&self) -> Vec<(Inst, &'static str)> {
        vec![(
            Inst::Sopk {
                op: SopkOp::SetregImm32B32,
                sdst: Operand::Literal(1),
                simm16: MODE_BIT_25,
            },
            "MODE bit 25, as llc-22 starts every gfx12.5 kernel",
        )]
    }

    fn code_object_version(&self) -> u8 {
        6
    }

    fn test_inst_fence(&self, op: DsOp) -> (Commented, Commented) {
        let info = op.info();
        if info.family != Family::BarrierArrive || info.operands.data0 > 0 {
            return (Vec::new(), Vec::new());
        }
        let vm_vsrc = Inst::Sopp {
            op: SoppOp::WaitcntDepctr,
            simm16: DEPCTR_VM_VSRC_0,
        };
        let asynccnt = Inst::Sopp {
            op: SoppOp::WaitAsynccnt,
            simm16: 0,
        };
        let note = "LLVM's wait around the asynchronous arrive";
        (
            vec![(vm_vsrc, note)],
            vec![
                (vm_vsrc, note),
                (asynccnt, "the arrive is counted by ASYNCcnt, not DScnt"),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prologue_is_llcs_and_the_descriptor_has_no_wgp_mode() {
        let p = Gfx12_5.prologue();
        assert_eq!(
            p[0].0.text(Generation::Gfx12_5).to_string(),
            "s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 25, 1), 1"
        );
        let t = Generation::Gfx12_5.targets().next().unwrap();
        assert_eq!(Gfx12_5.rsrc1_generation_bits(t) & rsrc1::WGP_MODE, 0);
        let d = KernelDescriptor::default();
        assert!(!Gfx12_5
            .generation_directives(t, &d)
            .contains("workgroup_processor_mode"));
        assert_eq!(Gfx12_5.code_object_version(), 6);
        let (before, after) = Gfx12_5.test_inst_fence(DsOp::AtomicAsyncBarrierArriveB64);
        let text = |v: &[(Inst, &str)]| -> Vec<String> {
            v.iter()
                .map(|(i, _)| i.text(Generation::Gfx12_5).to_string())
                .collect()
        };
        assert_eq!(text(&before), ["s_wait_alu depctr_vm_vsrc(0)"]);
        assert_eq!(
            text(&after),
            ["s_wait_alu depctr_vm_vsrc(0)", "s_wait_asynccnt 0x0"]
        );
        let (b, a) = Gfx12_5.test_inst_fence(DsOp::AtomicBarrierArriveRtnB64);
        assert!(b.is_empty() && a.is_empty());
    }
}
