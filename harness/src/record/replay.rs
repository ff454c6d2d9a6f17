//! Replaying recordings against the model: each recorded case is judged (exact agreement, a
//! legal alternative by `ds_reference::model::legal`, or a disagreement), and disagreements must
//! be listed with a reason and a source in `known-divergences.json` beside the recordings
//! (docs/recordings.md: each GPU run keeps paying off on machines without one).

use super::{load_dir, RecordError, Recording};
use std::collections::BTreeMap;
use std::path::Path;

/// How one recorded case compares with the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The device left exactly what the model computes.
    Agree,
    /// A legal alternative the model accepts (the device's choice, in the reports' words).
    Legal(String),
    /// A disagreement: every difference, in words.
    Disagree(Vec<String>),
    /// The model does not judge the case (why): the device's answer stays on record, counted
    /// apart, neither agreement nor disagreement.
    NotModelled(String),
}

/// One recorded case, judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The case's name in the recording.
    pub case: String,
    /// The judgement.
    pub verdict: Verdict,
}

/// Replays every case of a recording against the model, by the rules of the recording's target
/// (the model asks its generation for every rule that differs; it knows no difference between
/// the targets of one generation: a recording from each target's hardware tests that claim).
pub fn replay(rec: &Recording) -> Vec<Replayed> {
    let target = rec.target();
    rec.entries
        .iter()
        .map(|e| {
            let inst = e.variant.inst();
            // With `regs`, the results land in the registers the variant names.
            let verdict = match crate::run::expectation(
                ds_reference::model::execute,
                target,
                &e.variant,
                &e.case,
            ) {
                Err(u) => Verdict::NotModelled(u.why.to_string()),
                Ok(expected) => {
                    let diffs = crate::run::diff::diff(
                        inst.info(),
                        e.case.wave.exec,
                        &expected,
                        &e.outcome,
                    );
                    if diffs.is_empty() {
                        Verdict::Agree
                    } else {
                        match crate::run::legal::judge(
                            target, &e.variant, &e.case, &expected, &e.outcome,
                        ) {
                            crate::run::legal::Legality::Legal(choice) => Verdict::Legal(choice),
                            _ => Verdict::Disagree(diffs.iter().map(|d| d.to_string()).collect()),
                        }
                    }
                }
            };
            Replayed {
                case: e.name.clone(),
                verdict,
            }
        })
        .collect()
}

/// A disagreement between a recording and the model that is known and explained: listed in
/// `snapshots/hardware/known-divergences.json`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDivergence {
    /// The recording, relative to the recordings root (`<target>/ds_add_f32.txt`).
    pub recording: String,
    /// The case name in it.
    pub case: String,
    /// Why the device differs (what the model gets wrong, or what the hardware does).
    pub reason: String,
    /// Where that is documented: an ISA guide section, an issue, an ASSUMPTIONS.md entry.
    pub source: String,
}

/// The file listing the known divergences, under the recordings root.
pub const KNOWN_DIVERGENCES: &str = "known-divergences.json";

/// Reads the known divergences under `root` (an absent file is an empty list).
pub fn known_divergences(root: &Path) -> Result<Vec<KnownDivergence>, RecordError> {
    let path = root.join(KNOWN_DIVERGENCES);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(RecordError::Io {
                path,
                message: e.to_string(),
            })
        }
    };
    let list: Vec<KnownDivergence> =
        serde_json::from_str(&text).map_err(|e| RecordError::Corrupt {
            path: path.clone(),
            line: e.line(),
            what: e.to_string(),
        })?;
    if let Some(k) = list
        .iter()
        .find(|k| k.reason.trim().is_empty() || k.source.trim().is_empty())
    {
        return Err(RecordError::Corrupt {
            path,
            line: text
                .lines()
                .position(|l| l.contains(&format!("\"{}\"", k.case)))
                .map_or(1, |n| n + 1),
            what: format!(
                "{} case {}: every known divergence needs a reason and a source",
                k.recording, k.case
            ),
        });
    }
    Ok(list)
}

/// What replaying a recordings root found, when nothing is wrong.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplaySummary {
    /// Recording files read.
    pub recordings: usize,
    /// Of them, made on hardware (backend hip).
    pub hardware: usize,
    /// Cases replayed.
    pub cases: usize,
    /// Cases where the device left exactly the model's outcome.
    pub agree: usize,
    /// Legal alternatives, by the device's choice.
    pub legal: BTreeMap<String, usize>,
    /// Disagreements listed in the known-divergences file.
    pub known: usize,
    /// Cases the model does not judge (their answers stay on record).
    pub not_modelled: usize,
}

/// Replays every recording under `root` against the model. Any unreadable or corrupt
/// recording, any disagreement not listed in [`KNOWN_DIVERGENCES`], and any listed divergence
/// that no longer occurs is a problem; all problems are returned, one line each.
pub fn check_all(root: &Path) -> Result<ReplaySummary, Vec<String>> {
    let mut problems = Vec::new();
    let known = known_divergences(root).unwrap_or_else(|e| {
        problems.push(e.to_string());
        Vec::new()
    });
    let mut used = vec![false; known.len()];
    let mut sum = ReplaySummary::default();
    for rec in load_dir(root) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        sum.recordings += 1;
        sum.hardware += usize::from(rec.provenance.is_hardware());
        let rel = rec
            .path
            .strip_prefix(root)
            .unwrap_or(&rec.path)
            .to_string_lossy()
            .replace('\\', "/");
        for r in replay(&rec) {
            sum.cases += 1;
            match r.verdict {
                Verdict::Agree => sum.agree += 1,
                Verdict::Legal(choice) => *sum.legal.entry(choice).or_default() += 1,
                Verdict::NotModelled(_) => sum.not_modelled += 1,
                Verdict::Disagree(diffs) => {
                    match known
                        .iter()
                        .position(|k| k.recording == rel && k.case == r.case)
                    {
                        Some(i) => {
                            used[i] = true;
                            sum.known += 1;
                        }
                        None => problems.push(format!(
                            "{}: case {} disagrees with the model ({}); fix the model, or list it \
                             with a reason and a source in {}",
                            rec.path.display(),
                            r.case,
                            diffs.join("; "),
                            root.join(KNOWN_DIVERGENCES).display()
                        )),
                    }
                }
            }
        }
    }
    for (k, used) in known.iter().zip(used) {
        if !used {
            problems.push(format!(
                "{}: {} case {} is listed as a known divergence but agrees now (or is gone): \
                 remove the entry",
                root.join(KNOWN_DIVERGENCES).display(),
                k.recording,
                k.case
            ));
        }
    }
    if problems.is_empty() {
        Ok(sum)
    } else {
        Err(problems)
    }
}
