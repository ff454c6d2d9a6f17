//! `ds-harness list`: the DS table as a readable table, every row as JSON, or the table's
//! markdown documentation (`ds_reference::isa::render_markdown`).

use super::EXIT_OK;
use ds_reference::isa::{OffsetForm, DS_OPS};
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
}

pub fn run(args: &ListArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(DS_OPS)?)?;
    } else if args.markdown {
        write!(out, "{}", ds_reference::isa::render_markdown())?;
    } else {
        write!(out, "{}", render_text())?;
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// One line per op: opcode, mnemonic, operands, offset form, gds, family, and HIP runnability.
pub fn render_text() -> String {
    let mut s = format!(
        "{:<6} {:<38} {:<18} {:<9} {:<9} {:<22} {}\n",
        "opcode", "mnemonic", "vdst/addr/d0/d1", "offset", "gds", "family", "hip"
    );
    for r in DS_OPS {
        let o = r.operands;
        let offset = match r.offset {
            OffsetForm::Single => "offset",
            OffsetForm::Pair => "off0/off1",
            OffsetForm::Stride64 => "st64",
            OffsetForm::Swizzle => "swizzle",
            OffsetForm::NoOffset => "-",
        };
        let family = format!("{:?} {}", r.family, r.elem.suffix());
        s += &format!(
            "{:#04x}   {:<38} {:<18} {:<9} {:<9} {:<22} {}\n",
            r.opcodes[0].expect("DS_OPS holds the gfx11 rows"),
            r.name,
            format!("{}/{}/{}/{}", o.vdst, o.addr, o.data0, o.data1),
            offset,
            format!("{:?}", r.gds),
            family,
            if r.hip_runnable() { "yes" } else { "no" }
        );
    }
    let runnable = DS_OPS.iter().filter(|r| r.hip_runnable()).count();
    s += &format!("{} ops, {} runnable from HIP\n", DS_OPS.len(), runnable);
    s
}
