//! `ds-harness run` as a library: select ops, build one code object for every kernel variant of
//! the run, launch each variant's cases in batches on a device, compute the model's expectation,
//! diff, write every mismatching case to disk with its replay command, and report
//! (DESIGN.md sections 5 and 7).

pub mod diff;
pub mod legal;
pub mod report;
pub mod select;

use crate::case::{CaseFile, DeviceOutcome};
use crate::corpus::{self, VariantCases};
use crate::device::{Device, DeviceError, ModuleId};
use crate::output;
use ds_kernels::{abi, code_object, generator};
use ds_reference::isa::{DsInst, DsOp};
use ds_reference::model::{self, Unmodelled};
use ds_reference::wave::{Case, FpMode, Outcome, Variant};
use report::{Mismatch, OpResult, Report, RunMeta, VariantResult, MAX_LISTED_DIFFERENCES};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What computes the expected outcome: the reference model, or (in tests of the harness) a
/// deliberately broken stand-in.
pub type ExpectFn = fn(&DsInst, FpMode, &Case) -> Result<Outcome, Unmodelled>;

/// What judges a device outcome that differs from the expectation: normally the model's
/// legal-outcome check ([`legal::judge`]); a stand-in model brings its own.
pub type JudgeFn = fn(&Variant, &Case, &Outcome, &Outcome) -> legal::Legality;

/// Cases per launch at most (a launch is one workgroup per case).
pub const MAX_CASES_PER_LAUNCH: usize = 512;

/// Everything a run needs besides the device.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The ops to run, in order.
    pub ops: Vec<DsOp>,
    /// The corpus seed.
    pub seed: u64,
    /// Cases per op.
    pub cases_per_op: usize,
    /// Where mismatching cases are written (`<out>/<op>/<case id>.json`).
    pub out_dir: PathBuf,
    /// Where to write JSON results (rewritten after every op).
    pub json: Option<PathBuf>,
    /// Where to write JUnit XML (rewritten after every op).
    pub junit: Option<PathBuf>,
    /// Where to write the summary as a GitHub-flavoured markdown table (rewritten after every op).
    pub markdown: Option<PathBuf>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// The expectation (normally [`model::execute`]).
    pub expect: ExpectFn,
    /// The judge of differing outcomes (normally [`legal::judge`]).
    pub judge: JudgeFn,
}

impl RunConfig {
    /// A run of `ops` with the default seed and case count, no result files, no progress bar.
    pub fn new(ops: Vec<DsOp>) -> RunConfig {
        RunConfig {
            ops,
            seed: corpus::DEFAULT_SEED,
            cases_per_op: corpus::DEFAULT_CASES_PER_OP,
            out_dir: PathBuf::from("ds-harness-out"),
            json: None,
            junit: None,
            markdown: None,
            progress: false,
            expect: model::execute,
            judge: legal::judge,
        }
    }
}

