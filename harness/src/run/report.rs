//! The results of a run: per op and per kernel variant counts, the mismatching cases (with their
//! files and replay commands), and their three renderings: the summary table for the terminal,
//! machine-readable JSON (`--json`) and JUnit XML (`--junit`, the schema CI systems read: one
//! `<testsuite>` per op, one `<testcase>` per op and variant).

use super::diff::Difference;
pub use crate::output::escape::{code, md, terminal, xml};
use ds_reference::wave::{FpMode, WaveSize};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The JSON results format version.
pub const FORMAT: u32 = 1;

/// How many differences of one case the reports list (the case file holds everything).
pub const MAX_LISTED_DIFFERENCES: usize = 8;

/// What a run was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The backend used (`emu` or `hip`).
    pub backend: String,
    /// Why this backend was taken.
    pub backend_reason: String,
    /// The device's name.
    pub device: String,
    /// The target the device runs (the code object is built for it).
    pub target: String,
    /// The corpus seed.
    pub seed: u64,
    /// Cases per op (per op and wave size).
    pub cases_per_op: usize,
    /// The wave sizes each op ran in (absent in results written before wave64: wave32).
    #[serde(default = "wave32_only")]
    pub waves: Vec<WaveSize>,
    /// `K/N` when the run is one shard of N.
    pub shard: Option<String>,
    /// The harness revision that ran (`git describe` at build time): shards of one run must
    /// agree on it to be merged.
    #[serde(default)]
    pub harness: String,
    /// The `--op` patterns of the run (empty: every runnable op).
    #[serde(default)]
    pub selection: Vec<String>,
    /// The `--duration` budget in seconds, when the run went round the ops until it ran out
    /// (then `cases_per_op` is the cases per op per round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// An external device's own version (its protocol hello), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_version: Option<String>,
    /// What the device was compared with instead of the model (`run --against`): the recording.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// `--allow-unsupported`: cases the device does not support do not fail the run.
    #[serde(default)]
    pub allow_unsupported: bool,
    /// The device's provenance details (an external device's hello `details`, with the keys the
    /// harness adds: its command, version, protocol and hardware claim).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub device_details: BTreeMap<String, String>,
    /// When ROCm ran the device as another target than its chip's: the chip and the override
    /// (`target` is the target it ran as).
    #[serde(default, rename = "override", skip_serializing_if = "Option::is_none")]
    pub overridden: Option<super::overridden::Overridden>,
}

fn wave32_only() -> Vec<WaveSize> {
    vec![WaveSize::Wave32]
}

/// The results of one op in one wave size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpResult {
    /// The op's mnemonic.
    pub op: String,
    /// The wave size it ran in (each op has a row per wave size of the run; absent in results
    /// written before wave64: wave32).
    #[serde(default)]
    pub wave: WaveSize,
    /// Cases run or skipped.
    pub cases: usize,
    /// Cases where device and model agree (possibly on one of several legal outcomes).
    pub agree: usize,
    /// Cases where they disagree.
    pub disagree: usize,
    /// Cases not compared, counted by reason.
    pub skipped: usize,
    /// Why cases were skipped, with counts.
    pub skip_reasons: BTreeMap<String, usize>,
    /// Cases that could not run at all (device errors), counted as failures.
    pub errors: usize,
    /// Cases the device reported as unsupported (not in `errors`): failures unless the run
    /// allows them.
    #[serde(default)]
    pub unsupported: usize,
    /// Cases whose outcome differs from the model's and the legal-outcome search could not
    /// decide (not in `disagree`; they do not fail the run): fidelity class `undecided`.
    #[serde(default)]
    pub undecided: usize,
    /// Where the model allows several outcomes: which one the device chose, with counts.
    pub choices: BTreeMap<String, usize>,
    /// Cases where active lanes shared LDS bytes, so the device's lane order could show.
    pub same_address: usize,
    /// One entry per kernel variant.
    pub variants: Vec<VariantResult>,
    /// The mismatching cases, the first `MAX_LISTED_MISMATCHES` of them (each with its case
    /// file).
    pub mismatches: Vec<Mismatch>,
    /// Mismatching cases past those listed: counted in `disagree`, without a case file.
    #[serde(default)]
    pub unlisted_mismatches: usize,
    /// Cases lost to a device error, the first `MAX_LISTED_MISMATCHES` of them, each with its
    /// case file (a launch that failed was split until only the cases that fail alone were lost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Lost>,
    /// Where the cases landed: fidelity class -> cases (every case in exactly one class).
    #[serde(default)]
    pub fidelity: crate::fidelity::Counts,
    /// Per open question of ASSUMPTIONS.md that concerns the op (by id): the cases judged, and
    /// for the questions whose readings the model computes, the cases consistent with each
    /// reading ([`super::readings`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub questions: super::readings::PerQuestion,
    /// Cases the model does not judge (fidelity class `not_modelled`, counted in `skipped`),
    /// the first `MAX_LISTED_MISMATCHES` of them, each with its case file holding the device's
    /// answer: recorded and shown, never judged, never counted as agreement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_modelled: Vec<Unjudged>,
    /// When the model's semantics of the op are inferred, not read from a source: why (shown
    /// beside every result of the op).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred: Option<String>,
}

