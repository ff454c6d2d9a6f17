//! The kernel template's generation-specific parts behind one interface ([`Template`]): how the
//! template waits for memory, and the kernel descriptor's mode bits and the `.amdhsa_*`
//! directives that set them. One module per generation ([`gfx9`], [`gfx10`], [`gfx11`],
//! [`gfx12`], [`gfx12_5`]); [`of`] is the one
//! place that maps a [`Generation`] to its module. Everything else the template does is generic
//! ([`crate::generator`]) or follows the target's entry state ([`crate::entry`]).
//!
//! Adding a generation: a module here implementing [`Template`] (its waits and descriptor bits,
//! each checked against LLVM), an arm in [`of`], and its encodings in [`ds_isa::inst`].

pub mod gfx10;
pub mod gfx11;
pub mod gfx12;
pub mod gfx12_5;
pub mod gfx9;

use crate::code_object::descriptor::{
    props, rsrc1, rsrc2, rsrc3, vgpr_granule_on, KernelDescriptor,
};
use crate::entry::KernelEntry;
use ds_isa::ds::DsOp;
use ds_isa::errata::Errata;
use ds_isa::inst::{Inst, Waitcnt};
use ds_isa::target::{Generation, Target};
use ds_reference::wave::{FpMode, Variant, WaveSize};

/// SGPRs the kernel uses (s0..s18); VCC is not used.
pub const SGPR_COUNT: u32 = 19;
/// SGPRs the wave64 template uses: s19 holds EXEC\[63:32\] of the case.
pub const SGPR_COUNT_WAVE64: u32 = 20;

/// `s_code_end` (SOPP opcode 0x1f): what LLVM pads the end of gfx10+ code with.
pub const S_CODE_END: [u8; 4] = [0x00, 0x00, 0x9f, 0xbf];

/// What differs between the kernel templates of two generations.
/// Instructions, each with the comment its listing shows.
pub type Commented = Vec<(Inst, &'static str)>;

pub trait Template: Sync {
    /// The generation this template is written for.
    fn generation(&self) -> Generation;

    /// The instructions that wait as gfx11's `s_waitcnt w` does (counters at their maximum do
    /// not wait). At least one instruction.
    fn wait(&self, w: Waitcnt) -> Vec<Inst>;

    /// compute_pgm_rsrc1's bits for the FP mode and clamping that only some generations have
    /// (the denormal modes, WGP_MODE and MEM_ORDERED are common; see [`descriptor`]).
    fn rsrc1_mode(&self, mode: FpMode) -> u32;

    /// The `.amdhsa_*` directives that set [`Template::rsrc1_mode`]'s bits of `rsrc1`, one per
    /// line, as `llvm-mc` accepts them for the generation.
    fn mode_directives(&self, rsrc1: u32) -> String;

    /// What must stand between an LDS access and a vector memory access that a branch separates
    /// (on every path: the template puts it at a loop's head and after its branch). Nothing by
    /// default; gfx10 waits for stores ([`gfx10`]).
    fn branch_fence(&self) -> Vec<Inst> {
        Vec::new()
    }

    /// compute_pgm_rsrc1's GFX10+ bits as the template sets them on `target`: WGP_MODE
    /// ([`wgp_mode`]) and MEM_ORDERED (as LLVM defaults them), FWD_PROGRESS clear. gfx9 has none
    /// of them.
    fn rsrc1_generation_bits(&self, target: &Target) -> u32 {
        wgp_mode(target) | rsrc1::MEM_ORDERED
    }

    /// The word that fills the gaps between kernels' code and pads the code's end where LLVM
    /// does (`code_object::code_end`): `s_code_end` (gfx10+: what LLVM's code-end padding is,
    /// and what the hardware's instruction prefetch stops at).
    fn code_padding(&self) -> [u8; 4] {
        S_CODE_END
    }

    /// GRANULATED_WAVEFRONT_SGPR_COUNT for a kernel of `sgprs` SGPRs on `target` (GFX10+: 0,
    /// the hardware allocates SGPRs itself).
    fn sgpr_granules(&self, _target: &Target, _sgprs: u32) -> u32 {
        0
    }

    /// The instructions every kernel starts with, before it reads its entry state (none by
    /// default; gfx12.5's MODE write, as LLVM's).
    fn prologue(&self) -> Vec<(Inst, &'static str)> {
        Vec::new()
    }

    /// What must stand right before and right after the DS instruction under test `op` (LLVM's
    /// hazard recognizer's rules for it, and a wait for a counter other than the DS counter the
    /// template's waits cover; none by default; gfx12.5's asynchronous barrier arrive is fenced
    /// on both sides and waited for on ASYNCcnt): (before, after).
    fn test_inst_fence(&self, _op: DsOp) -> (Commented, Commented) {
        (Vec::new(), Vec::new())
    }

    /// The code object version a processor's code object is written as (5 by default: what
    /// every ROCm release since 5.x loads; generic targets take 6 whatever this says).
    fn code_object_version(&self) -> u8 {
        5
    }

    /// The `.amdhsa_*` directives of the descriptor fields only some generations have, one per
    /// line: GFX10+'s wave32, WGP mode, memory-ordered and forward-progress bits (explicit:
    /// LLVM 22 sets FWD_PROGRESS when its directive is absent, LLVM 19 does not).
    fn generation_directives(&self, _target: &Target, d: &KernelDescriptor) -> String {
        let bit = |b: u32| u8::from(d.compute_pgm_rsrc1 & b != 0);
        format!(
            "  .amdhsa_wavefront_size32 {}\n  .amdhsa_workgroup_processor_mode {}\n  \
             .amdhsa_memory_ordered {}\n  .amdhsa_forward_progress {}\n",
            u8::from(d.wave32()),
            bit(rsrc1::WGP_MODE),
            bit(rsrc1::MEM_ORDERED),
            bit(rsrc1::FWD_PROGRESS)
        )
    }
}

/// The template of `gen`, if kernels are written for it.
pub fn of(gen: Generation) -> Option<&'static dyn Template> {
    match gen {
        Generation::Gfx10 => Some(&gfx10::Gfx10),
        Generation::Gfx11 => Some(&gfx11::Gfx11),
        Generation::Gfx12 => Some(&gfx12::Gfx12),
        Generation::Gfx12_5 => Some(&gfx12_5::Gfx12_5),
        Generation::Gfx9 => Some(&gfx9::Gfx9),
    }
}

