//! The hook through which the diff accepts outcomes the hardware may legally choose (which lane
//! wins when lanes of one instruction hit one address, the order of returned values of
//! same-address atomics, the zero min/max return): DESIGN.md section 5. The model's own legal-
//! outcome check (`ds_reference::model::legal`) answers; this module only adapts it.

use ds_reference::wave::{Case, Outcome, Variant};

/// `Some(description of the device's choice)` when `device`, which differs from the model's
/// `expected`, is still a legal outcome of `case`; `None` when it is a disagreement.
pub fn accepts(
    variant: &Variant,
    case: &Case,
    expected: &Outcome,
    device: &Outcome,
) -> Option<String> {
    // Until the model exposes `legal`, every difference from the model's one documented outcome
    // is a disagreement.
    let _ = (variant, case, expected, device);
    None
}
