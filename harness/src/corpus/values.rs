//! Values for the corpus: edge values per element type (integer limits and sign bits; IEEE 754
//! binary32/binary64 zeros, denormals, extremes, infinities, quiet and signalling NaNs with
//! payloads, where integer steps stop being exact) mixed with seeded random bits.

use super::SplitMix64;
use ds_isa::ds::Elem;

/// Edge values of an element type, as they sit in a 32-bit register or LDS dword (64-bit types
/// give `(lo, hi)` pairs through [`edge64`]).
pub(super) fn edge32(elem: Elem) -> &'static [u32] {
    match elem {
        Elem::B8 | Elem::U8 | Elem::I8 => &[0, 1, 0x7f, 0x80, 0xff, 0xffff_ff80, 0x1234_5601],
        Elem::B16 | Elem::U16 | Elem::I16 => {
            &[0, 1, 0x7fff, 0x8000, 0xffff, 0xffff_8000, 0xabcd_0001]
        }
        Elem::F32 => &[
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x3f80_0000, // 1.0
            0xbf80_0000, // -1.0
            0x0000_0001, // smallest denormal
            0x807f_ffff, // largest negative denormal
            0x0080_0000, // smallest normal
            0x7f7f_ffff, // largest finite
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // quiet NaN
            0xffc0_1234, // negative quiet NaN with payload
            0x7f80_0001, // signalling NaN
            0xffa0_0000, // negative signalling NaN with payload
            0x4b80_0000, // 2^24: where +1 stops being exact
        ],
        _ => &[
            0,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_fffe,
            0xffff_ffff,
        ],
    }
}

/// Edge values of a 64-bit element type.
pub(super) fn edge64(elem: Elem) -> &'static [u64] {
    match elem {
        Elem::F64 => &[
            0x0000_0000_0000_0000, // +0
            0x8000_0000_0000_0000, // -0
            0x3ff0_0000_0000_0000, // 1.0
            0xbff0_0000_0000_0000, // -1.0
            0x0000_0000_0000_0001, // smallest denormal
            0x800f_ffff_ffff_ffff, // largest negative denormal
            0x0010_0000_0000_0000, // smallest normal
            0x7fef_ffff_ffff_ffff, // largest finite
            0x7ff0_0000_0000_0000, // +inf
            0xfff0_0000_0000_0000, // -inf
            0x7ff8_0000_0000_0000, // quiet NaN
            0xfff8_0000_dead_beef, // negative quiet NaN with payload
            0x7ff0_0000_0000_0001, // signalling NaN
            0x4340_0000_0000_0000, // 2^53: where +1 stops being exact
        ],
        _ => &[
            0,
            1,
            0xffff_ffff,
            0x1_0000_0000,
            0x7fff_ffff_ffff_ffff,
            0x8000_0000_0000_0000,
            0xffff_ffff_ffff_fffe,
            0xffff_ffff_ffff_ffff,
        ],
    }
}

/// A value of the op's element type, written into `dst` (1 or 2 dwords; wider types fill words
/// independently): an edge value half the time, random bits otherwise.
pub(super) fn value(elem: Elem, rng: &mut SplitMix64, dst: &mut [u32]) {
    let edge = rng.below(2) == 0;
    if elem.bytes() == 8 && dst.len() >= 2 {
        let v = if edge {
            rng.pick(edge64(elem))
        } else {
            rng.next_u64()
        };
        dst[0] = v as u32;
        dst[1] = (v >> 32) as u32;
        for w in &mut dst[2..] {
            *w = rng.next_u32();
        }
    } else {
        for w in dst.iter_mut() {
            *w = if edge && rng.below(4) != 0 {
                rng.pick(edge32(elem))
            } else {
                rng.next_u32()
            };
        }
    }
}