/// A unified register file's split for `vgprs` architected VGPRs and `agprs` AccVGPRs:
/// `(total, accum_offset)`, the descriptor's VGPR count and ACCUM_OFFSET in registers.
pub fn unified_vgprs(vgprs: u32, agprs: u32) -> (u32, u32) {
    let accum_offset = vgprs.next_multiple_of(4).max(4);
    (accum_offset + agprs, accum_offset)
}

/// The kernel descriptor of a generated kernel for `variant` on `target` using `vgprs` VGPRs,
/// `agprs` AccVGPRs and the template's SGPRs ([`SGPR_COUNT`]; [`descriptor_with`]).
pub fn descriptor(target: &Target, variant: &Variant, vgprs: u32, agprs: u32) -> KernelDescriptor {
    let sgprs = match variant.wave {
        WaveSize::Wave32 => SGPR_COUNT,
        WaveSize::Wave64 => SGPR_COUNT_WAVE64,
    };
    descriptor_with(target, variant, vgprs, agprs, sgprs)
}

/// The kernel descriptor of a kernel for `variant` on `target` using `vgprs` VGPRs, `agprs`
/// AccVGPRs (0 on a target without them) and `sgprs` SGPRs: ENABLE_WAVEFRONT_SIZE32 for wave32
/// only, VGPR granules of the wave size (8 on a target with a unified VGPR file, whose count is
/// the VGPRs and AccVGPRs together and whose compute_pgm_rsrc3 holds ACCUM_OFFSET:
/// [`unified_vgprs`]), the generation's
/// SGPR granules ([`Template::sgpr_granules`]), the kernarg segment
/// pointer as the one user field and USER_SGPR_COUNT as the entry state declares it
/// ([`KernelEntry`]: 2, or 15 where LLVM pads for the init-16 bug), workgroup id x, work-item id
/// x only, the variant's LDS size and FP mode (the generation's mode bits from
/// [`Template::rsrc1_mode`]), the generation's bits ([`Template::rsrc1_generation_bits`]: WGP
/// mode ([`wgp_mode`]) and MEM_ORDERED as LLVM defaults them on GFX10+). Checked field for
/// field against what `llvm-mc-19` makes of the same directives (`tests/all/code_object_llvm_link.rs`).
pub fn descriptor_with(
    target: &Target,
    variant: &Variant,
    vgprs: u32,
    agprs: u32,
    sgprs: u32,
) -> KernelDescriptor {
    let wave = variant.wave;
    let (vgprs, accum_offset) = if target.unified_vgprs {
        unified_vgprs(vgprs, agprs)
    } else {
        (vgprs, 0)
    };
    let entry = KernelEntry::of(target, wave);
    let tmpl = of(target.generation).expect("kernels are built for the target's generation");
    let mode = variant.mode;
    let denorm = |keep: bool| {
        if keep {
            rsrc1::DENORM_KEEP
        } else {
            rsrc1::DENORM_FLUSH
        }
    };
    KernelDescriptor {
        group_segment_fixed_size: variant.lds_size,
        private_segment_fixed_size: 0,
        kernarg_size: crate::contract::KERNARG_SIZE,
        kernel_code_entry_byte_offset: 0,
        compute_pgm_rsrc3: if target.unified_vgprs {
            // The AccVGPRs start past the VGPRs; TG_SPLIT clear.
            (accum_offset / 4 - 1) << rsrc3::ACCUM_OFFSET_SHIFT
        } else {
            0
        },
        compute_pgm_rsrc1: (vgprs.div_ceil(vgpr_granule_on(target, wave)).max(1) - 1)
            << rsrc1::VGPR_SHIFT
            | tmpl.sgpr_granules(target, sgprs) << rsrc1::SGPR_SHIFT
            | denorm(mode.fp32_denormals) << rsrc1::DENORM_32_SHIFT
            | denorm(mode.fp16_fp64_denormals) << rsrc1::DENORM_16_64_SHIFT
            | tmpl.rsrc1_mode(mode)
            | tmpl.rsrc1_generation_bits(target),
        compute_pgm_rsrc2: u32::from(entry.user_sgprs) << rsrc2::USER_SGPR_SHIFT
            | rsrc2::WORKGROUP_ID_X,
        kernel_code_properties: props::KERNARG_SEGMENT_PTR
            | if wave == WaveSize::Wave32 {
                props::WAVEFRONT_SIZE32
            } else {
                0
            },
        kernarg_preload: 0,
    }
}

