//! AMD's float rules for the DS float atomics, on bit patterns: NaN quieting, denormal flushing,
//! which operand min/max return, float equality for cmpstore, and round-to-nearest-even addition.
//!
//! Sources: RDNA3 ISA guide, chapter "Instructions", VOP2 `V_MIN_F32`/`V_MAX_F32` pseudocode (the
//! IEEE-mode NaN order and "-0 < +0"), and the DS atomic descriptions (`DS_MIN_F32`, `DS_ADD_F32`,
//! `DS_CMPSTORE_F32`); LLVM `SIISelLowering.cpp` and llvm-project PR #89468 (LDS float atomics
//! honour the denormal mode, the rounding mode is fixed to nearest-even); AMD's rocJITsu
//! (ROCm/rocm-systems `emulation/rocjitsu`, `fp_mode.h` `atomic_scalar` at 0005084e, and
//! `memory_pipeline.cpp` `execute_lds_atomic_rmw` at 04c081f6: LDS float adds take DATA's NaN
//! first, `inf + -inf` gives the negative quiet NaN, legacy min/max return the selected operand's
//! own bits). Where these leave a choice, see `reference/ASSUMPTIONS.md` (questions F1-F6); the
//! readings a function can follow are its [`super::readings`] arguments, and
//! [`crate::model::legal`] accepts the documented alternatives.

use super::readings::{MinMaxRule, NanOrder, NanSign, SelectedBits};

mod half;
pub use half::{add_half, add_packed, Half, BF16, F16};

/// An IEEE binary format: total width and mantissa bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Bits in the format (16, 32 or 64).
    pub width: u32,
    /// Mantissa (fraction) bits.
    pub mant: u32,
}

/// IEEE binary32.
pub const F32: Fmt = Fmt {
    width: 32,
    mant: 23,
};
/// IEEE binary64.
pub const F64: Fmt = Fmt {
    width: 64,
    mant: 52,
};

/// The NaN rules of a float add (ASSUMPTIONS.md F3 and F6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddNan {
    /// Which input NaN is returned (F3).
    pub order: NanOrder,
    /// The sign of the default NaN (F6).
    pub sign: NanSign,
}

impl AddNan {
    /// The model's readings: DATA's NaN first, the negative default NaN.
    pub const MODEL: AddNan = AddNan {
        order: NanOrder::DataFirst,
        sign: NanSign::Negative,
    };
}

impl Fmt {
    fn sign_bit(self) -> u64 {
        1 << (self.width - 1)
    }
    fn exp_mask(self) -> u64 {
        (self.sign_bit() - 1) & !self.mant_mask()
    }
    fn mant_mask(self) -> u64 {
        (1 << self.mant) - 1
    }
    fn quiet_bit(self) -> u64 {
        1 << (self.mant - 1)
    }
    /// The value's magnitude bits (sign cleared).
    fn abs(self, x: u64) -> u64 {
        x & (self.sign_bit() - 1)
    }
    /// The default quiet NaN of `sign` (ASSUMPTIONS.md F6): exponent all ones, quiet bit only.
    pub fn default_nan(self, sign: NanSign) -> u64 {
        let nan = self.exp_mask() | self.quiet_bit();
        match sign {
            NanSign::Negative => nan | self.sign_bit(),
            NanSign::Positive => nan,
        }
    }
}

/// Sign bit set.
pub fn sign(f: Fmt, x: u64) -> bool {
    x & f.sign_bit() != 0
}

/// Any NaN (exponent all ones, mantissa non-zero).
pub fn is_nan(f: Fmt, x: u64) -> bool {
    f.abs(x) > f.exp_mask()
}

/// A signalling NaN: a NaN with the quiet bit (the mantissa's top bit) clear.
pub fn is_snan(f: Fmt, x: u64) -> bool {
    is_nan(f, x) && x & f.quiet_bit() == 0
}

/// +0 or -0.
pub fn is_zero(f: Fmt, x: u64) -> bool {
    f.abs(x) == 0
}

/// A denormal: exponent zero, mantissa non-zero.
pub fn is_denormal(f: Fmt, x: u64) -> bool {
    x & f.exp_mask() == 0 && x & f.mant_mask() != 0
}

/// Sets the quiet bit, keeping sign and payload (`cvtToQuietNAN` in the ISA guide).
pub fn quiet(f: Fmt, x: u64) -> u64 {
    x | f.quiet_bit()
}

