//! The emulated device: runs the same code object a GPU of its target would, on the CPU. It reads each
//! kernel's descriptor (see [`descriptor`]), gives every workgroup one wave (wave32 or wave64, as
//! the descriptor says) with the initial state the target's hardware delivers for it, and
//! interprets the instructions (see the `exec` module); DS instructions run through the reference
//! model, global memory is the launch's buffers (see [`memory`]). It proves the kernels, the ABI
//! and the readback without a GPU (docs/design-notes.md, "Devices").
//!
//! It is not friendly (docs/architecture.md, "ds-devices"): the entry state is exactly
//! [`ds_kernels::entry::delivery`]'s for the target and wave size (gfx12's workgroup ids in
//! `ttmp9`/`ttmp7` only; none on a target with the init-16 bug whose descriptor declares fewer than
//! 16 user + system SGPRs), and everything else, every other SGPR, trap temporary, VGPR, VCC,
//! M0, SCC and every LDS byte, holds a pseudo-random pattern that changes with every launch and
//! workgroup. A scalar register read before anything defined it stops the launch with an error
//! naming the register and what the entry state does define, as a GPU would likely fault on the
//! garbage address.

mod acc;
mod alu;
mod code;
pub mod descriptor;
mod exec;
mod lanes;
pub mod memory;
mod ops;
mod regs;
mod resolve;

use super::{Backend, Device, DeviceError, DeviceInfo, Launch, ModuleId};
use code::Code;
use descriptor::Descriptor;
use ds_isa::ds::DsOp;
use ds_isa::ds::Generation;
use ds_isa::gen::CmpstData0;
use ds_isa::target::{self, Target};
use ds_kernels::entry::{delivery, Delivery};
use ds_reference::model::readings::Rules;
use memory::{Memory, Region, BUFFER_BASE, BUFFER_STRIDE, KERNARG_BASE};
use std::collections::HashMap;
use std::sync::Arc;

/// Instructions a wave may execute before it is stopped as a runaway loop.
pub const DEFAULT_STEP_LIMIT: u64 = 1_000_000;

/// A deliberate fault for tests of the harness itself: after every execution of `op`, the
/// device flips `xor` bits of vdst word `word` of lane `lane` (when that lane is active). A device
/// with a fault is a broken device: the run must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The DS op whose result is corrupted.
    pub op: DsOp,
    /// The lane.
    pub lane: usize,
    /// The vdst word.
    pub word: usize,
    /// Bits flipped.
    pub xor: u32,
}

/// A deliberately wrong entry state, for tests of the canary (`ds_kernels::canary`): a device
/// that hands kernels something other than what [`ds_kernels::entry::delivery`] says the target
/// delivers. Test-only: no real device is made this way; the stand-in HIP runtime exposes it as
/// `DS_HIP_STANDIN_WRONG_ENTRY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrongEntry {
    /// Every workgroup gets workgroup id 0 (in the register the target delivers it in).
    WorkgroupId,
    /// A wave64 workgroup runs only its lanes 0..31: EXEC at entry is `0xffffffff` (wave32
    /// workgroups are left alone).
    Wave,
}

impl WrongEntry {
    /// The spellings [`WrongEntry::parse`] takes, in order.
    pub const NAMES: [&'static str; 2] = ["workgroup-id", "wave"];

    /// `workgroup-id` or `wave`.
    pub fn parse(s: &str) -> Option<WrongEntry> {
        match s {
            "workgroup-id" => Some(WrongEntry::WorkgroupId),
            "wave" => Some(WrongEntry::Wave),
            _ => None,
        }
    }
}

/// Deliberate deviations from the model, for tests of the harness itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// A device that hands kernels a wrong entry state: see [`WrongEntry`].
    pub wrong_entry: Option<WrongEntry>,
    /// A broken device: see [`Fault`].
    pub fault: Option<Fault>,
    /// A legal alternative: this op's active lanes execute highest lane first (hardware may
    /// serialise lanes of one instruction that hit one address in any order).
    pub descending_lanes: Option<DsOp>,
    /// A broken wave64 device: `ds_bpermute_b32` in wave64 reads lane `(ADDR + offset)[6:2]` of
    /// the lower half for every lane (a wave64 run as wave32: the upper half reads the other way
    /// round from ASSUMPTIONS.md W1).
    pub bpermute_lower_half: bool,
    /// A device of one generation that executes DS instructions by another generation's rules
    /// (the model asked for a target of `rules_of`): e.g. a gfx12 device with gfx11's half-wave
    /// permutes. On a target of that generation it changes nothing.
    pub rules_of: Option<Generation>,
    /// A broken device that ignores the DS acc bit: data and vdst from and to the VGPRs of
    /// their numbers, not the AccVGPRs.
    pub ignore_acc: bool,
    /// A device whose compare-stores take DATA0 as `order` says, whatever its generation's rule
    /// (`Generation::cmpst_data0`): on a generation of the other order the operands are swapped
    /// (a broken device), on one of the same order nothing changes.
    pub cmpst_order: Option<CmpstData0>,
    /// A device that follows other readings of the open questions than the model's
    /// (`reference/ASSUMPTIONS.md`; `ds_reference::model::readings::Rules`): its DS instructions
    /// run by these rules. A legal reading makes a device the legal check accepts and names; a
    /// disagreement reading, one it reports naming the reading.
    pub rules: Option<Rules>,
}

