//! The buffer file (docs/device-protocol.md, "Buffer file"): with the binary framing, the harness
//! may offer a device a file that a launch's buffers travel through instead of the pipes. The
//! harness writes every input buffer into it before the launch, at offsets the launch names;
//! the device reads them there, writes its output buffers back at theirs, and answers with their
//! sizes only. Both sides read and write with `pread`/`pwrite` (no mapping), so a device that
//! truncates the file gives the harness a short read, never a fault.
//!
//! The file lives in a directory only this user may enter, made for the device and removed with
//! it; the harness keeps its own handle open, so what the device does to the path changes
//! nothing the harness reads. A device on another machine cannot open the path and declines.

use super::text;
use crate::{DeviceError, Launch};
use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::PathBuf;

/// Bytes of one slot of the file: a launch in flight's buffers start at its slot's offset (the
/// file is sparse: a slot costs what its launch writes). `serve-device` takes at most 256 MiB of
/// buffers from the file per launch.
pub const SLOT_BYTES: u64 = 1 << 30;

/// Where slot 0 starts: the file's first page holds its token ([`BufferFile::token`]).
pub const SLOTS_AT: u64 = 4096;

/// Bytes of the token that starts the file.
pub const TOKEN_BYTES: usize = 16;

/// The buffer file of one exec device (for all its sessions), and the directory it is in.
#[derive(Debug)]
pub(super) struct BufferFile {
    dir: PathBuf,
    path: PathBuf,
    file: File,
    /// Random bytes written at the start of the file: a device proves it opened this file by
    /// finding them there.
    token: [u8; TOKEN_BYTES],
    /// Its slot in [`super::reap`]'s registry (removed if a signal ends the harness).
    reaped: Option<usize>,
}

impl BufferFile {
    /// A new, empty file in a new private directory: under /dev/shm (memory) when there is one,
    /// else the system's temporary directory.
    pub fn create() -> std::io::Result<BufferFile> {
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let (dir, path, file) = private_file(&base).or_else(|e| {
            // A /dev/shm this user cannot write: the temporary directory instead.
            if base != std::env::temp_dir() {
                private_file(&std::env::temp_dir())
            } else {
                Err(e)
            }
        })?;
        let reaped = super::reap::register_file(&path, &dir);
        let made = BufferFile {
            dir,
            path,
            file,
            token: random_token(),
            reaped,
        };
        made.file.write_all_at(&made.token, 0)?;
        Ok(made)
    }

    /// The file's token, as hex (the hello's `buffer_token`).
    pub fn token(&self) -> String {
        hex(&self.token)
    }

    /// The file's path, as the hello offers it.
    pub fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Writes the contents of `launch`'s buffers that go through the file (all but outputs that
    /// go as a `fill`: `fills[i]`), one after the other from the start of slot `slot` (one per
    /// launch in flight); returns each buffer's offset. `None` for a launch larger than a slot
    /// (its buffers go in the frame).
    pub fn put(
        &self,
        launch: &Launch,
        fills: &[bool],
        slot: usize,
    ) -> Result<Option<Vec<u64>>, DeviceError> {
        let total: u64 = launch.buffers.iter().map(|b| b.bytes.len() as u64).sum();
        if total > SLOT_BYTES {
            return Ok(None);
        }
        let mut at = SLOTS_AT + slot as u64 * SLOT_BYTES;
        let mut offsets = Vec::with_capacity(launch.buffers.len());
        for (b, &fill) in launch.buffers.iter().zip(fills) {
            if !fill {
                self.file.write_all_at(&b.bytes, at).map_err(|e| {
                    DeviceError::Launch(format!(
                        "cannot write buffer `{}` ({} bytes) to the device's buffer file {}: {e}",
                        b.name,
                        b.bytes.len(),
                        self.path.display()
                    ))
                })?;
            }
            offsets.push(at);
            at += b.bytes.len() as u64;
        }
        Ok(Some(offsets))
    }

    /// Reads output buffer `i` of `launch` back from `at`, where the device wrote it.
    pub fn take(&self, launch: &mut Launch, i: usize, at: u64) -> Result<(), DeviceError> {
        let b = &mut launch.buffers[i];
        self.file.read_exact_at(&mut b.bytes, at).map_err(|e| {
            DeviceError::Protocol(format!(
                "the device answered that output buffer {i} (`{}`, {} bytes) is in the buffer \
                 file at {at}, and it cannot be read there ({}): did the device truncate the file?",
                b.name,
                b.bytes.len(),
                text::bounded(&e.to_string(), text::MAX_MESSAGE_CHARS)
            ))
        })
    }
}

impl Drop for BufferFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_dir(&self.dir);
        super::reap::unregister_file(self.reaped);
    }
}

/// Bytes no other file starts with by chance: the kernel's random bytes (getrandom(2)), or when
/// it has none to give, the time, the process and a counter mixed.
fn random_token() -> [u8; TOKEN_BYTES] {
    let mut t = [0u8; TOKEN_BYTES];
    // SAFETY: getrandom writes at most `t.len()` bytes into `t`.
    let n = unsafe { libc::getrandom(t.as_mut_ptr().cast(), t.len(), 0) };
    if n != t.len() as isize {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mix = nanos ^ (u128::from(std::process::id()) << 64) ^ (&t as *const _ as u128);
        t = mix.to_le_bytes();
    }
    t
}

/// `bytes` as lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new directory under `base` that only this user may enter (mode 0700, a name no one else
/// took), with an empty file in it (mode 0600).
fn private_file(base: &std::path::Path) -> std::io::Result<(PathBuf, PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!("ds-harness-{}-{n}-{nanos:08x}", std::process::id()));
        // `create` fails when the name exists: nobody else's directory is ever used.
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                let path = dir.join("buffers");
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path);
                return match file {
                    Ok(f) => Ok((dir, path, f)),
                    Err(e) => {
                        let _ = std::fs::remove_dir(&dir);
                        Err(e)
                    }
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free directory name")))
}
