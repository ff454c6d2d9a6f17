//! `ds-harness merge`: the JSON results of the shards of one run put back together into one
//! report, and their recording directories into one (docs/design-notes.md, "Runs at scale"). Shards must belong to
//! the same run (seed, cases, shard count, harness revision, backend and target, op selection, time
//! budget), each must be complete, every shard 1..=N must be there exactly once, and together
//! they must cover the run's ops exactly once; anything else is refused with the shard and file
//! named.

use crate::fidelity;
use crate::record::{self, RunStatus, EXTENSION, RUN_STATUS};
use crate::run::report::{Report, RunMeta, Totals, FORMAT};
use crate::run::select::{select_ops_on, Shard};
use ds_isa::ds::DsOp;
use ds_reference::wave::WaveSize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why shards cannot be merged; every message names the file (and shard) at fault.
#[derive(Debug, PartialEq, Eq)]
pub struct MergeError(pub String);

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MergeError {}

fn err(msg: impl Into<String>) -> MergeError {
    MergeError(msg.into())
}

/// Reads one shard's JSON results: results of format [`FORMAT`] whose counts add up
/// ([`check_counts`]).
pub fn read_results(path: &Path) -> Result<Report, MergeError> {
    let text = crate::input::read_text(path, crate::input::MAX_RESULTS_BYTES)
        .map_err(|e| err(format!("cannot read {}: {e}", path.display())))?;
    let r: Report = serde_json::from_str(&text).map_err(|e| {
        err(format!(
            "{}:{}:{}: not ds-harness results (docs/run-results.md): {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    if r.format != FORMAT {
        return Err(err(format!(
            "{}: results format {} is not supported; this ds-harness reads format {FORMAT} \
             (docs/run-results.md)",
            path.display(),
            r.format
        )));
    }
    check_counts(&r).map_err(|why| {
        err(format!(
            "{}: {why}: the file was edited or is not what `ds-harness run --json` wrote",
            path.display()
        ))
    })?;
    Ok(r)
}

/// The arithmetic of a results file, row by row (docs/run-results.md): every op's counts add up
/// to its cases, its fidelity classes add up to its cases and match the counts they belong in
/// ([`fidelity::count_of`]), its variants' cases add up to its cases, its listed and unlisted
/// mismatches to its disagreeing and undecided cases, no count of an open question exceeds its
/// whole; and the totals are the sums of the rows.
/// Every sum is checked: a count past `usize::MAX` is an error, never a wrapped number.
pub fn check_counts(r: &Report) -> Result<(), String> {
    let sum = |xs: &[usize]| xs.iter().try_fold(0usize, |a, &x| a.checked_add(x));
    let overflow = |what: &str| format!("{what}: the counts overflow");
    let mut totals = [0usize; 7];
    let mut fidelity = fidelity::Counts::new();
    for o in &r.ops {
        let row = format!("op {} ({})", o.op, o.wave);
        let parts = [
            o.agree,
            o.disagree,
            o.skipped,
            o.errors,
            o.unsupported,
            o.undecided,
        ];
        let counted = sum(&parts).ok_or_else(|| overflow(&row))?;
        if counted != o.cases {
            return Err(format!(
                "{row}: agree {} + disagree {} + skipped {} + errors {} + unsupported {} + \
                 undecided {} = {counted}, not its {} cases",
                o.agree, o.disagree, o.skipped, o.errors, o.unsupported, o.undecided, o.cases
            ));
        }
        for (q, c) in &o.questions {
            if let Some(why) = c.inconsistency(o.cases) {
                return Err(format!("{row}: question {q}: {why}"));
            }
        }
        let classes = fidelity::checked_total(&o.fidelity).ok_or_else(|| overflow(&row))?;
        if classes != o.cases {
            return Err(format!(
                "{row}: its fidelity classes add up to {classes}, not its {} cases",
                o.cases
            ));
        }
        for (name, want) in [
            ("agree", o.agree),
            ("disagree", o.disagree),
            ("skipped", o.skipped),
            ("errors", o.errors),
            ("unsupported", o.unsupported),
            ("undecided", o.undecided),
        ] {
            let got: usize = o
                .fidelity
                .iter()
                .filter(|(c, _)| fidelity::count_of(**c) == name)
                .map(|(_, n)| *n)
                .sum();
            if got != want {
                return Err(format!(
                    "{row}: {name} is {want} but its fidelity classes counted there add up to \
                     {got}"
                ));
            }
        }
        let variant_cases = sum(&o.variants.iter().map(|v| v.cases).collect::<Vec<_>>())
            .ok_or_else(|| overflow(&row))?;
        if variant_cases != o.cases {
            return Err(format!(
                "{row}: its variants' cases add up to {variant_cases}, not its {} cases",
                o.cases
            ));
        }
        check_variants(o, &row)?;
        let listed = sum(&[o.mismatches.len(), o.unlisted_mismatches]);
        if listed != o.disagree.checked_add(o.undecided) {
            return Err(format!(
                "{row}: {} listed and {} unlisted mismatches, but {} disagreeing and {} \
                 undecided cases",
                o.mismatches.len(),
                o.unlisted_mismatches,
                o.disagree,
                o.undecided
            ));
        }
        for (t, x) in totals.iter_mut().zip([o.cases].iter().chain(&parts)) {
            *t = t.checked_add(*x).ok_or_else(|| overflow("the totals"))?;
        }
        for (c, n) in &o.fidelity {
            let f = fidelity.entry(*c).or_default();
            *f = f
                .checked_add(*n)
                .ok_or_else(|| overflow("the fidelity totals"))?;
        }
    }
    let t = r.totals;
    let want = [
        t.cases,
        t.agree,
        t.disagree,
        t.skipped,
        t.errors,
        t.unsupported,
        t.undecided,
    ];
    if totals != want {
        return Err(format!(
            "the totals (cases, agree, disagree, skipped, errors, unsupported, undecided) are \
             {want:?}, the rows add up to {totals:?}"
        ));
    }
    if let Some(c) = t.compared.filter(|&c| c != t.cases_compared()) {
        return Err(format!(
            "totals.compared is {c}, but agree {} + disagree {} + undecided {} = {}",
            t.agree,
            t.disagree,
            t.undecided,
            t.cases_compared()
        ));
    }
    fidelity.retain(|_, n| *n > 0);
    let mut stated = r.fidelity.clone();
    stated.retain(|_, n| *n > 0);
    if fidelity != stated {
        return Err(format!(
            "the run's fidelity totals are {}, the rows add up to {}",
            fidelity::describe(&stated),
            fidelity::describe(&fidelity)
        ));
    }
    Ok(())
}

/// An op's variants, each against itself and together against the op's row: a variant's agree,
/// disagree and skipped cases fit in its cases (the rest are lost, unsupported or undecided, and
/// a variant with no error has none lost or unsupported), its listed mismatches fit in its
/// disagreements, and the variants' agree, disagree and skipped add up to the op's (so a variant
/// edited to disagree, an acc twin above all, cannot hide under an exact op).
fn check_variants(o: &crate::run::report::OpResult, row: &str) -> Result<(), String> {
    let (mut agree, mut disagree, mut skipped, mut unjudged) = (0usize, 0usize, 0usize, 0usize);
    for v in &o.variants {
        let at = format!("{row}, variant {}", v.tag);
        let judged = v
            .agree
            .checked_add(v.disagree)
            .and_then(|n| n.checked_add(v.skipped))
            .filter(|&n| n <= v.cases)
            .ok_or_else(|| {
                format!(
                    "{at}: agree {} + disagree {} + skipped {} is more than its {} cases",
                    v.agree, v.disagree, v.skipped, v.cases
                )
            })?;
        let rest = v.cases - judged;
        if v.error.is_none() && rest > o.undecided {
            return Err(format!(
                "{at}: {rest} of its {} cases are neither agree, disagree nor skipped, yet it has \
                 no error and the op {} undecided cases",
                v.cases, o.undecided
            ));
        }
        let listed = o
            .mismatches
            .iter()
            .filter(|m| m.variant == v.tag && !m.undecided)
            .count();
        if listed > v.disagree {
            return Err(format!(
                "{at}: {listed} mismatches listed, but it has {} disagreeing cases",
                v.disagree
            ));
        }
        agree += v.agree;
        disagree += v.disagree;
        skipped += v.skipped;
        unjudged += rest;
    }
    if let Some(m) = o
        .mismatches
        .iter()
        .find(|m| !o.variants.iter().any(|v| v.tag == m.variant))
    {
        return Err(format!(
            "{row}: mismatch {} names variant {}, which the op does not have",
            m.id, m.variant
        ));
    }
    let (want, got) = ([o.agree, o.disagree, o.skipped], [agree, disagree, skipped]);
    if want != got {
        return Err(format!(
            "{row}: agree, disagree and skipped are {want:?}, but its variants' add up to {got:?}"
        ));
    }
    let others = o.errors + o.unsupported + o.undecided;
    if unjudged != others {
        return Err(format!(
            "{row}: its variants leave {unjudged} cases unjudged, but errors {} + unsupported {} + \
             undecided {} = {others}",
            o.errors, o.unsupported, o.undecided
        ));
    }
    Ok(())
}

/// The fields that make shards one run, in words, for a mismatch message.
fn run_identity(m: &RunMeta) -> Vec<(&'static str, String)> {
    vec![
        ("seed", format!("{:#x}", m.seed)),
        ("cases per op", m.cases_per_op.to_string()),
        (
            "wave sizes",
            m.waves
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join(" and "),
        ),
        ("harness revision", m.harness.clone()),
        ("backend", m.backend.clone()),
        ("target", m.target.clone()),
        (
            "--op selection",
            if m.selection.is_empty() {
                "every op".into()
            } else {
                m.selection.join(" ")
            },
        ),
        (
            "time budget",
            m.duration_seconds
                .map_or("none".into(), |d| format!("{d} s")),
        ),
        (
            "chip and override",
            m.overridden
                .as_ref()
                .map_or("none".into(), |o| format!("{} chip, {}", o.chip, o.by)),
        ),
    ]
}

/// Parses `meta.shard` of a shard's results (`file` names it in errors).
fn shard_of(m: &RunMeta, file: &Path) -> Result<Shard, MergeError> {
    let spec = m.shard.as_deref().ok_or_else(|| {
        err(format!(
            "{} is the results of a whole run, not of a shard (--shard K/N): nothing to merge",
            file.display()
        ))
    })?;
    Shard::parse(spec).map_err(|e| err(format!("{}: {e}", file.display())))
}

/// Checks that `shards` (results files and their contents) are the complete set of shards of
/// one run, and returns the shard count. Shared by the results and the recordings merge.
fn check_set<'a>(
    what: &str,
    shards: impl Iterator<Item = (&'a Path, &'a RunMeta, bool)>,
) -> Result<u32, MergeError> {
    let mut first: Option<(&Path, &RunMeta, Shard)> = None;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for (file, meta, complete) in shards {
        let shard = shard_of(meta, file)?;
        if !complete {
            return Err(err(format!(
                "shard {shard} ({}) is not complete: its run was interrupted; run that shard again",
                file.display()
            )));
        }
        if let Some((f0, m0, s0)) = &first {
            if shard.count != s0.count {
                return Err(err(format!(
                    "{} is shard {shard} but {} is shard {s0}: shards of one run have one shard count",
                    file.display(),
                    f0.display()
                )));
            }
            for ((name, a), (_, b)) in run_identity(m0).into_iter().zip(run_identity(meta)) {
                if a != b {
                    return Err(err(format!(
                        "{} ({name} {b}) and {} ({name} {a}) are not shards of one run",
                        file.display(),
                        f0.display()
                    )));
                }
            }
        } else {
            first = Some((file, meta, shard));
        }
        if let Some(other) = seen.insert(shard.index, file) {
            return Err(err(format!(
                "shard {shard} is given twice: {} and {}",
                other.display(),
                file.display()
            )));
        }
    }
    let (_, _, s0) = first.ok_or_else(|| err(format!("no {what} to merge")))?;
    let missing: Vec<String> = (1..=s0.count)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("shard {k}/{}", s0.count))
        .collect();
    if !missing.is_empty() {
        return Err(err(format!(
            "{} missing: the {what} given hold shards {} of {}",
            if missing.len() == 1 {
                format!("{} is", missing[0])
            } else {
                format!("{} are", missing.join(", "))
            },
            seen.keys()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            s0.count
        )));
    }
    Ok(s0.count)
}

/// Merges the results of every shard of one run (`(file, results)` pairs, any order) into the
/// report of the whole run: ops in table order, totals recomputed, `shard` cleared, the longest
/// shard's wall time.
pub fn merge_results(shards: &[(PathBuf, Report)]) -> Result<Report, MergeError> {
    check_set(
        "results",
        shards
            .iter()
            .map(|(f, r)| (f.as_path(), &r.meta, r.complete)),
    )?;
    let meta0 = &shards[0].1.meta;
    // The run's ops are its selection on the target it ran, not on the default target (whose
    // generation may lack the ops selected).
    let target = ds_isa::target::Target::by_name(&meta0.target)
        .map_err(|e| err(format!("{}: meta.target: {e}", shards[0].0.display())))?;
    let want = select_ops_on(target, &meta0.selection).map_err(|e| {
        err(format!(
            "{}: its --op selection no longer selects on {}: {e}",
            shards[0].0.display(),
            target.name
        ))
    })?;
    // Keyed by the op's place in the DS table (every generation's rows, not only gfx11's).
    type Row<'a> = (DsOp, &'a Path, &'a crate::run::report::OpResult);
    let mut ops: BTreeMap<(usize, WaveSize), Row> = BTreeMap::new();
    for (file, r) in shards {
        for o in &r.ops {
            let op = DsOp::from_name(&o.op)
                .ok_or_else(|| err(format!("{}: unknown op {}", file.display(), o.op)))?;
            if let Some((_, other, _)) = ops.insert((op as usize, o.wave), (op, file, o)) {
                return Err(err(format!(
                    "{} ({}) is in two shards: {} and {}",
                    o.op,
                    o.wave,
                    other.display(),
                    file.display()
                )));
            }
        }
    }
    let got: Vec<DsOp> = ops.values().map(|&(op, _, _)| op).collect();
    let lost: Vec<&str> = want
        .iter()
        .filter(|o| !got.contains(o))
        .map(|o| o.name())
        .collect();
    if !lost.is_empty() {
        return Err(err(format!(
            "the shards together lack {} of the run's ops: {}",
            lost.len(),
            lost.join(", ")
        )));
    }
    let mut devices: Vec<String> = shards.iter().map(|(_, r)| r.meta.device.clone()).collect();
    devices.sort();
    devices.dedup();
    let mut reasons: Vec<String> = shards
        .iter()
        .map(|(_, r)| r.meta.backend_reason.clone())
        .collect();
    reasons.sort();
    reasons.dedup();
    let mut merged = Report::new(RunMeta {
        shard: None,
        device: devices.join(", "),
        backend_reason: reasons.join("; "),
        ..meta0.clone()
    });
    merged.totals = Totals::default();
    for (_, _, o) in ops.into_values() {
        merged.push(o.clone());
    }
    // Each shard's sums fit; their sum must too.
    check_counts(&merged).map_err(|why| err(format!("the merged results: {why}")))?;
    merged.complete = true;
    merged.elapsed_seconds = shards
        .iter()
        .map(|(_, r)| r.elapsed_seconds)
        .fold(0.0, f64::max);
    Ok(merged)
}

/// Merges the recording directories of every shard of one run (each `DIR` a shard's `--record
/// DIR`) into `out`: every recording is read back (a corrupt file is an error), no op may come
/// from two shards, and `out/<device dir>/run.json` says the merged run is complete. Returns the
/// recordings written.
pub fn merge_recordings(inputs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, MergeError> {
    // (device dir, run.json path, status) of every input.
    let mut statuses: Vec<(String, PathBuf, RunStatus)> = Vec::new();
    for dir in inputs {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| err(format!("cannot read recordings {}: {e}", dir.display())))?;
        let mut found = false;
        for e in entries.flatten() {
            let status_path = e.path().join(RUN_STATUS);
            if !status_path.is_file() {
                continue;
            }
            let text = crate::input::read_text(&status_path, crate::input::MAX_RECORDING_BYTES)
                .map_err(|e| err(format!("cannot read {}: {e}", status_path.display())))?;
            let status: RunStatus = serde_json::from_str(&text)
                .map_err(|e| err(format!("{}: not a run status: {e}", status_path.display())))?;
            let name = e.file_name().to_string_lossy().to_string();
            statuses.push((name, status_path, status));
            found = true;
        }
        if !found {
            return Err(err(format!(
                "{} holds no recordings of a run (no <device dir>/{RUN_STATUS})",
                dir.display()
            )));
        }
    }
    check_set(
        "recordings",
        statuses
            .iter()
            .map(|(_, p, s)| (p.as_path(), &s.meta, s.complete)),
    )?;
    let mut written = Vec::new();
    let mut from: BTreeMap<(String, String), PathBuf> = BTreeMap::new();
    let mut recorded: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (dev, status_path, status) in &statuses {
        let dir = status_path.parent().expect("a run.json has a directory");
        for op in &status.ops_recorded {
            let src = dir.join(format!("{op}.{EXTENSION}"));
            let rec = record::read(&src).map_err(|e| err(e.to_string()))?;
            if let Some(other) = from.insert((dev.clone(), op.clone()), src.clone()) {
                return Err(err(format!(
                    "{op} is recorded by two shards: {} and {}",
                    other.display(),
                    src.display()
                )));
            }
            let text = std::fs::read(&rec.path)
                .map_err(|e| err(format!("cannot read {}: {e}", rec.path.display())))?;
            let dst = out.join(dev).join(format!("{op}.{EXTENSION}"));
            crate::case::write_atomic(&dst, &text)
                .map_err(|e| err(format!("cannot write {}: {e}", dst.display())))?;
            written.push(dst);
            recorded.entry(dev.clone()).or_default().push(op.clone());
        }
    }
    for (dev, mut ops) in recorded {
        ops.sort_by_key(|o| {
            let name = o.split('.').next().unwrap_or(o);
            (
                DsOp::from_name(name).map_or(usize::MAX, |op| op as usize),
                o.clone(),
            )
        });
        let (_, _, s0) = statuses
            .iter()
            .find(|(d, _, _)| *d == dev)
            .expect("a device dir seen");
        let status = RunStatus {
            format: 1,
            complete: true,
            meta: RunMeta {
                shard: None,
                ..s0.meta.clone()
            },
            ops_recorded: ops,
        };
        let mut text = serde_json::to_string_pretty(&status).expect("a run status serialises");
        text.push('\n');
        let path = out.join(&dev).join(RUN_STATUS);
        crate::case::write_atomic(&path, text.as_bytes())
            .map_err(|e| err(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(written)
}
