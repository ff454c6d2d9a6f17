//! The one DS table: every DS op of every generation, one row each. The gfx11 rows come first, in
//! gfx11 opcode order; then the ops only gfx12 has, in gfx12 opcode order; then the ops only
//! gfx12.5 has, in gfx12.5 opcode order; then the ops only gfx9 and gfx10 have (two of them
//! gfx12.5's too), in gfx9 opcode order. An op several generations share is one row with an
//! opcode per generation (gfx9 and gfx10 spell it by its older name: see the older-name column).
//!
//! Sources: AMD "RDNA3 Instruction Set Architecture Reference Guide", chapter "Microcode Formats",
//! DS format opcode list, and chapter "Instructions", "LDS & GDS instructions"; AMD "RDNA4
//! Instruction Set Architecture Reference Guide", section 16.15 "VDS Instructions" (the opcode
//! numbers next to each mnemonic); for gfx9 and gfx10 LLVM's `DSInstructions.td` (the `DS_Real_vi`
//! / `DS_Real_gfx9` / `DS_Real_gfx10` opcode lists) and its MC tests (`gfx9_asm_ds.s`,
//! `gfx9_ds.txt`, `gfx10_asm_ds.s`, and the CDNA 2 acc and CDNA 4 transpose-load tests), AMD's "Vega",
//! "RDNA1", "RDNA2", "CDNA3" and "CDNA4" ISA guides (DS opcode lists). Checked byte for byte
//! against LLVM's assembler and disassembler (`llvm-mc-19` and `llvm-mc-22 -mcpu=<target>`, every
//! kind of target of each generation), the oracles of `reference/tests/all/llvm_oracle.rs`: every
//! row against LLVM 22, and against LLVM 19 all but the rows marked `L22`: the four RDNA4 ops
//! LLVM 19 does not know, whose opcodes are also the RDNA4 guide's (section 16.15:
//! DS_BPERMUTE_FI_B32 205, DS_BVH_STACK_PUSH4_POP1_RTN_B32 224, DS_BVH_STACK_PUSH8_POP1_RTN_B32
//! 225, DS_BVH_STACK_PUSH8_POP2_RTN_B64 226), and CDNA 4's four transpose loads (LLVM 19 knows no
//! CDNA 4 target); every gfx12.5 entry against LLVM 22 only (LLVM 19 knows no GFX 12.5 target):
//! `llvm-mc-22` on both GFX 12.5 processors decode the same 128 opcodes, gfx12's 123 less
//! the three BVH stack ops, plus `ds_add_f64` and `ds_add_rtn_f64` (CDNA 2's, at 84 and 116),
//! the two barrier arrives (86, 117) and four transpose loads (250-253).
//!
//! Columns, left to right:
//! - variant: the `DsOp` enum name;
//! - mnemonic: the spelling (ISA guide, opcode list; LLVM's spelling) from gfx11 on, and in gfx9
//!   and gfx10 unless the older-name column gives one;
//! - gfx9, gfx10, gfx11, gfx12, gfx12.5: the 8-bit `OP` field in each generation (one per
//!   `Generation`, in `Generation::ALL` order: a new generation is a new column), `__` where the
//!   generation lacks the op;
//! - vdst, addr, data0, data1: dwords of each VGPR operand (0 = the field is unused and must be 0);
//! - offset: `Single` 16-bit `offset:`, `Pair` `offset0:`/`offset1:` scaled by the element size,
//!   `Stride64` the same scaled by 64 x element size, `Swizzle` a 16-bit swizzle pattern, `NoOffset`;
//! - gds: whether the `gds` bit is `Forbidden`, `Allowed` or `Required` (gfx12 has no bit; a
//!   target without the `gds` feature forbids it where it is optional);
//! - family and element type: the semantics (see [`Family`](super::Family); a transpose load's
//!   lane map, EXEC rule and alignment are the `*_TR*` constants below);
//! - older name: `Some(name)`, the gfx9 and gfx10 mnemonic, which LLVM still reads from gfx11
//!   on; `Old(name)`, the gfx9 and gfx10 mnemonic LLVM no longer reads from gfx11 on
//!   (`ds_cmpst_*`); `None`: one name everywhere (or, for gfx12's rows, none older);
//! - needs: the target features the op needs beyond the generation's column (`__` none; `SRC2`,
//!   `F64`, `PK16`, `TR`, `GDS`, `GWS`: [`DsFeatures`](super::DsFeatures), the target table's
//!   `ds_features` column);
//! - hip: `HIP` when a HIP compute kernel run by this harness can run it, else why not (an op
//!   that runs but whose semantics the model does not hold is run all the same, its answer
//!   recorded unjudged: the model says which, `model::Unmodelled`);
//! - oracle: the oldest LLVM that confirms the row: `L19` (LLVM 19 and 22) or `L22` (LLVM 22 only).
//!
//! The spellings LLVM's assembler reads as a row's op in one generation only are that
//! generation's (`Spec::ds_aliases` in its module of `crate::gen`).
#![allow(clippy::zero_prefixed_literal)]

use super::{Bvh, Family, Family::*, Rmw::*, Tr, TrExec, TrMap, D16};

/// Why an op cannot run from a HIP compute kernel (the GDS / GWS state it needs).
const GWS: Option<&str> = Some(
    "global wave sync needs GWS resources that HIP compute kernels are not given (gds required)",
);
const ORDERED: Option<&str> = Some(
    "ordered count drives the GDS ordered-append unit, which HIP does not set up (gds required)",
);
const GS_REG: Option<&str> =
    Some("targets the geometry-shader streamout registers in GDS, not LDS (gds required)");
const HIP: Option<&str> = None;

