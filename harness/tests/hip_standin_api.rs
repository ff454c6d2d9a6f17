//! The hip device's checked calls and owning types against the stand-in runtime, in process: every
//! HIP error comes back as a `HipError` carrying the call, the code and HIP's name and string, and
//! the device turns them into `DeviceError`s that say what failed.

mod common;

use ds_devices::hip::{self, library, result, safe, sys};
use ds_devices::{Device, DeviceError, Launch, ModuleId};
use std::sync::Once;

fn api() -> Option<&'static library::HipApi> {
    let lib = common::standin_lib()?;
    let loaded =
        library::load_hip_from(&[lib]).expect("the stand-in loads and has every entry point");
    assert!(
        loaded.standin_arch.is_some(),
        "the stand-in exports its arch symbol"
    );
    Some(&Box::leak(Box::new(loaded)).api)
}

#[test]
fn errors_carry_the_call_hips_name_and_string() {
    let Some(api) = api() else { return };
    let junk = [0u8; 64];
    let e = result::module_load_data(api, &junk).unwrap_err();
    assert_eq!(
        (e.call, e.code, e.name.as_str()),
        ("hipModuleLoadData", 200, "hipErrorInvalidImage")
    );
    assert_eq!(
        e.to_string(),
        "hipModuleLoadData returned hipErrorInvalidImage (200): device kernel image is invalid"
    );
    // SAFETY: bogus handles are exactly what is being tested; the stand-in checks them.
    unsafe {
        let e = result::module_unload(api, 0x1234 as sys::hipModule_t).unwrap_err();
        assert_eq!((e.code, e.name.as_str()), (400, "hipErrorInvalidHandle"));
        let e = result::event_query(api, 0x1234 as sys::hipEvent_t).unwrap_err();
        assert_eq!((e.call, e.code), ("hipEventQuery", 400));
        let e = result::memcpy_htod(api, 0x10 as *mut std::ffi::c_void, &[1, 2, 3]).unwrap_err();
        assert_eq!(
            (e.call, e.name.as_str()),
            ("hipMemcpyHtoD", "hipErrorInvalidValue")
        );
        let e = result::free(api, 0x10 as *mut std::ffi::c_void).unwrap_err();
        assert_eq!(e.code, sys::hipErrorInvalidValue as i32);
    }
    let e = result::set_device(api, 99).unwrap_err();
    assert_eq!(e.name, "hipErrorInvalidDevice");
}

#[test]
fn device_buffers_round_trip_and_free_themselves() {
    let Some(api) = api() else { return };
    let mut b = safe::DeviceBuffer::alloc(api, 5).unwrap();
    assert_ne!(b.address(), 0);
    b.upload(&[1, 2, 3, 4, 5]).unwrap();
    let mut back = [0u8; 5];
    b.download(&mut back).unwrap();
    assert_eq!(back, [1, 2, 3, 4, 5]);
    let address = b.address() as *mut std::ffi::c_void;
    b.close().unwrap();
    // SAFETY: freeing an already freed address is refused by the stand-in, not undefined.
    let e = unsafe { result::free(api, address) }.unwrap_err();
    assert_eq!(
        e.name, "hipErrorInvalidValue",
        "the buffer really was freed"
    );
    let stream = safe::Stream::new(api).unwrap();
    let event = safe::Event::new(api).unwrap();
    assert!(
        event.is_done().unwrap(),
        "a never-recorded event is complete, as in HIP"
    );
    event.record(&stream).unwrap();
    assert!(event.is_done().unwrap());
}

