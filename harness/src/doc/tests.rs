//! The op cards' unit tests: the measured layout, the semantics in words, the wave64 card.

use super::*;
use ds_isa::ds::Generation;
use ds_isa::gen::Rule;

use ds_isa::gen::PermuteSpan;
use ds_isa::target::{Target, DEFAULT};

/// The first target of the generation whose permutes take `span`.
fn target_with(span: PermuteSpan) -> &'static Target {
    Generation::ALL
        .into_iter()
        .find(|g| g.permute_span() == span)
        .and_then(|g| g.targets().next())
        .unwrap()
}

#[test]
fn the_wave64_card_names_what_differs_and_shows_the_straddling_cases() {
    let bp = card_in(DsOp::BpermuteB32, DEFAULT, &[], WaveSize::Wave64);
    assert!(bp.contains("W1."), "{bp}");
    assert!(!bp.contains("A1."), "only the wave64 questions: {bp}");
    assert!(bp.contains("case w64_index_32_to_63"), "{bp}");
    assert!(bp.contains("exec 0xffffffffffffffff"), "{bp}");
    let ld = card_in(
        DsOp::from_name("ds_load_b32").unwrap(),
        DEFAULT,
        &[],
        WaveSize::Wave64,
    );
    assert!(ld.contains("nothing wave-size-dependent"), "{ld}");
    assert!(
        !ld.contains("Rules of"),
        "no generation rule concerns a load: {ld}"
    );
    assert_eq!(
        card_in(DsOp::AddU32, DEFAULT, &[], WaveSize::Wave32),
        card(DsOp::AddU32, DEFAULT, &[])
    );
}

/// `doc OP --target T --wave 64` says which rule applies on T and why, and what the other
/// generations do; the questions and the examples follow T's generation.
#[test]
fn the_wave64_card_says_which_generation_rule_applies_and_why() {
    let (halves, whole) = (
        target_with(PermuteSpan::Halves),
        target_with(PermuteSpan::Wave),
    );
    let a = card_in(DsOp::BpermuteB32, halves, &[], WaveSize::Wave64);
    let b = card_in(DsOp::BpermuteB32, whole, &[], WaveSize::Wave64);
    for (card, t) in [(&a, halves), (&b, whole)] {
        let text = t.generation.rule(Rule::PermuteSpan);
        assert!(
            card.contains(&format!("Rules of {t} ({})", t.generation)),
            "{card}"
        );
        assert!(card.contains("Generation::permute_span"), "{card}");
        let flat = card.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(text.choice), "{card}");
        assert!(flat.contains("supportsWaveWideBPermute"), "{card}");
    }
    assert!(a.contains("W1.") && !a.contains("W9."), "{a}");
    assert!(b.contains("W9.") && !b.contains("W1."), "{b}");
    assert!(a.contains("within each 32-lane half") && b.contains("over the whole wave64"));
    // The worked example w64_index_mirror: lane 0 reads lane 31's DATA0 (0x101f) on gfx11,
    // lane 63's (0x103f) on gfx12.
    let lane0 = |card: &str| -> String {
        let at = card
            .find("case w64_index_mirror")
            .expect("the mirror case is shown");
        card[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("lane  0:"))
            .unwrap_or_else(|| panic!("lane 0 of the mirror case in {card}"))
            .to_string()
    };
    assert!(lane0(&a).contains("0000101f"), "{}", lane0(&a));
    assert!(lane0(&b).contains("0000103f"), "{}", lane0(&b));
    // A compare-store names the operand order in both wave sizes.
    let cmp = card(DsOp::from_name("ds_cmpstore_b32").unwrap(), DEFAULT, &[]);
    assert!(cmp.contains("Generation::cmpst_data0"), "{cmp}");
    assert!(cmp.contains("DATA0 is the new value"), "{cmp}");
}

#[test]
fn measured_layout_covers_64_bits_in_the_guides_ranges() {
    let l = layout(DEFAULT);
    assert_eq!(l.first().map(|f| f.lo), Some(0));
    assert_eq!(l.last().map(|f| f.hi), Some(63));
    for w in l.windows(2) {
        assert_eq!(w[0].hi + 1, w[1].lo, "{l:?}");
    }
    let got: Vec<(String, &str)> = l.iter().map(|f| (range(f), part_name(f.part))).collect();
    let want = [
        ("[7:0]", "OFFSET0"),
        ("[15:8]", "OFFSET1"),
        ("[16]", "reserved"),
        ("[17]", "GDS"),
        ("[25:18]", "OP"),
        ("[31:26]", "ENCODING"),
        ("[39:32]", "ADDR"),
        ("[47:40]", "DATA0"),
        ("[55:48]", "DATA1"),
        ("[63:56]", "VDST"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|(r, n)| (r.to_string(), *n)).collect();
    assert_eq!(got, want);
}

#[test]
fn semantics_follow_the_family_and_element() {
    let gen = DEFAULT.generation;
    let min = semantics(DsOp::from_name("ds_min_i64").unwrap().info(), gen).join(" ");
    assert!(min.contains("as signed 64-bit integers"), "{min}");
    let mskor = semantics(DsOp::from_name("ds_mskor_rtn_b32").unwrap().info(), gen).join(" ");
    assert!(mskor.contains("(old & ~data0) | data1"), "{mskor}");
    assert!(mskor.contains("Returns old in vdst"), "{mskor}");
}

/// A card lays out its target's own DS word: gfx9's OP at [24:17] with the acc bit where the
/// target has AccVGPR operands, gfx12's without a gds bit, each example in the target's spelling.
#[test]
fn a_card_shows_its_targets_own_encoding_and_spelling() {
    let by = |n: &str| ds_isa::target::Target::by_name(n).unwrap();
    let fields = |t: &'static Target| -> Vec<(String, &str)> {
        layout(t)
            .iter()
            .map(|f| (range(f), part_name(f.part)))
            .collect()
    };
    let acc_target = ds_isa::target::TARGETS
        .iter()
        .find(|t| t.ds_features.contains(ds_isa::ds::DsFeatures::ACC))
        .unwrap();
    let cdna = fields(acc_target);
    assert!(cdna.contains(&("[25]".into(), "ACC")), "{cdna:?}");
    assert!(cdna.contains(&("[24:17]".into(), "OP")), "{cdna:?}");
    assert!(cdna.contains(&("[16]".into(), "GDS")), "{cdna:?}");
    let rdna4 = fields(ds_isa::gen::Generation::Gfx12.targets().next().unwrap());
    assert!(rdna4.contains(&("[17:16]".into(), "reserved")), "{rdna4:?}");
    assert!(!rdna4.iter().any(|(_, p)| *p == "GDS"), "{rdna4:?}");
    let store = DsOp::from_name("ds_store_b32").unwrap();
    let card9 = card(store, acc_target, &[]);
    assert!(card9.contains("e.g. ds_write_b32 "), "{card9}");
    assert!(!card9.contains("ds_store_b32 v"), "{card9}");
    assert!(card(store, by(DEFAULT.name), &[]).contains("e.g. ds_store_b32 "));
}
