//! `ds-harness merge`: the shards of one run (their `--json` results, and optionally their
//! `--record` directories) put back together into one report (docs/design-notes.md, "Runs at scale"). A missing,
//! duplicate, incomplete or foreign shard is refused naming it (exit 2); otherwise the merged
//! summary is printed and written like a run's, exit 0 when everything agrees, 1 when not.

use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::merge::{merge_recordings, merge_results, read_results};
use crate::output::{
    check_dir_apart, check_distinct, check_not_inputs, Dash, OutputDir, OutputError, OutputPath,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The JSON results (`run --json`) of every shard of one run, in any order.
    #[arg(value_name = "RESULTS.json", required = true)]
    pub results: Vec<PathBuf>,
    /// Write the merged results as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the merged results as JUnit XML here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the merged summary as a markdown table here.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// A shard's recordings directory (its `run --record DIR`); repeat for every shard.
    #[arg(long = "recordings", value_name = "DIR", requires = "record")]
    pub recordings: Vec<PathBuf>,
    /// Merge the shards' recordings (`--recordings`) into this directory.
    #[arg(long, value_name = "DIR", requires = "recordings")]
    pub record: Option<PathBuf>,
}

pub fn run(args: &MergeArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let outputs = match check_outputs(args) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    let mut shards = Vec::new();
    for path in &args.results {
        match read_results(path) {
            Ok(r) => shards.push((path.clone(), r)),
            Err(e) => return usage(e),
        }
    }
    let report = match merge_results(&shards) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    if let Some(dir) = &args.record {
        match merge_recordings(&args.recordings, dir) {
            Ok(written) => eprintln!(
                "merged {} recordings of {} shards into {}",
                written.len(),
                args.recordings.len(),
                dir.display()
            ),
            Err(e) => return usage(e),
        }
    }
    for (file, text) in outputs.iter().zip([
        args.json.as_ref().map(|_| report.to_json()),
        args.junit.as_ref().map(|_| report.to_junit()),
        args.markdown.as_ref().map(|_| report.to_markdown()),
    ]) {
        if let (Some(file), Some(text)) = (file, text) {
            file.write(text.as_bytes())
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", file.path().display()))?;
        }
    }
    write!(out, "{}", report.summary())?;
    writeln!(
        out,
        "{} shards merged: {} ops, {} cases",
        shards.len(),
        report.totals.ops,
        report.totals.cases
    )?;
    Ok(ExitCode::from(if report.all_agree() {
        EXIT_OK
    } else {
        EXIT_DISAGREE
    }))
}

/// Checks every output before reading anything (crate::output): `[json, junit, markdown]`.
fn check_outputs(args: &MergeArgs) -> Result<[Option<OutputPath>; 3], OutputError> {
    const DASH: Dash = Dash::Refused("merge prints its summary on stdout; name a file");
    let check = |flag: &str, p: &Option<PathBuf>| {
        p.as_ref()
            .map(|p| OutputPath::check(flag, p, DASH))
            .transpose()
    };
    let outs = [
        check("--json", &args.json)?,
        check("--junit", &args.junit)?,
        check("--markdown", &args.markdown)?,
    ];
    let named: Vec<(&str, &OutputPath)> = ["--json", "--junit", "--markdown"]
        .into_iter()
        .zip(&outs)
        .filter_map(|(f, o)| o.as_ref().map(|o| (f, o)))
        .collect();
    check_distinct(&named)?;
    // Nothing written over what is read: no output is a shard's results file or lies in a
    // shard's recordings or the merged recordings directory, which overlaps no shard's.
    let files: Vec<(&str, &std::path::Path)> = args
        .results
        .iter()
        .map(|p| ("results file", p.as_path()))
        .collect();
    let mut dirs: Vec<(&str, &std::path::Path)> = args
        .recordings
        .iter()
        .map(|d| ("--recordings", d.as_path()))
        .collect();
    if let Some(r) = &args.record {
        OutputDir::check("--record", r)?;
        check_dir_apart("--record", r, &dirs)?;
        dirs.push(("--record", r.as_path()));
    }
    check_not_inputs(&named, &files, &dirs)?;
    Ok(outs)
}

fn usage(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(EXIT_USAGE))
}
