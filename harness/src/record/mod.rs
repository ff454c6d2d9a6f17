//! Recordings: a device's results on the model's snapshot corpus, one file per op, in the
//! snapshot text format of `snapshots/reference/` (`ds_reference::model::snapshot`), headed by
//! provenance comment lines and closed by an end marker (docs/recordings.md).
//!
//! A file is written atomically (temporary file + rename), so an interrupted run leaves either
//! the whole file or none; the end marker (`# end of recording: N cases`) makes a truncated or
//! hand-cut file an error with its file and line rather than a silently shorter recording.
//! Provenance rule: only a HIP run may record under a GPU's arch name; an emulated run records
//! under `emulated-<arch>` ([`dir_name`]), so no emulated result can pass for hardware.

use crate::case::write_atomic;
use ds_devices::{Device, DeviceInfo};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_kernels::{abi, code_object, generator};
use ds_reference::model::snapshot::{self, Entry};
use ds_reference::wave::{Case, FpMode, Outcome, Variant, WaveSize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod dir;
mod replay;
use dir::is_stand_in;
pub use dir::{check_dir_provenance, dir_name, recordable, MAX_SLUG_CHARS};
pub use replay::{
    check_all, known_divergences, replay, KnownDivergence, ReplaySummary, Replayed, Verdict,
    KNOWN_DIVERGENCES,
};

/// First line of every recording.
pub const MAGIC: &str = "# ds-harness recording, format 1";
/// Prefix of a provenance line: `# provenance <key>: <value>`.
const PROVENANCE: &str = "# provenance ";
/// Prefix of the last line: `# end of recording: <N> cases`.
const END: &str = "# end of recording: ";
/// File name extension of a recording.
pub const EXTENSION: &str = "txt";

/// The harness revision this binary was built from (`git describe` at build time).
pub fn harness_revision() -> &'static str {
    option_env!("DS_HARNESS_REVISION").unwrap_or("unknown")
}

/// Where a recording came from, as ordered key/value pairs (`backend`, `gpu`, `arch`, then the
/// device's details such as HIP runtime and driver versions, then `harness`, `date`, `fp_modes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The pairs, in file order.
    pub pairs: Vec<(String, String)>,
}

impl Provenance {
    /// The provenance of a run on the device `info` today, for entries run in `modes`, in waves
    /// of `wave` (a `wave` pair for wave64; a recording without one is wave32).
    pub fn of(info: &DeviceInfo, modes: &[FpMode], wave: WaveSize) -> Provenance {
        let mut pairs = vec![
            ("backend".to_string(), info.backend.to_string()),
            ("gpu".to_string(), info.name.clone()),
            ("arch".to_string(), info.target.name.to_string()),
        ];
        // The device's details, never in place of a key the harness writes (an external device
        // names its details itself; ds_devices::exec renames its reserved keys already).
        for (k, v) in &info.details {
            let own = [
                "backend", "gpu", "arch", "harness", "date", "fp_modes", "wave",
            ];
            let mut key = k.clone();
            while own.contains(&key.as_str()) || pairs.iter().any(|(have, _)| *have == key) {
                key = format!("device's {key}");
            }
            pairs.push((key, v.clone()));
        }
        pairs.push(("harness".into(), harness_revision().into()));
        pairs.push(("date".into(), utc_date_now()));
        let mut names: Vec<String> = modes.iter().map(|m| fp_mode_name(*m)).collect();
        names.sort();
        names.dedup();
        pairs.push(("fp_modes".into(), names.join(", ")));
        if !wave.is_wave32() {
            pairs.push(("wave".into(), wave.lanes().to_string()));
        }
        Provenance { pairs }
    }

