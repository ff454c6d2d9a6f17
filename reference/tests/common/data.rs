//! What each generation's DS oracle tests need besides the shared checks (`both.rs`) and the list
//! of generations and releases (`llvm.rs`): its op counts, its vector file, and the lines every
//! release reads or refuses on it. Adding a generation is adding a row to [`DATA`].

use ds_isa::ds::{DsFeatures, Generation};

/// What one generation's oracle needs besides the shared checks. Adding a generation is adding a
/// row here and in `common::llvm::GENERATIONS`.
pub struct GenData {
    pub gen: Generation,
    /// Its DS ops, and how many of them LLVM 19 knows.
    pub ops: usize,
    pub llvm19_ops: usize,
    /// Its vector file in `tests/`.
    pub vectors: &'static str,
    /// Lines every release reads on this generation, beyond [`LENIENT_LINES`].
    pub lenient: &'static [&'static str],
    /// Lines both refuse on this generation, beyond [`BAD_LINES`].
    pub bad: &'static [&'static str],
    /// Lines both read on a target with the features, and both refuse on one without them.
    pub featured: &'static [(DsFeatures, &'static str)],
}

pub const DATA: &[GenData] = &[
    GenData {
        gen: Generation::Gfx9,
        ops: 164,
        llvm19_ops: 160,
        vectors: "vectors_gfx9.txt",
        lenient: &[
            "ds_read_b32 v1, v2 offset : 4",
            "DS_WRITE2_B32 v1 v2 v3 offset0:1 offset1:2",
            "ds_cmpst_rtn_b32 v1, v2, v3, v4 offset:0x10",
        ],
        bad: &[
            // gfx11's spellings, which gfx9 LLVM does not read.
            "ds_store_b32 v1, v2",
            "ds_load_b32 v1, v2",
            "ds_cmpstore_b32 v1, v2, v3",
            "ds_storexchg_rtn_b32 v1, v2, v3",
            "ds_load_2addr_stride64_b64 v[2:5], v1",
            // gfx11's and gfx12's own ops.
            "ds_add_gs_reg_rtn v[2:3], v4 gds",
            "ds_bvh_stack_rtn_b32 v1, v2, v3, v[4:7]",
            "ds_cond_sub_u32 v1, v2",
            "ds_min_num_f32 v1, v2",
            "ds_subrev_u32 v1, v2",
            "ds_nop gds",
            "ds_permute_b32 v1, v2, v3 gds",
            "ds_gws_init v2 offset:4",
            "ds_gws_sema_v",
            // The address is never an AccVGPR; vdst and data are all v or all a.
            "ds_add_rtn_u32 v1, a2, v3",
            "ds_add_rtn_u32 a1, v2, v3",
            "ds_nop a1",
        ],
        featured: &[
            (DsFeatures::GDS, "ds_add_u32 v1, v2 offset:4 gds"),
            (DsFeatures::GDS, "ds_read_b64 v[2:3], v1 gds"),
            (DsFeatures::GDS, "ds_ordered_count v1, v2 offset:4 gds"),
            (DsFeatures::SRC2, "ds_add_src2_u32 v1 offset:4"),
            (DsFeatures::SRC2, "ds_write_src2_b64 v255 offset:65535"),
            (
                DsFeatures::SRC2.union(DsFeatures::GDS),
                "ds_max_src2_f64 v1 offset:8 gds",
            ),
            (DsFeatures::F64, "ds_add_f64 v1, v[2:3] offset:8"),
            (DsFeatures::F64, "ds_add_rtn_f64 v[2:3], v1, v[4:5]"),
            (DsFeatures::PK16, "ds_pk_add_f16 v1, v2 offset:4"),
            (DsFeatures::PK16, "ds_pk_add_rtn_bf16 v1, v2, v3"),
            (DsFeatures::TR, "ds_read_b64_tr_b4 v[2:3], v1 offset:8"),
            (DsFeatures::TR, "ds_read_b96_tr_b6 v[4:6], v1"),
            (DsFeatures::ACC, "ds_add_rtn_u32 a1, v2, a3"),
            (
                DsFeatures::ACC,
                "ds_write2_b64 v1, a[2:3], a[4:5] offset1:4",
            ),
            (DsFeatures::ACC, "ds_read_b128 a[4:7], v1"),
            (DsFeatures::ACC, "ds_gws_init a4 gds"),
            (DsFeatures::ACC, "ds_append a1"),
            (DsFeatures::ACC, "ds_bpermute_b32 a1, v2, a3"),
            (DsFeatures::UNALIGNED, "ds_write_b64 v1, v[3:4]"),
            (DsFeatures::UNALIGNED, "ds_read2_b32 v[1:2], v0"),
            (DsFeatures::UNALIGNED, "ds_gws_init v5 gds"),
            (
                DsFeatures::UNALIGNED.union(DsFeatures::GDS),
                "ds_wrxchg2_rtn_b64 v[1:4], v0, v[5:6], v[7:8] gds",
            ),
        ],
    },
    GenData {
        gen: Generation::Gfx10,
        ops: 154,
        llvm19_ops: 154,
        vectors: "vectors_gfx10.txt",
        lenient: &[
            "ds_read_b32 v1, v2 offset : 4 gds",
            "DS_WRITE2_B32 v1 v2 v3 offset0:1 offset1:2",
            "ds_cmpst_rtn_b32 v1, v2, v3, v4 offset:0x10",
            "ds_write_b64 v1, v[3:4]",
        ],
        bad: &[
            "ds_store_b32 v1, v2",
            "ds_load_b32 v1, v2",
            "ds_cmpstore_b32 v1, v2, v3",
            "ds_storexchg_rtn_b32 v1, v2, v3",
            "ds_add_gs_reg_rtn v[2:3], v4 gds",
            "ds_bvh_stack_rtn_b32 v1, v2, v3, v[4:7]",
            "ds_cond_sub_u32 v1, v2",
            "ds_subrev_u32 v1, v2",
            "ds_add_f64 v1, v[2:3]",
            "ds_pk_add_f16 v1, v2",
            "ds_add_u32 a1, v2",
            "ds_add_rtn_u32 a1, v2, a3",
            "ds_nop gds",
            "ds_permute_b32 v1, v2, v3 gds",
            "ds_gws_init v1 offset:4",
        ],
        featured: &[
            (DsFeatures::SRC2, "ds_add_src2_u32 v1 offset:4 gds"),
            (DsFeatures::SRC2, "ds_max_src2_f64 v255 offset:65535"),
            (DsFeatures::SRC2, "ds_write_src2_b32 v7"),
        ],
    },
    GenData {
        gen: Generation::Gfx11,
        ops: 126,
        llvm19_ops: 126,
        vectors: "vectors.txt",
        lenient: &["ds_load_b32 v1, v2 offset : 4 gds", "ds_add_u32 v1, v2 gds"],
        bad: &[
            "ds_load_b32 v1, v2 gds offset:4",
            "ds_add_u32 v1, v2 gds gds",
            "ds_load_b32 v1, v2 GDS",
            "ds_permute_b32 v1, v2, v3 gds",
            "ds_bpermute_b32 v1, v2, v3 gds",
            "ds_bvh_stack_rtn_b32 v1, v2, v3, v[4:7] gds",
            "ds_nop gds",
            "ds_gws_init v1 offset:4",
            "ds_gws_sema_v",
            "ds_ordered_count v1, v2 offset:4",
            "ds_add_gs_reg_rtn v[2:3], v4",
            // gfx12's spellings of gfx11 ops.
            "ds_subrev_u32 v1, v2",
            "ds_subrev_rtn_u64 v[1:2], v3, v[4:5]",
            "ds_min_num_f32 v1, v2",
            // gfx9's spellings and ops, which gfx11 LLVM does not read.
            "ds_cmpst_b32 v1, v2, v3",
            "ds_cmpst_rtn_b64 v[1:2], v3, v[4:5], v[6:7]",
            "ds_add_src2_u32 v1",
            "ds_add_f64 v1, v[2:3]",
            "ds_add_u32 a1, v2",
        ],
        featured: &[],
    },
    GenData {
        gen: Generation::Gfx12,
        ops: 123,
        llvm19_ops: 119,
        vectors: "vectors_gfx12.txt",
        lenient: &[
            "ds_subrev_u32 v1 v2 offset: 4",
            "DS_SUBREV_RTN_U64 v[1:2], v3, v[4:5]",
        ],
        bad: &[
            "ds_add_u32 v1, v2 gds",
            "ds_load_b32 v1, v2 offset:4 gds",
            "ds_store_b32 v1, v2 gds",
            "ds_gws_init v1 gds",
            "ds_gws_sema_v gds",
            "ds_ordered_count v1, v2 gds",
            "ds_add_gs_reg_rtn v[2:3], v4 gds",
            "ds_cmpstore_f32 v1, v2, v3",
            "ds_cmpstore_rtn_f64 v[1:2], v3, v[4:5], v[6:7]",
            "ds_wrap_rtn_b32 v1, v2, v3, v4",
            "ds_bvh_stack_rtn_b32 v1, v2, v3, v[4:7] gds",
            "ds_cond_sub_u32 v1, v[2:3]",
            "ds_pk_add_f16 v1",
            "ds_min_num_f64 v1, v2",
            "ds_sub_clamp_rtn_u32 v1, v2, v3 offset:65536",
            "ds_subrev_u32 v1, v2, v3",
            "ds_cmpst_b32 v1, v2, v3",
            "ds_add_src2_u32 v1",
            "ds_read_b64_tr_b4 v[2:3], v1",
        ],
        featured: &[],
    },
];

