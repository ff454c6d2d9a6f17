//! The one target table: every GPU target the harness builds kernels for, one row each. Nothing
//! outside this table (and tests) names a target or its machine value; every consumer (the code
//! object writer and reader, the devices, the CLI, the recordings) asks it.
//!
//! A **target** is one processor as LLVM and ROCm name it (`-mcpu`, the code object's
//! `EF_AMDGPU_MACH`, the kernel driver's `gfx_target_version`). A **generation** owns one DS
//! table and one kernel template encoding; the targets of one generation share them (DESIGN.md
//! section 8).
//!
//! Sources, column by column:
//! - name, kind (dGPU / APU), wave sizes and example products: LLVM "User Guide for AMDGPU
//!   Backend" (AMDGPUUsage), section "Processors", table "AMDGPU Processors" (GCN GFX11 RDNA 3 and
//!   RDNA 3.5 rows: every one lists the `wavefrontsize64` target feature, wave32 being the default);
//!   gfx1153's product is `*TBA*` there (AMD has not named it);
//! - machine: AMDGPUUsage, section "ELF Header", table "AMDGPU ELF Header Enumeration Values"
//!   (`EF_AMDGPU_MACH_AMDGCN_GFX*`); each value is checked against what `llvm-mc-19` and
//!   `llvm-mc-22 -mcpu=NAME -filetype=obj` write, each LLVM for the rows it knows (LLVM 19 does not
//!   know gfx1153) (`reference/tests/target_llvm.rs`);
//! - kfd_version: the Linux amdkfd driver's topology property `gfx_target_version`
//!   (drivers/gpu/drm/amd/amdkfd/kfd_device.c, `kgd2kfd_probe`: major * 10000 + minor * 100 +
//!   stepping of the target name's digits, e.g. IP version 11.5.3 -> 110503);
//! - rocm_since: the first ROCm release supporting the target, as reported in AMD's ROCm release
//!   notes (collected in the project's issue 25: gfx1100/1102/1103 5.3, gfx1101 5.5,
//!   gfx1150/1151 6.1, gfx1200/1201 6.2, gfx1152 and gfx1153 none yet). Checked here only in
//!   part: Debian's ROCm 5.2 code-object manager lists no gfx11 or gfx12 ISA (its ISA names end
//!   at gfx1036);
//! - lds_bytes: the LDS one workgroup can allocate: AMD "RDNA3 Instruction Set Architecture
//!   Reference Guide", chapter "Local Data Share Operations" (64 KiB per workgroup), and
//!   AMDGPUUsage, "Memory Spaces" (group segment); RDNA 3.5 keeps the RDNA3 LDS (AMD "RDNA3.5
//!   ISA Reference Guide", same chapter);
//! - generation: RDNA 3 and RDNA 3.5 both decode the gfx11 DS opcode list, RDNA 4 the gfx12 one
//!   (`llvm-mc` assembles each generation's DS table for every row of it, checked in
//!   `reference/tests/target_llvm.rs`). RDNA 4 rows: AMDGPUUsage's GCN GFX12 (RDNA 4) processor
//!   rows and `EF_AMDGPU_MACH_AMDGCN_GFX1200` / `_GFX1201`; LDS 64 KiB per workgroup
//!   (AMDGPUUsage, "Memory Spaces"; AMD "RDNA4 Instruction Set Architecture Reference Guide",
//!   chapter "Data Share Operations");
//! - generic, generic_version and the generic rows: AMDGPUUsage, "Generic Processors" (which
//!   processors each generic target covers; code object V6 and later) and "ELF Header"
//!   (`EF_AMDGPU_MACH_AMDGCN_GFX11_GENERIC` / `_GFX12_GENERIC`, `EF_AMDGPU_GENERIC_VERSION` in
//!   `e_flags` bits [31:24]); LLVM writes generic version 1 for both (checked against
//!   `llvm-readelf -h`, which prints `generic_v1`);
//! - lds_granule: the kernel descriptor encodes a workgroup's LDS in 512-byte units (AMDGPUUsage,
//!   "compute_pgm_rsrc2 for GFX6-GFX12", GRANULATED_LDS_SIZE: "roundup(lds-size / (128 * 4))" for
//!   GFX7 and later), and the hardware aligns the allocation to 1024 bytes from GFX10.3 on (Mesa
//!   `src/amd/common/ac_gpu_info.c`: `lds_alloc_granularity` = 256 dwords for GFX10_3+, "what the
//!   hardware will align the LDS size to"); the column takes the larger, so every byte that may
//!   be allocated to the workgroup is inside `roundup(lds_size, lds_granule)`;
//! - architected_sgprs, user_sgpr_init16_bug: LLVM's subtarget features of the same names
//!   (`llvm/lib/Target/AMDGPU/AMDGPU.td`: `FeatureArchitectedSGPRs` in every GFX12 processor,
//!   `FeatureUserSGPRInit16Bug` in `FeatureISAVersion11_0_0` and `_11_0_2`, and in the gfx11
//!   generic target, whose code must run on those two), and what `llc-19`/`llc-22` emit for each
//!   row in wave32 and wave64 (`kernels/tests/entry_llc.rs`).
//!
//! Every DS rule that can differ between generations is one [`Generation`] method, asked by the
//! model and nothing else: [`Generation::permute_span`], [`Generation::swizzle_group`],
//! [`Generation::cmpst_data0`], [`Generation::has_gds`]; [`Generation::rule`] says each choice in
//! words with its sources (LLVM `GCNSubtarget::supportsWaveWideBPermute()` and
//! `DSInstructions.td`, Mesa ACO `emit_bpermute`, the ISA guides). Which ops exist is the DS
//! table's opcode column of the generation (`isa::OpInfo::on_target`), the LDS size a column here.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A DS instruction-set generation: one DS table and one kernel template encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// gfx11: RDNA 3 and RDNA 3.5.
    Gfx11,
    /// gfx12: RDNA 4. The DS bit layout of gfx11 without the gds bit, a changed opcode list (AMD
    /// "RDNA4 Instruction Set Architecture Reference Guide", section 16.15 "VDS Instructions").
    Gfx12,
}

