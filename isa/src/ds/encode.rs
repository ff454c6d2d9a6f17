//! The 64-bit DS encoding, both ways, per instruction set ([`Isa`]: a generation and a target's
//! features).
//!
//! Layout (RDNA3 ISA guide, "Microcode Formats", DS): OFFSET0 [7:0], OFFSET1 [15:8], bit 16
//! reserved, GDS [17], OP [25:18], ENCODING [31:26] = 0b110110, ADDR [39:32], DATA0 [47:40],
//! DATA1 [55:48], VDST [63:56]. gfx10 is the same (`llvm-mc-19 -mcpu=` every gfx10 row). gfx9
//! (AMD "Vega" and "CDNA3" ISA guides, "Microcode Formats", DS; `llvm-mc-19` and `-22`) moves GDS
//! to bit 16 and OP to [24:17]; bit 25 is ACC on targets with the `acc` feature (VDST and DATA
//! name AccVGPRs), reserved elsewhere. gfx12 (RDNA4 ISA guide, "Microcode Formats", VDS) keeps
//! gfx11's layout but has no GDS bit: `llvm-mc-19` rejects `gds` for the gfx12 targets ("gds
//! modifier is not supported on this GPU") and will not disassemble a word with bit 17 set, and
//! so neither do we. [`Generation::ds_layout`](crate::gen::Generation::ds_layout) says where each generation keeps its bits.
//!
//! Register fields an op does not use must be zero, as must the offset bytes of an op without an
//! offset (LLVM's disassembler rejects both). A tuple's first register is the field's (v0..v255);
//! it may run up to the generation's last VGPR (`Spec::vgprs`: v255, gfx12.5's v1023, where
//! `llvm-mc-22` reads `ds_load_b128 v[254:257]`). LLVM ignores the reserved bit when disassembling
//! (bit 16, or gfx9's bit 25 on a target without `acc`); this decoder rejects it, since no
//! assembler sets it. On targets without the `unaligned-tuples` feature a register tuple (and a GWS
//! data register) starts at an even register: `llvm-mc` refuses the text ("vgpr tuples must be 64
//! bit aligned"), LLVM 19's disassembler prints the word anyway and LLVM 22's marks it "Invalid
//! register"; this decoder refuses it. The one exception is a row's (`OpInfo::any_start`): gfx12.5's
//! `ds_load_tr6_b96` VDST, which `llvm-mc-22` reads and prints at an odd register.
//!
//! One placement quirk, measured with `llvm-mc-19` for gfx9, gfx10 and gfx11: the GWS ops that
//! take a value (`ds_gws_init`, `ds_gws_sema_br`, `ds_gws_barrier`) name it DATA0, as the ISA
//! guides do, but encode that register in the ADDR byte [39:32]; the DATA0 byte stays zero. The
//! table keeps the operand's name (data0); [`field_shift`] says where each field's byte sits.

use super::{DsFeatures, DsOp, Family, Field, Gds, Isa, OffsetForm, OpInfo};
use crate::error::{DecodeError, InstError};
use serde::{Deserialize, Serialize};

/// Bits [31:26] of every DS instruction.
pub const DS_ENCODING: u64 = 0b110110;

/// One DS instruction: an op and its fields, as encoded (register numbers are first VGPRs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DsInst {
    /// The operation (OP field).
    #[serde(with = "op_by_name")]
    pub op: DsOp,
    /// First VGPR of VDST.
    pub vdst: u8,
    /// VGPR holding the byte address.
    pub addr: u8,
    /// First VGPR of DATA0.
    pub data0: u8,
    /// First VGPR of DATA1.
    pub data1: u8,
    /// OFFSET0 (low byte of a 16-bit offset).
    pub offset0: u8,
    /// OFFSET1 (high byte of a 16-bit offset).
    pub offset1: u8,
    /// GDS bit.
    pub gds: bool,
    /// ACC bit (gfx9 targets with the `acc` feature): VDST, DATA0 and DATA1 name AccVGPRs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acc: bool,
}

/// Serialises a [`DsOp`] as its row's mnemonic (the DS table's name of the op).
pub mod op_by_name {
    use super::DsOp;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    /// Writes the mnemonic.
    pub fn serialize<S: Serializer>(op: &DsOp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(op.name())
    }

