//! A gfx12-only op's mismatch, end to end: a gfx1200 device that damages its results (the stand-in
//! with `DS_HIP_STANDIN_FLIP=1`) makes `run` write case files of `ds_cond_sub_rtn_u32` (an op gfx11
//! lacks), and each of them shrinks, evaluates (`eval`) and replays (`replay`: it agrees on the
//! emulated device and disagrees again on the damaging device), its target read from the file
//! (`replay --backend hip` without `--target` takes the HIP device of the file's target, and
//! refuses when no device is one).

mod common;

use common::{ds_harness_env, standin_lib, stderr, stdout, temp_dir};
use ds_isa::ds::{DsOp, Generation};
use ds_isa::target::TARGETS;

#[test]
fn a_gfx12_only_ops_mismatch_case_file_shrinks_evaluates_and_replays() {
    let Some(lib) = standin_lib() else { return };
    let t = TARGETS.iter().find(|t| t.architected_sgprs).unwrap();
    let op = "ds_cond_sub_rtn_u32";
    let o = DsOp::from_name_in(t.generation, op).unwrap();
    assert!(!o.info().in_generation(Generation::Gfx11));
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
        ("DS_HIP_STANDIN_FLIP", "1"),
    ];
    let dir = temp_dir("gfx12-mismatch");
    let out_dir = dir.join("out");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            t.name,
            "--op",
            op,
            "--cases",
            "2",
            "--wave",
            "32",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &env,
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    assert!(!text.contains("cannot shrink"), "{text}");
    let files: Vec<_> = std::fs::read_dir(out_dir.join(op))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!files.is_empty(), "{text}");
    for f in &files {
        let path = f.to_str().unwrap();
        let eval = ds_harness_env(&["eval", path], &[]);
        assert_eq!(eval.status.code(), Some(0), "{path}: {}", stderr(&eval));
        let v: serde_json::Value = serde_json::from_slice(&eval.stdout).expect("eval prints JSON");
        assert!(v.is_object(), "{v}");
        let emu = ds_harness_env(&["replay", path, "--backend", "emu"], &[]);
        assert_eq!(emu.status.code(), Some(0), "{path}: {}", stderr(&emu));
        assert!(stdout(&emu).contains("AGREE"), "{}", stdout(&emu));
        let hip = ds_harness_env(
            &["replay", path, "--backend", "hip", "--target", t.name],
            &env,
        );
        assert_eq!(hip.status.code(), Some(1), "{path}: {}", stderr(&hip));
        // Without --target: the device of the case file's target, said so, never device 0 (the
        // stand-in's gfx11 device) in silence.
        let hip = ds_harness_env(&["replay", path, "--backend", "hip"], &env);
        let err = stderr(&hip);
        assert_eq!(hip.status.code(), Some(1), "{path}: {err}");
        assert!(
            err.contains(&format!(") is {t}"))
                && err.contains(&format!("target: {t} (the case file names {t})")),
            "{err}"
        );
        // No GPU of the file's target: refused, naming the devices and the fix.
        let mut only0 = env.to_vec();
        only0.push(("HIP_VISIBLE_DEVICES", "0"));
        let hip = ds_harness_env(&["replay", path, "--backend", "hip"], &only0);
        let err = stderr(&hip);
        assert_eq!(hip.status.code(), Some(3), "{path}: {err}");
        assert!(
            err.contains(&format!(
                "the case file is of {t}, and no usable HIP device is a {t} (device 0 is "
            )) && err.contains("--backend emu"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
