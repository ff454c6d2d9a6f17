//! The BVH stack ops end to end (ASSUMPTIONS.md B1-B9): gfx12's push8 forms, whose DATA1 is 8
//! dwords, run on the emulated device, through `serve-device` and on the stand-in HIP runtime in
//! both wave sizes, and agree; an emulated device that follows the ISA guides' pseudocode (B3 and
//! B7 "guide pseudocode", disagreement readings) is a mismatch whose report names the reading, in
//! the JSON, the terminal summary and JUnit; one that follows a reading the record allows
//! (rocJITsu's 16-bit gfx11 index, B2; rocJITsu's pop-2 order, B9) is legal, the reading named;
//! either way the run counts the cases consistent with each BVH reading.

mod common;

use common::{ds_harness_env, meta, standin_lib, stderr, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::run::{self, report::Report, RunConfig};
use ds_isa::ds::{runnable_ops_on, DsOp, Family};
use ds_isa::target::Target;
use ds_reference::model::readings::Rules;
use ds_reference::wave::WaveSize;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");
const PUSH8: [&str; 2] = [
    "ds_bvh_stack_push8_pop1_rtn_b32",
    "ds_bvh_stack_push8_pop2_rtn_b64",
];

fn gfx12() -> &'static Target {
    Target::by_name("gfx1201").unwrap()
}

fn gfx11() -> &'static Target {
    Target::by_name("gfx1100").unwrap()
}

/// `run --op ds_bvh_stack_push8* --target gfx1201 ARGS`: both push8 ops in both wave sizes, every
/// case agreeing.
fn push8_run(name: &str, args: &[&str], env: &[(&str, &str)]) {
    let dir = temp_dir(&format!("bvh-{name}"));
    let json = dir.join("r.json");
    let mut all = vec!["run", "--target", "gfx1201", "--op", "ds_bvh_stack_push8*"];
    all.extend_from_slice(args);
    let out_dir = dir.join("out");
    all.extend_from_slice(&["--json", json.to_str().unwrap()]);
    all.extend_from_slice(&["--out", out_dir.to_str().unwrap()]);
    let out = ds_harness_env(&all, env);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["meta"]["waves"], serde_json::json!([32, 64]), "{name}");
    let rows = v["ops"].as_array().unwrap();
    let got: Vec<(&str, u64)> = rows
        .iter()
        .map(|o| (o["op"].as_str().unwrap(), o["wave"].as_u64().unwrap()))
        .collect();
    let want: Vec<(&str, u64)> = PUSH8.iter().flat_map(|&op| [(op, 32), (op, 64)]).collect();
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, want, "{name}");
    for o in rows {
        assert!(o["cases"].as_u64().unwrap() > 0, "{name}: {o}");
        assert_eq!(o["agree"], o["cases"], "{name}: {}", o["op"]);
    }
}

#[test]
fn push8_forms_run_on_emu_serve_device_and_the_standin_in_both_wave_sizes() {
    push8_run("emu", &["--backend", "emu", "--cases", "40"], &[]);
    let cmd = format!("'{BIN}' serve-device --backend emu --target gfx1201");
    push8_run(
        "exec",
        &["--backend", "exec", "--device-cmd", &cmd, "--cases", "16"],
        &[],
    );
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    push8_run("standin", &["--backend", "hip", "--cases", "16"], &env);
}

/// A run of every BVH op of `target` in both wave sizes on its emulated device following `r`.
fn run_readings(target: &'static Target, r: Rules, name: &str) -> Report {
    let ops: Vec<DsOp> = runnable_ops_on(target)
        .filter(|op| matches!(op.info().family, Family::BvhStack | Family::BvhPushPop(_)))
        .collect();
    assert!(!ops.is_empty());
    let dir = temp_dir(&format!("bvh-readings-{name}"));
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave32, WaveSize::Wave64],
        cases_per_op: 60,
        out_dir: dir.join("out"),
        ..RunConfig::new(ops)
    };
    let mut dev = EmuDevice::for_target(target).following(r);
    run::run(&cfg, &mut dev, meta("emu", 60)).unwrap()
}

