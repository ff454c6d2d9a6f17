//! Where a recording lives: the directory named for the processor its results are of (docs/recordings.md's provenance rule). A GPU's recordings go under its processor's name; under an
//! override (`ds_devices::hip::chip`: ROCm runs the chip as another target) that is the chip's
//! name, never the target the override makes it run as, and the recording's provenance states the
//! override (`chip`, `chip_source`, `override` beside `arch`, the target it ran as). A device whose
//! chip is unknown under an override is not recorded at all: no directory would be honest.
//! Emulated results go under `emulated-...` names, so none can pass for hardware.

use super::{Provenance, RecordError, Recording};
use ds_devices::hip::{chip::UNKNOWN_CHIP, CHIP_DETAIL, OVERRIDE_DETAIL};
use ds_devices::{Backend, DeviceInfo};

/// The processor `info`'s results are of: the chip when ROCm runs the device under an override,
/// else the device's target.
fn processor(info: &DeviceInfo) -> String {
    match (info.detail(CHIP_DETAIL), info.detail(OVERRIDE_DETAIL)) {
        (Some(chip), Some(_)) => chip.to_string(),
        _ => info.target.name.to_string(),
    }
}

/// Whether `info`'s results can be recorded: not when an override makes ROCm run a chip that
/// could not be read as another target (the error says why and what to do).
pub fn recordable(info: &DeviceInfo) -> Result<(), String> {
    match (info.detail(CHIP_DETAIL), info.detail(OVERRIDE_DETAIL)) {
        (Some(UNKNOWN_CHIP), Some(by)) => Err(format!(
            "--record: {by} runs this device as {} and its chip could not be read ({}); a \
             recording is filed under the chip its results are of, and never under the target an \
             override runs it as. Make the KFD topology readable (/sys/class/kfd; in a container, \
             mount /sys), or run without the override on a chip the kernels support, or drop \
             --record (a run without it reports the chip as unknown)",
            info.target,
            info.detail(ds_devices::hip::CHIP_SOURCE_DETAIL)
                .unwrap_or("no reason given")
        )),
        (Some(chip), Some(by)) => {
            match crate::run::overridden::across_generations(chip, info.target.name) {
                // The chip cannot run the target's code: the results are no chip's.
                Some(warning) => Err(format!(
                    "--record: {by} runs the {chip} chip as {}: {warning}",
                    info.target
                )),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// The directory name a recording of `info` goes under: the processor's name for a GPU (so
/// recordings live under `snapshots/hardware/<processor>/`; under an override the chip's),
/// `emulated-<target>` for the emulated device (never a bare target name),
/// `emulated-hip-standin-<processor>` for the stand-in runtime.
pub fn dir_name(info: &DeviceInfo) -> String {
    let stand_in = info
        .details
        .iter()
        .any(|(k, v)| k == "provenance" && is_stand_in(v));
    let name = processor(info);
    match info.backend {
        Backend::Hip if stand_in => format!("emulated-hip-standin-{name}"),
        Backend::Hip => name,
        Backend::Emu => format!("emulated-{name}"),
        // An external device is hardware only when it says so (a GPU served through the
        // protocol); anything else is named as emulated, with the device's name.
        Backend::Exec
            if !stand_in
                && info
                    .details
                    .iter()
                    .any(|(k, v)| k == "hardware" && v == "true") =>
        {
            name
        }
        Backend::Exec => format!("emulated-exec-{}-{name}", slug(&info.name)),
    }
}

/// Characters of a device's name kept in its directory name (a file name has at most 255 bytes).
pub const MAX_SLUG_CHARS: usize = 60;

/// `text` as a directory-name part: lowercase letters, digits and single dashes, at most
/// [`MAX_SLUG_CHARS`] of them; a longer name is cut and given a hash of the whole name, so two
/// long names that begin alike still get two directories.
fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.len() <= MAX_SLUG_CHARS {
        return s;
    }
    // FNV-1a, 64 bits: stable across builds and machines.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!(
        "{}-{:08x}",
        s[..MAX_SLUG_CHARS - 9].trim_end_matches('-'),
        hash as u32
    )
}

/// The hip device's `provenance` detail of the stand-in runtime (an emulated device behind
/// the HIP API, used to test the hip code path without a GPU).
pub(super) fn is_stand_in(provenance: &str) -> bool {
    provenance.contains("stand-in")
}

/// The processor a recording's results are of, by its provenance: the `chip` under an
/// `override`, else the `arch` it ran as; an error for an override whose chip is unknown.
fn recorded_processor(p: &Provenance, target: &str) -> Result<String, String> {
    match (p.get(CHIP_DETAIL), p.get(OVERRIDE_DETAIL)) {
        (Some(UNKNOWN_CHIP), Some(by)) => Err(format!(
            "the recording was made under {by} on a chip that could not be read: it is no \
             chip's recording (the harness refuses to make such recordings; remove it)"
        )),
        (Some(chip), Some(_)) => Ok(chip.to_string()),
        _ => Ok(target.to_string()),
    }
}

/// The provenance rule, checked on a file read back from disk: the recording lies under the
/// directory of its processor (its own name, `emulated-<name>`, `emulated-hip-standin-<name>` or
/// `emulated-exec-<device>-<name>`), hardware ones only under the bare name; a recording made
/// under an override lies under its chip's name.
pub fn check_dir_provenance(r: Recording) -> Result<Recording, RecordError> {
    let dir = r
        .path
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().to_string())
        .unwrap_or_default();
    let target = r.target().name;
    let bad = |what: String| RecordError::Provenance {
        path: r.path.clone(),
        what,
    };
    let name = recorded_processor(&r.provenance, target).map_err(bad)?;
    let named_for = dir == name
        || dir.strip_prefix("emulated-").is_some_and(|rest| {
            rest == name
                || rest.strip_prefix("hip-standin-") == Some(name.as_str())
                || rest
                    .strip_prefix("exec-")
                    .is_some_and(|r| r.ends_with(&format!("-{name}")))
        });
    if !named_for {
        let made = match r.provenance.get(OVERRIDE_DETAIL) {
            Some(by) if name != target => {
                format!("on the {name} chip under {by} (run as {target})")
            }
            _ => format!("on {target}"),
        };
        return Err(bad(format!(
            "a recording made {made} lies under `{dir}`: recordings live under the directory of \
             their target, or of their chip under an override, never of the target the override \
             runs it as (`{name}`, or `emulated-{name}` for the emulated device, \
             `emulated-exec-<device>-{name}` for an external one)"
        )));
    }
    let emulated_dir = dir.starts_with("emulated-");
    if emulated_dir == r.provenance.is_hardware() {
        return Err(bad(format!(
            "backend {} recorded under `{dir}`: only hip recordings go under an arch name, \
             emulated ones under `emulated-<arch>`",
            r.provenance.backend()
        )));
    }
    Ok(r)
}
