//! `ds-harness eval CASE.json`: the reference model alone on one case file, by the rules of the
//! file's target (its generation's: a wave64 bpermute reads within halves on gfx11, over the
//! whole wave on gfx12), printing the outcome as JSON (the same `Outcome` form case files use;
//! format in docs/case-format.md).

use super::{EXIT_OK, EXIT_USAGE};
use crate::case::CaseFile;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The case file.
    pub case: PathBuf,
}

pub fn run(args: &EvalArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let file = match CaseFile::read(&args.case) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let inst = file.variant.inst();
    match ds_reference::model::execute_variant(file.target, &file.variant, &file.case) {
        Ok(outcome) => {
            let doc = serde_json::json!({
                "id": file.id,
                // Whose rules the outcome follows.
                "target": file.target.name,
                // The instruction as the kernel holds it (the template's registers) in the
                // file's target's instruction set and spelling.
                "inst": ds_kernels::generator::test_inst(file.target, &file.variant)
                    .unwrap_or(inst)
                    .text(file.target.generation)
                    .to_string(),
                "outcome": outcome,
            });
            let text = serde_json::to_string_pretty(&doc)?;
            writeln!(out, "{text}")?;
            Ok(ExitCode::from(EXIT_OK))
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.case.display());
            Ok(ExitCode::from(EXIT_USAGE))
        }
    }
}
