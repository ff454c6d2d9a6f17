//! The exit-code contract of every subcommand, one probe per code it can return (0 all agree /
//! done, 1 disagreements, 2 bad usage or input, 3 backend unavailable), and a closed stdout for
//! every command: output stops quietly, the command exits with the code its result earns, never
//! a panic.

mod common;

use common::{stderr, temp_dir};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A case file that runs (the first default-corpus case of ds_add_u32).
fn case_file(dir: &Path) -> String {
    use ds_harness::case::CaseFile;
    use ds_harness::corpus;
    let op = ds_isa::ds::DsOp::from_name("ds_add_u32").unwrap();
    let vcs = corpus::for_op(op, corpus::DEFAULT_SEED, 4);
    let (vc, gc) = (&vcs[0], &vcs[0].cases[0]);
    let file = CaseFile::new(
        &gc.id,
        corpus::DEFAULT_SEED,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    );
    let p = dir.join("case.json");
    std::fs::write(&p, file.to_json()).unwrap();
    p.to_str().unwrap().to_string()
}

/// Results files for `merge`: one whole set of shards (1/1) of a run that agrees, the same with a
/// disagreement written in, and a shard 1/2 whose 2/2 is missing.
fn shard_files(dir: &Path) -> [String; 3] {
    let ok = dir.join("shard.json");
    let status = Command::new(env!("CARGO_BIN_EXE_ds-harness"))
        .args([
            "run",
            "--backend",
            "emu",
            "--op",
            "ds_add_u32",
            "--cases",
            "4",
        ])
        .args(["--shard", "1/1", "--json", ok.to_str().unwrap()])
        .args(["--out", dir.join("shard-out").to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ok).unwrap()).unwrap();
    // One agreeing case turned into a disagreement, every count kept consistent (merge checks
    // each row's arithmetic).
    let mut bad = r.clone();
    let dec = |v: &mut serde_json::Value| *v = (v.as_u64().unwrap() - 1).into();
    for at in [
        "/ops/0/agree",
        "/ops/0/variants/0/agree",
        "/ops/0/fidelity/exact",
        "/totals/agree",
        "/fidelity/exact",
    ] {
        dec(bad.pointer_mut(at).unwrap());
    }
    // The disagreeing case is the first variant's (merge checks each variant against its row).
    bad["ops"][0]["variants"][0]["disagree"] = 1.into();
    for at in ["/ops/0", "/totals"] {
        bad.pointer_mut(at).unwrap()["disagree"] = 1.into();
    }
    bad["ops"][0]["fidelity"]["mismatch"] = 1.into();
    bad["fidelity"]["mismatch"] = 1.into();
    bad["ops"][0]["unlisted_mismatches"] = 1.into();
    let mut half = r;
    half["meta"]["shard"] = "1/2".into();
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    [
        ok.to_str().unwrap().to_string(),
        write("shard-disagree.json", &bad),
        write("shard-half.json", &half),
    ]
}

/// How one probe runs: arguments, environment, stdin.
struct Probe {
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    stdin: &'static str,
    want: i32,
}

fn probe(want: i32, args: &[&str]) -> Probe {
    Probe {
        args: args.iter().map(|s| s.to_string()).collect(),
        env: Vec::new(),
        stdin: "",
        want,
    }
}

impl Probe {
    fn env(mut self, k: &'static str, v: &str) -> Probe {
        self.env.push((k, v.to_string()));
        self
    }
    fn stdin(mut self, s: &'static str) -> Probe {
        self.stdin = s;
        self
    }
    fn command(&self, stdout: Stdio) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ds-harness"));
        for var in [
            "DS_HARNESS_HIP_LIB",
            "DS_HARNESS_HIP_SEARCH",
            "DS_HARNESS_HIP_TIMEOUT",
            "DS_HIP_STANDIN_HANG",
            "DS_HIP_STANDIN_FLIP",
            "HIP_VISIBLE_DEVICES",
            "ROCR_VISIBLE_DEVICES",
            "ROCM_PATH",
        ] {
            cmd.env_remove(var);
        }
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped());
        cmd
    }
    fn run(&self, stdout: Stdio) -> Output {
        use std::io::Write;
        let mut child = self.command(stdout).spawn().expect("ds-harness starts");
        let mut pipe = child.stdin.take().unwrap();
        let _ = pipe.write_all(self.stdin.as_bytes());
        drop(pipe);
        child.wait_with_output().expect("ds-harness runs")
    }
}

