//! The BVH stack rules, one test each, by the numbers of GPURT's and rocJITsu's code paths.

use super::*;
use crate::model::readings::{BvhIndex, BvhPop2, BvhStep11, BvhStep12, BvhZeroSize, Rules};

const M: Rules = Rules::MODEL;
const INV: u32 = INVALID_NODE;

fn lane(addr: u32, last: u32, d: [u32; 4]) -> Lane {
    let mut l = Lane {
        addr,
        ..Lane::default()
    };
    l.data0[0] = last;
    l.data1[..4].copy_from_slice(&d);
    l
}

/// gfx11: a stack at byte 0x100 (base 0x40 dwords at ADDR[31:18]).
fn g11(index: u32) -> u32 {
    0x40 << 18 | index
}

fn slot11(lds: &[u8], k: u32) -> u32 {
    mem::read_u32(lds, 0x100 + 128 * k)
}

#[test]
fn gfx11_returns_the_first_child_and_pushes_the_rest_last_first() {
    let mut lds = vec![0u8; 8192];
    let (ret, addr) = gfx11(0, &lane(g11(0), INV, [1, 2, INV, 4]), &mut lds, M);
    assert_eq!(ret, 1);
    assert_eq!(addr, g11(2));
    assert_eq!([slot11(&lds, 0), slot11(&lds, 1)], [4, 2]);
}

#[test]
fn gfx11_walk_back_takes_the_children_after_the_last_visited_node() {
    let mut lds = vec![0u8; 8192];
    let (ret, addr) = gfx11(0, &lane(g11(0), 2, [1, 2, 3, 4]), &mut lds, M);
    assert_eq!((ret, addr), (3, g11(1)));
    assert_eq!(slot11(&lds, 0), 4);
    // The last-visited node absent from DATA1 (RADV's TERMINAL as last: push nothing): a pop.
    mem::write_u32(&mut lds, 0x100, 0x77);
    let (ret, addr) = gfx11(0, &lane(g11(1), TERMINAL_NODE, [1, 2, 3, 4]), &mut lds, M);
    assert_eq!((ret, addr), (0x77, g11(0)));
    assert_eq!(slot11(&lds, 0), INV, "a gfx11 pop invalidates its slot");
}

#[test]
fn gfx11_empty_pop_returns_terminal_and_keeps_the_index() {
    let mut lds = vec![0u8; 8192];
    let (ret, addr) = gfx11(0, &lane(g11(0), INV, [INV; 4]), &mut lds, M);
    assert_eq!((ret, addr), (TERMINAL_NODE, g11(0)));
    assert!(lds.iter().all(|&b| b == 0), "nothing written");
}

#[test]
fn gfx11_index_width_readings_differ_only_past_bit_15() {
    let r16 = Rules {
        bvh_index: BvhIndex::Bits16,
        ..M
    };
    // ADDR[15:0] = 0 with bit 16 set: 18 bits pop entry 0xffff % 8 = 7; 16 bits are empty.
    let l = lane(g11(0x1_0000), INV, [INV; 4]);
    let mut lds = vec![0u8; 8192];
    mem::write_u32(&mut lds, 0x100 + 7 * 128, 0x99);
    let mut lds16 = lds.clone();
    assert_eq!(gfx11(0, &l, &mut lds, M), (0x99, g11(0xffff)));
    assert_eq!(
        gfx11(0, &l, &mut lds16, r16),
        (TERMINAL_NODE, g11(0x1_0000))
    );
    // A push at index 0xffff carries into bit 16 with 18 bits and wraps to 0 with 16.
    let l = lane(g11(0xffff), INV, [1, 2, INV, INV]);
    assert_eq!(gfx11(0, &l, &mut lds, M).1, g11(0x1_0000));
    assert_eq!(gfx11(0, &l, &mut lds, r16).1, g11(0));
}

#[test]
fn gfx11_guide_reading_is_the_pseudocode() {
    let guide = Rules {
        bvh_step11: BvhStep11::Guide,
        ..M
    };
    let mut lds = vec![0u8; 8192];
    let (ret, addr) = gfx11(0, &lane(g11(0), INV, [1, 2, INV, 4]), &mut lds, guide);
    assert_eq!((ret, addr), (4, g11(2)));
    assert_eq!([slot11(&lds, 0), slot11(&lds, 1)], [1, 2]);
    // Its empty pop wraps to the top of the 18-bit index.
    let (_, addr) = gfx11(0, &lane(g11(0), INV, [INV; 4]), &mut lds, guide);
    assert_eq!(addr, g11(0x3ffff));
}

