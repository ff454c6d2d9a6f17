//! The generator over the whole table: every runnable op builds for every LDS size shape (no copy
//! loop, loop plus tail, the largest allocation), the others are refused with the table's reason,
//! names are unique per variant, and the code decodes back to the instructions it was built from.

mod common;

use ds_kernels::generator::{generate, kernel_name, GenError, ADDR, DATA0, DATA1, VDST};
use ds_kernels::inst::{decode, Inst};
use ds_kernels::isa::{DsOp, Field, DS_OPS};
use ds_reference::wave::{FpMode, Variant};
use std::collections::HashSet;

#[test]
fn every_runnable_op_builds_for_every_lds_size_shape_and_decodes_back() {
    let mut names = HashSet::new();
    for lds_size in [4, 132, 1024, 65536] {
        for r in DS_OPS.iter().filter(|r| r.hip_runnable()) {
            let v = Variant {
                lds_size,
                ..common::variant(r.op)
            };
            let k = generate(&v).unwrap();
            assert!(names.insert(k.name.clone()), "duplicate name {}", k.name);
            assert_eq!(k.name, kernel_name(&v));
            // The code is exactly the instructions, back to back.
            let mut at = 0;
            for (inst, _) in &k.insts {
                let (got, len) = decode(&k.code[at..]).unwrap();
                assert_eq!(&got, inst, "{} at {at:#x}", k.name);
                at += len;
            }
            assert_eq!(at, k.code.len());
            // The instruction under test uses the documented registers.
            let ds = k
                .insts
                .iter()
                .find_map(|(i, note)| match i {
                    Inst::Ds(d) if *note == "the instruction under test" => Some(*d),
                    _ => None,
                })
                .unwrap();
            assert_eq!(ds.op, r.op);
            for (field, reg) in [
                (Field::Addr, ADDR),
                (Field::Data0, DATA0),
                (Field::Data1, DATA1),
                (Field::Vdst, VDST),
            ] {
                let want = if r.operands.dwords(field) > 0 { reg } else { 0 };
                assert_eq!(ds.reg(field), want, "{} {}", k.name, field.name());
            }
            assert_eq!(k.descriptor.group_segment_fixed_size, lds_size);
        }
    }
    assert_eq!(names.len(), 4 * 117);
}

#[test]
fn a_partial_last_round_runs_under_the_mask_of_the_remaining_lanes() {
    let v = Variant {
        lds_size: 132,
        ..common::variant(DsOp::LoadB32)
    };
    let listing = generate(&v).unwrap().listing();
    // 132 bytes = one 128-byte round, then one dword: lane 0 alone.
    assert_eq!(
        listing.matches("s_movk_i32 s18, 0x1").count(),
        2,
        "{listing}"
    );
    assert_eq!(
        listing.matches("s_mov_b32 exec_lo, 1\n").count(),
        2,
        "{listing}"
    );
    let tiny = generate(&Variant { lds_size: 4, ..v }).unwrap().listing();
    assert!(!tiny.contains("s_cbranch_scc1"), "{tiny}");
}

#[test]
fn unrunnable_ops_and_bad_variants_are_refused_with_reasons() {
    for r in DS_OPS.iter().filter(|r| !r.hip_runnable()) {
        let err = generate(&common::variant(r.op)).unwrap_err();
        assert!(matches!(err, GenError::NotRunnable { .. }), "{}", r.name);
        assert!(err.to_string().contains("HIP"), "{err}");
    }
    let nop = Variant {
        offset0: 1,
        ..common::variant(DsOp::Nop)
    };
    assert!(matches!(generate(&nop), Err(GenError::Offsets(_))));
    for lds_size in [0, 6, 65540] {
        let v = Variant {
            lds_size,
            ..common::variant(DsOp::AddU32)
        };
        assert!(matches!(generate(&v), Err(GenError::Lds(_))), "{lds_size}");
    }
    let flush = Variant {
        mode: FpMode {
            fp32_denormals: false,
            fp16_fp64_denormals: false,
            ieee: false,
        },
        ..common::variant(DsOp::AddF32)
    };
    let k = generate(&flush).unwrap();
    assert_eq!(k.descriptor.fp_mode(), flush.mode);
    assert!(k.name.ends_with("_m000"), "{}", k.name);
}
