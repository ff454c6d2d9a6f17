//! The BVH stack ops: gfx11's `ds_bvh_stack_rtn_b32` and gfx12's push/pop forms, each under the
//! named readings [`Rules`] holds (ASSUMPTIONS.md B1-B7, B9; [`super::readings`]: B2's index
//! width, B3's and B7's step, B6's zero size, B9's pop-2 order).
//!
//! gfx11 (model: rocJITsu's RDNA3 path, ROCm/rocm-systems `emulation/rocjitsu`
//! `vm/amdgpu/lds_stack.cpp` at 6971edf; Mesa RADV `radv_build_bvh_stack_rtn_addr` for the address
//! and `bvh.h`'s `RADV_BVH_STACK_TERMINAL_NODE`): the stack base in dwords at ADDR\[31:18\], the
//! index below it (18 bits per RADV, 16 per rocJITsu: B2), entries 128 bytes apart, slot
//! `index % size` with the size from OFFSET1\[5:4\] (8, 16, 32, 64; the RDNA3 guide's field). The
//! first eligible child is returned directly and the other valid ones pushed from the last down;
//! with no eligible child the stack pops (decrement, read, invalidate), and an empty stack
//! (index 0) returns TERMINAL 0xfffffffe and leaves the index (B3).
//!
//! gfx12 (model: GPUOpen-Drivers/gpurt `src/shaders/rtip3_ds_stack_emulation.hlsl` at f734985,
//! its RTIP 3.0 path; with OFFSET1\[1\], the RDNA4 guide's primitive-range-enable flag, its RTIP
//! 3.1 primitive-range path): the packed stack address (bit 31 blas-to-tlas pop, 30 overflowed,
//! 29 TLAS in the stack, base in dwords at \[28:15\] as RADV shifts it, ring slot \[14:10\] with
//! slots 128 bytes apart, entries to the TLAS \[9:5\], valid entries \[4:0\]); the stack size from
//! OFFSET0\[4:0\] (the RDNA4 guide's `stack_size`), 0 read as GPURT's constant 16 (B6). DATA1 is
//! pushed from its last dword down, invalid nodes (`node >> 3 == 0x1fffffff`) skipped, their bits
//! 1 and 2 clearing the 0-3 and 4-7 groups, the pushes stopping at the last-visited node on a
//! walk-back; then `pop`, and for the pop-2 form `try_pop` or a triangle-1 expansion (B9).

use super::mem;
use super::readings::{BvhIndex, BvhPop2, BvhStep11, BvhStep12, BvhZeroSize, Rules};
use crate::wave::Lane;
use ds_isa::ds::Bvh;

/// The node pointer that marks an empty slot or an absent child.
pub const INVALID_NODE: u32 = 0xffff_ffff;
/// What a pop of an empty stack returns (RADV's `RADV_BVH_STACK_TERMINAL_NODE`; GPURT's
/// `TERMINAL_NODE`).
pub const TERMINAL_NODE: u32 = 0xffff_fffe;
/// Bytes between consecutive entries of one lane's stack (32 lanes' dwords interleaved).
pub const ENTRY_STRIDE: u32 = 128;
/// The node type of a node pointer (bits \[2:0\]) that marks an instance node.
const INSTANCE: u32 = 6;
/// The node type of the second triangle of a pair.
const TRIANGLE_1: u32 = 1;

/// The gfx11 stack size OFFSET1\[5:4\] selects: 8, 16, 32 or 64 entries.
pub fn gfx11_size(offset16: u16) -> u32 {
    8u32 << ((offset16 >> 12) & 3)
}

