//! The non-DS opcodes the kernel template uses, one table per encoding format, one row per op,
//! one opcode column per generation (gfx9, gfx10, gfx11, gfx12, gfx12.5: the order of `Generation::ALL`,
//! as in the DS table; a new generation is a new column), `__` where the generation lacks the op. Which ops a generation has is its
//! column, nothing else; how it spells them is its `Spec::renames`.
//!
//! Opcodes come from each generation's ISA guide, chapter "Microcode Formats" (SOP1, SOP2, SOPK,
//! SOPC, SOPP, SMEM, VOP1, VOP2, VOP3, VOPC, FLAT/GLOBAL opcode lists): AMD's "Vega" and "CDNA3"
//! guides (gfx9), "RDNA 1.0" and "RDNA 2" (gfx10), "RDNA3" (gfx11), "RDNA4" (gfx12: the split
//! waits `s_wait_*cnt` are its SOPP opcodes; it has no `s_waitcnt_vscnt`, waiting for stores with
//! `s_wait_storecnt`, and spells `s_waitcnt_depctr` `s_wait_alu`, which no gfx12 kernel needs;
//! LLVM 19 still reads `s_waitcnt` for gfx12); gfx12.5 has gfx12's opcodes but `s_waitcnt`, which
//! `llvm-mc-22` for GFX 12.5 refuses ("instruction not supported on this GPU"; no guide read). `s_bfe_u32`, `s_cselect_b32`, `s_getreg_b32` and
//! `s_setreg_imm32_b32` are in the column of the generations whose template uses them (gfx12.5's
//! workgroup id and MODE prologue, `ds_kernels::entry`), `__` elsewhere, as `s_waitcnt_depctr` is
//! (gfx12's `s_wait_alu`: gfx12.5 waits with it around its asynchronous barrier arrive, and for
//! the arrive itself with `s_wait_asynccnt`, its own counter). Every row is checked against `llvm-mc-19`/`-22
//! -mcpu=<target> -show-encoding` by `kernels/tests/all/inst_vectors_llvm.rs` with each generation's vector
//! file (`isa/tests/vectors/inst*.txt`). DS opcodes are not here: they live in the one DS table
//! ([`crate::ds`]).
#![allow(clippy::zero_prefixed_literal)]

use crate::gen::Generation;

