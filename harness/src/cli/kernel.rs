//! `ds-harness kernel OP`: the kernel of one DS variant (ds-kernels' generator), written as an
//! HSA code object for `--target` (default: the default target; `--out FILE`, default
//! `<kernel>.co`) or printed as its listing (`--listing`, what `llvm-objdump-19 -d
//! --mcpu=<target>` shows). The LDS size defaults to
//! `ds_kernels::DEFAULT_LDS_SIZE` (1024 bytes); `--wave 64` builds the wave64 kernel.

use super::{EXIT_OK, EXIT_USAGE};
use crate::output::{Dash, OutputPath};
use ds_isa::ds::{suggest, DsOp, OffsetForm};
use ds_isa::error::InstError;
use ds_isa::target::Target;
use ds_kernels::{code_object, generator};
use ds_reference::wave::{FpMode, Variant, WaveSize};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct KernelArgs {
    /// The DS op: the target's own spelling or the name the reports use, e.g. ds_add_rtn_u32.
    pub op: String,
    /// A 16-bit byte offset (`offset:N`, decimal or 0x hex), for ops with one offset.
    #[arg(long, conflicts_with_all = ["offset0", "offset1"], value_parser = parse_u16)]
    pub offset: Option<u16>,
    /// OFFSET0, for `_2addr` ops (`offset0:N`, in elements; decimal or 0x hex).
    #[arg(long, value_parser = parse_u8)]
    pub offset0: Option<u8>,
    /// OFFSET1, for `_2addr` ops (`offset1:M`, in elements; decimal or 0x hex).
    #[arg(long, value_parser = parse_u8)]
    pub offset1: Option<u8>,
    /// The target the code object is built for (default: the default target).
    #[arg(long, value_name = "NAME", value_parser = super::parse_kernel_target)]
    pub target: Option<&'static Target>,
    /// LDS bytes allocated to the workgroup (a multiple of 4, at most the target's LDS size).
    #[arg(long, default_value_t = ds_kernels::DEFAULT_LDS_SIZE)]
    pub lds_size: u32,
    /// Flush FP32 denormals (default: keep them).
    #[arg(long)]
    pub flush_fp32_denormals: bool,
    /// Flush FP16/FP64 denormals (default: keep them).
    #[arg(long)]
    pub flush_fp16_fp64_denormals: bool,
    /// Turn IEEE mode off (default: on).
    #[arg(long)]
    pub no_ieee: bool,
    /// The wave size the kernel runs in, 32 (default where the target runs it; gfx9 targets run
    /// 64 only) or 64: a wave64 kernel has the wave32 bit
    /// off in its descriptor, `.wavefront_size: 64`, a 64-bit EXEC and workgroups of 64.
    #[arg(long, value_name = "32|64", value_parser = super::parse_wave)]
    pub wave: Option<WaveSize>,
    /// Where to write the code object (default: `<kernel name>.co`, unless --listing is given;
    /// `-`: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the kernel's listing (LLVM syntax, one instruction per line).
    #[arg(long)]
    pub listing: bool,
}

/// An offset field: decimal or `0x` hex, at most `max`.
fn parse_field(s: &str, max: u64) -> Result<u64, String> {
    let v = super::run::parse_u64(s)?;
    if v > max {
        return Err(format!(
            "`{s}` is larger than {max} ({max:#x}), the field's largest value"
        ));
    }
    Ok(v)
}

fn parse_u16(s: &str) -> Result<u16, String> {
    parse_field(s, u16::MAX.into()).map(|v| v as u16)
}

fn parse_u8(s: &str) -> Result<u8, String> {
    parse_field(s, u8::MAX.into()).map(|v| v as u8)
}

