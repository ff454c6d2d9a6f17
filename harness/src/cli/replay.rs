//! `ds-harness replay CASE.json`: runs one case file on a device and through the model and shows
//! them side by side: every active lane's vdst (and addr when the op writes it), inactive lanes
//! only where they changed, and the LDS words that differ or changed.

use super::{EXIT_DISAGREE, EXIT_OK, EXIT_USAGE};
use crate::case::CaseFile;
use crate::run::{self, diff, legal, RunError};
use ds_devices as device;
use ds_isa::target::Target;
use ds_reference::wave::{Outcome, WaveSize};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The case file (as `ds-harness run` writes them).
    pub case: PathBuf,
    /// Which device runs the kernel.
    #[arg(long, value_enum, default_value_t = super::BackendArg::Auto)]
    pub backend: super::BackendArg,
    /// The target to run the case on. Default: the case file's target (the emulated device of
    /// it, or a GPU of it for auto and hip; --backend hip refuses when no GPU is one).
    #[arg(long, value_name = "NAME", value_parser = super::parse_kernel_target)]
    pub target: Option<&'static Target>,
    #[command(flatten)]
    pub exec: super::ExecFlags,
    /// Replay in this wave size (default: the case file's). `--wave 64` runs a wave32 case as a
    /// wave64 one with lanes 32..63 added inactive (does the disagreement survive the wave size?);
    /// `--wave 32` runs a wave64 case whose upper half is inactive as a wave32 one.
    #[arg(long, value_name = "32|64", value_parser = super::parse_wave)]
    pub wave: Option<WaveSize>,
}

/// `file` re-sized to `wave`: lanes added (inactive, zero registers, the vdst sentinel of the
/// last lane) or dropped (only when they are inactive). The results attached to the file are
/// dropped (they were for the other size).
fn resize(file: &mut CaseFile, wave: WaveSize) -> Result<(), String> {
    let from = file.variant.wave;
    if from == wave {
        return Ok(());
    }
    if file.case.wave.exec & !wave.full_exec() != 0 {
        return Err(format!(
            "the case is {from} with lanes past {} active (EXEC {:#x}): it cannot run in {wave}",
            wave.lanes() - 1,
            file.case.wave.exec
        ));
    }
    let sentinel = file.case.wave.lanes.last().map_or([0; 4], |l| l.vdst);
    file.case.wave.lanes.resize(
        wave.lanes(),
        ds_reference::wave::Lane {
            vdst: sentinel,
            ..Default::default()
        },
    );
    file.variant.wave = wave;
    file.expected = None;
    file.device = None;
    crate::case::validate(file.target, &file.variant, &file.case)
}

