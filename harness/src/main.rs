//! The `ds-harness` command line: see `ds-harness --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = ds_harness::cli::Cli::parse();
    match ds_harness::cli::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(ds_harness::cli::EXIT_USAGE)
        }
    }
}
