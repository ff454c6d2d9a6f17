//! One running device process and its three pipes, each bounded in time and memory
//! (docs/device-protocol.md, "What the harness does when a device misbehaves"):
//!
//! - **stdin** is written by a thread of its own, so a device that stops reading blocks that
//!   thread, never the caller: the caller's deadline still fires, and killing the process group
//!   ends the write (EPIPE).
//! - **stdout** is read line by line into at most [`Child::set_line_limit`] bytes: a longer line
//!   is reported as too long (its first bytes quoted) and the rest of it skipped unread into
//!   memory; at most [`QUEUED_LINES`] lines wait to be taken.
//! - **stderr** is read as bytes, shown lossily and printably, each line cut to
//!   [`STDERR_LINE_BYTES`], the last [`STDERR_LINES_KEPT`] lines kept.
//!
//! The child runs as `sh -c COMMAND` leading its own process group, registered with [`reap`] so
//! that a signal to the harness ends it too.

use super::frame::{self, Frame, Framing};
use super::reap;
use super::text;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Lines of stdout read ahead of the caller at most (a device flooding its stdout waits).
pub const QUEUED_LINES: usize = 2;
/// Bytes kept of one stderr line (the rest is cut, and counted).
pub const STDERR_LINE_BYTES: usize = 1000;
/// Lines of stderr kept (all children of one device together).
pub const STDERR_LINES_KEPT: usize = 200;
/// Bytes of a too-long stdout line quoted in the protocol error.
const HEAD_BYTES: usize = 120;

/// One message from the child's stdout: a line, or in the binary framing a frame.
#[derive(Debug)]
pub enum Line {
    /// A whole line (lossily decoded), without its newline.
    Text(String),
    /// A frame's message ([`frame`]).
    Frame(Vec<u8>),
    /// Bytes that are no frame (or a frame cut short): why, and their first bytes, printable.
    /// Nothing is read past them.
    NotAFrame { why: &'static str, head: String },
    /// A line longer than the limit: its length when it was found too long (more than the limit;
    /// the rest is skipped) and its first bytes.
    TooLong { bytes: usize, head: String },
    /// The end of stdout (the child closed it, or died).
    End,
}

/// Why no line came.
#[derive(Debug, PartialEq, Eq)]
pub enum NoLine {
    /// The deadline passed.
    Timeout,
    /// The reader ended (stdout closed).
    Closed,
}

/// The device's stderr as kept: every child's lines, the last [`STDERR_LINES_KEPT`].
#[derive(Debug, Default)]
pub struct StderrLog {
    lines: std::collections::VecDeque<String>,
    /// Lines written in all (including those dropped from the front).
    total: usize,
}

impl StderrLog {
    /// Lines written so far.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The kept lines.
    pub fn lines(&self) -> Vec<String> {
        self.lines.iter().cloned().collect()
    }

    /// The last `n` lines written since line `from`.
    pub fn since(&self, from: usize, n: usize) -> Vec<String> {
        let first_kept = self.total - self.lines.len();
        let start = from.saturating_sub(first_kept).min(self.lines.len());
        let mine: Vec<&String> = self.lines.iter().skip(start).collect();
        mine[mine.len().saturating_sub(n)..]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn push(&mut self, line: String) {
        self.total += 1;
        self.lines.push_back(line);
        if self.lines.len() > STDERR_LINES_KEPT {
            self.lines.pop_front();
        }
    }
}

/// A running device process.
#[derive(Debug)]
pub struct Child {
    child: std::process::Child,
    requests: Option<SyncSender<Vec<u8>>>,
    lines: Receiver<Line>,
    limit: Arc<AtomicUsize>,
    /// Whether stdout carries frames ([`Framing::Msgpack`]) from the next message on.
    frames: Arc<AtomicBool>,
    slot: Option<usize>,
}

impl Child {
    /// Starts `sh -c command` in its own process group, its stderr lines going to `log`.
    pub fn spawn(command: &str, log: Arc<Mutex<StderrLog>>) -> std::io::Result<Child> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(command);
        // Its own process group, so that killing it kills whatever `sh` started too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let slot = i32::try_from(child.id()).ok().and_then(reap::register);
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let mut stdin = child.stdin.take().expect("piped");
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            widen_pipe(stdin.as_raw_fd());
            widen_pipe(stdout.as_raw_fd());
        }
        let limit = Arc::new(AtomicUsize::new(usize::MAX));
        let frames = Arc::new(AtomicBool::new(false));
        let (tx, lines) = mpsc::sync_channel(QUEUED_LINES);
        let (l, f) = (Arc::clone(&limit), Arc::clone(&frames));
        std::thread::spawn(move || read_lines(stdout, &l, &f, &tx));
        std::thread::spawn(move || read_stderr(stderr, &log));
        // Room for a request per launch in flight: each may wait while the writer has not yet
        // been scheduled to take the one before.
        let (requests, rx) = mpsc::sync_channel::<Vec<u8>>(super::flight::MAX_IN_FLIGHT);
        std::thread::spawn(move || {
            for bytes in rx {
                if stdin
                    .write_all(&bytes)
                    .and_then(|()| stdin.flush())
                    .is_err()
                {
                    return;
                }
            }
        });
        Ok(Child {
            child,
            requests: Some(requests),
            lines,
            limit,
            frames,
            slot,
        })
    }

