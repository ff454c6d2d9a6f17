//! Owning wrappers over HIP objects (cudarc's `driver/safe` pattern): each frees what it allocated
//! when dropped. The normal path frees explicitly through `close()` so a failure is reported; drop
//! is the fallback on error paths and prints a warning if HIP refuses. After a timed-out kernel
//! nothing may be freed (freeing waits for the hung kernel): the device then `leak()`s them.

use super::library::HipApi;
use super::result::{self, HipError};
use super::sys;
use std::collections::HashMap;
use std::ffi::c_void;

fn warn_drop(what: &str, r: Result<(), HipError>) {
    if let Err(e) = r {
        eprintln!("warning: freeing a HIP {what} failed while cleaning up: {e}");
    }
}

/// A loaded code object, with the kernels looked up in it so far.
#[derive(Debug)]
pub struct Module {
    api: &'static HipApi,
    raw: sys::hipModule_t,
    functions: HashMap<String, sys::hipFunction_t>,
}

impl Module {
    /// `hipModuleLoadData`.
    pub fn load(api: &'static HipApi, image: &[u8]) -> Result<Self, HipError> {
        let raw = result::module_load_data(api, image)?;
        Ok(Module {
            api,
            raw,
            functions: HashMap::new(),
        })
    }

    /// The kernel named `name` (`hipModuleGetFunction`, cached).
    pub fn function(&mut self, name: &str) -> Result<sys::hipFunction_t, String> {
        if let Some(&f) = self.functions.get(name) {
            return Ok(f);
        }
        let c = result::c_string(name)?;
        // SAFETY: `raw` is live while `self` is.
        let f = unsafe { result::module_get_function(self.api, self.raw, &c) }
            .map_err(|e| e.to_string())?;
        self.functions.insert(name.to_string(), f);
        Ok(f)
    }

    /// Unloads, reporting HIP's answer.
    pub fn close(self) -> Result<(), HipError> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: not used again (drop is suppressed).
        unsafe { result::module_unload(me.api, me.raw) }
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: `raw` is not used after drop.
        warn_drop("module", unsafe {
            result::module_unload(self.api, self.raw)
        });
    }
}

/// One device allocation.
#[derive(Debug)]
pub struct DeviceBuffer {
    api: &'static HipApi,
    ptr: *mut c_void,
    len: usize,
}

impl DeviceBuffer {
    /// `hipMalloc` of `len` bytes (at least 1, so every buffer has its own address).
    pub fn alloc(api: &'static HipApi, len: usize) -> Result<Self, HipError> {
        let ptr = result::malloc(api, len.max(1))?;
        Ok(DeviceBuffer { api, ptr, len })
    }

    /// The device address, for the kernarg segment.
    pub fn address(&self) -> u64 {
        self.ptr as u64
    }

    /// Copies `src` (exactly the buffer's length) to the device.
    pub fn upload(&mut self, src: &[u8]) -> Result<(), HipError> {
        assert_eq!(src.len(), self.len, "upload must fill the buffer");
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: the allocation holds `len` bytes.
        unsafe { result::memcpy_htod(self.api, self.ptr, src) }
    }

    /// Copies the buffer back into `dst` (exactly the buffer's length). Call only after the work
    /// writing it has completed.
    pub fn download(&self, dst: &mut [u8]) -> Result<(), HipError> {
        assert_eq!(dst.len(), self.len, "download must fill the destination");
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: the allocation holds `len` bytes; the caller waited for the kernel.
        unsafe { result::memcpy_dtoh(self.api, dst, self.ptr) }
    }

    /// Frees, reporting HIP's answer.
    pub fn close(self) -> Result<(), HipError> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: not used again.
        unsafe { result::free(me.api, me.ptr) }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: not used after drop.
        warn_drop("buffer", unsafe { result::free(self.api, self.ptr) });
    }
}

/// A stream.
#[derive(Debug)]
pub struct Stream {
    api: &'static HipApi,
    raw: sys::hipStream_t,
}

impl Stream {
    /// `hipStreamCreate`.
    pub fn new(api: &'static HipApi) -> Result<Self, HipError> {
        Ok(Stream {
            api,
            raw: result::stream_create(api)?,
        })
    }

    /// The raw handle, for launches.
    pub fn raw(&self) -> sys::hipStream_t {
        self.raw
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: not used after drop.
        warn_drop("stream", unsafe {
            result::stream_destroy(self.api, self.raw)
        });
    }
}

/// An event: recorded after a launch and polled, so that every wait is bounded.
#[derive(Debug)]
pub struct Event {
    api: &'static HipApi,
    raw: sys::hipEvent_t,
}

impl Event {
    /// `hipEventCreate`.
    pub fn new(api: &'static HipApi) -> Result<Self, HipError> {
        Ok(Event {
            api,
            raw: result::event_create(api)?,
        })
    }

    /// `hipEventRecord` on `stream`.
    pub fn record(&self, stream: &Stream) -> Result<(), HipError> {
        // SAFETY: both handles are live while their owners are.
        unsafe { result::event_record(self.api, self.raw, stream.raw) }
    }

    /// `hipEventQuery`: has the work before the record completed?
    pub fn is_done(&self) -> Result<bool, HipError> {
        // SAFETY: live handle.
        unsafe { result::event_query(self.api, self.raw) }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: not used after drop.
        warn_drop("event", unsafe {
            result::event_destroy(self.api, self.raw)
        });
    }
}