/// gfx12: a packed stack at byte 0x100 (base 0x40 dwords at [28:15]).
fn packed(ring: u32, to_tlas: u32, valid: u32, flags: u32) -> u32 {
    flags << 29 | 0x40 << 15 | ring << 10 | to_tlas << 5 | valid
}

fn slot12(lds: &[u8], k: u32) -> u32 {
    mem::read_u32(lds, 0x100 + 128 * k)
}

/// OFFSET0 = 16 entries, OFFSET1 clear.
const SIZE16: u16 = 16;

fn run12(form: Bvh, off: u16, addr: u32, last: u32, d: &[u32], lds: &mut [u8]) -> BvhOut {
    gfx12(form, off, addr, last, d, lds, M)
}

#[test]
fn gfx12_push8_pushes_from_the_last_dword_down_and_pops_the_first() {
    let mut lds = vec![0u8; 8192];
    let d = [10, 11, 12, 13, 14, 15, 16, 17];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    // Eight pushes (17 first, 10 last), then 10 popped: ring 7, 7 valid.
    assert_eq!(out.ret[0], 10);
    assert_eq!(out.addr, packed(7, 7, 7, 0));
    assert_eq!(slot12(&lds, 0), 17);
    assert_eq!(
        slot12(&lds, 7),
        10,
        "a gfx12 pop does not invalidate its slot"
    );
}

#[test]
fn gfx12_stack_size_is_offset0_and_zero_reads_as_16() {
    assert_eq!(gfx12_size(0, M), 16);
    assert_eq!(gfx12_size(4, M), 4);
    assert_eq!(gfx12_size(0x0305, M), 5, "OFFSET1 is not the size");
    // B6's other reading: a zero field encodes 32; a nonzero one is the size under both.
    let r32 = Rules {
        bvh_zero_size: BvhZeroSize::ThirtyTwo,
        ..M
    };
    assert_eq!((gfx12_size(0, r32), gfx12_size(4, r32)), (32, 4));
    // Size 4, pushing 6: the ring wraps, the counts saturate and the stack overflows.
    let mut lds = vec![0u8; 8192];
    let d = [1, 2, 3, 4, 5, 6, INV, INV];
    let out = run12(Bvh::Push8Pop1, 4, packed(0, 0, 0, 0), INV, &d, &mut lds);
    assert_eq!(out.ret[0], 1);
    // Overflowed (bit 30), ring (6 pushes mod 4 = 2) - 1 = 1, 3 valid after the pop.
    assert_eq!(out.addr, packed(1, 3, 3, 0b010));
    assert_eq!([slot12(&lds, 0), slot12(&lds, 1)], [2, 1]);
}

#[test]
fn gfx12_empty_pop_is_terminal_or_invalid_after_an_overflow() {
    let mut lds = vec![0u8; 8192];
    let none = [INV; 8];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(3, 0, 0, 0),
        INV,
        &none,
        &mut lds,
    );
    assert_eq!(out.ret[0], TERMINAL_NODE);
    assert_eq!(out.addr, packed(3, 0, 0, 0));
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(3, 0, 0, 0b110),
        INV,
        &none,
        &mut lds,
    );
    assert_eq!(out.ret[0], INV);
    // The empty pop clears the TLAS flags and keeps the overflow.
    assert_eq!(out.addr, packed(3, 0, 0, 0b010));
}

#[test]
fn gfx12_invalid_nodes_carry_the_skip_flags() {
    let mut lds = vec![0u8; 8192];
    // Dword 7 is SKIP_0_3 (bit 1 clear): dwords 6..4 are pushed, 3..0 are not.
    let d = [1, 2, 3, 4, 5, 6, 7, 0xffff_fffd];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret[0], 5);
    assert_eq!(out.addr, packed(2, 2, 2, 0));
    // SKIP_4_7 (bit 2 clear) in dword 6 stops 5 and 4 but not the lower group.
    let d = [1, 2, 3, 4, 5, 6, 0xffff_fffb, 8];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!((out.ret[0], out.addr), (1, packed(4, 4, 4, 0)));
    assert_eq!(slot12(&lds, 0), 8);
    assert_eq!(slot12(&lds, 1), 4);
}