/// A kernel ready to run.
#[derive(Debug)]
struct Program {
    desc: Descriptor,
    code: Arc<Code>,
    /// What the target's hardware hands the kernel at entry.
    delivery: Delivery,
    /// The target (the code object's, the device's): for messages, and whose rules its DS
    /// instructions follow.
    target: &'static Target,
    /// AccVGPRs the descriptor allocates ([`acc::split`]).
    agprs: u32,
}

/// The emulated device of one target of the target table.
#[derive(Debug)]
pub struct EmuDevice {
    info: DeviceInfo,
    modules: Vec<HashMap<String, Arc<Program>>>,
    step_limit: u64,
    threads: usize,
    quirks: Quirks,
    /// Launches so far: each launch's pattern of undefined state derives from it.
    launches: u64,
    /// Waves of earlier launches, their register files and LDS kept for the next.
    waves: Waves,
}

impl Default for EmuDevice {
    fn default() -> Self {
        EmuDevice::new()
    }
}

impl EmuDevice {
    /// An emulated device of the default target, running the workgroups of a launch on the rayon
    /// pool (every core, or `--jobs`).
    pub fn new() -> EmuDevice {
        EmuDevice::for_target(target::DEFAULT)
    }

    /// An emulated device of `target` (see [`EmuDevice::new`]). Every target of a generation runs
    /// the same way here: the model knows no difference between them (a claim recordings from
    /// each target's hardware will test).
    pub fn for_target(target: &'static Target) -> EmuDevice {
        let threads = rayon::current_num_threads();
        EmuDevice {
            info: DeviceInfo {
                backend: Backend::Emu,
                name: format!("emulated {target} (ds-harness emu)"),
                target,
                details: vec![
                    ("threads".into(), threads.to_string()),
                    ("ds semantics".into(), "ds_reference::model".into()),
                ],
            },
            modules: Vec::new(),
            step_limit: DEFAULT_STEP_LIMIT,
            threads,
            quirks: Quirks::default(),
            launches: 0,
            waves: Waves::default(),
        }
    }

    /// Sets the per-wave instruction limit.
    pub fn with_step_limit(mut self, limit: u64) -> EmuDevice {
        self.step_limit = limit;
        self
    }

    /// Sets the number of host threads a launch may use: 1 runs the workgroups in order on the
    /// calling thread; more uses the rayon pool the launch is made from.
    pub fn with_threads(mut self, threads: usize) -> EmuDevice {
        self.threads = threads.max(1);
        self
    }

    /// Makes this a broken device (for tests of the harness): see [`Fault`].
    pub fn with_fault(mut self, fault: Fault) -> EmuDevice {
        self.quirks.fault = Some(fault);
        self
    }

    /// Makes `op` run its active lanes highest lane first: a device that makes another legal
    /// choice than the model (for tests of the legal-outcome check).
    pub fn with_descending_lanes(mut self, op: DsOp) -> EmuDevice {
        self.quirks.descending_lanes = Some(op);
        self
    }

    /// Makes wave64 `ds_bpermute_b32` read the lower half for the upper half's lanes too (see
    /// [`Quirks::bpermute_lower_half`]): a broken device the wave64 run must catch.
    pub fn with_bpermute_lower_half(mut self) -> EmuDevice {
        self.quirks.bpermute_lower_half = true;
        self
    }

    /// Makes this a device that hands kernels a wrong entry state (for tests of the canary):
    /// see [`WrongEntry`].
    pub fn with_wrong_entry(mut self, wrong: WrongEntry) -> EmuDevice {
        self.quirks.wrong_entry = Some(wrong);
        self
    }

    /// Makes the device execute DS instructions by the rules of generation `gen` whatever its
    /// target (see [`Quirks::rules_of`]): a broken device when `gen` is not its target's.
    pub fn with_rules_of(mut self, gen: Generation) -> EmuDevice {
        self.quirks.rules_of = Some(gen);
        self
    }

    /// Makes the device ignore the DS acc bit (see [`Quirks::ignore_acc`]): a broken device an
    /// acc variant must catch.
    pub fn with_acc_ignored(mut self) -> EmuDevice {
        self.quirks.ignore_acc = true;
        self
    }

