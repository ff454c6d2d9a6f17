//! What HIP offers on this machine, for `ds-harness info` and `--backend auto`: the library (or
//! every path tried), its versions, the visible devices with their arch and whether the kernels
//! can run on each, and which backend `auto` takes and why (docs/design-notes.md, "Devices"; docs/run-results.md).

use super::library::{self, NotFound};
use super::{arch, result, versions, visibility_note, visible_devices};
use crate::Backend;
use ds_isa::target::{Kind, Target};
use std::fmt;

/// The HIP runtime that loaded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LibraryReport {
    /// Path or name that loaded.
    pub path: String,
    /// Runtime and driver versions, as HIP reports them.
    pub versions: String,
    /// True for the workspace's stand-in runtime (no GPU behind it).
    pub standin: bool,
}

/// One visible HIP device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceReport {
    /// HIP's ordinal (`--device N`).
    pub index: usize,
    /// `hipDeviceGetName`, or why it failed.
    pub name: String,
    /// The gfx arch (processor name), if it could be found.
    pub arch: Option<String>,
    /// The arch's target-table row (written as its name) when it is a supported target.
    #[serde(serialize_with = "target_name")]
    pub target: Option<&'static Target>,
    /// Where the arch came from, or why it is unknown.
    pub arch_source: String,
    /// When an override makes ROCm run the device as another target than its chip's: the chip
    /// and the override.
    pub overridden: Option<super::chip::Overridden>,
    /// Can the kernels run on it?
    pub usable: bool,
    /// Why (not).
    pub why: String,
    /// Whether the runtime's release supports the device's target; `None` for a device of no
    /// supported target.
    pub runtime: Option<RuntimeReport>,
}

/// Whether the loaded runtime's release supports a device's target (see
/// [`runtime_support`](super::runtime_support)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RuntimeReport {
    /// False when the runtime is older than the target's first ROCm release, or no release is
    /// known to support it.
    pub supported: bool,
    /// Why, in words.
    pub why: String,
}

/// The `DS_HARNESS_HIP_LIB` override and its result.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OverrideReport {
    /// The variable's value.
    pub path: String,
    /// True when the library it names loaded (and is the runtime in use).
    pub loaded: bool,
    /// The loader's or the symbol check's reason, when it did not load.
    pub error: Option<String>,
}

/// What `--backend auto` takes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AutoChoice {
    /// hip or emu.
    pub backend: Backend,
    /// The HIP device, when hip.
    pub device: Option<usize>,
    /// Why, in words.
    pub reason: String,
}

/// The HIP side of the machine.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HipProbe {
    /// `DS_HARNESS_HIP_LIB`, when set: the override and whether it was honoured.
    pub override_lib: Option<OverrideReport>,
    /// The runtime, if one loaded.
    pub library: Option<LibraryReport>,
    /// When none loaded: every path tried and why it failed.
    pub not_found: Option<NotFound>,
    /// When the runtime loaded but offers no device: why, in words.
    pub no_devices: Option<String>,
    /// The HSA runtime (used to name a device's arch when KFD sysfs cannot): its path, or why
    /// it is unavailable. Loaded only when a HIP runtime is.
    pub hsa: Option<String>,
    /// `HIP_VISIBLE_DEVICES` and friends, as set.
    pub visibility: String,
    /// The visible devices.
    pub devices: Vec<DeviceReport>,
    /// What `--backend auto` takes.
    pub auto: AutoChoice,
}

fn device_report(lib: &library::HipLibrary, index: usize) -> DeviceReport {
    let ordinal = index as i32;
    let name = result::device_get(&lib.api, ordinal)
        .and_then(|d| result::device_name(&lib.api, d))
        .unwrap_or_else(|e| format!("(unnamed: {e})"));
    match arch::detect(lib, ordinal) {
        Ok(a) => {
            let target = arch::supported(&a.name);
            let why = match target {
                Ok(t) => format!(
                    "{t} is a supported target ({} {}); the code object is built for it",
                    t.family,
                    match t.kind {
                        Kind::Dgpu => "GPU",
                        Kind::Apu => "APU",
                        Kind::Generic => "generic target",
                    }
                ),
                Err(ref e) => e.clone(),
            };
            DeviceReport {
                index,
                name,
                arch: Some(a.name),
                target: target.as_ref().ok().copied(),
                arch_source: a.source,
                overridden: a.overridden,
                usable: target.is_ok(),
                why,
                runtime: target.as_ref().ok().map(|t| {
                    let (supported, why) = super::runtime_support(lib, t);
                    RuntimeReport { supported, why }
                }),
            }
        }
        Err(e) => DeviceReport {
            index,
            name,
            arch: None,
            target: None,
            arch_source: e.clone(),
            overridden: None,
            usable: false,
            why: format!("its arch is unknown ({e}), so it is not used"),
            runtime: None,
        },
    }
}

fn target_name<S: serde::Serializer>(t: &Option<&'static Target>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_some(t.name),
        None => s.serialize_none(),
    }
}

