//! The DS ops with their own shapes: `ds_append` / `ds_consume` (once per wave),
//! `ds_condxchg32_rtn_b64` and `ds_bvh_stack_rtn_b32`.
//!
//! Sources: RDNA3 ISA guide, chapter "Instructions": `DS_APPEND`/`DS_CONSUME` (address from M0's
//! base plus the offset, add or subtract the count of valid lanes, the old value returned to every
//! valid lane), `DS_CONDXCHG32_RTN_B64` (address `(ADDR + offset) & 0xfff8`, each half written with
//! bit 31 cleared when its bit 31 is set, both old halves returned), `DS_BVH_STACK_RTN_B32` and the
//! "BVH stack" section (stack size from OFFSET1[5:4]); Mesa RADV `radv_build_bvh_stack_rtn_addr`
//! (gfx11 stack address: base in dwords at [31:18], index at [17:0], entries 128 bytes apart) and
//! `RADV_BVH_INVALID_NODE` (0xffffffff). What the guide's undefined helpers leave open is listed in
//! ASSUMPTIONS.md B1-B4. The gfx12 push/pop forms follow the RDNA4 ISA guide, section 16.15
//! (`DS_BVH_STACK_PUSH4_POP1_RTN_B32` ... `DS_BVH_STACK_PUSH8_POP2_RTN_B64`) and RADV's gfx12 stack
//! address (base shifted by 15 instead of 18); ASSUMPTIONS.md B5-B8.

use super::{mem, Plan};
use crate::wave::{Lane, Wave};
use ds_isa::ds::{Bvh, Family};

/// `ds_append` / `ds_consume`: one update of the dword at `M0[15:0] + offset` by the number of
/// active lanes; every active lane gets the value before it.
pub fn append_consume(plan: &Plan, wave: &Wave, lds: &mut [u8], vdst: &mut [[u32; 4]]) {
    append_consume_lanes(plan, wave.exec, wave.m0, lds, vdst)
}

/// [`append_consume`] over a wave of any size: the count is the popcount of the whole (64-bit)
/// EXEC, one update for the wave (ASSUMPTIONS.md W5).
pub fn append_consume_lanes(
    plan: &Plan,
    exec: u64,
    m0: u32,
    lds: &mut [u8],
    vdst: &mut [[u32; 4]],
) {
    let at = (m0 & 0xffff).wrapping_add(u32::from(plan.offset16));
    let old = mem::read_u32(lds, at);
    let n = exec.count_ones();
    let new = if plan.info.family == Family::Append {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    if n > 0 {
        mem::write_u32(lds, at, new);
    }
    for (i, d) in vdst.iter_mut().enumerate() {
        if exec >> i & 1 == 1 {
            d[0] = old;
        }
    }
}

/// `ds_condxchg32_rtn_b64` for one lane; `at` is `ADDR + offset`.
pub fn condxchg32(at: u32, lane: &Lane, lds: &mut [u8], vdst: &mut [u32; 4]) {
    let a0 = at & 0xfff8;
    for (half, (ret, &d)) in vdst.iter_mut().zip(&lane.data0).take(2).enumerate() {
        let a = a0 + 4 * half as u32;
        *ret = mem::read_u32(lds, a);
        if d & 0x8000_0000 != 0 {
            mem::write_u32(lds, a, d & 0x7fff_ffff);
        }
    }
}

/// The node pointer that marks an empty slot or an absent child.
pub const INVALID_NODE: u32 = 0xffff_ffff;
/// Bits of the stack index in the packed stack address.
const INDEX_BITS: u32 = 18;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
/// Bytes between consecutive entries of one lane's stack (32 lanes' dwords interleaved).
const ENTRY_STRIDE: u32 = 128;

/// `ds_bvh_stack_rtn_b32` for one lane: pushes the valid children among DATA1[0..3], then returns
/// DATA1[3] if valid or pops the top of the stack; the updated stack address goes back to ADDR.
pub fn bvh_stack(offset16: u16, lane: &Lane, lds: &mut [u8], vdst: &mut [u32; 4], addr: &mut u32) {
    let size = 8u32 << ((offset16 >> 12) & 3); // OFFSET1[5:4]: 8, 16, 32 or 64 entries
    let base = (lane.addr >> INDEX_BITS) * 4;
    let mut index = lane.addr & INDEX_MASK;
    let slot = |index: u32| base.wrapping_add((index % size) * ENTRY_STRIDE);
    let last = lane.data0[0];
    let valid = |d: u32| d != INVALID_NODE && !(last != INVALID_NODE && d == last);
    for &d in &lane.data1[..3] {
        if valid(d) {
            mem::write_u32(lds, slot(index), d);
            index = (index + 1) & INDEX_MASK;
        } else if d == last {
            break;
        }
    }
    let d3 = lane.data1[3];
    if valid(d3) {
        vdst[0] = d3;
    } else {
        index = index.wrapping_sub(1) & INDEX_MASK;
        vdst[0] = mem::read_u32(lds, slot(index));
        mem::write_u32(lds, slot(index), INVALID_NODE);
    }
    *addr = (lane.addr & !INDEX_MASK) | index;
}

/// Bits of the stack index in a gfx12 packed stack address (RADV: the base is shifted left by 15).
const GFX12_INDEX_BITS: u32 = 15;
const GFX12_INDEX_MASK: u32 = (1 << GFX12_INDEX_BITS) - 1;

/// What one lane of a gfx12 BVH push/pop leaves in its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BvhOut {
    /// VDST: the returned node, and for the pop-2 form the second one.
    pub ret: [u32; 2],
    /// The updated stack address written back to ADDR.
    pub addr: u32,
}

