//! `ds-harness info`: what this machine offers the harness: the HIP runtime (path, versions, or
//! every path tried), the visible devices with their target and whether it is supported,
//! and what `--backend auto` takes and why. See `device::hip::probe`. With `--check`, the canary
//! (`crate::canary`) runs alone on each device listed.

use ds_devices::hip;
use std::io::Write;
use std::process::ExitCode;

/// `ds-harness info` arguments.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Print the answer as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also run the canary (the self-check `run` launches before any op) on each usable HIP
    /// device in every wave size its target runs, and on the emulated device of every target,
    /// and say which assumptions held; exit 3 if one broke.
    #[arg(long)]
    pub check: bool,
}

/// Prints the probe. Exits 0: "no GPU" is an answer, not an error; but a `DS_HARNESS_HIP_LIB`
/// override that does not load is an explicit request that cannot be honoured: the answer is
/// printed in full, and the exit code is 3. With `--check`, a broken canary is exit 3 too.
pub fn run(args: &InfoArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let probe = hip::probe();
    let checks = args.check.then(|| crate::canary::check_all(&probe));
    if args.json {
        let mut v = serde_json::to_value(&probe)?;
        if let (Some(c), Some(map)) = (&checks, v.as_object_mut()) {
            map.insert("check".into(), serde_json::to_value(c)?);
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "ds-harness {}", env!("CARGO_PKG_VERSION"))?;
        writeln!(out, "{probe}")?;
        writeln!(
            out,
            "emulated device: always available, for any supported target (--target NAME; \
             default {}), on the CPU",
            ds_isa::target::DEFAULT
        )?;
        target_list(out)?;
    }
    if let (Some(c), false) = (&checks, args.json) {
        write!(out, "{}", c.text())?;
    }
    if let Some(o) = probe.override_failed() {
        eprintln!(
            "error: {}={} could not be loaded (see above)",
            hip::library::ENV_LIB,
            o.path
        );
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    if checks.is_some_and(|c| !c.held) {
        eprintln!(
            "error: the canary broke on a device (see above): runs there would stop before any op"
        );
        return Ok(ExitCode::from(super::EXIT_BACKEND));
    }
    Ok(ExitCode::from(super::EXIT_OK))
}

/// The target table as `info` lists it: each processor, its family, kind and products, and where
/// no ROCm release supports it, what its users run it as (a GPU ROCm does not list may never show
/// up as a device above).
fn target_list(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "targets (the target table):")?;
    for t in ds_isa::target::TARGETS {
        let run_as = t
            .runs_as_hint()
            .map(|(runs_as, version, source)| {
                format!(
                    " [no ROCm release supports it; its users run it as {runs_as} with \
                     {}={version} ({source})]",
                    ds_devices::hip::chip::ENV_OVERRIDE
                )
            })
            .unwrap_or_default();
        writeln!(
            out,
            "  {:<8} {} {}: {}{}{run_as}",
            t.name,
            t.family,
            match t.kind {
                ds_isa::target::Kind::Dgpu => "GPU",
                ds_isa::target::Kind::Apu => "APU",
                ds_isa::target::Kind::Generic => "generic target",
            },
            t.products.join(", "),
            if ds_kernels::check_target(t).is_ok() {
                ""
            } else {
                " [DS table and model only: no kernels for this generation yet]"
            }
        )?;
    }
    Ok(())
}
