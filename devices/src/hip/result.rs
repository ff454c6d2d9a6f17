//! Thin wrappers over the HIP entry points in [`sys`](super::sys): each checks the call's
//! `hipError_t` and turns a failure into a [`HipError`] carrying the call, the code, and HIP's own
//! name and string for it (`hipGetErrorName` / `hipGetErrorString`, hip_runtime_api.h). In the
//! cudarc style (`driver/result.rs`). The `unsafe` is here and in `safe.rs`, nowhere else.

use super::library::HipApi;
use super::sys;
use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int};
use std::ptr;

/// A HIP call that returned an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipError {
    /// The C function that failed, e.g. `"hipModuleLoadData"`.
    pub call: &'static str,
    /// The `hipError_t` value.
    pub code: i32,
    /// HIP's name for it (`hipGetErrorName`), e.g. `"hipErrorNoDevice"`.
    pub name: String,
    /// HIP's description (`hipGetErrorString`).
    pub text: String,
}

impl fmt::Display for HipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} returned {} ({})", self.call, self.name, self.code)?;
        if self.text != self.name && !self.text.is_empty() {
            write!(f, ": {}", self.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for HipError {}

fn owned(p: *const c_char) -> Option<String> {
    // SAFETY: HIP returns NUL-terminated static strings (or NULL, handled here).
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Builds the error for `code` returned by `call`, asking HIP for its name and string.
pub fn error(api: &HipApi, call: &'static str, code: sys::hipError_t) -> HipError {
    // SAFETY: both functions take any code and return a static string or NULL.
    let name = owned(unsafe { (api.hipGetErrorName)(code) });
    let text = owned(unsafe { (api.hipGetErrorString)(code) });
    HipError {
        call,
        code: code as i32,
        name: name.unwrap_or_else(|| format!("unnamed hipError_t {code}")),
        text: text.unwrap_or_default(),
    }
}

/// `Ok(())` for `hipSuccess`, else the error.
pub fn check(api: &HipApi, call: &'static str, code: sys::hipError_t) -> Result<(), HipError> {
    if code == sys::hipSuccess {
        Ok(())
    } else {
        Err(error(api, call, code))
    }
}

/// `hipInit(0)`.
pub fn init(api: &HipApi) -> Result<(), HipError> {
    // SAFETY: plain call, no pointers.
    check(api, "hipInit", unsafe { (api.hipInit)(0) })
}

fn get_int(
    api: &HipApi,
    call: &'static str,
    f: impl FnOnce(*mut c_int) -> sys::hipError_t,
) -> Result<i32, HipError> {
    let mut v: c_int = 0;
    check(api, call, f(&mut v))?;
    Ok(v)
}

/// `hipRuntimeGetVersion`.
pub fn runtime_version(api: &HipApi) -> Result<i32, HipError> {
    // SAFETY: writes one int.
    get_int(api, "hipRuntimeGetVersion", |p| unsafe {
        (api.hipRuntimeGetVersion)(p)
    })
}

/// `hipDriverGetVersion`.
pub fn driver_version(api: &HipApi) -> Result<i32, HipError> {
    // SAFETY: writes one int.
    get_int(api, "hipDriverGetVersion", |p| unsafe {
        (api.hipDriverGetVersion)(p)
    })
}

/// `hipGetDeviceCount`: the devices HIP makes visible (after `HIP_VISIBLE_DEVICES`).
pub fn device_count(api: &HipApi) -> Result<i32, HipError> {
    // SAFETY: writes one int.
    get_int(api, "hipGetDeviceCount", |p| unsafe {
        (api.hipGetDeviceCount)(p)
    })
}

/// `hipSetDevice`.
pub fn set_device(api: &HipApi, ordinal: i32) -> Result<(), HipError> {
    // SAFETY: plain call.
    check(api, "hipSetDevice", unsafe { (api.hipSetDevice)(ordinal) })
}

/// `hipDeviceGet`: the device handle for an ordinal.
pub fn device_get(api: &HipApi, ordinal: i32) -> Result<sys::hipDevice_t, HipError> {
    // SAFETY: writes one hipDevice_t (an int).
    get_int(api, "hipDeviceGet", |p| unsafe {
        (api.hipDeviceGet)(p, ordinal)
    })
}

/// `hipDeviceGetName` into a 256-byte buffer (HIP's own name field size).
pub fn device_name(api: &HipApi, device: sys::hipDevice_t) -> Result<String, HipError> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: HIP writes at most `len` bytes including the terminator.
    check(api, "hipDeviceGetName", unsafe {
        (api.hipDeviceGetName)(buf.as_mut_ptr(), buf.len() as c_int, device)
    })?;
    Ok(c_buf(&buf))
}

/// A C string in a fixed buffer, up to its first NUL (or the whole buffer).
pub(crate) fn c_buf(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `hipDeviceGetPCIBusId` into a 64-byte buffer: `"dddd:bb:dd.f"` (hex).
pub fn device_pci_bus_id(api: &HipApi, ordinal: i32) -> Result<String, HipError> {
    let mut buf = [0 as c_char; 64];
    // SAFETY: HIP writes at most `len` bytes including the terminator.
    check(api, "hipDeviceGetPCIBusId", unsafe {
        (api.hipDeviceGetPCIBusId)(buf.as_mut_ptr(), buf.len() as c_int, ordinal)
    })?;
    Ok(c_buf(&buf))
}

/// `hipModuleLoadData`: HIP reads the whole code object from `image` during the call.
pub fn module_load_data(api: &HipApi, image: &[u8]) -> Result<sys::hipModule_t, HipError> {
    let mut m: sys::hipModule_t = ptr::null_mut();
    // SAFETY: `image` is a complete ELF in host memory; HIP writes the handle.
    check(api, "hipModuleLoadData", unsafe {
        (api.hipModuleLoadData)(&mut m, image.as_ptr().cast())
    })?;
    Ok(m)
}

/// `hipModuleUnload`.
///
/// # Safety
/// `m` came from [`module_load_data`] and is not used afterwards.
pub unsafe fn module_unload(api: &HipApi, m: sys::hipModule_t) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipModuleUnload", unsafe { (api.hipModuleUnload)(m) })
}

/// `hipModuleGetFunction`.
///
/// # Safety
/// `m` is a live module.
pub unsafe fn module_get_function(
    api: &HipApi,
    m: sys::hipModule_t,
    name: &CStr,
) -> Result<sys::hipFunction_t, HipError> {
    let mut f: sys::hipFunction_t = ptr::null_mut();
    // SAFETY: per the contract; `name` is NUL-terminated.
    check(api, "hipModuleGetFunction", unsafe {
        (api.hipModuleGetFunction)(&mut f, m, name.as_ptr())
    })?;
    Ok(f)
}

/// The kernel arguments of one launch, passed the way `hipModuleLaunchKernel`'s `extra` takes
/// them: `{BUFFER_POINTER, &args, BUFFER_SIZE, &size, END}`.
#[derive(Debug)]
pub struct Kernargs {
    /// The kernarg segment: one 64-bit device address per buffer (kernels/src/launch.rs).
    pub words: Vec<u64>,
}

/// `hipModuleLaunchKernel(f, grid x1x1, block x1x1, shared 0, stream, NULL, extra)`.
///
/// # Safety
/// `f` and `stream` are live, and every address in `args` is a live device allocation large
/// enough for the kernel.
pub unsafe fn module_launch_kernel(
    api: &HipApi,
    f: sys::hipFunction_t,
    grid_x: u32,
    block_x: u32,
    stream: sys::hipStream_t,
    args: &mut Kernargs,
) -> Result<(), HipError> {
    let mut size: usize = args.words.len() * 8;
    let mut extra: [*mut c_void; 5] = [
        sys::HIP_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
        args.words.as_mut_ptr().cast(),
        sys::HIP_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
        (&mut size as *mut usize).cast(),
        sys::HIP_LAUNCH_PARAM_END as *mut c_void,
    ];
    // SAFETY: per the contract; HIP copies the kernarg buffer during the call, so `args`, `size`
    // and `extra` only need to live until it returns. LDS comes from the kernel descriptor, so the
    // dynamic shared memory is 0.
    check(api, "hipModuleLaunchKernel", unsafe {
        (api.hipModuleLaunchKernel)(
            f,
            grid_x,
            1,
            1,
            block_x,
            1,
            1,
            0,
            stream,
            ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    })
}

/// `hipMalloc`.
pub fn malloc(api: &HipApi, bytes: usize) -> Result<*mut c_void, HipError> {
    let mut p: *mut c_void = ptr::null_mut();
    // SAFETY: HIP writes the address.
    check(api, "hipMalloc", unsafe { (api.hipMalloc)(&mut p, bytes) })?;
    Ok(p)
}

/// `hipFree`.
///
/// # Safety
/// `p` came from [`malloc`] and is not used afterwards.
pub unsafe fn free(api: &HipApi, p: *mut c_void) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipFree", unsafe { (api.hipFree)(p) })
}

/// `hipMemcpyHtoD` of all of `src`.
///
/// # Safety
/// `dst` is a device allocation of at least `src.len()` bytes.
pub unsafe fn memcpy_htod(api: &HipApi, dst: *mut c_void, src: &[u8]) -> Result<(), HipError> {
    // SAFETY: per the contract; HIP only reads `src` (the header's parameter is not const).
    check(api, "hipMemcpyHtoD", unsafe {
        (api.hipMemcpyHtoD)(dst, src.as_ptr() as *mut c_void, src.len())
    })
}

/// `hipMemcpyDtoH` filling all of `dst`.
///
/// # Safety
/// `src` is a device allocation of at least `dst.len()` bytes with no pending writes.
pub unsafe fn memcpy_dtoh(api: &HipApi, dst: &mut [u8], src: *mut c_void) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipMemcpyDtoH", unsafe {
        (api.hipMemcpyDtoH)(dst.as_mut_ptr().cast(), src, dst.len())
    })
}

