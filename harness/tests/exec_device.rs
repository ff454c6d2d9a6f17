//! The device protocol end to end: the default suite through `serve-device --backend emu`
//! (every op exact, timed beside the direct emulated device), the example Python adapter (a
//! partial device: its ops exact, every other op unsupported), the fault-injecting device (each
//! fault in its class, nothing lost, a `kill -9` of the child mid-run survived), and
//! `serve-device` spoken to by hand.

mod common;

use common::{code, ds_harness, ds_harness_no_env as ds, stderr, stdout, temp_dir, tool};
use ds_harness::fidelity::Class;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

fn serve_cmd() -> String {
    format!("'{BIN}' serve-device --backend emu")
}

fn fault_cmd(faults: &str) -> String {
    let script = repo().join("harness/tests/fault_device.py");
    format!(
        "python3 '{}' --serve \"{}\" {faults}",
        script.display(),
        serve_cmd()
    )
}

fn adapter_cmd() -> String {
    let script = repo().join("examples/device-adapter/adapter.py");
    format!(
        "python3 '{}' --target {} --ds-harness '{BIN}'",
        script.display(),
        ds_isa::target::DEFAULT.name
    )
}

fn python() -> bool {
    tool(
        "python3",
        "install Debian's python3 (`apt-get install -y python3`)",
    )
}

/// Runs `ds-harness run ARGS --json F --out D` and returns the output and the JSON results; in
/// wave32 unless ARGS name a wave size (these tests are about the protocol: a wave64 run through
/// it would double their time; one test runs it).
fn run(name: &str, args: &[&str]) -> (std::process::Output, Value) {
    let dir = temp_dir(name);
    let json = dir.join("r.json");
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    if !args.contains(&"--wave") {
        all.extend_from_slice(&["--wave", "32"]);
    }
    let (j, o) = (
        json.to_str().unwrap().to_string(),
        dir.join("out").to_str().unwrap().to_string(),
    );
    all.extend_from_slice(&["--json", &j, "--out", &o]);
    let out = ds(&all);
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out, serde_json::from_str(&text).expect("results JSON"))
}

fn op<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == name)
        .unwrap_or_else(|| panic!("{name} in the results"))
}

fn n(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}

#[test]
fn the_default_suite_through_serve_device_emu_agrees_on_every_op_as_the_direct_device_does() {
    let t0 = Instant::now();
    let (direct_out, direct) = run("exec-direct", &["--backend", "emu"]);
    let direct_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let (out, served) = run(
        "exec-served",
        &["--backend", "exec", "--device-cmd", &serve_cmd()],
    );
    let served_s = t1.elapsed().as_secs_f64();
    assert_eq!(code(&direct_out), 0, "{}", stderr(&direct_out));
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    println!(
        "default suite: direct emu {direct_s:.2} s, through serve-device {served_s:.2} s, \
         ratio {:.2}",
        served_s / direct_s
    );
    assert_eq!(served["meta"]["backend"], "exec");
    assert_eq!(served["totals"]["ops"], direct["totals"]["ops"]);
    assert_eq!(served["totals"]["disagree"], 0);
    assert_eq!(served["totals"]["errors"], 0);
    for (d, s) in direct["ops"]
        .as_array()
        .unwrap()
        .iter()
        .zip(served["ops"].as_array().unwrap())
    {
        assert_eq!(d["op"], s["op"]);
        for k in ["cases", "agree", "skipped", "choices", "fidelity"] {
            assert_eq!(d[k], s[k], "{} {k}", d["op"]);
        }
        let f = s["fidelity"].as_object().unwrap();
        assert!(
            f.keys().all(|k| k == "exact" || k == "not_modelled"),
            "{}: every case exact: {f:?}",
            s["op"]
        );
        assert_eq!(
            n(&f["exact"]) + n(&s["skipped"]),
            n(&s["cases"]),
            "{}",
            s["op"]
        );
    }
    let so = stdout(&out);
    assert!(
        so.lines()
            .any(|l| l.starts_with("ds_add_u32 ") && l.contains(" exact ")),
        "{so}"
    );
}

