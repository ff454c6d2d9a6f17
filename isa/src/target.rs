//! The one target table: every GPU target the harness builds kernels for, one row each. Nothing
//! outside this table (and tests) names a target or its machine value; every consumer (the code
//! object writer and reader, the devices, the CLI, the recordings) asks it.
//!
//! A **target** is one processor as LLVM and ROCm name it (`-mcpu`, the code object's
//! `EF_AMDGPU_MACH`, the kernel driver's `gfx_target_version`). A **generation** owns one DS
//! table and one kernel template encoding; the targets of one generation share them (docs/design-notes.md, "Targets and generations").
//!
//! Sources, column by column:
//! - name, kind (dGPU / APU), wave sizes and example products: LLVM "User Guide for AMDGPU
//!   Backend" (AMDGPUUsage), section "Processors", table "AMDGPU Processors" (GCN GFX11 RDNA 3 and
//!   RDNA 3.5 rows: every one lists the `wavefrontsize64` target feature, wave32 being the default);
//!   gfx1153's product is `*TBA*` there (AMD has not named it);
//! - machine: AMDGPUUsage, section "ELF Header", table "AMDGPU ELF Header Enumeration Values"
//!   (`EF_AMDGPU_MACH_AMDGCN_GFX*`); each value is checked against what `llvm-mc-19` and
//!   `llvm-mc-22 -mcpu=NAME -filetype=obj` write, each LLVM for the rows it knows (LLVM 19 does not
//!   know gfx1153) (`reference/tests/all/target_table_llvm.rs`);
//! - kfd_version: the Linux amdkfd driver's topology property `gfx_target_version`
//!   (drivers/gpu/drm/amd/amdkfd/kfd_device.c, `kgd2kfd_probe`: major * 10000 + minor * 100 +
//!   stepping of the target name's digits, e.g. IP version 11.5.3 -> 110503), which amdkfd
//!   computes from the chip: Raven Ridge and Raven Ridge 2 both report 90002 (the Raven 2 row,
//!   LLVM's own processor, shares it with the Raven row, which ROCm then runs it as), Renoir
//!   90012 (before November 2021 Renoir too reported 90002: amdkfd patch "Previously Renoir
//!   compiler gfx target version was forced to Raven"), Vega 12 90004;
//! - rocm_since: the first ROCm release supporting the target, as reported in AMD's ROCm release
//!   notes (collected in the project's issue 25: gfx1100/1102/1103 5.3, gfx1101 5.5,
//!   gfx1150/1151 6.1, gfx1200/1201 6.2, gfx1152 and gfx1153 none yet; gfx942 6.0, the MI300
//!   launch release; gfx950 7.0, whose library release notes say "Added gfx950 support", e.g.
//!   hipFFT's for ROCm 7.0.0; gfx900-gfx90a and gfx10 5.2 or earlier). Checked here only in
//!   part: Debian's ROCm 5.2 code-object manager lists no gfx11, gfx12, gfx942 or gfx950 ISA
//!   (its ISA names end at gfx1036) and lists gfx900-gfx90a and the gfx10 targets;
//! - the Vega APUs and Vega 12 (gfx902, gfx904, gfx909, gfx90c): AMDGPUUsage's processor table
//!   (kind, products: *TBA* for gfx904 and gfx909, whose names come from amdkfd's Vega 12 and
//!   LLVM review D53418's Raven Ridge 2), `EF_AMDGPU_MACH_AMDGCN_GFX902`/`904`/`909`/`90C`, LLVM's
//!   `FeatureISAVersion9_0_Consumer_Common` (`AMDGPU.td`: gfx900's features, xnack, no sramecc,
//!   LDS 64 KiB, wave64, no DS erratum: LLVM's LDS errata are gfx10.1's), every DS word decoded as
//!   on gfx900 by `llvm-mc-22` and their entry state gfx900's by `llc-22`; no ROCm release note
//!   names them (`rocm_since` none: AMD's rocBLAS issue #1398 calls gfx90c "not currently
//!   supported in ROCm");
//! - lds_bytes: the LDS one workgroup can allocate: AMD "RDNA3 Instruction Set Architecture
//!   Reference Guide", chapter "Local Data Share Operations" (64 KiB per workgroup), and
//!   AMDGPUUsage, "Memory Spaces" (group segment); RDNA 3.5 keeps the RDNA3 LDS (AMD "RDNA3.5
//!   ISA Reference Guide", same chapter);
//! - generation: RDNA 3 and RDNA 3.5 both decode the gfx11 DS opcode list, RDNA 4 the gfx12 one
//!   (`llvm-mc` assembles each generation's DS table for every row of it, checked in
//!   `reference/tests/all/target_table_llvm.rs`). RDNA 4 rows: AMDGPUUsage's GCN GFX12 (RDNA 4) processor
//!   rows and `EF_AMDGPU_MACH_AMDGCN_GFX1200` / `_GFX1201`; LDS 64 KiB per workgroup
//!   (AMDGPUUsage, "Memory Spaces"; AMD "RDNA4 Instruction Set Architecture Reference Guide",
//!   chapter "Data Share Operations");
//! - the GFX 12.5 rows (gfx1250, gfx1251): AMDGPUUsage's processor table (llvm-project PR
//!   #155577: gfx1250 an APU, "Architected flat scratch", products *TBA*; gfx1251 likewise), the
//!   ELF machine values `EF_AMDGPU_MACH_AMDGCN_GFX1250` 0x49 / `_GFX1251` 0x5a and the xnack and
//!   sramecc target-id features (LLVM `FeatureISAVersion12_50`; `llvm-readelf-22 -h` prints
//!   `0x549, gfx1250, xnack, sramecc` and `0x55a, gfx1251, ...` for an `llvm-mc-22` object);
//!   wave32 only (`llc-22 -mattr=+wavefrontsize64` emits no kernel at all, AMDGPUUsage lists no
//!   `wavefrontsize64` feature); LDS 327,680 bytes (`FeatureAddressableLocalMemorySize327680`:
//!   `llc-22` refuses one byte more) in 2048-byte blocks (llvm-project PR #167614; what `llc-22`
//!   writes in COMPUTE_PGM_RSRC2.LDS_SIZE); architected SGPRs and packed work-item ids as on
//!   gfx12 (`llc-22`). The products are not public from AMD's documentation: AMD's ROCm trap
//!   handler source (ROCm/rocm-systems PR #5282) names gfx1250 "MI450"; gfx1251's only in the
//!   press (MI430, unconfirmed). kfd_version: gfx1250's 120500 is the amdkfd patch adding GC IP
//!   12.1.0; no kfd line for gfx1251 was found, 120501 is the column's rule applied to its name.
//!   rocm_since: none, as no AMD release note naming either was read (ROCm/pytorch PR #3421
//!   calls ROCm 7.14 gfx1250's support floor: not a release note);
//! - generic, generic_version and the generic rows: AMDGPUUsage, "Generic Processors" (which
//!   processors each generic target covers; code object V6 and later) and "ELF Header"
//!   (`EF_AMDGPU_MACH_AMDGCN_GFX9_GENERIC`, `_GFX9_4_GENERIC`, `_GFX10_1_GENERIC`,
//!   `_GFX10_3_GENERIC`, `_GFX11_GENERIC`, `_GFX12_GENERIC`, `EF_AMDGPU_GENERIC_VERSION` in
//!   `e_flags` bits [31:24]); LLVM writes generic version 1 for each (checked against
//!   `llvm-readelf -h`, which prints `generic_v1`);
//! - lds_granule: the kernel descriptor encodes a workgroup's LDS in 512-byte units (AMDGPUUsage,
//!   "compute_pgm_rsrc2 for GFX6-GFX12", GRANULATED_LDS_SIZE: "roundup(lds-size / (128 * 4))" for
//!   GFX7 and later), and the hardware aligns the allocation to 1024 bytes from GFX10.3 on (Mesa
//!   `src/amd/common/ac_gpu_info.c`: `lds_alloc_granularity` = 256 dwords for GFX10_3+, "what the
//!   hardware will align the LDS size to"); the column takes the larger, so every byte that may
//!   be allocated to the workgroup is inside `roundup(lds_size, lds_granule)`; gfx9 and RDNA 1 512
//!   (128 dwords, "GFX7-GFX10"), RDNA 2 1024 (GFX10.3), gfx950 1280 ("GFX950: roundup(lds-size /
//!   (320 * 4))"), gfx1250 2048 (above);
//! - architected_sgprs, user_sgpr_init16_bug: LLVM's subtarget features of the same names
//!   (`llvm/lib/Target/AMDGPU/AMDGPU.td`: `FeatureArchitectedSGPRs` in every GFX12 processor,
//!   `FeatureUserSGPRInit16Bug` in `FeatureISAVersion11_0_0` and `_11_0_2`, and in the gfx11
//!   generic target, whose code must run on those two), and what `llc-19`/`llc-22` emit for each
//!   row in wave32 and wave64 (`kernels/tests/all/entry_state_llvm.rs`); neither feature is in a gfx9 or
//!   gfx10 processor of `AMDGPU.td` (gfx10 rows checked with llc since the gfx10 template, gfx9
//!   rows since the gfx9 template);
//! - packed_workitem_ids: LLVM's `FeaturePackedTID` (`AMDGPU.td`: in `FeatureISAVersion9_0_A`,
//!   `_9_4_Common`, `_9_5_0` and every GFX11 and GFX12 processor; AMDGPUUsage, "Initial Kernel
//!   Execution State": packed work-item ids on GFX90A, GFX942 and GFX11+), held to what
//!   `llc-19`/`llc-22` read for work-item id y on every row (`kernels/tests/all/entry_state_llvm.rs`);
//! - unified_vgprs: LLVM's `FeatureGFX90AInsts` (gfx90a, gfx942, gfx950): AMDGPUUsage, "Kernel
//!   Descriptor" (ACCUM_OFFSET in compute_pgm_rsrc3 for GFX90A and GFX942; VGPR granules of 8),
//!   held to the descriptors `llvm-mc-19`/`-22` write (`kernels/tests/all/code_object_llvm_link.rs`).
//!
//! What a generation is (its DS layout, its rules, its non-DS formats) is its module of
//! [`crate::gen`], not a column here. Which ops exist is the DS table's opcode column of the
//! generation with the target's DS features (`ds::OpInfo::on`), the LDS size a column here.

