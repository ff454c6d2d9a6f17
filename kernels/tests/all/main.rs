//! The ds-kernels crate's integration tests: the kernels, their code objects and descriptors
//! against LLVM's tools and comgr, and the listings pinned as snapshots.
//! One module per property (wasmtime's `tests/all` pattern: one binary to build and link).

mod accvgpr_llvm;
mod canary_llvm;
mod code_object_llvm_link;
mod code_object_llvm_tools;
mod comgr;
mod common;
mod descriptor_llvm;
mod entry_state_llvm;
mod entry_table_doc;
mod generator;
mod hazards_llvm;
mod inst_random_llvm;
mod inst_vectors_llvm;
mod instruction_forms;
mod listing_snapshots;
mod register_aliasing;
