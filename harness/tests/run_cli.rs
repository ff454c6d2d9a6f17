//! `ds-harness run`, `replay` and `eval` as a user runs them: the full default suite on the
//! emulated device, the JSON and JUnit reports read back, and the errors for bad input.

mod common;

use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_isa::ds::{runnable_ops, DsOp};
use ds_isa::gen::Generation;
use ds_isa::target::DEFAULT;
use serde_json::Value;

#[test]
fn run_without_a_gpu_runs_every_runnable_op_on_emu_and_all_agree() {
    let dir = temp_dir("run-all");
    let (json, junit, markdown) = (dir.join("r.json"), dir.join("r.xml"), dir.join("r.md"));
    // Half the default cases per op and wave size: the run covers wave32 and wave64 (the default
    // target has both), so it runs as many cases as a wave32-only default run.
    let per_op = corpus::DEFAULT_CASES_PER_OP as u64 / 2;
    let out = ds(&[
        "run",
        "--cases",
        &per_op.to_string(),
        "--out",
        dir.join("out").to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    let (so, se) = (stdout(&out), stderr(&out));
    assert_eq!(code(&out), 0, "{so}\n{se}");
    // auto says which device it took and why, on every run.
    let line = se
        .lines()
        .find(|l| l.starts_with("backend: "))
        .expect("backend line");
    assert!(line.contains("--backend auto: "), "{line}");
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11).collect();
    assert_eq!(ops.len(), 117);

    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["format"], 1);
    assert_eq!(r["complete"], true);
    let t = &r["totals"];
    assert_eq!(t["ops"], 117);
    assert_eq!(r["meta"]["waves"], serde_json::json!([32, 64]));
    assert_eq!(t["cases"], 2 * 117 * per_op);
    assert_eq!(t["disagree"], 0);
    assert_eq!(t["errors"], 0);
    assert_eq!(
        t["agree"].as_u64().unwrap() + t["skipped"].as_u64().unwrap(),
        2 * 117 * per_op
    );
    // A row per op and wave size, wave32 first; each variant names its wave size.
    let listed: Vec<(String, u64)> = r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["op"].as_str().unwrap().to_string(),
                o["wave"].as_u64().unwrap(),
            )
        })
        .collect();
    let names: Vec<(String, u64)> = ops
        .iter()
        .flat_map(|o| [(o.name().to_string(), 32), (o.name().to_string(), 64)])
        .collect();
    assert_eq!(listed, names);
    for o in r["ops"].as_array().unwrap() {
        assert_eq!(o["cases"], per_op, "{}", o["op"]);
        for v in o["variants"].as_array().unwrap() {
            assert_eq!(v["wave"], o["wave"], "{}", v["tag"]);
            assert_eq!(
                v["tag"].as_str().unwrap().ends_with("-w64"),
                o["wave"] == 64
            );
        }
        assert!(o["agree"].as_u64().unwrap() > 0, "{} ran no case", o["op"]);
    }
    // The summary table has a row per op and the totals.
    assert!(so.lines().any(|l| l.starts_with("ds_add_u32 ")), "{so}");
    let row = |wave: &str| {
        so.lines()
            .any(|l| l.split_whitespace().take(2).eq(["ds_add_u32", wave]))
    };
    assert!(row("32") && row("64"), "{so}");
    assert!(so.contains("117 ops in wave32 and wave64"), "{so}");
    assert!(so.lines().any(|l| l.starts_with("total ")), "{so}");

    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2 * 117);
    assert!(suites
        .iter()
        .any(|s| s.attribute("name") == Some("ds_add_u32 wave64")));
    let variants: usize = r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["variants"].as_array().unwrap().len())
        .sum();
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(cases, variants);
    assert_eq!(root.attribute("tests"), Some(variants.to_string().as_str()));
    assert_eq!(root.attribute("failures"), Some("0"));
    assert!(!doc
        .descendants()
        .any(|n| n.has_tag_name("failure") || n.has_tag_name("error")));
    // The markdown summary: a header, one row per op, a totals row, all agreeing.
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.starts_with("**All agree** on "), "{md}");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `ds_")).collect();
    assert_eq!(rows.len(), 2 * 117, "{md}");
    assert!(md.contains("| `ds_add_u32` | 64 |"), "{md}");
    assert!(
        rows.iter()
            .all(|r| r.split('|').nth(5).unwrap().trim() == "0"),
        "{md}"
    );
    assert!(
        md.contains("| **total (117 ops)** | | 18720 | 18720 | 0 | 0 |"),
        "{md}"
    );
    // No mismatch, no case files.
    assert!(!dir.join("out").exists());
}

#[test]
fn shards_split_the_ops_and_together_cover_them() {
    let dir = temp_dir("run-shards");
    let mut seen = Vec::new();
    for k in 1..=3 {
        let json = dir.join(format!("{k}.json"));
        let shard = format!("{k}/3");
        let out = ds(&[
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_load*",
            "--cases",
            "5",
            "--shard",
            &shard,
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["meta"]["shard"], shard.as_str());
        seen.extend(
            r["ops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["op"].as_str().unwrap().to_string()),
        );
    }
    seen.sort();
    // Each op once per wave size (wave32 and wave64), in one shard.
    let mut want: Vec<String> = runnable_ops(Generation::Gfx11)
        .filter(|o| o.name().starts_with("ds_load"))
        .flat_map(|o| [o.name().to_string(), o.name().to_string()])
        .collect();
    want.sort();
    assert_eq!(seen, want);
}

#[test]
fn an_unknown_op_is_usage_error_with_suggestions() {
    let out = ds(&["run", "--backend", "emu", "--op", "ds_add_u3"]);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(e.contains("--op ds_add_u3: no DS op matches"), "{e}");
    assert!(e.contains("did you mean ds_add_u32"), "{e}");
    let out = ds(&["run", "--backend", "emu", "--op", "ds_gws_init"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("ds-harness does not run (global wave sync needs GWS"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_bad_shard_spec_is_a_usage_error() {
    for spec in ["0/2", "3/2", "2", "a/b", "1/0"] {
        let out = ds(&["run", "--backend", "emu", "--shard", spec]);
        assert_eq!(code(&out), 2, "{spec}");
        assert!(
            stderr(&out).contains(&format!("--shard {spec}: expected K/N")),
            "{}",
            stderr(&out)
        );
    }
    let out = ds(&["run", "--backend", "emu", "--cases", "0"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn a_malformed_case_file_is_a_usage_error_naming_line_and_column() {
    let dir = temp_dir("bad-case");
    let path = dir.join("bad.json");
    std::fs::write(&path, "{\n  \"format\": 1,\n  \"id\": oops\n}\n").unwrap();
    for cmd in ["eval", "replay"] {
        let out = ds(&[cmd, path.to_str().unwrap()]);
        assert_eq!(code(&out), 2, "{cmd}");
        let e = stderr(&out);
        assert!(e.contains(&format!("{}:3:", path.display())), "{cmd}: {e}");
        assert!(e.contains("docs/case-format.md"), "{e}");
    }
    let out = ds(&["eval", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cannot read case file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn backend_hip_without_a_gpu_is_unavailable_not_a_fallback() {
    let probe = ds_devices::hip::probe();
    if probe.devices.iter().any(|d| d.usable) {
        eprintln!("skipped: this machine has a usable HIP device");
        return;
    }
    let out = ds(&[
        "run",
        "--backend",
        "hip",
        "--op",
        "ds_add_u32",
        "--cases",
        "1",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("--backend hip needs a GPU of a supported target ("),
        "{e}"
    );
    assert!(!e.contains("backend: emu"), "{e}");
}

#[test]
fn eval_prints_the_model_outcome_and_replay_agrees_on_emu() {
    let dir = temp_dir("eval-replay");
    let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
    let vc = &corpus::for_op(op, 1, 9)[1];
    let gc = &vc.cases[0];
    let file = CaseFile::new(
        &gc.id,
        1,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    );
    let path = dir.join("case.json");
    file.write(&path).unwrap();

    let out = ds(&["eval", path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let want = ds_reference::model::execute(DEFAULT, &vc.variant.inst(), vc.variant.mode, &gc.case)
        .unwrap();
    assert_eq!(v["outcome"], serde_json::to_value(&want).unwrap());
    assert_eq!(v["id"], gc.id.as_str());

    let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
    let so = stdout(&out);
    assert_eq!(code(&out), 0, "{so}\n{}", stderr(&out));
    assert!(so.contains("AGREE"), "{so}");
    let shown = ds_kernels::generator::test_inst(Generation::Gfx11, &vc.variant)
        .unwrap()
        .text(Generation::Gfx11)
        .to_string();
    assert!(so.contains(&shown), "{so}");
}

#[test]
fn emu_runs_every_op_on_every_target_agreeing_and_naming_the_target() {
    let dir = temp_dir("run-targets");
    // One wave size per target, its first (wave32 where it runs it; gfx9 wave64): this is about
    // targets (the default run's test covers wave64 through the CLI, tests/wave64.rs every gfx11
    // target in wave64); doubling it would double its time.
    let per_op = 12u64;
    for t in ds_kernels::kernel_targets() {
        let json = dir.join(format!("{t}.json"));
        let wave = ds_kernels::wave_sizes(t)[0].lanes().to_string();
        let out = ds(&[
            "run",
            "--backend",
            "emu",
            "--target",
            t.name,
            "--wave",
            &wave,
            "--cases",
            &per_op.to_string(),
            "--out",
            dir.join(t.name).to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ]);
        let (so, se) = (stdout(&out), stderr(&out));
        assert_eq!(code(&out), 0, "{t}: {so}\n{se}");
        assert!(
            se.contains(&format!("target: {t} (emulated {t} (ds-harness emu))")),
            "{se}"
        );
        assert!(so.contains(&format!("on emulated {t} ")), "{so}");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["meta"]["target"], t.name);
        assert_eq!(
            r["meta"]["device"],
            format!("emulated {t} (ds-harness emu)")
        );
        let totals = &r["totals"];
        // Every runnable op of the target: 117 on gfx11, 123 on gfx12, 116 to 147 on gfx9/gfx10.
        let ops = ds_isa::ds::runnable_ops_on(t).count() as u64;
        assert_eq!(totals["ops"], ops, "{t}");
        assert_eq!(
            r["meta"]["waves"],
            serde_json::json!([wave.parse::<u32>().unwrap()])
        );
        // Ops with AccVGPR twins (targets with ACC) run each of their cases twice.
        let twins = ds_isa::ds::runnable_ops_on(t)
            .filter(|&op| ds_reference::wave::Variant::acc_settings(op, t).contains(&true))
            .count() as u64;
        assert_eq!(totals["cases"], (ops + twins) * per_op, "{t}");
        assert_eq!(
            (totals["disagree"].as_u64(), totals["errors"].as_u64()),
            (Some(0), Some(0))
        );
        for o in r["ops"].as_array().unwrap() {
            // An op the model runs but does not judge has every case counted apart.
            let op = ds_isa::ds::DsOp::from_name(o["op"].as_str().unwrap()).unwrap();
            if ds_reference::model::judged(t, op).is_err() {
                assert_eq!(o["skipped"], o["cases"], "{t}: {op}");
                continue;
            }
            assert!(
                o["agree"].as_u64().unwrap() > 0,
                "{t}: {} ran no case",
                o["op"]
            );
        }
        println!("emu {t}: {ops} ops, {} cases, all agree", totals["cases"]);
    }
    // A target of the table kernels are not built for yet: refused as bad usage, saying why.
    for t in ds_isa::target::TARGETS {
        let Err(why) = ds_kernels::check_target(t) else {
            continue;
        };
        let out = ds(&["run", "--backend", "emu", "--target", t.name]);
        assert_eq!(code(&out), 2, "{t}");
        assert!(stderr(&out).contains(&why), "{t}: {}", stderr(&out));
    }
    let out = ds(&["run", "--backend", "emu", "--target", "gfx1115"]);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(
        e.contains("unknown target `gfx1115`") && e.contains("did you mean"),
        "{e}"
    );
}

#[test]
fn a_case_file_names_its_target_and_replays_on_it() {
    let t = ds_isa::target::Target::by_name("gfx1151").unwrap();
    let dir = temp_dir("replay-target");
    let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
    let vc = &corpus::for_op(op, 1, 9)[1];
    let gc = &vc.cases[0];
    let path = dir.join("case.json");
    CaseFile::new(&gc.id, 1, t, vc.variant, gc.case.clone())
        .write(&path)
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"target\": \"gfx1151\""), "{text}");
    let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("target: gfx1151 (the case file names gfx1151)"),
        "{}",
        stderr(&out)
    );
    // --target runs it on another target of the generation.
    let out = ds(&[
        "replay",
        path.to_str().unwrap(),
        "--backend",
        "emu",
        "--target",
        "gfx1102",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("target: gfx1102 (the case file names gfx1151)"));
}
