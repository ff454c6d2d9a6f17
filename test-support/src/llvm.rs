//! The LLVM releases the oracle tests run against, and which generation each checks: one list for
//! every oracle test of the workspace.
//!
//! Debian 12 ships two: `llvm-19` (main archive) and `llvm-22` (the `bookworm-security` suite),
//! each with versioned tools (`llvm-mc-19`, `llvm-objdump-22`, `ld.lld-22`, ...). Every oracle test
//! runs once per installed release that knows the target, and prints which releases it used. A
//! release that is not installed is skipped with a reason, except under `CI=true`, where that is a
//! failure (scripts/install-deps.sh installs both).

use ds_isa::ds::{Generation, Isa};
use ds_isa::target::Target;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The oracle LLVM releases, oldest first.
pub const VERSIONS: [u32; 2] = [19, 22];

/// What each generation is checked against: its targets (the target table's rows of the
/// generation, each LLVM checking those it knows) and the LLVM releases that check it. Adding a
/// generation is adding a row.
#[derive(Debug)]
pub struct Checked {
    /// The generation.
    pub gen: Generation,
    /// The LLVM releases that check it (each must be in [`VERSIONS`]).
    pub llvm: &'static [u32],
}

/// The generations the oracles check, oldest first.
pub const GENERATIONS: &[Checked] = &[
    Checked {
        gen: Generation::Gfx9,
        llvm: &[19, 22],
    },
    Checked {
        gen: Generation::Gfx10,
        llvm: &[19, 22],
    },
    Checked {
        gen: Generation::Gfx11,
        llvm: &[19, 22],
    },
    Checked {
        gen: Generation::Gfx12,
        llvm: &[19, 22],
    },
    // LLVM 19 knows no gfx1250 target.
    Checked {
        gen: Generation::Gfx12_5,
        llvm: &[22],
    },
];

/// One installed LLVM release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Llvm {
    /// The major version, e.g. 19.
    pub major: u32,
    /// The AMDGPU processors its `llvm-mc -mcpu=help` lists.
    processors: Vec<String>,
}

impl Llvm {
    /// The versioned tool `name` of this release, e.g. `llvm-mc-19` or `ld.lld-22`.
    pub fn tool(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("{name}-{}", self.major))
    }

    /// `llvm-mc-N`.
    pub fn mc(&self) -> PathBuf {
        self.tool("llvm-mc")
    }

    /// The versioned tool `name` of this release (`llvm-objdump` -> `llvm-objdump-22`) if it runs;
    /// `None` after [`crate::require`] said why otherwise (its llvm-mc may be there without it).
    ///
    /// # Panics
    /// When the tool does not run and `CI=true`.
    pub fn find_tool(&self, name: &str) -> Option<PathBuf> {
        let path = self.tool(name);
        let runs = crate::version_runs(&path);
        let why = format!(
            "{} does not run: install the Debian package {}",
            path.display(),
            package(name, self.major)
        );
        crate::require(runs, &why).then_some(path)
    }

    /// Its AMDGPU backend knows the processor (or generic target) `t`.
    pub fn knows(&self, t: &Target) -> bool {
        self.processors.iter().any(|p| p == t.name)
    }

    /// The targets of `gen` it knows, in table order.
    pub fn targets(&self, gen: Generation) -> Vec<&'static Target> {
        gen.targets().filter(|t| self.knows(t)).collect()
    }

    /// `LLVM 19`.
    pub fn label(&self) -> String {
        format!("LLVM {}", self.major)
    }
}

/// The Debian package that holds `tool` of release `major`.
pub fn package(tool: &str, major: u32) -> String {
    if tool.starts_with("ld.lld") {
        format!("lld-{major}")
    } else {
        format!("llvm-{major}")
    }
}

/// Every installed release of [`VERSIONS`], oldest first, found once per test binary. A missing
/// release is reported (once) and left out, or fails the test under `CI=true`.
///
/// # Panics
/// When a release is missing and `CI=true`.
pub fn installed() -> Vec<Llvm> {
    static FOUND: OnceLock<Vec<Result<Llvm, String>>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let found: Vec<_> = VERSIONS.iter().map(|&v| probe(v)).collect();
        announce(&found);
        found
    });
    let mut out = Vec::new();
    for f in found {
        match f {
            Ok(llvm) => out.push(llvm.clone()),
            Err(why) => {
                crate::require(false, why);
            }
        }
    }
    out
}

/// Says once per test binary which releases its oracle tests use, on the real stderr (past the
/// test harness's capture, so `cargo test` shows it for passing tests too).
fn announce(found: &[Result<Llvm, String>]) {
    use std::io::Write;
    let binary = std::env::args()
        .next()
        .and_then(|a| {
            let stem = std::path::Path::new(&a)
                .file_stem()?
                .to_string_lossy()
                .into_owned();
            Some(
                stem.rsplit_once('-')
                    .map_or(stem.clone(), |(n, _)| n.to_string()),
            )
        })
        .unwrap_or_default();
    let used: Vec<String> = found
        .iter()
        .map(|f| match f {
            Ok(l) => format!("{} (llvm-mc-{})", l.label(), l.major),
            Err(why) => format!("(missing: {why})"),
        })
        .collect();
    let _ = writeln!(
        std::io::stderr(),
        "{binary}: oracle tests run against {}",
        used.join(", ")
    );
}

