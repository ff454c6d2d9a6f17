//! Case files: one variant and one case as a versioned JSON document, replayable by
//! `ds-harness replay` and `ds-harness eval`. The format is documented in `docs/case-format.md`;
//! the data types come from `ds_reference::wave` (docs/design-notes.md, "Runs at scale").

use ds_isa::error::InstError;
use ds_isa::target::Target;
use ds_reference::wave::{Case, Outcome, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The case-file format version this harness writes and reads.
pub const FORMAT: u32 = 1;

/// One case file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Format version; must be [`FORMAT`].
    pub format: u32,
    /// The case's id in its corpus, e.g. `ds_add_u32.o16.addr-same.exec-all.3`.
    pub id: String,
    /// The corpus seed the case was generated from.
    pub seed: u64,
    /// The target the case was run on (a row of the target table, by name). Files written
    /// before targets were named were all made on the default target, so that is what an absent
    /// field means.
    /// Read also in HIP's `gcnArchName` form (`<name>:sramecc+:xnack-`: the features are checked
    /// against the table's row); written as the row's name.
    #[serde(
        serialize_with = "ds_isa::target::by_name::serialize",
        deserialize_with = "target_id",
        default = "default_target"
    )]
    pub target: &'static Target,
    /// The kernel the case runs on: op, offsets, LDS size, FP mode.
    pub variant: Variant,
    /// The initial LDS image and wave.
    pub case: Case,
    /// What the reference model computed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Outcome>,
    /// What a device returned, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceOutcome>,
    /// The one-line command that replays this case (informational; not read back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

fn default_target() -> &'static Target {
    ds_isa::target::DEFAULT
}

/// A target by name or target id (`<name>:sramecc+:xnack-`).
fn target_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static Target, D::Error> {
    let name = String::deserialize(d)?;
    Target::by_hsa_name(&name)
        .map(|n| n.target)
        .map_err(serde::de::Error::custom)
}

/// A device's result for a case, with the device that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceOutcome {
    /// The backend (`hip` or `emu`).
    pub backend: String,
    /// The device's name.
    pub name: String,
    /// What the device left.
    pub outcome: Outcome,
}

impl CaseFile {
    /// A case file for `case` of `variant` run on `target`, with no results attached.
    pub fn new(
        id: impl Into<String>,
        seed: u64,
        target: &'static Target,
        variant: Variant,
        case: Case,
    ) -> CaseFile {
        CaseFile {
            format: FORMAT,
            id: id.into(),
            seed,
            target,
            variant,
            case,
            expected: None,
            device: None,
            replay: None,
        }
    }

    /// Parses a case file from JSON text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<CaseFile, CaseFileError> {
        let file: CaseFile = serde_json::from_str(text).map_err(|e| CaseFileError::Parse {
            path: origin.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if file.format != FORMAT {
            return Err(CaseFileError::Version {
                path: origin.to_path_buf(),
                found: file.format,
            });
        }
        if let Some(message) = op_not_on_target(file.target, file.variant.op) {
            return Err(CaseFileError::Invalid {
                path: origin.to_path_buf(),
                message,
            });
        }
        validate(file.target, &file.variant, &file.case)
            .and_then(|()| file.validate_outcomes())
            .map_err(|message| CaseFileError::Invalid {
                path: origin.to_path_buf(),
                message,
            })?;
        if let Err(why) = ds_kernels::check_wave(file.target, file.variant.wave) {
            return Err(CaseFileError::Invalid {
                path: origin.to_path_buf(),
                message: format!("variant.wave: {why}"),
            });
        }
        Ok(file)
    }

    /// The results attached to the file fit its variant (their LDS images are its size).
    fn validate_outcomes(&self) -> Result<(), String> {
        let want = self.variant.lds_size;
        let outcomes = [
            ("expected", self.expected.as_ref()),
            ("device.outcome", self.device.as_ref().map(|d| &d.outcome)),
        ];
        for (name, o) in outcomes {
            let lanes = self.variant.lanes();
            if let Some(o) = o.filter(|o| o.vdst.len() != lanes || o.addr.len() != lanes) {
                return Err(format!(
                    "{name} has {} vdst and {} addr entries, a {} case has {lanes} of each",
                    o.vdst.len(),
                    o.addr.len(),
                    self.variant.wave
                ));
            }
            if let Some(o) = o.filter(|o| o.lds.size() != want) {
                return Err(format!(
                    "{name}.lds.size is {} but variant.lds_size is {want}; make them equal",
                    o.lds.size()
                ));
            }
        }
        Ok(())
    }

    /// Reads and parses the case file at `path`.
    pub fn read(path: &Path) -> Result<CaseFile, CaseFileError> {
        let text = crate::input::read_text(path, crate::input::MAX_CASE_BYTES).map_err(|e| {
            CaseFileError::Io {
                path: path.to_path_buf(),
                message: e.to_string(),
            }
        })?;
        CaseFile::parse(&text, path)
    }

    /// The pretty JSON text of this file (ends with a newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("case files always serialise");
        s.push('\n');
        s
    }

    /// Writes the file atomically: to a temporary file beside `path`, then renamed over it.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        write_atomic(path, self.to_json().as_bytes())
    }
}

