//! Fidelity classes: where each case of a run lands, so that a device (an emulator above all) can
//! be told op by op where it is exact, where it takes another legal outcome, where it is wrong,
//! and where it does not run at all (docs/design-notes.md, "Devices beyond this process"). Every case lands in exactly one class.

use ds_devices::DeviceError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Where one case landed. The order is severity: an op's class is the worst of its cases'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// The device left exactly what the reference (the model, or a recording) says.
    Exact,
    /// Another outcome the model accepts as legal (which one is named in the op's `choices`).
    Legal,
    /// The model does not judge the case (an op that runs but has no sourced semantics, or a case
    /// outside what its sources define; the reason is in the op's `skip_reasons`): the device's
    /// answer is recorded (the op's `not_modelled` list and case files) and shown, never judged,
    /// counted apart (`skipped`), never called agreement.
    NotModelled,
    /// The device left something else than the reference, and the legal-outcome search could not
    /// decide within its budget whether some lane order explains it (an order-dependent update of
    /// many lanes without returns, e.g. `ds_rsub_u32` of 64 lanes on one address, asks which of
    /// 2^64 splits of the lanes sums to the result). Not a mismatch, not a pass: counted apart,
    /// listed with its case file, and it does not fail the run.
    Undecided,
    /// The device does not implement an instruction of the kernel (an external device's answer).
    Unsupported,
    /// The device did not answer within the time limit.
    TimedOut,
    /// The device's process died while it ran the case's launch.
    Crashed,
    /// The device answered what the protocol does not allow.
    ProtocolError,
    /// The device refused or failed the launch (a fault, a load error...).
    DeviceError,
    /// The device left something else than the reference, and the model does not accept it.
    Mismatch,
}

/// Every class, in severity order.
pub const CLASSES: [Class; 10] = [
    Class::Exact,
    Class::Legal,
    Class::NotModelled,
    Class::Undecided,
    Class::Unsupported,
    Class::TimedOut,
    Class::Crashed,
    Class::ProtocolError,
    Class::DeviceError,
    Class::Mismatch,
];

impl Class {
    /// The class of the cases of a launch that failed with `e`.
    pub fn of_error(e: &DeviceError) -> Class {
        match e {
            DeviceError::Unsupported(_) => Class::Unsupported,
            DeviceError::Timeout(_) => Class::TimedOut,
            DeviceError::Crashed(_) => Class::Crashed,
            DeviceError::Protocol(_) => Class::ProtocolError,
            DeviceError::Unavailable(_)
            | DeviceError::Load(_)
            | DeviceError::Launch(_)
            | DeviceError::BadRequest(_) => Class::DeviceError,
        }
    }

