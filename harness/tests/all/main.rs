//! The ds-harness crate's integration tests: the built binary's commands end to end on the
//! emulated device, external devices and the stand-in HIP runtime, and the workspace's rules.
//! One module per property (wasmtime's `tests/all` pattern: one binary to build and link).

mod common;

mod acc_twins;
mod against_recordings;
mod asm_llvm_spellings;
mod bad_input_refused;
mod bvh_stack_ops;
mod canary_first;
mod case_files;
mod cmpst_order;
mod emu_agreement;
mod exec_faults;
mod exec_protocol;
mod exit_codes;
mod hip_checked_calls;
mod hip_device_path;
mod hip_override;
mod hip_unavailable;
mod hostile_device;
mod kernel_command;
mod layers;
mod legal_outcomes;
mod matrix;
mod merge_shards;
mod mutants_caught;
mod no_rule_by_name;
mod no_stray_targets;
mod op_cards;
mod open_question_readings;
mod outputs_never_harm;
mod recordings;
mod register_aliasing;
mod run_bookkeeping;
mod run_stream;
mod serve_device_bounded;
mod shrinking;
mod standin_agreement;
mod text_commands;
mod unjudged_ops;
mod unread_snapshots;
mod wave64_bpermute;
mod wave64_lanes;
mod wave_sizes;
mod workflows;
