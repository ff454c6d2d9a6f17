//! Which named readings a device outcome is consistent with ([`Tally`], per question with
//! computed readings), so that the legal check can name the reading a device followed and the
//! disagreement reading a mismatch matches, and a run can count the cases consistent with each
//! reading (ASSUMPTIONS.md; [`crate::model::readings`]).

use super::{check_allowed_as, Verdict};
use crate::model::readings::{self, Allowed, Collision, LaneOrder, ReadingId, Rules, Standing};
use crate::model::Unmodelled;
use crate::wave::{Case, Outcome, Variant};
use ds_isa::target::Target;

/// `Q reading "name"` for each reading.
pub fn name_readings(readings: &[ReadingId]) -> String {
    readings
        .iter()
        .map(|(q, r)| format!("{q} \"{r}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where one question's computed readings stand on one device outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The question's id.
    pub question: &'static str,
    /// Its computed readings, in table order (the model's first), each with whether the outcome
    /// is consistent with it (`None`: the search could not decide within its budget).
    pub readings: Vec<(&'static str, Standing, Option<bool>)>,
}

impl Tally {
    /// The readings the outcome is consistent with.
    pub fn consistent(&self) -> Vec<&'static str> {
        self.readings
            .iter()
            .filter(|r| r.2 == Some(true))
            .map(|r| r.0)
            .collect()
    }

    /// Some readings are consistent and some are not: the case tells them apart.
    pub fn tells_apart(&self) -> bool {
        let yes = self.readings.iter().any(|r| r.2 == Some(true));
        let no = self.readings.iter().any(|r| r.2 == Some(false));
        yes && no
    }
}

/// The readings a legal outcome followed instead of the model's: for each question whose
/// model reading does not explain it, the first accepted reading that does.
pub(super) fn followed(tallies: &[Tally]) -> Vec<ReadingId> {
    let mut out = Vec::new();
    for t in tallies {
        let model_ok = t
            .readings
            .iter()
            .any(|r| r.1 == Standing::Model && r.2 == Some(true));
        if model_ok {
            continue;
        }
        // The first that explains it: ASSUMPTIONS.md lists the narrower readings first ("lowest
        // lane" before "any colliding lane"), so the name says the most.
        if let Some(r) = t
            .readings
            .iter()
            .find(|r| r.1 == Standing::Legal && r.2 == Some(true))
        {
            out.push((t.question, r.0));
        }
    }
    out
}

/// The disagreement readings a mismatching outcome is consistent with.
pub(super) fn disagreements(tallies: &[Tally]) -> Vec<ReadingId> {
    tallies
        .iter()
        .flat_map(|t| {
            t.readings
                .iter()
                .filter(|r| r.1 == Standing::Disagreement && r.2 == Some(true))
                .map(move |r| (t.question, r.0))
        })
        .collect()
}

/// Search steps per group for one held reading in [`tally`]: a run holds each question to each of
/// its readings on every case, so a reading the search cannot settle within this many lane steps
/// is counted as undecided for that case rather than searched for as long as a verdict is.
pub const TALLY_BUDGET: usize = 4_096;

/// How a device outcome fared in the check, as the caller knows it: exactly the model's, another
/// legal outcome, or not legal. [`tally`] does less work the more it is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The model's own outcome.
    Exact,
    /// Accepted by [`super::check`], not the model's own (or not known to be).
    Legal,
    /// Not accepted (a mismatch, or undecided).
    No,
}

/// For every question with computed readings that concerns `variant`'s op on `target`, which of
/// its readings the device outcome is consistent with (each question held to one reading, the
/// others free among their accepted readings; a reading the search cannot settle within
/// [`TALLY_BUDGET`] lane steps is `None`). `agreement` is how the outcome fared in [`super::check`]
/// (an outcome no accepted reading explains is consistent with no accepted reading of any
/// question; the model's own is consistent with every reading that runs as the model does).
pub fn tally(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    agreement: Agreement,
) -> Result<Vec<Tally>, Unmodelled> {
    tally_with(target, variant, case, device, agreement, TALLY_BUDGET)
}

pub(super) fn tally_with(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    agreement: Agreement,
    budget: usize,
) -> Result<Vec<Tally>, Unmodelled> {
    let info = variant.op.info();
    let mut out = Vec::new();
    // The model's own outcome is consistent with every reading whose runs are the model's (the
    // model's reading, and the wider ones run as it: any order ascending, any sender the
    // highest): no check needed.
    let accepted = agreement != Agreement::No;
    let exact = agreement == Agreement::Exact;
    let runs_as_model = |q: &str, r: &str| {
        let Some(mut rules) = Rules::MODEL.with(q, r) else {
            return false;
        };
        if rules.lane_order == LaneOrder::Any {
            rules.lane_order = LaneOrder::Ascending;
        }
        if rules.collision == Collision::Any {
            rules.collision = Collision::Highest;
        }
        rules == Rules::MODEL
    };
    for (q, placed) in readings::op_readings(info, target.generation) {
        let q: &'static str = q;
        let mut t = Tally {
            question: q,
            readings: Vec::new(),
        };
        for p in placed {
            let consistent = if p.standing.accepted() && !accepted {
                Some(false)
            } else if exact && runs_as_model(q, p.row.reading) {
                Some(true)
            } else {
                let held = Allowed::Held((q, p.row.reading));
                match check_allowed_as(target, variant, case, device, held, budget, false)? {
                    Verdict::Legal { .. } => Some(true),
                    Verdict::Mismatch(_) => Some(false),
                    Verdict::Undecided(_) => None,
                }
            };
            t.readings.push((p.row.reading, p.standing, consistent));
        }
        out.push(t);
    }
    Ok(out)
}
