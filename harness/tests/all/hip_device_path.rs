//! The hip device's own code path, end to end, through the stand-in HIP runtime
//! (`libds_hip_standin.so`, built by `cargo build -p hip-standin`): loading the library, symbol
//! lookup, device selection under `HIP_VISIBLE_DEVICES`, the arch and generic-target refusals,
//! another target's device running its own code object, the bounded wait, a GPU fault that
//! aborts the process named with its kernel and cases.

use crate::common;
use crate::common::{standin_env, standin_index};
use ds_isa::target::GENERIC_TARGETS;

use common::{ds_harness_env, standin_lib, stderr, stdout};
use ds_isa::target::{Target, DEFAULT, TARGETS};
use ds_kernels::kernel_targets;
use serde_json::Value;

#[test]
fn info_on_the_standin_shows_both_devices_the_refusal_and_the_auto_choice() {
    let Some(lib) = standin_lib() else { return };
    let out = ds_harness_env(&["info", "--json"], &standin_env(&lib));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["library"]["standin"], true);
    let devices = v["devices"].as_array().unwrap();
    // The default target, the decoy, then every other target.
    assert_eq!(devices.len(), TARGETS.len() + 1, "{v}");
    assert_eq!(devices[0]["arch"], DEFAULT.name);
    assert_eq!(devices[0]["target"], DEFAULT.name);
    assert_eq!(devices[0]["usable"], true);
    assert!(
        devices[0]["arch_source"]
            .as_str()
            .unwrap()
            .contains("stand-in"),
        "{v}"
    );
    assert_eq!(devices[1]["arch"], "gfx803");
    assert_eq!(devices[1]["target"], Value::Null);
    assert_eq!(devices[1]["usable"], false);
    let why = devices[1]["why"].as_str().unwrap();
    assert!(
        why.contains("gfx803 is not a target the kernels are built for"),
        "{why}"
    );
    for t in kernel_targets() {
        assert!(why.contains(t.name), "names every supported target: {why}");
    }
    let others: Vec<_> = TARGETS.iter().filter(|t| *t != DEFAULT).collect();
    for (d, chip) in devices[2..].iter().zip(others) {
        // The chip as ROCm names it: the row of its KFD version (gfx909's chip is a gfx902).
        let t = Target::by_kfd_version(chip.kfd_version).unwrap();
        assert_eq!(d["arch"], t.name, "{v}");
        if t != chip {
            let name = d["name"].as_str().unwrap();
            assert!(
                name.contains(&format!("emulated {chip}, which ROCm runs as {t}")),
                "{name}"
            );
        }
        match ds_kernels::check_target(t) {
            Ok(()) => {
                assert_eq!(d["target"], t.name, "{v}");
                assert_eq!(d["usable"], true, "{v}");
                assert!(
                    d["why"].as_str().unwrap().contains("is a supported target"),
                    "{v}"
                );
            }
            // In the table, but no kernels for its generation yet: shown, and not used.
            Err(why) => {
                assert_eq!(d["usable"], false, "{v}");
                assert_eq!(d["why"], why.as_str(), "{v}");
            }
        }
    }
    assert_eq!(v["auto"]["backend"], "hip");
    assert_eq!(v["auto"]["device"], 0);
    let text = stdout(&ds_harness_env(&["info"], &standin_env(&lib)));
    assert!(
        text.contains("stand-in runtime") && text.contains("no GPU is involved"),
        "{text}"
    );
    assert!(text.contains("target: gfx803 (not supported)"), "{text}");
    for t in TARGETS
        .iter()
        .filter_map(|t| Target::by_kfd_version(t.kfd_version))
    {
        let shown = if ds_kernels::check_target(t).is_ok() {
            format!("target: {t} (supported)")
        } else {
            format!("target: {t} (not supported)")
        };
        assert!(text.contains(&shown), "{text}");
    }
}

