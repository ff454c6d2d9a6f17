//! Shrinking on the device: a mutant device that corrupts one lane of one case among many is
//! caught by a run, and shrinking that case ends at one active lane with no non-zero LDS words,
//! writes the case directory (case JSON, kernel listing, code object), and the replay command's
//! case file reproduces the disagreement on the same device; the same for a target's own op
//! (gfx12's, through the stand-in that damages its results, the file's target read back), and
//! the shrunk report shows every active lane's inputs.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_env;
use crate::common::standin_lib;
use crate::common::stderr;
use crate::common::stdout;
use crate::common::temp_dir;
use ds_isa::gen::Generation;
use ds_isa::target::TARGETS;

use ds_devices::emu::EmuDevice;
use ds_devices::{Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_harness::run::diff::diff;
use ds_harness::run::report::RunMeta;
use ds_harness::run::{self, legal, RunConfig};
use ds_harness::shrink;
use ds_isa::ds::DsOp;
use ds_isa::target::DEFAULT;
use ds_kernels::abi::{
    self, LANES_IN, LANES_OUT, LANE_IN_BYTES, LANE_IN_DATA0, LANE_OUT_BYTES, WAVE_IN,
};
use ds_reference::model;
use ds_reference::wave::WaveSize;

const LANES: usize = WaveSize::Wave32.lanes();
use std::path::Path;

const OP: &str = "ds_add_rtn_u32";

/// The emulated device with one bug: when lane `lane` is active and its DATA0 is `data0`, its
/// returned value comes back with bit 3 flipped. Only one case of the corpus has that value there.
#[derive(Debug)]
struct Mutant {
    inner: EmuDevice,
    lane: usize,
    data0: u32,
    launches: usize,
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

impl Device for Mutant {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        self.inner.load(code_object)
    }
    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        self.launches += 1;
        self.inner.launch(module, launch)?;
        if !launch.kernel.starts_with(&format!("{OP}_")) {
            return Ok(());
        }
        for c in 0..launch.workgroups as usize {
            let exec = word(&launch.buffers[WAVE_IN].bytes, c * 8);
            let lane_in = (c * LANES + self.lane) * LANE_IN_BYTES as usize;
            let d0 = word(
                &launch.buffers[LANES_IN].bytes,
                lane_in + LANE_IN_DATA0 as usize,
            );
            if exec >> self.lane & 1 == 1 && d0 == self.data0 {
                let at = (c * LANES + self.lane) * LANE_OUT_BYTES as usize;
                launch.buffers[LANES_OUT].bytes[at] ^= 1 << 3;
            }
        }
        Ok(())
    }
}

fn meta() -> RunMeta {
    common::meta("mutant", corpus::DEFAULT_CASES_PER_OP)
}

