//! `run --against DIR`: a device checked against recorded outcomes instead of the model. DIR holds
//! one device's recordings (`snapshots/hardware/<target>/<op>.txt`, see [`crate::record`]); every
//! recorded case is run on the device and its outcome compared, bit for bit, with the recorded
//! one. Where they differ, the model's verdict on both is shown beside them, and a difference
//! that the model accepts on both sides (two legal lane orders) is a legal alternative, not a
//! mismatch. So an emulator is checked against real hardware by someone who has none
//! (docs/design-notes.md, "Devices beyond this process").

use crate::case::{CaseFile, DeviceOutcome};
use crate::fidelity::Class;
use crate::record::{self, Recording};
use crate::run::diff;
use crate::run::legal::{self, Legality};
use crate::run::report::{Mismatch, OpResult, VariantResult, MAX_LISTED_DIFFERENCES};
use ds_devices::hip::{CHIP_DETAIL, OVERRIDE_DETAIL};
use ds_devices::{Device, DeviceError};
use ds_isa::target::Target;
use ds_kernels::{abi, code_object, generator};
use ds_reference::model::snapshot::Entry;
use ds_reference::wave::{Case, Outcome, Variant};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why `--against` cannot run; each message names the path and the fix.
#[derive(Debug)]
pub struct AgainstError(pub String);

impl fmt::Display for AgainstError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AgainstError {}

/// Reads every recording in `dir` (one device's directory of `<op>.txt` files), sorted by op
/// name. A missing or empty directory, or any unreadable file, is an error naming it.
pub fn load(dir: &Path) -> Result<Vec<Recording>, AgainstError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        AgainstError(format!(
            "--against {}: cannot read the directory ({e}); give a recording directory such as \
             snapshots/hardware/<target>",
            dir.display()
        ))
    })?;
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == record::EXTENSION))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(AgainstError(format!(
            "--against {}: no recordings (`<op>.{}` files) in it; give one device's directory, \
             such as snapshots/hardware/<target>, not the directory above it",
            dir.display(),
            record::EXTENSION
        )));
    }
    // Each recording is read and must lie under its target's directory name, so a recording
    // of one target cannot pass for another's (docs/recordings.md).
    paths
        .iter()
        .map(|p| {
            record::read(p)
                .and_then(record::check_dir_provenance)
                .map_err(|e| AgainstError(format!("--against: {e}")))
        })
        .collect()
}

/// What the run compares a device with, for reports: the directory and the recording's device.
pub fn describe(recs: &[Recording], dir: &Path) -> String {
    let p = &recs[0].provenance;
    let overridden = match (p.get(CHIP_DETAIL), p.get(OVERRIDE_DETAIL)) {
        (Some(chip), Some(by)) => format!(": the {chip} chip under {by}"),
        _ => String::new(),
    };
    format!(
        "recording {} ({} on {}{overridden}{})",
        dir.display(),
        p.get("gpu").unwrap_or("unknown device"),
        p.get("arch").unwrap_or("unknown target"),
        match (p.is_hardware(), p.backend()) {
            // Only an external device's own word says it is a GPU (docs/device-protocol.md, "What the harness does when a device misbehaves").
            (true, "exec") => ", hardware as reported by the device",
            (true, _) => ", hardware",
            (false, _) => ", not hardware",
        }
    )
}

