//! No code path chooses a rule by comparing names: every rule that can differ between generations
//! is asked of the generation in one place (a `Generation` method in `isa/src/target.rs`, a
//! target-table column, the DS table's generation column), never by testing which generation or
//! target a value is (DESIGN.md section 12). The scan flags, in each crate's code (`src/` without
//! its tests, `benches/`, `build.rs`):
//! - a comparison with a named generation: `== Generation::Gfx11`, `!=`, `matches!(g,
//!   Generation::Gfx12)`, `in_generation(Generation::Gfx11)`;
//! - a `match` arm on named generations (`Generation::Gfx11 => ...`): each site would decide
//!   anew what a new generation does;
//! - a comparison with a target or generation name literal: `name == "gfx..."`,
//!   `.starts_with("gfx")`, `"gfx..." =>`.
//!
//! Exempt, each for its reason: `isa/src/target.rs` (the one place the rules are answered),
//! `isa/src/ds/table.rs` (the DS table), `kernels/src/template/` (the kernel template,
//! one module per generation by design: its `of(gen)` maps a generation to its module) and
//! `isa/src/inst/` (the template's non-DS instruction encodings, which differ per generation
//! as encodings, not as DS rules; DESIGN.md section 12 puts them in the per-generation template).
//! Naming a generation to pick a default (`encode_in(Generation::Gfx11, ..)`) is no comparison and
//! passes.

mod common;

use std::path::{Path, PathBuf};

/// Paths (relative to the workspace root) the rule does not cover, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    (
        "isa/src/gen/",
        "the generations' modules of data and the one map from a generation to its module",
    ),
    (
        "isa/src/ds/table.rs",
        "the DS table and its generation columns",
    ),
    (
        "kernels/src/template/",
        "one kernel template module per generation",
    ),
    (
        "isa/src/inst/",
        "the template's per-generation instruction encodings",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

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
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for krate in common::workspace_members() {
        let k = root.join(krate);
        files.push(k.join("build.rs"));
        walk(&k.join("src"), &mut files);
        walk(&k.join("benches"), &mut files);
    }
    let mut rel: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"))
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .filter(|p| {
            let s = p.to_string_lossy();
            !EXEMPT.iter().any(|(e, _)| s.starts_with(e))
        })
        .collect();
    rel.sort();
    rel
}

/// The code of a line: without a `//` comment (a `//` inside a string literal ends the line
/// too early, which only hides code, never invents a hit).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// The end of the identifier starting at `at`.
fn ident_end(s: &str, at: usize) -> usize {
    s[at..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(s.len(), |n| at + n)
}

/// What is wrong with one line of code, if anything.
fn stray(line: &str) -> Option<&'static str> {
    let c = code(line);
    // A named generation: `...::Gfx` followed by digits (Generation::Gfx11, Gen::Gfx12, ...).
    for (at, _) in c.match_indices("::Gfx") {
        let start = at + 2;
        let end = ident_end(c, start);
        if !c[start + 3..end].starts_with(|ch: char| ch.is_ascii_digit()) {
            continue;
        }
        let before = c[..at].trim_end();
        let before = before
            .trim_end_matches(|ch: char| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':');
        let before = before.trim_end();
        let after = c[end..].trim_start();
        if before.ends_with("==")
            || before.ends_with("!=")
            || after.starts_with("==")
            || after.starts_with("!=")
        {
            return Some("compares with a named generation");
        }
        if c[..at].contains("matches!(") {
            return Some("matches a named generation");
        }
        if before.ends_with("in_generation(") {
            return Some("asks the DS table about a named generation");
        }
        if after.starts_with("=>") || (after.starts_with('|') && !after.starts_with("||")) {
            return Some("a match arm on a named generation");
        }
    }
    // A target or generation name literal compared.
    for (at, _) in c.match_indices("\"gfx") {
        let before = c[..at].trim_end();
        let close = c[at + 1..].find('"').map_or(c.len(), |n| at + 2 + n);
        let after = c[close..].trim_start();
        if before.ends_with("==")
            || before.ends_with("!=")
            || after.starts_with("==")
            || after.starts_with("!=")
            || after.starts_with("=>")
            || before.ends_with("starts_with(")
            || before.ends_with("eq_ignore_ascii_case(")
            || before.ends_with("contains(")
            || before.ends_with("ends_with(")
        {
            return Some("compares with a target or generation name");
        }
    }
    None
}