use crate::ds_features::DsFeatures;
use crate::errata::Errata;
pub use crate::gen::Generation;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

impl Generation {
    /// Every target of this generation, in table order.
    pub fn targets(self) -> impl Iterator<Item = &'static Target> {
        TARGETS.iter().filter(move |t| t.generation == self)
    }
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
    /// Work-item ids y and z arrive packed into v0 beside x (x \[9:0\], y \[19:10\], z
    /// \[29:20\]), not in v1 and v2 (LLVM `FeaturePackedTID`).
    pub packed_workitem_ids: bool,
    /// One register file of 512 VGPRs and AccVGPRs per lane, the AccVGPRs from
    /// compute_pgm_rsrc3's ACCUM_OFFSET on (LLVM `FeatureGFX90AInsts`; AMDGPUUsage "compute_pgm_rsrc3
    /// for GFX90A, GFX942"): VGPRs count in granules of 8 and the descriptor carries the offset.
    pub unified_vgprs: bool,
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
    /// What the target's DS instructions can do beyond its generation's opcode column (which ops
    /// of the column it has, `gds`, `acc`, register alignment): [`DsFeatures`].
    pub ds_features: DsFeatures,
    /// The target-id features the processor has (xnack, sramecc).
    pub target_id: TargetIdFeatures,
    /// The hardware errata the kernels work around: [`Errata`].
    pub errata: Errata,
}

