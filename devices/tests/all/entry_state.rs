//! The emulated device hands a kernel exactly the entry state of its target and nothing more
//! (docs/architecture.md, "ds-devices"): real kernels run correctly on every target and wave size, while
//! planted templates that rely on more are caught, naming the register: gfx12's workgroup id read
//! from `s2` instead of `ttmp9`; the old gfx1100/gfx1102 wave32 layout (2 user SGPRs, id in `s2`)
//! and a padded descriptor whose template still reads `s2`; and a kernel that skips the LDS
//! copy-in sees a pattern that changes with every launch instead of zeros. Where workgroups may
//! come in clusters (GFX 12.5) the kernel computes its id from hardware registers: the device
//! answers only the field the entry state defines (the dispatch's cluster flag, zero), so a kernel
//! reading another register is caught naming it, and one reading another field of the register
//! sees a pattern, not a convenient zero.

use ds_devices::emu::EmuDevice;
use ds_devices::Device;
use ds_isa::ds::DsOp;
use ds_isa::inst::{encode_into, Inst, Operand, SopkOp};
use ds_isa::target::{Target, TARGETS};
use ds_kernels::code_object;
use ds_kernels::entry::KernelEntry;
use ds_kernels::generator::{generate_for, Kernel};
use ds_reference::wave::{Case, FpMode, Lds, Outcome, Variant, Wave, WaveSize};

fn variant(wave: WaveSize) -> Variant {
    Variant {
        op: DsOp::AddRtnU32,
        offset0: 0,
        offset1: 0,
        lds_size: 388,
        mode: FpMode::default(),
        wave,
        regs: None,
        acc: false,
    }
}

/// Case `c`: LDS word k = 1000 * c + k, lane l adds c + l at byte l * 4.
fn cases(v: &Variant, n: u32) -> Vec<Case> {
    (0..n)
        .map(|c| {
            let mut lds = Lds::zeroed(v.lds_size);
            for k in 0..v.lds_size / 4 {
                lds.set_word(4 * k, 1000 * c + k);
            }
            let mut wave = Wave::new(v.wave);
            for (l, lane) in wave.lanes.iter_mut().enumerate() {
                lane.addr = 4 * l as u32;
                lane.data0[0] = c + l as u32;
                lane.vdst = [0x5e00_0000 | l as u32; 4];
            }
            Case { lds, wave }
        })
        .collect()
}

/// Runs `k` (built for `t`) over `cases` on a fresh emulated `t`, `launches` times; the outcomes
/// of each launch, or the device's error.
fn run(
    t: &'static Target,
    k: &Kernel,
    cases: &[Case],
    launches: usize,
) -> Result<Vec<Vec<Outcome>>, String> {
    let mut dev = EmuDevice::for_target(t).with_threads(1);
    let module = dev
        .load(&code_object::write(t, std::slice::from_ref(k)))
        .map_err(|e| e.to_string())?;
    (0..launches)
        .map(|_| {
            let mut launch = ds_kernels::abi::pack(&k.variant, cases).unwrap();
            dev.launch(module, &mut launch).map_err(|e| e.to_string())?;
            Ok(ds_kernels::abi::unpack(&k.variant, cases, &launch).unwrap())
        })
        .collect()
}

/// The model's outcomes of `cases` by `t`'s rules.
fn model(t: &Target, v: &Variant, cases: &[Case]) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| ds_reference::model::execute_variant(t, v, c).unwrap())
        .collect()
}

/// `k` with every scalar source `from` replaced by `to`, re-encoded.
fn reading(k: &Kernel, from: Operand, to: Operand) -> Kernel {
    let mut k = k.clone();
    let mut swapped = 0;
    for (inst, _) in &mut k.insts {
        if let Inst::Sop2 { src0, .. } = inst {
            if *src0 == from {
                *src0 = to;
                swapped += 1;
            }
        }
    }
    assert!(swapped > 0, "{} never reads {from}", k.name);
    k.code.clear();
    for (inst, _) in &k.insts {
        encode_into(k.gen, inst, &mut k.code).unwrap();
    }
    k
}