pub fn data(gen: Generation) -> &'static GenData {
    DATA.iter()
        .find(|d| d.gen == gen)
        .unwrap_or_else(|| panic!("no DATA row for {gen}"))
}

/// Looser spellings every release reads (optional commas, spaces around `:` and inside brackets
/// and macros, upper-case mnemonics, numbers in any base inside swizzle macros, trailing
/// comments), in every generation (gfx9 and gfx10 with their own mnemonics: `common::respell`);
/// [`GenData::lenient`] adds the generation's own.
pub const LENIENT_LINES: &[&str] = &[
    "ds_load_b32 v1 v2",
    "ds_load_b32 v1 , v2",
    "ds_store_b32 v1, v2,",
    "ds_load_b32 v1, v2, offset:4",
    "ds_load_b32 v1, v2 offset:4,",
    "ds_load_b32 v1, v2 offset: 4",
    "ds_load_b32 v1, v2 offset :4",
    "ds_load_b64 v[2 : 3], v[3]",
    "ds_load_b32 v[7:7], v2",
    "ds_load_b32\tv1,v2\toffset:0X10",
    "ds_load_b32 v1, v2 offset:0B11",
    "ds_load_b32 v1, v2 offset:0xFFFF",
    "ds_load_b32 v1, v2 offset:00",
    "ds_load_b32 v1, v2 offset:0",
    "ds_load_2addr_b32 v[2:3], v2 offset0:0 offset1:0",
    "Ds_Load_B32 v1, v2",
    "ds_load_b32 v1, v2 ; comment",
    "ds_load_b32 v1, v2 // comment",
    "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM, 0, 1, 2, 3)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,0x1,0b10,03,0)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM, \"00000\")",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,0x10,0b111)",
    "ds_swizzle_b32 v1, v2 offset:0x8000",
    "ds_write_b32 v1, v2 offset:8",
    "ds_nop ",
];

