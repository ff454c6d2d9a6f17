//! The gfx11 DS instruction set as data: the one opcode table ([`DS_OPS`]), its field types, and
//! what is derived from it (encoder and decoder in [`encode`], LLVM assembly syntax in [`syntax`],
//! swizzle patterns in [`swizzle`], the table's markdown documentation in [`doc`]).
//!
//! Facts come from AMD's "RDNA3 Instruction Set Architecture Reference Guide" (chapter "Microcode
//! Formats", DS; chapter "Instructions", LDS & GDS instructions) and are checked against LLVM 19's
//! gfx11 assembler and disassembler (every target of the generation). Nothing outside [`table`] names an opcode number.

use serde::Serialize;

pub mod doc;
pub mod encode;
mod oracle;
pub mod swizzle;
pub mod syntax;

pub use doc::{render_markdown, render_markdown_in};
pub use encode::{DecodeError, DsInst, EncodeError, InstError};
pub use oracle::{GenerationAlias, Oracle};

/// Expands the table rows of `table.rs` into [`DsOp`] and [`DS_TABLE`].
macro_rules! ds_table {
    ($( ($v:ident, $name:literal, $o11:tt, $o12:tt, $vd:literal, $a:literal, $d0:literal,
         $d1:literal, $off:ident, $gds:ident, $fam:expr, $elem:ident, $legacy:expr, $hip:expr,
         $oracle:ident) ),* $(,)?) => {
        /// A DS op of some generation: one variant per row of the DS table, in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DsOp { $($v),* }

        /// The DS table: one row per op of any generation; `DS_TABLE[op as usize].op == op`.
        pub static DS_TABLE: &[$crate::isa::OpInfo] = &[
            $($crate::isa::OpInfo {
                op: DsOp::$v,
                name: $name,
                opcodes: [ds_table!(@opc $o11), ds_table!(@opc $o12)],
                operands: $crate::isa::Operands { vdst: $vd, addr: $a, data0: $d0, data1: $d1 },
                offset: $crate::isa::OffsetForm::$off,
                gds: $crate::isa::Gds::$gds,
                family: $fam,
                elem: $crate::isa::Elem::$elem,
                legacy_name: $legacy,
                hip_unsupported: $hip,
                oracle: ds_table!(@oracle $oracle),
            }),*
        ];
    };
    (@opc __) => { None };
    (@oracle L19) => { $crate::isa::Oracle::Llvm19 };
    (@oracle L22) => { $crate::isa::Oracle::Llvm22 };
    (@opc $o:literal) => { Some($o) };
}

mod table;
pub use table::{DsOp, DS_TABLE, GENERATION_ALIASES};

pub use crate::target::Generation;

/// The gfx11 rows of the DS table (the first rows, in gfx11 opcode order): what the commands use
/// until they take a `--target`.
pub static DS_OPS: &[OpInfo] = {
    let mut n = 0;
    while n < DS_TABLE.len() && DS_TABLE[n].opcodes[0].is_some() {
        n += 1;
    }
    DS_TABLE.split_at(n).0
};

/// One row of the DS table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OpInfo {
    /// The enum value of this row.
    #[serde(skip)]
    pub op: DsOp,
    /// The mnemonic (ISA guide, DS opcode list; LLVM's spelling), the same in every generation
    /// that has the op.
    pub name: &'static str,
    /// The 8-bit `OP` field, bits [25:18], per [`Generation`] (`None`: the generation lacks the op).
    /// Serialised as `{"gfx11": n or null, "gfx12": n or null}`.
    #[serde(serialize_with = "opcodes_by_generation")]
    pub opcodes: [Option<u8>; 2],
    /// The VGPR operands and their widths (ISA guide, instruction descriptions).
    pub operands: Operands,
    /// How the two offset bytes are read (ISA guide, DS format: OFFSET0, OFFSET1).
    pub offset: OffsetForm,
    /// Whether the GDS bit (bit 17) may, must or must not be set on gfx11 (gfx12 has no GDS bit:
    /// see [`OpInfo::gds_in`]).
    pub gds: Gds,
    /// The semantics family, dispatched on by the model.
    pub family: Family,
    /// The element type the family works on (from the mnemonic's type suffix).
    pub elem: Elem,
    /// The older mnemonic that LLVM still accepts as input in every generation of the op, printed
    /// as the row's name (aliases of one generation only are in [`GENERATION_ALIASES`]).
    pub legacy_name: Option<&'static str>,
    /// `None` when a HIP compute kernel can run the op; otherwise why it cannot.
    pub hip_unsupported: Option<&'static str>,
    /// Which LLVM confirms the row (19, or only 22).
    pub oracle: Oracle,
}

