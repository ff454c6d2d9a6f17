//! Raw declarations of the HIP runtime and HSA runtime entry points the hip device calls, and the
//! constants it names: hand-kept, written against ROCm 5.2's `hip/hip_runtime_api.h`,
//! `hip/driver_types.h`, `hsa/hsa.h` and `hsa/hsa_ext_amd.h` (Debian `libamdhip64-dev`,
//! `libhsa-runtime-dev`). `tests/all/hip_bindgen_drift.rs` regenerates every item below with bindgen
//! from those headers and fails on any difference, so this file is the checked copy, not a guess.
//!
//! Each function is a type alias named exactly like the C function (the loader in `library.rs`
//! looks the symbol up by that name). Only what the hip device calls is here.
//!
//! ROCm 6 notes (checked against ROCm's `hip_runtime_api.h` in ROCm/rocm-systems):
//! - `hipDeviceProp_t` changed layout (and `hipGetDeviceProperties` became a versioned symbol,
//!   `hipGetDevicePropertiesR0600`): we never use it.
//! - `hipDeviceAttribute_t` kept its numbering by turning removed entries into placeholders
//!   (`hipDeviceAttributeName` -> `Unused1`, `Uuid` -> `Unused2`, `Arch`/`GcnArch`/`GcnArchName`
//!   -> `Unused3..5`). We use no attribute at all: ROCm 5.x's `hipDeviceGetAttribute` (hipamd
//!   `hip_device_runtime.cpp`) has no case for `hipDeviceAttributePciDomainID` and answers
//!   `hipErrorInvalidValue`, so the PCI location comes from `hipDeviceGetPCIBusId`, which every
//!   version has with the same signature and the same `%04x:%02x:%02x.0` format.
//! - None of the functions below gained a versioned (`R0600`) symbol. ROCm 6 made
//!   `hipMemcpyHtoD`'s source `const void*`: the same ABI as 5.2's `void*` declared here.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

// ---- HIP types (hip_runtime_api.h, driver_types.h) ----

/// `hipError_t`: a C enum; 0 is success.
pub type hipError_t = c_uint;
/// `hipDevice_t`: on AMD, the device ordinal itself.
pub type hipDevice_t = c_int;
/// `hipDeviceptr_t` (driver_types.h): a device address.
pub type hipDeviceptr_t = *mut c_void;

/// Opaque runtime object behind `hipModule_t`.
#[repr(C)]
#[derive(Debug)]
pub struct ihipModule_t {
    _unused: [u8; 0],
}
/// Opaque runtime object behind `hipFunction_t`.
#[repr(C)]
#[derive(Debug)]
pub struct ihipModuleSymbol_t {
    _unused: [u8; 0],
}
/// Opaque runtime object behind `hipStream_t`.
#[repr(C)]
#[derive(Debug)]
pub struct ihipStream_t {
    _unused: [u8; 0],
}
/// Opaque runtime object behind `hipEvent_t`.
#[repr(C)]
#[derive(Debug)]
pub struct ihipEvent_t {
    _unused: [u8; 0],
}
/// A loaded code object.
pub type hipModule_t = *mut ihipModule_t;
/// A kernel in a loaded code object.
pub type hipFunction_t = *mut ihipModuleSymbol_t;
/// A stream (queue) of device work.
pub type hipStream_t = *mut ihipStream_t;
/// A marker in a stream.
pub type hipEvent_t = *mut ihipEvent_t;

// ---- hipError_t values we name ----

