//! No code path chooses a rule by name, and none defaults to a generation: every rule that can
//! differ between generations is asked of the generation (its module of data in `isa/src/gen/`,
//! read through `Generation`'s methods and `Generation::spec`), a target-table column or a table's
//! generation column, never by testing which generation or target a value is, nor by testing an
//! instruction's mnemonic (docs/design-notes.md, "gfx9 and gfx10"; docs/architecture.md, "Crates"). The scan flags, in each crate's code
//! (`src/` without its tests, `benches/`, `build.rs`):
//! - a comparison with a named generation: `== Generation::Gfx11`, `!=`, `matches!(g,
//!   Generation::Gfx12)`, `in_generation(Generation::Gfx11)`;
//! - a `match` arm on named generations (`Generation::Gfx11 => ...`): each site would decide
//!   anew what a new generation does;
//! - any other named generation: a default (`encode_in(Generation::Gfx11, inst)` in a wrapper,
//!   `const GEN: Generation = Generation::Gfx11`, `use Generation::Gfx11`), where the caller's
//!   target, case or kernel has a generation to pass;
//! - a comparison with a target or generation name literal: `name == "gfx..."`,
//!   `.starts_with("gfx")`, `"gfx..." =>`;
//! - a rule chosen by mnemonic: a mnemonic literal (`"s_wait_"`, `"s_waitcnt_vscnt"`,
//!   `"ds_add_u32"`) compared, matched or tested as a prefix, where a table column (which ops a
//!   generation has, how it spells them) belongs. A format's bare prefix (`"ds_"`: is it a DS
//!   mnemonic at all) is no such rule.
//!
//! Exempt, each for its reason: `isa/src/gen/` (each generation's module of data, and the one map
//! from a generation to its module), `isa/src/target.rs` (the target table, whose rows name their
//! generation) and `kernels/src/template/` (the kernel template, one module per generation by
//! design: its `of(gen)` maps a generation to its module).

use crate::common;

use std::path::{Path, PathBuf};

/// Paths (relative to the workspace root) the rule does not cover, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    (
        "isa/src/gen/",
        "the generations' modules of data and the one map from a generation to its module",
    ),
    (
        "isa/src/target.rs",
        "the target table: its rows name their generation",
    ),
    (
        "kernels/src/template/",
        "one kernel template module per generation",
    ),
    (
        "test-support/",
        "the tests' own helpers (a dev-dependency only): the oracle list names the generations each LLVM checks",
    ),
];

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
        .filter(|p| {
            // A test module in a file of its own (`tests.rs`, `tests_gfx9.rs`, `exec_acc_tests.rs`).
            p.file_stem()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n != "tests" && !n.starts_with("tests_") && !n.ends_with("_tests"))
        })
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
    if named_generation(c) {
        return Some(
            "names a generation outside its module (a default: pass the target's, case's or \
             kernel's generation, or ask Generation::spec)",
        );
    }
    if let Some(what) = mnemonic_rule(c) {
        return Some(what);
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

/// The code names a generation (`Gfx` and digits as an identifier: `Generation::Gfx11`,
/// `Gfx12` after a `use`).
fn named_generation(c: &str) -> bool {
    c.match_indices("Gfx").any(|(at, _)| {
        let before = c[..at].chars().next_back();
        let word_start = !before.is_some_and(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        let end = ident_end(c, at);
        word_start && end > at + 3 && c[at + 3..end].chars().all(|ch| ch.is_ascii_digit())
    })
}

/// The string literals of a line of code, with their byte ranges (quotes included).
fn literals(c: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut open = None;
    let mut escaped = false;
    for (i, ch) in c.char_indices() {
        match (open, ch) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(start), '"') if !escaped => {
                out.push((start, i + 1, &c[start + 1..i]));
                open = None;
            }
            (None, '"') => open = Some(i),
            _ => {}
        }
        escaped = false;
    }
    out
}

/// A rule chosen by mnemonic: a mnemonic literal (a format's prefix and more: `"s_wait_"`,
/// `"ds_add_u32"`) compared, matched, or tested as a prefix, suffix or part of a name.
fn mnemonic_rule(c: &str) -> Option<&'static str> {
    const FORMATS: [&str; 14] = [
        "s_",
        "v_",
        "ds_",
        "global_load",
        "global_store",
        "global_atomic",
        "flat_load",
        "flat_store",
        "flat_atomic",
        "scratch_load",
        "scratch_store",
        "buffer_load",
        "buffer_store",
        "buffer_atomic",
    ];
    for (start, end, text) in literals(c) {
        let mnemonic = FORMATS.iter().any(|f| {
            text.strip_prefix(f).is_some_and(|rest| {
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
            })
        });
        if !mnemonic {
            continue;
        }
        let before = c[..start].trim_end();
        let after = c[end..].trim_start();
        let tested = [
            "==",
            "!=",
            "starts_with(",
            "ends_with(",
            "contains(",
            "strip_prefix(",
            "strip_suffix(",
            "eq_ignore_ascii_case(",
        ]
        .iter()
        .any(|t| before.ends_with(t));
        let arm = after.starts_with("=>")
            || after.starts_with("==")
            || after.starts_with("!=")
            || (after.starts_with('|') && !after.starts_with("||"));
        if tested || arm || c[..start].contains("matches!(") {
            return Some("chooses by mnemonic (make it a column of the ops' table)");
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
    let root = common::workspace();
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
        "isa/src/ds/encode.rs",
        "isa/src/ds/syntax.rs",
        "isa/src/ds/table.rs",
        "isa/src/inst/codec.rs",
        "isa/src/inst/ops.rs",
        "isa/src/inst/print.rs",
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
        "rules chosen by name or defaulting to a generation (ask the generation's data in \
         isa/src/gen/, a Generation method or a table column instead):\n{}",
        found.join("\n")
    );
    println!("{} files scanned, no rule chosen by name", files.len());
}

