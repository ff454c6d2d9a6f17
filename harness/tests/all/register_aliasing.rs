//! Operands that share registers (`variant.regs`) end to end: every aliasing pattern's kernel on
//! the emulated device agrees with the model, in wave32 and wave64; a wave64 aliasing variant of
//! `ds_load_2addr_b32` (ADDR inside VDST) runs on emu and through the stand-in and agrees; a
//! kernel that reads ADDR after writing part of VDST is caught by a run in wave32 and in wave64;
//! case files with `regs` round-trip through `eval` and `replay`; a case that gives one register
//! two values is refused in words.

use crate::common;

use common::op;
use ds_isa::gen::Generation;
use ds_isa::target::DEFAULT;

use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_devices::{Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_harness::case::CaseFile;
use ds_harness::corpus::{self, DEFAULT_SEED};
use ds_harness::run::diff::{diff, Difference};

use ds_harness::run::{self, RunConfig};
use ds_isa::ds::{runnable_ops, DsInst, DsOp};
use ds_isa::inst::{encode_into, Inst, Waitcnt};
use ds_kernels::code_object;
use ds_kernels::generator::{self, Kernel};
use ds_reference::model::{self, snapshot::snapshot_corpus};
use ds_reference::regs::Alias;
use std::collections::BTreeMap;

#[test]
fn every_aliasing_pattern_runs_on_the_emulated_device_and_agrees_with_the_model() {
    let mut dev = EmuDevice::new();
    let mut per_pattern: BTreeMap<&str, usize> = BTreeMap::new();
    let mut changed_by_a_result = 0;
    for op in runnable_ops(Generation::Gfx11) {
        for (name, variant, case) in snapshot_corpus(op) {
            let Some(regs) = variant.regs else { continue };
            let alias = Alias::ALL
                .into_iter()
                .find(|a| a.regs(op) == Some(regs))
                .expect("a corpus pattern");
            let want = model::execute_variant(DEFAULT, &variant, &case).unwrap();
            let got = run::run_one(&mut dev, &variant, &case).unwrap();
            let d = diff(op.info(), case.wave.exec, &want, &got);
            assert!(d.is_empty(), "{op} {name}: {d:?}");
            assert_eq!(want, got, "{op} {name}");
            *per_pattern.entry(alias.name()).or_default() += 1;
            // A register another operand shares took a result.
            let addr_changed = (0..32).any(|i| want.addr[i] != case.wave.lanes[i].addr);
            let data_changed = want
                .data0
                .is_some_and(|d| (0..32).any(|i| d[i] != case.wave.lanes[i].data0));
            changed_by_a_result += usize::from(addr_changed || data_changed);
        }
    }
    for a in Alias::ALL {
        assert!(
            per_pattern.get(a.name()).is_some_and(|&n| n > 0),
            "{per_pattern:?}"
        );
    }
    assert!(changed_by_a_result > 50, "{changed_by_a_result}");
}

/// The emulated device, loading a code object with one kernel swapped for a mutant.
struct SwappedDevice {
    inner: EmuDevice,
    code_object: Vec<u8>,
}

impl Device for SwappedDevice {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, _: &[u8]) -> Result<ModuleId, DeviceError> {
        self.inner.load(&self.code_object)
    }
    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        self.inner.launch(module, launch)
    }
}

/// `k` with its `ds_load_2addr_b32` done as two `ds_load_b32`, the second reading ADDR after the
/// first has written VDST's first register: what a device that writes before it reads does.
fn split_pair_load(k: &Kernel) -> Kernel {
    let mut insts = Vec::new();
    for &(inst, note) in &k.insts {
        match inst {
            Inst::Ds(ds) if note == "the instruction under test" => {
                let half = |vdst: u8, offset: u8| DsInst {
                    addr: ds.addr,
                    vdst,
                    offset0: offset * 4,
                    ..DsInst::new(DsOp::LoadB32)
                };
                insts.push((Inst::Ds(half(ds.vdst, ds.offset0)), note));
                insts.push((
                    Inst::waitcnt(k.gen, Waitcnt::lgkm(0)),
                    "mutant: vdst[0] written",
                ));
                insts.push((
                    Inst::Ds(half(ds.vdst + 1, ds.offset1)),
                    "mutant: addr read now",
                ));
            }
            _ => insts.push((inst, note)),
        }
    }
    assert_eq!(insts.len(), k.insts.len() + 2);
    let mut code = Vec::new();
    for (inst, _) in &insts {
        encode_into(k.gen, inst, &mut code).unwrap();
    }
    Kernel {
        insts,
        code,
        ..k.clone()
    }
}