    /// The wave size the recording's cases ran in (`wave` provenance; absent: wave32).
    pub fn wave(&self) -> Result<WaveSize, String> {
        self.get("wave").map_or(Ok(WaveSize::Wave32), str::parse)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The backend that produced the recording (`hip` or `emu`).
    pub fn backend(&self) -> &str {
        self.get("backend").unwrap_or("unknown")
    }

    /// True when a GPU produced the recording: the hip backend (or an exec device whose hello
    /// said `hardware`), and not the HIP stand-in runtime (which the hip device marks in its
    /// `provenance` detail).
    pub fn is_hardware(&self) -> bool {
        let gpu = match self.backend() {
            "hip" => true,
            // An external device is hardware only when its hello says so (a GPU served
            // through the device protocol).
            "exec" => self.get("hardware") == Some("true"),
            _ => false,
        };
        gpu && !self.get("provenance").is_some_and(is_stand_in)
    }
}

/// An FP mode in words, e.g. `denormals kept, ieee on`.
pub fn fp_mode_name(m: FpMode) -> String {
    let d = match (m.fp32_denormals, m.fp16_fp64_denormals) {
        (true, true) => "denormals kept",
        (false, false) => "denormals flushed",
        (true, false) => "fp32 denormals kept, fp16/fp64 flushed",
        (false, true) => "fp32 denormals flushed, fp16/fp64 kept",
    };
    format!("{d}, ieee {}", if m.ieee { "on" } else { "off" })
}

/// One recording file, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    /// The file.
    pub path: PathBuf,
    /// The op the file records.
    pub op: DsOp,
    /// The wave size its cases ran in.
    pub wave: WaveSize,
    /// Where it came from.
    pub provenance: Provenance,
    /// The cases with the device's outcomes.
    pub entries: Vec<Entry>,
}

impl Recording {
    /// The target the recording was made on (its `arch` provenance, a row of the target table;
    /// [`parse`] refuses a recording whose arch is no supported target).
    pub fn target(&self) -> &'static Target {
        self.provenance
            .get("arch")
            .and_then(|a| Target::by_name(a).ok())
            .expect("parse checked the arch")
    }
}

