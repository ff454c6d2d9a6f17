//! A run is a stream (docs/design-notes.md, "Runs at scale"): results do not depend on the chunk size or the
//! number of threads, each op's row is printed as the op completes, a run killed half-way
//! leaves whole result files and the rows of the ops it finished, and recordings are written op
//! by op with a status that says whether the run completed.

use crate::common;

use common::op;

use common::{stderr, stdout, temp_dir};
use ds_devices::emu::{EmuDevice, Fault};
use ds_harness::corpus;
use ds_harness::run::report::RunMeta;
use ds_harness::run::{self, RunConfig};

use serde_json::Value;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn meta(cases: usize) -> RunMeta {
    common::meta("emu", cases)
}

/// The JSON results without the wall time (the one field that may differ between equal runs).
fn results(path: &std::path::Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("elapsed_seconds");
    v
}

#[test]
fn the_chunk_size_does_not_change_the_results() {
    // A device that disagrees on some cases and takes another legal order on others, so
    // mismatches, choices and case files are all compared.
    let device = || {
        EmuDevice::new()
            .with_fault(Fault {
                op: op("ds_max_rtn_u32"),
                lane: 3,
                word: 0,
                xor: 0x10,
            })
            .with_descending_lanes(op("ds_add_rtn_u32"))
    };
    let mut seen = Vec::new();
    for chunk in [7, 64, run::MAX_CASES_PER_LAUNCH] {
        let dir = temp_dir(&format!("chunk-{chunk}"));
        let cfg = RunConfig {
            cases_per_op: 300,
            chunk,
            out_dir: dir.join("out"),
            json: Some(dir.join("r.json")),
            ..RunConfig::new(vec![op("ds_add_rtn_u32"), op("ds_max_rtn_u32")])
        };
        let report = run::run(&cfg, &mut device(), meta(300)).unwrap();
        assert_eq!(report.totals.cases, 600);
        assert!(report.totals.disagree > 0, "{}", report.summary());
        let mut v = results(cfg.json.as_ref().unwrap());
        // Case files live under each run's own directory; compare their names.
        for o in v["ops"].as_array_mut().unwrap() {
            for m in o["mismatches"].as_array_mut().unwrap() {
                let p = m["path"].as_str().unwrap().to_string();
                assert!(std::path::Path::new(&p).is_file(), "{p}");
                let rel = p.strip_prefix(dir.to_str().unwrap()).unwrap().to_string();
                m["path"] = Value::String(rel.clone());
                let replay = m["replay"]
                    .as_str()
                    .unwrap()
                    .replace(dir.to_str().unwrap(), "");
                m["replay"] = Value::String(replay);
            }
        }
        seen.push((chunk, v));
    }
    for (chunk, v) in &seen[1..] {
        assert_eq!(v, &seen[0].1, "chunk {chunk} against chunk {}", seen[0].0);
    }
}

#[test]
fn a_case_is_the_same_whatever_the_case_count_or_the_order_it_is_built_in() {
    let add = op("ds_add_rtn_u32");
    let small = corpus::for_op(add, 9, 40);
    let plan = corpus::plan(add, 9, 4000);
    for (vc, p) in small.iter().zip(&plan) {
        assert_eq!(vc.variant, p.variant);
        // Backwards, so no case can lean on the one before it.
        for (i, gc) in vc.cases.iter().enumerate().rev() {
            assert_eq!(p.gen_case(i), *gc, "{}", gc.id);
        }
    }
    assert_ne!(plan[0].case(0), plan[0].case(1));
}

/// `ds-harness run` with `args`, its JSON results in `dir/r.json`.
fn ds(args: &[&str]) -> std::process::Output {
    common::ds_harness_no_env(args)
}