    /// Makes the device's compare-stores take DATA0 as `order` says (see [`Quirks::cmpst_order`]):
    /// a broken device when `order` is not its generation's.
    pub fn with_cmpst_order(mut self, order: CmpstData0) -> EmuDevice {
        self.quirks.cmpst_order = Some(order);
        self
    }

    /// Makes the device follow the readings `rules` names (see [`Quirks::rules`]): e.g. the
    /// lowest colliding permute lane, memory's NaN first, the positive default NaN.
    pub fn following(mut self, rules: Rules) -> EmuDevice {
        self.quirks.rules = Some(rules);
        self
    }

    fn add_module(&mut self, programs: HashMap<String, Arc<Program>>) -> ModuleId {
        self.modules.push(programs);
        ModuleId(self.modules.len() - 1)
    }
}

fn load_err(e: impl std::fmt::Display) -> DeviceError {
    DeviceError::Load(e.to_string())
}

impl Device for EmuDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        let co = ds_kernels::code_object::read(code_object).map_err(load_err)?;
        // The emulator executes the kernel template's instructions, written for what
        // `check_target` allows.
        ds_kernels::check_target(co.target).map_err(load_err)?;
        if co.target != self.info.target {
            return Err(load_err(format!(
                "the code object is built for {}, this device is {}: build it for {} \
                 (`--target {}`)",
                co.target, self.info.target, self.info.target, self.info.target
            )));
        }
        let mut programs = HashMap::new();
        for k in &co.kernels {
            let bad = |why: String| load_err(format!("kernel `{}`: {why}", k.name));
            let mut desc = Descriptor::parse_on(&k.descriptor.to_bytes(), self.info.target)
                .map_err(|e| bad(e.0))?;
            let agprs = acc::split(self.info.target, &k.descriptor, &mut desc).map_err(bad)?;
            desc.check(self.info.target).map_err(|e| bad(e.0))?;
            let entry = k.descriptor_address.wrapping_add(desc.entry_offset as u64);
            if entry != k.entry {
                return Err(bad(format!(
                    "the descriptor's entry {entry:#x} is not the symbol's address {:#x}",
                    k.entry
                )));
            }
            let code = Code::decode(co.target, &k.code, k.entry, entry, desc.vgprs, agprs);
            code.check_errata(self.info.target).map_err(bad)?;
            programs.insert(
                k.name.clone(),
                Arc::new(Program {
                    delivery: delivery(self.info.target, desc.wave_size(), &desc.request),
                    target: self.info.target,
                    desc,
                    code: Arc::new(code),
                    agprs,
                }),
            );
        }
        Ok(self.add_module(programs))
    }

    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        let programs = self.modules.get(module.0).ok_or_else(|| {
            DeviceError::BadRequest(format!("module {} was never loaded", module.0))
        })?;
        let prog = programs.get(&launch.kernel).cloned().ok_or_else(|| {
            let mut names: Vec<&String> = programs.keys().collect();
            names.sort();
            DeviceError::BadRequest(format!(
                "kernel `{}` is not in the code object (it has {} kernels{})",
                launch.kernel,
                names.len(),
                names
                    .first()
                    .map_or(String::new(), |n| format!(", e.g. `{n}`"))
            ))
        })?;
        check_workgroup(&prog, launch)?;
        self.launches += 1;
        let run = Run::new(
            self.step_limit,
            self.threads,
            &self.quirks,
            regs::mix(POISON_SEED, self.launches),
        );
        run_launch(&prog, launch, &run, &self.waves)
    }
}

/// A launch runs one wave per workgroup: its workgroup size is the kernel's wave size.
fn check_workgroup(prog: &Program, launch: &Launch) -> Result<(), DeviceError> {
    let wave = prog.desc.wave_size();
    if launch.workgroup_size as usize != wave.lanes() {
        return Err(DeviceError::BadRequest(format!(
            "workgroup size {} is not one {wave}; the kernel `{}` is {wave} and runs one wave per workgroup of {}",
            launch.workgroup_size,
            launch.kernel,
            wave.lanes()
        )));
    }
    Ok(())
}

/// The seed of the first launch's pattern of undefined state (any constant: a run is the same
/// on every machine).
const POISON_SEED: u64 = 0x5eed_0fba_5e0f_d5a7;

/// How a launch runs: the per-wave step limit, host threads, quirks, and the seed of the
/// pattern the undefined state holds (see the module docs).
struct Run<'a> {
    step_limit: u64,
    threads: usize,
    quirks: &'a Quirks,
    seed: u64,
    /// The target whose rules DS instructions follow when a quirk says it is not the code
    /// object's ([`Quirks::rules_of`]).
    rules_target: Option<&'static Target>,
}

