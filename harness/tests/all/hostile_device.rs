//! Hostile devices (issue 23): a device that stops reading its stdin, floods its stdout or
//! stderr, writes bytes that are not UTF-8, claims hardware in its details, names itself with
//! markup, escape sequences or 10,000 characters, starts slowly, or outlives a signal to the
//! harness. Each bounded: in time (the run ends, exit 3, within the time-out plus a few seconds),
//! in memory (a 200 MB line costs the harness no more than its bound), and in what it can write
//! into reports, recordings and the terminal. The devices are `hostile_device.py` in front of
//! `ds-harness serve-device`.

use crate::common;

use common::bounded::{group_alive, kill_group, read_pgid, run_bounded, Ran};
use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir, tool};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");

fn python() -> bool {
    tool(
        "python3",
        "install Debian's python3 (`apt-get install -y python3`)",
    )
}

/// The hostile device's command line: `flags` to `hostile_device.py` in front of
/// `serve-device --backend emu`.
fn hostile(flags: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile_device.py");
    format!(
        "python3 '{}' --serve \"'{BIN}' serve-device --backend emu\" {flags}",
        script.display()
    )
}

/// `ds-harness run --backend exec --device-cmd CMD ARGS --json DIR/r.json --out DIR/out`,
/// bounded by `limit`; the results JSON (or null).
fn run_exec(dir: &Path, cmd: &str, args: &[&str], limit: u64) -> (Ran, Value) {
    let json = dir.join("r.json");
    let out = dir.join("out");
    let mut all = vec![
        "run",
        "--backend",
        "exec",
        "--device-cmd",
        cmd,
        "--wave",
        "32",
    ];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let ran = run_bounded(&all, &[], b"", Duration::from_secs(limit));
    let r = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (ran, r)
}

/// Asserts that the device's process group is gone (and kills it if not, for the next test).
fn assert_gone(pidfile: &Path, what: &str) {
    let pgid = read_pgid(pidfile, Duration::from_secs(5)).expect("the device wrote its pgid");
    let alive = group_alive(pgid, Duration::from_secs(3));
    if alive {
        kill_group(pgid);
    }
    assert!(
        !alive,
        "{what}: the device's process group {pgid} is still running"
    );
}

#[test]
fn a_device_that_stops_reading_its_stdin_ends_within_the_time_out_with_exit_3() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-stop-reading");
    let pidfile = dir.join("pgid");
    // It answers hello, then reads nothing: the code object (megabytes) cannot be written.
    let cmd = hostile(&format!(
        "--stop-reading hello --pidfile '{}'",
        pidfile.display()
    ));
    let (ran, _) = run_exec(&dir, &cmd, &["--device-timeout", "2"], 60);
    assert_gone(&pidfile, "after the run");
    assert!(!ran.killed, "the harness hung: {}", ran.stderr);
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert!(ran.secs < 2.0 + 8.0, "{} s", ran.secs);
    // The stage and the limit are named; no restart is promised.
    assert!(
        ran.stderr.contains("no answer to the load") && ran.stderr.contains("--device-timeout"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("will be restarted"), "{}", ran.stderr);
}

#[test]
fn a_device_that_stops_reading_at_the_first_launch_is_given_up_after_three_time_outs() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-stop-launch");
    let pidfile = dir.join("pgid");
    // It loads, then reads no launch (a chunk of 1000 cases is megabytes): every launch times
    // out, every restart too.
    let cmd = hostile(&format!(
        "--stop-reading loaded --pidfile '{}'",
        pidfile.display()
    ));
    let (ran, r) = run_exec(
        &dir,
        &cmd,
        &[
            "--device-timeout",
            "1",
            "--op",
            "ds_add_u32",
            "--cases",
            "1000",
        ],
        60,
    );
    assert_gone(&pidfile, "after the run");
    assert!(!ran.killed, "the harness hung: {}", ran.stderr);
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("timed out 3 times in a row"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("before answering hello"),
        "{}",
        ran.stderr
    );
    assert_eq!(r["complete"], false, "{r}");
    assert!(ran.secs < 3.0 * (1.0 + 3.0), "{} s", ran.secs);
}

