//! `ds-harness merge`: shards run separately and merged give the run's per-op results exactly as
//! one unsharded run does; a missing, duplicate, incomplete or foreign shard is refused, named.

mod common;

use common::{stderr, stdout, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn ds(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ds-harness"))
        .args(args)
        .env_remove("DS_HARNESS_HIP_LIB")
        .stdin(Stdio::null())
        .output()
        .expect("ds-harness runs")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `ds_add*` with `--cases 24` (shard `shard` if given) into `dir`; returns the results file.
fn run(dir: &Path, shard: Option<&str>, seed: &str) -> PathBuf {
    let name = shard.map_or("all".to_string(), |s| s.replace('/', "of"));
    let results = dir.join(format!("{name}.json"));
    let mut args = vec![
        "run".to_string(),
        "--backend".into(),
        "emu".into(),
        "--op".into(),
        "ds_add*".into(),
        "--cases".into(),
        "24".into(),
        "--seed".into(),
        seed.into(),
        "--json".into(),
        results.to_str().unwrap().into(),
        "--out".into(),
        dir.join(format!("out-{name}")).to_str().unwrap().into(),
        "--record".into(),
        dir.join(format!("rec-{name}")).to_str().unwrap().into(),
    ];
    if let Some(s) = shard {
        args.extend(["--shard".into(), s.into()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ds(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    results
}

#[test]
fn two_shards_merged_equal_one_unsharded_run() {
    let dir = temp_dir("merge");
    let whole = run(&dir, None, "7");
    let s1 = run(&dir, Some("1/2"), "7");
    let s2 = run(&dir, Some("2/2"), "7");
    let merged = dir.join("merged.json");
    let (junit, md, rec) = (
        dir.join("merged.xml"),
        dir.join("merged.md"),
        dir.join("rec-merged"),
    );
    // Shards in any order.
    let out = ds(&[
        "merge",
        s2.to_str().unwrap(),
        s1.to_str().unwrap(),
        "--json",
        merged.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--recordings",
        dir.join("rec-1of2").to_str().unwrap(),
        "--recordings",
        dir.join("rec-2of2").to_str().unwrap(),
        "--record",
        rec.to_str().unwrap(),
    ]);
    let so = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{so}\n{}", stderr(&out));
    let (m, w) = (json(&merged), json(&whole));
    assert_eq!(m["complete"], true);
    assert_eq!(m["meta"]["shard"], Value::Null);
    assert_eq!(m["totals"], w["totals"]);
    // Per op, everything the unsharded run says (counts, variants, choices).
    assert_eq!(m["ops"], w["ops"]);
    // A row per op and wave size (the default run covers wave32 and wave64 on gfx11).
    let rows = w["ops"].as_array().unwrap().len();
    let ops = w["totals"]["ops"].as_u64().unwrap() as usize;
    assert!(ops >= 6, "{ops}");
    assert_eq!(rows, 2 * ops, "a row per op and wave size");
    assert!(so.contains(&format!("2 shards merged: {ops} ops")), "{so}");
    let doc_text = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("testsuite"))
            .count(),
        rows
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.starts_with("**All agree**") && !md.contains("shard"),
        "{md}"
    );
    // The recordings of both shards, in one directory that replays clean, marked complete.
    let sum = ds_harness::record::check_all(&rec).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert_eq!(sum.recordings, rows, "a recording per op and wave size");
    let status = json(&rec.join("emulated-gfx1100").join("run.json"));
    assert_eq!(status["complete"], true);
    assert_eq!(status["meta"]["shard"], Value::Null);
    let listed: Vec<String> = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| match o["wave"].as_u64().unwrap() {
            32 => o["op"].as_str().unwrap().to_string(),
            n => format!("{}.wave{n}", o["op"].as_str().unwrap()),
        })
        .collect();
    assert_eq!(status["ops_recorded"], serde_json::json!(listed));
}

/// Shards of a run on another generation's target merge by that generation's ops: the selection
/// (gfx12's `ds_min_num_f32`, which gfx11 lacks) is read for the run's own target, and an op only
/// that generation has is found in the table.
#[test]
fn shards_of_a_gfx12_run_merge_by_gfx12s_ops() {
    let dir = temp_dir("merge-gfx12");
    let target = ds_isa::target::Generation::Gfx12
        .targets()
        .next()
        .unwrap()
        .name;
    let shard = |k: &str| {
        let results = dir.join(format!("shard{k}.json"));
        let out = ds(&[
            "run",
            "--backend",
            "emu",
            "--target",
            target,
            "--op",
            "ds_min_num_f32",
            "--op",
            "ds_cond_sub_u32",
            "--cases",
            "8",
            "--wave",
            "32",
            "--shard",
            &format!("{k}/2"),
            "--json",
            results.to_str().unwrap(),
            "--out",
            dir.join(format!("out{k}")).to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        results
    };
    let (s1, s2) = (shard("1"), shard("2"));
    let merged = dir.join("merged.json");
    let out = ds(&[
        "merge",
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        "--json",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let m = json(&merged);
    let ops: Vec<&str> = m["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["ds_min_num_f32", "ds_cond_sub_u32"]);
    assert_eq!(m["meta"]["target"], target);
}

#[test]
fn a_missing_duplicate_incomplete_or_foreign_shard_is_refused_by_name() {
    let dir = temp_dir("merge-bad");
    let s1 = run(&dir, Some("1/3"), "7");
    let s2 = run(&dir, Some("2/3"), "7");
    let s3 = run(&dir, Some("3/3"), "7");
    let refused = |files: &[&Path], want: &str| {
        let mut args = vec!["merge"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let out = ds(&args);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains(want), "wanted `{want}` in: {e}");
    };
    refused(&[&s1, &s3], "shard 2/3 is missing");
    refused(&[&s1], "shard 2/3, shard 3/3 are missing");
    refused(
        &[&s1, &s2, &s1, &s3],
        &format!("shard 1/3 is given twice: {}", s1.display()),
    );

    let mut r: Value = json(&s2);
    r["complete"] = Value::Bool(false);
    let cut = dir.join("cut.json");
    std::fs::write(&cut, r.to_string()).unwrap();
    refused(&[&s1, &cut, &s3], "shard 2/3");
    refused(&[&s1, &cut, &s3], "is not complete");

    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let foreign = run(&other_dir, Some("2/3"), "8");
    refused(&[&s1, &foreign, &s3], "are not shards of one run");
    refused(&[&s1, &foreign, &s3], "seed 0x8");

    let whole = run(&dir, None, "7");
    refused(&[&whole], "not of a shard");
    refused(&[&dir.join("nope.json")], "cannot read");
    // The recordings of a missing shard, named too.
    let out = ds(&[
        "merge",
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        s3.to_str().unwrap(),
        "--recordings",
        dir.join("rec-1of3").to_str().unwrap(),
        "--recordings",
        dir.join("rec-3of3").to_str().unwrap(),
        "--record",
        dir.join("rec-merged").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("shard 2/3 is missing"),
        "{}",
        stderr(&out)
    );
}

/// The shards of a run on another target than the default merge by that target's ops, as one
/// unsharded run says: a gfx942 run of `ds_pk_add*` (packed adds gfx1100 lacks) was refused as
/// "no DS op matches", and one of every op (what the GPU workflow runs) as lacking gfx1100's ops
/// or with a panic, because merge selected the run's ops on the default target and looked ops up
/// among gfx11's rows only.
#[test]
fn shards_of_a_run_on_another_target_merge_by_that_targets_ops() {
    let dir = temp_dir("merge-target");
    let run = |selection: &[&str], k: Option<&str>| {
        let name = format!(
            "{}-{}",
            selection.len(),
            k.map_or("all".to_string(), |k| k.replace('/', "of"))
        );
        let results = dir.join(format!("{name}.json"));
        let out_dir = dir.join(format!("out-{name}"));
        let mut args = vec!["run", "--backend", "emu", "--target", "gfx942"];
        args.extend(selection.iter().flat_map(|p| ["--op", p]));
        args.extend(["--cases", "2", "--json", results.to_str().unwrap()]);
        args.extend(["--out", out_dir.to_str().unwrap()]);
        args.extend(k.iter().flat_map(|k| ["--shard", k]));
        let out = ds(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        results
    };
    for selection in [&["ds_pk_add*"][..], &[]] {
        let whole = json(&run(selection, None));
        let (s1, s2) = (run(selection, Some("1/2")), run(selection, Some("2/2")));
        let merged = dir.join(format!("merged-{}.json", selection.len()));
        let out = ds(&[
            "merge",
            s1.to_str().unwrap(),
            s2.to_str().unwrap(),
            "--json",
            merged.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{selection:?}: {}",
            stderr(&out)
        );
        let m = json(&merged);
        assert_eq!(m["meta"]["target"], "gfx942");
        let ops = m["ops"].as_array().unwrap();
        let pk = ops
            .iter()
            .filter(|o| o["op"].as_str().unwrap().starts_with("ds_pk_add"))
            .count();
        assert!(pk >= 2, "{selection:?}: {pk} packed adds");
        // In the unsharded run's order (the DS table's), with its counts.
        assert_eq!(m["ops"], whole["ops"], "{selection:?}");
        assert_eq!(m["totals"], whole["totals"], "{selection:?}");
    }
}
