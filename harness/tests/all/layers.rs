//! The workspace's layers (docs/architecture.md, "Crates"): isa -> reference -> kernels -> devices -> harness, and
//! no import circle between the files of any crate.
//!
//! A file *imports* another when it names one of its items by path: a `use` declaration or an
//! inline path starting with `crate::`, `super::` or `self::` (comments and string literals
//! excluded). A module naming its own submodule (`mod run;` then `run::run(..)`) is ownership, not
//! an import, and is not an edge; a submodule reaching up to its parent (`super::EXIT_OK`) is.
//! Circles are the strongly connected components of that graph with more than one file.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates, lowest layer first: a crate may depend only on crates before it.
const LAYERS: &[(&str, &str)] = &[
    ("isa", "ds-isa"),
    ("reference", "ds-reference"),
    ("kernels", "ds-kernels"),
    ("devices", "ds-devices"),
    ("harness", "ds-harness"),
];

/// The tests' helpers (folder, package): beside the layers, a dev-dependency only.
const TEST_SUPPORT: (&str, &str) = ("test-support", "ds-test-support");

/// A source file's module path inside its crate (`src/run/diff.rs` -> `run::diff`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `text` without comments, string and char literals (so a path in a doc line is no import).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#")) {
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == b'"' {
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = (j + close.len()).min(b.len());
                out.push_str("\"\"");
            } else {
                out.push('r');
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // a char literal ('a', '\n', '\''); a lifetime ('a) has no closing quote nearby
            let mut j = i + 1;
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            i = j + 1;
            out.push_str("' '");
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path in `code` that starts with `crate`, `super` or `self`, as segments, with `use`
/// groups (`use crate::{a, b::c}`) expanded one level.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if (i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':') && is_ident(chars[i]) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let first: String = chars[start..i].iter().collect();
            if !matches!(first.as_str(), "crate" | "super" | "self") {
                continue;
            }
            let mut segs = vec![first];
            let mut group = None;
            loop {
                let mut j = i;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if !(j + 1 < chars.len() && chars[j] == ':' && chars[j + 1] == ':') {
                    break;
                }
                j += 2;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if j < chars.len() && chars[j] == '{' {
                    let end = chars[j..].iter().position(|&c| c == '}').map(|p| j + p);
                    group = end.map(|e| chars[j + 1..e].iter().collect::<String>());
                    i = end.unwrap_or(j);
                    break;
                }
                let s = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                if s == j {
                    break;
                }
                segs.push(chars[s..j].iter().collect());
                i = j;
            }
            match group {
                Some(g) => {
                    for item in g.split(',') {
                        let mut p = segs.clone();
                        p.extend(
                            item.split("::")
                                .map(|s| s.split_whitespace().next().unwrap_or("").to_string())
                                .filter(|s| !s.is_empty() && s.chars().all(is_ident)),
                        );
                        found.push(p);
                    }
                }
                None => found.push(segs),
            }
        } else {
            i += 1;
        }
    }
    found
}

/// The import graph of one crate's files: file -> files it imports.
fn graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let by_module: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter(|f| !f.ends_with("main.rs"))
        .map(|f| (module_path(src, f), f.clone()))
        .collect();
    let mut edges = BTreeMap::new();
    for f in &files {
        let here = module_path(src, f);
        // A file named `mod.rs`/`lib.rs` is its module; `super` from it is the parent's parent.
        let text = std::fs::read_to_string(f).unwrap();
        let mut to = BTreeSet::new();
        for p in paths(&code_only(&text)) {
            let mut base: Vec<String> = Vec::new();
            let mut rest = p.as_slice();
            match rest[0].as_str() {
                "crate" => rest = &rest[1..],
                "self" => {
                    base = here.clone();
                    rest = &rest[1..];
                }
                _ => {
                    base = here.clone();
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
            }
            let mut target = base;
            let mut best = None;
            if by_module.contains_key(&target) {
                best = Some(target.clone());
            }
            for s in rest {
                target.push(s.clone());
                if by_module.contains_key(&target) {
                    best = Some(target.clone());
                }
            }
            if let Some(m) = best {
                // Ownership is no import: a module naming its own descendant.
                if m.len() > here.len() && m.starts_with(&here) {
                    continue;
                }
                if m != here {
                    to.insert(by_module[&m].clone());
                }
            }
        }
        edges.insert(f.clone(), to);
    }
    edges
}

