//! Invariants of the DS table: rows that cannot be inconsistent.

use super::*;
use std::collections::HashSet;

#[test]
fn table_has_every_gfx11_ds_opcode_once() {
    assert_eq!(DS_OPS.len(), 126, "gfx11 defines 126 DS opcodes");
    let opcodes: HashSet<u8> = DS_OPS.iter().map(|r| r.opcode).collect();
    assert_eq!(opcodes.len(), DS_OPS.len(), "opcodes are unique");
    assert!(
        DS_OPS.windows(2).all(|w| w[0].opcode < w[1].opcode),
        "rows are in opcode order"
    );
    for (i, row) in DS_OPS.iter().enumerate() {
        assert_eq!(
            row.op as usize, i,
            "{}: enum order is table order",
            row.name
        );
        assert_eq!(DsOp::from_opcode(row.opcode), Some(row.op));
    }
}

#[test]
fn names_are_unique_and_resolve_to_their_row() {
    let mut seen = HashSet::new();
    for row in DS_OPS {
        assert!(row.name.starts_with("ds_"), "{}", row.name);
        assert!(seen.insert(row.name), "duplicate name {}", row.name);
        assert_eq!(DsOp::from_name(row.name), Some(row.op));
        if let Some(legacy) = row.legacy_name {
            assert!(seen.insert(legacy), "duplicate legacy name {legacy}");
            assert_eq!(DsOp::from_name(legacy), Some(row.op));
            assert!(
                legacy.starts_with("ds_write")
                    || legacy.starts_with("ds_read")
                    || legacy.starts_with("ds_wrxchg")
            );
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
    for row in DS_OPS {
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
    for row in DS_OPS {
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
