//! Shrinking a mismatching case on the device (docs/design-notes.md, "Runs at scale"): candidates with fewer
//! active lanes, fewer non-zero LDS words and simpler values are built from the current case,
//! run together in one launch, and the smallest one that still disagrees with the model becomes
//! the current case, until no candidate disagrees. The minimal case is written to its own
//! directory (case JSON, kernel listing, code object) with a replay command, and reported with
//! only the lanes and LDS words that differ.
//!
//! Size is the tuple (active lanes, non-zero LDS words, sum of the input values) compared
//! lexicographically; every candidate is strictly smaller than the case it comes from, so the
//! search ends.

use crate::case::{write_atomic, CaseFile, DeviceOutcome};
use crate::run::diff::{diff, Difference};
use crate::run::legal::Legality;
use crate::run::{ExpectFn, JudgeFn, MAX_CASES_PER_LAUNCH};
use ds_devices::{Device, ModuleId};
use ds_isa::target::Target;
use ds_kernels::{abi, code_object, generator};
use ds_reference::wave::{Case, Lane, Outcome, Variant};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Rounds of candidates at most (each accepted step shrinks the case; this only bounds time).
pub const MAX_ROUNDS: usize = 500;

/// The result of shrinking one case.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The original case's id and seed.
    pub id: String,
    /// The corpus seed.
    pub seed: u64,
    /// The target the device runs (the case file names it).
    pub target: &'static Target,
    /// The kernel variant.
    pub variant: Variant,
    /// The minimal case found.
    pub case: Case,
    /// The model's outcome on it.
    pub expected: Outcome,
    /// The device's outcome on it.
    pub device: Outcome,
    /// Every difference between them.
    pub differences: Vec<Difference>,
    /// Accepted reductions.
    pub steps: usize,
    /// Launches made (one per round of candidates, plus the first run of the case).
    pub launches: usize,
    /// Candidate cases run in all.
    pub candidates: usize,
    /// The size of the original case and of the minimal one.
    pub size_before: Size,
    /// The size of the minimal case.
    pub size_after: Size,
}

/// The size of a case: what shrinking makes smaller, most important first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    /// Active lanes.
    pub lanes: u32,
    /// Non-zero LDS dwords.
    pub words: usize,
    /// Sum of every input value (lane registers the op reads, M0, LDS dwords).
    pub magnitude: u128,
}

/// The size of `case` for `variant`'s op.
pub fn size(variant: &Variant, case: &Case) -> Size {
    let ops = variant.op.info().operands;
    let mut magnitude = u128::from(case.wave.m0);
    for l in &case.wave.lanes {
        magnitude += u128::from(l.addr);
        for k in 0..usize::from(ops.data0) {
            magnitude += u128::from(l.data0[k]);
        }
        for k in 0..usize::from(ops.data1) {
            magnitude += u128::from(l.data1[k]);
        }
    }
    let mut words = 0;
    for (_, v) in case.lds.nonzero_words() {
        words += 1;
        magnitude += u128::from(v);
    }
    Size {
        lanes: case.wave.exec.count_ones(),
        words,
        magnitude,
    }
}

/// Smaller values to try in place of `v`, simplest first.
fn simpler(v: u32) -> Vec<u32> {
    if v == 0 {
        return vec![];
    }
    let top = 1u32 << (31 - v.leading_zeros());
    let mut out = vec![0, 1, v >> 1, v & (v - 1), v & !top, v - 1];
    out.retain(|&x| x < v);
    out.dedup();
    out
}

