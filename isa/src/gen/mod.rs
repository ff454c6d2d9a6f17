//! The instruction-set generations ([`Generation`]) and what each one is, as data: one module per
//! generation ([`gfx9`], [`gfx10`], [`gfx11`], [`gfx12`], [`gfx12_5`]), each one [`Spec`] (its DS layout and
//! spellings, the DS rules it chooses with their sources, the non-DS formats of the kernel
//! template's instructions, its `s_waitcnt` layout and operand codes). The encoders, decoders,
//! printers and the model read a generation's [`Spec`]; nothing else decides by generation.
//! [`Generation::spec`] is the one place that maps a generation to its module.
//!
//! The types of the data are here ([`formats`] the non-DS formats, [`rules`] the DS rules and
//! the words each choice is explained in); the facts and their sources are in each generation's
//! module. A new generation is a module here, a variant of [`Generation`] and an arm of
//! [`Generation::spec`], plus its opcode columns in the DS table (`ds/table.rs`) and the template
//! ops table (`inst/ops.rs`) and its rows in the target table (`target.rs`).

pub mod formats;
pub mod gfx10;
pub mod gfx11;
pub mod gfx12;
pub mod gfx12_5;
pub mod gfx9;
pub mod rules;

pub use formats::{
    Bits, GlobalFormat, OperandCodes, SmemFormat, SmemOffset, Vop3Format, WaitcntLayout,
};
pub use rules::{Choice, CmpstData0, PermuteSpan, Rule, RuleText};
use std::fmt;

/// An instruction-set generation: one opcode column of the DS table and of the template's ops
/// table, one [`Spec`]. What differs between the targets of one generation is a column of the
/// target table (`ds_features`, `errata`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// gfx9: Vega and CDNA 1-4: [`gfx9`].
    Gfx9,
    /// gfx10: RDNA 1 and RDNA 2: [`gfx10`].
    Gfx10,
    /// gfx11: RDNA 3 and RDNA 3.5: [`gfx11`].
    Gfx11,
    /// gfx12: RDNA 4: [`gfx12`].
    Gfx12,
    /// gfx12.5: GFX 12.5, "CDNA 5" (two processors in the target table): [`gfx12_5`].
    Gfx12_5,
}

/// Everything that is true of one generation, as data (see each generation's module for the
/// facts and their sources).
#[derive(Debug)]
pub struct Spec {
    /// The generation's name, e.g. `gfx11`.
    pub name: &'static str,
    /// The AMD ISA guides (and LLVM sources) the generation's facts come from, in words.
    pub isa_guides: &'static str,
    /// What the generation's DS table documentation (`ds::render_markdown`) says of it alone.
    pub ds_doc: DsDoc,
    /// Where the DS encoding keeps OP, gds, acc and its reserved bit.
    pub ds: DsLayout,
    /// The generation spells DS ops by their gfx9 names (the DS table's older-name column):
    /// `ds_write_b32`, `ds_cmpst_b32`; LLVM's assembler reads no other for it.
    pub gfx9_mnemonics: bool,
    /// Spellings LLVM's assembler reads as a DS op in this generation only: (spelling, the DS
    /// table row's mnemonic). LLVM prints the row's mnemonic.
    pub ds_aliases: &'static [(&'static str, &'static str)],
    /// Which lanes of a wave64 a permute address can name.
    pub permute_span: Choice<PermuteSpan>,
    /// Lanes in one group of `ds_swizzle_b32`.
    pub swizzle_group: Choice<usize>,
    /// What DATA0 of a compare-store holds.
    pub cmpst_data0: Choice<CmpstData0>,
    /// The codes of the scalar operands that differ between generations.
    pub operands: OperandCodes,
    /// The `s_waitcnt` immediate's fields.
    pub waitcnt: WaitcntLayout,
    /// The SMEM format (scalar loads).
    pub smem: SmemFormat,
    /// The VOP3 format.
    pub vop3: Vop3Format,
    /// The GLOBAL format (vector memory).
    pub global: GlobalFormat,
    /// The destination a VOPC compare is printed with: `vcc` (wave64-only generations) or
    /// `vcc_lo` (LLVM's default wave32).
    pub vopc_sdst: &'static str,
    /// The template ops this generation spells otherwise than the ops table's mnemonic (the
    /// gfx11 spelling), in lists: (the table's mnemonic, this generation's).
    pub renames: &'static [&'static [(&'static str, &'static str)]],
    /// The hardware registers (`hwreg(...)` of `s_getreg_b32` / `s_setreg_imm32_b32`) LLVM names
    /// in this generation, by id: (id, name). An id not listed prints as its number.
    pub hwregs: &'static [(u16, &'static str)],
    /// Workgroups may be dispatched in clusters (LLVM `FeatureClusters`): where the hardware
    /// says so ([`ClusterRegs`]); a kernel then computes its workgroup id from them (the entry
    /// state, `ds_kernels::entry`). `None`: no clusters.
    pub clusters: Option<ClusterRegs>,
    /// VGPRs per granule of a wave32 kernel descriptor's GRANULATED_WORKITEM_VGPR_COUNT (AMDGPUUsage,
    /// "compute_pgm_rsrc1 for GFX6-GFX12": 8 in wave32; wave64 counts 4, a unified VGPR file 8:
    /// the target table's `unified_vgprs`).
    pub vgpr_granule32: u32,
    /// The VGPRs a lane can name, v0 up to this less one: the DS fields name a tuple's first
    /// register (v0..v255), and a tuple may run on to the last (`llvm-mc-22` reads
    /// `ds_load_b128 v[254:257]` on gfx12.5, "register index is out of range" elsewhere).
    pub vgprs: u16,
    /// The `s_waitcnt_depctr` (`s_wait_alu`) immediates LLVM prints by name in this generation:
    /// (immediate, text); any other prints in hex.
    pub depctr_names: &'static [(u16, &'static str)],
    /// The oldest of the oracle LLVMs (major version: Debian's 19 and 22) that knows this
    /// generation's targets: its DS table's documentation credits no older one with any op.
    pub oldest_llvm: u32,
    /// The padding LLVM writes after a code object's last kernel.
    pub code_end: CodeEnd,
}

