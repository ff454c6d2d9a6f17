//! The stand-in runtime's state: its two pretend devices, allocations, modules, functions,
//! streams and events, each behind a handle checked on every use (an unknown handle is an error
//! code, as in HIP, never a crash), and the launch itself on the emulated device.
//!
//! Launch semantics follow ROCm's `hipModuleLaunchKernel` (hip_module.cpp, ROCm 5.2 and later):
//! `extra` must be exactly `{BUFFER_POINTER, args, BUFFER_SIZE, &size, END}`; the runtime copies
//! each argument the code object's metadata (`.args`: offset, size) declares from `args`, and only
//! if it lies inside `size`; grid and block dimensions must be non-zero.

use ds_devices::emu::{EmuDevice, WrongEntry};
use ds_devices::hip::sys::{self, hipError_t};
use ds_devices::{Buffer, Device, Launch, ModuleId};
use ds_isa::target::{self, Target};
use ds_kernels::code_object::{self, CodeObject};
use std::collections::{BTreeMap, HashMap};
use std::ffi::CStr;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The arch of the decoy device: an RDNA 2 processor the target table does not hold, so the
/// harness's refusal of unsupported devices can be tested.
pub const DECOY_ARCH: &str = "gfx803";

/// One physical stand-in device: the arch it claims and its name.
pub struct Physical {
    /// The arch name ROCm gives the chip (a target of the table, or the decoy's): the row of
    /// its KFD version, as ROCR-Runtime names an agent from it.
    pub arch: &'static str,
    /// What `hipDeviceGetName` answers.
    pub name: String,
    /// The chip's row, whose KFD version the simulated topology reports (`None` for the decoy).
    pub target: Option<&'static Target>,
}

/// The physical stand-in devices: device 0 of the default target, device 1 the decoy (claims an
/// arch the kernels are not built for), then one device of every other target of the table, so
/// runs on each target and `HIP_VISIBLE_DEVICES` reordering can be tested. A chip whose KFD
/// version is an earlier row's (amdkfd reports the Raven Ridge 2 with the Raven Ridge's) claims
/// that row's arch, as ROCm names it: no ROCm device is ever the later row.
pub fn physical() -> &'static [Physical] {
    static DEVICES: OnceLock<Vec<Physical>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let emulated = |t: &'static Target| {
            let arch = Target::by_kfd_version(t.kfd_version).unwrap_or(t);
            let name = if arch == t {
                format!("ds-harness stand-in HIP device (emulated {t}, not a GPU)")
            } else {
                format!(
                    "ds-harness stand-in HIP device (emulated {t}, which ROCm runs as {arch}: \
                     its KFD version is {arch}'s; not a GPU)"
                )
            };
            Physical {
                arch: arch.name,
                name,
                target: Some(t),
            }
        };
        let mut v = vec![
            emulated(target::DEFAULT),
            Physical {
                arch: DECOY_ARCH,
                name: format!(
                    "ds-harness stand-in HIP device (claims {DECOY_ARCH} to test arch refusal, not a GPU)"
                ),
                target: None,
            },
        ];
        v.extend(
            target::TARGETS
                .iter()
                .filter(|t| *t != target::DEFAULT)
                .map(emulated),
        );
        v
    })
}

/// Test-only: launches never complete (events recorded after the first such launch stay
/// not-ready), to test the harness's bounded wait. `1` hangs every launch; any other value
/// hangs the launches of kernels whose names start with it (`ds_`: the ops' kernels, not the
/// canary that runs first).
pub const ENV_HANG: &str = "DS_HIP_STANDIN_HANG";

/// Test-only: when set to 1, every launch's results are damaged (the low bit of the first LDS
/// byte the kernel dumps is flipped), so the harness's disagreement path (exit 1) can be driven
/// from the command line.
pub const ENV_FLIP: &str = "DS_HIP_STANDIN_FLIP";

