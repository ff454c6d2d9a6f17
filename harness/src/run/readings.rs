//! Which reading of each open question a device followed (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions"): per op and open
//! question, the cases consistent with each of the question's readings, counted as the run goes
//! (`OpResult::questions` in the JSON results, a section of the markdown report, a line of the
//! terminal summary), and the verdict per question over a run's results that `ds-harness
//! questions` prints. The readings and their standings come from `reference/ASSUMPTIONS.md`
//! (`ds_reference::model::questions`); which ones a case is consistent with, from the model's
//! legal check (`ds_reference::model::legal::tally`).

use crate::output::escape::{code, md};
use ds_reference::model::legal::Tally;
use ds_reference::model::{questions, readings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How one open question fared on one op's cases.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionCounts {
    /// Cases of the op judged against the model (exact, legal, mismatch or undecided).
    pub cases: usize,
    /// Of those, the cases the device agreed on (exactly or as a legal alternative).
    pub agree: usize,
    /// The model computes this question's readings (else only `cases` and `agree` are counted:
    /// the run cannot tell which reading a case followed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub computed: bool,
    /// Reading -> cases consistent with it (computed questions only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub consistent: BTreeMap<String, usize>,
    /// Cases that told readings apart: consistent with some computed reading and not another.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub told_apart: usize,
    /// Reading -> cases among `told_apart` consistent with it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub telling: BTreeMap<String, usize>,
    /// Cases no computed reading explains.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unexplained: usize,
    /// Cases where the legal search could not decide a reading within its budget.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub undecided: usize,
    /// The first case that told readings apart (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_telling: Option<String>,
}

impl QuestionCounts {
    /// Adds one judged case: whether the device agreed, and (for a computed question) its tally.
    pub fn add(&mut self, id: impl FnOnce() -> String, agreed: bool, tally: Option<&Tally>) {
        self.cases += 1;
        self.agree += usize::from(agreed);
        let Some(t) = tally else {
            return;
        };
        self.computed = true;
        let consistent = t.consistent();
        for r in &t.readings {
            let n = self.consistent.entry(r.0.to_string()).or_default();
            *n += usize::from(consistent.contains(&r.0));
        }
        self.undecided += usize::from(t.readings.iter().any(|r| r.2.is_none()));
        if consistent.is_empty() {
            self.unexplained += 1;
        } else if t.tells_apart() {
            self.told_apart += 1;
            for r in &t.readings {
                let n = self.telling.entry(r.0.to_string()).or_default();
                *n += usize::from(consistent.contains(&r.0));
            }
            if self.first_telling.is_none() {
                self.first_telling = Some(id());
            }
        }
    }

    /// Adds another op's (or file's) counts.
    pub fn absorb(&mut self, o: &QuestionCounts) {
        self.cases = self.cases.saturating_add(o.cases);
        self.agree = self.agree.saturating_add(o.agree);
        self.computed |= o.computed;
        self.told_apart = self.told_apart.saturating_add(o.told_apart);
        self.unexplained = self.unexplained.saturating_add(o.unexplained);
        self.undecided = self.undecided.saturating_add(o.undecided);
        for (r, n) in &o.consistent {
            let s = self.consistent.entry(r.clone()).or_default();
            *s = s.saturating_add(*n);
        }
        for (r, n) in &o.telling {
            let s = self.telling.entry(r.clone()).or_default();
            *s = s.saturating_add(*n);
        }
        if self.first_telling.is_none() {
            self.first_telling.clone_from(&o.first_telling);
        }
    }

    /// Whether every count fits its whole (a results file is untrusted input): `None` when they
    /// do, else what does not.
    pub fn inconsistency(&self, op_cases: usize) -> Option<String> {
        let over = |what: &str, n: usize, of: &str, whole: usize| {
            (n > whole).then(|| format!("{what} is {n}, more than its {whole} {of}"))
        };
        over("cases", self.cases, "op cases", op_cases)
            .or_else(|| over("agree", self.agree, "cases", self.cases))
            .or_else(|| over("told_apart", self.told_apart, "cases", self.cases))
            .or_else(|| over("unexplained", self.unexplained, "cases", self.cases))
            .or_else(|| over("undecided", self.undecided, "cases", self.cases))
            .or_else(|| {
                self.consistent
                    .iter()
                    .find_map(|(r, n)| over(r, *n, "cases", self.cases))
            })
            .or_else(|| {
                self.telling
                    .iter()
                    .find_map(|(r, n)| over(r, *n, "told-apart cases", self.told_apart))
            })
    }
}

