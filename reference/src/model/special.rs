//! The DS ops with their own shapes: `ds_append` / `ds_consume` (once per wave) and
//! `ds_condxchg32_rtn_b64` (the BVH stack ops are [`super::bvh`]'s).
//!
//! Sources: RDNA3 ISA guide, chapter "Instructions": `DS_APPEND`/`DS_CONSUME` (address from M0's
//! base plus the offset, add or subtract the count of valid lanes, the old value returned to every
//! valid lane), `DS_CONDXCHG32_RTN_B64` (address `(ADDR + offset) & 0xfff8`, each half written with
//! bit 31 cleared when its bit 31 is set, both old halves returned).

use super::{mem, Plan};
use crate::wave::{Lane, Wave};
use ds_isa::ds::Family;

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
