//! The one DS table: every gfx11 DS opcode, one row each, in opcode order.
//!
//! Source: AMD "RDNA3 Instruction Set Architecture Reference Guide", chapter "Microcode Formats",
//! DS format opcode list, and chapter "Instructions", "LDS & GDS instructions" (mnemonics,
//! operands, data widths). Checked byte for byte against LLVM 19's gfx1100 assembler and
//! disassembler (`llvm-mc-19 -mcpu=gfx1100`), which is the oracle of the tests in
//! `reference/tests/llvm_oracle.rs`.
//!
//! Columns, left to right:
//! - variant: the `DsOp` enum name;
//! - mnemonic: the gfx11 spelling (ISA guide, opcode list);
//! - opcode: the 8-bit `OP` field;
//! - vdst, addr, data0, data1: dwords of each VGPR operand (0 = the field is unused and must be 0);
//! - offset: `Single` 16-bit `offset:`, `Pair` `offset0:`/`offset1:` scaled by the element size,
//!   `Stride64` the same scaled by 64 x element size, `Swizzle` a 16-bit swizzle pattern, `NoOffset`;
//! - gds: whether the `gds` bit is `Forbidden`, `Allowed` or `Required`;
//! - family and element type: the semantics (see [`Family`](super::Family));
//! - legacy: the pre-gfx11 mnemonic LLVM still accepts as input, or `None`;
//! - hip: `HIP` when a HIP compute kernel can run it, else why not.
#![allow(clippy::zero_prefixed_literal)]

use super::{Family::*, Rmw::*, D16};

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

