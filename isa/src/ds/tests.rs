//! Invariants of the DS table: rows that cannot be inconsistent.

use super::*;
use crate::error::{DecodeError, InstError};
use std::collections::HashSet;

/// The gfx11 rows: the table's first rows, in gfx11 opcode order (checked below).
fn gfx11_rows() -> &'static [OpInfo] {
    let n = DS_TABLE
        .iter()
        .take_while(|r| r.in_generation(Generation::Gfx11))
        .count();
    &DS_TABLE[..n]
}

#[test]
fn table_has_every_ds_opcode_of_each_generation_once() {
    assert_eq!(gfx11_rows().len(), 126, "gfx11 defines 126 DS opcodes");
    assert!(gfx11_rows()
        .iter()
        .all(|r| r.in_generation(Generation::Gfx11)));
    // gfx12: the 119 LLVM 19 knows, and 4 only LLVM 22 knows.
    assert_eq!(DsOp::all(Generation::Gfx12).count(), 123);
    // gfx1250 (llvm-mc-22, every opcode value): gfx12's less its 3 BVH stack ops, plus 8.
    assert_eq!(DsOp::all(Generation::Gfx12_5).count(), 128);
    let g12: HashSet<DsOp> = DsOp::all(Generation::Gfx12).collect();
    let g1250: HashSet<DsOp> = DsOp::all(Generation::Gfx12_5).collect();
    let mut gone: Vec<&str> = g12.difference(&g1250).map(|o| o.name()).collect();
    let mut added: Vec<&str> = g1250.difference(&g12).map(|o| o.name()).collect();
    gone.sort_unstable();
    added.sort_unstable();
    assert_eq!(
        gone,
        [
            "ds_bvh_stack_push4_pop1_rtn_b32",
            "ds_bvh_stack_push8_pop1_rtn_b32",
            "ds_bvh_stack_push8_pop2_rtn_b64"
        ]
    );
    assert_eq!(
        added,
        [
            "ds_add_f64",
            "ds_add_rtn_f64",
            "ds_atomic_async_barrier_arrive_b64",
            "ds_atomic_barrier_arrive_rtn_b64",
            "ds_load_tr16_b128",
            "ds_load_tr4_b64",
            "ds_load_tr6_b96",
            "ds_load_tr8_b64"
        ]
    );
    // Every op gfx1250 shares with gfx12 keeps gfx12's opcode.
    for op in g12.intersection(&g1250) {
        assert_eq!(
            op.opcode(Generation::Gfx12),
            op.opcode(Generation::Gfx12_5),
            "{op}"
        );
    }
    // gfx9: 154 opcodes on the Vega targets, with CDNA's f64 adds, packed adds and transpose
    // loads 164 over the generation; gfx10: 154 (123 from RDNA 2 on, without the 31 src2 ops).
    assert_eq!(DsOp::all(Generation::Gfx9).count(), 164);
    assert_eq!(DsOp::all(Generation::Gfx10).count(), 154);
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
            "ds_bvh_stack_push8_pop2_rtn_b64",
            "ds_atomic_async_barrier_arrive_b64",
            "ds_atomic_barrier_arrive_rtn_b64",
            "ds_load_tr4_b64",
            "ds_load_tr6_b96",
            "ds_load_tr16_b128",
            "ds_load_tr8_b64",
            "ds_read_b64_tr_b4",
            "ds_read_b96_tr_b6",
            "ds_read_b64_tr_b8",
            "ds_read_b64_tr_b16",
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
                DsOp::from_opcode(gen, row.op.opcode(gen).unwrap()),
                Some(row.op)
            );
        }
    }
    // gfx11 rows first in gfx11 opcode order, then gfx12-only rows in gfx12 opcode order, then
    // gfx1250-only rows in gfx1250 opcode order, then the gfx9/gfx10-only rows in gfx9 opcode
    // order.
    let [g9, g11, g12, g1250] = [
        Generation::Gfx9,
        Generation::Gfx11,
        Generation::Gfx12,
        Generation::Gfx12_5,
    ]
    .map(|g| g as usize);
    assert!(gfx11_rows()
        .windows(2)
        .all(|w| w[0].opcodes[g11] < w[1].opcodes[g11]));
    let rest = &DS_TABLE[gfx11_rows().len()..];
    assert!(rest.iter().all(|r| r.opcodes[g11].is_none()));
    let split = rest.iter().position(|r| r.opcodes[g12].is_none()).unwrap();
    let (only12, rest) = rest.split_at(split);
    assert!(only12
        .windows(2)
        .all(|w| w[0].opcodes[g12] < w[1].opcodes[g12]));
    let split = rest.iter().position(|r| r.opcodes[g9].is_some()).unwrap();
    let (only1250, only9) = rest.split_at(split);
    assert_eq!(only1250.len(), 6, "2 barrier arrives, 4 transpose loads");
    assert!(only1250
        .windows(2)
        .all(|w| w[0].opcodes[g1250] < w[1].opcodes[g1250]));
    assert!(only9
        .iter()
        .all(|r| r.opcodes[g12].is_none() && r.opcodes[g9].is_some()));
    assert!(only9
        .windows(2)
        .all(|w| w[0].opcodes[g9] < w[1].opcodes[g9]));
    assert_eq!(only9.len(), 37, "31 src2, 2 f64 adds, 4 transpose loads");
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
    let opc = |r: &OpInfo, g: Generation| r.opcodes[g as usize];
    for row in DS_TABLE {
        if let (Some(a), Some(b)) = (opc(row, Generation::Gfx11), opc(row, Generation::Gfx12)) {
            assert_eq!(a, b, "{}", row.name);
        }
    }
    // gfx10 -> gfx11: one op moves (ds_add_rtn_f32 0x55 -> 0x79), 46 are renamed in place.
    let moved: Vec<&str> = DS_TABLE
        .iter()
        .filter(|r| {
            matches!((opc(r, Generation::Gfx10), opc(r, Generation::Gfx11)), (Some(a), Some(b)) if a != b)
        })
        .map(|r| r.name)
        .collect();
    assert_eq!(moved, ["ds_add_rtn_f32"]);
    let renamed = DS_TABLE
        .iter()
        .filter(|r| r.in_generation(Generation::Gfx10) && r.in_generation(Generation::Gfx11))
        .filter(|r| r.op.mnemonic(Generation::Gfx10) != r.name)
        .count();
    assert_eq!(renamed, 46);
    // gfx9 -> gfx10: 23 shared ops change opcode, 16 of them runnable (the others GWS and
    // ds_ordered_count).
    let changed: Vec<&OpInfo> = DS_TABLE
        .iter()
        .filter(|r| {
            matches!((opc(r, Generation::Gfx9), opc(r, Generation::Gfx10)), (Some(a), Some(b)) if a != b)
        })
        .collect();
    assert_eq!(changed.len(), 23);
    assert_eq!(changed.iter().filter(|r| r.hip_runnable()).count(), 16);
    // The renamed float min/max sit at the old opcodes and read the old names on gfx12.
    for (old, new) in [
        ("ds_min_f32", "ds_min_num_f32"),
        ("ds_max_rtn_f64", "ds_max_num_rtn_f64"),
    ] {
        let (o, n) = (DsOp::from_name(old).unwrap(), DsOp::from_name(new).unwrap());
        assert_eq!(o.opcode(Generation::Gfx11), n.opcode(Generation::Gfx12));
        assert_eq!(DsOp::from_name_in(Generation::Gfx12, old), Some(n));
        assert_eq!(DsOp::from_name_in(Generation::Gfx11, old), Some(o));
        assert_eq!(DsOp::from_name_in(Generation::Gfx11, new), None);
        assert_eq!(DsOp::from_name_in(Generation::Gfx9, old), Some(o));
    }
}

