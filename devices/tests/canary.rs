//! The canary (`ds_kernels::canary`) on the emulated device, through the [`Device`] trait: it holds
//! every assumption on every target in every wave size the table lists (the emulated device
//! delivers exactly the entry-state table, over a pattern that changes with every launch); a
//! device made to deliver a wrong entry state ([`WrongEntry`]) breaks the assumption it names; a
//! canary planted to read gfx12's workgroup id from `s2` stops the emulated device, naming `s2`.

use ds_devices::emu::{EmuDevice, WrongEntry};
use ds_devices::{Device, DeviceError};
use ds_isa::inst::Operand;
use ds_isa::target::Target;
use ds_kernels::canary::{self, Assumption, Canary, Verdict};
use ds_kernels::entry::{KernelEntry, Slot};
use ds_kernels::kernel_targets;
use ds_reference::wave::WaveSize;

fn waves(t: &Target) -> impl Iterator<Item = WaveSize> + '_ {
    WaveSize::ALL
        .into_iter()
        .filter(|w| t.wave_sizes.contains(&(w.lanes() as u32)))
}

fn run_on(dev: &mut EmuDevice, c: &Canary) -> Result<Vec<Assumption>, DeviceError> {
    let module = dev.load(&c.code_object())?;
    let mut launch = c.launch();
    dev.launch(module, &mut launch)?;
    Ok(c.check(&launch))
}

fn by_name<'a>(a: &'a [Assumption], name: &str) -> &'a Assumption {
    a.iter().find(|x| x.name == name).unwrap()
}

#[test]
fn the_canary_holds_every_assumption_on_every_target_and_wave_size() {
    let mut checked = 0;
    for t in kernel_targets() {
        let mut dev = EmuDevice::for_target(t).with_threads(1);
        for wave in waves(t) {
            let c = Canary::new(t, wave).unwrap();
            // Twice: the undefined state is a new pattern every launch.
            for _ in 0..2 {
                let a = run_on(&mut dev, &c).unwrap_or_else(|e| panic!("{t} {wave}: {e}"));
                assert_eq!(a.len(), canary::ALL.len());
                assert!(a.iter().all(Assumption::held), "{t} {wave}: {a:#?}");
            }
            checked += 1;
        }
    }
    assert!(
        checked > kernel_targets().count(),
        "both wave sizes of most targets"
    );
}

#[test]
fn a_device_that_gives_every_workgroup_id_0_breaks_the_workgroup_id_only() {
    for t in kernel_targets() {
        let mut dev = EmuDevice::for_target(t).with_wrong_entry(WrongEntry::WorkgroupId);
        for wave in waves(t) {
            let a = run_on(&mut dev, &Canary::new(t, wave).unwrap()).unwrap();
            let broken: Vec<_> = a.iter().filter(|x| !x.held()).map(|x| x.name).collect();
            assert_eq!(broken, [canary::WORKGROUP_ID], "{t} {wave}: {a:#?}");
            let d = &by_name(&a, canary::WORKGROUP_ID).detail;
            let reg = KernelEntry::of(t, wave).workgroup_id_x;
            assert!(
                d.starts_with(
                    "every workgroup saw 0 (records 1..3 never written); the kernel reads it from "
                ) && d.contains(&format!("from {reg}, where {t} in {wave} delivers it")),
                "{d}"
            );
        }
    }
}

#[test]
fn a_device_that_runs_half_a_wave64_breaks_exec_and_every_lane_and_leaves_wave32_alone() {
    // Targets that run both sizes (a gfx9 target has no wave32 to leave alone).
    for t in kernel_targets().filter(|t| t.wave_sizes.contains(&64) && t.wave_sizes.contains(&32)) {
        let mut dev = EmuDevice::for_target(t).with_wrong_entry(WrongEntry::Wave);
        let a = run_on(&mut dev, &Canary::new(t, WaveSize::Wave64).unwrap()).unwrap();
        let lanes = by_name(&a, canary::LANES);
        assert_eq!(lanes.verdict, Verdict::Broken, "{t}");
        assert_eq!(lanes.detail, "wave64: lanes 32..63 never ran");
        assert_eq!(by_name(&a, canary::EXEC).verdict, Verdict::Broken);
        assert!(by_name(&a, canary::WORKGROUP_ID).held());
        let w32 = run_on(&mut dev, &Canary::new(t, WaveSize::Wave32).unwrap()).unwrap();
        assert!(w32.iter().all(Assumption::held), "{t}: {w32:#?}");
    }
}

/// A canary planted to read the workgroup id from `s2` (the gfx11 plain layout) where the target
/// delivers it elsewhere: gfx12 (architected SGPRs: `ttmp9`) and the init-16 targets in wave32
/// with the unpadded descriptor (no id at all).
#[test]
fn a_planted_read_of_s2_stops_the_emulated_device_naming_the_register() {
    let plant = |t: &'static Target, wave, user_sgprs| {
        let real = KernelEntry::of(t, wave);
        let entry = KernelEntry {
            user_sgprs,
            workgroup_id_x: Slot {
                reg: Operand::Sgpr(2),
                ..real.workgroup_id_x
            },
            ..real
        };
        Canary::reading(t, wave, entry).unwrap()
    };
    let gfx12 = kernel_targets().find(|t| t.architected_sgprs).unwrap();
    let init16 = kernel_targets().find(|t| t.user_sgpr_init16_bug).unwrap();
    for (t, wave, user, defines) in [
        (gfx12, WaveSize::Wave32, 2, "ttmp9 = workgroup id x"),
        (init16, WaveSize::Wave32, 2, "no workgroup id is delivered"),
    ] {
        let c = plant(t, wave, user);
        let e = run_on(&mut EmuDevice::for_target(t), &c)
            .unwrap_err()
            .to_string();
        assert!(e.contains("reads s2, which holds no value"), "{t}: {e}");
        assert!(e.contains(defines), "{t}: {e}");
    }
}