#[test]
fn a_slow_starting_device_is_given_up_with_words_on_where_start_up_work_belongs() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-slow-start");
    let pidfile = dir.join("pgid");
    let cmd = hostile(&format!(
        "--slow-launch 5 --pidfile '{}'",
        pidfile.display()
    ));
    let (ran, r) = run_exec(
        &dir,
        &cmd,
        &["--device-timeout", "1", "--op", "ds_add_u32"],
        90,
    );
    assert_gone(&pidfile, "after the run");
    assert!(!ran.killed, "never given up: {}", ran.stderr);
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("timed out 3 times in a row")
            && ran.stderr.contains("raise --device-timeout"),
        "{}",
        ran.stderr
    );
    assert_eq!(r["complete"], false);
}

#[test]
fn a_200_mb_stdout_line_and_a_200_mb_stderr_line_cost_the_harness_under_100_mb() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-big-line");
    let cmd = hostile("--big-line 209715200 --big-stderr 209715200");
    let (ran, r) = run_exec(&dir, &cmd, &["--op", "ds_add_u32", "--cases", "8"], 120);
    assert!(!ran.killed, "{}", ran.stderr);
    println!(
        "peak RSS of the harness facing a 200 MB stdout line and a 200 MB stderr line: {} KiB",
        ran.max_rss_kib
    );
    assert!(
        ran.max_rss_kib < 100 * 1024,
        "peak RSS {} KiB, bound 100 MiB",
        ran.max_rss_kib
    );
    // The launch that got the line is a protocol error naming the line's length (and so is the
    // first launch of every device process after it: each sends the line again); the run goes
    // on to its end.
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(r["complete"], true);
    let add = &r["ops"][0];
    let error = add["variants"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("device protocol error: stdout line")
            && error.contains("bytes) than the 1048576 bytes an answer to this launch can need"),
        "{error}"
    );
    assert_eq!(add["fidelity"]["protocol_error"], add["cases"], "{add}");
    // The stderr line is kept cut.
    let kept: usize = r["device_stderr"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().len())
        .max()
        .unwrap_or(0);
    assert!(kept < 2000, "a stderr line of {kept} bytes kept");
}

#[test]
fn stderr_that_is_not_utf8_is_kept_lossily_and_the_device_lives_on() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-bad-stderr");
    let (ran, r) = run_exec(
        &dir,
        &hostile("--bad-stderr"),
        &["--op", "ds_add_u32", "--op", "ds_sub_u32", "--cases", "40"],
        120,
    );
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    let lines: Vec<&str> = r["device_stderr"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("not utf-8") && l.contains('\u{fffd}')),
        "{lines:?}"
    );
    // Lines after the bad one were still read.
    assert!(
        lines.iter().any(|l| l.contains("request launch")),
        "{lines:?}"
    );
}

/// How long the harness may take to end after the signal (it kills the device's group at once).
const AFTER_SIGNAL: Duration = Duration::from_secs(60);

#[test]
fn a_signal_to_the_harness_ends_the_devices_process_group() {
    if !python() {
        return;
    }
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let dir = temp_dir(&format!("hostile-signal-{sig}"));
        let pidfile = dir.join("pgid");
        // A device that hangs in its first launch: it would never notice its stdin closing.
        let cmd = hostile(&format!(
            "--slow-launch 600 --pidfile '{}'",
            pidfile.display()
        ));
        let mut harness = std::process::Command::new(BIN);
        harness
            .args([
                "run",
                "--backend",
                "exec",
                "--op",
                "ds_add_u32",
                "--device-cmd",
                &cmd,
            ])
            .env_remove("DS_HARNESS_HIP_LIB")
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // The harness keeps a signal it was started with ignored (as `nohup` wants), and a suite
        // started in the background (`cargo test &` from a script) has SIGINT ignored: the harness
        // under test starts with the signals' default actions, whatever this process inherited.
        // SAFETY: between fork and exec only signal(2), which is async-signal-safe, is called.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut harness, || {
                for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                    libc::signal(s, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut child = harness.spawn().unwrap();
        let pgid = read_pgid(&pidfile, Duration::from_secs(30)).expect("the device started");
        std::thread::sleep(Duration::from_secs(2));
        let files = buffer_dirs(child.id());
        assert_eq!(
            files.len(),
            1,
            "the harness offered its device a buffer file"
        );
        // SAFETY: signals our own child.
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let deadline = std::time::Instant::now() + AFTER_SIGNAL;
        let st = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break Some(st);
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let alive = group_alive(pgid, Duration::from_secs(3));
        if alive {
            kill_group(pgid);
        }
        let st = st.unwrap_or_else(|| {
            panic!("signal {sig}: the harness still ran {AFTER_SIGNAL:?} after it")
        });
        assert!(!st.success(), "{st:?}");
        assert!(!alive, "signal {sig}: the device outlived the harness");
        assert!(
            files.iter().all(|d| !d.exists()),
            "signal {sig}: the buffer file's directory outlived the harness: {files:?}"
        );
    }
}