ds_table! {
    // variant             mnemonic                                 op  vd  a d0 d1 offset    gds        family                        elem  legacy                         hip
    (AddU32,               "ds_add_u32",                          0x00, 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     U32,  None,                          HIP),
    (SubU32,               "ds_sub_u32",                          0x01, 0, 1, 1, 0, Single,   Allowed,   Rmw(Sub),                     U32,  None,                          HIP),
    (RsubU32,              "ds_rsub_u32",                         0x02, 0, 1, 1, 0, Single,   Allowed,   Rmw(Rsub),                    U32,  None,                          HIP),
    (IncU32,               "ds_inc_u32",                          0x03, 0, 1, 1, 0, Single,   Allowed,   Rmw(Inc),                     U32,  None,                          HIP),
    (DecU32,               "ds_dec_u32",                          0x04, 0, 1, 1, 0, Single,   Allowed,   Rmw(Dec),                     U32,  None,                          HIP),
    (MinI32,               "ds_min_i32",                          0x05, 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     I32,  None,                          HIP),
    (MaxI32,               "ds_max_i32",                          0x06, 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     I32,  None,                          HIP),
    (MinU32,               "ds_min_u32",                          0x07, 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     U32,  None,                          HIP),
    (MaxU32,               "ds_max_u32",                          0x08, 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     U32,  None,                          HIP),
    (AndB32,               "ds_and_b32",                          0x09, 0, 1, 1, 0, Single,   Allowed,   Rmw(And),                     B32,  None,                          HIP),
    (OrB32,                "ds_or_b32",                           0x0a, 0, 1, 1, 0, Single,   Allowed,   Rmw(Or),                      B32,  None,                          HIP),
    (XorB32,               "ds_xor_b32",                          0x0b, 0, 1, 1, 0, Single,   Allowed,   Rmw(Xor),                     B32,  None,                          HIP),
    (MskorB32,             "ds_mskor_b32",                        0x0c, 0, 1, 1, 1, Single,   Allowed,   Rmw(Mskor),                   B32,  None,                          HIP),
    (StoreB32,             "ds_store_b32",                        0x0d, 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B32,  Some("ds_write_b32"),          HIP),
    (Store2addrB32,        "ds_store_2addr_b32",                  0x0e, 0, 1, 1, 1, Pair,     Allowed,   Store(D16::No),               B32,  Some("ds_write2_b32"),         HIP),
    (Store2addrStride64B32,"ds_store_2addr_stride64_b32",         0x0f, 0, 1, 1, 1, Stride64, Allowed,   Store(D16::No),               B32,  Some("ds_write2st64_b32"),      HIP),
    (CmpstoreB32,          "ds_cmpstore_b32",                     0x10, 0, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                B32,  None,                          HIP),
    (CmpstoreF32,          "ds_cmpstore_f32",                     0x11, 0, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                F32,  None,                          HIP),
    (MinF32,               "ds_min_f32",                          0x12, 0, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     F32,  None,                          HIP),
    (MaxF32,               "ds_max_f32",                          0x13, 0, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     F32,  None,                          HIP),
    (Nop,                  "ds_nop",                              0x14, 0, 0, 0, 0, NoOffset, Forbidden, Nop,                          None, None,                          HIP),
    (AddF32,               "ds_add_f32",                          0x15, 0, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F32,  None,                          HIP),
    (GwsSemaReleaseAll,    "ds_gws_sema_release_all",             0x18, 0, 0, 0, 0, Single,   Required,  Gws,                          None, None,                          GWS),
    (GwsInit,              "ds_gws_init",                         0x19, 0, 0, 1, 0, Single,   Required,  Gws,                          B32,  None,                          GWS),
    (GwsSemaV,             "ds_gws_sema_v",                       0x1a, 0, 0, 0, 0, Single,   Required,  Gws,                          None, None,                          GWS),
    (GwsSemaBr,            "ds_gws_sema_br",                      0x1b, 0, 0, 1, 0, Single,   Required,  Gws,                          B32,  None,                          GWS),
    (GwsSemaP,             "ds_gws_sema_p",                       0x1c, 0, 0, 0, 0, Single,   Required,  Gws,                          None, None,                          GWS),
    (GwsBarrier,           "ds_gws_barrier",                      0x1d, 0, 0, 1, 0, Single,   Required,  Gws,                          B32,  None,                          GWS),
    (StoreB8,              "ds_store_b8",                         0x1e, 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B8,   Some("ds_write_b8"),           HIP),
    (StoreB16,             "ds_store_b16",                        0x1f, 0, 1, 1, 0, Single,   Allowed,   Store(D16::No),               B16,  Some("ds_write_b16"),          HIP),
    (AddRtnU32,            "ds_add_rtn_u32",                      0x20, 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     U32,  None,                          HIP),
    (SubRtnU32,            "ds_sub_rtn_u32",                      0x21, 1, 1, 1, 0, Single,   Allowed,   Rmw(Sub),                     U32,  None,                          HIP),
    (RsubRtnU32,           "ds_rsub_rtn_u32",                     0x22, 1, 1, 1, 0, Single,   Allowed,   Rmw(Rsub),                    U32,  None,                          HIP),
    (IncRtnU32,            "ds_inc_rtn_u32",                      0x23, 1, 1, 1, 0, Single,   Allowed,   Rmw(Inc),                     U32,  None,                          HIP),
    (DecRtnU32,            "ds_dec_rtn_u32",                      0x24, 1, 1, 1, 0, Single,   Allowed,   Rmw(Dec),                     U32,  None,                          HIP),
    (MinRtnI32,            "ds_min_rtn_i32",                      0x25, 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     I32,  None,                          HIP),
    (MaxRtnI32,            "ds_max_rtn_i32",                      0x26, 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     I32,  None,                          HIP),
    (MinRtnU32,            "ds_min_rtn_u32",                      0x27, 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     U32,  None,                          HIP),
    (MaxRtnU32,            "ds_max_rtn_u32",                      0x28, 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     U32,  None,                          HIP),
    (AndRtnB32,            "ds_and_rtn_b32",                      0x29, 1, 1, 1, 0, Single,   Allowed,   Rmw(And),                     B32,  None,                          HIP),
    (OrRtnB32,             "ds_or_rtn_b32",                       0x2a, 1, 1, 1, 0, Single,   Allowed,   Rmw(Or),                      B32,  None,                          HIP),
    (XorRtnB32,            "ds_xor_rtn_b32",                      0x2b, 1, 1, 1, 0, Single,   Allowed,   Rmw(Xor),                     B32,  None,                          HIP),
    (MskorRtnB32,          "ds_mskor_rtn_b32",                    0x2c, 1, 1, 1, 1, Single,   Allowed,   Rmw(Mskor),                   B32,  None,                          HIP),
    (StorexchgRtnB32,      "ds_storexchg_rtn_b32",                0x2d, 1, 1, 1, 0, Single,   Allowed,   Rmw(Xchg),                    B32,  Some("ds_wrxchg_rtn_b32"),     HIP),
    (Storexchg2addrRtnB32, "ds_storexchg_2addr_rtn_b32",          0x2e, 2, 1, 1, 1, Pair,     Allowed,   Rmw(Xchg),                    B32,  Some("ds_wrxchg2_rtn_b32"),    HIP),
    (Storexchg2addrStride64RtnB32, "ds_storexchg_2addr_stride64_rtn_b32", 0x2f, 2, 1, 1, 1, Stride64, Allowed, Rmw(Xchg),            B32,  Some("ds_wrxchg2st64_rtn_b32"),HIP),
    (CmpstoreRtnB32,       "ds_cmpstore_rtn_b32",                 0x30, 1, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                B32,  None,                          HIP),
    (CmpstoreRtnF32,       "ds_cmpstore_rtn_f32",                 0x31, 1, 1, 1, 1, Single,   Allowed,   Rmw(CmpStore),                F32,  None,                          HIP),
    (MinRtnF32,            "ds_min_rtn_f32",                      0x32, 1, 1, 1, 0, Single,   Allowed,   Rmw(Min),                     F32,  None,                          HIP),
    (MaxRtnF32,            "ds_max_rtn_f32",                      0x33, 1, 1, 1, 0, Single,   Allowed,   Rmw(Max),                     F32,  None,                          HIP),
    (WrapRtnB32,           "ds_wrap_rtn_b32",                     0x34, 1, 1, 1, 1, Single,   Allowed,   Rmw(Wrap),                    B32,  None,                          HIP),
    (SwizzleB32,           "ds_swizzle_b32",                      0x35, 1, 1, 0, 0, Swizzle,  Allowed,   Swizzle,                      B32,  None,                          HIP),
    (LoadB32,              "ds_load_b32",                         0x36, 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B32,  Some("ds_read_b32"),           HIP),
    (Load2addrB32,         "ds_load_2addr_b32",                   0x37, 2, 1, 0, 0, Pair,     Allowed,   Load(D16::No),                B32,  Some("ds_read2_b32"),          HIP),
    (Load2addrStride64B32, "ds_load_2addr_stride64_b32",          0x38, 2, 1, 0, 0, Stride64, Allowed,   Load(D16::No),                B32,  Some("ds_read2st64_b32"),      HIP),
    (LoadI8,               "ds_load_i8",                          0x39, 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                I8,   Some("ds_read_i8"),            HIP),
    (LoadU8,               "ds_load_u8",                          0x3a, 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                U8,   Some("ds_read_u8"),            HIP),
    (LoadI16,              "ds_load_i16",                         0x3b, 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                I16,  Some("ds_read_i16"),           HIP),
    (LoadU16,              "ds_load_u16",                         0x3c, 1, 1, 0, 0, Single,   Allowed,   Load(D16::No),                U16,  Some("ds_read_u16"),           HIP),
    (Consume,              "ds_consume",                          0x3d, 1, 0, 0, 0, Single,   Allowed,   Consume,                      U32,  None,                          HIP),
    (Append,               "ds_append",                           0x3e, 1, 0, 0, 0, Single,   Allowed,   Append,                       U32,  None,                          HIP),
    (OrderedCount,         "ds_ordered_count",                    0x3f, 1, 1, 0, 0, Single,   Required,  OrderedCount,                 B32,  None,                          ORDERED),
    (AddU64,               "ds_add_u64",                          0x40, 0, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     U64,  None,                          HIP),
    (SubU64,               "ds_sub_u64",                          0x41, 0, 1, 2, 0, Single,   Allowed,   Rmw(Sub),                     U64,  None,                          HIP),
    (RsubU64,              "ds_rsub_u64",                         0x42, 0, 1, 2, 0, Single,   Allowed,   Rmw(Rsub),                    U64,  None,                          HIP),
    (IncU64,               "ds_inc_u64",                          0x43, 0, 1, 2, 0, Single,   Allowed,   Rmw(Inc),                     U64,  None,                          HIP),
    (DecU64,               "ds_dec_u64",                          0x44, 0, 1, 2, 0, Single,   Allowed,   Rmw(Dec),                     U64,  None,                          HIP),
    (MinI64,               "ds_min_i64",                          0x45, 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     I64,  None,                          HIP),
    (MaxI64,               "ds_max_i64",                          0x46, 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     I64,  None,                          HIP),
    (MinU64,               "ds_min_u64",                          0x47, 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     U64,  None,                          HIP),
    (MaxU64,               "ds_max_u64",                          0x48, 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     U64,  None,                          HIP),
    (AndB64,               "ds_and_b64",                          0x49, 0, 1, 2, 0, Single,   Allowed,   Rmw(And),                     B64,  None,                          HIP),
    (OrB64,                "ds_or_b64",                           0x4a, 0, 1, 2, 0, Single,   Allowed,   Rmw(Or),                      B64,  None,                          HIP),
    (XorB64,               "ds_xor_b64",                          0x4b, 0, 1, 2, 0, Single,   Allowed,   Rmw(Xor),                     B64,  None,                          HIP),
    (MskorB64,             "ds_mskor_b64",                        0x4c, 0, 1, 2, 2, Single,   Allowed,   Rmw(Mskor),                   B64,  None,                          HIP),
    (StoreB64,             "ds_store_b64",                        0x4d, 0, 1, 2, 0, Single,   Allowed,   Store(D16::No),               B64,  Some("ds_write_b64"),          HIP),
    (Store2addrB64,        "ds_store_2addr_b64",                  0x4e, 0, 1, 2, 2, Pair,     Allowed,   Store(D16::No),               B64,  Some("ds_write2_b64"),         HIP),
    (Store2addrStride64B64,"ds_store_2addr_stride64_b64",         0x4f, 0, 1, 2, 2, Stride64, Allowed,   Store(D16::No),               B64,  Some("ds_write2st64_b64"),      HIP),
    (CmpstoreB64,          "ds_cmpstore_b64",                     0x50, 0, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                B64,  None,                          HIP),
    (CmpstoreF64,          "ds_cmpstore_f64",                     0x51, 0, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                F64,  None,                          HIP),
    (MinF64,               "ds_min_f64",                          0x52, 0, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     F64,  None,                          HIP),
    (MaxF64,               "ds_max_f64",                          0x53, 0, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     F64,  None,                          HIP),
    (AddRtnU64,            "ds_add_rtn_u64",                      0x60, 2, 1, 2, 0, Single,   Allowed,   Rmw(Add),                     U64,  None,                          HIP),
    (SubRtnU64,            "ds_sub_rtn_u64",                      0x61, 2, 1, 2, 0, Single,   Allowed,   Rmw(Sub),                     U64,  None,                          HIP),
    (RsubRtnU64,           "ds_rsub_rtn_u64",                     0x62, 2, 1, 2, 0, Single,   Allowed,   Rmw(Rsub),                    U64,  None,                          HIP),
    (IncRtnU64,            "ds_inc_rtn_u64",                      0x63, 2, 1, 2, 0, Single,   Allowed,   Rmw(Inc),                     U64,  None,                          HIP),
    (DecRtnU64,            "ds_dec_rtn_u64",                      0x64, 2, 1, 2, 0, Single,   Allowed,   Rmw(Dec),                     U64,  None,                          HIP),
    (MinRtnI64,            "ds_min_rtn_i64",                      0x65, 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     I64,  None,                          HIP),
    (MaxRtnI64,            "ds_max_rtn_i64",                      0x66, 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     I64,  None,                          HIP),
    (MinRtnU64,            "ds_min_rtn_u64",                      0x67, 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     U64,  None,                          HIP),
    (MaxRtnU64,            "ds_max_rtn_u64",                      0x68, 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     U64,  None,                          HIP),
    (AndRtnB64,            "ds_and_rtn_b64",                      0x69, 2, 1, 2, 0, Single,   Allowed,   Rmw(And),                     B64,  None,                          HIP),
    (OrRtnB64,             "ds_or_rtn_b64",                       0x6a, 2, 1, 2, 0, Single,   Allowed,   Rmw(Or),                      B64,  None,                          HIP),
    (XorRtnB64,            "ds_xor_rtn_b64",                      0x6b, 2, 1, 2, 0, Single,   Allowed,   Rmw(Xor),                     B64,  None,                          HIP),
    (MskorRtnB64,          "ds_mskor_rtn_b64",                    0x6c, 2, 1, 2, 2, Single,   Allowed,   Rmw(Mskor),                   B64,  None,                          HIP),
    (StorexchgRtnB64,      "ds_storexchg_rtn_b64",                0x6d, 2, 1, 2, 0, Single,   Allowed,   Rmw(Xchg),                    B64,  Some("ds_wrxchg_rtn_b64"),     HIP),
    (Storexchg2addrRtnB64, "ds_storexchg_2addr_rtn_b64",          0x6e, 4, 1, 2, 2, Pair,     Allowed,   Rmw(Xchg),                    B64,  Some("ds_wrxchg2_rtn_b64"),    HIP),
    (Storexchg2addrStride64RtnB64, "ds_storexchg_2addr_stride64_rtn_b64", 0x6f, 4, 1, 2, 2, Stride64, Allowed, Rmw(Xchg),            B64,  Some("ds_wrxchg2st64_rtn_b64"),HIP),
    (CmpstoreRtnB64,       "ds_cmpstore_rtn_b64",                 0x70, 2, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                B64,  None,                          HIP),
    (CmpstoreRtnF64,       "ds_cmpstore_rtn_f64",                 0x71, 2, 1, 2, 2, Single,   Allowed,   Rmw(CmpStore),                F64,  None,                          HIP),
    (MinRtnF64,            "ds_min_rtn_f64",                      0x72, 2, 1, 2, 0, Single,   Allowed,   Rmw(Min),                     F64,  None,                          HIP),
    (MaxRtnF64,            "ds_max_rtn_f64",                      0x73, 2, 1, 2, 0, Single,   Allowed,   Rmw(Max),                     F64,  None,                          HIP),
    (LoadB64,              "ds_load_b64",                         0x76, 2, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B64,  Some("ds_read_b64"),           HIP),
    (Load2addrB64,         "ds_load_2addr_b64",                   0x77, 4, 1, 0, 0, Pair,     Allowed,   Load(D16::No),                B64,  Some("ds_read2_b64"),          HIP),
    (Load2addrStride64B64, "ds_load_2addr_stride64_b64",          0x78, 4, 1, 0, 0, Stride64, Allowed,   Load(D16::No),                B64,  Some("ds_read2st64_b64"),      HIP),
    (AddRtnF32,            "ds_add_rtn_f32",                      0x79, 1, 1, 1, 0, Single,   Allowed,   Rmw(Add),                     F32,  None,                          HIP),
    (AddGsRegRtn,          "ds_add_gs_reg_rtn",                   0x7a, 2, 0, 1, 0, Single,   Required,  GsReg,                        B32,  None,                          GS_REG),
    (SubGsRegRtn,          "ds_sub_gs_reg_rtn",                   0x7b, 2, 0, 1, 0, Single,   Required,  GsReg,                        B32,  None,                          GS_REG),
    (Condxchg32RtnB64,     "ds_condxchg32_rtn_b64",               0x7e, 2, 1, 2, 0, Single,   Allowed,   CondXchg32,                   B64,  None,                          HIP),
    (StoreB8D16Hi,         "ds_store_b8_d16_hi",                  0xa0, 0, 1, 1, 0, Single,   Allowed,   Store(D16::Hi),               B8,   Some("ds_write_b8_d16_hi"),    HIP),
    (StoreB16D16Hi,        "ds_store_b16_d16_hi",                 0xa1, 0, 1, 1, 0, Single,   Allowed,   Store(D16::Hi),               B16,  Some("ds_write_b16_d16_hi"),   HIP),
    (LoadU8D16,            "ds_load_u8_d16",                      0xa2, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                U8,   Some("ds_read_u8_d16"),        HIP),
    (LoadU8D16Hi,          "ds_load_u8_d16_hi",                   0xa3, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                U8,   Some("ds_read_u8_d16_hi"),     HIP),
    (LoadI8D16,            "ds_load_i8_d16",                      0xa4, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                I8,   Some("ds_read_i8_d16"),        HIP),
    (LoadI8D16Hi,          "ds_load_i8_d16_hi",                   0xa5, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                I8,   Some("ds_read_i8_d16_hi"),     HIP),
    (LoadU16D16,           "ds_load_u16_d16",                     0xa6, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Lo),                U16,  Some("ds_read_u16_d16"),       HIP),
    (LoadU16D16Hi,         "ds_load_u16_d16_hi",                  0xa7, 1, 1, 0, 0, Single,   Allowed,   Load(D16::Hi),                U16,  Some("ds_read_u16_d16_hi"),    HIP),
    (BvhStackRtnB32,       "ds_bvh_stack_rtn_b32",                0xad, 1, 1, 1, 4, Single,   Forbidden, BvhStack,                     B32,  None,                          HIP),
    (StoreAddtidB32,       "ds_store_addtid_b32",                 0xb0, 0, 0, 1, 0, Single,   Allowed,   StoreAddTid,                  B32,  Some("ds_write_addtid_b32"),   HIP),
    (LoadAddtidB32,        "ds_load_addtid_b32",                  0xb1, 1, 0, 0, 0, Single,   Allowed,   LoadAddTid,                   B32,  Some("ds_read_addtid_b32"),    HIP),
    (PermuteB32,           "ds_permute_b32",                      0xb2, 1, 1, 1, 0, Single,   Forbidden, Permute,                      B32,  None,                          HIP),
    (BpermuteB32,          "ds_bpermute_b32",                     0xb3, 1, 1, 1, 0, Single,   Forbidden, Bpermute,                     B32,  None,                          HIP),
    (StoreB96,             "ds_store_b96",                        0xde, 0, 1, 3, 0, Single,   Allowed,   Store(D16::No),               B96,  Some("ds_write_b96"),          HIP),
    (StoreB128,            "ds_store_b128",                       0xdf, 0, 1, 4, 0, Single,   Allowed,   Store(D16::No),               B128, Some("ds_write_b128"),         HIP),
    (LoadB96,              "ds_load_b96",                         0xfe, 3, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B96,  Some("ds_read_b96"),           HIP),
    (LoadB128,             "ds_load_b128",                        0xff, 4, 1, 0, 0, Single,   Allowed,   Load(D16::No),                B128, Some("ds_read_b128"),          HIP),
}