/// Where a generation with workgroup clusters says where a workgroup is: the workgroup id
/// register (`ttmp9`, the architected SGPRs') then holds the cluster id when the dispatch has
/// clusters, and the workgroup's place in its cluster is in another trap temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterRegs {
    /// The trap temporary with the workgroup's place in its cluster.
    pub place_ttmp: u8,
    /// Its field holding the workgroup's id x within the cluster.
    pub id_x: Bits,
    /// Its field holding the cluster's largest id x (the cluster's width in x, less one).
    pub max_id_x: Bits,
    /// The hardware register field (`hwreg(id, offset, size)`: id, offset, size) that is zero
    /// when the dispatch has no clusters.
    pub dispatch_field: (u16, u8, u8),
}

/// The padding LLVM writes after a code object's last kernel "to guard against instruction
/// prefetch causing stale data in caches" (llvm-project, `AMDGPUAsmPrinter::emitEndOfAsmFile`
/// and `AMDGPUTargetStreamer::EmitCodeEnd`: on GFX10+ and on targets with CDNA 2's
/// instructions): the code is filled with the padding instruction (`s_code_end`; gfx9, which
/// has none, `s_nop 0`) up to the next instruction-cache line, then `lines` whole lines more.
/// `llc-19`/`llc-22` write it as `.p2alignl log2(line_bytes)` and `.fill` (held to them for every
/// target and wave size by `kernels/tests/all/entry_state_llvm.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeEnd {
    /// Which targets of the generation are padded.
    pub on: CodeEndOn,
    /// The instruction-cache line, in bytes: the code's end is aligned to it.
    pub line_bytes: u32,
    /// Whole lines of padding after the alignment.
    pub lines: u32,
}

/// Which targets of a generation LLVM pads the end of the code for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeEndOn {
    /// Every target of the generation.
    Every,
    /// The targets with CDNA 2's instructions (LLVM `FeatureGFX90AInsts`, the target table's
    /// `unified_vgprs` column); the others end their code with the last kernel.
    UnifiedVgprs,
}

/// The generation's own words in its DS table's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsDoc {
    /// Where its DS opcode list comes from.
    pub source: &'static str,
    /// The notes on its encoding, spellings and operand order, one sentence each.
    pub notes: &'static [&'static str],
}

/// Where a generation's DS encoding keeps its fields (the register bytes, [63:32], and the
/// offsets, [15:0], are the same in every generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsLayout {
    /// The 8-bit OP field's lowest bit.
    pub op_shift: u32,
    /// The gds bit (or, without GDS, the bit that must be zero where it was).
    pub gds_bit: u32,
    /// The DS instruction has a gds bit (whether a target may set it on an LDS op is its `gds`
    /// feature).
    pub has_gds: bool,
    /// The acc bit on targets with the `acc` feature, else `None`.
    pub acc_bit: Option<u32>,
    /// The bit no assembler sets and LLVM's disassembler ignores.
    pub reserved_bit: u32,
}