#[test]
fn a_kernel_that_reads_addr_after_writing_vdst_is_caught_in_its_aliasing_variant_only() {
    let load = op("ds_load_2addr_b32");
    let vcs = corpus::for_op(load, DEFAULT_SEED, corpus::DEFAULT_CASES_PER_OP);
    let mutant = vcs
        .iter()
        .position(|vc| vc.variant.regs == Alias::AddrFirstVdst.regs(load))
        .expect("the default corpus runs addr = vdst[0]");
    let kernels: Vec<Kernel> = vcs
        .iter()
        .enumerate()
        .map(|(i, vc)| {
            let k = generator::generate_for(ds_isa::target::DEFAULT, &vc.variant).unwrap();
            if i == mutant {
                split_pair_load(&k)
            } else {
                k
            }
        })
        .collect();
    let mut dev = SwappedDevice {
        inner: EmuDevice::new(),
        code_object: code_object::write(ds_isa::target::DEFAULT, &kernels),
    };
    let dir = temp_dir("alias-mutant");
    let cfg = RunConfig {
        out_dir: dir.join("out"),
        ..RunConfig::new(vec![load])
    };
    let report = run::run(
        &cfg,
        &mut dev,
        common::meta("emu", corpus::DEFAULT_CASES_PER_OP),
    )
    .unwrap();
    let r = &report.ops[0];
    assert!(r.disagree > 0, "{}", report.summary());
    for (i, v) in r.variants.iter().enumerate() {
        if i == mutant {
            assert!(v.disagree > 0, "{}", v.tag);
        } else {
            assert_eq!(v.disagree, 0, "{}", v.tag);
        }
    }
    // Where it shows: the second element, loaded through the clobbered address.
    assert!(r.mismatches.iter().all(|m| m.id.contains(&vcs[mutant].tag)));
    assert!(r
        .mismatches
        .iter()
        .any(|m| m.differences.iter().any(|d| matches!(
            d,
            Difference::Vdst {
                word: 1,
                active: true,
                ..
            }
        ))));
    // The device shrinks the first mismatch to a smaller case that still gives each register
    // one value and still disagrees.
    let m = &r.mismatches[0];
    let gc = vcs[mutant].cases.iter().find(|c| c.id == m.id).unwrap();
    let variant = vcs[mutant].variant;
    let shrunk = ds_harness::shrink::shrink(
        &mut dev,
        &gc.id,
        DEFAULT_SEED,
        &variant,
        &gc.case,
        model::execute,
        ds_harness::run::legal::judge,
    )
    .unwrap();
    assert!(shrunk.size_after < shrunk.size_before);
    assert!(!shrunk.differences.is_empty());
    let regs = variant.regs.unwrap();
    assert_eq!(regs.conflict(load, false, &shrunk.case.wave.lanes), None);
    assert!(
        shrunk.case.wave.exec.count_ones() <= 2,
        "{:#x}",
        shrunk.case.wave.exec
    );
    // Without aliasing the same split is invisible (ADDR is not VDST): the test tells the
    // difference between the two, not just between two kernels.
    let plain = vcs.iter().find(|vc| vc.variant.regs.is_none()).unwrap();
    let k =
        split_pair_load(&generator::generate_for(ds_isa::target::DEFAULT, &plain.variant).unwrap());
    let mut dev = SwappedDevice {
        inner: EmuDevice::new(),
        code_object: code_object::write(ds_isa::target::DEFAULT, &[k]),
    };
    for gc in &plain.cases {
        let got = run::run_one(&mut dev, &plain.variant, &gc.case).unwrap();
        let want = model::execute_variant(DEFAULT, &plain.variant, &gc.case).unwrap();
        assert_eq!(got, want, "{}", gc.id);
    }
}

/// A case file of `op`'s first snapshot case in `alias`.
fn alias_case_file(op: DsOp, alias: Alias) -> CaseFile {
    let want = format!("alias_{}", alias.name());
    let (name, variant, case) = snapshot_corpus(op)
        .into_iter()
        .find(|(n, _, _)| *n == want)
        .unwrap();
    CaseFile::new(name, 0, ds_isa::target::DEFAULT, variant, case)
}

