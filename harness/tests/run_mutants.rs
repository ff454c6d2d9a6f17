//! The harness can fail: a broken model, a broken device and a broken kernel are each caught by
//! a run, reported under the right op and variant, with the right lane and values, in the case
//! files, the JSON and the JUnit XML. A device taking another legal choice agrees, and a run that
//! dies half-way leaves whole result files for the ops it finished.

mod common;

use common::op;
use ds_isa::gen::Generation;

use common::temp_dir;
use ds_devices::emu::{EmuDevice, Fault};
use ds_devices::{Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_harness::run::diff::{diff, Difference};
use ds_harness::run::legal::Legality;
use ds_harness::run::report::{Report, RunMeta};
use ds_harness::run::{self, RunConfig};
use ds_isa::ds::DsInst;
use ds_isa::inst::{encode, GlobalOp, Inst};
use ds_isa::target::Target;
use ds_kernels::generator;
use ds_reference::model::{self, Unmodelled};
use ds_reference::wave::{Case, FpMode, Outcome, Variant};
use serde_json::Value;

fn meta() -> RunMeta {
    common::meta("emu", corpus::DEFAULT_CASES_PER_OP)
}

fn config(ops: &[&str], name: &str) -> RunConfig {
    let dir = temp_dir(name);
    RunConfig {
        out_dir: dir.join("out"),
        json: Some(dir.join("r.json")),
        junit: Some(dir.join("r.xml")),
        ..RunConfig::new(ops.iter().map(|n| op(n)).collect())
    }
}

/// The model with one op's update function changed: ds_sub_u32 computes `data - mem` (rsub).
fn model_with_sub_swapped(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    if inst.op == op("ds_sub_u32") {
        let rsub = DsInst {
            op: op("ds_rsub_u32"),
            ..*inst
        };
        return model::execute(target, &rsub, mode, case);
    }
    model::execute(target, inst, mode, case)
}

/// The mutant model's judge: it knows no legal alternatives (the real model's would recompute the
/// unbroken expectation and accept the device).
fn no_alternatives(_: &Target, _: &Variant, _: &Case, _: &Outcome, _: &Outcome) -> Legality {
    Legality::Illegal("the mutant model allows no alternatives".into())
}

fn json(cfg: &RunConfig) -> Value {
    serde_json::from_str(&std::fs::read_to_string(cfg.json.as_ref().unwrap()).unwrap()).unwrap()
}

fn junit(cfg: &RunConfig) -> String {
    std::fs::read_to_string(cfg.junit.as_ref().unwrap()).unwrap()
}

#[test]
fn a_broken_model_is_caught_on_its_op_with_the_right_values() {
    let cfg = RunConfig {
        expect: model_with_sub_swapped,
        judge: no_alternatives,
        ..config(&["ds_add_u32", "ds_sub_u32"], "mutant-model")
    };
    let report = run::run(&cfg, &mut EmuDevice::new(), meta()).unwrap();
    assert!(!report.all_agree());
    let (add, sub) = (&report.ops[0], &report.ops[1]);
    assert_eq!((add.op.as_str(), add.disagree), ("ds_add_u32", 0));
    assert_eq!(sub.op, "ds_sub_u32");
    assert!(
        sub.disagree > sub.cases / 2,
        "{} of {}",
        sub.disagree,
        sub.cases
    );
    assert_eq!(sub.mismatches.len(), sub.disagree);

    // Single-lane cases: the LDS word at the lane's address is `data - mem` in the mutant model
    // and `mem - data` on the device.
    let mut checked = 0;
    for m in sub.mismatches.iter().filter(|m| m.id.contains("exec-one")) {
        let file = CaseFile::read(m.path.as_ref().unwrap().as_ref()).unwrap();
        let wave = &file.case.wave;
        let lane = wave.exec.trailing_zeros() as usize;
        let at = wave.lanes[lane]
            .addr
            .wrapping_add(file.variant.inst().offset16() as u32);
        if !at.is_multiple_of(4) || at + 4 > file.variant.lds_size {
            continue;
        }
        let (mem, data) = (file.case.lds.word(at), wave.lanes[lane].data0[0]);
        let want = Difference::Lds {
            at,
            model: data.wrapping_sub(mem),
            device: mem.wrapping_sub(data),
        };
        assert_eq!(m.differences, vec![want], "{}", m.id);
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} single-lane mismatches checked"
    );

    let r = json(&cfg);
    assert_eq!(r["totals"]["disagree"], sub.disagree);
    assert_eq!(
        r["ops"][1]["mismatches"].as_array().unwrap().len(),
        sub.disagree
    );
    assert_eq!(
        r["ops"][1]["mismatches"][0]["differences"][0]["where"],
        "lds"
    );
}

