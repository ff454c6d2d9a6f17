//! The DS table rendered as markdown: the documentation of the table, generated from it (and
//! pinned by the insta snapshots `snapshots/reference/<gen>/ds_table.snap`).
//!
//! Facts are the table's ([`DS_TABLE`], sourced from the RDNA3 and RDNA4 ISA guides, and for
//! gfx9 and gfx10 LLVM's `DSInstructions.td` and AMD's Vega, CDNA, RDNA1 and RDNA2 guides); the
//! example column is printed and encoded by this crate, and the same texts are checked against
//! llvm-mc-19 and llvm-mc-22 by `reference/tests/all/llvm_oracle.rs`.

use super::{
    DsFeatures, DsInst, DsOp, Family, Field, Gds, Isa, OffsetForm, OpInfo, Oracle, DS_TABLE,
};
use std::fmt::Write;

/// The gfx11 or gfx12 DS table of an instruction set (a generation, or one target) as one
/// markdown document: a legend, one row per opcode, then the notes (gfx9 and gfx10:
/// `doc_gfx9`).
pub(super) fn render(isa: Isa) -> String {
    let gen = isa.gen;
    let rows: Vec<&OpInfo> = DS_TABLE.iter().filter(|r| r.on(isa)).collect();
    let mut rows = rows;
    rows.sort_by_key(|r| r.opcodes[gen.column()]);
    // A generation with GDS gets the gds column (and RDNA3's preface), one without the oracle
    // column (and RDNA4's).
    let gfx11 = gen.has_gds();
    let mut s = String::new();
    let returning = rows.iter().filter(|r| r.returns()).count();
    let runnable = rows.iter().filter(|r| r.hip_runnable()).count();
    let legacy = rows.iter().filter(|r| r.legacy_name.is_some()).count();
    let _ = writeln!(s, "# {gen} DS instructions\n");
    // The oracle runs for the generation's first target (the target table names them).
    let cpu = gen.targets().next().map_or("?", |t| t.name);
    let source = gen.spec().ds_doc.source;
    if gfx11 {
        let _ = write!(
            s,
            "Generated from the DS table in `isa/src/ds/table.rs` (source: {source}). Encodings \
             and syntax follow LLVM (`llvm-mc-19` and `llvm-mc-22 -arch=amdgcn -mcpu={cpu}`, \
             which agree on every op).\n\n"
        );
        let _ = writeln!(
            s,
            "{} opcodes; {returning} return a value in vdst; {runnable} can run from a HIP compute \
             kernel; {legacy} also accept a pre-gfx11 name as input.\n",
            rows.len()
        );
    } else {
        let newer = rows
            .iter()
            .filter(|r| oracle(gen, r) == Oracle::Llvm22)
            .count();
        if generation_oracle(gen) == Oracle::Llvm22 {
            let _ = write!(
                s,
                "Generated from the DS table in `isa/src/ds/table.rs` (source: {source}). \
                 Encodings and syntax follow LLVM (`llvm-mc-{} -arch=amdgcn -mcpu={cpu}`; LLVM 19 \
                 knows no {gen} target, so the oracle column says `llvm-mc-22` for every op).\n\n",
                gen.spec().oldest_llvm
            );
        } else {
            let _ = write!(
                s,
                "Generated from the DS table in `isa/src/ds/table.rs` (source: {source}). \
                 Encodings and syntax follow LLVM (`llvm-mc-19` and `llvm-mc-22 -arch=amdgcn \
                 -mcpu={cpu}`); the oracle column says which LLVM first knows each op: \
                 `llvm-mc-22` for the {newer} that LLVM 19 does not know (their opcodes are also \
                 the guide's).\n\n"
            );
        }
        let aliases: Vec<String> = super::aliases_of(gen)
            .map(|a| format!("`{}` ({})", a.name, a.op))
            .collect();
        let _ = writeln!(
            s,
            "{} opcodes ({} known to LLVM 19, {newer} only to LLVM 22); {returning} return a \
             value in vdst; {runnable} can run from a HIP compute kernel here; {legacy} also \
             accept an older name as input. There is no gds bit.\n",
            rows.len(),
            rows.len() - newer
        );
        if !aliases.is_empty() {
            let _ = writeln!(
                s,
                "Also read as input on {gen} only (and printed as the op's mnemonic): {}.\n",
                aliases.join(", ")
            );
        }
    }
    s += "Columns: **operands** are the VGPR operands in LLVM order with their widths in dwords; \
          **offset** is `offset:N` (16-bit bytes), `offset0/1` (two 8-bit offsets in units of \
          the element size), `st64` (the same in units of 64 elements), `swizzle` (a lane \
          pattern) or `-`; ";
    if gfx11 {
        s += "**gds** says whether `gds` is allowed, required or forbidden; \
              **example** is one instance and its 8 bytes in memory order.\n\n";
        s += "| opcode | mnemonic | legacy name | operands | offset | gds | family | elem | HIP | example | bytes |\n";
        s += "|---|---|---|---|---|---|---|---|---|---|---|\n";
    } else {
        s += "**oracle** is the oldest LLVM whose assembler and disassembler agree byte for byte; \
              **example** is one instance and its 8 bytes in memory order.\n\n";
        s += "| opcode | mnemonic | legacy name | operands | offset | oracle | family | elem | HIP | example | bytes |\n";
        s += "|---|---|---|---|---|---|---|---|---|---|---|\n";
    }
    for r in &rows {
        let example = example(isa, r.op);
        let bytes = example
            .to_bytes(gen)
            .expect("the example is legal: table invariant");
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(
            s,
            "| `{:#04x}` | `{}` | {} | {} | {} | {} | {} | {} | {} | `{}` | `{}` |",
            r.opcodes[gen.column()].expect("rows of the generation"),
            r.name,
            r.legacy_name.map_or("".into(), |l| format!("`{l}`")),
            operands(r),
            offset_form(r.offset),
            if gfx11 {
                gds(r.gds)
            } else {
                match oracle(gen, r) {
                    Oracle::Llvm19 => "llvm-mc-19",
                    Oracle::Llvm22 => "llvm-mc-22",
                }
            },
            family(r.family),
            r.elem.suffix(),
            if r.hip_runnable() { "yes" } else { "no" },
            example.text(gen),
            hex.join(" ")
        );
    }
    s += "\n## Notes\n\n";
    for note in gen.spec().ds_doc.notes {
        let _ = writeln!(s, "- {note}");
    }
    s += "- `ds_swizzle_b32` offsets print as LLVM 19's `swizzle(QUAD_PERM|BITMASK_PERM|BROADCAST|\
          SWAP|REVERSE,...)` macros where one applies, otherwise as a number (LLVM 22 prints the \
          offsets from 0xC000 as `swizzle(ROTATE,..)`/`swizzle(FFT,..)`, dropping bits the macro \
          lacks; both forms are read).\n";
    if gfx11 {
        s += "\nWhy some ops cannot run from a HIP compute kernel:\n\n";
    } else if rows.iter().any(|r| r.hip_unsupported.is_some()) {
        s += "\nWhy some ops cannot run here:\n\n";
    }
    for r in &rows {
        if let Some(why) = r.hip_unsupported {
            let _ = writeln!(s, "- `{}`: {why}", r.name);
        }
    }
    s
}

