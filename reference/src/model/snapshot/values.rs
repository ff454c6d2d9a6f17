//! The values and building blocks of the snapshot corpora (`corpus`, `src2`): the edge tables of
//! each element type, the base case, the variant, the counting LDS image. Deterministic.

use crate::wave::{Case, FpMode, Lds, Variant, Wave, WaveSize};
use ds_isa::ds::DsOp;

/// The vdst value of every lane before the instruction, so partial and skipped writes show.
pub const SENTINEL: u32 = 0xdead_beef;
/// LDS bytes of most corpus cases: one descriptor LDS unit (LLVM AMDGPUUsage,
/// COMPUTE_PGM_RSRC2.GRANULATED_LDS_SIZE: 128 dwords on GFX7 and later). The hardware may
/// allocate more (the target's `lds_granule`); the kernels zero the rest, so a probe past the
/// image reads 0 either way (ASSUMPTIONS.md A1). Stride-64 ops use two units.
pub(super) const LDS_SIZE: u32 = 512;

/// (mem, data0, data1) triples for 32-bit integer atomics: at/below/above a limit, zero, the
/// unsigned and signed extremes, mixed bits.
pub(super) const INT32: [(u32, u32, u32); 8] = [
    (5, 5, 7),
    (4, 5, 7),
    (9, 5, 7),
    (0, 5, 7),
    (0xffff_ffff, 1, 2),
    (0x8000_0000, 0x7fff_ffff, 0x8000_0000),
    (0x7fff_ffff, 0x8000_0000, 0xffff_ffff),
    (0x1234_5678, 0x0000_ffff, 0xabcd_0000),
];

/// The same for 64-bit atomics, with carries across the 32-bit boundary.
pub(super) const INT64: [(u64, u64, u64); 8] = [
    (5, 5, 7),
    (4, 5, 7),
    (9, 5, 7),
    (0, 5, 7),
    (u64::MAX, 1, 2),
    (1 << 63, (1 << 63) - 1, 1 << 63),
    ((1 << 63) - 1, 1 << 63, u64::MAX),
    (
        0x1234_5678_ffff_ffff,
        0x0000_0000_0000_0001,
        0x0000_0001_0000_0000,
    ),
];

/// (mem, data0, data1) for binary32: signed zeros, NaNs with payloads, infinities, denormals, a
/// rounding tie, overflow.
pub(super) const F32S: [(u32, u32, u32); 8] = [
    (0x3f80_0000, 0x4000_0000, 0x3f80_0000), // 1.0, 2.0, cmp 1.0 (equal)
    (0x0000_0000, 0x8000_0000, 0x8000_0000), // +0, -0, cmp -0 (float-equal to +0)
    (0x7fc0_0000, 0x3f80_0000, 0x7fc0_0000), // qNaN mem, 1.0, cmp same NaN bits
    (0x3f80_0000, 0x7f80_0001, 0x3f80_0000), // 1.0, sNaN payload 1, cmp 1.0
    (0x7f80_0000, 0xff80_0000, 0x0000_0000), // +inf, -inf
    (0x0000_0001, 0x0000_0001, 0x0000_0000), // min denormal twice, cmp +0
    (0x3f80_0000, 0x3380_0000, 0xbf80_0000), // 1.0 + 2^-24: a tie, rounds to even
    (0x7f7f_ffff, 0x7f7f_ffff, 0xff80_0000), // max finite twice: overflows to +inf
];

/// (mem, data0, unused) for packed binary16 pairs (low, high): a tie, overflow, denormals, NaNs,
/// inf - inf, signed zeros, halves that must not carry into each other.
pub(super) const PKF16: [(u32, u32, u32); 8] = [
    (0x3c00_3c00, 0x4000_3c00, 0), // 1+1 | 1+2
    (0x3c00_1000, 0x3c00_3c00, 0), // 2^-11 + 1 (tie, even) | 2
    (0x7bff_7bff, 0x4c00_4800, 0), // 65504 + 8 (stays) | 65504 + 16 (tie to 2^16: inf)
    (0x0001_0001, 0x8000_0001, 0), // denormal + denormal | denormal + -0
    (0x7c01_3c00, 0x3c00_fe00, 0), // 1 + -qNaN | sNaN + 1
    (0x7c00_fc00, 0xfc00_7c00, 0), // -inf + inf | inf + -inf
    (0x8000_3c00, 0x8000_bc00, 0), // 1 + -1 = +0 | -0 + -0 = -0
    (0x0401_ffff, 0x8400_0001, 0), // NaN + denormal | min normal - min normal' (denormal result)
];

