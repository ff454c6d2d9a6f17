//! A stand-in HIP runtime: `libds_hip_standin.so` exports, with the C ABI, exactly the HIP
//! functions ds-harness's hip device calls (the declarations in `ds_devices::hip::sys`,
//! themselves checked against ROCm's headers by the bindgen drift test), implemented on the
//! emulated device of each target of the target table. `DS_HARNESS_HIP_LIB=<this .so> ds-harness run --backend hip` runs the
//! hip device's own code (loading, symbol lookup, allocation, copies, launch through `extra`,
//! bounded waits, error handling) end to end in CI, with no GPU.
//!
//! It is honest about what it is: its devices are named "ds-harness stand-in ...", and it exports
//! one extra symbol, `ds_hip_standin_gcn_arch_name`, through which the harness learns the
//! stand-in device's arch (a real runtime has no such symbol; real devices are named through KFD
//! sysfs or HSA). Every handle and pointer is checked: misuse returns HIP's error code and says why
//! on stderr. Device 0 is of the default target, device 1 a decoy claiming an arch the kernels are
//! not built for (so the harness's refusal can be tested), devices 2 and up one of each other
//! target; a code object for another target than the device's is refused with
//! `hipErrorNoBinaryForGpu`, as ROCm's loader refuses it. Test-only knobs (each documented in
//! `state.rs`): `DS_HIP_STANDIN_HANG=1` makes launches never complete (`=ds_`: only the ops'
//! kernels, after the canary); `DS_HIP_STANDIN_FAULT` aborts as a GPU fault does;
//! `DS_HIP_STANDIN_FLIP=1` damages every launch's LDS dump (one bit), so a disagreement can be
//! provoked from the command line; `DS_HIP_STANDIN_WRONG_ENTRY=workgroup-id|wave` hands kernels a
//! wrong entry state (every workgroup id 0; half of a wave64), which the canary must catch.
//!
//! HIP behaviours imitated (ROCm 5.2 hip_module.cpp / hip_device_runtime.cpp / hip_memory.cpp):
//! `hipGetDeviceCount` returns `hipErrorNoDevice` with a count of 0 when no device is visible;
//! `HIP_VISIBLE_DEVICES` filters and reorders devices; `hipMalloc(0)` gives NULL; `hipFree(NULL)`
//! succeeds; a never-recorded event queries as complete; `hipModuleLoadData` finds the image's
//! size from its ELF headers; `extra` must be the five-element BUFFER_POINTER/SIZE/END form.

#![allow(clippy::missing_safety_doc)] // Each export's contract is its HIP namesake's.

mod state;
pub mod topology;

use ds_devices::hip::sys::{self, hipError_t};
use state::{error_entry, fail, physical, state};
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

thread_local! {
    /// The calling thread's current device (visible ordinal), as `hipSetDevice` sets it.
    static CURRENT: Cell<i32> = const { Cell::new(0) };
}

/// The physical device behind the calling thread's current device.
fn current() -> Result<usize, hipError_t> {
    let ordinal = CURRENT.with(Cell::get);
    state().physical(ordinal).ok_or_else(|| {
        fail(
            sys::hipErrorNoDevice,
            format!("device {ordinal} is not visible"),
        )
    })
}

fn write_str(dst: *mut c_char, len: c_int, s: &str) -> hipError_t {
    if dst.is_null() || len <= 0 {
        return fail(sys::hipErrorInvalidValue, "NULL or empty output buffer");
    }
    let n = s.len().min(len as usize - 1);
    // SAFETY: the caller provides `len` writable bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast::<c_char>(), dst, n);
        *dst.add(n) = 0;
    }
    sys::hipSuccess
}

fn put<T>(out: *mut T, v: T) -> hipError_t {
    if out.is_null() {
        return fail(sys::hipErrorInvalidValue, "NULL output pointer");
    }
    // SAFETY: non-NULL; the caller provides a writable `T`.
    unsafe { out.write(v) };
    sys::hipSuccess
}

// Each export must have exactly the type the harness loads it as.
macro_rules! same_type_as_sys {
    ($($f:ident),* $(,)?) => { $(const _: sys::$f = $f;)* };
}
ds_devices::for_each_hip_function!(same_type_as_sys!());
const _: ds_devices::hip::library::StandinArchFn = ds_hip_standin_gcn_arch_name;
const _: ds_devices::hip::library::StandinKfdFn = ds_hip_standin_kfd_node;