/// One case the model does not judge: the device's answer is in its case file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unjudged {
    /// The case id.
    pub id: String,
    /// The variant's tag.
    pub variant: String,
    /// The case file, with the device's outcome (absent if writing it failed).
    pub path: Option<String>,
    /// The command that replays it.
    pub replay: String,
    /// Why the model does not judge it.
    pub reason: String,
}

/// The results of one kernel variant of an op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    /// The variant's tag in case ids.
    pub tag: String,
    /// The wave size the variant's kernel runs in.
    #[serde(default)]
    pub wave: WaveSize,
    /// The instruction as the kernel runs it (its registers and the variant's offsets).
    pub inst: String,
    /// LDS bytes the kernel allocates.
    pub lds_size: u32,
    /// The kernel's FP mode.
    pub mode: FpMode,
    /// Cases run or skipped.
    pub cases: usize,
    /// Cases that agree.
    pub agree: usize,
    /// Cases that disagree.
    pub disagree: usize,
    /// Cases skipped.
    pub skipped: usize,
    /// The device error that stopped the variant, if any.
    pub error: Option<String>,
}

/// One case lost to a device error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lost {
    /// The case id.
    pub id: String,
    /// The variant's tag.
    pub variant: String,
    /// The case file written for it (absent if writing it failed).
    pub path: Option<String>,
    /// The command that replays it.
    pub replay: String,
    /// The device error.
    pub error: String,
}

/// One mismatching case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// The case id.
    pub id: String,
    /// The variant's tag.
    pub variant: String,
    /// The case file written for it (absent if writing it failed).
    pub path: Option<String>,
    /// The command that replays it.
    pub replay: String,
    /// The first differences, lanes first.
    pub differences: Vec<Difference>,
    /// How many differences there are in all.
    pub total_differences: usize,
    /// A remark on the verdict (e.g. the legal-outcome search gave up).
    pub note: Option<String>,
    /// The legal-outcome search could not decide the case (class `undecided`, counted in
    /// `undecided`, not in `disagree`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undecided: bool,
}

/// Sums over ops.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Totals {
    /// Ops run.
    pub ops: usize,
    /// Cases run or skipped.
    pub cases: usize,
    /// Cases that agree.
    pub agree: usize,
    /// Cases that disagree.
    pub disagree: usize,
    /// Cases skipped.
    pub skipped: usize,
    /// Cases lost to device errors.
    pub errors: usize,
    /// Cases the device does not support.
    #[serde(default)]
    pub unsupported: usize,
    /// Cases the legal-outcome search could not decide.
    #[serde(default)]
    pub undecided: usize,
    /// Cases compared with the reference: agree + disagree + undecided (the device ran them and
    /// its results were judged). 0 means the run showed nothing, and it does not pass. Absent in
    /// results written before it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared: Option<usize>,
}

impl Totals {
    /// Cases compared with the reference (see [`Totals::compared`]), from the counts.
    pub fn cases_compared(&self) -> usize {
        self.agree
            .saturating_add(self.disagree)
            .saturating_add(self.undecided)
    }
}

