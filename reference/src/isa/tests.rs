//! Invariants of the DS table: rows that cannot be inconsistent.

use super::*;
use std::collections::HashSet;

#[test]
fn table_has_every_ds_opcode_of_each_generation_once() {
    assert_eq!(DS_OPS.len(), 126, "gfx11 defines 126 DS opcodes");
    assert!(DS_OPS.iter().all(|r| r.in_generation(Generation::Gfx11)));
    // gfx12: the 119 LLVM 19 knows, and 4 only LLVM 22 knows.
    assert_eq!(DsOp::all_in(Generation::Gfx12).count(), 123);
    let newer: Vec<&str> = DS_TABLE
        .iter()
        .filter(|r| r.oracle == Oracle::Llvm22)
        .map(|r| r.name)
        .collect();
    assert_eq!(
        newer,
        [
            "ds_bpermute_fi_b32",
            "ds_bvh_stack_push4_pop1_rtn_b32",
            "ds_bvh_stack_push8_pop1_rtn_b32",
            "ds_bvh_stack_push8_pop2_rtn_b64"
        ]
    );
    for gen in Generation::ALL {
        let rows: Vec<&OpInfo> = DS_TABLE.iter().filter(|r| r.in_generation(gen)).collect();
        let opcodes: HashSet<u8> = rows
            .iter()
            .map(|r| r.opcodes[gen as usize].unwrap())
            .collect();
        assert_eq!(opcodes.len(), rows.len(), "{gen}: opcodes are unique");
        for row in rows {
            assert_eq!(
                DsOp::from_opcode_in(gen, row.op.opcode_in(gen).unwrap()),
                Some(row.op)
            );
        }
    }
    // gfx11 rows first in gfx11 opcode order, then gfx12-only rows in gfx12 opcode order.
    assert!(DS_OPS.windows(2).all(|w| w[0].opcodes[0] < w[1].opcodes[0]));
    let rest = &DS_TABLE[DS_OPS.len()..];
    assert!(rest.iter().all(|r| r.opcodes[0].is_none()));
    assert!(rest.windows(2).all(|w| w[0].opcodes[1] < w[1].opcodes[1]));
    for (i, row) in DS_TABLE.iter().enumerate() {
        assert_eq!(
            row.op as usize, i,
            "{}: enum order is table order",
            row.name
        );
        assert!(
            row.generations().next().is_some(),
            "{} is in no generation",
            row.name
        );
    }
}

#[test]
fn ops_shared_by_both_generations_keep_their_opcode() {
    for row in DS_TABLE {
        if let [Some(a), Some(b)] = row.opcodes {
            assert_eq!(a, b, "{}", row.name);
        }
    }
    // The renamed float min/max sit at the old opcodes and read the old names on gfx12.
    for (old, new) in [
        ("ds_min_f32", "ds_min_num_f32"),
        ("ds_max_rtn_f64", "ds_max_num_rtn_f64"),
    ] {
        let (o, n) = (DsOp::from_name(old).unwrap(), DsOp::from_name(new).unwrap());
        assert_eq!(
            o.opcode_in(Generation::Gfx11),
            n.opcode_in(Generation::Gfx12)
        );
        assert_eq!(DsOp::from_name_in(Generation::Gfx12, old), Some(n));
        assert_eq!(DsOp::from_name_in(Generation::Gfx11, old), Some(o));
        assert_eq!(DsOp::from_name_in(Generation::Gfx11, new), None);
    }
}

#[test]
fn names_are_unique_per_generation_and_resolve_to_their_row() {
    for gen in Generation::ALL {
        let mut seen = HashSet::new();
        for row in DS_TABLE.iter().filter(|r| r.in_generation(gen)) {
            assert!(row.name.starts_with("ds_"), "{}", row.name);
            assert!(seen.insert(row.name), "duplicate name {}", row.name);
            assert_eq!(DsOp::from_name(row.name), Some(row.op));
            assert_eq!(DsOp::from_name_in(gen, row.name), Some(row.op));
            for alias in row.op.aliases_in(gen) {
                assert_eq!(DsOp::from_name_in(gen, alias), Some(row.op), "{alias}");
            }
            if let Some(legacy) = row.legacy_name {
                assert!(seen.insert(legacy), "duplicate legacy name {legacy}");
                assert_eq!(DsOp::from_name_in(gen, legacy), Some(row.op));
                assert!(
                    legacy.starts_with("ds_write")
                        || legacy.starts_with("ds_read")
                        || legacy.starts_with("ds_wrxchg")
                        || gen == Generation::Gfx12 && row.name.contains("_num_"),
                    "{legacy}"
                );
            }
        }
    }
}

