//! The per-target DS feature set ([`DsFeatures`]): what a target's DS instructions can do
//! beyond its generation's opcode column, a column of the target table. A leaf module (it
//! imports nothing of the crate), so the target table and the ISA both use it.
//!
//! Facts: LLVM's AMDGPU subtarget features as `llvm-mc-19` and `llvm-mc-22` apply them (every
//! gfx9 and gfx10 row of the target table, both directions, `reference/tests/llvm_oracle.rs` and
//! `target_llvm.rs`; the target table's `features` module says which rows have which), named
//! after LLVM's own (`AMDGPU.td`: `FeatureGDS`, `FeatureGWS`, `FeatureGFX90AInsts`,
//! `FeatureAtomicDsPkAdd16Insts`, `FeatureGFX950Insts`, `FeatureRequiresAlignedVGPRs`;
//! `DSInstructions.td`: `HasDsSrc2Insts`). Every feature is a capability (more features accept
//! more words), so the features every target of a generation has are what the generation, named
//! alone, accepts.

use serde::Serialize;
use std::fmt;

/// A set of per-target DS capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DsFeatures(u16);

impl DsFeatures {
    /// No feature.
    pub const NONE: DsFeatures = DsFeatures(0);
    /// The `gds` bit selects GDS on LDS ops, and `ds_ordered_count` / `ds_*_gs_reg_rtn` exist
    /// (LLVM `FeatureGDS`; gone from CDNA 2 on: `llvm-mc` says "gds modifier is not supported on
    /// this GPU").
    pub const GDS: DsFeatures = DsFeatures(1);
    /// The global-wave-sync ops (`ds_gws_*`, LLVM `FeatureGWS`; CDNA 2 and later keep them without GDS).
    pub const GWS: DsFeatures = DsFeatures(1 << 1);
    /// The 31 `ds_*_src2_*` ops (LLVM `HasDsSrc2Insts`: gfx9 before CDNA 2, RDNA 1).
    pub const SRC2: DsFeatures = DsFeatures(1 << 2);
    /// `ds_add_f64` and `ds_add_rtn_f64` (LLVM `FeatureGFX90AInsts`).
    pub const F64: DsFeatures = DsFeatures(1 << 3);
    /// `ds_pk_add_f16/bf16` and their `_rtn` forms (LLVM `FeatureAtomicDsPkAdd16Insts`: CDNA 3
    /// and later, gfx12).
    pub const PK16: DsFeatures = DsFeatures(1 << 4);
    /// CDNA 4's transpose loads `ds_read_b64_tr_b4/b8/b16`, `ds_read_b96_tr_b6` (LLVM
    /// `FeatureGFX950Insts`, LLVM 22).
    pub const TR: DsFeatures = DsFeatures(1 << 5);
    /// The `acc` bit (bit 25 of the gfx9 layout): vdst and data live in AccVGPRs, written
    /// `a1`, `a[2:3]` (LLVM `FeatureGFX90AInsts`: CDNA 2 and later).
    pub const ACC: DsFeatures = DsFeatures(1 << 6);
    /// A register tuple (and a GWS data register) may start at an odd register. Without it
    /// (LLVM `FeatureRequiresAlignedVGPRs`, CDNA 2 and later) `llvm-mc` refuses `v[3:4]`
    /// ("vgpr tuples must be 64 bit aligned") and `ds_gws_init v5` ("vgpr must be even aligned").
    pub const UNALIGNED: DsFeatures = DsFeatures(1 << 7);

    /// Every feature.
    pub const ALL: DsFeatures = DsFeatures(0xff);

    /// Every feature with its name, in bit order.
    pub const NAMED: [(DsFeatures, &'static str); 8] = [
        (DsFeatures::GDS, "gds"),
        (DsFeatures::GWS, "gws"),
        (DsFeatures::SRC2, "src2"),
        (DsFeatures::F64, "add-f64"),
        (DsFeatures::PK16, "pk-add-16"),
        (DsFeatures::TR, "transpose-loads"),
        (DsFeatures::ACC, "acc"),
        (DsFeatures::UNALIGNED, "unaligned-tuples"),
    ];

    /// Both sets' features.
    pub const fn union(self, other: DsFeatures) -> DsFeatures {
        DsFeatures(self.0 | other.0)
    }

    /// The features both sets have.
    pub const fn intersection(self, other: DsFeatures) -> DsFeatures {
        DsFeatures(self.0 & other.0)
    }

    /// The features of this set that `other` lacks.
    pub const fn difference(self, other: DsFeatures) -> DsFeatures {
        DsFeatures(self.0 & !other.0)
    }

    /// Every feature of `other` is in this set (the empty set is in every set).
    pub const fn contains(self, other: DsFeatures) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of the features in the set, in bit order.
    pub fn names(self) -> Vec<&'static str> {
        DsFeatures::NAMED
            .iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|&(_, n)| n)
            .collect()
    }

    /// The name of a single feature (`None` for the empty set or several).
    pub fn name(self) -> Option<&'static str> {
        DsFeatures::NAMED
            .iter()
            .find(|(f, _)| *f == self)
            .map(|&(_, n)| n)
    }
}

impl Serialize for DsFeatures {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}

impl fmt::Display for DsFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = self.names();
        if names.is_empty() {
            f.write_str("-")
        } else {
            f.write_str(&names.join(", "))
        }
    }
}
