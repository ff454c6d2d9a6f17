//! The two AccVGPR moves an `acc` variant's kernel needs ([`AccMove`]: `v_accvgpr_write_b32 aN,
//! vM` and `v_accvgpr_read_b32 vN, aM`), their encoding on the targets whose DS encoding has
//! the acc bit, and the decoding of a target's code that knows them ([`decode_on`]; DS words
//! with the acc bit encode and decode by the target's features, `codec::encode(target, ..)`).
//!
//! Facts: the VOP3P encoding as `llvm-mc-19`/`-22 -show-encoding` write it for every target with
//! ACC each knows: `v_accvgpr_write_b32 a3, v17` is `03 40 d9 d3 11 01 00 18`,
//! `v_accvgpr_read_b32 v5, a9` is `05 40 d8 d3 09 01 00 18`: \[31:23\] = 0x1a7 (VOP3P), OP
//! \[22:16\] (0x58 read, 0x59 write), OP_SEL_HI\[2\] \[14\] set, VDST \[7:0\]; second dword SRC0
//! \[8:0\] = 256 + the register (a VGPR for write, an AccVGPR for read: the opcode says which
//! file), OP_SEL_HI\[1:0\] \[28:27\] set, every other bit zero (AMD's "CDNA3 ISA" guide, VOP3P
//! and the `V_ACCVGPR_*` opcodes). `kernels/tests/llvm_acc.rs` holds both directions to LLVM.
//! Only the VGPR <-> AccVGPR forms are modelled (no SGPR or constant source).

use super::Inst;
use crate::ds::Generation;
use crate::ds_features::DsFeatures;
use crate::error::{DecodeError, EncodeError};
use crate::target::Target;
use std::fmt;

/// Which way an [`AccMove`] copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccOp {
    /// `v_accvgpr_read_b32 vDST, aSRC`.
    Read,
    /// `v_accvgpr_write_b32 aDST, vSRC`.
    Write,
}

/// One AccVGPR move over the active lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AccMove {
    /// Read (AccVGPR to VGPR) or write (VGPR to AccVGPR).
    pub op: AccOp,
    /// The destination register's number (an AccVGPR for a write, a VGPR for a read).
    pub dst: u8,
    /// The source register's number (a VGPR for a write, an AccVGPR for a read).
    pub src: u8,
}

/// VOP3P's encoding bits \[31:23\].
const VOP3P: u32 = 0x1a7;
/// OP_SEL_HI\[2\] in the first dword, as LLVM sets it.
const OP_SEL_HI2: u32 = 1 << 14;
/// OP_SEL_HI\[1:0\] in the second dword, as LLVM sets them.
const OP_SEL_HI01: u32 = 3 << 27;

impl AccOp {
    /// The VOP3P opcode.
    fn opcode(self) -> u32 {
        match self {
            AccOp::Read => 0x58,
            AccOp::Write => 0x59,
        }
    }
}

impl AccMove {
    /// `v_accvgpr_write_b32 a<dst>, v<src>`.
    pub fn write(dst: u8, src: u8) -> AccMove {
        AccMove {
            op: AccOp::Write,
            dst,
            src,
        }
    }

    /// `v_accvgpr_read_b32 v<dst>, a<src>`.
    pub fn read(dst: u8, src: u8) -> AccMove {
        AccMove {
            op: AccOp::Read,
            dst,
            src,
        }
    }

    /// The two dwords.
    pub fn words(self) -> [u32; 2] {
        [
            VOP3P << 23 | self.op.opcode() << 16 | OP_SEL_HI2 | u32::from(self.dst),
            (256 + u32::from(self.src)) | OP_SEL_HI01,
        ]
    }

    /// The move the two dwords encode, if they are one (`None`: not a VOP3P AccVGPR move;
    /// `Some(Err)`: one with bits this crate does not model).
    pub fn from_words(w0: u32, w1: u32) -> Option<Result<AccMove, DecodeError>> {
        if w0 >> 23 != VOP3P {
            return None;
        }
        let op = match w0 >> 16 & 0x7f {
            0x58 => AccOp::Read,
            0x59 => AccOp::Write,
            _ => return None,
        };
        let m = AccMove {
            op,
            dst: w0 as u8,
            src: (w1 & 0xff) as u8,
        };
        if m.words() != [w0, w1] {
            return Some(Err(DecodeError::Unmodelled {
                word: w0,
                what: "an AccVGPR move with a modifier or a source that is not a register",
            }));
        }
        Some(Ok(m))
    }
}

impl fmt::Display for AccMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            AccOp::Write => write!(f, "v_accvgpr_write_b32 a{}, v{}", self.dst, self.src),
            AccOp::Read => write!(f, "v_accvgpr_read_b32 v{}, a{}", self.dst, self.src),
        }
    }
}

/// Some target of `gen` has AccVGPR operands for DS instructions (the target table's
/// `ds_features`): its kernels may move registers to and from AccVGPRs.
pub fn gen_has_acc(gen: Generation) -> bool {
    gen.targets()
        .any(|t| t.ds_features.contains(DsFeatures::ACC))
}

/// Encodes an AccVGPR move for generation `gen` (refused where no target has the acc bit).
pub(super) fn encode(gen: Generation, inst: &Inst, m: AccMove) -> Result<[u32; 2], EncodeError> {
    if !gen_has_acc(gen) {
        return Err(EncodeError::Operand {
            inst: inst.text(gen).to_string(),
            why: format!("{gen} has no AccVGPRs for DS operands (no target with ACC)"),
        });
    }
    Ok(m.words())
}

/// Decodes the instruction at the start of `bytes` as `target` executes it: AccVGPR moves only
/// where its `ds_features` have ACC, everything else as [`super::decode`] for the target (DS
/// words with its own features: the acc bit refused where it lacks ACC).
pub fn decode_on(target: &Target, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    if target.ds_features.contains(DsFeatures::ACC) && bytes.len() >= 8 {
        let w = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        if let Some(m) = AccMove::from_words(w(0), w(4)) {
            return m.map(|m| (Inst::Acc(m), 8));
        }
    }
    super::decode(target, bytes)
}
