//! What a device is given to run one kernel: the contract between the kernel ABI and every device
//! (emulated or HIP).
//!
//! The kernarg segment of every kernel in this project is exactly `buffers.len()` 64-bit device
//! addresses, in order, and nothing else. A device allocates one device buffer per [`Buffer`],
//! copies `bytes` in (outputs too, so poison patterns are visible), writes the addresses into the
//! kernarg segment, launches `workgroups` workgroups of `workgroup_size` lanes (one wave each),
//! waits, and copies every buffer with `copy_back` into `bytes`. A device that works on `bytes`
//! in place (the emulated device) leaves there whatever the kernel stored, in input buffers too:
//! after a launch, read only the buffers with `copy_back`.

/// One kernel launch over a batch of cases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The kernel's symbol name in the code object (its descriptor is `<kernel>.kd`).
    pub kernel: String,
    /// Workgroups in the grid (x dimension): one per case.
    pub workgroups: u32,
    /// Lanes per workgroup: one wave of the kernel's wave size (32 or 64).
    pub workgroup_size: u32,
    /// The kernel's buffers, in kernarg order.
    pub buffers: Vec<Buffer>,
}

/// One global-memory buffer of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// What the buffer holds (for messages), e.g. `"lanes_in"`.
    pub name: &'static str,
    /// The contents: copied to the device before the launch; replaced by the device's contents
    /// after it when `copy_back` is set (otherwise unspecified after it: see the module docs).
    pub bytes: Vec<u8>,
    /// The kernel writes this buffer: copy it back after the launch.
    pub copy_back: bool,
}

impl Launch {
    /// Size of the kernarg segment in bytes: one 64-bit address per buffer.
    pub fn kernarg_size(&self) -> usize {
        8 * self.buffers.len()
    }
}
