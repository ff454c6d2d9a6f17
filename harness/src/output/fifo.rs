//! FIFOs as outputs, bounded: opening a FIFO for writing waits until something reads it, and
//! writing waits while its reader does not read, so neither is left to block (POSIX `open(2)`,
//! "O_NONBLOCK ... an open() for writing-only shall return an error if no process currently has
//! the file open for reading" (ENXIO); `poll(2)` POLLOUT).
//!
//! When an output is checked ([`hold`]), the FIFO is opened without blocking: with no reader that
//! is refused before any work ("nobody is reading ..."); with one, the write end is kept open
//! until the output is written ([`write`]), so a reader such as `cat FIFO` does not see the end of
//! its input before the content comes. Writing gives up when the reader takes nothing for
//! [`STALL`].

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a write may wait for the reader to take anything before it fails.
pub const STALL: Duration = Duration::from_secs(60);

/// How long [`write`] waits for a reader to appear when none was held since the check.
pub const OPEN_WAIT: Duration = Duration::from_secs(10);

/// The write ends opened by [`hold`], by canonical path, until [`write`] takes them.
static HELD: Mutex<Option<HashMap<PathBuf, File>>> = Mutex::new(None);

fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Opens the write end of the FIFO `path` without blocking; `Ok(None)` when nobody reads it.
fn open_now(path: &Path) -> io::Result<Option<File>> {
    match OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Checks that something reads the FIFO `path` and keeps its write end open for [`write`].
/// The error says that nobody reads it and what to do.
pub fn hold(path: &Path) -> Result<(), String> {
    match open_now(path) {
        Ok(Some(f)) => {
            let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
            held.get_or_insert_with(HashMap::new).insert(key(path), f);
            Ok(())
        }
        Ok(None) => Err(
            "it is a FIFO nobody is reading, so the run would wait forever to \
             write it: start its reader first (e.g. `cat FIFO > results &`), or name a regular \
             file"
                .into(),
        ),
        Err(e) => Err(format!(
            "it is a FIFO that cannot be opened for writing: {e}"
        )),
    }
}

/// Writes `bytes` to the FIFO `path` (through the write end [`hold`] kept, else one opened
/// within [`OPEN_WAIT`]) and closes it, so its reader sees the end; fails when nobody reads it
/// or the reader takes nothing for [`STALL`].
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let held = HELD
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_mut()
        .and_then(|h| h.remove(&key(path)));
    let mut f = match held {
        Some(f) => f,
        None => open_within(path, OPEN_WAIT)?,
    };
    let mut rest = bytes;
    let mut last = Instant::now();
    while !rest.is_empty() {
        match f.write(rest) {
            Ok(n) => {
                rest = &rest[n..];
                last = Instant::now();
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let left = STALL.saturating_sub(last.elapsed());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "the reader of the FIFO took nothing for {} s ({} of {} bytes \
                             written): is it still reading?",
                            STALL.as_secs(),
                            bytes.len() - rest.len(),
                            bytes.len()
                        ),
                    ));
                }
                wait_writable(&f, left);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    f.flush()
}

/// Opens the FIFO's write end, waiting at most `limit` for a reader.
fn open_within(path: &Path, limit: Duration) -> io::Result<File> {
    let start = Instant::now();
    loop {
        if let Some(f) = open_now(path)? {
            return Ok(f);
        }
        if start.elapsed() >= limit {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "nobody is reading the FIFO (waited {} s): start its reader, or name a \
                     regular file",
                    limit.as_secs()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until `f` can take more bytes, at most `limit`.
fn wait_writable(f: &File, limit: Duration) {
    let mut fds = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    let ms = limit.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: `fds` is one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut fds, 1, ms) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(name: &str) -> PathBuf {
        let p = ds_test_support::temp_dir(&format!("fifo-{name}")).join("fifo");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        p
    }

    #[test]
    fn a_fifo_nobody_reads_is_refused_at_once() {
        let p = fifo("unread");
        let start = Instant::now();
        let e = hold(&p).unwrap_err();
        assert!(e.contains("nobody is reading"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(2));
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn a_held_fifo_keeps_its_reader_until_the_content_comes() {
        let p = fifo("read");
        let reader = {
            let p = p.clone();
            std::thread::spawn(move || std::fs::read(&p).unwrap())
        };
        // The reader opens the FIFO; hold it (retrying until the reader is there).
        let start = Instant::now();
        while hold(&p).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the reader opens"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(100));
        let big = vec![7u8; 1 << 20];
        write(&p, &big).unwrap();
        assert_eq!(reader.join().unwrap(), big);
        std::fs::remove_file(&p).unwrap();
    }
}