#[test]
fn case_files_with_regs_round_trip_through_eval_and_replay() {
    let dir = temp_dir("alias-files");
    for (name, alias) in [
        ("ds_load_2addr_b32", Alias::AddrFirstVdst),
        ("ds_load_2addr_b64", Alias::AddrLastVdst),
        (
            "ds_storexchg_2addr_stride64_rtn_b64",
            Alias::AddrInVdstData0Data1,
        ),
        ("ds_cmpstore_rtn_b32", Alias::Data0InVdst),
    ] {
        let file = alias_case_file(op(name), alias);
        let path = dir.join(format!("{name}.json"));
        file.write(&path).unwrap();
        // The file names the registers, and reads back as written.
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"regs\""), "{text}");
        assert_eq!(CaseFile::read(&path).unwrap().variant, file.variant);

        let out = ds(&["eval", path.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let outcome: ds_reference::wave::Outcome =
            serde_json::from_value(v["outcome"].clone()).unwrap();
        assert_eq!(
            outcome,
            model::execute_variant(DEFAULT, &file.variant, &file.case).unwrap()
        );
        // The instruction is printed with the variant's registers.
        let inst = v["inst"].as_str().unwrap();
        assert!(
            inst.starts_with(&file.variant.inst().text(Generation::Gfx11).to_string()),
            "{inst}"
        );
        assert!(!inst.contains(" v0, v0, v0"), "{inst}");

        let out = ds(&["replay", path.to_str().unwrap(), "--backend", "emu"]);
        assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    }
}

