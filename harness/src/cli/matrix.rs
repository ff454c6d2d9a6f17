//! `ds-harness matrix RESULTS.json...`: several devices' results side by side (see
//! [`crate::matrix`]). Markdown on stdout unless output files are named.

use super::{EXIT_OK, EXIT_USAGE};
use crate::output::{check_distinct, check_not_inputs, Dash, OutputPath};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct MatrixArgs {
    /// Results files written by `ds-harness run --json FILE`, one per device (column).
    #[arg(required = true, value_name = "RESULTS.json")]
    pub results: Vec<PathBuf>,
    /// Write the matrix as a markdown table here (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the matrix as an SVG heatmap here (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the matrix as JSON here (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

pub fn run(args: &MatrixArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    // Every output is checked before anything is read (crate::output).
    let mut checked = Vec::new();
    for (flag, path) in [
        ("--markdown", &args.markdown),
        ("--svg", &args.svg),
        ("--json", &args.json),
    ] {
        if let Some(p) = path {
            match OutputPath::check(flag, p, Dash::Stdout) {
                Ok(o) => checked.push((flag, o)),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
            }
        }
    }
    let named: Vec<(&str, &OutputPath)> = checked.iter().map(|(f, p)| (*f, p)).collect();
    let inputs: Vec<(&str, &std::path::Path)> = args
        .results
        .iter()
        .map(|p| ("results file", p.as_path()))
        .collect();
    if let Err(e) = check_distinct(&named).and_then(|()| check_not_inputs(&named, &inputs, &[])) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let m = match crate::matrix::from_files(&args.results) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    if checked.is_empty() {
        write!(out, "{}", m.to_markdown())?;
        return Ok(ExitCode::from(EXIT_OK));
    }
    for (flag, path) in checked {
        let text = match flag {
            "--markdown" => m.to_markdown(),
            "--svg" => m.to_svg(),
            _ => m.to_json(),
        };
        if let Err(e) = path.write(text.as_bytes()) {
            eprintln!("error: {flag} {}: cannot write: {e}", path.path().display());
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}
