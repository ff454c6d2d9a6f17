//! The 64-byte AMDHSA kernel descriptor as the emulated device reads it (LLVM AMDGPUUsage, "Kernel
//! Descriptor" for GFX10+/GFX11: offsets 0 group segment size, 16 entry byte offset, 48
//! COMPUTE_PGM_RSRC1, 52 COMPUTE_PGM_RSRC2, 56 kernel code properties), and the initial wave state
//! those fields ask for ([`Request`]; what the target's hardware delivers for it is
//! [`ds_kernels::entry::delivery`]'s, the one entry-state table the kernels follow too).

use ds_isa::target::Target;
use ds_kernels::entry::Request;
use ds_reference::wave::{FpMode, WaveSize};

/// What the emulated device takes from a kernel descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// GROUP_SEGMENT_FIXED_SIZE: LDS bytes per workgroup.
    pub lds_size: u32,
    /// KERNEL_CODE_ENTRY_BYTE_OFFSET: entry relative to the descriptor's address.
    pub entry_offset: i64,
    /// VGPRs the wave has (from GRANULATED_WORKITEM_VGPR_COUNT: granules of 8 in wave32, 4 in wave64).
    pub vgprs: u32,
    /// FLOAT_DENORM_MODE_32/16_64 and ENABLE_IEEE_MODE.
    pub mode: FpMode,
    /// What the kernel asks to find at entry: USER_SGPR_COUNT, the user SGPR fields enabled
    /// (the kernarg pointer's place follows from them), ENABLE_SGPR_WORKGROUP_ID_X/Y/Z and
    /// ENABLE_VGPR_WORKITEM_ID.
    pub request: Request,
    /// ENABLE_WAVEFRONT_SIZE32.
    pub wave32: bool,
}

/// Why a descriptor cannot run on the emulated device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorError(pub String);

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl Descriptor {
    /// Reads a descriptor from its 64 bytes.
    pub fn parse(b: &[u8]) -> Result<Descriptor, DescriptorError> {
        if b.len() < 64 {
            return Err(DescriptorError(format!(
                "kernel descriptor is {} bytes, expected 64",
                b.len()
            )));
        }
        let rsrc1 = u32_at(b, 48);
        let rsrc2 = u32_at(b, 52);
        let props = u16::from_le_bytes([b[56], b[57]]);
        let denorm = |mode: u32, what: &str| match mode {
            0 => Ok(false),
            3 => Ok(true),
            m => Err(DescriptorError(format!(
                "{what} = {m} (flush only inputs or only outputs) is not supported by the \
                 emulated device; the kernels use 0 (flush) or 3 (keep)"
            ))),
        };
        let mode = FpMode {
            fp32_denormals: denorm(rsrc1 >> 16 & 3, "FLOAT_DENORM_MODE_32")?,
            fp16_fp64_denormals: denorm(rsrc1 >> 18 & 3, "FLOAT_DENORM_MODE_16_64")?,
            ieee: rsrc1 >> 23 & 1 == 1,
        };
        let wave32 = props >> 10 & 1 == 1;
        let granule = if wave32 { 8 } else { 4 };
        Ok(Descriptor {
            lds_size: u32_at(b, 0),
            entry_offset: i64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
            vgprs: ((rsrc1 & 0x3f) + 1) * granule,
            mode,
            request: Request::from_fields(props, rsrc2),
            wave32,
        })
    }

    /// Reads a descriptor as a device of `target` does: VGPR granules of 8 in either wave size
    /// on a target with a unified VGPR/AccVGPR file (target column `unified_vgprs`; AMDGPUUsage,
    /// "compute_pgm_rsrc1 for GFX6-GFX12", GRANULATED_WORKITEM_VGPR_COUNT on CDNA 2 and later),
    /// and the generation's wave32 granule (16 on gfx12.5): `vgpr_granule_on`.
    pub fn parse_on(b: &[u8], target: &Target) -> Result<Descriptor, DescriptorError> {
        let mut d = Descriptor::parse(b)?;
        let granule = ds_kernels::code_object::descriptor::vgpr_granule_on(target, d.wave_size());
        d.vgprs = ((u32_at(b, 48) & 0x3f) + 1) * granule;
        Ok(d)
    }

    /// The wave size (ENABLE_WAVEFRONT_SIZE32 set: wave32, else wave64).
    pub fn wave_size(&self) -> WaveSize {
        if self.wave32 {
            WaveSize::Wave32
        } else {
            WaveSize::Wave64
        }
    }

    /// Checks what the emulated device of `target` supports: a wave size the target runs (the
    /// target table's wave sizes), LDS within the target's, a kernarg pointer inside the user
    /// SGPRs.
    pub fn check(&self, target: &Target) -> Result<(), DescriptorError> {
        let wave = self.wave_size();
        if !target.wave_sizes.contains(&(wave.lanes() as u32)) {
            return Err(DescriptorError(format!(
                "the kernel is {wave}; {target} runs wave sizes {:?} only",
                target.wave_sizes
            )));
        }
        if self.lds_size > target.lds_bytes {
            return Err(DescriptorError(format!(
                "GROUP_SEGMENT_FIXED_SIZE {} exceeds the {} bytes of LDS a {target} workgroup can have",
                self.lds_size, target.lds_bytes
            )));
        }
        let user = self.request.user_sgprs;
        if let Some(k) = self.request.kernarg_sgpr() {
            if k + 2 > user {
                return Err(DescriptorError(format!(
                    "USER_SGPR_COUNT {user} is too small for the kernarg pointer at s[{k}:{}]",
                    k + 1
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_from_their_offsets() {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&512u32.to_le_bytes());
        b[16..24].copy_from_slice(&(-0x40i64).to_le_bytes());
        let rsrc1: u32 = 3 | 3 << 16 | 3 << 18 | 1 << 23; // 32 VGPRs, keep denormals, IEEE
        b[48..52].copy_from_slice(&rsrc1.to_le_bytes());
        let rsrc2: u32 = 2 << 1 | 1 << 7; // 2 user SGPRs, workgroup id x
        b[52..56].copy_from_slice(&rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&(1u16 << 3 | 1 << 10).to_le_bytes());
        let d = Descriptor::parse(&b).unwrap();
        assert_eq!(d.lds_size, 512);
        assert_eq!(d.entry_offset, -0x40);
        assert_eq!(d.vgprs, 32);
        assert_eq!(d.mode, FpMode::default());
        assert_eq!(d.request.kernarg_sgpr(), Some(0));
        assert_eq!(d.request.user_sgprs, 2);
        assert_eq!(d.request.workgroup_ids, [true, false, false]);
        assert!(d.check(ds_isa::target::DEFAULT).is_ok());
        b[56..58].copy_from_slice(&(1u16 << 3).to_le_bytes()); // wave64
        let d = Descriptor::parse(&b).unwrap();
        assert_eq!(d.wave_size(), ds_reference::wave::WaveSize::Wave64);
        assert_eq!(d.vgprs, 16, "wave64 VGPR granules are 4");
        assert!(d.check(ds_isa::target::DEFAULT).is_ok());
        let unified = ds_isa::target::TARGETS
            .iter()
            .find(|t| t.unified_vgprs)
            .expect("a target with a unified VGPR file");
        assert_eq!(
            Descriptor::parse_on(&b, unified).unwrap().vgprs,
            32,
            "granules of 8"
        );
    }
}
