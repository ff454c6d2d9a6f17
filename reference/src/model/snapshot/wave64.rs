//! The wave64 snapshot corpus: every wave32 snapshot case widened to 64 lanes (the upper half a
//! changed copy of the lower, so same-address lanes span both halves), then named cases that
//! straddle the halves, one per wave-size-dependent rule (ASSUMPTIONS.md W1-W10): lanes 31 and 32
//! on one address, EXEC with only the upper half, permute and bpermute indices 32..63 and past 63,
//! every swizzle mode across halves, append/consume counting a 64-bit EXEC, addtid up to lane 63.
//! Deterministic: no randomness. Variants that name registers (`regs`) are widened too, each lane
//! made consistent again (one value per register): the wave64 template places named registers
//! as the wave32 one does.

use super::corpus::{snapshot_corpus_with, SENTINEL};
use crate::wave::{Case, Lane, Variant, Wave, WaveSize};
use ds_isa::ds::{DsOp, Family};

const W64: WaveSize = WaveSize::Wave64;
const HALF: usize = WaveSize::HALF;

/// EXEC with only the upper half.
const UPPER: u64 = !(u32::MAX as u64);

/// `c` (a wave32 case) on 64 lanes: lanes 32..63 copy lanes 0..31 with their data changed and
/// their vdst sentinels kept; EXEC is `exec`.
fn widen(c: &Case, exec: u64) -> Case {
    let lanes = c
        .wave
        .lanes
        .iter()
        .copied()
        .chain(c.wave.lanes.iter().map(|l| Lane {
            data0: l.data0.map(|w| if w == 0 { 0 } else { w ^ 0x0101_0000 }),
            data1: l.data1.map(|w| w.rotate_left(1)),
            ..*l
        }))
        .collect();
    Case {
        lds: c.lds.clone(),
        wave: Wave {
            exec,
            m0: c.wave.m0,
            lanes,
        },
    }
}

/// Lane i of a named case: `addr(i)`, data0 `0x1000 + i` (data1 `0x2000 + i`), vdst sentinel.
fn lanes(addr: impl Fn(usize) -> u32) -> Vec<Lane> {
    (0..W64.lanes())
        .map(|i| Lane {
            addr: addr(i),
            data0: [0x1000 + i as u32, 0, 0, 0],
            data1: [0x2000 + i as u32, 0, 0, 0, 0, 0, 0, 0],
            vdst: [SENTINEL; 4],
        })
        .collect()
}

/// The wave64 snapshot corpus of `op`: `(name, variant, case)`, the variants wave64.
pub fn snapshot_corpus_wave64(op: DsOp) -> Vec<(String, Variant, Case)> {
    snapshot_corpus_wave64_with(op, false)
}

