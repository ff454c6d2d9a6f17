//! Write, read back, compare; and the reader's refusals of damaged code objects.

use super::*;
use crate::generator::{generate_for, Kernel};
use ds_isa::ds::DsOp;
use ds_isa::target::{DEFAULT, TARGETS};
use ds_reference::wave::{FpMode, Variant};

fn kernels() -> Vec<Kernel> {
    [
        (DsOp::AddRtnU32, 0, 0, 1024, FpMode::default()),
        (
            DsOp::Load2addrB64,
            3,
            7,
            200,
            FpMode {
                fp32_denormals: false,
                fp16_fp64_denormals: true,
                ieee: false,
            },
        ),
        (DsOp::BvhStackRtnB32, 16, 0, 65536, FpMode::default()),
    ]
    .into_iter()
    .map(|(op, offset0, offset1, lds_size, mode)| {
        generate_for(
            ds_isa::target::DEFAULT,
            &Variant {
                op,
                offset0,
                offset1,
                lds_size,
                mode,
                wave: ds_reference::wave::WaveSize::Wave32,
                regs: None,
                acc: false,
            },
        )
        .unwrap()
    })
    .collect()
}

#[test]
fn written_code_objects_read_back_kernel_for_kernel() {
    let ks = kernels();
    let bytes = write(DEFAULT, &ks);
    let co = read(&bytes).unwrap();
    assert_eq!(co.e_flags, u32::from(DEFAULT.machine));
    assert_eq!(co.target, DEFAULT);
    assert_eq!(co.metadata.version, vec![1, 2]);
    assert_eq!(co.kernels.len(), 3);
    for k in &ks {
        let got = co.kernel(&k.name).unwrap();
        assert_eq!(got.code, k.code, "{}", k.name);
        assert_eq!(got.entry % CODE_ALIGN, 0);
        assert_eq!(got.descriptor_address % DESCRIPTOR_ALIGN, 0);
        let mut d = k.descriptor;
        d.kernel_code_entry_byte_offset = got.descriptor.kernel_code_entry_byte_offset;
        assert_eq!(got.descriptor, d);
        assert_eq!(got.descriptor.fp_mode(), k.variant.mode);
        assert_eq!(got.descriptor.group_segment_fixed_size, k.variant.lds_size);
        assert!(got.descriptor.wave32() && got.descriptor.kernarg_ptr());
        let entry = crate::entry::KernelEntry::of(DEFAULT, k.variant.wave);
        assert_eq!(
            got.descriptor.user_sgpr_count(),
            u32::from(entry.user_sgprs)
        );
        assert_eq!(got.descriptor.workgroup_ids(), [true, false, false]);
        assert_eq!(got.descriptor.vgpr_count(), 24);
        assert_eq!(got.meta.args.len(), 5);
    }
}

#[test]
fn descriptor_bytes_round_trip_and_reserved_bytes_are_refused() {
    let d = kernels()[1].descriptor;
    let b = d.to_bytes();
    assert_eq!(KernelDescriptor::from_bytes(&b), Ok(d));
    let mut bad = b;
    bad[30] = 1;
    assert_eq!(
        KernelDescriptor::from_bytes(&bad),
        Err(descriptor::DescriptorError::Reserved { at: 30 })
    );
    assert!(KernelDescriptor::from_bytes(&b[..63]).is_err());
}

/// Every proper prefix of a code object is refused, with a message, never a panic.
#[test]
fn truncated_code_objects_are_refused() {
    let bytes = write(DEFAULT, &kernels()[..1]);
    let mut cut = bytes.len() - 1;
    let mut seen = 0;
    while cut > 0 {
        let err = read(&bytes[..cut]).expect_err("a truncated code object must not load");
        assert!(!err.to_string().is_empty());
        seen += 1;
        cut = cut * 7 / 8;
    }
    assert!(seen > 20);
    assert!(matches!(read(&bytes[..16]), Err(ReadError::Elf(_))));
}

fn patched(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    b
}

