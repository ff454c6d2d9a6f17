//! Hand-computed checks of the float rules (`super`), one per rule and reading.

use super::half::{f64_to_half, half_to_f64};
use super::*;
use crate::model::readings::{MinMaxRule, NanOrder, NanSign, SelectedBits};

/// The model's readings of F1 and F2 with the flushed bits returned (the rule alone).
fn mm(s0: u64, s1: u64, max: bool, ieee: bool, keep: bool) -> u64 {
    min_max(
        F32,
        s0,
        s1,
        max,
        ieee,
        keep,
        MinMaxRule::Valu,
        SelectedBits::Flushed,
    )
}

fn literal(s0: u64, s1: u64, max: bool, keep: bool) -> u64 {
    min_max(
        F32,
        s0,
        s1,
        max,
        true,
        keep,
        MinMaxRule::Literal,
        SelectedBits::Flushed,
    )
}

/// The model's NaN readings (F3, F6).
const M: AddNan = AddNan::MODEL;
/// The readings the model followed before issue 29.
const OLD: AddNan = AddNan {
    order: NanOrder::MemoryFirst,
    sign: NanSign::Positive,
};

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
    assert_eq!(mm(SNAN, ONE, false, true, true), 0x7fc0_0001);
    assert_eq!(mm(ONE, SNAN, true, true, true), 0x7fc0_0001);
    // A quiet NaN loses to a number.
    assert_eq!(mm(QNAN, ONE, false, true, true), ONE);
    assert_eq!(mm(ONE, QNAN, true, true, true), ONE);
    // Outside IEEE mode a signalling NaN loses too, unquieted nowhere.
    assert_eq!(mm(SNAN, ONE, false, false, true), ONE);
    // Two quiet NaNs: s1 is a NaN, so s0 is returned as is.
    assert_eq!(mm(QNAN, NEG_QNAN, false, true, true), QNAN);
}

#[test]
fn min_max_signed_zero_and_order() {
    assert_eq!(mm(NZERO, PZERO, false, true, true), NZERO); // min(-0,+0) = -0
    assert_eq!(mm(PZERO, NZERO, false, true, true), NZERO);
    assert_eq!(mm(NZERO, PZERO, true, true, true), PZERO); // max(-0,+0) = +0
    assert_eq!(mm(NEG_ONE, ONE, false, true, true), NEG_ONE);
    assert_eq!(mm(NEG_ONE, ONE, true, true, true), ONE);
    assert_eq!(mm(NEG_INF, TWO, false, true, true), NEG_INF);
    // The literal DS rule keeps memory for a pair of zeros.
    assert_eq!(literal(NZERO, PZERO, false, true), PZERO);
    assert_eq!(literal(QNAN, ONE, false, true), ONE);
    assert_eq!(literal(ONE, QNAN, false, true), QNAN);
}

/// F2: the inputs are compared flushed; the stored value is the selected operand's own bits
/// (rocJITsu's legacy min/max, the model since issue 29) or its flushed bits (before).
#[test]
fn min_max_compares_flushed_and_returns_the_selected_bits() {
    let kept = |s0, s1| {
        min_max(
            F32,
            s0,
            s1,
            false,
            true,
            false,
            MinMaxRule::Valu,
            SelectedBits::Original,
        )
    };
    assert_eq!(mm(DENORM, ONE, false, true, true), DENORM);
    assert_eq!(mm(DENORM, ONE, false, true, false), PZERO);
    assert_eq!(kept(DENORM, ONE), DENORM);
    assert_eq!(mm(NEG_DENORM, PZERO, false, true, false), NZERO);
    assert_eq!(kept(NEG_DENORM, PZERO), NEG_DENORM);
    // Compared as zeros: -0 (flushed -denormal) < +0 (flushed denormal) selects DATA.
    assert_eq!(kept(NEG_DENORM, DENORM), NEG_DENORM);
    // Equal after flushing: memory is kept, with its own bits.
    assert_eq!(kept(PZERO, DENORM), DENORM);
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
    assert_eq!(add_f32(ONE as u32, ONE as u32, true, M), TWO as u32);
    // 1 + 2^-24 is a tie between 1 and 1+2^-23: even mantissa (1.0) wins.
    assert_eq!(add_f32(0x3f80_0000, 0x3380_0000, true, M), 0x3f80_0000);
    // 1+2^-23 + 2^-24 ties towards the even neighbour 1+2^-22.
    assert_eq!(add_f32(0x3f80_0001, 0x3380_0000, true, M), 0x3f80_0002);
    // x + (-x) is +0 under nearest-even.
    assert_eq!(add_f32(ONE as u32, NEG_ONE as u32, true, M), PZERO as u32);
    assert_eq!(add_f32(NZERO as u32, NZERO as u32, true, M), NZERO as u32);
}