/// `question`'s reading `reading` as the reports name it: `B7 "guide pseudocode"`.
fn named(question: &str, reading: &str) -> String {
    format!("{question} \"{reading}\"")
}

/// Every op of `report` disagrees, and every listed mismatch's note names `question`'s
/// disagreement reading `reading` (the note names only the disagreement readings a mismatch
/// matches), as do the summary and JUnit; the op's per-reading counts have the reading consistent
/// with every case, and the model's reading not.
fn caught_and_named(report: &Report, question: &str, model: &str, reading: &str) {
    let name = named(question, reading);
    for o in &report.ops {
        assert!(o.disagree > 0, "{} {}: caught", o.op, o.wave);
        for m in &o.mismatches {
            let note = m.note.as_deref().unwrap_or_default();
            assert!(
                note.starts_with("matches ASSUMPTIONS.md") && note.contains(&name),
                "{} {}: {note:?}",
                o.op,
                m.id
            );
        }
        let q = &o.questions[question];
        let count = |r: &str| q.consistent.get(r).copied().unwrap_or(0);
        assert!(q.computed && q.cases > 0, "{} {}: {q:?}", o.op, o.wave);
        assert_eq!(count(reading), q.cases, "{} {}: {q:?}", o.op, o.wave);
        assert!(count(model) < q.cases, "{} {}: {q:?}", o.op, o.wave);
    }
    let summary = report.summary();
    assert!(summary.contains(&name), "{summary}");
    // JUnit is XML: the reading's quotes escaped.
    let junit = report.to_junit();
    assert!(junit.contains(&name.replace('"', "&quot;")), "{junit}");
    eprintln!("{summary}");
}

#[test]
fn a_device_following_the_guides_pseudocode_is_a_mismatch_that_names_the_reading() {
    let m = Rules::MODEL;
    let guide12 = m.with("B7", "guide pseudocode").unwrap();
    let report = run_readings(gfx12(), guide12, "guide12");
    assert_eq!(report.ops.len(), 6, "three ops in two wave sizes");
    caught_and_named(&report, "B7", "GPURT emulation", "guide pseudocode");
    let guide11 = m.with("B3", "guide pseudocode").unwrap();
    let report = run_readings(gfx11(), guide11, "guide11");
    caught_and_named(
        &report,
        "B3",
        "first eligible child returned",
        "guide pseudocode",
    );
    // The model's own readings are caught nowhere.
    let report = run_readings(gfx12(), m, "model12");
    assert!(report
        .ops
        .iter()
        .all(|o| o.disagree == 0 && o.agree == o.cases));
}

#[test]
fn a_device_following_a_legal_reading_is_legal_and_named() {
    for (target, question, reading, op) in [
        (
            gfx12(),
            "B9",
            "first pop in VDST[0]",
            "ds_bvh_stack_push8_pop2_rtn_b64",
        ),
        (gfx11(), "B2", "16-bit index", "ds_bvh_stack_rtn_b32"),
    ] {
        let r = Rules::MODEL.with(question, reading).unwrap();
        let report = run_readings(target, r, question);
        let name = &named(question, reading);
        assert!(
            report.ops.iter().all(|o| o.disagree == 0),
            "{}",
            report.summary()
        );
        for wave in [WaveSize::Wave32, WaveSize::Wave64] {
            let row = report
                .ops
                .iter()
                .find(|o| o.op == op && o.wave == wave)
                .expect("the op's row");
            assert!(
                row.choices.get(name).is_some_and(|&n| n > 0),
                "{op} {wave}: {:?}",
                row.choices
            );
            // Every case is consistent with the reading followed, and some told it apart.
            let q = &row.questions[question];
            assert_eq!(
                q.consistent.get(reading),
                Some(&q.cases),
                "{op} {wave}: {q:?}"
            );
            assert!(q.telling.get(reading).is_some_and(|&n| n > 0), "{q:?}");
        }
    }
}