    /// The class in words, as the table and the matrix show it.
    pub fn label(self) -> &'static str {
        match self {
            Class::Exact => "exact",
            Class::Legal => "legal alternative",
            Class::NotModelled => "not modelled",
            Class::Undecided => "undecided",
            Class::Unsupported => "unsupported",
            Class::TimedOut => "timed out",
            Class::Crashed => "crashed",
            Class::ProtocolError => "protocol error",
            Class::DeviceError => "device error",
            Class::Mismatch => "mismatch",
        }
    }

    /// The JSON key (`snake_case`).
    pub fn key(self) -> &'static str {
        match self {
            Class::Exact => "exact",
            Class::Legal => "legal",
            Class::NotModelled => "not_modelled",
            Class::Undecided => "undecided",
            Class::Unsupported => "unsupported",
            Class::TimedOut => "timed_out",
            Class::Crashed => "crashed",
            Class::ProtocolError => "protocol_error",
            Class::DeviceError => "device_error",
            Class::Mismatch => "mismatch",
        }
    }

    /// Whether a case in this class fails the run (exit 1). Unsupported cases fail it unless
    /// `--allow-unsupported` is given; cases the model does not cover, or whose legality the
    /// search could not decide, never do.
    pub fn fails_run(self, allow_unsupported: bool) -> bool {
        match self {
            Class::Exact | Class::Legal | Class::NotModelled | Class::Undecided => false,
            Class::Unsupported => !allow_unsupported,
            _ => true,
        }
    }

    /// Whether a case in this class was compared with the reference: the device ran it and its
    /// result was judged (exact, legal, undecided, mismatch). A run that compared no case is
    /// never a pass, whatever else it counted.
    pub fn compared(self) -> bool {
        match self {
            Class::Exact | Class::Legal | Class::Undecided | Class::Mismatch => true,
            Class::NotModelled
            | Class::Unsupported
            | Class::TimedOut
            | Class::Crashed
            | Class::ProtocolError
            | Class::DeviceError => false,
        }
    }

    /// The heatmap colour (`#rrggbb`): greens for agreement, grey for not run, warm for failures.
    pub fn colour(self) -> &'static str {
        match self {
            Class::Exact => "#1a9850",
            Class::Legal => "#91cf60",
            Class::NotModelled => "#d9d9d9",
            Class::Undecided => "#bdbdbd",
            Class::Unsupported => "#9e9ac8",
            Class::TimedOut => "#fdae61",
            Class::Crashed => "#f46d43",
            Class::ProtocolError => "#fee08b",
            Class::DeviceError => "#f1b6da",
            Class::Mismatch => "#d73027",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Cases per class (only classes with cases appear).
pub type Counts = BTreeMap<Class, usize>;

/// Which count of an op's results (`agree`, `disagree`, `skipped`, `errors`, `unsupported`,
/// `undecided`) the cases of `class` are counted in.
pub fn count_of(class: Class) -> &'static str {
    match class {
        Class::Exact | Class::Legal => "agree",
        Class::NotModelled => "skipped",
        Class::Undecided => "undecided",
        Class::Unsupported => "unsupported",
        Class::TimedOut | Class::Crashed | Class::ProtocolError | Class::DeviceError => "errors",
        Class::Mismatch => "disagree",
    }
}

/// The sum of `counts`, or `None` when it does not fit a `usize`.
pub fn checked_total(counts: &Counts) -> Option<usize> {
    counts.values().try_fold(0usize, |a, &n| a.checked_add(n))
}

/// The worst class with any case, or `None` when there are none.
pub fn worst(counts: &Counts) -> Option<Class> {
    counts.iter().filter(|(_, &n)| n > 0).map(|(&c, _)| c).max()
}

/// Counts in words, worst first: `mismatch 5, exact 155`.
pub fn describe(counts: &Counts) -> String {
    counts
        .iter()
        .rev()
        .filter(|(_, &n)| n > 0)
        .map(|(c, n)| format!("{c} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ops_class_is_its_worst_cases_class() {
        let mut c = Counts::new();
        c.insert(Class::Exact, 150);
        c.insert(Class::Legal, 10);
        assert_eq!(worst(&c), Some(Class::Legal));
        c.insert(Class::Mismatch, 0);
        assert_eq!(worst(&c), Some(Class::Legal));
        c.insert(Class::Mismatch, 1);
        assert_eq!(worst(&c), Some(Class::Mismatch));
        assert_eq!(describe(&c), "mismatch 1, legal alternative 10, exact 150");
    }

    #[test]
    fn json_keys_are_the_serde_names() {
        for c in CLASSES {
            assert_eq!(serde_json::to_value(c).unwrap(), c.key());
        }
    }

    #[test]
    fn a_case_is_compared_only_when_the_device_ran_it_and_it_was_judged() {
        let compared: Vec<Class> = CLASSES.into_iter().filter(|c| c.compared()).collect();
        assert_eq!(
            compared,
            [
                Class::Exact,
                Class::Legal,
                Class::Undecided,
                Class::Mismatch
            ]
        );
        // Every compared class is counted in agree, disagree or undecided: the totals'
        // `compared` (agree + disagree + undecided) counts exactly these.
        for c in CLASSES {
            let counted = matches!(count_of(c), "agree" | "disagree" | "undecided");
            assert_eq!(c.compared(), counted, "{c}");
        }
    }

    #[test]
    fn unsupported_fails_a_run_only_without_allow_unsupported() {
        assert!(Class::Unsupported.fails_run(false));
        assert!(!Class::Unsupported.fails_run(true));
        assert!(Class::Crashed.fails_run(true));
        assert!(!Class::NotModelled.fails_run(false));
    }
}