/// Flushes a denormal to zero of the same sign when `keep_denormals` is false.
pub fn flush(f: Fmt, x: u64, keep_denormals: bool) -> u64 {
    if !keep_denormals && is_denormal(f, x) {
        x & f.sign_bit()
    } else {
        x
    }
}

/// Ordered less-than on non-NaN values with AMD's "-0 < +0" (`LT_NEG_ZERO`).
fn lt_neg_zero(f: Fmt, a: u64, b: u64) -> bool {
    match (sign(f, a), sign(f, b)) {
        (false, false) => a < b,
        (true, true) => f.abs(a) > f.abs(b),
        // A negative value is below a positive one, zeros included.
        (true, false) => true,
        (false, true) => false,
    }
}

/// What a min/max selects: DATA, memory, or a NaN it makes.
enum Sel {
    Data,
    Mem,
    Nan(u64),
}

/// The legacy float minimum or maximum (`ds_min_f32` ... `ds_max_rtn_f64`, ASSUMPTIONS.md F1,
/// F2): `s0` is the instruction's DATA, `s1` the memory value; denormal inputs are flushed for
/// the comparison when the mode does not keep them.
///
/// The rule that selects (F1): [`MinMaxRule::Valu`], the way `V_MIN_F32`/`V_MAX_F32` choose (in
/// IEEE mode a signalling NaN wins quieted, DATA first, else a quiet NaN loses to the other
/// operand; outside IEEE mode any NaN loses; -0 < +0); [`MinMaxRule::Literal`], the DS
/// pseudocode's `src < tmp ? src : tmp` with IEEE comparisons (a NaN or a pair of zeros keeps
/// memory); [`MinMaxRule::Legacy`], rocJITsu's (a signalling NaN wins quieted, memory first,
/// whatever the IEEE bit; a NaN loses to a number; two NaNs give memory's quieted). What it
/// stores for the operand it selects (F2): its own bits or the flushed ones.
#[allow(clippy::too_many_arguments)]
pub fn min_max(
    f: Fmt,
    s0: u64,
    s1: u64,
    max: bool,
    ieee: bool,
    keep_denormals: bool,
    rule: MinMaxRule,
    bits: SelectedBits,
) -> u64 {
    let (a, b) = (flush(f, s0, keep_denormals), flush(f, s1, keep_denormals));
    let a_wins = || {
        if max {
            lt_neg_zero(f, b, a)
        } else {
            lt_neg_zero(f, a, b)
        }
    };
    let sel = match rule {
        MinMaxRule::Valu => {
            if ieee && is_snan(f, a) {
                Sel::Nan(quiet(f, a))
            } else if ieee && is_snan(f, b) {
                Sel::Nan(quiet(f, b))
            } else if is_nan(f, b) {
                Sel::Data
            } else if is_nan(f, a) || !a_wins() {
                Sel::Mem
            } else {
                Sel::Data
            }
        }
        MinMaxRule::Literal => {
            if is_nan(f, a) || is_nan(f, b) || (is_zero(f, a) && is_zero(f, b)) || !a_wins() {
                Sel::Mem
            } else {
                Sel::Data
            }
        }
        MinMaxRule::Legacy => {
            if is_snan(f, b) {
                Sel::Nan(quiet(f, b))
            } else if is_snan(f, a) {
                Sel::Nan(quiet(f, a))
            } else if is_nan(f, b) && is_nan(f, a) {
                Sel::Nan(quiet(f, b))
            } else if is_nan(f, b) {
                Sel::Data
            } else if is_nan(f, a) || !a_wins() {
                Sel::Mem
            } else {
                Sel::Data
            }
        }
    };
    match (sel, bits) {
        (Sel::Nan(x), _) => x,
        (Sel::Data, SelectedBits::Original) => s0,
        (Sel::Data, SelectedBits::Flushed) => a,
        (Sel::Mem, SelectedBits::Original) => s1,
        (Sel::Mem, SelectedBits::Flushed) => b,
    }
}

/// Float equality for cmpstore: NaN equals nothing, +0 equals -0, denormals compare as zero when
/// the mode flushes them.
pub fn float_eq(f: Fmt, a: u64, b: u64, keep_denormals: bool) -> bool {
    let (a, b) = (flush(f, a, keep_denormals), flush(f, b, keep_denormals));
    if is_nan(f, a) || is_nan(f, b) {
        return false;
    }
    a == b || (is_zero(f, a) && is_zero(f, b))
}