/// The buffer-file directories the harness of process `pid` made (under /dev/shm, or the
/// temporary directory where there is none).
fn buffer_dirs(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("ds-harness-{pid}-");
    [PathBuf::from("/dev/shm"), std::env::temp_dir()]
        .iter()
        .filter_map(|base| std::fs::read_dir(base).ok())
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// A run recording through a device named `name` with hello `details` (and `--hardware` when
/// `hardware`); its recordings root and results.
fn record_with(test: &str, name: &str, details: &str, hardware: bool) -> (PathBuf, Ran, Value) {
    let dir = temp_dir(test);
    let root = dir.join("rec");
    let flags = format!(
        "--name {} --details {}{}",
        shell_quote(name),
        shell_quote(details),
        if hardware { " --hardware" } else { "" }
    );
    let (ran, r) = run_exec(
        &dir,
        &hostile(&flags),
        &[
            "--op",
            "ds_store_b32",
            "--cases",
            "8",
            "--record",
            root.to_str().unwrap(),
            "--markdown",
            dir.join("r.md").to_str().unwrap(),
        ],
        120,
    );
    (root, ran, r)
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn a_device_cannot_claim_hardware_through_its_details() {
    if !python() {
        return;
    }
    let (root, ran, r) = record_with(
        "hostile-claim",
        "sneaky",
        r#"{"hardware": "true", "backend": "hip", "provenance": "real", "a\nb: c": "d"}"#,
        false,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let recs: Vec<_> = ds_harness::record::load_dir(&root)
        .into_iter()
        .map(|r| r.expect("the harness reads back what it wrote"))
        .collect();
    assert_eq!(recs.len(), 1);
    let rec = &recs[0];
    let dir = rec.path.parent().unwrap().file_name().unwrap();
    assert!(
        dir.to_str().unwrap().starts_with("emulated-exec-sneaky-"),
        "{dir:?}"
    );
    assert!(!rec.provenance.is_hardware());
    let keys: Vec<&str> = rec
        .provenance
        .pairs
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    for k in ["hardware", "backend", "provenance"] {
        assert!(
            keys.iter().filter(|x| **x == k).count() <= 1,
            "{k}: {keys:?}"
        );
    }
    assert_eq!(rec.provenance.get("hardware"), Some("false"));
    assert_eq!(rec.provenance.get("backend"), Some("exec"));
    assert!(keys.contains(&"device's hardware"), "{keys:?}");
    // The hello's details reach the results.
    assert_eq!(
        r["meta"]["device_details"]["device's hardware"], "true",
        "{}",
        r["meta"]
    );
}

#[test]
fn a_hardware_device_is_named_as_the_devices_own_word() {
    if !python() {
        return;
    }
    let (root, ran, _) = record_with("hostile-hw", "gpu box", "{}", true);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("hardware as reported by the device"),
        "{}",
        ran.stderr
    );
    let target = ds_isa::target::DEFAULT.name;
    assert!(root.join(target).is_dir());
    let md = std::fs::read_to_string(root.parent().unwrap().join("r.md")).unwrap();
    assert!(md.contains("hardware as reported by the device"), "{md}");
    let out = ds(&[
        "doc",
        "ds_store_b32",
        "--recordings",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("hardware as reported by the device"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn markup_escapes_and_a_10000_character_name_are_made_harmless() {
    if !python() {
        return;
    }
    let name = format!(
        "<img src=x onerror=alert(1)> <!-- \u{1b}[31mred\u{1b}]8;;http://x\u{7} \u{7} {}",
        "n".repeat(10_000)
    );
    let (root, ran, r) = record_with("hostile-name", &name, "{}", false);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for (what, text) in [("stderr", &ran.stderr), ("stdout", &ran.stdout)] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{what}: {text}"
        );
    }
    let device = r["meta"]["device"].as_str().unwrap();
    assert!(
        device.len() < 1000 && !device.contains('\u{1b}'),
        "{device}"
    );
    let md = std::fs::read_to_string(root.parent().unwrap().join("r.md")).unwrap();
    assert!(!md.contains("<img") && !md.contains("<!--"), "{md}");
    assert!(md.contains("&lt;img"), "{md}");
    // The recording directory's name is bounded; the recording reads back.
    let recs: Vec<_> = ds_harness::record::load_dir(&root)
        .into_iter()
        .map(|r| r.expect("readable"))
        .collect();
    let dir = recs[0].path.parent().unwrap().file_name().unwrap();
    assert!(dir.len() <= 100, "{dir:?}");
    let text = std::fs::read_to_string(&recs[0].path).unwrap();
    assert!(!text.contains('\u{1b}'), "the recording holds an escape");
    // The matrix of those results escapes it too.
    let m = ds(&[
        "matrix",
        root.parent().unwrap().join("r.json").to_str().unwrap(),
    ]);
    assert_eq!(code(&m), 0, "{}", stderr(&m));
    assert!(!stdout(&m).contains("<img") && !stdout(&m).contains("<!--"));
}

#[test]
fn a_device_error_message_of_100_kb_is_cut() {
    if !python() {
        return;
    }
    let dir = temp_dir("hostile-long-error");
    let (ran, r) = run_exec(
        &dir,
        &hostile("--error-message 100000"),
        &["--op", "ds_add_u32", "--cases", "8"],
        120,
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let e = r["ops"][0]["variants"][0]["error"].as_str().unwrap();
    assert!(
        e.len() < 3000 && e.contains("characters cut"),
        "{} bytes",
        e.len()
    );
    let row = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("ds_add_u32"))
        .unwrap();
    assert!(row.len() < 600, "{row}");
}

#[test]
fn an_unsupported_answer_names_the_instruction_and_its_row_says_unsupported() {
    if !python() {
        return;
    }
    // The bytes of ds_add_u32 v1, v2 (offset 0) as the gfx11 encoding has them.
    let bytes = {
        let inst = ds_isa::ds::DsInst::new(common::op("ds_add_u32"));
        let b = inst.to_bytes(ds_isa::target::DEFAULT.generation).unwrap();
        b.iter().map(|x| format!("{x:02x}")).collect::<String>()
    };
    let dir = temp_dir("hostile-unsupported");
    let (ran, r) = run_exec(
        &dir,
        &hostile(&format!("--unsupported {bytes}")),
        &["--op", "ds_add_u32", "--cases", "8", "--allow-unsupported"],
        120,
    );
    // Every case unsupported: allowed, but no case was compared, so the run does not pass.
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(r["totals"]["compared"], 0);
    let e = r["ops"][0]["variants"][0]["error"].as_str().unwrap();
    assert!(
        e.contains("at 0x10 in `ds_add_u32") && e.contains("= `ds_add_u32"),
        "{e}"
    );
    let row = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("ds_add_u32"))
        .unwrap();
    assert!(
        row.contains("  unsupported: ") && !row.contains("device error"),
        "{row}"
    );
}

#[test]
fn the_next_launch_goes_while_the_last_is_under_way_and_every_answer_finds_its_cases() {
    if !python() {
        return;
    }
    let dir = temp_dir("queued-launches");
    let log = dir.join("queue.log");
    let cmd = hostile(&format!("--queue-log '{}'", log.display()));
    let args = [
        "--op",
        "ds_add_rtn_u32",
        "--op",
        "ds_sub_u32",
        "--cases",
        "300",
    ];
    let (ran, r) = run_exec(&dir, &cmd, &args, 120);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    // Each answer was taken for its own launch: every case agrees, none lost.
    assert_eq!(
        r["totals"]["agree"], r["totals"]["cases"],
        "{}",
        r["totals"]
    );
    let counts: Vec<u32> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(counts.len() >= 3, "{counts:?}");
    // Launches went while the one before was under way, and never more than two at once.
    assert!(counts.contains(&2), "{counts:?}");
    assert!(counts.iter().all(|&c| (1..=2).contains(&c)), "{counts:?}");
}