/// Expands one format's rows into an op enum with `name`, `opcode`, `a`, `b` and `from_opcode`.
macro_rules! op_table {
    ($(#[$meta:meta])* $enum:ident, a: $adoc:literal, b: $bdoc:literal,
     { $( ($v:ident, $name:literal, [$($opc:tt),*], $a:literal, $b:literal) ),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $(#[doc = $name] $v),* }

        impl $enum {
            /// Every op of this format, in table order.
            pub const ALL: &'static [$enum] = &[$($enum::$v),*];

            /// The row's mnemonic (LLVM's gfx11 spelling, the op's name in this crate); a
            /// generation's spelling is [`Self::mnemonic`].
            pub fn name(self) -> &'static str {
                match self { $($enum::$v => $name),* }
            }

            /// The mnemonic LLVM prints for the op in generation `gen` (its `Spec::renames`).
            pub fn mnemonic(self, gen: Generation) -> &'static str {
                rename(gen, self.name())
            }

            /// The opcode field in generation `gen` (its column), `None` where the generation
            /// has no such op.
            pub fn opcode(self, gen: Generation) -> Option<u16> {
                let column: [Option<u16>; Generation::COUNT] = match self {
                    $($enum::$v => [$(op_table!(@opc $opc)),*]),*
                };
                column[gen.column()]
            }

            /// The op with opcode field `opcode` in generation `gen`.
            pub fn from_opcode(gen: Generation, opcode: u16) -> Option<$enum> {
                $enum::ALL.iter().copied().find(|op| op.opcode(gen) == Some(opcode))
            }

            /// The op exists in generation `gen`.
            pub fn in_generation(self, gen: Generation) -> bool {
                self.opcode(gen).is_some()
            }

            #[doc = $adoc]
            pub fn a(self) -> u8 {
                match self { $($enum::$v => $a),* }
            }

            #[doc = $bdoc]
            pub fn b(self) -> u8 {
                match self { $($enum::$v => $b),* }
            }
        }

        impl std::fmt::Display for $enum {
            /// The row's mnemonic (see [`Self::mnemonic`] for a generation's).
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
    (@opc __) => { None };
    (@opc $o:literal) => { Some($o) };
}

/// The spelling of the row mnemonic `name` in generation `gen`: its `Spec::renames`, else the row's.
fn rename(gen: Generation, name: &'static str) -> &'static str {
    gen.spec()
        .renames
        .iter()
        .flat_map(|list| list.iter())
        .find(|(row, _)| *row == name)
        .map_or(name, |&(_, spelled)| spelled)
}

op_table! {
    /// SOP1 ops (one scalar source): opcode bits \[15:8\].
    Sop1Op, a: "Dwords of SDST.", b: "Dwords of SSRC0.", {
    // variant       mnemonic               gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (MovB32,         "s_mov_b32",          [0x00, 0x03, 0x00, 0x00, 0x00], 1, 1),
    (MovB64,         "s_mov_b64",          [0x01, 0x04, 0x01, 0x01, 0x01], 2, 2),
    (NotB32,         "s_not_b32",          [0x04, 0x07, 0x1e, 0x1e, 0x1e], 1, 1),
    (AndSaveexecB32, "s_and_saveexec_b32", [__  , 0x3c, 0x20, 0x20, 0x20], 1, 1),
    (AndSaveexecB64, "s_and_saveexec_b64", [0x20, 0x24, 0x21, 0x21, 0x21], 2, 2),
}}

op_table! {
    /// SOP2 ops (two scalar sources): opcode bits \[29:23\].
    Sop2Op, a: "Dwords of SDST.", b: "Dwords of each source.", {
    // variant    mnemonic          gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (AddU32,     "s_add_u32",     [0x00, 0x00, 0x00, 0x00, 0x00], 1, 1),
    (SubU32,     "s_sub_u32",     [0x01, 0x01, 0x01, 0x01, 0x01], 1, 1),
    (AddI32,     "s_add_i32",     [0x02, 0x02, 0x02, 0x02, 0x02], 1, 1),
    (SubI32,     "s_sub_i32",     [0x03, 0x03, 0x03, 0x03, 0x03], 1, 1),
    (AddcU32,    "s_addc_u32",    [0x04, 0x04, 0x04, 0x04, 0x04], 1, 1),
    (SubbU32,    "s_subb_u32",    [0x05, 0x05, 0x05, 0x05, 0x05], 1, 1),
    (LshlB32,    "s_lshl_b32",    [0x1c, 0x1e, 0x08, 0x08, 0x08], 1, 1),
    (LshrB32,    "s_lshr_b32",    [0x1e, 0x20, 0x0a, 0x0a, 0x0a], 1, 1),
    (AndB32,     "s_and_b32",     [0x0c, 0x0e, 0x16, 0x16, 0x16], 1, 1),
    (OrB32,      "s_or_b32",      [0x0e, 0x10, 0x18, 0x18, 0x18], 1, 1),
    (OrB64,      "s_or_b64",      [0x0f, 0x11, 0x19, 0x19, 0x19], 2, 2),
    (XorB32,     "s_xor_b32",     [0x10, 0x12, 0x1a, 0x1a, 0x1a], 1, 1),
    (MulI32,     "s_mul_i32",     [0x24, 0x26, 0x2c, 0x2c, 0x2c], 1, 1),
    (BfeU32,     "s_bfe_u32",     [__  , __  , __  , __  , 0x26], 1, 1),
    (CselectB32, "s_cselect_b32", [__  , __  , __  , __  , 0x30], 1, 1),
}}

op_table! {
    /// SOPK ops (SDST and a 16-bit immediate): opcode bits \[27:23\].
    /// `s_waitcnt_vscnt` (gfx10, gfx11) waits until at most simm16 vector memory stores are
    /// outstanding; its SDST is `null` (an SGPR there would add its value).
    /// `s_getreg_b32` reads a field of a hardware register (SIMM16 = `hwreg(id, offset, size)`:
    /// id [5:0], offset [10:6], size - 1 [15:11]) into SDST; `s_setreg_imm32_b32` writes the
    /// 32-bit immediate after the instruction into such a field (its SDST bits are 0).
    SopkOp, a: "1 when SDST is also read (`s_addk_i32`).", b: "How SIMM16 is read: a [`sopk_kind`] constant.", {
    // variant       mnemonic               gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (MovkI32,        "s_movk_i32",         [0x00, 0x00, 0x00, 0x00, 0x00], 0, 0),
    (AddkI32,        "s_addk_i32",         [0x0e, 0x0f, 0x0f, 0x0f, 0x0f], 1, 0),
    (WaitcntVscnt,   "s_waitcnt_vscnt",    [__  , 0x17, 0x18, __  , __  ], 0, 0),
    (GetregB32,      "s_getreg_b32",       [__  , __  , __  , __  , 0x11], 0, 1),
    (SetregImm32B32, "s_setreg_imm32_b32", [__  , __  , __  , __  , 0x13], 0, 2),
}}

/// How a SOPK op reads its 16-bit immediate (the `b` column of [`SopkOp`]).
pub mod sopk_kind {
    /// A plain number (`s_movk_i32 s1, 0x1234`).
    pub const IMM: u8 = 0;
    /// A hardware register field, `hwreg(id, offset, size)`, SDST the destination.
    pub const HWREG: u8 = 1;
    /// A hardware register field written with the 32-bit immediate that follows the
    /// instruction (SDST bits 0): `s_setreg_imm32_b32 hwreg(...), imm`.
    pub const HWREG_IMM32: u8 = 2;
}

op_table! {
    /// SOPC ops (compare two scalar sources into SCC): opcode bits \[22:16\].
    SopcOp, a: "Dwords of each source.", b: "Unused (0).", {
    // variant mnemonic         gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (CmpEqU32, "s_cmp_eq_u32", [0x06, 0x06, 0x06, 0x06, 0x06], 1, 0),
    (CmpLgU32, "s_cmp_lg_u32", [0x07, 0x07, 0x07, 0x07, 0x07], 1, 0),
    (CmpGtU32, "s_cmp_gt_u32", [0x08, 0x08, 0x08, 0x08, 0x08], 1, 0),
    (CmpLtU32, "s_cmp_lt_u32", [0x0a, 0x0a, 0x0a, 0x0a, 0x0a], 1, 0),
}}

/// How a SOPP op reads its 16-bit immediate (the `b` column of [`SoppOp`]).
pub mod sopp_kind {
    /// A plain number, printed in decimal (`s_nop 0`).
    pub const IMM: u8 = 0;
    /// No operand: the immediate must be 0 (`s_endpgm`).
    pub const NONE: u8 = 1;
    /// A signed branch distance in dwords from the next instruction, printed as a 16-bit unsigned.
    pub const BRANCH: u8 = 2;
    /// The gfx11 wait-count fields ([`Waitcnt`](super::super::Waitcnt)).
    pub const WAITCNT: u8 = 3;
    /// A gfx12 `s_wait_*cnt` count, printed in hex (`s_wait_kmcnt 0x0`).
    pub const WAIT12: u8 = 4;
    /// A field-packed immediate printed in hex (`s_waitcnt_depctr 0xffe3`).
    pub const HEX: u8 = 5;
}

op_table! {
    /// SOPP ops (program control, a 16-bit immediate): opcode bits \[22:16\].
    SoppOp, a: "Unused (0).", b: "How the immediate is read: a [`sopp_kind`] constant.", {
    // variant      mnemonic             gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (Nop,           "s_nop",            [0x00, 0x00, 0x00, 0x00, 0x00], 0, 0),
    (Waitcnt,       "s_waitcnt",        [0x0c, 0x0c, 0x09, 0x09, __  ], 0, 3),
    (Branch,        "s_branch",         [0x02, 0x02, 0x20, 0x20, 0x20], 0, 2),
    (CbranchScc0,   "s_cbranch_scc0",   [0x04, 0x04, 0x21, 0x21, 0x21], 0, 2),
    (CbranchScc1,   "s_cbranch_scc1",   [0x05, 0x05, 0x22, 0x22, 0x22], 0, 2),
    (CbranchVccz,   "s_cbranch_vccz",   [0x06, 0x06, 0x23, 0x23, 0x23], 0, 2),
    (CbranchVccnz,  "s_cbranch_vccnz",  [0x07, 0x07, 0x24, 0x24, 0x24], 0, 2),
    (CbranchExecz,  "s_cbranch_execz",  [0x08, 0x08, 0x25, 0x25, 0x25], 0, 2),
    (CbranchExecnz, "s_cbranch_execnz", [0x09, 0x09, 0x26, 0x26, 0x26], 0, 2),
    (Endpgm,        "s_endpgm",         [0x01, 0x01, 0x30, 0x30, 0x30], 0, 1),
    (WaitcntDepctr, "s_waitcnt_depctr", [__  , 0x23, 0x08, __  , 0x08],   0, 5),
    (WaitLoadcnt,   "s_wait_loadcnt",   [__  , __  , __  , 0x40, 0x40], 0, 4),
    (WaitStorecnt,  "s_wait_storecnt",  [__  , __  , __  , 0x41, 0x41], 0, 4),
    (WaitDscnt,     "s_wait_dscnt",     [__  , __  , __  , 0x46, 0x46], 0, 4),
    (WaitKmcnt,     "s_wait_kmcnt",     [__  , __  , __  , 0x47, 0x47], 0, 4),
    (WaitAsynccnt,  "s_wait_asynccnt",  [__  , __  , __  , __  , 0x4a], 0, 4),
}}

op_table! {
    /// SMEM ops (scalar loads through the constant cache): opcode bits \[25:18\].
    SmemOp, a: "Dwords loaded into SDATA.", b: "Unused (0).", {
    // variant mnemonic        gfx9  gfx10 gfx11 gfx12 gfx12.5 a   b
    (LoadB32,  "s_load_b32",  [0x00, 0x00, 0x00, 0x00, 0x00], 1,  0),
    (LoadB64,  "s_load_b64",  [0x01, 0x01, 0x01, 0x01, 0x01], 2,  0),
    (LoadB128, "s_load_b128", [0x02, 0x02, 0x02, 0x02, 0x02], 4,  0),
    (LoadB256, "s_load_b256", [0x03, 0x03, 0x03, 0x03, 0x03], 8,  0),
    (LoadB512, "s_load_b512", [0x04, 0x04, 0x04, 0x04, 0x04], 16, 0),
}}

op_table! {
    /// VOP1 ops (one source, 32-bit encoding `_e32`): opcode bits \[16:9\].
    Vop1Op, a: "Unused (0).", b: "Unused (0).", {
    // variantmnemonic     gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (MovB32, "v_mov_b32", [0x01, 0x01, 0x01, 0x01, 0x01], 0, 0),
    (NotB32, "v_not_b32", [0x2b, 0x37, 0x37, 0x37, 0x37], 0, 0),
}}

op_table! {
    /// VOP2 ops (SRC0 any operand, VSRC1 a VGPR, `_e32`): opcode bits \[30:25\].
    Vop2Op, a: "Unused (0).", b: "Unused (0).", {
    // variant   mnemonic          gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (MulU32U24,  "v_mul_u32_u24", [0x08, 0x0b, 0x0b, 0x0b, 0x0b], 0, 0),
    (LshlrevB32, "v_lshlrev_b32", [0x12, 0x1a, 0x18, 0x18, 0x18], 0, 0),
    (LshrrevB32, "v_lshrrev_b32", [0x10, 0x16, 0x19, 0x19, 0x19], 0, 0),
    (AndB32,     "v_and_b32",     [0x13, 0x1b, 0x1b, 0x1b, 0x1b], 0, 0),
    (OrB32,      "v_or_b32",      [0x14, 0x1c, 0x1c, 0x1c, 0x1c], 0, 0),
    (XorB32,     "v_xor_b32",     [0x15, 0x1d, 0x1d, 0x1d, 0x1d], 0, 0),
    (AddNcU32,   "v_add_nc_u32",  [0x34, 0x25, 0x25, 0x25, 0x25], 0, 0),
    (SubNcU32,   "v_sub_nc_u32",  [0x35, 0x26, 0x26, 0x26, 0x26], 0, 0),
}}

op_table! {
    /// VOP3 ops (64-bit encoding, up to three sources): opcode bits \[25:16\]. VOP1 and VOP2 ops
    /// promoted to VOP3 keep their mnemonic with `_e64` (opcode 384 + VOP1, 256 + VOP2).
    Vop3Op, a: "Sources read (1, 2 or 3).", b: "Unused (0).", {
    // variant      mnemonic              gfx9   gfx10  gfx11  gfx12  gfx12.5 a  b
    (MadU32U24,     "v_mad_u32_u24",     [0x1c3, 0x143, 0x20b, 0x20b, 0x20b], 3, 0),
    (LshlAddU32,    "v_lshl_add_u32",    [0x1fd, 0x346, 0x246, 0x246, 0x246], 3, 0),
    (Add3U32,       "v_add3_u32",        [0x1ff, 0x36d, 0x255, 0x255, 0x255], 3, 0),
    (LshlOrB32,     "v_lshl_or_b32",     [0x200, 0x36f, 0x256, 0x256, 0x256], 3, 0),
    (AndOrB32,      "v_and_or_b32",      [0x201, 0x371, 0x257, 0x257, 0x257], 3, 0),
    (LshlrevB32E64, "v_lshlrev_b32_e64", [0x112, 0x11a, 0x118, 0x118, 0x118], 2, 0),
    (AndB32E64,     "v_and_b32_e64",     [0x113, 0x11b, 0x11b, 0x11b, 0x11b], 2, 0),
    (AddNcU32E64,   "v_add_nc_u32_e64",  [0x134, 0x125, 0x125, 0x125, 0x125], 2, 0),
    (MovB32E64,     "v_mov_b32_e64",     [0x141, 0x181, 0x181, 0x181, 0x181], 1, 0),
}}

op_table! {
    /// VOPC ops (compare SRC0 with VSRC1 per lane into VCC_LO, `_e32`): opcode bits \[24:17\].
    VopcOp, a: "Unused (0).", b: "Unused (0).", {
    // variant mnemonic         gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (CmpLtU32, "v_cmp_lt_u32", [0xc9, 0xc1, 0x49, 0x49, 0x49], 0, 0),
    (CmpEqU32, "v_cmp_eq_u32", [0xca, 0xc2, 0x4a, 0x4a, 0x4a], 0, 0),
    (CmpGtU32, "v_cmp_gt_u32", [0xcc, 0xc4, 0x4c, 0x4c, 0x4c], 0, 0),
    (CmpNeU32, "v_cmp_ne_u32", [0xcd, 0xc5, 0x4d, 0x4d, 0x4d], 0, 0),
}}

op_table! {
    /// GLOBAL ops (FLAT encoding with SEG = 2): opcode bits \[24:18\].
    GlobalOp, a: "Dwords of VDST (loads) or DATA (stores).", b: "1 for a store, 0 for a load.", {
    // variant  mnemonic              gfx9  gfx10 gfx11 gfx12 gfx12.5 a  b
    (LoadB32,   "global_load_b32",   [0x14, 0x0c, 0x14, 0x14, 0x14], 1, 0),
    (LoadB64,   "global_load_b64",   [0x15, 0x0d, 0x15, 0x15, 0x15], 2, 0),
    (LoadB96,   "global_load_b96",   [0x16, 0x0f, 0x16, 0x16, 0x16], 3, 0),
    (LoadB128,  "global_load_b128",  [0x17, 0x0e, 0x17, 0x17, 0x17], 4, 0),
    (StoreB32,  "global_store_b32",  [0x1c, 0x1c, 0x1a, 0x1a, 0x1a], 1, 1),
    (StoreB64,  "global_store_b64",  [0x1d, 0x1d, 0x1b, 0x1b, 0x1b], 2, 1),
    (StoreB96,  "global_store_b96",  [0x1e, 0x1f, 0x1c, 0x1c, 0x1c], 3, 1),
    (StoreB128, "global_store_b128", [0x1f, 0x1e, 0x1d, 0x1d, 0x1d], 4, 1),
}}

impl GlobalOp {
    /// The op writes memory (else it loads into VDST).
    pub fn is_store(self) -> bool {
        self.b() == 1
    }

    /// Dwords moved per lane.
    pub fn dwords(self) -> u8 {
        self.a()
    }

    /// The load (`store == false`) or store of `dwords` dwords.
    pub fn for_dwords(dwords: u8, store: bool) -> Option<GlobalOp> {
        GlobalOp::ALL
            .iter()
            .copied()
            .find(|op| op.dwords() == dwords && op.is_store() == store)
    }
}

impl SmemOp {
    /// Dwords loaded.
    pub fn dwords(self) -> u8 {
        self.a()
    }
}

impl Vop3Op {
    /// Sources the op reads.
    pub fn sources(self) -> usize {
        usize::from(self.a())
    }
}
