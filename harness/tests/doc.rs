//! `ds-harness doc OP`: the op cards of `ds_mskor_b32` and `ds_min_u64` as insta snapshots
//! (the binary's real output, with the shipped recordings), and the unknown-op error.

mod common;

use common::{ds_harness, stderr, stdout};
use ds_isa::gen::Generation;

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/harness"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

fn card(op: &str) -> String {
    let out = ds_harness(&["doc", op], "");
    assert!(out.status.success(), "doc {op}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "no warnings about the shipped recordings");
    stdout(&out)
}

#[test]
fn card_of_ds_mskor_b32() {
    let text = card("ds_mskor_b32");
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("(old & ~data0) | data1"), "{text}");
    snapshot("doc_ds_mskor_b32", &text);
}

#[test]
fn card_of_ds_min_u64() {
    let text = card("ds_min_u64");
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("compared as unsigned 64-bit integers"),
        "{text}"
    );
    snapshot("doc_ds_min_u64", &text);
}

#[test]
fn every_op_has_a_card_naming_its_opcode_row() {
    for op in ds_isa::ds::DsOp::all(Generation::Gfx11) {
        let text = ds_harness::doc::card(op, ds_isa::target::DEFAULT, &[]);
        assert!(text.starts_with(op.name()), "{op}");
        assert!(
            text.contains(&format!(
                "{:#04x} (this op's row",
                op.opcode(ds_isa::ds::Generation::Gfx11).unwrap()
            )),
            "{op}"
        );
    }
}

#[test]
fn an_unknown_op_is_exit_2_with_close_names() {
    let out = ds_harness(&["doc", "ds_mskr_b32"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("did you mean ds_mskor_b32"), "{err}");
    assert_eq!(stdout(&out), "");
}

/// `doc OP --target T --wave 64` says which generation rule decides the op's wave64 result on T
/// and why (the binary's output, for a target of each generation).
#[test]
fn the_wave64_card_of_a_permute_says_which_rule_applies_on_the_target_and_why() {
    use ds_isa::ds::Generation;
    use ds_isa::gen::{PermuteSpan, Rule};
    for gen in Generation::ALL {
        for t in gen.targets() {
            let out = ds_harness(
                &["doc", "ds_bpermute_b32", "--target", t.name, "--wave", "64"],
                "",
            );
            assert!(out.status.success(), "{t}: {}", stderr(&out));
            let text = stdout(&out);
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let rule = gen.rule(Rule::PermuteSpan);
            assert!(
                flat.contains(&format!("Rules of {t} ({gen}) in wave64")),
                "{text}"
            );
            assert!(
                flat.contains(&format!("applies: {}", rule.choice)),
                "{text}"
            );
            assert!(
                flat.contains("why: LLVM `GCNSubtarget::supportsWaveWideBPermute()`"),
                "{text}"
            );
            let (mine, other) = match gen.permute_span() {
                PermuteSpan::Halves => ("W1.", "W9."),
                PermuteSpan::Wave => ("W9.", "W1."),
            };
            assert!(text.contains(mine) && !text.contains(other), "{t}: {text}");
        }
    }
}

/// Every open question on a card gives its sources with their kinds and its readings, the
/// model's first; the computed ones are marked (ASSUMPTIONS.md, issue 29).
#[test]
fn a_card_gives_each_questions_sources_kinds_and_readings() {
    let text = ds_harness(&["doc", "ds_permute_b32", "--target", "gfx1201"], "");
    assert!(text.status.success(), "{}", stderr(&text));
    let text = stdout(&text);
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "S4. Permute collisions",
        "[kinds: DOC, DRV]",
        "model reading: \"highest lane\" (computed)",
        "legal reading: \"lowest lane\" (computed)",
        "legal reading: \"any colliding lane\" (computed)",
        "model reading: \"whole wave\" (computed)",
        "disagreement reading: \"within halves\" (computed)",
        "num_lanes = WAVE64 ? 64 : 32",
    ] {
        assert!(words.contains(want), "no {want:?} in:\n{text}");
    }
    // One of each per question on the card.
    let questions = text.matches("(reference/ASSUMPTIONS.md)").count();
    assert!(questions >= 4, "{text}");
    for each in ["      sources: ", "[kinds: ", "      model reading: "] {
        assert_eq!(
            text.matches(each).count(),
            questions,
            "{each:?} in:\n{text}"
        );
    }
}