/// `mem + data` in binary32, round-to-nearest-even, denormals flushed (inputs and result, sign
/// kept) unless `keep_denormals`. A NaN input returns a NaN as `nan.order` says (F3), and
/// `inf + -inf` the default NaN of `nan.sign` (F6).
///
/// Every other case uses the host addition. That is exact, not an approximation: Rust's `f32`
/// addition is IEEE 754 binary32 addition rounding to nearest-even with gradual underflow (the
/// language reference's float semantics; no FTZ/DAZ on the supported hosts), and the only way it
/// differs from AMD is the NaN bit pattern, handled above. Flushing the result after rounding is
/// exact too: a sum below the smallest normal is a multiple of 2^-149 and so is never rounded.
pub fn add_f32(mem: u32, data: u32, keep_denormals: bool, nan: AddNan) -> u32 {
    let host = |a: u64, b: u64| (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits();
    add_with(F32, mem.into(), data.into(), keep_denormals, nan, |a, b| {
        host(a, b).into()
    }) as u32
}

/// `mem + data` in binary64 (`ds_add_f64`, CDNA 2 and later): [`add_f32`]'s rules in the wider
/// format, denormals by the FP16/FP64 switch (ASSUMPTIONS.md V8). Rust's `f64` addition is exact
/// binary64 as `f32`'s is binary32.
pub fn add_f64(mem: u64, data: u64, keep_denormals: bool, nan: AddNan) -> u64 {
    add_with(F64, mem, data, keep_denormals, nan, |a, b| {
        (f64::from_bits(a) + f64::from_bits(b)).to_bits()
    })
}

/// The NaN an add with a NaN among its (flushed) inputs `m` (memory) and `d` (DATA) returns, or
/// `None` when neither is a NaN.
pub(crate) fn input_nan(f: Fmt, m: u64, d: u64, nan: AddNan) -> Option<u64> {
    let (mn, dn) = (is_nan(f, m), is_nan(f, d));
    if !mn && !dn {
        return None;
    }
    Some(match nan.order {
        NanOrder::DataFirst if dn => quiet(f, d),
        NanOrder::DataFirst => quiet(f, m),
        NanOrder::MemoryFirst if mn => quiet(f, m),
        NanOrder::MemoryFirst => quiet(f, d),
        NanOrder::DefaultNan => f.default_nan(nan.sign),
    })
}

/// The add of either width: flush, an input NaN by `nan`, the host sum, the default NaN for
/// inf + -inf, the result flushed.
fn add_with(
    f: Fmt,
    mem: u64,
    data: u64,
    keep: bool,
    nan: AddNan,
    host: impl Fn(u64, u64) -> u64,
) -> u64 {
    let (m, d) = (flush(f, mem, keep), flush(f, data, keep));
    if let Some(x) = input_nan(f, m, d, nan) {
        return x;
    }
    let sum = host(m, d);
    if is_nan(f, sum) {
        return f.default_nan(nan.sign); // inf + -inf
    }
    flush(f, sum, keep)
}

/// IEEE 754-2019 minimumNumber / maximumNumber as the RDNA4 guide writes `DS_MIN_NUM_F32` and
/// `DS_MAX_NUM_F32` (section 16.15): two NaNs give DATA quieted; one NaN gives the other operand
/// (as it is, even a signalling NaN's partner); otherwise the smaller (larger) with -0 < +0, ties
/// keeping memory. `src` is DATA, `tmp` the memory value. Denormal inputs are flushed first when
/// the mode does not keep them (ASSUMPTIONS.md N2); the IEEE mode bit takes no part (gfx12 has none).
pub fn min_max_num(f: Fmt, src: u64, tmp: u64, max: bool, keep_denormals: bool) -> u64 {
    let (s, t) = (flush(f, src, keep_denormals), flush(f, tmp, keep_denormals));
    match (is_nan(f, s), is_nan(f, t)) {
        (true, true) => return quiet(f, s),
        (true, false) => return t,
        (false, true) => return s,
        _ => {}
    }
    let s_wins = if max {
        lt_neg_zero(f, t, s)
    } else {
        lt_neg_zero(f, s, t)
    };
    if s_wins {
        s
    } else {
        t
    }
}

#[cfg(test)]
mod tests;
