//! `ds-harness serve-device`: this harness's own devices (emu, or HIP) behind the device
//! protocol on stdin/stdout, so that `run --backend exec --device-cmd 'ssh gpu-box ds-harness
//! serve-device --backend hip'` drives a GPU on another machine (docs/device-protocol.md).
//! Everything but protocol lines goes to stderr.

use super::{EXIT_OK, EXIT_USAGE};
use ds_devices::{self as device, exec::serve, BackendChoice};
use std::process::ExitCode;

/// The devices `serve-device` can serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ServedBackend {
    /// The emulated device.
    Emu,
    /// A GPU through HIP on this machine (an error, exit 3, when there is none).
    Hip,
}

#[derive(Debug, clap::Args)]
pub struct ServeDeviceArgs {
    /// Which of this machine's devices to serve.
    #[arg(long, value_enum, default_value_t = ServedBackend::Emu)]
    pub backend: ServedBackend,
    /// HIP device N (with --backend hip).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// The target to serve: the emulated device of it, or a GPU of it (a GPU of another target
    /// is refused). Default: the GPU's own target, or the emulated device's default.
    #[arg(long, value_name = "NAME", value_parser = super::parse_kernel_target)]
    pub target: Option<&'static ds_isa::target::Target>,
}

pub fn run(args: &ServeDeviceArgs) -> anyhow::Result<ExitCode> {
    if args.device.is_some() && args.backend != ServedBackend::Hip {
        eprintln!("error: --device N picks a HIP device; it needs --backend hip");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let choice = match args.backend {
        ServedBackend::Emu => BackendChoice::Emu,
        ServedBackend::Hip => BackendChoice::Hip,
    };
    let mut opened = match device::open_with(choice, args.device, args.target) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(super::device_exit(&e));
        }
    };
    let info = opened.device.info().clone();
    eprintln!(
        "serve-device: serving {} ({}, {}) on stdin/stdout",
        info.name, info.target, opened.reason
    );
    let about = serve::serve_info(opened.device.as_ref());
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match serve::serve(opened.device.as_mut(), &about, stdin, stdout) {
        Ok(()) => Ok(ExitCode::from(EXIT_OK)),
        // The harness went away: nothing more to serve.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::from(EXIT_OK)),
        Err(e) => Err(e.into()),
    }
}