/// `hipStreamCreate`.
pub fn stream_create(api: &HipApi) -> Result<sys::hipStream_t, HipError> {
    let mut s: sys::hipStream_t = ptr::null_mut();
    // SAFETY: HIP writes the handle.
    check(api, "hipStreamCreate", unsafe {
        (api.hipStreamCreate)(&mut s)
    })?;
    Ok(s)
}

/// `hipStreamDestroy` (waits for the stream's work: never call it on a hung stream).
///
/// # Safety
/// `s` came from [`stream_create`] and is not used afterwards.
pub unsafe fn stream_destroy(api: &HipApi, s: sys::hipStream_t) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipStreamDestroy", unsafe {
        (api.hipStreamDestroy)(s)
    })
}

/// `hipEventCreate`.
pub fn event_create(api: &HipApi) -> Result<sys::hipEvent_t, HipError> {
    let mut e: sys::hipEvent_t = ptr::null_mut();
    // SAFETY: HIP writes the handle.
    check(api, "hipEventCreate", unsafe {
        (api.hipEventCreate)(&mut e)
    })?;
    Ok(e)
}

/// `hipEventRecord`.
///
/// # Safety
/// `e` and `s` are live.
pub unsafe fn event_record(
    api: &HipApi,
    e: sys::hipEvent_t,
    s: sys::hipStream_t,
) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipEventRecord", unsafe { (api.hipEventRecord)(e, s) })
}

/// `hipEventQuery`: `Ok(true)` done, `Ok(false)` still pending (`hipErrorNotReady`), or the error.
///
/// # Safety
/// `e` is live.
pub unsafe fn event_query(api: &HipApi, e: sys::hipEvent_t) -> Result<bool, HipError> {
    // SAFETY: per the contract.
    match unsafe { (api.hipEventQuery)(e) } {
        sys::hipSuccess => Ok(true),
        sys::hipErrorNotReady => Ok(false),
        code => Err(error(api, "hipEventQuery", code)),
    }
}

/// `hipEventDestroy`.
///
/// # Safety
/// `e` came from [`event_create`] and is not used afterwards.
pub unsafe fn event_destroy(api: &HipApi, e: sys::hipEvent_t) -> Result<(), HipError> {
    // SAFETY: per the contract.
    check(api, "hipEventDestroy", unsafe { (api.hipEventDestroy)(e) })
}

/// A Rust string as a C string, refusing interior NULs.
pub fn c_string(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("the name {s:?} contains a NUL byte"))
}
