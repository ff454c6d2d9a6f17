//! The device protocol end to end: the default suite through `serve-device --backend emu` (every
//! op exact, timed beside the direct emulated device, wave64 and gfx12 wave64 too), `serve-device`
//! spoken to by hand, the exec flags, `replay` and shrinking through an exec device, recordings
//! made through one, and the target an external device names checked against the selection.

use crate::common;
use crate::common::all_gfx12_ops_agree_in_wave64;
use crate::common::exec::{fault_cmd, n, op, python, repo, run, serve_cmd, BIN};
use crate::common::run_report;

use common::{code, ds_harness, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use serde_json::Value;
use std::time::Instant;

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

#[test]
fn run_gfx1200_wave64_through_serve_device_agrees_on_every_op() {
    let cmd = format!("'{BIN}' serve-device --backend emu --target gfx1200");
    let (code, err, r) = run_report(
        "g12w64-exec",
        &[
            "--backend",
            "exec",
            "--device-cmd",
            &cmd,
            "--target",
            "gfx1200",
            "--wave",
            "64",
            "--cases",
            "16",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(r["meta"]["backend"], "exec");
    all_gfx12_ops_agree_in_wave64(&r, "gfx1200", 16);
}

#[test]
fn serve_device_takes_the_buffer_file_and_the_results_say_how_the_buffers_travelled() {
    for (framing, transport) in [
        ("", "msgpack frames, buffers through a shared file"),
        ("file", "msgpack frames, buffers through a shared file"),
        ("msgpack", "msgpack frames"),
        ("json", "JSON lines"),
    ] {
        let dir = temp_dir(&format!("transport-{framing}"));
        let json = dir.join("r.json");
        let (j, o) = (json.to_str().unwrap(), dir.join("out"));
        let cmd = serve_cmd();
        let args = [
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            &cmd,
            "--op",
            "ds_add_rtn_u32",
            "--op",
            "ds_store_b64",
            "--cases",
            "200",
            "--json",
            j,
            "--out",
            o.to_str().unwrap(),
        ];
        let env: Vec<(&str, &str)> = match framing {
            "" => Vec::new(),
            f => vec![("DS_HARNESS_DEVICE_FRAMING", f)],
        };
        let out = common::ds_harness_env(&args, &env);
        assert_eq!(code(&out), 0, "{framing}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["totals"]["agree"], r["totals"]["cases"], "{framing}");
        assert_eq!(
            r["meta"]["device_details"]["device transport"], transport,
            "{framing}: {}",
            r["meta"]["device_details"]
        );
    }
}