/// The target-id features a processor supports (AMDGPUUsage, "Target ID" and the "Target
/// Features" column of "AMDGPU Processors"). The code objects built here leave each one "any"
/// (`e_flags` `EF_AMDGPU_FEATURE_XNACK_ANY_V4` 0x100, `EF_AMDGPU_FEATURE_SRAMECC_ANY_V4` 0x400,
/// AMDGPUUsage "ELF Header"), as `llvm-mc -filetype=obj` does without `-mattr`, so they load
/// whatever mode the GPU runs in; HIP names the mode the device runs in
/// (`gfx942:sramecc+:xnack-`, read by [`Target::by_hsa_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TargetIdFeatures {
    /// `xnack`: page-fault replay (gfx9, gfx1010-gfx1013).
    pub xnack: bool,
    /// `sramecc`: SRAM ECC (gfx906 and later gfx9).
    pub sramecc: bool,
}

/// Neither target-id feature (gfx1030 and later).
const NO_ID: TargetIdFeatures = TargetIdFeatures {
    xnack: false,
    sramecc: false,
};
const XNACK: TargetIdFeatures = TargetIdFeatures {
    xnack: true,
    sramecc: false,
};
const XNACK_SRAMECC: TargetIdFeatures = TargetIdFeatures {
    xnack: true,
    sramecc: true,
};

/// RDNA 1's errata (LLVM's `GFX10_1_Bugs` and `FeatureLdsMisalignedBug` on gfx1010-gfx1013).
const RDNA1_ERRATA: Errata = Errata::VMEM_SCALAR_WRITE
    .union(Errata::LDS_BRANCH_VMEM_WAR)
    .union(Errata::LDS_MISALIGNED_WGP);

/// `EF_AMDGPU_FEATURE_XNACK_ANY_V4` (AMDGPUUsage, "ELF Header").
pub const EF_XNACK_ANY: u32 = 0x100;
/// `EF_AMDGPU_FEATURE_SRAMECC_ANY_V4` (AMDGPUUsage, "ELF Header").
pub const EF_SRAMECC_ANY: u32 = 0x400;

