//! Op cards (`ds-harness doc OP`): one DS instruction explained from the DS table and the
//! reference model: the encoding layout with bit ranges, operands, offset form, the GDS rule,
//! semantics in words, HIP runnability, the model's open questions, worked examples computed by
//! the model, and which of them a hardware recording under `snapshots/hardware/` confirms.
//!
//! Sources: the bit layout is measured from the project's own encoder and decoder
//! (`ds_isa::ds::encode`, after the RDNA3 ISA guide's "Microcode Formats", DS) by flipping
//! one bit at a time of a known instruction; every per-op fact comes from the table row
//! (`ds_isa::ds::DS_OPS`); semantics in words follow the row's family and element type as
//! `ds_reference::model` executes them; open questions come from `ds_reference::model::questions`.

use crate::record::Recording;
use ds_isa::ds::encode::{field_shift, DS_ENCODING};
use ds_isa::ds::{doc, DsInst, DsOp, Family, Field, Gds, Generation, Isa, OffsetForm, OpInfo};
use ds_isa::error::{DecodeError, InstError};
use ds_isa::target::{Kind, Target};
use ds_kernels::generator;
use ds_reference::model::{questions, snapshot};
use ds_reference::wave::WaveSize;
use std::fmt::Write as _;

/// One field of the 64-bit DS word: its bit range and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    /// Highest bit.
    pub hi: u32,
    /// Lowest bit.
    pub lo: u32,
    /// What the bits are.
    pub part: Part,
}

/// The parts of a DS word, as found by flipping bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// OFFSET0.
    Offset0,
    /// OFFSET1.
    Offset1,
    /// The reserved bit(s).
    Reserved,
    /// GDS.
    Gds,
    /// ACC (targets whose DS operands may be AccVGPRs).
    Acc,
    /// OP.
    Op,
    /// The format's fixed ENCODING bits.
    Encoding,
    /// A register field.
    Reg(RegField),
}

/// A register field, ordered by its place in the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RegField {
    /// ADDR.
    Addr,
    /// DATA0.
    Data0,
    /// DATA1.
    Data1,
    /// VDST.
    Vdst,
}

impl RegField {
    fn field(self) -> Field {
        match self {
            RegField::Addr => Field::Addr,
            RegField::Data0 => Field::Data0,
            RegField::Data1 => Field::Data1,
            RegField::Vdst => Field::Vdst,
        }
    }
}

/// The DS word layout of the instruction set `isa` (a target, or a generation), measured: take
/// an op of it that uses every field (the first such table row, one whose gds is optional where
/// there is one), encode it with distinct small values, flip each of the 64 bits and decode. A
/// flip the decoder calls "not DS" is an ENCODING bit; "reserved bit", or a gds bit the
/// generation does not have, is reserved; a gds bit the target may lack is GDS; otherwise the
/// field that changed (or an opcode the table lacks) names the bit. Contiguous bits of one part
/// form one range.
pub fn layout(isa: impl Into<Isa>) -> Vec<BitField> {
    let isa: Isa = isa.into();
    let gen = isa.gen;
    let every_field = |r: &&ds_isa::ds::OpInfo| {
        r.on(isa)
            && Field::ALL.iter().all(|&f| r.operands.dwords(f) > 0)
            && r.offset == OffsetForm::Single
    };
    let probe = ds_isa::ds::DS_TABLE
        .iter()
        .filter(every_field)
        .find(|r| r.gds_in(gen) == Gds::Allowed || !gen.has_gds())
        .expect("the table has an op with every register field and an offset");
    let mut inst = DsInst::new(probe.op);
    for (k, f) in Field::ALL.into_iter().enumerate() {
        inst.set_reg(f, 1 + k as u8);
    }
    let inst = inst.with_offset16(0x0201);
    let word = inst.encode(isa).expect("the probe instruction is legal");
    let part_of = |bit: u32| -> Part {
        match DsInst::decode(isa, word ^ (1 << bit)) {
            Err(DecodeError::NotDs { .. }) => Part::Encoding,
            Err(DecodeError::ReservedBit(_) | DecodeError::Inst(InstError::NoGdsBit { .. })) => {
                Part::Reserved
            }
            Err(DecodeError::Inst(InstError::NoGds { .. })) => Part::Gds,
            Err(_) => Part::Op,
            Ok(d) if d.op != inst.op => Part::Op,
            Ok(d) if d.offset0 != inst.offset0 => Part::Offset0,
            Ok(d) if d.offset1 != inst.offset1 => Part::Offset1,
            Ok(d) if d.gds != inst.gds => Part::Gds,
            Ok(d) if d.acc != inst.acc => Part::Acc,
            Ok(d) => {
                let changed = |f: Field| d.reg(f) != inst.reg(f);
                match () {
                    _ if changed(Field::Addr) => Part::Reg(RegField::Addr),
                    _ if changed(Field::Data0) => Part::Reg(RegField::Data0),
                    _ if changed(Field::Data1) => Part::Reg(RegField::Data1),
                    _ if changed(Field::Vdst) => Part::Reg(RegField::Vdst),
                    _ => panic!("bit {bit} of the DS word changes nothing the decoder reports"),
                }
            }
        }
    };
    let mut out: Vec<BitField> = Vec::new();
    for bit in 0..64 {
        let part = part_of(bit);
        match out.last_mut() {
            Some(last) if last.part == part && last.hi + 1 == bit => last.hi = bit,
            _ => out.push(BitField {
                hi: bit,
                lo: bit,
                part,
            }),
        }
    }
    out
}

