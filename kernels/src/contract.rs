//! The fixed facts a generated kernel and the kernel ABI both rely on: the buffers in kernarg
//! order, the per-case record sizes and field offsets, the kernarg segment size, the LDS size
//! limit. [`crate::abi`] (packing and unpacking), the generator and the kernel descriptor read
//! them here, so none of them imports another for a constant (the kernel's symbol name is
//! [`crate::name`]'s).
//! [`crate::abi`]'s module docs describe the ABI these numbers make up.

use ds_reference::wave::WaveSize;

/// Bytes of one lane's input record in `lanes_in`.
pub const LANE_IN_BYTES: u32 = 64;
/// Bytes of one lane's output record in `lanes_out`.
pub const LANE_OUT_BYTES: u32 = 64;
/// Bytes of one case's `wave_in` record (EXEC, M0).
pub const WAVE_IN_BYTES: u32 = 8;
/// Byte offset of EXEC\[63:32\] in a wave64 `wave_in` record (EXEC\[31:0\] at 0, M0 at 4 as in
/// wave32, dword 3 zero).
pub const WAVE_IN_EXEC_HI: u32 = 8;

/// Bytes of one case's `wave_in` record in waves of `wave`: 8 (wave32), 16 (wave64).
pub const fn wave_in_bytes(wave: WaveSize) -> u32 {
    match wave {
        WaveSize::Wave32 => WAVE_IN_BYTES,
        WaveSize::Wave64 => 16,
    }
}
/// Byte offsets of the fields of a `lanes_in` record.
pub const LANE_IN_ADDR: u32 = 0;
/// Offset of data0 in a `lanes_in` record.
pub const LANE_IN_DATA0: u32 = 16;
/// Offset of data1 in a `lanes_in` record.
pub const LANE_IN_DATA1: u32 = 32;
/// Offset of the vdst sentinel in a `lanes_in` record.
pub const LANE_IN_VDST: u32 = 48;
/// Offset of the final vdst in a `lanes_out` record.
pub const LANE_OUT_VDST: u32 = 0;
/// Offset of the final addr in a `lanes_out` record.
pub const LANE_OUT_ADDR: u32 = 16;
/// Offset of the final data0 in a `lanes_out` record (written only with `variant.regs`).
pub const LANE_OUT_DATA0: u32 = 32;
/// Offset of the final data1 in a `lanes_out` record (written only with `variant.regs`).
pub const LANE_OUT_DATA1: u32 = 48;
/// What output buffers hold before the kernel writes them.
pub const POISON: u32 = 0xdead_beef;
/// The largest LDS allocation of a gfx11 workgroup, in bytes.
pub const MAX_LDS_SIZE: u32 = 65536;
/// Work-items per workgroup for kernels in waves of `wave`: one wave per workgroup.
pub const fn workgroup_size(wave: WaveSize) -> u32 {
    wave.lanes() as u32
}

/// The buffers, in kernarg order.
pub const BUFFERS: [&str; 5] = ["lds_in", "lanes_in", "lds_out", "lanes_out", "wave_in"];
/// Kernarg index of each buffer.
pub const LDS_IN: usize = 0;
/// Kernarg index of `lanes_in`.
pub const LANES_IN: usize = 1;
/// Kernarg index of `lds_out`.
pub const LDS_OUT: usize = 2;
/// Kernarg index of `lanes_out`.
pub const LANES_OUT: usize = 3;
/// Kernarg index of `wave_in`.
pub const WAVE_IN: usize = 4;
/// Size of the kernarg segment in bytes.
pub const KERNARG_SIZE: u32 = 8 * BUFFERS.len() as u32;
