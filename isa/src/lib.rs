//! ds-isa: the AMD GPU instruction sets the harness builds kernels for, as data, and what is
//! derived from them. The lowest crate of the workspace: it knows nothing of the model, kernels
//! or devices.
//!
//! - [`target`]: the one target table (every GPU target: name, machine value, driver version, LDS
//!   size, generation, wave sizes, DS features, errata), with [`ds_features`] and [`errata`], two
//!   of its columns.
//! - [`gen`]: the generations, one module of data each (DS layout and rules with their sources,
//!   the non-DS formats, `s_waitcnt` layout, operand codes, spellings).
//! - [`ds`]: the one DS table of every generation and what is derived from it (encoder, decoder,
//!   LLVM assembly syntax, swizzle patterns, the table as markdown).
//! - [`inst`]: the kernel template's non-DS instructions as data ([`inst::Inst`]), with their
//!   encoder, decoder and LLVM syntax.
//! - [`error`]: the errors of every encoder, decoder and parser, one family.
//! - [`text`]: small text helpers (did-you-mean, LLVM's integer syntax).
#![forbid(unsafe_code)]

pub mod ds;
pub mod ds_features;
pub mod errata;
pub mod error;
pub mod gen;
pub mod inst;
pub mod target;
pub mod text;
