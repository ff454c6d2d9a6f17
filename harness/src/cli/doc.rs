//! `ds-harness doc OP`: prints the op card (`crate::doc::card`) of one DS op, with its worked
//! examples marked against the recordings under `snapshots/hardware/` (or `--recordings DIR`).

use super::{EXIT_OK, EXIT_USAGE};
use crate::record;
use ds_isa::ds::{doc as table_doc, suggest_in, DsOp, Isa};
use ds_isa::error::InstError;
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;
use std::path::PathBuf;
use std::process::ExitCode;

/// The recordings shipped with the source tree.
pub const DEFAULT_RECORDINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/hardware");

#[derive(Debug, clap::Args)]
pub struct DocArgs {
    /// The op: a mnemonic of the target's generation or an older spelling, any case.
    pub op: String,
    /// Recordings to mark the examples with (`<DIR>/<device>/<op>.txt`); default: the source
    /// tree's snapshots/hardware, when it is there.
    #[arg(long, value_name = "DIR")]
    pub recordings: Option<PathBuf>,
    /// The target the card is for (default: the default target); the examples are marked
    /// with that target's recordings only.
    #[arg(long, value_name = "NAME", value_parser = super::parse_target)]
    pub target: Option<&'static Target>,
    /// Show what differs in this wave size (64: the target's generation rules that decide the
    /// op's wave64 result and why, the wave64 questions that apply and the worked examples that
    /// straddle the halves, by the target's rules); default 32, the full card.
    #[arg(long, value_name = "32|64", value_parser = super::parse_wave)]
    pub wave: Option<WaveSize>,
}

pub fn run(args: &DocArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let target = args.target.unwrap_or(ds_isa::target::DEFAULT);
    let gen = target.generation;
    let op = match op_on(&args.op, target) {
        Ok(op) => op,
        Err(e) => return usage(e),
    };
    // Without --wave, the full card (a wave64-only target, gfx9, gets it too).
    let wave = args.wave.unwrap_or_default();
    if args.wave.is_some() && !target.wave_sizes.contains(&(wave.lanes() as u32)) {
        return usage(format!(
            "--wave {}: {target} does not run {wave}",
            wave.lanes()
        ));
    }
    let recordings = match recordings_of(args, op, target, wave) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    write!(
        out,
        "{}",
        crate::doc::card_in(op, target, &recordings, wave)
    )?;
    if gen.gfx9_mnemonics() {
        writeln!(out, "\n{}", encoding_on(op, target))?;
    }
    writeln!(out, "\n{}", crate::doc::target_note(target))?;
    Ok(ExitCode::from(EXIT_OK))
}

fn usage(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(EXIT_USAGE))
}

/// The op `name` names on `target` (its own spelling or the table's name), or why none.
fn op_on(name: &str, target: &'static Target) -> Result<DsOp, String> {
    let gen = target.generation;
    let Some(op) = crate::run::select::op_named_in(gen, name) else {
        if let Some(op) = DsOp::from_name(name) {
            return Err(InstError::NotInGeneration { op, gen }.to_string());
        }
        let near = suggest_in(gen, name, 3);
        return Err(format!(
            "`{name}` is not a {gen} DS op{} (`ds-harness list --target {target}` shows them all)",
            if near.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", near.join(", "))
            }
        ));
    };
    if !op.info().on(target) {
        let isa = Isa::of(target);
        return Err(InstError::NotOnTarget { op, isa }.to_string());
    }
    Ok(op)
}

/// The recordings of `op` on `target` in waves of `wave` under `--recordings` (default: the
/// repository's, when they exist); unreadable ones are warned about.
fn recordings_of(
    args: &DocArgs,
    op: DsOp,
    target: &'static Target,
    wave: WaveSize,
) -> Result<Vec<record::Recording>, String> {
    let dir = match &args.recordings {
        // An explicit directory must be one; the default is used when it exists.
        Some(d) if !d.is_dir() => {
            return Err(format!(
                "--recordings {}: not a directory; name the directory holding \
                 <device>/<op>.txt recordings (e.g. snapshots/hardware)",
                d.display()
            ))
        }
        Some(d) => d.clone(),
        None => PathBuf::from(DEFAULT_RECORDINGS),
    };
    let mut recordings = Vec::new();
    for r in record::load_dir(&dir) {
        match r {
            Ok(r) if r.op == op && r.target() == target && r.wave == wave => recordings.push(r),
            Ok(_) => {}
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    Ok(recordings)
}

/// How a gfx9 or gfx10 target spells and encodes `op`, in one line: its spelling, its opcode and
/// where it sits, and the acc bit where the target has one (the card above lays out the target's
/// word field by field).
fn encoding_on(op: DsOp, target: &'static Target) -> String {
    let gen = target.generation;
    let layout = gen.ds_layout();
    let ex = table_doc::example(target, op);
    let bytes = ex
        .to_bytes(target)
        .map(|b| {
            b.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|e| e.to_string());
    format!(
        "On {target} ({gen}): spelled {}, opcode {:#04x} in bits [{}:{}], gds bit {}{}; e.g. {}  =>  {bytes}",
        op.mnemonic(gen),
        op.opcode(gen).expect("the target has the op"),
        layout.op_shift + 7,
        layout.op_shift,
        layout.gds_bit,
        match layout.acc_bit {
            Some(bit) if Isa::of(target).has(ds_isa::ds::DsFeatures::ACC) => {
                format!(", acc bit {bit} (vdst and data in AccVGPRs)")
            }
            _ => String::new(),
        },
        ex.text(gen)
    )
}
