//! `ds-harness run --against DIR`: the recording's corpus on the device, compared with the
//! recorded outcomes instead of the model (see [`crate::against`]). Reads top to bottom like
//! `run`: check the request -> load the recordings it selects -> open the device -> the canary ->
//! run each recording -> summarise -> write the reports.

use super::run::RunArgs;
use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::against;
use crate::fidelity;
use crate::output::{Dash, OutputPath};
use crate::record::Recording;
use crate::run::report::{Report, RunMeta};
use crate::run::select::select_ops_on;
use ds_devices::{self as device, Device, DeviceInfo};
use ds_isa::target::Target;
use std::path::Path;
use std::process::ExitCode;

/// Where a step of the command stopped it: the exit code to return.
type Stop = ExitCode;

pub fn run(args: &RunArgs, dir: &Path, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let outputs = match check_request(args) {
        Ok(o) => o,
        Err(e) => return Ok(usage(e)),
    };
    let recs = match recordings(args, dir) {
        Ok(r) => r,
        Err(e) => return Ok(usage(e)),
    };
    let target = recs[0].target();
    let (mut dev, reason) = match open_device(args, dir, target) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    let info = dev.info().clone();
    let reference = against::describe(&recs, dir);
    eprintln!("against: {reference}");
    let waves = waves_of(&recs);
    if let Err(e) = crate::canary::first(dev.as_mut(), &waves) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    let mut report = Report::new(meta(args, &info, &reason, &reference, waves));
    if let Err(code) = run_recordings(args, &recs, dev.as_mut(), &mut report) {
        return Ok(code);
    }
    summarise(out, &report, &reference)?;
    if let Err(e) = write_reports(&outputs, &report) {
        return Ok(usage(e));
    }
    Ok(ExitCode::from(if report.all_agree() {
        EXIT_OK
    } else {
        EXIT_DISAGREE
    }))
}

fn usage(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(EXIT_USAGE)
}

/// The flags `--against` takes, and its outputs (checked as `run` checks them: writable, none an
/// input, not the device's own files).
fn check_request(args: &RunArgs) -> Result<Vec<(&'static str, OutputPath)>, String> {
    if args.shard.is_some()
        || args.record.is_some()
        || args.junit.is_some()
        || args.duration.is_some()
        || args.seed != crate::corpus::DEFAULT_SEED
        || args.cases as usize != crate::corpus::DEFAULT_CASES_PER_OP
    {
        return Err(
            "--against runs a recording's own corpus: it takes no --shard, --record, --junit, \
             --duration, --seed or --cases (--op and --wave choose among the recordings)"
                .into(),
        );
    }
    super::run::check_outputs(args).map_err(|e| e.to_string())?;
    super::run::check_jobs(args.jobs)?;
    let mut outputs = Vec::new();
    for (flag, p) in [("--json", &args.json), ("--markdown", &args.markdown)] {
        if let Some(p) = p {
            let dash = Dash::Refused("run prints its summary on stdout");
            outputs.push((
                flag,
                OutputPath::check(flag, p, dash).map_err(|e| e.to_string())?,
            ));
        }
    }
    Ok(outputs)
}

/// The recordings of `dir` that `--wave` and `--op` select (the ops by the names the recording's
/// target takes), all of one target, the one `--target` names if given.
fn recordings(args: &RunArgs, dir: &Path) -> Result<Vec<Recording>, String> {
    let mut recs = against::load(dir).map_err(|e| e.to_string())?;
    let target = recs[0].target();
    if let Some(other) = recs.iter().find(|r| r.target() != target) {
        return Err(format!(
            "--against {}: {} is recorded on {}, {} on {target}; give one device's directory",
            dir.display(),
            other.path.display(),
            other.target(),
            recs[0].path.display()
        ));
    }
    if let Some(t) = args.target.filter(|&t| t != target) {
        return Err(format!(
            "--against {}: recorded on {target}, and --target asks for {t}",
            dir.display()
        ));
    }
    if let Some(w) = args.wave {
        recs.retain(|r| r.wave == w);
        if recs.is_empty() {
            return Err(format!(
                "--against {}: --wave {}: no {w} recording there",
                dir.display(),
                w.lanes()
            ));
        }
    }
    if !args.ops.is_empty() {
        let ops = select_ops_on(target, &args.ops).map_err(|e| e.to_string())?;
        recs.retain(|r| ops.contains(&r.op));
        if recs.is_empty() {
            return Err(format!(
                "--against {}: none of the selected ops is recorded there",
                dir.display()
            ));
        }
    }
    Ok(recs)
}

