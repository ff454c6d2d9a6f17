//! Named readings of the open questions: the rules the model can run by, one per reading it can
//! compute, and how the legal check uses each. Facts come from `reference/ASSUMPTIONS.md`, whose
//! entries name their readings (parsed by [`super::questions`]); this module only says how a named
//! reading changes the model.
//!
//! # The interface (how a question's readings plug in)
//!
//! 1. **Name the readings in ASSUMPTIONS.md.** Under the entry, one `- **name** (standing): ...`
//!    line per reading with its sources and their kinds (`(HW)`, `(DOC)`, `(DRV)`, `(EMU)`): the
//!    model's choice first (`model`), then the alternatives the legal check accepts (`legal`),
//!    then readings that would be disagreements (`disagreement`). The standing lives there and
//!    nowhere else: moving a reading from `disagreement` to `legal` is a one-word edit.
//! 2. **Give the model a switch.** A field of [`Rules`] (an enum, its first variant the model's
//!    reading, so [`Rules::MODEL`] stays the model), read where the rule is computed: the float
//!    rules through [`super::rmw::update`], the lane rules through `Plan` (`plan.rules`), the BVH
//!    stack rules (B2's index width, B3's and B7's push/pop step, B6's zero size, B9's pop-2
//!    order) by [`super::bvh`] from the plan the same way.
//! 3. **Register it as data.** One [`Computed`] row per reading in [`COMPUTED`]: the question id,
//!    the reading's name exactly as ASSUMPTIONS.md spells it, how the legal check uses it
//!    ([`Use`]), and the setter that puts the reading into a [`Rules`]. Nothing else changes: the
//!    legal check builds its alternatives from the rows whose standing is `model` or `legal`,
//!    names the reading a device followed, names a disagreement reading a mismatch matches, and
//!    the run counts the cases consistent with each row. `cargo test` fails when a row names a
//!    question or reading ASSUMPTIONS.md lacks, when a question's computed readings miss its model
//!    reading, or when the model's row is not [`Rules::MODEL`].
//!
//! Which ops a question concerns is [`super::questions::APPLIES`]; a row applies where its
//! question does. A reading that includes others (any order includes the ascending one) says so
//! in [`WIDER`], so reports do not present it as the narrower reading's rival.

use super::fast_hash::FastMap;
pub use super::kinds::{Kind, Standing};
use super::questions;
use ds_isa::ds::{Generation, OpInfo};
use ds_isa::gen::{CmpstData0, PermuteSpan};
use std::sync::OnceLock;

/// F1: which operand the legacy float min/max select.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMaxRule {
    /// `V_MIN_F32`/`V_MAX_F32`'s rule, DATA as S0.
    Valu,
    /// The DS pseudocode literally: `src < tmp ? src : tmp`.
    Literal,
    /// rocJITsu's legacy rule: memory's signalling NaN first, two NaNs give memory's.
    Legacy,
}

/// F2: the bits legacy float min/max store for the operand they select.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectedBits {
    /// The selected operand's own bits (a denormal kept although compared as zero).
    Original,
    /// The selected operand as flushed for the comparison.
    Flushed,
}

/// F3: which NaN a float add returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanOrder {
    /// DATA's NaN quieted, else memory's.
    DataFirst,
    /// Memory's NaN quieted, else DATA's.
    MemoryFirst,
    /// The default NaN for any NaN input.
    DefaultNan,
}

/// F6: the sign of the default NaN (`inf + -inf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanSign {
    /// Sign set: 0xffc00000, 0xfff8000000000000, 0xfe00, 0xffc0.
    Negative,
    /// Sign clear: 0x7fc00000, 0x7ff8000000000000, 0x7e00, 0x7fc0.
    Positive,
}

/// F4: what a float compare-store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpstResult {
    /// The flushed DATA on a match, memory flushed otherwise (inputs as compared).
    Flushed,
    /// DATA's bits on a match, memory untouched otherwise.
    Untouched,
}

