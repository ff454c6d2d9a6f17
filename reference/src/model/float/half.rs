//! The 16-bit float formats of `ds_pk_add_f16` / `ds_pk_add_bf16` (binary16 and bfloat16) and
//! their add, exact and rounded once to nearest-even.
//!
//! Sources: the RDNA4 ISA guide, section 16.15, and the CDNA 3 guide, `DS_PK_ADD_F16` /
//! `DS_PK_ADD_BF16` (two halves added independently); rocJITsu `fp_mode.h` `atomic_add_packed_16`
//! (ROCm/rocm-systems at 0005084e: fixed nearest-even, the first NaN quieted, `inf + -inf` the
//! negative quiet NaN). The NaN and denormal choices are ASSUMPTIONS.md F3, F6, N3 and N4.

use super::{flush, input_nan, AddNan, Fmt};
use crate::model::readings::NanSign;

/// A 16-bit float format: exponent and mantissa bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Half {
    /// Exponent bits.
    pub exp: u32,
    /// Mantissa bits.
    pub mant: u32,
}

/// IEEE binary16.
pub const F16: Half = Half { exp: 5, mant: 10 };
/// bfloat16 (binary32's exponent, 7 mantissa bits).
pub const BF16: Half = Half { exp: 8, mant: 7 };

impl Half {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn exp_max(self) -> u32 {
        (1 << self.exp) - 1
    }
    pub(crate) fn as_fmt(self) -> Fmt {
        Fmt {
            width: 16,
            mant: self.mant,
        }
    }
    /// The default quiet NaN of `sign` (ASSUMPTIONS.md F6).
    pub fn default_nan(self, sign: NanSign) -> u16 {
        self.as_fmt().default_nan(sign) as u16
    }
}

/// The exact value of a non-NaN 16-bit float.
pub(super) fn half_to_f64(h: Half, x: u16) -> f64 {
    let x = u32::from(x);
    let neg = x >> 15 & 1 == 1;
    let e = (x >> h.mant) & h.exp_max();
    let m = x & ((1 << h.mant) - 1);
    let v = if e == h.exp_max() {
        f64::INFINITY
    } else if e == 0 {
        f64::from(m) * 2f64.powi(1 - h.bias() - h.mant as i32)
    } else {
        f64::from((1 << h.mant) | m) * 2f64.powi(e as i32 - h.bias() - h.mant as i32)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// Rounds a non-NaN `f64` to the 16-bit format, nearest-even, overflowing to infinity.
pub(super) fn f64_to_half(h: Half, v: f64) -> u16 {
    let sign = if v.is_sign_negative() { 0x8000u32 } else { 0 };
    let a = v.abs();
    let emin = 1 - h.bias();
    if a == 0.0 {
        return sign as u16;
    }
    let inf = sign | h.exp_max() << h.mant;
    if a.is_infinite() {
        return inf as u16;
    }
    let e = ((a.to_bits() >> 52) as i32 - 1023).max(emin);
    let quantum = 2f64.powi(e - h.mant as i32);
    let mut r = (a / quantum).round_ties_even() as u64;
    let mut e = e;
    if r == 1 << (h.mant + 1) {
        r >>= 1;
        e += 1;
    }
    if r < 1 << h.mant {
        // Subnormal (or rounded up to the smallest normal, which this encoding also gives).
        return (sign | r as u32) as u16;
    }
    let field = e + h.bias();
    if field >= h.exp_max() as i32 {
        return inf as u16;
    }
    (sign | (field as u32) << h.mant | (r as u32 & ((1 << h.mant) - 1))) as u16
}

/// `mem + data` of one 16-bit half: nearest-even (the exact sum of two 16-bit floats rounded
/// once: an `f64` holds it closely enough that rounding it again is correct, as 53 >= 2 x 11 + 2),
/// denormals flushed (inputs and result, sign kept) unless `keep_denormals`; a NaN input by
/// `nan.order`, `inf + -inf` the default NaN of `nan.sign` (ASSUMPTIONS.md F3, F6, N3, N4).
pub fn add_half(h: Half, mem: u16, data: u16, keep_denormals: bool, nan: AddNan) -> u16 {
    let f = h.as_fmt();
    let m = flush(f, u64::from(mem), keep_denormals);
    let d = flush(f, u64::from(data), keep_denormals);
    if let Some(x) = input_nan(f, m, d, nan) {
        return x as u16;
    }
    let (a, b) = (half_to_f64(h, m as u16), half_to_f64(h, d as u16));
    let sum = a + b;
    if sum.is_nan() {
        return h.default_nan(nan.sign);
    }
    // x + (-x) is +0 under nearest-even; -0 + -0 stays -0 (the f64 sum already does both).
    flush(f, u64::from(f64_to_half(h, sum)), keep_denormals) as u16
}

/// `ds_pk_add_f16` / `_bf16`: both halves of a dword added independently.
pub fn add_packed(h: Half, mem: u32, data: u32, keep_denormals: bool, nan: AddNan) -> u32 {
    let lo = add_half(h, mem as u16, data as u16, keep_denormals, nan);
    let hi = add_half(
        h,
        (mem >> 16) as u16,
        (data >> 16) as u16,
        keep_denormals,
        nan,
    );
    u32::from(lo) | u32::from(hi) << 16
}
