//! CDNA 4's transpose loads (ASSUMPTIONS.md V9): each lane reads the 8 bytes at its own
//! `ADDR + offset` (its row), then the rows of a group of 16 lanes are redistributed.
//!
//! `ds_read_b64_tr_b16` (modelled): halfword n (0..3) of lane l is halfword `l & 3` of the row of
//! lane `(l & !15) + ((l >> 2) & 3) + 4n`. Sources: ROCm/rocm-systems PR #10175 (rocJITsu's
//! CDNA 4 fix) and its HIP test `LargeStaticLdsReadB64TrB16` (EMU, the PR implies a hardware
//! check); Triton `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp` ("works on 64 bits per
//! lane and in groups of 16 lanes") (DRV).
//!
//! `ds_read_b64_tr_b8` (modelled, *inferred*): byte n (0..7) of lane l is byte `l & 7` of the row
//! of lane `(l & !15) + ((l >> 3) & 1) + 2n`: Triton's generic rule with CDNA 4's
//! `otherLanes = (bitWidth == 8) ? 2 : 4`. No source confirms it on hardware, and rocJITsu's own
//! b8 layout is disputed (rocm-systems issue #10325): every place that shows the op says so
//! ([`inferred`]).
//!
//! `ds_read_b64_tr_b4`, `ds_read_b96_tr_b6`: run, not modelled ([`UNSOURCED_WHY`]): rocJITsu's
//! layouts are "not hardware-verified" (PR #10175), AMD's comgr transpiler leaves the 4- and 6-bit
//! forms unsupported (ROCm/llvm-project PR #4450).
//!
//! EXEC: the CDNA 4 guide requires EXEC to be all ones for these loads (section 11.4, as Triton
//! PR #11434 cites it); a case with any lane off is run and its answer recorded, never judged
//! ([`PARTIAL_EXEC_WHY`]). gfx1250's "any set EXEC bit makes every lane take part" (ROCm/llvm-project
//! PR #4450) is documented for gfx1250's transposes only and is not assumed here.

use super::mem;
use crate::wave::Wave;
use ds_isa::ds::{DsOp, Family};

/// Lanes whose rows one lane's result gathers from.
const GROUP: usize = 16;

/// Why the 4- and 6-bit transposes are run but not judged.
pub const UNSOURCED_WHY: &str = "no sourced layout: rocJITsu's 4- and 6-bit transpose layouts are \
     not hardware-verified (rocm-systems PR #10175) and AMD's comgr transpiler leaves them \
     unsupported (ROCm/llvm-project PR #4450); the device's answer is recorded, not judged \
     (ASSUMPTIONS.md V9)";

/// Why a transpose load with a lane off in EXEC is run but not judged.
pub const PARTIAL_EXEC_WHY: &str = "the CDNA 4 guide requires EXEC to be all ones for the \
     transpose loads (section 11.4, as Triton PR #11434 cites it): with a lane off the result is \
     not defined; the device's answer is recorded, not judged (ASSUMPTIONS.md V9)";

/// Whether the model holds a sourced layout for this transpose width.
pub fn modelled(bits: u8) -> bool {
    matches!(bits, 8 | 16)
}

/// When the model's semantics of `op` are inferred rather than read from a source: why, in words
/// every place that shows the op repeats.
pub fn inferred(op: DsOp) -> Option<&'static str> {
    match op.info().family {
        Family::LoadTranspose(8) => Some(
            "inferred: Triton's 16-lane transpose rule with CDNA 4's two source lanes per byte; \
             no source confirms it on hardware (rocJITsu's own b8 layout is disputed, \
             rocm-systems issue #10325)",
        ),
        _ => None,
    }
}

/// The transpose of `bits`-bit elements over the wave: `rows[l]` is the 8 bytes lane l read;
/// returns each lane's two result dwords.
pub fn transpose(bits: u8, rows: &[[u8; 8]]) -> Vec<[u32; 2]> {
    (0..rows.len())
        .map(|l| {
            let g = l & !(GROUP - 1);
            let mut out = [0u8; 8];
            match bits {
                16 => {
                    for n in 0..4 {
                        let src = &rows[g + ((l >> 2) & 3) + 4 * n];
                        let h = 2 * (l & 3);
                        out[2 * n..2 * n + 2].copy_from_slice(&src[h..h + 2]);
                    }
                }
                8 => {
                    for (n, b) in out.iter_mut().enumerate() {
                        *b = rows[g + ((l >> 3) & 1) + 2 * n][l & 7];
                    }
                }
                _ => unreachable!("{bits}-bit transposes are not modelled"),
            }
            [
                u32::from_le_bytes(out[..4].try_into().expect("4 bytes")),
                u32::from_le_bytes(out[4..].try_into().expect("4 bytes")),
            ]
        })
        .collect()
}

