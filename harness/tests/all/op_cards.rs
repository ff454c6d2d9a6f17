//! `ds-harness doc OP`: the op cards of `ds_mskor_b32` and `ds_min_u64` as insta snapshots (the
//! binary's real output, with the shipped recordings); every op of every generation has a card
//! naming its opcode row and its target's encoding (an op the target lacks refused naming the
//! targets that have it); `--wave 64` says what differs from wave32; a card gives each open
//! question's sources and readings; every gfx12 op has a wave64 card and kernel on each gfx12
//! target; an unknown op or a missing recordings directory is an error.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use ds_isa::ds::doc::example;
use ds_isa::ds::runnable_ops;
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;

use common::{ds_harness, stderr, stdout};
use ds_isa::gen::Generation;

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/harness/gfx11"),
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

/// `kernel` and `doc` in wave64 for every runnable gfx12 op on both gfx12 targets (through the
/// library the commands call): each op gets a wave64 gfx12 kernel and a wave64 card by its
/// target's rules, with examples the model computes.
#[test]
fn every_runnable_gfx12_op_has_a_wave64_kernel_and_card_on_each_gfx12_target() {
    use ds_kernels::generator::generate_for;
    let mut n = 0;
    for t in Generation::Gfx12.targets() {
        for op in runnable_ops(t.generation) {
            let (_, v, _) = ds_reference::model::snapshot::snapshot_corpus_wave64(op)
                .into_iter()
                .next()
                .expect("a wave64 case");
            let k = generate_for(t, &v).unwrap_or_else(|e| panic!("{t} {op}: {e}"));
            assert_eq!(k.descriptor.wave_size(), WaveSize::Wave64, "{t} {op}");
            let card = ds_harness::doc::card_in(op, t, &[], WaveSize::Wave64);
            assert!(
                card.starts_with(&format!("{op} in wave64 on {t}")),
                "{card}"
            );
            assert!(!card.contains("Examples: none"), "{t} {op}: {card}");
            n += 1;
        }
    }
    assert_eq!(n, 2 * common::GFX12_RUNNABLE);
}

#[test]
fn doc_wave_64_shows_what_differs_for_the_op() {
    let out = ds(&["doc", "ds_bpermute_b32", "--wave", "64"]);
    let so = stdout(&out);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(so.contains("What differs from wave32"), "{so}");
    assert!(so.contains("W1."), "{so}");
    assert!(so.contains("case w64_index_32_to_63"), "{so}");
    let out = ds(&["doc", "ds_load_b32", "--wave", "64"]);
    assert!(
        stdout(&out).contains("nothing wave-size-dependent"),
        "{}",
        stdout(&out)
    );
}

/// Every op of a Vega, a CDNA 4 and an RDNA 2 target has a card with the target's encoding; an
/// op the target lacks is refused, naming the targets that have it (exit 2).
#[test]
fn doc_cards_name_the_targets_encoding_and_refuse_ops_it_lacks() {
    for name in ["gfx900", "gfx950", "gfx1030"] {
        let t = Target::by_name(name).unwrap();
        for op in DsOp::all(t.generation) {
            let spelled = op.mnemonic(t.generation);
            let out = ds_harness(&["doc", spelled, "--target", name], "");
            if !op.info().on(t) {
                assert_eq!(out.status.code(), Some(2), "{t} {spelled}");
                assert!(
                    stderr(&out).contains("the targets that have it"),
                    "{}",
                    stderr(&out)
                );
                continue;
            }
            assert_eq!(
                out.status.code(),
                Some(0),
                "{t} {spelled}: {}",
                stderr(&out)
            );
            let ex = example(t, op);
            let bytes = ex.to_bytes(t).unwrap();
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let line = format!(
                "On {t} ({}): spelled {spelled}, opcode {:#04x}",
                t.generation,
                op.opcode(t.generation).unwrap()
            );
            let text = stdout(&out);
            assert!(text.contains(&line), "{t} {spelled}:\n{text}");
            assert!(text.contains(&hex.join(" ")), "{t} {spelled}");
        }
    }
}

#[test]
fn doc_with_a_missing_recordings_dir_is_an_error() {
    let out = ds(&[
        "doc",
        "ds_add_u32",
        "--recordings",
        "/nonexistent/recordings",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--recordings /nonexistent/recordings"),
        "{}",
        stderr(&out)
    );
}

/// GFX 12.5's new families are named in words on their cards (not a type's debug form): the
/// transpose loads by their element width, the barrier arrives with their *inferred* model.
#[test]
fn gfx1250_cards_name_the_transpose_and_barrier_families_in_words() {
    let first_line = |op: &str, t: &str| {
        let out = ds_harness(&["doc", op, "--target", t], "");
        assert!(out.status.success(), "{op} {t}: {}", stderr(&out));
        stdout(&out)
    };
    for t in ["gfx1250", "gfx1251"] {
        let tr = first_line("ds_load_tr8_b64", t);
        assert!(
            tr.starts_with("ds_load_tr8_b64 (transpose load of 8-bit elements, 64-bit value)"),
            "{tr}"
        );
        let arrive = first_line("ds_atomic_async_barrier_arrive_b64", t);
        assert!(arrive.contains("(barrier arrive, "), "{arrive}");
        assert!(
            arrive.contains("Model: inferred: a single arrive of 1"),
            "{arrive}"
        );
    }
    // `list`'s family column likewise: the width, not the row's data.
    let out = ds_harness(&["list", "--target", "gfx1250"], "");
    let list = stdout(&out);
    let row = list
        .lines()
        .find(|l| l.contains(" ds_load_tr16_b128 "))
        .unwrap();
    assert!(row.contains(" LoadTranspose(16) b128 "), "{row}");
    let cdna4 = first_line("ds_read_b64_tr_b16", "gfx950");
    assert!(
        cdna4.contains("(transpose load of 16-bit elements, "),
        "{cdna4}"
    );
}