/// Test-only: a launch ends the process as ROCm does on a GPU memory fault: a line on stderr,
/// then `abort()`. `1` for every launch; any other value for the launches of kernels whose names
/// start with it (as [`ENV_HANG`]).
pub const ENV_FAULT: &str = "DS_HIP_STANDIN_FAULT";

/// Test-only: the emulated devices behind the stand-in hand kernels a wrong entry state, so the
/// canary can be seen to catch it: `workgroup-id` gives every workgroup id 0, `wave` runs only
/// lanes 0..31 of a wave64 workgroup (`ds_devices::emu::WrongEntry`). Another value makes every
/// `hipModuleLoadData` fail, naming the values it takes.
pub const ENV_WRONG_ENTRY: &str = "DS_HIP_STANDIN_WRONG_ENTRY";

/// Which launches a kernel-name knob ([`ENV_HANG`], [`ENV_FAULT`]) applies to: `None` when it is
/// unset (or empty or `0`), `Some("")` for `1` (every launch), else the name prefix.
pub fn launch_knob(var: &str) -> Option<String> {
    match std::env::var(var).ok()?.as_str() {
        "" | "0" => None,
        "1" => Some(String::new()),
        prefix => Some(prefix.to_string()),
    }
}

/// What HIP names each code the stand-in returns (`hipGetErrorName`), and a sentence for it
/// (`hipGetErrorString`).
pub const ERRORS: [(hipError_t, &CStr, &CStr); 14] = [
    (sys::hipSuccess, c"hipSuccess", c"no error"),
    (
        sys::hipErrorInvalidValue,
        c"hipErrorInvalidValue",
        c"invalid argument",
    ),
    (
        sys::hipErrorOutOfMemory,
        c"hipErrorOutOfMemory",
        c"out of memory",
    ),
    (
        sys::hipErrorNotInitialized,
        c"hipErrorNotInitialized",
        c"initialization error",
    ),
    (
        sys::hipErrorNoDevice,
        c"hipErrorNoDevice",
        c"no ROCm-capable device is detected",
    ),
    (
        sys::hipErrorInvalidDevice,
        c"hipErrorInvalidDevice",
        c"invalid device ordinal",
    ),
    (
        sys::hipErrorInvalidImage,
        c"hipErrorInvalidImage",
        c"device kernel image is invalid",
    ),
    (
        sys::hipErrorNoBinaryForGpu,
        c"hipErrorNoBinaryForGpu",
        c"no kernel image is available for execution on the device",
    ),
    (
        sys::hipErrorInvalidHandle,
        c"hipErrorInvalidHandle",
        c"invalid resource handle",
    ),
    (
        sys::hipErrorNotFound,
        c"hipErrorNotFound",
        c"named symbol not found",
    ),
    (
        sys::hipErrorNotReady,
        c"hipErrorNotReady",
        c"device not ready",
    ),
    (
        sys::hipErrorIllegalAddress,
        c"hipErrorIllegalAddress",
        c"an illegal memory access was encountered",
    ),
    (
        sys::hipErrorLaunchFailure,
        c"hipErrorLaunchFailure",
        c"unspecified launch failure",
    ),
    (
        sys::hipErrorNotSupported,
        c"hipErrorNotSupported",
        c"operation not supported",
    ),
];

/// `(name, sentence)` for `code`; `hipErrorUnknown` for codes the stand-in never returns.
pub fn error_entry(code: hipError_t) -> (&'static CStr, &'static CStr) {
    ERRORS
        .iter()
        .find(|e| e.0 == code)
        .map_or((c"hipErrorUnknown", c"unknown error"), |e| (e.1, e.2))
}

/// HIP's name for `code`.
pub fn error_name(code: hipError_t) -> &'static str {
    error_entry(code).0.to_str().expect("ASCII names")
}

