//! `ds-harness list`: the DS table of a target as a readable table, every row as JSON, or the
//! table's markdown documentation (`ds_isa::ds::render_markdown_in`): the ops the target
//! has (its generation's column and its DS features), in the generation's spelling.

use super::EXIT_OK;
use ds_isa::ds::{Family, Isa, OffsetForm, OpInfo, DS_TABLE};
use ds_isa::target::{Generation, Target};
use ds_reference::wave::WaveSize;
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Print every row of the table as JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the table's documentation as markdown.
    #[arg(long)]
    pub markdown: bool,
    /// The target whose DS table is listed: its generation's ops that it has (default: the
    /// default target).
    #[arg(long, value_name = "NAME", value_parser = super::parse_target)]
    pub target: Option<&'static Target>,
}

pub fn run(args: &ListArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let target = args.target.unwrap_or(ds_isa::target::DEFAULT);
    let isa = Isa::of(target);
    if args.json {
        let rows: Vec<&OpInfo> = rows(isa);
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else if args.markdown {
        // The generation's table where every target of it has the same ops (gfx11, gfx12).
        let same = target
            .generation
            .targets()
            .all(|t| t.ds_features == target.ds_features);
        let md = if same {
            ds_isa::ds::render_markdown(target.generation)
        } else {
            ds_isa::ds::render_markdown(isa)
        };
        write!(out, "{md}")?;
        write!(out, "{}", model_notes(target, "- "))?;
    } else {
        write!(out, "{}", render_text_in(isa))?;
        write!(out, "{}", model_notes(target, ""))?;
        writeln!(out, "{}", generation_line(target))?;
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// One line (prefixed `bullet`) per runnable op of `target` whose model is inferred, or that runs
/// but is not judged, with why (ASSUMPTIONS.md V9); nothing when every op is sourced.
pub fn model_notes(target: &Target, bullet: &str) -> String {
    let mut s = String::new();
    for r in DS_TABLE.iter().filter(|r| r.on(target) && r.hip_runnable()) {
        let name = r.op.mnemonic(target.generation);
        if let Err(u) = ds_reference::model::judged(target, r.op) {
            s += &format!(
                "{bullet}{name}: runs, not judged (not modelled): {}\n",
                u.why
            );
        } else if let Some(why) = ds_reference::model::inferred(r.op) {
            s += &format!("{bullet}{name}: model {why}\n");
        }
    }
    s
}

/// Which targets share the table listed for `target`.
pub fn generation_line(target: &Target) -> String {
    let g = target.generation;
    let all: Vec<&str> = g.targets().map(|t| t.name).collect();
    let alike: Vec<&str> = g
        .targets()
        .filter(|t| t.ds_features == target.ds_features)
        .map(|t| t.name)
        .collect();
    if alike.len() == all.len() {
        format!(
            "the {g} DS table, for {target}; every {g} target decodes the same table: {}",
            all.join(", ")
        )
    } else {
        format!(
            "the {g} DS table for {target}, the ops it has (DS features: {}); the {g} targets with \
             the same ops: {} (all {g} targets: {})",
            target.ds_features,
            alike.join(", "),
            all.join(", ")
        )
    }
}

/// The DS table rows of `isa`, in its generation's opcode order.
fn rows(isa: Isa) -> Vec<&'static OpInfo> {
    let gen = isa.gen;
    let mut rows: Vec<&OpInfo> = DS_TABLE.iter().filter(|r| r.on(isa)).collect();
    rows.sort_by_key(|r| r.op.opcode(gen));
    rows
}

/// What differs in wave64 for a row of generation `gen`: the ids of the wave64 questions
/// (ASSUMPTIONS.md W1-W10) that apply on the generation, `same` when none does, `-` when the op does not run from
/// HIP or the generation's kernels are not built in wave64.
fn wave64_column(gen: Generation, r: &OpInfo) -> String {
    let built = gen
        .targets()
        .next()
        .is_some_and(|t| ds_kernels::wave_sizes(t).contains(&WaveSize::Wave64));
    if !r.hip_runnable() || !built {
        return "-".into();
    }
    let ids: Vec<String> = ds_reference::model::questions::for_op(r.op, gen)
        .into_iter()
        .filter(|q| q.id.starts_with('W'))
        .map(|q| q.id)
        .collect();
    if ids.is_empty() {
        "same".into()
    } else {
        ids.join(",")
    }
}

/// One line per op of the instruction set `isa` (a target, or a generation): opcode, mnemonic
/// (the generation's spelling), operands, offset form, gds, family, HIP runnability and what
/// differs in wave64.
pub fn render_text_in(isa: impl Into<Isa>) -> String {
    let isa = isa.into();
    let gen = isa.gen;
    let rows = rows(isa);
    let mut s = format!(
        "{:<6} {:<38} {:<18} {:<9} {:<9} {:<22} {:<4} {}\n",
        "opcode", "mnemonic", "vdst/addr/d0/d1", "offset", "gds", "family", "hip", "wave64"
    );
    for r in &rows {
        let o = r.operands;
        let offset = match r.offset {
            OffsetForm::Single => "offset",
            OffsetForm::Pair => "off0/off1",
            OffsetForm::Stride64 => "st64",
            OffsetForm::Swizzle => "swizzle",
            OffsetForm::NoOffset => "-",
        };
        let family = match r.family {
            // The element width names a transpose; its lane map and EXEC rule are on its card.
            Family::LoadTranspose(tr) => format!("LoadTranspose({}) {}", tr.bits, r.elem.suffix()),
            f => format!("{f:?} {}", r.elem.suffix()),
        };
        s += &format!(
            "{:#04x}   {:<38} {:<18} {:<9} {:<9} {:<22} {:<4} {}\n",
            r.op.opcode(gen).expect("rows of the generation"),
            r.op.mnemonic(gen),
            format!("{}/{}/{}/{}", o.vdst, o.addr, o.data0, o.data1),
            offset,
            format!("{:?}", r.gds_on(isa)),
            family,
            if r.hip_runnable() { "yes" } else { "no" },
            wave64_column(gen, r)
        );
    }
    let runnable = rows.iter().filter(|r| r.hip_runnable()).count();
    s += &format!("{} ops, {} runnable from HIP\n", rows.len(), runnable);
    s += "wave64: the wave64 questions that apply (reference/ASSUMPTIONS.md; \
          `ds-harness doc OP --wave 64`), `same`: nothing differs from wave32, \
          `-`: not run in wave64\n";
    s
}
