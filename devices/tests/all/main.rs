//! The ds-devices crate's integration tests: the emulated device's entry state, errata and
//! canary, and the HIP declarations against ROCm's headers.
//! One module per property (wasmtime's `tests/all` pattern: one binary to build and link).

mod canary;
mod entry_state;
mod errata;
mod hip_bindgen_drift;
