//! The gfx9 (Vega, CDNA 1-4) parts of the kernel template. Waits: one `s_waitcnt` in gfx9's field
//! layout (AMD "Vega" and "CDNA3 Instruction Set Architecture" guides, SOPP `S_WAITCNT`: VM_CNT
//! \[3:0\] and \[15:14\], EXP_CNT \[6:4\], LGKM_CNT \[11:8\]; [`Waitcnt::to_simm16_in`]). gfx9 has no
//! separate store counter: stores count in VM_CNT, and the template never waits for its own
//! stores (results and the LDS copy-out go to buffers only the host reads after the kernel ends).
//!
//! Hazards (LLVM `GCNHazardRecognizer`, the rules for gfx9, CDNA 2 and CDNA 3 that the
//! template's sequences could meet; `llc-19` and `llc-22` for
//! each gfx9 target on a kernel of the template's shape (copy loops around a global load and an LDS
//! store, a 16-byte store of results, an LDS atomic) insert one `s_nop 0` each, for the first rule):
//! - a VALU may not write a VGPR holding the data of a VMEM store of more than 8 bytes within 1
//!   wait state (2 on gfx940 and later; `checkVALUHazards`): the template's wide stores (the
//!   lane records) are followed only by writes of the address and scratch registers; held for
//!   every gfx9 kernel, aliasing variants and canary included, by this module's tests;
//! - one wait state between the SALU write of M0 and a DS op that reads it (`checkReadM0Hazards`:
//!   the add-TID and GWS forms): the EXEC writes and `s_nop 0` after it (tested here);
//! - none of the others can fire: no VALU writes an SGPR or VCC (so none that a VMEM or SMEM
//!   reads, `checkVMEMHazards`; `checkSMRDHazards` is SI only), no DPP, readlane, MFMA, DOT or
//!   transcendental op (the CDNA 2/3 `checkMAIVALUHazards` family needs one), and no SMEM or
//!   VMEM soft clause writes a register another member of it reads (`checkSoftClauseHazards`,
//!   which XNACK-capable targets need: the loads of a clause write only their destinations).
//!
//! `tests/hazards_llc.rs` runs LLVM's own hazard recognizer (`llc -run-pass=post-RA-hazard-rec`)
//! over every gfx9 kernel: it inserts nothing, and it does mend a planted wide-store-data write.
//!
//! gfx10's LDS/branch/VMEM hazard does not exist on gfx9 ([`Template::branch_fence`] stays
//! empty). Code is padded with `s_nop 0` (gfx9 has no `s_code_end`).
//!
//! Descriptor (LLVM AMDGPUUsage, "Kernel Descriptor", "compute_pgm_rsrc1 for GFX6-GFX12",
//! "compute_pgm_rsrc3" of CDNA 2 and later): ENABLE_DX10_CLAMP and ENABLE_IEEE_MODE as on gfx10 and
//! gfx11 (bits 21 and 23); no WGP_MODE, MEM_ORDERED or FWD_PROGRESS (bits 29-31 are GFX10+) and no
//! ENABLE_WAVEFRONT_SIZE32 (gfx9 is wave64 only); GRANULATED_WAVEFRONT_SGPR_COUNT as LLVM
//! computes it for GFX6-GFX9 with its default reservations (gfx10+ leave it 0). On targets with
//! one unified VGPR/AccVGPR file (target column `unified_vgprs`: CDNA 2 and later) VGPRs
//! count in granules of 8 and
//! compute_pgm_rsrc3 carries ACCUM_OFFSET \[5:0\] (`accum_offset / 4 - 1`, the AccVGPRs start at
//! the first multiple of 4 past the VGPRs the kernel uses: it uses none) with TG_SPLIT \[16\]
//! clear. Each descriptor equals the one `llvm-mc-19`/`-22` + `ld.lld` write for the same
//! directives ([`Template::generation_directives`]; `tests/descriptor.rs`, `tests/oracle.rs`).