#[test]
fn names_are_unique_per_generation_and_resolve_to_their_row() {
    for gen in Generation::ALL {
        let mut seen = HashSet::new();
        for row in DS_TABLE.iter().filter(|r| r.in_generation(gen)) {
            let name = row.op.mnemonic(gen);
            assert!(name.starts_with("ds_"), "{name}");
            assert!(seen.insert(name), "duplicate name {name}");
            assert_eq!(DsOp::from_name(name), Some(row.op));
            assert_eq!(DsOp::from_name_in(gen, name), Some(row.op));
            for alias in row.op.aliases_in(gen) {
                assert_eq!(DsOp::from_name_in(gen, alias), Some(row.op), "{alias}");
            }
            if gen.gfx9_mnemonics() {
                // gfx9 and gfx10 read no other name (LLVM refuses gfx11's for them).
                assert_eq!(row.op.aliases_in(gen).count(), 0, "{name}");
                if name != row.name {
                    assert_eq!(DsOp::from_name_in(gen, row.name), None, "{}", row.name);
                }
                continue;
            }
            if let Some(legacy) = row.legacy_name {
                assert!(seen.insert(legacy), "duplicate legacy name {legacy}");
                assert_eq!(DsOp::from_name_in(gen, legacy), Some(row.op));
                assert!(
                    legacy.starts_with("ds_write")
                        || legacy.starts_with("ds_read")
                        || legacy.starts_with("ds_wrxchg")
                        || matches!(gen, Generation::Gfx12 | Generation::Gfx12_5)
                            && row.name.contains("_num_"),
                    "{legacy}"
                );
            }
            if let Some(old) = row.gfx9_only_name {
                assert_eq!(DsOp::from_name_in(gen, old), None, "{old} on {gen}");
            }
        }
    }
    // The older names are the gfx9 spellings: every row with one is a gfx9 or gfx12 row.
    for row in DS_TABLE {
        if let Some(old) = row.gfx9_only_name {
            assert!(
                row.legacy_name.is_none() && row.in_generation(Generation::Gfx9),
                "{old}"
            );
            assert_eq!(old, row.name.replace("ds_cmpstore", "ds_cmpst"));
        }
    }
    assert_eq!(
        DsOp::CmpstoreRtnB64.mnemonic(Generation::Gfx9),
        "ds_cmpst_rtn_b64"
    );
    assert_eq!(
        DsOp::Storexchg2addrRtnB64.mnemonic(Generation::Gfx10),
        "ds_wrxchg2_rtn_b64"
    );
    assert_eq!(
        DsOp::Load2addrStride64B64.mnemonic(Generation::Gfx9),
        "ds_read2st64_b64"
    );
    assert_eq!(DsOp::StoreB32.mnemonic(Generation::Gfx11), "ds_store_b32");
}

