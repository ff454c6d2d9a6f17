//! `ds-harness run`: the differential run (DESIGN.md sections 7 and 9). Validates the selection
//! first (exit 2), opens the backend and says which and why (exit 3 when unavailable), runs,
//! printing each op's row of the summary table as the op completes, then the totals and the
//! mismatching cases with their replay commands (exit 1), else exit 0.

use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::corpus::{DEFAULT_CASES_PER_OP, DEFAULT_SEED};
use crate::output::{check_distinct, Dash, OutputDir, OutputError, OutputPath};
use crate::run::report::{self, RunMeta};
use crate::run::select::{select_ops_in, Shard};
use crate::run::{self, RunConfig, RunError};
use ds_devices as device;
use ds_reference::target::Target;
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
    /// Ops to run: exact mnemonics (gfx11 or legacy) or globs like `ds_add*`; repeatable.
    /// Default: every op a compute kernel can run.
    #[arg(long = "op", value_name = "PATTERN")]
    pub ops: Vec<String>,
    /// Corpus seed (decimal or 0x hex): the same seed gives the same cases on every machine.
    #[arg(long, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Cases per op and wave size (with --duration: per op per round).
    #[arg(long, default_value_t = DEFAULT_CASES_PER_OP as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub cases: u32,
    /// The wave size to run in, 32 or 64. Default: every wave size the target's kernels are
    /// built in (wave32 and wave64 on gfx11 targets), each op getting --cases cases in each and
    /// a row per wave size in the summary and the reports.
    #[arg(long, value_name = "32|64", value_parser = super::parse_wave)]
    pub wave: Option<WaveSize>,
    /// Host threads for corpus, model, diff and the emulated device (default: every core).
    /// Results are the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
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

/// Parses a time budget: a number with a unit (`s`, `m`, `h`, `d`), or several (`1h30m`); a
/// bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
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

pub fn run(args: &RunArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    if let Err(e) = super::check_exec_flags(args.backend, &args.exec) {
        return usage(e);
    }
    if let Some(dir) = &args.against {
        return super::against::run(args, dir, out);
    }
    // The ops are those of the target's generation: --target's, else the default target's (checked
    // again against the device's own target once it is open).
    let gen = args
        .target
        .unwrap_or(ds_reference::target::DEFAULT)
        .generation;
    let ops = match select_ops_in(gen, &args.ops) {
        Ok(ops) => ops,
        Err(e) => return usage(e),
    };
    let (ops, shard) = match &args.shard {
        None => (ops, None),
        Some(spec) => match Shard::parse(spec) {
            Ok(s) => (s.take(&ops), Some(s)),
            Err(e) => return usage(e),
        },
    };
    if let Err(e) = check_outputs(args) {
        return usage(e);
    }
    if let Some(jobs) = args.jobs {
        // One pool for the whole process: corpus, model, diff and the emulated device share it.
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs as usize)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start {jobs} threads for --jobs: {e}"))?;
    }
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
    // A GPU of another generation than the one the ops were chosen for: choose them again.
    let (ops, gen) = if info.target.generation == gen {
        (ops, gen)
    } else {
        let gen = info.target.generation;
        match select_ops_in(gen, &args.ops) {
            Ok(all) => (shard.map_or(all.clone(), |s| s.take(&all)), gen),
            Err(e) => return usage(e),
        }
    };
    eprintln!("backend: {} ({})", info.backend, opened.reason);
    eprintln!("target: {} ({})", info.target, info.name);
    let waves = match args.wave {
        None => ds_kernels::wave_sizes(info.target),
        Some(w) => match ds_kernels::check_wave(info.target, w) {
            Ok(()) => vec![w],
            Err(e) => return usage(format!("--wave {}: {e}", w.lanes())),
        },
    };
    eprintln!(
        "waves: {} ({} cases per op in each)",
        waves
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(" and "),
        args.cases
    );
    if ops.is_empty() {
        eprintln!(
            "shard {} has no ops ({} selected in all): nothing to run; the reports are written \
             empty and the run succeeds",
            shard.map(|s| s.to_string()).unwrap_or_default(),
            select_ops_in(gen, &args.ops).map_or(0, |o| o.len())
        );
    }
    let cfg = RunConfig {
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
        record: args.record.clone(),
        expect: ds_reference::model::execute,
        judge: crate::run::legal::judge,
    };
    let meta = RunMeta {
        backend: info.backend.to_string(),
        backend_reason: opened.reason.clone(),
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
    };
    let mut width = 5;
    let mut recorded = 0;
    let report =
        match run::run_with(&cfg, device.as_mut(), meta, &mut |event| match event {
            run::Event::Started { width: w } => {
                width = w;
                print_now(out, &report::summary_header(w));
            }
            run::Event::OpDone { op, .. } => print_now(out, &report::summary_row(op, width)),
            run::Event::Recorded { .. } => recorded += 1,
        }) {
            Ok(r) => r,
            Err(RunError::Device(e)) => {
                eprintln!("error: {e}");
                return Ok(super::device_exit(&e));
            }
            // The directory was checked before the run; what can still fail (a full disk, a file in
            // the way) stops the run, and says where what it found so far is.
            Err(RunError::Record(e)) => {
                eprintln!(
                "error: --record {}: {e}\n(the run stopped there; the ops finished before it are \
                 in the results files and the summary above)",
                args.record.as_deref().unwrap_or(std::path::Path::new("")).display()
            );
                return Ok(ExitCode::from(EXIT_USAGE));
            }
            Err(e) => return Err(e.into()),
        };
    write!(out, "{}", report.summary_total(width))?;
    if let Some(dir) = &args.record {
        let at = dir.join(crate::record::dir_name(&info));
        if cfg.waves.len() > 1 {
            writeln!(
                out,
                "recorded {recorded} recordings ({} ops in {}) under {}",
                report.totals.ops,
                cfg.waves
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
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
    )?;
    let mismatches: Vec<_> = report.ops.iter().flat_map(|o| &o.mismatches).collect();
    for m in mismatches.iter().take(LISTED_MISMATCHES) {
        writeln!(out, "\nMISMATCH {}", m.id)?;
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
    for text in
        crate::shrink::shrink_mismatches(device.as_mut(), &report, &args.out, cfg.expect, cfg.judge)
    {
        write!(out, "\n{text}")?;
    }
    if mismatches.len() > LISTED_MISMATCHES {
        writeln!(
            out,
            "\n... and {} more mismatching cases, all under {}",
            mismatches.len() - LISTED_MISMATCHES,
            args.out.display()
        )?;
    }
    Ok(ExitCode::from(if report.all_agree() {
        EXIT_OK
    } else {
        EXIT_DISAGREE
    }))
}

/// Checks every output path before anything runs (crate::output): each can be written, none
/// replaces what it points at, no two name one file.
fn check_outputs(args: &RunArgs) -> Result<(), OutputError> {
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
    check_distinct(&files.iter().map(|(f, p)| (*f, p)).collect::<Vec<_>>())?;
    OutputDir::check("--out", &args.out)?;
    if let Some(r) = &args.record {
        OutputDir::check("--record", r)?;
    }
    Ok(())
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
