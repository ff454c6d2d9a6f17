//! The `ds-harness` command line: see `ds-harness --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = ds_harness::cli::Cli::parse();
    let code = command(cli);
    if ds_devices::hip::runtime_hung() {
        leave_without_teardown(code);
    }
    code
}

/// After a kernel hung on a GPU: flushes what the command printed and ends the process without
/// the HIP runtime's teardown, which would wait for the hung kernel forever. (The reports and
/// recordings are whole files by now: each is written when its content is final.)
fn leave_without_teardown(code: ExitCode) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    eprintln!(
        "note: a kernel hung on the GPU, so ds-harness ends without the HIP runtime's teardown \
         (the driver reclaims the GPU's queues as the process exits)"
    );
    let _ = std::io::stderr().flush();
    let n = (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1);
    // SAFETY: ends the process at once; nothing runs after it.
    unsafe { libc::_exit(i32::from(n)) }
}

fn command(cli: ds_harness::cli::Cli) -> ExitCode {
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