fn first(pred: impl Fn(&Target) -> bool) -> &'static Target {
    TARGETS
        .iter()
        .find(|t| pred(t))
        .expect("a target of that kind")
}

#[test]
fn the_kernels_run_on_every_targets_entry_state_in_both_wave_sizes() {
    for t in ds_kernels::kernel_targets() {
        for wave in ds_kernels::wave_sizes(t) {
            let v = variant(wave);
            let k = generate_for(t, &v).unwrap();
            let cs = cases(&v, 5);
            let got = run(t, &k, &cs, 2).unwrap_or_else(|e| panic!("{t} {wave}: {e}"));
            for outcomes in got {
                assert_eq!(outcomes, model(t, &v, &cs), "{t} {wave}");
            }
        }
    }
}

#[test]
fn a_gfx12_template_reading_s2_is_caught_naming_the_register() {
    let t = first(|t| t.architected_sgprs);
    let v = variant(WaveSize::Wave32);
    let k = generate_for(t, &v).unwrap();
    assert_eq!(
        KernelEntry::of(t, v.wave).workgroup_id_reg(),
        Operand::Ttmp(9)
    );
    let planted = reading(&k, Operand::Ttmp(9), Operand::Sgpr(2));
    let err = run(t, &planted, &cases(&v, 3), 1).unwrap_err();
    assert!(err.contains("reads s2, which holds no value"), "{err}");
    assert!(err.contains("ttmp9 = workgroup id x"), "{err}");
    assert!(err.contains("s_mul_i32 s14, s2"), "{err}");
}

#[test]
fn the_old_gfx1100_wave32_layout_and_a_padded_one_read_through_s2_are_caught() {
    let t = first(|t| t.user_sgpr_init16_bug);
    let v = variant(WaveSize::Wave32);
    let k = generate_for(t, &v).unwrap();
    let entry = KernelEntry::of(t, v.wave);
    assert_eq!(entry.workgroup_id_reg(), Operand::Sgpr(15));
    // Today's descriptor (15 user SGPRs), a template reading s2: a padding SGPR.
    let padded = reading(&k, Operand::Sgpr(15), Operand::Sgpr(2));
    let err = run(t, &padded, &cases(&v, 3), 1).unwrap_err();
    assert!(err.contains("reads s2, which holds no value"), "{err}");
    assert!(err.contains("s2..s14 are padding user SGPRs"), "{err}");
    // The layout before the entry state was data: 2 user SGPRs declared, id read from s2. The
    // hardware's user + system SGPRs are fewer than 16: no workgroup id arrives.
    let mut old = padded.clone();
    old.descriptor.compute_pgm_rsrc2 = old.descriptor.compute_pgm_rsrc2 & !(0x1f << 1) | 2 << 1;
    let err = run(t, &old, &cases(&v, 3), 1).unwrap_err();
    assert!(err.contains("reads s2, which holds no value"), "{err}");
    assert!(err.contains("FeatureUserSGPRInit16Bug"), "{err}");
    // In wave64 the same target takes the plain layout, and the kernel reads s2.
    let w64 = variant(WaveSize::Wave64);
    assert_eq!(
        KernelEntry::of(t, w64.wave).workgroup_id_reg(),
        Operand::Sgpr(2)
    );
    let cs = cases(&w64, 3);
    let got = run(t, &generate_for(t, &w64).unwrap(), &cs, 1).unwrap();
    assert_eq!(got[0], model(t, &w64, &cs));
}

