//! Shrinking on the device: a mutant device that corrupts one lane of one case among many is
//! caught by a run, and shrinking that case ends at one active lane with no non-zero LDS words,
//! writes the case directory (case JSON, kernel listing, code object), and the replay command's
//! case file reproduces the disagreement on the same device.

mod common;

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
