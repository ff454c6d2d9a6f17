//! `ds-harness run`: the differential run (docs/run-results.md; docs/design-notes.md, "Runs at scale"). Validates the selection
//! first (exit 2), opens the backend and says which and why (exit 3 when unavailable), launches
//! the canary on a device other than the in-process emulator (exit 3 naming the broken
//! assumptions, before any op: `crate::canary`), runs,
//! printing each op's row of the summary table as the op completes, then the totals and the
//! mismatching cases with their replay commands (exit 1), else exit 0.

use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::corpus::{DEFAULT_CASES_PER_OP, DEFAULT_SEED};
use crate::output::{check_distinct, check_not_inputs, Dash, OutputDir, OutputError, OutputPath};
use crate::run::report::{self, Report, RunMeta};
use crate::run::select::{select_ops_on, Shard};
use crate::run::{self, RunConfig, RunError};
use ds_devices::{self as device, Device, DeviceInfo};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Mismatching cases listed on the terminal (every one is in the output dir and the reports).
const LISTED_MISMATCHES: usize = 10;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Which device runs the kernels: auto takes hip when a supported GPU is found, else emu.
    #[arg(long, value_enum, default_value_t = super::BackendArg::Auto)]
    pub backend: super::BackendArg,
    /// HIP device N (HIP's numbering, after HIP_VISIBLE_DEVICES); default: the first device of
    /// a supported target (of --target, if given).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// The target to run (a row of the target table). Default: the GPU's own target for hip,
    /// the default target for the emulated device. With --backend hip, a GPU of another
    /// target is refused.
    #[arg(long, value_name = "NAME", value_parser = super::parse_kernel_target)]
    pub target: Option<&'static Target>,
    #[command(flatten)]
    pub exec: super::ExecFlags,
    /// Cases the device reports `unsupported` (an emulator's gaps) are counted apart and do not
    /// fail the run (exit 0 if nothing else fails).
    #[arg(long)]
    pub allow_unsupported: bool,
    /// Compare with the recorded outcomes in DIR (one device's recordings, e.g.
    /// snapshots/hardware/<target>) instead of the model: runs the recording's cases.
    #[arg(long, value_name = "DIR")]
    pub against: Option<PathBuf>,
    /// Ops to run: exact mnemonics (the target's own spelling, e.g. `ds_read_b32` on gfx9, or the
    /// name the reports use on every target, `ds_load_b32`) or globs like `ds_add*`; repeatable.
    /// Checked against the device's target (without --target: the target the device names).
    /// Default: every op of the target that ds-harness runs.
    #[arg(long = "op", value_name = "PATTERN")]
    pub ops: Vec<String>,
    /// Corpus seed (decimal or 0x hex): the same seed gives the same cases on every machine.
    #[arg(long, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Cases per op and wave size (with --duration: per op per round); on targets with AccVGPR
    /// DS operands each op with data or vdst runs them once without and once with `acc`.
    #[arg(long, default_value_t = DEFAULT_CASES_PER_OP as u32, value_parser = super::parse_count)]
    pub cases: u32,
    /// The wave size to run in, 32 or 64. Default: every wave size the target's kernels are
    /// built in (wave32 and wave64 on gfx10 and gfx11 targets), each op getting --cases cases in each and
    /// a row per wave size in the summary and the reports.
    #[arg(long, value_name = "32|64", value_parser = super::parse_wave)]
    pub wave: Option<WaveSize>,
    /// Host threads for corpus, model, diff and the emulated device (default: every core).
    /// Results are the same for any number.
    #[arg(long, value_name = "N", value_parser = super::parse_count)]
    pub jobs: Option<u32>,
    /// A time budget, e.g. `90s`, `10m`, `8h`, `1h30m`: take the ops in turns, --cases cases
    /// each per round (new random cases every round), until it runs out.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Run only shard K of N (1-based): the selected ops split deterministically.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Write machine-readable results here (rewritten after every op).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write JUnit XML here (rewritten after every op).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the summary as a markdown table here, e.g. for a CI job summary (rewritten after
    /// every op).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Where mismatching cases are written, one JSON file each.
    #[arg(long, value_name = "DIR", default_value = "ds-harness-out")]
    pub out: PathBuf,
    /// Also record the device's results on the model's snapshot corpus, one file per op with
    /// provenance, under DIR/<target>/ (hip) or DIR/emulated-<target>/ (emu), each op as it
    /// completes; DIR/<...>/run.json says whether the run completed.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
}