pub fn run(args: &KernelArgs, out: &mut impl std::io::Write) -> anyhow::Result<ExitCode> {
    let built_for = args.target.unwrap_or(ds_isa::target::DEFAULT);
    let variant = match variant_of(args, built_for) {
        Ok(v) => v,
        Err(e) => return usage(e),
    };
    let kernel = match generator::generate_for(built_for, &variant) {
        Ok(k) => k,
        Err(e) => return usage(e),
    };
    if args.listing {
        write!(out, "{}", kernel.listing())?;
    }
    if args.out.is_some() || !args.listing {
        if let Err(e) = write_code_object(args, built_for, &kernel)? {
            return usage(e);
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

fn usage(e: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {e}");
    Ok(ExitCode::from(EXIT_USAGE))
}

/// The variant `args` ask for on `target`: its op, offsets, LDS size (checked against the
/// target's own), FP mode and wave size.
fn variant_of(args: &KernelArgs, target: &'static Target) -> Result<Variant, String> {
    let op = op_of(&args.op, target)?;
    let [offset0, offset1] = offsets_of(args, op)?;
    ds_kernels::abi::check_lds_size_on(target, args.lds_size)
        .map_err(|e| format!("--lds-size {}: {e}", args.lds_size))?;
    let wave = args.wave.unwrap_or_else(|| default_wave(target));
    ds_kernels::check_wave(target, wave).map_err(|e| format!("--wave {}: {e}", wave.lanes()))?;
    Ok(Variant {
        op,
        offset0,
        offset1,
        lds_size: args.lds_size,
        mode: FpMode {
            fp32_denormals: !args.flush_fp32_denormals,
            fp16_fp64_denormals: !args.flush_fp16_fp64_denormals,
            ieee: !args.no_ieee,
        },
        wave,
        regs: None,
        acc: false,
    })
}

/// The op `name` names on `target` (its own spelling or the table's name), or why none.
fn op_of(name: &str, target: &'static Target) -> Result<DsOp, String> {
    let gen = target.generation;
    let Some(op) = crate::run::select::op_named_in(gen, name) else {
        if let Some(op) = DsOp::from_name(name) {
            return Err(InstError::NotInGeneration { op, gen }.to_string());
        }
        let near = suggest(name, 3);
        return Err(if near.is_empty() {
            format!("unknown DS op `{name}` (`ds-harness list` shows all of them)")
        } else {
            format!("unknown DS op `{name}`: did you mean {}?", near.join(", "))
        });
    };
    if !op.info().on(target) {
        let e = InstError::NotOnTarget {
            op,
            isa: target.into(),
        };
        return Err(e.to_string());
    }
    Ok(op)
}

/// The offset bytes `args` give `op`: `--offset` for an op with one 16-bit offset,
/// `--offset0`/`--offset1` for a pair.
fn offsets_of(args: &KernelArgs, op: DsOp) -> Result<[u8; 2], String> {
    let pair = matches!(op.info().offset, OffsetForm::Pair | OffsetForm::Stride64);
    if pair && args.offset.is_some() {
        return Err(format!(
            "{op} takes two offsets (`offset0:` and `offset1:`, in elements), not one; use \
             --offset0 N --offset1 M"
        ));
    }
    if !pair && (args.offset0.is_some() || args.offset1.is_some()) {
        return Err(format!(
            "{op} takes one 16-bit offset (`offset:`), not offset0/offset1; use --offset N"
        ));
    }
    Ok(match args.offset {
        Some(o) => o.to_le_bytes(),
        None => [args.offset0.unwrap_or(0), args.offset1.unwrap_or(0)],
    })
}

/// Without --wave: wave32 where the target runs it, else its one size (gfx9: wave64).
fn default_wave(target: &Target) -> WaveSize {
    let sizes = ds_kernels::wave_sizes(target);
    if sizes.contains(&WaveSize::default()) {
        WaveSize::default()
    } else {
        sizes.first().copied().unwrap_or_default()
    }
}

/// Writes the code object of `kernel` where `--out` says (default `<kernel>.co`; `-`: stdout);
/// the inner error is a usage error (the path cannot be written to).
fn write_code_object(
    args: &KernelArgs,
    built_for: &'static Target,
    kernel: &generator::Kernel,
) -> anyhow::Result<Result<(), String>> {
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.co", kernel.name)));
    let dash = if args.listing {
        Dash::Refused("--listing prints on stdout; name a file")
    } else {
        Dash::Stdout
    };
    let target = match OutputPath::check("--out", &path, dash) {
        Ok(o) => o,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let bytes = code_object::write(built_for, std::slice::from_ref(kernel));
    target
        .write(&bytes)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    let shown = if path.as_os_str() == "-" {
        "stdout".into()
    } else {
        path.display().to_string()
    };
    eprintln!(
        "wrote {shown} ({} bytes): kernel {}, for {built_for}",
        bytes.len(),
        kernel.name
    );
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(op: &str) -> KernelArgs {
        KernelArgs {
            op: op.into(),
            offset: None,
            offset0: None,
            offset1: None,
            target: None,
            lds_size: ds_kernels::DEFAULT_LDS_SIZE,
            flush_fp32_denormals: false,
            flush_fp16_fp64_denormals: false,
            no_ieee: false,
            wave: None,
            out: None,
            listing: false,
        }
    }

    #[test]
    fn unknown_and_unrunnable_ops_are_usage_errors() {
        assert_eq!(
            run(&args("ds_add_rtn_u3"), &mut std::io::sink()).unwrap(),
            ExitCode::from(EXIT_USAGE)
        );
        assert_eq!(
            run(&args("ds_gws_init"), &mut std::io::sink()).unwrap(),
            ExitCode::from(EXIT_USAGE)
        );
        let mut bad_lds = args("ds_add_u32");
        bad_lds.lds_size = 6;
        assert_eq!(
            run(&bad_lds, &mut std::io::sink()).unwrap(),
            ExitCode::from(EXIT_USAGE)
        );
    }

    /// An op the target lacks a feature for is refused as such, not as "bad offsets" (issue 33
    /// L1), and the target's own names for its ops are taken (M2).
    #[test]
    fn an_op_the_target_lacks_is_named_so_and_its_own_names_are_taken() {
        let t = |n| ds_isa::target::Target::by_name(n).unwrap();
        let e = variant_of(
            &KernelArgs {
                target: Some(t("gfx908")),
                ..args("ds_add_f64")
            },
            t("gfx908"),
        )
        .unwrap_err();
        assert!(
            e.starts_with("ds_add_f64 is not a gfx908 DS instruction: it needs the"),
            "{e}"
        );
        for name in ["ds_read_b32", "ds_load_b32"] {
            let v = variant_of(&args(name), t("gfx942")).unwrap();
            assert_eq!(v.op.name(), "ds_load_b32");
        }
    }

    #[test]
    fn out_writes_a_code_object_holding_the_variant() {
        let path =
            std::env::temp_dir().join(format!("ds-harness-kernel-{}.co", std::process::id()));
        let mut a = args("ds_read2_b32");
        (a.offset0, a.offset1, a.lds_size, a.no_ieee) = (Some(3), Some(9), 256, true);
        a.out = Some(path.clone());
        assert_eq!(
            run(&a, &mut std::io::sink()).unwrap(),
            ExitCode::from(EXIT_OK)
        );
        let co = code_object::read(&std::fs::read(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(co.kernels.len(), 1);
        let k = &co.kernels[0];
        assert_eq!(k.name, "ds_load_2addr_b32_o3_9_l256_m110");
        assert_eq!(k.descriptor.group_segment_fixed_size, 256);
        assert!(!k.descriptor.fp_mode().ieee);
        assert_eq!(co.target, ds_isa::target::DEFAULT);
    }

    #[test]
    fn target_builds_the_code_object_for_that_target() {
        for t in ds_kernels::kernel_targets() {
            let path = std::env::temp_dir()
                .join(format!("ds-harness-kernel-{}-{t}.co", std::process::id()));
            let mut a = args("ds_add_rtn_u32");
            a.target = Some(t);
            a.out = Some(path.clone());
            assert_eq!(
                run(&a, &mut std::io::sink()).unwrap(),
                ExitCode::from(EXIT_OK)
            );
            let co = code_object::read(&std::fs::read(&path).unwrap()).unwrap();
            std::fs::remove_file(&path).unwrap();
            assert_eq!(co.target, t);
            assert_eq!(co.e_flags & 0xff, u32::from(t.machine));
        }
        // A target kernels are not built for: the CLI refuses it before it gets here.
        for t in ds_isa::target::TARGETS {
            let parsed = crate::cli::parse_kernel_target(t.name);
            assert_eq!(parsed.is_ok(), ds_kernels::check_target(t).is_ok(), "{t}");
        }
    }
}