#[test]
fn a_device_of_another_arch_is_refused_in_words() {
    let Some(lib) = standin_lib() else { return };
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "1",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &standin_env(&lib),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("device 1 (") && err.contains("is gfx803"),
        "says which arch was found: {err}"
    );
    assert!(
        err.contains("is not a target the kernels are built for (supported: ")
            && kernel_targets().all(|t| err.contains(t.name)),
        "names the supported targets: {err}"
    );
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "99",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &standin_env(&lib),
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("device 99 was asked for, but the HIP runtime"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hip_visible_devices_is_left_to_hip_and_device_numbers_follow_it() {
    let Some(lib) = standin_lib() else { return };
    // HIP_VISIBLE_DEVICES=1 leaves only the gfx803 decoy: it is device 0 now, and is refused.
    let mut e = standin_env(&lib);
    e.push(("HIP_VISIBLE_DEVICES", "1"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("device 0 (") && err.contains("is gfx803"),
        "{err}"
    );
    assert!(
        err.contains("HIP_VISIBLE_DEVICES=\"1\""),
        "the message quotes the variable: {err}"
    );
    // Reordered: HIP device 1 is the gfx1100.
    let mut e = standin_env(&lib);
    e.push(("HIP_VISIBLE_DEVICES", "1,0"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "1",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
        ],
        &e,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("HIP device 1 (ds-harness stand-in HIP device (emulated gfx1100"),
        "{}",
        stderr(&out)
    );
    // And auto finds it by itself.
    let out = ds_harness_env(&["info", "--json"], &e);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["auto"]["device"], 1, "{v}");
}

#[test]
fn a_kernel_that_never_finishes_is_a_timeout_error_not_a_hung_harness() {
    let Some(lib) = standin_lib() else { return };
    let mut e = standin_env(&lib);
    // Only the ops' kernels hang: the canary before them completes.
    e.push(("DS_HIP_STANDIN_HANG", "ds_"));
    e.push(("DS_HARNESS_HIP_TIMEOUT", "0.3"));
    let started = std::time::Instant::now();
    // The stand-in's teardown at exit waits for the hung kernel forever, as ROCm's does: the
    // harness must leave without it.
    // The lost cases' files under the test's own dir, not the work tree.
    let out_dir = common::temp_dir("standin-hang-out");
    let out = common::ds_harness_env_within(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--op",
            "ds_sub_u32",
            "--cases",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &e,
        std::time::Duration::from_secs(60),
    );
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the run reports the lost cases: {text}{}",
        stderr(&out)
    );
    assert!(
        text.contains("kernel timed out: kernel ds_add_u32"),
        "names the kernel: {text}"
    );
    assert!(text.contains("did not finish within 0.3 s"), "{text}");
    assert!(
        text.contains("earlier launch(es) on this device are kept"),
        "says what was kept: {text}"
    );
    assert!(
        text.contains("unusable after an earlier hang"),
        "later launches are refused, not hung: {text}"
    );
    assert!(started.elapsed().as_secs() < 60, "returned promptly");
    assert!(
        stderr(&out).contains("ends without the HIP runtime's teardown"),
        "{}",
        stderr(&out)
    );
    let mut bad = standin_env(&lib);
    bad.push(("DS_HARNESS_HIP_TIMEOUT", "soon"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &bad,
    );
    // A bad environment value is bad input (2), not an unavailable backend (3).
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("DS_HARNESS_HIP_TIMEOUT=\"soon\" is not a number of seconds"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn no_visible_device_is_no_gpu_found_through_the_same_path_as_real_hip() {
    let Some(lib) = standin_lib() else { return };
    // An ordinal HIP does not have: HIP makes no device visible.
    let mut e = standin_env(&lib);
    e.push(("HIP_VISIBLE_DEVICES", "99"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("loaded, but no GPU was found: hipInit returned hipErrorInvalidDevice (101)"),
        "{err}"
    );
    assert!(
        err.contains("hipGetDeviceCount returned hipErrorNoDevice (100)"),
        "{err}"
    );
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "auto",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &e,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("backend: emu (--backend auto: the HIP runtime"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_device_of_another_target_runs_its_own_code_object_and_says_so() {
    let Some(lib) = standin_lib() else { return };
    let t = Target::by_name("gfx1151").unwrap();
    let dir = common::temp_dir("other-target");
    let json = dir.join("r.json");
    let index = standin_index(t).to_string();
    let ops = [
        "--op",
        "ds_add_rtn_u32",
        "--op",
        "ds_load_2addr_b64",
        "--op",
        "ds_swizzle_b32",
    ];
    let mut args = vec![
        "run",
        "--backend",
        "hip",
        "--device",
        &index,
        "--cases",
        "16",
    ];
    args.extend(ops);
    args.extend([
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let out = ds_harness_env(&args, &standin_env(&lib));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{}\n{err}", stdout(&out));
    assert!(
        err.contains(&format!("is {t}")) && err.contains(&format!("target: {t} (")),
        "{err}"
    );
    assert!(
        stdout(&out).contains(&format!("target {t}")),
        "{}",
        stdout(&out)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["meta"]["target"], t.name);
    assert_eq!(v["totals"]["disagree"], 0);
    assert!(v["totals"]["cases"].as_u64().unwrap() >= 48, "{v}");

    // --target picks the device of that target without --device.
    let mut args = vec![
        "run",
        "--backend",
        "hip",
        "--target",
        t.name,
        "--cases",
        "4",
    ];
    args.extend(ops);
    args.extend(["--out", dir.to_str().unwrap()]);
    let out = ds_harness_env(&args, &standin_env(&lib));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("HIP device {index} (")), "{err}");

    // --target that the device asked for is not: refused, never a silent substitute.
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "0",
            "--target",
            t.name,
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &standin_env(&lib),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("--target {t} was asked for, but device 0"))
            && err.contains(&format!("is {DEFAULT}")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `info` says for each device whether the runtime's release supports its target, and the run
/// header says it too: a runtime older than the target's first ROCm release (the stand-in made to
/// report ROCm 5.2, as Debian's runtime does) is a warning naming both releases.
#[test]
fn info_and_the_run_header_say_whether_the_runtime_supports_the_target() {
    let Some(lib) = standin_lib() else { return };
    let info = |version: Option<&str>| {
        let mut e = standin_env(&lib);
        if let Some(v) = version {
            e.push(("DS_HIP_STANDIN_VERSION", v));
        }
        let out = ds_harness_env(&["info", "--json"], &e);
        let v: Value = serde_json::from_str(&stdout(&out)).expect("info --json is JSON");
        v["devices"].as_array().unwrap().clone()
    };
    let first = |devices: &[Value], t: &Target| {
        devices
            .iter()
            .find(|d| d["target"] == t.name)
            .map(|d| d["runtime"].clone())
            .unwrap()
    };
    let new = info(None);
    let old = info(Some("50200000"));
    // Every target a ROCm device can be (gfx909's chip is reported as gfx902).
    for t in kernel_targets().filter(|t| Target::by_kfd_version(t.kfd_version) == Some(t)) {
        let (n, o) = (first(&new, t), first(&old, t));
        match t.rocm_since {
            Some((major, minor)) => {
                assert_eq!(n["supported"], true, "{t}: {n}");
                assert_eq!(o["supported"], (major, minor) <= (5, 2), "{t}: {o}");
                if (major, minor) > (5, 2) {
                    let why = o["why"].as_str().unwrap();
                    assert!(
                        why.contains("HIP runtime 5.2.0")
                            && why.contains(&format!("ROCm {major}.{minor}")),
                        "{why}"
                    );
                }
            }
            None => assert_eq!(n["supported"], false, "{t}: no release is known: {n}"),
        }
    }
    let mut e = standin_env(&lib);
    e.push(("DS_HIP_STANDIN_VERSION", "50200000"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
            "--wave",
            "32",
        ],
        &e,
    );
    let err = stderr(&out);
    assert!(
        err.contains("runtime: WARNING: HIP runtime 5.2.0 is older than ROCm"),
        "{err}"
    );
    // The runtime then refuses the code object, and the error says what that means and what
    // to do next.
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("The runtime could not load this code object")
            && err.contains("AMD_LOG_LEVEL=3"),
        "{err}"
    );
}

/// A GPU fault ends a HIP process with `abort()` (the runtime's own line first, and no error any
/// HIP call could return): the dying process names the kernel, its grid and device, and the
/// cases it was running, so the fault can be traced to an op.
#[test]
fn a_gpu_fault_that_aborts_the_process_names_the_kernel_and_cases_it_was_running() {
    use std::os::unix::process::ExitStatusExt;
    let Some(lib) = standin_lib() else { return };
    let mut e = standin_env(&lib);
    // Only the ops' kernels fault: the canary before them completes.
    e.push(("DS_HIP_STANDIN_FAULT", "ds_"));
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "3",
            "--wave",
            "32",
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{err}");
    assert!(err.contains("Memory access fault by GPU"), "{err}");
    assert!(
        err.contains("during the last launch: kernel ds_add_u32_o0_0_")
            && err.contains("(1 workgroups x 32 lanes) on HIP device 0")
            && err.contains("cases 0..1 of variant 0 of ds_add_u32 (seed"),
        "{err}"
    );
}

#[test]
fn the_hip_device_refuses_a_generic_target_in_words() {
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    for g in GENERIC_TARGETS {
        let out = ds_harness_env(
            &[
                "run",
                "--backend",
                "hip",
                "--target",
                g.name,
                "--op",
                "ds_add_u32",
                "--cases",
                "1",
            ],
            &env,
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{g}: {err}");
        assert!(
            err.contains(&format!("--target {g} was asked for"))
                && err.contains(&format!("{g} is a generic target, which no GPU reports"))
                && err.contains(&format!("--backend emu --target {g}")),
            "{g}: {err}"
        );
        // No `--device N` of a generic target can exist: none is suggested.
        assert!(
            !err.contains(&format!("pick a {g} with --device N")),
            "{g}: {err}"
        );
    }
}
