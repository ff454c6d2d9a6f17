//! Benchmark: the full default suite (every runnable op, the default corpus) on the emulated
//! device, end to end as `ds-harness run` does it (corpus, one code object, launches, model,
//! diff). Target: <= 2 s wall in release on a 2-core machine. Prints cases per second.

use ds_harness::device::emu::EmuDevice;
use ds_harness::run::report::RunMeta;
use ds_harness::run::{self, RunConfig};
use ds_reference::isa::runnable_ops;
use std::time::Instant;

const TARGET_SECONDS: f64 = 2.0;
const RUNS: usize = 3;

fn main() {
    let dir = std::env::temp_dir().join(format!("ds-harness-bench-{}", std::process::id()));
    let cfg = RunConfig {
        out_dir: dir.clone(),
        ..RunConfig::new(runnable_ops().collect())
    };
    let mut times = Vec::new();
    let mut cases = 0;
    for _ in 0..RUNS {
        let meta = RunMeta {
            backend: "emu".into(),
            backend_reason: "bench".into(),
            device: "emu".into(),
            target: ds_reference::target::DEFAULT.name.into(),
            seed: cfg.seed,
            cases_per_op: cfg.cases_per_op,
            shard: None,
            harness: String::new(),
            selection: Vec::new(),
            duration_seconds: None,
        };
        let start = Instant::now();
        let report = run::run(&cfg, &mut EmuDevice::new(), meta).expect("the run completes");
        times.push(start.elapsed().as_secs_f64());
        assert!(
            report.all_agree(),
            "the default suite must agree on emu:\n{}",
            report.summary()
        );
        cases = report.totals.cases;
    }
    let _ = std::fs::remove_dir_all(&dir);
    times.sort_by(f64::total_cmp);
    let (best, median) = (times[0], times[RUNS / 2]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "full default suite on emu: {} ops, {cases} cases, {threads} host threads",
        runnable_ops().count()
    );
    println!(
        "  wall: best {best:.3} s, median {median:.3} s of {RUNS} runs (target <= {TARGET_SECONDS} s: {})",
        if median <= TARGET_SECONDS { "met" } else { "MISSED" }
    );
    println!(
        "  throughput: {:.0} cases/s (median), {:.0} cases/s (best)",
        cases as f64 / median,
        cases as f64 / best
    );
}