/// The version the stand-in reports (HIP_VERSION encoding of 7.0.0): newer than the first release
/// of every target of the target table, so the hip device's runtime check passes. Its API is the
/// subset every ROCm release since 5.2 shares.
pub const VERSION: c_int = 70_000_000;
/// Test-only: the version the stand-in reports instead of [`VERSION`] (HIP_VERSION encoding),
/// to simulate an older runtime.
pub const ENV_VERSION: &str = "DS_HIP_STANDIN_VERSION";

pub(crate) fn version() -> c_int {
    std::env::var(ENV_VERSION)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(VERSION)
}

#[no_mangle]
pub unsafe extern "C" fn hipInit(flags: c_uint) -> hipError_t {
    if flags != 0 {
        return fail(sys::hipErrorInvalidValue, "hipInit: flags must be 0");
    }
    if state().visible.is_empty() {
        // What ROCm 5.2's hipInit answers on a machine without a usable GPU (seen with Debian's
        // libamdhip64-5); hipGetDeviceCount then says hipErrorNoDevice.
        return sys::hipErrorInvalidDevice;
    }
    sys::hipSuccess
}

#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(v: *mut c_int) -> hipError_t {
    put(v, version())
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(v: *mut c_int) -> hipError_t {
    put(v, version())
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    let n = state().visible.len() as c_int;
    match put(count, n) {
        sys::hipSuccess if n == 0 => sys::hipErrorNoDevice,
        r => r,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipSetDevice(ordinal: c_int) -> hipError_t {
    if state().physical(ordinal).is_none() {
        return fail(
            sys::hipErrorInvalidDevice,
            format!("hipSetDevice({ordinal}): no such visible device"),
        );
    }
    CURRENT.with(|c| c.set(ordinal));
    sys::hipSuccess
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGet(device: *mut sys::hipDevice_t, ordinal: c_int) -> hipError_t {
    if state().physical(ordinal).is_none() {
        return fail(
            sys::hipErrorInvalidDevice,
            format!("hipDeviceGet({ordinal}): no such visible device"),
        );
    }
    put(device, ordinal)
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(
    name: *mut c_char,
    len: c_int,
    device: sys::hipDevice_t,
) -> hipError_t {
    match state().physical(device) {
        Some(p) => write_str(name, len, &physical()[p].name),
        None => fail(
            sys::hipErrorInvalidDevice,
            format!("hipDeviceGetName({device}): no such visible device"),
        ),
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetPCIBusId(
    bus_id: *mut c_char,
    len: c_int,
    device: c_int,
) -> hipError_t {
    match state().physical(device) {
        // A made-up PCI location per stand-in device (nothing real is at it), in HIP's format.
        Some(p) => write_str(
            bus_id,
            len,
            &format!("{:04x}:{p:02x}:00.0", topology::PCI_DOMAIN),
        ),
        None => fail(
            sys::hipErrorInvalidDevice,
            format!("hipDeviceGetPCIBusId({device}): no such visible device"),
        ),
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipGetErrorName(code: hipError_t) -> *const c_char {
    error_entry(code).0.as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn hipGetErrorString(code: hipError_t) -> *const c_char {
    error_entry(code).1.as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(
    module: *mut sys::hipModule_t,
    image: *const c_void,
) -> hipError_t {
    if module.is_null() || image.is_null() {
        return fail(
            sys::hipErrorInvalidValue,
            "hipModuleLoadData: NULL module or image",
        );
    }
    let device = match current() {
        Ok(d) => d,
        Err(e) => return e,
    };
    // SAFETY: the caller passes a complete code object; its size comes from its own headers.
    let size = match unsafe { state::elf_size(image.cast()) } {
        Ok(n) => n,
        Err(e) => return fail(sys::hipErrorInvalidImage, format!("hipModuleLoadData: {e}")),
    };
    // SAFETY: `size` bytes are the image, per its headers.
    let bytes = unsafe { std::slice::from_raw_parts(image.cast::<u8>(), size) };
    match state().load(device, bytes) {
        Ok(h) => put(module, h as sys::hipModule_t),
        Err(e) => e,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleUnload(module: sys::hipModule_t) -> hipError_t {
    state().unload(module as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    function: *mut sys::hipFunction_t,
    module: sys::hipModule_t,
    kname: *const c_char,
) -> hipError_t {
    if function.is_null() || kname.is_null() {
        return fail(
            sys::hipErrorInvalidValue,
            "hipModuleGetFunction: NULL function or name",
        );
    }
    // SAFETY: the caller passes a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(kname) }
        .to_string_lossy()
        .into_owned();
    let r = state().function(module as u64, &name);
    match r {
        Ok(h) => put(function, h as sys::hipFunction_t),
        Err(e) => e,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: sys::hipFunction_t,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared_mem: c_uint,
    stream: sys::hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    if [grid_x, grid_y, grid_z, block_x, block_y, block_z].contains(&0) {
        return fail(
            sys::hipErrorInvalidValue,
            "hipModuleLaunchKernel: a grid or block dimension is 0",
        );
    }
    if (grid_y, grid_z, block_y, block_z) != (1, 1, 1, 1) || shared_mem != 0 {
        return fail(
            sys::hipErrorNotSupported,
            "hipModuleLaunchKernel: the stand-in runs 1-D launches without dynamic LDS",
        );
    }
    if !kernel_params.is_null() && !extra.is_null() {
        return fail(
            sys::hipErrorInvalidValue,
            "hipModuleLaunchKernel: both kernelParams and extra are given",
        );
    }
    if extra.is_null() {
        return fail(
            sys::hipErrorNotSupported,
            "hipModuleLaunchKernel: the stand-in takes kernel arguments through extra only",
        );
    }
    // SAFETY: `extra` is the caller's array; HIP reads exactly five elements of it.
    let e = unsafe { std::slice::from_raw_parts(extra, 5) };
    if e[0] as usize != sys::HIP_LAUNCH_PARAM_BUFFER_POINTER
        || e[2] as usize != sys::HIP_LAUNCH_PARAM_BUFFER_SIZE
        || e[4] as usize != sys::HIP_LAUNCH_PARAM_END
    {
        // ROCm 5.2 answers a malformed `extra` with hipErrorNotInitialized.
        return fail(
            sys::hipErrorNotInitialized,
            "hipModuleLaunchKernel: extra is not {BUFFER_POINTER, p, BUFFER_SIZE, &n, END}",
        );
    }
    if e[3].is_null()
        || (e[1].is_null() && !e[3].is_null() && unsafe { *e[3].cast::<usize>() } != 0)
    {
        return fail(
            sys::hipErrorInvalidValue,
            "hipModuleLaunchKernel: NULL kernarg buffer or size pointer",
        );
    }
    // SAFETY: e[3] points at a size_t; e[1] at that many bytes.
    let size = unsafe { *e[3].cast::<usize>() };
    let args = if size == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(e[1].cast::<u8>(), size) }
    };
    let device = match current() {
        Ok(d) => d,
        Err(e) => return e,
    };
    state().launch(device, f as u64, grid_x, block_x, stream as u64, args)
}

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    if ptr.is_null() {
        return fail(sys::hipErrorInvalidValue, "hipMalloc: NULL output pointer");
    }
    if size == 0 {
        return put(ptr, std::ptr::null_mut());
    }
    let base = state().malloc(size);
    put(ptr, base as *mut c_void)
}

#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    if ptr.is_null() {
        return sys::hipSuccess;
    }
    state().free(ptr as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: sys::hipDeviceptr_t,
    src: *mut c_void,
    n: usize,
) -> hipError_t {
    if n == 0 {
        return sys::hipSuccess;
    }
    if src.is_null() {
        return fail(sys::hipErrorInvalidValue, "hipMemcpyHtoD: NULL source");
    }
    let mut st = state();
    let Some((bytes, off)) = st.find(dst as u64, n) else {
        return fail(
            sys::hipErrorInvalidValue,
            format!(
                "hipMemcpyHtoD: [{:#x}, +{n}) is not inside one allocation",
                dst as u64
            ),
        );
    };
    // SAFETY: the caller provides `n` readable bytes at `src`.
    bytes[off..off + n].copy_from_slice(unsafe { std::slice::from_raw_parts(src.cast::<u8>(), n) });
    sys::hipSuccess
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(
    dst: *mut c_void,
    src: sys::hipDeviceptr_t,
    n: usize,
) -> hipError_t {
    if n == 0 {
        return sys::hipSuccess;
    }
    if dst.is_null() {
        return fail(sys::hipErrorInvalidValue, "hipMemcpyDtoH: NULL destination");
    }
    let mut st = state();
    let Some((bytes, off)) = st.find(src as u64, n) else {
        return fail(
            sys::hipErrorInvalidValue,
            format!(
                "hipMemcpyDtoH: [{:#x}, +{n}) is not inside one allocation",
                src as u64
            ),
        );
    };
    // SAFETY: the caller provides `n` writable bytes at `dst`.
    unsafe { std::slice::from_raw_parts_mut(dst.cast::<u8>(), n) }
        .copy_from_slice(&bytes[off..off + n]);
    sys::hipSuccess
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(stream: *mut sys::hipStream_t) -> hipError_t {
    if stream.is_null() {
        return fail(
            sys::hipErrorInvalidValue,
            "hipStreamCreate: NULL output pointer",
        );
    }
    let h = state().stream_create();
    put(stream, h as sys::hipStream_t)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamDestroy(stream: sys::hipStream_t) -> hipError_t {
    state().stream_destroy(stream as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut sys::hipEvent_t) -> hipError_t {
    if event.is_null() {
        return fail(
            sys::hipErrorInvalidValue,
            "hipEventCreate: NULL output pointer",
        );
    }
    let h = state().event_create();
    put(event, h as sys::hipEvent_t)
}

#[no_mangle]
pub unsafe extern "C" fn hipEventRecord(
    event: sys::hipEvent_t,
    stream: sys::hipStream_t,
) -> hipError_t {
    state().event_record(event as u64, stream as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipEventQuery(event: sys::hipEvent_t) -> hipError_t {
    state().event_query(event as u64)
}

#[no_mangle]
pub unsafe extern "C" fn hipEventDestroy(event: sys::hipEvent_t) -> hipError_t {
    state().event_destroy(event as u64)
}

/// The stand-in's answer to "which target does the runtime report for device N" (ROCm's agent
/// name, an override applied): see `ds_devices::hip::arch` and [`topology::reported`].
#[no_mangle]
pub unsafe extern "C" fn ds_hip_standin_gcn_arch_name(
    device: c_int,
    name: *mut c_char,
    len: c_int,
) -> hipError_t {
    match state().physical(device) {
        Some(p) => write_str(name, len, &topology::reported(physical()[p].arch)),
        None => fail(
            sys::hipErrorInvalidDevice,
            format!("ds_hip_standin_gcn_arch_name({device}): no such visible device"),
        ),
    }
}

/// The stand-in's simulated KFD topology, node by node ([`topology::kfd_node`]): see
/// `ds_devices::hip::library::STANDIN_KFD_SYMBOL` for the answers.
#[no_mangle]
pub unsafe extern "C" fn ds_hip_standin_kfd_node(
    node: c_int,
    properties: *mut c_char,
    len: c_int,
) -> c_int {
    use ds_devices::hip::library::{STANDIN_KFD_END, STANDIN_KFD_NODE};
    let chips = physical()
        .iter()
        .map(|d| (d.arch, d.target))
        .collect::<Vec<_>>();
    let answer = usize::try_from(node)
        .map_err(|_| format!("node {node}: no such node"))
        .and_then(|n| topology::kfd_node(n, &chips));
    match answer {
        Ok(None) => STANDIN_KFD_END,
        Ok(Some(text)) => {
            write_str(properties, len, &text);
            STANDIN_KFD_NODE
        }
        Err(why) => {
            write_str(properties, len, &why);
            STANDIN_KFD_END + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_has_a_kfd_node_with_its_chips_version_at_its_pci_location() {
        let chips: Vec<_> = physical().iter().map(|d| (d.arch, d.target)).collect();
        for (p, dev) in physical().iter().enumerate() {
            let text = topology::kfd_node(p + 1, &chips).unwrap().unwrap();
            let v = topology::target_version(dev.arch).unwrap();
            if let Some(t) = dev.target {
                assert_eq!(v, t.kfd_version, "{t}");
            }
            for line in [
                format!("gfx_target_version {v}\n"),
                format!("location_id {}\n", p << 8),
                format!("domain {}\n", topology::PCI_DOMAIN),
            ] {
                assert!(text.contains(&line), "{line} in {text}");
            }
        }
        assert_eq!(topology::kfd_node(physical().len() + 1, &chips), Ok(None));
    }
}
