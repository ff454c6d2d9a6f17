//! gfx10 (RDNA 1 and RDNA 2) as data.
//!
//! Sources: AMD "RDNA 2 Instruction Set Architecture Reference Guide" (and "RDNA 1.0"), chapter
//! "Microcode Formats" (DS as gfx11's; SMEM and VOP3 as gfx11's; FLAT with a signed 12-bit
//! OFFSET [11:0], DLC 12, LDS 13, SEG [15:14], GLC 16, SLC 17, OP [24:18]), "Scalar and vector
//! operands" (M0 124, NULL 125: the other way round from gfx11) and SOPP `S_WAITCNT` (VM_CNT [3:0]
//! and [15:14], EXP_CNT [6:4], LGKM_CNT [13:8], bit 7 unused: `llvm-mc-19` encodes `s_waitcnt
//! vmcnt(0)` as 0x3f70); LLVM's gfx10 DS MC tests and `llvm-mc-19`/`-22 -mcpu=` every gfx10 row
//! for everything (gfx9's DS mnemonics, SMEM and GLOBAL widths in dwords). The rules' sources are
//! in `super::rules`.

use super::formats::{Bits, GlobalFormat, OperandCodes};
use super::rules::{CMPST_COMPARE_VALUE_FIRST, PERMUTE_WITHIN_HALVES, SWIZZLE_IN_32_LANE_GROUPS};
use super::{gfx11, gfx9, CodeEnd, CodeEndOn, DsDoc, Spec, WaitcntLayout};

/// gfx10.
pub static SPEC: Spec = Spec {
    name: "gfx10",
    isa_guides: "AMD's RDNA1 and RDNA2 ISA guides",
    ds_doc: DsDoc {
        source: "LLVM's `DSInstructions.td` and MC tests, AMD's RDNA1 and RDNA2 ISA guides",
        notes: gfx9::GFX9_NAMES_NOTES,
    },
    ds: gfx11::DS,
    gfx9_mnemonics: true,
    ds_aliases: &[],
    permute_span: PERMUTE_WITHIN_HALVES,
    swizzle_group: SWIZZLE_IN_32_LANE_GROUPS,
    cmpst_data0: CMPST_COMPARE_VALUE_FIRST,
    operands: OperandCodes {
        m0: 124,
        null: Some(125),
        sgprs: 106,
        unmodelled: &[],
        off: 125,
    },
    waitcnt: WaitcntLayout {
        lgkm: Bits::at(0, 8, 6),
        ..gfx9::WAITCNT
    },
    smem: gfx11::SMEM,
    vop3: gfx11::VOP3,
    global: GlobalFormat {
        seg: Some((Bits::at(0, 14, 2), 2)),
        offset: Bits::at(0, 0, 12),
        offset_range: 12,
        ..gfx11::GLOBAL
    },
    vopc_sdst: "vcc_lo",
    renames: &[gfx9::DWORD_NAMES],
    hwregs: &[],
    clusters: None,
    vgpr_granule32: 8,
    vgprs: 256,
    depctr_names: &[],
    oldest_llvm: 19,
    // 3 lines of 64 bytes (LLVM's `EmitCodeEnd` before GFX11; `llc-22`: `.p2alignl 6` and
    // `.fill 48, 4` of `s_code_end`).
    code_end: CodeEnd {
        on: CodeEndOn::Every,
        line_bytes: 64,
        lines: 3,
    },
};
