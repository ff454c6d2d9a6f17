//! ds-harness: runs every DS instruction of a supported target on a device (a GPU through HIP, or the emulated
//! device) and diffs the results against the reference model.
//!
//! The binary's subcommands live in [`cli`]; each returns an [`ExitCode`](std::process::ExitCode)
//! with the meaning documented in docs/run-results.md: 0 all agree, 1 disagreements (or no case
//! compared), 2 bad usage or input, 3 backend unavailable.

pub mod against;
pub mod canary;
pub mod case;
pub mod cli;
pub mod corpus;
pub mod doc;
pub mod fidelity;
pub mod input;
pub mod matrix;
pub mod merge;
pub mod output;
pub mod record;
pub mod run;
pub mod shrink;
