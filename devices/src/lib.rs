//! ds-devices: the devices that run the kernels: the [`Device`] trait and its implementations
//! (the emulated CPU device, the HIP device, and an external program speaking the device
//! protocol), and `serve-device`'s loop ([`exec::serve`]). Depends on ds-reference and ds-kernels
//! only (docs/architecture.md, "Crates"); the command line's spellings of its options are the harness's.
//!
//! A device loads a code object and runs a [`Launch`] (see `ds_kernels::launch` for the contract:
//! kernarg = one 64-bit address per buffer).

pub mod emu;
pub mod exec;
pub mod hip;

use ds_isa::target::Target;
pub use ds_kernels::launch::{Buffer, Launch};
/// What the caller is about to launch, in words, for the report of a device fault that ends the
/// process (see [`hip::crumb`]).
pub use hip::crumb::set_context as set_launch_context;
use std::fmt;

/// Which implementation a device is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// A GPU through the HIP runtime.
    Hip,
    /// The emulated device: the same code object, executed on the CPU.
    Emu,
    /// An external program speaking the device protocol (`docs/device-protocol.md`).
    Exec,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Hip => "hip",
            Backend::Emu => "emu",
            Backend::Exec => "exec",
        })
    }
}

/// What a device is, for reports and recordings' provenance.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// The implementation.
    pub backend: Backend,
    /// Human-readable device name (the GPU's marketing name, or "emulated <target>").
    pub name: String,
    /// The target the device runs (a row of the target table), written as its name.
    #[serde(with = "ds_isa::target::by_name")]
    pub target: &'static Target,
    /// Further provenance as key/value pairs (runtime and driver versions, library path...).
    pub details: Vec<(String, String)>,
}

impl DeviceInfo {
    /// The value of detail `key`, if the device gave it.
    pub fn detail(&self, key: &str) -> Option<&str> {
        self.details
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The `--backend ...` flags that open this device again (for replay commands).
    pub fn backend_flags(&self) -> String {
        match self.detail(exec::COMMAND_DETAIL) {
            Some(cmd) if self.backend == Backend::Exec => {
                format!(
                    "--backend exec --device-cmd '{}'",
                    cmd.replace('\'', "'\\''")
                )
            }
            _ => format!("--backend {}", self.backend),
        }
    }
}

/// A loaded code object on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// Why a device could not do what was asked; every message says what happened and what to do.
#[derive(Debug)]
pub enum DeviceError {
    /// The backend cannot be used on this machine (no runtime, no GPU, wrong arch).
    Unavailable(String),
    /// The code object was rejected.
    Load(String),
    /// The launch failed or its results could not be read back.
    Launch(String),
    /// The kernel did not finish within the time limit.
    Timeout(String),
    /// The request itself is bad (a flag or environment value that cannot mean anything here):
    /// bad usage, exit 2, rather than an unavailable backend.
    BadRequest(String),
    /// The device does not implement an instruction of the kernel (an emulator's answer).
    Unsupported(String),
    /// The device's process died (exited, or was killed) while it ran the request.
    Crashed(String),
    /// The device's process answered something the protocol does not allow.
    Protocol(String),
}

impl DeviceError {
    /// True for a bad request (exit 2); every other device error is exit 3.
    pub fn is_bad_request(&self) -> bool {
        matches!(self, DeviceError::BadRequest(_))
    }
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Unavailable(m) => write!(f, "backend unavailable: {m}"),
            DeviceError::Load(m) => write!(f, "code object rejected: {m}"),
            DeviceError::Launch(m) => write!(f, "launch failed: {m}"),
            DeviceError::Timeout(m) => write!(f, "kernel timed out: {m}"),
            DeviceError::BadRequest(m) => f.write_str(m),
            DeviceError::Unsupported(m) => write!(f, "unsupported by the device: {m}"),
            DeviceError::Crashed(m) => write!(f, "device crashed: {m}"),
            DeviceError::Protocol(m) => write!(f, "device protocol error: {m}"),
        }
    }
}

impl std::error::Error for DeviceError {}