#[test]
fn exactly_nine_ops_cannot_run_from_hip_and_they_need_gds() {
    let blocked: Vec<&str> = DS_OPS
        .iter()
        .filter(|r| !r.hip_runnable())
        .map(|r| r.name)
        .collect();
    assert_eq!(blocked.len(), 9, "{blocked:?}");
    assert_eq!(runnable_ops().count(), 117);
    for row in DS_OPS {
        assert_eq!(
            row.gds == Gds::Required,
            !row.hip_runnable(),
            "{}",
            row.name
        );
    }
}

#[test]
fn type_suffix_matches_element_type() {
    for row in DS_TABLE {
        if row.elem == Elem::None
            || matches!(
                row.family,
                Family::Append
                    | Family::Consume
                    | Family::Gws
                    | Family::GsReg
                    | Family::OrderedCount
            )
        {
            continue;
        }
        let suffix = row.elem.suffix();
        let base = row
            .name
            .trim_end_matches("_d16_hi")
            .trim_end_matches("_d16");
        assert!(
            base.ends_with(suffix),
            "{} does not end in _{suffix}",
            row.name
        );
    }
}

#[test]
fn operand_widths_follow_family_and_element() {
    for row in DS_TABLE {
        let o = row.operands;
        let elem_dw = row.elem.bytes().div_ceil(4) as u8;
        let n = if row.two_addresses() { 2 } else { 1 };
        assert!(o.addr <= 1, "{}", row.name);
        match row.family {
            Family::Rmw(rmw) => {
                assert_eq!(o.addr, 1, "{}", row.name);
                assert_eq!(o.data0, elem_dw, "{}", row.name);
                let two_data =
                    matches!(rmw, Rmw::Mskor | Rmw::CmpStore | Rmw::Wrap) || row.two_addresses();
                // gfx12's new updates are all one-operand.
                assert_eq!(o.data1, if two_data { elem_dw } else { 0 }, "{}", row.name);
                assert_eq!(row.returns(), row.name.contains("_rtn"), "{}", row.name);
                if row.returns() {
                    assert_eq!(o.vdst, elem_dw * n, "{}", row.name);
                }
                if rmw == Rmw::Wrap || row.two_addresses() {
                    assert!(row.returns(), "{}", row.name);
                }
            }
            Family::Load(d16) => {
                assert_eq!((o.addr, o.data0, o.data1), (1, 0, 0), "{}", row.name);
                assert_eq!(o.vdst, elem_dw * n, "{}", row.name);
                assert_eq!(d16 != D16::No, row.name.contains("_d16"), "{}", row.name);
                assert_eq!(d16 == D16::Hi, row.name.ends_with("_hi"), "{}", row.name);
            }
            Family::Store(d16) => {
                assert_eq!((o.vdst, o.addr), (0, 1), "{}", row.name);
                assert_eq!(o.data0, elem_dw, "{}", row.name);
                assert_eq!(
                    o.data1,
                    if row.two_addresses() { elem_dw } else { 0 },
                    "{}",
                    row.name
                );
                assert_eq!(
                    d16 == D16::Hi,
                    row.name.ends_with("_d16_hi"),
                    "{}",
                    row.name
                );
            }
            Family::BvhPushPop(form) => {
                let o = row.operands;
                assert_eq!((o.addr, o.data0), (1, 1), "{}", row.name);
                assert_eq!(usize::from(o.data1), form.data_dwords(), "{}", row.name);
                assert_eq!(usize::from(o.vdst), form.pops(), "{}", row.name);
            }
            _ => {}
        }
        assert_eq!(
            row.two_addresses(),
            row.name.contains("_2addr"),
            "{}",
            row.name
        );
        assert_eq!(
            row.offset == OffsetForm::Stride64,
            row.name.contains("_stride64"),
            "{}",
            row.name
        );
        assert_eq!(
            row.offset == OffsetForm::Swizzle,
            row.family == Family::Swizzle,
            "{}",
            row.name
        );
        assert_eq!(
            row.offset == OffsetForm::NoOffset,
            row.family == Family::Nop,
            "{}",
            row.name
        );
    }
}

