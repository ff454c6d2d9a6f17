//! gfx12.5's barrier arrives' random cases: barrier words a kernel could hold, arrived at the
//! way a kernel arrives. Most cases are what the model judges (ASSUMPTIONS.md C3: one lane on, an
//! arrive of 1, an 8-byte-aligned word whose 29-bit pending count is above zero, phase and reload
//! bits random; each in seven cases of eight); the rest are what the record leaves open, recorded, never judged: a count of
//! zero (the rollover), an arrive of another count, a misaligned word (and, from the exec
//! patterns, several lanes at once).

use super::SplitMix64;
use ds_reference::model::barrier::COUNT_BITS;
use ds_reference::wave::{Lds, Variant, Wave};

/// Shapes the active lanes of `wave` (and their barrier words) for `v`'s arrive.
pub(super) fn shape(v: &Variant, wave: &mut Wave, lds: &mut Lds, rng: &mut SplitMix64) {
    let offset = u32::from(v.inst().offset16());
    let count_mask = (1u64 << COUNT_BITS) - 1;
    for i in 0..wave.lanes.len() {
        let l = &mut wave.lanes[i];
        // An aligned word in seven cases of eight (an offset that is not a multiple of 8 makes
        // every word misaligned: the variant's own open case).
        if rng.below(8) != 0 {
            l.addr = l.addr.wrapping_add(offset) & !7;
            l.addr = l.addr.wrapping_sub(offset);
        }
        // An arrive of 1 in seven cases of eight, else another small count.
        l.data0 = [1, 0, 0, 0];
        if rng.below(8) == 0 {
            l.data0[0] = 2 + rng.below(6);
        }
        let at = l.addr.wrapping_add(offset);
        if at % 8 != 0 || u64::from(at) + 8 > u64::from(lds.size()) {
            continue;
        }
        // The word: pending count above zero in seven cases of eight, phase and reload random,
        // [63:48] zero.
        let pending = match rng.below(8) {
            0 => 0,
            1 => 1,
            _ => u64::from(rng.next_u32()) & count_mask,
        };
        let phase = u64::from(rng.below(8));
        let reload = u64::from(rng.next_u32() & 0xffff);
        let word = reload << 32 | phase << COUNT_BITS | pending;
        lds.set_word(at, word as u32);
        lds.set_word(at + 4, (word >> 32) as u32);
    }
}