/// Why a recording could not be written or read; every message names the file (and line).
#[derive(Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The file could not be read or written.
    Io { path: PathBuf, message: String },
    /// The file is not a complete, well-formed recording.
    Corrupt {
        path: PathBuf,
        line: usize,
        what: String,
    },
    /// A recording directory would claim hardware for an emulated run (or the reverse).
    Provenance { path: PathBuf, what: String },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            RecordError::Corrupt { path, line, what } => write!(
                f,
                "{}:{line}: corrupt recording: {what} (re-record it with `ds-harness run --record`; \
                 recordings are never edited by hand)",
                path.display()
            ),
            RecordError::Provenance { path, what } => {
                write!(f, "{}: provenance: {what}", path.display())
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// The text of a recording of `op`.
pub fn render(op: DsOp, provenance: &Provenance, entries: &[Entry]) -> String {
    let mut s = format!("{MAGIC}\n");
    for (k, v) in &provenance.pairs {
        // A key holds no line break and no `: ` (the line is `key: value`).
        let key = one_line(k).replace(": ", "; ");
        s.push_str(&format!("{PROVENANCE}{key}: {}\n", one_line(v)));
    }
    s.push_str(&snapshot::render(op, entries));
    s.push_str(&format!("{END}{} cases\n", entries.len()));
    s
}

/// A provenance key or value as one printable line: no line break, escape sequence or other
/// control character reaches the file (they are written as `\xNN`).
fn one_line(v: &str) -> String {
    ds_devices::exec::text::printable(v)
}

/// Parses a recording's text; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Recording, RecordError> {
    let corrupt = |line: usize, what: String| RecordError::Corrupt {
        path: path.to_path_buf(),
        line,
        what,
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.first() != Some(&MAGIC) {
        return Err(corrupt(1, format!("the first line must be `{MAGIC}`")));
    }
    let mut provenance = Provenance::default();
    for (n, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix(PROVENANCE) {
            let (k, v) = rest
                .split_once(": ")
                .ok_or_else(|| corrupt(n + 1, "a provenance line is `key: value`".into()))?;
            provenance.pairs.push((k.to_string(), v.to_string()));
        }
    }
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(0);
    let count: usize = match lines[last].strip_prefix(END) {
        Some(rest) => rest
            .strip_suffix(" cases")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| corrupt(last + 1, format!("`{}` is not `{END}N cases`", lines[last])))?,
        None => {
            return Err(corrupt(
                last + 1,
                format!(
                    "the file ends here without `{END}N cases`: it is cut short (half-written or truncated)"
                ),
            ))
        }
    };
    for key in ["backend", "arch"] {
        if provenance.get(key).is_none() {
            return Err(corrupt(2, format!("no `# provenance {key}: ...` line")));
        }
    }
    let arch = provenance.get("arch").unwrap_or_default();
    if let Err(e) = Target::by_name(arch) {
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("{PROVENANCE}arch:")))
            .map_or(2, |n| n + 1);
        return Err(corrupt(
            at,
            format!("the recording's arch: {e}; it cannot be replayed against a model of it"),
        ));
    }
    let entries = snapshot::parse(text).map_err(|e| corrupt(e.line, e.what))?;
    if entries.len() != count {
        return Err(corrupt(
            last + 1,
            format!(
                "the end marker says {count} cases but the file holds {}: it was cut or edited",
                entries.len()
            ),
        ));
    }
    let op = match entries.first() {
        Some(e) => e.variant.op,
        None => return Err(corrupt(last + 1, "the recording holds no cases".into())),
    };
    // The line number of a case's first line, for the message.
    let line_of = |name: &str| {
        lines
            .iter()
            .position(|l| l.trim() == format!("case {name}"))
            .map_or(1, |n| n + 2)
    };
    if let Some(e) = entries.iter().find(|e| e.variant.op != op) {
        return Err(corrupt(
            line_of(&e.name),
            format!(
                "case {} is of {}, the file records {op}",
                e.name, e.variant.op
            ),
        ));
    }
    let wave = provenance.wave().map_err(|e| {
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("{PROVENANCE}wave:")))
            .map_or(2, |n| n + 1);
        corrupt(at, format!("provenance wave: {e}"))
    })?;
    if let Some(e) = entries.iter().find(|e| e.variant.wave != wave) {
        return Err(corrupt(
            line_of(&e.name),
            format!(
                "case {} ran in {}, the provenance says the recording is {wave}",
                e.name, e.variant.wave
            ),
        ));
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string());
    if stem
        .as_deref()
        .is_some_and(|s| s != recording_stem(op, wave))
    {
        let at = lines
            .iter()
            .position(|l| l.starts_with("variant "))
            .map_or(1, |n| n + 1);
        return Err(corrupt(
            at,
            format!(
                "the file records {op} in {wave}: name it {}.{EXTENSION}",
                recording_stem(op, wave)
            ),
        ));
    }
    Ok(Recording {
        path: path.to_path_buf(),
        op,
        wave,
        provenance,
        entries,
    })
}

