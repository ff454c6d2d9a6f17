//! The 64-byte AMDHSA kernel descriptor (LLVM AMDGPUUsage, "Kernel Descriptor" for GFX10+/GFX11:
//! the "Kernel Descriptor for GFX6-GFX12", "compute_pgm_rsrc1/2/3 for GFX6-GFX12" and
//! "Kernel Code Properties" tables). The fields of a generated kernel's descriptor are chosen by
//! [`crate::template::descriptor`]; values checked against what `llvm-mc-19` writes for the same
//! `.amdhsa_kernel` directives (`tests/all/code_object_llvm_link.rs`).
//!
//! Layout: group_segment_fixed_size u32 @0, private_segment_fixed_size u32 @4, kernarg_size u32
//! @8, reserved @12..16, kernel_code_entry_byte_offset i64 @16, reserved @24..44,
//! compute_pgm_rsrc3 u32 @44, compute_pgm_rsrc1 u32 @48, compute_pgm_rsrc2 u32 @52,
//! kernel_code_properties u16 @56, kernarg_preload u16 @58, reserved @60..64.

use ds_reference::wave::{FpMode, WaveSize};
use std::fmt;

/// Size of a descriptor in bytes.
pub const SIZE: usize = 64;

/// compute_pgm_rsrc1 bits.
pub mod rsrc1 {
    /// GRANULATED_WORKITEM_VGPR_COUNT \[5:0\]: granules of VGPRs ([`vgpr_granule`](super::vgpr_granule):
    /// 8 in wave32, 4 in wave64), minus one.
    pub const VGPR_SHIFT: u32 = 0;
    /// FLOAT_DENORM_MODE_32 \[17:16\].
    pub const DENORM_32_SHIFT: u32 = 16;
    /// FLOAT_DENORM_MODE_16_64 \[19:18\].
    pub const DENORM_16_64_SHIFT: u32 = 18;
    /// ENABLE_DX10_CLAMP \[21\] (GFX6-GFX11; GFX12 reuses the bit as ENABLE_WG_RR_EN).
    pub const DX10_CLAMP: u32 = 1 << 21;
    /// ENABLE_IEEE_MODE \[23\] (GFX6-GFX11; reserved on GFX12, which has no IEEE mode).
    pub const IEEE_MODE: u32 = 1 << 23;
    /// GRANULATED_WAVEFRONT_SGPR_COUNT \[9:6\] (GFX6-GFX9; 0 on GFX10+).
    pub const SGPR_SHIFT: u32 = 6;
    /// WGP_MODE \[29\] (GFX10+): the workgroup runs in work-group-processor mode.
    pub const WGP_MODE: u32 = 1 << 29;
    /// MEM_ORDERED \[30\] (GFX10+).
    pub const MEM_ORDERED: u32 = 1 << 30;
    /// FWD_PROGRESS \[31\] (GFX10+): clear in these kernels. LLVM 22 sets it when
    /// `.amdhsa_forward_progress` is not given, LLVM 19 does not.
    pub const FWD_PROGRESS: u32 = 1 << 31;
    /// Denorm mode value: flush source and destination denormals.
    pub const DENORM_FLUSH: u32 = 0;
    /// Denorm mode value: keep denormals.
    pub const DENORM_KEEP: u32 = 3;
}

/// compute_pgm_rsrc3 bits of CDNA 2 and later (AMDGPUUsage, "compute_pgm_rsrc3" for those
/// processors).
pub mod rsrc3 {
    /// ACCUM_OFFSET \[5:0\]: the first AccVGPR of the unified register file, in units of 4
    /// VGPRs, minus one.
    pub const ACCUM_OFFSET_SHIFT: u32 = 0;
    /// TG_SPLIT \[16\]: clear (waves of a workgroup share a CU).
    pub const TG_SPLIT: u32 = 1 << 16;
}

/// compute_pgm_rsrc2 bits.
pub mod rsrc2 {
    /// USER_SGPR_COUNT \[5:1\].
    pub const USER_SGPR_SHIFT: u32 = 1;
    /// ENABLE_SGPR_WORKGROUP_ID_X \[7\].
    pub const WORKGROUP_ID_X: u32 = 1 << 7;
    /// ENABLE_SGPR_WORKGROUP_ID_Y \[8\].
    pub const WORKGROUP_ID_Y: u32 = 1 << 8;
    /// ENABLE_SGPR_WORKGROUP_ID_Z \[9\].
    pub const WORKGROUP_ID_Z: u32 = 1 << 9;
    /// ENABLE_VGPR_WORKITEM_ID \[12:11\]: 0 = x only.
    pub const WORKITEM_ID_SHIFT: u32 = 11;
}