/// A device that runs code objects.
pub trait Device {
    /// What this device is.
    fn info(&self) -> &DeviceInfo;
    /// Loads a code object (an HSA ELF), returning a handle for launches.
    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError>;
    /// Runs `launch` to completion and copies its output buffers back into it.
    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError>;
    /// Hands `launch` over and returns before it has run when the device can take a launch
    /// while others are under way (`None`: [`Device::complete`] gives it back, with its outcome,
    /// in the order they were handed over); a device that cannot runs it at once, as
    /// [`Device::launch`] does, and returns it with its outcome (the default). A launch after a
    /// submit runs after every launch submitted before it.
    fn submit(
        &mut self,
        module: ModuleId,
        mut launch: Launch,
    ) -> Option<(Launch, Result<(), DeviceError>)> {
        let r = self.launch(module, &mut launch);
        Some((launch, r))
    }
    /// The oldest launch [`Device::submit`] kept and has not given back, once it has run, with its
    /// outcome; `None` when there is none.
    fn complete(&mut self) -> Option<(Launch, Result<(), DeviceError>)> {
        None
    }
    /// What the device wrote on its error stream so far (an external device's stderr), kept for
    /// the report; empty for devices in this process.
    fn stderr_log(&self) -> Vec<String> {
        Vec::new()
    }
    /// Why the device has given up, once it has (an external device that failed to start, or
    /// timed out, too many times in a row): every later call fails, and a run stops there (exit
    /// 3) instead of counting every later case as lost.
    fn gave_up(&self) -> Option<String> {
        None
    }
}

/// Which backend a command asks for (`--backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// hip when a supported AMD GPU is found, else emu; says which and why.
    Auto,
    /// A GPU through HIP; an error (never a fallback) when there is none.
    Hip,
    /// The emulated device.
    Emu,
    /// An external program speaking the device protocol: needs `--device-cmd`.
    Exec,
}

/// A device opened for a run, and why it was the one taken.
pub struct Opened {
    /// The device.
    pub device: Box<dyn Device>,
    /// Why this backend, in words (printed on every run).
    pub reason: String,
}

impl fmt::Debug for Opened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opened")
            .field("device", self.device.info())
            .field("reason", &self.reason)
            .finish()
    }
}

/// Opens the device `choice` names. `Auto` asks the HIP probe and takes hip only for a supported
/// GPU; `Hip` without one is [`DeviceError::Unavailable`], never a silent fallback to emu.
pub fn open(choice: BackendChoice) -> Result<Opened, DeviceError> {
    open_with(choice, None, None)
}