/// Release `major`, if its `llvm-mc` runs: its processor list.
fn probe(major: u32) -> Result<Llvm, String> {
    let mc = format!("llvm-mc-{major}");
    let out = Command::new(&mc)
        .args(["-triple=amdgcn", "-mcpu=help"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "{mc} not found ({e}): install Debian's {} and {} (scripts/install-deps.sh)",
                package("llvm-mc", major),
                package("ld.lld", major)
            )
        })?;
    // The list goes to stderr: `  gfx1100 - Select the gfx1100 processor.`
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let processors: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" - ")?;
            rest.starts_with("Select the")
                .then(|| name.trim().to_string())
        })
        .collect();
    if processors.is_empty() {
        return Err(format!(
            "{mc} -mcpu=help lists no AMDGPU processor:\n{text}"
        ));
    }
    Ok(Llvm { major, processors })
}

/// One oracle run: an installed LLVM, a generation it checks, and the processor llvm-mc is asked
/// for: the first target it knows of one kind of the generation's targets (the targets whose DS
/// features, the target table's `ds_features` column, are the same decode the same words, so one
/// of each kind is asked; every target is asked in the opcode-space scan).
#[derive(Clone, Debug)]
pub struct Pair {
    pub llvm: Llvm,
    pub gen: Generation,
    pub cpu: &'static Target,
}

impl Pair {
    /// `LLVM 19 gfx11 (gfx1100)`, the prefix of every report line.
    pub fn label(&self) -> String {
        format!("{} {} ({})", self.llvm.label(), self.gen, self.cpu)
    }

    /// The instruction set of the pair's processor.
    pub fn isa(&self) -> Isa {
        Isa::of(self.cpu)
    }
}

/// Every (installed LLVM, generation, kind of target) of [`GENERATIONS`], printed; each
/// generation's targets an installed release does not know are printed too (none is skipped
/// silently).
///
/// # Panics
/// When a release of a row is not in [`VERSIONS`], or knows no target of the generation.
pub fn pairs() -> Vec<Pair> {
    let llvms = installed();
    let mut out = Vec::new();
    for row in GENERATIONS {
        for &major in row.llvm {
            assert!(
                VERSIONS.contains(&major),
                "LLVM {major} is not an oracle release"
            );
            let Some(llvm) = llvms.iter().find(|l| l.major == major) else {
                continue;
            };
            let known = llvm.targets(row.gen);
            let unknown: Vec<&str> = row
                .gen
                .targets()
                .filter(|t| !llvm.knows(t))
                .map(|t| t.name)
                .collect();
            assert!(
                !known.is_empty(),
                "{} knows no {} target",
                llvm.label(),
                row.gen
            );
            if !unknown.is_empty() {
                println!(
                    "{}: {} targets it does not know, not checked by it: {}",
                    llvm.label(),
                    row.gen,
                    unknown.join(", ")
                );
            }
            let mut kinds: Vec<Vec<&'static Target>> = Vec::new();
            for t in known {
                match kinds.iter_mut().find(|k| k[0].ds_features == t.ds_features) {
                    Some(k) => k.push(t),
                    None => kinds.push(vec![t]),
                }
            }
            for kind in kinds {
                if kind.len() > 1 {
                    let alike: Vec<&str> = kind[1..].iter().map(|t| t.name).collect();
                    println!(
                        "{} {}: {} stands for {} (the same DS features)",
                        llvm.label(),
                        row.gen,
                        kind[0],
                        alike.join(", ")
                    );
                }
                out.push(Pair {
                    llvm: llvm.clone(),
                    gen: row.gen,
                    cpu: kind[0],
                });
            }
        }
    }
    let used: Vec<String> = out.iter().map(Pair::label).collect();
    println!("LLVM oracles used: {}", used.join("; "));
    out
}

/// Our text of an instruction as LLVM `major` prints it: the same, but for the one documented
/// difference (`isa::swizzle`): from LLVM 22, a `ds_swizzle_b32` offset from 0xC000 prints as
/// `swizzle(ROTATE,dir,n)` (dir = offset[10], n = offset[9:5]) or `swizzle(FFT,n)` (n =
/// offset[4:0]) where LLVM 19, and we, print the number.
pub fn printed_by(major: u32, text: &str) -> String {
    let Some((head, rest)) = text.split_once(" offset:") else {
        return text.to_string();
    };
    let (offset, tail) = rest.split_once(' ').map_or((rest, ""), |(o, t)| (o, t));
    let Ok(o) = offset.parse::<u16>() else {
        return text.to_string();
    };
    if major < 22 || !head.starts_with("ds_swizzle_b32 ") || o < 0xc000 {
        return text.to_string();
    }
    let mac = if o >= 0xe000 {
        format!("swizzle(FFT,{})", o & 0x1f)
    } else {
        format!("swizzle(ROTATE,{},{})", (o >> 10) & 1, (o >> 5) & 0x1f)
    };
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!(" {tail}")
    };
    format!("{head} offset:{mac}{tail}")
}

/// A `-show-encoding` line (`\t<text padded to 39> ; encoding: [...]`) as LLVM `major` prints it.
pub fn line_printed_by(major: u32, line: &str) -> String {
    match line.split_once("; encoding: ") {
        Some((text, enc)) => {
            let text = printed_by(major, text.trim());
            format!("\t{text:<39} ; encoding: {enc}")
        }
        None => line.to_string(),
    }
}