/// A whole run's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: u32,
    /// What ran where.
    pub meta: RunMeta,
    /// False while the run is in progress (an interrupted run leaves its partial results).
    pub complete: bool,
    /// Sums over `ops`.
    pub totals: Totals,
    /// Wall time so far, in seconds.
    pub elapsed_seconds: f64,
    /// Per op, in table order: the ops finished.
    pub ops: Vec<OpResult>,
    /// Ops under way when the file was written (not in `totals`): an interrupted run's partial
    /// counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub in_progress: Vec<OpResult>,
    /// Sums of the finished ops' fidelity classes.
    #[serde(default)]
    pub fidelity: crate::fidelity::Counts,
    /// What an external device wrote on its stderr (the last lines), kept for the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_stderr: Vec<String>,
}

impl Report {
    /// An empty report for a run about to start.
    pub fn new(meta: RunMeta) -> Report {
        Report {
            format: FORMAT,
            meta,
            complete: false,
            totals: Totals::default(),
            elapsed_seconds: 0.0,
            ops: Vec::new(),
            in_progress: Vec::new(),
            fidelity: crate::fidelity::Counts::new(),
            device_stderr: Vec::new(),
        }
    }

    /// Adds an op's results and updates the totals.
    pub fn push(&mut self, op: OpResult) {
        // An op counts once, however many wave sizes it ran in.
        if !self.ops.iter().any(|o| o.op == op.op) {
            self.totals.ops += 1;
        }
        // Saturating: a report read from a file (merge) is checked before it is pushed, and a
        // sum past usize::MAX must not panic or wrap.
        let t = &mut self.totals;
        t.cases = t.cases.saturating_add(op.cases);
        t.agree = t.agree.saturating_add(op.agree);
        t.disagree = t.disagree.saturating_add(op.disagree);
        t.skipped = t.skipped.saturating_add(op.skipped);
        t.errors = t.errors.saturating_add(op.errors);
        t.unsupported = t.unsupported.saturating_add(op.unsupported);
        t.undecided = t.undecided.saturating_add(op.undecided);
        t.compared = Some(t.cases_compared());
        for (c, n) in &op.fidelity {
            let sum = self.fidelity.entry(*c).or_default();
            *sum = sum.saturating_add(*n);
        }
        self.ops.push(op);
    }

    /// True when at least one case was compared, nothing disagreed and nothing failed to run
    /// (unsupported cases fail the run unless it allows them). A run that compared no case
    /// ([`Report::nothing_compared`]) never agrees: it showed nothing.
    pub fn all_agree(&self) -> bool {
        self.totals.disagree == 0
            && self.totals.errors == 0
            && (self.meta.allow_unsupported || self.totals.unsupported == 0)
            && !self.nothing_compared()
    }

    /// True when cases ran but none was compared with the reference (every one unsupported,
    /// lost, or not modelled). A run with no case at all (nothing selected: an empty shard) is
    /// not this: it asked nothing.
    pub fn nothing_compared(&self) -> bool {
        self.totals.cases > 0 && self.totals.cases_compared() == 0
    }

    /// The sentence every output gives a run that compared no case, or `None`.
    pub fn nothing_compared_note(&self) -> Option<String> {
        let t = self.totals;
        self.nothing_compared().then(|| {
            format!(
                "no case was compared with the {}: {} of {} cases ran and were judged, so this \
                 run shows nothing and does not pass",
                self.reference(),
                t.cases_compared(),
                t.cases
            )
        })
    }

    /// What the device was compared with, in words: the model, or the recording.
    fn reference(&self) -> &str {
        if self.meta.against.is_some() {
            "recording"
        } else {
            "model"
        }
    }