/// The one validation of a case before anything runs it (`eval`, `replay`, and every reader of a
/// case file, through [`CaseFile::parse`]): the LDS size is one a kernel can allocate, the LDS
/// image is that size, the offsets are legal for the op, the op is one ds-harness runs (the DS table's `hip`
/// column: GDS-only ops cannot run from a compute kernel, a few are not modelled yet),
/// the wave has one lane object per lane of `variant.wave` (32 when absent, or 64) and an EXEC with
/// no bit past its last lane, and `variant.regs` (if any) fit the op and give each register one
/// value per lane (in either wave size). (Every lane has 4 words per operand, checked
/// as it is parsed.) The op, offsets and registers are checked against `target`'s own
/// instruction set (its generation and DS features), the LDS size against its `lds_bytes`. The
/// message names the field to change. [`CaseFile::parse`] also checks the wave size against the
/// file's target.
pub fn validate(target: &Target, variant: &Variant, case: &Case) -> Result<(), String> {
    variant
        .check_wave(&case.wave)
        .map_err(|e| format!("case.wave: {e}"))?;
    let want = variant.lds_size;
    if ds_kernels::abi::check_lds_size_on(target, want).is_err() {
        return Err(format!(
            "variant.lds_size is {want}: an LDS allocation is a multiple of 4 between 4 and {} \
             bytes (the LDS a {target} workgroup can have); set variant.lds_size and \
             case.lds.size to such a size",
            target.lds_bytes
        ));
    }
    if case.lds.size() != want {
        return Err(format!(
            "case.lds.size is {} but variant.lds_size is {want}; make them equal",
            case.lds.size()
        ));
    }
    if let Some(message) = op_not_on_target(target, variant.op) {
        return Err(message);
    }
    if let Some(why) = variant.op.info().hip_unsupported {
        return Err(format!(
            "variant.op: {} is not run by ds-harness: {why}",
            variant.op.mnemonic(target.generation)
        ));
    }
    if let Some(regs) = variant.regs {
        // Registers that fit the op, and one value per register in every lane.
        regs.check(variant.op).map_err(|e| format!("variant.{e}"))?;
        if let Some(c) = regs.conflict(variant.op, variant.acc, &case.wave.lanes) {
            return Err(format!("case.wave.lanes: {c}"));
        }
    }
    // AccVGPRs where the target table's ds_features have ACC and the op has data or vdst.
    variant
        .check_acc(target)
        .map_err(|e| format!("variant.acc: {e}"))?;
    let inst = ds_isa::ds::DsInst {
        acc: false,
        ..variant.inst()
    };
    // Checked against the target's own instruction set (its DS features), not its generation's
    // common one: a file of an op only some targets of the generation have (src2, f64 adds) is
    // valid on its own target.
    inst.validate(target).map_err(|e| {
        let field = match inst_error_field(&e) {
            "variant.offset0 / offset1" => format!(
                "variant.offset0 {} / offset1 {}",
                variant.offset0, variant.offset1
            ),
            f => f.to_string(),
        };
        format!("{field}: {}", e)
    })
}

/// The case-file field an instruction error is about, so the message names the one to change.
fn inst_error_field(e: &InstError) -> &'static str {
    match e {
        InstError::NotInGeneration { .. }
        | InstError::NotOnTarget { .. }
        | InstError::GdsForbidden { .. }
        | InstError::GdsRequired { .. }
        | InstError::NoGdsBit { .. }
        | InstError::NoGds { .. } => "variant.op",
        InstError::UnusedField { .. }
        | InstError::RegisterRange { .. }
        | InstError::Misaligned { .. } => "variant.regs",
        InstError::Acc { .. } => "variant.acc",
        InstError::OffsetNotAllowed { .. } => "variant.offset0 / offset1",
    }
}

/// Why `op` cannot be in a case file of `target` (the generation lacks it, or the target lacks a
/// feature it needs), naming the targets that have it; `None` when the target has it.
fn op_not_on_target(target: &Target, op: ds_isa::ds::DsOp) -> Option<String> {
    let info = op.info();
    if info.on(target) {
        return None;
    }
    let has: Vec<&str> = ds_isa::target::TARGETS
        .iter()
        .filter(|t| info.on(*t))
        .map(|t| t.name)
        .collect();
    let gen = target.generation;
    let why = if info.in_generation(gen) {
        let lacking = info.needs.difference(target.ds_features);
        format!(
            "{} needs the {lacking} feature, which {target} lacks",
            op.mnemonic(gen)
        )
    } else {
        format!("{op} is not a {gen} op (the file's target {target} is {gen})")
    };
    Some(format!(
        "variant.op: {why}: set \"target\" to a target that has it ({}), or pick an op of {target}",
        if has.is_empty() {
            "none".to_string()
        } else {
            has.join(", ")
        }
    ))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader (or an interrupted run) never sees a half-written file. Creates the directory (and its
/// parents): for files the harness lays out inside an output directory the user named and that
/// was checked before the run ([`crate::output::OutputDir`]). A symlink is followed and a
/// non-regular file written through ([`crate::output::write_file`]), never replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    crate::output::write_file(path, bytes)
}

/// Why a case file could not be used.
#[derive(Debug)]
pub enum CaseFileError {
    /// The file could not be read.
    Io { path: PathBuf, message: String },
    /// The JSON is malformed or does not match the format.
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file is of another format version.
    Version { path: PathBuf, found: u32 },
    /// The file parses but its parts do not fit together.
    Invalid { path: PathBuf, message: String },
}

impl fmt::Display for CaseFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseFileError::Io { path, message } => {
                write!(f, "cannot read case file {}: {message}", path.display())
            }
            CaseFileError::Parse {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "{}:{line}:{column}: not a valid case file: {message}; see docs/case-format.md \
                 for the format (or write one with `ds-harness run`, which saves every \
                 mismatching case)",
                path.display()
            ),
            CaseFileError::Version { path, found } => write!(
                f,
                "{}: case-file format {found} is not supported; this ds-harness reads format \
                 {FORMAT} (set \"format\": {FORMAT} after converting, see docs/case-format.md)",
                path.display()
            ),
            CaseFileError::Invalid { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for CaseFileError {}

#[cfg(test)]
mod tests;