#[test]
fn offset_scale_is_element_size_for_pairs_and_64x_for_stride64() {
    let scale = |op: DsOp| op.info().offset_scale();
    assert_eq!(scale(DsOp::Store2addrB32), 4);
    assert_eq!(scale(DsOp::Store2addrStride64B32), 256);
    assert_eq!(scale(DsOp::Load2addrB64), 8);
    assert_eq!(scale(DsOp::Load2addrStride64B64), 512);
    assert_eq!(scale(DsOp::Storexchg2addrStride64RtnB64), 512);
    assert_eq!(scale(DsOp::AddU32), 1);
}

#[test]
fn suggestions_name_the_closest_mnemonics() {
    assert_eq!(suggest("ds_add_u23", 1), vec!["ds_add_u32"]);
    assert!(suggest("ds_cmpst_b32", 3).contains(&"ds_cmpstore_b32"));
    assert!(suggest("ds_load_b33", 3).contains(&"ds_load_b32"));
}

#[test]
fn gfx12_has_no_gds_bit() {
    let inst = DsInst {
        gds: true,
        ..DsInst::new(DsOp::AddU32)
    };
    assert!(inst.encode_in(Generation::Gfx11).is_ok());
    assert_eq!(
        inst.encode_in(Generation::Gfx12),
        Err(InstError::NoGdsBit {
            op: DsOp::AddU32,
            gen: Generation::Gfx12
        })
    );
    // The word with bit 17 set is no gfx12 instruction.
    let word = inst.encode_in(Generation::Gfx11).unwrap();
    assert!(matches!(
        DsInst::decode_in(Generation::Gfx12, word),
        Err(DecodeError::Inst(InstError::NoGdsBit { .. }))
    ));
    assert_eq!(DsInst::decode_in(Generation::Gfx11, word), Ok(inst));
}

#[test]
fn each_generation_refuses_the_other_generations_ops() {
    let gws = DsInst {
        gds: true,
        ..DsInst::new(DsOp::GwsInit)
    };
    assert_eq!(
        gws.encode_in(Generation::Gfx12),
        Err(InstError::NotInGeneration {
            op: DsOp::GwsInit,
            gen: Generation::Gfx12
        })
    );
    let cond = DsInst::new(DsOp::CondSubU32);
    assert_eq!(
        cond.encode_in(Generation::Gfx11),
        Err(InstError::NotInGeneration {
            op: DsOp::CondSubU32,
            gen: Generation::Gfx11
        })
    );
    let word = cond.encode_in(Generation::Gfx12).unwrap();
    assert_eq!(
        DsInst::decode_in(Generation::Gfx11, word),
        Err(DecodeError::UnknownOpcode(0x98, Generation::Gfx11))
    );
    let e = syntax::parse_in(Generation::Gfx11, "ds_cond_sub_u32 v1, v2").unwrap_err();
    assert!(
        e.to_string()
            .contains("not a gfx11 DS instruction (it is gfx12)"),
        "{e}"
    );
    let e = syntax::parse_in(Generation::Gfx12, "ds_gws_init v1 gds").unwrap_err();
    assert!(
        e.to_string()
            .contains("not a gfx12 DS instruction (it is gfx11)"),
        "{e}"
    );
    let e = syntax::parse_in(Generation::Gfx12, "ds_add_u32 v1, v2 gds").unwrap_err();
    assert!(e.to_string().contains("gfx12 has no GDS"), "{e}");
}

#[test]
fn generation_aliases_spell_an_op_of_their_generation_only() {
    for a in GENERATION_ALIASES {
        assert!(a.op.info().in_generation(a.gen), "{}", a.name);
        assert_eq!(DsOp::from_name_in(a.gen, a.name), Some(a.op));
        assert!(a.op.aliases_in(a.gen).any(|n| n == a.name));
        for other in Generation::ALL.into_iter().filter(|&g| g != a.gen) {
            assert_ne!(
                DsOp::from_name_in(other, a.name),
                Some(a.op),
                "{} on {other}",
                a.name
            );
            assert!(!a.op.aliases_in(other).any(|n| n == a.name));
        }
        // No alias shadows a mnemonic or an older name of a row of its generation (it may be
        // another generation's mnemonic, as gfx11's ds_bvh_stack_rtn_b32 is).
        assert!(DS_TABLE
            .iter()
            .filter(|r| r.in_generation(a.gen))
            .all(|r| r.name != a.name && r.legacy_name != Some(a.name)));
    }
    assert_eq!(
        DsOp::from_name_in(Generation::Gfx12, "ds_subrev_u64"),
        Some(DsOp::RsubU64)
    );
}
