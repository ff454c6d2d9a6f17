//! Benchmark: `ds-harness run` over every runnable op on the emulated device, end to end as a
//! user runs it (a process per run), at `--cases` 160, 2,000 and 20,000: cases per second and
//! peak RSS, in wave32 (the cases 04b52d8 runs) with every core and with `--jobs 1`, and in the
//! default run over both wave sizes; and side by side, in the same bench run and
//! alternating with it, the same runs of commit 04b52d8 (the run loop before streaming), built
//! from a `git worktree`, so the speed-up is a ratio measured on one machine at one time. Then
//! the memory bound: peak RSS of `--op ds_add_u32` at 20,000, 200,000 and 1,000,000 cases.
//!
//! `cargo bench -p ds-harness --bench run` (set `DS_BENCH_QUICK=1` for one repetition of each).
//! The first run builds 04b52d8 (a few minutes) and keeps its binary under
//! `target/bench-04b52d8/`; the worktree is removed once built.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The commit measured against.
const BASE: &str = "04b52d8";

/// One process run: wall seconds, peak resident set (KB) and the cases it ran (its JSON
/// results' `totals.cases`).
#[derive(Clone, Copy, Debug)]
struct Sample {
    seconds: f64,
    peak_kb: i64,
    cases: u64,
}

/// Runs `bin run --backend emu ARGS` with stdout and stderr discarded; waits for it with
/// `wait4` to read its own peak RSS.
fn measure(bin: &Path, args: &[&str]) -> Sample {
    let out = std::env::temp_dir().join(format!("ds-bench-out-{}", std::process::id()));
    let json = std::env::temp_dir().join(format!("ds-bench-{}.json", std::process::id()));
    let start = Instant::now();
    // Reaped by wait4 below, which std's Child cannot do while reporting the child's rusage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .args(["run", "--backend", "emu", "--out", out.to_str().unwrap()])
        .args(["--json", json.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} starts: {e}", bin.display()));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for (std never waits on a dropped Child);
    // `status` and `usage` are valid for writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} run {args:?} failed (status {status})",
        bin.display()
    );
    let _ = std::fs::remove_dir_all(&out);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the run wrote its JSON"))
            .expect("JSON results");
    let _ = std::fs::remove_file(&json);
    Sample {
        seconds,
        peak_kb: usage.ru_maxrss,
        cases: results["totals"]["cases"]
            .as_u64()
            .expect("totals.cases in the results"),
    }
}

/// The binary of commit [`BASE`]: built once in a temporary worktree, then kept.
fn base_binary(root: &Path, target: &Path) -> Result<PathBuf, String> {
    let keep = target.join(format!("bench-{BASE}"));
    let bin = keep.join("ds-harness");
    if bin.is_file() {
        return Ok(bin);
    }
    let tree = keep.join("tree");
    let _ = std::fs::remove_dir_all(&tree);
    std::fs::create_dir_all(&keep).map_err(|e| e.to_string())?;
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .status()
            .map_err(|e| format!("git: {e}"))
            .and_then(|s| {
                s.success()
                    .then_some(())
                    .ok_or(format!("git {args:?} failed"))
            })
    };
    git(&["worktree", "add", "--detach", tree.to_str().unwrap(), BASE])?;
    eprintln!("building {BASE} (release) in {} ...", tree.display());
    let built = Command::new("cargo")
        .current_dir(&tree)
        .args(["build", "--release", "--locked", "-p", "ds-harness"])
        .env("CARGO_TARGET_DIR", keep.join("target"))
        .status()
        .map_err(|e| format!("cargo: {e}"));
    let copied = built.and_then(|s| {
        s.success()
            .then_some(())
            .ok_or(format!("building {BASE} failed"))
            .and_then(|_| {
                std::fs::copy(keep.join("target/release/ds-harness"), &bin)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
    });
    git(&["worktree", "remove", "--force", tree.to_str().unwrap()])?;
    let _ = std::fs::remove_dir_all(keep.join("target"));
    copied.map(|_| bin)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let now = Path::new(env!("CARGO_BIN_EXE_ds-harness"));
    let quick = std::env::var_os("DS_BENCH_QUICK").is_some();
    let base = match base_binary(root, &target) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("no side-by-side figures for {BASE}: {e}");
            None
        }
    };
    let ops = ds_isa::ds::runnable_ops(ds_isa::target::DEFAULT.generation).count();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "ds-harness run, all {ops} ops on the emulated device; {threads} host threads; load average at start {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    println!(
        "{:>7} {:<22} {:>12} {:>10} {:>11}",
        "--cases", "binary", "cases/s", "wall s", "peak RSS"
    );
    println!(
        "(cases/s counts the cases each run reports; {BASE} runs wave32 only, so the side-by-side \
         rows run this binary with --wave 32, as many cases of the same kinds; \"both waves\" is this binary's \
         default run, wave32 and wave64)"
    );
    let mut speedups = Vec::new();
    for (cases, reps) in [(160, 5), (2000, 3), (20_000, 1)] {
        let reps = if quick { 1 } else { reps };
        let n = cases.to_string();
        let mut rows: Vec<(String, Vec<Sample>)> = vec![
            ("this (every core)".into(), Vec::new()),
            ("this (--jobs 1)".into(), Vec::new()),
            ("this (both waves)".into(), Vec::new()),
        ];
        if base.is_some() {
            rows.push((format!("{BASE} (every core)"), Vec::new()));
        }
        // Alternate the binaries, so a change of machine load hits each alike.
        for _ in 0..reps {
            rows[0]
                .1
                .push(measure(now, &["--cases", &n, "--wave", "32"]));
            if let Some(b) = &base {
                rows[3].1.push(measure(b, &["--cases", &n]));
            }
            rows[1].1.push(measure(
                now,
                &["--cases", &n, "--wave", "32", "--jobs", "1"],
            ));
            rows[2].1.push(measure(now, &["--cases", &n]));
        }
        let mut rate = Vec::new();
        for (name, samples) in &rows {
            let secs = median(samples.iter().map(|s| s.seconds).collect());
            let peak = samples.iter().map(|s| s.peak_kb).max().unwrap_or(0);
            let total = samples[0].cases as f64;
            rate.push(total / secs);
            println!(
                "{cases:>7} {name:<22} {:>12.0} {secs:>10.2} {:>8.1} MB",
                total / secs,
                peak as f64 / 1024.0
            );
        }
        if base.is_some() {
            speedups.push((cases, rate[0] / rate[3], rate[1] / rate[3]));
        }
    }
    for (cases, all, one) in &speedups {
        println!(
            "speed-up over {BASE} at --cases {cases}: {all:.2}x with every core, {one:.2}x with --jobs 1 (medians, side by side)"
        );
    }
    println!("memory bound, --op ds_add_u32 (this binary, every core):");
    let mut peaks = Vec::new();
    for cases in [20_000, 200_000, 1_000_000] {
        let s = measure(now, &["--op", "ds_add_u32", "--cases", &cases.to_string()]);
        peaks.push(s.peak_kb);
        println!(
            "  --cases {cases:>9}: {:>8.1} MB peak RSS, {:.1} s ({:.0} cases/s, both waves)",
            s.peak_kb as f64 / 1024.0,
            s.seconds,
            s.cases as f64 / s.seconds
        );
    }
    println!(
        "  peak at 200,000 / peak at 20,000 = {:.2} (target <= 1.5)",
        peaks[1] as f64 / peaks[0] as f64
    );
}
