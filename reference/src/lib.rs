//! ds-reference: the gfx11 (RDNA 3 and RDNA 3.5) LDS / data-share ("DS") instructions as data and as semantics.
//!
//! [`isa`] holds the one declarative table of every gfx11 DS opcode and everything derived from it
//! (encoder, decoder, LLVM assembly syntax). [`wave`] holds the data one instruction runs on (variant,
//! case, outcome), shared by the model, the kernel ABI and every device; [`regs`] the rules for operands that
//! share registers. The crate has no unsafe
//! code, no FFI and no I/O. [`target`] holds the one target table (every GPU the kernels are built
//! for: name, machine value, driver version, LDS size, generation, DS features); [`ds_features`]
//! the per-target DS feature set both use.
#![forbid(unsafe_code)]

pub mod ds_features;
pub mod errata;
pub mod isa;
pub mod model;
pub mod regs;
pub mod target;
pub mod text;
pub mod wave;
