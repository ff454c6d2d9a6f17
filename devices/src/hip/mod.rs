//! The hip device: runs the kernels on a GPU of a supported target through the HIP runtime, loaded at run time
//! (docs/design-notes.md, "Devices"; HIP module API as declared in ROCm's hip_runtime_api.h).
//!
//! Layers in the cudarc style: [`sys`] raw declarations, [`result`] checked calls carrying HIP's
//! error name and string, [`safe`] owning types; [`library`] finds `libamdhip64`, [`arch`] names
//! the device's arch without `hipDeviceProp_t`, [`probe`] answers `ds-harness info` and
//! `--backend auto`.
//!
//! Device numbering: `--device N` is HIP's own ordinal, i.e. the N-th device HIP makes visible.
//! HIP applies `HIP_VISIBLE_DEVICES` (and ROCR's `ROCR_VISIBLE_DEVICES`) itself; this module never
//! reads, sets or re-maps them, it only quotes them in messages.

pub mod arch;
pub mod chip;
pub mod crumb;
pub mod library;
pub mod probe;
pub mod result;
pub mod safe;
pub mod sys;

pub use probe::{probe, HipProbe};

use super::{Backend, Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_isa::target::Target;
use library::HipLibrary;
use result::HipError;
use safe::{DeviceBuffer, Event, Module, Stream};
use std::time::{Duration, Instant};

/// Environment variable: the longest a launch may run, in seconds (default [`DEFAULT_TIMEOUT`]).
pub const ENV_TIMEOUT: &str = "DS_HARNESS_HIP_TIMEOUT";
/// The detail of a hip device's info naming its chip, when an override makes ROCm run it as
/// another target (the device's `target`): the chip's processor name, or
/// [`chip::UNKNOWN_CHIP`] when it could not be read.
pub const CHIP_DETAIL: &str = "chip";
/// The detail saying where the chip's name came from (its KFD node), or why it is unknown.
pub const CHIP_SOURCE_DETAIL: &str = "chip_source";
/// The detail of a hip device's info naming the override (`HSA_OVERRIDE_GFX_VERSION=...`).
pub const OVERRIDE_DETAIL: &str = "override";
/// The detail of a hip device's info that says whether its runtime supports its target.
pub const RUNTIME_SUPPORT_DETAIL: &str = "runtime_support";
/// Set once a kernel of this process hung on a HIP device: see [`runtime_hung`].
static HUNG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True once a kernel hung on a HIP device of this process. The HIP runtime's teardown at process
/// exit then waits for that kernel, so the process must end without it (the command line flushes
/// its output and calls `_exit`); the amdgpu driver reclaims the process's queues when it ends.
pub fn runtime_hung() -> bool {
    HUNG.load(std::sync::atomic::Ordering::SeqCst)
}

/// How long one launch may run before it is declared hung.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// `50221153` -> `"5.2.21153"` (HIP_VERSION = major * 10^7 + minor * 10^5 + patch).
pub fn version_string(v: i32) -> String {
    format!("{}.{}.{}", v / 10_000_000, (v / 100_000) % 100, v % 100_000)
}

/// What `HIP_VISIBLE_DEVICES` / `ROCR_VISIBLE_DEVICES` are, for messages.
pub fn visibility_note() -> String {
    let mut notes = Vec::new();
    for var in [
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
    ] {
        if let Ok(v) = std::env::var(var) {
            notes.push(format!("{var}={v:?}"));
        }
    }
    if notes.is_empty() {
        "no *_VISIBLE_DEVICES variable is set".to_string()
    } else {
        format!(
            "{} (HIP hides the devices these leave out)",
            notes.join(", ")
        )
    }
}

/// Why HIP sees no device, with what to check.
fn no_gpu_hint() -> String {
    let kfd = std::path::Path::new("/dev/kfd");
    let dev = if !kfd.exists() {
        "/dev/kfd does not exist: the amdgpu kernel driver is not loaded, or this container was \
         started without `--device=/dev/kfd --device=/dev/dri`"
            .to_string()
    } else if std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(kfd)
        .is_err()
    {
        "/dev/kfd exists but this user cannot open it read-write: add the user to the `render` \
         and `video` groups"
            .to_string()
    } else {
        "/dev/kfd is present and accessible".to_string()
    };
    format!("{dev}; {}", visibility_note())
}

/// The library's versions as `"HIP runtime 5.2.21153, driver 5.2.21153"`.
pub fn versions(lib: &HipLibrary) -> String {
    let show = |r: Result<i32, HipError>| match r {
        Ok(v) => version_string(v),
        Err(e) => format!("unknown ({e})"),
    };
    format!(
        "HIP runtime {}, driver {}",
        show(result::runtime_version(&lib.api)),
        show(result::driver_version(&lib.api))
    )
}

/// Whether the loaded runtime's release is one that loads code objects for `target`, in words:
/// `(true, ..)` when it is (or nothing says otherwise), `(false, why)` when the runtime is older
/// than the first ROCm release of the target (the target table's `rocm_since`) or no release is
/// known to support it. Advice only: the runtime's own answer to a load decides.
pub fn runtime_support(lib: &HipLibrary, target: &Target) -> (bool, String) {
    let v = match result::runtime_version(&lib.api) {
        Ok(v) => v,
        Err(e) => return (true, format!("the runtime's version is unknown ({e})")),
    };
    let have = (v / 10_000_000, (v / 100_000) % 100);
    let runtime = format!("HIP runtime {}", version_string(v));
    match target.rocm_since {
        Some((major, minor)) if have >= (major as i32, minor as i32) => (
            true,
            format!("{runtime} supports {target} (ROCm {major}.{minor} and later)"),
        ),
        Some((major, minor)) => (
            false,
            format!(
                "{runtime} is older than ROCm {major}.{minor}, the first release that supports \
                 {target}: it is unlikely to load the kernels; install ROCm {major}.{minor} or \
                 later (the newest installed runtime is taken first; {} picks one)",
                library::ENV_LIB
            ),
        ),
        None => (
            false,
            match target.runs_as_hint() {
                Some((runs_as, version, source)) => format!(
                    "no ROCm release supports {target} ({runtime}); its users run it as {runs_as} \
                     with {}={version} ({source}): ROCm then runs the chip as {runs_as}, and the \
                     harness builds {runs_as} code objects and names the chip",
                    chip::ENV_OVERRIDE
                ),
                None => format!(
                    "no ROCm release is known to this harness to support {target} ({runtime}); \
                     if the runtime refuses the code object, a newer ROCm is needed"
                ),
            },
        ),
    }
}

/// `hipInit` then `hipGetDeviceCount`: the number of visible devices, or why there are none
/// (naming the library, its version and both calls' answers).
pub fn visible_devices(lib: &HipLibrary) -> Result<usize, String> {
    let init = result::init(&lib.api).err();
    let count = result::device_count(&lib.api);
    match (&init, count) {
        (None, Ok(n)) if n > 0 => Ok(n as usize),
        (_, count) => {
            let mut why = Vec::new();
            if let Some(e) = &init {
                why.push(e.to_string());
            }
            match count {
                Ok(n) => why.push(format!("hipGetDeviceCount returned {n} device(s)")),
                Err(e) => why.push(e.to_string()),
            }
            Err(format!(
                "the HIP runtime {} ({}) loaded, but no GPU was found: {}. {}",
                lib.path,
                versions(lib),
                why.join("; "),
                no_gpu_hint()
            ))
        }
    }
}

fn unavailable(lib: &HipLibrary, e: HipError, doing: &str) -> DeviceError {
    DeviceError::Unavailable(format!("{doing} with the HIP runtime {}: {e}", lib.path))
}

/// One loaded code object: the module, and the image it was loaded from (kept alive with it).
#[derive(Debug)]
struct Loaded {
    module: Module,
    _image: Vec<u8>,
}

/// A GPU of a supported target through HIP.
#[derive(Debug)]
pub struct HipDevice {
    lib: &'static HipLibrary,
    ordinal: i32,
    info: DeviceInfo,
    stream: Option<Stream>,
    event: Option<Event>,
    modules: Vec<Loaded>,
    timeout: Duration,
    launches: usize,
    /// Set when a kernel timed out: the device's HIP objects were leaked and it refuses more work.
    hung: Option<String>,
}

/// The launch timeout from [`ENV_TIMEOUT`], or the default.
pub fn timeout_from_env() -> Result<Duration, String> {
    match std::env::var(ENV_TIMEOUT) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| *v > 0.0 && *v <= crate::exec::MAX_TIMEOUT_SECS)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                format!(
                    "{ENV_TIMEOUT}={s:?} is not a number of seconds from 0 (exclusive) to {} (a \
                     week)",
                    crate::exec::MAX_TIMEOUT_SECS
                )
            }),
    }
}