impl Generation {
    /// Every generation, oldest first (the order of the DS table's opcode columns).
    pub const ALL: [Generation; 2] = [Generation::Gfx11, Generation::Gfx12];

    /// The generation's name, e.g. `gfx11`.
    pub fn name(self) -> &'static str {
        match self {
            Generation::Gfx11 => "gfx11",
            Generation::Gfx12 => "gfx12",
        }
    }

    /// The DS instruction has a `gds` bit (bit 17); gfx12 removed it with GDS.
    pub fn has_gds(self) -> bool {
        match self {
            Generation::Gfx11 => true,
            Generation::Gfx12 => false,
        }
    }

    /// Which lanes of a wave64 the address of `ds_permute_b32`, `ds_bpermute_b32` and
    /// `ds_bpermute_fi_b32` can name (in a wave32 the two spans are one). Why: [`Self::rule`].
    pub fn permute_span(self) -> PermuteSpan {
        match self {
            Generation::Gfx11 => PermuteSpan::Halves,
            Generation::Gfx12 => PermuteSpan::Wave,
        }
    }

    /// Lanes in one group of `ds_swizzle_b32` (a wave64 swizzles each group on its own): its
    /// bit-mask and/or/xor masks, quad selects, rotation and FFT all work on 5-bit lane numbers.
    /// Why: [`Self::rule`].
    pub fn swizzle_group(self) -> usize {
        match self {
            Generation::Gfx11 | Generation::Gfx12 => 32,
        }
    }

    /// What DATA0 of a compare-store (`ds_cmpstore_*`; gfx9 and gfx10 spell it `ds_cmpst_*`)
    /// holds; DATA1 holds the other value. Why: [`Self::rule`].
    pub fn cmpst_data0(self) -> CmpstData0 {
        match self {
            Generation::Gfx11 | Generation::Gfx12 => CmpstData0::NewValue,
        }
    }

    /// The generation's choice of `rule` in words, and why (the sources): what `ds-harness doc`
    /// prints beside an op the rule concerns.
    pub fn rule(self, rule: Rule) -> RuleText {
        let (choice, why) = match rule {
            Rule::PermuteSpan => match self.permute_span() {
                PermuteSpan::Halves => (
                    "within each 32-lane half of a wave64: address bits [6:2] name a lane of the \
                     reading (bpermute) or sending (permute) lane's own half",
                    "LLVM `GCNSubtarget::supportsWaveWideBPermute()` is false for GFX10 and GFX11 \
                     in wave64, and Mesa ACO (`emit_bpermute`) emulates a full-wave bpermute on \
                     GFX10-GFX11.5 wave64 from two ds_bpermute_b32 and v_permlane64_b32, so one \
                     ds_bpermute_b32 stays in its half (ASSUMPTIONS.md W1, W2)",
                ),
                PermuteSpan::Wave => (
                    "over the whole wave64: address bits [7:2] name any of the 64 lanes",
                    "LLVM `GCNSubtarget::supportsWaveWideBPermute()` is true for GFX12 (as for \
                     GFX9 and every wave32), and Mesa ACO (`emit_bpermute`) issues one \
                     ds_bpermute_b32 for a wave64 shuffle on GFX12 (\"bpermute works normally\"), \
                     emulating it only on GFX10-GFX11.5 (ASSUMPTIONS.md W9, W10)",
                ),
            },
            Rule::SwizzleGroup => (
                "each 32-lane group of a wave64 swizzles on its own (the group kept, lane \
                 numbers within it 5 bits wide)",
                "the ISA guides' DS_SWIZZLE_B32 masks are 5 bits wide and their pseudocode takes \
                 the lane within 32 (ASSUMPTIONS.md W3, W4)",
            ),
            Rule::CmpstData0 => match self.cmpst_data0() {
                CmpstData0::NewValue => (
                    "DATA0 is the new value, DATA1 the compare value",
                    "the RDNA3 and RDNA4 guides' DS_CMPSTORE_B32 pseudocode: `src = DATA; cmp = \
                     DATA2; MEM = tmp == cmp ? src : tmp`; LLVM `DSInstructions.td` (`DSAtomicCmpXChg_mc`) \
                     passes the new value first from GFX11 on and the compare value first before",
                ),
                CmpstData0::CompareValue => (
                    "DATA0 is the compare value, DATA1 the new value",
                    "the GCN and RDNA1/2 guides' DS_CMPST_B32 pseudocode (`cmp = DATA; src = \
                     DATA2`) and LLVM `DSInstructions.td` (`DSAtomicCmpXChg_mc`)",
                ),
            },
        };
        RuleText {
            rule,
            method: rule.method(),
            choice,
            why,
        }
    }

    /// Work-item ids y and z arrive packed into v0 beside x (x \[9:0\], y \[19:10\], z \[29:20\]),
    /// not in v1 and v2 (AMDGPUUsage, "Initial Kernel Execution State": packed work-item ids on
    /// GFX90A, GFX942 and GFX11+; `llc-19`/`llc-22` read work-item id y of gfx11 and gfx12 as
    /// `v_bfe_u32 v0, v0, 10, 10`). gfx9 has both kinds, so it will need a target-table column.
    pub fn packs_workitem_ids(self) -> bool {
        match self {
            Generation::Gfx11 | Generation::Gfx12 => true,
        }
    }

    /// Every target of this generation, in table order.
    pub fn targets(self) -> impl Iterator<Item = &'static Target> {
        TARGETS.iter().filter(move |t| t.generation == self)
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which lanes of a wave64 a permute address can name ([`Generation::permute_span`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PermuteSpan {
    /// Address bits [6:2] name a lane of the 32-lane half of the reading (bpermute) or sending
    /// (permute) lane.
    Halves,
    /// Address bits [6:2] (wave32) or [7:2] (wave64) name any lane of the wave.
    Wave,
}

/// What DATA0 of a compare-store holds ([`Generation::cmpst_data0`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpstData0 {
    /// DATA0 is stored when memory equals DATA1.
    NewValue,
    /// DATA1 is stored when memory equals DATA0.
    CompareValue,
}

/// A DS rule that can differ between generations: each is one [`Generation`] method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// [`Generation::permute_span`].
    PermuteSpan,
    /// [`Generation::swizzle_group`].
    SwizzleGroup,
    /// [`Generation::cmpst_data0`].
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

/// A generation's choice of one rule, in words ([`Generation::rule`]).
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

/// Whether the target is a discrete GPU or the graphics of an APU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A discrete GPU.
    Dgpu,
    /// The graphics of an APU (shares the host's memory).
    Apu,
    /// A generic target: no processor of its own, one code object for every processor of the
    /// family (AMDGPUUsage, "Generic Processors").
    Generic,
}