/// Lines every release and we refuse, in every generation (gfx9 and gfx10 with their own
/// mnemonics: `common::respell`); [`GenData::bad`] adds each generation's own.
pub const BAD_LINES: &[&str] = &[
    "ds_load_b32 v1, v2 offset:65536",
    "ds_load_b32 v1, v2 offset:0x10000",
    "ds_load_b32 v1, v2 offset:-1",
    "ds_load_b32 v1",
    "ds_load_b32 v1, v2, v3",
    "ds_store_b32 v1",
    "ds_load_b32 v[1:2], v2",
    "ds_load_b64 v1, v2",
    "ds_store_b128 v1, v[2:4]",
    "ds_load_b32 v1, s2",
    "ds_load_b32 V1, V2",
    "ds_load_b32 v256, v2",
    "ds_load_b128 v[253:256], v2",
    "ds_load_b32 v[2:1], v2",
    "ds_load_2addr_b32 v[1:2], v2 offset0:256",
    "ds_load_2addr_b32 v[1:2], v2 offset1:256",
    "ds_load_2addr_b32 v[1:2], v2 offset:4",
    "ds_load_2addr_b32 v[1:2], v2 offset1:3 offset0:2",
    "ds_load_b32 v1, v2 offset0:4",
    "ds_load_b32 v1, v2 offset:4 offset:8",
    "ds_load_b32 v1, v2 OFFSET:4",
    "ds_load_b32 v1, v2 offset:",
    "ds_load_b32 v1, v2 offset:08",
    "ds_load_b32 v1, v2 offset:0b2",
    "ds_load_b32 v1, v2 offset:0o7",
    "ds_load_b32 v1,, v2",
    "ds_nop offset:4",
    "ds_nop offset:0",
    "ds_nop v1",
    "ds_frobnicate v1",
    "ds_load_b32_x v1, v2",
    "ds_subrev_u32 v1, v2, v3, v4",
    "ds_swizzle_b32 v1, v2 offset:swizzle(quad_perm,0,1,2,3)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,0,1,2,4)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,0,1,2)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,3)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,0)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,32)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,1)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,64)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,4,4)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,1,0)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,64,0)",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"01pix\")",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"PPPPP\")",
    "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"0000\")",
    "ds_swizzle_b32 v1, v2 offset:65536",
];