/// Opens the device for the recording's `target` and says which; the device and why it was
/// chosen, or the exit code.
fn open_device(
    args: &RunArgs,
    dir: &Path,
    target: &'static Target,
) -> Result<(Box<dyn Device>, String), Stop> {
    let opened = device::open_any(
        args.backend.into(),
        args.device,
        Some(target),
        &args.exec.args(),
    )
    .map_err(|e| {
        eprintln!("error: {e}");
        super::device_exit(&e)
    })?;
    let info = opened.device.info();
    eprintln!(
        "backend: {} ({}){}",
        info.backend,
        crate::run::report::terminal(&opened.reason),
        super::run::hardware_note(info)
    );
    if info.target != target {
        return Err(usage(format!(
            "--against {}: recorded on {target}, but the device runs {}",
            dir.display(),
            info.target
        )));
    }
    Ok((opened.device, opened.reason))
}

/// The wave sizes of the recordings, each once.
fn waves_of(recs: &[Recording]) -> Vec<ds_reference::wave::WaveSize> {
    let mut waves: Vec<_> = recs.iter().map(|r| r.wave).collect();
    waves.sort();
    waves.dedup();
    waves
}

/// The report's metadata: what ran where, compared with which recording.
fn meta(
    args: &RunArgs,
    info: &DeviceInfo,
    reason: &str,
    reference: &str,
    waves: Vec<ds_reference::wave::WaveSize>,
) -> RunMeta {
    RunMeta {
        backend: info.backend.to_string(),
        backend_reason: reason.to_string(),
        device: info.name.clone(),
        target: info.target.name.to_string(),
        seed: 0,
        cases_per_op: 0,
        waves,
        shard: None,
        harness: crate::record::harness_revision().to_string(),
        selection: args.ops.clone(),
        duration_seconds: None,
        device_version: info.detail(device::exec::VERSION_DETAIL).map(String::from),
        against: Some(reference.to_string()),
        allow_unsupported: args.allow_unsupported,
        device_details: super::run::exec_details(info),
        overridden: crate::run::overridden::Overridden::of(info),
    }
}

/// Runs each recording's cases on the device into `report`; the exit code when the device was
/// given up.
fn run_recordings(
    args: &RunArgs,
    recs: &[Recording],
    dev: &mut dyn Device,
    report: &mut Report,
) -> Result<(), Stop> {
    let replay_flags = dev.info().backend_flags();
    let start = std::time::Instant::now();
    for rec in recs {
        report.push(against::run_recording(rec, dev, &args.out, &replay_flags));
        if let Some(why) = dev.gave_up() {
            eprintln!("error: backend unavailable: {why}");
            return Err(ExitCode::from(super::EXIT_BACKEND));
        }
    }
    report.complete = true;
    report.elapsed_seconds = start.elapsed().as_secs_f64();
    report.device_stderr = dev.stderr_log();
    Ok(())
}

/// The summary table, the classes, and each case that differs from the recording.
fn summarise(
    out: &mut impl std::io::Write,
    report: &Report,
    reference: &str,
) -> std::io::Result<()> {
    write!(out, "{}", report.summary())?;
    writeln!(
        out,
        "against {reference}: {} cases: {}",
        report.totals.cases,
        fidelity::describe(&report.fidelity)
    )?;
    for m in report.ops.iter().flat_map(|o| &o.mismatches) {
        writeln!(out, "\nDIFFERS FROM THE RECORDING {}", m.id)?;
        for d in &m.differences {
            writeln!(out, "  {}", d.to_string().replacen("model", "recorded", 1))?;
        }
        if let Some(n) = &m.note {
            writeln!(out, "  {n}")?;
        }
        writeln!(out, "  replay: {}", m.replay)?;
    }
    Ok(())
}

/// Writes `--json` and `--markdown`.
fn write_reports(outputs: &[(&str, OutputPath)], report: &Report) -> Result<(), String> {
    for (flag, file) in outputs {
        let text = if *flag == "--json" {
            report.to_json()
        } else {
            report.to_markdown()
        };
        file.write(text.as_bytes())
            .map_err(|e| format!("{flag} {}: {e}", file.path().display()))?;
    }
    Ok(())
}