/// Looks at the HIP runtime and devices. Never fails: every problem is part of the answer.
pub fn probe() -> HipProbe {
    let visibility = visibility_note();
    let override_lib = library::hip_override().map(|path| match library::hip() {
        Ok(_) => OverrideReport {
            path,
            loaded: true,
            error: None,
        },
        Err(nf) => OverrideReport {
            path,
            loaded: false,
            error: nf.tried.first().map(|(_, why)| why.clone()),
        },
    });
    let lib = match library::hip() {
        Ok(lib) => lib,
        Err(nf) => {
            let reason = match &override_lib {
                Some(o) => format!(
                    "{}={} could not be loaded ({}), and an explicit override is never \
                     replaced by a system library or the emulated device, so auto refuses to run \
                     (exit 3)",
                    library::ENV_LIB,
                    o.path,
                    o.error.as_deref().unwrap_or("unknown reason")
                ),
                None => format!("no HIP runtime could be loaded ({} path(s) tried; see `ds-harness info`), so the emulated device is used", nf.tried.len()),
            };
            return HipProbe {
                override_lib,
                library: None,
                not_found: Some(nf.clone()),
                no_devices: None,
                hsa: None,
                visibility,
                devices: Vec::new(),
                auto: AutoChoice {
                    backend: Backend::Emu,
                    device: None,
                    reason,
                },
            };
        }
    };
    let library = Some(LibraryReport {
        path: lib.path.clone(),
        versions: versions(lib),
        standin: lib.standin_arch.is_some(),
    });
    let (devices, no_devices) = match visible_devices(lib) {
        Ok(n) => (
            (0..n).map(|i| device_report(lib, i)).collect::<Vec<_>>(),
            None,
        ),
        Err(why) => (Vec::new(), Some(why)),
    };
    let auto = match devices.iter().find(|d| d.usable) {
        Some(d) => AutoChoice {
            backend: Backend::Hip,
            device: Some(d.index),
            reason: format!(
                "HIP device {} ({}) is {}, a supported target ({})",
                d.index,
                d.name,
                d.target.map_or("unknown", |t| t.name),
                d.arch_source
            ),
        },
        None if devices.is_empty() => AutoChoice {
            backend: Backend::Emu,
            device: None,
            reason: format!(
                "the HIP runtime {} loaded but no GPU was found, so the emulated device is used",
                lib.path
            ),
        },
        None => AutoChoice {
            backend: Backend::Emu,
            device: None,
            reason: format!(
                "none of the {} HIP device(s) is a supported target ({}; supported: {}), so the \
                 emulated device is used",
                devices.len(),
                devices
                    .iter()
                    .map(|d| d.arch.clone().unwrap_or_else(|| "unknown".into()))
                    .collect::<Vec<_>>()
                    .join(", "),
                arch::supported_list()
            ),
        },
    };
    let hsa = Some(match library::hsa() {
        Ok(h) => h.path.clone(),
        Err(nf) => format!(
            "not found ({}); the arch then comes from KFD sysfs only",
            nf.tried
                .iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
    HipProbe {
        override_lib,
        library,
        not_found: None,
        no_devices,
        hsa,
        visibility,
        devices,
        auto,
    }
}

impl HipProbe {
    /// The override `DS_HARNESS_HIP_LIB` named a library that did not load: an explicit request
    /// that cannot be honoured, which every backend choice but emu must refuse.
    pub fn override_failed(&self) -> Option<&OverrideReport> {
        self.override_lib.as_ref().filter(|o| !o.loaded)
    }
}

impl fmt::Display for HipProbe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(o) = &self.override_lib {
            match &o.error {
                None => writeln!(f, "{}: {} (loaded)", library::ENV_LIB, o.path)?,
                Some(e) => writeln!(
                    f,
                    "{}: {}: NOT loaded: {e}\n  (an explicit override is never replaced by a system library; unset it to search the system's paths)",
                    library::ENV_LIB,
                    o.path
                )?,
            }
        }
        match (&self.library, &self.not_found) {
            (Some(l), _) => {
                writeln!(f, "HIP library: {} ({})", l.path, l.versions)?;
                if l.standin {
                    writeln!(f, "  this is the ds-harness stand-in runtime (emulated device), not ROCm: no GPU is involved")?;
                }
            }
            (None, Some(nf)) => {
                writeln!(f, "HIP library: not found")?;
                for line in nf.to_string().lines() {
                    writeln!(f, "  {line}")?;
                }
            }
            (None, None) => writeln!(f, "HIP library: not found")?,
        }
        if let Some(hsa) = &self.hsa {
            writeln!(f, "HSA runtime: {hsa}")?;
        }
        writeln!(f, "visibility: {}", self.visibility)?;
        if let Some(why) = &self.no_devices {
            writeln!(f, "devices: none: {why}")?;
        } else if self.library.is_some() {
            writeln!(f, "devices: {}", self.devices.len())?;
        }
        for d in &self.devices {
            writeln!(
                f,
                "  device {}: {}\n    target: {} ({}) (source: {})\n    usable: {}: {}",
                d.index,
                d.name,
                d.arch.as_deref().unwrap_or("unknown"),
                if d.target.is_some() {
                    "supported"
                } else {
                    "not supported"
                },
                d.arch_source,
                if d.usable { "yes" } else { "no" },
                d.why
            )?;
            if let Some(o) = &d.overridden {
                writeln!(
                    f,
                    "    override: {} runs this {} chip as {}; code objects are built for {}\n    \
                     chip: {} ({})",
                    o.by,
                    o.chip_name(),
                    d.arch.as_deref().unwrap_or("unknown"),
                    d.arch.as_deref().unwrap_or("unknown"),
                    o.chip_name(),
                    o.chip_source
                )?;
                if o.chip.is_none() {
                    writeln!(
                        f,
                        "    recordings: refused (`run --record` exits 2): a recording names the \
                         chip its results are of, and this chip is unknown"
                    )?;
                }
            }
            if let Some(r) = &d.runtime {
                let mark = if r.supported { "" } else { "WARNING: " };
                writeln!(f, "    runtime: {mark}{}", r.why)?;
            }
        }
        let which = match self.auto.device {
            _ if self.override_failed().is_some() => "refused".to_string(),
            Some(i) => format!("{} device {i}", self.auto.backend),
            None => self.auto.backend.to_string(),
        };
        write!(f, "--backend auto: {which}: {}", self.auto.reason)
    }
}
