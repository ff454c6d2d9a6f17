//! Output paths, checked before any work starts and written without harming what a path points
//! at.
//!
//! An [`OutputPath`] is a file the user named (`--json`, `--junit`, `--markdown`, `kernel --out`);
//! an [`OutputDir`] a directory (`run --out`, `--record`). Checking one ([`OutputPath::check`],
//! [`OutputDir::check`]) decides how it will be written and proves it can be, before the first op
//! runs, so a bad path costs nothing (exit 2, naming the path and the reason):
//!
//! | the path is                          | it is written                                        |
//! |--------------------------------------|------------------------------------------------------|
//! | `-` (where a command allows it)      | to stdout                                            |
//! | an existing regular file             | atomically: a temporary file beside it, renamed over it (its permissions kept) |
//! | a symlink (to a regular file or to nothing yet) | the link is followed and its target replaced atomically; the link stays a link |
//! | an existing non-regular file (a device such as `/dev/null`, a FIFO, `/dev/stdout`) | written through (opened and written), never replaced; a FIFO nobody reads is refused, and a write its reader does not take is bounded ([`fifo`]) |
//! | missing, in an existing writable directory | created atomically                               |
//! | missing, in a missing directory      | refused: create the directory first                  |
//!
//! Two outputs naming one file are refused ([`check_distinct`]). An output written through (a
//! device, a pipe, stdout) is written once, when its content is final
//! ([`OutputPath::rewrites_in_place`] is false), since a stream cannot be rewritten.

pub mod escape;
pub mod fifo;
mod stdout;
pub use stdout::Out;

use std::fmt;
use std::fs::{self, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// How a checked output is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// `-`: the process's stdout.
    Stdout,
    /// An existing non-regular file (device, FIFO, terminal, pipe): opened and written, never
    /// replaced.
    WriteThrough,
    /// A regular file (existing or not), replaced atomically at `target` (the path itself, or
    /// where its symlinks lead).
    Atomic {
        /// The file that is replaced: the given path with every symlink followed.
        target: PathBuf,
    },
}

/// A file output, checked: how it is written and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputPath {
    given: PathBuf,
    kind: OutputKind,
    /// (device, inode) of the file it names, when that file exists; else the canonical path it
    /// will have. Used to find two outputs naming one file.
    identity: Identity,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

/// Why an output path cannot be used. Its message names the path, the reason and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputError {
    /// The flag or role of the output (e.g. `--json`).
    pub what: String,
    /// The path as the user gave it.
    pub path: PathBuf,
    /// Why, and what to do.
    pub reason: String,
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.what, self.path.display(), self.reason)
    }
}

impl std::error::Error for OutputError {}

/// Whether `-` may name stdout for this output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    /// `-` is stdout.
    Stdout,
    /// `-` is refused with the given reason (e.g. stdout already carries the command's text).
    Refused(&'static str),
}

