//! The diff's acceptance of outcomes the hardware may legally choose (which lane wins when lanes
//! of one instruction hit one address, the order of returned values of same-address atomics, the
//! documented readings of the float rules and of permute collisions): docs/design-notes.md, "Runs at scale"; reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions". The model answers (`ds_reference::model::legal::check`, which names the reading a device
//! followed, or the disagreement reading a mismatch matches); this module turns its verdict into
//! the words the reports use, and asks the model which readings of each open question a case is
//! consistent with ([`readings`]), for the run's per-reading counts.

use ds_isa::ds::Family;
use ds_isa::target::Target;
use ds_reference::model::legal::{self, Agreement, Explanation, Tally, Verdict};
use ds_reference::wave::{Case, Outcome, Variant, WaveSize};

/// What the diff concludes about a device outcome that differs from the model's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Legality {
    /// A legal outcome; the device's choice, in words (a report key, e.g. "same-address lanes:
    /// descending lane order").
    Legal(String),
    /// No legal outcome explains it; why, from the model.
    Illegal(String),
    /// The model's search gave up; counted as a disagreement, with this note.
    Undecided(String),
}

/// The report's name for a device that left exactly the model's outcome on a case whose lanes
/// share bytes: the model's order (or one with the same result).
pub const ASCENDING: &str = "same-address lanes: ascending lane order";

/// The LDS spans one lane's access covers, in an op whose lane order can show in the result
/// (atomics, stores, condxchg): `bytes` long, starting where `starts` says for a lane's address.
struct Spans<'a> {
    variant: &'a Variant,
    bytes: u64,
}

impl<'a> Spans<'a> {
    /// `None` for an op whose lane order cannot show.
    fn of(variant: &'a Variant) -> Option<Self> {
        let info = variant.op.info();
        let bytes = u64::from(info.elem.bytes());
        let observable = matches!(
            info.family,
            Family::Rmw(_) | Family::Store(_) | Family::CondXchg32
        );
        (bytes != 0 && observable).then_some(Spans { variant, bytes })
    }

    /// The start of each of the lane's (at most two) spans.
    fn starts(&self, addr: u32) -> [u64; 2] {
        let (v, info) = (self.variant, self.variant.op.info());
        let single = u32::from(v.offset0) | u32::from(v.offset1) << 8;
        if info.two_addresses() {
            let scale = info.offset_scale();
            [
                u64::from(addr.wrapping_add(u32::from(v.offset0) * scale)),
                u64::from(addr.wrapping_add(u32::from(v.offset1) * scale)),
            ]
        } else if info.family == Family::CondXchg32 {
            let a = u64::from(addr.wrapping_add(single) & 0xfff8);
            [a, a]
        } else {
            let a = u64::from(addr.wrapping_add(single));
            [a, a]
        }
    }
}

/// Whether two active lanes of `case` touch a common LDS byte in an op whose lane order can show
/// in the result (atomics, stores, condxchg): the cases where the device's order is observable.
pub fn lanes_share_bytes(variant: &Variant, case: &Case) -> bool {
    let Some(spans) = Spans::of(variant) else {
        return false;
    };
    let eb = spans.bytes;
    // Every span is `eb` bytes, so two overlap when their starts are less than `eb` apart. Sorted
    // by start, if spans of two lanes overlap then two neighbours of different lanes between them
    // do (the gaps along the way add up to less than `eb`, and the lane changes somewhere).
    let mut starts = [(0u64, 0usize); 2 * WaveSize::Wave64.lanes()];
    let mut n = 0;
    for i in case.wave.active_lanes() {
        for a in spans.starts(case.wave.lanes[i].addr) {
            starts[n] = (a, i);
            n += 1;
        }
    }
    let starts = &mut starts[..n];
    starts.sort_unstable();
    starts
        .windows(2)
        .any(|w| w[0].1 != w[1].1 && w[1].0 - w[0].0 < eb)
}

/// Judges a `device` outcome of `case` on `target` that differs from the model's `expected` (by
/// the target's rules).
pub fn judge(
    target: &Target,
    variant: &Variant,
    case: &Case,
    expected: &Outcome,
    device: &Outcome,
) -> Legality {
    let _ = expected; // the model recomputes it; kept so callers state what they compared
    match legal::check(target, variant, case, device) {
        Ok(Verdict::Legal {
            order, readings, ..
        }) => {
            let lanes = match order {
                Explanation::AscendingLanes => "ascending lane order",
                Explanation::DescendingLanes => "descending lane order",
                Explanation::Order(_) => "another lane order",
            };
            // The readings other than A4's lane order name themselves; the order keeps its words.
            let named: Vec<_> = readings.into_iter().filter(|(q, _)| *q != "A4").collect();
            let choice = match (named.is_empty(), order == Explanation::AscendingLanes) {
                (true, _) => format!("same-address lanes: {lanes}"),
                (false, true) => legal::name_readings(&named),
                (false, false) => format!(
                    "{}; same-address lanes: {lanes}",
                    legal::name_readings(&named)
                ),
            };
            Legality::Legal(choice)
        }
        Ok(Verdict::Mismatch(why)) => Legality::Illegal(why),
        Ok(Verdict::Undecided(why)) => Legality::Undecided(why),
        Err(u) => Legality::Illegal(u.to_string()),
    }
}

