//! The transpose loads (ASSUMPTIONS.md V9 for CDNA 4's, C1 and C2 for gfx12.5's): each lane
//! reads its own row (VDST's width: 8, 12 or 16 bytes) at its own `ADDR + offset`, then the rows
//! of a lane group are redistributed by the row's lane map ([`TrMap`], the DS table's rows).
//!
//! CDNA 4: `ds_read_b64_tr_b16` (modelled): halfword n (0..3) of lane l is halfword
//! `l & 3` of the row of lane `(l & !15) + ((l >> 2) & 3) + 4n`. Sources: ROCm/rocm-systems PR
//! #10175 (rocJITsu's CDNA 4 fix) and its HIP test `LargeStaticLdsReadB64TrB16` (EMU, the PR
//! implies a hardware check); Triton `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`
//! ("works on 64 bits per lane and in groups of 16 lanes") (DRV). `ds_read_b64_tr_b8` (modelled,
//! *inferred*): byte n (0..7) of lane l is byte `l & 7` of the row of lane
//! `(l & !15) + ((l >> 3) & 1) + 2n`: Triton's generic rule with CDNA 4's
//! `otherLanes = (bitWidth == 8) ? 2 : 4`. No source confirms it on hardware, and rocJITsu's own
//! b8 layout is disputed (rocm-systems issue #10325): every place that shows the op says so
//! ([`inferred`]). EXEC: the CDNA 4 guide requires EXEC to be all ones (section 11.4, as Triton PR
//! #11434 cites it); a case with a lane off is run and recorded, never judged
//! ([`PARTIAL_EXEC_WHY`]).
//!
//! gfx12.5: `ds_load_tr16_b128` (modelled): a plain 8x8 transpose in 8-lane groups, halfword n
//! (0..7) of lane l is halfword `l & 7` of the 16-byte row of lane `(l & !7) + n`. Sources: AMD's
//! ROCm blog "A Deep Dive into LDS Optimizations on AMD Instinct MI450 GPUs" (DOC); rocJITsu
//! `ds_transpose.h` `transpose_tr16_b128` (EMU); Triton `MemoryOpToLLVM.cpp` `lowerDsReadTr`
//! (DRV). `ds_load_tr8_b64` (modelled): 16-lane groups, two runs of four rows: byte n (0..7) of
//! lane l is byte `l & 7` of the row of lane `(l & !15) + 4 * ((l >> 3) & 1) + (n & 3) +
//! 8 * (n >> 2)`; not CDNA 4's b8 rule. Sources: rocJITsu `transpose_cdna5_ds_tr_b8` (EMU;
//! rocm-systems issue #10522 / PR #10521: Tensile kernels passed on hardware only with this
//! rule), Triton's gfx12.5 `fullTile` (DRV), the MI450 blog (DOC). EXEC (ASSUMPTIONS.md C1, a
//! named reading): any set EXEC bit makes every lane take part, inactive lanes included (each
//! supplies its row and receives its result); EXEC zero leaves VDST unchanged (ROCm/llvm-project
//! PR #4450, DRV).
//!
//! The 4- and 6-bit forms of both (`ds_read_b64_tr_b4`, `ds_read_b96_tr_b6`, `ds_load_tr4_b64`,
//! `ds_load_tr6_b96`): run, not modelled ([`UNSOURCED_WHY`]): rocJITsu's layouts are "not
//! hardware-verified" (PR #10175), AMD's comgr transpiler leaves the 4- and 6-bit forms
//! unsupported (ROCm/llvm-project PR #4450).

use super::mem;
use super::readings::TrLanes;
use crate::wave::Wave;
use ds_isa::ds::{DsOp, Family, Tr, TrExec, TrMap};

/// The widest row a lane reads (`ds_load_tr16_b128`: 16 bytes).
const ROW: usize = 16;

/// Why the 4- and 6-bit transposes are run but not judged.
pub const UNSOURCED_WHY: &str = "no sourced layout: rocJITsu's 4- and 6-bit transpose layouts are \
     not hardware-verified (rocm-systems PR #10175) and AMD's comgr transpiler leaves them \
     unsupported (ROCm/llvm-project PR #4450); the device's answer is recorded, not judged \
     (ASSUMPTIONS.md V9, C2)";

