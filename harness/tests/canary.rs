//! The canary before the suite, end to end: `info --check` on every stand-in device (each usable
//! one in every wave size its target runs) holds every assumption; a stand-in made to deliver a
//! wrong entry state (`DS_HIP_STANDIN_WRONG_ENTRY`: every workgroup id 0, or half of a wave64)
//! fails `info --check` and `run`, exit 3, before any op, naming the assumption; `run` through
//! `serve-device` (an exec device) launches the canary first and it holds (gfx12 with its
//! workgroup ids in `ttmp9` only, too); the in-process emulator gets no canary; and a canary
//! planted to read gfx12's workgroup id from `s2` is caught, naming the register.

mod common;

use common::{ds_harness_env, standin_lib, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_devices::{Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_harness::canary::{check_wave, RAN};
use ds_isa::inst::Operand;
use ds_kernels::canary::{Canary, Verdict};
use ds_kernels::entry::{KernelEntry, Slot};
use ds_kernels::kernel_targets;
use ds_reference::wave::WaveSize;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");

fn env<'a>(lib: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut e = vec![
        ("DS_HARNESS_HIP_LIB", lib),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    e.extend_from_slice(extra);
    e
}

fn info_check(env: &[(&str, &str)]) -> (i32, Value) {
    let out = ds_harness_env(&["info", "--check", "--json"], env);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", stdout(&out), stderr(&out));
    });
    (out.status.code().unwrap(), v)
}

