//! The gfx9 and gfx10 DS tables rendered as markdown ([`super::render_markdown`] for a
//! generation that spells ops by their gfx9 names): one row per opcode of the instruction set
//! (a target's, or what every target of the generation has), in the generation's spelling.
//!
//! Facts are the table's ([`DS_TABLE`]: LLVM's `DSInstructions.td` and MC tests, AMD's Vega,
//! CDNA, RDNA1 and RDNA2 ISA guides); the examples are printed and encoded by this crate and the
//! same texts checked against llvm-mc-19 and llvm-mc-22 by `reference/tests/llvm_oracle.rs`.

use super::doc::{example, family, gds, offset_form, operands};
use super::{DsFeatures, Isa, OpInfo, Oracle, DS_TABLE};
use std::fmt::Write;

/// The table of `isa` (a gfx9 or gfx10 target, or the generation).
pub fn render(isa: Isa) -> String {
    let gen = isa.gen;
    let mut rows: Vec<&OpInfo> = DS_TABLE.iter().filter(|r| r.on(isa)).collect();
    rows.sort_by_key(|r| r.opcodes[gen.column()]);
    let cpu = if isa.name == gen.name() {
        gen.targets().next().map_or("?", |t| t.name)
    } else {
        isa.name
    };
    let mut s = String::new();
    let returning = rows.iter().filter(|r| r.returns()).count();
    let runnable = rows.iter().filter(|r| r.hip_runnable()).count();
    let renamed = rows.iter().filter(|r| r.op.mnemonic(gen) != r.name).count();
    let newer = rows.iter().filter(|r| r.oracle == Oracle::Llvm22).count();
    let _ = writeln!(s, "# {isa} DS instructions\n");
    let sources = gen.spec().ds_doc.source;
    let _ = write!(
        s,
        "Generated from the DS table in `isa/src/ds/table.rs` (sources: {sources}). Encodings and \
         syntax follow LLVM (`llvm-mc-19` and `llvm-mc-22 -arch=amdgcn -mcpu={cpu}`).\n\n"
    );
    let scope = if isa.name == gen.name() {
        format!("the ops every {gen} target has")
    } else {
        format!("{isa}'s ops (DS features: {})", isa.features)
    };
    let _ = writeln!(
        s,
        "{} opcodes, {scope}; {returning} return a value in vdst; {runnable} can run from a HIP \
         compute kernel here; {renamed} are spelled by their gfx9 names, which gfx11 renamed; \
         {newer} only LLVM 22 knows.\n",
        rows.len()
    );
    s +=
        "Columns: **mnemonic** is the spelling LLVM prints and reads for this generation, **gfx11 \
          name** the row's name from gfx11 on (the harness's name for the op); **operands** the \
          VGPR operands in LLVM order with their widths in dwords; **offset** `offset:N`, \
          `offset0/1`, `st64`, `swizzle` or `-`; **gds** whether `gds` is allowed, required or \
          forbidden on this instruction set; **example** one instance and its 8 bytes in memory \
          order.\n\n";
    s += "| opcode | mnemonic | gfx11 name | operands | offset | gds | oracle | family | elem | HIP | example | bytes |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for r in &rows {
        let example = example(isa, r.op);
        let bytes = example
            .to_bytes(isa)
            .expect("the example is legal: table invariant");
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let name = r.op.mnemonic(gen);
        let _ = writeln!(
            s,
            "| `{:#04x}` | `{name}` | {} | {} | {} | {} | {} | {} | {} | {} | `{}` | `{}` |",
            r.opcodes[gen.column()].expect("rows of the generation"),
            if name == r.name {
                String::new()
            } else {
                format!("`{}`", r.name)
            },
            operands(r),
            offset_form(r.offset),
            gds(r.gds_on(isa)),
            match r.oracle {
                Oracle::Llvm19 => "llvm-mc-19",
                Oracle::Llvm22 => "llvm-mc-22",
            },
            family(r.family),
            r.elem.suffix(),
            if r.hip_runnable() { "yes" } else { "no" },
            example.text(gen),
            hex.join(" ")
        );
    }
    s += "\n## Notes\n\n";
    let l = gen.ds_layout();
    let (op_hi, op_lo) = (l.op_shift + 7, l.op_shift);
    let _ = writeln!(
        s,
        "- Encoding: offset0 [7:0], offset1 [15:8], gds [{}], op [{op_hi}:{op_lo}], {}0b110110 \
         [31:26], addr [39:32], data0 [47:40], data1 [55:48], vdst [63:56]; bit {} reserved{}.",
        l.gds_bit,
        l.acc_bit.map_or(String::new(), |b| format!(
            "acc [{b}] (targets with AccVGPR operands), "
        )),
        l.reserved_bit,
        if l.acc_bit == Some(l.reserved_bit) {
            " where it is not acc"
        } else {
            ""
        }
    );
    if isa.has(DsFeatures::ACC) {
        s += "- `acc` puts vdst and data in AccVGPRs (`a1`, `a[2:3]`; the address stays a \
              VGPR); this target also needs register tuples (and GWS data) to start at an even \
              register, and has no GDS but for the GWS ops.\n";
    }
    for note in gen.spec().ds_doc.notes {
        let _ = writeln!(s, "- {note}");
    }
    let lacking: Vec<&str> = DS_TABLE
        .iter()
        .filter(|r| r.in_generation(gen) && !r.on(isa))
        .map(|r| r.op.mnemonic(gen))
        .collect();
    if !lacking.is_empty() {
        let _ = writeln!(
            s,
            "- Ops of the {gen} table {isa} lacks (they need a DS feature it has not): {}.",
            lacking.join(", ")
        );
    }
    if isa.has(DsFeatures::ACC) {
        s += "- Every op with vdst or data also runs with `acc` (its AccVGPR form).\n";
    }
    s += "\nWhy some ops cannot run here:\n\n";
    for r in &rows {
        if let Some(why) = r.hip_unsupported {
            let _ = writeln!(s, "- `{}`: {why}", r.op.mnemonic(gen));
        }
    }
    s
}
