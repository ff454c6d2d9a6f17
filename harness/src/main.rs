//! The `ds-harness` command line: see `ds-harness --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = ds_harness::cli::Cli::parse();
    match ds_harness::cli::dispatch(cli) {
        Ok(code) => code,
        // A closed stdout that reached here unswallowed still ends quietly (cli::Out).
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::from(ds_harness::cli::EXIT_OK)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(ds_harness::cli::EXIT_USAGE)
        }
    }
}