/// N3: which mode switch flushes bf16 denormals in `ds_pk_add_bf16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bf16Denormals {
    /// MODE's FP16/FP64 switch, as for f16.
    Fp16Fp64,
    /// MODE's FP32 switch (bf16 has binary32's exponent range).
    Fp32,
    /// Never flushed.
    Never,
}

/// S4: which sender a `ds_permute_b32` destination keeps when several name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collision {
    /// The highest-numbered sender.
    Highest,
    /// The lowest-numbered sender.
    Lowest,
    /// Any of the senders, each destination on its own (the model runs it as `Highest`).
    Any,
}

/// A4: the order in which the lanes of one instruction that share bytes update them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneOrder {
    /// Lowest lane first.
    Ascending,
    /// Highest lane first.
    Descending,
    /// Any order (the model runs it as `Ascending`).
    Any,
}

/// B2: how many low bits of a gfx11 BVH stack address are the stack index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BvhIndex {
    /// \[17:0\]: RADV's address builder leaves 18 bits below the base.
    Bits18,
    /// \[15:0\]: rocJITsu's RDNA3 path (`ADDR & 0xffff`), bits \[17:16\] kept as they were.
    Bits16,
}

/// B3: what gfx11's `ds_bvh_stack_rtn_b32` pushes, returns and pops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BvhStep11 {
    /// rocJITsu's RDNA3 path: the first eligible child returned, the other valid ones pushed
    /// last-first; an empty stack returns TERMINAL and leaves the index.
    FirstChild,
    /// The RDNA3 guide's pseudocode as the model read it before issue 29: DATA1\[0..2\] pushed
    /// in order, DATA1\[3\] returned when valid, else a pop that decrements first and wraps.
    Guide,
}

/// B6: the gfx12 stack size a zero OFFSET0\[4:0\] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BvhZeroSize {
    /// GPURT's emulation's constant 16.
    Sixteen,
    /// A 5-bit field whose zero encodes 32.
    ThirtyTwo,
}

/// B7: what the gfx12 push/pop forms push and pop (with B5's address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BvhStep12 {
    /// GPURT's emulation (RTIP 3.0, 3.1's primitive ranges under OFFSET1\[1\]), push4 as push8
    /// whose upper four dwords are INVALID.
    Gpurt,
    /// As GPURT, but push4 loops over its four dwords only (rocJITsu): differs only for a
    /// primitive-range update.
    RocjitsuPush4,
    /// The RDNA4 guide's pseudocode as the model read it before issue 29: base at ADDR\[31:15\],
    /// index \[14:0\], no ring, DATA1\[0..n-2\] pushed in order, DATA1\[n-1\] returned when
    /// valid, else pops that invalidate.
    Guide,
}

/// B9: the two values of `ds_bvh_stack_push8_pop2_rtn_b64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BvhPop2 {
    /// GPURT: VDST\[0\] the `try_pop` value, VDST\[1\] the first pop (the first in VDST\[0\]
    /// when `try_pop` fails); a triangle-1 node expands into (triangle 0, triangle 1).
    TryPopLow,
    /// rocJITsu and the guide's order: VDST\[0\] the first pop, VDST\[1\] the second; the
    /// triangle-1 expansion only with OFFSET1\[0\].
    FirstPopLow,
}

/// C1: which lanes of a gfx12.5 transpose load receive a result when EXEC has a lane off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrLanes {
    /// Every lane, when any EXEC bit is set (ROCm/llvm-project PR #4450).
    Every,
    /// The active lanes only, as for every other DS load (every lane's row still read).
    Active,
}

