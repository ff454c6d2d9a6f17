//! The types a generation's non-DS facts are written in: where a format keeps its fields
//! ([`Bits`]), the SMEM, VOP3 and GLOBAL formats, which differ between generations
//! ([`SmemFormat`], [`Vop3Format`], [`GlobalFormat`]), the `s_waitcnt` immediate
//! ([`WaitcntLayout`]) and the scalar operand codes ([`OperandCodes`]). The values, with their
//! sources, are each generation's module's; the encoder and decoder (`crate::inst`) read them.
//! The SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2 and VOPC formats are the same in every generation
//! (each ISA guide's "Microcode Formats"): their constants are the codec's.

/// A field of an instruction: `bits` bits from bit `shift` of dword `word`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits {
    /// The dword (0 first).
    pub word: usize,
    /// The field's lowest bit within the dword.
    pub shift: u32,
    /// The field's width.
    pub bits: u32,
}

impl Bits {
    /// `bits` bits from bit `shift` of dword `word`.
    pub const fn at(word: usize, shift: u32, bits: u32) -> Bits {
        Bits { word, shift, bits }
    }

    /// The field's bits within its dword.
    pub const fn mask(self) -> u32 {
        (((1u64 << self.bits) - 1) << self.shift) as u32
    }

    /// The largest value the field holds.
    pub const fn max(self) -> u32 {
        ((1u64 << self.bits) - 1) as u32
    }

    /// The field's value in `words`.
    pub fn get(self, words: &[u32]) -> u32 {
        (words[self.word] & self.mask()) >> self.shift
    }

    /// The field's value in `words`, sign-extended.
    pub fn get_signed(self, words: &[u32]) -> i32 {
        let up = 32 - self.bits;
        ((self.get(words) << up) as i32) >> up
    }

    /// Writes `value` (cut to the field's width) into `words`.
    pub fn put(self, words: &mut [u32], value: u32) {
        words[self.word] |= (value << self.shift) & self.mask();
    }

    /// A signed `value` fits the field.
    pub fn fits_signed(self, value: i64) -> bool {
        let half = 1i64 << (self.bits - 1);
        (-half..half).contains(&value)
    }
}

/// The `s_waitcnt` immediate (SOPP `S_WAITCNT`): where each counter's field sits. A counter at
/// its field's largest value does not wait. Bits no field covers are unused: the encoder refuses
/// them and the decoder rejects them ([`WaitcntLayout::unused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitcntLayout {
    /// VM_CNT, in pieces, its lowest bits first.
    pub vm: &'static [Bits],
    /// EXP_CNT.
    pub exp: Bits,
    /// LGKM_CNT.
    pub lgkm: Bits,
}

impl WaitcntLayout {
    /// The bits of the immediate no counter uses.
    pub fn unused(&self) -> u16 {
        let used = self
            .vm
            .iter()
            .chain([&self.exp, &self.lgkm])
            .fold(0, |m, f| m | f.mask());
        !(used as u16)
    }

    /// VM_CNT's largest value (no wait).
    pub fn vm_max(&self) -> u32 {
        let bits: u32 = self.vm.iter().map(|f| f.bits).sum();
        (1 << bits) - 1
    }
}

/// The codes of the scalar operands that differ between generations (the ISA guides'
/// "Scalar and vector operands" tables); every other code is the same in all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandCodes {
    /// The code of `m0`.
    pub m0: u16,
    /// The code of `null` (`None`: the generation has no `null`).
    pub null: Option<u16>,
    /// The number of SGPRs (`s0` to `s{sgprs - 1}`).
    pub sgprs: u8,
    /// Codes (inclusive ranges) of registers this crate does not model (the template never
    /// names them): decoded as nothing.
    pub unmodelled: &'static [(u16, u16)],
    /// The SADDR code of `off` (no SGPR base) in GLOBAL and the SOFFSET code of "no SGPR offset"
    /// in SMEM.
    pub off: u8,
}

/// How an SMEM instruction adds an SGPR to its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmemOffset {
    /// An SOFFSET field beside the immediate offset, `off` ([`OperandCodes::off`]) for none.
    Soffset(Bits),
    /// gfx9's: an IMM bit says the offset field is an immediate (else its low byte is the SGPR
    /// offset's code), and an SOE bit adds the SGPR in SOFFSET to the immediate.
    ImmSoe {
        /// The IMM bit of the first dword.
        imm: u32,
        /// The SOE bit of the first dword.
        soe: u32,
        /// SOFFSET (with SOE).
        soffset: Bits,
        /// The SGPR offset's code (without IMM).
        sgpr: Bits,
    },
}

/// The SMEM format (scalar loads through the constant cache), two dwords: every bit of it that no
/// field covers is a cache-policy or reserved bit the template never sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemFormat {
    /// Bits [31:26] of the first dword.
    pub prefix: u32,
    /// The opcode.
    pub op: Bits,
    /// SDATA: the first SGPR loaded.
    pub sdata: Bits,
    /// SBASE: the SGPR pair of the base address, in pairs.
    pub sbase: Bits,
    /// The signed immediate byte offset.
    pub offset: Bits,
    /// How an SGPR offset is added.
    pub soffset: SmemOffset,
    /// With neither offset LLVM prints `null` (else the zero immediate `0x0`).
    pub prints_null: bool,
    /// With an SGPR offset LLVM prints the immediate even when it is zero (`s2 offset:0x0`).
    pub prints_zero_offset: bool,
}

/// The VOP3 format (two dwords: VDST [7:0], modifiers [15:8], the opcode, SRC0-2 in the second
/// dword at 9 bits each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vop3Format {
    /// Bits [31:26] of the first dword.
    pub prefix: u32,
    /// The opcode.
    pub op: Bits,
    /// A source may be a literal (the dword after the instruction).
    pub literal: bool,
    /// The distinct scalar registers one instruction may read (the constant bus), where the
    /// encoder holds it (`None`: not checked here; the template reads at most one).
    pub scalar_reads: Option<usize>,
}

/// The GLOBAL format (vector memory with a flat address; SADDR an SGPR pair base or `off`):
/// every bit no field covers is a cache-policy or reserved bit the template never sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalFormat {
    /// Its length in dwords.
    pub dwords: usize,
    /// The bits that name the format, and their value.
    pub prefix: (Bits, u32),
    /// The segment field, and its value for GLOBAL (`None`: the format is GLOBAL only).
    pub seg: Option<(Bits, u32)>,
    /// The opcode.
    pub op: Bits,
    /// The signed immediate byte offset.
    pub offset: Bits,
    /// The offsets the template's instructions may have (signed bits): no wider than
    /// [`GlobalFormat::offset`].
    pub offset_range: u32,
    /// SADDR.
    pub saddr: Bits,
    /// VADDR.
    pub vaddr: Bits,
    /// DATA (a store's data).
    pub data: Bits,
    /// VDST (a load's destination).
    pub vdst: Bits,
}

impl GlobalFormat {
    /// The bits of dword `word` that no field covers.
    pub fn reserved(&self, word: usize) -> u32 {
        let mut fields = vec![
            self.prefix.0,
            self.op,
            self.offset,
            self.saddr,
            self.vaddr,
            self.data,
            self.vdst,
        ];
        fields.extend(self.seg.map(|s| s.0));
        !fields
            .iter()
            .filter(|f| f.word == word)
            .fold(0, |m, f| m | f.mask())
    }
}