/// The same for packed bfloat16 pairs.
pub(super) const PKBF16: [(u32, u32, u32); 8] = [
    (0x3f80_3f80, 0x4000_3f80, 0), // 1+1 | 1+2
    (0x3f80_3b80, 0x3f80_3f80, 0), // 2^-8 + 1 (tie, even) | 2
    (0x7f7f_7f7f, 0x7f7f_7b80, 0), // max + small (stays) | max + max (inf)
    (0x0001_0001, 0x8000_0001, 0), // denormal + denormal | denormal + -0
    (0x7f81_3f80, 0x3f80_ffc0, 0), // 1 + -qNaN | sNaN + 1
    (0x7f80_ff80, 0xff80_7f80, 0), // -inf + inf | inf + -inf
    (0x8000_3f80, 0x8000_bf80, 0), // 1 + -1 = +0 | -0 + -0 = -0
    (0x0081_ffff, 0x8080_0001, 0), // NaN + denormal | min normal - min normal' (denormal result)
];

/// The same for binary64.
pub(super) const F64S: [(u64, u64, u64); 8] = [
    (
        0x3ff0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0x3ff0_0000_0000_0000,
    ), // 1.0, 2.0, cmp 1.0
    (
        0x0000_0000_0000_0000,
        0x8000_0000_0000_0000,
        0x8000_0000_0000_0000,
    ), // +0, -0, cmp -0
    (
        0x7ff8_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
    ), // qNaN mem
    (
        0x3ff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x3ff0_0000_0000_0000,
    ), // sNaN data
    (0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0), // +inf, -inf
    (0x0000_0000_0000_0001, 0x0000_0000_0000_0001, 0), // denormals, cmp +0
    (
        0xbff0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
    ), // -1, 1, cmp -1
    (
        0x8000_0000_0000_0001,
        0x0000_0000_0000_0000,
        0x0000_0000_0000_0000,
    ), // -denormal, +0
];

/// Store data: low/high halves and bytes that differ, sign bits, all ones.
pub(super) const STORE_DATA: [u32; 8] = [
    0x8765_4321,
    0xffff_ffff,
    0x0000_0080,
    0x8000_8000,
    0x1234_5678,
    0x00ff_00ff,
    0xcafe_f00d,
    0x0000_0001,
];

pub(super) fn base_case(exec: u32) -> Case {
    let mut wave = Wave {
        exec: u64::from(exec),
        ..Wave::default()
    };
    for l in wave.lanes.iter_mut() {
        l.vdst = [SENTINEL; 4];
    }
    Case {
        lds: Lds::zeroed(LDS_SIZE),
        wave,
    }
}

pub(super) fn variant(op: DsOp, offset0: u8, offset1: u8, mode: FpMode) -> Variant {
    Variant {
        op,
        offset0,
        offset1,
        lds_size: LDS_SIZE,
        mode,
        wave: WaveSize::Wave32,
        regs: None,
        acc: false,
    }
}

/// LDS whose byte `i` is `i` (so a load shows the address it read, and bytes >= 0x80 are
/// negative) in the first 256 bytes and the last 32; elsewhere only the first 32 bytes of each
/// 256-byte block are non-zero (`block << 5 | i % 32`), to keep the snapshots short.
pub(super) fn counting_lds(size: u32) -> Lds {
    Lds::from_bytes(
        (0..size)
            .map(|i| match i {
                0..=255 => i as u8,
                _ if i >= size - 32 => i as u8,
                _ if i % 256 < 32 => (((i / 256) << 5) | (i % 32)) as u8,
                _ => 0,
            })
            .collect(),
    )
}

pub(super) fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Only the FP16/FP64 switch flushes (FP32 denormals kept, IEEE on): the mode that tells which
/// switch flushes bf16 (ASSUMPTIONS.md N3).
pub(super) const FTZ16_ONLY: FpMode = FpMode {
    fp32_denormals: true,
    fp16_fp64_denormals: false,
    ieee: true,
};

/// The flush-to-zero, non-IEEE mode, to show the mode-dependent rules.
pub(super) const FTZ_NON_IEEE: FpMode = FpMode {
    fp32_denormals: false,
    fp16_fp64_denormals: false,
    ieee: false,
};