#[test]
fn lds_the_kernel_did_not_write_holds_a_pattern_that_changes_every_launch() {
    let t = first(|t| !t.architected_sgprs && !t.user_sgpr_init16_bug);
    let v = variant(WaveSize::Wave32);
    let k = generate_for(t, &v).unwrap();
    // Skip the copy-in: turn its first ds_store_b32 (image word of each lane) into a store of
    // nothing by aiming it at an address past the allocation.
    let mut planted = k.clone();
    let at = planted
        .insts
        .iter()
        .position(|(i, _)| matches!(i, Inst::Ds(d) if d.op == DsOp::StoreB32))
        .unwrap();
    if let (Inst::Ds(d), _) = &mut planted.insts[at] {
        d.offset1 = 0xff;
    }
    planted.code.clear();
    for (inst, _) in &planted.insts {
        encode_into(planted.gen, inst, &mut planted.code).unwrap();
    }
    let cs = cases(&v, 2);
    let got = run(t, &planted, &cs, 2).unwrap();
    let want = model(t, &v, &cs);
    // The first 128 bytes (the loop's rounds) were never copied in: what the device returns
    // there is neither the case's image nor zeros, and not the same twice.
    for launch in &got {
        assert_ne!(launch[0].lds.word(0x40), want[0].lds.word(0x40));
        assert_ne!(launch[0].lds.word(0x40), 0);
    }
    assert_ne!(got[0][0].lds.word(0x40), got[1][0].lds.word(0x40));
    // The unplanted kernel agrees with the model on both launches.
    for outcomes in run(t, &k, &cs, 2).unwrap() {
        assert_eq!(outcomes, want);
    }
}

/// `k` with each `s_getreg_b32`'s SIMM16 (`hwreg(id, offset, size)`: id [5:0], offset [10:6],
/// size - 1 [15:11]) replaced by `f` of it, re-encoded.
fn getreg_as(k: &Kernel, f: impl Fn(u16) -> u16) -> Kernel {
    let mut k = k.clone();
    let mut changed = 0;
    for (inst, _) in &mut k.insts {
        if let Inst::Sopk {
            op: SopkOp::GetregB32,
            simm16,
            ..
        } = inst
        {
            *simm16 = f(*simm16);
            changed += 1;
        }
    }
    assert!(changed > 0, "{} reads no hardware register", k.name);
    k.code.clear();
    for (inst, _) in &k.insts {
        encode_into(k.gen, inst, &mut k.code).unwrap();
    }
    k
}

#[test]
fn a_cluster_kernel_reading_a_hardware_register_the_entry_state_leaves_undefined_is_caught() {
    let t = first(|t| t.generation.clusters().is_some());
    let v = variant(WaveSize::Wave32);
    let k = generate_for(t, &v).unwrap();
    let entry = KernelEntry::of(t, v.wave);
    assert_eq!(
        entry.workgroup_id_reg(),
        Operand::Sgpr(2),
        "computed into s2"
    );
    let cs = cases(&v, 3);
    // As built: the cluster flag reads zero, the id is ttmp9's, every launch agrees.
    for outcomes in run(t, &k, &cs, 2).unwrap() {
        assert_eq!(outcomes, model(t, &v, &cs), "{t}");
    }
    // Another register (id 23, which nothing defines): the launch stops, naming it.
    let other = getreg_as(&k, |s| s & !0x3f | 23);
    let err = run(t, &other, &cs, 1).unwrap_err();
    assert!(
        err.contains("reads hardware register 23, which holds no value"),
        "{err}"
    );
    // The same register's low four bits instead of the cluster field: a pattern that is not
    // zero, so the kernel takes its clusters path and the results are wrong on some launch.
    let low = getreg_as(&k, |s| s & 0xf83f);
    let want = model(t, &v, &cs);
    let wrong = match run(t, &low, &cs, 4) {
        Ok(launches) => launches.iter().any(|got| *got != want),
        Err(e) => {
            eprintln!("the wrong field stopped the launch: {e}");
            true
        }
    };
    assert!(wrong, "{t}: a kernel reading the wrong field always agreed");
}
