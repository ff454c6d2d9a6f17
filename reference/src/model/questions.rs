//! The model's open questions, machine-readable: `reference/ASSUMPTIONS.md` parsed at compile
//! time (each entry is a paragraph opening `**ID. Title.**`, with `Choice:` and `Settles it:`
//! parts), plus which ops of which generation each entry concerns (an entry about a rule that
//! differs between generations applies where the generation's answer is the entry's: asked of
//! `Generation::permute_span` and the like, never of a name). `ds-harness doc OP --target T`
//! lists an op's questions on T.
//!
//! The text stays in ASSUMPTIONS.md (one source); this module only adds the op mapping
//! ([`APPLIES`]), and a test fails when an entry of the file has no mapping or a mapping names no
//! entry, so the two cannot drift apart.

use crate::isa::{DsOp, Family, Gds, Generation, OpInfo, Rmw};
use crate::target::{CmpstData0, PermuteSpan};

/// The assumptions file, as committed.
pub const ASSUMPTIONS_MD: &str = include_str!("../../ASSUMPTIONS.md");

/// One entry of ASSUMPTIONS.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The entry's id, e.g. `A4`.
    pub id: String,
    /// Its title, e.g. `Same-address lanes of one instruction`.
    pub title: String,
    /// The model's choice and the legal alternatives (from `Choice:` up to `Settles it:`, or the
    /// whole entry when it has no `Choice:`).
    pub choice: String,
    /// The corpus cases that settle it on hardware (after `Settles it:`), if named.
    pub settles: Option<String>,
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
                .any(|t| t.ds_features.contains(crate::ds_features::DsFeatures::ACC))
    }),
    ("F1", |i, _| float_rmw(i, &[Rmw::Min, Rmw::Max])),
    ("F2", |i, _| {
        float_rmw(i, &[Rmw::Add, Rmw::Min, Rmw::Max, Rmw::CmpStore])
    }),
    ("F3", |i, _| float_rmw(i, &[Rmw::Add])),
    ("F4", |i, _| float_rmw(i, &[Rmw::CmpStore])),
    ("F5", |i, _| float_rmw(i, &[Rmw::Add])),
    ("S1", |i, _| i.family == Family::Swizzle),
    ("S2", |i, _| i.family == Family::Swizzle),
    ("S3", |i, _| {
        matches!(
            i.family,
            Family::Permute | Family::Bpermute | Family::BpermuteFi
        )
    }),
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
        i.family == Family::BvhPushPop(crate::isa::Bvh::Push8Pop2)
    }),
    ("W1", |i, g| {
        permutes(i) && g.permute_span() == PermuteSpan::Halves
    }),
    ("W2", |i, g| {
        i.family == Family::Permute && g.permute_span() == PermuteSpan::Halves
    }),
    ("W3", |i, g| {
        i.family == Family::Swizzle && g.swizzle_group() == 32
    }),
    ("W4", |i, g| {
        i.family == Family::Swizzle && g.swizzle_group() == 32
    }),
    ("W5", |i, _| {
        matches!(i.family, Family::Append | Family::Consume)
    }),
    ("W6", |i, _| {
        matches!(i.family, Family::StoreAddTid | Family::LoadAddTid)
    }),
    ("W7", |i, _| per_lane_lds(i) && writes_lds(i)),
    ("W8", |i, _| {
        matches!(i.family, Family::BvhStack | Family::BvhPushPop(_))
    }),
    ("W9", |i, g| {
        permutes(i) && g.permute_span() == PermuteSpan::Wave
    }),
    ("W10", |i, g| {
        i.family == Family::Permute && g.permute_span() == PermuteSpan::Wave
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
        i.family == Family::Rmw(Rmw::Add) && i.elem == crate::isa::Elem::F64
    }),
    ("V9", |i, _| matches!(i.family, Family::LoadTranspose(_))),
    ("V10", |i, g| i.elem.is_packed16() && g.gfx9_mnemonics()),
];

/// Every entry of ASSUMPTIONS.md, in file order.
pub fn all() -> Vec<Question> {
    parse(ASSUMPTIONS_MD)
}

/// Parses the entries of an assumptions text: paragraphs opening `**ID. Title.**`.
pub fn parse(text: &str) -> Vec<Question> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut cur = String::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() || line.starts_with('#') {
            if !cur.is_empty() {
                paragraphs.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(line.trim());
    }
    paragraphs.iter().filter_map(|p| entry(p)).collect()
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
    let choice = match main.split_once("Choice:") {
        Some((_, c)) => c.trim(),
        None => main,
    };
    Some(Question {
        id: id.to_string(),
        title: title.trim_end_matches('.').to_string(),
        choice: choice.to_string(),
        settles,
    })
}

/// The open questions that concern `op` on generation `gen`, in file order.
pub fn for_op(op: DsOp, gen: Generation) -> Vec<Question> {
    let info = op.info();
    all()
        .into_iter()
        .filter(|q| {
            APPLIES
                .iter()
                .any(|(id, applies)| *id == q.id && applies(info, gen))
        })
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
    fn entries_split_into_choice_and_settling_cases() {
        let q = parse(
            "## X\n\n**Z9. A title.** Sources: a guide.\nChoice: this one. Settles it: case `c`.\n",
        );
        assert_eq!(
            q,
            vec![Question {
                id: "Z9".into(),
                title: "A title".into(),
                choice: "this one.".into(),
                settles: Some("case `c`.".into()),
            }]
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
            for op in crate::isa::runnable_ops_in(gen) {
                if op.info().accesses_lds() {
                    assert!(!for_op(op, gen).is_empty(), "{op} has no open question");
                }
            }
        }
    }

    #[test]
    fn a_generation_rule_entry_applies_where_the_generation_gives_its_answer() {
        // Each permute op gets exactly one wave64 span entry on every generation: the one its
        // generation's `permute_span` answer names (W1/W2 within halves, W9/W10 whole wave).
        for gen in Generation::ALL {
            for op in crate::isa::runnable_ops_in(gen) {
                let info = op.info();
                let ids: Vec<String> = for_op(op, gen).into_iter().map(|q| q.id).collect();
                let span_entries: Vec<&str> = ids
                    .iter()
                    .map(String::as_str)
                    .filter(|id| ["W1", "W2", "W9", "W10"].contains(id))
                    .collect();
                let want = match (info.family, gen.permute_span()) {
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