impl<'a> Run<'a> {
    fn new(step_limit: u64, threads: usize, quirks: &'a Quirks, seed: u64) -> Run<'a> {
        Run {
            step_limit,
            threads,
            quirks,
            seed,
            rules_target: quirks.rules_of.and_then(|g| g.targets().next()),
        }
    }
}

/// Waves kept between launches (one per host thread that ran one), so a launch reuses their
/// register files and LDS instead of allocating its own.
#[derive(Debug, Default)]
struct Waves(std::sync::Mutex<Vec<exec::WaveState>>);

impl Waves {
    /// A wave shaped for `prog`, back in the pool when the lease ends.
    fn lease(&self, prog: &Program) -> Lease<'_> {
        let d = &prog.desc;
        let kept = self.0.lock().ok().and_then(|mut w| w.pop());
        let wave = match kept {
            Some(mut w) => {
                w.shape(d.vgprs, prog.agprs, d.lds_size, d.wave_size());
                w
            }
            None => exec::WaveState::with_agprs(d.vgprs, prog.agprs, d.lds_size, d.wave_size()),
        };
        Lease {
            pool: self,
            wave: Some(wave),
        }
    }
}

/// A wave taken from [`Waves`] for one task.
struct Lease<'a> {
    pool: &'a Waves,
    wave: Option<exec::WaveState>,
}

impl Lease<'_> {
    fn wave(&mut self) -> &mut exec::WaveState {
        self.wave.as_mut().expect("a leased wave")
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let (Some(w), Ok(mut pool)) = (self.wave.take(), self.pool.0.lock()) {
            pool.push(w);
        }
    }
}

/// Runs every workgroup of `launch` (on the rayon pool unless `threads` is 1), on the launch's
/// buffers in place (see [`Launch`]: an input buffer keeps what the kernel stored into it).
fn run_launch(
    prog: &Program,
    launch: &mut Launch,
    run: &Run,
    waves: &Waves,
) -> Result<(), DeviceError> {
    let threads = run.threads;
    let kernarg: Vec<u8> = (0..launch.buffers.len())
        .flat_map(|i| (BUFFER_BASE + i as u64 * BUFFER_STRIDE).to_le_bytes())
        .collect();
    let (kernel, groups) = (&launch.kernel, launch.workgroups);
    let mut regions = vec![Region::new("kernarg", KERNARG_BASE, &kernarg)];
    for (i, b) in launch.buffers.iter_mut().enumerate() {
        let base = BUFFER_BASE + i as u64 * BUFFER_STRIDE;
        regions.push(Region::over(b.name, base, &mut b.bytes));
    }
    let mem = Memory { regions };
    let run_range = |lease: &mut Lease, mut range: std::ops::Range<u32>| {
        let wave = lease.wave();
        range.try_for_each(|wg| wave.run(prog, wg, KERNARG_BASE, &mem, run))
    };
    let new_wave = || waves.lease(prog);
    // Below a few workgroups a task costs more than it saves. The first failing workgroup (in
    // order) is the one reported, whatever the number of threads: once one fails, only
    // workgroups before it still run, so a launch of many workgroups of a runaway kernel ends
    // after the first wave's instruction budget, and nothing is kept per workgroup.
    let result = if threads <= 1 || groups < 16 {
        run_range(&mut new_wave(), 0..groups)
    } else {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicU32, Ordering};
        const PER_TASK: u32 = 8;
        let first_bad = AtomicU32::new(u32::MAX);
        let error: std::sync::Mutex<Option<(u32, String)>> = std::sync::Mutex::new(None);
        (0..groups.div_ceil(PER_TASK))
            .into_par_iter()
            .for_each_init(new_wave, |lease, t| {
                let wave = lease.wave();
                for wg in t * PER_TASK..((t + 1) * PER_TASK).min(groups) {
                    if wg > first_bad.load(Ordering::Relaxed) {
                        return;
                    }
                    if let Err(e) = wave.run(prog, wg, KERNARG_BASE, &mem, run) {
                        first_bad.fetch_min(wg, Ordering::Relaxed);
                        if let Ok(mut slot) = error.lock() {
                            if slot.as_ref().is_none_or(|(at, _)| wg < *at) {
                                *slot = Some((wg, e));
                            }
                        }
                        return;
                    }
                }
            });
        match error.into_inner().ok().flatten() {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    };
    // Buffers that could not be worked on in place (not whole aligned dwords) are copied back
    // when they are outputs.
    let copies: Vec<(usize, Vec<u8>)> = (mem.regions[1..].iter().enumerate())
        .filter(|(_, r)| !r.in_place())
        .map(|(i, r)| (i, r.bytes()))
        .collect();
    drop(mem);
    result.map_err(|e| DeviceError::Launch(format!("kernel `{kernel}`: {e}")))?;
    for (i, bytes) in copies {
        if launch.buffers[i].copy_back {
            launch.buffers[i].bytes = bytes;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