impl OutputPath {
    /// Checks `given` (the value of flag `what`) before any work: decides how it is written and
    /// proves it can be (the directory exists and is writable, a file it replaces is writable, a
    /// file it writes through is writable). Creates nothing that outlives the check.
    pub fn check(what: &str, given: &Path, dash: Dash) -> Result<OutputPath, OutputError> {
        let err = |reason: String| OutputError {
            what: what.to_string(),
            path: given.to_path_buf(),
            reason,
        };
        if given.as_os_str() == "-" {
            return match dash {
                Dash::Stdout => Ok(OutputPath {
                    given: given.to_path_buf(),
                    kind: OutputKind::Stdout,
                    identity: stdout_identity(),
                }),
                Dash::Refused(why) => Err(err(format!("`-` (stdout) is not accepted here: {why}"))),
            };
        }
        if given.as_os_str().is_empty() {
            return Err(err("an empty path; name a file".into()));
        }
        // `/dev/stdout`, `/proc/self/fd/1`, or the file stdout is redirected to: stdout itself,
        // never replaced (`run --json /dev/stdout > file` must not swap `file` for a new one).
        if names_stdout(given) {
            return match dash {
                Dash::Stdout => Ok(OutputPath {
                    given: given.to_path_buf(),
                    kind: OutputKind::Stdout,
                    identity: stdout_identity(),
                }),
                Dash::Refused(why) => Err(err(format!(
                    "it is this command's stdout, which is not accepted here: {why}"
                ))),
            };
        }
        let target = resolve_links(given).map_err(err)?;
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => Err(err(format!(
                "{} is a directory; name a file inside it",
                describe(given, &target)
            ))),
            Ok(meta) if meta.file_type().is_file() => {
                writable(&target).map_err(|e| {
                    err(format!(
                        "{} cannot be replaced: {e}; make it writable or choose another path",
                        describe(given, &target)
                    ))
                })?;
                probe_dir(&target).map_err(err)?;
                Ok(OutputPath {
                    given: given.to_path_buf(),
                    kind: OutputKind::Atomic { target },
                    identity: inode(&meta),
                })
            }
            Ok(meta) => {
                // A device, FIFO, socket or terminal: written through. Opening a FIFO for writing
                // would wait for a reader, so writability is asked of the permission bits, and a
                // FIFO's reader is found (and its write end kept) without waiting.
                writable(&target).map_err(|e| {
                    err(format!(
                        "{} ({}) cannot be written: {e}",
                        describe(given, &target),
                        file_type_name(&meta)
                    ))
                })?;
                if meta.file_type().is_fifo() {
                    fifo::hold(&target).map_err(err)?;
                }
                Ok(OutputPath {
                    given: given.to_path_buf(),
                    kind: OutputKind::WriteThrough,
                    identity: inode(&meta),
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                probe_dir(&target).map_err(err)?;
                let identity = Identity::Path(canonical_missing(&target));
                Ok(OutputPath {
                    given: given.to_path_buf(),
                    kind: OutputKind::Atomic { target },
                    identity,
                })
            }
            Err(e) => Err(err(format!("cannot inspect it: {e}"))),
        }
    }

    /// The path as the user gave it.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// How it is written.
    pub fn kind(&self) -> &OutputKind {
        &self.kind
    }

    /// Whether the output can be rewritten with newer content (a regular file, replaced
    /// atomically each time); a stream (stdout, a device, a FIFO) is written once, when final.
    pub fn rewrites_in_place(&self) -> bool {
        matches!(self.kind, OutputKind::Atomic { .. })
    }

    /// Writes `bytes` as the whole content of the output, by its kind.
    pub fn write(&self, bytes: &[u8]) -> io::Result<()> {
        match &self.kind {
            OutputKind::Stdout => {
                // A reader that went away (`| head -c 4`) ends the output quietly, as for every
                // command's stdout ([`Out`]).
                let mut out = Out::new(io::stdout().lock());
                out.write_all(bytes)?;
                out.flush()
            }
            OutputKind::WriteThrough if is_fifo(&self.given) => fifo::write(&self.given, bytes),
            OutputKind::WriteThrough => {
                let mut f = OpenOptions::new().write(true).open(&self.given)?;
                f.write_all(bytes)?;
                f.flush()
            }
            OutputKind::Atomic { target } => replace_atomically(target, bytes),
        }
    }

    /// Writes `bytes` when this output can be rewritten later (see [`Self::rewrites_in_place`]),
    /// else does nothing: for reports rewritten after every op, whose streams get only the final
    /// content.
    pub fn write_progress(&self, bytes: &[u8]) -> io::Result<()> {
        if self.rewrites_in_place() {
            self.write(bytes)
        } else {
            Ok(())
        }
    }
}

/// A directory output (`--out`, `--record`), checked: it exists and is a writable directory, or
/// it does not exist yet and its parent is one (it is created, with the subdirectories the
/// harness writes inside it, when first written; its parent is never created).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputDir {
    given: PathBuf,
}

