//! Wave64 lane for lane: every runnable gfx11 op, built with the wave64 template, all in one code
//! object, run on the snapshot corpus widened to 64 lanes (the upper half a changed copy of the
//! lower, EXECs that differ per half, the upper half alone), agrees with the model over 64 lanes
//! (`model::wide`) on the emulated device of every gfx11 target and through the hip device on the
//! stand-in HIP runtime; the gfx12 wave64 template does the same for every gfx12 op.

use crate::common;
use ds_devices::Device;

use common::wave64::run_all;
use ds_devices::emu::EmuDevice;
use ds_isa::ds::{runnable_ops, DsOp, Generation};

#[test]
fn every_runnable_op_in_wave64_on_emu_agrees_with_the_model() {
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11)
        .filter(|op| op.info().in_generation(Generation::Gfx11))
        .collect();
    // Every gfx11 target the kernels are built for: each lists wave64 in the target table.
    for t in ds_kernels::kernel_targets().filter(|t| t.generation == Generation::Gfx11) {
        assert!(t.wave_sizes.contains(&64), "{t}");
        let (count, bad) = run_all(&mut EmuDevice::for_target(t), t, &ops);
        assert!(
            bad.is_empty(),
            "{t}: {} disagreements:\n{}",
            bad.len(),
            bad.join("\n")
        );
        assert!(count > 1000, "{count} wave64 cases ran");
        eprintln!("{t}: {} ops, {count} wave64 cases agree", ops.len());
    }
}

/// The gfx12 template in wave64 end to end on the emulated device (gfx12 encodings decoded, 64
/// lanes, copy rounds under `exec_lo`/`exec_hi`, the wave64 descriptor): every runnable gfx12 op's
/// widened corpus agrees with the model by gfx12's rules (whole-wave permutes, ASSUMPTIONS.md
/// W9-W10), and the run path builds and runs gfx12 wave64.
#[test]
fn the_gfx12_wave64_template_runs_every_gfx12_op_on_emu_in_agreement_with_the_model() {
    let gfx12: Vec<_> = ds_kernels::kernel_targets()
        .filter(|t| t.generation == Generation::Gfx12)
        .collect();
    assert!(!gfx12.is_empty());
    for t in gfx12 {
        assert!(t.wave_sizes.contains(&64), "{t}");
        assert!(ds_kernels::check_wave(t, ds_reference::wave::WaveSize::Wave64).is_ok());
        let ops: Vec<DsOp> = ds_isa::ds::runnable_ops_on(t).collect();
        let (count, bad) = run_all(&mut EmuDevice::for_target(t), t, &ops);
        assert!(
            bad.is_empty(),
            "{t}: {} disagreements:\n{}",
            bad.len(),
            bad.join("\n")
        );
        assert!(count > 1000, "{count} wave64 cases ran");
        eprintln!("{t}: {} ops, {count} wave64 cases agree", ops.len());
    }
}

#[test]
fn every_runnable_op_in_wave64_agrees_through_the_standin() {
    let Some(mut dev) = common::standin_device(0) else {
        return;
    };
    let target = dev.info().target;
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11)
        .filter(|op| op.info().in_generation(Generation::Gfx11))
        .collect();
    let (count, bad) = common::wave64::run_all(&mut dev, target, &ops);
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(count > 1000, "{count} wave64 cases ran");
    eprintln!(
        "{target} (stand-in): {} ops, {count} wave64 cases agree",
        ops.len()
    );
}