/// Candidates smaller than `case`: drop active lanes (all but one, halves, one at a time), clear
/// inactive lanes' inputs, zero LDS words (all, halves, one at a time), then simpler values of
/// the active lanes' inputs, M0 and the LDS words.
pub fn candidates(variant: &Variant, case: &Case) -> Vec<Case> {
    let ops = variant.op.info().operands;
    let mut out: Vec<Case> = Vec::new();
    let exec = case.wave.exec;
    let active: Vec<usize> = case.wave.active_lanes().collect();
    let with_exec = |e: u64| {
        let mut c = case.clone();
        c.wave.exec = e;
        c
    };
    if active.len() > 1 {
        for &i in &active {
            out.push(with_exec(1 << i));
        }
        let half = active.len() / 2;
        let mask = |ls: &[usize]| ls.iter().fold(0u64, |m, &i| m | 1 << i);
        out.push(with_exec(mask(&active[..half])));
        out.push(with_exec(mask(&active[half..])));
        for &i in &active {
            out.push(with_exec(exec & !(1 << i)));
        }
    }
    // Inactive lanes' inputs back to zero (their vdst sentinels stay).
    let mut cleared = case.clone();
    for i in (0..case.wave.lanes.len()).filter(|&i| !case.wave.active(i)) {
        let l = &mut cleared.wave.lanes[i];
        *l = Lane {
            vdst: l.vdst,
            ..Lane::default()
        };
    }
    if cleared != *case {
        out.push(cleared);
    }
    let words: Vec<u32> = case.lds.nonzero_words().map(|(at, _)| at).collect();
    if !words.is_empty() {
        let zeroed = |ats: &[u32]| {
            let mut c = case.clone();
            for &at in ats {
                c.lds.set_word(at, 0);
            }
            c
        };
        out.push(zeroed(&words));
        if words.len() > 1 {
            out.push(zeroed(&words[..words.len() / 2]));
            out.push(zeroed(&words[words.len() / 2..]));
            for &at in &words {
                out.push(zeroed(&[at]));
            }
        }
    }
    // Simpler values, one register word or LDS word at a time.
    for &i in &active {
        let lane = case.wave.lanes[i];
        let mut regs: Vec<(u8, usize, u32)> = vec![(0, 0, lane.addr)];
        regs.extend((0..usize::from(ops.data0)).map(|k| (1, k, lane.data0[k])));
        regs.extend((0..usize::from(ops.data1)).map(|k| (2, k, lane.data1[k])));
        for (field, k, v) in regs {
            for s in simpler(v) {
                let mut c = case.clone();
                let l = &mut c.wave.lanes[i];
                match field {
                    0 => l.addr = s,
                    1 => l.data0[k] = s,
                    _ => l.data1[k] = s,
                }
                out.push(c);
            }
        }
    }
    for s in simpler(case.wave.m0) {
        let mut c = case.clone();
        c.wave.m0 = s;
        out.push(c);
    }
    for &at in &words {
        for s in simpler(case.lds.word(at)).into_iter().skip(1) {
            let mut c = case.clone();
            c.lds.set_word(at, s);
            out.push(c);
        }
    }
    if let Some(regs) = variant.regs {
        // A register holds one value per lane: a simpler value given through one operand is
        // given through every operand that names the register.
        for c in &mut out {
            let exec = c.wave.exec;
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                if exec >> i & 1 == 1 {
                    regs.harmonise(variant.op, variant.acc, l);
                } else {
                    regs.harmonise_to_vdst(variant.op, variant.acc, l);
                }
            }
        }
    }
    let before = size(variant, case);
    out.retain(|c| size(variant, c) < before);
    out
}

/// Why shrinking stopped early.
#[derive(Debug)]
pub enum ShrinkError {
    /// The kernel could not be built or loaded, or a launch failed.
    Device(String),
    /// The case does not disagree on this device in the first place.
    NotFailing,
}

impl std::fmt::Display for ShrinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShrinkError::Device(m) => write!(f, "cannot shrink: {m}"),
            ShrinkError::NotFailing => write!(
                f,
                "cannot shrink: the case agrees with the model on this device now (a flaky device?)"
            ),
        }
    }
}

impl std::error::Error for ShrinkError {}

/// What the oracle says about one device outcome.
struct Judged {
    expected: Outcome,
    differences: Vec<Difference>,
}

/// The differences of a disagreeing outcome on `target`, or None when it agrees (legal outcomes
/// agree).
fn judge(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
    expect: ExpectFn,
    legal: JudgeFn,
) -> Option<Judged> {
    let inst = variant.inst();
    let expected = crate::run::expectation(expect, target, variant, case).ok()?;
    let differences = diff(inst.info(), case.wave.exec, &expected, device);
    if differences.is_empty() {
        return None;
    }
    match legal(target, variant, case, &expected, device) {
        Legality::Legal(_) => None,
        _ => Some(Judged {
            expected,
            differences,
        }),
    }
}

fn run_batch(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
) -> Result<Vec<Outcome>, ShrinkError> {
    let e = |x: String| ShrinkError::Device(x);
    let mut launch = abi::pack(variant, cases).map_err(|x| e(x.to_string()))?;
    device
        .launch(module, &mut launch)
        .map_err(|x| e(x.to_string()))?;
    abi::unpack(variant, cases, &launch).map_err(|x| e(x.to_string()))
}