#[test]
fn a_broken_device_is_caught_on_the_right_lane_and_replays() {
    let fault = Fault {
        op: op("ds_load_b64"),
        lane: 5,
        word: 1,
        xor: 0x8000_0000,
    };
    let cfg = config(&["ds_load_b64", "ds_store_b32"], "mutant-device");
    let report = run::run(&cfg, &mut EmuDevice::new().with_fault(fault), meta()).unwrap();
    let load = &report.ops[0];
    // Exactly the cases where lane 5 runs the load disagree, each on lane 5's vdst[1] alone.
    let lane5: usize = corpus::for_op(fault.op, cfg.seed, cfg.cases_per_op)
        .iter()
        .flat_map(|v| &v.cases)
        .filter(|c| c.case.wave.exec >> 5 & 1 == 1)
        .count();
    assert!(lane5 > 0);
    assert_eq!(load.disagree, lane5);
    for m in &load.mismatches {
        match m.differences[..] {
            [Difference::Vdst {
                lane: 5,
                word: 1,
                active: true,
                model,
                device,
            }] => assert_eq!(model ^ device, 0x8000_0000, "{}", m.id),
            // Where ADDR is vdst[1]'s register (`variant.regs`), the flipped bit shows in both.
            [Difference::Vdst {
                lane: 5,
                word: 1,
                active: true,
                model,
                device,
            }, Difference::Addr {
                lane: 5,
                model: addr_model,
                device: addr_device,
                ..
            }] if m.id.contains("addr-is-vdst-last") => {
                assert_eq!(model ^ device, 0x8000_0000, "{}", m.id);
                assert_eq!((addr_model, addr_device), (model, device), "{}", m.id);
            }
            ref other => panic!("{}: {other:?}", m.id),
        }
    }
    // Another op is untouched by the fault.
    assert_eq!(report.ops[1].disagree, 0);

    // The case file replays the disagreement on the same device.
    let m = &load.mismatches[0];
    assert!(m.replay.starts_with("ds-harness replay "), "{}", m.replay);
    assert!(m.replay.contains(m.path.as_ref().unwrap()), "{}", m.replay);
    let file = CaseFile::read(m.path.as_ref().unwrap().as_ref()).unwrap();
    let mut dev = EmuDevice::new().with_fault(fault);
    let again = run::run_one(&mut dev, &file.variant, &file.case).unwrap();
    assert_eq!(Some(&again), file.device.as_ref().map(|d| &d.outcome));
    let expected = file.expected.unwrap();
    assert_eq!(
        diff(
            file.variant.op.info(),
            file.case.wave.exec,
            &expected,
            &again
        ),
        m.differences
    );

    // JUnit: the failure sits in the load's suite, names the case file and the replay command.
    let xml = junit(&cfg);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert!(!failures.is_empty());
    for f in &failures {
        let suite = f.ancestors().find(|n| n.has_tag_name("testsuite")).unwrap();
        assert_eq!(suite.attribute("name"), Some("ds_load_b64"));
        let text = f.text().unwrap();
        assert!(text.contains("replay: ds-harness replay"), "{text}");
        assert!(text.contains("lane 5 (active) vdst[1]"), "{text}");
    }
    assert!(xml.contains(m.path.as_ref().unwrap()));
    let root = doc.root_element();
    assert_eq!(
        root.attribute("failures"),
        Some(failures.len().to_string().as_str())
    );
}

/// A device whose code object is patched before loading: one byte sequence replaced by another.
#[derive(Debug)]
struct PatchedDevice {
    inner: EmuDevice,
    from: [u8; 8],
    to: [u8; 8],
}

impl Device for PatchedDevice {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        let mut bytes = code_object.to_vec();
        let hits: Vec<usize> = (0..bytes.len() - 8)
            .step_by(4)
            .filter(|&i| bytes[i..i + 8] == self.from)
            .collect();
        assert!(
            !hits.is_empty(),
            "the patched instruction is in the code object"
        );
        for at in hits {
            bytes[at..at + 8].copy_from_slice(&self.to);
        }
        self.inner.load(&bytes)
    }
    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        self.inner.launch(module, launch)
    }
}

