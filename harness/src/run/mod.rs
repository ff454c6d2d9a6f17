//! `ds-harness run` as a library: select ops, build one code object for every kernel variant of
//! the run, then stream each op's cases through the device in chunks (see [`stream`]): generate,
//! launch, compute the model's expectation, diff, write every listed mismatching case to disk
//! with its replay command, and report each op as it completes (docs/design-notes.md, "Runs at scale"; docs/run-results.md).

mod bisect;
pub mod diff;
pub mod host;
mod junit;
pub mod legal;
pub mod overridden;
pub mod readings;
pub mod report;
pub mod select;
mod stream;

use crate::corpus;
use crate::fidelity::Class;
use crate::output;
use ds_devices::{Device, DeviceError, ModuleId};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_kernels::launch::Launch;
use ds_kernels::{abi, code_object, generator};
use ds_reference::model::{self, Unmodelled};
use ds_reference::wave::{Case, FpMode, Outcome, Variant, WaveSize};
use report::{OpResult, Report, RunMeta};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
pub use stream::MAX_LISTED_MISMATCHES;
use stream::{DeviceNames, OpState, Pipeline};

/// What computes the expected outcome of an instruction on a target (whose rules it follows): the
/// reference model, or (in tests of the harness) a deliberately broken stand-in.
pub type ExpectFn = fn(&Target, &ds_isa::ds::DsInst, FpMode, &Case) -> Result<Outcome, Unmodelled>;

/// The expectation of `variant` on `case` on `target`: `expect` (what the instruction computes by
/// the target's rules), with the results landed in the registers the variant names when it has
/// `regs` ([`ds_reference::regs::Regs::settle`]; [`model::execute_variant`] for the model itself).
pub fn expectation(
    expect: ExpectFn,
    target: &Target,
    variant: &Variant,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    let mut out = expect(target, &variant.inst(), variant.mode, case)?;
    if let Some(regs) = variant.regs {
        regs.settle(variant.op, variant.acc, case, &mut out);
    }
    Ok(out)
}

/// What judges a device outcome that differs from the expectation on a target: normally the
/// model's legal-outcome check ([`legal::judge`]); a stand-in model brings its own.
pub type JudgeFn = fn(&Target, &Variant, &Case, &Outcome, &Outcome) -> legal::Legality;

/// What says which readings of each open question a device outcome is consistent with
/// (normally [`legal::readings`]; `None` counts only the cases of each question).
pub type ReadingsFn = fn(
    &Target,
    &Variant,
    &Case,
    &Outcome,
    ds_reference::model::legal::Agreement,
) -> Vec<ds_reference::model::legal::Tally>;

/// Cases per launch at most (a launch is one workgroup per case): the default chunk of a run,
/// which bounds its memory (a few KB per case) whatever `--cases` is.
pub const MAX_CASES_PER_LAUNCH: usize = 1024;

/// How often a run rewrites its result files while an op is under way.
const REWRITE_EVERY: Duration = Duration::from_secs(2);

/// Everything a run needs besides the device.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The ops to run, in order.
    pub ops: Vec<DsOp>,
    /// The corpus seed.
    pub seed: u64,
    /// Cases per op (per op and wave size).
    pub cases_per_op: usize,
    /// The wave sizes each op runs in, in order: each op gets `cases_per_op` cases in each, and a
    /// row of the results per wave size.
    pub waves: Vec<WaveSize>,
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
    /// Cases per chunk (per launch) at most: bounds the run's memory; results do not depend
    /// on it.
    pub chunk: usize,
    /// A time budget (`--duration`): the ops are taken in turns, `cases_per_op` cases each per
    /// round, until it runs out (checked between chunks).
    pub duration: Option<Duration>,
    /// The expectation (normally [`model::execute`]).
    pub expect: ExpectFn,
    /// The judge of differing outcomes (normally [`legal::judge`]).
    pub judge: JudgeFn,
    /// The per-reading tally of each case (normally [`legal::readings`]; `None`: the run counts
    /// each open question's cases, not its readings, as a stand-in model must).
    pub readings: Option<ReadingsFn>,
}

