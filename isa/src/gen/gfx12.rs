//! gfx12 (RDNA 4) as data.
//!
//! Sources: AMD "RDNA4 Instruction Set Architecture Reference Guide", chapter "Microcode Formats"
//! (VDS: gfx11's DS layout without a GDS bit, which `llvm-mc-19` refuses for the gfx12 targets,
//! "gds modifier is not supported on this GPU"; SMEM with OP [20:13] and a signed 24-bit offset;
//! the 96-bit VGLOBAL), its operand table (NULL 124, M0 125, as gfx11) and section 16.15 "VDS
//! Instructions"; LLVM's GFX12 MC tests (`gfx12_asm_ds_alias.s`) for the DS spellings only gfx12
//! reads; `llvm-objdump-19 --mcpu=` a gfx12 target for the scalar ops gfx12 renamed and its SMEM
//! text. Every field checked against `llvm-mc-19`/`-22` for each gfx12 target. gfx12 still reads `s_waitcnt`
//! in gfx11's layout (the template waits with the split counters, `s_wait_*cnt`).

use super::formats::{Bits, GlobalFormat, SmemFormat, SmemOffset};
use super::gfx11;
use super::rules::{CMPST_NEW_VALUE_FIRST, PERMUTE_OVER_THE_WAVE, SWIZZLE_IN_32_LANE_GROUPS};
use super::{DsDoc, DsLayout, Spec};

/// gfx12.
pub static SPEC: Spec = Spec {
    name: "gfx12",
    isa_guides: "AMD's RDNA4 ISA guide",
    ds_doc: DsDoc {
        source: "AMD RDNA4 ISA reference guide, section 16.15 \"VDS Instructions\"",
        notes: &[
            "Encoding: as gfx11, except that bit 17 (gfx11's gds) must be zero: llvm-mc-19 \
             rejects `gds` and does not disassemble a word with the bit set.",
            "Removed from gfx11: the GWS ops, `ds_ordered_count`, `ds_add/sub_gs_reg_rtn`, \
             `ds_cmpstore_f32/f64` (and rtn), `ds_wrap_rtn_b32`, `ds_bvh_stack_rtn_b32` (whose \
             name LLVM 22 reads as `ds_bvh_stack_push4_pop1_rtn_b32`). `ds_min/max_f32/f64` \
             (and rtn) became `ds_min/max_num_*` at the same opcodes, with IEEE 754-2019 \
             minimumNumber/maximumNumber semantics; the old names are still read.",
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
        // LLVM 22, which knows the op: gfx11's name of the same operands.
        ("ds_bvh_stack_rtn_b32", "ds_bvh_stack_push4_pop1_rtn_b32"),
    ],
    permute_span: PERMUTE_OVER_THE_WAVE,
    swizzle_group: SWIZZLE_IN_32_LANE_GROUPS,
    cmpst_data0: CMPST_NEW_VALUE_FIRST,
    operands: gfx11::OPERANDS,
    waitcnt: gfx11::WAITCNT,
    smem: SMEM,
    vop3: gfx11::VOP3,
    global: GLOBAL,
    vopc_sdst: "vcc_lo",
    renames: &[RENAMES],
    hwregs: &[],
    clusters: None,
    vgpr_granule32: 8,
    vgprs: 256,
    depctr_names: &[],
    oldest_llvm: 19,
    // As gfx11 (`llc-22` for RDNA 4: `.p2alignl 7` and `.fill 96, 4` of `s_code_end`).
    code_end: gfx11::CODE_END,
};

/// The scalar ops gfx12 renamed at the same opcodes (the carry-writing adds and subtracts).
pub const RENAMES: &[(&str, &str)] = &[
    ("s_add_u32", "s_add_co_u32"),
    ("s_sub_u32", "s_sub_co_u32"),
    ("s_add_i32", "s_add_co_i32"),
    ("s_sub_i32", "s_sub_co_i32"),
    ("s_addc_u32", "s_add_co_ci_u32"),
    ("s_subb_u32", "s_sub_co_ci_u32"),
    ("s_addk_i32", "s_addk_co_i32"),
];

/// SMEM: OP [20:13], SCOPE/TH and reserved [25:21]; IOFFSET [23:0] (signed) of the second dword,
/// SOFFSET [31:25]. LLVM prints the immediate always (`0x0`, `s2 offset:0x0`).
pub const SMEM: SmemFormat = SmemFormat {
    op: Bits::at(0, 13, 8),
    offset: Bits::at(1, 0, 24),
    soffset: SmemOffset::Soffset(Bits::at(1, 25, 7)),
    prints_null: false,
    prints_zero_offset: true,
    ..gfx11::SMEM
};

/// VGLOBAL, 96 bits: SADDR [6:0], OP [21:14], \[31:24\] = 0b1110_1110; VDST [39:32], VSRC
/// [62:55]; VADDR [71:64], IOFFSET [95:72] (signed 24 bits; the template's offsets fit 13).
pub const GLOBAL: GlobalFormat = GlobalFormat {
    dwords: 3,
    prefix: (Bits::at(0, 24, 8), 0xee),
    seg: None,
    op: Bits::at(0, 14, 8),
    offset: Bits::at(2, 8, 24),
    offset_range: 13,
    saddr: Bits::at(0, 0, 7),
    vaddr: Bits::at(2, 0, 8),
    data: Bits::at(1, 23, 8),
    vdst: Bits::at(1, 0, 8),
};
