//! The canary before the suite (issue 25; the kernel and the check are `ds_kernels::canary`): on
//! every device other than the in-process emulator, `run` launches the self-check kernel once per
//! wave size of the run before any op, and stops (exit 3) naming the broken assumptions when the
//! entry state is not what the template relies on; `info --check` runs it alone on each device
//! `info` lists. A device's refusal or failure to run the canary is itself a broken assumption
//! ("the canary ran"); a device that reports the canary `unsupported` (an emulator that does not
//! execute whole kernels, like the example adapter) leaves the entry state unchecked, and says so.

use ds_devices::hip::probe::HipProbe;
use ds_devices::{Backend, Device, DeviceError, DeviceInfo};
use ds_isa::target::Target;
use ds_kernels::canary::{Assumption, Canary, Verdict};
use ds_reference::wave::WaveSize;
use std::fmt::Write;

/// The assumption a canary that could not be built, loaded or launched breaks.
pub const RAN: &str = "the canary ran";

/// The canary's verdicts in one wave size.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WaveCheck {
    /// The wave size (32 or 64).
    pub wave: WaveSize,
    /// Every assumption held.
    pub held: bool,
    /// Each assumption, or the one [`RAN`] when the canary did not run to its end.
    pub assumptions: Vec<Assumption>,
}

impl WaveCheck {
    fn of(wave: WaveSize, assumptions: Vec<Assumption>) -> WaveCheck {
        WaveCheck {
            wave,
            held: assumptions.iter().all(Assumption::held),
            assumptions,
        }
    }

    /// Some assumption is broken (an unjudged one alone is not: see [`Verdict::Unknown`]).
    pub fn broken(&self) -> bool {
        self.assumptions
            .iter()
            .any(|a| a.verdict == Verdict::Broken)
    }

    /// The canary did not run at all (it could not be built, loaded or launched: a time-out, a
    /// runtime too old for the target, a device that is not what it said): nothing about the
    /// entry state was learnt.
    pub fn did_not_run(&self) -> bool {
        self.broken()
            && self
                .assumptions
                .iter()
                .filter(|a| a.verdict == Verdict::Broken)
                .all(|a| a.name == RAN)
    }
}

/// Whether a run on `info`'s device starts with the canary: every device but the in-process
/// emulator, which delivers the entry-state table by construction.
pub fn needed(info: &DeviceInfo) -> bool {
    info.backend != Backend::Emu
}

/// Builds, loads and launches the canary of the device's target in `wave`, and checks it.
pub fn check_wave(device: &mut dyn Device, wave: WaveSize) -> WaveCheck {
    let target = device.info().target;
    let canary = match Canary::new(target, wave) {
        Ok(c) => c,
        Err(e) => {
            return ran(
                wave,
                Verdict::Broken,
                format!("no canary for {target}: {e}"),
            )
        }
    };
    ds_devices::set_launch_context(format!("the canary ({wave}), before any op"));
    let launched = device.load(&canary.code_object()).and_then(|module| {
        let mut launch = canary.launch();
        device.launch(module, &mut launch).map(|()| launch)
    });
    match launched {
        Ok(launch) => WaveCheck::of(wave, canary.check(&launch)),
        Err(DeviceError::Unsupported(why)) => ran(
            wave,
            Verdict::Unknown,
            format!(
                "the device does not execute the canary ({why}): the entry state is not checked"
            ),
        ),
        Err(e) => ran(wave, Verdict::Broken, e.to_string()),
    }
}

fn ran(wave: WaveSize, verdict: Verdict, detail: String) -> WaveCheck {
    WaveCheck::of(
        wave,
        vec![Assumption {
            name: RAN,
            verdict,
            detail,
        }],
    )
}

/// The canary in each of `waves` on `device`.
pub fn check_device(device: &mut dyn Device, waves: &[WaveSize]) -> Vec<WaveCheck> {
    waves.iter().map(|&w| check_wave(device, w)).collect()
}

