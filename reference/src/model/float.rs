//! AMD's float rules for the DS float atomics, on bit patterns: NaN quieting, denormal flushing,
//! which operand min/max return, float equality for cmpstore, and round-to-nearest-even addition.
//!
//! Sources: RDNA3 ISA guide, chapter "Instructions", VOP2 `V_MIN_F32`/`V_MAX_F32` pseudocode (the
//! IEEE-mode NaN order and "-0 < +0"), and the DS atomic descriptions (`DS_MIN_F32`, `DS_ADD_F32`,
//! `DS_CMPSTORE_F32`); LLVM `SIISelLowering.cpp` (LDS float atomics honour the denormal mode, the
//! rounding mode is fixed to nearest-even). Where these leave a choice, see `reference/ASSUMPTIONS.md`
//! (questions F1-F4); [`crate::model::legal`] accepts the documented alternatives.

/// An IEEE binary format: total width and mantissa bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Bits in the format (32 or 64).
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

/// AMD's default (canonical) quiet NaN for binary32: positive, quiet bit only.
pub const F32_DEFAULT_NAN: u32 = 0x7fc0_0000;

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

/// Minimum or maximum the way `V_MIN_F32`/`V_MAX_F32` choose (the model's rule for DS min/max):
/// `s0` is the instruction's data, `s1` the memory value. In IEEE mode a signalling NaN wins quieted
/// (s0 first), else a quiet NaN loses to the other operand; outside IEEE mode any NaN loses. Zeros
/// order as -0 < +0. Denormal inputs are flushed first when the mode does not keep them.
pub fn min_max(f: Fmt, s0: u64, s1: u64, max: bool, ieee: bool, keep_denormals: bool) -> u64 {
    let (s0, s1) = (flush(f, s0, keep_denormals), flush(f, s1, keep_denormals));
    if ieee {
        if is_snan(f, s0) {
            return quiet(f, s0);
        }
        if is_snan(f, s1) {
            return quiet(f, s1);
        }
    }
    if is_nan(f, s1) {
        return s0;
    }
    if is_nan(f, s0) {
        return s1;
    }
    let s0_wins = if max {
        lt_neg_zero(f, s1, s0)
    } else {
        lt_neg_zero(f, s0, s1)
    };
    if s0_wins {
        s0
    } else {
        s1
    }
}