/// Which reading of each computed question the model runs by. [`Rules::MODEL`] is the model; a
/// device that follows other readings is the model run with other rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// F1.
    pub min_max: MinMaxRule,
    /// F2.
    pub selected_bits: SelectedBits,
    /// F3.
    pub nan_order: NanOrder,
    /// F6.
    pub nan_sign: NanSign,
    /// F4.
    pub cmpst_result: CmpstResult,
    /// N3.
    pub bf16_denormals: Bf16Denormals,
    /// S4.
    pub collision: Collision,
    /// A4.
    pub lane_order: LaneOrder,
    /// W1, W2, W9, W10: `None` is the generation's own (`Generation::permute_span`).
    pub permute_span: Option<PermuteSpan>,
    /// V1: `None` is the generation's own (`Generation::cmpst_data0`).
    pub cmpst_data0: Option<CmpstData0>,
    /// B2.
    pub bvh_index: BvhIndex,
    /// B3.
    pub bvh_step11: BvhStep11,
    /// B6.
    pub bvh_zero_size: BvhZeroSize,
    /// B7.
    pub bvh_step12: BvhStep12,
    /// B9.
    pub bvh_pop2: BvhPop2,
    /// C1.
    pub tr_lanes: TrLanes,
}

impl Rules {
    /// The model's reading of every question.
    pub const MODEL: Rules = Rules {
        min_max: MinMaxRule::Valu,
        selected_bits: SelectedBits::Original,
        nan_order: NanOrder::DataFirst,
        nan_sign: NanSign::Negative,
        cmpst_result: CmpstResult::Flushed,
        bf16_denormals: Bf16Denormals::Fp16Fp64,
        collision: Collision::Highest,
        lane_order: LaneOrder::Ascending,
        permute_span: None,
        cmpst_data0: None,
        bvh_index: BvhIndex::Bits18,
        bvh_step11: BvhStep11::FirstChild,
        bvh_zero_size: BvhZeroSize::Sixteen,
        bvh_step12: BvhStep12::Gpurt,
        bvh_pop2: BvhPop2::TryPopLow,
        tr_lanes: TrLanes::Every,
    };

    /// These rules with the reading `question`/`reading` put in, if [`COMPUTED`] has it.
    pub fn with(mut self, question: &str, reading: &str) -> Option<Rules> {
        let row = COMPUTED
            .iter()
            .find(|c| c.question == question && c.reading == reading)?;
        (row.set)(&mut self);
        Some(self)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::MODEL
    }
}

/// How the legal check uses a computed reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Use {
    /// Each lane's update may follow any accepted reading on its own (the float rules: one lane's
    /// NaN choice does not bind the next lane's in the check).
    PerLane,
    /// The whole case follows one reading (a rule of the instruction, not of a lane's values: a
    /// permute's span, a compare-store's operand order, a BVH stack layout).
    WholeCase,
    /// The order of lanes that share bytes (A4): the lane-order search honours it.
    LaneOrder,
    /// Which sender a permute destination keeps (S4): the collision check honours it.
    Collisions,
}

/// A reading the model can compute: the row that plugs it in (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Computed {
    /// The question's id in ASSUMPTIONS.md (`F3`).
    pub question: &'static str,
    /// The reading's name, exactly as ASSUMPTIONS.md spells it.
    pub reading: &'static str,
    /// How the legal check uses it.
    pub how: Use,
    /// Puts the reading into a set of rules.
    pub set: fn(&mut Rules),
}