/// Why a transpose load with a lane off in EXEC is run but not judged where EXEC must be all
/// ones (CDNA 4).
pub const PARTIAL_EXEC_WHY: &str = "the CDNA 4 guide requires EXEC to be all ones for the \
     transpose loads (section 11.4, as Triton PR #11434 cites it): with a lane off the result is \
     not defined; the device's answer is recorded, not judged (ASSUMPTIONS.md V9)";

/// Whether the model holds a sourced layout for this transpose.
pub fn modelled(tr: Tr) -> bool {
    tr.map != TrMap::Unsourced
}

/// When the model's semantics of `op` are inferred rather than read from a source: why, in words
/// every place that shows the op repeats.
pub fn inferred(op: DsOp) -> Option<&'static str> {
    match op.info().family {
        Family::LoadTranspose(Tr {
            map: TrMap::Groups16Pairs,
            ..
        }) => Some(
            "inferred: Triton's 16-lane transpose rule with CDNA 4's two source lanes per byte; \
             no source confirms it on hardware (rocJITsu's own b8 layout is disputed, \
             rocm-systems issue #10325)",
        ),
        _ => None,
    }
}

/// The lane map `map` over the wave: `rows[l]` is the row lane l read (its first bytes); returns
/// each lane's result bytes (the row's width of them meaningful).
pub fn gather(map: TrMap, rows: &[[u8; ROW]]) -> Vec<[u8; ROW]> {
    (0..rows.len())
        .map(|l| {
            let mut out = [0u8; ROW];
            match map {
                TrMap::Groups16Quads => {
                    let g = l & !15;
                    for n in 0..4 {
                        let src = &rows[g + ((l >> 2) & 3) + 4 * n];
                        let h = 2 * (l & 3);
                        out[2 * n..2 * n + 2].copy_from_slice(&src[h..h + 2]);
                    }
                }
                TrMap::Groups16Pairs => {
                    let g = l & !15;
                    for (n, b) in out.iter_mut().take(8).enumerate() {
                        *b = rows[g + ((l >> 3) & 1) + 2 * n][l & 7];
                    }
                }
                TrMap::Groups8 => {
                    let g = l & !7;
                    let h = 2 * (l & 7);
                    for n in 0..8 {
                        out[2 * n..2 * n + 2].copy_from_slice(&rows[g + n][h..h + 2]);
                    }
                }
                TrMap::Groups16Runs4 => {
                    let g = l & !15;
                    for (n, b) in out.iter_mut().take(8).enumerate() {
                        *b = rows[g + 4 * ((l >> 3) & 1) + (n & 3) + 8 * (n >> 2)][l & 7];
                    }
                }
                TrMap::Unsourced => unreachable!("no sourced layout to gather by"),
            }
            out
        })
        .collect()
}

/// Each lane's row: `dwords` dwords at its `ADDR + offset` (every lane, active or not).
fn rows(dwords: usize, offset: u16, wave: &Wave, lds: &[u8]) -> Vec<[u8; ROW]> {
    wave.lanes
        .iter()
        .map(|l| {
            let at = l.addr.wrapping_add(u32::from(offset));
            let mut row = [0u8; ROW];
            for k in 0..dwords {
                let d = mem::read_dword(lds, at, k as u32).to_le_bytes();
                row[4 * k..4 * k + 4].copy_from_slice(&d);
            }
            row
        })
        .collect()
}

/// Which lanes receive a result: the active ones, or (an EXEC rule of "any set bit" read as
/// every lane taking part, ASSUMPTIONS.md C1) every lane when any is on.
fn receives(tr: Tr, lanes: TrLanes, wave: &Wave, i: usize) -> bool {
    match (tr.exec, lanes) {
        (TrExec::AnySet, TrLanes::Every) => wave.exec != 0,
        _ => wave.active(i),
    }
}