/// For every open question with computed readings that concerns `variant`'s op on `target`,
/// which readings the `device` outcome is consistent with (`agreement`: exactly the model's, a
/// legal alternative, or neither). Empty when the model does not cover the case.
pub fn readings(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    agreement: Agreement,
) -> Vec<Tally> {
    legal::tally(target, variant, case, device, agreement).unwrap_or_default()
}

/// `Some(the device's choice)` when `device` is a legal outcome, else `None`.
pub fn accepts(
    target: &Target,
    variant: &Variant,
    case: &Case,
    expected: &Outcome,
    device: &Outcome,
) -> Option<String> {
    match judge(target, variant, case, expected, device) {
        Legality::Legal(choice) => Some(choice),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::DsOp;
    use ds_isa::gen::Generation;
    use ds_isa::target::DEFAULT;
    use ds_reference::model;
    use ds_reference::wave::{FpMode, Lds, Wave};

    /// Lanes 0 and 1 store different values to one address.
    fn two_stores() -> (Variant, Case) {
        let variant = Variant {
            op: DsOp::from_name("ds_store_b32").unwrap(),
            offset0: 0,
            offset1: 0,
            lds_size: 64,
            mode: FpMode::default(),
            wave: ds_reference::wave::WaveSize::Wave32,
            regs: None,
            acc: false,
        };
        let mut wave = Wave {
            exec: 0b11,
            ..Wave::default()
        };
        wave.lanes[0].data0[0] = 10;
        wave.lanes[1].data0[0] = 11;
        (
            variant,
            Case {
                lds: Lds::zeroed(64),
                wave,
            },
        )
    }

    #[test]
    fn the_other_store_winning_is_legal_and_named() {
        let (v, c) = two_stores();
        let expected = model::execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
        assert_eq!(
            expected.lds.word(0),
            11,
            "the model lets the highest lane win"
        );
        let mut device = expected.clone();
        device.lds.set_word(0, 10);
        assert_eq!(
            judge(DEFAULT, &v, &c, &expected, &device),
            Legality::Legal("same-address lanes: descending lane order".into())
        );
    }

    /// The definition: some two active lanes have spans that overlap.
    fn share_pairwise(variant: &Variant, case: &Case) -> bool {
        let Some(spans) = Spans::of(variant) else {
            return false;
        };
        let eb = spans.bytes;
        let active: Vec<[u64; 2]> = case
            .wave
            .active_lanes()
            .map(|i| spans.starts(case.wave.lanes[i].addr))
            .collect();
        let overlap = |a: u64, b: u64| a < b + eb && b < a + eb;
        active.iter().enumerate().any(|(k, x)| {
            active[..k]
                .iter()
                .any(|y| x.iter().any(|&a| y.iter().any(|&b| overlap(a, b))))
        })
    }

    #[test]
    fn sharing_is_decided_as_the_pairwise_definition_says() {
        let (mut shared, mut total) = (0, 0);
        for op in ds_isa::ds::runnable_ops(Generation::Gfx11) {
            for vc in crate::corpus::for_op(op, 7, 60) {
                for c in &vc.cases {
                    let want = share_pairwise(&vc.variant, &c.case);
                    assert_eq!(lanes_share_bytes(&vc.variant, &c.case), want, "{}", c.id);
                    shared += usize::from(want);
                    total += 1;
                }
            }
        }
        assert!(shared > 100 && shared < total, "{shared} of {total}");
        // Two spans of one lane (a pair form with equal offsets) are no sharing.
        let (v, mut c) = two_stores();
        c.wave.exec = 0b1;
        let pair = Variant {
            op: DsOp::from_name("ds_store_2addr_b32").unwrap(),
            ..v
        };
        assert!(!lanes_share_bytes(&pair, &c));
        assert!(!share_pairwise(&pair, &c));
    }

    #[test]
    fn a_value_no_lane_stored_is_illegal() {
        let (v, c) = two_stores();
        let expected = model::execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
        let mut device = expected.clone();
        device.lds.set_word(0, 12);
        assert!(matches!(
            judge(DEFAULT, &v, &c, &expected, &device),
            Legality::Illegal(_)
        ));
        assert_eq!(accepts(DEFAULT, &v, &c, &expected, &device), None);
    }
}
