//! The DS instruction sets of gfx9, gfx10, gfx11, gfx12 and gfx12.5 as data: the one opcode table
//! ([`DS_TABLE`], gfx11's rows first), its field types (`types`), the instruction set one target
//! decodes ([`Isa`]: a generation and the target's [`DsFeatures`]), and what is derived from them
//! (encoder and decoder in [`encode`], LLVM assembly syntax in [`syntax`], swizzle patterns in
//! [`swizzle`], the table's markdown documentation in [`doc`]), each for the instruction set it
//! is asked for. Their errors are [`crate::error`]'s.
//!
//! Facts come from AMD's ISA guides (RDNA3 and RDNA4, chapter "Microcode Formats", DS; the DS
//! opcode lists of the Vega, CDNA, RDNA1 and RDNA2 guides) and LLVM's `DSInstructions.td`, and are
//! checked against LLVM 19's and 22's assemblers and disassemblers (every kind of target of each
//! generation). Nothing outside [`table`] names an opcode number.

use serde::Serialize;

pub mod doc;
mod doc_gfx9;
pub mod encode;
mod features;
mod oracle;
pub mod swizzle;
pub mod syntax;
mod types;

pub use encode::DsInst;
pub use features::{DsFeatures, Isa};
pub use oracle::{aliases_of, generation_aliases, GenerationAlias, Oracle};
pub use types::{Bvh, Elem, Family, Field, Gds, OffsetForm, Operands, Rmw, Tr, TrExec, TrMap, D16};

/// Expands the table rows of `table.rs` into [`DsOp`] and [`DS_TABLE`].
macro_rules! ds_table {
    ($( ($v:ident, $name:literal, [$($opc:tt),*], $vd:literal, $a:literal,
         $d0:literal, $d1:literal, $off:ident, $gds:ident, $fam:expr, $elem:ident,
         $older:ident $(($oname:literal))?, $needs:tt, $hip:expr, $oracle:ident) ),* $(,)?) => {
        /// A DS op of some generation: one variant per row of the DS table, in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DsOp { $($v),* }

        /// The DS table: one row per op of any generation; `DS_TABLE[op as usize].op == op`.
        pub static DS_TABLE: &[$crate::ds::OpInfo] = &[
            $($crate::ds::OpInfo {
                op: DsOp::$v,
                name: $name,
                opcodes: [$(ds_table!(@opc $opc)),*],
                operands: $crate::ds::Operands { vdst: $vd, addr: $a, data0: $d0, data1: $d1 },
                offset: $crate::ds::OffsetForm::$off,
                gds: $crate::ds::Gds::$gds,
                family: $fam,
                elem: $crate::ds::Elem::$elem,
                legacy_name: ds_table!(@legacy $older $(($oname))?),
                gfx9_only_name: ds_table!(@old $older $(($oname))?),
                needs: ds_table!(@needs $needs),
                hip_unsupported: $hip,
                oracle: ds_table!(@oracle $oracle),
            }),*
        ];
    };
    (@opc __) => { None };
    (@opc $o:literal) => { Some($o) };
    (@oracle L19) => { $crate::ds::Oracle::Llvm19 };
    (@oracle L22) => { $crate::ds::Oracle::Llvm22 };
    (@legacy Some($n:literal)) => { Some($n) };
    (@legacy $other:ident $(($n:literal))?) => { None };
    (@old Old($n:literal)) => { Some($n) };
    (@old $other:ident $(($n:literal))?) => { None };
    (@needs __) => { $crate::ds::DsFeatures::NONE };
    (@needs $f:ident) => { $crate::ds::DsFeatures::$f };
}

mod table;
pub use table::{DsOp, DS_TABLE};

pub use crate::gen::Generation;

/// The DS table of an instruction set (a generation, or one target: [`Isa`]) as one markdown
/// document: a legend, one row per opcode of it, then the notes, in the generation's spelling.
pub fn render_markdown(isa: impl Into<Isa>) -> String {
    let isa = isa.into();
    if isa.gen.gfx9_mnemonics() {
        doc_gfx9::render(isa)
    } else {
        doc::render(isa)
    }
}