/// Whether line `n` opens the file's test section: a `#[cfg(test)]` not on a declaration of a
/// module in a file of its own (`#[cfg(test)] mod wide;`, which the scan skips as a `tests.rs`
/// would be, or scans as a file: the code after it is not tests).
fn opens_tests(lines: &[&str], n: usize) -> bool {
    lines[n].trim_start().starts_with("#[cfg(test)]")
        && !lines[n + 1..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with(';'))
}

/// The strays of one file's text: (line number, what, the line). Lines from a `#[cfg(test)]`
/// on are the file's tests.
fn strays(text: &str) -> Vec<(usize, &'static str, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        if opens_tests(&lines, n) {
            break;
        }
        if let Some(what) = stray(line) {
            out.push((n + 1, what, line.trim().to_string()));
        }
    }
    out
}

#[test]
fn no_code_path_chooses_a_rule_by_comparing_names() {
    let root = root();
    let files = scanned_files(&root);
    for must in [
        "reference/src/model/mod.rs",
        "reference/src/model/lanes.rs",
        "reference/src/model/legal.rs",
        "devices/src/emu/exec.rs",
        "harness/src/record/replay.rs",
        "harness/src/cli/eval.rs",
        "harness/src/doc/rules.rs",
        "kernels/src/lib.rs",
    ] {
        assert!(
            files.iter().any(|f| f == Path::new(must)),
            "{must} is not scanned"
        );
    }
    let mut found = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue;
        };
        for (line, what, text) in strays(&text) {
            found.push(format!("{}:{line}: {what}: {text}", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "rules chosen by name (ask a Generation method in isa/src/target.rs or a table \
         column instead):\n{}",
        found.join("\n")
    );
    println!("{} files scanned, no rule chosen by name", files.len());
}

#[test]
fn the_scan_finds_planted_strays_and_spares_defaults_and_tests() {
    let planted = "\
        let half = target.generation == Generation::Gfx11;\n\
        if Generation::Gfx12 != gen { }\n\
        let w = matches!(gen, ds_isa::ds::Generation::Gfx12);\n\
        let old = info.in_generation(Generation::Gfx11);\n\
        Generation::Gfx11 | Generation::Gfx12 => execute,\n\
        if t.name == \"gfx1200\" { }\n\
        if t.name.starts_with(\"gfx12\") { }\n\
        \"gfx11\" => 1,\n";
    let found: Vec<usize> = strays(planted).iter().map(|s| s.0).collect();
    assert_eq!(found, [1, 2, 3, 4, 5, 6, 7, 8], "{:?}", strays(planted));
    let spared = "\
        encode_in(Generation::Gfx11, inst)\n\
        let span = target.generation.permute_span(); // not == Generation::Gfx11\n\
        let same = target.generation == self.gen;\n\
        let s = format!(\"gfx{}\", n);\n\
        #[cfg(test)]\n\
        assert!(gen == Generation::Gfx12);\n";
    assert_eq!(strays(spared), Vec::new());
    // The planted line in a real file of the scan is found there.
    let root = root();
    let file = root.join("reference/src/model/mod.rs");
    let text = std::fs::read_to_string(&file).unwrap();
    let stray_line = "    let half = plan_target.generation == Generation::Gfx11;";
    let planted = text.replacen(
        "pub fn execute(",
        &format!("{stray_line}\npub fn execute("),
        1,
    );
    assert!(strays(&planted).iter().any(|s| s.2 == stray_line.trim()));
}