/// `replay --backend hip` without `--target`: the case file's target, when a usable HIP device is
/// one (the device of that target is opened); else why not and the fix, never a silent replay on a
/// GPU of another target (whose rules and code object differ).
fn hip_of_file_target(t: &'static Target) -> Result<&'static Target, String> {
    let probe = device::hip::probe();
    let usable: Vec<_> = probe.devices.iter().filter(|d| d.usable).collect();
    if usable.is_empty() || usable.iter().any(|d| d.target == Some(t)) {
        // None usable: opening the device says why, as for `run`.
        return Ok(t);
    }
    let have = usable
        .iter()
        .map(|d| {
            format!(
                "device {} is {}",
                d.index,
                d.arch.as_deref().unwrap_or("unknown")
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    Err(format!(
        "the case file is of {t}, and no usable HIP device is a {t} ({have}). Replay it on one of \
         them under its own target's rules with --target T, or on the emulated {t} with \
         --backend emu"
    ))
}

pub fn run(args: &ReplayArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let file = match read_case(args) {
        Ok(f) => f,
        Err(code) => return Ok(code),
    };
    let mut dev = match open_device(args, &file) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    if let Err(e) = ds_kernels::check_wave(dev.info().target, file.variant.wave) {
        eprintln!("error: {}: {e}", args.case.display());
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    // The model follows the rules of the target the case runs on: the case file's, unless
    // `--target` (or the GPU found) names another.
    let rules = dev.info().target;
    eprintln!("model: {rules}'s rules ({} generation)", rules.generation);
    let expected = match ds_reference::model::execute_variant(rules, &file.variant, &file.case) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {}: {e}", args.case.display());
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let got = match run::run_one(dev.as_mut(), &file.variant, &file.case) {
        Ok(o) => o,
        Err(RunError::Device(e)) => {
            eprintln!("error: {e}");
            return Ok(super::device_exit(&e));
        }
        Err(e) => return Err(e.into()),
    };
    let name = dev.info().name.clone();
    write!(out, "{}", side_by_side(&file, &expected, &got, &name))?;
    Ok(verdict(out, &file, rules, &expected, &got)?)
}

/// The case file, checked, with `--wave` applied; or the exit code.
fn read_case(args: &ReplayArgs) -> Result<CaseFile, ExitCode> {
    let usage = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_USAGE)
    };
    let mut file = CaseFile::read(&args.case).map_err(|e| usage(e.to_string()))?;
    super::check_exec_flags(args.backend, &args.exec).map_err(|e| usage(e.to_string()))?;
    if let Some(wave) = args.wave {
        let from = file.variant.wave;
        resize(&mut file, wave).map_err(|e| {
            usage(format!(
                "--wave {}: {}: {e}",
                wave.lanes(),
                args.case.display()
            ))
        })?;
        if from != wave {
            eprintln!("replaying the {from} case in {wave} (EXEC unchanged)");
        }
    }
    Ok(file)
}

/// Opens the device the case runs on (the case file's target unless `--target` names another;
/// an external device names its own) and says which; or the exit code. Messages name where the
/// target came from: `--target` only when it was given.
fn open_device(args: &ReplayArgs, file: &CaseFile) -> Result<Box<dyn device::Device>, ExitCode> {
    let from_file = args.target.is_none();
    let target = match args.backend {
        super::BackendArg::Hip if from_file => match hip_of_file_target(file.target) {
            Ok(t) => Some(t),
            Err(why) => {
                eprintln!("error: {}: {why}", args.case.display());
                return Err(ExitCode::from(super::EXIT_BACKEND));
            }
        },
        super::BackendArg::Hip => args.target,
        // An external device says which target it runs; checked below against the file's.
        super::BackendArg::Exec if from_file => None,
        super::BackendArg::Auto | super::BackendArg::Emu | super::BackendArg::Exec => {
            Some(args.target.unwrap_or(file.target))
        }
    };
    let cite = |text: &str| match (from_file, target) {
        (true, Some(t)) => text.replace(
            &format!("--target {t}"),
            &format!("the case file's target {t}"),
        ),
        _ => text.to_string(),
    };
    let opened =
        device::open_any(args.backend.into(), None, target, &args.exec.args()).map_err(|e| {
            eprintln!("error: {}", cite(&e.to_string()));
            super::device_exit(&e)
        })?;
    let info = opened.device.info();
    eprintln!("backend: {} ({})", info.backend, cite(&opened.reason));
    eprintln!(
        "target: {} (the case file names {})",
        info.target, file.target
    );
    if from_file && info.target != file.target {
        eprintln!(
            "error: {}: the device runs {}, the case file is of {}: replay it on a device of {} \
             (or on the emulated one, --backend emu), or under {}'s rules with --target {}",
            args.case.display(),
            info.target,
            file.target,
            file.target,
            info.target,
            info.target
        );
        return Err(ExitCode::from(EXIT_USAGE));
    }
    Ok(opened.device)
}

/// The verdict under the side-by-side table: agreement, a legal alternative, or every
/// difference; the exit code.
fn verdict(
    out: &mut impl std::io::Write,
    file: &CaseFile,
    rules: &'static Target,
    expected: &Outcome,
    got: &Outcome,
) -> std::io::Result<ExitCode> {
    let inst = file.variant.inst();
    let diffs = diff::diff(inst.info(), file.case.wave.exec, expected, got);
    if diffs.is_empty() {
        writeln!(
            out,
            "AGREE: the device and the model left the same vdst, addr and LDS"
        )?;
        return Ok(ExitCode::from(EXIT_OK));
    }
    if let Some(choice) = legal::accepts(rules, &file.variant, &file.case, expected, got) {
        writeln!(out, "AGREE on a legal alternative: {choice}")?;
        return Ok(ExitCode::from(EXIT_OK));
    }
    writeln!(out, "DISAGREE: {} differences", diffs.len())?;
    for d in &diffs {
        writeln!(out, "  {d}")?;
    }
    Ok(ExitCode::from(EXIT_DISAGREE))
}

/// The case as a table: lanes, then LDS words.
pub fn side_by_side(file: &CaseFile, model: &Outcome, device: &Outcome, name: &str) -> String {
    let wave = &file.case.wave;
    let words = file.variant.op.info().operands.vdst.max(1) as usize;
    let (t, gen) = (file.target, file.target.generation);
    let inst = ds_kernels::generator::test_inst(t, &file.variant).unwrap_or(file.variant.inst());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "case {} (seed {:#x}): {}  exec {:#010x}  m0 {:#010x}  lds {} bytes",
        file.id,
        file.seed,
        inst.text(gen),
        wave.exec,
        wave.m0,
        file.variant.lds_size
    );
    let _ = writeln!(s, "model vs device ({name}); `!` marks a difference");
    let _ = writeln!(
        s,
        "{:>4} {:>3} {:>10}  {:<w$}  {:<w$}",
        "lane",
        "on",
        "addr",
        "model vdst",
        "device vdst",
        w = 11 * words
    );
    s += &lane_rows(file, model, device, words);
    s += &lds_rows(file, model, device);
    s
}

/// One row per active lane and per inactive lane that differs: its address, vdst by the model
/// and the device (and addr, for an op that writes it).
fn lane_rows(file: &CaseFile, model: &Outcome, device: &Outcome, words: usize) -> String {
    let info = file.variant.op.info();
    let wave = &file.case.wave;
    let hex = |v: &[u32]| {
        v.iter()
            .map(|x| format!("{x:#010x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = String::new();
    for lane in 0..wave.lanes.len() {
        let active = wave.active(lane);
        let differs =
            model.vdst[lane] != device.vdst[lane] || model.addr[lane] != device.addr[lane];
        if !active && !differs {
            continue;
        }
        let _ = write!(
            s,
            "{lane:>4} {:>3} {:#010x}  {:<w$}  {:<w$}",
            if active { "yes" } else { "no" },
            wave.lanes[lane].addr,
            hex(&model.vdst[lane][..words]),
            hex(&device.vdst[lane][..words]),
            w = 11 * words
        );
        if info.writes_addr() {
            let _ = write!(
                s,
                "  addr {:#010x} / {:#010x}",
                model.addr[lane], device.addr[lane]
            );
        }
        let _ = writeln!(s, "{}", if differs { "  !" } else { "" });
    }
    s
}

/// The LDS words either side changed or that differ: before, model, device.
fn lds_rows(file: &CaseFile, model: &Outcome, device: &Outcome) -> String {
    let before = &file.case.lds;
    let mut rows = Vec::new();
    for at in (0..model.lds.size().min(device.lds.size())).step_by(4) {
        let (b, m, d) = (before.word(at), model.lds.word(at), device.lds.word(at));
        if b != m || m != d {
            rows.push(format!(
                "{at:#06x}  {b:#010x}  {m:#010x}  {d:#010x}{}",
                if m != d { "  !" } else { "" }
            ));
        }
    }
    if rows.is_empty() {
        return "lds: unchanged by both\n".into();
    }
    let mut s = format!(
        "lds words changed or differing:\n{:>6}  {:>10}  {:>10}  {:>10}\n",
        "at", "before", "model", "device"
    );
    for r in rows {
        let _ = writeln!(s, "{r}");
    }
    s
}