/// One line per wave size that held (or was not judged), for a run's header.
pub fn held_lines(checks: &[WaveCheck]) -> String {
    let mut s = String::new();
    for c in checks {
        if c.held {
            let names: Vec<&str> = c.assumptions.iter().map(|a| a.name).collect();
            let _ = writeln!(s, "canary: {}: held ({})", c.wave, names.join(", "));
        } else if !c.broken() {
            for a in &c.assumptions {
                let _ = writeln!(s, "canary: {}: {a}", c.wave);
            }
        }
    }
    s
}

/// The broken assumptions, one line each (`  wave64: every lane ran: BROKEN: ...`).
pub fn broken_lines(checks: &[WaveCheck]) -> String {
    let mut s = String::new();
    for c in checks {
        for a in c.assumptions.iter().filter(|a| a.verdict != Verdict::Held) {
            let _ = writeln!(s, "  {}: {a}", c.wave);
        }
    }
    s
}

/// Each wave size's verdicts, indented by `indent`: one line naming the assumptions when every
/// one held, else a line per assumption, held or not, with what was seen.
pub fn all_lines(checks: &[WaveCheck], indent: &str) -> String {
    let mut s = String::new();
    for c in checks {
        if c.held {
            let names: Vec<&str> = c.assumptions.iter().map(|a| a.name).collect();
            let _ = writeln!(s, "{indent}{}: held: {}", c.wave, names.join(", "));
            continue;
        }
        let head = if c.did_not_run() {
            "DID NOT RUN (the entry state is not checked)"
        } else if c.broken() {
            "BROKEN"
        } else {
            "not checked"
        };
        let _ = writeln!(s, "{indent}{}: {head}", c.wave);
        for a in &c.assumptions {
            let _ = writeln!(s, "{indent}  {a}");
        }
    }
    s
}

/// What to do when the canary broke, for the end of the message.
pub const NEXT_STEPS: &str = "(every op would disagree for this reason alone, so none was run. The \
    canary reads its entry state where the kernels do (the entry-state table, docs/architecture.md \
    under ds-kernels); `ds-harness info --check` runs it alone. A broken workgroup id, lane id or \
    lane count means that table is wrong for this device: please report it with the lines above and \
    the output of `ds-harness info`.)";

/// What to do when the canary could not run at all: nothing is known of the entry state, so
/// the table is not at fault.
pub const DID_NOT_RUN_STEPS: &str = "(the device could not load or launch even this small kernel, \
    so no op was run; this says nothing about the entry-state table. Fix what the lines above \
    name (a device that timed out, a runtime too old for the target, a device that is not the \
    target it said), then run again; `ds-harness info --check` runs the canary alone.)";

/// One device of `info --check`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceCheck {
    /// hip (a GPU, or the stand-in runtime) or emu.
    pub backend: Backend,
    /// HIP's ordinal, for a HIP device.
    pub index: Option<usize>,
    /// The device's name.
    pub name: String,
    /// The target its kernels are built for, if it has one.
    #[serde(serialize_with = "target_name")]
    pub target: Option<&'static Target>,
    /// Why it was not checked (not usable, or it could not be opened).
    pub skipped: Option<String>,
    /// The canary in each wave size its target runs.
    pub waves: Vec<WaveCheck>,
}

fn target_name<S: serde::Serializer>(t: &Option<&'static Target>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(t.name),
        None => s.serialize_none(),
    }
}

impl DeviceCheck {
    /// Some wave size's canary broke, or the device could not be opened.
    pub fn broken(&self) -> bool {
        self.waves.iter().any(WaveCheck::broken)
    }
}

/// `info --check`: the canary on every usable HIP device of `probe`, in every wave size its
/// target runs, and on the emulated device of every target kernels are built for.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Checks {
    /// The HIP devices, in `info`'s order.
    pub hip: Vec<DeviceCheck>,
    /// The emulated device of each target (a check of the entry-state table against itself:
    /// it delivers the table, so this holds unless the harness is broken; no hardware).
    pub emulated: Vec<DeviceCheck>,
    /// Nothing broke.
    pub held: bool,
}

