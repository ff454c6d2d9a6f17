//! A run's override statement: when ROCm runs the device as another target than its chip's
//! (`HSA_OVERRIDE_GFX_VERSION`, or another setting; `ds_devices::hip::chip`), every report's
//! metadata names the override and the chip beside the target, as the run header does.

use ds_devices::hip::{CHIP_DETAIL, CHIP_SOURCE_DETAIL, OVERRIDE_DETAIL};
use ds_devices::DeviceInfo;
use ds_isa::target::Target;
use serde::{Deserialize, Serialize};

/// The chip a run's device is and what made ROCm run it as the run's target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overridden {
    /// The chip's processor name (its KFD node's), or `unknown` when it could not be read.
    pub chip: String,
    /// Where the chip's name came from, or why it is unknown.
    #[serde(default)]
    pub chip_source: String,
    /// What runs the chip as the target, e.g. `HSA_OVERRIDE_GFX_VERSION=10.3.0`.
    pub by: String,
}

impl Overridden {
    /// The statement of a device's details (a hip device's, or an exec device's hello passing a
    /// hip device's on), if it runs under an override.
    pub fn of(info: &DeviceInfo) -> Option<Overridden> {
        Some(Overridden {
            chip: info.detail(CHIP_DETAIL)?.to_string(),
            chip_source: info
                .detail(CHIP_SOURCE_DETAIL)
                .unwrap_or_default()
                .to_string(),
            by: info.detail(OVERRIDE_DETAIL)?.to_string(),
        })
    }

    /// In words, for a device running as `target`: `<override> runs the <chip> chip as <target>;
    /// the code object is built for <target>, the results are the <chip> chip's`.
    pub fn sentence(&self, target: &str) -> String {
        let chip = &self.chip;
        match across_generations(chip, target) {
            Some(warning) => format!(
                "{} runs the {chip} chip as {target}; WARNING: {warning}",
                self.by
            ),
            None => format!(
                "{} runs the {chip} chip as {target}; the code object is built for {target}, the \
                 results are the {chip} chip's",
                self.by
            ),
        }
    }
}

/// When an override runs the chip `chip` as `target` of another generation (a gfx11 chip as a
/// gfx9 target): the warning that the chip cannot run that generation's code, so the results are
/// nobody's (the DS and kernel encodings differ by generation: the target table's `generation`
/// column). `None` when both are of one generation, or either is not in the table.
pub fn across_generations(chip: &str, target: &str) -> Option<String> {
    let (c, t) = (Target::by_name(chip).ok()?, Target::by_name(target).ok()?);
    (c.generation != t.generation).then(|| {
        format!(
            "the {c} chip is {} and cannot run {} code (another instruction encoding), \
             so these results are neither the chip's nor {t}'s, and are not recorded; unset the \
             override, or set one of the chip's own generation",
            c.generation, t.generation
        )
    })
}
