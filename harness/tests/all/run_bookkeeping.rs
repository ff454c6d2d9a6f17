//! A run's own bookkeeping holds up: a launch that faults loses only the cases that fault (each
//! with its case file), a case the legal-outcome search cannot decide is `undecided`, never a
//! mismatch, and a run with no ops is not "all agree".

use crate::common;
use crate::common::temp_dir;
use ds_devices::emu::EmuDevice;
use ds_devices::Device;
use ds_devices::DeviceError;
use ds_devices::DeviceInfo;
use ds_devices::ModuleId;
use ds_harness::run;
use ds_harness::run::RunConfig;
use ds_kernels::launch::Launch;
use serde_json::Value;
use std::path::Path;

#[test]
fn an_incomplete_run_with_no_ops_is_not_all_agree() {
    let mut r = ds_harness::run::report::Report::new(common::meta("emu", 8));
    assert!(
        !r.to_markdown().starts_with("**All agree**"),
        "{}",
        r.to_markdown()
    );
    // Complete with nothing selected (an empty shard): no case to agree about.
    r.complete = true;
    assert!(r.to_markdown().starts_with("**Nothing selected**"));
    assert!(r.all_agree(), "an empty selection exits 0");
}

/// The emulated device, except that a launch holding the case whose first lane's address is
/// `poison` faults, as a device does when one workgroup faults.
struct OneBadCase {
    inner: EmuDevice,
    /// Lane 0's (address, data0).
    poison: (u32, u32),
    launches: usize,
}

impl Device for OneBadCase {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn load(&mut self, code: &[u8]) -> Result<ModuleId, DeviceError> {
        self.inner.load(code)
    }
    fn launch(&mut self, m: ModuleId, l: &mut Launch) -> Result<(), DeviceError> {
        self.launches += 1;
        let lanes = &l.buffers[ds_kernels::abi::LANES_IN].bytes;
        let stride = lanes.len() / l.workgroups as usize;
        let word = |at: usize| u32::from_le_bytes(lanes[at..at + 4].try_into().unwrap());
        let bad = (0..l.workgroups as usize).any(|c| {
            let at = c * stride;
            (
                word(at + ds_kernels::abi::LANE_IN_ADDR as usize),
                word(at + ds_kernels::abi::LANE_IN_DATA0 as usize),
            ) == self.poison
        });
        if bad {
            return Err(DeviceError::Launch(
                "memory violation in a workgroup".into(),
            ));
        }
        self.inner.launch(m, l)
    }
}

#[test]
fn a_faulting_case_loses_only_itself_and_gets_a_case_file() {
    let dir = temp_dir("careless-bisect");
    let op = common::op("ds_add_rtn_u32");
    let mut cfg = RunConfig::new(vec![op]);
    cfg.cases_per_op = 64;
    cfg.out_dir = dir.join("out");
    // The poison: lane 0's address and data of the third case of the first variant.
    let plan =
        &ds_harness::corpus::plan_in(op, cfg.seed, 64, ds_reference::wave::WaveSize::Wave32)[0];
    let poisoned = plan.case(2);
    let poison = (poisoned.wave.lanes[0].addr, poisoned.wave.lanes[0].data0[0]);
    let same = (0..plan.count)
        .filter(|&i| {
            let l = plan.case(i).wave.lanes[0];
            (l.addr, l.data0[0]) == poison
        })
        .count();
    let mut dev = OneBadCase {
        inner: EmuDevice::new(),
        poison,
        launches: 0,
    };
    let report = run::run(&cfg, &mut dev, common::meta("one bad case", 64)).unwrap();
    let v: Value = serde_json::from_str(&report.to_json()).unwrap();
    let o = &v["ops"][0];
    assert_eq!(o["errors"], same as u64, "{o}");
    assert_eq!(o["fidelity"]["device_error"], same as u64);
    assert_eq!(
        o["agree"].as_u64().unwrap() + same as u64 + o["skipped"].as_u64().unwrap(),
        o["cases"].as_u64().unwrap()
    );
    let lost = o["lost"].as_array().expect("the lost cases are listed");
    assert_eq!(lost.len(), same);
    assert_eq!(lost[0]["id"], plan.id(2));
    let file = ds_harness::case::CaseFile::read(Path::new(lost[0]["path"].as_str().unwrap()))
        .expect("a case file to replay");
    assert_eq!(file.case, poisoned);
    assert!(dev.launches < 40, "{} launches", dev.launches);
}

#[test]
fn a_case_the_search_cannot_decide_is_undecided_not_a_mismatch() {
    use ds_harness::run::legal::Legality;
    fn give_up(
        _: &ds_isa::target::Target,
        _: &ds_reference::wave::Variant,
        _: &ds_reference::wave::Case,
        _: &ds_reference::wave::Outcome,
        _: &ds_reference::wave::Outcome,
    ) -> Legality {
        Legality::Undecided("gave up (a stand-in judge)".into())
    }
    let op = common::op("ds_add_rtn_u32");
    let mut cfg = RunConfig::new(vec![op]);
    cfg.out_dir = temp_dir("careless-undecided");
    cfg.judge = give_up;
    let mut dev = EmuDevice::new().with_fault(ds_devices::emu::Fault {
        op,
        lane: 0,
        word: 0,
        xor: 1,
    });
    let report = run::run(&cfg, &mut dev, common::meta("undecided", 160)).unwrap();
    let v: Value = serde_json::from_str(&report.to_json()).unwrap();
    let o = &v["ops"][0];
    assert_eq!(o["disagree"], 0, "{o}");
    assert!(o["undecided"].as_u64().unwrap() > 0, "{o}");
    assert_eq!(o["fidelity"]["undecided"], o["undecided"]);
    assert!(o["fidelity"].get("mismatch").is_none(), "{o}");
    assert!(report.all_agree(), "undecided does not fail the run");
    assert!(
        report.summary().contains("undecided"),
        "{}",
        report.summary()
    );
}
