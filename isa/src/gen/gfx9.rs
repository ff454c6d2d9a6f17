//! gfx9 (Vega and CDNA 1-4) as data.
//!
//! Sources: AMD's "Vega" and "CDNA3" ISA guides (and "CDNA4"), chapter "Microcode Formats" (DS:
//! GDS [16], OP [24:17], ACC [25] on targets with AccVGPR operands, reserved elsewhere; SMEM:
//! \[31:26\] = 0b11_0000, OP [25:18], IMM 17, GLC 16, NV 15, SOE 14, the second dword an immediate
//! [20:0] and SOFFSET [31:25], or without IMM the SGPR offset's code in [7:0]; VOP3A: \[31:26\] =
//! 0b11_0100, no literal, one scalar register read (the constant bus); FLAT with a signed 13-bit
//! OFFSET [12:0], LDS 13, SEG [15:14], GLC/SC0 16, SLC/NT 17, OP [24:18], SC1 25, NV 55), "Scalar
//! and vector operands" (M0 124, no NULL, SGPRs s0..s101, then `flat_scratch` and `xnack_mask`
//! 102..105, 125 reserved; GLOBAL's SADDR `off` is 0x7f) and SOPP `S_WAITCNT` (gfx10's layout with
//! a 4-bit LGKM_CNT [11:8]: `llvm-mc-19` encodes `s_waitcnt vmcnt(0)` as 0x0f70); `llvm-mc-19` and
//! `-22` for Vega and CDNA 3 for every field and spelling (`flat_scratch` and `xnack_mask` are not
//! modelled: the template never names them; gfx9 runs wave64 only, so a compare writes `vcc`).

use super::formats::{Bits, GlobalFormat, OperandCodes, SmemFormat, SmemOffset, Vop3Format};
use super::rules::{CMPST_COMPARE_VALUE_FIRST, PERMUTE_OVER_THE_WAVE, SWIZZLE_IN_32_LANE_GROUPS};
use super::{gfx11, CodeEnd, CodeEndOn, DsDoc, DsLayout, Spec, WaitcntLayout};

/// gfx9.
pub static SPEC: Spec = Spec {
    name: "gfx9",
    isa_guides: "AMD's Vega, CDNA3 and CDNA4 ISA guides",
    ds_doc: DsDoc {
        source: "LLVM's `DSInstructions.td` and MC tests, AMD's Vega, CDNA3 and CDNA4 ISA guides",
        notes: GFX9_NAMES_NOTES,
    },
    ds: DsLayout {
        op_shift: 17,
        gds_bit: 16,
        has_gds: true,
        acc_bit: Some(25),
        reserved_bit: 25,
    },
    gfx9_mnemonics: true,
    ds_aliases: &[],
    permute_span: PERMUTE_OVER_THE_WAVE,
    swizzle_group: SWIZZLE_IN_32_LANE_GROUPS,
    cmpst_data0: CMPST_COMPARE_VALUE_FIRST,
    operands: OperandCodes {
        m0: 124,
        null: None,
        sgprs: 102,
        unmodelled: &[(102, 105), (125, 125)],
        off: 0x7f,
    },
    waitcnt: WAITCNT,
    smem: SmemFormat {
        prefix: 0x30,
        op: Bits::at(0, 18, 8),
        soffset: SmemOffset::ImmSoe {
            imm: 17,
            soe: 14,
            soffset: Bits::at(1, 25, 7),
            sgpr: Bits::at(1, 0, 8),
        },
        prints_null: false,
        ..gfx11::SMEM
    },
    vop3: Vop3Format {
        prefix: 0x34,
        literal: false,
        scalar_reads: Some(1),
        ..gfx11::VOP3
    },
    global: GlobalFormat {
        seg: Some((Bits::at(0, 14, 2), 2)),
        ..gfx11::GLOBAL
    },
    vopc_sdst: "vcc",
    renames: &[DWORD_NAMES, NO_CARRY_NAMES],
    hwregs: &[],
    clusters: None,
    vgpr_granule32: 8,
    vgprs: 256,
    depctr_names: &[],
    oldest_llvm: 19,
    // CDNA 2 and later: 16 lines of 64 bytes (LLVM's `EmitCodeEnd` with CDNA 2's instructions;
    // `llc-22` for CDNA 2, 3 and 4: `.p2alignl 6` and `.fill 256, 4` of `s_nop 0`); Vega and
    // CDNA 1 none (`llc-22` writes nothing after their last kernel).
    code_end: CodeEnd {
        on: CodeEndOn::UnifiedVgprs,
        line_bytes: 64,
        lines: 16,
    },
};

/// `s_waitcnt`: VM_CNT [3:0] and [15:14], EXP_CNT [6:4], LGKM_CNT [11:8] (bits 7, 12, 13 unused).
pub const WAITCNT: WaitcntLayout = WaitcntLayout {
    vm: &[Bits::at(0, 0, 4), Bits::at(0, 14, 2)],
    exp: Bits::at(0, 4, 3),
    lgkm: Bits::at(0, 8, 4),
};

/// The DS table documentation's notes of a generation spelling DS ops by their gfx9 names.
pub const GFX9_NAMES_NOTES: &[&str] = &[
    "Only the gfx9 spellings are read (`ds_write_b32`, not gfx11's `ds_store_b32`).",
    "The GWS ops with a value (`ds_gws_init`, `ds_gws_sema_br`, `ds_gws_barrier`) name it data0 \
     but encode it in the addr byte.",
    "`ds_cmpst*`: data0 is the compare value and data1 the new value (LLVM `DSInstructions.td`; \
     the reverse of gfx11's `ds_cmpstore*`).",
];

/// gfx9 and gfx10 name SMEM and GLOBAL widths in dwords.
pub const DWORD_NAMES: &[(&str, &str)] = &[
    ("s_load_b32", "s_load_dword"),
    ("s_load_b64", "s_load_dwordx2"),
    ("s_load_b128", "s_load_dwordx4"),
    ("s_load_b256", "s_load_dwordx8"),
    ("s_load_b512", "s_load_dwordx16"),
    ("global_load_b32", "global_load_dword"),
    ("global_load_b64", "global_load_dwordx2"),
    ("global_load_b96", "global_load_dwordx3"),
    ("global_load_b128", "global_load_dwordx4"),
    ("global_store_b32", "global_store_dword"),
    ("global_store_b64", "global_store_dwordx2"),
    ("global_store_b96", "global_store_dwordx3"),
    ("global_store_b128", "global_store_dwordx4"),
];

/// gfx9's carry-less adds: no `_nc` (its `v_add_u32` and `v_sub_u32` are VOP2 0x34 and 0x35).
pub const NO_CARRY_NAMES: &[(&str, &str)] = &[
    ("v_add_nc_u32", "v_add_u32"),
    ("v_sub_nc_u32", "v_sub_u32"),
    ("v_add_nc_u32_e64", "v_add_u32_e64"),
];
