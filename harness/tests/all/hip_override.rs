//! Overrides through the stand-in HIP runtime (`cargo build -p hip-standin`): a chip ROCm runs as
//! another target (`HSA_OVERRIDE_GFX_VERSION`, as RX 6000 owners run gfx1030 code on a gfx1032;
//! or any other setting that makes the runtime report another target than the chip's KFD node).
//! The stand-in reports the override's target as ROCm does and has a simulated KFD topology that
//! names the chip; `info`, the run header, every report's metadata (JSON, JUnit, markdown) and
//! each recording's provenance name the override and the chip; a recording goes under the chip's
//! name; a chip that cannot be read under an override is unknown and `--record` is refused.

use crate::common;

use common::{ds_harness_env, standin_lib, stderr, stdout};
use ds_isa::target::{Target, DEFAULT, TARGETS};
use ds_kernels::kernel_targets;
use serde_json::Value;
use std::path::Path;

fn env(lib: &str) -> Vec<(&str, &str)> {
    vec![
        ("DS_HARNESS_HIP_LIB", lib),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ]
}

/// The stand-in's device index of `t` (0 the default target, 1 the decoy, then table order).
fn standin_index(t: &Target) -> String {
    if t == DEFAULT {
        return "0".into();
    }
    let i = TARGETS
        .iter()
        .filter(|o| *o != DEFAULT)
        .position(|o| o == t)
        .unwrap();
    (2 + i).to_string()
}

/// `HSA_OVERRIDE_GFX_VERSION`'s value that makes ROCm run a chip as `t`: major.minor.stepping.
fn version_of(t: &Target) -> String {
    let v = t.kfd_version;
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("written")).expect("JSON")
}

/// Runs one op briefly on the stand-in's device `index` with `extra` arguments.
fn run(e: &[(&str, &str)], index: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        "--backend",
        "hip",
        "--device",
        index,
        "--op",
        "ds_add_u32",
        "--cases",
        "2",
    ];
    args.extend(extra);
    ds_harness_env(&args, e)
}