#[test]
fn exactly_nine_ops_cannot_run_from_hip_and_they_need_gds() {
    let blocked: Vec<&str> = gfx11_rows()
        .iter()
        .filter(|r| !r.hip_runnable())
        .map(|r| r.name)
        .collect();
    assert_eq!(blocked.len(), 9, "{blocked:?}");
    assert_eq!(runnable_ops(Generation::Gfx11).count(), 117);
    for row in gfx11_rows() {
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
                    | Family::LoadTranspose(_)
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
            Family::Src2(_) => {
                // Both operands come from LDS: only the address register.
                assert_eq!(
                    (o.vdst, o.addr, o.data0, o.data1),
                    (0, 1, 0, 0),
                    "{}",
                    row.name
                );
                assert!(row.name.contains("_src2_"), "{}", row.name);
            }
            Family::LoadTranspose(tr) => {
                assert_eq!((o.addr, o.data0, o.data1), (1, 0, 0), "{}", row.name);
                assert_eq!(u32::from(o.vdst) * 4, row.elem.bytes(), "{}", row.name);
                let bits = tr.bits;
                assert!(
                    row.name.ends_with(&format!("_tr_b{bits}"))
                        || row.name.starts_with(&format!("ds_load_tr{bits}_")),
                    "{}",
                    row.name
                );
                // The row each lane reads is VDST's width; the map's groups read rows of 8
                // bytes, the 8-lane plain transpose rows of 16.
                let row_bytes = match tr.map {
                    TrMap::Groups8 => Some(16),
                    TrMap::Groups16Quads | TrMap::Groups16Pairs | TrMap::Groups16Runs4 => Some(8),
                    TrMap::Unsourced => None,
                };
                if let Some(b) = row_bytes {
                    assert_eq!(row.elem.bytes(), b, "{}", row.name);
                }
                // Only a 3-dword VDST may start odd (gfx1250's `ds_load_tr6_b96`).
                assert!(!tr.odd_start || o.vdst == 3, "{}", row.name);
            }
            Family::BarrierArrive => {
                // The old 64-bit word back and DATA0 arrivals, or neither (the async arrive).
                assert_eq!(
                    (o.addr, o.data1, row.elem),
                    (1, 0, Elem::B64),
                    "{}",
                    row.name
                );
                assert_eq!(o.vdst, o.data0, "{}", row.name);
                assert_eq!(row.returns(), row.name.contains("_rtn"), "{}", row.name);
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
    assert!(inst.encode(Generation::Gfx11).is_ok());
    assert_eq!(
        inst.encode(Generation::Gfx12),
        Err(InstError::NoGdsBit {
            op: DsOp::AddU32,
            gen: Generation::Gfx12
        })
    );
    // The word with bit 17 set is no gfx12 instruction.
    let word = inst.encode(Generation::Gfx11).unwrap();
    assert!(matches!(
        DsInst::decode(Generation::Gfx12, word),
        Err(DecodeError::Inst(InstError::NoGdsBit { .. }))
    ));
    assert_eq!(DsInst::decode(Generation::Gfx11, word), Ok(inst));
}

#[test]
fn each_generation_refuses_the_other_generations_ops() {
    let gws = DsInst {
        gds: true,
        ..DsInst::new(DsOp::GwsInit)
    };
    assert_eq!(
        gws.encode(Generation::Gfx12),
        Err(InstError::NotInGeneration {
            op: DsOp::GwsInit,
            gen: Generation::Gfx12
        })
    );
    let cond = DsInst::new(DsOp::CondSubU32);
    assert_eq!(
        cond.encode(Generation::Gfx11),
        Err(InstError::NotInGeneration {
            op: DsOp::CondSubU32,
            gen: Generation::Gfx11
        })
    );
    let word = cond.encode(Generation::Gfx12).unwrap();
    assert_eq!(
        DsInst::decode(Generation::Gfx11, word),
        Err(DecodeError::UnknownOpcode(0x98, Generation::Gfx11))
    );
    let e = syntax::parse(Generation::Gfx11, "ds_cond_sub_u32 v1, v2").unwrap_err();
    assert!(
        e.to_string()
            .contains("not a gfx11 DS instruction (it is gfx12 and gfx12.5)"),
        "{e}"
    );
    let e = syntax::parse(Generation::Gfx12, "ds_gws_init v1 gds").unwrap_err();
    assert!(
        e.to_string()
            .contains("not a gfx12 DS instruction (it is gfx9, gfx10 and gfx11)"),
        "{e}"
    );
    let e = syntax::parse(Generation::Gfx12, "ds_add_u32 v1, v2 gds").unwrap_err();
    assert!(e.to_string().contains("gfx12 has no GDS"), "{e}");
}

#[test]
fn generation_aliases_spell_an_op_of_their_generation_only() {
    for a in generation_aliases() {
        assert!(a.op.info().in_generation(a.gen), "{}", a.name);
        assert_eq!(DsOp::from_name_in(a.gen, a.name), Some(a.op));
        assert!(a.op.aliases_in(a.gen).any(|n| n == a.name));
        // Another generation reads it only where it lists the same alias (gfx12's `ds_subrev_*`
        // are gfx1250's too).
        let lists = |g: Generation| aliases_of(g).any(|b| b.name == a.name && b.op == a.op);
        for other in Generation::ALL
            .into_iter()
            .filter(|&g| g != a.gen && !lists(g))
        {
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

/// The gfx9 layout, as llvm-mc-19 writes it for gfx900 and gfx90a (`reference/tests/all/llvm_oracle.rs`
/// checks every op both ways): gds at bit 16, OP at [24:17], acc at bit 25.
#[test]
fn gfx9_layout_puts_gds_at_16_op_at_17_and_acc_at_25() {
    let t = |n: &str| crate::target::Target::by_name(n).unwrap();
    let (gfx900, gfx90a, gfx1030) = (t("gfx900"), t("gfx90a"), t("gfx1030"));
    let add = DsInst {
        addr: 1,
        data0: 2,
        gds: true,
        ..DsInst::new(DsOp::AddU32)
    };
    // llvm-mc-19 -mcpu=gfx900: ds_add_u32 v1, v2 gds ; [0x00,0x00,0x01,0xd8,0x01,0x02,0x00,0x00]
    assert_eq!(add.to_bytes(gfx900), Ok([0, 0, 0x01, 0xd8, 1, 2, 0, 0]));
    // gfx1030: [0x00,0x00,0x02,0xd8,...] (gds at 17, as gfx11)
    assert_eq!(add.to_bytes(gfx1030), Ok([0, 0, 0x02, 0xd8, 1, 2, 0, 0]));
    assert_eq!(
        add.text(Generation::Gfx9).to_string(),
        "ds_add_u32 v1, v2 gds"
    );
    // gfx90a has no GDS for LDS ops.
    assert_eq!(
        add.to_bytes(gfx90a),
        Err(InstError::NoGds {
            op: DsOp::AddU32,
            isa: Isa::of(gfx90a)
        })
    );
    // ds_add_rtn_u32 a1, v2, a3 on gfx90a: [0x00,0x00,0x40,0xda,0x02,0x03,0x00,0x01].
    let acc = DsInst {
        vdst: 1,
        addr: 2,
        data0: 3,
        acc: true,
        ..DsInst::new(DsOp::AddRtnU32)
    };
    let bytes = [0, 0, 0x40, 0xda, 2, 3, 0, 1];
    assert_eq!(acc.to_bytes(gfx90a), Ok(bytes));
    assert_eq!(DsInst::from_bytes(gfx90a, bytes), Ok(acc));
    assert_eq!(
        acc.text(Generation::Gfx9).to_string(),
        "ds_add_rtn_u32 a1, v2, a3"
    );
    assert_eq!(syntax::parse(gfx90a, "ds_add_rtn_u32 a1, v2, a3"), Ok(acc));
    // Without the acc feature bit 25 is reserved (llvm-mc ignores it; we refuse it).
    assert_eq!(
        DsInst::from_bytes(gfx900, bytes),
        Err(DecodeError::ReservedBit(25))
    );
    assert!(matches!(acc.to_bytes(gfx900), Err(InstError::Acc { .. })));
    assert!(syntax::parse(gfx900, "ds_add_rtn_u32 a1, v2, a3").is_err());
    // Mixed files are refused, as llvm-mc does ("data and dst should be all VGPR or AGPR").
    assert!(syntax::parse(gfx90a, "ds_add_rtn_u32 v1, v2, a3").is_err());
    assert!(syntax::parse(gfx90a, "ds_add_rtn_u32 a1, a2, a3").is_err());
    // No acc on an op without vdst or data.
    let nop = DsInst {
        acc: true,
        ..DsInst::new(DsOp::Nop)
    };
    assert!(matches!(nop.to_bytes(gfx90a), Err(InstError::Acc { .. })));
}

#[test]
fn gfx9_and_gfx10_spell_ops_by_their_gfx9_names_only() {
    let store = DsInst {
        addr: 1,
        data0: 2,
        ..DsInst::new(DsOp::StoreB32)
    };
    assert_eq!(
        store.text(Generation::Gfx9).to_string(),
        "ds_write_b32 v1, v2"
    );
    assert_eq!(
        store.text(Generation::Gfx10).to_string(),
        "ds_write_b32 v1, v2"
    );
    assert_eq!(
        store.text(Generation::Gfx11).to_string(),
        "ds_store_b32 v1, v2"
    );
    assert_eq!(
        syntax::parse(Generation::Gfx9, "ds_write_b32 v1, v2"),
        Ok(store)
    );
    let e = syntax::parse(Generation::Gfx10, "ds_store_b32 v1, v2").unwrap_err();
    assert!(e.to_string().contains("write `ds_write_b32`"), "{e}");
    let e = syntax::parse(Generation::Gfx11, "ds_cmpst_b32 v1, v2, v3").unwrap_err();
    assert!(e.to_string().contains("write `ds_cmpstore_b32`"), "{e}");
    // Errors name the op as the generation spells it.
    let e = syntax::parse(Generation::Gfx9, "ds_write_b32 v1").unwrap_err();
    assert!(e.to_string().starts_with("ds_write_b32 takes 2"), "{e}");
    assert!(
        e.to_string().contains("`ds_write_b32 v1, v2 offset:16`"),
        "{e}"
    );
    assert!(matches!(
        e,
        crate::error::ParseError::OperandCount {
            gen: Generation::Gfx9,
            ..
        }
    ));
}

#[test]
fn per_target_ops_and_even_tuples() {
    let t = |n: &str| crate::target::Target::by_name(n).unwrap();
    let src2 = DsInst {
        addr: 1,
        ..DsInst::new(DsOp::AddSrc2U32)
    };
    for (name, ok) in [
        ("gfx908", true),
        ("gfx90a", false),
        ("gfx1012", true),
        ("gfx1030", false),
    ] {
        assert_eq!(src2.to_bytes(t(name)).is_ok(), ok, "{name}");
    }
    let e = src2.to_bytes(t("gfx942")).unwrap_err().to_string();
    assert!(
        e.contains("needs the src2 feature") && e.contains("gfx908"),
        "{e}"
    );
    // The word decodes on gfx908 and names the feature on gfx90a.
    let word = src2.encode(t("gfx908")).unwrap();
    assert!(matches!(
        DsInst::decode(t("gfx90a"), word).unwrap_err().inst(),
        Some(InstError::NotOnTarget { .. })
    ));
    // The generation alone: what every gfx9 target has (no src2, no acc, even tuples).
    assert!(src2.to_bytes(Generation::Gfx9).is_err());
    // Even tuples from gfx90a: ds_write_b64 v1, v[3:4] is refused there, read on gfx908.
    let odd = DsInst {
        addr: 1,
        data0: 3,
        ..DsInst::new(DsOp::StoreB64)
    };
    assert!(odd.to_bytes(t("gfx908")).is_ok());
    assert!(matches!(
        odd.to_bytes(t("gfx90a")),
        Err(InstError::Misaligned {
            field: Field::Data0,
            first: 3,
            ..
        })
    ));
    let gws = DsInst {
        data0: 5,
        gds: true,
        ..DsInst::new(DsOp::GwsInit)
    };
    assert!(gws.to_bytes(t("gfx908")).is_ok());
    assert!(matches!(
        gws.to_bytes(t("gfx942")),
        Err(InstError::Misaligned { .. })
    ));
    let tr = DsInst {
        vdst: 2,
        addr: 1,
        ..DsInst::new(DsOp::ReadB64TrB4)
    };
    assert!(tr.to_bytes(t("gfx950")).is_ok() && tr.to_bytes(t("gfx942")).is_err());
    let f64 = DsInst {
        addr: 1,
        data0: 2,
        ..DsInst::new(DsOp::AddF64)
    };
    assert!(f64.to_bytes(t("gfx90a")).is_ok() && f64.to_bytes(t("gfx908")).is_err());
}

/// Every row a HIP kernel can run is runnable: none waits on the model any more (CDNA 4's
/// transpose loads run too; the model judges b8 and b16 and records b4 and b6 unjudged:
/// ASSUMPTIONS.md V9); the src2 ops and `ds_add_f64` run.
#[test]
fn no_row_waits_on_the_model() {
    assert!(DS_TABLE.iter().all(|r| r
        .hip_unsupported
        .is_none_or(|w| !w.starts_with("not yet modelled"))));
    assert!(DS_TABLE
        .iter()
        .filter(|r| matches!(r.family, Family::LoadTranspose(_)))
        .all(|r| r.hip_runnable()));
    for r in DS_TABLE {
        if matches!(r.family, Family::Src2(_))
            || (r.elem == Elem::F64 && r.family == Family::Rmw(Rmw::Add))
        {
            assert!(r.hip_runnable(), "{}", r.name);
        }
    }
}