/// Runs `info --check`'s canaries.
pub fn check_all(probe: &HipProbe) -> Checks {
    let mut hip = Vec::new();
    for d in &probe.devices {
        let mut c = DeviceCheck {
            backend: Backend::Hip,
            index: Some(d.index),
            name: d.name.clone(),
            target: d.target,
            skipped: None,
            waves: Vec::new(),
        };
        if !d.usable {
            c.skipped = Some(format!("not usable: {}", d.why));
        } else {
            match ds_devices::hip::open(d.index, None) {
                Ok(mut dev) => {
                    let waves = ds_kernels::wave_sizes(dev.info().target);
                    c.target = Some(dev.info().target);
                    c.waves = check_device(&mut dev, &waves);
                }
                Err(e) => {
                    c.waves = vec![ran(WaveSize::Wave32, Verdict::Broken, e.to_string())];
                }
            }
        }
        hip.push(c);
    }
    // Every target `run` and `serve-device` take: the processors and the generic targets.
    let emulated: Vec<DeviceCheck> = ds_isa::target::all()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .map(|t| {
            let mut dev = ds_devices::emu::EmuDevice::for_target(t).with_threads(1);
            DeviceCheck {
                backend: Backend::Emu,
                index: None,
                name: dev.info().name.clone(),
                target: Some(t),
                skipped: None,
                waves: check_device(&mut dev, &ds_kernels::wave_sizes(t)),
            }
        })
        .collect();
    let held = !hip.iter().chain(&emulated).any(DeviceCheck::broken);
    Checks {
        hip,
        emulated,
        held,
    }
}

impl Checks {
    /// The text `info --check` prints.
    pub fn text(&self) -> String {
        let mut s = String::from("canary (the self-check `run` launches before any op):\n");
        if self.hip.is_empty() {
            s.push_str("  no HIP device to check\n");
        }
        for d in &self.hip {
            let _ = writeln!(
                s,
                "  HIP device {} ({}){}",
                d.index.unwrap_or_default(),
                d.name,
                d.target.map_or(String::new(), |t| format!(", {t}"))
            );
            match &d.skipped {
                Some(why) => {
                    let _ = writeln!(s, "    not checked: {why}");
                }
                None => s.push_str(&all_lines(&d.waves, "    ")),
            }
        }
        let runs: usize = self.emulated.iter().map(|d| d.waves.len()).sum();
        let broken: Vec<&DeviceCheck> = self.emulated.iter().filter(|d| d.broken()).collect();
        let _ = writeln!(
            s,
            "  emulated device: the canary ran on each of the {} targets in each wave size it \
             runs ({runs} launches): {} (the emulated device delivers the entry-state table, so \
             this checks the harness, not hardware)",
            self.emulated.len(),
            if broken.is_empty() {
                "every assumption held".to_string()
            } else {
                format!("{} BROKE", broken.len())
            }
        );
        for d in broken {
            let _ = writeln!(s, "    {}", d.name);
            s.push_str(&all_lines(&d.waves, "      "));
        }
        s
    }
}

/// What `run` does before any op: on a device that needs it ([`needed`]), the canary in each of
/// `waves`; says on stderr which held, and returns the message naming the broken assumptions when
/// one broke (the run then stops, exit 3).
pub fn first(device: &mut dyn Device, waves: &[WaveSize]) -> Result<(), String> {
    let info = device.info().clone();
    if !needed(&info) {
        return Ok(());
    }
    let checks = check_device(device, waves);
    eprint!("{}", held_lines(&checks));
    if !checks.iter().any(WaveCheck::broken) {
        return Ok(());
    }
    let broken: Vec<&WaveCheck> = checks.iter().filter(|c| c.broken()).collect();
    if broken.iter().all(|c| c.did_not_run()) {
        return Err(format!(
            "the canary could not run on {} ({}):\n{}{DID_NOT_RUN_STEPS}",
            info.name,
            info.target,
            broken_lines(&checks)
        ));
    }
    Err(format!(
        "the canary found the kernels' entry state broken on {} ({}):\n{}{NEXT_STEPS}",
        info.name,
        info.target,
        broken_lines(&checks)
    ))
}