#[test]
fn one_thread_and_four_threads_give_the_same_json() {
    let dir = temp_dir("jobs");
    let mut seen = Vec::new();
    for jobs in ["1", "4"] {
        let json = dir.join(format!("jobs{jobs}.json"));
        let out = ds(&[
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_add_rtn_u32",
            "--op",
            "ds_cmpstore_rtn_b64",
            "--op",
            "ds_max_f32",
            "--cases",
            "400",
            "--wave",
            "32",
            "--jobs",
            jobs,
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v = results(&json);
        assert_eq!(v["complete"], true);
        assert_eq!(v["totals"]["cases"], 1200);
        seen.push(v);
    }
    assert_eq!(seen[0], seen[1]);
    let out = ds(&["run", "--backend", "emu", "--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_killed_run_leaves_whole_reports_and_the_rows_of_the_ops_it_finished() {
    let dir = temp_dir("killed");
    let (json, junit, md) = (dir.join("r.json"), dir.join("r.xml"), dir.join("r.md"));
    let mut child = common::ds_harness_cmd()
        .into_command()
        .args([
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_add_u32",
            "--op",
            "ds_sub_u32",
            "--cases",
            "4000",
            "--wave",
            "32",
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ])
        .env_remove("DS_HARNESS_HIP_LIB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill it once the first op is reported done (the results are rewritten after every op, JSON,
    // then JUnit, then markdown: wait for the last of them, or a busy machine can kill the run
    // between two rewrites).
    let start = Instant::now();
    loop {
        let done = std::fs::read_to_string(&md).is_ok_and(|t| t.contains("| `ds_add_u32` | 32 |"));
        if done {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its first op was reported"
        );
        assert!(start.elapsed() < Duration::from_secs(300), "no op finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let so = stdout(&out);
    let rows: Vec<&str> = so.lines().collect();
    assert!(rows[0].starts_with("op "), "{so}");
    assert!(
        rows[1].starts_with("ds_add_u32 ") && rows[1].contains(" 4000 "),
        "{so}"
    );
    assert!(
        !so.contains("total"),
        "the run was killed before its totals: {so}"
    );

    let v = results(&json);
    assert_eq!(v["complete"], false);
    assert_eq!(v["ops"][0]["op"], "ds_add_u32");
    assert_eq!(v["ops"][0]["cases"], 4000);
    assert_eq!(v["totals"]["cases"], 4000);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("the JUnit file is whole");
    let suites = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .count();
    assert_eq!(suites, 1);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("(run not complete)"), "{md}");
    assert!(md.contains("| `ds_add_u32` | 32 | 4000 |"), "{md}");
}

#[test]
fn rows_come_as_ops_complete_and_the_totals_last() {
    let dir = temp_dir("rows");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_load_b32",
        "--op",
        "ds_store_b8",
        "--cases",
        "30",
        "--out",
        dir.join("out").to_str().unwrap(),
        "--record",
        dir.join("rec").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let so = stdout(&out);
    let lines: Vec<&str> = so.lines().collect();
    assert!(lines[0].starts_with("op "), "{so}");
    // A row per op and wave size, each op's wave32 row then its wave64 row.
    let row = |l: &str, op: &str, wave: &str| l.split_whitespace().take(2).eq([op, wave]);
    assert!(row(lines[1], "ds_store_b8", "32"), "{so}");
    assert!(row(lines[2], "ds_store_b8", "64"), "{so}");
    assert!(row(lines[3], "ds_load_b32", "32"), "{so}");
    assert!(row(lines[4], "ds_load_b32", "64"), "{so}");
    assert!(
        lines[5].starts_with("total ") && lines[5].contains("2 ops in wave32 and wave64"),
        "{so}"
    );
    // Each op recorded in each wave size as it completed; the run's status says it completed.
    let rec = dir.join("rec").join("emulated-gfx1100");
    for name in [
        "ds_store_b8",
        "ds_store_b8.wave64",
        "ds_load_b32",
        "ds_load_b32.wave64",
    ] {
        let r = ds_harness::record::read(&rec.join(format!("{name}.txt"))).unwrap();
        assert!(name.starts_with(r.op.name()));
    }
    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(rec.join("run.json")).unwrap()).unwrap();
    assert_eq!(status["complete"], true);
    assert_eq!(
        status["ops_recorded"],
        serde_json::json!([
            "ds_store_b8",
            "ds_store_b8.wave64",
            "ds_load_b32",
            "ds_load_b32.wave64"
        ])
    );
    // The columns line up with the header.
    let at = |l: &str| l.find("note").or_else(|| l.rfind("  ")).unwrap();
    assert_eq!(lines[0].find("note"), Some(at(lines[0])));
    assert!(lines[1..6].iter().all(|l| l.len() >= at(lines[0])), "{so}");
}

#[test]
fn a_time_budget_takes_the_ops_in_turns_and_counts_each_ops_cases() {
    let dir = temp_dir("duration");
    let json = dir.join("r.json");
    let start = Instant::now();
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--op",
        "ds_load_b64",
        "--cases",
        "10",
        "--wave",
        "32",
        "--duration",
        "2s",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(start.elapsed() >= Duration::from_secs(2));
    let v = results(&json);
    assert_eq!(v["complete"], true);
    assert_eq!(v["meta"]["duration_seconds"], 2.0);
    let cases: Vec<u64> = v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["cases"].as_u64().unwrap())
        .collect();
    assert_eq!(cases.len(), 2);
    // Round-robin: the first op never runs more than a round ahead of the second.
    assert!(cases[0] >= 10 && cases[1] >= 10, "{cases:?}");
    assert!(cases[0] <= cases[1] + 10, "{cases:?}");
    let total: u64 = cases.iter().sum();
    assert_eq!(v["totals"]["cases"], total);
    assert_eq!(v["totals"]["agree"].as_u64().unwrap(), total);
    let so = stdout(&out);
    assert!(
        so.contains(&format!("ds_add_u32    32 {:>6}", cases[0])),
        "{so}"
    );
    for bad in ["10x", "m", "0", ""] {
        let out = ds(&["run", "--backend", "emu", "--duration", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
    }
}
