//! The computed readings against ASSUMPTIONS.md: every row names a reading the file has, every
//! computed question's model reading is computed and is [`Rules::MODEL`], every other reading
//! changes the rules.

use super::*;
use ds_isa::ds::DsOp;

#[test]
fn every_row_names_a_reading_assumptions_md_gives() {
    for c in COMPUTED {
        let q = questions::get(c.question)
            .unwrap_or_else(|| panic!("COMPUTED names {}, which ASSUMPTIONS.md lacks", c.question));
        assert!(
            q.readings.iter().any(|r| r.name == c.reading),
            "COMPUTED names {} reading {:?}, which ASSUMPTIONS.md's entry lacks (it names {:?})",
            c.question,
            c.reading,
            q.readings.iter().map(|r| &r.name).collect::<Vec<_>>()
        );
        let twins = COMPUTED
            .iter()
            .filter(|o| o.question == c.question && o.reading == c.reading)
            .count();
        assert_eq!(twins, 1, "{} {:?} registered twice", c.question, c.reading);
    }
}

#[test]
fn the_model_reading_is_computed_first_and_is_the_model() {
    let mut questions: Vec<&str> = COMPUTED.iter().map(|c| c.question).collect();
    questions.dedup();
    for q in questions {
        let placed = of_question(q);
        assert_eq!(
            placed.first().map(|p| p.standing),
            Some(Standing::Model),
            "{q}: the first computed reading must be the model's"
        );
        let model = placed[0].row;
        let entry = questions::get(q).unwrap();
        assert_eq!(
            entry.model_reading().map(|r| r.name.as_str()),
            Some(model.reading),
            "{q}: the model's reading in ASSUMPTIONS.md"
        );
        let mut r = Rules::MODEL;
        (model.set)(&mut r);
        assert_eq!(
            r,
            Rules::MODEL,
            "{q}: the model's row must leave the model's rules"
        );
        for p in &placed[1..] {
            let mut r = Rules::MODEL;
            (p.row.set)(&mut r);
            assert_ne!(r, Rules::MODEL, "{q} {:?} changes nothing", p.row.reading);
        }
        let how: Vec<Use> = placed.iter().map(|p| p.row.how).collect();
        assert!(
            how.windows(2).all(|w| w[0] == w[1]),
            "{q}: one use per question"
        );
    }
}

#[test]
fn combinations_cover_the_accepted_readings_or_hold_one() {
    let add = DsOp::from_name("ds_add_rtn_f32").unwrap().info();
    let gen = Generation::Gfx11;
    let all = combinations(add, gen, Allowed::Accepted, Use::PerLane, Rules::MODEL);
    // F3 (3 accepted readings) x F6 (2); F1, F2 and F4 do not concern an add.
    assert_eq!(all[0], Rules::MODEL);
    assert_eq!(all.len(), 6, "{all:?}");
    let held = Allowed::Held(("F3", "memory's NaN first"));
    let some = combinations(add, gen, held, Use::PerLane, Rules::MODEL);
    assert!(some.iter().all(|r| r.nan_order == NanOrder::MemoryFirst));
    assert_eq!(some.len(), 2);
    // A disagreement reading is only ever tried when held.
    let bf16 = DsOp::from_name("ds_pk_add_rtn_bf16").unwrap().info();
    let g12 = Generation::Gfx12;
    let accepted = combinations(bf16, g12, Allowed::Accepted, Use::PerLane, Rules::MODEL);
    assert!(accepted
        .iter()
        .all(|r| r.bf16_denormals != Bf16Denormals::Never));
    let never = Allowed::Held(("N3", "never flushed"));
    let held = combinations(bf16, g12, never, Use::PerLane, Rules::MODEL);
    assert!(held
        .iter()
        .all(|r| r.bf16_denormals == Bf16Denormals::Never));
    for q in ["A4", "F3", "F6", "N3"] {
        assert!(questions_for(bf16, g12).contains(&q), "{q}");
    }
}

#[test]
fn rules_with_puts_a_named_reading_in() {
    let r = Rules::MODEL.with("S4", "lowest lane").unwrap();
    assert_eq!(r.collision, Collision::Lowest);
    assert_eq!(Rules::MODEL.with("S4", "no such reading"), None);
}

#[test]
fn wider_readings_name_computed_readings_of_their_question() {
    for (q, wide, narrow) in WIDER {
        let names: Vec<&str> = of_question(q).iter().map(|p| p.row.reading).collect();
        assert!(names.contains(wide), "{q} {wide:?}");
        for n in *narrow {
            assert!(names.contains(n), "{q} {n:?}");
        }
    }
    assert_eq!(narrower("A4", "any lane order").len(), 2);
    assert!(narrower("A4", "ascending lanes").is_empty());
}