impl OutputDir {
    /// Checks `given` (the value of flag `what`).
    pub fn check(what: &str, given: &Path) -> Result<OutputDir, OutputError> {
        let err = |reason: String| OutputError {
            what: what.to_string(),
            path: given.to_path_buf(),
            reason,
        };
        if given.as_os_str().is_empty() || given.as_os_str() == "-" {
            return Err(err("name a directory".into()));
        }
        match fs::metadata(given) {
            Ok(meta) if meta.is_dir() => {
                probe_in(given).map_err(|e| {
                    err(format!(
                        "the directory is not writable: {e}; choose another directory"
                    ))
                })?;
            }
            Ok(meta) => {
                return Err(err(format!(
                    "exists and is not a directory (a {}); name a directory",
                    file_type_name(&meta)
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let parent = parent_of(given);
                match fs::metadata(&parent) {
                    Ok(m) if m.is_dir() => probe_in(&parent).map_err(|e| {
                        err(format!(
                            "cannot be created: its parent {} is not writable: {e}",
                            parent.display()
                        ))
                    })?,
                    _ => {
                        return Err(err(format!(
                            "its parent directory {} does not exist; create it first \
                             (mkdir -p {})",
                            parent.display(),
                            parent.display()
                        )))
                    }
                }
            }
            Err(e) => return Err(err(format!("cannot inspect it: {e}"))),
        }
        Ok(OutputDir {
            given: given.to_path_buf(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.given
    }
}

/// Refuses outputs that would overwrite what the command reads: an output file that is one of
/// the input `files`, or lies inside one of the input or recording `dirs` (each a (flag, path)
/// pair). Checked before any work.
pub fn check_not_inputs(
    outputs: &[(&str, &OutputPath)],
    files: &[(&str, &Path)],
    dirs: &[(&str, &Path)],
) -> Result<(), OutputError> {
    for (flag, out) in outputs {
        if out.kind == OutputKind::Stdout {
            continue;
        }
        let refuse = |reason: String| OutputError {
            what: flag.to_string(),
            path: out.given.clone(),
            reason,
        };
        for (what, f) in files {
            if fs::metadata(f).is_ok_and(|m| inode(&m) == out.identity) {
                return Err(refuse(format!(
                    "is the input {what} {}: an output never overwrites an input; name another \
                     file",
                    f.display()
                )));
            }
        }
        let at = canonical_any(&out.given);
        for (what, d) in dirs {
            if at.starts_with(canonical_any(d)) {
                return Err(refuse(format!(
                    "lies inside {what} {}, which this command reads or writes as a directory of \
                     its own; name a file outside it",
                    d.display()
                )));
            }
        }
    }
    Ok(())
}

/// Refuses an output directory (`flag`, `dir`) that is, lies inside or holds one of `dirs`
/// (inputs, or another output directory).
pub fn check_dir_apart(flag: &str, dir: &Path, dirs: &[(&str, &Path)]) -> Result<(), OutputError> {
    let at = canonical_any(dir);
    for (what, d) in dirs {
        let other = canonical_any(d);
        if at.starts_with(&other) || other.starts_with(&at) {
            return Err(OutputError {
                what: flag.to_string(),
                path: dir.to_path_buf(),
                reason: format!(
                    "overlaps {what} {} (one is the other or inside it): the command would write \
                     over what it reads; name a directory apart from it",
                    d.display()
                ),
            });
        }
    }
    Ok(())
}

/// `path` made absolute with every symlink followed, also when its last parts do not exist yet
/// (they are appended to the canonical form of the longest existing ancestor).
fn canonical_any(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut rest = Vec::new();
    let mut p = abs.as_path();
    loop {
        if let Ok(c) = fs::canonicalize(p) {
            return rest.iter().rev().fold(c, |acc, part| acc.join(part));
        }
        match (p.parent(), p.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                p = parent;
            }
            _ => return abs,
        }
    }
}

/// Whether `path` names the regular file this process's stdout is redirected to (as
/// `/dev/stdout`, `/proc/self/fd/1` or by its own name): replacing it would cut the redirection
/// off. (A device or pipe behind stdout is written through like any other.)
fn names_stdout(path: &Path) -> bool {
    match (fs::metadata(path), fs::metadata("/proc/self/fd/1")) {
        (Ok(a), Ok(b)) => b.file_type().is_file() && inode(&a) == inode(&b),
        _ => false,
    }
}

/// Refuses two outputs naming one file: `outputs` are (flag, checked path) pairs.
pub fn check_distinct(outputs: &[(&str, &OutputPath)]) -> Result<(), OutputError> {
    for (i, (a, pa)) in outputs.iter().enumerate() {
        for (b, pb) in &outputs[..i] {
            if pa.identity == pb.identity {
                return Err(OutputError {
                    what: a.to_string(),
                    path: pa.given.clone(),
                    reason: format!(
                        "names the same file as {b} {}; give each output its own file",
                        pb.given.display()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Writes `bytes` as the whole content of the file output `path` (checked earlier with
/// [`OutputPath::check`]), by what the path is now: `-` to stdout, a non-regular file written
/// through, a regular or missing file (symlinks followed) replaced atomically. Never creates a
/// directory.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    classify(path)?.write(bytes)
}

/// Like [`write_file`] for content that is rewritten as it grows (reports after every op): a
/// stream (stdout, a device, a FIFO) is skipped, since it gets the final content once.
pub fn write_file_progress(path: &Path, bytes: &[u8]) -> io::Result<()> {
    classify(path)?.write_progress(bytes)
}

/// [`OutputPath::check`] without the probes: how `path` is written now.
fn classify(path: &Path) -> io::Result<OutputPath> {
    let kind = if path.as_os_str() == "-" {
        OutputKind::Stdout
    } else {
        let target = resolve_links(path).map_err(io::Error::other)?;
        match fs::metadata(&target) {
            Ok(m) if !m.file_type().is_file() && !m.is_dir() => OutputKind::WriteThrough,
            _ => OutputKind::Atomic { target },
        }
    };
    Ok(OutputPath {
        given: path.to_path_buf(),
        kind,
        identity: Identity::Path(path.to_path_buf()),
    })
}

/// Replaces the regular file `target` (or creates it) through a temporary file in the same
/// directory and a rename, so a reader (or an interrupted run) never sees a half-written file.
/// An existing file's permissions are kept. The directory must exist.
pub fn replace_atomically(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(target);
    let name = target
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.{}.tmp", unique()));
    let result = (|| {
        fs::write(&tmp, bytes)?;
        if let Ok(old) = fs::metadata(target) {
            fs::set_permissions(&tmp, fs::Permissions::from_mode(old.mode() & 0o7777))?;
        }
        fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Follows `path`'s symlinks (also dangling ones) to the file they finally name, without
/// requiring it to exist. Stops at a non-symlink or a path that does not exist.
fn resolve_links(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|e| format!("cannot read the link: {e}"))?;
                let next = if to.is_absolute() {
                    to
                } else {
                    parent_of(&p).join(to)
                };
                // A link that resolves while its target names no file is one of /proc's magic
                // links (/dev/stdout -> /proc/self/fd/1 -> pipe:[123]): opened through the link.
                if fs::metadata(&p).is_ok() && fs::symlink_metadata(&next).is_err() {
                    return Ok(p);
                }
                p = next;
            }
            _ => return Ok(p),
        }
    }
    Err("too many levels of symbolic links".into())
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Proves a file can be created beside `target`: its directory exists, is a directory, and
/// takes a new file (created and removed at once).
fn probe_dir(target: &Path) -> Result<(), String> {
    let dir = parent_of(target);
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => probe_in(&dir).map_err(|e| {
            format!(
                "its directory {} is not writable: {e}; choose another path",
                dir.display()
            )
        }),
        Ok(_) => Err(format!("{} is not a directory", dir.display())),
        Err(_) => Err(format!(
            "its directory {} does not exist; create it first (mkdir -p {})",
            dir.display(),
            dir.display()
        )),
    }
}

/// A name part no other call of this process or any other live process uses: the process id
/// and a per-process counter (two threads probing or writing in one directory at once must not
/// meet on one file: `create_new` would fail, or one would remove the other's file).
fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Creates and removes a probe file in `dir`.
fn probe_in(dir: &Path) -> io::Result<()> {
    let probe = dir.join(format!(".ds-harness-probe.{}", unique()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    fs::remove_file(&probe)
}

/// Whether the current user may write the existing file `path` (permission bits as the kernel
/// judges them, without opening it: opening a FIFO would wait for a reader).
fn writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
    // SAFETY: `c` is a valid NUL-terminated string; access(2) only reads it.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn is_fifo(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

fn inode(meta: &Metadata) -> Identity {
    Identity::Inode(meta.dev(), meta.ino())
}

/// What `-` names: the file behind fd 1, when it can be asked.
fn stdout_identity() -> Identity {
    match fs::metadata("/proc/self/fd/1") {
        Ok(m) => inode(&m),
        Err(_) => Identity::Path(PathBuf::from("-")),
    }
}

/// The absolute, link-free path a missing file will have (its directory exists).
fn canonical_missing(target: &Path) -> PathBuf {
    let dir = fs::canonicalize(parent_of(target)).unwrap_or_else(|_| parent_of(target));
    match target.components().next_back() {
        Some(Component::Normal(name)) => dir.join(name),
        _ => dir,
    }
}

fn describe(given: &Path, target: &Path) -> String {
    if given == target {
        "it".to_string()
    } else {
        format!("its link target {}", target.display())
    }
}

fn file_type_name(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "regular file"
    } else if t.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests;
