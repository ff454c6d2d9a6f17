//! The `ds-harness` subcommands. Each subcommand is one module; this one only parses and
//! dispatches. Exit codes: [`EXIT_OK`], [`EXIT_DISAGREE`], [`EXIT_USAGE`], [`EXIT_BACKEND`].

use clap::{Parser, Subcommand};
use ds_isa::target::Target;
use std::io::Write;
use std::process::ExitCode;

pub use crate::output::Out;

mod against;
mod asm;
mod doc;
mod eval;
mod info;
mod kernel;
mod list;
mod matrix;
mod merge;
mod questions;
mod replay;
mod run;
mod serve_device;

/// All results agree with the model.
pub const EXIT_OK: u8 = 0;
/// At least one disagreement between device and model, or no case compared.
pub const EXIT_DISAGREE: u8 = 1;
/// Bad usage or bad input.
pub const EXIT_USAGE: u8 = 2;
/// The requested backend is not available.
pub const EXIT_BACKEND: u8 = 3;

/// `--backend`: which device runs the kernels (the command line's spelling of
/// [`ds_devices::BackendChoice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendArg {
    /// hip when a supported AMD GPU is found, else emu; says which and why.
    Auto,
    /// A GPU through HIP; an error (never a fallback) when there is none.
    Hip,
    /// The emulated device.
    Emu,
    /// An external program speaking the device protocol: needs `--device-cmd`.
    Exec,
}

impl From<BackendArg> for ds_devices::BackendChoice {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Auto => Self::Auto,
            BackendArg::Hip => Self::Hip,
            BackendArg::Emu => Self::Emu,
            BackendArg::Exec => Self::Exec,
        }
    }
}

/// The command-line options of an exec device (`--device-cmd`, `--device-timeout`), shared by
/// the commands that open a device.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ExecFlags {
    /// With `--backend exec`: the device's command line, run as `sh -c 'COMMAND'`, speaking the
    /// device protocol on stdin/stdout (docs/device-protocol.md), e.g. `ds-harness serve-device`
    /// or `ssh gpu-box ds-harness serve-device --backend hip`.
    #[arg(long, value_name = "COMMAND")]
    pub device_cmd: Option<String>,
    /// With `--backend exec`: seconds one load or launch may take before the device's process
    /// group is killed and its cases reported as timed out (a start, up to its hello answer, may
    /// take at least 60 s); after 3 time-outs in a row the device is given up (exit 3). At most
    /// 604800 (a week).
    #[arg(long, value_name = "SECONDS", default_value_t = ds_devices::exec::DEFAULT_TIMEOUT_SECS, value_parser = parse_seconds)]
    pub device_timeout: f64,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    const MAX: f64 = ds_devices::exec::MAX_TIMEOUT_SECS;
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= MAX => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds from 0 (exclusive) to {MAX} (a week)"
        )),
    }
}

impl ExecFlags {
    /// The files `--device-cmd` names (each word, unquoted, and the value after a `=`, that is
    /// an existing file; the program found through `PATH` when it is a bare name): inputs an
    /// output must never overwrite (the device's own program, its script, its data).
    pub fn files(&self) -> Vec<std::path::PathBuf> {
        let Some(cmd) = &self.device_cmd else {
            return Vec::new();
        };
        let words: Vec<&str> = cmd
            .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ';' | '|' | '&'))
            .filter(|w| !w.is_empty())
            .collect();
        let mut files: Vec<std::path::PathBuf> = words
            .iter()
            .flat_map(|w| [Some(*w), w.split_once('=').map(|(_, v)| v)])
            .flatten()
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_file())
            .collect();
        if let Some(program) = words.first().filter(|w| !w.contains('/')) {
            let path = std::env::var_os("PATH").unwrap_or_default();
            files.extend(
                std::env::split_paths(&path)
                    .map(|d| d.join(program))
                    .filter(|p| p.is_file()),
            );
        }
        files
    }

    /// What the flags ask of the devices crate.
    pub fn args(&self) -> ds_devices::exec::ExecArgs {
        ds_devices::exec::ExecArgs {
            device_cmd: self.device_cmd.clone(),
            device_timeout: self.device_timeout,
        }
    }
}

/// The exit code of a device error: 2 for a bad request (a flag or environment value), else 3.
pub fn device_exit(e: &ds_devices::DeviceError) -> ExitCode {
    ExitCode::from(if e.is_bad_request() {
        EXIT_USAGE
    } else {
        EXIT_BACKEND
    })
}

/// Differential test harness for the LDS / data-share (DS) instructions of AMD GPUs (every
/// target of the target table; [`about`]).
#[derive(Debug, Parser)]
#[command(name = "ds-harness", version, about = about(), long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Assemble LLVM-syntax DS instructions from stdin, one per line, printing what
    /// `llvm-mc-19 -arch=amdgcn -mcpu=<target> -show-encoding` prints.
    Asm(TextArgs),
    /// Disassemble lines of bytes (`0x00,0x00,0x30,0xd8,...`, commas or spaces) from stdin.
    Disasm(TextArgs),
    /// List the DS table: every DS opcode of a target (--target; default: the default target).
    List(list::ListArgs),
    /// What this machine offers: HIP runtime, devices and their target (supported or not), what
    /// `--backend auto` takes.
    Info(info::InfoArgs),
    /// An op card: encoding, operands, semantics, open questions, worked examples.
    Doc(doc::DocArgs),
    /// Write one DS variant's kernel as a code object, or print its listing.
    Kernel(kernel::KernelArgs),
    /// Run every selected DS op on a device and diff against the reference model.
    Run(run::RunArgs),
    /// Merge the results (and recordings) of the shards of one run into one report.
    Merge(merge::MergeArgs),
    /// Run one case file on a device and the model, side by side.
    Replay(replay::ReplayArgs),
    /// Run one case file through the model alone and print the outcome as JSON.
    Eval(eval::EvalArgs),
    /// Serve this machine's device (emu or HIP) over the device protocol on stdin/stdout, for
    /// `run --backend exec --device-cmd '...'` (possibly through ssh).
    ServeDevice(serve_device::ServeDeviceArgs),
    /// Several devices' results (`run --json`) side by side, one row per op, one fidelity class
    /// per cell: markdown, JSON, or an SVG heatmap.
    Matrix(matrix::MatrixArgs),
    /// Per open question of ASSUMPTIONS.md: which readings a device's results (`run --json`)
    /// support, which they rule out, and which case would settle what is still open.
    Questions(questions::QuestionsArgs),
}