/// One row of the target table.
#[derive(Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Target {
    /// The processor name (`-mcpu`, the code object's target id), e.g. the first row's.
    pub name: &'static str,
    /// The `EF_AMDGPU_MACH` value in the low byte of the code object's `e_flags`.
    pub machine: u8,
    /// The kernel driver's `gfx_target_version` for this processor.
    pub kfd_version: u32,
    /// The first ROCm release (major, minor) whose HIP runtime loads code objects for this
    /// target, as AMD's release notes report it; `None` where no release is known to. A
    /// runtime older than this is named as unlikely to load the kernels (never refused on this
    /// alone: the runtime's own answer decides).
    pub rocm_since: Option<(u32, u32)>,
    /// LDS bytes one workgroup can allocate.
    pub lds_bytes: u32,
    /// The DS table and kernel template encoding the target decodes.
    #[serde(serialize_with = "generation_name")]
    pub generation: Generation,
    /// The wavefront sizes the target runs (its kernels are built and run in each).
    pub wave_sizes: &'static [u32],
    /// LDS bytes the hardware allocates a workgroup's LDS in: the allocation is the kernel's
    /// size rounded up to this, so a byte below that end may be in range on hardware though it
    /// lies past the kernel's size.
    pub lds_granule: u32,
    /// The workgroup ids arrive in trap-temporary registers (`ttmp9` = x, `ttmp7` = y \[15:0\]
    /// and z \[31:16\]), not in system SGPRs after the user SGPRs (LLVM
    /// `FeatureArchitectedSGPRs`).
    pub architected_sgprs: bool,
    /// In wave32, user + system SGPRs must number at least 16: LLVM pads the user SGPRs to
    /// reach it (LLVM `FeatureUserSGPRInit16Bug`, which applies to wave32 only).
    pub user_sgpr_init16_bug: bool,
    /// The architecture family as AMD markets it (RDNA 3, RDNA 3.5).
    pub family: &'static str,
    /// Discrete GPU or APU.
    pub kind: Kind,
    /// Products built on this processor (AMDGPUUsage's examples and AMD's product pages).
    pub products: &'static [&'static str],
    /// The generic target whose code objects this processor runs (AMDGPUUsage, "Generic
    /// Processors": one code object for every processor of the family), a row of
    /// [`GENERIC_TARGETS`]; `None` on a generic row itself.
    pub generic: Option<&'static str>,
    /// `EF_AMDGPU_GENERIC_VERSION`, the generic version a generic target's code object carries in
    /// `e_flags` bits [31:24] (AMDGPUUsage, "ELF Header"); 0 for a processor.
    pub generic_version: u8,
}

