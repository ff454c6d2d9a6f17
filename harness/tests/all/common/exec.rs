//! Helpers of the tests of external devices (`--backend exec`): the commands that start the
//! served emulator, the fault-injecting device and the example Python adapter, and a run through
//! one of them read back.

use super::{ds_harness_no_env as ds, stderr, stdout, temp_dir, tool};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The built `ds-harness`.
pub const BIN: &str = env!("CARGO_BIN_EXE_ds-harness");

/// The workspace root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

/// `ds-harness serve-device --backend emu`, quoted for a device command.
pub fn serve_cmd() -> String {
    format!("'{BIN}' serve-device --backend emu")
}

/// The fault-injecting device (`harness/tests/fault_device.py`) in front of [`serve_cmd`].
pub fn fault_cmd(faults: &str) -> String {
    let script = repo().join("harness/tests/fault_device.py");
    format!(
        "python3 '{}' --serve \"{}\" {faults}",
        script.display(),
        serve_cmd()
    )
}

/// The example Python adapter (`examples/device-adapter/adapter.py`) of the default target.
pub fn adapter_cmd() -> String {
    let script = repo().join("examples/device-adapter/adapter.py");
    format!(
        "python3 '{}' --target {} --ds-harness '{BIN}'",
        script.display(),
        ds_isa::target::DEFAULT.name
    )
}

/// python3 runs (skip with a reason by hand, fail under `CI=true`).
pub fn python() -> bool {
    tool(
        "python3",
        "install Debian's python3 (`apt-get install -y python3`)",
    )
}

/// Runs `ds-harness run ARGS --json F --out D` and returns the output and the JSON results; in
/// wave32 unless ARGS name a wave size (these tests are about the protocol: a wave64 run through
/// it would double their time; one test runs it).
pub fn run(name: &str, args: &[&str]) -> (std::process::Output, Value) {
    let dir = temp_dir(name);
    let json = dir.join("r.json");
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    if !args.contains(&"--wave") {
        all.extend_from_slice(&["--wave", "32"]);
    }
    let (j, o) = (
        json.to_str().unwrap().to_string(),
        dir.join("out").to_str().unwrap().to_string(),
    );
    all.extend_from_slice(&["--json", &j, "--out", &o]);
    let out = ds(&all);
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out, serde_json::from_str(&text).expect("results JSON"))
}

/// The row of op `name` in results `r`.
pub fn op<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == name)
        .unwrap_or_else(|| panic!("{name} in the results"))
}

/// A count of the results.
pub fn n(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}