/// kernel_code_properties bits.
pub mod props {
    /// ENABLE_SGPR_KERNARG_SEGMENT_PTR \[3\].
    pub const KERNARG_SEGMENT_PTR: u16 = 1 << 3;
    /// ENABLE_WAVEFRONT_SIZE32 \[10\].
    pub const WAVEFRONT_SIZE32: u16 = 1 << 10;
}

/// VGPRs per GRANULATED_WORKITEM_VGPR_COUNT granule (LLVM AMDGPUUsage, compute_pgm_rsrc1 for GFX10-GFX11:
/// `ceil(vgprs / 8) - 1` in wave32, `ceil(vgprs / 4) - 1` in wave64; the encoding granule, which
/// is not the allocation granule).
pub const fn vgpr_granule(wave: WaveSize) -> u32 {
    match wave {
        WaveSize::Wave32 => 8,
        WaveSize::Wave64 => 4,
    }
}

/// The VGPR encoding granule on `target`: 8 on a target with a unified VGPR/AccVGPR file (target
/// column `unified_vgprs`; AMDGPUUsage, "compute_pgm_rsrc1 for GFX6-GFX12":
/// GRANULATED_WORKITEM_VGPR_COUNT: granule 8 on CDNA 2 and later), in wave32 the generation's
/// (`Spec::vgpr_granule32`: 16 on gfx12.5, whose 1024 VGPRs `llvm-mc-22` counts in 16s), else
/// [`vgpr_granule`].
pub fn vgpr_granule_on(target: &ds_isa::target::Target, wave: WaveSize) -> u32 {
    if target.unified_vgprs {
        8
    } else if wave.is_wave32() {
        target.generation.spec().vgpr_granule32
    } else {
        vgpr_granule(wave)
    }
}

/// A kernel descriptor, field by field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// LDS bytes the workgroup is given.
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Kernarg segment bytes.
    pub kernarg_size: u32,
    /// Byte offset from the descriptor to the kernel's first instruction.
    pub kernel_code_entry_byte_offset: i64,
    /// compute_pgm_rsrc3.
    pub compute_pgm_rsrc3: u32,
    /// compute_pgm_rsrc1 (see [`rsrc1`]).
    pub compute_pgm_rsrc1: u32,
    /// compute_pgm_rsrc2 (see [`rsrc2`]).
    pub compute_pgm_rsrc2: u32,
    /// kernel_code_properties (see [`props`]).
    pub kernel_code_properties: u16,
    /// kernarg_preload (GFX940 only; 0 here).
    pub kernarg_preload: u16,
}

/// Why 64 bytes are not a descriptor this crate accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescriptorError {
    /// Fewer than 64 bytes.
    Short(usize),
    /// A reserved byte range is not zero.
    Reserved { at: usize },
}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptorError::Short(n) => {
                write!(f, "a kernel descriptor is 64 bytes, only {n} are there")
            }
            DescriptorError::Reserved { at } => {
                write!(
                    f,
                    "reserved descriptor byte {at} is not zero (a corrupt or non-GFX11 descriptor)"
                )
            }
        }
    }
}

impl std::error::Error for DescriptorError {}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl KernelDescriptor {
    /// The 64 bytes.
    pub fn to_bytes(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// Parses 64 bytes, requiring the reserved ranges to be zero.
    pub fn from_bytes(b: &[u8]) -> Result<KernelDescriptor, DescriptorError> {
        if b.len() < SIZE {
            return Err(DescriptorError::Short(b.len()));
        }
        for at in (12..16).chain(24..44).chain(60..64) {
            if b[at] != 0 {
                return Err(DescriptorError::Reserved { at });
            }
        }
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(b, 0),
            private_segment_fixed_size: u32_at(b, 4),
            kernarg_size: u32_at(b, 8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(
                b[16..24].try_into().expect("8 bytes"),
            ),
            compute_pgm_rsrc3: u32_at(b, 44),
            compute_pgm_rsrc1: u32_at(b, 48),
            compute_pgm_rsrc2: u32_at(b, 52),
            kernel_code_properties: u16::from_le_bytes([b[56], b[57]]),
            kernarg_preload: u16::from_le_bytes([b[58], b[59]]),
        })
    }