/// Every subcommand and every code it can return. The stand-in HIP runtime provides a "device"
/// that disagrees (`DS_HIP_STANDIN_FLIP=1`) for the code 1 probes.
fn table(dir: &Path, standin: &str) -> Vec<(&'static str, Probe)> {
    let case = case_file(dir);
    let [shard_ok, shard_bad, shard_half] = shard_files(dir);
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let co = dir.join("k.co");
    let co = co.to_str().unwrap();
    // A results file for `matrix` (a run's own: matrix checks its arithmetic as merge does), and
    // the served emulated device for `run --backend exec`.
    let results = shard_ok.clone();
    let missing_results = dir.join("missing.json").to_str().unwrap().to_string();
    // A whole (empty) results file of `run --json`, for `questions`.
    let report = dir.join("report.json");
    std::fs::write(
        &report,
        r#"{"format": 1, "meta": {"backend": "emu", "backend_reason": "t", "device": "d",
            "target": "gfx1100", "seed": 1, "cases_per_op": 0, "shard": null},
            "complete": true, "totals": {"ops": 0, "cases": 0, "agree": 0, "disagree": 0,
            "skipped": 0, "errors": 0}, "elapsed_seconds": 0, "ops": []}"#,
    )
    .unwrap();
    let report = report.to_str().unwrap().to_string();
    let serve = format!("'{}' serve-device", env!("CARGO_BIN_EXE_ds-harness"));
    // Inside the fresh temp dir, so it surely does not exist (a harness that created missing
    // directories would have made a fixed path like /nonexistent/dir exist).
    let missing = dir.join("missing");
    let (bad_co, bad_json) = (
        missing.join("k.co").to_str().unwrap().to_string(),
        missing.join("r.json").to_str().unwrap().to_string(),
    );
    let small = ["--op", "ds_add_u32", "--cases", "4", "--out", out];
    let run = |extra: &[&str]| {
        let mut a = vec!["run"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&small);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let runp = |want, extra: &[&str]| Probe {
        args: run(extra),
        env: Vec::new(),
        stdin: "",
        want,
    };
    vec![
        ("asm", probe(0, &["asm"]).stdin("ds_add_u32 v1, v2\n")),
        ("asm", probe(2, &["asm"]).stdin("ds_add_u33 v1, v2\n")),
        ("asm", probe(2, &["asm", "--bogus"])),
        (
            "disasm",
            probe(0, &["disasm"]).stdin("0x00,0x00,0x00,0xd8,0x01,0x02,0x00,0x00\n"),
        ),
        ("disasm", probe(2, &["disasm"]).stdin("0x00,0x00\n")),
        ("list", probe(0, &["list"])),
        ("list", probe(2, &["list", "--json", "--markdown"])),
        ("info", probe(0, &["info"])),
        ("info", probe(2, &["info", "--bogus"])),
        (
            "info",
            probe(3, &["info"]).env("DS_HARNESS_HIP_LIB", "/nonexistent/libamdhip64.so"),
        ),
        ("doc", probe(0, &["doc", "ds_add_u32"])),
        ("doc", probe(2, &["doc", "ds_add_u33"])),
        ("kernel", probe(0, &["kernel", "ds_add_u32", "--out", co])),
        (
            "kernel",
            probe(2, &["kernel", "ds_add_u32", "--out", &bad_co]),
        ),
        ("run", runp(0, &["--backend", "emu"])),
        ("run", runp(0, &["--backend", "exec", "--device-cmd", &serve])),
        (
            "run",
            runp(1, &["--backend", "hip"])
                .env("DS_HARNESS_HIP_LIB", standin)
                .env("DS_HIP_STANDIN_FLIP", "1"),
        ),
        ("run", runp(2, &["--backend", "emu", "--shard", "3/2"])),
        ("run", runp(2, &["--backend", "exec"])),
        ("run", runp(2, &["--backend", "emu", "--json", &bad_json])),
        ("run", runp(2, &[]).env("DS_HARNESS_HIP_TIMEOUT", "soon")),
        (
            "run",
            runp(3, &["--backend", "hip"]).env("DS_HARNESS_HIP_LIB", "/nonexistent/libamdhip64.so"),
        ),
        ("run", runp(3, &["--backend", "exec", "--device-cmd", "exit 7"])),
        ("replay", probe(0, &["replay", &case, "--backend", "emu"])),
        (
            "replay",
            probe(1, &["replay", &case, "--backend", "hip"])
                .env("DS_HARNESS_HIP_LIB", standin)
                .env("DS_HIP_STANDIN_FLIP", "1"),
        ),
        ("replay", probe(2, &["replay", "/nonexistent/case.json"])),
        (
            "replay",
            probe(3, &["replay", &case, "--backend", "hip"])
                .env("DS_HARNESS_HIP_LIB", "/nonexistent/libamdhip64.so"),
        ),
        ("merge", probe(0, &["merge", &shard_ok])),
        ("merge", probe(1, &["merge", &shard_bad])),
        ("merge", probe(2, &["merge", &shard_half])),
        (
            "serve-device",
            probe(0, &["serve-device"]).stdin(
                "{\"type\":\"hello\",\"id\":1,\"protocol\":1,\"harness\":\"t\"}\n{\"type\":\"shutdown\",\"id\":2}\n",
            ),
        ),
        ("serve-device", probe(2, &["serve-device", "--target", "gfx0"])),
        (
            "serve-device",
            probe(3, &["serve-device", "--backend", "hip"])
                .env("DS_HARNESS_HIP_LIB", "/nonexistent/libamdhip64.so"),
        ),
        ("matrix", probe(0, &["matrix", &results])),
        ("matrix", probe(2, &["matrix", &missing_results])),
        ("questions", probe(0, &["questions", &report])),
        // A case file is JSON, but not results.
        ("questions", probe(2, &["questions", &case])),
        ("eval", probe(0, &["eval", &case])),
        ("eval", probe(2, &["eval", "/nonexistent/case.json"])),
        ("(none)", probe(2, &[])),
        ("(none)", probe(2, &["bogus"])),
    ]
}

