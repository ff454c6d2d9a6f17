//! The field types of the DS table's rows: operand widths and register fields, offset forms,
//! the gds rule, and the semantics (family, update, element type) the model dispatches on.
//!
//! Facts: AMD's RDNA3 and RDNA4 ISA guides (DS microcode format, instruction descriptions) and,
//! for gfx9 and gfx10, LLVM's `DSInstructions.td` and AMD's Vega, CDNA and RDNA1/2 guides; each
//! row's values are the table's (`table.rs`), checked against LLVM by the oracle tests.

use serde::Serialize;

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

    /// The bit range of the field's byte in the instruction word, as the ISA guide writes it.
    pub fn bits(self) -> &'static str {
        match self {
            Field::Addr => "[39:32]",
            Field::Data0 => "[47:40]",
            Field::Data1 => "[55:48]",
            Field::Vdst => "[63:56]",
        }
    }

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
    /// gfx9/gfx10 `ds_*_src2_*`: the update of [`Rmw`] (`Xchg` for `ds_write_src2_*`) of the
    /// element at the lane's address A, with its second operand read from LDS at an address B
    /// derived from ADDR and the offset instead of a register (AMD "Vega" ISA guide, DS opcodes
    /// `DS_ADD_SRC2_U32` and on: B = A + 4 * offset-derived stride). Not yet modelled.
    Src2(Rmw),
    /// The transpose loads (CDNA 4's `ds_read_b64_tr_b4/b8/b16`, `ds_read_b96_tr_b6`; gfx12.5's
    /// `ds_load_tr4_b64/tr6_b96/tr8_b64/tr16_b128`): each lane reads its own row (VDST's width)
    /// at its own address, and the rows of a lane group are redistributed by the row's [`Tr`].
    LoadTranspose(Tr),
    /// gfx12.5's barrier arrives (`ds_atomic_barrier_arrive_rtn_b64`: DATA0 arrivals, the old
    /// 64-bit barrier word returned; `ds_atomic_async_barrier_arrive_b64`: one arrival, after the
    /// wave's earlier asynchronous loads, nothing returned) on a 64-bit LDS barrier object
    /// (pending count, phase, reload count).
    BarrierArrive,
}

/// How a transpose load redistributes the rows its lanes read: the element width, the lane map,
/// what EXEC does, and whether VDST may start at an odd VGPR where the target otherwise needs
/// even tuples. The values are the DS table's rows (`table.rs`, with their sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Tr {
    /// Bits per transposed element (4, 6, 8 or 16).
    pub bits: u8,
    /// Which lane's row, and which element of it, lands in each lane.
    pub map: TrMap,
    /// What a lane off in EXEC does.
    pub exec: TrExec,
    /// VDST may start at an odd VGPR even on a target that needs even tuples (LLVM gives the
    /// op's register class no alignment).
    pub odd_start: bool,
}

/// A transpose load's lane map: where element n of lane l comes from, with g the first lane of
/// l's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TrMap {
    /// 16-lane groups, 8-byte rows, 16-bit elements: halfword n (0..3) of lane l is halfword
    /// `l & 3` of the row of lane `g + ((l >> 2) & 3) + 4n`.
    Groups16Quads,
    /// 16-lane groups, 8-byte rows, bytes: byte n (0..7) of lane l is byte `l & 7` of the row of
    /// lane `g + ((l >> 3) & 1) + 2n`.
    Groups16Pairs,
    /// 8-lane groups, 16-byte rows, 16-bit elements, a plain 8x8 transpose: halfword n (0..7) of
    /// lane l is halfword `l & 7` of the row of lane `g + n`.
    Groups8,
    /// 16-lane groups, 8-byte rows, bytes, two runs of four rows: byte n (0..7) of lane l is byte
    /// `l & 7` of the row of lane `g + 4 * ((l >> 3) & 1) + (n & 3) + 8 * (n >> 2)`.
    Groups16Runs4,
    /// No sourced map (the 4- and 6-bit forms): run, never judged.
    Unsourced,
}

/// What EXEC does to a transpose load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TrExec {
    /// EXEC must be all ones (CDNA 4): with a lane off the result is not defined.
    AllOnes,
    /// Any set EXEC bit makes every lane take part (each reads its row and receives its
    /// result); EXEC zero leaves VDST unchanged (gfx12.5).
    AnySet,
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