/// One row of the DS table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OpInfo {
    /// The enum value of this row.
    #[serde(skip)]
    pub op: DsOp,
    /// The mnemonic (ISA guide, DS opcode list; LLVM's spelling), the same in every generation
    /// that has the op.
    pub name: &'static str,
    /// The 8-bit `OP` field per [`Generation`] (`None`: the generation lacks the op), in
    /// [`Generation::ALL`] order. Serialised as `{"gfx9": n or null, "gfx10": .., "gfx11": ..,
    /// "gfx12": .., "gfx12.5": ..}`.
    #[serde(serialize_with = "opcodes_by_generation")]
    pub opcodes: [Option<u8>; Generation::COUNT],
    /// The VGPR operands and their widths (ISA guide, instruction descriptions).
    pub operands: Operands,
    /// How the two offset bytes are read (ISA guide, DS format: OFFSET0, OFFSET1).
    pub offset: OffsetForm,
    /// Whether the GDS bit (bit 17) may, must or must not be set on gfx11 (gfx12 has no GDS bit:
    /// see [`OpInfo::gds_in`]).
    pub gds: Gds,
    /// The semantics family, dispatched on by the model.
    pub family: Family,
    /// The element type the family works on (from the mnemonic's type suffix).
    pub elem: Elem,
    /// The older mnemonic that LLVM still accepts as input in every generation of the op, printed
    /// as the row's name (aliases of one generation only are [`aliases_of`] it). For a
    /// row of gfx9 or gfx10 it is also the mnemonic those generations print and read.
    pub legacy_name: Option<&'static str>,
    /// The gfx9 and gfx10 mnemonic where gfx11 renamed the op and LLVM reads the old name no
    /// longer (`ds_cmpst_b32` for `ds_cmpstore_b32`): see [`DsOp::mnemonic`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gfx9_only_name: Option<&'static str>,
    /// The features a target needs for the op beyond its generation's opcode column
    /// ([`DsFeatures`]; empty for most rows): see [`OpInfo::on`].
    pub needs: DsFeatures,
    /// `None` when a HIP compute kernel can run the op; otherwise why it cannot.
    pub hip_unsupported: Option<&'static str>,
    /// Which LLVM confirms the row (19, or only 22).
    pub oracle: Oracle,
}

fn opcodes_by_generation<S: serde::Serializer>(
    opcodes: &[Option<u8>; Generation::COUNT],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(opcodes.len()))?;
    for g in Generation::ALL {
        m.serialize_entry(g.name(), &opcodes[g.column()])?;
    }
    m.end()
}

/// Opcode -> row per generation, built once at compile time from the table.
static BY_OPCODE: [[Option<DsOp>; 256]; Generation::COUNT] = {
    let mut t = [[None; 256]; Generation::COUNT];
    let mut i = 0;
    while i < DS_TABLE.len() {
        let mut g = 0;
        while g < Generation::COUNT {
            if let Some(opc) = DS_TABLE[i].opcodes[g] {
                t[g][opc as usize] = Some(DS_TABLE[i].op);
            }
            g += 1;
        }
        i += 1;
    }
    t
};