/// Parses a u64 in decimal or `0x` hex.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    }
    .map_err(|e| format!("`{s}` is not a number (decimal or 0x hex): {e}"))
}

/// The longest `--duration`: a year (a deadline past it would not fit the clock's range).
pub const MAX_DURATION_SECS: u64 = 366 * 86_400;

/// The most `--jobs` per core of this machine: more threads than that only take turns.
pub const MAX_JOBS_PER_CORE: usize = 4;

/// Parses a time budget: a number with a unit (`s`, `m`, `h`, `d`), or several (`1h30m`); a
/// bare number is seconds. At most [`MAX_DURATION_SECS`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration_any(s)?;
    if d.as_secs() > MAX_DURATION_SECS {
        return Err(format!(
            "`{s}` is longer than the longest time budget, 366d ({MAX_DURATION_SECS} s)"
        ));
    }
    Ok(d)
}

fn parse_duration_any(s: &str) -> Result<Duration, String> {
    let bad = || format!("`{s}` is not a duration: write e.g. 90s, 10m, 8h or 1h30m");
    let t = s.trim();
    if let Ok(secs) = t.parse::<u64>() {
        return (secs > 0)
            .then(|| Duration::from_secs(secs))
            .ok_or_else(bad);
    }
    let mut total = 0u64;
    let mut num = String::new();
    for c in t.chars() {
        match c {
            '0'..='9' => num.push(c),
            's' | 'm' | 'h' | 'd' if !num.is_empty() => {
                let n: u64 = num.parse().map_err(|_| bad())?;
                let unit = match c {
                    's' => 1,
                    'm' => 60,
                    'h' => 3600,
                    _ => 86_400,
                };
                total = n
                    .checked_mul(unit)
                    .and_then(|x| total.checked_add(x))
                    .ok_or_else(bad)?;
                num.clear();
            }
            _ => return Err(bad()),
        }
    }
    if !num.is_empty() || total == 0 {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// `ds-harness run` (without `--against`, which `against::run` takes): plan -> open the device
/// -> stream -> report -> shrink.
pub fn run(args: &RunArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let plan = match Plan::new(args) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    crate::run::keep_freed_memory();
    start_pool(args.jobs)?;
    let opened = match device::open_any(
        args.backend.into(),
        args.device,
        args.target,
        &args.exec.args(),
    ) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(super::device_exit(&e));
        }
    };
    let mut device = opened.device;
    let info = device.info().clone();
    let (ops, waves) = match plan.for_target(args, info.target) {
        Ok(chosen) => chosen,
        Err(e) => return usage(e),
    };
    if let Err(e) = check_record_dir(args, &info) {
        return usage(e);
    }
    announce(args, &plan, &opened.reason, &info, &ops, &waves);
    if let Err(e) = crate::canary::first(device.as_mut(), &waves) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    let cfg = config(args, ops, waves);
    let (report, recorded) = match stream(args, &plan, &cfg, device.as_mut(), &opened.reason, out)?
    {
        Ok(done) => done,
        Err(code) => return Ok(code),
    };
    summarise(out, args, &cfg, &info, &report, recorded)?;
    let listed = list_mismatches(out, &report)?;
    for text in
        crate::shrink::shrink_mismatches(device.as_mut(), &report, &args.out, cfg.expect, cfg.judge)
    {
        write!(out, "\n{text}")?;
    }
    if listed.total > LISTED_MISMATCHES {
        writeln!(
            out,
            "\n... and {} more mismatching cases, all under {}",
            listed.total - LISTED_MISMATCHES,
            args.out.display()
        )?;
    }
    Ok(ExitCode::from(if report.all_agree() {
        EXIT_OK
    } else {
        EXIT_DISAGREE
    }))
}

/// What `run` settles before a device is opened: the shard parses, every
/// output can be written, and the selection is valid for the target asked for (or the default
/// target), so a bad request is exit 2 before any device starts.
struct Plan {
    shard: Option<Shard>,
    /// The target the selection was made for (`None`: left to the device's target), and the
    /// ops it chose.
    target: Option<&'static Target>,
    ops: Vec<DsOp>,
}