/// The load over `wave`: each lane's row from LDS at `ADDR + offset`, then the transpose into
/// vdst\[0..2\] of the active lanes (the model judges only a full EXEC: `Plan::check_wave`).
pub fn run(bits: u8, offset: u16, wave: &Wave, lds: &[u8], vdst: &mut [[u32; 4]]) {
    let rows: Vec<[u8; 8]> = wave
        .lanes
        .iter()
        .map(|l| {
            let at = l.addr.wrapping_add(u32::from(offset));
            let lo = mem::read_dword(lds, at, 0).to_le_bytes();
            let hi = mem::read_dword(lds, at, 1).to_le_bytes();
            std::array::from_fn(|k| if k < 4 { lo[k] } else { hi[k - 4] })
        })
        .collect();
    for (i, (d, r)) in vdst.iter_mut().zip(transpose(bits, &rows)).enumerate() {
        if wave.active(i) {
            d[..2].copy_from_slice(&r);
        }
    }
}

/// What the emulated device leaves where the model does not judge a transpose load: the modelled
/// widths as [`run`] computes them (every lane's row read, the active lanes written, whatever
/// EXEC), and the 4- and 6-bit forms untransposed (each active lane its own `dwords` dwords). A
/// deterministic stand-in so the op runs on every device; never a judged answer.
pub fn stand_in(
    bits: u8,
    dwords: usize,
    offset: u16,
    wave: &Wave,
    lds: &[u8],
    vdst: &mut [[u32; 4]],
) {
    if modelled(bits) {
        return run(bits, offset, wave, lds, vdst);
    }
    for (i, (d, l)) in vdst.iter_mut().zip(&wave.lanes).enumerate() {
        if wave.active(i) {
            let at = l.addr.wrapping_add(u32::from(offset));
            for (k, w) in d.iter_mut().take(dwords).enumerate() {
                *w = mem::read_dword(lds, at, k as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows whose every byte names its lane and byte: `lane << 3 | byte`.
    fn counting(lanes: usize) -> Vec<[u8; 8]> {
        (0..lanes)
            .map(|l| std::array::from_fn(|b| (l << 3 | b) as u8))
            .collect()
    }

    fn bytes(d: [u32; 2]) -> [u8; 8] {
        let (a, b) = (d[0].to_le_bytes(), d[1].to_le_bytes());
        std::array::from_fn(|k| if k < 4 { a[k] } else { b[k - 4] })
    }

    #[test]
    fn tr_b16_lane_l_gathers_halfword_l_and_3_of_lanes_4_apart() {
        let out = transpose(16, &counting(64));
        // Lane 0: halfword 0 of lanes 0, 4, 8, 12 (rocm-systems PR #10175's example).
        assert_eq!(
            bytes(out[0]),
            [
                0,
                1,
                4 << 3,
                4 << 3 | 1,
                8 << 3,
                8 << 3 | 1,
                12 << 3,
                12 << 3 | 1
            ]
        );
        // Lane 6 (group 0): halfword 2 of lanes 1, 5, 9, 13.
        let want: Vec<u8> = [1, 5, 9, 13]
            .iter()
            .flat_map(|&s| [s << 3 | 4, s << 3 | 5])
            .collect();
        assert_eq!(bytes(out[6]).to_vec(), want);
        // Lane 53 (group 48): halfword 1 of lanes 49, 53, 57, 61.
        let want: Vec<u8> = [49u8, 53, 57, 61]
            .iter()
            .flat_map(|&s| [s << 3 | 2, s << 3 | 3])
            .collect();
        assert_eq!(bytes(out[53]).to_vec(), want);
    }

    #[test]
    fn tr_b8_lane_l_gathers_byte_l_and_7_of_lanes_2_apart() {
        let out = transpose(8, &counting(64));
        // Lane 0: byte 0 of lanes 0, 2, ..., 14; lane 9: byte 1 of lanes 1, 3, ..., 15.
        assert_eq!(bytes(out[0]), std::array::from_fn(|n| ((2 * n) << 3) as u8));
        assert_eq!(
            bytes(out[9]),
            std::array::from_fn(|n| ((1 + 2 * n) << 3 | 1) as u8)
        );
        // Lane 37 (group 32): byte 5 of lanes 32, 34, ..., 46.
        assert_eq!(
            bytes(out[37]),
            std::array::from_fn(|n| ((32 + 2 * n) << 3 | 5) as u8)
        );
    }

    #[test]
    fn only_b8_is_marked_inferred_and_only_b8_b16_are_modelled() {
        assert!(inferred(DsOp::ReadB64TrB8).is_some_and(|w| w.starts_with("inferred")));
        assert!(inferred(DsOp::ReadB64TrB16).is_none());
        assert!([8, 16].into_iter().all(modelled));
        assert!(![4, 6].into_iter().any(modelled));
    }
}
