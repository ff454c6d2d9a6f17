//! ds-reference: the gfx1100 (RDNA3) LDS / data-share ("DS") instructions as data and as semantics.
//!
//! [`isa`] holds the one declarative table of every gfx11 DS opcode and everything derived from it
//! (encoder, decoder, LLVM assembly syntax). [`wave`] holds the data one instruction runs on (variant,
//! case, outcome), shared by the model, the kernel ABI and every device. The crate has no unsafe
//! code, no FFI and no I/O.
#![forbid(unsafe_code)]

pub mod isa;
pub mod model;
pub mod wave;
