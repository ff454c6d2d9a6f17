//! RDNA4 end to end: gfx12 targets through the commands, the emulated device and the stand-in HIP
//! runtime. `run --backend emu --target gfx1201` agrees on every runnable gfx12 op in both wave
//! sizes (wave64 on its own: `gfx12_wave64.rs`); the stand-in's
//! gfx1201 device runs the same code objects through the hip device's own path; `asm`, `disasm`,
//! `list`, `doc` and `kernel` speak gfx12 for `--target gfx1200|gfx1201` and refuse the other
//! generation's ops and `gds` in words.

mod common;

use common::{ds_harness, ds_harness_env, standin_lib, stderr, stdout};
use ds_isa::ds::{runnable_ops, Generation};
use serde_json::Value;

const RUNNABLE: usize = 123;

fn tmp(name: &str) -> std::path::PathBuf {
    let d = common::temp_dir(&format!("gfx12-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every runnable gfx12 op has a row in each wave size the target runs (the default run covers
/// both), in table order within each, and every row agrees.
fn check_results(json: &std::path::Path, target: &str) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(v["meta"]["target"], target);
    assert_eq!(v["meta"]["waves"], serde_json::json!([32, 64]));
    assert_eq!(v["totals"]["disagree"], 0, "{}", v["totals"]);
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2 * RUNNABLE);
    let want: Vec<&str> = runnable_ops(Generation::Gfx12).map(|o| o.name()).collect();
    for wave in [32, 64] {
        let got: Vec<&str> = ops
            .iter()
            .filter(|o| o["wave"] == wave)
            .map(|o| o["op"].as_str().unwrap())
            .collect();
        assert_eq!(got, want, "wave{wave}");
    }
    v
}

#[test]
fn every_runnable_gfx12_op_agrees_on_the_emulated_gfx1201() {
    assert_eq!(runnable_ops(Generation::Gfx12).count(), RUNNABLE);
    let dir = tmp("emu");
    let json = dir.join("r.json");
    let out = ds_harness(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1201",
            "--cases",
            "24",
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("on emulated gfx1201"),
        "{}",
        stdout(&out)
    );
    let v = check_results(&json, "gfx1201");
    assert_eq!(v["totals"]["cases"], (2 * RUNNABLE * 24) as u64);
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
    let dir = tmp("standin");
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
    check_results(&json, "gfx1201");
}

#[test]
fn the_text_commands_speak_gfx12_for_a_gfx12_target() {
    // asm: a gfx12-only op assembles; gds and a gfx11-only op are refused in words.
    let out = ds_harness(
        &["asm", "--target", "gfx1200"],
        "ds_cond_sub_rtn_u32 v1, v2, v3 offset:4\nds_min_f32 v1, v2\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\tds_cond_sub_rtn_u32 v1, v2, v3 offset:4 ; encoding: [0x04,0x00,0xa0,0xda,0x02,0x03,0x00,0x01]\n\
         \tds_min_num_f32 v1, v2                   ; encoding: [0x00,0x00,0x48,0xd8,0x01,0x02,0x00,0x00]\n"
    );
    let out = ds_harness(&["asm", "--target", "gfx1201"], "ds_add_u32 v1, v2 gds\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("gfx12 has no GDS"),
        "{}",
        stderr(&out)
    );
    let out = ds_harness(
        &["asm", "--target", "gfx1201"],
        "ds_wrap_rtn_b32 v1, v2, v3, v4\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is gfx9, gfx10 and gfx11)"),
        "{}",
        stderr(&out)
    );
    // The gfx11 default refuses the gfx12 op the same way.
    let out = ds_harness(&["asm"], "ds_cond_sub_u32 v1, v2\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("(it is gfx12)"), "{}", stderr(&out));

    // disasm: the gfx12 word, and the same word with bit 17 (gfx11's gds) refused.
    let out = ds_harness(
        &["disasm", "--target", "gfx1201"],
        "0x04,0x00,0xa0,0xda,0x02,0x03,0x00,0x01\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("ds_cond_sub_rtn_u32 v1, v2, v3 offset:4"));
    let out = ds_harness(
        &["disasm", "--target", "gfx1201"],
        "0x00,0x00,0x36,0xd8,0x01,0x02,0x00,0x00\n",
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("no GDS") || stdout(&out).contains("no GDS"));

    // list: the gfx12 table.
    let out = ds_harness(&["list", "--target", "gfx1201"], "");
    assert!(
        stdout(&out).contains("123 ops, 123 runnable"),
        "{}",
        stdout(&out)
    );
    let out = ds_harness(&["list", "--target", "gfx1200", "--markdown"], "");
    assert!(stdout(&out).starts_with("# gfx12 DS instructions"));

    // doc: the old min name is the gfx12 op there; a removed op is named as gfx11's.
    let out = ds_harness(&["doc", "--target", "gfx1201", "ds_min_f32"], "");
    assert!(
        stdout(&out).starts_with("ds_min_num_f32 "),
        "{}",
        stdout(&out)
    );
    let out = ds_harness(&["doc", "--target", "gfx1201", "ds_wrap_rtn_b32"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(it is gfx9, gfx10 and gfx11)"),
        "{}",
        stderr(&out)
    );

    // kernel: the gfx12 template's listing.
    let out = ds_harness(
        &[
            "kernel",
            "--target",
            "gfx1201",
            "ds_pk_add_rtn_bf16",
            "--listing",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.contains("s_wait_kmcnt 0x0") && listing.contains("ds_pk_add_rtn_bf16"));
    assert!(!listing.contains("s_waitcnt"), "{listing}");
}
