//! `ds-harness run`: the differential run (DESIGN.md section 7). Validates the selection first
//! (exit 2), opens the backend and says which and why (exit 3 when unavailable), runs, prints the
//! summary table and the mismatching cases with their replay commands (exit 1), else exit 0.

use super::{EXIT_BACKEND, EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::corpus::{DEFAULT_CASES_PER_OP, DEFAULT_SEED};
use crate::device::{self, BackendChoice};
use crate::output::{check_distinct, Dash, OutputDir, OutputError, OutputPath};
use crate::run::report::RunMeta;
use crate::run::select::{select_ops, Shard};
use crate::run::{self, RunConfig, RunError};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Mismatching cases listed on the terminal (every one is in the output dir and the reports).
const LISTED_MISMATCHES: usize = 10;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Which device runs the kernels: auto takes hip when a supported GPU is found, else emu.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// HIP device N (HIP's numbering, after HIP_VISIBLE_DEVICES); default: the first gfx1100.
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// Ops to run: exact mnemonics (gfx11 or legacy) or globs like `ds_add*`; repeatable.
    /// Default: every op a compute kernel can run.
    #[arg(long = "op", value_name = "PATTERN")]
    pub ops: Vec<String>,
    /// Corpus seed (decimal or 0x hex): the same seed gives the same cases on every machine.
    #[arg(long, value_parser = parse_u64, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Cases per op.
    #[arg(long, default_value_t = DEFAULT_CASES_PER_OP as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub cases: u32,
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
    /// provenance, under DIR/<arch>/ (hip) or DIR/emulated-<arch>/ (emu).
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

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let ops = match select_ops(&args.ops) {
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
    let opened = match device::open_with(args.backend, args.device) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_BACKEND));
        }
    };
    let mut device = opened.device;
    let info = device.info().clone();
    eprintln!("backend: {} ({})", info.backend, opened.reason);
    if ops.is_empty() {
        eprintln!(
            "shard {} has no ops ({} selected in all): nothing to run",
            shard.map(|s| s.to_string()).unwrap_or_default(),
            select_ops(&args.ops).map_or(0, |o| o.len())
        );
    }
    let cfg = RunConfig {
        ops,
        seed: args.seed,
        cases_per_op: args.cases as usize,
        out_dir: args.out.clone(),
        json: args.json.clone(),
        junit: args.junit.clone(),
        markdown: args.markdown.clone(),
        progress: std::io::stderr().is_terminal(),
        expect: ds_reference::model::execute,
        judge: crate::run::legal::judge,
    };
    let meta = RunMeta {
        backend: info.backend.to_string(),
        backend_reason: opened.reason.clone(),
        device: info.name.clone(),
        arch: info.arch.clone(),
        seed: args.seed,
        cases_per_op: args.cases as usize,
        shard: shard.map(|s| s.to_string()),
    };
    let report = match run::run(&cfg, device.as_mut(), meta) {
        Ok(r) => r,
        Err(RunError::Device(e)) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_BACKEND));
        }
        Err(e) => return Err(e.into()),
    };
    print!("{}", report.summary());
    if let Some(dir) = &args.record {
        let written = crate::record::record_ops(dir, device.as_mut(), &cfg.ops)?;
        println!(
            "recorded {} ops under {}",
            written.len(),
            dir.join(crate::record::dir_name(&info)).display()
        );
    }
    let t = report.totals;
    println!(
        "{} cases in {:.2} s ({:.0} cases/s) on {} (seed {:#x})",
        t.cases,
        report.elapsed_seconds,
        t.cases as f64 / report.elapsed_seconds.max(1e-9),
        info.name,
        args.seed
    );
    let mismatches: Vec<_> = report.ops.iter().flat_map(|o| &o.mismatches).collect();
    for m in mismatches.iter().take(LISTED_MISMATCHES) {
        println!("\nMISMATCH {}", m.id);
        for d in &m.differences {
            println!("  {d}");
        }
        if m.total_differences > m.differences.len() {
            println!(
                "  ... {} more differences",
                m.total_differences - m.differences.len()
            );
        }
        println!("  replay: {}", m.replay);
    }
    for text in
        crate::shrink::shrink_mismatches(device.as_mut(), &report, &args.out, cfg.expect, cfg.judge)
    {
        print!("\n{text}");
    }
    if mismatches.len() > LISTED_MISMATCHES {
        println!(
            "\n... and {} more mismatching cases, all under {}",
            mismatches.len() - LISTED_MISMATCHES,
            args.out.display()
        );
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

fn usage(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(EXIT_USAGE))
}
