//! What the stand-in runtime says a device is: the target it reports (as ROCm's HSA agent name,
//! `HSA_OVERRIDE_GFX_VERSION` applied as ROCR-Runtime applies it) and its simulated KFD topology
//! (the chip: one node per physical device, in the text form of amdkfd's sysfs `properties`
//! files, `gfx_target_version` = major * 10000 + minor * 100 + stepping).
//!
//! The harness reads the topology through `ds_hip_standin_kfd_node` with the matcher it uses on
//! `/sys/class/kfd/kfd/topology/nodes` (a real runtime has no such symbol, so on a real machine the
//! chip is always read from the real sysfs). Test-only knobs: [`ENV_REPORTS`] simulates a setting
//! other than `HSA_OVERRIDE_GFX_VERSION` that makes the runtime report another target, and
//! [`ENV_KFD`] an unreadable topology.

use ds_devices::hip::chip;
use ds_isa::target::Target;

/// Test-only: the processor name the runtime reports for every device instead of its chip's, as
/// a setting other than `HSA_OVERRIDE_GFX_VERSION` would make it (`HSA_OVERRIDE_GFX_VERSION`
/// wins when both are set).
pub const ENV_REPORTS: &str = "DS_HIP_STANDIN_REPORTS";

/// Test-only: `unreadable` makes the simulated KFD topology unreadable, as sysfs is where
/// `/sys/class/kfd` is not mounted (some containers), so the chip cannot be read.
pub const ENV_KFD: &str = "DS_HIP_STANDIN_KFD";

/// The PCI domain of every stand-in device (`hipDeviceGetPCIBusId` answers `5eed:<p>:00.0` for
/// physical device `p`; nothing real is at it).
pub const PCI_DOMAIN: u32 = 0x5eed;

/// The target the runtime reports (and loads code objects for) on a device whose chip is `chip`:
/// the override's when `HSA_OVERRIDE_GFX_VERSION` is a version, else [`ENV_REPORTS`]' when set,
/// else the chip's.
pub fn reported(chip: &str) -> String {
    let by_override = std::env::var(chip::ENV_OVERRIDE)
        .ok()
        .and_then(|v| chip::override_name(&v));
    by_override
        .or_else(|| std::env::var(ENV_REPORTS).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| chip.to_string())
}

/// The target-table row of what a device of chip `chip` runs as, if it is one.
pub fn runs_as(chip: &str) -> Option<&'static Target> {
    Target::by_name(&reported(chip)).ok()
}

/// `gfx{major}{minor:x}{stepping:x}` -> `gfx_target_version` (the inverse of the harness's
/// `arch::name_from_target_version`), for the decoy, which has no row of the target table.
pub fn target_version(arch: &str) -> Option<u32> {
    let digits = arch.strip_prefix("gfx")?;
    let (major, rest) = digits.split_at(digits.len().checked_sub(2)?);
    let hex = |i: usize| u32::from_str_radix(&rest[i..=i], 16).ok();
    Some(major.parse::<u32>().ok()? * 10000 + hex(0)? * 100 + hex(1)?)
}

/// The `properties` text of simulated KFD node `node` (node 0 the CPU, node `p + 1` physical
/// device `p`, whose arch and target-table row are `chips[p]`), `Ok(None)` past the last node, or
/// why the topology cannot be read.
pub fn kfd_node(node: usize, chips: &[(&str, Option<&Target>)]) -> Result<Option<String>, String> {
    if std::env::var(ENV_KFD).is_ok_and(|v| v == "unreadable") {
        return Err(format!(
            "simulated: the KFD topology cannot be read ({ENV_KFD}=unreadable)"
        ));
    }
    if node == 0 {
        return Ok(Some(
            "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nlocation_id 0\ndomain 0\n"
                .into(),
        ));
    }
    let Some(&(arch, target)) = chips.get(node - 1) else {
        return Ok(None);
    };
    let version = target
        .map(|t| t.kfd_version)
        .or_else(|| target_version(arch))
        .ok_or_else(|| format!("device {} has arch {arch}, no version", node - 1))?;
    Ok(Some(format!(
        "simd_count 40\ngfx_target_version {version}\nlocation_id {}\ndomain {PCI_DOMAIN}\n",
        (node - 1) << 8
    )))
}