fn opcodes_by_generation<S: serde::Serializer>(
    opcodes: &[Option<u8>; 2],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(opcodes.len()))?;
    for g in Generation::ALL {
        m.serialize_entry(g.name(), &opcodes[g as usize])?;
    }
    m.end()
}

/// The VGPR operands of an op, in LLVM's operand order (vdst, addr, data0, data1), as dword counts.
/// A count of 0 means the field is unused and must encode as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Operands {
    /// Dwords written to VDST (the op returns a value when non-zero).
    pub vdst: u8,
    /// 1 when the op reads a per-lane byte address from ADDR, else 0.
    pub addr: u8,
    /// Dwords read from DATA0.
    pub data0: u8,
    /// Dwords read from DATA1.
    pub data1: u8,
}

impl Operands {
    /// The dword count of `field`.
    pub fn dwords(&self, field: Field) -> u8 {
        match field {
            Field::Vdst => self.vdst,
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
        }
    }
}

/// A register field of the DS encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Field {
    /// VDST, bits [63:56].
    Vdst,
    /// ADDR, bits [39:32].
    Addr,
    /// DATA0, bits [47:40].
    Data0,
    /// DATA1, bits [55:48].
    Data1,
}

impl Field {
    /// All register fields, in LLVM's operand order.
    pub const ALL: [Field; 4] = [Field::Vdst, Field::Addr, Field::Data0, Field::Data1];

    /// The field's name as the ISA guide writes it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Vdst => "vdst",
            Field::Addr => "addr",
            Field::Data0 => "data0",
            Field::Data1 => "data1",
        }
    }
}

/// How OFFSET0 (bits [7:0]) and OFFSET1 (bits [15:8]) are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OffsetForm {
    /// One unsigned 16-bit byte offset, `offset:N` (OFFSET1 is the high byte).
    Single,
    /// Two 8-bit offsets `offset0:N offset1:M`, each in units of the element size.
    Pair,
    /// Two 8-bit offsets, each in units of 64 x the element size (`_stride64`).
    Stride64,
    /// The 16-bit offset is a lane-swizzle pattern (`offset:swizzle(...)`).
    Swizzle,
    /// No offset: both bytes must be zero.
    NoOffset,
}

/// Whether the GDS bit may be set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Gds {
    /// LDS only (`gds` is rejected).
    Forbidden,
    /// LDS by default, GDS with `gds`.
    Allowed,
    /// Always GDS (`gds` must be written).
    Required,
}

/// Whether a D16 load or store works on the low or high half of the 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum D16 {
    /// A full-register load or store.
    No,
    /// Load into bits [15:0], keeping bits [31:16] of vdst.
    Lo,
    /// Load into (or store from) bits [31:16], keeping bits [15:0] of vdst.
    Hi,
}

/// The update of an atomic read-modify-write (ISA guide, LDS & GDS instructions). Signedness and
/// float-ness come from the row's [`Elem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Rmw {
    /// `mem + data0` (integer wrap-around, or float add for F32).
    Add,
    /// `mem - data0`.
    Sub,
    /// `data0 - mem`.
    Rsub,
    /// `mem >= data0 ? 0 : mem + 1`.
    Inc,
    /// `mem == 0 || mem > data0 ? data0 : mem - 1`.
    Dec,
    /// Minimum (signed, unsigned or float by element type).
    Min,
    /// Maximum (signed, unsigned or float by element type).
    Max,
    /// `mem & data0`.
    And,
    /// `mem | data0`.
    Or,
    /// `mem ^ data0`.
    Xor,
    /// `(mem & !data0) | data1`.
    Mskor,
    /// `data0` (store-exchange; two addresses with a pair offset form).
    Xchg,
    /// `mem == data1 ? data0 : mem` (gfx11 order: data0 is the new value, data1 the compare).
    CmpStore,
    /// `mem >= data0 ? mem - data0 : mem + data1`.
    Wrap,
    /// IEEE 754-2019 minimumNumber (gfx12 `ds_min_num_*`): a NaN loses to a number, -0 < +0.
    MinNum,
    /// IEEE 754-2019 maximumNumber (gfx12 `ds_max_num_*`).
    MaxNum,
    /// `mem >= data0 ? mem - data0 : mem` (gfx12 `ds_cond_sub_*`).
    CondSub,
    /// `mem < data0 ? 0 : mem - data0` (gfx12 `ds_sub_clamp_*`).
    SubClamp,
}

