//! The non-DS opcodes the kernel template uses, one table per gfx11 encoding format, one row per
//! opcode.
//!
//! Opcodes come from AMD's "RDNA3 Instruction Set Architecture Reference Guide", chapter
//! "Microcode Formats" (SOP1, SOP2, SOPK, SOPC, SOPP, SMEM, VOP1, VOP2, VOP3, VOPC, FLAT/GLOBAL
//! opcode lists); the gfx10 column from the "RDNA 2" (and "RDNA 1.0") ISA guides' same chapter.
//! Every row is checked against `llvm-mc-19`/`-22 -mcpu=<target> -show-encoding` by
//! `tests/llvm_inst.rs` (gfx10 with `tests/vectors/inst_gfx10.txt`). DS opcodes are not here: they live in the one DS table of
//! [`crate::ds`].
#![allow(clippy::zero_prefixed_literal)]

use crate::ds::Generation;

/// Whether the op named `name` exists in `gen` (gfx11 or gfx12): the gfx12 split waits
/// (`s_wait_*cnt`, RDNA4 ISA guide, SOPP opcodes) only on gfx12; `s_waitcnt_vscnt` (the gfx10 and
/// gfx11 store counter wait) not on gfx12, which waits for stores with `s_wait_storecnt`;
/// `s_waitcnt_depctr` not on gfx12 (renamed `s_wait_alu`). LLVM 19 still reads `s_waitcnt` for
/// gfx12, so it stays.
fn available_after_gfx10(name: &str, gen: Generation) -> bool {
    match name {
        "s_waitcnt_vscnt" => gen != Generation::Gfx12,
        // gfx12 spells it `s_wait_alu`; no gfx12 kernel needs it.
        "s_waitcnt_depctr" => gen != Generation::Gfx12,
        n if n.starts_with("s_wait_") => gen == Generation::Gfx12,
        _ => true,
    }
}