/// The DS pseudocode's literal rule, `src < tmp ? src : tmp` (or `>` for max) with IEEE
/// comparisons: a NaN or a pair of zeros keeps the memory value. Accepted as a legal alternative.
pub fn min_max_literal(f: Fmt, src: u64, tmp: u64, max: bool, keep_denormals: bool) -> u64 {
    let (s, t) = (flush(f, src, keep_denormals), flush(f, tmp, keep_denormals));
    if is_nan(f, s) || is_nan(f, t) || (is_zero(f, s) && is_zero(f, t)) {
        return tmp;
    }
    let wins = if max {
        lt_neg_zero(f, t, s)
    } else {
        lt_neg_zero(f, s, t)
    };
    if wins {
        src
    } else {
        tmp
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
/// kept) unless `keep_denormals`. A NaN input returns the first NaN of (mem, data) quieted;
/// inf + -inf returns [`F32_DEFAULT_NAN`].
///
/// Every other case uses the host addition. That is exact, not an approximation: Rust's `f32`
/// addition is IEEE 754 binary32 addition rounding to nearest-even with gradual underflow (the
/// language reference's float semantics; no FTZ/DAZ on the supported hosts), and the only way it
/// differs from AMD is the NaN bit pattern, handled above. Flushing the result after rounding is
/// exact too: a sum below the smallest normal is a multiple of 2^-149 and so is never rounded.
pub fn add_f32(mem: u32, data: u32, keep_denormals: bool) -> u32 {
    let host = |a: u64, b: u64| (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits();
    add_with(F32, mem.into(), data.into(), keep_denormals, |a, b| {
        host(a, b).into()
    }) as u32
}

/// `mem + data` in binary64 (`ds_add_f64`, CDNA 2 and later): [`add_f32`]'s rules in the wider
/// format, denormals by the FP16/FP64 switch (ASSUMPTIONS.md F5), inf + -inf the default NaN
/// `0x7ff8_0000_0000_0000`. Rust's `f64` addition is exact binary64 as `f32`'s is binary32.
pub fn add_f64(mem: u64, data: u64, keep_denormals: bool) -> u64 {
    add_with(F64, mem, data, keep_denormals, |a, b| {
        (f64::from_bits(a) + f64::from_bits(b)).to_bits()
    })
}

/// The add of either width: flush, the first NaN quieted, the host sum, the default NaN for
/// inf + -inf, the result flushed.
fn add_with(f: Fmt, mem: u64, data: u64, keep: bool, host: impl Fn(u64, u64) -> u64) -> u64 {
    let (m, d) = (flush(f, mem, keep), flush(f, data, keep));
    if is_nan(f, m) {
        return quiet(f, m);
    }
    if is_nan(f, d) {
        return quiet(f, d);
    }
    let sum = host(m, d);
    if is_nan(f, sum) {
        return f.exp_mask() | f.quiet_bit(); // inf + -inf: the default NaN
    }
    flush(f, sum, keep)
}

/// The NaN results a device may legally return for `mem + data` besides the model's: either input
/// NaN quieted, or the default NaN. Empty when the sum is not a NaN.
pub fn add_f32_nan_alternatives(mem: u32, data: u32) -> Vec<u32> {
    let alts = add_nan_alternatives(
        F32,
        mem.into(),
        data.into(),
        add_f32(mem, data, true).into(),
    );
    alts.into_iter().map(|x| x as u32).collect()
}

/// [`add_f32_nan_alternatives`] for [`add_f64`].
pub fn add_f64_nan_alternatives(mem: u64, data: u64) -> Vec<u64> {
    add_nan_alternatives(F64, mem, data, add_f64(mem, data, true))
}

fn add_nan_alternatives(f: Fmt, mem: u64, data: u64, sum: u64) -> Vec<u64> {
    let mut alts: Vec<u64> = [mem, data]
        .into_iter()
        .filter(|&x| is_nan(f, x))
        .map(|x| quiet(f, x))
        .collect();
    if !alts.is_empty() || is_nan(f, sum) {
        alts.push(f.exp_mask() | f.quiet_bit());
    }
    alts
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
    fn as_fmt(self) -> Fmt {
        Fmt {
            width: 16,
            mant: self.mant,
        }
    }
    /// The default quiet NaN: positive, quiet bit only.
    pub fn default_nan(self) -> u16 {
        ((self.exp_max() << self.mant) | (1 << (self.mant - 1))) as u16
    }
}

/// The exact value of a non-NaN 16-bit float.
fn half_to_f64(h: Half, x: u16) -> f64 {
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
fn f64_to_half(h: Half, v: f64) -> u16 {
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
/// denormals flushed (inputs and result, sign kept) unless `keep_denormals`; the first NaN of
/// (mem, data) quieted, `inf + -inf` the default NaN (ASSUMPTIONS.md N3, N4).
pub fn add_half(h: Half, mem: u16, data: u16, keep_denormals: bool) -> u16 {
    let f = h.as_fmt();
    let m = flush(f, u64::from(mem), keep_denormals);
    let d = flush(f, u64::from(data), keep_denormals);
    if is_nan(f, m) {
        return quiet(f, m) as u16;
    }
    if is_nan(f, d) {
        return quiet(f, d) as u16;
    }
    let (a, b) = (half_to_f64(h, m as u16), half_to_f64(h, d as u16));
    let sum = a + b;
    if sum.is_nan() {
        return h.default_nan();
    }
    // x + (-x) is +0 under nearest-even; -0 + -0 stays -0 (the f64 sum already does both).
    flush(f, u64::from(f64_to_half(h, sum)), keep_denormals) as u16
}

/// `ds_pk_add_f16` / `_bf16`: both halves of a dword added independently.
pub fn add_packed(h: Half, mem: u32, data: u32, keep_denormals: bool) -> u32 {
    let lo = add_half(h, mem as u16, data as u16, keep_denormals);
    let hi = add_half(h, (mem >> 16) as u16, (data >> 16) as u16, keep_denormals);
    u32::from(lo) | u32::from(hi) << 16
}

/// The results one half of `mem + data` may legally take (ASSUMPTIONS.md N4, the rule of F3):
/// the model's first, then, when the sum is a NaN, either input NaN quieted and the default NaN.
fn add_half_choices(h: Half, mem: u16, data: u16, keep_denormals: bool) -> Vec<u16> {
    let f = h.as_fmt();
    let model = add_half(h, mem, data, keep_denormals);
    let mut out = vec![model];
    if is_nan(f, u64::from(model)) {
        for x in [mem, data] {
            if is_nan(f, u64::from(x)) {
                out.push(quiet(f, u64::from(x)) as u16);
            }
        }
        out.push(h.default_nan());
    }
    let mut seen = Vec::with_capacity(out.len());
    out.retain(|v| {
        let new = !seen.contains(v);
        seen.push(*v);
        new
    });
    out
}

/// The dwords `ds_pk_add_f16` / `_bf16` may legally leave besides the model's (each half chooses
/// on its own: ASSUMPTIONS.md N4, the rule of F3 for `ds_add_f32`): every combination of the
/// halves' choices but the model's own. Empty when neither half's sum is a NaN.
pub fn add_packed_nan_alternatives(h: Half, mem: u32, data: u32, keep_denormals: bool) -> Vec<u32> {
    let lo = add_half_choices(h, mem as u16, data as u16, keep_denormals);
    let hi = add_half_choices(h, (mem >> 16) as u16, (data >> 16) as u16, keep_denormals);
    let model = u32::from(lo[0]) | u32::from(hi[0]) << 16;
    hi.iter()
        .flat_map(|&y| lo.iter().map(move |&x| u32::from(x) | u32::from(y) << 16))
        .filter(|&v| v != model)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAN: u64 = 0x7f80_0001; // sNaN, payload 1
    const QNAN: u64 = 0x7fc0_0002; // qNaN, payload 2
    const NEG_QNAN: u64 = 0xffc0_0000; // -qNaN
    const ONE: u64 = 0x3f80_0000; // 1.0
    const TWO: u64 = 0x4000_0000; // 2.0
    const NEG_ONE: u64 = 0xbf80_0000; // -1.0
    const PZERO: u64 = 0x0000_0000; // +0.0
    const NZERO: u64 = 0x8000_0000; // -0.0
    const DENORM: u64 = 0x0000_0001; // smallest positive denormal
    const NEG_DENORM: u64 = 0x8000_0001; // smallest negative denormal
    const INF: u64 = 0x7f80_0000; // +inf
    const NEG_INF: u64 = 0xff80_0000; // -inf

    #[test]
    fn classification() {
        assert!(is_snan(F32, SNAN) && !is_snan(F32, QNAN) && is_nan(F32, QNAN));
        assert!(!is_nan(F32, INF) && !is_nan(F32, NEG_INF));
        assert!(is_denormal(F32, DENORM) && !is_denormal(F32, PZERO));
        assert_eq!(quiet(F32, SNAN), 0x7fc0_0001); // qNaN, payload 1 kept
        assert!(is_snan(F64, 0x7ff0_0000_0000_0001)); // f64 sNaN
        assert!(!is_snan(F64, 0x7ff8_0000_0000_0000)); // f64 qNaN
    }

    #[test]
    fn flush_keeps_the_sign() {
        assert_eq!(flush(F32, NEG_DENORM, false), NZERO);
        assert_eq!(flush(F32, DENORM, false), PZERO);
        assert_eq!(flush(F32, DENORM, true), DENORM);
        assert_eq!(flush(F32, ONE, false), ONE);
    }

    #[test]
    fn min_max_ieee_nan_rules() {
        // Signalling NaN wins, quieted, in IEEE mode; data (s0) is looked at first.
        assert_eq!(min_max(F32, SNAN, ONE, false, true, true), 0x7fc0_0001);
        assert_eq!(min_max(F32, ONE, SNAN, true, true, true), 0x7fc0_0001);
        // A quiet NaN loses to a number.
        assert_eq!(min_max(F32, QNAN, ONE, false, true, true), ONE);
        assert_eq!(min_max(F32, ONE, QNAN, true, true, true), ONE);
        // Outside IEEE mode a signalling NaN loses too, unquieted nowhere.
        assert_eq!(min_max(F32, SNAN, ONE, false, false, true), ONE);
        // Two quiet NaNs: s1 is a NaN, so s0 is returned as is.
        assert_eq!(min_max(F32, QNAN, NEG_QNAN, false, true, true), QNAN);
    }

    #[test]
    fn min_max_signed_zero_and_order() {
        assert_eq!(min_max(F32, NZERO, PZERO, false, true, true), NZERO); // min(-0,+0) = -0
        assert_eq!(min_max(F32, PZERO, NZERO, false, true, true), NZERO);
        assert_eq!(min_max(F32, NZERO, PZERO, true, true, true), PZERO); // max(-0,+0) = +0
        assert_eq!(min_max(F32, NEG_ONE, ONE, false, true, true), NEG_ONE);
        assert_eq!(min_max(F32, NEG_ONE, ONE, true, true, true), ONE);
        assert_eq!(min_max(F32, NEG_INF, TWO, false, true, true), NEG_INF);
        // The literal DS rule keeps memory for a pair of zeros.
        assert_eq!(min_max_literal(F32, NZERO, PZERO, false, true), PZERO);
        assert_eq!(min_max_literal(F32, QNAN, ONE, false, true), ONE);
        assert_eq!(min_max_literal(F32, ONE, QNAN, false, true), QNAN);
    }

    #[test]
    fn min_max_flushes_denormal_inputs_when_asked() {
        assert_eq!(min_max(F32, DENORM, ONE, false, true, true), DENORM);
        assert_eq!(min_max(F32, DENORM, ONE, false, true, false), PZERO);
        assert_eq!(min_max(F32, NEG_DENORM, PZERO, false, true, false), NZERO);
    }

    #[test]
    fn float_equality() {
        assert!(float_eq(F32, PZERO, NZERO, true)); // +0 == -0
        assert!(!float_eq(F32, QNAN, QNAN, true)); // NaN != NaN, same bits
        assert!(float_eq(F32, ONE, ONE, true));
        assert!(!float_eq(F32, DENORM, PZERO, true));
        assert!(float_eq(F32, DENORM, PZERO, false)); // flushed denormal equals zero
        assert!(float_eq(F64, 0x8000_0000_0000_0000, 0, true)); // f64 -0 == +0
    }

    #[test]
    fn add_rounds_to_nearest_even() {
        assert_eq!(add_f32(ONE as u32, ONE as u32, true), TWO as u32);
        // 1 + 2^-24 is a tie between 1 and 1+2^-23: even mantissa (1.0) wins.
        assert_eq!(add_f32(0x3f80_0000, 0x3380_0000, true), 0x3f80_0000);
        // 1+2^-23 + 2^-24 ties towards the even neighbour 1+2^-22.
        assert_eq!(add_f32(0x3f80_0001, 0x3380_0000, true), 0x3f80_0002);
        // x + (-x) is +0 under nearest-even.
        assert_eq!(add_f32(ONE as u32, NEG_ONE as u32, true), PZERO as u32);
        assert_eq!(add_f32(NZERO as u32, NZERO as u32, true), NZERO as u32);
    }

    #[test]
    fn add_denormal_mode() {
        // denormal + denormal = 2 * smallest denormal when kept ...
        assert_eq!(add_f32(DENORM as u32, DENORM as u32, true), 0x0000_0002);
        // ... and 0 when flushed.
        assert_eq!(add_f32(DENORM as u32, DENORM as u32, false), 0);
        // A normal result from normal inputs is untouched by the mode.
        assert_eq!(add_f32(0x0080_0000, 0x0080_0000, false), 0x0100_0000); // 2 * min normal
                                                                           // min normal + (-(min normal - 1ulp)) = smallest denormal, flushed to +0.
        assert_eq!(add_f32(0x0080_0000, 0x807f_ffff, false), 0x0080_0000); // input flushed: min normal - 0
        assert_eq!(add_f32(0x0080_0001, 0x8080_0000, false), 0); // result denormal: flushed
        assert_eq!(add_f32(0x0080_0001, 0x8080_0000, true), 1); // kept
    }

    #[test]
    fn add_nan_rules() {
        assert_eq!(add_f32(SNAN as u32, ONE as u32, true), 0x7fc0_0001); // mem NaN, quieted
        assert_eq!(add_f32(ONE as u32, QNAN as u32, true), QNAN as u32);
        assert_eq!(add_f32(QNAN as u32, SNAN as u32, true), QNAN as u32); // first NaN wins
        assert_eq!(add_f32(INF as u32, NEG_INF as u32, true), F32_DEFAULT_NAN);
        assert_eq!(add_f32(INF as u32, ONE as u32, true), INF as u32);
        assert_eq!(
            add_f32_nan_alternatives(QNAN as u32, SNAN as u32),
            vec![QNAN as u32, 0x7fc0_0001, F32_DEFAULT_NAN]
        );
        assert!(add_f32_nan_alternatives(ONE as u32, ONE as u32).is_empty());
    }

    #[test]
    fn pk_add_nan_alternatives_follow_the_add_f32_rule_per_half() {
        // lo: qNaN (mem) + sNaN (data); hi: 1.0 + 1.0 (no NaN: one choice).
        let (q, s, one) = (0x7e01u32, 0x7c02u32, 0x3c00u32);
        let mem = q | one << 16;
        let data = s | one << 16;
        assert_eq!(add_packed(F16, mem, data, true), q | 0x4000 << 16); // mem's NaN first
        let alts = add_packed_nan_alternatives(F16, mem, data, true);
        // data's NaN quieted, the default NaN; hi always 2.0.
        assert_eq!(alts, vec![0x7e02 | 0x4000 << 16, 0x7e00 | 0x4000 << 16]);
        // inf + -inf: the default NaN is the model's; no input NaN to choose.
        assert!(add_packed_nan_alternatives(BF16, 0x7f80, 0xff80, true).is_empty());
        assert!(add_packed_nan_alternatives(F16, one, one, true).is_empty());
        // Both halves NaN: 3 x 3 combinations less the model's.
        let both = add_packed_nan_alternatives(F16, q | q << 16, s | s << 16, true);
        assert_eq!(both.len(), 8);
    }

    #[test]
    fn min_max_num_follows_the_rdna4_pseudocode() {
        // One NaN: the other operand, whichever side and whether signalling or quiet.
        assert_eq!(min_max_num(F32, SNAN, ONE, false, true), ONE);
        assert_eq!(min_max_num(F32, ONE, SNAN, true, true), ONE);
        assert_eq!(min_max_num(F32, QNAN, NEG_ONE, true, true), NEG_ONE);
        // Two NaNs: DATA quieted, memory's payload lost.
        assert_eq!(min_max_num(F32, SNAN, QNAN, false, true), 0x7fc0_0001);
        assert_eq!(min_max_num(F32, NEG_QNAN, SNAN, true, true), NEG_QNAN);
        // Signed zeros: -0 < +0 both ways round.
        assert_eq!(min_max_num(F32, NZERO, PZERO, false, true), NZERO);
        assert_eq!(min_max_num(F32, PZERO, NZERO, false, true), NZERO);
        assert_eq!(min_max_num(F32, PZERO, NZERO, true, true), PZERO);
        assert_eq!(min_max_num(F32, NZERO, PZERO, true, true), PZERO);
        // Equal values keep memory (bit-identical anyway); infinities order normally.
        assert_eq!(min_max_num(F32, NEG_INF, TWO, false, true), NEG_INF);
        assert_eq!(min_max_num(F32, INF, TWO, true, true), INF);
        // f64 and the denormal switch.
        assert_eq!(
            min_max_num(
                F64,
                0x7ff0_0000_0000_0001,
                0x3ff0_0000_0000_0000,
                false,
                true
            ),
            0x3ff0_0000_0000_0000
        );
        assert_eq!(min_max_num(F32, DENORM, ONE, false, false), PZERO);
        assert_eq!(min_max_num(F32, DENORM, ONE, false, true), DENORM);
    }

    #[test]
    fn half_conversions_are_exact_and_round_to_nearest_even() {
        for x in 0..=u16::MAX {
            for h in [F16, BF16] {
                if is_nan(h.as_fmt(), u64::from(x)) {
                    continue;
                }
                assert_eq!(f64_to_half(h, half_to_f64(h, x)), x, "{h:?} {x:#06x}");
            }
        }
        // f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: the even one (1.0) wins.
        assert_eq!(add_half(F16, 0x3c00, 0x1000, true), 0x3c00);
        // 1 + 2^-10 + 2^-11 ties up to 1 + 2^-9.
        assert_eq!(add_half(F16, 0x3c01, 0x1000, true), 0x3c02);
        // 65504 + 8 rounds down to 65504; + 16 is a tie whose even neighbour is 2^16: inf.
        assert_eq!(add_half(F16, 0x7bff, 0x4800, true), 0x7bff);
        assert_eq!(add_half(F16, 0x7bff, 0x4c00, true), 0x7c00);
        // bf16: 1 + 2^-8 is a tie: 1.0; 1 + 2^-7 + 2^-8 ties up.
        assert_eq!(add_half(BF16, 0x3f80, 0x3b80, true), 0x3f80);
        assert_eq!(add_half(BF16, 0x3f81, 0x3b80, true), 0x3f82);
    }

    #[test]
    fn half_add_denormals_nans_and_zeros() {
        // Smallest f16 denormal twice: kept, or flushed to +0.
        assert_eq!(add_half(F16, 0x0001, 0x0001, true), 0x0002);
        assert_eq!(add_half(F16, 0x0001, 0x0001, false), 0x0000);
        // A denormal result of normal inputs is flushed too (sign kept).
        assert_eq!(add_half(F16, 0x0401, 0x8400, false), 0x0000);
        assert_eq!(add_half(F16, 0x0401, 0x8400, true), 0x0001);
        // NaNs: first of (mem, data) quieted; inf - inf the default NaN.
        assert_eq!(add_half(F16, 0x7c01, 0x3c00, true), 0x7e01);
        assert_eq!(add_half(F16, 0x3c00, 0xfe00, true), 0xfe00);
        assert_eq!(add_half(F16, 0x7c00, 0xfc00, true), 0x7e00);
        assert_eq!(add_half(BF16, 0x7f80, 0xff80, true), 0x7fc0);
        // x + -x = +0; -0 + -0 = -0.
        assert_eq!(add_half(F16, 0x3c00, 0xbc00, true), 0x0000);
        assert_eq!(add_half(F16, 0x8000, 0x8000, true), 0x8000);
        // Packed: halves do not carry into each other.
        assert_eq!(add_packed(F16, 0x3c00_7bff, 0x3c00_5000, true), 0x4000_7c00);
    }
}