/// The three gfx12 BVH stack forms: how many DATA1 dwords are candidates and how many values are
/// returned (RDNA4 ISA guide, 16.15, DS_BVH_STACK_PUSH*_POP*_RTN_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bvh {
    /// Pushes up to 3 of DATA1[0..3], returns DATA1[3] or pops one.
    Push4Pop1,
    /// Pushes up to 7 of DATA1[0..7], returns DATA1[7] or pops one.
    Push8Pop1,
    /// As Push8Pop1, then tries a second pop into the high dword.
    Push8Pop2,
}

impl Bvh {
    /// DATA1 dwords read (the last is the return candidate).
    pub fn data_dwords(self) -> usize {
        match self {
            Bvh::Push4Pop1 => 4,
            Bvh::Push8Pop1 | Bvh::Push8Pop2 => 8,
        }
    }

    /// Values returned (dwords of VDST).
    pub fn pops(self) -> usize {
        match self {
            Bvh::Push4Pop1 | Bvh::Push8Pop1 => 1,
            Bvh::Push8Pop2 => 2,
        }
    }
}

/// The semantics family of an op: what the model dispatches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Family {
    /// Atomic read-modify-write of one element; returns the old value when the op has a vdst.
    Rmw(Rmw),
    /// Load of one element (two with a pair offset form).
    Load(D16),
    /// Store of one element (two with a pair offset form).
    Store(D16),
    /// 64-bit conditional exchange of two 32-bit halves, each by the sign bit of its new value.
    CondXchg32,
    /// Lane swizzle within the wave (no LDS access).
    Swizzle,
    /// Forward permute: lane i writes its data to the lane named by its address.
    Permute,
    /// Backward permute: lane i reads the data of the lane named by its address.
    Bpermute,
    /// Backward permute that reads the source lane even when it is outside EXEC (gfx12).
    BpermuteFi,
    /// Store at `M0[15:0] + offset + lane_id * 4` (no address operand).
    StoreAddTid,
    /// Load from `M0[15:0] + offset + lane_id * 4` (no address operand).
    LoadAddTid,
    /// Append: add popcount(EXEC) to the counter at `M0[15:0] + offset`; returns the old value.
    Append,
    /// Consume: subtract popcount(EXEC) from the counter; returns the old value.
    Consume,
    /// Ray-tracing BVH traversal short stack (updates the addr register too).
    BvhStack,
    /// The gfx12 BVH stack push/pop forms (update the addr register too).
    BvhPushPop(Bvh),
    /// No operation.
    Nop,
    /// Global wave sync (GDS only).
    Gws,
    /// Ordered count (GDS only).
    OrderedCount,
    /// Geometry-shader register add/sub (GDS only).
    GsReg,
}

/// The element type an op works on, from its mnemonic's suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Elem {
    /// No data (ds_nop, GWS semaphores).
    None,
    /// 8 bits, untyped.
    B8,
    /// 8 bits, zero-extended.
    U8,
    /// 8 bits, sign-extended.
    I8,
    /// 16 bits, untyped.
    B16,
    /// 16 bits, zero-extended.
    U16,
    /// 16 bits, sign-extended.
    I16,
    /// 32 bits, untyped.
    B32,
    /// 32 bits, unsigned.
    U32,
    /// 32 bits, signed.
    I32,
    /// IEEE binary32.
    F32,
    /// 64 bits, untyped.
    B64,
    /// 64 bits, unsigned.
    U64,
    /// 64 bits, signed.
    I64,
    /// IEEE binary64.
    F64,
    /// Two IEEE binary16 in one dword (low half first).
    F16x2,
    /// Two bfloat16 in one dword (low half first).
    Bf16x2,
    /// 96 bits.
    B96,
    /// 128 bits.
    B128,
}

impl Elem {
    /// Size of one element in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Elem::None => 0,
            Elem::B8 | Elem::U8 | Elem::I8 => 1,
            Elem::B16 | Elem::U16 | Elem::I16 => 2,
            Elem::B32 | Elem::U32 | Elem::I32 | Elem::F32 | Elem::F16x2 | Elem::Bf16x2 => 4,
            Elem::B64 | Elem::U64 | Elem::I64 | Elem::F64 => 8,
            Elem::B96 => 12,
            Elem::B128 => 16,
        }
    }

    /// The mnemonic suffix of this type (`"u32"`, `"f64"`, ...).
    pub fn suffix(self) -> &'static str {
        match self {
            Elem::None => "",
            Elem::B8 => "b8",
            Elem::U8 => "u8",
            Elem::I8 => "i8",
            Elem::B16 => "b16",
            Elem::U16 => "u16",
            Elem::I16 => "i16",
            Elem::B32 => "b32",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::F32 => "f32",
            Elem::B64 => "b64",
            Elem::U64 => "u64",
            Elem::I64 => "i64",
            Elem::F64 => "f64",
            Elem::F16x2 => "f16",
            Elem::Bf16x2 => "bf16",
            Elem::B96 => "b96",
            Elem::B128 => "b128",
        }
    }

    /// Signed integer type (min/max compare signed; narrow loads sign-extend).
    pub fn is_signed(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }

    /// IEEE float type (binary32 or binary64).
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    /// Two 16-bit floats packed in a dword.
    pub fn is_packed16(self) -> bool {
        matches!(self, Elem::F16x2 | Elem::Bf16x2)
    }
}