/// Says why an error code is returned (on stderr: the stand-in has no other channel) and returns it.
pub fn fail(code: hipError_t, why: impl std::fmt::Display) -> hipError_t {
    eprintln!("ds-hip-standin: {}: {why}", error_name(code));
    code
}

struct ModuleEntry {
    device: usize,
    id: ModuleId,
    co: CodeObject,
}

struct EventEntry {
    /// The error of the work before the record, if it failed.
    error: Option<hipError_t>,
    /// Recorded after a launch that never completes (hang mode).
    hung: bool,
}

/// Everything the stand-in owns.
pub struct State {
    /// The emulated device behind each physical device that has loaded a module.
    emus: HashMap<usize, EmuDevice>,
    /// Visible devices (indices into [`physical`]), after `HIP_VISIBLE_DEVICES`.
    pub visible: Vec<usize>,
    /// Base address -> contents.
    allocs: BTreeMap<u64, Vec<u8>>,
    next_addr: u64,
    modules: HashMap<u64, ModuleEntry>,
    functions: HashMap<u64, (u64, String)>,
    /// Stream -> the error of its last launch, if any.
    streams: HashMap<u64, Option<hipError_t>>,
    events: HashMap<u64, EventEntry>,
    next_handle: u64,
    /// The kernel-name prefix whose launches hang ([`ENV_HANG`]).
    hang: Option<String>,
    /// A launch hung: every event recorded since stays not-ready.
    hung: bool,
    flip: bool,
}

/// `HIP_VISIBLE_DEVICES` as HIP reads it: comma-separated ordinals; parsing stops at the first
/// entry that is not a valid ordinal.
pub fn visible_from(var: Option<&str>, physical: usize) -> Vec<usize> {
    let Some(v) = var else {
        return (0..physical).collect();
    };
    let mut out = Vec::new();
    for part in v.split(',') {
        match part.trim().parse::<usize>() {
            Ok(i) if i < physical && !out.contains(&i) => out.push(i),
            _ => break,
        }
    }
    out
}