    /// The process id (and process group id).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Bounds the stdout lines read from now on to `bytes` each.
    pub fn set_line_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::SeqCst);
    }

    /// Reads stdout in `framing` from the next message on (the caller switches after hello's
    /// answer, before its next request: the device sends nothing unasked).
    pub fn set_framing(&self, framing: Framing) {
        self.frames
            .store(framing == Framing::Msgpack, Ordering::SeqCst);
    }

    /// Hands `bytes` (a line with its newline, or a frame) to the writer; false when the writer
    /// has ended (the child closed its stdin) or still holds as many earlier requests as launches
    /// may be in flight, undelivered.
    pub fn send(&mut self, bytes: Vec<u8>) -> bool {
        match &self.requests {
            Some(tx) => tx.try_send(bytes).is_ok(),
            None => false,
        }
    }

    /// The next stdout line, waiting at most `timeout`.
    pub fn next_line(&self, timeout: Duration) -> Result<Line, NoLine> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(NoLine::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(NoLine::Closed),
        }
    }

    /// Closes the child's stdin (after the pending write, if any).
    pub fn close_stdin(&mut self) {
        self.requests = None;
    }

    /// The exit status, if the child has exited.
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kills the child's whole process group and reaps the child.
    pub fn kill(&mut self) -> Option<std::process::ExitStatus> {
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads; it
            // touches no memory of this process.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let st = self.child.wait().ok();
        reap::unregister(self.slot.take());
        st
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.slot.is_some() {
            self.kill();
        }
    }
}

/// Bytes a pipe to or from the device holds (Linux's default is 64 KiB): a launch's buffers
/// pass in a few writes instead of one per 64 KiB, each waking the other process.
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Asks for [`PIPE_BYTES`] of pipe; keeps what the pipe has when the system refuses (its
/// `pipe-max-size`, or the user's pipe allowance).
#[cfg(target_os = "linux")]
fn widen_pipe(fd: std::os::fd::RawFd) {
    // SAFETY: fcntl(2) F_SETPIPE_SZ on a pipe descriptor this process owns; it touches no memory.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
}

/// Reads stdout line by line, each into at most the current limit; ends with [`Line::End`]. A
/// line past the limit is reported at once (the caller then ends the device) and the rest of it
/// is skipped.
fn read_lines(stdout: impl Read, limit: &AtomicUsize, frames: &AtomicBool, tx: &SyncSender<Line>) {
    let mut r = BufReader::with_capacity(1 << 16, stdout);
    loop {
        // The framing of the next message: read once its first bytes have come.
        if matches!(r.fill_buf(), Ok(b) if !b.is_empty()) && frames.load(Ordering::SeqCst) {
            let line = match frame::read(&mut r, limit.load(Ordering::SeqCst)) {
                Ok(Frame::Body(body)) => Line::Frame(body),
                Ok(Frame::TooLong { bytes }) => Line::TooLong {
                    bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                    head: format!("a frame of {bytes} bytes"),
                },
                // Nothing can be read past bytes that are no frame.
                Ok(Frame::Bad { why, head }) => {
                    let _ = tx.send(Line::NotAFrame { why, head });
                    Line::End
                }
                Ok(Frame::End) | Err(_) => Line::End,
            };
            let end = matches!(line, Line::End);
            if tx.send(line).is_err() || end {
                return;
            }
            continue;
        }
        let mut line: Vec<u8> = Vec::new();
        let mut bytes = 0usize;
        let mut ended = false;
        let mut too_long = false;
        let mut max = usize::MAX;
        loop {
            let buf = match r.fill_buf() {
                Ok([]) | Err(_) => {
                    ended = true;
                    break;
                }
                Ok(b) => b,
            };
            // The limit of the request the line answers: read once bytes have come (the caller
            // sets it before it sends the request).
            max = max.min(limit.load(Ordering::SeqCst));
            let (part, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let room = (max.saturating_add(1)).saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            bytes = bytes.saturating_add(part.len());
            let used = part.len() + usize::from(found);
            r.consume(used);
            if bytes > max && !too_long {
                too_long = true;
                line.truncate(HEAD_BYTES);
                let head = text::printable(&String::from_utf8_lossy(&line));
                if tx.send(Line::TooLong { bytes, head }).is_err() {
                    return;
                }
            }
            if found {
                break;
            }
        }
        if ended && bytes == 0 {
            let _ = tx.send(Line::End);
            return;
        }
        if !too_long {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let text = Line::Text(String::from_utf8_lossy(&line).into_owned());
            if tx.send(text).is_err() {
                return;
            }
        }
        if ended {
            let _ = tx.send(Line::End);
            return;
        }
    }
}

/// Reads stderr as bytes into `log`: lines cut to [`STDERR_LINE_BYTES`], shown printably.
fn read_stderr(stderr: impl Read, log: &Mutex<StderrLog>) {
    let mut r = BufReader::with_capacity(1 << 16, stderr);
    loop {
        let mut line: Vec<u8> = Vec::new();
        let mut bytes = 0usize;
        let mut ended = false;
        loop {
            let buf = match r.fill_buf() {
                Ok([]) | Err(_) => {
                    ended = true;
                    break;
                }
                Ok(b) => b,
            };
            let (part, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let room = STDERR_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            bytes = bytes.saturating_add(part.len());
            let used = part.len() + usize::from(found);
            r.consume(used);
            if found {
                break;
            }
        }
        if bytes > 0 || !ended {
            let mut shown = text::printable(String::from_utf8_lossy(&line).trim_end());
            if bytes > line.len() {
                shown.push_str(&format!("... ({} more bytes cut)", bytes - line.len()));
            }
            match log.lock() {
                Ok(mut l) => l.push(shown),
                Err(_) => return,
            }
        }
        if ended {
            return;
        }
    }
}
