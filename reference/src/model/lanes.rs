//! The cross-lane DS ops that move no LDS data: `ds_swizzle_b32`, `ds_permute_b32`,
//! `ds_bpermute_b32`.
//!
//! Source: RDNA3 ISA guide, chapter "Instructions", `DS_SWIZZLE_B32` (bit-mask, quad-permute,
//! rotate and FFT modes; a source lane outside EXEC reads as 0), `DS_PERMUTE_B32` /
//! `DS_BPERMUTE_B32` (lane index `(ADDR + OFFSET) / 4 mod 32`, EXEC applies to the source reads
//! and the destination writes, unwritten permute destinations get 0, and with several sources for
//! one destination the highest-numbered source wins), and the "LDS lane permute" section (only
//! address bits [6:2] name the lane in wave32). Choices the guide leaves open: ASSUMPTIONS.md S1-S3.

use crate::isa::swizzle::Pattern;
use crate::wave::{Wave, LANES};

/// Reverses the low five bits of `i`.
fn reverse5(i: usize) -> usize {
    (0..5).fold(0, |acc, b| acc | (((i >> b) & 1) << (4 - b)))
}

/// The lane each lane reads under the swizzle `offset`, for wave32.
pub fn swizzle_sources(offset: u16) -> [usize; LANES] {
    std::array::from_fn(|i| match Pattern::decode(offset) {
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
            (i & mask) | (moved & 0x1f & !mask)
        }
        Pattern::Fft { mask } => {
            let mask = usize::from(mask);
            ((reverse5(i) >> mask.count_ones()) | (i & mask)) & 0x1f
        }
    })
}

/// `ds_swizzle_b32`: each active lane gets the ADDR register of its source lane, or 0 when the
/// source lane is inactive.
pub fn swizzle(wave: &Wave, offset: u16, vdst: &mut [[u32; 4]; LANES]) {
    let src = swizzle_sources(offset);
    let exec = wave.exec;
    for (i, d) in vdst.iter_mut().enumerate() {
        if exec >> i & 1 == 1 {
            let j = src[i];
            d[0] = if exec >> j & 1 == 1 {
                wave.lanes[j].addr
            } else {
                0
            };
        }
    }
}

/// The lane named by an address: bits [6:2] of `addr + offset`.
#[inline]
pub fn lane_of(addr: u32, offset: u16) -> usize {
    ((addr.wrapping_add(u32::from(offset)) >> 2) & 0x1f) as usize
}

/// `ds_permute_b32`: each active lane sends DATA0 to the lane its address names; active lanes that
/// receive nothing get 0; with several senders the highest-numbered one wins.
pub fn permute(wave: &Wave, offset: u16, vdst: &mut [[u32; 4]; LANES]) {
    let mut tmp = [0u32; LANES];
    for (i, lane) in wave.lanes.iter().enumerate() {
        if wave.exec >> i & 1 == 1 {
            tmp[lane_of(lane.addr, offset)] = lane.data0[0];
        }
    }
    for (i, d) in vdst.iter_mut().enumerate() {
        if wave.exec >> i & 1 == 1 {
            d[0] = tmp[i];
        }
    }
}

/// `ds_bpermute_b32`: each active lane reads DATA0 of the lane its address names, 0 if that lane
/// is inactive.
pub fn bpermute(wave: &Wave, offset: u16, vdst: &mut [[u32; 4]; LANES]) {
    for (i, d) in vdst.iter_mut().enumerate() {
        if wave.exec >> i & 1 == 1 {
            let j = lane_of(wave.lanes[i].addr, offset);
            d[0] = if wave.exec >> j & 1 == 1 {
                wave.lanes[j].data0[0]
            } else {
                0
            };
        }
    }
}

/// `ds_bpermute_fi_b32` (gfx12; RDNA4 ISA guide, section 16.15): as [`bpermute`], but the source
/// lane's DATA0 is read even when that lane is outside EXEC ("fetch invalid"). Only active lanes
/// write vdst.
pub fn bpermute_fi(wave: &Wave, offset: u16, vdst: &mut [[u32; 4]; LANES]) {
    for (i, d) in vdst.iter_mut().enumerate() {
        if wave.exec >> i & 1 == 1 {
            d[0] = wave.lanes[lane_of(wave.lanes[i].addr, offset)].data0[0];
        }
    }
}