/// WGP_MODE as LLVM defaults it (on), except on targets with [`Errata::LDS_MISALIGNED_WGP`]:
/// there the kernels run in CU mode, where multi-dword LDS accesses that are not naturally
/// aligned work as the ISA defines them (LLVM splits them in WGP mode on those targets, not in
/// CU mode: `-mattr=+cumode`).
fn wgp_mode(target: &Target) -> u32 {
    if target.errata.contains(Errata::LDS_MISALIGNED_WGP) {
        0
    } else {
        rsrc1::WGP_MODE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::target::TARGETS;

    #[test]
    fn every_generation_has_a_template_that_says_it_is_its() {
        for gen in Generation::ALL {
            assert_eq!(of(gen).map(|t| t.generation()), Some(gen));
        }
    }

    #[test]
    fn gfx12_waits_on_each_counter_gfx11s_wait_covered() {
        use ds_isa::inst::SoppOp;
        let ops = |gen, w| -> Vec<Inst> { of(gen).unwrap().wait(w) };
        assert_eq!(
            ops(Generation::Gfx11, Waitcnt::lgkm(0)),
            vec![Inst::waitcnt(Generation::Gfx11, Waitcnt::lgkm(0))]
        );
        let both = Waitcnt {
            vmcnt: 0,
            lgkmcnt: 0,
            ..Waitcnt::NONE
        };
        let gfx12: Vec<SoppOp> = ops(Generation::Gfx12, both)
            .into_iter()
            .map(|i| match i {
                Inst::Sopp { op, simm16: 0 } => op,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            gfx12,
            [SoppOp::WaitLoadcnt, SoppOp::WaitKmcnt, SoppOp::WaitDscnt]
        );
        assert_eq!(ops(Generation::Gfx12, Waitcnt::vm(0)).len(), 1);
    }

    #[test]
    fn the_descriptor_declares_the_entry_states_user_sgprs() {
        let v = Variant {
            op: ds_isa::ds::DsOp::AddRtnU32,
            offset0: 0,
            offset1: 0,
            lds_size: 512,
            mode: FpMode::default(),
            wave: WaveSize::Wave32,
            regs: None,
            acc: false,
        };
        for t in TARGETS.iter().filter(|t| crate::check_target(t).is_ok()) {
            for wave in crate::wave_sizes(t) {
                let d = descriptor(t, &Variant { wave, ..v }, 20, 0);
                let e = KernelEntry::of(t, wave);
                assert_eq!(d.user_sgpr_count(), u32::from(e.user_sgprs), "{t} {wave}");
                assert_eq!(d.workgroup_ids(), [true, false, false]);
                assert_eq!(d.wave_size(), wave);
            }
        }
    }
}