/// Every computed reading, question by question, each question's model reading first.
#[rustfmt::skip]
pub static COMPUTED: &[Computed] = &[
    Computed { question: "A4", reading: "ascending lanes", how: Use::LaneOrder, set: |r| r.lane_order = LaneOrder::Ascending },
    Computed { question: "A4", reading: "descending lanes", how: Use::LaneOrder, set: |r| r.lane_order = LaneOrder::Descending },
    Computed { question: "A4", reading: "any lane order", how: Use::LaneOrder, set: |r| r.lane_order = LaneOrder::Any },
    Computed { question: "F1", reading: "V_MIN_F32 rule", how: Use::PerLane, set: |r| r.min_max = MinMaxRule::Valu },
    Computed { question: "F1", reading: "DS pseudocode literally", how: Use::PerLane, set: |r| r.min_max = MinMaxRule::Literal },
    Computed { question: "F1", reading: "rocJITsu legacy rule", how: Use::PerLane, set: |r| r.min_max = MinMaxRule::Legacy },
    Computed { question: "F2", reading: "selected bits kept", how: Use::PerLane, set: |r| r.selected_bits = SelectedBits::Original },
    Computed { question: "F2", reading: "selected bits flushed", how: Use::PerLane, set: |r| r.selected_bits = SelectedBits::Flushed },
    Computed { question: "F3", reading: "DATA's NaN first", how: Use::PerLane, set: |r| r.nan_order = NanOrder::DataFirst },
    Computed { question: "F3", reading: "memory's NaN first", how: Use::PerLane, set: |r| r.nan_order = NanOrder::MemoryFirst },
    Computed { question: "F3", reading: "default NaN for any NaN", how: Use::PerLane, set: |r| r.nan_order = NanOrder::DefaultNan },
    Computed { question: "F4", reading: "flushed result", how: Use::PerLane, set: |r| r.cmpst_result = CmpstResult::Flushed },
    Computed { question: "F4", reading: "DATA untouched", how: Use::PerLane, set: |r| r.cmpst_result = CmpstResult::Untouched },
    Computed { question: "F6", reading: "negative default NaN", how: Use::PerLane, set: |r| r.nan_sign = NanSign::Negative },
    Computed { question: "F6", reading: "positive default NaN", how: Use::PerLane, set: |r| r.nan_sign = NanSign::Positive },
    Computed { question: "S4", reading: "highest lane", how: Use::Collisions, set: |r| r.collision = Collision::Highest },
    Computed { question: "S4", reading: "lowest lane", how: Use::Collisions, set: |r| r.collision = Collision::Lowest },
    Computed { question: "S4", reading: "any colliding lane", how: Use::Collisions, set: |r| r.collision = Collision::Any },
    Computed { question: "N3", reading: "FP16/64 switch", how: Use::PerLane, set: |r| r.bf16_denormals = Bf16Denormals::Fp16Fp64 },
    Computed { question: "N3", reading: "FP32 switch", how: Use::PerLane, set: |r| r.bf16_denormals = Bf16Denormals::Fp32 },
    Computed { question: "N3", reading: "never flushed", how: Use::PerLane, set: |r| r.bf16_denormals = Bf16Denormals::Never },
    Computed { question: "W1", reading: "within halves", how: Use::WholeCase, set: |r| r.permute_span = None },
    Computed { question: "W1", reading: "whole wave", how: Use::WholeCase, set: |r| r.permute_span = Some(PermuteSpan::Wave) },
    Computed { question: "W2", reading: "within halves", how: Use::WholeCase, set: |r| r.permute_span = None },
    Computed { question: "W2", reading: "whole wave", how: Use::WholeCase, set: |r| r.permute_span = Some(PermuteSpan::Wave) },
    Computed { question: "W9", reading: "whole wave", how: Use::WholeCase, set: |r| r.permute_span = None },
    Computed { question: "W9", reading: "within halves", how: Use::WholeCase, set: |r| r.permute_span = Some(PermuteSpan::Halves) },
    Computed { question: "W10", reading: "whole wave", how: Use::WholeCase, set: |r| r.permute_span = None },
    Computed { question: "W10", reading: "within halves", how: Use::WholeCase, set: |r| r.permute_span = Some(PermuteSpan::Halves) },
    Computed { question: "V1", reading: "DATA0 is the compare value", how: Use::WholeCase, set: |r| r.cmpst_data0 = None },
    Computed { question: "V1", reading: "gfx11's order", how: Use::WholeCase, set: |r| r.cmpst_data0 = Some(CmpstData0::NewValue) },
    Computed { question: "B2", reading: "18-bit index", how: Use::WholeCase, set: |r| r.bvh_index = BvhIndex::Bits18 },
    Computed { question: "B2", reading: "16-bit index", how: Use::WholeCase, set: |r| r.bvh_index = BvhIndex::Bits16 },
    Computed { question: "B3", reading: "first eligible child returned", how: Use::WholeCase, set: |r| r.bvh_step11 = BvhStep11::FirstChild },
    Computed { question: "B3", reading: "guide pseudocode", how: Use::WholeCase, set: |r| r.bvh_step11 = BvhStep11::Guide },
    Computed { question: "B6", reading: "size zero is 16", how: Use::WholeCase, set: |r| r.bvh_zero_size = BvhZeroSize::Sixteen },
    Computed { question: "B6", reading: "size zero is 32", how: Use::WholeCase, set: |r| r.bvh_zero_size = BvhZeroSize::ThirtyTwo },
    Computed { question: "B7", reading: "GPURT emulation", how: Use::WholeCase, set: |r| r.bvh_step12 = BvhStep12::Gpurt },
    Computed { question: "B7", reading: "rocJITsu push4", how: Use::WholeCase, set: |r| r.bvh_step12 = BvhStep12::RocjitsuPush4 },
    Computed { question: "B7", reading: "guide pseudocode", how: Use::WholeCase, set: |r| r.bvh_step12 = BvhStep12::Guide },
    Computed { question: "B9", reading: "try_pop in VDST[0]", how: Use::WholeCase, set: |r| r.bvh_pop2 = BvhPop2::TryPopLow },
    Computed { question: "B9", reading: "first pop in VDST[0]", how: Use::WholeCase, set: |r| r.bvh_pop2 = BvhPop2::FirstPopLow },
    Computed { question: "C1", reading: "every lane when one is on", how: Use::WholeCase, set: |r| r.tr_lanes = TrLanes::Every },
    Computed { question: "C1", reading: "active lanes only", how: Use::WholeCase, set: |r| r.tr_lanes = TrLanes::Active },
];

