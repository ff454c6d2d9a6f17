//! The diff's acceptance of outcomes the hardware may legally choose (which lane wins when lanes
//! of one instruction hit one address, the order of returned values of same-address atomics, the
//! documented float min/max/add alternatives): DESIGN.md section 5. The model answers
//! (`ds_reference::model::legal::check`); this module turns its verdict into the words the
//! reports use.

use ds_reference::model::legal::{self, Explanation, Verdict};
use ds_reference::wave::{Case, Outcome, Variant};

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

/// Judges a `device` outcome of `case` that differs from the model's `expected`.
pub fn judge(variant: &Variant, case: &Case, expected: &Outcome, device: &Outcome) -> Legality {
    let _ = expected; // the model recomputes it; kept so callers state what they compared
    match legal::check(variant, case, device) {
        Ok(Verdict::Legal {
            order,
            float_alternatives,
        }) => {
            let order = match order {
                Explanation::AscendingLanes => "ascending lane order",
                Explanation::DescendingLanes => "descending lane order",
                Explanation::Order(_) => "another lane order",
            };
            let mut choice = format!("same-address lanes: {order}");
            if !float_alternatives.is_empty() {
                choice.push_str(" with the documented float alternative");
            }
            Legality::Legal(choice)
        }
        Ok(Verdict::Mismatch(why)) => Legality::Illegal(why),
        Ok(Verdict::Undecided(why)) => Legality::Undecided(why),
        Err(u) => Legality::Illegal(u.to_string()),
    }
}

/// `Some(the device's choice)` when `device` is a legal outcome, else `None`.
pub fn accepts(
    variant: &Variant,
    case: &Case,
    expected: &Outcome,
    device: &Outcome,
) -> Option<String> {
    match judge(variant, case, expected, device) {
        Legality::Legal(choice) => Some(choice),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_reference::isa::DsOp;
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
        let expected = model::execute(&v.inst(), v.mode, &c).unwrap();
        assert_eq!(
            expected.lds.word(0),
            11,
            "the model lets the highest lane win"
        );
        let mut device = expected.clone();
        device.lds.set_word(0, 10);
        assert_eq!(
            judge(&v, &c, &expected, &device),
            Legality::Legal("same-address lanes: descending lane order".into())
        );
    }

    #[test]
    fn a_value_no_lane_stored_is_illegal() {
        let (v, c) = two_stores();
        let expected = model::execute(&v.inst(), v.mode, &c).unwrap();
        let mut device = expected.clone();
        device.lds.set_word(0, 12);
        assert!(matches!(
            judge(&v, &c, &expected, &device),
            Legality::Illegal(_)
        ));
        assert_eq!(accepts(&v, &c, &expected, &device), None);
    }
}