/// Shrinks `case` (id `id`, corpus `seed`) on `device`.
pub fn shrink(
    device: &mut dyn Device,
    id: &str,
    seed: u64,
    variant: &Variant,
    case: &Case,
    expect: ExpectFn,
    legal: JudgeFn,
) -> Result<Shrunk, ShrinkError> {
    let target = device.info().target;
    let kernel =
        generator::generate_for(target, variant).map_err(|e| ShrinkError::Device(e.to_string()))?;
    let module = device
        .load(&code_object::write(target, &[kernel]))
        .map_err(|e| ShrinkError::Device(e.to_string()))?;
    let first = run_batch(device, module, variant, std::slice::from_ref(case))?.remove(0);
    let mut judged =
        judge(target, variant, case, &first, expect, legal).ok_or(ShrinkError::NotFailing)?;
    let (mut cur, mut cur_dev) = (case.clone(), first);
    let (mut steps, mut launches, mut tried) = (0, 1, 0);
    for _ in 0..MAX_ROUNDS {
        let cands = candidates(variant, &cur);
        if cands.is_empty() {
            break;
        }
        // The candidates of one round, in as few launches as the batch limit allows.
        let mut best: Option<(Size, Case, Outcome, Judged)> = None;
        for chunk in cands.chunks(MAX_CASES_PER_LAUNCH) {
            let outs = run_batch(device, module, variant, chunk)?;
            launches += 1;
            tried += chunk.len();
            for (c, o) in chunk.iter().zip(outs) {
                if let Some(j) = judge(target, variant, c, &o, expect, legal) {
                    let s = size(variant, c);
                    if best.as_ref().is_none_or(|b| s < b.0) {
                        best = Some((s, c.clone(), o, j));
                    }
                }
            }
        }
        match best {
            Some((_, c, o, j)) => {
                (cur, cur_dev, judged) = (c, o, j);
                steps += 1;
            }
            None => break,
        }
    }
    Ok(Shrunk {
        target,
        id: id.to_string(),
        seed,
        variant: *variant,
        size_before: size(variant, case),
        size_after: size(variant, &cur),
        case: cur,
        expected: judged.expected,
        device: cur_dev,
        differences: judged.differences,
        steps,
        launches,
        candidates: tried,
    })
}

impl Shrunk {
    /// Writes the case directory `dir`: `case.json` (with both outcomes and the replay command),
    /// `kernel.s` (the listing) and `kernel.co` (the code object). `backend` names the device's
    /// backend in the case file; `flags` are the replay command's device flags
    /// (`DeviceInfo::backend_flags`: `--backend exec` needs its `--device-cmd`). Returns the replay
    /// command.
    pub fn write_dir(
        &self,
        dir: &Path,
        backend: &str,
        flags: &str,
        device_name: &str,
    ) -> std::io::Result<String> {
        let case_path = dir.join("case.json");
        let replay = format!("ds-harness replay {} {flags}", case_path.display());
        let mut file = CaseFile::new(
            format!("{}.min", self.id),
            self.seed,
            self.target,
            self.variant,
            self.case.clone(),
        );
        file.expected = Some(self.expected.clone());
        file.device = Some(DeviceOutcome {
            backend: backend.to_string(),
            name: device_name.to_string(),
            outcome: self.device.clone(),
        });
        file.replay = Some(replay.clone());
        file.write(&case_path)?;
        let kernel = generator::generate_for(self.target, &self.variant)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        write_atomic(&dir.join("kernel.s"), kernel.annotated().as_bytes())?;
        write_atomic(
            &dir.join("kernel.co"),
            &code_object::write(self.target, &[kernel]),
        )?;
        Ok(replay)
    }