#[test]
fn a_malformed_extra_array_is_refused_like_hip_5_2_does() {
    let Some(api) = api() else { return };
    let mut size: usize = 8;
    let mut args = [0u64];
    let mut extra: [*mut std::ffi::c_void; 5] = [
        sys::HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut _, // swapped keys
        (&mut size as *mut usize).cast(),
        sys::HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut _,
        args.as_mut_ptr().cast(),
        sys::HIP_LAUNCH_PARAM_END as *mut _,
    ];
    // SAFETY: every pointer is valid for the call; the function handle is checked after `extra`.
    let code = unsafe {
        (api.hipModuleLaunchKernel)(
            std::ptr::null_mut(),
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    };
    assert_eq!(code, sys::hipErrorNotInitialized);
}

fn open_standin() -> Option<hip::HipDevice> {
    open_standin_device(0)
}

/// Stand-in device `index`: 0 is of the default target, 1 the decoy, 2 and up the other targets
/// in table order.
fn open_standin_device(index: usize) -> Option<hip::HipDevice> {
    static ENV: Once = Once::new();
    let lib = common::standin_lib()?;
    // Before the first use of the process-wide library: every test of this binary sets the same.
    ENV.call_once(|| {
        std::env::set_var(library::ENV_LIB, &lib);
        std::env::set_var(library::ENV_SEARCH, "only-env");
        std::env::remove_var("HIP_VISIBLE_DEVICES");
    });
    Some(hip::open(index, None).expect("the stand-in device opens"))
}

#[test]
fn a_code_object_for_another_target_is_refused_with_rocms_error_in_words() {
    use ds_isa::target::{DEFAULT, TARGETS};
    // Device 2 is the first target of the table after the default one.
    let other = TARGETS.iter().find(|t| *t != DEFAULT).unwrap();
    let Some(mut dev) = open_standin_device(2) else {
        return;
    };
    assert_eq!(dev.info().target, other);
    let variant = ds_reference::wave::Variant {
        op: ds_isa::ds::DsOp::AddU32,
        offset0: 0,
        offset1: 0,
        lds_size: 64,
        mode: Default::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let kernel = ds_kernels::generator::generate_for(ds_isa::target::DEFAULT, &variant).unwrap();
    let foreign = ds_kernels::code_object::write(DEFAULT, std::slice::from_ref(&kernel));
    let Err(DeviceError::Load(msg)) = dev.load(&foreign) else {
        panic!("a {DEFAULT} code object loads on a {other} device");
    };
    println!("{msg}");
    for part in [
        "hipModuleLoadData returned hipErrorNoBinaryForGpu (209)",
        &format!(
            "The code object is built for {DEFAULT} (e_flags machine {:#x})",
            DEFAULT.machine
        ),
        &format!("the device is {other} (machine {:#x})", other.machine),
        "ROCm loads a code object only on its exact target",
        &format!("`--target {other}`"),
    ] {
        assert!(msg.contains(part), "lacks `{part}`: {msg}");
    }
    // The code object for the device's own target loads.
    let own = ds_kernels::code_object::write(other, std::slice::from_ref(&kernel));
    dev.load(&own)
        .expect("a code object of the device's target loads");
}

#[test]
fn the_device_reports_what_it_is_and_says_what_failed() {
    let Some(mut dev) = open_standin() else {
        return;
    };
    let info = dev.info().clone();
    assert_eq!(info.target, ds_isa::target::DEFAULT);
    assert!(info.name.contains("stand-in"), "{}", info.name);
    let provenance = info
        .details
        .iter()
        .find(|(k, _)| k == "provenance")
        .map(|(_, v)| v.as_str());
    assert_eq!(
        provenance,
        Some("stand-in runtime (emulated device), not a GPU")
    );
    match dev.load(b"not an ELF at all, but long enough to have a header......................") {
        Err(DeviceError::Load(m)) => {
            assert!(
                m.contains("hipErrorInvalidImage") && m.contains("libds_hip_standin.so"),
                "{m}"
            )
        }
        other => panic!("junk must be rejected: {other:?}"),
    }
    let mut launch = Launch {
        kernel: "k".into(),
        workgroups: 1,
        workgroup_size: 32,
        buffers: vec![],
    };
    match dev.launch(ModuleId(7), &mut launch) {
        Err(DeviceError::Launch(m)) => assert!(m.contains("module 7 was never loaded"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_pci_location_comes_from_hip_device_get_pci_bus_id() {
    let Some(lib) = common::standin_lib() else {
        return;
    };
    let loaded = library::load_hip_from(&[lib]).expect("the stand-in loads");
    let pci = hip::arch::pci_of(&loaded, 0).expect("device 0 has a PCI location");
    assert_eq!(
        pci,
        hip::arch::Pci {
            domain: 0x5eed,
            bus: 0,
            device: 0
        }
    );
    assert!(hip::arch::pci_of(&loaded, 99)
        .unwrap_err()
        .contains("hipErrorInvalidDevice"));
}

#[test]
fn the_standin_runs_on_the_targets_entry_state_and_catches_a_gfx12_template_reading_s2() {
    use ds_isa::inst::{encode_into, Inst, Operand};
    use ds_isa::target::{DEFAULT, TARGETS};
    // Device 2 and up: the targets after the default one, in table order.
    let (at, t) = TARGETS
        .iter()
        .filter(|t| *t != DEFAULT)
        .enumerate()
        .find(|(_, t)| t.architected_sgprs)
        .expect("a target whose workgroup ids are architected SGPRs");
    let Some(mut dev) = open_standin_device(2 + at) else {
        return;
    };
    assert_eq!(dev.info().target, t);
    let variant = ds_reference::wave::Variant {
        op: ds_isa::ds::DsOp::AddRtnU32,
        offset0: 0,
        offset1: 0,
        lds_size: 64,
        mode: Default::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let cases: Vec<ds_reference::wave::Case> = (0..3u32)
        .map(|c| {
            let mut lds = ds_reference::wave::Lds::zeroed(64);
            lds.set_word(0, 100 * c);
            let mut wave = ds_reference::wave::Wave::new(variant.wave);
            for lane in &mut wave.lanes {
                lane.data0[0] = c + 1;
            }
            ds_reference::wave::Case { lds, wave }
        })
        .collect();
    let good = ds_kernels::generator::generate_for(t, &variant).unwrap();
    let mut planted = good.clone();
    for (inst, _) in &mut planted.insts {
        if let Inst::Sop2 { src0, .. } = inst {
            if *src0 == Operand::Ttmp(9) {
                *src0 = Operand::Sgpr(2);
            }
        }
    }
    planted.code.clear();
    for (inst, _) in &planted.insts {
        encode_into(planted.gen, inst, &mut planted.code).unwrap();
    }
    planted.name.push_str("_reads_s2");
    let module = dev
        .load(&ds_kernels::code_object::write(
            t,
            &[good.clone(), planted.clone()],
        ))
        .unwrap();
    // The template as built: every case lands in its own records, as the model says.
    let mut launch = ds_kernels::abi::pack(&variant, &cases).unwrap();
    dev.launch(module, &mut launch).unwrap();
    let got = ds_kernels::abi::unpack(&variant, &cases, &launch).unwrap();
    for (c, case) in cases.iter().enumerate() {
        let want = ds_reference::model::execute_variant(t, &variant, case).unwrap();
        assert_eq!(got[c], want, "case {c}");
    }
    // The planted one reads s2, which the gfx12 entry state leaves without a value: the launch
    // fails as a GPU's would (the stand-in's stderr names the register, as the emulated
    // device's error does: devices/tests/emu_entry_state.rs).
    let mut launch = ds_kernels::abi::pack(&variant, &cases).unwrap();
    launch.kernel = planted.name.clone();
    let err = dev.launch(module, &mut launch).unwrap_err().to_string();
    assert!(
        err.contains(&planted.name) && err.contains("hipErrorLaunchFailure"),
        "{err}"
    );
}
