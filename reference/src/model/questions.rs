//! The model's open questions, machine-readable: `reference/ASSUMPTIONS.md` parsed at compile
//! time (each entry is a paragraph opening `**ID. Title.**`, with `Sources:`, `Choice:` and
//! `Settles it:` parts, followed by one `- **name** (standing): ...` line per reading), plus which
//! ops of which generation each entry concerns (an entry about a rule that differs between
//! generations applies where the generation's answer is the entry's: asked of
//! `Generation::permute_span` and the like, never of a name). `ds-harness doc OP --target T`
//! lists an op's questions on T with their sources and readings.
//!
//! The text stays in ASSUMPTIONS.md (one source); this module only adds the op mapping
//! ([`APPLIES`]), and tests fail when an entry of the file has no mapping or a mapping names no
//! entry, or when an entry lacks sources with their kinds or readings (the model's first, then
//! the legal ones, then the disagreements), so the two cannot drift apart.

use super::kinds::{Kind, Standing};
use ds_isa::ds::{DsOp, Family, Gds, Generation, OpInfo, Rmw, TrExec};
use ds_isa::gen::{CmpstData0, PermuteSpan};
use std::sync::OnceLock;

/// The assumptions file, as committed.
pub const ASSUMPTIONS_MD: &str = include_str!("../../ASSUMPTIONS.md");

/// One entry of ASSUMPTIONS.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The entry's id, e.g. `A4`.
    pub id: String,
    /// Its title, e.g. `Same-address lanes of one instruction`.
    pub title: String,
    /// Its sources (from `Sources:` up to `Choice:`), each tagged with its kind.
    pub sources: String,
    /// The kinds of source the entry cites, strongest first.
    pub kinds: Vec<Kind>,
    /// The model's choice and the legal alternatives (from `Choice:` up to `Settles it:`, or the
    /// whole entry when it has no `Choice:`).
    pub choice: String,
    /// The corpus cases that settle it on hardware (after `Settles it:`), if named.
    pub settles: Option<String>,
    /// Its readings, in file order: the model's, the legal ones, the disagreements.
    pub readings: Vec<Reading>,
}

/// One named reading of an entry: a `- **name** (standing): text` line under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The reading's name, e.g. `DATA's NaN first`.
    pub name: String,
    /// Model, legal or disagreement.
    pub standing: Standing,
    /// What it says, with its sources.
    pub text: String,
    /// The kinds of source it cites, strongest first (empty when it says `(no source)`).
    pub kinds: Vec<Kind>,
}

impl Question {
    /// The model's reading (the first), if the entry names readings.
    pub fn model_reading(&self) -> Option<&Reading> {
        self.readings
            .first()
            .filter(|r| r.standing == Standing::Model)
    }
}

/// A runnable op whose lanes access LDS at their own addresses.
fn per_lane_lds(i: &OpInfo) -> bool {
    i.hip_runnable() && i.per_lane_lds()
}

fn writes_lds(i: &OpInfo) -> bool {
    matches!(
        i.family,
        Family::Rmw(_) | Family::Store(_) | Family::CondXchg32 | Family::StoreAddTid
    )
}

fn float_rmw(i: &OpInfo, which: &[Rmw]) -> bool {
    matches!(i.family, Family::Rmw(r) if which.contains(&r)) && i.elem.is_float()
}

/// Whether an entry concerns the op of a table row in a generation.
pub type Applies = fn(&OpInfo, Generation) -> bool;

/// A float add of any format: `ds_add_f32`, `ds_add_f64`, `ds_pk_add_f16/bf16`.
fn float_add(i: &OpInfo) -> bool {
    i.family == Family::Rmw(Rmw::Add) && (i.elem.is_float() || i.elem.is_packed16())
}

/// A target of `g` runs wave64 (the W entries concern wave64 only).
fn wave64(g: Generation) -> bool {
    g.targets().any(|t| t.wave_sizes.contains(&64))
}

fn permutes(i: &OpInfo) -> bool {
    matches!(i.family, Family::Bpermute | Family::BpermuteFi)
}