/// Opcode -> row per generation, built once at compile time from the table.
static BY_OPCODE: [[Option<DsOp>; 256]; 2] = {
    let mut t = [[None; 256]; 2];
    let mut i = 0;
    while i < DS_TABLE.len() {
        let mut g = 0;
        while g < 2 {
            if let Some(opc) = DS_TABLE[i].opcodes[g] {
                t[g][opc as usize] = Some(DS_TABLE[i].op);
            }
            g += 1;
        }
        i += 1;
    }
    t
};

impl DsOp {
    /// This op's row of the DS table.
    pub fn info(self) -> &'static OpInfo {
        &DS_TABLE[self as usize]
    }

    /// The gfx11 op with the 8-bit `OP` field `opcode`.
    pub fn from_opcode(opcode: u8) -> Option<DsOp> {
        DsOp::from_opcode_in(Generation::Gfx11, opcode)
    }

    /// The op of generation `gen` with the 8-bit `OP` field `opcode`.
    pub fn from_opcode_in(gen: Generation, opcode: u8) -> Option<DsOp> {
        BY_OPCODE[gen as usize][opcode as usize]
    }

    /// The op spelled `name` (any case), in any generation: a row's own mnemonic first, then the
    /// older spellings LLVM accepts (so `ds_min_f32` is gfx11's op, not gfx12's `ds_min_num_f32`),
    /// then the spellings only some generations accept ([`GENERATION_ALIASES`]).
    pub fn from_name(name: &str) -> Option<DsOp> {
        DS_TABLE
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .or_else(|| {
                DS_TABLE
                    .iter()
                    .find(|r| r.legacy_name.is_some_and(|l| l.eq_ignore_ascii_case(name)))
            })
            .map(|r| r.op)
            .or_else(|| {
                GENERATION_ALIASES
                    .iter()
                    .find(|a| a.name.eq_ignore_ascii_case(name))
                    .map(|a| a.op)
            })
    }

    /// The op of generation `gen` spelled `name` (its mnemonic, an older spelling LLVM accepts in
    /// every generation of the op, or an alias LLVM accepts for `gen` alone; any case).
    pub fn from_name_in(gen: Generation, name: &str) -> Option<DsOp> {
        let rows = || DS_TABLE.iter().filter(move |r| r.in_generation(gen));
        rows()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .or_else(|| {
                rows().find(|r| r.legacy_name.is_some_and(|l| l.eq_ignore_ascii_case(name)))
            })
            .map(|r| r.op)
            .or_else(|| {
                GENERATION_ALIASES
                    .iter()
                    .find(|a| a.gen == gen && a.name.eq_ignore_ascii_case(name))
                    .map(|a| a.op)
            })
    }

    /// Every gfx11 op, in gfx11 opcode order.
    pub fn all() -> impl Iterator<Item = DsOp> {
        DS_OPS.iter().map(|r| r.op)
    }

    /// Every op of generation `gen`, in table order.
    pub fn all_in(gen: Generation) -> impl Iterator<Item = DsOp> {
        DS_TABLE
            .iter()
            .filter(move |r| r.in_generation(gen))
            .map(|r| r.op)
    }

    /// The mnemonic.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The op's 8-bit `OP` field in generation `gen`, if the generation has the op.
    pub fn opcode_in(self, gen: Generation) -> Option<u8> {
        self.info().opcodes[gen as usize]
    }
}

impl std::fmt::Display for DsOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl OpInfo {
    /// The op exists in generation `gen`.
    pub fn in_generation(&self, gen: Generation) -> bool {
        self.opcodes[gen as usize].is_some()
    }

    /// The op exists on `target`: the DS table's opcode column of its generation has it (the one
    /// place the model, the corpus and the CLI ask which ops a target has).
    pub fn on_target(&self, target: &crate::target::Target) -> bool {
        self.in_generation(target.generation)
    }

