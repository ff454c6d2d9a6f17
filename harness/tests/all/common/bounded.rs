//! Running the built `ds-harness` with a bound on its wall time, and reading its peak memory
//! (the resident set size wait4(2) reports for it): for the tests of hostile devices, where the
//! harness of a bad revision hangs or fills the memory instead of failing.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How a bounded run ended.
#[derive(Debug)]
pub struct Ran {
    /// The exit code (none when a signal ended it).
    pub code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Wall time.
    pub secs: f64,
    /// Peak resident set size of the harness process in KiB (its `VmHWM`, read from `/proc` while
    /// it runs: wait4(2)'s figure also counts the test process's own pages copied at the fork, so a
    /// test binary with a large resident set would see its own size).
    pub max_rss_kib: i64,
    /// It was still running at the limit and was killed.
    pub killed: bool,
}

/// Address space a bounded run (and the devices it starts) may take: a revision that reads an
/// endless input or holds a device's endless line fails here instead of exhausting the machine.
pub const ADDRESS_SPACE_BYTES: u64 = 4 << 30;

/// Runs `ds-harness args...` (environment: `env` set, `DS_HARNESS_HIP_LIB` unset; stdin:
/// `stdin`; address space: [`ADDRESS_SPACE_BYTES`]), killing it if it runs past `limit`. The child
/// is polled with wait4(2), not `Child::wait`, its peak memory read between polls (`spawn` returns
/// once the exec has happened, so every reading is of the harness's own image).
#[allow(clippy::zombie_processes)]
pub fn run_bounded(args: &[&str], env: &[(&str, &str)], stdin: &[u8], limit: Duration) -> Ran {
    use std::os::unix::process::CommandExt;
    let mut cmd = super::ds_harness_cmd().into_command();
    // SAFETY: setrlimit(2) is async-signal-safe, as a pre_exec hook requires.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE_BYTES,
                rlim_max: ADDRESS_SPACE_BYTES,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    cmd.args(args)
        .env_remove("DS_HARNESS_HIP_LIB")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("ds-harness starts");
    let pid = child.id() as libc::pid_t;
    let mut pipe = child.stdin.take().expect("piped");
    let input = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let so = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let se = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let t = Instant::now();
    let mut killed = false;
    let mut status = 0;
    let mut peak = 0;
    loop {
        peak = peak.max(high_water_kib(pid).unwrap_or(0));
        // SAFETY: wait4 on our own child, a valid status pointer, no rusage asked for.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
        if r == pid {
            break;
        }
        if t.elapsed() > limit && !killed {
            killed = true;
            // SAFETY: kill(2) of our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let secs = t.elapsed().as_secs_f64();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stdout: text(so.join().unwrap_or_default()),
        stderr: text(se.join().unwrap_or_default()),
        secs,
        max_rss_kib: peak,
        killed,
    }
}

/// The peak resident set size (`VmHWM`) of process `pid` in KiB, while it runs. Its memory map
/// is the one exec(2) made, so the figure is the harness's alone.
fn high_water_kib(pid: libc::pid_t) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Whether any process of process group `pgid` is still alive (a zombie not yet reaped by init
/// counts for a moment: polled for up to `within`).
pub fn group_alive(pgid: i32, within: Duration) -> bool {
    let t = Instant::now();
    loop {
        // SAFETY: kill(2) with signal 0 only checks for the group's existence.
        let alive = unsafe { libc::kill(-pgid, 0) } == 0;
        if !alive || t.elapsed() > within {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills process group `pgid` (a test's clean-up of what a bad revision left behind).
pub fn kill_group(pgid: i32) {
    // SAFETY: kill(2) of a process group the test started (through the harness).
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// The process group id a hostile device wrote to `pidfile`, waiting up to `within` for it.
pub fn read_pgid(pidfile: &std::path::Path, within: Duration) -> Option<i32> {
    let t = Instant::now();
    while t.elapsed() < within {
        if let Ok(s) = std::fs::read_to_string(pidfile) {
            if let Ok(p) = s.trim().parse() {
                return Some(p);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}
