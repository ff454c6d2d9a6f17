//! The BVH stack ops' random cases: stacks a traversal could hold, not random bits. Each lane's
//! stack starts at its own dword (RADV's `radv_build_bvh_stack_rtn_addr`: one stack per work-item,
//! entries 128 bytes apart), a few lanes share lane 0's; the stack index (gfx11) or the packed
//! ring slot and counts (gfx12, GPURT's `rtip3_ds_stack_emulation.hlsl`) are random within the
//! stack's size; DATA1 mixes node pointers, the invalid node and gfx12's skip values; DATA0 (the
//! last-visited node) is the invalid node, one of DATA1, a node that is not there, or on gfx12
//! one of the primitive-range control values; LDS slots hold node pointers, instance nodes among
//! them. ASSUMPTIONS.md B1-B9 say which rules these exercise.

use super::SplitMix64;
use ds_isa::ds::Family;
use ds_reference::model::bvh::{gfx11_size, gfx12_size, INVALID_NODE, TERMINAL_NODE};
use ds_reference::model::readings::Rules;
use ds_reference::wave::{Lds, Variant, Wave};

/// A node pointer: a random 64-byte-aligned address with a node type 0..=7 in bits [2:0].
fn node(rng: &mut SplitMix64) -> u32 {
    (rng.next_u32() & 0x00ff_fff8) | rng.below(8)
}

/// A DATA1 dword: mostly nodes, then the invalid node, then gfx12's skip values.
fn child(rng: &mut SplitMix64, gfx12: bool) -> u32 {
    match rng.below(10) {
        0..=4 => node(rng),
        5..=7 => INVALID_NODE,
        _ if gfx12 => rng.pick(&[0xffff_fffd, 0xffff_fffb, 0xffff_fff9]),
        _ => INVALID_NODE,
    }
}

/// Shapes every lane of `wave` (and the LDS slots) into a BVH stack of `v`'s op.
pub(super) fn shape(v: &Variant, wave: &mut Wave, lds: &mut Lds, rng: &mut SplitMix64) {
    let info = v.op.info();
    let offset16 = v.inst().offset16();
    let (gfx12, size, n) = match info.family {
        Family::BvhStack => (false, gfx11_size(offset16), 4),
        Family::BvhPushPop(form) => (true, gfx12_size(offset16, Rules::MODEL), form.data_dwords()),
        _ => return,
    };
    let rows = lds.size() / 128;
    for at in (0..lds.size()).step_by(4) {
        if rng.below(2) == 0 {
            lds.set_word(at, node(rng));
        }
    }
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        // Own stack (base dword i + 1), or one lane in eight on lane 0's.
        let base = if rng.below(8) == 0 { 1 } else { i as u32 + 1 };
        l.addr = if gfx12 {
            let valid = rng.below(size.min(31) + 1);
            let to_tlas = rng.below(valid + 1);
            let ring = rng.below(size.min(rows).max(1));
            let flags = if rng.below(4) == 0 { rng.below(8) } else { 0 };
            flags << 29 | base << 15 | ring << 10 | to_tlas << 5 | valid
        } else {
            // Index within two rounds of the ring; now and then bits [17:16] set (B2).
            let high = if rng.below(8) == 0 {
                rng.below(4) << 16
            } else {
                0
            };
            base << 18 | high | rng.below(2 * size)
        };
        for k in 0..n {
            l.data1[k] = child(rng, gfx12);
        }
        l.data1[n..].fill(0);
        l.data0[0] = match rng.below(8) {
            0..=3 => INVALID_NODE,
            4 | 5 => l.data1[rng.below(n as u32) as usize],
            6 if gfx12 => 0xffff_fff8 | rng.below(4),
            6 => TERMINAL_NODE,
            _ => node(rng),
        };
    }
}