    /// The generations that have this op, oldest first.
    pub fn generations(&self) -> impl Iterator<Item = Generation> + '_ {
        Generation::ALL
            .into_iter()
            .filter(|&g| self.in_generation(g))
    }

    /// Whether the GDS bit may be set in generation `gen` (never on gfx12, which has no bit).
    pub fn gds_in(&self, gen: Generation) -> Gds {
        if gen.has_gds() {
            self.gds
        } else {
            Gds::Forbidden
        }
    }

    /// The op writes VDST.
    pub fn returns(&self) -> bool {
        self.operands.vdst > 0
    }

    /// A HIP compute kernel can run this op.
    pub fn hip_runnable(&self) -> bool {
        self.hip_unsupported.is_none()
    }

    /// Bytes one unit of `offset0`/`offset1` stands for (1 for the single 16-bit form).
    pub fn offset_scale(&self) -> u32 {
        match self.offset {
            OffsetForm::Pair => self.elem.bytes(),
            OffsetForm::Stride64 => 64 * self.elem.bytes(),
            OffsetForm::Single | OffsetForm::Swizzle | OffsetForm::NoOffset => 1,
        }
    }

    /// The op accesses two addresses (`_2addr`, with or without `_stride64`).
    pub fn two_addresses(&self) -> bool {
        matches!(self.offset, OffsetForm::Pair | OffsetForm::Stride64)
    }

    /// The op also writes its ADDR register (only the BVH stack ops, whose stack pointer is
    /// updated in place).
    pub fn writes_addr(&self) -> bool {
        matches!(self.family, Family::BvhStack | Family::BvhPushPop(_))
    }

    /// Each active lane accesses LDS at its own address (atomics, loads, stores, addtid, the BVH
    /// stack), so lanes of one instruction that hit one address are serialised in some order. Not
    /// the lane moves (swizzle, permutes), append/consume (once per wave), nop or GDS-only ops.
    pub fn per_lane_lds(&self) -> bool {
        matches!(
            self.family,
            Family::Rmw(_)
                | Family::Load(_)
                | Family::Store(_)
                | Family::CondXchg32
                | Family::StoreAddTid
                | Family::LoadAddTid
                | Family::BvhStack
                | Family::BvhPushPop(_)
        )
    }

    /// The op touches LDS memory (swizzle, permute and nop move no LDS data).
    pub fn accesses_lds(&self) -> bool {
        !matches!(
            self.family,
            Family::Swizzle | Family::Permute | Family::Bpermute | Family::BpermuteFi | Family::Nop
        )
    }
}

/// The gfx11 ops that a HIP compute kernel can run, in table order.
pub fn runnable_ops() -> impl Iterator<Item = DsOp> {
    DS_OPS.iter().filter(|r| r.hip_runnable()).map(|r| r.op)
}

/// The ops of generation `gen` that a HIP compute kernel can run, in table order.
pub fn runnable_ops_in(gen: Generation) -> impl Iterator<Item = DsOp> {
    DS_TABLE
        .iter()
        .filter(move |r| r.in_generation(gen) && r.hip_runnable())
        .map(|r| r.op)
}

/// The table's mnemonics closest to `name` (edit distance), best first: for "did you mean".
pub fn suggest(name: &str, max: usize) -> Vec<&'static str> {
    suggest_among(
        DS_TABLE.iter(),
        GENERATION_ALIASES.iter().map(|a| a.name),
        name,
        max,
    )
}

/// The mnemonics of generation `gen` closest to `name`, best first.
pub fn suggest_in(gen: Generation, name: &str, max: usize) -> Vec<&'static str> {
    let aliases = GENERATION_ALIASES
        .iter()
        .filter(|a| a.gen == gen)
        .map(|a| a.name);
    suggest_among(
        DS_TABLE.iter().filter(|r| r.in_generation(gen)),
        aliases,
        name,
        max,
    )
}

fn suggest_among<'a>(
    rows: impl Iterator<Item = &'a OpInfo>,
    aliases: impl Iterator<Item = &'static str>,
    name: &str,
    max: usize,
) -> Vec<&'static str> {
    let name = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &'static str)> = rows
        .flat_map(|r| std::iter::once(r.name).chain(r.legacy_name))
        .chain(aliases)
        .map(|n| (crate::text::edit_distance(&name, n), n))
        .collect();
    scored.sort();
    // Close enough to be a typo: a third of the name, at least 2 edits. Nothing is better
    // than a far-fetched guess.
    let limit = (name.len() / 3).max(2);
    scored
        .into_iter()
        .filter(|&(d, _)| d <= limit)
        .map(|(_, n)| n)
        .take(max)
        .collect()
}

#[cfg(test)]
mod tests;
