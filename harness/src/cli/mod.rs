//! The `ds-harness` subcommands. Each subcommand is one module; this one only parses and
//! dispatches. Exit codes: [`EXIT_OK`], [`EXIT_DISAGREE`], [`EXIT_USAGE`], [`EXIT_BACKEND`].

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod asm;
mod doc;
mod eval;
mod info;
mod kernel;
mod list;
mod replay;
mod run;

/// All results agree with the model.
pub const EXIT_OK: u8 = 0;
/// At least one disagreement between device and model.
pub const EXIT_DISAGREE: u8 = 1;
/// Bad usage or bad input.
pub const EXIT_USAGE: u8 = 2;
/// The requested backend is not available.
pub const EXIT_BACKEND: u8 = 3;

/// The exit code of a device error: 2 for a bad request (a flag or environment value), else 3.
pub fn device_exit(e: &crate::device::DeviceError) -> ExitCode {
    ExitCode::from(if e.is_bad_request() {
        EXIT_USAGE
    } else {
        EXIT_BACKEND
    })
}

/// Differential test harness for the gfx1100 (RDNA3) LDS / data-share (DS) instructions.
#[derive(Debug, Parser)]
#[command(name = "ds-harness", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Assemble LLVM-syntax DS instructions from stdin, one per line, printing what
    /// `llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding` prints.
    Asm,
    /// Disassemble lines of bytes (`0x00,0x00,0x30,0xd8,...`, commas or spaces) from stdin.
    Disasm,
    /// List the DS table: every gfx11 DS opcode.
    List(list::ListArgs),
    /// What this machine offers: HIP runtime, devices and their arch, what `--backend auto` takes.
    Info(info::InfoArgs),
    /// An op card: encoding, operands, semantics, open questions, worked examples.
    Doc(doc::DocArgs),
    /// Write one DS variant's kernel as a code object, or print its listing.
    Kernel(kernel::KernelArgs),
    /// Run every selected DS op on a device and diff against the reference model.
    Run(run::RunArgs),
    /// Run one case file on a device and the model, side by side.
    Replay(replay::ReplayArgs),
    /// Run one case file through the model alone and print the outcome as JSON.
    Eval(eval::EvalArgs),
}

/// Runs one subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Asm => asm::assemble(std::io::stdin().lock(), &mut std::io::stdout().lock()),
        Command::Disasm => asm::disassemble(std::io::stdin().lock(), &mut std::io::stdout().lock()),
        Command::List(args) => list::run(&args),
        Command::Info(args) => info::run(&args, &mut std::io::stdout().lock()),
        Command::Doc(args) => doc::run(&args, &mut std::io::stdout().lock()),
        Command::Kernel(args) => kernel::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Eval(args) => eval::run(&args),
    }
}