    /// The worst class of any case of the run, in words.
    pub fn worst_class(&self) -> &'static str {
        crate::fidelity::worst(&self.fidelity).map_or("", |c| c.label())
    }

    /// The JSON results (pretty, newline-terminated).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reports always serialise");
        s.push('\n');
        s
    }

    /// The summary table: one row per op, then totals.
    pub fn summary(&self) -> String {
        let w = name_width(self.ops.iter().map(|o| o.op.as_str()));
        let mut s = summary_header(w);
        for o in &self.ops {
            s += &summary_row(o, w);
        }
        s + &self.summary_total(w)
    }

    /// The totals line of the summary table, names `w` wide.
    pub fn summary_total(&self, w: usize) -> String {
        let t = self.totals;
        let mut waves: Vec<WaveSize> = self.ops.iter().map(|o| o.wave).collect();
        waves.sort();
        waves.dedup();
        let mut notes = vec![match waves[..] {
            [_, _, ..] => format!(
                "{} ops in {}",
                t.ops,
                waves
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            _ => format!("{} ops", t.ops),
        }];
        if t.errors > 0 {
            notes.push(format!("{} cases lost to device errors", t.errors));
        }
        if t.unsupported > 0 {
            notes.push(unsupported_note(t.unsupported, self.meta.allow_unsupported));
        }
        if t.undecided > 0 {
            notes.push(undecided_note(t.undecided));
        }
        if t.skipped > 0 {
            notes.push(not_judged_note(t.skipped));
        }
        for o in &self.in_progress {
            notes.push(format!("{} stopped after {} cases", o.op, o.cases));
        }
        let mut s = format!(
            "{:<w$} {:>4} {:>6} {:>6} {:>8} {:>7}  {:<17}  {}\nfidelity: {}\n",
            "total",
            "",
            t.cases,
            t.agree,
            t.disagree,
            t.skipped,
            self.worst_class(),
            notes.join(", "),
            crate::fidelity::describe(&self.fidelity)
        );
        if let Some(n) = self.nothing_compared_note() {
            let _ = writeln!(s, "{n}");
        }
        for line in super::readings::summary_lines(self.ops.iter().map(|o| &o.questions)) {
            let _ = writeln!(s, "question {}", terminal(&line));
        }
        s
    }

    /// The summary as a GitHub-flavoured markdown table: what ran where, one row per op, totals.
    pub fn to_markdown(&self) -> String {
        let m = &self.meta;
        let t = self.totals;
        let failed = t.disagree > 0 || t.errors > 0 || (!m.allow_unsupported && t.unsupported > 0);
        let headline = match (self.complete, failed, self.nothing_compared()) {
            (_, true, _) => "Disagreements",
            (false, false, _) if self.ops.is_empty() => "Nothing finished yet",
            (true, false, _) if t.cases == 0 => "Nothing selected",
            (_, false, true) => "No case compared",
            (true, false, false) => "All agree",
            (false, false, false) => "No disagreements so far",
        };
        let mut s = format!(
            "**{headline}** on {} ({}, backend `{}`: {}){}; seed {:#x}{}{}\n\n",
            md(&m.device),
            md(&m.target),
            terminal(&m.backend).replace('`', "'"),
            md(&m.backend_reason),
            if m.device_details
                .get(ds_devices::exec::HARDWARE_DETAIL)
                .map(String::as_str)
                == Some("true")
            {
                ", hardware as reported by the device"
            } else {
                ""
            },
            m.seed,
            m.shard
                .as_ref()
                .map_or(String::new(), |k| format!(", shard {k}")),
            if self.complete {
                ""
            } else {
                " (run not complete)"
            },
        );
        if let Some(n) = self.nothing_compared_note() {
            let _ = writeln!(s, "**{}.**\n", md(&upper_first(&n)));
        }
        if let Some(o) = &m.overridden {
            let _ = writeln!(s, "Override: {}.\n", md(&o.sentence(&m.target)));
        }
        if let Some(a) = &m.against {
            let _ = writeln!(s, "Compared with {} instead of the model.\n", md(a));
        }
        if let Some(d) = m.duration_seconds {
            let _ = writeln!(
                s,
                "Time budget {d:.0} s: ops taken in turns until it ran out.\n"
            );
        }
        s += "| op | wave | cases | agree | disagree | skipped | class | note |\n|---|--:|--:|--:|--:|--:|---|---|\n";
        for o in &self.ops {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                code(&o.op),
                o.wave.lanes(),
                o.cases,
                o.agree,
                o.disagree,
                o.skipped,
                op_class(o),
                md(&note(o))
            );
        }
        let mut notes = Vec::new();
        if t.errors > 0 {
            notes.push(format!("{} cases lost to device errors", t.errors));
        }
        if t.unsupported > 0 {
            notes.push(unsupported_note(t.unsupported, m.allow_unsupported));
        }
        if t.undecided > 0 {
            notes.push(undecided_note(t.undecided));
        }
        if t.skipped > 0 {
            notes.push(not_judged_note(t.skipped));
        }
        let _ = writeln!(
            s,
            "| **total ({} ops)** | | {} | {} | {} | {} | {} | {} |",
            t.ops,
            t.cases,
            t.agree,
            t.disagree,
            t.skipped,
            md(&crate::fidelity::describe(&self.fidelity)),
            notes.join(", ")
        );
        for o in &self.in_progress {
            let _ = writeln!(
                s,
                "\n{} was under way: {} cases so far, {} disagree.",
                code(&o.op),
                o.cases,
                o.disagree
            );
        }
        s + &super::readings::markdown(self.ops.iter().map(|o| &o.questions))
    }
}