/// `ds_bvh_stack_rtn_b32` for one lane under `r`; returns (VDST\[0\], the new ADDR).
pub fn gfx11(offset16: u16, lane: &Lane, lds: &mut [u8], r: Rules) -> (u32, u32) {
    let bits = match r.bvh_index {
        BvhIndex::Bits18 => 18,
        BvhIndex::Bits16 => 16,
    };
    let mask = (1u32 << bits) - 1;
    let size = gfx11_size(offset16);
    let base = (lane.addr >> 18) * 4;
    let slot = |index: u32| base.wrapping_add((index % size) * ENTRY_STRIDE);
    let mut index = lane.addr & mask;
    let (last, data) = (lane.data0[0], &lane.data1[..4]);
    let ret = match r.bvh_step11 {
        BvhStep11::FirstChild => {
            let walkback = last != INVALID_NODE;
            let found = !walkback || data.contains(&last);
            let after = match data.iter().rposition(|&d| d == last) {
                Some(k) if walkback => k + 1,
                _ => 0,
            };
            let first = (after..4)
                .filter(|_| found)
                .find(|&k| data[k] != INVALID_NODE);
            if let Some(f) = first {
                for &d in data[f + 1..].iter().rev() {
                    if d != INVALID_NODE {
                        mem::write_u32(lds, slot(index), d);
                        index = (index + 1) & mask;
                    }
                }
                data[f]
            } else if index != 0 {
                index -= 1;
                let v = mem::read_u32(lds, slot(index));
                mem::write_u32(lds, slot(index), INVALID_NODE);
                v
            } else {
                TERMINAL_NODE
            }
        }
        BvhStep11::Guide => {
            let valid = |d: u32| d != INVALID_NODE && !(last != INVALID_NODE && d == last);
            for &d in &data[..3] {
                if valid(d) {
                    mem::write_u32(lds, slot(index), d);
                    index = (index + 1) & mask;
                } else if d == last {
                    break;
                }
            }
            if valid(data[3]) {
                data[3]
            } else {
                index = index.wrapping_sub(1) & mask;
                let v = mem::read_u32(lds, slot(index));
                mem::write_u32(lds, slot(index), INVALID_NODE);
                v
            }
        }
    };
    (ret, (lane.addr & !mask) | index)
}

/// The gfx12 stack size OFFSET0\[4:0\] gives; 0 read by B6's reading in `r` (the model's: GPURT's
/// 16).
pub fn gfx12_size(offset16: u16, r: Rules) -> u32 {
    match (offset16 & 31, r.bvh_zero_size) {
        (0, BvhZeroSize::Sixteen) => 16,
        (0, BvhZeroSize::ThirtyTwo) => 32,
        (n, _) => u32::from(n),
    }
}

/// OFFSET1\[0\]: the RDNA4 guide's triangle-pair ("triangle size") optimisation flag.
pub fn triangle_pair_flag(offset16: u16) -> bool {
    offset16 >> 8 & 1 == 1
}

/// OFFSET1\[1\]: the RDNA4 guide's primitive-range enable flag.
pub fn primitive_range_flag(offset16: u16) -> bool {
    offset16 >> 9 & 1 == 1
}

/// A node pointer with no node (`node >> 3 == 0x1fffffff`: 0xfffffff8..=0xffffffff).
fn invalid(node: u32) -> bool {
    node >> 3 == 0x1fff_ffff
}

/// A primitive (triangle) node: types 0..=3.
fn primitive(node: u32) -> bool {
    node & 7 <= 3
}

/// One lane's gfx12 stack, unpacked (GPURT's `StackAddr`).
struct Stack<'a> {
    lds: &'a mut [u8],
    size: u32,
    tlas_pop: bool,
    overflowed: bool,
    has_tlas: bool,
    /// Byte address of slot 0.
    base: u32,
    ring: u32,
    to_tlas: u32,
    valid: u32,
}