/// Why a run could not be carried out at all (disagreements are results, not errors).
#[derive(Debug)]
pub enum RunError {
    /// A kernel or the code object could not be built (a generator bug).
    Build(String),
    /// The device refused the code object or is unavailable.
    Device(DeviceError),
    /// A results file could not be written.
    Io { path: PathBuf, message: String },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Build(m) => write!(f, "cannot build the kernels: {m}"),
            RunError::Device(e) => e.fmt(f),
            RunError::Io { path, message } => {
                write!(f, "cannot write {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for RunError {}

/// Builds the one code object holding a kernel for every variant of `corpus`.
pub fn build_code_object(corpus: &[(DsOp, Vec<VariantCases>)]) -> Result<Vec<u8>, RunError> {
    let kernels = corpus
        .iter()
        .flat_map(|(_, vs)| vs.iter())
        .map(|vc| {
            generator::generate(&vc.variant)
                .map_err(|e| RunError::Build(format!("{} ({}): {e}", vc.variant.op, vc.tag)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(code_object::write(&kernels))
}

/// Runs the whole differential pipeline on `device`.
pub fn run(cfg: &RunConfig, device: &mut dyn Device, meta: RunMeta) -> Result<Report, RunError> {
    let start = Instant::now();
    let corpus: Vec<(DsOp, Vec<VariantCases>)> = cfg
        .ops
        .iter()
        .map(|&op| (op, corpus::for_op(op, cfg.seed, cfg.cases_per_op)))
        .collect();
    let code = build_code_object(&corpus)?;
    let module = device.load(&code).map_err(RunError::Device)?;
    let total: usize = corpus
        .iter()
        .flat_map(|(_, vs)| vs.iter().map(|v| v.cases.len()))
        .sum();
    let bar = cfg.progress.then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} cases  {per_sec}  eta {eta}  {msg}",
            )
            .expect("valid template"),
        );
        bar
    });
    let mut report = Report::new(meta);
    for (op, variants) in &corpus {
        if let Some(b) = &bar {
            b.set_message(op.name());
        }
        let result = run_op(
            cfg,
            device,
            module,
            *op,
            variants,
            &report.meta.backend,
            bar.as_ref(),
        );
        report.push(result);
        report.elapsed_seconds = start.elapsed().as_secs_f64();
        write_results(cfg, &report, false)?;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report.complete = true;
    report.elapsed_seconds = start.elapsed().as_secs_f64();
    write_results(cfg, &report, true)?;
    Ok(report)
}

/// Rewrites the JSON, JUnit and markdown files with what is known so far (`done`: the final
/// content). Regular files are replaced atomically every time; streams (stdout, devices, FIFOs)
/// get only the final content ([`crate::output`]).
fn write_results(cfg: &RunConfig, report: &Report, done: bool) -> Result<(), RunError> {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
        move |e| RunError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
    let write = if done {
        output::write_file
    } else {
        output::write_file_progress
    };
    if let Some(p) = &cfg.json {
        write(p, report.to_json().as_bytes()).map_err(io(p))?;
    }
    if let Some(p) = &cfg.junit {
        write(p, report.to_junit().as_bytes()).map_err(io(p))?;
    }
    if let Some(p) = &cfg.markdown {
        write(p, report.to_markdown().as_bytes()).map_err(io(p))?;
    }
    Ok(())
}

/// Runs every variant of one op.
fn run_op(
    cfg: &RunConfig,
    device: &mut dyn Device,
    module: ModuleId,
    op: DsOp,
    variants: &[VariantCases],
    backend: &str,
    bar: Option<&indicatif::ProgressBar>,
) -> OpResult {
    let mut res = OpResult {
        op: op.name().to_string(),
        ..OpResult::default()
    };
    let device_name = device.info().name.clone();
    for vc in variants {
        let inst = vc.variant.inst();
        let mut vr = VariantResult {
            tag: vc.tag.clone(),
            inst: generator::test_inst(&vc.variant)
                .unwrap_or(inst)
                .to_string(),
            lds_size: vc.variant.lds_size,
            mode: vc.variant.mode,
            cases: vc.cases.len(),
            agree: 0,
            disagree: 0,
            skipped: 0,
            error: None,
        };
        for batch in vc.cases.chunks(MAX_CASES_PER_LAUNCH) {
            let cases: Vec<Case> = batch.iter().map(|c| c.case.clone()).collect();
            let outcomes = match launch(device, module, &vc.variant, &cases) {
                Ok(o) => o,
                Err(e) => {
                    vr.error.get_or_insert(e);
                    res.errors += batch.len();
                    if let Some(b) = bar {
                        b.inc(batch.len() as u64);
                    }
                    continue;
                }
            };
            for (gc, dev) in batch.iter().zip(outcomes) {
                let expected = match (cfg.expect)(&inst, vc.variant.mode, &gc.case) {
                    Ok(o) => o,
                    Err(u) => {
                        vr.skipped += 1;
                        *res.skip_reasons.entry(u.why.to_string()).or_default() += 1;
                        continue;
                    }
                };
                let diffs = diff::diff(inst.info(), gc.case.wave.exec, &expected, &dev);
                let shared = legal::lanes_share_bytes(&vc.variant, &gc.case);
                res.same_address += usize::from(shared);
                if diffs.is_empty() {
                    vr.agree += 1;
                    if shared {
                        *res.choices.entry(legal::ASCENDING.into()).or_default() += 1;
                    }
                    continue;
                }
                let note = match (cfg.judge)(&vc.variant, &gc.case, &expected, &dev) {
                    legal::Legality::Legal(choice) => {
                        vr.agree += 1;
                        *res.choices.entry(choice).or_default() += 1;
                        continue;
                    }
                    legal::Legality::Illegal(_) => None,
                    legal::Legality::Undecided(why) => {
                        Some(format!("legal-outcome search undecided: {why}"))
                    }
                };
                vr.disagree += 1;
                let mut file = CaseFile::new(&gc.id, cfg.seed, vc.variant, gc.case.clone());
                file.expected = Some(expected);
                file.device = Some(DeviceOutcome {
                    backend: backend.to_string(),
                    name: device_name.clone(),
                    outcome: dev,
                });
                let path = cfg.out_dir.join(op.name()).join(format!("{}.json", gc.id));
                let replay = format!("ds-harness replay {} --backend {backend}", path.display());
                file.replay = Some(replay.clone());
                let written = file.write(&path).is_ok();
                res.mismatches.push(Mismatch {
                    id: gc.id.clone(),
                    variant: vc.tag.clone(),
                    path: written.then(|| path.display().to_string()),
                    replay,
                    differences: diffs.iter().take(MAX_LISTED_DIFFERENCES).copied().collect(),
                    total_differences: diffs.len(),
                    note,
                });
            }
            if let Some(b) = bar {
                b.inc(batch.len() as u64);
            }
        }
        res.cases += vr.cases;
        res.agree += vr.agree;
        res.disagree += vr.disagree;
        res.skipped += vr.skipped;
        res.variants.push(vr);
    }
    res
}

/// One launch: pack, run, unpack.
fn launch(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
) -> Result<Vec<Outcome>, String> {
    let mut l = abi::pack(variant, cases).map_err(|e| e.to_string())?;
    device.launch(module, &mut l).map_err(|e| e.to_string())?;
    abi::unpack(variant, cases, &l).map_err(|e| e.to_string())
}

/// Runs one case on `device` (loading a code object with just its kernel) and returns what the
/// device left.
pub fn run_one(
    device: &mut dyn Device,
    variant: &Variant,
    case: &Case,
) -> Result<Outcome, RunError> {
    let kernel = generator::generate(variant).map_err(|e| RunError::Build(e.to_string()))?;
    let code = code_object::write(&[kernel]);
    let module = device.load(&code).map_err(RunError::Device)?;
    let out = launch(device, module, variant, std::slice::from_ref(case))
        .map_err(|e| RunError::Device(DeviceError::Launch(e)))?;
    Ok(out.into_iter().next().expect("one case, one outcome"))
}
