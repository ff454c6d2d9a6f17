//! Benchmark: the host side of a run alone (`ds_harness::run::host`): case generation, and the
//! check of recorded device answers (readback, the model's expectation, the diff, the legal
//! check) with the device's own time set apart, on one core (a rayon pool of one thread), as
//! cases per second per core and as shares of the whole in-process emulated run measured in the
//! same process. `scripts/bench.sh` runs it beside the base revision's, alternating.
//!
//! `cargo bench -p ds-harness --bench host [-- --cases N --wave 32|64 --target T]`; the last
//! line is machine-readable (`BENCH key=value ...`).

use ds_devices::emu::EmuDevice;
use ds_harness::run::{host, select, RunConfig};
use ds_isa::target::{self, Target};
use ds_reference::wave::WaveSize;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases: usize = arg(&args, "--cases").map_or(1000, |c| c.parse().expect("--cases N"));
    let wave = match arg(&args, "--wave").as_deref() {
        None | Some("32") => WaveSize::Wave32,
        Some("64") => WaveSize::Wave64,
        Some(w) => panic!("--wave {w}: 32 or 64"),
    };
    let t: &'static Target =
        arg(&args, "--target").map_or(target::DEFAULT, |n| Target::by_name(&n).expect("a target"));
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("one thread");
    let mut cfg = RunConfig::new(select::select_ops_on(t, &[]).expect("every op"));
    cfg.cases_per_op = cases;
    cfg.waves = vec![wave];
    let mut device = EmuDevice::for_target(t);
    let h = host::host_side(&cfg, &mut device).expect("the run");
    assert_eq!(h.agree, h.cases, "the emulated device agrees on every case");
    let s = |d: std::time::Duration| d.as_secs_f64();
    let rate = |d| h.cases as f64 / s(d);
    let share = |d| 100.0 * s(d) / s(h.total);
    println!(
        "host side on one core, {t} {wave}, {cases} cases per op ({} cases):",
        h.cases
    );
    println!(
        "  check (readback + model + diff + legal): {:.3} s, {:.0} cases/s, {:.0}% of the run",
        s(h.check),
        rate(h.check),
        share(h.check)
    );
    println!(
        "  case generation:                         {:.3} s, {:.0} cases/s, {:.0}% of the run",
        s(h.generate),
        rate(h.generate),
        share(h.generate)
    );
    println!(
        "  the emulated device:                     {:.3} s, {:.0} cases/s, {:.0}% of the run",
        s(h.device),
        rate(h.device),
        share(h.device)
    );
    println!(
        "  the whole run:                           {:.3} s",
        s(h.total)
    );
    println!(
        "BENCH cases={} check_s={:.4} generate_s={:.4} device_s={:.4} total_s={:.4}",
        h.cases,
        s(h.check),
        s(h.generate),
        s(h.device),
        s(h.total)
    );
}