#[test]
fn each_injected_fault_lands_in_its_class_and_no_case_is_lost() {
    if !python() {
        return;
    }
    // One variant of ds_rsub_u32 hangs: a device that times out on every launch in a row is
    // given up (exit 3; `a_device_that_times_out_again_and_again_is_given_up`).
    let faults = "--flip ds_add_u32 --crash ds_sub_u32 --hang-kernel ds_rsub_u32_o8_ \
                  --garbage ds_inc_u32 --short ds_dec_u32";
    let ops = [
        "ds_add_u32",
        "ds_sub_u32",
        "ds_rsub_u32",
        "ds_inc_u32",
        "ds_dec_u32",
        "ds_min_u32",
    ];
    let mut args = vec![
        "--backend",
        "exec",
        "--device-timeout",
        "1",
        "--cases",
        "40",
    ];
    for o in &ops {
        args.extend_from_slice(&["--op", o]);
    }
    let cmd = fault_cmd(faults);
    args.extend_from_slice(&["--device-cmd", &cmd]);
    let (out, r) = run("exec-faults", &args);
    let so = stdout(&out);
    assert_eq!(code(&out), 1, "{so}\n{}", stderr(&out));
    assert_eq!(n(&r["totals"]["ops"]), 6);
    for o in r["ops"].as_array().unwrap() {
        let sum = n(&o["agree"]) + n(&o["disagree"]) + n(&o["skipped"]) + n(&o["errors"]);
        assert_eq!(sum, n(&o["cases"]), "{}: every case is counted", o["op"]);
        let classes: u64 = o["fidelity"].as_object().unwrap().values().map(n).sum();
        assert_eq!(
            classes,
            n(&o["cases"]),
            "{}: every case in one class",
            o["op"]
        );
    }
    // A flipped bit is a mismatch on lane 0, every other case agrees.
    let flip = op(&r, "ds_add_u32");
    assert!(n(&flip["disagree"]) > 0);
    assert_eq!(n(&flip["errors"]), 0);
    assert_eq!(flip["fidelity"]["mismatch"], flip["disagree"]);
    assert_eq!(n(&flip["fidelity"]["exact"]), n(&flip["agree"]));
    let first = &flip["mismatches"][0]["differences"][0];
    assert_eq!(
        (first["where"].as_str(), first["lane"].as_u64()),
        (Some("vdst"), Some(0))
    );
    assert_eq!(n(&first["model"]) ^ n(&first["device"]), 1);
    // The hanging variant's cases timed out, the others agree.
    let rsub = op(&r, "ds_rsub_u32");
    assert_eq!(rsub["fidelity"]["timed_out"], rsub["errors"], "{rsub}");
    for v in rsub["variants"].as_array().unwrap() {
        match v["error"].as_str() {
            Some(e) => {
                assert_eq!(v["tag"], "o8", "{v}");
                assert!(
                    e.starts_with("kernel timed out: no answer to the launch of `ds_rsub_u32_o8"),
                    "{e}"
                );
                assert!(
                    e.contains("(--device-timeout)") && !e.contains("restart"),
                    "{e}"
                );
            }
            None => assert_eq!(v["agree"], v["cases"], "{v}"),
        }
    }
    assert!(n(&rsub["errors"]) > 0 && n(&rsub["agree"]) > 0, "{rsub}");
    for (name, key, class) in [
        ("ds_sub_u32", "crashed", "device crashed"),
        (
            "ds_inc_u32",
            "protocol_error",
            "device protocol error: stdout line",
        ),
        (
            "ds_dec_u32",
            "protocol_error",
            "device protocol error: output buffer",
        ),
    ] {
        let o = op(&r, name);
        assert_eq!(n(&o["errors"]), n(&o["cases"]), "{name}");
        assert_eq!(o["fidelity"][key], o["cases"], "{name}: {}", o["fidelity"]);
        for v in o["variants"].as_array().unwrap() {
            let e = v["error"].as_str().unwrap_or_default();
            assert!(e.starts_with(class), "{name}: {e}");
        }
    }
    // The crash message carries the child's stderr.
    let crash = op(&r, "ds_sub_u32")["variants"][0]["error"]
        .as_str()
        .unwrap();
    assert!(
        crash.contains("fault device: crashing on ds_sub_u32"),
        "{crash}"
    );
    assert!(
        crash.contains("exit status 134") || crash.contains("signal 6"),
        "{crash}"
    );
    // The device after each fault is a new one, and it answers: the clean op agrees throughout.
    let clean = op(&r, "ds_min_u32");
    assert_eq!(n(&clean["agree"]), n(&clean["cases"]));
}