/// The DS features of each kind of target (see [`DsFeatures`] for each feature's source).
mod features {
    use crate::ds_features::DsFeatures as F;
    /// gfx900, gfx906, gfx908: GDS, GWS, the src2 ops, any register alignment.
    pub const VEGA: F = F::GDS.union(F::GWS).union(F::SRC2).union(F::UNALIGNED);
    /// gfx90a: no GDS (GWS kept), no src2; `ds_add_f64`; AccVGPR operands; even tuples.
    pub const CDNA2: F = F::GWS.union(F::F64).union(F::ACC);
    /// gfx942: gfx90a's and the packed 16-bit adds.
    pub const CDNA3: F = CDNA2.union(F::PK16);
    /// gfx950: gfx942's and the transpose loads.
    pub const CDNA4: F = CDNA3.union(F::TR);
    /// gfx1010-gfx1013: GDS, GWS, the src2 ops.
    pub const RDNA1: F = F::GDS.union(F::GWS).union(F::SRC2).union(F::UNALIGNED);
    /// gfx1030-gfx1036 and gfx11: GDS and GWS.
    pub const RDNA2: F = F::GDS.union(F::GWS).union(F::UNALIGNED);
    /// gfx11: as RDNA 2 (the gfx11 column's ops need nothing more).
    pub const RDNA3: F = RDNA2;
    /// gfx12: no GDS or GWS; the packed 16-bit adds.
    pub const RDNA4: F = F::PK16.union(F::UNALIGNED);
    /// gfx1250, gfx1251: gfx12's without odd tuples (LLVM `FeatureRequiresAlignedVGPRs`), and
    /// `ds_add_f64` (LLVM `FeatureGFX90AInsts`-or-`FeatureGFX1250Insts`); no AccVGPRs.
    pub const CDNA5: F = F::PK16.union(F::F64);
}

fn generation_name<S: Serializer>(g: &Generation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(g.name())
}

/// Expands the rows of the target table, one per target, into [`Target`]s. The columns, in the
/// order of the header above the rows: name, machine (`mach`), kfd_version (`kfd`), rocm_since
/// (`rocm`: (major, minor), `__` none), lds_bytes (`lds`), generation (`gen`), wave_sizes
/// (`waves`), lds_granule (`gran`), architected_sgprs (`arch`), user_sgpr_init16_bug (`init16`),
/// packed_workitem_ids (`packed`), unified_vgprs (`unified`), family, kind, generic (`__` none),
/// generic_version (`gv`), ds_features (`ds`: a set of [`features`]), target_id (`id`), errata
/// (`NONE` or a set of errata) and products.
macro_rules! targets {
    ($( ($name:literal, $machine:literal, $kfd:literal, $rocm:tt, $lds:literal, $gen:ident,
         [$($wave:literal),*], $granule:literal, $arch:literal, $init16:literal, $packed:literal,
         $unified:literal, $family:literal, $kind:ident, $generic:tt, $gver:literal, $ds:ident,
         $id:ident, $errata:ident, [$($product:literal),*]) ),* $(,)?) => {
        &[$(Target {
            name: $name,
            machine: $machine,
            kfd_version: $kfd,
            rocm_since: targets!(@opt $rocm),
            lds_bytes: $lds,
            generation: Generation::$gen,
            wave_sizes: &[$($wave),*],
            lds_granule: $granule,
            architected_sgprs: $arch,
            user_sgpr_init16_bug: $init16,
            packed_workitem_ids: $packed,
            unified_vgprs: $unified,
            family: $family,
            kind: Kind::$kind,
            products: &[$($product),*],
            generic: targets!(@opt $generic),
            generic_version: $gver,
            ds_features: features::$ds,
            target_id: $id,
            errata: targets!(@errata $errata),
        }),*]
    };
    (@opt __) => { None };
    (@opt ($a:literal, $b:literal)) => { Some(($a, $b)) };
    (@opt $v:literal) => { Some($v) };
    (@errata NONE) => { Errata::NONE };
    (@errata $e:ident) => { $e };
}