    /// Reads a mnemonic (the row's, an older or another generation's spelling).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DsOp, D::Error> {
        let name = String::deserialize(d)?;
        DsOp::from_name(&name).ok_or_else(|| {
            let near = super::super::suggest(&name, 3);
            D::Error::custom(format!(
                "unknown DS op `{name}`{}",
                if near.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", near.join(", "))
                }
            ))
        })
    }
}

impl DsInst {
    /// `op` with every field zero.
    pub fn new(op: DsOp) -> DsInst {
        DsInst {
            op,
            vdst: 0,
            addr: 0,
            data0: 0,
            data1: 0,
            offset0: 0,
            offset1: 0,
            gds: false,
            acc: false,
        }
    }

    /// This instruction's table row.
    pub fn info(&self) -> &'static OpInfo {
        self.op.info()
    }

    /// The two offset bytes as one 16-bit value (OFFSET1 high).
    pub fn offset16(&self) -> u16 {
        u16::from_le_bytes([self.offset0, self.offset1])
    }

    /// Sets both offset bytes from a 16-bit value.
    pub fn with_offset16(mut self, offset: u16) -> DsInst {
        [self.offset0, self.offset1] = offset.to_le_bytes();
        self
    }

    /// The register number in `field`.
    pub fn reg(&self, field: Field) -> u8 {
        match field {
            Field::Vdst => self.vdst,
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
        }
    }

    /// Sets the register number in `field`.
    pub fn set_reg(&mut self, field: Field, value: u8) {
        match field {
            Field::Vdst => self.vdst = value,
            Field::Addr => self.addr = value,
            Field::Data0 => self.data0 = value,
            Field::Data1 => self.data1 = value,
        }
    }

    /// Checks that the fields fit the op in the instruction set `isa` (a target's, or a
    /// generation's: [`Isa`]): the generation has the op and the target its features, unused
    /// fields are zero, tuples stay within v255 (and start even where the target needs it),
    /// `gds` and `acc` are legal, no offset on an op without one.
    pub fn validate(&self, isa: impl Into<Isa>) -> Result<(), InstError> {
        let isa = isa.into();
        let gen = isa.gen;
        let info = self.info();
        if !info.in_generation(gen) {
            return Err(InstError::NotInGeneration { op: self.op, gen });
        }
        if !info.on(isa) {
            return Err(InstError::NotOnTarget { op: self.op, isa });
        }
        for field in Field::ALL {
            let dwords = info.operands.dwords(field);
            let value = self.reg(field);
            if dwords == 0 && value != 0 {
                return Err(InstError::UnusedField {
                    op: self.op,
                    field,
                    value,
                    gen,
                });
            }
            if dwords > 0 && u32::from(value) + u32::from(dwords) > u32::from(gen.spec().vgprs) {
                return Err(InstError::RegisterRange {
                    op: self.op,
                    field,
                    first: value,
                    dwords,
                    gen,
                });
            }
        }
        if !isa.has(DsFeatures::UNALIGNED) {
            for field in Field::ALL {
                let dwords = info.operands.dwords(field);
                let gws_data = info.family == Family::Gws && field == Field::Data0;
                let needs_even =
                    (dwords > 1 || (dwords == 1 && gws_data)) && !info.any_start(field);
                if needs_even && self.reg(field) % 2 == 1 {
                    return Err(InstError::Misaligned {
                        op: self.op,
                        field,
                        first: self.reg(field),
                        isa,
                    });
                }
            }
        }
        if self.gds && !gen.has_gds() {
            return Err(InstError::NoGdsBit { op: self.op, gen });
        }
        match (info.gds_in(gen), info.gds_on(isa), self.gds) {
            (Gds::Allowed, Gds::Forbidden, true) => {
                return Err(InstError::NoGds { op: self.op, isa })
            }
            (_, Gds::Forbidden, true) => return Err(InstError::GdsForbidden { op: self.op, gen }),
            (_, Gds::Required, false) => return Err(InstError::GdsRequired { op: self.op, gen }),
            _ => {}
        }
        if self.acc && !(isa.has(DsFeatures::ACC) && info.acc_capable()) {
            return Err(InstError::Acc { op: self.op, isa });
        }
        if info.offset == OffsetForm::NoOffset && self.offset16() != 0 {
            return Err(InstError::OffsetNotAllowed { op: self.op, gen });
        }
        Ok(())
    }

    /// The 64-bit instruction word in the instruction set `isa` (a target, or a generation).
    pub fn encode(&self, isa: impl Into<Isa>) -> Result<u64, InstError> {
        let isa = isa.into();
        self.validate(isa)?;
        let layout = isa.gen.ds_layout();
        let info = self.info();
        let opcode = info.opcodes[isa.gen.column()].expect("validated: the generation has the op");
        let regs = Field::ALL
            .into_iter()
            .filter(|&f| info.operands.dwords(f) > 0)
            .fold(0, |w, f| w | u64::from(self.reg(f)) << field_shift(info, f));
        let acc = match layout.acc_bit {
            Some(bit) if self.acc => 1 << bit,
            _ => 0,
        };
        Ok(u64::from(self.offset0)
            | u64::from(self.offset1) << 8
            | u64::from(self.gds) << layout.gds_bit
            | u64::from(opcode) << layout.op_shift
            | acc
            | DS_ENCODING << 26
            | regs)
    }

    /// The instruction of the instruction set `isa` as 8 little-endian bytes.
    pub fn to_bytes(&self, isa: impl Into<Isa>) -> Result<[u8; 8], InstError> {
        self.encode(isa).map(u64::to_le_bytes)
    }

    /// Decodes a 64-bit instruction word of the instruction set `isa` (a target, or a
    /// generation).
    pub fn decode(isa: impl Into<Isa>, word: u64) -> Result<DsInst, DecodeError> {
        let isa = isa.into();
        let gen = isa.gen;
        let layout = gen.ds_layout();
        let encoding = ((word >> 26) & 0x3f) as u8;
        if u64::from(encoding) != DS_ENCODING {
            return Err(DecodeError::NotDs { encoding });
        }
        let opcode = ((word >> layout.op_shift) & 0xff) as u8;
        let op = DsOp::from_opcode(gen, opcode).ok_or(DecodeError::UnknownOpcode(opcode, gen))?;
        if !op.info().on(isa) {
            return Err(InstError::NotOnTarget { op, isa }.into());
        }
        let acc_bit = layout.acc_bit.filter(|_| isa.has(DsFeatures::ACC));
        if acc_bit != Some(layout.reserved_bit) && word & (1 << layout.reserved_bit) != 0 {
            return Err(DecodeError::ReservedBit(layout.reserved_bit));
        }
        let byte = |shift: u32| (word >> shift) as u8;
        let info = op.info();
        let mut inst = DsInst::new(op);
        inst.offset0 = byte(0);
        inst.offset1 = byte(8);
        inst.gds = word & (1 << layout.gds_bit) != 0;
        inst.acc = acc_bit.is_some_and(|bit| word & (1 << bit) != 0);
        let used: Vec<Field> = Field::ALL
            .into_iter()
            .filter(|&f| info.operands.dwords(f) > 0)
            .collect();
        for &f in &used {
            inst.set_reg(f, byte(field_shift(info, f)));
        }
        // Every register byte that no used field occupies must be zero; name it by its own field.
        for f in Field::ALL {
            let shift = field_shift_plain(f);
            let value = byte(shift);
            if value != 0 && !used.iter().any(|&u| field_shift(info, u) == shift) {
                return Err(InstError::UnusedField {
                    op,
                    field: f,
                    value,
                    gen,
                }
                .into());
            }
        }
        inst.validate(isa)?;
        Ok(inst)
    }

    /// Decodes 8 little-endian bytes of the instruction set `isa`.
    pub fn from_bytes(isa: impl Into<Isa>, bytes: [u8; 8]) -> Result<DsInst, DecodeError> {
        DsInst::decode(isa, u64::from_le_bytes(bytes))
    }
}

/// The bit position of `field`'s byte in the instruction word for the op `info`: the plain DS
/// layout, except that the GWS ops keep their data0 register in the ADDR byte.
pub fn field_shift(info: &OpInfo, field: Field) -> u32 {
    if field == Field::Data0 && info.family == Family::Gws {
        field_shift_plain(Field::Addr)
    } else {
        field_shift_plain(field)
    }
}

/// The bit position of the byte named `field` in the DS format.
fn field_shift_plain(field: Field) -> u32 {
    match field {
        Field::Addr => 32,
        Field::Data0 => 40,
        Field::Data1 => 48,
        Field::Vdst => 56,
    }
}