pub const hipSuccess: hipError_t = 0;
pub const hipErrorInvalidValue: hipError_t = 1;
pub const hipErrorOutOfMemory: hipError_t = 2;
pub const hipErrorNotInitialized: hipError_t = 3;
pub const hipErrorInvalidDevicePointer: hipError_t = 17;
pub const hipErrorNoDevice: hipError_t = 100;
pub const hipErrorInvalidDevice: hipError_t = 101;
pub const hipErrorInvalidImage: hipError_t = 200;
pub const hipErrorNoBinaryForGpu: hipError_t = 209;
pub const hipErrorInvalidKernelFile: hipError_t = 218;
pub const hipErrorInvalidHandle: hipError_t = 400;
pub const hipErrorNotFound: hipError_t = 500;
pub const hipErrorNotReady: hipError_t = 600;
pub const hipErrorIllegalAddress: hipError_t = 700;
pub const hipErrorLaunchFailure: hipError_t = 719;
pub const hipErrorNotSupported: hipError_t = 801;

// ---- HIP_LAUNCH_PARAM_* (hip_runtime_api.h: `((void*)0x01)`, `0x02`, `0x03`) ----
// Pointer-valued macros: kept as integers here and turned into pointers where the `extra` array is
// built. The drift test evaluates the header's macros through clang.

/// `extra` key: the next element points at the kernarg buffer.
pub const HIP_LAUNCH_PARAM_BUFFER_POINTER: usize = 0x01;
/// `extra` key: the next element points at a `size_t` holding the kernarg buffer's size.
pub const HIP_LAUNCH_PARAM_BUFFER_SIZE: usize = 0x02;
/// `extra` terminator.
pub const HIP_LAUNCH_PARAM_END: usize = 0x03;

// ---- HIP functions ----

pub type hipInit = unsafe extern "C" fn(flags: c_uint) -> hipError_t;
pub type hipDriverGetVersion = unsafe extern "C" fn(driverVersion: *mut c_int) -> hipError_t;
pub type hipRuntimeGetVersion = unsafe extern "C" fn(runtimeVersion: *mut c_int) -> hipError_t;
pub type hipGetDeviceCount = unsafe extern "C" fn(count: *mut c_int) -> hipError_t;
pub type hipSetDevice = unsafe extern "C" fn(deviceId: c_int) -> hipError_t;
pub type hipDeviceGet =
    unsafe extern "C" fn(device: *mut hipDevice_t, ordinal: c_int) -> hipError_t;
pub type hipDeviceGetName =
    unsafe extern "C" fn(name: *mut c_char, len: c_int, device: hipDevice_t) -> hipError_t;
pub type hipDeviceGetPCIBusId =
    unsafe extern "C" fn(pciBusId: *mut c_char, len: c_int, device: c_int) -> hipError_t;
pub type hipGetErrorName = unsafe extern "C" fn(hip_error: hipError_t) -> *const c_char;
pub type hipGetErrorString = unsafe extern "C" fn(hipError: hipError_t) -> *const c_char;
pub type hipModuleLoadData =
    unsafe extern "C" fn(module: *mut hipModule_t, image: *const c_void) -> hipError_t;
pub type hipModuleUnload = unsafe extern "C" fn(module: hipModule_t) -> hipError_t;
pub type hipModuleGetFunction = unsafe extern "C" fn(
    function: *mut hipFunction_t,
    module: hipModule_t,
    kname: *const c_char,
) -> hipError_t;
pub type hipModuleLaunchKernel = unsafe extern "C" fn(
    f: hipFunction_t,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    stream: hipStream_t,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t;
pub type hipMalloc = unsafe extern "C" fn(ptr: *mut *mut c_void, size: usize) -> hipError_t;
pub type hipFree = unsafe extern "C" fn(ptr: *mut c_void) -> hipError_t;
pub type hipMemcpyHtoD =
    unsafe extern "C" fn(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize) -> hipError_t;
pub type hipMemcpyDtoH =
    unsafe extern "C" fn(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize) -> hipError_t;
pub type hipStreamCreate = unsafe extern "C" fn(stream: *mut hipStream_t) -> hipError_t;
pub type hipStreamDestroy = unsafe extern "C" fn(stream: hipStream_t) -> hipError_t;
pub type hipEventCreate = unsafe extern "C" fn(event: *mut hipEvent_t) -> hipError_t;
pub type hipEventRecord =
    unsafe extern "C" fn(event: hipEvent_t, stream: hipStream_t) -> hipError_t;
pub type hipEventQuery = unsafe extern "C" fn(event: hipEvent_t) -> hipError_t;
pub type hipEventDestroy = unsafe extern "C" fn(event: hipEvent_t) -> hipError_t;

// ---- HSA (hsa.h, hsa_ext_amd.h): only for the device's arch name ----

/// `hsa_status_t`: a C enum; 0 is success.
pub type hsa_status_t = c_uint;
/// `hsa_agent_info_t`: a C enum.
pub type hsa_agent_info_t = c_uint;
/// `hsa_device_type_t`: a C enum.
pub type hsa_device_type_t = c_uint;
/// `hsa_amd_agent_info_t` (hsa_ext_amd.h): a C enum of extra `hsa_agent_get_info` attributes.
pub type hsa_amd_agent_info_t = c_uint;

/// `hsa_agent_t`: an opaque 64-bit handle in a struct.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hsa_agent_s {
    pub handle: u64,
}
pub type hsa_agent_t = hsa_agent_s;