/// The process's state.
pub fn state() -> MutexGuard<'static, State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            Mutex::new(State {
                emus: HashMap::new(),
                visible: visible_from(
                    std::env::var("HIP_VISIBLE_DEVICES").ok().as_deref(),
                    physical().len(),
                ),
                allocs: BTreeMap::new(),
                next_addr: 0x7f00_0000_0000,
                modules: HashMap::new(),
                functions: HashMap::new(),
                streams: HashMap::new(),
                events: HashMap::new(),
                next_handle: 0x5eed_0000,
                hang: launch_knob(ENV_HANG),
                hung: false,
                flip: std::env::var(ENV_FLIP).is_ok_and(|v| v == "1"),
            })
        })
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl State {
    fn handle(&mut self) -> u64 {
        self.next_handle += 0x10;
        self.next_handle
    }

    /// The physical device behind visible ordinal `ordinal`.
    pub fn physical(&self, ordinal: i32) -> Option<usize> {
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.visible.get(i).copied())
    }

    /// A new allocation of `len` bytes (zeroed); its base address.
    pub fn malloc(&mut self, len: usize) -> u64 {
        let base = self.next_addr;
        self.next_addr += (len as u64).div_ceil(0x1000) * 0x1000 + 0x1000; // a guard gap
        self.allocs.insert(base, vec![0; len]);
        base
    }

    /// Frees the allocation at exactly `base`.
    pub fn free(&mut self, base: u64) -> hipError_t {
        match self.allocs.remove(&base) {
            Some(_) => sys::hipSuccess,
            None => fail(
                sys::hipErrorInvalidValue,
                format!("hipFree({base:#x}): not an allocation's base address"),
            ),
        }
    }

    /// The allocation holding `[addr, addr + len)`, and the offset of `addr` in it.
    pub fn find(&mut self, addr: u64, len: usize) -> Option<(&mut Vec<u8>, usize)> {
        let (&base, bytes) = self.allocs.range_mut(..=addr).next_back()?;
        let off = (addr - base) as usize;
        (off + len <= bytes.len()).then_some((bytes, off))
    }

    /// Loads a code object on the current device.
    pub fn load(&mut self, device: usize, image: &[u8]) -> Result<u64, hipError_t> {
        let dev = &physical()[device];
        let co = code_object::read(image)
            .map_err(|e| fail(sys::hipErrorInvalidImage, format!("hipModuleLoadData: {e}")))?;
        // ROCm's loader takes a code object only for the device's exact ISA (the e_flags
        // machine), and answers hipErrorNoBinaryForGpu otherwise.
        // ROCm runs the device as the target it reports (HSA_OVERRIDE_GFX_VERSION applied).
        let runs_as = crate::topology::runs_as(dev.arch);
        let Some(target) = runs_as.filter(|t| *t == co.target) else {
            return Err(fail(
                sys::hipErrorNoBinaryForGpu,
                format!(
                    "hipModuleLoadData: the code object is for {}, the device is {}",
                    co.target.hsa_target_id(),
                    dev.arch
                ),
            ));
        };
        // A runtime older than the target's first ROCm release (simulated with
        // DS_HIP_STANDIN_VERSION) knows no such ISA and answers as ROCm does.
        let v = crate::version();
        let have = ((v / 10_000_000) as u32, ((v / 100_000) % 100) as u32);
        let simulated = std::env::var_os(crate::ENV_VERSION).is_some();
        if simulated && !matches!(target.rocm_since, Some(since) if have >= since) {
            return Err(fail(
                sys::hipErrorNoBinaryForGpu,
                format!(
                    "hipModuleLoadData: this runtime (simulated version {v}) knows no {} ISA",
                    target.hsa_target_id()
                ),
            ));
        }
        let wrong = match std::env::var(ENV_WRONG_ENTRY) {
            Err(_) => None,
            Ok(v) => Some(WrongEntry::parse(&v).ok_or_else(|| {
                fail(
                    sys::hipErrorInvalidValue,
                    format!(
                        "hipModuleLoadData: {ENV_WRONG_ENTRY}={v:?} is none of {}",
                        WrongEntry::NAMES.join(", ")
                    ),
                )
            })?),
        };
        let id = self
            .emus
            .entry(device)
            .or_insert_with(|| {
                let emu = EmuDevice::for_target(target);
                match wrong {
                    Some(w) => emu.with_wrong_entry(w),
                    None => emu,
                }
            })
            .load(image)
            .map_err(|e| fail(sys::hipErrorInvalidImage, format!("hipModuleLoadData: {e}")))?;
        let h = self.handle();
        self.modules.insert(h, ModuleEntry { device, id, co });
        Ok(h)
    }

    /// Unloads a module (and forgets its functions).
    pub fn unload(&mut self, module: u64) -> hipError_t {
        if self.modules.remove(&module).is_none() {
            return fail(
                sys::hipErrorInvalidHandle,
                format!("hipModuleUnload({module:#x}): not a loaded module"),
            );
        }
        self.functions.retain(|_, (m, _)| *m != module);
        sys::hipSuccess
    }

    /// The function `name` of `module`.
    pub fn function(&mut self, module: u64, name: &str) -> Result<u64, hipError_t> {
        let Some(m) = self.modules.get(&module) else {
            return Err(fail(
                sys::hipErrorInvalidHandle,
                format!("hipModuleGetFunction({module:#x}): not a loaded module"),
            ));
        };
        if m.co.kernel(name).is_none() {
            return Err(fail(
                sys::hipErrorNotFound,
                format!("hipModuleGetFunction: no kernel {name:?} in the module"),
            ));
        }
        let h = self.handle();
        self.functions.insert(h, (module, name.to_string()));
        Ok(h)
    }

    /// A new stream.
    pub fn stream_create(&mut self) -> u64 {
        let h = self.handle();
        self.streams.insert(h, None);
        h
    }

    /// Destroys a stream.
    pub fn stream_destroy(&mut self, s: u64) -> hipError_t {
        match self.streams.remove(&s) {
            Some(_) => sys::hipSuccess,
            None => fail(
                sys::hipErrorInvalidHandle,
                format!("hipStreamDestroy({s:#x}): not a stream"),
            ),
        }
    }

    /// Whether `s` is a stream (0 is the null stream).
    pub fn is_stream(&self, s: u64) -> bool {
        s == 0 || self.streams.contains_key(&s)
    }

    /// A new event.
    pub fn event_create(&mut self) -> u64 {
        let h = self.handle();
        self.events.insert(
            h,
            EventEntry {
                error: None,
                hung: false,
            },
        );
        h
    }

    /// Records `e` on `s`: it completes when the stream's work so far did.
    pub fn event_record(&mut self, e: u64, s: u64) -> hipError_t {
        if !self.is_stream(s) {
            return fail(
                sys::hipErrorInvalidHandle,
                format!("hipEventRecord: {s:#x} is not a stream"),
            );
        }
        let error = self.streams.get(&s).copied().flatten();
        let hang = self.hung;
        match self.events.get_mut(&e) {
            Some(ev) => {
                *ev = EventEntry { error, hung: hang };
                sys::hipSuccess
            }
            None => fail(
                sys::hipErrorInvalidHandle,
                format!("hipEventRecord({e:#x}): not an event"),
            ),
        }
    }

    /// Queries `e`.
    pub fn event_query(&self, e: u64) -> hipError_t {
        match self.events.get(&e) {
            None => fail(
                sys::hipErrorInvalidHandle,
                format!("hipEventQuery({e:#x}): not an event"),
            ),
            Some(ev) if ev.hung => sys::hipErrorNotReady,
            Some(ev) => ev.error.unwrap_or(sys::hipSuccess),
        }
    }

    /// Destroys an event.
    pub fn event_destroy(&mut self, e: u64) -> hipError_t {
        match self.events.remove(&e) {
            Some(_) => sys::hipSuccess,
            None => fail(
                sys::hipErrorInvalidHandle,
                format!("hipEventDestroy({e:#x}): not an event"),
            ),
        }
    }

    /// Runs `function` over `grid` workgroups of `block` lanes with the kernarg bytes `args`, on
    /// stream `s`: argument errors are returned; a failure while running is the stream's error,
    /// seen by the next event query (as a GPU fault would be).
    pub fn launch(
        &mut self,
        device: usize,
        function: u64,
        grid: u32,
        block: u32,
        s: u64,
        args: &[u8],
    ) -> hipError_t {
        let Some((module, name)) = self.functions.get(&function).cloned() else {
            return fail(
                sys::hipErrorInvalidHandle,
                format!("hipModuleLaunchKernel: {function:#x} is not a function"),
            );
        };
        if !self.is_stream(s) {
            return fail(
                sys::hipErrorInvalidHandle,
                format!("hipModuleLaunchKernel: {s:#x} is not a stream"),
            );
        }
        let m = &self.modules[&module];
        if m.device != device {
            return fail(
                sys::hipErrorInvalidDevice,
                "hipModuleLaunchKernel: the module was loaded on another device",
            );
        }
        let meta = &m
            .co
            .kernel(&name)
            .expect("checked when the function was looked up")
            .meta;
        // HIP refuses a block larger than the kernel's launch bound.
        if block > meta.max_flat_workgroup_size {
            return fail(
                sys::hipErrorInvalidValue,
                format!(
                    "kernel {name}: {block} lanes per workgroup exceed its .max_flat_workgroup_size {}",
                    meta.max_flat_workgroup_size
                ),
            );
        }
        // The kernarg segment as HIP builds it: each declared argument copied from `args` when it
        // lies inside the passed buffer; the rest stays zero.
        let mut segment = vec![0u8; meta.kernarg_segment_size as usize];
        let mut addresses = Vec::new();
        for (i, a) in meta.args.iter().enumerate() {
            let (off, size) = (a.offset as usize, a.size as usize);
            if a.value_kind != "global_buffer" || size != 8 || off != 8 * i {
                return fail(
                    sys::hipErrorNotSupported,
                    format!("kernel {name}: argument {i} is {} of {size} bytes at {off}; the stand-in runs kernels whose arguments are 8-byte global buffers at 0, 8, 16...", a.value_kind),
                );
            }
            if off + size > segment.len() {
                return fail(
                    sys::hipErrorInvalidImage,
                    format!(
                        "kernel {name}: argument {i} ends at {} past .kernarg_segment_size {}",
                        off + size,
                        segment.len()
                    ),
                );
            }
            if off + size <= args.len() {
                segment[off..off + size].copy_from_slice(&args[off..off + size]);
            }
            addresses.push(u64::from_le_bytes(
                segment[off..off + 8].try_into().expect("8 bytes"),
            ));
        }
        if launch_knob(ENV_FAULT).is_some_and(|p| name.starts_with(&p)) {
            eprintln!(
                "Memory access fault by GPU node-{device} (Agent handle: 0x0) on address 0x0. \
                 Reason: Page not present or supervisor privilege. (stand-in simulation)"
            );
            std::process::abort();
        }
        if self.hang.as_ref().is_some_and(|p| name.starts_with(p)) {
            self.hung = true;
            // The work never completes: events recorded after it hang, and so does the
            // runtime's teardown at process exit, as ROCm's waits for its queues to drain.
            block_teardown_at_exit();
            return sys::hipSuccess;
        }
        let outcome = self.run(m.device, m.id, &name, grid, block, &addresses);
        if let Some(err) = self.streams.get_mut(&s) {
            *err = outcome.err();
        } else if let Err(e) = outcome {
            return e; // null stream: report at once
        }
        sys::hipSuccess
    }

    fn run(
        &mut self,
        device: usize,
        id: ModuleId,
        name: &str,
        grid: u32,
        block: u32,
        addresses: &[u64],
    ) -> Result<(), hipError_t> {
        let mut buffers = Vec::with_capacity(addresses.len());
        for (i, &a) in addresses.iter().enumerate() {
            match self.allocs.get(&a) {
                Some(bytes) if !addresses[..i].contains(&a) => {
                    buffers.push(Buffer { name: "stand-in buffer", bytes: bytes.clone(), copy_back: true })
                }
                Some(_) => return Err(fail(sys::hipErrorNotSupported, format!("kernel {name}: argument {i} repeats an earlier buffer"))),
                None => {
                    return Err(fail(
                        sys::hipErrorIllegalAddress,
                        format!("kernel {name}: argument {i} = {a:#x} is not the base of a device allocation"),
                    ))
                }
            }
        }
        let emu = self
            .emus
            .get_mut(&device)
            .expect("a module's device has an emulated device");
        let mut launch = Launch {
            kernel: name.to_string(),
            workgroups: grid,
            workgroup_size: block,
            buffers,
        };
        emu.launch(id, &mut launch).map_err(|e| {
            fail(
                sys::hipErrorLaunchFailure,
                format!("kernel {name} on the emulated device: {e}"),
            )
        })?;
        for (i, (a, mut b)) in addresses.iter().zip(launch.buffers).enumerate() {
            if self.flip && i == ds_kernels::abi::LDS_OUT {
                if let Some(first) = b.bytes.first_mut() {
                    *first ^= 1;
                }
            }
            self.allocs.insert(*a, b.bytes);
        }
        Ok(())
    }
}