/// The strongly connected components with more than one file (Tarjan's algorithm).
fn circles(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct St<'a> {
        g: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a PathBuf) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let Some((w, _)) = s.g.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn describe(root: &Path, circle: &[PathBuf]) -> String {
    circle
        .iter()
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn no_file_of_the_workspace_is_in_an_import_circle() {
    let root = common::workspace();
    let mut report = Vec::new();
    let mut files = 0;
    let mut edges = 0;
    let members = common::workspace_members();
    assert!(members.len() >= 5, "{members:?}");
    for dir in members {
        let g = graph(&root.join(dir).join("src"));
        files += g.len();
        edges += g.values().map(BTreeSet::len).sum::<usize>();
        for c in circles(&g) {
            report.push(format!("{} files: {}", c.len(), describe(&root, &c)));
        }
    }
    println!("import graph: {files} files, {edges} imports between files");
    // The command line is the top of the harness: no other module names it.
    let harness = root.join("harness").join("src");
    for (from, to) in graph(&harness) {
        if from.starts_with(harness.join("cli")) || from.ends_with("main.rs") {
            continue;
        }
        for t in to.iter().filter(|t| t.starts_with(harness.join("cli"))) {
            report.push(format!(
                "{} reaches up to the command line ({})",
                describe(&root, std::slice::from_ref(&from)),
                describe(&root, std::slice::from_ref(t))
            ));
        }
    }
    assert!(
        report.is_empty(),
        "import circles (break each by moving what both files need down into a module of its own):\n{}",
        report.join("\n")
    );
}

/// The checker finds a planted circle, including one through `super::` and a `use` group, and
/// ignores paths in comments and strings.
#[test]
fn a_planted_circle_is_found_and_a_commented_one_is_not() {
    let dir = common::temp_dir("layers");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\npub mod c;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "pub mod x;\npub fn f() { x::h() }\n").unwrap();
    std::fs::write(src.join("a/x.rs"), "use crate::{b::g, c};\npub fn h() {}\n").unwrap();
    std::fs::write(src.join("b.rs"), "use super::a::x::h;\npub fn g() {}\n").unwrap();
    std::fs::write(
        src.join("c.rs"),
        "// crate::b::g\nconst S: &str = \"crate::b::g\";\n",
    )
    .unwrap();
    let found = circles(&graph(&src));
    assert_eq!(found.len(), 1, "{found:?}");
    let names: Vec<String> = found[0]
        .iter()
        .map(|p| p.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    // a/x.rs -> b.rs (through the group) -> a/x.rs (through super); a/mod.rs owns a/x.rs.
    assert_eq!(names, ["a/x.rs", "b.rs"], "{found:?}");
    std::fs::remove_file(src.join("b.rs")).unwrap();
    std::fs::write(src.join("b.rs"), "pub fn g() {}\n").unwrap();
    assert!(circles(&graph(&src)).is_empty());
}

/// Each crate depends only on crates of a lower layer; hip-standin on devices, never the harness.
#[test]
fn each_crate_depends_only_on_lower_layers() {
    let root = common::workspace();
    let manifest = |dir: &str| std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap();
    for (i, (dir, _)) in LAYERS.iter().enumerate() {
        let text = manifest(dir);
        let deps = text.split("[dev-dependencies]").next().unwrap();
        for (above, name) in &LAYERS[i + 1..] {
            assert!(
                !deps.contains(&format!("{name}.")) && !deps.contains(&format!("{name} =")),
                "{dir}/Cargo.toml depends on {name} ({above}/), a higher layer"
            );
        }
    }
    let standin = manifest("hip-standin");
    let standin = standin.split("[dependencies]").nth(1).unwrap_or("");
    assert!(
        !standin.contains("ds-harness =") && !standin.contains("ds-harness."),
        "hip-standin must depend on ds-devices, not on the harness"
    );
    assert!(standin.contains("ds-devices"));
}

/// The lengths of the functions in `code` (from the `fn` line to its closing brace), by name.
fn function_lengths(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(rest) = ["pub fn ", "fn ", "pub(crate) fn ", "pub(super) fn "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        else {
            continue;
        };
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        let mut depth = 0i32;
        let mut opened = false;
        for (j, l) in lines.iter().enumerate().skip(i) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                found.push((name.clone(), j - i + 1));
                break;
            }
        }
    }
    found
}

