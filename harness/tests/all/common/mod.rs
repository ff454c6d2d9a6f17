//! Helpers shared by the harness crate's integration tests: running the built `ds-harness` binary
//! (a `ds_test_support::Cmd`: in the scratch directory, never the work tree, with the HIP
//! variables cleared where the machine's answer must not change), the workspace's shared helpers
//! re-exported (`require`, `tool`, `llvm`, `temp_dir`), and what several modules read back.
#![allow(dead_code)] // Each test module uses its own subset.

pub mod bounded;
pub mod exec;
pub mod svg;
pub mod wave64;

pub use ds_test_support::{llvm, require, temp_dir, tool};

use ds_harness::record;
use ds_harness::record::Verdict;
use ds_isa::ds::runnable_ops;
use ds_isa::gen::Generation;
use ds_isa::target::Target;
use ds_isa::target::DEFAULT;
use ds_isa::target::TARGETS;
use ds_test_support::Cmd;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::path::PathBuf;
use std::process::Output;
use std::time::Instant;

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
    Cmd::new(program).args(args).stdin(stdin).output()
}

/// Runs `program args...` with the bytes `stdin` fed in (which need not be text).
pub fn run_bytes(program: &str, args: &[&str], stdin: &[u8]) -> Output {
    Cmd::new(program).args(args).stdin(stdin).output()
}

/// The built `ds-harness` as a command to complete (in the scratch directory).
pub fn ds_harness_cmd() -> Cmd {
    Cmd::new(env!("CARGO_BIN_EXE_ds-harness"))
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

/// Runs the built `ds-harness` binary with `DS_HARNESS_HIP_LIB` unset, so `--backend auto`
/// sees only what the machine has.
pub fn ds_harness_no_env(args: &[&str]) -> Output {
    ds_harness_cmd()
        .args(args)
        .env_remove(["DS_HARNESS_HIP_LIB"])
        .output()
}

/// Runs the built `ds-harness` with `env` set and the HIP/ROCm variables that would change its
/// answer (`DS_HARNESS_HIP_*`, `*_VISIBLE_DEVICES`, `ROCM_PATH`) cleared first.
pub fn ds_harness_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    ds_harness_env_cmd(args, env).output()
}

/// [`ds_harness_env`], but the process must end within `limit`: past it the process is killed
/// and the test fails saying so (a hang is a failure, not a stuck test run).
pub fn ds_harness_env_within(
    args: &[&str],
    env: &[(&str, &str)],
    limit: std::time::Duration,
) -> Output {
    ds_harness_env_cmd(args, env).within(limit).output()
}

/// The variables of the HIP runtime, the stand-in and ROCm that change what `ds-harness` finds.
pub const HIP_ENV: [&str; 12] = [
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
];