/// [`snapshot_corpus_wave64`] with even register tuples when `even_tuples`
/// ([`super::corpus::snapshot_corpus_with`]).
pub(super) fn snapshot_corpus_wave64_with(
    op: DsOp,
    even_tuples: bool,
) -> Vec<(String, Variant, Case)> {
    let base = snapshot_corpus_with(op, even_tuples);
    let info = op.info();
    let ops = info.operands;
    let mut out: Vec<(String, Variant, Case)> = Vec::new();
    let mut add = |name: String, v: Variant, mut c: Case| {
        for l in c.wave.lanes.iter_mut() {
            l.data0[usize::from(ops.data0)..].fill(0);
            l.data1[usize::from(ops.data1)..].fill(0);
            if ops.addr == 0 {
                l.addr = 0;
            }
        }
        out.push((name, Variant { wave: W64, ..v }, c));
    };
    let mut first: Option<(Variant, Case)> = None;
    for (name, v, c) in base {
        // The case's EXEC in the lower half, rotated in the upper: halves that differ.
        let lo = c.wave.exec;
        let exec = lo | u64::from((lo as u32).rotate_left(7)) << HALF;
        let mut wide = widen(&c, exec);
        if let Some(regs) = v.regs {
            // Operands that share registers: one value per register in every lane again (the
            // upper half's data were changed), as the wave32 case has it (R1-R3 per lane).
            for (i, l) in wide.wave.lanes.iter_mut().enumerate() {
                if exec >> i & 1 == 1 {
                    regs.harmonise(op, false, l);
                } else {
                    regs.harmonise_to_vdst(op, false, l);
                }
            }
        } else {
            first.get_or_insert((v, c));
        }
        add(format!("{name}/w64"), v, wide);
    }
    let Some((v, c)) = first else {
        return out;
    };
    // The first case with only the upper half active, and with lanes 31 and 32 alone.
    add(
        "w64_upper_half_only".into(),
        v,
        widen(&c, c.wave.exec << HALF),
    );
    let mut straddle = widen(&c, 1 << (HALF - 1) | 1 << HALF);
    {
        // Lanes 31 and 32 on lane 31's address, with data that differ and are not zero (so the
        // order across the halves shows in what lands and what each returns).
        let l = &mut straddle.wave.lanes;
        if l[HALF - 1].data0 == [0; 4] {
            l[HALF - 1].data0 = l[..HALF]
                .iter()
                .map(|x| x.data0)
                .find(|d| *d != [0; 4])
                .unwrap_or([1, 0, 0, 0]);
        }
        let (d0, d1, addr) = (l[HALF - 1].data0, l[HALF - 1].data1, l[HALF - 1].addr);
        l[HALF].data0 = d0.map(|w| w ^ 0x0101_0000);
        l[HALF].data1 = d1.map(|w| w.rotate_left(1));
        l[HALF].addr = addr;
    }
    add("w64_lanes_31_and_32_one_address".into(), v, straddle);
    let named = |addr: &dyn Fn(usize) -> u32, exec: u64| Case {
        lds: c.lds.clone(),
        wave: Wave {
            exec,
            m0: c.wave.m0,
            lanes: lanes(addr),
        },
    };
    match info.family {
        Family::Permute | Family::Bpermute | Family::BpermuteFi => {
            let v0 = Variant {
                offset0: 0,
                offset1: 0,
                ..v
            };
            // Index (i + 32) % 64: bits [6:2] name lane i's own number in the other half.
            let cross = |i: usize| 4 * ((i + HALF) % W64.lanes()) as u32;
            add(
                "w64_index_32_to_63".into(),
                v0,
                named(&cross, W64.full_exec()),
            );
            // Index 64 + i: past the last lane.
            add(
                "w64_index_past_63".into(),
                v0,
                named(&|i| 4 * (W64.lanes() + i) as u32, W64.full_exec()),
            );
            // Upper half active, every lane naming lane 1 (inactive in the lower half).
            add(
                "w64_upper_half_names_lane_1".into(),
                v0,
                named(&|_| 4, UPPER),
            );
            // Lower half reversed onto the upper: lane i names 63 - i.
            add(
                "w64_index_mirror".into(),
                v0,
                named(&|i| 4 * (W64.lanes() - 1 - i) as u32, W64.full_exec()),
            );
        }
        Family::Swizzle => {
            // One offset per mode (RDNA3 ISA guide, DS_SWIZZLE_B32): bit mask swapping the
            // 16-lane groups, quad permute reversing quads, rotate left by 1, FFT mask 5.
            for (name, offset) in [
                ("bitmask_swap16", 0x1f | 0x10 << 10),
                ("quadperm_reverse", 0x8000 | 3 | 2 << 2 | 1 << 4),
                ("rotate_left_1", 0xc000 | 1 << 5),
                ("fft_5", 0xe005),
            ] {
                let vs = Variant {
                    offset0: offset as u8,
                    offset1: (offset >> 8) as u8,
                    ..v
                };
                let addr = |i: usize| 0xa000 + i as u32;
                add(format!("w64_{name}"), vs, named(&addr, W64.full_exec()));
                add(format!("w64_{name}_upper_only"), vs, named(&addr, UPPER));
            }
        }
        Family::Append | Family::Consume => {
            for (name, exec) in [
                ("w64_all_64_lanes", W64.full_exec()),
                ("w64_upper_half_counts_32", UPPER),
                ("w64_lanes_0_and_63_count_2", 1 << 63 | 1),
            ] {
                add(name.into(), v, named(&|_| 0, exec));
            }
        }
        Family::StoreAddTid | Family::LoadAddTid => {
            // M0 base 0: lane 63 addresses byte 252 plus the offset.
            let mut c = named(&|_| 0, W64.full_exec());
            c.wave.m0 = 0x5a5a_0000;
            add("w64_lanes_0_to_63".into(), v, c.clone());
            c.wave.exec = 1 << 63 | 1 << HALF | 1 << (HALF - 1);
            add("w64_lanes_31_32_63".into(), v, c);
        }
        Family::LoadTranspose(_) => {
            // Every lane a row of its own over the whole wave: the four 16-lane groups.
            add(
                "w64_rows_in_order".into(),
                v,
                named(&|i| 8 * i as u32, W64.full_exec()),
            );
        }
        _ if info.accesses_lds() && ops.addr > 0 => {
            // Every lane on one address, both halves: the order across halves (W7).
            let at = c.wave.lanes[0].addr;
            add(
                "w64_all_64_lanes_one_address".into(),
                v,
                named(&|_| at, W64.full_exec()),
            );
        }
        _ => {}
    }
    out
}