/// A legal instance of `op` in the instruction set `isa`, for docs and messages: registers
/// numbered from v1 in operand order (each register tuple, and GWS data register, starting even
/// where the target needs it), a small offset, `gds` only where required.
pub fn example(isa: impl Into<Isa>, op: DsOp) -> DsInst {
    let isa = isa.into();
    let mut inst = numbered(op);
    if !isa.has(DsFeatures::UNALIGNED) {
        let r = op.info();
        let mut next = 2u8;
        for field in Field::ALL {
            let dwords = r.operands.dwords(field);
            if dwords > 0 {
                inst.set_reg(field, next);
                next += dwords + dwords % 2;
            }
        }
    }
    inst
}

/// An instance of `op` in any generation that has it, for messages: registers numbered from v1
/// in operand order, a small offset, `gds` only where required (legal where tuples may start
/// odd; [`example`] is legal on the instruction set it is asked for).
pub fn numbered(op: DsOp) -> DsInst {
    let r = op.info();
    let mut inst = DsInst::new(r.op);
    let mut next = 1u8;
    for field in Field::ALL {
        let dwords = r.operands.dwords(field);
        if dwords > 0 {
            inst.set_reg(field, next);
            next += dwords;
        }
    }
    inst = match r.offset {
        OffsetForm::Single => inst.with_offset16(16),
        OffsetForm::Pair | OffsetForm::Stride64 => inst.with_offset16(0x0201),
        OffsetForm::Swizzle => inst.with_offset16(0x801b),
        OffsetForm::NoOffset => inst,
    };
    inst.gds = r.gds == Gds::Required;
    inst
}

pub(super) fn operands(r: &OpInfo) -> String {
    let parts: Vec<String> = Field::ALL
        .into_iter()
        .filter_map(|f| match r.operands.dwords(f) {
            0 => None,
            1 => Some(f.name().to_string()),
            n => Some(format!("{}×{n}", f.name())),
        })
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(", ")
    }
}

pub(super) fn offset_form(o: OffsetForm) -> &'static str {
    match o {
        OffsetForm::Single => "offset",
        OffsetForm::Pair => "offset0/1",
        OffsetForm::Stride64 => "st64",
        OffsetForm::Swizzle => "swizzle",
        OffsetForm::NoOffset => "-",
    }
}

pub(super) fn gds(g: Gds) -> &'static str {
    match g {
        Gds::Allowed => "allowed",
        Gds::Required => "required",
        Gds::Forbidden => "forbidden",
    }
}

pub(super) fn family(f: Family) -> String {
    match f {
        Family::Rmw(rmw) => format!("rmw {rmw:?}").to_lowercase(),
        Family::Load(d16) | Family::Store(d16) => {
            let base = if matches!(f, Family::Load(_)) {
                "load"
            } else {
                "store"
            };
            match d16 {
                super::D16::No => base.to_string(),
                super::D16::Lo => format!("{base} d16"),
                super::D16::Hi => format!("{base} d16 hi"),
            }
        }
        Family::LoadTranspose(t) => format!("load_transpose({})", t.bits),
        other => snake(&format!("{other:?}")),
    }
}

/// `OrderedCount` -> `ordered_count`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The oldest oracle LLVM that knows row `r` on `gen`: the row's, or a newer one where the older
/// LLVM knows no target of the generation.
fn oracle(gen: crate::gen::Generation, r: &OpInfo) -> Oracle {
    r.oracle.max(generation_oracle(gen))
}

/// The oldest oracle LLVM that knows a target of `gen` ([`crate::gen::Spec::oldest_llvm`]).
fn generation_oracle(gen: crate::gen::Generation) -> Oracle {
    if gen.spec().oldest_llvm <= Oracle::Llvm19.llvm() {
        Oracle::Llvm19
    } else {
        Oracle::Llvm22
    }
}