    /// The report: op, case id, seed, instruction bytes and text, the sizes, only the lanes and
    /// LDS words that differ (model vs device, with the lane's inputs), and the replay command.
    pub fn report(&self, replay: &str) -> String {
        let mut s = String::new();
        let (target, gen) = (self.target, self.target.generation);
        // The target's own instruction set: its DS features decide which ops and registers it
        // has (a src2 op encodes for the targets with the src2 feature, not for every gfx9 target).
        let inst =
            generator::test_inst(target, &self.variant).unwrap_or_else(|_| self.variant.inst());
        let bytes = inst
            .to_bytes(target)
            .map(|b| {
                b.iter()
                    .map(|x| format!("{x:02x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|e| format!("(does not encode: {e})"));
        let (a, b) = (self.size_before, self.size_after);
        let _ = writeln!(
            s,
            "SHRUNK {} ({}), seed {:#x}",
            self.id, self.variant.op, self.seed
        );
        let _ = writeln!(s, "  instruction: {}   [{bytes}]", inst.text(gen));
        let _ = writeln!(
            s,
            "  minimal case: exec {:#010x}, m0 {:#010x}, {} active lanes (was {}), {} non-zero LDS words (was {}); {} steps, {} candidates in {} launches",
            self.case.wave.exec, self.case.wave.m0, b.lanes, a.lanes, b.words, a.words, self.steps, self.candidates, self.launches
        );
        let words = self
            .case
            .lds
            .nonzero_words()
            .map(|(at, v)| format!("[{at:#06x}]={v:08x}"))
            .collect::<Vec<_>>();
        if !words.is_empty() {
            let _ = writeln!(s, "  lds in: {}", words.join(" "));
        }
        // Every active lane's inputs (the minimal case has few), and any other lane a
        // difference names.
        let lanes: Vec<usize> = {
            let mut l: Vec<usize> = self.case.wave.active_lanes().collect();
            l.extend(self.differences.iter().filter_map(|d| match *d {
                Difference::Vdst { lane, .. } | Difference::Addr { lane, .. } => Some(lane),
                _ => None,
            }));
            l.sort_unstable();
            l.dedup();
            l
        };
        let ops = self.variant.op.info().operands;
        let hex = |w: &[u32]| {
            w.iter()
                .map(|x| format!("{x:08x}"))
                .collect::<Vec<_>>()
                .join(":")
        };
        for lane in lanes {
            let l = &self.case.wave.lanes[lane];
            let state = if self.case.wave.active(lane) {
                "active"
            } else {
                "inactive"
            };
            let mut line = format!("  lane {lane} ({state}) in: addr={:#010x}", l.addr);
            if ops.data0 > 0 {
                let _ = write!(line, " data0={}", hex(&l.data0[..usize::from(ops.data0)]));
            }
            if ops.data1 > 0 {
                let _ = write!(line, " data1={}", hex(&l.data1[..usize::from(ops.data1)]));
            }
            let _ = writeln!(s, "{line}");
        }
        for d in &self.differences {
            let _ = writeln!(s, "  {d}");
        }
        let _ = writeln!(s, "  replay: {replay}");
        s
    }
}

/// Mismatching cases a run shrinks at most (the first ones, in table order).
pub const SHRINK_AT_MOST: usize = 3;

/// Shrinks the first [`SHRINK_AT_MOST`] mismatches of `report` (read back from their case files)
/// on `device`, writes each minimal case directory under `out`, and returns the reports.
pub fn shrink_mismatches(
    device: &mut dyn Device,
    report: &crate::run::report::Report,
    out: &Path,
    expect: ExpectFn,
    legal: JudgeFn,
) -> Vec<String> {
    let backend = report.meta.backend.clone();
    let flags = device.info().backend_flags();
    let name = report.meta.device.clone();
    let mut texts = Vec::new();
    let paths = report
        .ops
        .iter()
        .flat_map(|o| &o.mismatches)
        .filter(|m| !m.undecided)
        .filter_map(|m| m.path.as_ref());
    for path in paths.take(SHRINK_AT_MOST) {
        let text = match CaseFile::read(Path::new(path)) {
            Err(e) => format!("cannot shrink {path}: {e}\n"),
            Ok(f) => match shrink(device, &f.id, f.seed, &f.variant, &f.case, expect, legal) {
                Err(e) => format!("{}: {e}\n", f.id),
                Ok(sh) => match sh.write_dir(&case_dir(out, &sh), &backend, &flags, &name) {
                    Ok(replay) => sh.report(&replay),
                    Err(e) => format!("{}: cannot write the shrunk case: {e}\n", f.id),
                },
            },
        };
        texts.push(text);
    }
    texts
}

/// The directory of a shrunk case: beside the run's case files, `<out>/<op>/<id>.min/`.
pub fn case_dir(out: &Path, shrunk: &Shrunk) -> PathBuf {
    out.join(shrunk.variant.op.name())
        .join(format!("{}.min", shrunk.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simpler_values_are_smaller_and_simplest_first() {
        assert_eq!(simpler(0), Vec::<u32>::new());
        assert_eq!(simpler(1), vec![0]);
        assert_eq!(simpler(0x30), vec![0, 1, 0x18, 0x20, 0x10, 0x2f]);
        for v in [2, 7, 0x8000_0000, u32::MAX] {
            assert!(simpler(v).iter().all(|&x| x < v));
        }
    }
}