/// The target table, in LLVM's processor-table order. The first row is [`DEFAULT`].
#[rustfmt::skip]
pub static TARGETS: &[Target] = targets! {
    // name     mach  kfd     rocm    lds     gen    waves     gran  arch   init16 packed unified family              kind  generic          gv ds     id             errata        products
    ("gfx1100", 0x41, 110000, (5, 3), 65536,  Gfx11, [32, 64], 1024, false, true,  true,  false,  "RDNA 3",           Dgpu, "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon RX 7900 XTX", "Radeon RX 7900 XT", "Radeon RX 7900 GRE", "Radeon PRO W7900", "Radeon PRO W7800"]),
    ("gfx1101", 0x46, 110001, (5, 5), 65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3",           Dgpu, "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon RX 7800 XT", "Radeon RX 7700 XT", "Radeon RX 7700", "Radeon PRO W7700"]),
    ("gfx1102", 0x47, 110002, (5, 3), 65536,  Gfx11, [32, 64], 1024, false, true,  true,  false,  "RDNA 3",           Dgpu, "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon RX 7600 XT", "Radeon RX 7600", "Radeon RX 7600M / 7700S / 7600S (laptop)", "Radeon PRO W7600", "Radeon PRO W7500"]),
    ("gfx1103", 0x44, 110003, (5, 3), 65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3",           Apu,  "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon 780M / 760M / 740M (Ryzen 7040 / 8040 \"Phoenix\", \"Hawk Point\")"]),
    ("gfx1150", 0x43, 110500, (6, 1), 65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3.5",         Apu,  "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon 890M / 880M (Ryzen AI 300 \"Strix Point\")"]),
    ("gfx1151", 0x4a, 110501, (6, 1), 65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3.5",         Apu,  "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon 8060S / 8050S / 8040S (Ryzen AI Max \"Strix Halo\")"]),
    ("gfx1152", 0x55, 110502, __,     65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3.5",         Apu,  "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["Radeon 860M / 840M (Ryzen AI 300 \"Krackan Point\")"]),
    ("gfx1153", 0x58, 110503, __,     65536,  Gfx11, [32, 64], 1024, false, false, true,  false,  "RDNA 3.5",         Apu,  "gfx11-generic", 0, RDNA3, NO_ID,         NONE,         ["not yet named by AMD (AMDGPUUsage lists *TBA*): an RDNA 3.5 APU"]),
    ("gfx1200", 0x48, 120000, (6, 2), 65536,  Gfx12, [32, 64], 1024, true,  false, true,  false,  "RDNA 4",           Dgpu, "gfx12-generic", 0, RDNA4, NO_ID,         NONE,         ["Radeon RX 9060 XT", "Radeon RX 9060"]),
    ("gfx1201", 0x4e, 120001, (6, 2), 65536,  Gfx12, [32, 64], 1024, true,  false, true,  false,  "RDNA 4",           Dgpu, "gfx12-generic", 0, RDNA4, NO_ID,         NONE,         ["Radeon RX 9070 XT", "Radeon RX 9070", "Radeon RX 9070 GRE", "Radeon AI PRO R9700"]),
    ("gfx1250", 0x49, 120500, __,     327680, Gfx12_5, [32],   2048, true,  false, true,  false,  "CDNA 5",           Apu,  __,              0, CDNA5, XNACK_SRAMECC, NONE,         ["Instinct MI450 series (named in AMD's ROCm trap handler source; AMDGPUUsage lists *TBA*)"]),
    ("gfx1251", 0x5a, 120501, __,     327680, Gfx12_5, [32],   2048, true,  false, true,  false,  "CDNA 5",           Apu,  __,              0, CDNA5, XNACK_SRAMECC, NONE,         ["not named by AMD (AMDGPUUsage lists *TBA*; press reports name the Instinct MI430 series)"]),
    ("gfx900",  0x2c, 90000,  (5, 2), 65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",     Dgpu, "gfx9-generic",  0, VEGA,  XNACK,         NONE,         ["Radeon RX Vega 64", "Radeon RX Vega 56", "Radeon Vega Frontier Edition", "Radeon Instinct MI25"]),
    ("gfx902",  0x2d, 90002,  __,     65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",     Apu,  "gfx9-generic",  0, VEGA,  XNACK,         NONE,         ["Radeon Vega 8 / 11 of Ryzen 3 2200G and Ryzen 5 2400G (\"Raven Ridge\")"]),
    ("gfx904",  0x2e, 90004,  __,     65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",     Dgpu, "gfx9-generic",  0, VEGA,  XNACK,         NONE,         ["not named by AMD (AMDGPUUsage lists *TBA*): Vega 12 (the amdkfd driver's name)"]),
    ("gfx909",  0x31, 90002,  __,     65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",     Apu,  "gfx9-generic",  0, VEGA,  XNACK,         NONE,         ["not named by AMD (AMDGPUUsage lists *TBA*): Raven Ridge 2 (LLVM review D53418), which amdkfd reports as gfx902"]),
    ("gfx90c",  0x32, 90012,  __,     65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",     Apu,  "gfx9-generic",  0, VEGA,  XNACK,         NONE,         ["Radeon Graphics of Ryzen 3 / 5 / 7 4300G(E)-4700G(E) and Ryzen PRO 4000G (\"Renoir\")", "Radeon Graphics of Ryzen 5000 APUs, e.g. Ryzen 7 5800H (\"Cezanne\"; rocBLAS issue #1398 reports it as gfx90c)"]),
    ("gfx906",  0x2f, 90006,  (5, 2), 65536,  Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega 7nm)", Dgpu, "gfx9-generic",  0, VEGA,  XNACK_SRAMECC, NONE,         ["Radeon VII", "Radeon Pro VII", "Radeon Instinct MI50", "Radeon Instinct MI60"]),
    ("gfx908",  0x30, 90008,  (5, 2), 65536,  Gfx9,  [64],     512,  false, false, false, false,  "CDNA",             Dgpu, __,              0, VEGA,  XNACK_SRAMECC, NONE,         ["Instinct MI100"]),
    ("gfx90a",  0x3f, 90010,  (5, 2), 65536,  Gfx9,  [64],     512,  false, false, true,  true,   "CDNA 2",           Dgpu, __,              0, CDNA2, XNACK_SRAMECC, NONE,         ["Instinct MI250X", "Instinct MI250", "Instinct MI210"]),
    ("gfx942",  0x4c, 90402,  (6, 0), 65536,  Gfx9,  [64],     512,  false, false, true,  true,   "CDNA 3",           Dgpu, "gfx9-4-generic", 0, CDNA3, XNACK_SRAMECC, NONE,         ["Instinct MI300X", "Instinct MI325X", "Instinct MI300A (APU)"]),
    ("gfx950",  0x4f, 90500,  (7, 0), 163840, Gfx9,  [64],     1280, false, false, true,  true,   "CDNA 4",           Dgpu, "gfx9-4-generic", 0, CDNA4, XNACK_SRAMECC, NONE,         ["Instinct MI355X", "Instinct MI350X"]),
    ("gfx1010", 0x33, 100100, (5, 2), 65536,  Gfx10, [32, 64], 512,  false, false, false, false,  "RDNA 1",           Dgpu, "gfx10-1-generic", 0, RDNA1, XNACK,         RDNA1_ERRATA, ["Radeon RX 5700 XT", "Radeon RX 5700", "Radeon RX 5600 XT", "Radeon Pro W5700"]),
    ("gfx1011", 0x34, 100101, (5, 2), 65536,  Gfx10, [32, 64], 512,  false, false, false, false,  "RDNA 1",           Dgpu, "gfx10-1-generic", 0, RDNA1, XNACK,         RDNA1_ERRATA, ["Radeon Pro V520", "Radeon Pro 5600M"]),
    ("gfx1012", 0x35, 100102, (5, 2), 65536,  Gfx10, [32, 64], 512,  false, false, false, false,  "RDNA 1",           Dgpu, "gfx10-1-generic", 0, RDNA1, XNACK,         RDNA1_ERRATA, ["Radeon RX 5500 XT", "Radeon RX 5500", "Radeon RX 5300", "Radeon Pro W5500"]),
    ("gfx1013", 0x42, 100103, (5, 2), 65536,  Gfx10, [32, 64], 512,  false, false, false, false,  "RDNA 1",           Apu,  "gfx10-1-generic", 0, RDNA1, XNACK,         RDNA1_ERRATA, ["not named by AMD (AMDGPUUsage lists *TBA*): an RDNA 1 APU (\"Cyan Skillfish\")"]),
    ("gfx1030", 0x36, 100300, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Dgpu, "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon RX 6950 XT", "Radeon RX 6900 XT", "Radeon RX 6800 XT", "Radeon RX 6800", "Radeon PRO W6800", "Radeon PRO V620"]),
    ("gfx1031", 0x37, 100301, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Dgpu, "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon RX 6750 XT", "Radeon RX 6700 XT", "Radeon RX 6700"]),
    ("gfx1032", 0x38, 100302, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Dgpu, "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon RX 6650 XT", "Radeon RX 6600 XT", "Radeon RX 6600", "Radeon PRO W6600"]),
    ("gfx1033", 0x39, 100303, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Apu,  "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Steam Deck APU (\"Van Gogh\")"]),
    ("gfx1034", 0x3e, 100304, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Dgpu, "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon RX 6500 XT", "Radeon RX 6400"]),
    ("gfx1035", 0x3d, 100305, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Apu,  "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon 680M / 660M (Ryzen 6000 \"Rembrandt\")"]),
    ("gfx1036", 0x45, 100306, (5, 2), 65536,  Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",           Apu,  "gfx10-3-generic", 0, RDNA2, NO_ID,         NONE,         ["Radeon Graphics of Ryzen 7000 desktop (\"Raphael\")"]),
};

