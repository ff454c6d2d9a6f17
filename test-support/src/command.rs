//! A command line run the way the tests need it: in [`crate::scratch_dir`] (never the work tree)
//! unless told otherwise, its stdin fed from a thread (so a full stdout pipe cannot deadlock the
//! test), stdin closed when none is given, and, when asked, a bound on its wall time past which
//! it is killed and the test fails saying so.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A command to run once; see the module documentation.
#[derive(Debug)]
pub struct Cmd {
    inner: Command,
    stdin: Option<Vec<u8>>,
    limit: Option<Duration>,
}

impl Cmd {
    /// `program`, in the scratch directory, no arguments, stdin closed.
    pub fn new(program: impl AsRef<OsStr>) -> Cmd {
        let mut inner = Command::new(program);
        inner.current_dir(crate::scratch_dir());
        Cmd {
            inner,
            stdin: None,
            limit: None,
        }
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Cmd {
        self.inner.arg(arg);
        self
    }

    /// More arguments.
    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Cmd {
        self.inner.args(args);
        self
    }

    /// An environment variable set.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Cmd {
        self.inner.env(key, value);
        self
    }

    /// Environment variables set.
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Cmd {
        self.inner.envs(vars);
        self
    }

    /// Environment variables removed (the child does not inherit them).
    pub fn env_remove<K: AsRef<OsStr>>(mut self, keys: impl IntoIterator<Item = K>) -> Cmd {
        for k in keys {
            self.inner.env_remove(k);
        }
        self
    }

    /// Runs in `dir` instead of the scratch directory.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Cmd {
        self.inner.current_dir(dir);
        self
    }

    /// `bytes` fed to its stdin (which need not be text).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.stdin = Some(bytes.into());
        self
    }

    /// It must end within `limit`: past it, it is killed with every process it started (it runs
    /// in a process group of its own) and [`Cmd::output`] panics naming the command and showing
    /// its stderr so far (a hang is a failure, not a stuck test run).
    pub fn within(mut self, limit: Duration) -> Cmd {
        use std::os::unix::process::CommandExt;
        self.inner.process_group(0);
        self.limit = Some(limit);
        self
    }

    /// The command itself, for what the builder does not say (`pre_exec`, a streamed child), in
    /// the scratch directory like every other.
    pub fn into_command(self) -> Command {
        self.inner
    }

    /// Runs it to its end: its status and everything it wrote.
    ///
    /// # Panics
    /// When it cannot start, or runs past its [`Cmd::within`] limit (saying so).
    pub fn output(self) -> Output {
        self.try_output().unwrap_or_else(|why| panic!("{why}"))
    }

    /// [`Cmd::output`], or why it has none: it could not start, or it ran past its limit and was
    /// killed (with its stderr so far).
    pub fn try_output(self) -> Result<Output, String> {
        let Cmd {
            mut inner,
            stdin,
            limit,
        } = self;
        let label = format!("{inner:?}");
        inner
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = inner
            .spawn()
            .map_err(|e| format!("{label} does not start: {e}"))?;
        let writer = stdin.map(|bytes| {
            let mut pipe = child.stdin.take().expect("piped stdin");
            std::thread::spawn(move || {
                // A command that stops reading early is its own business (a broken pipe here).
                let _ = pipe.write_all(&bytes);
            })
        });
        // Each stream is read as it comes, so what a killed command wrote so far can be shown even
        // while a process it started still holds the pipe open.
        let read = |mut r: Box<dyn Read + Send>| {
            let got = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&got);
            let done = std::thread::spawn(move || {
                let mut buf = [0u8; 64 * 1024];
                while let Ok(n) = r.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    sink.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
            (got, done)
        };
        let out = read(Box::new(child.stdout.take().expect("piped stdout")));
        let err = read(Box::new(child.stderr.take().expect("piped stderr")));
        let status = match limit {
            None => child.wait().expect("waiting for the child"),
            Some(limit) => {
                let started = Instant::now();
                loop {
                    if let Some(s) = child.try_wait().expect("waiting for the child") {
                        break s;
                    }
                    if started.elapsed() > limit {
                        // SAFETY: kill(2) of the process group this command leads.
                        unsafe {
                            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
                        }
                        let _ = child.wait();
                        let so_far = err.0.lock().unwrap().clone();
                        return Err(format!(
                            "{label} did not end within {limit:?}; its stderr so far:\n{}",
                            String::from_utf8_lossy(&so_far)
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        };
        if let Some(w) = writer {
            let _ = w.join();
        }
        let take = |(got, done): (Arc<Mutex<Vec<u8>>>, std::thread::JoinHandle<()>)| {
            let _ = done.join();
            std::mem::take(&mut *got.lock().unwrap())
        };
        Ok(Output {
            status,
            stdout: take(out),
            stderr: take(err),
        })
    }
}