#[test]
fn a_kill_9_of_the_device_mid_run_loses_only_the_launch_it_was_running() {
    if !python() {
        return;
    }
    let dir = temp_dir("exec-kill");
    let pidfile = dir.join("pid");
    let cmd = fault_cmd(&format!("--pause-once '{}'", pidfile.display()));
    let killer = {
        let pidfile = pidfile.clone();
        std::thread::spawn(move || {
            let t = Instant::now();
            while !pidfile.exists() {
                assert!(t.elapsed().as_secs() < 60, "the device never paused");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let pid = std::fs::read_to_string(&pidfile).unwrap();
            let st = std::process::Command::new("kill")
                .args(["-9", pid.trim()])
                .status()
                .unwrap();
            assert!(st.success());
        })
    };
    let (out, r) = run(
        "exec-kill-run",
        &[
            "--backend",
            "exec",
            "--op",
            "ds_add_u32",
            "--op",
            "ds_sub_u32",
            "--device-cmd",
            &cmd,
        ],
    );
    killer.join().unwrap();
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(r["complete"], true);
    let add = op(&r, "ds_add_u32");
    let lost = &add["variants"][0];
    assert!(
        lost["error"]
            .as_str()
            .unwrap()
            .contains("killed by signal 9")
            || lost["error"].as_str().unwrap().contains("exit status 137"),
        "{lost}"
    );
    assert_eq!(
        n(&add["errors"]),
        n(&lost["cases"]),
        "only the killed launch"
    );
    assert_eq!(add["fidelity"]["crashed"], lost["cases"]);
    assert_eq!(n(&add["agree"]) + n(&add["errors"]), n(&add["cases"]));
    let sub = op(&r, "ds_sub_u32");
    assert_eq!(n(&sub["agree"]), n(&sub["cases"]), "the run went on");
}

#[test]
fn the_python_adapter_runs_its_b32_loads_and_stores_exactly_and_reports_the_rest_unsupported() {
    if !python() {
        return;
    }
    let cmd = adapter_cmd();
    let args = [
        "--backend",
        "exec",
        "--op",
        "ds_*_b32",
        "--device-cmd",
        &cmd,
    ];
    let (out, r) = run("exec-adapter", &args);
    // Unsupported cases fail the run unless it allows them.
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("--allow-unsupported to count them apart"));
    let mut allowed = args.to_vec();
    allowed.push("--allow-unsupported");
    let (out, r2) = run("exec-adapter-allowed", &allowed);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(r2["meta"]["allow_unsupported"], true);
    assert_eq!(r["fidelity"], r2["fidelity"], "the same cases either way");
    assert!(stdout(&out).contains("unsupported (allowed, counted apart)"));
    assert!(n(&r["totals"]["ops"]) > 10);
    assert_eq!(r["totals"]["errors"], 0);
    assert_eq!(
        r["meta"]["device_version"],
        "examples/device-adapter/adapter.py 1"
    );
    for o in r["ops"].as_array().unwrap() {
        let name = o["op"].as_str().unwrap();
        if name == "ds_load_b32" || name == "ds_store_b32" {
            // Exact on every kernel it runs; the variants whose operands share a register
            // (the aliasing corpus) are reported unsupported, in words.
            for v in o["variants"].as_array().unwrap() {
                match v["error"].as_str() {
                    None => assert_eq!(v["agree"], v["cases"], "{name}: {v}"),
                    Some(e) => assert!(e.contains("register aliasing"), "{name}: {e}"),
                }
            }
            let exact = n(&o["fidelity"]["exact"]);
            assert!(exact > 0, "{name}: {o}");
            assert_eq!(exact + n(&o["unsupported"]), n(&o["cases"]), "{name}: {o}");
            assert_eq!(o["disagree"], 0, "{name}");
            continue;
        }
        assert_eq!(n(&o["unsupported"]), n(&o["cases"]), "{name}");
        assert_eq!(o["fidelity"]["unsupported"], o["cases"], "{name}");
        for v in o["variants"].as_array().unwrap() {
            let e = v["error"].as_str().unwrap();
            assert!(e.starts_with("unsupported by the device: "), "{name}: {e}");
            assert!(e.contains(name), "{name}: names the instruction: {e}");
        }
    }
}

