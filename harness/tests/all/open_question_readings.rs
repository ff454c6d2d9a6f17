//! A run says which reading of each open question a device followed (reference/ASSUMPTIONS.md; docs/run-results.md, "Open questions"). Emulated devices that follow other readings than the model's
//! (`EmuDevice::following`): one that takes the lowest colliding permute lane, memory's NaN first
//! and the positive default NaN (the model's readings before issue 29, now legal) agrees, its
//! cases `legal` with the readings named, and `ds-harness questions` on its results supports
//! those readings and rules the model's out; one that never flushes bf16 (a disagreement reading)
//! is a mismatch whose note names the reading; the plain emulated device (the model) gets the
//! model's reading for every question its cases tell apart.

use crate::common;

use common::{code, ds_harness_no_env as ds, meta, op, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::fidelity::Class;
use ds_harness::run::report::Report;
use ds_harness::run::{self, RunConfig};
use ds_isa::target::Target;
use ds_reference::model::readings::Rules;
use ds_reference::wave::WaveSize;
use std::path::PathBuf;

fn target(name: &str) -> &'static Target {
    Target::by_name(name).unwrap()
}

/// A wave64 run of `ops` on `target`'s emulated device following `rules`, its JSON written.
fn run_following(
    name: &str,
    target: &'static Target,
    ops: &[&str],
    rules: Rules,
) -> (Report, PathBuf) {
    let dir = temp_dir(name);
    let json = dir.join("r.json");
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave64],
        cases_per_op: 80,
        out_dir: dir.join("out"),
        json: Some(json.clone()),
        ..RunConfig::new(ops.iter().map(|n| op(n)).collect())
    };
    let mut m = meta("emu", 80);
    m.target = target.name.into();
    m.waves = vec![WaveSize::Wave64];
    let mut dev = EmuDevice::for_target(target).following(rules);
    let report = run::run(&cfg, &mut dev, m).unwrap();
    (report, json)
}

/// The readings a device followed before issue 29 on the float adds and permute collisions,
/// all legal now: the lowest colliding lane, memory's NaN first, the positive default NaN.
fn old_readings() -> Rules {
    Rules::MODEL
        .with("S4", "lowest lane")
        .and_then(|r| r.with("F3", "memory's NaN first"))
        .and_then(|r| r.with("F6", "positive default NaN"))
        .unwrap()
}

