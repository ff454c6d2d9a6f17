//! The per-target hardware errata the kernel template works around ([`Errata`]), a column of
//! the target table. A leaf module (it imports nothing of the crate).
//!
//! Facts: LLVM's AMDGPU subtarget features of the same names (`AMDGPU.td`, the `GFX10_1_Bugs`
//! group and `FeatureLdsMisalignedBug`; `GCNHazardRecognizer.cpp` for what each asks of the
//! code), each confirmed here per target: `kernels/tests/hazards_llc.rs` hands every kernel to
//! `llc-19`/`llc-22 -run-pass=post-RA-hazard-rec` and LLVM inserts nothing; LLVM's choice of
//! `ds_read2_b32` over a misaligned `ds_read_b64` in WGP mode but not in CU mode on exactly the
//! rows with [`Errata::LDS_MISALIGNED_WGP`] (`reference/tests/target_llvm.rs`).

use serde::Serialize;

/// A set of hardware errata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Errata(u8);

impl Errata {
    /// None.
    pub const NONE: Errata = Errata(0);
    /// A scalar instruction that writes a register (EXEC, M0, an SGPR) which an earlier DS or
    /// vector memory instruction reads can overtake that read, unless a VALU instruction,
    /// `s_waitcnt 0` or `s_waitcnt_depctr` with VM_VSRC 0 stands between them (LLVM
    /// `FeatureVMEMtoScalarWriteHazard`, `fixVMEMtoScalarWriteHazards`: RDNA 1).
    pub const VMEM_SCALAR_WRITE: Errata = Errata(1);
    /// An LDS access and a vector memory access that a branch separates need
    /// `s_waitcnt_vscnt null, 0` between them (LLVM `FeatureLdsBranchVmemWARHazard`,
    /// `fixLdsBranchVmemWARHazard`: RDNA 1).
    pub const LDS_BRANCH_VMEM_WAR: Errata = Errata(1 << 1);
    /// Multi-dword LDS accesses that are not naturally aligned go wrong in WGP mode (LLVM
    /// `FeatureLdsMisalignedBug`, which splits them unless the code runs in CU mode): the
    /// kernels of these targets run in CU mode, so a misaligned `ds_read_b64` is tested as the
    /// ISA defines it, not as the erratum breaks it.
    pub const LDS_MISALIGNED_WGP: Errata = Errata(1 << 2);

    /// Every erratum with its name (LLVM's feature name), in bit order.
    pub const NAMED: [(Errata, &'static str); 3] = [
        (Errata::VMEM_SCALAR_WRITE, "vmem-to-scalar-write-hazard"),
        (Errata::LDS_BRANCH_VMEM_WAR, "lds-branch-vmem-war-hazard"),
        (Errata::LDS_MISALIGNED_WGP, "lds-misaligned-bug"),
    ];

    /// Both sets' errata.
    pub const fn union(self, other: Errata) -> Errata {
        Errata(self.0 | other.0)
    }

    /// Every erratum of `other` is in this set.
    pub const fn contains(self, other: Errata) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of the errata in the set, in bit order.
    pub fn names(self) -> Vec<&'static str> {
        Errata::NAMED
            .iter()
            .filter(|(e, _)| self.contains(*e))
            .map(|&(_, n)| n)
            .collect()
    }
}

impl Serialize for Errata {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}