#[test]
fn a_broken_kernel_is_caught_in_its_variant_only() {
    // The ds_add_u32 kernels with offset:0 (variants `o0` and the odd LDS size) get offset:4.
    let variant = corpus::variants(op("ds_add_u32"))[0].0;
    assert_eq!(variant.inst().offset16(), 0);
    let good = generator::test_inst(Generation::Gfx11, &variant).unwrap();
    let bad = DsInst { offset0: 4, ..good };
    let mut dev = PatchedDevice {
        inner: EmuDevice::new(),
        from: good.to_bytes(Generation::Gfx11).unwrap(),
        to: bad.to_bytes(Generation::Gfx11).unwrap(),
    };
    let cfg = config(&["ds_add_u32"], "mutant-kernel");
    let report: Report = run::run(&cfg, &mut dev, meta()).unwrap();
    let add = &report.ops[0];
    assert!(add.disagree > 0);
    let patched: Vec<String> = corpus::variants(op("ds_add_u32"))
        .into_iter()
        // Same offset, same registers (an aliasing variant's instruction has other bytes).
        .filter(|(v, _)| v.inst().offset16() == 0 && v.regs.is_none())
        .map(|(_, tag)| tag)
        .collect();
    assert_eq!(patched.len(), 2, "{patched:?}");
    for v in &add.variants {
        assert_eq!(
            v.disagree > 0,
            patched.contains(&v.tag),
            "variant {}",
            v.tag
        );
    }
    assert!(add.mismatches.iter().all(|m| patched.contains(&m.variant)));
    // Some lane's add landed 4 bytes past where the model put it.
    let lds: Vec<u32> = add
        .mismatches
        .iter()
        .flat_map(|m| &m.differences)
        .filter_map(|d| match d {
            Difference::Lds { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    assert!(!lds.is_empty());
    let r = json(&cfg);
    assert_eq!(r["ops"][0]["op"], "ds_add_u32");
    assert_eq!(r["ops"][0]["variants"][0]["tag"], "o0");
    assert_eq!(
        r["ops"][0]["variants"][0]["disagree"],
        add.variants[0].disagree
    );
}

#[test]
fn a_device_choosing_another_legal_lane_order_agrees_and_the_choice_is_reported() {
    for name in ["ds_store_b32", "ds_add_rtn_u32", "ds_storexchg_rtn_b32"] {
        let cfg = config(&[name], &format!("legal-{name}"));
        let mut dev = EmuDevice::new().with_descending_lanes(op(name));
        let report = run::run(&cfg, &mut dev, meta()).unwrap();
        let o = &report.ops[0];
        assert!(report.all_agree(), "{name}: {}", report.summary());
        let chose = o.choices.get("same-address lanes: descending lane order");
        assert!(chose.is_some_and(|&n| n > 0), "{name}: {:?}", o.choices);
        assert!(
            report.summary().contains("descending lane order on"),
            "{}",
            report.summary()
        );
        let r = json(&cfg);
        assert!(
            r["ops"][0]["choices"]["same-address lanes: descending lane order"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}

/// A device that dies (panics) at its `n`-th launch, like a run killed half-way.
#[derive(Debug)]
struct DiesAt {
    inner: EmuDevice,
    launches: usize,
    n: usize,
}

impl Device for DiesAt {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        self.inner.load(code_object)
    }
    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        self.launches += 1;
        assert!(self.launches < self.n, "killed at launch {}", self.n);
        self.inner.launch(module, launch)
    }
}

#[test]
fn an_interrupted_run_leaves_the_results_of_the_ops_it_finished() {
    let ops = ["ds_add_u32", "ds_sub_u32", "ds_load_b32", "ds_store_b32"];
    let cfg = config(&ops, "interrupted");
    let rec = cfg.out_dir.with_file_name("rec");
    let mut recorder = ds_harness::record::Recorder::new(rec.clone());
    // One launch per variant and one per recorded op: die in the second launch of the third op.
    let before: usize = ops[..2]
        .iter()
        .map(|n| corpus::variants(op(n)).len() + ds_harness::record::corpus_launches(op(n)))
        .sum();
    let mut dev = DiesAt {
        inner: EmuDevice::new(),
        launches: 0,
        n: before + 2,
    };
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run::run_with(&cfg, &mut dev, meta(), &mut |_| {}, Some(&mut recorder))
    }));
    assert!(died.is_err());
    let r = json(&cfg);
    assert_eq!(r["complete"], false);
    let done: Vec<&str> = r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["op"].as_str().unwrap())
        .collect();
    assert_eq!(done, ["ds_add_u32", "ds_sub_u32"]);
    assert_eq!(r["totals"]["agree"], 2 * corpus::DEFAULT_CASES_PER_OP);
    roxmltree::Document::parse(&junit(&cfg)).expect("the JUnit file is whole");
    // The finished ops' recordings are kept, and the run's status says it is not complete.
    let dir = rec.join("emulated-gfx1100");
    for name in &ops[..2] {
        ds_harness::record::read(&dir.join(format!("{name}.txt"))).expect("a whole recording");
    }
    assert!(!dir.join("ds_load_b32.txt").exists());
    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(status["complete"], false);
    assert_eq!(
        status["ops_recorded"],
        serde_json::json!(["ds_add_u32", "ds_sub_u32"])
    );
}