/// The case (a gfx1032 chip run as gfx1030) and one within gfx11 (the default target's
/// chip run as another gfx11 target): `info`, the run header, the recording's place and
/// provenance, and the JSON, JUnit and markdown metadata all name the override and the chip.
#[test]
fn an_override_is_named_everywhere_and_the_recording_goes_under_the_chips_name() {
    let Some(lib) = standin_lib() else { return };
    let gfx11_other = kernel_targets()
        .find(|t| t.generation == DEFAULT.generation && *t != DEFAULT)
        .unwrap();
    let rows = [
        (
            Target::by_name("gfx1032").unwrap(),
            Target::by_name("gfx1030").unwrap(),
        ),
        (DEFAULT, gfx11_other),
    ];
    for (chip, runs_as) in rows {
        let version = version_of(runs_as);
        let by = format!("HSA_OVERRIDE_GFX_VERSION={version}");
        let mut e = env(&lib);
        e.push(("HSA_OVERRIDE_GFX_VERSION", &version));
        let index = standin_index(chip);
        let text = stdout(&ds_harness_env(&["info"], &e));
        assert!(
            text.contains(&format!(
                "override: {by} runs this {chip} chip as {runs_as}"
            )) && text.contains(&format!("chip: {chip} (the stand-in's simulated KFD node")),
            "{text}"
        );
        let dir = common::temp_dir(&format!("named-{chip}"));
        let (rec, j, x, m) = (
            dir.join("rec"),
            dir.join("r.json"),
            dir.join("r.xml"),
            dir.join("r.md"),
        );
        let out = run(
            &e,
            &index,
            &[
                "--record",
                rec.to_str().unwrap(),
                "--json",
                j.to_str().unwrap(),
                "--junit",
                x.to_str().unwrap(),
                "--markdown",
                m.to_str().unwrap(),
                "--out",
                dir.to_str().unwrap(),
            ],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        let sentence = format!(
            "{by} runs the {chip} chip as {runs_as}; the code object is built for {runs_as}, the \
             results are the {chip} chip's"
        );
        assert!(err.contains(&format!("target: {runs_as} (")), "{err}");
        assert!(err.contains(&format!("override: {sentence}")), "{err}");
        assert!(err.contains(&format!("chip: {chip} (")), "{err}");
        // The recordings lie under the chip's name, never the target's, and name both.
        let chip_dir = rec.join(format!("emulated-hip-standin-{chip}"));
        assert!(
            !rec.join(format!("emulated-hip-standin-{runs_as}")).exists(),
            "nothing under the override's target"
        );
        for file in ["ds_add_u32.txt", "ds_add_u32.wave64.txt"] {
            let body = std::fs::read_to_string(chip_dir.join(file)).expect("under the chip");
            for line in [
                format!("# provenance arch: {runs_as}\n"),
                format!("# provenance chip: {chip}\n"),
                format!("# provenance override: {by}\n"),
            ] {
                assert!(body.contains(&line), "{line} in {body}");
            }
            assert!(body.contains("# provenance chip_source: the stand-in's simulated KFD node"));
        }
        let status = json(&chip_dir.join("run.json"));
        assert_eq!(status["meta"]["override"]["chip"], chip.name, "{status}");
        // JSON, JUnit and markdown metadata.
        let v = json(&j);
        assert_eq!(v["meta"]["target"], runs_as.name);
        assert_eq!(v["meta"]["override"]["chip"], chip.name);
        assert_eq!(v["meta"]["override"]["by"], by.as_str());
        let xml = std::fs::read_to_string(&x).unwrap();
        for p in [
            format!("<property name=\"target\" value=\"{runs_as}\"/>"),
            format!("<property name=\"chip\" value=\"{chip}\"/>"),
            format!("<property name=\"override\" value=\"{by}\"/>"),
        ] {
            assert!(xml.contains(&p), "{p} in {xml}");
        }
        let md = std::fs::read_to_string(&m).unwrap();
        assert!(
            md.contains(&format!("Override: {}", sentence.replace('_', "\\_"))),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The recording made under the override is read back by `--against` (it names the chip and the
/// override); one moved under the override target's directory is refused, naming the chip; the
/// shards' merged results keep the statement.
#[test]
fn against_and_merge_keep_the_statement_and_a_recording_under_the_target_is_refused() {
    let Some(lib) = standin_lib() else { return };
    let (chip, runs_as) = (
        Target::by_name("gfx1032").unwrap(),
        Target::by_name("gfx1030").unwrap(),
    );
    let version = version_of(runs_as);
    let mut e = env(&lib);
    e.push(("HSA_OVERRIDE_GFX_VERSION", &version));
    let index = standin_index(chip);
    let dir = common::temp_dir("against");
    let rec = dir.join("rec");
    let out = run(
        &e,
        &index,
        &["--wave", "32", "--record", rec.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let chip_dir = rec.join(format!("emulated-hip-standin-{chip}"));
    let j = dir.join("against.json");
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            &index,
            "--against",
            chip_dir.to_str().unwrap(),
            "--json",
            j.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let said = format!("on {runs_as}: the {chip} chip under HSA_OVERRIDE_GFX_VERSION={version}");
    assert!(err.contains(&said), "{err}");
    let v = json(&j);
    assert!(
        v["meta"]["against"].as_str().unwrap().contains(&said),
        "{v}"
    );
    assert_eq!(v["meta"]["override"]["chip"], chip.name);

    // Filed under the target the override ran it as: refused, naming the chip.
    let wrong = rec.join(format!("emulated-hip-standin-{runs_as}"));
    std::fs::rename(&chip_dir, &wrong).unwrap();
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            &index,
            "--against",
            wrong.to_str().unwrap(),
        ],
        &e,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "a recording made on the {chip} chip under HSA_OVERRIDE_GFX_VERSION={version} (run \
             as {runs_as}) lies under `emulated-hip-standin-{runs_as}`"
        )),
        "{err}"
    );

    // Two shards, merged: the merged results keep the override and the chip.
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let j = dir.join(format!("shard{}.json", &k[..1]));
        let out = ds_harness_env(
            &[
                "run",
                "--backend",
                "hip",
                "--device",
                &index,
                "--op",
                "ds_add_u32",
                "--op",
                "ds_max_u32",
                "--cases",
                "2",
                "--wave",
                "32",
                "--shard",
                k,
                "--json",
                j.to_str().unwrap(),
                "--out",
                dir.to_str().unwrap(),
            ],
            &e,
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        shards.push(j);
    }
    let merged = dir.join("merged.json");
    let mut args = vec!["merge", "--json", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    let out = ds_harness_env(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&merged);
    assert_eq!(v["meta"]["override"]["chip"], chip.name, "{v}");
    assert_eq!(
        v["meta"]["override"]["by"],
        format!("HSA_OVERRIDE_GFX_VERSION={version}")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The chip cannot be read (the stand-in's simulated KFD topology made unreadable, as where
/// `/sys/class/kfd` is not mounted): under an override the chip is unknown, the run still runs
/// and says so, and `--record` is refused (exit 2) before anything runs, writing nothing. Without
/// an override the runtime's report is taken as the chip, and the source says so.
#[test]
fn an_unreadable_chip_under_an_override_is_unknown_and_never_recorded() {
    let Some(lib) = standin_lib() else { return };
    let (chip, runs_as) = (
        Target::by_name("gfx1032").unwrap(),
        Target::by_name("gfx1030").unwrap(),
    );
    let version = version_of(runs_as);
    let mut e = env(&lib);
    e.push(("DS_HIP_STANDIN_KFD", "unreadable"));
    let index = standin_index(chip);
    // Without an override: the report is the chip, said to be taken as it.
    let info = json_out(&ds_harness_env(&["info", "--json"], &e));
    let d = &info["devices"][index.parse::<usize>().unwrap()];
    assert_eq!(d["arch"], chip.name, "{d}");
    assert!(
        d["arch_source"]
            .as_str()
            .unwrap()
            .contains("taken as the chip"),
        "{d}"
    );
    assert!(d["overridden"].is_null(), "{d}");

    e.push(("HSA_OVERRIDE_GFX_VERSION", &version));
    let text = stdout(&ds_harness_env(&["info"], &e));
    assert!(
        text.contains(&format!(
            "override: HSA_OVERRIDE_GFX_VERSION={version} runs this unknown chip as {runs_as}"
        )) && text.contains("chip: unknown (the chip could not be read: ")
            && text.contains("recordings: refused (`run --record` exits 2)"),
        "{text}"
    );
    let out = run(&e, &index, &["--wave", "32"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "override: HSA_OVERRIDE_GFX_VERSION={version} runs the unknown chip as {runs_as}"
        )) && err.contains("chip: unknown (the chip could not be read: "),
        "{err}"
    );
    let dir = common::temp_dir("unknown");
    let rec = dir.join("rec");
    let out = run(
        &e,
        &index,
        &["--wave", "32", "--record", rec.to_str().unwrap()],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--record: HSA_OVERRIDE_GFX_VERSION={version} runs this device as {runs_as} and its \
             chip could not be read"
        )) && err.contains("Make the KFD topology readable"),
        "{err}"
    );
    assert!(
        !err.contains("canary:"),
        "refused before anything runs: {err}"
    );
    assert!(!rec.exists(), "nothing recorded");
    let _ = std::fs::remove_dir_all(&dir);
}

fn json_out(out: &std::process::Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A runtime that reports another target than the chip's KFD node without
/// `HSA_OVERRIDE_GFX_VERSION` (the stand-in's `DS_HIP_STANDIN_REPORTS`, standing for any other
/// setting) is an override too: named, and the recording goes under the chip.
#[test]
fn another_setting_that_changes_the_reported_target_is_an_override_too() {
    let Some(lib) = standin_lib() else { return };
    let (chip, runs_as) = (
        Target::by_name("gfx1032").unwrap(),
        Target::by_name("gfx1030").unwrap(),
    );
    let mut e = env(&lib);
    e.push(("DS_HIP_STANDIN_REPORTS", runs_as.name));
    let index = standin_index(chip);
    let dir = common::temp_dir("other-setting");
    let rec = dir.join("rec");
    let out = run(
        &e,
        &index,
        &["--wave", "32", "--record", rec.to_str().unwrap()],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let by = format!(
        "a setting other than HSA_OVERRIDE_GFX_VERSION (the runtime reports {runs_as}, the \
         chip's KFD node {chip})"
    );
    assert!(
        err.contains(&format!("override: {by} runs the {chip} chip as {runs_as}")),
        "{err}"
    );
    let body = std::fs::read_to_string(
        rec.join(format!("emulated-hip-standin-{chip}"))
            .join("ds_add_u32.txt"),
    )
    .expect("under the chip's name");
    assert!(
        body.contains(&format!("# provenance override: {by}\n")),
        "{body}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A value of `HSA_OVERRIDE_GFX_VERSION` that is no version is refused in words (exit 3: the
/// device cannot be named).
#[test]
fn an_override_that_is_no_version_is_refused_in_words() {
    let Some(lib) = standin_lib() else { return };
    let mut e = env(&lib);
    e.push(("HSA_OVERRIDE_GFX_VERSION", "eleven"));
    let out = run(&e, "0", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not a version (major.minor.stepping"),
        "{}",
        stderr(&out)
    );
}

/// An override across generations (a gfx11 chip run as a gfx9 target) is warned about in the
/// header and the markdown, and its results are never recorded under the chip (issue 33 L7):
/// the chip cannot run that generation's code.
#[test]
fn an_override_across_generations_is_warned_about_and_not_recorded() {
    let Some(lib) = standin_lib() else { return };
    let other = TARGETS
        .iter()
        .find(|t| t.generation != DEFAULT.generation && ds_kernels::check_target(t).is_ok())
        .unwrap();
    let version = version_of(other);
    let mut e = env(&lib);
    e.push(("HSA_OVERRIDE_GFX_VERSION", &version));
    let dir = common::temp_dir("across");
    let md = dir.join("s.md");
    let out = run(
        &e,
        "0",
        &[
            "--out",
            dir.join("out").to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let warning = format!(
        "WARNING: the {DEFAULT} chip is {} and cannot run {} code",
        DEFAULT.generation, other.generation
    );
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("cannot run"), "{md}");
    let rec = dir.join("rec");
    let out = run(
        &e,
        "0",
        &[
            "--out",
            dir.join("out2").to_str().unwrap(),
            "--record",
            rec.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--record: "), "{}", stderr(&out));
    assert!(!rec.join(DEFAULT.name).exists());
    assert!(!rec.join(format!("emulated-hip-standin-{DEFAULT}")).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Vega APU no ROCm release supports: `info` names what its users run it as beside the
/// runtime's support (`HSA_OVERRIDE_GFX_VERSION=9.0.0`, after AMD's answer in ROCm/rocBLAS issue
/// #1398), and under that override the chip runs as gfx900: the run agrees and names the chip.
#[test]
fn a_vega_apu_is_told_the_override_its_users_set_and_runs_under_it() {
    let Some(lib) = standin_lib() else { return };
    let info = |e: &[(&str, &str)], index: usize| -> Value {
        let out = ds_harness_env(&["info", "--json"], e);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).expect("info --json is JSON");
        v["devices"][index].clone()
    };
    let mut checked = Vec::new();
    // The chips a ROCm device can be (a Raven Ridge 2 is reported as the Raven Ridge row).
    for r in ds_isa::target::UNSUPPORTED_RUN_AS {
        let chip = Target::by_name(r.chip).unwrap();
        if Target::by_kfd_version(chip.kfd_version) != Some(chip) {
            continue;
        }
        let (runs_as, version, _) = chip.runs_as_hint().unwrap();
        let index = standin_index(chip);
        let d = info(&env(&lib), index.parse().unwrap());
        assert_eq!(d["target"], chip.name, "{d}");
        assert_eq!(d["runtime"]["supported"], false, "{d}");
        let why = d["runtime"]["why"].as_str().unwrap();
        assert!(
            why.contains(&format!(
                "its users run it as {runs_as} with HSA_OVERRIDE_GFX_VERSION={version}"
            )) && why.contains("rocBLAS issue #1398"),
            "{why}"
        );
        assert_eq!(version_of(runs_as), version);
        let mut e = env(&lib);
        e.push(("HSA_OVERRIDE_GFX_VERSION", &version));
        let d = info(&e, index.parse().unwrap());
        assert_eq!(d["target"], runs_as.name, "{d}");
        assert_eq!(d["overridden"]["chip"], chip.name, "{d}");
        assert_eq!(d["runtime"]["supported"], true, "{d}");
        let out = run(&e, &index, &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "override: HSA_OVERRIDE_GFX_VERSION={version} runs the {chip} chip as {runs_as}"
            )),
            "{err}"
        );
        checked.push(chip.name);
    }
    assert_eq!(checked, ["gfx902", "gfx90c"]);
    // The target list names it too, device or not (ROCm may not list an unsupported GPU).
    let text = stdout(&ds_harness_env(&["info"], &env(&lib)));
    for r in ds_isa::target::UNSUPPORTED_RUN_AS {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", r.chip)))
            .unwrap_or_else(|| panic!("{}: no line in\n{text}", r.chip));
        assert!(
            line.contains(&format!(
                "its users run it as {} with HSA_OVERRIDE_GFX_VERSION=9.0.0",
                r.runs_as
            )),
            "{line}"
        );
    }
}