pub const HSA_STATUS_SUCCESS: hsa_status_t = 0;
pub const HSA_STATUS_INFO_BREAK: hsa_status_t = 1;
/// `char[64]`: the agent's ISA name (a processor name such as a target table row's).
pub const HSA_AGENT_INFO_NAME: hsa_agent_info_t = 0;
/// `hsa_device_type_t`.
pub const HSA_AGENT_INFO_DEVICE: hsa_agent_info_t = 17;
pub const HSA_DEVICE_TYPE_GPU: hsa_device_type_t = 1;
/// `uint32_t`: PCI location, bus << 8 | device << 3 | function (hsa_ext_amd.h).
pub const HSA_AMD_AGENT_INFO_BDFID: hsa_amd_agent_info_t = 0xA006;
/// `uint32_t`: PCI domain (hsa_ext_amd.h).
pub const HSA_AMD_AGENT_INFO_DOMAIN: hsa_amd_agent_info_t = 0xA00F;

pub type hsa_init = unsafe extern "C" fn() -> hsa_status_t;
pub type hsa_shut_down = unsafe extern "C" fn() -> hsa_status_t;
pub type hsa_status_string =
    unsafe extern "C" fn(status: hsa_status_t, status_string: *mut *const c_char) -> hsa_status_t;
pub type hsa_iterate_agents = unsafe extern "C" fn(
    callback: Option<unsafe extern "C" fn(agent: hsa_agent_t, data: *mut c_void) -> hsa_status_t>,
    data: *mut c_void,
) -> hsa_status_t;
pub type hsa_agent_get_info = unsafe extern "C" fn(
    agent: hsa_agent_t,
    attribute: hsa_agent_info_t,
    value: *mut c_void,
) -> hsa_status_t;

/// Expands `$m!(prefix... f1, f2, ...)` with every HIP function the harness loads: the one list
/// that the loader (`library::HipApi`) and the stand-in runtime's export type check share.
#[macro_export]
macro_rules! for_each_hip_function {
    ($m:ident ! ( $($prefix:tt)* )) => {
        $m!($($prefix)*
            hipInit,
            hipDriverGetVersion,
            hipRuntimeGetVersion,
            hipGetDeviceCount,
            hipSetDevice,
            hipDeviceGet,
            hipDeviceGetName,
            hipDeviceGetPCIBusId,
            hipGetErrorName,
            hipGetErrorString,
            hipModuleLoadData,
            hipModuleUnload,
            hipModuleGetFunction,
            hipModuleLaunchKernel,
            hipMalloc,
            hipFree,
            hipMemcpyHtoD,
            hipMemcpyDtoH,
            hipStreamCreate,
            hipStreamDestroy,
            hipEventCreate,
            hipEventRecord,
            hipEventQuery,
            hipEventDestroy,
        );
    };
}