/// Which ops of which generation each ASSUMPTIONS.md entry concerns, by id.
pub static APPLIES: &[(&str, Applies)] = &[
    ("A1", |i, _| per_lane_lds(i)),
    ("A2", |i, _| per_lane_lds(i) && i.elem.bytes() > 1),
    ("A3", |i, _| per_lane_lds(i) && i.operands.addr > 0),
    ("A4", |i, _| per_lane_lds(i) && writes_lds(i)),
    ("A5", |i, _| {
        i.family == Family::Rmw(Rmw::Xchg) && i.two_addresses()
    }),
    ("R1", |i, _| {
        i.hip_runnable() && i.returns() && (i.operands.addr > 0 || i.operands.data0 > 0)
    }),
    ("R2", |i, _| {
        i.hip_runnable() && i.returns() && matches!(i.family, Family::Rmw(_))
    }),
    ("R3", |i, _| {
        i.hip_runnable() && i.returns() && i.two_addresses()
    }),
    ("R4", |i, _| i.hip_runnable() && i.writes_addr()),
    // Ops with data or vdst on a generation that has a target with AccVGPR DS operands.
    ("R5", |i, g| {
        i.hip_runnable()
            && i.acc_capable()
            && g.targets()
                .any(|t| t.ds_features.contains(ds_isa::ds_features::DsFeatures::ACC))
    }),
    ("F1", |i, _| float_rmw(i, &[Rmw::Min, Rmw::Max])),
    ("F2", |i, _| float_rmw(i, &[Rmw::Min, Rmw::Max])),
    ("F3", |i, _| float_add(i)),
    ("F4", |i, _| float_rmw(i, &[Rmw::CmpStore])),
    ("F5", |i, _| float_rmw(i, &[Rmw::Add])),
    ("F6", |i, _| float_add(i)),
    ("S1", |i, _| i.family == Family::Swizzle),
    ("S2", |i, _| i.family == Family::Swizzle),
    ("S3", |i, _| {
        matches!(
            i.family,
            Family::Permute | Family::Bpermute | Family::BpermuteFi
        )
    }),
    ("S4", |i, _| i.family == Family::Permute),
    ("P1", |i, _| {
        matches!(i.family, Family::Append | Family::Consume)
    }),
    ("B1", |i, _| i.family == Family::BvhStack),
    ("B2", |i, _| i.family == Family::BvhStack),
    ("B3", |i, _| i.family == Family::BvhStack),
    ("B4", |i, _| i.family == Family::BvhStack),
    ("G1", |i, _| i.gds == Gds::Required),
    ("N1", |i, _| float_rmw(i, &[Rmw::MinNum, Rmw::MaxNum])),
    ("N2", |i, _| float_rmw(i, &[Rmw::MinNum, Rmw::MaxNum])),
    ("N3", |i, _| i.elem.is_packed16()),
    ("N4", |i, _| i.elem.is_packed16()),
    ("B5", |i, _| matches!(i.family, Family::BvhPushPop(_))),
    ("B6", |i, _| matches!(i.family, Family::BvhPushPop(_))),
    ("B7", |i, _| matches!(i.family, Family::BvhPushPop(_))),
    ("B8", |i, _| i.family == Family::BpermuteFi),
    ("B9", |i, _| {
        i.family == Family::BvhPushPop(ds_isa::ds::Bvh::Push8Pop2)
    }),
    ("W1", |i, g| {
        wave64(g) && permutes(i) && g.permute_span() == PermuteSpan::Halves
    }),
    ("W2", |i, g| {
        wave64(g) && i.family == Family::Permute && g.permute_span() == PermuteSpan::Halves
    }),
    ("W3", |i, g| {
        wave64(g) && i.family == Family::Swizzle && g.swizzle_group() == 32
    }),
    ("W4", |i, g| {
        wave64(g) && i.family == Family::Swizzle && g.swizzle_group() == 32
    }),
    ("W5", |i, g| {
        wave64(g) && matches!(i.family, Family::Append | Family::Consume)
    }),
    ("W6", |i, g| {
        wave64(g) && matches!(i.family, Family::StoreAddTid | Family::LoadAddTid)
    }),
    ("W7", |i, g| wave64(g) && per_lane_lds(i) && writes_lds(i)),
    ("W8", |i, g| {
        wave64(g) && matches!(i.family, Family::BvhStack | Family::BvhPushPop(_))
    }),
    ("W9", |i, g| {
        wave64(g) && permutes(i) && g.permute_span() == PermuteSpan::Wave
    }),
    ("W10", |i, g| {
        wave64(g) && i.family == Family::Permute && g.permute_span() == PermuteSpan::Wave
    }),
    // gfx9 and gfx10: asked of their rules (`cmpst_data0`) or, for the entries that restate
    // another generation's rule for them, of the generations with the older spellings.
    ("V1", |i, g| {
        i.family == Family::Rmw(Rmw::CmpStore) && g.cmpst_data0() == CmpstData0::CompareValue
    }),
    ("V2", |i, g| {
        matches!(i.family, Family::Permute | Family::Bpermute) && g.gfx9_mnemonics()
    }),
    ("V3", |i, g| {
        i.family == Family::Swizzle && g.gfx9_mnemonics()
    }),
    ("V4", |i, _| matches!(i.family, Family::Src2(_))),
    ("V5", |i, _| matches!(i.family, Family::Src2(_))),
    ("V6", |i, _| {
        matches!(i.family, Family::Src2(_)) && i.elem.bytes() == 8
    }),
    ("V7", |i, _| matches!(i.family, Family::Src2(_))),
    ("V8", |i, _| {
        i.family == Family::Rmw(Rmw::Add) && i.elem == ds_isa::ds::Elem::F64
    }),
    (
        "V9",
        |i, _| matches!(i.family, Family::LoadTranspose(t) if t.exec == TrExec::AllOnes),
    ),
    ("V10", |i, g| i.elem.is_packed16() && g.gfx9_mnemonics()),
    // gfx12.5: asked of the rows (their EXEC rule, their family).
    (
        "C1",
        |i, _| matches!(i.family, Family::LoadTranspose(t) if t.exec == TrExec::AnySet),
    ),
    (
        "C2",
        |i, _| matches!(i.family, Family::LoadTranspose(t) if t.exec == TrExec::AnySet),
    ),
    ("C3", |i, _| i.family == Family::BarrierArrive),
];

