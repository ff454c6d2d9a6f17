//! The instruction set one target decodes ([`Isa`]: a generation and the target's
//! [`DsFeatures`], the per-target feature set of `crate::ds_features`).
//!
//! Facts: LLVM's AMDGPU subtarget features as `llvm-mc-19` and `llvm-mc-22` apply them (every
//! gfx9 and gfx10 row of the target table, both directions, `reference/tests/llvm_oracle.rs` and
//! `target_llvm.rs`; the target table's `features` module says which rows have which), named after LLVM's own (`AMDGPU.td`: `FeatureGDS`, `FeatureGWS`,
//! `FeatureGFX90AInsts`, `FeatureAtomicDsPkAdd16Insts`, `FeatureGFX950Insts`,
//! `FeatureRequiresAlignedVGPRs`; `DSInstructions.td`: `HasDsSrc2Insts`). Every feature is a
//! capability (more features accept more words), so the features every target of a generation
//! has are what the generation, named alone, accepts.

pub use crate::ds_features::DsFeatures;
use crate::target::{Generation, Target};
use std::fmt;

/// The DS instruction set one target decodes: its generation's opcode column, bit layout and
/// spellings, and its features. Named by the target, or by the generation when built from one
/// (then with the features every target of the generation has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Isa {
    /// The generation (opcode column, layout, spellings).
    pub gen: Generation,
    /// The target's features.
    pub features: DsFeatures,
    /// The target's name, or the generation's.
    pub name: &'static str,
}

impl Isa {
    /// The instruction set of `target`.
    pub fn of(target: &Target) -> Isa {
        Isa {
            gen: target.generation,
            features: target.ds_features,
            name: target.name,
        }
    }

    /// The instruction set every target of `gen` decodes: the features all of them have.
    pub fn common(gen: Generation) -> Isa {
        let features = gen
            .targets()
            .map(|t| t.ds_features)
            .reduce(DsFeatures::intersection)
            .unwrap_or(DsFeatures::NONE);
        Isa {
            gen,
            features,
            name: gen.name(),
        }
    }

    /// The target has every feature of `f`.
    pub fn has(&self, f: DsFeatures) -> bool {
        self.features.contains(f)
    }
}

impl From<Generation> for Isa {
    fn from(gen: Generation) -> Isa {
        Isa::common(gen)
    }
}

impl From<&Target> for Isa {
    fn from(t: &Target) -> Isa {
        Isa::of(t)
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
