//! `ds-harness run --against DIR`: the recording's corpus on the device, compared with the
//! recorded outcomes instead of the model (see [`crate::against`]).

use super::run::RunArgs;
use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::against;
use crate::fidelity;
use crate::output::{Dash, OutputPath};
use crate::run::report::{Report, RunMeta};
use crate::run::select::select_ops;
use ds_devices as device;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &RunArgs, dir: &Path, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let usage = |e: String| {
        eprintln!("error: {e}");
        Ok(ExitCode::from(EXIT_USAGE))
    };
    if args.shard.is_some()
        || args.record.is_some()
        || args.junit.is_some()
        || args.duration.is_some()
        || args.seed != crate::corpus::DEFAULT_SEED
        || args.cases as usize != crate::corpus::DEFAULT_CASES_PER_OP
    {
        return usage(
            "--against runs a recording's own corpus: it takes no --shard, --record, --junit, \
             --duration, --seed or --cases (--op and --wave choose among the recordings)"
                .into(),
        );
    }
    if let Err(e) = super::run::check_outputs(args)
        .and(Ok(()))
        .map_err(|e| e.to_string())
    {
        return usage(e);
    }
    if let Err(e) = super::run::check_jobs(args.jobs) {
        return usage(e);
    }
    let mut recs = match against::load(dir) {
        Ok(r) => r,
        Err(e) => return usage(e.to_string()),
    };
    if let Some(w) = args.wave {
        recs.retain(|r| r.wave == w);
        if recs.is_empty() {
            return usage(format!(
                "--against {}: --wave {}: no {w} recording there",
                dir.display(),
                w.lanes()
            ));
        }
    }
    if !args.ops.is_empty() {
        // The recordings' own generation's ops (one directory holds one target's recordings).
        let Some(gen) = recs.first().map(|r| r.target().generation) else {
            return usage(format!("--against {}: no recording there", dir.display()));
        };
        let ops = match select_ops(gen, &args.ops) {
            Ok(o) => o,
            Err(e) => return usage(e.to_string()),
        };
        recs.retain(|r| ops.contains(&r.op));
        if recs.is_empty() {
            return usage(format!(
                "--against {}: none of the selected ops is recorded there",
                dir.display()
            ));
        }
    }
    let mut outputs = Vec::new();
    for (flag, p) in [("--json", &args.json), ("--markdown", &args.markdown)] {
        if let Some(p) = p {
            match OutputPath::check(flag, p, Dash::Refused("run prints its summary on stdout")) {
                Ok(o) => outputs.push((flag, o)),
                Err(e) => return usage(e.to_string()),
            }
        }
    }
    let target = recs[0].target();
    if let Some(other) = recs.iter().find(|r| r.target() != target) {
        return usage(format!(
            "--against {}: {} is recorded on {}, {} on {target}; give one device's directory",
            dir.display(),
            other.path.display(),
            other.target(),
            recs[0].path.display()
        ));
    }
    if let Some(t) = args.target {
        if t != target {
            return usage(format!(
                "--against {}: recorded on {target}, and --target asks for {t}",
                dir.display()
            ));
        }
    }
    let opened = match device::open_any(
        args.backend.into(),
        args.device,
        Some(target),
        &args.exec.args(),
    ) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(super::device_exit(&e));
        }
    };
    let mut dev = opened.device;
    let info = dev.info().clone();
    eprintln!(
        "backend: {} ({}){}",
        info.backend,
        crate::run::report::terminal(&opened.reason),
        super::run::hardware_note(&info)
    );
    if info.target != target {
        return usage(format!(
            "--against {}: recorded on {target}, but the device runs {}",
            dir.display(),
            info.target
        ));
    }
    let reference = against::describe(&recs, dir);
    eprintln!("against: {reference}");
    let mut waves: Vec<_> = recs.iter().map(|r| r.wave).collect();
    waves.sort();
    waves.dedup();
    if let Err(e) = crate::canary::first(dev.as_mut(), &waves) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    let replay_flags = info.backend_flags();
    let start = std::time::Instant::now();
    let mut report = Report::new(RunMeta {
        backend: info.backend.to_string(),
        backend_reason: opened.reason.clone(),
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
        against: Some(reference.clone()),
        allow_unsupported: args.allow_unsupported,
        device_details: super::run::exec_details(&info),
        overridden: crate::run::overridden::Overridden::of(&info),
    });
    for rec in &recs {
        report.push(against::run_recording(
            rec,
            dev.as_mut(),
            &args.out,
            &replay_flags,
        ));
        if let Some(why) = dev.gave_up() {
            eprintln!("error: backend unavailable: {why}");
            return Ok(ExitCode::from(super::EXIT_BACKEND));
        }
    }
    report.complete = true;
    report.elapsed_seconds = start.elapsed().as_secs_f64();
    write!(out, "{}", report.summary())?;
    report.device_stderr = dev.stderr_log();
    let all = report.fidelity.clone();
    writeln!(
        out,
        "against {reference}: {} cases: {}",
        report.totals.cases,
        fidelity::describe(&all)
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
    for (flag, file) in outputs {
        let text = if flag == "--json" {
            report.to_json()
        } else {
            report.to_markdown()
        };
        if let Err(e) = file.write(text.as_bytes()) {
            eprintln!("error: {flag} {}: {e}", file.path().display());
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    }
    Ok(ExitCode::from(if report.all_agree() {
        EXIT_OK
    } else {
        EXIT_DISAGREE
    }))
}
