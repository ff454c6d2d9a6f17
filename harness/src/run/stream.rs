//! The run as a stream (docs/design-notes.md, "Runs at scale"): each op's cases are generated, launched, checked
//! against the model and folded into the op's results in chunks of at most [`RunConfig::chunk`]
//! cases, so memory is bounded by the chunk, never by `--cases`.
//!
//! Generation and the check (model, diff, legal-outcome search) run on the rayon pool; the
//! device runs on the calling thread, and the check of chunk k runs while the device works on
//! chunk k+1. Each case's verdict is a pure function of the case and the device's outcome, and
//! verdicts are folded in case order on the calling thread, so results do not depend on the
//! number of threads or the chunk size.

use super::bisect::{split_failed, Parts};
use super::report::{Lost, Mismatch, OpResult, Unjudged, VariantResult, MAX_LISTED_DIFFERENCES};
use super::{diff, legal, RunConfig};
use crate::case::{CaseFile, DeviceOutcome};
use crate::corpus::{self, VariantPlan};
use crate::fidelity::Class;
use ds_devices::{Device, ModuleId};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_kernels::launch::Launch;
use ds_kernels::{abi, generator};
use ds_reference::model::legal::{Agreement, Tally};
use ds_reference::wave::{Case, Lds, Outcome, Wave, WaveSize};
use rayon::prelude::*;

/// Mismatching cases of one op that get a case file and a place in the reports; further
/// mismatches are counted (in `disagree` and `unlisted_mismatches`) but not kept, so a device that
/// disagrees on every case of a million-case run does not fill the memory or the disk.
pub const MAX_LISTED_MISMATCHES: usize = 200;

/// One op under way: its corpus plan, its results so far, and the next case of each variant.
#[derive(Debug)]
pub(super) struct OpState {
    pub op: DsOp,
    pub plans: Vec<VariantPlan>,
    pub res: OpResult,
    /// The next case index of each variant (a `--duration` run goes on past the plan's count).
    pub next: Vec<usize>,
    /// The open questions (ASSUMPTIONS.md ids) that concern the op on the device's target.
    pub questions: Vec<String>,
}

impl OpState {
    pub fn new(op: DsOp, wave: WaveSize, cfg: &RunConfig, target: &Target) -> OpState {
        let plans = corpus::plan_for(op, cfg.seed, cfg.cases_per_op, wave, target);
        let variants = plans
            .iter()
            .map(|p| {
                // The instruction as the target's generation spells it, with the kernel's
                // registers (AccVGPRs for an acc variant).
                let inst =
                    generator::test_inst(target, &p.variant).unwrap_or_else(|_| p.variant.inst());
                VariantResult {
                    tag: p.tag.clone(),
                    wave: p.variant.wave,
                    inst: inst.text(target.generation).to_string(),
                    lds_size: p.variant.lds_size,
                    mode: p.variant.mode,
                    cases: 0,
                    agree: 0,
                    disagree: 0,
                    skipped: 0,
                    error: None,
                }
            })
            .collect();
        let questions = ds_reference::model::questions::for_op(op, target.generation)
            .into_iter()
            .map(|q| q.id)
            .collect();
        OpState {
            op,
            next: vec![0; plans.len()],
            questions,
            plans,
            res: OpResult {
                op: op.name().to_string(),
                wave,
                variants,
                inferred: ds_reference::model::inferred(op).map(String::from),
                ..OpResult::default()
            },
        }
    }

    /// The chunks of one round: for each variant, its plan's count of cases from where it
    /// stands, split into chunks of at most `chunk` cases. A plain run has one round; a
    /// `--duration` run goes round after round.
    pub fn round(&mut self, chunk: usize) -> Vec<ChunkSpec> {
        let mut out = Vec::new();
        for (vi, p) in self.plans.iter().enumerate() {
            let (start, end) = (self.next[vi], self.next[vi] + p.count);
            let mut at = start;
            while at < end {
                let len = chunk.min(end - at);
                out.push(ChunkSpec {
                    variant: vi,
                    start: at,
                    len,
                });
                at += len;
            }
            self.next[vi] = end;
        }
        out
    }
}

/// Cases `start..start + len` of variant `variant` of an op.
#[derive(Clone, Copy, Debug)]
pub(super) struct ChunkSpec {
    pub variant: usize,
    pub start: usize,
    pub len: usize,
}