impl Stack<'_> {
    fn unpack(addr: u32, size: u32, lds: &mut [u8]) -> Stack<'_> {
        Stack {
            lds,
            size,
            tlas_pop: addr >> 31 & 1 == 1,
            overflowed: addr >> 30 & 1 == 1,
            has_tlas: addr >> 29 & 1 == 1,
            base: (addr >> 15 & 0x3fff) * 4,
            ring: addr >> 10 & 31,
            to_tlas: addr >> 5 & 31,
            valid: addr & 31,
        }
    }

    fn pack(&self) -> u32 {
        u32::from(self.tlas_pop) << 31
            | u32::from(self.overflowed) << 30
            | u32::from(self.has_tlas) << 29
            | ((self.base / 4) & 0x3fff) << 15
            | (self.ring & 31) << 10
            | (self.to_tlas & 31) << 5
            | self.valid & 31
    }

    fn slot(&self, ring: u32) -> u32 {
        self.base.wrapping_add(ring.wrapping_mul(ENTRY_STRIDE))
    }

    fn push(&mut self, node: u32) {
        if self.valid == self.size {
            self.overflowed = true;
        }
        mem::write_u32(self.lds, self.slot(self.ring), node);
        self.ring = if self.ring == self.size - 1 {
            0
        } else {
            self.ring + 1
        };
        if self.to_tlas == self.size {
            self.has_tlas = false;
        }
        self.to_tlas = (self.to_tlas + 1).min(self.size);
        self.valid = (self.valid + 1).min(self.size);
    }

    fn below(&self) -> u32 {
        if self.ring == 0 {
            self.size - 1
        } else {
            self.ring - 1
        }
    }

    fn pop(&mut self) -> u32 {
        self.tlas_pop = self.to_tlas == 0 && self.has_tlas;
        if self.tlas_pop {
            self.has_tlas = false;
        }
        if self.valid == 0 {
            self.tlas_pop = false;
            self.has_tlas = false;
            return if self.overflowed {
                INVALID_NODE
            } else {
                TERMINAL_NODE
            };
        }
        self.to_tlas = self.to_tlas.saturating_sub(1);
        self.valid -= 1;
        self.ring = self.below();
        // Read, not invalidated.
        let node = mem::read_u32(self.lds, self.slot(self.ring));
        if node & 7 == INSTANCE {
            if self.has_tlas {
                self.valid = self.to_tlas;
                self.overflowed = true;
            }
            self.has_tlas = true;
            self.to_tlas = 0;
        }
        node
    }

    fn try_pop(&mut self) -> u32 {
        if (self.to_tlas == 0 && self.has_tlas) || self.valid == 0 {
            return INVALID_NODE;
        }
        let ring = self.below();
        let node = mem::read_u32(self.lds, self.slot(ring));
        if node & 7 == INSTANCE {
            return INVALID_NODE;
        }
        self.ring = ring;
        self.to_tlas = self.to_tlas.saturating_sub(1);
        self.valid -= 1;
        node
    }
}

/// GPURT's `update_primitive_range`: the next primitive range of a node (`end_of_node`: the next
/// 128-byte node; else the next triangle of a pair, triangle type 3 becoming 8).
fn next_primitive_range(node: u32, end_of_node: bool) -> u32 {
    if end_of_node {
        (node & !0xf).wrapping_add(0x10)
    } else if node & 0xf == 3 {
        node ^ 0xb
    } else {
        node.wrapping_add(1)
    }
}

/// The pushes of GPURT's `ds_stack_push8_impl` over `data` (8 dwords; 4 for rocJITsu's push4),
/// last dword first; `prim_range` selects its RTIP 3.1 path.
fn push_all(s: &mut Stack<'_>, last: u32, data: &[u32], prim_range: bool) {
    let walkback = !invalid(last);
    let matches = |n: u32| n == last || (prim_range && primitive(n));
    let mut data_valid = !walkback || data.iter().any(|&n| matches(n));
    // A primitive-range update applies to the 8-dword forms (rocJITsu: `count == 8`).
    let update = prim_range && !walkback && last & 4 == 0 && data.len() == 8;
    if prim_range {
        let range_end = !walkback && last & 4 == 0 && last & 2 != 0;
        data_valid = (data_valid || primitive(last)) && !range_end;
    }
    let (mut skip_lo, mut skip_hi) = (false, false);
    for i in (0..data.len()).rev() {
        let mut node = data[i];
        let high = i >= 4;
        let skipped = if high { skip_hi } else { skip_lo };
        if invalid(node) && data_valid && !skipped {
            skip_lo |= node & 2 == 0;
            if high {
                skip_hi |= node & 4 == 0;
            }
        }
        if update && i == 6 {
            // After the updated dword 7, nothing else is pushed.
            (skip_lo, skip_hi) = (true, true);
        }
        if walkback && matches(node) {
            data_valid = false;
        }
        let skipped = if high { skip_hi } else { skip_lo };
        if data_valid && !invalid(node) && !skipped {
            if update && i == 7 {
                node = next_primitive_range(node, last & 1 == 1);
            }
            s.push(node);
        }
    }
}

/// What one lane of a gfx12 BVH push/pop leaves in its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BvhOut {
    /// VDST: the returned node, and for the pop-2 form the second one.
    pub ret: [u32; 2],
    /// The updated stack address written back to ADDR.
    pub addr: u32,
}