/// Opens HIP device `index` (HIP's ordinal among the visible devices) for running the kernels:
/// loads the runtime, checks that the device exists and is a supported target (and the target
/// `want` asks for, if any), and makes a stream. The device's target is the one the code objects
/// it loads must be built for.
pub fn open(index: usize, want: Option<&'static Target>) -> Result<HipDevice, DeviceError> {
    let timeout = timeout_from_env().map_err(DeviceError::BadRequest)?;
    let lib =
        library::hip().map_err(|nf| DeviceError::Unavailable(format!("no HIP runtime: {nf}")))?;
    let count = visible_devices(lib).map_err(DeviceError::Unavailable)?;
    if index >= count {
        return Err(DeviceError::Unavailable(format!(
            "device {index} was asked for, but the HIP runtime {} sees {count} device(s), numbered \
             0 to {}; {}",
            lib.path,
            count - 1,
            visibility_note()
        )));
    }
    let ordinal = index as i32;
    result::set_device(&lib.api, ordinal)
        .map_err(|e| unavailable(lib, e, "selecting the device"))?;
    let handle = result::device_get(&lib.api, ordinal)
        .map_err(|e| unavailable(lib, e, "getting the device"))?;
    let name = result::device_name(&lib.api, handle)
        .map_err(|e| unavailable(lib, e, "naming the device"))?;
    let arch = arch::detect(lib, ordinal).map_err(|e| {
        DeviceError::Unavailable(format!(
            "device {index} ({name}): {e}; without its target the code object cannot be built \
             for it, so it is not used"
        ))
    })?;
    let target = arch::supported(&arch.name).map_err(|e| {
        DeviceError::Unavailable(format!(
            "device {index} ({name}) is {} (from {}): {e}, and a code object loads only on its \
             exact target. Pick a supported device with --device N ({})",
            arch.name,
            arch.source,
            visibility_note()
        ))
    })?;
    if let Some(want) = want.filter(|w| *w != target) {
        return Err(DeviceError::Unavailable(arch::refuse_target(
            want,
            index,
            &name,
            target,
            &arch,
            &visibility_note(),
        )));
    }
    crumb::install();
    let stream = Stream::new(&lib.api).map_err(|e| unavailable(lib, e, "creating a stream"))?;
    let event = Event::new(&lib.api).map_err(|e| unavailable(lib, e, "creating an event"))?;
    let standin = lib.standin_arch.is_some();
    let (ok, support) = runtime_support(lib, target);
    let support = if ok {
        support
    } else {
        format!("WARNING: {support}")
    };
    let mut details = vec![
        ("library".to_string(), lib.path.clone()),
        ("versions".to_string(), versions(lib)),
        (RUNTIME_SUPPORT_DETAIL.to_string(), support),
        ("device_index".to_string(), index.to_string()),
        ("arch_source".to_string(), arch.source.clone()),
        ("visibility".to_string(), visibility_note()),
        (
            "provenance".to_string(),
            if standin {
                "stand-in runtime (emulated device), not a GPU"
            } else {
                "GPU"
            }
            .to_string(),
        ),
    ];
    if let Ok(pci) = arch::pci_of(lib, ordinal) {
        details.push(("pci".to_string(), pci.to_string()));
    }
    if let Some(o) = &arch.overridden {
        details.push((CHIP_DETAIL.to_string(), o.chip_name().to_string()));
        details.push((CHIP_SOURCE_DETAIL.to_string(), o.chip_source.clone()));
        details.push((OVERRIDE_DETAIL.to_string(), o.by.clone()));
    }
    Ok(HipDevice {
        lib,
        ordinal,
        info: DeviceInfo {
            backend: Backend::Hip,
            name,
            target,
            details,
        },
        stream: Some(stream),
        event: Some(event),
        modules: Vec::new(),
        timeout,
        launches: 0,
        hung: None,
    })
}