#[test]
fn a_register_given_two_values_is_refused_naming_lane_register_and_values() {
    let dir = temp_dir("alias-refused");
    let mut file = alias_case_file(op("ds_load_2addr_b32"), Alias::AddrFirstVdst);
    // v0 is lane 3's addr and its vdst[0]: give them different values.
    file.case.wave.lanes[3].addr = 0x40;
    file.case.wave.lanes[3].vdst[0] = 0x44;
    let path = dir.join("bad.json");
    file.write(&path).unwrap();
    for args in [
        vec!["eval", path.to_str().unwrap()],
        vec!["replay", path.to_str().unwrap(), "--backend", "emu"],
    ] {
        let out = ds(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("lane 3: register v0 is 0x00000040 as addr but 0x00000044 as vdst[0]"),
            "{err}"
        );
        assert!(err.contains("give it the same value"), "{err}");
    }
    // Registers that do not fit the op are refused too, with the fix.
    let mut file = alias_case_file(op("ds_load_2addr_b32"), Alias::AddrFirstVdst);
    file.variant.regs.as_mut().unwrap().vdst = Some(255);
    file.write(&path).unwrap();
    let out = ds(&["eval", path.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("vdst takes 2 registers from v255, past v255"),
        "{}",
        stderr(&out)
    );
}

/// The wave64 `ds_load_2addr_b32` case with ADDR as VDST's first register (`addr = vdst[0]`): the
/// snapshot corpus's aliasing case widened to 64 lanes.
fn load_2addr_w64_addr_first_vdst() -> (ds_reference::wave::Variant, ds_reference::wave::Case) {
    let want = format!("alias_{}/w64", Alias::AddrFirstVdst.name());
    let (_, v, c) = ds_reference::model::snapshot::snapshot_corpus_wave64(op("ds_load_2addr_b32"))
        .into_iter()
        .find(|(n, _, _)| *n == want)
        .expect("the wave64 corpus widens the aliasing cases");
    assert_eq!(v.wave, ds_reference::wave::WaveSize::Wave64);
    assert_eq!(v.regs, Alias::AddrFirstVdst.regs(v.op));
    (v, c)
}

#[test]
fn a_wave64_aliasing_load_2addr_runs_on_emu_and_through_the_standin_and_agrees() {
    let (v, c) = load_2addr_w64_addr_first_vdst();
    // Upper lanes take part: ADDR (= vdst[0]) is overwritten by the first element there too.
    assert!(c.wave.exec >> 32 != 0, "{:#x}", c.wave.exec);
    // Every target that runs wave64 (gfx1250 is wave32 only: its device refuses the case).
    for t in ds_kernels::kernel_targets().filter(|t| t.wave_sizes.contains(&64)) {
        let want = model::execute_variant(t, &v, &c).unwrap();
        let got = run::run_one(&mut EmuDevice::for_target(t), &v, &c).unwrap();
        assert_eq!(got, want, "{t}");
        let active_upper = (32..64).find(|&i| c.wave.active(i)).unwrap();
        assert_ne!(
            want.addr[active_upper], c.wave.lanes[active_upper].addr,
            "{t}: lane {active_upper}'s ADDR took vdst[0]"
        );
    }
    // Through the stand-in HIP runtime: the case file replays, and a wave64 run of the op (its
    // default corpus has the aliasing variants in wave64 too) agrees.
    let Some(lib) = common::standin_lib() else {
        return;
    };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    let dir = temp_dir("alias-w64-standin");
    let path = dir.join("w64.json");
    CaseFile::new("alias.w64", 0, DEFAULT, v, c)
        .write(&path)
        .unwrap();
    let out = common::ds_harness_env(
        &["replay", path.to_str().unwrap(), "--backend", "hip"],
        &env,
    );
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    assert!(stderr(&out).contains("stand-in"), "{}", stderr(&out));
    let json = dir.join("r.json");
    let out = common::ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_load_2addr_b32",
            "--wave",
            "64",
            "--json",
            json.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &env,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let variants = r["ops"][0]["variants"].as_array().unwrap();
    let alias = variants
        .iter()
        .find(|x| {
            x["tag"]
                .as_str()
                .unwrap()
                .contains(Alias::AddrFirstVdst.name())
        })
        .expect("a wave64 aliasing variant ran");
    assert!(alias["agree"].as_u64().unwrap() > 0, "{alias}");
    assert_eq!(r["totals"]["disagree"], 0);
}

#[test]
fn a_kernel_that_reads_addr_after_writing_vdst_is_caught_in_wave64_as_in_wave32() {
    use ds_reference::wave::WaveSize;
    let load = op("ds_load_2addr_b32");
    let waves = [WaveSize::Wave32, WaveSize::Wave64];
    let cases = corpus::DEFAULT_CASES_PER_OP;
    let plans = corpus::plan_waves(load, DEFAULT_SEED, cases, &waves);
    let is_mutant = |v: &ds_reference::wave::Variant| v.regs == Alias::AddrFirstVdst.regs(load);
    assert_eq!(plans.iter().filter(|p| is_mutant(&p.variant)).count(), 2);
    let kernels: Vec<Kernel> = plans
        .iter()
        .map(|p| {
            let k = generator::generate_for(ds_isa::target::DEFAULT, &p.variant).unwrap();
            if is_mutant(&p.variant) {
                split_pair_load(&k)
            } else {
                k
            }
        })
        .collect();
    let mut dev = SwappedDevice {
        inner: EmuDevice::new(),
        code_object: code_object::write(DEFAULT, &kernels),
    };
    let dir = temp_dir("alias-mutant-w64");
    let cfg = RunConfig {
        out_dir: dir.join("out"),
        waves: waves.to_vec(),
        ..RunConfig::new(vec![load])
    };
    let report = run::run(&cfg, &mut dev, common::meta("emu", cases)).unwrap();
    assert_eq!(report.ops.len(), 2);
    for r in &report.ops {
        for v in &r.variants {
            let mutant = v.tag.contains(Alias::AddrFirstVdst.name());
            assert_eq!(v.disagree > 0, mutant, "{} {}", r.wave, v.tag);
        }
        // Where it shows: the second element of an active lane, loaded through the clobbered
        // address, named by its lane.
        let lanes: Vec<usize> = r
            .mismatches
            .iter()
            .flat_map(|m| m.differences.iter())
            .filter_map(|d| match *d {
                Difference::Vdst {
                    lane,
                    word: 1,
                    active: true,
                    ..
                } => Some(lane),
                _ => None,
            })
            .collect();
        assert!(!lanes.is_empty(), "{}: {}", r.wave, report.summary());
        if !r.wave.is_wave32() {
            assert!(
                lanes.iter().any(|&l| l >= 32),
                "an upper lane is caught: {lanes:?}"
            );
        }
        eprintln!(
            "{}: caught in lanes {:?}",
            r.wave,
            &lanes[..lanes.len().min(8)]
        );
    }
}
