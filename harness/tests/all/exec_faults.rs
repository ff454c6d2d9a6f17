//! External devices that fail, through the device protocol: each fault the fault-injecting
//! device plants lands in its class with no case lost, a `kill -9` of the device mid-run loses
//! only the launch it was running, a partial device (the example Python adapter) is exact on its
//! ops and unsupported on the rest, and a run that compared no case says so everywhere and does
//! not pass.

use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use crate::common::exec::{adapter_cmd, fault_cmd, n, op, python, run};
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use std::time::Instant;

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