impl Plan {
    fn new(args: &RunArgs) -> Result<Plan, String> {
        let target = args.target.unwrap_or(ds_isa::target::DEFAULT);
        let (target, ops) = match select_ops_on(target, &args.ops) {
            Ok(ops) => (Some(target), ops),
            // Without --target a device that names its own target (a GPU, an external device:
            // `ssh mi300 ds-harness serve-device`) decides which ops it has: the selection is
            // checked against it once it says hello, and refused now only if no target has it.
            Err(_) if args.target.is_none() && device_names_target(args) && any_target(args) => {
                (None, Vec::new())
            }
            Err(e) => return Err(e.to_string()),
        };
        let shard = match &args.shard {
            None => None,
            Some(spec) => Some(Shard::parse(spec).map_err(|e| e.to_string())?),
        };
        check_outputs(args).map_err(|e| e.to_string())?;
        check_jobs(args.jobs)?;
        Ok(Plan { shard, target, ops })
    }

    /// The ops (of the target: a device of another target than the one the selection was
    /// checked for gets its own target's ops, and is refused when it has none of them) and the
    /// wave sizes to run.
    fn for_target(
        &self,
        args: &RunArgs,
        target: &'static Target,
    ) -> Result<(Vec<DsOp>, Vec<WaveSize>), String> {
        let all = if self.target.is_some_and(|t| std::ptr::eq(target, t)) {
            self.ops.clone()
        } else {
            select_ops_on(target, &args.ops).map_err(|e| e.to_string())?
        };
        let ops = self.shard.map_or(all.clone(), |s| s.take(&all));
        let waves = match args.wave {
            None => ds_kernels::wave_sizes(target),
            Some(w) => {
                ds_kernels::check_wave(target, w)
                    .map_err(|e| format!("--wave {}: {e}", w.lanes()))?;
                vec![w]
            }
        };
        Ok((ops, waves))
    }

    /// How many ops the selection has in all, before the shard takes its part.
    fn selected(&self, args: &RunArgs, target: &'static Target) -> usize {
        if self.target.is_some_and(|t| std::ptr::eq(target, t)) {
            self.ops.len()
        } else {
            select_ops_on(target, &args.ops).map_or(0, |o| o.len())
        }
    }
}

/// Whether the device `run` opens names its own target (hip or auto, which may find a GPU, and an
/// external device, whose hello does), rather than running the default target (emu).
fn device_names_target(args: &RunArgs) -> bool {
    !matches!(args.backend, super::BackendArg::Emu)
}

/// Whether some target whose kernels are built takes the `--op` selection.
fn any_target(args: &RunArgs) -> bool {
    ds_kernels::kernel_targets().any(|t| select_ops_on(t, &args.ops).is_ok())
}

/// Refuses `--jobs` above [`MAX_JOBS_PER_CORE`] times the cores of this machine.
pub fn check_jobs(jobs: Option<u32>) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = cores * MAX_JOBS_PER_CORE;
    match jobs {
        Some(j) if j as usize > max => Err(format!(
            "--jobs {j}: at most {max} ({MAX_JOBS_PER_CORE} per core, and this machine has \
             {cores}); results are the same for any number"
        )),
        _ => Ok(()),
    }
}

/// One pool for the whole process (`--jobs`): corpus, model, diff and the emulated device share it.
fn start_pool(jobs: Option<u32>) -> anyhow::Result<()> {
    if let Some(jobs) = jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs as usize)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start {jobs} threads for --jobs: {e}"))?;
    }
    Ok(())
}

/// Says on stderr which device runs, why, the target and the wave sizes (every run says so).
fn announce(
    args: &RunArgs,
    plan: &Plan,
    reason: &str,
    info: &DeviceInfo,
    ops: &[DsOp],
    waves: &[WaveSize],
) {
    let shown = crate::run::report::terminal;
    eprintln!("backend: {} ({})", info.backend, shown(reason));
    eprintln!(
        "target: {} ({}){}",
        info.target,
        shown(&info.name),
        hardware_note(info)
    );
    if let Some(o) = crate::run::overridden::Overridden::of(info) {
        eprintln!("override: {}", shown(&o.sentence(info.target.name)));
        eprintln!("chip: {} ({})", shown(&o.chip), shown(&o.chip_source));
    }
    if let Some(support) = info.detail(device::hip::RUNTIME_SUPPORT_DETAIL) {
        eprintln!("runtime: {support}");
    }
    eprintln!(
        "waves: {} ({} cases per op in each)",
        waves_text(waves),
        args.cases
    );
    if ops.is_empty() {
        eprintln!(
            "shard {} has no ops ({} selected in all): nothing to run; the reports are written \
             empty and the run succeeds",
            plan.shard.map(|s| s.to_string()).unwrap_or_default(),
            plan.selected(args, info.target)
        );
    }
}

