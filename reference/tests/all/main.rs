//! The ds-reference crate's integration tests: the DS encoder, decoder and syntax against LLVM,
//! the model's snapshots and properties, the target table against LLVM.
//! One module per property (wasmtime's `tests/all` pattern: one binary to build and link).

mod acc_operands;
mod codec_roundtrip;
mod common;
mod errata_llvm;
mod error_messages;
mod legal_lane_orders;
mod llvm_oracle;
mod model_properties;
mod model_snapshots;
mod syntax_llvm_oracle;
mod table_docs;
mod target_table_llvm;
mod vector_files;