/// Every command reads top to bottom, as `run` does: each step a function of its own, no
/// function of `harness/src/cli/` over 60 lines (issue 30: `against`, `kernel` and `replay`
/// were 187, 110 and 100).
#[test]
fn no_function_of_the_cli_is_over_60_lines() {
    let dir = common::workspace().join("harness/src/cli");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut long = Vec::new();
    for path in &files {
        let code = code_only(&std::fs::read_to_string(path).unwrap());
        let lengths = function_lengths(&code);
        if path.ends_with("run.rs") {
            assert!(lengths.iter().any(|(n, _)| n == "run"), "{lengths:?}");
        }
        for (name, n) in lengths.into_iter().filter(|(_, n)| *n > 60) {
            long.push(format!("{}: {name} ({n} lines)", path.display()));
        }
    }
    assert!(files.len() > 10, "{files:?}");
    assert!(
        long.is_empty(),
        "functions of harness/src/cli over 60 lines: {long:#?}"
    );
    // The measure itself: a 61-line function is caught.
    let planted = format!("fn long() {{\n{}}}\n", "    x();\n".repeat(59));
    assert_eq!(function_lengths(&planted), [("long".to_string(), 61)]);
}

/// Every crate of the workspace has its layer (a new crate is placed, not forgotten), and the
/// instruction sets are the bottom one: `ds-isa` depends on no crate of the workspace, and the
/// model and the kernels read it.
#[test]
fn every_crate_has_a_layer_and_the_instruction_sets_are_the_bottom() {
    let root = common::workspace();
    let members = common::workspace_members();
    for m in &members {
        assert!(
            m == "hip-standin" || m == TEST_SUPPORT.0 || LAYERS.iter().any(|(dir, _)| dir == m),
            "{m} is a workspace member without a layer in LAYERS"
        );
    }
    for (dir, _) in LAYERS {
        assert!(members.iter().any(|m| m == dir), "{dir} is not a member");
    }
    assert_eq!(LAYERS[0], ("isa", "ds-isa"));
    let deps = |dir: &str| {
        let text = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap();
        let deps = text
            .split("[dependencies]")
            .nth(1)
            .unwrap_or("")
            .to_string();
        deps.split("[dev-dependencies]")
            .next()
            .unwrap_or("")
            .to_string()
    };
    let isa = deps("isa");
    for (_, name) in &LAYERS[1..] {
        assert!(!isa.contains(name), "ds-isa depends on {name}");
    }
    for dir in ["reference", "kernels"] {
        assert!(deps(dir).contains("ds-isa"), "{dir} does not read ds-isa");
    }
}

/// The tests' helpers are test code only: no crate has `ds-test-support` among its
/// `[dependencies]` (each crate that uses it has it among its `[dev-dependencies]`), it is never
/// published, and it reads nothing above the instruction sets (so any crate's tests may use it).
#[test]
fn the_test_support_crate_is_a_dev_dependency_only() {
    let root = common::workspace();
    let (dir, name) = TEST_SUPPORT;
    let sections = |text: &str| -> (String, String) {
        let (before, dev) = text.split_once("[dev-dependencies]").unwrap_or((text, ""));
        let deps = before.split("[dependencies]").nth(1).unwrap_or("");
        let dev = dev.split("\n[").next().unwrap_or("");
        (deps.to_string(), dev.to_string())
    };
    let mut users = Vec::new();
    for (krate, _) in LAYERS.iter().chain([&("hip-standin", "hip-standin")]) {
        let text = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).unwrap();
        let (deps, dev) = sections(&text);
        assert!(
            !deps.contains(name),
            "{krate}/Cargo.toml has {name} among its [dependencies]: tests only"
        );
        if dev.contains(name) {
            users.push(*krate);
        }
    }
    assert_eq!(users, ["reference", "kernels", "devices", "harness"]);
    let own = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap();
    assert!(own.contains("publish = false"), "{dir}/Cargo.toml");
    let (deps, _) = sections(&own);
    for (_, above) in &LAYERS[1..] {
        assert!(!deps.contains(above), "{name} depends on {above}");
    }
    // The check can fail: a manifest with it among its dependencies is caught.
    let planted = "[dependencies]\nds-test-support.workspace = true\n[dev-dependencies]\n";
    assert!(sections(planted).0.contains(name));
}