#[test]
fn kinds_are_read_from_their_parentheses() {
    assert_eq!(
        Kind::tagged_in("a (DOC, DRV) b (EMU) c (no source) d (HWX)"),
        vec![Kind::Doc, Kind::Drv, Kind::Emu]
    );
    assert_eq!(Kind::tagged_in("(DRV, inference)"), vec![Kind::Drv]);
    // A kind with a remark after a colon, the remark holding parentheses of its own.
    assert_eq!(
        Kind::tagged_in("gpurt (DRV: `f(x)` says so); rocJITsu (EMU: base `(ADDR >> 18) * 4`)"),
        vec![Kind::Drv, Kind::Emu]
    );
    assert!(Kind::tagged_in("DOC without parentheses").is_empty());
}

#[test]
fn every_op_of_every_generation_gets_its_questions() {
    // Ops beyond gfx11's (gfx12's pk_add, gfx9's src2) included.
    for (name, gen, q) in [
        ("ds_pk_add_rtn_bf16", Generation::Gfx12, "N3"),
        ("ds_pk_add_rtn_f16", Generation::Gfx9, "F3"),
        ("ds_permute_b32", Generation::Gfx9, "S4"),
        ("ds_add_rtn_f64", Generation::Gfx9, "F6"),
    ] {
        let info = DsOp::from_name(name).unwrap().info();
        assert!(
            questions_for(info, gen).contains(&q),
            "{name} on {gen}: {q}"
        );
    }
}

/// The BVH stack readings plug in as whole-case rows: gfx11's op tries RADV's and rocJITsu's
/// index widths (B2) with the model's step (B3), the guide's step only when held; the gfx12 forms
/// try GPURT's and rocJITsu's push4 step (B7) and, for pop-2, both pop orders (B9), never B6's
/// 32-entry reading unless held.
#[test]
fn bvh_readings_are_whole_case_rows_of_their_ops() {
    let gfx11 = DsOp::from_name("ds_bvh_stack_rtn_b32").unwrap().info();
    let g11 = Generation::Gfx11;
    assert_eq!(questions_for(gfx11, g11), vec!["B2", "B3"]);
    let whole = |info, gen, allowed| combinations(info, gen, allowed, Use::WholeCase, Rules::MODEL);
    let accepted = whole(gfx11, g11, Allowed::Accepted);
    let index: Vec<BvhIndex> = accepted.iter().map(|r| r.bvh_index).collect();
    assert_eq!(index, vec![BvhIndex::Bits18, BvhIndex::Bits16]);
    assert!(accepted
        .iter()
        .all(|r| r.bvh_step11 == BvhStep11::FirstChild));
    let guide = whole(gfx11, g11, Allowed::Held(("B3", "guide pseudocode")));
    assert_eq!(guide.len(), 2);
    assert!(guide.iter().all(|r| r.bvh_step11 == BvhStep11::Guide));
    let pop2 = DsOp::from_name("ds_bvh_stack_push8_pop2_rtn_b64").unwrap();
    let g12 = Generation::Gfx12;
    assert_eq!(questions_for(pop2.info(), g12), vec!["B6", "B7", "B9"]);
    let accepted = whole(pop2.info(), g12, Allowed::Accepted);
    assert_eq!(accepted.len(), 4, "B7's two accepted readings x B9's two");
    assert!(accepted
        .iter()
        .all(|r| r.bvh_zero_size == BvhZeroSize::Sixteen && r.bvh_step12 != BvhStep12::Guide));
    let push4 = DsOp::from_name("ds_bvh_stack_push4_pop1_rtn_b32")
        .unwrap()
        .info();
    assert!(!questions_for(push4, g12).contains(&"B9"));
    let size32 = whole(push4, g12, Allowed::Held(("B6", "size zero is 32")));
    assert!(size32
        .iter()
        .all(|r| r.bvh_zero_size == BvhZeroSize::ThirtyTwo));
}

/// The op's readings are found by the address of its table row on the per-case path; an
/// `OpInfo` that is not the table's row (a copy) still gets the same list, by name.
#[test]
fn op_readings_are_the_same_by_row_and_by_name() {
    for gen in Generation::ALL {
        for op in DsOp::all(gen) {
            let row = op.info();
            let copy = *row;
            let (by_row, by_name) = (op_readings(row, gen), op_readings(&copy, gen));
            assert!(std::ptr::eq(by_row, by_name), "{op} on {gen:?}");
        }
    }
    let fmin = DsOp::from_name("ds_min_f32").unwrap().info();
    assert!(!op_readings(fmin, Generation::ALL[0]).is_empty());
}
