//! `run --against DIR`: a device compared with recorded outcomes instead of the model. On the
//! emulated fixture every case agrees; on a deliberately altered copy exactly the altered cases
//! are reported, with the model's verdict beside them; a recording that made other legal choices
//! is a legal alternative, not a mismatch.

mod common;

use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::record;
use ds_isa::ds::DsOp;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/hardware/emulated-gfx1100")
}

fn against(dir: &Path, name: &str, extra: &[&str]) -> (std::process::Output, Value) {
    let tmp = temp_dir(name);
    let json = tmp.join("r.json");
    let mut args = vec![
        "run",
        "--against",
        dir.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--out",
        tmp.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = ds(&args);
    let r = std::fs::read_to_string(&json)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out, r)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "{from} once in {}",
        path.display()
    );
    std::fs::write(path, text.replace(from, to)).unwrap();
}

fn ids(r: &Value) -> Vec<String> {
    r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o["mismatches"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_emulated_fixture_agrees_case_for_case() {
    let (out, r) = against(&fixture(), "against-fixture", &["--backend", "emu"]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    let cases = r["totals"]["cases"].as_u64().unwrap();
    assert!(cases >= 12, "every recorded case is run: {cases}");
    for o in r["ops"].as_array().unwrap() {
        assert_eq!(o["fidelity"]["exact"], o["cases"], "{}", o["op"]);
    }
    assert!(
        stdout(&out).contains(&format!("{cases} cases: exact {cases}")),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("against: recording"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_altered_copy_reports_exactly_the_altered_cases_with_the_models_verdict() {
    let dir = temp_dir("against-altered").join("emulated-gfx1100");
    copy_dir(&fixture(), &dir);
    // One returned value and one stored LDS word, each in one case.
    edit(
        &dir.join("ds_add_rtn_u32.txt"),
        "lane  0 addr=00000000 d0=00000005 => vd=00000005",
        "lane  0 addr=00000000 d0=00000005 => vd=00000006",
    );
    edit(
        &dir.join("ds_store_b32.txt"),
        "0x0000=00000000>87654321",
        "0x0000=00000000>87654320",
    );
    let (out, r) = against(&dir, "against-altered-run", &["--backend", "emu"]);
    let so = stdout(&out);
    assert_eq!(code(&out), 1, "{so}\n{}", stderr(&out));
    assert_eq!(ids(&r), ["ds_add_rtn_u32.edges", "ds_store_b32.in_range"]);
    let add = &r["ops"][0];
    assert_eq!(add["op"], "ds_add_rtn_u32");
    assert_eq!(add["fidelity"]["mismatch"], 1);
    let m = &add["mismatches"][0];
    assert_eq!(m["differences"][0]["lane"], 0);
    assert_eq!(m["differences"][0]["model"], 6, "the recorded value");
    assert_eq!(m["differences"][0]["device"], 5);
    let note = m["note"].as_str().unwrap();
    assert!(
        note.contains("the device's outcome is exact, the recorded one is wrong"),
        "{note}"
    );
    assert!(
        so.contains("DIFFERS FROM THE RECORDING ds_store_b32.in_range"),
        "{so}"
    );
    assert!(
        so.contains("lds[0x0000]: recorded 0x87654320, device 0x87654321"),
        "{so}"
    );
    // The case file replays on the device.
    let path = m["path"].as_str().unwrap();
    let rep = ds(&["replay", path, "--backend", "emu"]);
    assert_eq!(code(&rep), 0, "{}", stderr(&rep));
}

#[test]
fn a_recording_with_other_legal_lane_orders_is_a_legal_alternative() {
    let root = temp_dir("against-legal");
    let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
    let mut dev = EmuDevice::new().with_descending_lanes(op);
    let path =
        record::record_op(&root, &mut dev, op, ds_reference::wave::WaveSize::Wave32).unwrap();
    let dir = path.parent().unwrap();
    let (out, r) = against(dir, "against-legal-run", &["--backend", "emu"]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    let o = &r["ops"][0];
    assert!(o["fidelity"]["legal"].as_u64().unwrap() > 0, "{o}");
    assert!(o["fidelity"].get("mismatch").is_none(), "{o}");
    let choices = o["choices"].as_object().unwrap();
    assert!(
        choices.keys().any(|k| k.contains("descending")),
        "{choices:?}"
    );
}

#[test]
fn against_refuses_what_it_cannot_compare() {
    let empty = temp_dir("against-empty");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--against",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no recordings"), "{}", stderr(&out));
    let parent = fixture().parent().unwrap().to_path_buf();
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--against",
        parent.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2, "the directory above the device's is refused");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--against",
        fixture().to_str().unwrap(),
        "--op",
        "ds_sub_u32",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("none of the selected ops"),
        "{}",
        stderr(&out)
    );
}
