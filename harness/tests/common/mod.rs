//! Helpers shared by the harness crate's integration tests: running the built `ds-harness`
//! binary, and finding external tools (skip with a reason locally, fail under `CI=true`).
#![allow(dead_code)] // Each test binary uses its own subset.

pub mod bounded;
pub mod svg;

/// The LLVM oracles: the one list of releases and generations every oracle test of the workspace
/// runs (shared with the reference crate's tests).
#[path = "../../../reference/tests/common/llvm.rs"]
pub mod llvm;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Whether `program --version` runs. When it does not: prints why the test skips and returns
/// false, or panics when `CI=true` (CI installs every tool, so a missing one is a bug).
pub fn tool(program: &str, install: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    require(found, &format!("{program} not found: {install}"))
}

/// `found`, or (when not) prints why the test skips and returns false, or panics under `CI=true`.
pub fn require(found: bool, why: &str) -> bool {
    if !found {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true and {why}");
        }
        eprintln!("skipped: {why}");
    }
    found
}

/// llvm-mc-19, the assembler/disassembler oracle (Debian package llvm-19).
pub const LLVM_MC: &str = "llvm-mc-19";

/// `tool(LLVM_MC, ...)`.
pub fn llvm_mc() -> bool {
    tool(
        LLVM_MC,
        "install Debian's llvm-19 (`apt-get install -y llvm-19`)",
    )
}

/// Runs `program args...` with `stdin` fed in; returns its output.
pub fn run(program: &str, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} starts: {e}"));
    let mut pipe = child.stdin.take().expect("piped stdin");
    let input = stdin.to_string();
    let writer = std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("process runs");
    writer.join().expect("writer").expect("stdin written");
    out
}

/// Runs `program args...` with the bytes `stdin` fed in (which need not be text).
pub fn run_bytes(program: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} starts: {e}"));
    let mut pipe = child.stdin.take().expect("piped stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().expect("process runs");
    writer.join().expect("writer").expect("stdin written");
    out
}

/// Runs the built `ds-harness` binary.
pub fn ds_harness(args: &[&str], stdin: &str) -> Output {
    run(env!("CARGO_BIN_EXE_ds-harness"), args, stdin)
}

/// The exit code of a process that exited (a test fails when it was killed by a signal).
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited, not killed")
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("utf-8 stderr")
}

/// A fresh empty directory under the system temp dir for test `name` (removed first if left
/// over from an earlier run).
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ds-harness-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the built `ds-harness` binary with `DS_HARNESS_HIP_LIB` unset, so `--backend auto`
/// sees only what the machine has.
pub fn ds_harness_no_env(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ds-harness"))
        .args(args)
        .env_remove("DS_HARNESS_HIP_LIB")
        .stdin(Stdio::null())
        .output()
        .expect("ds-harness runs")
}

/// Runs the built `ds-harness` with `env` set and the HIP/ROCm variables that would change its
/// answer (`DS_HARNESS_HIP_*`, `*_VISIBLE_DEVICES`, `ROCM_PATH`) cleared first.
pub fn ds_harness_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    ds_harness_env_cmd(args, env)
        .output()
        .expect("ds-harness runs")
}

