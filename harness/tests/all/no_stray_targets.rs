//! No target name, HSA target id, KFD version or machine value of the target table is written
//! anywhere in the code but the table itself (`isa/src/target.rs`) and tests: every
//! consumer asks the table (docs/design-notes.md, "Targets and generations"). Scanned: each crate's `src/` (a file's
//! `#[cfg(test)]` module and `tests.rs` files are tests), `benches/`, `build.rs` and
//! `Cargo.toml`, the workspace's `Cargo.toml`, `scripts/`, `.ci/` and `.github/`. Not scanned:
//! tests (the tests' helpers, `test-support/`, among them), snapshots (recorded data) and
//! documentation, which names targets for its readers.
//! One configuration list is named as such: the GPU workflow's runner entries ([`FLEET`]), the
//! machines a user has, each held to be a target of the table by `workflows.rs`.

use crate::common;

use ds_isa::target::{all, TARGETS};
use std::path::{Path, PathBuf};

const TABLE: &str = "isa/src/target.rs";

/// The one list that names targets as configuration, not as a rule: the GPU workflow's matrix of
/// runners (file, and how each of its entries starts), one GPU machine each.
const FLEET: (&str, &str) = (".github/workflows/gpu.yml", "- { target: ");

/// Every file the rule covers, relative to the workspace root.
fn scanned_files(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = vec![root.join("Cargo.toml")];
    for dir in ["scripts", ".ci", ".github"] {
        walk(&root.join(dir), &mut files);
    }
    // The tests' helpers (`test-support`, a dev-dependency only) are tests.
    for krate in common::workspace_members()
        .into_iter()
        .filter(|k| k != "test-support")
    {
        let k = root.join(krate);
        files.push(k.join("Cargo.toml"));
        files.push(k.join("build.rs"));
        walk(&k.join("src"), &mut files);
        walk(&k.join("benches"), &mut files);
    }
    let mut rel: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"))
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .filter(|p| p != Path::new(TABLE))
        .collect();
    rel.sort();
    rel
}

/// The table's values a stray line would contain, with what each is.
fn needles() -> Vec<(String, String)> {
    let mut v = Vec::new();
    // Every row, generic targets included (which have no KFD version).
    for t in all() {
        v.push((t.name.to_string(), format!("target name {}", t.name)));
        if t.kfd_version != 0 {
            v.push((
                t.kfd_version.to_string(),
                format!("KFD version of {}", t.name),
            ));
        }
    }
    v
}

/// Machine values are small numbers that also occur as opcodes and data: a line is a stray only
/// when it speaks of the machine field (`e_flags`, `EF_AMDGPU_MACH`, `machine`) and holds one.
fn machine_stray(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    if !(lower.contains("e_flags") || lower.contains("ef_amdgpu") || lower.contains("machine")) {
        return None;
    }
    all()
        .find(|t| {
            let hex = format!("{:#04x}", t.machine);
            lower
                .match_indices(&hex)
                .any(|(i, _)| !lower[i + hex.len()..].starts_with(|c: char| c.is_ascii_hexdigit()))
        })
        .map(|t| format!("machine value {:#04x} of {}", t.machine, t.name))
}

/// The strays in one file's text: (line number, what, the line).
fn strays(text: &str) -> Vec<(usize, String, String)> {
    let needles = needles();
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        // The test module: tests may name targets (`#[cfg(test)] mod x;` declares a file of its
        // own and the code after it is scanned on).
        let declares = lines[n + 1..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with(';'));
        if line.trim_start().starts_with("#[cfg(test)]") && !declares {
            break;
        }
        let lower = line.to_ascii_lowercase();
        for (needle, what) in &needles {
            let hit = lower.match_indices(needle.as_str()).any(|(i, _)| {
                let after = &lower[i + needle.len()..];
                let before = &lower[..i];
                !after.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && !before.ends_with(|c: char| c.is_ascii_digit())
            });
            if hit {
                out.push((n + 1, what.clone(), line.trim().to_string()));
            }
        }
        if let Some(what) = machine_stray(line) {
            out.push((n + 1, what, line.trim().to_string()));
        }
    }
    out
}

#[test]
fn no_target_literal_outside_the_table_and_tests() {
    let root = common::workspace();
    let files = scanned_files(&root);
    // The scan covers the code: the crates' sources, the CLI and the devices among them.
    for must in [
        "harness/src/cli/run.rs",
        "devices/src/hip/arch.rs",
        "kernels/src/code_object/write.rs",
        "hip-standin/src/state.rs",
        "Cargo.toml",
    ] {
        assert!(
            files.iter().any(|f| f == Path::new(must)),
            "{must} is not scanned"
        );
    }
    let mut found = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue; // not text
        };
        for (line, what, text) in strays(&text) {
            if f == Path::new(FLEET.0) && text.starts_with(FLEET.1) {
                continue;
            }
            found.push(format!("{}:{line}: {what}: {text}", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "target literals outside {TABLE} (ask the target table instead):\n{}",
        found.join("\n")
    );
    println!("{} files scanned, no stray target literal", files.len());
}

#[test]
fn the_scan_finds_planted_strays_and_spares_tests_and_lookalikes() {
    let t = &TARGETS[TARGETS.len() - 1];
    let planted = format!(
        "let a = \"{}\";\nlet v = {};\nlet e_flags = {:#04x};\n",
        t.name, t.kfd_version, t.machine
    );
    let found = strays(&planted);
    assert_eq!(
        found.iter().map(|f| f.0).collect::<Vec<_>>(),
        [1, 2, 3],
        "{found:?}"
    );
    // An opcode equal to a machine value, a longer name, and anything in a test module pass.
    let spared = format!(
        "(SubU64, \"ds_sub_u64\", {:#04x}),\nlet x = \"{}0\";\n#[cfg(test)]\nlet a = \"{}\";\n",
        t.machine, t.name, t.name
    );
    assert_eq!(strays(&spared), Vec::new());
}