/// An external device's details (its hello's, with the keys the harness adds) for the results'
/// `meta.device_details`; none for the devices of this process.
pub fn exec_details(info: &DeviceInfo) -> std::collections::BTreeMap<String, String> {
    match info.backend {
        device::Backend::Exec => info.details.iter().cloned().collect(),
        _ => Default::default(),
    }
}

/// `, hardware as reported by the device` for an external device whose hello says it is a GPU:
/// the harness takes an external program's word for it (docs/device-protocol.md, "Trust").
pub fn hardware_note(info: &DeviceInfo) -> &'static str {
    let exec_hw = info.backend == device::Backend::Exec
        && info.detail(device::exec::HARDWARE_DETAIL) == Some("true");
    if exec_hw {
        ", hardware as reported by the device"
    } else {
        ""
    }
}

fn waves_text(waves: &[WaveSize]) -> String {
    waves
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The run's configuration from the flags and what the plan chose.
fn config(args: &RunArgs, ops: Vec<DsOp>, waves: Vec<WaveSize>) -> RunConfig {
    RunConfig {
        ops,
        seed: args.seed,
        cases_per_op: args.cases as usize,
        waves,
        out_dir: args.out.clone(),
        json: args.json.clone(),
        junit: args.junit.clone(),
        markdown: args.markdown.clone(),
        progress: std::io::stderr().is_terminal(),
        chunk: run::MAX_CASES_PER_LAUNCH,
        duration: args.duration,
        expect: ds_reference::model::execute,
        judge: crate::run::legal::judge,
        readings: Some(crate::run::legal::readings),
    }
}

/// What the results files say about the run.
fn meta(
    args: &RunArgs,
    shard: Option<Shard>,
    cfg: &RunConfig,
    info: &DeviceInfo,
    reason: &str,
) -> RunMeta {
    RunMeta {
        backend: info.backend.to_string(),
        backend_reason: reason.to_string(),
        device: info.name.clone(),
        target: info.target.name.to_string(),
        seed: args.seed,
        cases_per_op: args.cases as usize,
        waves: cfg.waves.clone(),
        shard: shard.map(|s| s.to_string()),
        harness: crate::record::harness_revision().to_string(),
        selection: args.ops.clone(),
        duration_seconds: args.duration.map(|d| d.as_secs_f64()),
        device_version: info.detail(device::exec::VERSION_DETAIL).map(String::from),
        against: None,
        allow_unsupported: args.allow_unsupported,
        device_details: exec_details(info),
        overridden: crate::run::overridden::Overridden::of(info),
    }
}

/// Runs the cases, printing each op's row as it completes and recording when asked; returns the
/// report and how many recordings were written, or the exit code of a run that could not go on.
fn stream(
    args: &RunArgs,
    plan: &Plan,
    cfg: &RunConfig,
    device: &mut dyn Device,
    reason: &str,
    out: &mut impl Write,
) -> anyhow::Result<Result<(Report, usize), ExitCode>> {
    let meta = meta(args, plan.shard, cfg, device.info(), reason);
    let mut recorder = args.record.clone().map(crate::record::Recorder::new);
    let sink = recorder.as_mut().map(|r| r as &mut dyn run::Sink);
    let mut width = 5;
    let mut recorded = 0;
    let mut on = |event: run::Event<'_>| match event {
        run::Event::Started { width: w } => {
            width = w;
            print_now(out, &report::summary_header(w));
        }
        run::Event::OpDone { op, .. } => print_now(out, &report::summary_row(op, width)),
        run::Event::Recorded { .. } => recorded += 1,
    };
    let report =
        match run::run_with(cfg, device, meta, &mut on, sink) {
            Ok(r) => r,
            Err(RunError::Device(e)) => {
                eprintln!("error: {e}");
                return Ok(Err(super::device_exit(&e)));
            }
            // The directory was checked before the run; what can still fail (a full disk, a file in
            // the way) stops the run, and says where what it found so far is.
            Err(RunError::Record(e)) => {
                eprintln!(
                "error: --record {}: {e}\n(the run stopped there; the ops finished before it are \
                 in the results files and the summary above)",
                args.record.as_deref().unwrap_or(std::path::Path::new("")).display()
            );
                return Ok(Err(ExitCode::from(EXIT_USAGE)));
            }
            Err(e) => return Err(e.into()),
        };
    write!(out, "{}", report.summary_total(width))?;
    Ok(Ok((report, recorded)))
}

