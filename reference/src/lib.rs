//! ds-reference: the executable semantics of the DS instructions (the reference model) and the
//! data one instruction runs on.
//!
//! [`model`] executes a DS instruction of any generation by the rules of its target's generation
//! (the instruction sets themselves, the DS table and the target table, are the `ds-isa` crate's).
//! [`wave`] holds the data one instruction runs on (variant, case, outcome), shared by the model,
//! the kernel ABI and every device; [`regs`] the rules for operands that share registers. The
//! crate has no unsafe code, no FFI and no I/O.
#![forbid(unsafe_code)]

pub mod model;
pub mod regs;
pub mod wave;