/// The size of the ELF64 image at `image`, found the way a loader does, from its headers: the
/// furthest end of the program headers, section headers, segments and (non-NOBITS) sections.
///
/// # Safety
/// `image` points at a readable ELF64 file image of at least the size returned.
pub unsafe fn elf_size(image: *const u8) -> Result<usize, String> {
    const LIMIT: u64 = 1 << 28;
    // SAFETY: the caller's contract covers the header; each later read is inside the size
    // computed so far from headers that were already read.
    let read = |off: u64, n: usize| -> Vec<u8> {
        unsafe { std::slice::from_raw_parts(image.add(off as usize), n) }.to_vec()
    };
    let h = read(0, 64);
    if &h[..4] != b"\x7fELF" || h[4] != 2 || h[5] != 1 {
        return Err("not a little-endian ELF64 image".into());
    }
    let u16_at = |b: &[u8], o: usize| u64::from(u16::from_le_bytes([b[o], b[o + 1]]));
    let u32_at =
        |b: &[u8], o: usize| u64::from(u32::from_le_bytes(b[o..o + 4].try_into().expect("4")));
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8"));
    let (phoff, shoff) = (u64_at(&h, 32), u64_at(&h, 40));
    let (phentsize, phnum, shentsize, shnum) = (
        u16_at(&h, 54),
        u16_at(&h, 56),
        u16_at(&h, 58),
        u16_at(&h, 60),
    );
    let mut end = 64u64
        .max(phoff + phentsize * phnum)
        .max(shoff + shentsize * shnum);
    if end > LIMIT || (phnum > 0 && phentsize < 56) || (shnum > 0 && shentsize < 64) {
        return Err("ELF header fields are out of range".into());
    }
    for i in 0..phnum {
        let p = read(phoff + i * phentsize, 56);
        end = end.max(u64_at(&p, 8) + u64_at(&p, 32)); // p_offset + p_filesz
    }
    for i in 0..shnum {
        let s = read(shoff + i * shentsize, 64);
        if u32_at(&s, 4) != 8 {
            end = end.max(u64_at(&s, 24) + u64_at(&s, 32)); // sh_offset + sh_size, unless NOBITS
        }
    }
    if end > LIMIT {
        return Err("ELF segments or sections reach beyond 256 MiB".into());
    }
    Ok(end as usize)
}