/// HIP's refusal of a code object, in words, when the code object is built for another target
/// than the device's: ROCm's loader takes only a code object of the device's exact ISA (the
/// `e_flags` machine) and answers `hipErrorNoBinaryForGpu` otherwise.
fn load_hint(image: &[u8], device: &Target, code: i32) -> String {
    let built_for = ds_kernels::code_object::read(image)
        .ok()
        .map(|co| co.target);
    match built_for {
        Some(t) if t != device => format!(
            ".\nThe code object is built for {t} (e_flags machine {:#x}) and the device is {device} \
             (machine {:#x}): ROCm loads a code object only on its exact target. Build it for \
             {device} (`--target {device}`, or leave --target out so the device's own target is \
             used)",
            t.machine, device.machine
        ),
        _ if code == sys::hipErrorNoBinaryForGpu as i32 => format!(
            ".\nThe runtime could not load this code object, though it is built for the device's \
             own target ({device}, code object v5): a ROCm release that does not know the target \
             or the code object version answers this way. Next step: run again with \
             AMD_LOG_LEVEL=3 to see the loader's own reason, and see `ds-harness info` for \
             whether this runtime supports {device}"
        ),
        _ => String::new(),
    }
}

impl HipDevice {
    /// Changes how long one launch may run before it is declared hung.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    fn launch_error(&self, launch: &Launch, e: impl std::fmt::Display) -> DeviceError {
        DeviceError::Launch(format!(
            "kernel {} on device {} ({}): {e}",
            launch.kernel, self.ordinal, self.info.name
        ))
    }

    /// Waits for the launch's event, polling, for at most the timeout.
    fn wait(&self, launch: &Launch, started: Instant) -> Result<bool, DeviceError> {
        let event = self.event.as_ref().expect("event present while not hung");
        let mut pause = Duration::from_micros(20);
        loop {
            match event.is_done() {
                Ok(true) => return Ok(true),
                Ok(false) if started.elapsed() >= self.timeout => return Ok(false),
                Ok(false) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(2));
                }
                Err(e) => {
                    return Err(
                        self.launch_error(launch, format!("the kernel failed on the device: {e}"))
                    )
                }
            }
        }
    }

    /// After a hang nothing may be freed (hipFree, hipModuleUnload and hipStreamDestroy wait for
    /// the hung kernel): leak every HIP object and refuse further work.
    fn abandon(&mut self, buffers: Vec<DeviceBuffer>, what: String) {
        std::mem::forget(buffers);
        std::mem::forget(self.stream.take());
        std::mem::forget(self.event.take());
        std::mem::forget(std::mem::take(&mut self.modules));
        self.hung = Some(what);
        HUNG.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Device for HipDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        if let Some(h) = &self.hung {
            return Err(DeviceError::Load(format!(
                "the device is unusable after an earlier hang: {h}"
            )));
        }
        result::set_device(&self.lib.api, self.ordinal)
            .map_err(|e| DeviceError::Load(e.to_string()))?;
        let image = code_object.to_vec();
        let module = Module::load(&self.lib.api, &image).map_err(|e| {
            DeviceError::Load(format!(
                "the HIP runtime {} rejected the {}-byte code object on device {} ({}, {}): {e}{}",
                self.lib.path,
                image.len(),
                self.ordinal,
                self.info.name,
                self.info.target,
                load_hint(&image, self.info.target, e.code)
            ))
        })?;
        self.modules.push(Loaded {
            module,
            _image: image,
        });
        Ok(ModuleId(self.modules.len() - 1))
    }

    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        if let Some(h) = &self.hung {
            return Err(self.launch_error(
                launch,
                format!("the device is unusable after an earlier hang: {h}"),
            ));
        }
        let api = &self.lib.api;
        result::set_device(api, self.ordinal).map_err(|e| self.launch_error(launch, e))?;
        let n_modules = self.modules.len();
        let loaded = self.modules.get_mut(module.0).ok_or_else(|| {
            DeviceError::Launch(format!(
                "module {} was never loaded ({n_modules} loaded)",
                module.0
            ))
        })?;
        let function = loaded.module.function(&launch.kernel).map_err(|e| {
            DeviceError::Launch(format!(
                "kernel {} not found in module {}: {e}",
                launch.kernel, module.0
            ))
        })?;
        let mut buffers = Vec::with_capacity(launch.buffers.len());
        for b in &launch.buffers {
            let mut d = DeviceBuffer::alloc(api, b.bytes.len()).map_err(|e| {
                self.launch_error(
                    launch,
                    format!("allocating {} ({} bytes): {e}", b.name, b.bytes.len()),
                )
            })?;
            d.upload(&b.bytes).map_err(|e| {
                self.launch_error(launch, format!("copying {} to the device: {e}", b.name))
            })?;
            buffers.push(d);
        }
        let mut args = result::Kernargs {
            words: buffers.iter().map(DeviceBuffer::address).collect(),
        };
        debug_assert_eq!(args.words.len() * 8, launch.kernarg_size());
        let context = crumb::context();
        crumb::leave(&format!(
            "kernel {} ({} workgroups x {} lanes) on HIP device {} ({}, {}){}{}",
            launch.kernel,
            launch.workgroups,
            launch.workgroup_size,
            self.ordinal,
            self.info.name,
            self.info.target,
            if context.is_empty() { "" } else { ": " },
            context
        ));
        let started = Instant::now();
        if launch.workgroups > 0 {
            let stream = self.stream.as_ref().expect("stream present while not hung");
            // SAFETY: the function, stream and every buffer are live; the kernarg segment holds
            // exactly one address per buffer, as the kernel ABI requires (kernels/src/launch.rs).
            unsafe {
                result::module_launch_kernel(
                    api,
                    function,
                    launch.workgroups,
                    launch.workgroup_size,
                    stream.raw(),
                    &mut args,
                )
            }
            .map_err(|e| self.launch_error(launch, e))?;
            let event = self.event.as_ref().expect("event present while not hung");
            event
                .record(stream)
                .map_err(|e| self.launch_error(launch, e))?;
            if !self.wait(launch, started)? {
                let what = format!(
                    "kernel {} ({} workgroups x {} lanes) did not finish within {:.1} s on device {} ({})",
                    launch.kernel,
                    launch.workgroups,
                    launch.workgroup_size,
                    self.timeout.as_secs_f64(),
                    self.ordinal,
                    self.info.name
                );
                let done = self.launches;
                self.abandon(buffers, what.clone());
                return Err(DeviceError::Timeout(format!(
                    "{what}. The results of the {done} earlier launch(es) on this device are kept; \
                     this launch's results are lost, and its device memory, stream and modules are \
                     left allocated because freeing them would wait for the hung kernel. Raise the \
                     limit with {ENV_TIMEOUT}=<seconds> if the kernel is merely slow. ds-harness \
                     ends without the HIP runtime's teardown (which would wait for the kernel); \
                     the amdgpu driver reclaims the process's queues when it exits (resetting \
                     the GPU if the queue cannot be preempted). If the GPU still shows busy \
                     afterwards (`amd-smi monitor`), `sudo cat \
                     /sys/kernel/debug/dri/<N>/amdgpu_gpu_recover` resets it."
                )));
            }
        }
        for (b, d) in launch.buffers.iter_mut().zip(&buffers) {
            if b.copy_back {
                d.download(&mut b.bytes).map_err(|e| {
                    DeviceError::Launch(format!("copying {} back from the device: {e}", b.name))
                })?;
            }
        }
        for d in buffers {
            d.close()
                .map_err(|e| self.launch_error(launch, format!("freeing a buffer: {e}")))?;
        }
        self.launches += 1;
        Ok(())
    }
}