    /// Waves are 32 lanes wide (ENABLE_WAVEFRONT_SIZE32).
    pub fn wave32(&self) -> bool {
        self.kernel_code_properties & props::WAVEFRONT_SIZE32 != 0
    }

    /// The wave size the descriptor asks for (ENABLE_WAVEFRONT_SIZE32 set: wave32, else wave64).
    pub fn wave_size(&self) -> WaveSize {
        if self.wave32() {
            WaveSize::Wave32
        } else {
            WaveSize::Wave64
        }
    }

    /// The kernarg segment address is loaded into the first user SGPR pair.
    pub fn kernarg_ptr(&self) -> bool {
        self.kernel_code_properties & props::KERNARG_SEGMENT_PTR != 0
    }

    /// User SGPRs set up at entry (USER_SGPR_COUNT).
    pub fn user_sgpr_count(&self) -> u32 {
        self.compute_pgm_rsrc2 >> rsrc2::USER_SGPR_SHIFT & 0x1f
    }

    /// Workgroup ids x, y, z enabled as system SGPRs (in that order after the user SGPRs).
    pub fn workgroup_ids(&self) -> [bool; 3] {
        let r = self.compute_pgm_rsrc2;
        [
            r & rsrc2::WORKGROUP_ID_X != 0,
            r & rsrc2::WORKGROUP_ID_Y != 0,
            r & rsrc2::WORKGROUP_ID_Z != 0,
        ]
    }

    /// ENABLE_VGPR_WORKITEM_ID: 0 = x, 1 = x and y, 2 = x, y and z (all packed in v0 on GFX11).
    pub fn workitem_id_dims(&self) -> u32 {
        self.compute_pgm_rsrc2 >> rsrc2::WORKITEM_ID_SHIFT & 3
    }

    /// VGPRs allocated per lane on `target` (granules of [`vgpr_granule_on`]).
    pub fn vgpr_count_on(&self, target: &ds_isa::target::Target) -> u32 {
        ((self.compute_pgm_rsrc1 >> rsrc1::VGPR_SHIFT & 0x3f) + 1)
            * vgpr_granule_on(target, self.wave_size())
    }

    /// VGPRs allocated per lane (granules of the descriptor's wave size; on a target with a
    /// unified VGPR file: [`KernelDescriptor::vgpr_count_on`]).
    pub fn vgpr_count(&self) -> u32 {
        ((self.compute_pgm_rsrc1 >> rsrc1::VGPR_SHIFT & 0x3f) + 1) * vgpr_granule(self.wave_size())
    }

    /// The FP mode the descriptor sets (denormals kept only for mode 3, IEEE bit).
    pub fn fp_mode(&self) -> FpMode {
        let r = self.compute_pgm_rsrc1;
        FpMode {
            fp32_denormals: r >> rsrc1::DENORM_32_SHIFT & 3 == rsrc1::DENORM_KEEP,
            fp16_fp64_denormals: r >> rsrc1::DENORM_16_64_SHIFT & 3 == rsrc1::DENORM_KEEP,
            ieee: r & rsrc1::IEEE_MODE != 0,
        }
    }

    /// `.amdhsa_accum_offset` as compute_pgm_rsrc3's ACCUM_OFFSET encodes it (for a target with
    /// a unified VGPR file: `unified_vgprs`).
    pub fn accum_offset(&self) -> u32 {
        ((self.compute_pgm_rsrc3 >> rsrc3::ACCUM_OFFSET_SHIFT & 0x3f) + 1) * 4
    }

    /// FLOAT_DENORM_MODE_32 and FLOAT_DENORM_MODE_16_64 as raw 2-bit values.
    pub fn denorm_modes(&self) -> (u32, u32) {
        let r = self.compute_pgm_rsrc1;
        (
            r >> rsrc1::DENORM_32_SHIFT & 3,
            r >> rsrc1::DENORM_16_64_SHIFT & 3,
        )
    }
}
