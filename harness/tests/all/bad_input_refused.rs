//! Bad input is refused before any work, exit 2, naming the problem and the fix: numbers out of
//! range, unknown ops (with suggestions) and op globs that match nothing runnable, bad shard
//! specs, inputs that never end (at their ceiling), HIP overrides that cannot be honoured (a
//! library that does not load, a device that is not there, a bad time-out).

use crate::common;
use crate::common::ds_harness_env as ds_env;
use crate::common::refused;
use crate::common::s;
use crate::common::sample_case_json;
use crate::common::write_case;

use common::bounded::run_bounded;
use common::{code, ds_harness_env, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use std::time::Duration;

#[test]
fn numbers_out_of_range_are_usage_errors_naming_the_range() {
    refused(
        &[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            "x",
            "--device-timeout",
            "1e300",
        ],
        "to 604800",
    );
    refused(
        &[
            "run",
            "--backend",
            "emu",
            "--duration",
            "18446744073709551615",
        ],
        "longest time budget",
    );
    refused(
        &["run", "--backend", "emu", "--jobs", "100000"],
        "--jobs 100000: at most",
    );
    // Limits said by the harness, not by the argument parser (issue 33 L12).
    for (args, says) in [
        (
            vec!["--shard", "1/18446744073709551615"],
            "--shard 1/18446744073709551615: at most 4294967295 shards",
        ),
        (
            vec!["--cases", "18446744073709551615"],
            "`18446744073709551615` is more than 4294967295",
        ),
        (vec!["--cases", "0"], "`0` is 0; at least 1 is needed"),
        (
            vec!["--jobs=x3"],
            "`x3` is not a whole number (from 1 to 4294967295)",
        ),
    ] {
        let mut all = vec!["run", "--backend", "emu"];
        all.extend(args);
        let o = ds(&all);
        assert_eq!(code(&o), 2, "{all:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("target type"), "{}", stderr(&o));
    }
    let o = ds_harness_env(
        &["run", "--backend", "auto", "--op", "ds_add_u32"],
        &[("DS_HARNESS_HIP_TIMEOUT", "1e300")],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("to 604800"), "{}", stderr(&o));
}

#[test]
fn inputs_that_never_end_are_refused_at_their_ceiling() {
    // Bounded: a revision that reads /dev/zero to the end runs out of its address space.
    for args in [
        &["merge", "/dev/zero", "/dev/zero"][..],
        &["matrix", "/dev/zero"],
        &["eval", "/dev/zero"],
        &["replay", "/dev/zero", "--backend", "emu"],
    ] {
        let ran = run_bounded(args, &[], b"", Duration::from_secs(60));
        assert!(!ran.killed, "{args:?} did not end");
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("larger than"),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

#[test]
fn an_unknown_op_is_usage_error_with_suggestions() {
    let out = ds(&["run", "--backend", "emu", "--op", "ds_add_u3"]);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(e.contains("--op ds_add_u3: no DS op matches"), "{e}");
    assert!(e.contains("did you mean ds_add_u32"), "{e}");
    let out = ds(&["run", "--backend", "emu", "--op", "ds_gws_init"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("ds-harness does not run (global wave sync needs GWS"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_bad_shard_spec_is_a_usage_error() {
    for spec in ["0/2", "3/2", "2", "a/b", "1/0"] {
        let out = ds(&["run", "--backend", "emu", "--shard", spec]);
        assert_eq!(code(&out), 2, "{spec}");
        assert!(
            stderr(&out).contains(&format!("--shard {spec}: expected K/N")),
            "{}",
            stderr(&out)
        );
    }
    let out = ds(&["run", "--backend", "emu", "--cases", "0"]);
    assert_eq!(code(&out), 2);
}

// Finding 2: a DS_HARNESS_HIP_LIB that does not load is an error naming it, never a silent
// substitute (this machine has Debian's libamdhip64-5, which would otherwise load).
#[test]
fn a_hip_lib_override_that_does_not_load_is_an_error_naming_it() {
    let dir = temp_dir("safety-override");
    let out_dir = dir.join("out");
    for lib in ["/nonexistent/libamdhip64.so", "/etc/passwd", "libz.so.1"] {
        let env = [("DS_HARNESS_HIP_LIB", lib)];
        let info = ds_env(&["info"], &env);
        let (so, se) = (stdout(&info), stderr(&info));
        assert_eq!(code(&info), 3, "info with {lib}: {so}{se}");
        assert!(
            so.contains(&format!("DS_HARNESS_HIP_LIB: {lib}: NOT loaded")),
            "{so}"
        );
        assert!(!so.contains("HIP library: libamdhip64"), "{so}");
        let json = ds_env(&["info", "--json"], &env);
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(v["override_lib"]["path"], lib);
        assert_eq!(v["override_lib"]["loaded"], false);
        assert!(v["library"].is_null(), "{v}");
        for backend in ["auto", "hip"] {
            let run = ds_env(
                &[
                    "run",
                    "--backend",
                    backend,
                    "--op",
                    "ds_add_u32",
                    "--cases",
                    "2",
                    "--out",
                    s(&out_dir),
                ],
                &env,
            );
            let se = stderr(&run);
            assert_eq!(code(&run), 3, "run --backend {backend} with {lib}: {se}");
            assert!(se.contains(&format!("DS_HARNESS_HIP_LIB={lib}")), "{se}");
            assert!(!se.contains("backend: emu"), "no silent emulated run: {se}");
        }
    }
}

#[test]
fn a_hip_lib_override_that_loads_is_shown_by_info() {
    let Some(lib) = common::standin_lib() else {
        return;
    };
    let info = ds_env(&["info", "--json"], &[("DS_HARNESS_HIP_LIB", &lib)]);
    assert_eq!(code(&info), 0, "{}", stderr(&info));
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["override_lib"]["loaded"], true);
    assert!(v["override_lib"]["error"].is_null());
    assert!(
        v["library"]["path"].as_str().unwrap().starts_with(&lib),
        "{v}"
    );
}

// Finding 8: an explicit --device that cannot be honoured is an error, not an emulated run.
#[test]
fn an_explicit_device_that_cannot_be_honoured_is_an_error() {
    let dir = temp_dir("safety-device");
    let base = ["--op", "ds_add_u32", "--cases", "2", "--out", s(&dir)];
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut a = vec!["run"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&base);
        ds_env(&a, env)
    };
    // No GPU here: device 5 does not exist.
    let out = run(&["--device", "5"], &[]);
    let se = stderr(&out);
    assert_eq!(code(&out), 3, "{se}");
    assert!(
        se.contains("--device 5") && se.contains("no device 5"),
        "{se}"
    );
    assert!(!se.contains("backend: emu"), "{se}");
    // --device means nothing to the emulated device.
    let out = run(&["--backend", "emu", "--device", "0"], &[]);
    let se = stderr(&out);
    assert_eq!(code(&out), 2, "{se}");
    assert!(
        se.contains("--device 0") && se.contains("--backend emu"),
        "{se}"
    );
    // Through the stand-in: device 1 claims another arch; asking for it is refused.
    if let Some(lib) = common::standin_lib() {
        let out = run(&["--device", "1"], &[("DS_HARNESS_HIP_LIB", &lib)]);
        let se = stderr(&out);
        assert_eq!(code(&out), 3, "{se}");
        assert!(
            se.contains("HIP device 1") && se.contains("not usable"),
            "{se}"
        );
    }
}

// Finding 7: a bad DS_HARNESS_HIP_TIMEOUT is bad input (exit 2) for every backend that may use
// HIP, found before anything runs, also when auto would not have used HIP.
#[test]
fn a_bad_hip_timeout_is_bad_input_for_run_and_replay() {
    let dir = temp_dir("safety-timeout");
    let case = write_case(&dir, "c.json", &sample_case_json());
    for args in [
        vec![
            "run",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
            "--out",
            s(&dir),
        ],
        vec![
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--out",
            s(&dir),
        ],
        vec!["replay", s(&case)],
    ] {
        for bad in ["soon", "0", "-1", "inf"] {
            let out = ds_env(&args, &[("DS_HARNESS_HIP_TIMEOUT", bad)]);
            let se = stderr(&out);
            assert_eq!(code(&out), 2, "{args:?} with {bad}: {se}");
            assert!(se.contains("DS_HARNESS_HIP_TIMEOUT"), "{se}");
        }
    }
    // The emulated device does not read it.
    let out = ds_env(
        &["replay", s(&case), "--backend", "emu"],
        &[("DS_HARNESS_HIP_TIMEOUT", "soon")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn op_globs_match_legacy_names_and_say_what_they_do_not_support() {
    let dir = temp_dir("safety-glob");
    let out = ds(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_write_b3?",
        "--cases",
        "2",
        "--out",
        s(&dir),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("ds_store_b32 "), "{}", stdout(&out));
    for pattern in ["ds_[as]*", "ds_{add,sub}_u32"] {
        let out = ds(&["run", "--backend", "emu", "--op", pattern, "--out", s(&dir)]);
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains("not supported"), "{}", stderr(&out));
    }
}