#[test]
fn gfx12_walk_back_pushes_only_after_the_last_visited_node() {
    let mut lds = vec![0u8; 8192];
    // Last visited 0x28 (dword 3): dwords 7..4 pushed, then 0x28 stops the rest.
    let d = [0x10, 0x18, 0x20, 0x28, 0x30, 0x38, 0x40, 0x48];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(0, 0, 0, 0),
        0x28,
        &d,
        &mut lds,
    );
    assert_eq!((out.ret[0], out.addr), (0x30, packed(3, 3, 3, 0)));
    // A last-visited node that is not among DATA1: nothing pushed, a pop of the empty stack.
    let out = run12(Bvh::Push8Pop1, SIZE16, packed(0, 0, 0, 0), 99, &d, &mut lds);
    assert_eq!(out.ret[0], TERMINAL_NODE);
}

#[test]
fn gfx12_an_instance_node_resets_the_tlas_tracking() {
    let mut lds = vec![0u8; 8192];
    mem::write_u32(&mut lds, 0x100 + 128, 0x46); // slot 1: an instance node (type 6)
    let none = [INV; 8];
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(2, 2, 2, 0),
        INV,
        &none,
        &mut lds,
    );
    assert_eq!(out.ret[0], 0x46);
    // has-TLAS set, entries to the TLAS 0, one valid entry left.
    assert_eq!(out.addr, packed(1, 0, 1, 0b001));
    // The next pop crosses to the TLAS: blas-to-tlas flag, has-TLAS cleared.
    mem::write_u32(&mut lds, 0x100, 0x55);
    let out = run12(Bvh::Push8Pop1, SIZE16, out.addr, INV, &none, &mut lds);
    assert_eq!((out.ret[0], out.addr), (0x55, packed(0, 0, 0, 0b100)));
    // An instance popped while a TLAS is tracked drops the entries past it and overflows.
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(2, 1, 2, 0b001),
        INV,
        &none,
        &mut lds,
    );
    assert_eq!((out.ret[0], out.addr), (0x46, packed(1, 0, 0, 0b011)));
}