/// Reads one recording file.
pub fn read(path: &Path) -> Result<Recording, RecordError> {
    let text = crate::input::read_text(path, crate::input::MAX_RECORDING_BYTES).map_err(|e| {
        RecordError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    parse(&text, path)
}

/// Every recording file under `root` (`<root>/<device dir>/<op>.txt`), sorted by path, each read
/// and checked: a directory that says `emulated-` must hold emu recordings, any other directory
/// only hip ones. Unreadable files are errors, never skipped.
pub fn load_dir(root: &Path) -> Vec<Result<Recording, RecordError>> {
    let mut paths = Vec::new();
    let Ok(dirs) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    for dir in dirs.flatten() {
        let dir = dir.path();
        if !dir.is_dir() {
            continue;
        }
        if let Ok(files) = std::fs::read_dir(&dir) {
            for f in files.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == EXTENSION) {
                    paths.push(p);
                }
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| read(&p).and_then(check_dir_provenance))
        .collect()
}

/// The model's snapshot corpus of `op` as (name, variant, case).
pub fn corpus(op: DsOp) -> Vec<(String, Variant, Case)> {
    snapshot::snapshot_corpus(op)
}

/// The file stem of the recording of `op` in waves of `wave`: the op's name, with `.wave64` for
/// wave64 (`ds_add_u32.wave64.txt` beside `ds_add_u32.txt`).
pub fn recording_stem(op: DsOp, wave: WaveSize) -> String {
    if wave.is_wave32() {
        op.name().to_string()
    } else {
        format!("{}.{wave}", op.name())
    }
}

/// Launches [`run_corpus`] makes for `op` (one per variant of its snapshot corpus).
pub fn corpus_launches(op: DsOp) -> usize {
    let mut variants: Vec<Variant> = corpus(op).into_iter().map(|(_, v, _)| v).collect();
    variants.sort_by_key(|v| (v.offset0, v.offset1, v.lds_size, format!("{:?}", v.mode)));
    variants.dedup();
    variants.len()
}

/// Runs `op`'s snapshot corpus as the device's target takes it ([`snapshot::snapshot_corpus_on`]:
/// even register tuples where the target needs them, and the AccVGPR twins where it has them) on
/// `device` (one code object per op, one launch per variant) and returns the entries with the
/// device's outcomes.
pub fn run_corpus(device: &mut dyn Device, op: DsOp, wave: WaveSize) -> Result<Vec<Entry>, String> {
    let corpus = snapshot::snapshot_corpus_on(device.info().target, op, wave);
    let mut by_variant: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut variants: Vec<Variant> = Vec::new();
    for (i, (_, v, _)) in corpus.iter().enumerate() {
        let k = match variants.iter().position(|x| x == v) {
            Some(k) => k,
            None => {
                variants.push(*v);
                variants.len() - 1
            }
        };
        by_variant.entry(k).or_default().push(i);
    }
    let kernels = variants
        .iter()
        .map(|v| generator::generate_for(device.info().target, v).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let module = device
        .load(&code_object::write(device.info().target, &kernels))
        .map_err(|e| e.to_string())?;
    let mut outcomes: Vec<Option<Outcome>> = vec![None; corpus.len()];
    for (k, idx) in by_variant {
        let cases: Vec<Case> = idx.iter().map(|&i| corpus[i].2.clone()).collect();
        let mut launch = abi::pack(&variants[k], &cases).map_err(|e| e.to_string())?;
        device
            .launch(module, &mut launch)
            .map_err(|e| e.to_string())?;
        let out = abi::unpack(&variants[k], &cases, &launch).map_err(|e| e.to_string())?;
        for (i, o) in idx.into_iter().zip(out) {
            outcomes[i] = Some(o);
        }
    }
    Ok(corpus
        .into_iter()
        .zip(outcomes)
        .map(|((name, variant, case), o)| Entry {
            name,
            variant,
            case,
            outcome: o.expect("every case launched"),
        })
        .collect())
}

/// Records `op` in waves of `wave` on `device` under `root/<dir_name>/<stem>.txt`
/// ([`recording_stem`]), atomically. Returns the path.
pub fn record_op(
    root: &Path,
    device: &mut dyn Device,
    op: DsOp,
    wave: WaveSize,
) -> Result<PathBuf, RecordError> {
    let info = device.info().clone();
    let dir = root.join(dir_name(&info));
    recordable(&info).map_err(|what| RecordError::Provenance {
        path: dir.clone(),
        what,
    })?;
    let path = dir.join(format!("{}.{EXTENSION}", recording_stem(op, wave)));
    let entries = run_corpus(device, op, wave).map_err(|message| RecordError::Io {
        path: path.clone(),
        message: format!("the device could not run the snapshot corpus: {message}"),
    })?;
    let modes: Vec<FpMode> = entries.iter().map(|e| e.variant.mode).collect();
    let text = render(op, &Provenance::of(&info, &modes, wave), &entries);
    write_atomic(&path, text.as_bytes()).map_err(|e| RecordError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(path)
}

/// The file beside a run's recordings (`<root>/<device dir>/run.json`) that says which run made
/// them, which ops it has recorded so far, and whether it completed: a run writes it after each
/// op's recording and once more at its end, so the recordings of an interrupted run say so.
pub const RUN_STATUS: &str = "run.json";

/// Writes (atomically) the [`RUN_STATUS`] file of the run `report` describes, on the device
/// `info`, under `root`. Returns its path.
pub fn write_run_status(
    root: &Path,
    info: &DeviceInfo,
    report: &crate::run::report::Report,
) -> Result<PathBuf, RecordError> {
    let path = root.join(dir_name(info)).join(RUN_STATUS);
    let status = RunStatus {
        format: 1,
        complete: report.complete,
        meta: report.meta.clone(),
        ops_recorded: report
            .ops
            .iter()
            .map(|o| match DsOp::from_name(&o.op) {
                Some(op) => recording_stem(op, o.wave),
                None => o.op.clone(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&status).expect("a run status serialises");
    text.push('\n');
    write_atomic(&path, text.as_bytes()).map_err(|e| RecordError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(path)
}

/// The contents of a [`RUN_STATUS`] file.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunStatus {
    /// Format version, 1.
    pub format: u32,
    /// False until the run that writes the recordings has finished every op.
    pub complete: bool,
    /// The run (seed, cases, shard, harness revision, device).
    pub meta: crate::run::report::RunMeta,
    /// The recordings made so far, by file stem (the op, `.wave64` for wave64:
    /// [`recording_stem`]), in the order they were recorded.
    pub ops_recorded: Vec<String>,
}

/// A run's recording: hands each completed op's recording and the run's status to `root`
/// (`--record DIR`), as a [`Sink`](crate::run::Sink) the run is given.
#[derive(Debug)]
pub struct Recorder {
    root: PathBuf,
}

impl Recorder {
    /// Records under `root` (the device's directory is made below it).
    pub fn new(root: PathBuf) -> Recorder {
        Recorder { root }
    }
}

impl crate::run::Sink for Recorder {
    fn op_done(
        &mut self,
        device: &mut dyn Device,
        op: DsOp,
        wave: WaveSize,
        report: &crate::run::report::Report,
    ) -> Result<Option<PathBuf>, String> {
        let path = record_op(&self.root, device, op, wave).map_err(|e| e.to_string())?;
        write_run_status(&self.root, device.info(), report).map_err(|e| e.to_string())?;
        Ok(Some(path))
    }

    fn run_done(
        &mut self,
        device: &dyn Device,
        report: &crate::run::report::Report,
    ) -> Result<(), String> {
        write_run_status(&self.root, device.info(), report)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// Records every op of `ops` on `device` under `root` (see [`record_op`]); returns the paths.
pub fn record_ops(
    root: &Path,
    device: &mut dyn Device,
    ops: &[DsOp],
) -> Result<Vec<PathBuf>, RecordError> {
    ops.iter()
        .map(|&op| record_op(root, device, op, WaveSize::Wave32))
        .collect()
}

/// Today's UTC date and time, `YYYY-MM-DDTHH:MM:SSZ`, from the system clock.
pub fn utc_date_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_date(secs)
}

/// `secs` after the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar; the
/// days-to-civil conversion of H. Hinnant's `chrono`-compatible date algorithms).
pub fn utc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_at_known_points() {
        assert_eq!(utc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_date(1_798_761_599), "2026-12-31T23:59:59Z");
    }
}
