//! The DS rules that can differ between generations ([`Rule`]), the answers a generation can
//! give ([`PermuteSpan`], [`CmpstData0`], a swizzle group's lanes) and each answer in words with
//! its sources ([`Choice`]), which a generation's module picks. Sources: LLVM
//! `GCNSubtarget::supportsWaveWideBPermute()` and `DSInstructions.td` (`DSAtomicCmpXChg_mc`),
//! Mesa ACO `emit_bpermute`, the ISA guides' DS_SWIZZLE_B32 and DS_CMPST(ORE)_B32 pseudocode, and
//! the readings of ASSUMPTIONS.md named in each.

/// Which lanes of a wave64 a permute address can name ([`Generation::permute_span`](super::Generation::permute_span)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PermuteSpan {
    /// Address bits [6:2] name a lane of the 32-lane half of the reading (bpermute) or sending
    /// (permute) lane.
    Halves,
    /// Address bits [6:2] (wave32) or [7:2] (wave64) name any lane of the wave.
    Wave,
}

/// What DATA0 of a compare-store holds ([`Generation::cmpst_data0`](super::Generation::cmpst_data0)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpstData0 {
    /// DATA0 is stored when memory equals DATA1.
    NewValue,
    /// DATA1 is stored when memory equals DATA0.
    CompareValue,
}

/// A DS rule that can differ between generations: each is one `Generation` method, answered by
/// the generation's [`Spec`](super::Spec).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `Generation::permute_span`.
    PermuteSpan,
    /// `Generation::swizzle_group`.
    SwizzleGroup,
    /// `Generation::cmpst_data0`.
    CmpstData0,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 3] = [Rule::PermuteSpan, Rule::SwizzleGroup, Rule::CmpstData0];

    /// The `Generation` method that answers it.
    pub fn method(self) -> &'static str {
        match self {
            Rule::PermuteSpan => "Generation::permute_span",
            Rule::SwizzleGroup => "Generation::swizzle_group",
            Rule::CmpstData0 => "Generation::cmpst_data0",
        }
    }
}

/// A generation's choice of one rule, in words (`Generation::rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleText {
    /// The rule.
    pub rule: Rule,
    /// The `Generation` method that answers it.
    pub method: &'static str,
    /// What the generation does.
    pub choice: &'static str,
    /// Why: the sources.
    pub why: &'static str,
}

/// One answer to a rule: the value the model reads, what it means in words, and why (the
/// sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<T> {
    /// The answer.
    pub value: T,
    /// What the generation does, in words.
    pub choice: &'static str,
    /// Why: the sources.
    pub why: &'static str,
}

/// A wave64 permute stays within its 32-lane half (GFX10 and GFX11).
pub const PERMUTE_WITHIN_HALVES: Choice<PermuteSpan> = Choice {
    value: PermuteSpan::Halves,
    choice: "within each 32-lane half of a wave64: address bits [6:2] name a lane of the \
             reading (bpermute) or sending (permute) lane's own half",
    why: "LLVM `GCNSubtarget::supportsWaveWideBPermute()` is false for GFX10 and GFX11 \
          in wave64, and Mesa ACO (`emit_bpermute`) emulates a full-wave bpermute on \
          GFX10-GFX11.5 wave64 from two ds_bpermute_b32 and v_permlane64_b32, so one \
          ds_bpermute_b32 stays in its half (ASSUMPTIONS.md W1, W2)",
};

/// A wave64 permute names any lane of the wave (GFX9, GFX12).
pub const PERMUTE_OVER_THE_WAVE: Choice<PermuteSpan> = Choice {
    value: PermuteSpan::Wave,
    choice: "over the whole wave64: address bits [7:2] name any of the 64 lanes",
    why: "LLVM `GCNSubtarget::supportsWaveWideBPermute()` is true for GFX12 (as for \
          GFX9 and every wave32), and Mesa ACO (`emit_bpermute`) issues one \
          ds_bpermute_b32 for a wave64 shuffle on GFX12 (\"bpermute works normally\"), \
          emulating it only on GFX10-GFX11.5 (ASSUMPTIONS.md W9, W10)",
};

/// `ds_swizzle_b32` works on 32-lane groups (every generation so far).
pub const SWIZZLE_IN_32_LANE_GROUPS: Choice<usize> = Choice {
    value: 32,
    choice: "each 32-lane group of a wave64 swizzles on its own (the group kept, lane \
             numbers within it 5 bits wide)",
    why: "the ISA guides' DS_SWIZZLE_B32 masks are 5 bits wide and their pseudocode takes \
          the lane within 32 (ASSUMPTIONS.md W3, W4)",
};

/// A compare-store's DATA0 is the new value (GFX11 on).
pub const CMPST_NEW_VALUE_FIRST: Choice<CmpstData0> = Choice {
    value: CmpstData0::NewValue,
    choice: "DATA0 is the new value, DATA1 the compare value",
    why: "the RDNA3 and RDNA4 guides' DS_CMPSTORE_B32 pseudocode: `src = DATA; cmp = \
          DATA2; MEM = tmp == cmp ? src : tmp`; LLVM `DSInstructions.td` (`DSAtomicCmpXChg_mc`) \
          passes the new value first from GFX11 on and the compare value first before",
};

/// A compare-store's DATA0 is the compare value (GFX9, GFX10).
pub const CMPST_COMPARE_VALUE_FIRST: Choice<CmpstData0> = Choice {
    value: CmpstData0::CompareValue,
    choice: "DATA0 is the compare value, DATA1 the new value",
    why: "the GCN and RDNA1/2 guides' DS_CMPST_B32 pseudocode (`cmp = DATA; src = \
          DATA2`) and LLVM `DSInstructions.td` (`DSAtomicCmpXChg_mc`)",
};