/// Readings that include others: `(question, wider, narrower readings)`. A wider reading is
/// consistent with every case a narrower one is (any lane order includes the ascending one), so
/// a case can rule it out only when it rules the narrower ones out too; reports name the
/// narrower reading a device followed and the wider one as "also consistent".
pub static WIDER: &[(&str, &str, &[&str])] = &[
    (
        "A4",
        "any lane order",
        &["ascending lanes", "descending lanes"],
    ),
    ("S4", "any colliding lane", &["highest lane", "lowest lane"]),
];

/// The readings `reading` of `question` includes ([`WIDER`]); empty for most.
pub fn narrower(question: &str, reading: &str) -> &'static [&'static str] {
    WIDER
        .iter()
        .find(|(q, r, _)| *q == question && *r == reading)
        .map_or(&[], |(_, _, n)| n)
}

/// One reading of one question: `(question, reading)`, both as ASSUMPTIONS.md spells them.
pub type ReadingId = (&'static str, &'static str);

/// A reading with its standing (from ASSUMPTIONS.md).
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// The row.
    pub row: &'static Computed,
    /// Its standing.
    pub standing: Standing,
}

/// The standing ASSUMPTIONS.md gives `question`'s reading `reading`, if it names it.
pub fn standing(question: &str, reading: &str) -> Option<Standing> {
    questions::get(question)?
        .readings
        .iter()
        .find(|r| r.name == reading)
        .map(|r| r.standing)
}

/// The computed readings of `question`, in table order, with their standings (a row whose
/// reading ASSUMPTIONS.md lacks is left out; a test keeps there from being any).
pub fn of_question(question: &str) -> Vec<Placed> {
    COMPUTED
        .iter()
        .filter(|c| c.question == question)
        .filter_map(|row| {
            standing(row.question, row.reading).map(|standing| Placed { row, standing })
        })
        .collect()
}

