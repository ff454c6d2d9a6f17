//! The cross-lane DS ops that move no LDS data: `ds_swizzle_b32`, `ds_permute_b32`,
//! `ds_bpermute_b32`, `ds_bpermute_fi_b32`.
//!
//! Source: RDNA3 ISA guide, chapter "Instructions", `DS_SWIZZLE_B32` (bit-mask, quad-permute,
//! rotate and FFT modes; a source lane outside EXEC reads as 0), `DS_PERMUTE_B32` /
//! `DS_BPERMUTE_B32` (lane index `(ADDR + OFFSET) / 4 mod 32`, EXEC applies to the source reads
//! and the destination writes, unwritten permute destinations get 0; with several sources for one
//! destination the pseudocode's comment lets the highest-numbered source win where its prose
//! says the winner is not deterministic: ASSUMPTIONS.md S4), and the "LDS lane permute" section
//! (only address bits [6:2] name the lane in wave32). Choices the guide leaves open:
//! ASSUMPTIONS.md S1-S4.
//!
//! Every op is written over a wave of any size (a lane slice and a 64-bit EXEC). What a wave64
//! does differs by generation and is asked of it, never assumed here: which lanes a permute
//! address names ([`PermuteSpan`], from `Generation::permute_span`: within each 32-lane half on
//! gfx11, ASSUMPTIONS.md W1-W2; the whole wave on gfx12, W9-W10) and the lanes of one swizzle
//! group (`Generation::swizzle_group`, W3-W4). The [`Wave`]-typed functions are the model's entry
//! points.

use super::readings::Collision;
use crate::wave::{Lane, Wave};
use ds_isa::ds::swizzle::Pattern;
use ds_isa::gen::PermuteSpan;

/// Reverses the low five bits of `i`.
fn reverse5(i: usize) -> usize {
    (0..5).fold(0, |acc, b| acc | (((i >> b) & 1) << (4 - b)))
}

/// The lane lane `i` (of a wave of any size) reads under the swizzle `offset`, in swizzle groups of
/// `group` lanes (a power of two, at least 32; `Generation::swizzle_group`): every mode works
/// within the group of `i` on 5-bit lane numbers (ASSUMPTIONS.md W3, W4; a wave32 is one group).
pub fn swizzle_source(group: usize, offset: u16, i: usize) -> usize {
    let base = i & !(group - 1);
    let i = i & (group - 1);
    // The masks are 5 bits wide: lane numbers within 32.
    const IN32: usize = 31;
    base | match Pattern::decode(offset) {
        Pattern::BitMask { and, or, xor } => {
            ((i & usize::from(and)) | usize::from(or)) ^ usize::from(xor)
        }
        Pattern::QuadPerm(sel) => 4 * (i / 4) + usize::from(sel[i % 4]),
        // 0x8100..=0xBFFF: the guide's pseudocode takes every offset with bit 15 set below 0xC000
        // as quad-permute of offset[7:0] (ASSUMPTIONS.md S1).
        Pattern::Undefined(off) => 4 * (i / 4) + usize::from((off >> (2 * (i % 4))) & 3),
        Pattern::Rotate {
            amount,
            right,
            mask,
        } => {
            let mask = usize::from(mask);
            let amount = usize::from(amount);
            let moved = if right {
                i.wrapping_sub(amount)
            } else {
                i + amount
            };
            (i & mask) | (moved & IN32 & !mask)
        }
        Pattern::Fft { mask } => {
            let mask = usize::from(mask);
            ((reverse5(i) >> mask.count_ones()) | (i & mask)) & IN32
        }
    }
}

/// The lane each lane of a wave of `lanes` lanes reads under the swizzle `offset` (groups of
/// `group` lanes).
pub fn swizzle_sources(group: usize, lanes: usize, offset: u16) -> Vec<usize> {
    (0..lanes)
        .map(|i| swizzle_source(group, offset, i))
        .collect()
}

/// Lane `i` is in EXEC.
#[inline]
fn active(exec: u64, i: usize) -> bool {
    exec >> i & 1 == 1
}

/// `ds_swizzle_b32` over `lanes` (any wave size, groups of `group` lanes): each active lane gets
/// the ADDR register of its source lane, or 0 when the source lane is inactive.
pub fn swizzle_lanes(group: usize, exec: u64, lanes: &[Lane], offset: u16, vdst: &mut [[u32; 4]]) {
    for (i, d) in vdst.iter_mut().enumerate().take(lanes.len()) {
        if active(exec, i) {
            let j = swizzle_source(group, offset, i);
            d[0] = if active(exec, j) { lanes[j].addr } else { 0 };
        }
    }
}