/// The names of the assumptions that did not hold in `wave` (a `check.hip[]` entry).
fn broken(device: &Value, wave: u64) -> Vec<String> {
    let w = device["waves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["wave"] == wave)
        .unwrap_or_else(|| panic!("no wave{wave} in {device}"));
    (w["assumptions"].as_array().unwrap().iter())
        .filter(|a| a["verdict"] != "held")
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn info_check_holds_every_assumption_on_every_standin_device() {
    let Some(lib) = standin_lib() else { return };
    let (code, v) = info_check(&env(&lib, &[]));
    assert_eq!(code, 0, "{v:#}");
    let check = &v["check"];
    assert_eq!(check["held"], true);
    let hip = check["hip"].as_array().unwrap();
    assert_eq!(hip.len(), v["devices"].as_array().unwrap().len());
    let mut checked = 0;
    for d in hip {
        if !d["skipped"].is_null() {
            assert!(d["skipped"].as_str().unwrap().contains("not usable"), "{d}");
            continue;
        }
        let t = ds_isa::target::Target::by_name(d["target"].as_str().unwrap()).unwrap();
        let waves: Vec<u64> = d["waves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["wave"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = ds_kernels::wave_sizes(t)
            .iter()
            .map(|w| w.lanes() as u64)
            .collect();
        assert_eq!(waves, want, "every wave size {t} runs");
        for w in d["waves"].as_array().unwrap() {
            assert_eq!(w["held"], true, "{d}");
            assert_eq!(w["assumptions"].as_array().unwrap().len(), 7);
        }
        checked += 1;
    }
    assert_eq!(
        checked,
        ds_kernels::kernel_targets().count(),
        "every stand-in device kernels are built for"
    );
    assert!(check["emulated"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["waves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["held"] == true)));
    // The text says the same.
    let out = ds_harness_env(&["info", "--check"], &env(&lib, &[]));
    let text = stdout(&out);
    assert!(
        text.contains("    wave64: held: workgroup id, lane id, kernarg pointers, EXEC at entry, LDS, M0, every lane ran"),
        "{text}"
    );
    assert!(
        text.contains("emulated device: the canary ran on each of the"),
        "{text}"
    );
}

#[test]
fn a_standin_that_gives_every_workgroup_id_0_fails_info_check_and_run_before_any_op() {
    let Some(lib) = standin_lib() else { return };
    let e = env(&lib, &[("DS_HIP_STANDIN_WRONG_ENTRY", "workgroup-id")]);
    let (code, v) = info_check(&e);
    assert_eq!(code, 3, "{v:#}");
    assert_eq!(v["check"]["held"], false);
    for d in v["check"]["hip"].as_array().unwrap() {
        if d["skipped"].is_null() {
            // Each wave size the device's target runs (gfx9: wave64 only).
            for w in d["waves"].as_array().unwrap() {
                let wave = w["wave"].as_u64().unwrap();
                assert_eq!(broken(d, wave), ["workgroup id"], "{d}");
            }
        }
    }
    let dir = temp_dir("canary-wrong-id");
    let json = dir.join("r.json");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "4",
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("wave32: workgroup id: BROKEN: every workgroup saw 0 (records 1..3 never written); the kernel reads it from s15, where gfx1100 in wave32 delivers it"),
        "{err}"
    );
    assert!(err.contains("so none was run"), "{err}");
    assert!(
        !stdout(&out).contains("ds_add_u32"),
        "no op ran: {}",
        stdout(&out)
    );
    assert!(!json.exists(), "no report: no op ran");
}

#[test]
fn a_standin_that_runs_half_a_wave64_fails_in_wave64_and_passes_in_wave32() {
    let Some(lib) = standin_lib() else { return };
    let e = env(&lib, &[("DS_HIP_STANDIN_WRONG_ENTRY", "wave")]);
    let (code, v) = info_check(&e);
    assert_eq!(code, 3, "{v:#}");
    let first = &v["check"]["hip"][0];
    assert_eq!(broken(first, 32), Vec::<String>::new());
    assert_eq!(broken(first, 64), ["EXEC at entry", "every lane ran"]);
    let run = |wave: &str| {
        let args = [
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
        ];
        let mut args = args.to_vec();
        args.extend(["--wave", wave]);
        let dir = temp_dir(&format!("canary-half-{wave}"));
        let o = dir.join("out");
        args.extend(["--out", o.to_str().unwrap()]);
        ds_harness_env(&args, &e)
    };
    let out = run("64");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("wave64: every lane ran: BROKEN: wave64: lanes 32..63 never ran"),
        "{err}"
    );
    let out = run("32");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("canary: wave32: held (workgroup id,"));
}

/// `serve-device` is an exec device: the canary runs through the protocol first, and holds; on
/// gfx12 (workgroup ids in `ttmp9` only) every runnable op then agrees. The in-process emulator
/// gets no canary.
#[test]
fn the_canary_runs_first_through_serve_device_and_not_on_the_in_process_emulator() {
    let gfx12 = kernel_targets().find(|t| t.architected_sgprs).unwrap();
    for target in [ds_isa::target::DEFAULT, gfx12] {
        let cmd = format!("'{BIN}' serve-device --backend emu --target {target}");
        let dir = temp_dir(&format!("canary-exec-{target}"));
        let out = common::ds_harness_no_env(&[
            "run",
            "--backend",
            "exec",
            "--device-cmd",
            &cmd,
            "--target",
            target.name,
            "--cases",
            "8",
            "--wave",
            "32",
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}\n{}", stdout(&out));
        assert!(
            err.contains("canary: wave32: held (workgroup id, lane id, kernarg pointers, EXEC at entry, LDS, M0, every lane ran)"),
            "{err}"
        );
    }
    let out = common::ds_harness_no_env(&[
        "run",
        "--backend",
        "emu",
        "--op",
        "ds_add_u32",
        "--cases",
        "2",
        "--out",
        temp_dir("canary-emu").join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stderr(&out).contains("canary"), "{}", stderr(&out));
}

/// The emulated device of a target, loading a planted canary in place of the code object it is
/// given (as a template that reads the wrong register would build it).
struct Planted {
    dev: EmuDevice,
    planted: Vec<u8>,
}

impl Device for Planted {
    fn info(&self) -> &DeviceInfo {
        self.dev.info()
    }
    fn load(&mut self, _: &[u8]) -> Result<ModuleId, DeviceError> {
        self.dev.load(&self.planted)
    }
    fn launch(&mut self, m: ModuleId, l: &mut Launch) -> Result<(), DeviceError> {
        self.dev.launch(m, l)
    }
}

#[test]
fn a_planted_read_of_s2_on_gfx12_is_caught_by_the_canary_naming_the_register() {
    let t = kernel_targets().find(|t| t.architected_sgprs).unwrap();
    let wave = WaveSize::Wave32;
    let real = KernelEntry::of(t, wave);
    let entry = KernelEntry {
        workgroup_id_x: Slot {
            reg: Operand::Sgpr(2),
            ..real.workgroup_id_x
        },
        ..real
    };
    let mut dev = Planted {
        dev: EmuDevice::for_target(t),
        planted: Canary::reading(t, wave, entry).unwrap().code_object(),
    };
    let c = check_wave(&mut dev, wave);
    assert!(c.broken());
    let a = &c.assumptions[0];
    assert_eq!((a.name, a.verdict), (RAN, Verdict::Broken));
    assert!(
        a.detail.contains("reads s2, which holds no value")
            && a.detail.contains("ttmp9 = workgroup id x"),
        "{}",
        a.detail
    );
    // The real canary on the same device holds.
    assert!(check_wave(&mut EmuDevice::for_target(t), wave).held);
}

/// A canary the device could not even load (a runtime too old for the target) says what failed
/// and not that the entry-state table is wrong (issue 33 L6); `info --check` checks the emulated
/// device of every target `run` and `serve-device` take, the generic targets too (L14).
#[test]
fn a_canary_that_could_not_run_says_what_failed_and_info_check_covers_every_target() {
    let Some(lib) = standin_lib() else { return };
    let newest = ds_isa::target::TARGETS
        .iter()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .max_by_key(|t| t.rocm_since)
        .unwrap();
    let dir = temp_dir("canary-did-not-run");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            newest.name,
            "--op",
            "ds_add_u32",
            "--cases",
            "4",
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &env(&lib, &[("DS_HIP_STANDIN_VERSION", "50200000")]),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("the canary could not run on"), "{err}");
    assert!(
        err.contains("says nothing about the entry-state table"),
        "{err}"
    );
    assert!(!err.contains("please report"), "{err}");
    assert!(!err.contains("entry state broken"), "{err}");
    let (_, v) = info_check(&env(&lib, &[]));
    let checked: Vec<&str> = v["check"]["emulated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["target"].as_str().unwrap())
        .collect();
    for t in ds_isa::target::all().filter(|t| ds_kernels::check_target(t).is_ok()) {
        assert!(checked.contains(&t.name), "{t} not checked: {checked:?}");
    }
    assert!(ds_isa::target::all().any(|t| t.is_generic() && checked.contains(&t.name)));
}