#[test]
fn gfx12_pop2_returns_try_pop_low_and_expands_a_triangle_1() {
    let mut lds = vec![0u8; 8192];
    let d = [0x20, 0x30, INV, INV, INV, INV, INV, INV];
    let out = run12(
        Bvh::Push8Pop2,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!(
        out.ret,
        [0x30, 0x20],
        "VDST[0] the try_pop value, VDST[1] the first pop"
    );
    assert_eq!(out.addr, packed(0, 0, 0, 0));
    // One entry: try_pop fails, the first pop moves low.
    let d = [0x20, INV, INV, INV, INV, INV, INV, INV];
    let out = run12(
        Bvh::Push8Pop2,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret, [0x20, INV]);
    // A triangle-1 node on top expands into triangle 0 and 1; nothing else pops.
    let d = [0x41, 0x30, INV, INV, INV, INV, INV, INV];
    let out = run12(
        Bvh::Push8Pop2,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret, [0x40, 0x41]);
    assert_eq!(out.addr, packed(1, 1, 1, 0));
    // try_pop stops at an instance node.
    let d = [0x20, 0x46, INV, INV, INV, INV, INV, INV];
    let out = run12(
        Bvh::Push8Pop2,
        SIZE16,
        packed(0, 0, 0, 0),
        INV,
        &d,
        &mut lds,
    );
    assert_eq!((out.ret, out.addr), ([0x20, INV], packed(1, 1, 1, 0)));
    // rocJITsu's reading: the first pop low, the triangle expansion only with OFFSET1[0].
    let roc = Rules {
        bvh_pop2: BvhPop2::FirstPopLow,
        ..M
    };
    let d = [0x41, 0x30, INV, INV, INV, INV, INV, INV];
    let at = packed(0, 0, 0, 0);
    assert_eq!(
        gfx12(Bvh::Push8Pop2, SIZE16, at, INV, &d, &mut lds, roc).ret,
        [0x41, 0x30]
    );
    let flagged = SIZE16 | 1 << 8;
    assert_eq!(
        gfx12(Bvh::Push8Pop2, flagged, at, INV, &d, &mut lds, roc).ret,
        [0x41, 0x40]
    );
}

#[test]
fn gfx12_push4_is_push8_with_invalid_upper_dwords() {
    let mut a = vec![0u8; 8192];
    let mut b = a.clone();
    let at = packed(0, 0, 0, 0);
    let four = run12(Bvh::Push4Pop1, SIZE16, at, INV, &[1, 2, 3, 4], &mut a);
    let eight = run12(
        Bvh::Push8Pop1,
        SIZE16,
        at,
        INV,
        &[1, 2, 3, 4, INV, INV, INV, INV],
        &mut b,
    );
    assert_eq!((four, &a), (eight, &b));
    assert_eq!(four.ret[0], 1);
}

#[test]
fn gfx12_primitive_range_flag_takes_gpurts_rtip31_path() {
    let prim = SIZE16 | 1 << 9;
    let mut lds = vec![0u8; 8192];
    // A primitive-range update (last = 0xfffffff8: END_OF_PAIR): dword 7 (a triangle-3 node)
    // becomes triangle 8 and nothing else is pushed.
    let d = [0x50, 0x60, INV, INV, INV, INV, INV, 0x103];
    let out = run12(
        Bvh::Push8Pop1,
        prim,
        packed(0, 0, 0, 0),
        0xffff_fff8,
        &d,
        &mut lds,
    );
    assert_eq!((out.ret[0], out.addr), (0x108, packed(0, 0, 0, 0)));
    // END_OF_NODE (bit 0): the next 128-byte node.
    let out = run12(
        Bvh::Push8Pop1,
        prim,
        packed(0, 0, 0, 0),
        0xffff_fff9,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret[0], 0x110);
    // END_OF_RANGE (bit 1): nothing pushed.
    let out = run12(
        Bvh::Push8Pop1,
        prim,
        packed(0, 0, 0, 0),
        0xffff_fffa,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret[0], TERMINAL_NODE);
    // Without the flag the same pushes are plain (0x50 popped).
    let out = run12(
        Bvh::Push8Pop1,
        SIZE16,
        packed(0, 0, 0, 0),
        0xffff_fff8,
        &d,
        &mut lds,
    );
    assert_eq!(out.ret[0], 0x50);
    // On a walk-back every primitive node counts as visited: the pushes stop at the first.
    let d = [0x50, 0x61, 0x74, INV, INV, INV, INV, 0x85];
    let out = run12(
        Bvh::Push8Pop1,
        prim,
        packed(0, 0, 0, 0),
        0x200,
        &d,
        &mut lds,
    );
    assert_eq!(
        (out.ret[0], out.addr),
        (0x74, packed(0, 0, 0, 0) | 1 << 10 | 1 << 5 | 1)
    );
    // rocJITsu's push4 skips the update: a plain push of its four dwords.
    let roc = Rules {
        bvh_step12: BvhStep12::RocjitsuPush4,
        ..M
    };
    let d4 = [0x50, 0x60, INV, 0x103];
    let out = gfx12(
        Bvh::Push4Pop1,
        prim,
        packed(0, 0, 0, 0),
        0xffff_fff8,
        &d4,
        &mut lds,
        roc,
    );
    assert_eq!(out.ret[0], 0x50);
    let out = run12(
        Bvh::Push4Pop1,
        prim,
        packed(0, 0, 0, 0),
        0xffff_fff8,
        &d4,
        &mut lds,
    );
    assert_eq!(
        out.ret[0], TERMINAL_NODE,
        "as push8, dword 7 is invalid: nothing pushed"
    );
}

#[test]
fn gfx12_guide_reading_is_the_pseudocode_on_base_and_index() {
    let guide = Rules {
        bvh_step12: BvhStep12::Guide,
        ..M
    };
    let mut lds = vec![0u8; 8192];
    let at = 0x20 << 15; // base 0x20 dwords: byte 0x80, index 0
    let out = gfx12(Bvh::Push4Pop1, 0, at, INV, &[1, 2, INV, 4], &mut lds, guide);
    assert_eq!(
        out,
        BvhOut {
            ret: [4, INV],
            addr: at | 2
        }
    );
    assert_eq!(mem::read_u32(&lds, 0x80 + 128), 2);
    let out = gfx12(Bvh::Push8Pop2, 0, at | 2, INV, &[INV; 8], &mut lds, guide);
    assert_eq!(
        out,
        BvhOut {
            ret: [2, 1],
            addr: at
        }
    );
    assert_eq!(
        mem::read_u32(&lds, 0x80),
        INV,
        "the guide reading invalidates"
    );
}