/// `ds_swizzle_b32` over a wave, in swizzle groups of `group` lanes.
pub fn swizzle(group: usize, wave: &Wave, offset: u16, vdst: &mut [[u32; 4]]) {
    swizzle_lanes(group, wave.exec, &wave.lanes, offset, vdst)
}

/// The lane a wave32 address names: bits [6:2] of `addr + offset` (ASSUMPTIONS.md S3).
#[inline]
pub fn lane_of(addr: u32, offset: u16) -> usize {
    ((addr.wrapping_add(u32::from(offset)) >> 2) as usize) & 31
}

/// The lane lane `i` of a wave of `lanes` lanes names with `addr + offset` under `span`: the low
/// five bits of the lane index within `i`'s 32-lane half, or the index modulo the wave's lanes.
#[inline]
pub fn permute_lane(span: PermuteSpan, lanes: usize, i: usize, addr: u32, offset: u16) -> usize {
    let index = (addr.wrapping_add(u32::from(offset)) >> 2) as usize;
    match span {
        PermuteSpan::Halves => (i & !31) | (index & 31),
        PermuteSpan::Wave => index & (lanes - 1),
    }
}

/// `ds_permute_b32` over `lanes`: each active lane sends DATA0 to the lane its address names;
/// active lanes that receive nothing get 0; with several senders the highest-numbered one wins,
/// or the lowest when `collision` says so (S4; `Any` runs as the highest).
pub fn permute_lanes(
    span: PermuteSpan,
    collision: Collision,
    exec: u64,
    lanes: &[Lane],
    offset: u16,
    vdst: &mut [[u32; 4]],
) {
    let n = lanes.len();
    let mut tmp = vec![0u32; n];
    let mut order: Vec<usize> = (0..n).filter(|&i| active(exec, i)).collect();
    if collision == Collision::Lowest {
        // The last write wins: the lowest sender writes last.
        order.reverse();
    }
    for i in order {
        let lane = &lanes[i];
        tmp[permute_lane(span, n, i, lane.addr, offset)] = lane.data0[0];
    }
    for (i, d) in vdst.iter_mut().enumerate().take(n) {
        if active(exec, i) {
            d[0] = tmp[i];
        }
    }
}

/// `ds_permute_b32` over a wave (W2 or W10, as `span` says; collisions as S4's `collision`).
pub fn permute(
    span: PermuteSpan,
    collision: Collision,
    wave: &Wave,
    offset: u16,
    vdst: &mut [[u32; 4]],
) {
    permute_lanes(span, collision, wave.exec, &wave.lanes, offset, vdst)
}

/// `ds_bpermute_b32` over `lanes` (`fetch_inactive`: `ds_bpermute_fi_b32`, which reads the source
/// lane's DATA0 even when it is outside EXEC): each active lane reads DATA0 of the lane its address
/// names, 0 if that lane is inactive.
pub fn bpermute_lanes(
    span: PermuteSpan,
    fetch_inactive: bool,
    exec: u64,
    lanes: &[Lane],
    offset: u16,
    vdst: &mut [[u32; 4]],
) {
    let n = lanes.len();
    for (i, d) in vdst.iter_mut().enumerate().take(n) {
        if active(exec, i) {
            let j = permute_lane(span, n, i, lanes[i].addr, offset);
            d[0] = if fetch_inactive || active(exec, j) {
                lanes[j].data0[0]
            } else {
                0
            };
        }
    }
}

/// `ds_bpermute_b32` over a wave (W1 or W9, as `span` says).
pub fn bpermute(span: PermuteSpan, wave: &Wave, offset: u16, vdst: &mut [[u32; 4]]) {
    bpermute_lanes(span, false, wave.exec, &wave.lanes, offset, vdst)
}

/// `ds_bpermute_fi_b32` (gfx12; RDNA4 ISA guide, section 16.15) over a wave: as [`bpermute`],
/// but the source lane's DATA0 is read even when that lane is outside EXEC ("fetch invalid").
/// Only active lanes write vdst.
pub fn bpermute_fi(span: PermuteSpan, wave: &Wave, offset: u16, vdst: &mut [[u32; 4]]) {
    bpermute_lanes(span, true, wave.exec, &wave.lanes, offset, vdst)
}
