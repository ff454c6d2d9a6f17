//! gfx950's transpose loads end to end (ASSUMPTIONS.md V9) and the `not_modelled` verdict:
//! `run --backend emu --target gfx950` exits 0, judges `ds_read_b64_tr_b16` and `_tr_b8` (the
//! latter marked inferred in the summary, the markdown, JUnit and the JSON), and runs
//! `ds_read_b64_tr_b4` and `ds_read_b96_tr_b6` with every case `not_modelled`: counted apart,
//! never agreement, the device's answer in each case file, the reason said in the summary; `list`
//! and `doc` say the same; recordings of the four ops replay with b4/b6 not modelled.

mod common;

use common::{ds_harness, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::record::{self, Verdict};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;
use serde_json::Value;

const UNJUDGED: [&str; 2] = ["ds_read_b64_tr_b4", "ds_read_b96_tr_b6"];

fn row<'a>(v: &'a Value, op: &str) -> &'a Value {
    v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == op)
        .unwrap_or_else(|| panic!("{op} has a row"))
}

#[test]
fn run_emu_gfx950_exits_0_judges_b8_and_b16_and_records_b4_b6_unjudged() {
    let dir = temp_dir("gfx950-tr");
    let (json, md, junit) = (dir.join("r.json"), dir.join("r.md"), dir.join("r.xml"));
    let out = ds_harness(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx950",
            "--cases",
            "24",
            "--json",
            json.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        "",
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}\n{text}", stderr(&out));
    // What was not judged, and why, is said on the terminal.
    assert!(text.contains("cases not judged (not modelled"), "{text}");
    assert!(text.contains("no sourced layout"), "{text}");
    assert!(text.contains("model inferred"), "{text}");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["totals"]["disagree"], 0);
    for op in UNJUDGED {
        let r = row(&v, op);
        assert_eq!(r["agree"], 0, "{op}: never agreement");
        assert_eq!(r["skipped"], r["cases"], "{op}: every case counted apart");
        assert_eq!(r["fidelity"]["not_modelled"], r["cases"], "{op}");
        let listed = r["not_modelled"].as_array().unwrap();
        assert!(!listed.is_empty(), "{op}: the unjudged cases are listed");
        // The case file holds the device's answer and no expected outcome.
        let path = listed[0]["path"].as_str().unwrap();
        let file: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        assert!(file["device"]["outcome"]["vdst"].is_array(), "{file}");
        assert!(file.get("expected").is_none_or(Value::is_null), "{file}");
    }
    let b16 = row(&v, "ds_read_b64_tr_b16");
    assert!(b16["agree"].as_u64().unwrap() > 0);
    assert!(b16.get("inferred").is_none());
    let b8 = row(&v, "ds_read_b64_tr_b8");
    assert!(b8["agree"].as_u64().unwrap() > 0);
    assert!(b8["inferred"].as_str().unwrap().starts_with("inferred"));
    // Cases with a lane off are not judged either (the CDNA 4 guide requires EXEC all on).
    assert!(b16["skip_reasons"]
        .as_object()
        .unwrap()
        .keys()
        .any(|k| k.contains("EXEC to be all ones")));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("not judged") && md.contains("model inferred"),
        "{md}"
    );
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(junit.contains("<skipped message=") && junit.contains("model inferred"));
}

#[test]
fn list_and_doc_say_which_transposes_are_inferred_or_not_judged() {
    let list = stdout(&ds_harness(&["list", "--target", "gfx950"], ""));
    assert!(list.contains("ds_read_b64_tr_b8: model inferred"), "{list}");
    for op in UNJUDGED {
        assert!(list.contains(&format!("{op}: runs, not judged")), "{list}");
    }
    let doc = stdout(&ds_harness(
        &["doc", "--target", "gfx950", "ds_read_b64_tr_b8"],
        "",
    ));
    assert!(doc.contains("Model: inferred"), "{doc}");
    let doc = stdout(&ds_harness(
        &["doc", "--target", "gfx950", "ds_read_b96_tr_b6"],
        "",
    ));
    assert!(doc.contains("Model: runs, not judged"), "{doc}");
    let doc = stdout(&ds_harness(
        &["doc", "--target", "gfx950", "ds_read_b64_tr_b16"],
        "",
    ));
    assert!(!doc.contains("Model:"), "{doc}");
}

#[test]
fn recordings_of_the_transposes_replay_with_b4_b6_not_modelled() {
    let t = Target::by_name("gfx950").unwrap();
    let root = temp_dir("gfx950-tr-rec");
    let ops: Vec<DsOp> = [
        "ds_read_b64_tr_b4",
        "ds_read_b96_tr_b6",
        "ds_read_b64_tr_b8",
        "ds_read_b64_tr_b16",
    ]
    .iter()
    .map(|n| DsOp::from_name(n).unwrap())
    .collect();
    let mut dev = EmuDevice::for_target(t);
    for &op in &ops {
        let path = record::record_op(&root, &mut dev, op, WaveSize::Wave64).unwrap();
        let rec = record::read(&path).unwrap();
        let verdicts: Vec<Verdict> = record::replay(&rec)
            .into_iter()
            .map(|r| r.verdict)
            .collect();
        assert!(!verdicts.is_empty(), "{op}");
        let unjudged = verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::NotModelled(_)))
            .count();
        if UNJUDGED.contains(&op.name()) {
            assert_eq!(unjudged, verdicts.len(), "{op}: {verdicts:?}");
        } else {
            // The modelled ones agree where EXEC is all on; a case with a lane off is unjudged.
            assert!(
                verdicts
                    .iter()
                    .all(|v| matches!(v, Verdict::Agree | Verdict::NotModelled(_))),
                "{op}: {verdicts:?}"
            );
            assert!(unjudged < verdicts.len(), "{op}");
        }
    }
    let sum = record::check_all(&root).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert!(sum.not_modelled > 0 && sum.agree > 0, "{sum:?}");
    assert_eq!(sum.agree + sum.not_modelled, sum.cases, "{sum:?}");
}