/// Runs one recording's cases on `device` and compares them with the recorded outcomes. Case
/// files of the mismatches go under `out/<op>/`.
pub fn run_recording(
    rec: &Recording,
    device: &mut dyn Device,
    out: &Path,
    replay_flags: &str,
) -> OpResult {
    let op = rec.op;
    let mut res = OpResult {
        op: op.name().to_string(),
        wave: rec.wave,
        ..OpResult::default()
    };
    // One launch per distinct variant, in order of first appearance.
    let mut groups: Vec<(Variant, Vec<&Entry>)> = Vec::new();
    for e in &rec.entries {
        match groups.iter_mut().find(|(v, _)| *v == e.variant) {
            Some((_, list)) => list.push(e),
            None => groups.push((e.variant, vec![e])),
        }
    }
    let kernels: Result<Vec<_>, _> = groups
        .iter()
        .map(|(v, _)| generator::generate_for(device.info().target, v).map_err(|e| e.to_string()))
        .collect();
    let module = kernels.map_err(DeviceError::Load).and_then(|k| {
        let target = device.info().target;
        device.load(&code_object::write(target, &k))
    });
    let device_name = device.info().name.clone();
    for (variant, entries) in &groups {
        let tag = generator::kernel_name(variant);
        let mut vr = VariantResult {
            tag: tag.clone(),
            wave: variant.wave,
            inst: generator::test_inst(device.info().target, variant)
                .unwrap_or(variant.inst())
                .text(device.info().target.generation)
                .to_string(),
            lds_size: variant.lds_size,
            mode: variant.mode,
            cases: entries.len(),
            agree: 0,
            disagree: 0,
            skipped: 0,
            error: None,
        };
        res.cases += entries.len();
        let cases: Vec<Case> = entries.iter().map(|e| e.case.clone()).collect();
        let outcomes = match &module {
            Ok(m) => launch(device, *m, variant, &cases),
            Err(e) => Err(DeviceError::Load(e.to_string())),
        };
        let outcomes = match outcomes {
            Ok(o) => o,
            Err(e) => {
                let class = Class::of_error(&e);
                *res.fidelity.entry(class).or_default() += entries.len();
                if class == Class::Unsupported {
                    res.unsupported += entries.len();
                } else {
                    res.errors += entries.len();
                }
                vr.error = Some(e.to_string());
                res.variants.push(vr);
                continue;
            }
        };
        for (e, got) in entries.iter().zip(outcomes) {
            let inst = variant.inst();
            let diffs = diff::diff(inst.info(), e.case.wave.exec, &e.outcome, &got);
            if diffs.is_empty() {
                vr.agree += 1;
                *res.fidelity.entry(Class::Exact).or_default() += 1;
                continue;
            }
            let dev_verdict = model_verdict(rec.target(), variant, &e.case, &got);
            let rec_verdict = model_verdict(rec.target(), variant, &e.case, &e.outcome);
            if let (Some(d), Some(r)) = (dev_verdict.choice(), rec_verdict.choice()) {
                vr.agree += 1;
                *res.fidelity.entry(Class::Legal).or_default() += 1;
                *res.choices
                    .entry(format!("recorded: {r}; device: {d}"))
                    .or_default() += 1;
                continue;
            }
            vr.disagree += 1;
            *res.fidelity.entry(Class::Mismatch).or_default() += 1;
            let id = format!("{}.{}", op.name(), e.name);
            let mut file = CaseFile::new(&id, 0, rec.target(), *variant, e.case.clone());
            file.expected =
                ds_reference::model::execute(rec.target(), &inst, variant.mode, &e.case).ok();
            file.device = Some(DeviceOutcome {
                backend: device.info().backend.to_string(),
                name: device_name.clone(),
                outcome: got,
            });
            let path = out.join(op.name()).join(format!("{}.json", e.name));
            let replay = format!("ds-harness replay {} {replay_flags}", path.display());
            file.replay = Some(replay.clone());
            let written = file.write(&path).is_ok();
            res.mismatches.push(Mismatch {
                id,
                variant: tag.clone(),
                path: written.then(|| path.display().to_string()),
                replay,
                differences: diffs.iter().take(MAX_LISTED_DIFFERENCES).copied().collect(),
                total_differences: diffs.len(),
                note: Some(format!(
                    "differences are recorded (\"model\") vs device; the model says: the \
                     device's outcome {}, the recorded one {}",
                    dev_verdict, rec_verdict
                )),
                undecided: false,
            });
        }
        res.agree += vr.agree;
        res.disagree += vr.disagree;
        res.variants.push(vr);
    }
    res
}

/// The model's verdict on one outcome (by the recording's target's rules).
enum Verdict {
    Exact,
    Legal(String),
    Wrong,
    NotModelled(String),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Exact => f.write_str("is exact"),
            Verdict::Legal(c) => write!(f, "is legal ({c})"),
            Verdict::Wrong => f.write_str("is wrong"),
            Verdict::NotModelled(w) => write!(f, "is not modelled ({w})"),
        }
    }
}

impl Verdict {
    /// The legal choice this outcome makes, if the model accepts it.
    fn choice(&self) -> Option<String> {
        match self {
            Verdict::Exact => Some("the model's outcome".into()),
            Verdict::Legal(c) => Some(c.clone()),
            _ => None,
        }
    }
}

fn model_verdict(target: &Target, variant: &Variant, case: &Case, outcome: &Outcome) -> Verdict {
    let inst = variant.inst();
    let expected = match ds_reference::model::execute(target, &inst, variant.mode, case) {
        Ok(o) => o,
        Err(u) => return Verdict::NotModelled(u.to_string()),
    };
    if diff::diff(inst.info(), case.wave.exec, &expected, outcome).is_empty() {
        return Verdict::Exact;
    }
    match legal::judge(target, variant, case, &expected, outcome) {
        Legality::Legal(c) => Verdict::Legal(c),
        _ => Verdict::Wrong,
    }
}

fn launch(
    device: &mut dyn Device,
    module: ds_devices::ModuleId,
    variant: &Variant,
    cases: &[Case],
) -> Result<Vec<Outcome>, DeviceError> {
    let mut l = abi::pack(variant, cases).map_err(|e| DeviceError::Launch(e.to_string()))?;
    device.launch(module, &mut l)?;
    abi::unpack(variant, cases, &l).map_err(|e| DeviceError::Launch(e.to_string()))
}