/// Expands one format's rows into an op enum with `name`, `opcode`, `a`, `b` and `from_opcode`.
macro_rules! op_table {
    ($(#[$meta:meta])* $enum:ident, a: $adoc:literal, b: $bdoc:literal,
     { $( ($v:ident, $name:literal, $opc:literal, $g10:expr, $g9:expr, $a:literal, $b:literal) ),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $(#[doc = $name] $v),* }

        impl $enum {
            /// Every op of this format, in table order.
            pub const ALL: &'static [$enum] = &[$($enum::$v),*];

            /// The LLVM mnemonic, as `llvm-objdump-19` prints it.
            pub fn name(self) -> &'static str {
                match self { $($enum::$v => $name),* }
            }

            /// The opcode field.
            pub fn opcode(self) -> u16 {
                match self { $($enum::$v => $opc),* }
            }

            #[doc = $adoc]
            pub fn a(self) -> u8 {
                match self { $($enum::$v => $a),* }
            }

            #[doc = $bdoc]
            pub fn b(self) -> u8 {
                match self { $($enum::$v => $b),* }
            }

            /// The op with opcode field `opcode`, if this table has one.
            pub fn from_opcode(opcode: u16) -> Option<$enum> {
                match opcode { $($opc => Some($enum::$v),)* _ => None }
            }

            /// The gfx10 opcode field (the table's gfx10 column), `None` where gfx10 has no
            /// such op.
            pub fn gfx10_opcode(self) -> Option<u16> {
                match self { $($enum::$v => $g10),* }
            }

            /// The gfx9 opcode field (the table's gfx9 column), `None` where gfx9 has no such
            /// op.
            pub fn gfx9_opcode(self) -> Option<u16> {
                match self { $($enum::$v => $g9),* }
            }

            /// The opcode field in generation `gen`: the gfx10 column on gfx10, the gfx11 one
            /// the gfx9 column on gfx9, the gfx11 one on gfx11 and gfx12
            /// (the gfx12 split waits only on gfx12, `s_waitcnt_vscnt` not there), `None` where
            /// the generation has no such op.
            pub fn opcode_in(self, gen: Generation) -> Option<u16> {
                match gen {
                    Generation::Gfx9 => self.gfx9_opcode(),
                    Generation::Gfx10 => self.gfx10_opcode(),
                    Generation::Gfx11 | Generation::Gfx12 => {
                        available_after_gfx10(self.name(), gen).then(|| self.opcode())
                    }
                }
            }

            /// The op with opcode field `opcode` in generation `gen`.
            pub fn from_opcode_in(gen: Generation, opcode: u16) -> Option<$enum> {
                $enum::ALL.iter().copied().find(|op| op.opcode_in(gen) == Some(opcode))
            }
        }

        impl std::fmt::Display for $enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

op_table! {
    /// SOP1 ops (one scalar source): opcode bits \[15:8\].
    Sop1Op, a: "Dwords of SDST.", b: "Dwords of SSRC0.", {
    (MovB32,         "s_mov_b32",          0x00, Some(0x03), Some(0x00), 1, 1),
    (MovB64,         "s_mov_b64",          0x01, Some(0x04), Some(0x01), 2, 2),
    (NotB32,         "s_not_b32",          0x1e, Some(0x07), Some(0x04), 1, 1),
    (AndSaveexecB32, "s_and_saveexec_b32", 0x20, Some(0x3c), None, 1, 1),
    (AndSaveexecB64, "s_and_saveexec_b64", 0x21, Some(0x24), Some(0x20), 2, 2),
}}

op_table! {
    /// SOP2 ops (two scalar sources): opcode bits \[29:23\].
    Sop2Op, a: "Dwords of SDST.", b: "Dwords of each source.", {
    (AddU32,  "s_add_u32",  0x00, Some(0x00), Some(0x00), 1, 1),
    (SubU32,  "s_sub_u32",  0x01, Some(0x01), Some(0x01), 1, 1),
    (AddI32,  "s_add_i32",  0x02, Some(0x02), Some(0x02), 1, 1),
    (SubI32,  "s_sub_i32",  0x03, Some(0x03), Some(0x03), 1, 1),
    (AddcU32, "s_addc_u32", 0x04, Some(0x04), Some(0x04), 1, 1),
    (SubbU32, "s_subb_u32", 0x05, Some(0x05), Some(0x05), 1, 1),
    (LshlB32, "s_lshl_b32", 0x08, Some(0x1e), Some(0x1c), 1, 1),
    (LshrB32, "s_lshr_b32", 0x0a, Some(0x20), Some(0x1e), 1, 1),
    (AndB32,  "s_and_b32",  0x16, Some(0x0e), Some(0x0c), 1, 1),
    (OrB32,   "s_or_b32",   0x18, Some(0x10), Some(0x0e), 1, 1),
    (OrB64,   "s_or_b64",   0x19, Some(0x11), Some(0x0f), 2, 2),
    (XorB32,  "s_xor_b32",  0x1a, Some(0x12), Some(0x10), 1, 1),
    (MulI32,  "s_mul_i32",  0x2c, Some(0x26), Some(0x24), 1, 1),
}}

op_table! {
    /// SOPK ops (SDST and a 16-bit immediate): opcode bits \[27:23\].
    /// `s_waitcnt_vscnt` (gfx10, gfx11) waits until at most simm16 vector memory stores are
    /// outstanding; its SDST is `null` (an SGPR there would add its value).
    SopkOp, a: "1 when SDST is also read (`s_addk_i32`).", b: "Unused (0).", {
    (MovkI32, "s_movk_i32", 0x00, Some(0x00), Some(0x00), 0, 0),
    (AddkI32, "s_addk_i32", 0x0f, Some(0x0f), Some(0x0e), 1, 0),
    (WaitcntVscnt, "s_waitcnt_vscnt", 0x18, Some(0x17), None, 0, 0),
}}

op_table! {
    /// SOPC ops (compare two scalar sources into SCC): opcode bits \[22:16\].
    SopcOp, a: "Dwords of each source.", b: "Unused (0).", {
    (CmpEqU32, "s_cmp_eq_u32", 0x06, Some(0x06), Some(0x06), 1, 0),
    (CmpLgU32, "s_cmp_lg_u32", 0x07, Some(0x07), Some(0x07), 1, 0),
    (CmpGtU32, "s_cmp_gt_u32", 0x08, Some(0x08), Some(0x08), 1, 0),
    (CmpLtU32, "s_cmp_lt_u32", 0x0a, Some(0x0a), Some(0x0a), 1, 0),
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
    (Nop,          "s_nop",           0x00, Some(0x00), Some(0x00), 0, 0),
    (Waitcnt,      "s_waitcnt",       0x09, Some(0x0c), Some(0x0c), 0, 3),
    (Branch,       "s_branch",        0x20, Some(0x02), Some(0x02), 0, 2),
    (CbranchScc0,  "s_cbranch_scc0",  0x21, Some(0x04), Some(0x04), 0, 2),
    (CbranchScc1,  "s_cbranch_scc1",  0x22, Some(0x05), Some(0x05), 0, 2),
    (CbranchVccz,  "s_cbranch_vccz",  0x23, Some(0x06), Some(0x06), 0, 2),
    (CbranchVccnz, "s_cbranch_vccnz", 0x24, Some(0x07), Some(0x07), 0, 2),
    (CbranchExecz, "s_cbranch_execz", 0x25, Some(0x08), Some(0x08), 0, 2),
    (CbranchExecnz,"s_cbranch_execnz",0x26, Some(0x09), Some(0x09), 0, 2),
    (Endpgm,       "s_endpgm",        0x30, Some(0x01), Some(0x01), 0, 1),
    (WaitcntDepctr,"s_waitcnt_depctr",0x08, Some(0x23), None, 0, 5),
    (WaitLoadcnt,  "s_wait_loadcnt",  0x40, None, None, 0, 4),
    (WaitStorecnt, "s_wait_storecnt", 0x41, None, None, 0, 4),
    (WaitDscnt,    "s_wait_dscnt",    0x46, None, None, 0, 4),
    (WaitKmcnt,    "s_wait_kmcnt",    0x47, None, None, 0, 4),
}}

impl SoppOp {
    /// The op exists in generation `gen` ([`SoppOp::opcode_in`]).
    pub fn in_generation(self, gen: Generation) -> bool {
        self.opcode_in(gen).is_some()
    }
}

impl Sop2Op {
    /// The mnemonic in generation `gen`: gfx12 renamed the carry-writing adds and subtracts
    /// (same opcodes, as `llvm-mc-19` prints them for the gfx12 targets).
    pub fn name_in(self, gen: Generation) -> &'static str {
        if gen != Generation::Gfx12 {
            return self.name();
        }
        match self {
            Sop2Op::AddU32 => "s_add_co_u32",
            Sop2Op::SubU32 => "s_sub_co_u32",
            Sop2Op::AddI32 => "s_add_co_i32",
            Sop2Op::SubI32 => "s_sub_co_i32",
            Sop2Op::AddcU32 => "s_add_co_ci_u32",
            Sop2Op::SubbU32 => "s_sub_co_ci_u32",
            other => other.name(),
        }
    }
}

impl SopkOp {
    /// The op exists in generation `gen` ([`SopkOp::opcode_in`]).
    pub fn in_generation(self, gen: Generation) -> bool {
        self.opcode_in(gen).is_some()
    }

    /// The mnemonic in generation `gen` (gfx12 renamed `s_addk_i32`).
    pub fn name_in(self, gen: Generation) -> &'static str {
        match self {
            SopkOp::AddkI32 if gen == Generation::Gfx12 => "s_addk_co_i32",
            other => other.name(),
        }
    }
}

op_table! {
    /// SMEM ops (scalar loads through the constant cache): opcode bits \[25:18\].
    SmemOp, a: "Dwords loaded into SDATA.", b: "Unused (0).", {
    (LoadB32,  "s_load_b32",  0x00, Some(0x00), Some(0x00), 1, 0),
    (LoadB64,  "s_load_b64",  0x01, Some(0x01), Some(0x01), 2, 0),
    (LoadB128, "s_load_b128", 0x02, Some(0x02), Some(0x02), 4, 0),
    (LoadB256, "s_load_b256", 0x03, Some(0x03), Some(0x03), 8, 0),
    (LoadB512, "s_load_b512", 0x04, Some(0x04), Some(0x04), 16, 0),
}}

op_table! {
    /// VOP1 ops (one source, 32-bit encoding `_e32`): opcode bits \[16:9\].
    Vop1Op, a: "Unused (0).", b: "Unused (0).", {
    (MovB32, "v_mov_b32", 0x01, Some(0x01), Some(0x01), 0, 0),
    (NotB32, "v_not_b32", 0x37, Some(0x37), Some(0x2b), 0, 0),
}}

op_table! {
    /// VOP2 ops (SRC0 any operand, VSRC1 a VGPR, `_e32`): opcode bits \[30:25\].
    Vop2Op, a: "Unused (0).", b: "Unused (0).", {
    (MulU32U24, "v_mul_u32_u24",  0x0b, Some(0x0b), Some(0x08), 0, 0),
    (LshlrevB32,"v_lshlrev_b32",  0x18, Some(0x1a), Some(0x12), 0, 0),
    (LshrrevB32,"v_lshrrev_b32",  0x19, Some(0x16), Some(0x10), 0, 0),
    (AndB32,    "v_and_b32",      0x1b, Some(0x1b), Some(0x13), 0, 0),
    (OrB32,     "v_or_b32",       0x1c, Some(0x1c), Some(0x14), 0, 0),
    (XorB32,    "v_xor_b32",      0x1d, Some(0x1d), Some(0x15), 0, 0),
    (AddNcU32,  "v_add_nc_u32",   0x25, Some(0x25), Some(0x34), 0, 0),
    (SubNcU32,  "v_sub_nc_u32",   0x26, Some(0x26), Some(0x35), 0, 0),
}}

op_table! {
    /// VOP3 ops (64-bit encoding, up to three sources): opcode bits \[25:16\]. VOP1 and VOP2 ops
    /// promoted to VOP3 keep their mnemonic with `_e64` (opcode 384 + VOP1, 256 + VOP2).
    Vop3Op, a: "Sources read (1, 2 or 3).", b: "Unused (0).", {
    (MadU32U24,    "v_mad_u32_u24",      0x20b, Some(0x143), Some(0x1c3), 3, 0),
    (LshlAddU32,   "v_lshl_add_u32",     0x246, Some(0x346), Some(0x1fd), 3, 0),
    (Add3U32,      "v_add3_u32",         0x255, Some(0x36d), Some(0x1ff), 3, 0),
    (LshlOrB32,    "v_lshl_or_b32",      0x256, Some(0x36f), Some(0x200), 3, 0),
    (AndOrB32,     "v_and_or_b32",       0x257, Some(0x371), Some(0x201), 3, 0),
    (LshlrevB32E64,"v_lshlrev_b32_e64",  0x118, Some(0x11a), Some(0x112), 2, 0),
    (AndB32E64,    "v_and_b32_e64",      0x11b, Some(0x11b), Some(0x113), 2, 0),
    (AddNcU32E64,  "v_add_nc_u32_e64",   0x125, Some(0x125), Some(0x134), 2, 0),
    (MovB32E64,    "v_mov_b32_e64",      0x181, Some(0x181), Some(0x141), 1, 0),
}}

op_table! {
    /// VOPC ops (compare SRC0 with VSRC1 per lane into VCC_LO, `_e32`): opcode bits \[24:17\].
    VopcOp, a: "Unused (0).", b: "Unused (0).", {
    (CmpLtU32, "v_cmp_lt_u32", 0x49, Some(0xc1), Some(0xc9), 0, 0),
    (CmpEqU32, "v_cmp_eq_u32", 0x4a, Some(0xc2), Some(0xca), 0, 0),
    (CmpGtU32, "v_cmp_gt_u32", 0x4c, Some(0xc4), Some(0xcc), 0, 0),
    (CmpNeU32, "v_cmp_ne_u32", 0x4d, Some(0xc5), Some(0xcd), 0, 0),
}}

op_table! {
    /// GLOBAL ops (FLAT encoding with SEG = 2): opcode bits \[24:18\].
    GlobalOp, a: "Dwords of VDST (loads) or DATA (stores).", b: "1 for a store, 0 for a load.", {
    (LoadB32,   "global_load_b32",   0x14, Some(0x0c), Some(0x14), 1, 0),
    (LoadB64,   "global_load_b64",   0x15, Some(0x0d), Some(0x15), 2, 0),
    (LoadB96,   "global_load_b96",   0x16, Some(0x0f), Some(0x16), 3, 0),
    (LoadB128,  "global_load_b128",  0x17, Some(0x0e), Some(0x17), 4, 0),
    (StoreB32,  "global_store_b32",  0x1a, Some(0x1c), Some(0x1c), 1, 1),
    (StoreB64,  "global_store_b64",  0x1b, Some(0x1d), Some(0x1d), 2, 1),
    (StoreB96,  "global_store_b96",  0x1c, Some(0x1f), Some(0x1e), 3, 1),
    (StoreB128, "global_store_b128", 0x1d, Some(0x1e), Some(0x1f), 4, 1),
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

    /// The mnemonic in generation `gen`: gfx9 and gfx10 name the width in dwords
    /// (`global_load_dword`, `global_store_dwordx3`, as `llvm-mc-19` prints them for gfx9 and
    /// gfx10), gfx11 in bits.
    pub fn name_in(self, gen: Generation) -> &'static str {
        if !gen.gfx9_mnemonics() {
            return self.name();
        }
        match self {
            GlobalOp::LoadB32 => "global_load_dword",
            GlobalOp::LoadB64 => "global_load_dwordx2",
            GlobalOp::LoadB96 => "global_load_dwordx3",
            GlobalOp::LoadB128 => "global_load_dwordx4",
            GlobalOp::StoreB32 => "global_store_dword",
            GlobalOp::StoreB64 => "global_store_dwordx2",
            GlobalOp::StoreB96 => "global_store_dwordx3",
            GlobalOp::StoreB128 => "global_store_dwordx4",
        }
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

    /// The mnemonic in generation `gen`: gfx9 and gfx10 name the width in dwords
    /// (`s_load_dword`, `s_load_dwordx2`, as `llvm-mc-19` prints them there), gfx11 in bits.
    pub fn name_in(self, gen: Generation) -> &'static str {
        if !gen.gfx9_mnemonics() {
            return self.name();
        }
        match self {
            SmemOp::LoadB32 => "s_load_dword",
            SmemOp::LoadB64 => "s_load_dwordx2",
            SmemOp::LoadB128 => "s_load_dwordx4",
            SmemOp::LoadB256 => "s_load_dwordx8",
            SmemOp::LoadB512 => "s_load_dwordx16",
        }
    }
}

impl Vop2Op {
    /// The mnemonic in generation `gen`: gfx9 has no carry-less `_nc` spelling (its
    /// `v_add_u32`/`v_sub_u32` are the carry-less adds, VOP2 0x34/0x35, as `llvm-mc-19` prints
    /// them for Vega and CDNA 3).
    pub fn name_in(self, gen: Generation) -> &'static str {
        match self {
            Vop2Op::AddNcU32 if gen == Generation::Gfx9 => "v_add_u32",
            Vop2Op::SubNcU32 if gen == Generation::Gfx9 => "v_sub_u32",
            other => other.name(),
        }
    }
}

impl Vop3Op {
    /// The mnemonic in generation `gen` (gfx9's `v_add_u32_e64`; see [`Vop2Op::name_in`]).
    pub fn name_in(self, gen: Generation) -> &'static str {
        match self {
            Vop3Op::AddNcU32E64 if gen == Generation::Gfx9 => "v_add_u32_e64",
            other => other.name(),
        }
    }

    /// Sources the op reads.
    pub fn sources(self) -> usize {
        usize::from(self.a())
    }
}