/// One lane of a gfx12 BVH stack push/pop: `data` is DATA1 (4 or 8 dwords by `form`), `last` the
/// last-visited node pointer (DATA0). Pushes the valid candidates among all but the last dword
/// (stopping at the last-visited node), then returns the last dword if valid or pops; the pop-2 form
/// then pops again if the next entry is valid. The stack does not wrap at a size (B6).
pub fn bvh_push_pop(form: Bvh, stack: u32, last: u32, data: &[u32], lds: &mut [u8]) -> BvhOut {
    let n = form.data_dwords();
    assert_eq!(data.len(), n, "{form:?} reads {n} dwords of DATA1");
    let base = (stack >> GFX12_INDEX_BITS) * 4;
    let mut index = stack & GFX12_INDEX_MASK;
    let slot = |index: u32| base.wrapping_add(index * ENTRY_STRIDE);
    let valid = |d: u32| d != INVALID_NODE && !(last != INVALID_NODE && d == last);
    for &d in &data[..n - 1] {
        if valid(d) {
            mem::write_u32(lds, slot(index), d);
            index = (index + 1) & GFX12_INDEX_MASK;
        } else if d == last {
            break;
        }
    }
    let mut ret = [INVALID_NODE; 2];
    let top = data[n - 1];
    if valid(top) {
        ret[0] = top;
    } else {
        index = index.wrapping_sub(1) & GFX12_INDEX_MASK;
        ret[0] = mem::read_u32(lds, slot(index));
        mem::write_u32(lds, slot(index), INVALID_NODE);
    }
    if form == Bvh::Push8Pop2 {
        let below = index.wrapping_sub(1) & GFX12_INDEX_MASK;
        let next = mem::read_u32(lds, slot(below));
        if valid(next) {
            ret[1] = next;
            mem::write_u32(lds, slot(below), INVALID_NODE);
            index = below;
        }
    }
    BvhOut {
        ret,
        addr: (stack & !GFX12_INDEX_MASK) | index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LDS with a lane stack at byte 0x100 (base 0x40 dwords), entries 128 bytes apart.
    fn stack_addr(index: u32) -> u32 {
        0x40 << GFX12_INDEX_BITS | index
    }

    fn entry(lds: &[u8], k: u32) -> u32 {
        mem::read_u32(lds, 0x100 + 128 * k)
    }

    #[test]
    fn push4_pop1_pushes_valid_children_and_returns_the_last() {
        let mut lds = vec![0u8; 4096];
        let out = bvh_push_pop(
            Bvh::Push4Pop1,
            stack_addr(0),
            INVALID_NODE,
            &[1, 2, 3, 4],
            &mut lds,
        );
        assert_eq!(
            out,
            BvhOut {
                ret: [4, INVALID_NODE],
                addr: stack_addr(3)
            }
        );
        assert_eq!([entry(&lds, 0), entry(&lds, 1), entry(&lds, 2)], [1, 2, 3]);
    }

    #[test]
    fn an_invalid_last_dword_pops_the_top() {
        let mut lds = vec![0u8; 4096];
        mem::write_u32(&mut lds, 0x100, 0x55);
        let d = [INVALID_NODE; 4];
        let out = bvh_push_pop(Bvh::Push4Pop1, stack_addr(1), INVALID_NODE, &d, &mut lds);
        assert_eq!(
            out,
            BvhOut {
                ret: [0x55, INVALID_NODE],
                addr: stack_addr(0)
            }
        );
        assert_eq!(entry(&lds, 0), INVALID_NODE, "a popped slot is invalidated");
    }

    #[test]
    fn the_last_visited_node_stops_the_pushes() {
        let mut lds = vec![0u8; 4096];
        let d = [7, 9, 8, 6, 5, 4, 3, INVALID_NODE];
        let out = bvh_push_pop(Bvh::Push8Pop1, stack_addr(0), 9, &d, &mut lds);
        // 7 pushed, 9 (the last-visited node) stops the loop, so 7 is popped straight back.
        assert_eq!(
            out,
            BvhOut {
                ret: [7, INVALID_NODE],
                addr: stack_addr(0)
            }
        );
    }

    #[test]
    fn push8_pop2_pops_twice_when_the_second_entry_is_valid() {
        let mut lds = vec![0u8; 4096];
        let d = [1, 2, 3, 4, 5, 6, 7, INVALID_NODE];
        let out = bvh_push_pop(Bvh::Push8Pop2, stack_addr(0), INVALID_NODE, &d, &mut lds);
        assert_eq!(
            out,
            BvhOut {
                ret: [7, 6],
                addr: stack_addr(5)
            }
        );
        // Slot 0 empty (invalidated): the second pop finds nothing and leaves the index.
        let mut lds = vec![0u8; 4096];
        mem::write_u32(&mut lds, 0x100, INVALID_NODE);
        let mut d = [INVALID_NODE; 8];
        d[0] = 1;
        let out = bvh_push_pop(Bvh::Push8Pop2, stack_addr(1), INVALID_NODE, &d, &mut lds);
        assert_eq!(
            out,
            BvhOut {
                ret: [1, INVALID_NODE],
                addr: stack_addr(1)
            }
        );
    }
}
