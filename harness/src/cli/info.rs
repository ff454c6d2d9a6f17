//! `ds-harness info`: what this machine offers the harness: the HIP runtime (path, versions, or
//! every path tried), the visible devices with their target and whether it is supported,
//! and what `--backend auto` takes and why. See `device::hip::probe`.

use ds_devices::hip;
use std::io::Write;
use std::process::ExitCode;

/// `ds-harness info` arguments.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Print the answer as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Prints the probe. Exits 0: "no GPU" is an answer, not an error; but a `DS_HARNESS_HIP_LIB`
/// override that does not load is an explicit request that cannot be honoured: the answer is
/// printed in full, and the exit code is 3.
pub fn run(args: &InfoArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let probe = hip::probe();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&probe)?)?;
    } else {
        writeln!(out, "ds-harness {}", env!("CARGO_PKG_VERSION"))?;
        writeln!(out, "{probe}")?;
        writeln!(
            out,
            "emulated device: always available, for any supported target (--target NAME; \
             default {}), on the CPU",
            ds_reference::target::DEFAULT
        )?;
        writeln!(out, "targets (the target table):")?;
        for t in ds_reference::target::TARGETS {
            writeln!(
                out,
                "  {:<8} {} {}: {}{}",
                t.name,
                t.family,
                match t.kind {
                    ds_reference::target::Kind::Dgpu => "GPU",
                    ds_reference::target::Kind::Apu => "APU",
                    ds_reference::target::Kind::Generic => "generic target",
                },
                t.products.join(", "),
                if ds_kernels::check_target(t).is_ok() {
                    ""
                } else {
                    " [DS table and model only: no kernels for this generation yet]"
                }
            )?;
        }
    }
    if let Some(o) = probe.override_failed() {
        eprintln!(
            "error: {}={} could not be loaded (see above)",
            hip::library::ENV_LIB,
            o.path
        );
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    Ok(ExitCode::from(super::EXIT_OK))
}