#[test]
fn corrupted_code_objects_are_refused_with_the_reason() {
    let ks = kernels();
    let bytes = write(DEFAULT, &ks);
    let err = |b: &[u8]| read(b).unwrap_err();
    assert!(matches!(
        err(&patched(&bytes, 0, b"\x7fELG")),
        ReadError::Elf(_)
    ));
    assert_eq!(
        err(&patched(&bytes, 7, &[0])),
        ReadError::Header {
            field: "EI_OSABI",
            found: 0,
            expected: 64
        }
    );
    assert!(matches!(
        err(&patched(&bytes, 8, &[2])),
        ReadError::Header {
            field: "EI_ABIVERSION",
            ..
        }
    ));
    assert!(matches!(
        err(&patched(&bytes, 18, &[62, 0])),
        ReadError::Header {
            field: "e_machine",
            ..
        }
    ));
    // (0x27 is a machine value AMDGPUUsage reserves, no row of the table.)
    assert_eq!(ds_isa::target::Target::by_machine(0x27), None);
    let flags = err(&patched(&bytes, 48, &[0x27]));
    assert_eq!(flags, ReadError::UnknownMachine(0x27));
    assert!(
        flags.to_string().contains("e_flags machine 0x27"),
        "{flags}"
    );
    // Another target's machine value with this target's metadata: the two disagree.
    let other = TARGETS.iter().find(|t| *t != DEFAULT).unwrap();
    assert!(matches!(
        err(&patched(&bytes, 48, &[other.machine])),
        ReadError::TargetMismatch { machine, .. } if machine == other
    ));

    let co = read(&bytes).unwrap();
    // The metadata note's type: 32 -> 33 leaves no metadata.
    let note_at = bytes.windows(8).position(|w| w == b"AMDGPU\0\0").unwrap() - 12;
    assert_eq!(
        err(&patched(&bytes, note_at + 8, &[33])),
        ReadError::NoMetadata
    );
    // Garbage in the MessagePack.
    assert!(matches!(
        err(&patched(&bytes, note_at + 20, &[0xc1])),
        ReadError::Metadata(_)
    ));
    // A descriptor whose entry offset no longer points at its function.
    let kd = co.kernels[0].descriptor_address as usize;
    let e = err(&patched(&bytes, kd + 16, &[0x44]));
    assert!(e.to_string().contains("entry offset"), "{e}");
    // A descriptor's LDS size that disagrees with the metadata.
    let e = err(&patched(&bytes, kd + 1, &[0x7f]));
    assert!(e.to_string().contains(".group_segment_fixed_size"), "{e}");
    // A reserved descriptor byte.
    let e = err(&patched(&bytes, kd + 40, &[1]));
    assert!(e.to_string().contains("reserved"), "{e}");
    // A renamed descriptor symbol in .dynstr.
    let at = bytes.windows(3).position(|w| w == b".kd").unwrap();
    assert!(matches!(
        err(&patched(&bytes, at, b".kx")),
        ReadError::MissingSymbol(_)
    ));
}

#[test]
fn a_kernel_given_twice_is_written_once() {
    let ks = kernels();
    let twice: Vec<Kernel> = ks.iter().chain(ks.iter()).cloned().collect();
    assert_eq!(write(DEFAULT, &twice), write(DEFAULT, &ks));
}

/// Corrupting any byte (to 0xff, to 0x00, or flipping its top bit) never panics the reader: it
/// loads or says why not.
#[test]
fn the_reader_survives_every_single_byte_corruption() {
    let bytes = write(DEFAULT, &kernels()[..2]);
    let mut refused = 0;
    for at in 0..bytes.len() {
        for value in [0xff, 0x00, bytes[at] ^ 0x80] {
            if value == bytes[at] {
                continue;
            }
            let b = patched(&bytes, at, &[value]);
            match std::panic::catch_unwind(|| read(&b).is_err()) {
                Ok(true) => refused += 1,
                Ok(false) => {}
                Err(e) => panic!("reader panicked with byte {at:#x} = {value:#04x}: {e:?}"),
            }
        }
    }
    assert!(refused > 1000, "only {refused} corruptions were refused");
}

#[test]
#[should_panic(expected = "a code object needs at least one kernel")]
fn a_code_object_without_kernels_is_refused() {
    write(DEFAULT, &[]);
}

#[test]
fn every_target_gets_its_machine_value_and_target_id() {
    let ks = kernels();
    for t in TARGETS {
        let bytes = write(t, &ks);
        let co = read(&bytes).unwrap();
        assert_eq!(co.e_flags & EF_AMDGPU_MACH, u32::from(t.machine), "{t}");
        assert_eq!(co.target, t);
        assert_eq!(co.metadata.target, format!("amdgcn-amd-amdhsa--{}", t.name));
        assert_eq!(co.kernels.len(), ks.len());
    }
}

#[test]
fn generic_targets_are_code_object_v6_with_their_generic_version() {
    use ds_isa::target::GENERIC_TARGETS;
    let ks = kernels();
    for g in GENERIC_TARGETS {
        let bytes = write(g, &ks);
        assert_eq!(bytes[8], ABI_VERSION_V6, "{g}: EI_ABIVERSION");
        let co = read(&bytes).unwrap();
        assert_eq!(co.target, g);
        assert_eq!(
            co.e_flags,
            u32::from(g.machine) | g.e_flags_features() | 1 << 24,
            "{g}: generic_v1"
        );
        assert_eq!(co.metadata.target, format!("amdgcn-amd-amdhsa--{}", g.name));
        // v5, or no generic version: not what a generic target's code object is.
        assert!(matches!(
            read(&patched(&bytes, 8, &[ABI_VERSION_V5])),
            Err(ReadError::Header {
                field: "EI_ABIVERSION",
                ..
            })
        ));
        assert!(matches!(
            read(&patched(&bytes, 51, &[0])),
            Err(ReadError::Header { found, .. }) if found == u64::from(g.e_flags() & 0xff_ffff)
        ));
        // A member processor's code object is v5 without a generic version.
        let member = g.members().next().unwrap();
        let bytes = write(member, &ks);
        assert_eq!(bytes[8], ABI_VERSION_V5);
        assert_eq!(read(&bytes).unwrap().e_flags, member.e_flags());
        assert_eq!(member.e_flags() >> 24, 0, "{member}: no generic version");
    }
}