/// A model that does not cover ds_max_u32.
fn model_without_max(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    if inst.op == op("ds_max_u32") {
        return Err(Unmodelled {
            op: inst.op,
            why: "not covered by this test model",
        });
    }
    model::execute(target, inst, mode, case)
}

#[test]
fn cases_the_model_does_not_cover_are_skipped_with_the_reason() {
    let cfg = RunConfig {
        expect: model_without_max,
        ..config(&["ds_min_u32", "ds_max_u32"], "skipped")
    };
    let report = run::run(&cfg, &mut EmuDevice::new(), meta()).unwrap();
    assert!(report.all_agree(), "skips are not failures");
    let max = &report.ops[1];
    assert_eq!((max.skipped, max.agree), (max.cases, 0));
    assert_eq!(
        max.skip_reasons.get("not covered by this test model"),
        Some(&max.cases)
    );
    assert!(report.summary().contains(&format!(
        "{} not judged: not covered by this test model",
        max.cases
    )));
    let xml = junit(&cfg);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let skipped: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .collect();
    assert_eq!(skipped.len(), max.variants.len());
    assert!(skipped
        .iter()
        .all(|n| n.attribute("message") == Some("not covered by this test model")));
    let r = json(&cfg);
    assert_eq!(r["ops"][1]["skipped"], max.cases);
}

#[test]
fn a_kernel_storing_vdst_at_the_wrong_offset_is_caught_on_every_lane() {
    // The kernels' `global_store_b128` of each lane's vdst, moved 4 bytes along its record.
    let variant = corpus::variants(op("ds_load_b32"))[0].0;
    let kernel = generator::generate_for(ds_isa::target::DEFAULT, &variant).unwrap();
    let store = kernel
        .insts
        .iter()
        .map(|(i, _)| *i)
        .find(|i| {
            matches!(i, Inst::Global { op, vdata, .. }
                if *op == GlobalOp::StoreB128 && *vdata == generator::VDST)
        })
        .expect("the kernel stores vdst with global_store_b128");
    let Inst::Global {
        op: store_op,
        vdata,
        vaddr,
        saddr,
        offset,
    } = store
    else {
        unreachable!("matched a global store above")
    };
    let moved = Inst::Global {
        op: store_op,
        vdata,
        vaddr,
        saddr,
        offset: offset + 4,
    };
    let mut dev = PatchedDevice {
        inner: EmuDevice::new(),
        from: encode(kernel.gen, &store).unwrap().try_into().unwrap(),
        to: encode(kernel.gen, &moved).unwrap().try_into().unwrap(),
    };
    let cfg = config(&["ds_load_b32"], "mutant-store");
    let report = run::run(&cfg, &mut dev, meta()).unwrap();
    let load = &report.ops[0];
    // Every case of the kernels that store vdst with that instruction (the aliasing variants
    // store their one vdst register from elsewhere).
    let patched: usize = load
        .variants
        .iter()
        .filter(|v| !v.tag.contains("-is-"))
        .map(|v| v.cases)
        .sum();
    assert!(patched > 100);
    assert_eq!(load.disagree, patched, "every case disagrees");
    for m in &load.mismatches {
        // vdst[0] of every lane was never written: the output buffer's poison shows.
        assert!(m.total_differences >= 32, "{}", m.id);
        assert!(
            m.differences.iter().any(|d| matches!(
                d,
                Difference::Vdst { lane: 0, word: 0, device, .. } if *device == ds_kernels::abi::POISON
            )),
            "{}: {:?}",
            m.id,
            m.differences
        );
    }
}