/// Every entry of ASSUMPTIONS.md, in file order.
pub fn all() -> Vec<Question> {
    parsed().to_vec()
}

/// Every entry of ASSUMPTIONS.md, parsed once.
pub fn parsed() -> &'static [Question] {
    static PARSED: OnceLock<Vec<Question>> = OnceLock::new();
    PARSED.get_or_init(|| parse(ASSUMPTIONS_MD))
}

/// The entry `id`, if ASSUMPTIONS.md has it.
pub fn get(id: &str) -> Option<&'static Question> {
    parsed().iter().find(|q| q.id == id)
}

/// A block of the text: a paragraph, or one item of a `- ` list (continuation lines joined).
enum Block {
    Paragraph(String),
    Item(String),
}

/// Parses the entries of an assumptions text: paragraphs opening `**ID. Title.**`, each followed
/// by its `- **name** (standing): ...` reading items.
pub fn parse(text: &str) -> Vec<Question> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut cur: Option<Block> = None;
    for line in text.lines().chain(std::iter::once("")) {
        let t = line.trim();
        if t.is_empty() || line.starts_with('#') {
            blocks.extend(cur.take());
            continue;
        }
        if let Some(item) = t.strip_prefix("- ") {
            blocks.extend(cur.take());
            cur = Some(Block::Item(item.to_string()));
            continue;
        }
        match &mut cur {
            Some(Block::Paragraph(p) | Block::Item(p)) => {
                p.push(' ');
                p.push_str(t);
            }
            None => cur = Some(Block::Paragraph(t.to_string())),
        }
    }
    let mut out: Vec<Question> = Vec::new();
    let mut open = false;
    for b in blocks {
        match b {
            Block::Paragraph(p) => match entry(&p) {
                Some(q) => {
                    out.push(q);
                    open = true;
                }
                None => open = false,
            },
            Block::Item(i) => match (open, out.last_mut(), reading(&i)) {
                (true, Some(q), Some(r)) => q.readings.push(r),
                _ => open = false,
            },
        }
    }
    out
}

/// A reading item: `**name** (standing): text`.
fn reading(item: &str) -> Option<Reading> {
    let rest = item.strip_prefix("**")?;
    let (name, rest) = rest.split_once("**")?;
    let rest = rest.trim_start().strip_prefix('(')?;
    let (word, text) = rest.split_once(')')?;
    let standing = Standing::parse(word.trim())?;
    let text = text.trim_start_matches(':').trim().to_string();
    Some(Reading {
        name: name.trim().to_string(),
        standing,
        kinds: Kind::tagged_in(&text),
        text,
    })
}

fn entry(p: &str) -> Option<Question> {
    let rest = p.strip_prefix("**")?;
    let (head, body) = rest.split_once("**")?;
    let (id, title) = head.split_once(". ")?;
    let ok_id = id.len() >= 2
        && id.as_bytes()[0].is_ascii_uppercase()
        && id[1..].bytes().all(|b| b.is_ascii_digit());
    if !ok_id {
        return None;
    }
    let body = body.trim();
    let (main, settles) = match body.split_once("Settles it:") {
        Some((m, s)) => (m.trim(), Some(s.trim().to_string())),
        None => (body, None),
    };
    let (before, choice) = match main.split_once("Choice:") {
        Some((b, c)) => (b.trim(), c.trim()),
        None => (main, main),
    };
    let sources = match before.split_once("Sources:") {
        Some((_, s)) => s.trim(),
        None => "",
    };
    Some(Question {
        id: id.to_string(),
        title: title.trim_end_matches('.').to_string(),
        kinds: Kind::tagged_in(sources),
        sources: sources.to_string(),
        choice: choice.to_string(),
        settles,
        readings: Vec::new(),
    })
}

