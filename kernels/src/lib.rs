//! ds-kernels: the kernels that run one DS instruction per launch on a gfx1100, the kernel ABI
//! they share with every device, and the HSA code object they are packed into.
//!
//! This crate reads the DS table of [`ds_reference::isa`]; it names no DS opcode itself.

pub use ds_reference::isa;

pub mod inst;
pub mod launch;
