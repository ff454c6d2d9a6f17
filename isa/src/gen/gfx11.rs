//! gfx11 (RDNA 3 and RDNA 3.5) as data.
//!
//! Sources: AMD "RDNA3 Instruction Set Architecture Reference Guide" (and the RDNA3.5 guide, the
//! same for everything here), chapter "Microcode Formats" (DS: OFFSET0 [7:0], OFFSET1 [15:8], bit
//! 16 reserved, GDS [17], OP [25:18]; SMEM, VOP3, FLAT/GLOBAL), "Scalar and vector operands" (NULL
//! 124, M0 125, SGPRs s0..s105) and SOPP `S_WAITCNT` (VM_CNT [15:10], LGKM_CNT [9:4], EXP_CNT
//! [2:0], bit 3 unused); every field checked against `llvm-mc-19`/`-22 -mcpu=` each gfx11 target
//! (`-show-encoding` and `-disassemble`). The rules' sources are in `super::rules`.

use super::formats::{Bits, GlobalFormat, OperandCodes, SmemFormat, SmemOffset, Vop3Format};
use super::rules::{CMPST_NEW_VALUE_FIRST, PERMUTE_WITHIN_HALVES, SWIZZLE_IN_32_LANE_GROUPS};
use super::{CodeEnd, CodeEndOn, DsDoc, DsLayout, Spec, WaitcntLayout};

/// gfx11.
pub static SPEC: Spec = Spec {
    name: "gfx11",
    isa_guides: "AMD's RDNA3 and RDNA3.5 ISA guides",
    ds_doc: DsDoc {
        source: "AMD RDNA3 ISA reference guide, DS opcode list",
        notes: &[
            "Encoding: offset0 [7:0], offset1 [15:8], bit 16 reserved (zero), gds [17], op \
             [25:18], 0b110110 [31:26], addr [39:32], data0 [47:40], data1 [55:48], vdst \
             [63:56]; unused register fields and the offset bytes of `ds_nop` are zero.",
            "The GWS ops with a value (`ds_gws_init`, `ds_gws_sema_br`, `ds_gws_barrier`) name \
             it data0 but encode it in the addr byte, as LLVM does for gfx10 and later.",
            "`ds_cmpstore*`: data0 is the new value and data1 the compare value (the reverse of \
             gfx10's `ds_cmpst*`, names that llvm-mc-19 rejects for gfx11).",
        ],
    },
    ds: DS,
    gfx9_mnemonics: false,
    ds_aliases: &[],
    permute_span: PERMUTE_WITHIN_HALVES,
    swizzle_group: SWIZZLE_IN_32_LANE_GROUPS,
    cmpst_data0: CMPST_NEW_VALUE_FIRST,
    operands: OPERANDS,
    waitcnt: WAITCNT,
    smem: SMEM,
    vop3: VOP3,
    global: GLOBAL,
    vopc_sdst: "vcc_lo",
    renames: &[],
    hwregs: &[],
    clusters: None,
    vgpr_granule32: 8,
    vgprs: 256,
    depctr_names: &[],
    oldest_llvm: 19,
    // 3 lines of 128 bytes (LLVM's `EmitCodeEnd` from GFX11 on; `llc-22`: `.p2alignl 7` and
    // `.fill 96, 4` of `s_code_end`).
    code_end: CODE_END,
};

/// The end of the code on every target: 3 lines of 128 bytes (the instruction-cache line of
/// GFX11 and later in LLVM's `EmitCodeEnd`).
pub const CODE_END: CodeEnd = CodeEnd {
    on: CodeEndOn::Every,
    line_bytes: 128,
    lines: 3,
};

/// The DS layout of gfx10 and gfx11 (and gfx12's, without its gds bit).
pub const DS: DsLayout = DsLayout {
    op_shift: 18,
    gds_bit: 17,
    has_gds: true,
    acc_bit: None,
    reserved_bit: 16,
};

/// NULL 124, M0 125 (gfx12 the same: the RDNA4 guide's operand table).
pub const OPERANDS: OperandCodes = OperandCodes {
    m0: 125,
    null: Some(124),
    sgprs: 106,
    unmodelled: &[],
    off: 124,
};

/// `s_waitcnt`: VM_CNT [15:10], LGKM_CNT [9:4], EXP_CNT [2:0] (gfx12 reads the same).
pub const WAITCNT: WaitcntLayout = WaitcntLayout {
    vm: &[Bits::at(0, 10, 6)],
    exp: Bits::at(0, 0, 3),
    lgkm: Bits::at(0, 4, 6),
};

/// SMEM (\[31:26\] = 0b11_1101): SBASE [5:0] (pairs), SDATA [12:6], GLC/DLC [14:13], OP
/// [25:18]; the second dword a signed 21-bit OFFSET [20:0] and SOFFSET [31:25] (NULL for none).
/// gfx10 the same.
pub const SMEM: SmemFormat = SmemFormat {
    prefix: 0x3d,
    op: Bits::at(0, 18, 8),
    sdata: Bits::at(0, 6, 7),
    sbase: Bits::at(0, 0, 6),
    offset: Bits::at(1, 0, 21),
    soffset: SmemOffset::Soffset(Bits::at(1, 25, 7)),
    prints_null: true,
    prints_zero_offset: false,
};

/// VOP3 (\[31:26\] = 0b11_0101): OP [25:16]. gfx10 and gfx12 the same.
pub const VOP3: Vop3Format = Vop3Format {
    prefix: 0x35,
    op: Bits::at(0, 16, 10),
    literal: true,
    scalar_reads: None,
};

/// GLOBAL: FLAT (\[31:26\] = 0b11_0111) with SEG [17:16] = 2, a signed 13-bit OFFSET [12:0],
/// DLC/GLC/SLC [15:13], OP [24:18]; VADDR [39:32], DATA [47:40], SADDR [54:48], VDST [63:56].
pub const GLOBAL: GlobalFormat = GlobalFormat {
    dwords: 2,
    prefix: (Bits::at(0, 26, 6), 0x37),
    seg: Some((Bits::at(0, 16, 2), 2)),
    op: Bits::at(0, 18, 7),
    offset: Bits::at(0, 0, 13),
    offset_range: 13,
    saddr: Bits::at(1, 16, 7),
    vaddr: Bits::at(1, 0, 8),
    data: Bits::at(1, 8, 8),
    vdst: Bits::at(1, 24, 8),
};