/// The generic targets (AMDGPUUsage, "Generic Processors"): one code object, built for code object
/// version 6 with the generic version in `e_flags`, runs on every processor whose `generic` names
/// the row (ROCm 6.3 and later load the gfx11 and gfx12 ones; no release note names the gfx9 and
/// gfx10 ones: `rocm_since` none). Same DS table, kernel template and wave sizes as the
/// processors of the family, and the LDS LLVM allows the generic target (`llc-22`: 64 KiB for
/// gfx9-4-generic, whose gfx950 member has more); its DS features, entry state and errata are
/// LLVM's feature list for the generic target (`FeatureISAVersion9_Generic`, `_9_4_Generic`,
/// `_10_1_Generic`, `_10_3_Generic` in `AMDGPU.td`: gfx900's, gfx942's, gfx1010's and gfx1030's,
/// each measured with `llvm-mc-22`/`llc-22`). No GPU reports a generic target, so no KFD
/// version (0) and no device of its own.
#[rustfmt::skip]
pub static GENERIC_TARGETS: &[Target] = targets! {
    // name           mach  kfd rocm    lds    gen    waves     gran  arch   init16 packed unified family                 kind     generic gv ds     id     errata products
    ("gfx9-generic",    0x51, 0, __,     65536, Gfx9,  [64],     512,  false, false, false, false,  "GCN 5 (Vega)",        Generic, __,     1, VEGA,  XNACK,         NONE,         []),
    ("gfx9-4-generic",  0x5f, 0, __,     65536, Gfx9,  [64],     512,  false, false, true,  true,   "CDNA 3 and CDNA 4",   Generic, __,     1, CDNA3, XNACK_SRAMECC, NONE,         []),
    ("gfx10-1-generic", 0x52, 0, __,     65536, Gfx10, [32, 64], 512,  false, false, false, false,  "RDNA 1",              Generic, __,     1, RDNA1, XNACK,         RDNA1_ERRATA, []),
    ("gfx10-3-generic", 0x53, 0, __,     65536, Gfx10, [32, 64], 1024, false, false, false, false,  "RDNA 2",              Generic, __,     1, RDNA2, NO_ID,         NONE,         []),
    ("gfx11-generic", 0x54, 0,  (6, 3), 65536, Gfx11, [32, 64], 1024, false, true,  true,  false,  "RDNA 3 and RDNA 3.5", Generic, __,     1, RDNA3, NO_ID, NONE,  []),
    ("gfx12-generic", 0x59, 0,  (6, 3), 65536, Gfx12, [32, 64], 1024, true,  false, true,  false,  "RDNA 4",              Generic, __,     1, RDNA4, NO_ID, NONE,  []),
};