#[test]
fn the_summary_of_a_run_with_a_broken_device_reads_well() {
    let fault = Fault {
        op: op("ds_max_rtn_u32"),
        lane: 31,
        word: 0,
        xor: 1,
    };
    let cfg = RunConfig {
        cases_per_op: 20,
        ..config(
            &["ds_min_rtn_u32", "ds_max_rtn_u32", "ds_swizzle_b32"],
            "summary",
        )
    };
    let mut dev = EmuDevice::new()
        .with_fault(fault)
        .with_descending_lanes(op("ds_min_rtn_u32"));
    let report = run::run(&cfg, &mut dev, meta()).unwrap();
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/harness"),
        prepend_module_to_snapshot => false,
        description => "ds-harness run summary: ds_max_rtn_u32 with lane 31's vdst[0] bit 0 flipped by the device, ds_min_rtn_u32 run highest lane first",
    }, {
        insta::assert_snapshot!("run_summary_broken_device", report.summary());
    });
}

#[test]
fn a_wave64_run_catches_a_device_whose_bpermute_reads_the_other_half_naming_the_lane() {
    use ds_reference::wave::WaveSize;
    // The device runs wave64 bpermute as if in wave32: upper lanes read the lower half (the other
    // way from ASSUMPTIONS.md W1). Its wave32 results are right.
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave32, WaveSize::Wave64],
        cases_per_op: 60,
        ..config(&["ds_bpermute_b32"], "mutant-bpermute-w64")
    };
    let mut dev = EmuDevice::new().with_bpermute_lower_half();
    let report = run::run(&cfg, &mut dev, meta()).unwrap();
    let rows: Vec<_> = report.ops.iter().map(|o| (o.wave, o.disagree)).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], (WaveSize::Wave32, 0), "wave32 is unharmed");
    assert_eq!(rows[1].0, WaveSize::Wave64);
    assert!(rows[1].1 > 0, "the wave64 row disagrees: {rows:?}");
    // Every listed difference is a register of an upper-half lane (vdst, or the register an
    // aliasing variant shares with it), named with both values.
    let m = &report.ops[1].mismatches;
    assert!(!m.is_empty());
    for mm in m {
        assert!(mm.id.contains("-w64."), "{}", mm.id);
        for d in &mm.differences {
            match *d {
                Difference::Vdst {
                    lane,
                    active: true,
                    model,
                    device,
                    ..
                }
                | Difference::Addr {
                    lane,
                    active: true,
                    model,
                    device,
                }
                | Difference::Data {
                    lane,
                    active: true,
                    model,
                    device,
                    ..
                } => {
                    assert!(lane >= 32, "{}: {d}", mm.id);
                    assert_ne!(model, device);
                }
                _ => panic!("{}: {d}", mm.id),
            }
        }
        // The case file is a wave64 case that replays the disagreement.
        let file = CaseFile::read(std::path::Path::new(mm.path.as_ref().unwrap())).unwrap();
        assert_eq!(file.variant.wave, WaveSize::Wave64);
        assert_eq!(file.case.wave.lanes.len(), 64);
    }
    let first = m[0].differences[0].to_string();
    assert!(first.starts_with("lane "), "{first}");
    eprintln!("caught: {} {first}", m[0].id);
    // The shrinker works on wave64 cases too: fewer active lanes, the difference still in the
    // upper half.
    let texts = ds_harness::shrink::shrink_mismatches(
        &mut dev,
        &report,
        &cfg.out_dir,
        cfg.expect,
        cfg.judge,
    );
    assert!(!texts.is_empty());
    let t = &texts[0];
    assert!(t.contains("1 active lanes (was 64)"), "{t}");
    let lane: usize = t
        .split("lane ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the shrunk case names its lane");
    assert!(lane >= 32, "{t}");
}