fn range(f: &BitField) -> String {
    if f.hi == f.lo {
        format!("[{}]", f.lo)
    } else {
        format!("[{}:{}]", f.hi, f.lo)
    }
}

pub(super) fn words(n: u8) -> String {
    format!("{n} dword{}", if n == 1 { "" } else { "s" })
}

/// What the field holds for `info`.
fn field_use(info: &OpInfo, f: &BitField, fields: &[BitField], gen: Generation) -> String {
    match f.part {
        Part::Offset0 | Part::Offset1 => {
            let low = f.part == Part::Offset0;
            match info.offset {
                OffsetForm::Single => format!(
                    "{} byte of the 16-bit byte offset",
                    if low { "low" } else { "high" }
                ),
                OffsetForm::Pair | OffsetForm::Stride64 => format!(
                    "offset{} for the {} address, in units of {} bytes",
                    if low { 0 } else { 1 },
                    if low { "first" } else { "second" },
                    info.offset_scale()
                ),
                OffsetForm::Swizzle => format!(
                    "{} byte of the 16-bit swizzle pattern",
                    if low { "low" } else { "high" }
                ),
                OffsetForm::NoOffset => "0 (no offset)".into(),
            }
        }
        Part::Reserved => "0 (reserved; the decoder rejects a set bit)".into(),
        Part::Gds => match info.gds {
            Gds::Forbidden => "0 (LDS only)".into(),
            Gds::Allowed => "0 = LDS, 1 = GDS".into(),
            Gds::Required => "1 (GDS only)".into(),
        },
        Part::Acc => "0 = VGPRs, 1 = vdst and data are AccVGPRs".into(),
        Part::Op => {
            // The opcodes of the generations that spell the op as the card's does (gfx9 and
            // gfx10 by the gfx9 names, the later ones by the table's).
            let gens = move || {
                info.generations()
                    .filter(move |g| g.gfx9_mnemonics() == gen.gfx9_mnemonics())
            };
            let opcodes: Vec<String> = gens()
                .map(|g| format!("{:#04x}", info.op.opcode(g).expect("the op's generation")))
                .collect();
            let gens: Vec<&str> = gens().map(|g| g.name()).collect();
            if opcodes.windows(2).all(|w| w[0] == w[1]) {
                format!("{} (this op's row of the DS table)", opcodes[0])
            } else {
                format!(
                    "{} ({}; this op's row of the DS table)",
                    opcodes.join(" / "),
                    gens.join(" / ")
                )
            }
        }
        Part::Encoding => format!("{DS_ENCODING:#08b} (the DS format)"),
        Part::Reg(r) => {
            let field = r.field();
            // A field whose register sits in another byte (the GWS quirk) is named there.
            let moved: Vec<&str> = Field::ALL
                .into_iter()
                .filter(|&g| {
                    info.operands.dwords(g) > 0
                        && g != field
                        && fields.iter().any(|b| {
                            b.part == f.part && field_shift(info, g) == b.lo && b.lo == f.lo
                        })
                })
                .map(Field::name)
                .collect();
            let n = info.operands.dwords(field);
            let own_here = n > 0 && field_shift(info, field) == f.lo;
            match (own_here, moved.first()) {
                (true, _) if n == 1 => format!("{}: one VGPR", field.name()),
                (true, _) => format!("{}: first of {n} VGPRs", field.name()),
                (false, Some(g)) => format!("{g}: first VGPR (held in this byte)"),
                (false, None) => "unused: 0".into(),
            }
        }
    }
}