#[test]
fn a_one_lane_fault_shrinks_to_one_lane_and_no_lds_words_and_replays() {
    let op = DsOp::from_name(OP).unwrap();
    let cfg = RunConfig {
        out_dir: common::temp_dir("shrink").join("out"),
        ..RunConfig::new(vec![op])
    };
    // Pick a lane value that occurs once in the corpus, in a case with many active lanes and
    // non-zero LDS words, so there is something to shrink.
    let cases: Vec<_> = corpus::for_op(op, cfg.seed, cfg.cases_per_op)
        .into_iter()
        .flat_map(|v| v.cases)
        .collect();
    let (lane, data0) = cases
        .iter()
        .filter(|c| c.case.wave.exec.count_ones() >= 8 && c.case.lds.nonzero_words().count() >= 4)
        .flat_map(|c| (0..LANES).map(move |i| (c, i)))
        .filter(|&(c, i)| c.case.wave.exec >> i & 1 == 1)
        .map(|(c, i)| (i, c.case.wave.lanes[i].data0[0]))
        .find(|&(i, v)| {
            v > 1
                && cases
                    .iter()
                    .filter(|c| {
                        c.case.wave.exec >> i & 1 == 1 && c.case.wave.lanes[i].data0[0] == v
                    })
                    .count()
                    == 1
        })
        .expect("a lane value unique to one case");
    let mut dev = Mutant {
        inner: EmuDevice::new(),
        lane,
        data0,
        launches: 0,
    };
    let report = run::run(&cfg, &mut dev, meta()).unwrap();
    let o = &report.ops[0];
    assert_eq!(
        (o.disagree, o.cases),
        (1, cases.len()),
        "{}",
        report.summary()
    );
    let mismatch = &o.mismatches[0];
    let file = CaseFile::read(Path::new(mismatch.path.as_ref().unwrap())).unwrap();
    let before = shrink::size(&file.variant, &file.case);

    let launches_before = dev.launches;
    let sh = shrink::shrink(
        &mut dev,
        &file.id,
        file.seed,
        &file.variant,
        &file.case,
        model::execute,
        legal::judge,
    )
    .unwrap();
    assert_eq!(dev.launches - launches_before, sh.launches);
    eprintln!(
        "shrunk {} from {before:?} to {:?}: {} steps, {} candidates in {} launches",
        file.id, sh.size_after, sh.steps, sh.candidates, sh.launches
    );
    assert_eq!(
        sh.case.wave.exec,
        1 << lane,
        "one active lane: the faulty one"
    );
    assert_eq!(sh.size_after.words, 0, "no non-zero LDS word is needed");
    assert_eq!(
        sh.case.wave.lanes[lane].data0[0], data0,
        "the trigger value stays"
    );
    assert!(sh.size_after < before);
    // Minimal: no candidate of the final case still disagrees.
    let kernel =
        ds_kernels::generator::generate_for(ds_isa::target::DEFAULT, &file.variant).unwrap();
    let module = dev
        .load(&ds_kernels::code_object::write(
            ds_isa::target::DEFAULT,
            &[kernel],
        ))
        .unwrap();
    let cands = shrink::candidates(&file.variant, &sh.case);
    if !cands.is_empty() {
        let mut l = abi::pack(&file.variant, &cands).unwrap();
        dev.launch(module, &mut l).unwrap();
        let outs = abi::unpack(&file.variant, &cands, &l).unwrap();
        for (c, out) in cands.iter().zip(outs) {
            let want = model::execute(DEFAULT, &file.variant.inst(), file.variant.mode, c).unwrap();
            assert!(diff(op.info(), c.wave.exec, &want, &out).is_empty());
        }
    }

    // The case directory and the report.
    let dir = shrink::case_dir(&cfg.out_dir, &sh);
    let replay = sh
        .write_dir(&dir, "emu", "--backend emu", "mutant")
        .unwrap();
    for f in ["case.json", "kernel.s", "kernel.co"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    assert!(std::fs::read_to_string(dir.join("kernel.s"))
        .unwrap()
        .contains(OP));
    let text = sh.report(&replay);
    eprintln!("{text}");
    assert!(text.contains(&format!("SHRUNK {} ({OP})", file.id)));
    assert!(text.contains("1 active lanes"));
    assert!(text.contains(&format!("lane {lane} (active) vdst[0]")));
    assert_eq!(
        text.lines().filter(|l| l.contains("model 0x")).count(),
        1,
        "only the differing lane is listed"
    );

    // The replay command names the case file; replaying it on the same device disagrees the same way.
    let path = replay.split_whitespace().nth(2).unwrap();
    let again = CaseFile::read(Path::new(path)).unwrap();
    assert_eq!(again.case, sh.case);
    let out = run::run_one(&mut dev, &again.variant, &again.case).unwrap();
    let want = model::execute(
        DEFAULT,
        &again.variant.inst(),
        again.variant.mode,
        &again.case,
    )
    .unwrap();
    assert_eq!(
        diff(op.info(), again.case.wave.exec, &want, &out),
        sh.differences
    );
    // What `ds-harness run` does with its mismatches: the same minimal case, written and reported.
    let texts = shrink::shrink_mismatches(
        &mut dev,
        &report,
        &cfg.out_dir,
        model::execute,
        legal::judge,
    );
    assert_eq!(texts.len(), 1);
    assert_eq!(texts[0], text);
    // ... and through the CLI on the (correct) emulated device it agrees: the bug is the mutant's.
    let cli = common::ds_harness(&["replay", path, "--backend", "emu"], "");
    assert_eq!(cli.status.code(), Some(0), "{}", common::stdout(&cli));
}

/// A disagreement on a target's own op (gfx908's src2 op, through the stand-in that flips a bit
/// of every LDS dump) is shrunk, reported in the target's encoding, and its minimal case file
/// replays and evaluates.
#[test]
fn a_disagreement_on_a_targets_own_op_shrinks_and_its_case_replays() {
    let Some(lib) = standin_lib() else { return };
    let dir = temp_dir("own-op-shrink");
    let out = dir.join("out");
    let o = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            "gfx908",
            "--op",
            "ds_add_src2_u32",
            "--cases",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        &[
            ("DS_HARNESS_HIP_LIB", &lib),
            ("DS_HARNESS_HIP_SEARCH", "only-env"),
            ("DS_HIP_STANDIN_FLIP", "1"),
        ],
    );
    let text = stdout(&o);
    assert_eq!(code(&o), 1, "{text}\n{}", stderr(&o));
    assert!(text.contains("SHRUNK"), "{text}");
    assert!(!text.contains("does not encode"), "{text}");
    let min = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: ds-harness replay "))
        .and_then(|l| l.split(' ').next())
        .expect("a replay command");
    for args in [vec!["eval", min], vec!["replay", min, "--backend", "emu"]] {
        let o = common::ds_harness_no_env(&args);
        assert_eq!(code(&o), 0, "{args:?}: {}\n{}", stdout(&o), stderr(&o));
    }
}

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

#[test]
fn the_shrunk_report_shows_every_active_lanes_inputs() {
    // A store whose lane 3 stored the wrong word: the difference is in LDS only.
    let op = common::op("ds_store_b32");
    let plan = &ds_harness::corpus::plan_in(op, 1, 1, ds_reference::wave::WaveSize::Wave32)[0];
    let mut case = plan.case(0);
    case.wave.exec = 1 << 3;
    case.wave.lanes[3].addr = 8;
    case.wave.lanes[3].data0[0] = 0x1234;
    let expected = ds_reference::model::execute(
        ds_isa::target::DEFAULT,
        &plan.variant.inst(),
        plan.variant.mode,
        &case,
    )
    .unwrap();
    let mut device = expected.clone();
    device.lds.set_word(8, 0x1235);
    let differences = ds_harness::run::diff::diff(
        plan.variant.inst().info(),
        case.wave.exec,
        &expected,
        &device,
    );
    let size = ds_harness::shrink::size(&plan.variant, &case);
    let sh = ds_harness::shrink::Shrunk {
        id: "x".into(),
        seed: 1,
        target: ds_isa::target::DEFAULT,
        variant: plan.variant,
        case,
        expected,
        device,
        differences,
        steps: 0,
        launches: 1,
        candidates: 0,
        size_before: size,
        size_after: size,
    };
    let text = sh.report("ds-harness replay x");
    assert!(
        text.contains("lane 3 (active) in: addr=0x00000008 data0=00001234"),
        "{text}"
    );
}
