//! The update functions of the DS atomics: one generic read-modify-write over an element type.
//!
//! Source: RDNA3 ISA guide, chapter "Instructions", LDS & GDS instructions (`DS_ADD_U32` ...
//! `DS_WRAP_RTN_B32`, the 64-bit forms): `tmp = MEM[ADDR]; MEM[ADDR] = f(tmp, DATA, DATA2);
//! RETURN_DATA = tmp`. gfx11 cmpstore: DATA is the new value, DATA2 the compare value. The gfx12
//! updates (RDNA4 ISA guide, section 16.15: `DS_MIN_NUM_F32` ... `DS_PK_ADD_RTN_BF16`) are the
//! same shape. Float rules live in [`super::float`]; where the sources leave them a choice, the
//! [`Rules`] argument names the reading (ASSUMPTIONS.md F1-F6, N3).

use super::float::{self, AddNan, Fmt};
use super::readings::{Bf16Denormals, CmpstResult, Rules};
use crate::wave::FpMode;
use ds_isa::ds::{Elem, Rmw};

/// All-ones in the low `bytes * 8` bits.
#[inline(always)]
pub fn mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// Sign-extends the low `bytes * 8` bits of `v`.
#[inline(always)]
fn sext(v: u64, bytes: u32) -> i64 {
    let shift = 64 - bytes * 8;
    ((v << shift) as i64) >> shift
}

/// The float format and denormal switch of a float element.
fn float_of(elem: Elem, mode: FpMode) -> (Fmt, bool) {
    if elem == Elem::F64 {
        (float::F64, mode.fp16_fp64_denormals)
    } else {
        (float::F32, mode.fp32_denormals)
    }
}

/// Whether `ds_pk_add_bf16` keeps denormals in `mode` by the switch N3's reading names.
#[inline(always)]
fn bf16_keeps(mode: FpMode, which: Bf16Denormals) -> bool {
    match which {
        Bf16Denormals::Fp16Fp64 => mode.fp16_fp64_denormals,
        Bf16Denormals::Fp32 => mode.fp32_denormals,
        Bf16Denormals::Never => true,
    }
}