fn part_name(p: Part) -> &'static str {
    match p {
        Part::Offset0 => "OFFSET0",
        Part::Offset1 => "OFFSET1",
        Part::Reserved => "reserved",
        Part::Gds => "GDS",
        Part::Acc => "ACC",
        Part::Op => "OP",
        Part::Encoding => "ENCODING",
        Part::Reg(RegField::Addr) => "ADDR",
        Part::Reg(RegField::Data0) => "DATA0",
        Part::Reg(RegField::Data1) => "DATA1",
        Part::Reg(RegField::Vdst) => "VDST",
    }
}

fn operands(info: &OpInfo) -> String {
    let parts: Vec<String> = Field::ALL
        .into_iter()
        .filter(|&f| info.operands.dwords(f) > 0)
        .map(|f| format!("{} ({})", f.name(), words(info.operands.dwords(f))))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

fn offset_rule(info: &OpInfo) -> String {
    match info.offset {
        OffsetForm::Single => "`offset:N`, one unsigned 16-bit byte offset (0..65535)".into(),
        OffsetForm::Pair => format!(
            "`offset0:N offset1:M`, two 8-bit offsets in units of the element size ({} bytes)",
            info.offset_scale()
        ),
        OffsetForm::Stride64 => format!(
            "`offset0:N offset1:M`, two 8-bit offsets in units of 64 elements ({} bytes)",
            info.offset_scale()
        ),
        OffsetForm::Swizzle => "`offset:swizzle(...)` or a number: the 16-bit lane pattern".into(),
        OffsetForm::NoOffset => "none (both offset bytes must be 0)".into(),
    }
}

fn gds_rule(info: &OpInfo) -> &'static str {
    match info.gds {
        Gds::Forbidden => "forbidden: the op addresses LDS only",
        Gds::Allowed => "allowed: LDS by default, GDS with `gds` (the harness runs LDS only)",
        Gds::Required => "required: the op addresses GDS only",
    }
}

