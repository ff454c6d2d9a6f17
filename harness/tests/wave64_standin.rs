//! Wave64 through the hip device on the stand-in HIP runtime (`libds_hip_standin.so`): the same
//! wave64 code object as `wave64.rs`, loaded with `hipModuleLoadData` and launched with
//! workgroups of 64 (`hipModuleLaunchKernel`), agrees with the model over 64 lanes for every
//! runnable gfx11 op.

mod common;
mod wave64_cases;

use ds_devices::{hip, Device};
use ds_isa::ds::{runnable_ops, DsOp, Generation};

#[test]
fn every_runnable_op_in_wave64_agrees_through_the_standin() {
    let Some(lib) = common::standin_lib() else {
        return;
    };
    // The only test of this binary: the process-wide library search is set before its first use.
    std::env::set_var(hip::library::ENV_LIB, &lib);
    std::env::set_var(hip::library::ENV_SEARCH, "only-env");
    std::env::remove_var("HIP_VISIBLE_DEVICES");
    let mut dev = hip::open(0, None).expect("the stand-in device opens");
    let target = dev.info().target;
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11)
        .filter(|op| op.info().in_generation(Generation::Gfx11))
        .collect();
    let (count, bad) = wave64_cases::run_all(&mut dev, target, &ops);
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