/// A transpose load of `bits`-bit elements by `map` with EXEC rule `exec` (see [`Tr`]).
const fn tr(bits: u8, map: TrMap, exec: TrExec, odd_start: bool) -> Family {
    LoadTranspose(Tr {
        bits,
        map,
        exec,
        odd_start,
    })
}
// CDNA 4's: EXEC all ones (the CDNA 4 guide, section 11.4, as Triton PR #11434 cites
// it); maps from ROCm/rocm-systems PR #10175 (b16) and Triton's CDNA 4 rule (b8, inferred); even
// tuples, kept for the 3-dword form although LLVM 22 reads an odd one (documented in the oracle
// test).
const CDNA4_TR4: Family = tr(4, TrMap::Unsourced, TrExec::AllOnes, false);
const CDNA4_TR6: Family = tr(6, TrMap::Unsourced, TrExec::AllOnes, false);
const CDNA4_TR8: Family = tr(8, TrMap::Groups16Pairs, TrExec::AllOnes, false);
const CDNA4_TR16: Family = tr(16, TrMap::Groups16Quads, TrExec::AllOnes, false);
// gfx12.5's: any set EXEC bit makes every lane take part (ROCm/llvm-project PR #4450); maps
// from AMD's MI450 LDS blog, rocJITsu `transpose_tr16_b128` / `transpose_cdna5_ds_tr_b8` and
// Triton (tr16, tr8); `ds_load_tr6_b96`'s VDST at any register (llvm-mc-22 reads `v[3:5]`).
const GFX12_5_TR4: Family = tr(4, TrMap::Unsourced, TrExec::AnySet, false);
const GFX12_5_TR6: Family = tr(6, TrMap::Unsourced, TrExec::AnySet, true);
const GFX12_5_TR8: Family = tr(8, TrMap::Groups16Runs4, TrExec::AnySet, false);
const GFX12_5_TR16: Family = tr(16, TrMap::Groups8, TrExec::AnySet, false);

