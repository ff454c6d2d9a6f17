//! gfx12.5's barrier arrives (ASSUMPTIONS.md C3): `ds_atomic_barrier_arrive_rtn_b64` (DATA0
//! arrivals, the old 64-bit word returned, counted by DScnt) and `ds_atomic_async_barrier_arrive_b64`
//! (one arrival after the wave's earlier asynchronous global-to-LDS loads, nothing returned,
//! counted by ASYNCcnt; the kernels issue no asynchronous load, so it is one arrival at once).
//!
//! The barrier object is one 8-byte-aligned 64-bit LDS word: \[W-1:0\] the pending count, \[31:W\]
//! the phase, \[47:32\] the count it reloads, \[63:48\] zero; W is set by LDS_CONFIG.PEND_CNT_WIDTH
//! (21, 28, 29, 31 or 32) and every public user assumes 29. An arrive subtracts its count from
//! the pending count; on underflow the phase changes and the count reloads from \[47:32\].
//! Sources: AMD's libcu++ port `cuda/__barrier/lds_barrier.h` and Triton's AMD
//! `BarrierOpToLLVM.cpp` (`kBarrierCountBitWidth = 29`, the init value `count - 1` in both
//! halves) (DRV); the CDNA5 guide's section 11.2.2 table and 15.15 as third parties cite them
//! (DOC, indirect), whose two rollover formulas disagree.
//!
//! Modelled, and marked *inferred* wherever the op is shown ([`INFERRED`]): a single arrive of 1
//! (one lane on; for the rtn form DATA0 = 1) on a word whose 29-bit pending count is not zero:
//! the count drops by one, every other bit stays, the rtn form returns the old word. Every other
//! case is run and recorded, never judged ([`unjudged`]): several lanes (or none) arriving,
//! another count, the last arrive of a phase (the rollover, whose new phase bits the record
//! leaves open) and a word that is misaligned or not wholly inside the LDS.

use super::mem;
use crate::wave::Wave;
use ds_isa::ds::{DsOp, Family, OpInfo};

/// Bits of the pending count every public user assumes (LDS_CONFIG.PEND_CNT_WIDTH = 29).
pub const COUNT_BITS: u32 = 29;
/// The pending count's bits.
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Where the reload count sits: \[47:32\].
const RELOAD_SHIFT: u32 = 32;

/// What every place that shows a barrier arrive repeats.
pub const INFERRED: &str = "inferred: a single arrive of 1 on a 29-bit pending count (as every \
     public user assumes; LDS_CONFIG.PEND_CNT_WIDTH may set another width), from Triton's and \
     AMD's libcu++ port's use of the barrier word; no AMD guide was read and no hardware \
     confirms it";

/// Whether `op` is a barrier arrive, whose semantics are [`INFERRED`].
pub fn inferred(op: DsOp) -> Option<&'static str> {
    (op.info().family == Family::BarrierArrive).then_some(INFERRED)
}

/// The count an active lane arrives with: its DATA0 (64 bits) for the rtn form, 1 for the
/// async form (no DATA).
fn count(info: &OpInfo, data0: &[u32; 4]) -> u64 {
    if info.operands.data0 > 0 {
        u64::from(data0[0]) | u64::from(data0[1]) << 32
    } else {
        1
    }
}

/// The barrier word's address for a lane: `ADDR + offset`.
fn address(addr: u32, offset: u16) -> u32 {
    addr.wrapping_add(u32::from(offset))
}

/// Why the model does not judge this case, or `None` when it does (one lane, an arrive of 1, an
/// aligned word inside the LDS whose pending count is not zero).
pub fn unjudged(info: &OpInfo, offset: u16, wave: &Wave, lds: &[u8]) -> Option<&'static str> {
    let mut on = wave.active_lanes();
    let (Some(i), None) = (on.next(), on.next()) else {
        return Some(
            "the record pins a single arrive: with several lanes (or none) on, which lanes \
             arrive and in what order is open (ASSUMPTIONS.md C3); the device's answer is \
             recorded, not judged",
        );
    };
    let lane = &wave.lanes[i];
    let at = address(lane.addr, offset);
    if !at.is_multiple_of(8) || u64::from(at) + 8 > lds.len() as u64 {
        return Some(
            "the barrier object is one 8-byte-aligned 64-bit LDS word: a misaligned word, or one \
             not wholly inside the LDS, is open (ASSUMPTIONS.md C3); the device's answer is \
             recorded, not judged",
        );
    }
    if count(info, &lane.data0) != 1 {
        return Some(
            "an arrive of more than one (DATA0 other than 1) is open: the guide's formulas \
             disagree (ASSUMPTIONS.md C3); the device's answer is recorded, not judged",
        );
    }
    if mem::read_u64(lds, at) & COUNT_MASK == 0 {
        return Some(
            "the last arrive of a phase rolls over: the record pins that the phase changes and \
             the count reloads from [47:32], not the phase bits' new value (ASSUMPTIONS.md C3); \
             the device's answer is recorded, not judged",
        );
    }
    None
}

