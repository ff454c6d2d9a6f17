//! The fixed facts a generated kernel and the kernel ABI both rely on: the buffers in kernarg
//! order, the per-case record sizes and field offsets, the kernarg segment size, the LDS size
//! limit. [`crate::abi`] (packing and unpacking), the generator and the kernel descriptor read
//! them here, so none of them imports another for a constant (the kernel's symbol name is
//! [`crate::name`]'s).
//! [`crate::abi`]'s module docs describe the ABI these numbers make up.

use ds_reference::wave::WaveSize;

/// Bytes of one lane's input record in `lanes_in` (of a variant whose op reads at most 4
/// dwords of DATA1: [`lane_in_bytes`]).
pub const LANE_IN_BYTES: u32 = 64;
/// Bytes of one lane's input record of an op with an 8-dword DATA1 (gfx12's BVH push8 forms):
/// the 64-byte record, then DATA1\[4..8\] at [`LANE_IN_DATA1_HI`], then 48 zero bytes.
pub const LANE_IN_BYTES_DATA8: u32 = 128;
/// Offset of DATA1\[4..8\] in a [`LANE_IN_BYTES_DATA8`] record.
pub const LANE_IN_DATA1_HI: u32 = 64;

/// Bytes of one lane's input record for an op that reads `data1_dwords` dwords of DATA1.
pub const fn lane_in_bytes(data1_dwords: u8) -> u32 {
    if data1_dwords > 4 {
        LANE_IN_BYTES_DATA8
    } else {
        LANE_IN_BYTES
    }
}
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
/// The largest LDS allocation of any target's workgroup, in bytes: the ceiling of the ABI's LDS
/// buffers (the target table's `lds_bytes`; each target's own is its row's, which kernels and
/// case files are held to).
pub fn max_lds_size() -> u32 {
    ds_isa::target::TARGETS
        .iter()
        .map(|t| t.lds_bytes)
        .max()
        .expect("the target table has rows")
}
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

/// The canary's facts ([`crate::canary`]: the self-check kernel a run launches before any op),
/// shared by the kernel that writes its records and the check that reads them.
pub mod canary {
    /// Workgroups the canary launches; each writes the block `workgroup id & (WORKGROUPS - 1)`.
    pub const WORKGROUPS: u32 = 4;
    /// Bytes of one lane's record in the `records` buffer (twelve dwords used, four spare).
    pub const RECORD_BYTES: u32 = 64;
    /// Dwords of a record the kernel writes.
    pub const RECORD_DWORDS: usize = 12;
    /// Record dword 0: [`MARKER`], written by every lane that ran.
    pub const AT_MARKER: usize = 0;
    /// Record dword 1: work-item id x as the template reads it (v0 \[9:0\]).
    pub const AT_LANE: usize = 1;
    /// Record dword 2: the workgroup id, raw, from the register the template reads.
    pub const AT_GROUP: usize = 2;
    /// Record dword 3: EXEC\[31:0\] at entry.
    pub const AT_EXEC_LO: usize = 3;
    /// Record dword 4: EXEC\[63:32\] at entry (wave64; 0 in wave32).
    pub const AT_EXEC_HI: usize = 4;
    /// Record dword 5: M0 read back after the kernel set it to [`M0_VALUE`].
    pub const AT_M0: usize = 5;
    /// Record dword 6: the dword the next lane stored in LDS.
    pub const AT_NEIGHBOUR: usize = 6;
    /// Record dwords 7..=10: the dword behind kernarg addresses 1, 2, 3 and 4.
    pub const AT_MAGIC: usize = 7;
    /// Record dword 11: [`END`], in the last of the record's three stores.
    pub const AT_END: usize = 11;
    /// What a lane that ran writes at [`AT_MARKER`].
    pub const MARKER: u32 = 0xca7a_11ed;
    /// What a lane writes at [`AT_END`].
    pub const END: u32 = 0xca7a_e4d5;
    /// Lane `l` stores `LDS_TAG + l` at LDS byte `4 * l`.
    pub const LDS_TAG: u32 = 0x1d50_0000;
    /// The value the kernel writes to M0 and reads back.
    pub const M0_VALUE: u32 = 0x4d30_ca7a;
    /// The dword buffer `i` (1..=4) holds: `MAGIC + i`.
    pub const MAGIC: u32 = 0x6b61_7200;
    /// The canary's buffers, in kernarg order (as many as the kernel ABI's, 8 bytes each, so the
    /// code object's metadata describes its kernarg segment as it does every kernel's).
    pub const BUFFERS: [&str; 5] = ["canary_records", "magic_1", "magic_2", "magic_3", "magic_4"];
}
