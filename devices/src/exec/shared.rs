//! The buffer file (docs/device-protocol.md, "Buffer file"): with the binary framing, the harness
//! may offer a device a file that a launch's buffers travel through instead of the pipes. The
//! harness writes every input buffer into it before the launch, at offsets the launch names;
//! the device reads them there, writes its output buffers back at theirs, and answers with their
//! sizes only.
//!
//! The file is a memory file (memfd_create(2)) of a fixed size, sealed against shrinking
//! (`F_SEAL_SHRINK`, fcntl(2)), which the harness maps: no device can cut it short under the
//! mapping, so the harness's copies into and out of it never fault, and cost no system call. A
//! device reaches it through a link in a directory only this user may enter, made for the device
//! and removed with it (the link names the harness's own descriptor under /proc). A device on
//! another machine finds no such directory and declines; what a device does to the link changes
//! nothing the harness reads.

use crate::{DeviceError, Launch};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

/// Bytes of one slot of the file: a launch in flight's buffers start at its slot's offset (the
/// file is sparse: a slot costs what its launch writes). `serve-device` takes at most 256 MiB of
/// buffers from the file per launch.
pub const SLOT_BYTES: u64 = 1 << 30;

/// Where slot 0 starts: the file's first page holds its token ([`BufferFile::token`]).
pub const SLOTS_AT: u64 = 4096;

/// The file's size: the token's page and a slot per launch in flight (sparse: only what the
/// launches write takes memory).
const FILE_BYTES: u64 = SLOTS_AT + super::flight::MAX_IN_FLIGHT as u64 * SLOT_BYTES;

/// Bytes of the token that starts the file.
pub const TOKEN_BYTES: usize = 16;

/// The buffer file of one exec device (for all its sessions), the link to it and the directory
/// the link is in.
#[derive(Debug)]
pub(super) struct BufferFile {
    dir: PathBuf,
    path: PathBuf,
    /// The memory file, held open: the link names this descriptor.
    _file: File,
    /// The whole file, mapped shared ([`FILE_BYTES`]).
    map: *mut u8,
    /// Random bytes written at the start of the file: a device proves it opened this file by
    /// finding them there.
    token: [u8; TOKEN_BYTES],
    /// Its slot in [`super::reap`]'s registry (removed if a signal ends the harness).
    reaped: Option<usize>,
}

// SAFETY: the mapping is owned by the value (unmapped on drop) and used through `&self` only for
// copies into and out of ranges the caller gives; the device on the other side writes it too,
// which makes its bytes untrusted, not the memory unsound (a shared mapping of a file that
// cannot shrink).
unsafe impl Send for BufferFile {}

impl BufferFile {
    /// A new memory file, sealed against shrinking and mapped, and the link to it in a new
    /// private directory: under /dev/shm when there is one, else the system's temporary
    /// directory.
    pub fn create() -> std::io::Result<BufferFile> {
        let file = sealed_memory_file()?;
        // SAFETY: maps the whole file, shared, readable and writable; checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                FILE_BYTES as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let target = PathBuf::from(format!(
            "/proc/{}/fd/{}",
            std::process::id(),
            file.as_raw_fd()
        ));
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let linked = private_link(&base, &target).or_else(|e| {
            // A /dev/shm this user cannot write: the temporary directory instead.
            if base != std::env::temp_dir() {
                private_link(&std::env::temp_dir(), &target)
            } else {
                Err(e)
            }
        });
        let (dir, path) = match linked {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: unmaps what was mapped above.
                unsafe { libc::munmap(map, FILE_BYTES as usize) };
                return Err(e);
            }
        };
        let reaped = super::reap::register_file(&path, &dir);
        let made = BufferFile {
            dir,
            path,
            _file: file,
            map: map.cast(),
            token: random_token(),
            reaped,
        };
        made.copy_in(&made.token, 0);
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
        if total > SLOT_BYTES || slot >= super::flight::MAX_IN_FLIGHT {
            return Ok(None);
        }
        let mut at = SLOTS_AT + slot as u64 * SLOT_BYTES;
        let mut offsets = Vec::with_capacity(launch.buffers.len());
        for (b, &fill) in launch.buffers.iter().zip(fills) {
            if !fill {
                self.copy_in(&b.bytes, at);
            }
            offsets.push(at);
            at += b.bytes.len() as u64;
        }
        Ok(Some(offsets))
    }

    /// Reads output buffer `i` of `launch` back from `at`, where the device wrote it (an offset
    /// of this file's: [`Self::put`]'s).
    pub fn take(&self, launch: &mut Launch, i: usize, at: u64) -> Result<(), DeviceError> {
        let b = &mut launch.buffers[i];
        let n = b.bytes.len() as u64;
        if at.checked_add(n).is_none_or(|end| end > FILE_BYTES) {
            return Err(DeviceError::Protocol(format!(
                "output buffer {i} (`{}`, {n} bytes) at {at} lies outside the buffer file",
                b.name
            )));
        }
        // SAFETY: `at..at + n` lies within the mapping (checked above), which no one can shrink.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.map.add(at as usize),
                b.bytes.as_mut_ptr(),
                n as usize,
            )
        };
        Ok(())
    }

    /// Copies `bytes` into the file at `at` (within it: the callers' offsets are [`Self::put`]'s).
    fn copy_in(&self, bytes: &[u8], at: u64) {
        assert!(
            at + bytes.len() as u64 <= FILE_BYTES,
            "within the buffer file"
        );
        // SAFETY: the range lies within the mapping (asserted), which no one can shrink.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.map.add(at as usize), bytes.len())
        };
    }
}