/// The width of the op column of a summary table of ops named `names`.
pub fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.map(str::len).max().unwrap_or(2).max(5)
}

/// The header line of the summary table, names `w` wide.
pub fn summary_header(w: usize) -> String {
    format!(
        "{:<w$} {:>4} {:>6} {:>6} {:>8} {:>7}  {:<17}  note\n",
        "op", "wave", "cases", "agree", "disagree", "skipped", "class"
    )
}

/// One op's line of the summary table, names `w` wide (printed as the op completes). Text that
/// came from a device or a file is shown printably ([`terminal`]).
pub fn summary_row(o: &OpResult, w: usize) -> String {
    format!(
        "{:<w$} {:>4} {:>6} {:>6} {:>8} {:>7}  {:<17}  {}\n",
        terminal(&o.op),
        o.wave.lanes(),
        o.cases,
        o.agree,
        o.disagree,
        o.skipped,
        op_class(o),
        terminal(&note(o))
    )
}

/// The op's fidelity class in words: its worst case's class.
fn op_class(o: &OpResult) -> &'static str {
    crate::fidelity::worst(&o.fidelity).map_or("", |c| c.label())
}

/// `N cases unsupported ...` for the totals.
fn unsupported_note(n: usize, allowed: bool) -> String {
    if allowed {
        format!("{n} cases unsupported (allowed, counted apart)")
    } else {
        format!("{n} cases unsupported (--allow-unsupported to count them apart)")
    }
}

/// `text` with its first letter a capital.
fn upper_first(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `N cases undecided ...` for the totals.
fn undecided_note(n: usize) -> String {
    format!("{n} cases undecided (the legal-outcome search gave up; not counted as disagreements)")
}

/// `N cases not judged ...` for the totals.
fn not_judged_note(n: usize) -> String {
    format!(
        "{n} cases not judged (not modelled: the device's answers are recorded in their case \
         files, never counted as agreement)"
    )
}

/// Characters of a note in the summary table and the markdown summary at most.
pub const MAX_NOTE_CHARS: usize = 300;

/// The note column of the summary: the first problem, the skip reasons, or the device's choices,
/// cut to [`MAX_NOTE_CHARS`].
fn note(o: &OpResult) -> String {
    ds_devices::exec::text::cut(&full_note(o), MAX_NOTE_CHARS)
}

fn full_note(o: &OpResult) -> String {
    // An inferred model is said first, so the note's cut never hides it.
    let note = problem_note(o);
    match &o.inferred {
        Some(why) if note.is_empty() => format!("model {why}"),
        Some(why) => format!("model {why}; {note}"),
        None => note,
    }
}

fn problem_note(o: &OpResult) -> String {
    if let Some(v) = o.variants.iter().find_map(|v| v.error.as_ref()) {
        // A row whose cases the device does not support says so; anything else is an error.
        let only_unsupported = o.unsupported > 0 && o.errors == 0;
        return if only_unsupported {
            format!(
                "unsupported: {}",
                v.strip_prefix("unsupported by the device: ").unwrap_or(v)
            )
        } else {
            format!("device error: {v}")
        };
    }
    if let Some(m) = o.mismatches.first() {
        let first = m
            .differences
            .first()
            .map(|d| d.to_string())
            .unwrap_or_default();
        return match &m.note {
            // The reading the device followed, when the check named one.
            Some(n) if !m.undecided => format!("e.g. {}: {first}; {n}", m.id),
            _ => format!("e.g. {}: {first}", m.id),
        };
    }
    if !o.skip_reasons.is_empty() {
        return o
            .skip_reasons
            .iter()
            .map(|(r, n)| format!("{n} not judged: {r}"))
            .collect::<Vec<_>>()
            .join("; ");
    }
    o.choices
        .iter()
        .map(|(c, n)| match o.same_address {
            0 => format!("{c} on {n}"),
            all => format!("{c} on {n}/{all} cases"),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