/// Appends `text` after `lead`, wrapped at 100 columns with continuation lines indented.
pub(super) fn wrap(s: &mut String, lead: &str, text: &str) {
    let indent = " ".repeat(lead.len());
    let mut line = lead.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.len() + 1 + word.len() > 100 {
            let _ = writeln!(s, "{line}");
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(s, "{line}");
}

fn hex_words(v: &[u32]) -> String {
    v.iter()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// One worked example: the case's active lanes' inputs, vdst out, and the LDS words it changed.
pub(super) fn example(s: &mut String, e: &snapshot::Entry, target: &Target) {
    let info = e.variant.op.info();
    let w = &e.case.wave;
    let o = &info.operands;
    let inst = generator::test_inst(target, &e.variant).unwrap_or_else(|_| e.variant.inst());
    let inst = inst.text(target.generation);
    let _ = writeln!(
        s,
        "  case {}: {inst}   exec {:#010x}{}",
        e.name,
        w.exec,
        if matches!(
            info.family,
            Family::Append | Family::Consume | Family::LoadAddTid | Family::StoreAddTid
        ) {
            format!("  m0 {:#010x}", w.m0)
        } else {
            String::new()
        }
    );
    if crate::run::legal::lanes_share_bytes(&e.variant, &e.case) {
        let _ = writeln!(
            s,
            "    (active lanes share LDS bytes: outputs in the model's ascending lane order; any serial order is legal)"
        );
    }
    if !e.variant.mode.fp32_denormals || !e.variant.mode.ieee {
        let _ = writeln!(
            s,
            "    FP mode: {}",
            crate::record::fp_mode_name(e.variant.mode)
        );
    }
    for i in w.active_lanes() {
        let l = &w.lanes[i];
        let mut line = format!("    lane {i:2}:");
        if o.addr > 0 {
            let _ = write!(line, " addr={:#06x}", l.addr);
        }
        if o.data0 > 0 {
            let _ = write!(line, " data0={}", hex_words(&l.data0[..o.data0 as usize]));
        }
        if o.data1 > 0 {
            let _ = write!(line, " data1={}", hex_words(&l.data1[..o.data1 as usize]));
        }
        if o.vdst > 0 {
            let _ = write!(
                line,
                " -> vdst={}",
                hex_words(&e.outcome.vdst[i][..o.vdst as usize])
            );
        }
        if (info.writes_addr() || e.variant.regs.is_some()) && e.outcome.addr[i] != l.addr {
            let _ = write!(line, " addr'={:#06x}", e.outcome.addr[i]);
        }
        // With `regs`, data registers that VDST overlaps end with its values.
        for (name, out, before, n) in [
            ("data0'", &e.outcome.data0, &l.data0, o.data0),
            ("data1'", &e.outcome.data1, &l.data1_low(), o.data1),
        ] {
            if let Some(d) = out.as_ref().filter(|d| d[i] != *before) {
                let _ = write!(line, " {name}={}", hex_words(&d[i][..n as usize]));
            }
        }
        let _ = writeln!(s, "{line}");
    }
    let changed: Vec<String> = (0..e.case.lds.size().min(e.outcome.lds.size()))
        .step_by(4)
        .filter(|&at| e.case.lds.word(at) != e.outcome.lds.word(at))
        .map(|at| {
            format!(
                "[{at:#06x}] {:08x}->{:08x}",
                e.case.lds.word(at),
                e.outcome.lds.word(at)
            )
        })
        .collect();
    if changed.is_empty() {
        if info.accesses_lds() {
            let _ = writeln!(s, "    LDS: unchanged");
        }
    } else {
        for chunk in changed.chunks(3) {
            let _ = writeln!(s, "    LDS: {}", chunk.join("  "));
        }
    }
}

/// Whether the recordings confirm `e`: the hardware ones that hold the same case, and whether
/// each agrees with the model; emulated ones are named as such, never as hardware.
pub(super) fn confirmations(e: &snapshot::Entry, recordings: &[Recording]) -> Vec<String> {
    let mut out = Vec::new();
    for r in recordings.iter().filter(|r| r.op == e.variant.op) {
        let Some(rec) = r
            .entries
            .iter()
            .find(|x| x.name == e.name && x.variant == e.variant && x.case == e.case)
        else {
            continue;
        };
        let gpu = r.provenance.get("gpu").unwrap_or("unknown GPU");
        let arch = r.provenance.get("arch").unwrap_or("unknown arch");
        let same = rec.outcome == e.outcome;
        // An external device's word that it is a GPU is its own: said so.
        let reported = if r.provenance.backend() == "exec" {
            ", hardware as reported by the device"
        } else {
            ""
        };
        out.push(match (r.provenance.is_hardware(), same) {
            (true, true) => format!("confirmed on {gpu} ({arch}{reported})"),
            (true, false) => format!(
                "DIFFERS on {gpu} ({arch}{reported}): see {}",
                r.path
                    .file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().to_string())
            ),
            (false, true) => format!("the emulated device ({arch}) agrees; not hardware"),
            (false, false) => format!("the emulated device ({arch}) differs; not hardware"),
        });
    }
    out
}

/// What the card of a target says about targets: the model is one per generation and knows no
/// difference between the targets of one, a claim for each target's hardware to confirm.
pub fn target_note(target: &Target) -> String {
    let g = target.generation;
    let others: Vec<&str> = g
        .targets()
        .filter(|t| *t != target)
        .map(|t| t.name)
        .collect();
    format!(
        "Target: {target} ({} {}). The model knows no difference between {target} and the other \
         {g} targets ({}): it is one model per generation, a claim recordings from each target's \
         hardware will confirm or refute.",
        target.family,
        match target.kind {
            Kind::Dgpu => "GPU",
            Kind::Apu => "APU",
            Kind::Generic => "generic target",
        },
        others.join(", ")
    )
}

/// The card of `op` on `target` (its generation's rules and questions, the model's examples by
/// those rules); `recordings` are the recordings to mark examples with.
pub fn card(op: DsOp, target: &Target, recordings: &[Recording]) -> String {
    let gen = target.generation;
    let info = op.info();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({}, {})",
        info.name,
        match info.family {
            Family::Rmw(r) => format!("atomic {r:?}").to_lowercase(),
            Family::Load(_) => "load".into(),
            Family::Store(_) => "store".into(),
            Family::LoadTranspose(tr) => format!("transpose load of {}-bit elements", tr.bits),
            Family::BarrierArrive => "barrier arrive".into(),
            f => format!("{f:?}").to_lowercase(),
        },
        semantics::elem_words(info.elem)
    );
    if let Some(l) = info.legacy_name {
        // The older spelling may be another row's mnemonic (gfx12 renamed gfx11's min/max on
        // floats to `_num`): the table says whose.
        match ds_isa::ds::DS_TABLE.iter().find(|r| r.name == l) {
            None => {
                let _ = writeln!(s, "Also accepted as the older name {l}.");
            }
            Some(other) => {
                let gens: Vec<&str> = other.generations().map(|g| g.name()).collect();
                let _ = writeln!(
                    s,
                    "Also accepted as {l}, its {} name ({}'s {l} is another op).",
                    gens.join("/"),
                    gens.join("/")
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "HIP: {}",
        match info.hip_unsupported {
            None => "runnable from a compute kernel".to_string(),
            Some(why) => format!("not runnable: {why}"),
        }
    );
    // The model's standing on this target: judged from sources, inferred, or run unjudged.
    let judged = ds_reference::model::judged(target, op);
    if let (true, Err(u)) = (info.hip_runnable() && info.on(target), judged) {
        let _ = writeln!(s, "Model: runs, not judged (not modelled): {}", u.why);
    } else if let Some(why) = ds_reference::model::inferred(op) {
        let _ = writeln!(s, "Model: {why}");
    }

    let fields = layout(target);
    let _ = writeln!(s, "\nEncoding (64 bits, little-endian in memory):");
    let _ = writeln!(s, "  {:<8} {:<9} {}", "bits", "field", info.name);
    for f in fields.iter().rev() {
        let _ = writeln!(
            s,
            "  {:<8} {:<9} {}",
            range(f),
            part_name(f.part),
            field_use(info, f, &fields, gen)
        );
    }
    let ex = doc::example(target, op);
    if let Ok(bytes) = ex.to_bytes(target) {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(s, "  e.g. {}  =>  {}", ex.text(gen), hex.join(" "));
    }

    let _ = writeln!(s, "\nOperands: {}", operands(info));
    let _ = writeln!(s, "Offset: {}", offset_rule(info));
    let _ = writeln!(s, "GDS: {}", gds_rule(info));
    let _ = writeln!(s, "\nSemantics:");
    for line in semantics(info, gen) {
        wrap(&mut s, "  ", &line);
    }
    rules::section(&mut s, op, target, WaveSize::Wave32);

    let qs = questions::for_op(op, gen);
    let _ = writeln!(s, "\nOpen questions (where the sources leave a choice):");
    if qs.is_empty() {
        let _ = writeln!(s, "  none for this op");
    }
    for q in qs {
        let _ = writeln!(s, "  {}. {} (reference/ASSUMPTIONS.md)", q.id, q.title);
        let kinds: Vec<&str> = q.kinds.iter().map(|k| k.tag()).collect();
        wrap(
            &mut s,
            "      sources: ",
            &format!("{} [kinds: {}]", q.sources, kinds.join(", ")),
        );
        wrap(&mut s, "      choice: ", &q.choice);
        for r in &q.readings {
            let computed = ds_reference::model::readings::COMPUTED
                .iter()
                .any(|c| c.question == q.id && c.reading == r.name);
            wrap(
                &mut s,
                &format!("      {} reading: ", r.standing.word()),
                &format!(
                    "\"{}\"{}: {}",
                    r.name,
                    if computed { " (computed)" } else { "" },
                    r.text
                ),
            );
        }
        if let Some(settles) = &q.settles {
            wrap(&mut s, "      settled by: ", settles);
        }
    }

    match snapshot::model_entries(target, op) {
        Err(u) => {
            let _ = writeln!(s, "\nExamples: none ({u})");
        }
        Ok(entries) => {
            let _ = writeln!(
                s,
                "\nExamples (computed by the reference model on its snapshot corpus, by {target}'s \
                 rules; hex):"
            );
            for e in &entries {
                example(&mut s, e, target);
                let marks = confirmations(e, recordings);
                if !marks.iter().any(|m| !m.contains("not hardware")) {
                    let _ = writeln!(s, "    hardware: no recording of this case yet");
                }
                for m in marks {
                    let _ = writeln!(s, "    {m}");
                }
            }
        }
    }
    s
}

mod rules;
mod semantics;
pub use rules::{card_in, rules_for};
pub use semantics::semantics;

#[cfg(test)]
mod tests;
