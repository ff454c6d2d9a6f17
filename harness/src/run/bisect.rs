//! A launch that failed is split until only the cases that fail on their own are lost (as the
//! shrinker narrows a mismatch down by running smaller candidates): halves are launched in
//! turn, a half that fails is split again, within a budget of launches per chunk. Only launches
//! the device refused or faulted on are split (fidelity class `device_error`); a device that timed
//! out, crashed or broke the protocol has failed as a whole, and splitting would only multiply
//! the time-outs and restarts.

use super::{launch_cases, LaunchError};
use crate::fidelity::Class;
use ds_devices::{Device, ModuleId};
use ds_kernels::launch::Launch;
use ds_reference::wave::{Case, Variant};
use std::ops::Range;

/// Launches one failed chunk may be split into at most: a chunk of 1024 cases with one faulting
/// case needs 20; a kernel that faults on every case stops here.
pub const MAX_SPLIT_LAUNCHES: usize = 64;

/// The cases of one chunk, launched together or in parts: each part's range of the chunk and
/// its launch or why it failed.
pub(super) type Parts = Vec<(Range<usize>, Result<Launch, LaunchError>)>;

/// Launches `cases` (reusing `reuse`'s buffers), and when the launch fails with a device error,
/// splits it ([`MAX_SPLIT_LAUNCHES`] launches at most) so that the cases that run get outcomes.
pub(super) fn launch_split(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
    reuse: Option<Launch>,
) -> Parts {
    let whole = launch_cases(device, module, variant, cases, reuse);
    split_failed(device, module, variant, cases, whole)
}

/// `whole`, the launch of `cases` (or why it failed); when it failed with a device error, its
/// cases launched again in parts as [`launch_split`] does.
pub(super) fn split_failed(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
    whole: Result<Launch, LaunchError>,
) -> Parts {
    match whole {
        Err((Class::DeviceError, e)) if cases.len() > 1 && device.gave_up().is_none() => {
            let mut budget = MAX_SPLIT_LAUNCHES;
            let mut parts = Vec::new();
            split(
                device,
                module,
                variant,
                cases,
                0..cases.len(),
                (Class::DeviceError, e),
                &mut budget,
                &mut parts,
            );
            parts
        }
        other => vec![(0..cases.len(), other)],
    }
}

/// `range` failed with `err`: launches its halves, splitting again those that fail.
#[allow(clippy::too_many_arguments)]
fn split(
    device: &mut dyn Device,
    module: ModuleId,
    variant: &Variant,
    cases: &[Case],
    range: Range<usize>,
    err: LaunchError,
    budget: &mut usize,
    parts: &mut Parts,
) {
    if range.len() <= 1 || *budget < 2 || device.gave_up().is_some() {
        parts.push((range, Err(err)));
        return;
    }
    let mid = range.start + range.len() / 2;
    for half in [range.start..mid, mid..range.end] {
        if *budget == 0 {
            parts.push((half, Err(err.clone())));
            continue;
        }
        *budget -= 1;
        match launch_cases(device, module, variant, &cases[half.clone()], None) {
            Ok(l) => parts.push((half, Ok(l))),
            Err(e) if e.0 == Class::DeviceError => {
                split(device, module, variant, cases, half, e, budget, parts)
            }
            Err(e) => parts.push((half, Err(e))),
        }
    }
}
