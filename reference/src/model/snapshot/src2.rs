//! The snapshot cases of the gfx9/gfx10 src2 atomics (`model::src2`): the second operand read
//! from LDS at `B`, so each case sets both elements in memory. One case per question of
//! ASSUMPTIONS.md V4-V7 besides the value edges of the same tables as the register atomics.

use super::values::{base_case, split, variant, F32S, F64S, FTZ_NON_IEEE, INT32, INT64};
use crate::wave::{Case, FpMode, Variant};
use ds_isa::ds::{DsOp, Elem};

/// Sets the element of `bytes` at `at` to `v`.
fn put(c: &mut Case, at: u32, bytes: u32, v: u64) {
    let [lo, hi] = split(v);
    c.lds.set_word(at, lo);
    if bytes == 8 {
        c.lds.set_word(at + 4, hi);
    }
}

/// (MEM[A], MEM[B]) of edge `k`: the register atomics' (memory, DATA0) pairs.
fn edge(elem: Elem, k: usize) -> (u64, u64) {
    match elem {
        Elem::F32 => (F32S[k].0.into(), F32S[k].1.into()),
        Elem::F64 => (F64S[k].0, F64S[k].1),
        _ if elem.bytes() == 8 => (INT64[k].0, INT64[k].1),
        _ => (INT32[k].0.into(), INT32[k].1.into()),
    }
}

/// The named cases of src2 op `op` (wave32, 512 bytes of LDS).
pub(super) fn cases(op: DsOp) -> Vec<(&'static str, Variant, Case)> {
    let info = op.info();
    let (elem, eb) = (info.elem, info.elem.bytes());
    let dm = FpMode::default();
    let mut out = Vec::new();
    // Edges: lane i's A at element 2i, B the next element (offset eb/4 dwords); lane 8 inactive.
    let mut edges = base_case(0x0ff);
    for i in 0..9 {
        let a = 2 * eb * i as u32;
        edges.wave.lanes[i].addr = a;
        let (m, src) = edge(elem, i % 8);
        put(&mut edges, a, eb, m);
        put(&mut edges, a + eb, eb, src);
    }
    let next = (eb / 4) as u8;
    out.push(("edges", variant(op, next, 0, dm), edges.clone()));
    if elem.is_float() {
        out.push((
            "edges_ftz_non_ieee",
            variant(op, next, 0, FTZ_NON_IEEE),
            edges.clone(),
        ));
    }
    // Offset 0: B = A, each element combined with itself. (`edges` settles V4: were the offset
    // added to A too, every lane would update its B element from the one above.)
    out.push(("offset_zero_b_is_a", variant(op, 0, 0, dm), edges.clone()));
    // V5: 0x7fff is -1 dword (bit 14 the sign): B = A - 4, an element's upper half for 64 bits.
    out.push((
        "offset_0x7fff_one_dword_down",
        variant(op, 0xff, 0x7f, dm),
        edges.clone(),
    ));
    // V5: bit 15 set takes k from A[31:17] (0 for every LDS address): B = A whatever the low bits
    // say (0x123 dwords up if they were read).
    out.push((
        "offset_bit15_from_address",
        variant(op, 0x23, 0x81, dm),
        edges.clone(),
    ));
    // V6: a 64-bit op with offset 1: B = A + 4 (the guide's factor), not A + 8.
    if eb == 8 {
        out.push(("offset_one_dword", variant(op, 1, 0, dm), edges.clone()));
    }
    // V7: a chain, lane i's B is lane i - 1's A (lanes at A = 0x30 - 2 eb i, offset 2 eb bytes):
    // in ascending lane order each lane reads the value the lane before it just wrote.
    let mut chain = base_case(0b1111);
    for j in 0..5u32 {
        put(
            &mut chain,
            0x30 + 2 * eb - 2 * eb * j,
            eb,
            edge(elem, 0).1 + u64::from(j),
        );
    }
    for i in 0..4 {
        chain.wave.lanes[i].addr = 0x30 - 2 * eb * i as u32;
    }
    out.push(("chain_in_lane_order", variant(op, 2 * next, 0, dm), chain));
    // A4 for src2: four lanes on one A, B one element up.
    let mut same = base_case(0b1111);
    let (m, src) = edge(elem, 1);
    put(&mut same, 0x10, eb, m);
    put(&mut same, 0x10 + eb, eb, src);
    for l in same.wave.lanes.iter_mut().take(4) {
        l.addr = 0x10;
    }
    out.push(("same_address", variant(op, next, 0, dm), same));
    // A1: A in range with B past the end (reads 0), and A past the end (nothing written).
    let mut range = base_case(0b11);
    put(&mut range, 0x1f0, eb, edge(elem, 0).0);
    range.wave.lanes[0].addr = 0x1f0;
    range.wave.lanes[1].addr = 0x200;
    out.push(("b_or_a_out_of_range", variant(op, 0x10, 0, dm), range));
    out
}