ds_table! {
    // variant             mnemonic                              gfx9  gfx10 gfx11 gfx12 gfx12.5 vd a d0 d1 offset    gds        family                        elem  older name                    needs hip  oracle
    (AddU32,                "ds_add_u32",                        [0x00, 0x00, 0x00, 0x00, 0x00], 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     U32,   None,                          __,   HIP,  L19),
    (SubU32,                "ds_sub_u32",                        [0x01, 0x01, 0x01, 0x01, 0x01], 0, 1, 1, 0, Single,   Allowed,   Rmw(Sub),                     U32,   None,                          __,   HIP,  L19),
    (RsubU32,               "ds_rsub_u32",                       [0x02, 0x02, 0x02, 0x02, 0x02], 0, 1, 1, 0, Single,   Allowed,   Rmw(Rsub),                    U32,   None,                          __,   HIP,  L19),
    (IncU32,                "ds_inc_u32",                        [0x03, 0x03, 0x03, 0x03, 0x03], 0, 1, 1, 0, Single,   Allowed,   Rmw(Inc),                     U32,   None,                          __,   HIP,  L19),
    (DecU32,                "ds_dec_u32",                        [0x04, 0x04, 0x04, 0x04, 0x04], 0, 1, 1, 0, Single,   Allowed,   Rmw(Dec),                     U32,   None,                          __,   HIP,  L19),
    (MinI32,                "ds_min_i32",                        [0x05, 0x05, 0x05, 0x05, 0x05], 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     I32,   None,                          __,   HIP,  L19),
    (MaxI32,                "ds_max_i32",                        [0x06, 0x06, 0x06, 0x06, 0x06], 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     I32,   None,                          __,   HIP,  L19),
    (MinU32,                "ds_min_u32",                        [0x07, 0x07, 0x07, 0x07, 0x07], 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     U32,   None,                          __,   HIP,  L19),
    (MaxU32,                "ds_max_u32",                        [0x08, 0x08, 0x08, 0x08, 0x08], 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     U32,   None,                          __,   HIP,  L19),
    (AndB32,                "ds_and_b32",                        [0x09, 0x09, 0x09, 0x09, 0x09], 0, 1, 1, 0, Single,   Allowed,   Rmw(And),                     B32,   None,                          __,   HIP,  L19),
    (OrB32,                 "ds_or_b32",                         [0x0a, 0x0a, 0x0a, 0x0a, 0x0a], 0, 1, 1, 0, Single,   Allowed,   Rmw(Or),                      B32,   None,                          __,   HIP,  L19),
    (XorB32,                "ds_xor_b32",                        [0x0b, 0x0b, 0x0b, 0x0b, 0x0b], 0, 1, 1, 0, Single,   Allowed,   Rmw(Xor),                     B32,   None,                          __,   HIP,  L19),
    (MskorB32,              "ds_mskor_b32",                      [0x0c, 0x0c, 0x0c, 0x0c, 0x0c], 0, 1, 1, 1, Single,   Allowed,   Rmw(Mskor),                   B32,   None,                          __,   HIP,  L19),
    (StoreB32,              "ds_store_b32",                      [0x0d, 0x0d, 0x0d, 0x0d, 0x0d], 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B32,   Some("ds_write_b32"),          __,   HIP,  L19),
    (Store2addrB32,         "ds_store_2addr_b32",                [0x0e, 0x0e, 0x0e, 0x0e, 0x0e], 0, 1, 1, 1, Pair,     Allowed,   Store(D16::No),               B32,   Some("ds_write2_b32"),         __,   HIP,  L19),
    (Store2addrStride64B32, "ds_store_2addr_stride64_b32",       [0x0f, 0x0f, 0x0f, 0x0f, 0x0f], 0, 1, 1, 1, Stride64, Allowed,   Store(D16::No),               B32,   Some("ds_write2st64_b32"),     __,   HIP,  L19),
    (CmpstoreB32,           "ds_cmpstore_b32",                   [0x10, 0x10, 0x10, 0x10, 0x10], 0, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                B32,   Old("ds_cmpst_b32"),           __,   HIP,  L19),
    (CmpstoreF32,           "ds_cmpstore_f32",                   [0x11, 0x11, 0x11, __  , __  ], 0, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                F32,   Old("ds_cmpst_f32"),           __,   HIP,  L19),
    (MinF32,                "ds_min_f32",                        [0x12, 0x12, 0x12, __  , __  ], 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     F32,   None,                          __,   HIP,  L19),
    (MaxF32,                "ds_max_f32",                        [0x13, 0x13, 0x13, __  , __  ], 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     F32,   None,                          __,   HIP,  L19),
    (Nop,                   "ds_nop",                            [0x14, 0x14, 0x14, 0x14, 0x14], 0, 0, 0, 0, NoOffset, Forbidden, Nop,                          None,  None,                          __,   HIP,  L19),
    (AddF32,                "ds_add_f32",                        [0x15, 0x15, 0x15, 0x15, 0x15], 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F32,   None,                          __,   HIP,  L19),
    (GwsSemaReleaseAll,     "ds_gws_sema_release_all",           [0x98, 0x18, 0x18, __  , __  ], 0, 0, 0, 0, Single,   Required,  Gws,                          None,  None,                          GWS,  GWS,  L19),
    (GwsInit,               "ds_gws_init",                       [0x99, 0x19, 0x19, __  , __  ], 0, 0, 1, 0, Single,   Required,  Gws,                          B32,   None,                          GWS,  GWS,  L19),
    (GwsSemaV,              "ds_gws_sema_v",                     [0x9a, 0x1a, 0x1a, __  , __  ], 0, 0, 0, 0, Single,   Required,  Gws,                          None,  None,                          GWS,  GWS,  L19),
    (GwsSemaBr,             "ds_gws_sema_br",                    [0x9b, 0x1b, 0x1b, __  , __  ], 0, 0, 1, 0, Single,   Required,  Gws,                          B32,   None,                          GWS,  GWS,  L19),
    (GwsSemaP,              "ds_gws_sema_p",                     [0x9c, 0x1c, 0x1c, __  , __  ], 0, 0, 0, 0, Single,   Required,  Gws,                          None,  None,                          GWS,  GWS,  L19),
    (GwsBarrier,            "ds_gws_barrier",                    [0x9d, 0x1d, 0x1d, __  , __  ], 0, 0, 1, 0, Single,   Required,  Gws,                          B32,   None,                          GWS,  GWS,  L19),
    (StoreB8,               "ds_store_b8",                       [0x1e, 0x1e, 0x1e, 0x1e, 0x1e], 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B8,    Some("ds_write_b8"),           __,   HIP,  L19),
    (StoreB16,              "ds_store_b16",                      [0x1f, 0x1f, 0x1f, 0x1f, 0x1f], 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B16,   Some("ds_write_b16"),          __,   HIP,  L19),
    (AddRtnU32,             "ds_add_rtn_u32",                    [0x20, 0x20, 0x20, 0x20, 0x20], 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     U32,   None,                          __,   HIP,  L19),
    (SubRtnU32,             "ds_sub_rtn_u32",                    [0x21, 0x21, 0x21, 0x21, 0x21], 1, 1, 1, 0, Single,   Allowed,   Rmw(Sub),                     U32,   None,                          __,   HIP,  L19),
    (RsubRtnU32,            "ds_rsub_rtn_u32",                   [0x22, 0x22, 0x22, 0x22, 0x22], 1, 1, 1, 0, Single,   Allowed,   Rmw(Rsub),                    U32,   None,                          __,   HIP,  L19),
    (IncRtnU32,             "ds_inc_rtn_u32",                    [0x23, 0x23, 0x23, 0x23, 0x23], 1, 1, 1, 0, Single,   Allowed,   Rmw(Inc),                     U32,   None,                          __,   HIP,  L19),
    (DecRtnU32,             "ds_dec_rtn_u32",                    [0x24, 0x24, 0x24, 0x24, 0x24], 1, 1, 1, 0, Single,   Allowed,   Rmw(Dec),                     U32,   None,                          __,   HIP,  L19),
    (MinRtnI32,             "ds_min_rtn_i32",                    [0x25, 0x25, 0x25, 0x25, 0x25], 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     I32,   None,                          __,   HIP,  L19),
    (MaxRtnI32,             "ds_max_rtn_i32",                    [0x26, 0x26, 0x26, 0x26, 0x26], 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     I32,   None,                          __,   HIP,  L19),
    (MinRtnU32,             "ds_min_rtn_u32",                    [0x27, 0x27, 0x27, 0x27, 0x27], 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     U32,   None,                          __,   HIP,  L19),
    (MaxRtnU32,             "ds_max_rtn_u32",                    [0x28, 0x28, 0x28, 0x28, 0x28], 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     U32,   None,                          __,   HIP,  L19),
    (AndRtnB32,             "ds_and_rtn_b32",                    [0x29, 0x29, 0x29, 0x29, 0x29], 1, 1, 1, 0, Single,   Allowed,   Rmw(And),                     B32,   None,                          __,   HIP,  L19),
    (OrRtnB32,              "ds_or_rtn_b32",                     [0x2a, 0x2a, 0x2a, 0x2a, 0x2a], 1, 1, 1, 0, Single,   Allowed,   Rmw(Or),                      B32,   None,                          __,   HIP,  L19),
    (XorRtnB32,             "ds_xor_rtn_b32",                    [0x2b, 0x2b, 0x2b, 0x2b, 0x2b], 1, 1, 1, 0, Single,   Allowed,   Rmw(Xor),                     B32,   None,                          __,   HIP,  L19),
    (MskorRtnB32,           "ds_mskor_rtn_b32",                  [0x2c, 0x2c, 0x2c, 0x2c, 0x2c], 1, 1, 1, 1, Single,   Allowed,   Rmw(Mskor),                   B32,   None,                          __,   HIP,  L19),
    (StorexchgRtnB32,       "ds_storexchg_rtn_b32",              [0x2d, 0x2d, 0x2d, 0x2d, 0x2d], 1, 1, 1, 0, Single,   Allowed,   Rmw(Xchg),                    B32,   Some("ds_wrxchg_rtn_b32"),     __,   HIP,  L19),
    (Storexchg2addrRtnB32,  "ds_storexchg_2addr_rtn_b32",        [0x2e, 0x2e, 0x2e, 0x2e, 0x2e], 2, 1, 1, 1, Pair,     Allowed,   Rmw(Xchg),                    B32,   Some("ds_wrxchg2_rtn_b32"),    __,   HIP,  L19),
    (Storexchg2addrStride64RtnB32, "ds_storexchg_2addr_stride64_rtn_b32", [0x2f, 0x2f, 0x2f, 0x2f, 0x2f], 2, 1, 1, 1, Stride64, Allowed,   Rmw(Xchg),                    B32,   Some("ds_wrxchg2st64_rtn_b32"), __,   HIP,  L19),
    (CmpstoreRtnB32,        "ds_cmpstore_rtn_b32",               [0x30, 0x30, 0x30, 0x30, 0x30], 1, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                B32,   Old("ds_cmpst_rtn_b32"),       __,   HIP,  L19),
    (CmpstoreRtnF32,        "ds_cmpstore_rtn_f32",               [0x31, 0x31, 0x31, __  , __  ], 1, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                F32,   Old("ds_cmpst_rtn_f32"),       __,   HIP,  L19),
    (MinRtnF32,             "ds_min_rtn_f32",                    [0x32, 0x32, 0x32, __  , __  ], 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     F32,   None,                          __,   HIP,  L19),
    (MaxRtnF32,             "ds_max_rtn_f32",                    [0x33, 0x33, 0x33, __  , __  ], 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     F32,   None,                          __,   HIP,  L19),
    (WrapRtnB32,            "ds_wrap_rtn_b32",                   [0x34, 0x34, 0x34, __  , __  ], 1, 1, 1, 1, Single,   Allowed,   Rmw(Wrap),                    B32,   None,                          __,   HIP,  L19),
    (SwizzleB32,            "ds_swizzle_b32",                    [0x3d, 0x35, 0x35, 0x35, 0x35], 1, 1, 0, 0, Swizzle,  Allowed,   Swizzle,                      B32,   None,                          __,   HIP,  L19),
    (LoadB32,               "ds_load_b32",                       [0x36, 0x36, 0x36, 0x36, 0x36], 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B32,   Some("ds_read_b32"),           __,   HIP,  L19),
    (Load2addrB32,          "ds_load_2addr_b32",                 [0x37, 0x37, 0x37, 0x37, 0x37], 2, 1, 0, 0, Pair,     Allowed,   Load(D16::No),                B32,   Some("ds_read2_b32"),          __,   HIP,  L19),
    (Load2addrStride64B32,  "ds_load_2addr_stride64_b32",        [0x38, 0x38, 0x38, 0x38, 0x38], 2, 1, 0, 0, Stride64, Allowed,   Load(D16::No),                B32,   Some("ds_read2st64_b32"),      __,   HIP,  L19),
    (LoadI8,                "ds_load_i8",                        [0x39, 0x39, 0x39, 0x39, 0x39], 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                I8,    Some("ds_read_i8"),            __,   HIP,  L19),
    (LoadU8,                "ds_load_u8",                        [0x3a, 0x3a, 0x3a, 0x3a, 0x3a], 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                U8,    Some("ds_read_u8"),            __,   HIP,  L19),
    (LoadI16,               "ds_load_i16",                       [0x3b, 0x3b, 0x3b, 0x3b, 0x3b], 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                I16,   Some("ds_read_i16"),           __,   HIP,  L19),
    (LoadU16,               "ds_load_u16",                       [0x3c, 0x3c, 0x3c, 0x3c, 0x3c], 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                U16,   Some("ds_read_u16"),           __,   HIP,  L19),
    (Consume,               "ds_consume",                        [0xbd, 0x3d, 0x3d, 0x3d, 0x3d], 1, 0, 0, 0, Single,   Allowed,   Consume,                      U32,   None,                          __,   HIP,  L19),
    (Append,                "ds_append",                         [0xbe, 0x3e, 0x3e, 0x3e, 0x3e], 1, 0, 0, 0, Single,   Allowed,   Append,                       U32,   None,                          __,   HIP,  L19),
    (OrderedCount,          "ds_ordered_count",                  [0xbf, 0x3f, 0x3f, __  , __  ], 1, 1, 0, 0, Single,   Required,  OrderedCount,                 B32,   None,                          GDS,  ORDERED, L19),
    (AddU64,                "ds_add_u64",                        [0x40, 0x40, 0x40, 0x40, 0x40], 0, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     U64,   None,                          __,   HIP,  L19),
    (SubU64,                "ds_sub_u64",                        [0x41, 0x41, 0x41, 0x41, 0x41], 0, 1, 2, 0, Single,   Allowed,   Rmw(Sub),                     U64,   None,                          __,   HIP,  L19),
    (RsubU64,               "ds_rsub_u64",                       [0x42, 0x42, 0x42, 0x42, 0x42], 0, 1, 2, 0, Single,   Allowed,   Rmw(Rsub),                    U64,   None,                          __,   HIP,  L19),
    (IncU64,                "ds_inc_u64",                        [0x43, 0x43, 0x43, 0x43, 0x43], 0, 1, 2, 0, Single,   Allowed,   Rmw(Inc),                     U64,   None,                          __,   HIP,  L19),
    (DecU64,                "ds_dec_u64",                        [0x44, 0x44, 0x44, 0x44, 0x44], 0, 1, 2, 0, Single,   Allowed,   Rmw(Dec),                     U64,   None,                          __,   HIP,  L19),
    (MinI64,                "ds_min_i64",                        [0x45, 0x45, 0x45, 0x45, 0x45], 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     I64,   None,                          __,   HIP,  L19),
    (MaxI64,                "ds_max_i64",                        [0x46, 0x46, 0x46, 0x46, 0x46], 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     I64,   None,                          __,   HIP,  L19),
    (MinU64,                "ds_min_u64",                        [0x47, 0x47, 0x47, 0x47, 0x47], 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     U64,   None,                          __,   HIP,  L19),
    (MaxU64,                "ds_max_u64",                        [0x48, 0x48, 0x48, 0x48, 0x48], 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     U64,   None,                          __,   HIP,  L19),
    (AndB64,                "ds_and_b64",                        [0x49, 0x49, 0x49, 0x49, 0x49], 0, 1, 2, 0, Single,   Allowed,   Rmw(And),                     B64,   None,                          __,   HIP,  L19),
    (OrB64,                 "ds_or_b64",                         [0x4a, 0x4a, 0x4a, 0x4a, 0x4a], 0, 1, 2, 0, Single,   Allowed,   Rmw(Or),                      B64,   None,                          __,   HIP,  L19),
    (XorB64,                "ds_xor_b64",                        [0x4b, 0x4b, 0x4b, 0x4b, 0x4b], 0, 1, 2, 0, Single,   Allowed,   Rmw(Xor),                     B64,   None,                          __,   HIP,  L19),
    (MskorB64,              "ds_mskor_b64",                      [0x4c, 0x4c, 0x4c, 0x4c, 0x4c], 0, 1, 2, 2, Single,   Allowed,   Rmw(Mskor),                   B64,   None,                          __,   HIP,  L19),
    (StoreB64,              "ds_store_b64",                      [0x4d, 0x4d, 0x4d, 0x4d, 0x4d], 0, 1, 2, 0, Single,   Allowed,   Store(D16::No),               B64,   Some("ds_write_b64"),          __,   HIP,  L19),
    (Store2addrB64,         "ds_store_2addr_b64",                [0x4e, 0x4e, 0x4e, 0x4e, 0x4e], 0, 1, 2, 2, Pair,     Allowed,   Store(D16::No),               B64,   Some("ds_write2_b64"),         __,   HIP,  L19),
    (Store2addrStride64B64, "ds_store_2addr_stride64_b64",       [0x4f, 0x4f, 0x4f, 0x4f, 0x4f], 0, 1, 2, 2, Stride64, Allowed,   Store(D16::No),               B64,   Some("ds_write2st64_b64"),     __,   HIP,  L19),
    (CmpstoreB64,           "ds_cmpstore_b64",                   [0x50, 0x50, 0x50, 0x50, 0x50], 0, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                B64,   Old("ds_cmpst_b64"),           __,   HIP,  L19),
    (CmpstoreF64,           "ds_cmpstore_f64",                   [0x51, 0x51, 0x51, __  , __  ], 0, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                F64,   Old("ds_cmpst_f64"),           __,   HIP,  L19),
    (MinF64,                "ds_min_f64",                        [0x52, 0x52, 0x52, __  , __  ], 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     F64,   None,                          __,   HIP,  L19),
    (MaxF64,                "ds_max_f64",                        [0x53, 0x53, 0x53, __  , __  ], 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     F64,   None,                          __,   HIP,  L19),
    (AddRtnU64,             "ds_add_rtn_u64",                    [0x60, 0x60, 0x60, 0x60, 0x60], 2, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     U64,   None,                          __,   HIP,  L19),
    (SubRtnU64,             "ds_sub_rtn_u64",                    [0x61, 0x61, 0x61, 0x61, 0x61], 2, 1, 2, 0, Single,   Allowed,   Rmw(Sub),                     U64,   None,                          __,   HIP,  L19),
    (RsubRtnU64,            "ds_rsub_rtn_u64",                   [0x62, 0x62, 0x62, 0x62, 0x62], 2, 1, 2, 0, Single,   Allowed,   Rmw(Rsub),                    U64,   None,                          __,   HIP,  L19),
    (IncRtnU64,             "ds_inc_rtn_u64",                    [0x63, 0x63, 0x63, 0x63, 0x63], 2, 1, 2, 0, Single,   Allowed,   Rmw(Inc),                     U64,   None,                          __,   HIP,  L19),
    (DecRtnU64,             "ds_dec_rtn_u64",                    [0x64, 0x64, 0x64, 0x64, 0x64], 2, 1, 2, 0, Single,   Allowed,   Rmw(Dec),                     U64,   None,                          __,   HIP,  L19),
    (MinRtnI64,             "ds_min_rtn_i64",                    [0x65, 0x65, 0x65, 0x65, 0x65], 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     I64,   None,                          __,   HIP,  L19),
    (MaxRtnI64,             "ds_max_rtn_i64",                    [0x66, 0x66, 0x66, 0x66, 0x66], 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     I64,   None,                          __,   HIP,  L19),
    (MinRtnU64,             "ds_min_rtn_u64",                    [0x67, 0x67, 0x67, 0x67, 0x67], 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     U64,   None,                          __,   HIP,  L19),
    (MaxRtnU64,             "ds_max_rtn_u64",                    [0x68, 0x68, 0x68, 0x68, 0x68], 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     U64,   None,                          __,   HIP,  L19),
    (AndRtnB64,             "ds_and_rtn_b64",                    [0x69, 0x69, 0x69, 0x69, 0x69], 2, 1, 2, 0, Single,   Allowed,   Rmw(And),                     B64,   None,                          __,   HIP,  L19),
    (OrRtnB64,              "ds_or_rtn_b64",                     [0x6a, 0x6a, 0x6a, 0x6a, 0x6a], 2, 1, 2, 0, Single,   Allowed,   Rmw(Or),                      B64,   None,                          __,   HIP,  L19),
    (XorRtnB64,             "ds_xor_rtn_b64",                    [0x6b, 0x6b, 0x6b, 0x6b, 0x6b], 2, 1, 2, 0, Single,   Allowed,   Rmw(Xor),                     B64,   None,                          __,   HIP,  L19),
    (MskorRtnB64,           "ds_mskor_rtn_b64",                  [0x6c, 0x6c, 0x6c, 0x6c, 0x6c], 2, 1, 2, 2, Single,   Allowed,   Rmw(Mskor),                   B64,   None,                          __,   HIP,  L19),
    (StorexchgRtnB64,       "ds_storexchg_rtn_b64",              [0x6d, 0x6d, 0x6d, 0x6d, 0x6d], 2, 1, 2, 0, Single,   Allowed,   Rmw(Xchg),                    B64,   Some("ds_wrxchg_rtn_b64"),     __,   HIP,  L19),
    (Storexchg2addrRtnB64,  "ds_storexchg_2addr_rtn_b64",        [0x6e, 0x6e, 0x6e, 0x6e, 0x6e], 4, 1, 2, 2, Pair,     Allowed,   Rmw(Xchg),                    B64,   Some("ds_wrxchg2_rtn_b64"),    __,   HIP,  L19),
    (Storexchg2addrStride64RtnB64, "ds_storexchg_2addr_stride64_rtn_b64", [0x6f, 0x6f, 0x6f, 0x6f, 0x6f], 4, 1, 2, 2, Stride64, Allowed,   Rmw(Xchg),                    B64,   Some("ds_wrxchg2st64_rtn_b64"), __,   HIP,  L19),
    (CmpstoreRtnB64,        "ds_cmpstore_rtn_b64",               [0x70, 0x70, 0x70, 0x70, 0x70], 2, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                B64,   Old("ds_cmpst_rtn_b64"),       __,   HIP,  L19),
    (CmpstoreRtnF64,        "ds_cmpstore_rtn_f64",               [0x71, 0x71, 0x71, __  , __  ], 2, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                F64,   Old("ds_cmpst_rtn_f64"),       __,   HIP,  L19),
    (MinRtnF64,             "ds_min_rtn_f64",                    [0x72, 0x72, 0x72, __  , __  ], 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     F64,   None,                          __,   HIP,  L19),
    (MaxRtnF64,             "ds_max_rtn_f64",                    [0x73, 0x73, 0x73, __  , __  ], 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     F64,   None,                          __,   HIP,  L19),
    (LoadB64,               "ds_load_b64",                       [0x76, 0x76, 0x76, 0x76, 0x76], 2, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B64,   Some("ds_read_b64"),           __,   HIP,  L19),
    (Load2addrB64,          "ds_load_2addr_b64",                 [0x77, 0x77, 0x77, 0x77, 0x77], 4, 1, 0, 0, Pair,     Allowed,   Load(D16::No),                B64,   Some("ds_read2_b64"),          __,   HIP,  L19),
    (Load2addrStride64B64,  "ds_load_2addr_stride64_b64",        [0x78, 0x78, 0x78, 0x78, 0x78], 4, 1, 0, 0, Stride64, Allowed,   Load(D16::No),                B64,   Some("ds_read2st64_b64"),      __,   HIP,  L19),
    (AddRtnF32,             "ds_add_rtn_f32",                    [0x35, 0x55, 0x79, 0x79, 0x79], 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F32,   None,                          __,   HIP,  L19),
    (AddGsRegRtn,           "ds_add_gs_reg_rtn",                 [__  , __  , 0x7a, __  , __  ], 2, 0, 1, 0, Single,   Required,  GsReg,                        B32,   None,                          GDS,  GS_REG, L19),
    (SubGsRegRtn,           "ds_sub_gs_reg_rtn",                 [__  , __  , 0x7b, __  , __  ], 2, 0, 1, 0, Single,   Required,  GsReg,                        B32,   None,                          GDS,  GS_REG, L19),
    (Condxchg32RtnB64,      "ds_condxchg32_rtn_b64",             [0x7e, 0x7e, 0x7e, 0x7e, 0x7e], 2, 1, 2, 0, Single,   Allowed,   CondXchg32,                   B64,   None,                          __,   HIP,  L19),
    (StoreB8D16Hi,          "ds_store_b8_d16_hi",                [0x54, 0xa0, 0xa0, 0xa0, 0xa0], 0, 1, 1, 0, Single,   Allowed,   Store(D16::Hi),               B8,    Some("ds_write_b8_d16_hi"),    __,   HIP,  L19),
    (StoreB16D16Hi,         "ds_store_b16_d16_hi",               [0x55, 0xa1, 0xa1, 0xa1, 0xa1], 0, 1, 1, 0, Single,   Allowed,   Store(D16::Hi),               B16,   Some("ds_write_b16_d16_hi"),   __,   HIP,  L19),
    (LoadU8D16,             "ds_load_u8_d16",                    [0x56, 0xa2, 0xa2, 0xa2, 0xa2], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                U8,    Some("ds_read_u8_d16"),        __,   HIP,  L19),
    (LoadU8D16Hi,           "ds_load_u8_d16_hi",                 [0x57, 0xa3, 0xa3, 0xa3, 0xa3], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                U8,    Some("ds_read_u8_d16_hi"),     __,   HIP,  L19),
    (LoadI8D16,             "ds_load_i8_d16",                    [0x58, 0xa4, 0xa4, 0xa4, 0xa4], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                I8,    Some("ds_read_i8_d16"),        __,   HIP,  L19),
    (LoadI8D16Hi,           "ds_load_i8_d16_hi",                 [0x59, 0xa5, 0xa5, 0xa5, 0xa5], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                I8,    Some("ds_read_i8_d16_hi"),     __,   HIP,  L19),
    (LoadU16D16,            "ds_load_u16_d16",                   [0x5a, 0xa6, 0xa6, 0xa6, 0xa6], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                U16,   Some("ds_read_u16_d16"),       __,   HIP,  L19),
    (LoadU16D16Hi,          "ds_load_u16_d16_hi",                [0x5b, 0xa7, 0xa7, 0xa7, 0xa7], 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                U16,   Some("ds_read_u16_d16_hi"),    __,   HIP,  L19),
    (BvhStackRtnB32,        "ds_bvh_stack_rtn_b32",              [__  , __  , 0xad, __  , __  ], 1, 1, 1, 4, Single,   Forbidden, BvhStack,                     B32,   None,                          __,   HIP,  L19),
    (StoreAddtidB32,        "ds_store_addtid_b32",               [0x1d, 0xb0, 0xb0, 0xb0, 0xb0], 0, 0, 1, 0, Single,   Allowed,   StoreAddTid,                  B32,   Some("ds_write_addtid_b32"),   __,   HIP,  L19),
    (LoadAddtidB32,         "ds_load_addtid_b32",                [0xb6, 0xb1, 0xb1, 0xb1, 0xb1], 1, 0, 0, 0, Single,   Allowed,   LoadAddTid,                   B32,   Some("ds_read_addtid_b32"),    __,   HIP,  L19),
    (PermuteB32,            "ds_permute_b32",                    [0x3e, 0xb2, 0xb2, 0xb2, 0xb2], 1, 1, 1, 0, Single,   Forbidden, Permute,                      B32,   None,                          __,   HIP,  L19),
    (BpermuteB32,           "ds_bpermute_b32",                   [0x3f, 0xb3, 0xb3, 0xb3, 0xb3], 1, 1, 1, 0, Single,   Forbidden, Bpermute,                     B32,   None,                          __,   HIP,  L19),
    (StoreB96,              "ds_store_b96",                      [0xde, 0xde, 0xde, 0xde, 0xde], 0, 1, 3, 0, Single,   Allowed,   Store(D16::No),               B96,   Some("ds_write_b96"),          __,   HIP,  L19),
    (StoreB128,             "ds_store_b128",                     [0xdf, 0xdf, 0xdf, 0xdf, 0xdf], 0, 1, 4, 0, Single,   Allowed,   Store(D16::No),               B128,  Some("ds_write_b128"),         __,   HIP,  L19),
    (LoadB96,               "ds_load_b96",                       [0xfe, 0xfe, 0xfe, 0xfe, 0xfe], 3, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B96,   Some("ds_read_b96"),           __,   HIP,  L19),
    (LoadB128,              "ds_load_b128",                      [0xff, 0xff, 0xff, 0xff, 0xff], 4, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B128,  Some("ds_read_b128"),          __,   HIP,  L19),
    // gfx12 only (RDNA4 ISA guide, 16.15 "VDS Instructions"; LLVM 19 for a gfx12 target for L19 rows).
    (MinNumF32,             "ds_min_num_f32",                    [__  , __  , __  , 0x12, 0x12], 0, 1, 1, 0, Single,   Forbidden, Rmw(MinNum),                  F32,   Some("ds_min_f32"),            __,   HIP,  L19),
    (MaxNumF32,             "ds_max_num_f32",                    [__  , __  , __  , 0x13, 0x13], 0, 1, 1, 0, Single,   Forbidden, Rmw(MaxNum),                  F32,   Some("ds_max_f32"),            __,   HIP,  L19),
    (MinNumRtnF32,          "ds_min_num_rtn_f32",                [__  , __  , __  , 0x32, 0x32], 1, 1, 1, 0, Single,   Forbidden, Rmw(MinNum),                  F32,   Some("ds_min_rtn_f32"),        __,   HIP,  L19),
    (MaxNumRtnF32,          "ds_max_num_rtn_f32",                [__  , __  , __  , 0x33, 0x33], 1, 1, 1, 0, Single,   Forbidden, Rmw(MaxNum),                  F32,   Some("ds_max_rtn_f32"),        __,   HIP,  L19),
    (MinNumF64,             "ds_min_num_f64",                    [__  , __  , __  , 0x52, 0x52], 0, 1, 2, 0, Single,   Forbidden, Rmw(MinNum),                  F64,   Some("ds_min_f64"),            __,   HIP,  L19),
    (MaxNumF64,             "ds_max_num_f64",                    [__  , __  , __  , 0x53, 0x53], 0, 1, 2, 0, Single,   Forbidden, Rmw(MaxNum),                  F64,   Some("ds_max_f64"),            __,   HIP,  L19),
    (MinNumRtnF64,          "ds_min_num_rtn_f64",                [__  , __  , __  , 0x72, 0x72], 2, 1, 2, 0, Single,   Forbidden, Rmw(MinNum),                  F64,   Some("ds_min_rtn_f64"),        __,   HIP,  L19),
    (MaxNumRtnF64,          "ds_max_num_rtn_f64",                [__  , __  , __  , 0x73, 0x73], 2, 1, 2, 0, Single,   Forbidden, Rmw(MaxNum),                  F64,   Some("ds_max_rtn_f64"),        __,   HIP,  L19),
    (CondSubU32,            "ds_cond_sub_u32",                   [__  , __  , __  , 0x98, 0x98], 0, 1, 1, 0, Single,   Forbidden, Rmw(CondSub),                 U32,   None,                          __,   HIP,  L19),
    (SubClampU32,           "ds_sub_clamp_u32",                  [__  , __  , __  , 0x99, 0x99], 0, 1, 1, 0, Single,   Forbidden, Rmw(SubClamp),                U32,   None,                          __,   HIP,  L19),
    (PkAddF16,              "ds_pk_add_f16",                     [0x17, __  , __  , 0x9a, 0x9a], 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F16x2, None,                          PK16, HIP,  L19),
    (PkAddBf16,             "ds_pk_add_bf16",                    [0x18, __  , __  , 0x9b, 0x9b], 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     Bf16x2, None,                          PK16, HIP,  L19),
    (CondSubRtnU32,         "ds_cond_sub_rtn_u32",               [__  , __  , __  , 0xa8, 0xa8], 1, 1, 1, 0, Single,   Forbidden, Rmw(CondSub),                 U32,   None,                          __,   HIP,  L19),
    (SubClampRtnU32,        "ds_sub_clamp_rtn_u32",              [__  , __  , __  , 0xa9, 0xa9], 1, 1, 1, 0, Single,   Forbidden, Rmw(SubClamp),                U32,   None,                          __,   HIP,  L19),
    (PkAddRtnF16,           "ds_pk_add_rtn_f16",                 [0xb7, __  , __  , 0xaa, 0xaa], 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F16x2, None,                          PK16, HIP,  L19),
    (PkAddRtnBf16,          "ds_pk_add_rtn_bf16",                [0xb8, __  , __  , 0xab, 0xab], 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     Bf16x2, None,                          PK16, HIP,  L19),
    (BpermuteFiB32,         "ds_bpermute_fi_b32",                [__  , __  , __  , 0xcd, 0xcd], 1, 1, 1, 0, Single,   Forbidden, BpermuteFi,                   B32,   None,                          __,   HIP,  L22),
    (BvhStackPush4Pop1RtnB32, "ds_bvh_stack_push4_pop1_rtn_b32",   [__  , __  , __  , 0xe0, __  ], 1, 1, 1, 4, Single,   Forbidden, BvhPushPop(Bvh::Push4Pop1),   B32,   None,                          __,   HIP,  L22),
    (BvhStackPush8Pop1RtnB32, "ds_bvh_stack_push8_pop1_rtn_b32",   [__  , __  , __  , 0xe1, __  ], 1, 1, 1, 8, Single,   Forbidden, BvhPushPop(Bvh::Push8Pop1),   B32,   None,                          __,   HIP,  L22),
    (BvhStackPush8Pop2RtnB64, "ds_bvh_stack_push8_pop2_rtn_b64",   [__  , __  , __  , 0xe2, __  ], 2, 1, 1, 8, Single,   Forbidden, BvhPushPop(Bvh::Push8Pop2),   B64,   None,                          __,   HIP,  L22),
    // gfx12.5 only (LLVM 22, `llvm-mc-22` on both GFX 12.5 processors: every opcode value).
    (AtomicAsyncBarrierArriveB64, "ds_atomic_async_barrier_arrive_b64", [__  , __  , __  , __  , 0x56], 0, 1, 0, 0, Single,   Forbidden, BarrierArrive,                B64,   None,                          __,   HIP,  L22),
    (AtomicBarrierArriveRtnB64, "ds_atomic_barrier_arrive_rtn_b64", [__  , __  , __  , __  , 0x75], 2, 1, 2, 0, Single,   Forbidden, BarrierArrive,                B64,   None,                          __,   HIP,  L22),
    (LoadTr4B64,            "ds_load_tr4_b64",                   [__  , __  , __  , __  , 0xfa], 2, 1, 0, 0, Single,   Forbidden, GFX12_5_TR4,                  B64,   None,                          __,   HIP,  L22),
    (LoadTr6B96,            "ds_load_tr6_b96",                   [__  , __  , __  , __  , 0xfb], 3, 1, 0, 0, Single,   Forbidden, GFX12_5_TR6,                  B96,   None,                          __,   HIP,  L22),
    (LoadTr16B128,          "ds_load_tr16_b128",                 [__  , __  , __  , __  , 0xfc], 4, 1, 0, 0, Single,   Forbidden, GFX12_5_TR16,                 B128,  None,                          __,   HIP,  L22),
    (LoadTr8B64,            "ds_load_tr8_b64",                   [__  , __  , __  , __  , 0xfd], 2, 1, 0, 0, Single,   Forbidden, GFX12_5_TR8,                  B64,   None,                          __,   HIP,  L22),
    // gfx9 and gfx10 only (LLVM's DSInstructions.td and gfx9/gfx10 MC tests; llvm-mc-19 and -22 for
    // every gfx9 and gfx10 target), in gfx9 opcode order (`ds_add_f64` and `ds_add_rtn_f64` are
    // gfx12.5's too: llvm-mc-22); the transpose loads are CDNA 4's (LLVM 22; AMD "CDNA4 ISA"
    // guide, DS_READ_B64_TR_B4 and the rest).
    (AddF64,                "ds_add_f64",                        [0x5c, __  , __  , __  , 0x54], 0, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     F64,   None,                          F64,  HIP,  L19),
    (AddRtnF64,             "ds_add_rtn_f64",                    [0x7c, __  , __  , __  , 0x74], 2, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     F64,   None,                          F64,  HIP,  L19),
    (AddSrc2U32,            "ds_add_src2_u32",                   [0x80, 0x80, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Add),                    U32,   None,                          SRC2, HIP,  L19),
    (SubSrc2U32,            "ds_sub_src2_u32",                   [0x81, 0x81, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Sub),                    U32,   None,                          SRC2, HIP,  L19),
    (RsubSrc2U32,           "ds_rsub_src2_u32",                  [0x82, 0x82, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Rsub),                   U32,   None,                          SRC2, HIP,  L19),
    (IncSrc2U32,            "ds_inc_src2_u32",                   [0x83, 0x83, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Inc),                    U32,   None,                          SRC2, HIP,  L19),
    (DecSrc2U32,            "ds_dec_src2_u32",                   [0x84, 0x84, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Dec),                    U32,   None,                          SRC2, HIP,  L19),
    (MinSrc2I32,            "ds_min_src2_i32",                   [0x85, 0x85, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    I32,   None,                          SRC2, HIP,  L19),
    (MaxSrc2I32,            "ds_max_src2_i32",                   [0x86, 0x86, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    I32,   None,                          SRC2, HIP,  L19),
    (MinSrc2U32,            "ds_min_src2_u32",                   [0x87, 0x87, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    U32,   None,                          SRC2, HIP,  L19),
    (MaxSrc2U32,            "ds_max_src2_u32",                   [0x88, 0x88, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    U32,   None,                          SRC2, HIP,  L19),
    (AndSrc2B32,            "ds_and_src2_b32",                   [0x89, 0x89, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(And),                    B32,   None,                          SRC2, HIP,  L19),
    (OrSrc2B32,             "ds_or_src2_b32",                    [0x8a, 0x8a, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Or),                     B32,   None,                          SRC2, HIP,  L19),
    (XorSrc2B32,            "ds_xor_src2_b32",                   [0x8b, 0x8b, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Xor),                    B32,   None,                          SRC2, HIP,  L19),
    (WriteSrc2B32,          "ds_write_src2_b32",                 [0x8d, 0x8d, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Xchg),                   B32,   None,                          SRC2, HIP,  L19),
    (MinSrc2F32,            "ds_min_src2_f32",                   [0x92, 0x92, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    F32,   None,                          SRC2, HIP,  L19),
    (MaxSrc2F32,            "ds_max_src2_f32",                   [0x93, 0x93, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    F32,   None,                          SRC2, HIP,  L19),
    (AddSrc2F32,            "ds_add_src2_f32",                   [0x95, 0x95, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Add),                    F32,   None,                          SRC2, HIP,  L19),
    (AddSrc2U64,            "ds_add_src2_u64",                   [0xc0, 0xc0, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Add),                    U64,   None,                          SRC2, HIP,  L19),
    (SubSrc2U64,            "ds_sub_src2_u64",                   [0xc1, 0xc1, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Sub),                    U64,   None,                          SRC2, HIP,  L19),
    (RsubSrc2U64,           "ds_rsub_src2_u64",                  [0xc2, 0xc2, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Rsub),                   U64,   None,                          SRC2, HIP,  L19),
    (IncSrc2U64,            "ds_inc_src2_u64",                   [0xc3, 0xc3, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Inc),                    U64,   None,                          SRC2, HIP,  L19),
    (DecSrc2U64,            "ds_dec_src2_u64",                   [0xc4, 0xc4, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Dec),                    U64,   None,                          SRC2, HIP,  L19),
    (MinSrc2I64,            "ds_min_src2_i64",                   [0xc5, 0xc5, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    I64,   None,                          SRC2, HIP,  L19),
    (MaxSrc2I64,            "ds_max_src2_i64",                   [0xc6, 0xc6, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    I64,   None,                          SRC2, HIP,  L19),
    (MinSrc2U64,            "ds_min_src2_u64",                   [0xc7, 0xc7, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    U64,   None,                          SRC2, HIP,  L19),
    (MaxSrc2U64,            "ds_max_src2_u64",                   [0xc8, 0xc8, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    U64,   None,                          SRC2, HIP,  L19),
    (AndSrc2B64,            "ds_and_src2_b64",                   [0xc9, 0xc9, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(And),                    B64,   None,                          SRC2, HIP,  L19),
    (OrSrc2B64,             "ds_or_src2_b64",                    [0xca, 0xca, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Or),                     B64,   None,                          SRC2, HIP,  L19),
    (XorSrc2B64,            "ds_xor_src2_b64",                   [0xcb, 0xcb, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Xor),                    B64,   None,                          SRC2, HIP,  L19),
    (WriteSrc2B64,          "ds_write_src2_b64",                 [0xcd, 0xcd, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Xchg),                   B64,   None,                          SRC2, HIP,  L19),
    (MinSrc2F64,            "ds_min_src2_f64",                   [0xd2, 0xd2, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Min),                    F64,   None,                          SRC2, HIP,  L19),
    (MaxSrc2F64,            "ds_max_src2_f64",                   [0xd3, 0xd3, __  , __  , __  ], 0, 1, 0, 0, Single,   Allowed,   Src2(Max),                    F64,   None,                          SRC2, HIP,  L19),
    (ReadB64TrB4,           "ds_read_b64_tr_b4",                 [0xe0, __  , __  , __  , __  ], 2, 1, 0, 0, Single,   Allowed,   CDNA4_TR4,                    B64,   None,                          TR,   HIP,  L22),
    (ReadB96TrB6,           "ds_read_b96_tr_b6",                 [0xe1, __  , __  , __  , __  ], 3, 1, 0, 0, Single,   Allowed,   CDNA4_TR6,                    B96,   None,                          TR,   HIP,  L22),
    (ReadB64TrB8,           "ds_read_b64_tr_b8",                 [0xe2, __  , __  , __  , __  ], 2, 1, 0, 0, Single,   Allowed,   CDNA4_TR8,                    B64,   None,                          TR,   HIP,  L22),
    (ReadB64TrB16,          "ds_read_b64_tr_b16",                [0xe3, __  , __  , __  , __  ], 2, 1, 0, 0, Single,   Allowed,   CDNA4_TR16,                   B64,   None,                          TR,   HIP,  L22),
}
