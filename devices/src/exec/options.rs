//! How an exec device is started and bounded: its command line, time-outs and the framings it is
//! offered ([`ExecOptions`]), from what the commands that open a device were asked ([`ExecArgs`]:
//! the CLI's `--device-cmd` and `--device-timeout`, and [`FRAMING_ENV`]; docs/device-protocol.md).

use super::frame::Framing;
use super::{DEFAULT_HELLO_TIMEOUT_SECS, DEFAULT_TIMEOUT_SECS};
use ds_isa::target::Target;
use std::time::Duration;

/// How to start and bound the external device.
#[derive(Clone, Debug)]
pub struct ExecOptions {
    /// The command line, run as `sh -c COMMAND`.
    pub command: String,
    /// Bound on one load or launch.
    pub timeout: Duration,
    /// Bound on a start (spawn and hello).
    pub hello_timeout: Duration,
    /// The target asked for (`--target`): the device's hello must name it. Without one, the
    /// device's own target is taken, if kernels can be built for it.
    pub target: Option<&'static Target>,
    /// Framings offered in hello besides JSON lines (the device may take one).
    pub framings: Vec<Framing>,
    /// Offer the buffer file with the binary framing (the device may take it).
    pub buffer_file: bool,
}

impl ExecOptions {
    /// `command` with the default timeouts, for `target` (or the device's own).
    pub fn new(command: &str, target: Option<&'static Target>) -> ExecOptions {
        ExecOptions {
            command: command.to_string(),
            timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS),
            hello_timeout: Duration::from_secs_f64(DEFAULT_HELLO_TIMEOUT_SECS),
            target,
            framings: vec![Framing::Msgpack],
            buffer_file: true,
        }
    }
}

/// What the commands that open a device were asked for an exec device (`--device-cmd`,
/// `--device-timeout`; the CLI parses the flags into this).
#[derive(Clone, Debug, Default)]
pub struct ExecArgs {
    /// The device's command line, run as `sh -c 'COMMAND'`, speaking the device protocol on
    /// stdin/stdout (docs/device-protocol.md).
    pub device_cmd: Option<String>,
    /// Seconds one load or launch may take before the device's process group is killed (a
    /// start may take at least 60 s).
    pub device_timeout: f64,
}

impl ExecArgs {
    /// The options for a device running `target` (or its own), or why the flags do not go
    /// together.
    pub fn options(&self, target: Option<&'static Target>) -> Result<ExecOptions, String> {
        let Some(cmd) = &self.device_cmd else {
            return Err(
                "--backend exec needs --device-cmd 'COMMAND ARGS' (the program speaking \
                        the device protocol, e.g. --device-cmd 'ds-harness serve-device')"
                    .into(),
            );
        };
        if cmd.trim().is_empty() {
            return Err("--device-cmd is empty: give the device's command line".into());
        }
        let mut o = ExecOptions::new(cmd, target);
        (o.framings, o.buffer_file) = framings_from_env()?;
        o.timeout = Duration::from_secs_f64(self.device_timeout);
        o.hello_timeout = o.hello_timeout.max(o.timeout);
        Ok(o)
    }
}

/// The environment variable that limits what is offered to a device: `json` (JSON lines only,
/// e.g. to read a session captured with `tee`), `msgpack` (the binary framing, buffers on the
/// pipes) or `file` (the default: the binary framing and the buffer file; the device decides).
pub const FRAMING_ENV: &str = "DS_HARNESS_DEVICE_FRAMING";

/// The framings [`FRAMING_ENV`] allows to offer, and whether the buffer file goes with them.
fn framings_from_env() -> Result<(Vec<Framing>, bool), String> {
    match std::env::var(FRAMING_ENV) {
        Err(std::env::VarError::NotPresent) => Ok((vec![Framing::Msgpack], true)),
        Ok(v) if v == "json" => Ok((Vec::new(), false)),
        Ok(v) if v == Framing::Msgpack.name() => Ok((vec![Framing::Msgpack], false)),
        Ok(v) if v == "file" => Ok((vec![Framing::Msgpack], true)),
        Ok(v) => Err(format!(
            "{FRAMING_ENV}={}: expected `json` (JSON lines only), `msgpack` (offer the binary \
             framing, buffers on the pipes) or `file` (offer the binary framing and the buffer \
             file; the default)",
            super::text::bounded(&v, 40)
        )),
        Err(e) => Err(format!("{FRAMING_ENV}: {e}")),
    }
}