/// What `ds-harness --help` says the harness is: its generations and targets, from the tables.
pub fn about() -> String {
    let gens: Vec<&str> = ds_isa::ds::Generation::ALL
        .iter()
        .map(|g| g.name())
        .collect();
    format!(
        "Differential test harness for the LDS / data-share (DS) instructions of AMD GPUs: every \
         target of the target table ({} targets of generations {}), on a GPU through HIP, the \
         emulated device or an external device, against the reference model",
        ds_isa::target::all().count(),
        gens.join(", ")
    )
}

/// `--target NAME`: a row of the target table; an unknown name is a usage error (exit 2) with
/// did-you-mean and the list of supported targets.
pub fn parse_target(name: &str) -> Result<&'static Target, String> {
    // Also in HIP's `gcnArchName` form, `<name>:sramecc+:xnack-`: the features are checked
    // against the table's row; the code objects are built for either mode ("any").
    Target::by_hsa_name(name)
        .map(|n| n.target)
        .map_err(|e| e.to_string())
}

/// `--target NAME` where kernels are built (`run`, `replay`, `kernel`): a row of the target table
/// whose generation the kernel template is written for; otherwise a usage error (exit 2) saying
/// which targets get kernels.
pub fn parse_kernel_target(name: &str) -> Result<&'static Target, String> {
    let t = parse_target(name)?;
    ds_kernels::check_target(t).map(|()| t)
}

/// A count (`--cases`, `--jobs`): a whole number from 1 to 4294967295, said in words when it
/// is not one (never the argument parser's "number too large to fit in target type").
pub fn parse_count(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let why = if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
        "is not a whole number"
    } else if t.trim_start_matches('0').is_empty() {
        "is 0; at least 1 is needed"
    } else {
        return t
            .parse::<u32>()
            .map_err(|_| format!("`{s}` is more than {}, the most there may be", u32::MAX));
    };
    Err(format!("`{s}` {why} (from 1 to {})", u32::MAX))
}

/// `--wave 32|64` (`run`, `replay`, `kernel`, `doc`): a wave size (`wave32`/`wave64` also read).
pub fn parse_wave(s: &str) -> Result<ds_reference::wave::WaveSize, String> {
    s.parse()
}

/// The arguments of the text tools (`asm`, `disasm`).
#[derive(Debug, clap::Args)]
pub struct TextArgs {
    /// The target whose DS encoding is used (every target of a generation shares one);
    /// default: the default target.
    #[arg(long, value_name = "NAME", value_parser = parse_target)]
    pub target: Option<&'static Target>,
}

impl TextArgs {
    /// The target asked for, or the default target.
    pub fn target(&self) -> &'static Target {
        self.target.unwrap_or(ds_isa::target::DEFAULT)
    }
}

/// Runs one subcommand, its text going to stdout through [`Out`].
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let out = &mut Out::stdout();
    let code = match cli.command {
        Command::Asm(args) => asm::assemble(args.target(), std::io::stdin().lock(), out),
        Command::Disasm(args) => asm::disassemble(args.target(), std::io::stdin().lock(), out),
        Command::List(args) => list::run(&args, out),
        Command::Info(args) => info::run(&args, out),
        Command::Doc(args) => doc::run(&args, out),
        Command::Kernel(args) => kernel::run(&args, out),
        Command::Run(args) => {
            if let Err(e) = check_exec_flags(args.backend, &args.exec) {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(EXIT_USAGE));
            }
            match &args.against {
                Some(dir) => against::run(&args, dir, out),
                None => run::run(&args, out),
            }
        }
        Command::Merge(args) => merge::run(&args, out),
        Command::Replay(args) => replay::run(&args, out),
        Command::Eval(args) => eval::run(&args, out),
        Command::ServeDevice(args) => serve_device::run(&args),
        Command::Matrix(args) => matrix::run(&args, out),
        Command::Questions(args) => questions::run(&args, out),
    }?;
    out.flush()?;
    Ok(code)
}

/// Checks that `--device-cmd` and `--backend exec` come together.
fn check_exec_flags(backend: BackendArg, exec: &ExecFlags) -> Result<(), String> {
    match (backend, &exec.device_cmd) {
        (BackendArg::Exec, None) => Err(
            "--backend exec needs --device-cmd 'COMMAND ARGS': the program speaking the device \
             protocol (docs/device-protocol.md), e.g. --device-cmd 'ds-harness serve-device'"
                .into(),
        ),
        (b, Some(_)) if b != BackendArg::Exec => {
            let name = clap::ValueEnum::to_possible_value(&b)
                .map_or_else(|| format!("{b:?}"), |v| v.get_name().to_string());
            Err(format!(
                "--device-cmd is only for --backend exec (the backend is {name}); add --backend exec"
            ))
        }
        _ => Ok(()),
    }
}