impl Drop for HipDevice {
    fn drop(&mut self) {
        if self.hung.is_some() {
            return; // everything was already leaked on purpose
        }
        // Unload explicitly so a failure is reported; the stream and event are destroyed by their
        // own drops afterwards (nothing is pending on them: every launch was waited for).
        for m in self.modules.drain(..) {
            if let Err(e) = m.module.close() {
                eprintln!("warning: unloading a HIP module failed: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hip_versions_decode_major_minor_patch() {
        assert_eq!(version_string(50_221_153), "5.2.21153");
        assert_eq!(version_string(60_443_483), "6.4.43483");
        assert_eq!(version_string(70_000_000), "7.0.0");
    }

    #[test]
    fn the_timeout_is_seconds_and_refuses_nonsense() {
        // Only this test touches the variable in this binary.
        std::env::set_var(ENV_TIMEOUT, "0.25");
        assert_eq!(timeout_from_env(), Ok(Duration::from_millis(250)));
        for bad in ["0", "-1", "soon", "inf", "1e300"] {
            std::env::set_var(ENV_TIMEOUT, bad);
            assert!(
                timeout_from_env()
                    .unwrap_err()
                    .contains("is not a number of seconds from 0 (exclusive) to"),
                "{bad}"
            );
        }
        std::env::remove_var(ENV_TIMEOUT);
        assert_eq!(timeout_from_env(), Ok(DEFAULT_TIMEOUT));
    }
}
