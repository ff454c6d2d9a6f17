//! Tests of register aliasing.

use super::*;
use crate::wave::Lane;
use ds_isa::ds::runnable_ops;
use ds_isa::gen::Generation;

fn op(name: &str) -> DsOp {
    DsOp::from_name(name).unwrap()
}

#[test]
fn every_pattern_fits_its_op_and_overlaps() {
    let mut n = 0;
    for op in runnable_ops(Generation::Gfx11) {
        for (a, r) in Alias::for_op(op) {
            assert_eq!(r.check(op), Ok(()), "{op} {}", a.name());
            let words = r.words(op.info());
            let overlaps = words
                .iter()
                .enumerate()
                .any(|(i, w)| words[i + 1..].iter().any(|x| x.0 == w.0));
            assert!(overlaps, "{op} {}: no register is shared", a.name());
            n += 1;
        }
    }
    assert!(n > 150, "only {n} aliasing variants");
    assert_eq!(
        Alias::AddrInVdstData0Data1.regs(op("ds_storexchg_2addr_stride64_rtn_b64")),
        Some(Regs {
            addr: Some(31),
            data0: Some(40),
            data1: Some(40),
            vdst: Some(30)
        })
    );
    assert_eq!(Alias::AddrFirstVdst.regs(op("ds_bvh_stack_rtn_b32")), None);
    assert_eq!(Alias::AddrFirstVdst.regs(op("ds_append")), None);
}

#[test]
fn bad_regs_are_refused_in_words() {
    let load = op("ds_load_b128");
    let r = Regs {
        addr: Some(4),
        vdst: Some(253),
        ..Regs::default()
    };
    assert_eq!(
        r.check(load).unwrap_err().to_string(),
        "regs: vdst takes 4 registers from v253, past v255: start it at v252 or lower"
    );
    let r = Regs {
        vdst: Some(4),
        ..Regs::default()
    };
    assert!(r
        .check(load)
        .unwrap_err()
        .to_string()
        .contains("add \"addr\": N"));
    let r = Regs {
        addr: Some(4),
        data0: Some(1),
        vdst: Some(8),
        ..Regs::default()
    };
    assert!(r
        .check(load)
        .unwrap_err()
        .to_string()
        .contains("no data0 operand"));
    let bvh = op("ds_bvh_stack_rtn_b32");
    let r = Regs {
        addr: Some(4),
        data0: Some(5),
        data1: Some(8),
        vdst: Some(4),
    };
    assert!(r
        .check(bvh)
        .unwrap_err()
        .to_string()
        .contains("both name v4"));
}

#[test]
fn a_register_with_two_values_is_named_with_lane_register_and_both_values() {
    let load = op("ds_load_2addr_b32");
    let r = Alias::AddrLastVdst.regs(load).unwrap(); // v[254:255], v255
    let mut lanes = vec![Lane::default(); crate::wave::WaveSize::Wave32.lanes()];
    lanes[7].addr = 0x40;
    lanes[7].vdst = [0xdead_beef, 0x40, 0, 0];
    assert_eq!(r.conflict(load, false, &lanes), None);
    lanes[9].addr = 0x10;
    lanes[9].vdst = [0, 0x11, 0, 0];
    let c = r.conflict(load, false, &lanes).unwrap();
    assert_eq!(
        c.to_string(),
        "lane 9: register v255 is 0x00000010 as addr but 0x00000011 as vdst[1]; a register \
         holds one value per lane: give it the same value through every operand that names it"
    );
    r.harmonise(load, false, &mut lanes[9]);
    assert_eq!(lanes[9].vdst[1], 0x10, "the address wins");
    assert_eq!(r.conflict(load, false, &lanes), None);
}

#[test]
fn even_tuple_patterns_start_every_tuple_at_an_even_register_and_keep_their_overlap() {
    use ds_isa::ds::Field;
    let mut moved = 0;
    for op in ds_isa::ds::runnable_ops(Generation::Gfx11) {
        let o = op.info().operands;
        for (alias, even) in Alias::for_op_in(op, true) {
            assert_eq!(even.check(op), Ok(()), "{op} {}", alias.name());
            for f in Field::ALL {
                if let Some(first) = even.get(f) {
                    if o.dwords(f) > 1 {
                        assert_eq!(first % 2, 0, "{op} {} {f:?} v{first}", alias.name());
                    }
                }
            }
            let plain = alias.regs(op).unwrap();
            // The same overlap: which operands share a first register.
            for a in Field::ALL {
                for b in Field::ALL {
                    let same = |r: &Regs| r.get(a).is_some() && r.get(a) == r.get(b);
                    assert_eq!(
                        same(&plain),
                        same(&even),
                        "{op} {} {a:?}/{b:?}",
                        alias.name()
                    );
                }
            }
            moved += usize::from(plain != even);
        }
    }
    assert!(moved > 0, "no pattern needed moving");
}

#[test]
fn harmonising_a_wave_at_once_is_harmonising_each_lane() {
    use crate::wave::WaveSize;
    let mut checked = 0;
    let ops: std::collections::BTreeSet<_> =
        Generation::ALL.into_iter().flat_map(runnable_ops).collect();
    for op in ops {
        for (_, r) in Alias::for_op(op) {
            for acc in [false, true] {
                let lanes: Vec<Lane> = (0..WaveSize::Wave64.lanes() as u32)
                    .map(|l| Lane {
                        addr: 0x100 + l,
                        data0: [0x200 + l, 0x210 + l, 0x220 + l, 0x230 + l],
                        data1: std::array::from_fn(|k| 0x300 + 0x10 * k as u32 + l),
                        vdst: [0x400 + l, 0x410 + l, 0x420 + l, 0x430 + l],
                    })
                    .collect();
                let exec = 0x9abc_def0_1234_5678;
                let mut each = lanes.clone();
                for (i, l) in each.iter_mut().enumerate() {
                    if exec >> i & 1 == 1 {
                        r.harmonise(op, acc, l);
                    } else {
                        r.harmonise_to_vdst(op, acc, l);
                    }
                }
                let mut all = lanes;
                r.harmonise_lanes(op, acc, &mut all, exec);
                assert_eq!(all, each, "{op} {r:?} acc {acc}");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