impl DsOp {
    /// This op's row of the DS table.
    pub fn info(self) -> &'static OpInfo {
        &DS_TABLE[self as usize]
    }

    /// The op of generation `gen` with the 8-bit `OP` field `opcode`.
    pub fn from_opcode(gen: Generation, opcode: u8) -> Option<DsOp> {
        BY_OPCODE[gen.column()][opcode as usize]
    }

    /// The op spelled `name` (any case), in any generation: a row's own mnemonic first, then the
    /// older spellings LLVM accepts (so `ds_min_f32` is gfx11's op, not gfx12's `ds_min_num_f32`),
    /// then gfx9's names that gfx11 dropped (`ds_cmpst_b32`), then the spellings only some
    /// generations accept ([`generation_aliases`]).
    pub fn from_name(name: &str) -> Option<DsOp> {
        let is = |n: &str| n.eq_ignore_ascii_case(name);
        DS_TABLE
            .iter()
            .find(|r| is(r.name))
            .or_else(|| DS_TABLE.iter().find(|r| r.legacy_name.is_some_and(is)))
            .or_else(|| DS_TABLE.iter().find(|r| r.gfx9_only_name.is_some_and(is)))
            .map(|r| r.op)
            .or_else(|| generation_aliases().find(|a| is(a.name)).map(|a| a.op))
    }

    /// The op of generation `gen` spelled `name` (any case) as LLVM reads it for that generation:
    /// gfx9 and gfx10 by their own mnemonic only ([`DsOp::mnemonic`]); gfx11 and gfx12 by the
    /// row's mnemonic, an older spelling LLVM accepts in every generation of the op, or an alias
    /// LLVM accepts for `gen` alone.
    pub fn from_name_in(gen: Generation, name: &str) -> Option<DsOp> {
        let is = |n: &str| n.eq_ignore_ascii_case(name);
        let rows = || DS_TABLE.iter().filter(move |r| r.in_generation(gen));
        if gen.gfx9_mnemonics() {
            return rows().find(|r| is(r.op.mnemonic(gen))).map(|r| r.op);
        }
        rows()
            .find(|r| is(r.name))
            .or_else(|| rows().find(|r| r.legacy_name.is_some_and(is)))
            .map(|r| r.op)
            .or_else(|| aliases_of(gen).find(|a| is(a.name)).map(|a| a.op))
    }

    /// The mnemonic generation `gen` prints for the op: gfx9 and gfx10 spell it by its gfx9 name
    /// (the older-name column: `ds_write_b32`, `ds_cmpst_rtn_b32`; [`Generation::gfx9_mnemonics`]),
    /// gfx11 and gfx12 by the row's mnemonic.
    pub fn mnemonic(self, gen: Generation) -> &'static str {
        let r = self.info();
        if gen.gfx9_mnemonics() && r.in_generation(gen) {
            r.gfx9_only_name.or(r.legacy_name).unwrap_or(r.name)
        } else {
            r.name
        }
    }

    /// Every op of generation `gen` (of any of its targets), in table order.
    pub fn all(gen: Generation) -> impl Iterator<Item = DsOp> {
        DS_TABLE
            .iter()
            .filter(move |r| r.in_generation(gen))
            .map(|r| r.op)
    }

    /// Every op of the instruction set `isa` (a target's, or what every target of a generation
    /// has), in table order.
    pub fn all_on(isa: impl Into<Isa>) -> impl Iterator<Item = DsOp> {
        let isa = isa.into();
        DS_TABLE.iter().filter(move |r| r.on(isa)).map(|r| r.op)
    }

    /// The row's mnemonic (the op's name in this crate, its spelling from gfx11 on); a
    /// generation's spelling is [`DsOp::mnemonic`].
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The op's 8-bit `OP` field in generation `gen`, if the generation has the op.
    pub fn opcode(self, gen: Generation) -> Option<u8> {
        self.info().opcodes[gen.column()]
    }
}

impl std::fmt::Display for DsOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl OpInfo {
    /// The op exists in generation `gen`.
    pub fn in_generation(&self, gen: Generation) -> bool {
        self.opcodes[gen.column()].is_some()
    }

    /// The op exists in the instruction set `isa`: its generation's opcode column has it and the
    /// target has the features it needs (the src2 ops, `ds_add_f64`, ...: [`OpInfo::needs`]).
    pub fn on(&self, isa: impl Into<Isa>) -> bool {
        let isa = isa.into();
        self.in_generation(isa.gen) && isa.has(self.needs)
    }

    /// Whether the gds bit may, must or must not be set in the instruction set `isa`: as
    /// [`OpInfo::gds_in`], and forbidden on an op whose gds is optional when the target has no
    /// GDS (the GWS ops keep the bit).
    pub fn gds_on(&self, isa: impl Into<Isa>) -> Gds {
        let isa = isa.into();
        match self.gds_in(isa.gen) {
            Gds::Allowed if !isa.has(DsFeatures::GDS) => Gds::Forbidden,
            g => g,
        }
    }

    /// `field` may start at an odd VGPR even on a target that needs even tuples: the VDST of a
    /// transpose load whose row says so ([`Tr::odd_start`]: gfx12.5's `ds_load_tr6_b96`).
    pub fn any_start(&self, field: Field) -> bool {
        field == Field::Vdst && matches!(self.family, Family::LoadTranspose(t) if t.odd_start)
    }

    /// The op has an operand besides ADDR (vdst or data), so `acc` can move it to AccVGPRs
    /// (`llvm-mc` refuses the acc bit on `ds_nop` and the GWS ops without data).
    pub fn acc_capable(&self) -> bool {
        let o = self.operands;
        o.vdst + o.data0 + o.data1 > 0
    }