/// [`ds_harness_env`], but the process must end within `limit`: past it the process is killed
/// and the test fails saying so (a hang is a failure, not a stuck test run).
pub fn ds_harness_env_within(
    args: &[&str],
    env: &[(&str, &str)],
    limit: std::time::Duration,
) -> Output {
    let mut child = ds_harness_env_cmd(args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ds-harness starts");
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for ds-harness") {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "ds-harness {args:?} did not end within {limit:?}; its stderr so far:\n{}",
                String::from_utf8_lossy(&err.join().unwrap_or_default())
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

fn ds_harness_env_cmd(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ds-harness"));
    for var in [
        "DS_HARNESS_HIP_LIB",
        "DS_HARNESS_HIP_SEARCH",
        "DS_HARNESS_HIP_TIMEOUT",
        "DS_HIP_STANDIN_HANG",
        "DS_HIP_STANDIN_FLIP",
        "DS_HIP_STANDIN_FAULT",
        "DS_HIP_STANDIN_WRONG_ENTRY",
        "DS_HIP_STANDIN_VERSION",
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
        "ROCM_PATH",
    ] {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    cmd
}

/// The stand-in HIP runtime (`cargo build -p hip-standin`), next to this test's target dir, or
/// `$DS_HIP_STANDIN_LIB`. When missing: skip with the command to run, or fail under `CI=true`.
pub fn standin_lib() -> Option<String> {
    let path = std::env::var("DS_HIP_STANDIN_LIB").ok().unwrap_or_else(|| {
        let exe = std::env::current_exe().expect("test binary path");
        // <target>/<profile>/deps/<test> -> <target>/<profile>/libds_hip_standin.so
        let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
        dir.join("libds_hip_standin.so")
            .to_string_lossy()
            .into_owned()
    });
    let found = std::path::Path::new(&path).exists();
    require(
        found,
        &format!("the stand-in HIP runtime {path} is not built: run `cargo build -p hip-standin` (same profile and target dir) first"),
    )
    .then_some(path)
}

/// The table op named `name` (a test's typo is a panic naming it).
pub fn op(name: &str) -> ds_isa::ds::DsOp {
    ds_isa::ds::DsOp::from_name(name).unwrap_or_else(|| panic!("no op {name}"))
}

/// The results' metadata of a wave32 run of the default target on a device named `device`,
/// `cases` cases per op, as the run command writes it (the tests that call the run loop directly).
pub fn meta(device: &str, cases: usize) -> ds_harness::run::report::RunMeta {
    ds_harness::run::report::RunMeta {
        backend: "emu".into(),
        backend_reason: "test".into(),
        device: device.into(),
        target: ds_isa::target::DEFAULT.name.into(),
        seed: ds_harness::corpus::DEFAULT_SEED,
        cases_per_op: cases,
        waves: vec![ds_reference::wave::WaveSize::Wave32],
        shard: None,
        harness: String::new(),
        selection: Vec::new(),
        duration_seconds: None,
        device_version: None,
        against: None,
        allow_unsupported: false,
        device_details: Default::default(),
        overridden: None,
    }
}

/// The workspace's member crates' folders, as the top-level Cargo.toml lists them.
pub fn workspace_members() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("Cargo.toml")).expect("the workspace manifest");
    let list = text
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list in Cargo.toml");
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// A run's results whose counts add up as `run --json` writes them (rows, one variant each,
/// totals), for the tests of the readers of results files (`matrix`, `merge`): one row per
/// `(op, wave, fidelity classes -> cases)` on a device named `device`.
pub fn consistent_report(
    device: &str,
    rows: &[(
        &str,
        ds_reference::wave::WaveSize,
        ds_harness::fidelity::Counts,
    )],
) -> ds_harness::run::report::Report {
    use ds_harness::fidelity::count_of;
    use ds_harness::run::report::{OpResult, Report, VariantResult};
    let mut r = Report::new(meta(device, 160));
    for (op, wave, fidelity) in rows {
        let count = |what: &str| -> usize {
            fidelity
                .iter()
                .filter(|(c, _)| count_of(**c) == what)
                .map(|(_, n)| n)
                .sum()
        };
        let cases: usize = fidelity.values().sum();
        let (agree, disagree, skipped) = (count("agree"), count("disagree"), count("skipped"));
        let (errors, unsupported, undecided) =
            (count("errors"), count("unsupported"), count("undecided"));
        let variant = VariantResult {
            tag: "o0".into(),
            wave: *wave,
            inst: String::new(),
            lds_size: 512,
            mode: Default::default(),
            cases,
            agree,
            disagree,
            skipped,
            error: (errors + unsupported > 0).then(|| "the device failed".to_string()),
        };
        r.push(OpResult {
            op: op.to_string(),
            wave: *wave,
            cases,
            agree,
            disagree,
            skipped,
            errors,
            unsupported,
            undecided,
            variants: vec![variant],
            unlisted_mismatches: disagree + undecided,
            fidelity: fidelity.clone(),
            ..Default::default()
        });
    }
    r.complete = true;
    r
}
