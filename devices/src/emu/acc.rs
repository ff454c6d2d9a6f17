//! The emulated device's AccVGPR file: how many AccVGPRs a kernel descriptor allocates.
//!
//! Facts (LLVM AMDGPUUsage, the kernel descriptor's COMPUTE_PGM_RSRC3 of the unified-VGPR
//! targets: ACCUM_OFFSET \[5:0\] = offset / 4 - 1; `getTotalNumVGPRs` in `AMDGPUBaseInfo.cpp`,
//! reviews.llvm.org/D119912): on the targets with AccVGPR DS operands (the target table's
//! `ds_features` ACC, whose register file is unified) the architected VGPRs are
//! the first ACCUM_OFFSET registers of the descriptor's VGPR count and the AccVGPRs the rest.
//! Elsewhere a kernel has no AccVGPRs here (a separate AccVGPR file is not modelled: no target
//! with one has the DS acc bit).

use super::descriptor::Descriptor;
use ds_isa::ds_features::DsFeatures;
use ds_isa::target::Target;
use ds_kernels::code_object::descriptor::KernelDescriptor;

/// Splits `desc`'s VGPR count for `target`: `desc.vgprs` becomes the architected VGPRs and the
/// AccVGPR count is returned (0 on a target without ACC, or when ACCUM_OFFSET covers them all).
pub fn split(target: &Target, kd: &KernelDescriptor, desc: &mut Descriptor) -> Result<u32, String> {
    if !target.ds_features.contains(DsFeatures::ACC) {
        return Ok(0);
    }
    let accum_offset = ((kd.compute_pgm_rsrc3 & 0x3f) + 1) * 4;
    if accum_offset >= desc.vgprs {
        return Ok(0);
    }
    let agprs = desc.vgprs - accum_offset;
    if agprs > 256 {
        return Err(format!(
            "the descriptor allocates {} VGPRs with ACCUM_OFFSET {accum_offset}: {agprs} \
             AccVGPRs, more than the 256 a wave can address",
            desc.vgprs
        ));
    }
    desc.vgprs = accum_offset;
    Ok(agprs)
}