/// The new memory value of `rmw` on element type `elem`: `mem` is the old value, `d0`/`d1` DATA and
/// DATA2, all zero-extended in the low `elem.bytes()` bytes; the float rules by the readings
/// `rules` names ([`Rules::MODEL`]: the model's).
#[inline(always)]
pub fn update(rmw: Rmw, elem: Elem, mode: FpMode, rules: Rules, mem: u64, d0: u64, d1: u64) -> u64 {
    let bytes = elem.bytes();
    let m = mask(bytes);
    let nan = AddNan {
        order: rules.nan_order,
        sign: rules.nan_sign,
    };
    let v = match rmw {
        Rmw::Add if elem == Elem::F32 => u64::from(float::add_f32(
            mem as u32,
            d0 as u32,
            mode.fp32_denormals,
            nan,
        )),
        Rmw::Add if elem == Elem::F64 => float::add_f64(mem, d0, mode.fp16_fp64_denormals, nan),
        Rmw::Add if elem == Elem::F16x2 => u64::from(float::add_packed(
            float::F16,
            mem as u32,
            d0 as u32,
            mode.fp16_fp64_denormals,
            nan,
        )),
        Rmw::Add if elem == Elem::Bf16x2 => u64::from(float::add_packed(
            float::BF16,
            mem as u32,
            d0 as u32,
            bf16_keeps(mode, rules.bf16_denormals),
            nan,
        )),
        Rmw::Add => mem.wrapping_add(d0),
        Rmw::Sub => mem.wrapping_sub(d0),
        Rmw::Rsub => d0.wrapping_sub(mem),
        Rmw::Inc => {
            if mem >= d0 {
                0
            } else {
                mem + 1
            }
        }
        Rmw::Dec => {
            if mem == 0 || mem > d0 {
                d0
            } else {
                mem - 1
            }
        }
        Rmw::Min | Rmw::Max => {
            let max = rmw == Rmw::Max;
            if elem.is_float() {
                let (f, keep) = float_of(elem, mode);
                let (rule, bits) = (rules.min_max, rules.selected_bits);
                float::min_max(f, d0, mem, max, mode.ieee, keep, rule, bits)
            } else {
                let d0_less = if elem.is_signed() {
                    sext(d0, bytes) < sext(mem, bytes)
                } else {
                    d0 < mem
                };
                // min: src < tmp ? src : tmp; max: src >= tmp ? src : tmp.
                if d0_less != max {
                    d0
                } else {
                    mem
                }
            }
        }
        Rmw::And => mem & d0,
        Rmw::Or => mem | d0,
        Rmw::Xor => mem ^ d0,
        Rmw::Mskor => (mem & !d0) | d1,
        Rmw::Xchg => d0,
        Rmw::CmpStore if elem.is_float() => {
            let (f, keep) = float_of(elem, mode);
            let kept = if float::float_eq(f, mem, d1, keep) {
                d0
            } else {
                mem
            };
            match rules.cmpst_result {
                CmpstResult::Flushed => float::flush(f, kept, keep),
                CmpstResult::Untouched => kept,
            }
        }
        Rmw::CmpStore => {
            if mem == d1 {
                d0
            } else {
                mem
            }
        }
        Rmw::Wrap => {
            if mem >= d0 {
                mem.wrapping_sub(d0)
            } else {
                mem.wrapping_add(d1)
            }
        }
        Rmw::MinNum | Rmw::MaxNum => {
            let (f, keep) = float_of(elem, mode);
            float::min_max_num(f, d0, mem, rmw == Rmw::MaxNum, keep)
        }
        Rmw::CondSub => {
            if mem >= d0 {
                mem - d0
            } else {
                mem
            }
        }
        Rmw::SubClamp => mem.saturating_sub(d0),
    };
    v & m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::readings::{Bf16Denormals, CmpstResult};

    const R: Rules = Rules::MODEL;

    const M: FpMode = FpMode {
        fp32_denormals: true,
        fp16_fp64_denormals: true,
        ieee: true,
    };

    fn u32op(rmw: Rmw, elem: Elem, mem: u32, d0: u32, d1: u32) -> u32 {
        update(rmw, elem, M, R, mem.into(), d0.into(), d1.into()) as u32
    }

    #[test]
    fn integer_add_sub_rsub_wrap_around() {
        assert_eq!(u32op(Rmw::Add, Elem::U32, 0xffff_ffff, 1, 0), 0); // u32 max + 1 wraps
        assert_eq!(u32op(Rmw::Sub, Elem::U32, 0, 1, 0), 0xffff_ffff); // 0 - 1 wraps
        assert_eq!(u32op(Rmw::Rsub, Elem::U32, 3, 10, 0), 7); // data - mem
        assert_eq!(u32op(Rmw::Rsub, Elem::U32, 10, 3, 0), 0xffff_fff9); // 3 - 10
        assert_eq!(
            update(Rmw::Add, Elem::U64, M, R, u64::MAX, 2, 0),
            1,
            "u64 max + 2 wraps to 1"
        );
    }

    #[test]
    fn inc_dec_wrap_points() {
        assert_eq!(u32op(Rmw::Inc, Elem::U32, 4, 5, 0), 5); // below limit: +1
        assert_eq!(u32op(Rmw::Inc, Elem::U32, 5, 5, 0), 0); // at limit: back to 0
        assert_eq!(u32op(Rmw::Inc, Elem::U32, 9, 5, 0), 0); // above limit: 0
        assert_eq!(
            u32op(Rmw::Inc, Elem::U32, 0xffff_fffe, 0xffff_ffff, 0),
            0xffff_ffff
        );
        assert_eq!(u32op(Rmw::Dec, Elem::U32, 0, 5, 0), 5); // zero: reload limit
        assert_eq!(u32op(Rmw::Dec, Elem::U32, 6, 5, 0), 5); // above limit: reload
        assert_eq!(u32op(Rmw::Dec, Elem::U32, 5, 5, 0), 4); // at limit: -1
        assert_eq!(
            update(Rmw::Inc, Elem::U64, M, R, u64::MAX - 1, u64::MAX, 0),
            u64::MAX
        );
        assert_eq!(update(Rmw::Dec, Elem::U64, M, R, 0, 1 << 40, 0), 1 << 40);
    }

    #[test]
    fn min_max_signedness() {
        assert_eq!(u32op(Rmw::Min, Elem::I32, 1, 0x8000_0000, 0), 0x8000_0000); // INT_MIN < 1
        assert_eq!(u32op(Rmw::Min, Elem::U32, 1, 0x8000_0000, 0), 1); // unsigned: 1 smaller
        assert_eq!(u32op(Rmw::Max, Elem::I32, 0xffff_ffff, 0, 0), 0); // 0 > -1
        assert_eq!(u32op(Rmw::Max, Elem::U32, 0xffff_ffff, 0, 0), 0xffff_ffff);
        assert_eq!(
            update(Rmw::Min, Elem::I64, M, R, 0, 0x8000_0000_0000_0000, 0),
            0x8000_0000_0000_0000 // INT64_MIN
        );
        assert_eq!(
            update(Rmw::Max, Elem::U64, M, R, 0x8000_0000_0000_0000, 1, 0),
            0x8000_0000_0000_0000
        );
    }

    #[test]
    fn bitwise_mskor_xchg() {
        assert_eq!(u32op(Rmw::And, Elem::B32, 0xf0f0, 0xff00, 0), 0xf000);
        assert_eq!(u32op(Rmw::Or, Elem::B32, 0xf0f0, 0xff00, 0), 0xfff0);
        assert_eq!(u32op(Rmw::Xor, Elem::B32, 0xf0f0, 0xff00, 0), 0x0ff0);
        // mskor: clear the bits of data0, then or in data1.
        assert_eq!(
            u32op(Rmw::Mskor, Elem::B32, 0xffff_ffff, 0x0000_ff00, 0x0000_1200),
            0xffff_12ff
        );
        assert_eq!(u32op(Rmw::Xchg, Elem::B32, 1, 2, 3), 2);
    }

    #[test]
    fn cmpstore_gfx11_operand_order() {
        // data0 = new value, data1 = compare value.
        assert_eq!(u32op(Rmw::CmpStore, Elem::B32, 7, 100, 7), 100); // equal: store data0
        assert_eq!(u32op(Rmw::CmpStore, Elem::B32, 7, 7, 100), 7); // differ: keep
                                                                   // Float compare: -0 matches +0, NaN matches nothing.
        assert_eq!(
            u32op(Rmw::CmpStore, Elem::F32, 0x8000_0000, 0x3f80_0000, 0),
            0x3f80_0000
        );
        assert_eq!(
            u32op(Rmw::CmpStore, Elem::B32, 0x8000_0000, 0x3f80_0000, 0),
            0x8000_0000
        );
        assert_eq!(
            u32op(Rmw::CmpStore, Elem::F32, 0x7fc0_0000, 1, 0x7fc0_0000),
            0x7fc0_0000
        );
        assert_eq!(
            u32op(Rmw::CmpStore, Elem::B32, 0x7fc0_0000, 1, 0x7fc0_0000),
            1
        ); // bits equal
    }

    #[test]
    fn cond_sub_and_sub_clamp_edges() {
        // cond_sub: subtract only when memory >= data; equal gives 0; 0 - 0 = 0.
        assert_eq!(u32op(Rmw::CondSub, Elem::U32, 5, 3, 0), 2);
        assert_eq!(u32op(Rmw::CondSub, Elem::U32, 3, 3, 0), 0);
        assert_eq!(u32op(Rmw::CondSub, Elem::U32, 3, 5, 0), 3); // kept, not wrapped
        assert_eq!(u32op(Rmw::CondSub, Elem::U32, 0, 0, 0), 0);
        assert_eq!(
            u32op(Rmw::CondSub, Elem::U32, 0xffff_ffff, 0xffff_ffff, 0),
            0
        );
        assert_eq!(
            u32op(Rmw::CondSub, Elem::U32, 0x7fff_ffff, 0x8000_0000, 0),
            0x7fff_ffff
        ); // unsigned
           // sub_clamp: clamps at 0 instead of keeping memory.
        assert_eq!(u32op(Rmw::SubClamp, Elem::U32, 5, 3, 0), 2);
        assert_eq!(u32op(Rmw::SubClamp, Elem::U32, 3, 5, 0), 0);
        assert_eq!(u32op(Rmw::SubClamp, Elem::U32, 3, 3, 0), 0);
        assert_eq!(u32op(Rmw::SubClamp, Elem::U32, 0, 0xffff_ffff, 0), 0);
        assert_eq!(
            u32op(Rmw::SubClamp, Elem::U32, 0xffff_ffff, 1, 0),
            0xffff_fffe
        );
    }

    #[test]
    fn min_max_num_ignores_the_ieee_bit() {
        let non_ieee = FpMode { ieee: false, ..M };
        for mode in [M, non_ieee] {
            // sNaN data loses to the memory number under both settings.
            assert_eq!(
                u32op_mode(Rmw::MinNum, mode, 0x3f80_0000, 0x7f80_0001),
                0x3f80_0000
            );
            assert_eq!(
                u32op_mode(Rmw::MaxNum, mode, 0x7fc0_0000, 0xbf80_0000),
                0xbf80_0000
            );
        }
    }

    fn u32op_mode(rmw: Rmw, mode: FpMode, mem: u32, d0: u32) -> u32 {
        update(rmw, Elem::F32, mode, R, mem.into(), d0.into(), 0) as u32
    }

    #[test]
    fn pk_add_denormal_switches() {
        // f16 and bf16 follow the FP16/64 switch (ASSUMPTIONS.md N3: rocJITsu's DS packed
        // atomics); bf16 by the FP32 switch is the reading the model followed before.
        let f16_flush = FpMode {
            fp16_fp64_denormals: false,
            ..M
        };
        let f32_flush = FpMode {
            fp32_denormals: false,
            ..M
        };
        let pk = |elem, mode| update(Rmw::Add, elem, mode, R, 0x0001_0001, 0x0001_0001, 0) as u32;
        assert_eq!(pk(Elem::F16x2, M), 0x0002_0002);
        assert_eq!(pk(Elem::F16x2, f16_flush), 0);
        assert_eq!(pk(Elem::F16x2, f32_flush), 0x0002_0002);
        assert_eq!(pk(Elem::Bf16x2, f16_flush), 0);
        assert_eq!(pk(Elem::Bf16x2, f32_flush), 0x0002_0002);
        let old = |mode, which| {
            let rules = Rules {
                bf16_denormals: which,
                ..R
            };
            update(
                Rmw::Add,
                Elem::Bf16x2,
                mode,
                rules,
                0x0001_0001,
                0x0001_0001,
                0,
            ) as u32
        };
        assert_eq!(old(f32_flush, Bf16Denormals::Fp32), 0);
        assert_eq!(old(f16_flush, Bf16Denormals::Fp32), 0x0002_0002);
        assert_eq!(old(f16_flush, Bf16Denormals::Never), 0x0002_0002);
    }

    #[test]
    fn wrap_rtn() {
        // mem >= data0 ? mem - data0 : mem + data1
        assert_eq!(u32op(Rmw::Wrap, Elem::B32, 10, 4, 100), 6);
        assert_eq!(u32op(Rmw::Wrap, Elem::B32, 4, 4, 100), 0); // equal subtracts
        assert_eq!(u32op(Rmw::Wrap, Elem::B32, 3, 4, 100), 103);
        assert_eq!(u32op(Rmw::Wrap, Elem::B32, 3, 4, 0xffff_ffff), 2); // add wraps
    }

    /// F4: a float compare-store compares flushed inputs and stores DATA flushed (rocJITsu's
    /// FCMPSWAP, the model since issue 29), or DATA's bits (before).
    #[test]
    fn float_cmpstore_stores_the_flushed_result_or_datas_bits() {
        let ftz = FpMode {
            fp32_denormals: false,
            ..M
        };
        let cmp = |rules, mem: u32, new: u32, compare: u32| {
            update(
                Rmw::CmpStore,
                Elem::F32,
                ftz,
                rules,
                mem.into(),
                new.into(),
                compare.into(),
            ) as u32
        };
        let untouched = Rules {
            cmpst_result: CmpstResult::Untouched,
            ..R
        };
        // Memory +0 equals compare value 0: the new value, a denormal, lands flushed or as is.
        assert_eq!(cmp(R, 0, 0x8000_0001, 0), 0x8000_0000);
        assert_eq!(cmp(untouched, 0, 0x8000_0001, 0), 0x8000_0001);
        // A denormal in memory equals +0 when flushed; on a miss memory is written back flushed.
        assert_eq!(cmp(R, 0x0000_0001, 0x3f80_0000, 0), 0x3f80_0000);
        assert_eq!(cmp(R, 0x0000_0001, 0x3f80_0000, 0x4000_0000), 0);
        assert_eq!(cmp(untouched, 0x0000_0001, 0x3f80_0000, 0x4000_0000), 1);
        // Integer compare-stores have no such question.
        assert_eq!(
            update(Rmw::CmpStore, Elem::B32, ftz, R, 1, 0x8000_0001, 1),
            0x8000_0001
        );
    }

    /// `ds_add_f64` (ASSUMPTIONS.md V8), hand-computed: `ds_add_f32`'s rules in binary64.
    #[test]
    fn f64_add_rounds_flushes_and_quiets_as_f32_add_does() {
        let add = |m: f64, d: f64, mode| {
            update(Rmw::Add, Elem::F64, mode, R, m.to_bits(), d.to_bits(), 0)
        };
        let ftz = FpMode {
            fp16_fp64_denormals: false,
            ..M
        };
        assert_eq!(add(1.0, 2.0, M), 3.0f64.to_bits());
        // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: to even, 1.
        assert_eq!(add(1.0, 2f64.powi(-53), M), 1.0f64.to_bits());
        // 1 + 3 x 2^-53 rounds up to 1 + 2^-51.
        assert_eq!(
            add(1.0, 3.0 * 2f64.powi(-53), M),
            (1.0 + 2f64.powi(-51)).to_bits()
        );
        assert_eq!(add(1.0, -1.0, M), 0); // +0
        assert_eq!(add(-0.0, -0.0, M), 1 << 63);
        assert_eq!(add(f64::MAX, f64::MAX, M), f64::INFINITY.to_bits());
        // Denormals: kept, or flushed (inputs and result) by the FP16/FP64 switch, not FP32's.
        let tiny = f64::from_bits(1);
        assert_eq!(add(tiny, tiny, M), 2);
        assert_eq!(add(tiny, tiny, ftz), 0);
        assert_eq!(add(-tiny, 0.0, ftz), 0); // -denormal flushed to -0, + +0 = +0
        let f32_ftz = FpMode {
            fp32_denormals: false,
            ..M
        };
        assert_eq!(add(tiny, tiny, f32_ftz), 2);
        // NaNs: DATA's first, quieted; inf - inf the negative default NaN.
        let snan = 0x7ff0_0000_0000_0001;
        let mem_nan = update(Rmw::Add, Elem::F64, M, R, snan, 1.0f64.to_bits(), 0);
        assert_eq!(mem_nan, 0x7ff8_0000_0000_0001);
        let data_nan = update(
            Rmw::Add,
            Elem::F64,
            M,
            R,
            1.0f64.to_bits(),
            0xfff0_0000_0000_0005,
            0,
        );
        assert_eq!(data_nan, 0xfff8_0000_0000_0005);
        assert_eq!(
            add(f64::INFINITY, f64::NEG_INFINITY, M),
            0xfff8_0000_0000_0000
        );
        // Two NaNs: DATA's (the model), memory's (the reading before issue 29).
        let both = |rules| {
            update(
                Rmw::Add,
                Elem::F64,
                M,
                rules,
                snan,
                0xfff0_0000_0000_0005,
                0,
            )
        };
        assert_eq!(both(R), 0xfff8_0000_0000_0005);
        let old = Rules {
            nan_order: crate::model::readings::NanOrder::MemoryFirst,
            ..R
        };
        assert_eq!(both(old), 0x7ff8_0000_0000_0001);
    }
}