/// The load over `wave`: every lane's row from LDS at `ADDR + offset`, then the transpose into
/// vdst\[0..dwords\] of the lanes that receive it ([`TrLanes`] for a gfx12.5 transpose; the active
/// lanes of a CDNA 4 one, which the model judges only with a full EXEC: `Plan::check_case`).
pub fn run(
    tr: Tr,
    dwords: usize,
    offset: u16,
    lanes: TrLanes,
    wave: &Wave,
    lds: &[u8],
    vdst: &mut [[u32; 4]],
) {
    let out = gather(tr.map, &rows(dwords, offset, wave, lds));
    for (i, (d, r)) in vdst.iter_mut().zip(out).enumerate() {
        if receives(tr, lanes, wave, i) {
            for (k, w) in d.iter_mut().take(dwords).enumerate() {
                *w = u32::from_le_bytes(r[4 * k..4 * k + 4].try_into().expect("4 bytes"));
            }
        }
    }
}

/// What the emulated device leaves where the model does not judge a transpose load: the modelled
/// maps as [`run`] computes them (every lane's row read, the lanes the EXEC rule names written,
/// whatever EXEC), and the 4- and 6-bit forms untransposed (each receiving lane its own `dwords`
/// dwords). A deterministic stand-in so the op runs on every device; never a judged answer.
pub fn stand_in(
    tr: Tr,
    dwords: usize,
    offset: u16,
    wave: &Wave,
    lds: &[u8],
    vdst: &mut [[u32; 4]],
) {
    if modelled(tr) {
        return run(tr, dwords, offset, TrLanes::Every, wave, lds, vdst);
    }
    for (i, (d, l)) in vdst.iter_mut().zip(&wave.lanes).enumerate() {
        if receives(tr, TrLanes::Every, wave, i) {
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
    use crate::wave::WaveSize;

    /// Rows whose every byte names its lane and byte: `lane << 4 | byte`.
    fn counting(lanes: usize) -> Vec<[u8; ROW]> {
        (0..lanes)
            .map(|l| std::array::from_fn(|b| (l << 4 | b) as u8))
            .collect()
    }

    fn byte(lane: usize, b: usize) -> u8 {
        (lane << 4 | b) as u8
    }

    #[test]
    fn tr_b16_lane_l_gathers_halfword_l_and_3_of_lanes_4_apart() {
        let out = gather(TrMap::Groups16Quads, &counting(16));
        // Lane 0: halfword 0 of lanes 0, 4, 8, 12 (rocm-systems PR #10175's example).
        let want: Vec<u8> = [0, 4, 8, 12]
            .iter()
            .flat_map(|&s| [byte(s, 0), byte(s, 1)])
            .collect();
        assert_eq!(out[0][..8].to_vec(), want);
        // Lane 6 (group 0): halfword 2 of lanes 1, 5, 9, 13.
        let want: Vec<u8> = [1, 5, 9, 13]
            .iter()
            .flat_map(|&s| [byte(s, 4), byte(s, 5)])
            .collect();
        assert_eq!(out[6][..8].to_vec(), want);
    }

    #[test]
    fn tr_b8_lane_l_gathers_byte_l_and_7_of_lanes_2_apart() {
        let out = gather(TrMap::Groups16Pairs, &counting(16));
        // Lane 0: byte 0 of lanes 0, 2, ..., 14; lane 9: byte 1 of lanes 1, 3, ..., 15.
        assert_eq!(
            out[0][..8],
            std::array::from_fn::<u8, 8, _>(|n| byte(2 * n, 0))
        );
        assert_eq!(
            out[9][..8],
            std::array::from_fn::<u8, 8, _>(|n| byte(1 + 2 * n, 1))
        );
    }

    #[test]
    fn gfx12_5_tr16_b128_is_a_plain_8x8_transpose_in_8_lane_groups() {
        let out = gather(TrMap::Groups8, &counting(16));
        // Lane 0: halfword 0 of lanes 0..7; lane 13 (group 8): halfword 5 of lanes 8..15.
        for (lane, g, h) in [(0, 0, 0), (13, 8, 5), (15, 8, 7)] {
            let want: Vec<u8> = (0..8)
                .flat_map(|n| [byte(g + n, 2 * h), byte(g + n, 2 * h + 1)])
                .collect();
            assert_eq!(out[lane].to_vec(), want, "lane {lane}");
        }
        // Transposing twice gives the rows back (an 8x8 transpose is its own inverse).
        assert_eq!(gather(TrMap::Groups8, &out), counting(16));
    }

    #[test]
    fn gfx12_5_tr8_b64_takes_two_runs_of_four_rows() {
        // 32 lanes of 8 bytes, every byte its own value: byte b of lane l is l * 8 + b.
        let rows: Vec<[u8; ROW]> = (0..32)
            .map(|l| std::array::from_fn(|b| if b < 8 { (8 * l + b) as u8 } else { 0 }))
            .collect();
        let out = gather(TrMap::Groups16Runs4, &rows);
        let from = |lanes: [usize; 8], b: usize| -> [u8; 8] {
            std::array::from_fn(|n| (8 * lanes[n] + b) as u8)
        };
        // Lane 0: byte 0 of lanes 0, 1, 2, 3, 8, 9, 10, 11; lane 9: byte 1 of lanes 4..7, 12..15.
        assert_eq!(out[0][..8], from([0, 1, 2, 3, 8, 9, 10, 11], 0));
        assert_eq!(out[9][..8], from([4, 5, 6, 7, 12, 13, 14, 15], 1));
        // Lane 23 (group 16, its first eight lanes): byte 7 of lanes 16..19, 24..27; lane 30:
        // byte 6 of lanes 20..23, 28..31.
        assert_eq!(out[23][..8], from([16, 17, 18, 19, 24, 25, 26, 27], 7));
        assert_eq!(out[30][..8], from([20, 21, 22, 23, 28, 29, 30, 31], 6));
        // Not CDNA 4's rule.
        assert_ne!(out, gather(TrMap::Groups16Pairs, &rows));
    }

    #[test]
    fn only_cdna4_b8_is_marked_inferred_and_only_the_sourced_maps_are_modelled() {
        assert!(inferred(DsOp::ReadB64TrB8).is_some_and(|w| w.starts_with("inferred")));
        for op in [DsOp::ReadB64TrB16, DsOp::LoadTr8B64, DsOp::LoadTr16B128] {
            assert!(inferred(op).is_none(), "{op}");
        }
        let tr = |op: DsOp| match op.info().family {
            Family::LoadTranspose(t) => t,
            _ => unreachable!(),
        };
        for op in [
            DsOp::ReadB64TrB8,
            DsOp::ReadB64TrB16,
            DsOp::LoadTr8B64,
            DsOp::LoadTr16B128,
        ] {
            assert!(modelled(tr(op)), "{op}");
        }
        for op in [
            DsOp::ReadB64TrB4,
            DsOp::ReadB96TrB6,
            DsOp::LoadTr4B64,
            DsOp::LoadTr6B96,
        ] {
            assert!(!modelled(tr(op)), "{op}");
        }
    }

    /// gfx12.5's EXEC rule: one lane on makes every lane receive its result (each lane's row
    /// read); EXEC zero leaves VDST; read as active-lanes-only, the inactive lanes keep theirs.
    #[test]
    fn gfx12_5_any_exec_bit_makes_every_lane_take_part() {
        let tr = match DsOp::LoadTr16B128.info().family {
            Family::LoadTranspose(t) => t,
            _ => unreachable!(),
        };
        let lds: Vec<u8> = (0..512u32).map(|i| i as u8).collect();
        let mut wave = Wave::new(WaveSize::Wave32);
        for (i, l) in wave.lanes.iter_mut().enumerate() {
            l.addr = 16 * i as u32;
        }
        let full = {
            let mut v = vec![[0u32; 4]; 32];
            run(tr, 4, 0, TrLanes::Every, &wave, &lds, &mut v);
            v
        };
        wave.exec = 1 << 5;
        let mut every = vec![[7u32; 4]; 32];
        run(tr, 4, 0, TrLanes::Every, &wave, &lds, &mut every);
        assert_eq!(every, full);
        let mut active = vec![[7u32; 4]; 32];
        run(tr, 4, 0, TrLanes::Active, &wave, &lds, &mut active);
        assert_eq!(active[5], full[5]);
        assert_eq!(active[4], [7; 4]);
        wave.exec = 0;
        let mut none = vec![[7u32; 4]; 32];
        run(tr, 4, 0, TrLanes::Every, &wave, &lds, &mut none);
        assert_eq!(none, vec![[7u32; 4]; 32]);
    }
}