impl RunConfig {
    /// A run of `ops` with the default seed and case count, no result files, no progress bar.
    pub fn new(ops: Vec<DsOp>) -> RunConfig {
        RunConfig {
            ops,
            seed: corpus::DEFAULT_SEED,
            cases_per_op: corpus::DEFAULT_CASES_PER_OP,
            waves: vec![WaveSize::Wave32],
            out_dir: PathBuf::from("ds-harness-out"),
            json: None,
            junit: None,
            markdown: None,
            progress: false,
            chunk: MAX_CASES_PER_LAUNCH,
            duration: None,
            expect: model::execute,
            judge: legal::judge,
            readings: Some(legal::readings),
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
    /// The run's sink (a recording) could not take an op.
    Record(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Build(m) => write!(f, "cannot build the kernels: {m}"),
            RunError::Device(e) => e.fmt(f),
            RunError::Io { path, message } => {
                write!(f, "cannot write {}: {message}", path.display())
            }
            RunError::Record(e) => write!(f, "cannot record: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Builds the one code object for `target` holding a kernel for every variant of `ops`' corpus in
/// each wave size of `waves`.
pub fn build_code_object(
    ops: &[DsOp],
    waves: &[WaveSize],
    target: &Target,
) -> Result<Vec<u8>, RunError> {
    let kernels = ops
        .iter()
        .flat_map(|&op| {
            waves
                .iter()
                .flat_map(move |&w| corpus::variants_for(op, w, target))
        })
        .map(|(variant, tag)| {
            generator::generate_for(target, &variant)
                .map_err(|e| RunError::Build(format!("{} ({tag}): {e}", variant.op)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(code_object::write(target, &kernels))
}

/// What a run tells its caller as it goes (the CLI prints each op's row as it completes).
#[derive(Debug)]
pub enum Event<'a> {
    /// The run is about to start its first op; the summary's op column is `width` wide.
    Started { width: usize },
    /// An op completed (its results are the last of `report.ops`).
    OpDone {
        report: &'a Report,
        op: &'a OpResult,
    },
    /// An op's recording was written.
    Recorded { path: &'a Path },
}

/// Runs the whole differential pipeline on `device`.
pub fn run(cfg: &RunConfig, device: &mut dyn Device, meta: RunMeta) -> Result<Report, RunError> {
    run_with(cfg, device, meta, &mut |_| {}, None)
}

/// Where a run also sends each completed op beyond its results files (a recording of the
/// device's results on the snapshot corpus). The caller hands it to the run, so the run knows
/// nothing of what the sink writes.
pub trait Sink {
    /// After `op` in `wave` completed (its row is the last of `report.ops`); may run more work
    /// on `device`. Returns the file it wrote, if any, or why it could not.
    fn op_done(
        &mut self,
        device: &mut dyn Device,
        op: DsOp,
        wave: WaveSize,
        report: &Report,
    ) -> Result<Option<PathBuf>, String>;
    /// After the run's last op (the report is complete, or as far as the run got).
    fn run_done(&mut self, device: &dyn Device, report: &Report) -> Result<(), String>;
}

/// [`run`], telling `on` of each op as it completes (with the progress bar, if any, out of the
/// way).
pub fn run_with(
    cfg: &RunConfig,
    device: &mut dyn Device,
    meta: RunMeta,
    on: &mut dyn FnMut(Event<'_>),
    mut sink: Option<&mut dyn Sink>,
) -> Result<Report, RunError> {
    let start = Instant::now();
    keep_freed_memory();
    let deadline = cfg.duration.map(|d| start + d);
    if cfg.ops.is_empty() {
        // Nothing selected: valid empty reports, and no code object (it would hold no kernel).
        let mut report = Report::new(meta);
        report.complete = true;
        write_results(cfg, &report, true)?;
        // A sink learns the run is done too (`--record` writes its run status: complete, no
        // ops), so an empty shard's recordings merge like the others'.
        if let Some(s) = sink.as_mut() {
            s.run_done(device, &report).map_err(RunError::Record)?;
        }
        return Ok(report);
    }
    let bar = cfg.progress.then(|| progress_bar(cfg));
    let mut report = Report::new(meta);
    write_results(cfg, &report, false)?;
    let code = build_code_object(&cfg.ops, &cfg.waves, device.info().target)?;
    let module = device.load(&code).map_err(RunError::Device)?;
    let names = DeviceNames {
        backend: report.meta.backend.clone(),
        name: device.info().name.clone(),
        target: device.info().target,
        replay_flags: device.info().backend_flags(),
    };
    let width = report::name_width(cfg.ops.iter().map(|o| o.name()));
    with_bar(bar.as_ref(), || on(Event::Started { width }));
    let mut states: Vec<OpState> = Vec::new();
    let mut pipe = Pipeline::default();
    let mut ctx = Progress {
        bar: bar.as_ref(),
        cases: 0,
        disagree: 0,
        start,
        written: Instant::now(),
    };
    match deadline {
        // Op after op, as one stream of chunks: the next op's first chunk is built and launched
        // while the last one's are checked, and each op is finished (its row, its results) once
        // its last chunk is folded, in op order.
        None => {
            let mut ops = Ops::new(cfg, names.target);
            ops.refill(&mut states, 2);
            let mut ahead = (ops.specs.front())
                .map(|&(k, s)| stream::generate(&states[k].plans[s.variant], s, pipe.take_cases()));
            // Chunk after chunk; once all are launched, the ones still pending are checked.
            let mut more = true;
            while more {
                let checked = match ops.specs.pop_front() {
                    Some((k, spec)) => {
                        ops.refill(&mut states, 1);
                        let cases = ahead.take().expect("built ahead");
                        let next = ops.specs.front().copied();
                        let (checked, built) =
                            pipe.push(cfg, &states, device, module, k, spec, cases, next);
                        ahead = built;
                        checked
                    }
                    None => {
                        let checked = pipe.drain(cfg, &states, device, module);
                        more = checked.is_some();
                        checked
                    }
                };
                if let Some(c) = checked {
                    let k = c.state();
                    ctx.fold(cfg, &mut states, ops.finished, c, &names, &mut report)?;
                    ops.folded(k);
                }
                for done in ops.finish(&mut states) {
                    finish_op(
                        cfg,
                        device,
                        &mut report,
                        done,
                        &ctx,
                        on,
                        sink.as_deref_mut(),
                    )?;
                }
                still_there(device)?;
            }
        }
        // Round after round over every op until the time is up; the ops complete together.
        Some(deadline) => {
            states = units(cfg)
                .map(|(op, wave)| OpState::new(op, wave, cfg, names.target))
                .collect();
            'rounds: loop {
                for k in 0..states.len() {
                    for spec in states[k].round(cfg.chunk) {
                        if Instant::now() >= deadline {
                            break 'rounds;
                        }
                        let plan = &states[k].plans[spec.variant];
                        let cases = stream::generate(plan, spec, pipe.take_cases());
                        let (checked, _) =
                            pipe.push(cfg, &states, device, module, k, spec, cases, None);
                        if let Some(c) = checked {
                            ctx.fold(cfg, &mut states, 0, c, &names, &mut report)?;
                        }
                        still_there(device)?;
                    }
                }
            }
            while let Some(c) = pipe.drain(cfg, &states, device, module) {
                ctx.fold(cfg, &mut states, 0, c, &names, &mut report)?;
            }
            for st in std::mem::take(&mut states) {
                finish_op(
                    cfg,
                    device,
                    &mut report,
                    st.res,
                    &ctx,
                    on,
                    sink.as_deref_mut(),
                )?;
            }
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report.complete = true;
    report.elapsed_seconds = start.elapsed().as_secs_f64();
    write_results(cfg, &report, true)?;
    if let Some(sink) = sink {
        sink.run_done(device, &report).map_err(RunError::Record)?;
    }
    Ok(report)
}

/// Stops the run when the device has given up ([`Device::gave_up`]): every later case would be
/// lost, so the run ends there, exit 3, its results files saying it is not complete.
fn still_there(device: &dyn Device) -> Result<(), RunError> {
    match device.gave_up() {
        Some(why) => Err(RunError::Device(DeviceError::Unavailable(why))),
        None => Ok(()),
    }
}

/// The units of a run, each a row of the results: every op in every wave size, op by op.
fn units(cfg: &RunConfig) -> impl Iterator<Item = (DsOp, WaveSize)> + '_ {
    cfg.ops
        .iter()
        .flat_map(|&op| cfg.waves.iter().map(move |&w| (op, w)))
}

/// The ops of a run that goes op after op ([`run_with`] without `--duration`), as a stream of
/// chunks: each op's state is made when the stream needs its first chunk, and finished once its
/// last is folded.
struct Ops<'c> {
    units: Box<dyn Iterator<Item = (DsOp, WaveSize)> + 'c>,
    cfg: &'c RunConfig,
    target: &'static Target,
    /// Chunks of the ops made so far, not yet launched: (op state, chunk).
    specs: std::collections::VecDeque<(usize, stream::ChunkSpec)>,
    /// Each op's chunks not yet folded.
    remaining: Vec<usize>,
    /// Ops finished so far (the first ones: ops finish in order).
    finished: usize,
}

impl<'c> Ops<'c> {
    fn new(cfg: &'c RunConfig, target: &'static Target) -> Ops<'c> {
        Ops {
            units: Box::new(units(cfg)),
            cfg,
            target,
            specs: Default::default(),
            remaining: Vec::new(),
            finished: 0,
        }
    }

    /// Makes op states until `n` chunks wait (or the ops run out).
    fn refill(&mut self, states: &mut Vec<OpState>, n: usize) {
        while self.specs.len() < n {
            let Some((op, wave)) = self.units.next() else {
                return;
            };
            let k = states.len();
            states.push(OpState::new(op, wave, self.cfg, self.target));
            let round = states[k].round(self.cfg.chunk);
            self.remaining.push(round.len());
            self.specs.extend(round.into_iter().map(|s| (k, s)));
        }
    }

    /// A chunk of op state `k` was folded.
    fn folded(&mut self, k: usize) {
        self.remaining[k] -= 1;
    }

    /// The results of the ops whose chunks are all folded, in order, each taken once (its
    /// state keeps nothing but its op).
    fn finish(&mut self, states: &mut [OpState]) -> Vec<OpResult> {
        let mut out = Vec::new();
        while self.finished < states.len() && self.remaining[self.finished] == 0 {
            let st = &mut states[self.finished];
            st.plans = Vec::new();
            out.push(std::mem::take(&mut st.res));
            self.finished += 1;
        }
        out
    }
}

/// Asks the allocator to keep freed memory for reuse. Each chunk allocates its cases, launch
/// buffers and outcomes (a few MB) and frees them when the next takes their place; by default
/// glibc hands such blocks back to the kernel (large blocks are mmapped and unmapped, and the top
/// of the heap is trimmed), so every chunk page-faulted its memory back in: ~150,000 page faults
/// and a fifth of the CPU time of `--cases 2000`. With these thresholds the blocks stay in the
/// heap, and the peak is what a chunk's blocks need, as before. Each thread keeps its own arena
/// (glibc's default): a chunk's cases are built into the spent chunk's cases, and its launch
/// buffers are the spent launch's, so no chunk's blocks are freed by one thread and wanted by
/// another, and the peak stays flat in `--cases` (1.04x from 20,000 to 200,000 cases per op).
/// One arena for every thread, as this set before the cases were reused, made the pool's
/// threads and the device's wait on its lock at every allocation: a quarter of the CPU time of
/// `run --wave 32 --cases 1000`.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only sets allocator parameters; it is called before this run's
            // allocations and any later call of it sees the same values.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
            }
        });
    }
}

/// Adds a completed op to the report, rewrites the result files, tells `on`, and hands the op to
/// the sink, if any.
fn finish_op<'s>(
    cfg: &RunConfig,
    device: &mut dyn Device,
    report: &mut Report,
    done: OpResult,
    ctx: &Progress<'_>,
    on: &mut dyn FnMut(Event<'_>),
    sink: Option<&mut (dyn Sink + 's)>,
) -> Result<(), RunError> {
    let op = DsOp::from_name(&done.op).expect("a run's ops are table ops");
    let wave = done.wave;
    still_there(device)?;
    report.in_progress.clear();
    report.push(done);
    report.device_stderr = device.stderr_log();
    report.elapsed_seconds = ctx.start.elapsed().as_secs_f64();
    // The row first: a results file that lists the op implies its row is on stdout.
    let last = report.ops.last().expect("just pushed");
    with_bar(ctx.bar, || on(Event::OpDone { report, op: last }));
    write_results(cfg, report, false)?;
    if let Some(sink) = sink {
        if let Some(path) = sink
            .op_done(device, op, wave, report)
            .map_err(RunError::Record)?
        {
            with_bar(ctx.bar, || on(Event::Recorded { path: &path }));
        }
    }
    Ok(())
}

/// Runs `f` with the progress bar, if any, out of the way.
fn with_bar<R>(bar: Option<&indicatif::ProgressBar>, f: impl FnOnce() -> R) -> R {
    match bar {
        Some(b) => b.suspend(f),
        None => f(),
    }
}

/// The progress bar: cases done (of how many, or the time budget), the rate, the op under way
/// and the disagreements so far.
fn progress_bar(cfg: &RunConfig) -> indicatif::ProgressBar {
    let (len, template) = match cfg.duration {
        None => (
            (cfg.ops.len() * cfg.waves.len()) as u64 * cfg.cases_per_op as u64,
            "{bar:30} {human_pos}/{human_len} cases  eta {eta}  {msg}",
        ),
        Some(d) => (
            d.as_secs().max(1),
            "{bar:30} {elapsed} of the time budget  {msg}",
        ),
    };
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(indicatif::ProgressStyle::with_template(template).expect("valid template"));
    bar.set_message("building kernels");
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// The run's running counts, for the progress bar and the periodic rewrite of the results.
struct Progress<'a> {
    bar: Option<&'a indicatif::ProgressBar>,
    cases: u64,
    disagree: u64,
    start: Instant,
    written: Instant,
}

impl Progress<'_> {
    /// Folds a checked chunk, moves the bar, and every [`REWRITE_EVERY`] rewrites the result
    /// files with the ops under way (those from `finished` on: the ones before are in the report).
    fn fold(
        &mut self,
        cfg: &RunConfig,
        states: &mut [OpState],
        finished: usize,
        c: stream::Checked,
        names: &DeviceNames,
        report: &mut Report,
    ) -> Result<(), RunError> {
        let (k, n) = (c.state(), c.len() as u64);
        self.disagree += stream::fold(cfg, states, c, names) as u64;
        self.cases += n;
        if let Some(b) = self.bar {
            let secs = self.start.elapsed().as_secs_f64();
            match cfg.duration {
                None => b.inc(n),
                Some(_) => b.set_position(secs as u64),
            }
            b.set_message(format!(
                "{}  {} cases/s  {} disagree{}",
                states[k].op,
                rate(self.cases as f64 / secs.max(1e-3)),
                self.disagree,
                match cfg.duration {
                    Some(_) => format!("  ({} cases)", self.cases),
                    None => String::new(),
                }
            ));
        }
        if self.written.elapsed() >= REWRITE_EVERY {
            report.in_progress = states[finished..].iter().map(|s| s.res.clone()).collect();
            report.elapsed_seconds = self.start.elapsed().as_secs_f64();
            write_results(cfg, report, false)?;
            report.in_progress.clear();
            self.written = Instant::now();
        }
        Ok(())
    }
}

/// A rate with three significant digits at most: `812`, `35.8k`, `1.24M`.
pub fn rate(per_sec: f64) -> String {
    let (v, unit) = match per_sec {
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    match v {
        v if v >= 100.0 || unit.is_empty() => format!("{v:.0}{unit}"),
        v if v >= 10.0 => format!("{v:.1}{unit}"),
        v => format!("{v:.2}{unit}"),
    }
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

/// One launch: pack (into the buffers of `reuse`, a spent launch, if given) and run; the
/// outcomes are read back from the buffers it returns.
fn launch_cases(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
    reuse: Option<Launch>,
) -> Result<Launch, LaunchError> {
    let mut l = match reuse {
        Some(mut l) => abi::pack_into(variant, cases, &mut l).map(|_| l),
        None => abi::pack(variant, cases),
    }
    .map_err(|e| (Class::DeviceError, e.to_string()))?;
    device
        .launch(module, &mut l)
        .map_err(|e| (Class::of_error(&e), e.to_string()))?;
    Ok(l)
}

/// [`launch_cases`], handed to the device with [`Device::submit`]: `None` when the device keeps
/// it under way ([`completed`] gives it back).
fn submit_cases(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
    reuse: Option<Launch>,
) -> Option<Result<Launch, LaunchError>> {
    let packed = match reuse {
        Some(mut l) => abi::pack_into(variant, cases, &mut l).map(|_| l),
        None => abi::pack(variant, cases),
    };
    let l = match packed {
        Ok(l) => l,
        Err(e) => return Some(Err((Class::DeviceError, e.to_string()))),
    };
    device.submit(module, l).map(outcome)
}

/// The oldest launch the device kept under way ([`submit_cases`]), once it has run.
fn completed(device: &mut dyn Device) -> Result<Launch, LaunchError> {
    match device.complete() {
        Some(done) => outcome(done),
        None => Err((
            Class::DeviceError,
            "the device gave back no launch where one was under way".into(),
        )),
    }
}

/// A launch and its outcome as a launch of cases comes to.
fn outcome((l, r): (Launch, Result<(), DeviceError>)) -> Result<Launch, LaunchError> {
    r.map(|()| l)
        .map_err(|e| (Class::of_error(&e), e.to_string()))
}

/// One launch: pack, run, unpack.
fn launch(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
) -> Result<Vec<Outcome>, LaunchError> {
    let l = launch_cases(device, module, variant, cases, None)?;
    abi::unpack(variant, cases, &l).map_err(|e| (Class::DeviceError, e.to_string()))
}

/// A failed launch: the fidelity class of its cases, and the error in words.
pub(crate) type LaunchError = (Class, String);

/// Runs one case on `device` (loading a code object with just its kernel) and returns what the
/// device left.
pub fn run_one(
    device: &mut dyn Device,
    variant: &Variant,
    case: &Case,
) -> Result<Outcome, RunError> {
    let kernel = generator::generate_for(device.info().target, variant)
        .map_err(|e| RunError::Build(e.to_string()))?;
    let code = code_object::write(device.info().target, &[kernel]);
    let module = device.load(&code).map_err(RunError::Device)?;
    let out = launch(device, module, variant, std::slice::from_ref(case))
        .map_err(|(_, e)| RunError::Device(DeviceError::Launch(e)))?;
    Ok(out.into_iter().next().expect("one case, one outcome"))
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_have_three_significant_digits_at_most() {
        assert_eq!(rate(7.4), "7");
        assert_eq!(rate(812.49), "812");
        assert_eq!(rate(1_234.0), "1.23k");
        assert_eq!(rate(35_844.2), "35.8k");
        assert_eq!(rate(123_456.0), "123k");
        assert_eq!(rate(1_240_000.0), "1.24M");
    }
}
