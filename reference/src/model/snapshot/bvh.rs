//! The BVH stack ops' snapshot cases: one lane per rule of ASSUMPTIONS.md B1-B7 and B9, each on
//! its own stack (lane i's base is dword i + 1, so the lanes' slots interleave in 128-byte rows),
//! and the cases that settle the named readings (`model::readings`, ASSUMPTIONS.md B2-B9).
//! Deterministic.

use super::values::{base_case, variant};
use crate::model::bvh::{INVALID_NODE as INV, TERMINAL_NODE};
use crate::wave::{Case, FpMode, Lds, Variant, DATA1_DWORDS};
use ds_isa::ds::{Bvh, DsOp};

/// LDS of the BVH cases: room for 16 slots of 128 bytes.
const BVH_LDS: u32 = 2048;

/// Eight DATA1 dwords from up to eight given, the rest INVALID.
fn d8(words: &[u32]) -> [u32; DATA1_DWORDS] {
    let mut d = [INV; DATA1_DWORDS];
    d[..words.len()].copy_from_slice(words);
    d
}

/// A case whose lane i (of `lanes`) is (ADDR, last-visited node, DATA1), with `slots`
/// (byte, value) written beforehand.
fn stacks(lanes: &[(u32, u32, [u32; DATA1_DWORDS])], slots: &[(u32, u32)]) -> Case {
    let mut c = base_case((1u32 << lanes.len()) - 1);
    c.lds = Lds::zeroed(BVH_LDS);
    for (l, &(addr, last, d1)) in c.wave.lanes.iter_mut().zip(lanes) {
        (l.addr, l.data0[0], l.data1) = (addr, last, d1);
    }
    for &(at, v) in slots {
        c.lds.set_word(at, v);
    }
    c
}

/// gfx11's `ds_bvh_stack_rtn_b32` (base in dwords at ADDR[31:18]): `stack8` and `stack16` (the
/// size from OFFSET1[5:4]) and `two_lanes_one_stack`.
pub(super) fn gfx11_cases(op: DsOp) -> Vec<(String, Variant, Case)> {
    let dm = FpMode::default();
    let at = |lane: u32| (lane + 1) << 18;
    let slot = |lane: u32, k: u32| 4 * (lane + 1) + 128 * k;
    let c = stacks(
        &[
            // 0: the first child returned, 0x13 and 0x11 pushed (last first).
            (at(0), INV, d8(&[0x10, 0x11, INV, 0x13])),
            // 1: nothing to return: pops 0x2222 from slot 1 and invalidates it.
            (at(1) | 2, INV, d8(&[INV; 4])),
            // 2: walk-back past 0x21: 0x22 returned, nothing pushed.
            (at(2), 0x21, d8(&[0x20, 0x21, 0x22, INV])),
            // 3: index 8 lands on slot 0 of an 8-entry stack, slot 8 of a 16-entry one.
            (at(3) | 8, INV, d8(&[0x30, INV, INV, 0x33])),
            // 4: an empty stack: TERMINAL, the index kept (B3).
            (at(4), INV, d8(&[INV; 4])),
            // 5: ADDR[15:0] = 0 with bit 16 set: 18 index bits pop slot 0xffff % size, 16 bits
            // find the stack empty (B2).
            (at(5) | 0x1_0000, INV, d8(&[INV; 4])),
            // 6: a last-visited node not among DATA1 (RADV's TERMINAL): push nothing, pop.
            (at(6) | 1, TERMINAL_NODE, d8(&[1, 2, 3, 4])),
        ],
        &[
            (slot(1, 1), 0x2222),
            (slot(5, 7), 0x5555),
            (slot(5, 15), 0x5f5f),
            (slot(6, 0), 0x6666),
        ],
    );
    // Two lanes on one stack (not what a traversal does, but legal): lane 0 pops slot 0, lane 1
    // pushes over it; which ran first shows in what lane 0 got.
    let shared = stacks(
        &[
            (at(6) | 1, INV, d8(&[INV; 4])),
            (at(6), INV, d8(&[0x70, 0x71, INV, 0x73])),
        ],
        &[(slot(6, 0), 0x5f)],
    );
    vec![
        ("stack8".into(), variant(op, 0, 0, dm), c.clone()),
        ("stack16".into(), variant(op, 0, 0x10, dm), c),
        ("two_lanes_one_stack".into(), variant(op, 0, 0, dm), shared),
    ]
}

/// A gfx12 packed stack address: base dword `lane + 1`, ring slot, entries to the TLAS, valid
/// entries, flags (bit 0 TLAS in the stack, 1 overflowed, 2 blas-to-tlas pop).
fn packed(lane: u32, ring: u32, to_tlas: u32, valid: u32, flags: u32) -> u32 {
    flags << 29 | (lane + 1) << 15 | ring << 10 | to_tlas << 5 | valid
}