impl Drop for BufferFile {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping this value made; nothing refers to it past here.
        unsafe { libc::munmap(self.map.cast(), FILE_BYTES as usize) };
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_dir(&self.dir);
        super::reap::unregister_file(self.reaped);
    }
}

/// A memory file of [`FILE_BYTES`], readable and writable by this user only, that cannot be
/// shrunk (nor its seals changed).
fn sealed_memory_file() -> std::io::Result<File> {
    let name = c"ds-harness buffers";
    // SAFETY: memfd_create(2) with a NUL-terminated name; the descriptor is owned below.
    let fd =
        unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new descriptor that nothing else owns.
    let file = unsafe { File::from_raw_fd(fd) };
    file.set_len(FILE_BYTES)?;
    // SAFETY: fchmod(2) and fcntl(2) on a descriptor this function owns.
    let sealed = unsafe {
        libc::fchmod(fd, 0o600) == 0
            && libc::fcntl(
                fd,
                libc::F_ADD_SEALS,
                libc::F_SEAL_SHRINK | libc::F_SEAL_SEAL,
            ) == 0
    };
    if !sealed {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
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
/// took), with a link in it to `target` (the memory file's descriptor).
fn private_link(
    base: &std::path::Path,
    target: &std::path::Path,
) -> std::io::Result<(PathBuf, PathBuf)> {
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
                return match std::os::unix::fs::symlink(target, &path) {
                    Ok(()) => Ok((dir, path)),
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

/// The buffer file as a served device holds it ([`super::serve`]): mapped when it is sealed
/// against shrinking (the harness's is), so no one can cut it short under the mapping; otherwise
/// read and written with pread/pwrite (another harness's plain file, say).
#[derive(Debug)]
pub(super) struct Opened {
    file: File,
    /// The mapping and its length (the file's when it was opened; it can only grow).
    map: Option<(*mut u8, usize)>,
}

impl Opened {
    /// The file at `path`, when it opens for reading and writing and starts with `token` (hex):
    /// the file the harness made, not one of the same name on another machine.
    pub fn open(path: &str, token: &str) -> Option<Opened> {
        use std::os::unix::fs::FileExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .ok()?;
        let mut start = vec![0u8; token.len() / 2];
        file.read_exact_at(&mut start, 0).ok()?;
        (!start.is_empty() && hex(&start) == token).then_some(())?;
        // SAFETY: fcntl(2) F_GET_SEALS on a descriptor this function owns.
        let seals = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GET_SEALS) };
        let len = file.metadata().ok()?.len() as usize;
        let map = (seals >= 0 && seals & libc::F_SEAL_SHRINK != 0 && len > 0)
            .then(|| {
                // SAFETY: maps the file's current length, shared; it cannot shrink (sealed).
                let m = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED,
                        file.as_raw_fd(),
                        0,
                    )
                };
                (m != libc::MAP_FAILED).then_some((m.cast::<u8>(), len))
            })
            .flatten();
        Some(Opened { file, map })
    }

    /// The mapped range `at..at + len`, when the mapping holds it.
    fn mapped(&self, at: u64, len: usize) -> Option<*mut u8> {
        let (m, n) = self.map?;
        let end = at.checked_add(len as u64)?;
        // SAFETY (of the caller's use): the range lies within the mapping.
        (end <= n as u64).then(|| unsafe { m.add(at as usize) })
    }

    /// `len` bytes at `at`.
    pub fn read(&self, at: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0u8; len];
        match self.mapped(at, len) {
            // SAFETY: the range lies within the mapping, which no one can shrink.
            Some(p) => unsafe { std::ptr::copy_nonoverlapping(p, bytes.as_mut_ptr(), len) },
            None => self.file.read_exact_at(&mut bytes, at)?,
        }
        Ok(bytes)
    }

    /// Writes `bytes` at `at`.
    pub fn write(&self, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        match self.mapped(at, bytes.len()) {
            // SAFETY: the range lies within the mapping, which no one can shrink.
            Some(p) => unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) },
            None => self.file.write_all_at(bytes, at)?,
        }
        Ok(())
    }

    /// Whether the file is mapped (sealed against shrinking).
    #[cfg(test)]
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        if let Some((m, n)) = self.map {
            // SAFETY: unmaps the mapping this value made; nothing refers to it past here.
            unsafe { libc::munmap(m.cast(), n) };
        }
    }
}
