//! Every runnable op agrees through the hip device on the stand-in HIP runtime
//! (`libds_hip_standin.so`) as on the emulated device: every target's device, and the gfx1201
//! device in both wave sizes and in wave64 alone, through `run --backend hip`.

use crate::common;
use crate::common::all_gfx12_ops_agree_in_wave64;
use crate::common::ds_harness_env;
use crate::common::every_gfx12_op_agrees_in_both_waves;
use crate::common::run_report;
use crate::common::standin_lib;
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use crate::common::{standin_env, standin_index};
use ds_isa::target::Target;
use ds_isa::target::DEFAULT;
use serde_json::Value;

/// Every runnable op of the device's target agrees through the hip device on the stand-in, in
/// wave32 and wave64, with the same counts as the emulated device of that target reached
/// directly: the default target's device (device 0, the default device), the gfx10 device
/// (RDNA 2's gfx1030), the gfx9 device (CDNA 3's gfx942, wave64 only: the gfx9 template's code
/// objects load, launch in workgroups of 64 and agree) and the gfx1250 device (wave32 only, code
/// object v6, its workgroup id computed from ttmp9/ttmp6/IB_STS2), chosen with `--device N`.
#[test]
fn every_runnable_op_agrees_through_the_hip_device_on_the_standin_as_on_emu() {
    let Some(lib) = standin_lib() else { return };
    let by_name = |n| Target::by_name(n).unwrap();
    for t in [
        DEFAULT,
        by_name("gfx1030"),
        by_name("gfx942"),
        by_name("gfx1250"),
    ] {
        agrees_through_the_standin_as_on_emu(&lib, t);
    }
}

fn agrees_through_the_standin_as_on_emu(lib: &str, t: &'static Target) {
    let dir = temp_dir(&format!("all-{t}"));
    let cases = "24";
    let hip_json = dir.join("hip.json");
    let index = standin_index(t).to_string();
    let mut args = vec!["run", "--backend", "hip"];
    if t != DEFAULT {
        args.extend(["--device", &index]);
    }
    let hip_out = dir.join("hip");
    args.extend([
        "--cases",
        cases,
        "--out",
        hip_out.to_str().unwrap(),
        "--json",
        hip_json.to_str().unwrap(),
    ]);
    let out = ds_harness_env(&args, &standin_env(lib));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{t}: {}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "backend: hip (--backend hip: HIP device {index} (ds-harness stand-in HIP device \
             (emulated {t}"
        )),
        "{err}"
    );
    let emu_json = dir.join("emu.json");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            t.name,
            "--cases",
            cases,
            "--out",
            dir.join("emu").to_str().unwrap(),
            "--json",
            emu_json.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let (hip, emu) = (common::json(&hip_json), common::json(&emu_json));
    let runnable = ds_isa::ds::runnable_ops_on(t).count() as u64;
    assert_eq!(hip["meta"]["backend"], "hip");
    assert_eq!(hip["meta"]["target"], t.name);
    assert!(
        hip["meta"]["device"].as_str().unwrap().contains("stand-in"),
        "never a GPU name: {}",
        hip["meta"]
    );
    assert_eq!(hip["totals"]["ops"].as_u64(), Some(runnable), "{t}");
    assert_eq!(
        hip["totals"]["disagree"].as_u64(),
        Some(0),
        "{t}: {}",
        hip["totals"]
    );
    assert_eq!(
        hip["totals"]["errors"].as_u64(),
        Some(0),
        "{t}: {}",
        hip["totals"]
    );
    // Every case agrees but those the model leaves unjudged (not_modelled), never counted as
    // agreement.
    let unjudged = hip["totals"]["skipped"].as_u64().unwrap();
    assert_eq!(
        hip["totals"]["agree"].as_u64().unwrap() + unjudged,
        hip["totals"]["cases"].as_u64().unwrap(),
        "{t}: {}",
        hip["totals"]
    );
    for o in hip["ops"].as_array().unwrap() {
        let reasons: u64 = o["skip_reasons"]
            .as_object()
            .map_or(0, |m| m.values().filter_map(Value::as_u64).sum());
        assert_eq!(
            o["skipped"].as_u64(),
            Some(reasons),
            "{t}: every unjudged case says why: {o}"
        );
    }
    // The same corpus, op by op and wave size (the default run covers wave32 and wave64), with
    // the same counts as the emulated device reached directly.
    let per_op = |v: &Value| -> Vec<(String, u64, u64, u64)> {
        v["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["op"].as_str().unwrap().to_string(),
                    o["wave"].as_u64().unwrap(),
                    o["cases"].as_u64().unwrap(),
                    o["agree"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(per_op(&hip), per_op(&emu), "{t}");
    for wave in [32u32, 64] {
        let rows = per_op(&hip)
            .iter()
            .filter(|r| r.1 == u64::from(wave))
            .count() as u64;
        let expected = if t.wave_sizes.contains(&wave) {
            runnable
        } else {
            0
        };
        assert_eq!(
            rows, expected,
            "every runnable op of {t} ran in each of its wave sizes through the stand-in, and in no other"
        );
    }
    println!(
        "stand-in {t}: {} ops, {} cases, all agree",
        hip["totals"]["ops"], hip["totals"]["cases"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_standin_runs_a_gfx1201_device_through_the_hip_path() {
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    let info = stdout(&ds_harness_env(&["info"], &env));
    assert!(info.contains("emulated gfx1201"), "{info}");
    let dir = temp_dir("standin");
    let json = dir.join("r.json");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            "gfx1201",
            "--cases",
            "8",
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        &env,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("target: gfx1201 ("), "{err}");
    assert!(
        err.contains("stand-in HIP device (emulated gfx1201"),
        "{err}"
    );
    every_gfx12_op_agrees_in_both_waves(&json, "gfx1201");
}

#[test]
fn the_standins_gfx1201_device_runs_every_gfx12_op_in_wave64_and_all_agree() {
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    let (code, err, r) = run_report(
        "g12w64-standin",
        &[
            "--backend",
            "hip",
            "--target",
            "gfx1201",
            "--wave",
            "64",
            "--cases",
            "8",
        ],
        &env,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("stand-in HIP device (emulated gfx1201"),
        "{err}"
    );
    all_gfx12_ops_agree_in_wave64(&r, "gfx1201", 8);
}