impl Generation {
    /// Every generation, oldest first: the order of the opcode columns of the DS table and the
    /// template's ops table.
    pub const ALL: [Generation; 5] = [
        Generation::Gfx9,
        Generation::Gfx10,
        Generation::Gfx11,
        Generation::Gfx12,
        Generation::Gfx12_5,
    ];

    /// The number of generations (of opcode columns in each table).
    pub const COUNT: usize = Generation::ALL.len();

    /// The generation's facts: its module's [`Spec`].
    pub fn spec(self) -> &'static Spec {
        match self {
            Generation::Gfx9 => &gfx9::SPEC,
            Generation::Gfx10 => &gfx10::SPEC,
            Generation::Gfx11 => &gfx11::SPEC,
            Generation::Gfx12 => &gfx12::SPEC,
            Generation::Gfx12_5 => &gfx12_5::SPEC,
        }
    }

    /// Every other generation, oldest first.
    pub fn others(self) -> impl Iterator<Item = Generation> {
        Generation::ALL.into_iter().filter(move |&g| g != self)
    }

    /// The generation's opcode column in the tables (its place in [`Generation::ALL`]).
    pub fn column(self) -> usize {
        self as usize
    }

    /// The generation's name, e.g. `gfx11`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The DS instruction has a `gds` bit ([`DsLayout::has_gds`]).
    pub fn has_gds(self) -> bool {
        self.spec().ds.has_gds
    }

    /// Where the DS encoding keeps OP, gds, acc and its reserved bit.
    pub fn ds_layout(self) -> DsLayout {
        self.spec().ds
    }

    /// The generation spells DS ops by their gfx9 names ([`Spec::gfx9_mnemonics`]).
    pub fn gfx9_mnemonics(self) -> bool {
        self.spec().gfx9_mnemonics
    }

    /// Which lanes of a wave64 the address of `ds_permute_b32`, `ds_bpermute_b32` and
    /// `ds_bpermute_fi_b32` can name (in a wave32 the two spans are one). Why: [`Self::rule`].
    pub fn permute_span(self) -> PermuteSpan {
        self.spec().permute_span.value
    }

    /// Lanes in one group of `ds_swizzle_b32` (a wave64 swizzles each group on its own). Why:
    /// [`Self::rule`].
    pub fn swizzle_group(self) -> usize {
        self.spec().swizzle_group.value
    }

    /// What DATA0 of a compare-store (`ds_cmpstore_*`; gfx9 and gfx10 spell it `ds_cmpst_*`)
    /// holds; DATA1 holds the other value. Why: [`Self::rule`].
    pub fn cmpst_data0(self) -> CmpstData0 {
        self.spec().cmpst_data0.value
    }

    /// The generation's choice of `rule` in words, and why (the sources): what `ds-harness doc`
    /// prints beside an op the rule concerns.
    pub fn rule(self, rule: Rule) -> RuleText {
        let s = self.spec();
        let (choice, why) = match rule {
            Rule::PermuteSpan => (s.permute_span.choice, s.permute_span.why),
            Rule::SwizzleGroup => (s.swizzle_group.choice, s.swizzle_group.why),
            Rule::CmpstData0 => (s.cmpst_data0.choice, s.cmpst_data0.why),
        };
        RuleText {
            rule,
            method: rule.method(),
            choice,
            why,
        }
    }

    /// The padding LLVM writes after a code object's last kernel ([`CodeEnd`]).
    pub fn code_end(self) -> CodeEnd {
        self.spec().code_end
    }

    /// The AMD ISA guides (and LLVM sources) the generation's DS table comes from, in words.
    pub fn isa_guides(self) -> &'static str {
        self.spec().isa_guides
    }

    /// Where the hardware says where a workgroup of a cluster is, on a generation whose
    /// workgroups may come in clusters ([`Spec::clusters`]).
    pub fn clusters(self) -> Option<ClusterRegs> {
        self.spec().clusters
    }

    /// The name LLVM prints for hardware register `id` in this generation ([`Spec::hwregs`]).
    pub fn hwreg_name(self, id: u16) -> Option<&'static str> {
        self.spec()
            .hwregs
            .iter()
            .find(|(i, _)| *i == id)
            .map(|&(_, n)| n)
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
