//! `ds-harness questions RESULTS.json...`: per open question of `reference/ASSUMPTIONS.md`, which
//! readings a device's results support, which they rule out, and which case would settle what is
//! still open (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions"; the counts are [`crate::run::readings`]'s). Files of one
//! device (backend, device and target) are read together, as the shards of one run; each device
//! gets a section of its own.

use super::{EXIT_OK, EXIT_USAGE};
use crate::run::readings::{self, QuestionCounts};
use crate::run::report::{terminal, Report};
use ds_reference::model::questions;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct QuestionsArgs {
    /// Results files written by `ds-harness run --json FILE` (or `merge --json`).
    #[arg(required = true, value_name = "RESULTS.json")]
    pub results: Vec<PathBuf>,
}

pub fn run(args: &QuestionsArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let mut groups: Vec<(String, bool, Vec<Report>)> = Vec::new();
    for p in &args.results {
        let r = match crate::merge::read_results(p) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(EXIT_USAGE));
            }
        };
        let m = &r.meta;
        let who = format!(
            "{} ({}, backend {}{})",
            m.device,
            m.target,
            m.backend,
            m.against
                .as_ref()
                .map_or(String::new(), |a| format!(", against {a}"))
        );
        let hw = hardware(&r);
        match groups.iter_mut().find(|g| g.0 == who) {
            Some(g) => g.2.push(r),
            None => groups.push((who, hw, vec![r])),
        }
    }
    let mut s = String::new();
    for (who, hw, reports) in &groups {
        section(&mut s, who, *hw, reports);
    }
    out.write_all(s.as_bytes())?;
    Ok(ExitCode::from(EXIT_OK))
}

/// Whether a run's device is a GPU by its results: the hip backend (not the stand-in runtime),
/// or an external device whose hello said so.
fn hardware(r: &Report) -> bool {
    let details = &r.meta.device_details;
    match r.meta.backend.as_str() {
        "hip" => {
            !r.meta.device.contains("stand-in")
                && !details
                    .get("provenance")
                    .is_some_and(|p| p.contains("stand-in"))
        }
        "exec" => {
            details
                .get(ds_devices::exec::HARDWARE_DETAIL)
                .map(String::as_str)
                == Some("true")
        }
        _ => false,
    }
}

/// The section of one device: a paragraph per question its results counted. Results that
/// compared no case (issue 33 H2: a device that answered every case `unsupported`) say so and
/// that they show nothing: no question's cases agreed, none was told apart.
fn section(s: &mut String, who: &str, hardware: bool, reports: &[Report]) {
    let ops = reports
        .iter()
        .flat_map(|r| r.ops.iter().map(|o| &o.questions));
    let all = readings::totals(ops);
    let _ = writeln!(s, "{}", terminal(who));
    if !hardware {
        let _ = writeln!(
            s,
            "  (not hardware: the readings below are what this device does, not what a GPU does)"
        );
    }
    if let Some(n) = nothing_compared(reports) {
        let _ = writeln!(s, "  {n}");
    } else if all.is_empty() {
        let _ = writeln!(
            s,
            "  no open question was counted (results written before per-reading counts, or no \
             case was judged)"
        );
    }
    for (id, c) in &all {
        question(s, id, c);
    }
    s.push('\n');
}

/// The sentence for the results of one device that ran cases and compared none of them with
/// their reference, or `None` (some case was compared, or none ran: nothing was selected).
fn nothing_compared(reports: &[Report]) -> Option<String> {
    let sum = |f: fn(&Report) -> usize| reports.iter().fold(0usize, |a, r| a.saturating_add(f(r)));
    let cases = sum(|r| r.totals.cases);
    let compared = sum(|r| r.totals.cases_compared());
    let reference = match reports.first().and_then(|r| r.meta.against.as_ref()) {
        Some(_) => "recording",
        None => "model",
    };
    (cases > 0 && compared == 0).then(|| {
        format!(
            "no case was compared with the {reference}: 0 of {cases} cases ran and were judged, \
             so these results show nothing about any question (no reading supported or ruled \
             out, no case agreed)"
        )
    })
}

/// `"a", "b"`.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\"{}\"", terminal(n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The paragraph of one question: its cases and the model's reading, then what the cases say
/// of its readings.
fn question(s: &mut String, id: &str, c: &QuestionCounts) {
    let q = questions::get(id);
    let title = q.map_or("(not an entry of this ds-harness's ASSUMPTIONS.md)", |q| {
        q.title.as_str()
    });
    let _ = writeln!(s, "\n{}. {}", terminal(id), title);
    let model = q
        .and_then(|q| q.model_reading())
        .map_or("?", |r| r.name.as_str());
    let _ = writeln!(
        s,
        "  {} cases of the ops it concerns, {} agreed with the model (exactly or legally); the model reads \"{model}\"",
        c.cases, c.agree
    );
    let settles = q
        .and_then(|q| q.settles.as_deref())
        .unwrap_or("no case is named in ASSUMPTIONS.md");
    if !c.computed {
        let _ = writeln!(
            s,
            "  readings not computed: the run cannot tell which one a case followed; settles it: {settles}"
        );
        return;
    }
    finding(s, id, c, settles);
    if c.unexplained > 0 {
        let _ = writeln!(
            s,
            "  {} cases no computed reading explains (mismatches of another kind)",
            c.unexplained
        );
    }
    if c.undecided > 0 {
        let _ = writeln!(
            s,
            "  {} cases where the legal search could not decide a reading",
            c.undecided
        );
    }
}

/// What the cases of a computed question say of its readings: still open, or the cases that
/// told them apart and the readings they support, also allow and rule out.
fn finding(s: &mut String, id: &str, c: &QuestionCounts, settles: &str) {
    let f = c.finding(id);
    if f.open {
        let _ = writeln!(
            s,
            "  still open: no case told its readings apart; settles it: {settles}"
        );
        return;
    }
    let _ = writeln!(
        s,
        "  {} cases told the readings apart{}",
        c.told_apart,
        c.first_telling
            .as_ref()
            .map_or(String::new(), |t| format!(" (the first: {})", terminal(t)))
    );
    if f.supported.is_empty() {
        let _ = writeln!(
            s,
            "  supported: none (no single reading explains every one)"
        );
    } else {
        let _ = writeln!(s, "  supported: {}", quoted(&f.supported));
    }
    if !f.also.is_empty() {
        let _ = writeln!(
            s,
            "  also consistent: {} (includes a supported reading)",
            quoted(&f.also)
        );
    }
    if !f.ruled_out.is_empty() {
        let _ = writeln!(s, "  ruled out: {}", ruled_out(c, &f.ruled_out));
    }
    if f.supported.len() > 1 {
        let _ = writeln!(
            s,
            "  still open between {}: settles it: {settles}",
            quoted(&f.supported)
        );
    }
}

/// `"reading" (N of M inconsistent), ...`: each reading ruled out, with how many of the cases
/// that told the readings apart it does not explain.
fn ruled_out(c: &QuestionCounts, readings: &[String]) -> String {
    readings
        .iter()
        .map(|r| {
            let n = c.telling.get(r).copied().unwrap_or(0);
            format!(
                "\"{}\" ({} of {} inconsistent)",
                terminal(r),
                c.told_apart.saturating_sub(n),
                c.told_apart
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