#[test]
fn every_subcommand_returns_each_code_of_the_contract() {
    let Some(standin) = common::standin_lib() else {
        return;
    };
    let dir = temp_dir("exit-codes");
    let probes = table(&dir, &standin);
    // Every subcommand of the CLI appears (clap's list, so a new one cannot be forgotten).
    use clap::CommandFactory;
    for sub in ds_harness::cli::Cli::command().get_subcommands() {
        let name = sub.get_name();
        if name != "help" {
            assert!(
                probes.iter().any(|(n, _)| *n == name),
                "no probe for `{name}`"
            );
        }
    }
    let mut failures = Vec::new();
    for (name, p) in &probes {
        let out = p.run(Stdio::piped());
        let got = out.status.code();
        if got != Some(p.want) {
            failures.push(format!(
                "{name} {:?} {:?}: exit {got:?}, want {}\n{}",
                p.args,
                p.env,
                p.want,
                stderr(&out)
            ));
        }
        assert!(
            !stderr(&out).contains("panicked"),
            "{name} {:?}: {}",
            p.args,
            stderr(&out)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The codes each command can return, as the README's table states them.
    let codes = |n: &str| {
        let mut c: Vec<i32> = probes
            .iter()
            .filter(|(m, _)| *m == n)
            .map(|(_, p)| p.want)
            .collect();
        c.dedup();
        c
    };
    assert_eq!(codes("run"), [0, 1, 2, 3]);
    assert_eq!(codes("replay"), [0, 1, 2, 3]);
    assert_eq!(codes("info"), [0, 2, 3]);
}

/// A stdout whose reader has already gone: the read end of a pipe, closed.
fn closed_stdout() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) returns.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are fresh and owned here; the read end is closed at once.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_its_own_code() {
    let Some(standin) = common::standin_lib() else {
        return;
    };
    let dir = temp_dir("closed-stdout");
    let case = case_file(&dir);
    let mut probes: Vec<(&str, Probe)> = table(&dir, &standin)
        .into_iter()
        .filter(|(_, p)| p.want == 0 || p.want == 1)
        .collect();
    probes.push(("list", probe(0, &["list", "--json"])));
    probes.push(("list", probe(0, &["list", "--markdown"])));
    probes.push(("info", probe(0, &["info", "--json"])));
    probes.push(("kernel", probe(0, &["kernel", "ds_add_u32", "--listing"])));
    probes.push(("kernel", probe(0, &["kernel", "ds_add_u32", "--out", "-"])));
    probes.push(("eval", probe(0, &["eval", &case])));
    for (name, p) in &probes {
        let out = p.run(closed_stdout());
        let se = stderr(&out);
        assert_eq!(out.status.code(), Some(p.want), "{name} {:?}: {se}", p.args);
        assert!(!se.contains("panicked"), "{name} {:?}: {se}", p.args);
        assert!(
            !se.to_lowercase().contains("broken pipe"),
            "{name} {:?}: {se}",
            p.args
        );
    }
}
