//! Wave64 end to end on the emulated device: every runnable gfx11 op, built with the wave64
//! template (`generator::generate_wave`), all in one code object, run on the snapshot corpus
//! widened to 64 lanes (the upper half a changed copy of the lower, EXECs that differ per half,
//! the upper half alone), agrees with the model over 64 lanes (`model::wide`) lane for lane; and
//! a device whose bpermute reads the upper half the other way round is caught with the lane named.

mod wave64_cases;

use ds_devices::emu::EmuDevice;
use ds_isa::ds::{runnable_ops, DsOp, Generation};
use ds_isa::target::DEFAULT;
use wave64_cases::run_all;

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

#[test]
fn a_device_whose_bpermute_reads_the_other_half_is_caught_with_the_lane_named() {
    // The mutant: in wave64 every lane's bpermute reads the lower half (a wave64 run as wave32),
    // so upper lanes read the other way round from ASSUMPTIONS.md W1.
    let op = DsOp::BpermuteB32;
    let (count, bad) = run_all(
        &mut EmuDevice::new().with_bpermute_lower_half(),
        DEFAULT,
        &[op],
    );
    assert!(
        !bad.is_empty(),
        "the mutant went unnoticed in {count} cases"
    );
    let first_lanes: Vec<usize> = bad
        .iter()
        .map(|b| {
            let at = b.find("lane ").expect("the lane is named") + 5;
            b[at..]
                .split(':')
                .next()
                .unwrap()
                .parse()
                .expect("a lane number")
        })
        .collect();
    assert!(
        first_lanes.iter().all(|&l| l >= 32),
        "only upper-half lanes differ:\n{}",
        bad.join("\n")
    );
    eprintln!("caught in {} of {count} cases, e.g. {}", bad.len(), bad[0]);
    // The same device with the model's rule passes (the test is not vacuous the other way).
    let (_, clean) = run_all(&mut EmuDevice::new(), DEFAULT, &[op]);
    assert!(clean.is_empty(), "{}", clean.join("\n"));
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