#[test]
fn add_denormal_mode() {
    // denormal + denormal = 2 * smallest denormal when kept ...
    assert_eq!(add_f32(DENORM as u32, DENORM as u32, true, M), 0x0000_0002);
    // ... and 0 when flushed.
    assert_eq!(add_f32(DENORM as u32, DENORM as u32, false, M), 0);
    // A normal result from normal inputs is untouched by the mode.
    assert_eq!(add_f32(0x0080_0000, 0x0080_0000, false, M), 0x0100_0000); // 2 * min normal
                                                                          // min normal + (-(min normal - 1ulp)) = smallest denormal, flushed to +0.
    assert_eq!(add_f32(0x0080_0000, 0x807f_ffff, false, M), 0x0080_0000); // input flushed: min normal - 0
    assert_eq!(add_f32(0x0080_0001, 0x8080_0000, false, M), 0); // result denormal: flushed
    assert_eq!(add_f32(0x0080_0001, 0x8080_0000, true, M), 1); // kept
}

/// F3 and F6: rocJITsu's LDS add takes DATA's NaN first and gives the negative quiet NaN for
/// `inf + -inf` (the model since issue 29); the model before took memory's first and the
/// positive default NaN (kept as legal readings).
#[test]
fn add_nan_readings() {
    let dflt = AddNan {
        order: NanOrder::DefaultNan,
        ..M
    };
    assert_eq!(add_f32(SNAN as u32, ONE as u32, true, M), 0x7fc0_0001); // mem NaN, quieted
    assert_eq!(add_f32(ONE as u32, QNAN as u32, true, M), QNAN as u32);
    assert_eq!(add_f32(QNAN as u32, SNAN as u32, true, M), 0x7fc0_0001); // DATA's first
    assert_eq!(add_f32(QNAN as u32, SNAN as u32, true, OLD), QNAN as u32); // memory's first
    assert_eq!(add_f32(QNAN as u32, SNAN as u32, true, dflt), 0xffc0_0000);
    assert_eq!(add_f32(ONE as u32, QNAN as u32, true, dflt), 0xffc0_0000);
    assert_eq!(add_f32(INF as u32, NEG_INF as u32, true, M), 0xffc0_0000);
    assert_eq!(add_f32(INF as u32, NEG_INF as u32, true, OLD), 0x7fc0_0000);
    assert_eq!(add_f32(INF as u32, ONE as u32, true, M), INF as u32);
    assert_eq!(add_f32(INF as u32, ONE as u32, true, OLD), INF as u32);
    // The other formats' default NaNs (F6): f64, f16, bf16.
    let inf64 = f64::INFINITY.to_bits();
    assert_eq!(
        add_f64(inf64, f64::NEG_INFINITY.to_bits(), true, M),
        0xfff8_0000_0000_0000
    );
    assert_eq!(
        add_f64(inf64, f64::NEG_INFINITY.to_bits(), true, OLD),
        0x7ff8_0000_0000_0000
    );
    assert_eq!(add_half(F16, 0x7c00, 0xfc00, true, M), 0xfe00);
    assert_eq!(add_half(F16, 0x7c00, 0xfc00, true, OLD), 0x7e00);
    assert_eq!(add_half(BF16, 0x7f80, 0xff80, true, M), 0xffc0);
    assert_eq!(add_half(BF16, 0x7f80, 0xff80, true, OLD), 0x7fc0);
}

#[test]
fn pk_add_nan_readings_apply_per_half() {
    // lo: qNaN (mem) + sNaN (data); hi: 1.0 + 1.0 (no NaN).
    let (q, s, one) = (0x7e01u32, 0x7c02u32, 0x3c00u32);
    let mem = q | one << 16;
    let data = s | one << 16;
    assert_eq!(add_packed(F16, mem, data, true, M), 0x7e02 | 0x4000 << 16); // DATA's NaN
    assert_eq!(add_packed(F16, mem, data, true, OLD), q | 0x4000 << 16); // memory's NaN
}