/// One arrive of `count` on `word`: the pending count drops by `count`; on underflow the phase
/// (\[31:29\]) steps by one (up: the stand-in's choice, the record leaves it open) and the pending
/// count reloads to \[47:32\] + 1 less what the arrive had left to take (as Triton's emulation
/// of the object computes it). The judged case (an arrive of 1 on a count above zero) never
/// underflows; the rest is the stand-in's.
pub fn arrive(word: u64, count: u64) -> u64 {
    let pending = word & COUNT_MASK;
    let phase = (word >> COUNT_BITS) & 0x7;
    let (pending, phase) = if count <= pending {
        (pending - count, phase)
    } else {
        let reload = (word >> RELOAD_SHIFT) & 0xffff;
        (
            (reload + 1 + pending).wrapping_sub(count) & COUNT_MASK,
            (phase + 1) & 0x7,
        )
    };
    (word & !0xffff_ffff) | phase << COUNT_BITS | pending
}

/// The arrives of the active lanes, in ascending lane order, each on its own word (the judged
/// case has one), the rtn form's old word into VDST.
pub fn run(info: &OpInfo, offset: u16, wave: &Wave, lds: &mut [u8], vdst: &mut [[u32; 4]]) {
    for i in wave.active_lanes() {
        let lane = &wave.lanes[i];
        let at = address(lane.addr, offset);
        let old = mem::read_u64(lds, at);
        mem::write_u64(lds, at, arrive(old, count(info, &lane.data0)));
        if info.returns() {
            vdst[i][0] = old as u32;
            vdst[i][1] = (old >> 32) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wave::WaveSize;

    fn word(pending: u64, phase: u64, reload: u64) -> u64 {
        reload << 32 | phase << 29 | pending
    }

    #[test]
    fn an_arrive_of_one_drops_the_count_and_keeps_the_rest() {
        assert_eq!(arrive(word(5, 3, 7), 1), word(4, 3, 7));
        // The last arrive of a phase (the stand-in's rollover): phase + 1, the count reloaded.
        assert_eq!(arrive(word(0, 3, 7), 1), word(7, 4, 7));
        assert_eq!(arrive(word(0, 7, 2), 1), word(2, 0, 2));
    }

    #[test]
    fn only_a_single_arrive_of_one_on_a_live_count_is_judged() {
        let info = DsOp::AtomicBarrierArriveRtnB64.info();
        let mut lds = vec![0u8; 64];
        lds[16..24].copy_from_slice(&word(2, 0, 3).to_le_bytes());
        let mut wave = Wave::new(WaveSize::Wave32);
        wave.exec = 1 << 3;
        wave.lanes[3].addr = 16;
        wave.lanes[3].data0 = [1, 0, 0, 0];
        assert_eq!(unjudged(info, 0, &wave, &lds), None);
        let mut vdst = vec![[9u32; 4]; 32];
        run(info, 0, &wave, &mut lds, &mut vdst);
        assert_eq!(
            u64::from_le_bytes(lds[16..24].try_into().unwrap()),
            word(1, 0, 3)
        );
        assert_eq!(vdst[3][..2], [2, 3]);
        assert_eq!(vdst[2], [9; 4]);
        // Open: two lanes, DATA0 2, a misaligned or outside word, a zero count.
        let mut two = wave.clone();
        two.exec |= 1;
        assert!(unjudged(info, 0, &two, &lds).is_some());
        let mut more = wave.clone();
        more.lanes[3].data0 = [2, 0, 0, 0];
        assert!(unjudged(info, 0, &more, &lds).is_some());
        assert!(unjudged(info, 4, &wave, &lds).is_some());
        assert!(unjudged(info, 48, &wave, &lds).is_some());
        lds[16..24].copy_from_slice(&word(0, 1, 3).to_le_bytes());
        assert!(unjudged(info, 0, &wave, &lds)
            .unwrap()
            .contains("rolls over"));
        // The async form arrives with 1, whatever its (absent) DATA0 holds.
        let asynchronous = DsOp::AtomicAsyncBarrierArriveB64.info();
        lds[16..24].copy_from_slice(&word(2, 0, 3).to_le_bytes());
        assert_eq!(unjudged(asynchronous, 0, &more, &lds), None);
        assert!(inferred(DsOp::AtomicAsyncBarrierArriveB64).is_some());
        assert!(inferred(DsOp::AddRtnU64).is_none());
    }
}
