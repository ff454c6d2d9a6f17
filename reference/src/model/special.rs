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
//! ASSUMPTIONS.md B1-B4.

use super::{mem, Plan};
use crate::isa::Family;
use crate::wave::{Lane, Wave, LANES};

/// `ds_append` / `ds_consume`: one update of the dword at `M0[15:0] + offset` by the number of
/// active lanes; every active lane gets the value before it.
pub fn append_consume(plan: &Plan, wave: &Wave, lds: &mut [u8], vdst: &mut [[u32; 4]; LANES]) {
    let at = (wave.m0 & 0xffff).wrapping_add(u32::from(plan.offset16));
    let old = mem::read_u32(lds, at);
    let n = wave.exec.count_ones();
    let new = if plan.info.family == Family::Append {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    if n > 0 {
        mem::write_u32(lds, at, new);
    }
    for (i, d) in vdst.iter_mut().enumerate() {
        if wave.exec >> i & 1 == 1 {
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