/// F1's three rules on the cases where they part.
#[test]
fn min_max_rules_part_on_nans_and_zeros() {
    let rule =
        |r, s0, s1, max, ieee| min_max(F32, s0, s1, max, ieee, true, r, SelectedBits::Original);
    // Two signalling NaNs: V_MIN takes DATA's, rocJITsu's legacy rule memory's, the literal
    // rule keeps memory as it is.
    let s2 = 0x7f80_0002;
    assert_eq!(rule(MinMaxRule::Valu, SNAN, s2, false, true), 0x7fc0_0001);
    assert_eq!(rule(MinMaxRule::Legacy, SNAN, s2, false, true), 0x7fc0_0002);
    assert_eq!(rule(MinMaxRule::Literal, SNAN, s2, false, true), s2);
    // Outside IEEE mode a signalling NaN still wins under the legacy rule.
    assert_eq!(rule(MinMaxRule::Valu, SNAN, ONE, false, false), ONE);
    assert_eq!(
        rule(MinMaxRule::Legacy, SNAN, ONE, false, false),
        0x7fc0_0001
    );
    // Two quiet NaNs: DATA's (V_MIN), memory's quieted (legacy).
    assert_eq!(rule(MinMaxRule::Valu, QNAN, NEG_QNAN, false, true), QNAN);
    assert_eq!(
        rule(MinMaxRule::Legacy, QNAN, NEG_QNAN, false, true),
        NEG_QNAN
    );
    // -0 against +0: both order rules take -0 for min; the literal rule keeps memory.
    assert_eq!(rule(MinMaxRule::Legacy, NZERO, PZERO, false, true), NZERO);
    assert_eq!(rule(MinMaxRule::Literal, NZERO, PZERO, false, true), PZERO);
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
    assert_eq!(add_half(F16, 0x3c00, 0x1000, true, M), 0x3c00);
    // 1 + 2^-10 + 2^-11 ties up to 1 + 2^-9.
    assert_eq!(add_half(F16, 0x3c01, 0x1000, true, M), 0x3c02);
    // 65504 + 8 rounds down to 65504; + 16 is a tie whose even neighbour is 2^16: inf.
    assert_eq!(add_half(F16, 0x7bff, 0x4800, true, M), 0x7bff);
    assert_eq!(add_half(F16, 0x7bff, 0x4c00, true, M), 0x7c00);
    // bf16: 1 + 2^-8 is a tie: 1.0; 1 + 2^-7 + 2^-8 ties up.
    assert_eq!(add_half(BF16, 0x3f80, 0x3b80, true, M), 0x3f80);
    assert_eq!(add_half(BF16, 0x3f81, 0x3b80, true, M), 0x3f82);
}

#[test]
fn half_add_denormals_nans_and_zeros() {
    // Smallest f16 denormal twice: kept, or flushed to +0.
    assert_eq!(add_half(F16, 0x0001, 0x0001, true, M), 0x0002);
    assert_eq!(add_half(F16, 0x0001, 0x0001, false, M), 0x0000);
    // A denormal result of normal inputs is flushed too (sign kept).
    assert_eq!(add_half(F16, 0x0401, 0x8400, false, M), 0x0000);
    assert_eq!(add_half(F16, 0x0401, 0x8400, true, M), 0x0001);
    // NaNs: the one input NaN quieted; inf - inf the (negative) default NaN.
    assert_eq!(add_half(F16, 0x7c01, 0x3c00, true, M), 0x7e01);
    assert_eq!(add_half(F16, 0x3c00, 0xfe00, true, M), 0xfe00);
    assert_eq!(add_half(F16, 0x7c00, 0xfc00, true, M), 0xfe00);
    assert_eq!(add_half(BF16, 0x7f80, 0xff80, true, M), 0xffc0);
    // x + -x = +0; -0 + -0 = -0.
    assert_eq!(add_half(F16, 0x3c00, 0xbc00, true, M), 0x0000);
    assert_eq!(add_half(F16, 0x8000, 0x8000, true, M), 0x8000);
    // Packed: halves do not carry into each other.
    assert_eq!(
        add_packed(F16, 0x3c00_7bff, 0x3c00_5000, true, M),
        0x4000_7c00
    );
}