fn ds_harness_env_cmd(args: &[&str], env: &[(&str, &str)]) -> Cmd {
    ds_harness_cmd()
        .env_remove(HIP_ENV)
        .args(args)
        .envs(env.iter().copied())
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

/// Stand-in device `index` opened in this process (0 is of the default target, 1 the decoy, 2
/// and up the other targets in table order), or `None` after [`standin_lib`] said why. The
/// process-wide HIP library is chosen at its first use: every in-process test of this binary sets
/// the same search (the stand-in alone) before it, and none loads another runtime in process.
pub fn standin_device(index: usize) -> Option<ds_devices::hip::HipDevice> {
    use ds_devices::hip::{self, library};
    static ENV: std::sync::Once = std::sync::Once::new();
    let lib = standin_lib()?;
    ENV.call_once(|| {
        std::env::set_var(library::ENV_LIB, &lib);
        std::env::set_var(library::ENV_SEARCH, "only-env");
        std::env::remove_var("HIP_VISIBLE_DEVICES");
    });
    Some(hip::open(index, None).expect("the stand-in device opens"))
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

/// The workspace's root folder (through `harness/..`, as insta names the snapshots' paths).
pub fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The workspace's member crates' folders, as the top-level Cargo.toml lists them.
pub fn workspace_members() -> Vec<String> {
    let root = workspace();
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

/// The recordings under `root`, replayed: (cases, `.acc` cases, problems).
pub fn replayed(root: &Path) -> (usize, usize, Vec<String>) {
    let (mut cases, mut acc, mut problems) = (0, 0, Vec::new());
    for rec in record::load_dir(root) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for r in record::replay(&rec) {
            cases += 1;
            acc += usize::from(r.case.ends_with(".acc"));
            if let Verdict::Disagree(d) = r.verdict {
                problems.push(format!("{}: {}: {d:?}", rec.path.display(), r.case));
            }
        }
    }
    (cases, acc, problems)
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small run's results (and recordings, when `record`) in `dir`.
pub fn results(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(format!("{name}.json"));
    let mut args = vec![
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--op",
        "ds_sub_u32",
        "--cases",
        "8",
        "--wave",
        "32",
        "--json",
        s(&file),
    ];
    let out = dir.join(format!("out-{name}"));
    args.extend_from_slice(&["--out", s(&out)]);
    args.extend_from_slice(extra);
    let o = ds_harness_no_env(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    file
}

/// `ds-harness args...` (the HIP variables unset) exits 2 and says `says`.
pub fn refused(args: &[&str], says: &str) {
    let o = ds_harness_no_env(args);
    assert_eq!(code(&o), 2, "{args:?}: {}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
}

/// gfx12's runnable ops (`runnable_ops(Generation::Gfx12)`), as the gfx12 tests count them.
pub const GFX12_RUNNABLE: usize = 123;

/// Every runnable gfx12 op has a row in each wave size the target runs (the default run covers
/// both), in table order within each, and every row agrees.
pub fn every_gfx12_op_agrees_in_both_waves(json: &std::path::Path, target: &str) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(v["meta"]["target"], target);
    assert_eq!(v["meta"]["waves"], serde_json::json!([32, 64]));
    assert_eq!(v["totals"]["disagree"], 0, "{}", v["totals"]);
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2 * GFX12_RUNNABLE);
    let want: Vec<&str> = runnable_ops(Generation::Gfx12).map(|o| o.name()).collect();
    for wave in [32, 64] {
        let got: Vec<&str> = ops
            .iter()
            .filter(|o| o["wave"] == wave)
            .map(|o| o["op"].as_str().unwrap())
            .collect();
        assert_eq!(got, want, "wave{wave}");
    }
    v
}

/// `run ARGS --json F --out D` (in a temp dir named for `name`, `env` set): exit code, stderr
/// and the results.
pub fn run_report(name: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, Value) {
    let dir = temp_dir(name);
    let json = dir.join("r.json");
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    let (j, o) = (json.to_str().unwrap(), dir.join("out"));
    all.extend_from_slice(&["--json", j, "--out", o.to_str().unwrap()]);
    let started = Instant::now();
    let out = ds_harness_env(&all, env);
    let r: Value = std::fs::read(&json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    eprintln!(
        "{name}: {} cases in {:.2} s",
        r["totals"]["cases"],
        started.elapsed().as_secs_f64()
    );
    (code(&out), stderr(&out), r)
}

/// Every runnable gfx12 op has one wave64 row, in table order, and every row agrees.
pub fn all_gfx12_ops_agree_in_wave64(r: &Value, target: &str, cases: u64) {
    assert_eq!(r["meta"]["target"], target);
    assert_eq!(r["meta"]["waves"], serde_json::json!([64]));
    assert_eq!(r["totals"]["disagree"], 0, "{}", r["totals"]);
    assert_eq!(r["totals"]["errors"], 0, "{}", r["totals"]);
    let want: Vec<&str> = runnable_ops(Generation::Gfx12).map(|o| o.name()).collect();
    assert_eq!(want.len(), GFX12_RUNNABLE);
    let rows = r["ops"].as_array().unwrap();
    let got: Vec<&str> = rows.iter().map(|o| o["op"].as_str().unwrap()).collect();
    assert_eq!(got, want);
    for o in rows {
        assert_eq!(o["wave"], 64, "{}", o["op"]);
        assert_eq!(o["agree"], cases, "{}", o["op"]);
    }
    assert_eq!(r["totals"]["cases"], GFX12_RUNNABLE as u64 * cases);
}

/// A valid case file's JSON text: the first default-corpus case of `ds_add_u32`, as `run`
/// writes a mismatching case.
pub fn sample_case_json() -> String {
    use ds_harness::case::CaseFile;
    use ds_harness::corpus;
    let op = ds_isa::ds::DsOp::from_name("ds_add_u32").unwrap();
    let vcs = corpus::for_op(op, corpus::DEFAULT_SEED, 4);
    let (vc, gc) = (&vcs[0], &vcs[0].cases[0]);
    CaseFile::new(
        &gc.id,
        corpus::DEFAULT_SEED,
        ds_isa::target::DEFAULT,
        vc.variant,
        gc.case.clone(),
    )
    .to_json()
}

/// `text` written as the case file `dir/name`.
pub fn write_case(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

/// The JSON file at `path`.
pub fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The environment that makes `ds-harness` load the stand-in `lib` alone.
pub fn standin_env(lib: &str) -> Vec<(&str, &str)> {
    vec![
        ("DS_HARNESS_HIP_LIB", lib),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ]
}

/// The stand-in's device index of `t` (0 the default target, 1 the decoy, then table order).
pub fn standin_index(t: &Target) -> usize {
    if t == DEFAULT {
        return 0;
    }
    2 + TARGETS
        .iter()
        .filter(|o| *o != DEFAULT)
        .position(|o| o == t)
        .unwrap()
}
