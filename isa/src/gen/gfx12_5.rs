//! gfx12.5 ("CDNA 5", both its processors in the target table) as data: gfx12's formats, spellings and
//! rules where they are equal, and what gfx12.5 changes.
//!
//! Sources (no AMD ISA guide is read here: the facts are LLVM 22's, measured with its tools; the
//! commands are in the FACTS file): `llvm-mc-22` on both GFX 12.5 processors for
//! every DS opcode value 0..255 (the DS layout is gfx12's: bit 16 ignored by LLVM's disassembler,
//! bit 17 and a nonzero unused register field refused) and for the template's non-DS
//! instructions, whose encodings and text are gfx12's byte for byte both ways (the gfx12 vector
//! file, `isa/tests/vectors/inst_gfx12.txt`, assembled and disassembled for gfx12.5); the
//! spellings only gfx12.5 reads (`ds_load_tr_b64`, `ds_load_tr_b128`) likewise. LLVM's
//! `AMDGPU.td` (`FeatureISAVersion12_50`): `FeatureClusters` (workgroup clusters, below) and
//! `FeatureRequiresAlignedVGPRs` (even register tuples: the target table's DS features). The
//! hardware registers the template reads and writes are named as `llvm-mc-22` prints them for
//! gfx12.5 (`HW_REG_WAVE_MODE` 1, `HW_REG_IB_STS2` 28: gfx12 prints the second as a number).

use super::formats::Bits;
use super::rules::{CMPST_NEW_VALUE_FIRST, PERMUTE_OVER_THE_WAVE, SWIZZLE_IN_32_LANE_GROUPS};
use super::{gfx11, gfx12};
use super::{ClusterRegs, DsDoc, DsLayout, Spec};

/// gfx12.5.
pub static SPEC: Spec = Spec {
    name: "gfx12.5",
    isa_guides: "LLVM 22 (no AMD ISA guide for gfx12.5 is read here); AMD's RDNA4 ISA guide for \
                 the ops gfx12.5 shares with gfx12",
    ds_doc: DsDoc {
        source: "LLVM 22 (`llvm-mc-22` for GFX 12.5, every opcode value); AMD RDNA4 ISA \
                 reference guide, section 16.15, for the ops gfx12.5 shares with gfx12",
        notes: &[
            "Encoding: as gfx12 (no gds bit; bit 17 must be zero, bit 16 is ignored by LLVM's \
             disassembler and refused here).",
            "Added to gfx12: `ds_add_f64` and `ds_add_rtn_f64` (CDNA 2's), the barrier arrives \
             `ds_atomic_barrier_arrive_rtn_b64` and `ds_atomic_async_barrier_arrive_b64`, and the \
             transpose loads `ds_load_tr4_b64`, `ds_load_tr6_b96`, `ds_load_tr8_b64`, \
             `ds_load_tr16_b128`. Removed: the three gfx12 BVH stack ops.",
            "Register tuples start at an even VGPR (LLVM `FeatureRequiresAlignedVGPRs`), except \
             `ds_load_tr6_b96`'s VDST, which llvm-mc-22 reads at any register; no AccVGPRs; \
             wave32 only.",
            "`ds_cmpstore*`: data0 is the new value and data1 the compare value, as on gfx11.",
        ],
    },
    ds: DsLayout {
        has_gds: false,
        ..gfx11::DS
    },
    gfx9_mnemonics: false,
    ds_aliases: &[
        ("ds_subrev_u32", "ds_rsub_u32"),
        ("ds_subrev_rtn_u32", "ds_rsub_rtn_u32"),
        ("ds_subrev_u64", "ds_rsub_u64"),
        ("ds_subrev_rtn_u64", "ds_rsub_rtn_u64"),
        // The transpose loads' short names (CDNA 4's `ds_read_b64_tr_b16` spelling is refused).
        ("ds_load_tr_b64", "ds_load_tr8_b64"),
        ("ds_load_tr_b128", "ds_load_tr16_b128"),
    ],
    // A wave32-only generation: one permute span, one swizzle group (LLVM
    // `supportsWaveWideBPermute()` is true in every wave32).
    permute_span: PERMUTE_OVER_THE_WAVE,
    swizzle_group: SWIZZLE_IN_32_LANE_GROUPS,
    cmpst_data0: CMPST_NEW_VALUE_FIRST,
    operands: gfx11::OPERANDS,
    waitcnt: gfx11::WAITCNT,
    smem: gfx12::SMEM,
    vop3: gfx11::VOP3,
    global: gfx12::GLOBAL,
    vopc_sdst: "vcc_lo",
    renames: &[gfx12::RENAMES, RENAMES],
    hwregs: &[(1, "HW_REG_WAVE_MODE"), (28, "HW_REG_IB_STS2")],
    // LLVM 22's workgroup id x (`llc-22` for GFX 12.5, llvm-project PRs #159120, #157978):
    // ttmp6 [3:0] the id in the cluster, [15:12] the cluster's last id, and
    // `hwreg(HW_REG_IB_STS2, 6, 4)` zero on a dispatch without clusters.
    clusters: Some(ClusterRegs {
        place_ttmp: 6,
        id_x: Bits::at(0, 0, 4),
        max_id_x: Bits::at(0, 12, 4),
        dispatch_field: (28, 6, 4),
    }),
    // 1024 VGPRs per lane (LLVM `Feature1024AddressableVGPRs`), so the 6-bit field counts 16:
    // llvm-mc-22 encodes `.amdhsa_next_free_vgpr` 16 as 0, 17 as 1, 1024 as 63.
    vgpr_granule32: 16,
    // The same 1024 VGPRs: a DS tuple's first register is v0..v255 (the 8-bit field), the tuple
    // may run past v255 (llvm-mc-22 reads `ds_load_b128 v[254:257]`).
    vgprs: 1024,
    // The one wait its template needs (around `ds_atomic_async_barrier_arrive_b64`), as
    // llvm-mc-22 prints it.
    depctr_names: &[(0xff83, "depctr_vm_vsrc(0)")],
    // `llvm-mc-19 -mcpu=` either GFX 12.5 processor: "not a recognized processor".
    oldest_llvm: 22,
    // As gfx11 (`llc-22` for GFX 12.5: `.p2alignl 7` and `.fill 96, 4` of `s_code_end`).
    code_end: gfx11::CODE_END,
};

/// gfx12's `s_wait_alu` at gfx11's `s_waitcnt_depctr` opcode, which gfx12.5's template uses.
pub const RENAMES: &[(&str, &str)] = &[("s_waitcnt_depctr", "s_wait_alu")];