#[test]
fn serve_device_answers_hello_load_errors_and_shutdown_line_by_line() {
    let hello = r#"{"type":"hello","id":1,"protocol":1,"harness":"by hand"}"#;
    let input = format!(
        "{hello}\nnot json\n{}\n{}\n{}\n",
        r#"{"type":"load","id":2,"code_object":"f0VMRg=="}"#,
        r#"{"type":"launch","id":3,"module":9,"kernel":"k","workgroups":1,"workgroup_size":32,"dynamic_lds":0,"buffers":[]}"#,
        r#"{"type":"shutdown","id":4}"#
    );
    let out = ds_harness(&["serve-device"], &input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is a protocol message"))
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["type"], "hello");
    assert_eq!(lines[0]["protocol"], 1);
    assert_eq!(lines[0]["hardware"], false);
    assert_eq!(lines[0]["target"], ds_isa::target::DEFAULT.name);
    // Each answer's type and id, in order: the bad line has no id to answer.
    let kinds: Vec<(&str, &Value)> = lines
        .iter()
        .map(|l| (l["type"].as_str().unwrap_or_default(), &l["id"]))
        .collect();
    assert_eq!(
        kinds[1..],
        [
            ("error", &Value::Null),
            ("error", &2.into()),
            ("error", &3.into()),
            ("bye", &4.into()),
        ]
    );
    assert!(lines[1]["message"]
        .as_str()
        .unwrap()
        .contains("stdin line 2"));
    assert!(lines[3]["message"]
        .as_str()
        .unwrap()
        .contains("never loaded"));
}