/// The open questions that concern `op` on generation `gen`, in file order.
pub fn for_op(op: DsOp, gen: Generation) -> Vec<Question> {
    let info = op.info();
    parsed()
        .iter()
        .filter(|q| {
            APPLIES
                .iter()
                .any(|(id, applies)| *id == q.id && applies(info, gen))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_an_op_mapping_and_every_mapping_an_entry() {
        let ids: Vec<String> = all().into_iter().map(|q| q.id).collect();
        assert!(ids.len() >= 10, "ASSUMPTIONS.md parsed to {ids:?}");
        for id in &ids {
            assert!(
                APPLIES.iter().any(|(a, _)| a == id),
                "ASSUMPTIONS.md entry {id} has no op mapping in model::questions::APPLIES"
            );
        }
        for (a, _) in APPLIES {
            assert!(
                ids.iter().any(|id| id == a),
                "APPLIES names {a}, which ASSUMPTIONS.md lacks"
            );
        }
    }

    #[test]
    fn entries_split_into_sources_choice_settling_cases_and_readings() {
        let q = parse(
            "## X\n\n**Z9. A title.** Sources: a guide (DOC); an emulator (EMU).\nChoice: this one. \
             Settles it: case `c`.\n- **one** (model): it is so (EMU).\n- **two** (legal): or so,\n  \
             wrapped (DOC).\n- **three** (disagreement): no (no source).\n\n- not a reading\n",
        );
        assert_eq!(q.len(), 1);
        let q = &q[0];
        assert_eq!(
            (q.id.as_str(), q.title.as_str(), q.choice.as_str()),
            ("Z9", "A title", "this one.")
        );
        assert_eq!(q.sources, "a guide (DOC); an emulator (EMU).");
        assert_eq!(q.kinds, vec![Kind::Doc, Kind::Emu]);
        assert_eq!(q.settles.as_deref(), Some("case `c`."));
        let names: Vec<(&str, Standing, &[Kind])> = q
            .readings
            .iter()
            .map(|r| (r.name.as_str(), r.standing, r.kinds.as_slice()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("one", Standing::Model, &[Kind::Emu][..]),
                ("two", Standing::Legal, &[Kind::Doc][..]),
                ("three", Standing::Disagreement, &[][..]),
            ]
        );
        assert_eq!(q.readings[1].text, "or so, wrapped (DOC).");
        assert_eq!(q.model_reading().map(|r| r.name.as_str()), Some("one"));
    }

    /// The file's promise (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions"): every entry names its sources with their kinds
    /// and its readings, the model's first, then the legal ones, then the disagreements, each
    /// reading with its sources' kinds or an explicit `(no source)`.
    #[test]
    fn every_entry_gives_sources_with_kinds_and_ordered_readings() {
        let all = parsed();
        assert!(
            all.len() >= 50,
            "ASSUMPTIONS.md parsed to {} entries",
            all.len()
        );
        for q in all {
            assert!(
                !q.sources.is_empty() && !q.kinds.is_empty(),
                "{}: no `Sources:` with a (HW)/(DOC)/(DRV)/(EMU) kind: {:?}",
                q.id,
                q.sources
            );
            assert!(
                q.readings.len() >= 2,
                "{}: names {} readings (the model's and at least one other)",
                q.id,
                q.readings.len()
            );
            assert_eq!(
                q.readings[0].standing,
                Standing::Model,
                "{}: the first reading must be the model's",
                q.id
            );
            let standings: Vec<Standing> = q.readings.iter().map(|r| r.standing).collect();
            let mut sorted = standings.clone();
            sorted.sort();
            assert_eq!(standings, sorted, "{}: readings out of order", q.id);
            assert_eq!(
                standings.iter().filter(|s| **s == Standing::Model).count(),
                1,
                "{}: one model reading",
                q.id
            );
            for r in &q.readings {
                assert!(
                    !r.kinds.is_empty() || r.text.contains("(no source)"),
                    "{} reading {:?}: no source kind and no `(no source)`",
                    q.id,
                    r.name
                );
                let twins = q.readings.iter().filter(|o| o.name == r.name).count();
                assert_eq!(twins, 1, "{}: reading {:?} named twice", q.id, r.name);
            }
        }
    }

    /// The citations issue 29 fixed: W9/W10 cite the RDNA4 guide's wave64 rule, P1 names the
    /// conflict between the CDNA4 guide's append address and LLVM's M0 base.
    #[test]
    fn the_fixed_citations_are_there() {
        for id in ["W9", "W10"] {
            let q = get(id).unwrap();
            assert!(q.sources.contains("num_lanes = WAVE64 ? 64 : 32"), "{id}");
            assert!(q.kinds.contains(&Kind::Doc), "{id}: {:?}", q.kinds);
        }
        let p1 = get("P1").unwrap();
        assert!(p1.sources.contains("at instr_offset if LDS"));
        assert!(p1.sources.contains("SelectDSAppendConsume"));
        let offset_alone = p1
            .readings
            .iter()
            .find(|r| r.name == "offset alone")
            .unwrap();
        assert_eq!(offset_alone.standing, Standing::Disagreement);
        assert_eq!(offset_alone.kinds, vec![Kind::Doc]);
        assert!(p1.model_reading().unwrap().kinds.contains(&Kind::Drv));
    }

    #[test]
    fn a_missing_kind_or_reading_is_caught() {
        // What the test above rejects, shown on purpose-made entries.
        let bare = parse("**Z1. Bare.** Sources: a guide. Choice: x.\n");
        assert!(bare[0].kinds.is_empty() && bare[0].readings.is_empty());
        let unsourced =
            parse("**Z2. T.** Sources: g (DOC). Choice: x.\n- **a** (model): says so.\n");
        assert!(unsourced[0].readings[0].kinds.is_empty());
        assert!(!unsourced[0].readings[0].text.contains("(no source)"));
        let unknown =
            parse("**Z3. T.** Sources: g (DOC). Choice: x.\n- **a** (maybe): so (DOC).\n");
        assert!(
            unknown[0].readings.is_empty(),
            "an unknown standing is no reading"
        );
    }

    #[test]
    fn ops_get_the_questions_of_their_family() {
        let ids_in = |name: &str, gen: Generation| -> Vec<String> {
            for_op(DsOp::from_name(name).unwrap(), gen)
                .into_iter()
                .map(|q| q.id)
                .collect()
        };
        let ids = |name: &str| ids_in(name, Generation::Gfx11);
        assert!(ids("ds_min_f32").contains(&"F1".to_string()));
        assert!(!ids("ds_min_f32").contains(&"F3".to_string()));
        assert!(ids("ds_add_rtn_u32").contains(&"A4".to_string()));
        assert!(!ids("ds_load_b32").contains(&"A4".to_string()));
        assert_eq!(
            ids("ds_bpermute_b32"),
            vec!["R1".to_string(), "S3".to_string(), "W1".to_string()]
        );
        assert!(ids("ds_load_2addr_b32").contains(&"R3".to_string()));
        assert!(!ids("ds_store_b32").contains(&"R1".to_string()));
        assert!(ids("ds_append").contains(&"W5".to_string()));
        assert!(!ids("ds_load_b32").contains(&"W6".to_string()));
        for gen in Generation::ALL {
            for op in ds_isa::ds::runnable_ops(gen) {
                if op.info().accesses_lds() {
                    assert!(!for_op(op, gen).is_empty(), "{op} has no open question");
                }
            }
        }
    }

    #[test]
    fn a_generation_rule_entry_applies_where_the_generation_gives_its_answer() {
        // Each permute op gets exactly one wave64 span entry on every generation that runs a
        // wave64: the one its generation's `permute_span` answer names (W1/W2 within halves,
        // W9/W10 whole wave); none on a wave32-only generation (gfx12.5).
        for gen in Generation::ALL {
            for op in ds_isa::ds::runnable_ops(gen) {
                let info = op.info();
                let ids: Vec<String> = for_op(op, gen).into_iter().map(|q| q.id).collect();
                let span_entries: Vec<&str> = ids
                    .iter()
                    .map(String::as_str)
                    .filter(|id| ["W1", "W2", "W9", "W10"].contains(id))
                    .collect();
                let want = match (info.family, gen.permute_span()) {
                    _ if !wave64(gen) => vec![],
                    (Family::Bpermute | Family::BpermuteFi, PermuteSpan::Halves) => vec!["W1"],
                    (Family::Permute, PermuteSpan::Halves) => vec!["W2"],
                    (Family::Bpermute | Family::BpermuteFi, PermuteSpan::Wave) => vec!["W9"],
                    (Family::Permute, PermuteSpan::Wave) => vec!["W10"],
                    _ => vec![],
                };
                assert_eq!(span_entries, want, "{op} on {gen}");
            }
        }
    }
}