/// The questions with computed readings that concern one op on one generation, in
/// ASSUMPTIONS.md order, each with its computed readings.
pub type OpReadings = Vec<(&'static str, Vec<Placed>)>;

/// [`OpReadings`] of the op of `info` on `gen`, worked out once for every op and generation (the
/// legal check asks for them per case and per reading).
pub fn op_readings(info: &OpInfo, gen: Generation) -> &'static OpReadings {
    type Table = FastMap<(&'static str, Generation), OpReadings>;
    // The same lists by the address of the op's table row (the `&'static OpInfo` every caller
    // holds): hashing a word, not the op's name, on the per-case path.
    type ByRow = FastMap<(usize, Generation), &'static OpReadings>;
    static TABLE: OnceLock<Table> = OnceLock::new();
    static BY_ROW: OnceLock<ByRow> = OnceLock::new();
    static NONE: OpReadings = Vec::new();
    let row = |info: &OpInfo| info as *const OpInfo as usize;
    if let Some(list) = BY_ROW.get().and_then(|t| t.get(&(row(info), gen))) {
        return list;
    }
    let table = TABLE.get_or_init(|| {
        let mut t = Table::default();
        for gen in Generation::ALL {
            for op in ds_isa::ds::DsOp::all(gen) {
                let info = op.info();
                let mut list: OpReadings = Vec::new();
                for q in questions::parsed() {
                    let applies = questions::APPLIES
                        .iter()
                        .any(|(id, f)| *id == q.id && f(info, gen));
                    let placed = of_question(&q.id);
                    if applies && !placed.is_empty() {
                        list.push((placed[0].row.question, placed));
                    }
                }
                t.insert((info.name, gen), list);
            }
        }
        t
    });
    BY_ROW.get_or_init(|| {
        let mut by_row = ByRow::default();
        for gen in Generation::ALL {
            for op in ds_isa::ds::DsOp::all(gen) {
                if let Some(list) = table.get(&(op.info().name, gen)) {
                    by_row.insert((row(op.info()), gen), list);
                }
            }
        }
        by_row
    });
    table.get(&(info.name, gen)).unwrap_or(&NONE)
}

/// The questions with computed readings that concern the op of `info` on `gen`, in
/// ASSUMPTIONS.md order.
pub fn questions_for(info: &OpInfo, gen: Generation) -> Vec<&'static str> {
    op_readings(info, gen).iter().map(|(q, _)| *q).collect()
}

/// Which readings a legal check accepts: every model and legal reading, or one question held
/// to one of its readings (any standing) with the others free among their accepted ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Allowed {
    /// The model's and the legal readings of every question.
    #[default]
    Accepted,
    /// This reading of its question only; the other questions as in `Accepted`.
    Held(ReadingId),
}

impl Allowed {
    /// Whether this allows the reading `p` of `question`.
    pub fn allows(self, question: &str, p: &Placed) -> bool {
        match self {
            Allowed::Held((q, r)) if q == question => p.row.reading == r,
            _ => p.standing.accepted(),
        }
    }

    /// The readings of `question` this allows, in table order (the model's first when allowed).
    pub fn readings_of(self, question: &str) -> Vec<&'static Computed> {
        of_question(question)
            .into_iter()
            .filter(|p| self.allows(question, p))
            .map(|p| p.row)
            .collect()
    }
}

/// The rule sets a check under `allowed` tries for the op of `info` on `gen`: every combination
/// of the allowed readings of the questions whose rows are `how`, applied to `base` (the
/// model's combination first when allowed).
pub fn combinations(
    info: &OpInfo,
    gen: Generation,
    allowed: Allowed,
    how: Use,
    base: Rules,
) -> Vec<Rules> {
    let mut out = vec![base];
    for (q, placed) in op_readings(info, gen) {
        let rows: Vec<&Computed> = placed
            .iter()
            .filter(|p| p.row.how == how && allowed.allows(q, p))
            .map(|p| p.row)
            .collect();
        if rows.is_empty() {
            continue;
        }
        out = out
            .iter()
            .flat_map(|r| {
                rows.iter().map(move |c| {
                    let mut r = *r;
                    (c.set)(&mut r);
                    r
                })
            })
            .collect();
    }
    out
}

/// Whether the op of `info` on `gen` has a question whose readings are `how`.
pub fn has_use(info: &OpInfo, gen: Generation, how: Use) -> bool {
    op_readings(info, gen)
        .iter()
        .any(|(_, placed)| placed.iter().any(|p| p.row.how == how))
}

/// The allowed values of the structural readings (`LaneOrder`, `Collisions`) of the op: the
/// model's when the op's questions have none.
pub fn structural(info: &OpInfo, gen: Generation, allowed: Allowed, how: Use) -> Vec<Rules> {
    combinations(info, gen, allowed, how, Rules::MODEL)
}

#[cfg(test)]
mod tests;