/// The target of the emulated device and the text tools when no `--target` is given.
pub static DEFAULT: &Target = &TARGETS[0];

/// What users run a processor as where no ROCm release supports it, as a public source reports:
/// the row whose `HSA_OVERRIDE_GFX_VERSION` they set (ROCm then loads that row's code objects on
/// the chip; the harness builds for it and names the chip, as for any override). One row per
/// line: the processor, the row it runs as, the source. `ds-harness info` names it beside the
/// device's runtime support ([`Target::runs_as_hint`]).
#[rustfmt::skip]
pub static UNSUPPORTED_RUN_AS: &[RunAs] = &[
    RunAs { chip: "gfx902", runs_as: "gfx900", source: ROCBLAS_1398 },
    RunAs { chip: "gfx909", runs_as: "gfx900", source: ROCBLAS_1398 },
    RunAs { chip: "gfx90c", runs_as: "gfx900", source: ROCBLAS_1398 },
];

/// AMD's answer in ROCm/rocBLAS issue #1398 (2024-03-07, on a Ryzen 7 5800H's Vega APU): not
/// supported by ROCm; users of similar devices run it with this override, which AMD does not
/// support (the reporter's ran).
const ROCBLAS_1398: &str =
    "AMD's answer in ROCm/rocBLAS issue #1398: not supported by ROCm, and the override not either";