/// [`open`], with `--device N` (HIP's ordinal among the devices `HIP_VISIBLE_DEVICES` leaves) and
/// `--target T`. An explicit request is honoured or refused, never replaced: `--device N` opens
/// exactly that device or says why not (with `Auto` too), `--device` with `Emu` is a bad request,
/// `--target T` runs T or says why not (a GPU of another target is refused; `Auto` without a GPU
/// of T runs the emulated T), and a `DS_HARNESS_HIP_LIB` that does not load is an error for `Auto`
/// as for `Hip`. A bad `DS_HARNESS_HIP_TIMEOUT` is a bad request for every backend that may use
/// HIP. Without `--target` a GPU runs its own target and the emulated device the default one.
pub fn open_with(
    choice: BackendChoice,
    device: Option<usize>,
    target: Option<&'static Target>,
) -> Result<Opened, DeviceError> {
    if let Some(t) = target {
        ds_kernels::check_target(t).map_err(DeviceError::BadRequest)?;
    }
    if choice != BackendChoice::Emu {
        hip::timeout_from_env().map_err(|e| {
            DeviceError::BadRequest(format!("{e}; set it to the seconds one launch may take, e.g. {}=30, or unset it (default {} s)", hip::ENV_TIMEOUT, hip::DEFAULT_TIMEOUT.as_secs()))
        })?;
    }
    let emu = || {
        Box::new(emu::EmuDevice::for_target(
            target.unwrap_or(ds_isa::target::DEFAULT),
        ))
    };
    let wanted = |d: &hip::probe::DeviceReport| target.is_none_or(|t| d.target == Some(t));
    match choice {
        BackendChoice::Emu => match device {
            Some(n) => Err(DeviceError::BadRequest(format!(
                "--device {n} selects a HIP device, and --backend emu has one emulated device; \
                 drop --device, or use --backend hip (or auto) to run on HIP device {n}"
            ))),
            None => Ok(Opened {
                device: emu(),
                reason: "--backend emu".into(),
            }),
        },
        BackendChoice::Exec => Err(DeviceError::Unavailable(
            "--backend exec needs --device-cmd 'COMMAND' (see docs/device-protocol.md)".into(),
        )),
        BackendChoice::Auto => {
            let probe = hip::probe();
            if let Some(o) = probe.override_failed() {
                return Err(DeviceError::Unavailable(format!(
                    "{}={} could not be loaded: {}\n(an explicit override is never replaced by a \
                     system library or the emulated device; point it at a HIP runtime, unset it, \
                     or use --backend emu)",
                    hip::library::ENV_LIB,
                    o.path,
                    o.error.as_deref().unwrap_or("unknown reason")
                )));
            }
            if let Some(n) = device {
                return match probe.devices.iter().find(|d| d.index == n) {
                    Some(d) if d.usable => Ok(Opened {
                        device: Box::new(hip::open(n, target)?),
                        reason: format!(
                            "--backend auto --device {n}: HIP device {n} ({}): {}",
                            d.name, d.why
                        ),
                    }),
                    Some(d) => Err(DeviceError::Unavailable(format!(
                        "--device {n} was asked for, and HIP device {n} ({}) is not usable: {}\n\
                         (`ds-harness info` lists the devices; drop --device to let auto choose)",
                        d.name, d.why
                    ))),
                    None => Err(DeviceError::Unavailable(format!(
                        "--device {n} was asked for, and HIP has no device {n}: it offers {}{}\n\
                         (`ds-harness info` lists the devices; drop --device to let auto choose)",
                        match probe.devices.len() {
                            1 => "1 device".to_string(),
                            k => format!("{k} devices"),
                        },
                        match (&probe.no_devices, &probe.not_found) {
                            (Some(why), _) => format!(" ({why})"),
                            (None, Some(_)) => " (no HIP runtime could be loaded)".to_string(),
                            _ => String::new(),
                        }
                    ))),
                };
            }
            match (target, probe.devices.iter().find(|d| d.usable && wanted(d))) {
                (None, Some(d)) => Ok(Opened {
                    device: Box::new(hip::open(d.index, None)?),
                    reason: format!("--backend auto: {}", probe.auto.reason),
                }),
                (Some(t), Some(d)) => Ok(Opened {
                    device: Box::new(hip::open(d.index, target)?),
                    reason: format!(
                        "--backend auto --target {t}: HIP device {} ({}) is a {t}",
                        d.index, d.name
                    ),
                }),
                (Some(t), None) if probe.auto.backend == Backend::Hip => Ok(Opened {
                    device: emu(),
                    reason: format!(
                        "--backend auto --target {t}: no HIP device is a {t} ({}), so the \
                         emulated {t} is used",
                        probe.auto.reason
                    ),
                }),
                _ => Ok(Opened {
                    device: emu(),
                    reason: format!("--backend auto: {}", probe.auto.reason),
                }),
            }
        }
        BackendChoice::Hip => {
            // Without --device: the first usable device (of the --target), else device 0, whose
            // refusal says why.
            let index = device.unwrap_or_else(|| {
                let devices = hip::probe().devices;
                devices
                    .iter()
                    .find(|d| d.usable && wanted(d))
                    .or_else(|| devices.iter().find(|d| d.usable))
                    .map_or(0, |d| d.index)
            });
            match hip::open(index, target) {
                Ok(d) => {
                    let reason = format!(
                        "--backend hip: HIP device {index} ({}) is {}",
                        d.info().name,
                        d.info().target
                    );
                    Ok(Opened { device: Box::new(d), reason })
                }
                Err(DeviceError::Unavailable(why)) => Err(DeviceError::Unavailable(format!(
                    "--backend hip needs a GPU of a supported target ({}) through HIP, and there is none usable: {why}\n\
                     (`ds-harness info` shows what HIP offers; `--backend emu` runs without a GPU)",
                    hip::arch::supported_list()
                ))),
                Err(e) => Err(e),
            }
        }
    }
}

/// Opens the device `choice` names, an external one (`Exec`) with `exec`'s command line.
pub fn open_any(
    choice: BackendChoice,
    device: Option<usize>,
    target: Option<&'static Target>,
    exec: &exec::ExecArgs,
) -> Result<Opened, DeviceError> {
    if choice != BackendChoice::Exec {
        return open_with(choice, device, target);
    }
    if let Some(n) = device {
        return Err(DeviceError::BadRequest(format!(
            "--device {n} selects a HIP device of this machine; an exec device is the program \
             --device-cmd starts (give it its own device option there)"
        )));
    }
    let opts = exec.options(target).map_err(DeviceError::BadRequest)?;
    let reason = format!("--backend exec: `{}`", opts.command);
    let dev = exec::ExecDevice::start(opts)?;
    Ok(Opened {
        device: Box::new(dev),
        reason,
    })
}