fn generation_name<S: Serializer>(g: &Generation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(g.name())
}

/// The target table, in LLVM's processor-table order. The first row is [`DEFAULT`].
pub static TARGETS: &[Target] = &[
    Target {
        name: "gfx1100",
        machine: 0x41,
        kfd_version: 110000,
        rocm_since: Some((5, 3)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: true,
        family: "RDNA 3",
        kind: Kind::Dgpu,
        products: &[
            "Radeon RX 7900 XTX",
            "Radeon RX 7900 XT",
            "Radeon RX 7900 GRE",
            "Radeon PRO W7900",
            "Radeon PRO W7800",
        ],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1101",
        machine: 0x46,
        kfd_version: 110001,
        rocm_since: Some((5, 5)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3",
        kind: Kind::Dgpu,
        products: &[
            "Radeon RX 7800 XT",
            "Radeon RX 7700 XT",
            "Radeon RX 7700",
            "Radeon PRO W7700",
        ],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1102",
        machine: 0x47,
        kfd_version: 110002,
        rocm_since: Some((5, 3)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: true,
        family: "RDNA 3",
        kind: Kind::Dgpu,
        products: &[
            "Radeon RX 7600 XT",
            "Radeon RX 7600",
            "Radeon RX 7600M / 7700S / 7600S (laptop)",
            "Radeon PRO W7600",
            "Radeon PRO W7500",
        ],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1103",
        machine: 0x44,
        kfd_version: 110003,
        rocm_since: Some((5, 3)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3",
        kind: Kind::Apu,
        products: &["Radeon 780M / 760M / 740M (Ryzen 7040 / 8040 \"Phoenix\", \"Hawk Point\")"],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1150",
        machine: 0x43,
        kfd_version: 110500,
        rocm_since: Some((6, 1)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3.5",
        kind: Kind::Apu,
        products: &["Radeon 890M / 880M (Ryzen AI 300 \"Strix Point\")"],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1151",
        machine: 0x4a,
        kfd_version: 110501,
        rocm_since: Some((6, 1)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3.5",
        kind: Kind::Apu,
        products: &["Radeon 8060S / 8050S / 8040S (Ryzen AI Max \"Strix Halo\")"],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1152",
        machine: 0x55,
        kfd_version: 110502,
        rocm_since: None,
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3.5",
        kind: Kind::Apu,
        products: &["Radeon 860M / 840M (Ryzen AI 300 \"Krackan Point\")"],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1153",
        machine: 0x58,
        kfd_version: 110503,
        rocm_since: None,
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: false,
        family: "RDNA 3.5",
        kind: Kind::Apu,
        products: &["not yet named by AMD (AMDGPUUsage lists *TBA*): an RDNA 3.5 APU"],
        generic: Some("gfx11-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1200",
        machine: 0x48,
        kfd_version: 120000,
        rocm_since: Some((6, 2)),
        lds_bytes: 65536,
        generation: Generation::Gfx12,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: true,
        user_sgpr_init16_bug: false,
        family: "RDNA 4",
        kind: Kind::Dgpu,
        products: &["Radeon RX 9060 XT", "Radeon RX 9060"],
        generic: Some("gfx12-generic"),
        generic_version: 0,
    },
    Target {
        name: "gfx1201",
        machine: 0x4e,
        kfd_version: 120001,
        rocm_since: Some((6, 2)),
        lds_bytes: 65536,
        generation: Generation::Gfx12,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: true,
        user_sgpr_init16_bug: false,
        family: "RDNA 4",
        kind: Kind::Dgpu,
        products: &[
            "Radeon RX 9070 XT",
            "Radeon RX 9070",
            "Radeon RX 9070 GRE",
            "Radeon AI PRO R9700",
        ],
        generic: Some("gfx12-generic"),
        generic_version: 0,
    },
];

/// The generic targets (AMDGPUUsage, "Generic Processors"): one code object, built for code object
/// version 6 with the generic version in `e_flags`, runs on every processor whose `generic` names
/// the row (ROCm 6.3 and later load it). Same DS table, kernel template, wave sizes and LDS as the
/// processors of the family; no GPU reports a generic target, so no KFD version (0) and no
/// device of its own.
pub static GENERIC_TARGETS: &[Target] = &[
    Target {
        name: "gfx11-generic",
        machine: 0x54,
        kfd_version: 0,
        rocm_since: Some((6, 3)),
        lds_bytes: 65536,
        generation: Generation::Gfx11,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: false,
        user_sgpr_init16_bug: true,
        family: "RDNA 3 and RDNA 3.5",
        kind: Kind::Generic,
        products: &[],
        generic: None,
        generic_version: 1,
    },
    Target {
        name: "gfx12-generic",
        machine: 0x59,
        kfd_version: 0,
        rocm_since: Some((6, 3)),
        lds_bytes: 65536,
        generation: Generation::Gfx12,
        wave_sizes: &[32, 64],
        lds_granule: 1024,
        architected_sgprs: true,
        user_sgpr_init16_bug: false,
        family: "RDNA 4",
        kind: Kind::Generic,
        products: &[],
        generic: None,
        generic_version: 1,
    },
];

/// The target of the emulated device and the text tools when no `--target` is given.
pub static DEFAULT: &Target = &TARGETS[0];

/// A target name that is not in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTarget {
    /// The name asked for.
    pub name: String,
    /// The table's names closest to it, best first.
    pub near: Vec<&'static str>,
}

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown target `{}`", self.name)?;
        if !self.near.is_empty() {
            write!(f, " (did you mean {}?)", self.near.join(", "))?;
        }
        write!(f, "; supported targets: {}", supported_list())
    }
}

impl std::error::Error for UnknownTarget {}

/// Every supported target's name, comma separated, in table order, then the generic targets.
pub fn supported_list() -> String {
    let names = |rows: &[Target]| rows.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
    format!("{} (generic: {})", names(TARGETS), names(GENERIC_TARGETS))
}

/// Every row: the processors ([`TARGETS`]), then the generic targets ([`GENERIC_TARGETS`]).
pub fn all() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().chain(GENERIC_TARGETS)
}

impl Target {
    /// The row named `name` (any case; a processor or a generic target), or what the user may
    /// have meant.
    pub fn by_name(name: &str) -> Result<&'static Target, UnknownTarget> {
        all()
            .find(|t| t.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownTarget {
                name: name.to_string(),
                near: suggest(name, 3),
            })
    }

    /// The row whose `EF_AMDGPU_MACH` value is `machine` (a processor or a generic target).
    pub fn by_machine(machine: u8) -> Option<&'static Target> {
        all().find(|t| t.machine == machine)
    }

    /// A generic target (a row of [`GENERIC_TARGETS`]), not a processor.
    pub fn is_generic(&self) -> bool {
        self.generic_version > 0
    }

    /// The generic target whose code objects this processor runs, if any.
    pub fn generic_target(&self) -> Option<&'static Target> {
        let name = self.generic?;
        GENERIC_TARGETS.iter().find(|g| g.name == name)
    }

    /// The processors a generic target's code object runs on (none for a processor).
    pub fn members(&self) -> impl Iterator<Item = &'static Target> + '_ {
        TARGETS
            .iter()
            .filter(move |t| self.is_generic() && t.generic == Some(self.name))
    }

    /// The row whose kernel-driver `gfx_target_version` is `version`.
    pub fn by_kfd_version(version: u32) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.kfd_version == version)
    }

    /// The HSA target id the code object's metadata carries (`amdhsa.target`, AMDGPUUsage
    /// "Target Triples" and "Target ID"), e.g. `amdgcn-amd-amdhsa--` followed by the name.
    pub fn hsa_target_id(&self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.name)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The table's names closest to `name` (edit distance), best first: for "did you mean".