/// What one case came to.
#[derive(Debug)]
enum Verdict {
    /// Device and model agree; `shared` when active lanes shared bytes; `choice` when the device
    /// took another legal outcome than the model's (which readings of each computed question
    /// the outcome is consistent with is counted in the chunk's [`Checked::questions`]).
    Agree {
        shared: bool,
        choice: Option<String>,
    },
    /// The model does not judge the case (no sourced semantics): the device's answer is kept,
    /// to be recorded and shown, never judged (boxed: rare, and large).
    NotModelled(Box<(&'static str, Case, Outcome)>),
    /// They disagree, or the legal-outcome search could not decide (boxed: rare, and large).
    Disagree(Box<Disagreement>),
    /// The device error that lost the case (the launch that held it failed), in its class.
    Lost(Class, String),
}

#[derive(Debug)]
struct Disagreement {
    case: Case,
    expected: Outcome,
    device: Outcome,
    diffs: Vec<diff::Difference>,
    shared: bool,
    note: Option<String>,
    /// The legal-outcome search gave up: class `undecided`, not `mismatch`.
    undecided: bool,
}

/// A chunk launched, waiting for its check (which reads its outcomes back from the launch's
/// buffers, case by case on the pool). A launch that failed was split ([`launch_split`]): each
/// part has its launch or its error.
#[derive(Debug)]
pub(super) struct Launched {
    /// Which op state it belongs to.
    pub state: usize,
    /// The device's target: whose rules the check follows.
    pub target: &'static ds_isa::target::Target,
    pub spec: ChunkSpec,
    pub cases: Vec<Case>,
    pub parts: Parts,
}

/// A chunk checked, ready to fold.
#[derive(Debug)]
pub(super) struct Checked {
    state: usize,
    spec: ChunkSpec,
    verdicts: Vec<Verdict>,
    /// The chunk's launch, read (when it ran whole): its buffers serve a later chunk.
    spent: Option<Launch>,
    /// The chunk's cases, checked: their buffers serve a later chunk's cases.
    cases: Vec<Case>,
    /// The chunk's counts per open question (its cases in order), for the op's: counted on the
    /// pool, where the readings' tallies were made and are freed (freed on the calling thread,
    /// they made the pool's threads wait on the heap's locks).
    questions: super::readings::PerQuestion,
}

impl Checked {
    /// The op state the chunk belongs to.
    pub fn state(&self) -> usize {
        self.state
    }

    /// Cases in the chunk.
    pub fn len(&self) -> usize {
        self.spec.len
    }

    /// The chunk's launch, read, when it ran whole (its buffers serve a later chunk).
    pub fn take_spent(&mut self) -> Option<Launch> {
        self.spent.take()
    }

    /// The chunk's cases, checked (their buffers serve a later chunk's cases).
    pub fn take_cases(&mut self) -> Vec<Case> {
        std::mem::take(&mut self.cases)
    }

    /// Cases whose device outcome agrees with the model (exactly or as a legal alternative).
    pub fn agreed(&self) -> usize {
        (self.verdicts.iter())
            .filter(|v| matches!(v, Verdict::Agree { .. }))
            .count()
    }
}

/// Builds the cases of `spec`, on the rayon pool, into `spare` (the cases of a checked chunk,
/// whose buffers are reused: building a case allocates nothing, and no case is freed on another
/// thread than the one that made it, which with the system allocator made the threads wait on
/// each other's heaps).
pub(super) fn generate(plan: &VariantPlan, spec: ChunkSpec, spare: Vec<Case>) -> Vec<Case> {
    let mut cases = spare;
    cases.truncate(spec.len);
    let fresh = spec.len - cases.len();
    cases.par_extend((0..fresh).into_par_iter().map(|_| Case {
        lds: Lds::zeroed(plan.variant.lds_size),
        wave: Wave::new(plan.variant.wave),
    }));
    cases
        .par_iter_mut()
        .enumerate()
        .for_each(|(k, case)| plan.case_into(spec.start + k, case));
    cases
}

/// Reads a launched chunk's outcomes back and checks them against the model, case by case on the
/// rayon pool; the cases of a part that failed are lost to its error.
pub(super) fn check(
    cfg: &RunConfig,
    plan: &VariantPlan,
    questions: &[String],
    l: Launched,
) -> Checked {
    let cases = l.cases;
    let mut counts = super::readings::PerQuestion::new();
    let mut spent = None;
    let whole = l.parts.len() == 1;
    let mut verdicts = Vec::with_capacity(cases.len());
    for (range, part) in l.parts {
        let first = l.spec.start + range.start;
        let mine = &cases[range];
        let read = part.and_then(|launch| {
            let back = abi::Readback::new(&plan.variant, mine.len(), &launch)
                .map_err(|e| (Class::DeviceError, e.to_string()))?;
            let v: Vec<(Verdict, Vec<Tally>)> = mine
                .par_iter()
                .enumerate()
                .map(|(c, case)| verdict(cfg, l.target, plan, case, back.outcome(c, case)))
                .collect();
            if whole {
                spent = Some(launch);
            }
            let mut out = Vec::with_capacity(v.len());
            for (k, (verdict, tallies)) in v.into_iter().enumerate() {
                let agreed = match &verdict {
                    Verdict::Agree { .. } => Some(true),
                    Verdict::Disagree(_) => Some(false),
                    _ => None,
                };
                if let Some(agreed) = agreed {
                    let id = || plan.id(first + k);
                    count_questions(&mut counts, questions, id, agreed, &tallies);
                }
                out.push(verdict);
            }
            Ok(out)
        });
        match read {
            Ok(v) => verdicts.extend(v),
            Err((class, e)) => {
                verdicts.extend(mine.iter().map(|_| Verdict::Lost(class, e.clone())));
            }
        }
    }
    Checked {
        state: l.state,
        spec: l.spec,
        verdicts,
        spent,
        cases,
        questions: counts,
    }
}

fn verdict(
    cfg: &RunConfig,
    target: &ds_isa::target::Target,
    plan: &VariantPlan,
    case: &Case,
    dev: Outcome,
) -> (Verdict, Vec<Tally>) {
    let v = &plan.variant;
    let inst = v.inst();
    let expected = match super::expectation(cfg.expect, target, v, case) {
        Ok(o) => o,
        Err(u) => {
            let v = Verdict::NotModelled(Box::new((u.why, case.clone(), dev)));
            return (v, Vec::new());
        }
    };
    let diffs = diff::diff(inst.info(), case.wave.exec, &expected, &dev);
    let shared = legal::lanes_share_bytes(v, case);
    let tallies = |agreement: Agreement| match cfg.readings {
        Some(f) => f(target, v, case, &dev, agreement),
        None => Vec::new(),
    };
    if diffs.is_empty() {
        let v = Verdict::Agree {
            shared,
            choice: None,
        };
        return (v, tallies(Agreement::Exact));
    }
    let (note, undecided) = match (cfg.judge)(target, v, case, &expected, &dev) {
        legal::Legality::Legal(choice) => {
            let v = Verdict::Agree {
                shared,
                choice: Some(choice),
            };
            return (v, tallies(Agreement::Legal));
        }
        legal::Legality::Illegal(why) => {
            // A mismatch that matches a disagreement reading says so.
            let named = why
                .split_once("; it matches ASSUMPTIONS.md ")
                .map(|(_, r)| format!("matches ASSUMPTIONS.md {r}"));
            (named, false)
        }
        legal::Legality::Undecided(why) => {
            (Some(format!("legal-outcome search undecided: {why}")), true)
        }
    };
    let tallies = tallies(Agreement::No);
    let v = Verdict::Disagree(Box::new(Disagreement {
        case: case.clone(),
        expected,
        device: dev,
        diffs,
        shared,
        note,
        undecided,
    }));
    (v, tallies)
}

/// Counts one judged case of an op under each of its open questions.
fn count_questions(
    counts: &mut std::collections::BTreeMap<String, super::readings::QuestionCounts>,
    questions: &[String],
    id: impl Fn() -> String,
    agreed: bool,
    tallies: &[Tally],
) {
    for q in questions {
        let tally = tallies.iter().find(|t| t.question == q);
        counts.entry(q.clone()).or_default().add(&id, agreed, tally);
    }
}

/// The device side of a run, for case files of mismatches.
#[derive(Debug)]
pub(super) struct DeviceNames {
    pub backend: String,
    pub name: String,
    /// The target the device runs (case files name it).
    pub target: &'static ds_isa::target::Target,
    /// The `--backend ...` flags of replay commands.
    pub replay_flags: String,
}

/// Folds a checked chunk into its op's results, in case order; writes the case file of each
/// listed mismatch. Returns the chunk's disagreements.
pub(super) fn fold(
    cfg: &RunConfig,
    states: &mut [OpState],
    c: Checked,
    names: &DeviceNames,
) -> usize {
    let st = &mut states[c.state];
    let plan = &st.plans[c.spec.variant];
    let res = &mut st.res;
    let vr = &mut res.variants[c.spec.variant];
    vr.cases += c.spec.len;
    res.cases += c.spec.len;
    // The chunk's question counts, counted on the pool (chunks fold in case order, so the op's
    // first telling case is still the first).
    for (q, counts) in &c.questions {
        res.questions.entry(q.clone()).or_default().absorb(counts);
    }
    let mut disagree = 0;
    for (k, v) in c.verdicts.into_iter().enumerate() {
        let i = c.spec.start + k;
        match v {
            Verdict::Agree { shared, choice } => {
                let class = if choice.is_some() {
                    Class::Legal
                } else {
                    Class::Exact
                };
                *res.fidelity.entry(class).or_default() += 1;
                vr.agree += 1;
                res.agree += 1;
                res.same_address += usize::from(shared);
                match choice {
                    Some(c) => *res.choices.entry(c).or_default() += 1,
                    None if shared => *res.choices.entry(legal::ASCENDING.into()).or_default() += 1,
                    None => {}
                }
            }
            Verdict::NotModelled(b) => {
                let (why, case, device) = *b;
                *res.fidelity.entry(Class::NotModelled).or_default() += 1;
                vr.skipped += 1;
                res.skipped += 1;
                *res.skip_reasons.entry(why.to_string()).or_default() += 1;
                if res.not_modelled.len() < MAX_LISTED_MISMATCHES {
                    let outcomes = Some((case, None, device));
                    let (id, path, replay, written) =
                        case_file(cfg, names, st.op, plan, i, outcomes);
                    res.not_modelled.push(Unjudged {
                        id,
                        variant: plan.tag.clone(),
                        path: written.then(|| path.display().to_string()),
                        replay,
                        reason: why.to_string(),
                    });
                }
            }
            Verdict::Lost(class, e) => {
                *res.fidelity.entry(class).or_default() += 1;
                if class == Class::Unsupported {
                    res.unsupported += 1;
                } else {
                    res.errors += 1;
                    if res.lost.len() < MAX_LISTED_MISMATCHES {
                        let (id, path, replay, written) =
                            case_file(cfg, names, st.op, plan, i, None);
                        res.lost.push(Lost {
                            id,
                            variant: plan.tag.clone(),
                            path: written.then(|| path.display().to_string()),
                            replay,
                            error: e.clone(),
                        });
                    }
                }
                vr.error.get_or_insert(e);
            }
            Verdict::Disagree(d) => {
                let class = if d.undecided {
                    res.undecided += 1;
                    Class::Undecided
                } else {
                    disagree += 1;
                    vr.disagree += 1;
                    res.disagree += 1;
                    Class::Mismatch
                };
                *res.fidelity.entry(class).or_default() += 1;
                res.same_address += usize::from(d.shared);
                if res.mismatches.len() >= MAX_LISTED_MISMATCHES {
                    res.unlisted_mismatches += 1;
                    continue;
                }
                let d = *d;
                let outcomes = Some((d.case, Some(d.expected), d.device));
                let (id, path, replay, written) = case_file(cfg, names, st.op, plan, i, outcomes);
                res.mismatches.push(Mismatch {
                    id,
                    variant: plan.tag.clone(),
                    path: written.then(|| path.display().to_string()),
                    replay,
                    differences: d
                        .diffs
                        .iter()
                        .take(MAX_LISTED_DIFFERENCES)
                        .copied()
                        .collect(),
                    total_differences: d.diffs.len(),
                    note: d.note,
                    undecided: d.undecided,
                });
            }
        }
    }
    disagree
}

/// Writes the case file of case `i` of `plan` under `<out>/<op>/<id>.json`, with the case's
/// (case, expected, device) outcomes when known (no expected outcome for a case the model does
/// not judge); returns its id, path, replay command and whether it was written.
fn case_file(
    cfg: &RunConfig,
    names: &DeviceNames,
    op: DsOp,
    plan: &VariantPlan,
    i: usize,
    outcomes: Option<(Case, Option<Outcome>, Outcome)>,
) -> (String, std::path::PathBuf, String, bool) {
    let id = plan.id(i);
    let mut file = match outcomes {
        Some((case, expected, device)) => {
            let mut f = CaseFile::new(&id, cfg.seed, names.target, plan.variant, case);
            f.expected = expected;
            f.device = Some(DeviceOutcome {
                backend: names.backend.clone(),
                name: names.name.clone(),
                outcome: device,
            });
            f
        }
        None => CaseFile::new(&id, cfg.seed, names.target, plan.variant, plan.case(i)),
    };
    let path = cfg.out_dir.join(op.name()).join(format!("{id}.json"));
    let replay = format!(
        "ds-harness replay {} {}",
        path.display(),
        names.replay_flags
    );
    file.replay = Some(replay.clone());
    let written = file.write(&path).is_ok();
    (id, path, replay, written)
}

/// The pipeline: the chunks launched and not yet checked, oldest first, and the buffers of a
/// spent launch for the next. With a device that runs each launch as it is handed over there is
/// at most one; a device that takes the next launch while one is under way ([`Device::submit`],
/// an exec device) has the next chunk before it answers the last, and one more chunk waits.
#[derive(Debug, Default)]
pub(super) struct Pipeline {
    queue: std::collections::VecDeque<Queued>,
    spare: Option<Launch>,
    /// The cases of the last chunk checked, for the next chunk to be built into.
    spare_cases: Vec<Case>,
}

/// A chunk launched: its parts once the device has answered (`None`: still under way).
#[derive(Debug)]
struct Queued {
    state: usize,
    target: &'static ds_isa::target::Target,
    spec: ChunkSpec,
    cases: Vec<Case>,
    parts: Option<Parts>,
}

impl Queued {
    fn launched(self) -> Launched {
        Launched {
            state: self.state,
            target: self.target,
            spec: self.spec,
            cases: self.cases,
            parts: self.parts.expect("answered"),
        }
    }
}

impl Pipeline {
    /// Launches `cases` (chunk `spec` of op state `state`) on the device while the oldest chunk
    /// the device has answered is checked on the pool, and the cases of chunk `next` (of its op
    /// state) are built there too, off the device's path; then takes the device's answer to the
    /// chunk before this one if it is still under way. Returns the check, if a chunk was
    /// checked, and the next chunk's cases.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        cfg: &RunConfig,
        states: &[OpState],
        device: &mut dyn Device,
        module: ModuleId,
        state: usize,
        spec: ChunkSpec,
        cases: Vec<Case>,
        next: Option<(usize, ChunkSpec)>,
    ) -> (Option<Checked>, Option<Vec<Case>>) {
        let answered = self.queue.front().is_some_and(|q| q.parts.is_some());
        let previous = answered.then(|| self.queue.pop_front().expect("a chunk").launched());
        let spare_cases = std::mem::take(&mut self.spare_cases);
        let (mut checked, mut ahead) = (None, None);
        let variant = states[state].plans[spec.variant].variant;
        let target = device.info().target;
        ds_devices::set_launch_context(format!(
            "cases {}..{} of variant {} of {} (seed {:#x})",
            spec.start,
            spec.start + spec.len,
            spec.variant,
            variant.op,
            cfg.seed
        ));
        let spare = self.spare.take();
        let queue = &mut self.queue;
        let parts = rayon::in_place_scope(|s| {
            if let Some(p) = previous {
                let plan = &states[p.state].plans[p.spec.variant];
                let slot = &mut checked;
                let questions = &states[p.state].questions;
                s.spawn(move |_| *slot = Some(check(cfg, plan, questions, p)));
            }
            if let Some((ns, n)) = next {
                let plan = &states[ns].plans[n.variant];
                let slot = &mut ahead;
                s.spawn(move |_| *slot = Some(generate(plan, n, spare_cases)));
            }
            let parts = super::submit_cases(device, module, &variant, &cases, spare)
                .map(|whole| split_failed(device, module, &variant, &cases, whole));
            // The chunks handed over before this one, answered now (this one stays under way).
            for q in queue.iter_mut().filter(|q| q.parts.is_none()) {
                q.parts = Some(answer(device, module, states, q));
            }
            parts
        });
        if let Some(c) = &mut checked {
            self.spare = c.spent.take();
            self.spare_cases = std::mem::take(&mut c.cases);
        }
        self.queue.push_back(Queued {
            state,
            target,
            spec,
            cases,
            parts,
        });
        (checked, ahead)
    }

    /// Spent cases for a chunk built outside [`Self::push`] to be built into.
    pub fn take_cases(&mut self) -> Vec<Case> {
        std::mem::take(&mut self.spare_cases)
    }

    /// Checks the oldest chunk still pending, if any (waiting for the device's answer when it is
    /// under way); called until `None` at the end of a run.
    pub fn drain(
        &mut self,
        cfg: &RunConfig,
        states: &[OpState],
        device: &mut dyn Device,
        module: ModuleId,
    ) -> Option<Checked> {
        let mut q = self.queue.pop_front()?;
        if q.parts.is_none() {
            q.parts = Some(answer(device, module, states, &q));
        }
        let p = q.launched();
        let st = &states[p.state];
        Some(check(cfg, &st.plans[p.spec.variant], &st.questions, p))
    }
}

/// The device's answer to chunk `q` (under way), its cases launched again in parts if it failed.
fn answer(device: &mut dyn Device, module: ModuleId, states: &[OpState], q: &Queued) -> Parts {
    let variant = states[q.state].plans[q.spec.variant].variant;
    let whole = super::completed(device);
    split_failed(device, module, &variant, &q.cases, whole)
}