/// Makes the process's exit wait forever, as a HIP runtime's teardown does while a kernel of its
/// never finishes: registered once, with the C library's `atexit`, when a launch hangs. A caller
/// that must end after a hang has to leave without the teardown (`_exit`).
fn block_teardown_at_exit() {
    extern "C" fn teardown() {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a function with no arguments that touches no state.
        unsafe { libc::atexit(teardown) };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hip_visible_devices_filters_and_reorders_and_stops_at_a_bad_entry() {
        assert_eq!(visible_from(None, 2), [0, 1]);
        assert_eq!(visible_from(Some("1"), 2), [1]);
        assert_eq!(visible_from(Some("1,0"), 2), [1, 0]);
        assert_eq!(visible_from(Some("0,7,1"), 2), [0]);
        assert!(visible_from(Some(""), 2).is_empty());
    }

    #[test]
    fn elf_size_refuses_what_is_not_elf64() {
        let junk = [0u8; 64];
        // SAFETY: 64 readable bytes.
        assert!(unsafe { elf_size(junk.as_ptr()) }
            .unwrap_err()
            .contains("not a little-endian ELF64"));
    }

    #[test]
    fn every_returned_code_has_hips_name() {
        for code in [
            sys::hipErrorInvalidValue,
            sys::hipErrorInvalidHandle,
            sys::hipErrorNotReady,
            sys::hipErrorNoDevice,
        ] {
            assert!(error_name(code).starts_with("hipError"), "{code}");
        }
        assert_eq!(
            error_name(sys::hipErrorInvalidHandle),
            "hipErrorInvalidHandle"
        );
        assert_eq!(error_name(12345), "hipErrorUnknown");
    }
}
