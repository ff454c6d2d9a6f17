//! Why a variant gets no kernel ([`GenError`]): each reason names what to change.

use crate::abi::AbiError;
use ds_isa::ds::DsOp;
use ds_isa::error::EncodeError;
use ds_isa::error::InstError;
use ds_reference::regs::RegsError;
use ds_reference::wave::AccError;
use std::fmt;

/// Why a variant has no kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The op is not run by ds-harness: it cannot run from a HIP compute kernel, or is not
    /// modelled yet (the table says why).
    NotRunnable { op: DsOp, why: &'static str },
    /// The offsets do not fit the op.
    Offsets(InstError),
    /// The LDS size is not one the ABI allows.
    Lds(AbiError),
    /// A template instruction failed to encode (a bug in the template).
    Encode(EncodeError),
    /// The variant's `regs` do not fit its op.
    Regs(RegsError),
    /// The variant's target has no kernel template (its generation has none yet).
    Wave(String),
    /// The variant's `acc` is not legal on its target or op.
    Acc(AccError),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::NotRunnable { op, why } => {
                write!(f, "{op} is not run by ds-harness: {why}")
            }
            // Only an offset the op cannot take is about the offsets; the instruction's other
            // faults (an op the target lacks, registers it refuses) say what they are.
            GenError::Offsets(e @ InstError::OffsetNotAllowed { .. }) => {
                write!(f, "bad offsets: {e}")
            }
            GenError::Offsets(
                e @ (InstError::UnusedField { .. }
                | InstError::RegisterRange { .. }
                | InstError::Misaligned { .. }),
            ) => write!(f, "bad registers: {e}"),
            GenError::Offsets(e) => e.fmt(f),
            GenError::Lds(e) => e.fmt(f),
            GenError::Encode(e) => write!(f, "kernel template bug: {e}"),
            GenError::Regs(e) => e.fmt(f),
            GenError::Wave(why) => f.write_str(why),
            GenError::Acc(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GenError {}