/// A row of [`UNSUPPORTED_RUN_AS`].
#[derive(Debug, PartialEq, Eq)]
pub struct RunAs {
    /// The processor no ROCm release supports.
    pub chip: &'static str,
    /// The processor its users make ROCm run it as.
    pub runs_as: &'static str,
    /// Who says so, and how far it goes.
    pub source: &'static str,
}

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

    /// The row whose kernel-driver `gfx_target_version` is `version`: the first with it, as two
    /// rows may share one (amdkfd reports a Raven Ridge 2 chip, LLVM's own processor, with the
    /// Raven Ridge version, and ROCm runs it as that processor).
    pub fn by_kfd_version(version: u32) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.kfd_version == version)
    }

    /// The target-id feature bits of the code objects built for this target (`e_flags` bits
    /// [11:8], AMDGPUUsage "ELF Header"): "any" for each feature it has ([`TargetIdFeatures`]),
    /// as `llvm-mc -filetype=obj` writes them (`reference/tests/all/target_table_llvm.rs`).
    pub fn e_flags_features(&self) -> u32 {
        let mut bits = 0;
        if self.target_id.xnack {
            bits |= EF_XNACK_ANY;
        }
        if self.target_id.sramecc {
            bits |= EF_SRAMECC_ANY;
        }
        bits
    }

    /// The whole `e_flags` of a code object for this target: the machine, the target-id feature
    /// bits, and a generic target's generic version in [31:24].
    pub fn e_flags(&self) -> u32 {
        u32::from(self.machine) | self.e_flags_features() | u32::from(self.generic_version) << 24
    }

    /// The row a HIP or HSA device name names, and the modes it states: `gfx942`,
    /// `gfx942:sramecc+:xnack-` (what HIP's `gcnArchName` reports), or the same after
    /// `amdgcn-amd-amdhsa--` (AMDGPUUsage, "Target ID": the processor, then `:feature+` or
    /// `:feature-` for each target-id feature it sets).
    pub fn by_hsa_name(name: &str) -> Result<HsaName, HsaNameError> {
        let name = name.trim();
        let id = name.strip_prefix("amdgcn-amd-amdhsa--").unwrap_or(name);
        let mut parts = id.split(':');
        let processor = parts.next().unwrap_or("");
        let target = Target::by_name(processor).map_err(HsaNameError::Target)?;
        let mut out = HsaName {
            target,
            xnack: None,
            sramecc: None,
        };
        for part in parts {
            let (feature, on) = match part.strip_suffix('+') {
                Some(f) => (f, true),
                None => match part.strip_suffix('-') {
                    Some(f) => (f, false),
                    None => return Err(HsaNameError::Feature(name.to_string(), part.to_string())),
                },
            };
            let (has, slot) = match feature {
                "xnack" => (target.target_id.xnack, &mut out.xnack),
                "sramecc" => (target.target_id.sramecc, &mut out.sramecc),
                _ => return Err(HsaNameError::Feature(name.to_string(), part.to_string())),
            };
            if !has || slot.is_some() {
                return Err(HsaNameError::Feature(name.to_string(), part.to_string()));
            }
            *slot = Some(on);
        }
        Ok(out)
    }

    /// Where no ROCm release supports this processor and a source reports what its users run it
    /// as ([`UNSUPPORTED_RUN_AS`]): that row, the `HSA_OVERRIDE_GFX_VERSION` value that makes
    /// ROCm run the chip as it (its KFD version as `major.minor.stepping`), and the source.
    pub fn runs_as_hint(&self) -> Option<(&'static Target, String, &'static str)> {
        let r = UNSUPPORTED_RUN_AS.iter().find(|r| r.chip == self.name)?;
        let t = Target::by_name(r.runs_as).expect("the row it runs as is in the table");
        let v = t.kfd_version;
        Some((
            t,
            format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100),
            r.source,
        ))
    }

    /// The HSA target id the code object's metadata carries (`amdhsa.target`, AMDGPUUsage
    /// "Target Triples" and "Target ID"), e.g. `amdgcn-amd-amdhsa--` followed by the name.
    pub fn hsa_target_id(&self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.name)
    }
}

/// A device name read by [`Target::by_hsa_name`]: the row and the target-id modes it states
/// (`None`: not stated, "any").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HsaName {
    /// The row.
    pub target: &'static Target,
    /// `xnack+` (true) or `xnack-` (false).
    pub xnack: Option<bool>,
    /// `sramecc+` or `sramecc-`.
    pub sramecc: Option<bool>,
}

/// Why a device name names no row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HsaNameError {
    /// The processor is not in the table.
    Target(UnknownTarget),
    /// A `:feature+/-` the processor does not have (or a repeated or malformed one): the name and
    /// the part.
    Feature(String, String),
}

impl fmt::Display for HsaNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HsaNameError::Target(e) => e.fmt(f),
            HsaNameError::Feature(name, part) => write!(
                f,
                "`{name}`: `{part}` is not a target-id feature of that processor (each of xnack \
                 and sramecc is written once, as `:xnack+` or `:xnack-`, and only where the \
                 processor has it)"
            ),
        }
    }
}

impl std::error::Error for HsaNameError {}

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
mod tests;