    /// The generations that have this op, oldest first.
    pub fn generations(&self) -> impl Iterator<Item = Generation> + '_ {
        Generation::ALL
            .into_iter()
            .filter(|&g| self.in_generation(g))
    }

    /// Whether the GDS bit may be set in generation `gen` (never on gfx12, which has no bit).
    pub fn gds_in(&self, gen: Generation) -> Gds {
        if gen.has_gds() {
            self.gds
        } else {
            Gds::Forbidden
        }
    }

    /// The op writes VDST.
    pub fn returns(&self) -> bool {
        self.operands.vdst > 0
    }

    /// A HIP compute kernel can run this op.
    pub fn hip_runnable(&self) -> bool {
        self.hip_unsupported.is_none()
    }

    /// Bytes one unit of `offset0`/`offset1` stands for (1 for the single 16-bit form).
    pub fn offset_scale(&self) -> u32 {
        match self.offset {
            OffsetForm::Pair => self.elem.bytes(),
            OffsetForm::Stride64 => 64 * self.elem.bytes(),
            OffsetForm::Single | OffsetForm::Swizzle | OffsetForm::NoOffset => 1,
        }
    }

    /// The op accesses two addresses (`_2addr`, with or without `_stride64`).
    pub fn two_addresses(&self) -> bool {
        matches!(self.offset, OffsetForm::Pair | OffsetForm::Stride64)
    }

    /// The op also writes its ADDR register (only the BVH stack ops, whose stack pointer is
    /// updated in place).
    pub fn writes_addr(&self) -> bool {
        matches!(self.family, Family::BvhStack | Family::BvhPushPop(_))
    }

    /// Each active lane accesses LDS at its own address (atomics, loads, stores, addtid, the BVH
    /// stack), so lanes of one instruction that hit one address are serialised in some order. Not
    /// the lane moves (swizzle, permutes), append/consume (once per wave), nop or GDS-only ops.
    pub fn per_lane_lds(&self) -> bool {
        matches!(
            self.family,
            Family::Rmw(_)
                | Family::Load(_)
                | Family::Store(_)
                | Family::CondXchg32
                | Family::StoreAddTid
                | Family::LoadAddTid
                | Family::BvhStack
                | Family::BvhPushPop(_)
        )
    }

    /// The op touches LDS memory (swizzle, permute and nop move no LDS data).
    pub fn accesses_lds(&self) -> bool {
        !matches!(
            self.family,
            Family::Swizzle | Family::Permute | Family::Bpermute | Family::BpermuteFi | Family::Nop
        )
    }
}

/// The ops of generation `gen` that a HIP compute kernel can run, in table order.
pub fn runnable_ops(gen: Generation) -> impl Iterator<Item = DsOp> {
    DS_TABLE
        .iter()
        .filter(move |r| r.in_generation(gen) && r.hip_runnable())
        .map(|r| r.op)
}

/// The ops of `target` that a HIP compute kernel can run, in table order.
pub fn runnable_ops_on(target: &'static crate::target::Target) -> impl Iterator<Item = DsOp> {
    DS_TABLE
        .iter()
        .filter(move |r| r.on(target) && r.hip_runnable())
        .map(|r| r.op)
}

/// The table's mnemonics closest to `name` (edit distance), best first: for "did you mean".
pub fn suggest(name: &str, max: usize) -> Vec<&'static str> {
    suggest_among(
        DS_TABLE.iter(),
        generation_aliases().map(|a| a.name),
        name,
        max,
    )
}

/// The mnemonics of generation `gen` closest to `name`, best first (gfx9 and gfx10: their own
/// spellings).
pub fn suggest_in(gen: Generation, name: &str, max: usize) -> Vec<&'static str> {
    let aliases = aliases_of(gen).map(|a| a.name);
    let rows = DS_TABLE.iter().filter(|r| r.in_generation(gen));
    if gen.gfx9_mnemonics() {
        let names = rows.map(|r| r.op.mnemonic(gen));
        return rank(names.chain(aliases), name, max);
    }
    suggest_among(rows, aliases, name, max)
}

fn suggest_among<'a>(
    rows: impl Iterator<Item = &'a OpInfo>,
    aliases: impl Iterator<Item = &'static str>,
    name: &str,
    max: usize,
) -> Vec<&'static str> {
    let names = rows
        .flat_map(|r| std::iter::once(r.name).chain(r.legacy_name))
        .chain(aliases);
    rank(names, name, max)
}

/// `names` closest to `name` (edit distance), best first.
fn rank(names: impl Iterator<Item = &'static str>, name: &str, max: usize) -> Vec<&'static str> {
    let name = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &'static str)> = names
        .map(|n| (crate::text::edit_distance(&name, n), n))
        .collect();
    scored.sort();
    // Close enough to be a typo: a third of the name, at least 2 edits. Nothing is better
    // than a far-fetched guess.
    let limit = (name.len() / 3).max(2);
    scored
        .into_iter()
        .filter(|&(d, _)| d <= limit)
        .map(|(_, n)| n)
        .take(max)
        .collect()
}

#[cfg(test)]
mod tests;