#[test]
fn a_device_following_legal_readings_agrees_and_the_readings_are_named() {
    let (report, json) = run_following(
        "readings-legal",
        target("gfx942"),
        &["ds_permute_b32", "ds_add_rtn_f32", "ds_pk_add_rtn_f16"],
        old_readings(),
    );
    assert!(report.all_agree(), "{}", report.summary());
    for o in &report.ops {
        assert_eq!(o.disagree, 0, "{}", o.op);
        assert!(
            o.fidelity.get(&Class::Legal).copied().unwrap_or(0) > 0,
            "{}: no case took another reading: {:?}",
            o.op,
            o.fidelity
        );
    }
    let choices = |name: &str| -> Vec<String> {
        let o = report.ops.iter().find(|o| o.op == name).unwrap();
        o.choices.keys().cloned().collect()
    };
    let named = |name: &str, reading: &str| {
        let c = choices(name);
        assert!(
            c.iter().any(|k| k.contains(reading)),
            "{name}: no choice names {reading}: {c:?}"
        );
    };
    named("ds_permute_b32", "S4 \"lowest lane\"");
    named("ds_add_rtn_f32", "F3 \"memory's NaN first\"");
    named("ds_add_rtn_f32", "F6 \"positive default NaN\"");
    named("ds_pk_add_rtn_f16", "F3 \"memory's NaN first\"");
    // The counts: the followed readings are consistent with every telling case, the model's not.
    let permute = report
        .ops
        .iter()
        .find(|o| o.op == "ds_permute_b32")
        .unwrap();
    let s4 = &permute.questions["S4"];
    assert!(s4.told_apart > 0, "{s4:?}");
    assert_eq!(s4.telling["lowest lane"], s4.told_apart);
    assert_eq!(s4.telling["highest lane"], 0);

    let out = ds(&["questions", json.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    eprintln!("{text}");
    for (q, followed, model) in [
        ("S4", "lowest lane", "highest lane"),
        ("F3", "memory's NaN first", "DATA's NaN first"),
        ("F6", "positive default NaN", "negative default NaN"),
    ] {
        let para = paragraph(&text, q);
        assert!(
            para.contains(&format!("supported: \"{followed}\"")),
            "{q}: {para}"
        );
        assert!(
            para.contains(&format!("ruled out: \"{model}\"")),
            "{q}: {para}"
        );
    }
    assert!(text.contains("not hardware"), "{text}");
}

/// The lines of `text` from the one opening `q.` to the next blank line.
fn paragraph(text: &str, q: &str) -> String {
    let start = text
        .find(&format!("\n{q}. "))
        .unwrap_or_else(|| panic!("no paragraph {q} in:\n{text}"));
    let rest = &text[start + 1..];
    rest.split("\n\n").next().unwrap().to_string()
}

#[test]
fn the_emulated_device_follows_the_models_reading_of_every_question_it_touches() {
    let (report, json) = run_following(
        "readings-model",
        target("gfx942"),
        &[
            "ds_permute_b32",
            "ds_add_rtn_f32",
            "ds_pk_add_rtn_bf16",
            "ds_min_rtn_f32",
            "ds_cmpstore_rtn_f32",
            "ds_add_rtn_u32",
        ],
        Rules::MODEL,
    );
    assert!(report.all_agree(), "{}", report.summary());
    let out = ds(&["questions", json.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    eprintln!("{text}");
    let mut told = Vec::new();
    for (q, c) in ds_harness::run::readings::totals(report.ops.iter().map(|o| &o.questions)) {
        if !c.computed {
            assert!(
                paragraph(&text, &q).contains("readings not computed"),
                "{q}"
            );
            continue;
        }
        let model = ds_reference::model::questions::get(&q)
            .and_then(|e| e.model_reading())
            .map(|r| r.name.clone())
            .unwrap();
        let para = paragraph(&text, &q);
        if c.told_apart > 0 {
            told.push(q.clone());
            assert!(
                para.contains(&format!("supported: \"{model}\"")),
                "{q}: the model's reading {model:?} must be the supported one: {para}"
            );
        } else {
            assert!(para.contains("still open"), "{q}: {para}");
        }
    }
    // The questions these ops' cases tell apart on gfx942 in wave64.
    for q in ["A4", "F1", "F2", "F3", "F6", "S4", "N3", "W10"] {
        assert!(
            told.contains(&q.to_string()),
            "{q} not told apart: {told:?}"
        );
    }
}

#[test]
fn a_device_following_a_disagreement_reading_is_a_mismatch_naming_it() {
    let never = Rules::MODEL.with("N3", "never flushed").unwrap();
    let (report, json) = run_following(
        "readings-disagree",
        target("gfx1201"),
        &["ds_pk_add_rtn_bf16"],
        never,
    );
    let o = &report.ops[0];
    assert!(o.disagree > 0, "{}", report.summary());
    assert!(
        o.mismatches.iter().any(|m| m
            .note
            .as_deref()
            .is_some_and(|n| n.contains("N3 \"never flushed\""))),
        "{:?}",
        o.mismatches.iter().map(|m| &m.note).collect::<Vec<_>>()
    );
    let out = ds(&["questions", json.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let para = paragraph(&stdout(&out), "N3");
    assert!(para.contains("supported: \"never flushed\""), "{para}");
    assert!(para.contains("ruled out: \"FP16/64 switch\""), "{para}");
}

#[test]
fn questions_refuses_a_results_file_whose_reading_counts_do_not_add_up() {
    let (_, json) = run_following(
        "readings-edited",
        target("gfx1100"),
        &["ds_permute_b32"],
        Rules::MODEL,
    );
    let text = std::fs::read_to_string(&json).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["ops"][0]["questions"]["S4"]["told_apart"] = serde_json::json!(1_000_000);
    let edited = json.with_file_name("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    let out = ds(&["questions", edited.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("question S4"), "{}", stderr(&out));
}