#[test]
fn the_scan_finds_planted_strays_and_spares_the_data_and_tests() {
    let planted = "\
        let half = target.generation == Generation::Gfx11;\n\
        if Generation::Gfx12 != gen { }\n\
        let w = matches!(gen, ds_isa::ds::Generation::Gfx12);\n\
        let old = info.in_generation(Generation::Gfx11);\n\
        Generation::Gfx11 | Generation::Gfx12 => execute,\n\
        if t.name == \"gfx1200\" { }\n\
        if t.name.starts_with(\"gfx12\") { }\n\
        \"gfx11\" => 1,\n\
        encode_in(Generation::Gfx11, inst)\n\
        pub fn encode(inst: &Inst) -> Vec<u8> { encode_in(Gfx11, inst) }\n\
        use ds_isa::gen::Generation::Gfx12;\n\
        n if n.starts_with(\"s_wait_\") => gen == g,\n\
        \"s_waitcnt_vscnt\" => false,\n\
        if op.name() == \"s_waitcnt_depctr\" { }\n\
        let wait = matches!(name, \"s_wait_kmcnt\" | \"s_wait_dscnt\");\n";
    let found: Vec<usize> = strays(planted).iter().map(|s| s.0).collect();
    assert_eq!(
        found,
        (1..=15).collect::<Vec<_>>(),
        "{:#?}",
        strays(planted)
    );
    let default = strays("encode_in(Generation::Gfx11, inst)\n");
    assert!(default[0].1.contains("a default"), "{default:?}");
    let by_name = strays("if op.name() == \"s_waitcnt_depctr\" { }\n");
    assert!(by_name[0].1.contains("mnemonic"), "{by_name:?}");
    let spared = "\
        let span = target.generation.permute_span(); // not == Generation::Gfx11\n\
        let same = target.generation == self.gen;\n\
        let s = format!(\"gfx{}\", n);\n\
        if !lower.starts_with(\"ds_\") { }\n\
        let text = format!(\"s_waitcnt {w}\");\n\
        let w = Inst::waitcnt(target.generation, w);\n\
        let gfx11 = gen.has_gds();\n\
        #[cfg(test)]\n\
        assert!(gen == Generation::Gfx12);\n";
    assert_eq!(strays(spared), Vec::new());
}

/// The planted strays in real files of the scan are found there: a gfx11 default wrapper in the
/// DS encoder, the old mnemonic rule for gfx12's waits in the template's ops table, a comparison in
/// the model.
#[test]
fn strays_planted_in_real_files_are_found() {
    let root = common::workspace();
    let files = scanned_files(&root);
    let plant = |file: &str, before: &str, lines: &[&str]| {
        assert!(
            files.iter().any(|f| f == Path::new(file)),
            "{file} is not scanned"
        );
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            text.contains(before),
            "{file}: no `{before}` to plant before"
        );
        assert!(strays(&text).is_empty(), "{file} has strays already");
        let planted = text.replacen(before, &format!("{}\n{before}", lines.join("\n")), 1);
        let found: Vec<String> = strays(&planted).into_iter().map(|s| s.2).collect();
        for line in lines.iter().filter(|l| !l.trim().is_empty()) {
            if line.contains("Gfx") || line.contains("\"s_") {
                assert!(
                    found.iter().any(|f| f == line.trim()),
                    "{file}: `{line}` not found: {found:?}"
                );
            }
        }
    };
    plant(
        "isa/src/ds/encode.rs",
        "impl DsInst {",
        &[
            "pub fn encode_gfx11(inst: &DsInst) -> Result<u64, InstError> {",
            "    inst.encode(Generation::Gfx11)",
            "}",
        ],
    );
    plant(
        "isa/src/inst/ops.rs",
        "/// Expands one format's rows",
        &[
            "fn available_after_gfx10(name: &str, gen: Generation) -> bool {",
            "    match name {",
            "        \"s_waitcnt_vscnt\" => gen != Generation::Gfx12,",
            "        n if n.starts_with(\"s_wait_\") => gen == Generation::Gfx12,",
            "        _ => true,",
            "    }",
            "}",
        ],
    );
    plant(
        "reference/src/model/mod.rs",
        "pub fn execute(",
        &["    let half = plan_target.generation == Generation::Gfx11;"],
    );
}