use super::gfx11::Gfx11;
use super::Template;
use crate::code_object::descriptor::KernelDescriptor;
use ds_isa::inst::{Inst, Waitcnt};
use ds_isa::target::{Generation, Target};
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
        vec![Inst::waitcnt(Generation::Gfx9, w)]
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
            op: ds_isa::inst::SoppOp::Nop,
            simm16: 0,
        };
        let bytes = ds_isa::inst::encode(Generation::Gfx9, &nop).expect("s_nop 0 encodes");
        bytes.try_into().expect("one dword")
    }

    /// None of GFX10's bits 29-31.
    fn rsrc1_generation_bits(&self, _target: &Target) -> u32 {
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

#[cfg(test)]
mod tests {
    use crate::entry::KernelEntry;
    use crate::generator::{canary, generate_for, Kernel};
    use ds_isa::ds::{runnable_ops_on, DsFeatures};
    use ds_isa::inst::{Inst, SoppOp};
    use ds_isa::target::{Generation, TARGETS};
    use ds_reference::regs::Alias;
    use ds_reference::wave::{FpMode, Variant, WaveSize};

    /// Every kernel of every gfx9 target: each runnable op, plain and in each aliasing pattern
    /// (tuples even where the target needs it), and the canary.
    fn kernels() -> Vec<(String, Kernel)> {
        let mut out = Vec::new();
        for t in TARGETS.iter().filter(|t| t.generation == Generation::Gfx9) {
            let even = !t.ds_features.contains(DsFeatures::UNALIGNED);
            for op in runnable_ops_on(t) {
                let plain = Variant {
                    op,
                    offset0: 0,
                    offset1: 0,
                    lds_size: 1024 - 124,
                    mode: FpMode::default(),
                    wave: WaveSize::Wave64,
                    regs: None,
                    acc: false,
                };
                let mut vs = vec![plain];
                vs.extend(
                    Alias::for_op_in(op, even)
                        .into_iter()
                        .map(|(_, r)| Variant {
                            regs: Some(r),
                            ..plain
                        }),
                );
                for v in vs {
                    let k = generate_for(t, &v).unwrap_or_else(|e| panic!("{t} {op}: {e}"));
                    out.push((format!("{t} {}", k.name), k));
                }
            }
            let c = canary::build(t, WaveSize::Wave64, &KernelEntry::of(t, WaveSize::Wave64));
            out.push((format!("{t} canary"), c.unwrap()));
        }
        out
    }

    /// The VGPRs a VALU instruction writes (the template's VALU ops write one).
    fn valu_dst(i: &Inst) -> Option<u8> {
        match *i {
            Inst::Vop1 { vdst, .. } | Inst::Vop2 { vdst, .. } | Inst::Vop3 { vdst, .. } => {
                Some(vdst)
            }
            _ => None,
        }
    }

    /// Wait states an instruction stands for (`s_nop N`: N + 1).
    fn wait_states(i: &Inst) -> u32 {
        match *i {
            Inst::Sopp {
                op: SoppOp::Nop,
                simm16,
            } => u32::from(simm16) + 1,
            _ => 1,
        }
    }

    /// LLVM `GCNHazardRecognizer::checkVALUHazards` (store data): a VALU may not write a VGPR
    /// holding the data of a VMEM store of more than 8 bytes within 1 wait state of it (2 on
    /// gfx940 and later: `llc-19` for CDNA 3 puts `s_nop 0` between `global_store_dwordx4
    /// v6, v[2:5]`, a `ds_read_b32` and `v_add_u32 v2`, for Vega one wait state). No gfx9
    /// kernel of the template has such a write within 2 wait states of such a store.
    #[test]
    fn no_valu_writes_the_data_of_a_wide_store_within_two_wait_states() {
        let mut stores = 0;
        for (name, k) in kernels() {
            let insts: Vec<&Inst> = k.insts.iter().map(|(i, _)| i).collect();
            for (at, i) in insts.iter().enumerate() {
                let Inst::Global { op, vdata, .. } = **i else {
                    continue;
                };
                if !op.is_store() || op.dwords() <= 2 {
                    continue;
                }
                stores += 1;
                let data = u32::from(vdata)..u32::from(vdata) + u32::from(op.dwords());
                let mut waited = 0;
                for next in &insts[at + 1..] {
                    if waited >= 2 {
                        break;
                    }
                    if let Some(d) = valu_dst(next) {
                        assert!(
                            !data.contains(&u32::from(d)),
                            "{name}: `{}` writes v{d} of `{}`'s data after {waited} wait states",
                            next.text(Generation::Gfx9),
                            i.text(Generation::Gfx9)
                        );
                    }
                    waited += wait_states(next);
                }
            }
        }
        assert!(stores > 100, "only {stores} wide stores looked at");
    }

    /// LLVM `checkReadM0Hazards`: one wait state between the SALU write of M0 and a DS op that
    /// reads it (gfx9's add-TID and GWS forms); the template has at least one before every DS op.
    #[test]
    fn a_wait_state_stands_between_the_m0_write_and_the_ds_op() {
        for (name, k) in kernels() {
            let insts: Vec<&Inst> = k.insts.iter().map(|(i, _)| i).collect();
            for (at, i) in insts.iter().enumerate() {
                let writes_m0 = matches!(
                    i,
                    Inst::Sop1 {
                        sdst: ds_isa::inst::Operand::M0,
                        ..
                    }
                );
                if writes_m0 {
                    let next = insts.get(at + 1).expect("the DS op follows");
                    assert!(
                        !matches!(next, Inst::Ds(_)),
                        "{name}: DS op right after the M0 write"
                    );
                }
            }
        }
    }
}