#[test]
fn exec_flags_are_checked_and_a_device_that_cannot_start_is_exit_3() {
    let out = ds(&["run", "--backend", "exec", "--op", "ds_add_u32"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--device-cmd"), "{}", stderr(&out));
    let out = ds(&["run", "--backend", "emu", "--device-cmd", "x"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--backend exec"), "{}", stderr(&out));
    for (cmd, says) in [
        ("exit 7", "did not say hello"),
        (
            r#"read l; echo '{"type":"hello","id":1,"protocol":99,"device":"d","target":"t","version":"v"}'"#,
            "speaks device protocol 99",
        ),
        (
            r#"read l; echo '{"type":"hello","id":1,"protocol":1,"device":"d","target":"not-a-target","version":"v"}'"#,
            "says it runs unknown target `not-a-target`",
        ),
    ] {
        let out = ds(&[
            "run",
            "--backend",
            "exec",
            "--op",
            "ds_add_u32",
            "--device-cmd",
            cmd,
        ]);
        assert_eq!(code(&out), 3, "{cmd}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{cmd}: {}", stderr(&out));
    }
}

#[test]
fn replay_runs_a_case_through_an_exec_device() {
    // A mismatching case from the fault device, replayed on the clean served device: it agrees.
    if !python() {
        return;
    }
    let (_, r) = run(
        "exec-replay",
        &[
            "--backend",
            "exec",
            "--op",
            "ds_add_u32",
            "--cases",
            "10",
            "--device-cmd",
            &fault_cmd("--flip ds_add_u32"),
        ],
    );
    let path = op(&r, "ds_add_u32")["mismatches"][0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let out = ds(&[
        "replay",
        &path,
        "--backend",
        "exec",
        "--device-cmd",
        &serve_cmd(),
    ]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    let out = ds(&[
        "replay",
        &path,
        "--backend",
        "exec",
        "--device-cmd",
        &fault_cmd("--flip ds_add_u32"),
    ]);
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), stderr(&out));
}

#[test]
fn a_mismatch_shrinks_through_an_exec_device_and_its_replay_command_names_the_device() {
    // The fault device flips bit 0 of lane 0's result: shrinking runs its candidates through the
    // same exec device, and the minimal case's replay command carries `--device-cmd`, so running
    // that command as printed reproduces the mismatch.
    if !python() {
        return;
    }
    let cmd = fault_cmd("--flip ds_add_u32");
    let args = [
        "--backend",
        "exec",
        "--op",
        "ds_add_u32",
        "--cases",
        "10",
        "--device-cmd",
        &cmd,
    ];
    let (out, _) = run("exec-shrink", &args);
    let so = stdout(&out);
    assert_eq!(code(&out), 1, "{so}\n{}", stderr(&out));
    let shrunk = so.split("SHRUNK ").nth(1).unwrap_or_else(|| panic!("{so}"));
    assert!(shrunk.contains("1 active lanes"), "{shrunk}");
    let replay = shrunk
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("{shrunk}"));
    assert!(replay.contains(".min/case.json"), "{replay}");
    assert!(replay.contains("--backend exec --device-cmd '"), "{replay}");
    let line = replay.replacen("ds-harness", &format!("'{BIN}'"), 1);
    let out = std::process::Command::new("sh")
        .args(["-c", &line])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{line}\n{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("DISAGREE"), "{}", stdout(&out));
}

#[test]
fn a_matrix_of_the_served_emulator_the_python_adapter_and_the_fault_device() {
    if !python() {
        return;
    }
    let ops = [
        "ds_add_u32",
        "ds_sub_u32",
        "ds_rsub_u32",
        "ds_inc_u32",
        "ds_store_b32",
        "ds_load_b32",
    ];
    let mut base = vec!["--backend", "exec", "--cases", "40"];
    for o in &ops {
        base.extend_from_slice(&["--op", o]);
    }
    // (name, command, launch timeout, exit status with --allow-unsupported)
    let devices = [
        ("matrix-emu", serve_cmd(), "60", 0),
        ("matrix-adapter", adapter_cmd(), "60", 0),
        (
            "matrix-faults",
            fault_cmd(
                "--flip ds_add_u32 --crash ds_sub_u32 --hang-kernel ds_rsub_u32_o8_ \
                 --garbage ds_inc_u32",
            ),
            "1",
            1,
        ),
    ];
    let dir = temp_dir("exec-matrix");
    let mut files = Vec::new();
    for (name, cmd, timeout, status) in &devices {
        let mut args = base.clone();
        args.extend_from_slice(&["--allow-unsupported", "--device-timeout", timeout]);
        args.extend_from_slice(&["--device-cmd", cmd]);
        let (out, r) = run(name, &args);
        assert_eq!(
            code(&out),
            *status,
            "{name}: {}\n{}",
            stdout(&out),
            stderr(&out)
        );
        let f = dir.join(format!("{name}.json"));
        std::fs::write(&f, r.to_string()).unwrap();
        files.push(f.display().to_string());
    }
    let (md, svg) = (dir.join("matrix.md"), dir.join("matrix.svg"));
    let mut args = vec!["matrix".to_string()];
    args.extend(files.iter().cloned());
    args.extend([
        "--markdown".into(),
        md.display().to_string(),
        "--svg".into(),
        svg.display().to_string(),
    ]);
    let out = ds(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let md = std::fs::read_to_string(md).unwrap();
    println!("{md}");
    let row = |op: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| `{op}` |")))
            .unwrap_or_else(|| panic!("{op} row in {md}"))
            .to_string()
    };
    assert!(
        row("ds_add_u32").contains("| exact 40 | unsupported 40 | **mismatch**"),
        "{md}"
    );
    assert!(
        row("ds_sub_u32").ends_with("| exact 40 | unsupported 40 | crashed 40 |"),
        "{md}"
    );
    assert!(
        row("ds_rsub_u32").contains("| unsupported 40 | **timed out** (timed out "),
        "{md}"
    );
    assert!(
        row("ds_inc_u32").ends_with("| unsupported 40 | protocol error 40 |"),
        "{md}"
    );
    let store = row("ds_store_b32");
    assert!(store.starts_with("| `ds_store_b32` | exact 40 |"), "{md}");
    assert!(store.ends_with("| exact 40 |"), "{md}");
    assert!(
        store.contains("exact 3") || store.contains("exact 40 | exact 40"),
        "{md}"
    );
    assert!(!store.contains("mismatch"), "{md}");
    assert!(
        md.contains("example adapter: b32 loads and stores only"),
        "{md}"
    );
    assert!(
        md.contains("(gfx1100, examples/device-adapter/adapter.py 1)"),
        "{md}"
    );
    let svg = std::fs::read_to_string(svg).unwrap();
    let cells = common::svg::check_svg(
        &svg,
        &dir.join("matrix.png"),
        &[
            ("ds_add_u32", 0, Class::Exact),
            ("ds_add_u32", 1, Class::Unsupported),
            ("ds_add_u32", 2, Class::Mismatch),
            ("ds_sub_u32", 2, Class::Crashed),
            ("ds_rsub_u32", 2, Class::TimedOut),
            ("ds_inc_u32", 2, Class::ProtocolError),
            ("ds_load_b32", 2, Class::Exact),
        ],
    );
    assert_eq!(cells, ops.len() * devices.len());
}

#[test]
fn record_through_serve_device_writes_what_the_emulated_fixture_holds_under_an_emulated_name() {
    let dir = temp_dir("exec-record");
    let root = dir.join("rec");
    std::fs::create_dir_all(&root).unwrap();
    let (out, _) = run(
        "exec-record-run",
        &[
            "--backend",
            "exec",
            "--op",
            "ds_store_b32",
            "--cases",
            "8",
            "--record",
            root.to_str().unwrap(),
            "--device-cmd",
            &serve_cmd(),
        ],
    );
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    let recs: Vec<_> = ds_harness::record::load_dir(&root)
        .into_iter()
        .map(|r| r.expect("a readable recording with honest provenance"))
        .collect();
    assert_eq!(recs.len(), 1);
    let rec = &recs[0];
    let dir_name = rec.path.parent().unwrap().file_name().unwrap();
    assert!(
        dir_name.to_str().unwrap().starts_with("emulated-exec-"),
        "{dir_name:?}"
    );
    assert_eq!(rec.provenance.backend(), "exec");
    assert!(!rec.provenance.is_hardware());
    let fixture = repo().join("snapshots/hardware/emulated-gfx1100/ds_store_b32.txt");
    let fixture = ds_harness::record::read(&fixture).unwrap();
    assert_eq!(
        rec.entries, fixture.entries,
        "the same outcomes as emu in process"
    );
}

#[test]
fn wave64_kernels_run_through_the_protocol_on_serve_device_and_agree() {
    let (out, r) = run(
        "exec-wave64",
        &[
            "--backend",
            "exec",
            "--wave",
            "64",
            "--op",
            "ds_bpermute_b32",
            "--op",
            "ds_append",
            "--cases",
            "20",
            "--device-cmd",
            &serve_cmd(),
        ],
    );
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(r["meta"]["waves"], serde_json::json!([64]));
    for o in r["ops"].as_array().unwrap() {
        assert_eq!(o["wave"], 64);
        assert_eq!(o["agree"], o["cases"], "{o}");
    }
}

/// A device that runs nothing does not pass (issue 33 H2): with `--allow-unsupported`, a run of an
/// op the adapter answers `unsupported` on every case compared no case, and every output says so
/// (the summary, the markdown headline never "All agree", the JSON's `compared`, a failing JUnit
/// test, `ds-harness questions` on its results), and it exits 1.
#[test]
fn a_run_that_compared_no_case_says_so_everywhere_and_does_not_pass() {
    if !python() {
        return;
    }
    let dir = temp_dir("nothing-compared");
    let (md, junit) = (dir.join("s.md"), dir.join("j.xml"));
    let cmd = adapter_cmd();
    let args = [
        "--backend",
        "exec",
        "--op",
        "ds_add_u32",
        "--device-cmd",
        &cmd,
        "--allow-unsupported",
        "--markdown",
        md.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ];
    let (out, r) = run("nothing-compared-run", &args);
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("no case was compared with the model"),
        "{}",
        stdout(&out)
    );
    assert_eq!(r["totals"]["compared"], 0, "{}", r["totals"]);
    assert!(n(&r["totals"]["unsupported"]) > 0);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.starts_with("**No case compared**"), "{md}");
    assert!(!md.contains("agree**"), "{md}");
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(
        junit.contains("type=\"nothing-compared\"") && junit.contains("failures=\"1\""),
        "{junit}"
    );
    // `questions` on these results says they show nothing, and calls no case agreement.
    let json = dir.join("r.json");
    std::fs::write(&json, r.to_string()).unwrap();
    let out = ds(&["questions", json.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("no case was compared with the model: 0 of ")
            && text.contains("show nothing about any question"),
        "{text}"
    );
    assert!(!text.contains("agreed with"), "{text}");
}

/// Without `--target`, an external device's selection is checked against the target the device
/// names in its hello, not the default target (issue 33 M3: `ssh mi300 ds-harness
/// serve-device` with `--op ds_pk_add_f16` was refused before the device said it is a gfx942);
/// an op that device lacks is still refused, naming it.
#[test]
fn an_external_devices_selection_is_checked_against_the_target_it_names() {
    let dir = temp_dir("exec-own-target");
    let served = |t: &str| format!("'{BIN}' serve-device --backend emu --target {t}");
    let run = |cmd: &str| {
        ds(&[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            cmd,
            "--op",
            "ds_pk_add_f16",
            "--cases",
            "4",
            "--out",
            dir.join("out").to_str().unwrap(),
        ])
    };
    let o = run(&served("gfx942"));
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("ds_pk_add_f16"), "{}", stdout(&o));
    let o = run(&served("gfx1100"));
    assert_eq!(code(&o), 2, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("gfx11"), "{}", stderr(&o));
}

/// A target in HIP's `gcnArchName` form (`gfx942:sramecc+:xnack-`) is read where a target is
/// named (issue 33 L4): a device's hello, a case file, `--target`; a feature the processor does
/// not have is refused, naming the form.
#[test]
fn a_target_in_hips_gcn_arch_name_form_is_read_with_its_features_checked() {
    if !python() {
        return;
    }
    let dir = temp_dir("target-id");
    let script = repo().join("harness/tests/hostile_device.py");
    let device = |id: &str| {
        format!(
            "python3 '{}' --serve \"'{BIN}' serve-device --backend emu --target gfx942\" \
             --hello-target '{id}'",
            script.display()
        )
    };
    let run = |cmd: &str| {
        ds(&[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            cmd,
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
            "--out",
            dir.join("out").to_str().unwrap(),
        ])
    };
    let o = run(&device("gfx942:sramecc+:xnack-"));
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("target gfx942"), "{}", stdout(&o));
    let o = run(&device("gfx942:tgsplit+"));
    assert_eq!(code(&o), 3, "{}\n{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("`tgsplit+` is not a target-id feature"),
        "{}",
        stderr(&o)
    );
    // A case file and --target in that form.
    let case = dir.join("c.json");
    let o = ds(&[
        "kernel",
        "ds_add_u32",
        "--target",
        "gfx90a:xnack+",
        "--listing",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let gfx942 = ds_isa::target::Target::by_name("gfx942").unwrap();
    let wave = ds_reference::wave::WaveSize::Wave64;
    let plan = &ds_harness::corpus::plan_for(common::op("ds_add_u32"), 1, 1, wave, gfx942)[0];
    let text = ds_harness::case::CaseFile::new("c", 1, gfx942, plan.variant, plan.case(0))
        .to_json()
        .replace(
            "\"target\": \"gfx942\"",
            "\"target\": \"gfx942:sramecc+:xnack-\"",
        );
    std::fs::write(&case, text).unwrap();
    let o = ds(&["eval", case.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"target\": \"gfx942\""),
        "{}",
        stdout(&o)
    );
}

/// `replay` without `--target` names the case file's target as the case file's, never as a
/// `--target` the user did not give (the residue of issue 33): a device of another target is
/// refused saying so, and `--backend auto`'s reason cites the case file.
#[test]
fn replay_cites_the_case_files_target_not_a_target_flag_never_given() {
    let dir = temp_dir("replay-cite");
    let gfx942 = ds_isa::target::Target::by_name("gfx942").unwrap();
    let wave = ds_reference::wave::WaveSize::Wave64;
    let plan = &ds_harness::corpus::plan_for(common::op("ds_add_u32"), 1, 1, wave, gfx942)[0];
    let case = dir.join("c.json");
    ds_harness::case::CaseFile::new("c", 1, gfx942, plan.variant, plan.case(0))
        .write(&case)
        .unwrap();
    let cmd = format!("'{BIN}' serve-device --backend emu --target gfx1100");
    let o = ds(&[
        "replay",
        case.to_str().unwrap(),
        "--backend",
        "exec",
        "--device-cmd",
        &cmd,
    ]);
    let e = stderr(&o);
    assert_eq!(code(&o), 2, "{e}");
    assert!(e.contains("the case file is of gfx942"), "{e}");
    assert!(
        !e.contains("--target asks") && !e.contains("--target gfx942"),
        "{e}"
    );
    let Some(lib) = common::standin_lib() else {
        return;
    };
    let o = common::ds_harness_env(
        &["replay", case.to_str().unwrap()],
        &[
            ("DS_HARNESS_HIP_LIB", &lib),
            ("DS_HARNESS_HIP_SEARCH", "only-env"),
        ],
    );
    let e = stderr(&o);
    assert_eq!(code(&o), 0, "{e}");
    assert!(e.contains("the case file's target gfx942"), "{e}");
    assert!(!e.contains("--target gfx942"), "{e}");
}

/// A device that answers a launch under another request's id is a protocol error whose message
/// gives the ids as numbers, never as Rust's `Some(1005)` (the residue of issue 33).
#[test]
fn an_answer_to_another_request_names_both_ids_as_numbers() {
    if !python() {
        return;
    }
    let cmd = fault_cmd("--wrong-id ds_add_u32");
    let (_, r) = run(
        "exec-wrong-id",
        &[
            "--backend",
            "exec",
            "--op",
            "ds_add_u32",
            "--cases",
            "4",
            "--device-cmd",
            &cmd,
        ],
    );
    let text = r.to_string();
    assert!(n(&r["fidelity"]["protocol_error"]) > 0, "{}", r["fidelity"]);
    assert!(text.contains("answers request "), "{text}");
    assert!(!text.contains("Some("), "{text}");
}