pub fn suggest(name: &str, max: usize) -> Vec<&'static str> {
    let name = name.trim().to_ascii_lowercase();
    let mut scored: Vec<(usize, &'static str)> = all()
        .map(|t| (crate::text::edit_distance(&name, t.name), t.name))
        .collect();
    scored.sort();
    let limit = (name.len() / 3).max(2);
    scored
        .into_iter()
        .filter(|&(d, _)| d <= limit)
        .map(|(_, n)| n)
        .take(max)
        .collect()
}

/// Serialises a `&'static Target` as its name (case files, results, recordings).
pub mod by_name {
    use super::Target;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    /// Writes the name.
    pub fn serialize<S: Serializer>(t: &&'static Target, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(t.name)
    }

    /// Reads a name, refusing one the table does not hold (with did-you-mean).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static Target, D::Error> {
        let name = String::deserialize(d)?;
        Target::by_name(&name).map_err(D::Error::custom)
    }
}

/// A target by name for `Option` fields and maps: `TargetName(&'static Target)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetName(pub &'static Target);

impl Serialize for TargetName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> Deserialize<'de> for TargetName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        by_name::deserialize(d).map(TargetName)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_machines_and_kfd_versions_are_unique() {
        let mut names = HashSet::new();
        let mut machines = HashSet::new();
        let mut kfd = HashSet::new();
        for t in all() {
            assert!(names.insert(t.name), "{} twice", t.name);
            assert!(machines.insert(t.machine), "{:#x} twice", t.machine);
        }
        for t in TARGETS {
            assert!(kfd.insert(t.kfd_version), "{} twice", t.kfd_version);
        }
    }

    #[test]
    fn generic_rows_cover_their_generation_and_no_device_reports_them() {
        for g in GENERIC_TARGETS {
            assert!(g.is_generic() && g.generic.is_none() && g.kind == Kind::Generic);
            assert_eq!(g.name, format!("{}-generic", g.generation), "{g}");
            assert_eq!(g.kfd_version, 0, "{g}: no GPU reports a generic target");
            let members: Vec<_> = g.members().collect();
            assert!(!members.is_empty(), "{g} covers no processor");
            for m in &members {
                assert_eq!(m.generation, g.generation, "{m} in {g}");
                assert_eq!(m.generic_target(), Some(g));
                assert!(
                    m.wave_sizes == g.wave_sizes && m.lds_bytes == g.lds_bytes,
                    "{m}: {g} runs with the family's wave sizes and LDS"
                );
            }
            assert_eq!(Target::by_name(g.name).unwrap(), g);
            assert_eq!(Target::by_machine(g.machine).unwrap(), g);
            assert_eq!(Target::by_kfd_version(g.kfd_version), None);
        }
        for t in TARGETS {
            assert!(!t.is_generic() && t.kind != Kind::Generic, "{t}");
            let g = t
                .generic_target()
                .unwrap_or_else(|| panic!("{t} has no generic target"));
            assert!(g.members().any(|m| m == t));
        }
        assert!(supported_list().contains("generic: "));
    }

    #[test]
    fn kfd_version_spells_the_name() {
        // gfx_target_version is major * 10000 + minor * 100 + stepping of the name's digits
        // (minor and stepping one hex digit each).
        for t in TARGETS {
            let v = t.kfd_version;
            let digits = t.name.strip_prefix("gfx").expect("names start with gfx");
            let spelled = format!("{}{:x}{:x}", v / 10000, v / 100 % 100, v % 100);
            assert_eq!(digits, spelled, "{}", t.name);
        }
    }

    #[test]
    fn rows_agree_with_their_generation() {
        for t in TARGETS {
            let prefix = t.generation.name();
            assert!(
                t.name.starts_with(prefix) && t.name.len() == prefix.len() + 2,
                "{} is not a {prefix} processor name",
                t.name
            );
            assert!(
                t.wave_sizes.contains(&32),
                "{}: the kernels are wave32",
                t.name
            );
            assert!(
                t.lds_bytes.is_power_of_two() && t.lds_bytes >= 4,
                "{}: LDS {}",
                t.name,
                t.lds_bytes
            );
            assert!(!t.products.is_empty(), "{} names no product", t.name);
            // The descriptor encodes LDS in 512-byte units; the allocation granule is a whole
            // number of them and divides the LDS a workgroup can have.
            assert!(
                t.lds_granule.is_power_of_two()
                    && t.lds_granule >= 512
                    && t.lds_bytes % t.lds_granule == 0,
                "{}: LDS granule {}",
                t.name,
                t.lds_granule
            );
            assert!(
                !(t.architected_sgprs && t.user_sgpr_init16_bug),
                "{}: LLVM pads user SGPRs only where workgroup ids are system SGPRs",
                t.name
            );
        }
        assert_eq!(DEFAULT.name, TARGETS[0].name);
    }

    #[test]
    fn lookups_find_every_row() {
        for t in TARGETS {
            assert_eq!(Target::by_name(t.name).unwrap(), t);
            assert_eq!(Target::by_name(&t.name.to_uppercase()).unwrap(), t);
            assert_eq!(Target::by_machine(t.machine).unwrap(), t);
            assert_eq!(Target::by_kfd_version(t.kfd_version).unwrap(), t);
        }
        assert_eq!(Target::by_machine(0), None);
        assert_eq!(Target::by_kfd_version(0), None);
    }

    #[test]
    fn unknown_names_get_did_you_mean_and_the_list() {
        let last = TARGETS.last().unwrap().name;
        let typo = format!("{}9", &last[..last.len() - 1]);
        let e = Target::by_name(&typo).unwrap_err();
        assert!(e.near.contains(&last), "{e}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("unknown target `{typo}`")), "{msg}");
        for t in TARGETS {
            assert!(msg.contains(t.name), "{msg}");
        }
        let far = Target::by_name("sm_90").unwrap_err();
        assert!(far.near.is_empty(), "{far}");
        assert!(!far.to_string().contains("did you mean"), "{far}");
    }

    #[test]
    fn serde_by_name_round_trips_and_refuses_unknown_names() {
        for t in TARGETS {
            let json = serde_json::to_string(&TargetName(t)).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name));
            let back: TargetName = serde_json::from_str(&json).unwrap();
            assert_eq!(back.0, t);
        }
        let e = serde_json::from_str::<TargetName>("\"gfx9999\"").unwrap_err();
        assert!(e.to_string().contains("unknown target `gfx9999`"), "{e}");
    }
}