/// What a run's cases say about one question's computed readings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Readings consistent with every case that told readings apart (at least one did), less the
    /// wider readings that include a supported one (`ds_reference::model::readings::WIDER`).
    pub supported: Vec<String>,
    /// Wider readings consistent with every telling case because a reading they include is.
    pub also: Vec<String>,
    /// Readings some case that told readings apart was inconsistent with.
    pub ruled_out: Vec<String>,
    /// No case told the readings apart: all still open.
    pub open: bool,
}

impl QuestionCounts {
    /// The finding on the computed readings, in ASSUMPTIONS.md's order for `question`.
    pub fn finding(&self, question: &str) -> Finding {
        let order = reading_order(question, &self.consistent);
        let open = self.told_apart == 0;
        let (mut supported, mut ruled_out) = (Vec::new(), Vec::new());
        for r in order {
            let n = self.telling.get(&r).copied().unwrap_or(0);
            if open {
                continue;
            }
            if n == self.told_apart {
                supported.push(r);
            } else {
                ruled_out.push(r);
            }
        }
        let (also, supported): (Vec<String>, Vec<String>) =
            supported.iter().cloned().partition(|r| {
                readings::narrower(question, r)
                    .iter()
                    .any(|n| supported.iter().any(|s| s == n))
            });
        Finding {
            supported,
            also,
            ruled_out,
            open,
        }
    }
}

/// The readings named in `counts`, in ASSUMPTIONS.md's order for `question` (unknown names last).
fn reading_order(question: &str, counts: &BTreeMap<String, usize>) -> Vec<String> {
    let mut names: Vec<String> = questions::get(question)
        .map(|q| q.readings.iter().map(|r| r.name.clone()).collect())
        .unwrap_or_default();
    names.retain(|n| counts.contains_key(n));
    for n in counts.keys() {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

/// One op's counts: question id -> counts (`OpResult::questions`).
pub type PerQuestion = BTreeMap<String, QuestionCounts>;

/// The questions of several ops' counts (`OpResult::questions` of each) summed, in
/// ASSUMPTIONS.md order (unknown ids last).
pub fn totals<'a>(ops: impl IntoIterator<Item = &'a PerQuestion>) -> Vec<(String, QuestionCounts)> {
    let mut sums: BTreeMap<String, QuestionCounts> = BTreeMap::new();
    for o in ops {
        for (q, c) in o {
            sums.entry(q.clone()).or_default().absorb(c);
        }
    }
    let mut out: Vec<(String, QuestionCounts)> = Vec::new();
    for q in questions::parsed() {
        if let Some(c) = sums.remove(&q.id) {
            out.push((q.id.clone(), c));
        }
    }
    out.extend(sums);
    out
}

/// One line per computed question whose readings a case told apart: what the device followed.
/// Empty when no case told readings apart.
pub fn summary_lines<'a>(ops: impl IntoIterator<Item = &'a PerQuestion>) -> Vec<String> {
    totals(ops)
        .into_iter()
        .filter(|(_, c)| c.computed && c.told_apart > 0)
        .map(|(q, c)| {
            let f = c.finding(&q);
            let followed = if f.supported.is_empty() {
                "no single reading".to_string()
            } else {
                f.supported
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            };
            format!(
                "{q}: the device followed {followed} ({} cases told the readings apart{})",
                c.told_apart,
                if c.unexplained > 0 {
                    format!(", {} explained by none", c.unexplained)
                } else {
                    String::new()
                }
            )
        })
        .collect()
}

/// The markdown section: per question the run counted, its readings and the cases consistent
/// with each.
pub fn markdown<'a>(ops: impl IntoIterator<Item = &'a PerQuestion>) -> String {
    let all = totals(ops);
    if all.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n### Open questions\n\nCases consistent with each computed reading (ASSUMPTIONS.md; \
         `ds-harness questions` reads these counts):\n\n| question | cases | agree | told apart \
         | readings (consistent / of those telling) |\n|---|--:|--:|--:|---|\n",
    );
    for (q, c) in all {
        let readings = if c.computed {
            reading_order(&q, &c.consistent)
                .iter()
                .map(|r| {
                    format!(
                        "{}: {} / {}",
                        code(r),
                        c.consistent.get(r).copied().unwrap_or(0),
                        c.telling.get(r).copied().unwrap_or(0)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        } else {
            "not computed".to_string()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            md(&q),
            c.cases,
            c.agree,
            c.told_apart,
            readings
        );
    }
    s
}