/// One lane of a gfx12 BVH push/pop under `r`: `data` is DATA1 (`form.data_dwords()` dwords),
/// `last` the last-visited node pointer (DATA0), `offset16` the instruction's offsets.
pub fn gfx12(
    form: Bvh,
    offset16: u16,
    stack: u32,
    last: u32,
    data: &[u32],
    lds: &mut [u8],
    r: Rules,
) -> BvhOut {
    let n = form.data_dwords();
    assert!(data.len() >= n, "{form:?} reads {n} dwords of DATA1");
    let data = &data[..n];
    if r.bvh_step12 == BvhStep12::Guide {
        return guide(form, stack, last, data, lds);
    }
    let mut s = Stack::unpack(stack, gfx12_size(offset16, r), lds);
    let prim_range = primitive_range_flag(offset16);
    if form == Bvh::Push4Pop1 && r.bvh_step12 == BvhStep12::Gpurt {
        // push4 as push8 whose upper four dwords are the invalid node (GPURT has no push4).
        let mut eight = [INVALID_NODE; 8];
        eight[..4].copy_from_slice(data);
        push_all(&mut s, last, &eight, prim_range);
    } else {
        push_all(&mut s, last, data, prim_range);
    }
    let first = s.pop();
    let ret = if form != Bvh::Push8Pop2 {
        [first, INVALID_NODE]
    } else {
        let expand = first & 7 == TRIANGLE_1
            && (r.bvh_pop2 == BvhPop2::TryPopLow || triangle_pair_flag(offset16));
        match (r.bvh_pop2, expand) {
            (BvhPop2::TryPopLow, true) => [first & !7, first],
            (BvhPop2::FirstPopLow, true) => [first, first & !7],
            (BvhPop2::TryPopLow, false) => match s.try_pop() {
                INVALID_NODE => [first, INVALID_NODE],
                second => [second, first],
            },
            (BvhPop2::FirstPopLow, false) => [first, s.try_pop()],
        }
    };
    BvhOut {
        ret,
        addr: s.pack(),
    }
}

/// Bits of the stack index under the guide reading (RADV's gfx12 base shift of 15).
const GUIDE_INDEX_BITS: u32 = 15;
const GUIDE_INDEX_MASK: u32 = (1 << GUIDE_INDEX_BITS) - 1;

/// The RDNA4 guide's pseudocode as the model read it before (B7 `guide pseudocode`): pushes the
/// valid candidates among all but the last dword in order (stopping at the last-visited node),
/// then returns the last dword if valid or pops (decrement, read, invalidate); the pop-2 form
/// then pops again if the next entry is valid. No ring, no size.
fn guide(form: Bvh, stack: u32, last: u32, data: &[u32], lds: &mut [u8]) -> BvhOut {
    let n = data.len();
    let base = (stack >> GUIDE_INDEX_BITS) * 4;
    let mut index = stack & GUIDE_INDEX_MASK;
    let slot = |index: u32| base.wrapping_add(index * ENTRY_STRIDE);
    let valid = |d: u32| d != INVALID_NODE && !(last != INVALID_NODE && d == last);
    for &d in &data[..n - 1] {
        if valid(d) {
            mem::write_u32(lds, slot(index), d);
            index = (index + 1) & GUIDE_INDEX_MASK;
        } else if d == last {
            break;
        }
    }
    let mut ret = [INVALID_NODE; 2];
    if valid(data[n - 1]) {
        ret[0] = data[n - 1];
    } else {
        index = index.wrapping_sub(1) & GUIDE_INDEX_MASK;
        ret[0] = mem::read_u32(lds, slot(index));
        mem::write_u32(lds, slot(index), INVALID_NODE);
    }
    if form == Bvh::Push8Pop2 {
        let below = index.wrapping_sub(1) & GUIDE_INDEX_MASK;
        let next = mem::read_u32(lds, slot(below));
        if valid(next) {
            ret[1] = next;
            mem::write_u32(lds, slot(below), INVALID_NODE);
            index = below;
        }
    }
    BvhOut {
        ret,
        addr: (stack & !GUIDE_INDEX_MASK) | index,
    }
}

#[cfg(test)]
#[path = "bvh_tests.rs"]
mod tests;