/// The gfx12 push/pop forms: `push_pop` (OFFSET0 = 16 entries, flags clear), the same with
/// OFFSET0 = 0 (read as 16, B6), `size4_overflow`, `primitive_range` (OFFSET1[1]) and, for the
/// pop-2 form, `triangle_pair` (OFFSET1[0]).
pub(super) fn gfx12_cases(op: DsOp, form: Bvh) -> Vec<(String, Variant, Case)> {
    let dm = FpMode::default();
    let n = form.data_dwords();
    // DATA1 of the form: the first `n` of eight dwords, the others zero.
    let fit = |w: &[u32]| {
        let mut d = d8(w);
        d[n..].fill(0);
        d
    };
    let slot = |lane: u32, k: u32| 4 * (lane + 1) + 128 * k;
    let c = stacks(
        &[
            // 0: pushes from the last dword down, pops the first (B7).
            (
                packed(0, 0, 0, 0, 0),
                INV,
                fit(&[0x10, 0x18, INV, 0x28, 0x30, INV, 0x38, 0x40]),
            ),
            // 1: nothing pushed: pops 0x2222 from slot 1, not invalidated.
            (packed(1, 2, 2, 2, 0), INV, fit(&[INV; 8])),
            // 2: walk-back: only what follows the last-visited 0x18 is pushed.
            (
                packed(2, 0, 0, 0, 0),
                0x18,
                fit(&[0x10, 0x18, 0x20, 0x28, 0x30]),
            ),
            // 3: an empty stack: TERMINAL.
            (packed(3, 3, 0, 0, 0), INV, fit(&[INV; 8])),
            // 4: an empty stack after an overflow: INVALID.
            (packed(4, 3, 0, 0, 0b010), INV, fit(&[INV; 8])),
            // 5: SKIP_0_3 in the last dword: the lower group is not pushed.
            (
                packed(5, 0, 0, 0, 0),
                INV,
                fit(&[0x10, 0x18, 0x20, 0xffff_fffd, 0x30, 0x38, 0x40, 0xffff_fffd]),
            ),
            // 6: an instance node popped: TLAS tracking starts.
            (packed(6, 1, 1, 1, 0), INV, fit(&[INV; 8])),
            // 7: ring slot 15 of 16 wraps to 0 (a 32-entry reading would use slot 16).
            (packed(7, 15, 0, 0, 0), INV, fit(&[0x50, 0x58])),
            // 8: a triangle-1 node on top (the pop-2 form expands it, GPURT: B9).
            (packed(8, 0, 0, 0, 0), INV, fit(&[0x61, 0x68])),
        ],
        &[(slot(1, 1), 0x2222), (slot(6, 0), 0x46)],
    );
    let mut out = vec![
        ("push_pop".into(), variant(op, 16, 0, dm), c.clone()),
        ("size_field_zero".into(), variant(op, 0, 0, dm), c.clone()),
        ("triangle_pair".into(), variant(op, 16, 1, dm), c),
    ];
    // A full 4-entry stack pushed once more: overflowed, the oldest slot overwritten.
    let full = stacks(
        &[(packed(0, 0, 4, 4, 0), INV, fit(&[0x10, 0x18]))],
        &[(slot(0, 0), 0x70), (slot(0, 3), 0x78)],
    );
    out.push(("size4_overflow".into(), variant(op, 4, 0, dm), full));
    // OFFSET1[1]: GPURT's RTIP 3.1 primitive-range path.
    let prim = stacks(
        &[
            // 0: END_OF_PAIR (0xfffffff8): dword 7, a triangle-3 node, becomes triangle 8 and
            // is the only push (push4: dword 7 is INVALID, nothing is pushed).
            (
                packed(0, 0, 0, 0, 0),
                0xffff_fff8,
                fit(&[0x50, 0x58, INV, 0x60, INV, INV, INV, 0x103]),
            ),
            // 1: END_OF_RANGE (0xfffffffa): nothing pushed.
            (
                packed(1, 0, 0, 0, 0),
                0xffff_fffa,
                fit(&[0x50, 0x58, INV, 0x60]),
            ),
            // 2: walk-back: every primitive node counts as visited.
            (packed(2, 0, 0, 0, 0), 0x200, fit(&[0x50, 0x61, 0x74, 0x85])),
        ],
        &[],
    );
    out.push(("primitive_range".into(), variant(op, 16, 2, dm), prim));
    if form != Bvh::Push8Pop2 {
        out.retain(|(name, _, _)| name != "triangle_pair");
    }
    out
}
