//! ds-kernels: the kernels that run one DS instruction per launch on any target of the target
//! table, the kernel ABI they share with every device, and the HSA code object they are packed
//! into. Its instructions are `ds-isa`'s ([`ds_isa::inst::Inst`], the DS table's
//! [`ds_isa::ds::DsInst`] wrapped as `Inst::Ds`).
//!
//! - [`abi`]: THE kernel ABI (kernarg layout, per-case buffers, strides), with
//!   [`abi::pack`] (cases -> [`launch::Launch`]) and [`abi::unpack`] (launch -> outcomes).
//! - [`generator`]: [`generator::generate_for`]: one kernel per variant and target, from one
//!   template ([`generator::Kernel`]: name, instructions, code, descriptor, register counts;
//!   `listing()` and `annotated()` on demand). Its docs list the registers and the instructions
//!   a device must execute.
//! - [`entry`]: the entry state per target and wave size (kernarg pointer, workgroup and
//!   work-item ids, EXEC, the user SGPR count to declare), which the template, the descriptor and
//!   the emulated device read.
//! - [`template`]: what differs per generation (waits, descriptor mode bits), one module each,
//!   and the kernel descriptor ([`template::descriptor`]).
//! - [`canary`]: the self-check kernel a run launches before any op, and the check of what it
//!   wrote, assumption by assumption (workgroup id, lane id, kernarg pointers, EXEC, LDS, M0,
//!   every lane ran).
//! - [`contract`] and [`name`]: the ABI's numbers and the kernel's symbol name, which the
//!   generator, the ABI and the descriptor share.
//! - [`code_object`]: [`code_object::write`] (kernels -> ELF code object) and
//!   [`code_object::read`] (ELF -> kernels with their parsed descriptors, code and metadata).
//! - [`launch`]: the launch contract every device implements.
//!
//! This crate reads the DS table of [`ds_isa::ds`]; it names no DS opcode itself.

use ds_isa::target::{Generation, Target};
use ds_reference::wave::WaveSize;

pub mod abi;
pub mod canary;
pub mod code_object;
pub mod contract;
pub mod entry;
pub mod generator;
pub mod hazard;
pub mod launch;
pub mod name;
pub mod template;

/// The LDS allocation the CLI and the default corpus use when none is given: 1 KiB, small enough
/// to copy in and out quickly, large enough for every operand shape's addresses and offsets.
pub const DEFAULT_LDS_SIZE: u32 = 1024;

/// Whether kernels can be built for `target`. The template's own instructions (scalar loads,
/// waits, vector moves and stores: [`inst`]) and its kernel descriptor are written for each
/// generation that has an arm in `template_written_for` (gfx11 and gfx12); a target of another
/// generation would be in the target table (its DS table and model exist) but get no code object
/// until the template learns its generation. The error says so and names the targets that do get
/// kernels.
pub fn check_target(target: &Target) -> Result<(), String> {
    if template_written_for(target.generation) {
        Ok(())
    } else {
        Err(format!(
            "{target} is a {gen} target: the {gen} kernel template is not written yet (its scalar \
             loads, waits and kernel descriptor), so no code object can be built for it; its DS \
             instructions are known (`ds-harness list|doc|asm|disasm --target {target}`); kernels \
             are built for: {built}",
            gen = target.generation,
            built = kernel_targets()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// The generations the run path builds and runs kernels for: those with a kernel template
/// ([`template::of`]).
fn template_written_for(gen: Generation) -> bool {
    template::of(gen).is_some()
}

/// The wave sizes kernels are built in and run for `target`: those the target table lists for it
/// (its `wave_sizes` column; both templates build wave32 and wave64 kernels, checked against
/// `llvm-mc-19 -mattr=+wavefrontsize64` in `tests/all/code_object_llvm_link.rs`, and the model runs either size by
/// the target's generation's rules).
pub fn wave_sizes(target: &Target) -> Vec<WaveSize> {
    WaveSize::ALL
        .into_iter()
        .filter(|w| target.wave_sizes.contains(&(w.lanes() as u32)))
        .collect()
}

/// Whether kernels of `wave` are built and run for `target`; the error names the sizes that are.
pub fn check_wave(target: &Target, wave: WaveSize) -> Result<(), String> {
    let sizes = wave_sizes(target);
    if sizes.contains(&wave) {
        return Ok(());
    }
    Err(format!(
        "{target} does not run {wave}: kernels for {target} are built in {} (the target table's \
         wave sizes; llc-22 builds no {wave} kernel for {target}, `tests/all/entry_state_llvm.rs`)",
        sizes
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    ))
}

/// The targets kernels can be built for, in table order.
pub fn kernel_targets() -> impl Iterator<Item = &'static Target> {
    ds_isa::target::TARGETS
        .iter()
        .filter(|t| template_written_for(t.generation))
}

#[cfg(test)]
mod target_tests {
    use super::*;

    #[test]
    fn kernels_are_built_for_every_target_of_a_generation_the_template_knows() {
        for t in ds_isa::target::TARGETS {
            let written = crate::template::of(t.generation).is_some();
            assert_eq!(check_target(t).is_ok(), written, "{t}");
            if !written {
                let e = check_target(t).unwrap_err();
                assert!(
                    e.contains(&format!(
                        "the {} kernel template is not written yet",
                        t.generation
                    )),
                    "{e}"
                );
            }
        }
        assert!(kernel_targets().any(|t| t == ds_isa::target::DEFAULT));
        assert_eq!(
            kernel_targets().count(),
            ds_isa::target::TARGETS
                .iter()
                .filter(|t| Generation::ALL.contains(&t.generation))
                .count()
        );
    }

    #[test]
    fn the_wave_sizes_are_the_target_rows_and_another_is_refused_naming_them() {
        for t in ds_isa::target::TARGETS {
            let lanes: Vec<u32> = wave_sizes(t).iter().map(|w| w.lanes() as u32).collect();
            assert_eq!(lanes, t.wave_sizes, "{t}");
        }
        // A row that lists one wave size (as gfx9 rows do: wave64 only).
        let t = &ds_isa::target::TARGETS[0];
        let narrow = Target {
            wave_sizes: &[32],
            products: &[],
            ..*t
        };
        let e = check_wave(&narrow, WaveSize::Wave64).unwrap_err();
        assert!(
            e.contains("does not run wave64") && e.contains("built in wave32"),
            "{e}"
        );
        assert!(check_wave(&narrow, WaveSize::Wave32).is_ok());
    }
}