/// The lines after the summary table: what was recorded where, and the run's rate.
fn summarise(
    out: &mut impl Write,
    args: &RunArgs,
    cfg: &RunConfig,
    info: &DeviceInfo,
    report: &Report,
    recorded: usize,
) -> std::io::Result<()> {
    if let Some(dir) = &args.record {
        let at = dir.join(crate::record::dir_name(info));
        if cfg.waves.len() > 1 {
            writeln!(
                out,
                "recorded {recorded} recordings ({} ops in {}) under {}",
                report.totals.ops,
                waves_text(&cfg.waves),
                at.display()
            )?;
        } else {
            writeln!(out, "recorded {recorded} ops under {}", at.display())?;
        }
    }
    let t = report.totals;
    writeln!(
        out,
        "{} cases in {:.2} s ({:.0} cases/s) on {}, target {} (seed {:#x})",
        t.cases,
        report.elapsed_seconds,
        t.cases as f64 / report.elapsed_seconds.max(1e-9),
        info.name,
        info.target,
        args.seed
    )
}

/// How many mismatching cases the run found (the first [`LISTED_MISMATCHES`] are listed).
struct Listed {
    total: usize,
}

/// Lists the first mismatching cases with their differences and replay commands.
fn list_mismatches(out: &mut impl Write, report: &Report) -> std::io::Result<Listed> {
    let mismatches: Vec<_> = report.ops.iter().flat_map(|o| &o.mismatches).collect();
    for m in mismatches.iter().take(LISTED_MISMATCHES) {
        let what = if m.undecided { "UNDECIDED" } else { "MISMATCH" };
        writeln!(out, "\n{what} {}", m.id)?;
        if let Some(note) = m.note.as_ref().filter(|_| m.undecided) {
            writeln!(out, "  {note}")?;
        }
        for d in &m.differences {
            writeln!(out, "  {d}")?;
        }
        if m.total_differences > m.differences.len() {
            writeln!(
                out,
                "  ... {} more differences",
                m.total_differences - m.differences.len()
            )?;
        }
        writeln!(out, "  replay: {}", m.replay)?;
    }
    Ok(Listed {
        total: mismatches.len(),
    })
}

/// Checks every output path before anything runs (crate::output): each can be written, none
/// replaces what it points at, no two name one file.
pub fn check_outputs(args: &RunArgs) -> Result<(), OutputError> {
    const DASH: Dash = Dash::Refused("run prints its summary on stdout; name a file");
    let mut files = Vec::new();
    for (flag, path) in [
        ("--json", &args.json),
        ("--junit", &args.junit),
        ("--markdown", &args.markdown),
    ] {
        if let Some(p) = path {
            files.push((flag, OutputPath::check(flag, p, DASH)?));
        }
    }
    let named: Vec<(&str, &OutputPath)> = files.iter().map(|(f, p)| (*f, p)).collect();
    check_distinct(&named)?;
    // Nor the device's own program or the files its command names.
    let device_files = args.exec.files();
    let device_inputs: Vec<(&str, &std::path::Path)> = device_files
        .iter()
        .map(|p| ("file of --device-cmd", p.as_path()))
        .collect();
    check_not_inputs(&named, &device_inputs, &[])?;
    OutputDir::check("--out", &args.out)?;
    if let Some(r) = &args.record {
        OutputDir::check("--record", r)?;
        // No report inside the recordings.
        check_not_inputs(&named, &[], &[("--record", r.as_path())])?;
    }
    if let Some(dir) = &args.against {
        // No report inside the recording compared with (it would be read as one).
        check_not_inputs(&named, &[], &[("--against", dir.as_path())])?;
    }
    Ok(())
}

/// Checks, once the device is known, that its results can be recorded (not under an override
/// whose chip is unknown: `record::recordable`) and the directory its recordings go to
/// (`--record DIR`'s `<device dir>`): a name of bounded length that can be created or written.
fn check_record_dir(args: &RunArgs, info: &DeviceInfo) -> Result<(), String> {
    if args.record.is_some() {
        crate::record::recordable(info)?;
    }
    match &args.record {
        // A root that does not exist yet is created with the device's directory inside it.
        Some(root) if root.is_dir() => {
            OutputDir::check("--record", &root.join(crate::record::dir_name(info)))
                .map(drop)
                .map_err(|e| e.to_string())
        }
        _ => Ok(()),
    }
}

/// Prints `text` and flushes, so a run killed later still leaves it on stdout. (`out` drops the
/// text quietly once its reader has gone; any other error cannot stop the run here.)
fn print_now(out: &mut impl Write, text: &str) {
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn usage(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(EXIT_USAGE))
}
