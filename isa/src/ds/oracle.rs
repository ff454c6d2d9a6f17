//! Which LLVM confirms each row of the DS table (its oracle column), and the spellings LLVM's
//! assembler reads as a row's op in some generations only ([`aliases_of`]: each generation's
//! `Spec::ds_aliases`).
//!
//! Facts: Debian 12's `llvm-mc-19` and `llvm-mc-22` (`-arch=amdgcn -mcpu=<a target of each
//! generation>`), both directions, as `reference/tests/all/llvm_oracle.rs` checks them; LLVM's GFX12 MC
//! alias tests (`llvm/test/MC/AMDGPU/gfx12_asm_ds_alias.s`).

use super::{DsOp, Generation, DS_TABLE};
use serde::Serialize;

/// Which LLVM confirms a row: the oldest of the oracle LLVMs (Debian 12's `llvm-19` and `llvm-22`)
/// whose assembler and disassembler know the op, byte for byte, in every generation that has it.
/// Newer LLVMs confirm it too; older ones must refuse it (both checked by the oracle tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Oracle {
    /// LLVM 19 (and 22).
    Llvm19,
    /// LLVM 22 only: the RDNA4 ops LLVM 19 does not know (their opcodes are also the RDNA4 ISA
    /// guide's, section 16.15), and CDNA 4's transpose loads (LLVM 19 knows no CDNA 4 target).
    Llvm22,
}

impl Oracle {
    /// The LLVM major version that first confirms the row.
    pub fn llvm(self) -> u32 {
        match self {
            Oracle::Llvm19 => 19,
            Oracle::Llvm22 => 22,
        }
    }

    /// LLVM `major` knows the row.
    pub fn known_to(self, major: u32) -> bool {
        major >= self.llvm()
    }
}

/// A spelling LLVM reads as a row's op in one generation only (LLVM prints the row's mnemonic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenerationAlias {
    /// The op it spells.
    pub op: DsOp,
    /// The spelling.
    pub name: &'static str,
    /// The generation whose LLVM assembler reads it.
    pub gen: Generation,
}

impl DsOp {
    /// The spellings LLVM reads as this op in generation `gen` besides its mnemonic: the older
    /// name (every generation of the op that spells it by the gfx11 name; in gfx9 and gfx10 the
    /// older name is the mnemonic) and the generation's own aliases.
    pub fn aliases_in(self, gen: Generation) -> impl Iterator<Item = &'static str> {
        let info = self.info();
        info.legacy_name
            .filter(|_| info.in_generation(gen) && !gen.gfx9_mnemonics())
            .into_iter()
            .chain(
                aliases_of(gen)
                    .filter(move |a| a.op == self)
                    .map(|a| a.name),
            )
    }
}

/// The spellings LLVM reads as a row's op in generation `gen` only (its `Spec::ds_aliases`).
pub fn aliases_of(gen: Generation) -> impl Iterator<Item = GenerationAlias> {
    gen.spec()
        .ds_aliases
        .iter()
        .map(move |&(name, row)| GenerationAlias {
            op: DS_TABLE
                .iter()
                .find(|r| r.name == row)
                .unwrap_or_else(|| panic!("{gen}'s DS alias {name} names no row ({row})"))
                .op,
            name,
            gen,
        })
}

/// The spellings LLVM reads as a row's op in one generation only, of every generation.
pub fn generation_aliases() -> impl Iterator<Item = GenerationAlias> {
    Generation::ALL.into_iter().flat_map(aliases_of)
}
