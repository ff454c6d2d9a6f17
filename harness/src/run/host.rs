//! The host side of a run on its own (README, "Speed"; `scripts/bench.sh` prints it): the
//! work a run does besides the device's, which bounds a GPU run however fast the GPU is. The
//! device answers each chunk first, untimed, and the answers are kept; then, timed apart from the
//! device, the chunk is read back and checked exactly as a run checks it (readback, the model's
//! expectation, the diff, the legal-outcome check). Case generation is timed apart as well.

use super::bisect::launch_split;
use super::stream::{self, Launched, OpState};
use super::{build_code_object, units, RunConfig, RunError};
use ds_devices::Device;
use std::time::Duration;

/// What the host side of a run took, in CPU time of this process (every thread).
#[derive(Clone, Copy, Debug, Default)]
pub struct HostTimes {
    /// Cases checked.
    pub cases: u64,
    /// Cases whose check found device and model in agreement (all of them, for a faithful
    /// device).
    pub agree: u64,
    /// Building the cases from the corpus.
    pub generate: Duration,
    /// Readback, expectation, diff and legal check of the device's answers.
    pub check: Duration,
    /// The device's launches.
    pub device: Duration,
    /// All of it (with what lies between: the code object, the plans).
    pub total: Duration,
}

/// This process's CPU time so far (user and system, every thread).
pub fn cpu_time() -> Duration {
    // SAFETY: getrusage writes the struct it is given; an all-zero rusage is a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| Duration::new(v.tv_sec as u64, v.tv_usec as u32 * 1000);
    t(u.ru_utime) + t(u.ru_stime)
}

/// Runs `cfg`'s ops on `device` as a run does, chunk by chunk, timing the host side alone (see
/// the module docs). No report is written.
pub fn host_side(cfg: &RunConfig, device: &mut dyn Device) -> Result<HostTimes, RunError> {
    let start = cpu_time();
    let target = device.info().target;
    let code = build_code_object(&cfg.ops, &cfg.waves, target)?;
    let module = device.load(&code).map_err(RunError::Device)?;
    let mut times = HostTimes::default();
    // As a run does: a spent launch's buffers, and a checked chunk's cases, serve the next.
    let (mut spare, mut spare_cases) = (None, Vec::new());
    for (op, wave) in units(cfg) {
        let mut state = OpState::new(op, wave, cfg, target);
        for spec in state.round(cfg.chunk) {
            let plan = &state.plans[spec.variant];
            let t = cpu_time();
            let cases = stream::generate(plan, spec, std::mem::take(&mut spare_cases));
            times.generate += cpu_time() - t;
            let t = cpu_time();
            let parts = launch_split(device, module, &plan.variant, &cases, spare.take());
            times.device += cpu_time() - t;
            let launched = Launched {
                state: 0,
                target,
                spec,
                cases,
                parts,
            };
            let t = cpu_time();
            let mut checked = stream::check(cfg, plan, &state.questions, launched);
            times.check += cpu_time() - t;
            times.cases += checked.len() as u64;
            times.agree += checked.agreed() as u64;
            spare = checked.take_spent();
            spare_cases = checked.take_cases();
        }
    }
    times.total = cpu_time() - start;
    Ok(times)
}
