//! The exec device: an external program that speaks the device protocol ([`protocol`],
//! `docs/device-protocol.md`) on its stdin and stdout, started as `sh -c COMMAND`. Any emulator
//! that runs gfx11 code objects can be a device this way, and `ssh box ds-harness serve-device
//! --backend hip` is a GPU on another machine (DESIGN.md section 10).
//!
//! Every call is bounded by a timeout. A child that dies ([`DeviceError::Crashed`]), does not
//! answer in time ([`DeviceError::Timeout`], then killed) or writes what the protocol does not
//! allow ([`DeviceError::Protocol`], naming the line) fails only the call it was answering: the
//! next call starts a new child, says hello again and loads the code objects again, so a run goes
//! on. The child's stderr is kept (see [`Device::stderr_log`]).

pub mod protocol;
pub mod serve;

use super::{Backend, Device, DeviceError, DeviceInfo, Launch, ModuleId};
use ds_reference::target::Target;
use protocol::{BufferIn, Bytes, ErrorKind, Request, Response, PROTOCOL_VERSION};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The detail key of the command line, in the device's [`DeviceInfo`].
pub const COMMAND_DETAIL: &str = "device command";
/// The detail key of the device's own version (its hello).
pub const VERSION_DETAIL: &str = "device version";

/// Default bound on one launch or load, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 120.0;
/// Default bound on a child's start-up (spawn and hello) and on a load, in seconds: `ssh` may
/// take a while, and an emulator may decode a whole code object when it loads it.
pub const DEFAULT_HELLO_TIMEOUT_SECS: f64 = 60.0;
/// Consecutive failed starts after which the device gives up (every later call fails at once).
pub const MAX_FAILED_STARTS: usize = 3;
/// Lines of the child's stderr kept for the report.
const STDERR_LINES_KEPT: usize = 200;
/// Lines of stderr quoted in a crash message.
const STDERR_LINES_QUOTED: usize = 5;
/// Characters of a garbage line quoted in a protocol error.
const QUOTED_CHARS: usize = 120;

/// How to start and bound the external device.
#[derive(Clone, Debug)]
pub struct ExecOptions {
    /// The command line, run as `sh -c COMMAND`.
    pub command: String,
    /// Bound on one load or launch.
    pub timeout: Duration,
    /// Bound on a start (spawn and hello) and on a load.
    pub hello_timeout: Duration,
    /// The target asked for (`--target`): the device's hello must name it. Without one, the
    /// device's own target is taken, if kernels can be built for it.
    pub target: Option<&'static Target>,
}

impl ExecOptions {
    /// `command` with the default timeouts, for `target` (or the device's own).
    pub fn new(command: &str, target: Option<&'static Target>) -> ExecOptions {
        ExecOptions {
            command: command.to_string(),
            timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS),
            hello_timeout: Duration::from_secs_f64(DEFAULT_HELLO_TIMEOUT_SECS),
            target,
        }
    }
}

/// One line from the child's stdout, or the end of it.
enum Line {
    Text(String),
    End,
}

/// A running child.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    /// Lines read from stdout so far (for naming a bad one).
    line_no: usize,
    /// harness module -> this child's module number.
    modules: HashMap<usize, u64>,
    /// First stderr line of this child in the shared log.
    stderr_from: usize,
}

/// The device's kept stderr: every child's lines, the last [`STDERR_LINES_KEPT`].
#[derive(Debug, Default)]
struct StderrLog {
    lines: Vec<String>,
    /// Lines written in all (including those dropped from the front).
    total: usize,
}

/// An external program as a device.
pub struct ExecDevice {
    opts: ExecOptions,
    info: DeviceInfo,
    session: Option<Session>,
    /// Every code object loaded, by harness module id, to load again in a new child.
    code_objects: Vec<Vec<u8>>,
    next_id: u64,
    stderr: Arc<Mutex<StderrLog>>,
    failed_starts: usize,
    /// Children started so far.
    starts: usize,
}

impl std::fmt::Debug for ExecDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecDevice")
            .field("command", &self.opts.command)
            .field("info", &self.info)
            .field("starts", &self.starts)
            .finish()
    }
}

impl ExecDevice {
    /// Starts the command and says hello; [`DeviceError::Unavailable`] when it cannot be started,
    /// does not answer, speaks another protocol version or runs another target.
    pub fn start(opts: ExecOptions) -> Result<ExecDevice, DeviceError> {
        let mut dev = ExecDevice {
            info: DeviceInfo {
                backend: Backend::Exec,
                name: String::new(),
                target: ds_reference::target::DEFAULT,
                details: Vec::new(),
            },
            opts,
            session: None,
            code_objects: Vec::new(),
            next_id: 1,
            stderr: Arc::new(Mutex::new(StderrLog::default())),
            failed_starts: 0,
            starts: 0,
        };
        dev.ensure_session().map_err(|e| match e {
            DeviceError::Unavailable(m) => DeviceError::Unavailable(m),
            other => DeviceError::Unavailable(other.to_string()),
        })?;
        Ok(dev)
    }

    /// The running child's process id (for tests and messages).
    pub fn pid(&self) -> Option<u32> {
        self.session.as_ref().map(|s| s.child.id())
    }

    /// How many children were started (1 + restarts).
    pub fn starts(&self) -> usize {
        self.starts
    }

    /// Ends the session politely: `shutdown`, then waits a moment for the child to exit.
    pub fn shutdown(&mut self) {
        if let Some(mut s) = self.session.take() {
            let id = self.next_id;
            self.next_id += 1;
            let _ = writeln!(s.stdin, "{}", protocol::to_line(&Request::Shutdown { id }));
            let _ = s.stdin.flush();
            let _ = s.lines.recv_timeout(Duration::from_secs(5));
            drop(s.stdin);
            for _ in 0..50 {
                if let Ok(Some(_)) = s.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            kill_group(&mut s.child);
            let _ = s.child.wait();
        }
    }

    /// A running child that has said hello and loaded every code object, starting one if needed.
    fn ensure_session(&mut self) -> Result<(), DeviceError> {
        if self.session.is_some() {
            return Ok(());
        }
        if self.failed_starts >= MAX_FAILED_STARTS {
            return Err(DeviceError::Unavailable(format!(
                "`{}` failed to start {MAX_FAILED_STARTS} times in a row; not trying again",
                self.opts.command
            )));
        }
        match self.start_session() {
            Ok(()) => {
                self.failed_starts = 0;
                Ok(())
            }
            Err(e) => {
                self.failed_starts += 1;
                self.kill_session();
                Err(e)
            }
        }
    }

    fn start_session(&mut self) -> Result<(), DeviceError> {
        let cmd = &self.opts.command.clone();
        let mut command = Command::new("sh");
        command.arg("-c").arg(cmd);
        // Its own process group, so that killing it kills whatever `sh` started too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| DeviceError::Unavailable(format!("cannot start `sh -c {cmd}`: {e}")))?;
        self.starts += 1;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Line::End);
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(Line::Text(text)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let log = Arc::clone(&self.stderr);
        let stderr_from = log.lock().map_or(0, |l| l.total);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                let Ok(mut l) = log.lock() else { return };
                l.total += 1;
                l.lines.push(line);
                if l.lines.len() > STDERR_LINES_KEPT {
                    l.lines.remove(0);
                }
            }
        });
        self.session = Some(Session {
            child,
            stdin,
            lines: rx,
            line_no: 0,
            modules: HashMap::new(),
            stderr_from,
        });
        let id = self.fresh_id();
        let hello = Request::Hello {
            id,
            protocol: PROTOCOL_VERSION,
            harness: format!("ds-harness {}", env!("CARGO_PKG_VERSION")),
        };
        let timeout = self.opts.hello_timeout;
        let answer = self
            .call(&hello, timeout)
            .map_err(|e| DeviceError::Unavailable(format!("`{cmd}` did not say hello: {e}")))?;
        let Response::Hello {
            protocol,
            device,
            target,
            version,
            hardware,
            details,
            ..
        } = answer
        else {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` answered hello with {}",
                kind_of(&answer)
            )));
        };
        if protocol != PROTOCOL_VERSION {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` speaks device protocol {protocol}; this harness speaks {PROTOCOL_VERSION} \
                 (see docs/device-protocol.md)"
            )));
        }
        let target = Target::by_name(&target)
            .map_err(|e| DeviceError::Unavailable(format!("`{cmd}` says it runs {e}")))?;
        if let Some(want) = self.opts.target {
            if target != want {
                return Err(DeviceError::Unavailable(format!(
                    "`{cmd}` runs {target}, and --target asks for {want}"
                )));
            }
        }
        ds_kernels::check_target(target)
            .map_err(|e| DeviceError::Unavailable(format!("`{cmd}` runs {e}")))?;
        let mut d = vec![
            (COMMAND_DETAIL.to_string(), cmd.clone()),
            (VERSION_DETAIL.to_string(), version),
            ("device protocol".to_string(), protocol.to_string()),
            ("hardware".to_string(), hardware.to_string()),
        ];
        d.extend(details);
        if self.starts == 1 {
            self.info.name = device;
            self.info.target = target;
            self.info.details = d;
        } else if device != self.info.name || target != self.info.target {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` restarted as another device: `{device}`, was `{}`",
                self.info.name
            )));
        }
        for m in 0..self.code_objects.len() {
            self.load_in_session(m)?;
        }
        Ok(())
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Loads harness module `m` into the running child.
    fn load_in_session(&mut self, m: usize) -> Result<(), DeviceError> {
        let id = self.fresh_id();
        let req = Request::Load {
            id,
            code_object: Bytes(self.code_objects[m].clone()),
        };
        // A load may be slow (a big code object, an emulator that decodes it whole): it is
        // bounded like a start.
        match self.call(&req, self.opts.hello_timeout)? {
            Response::Loaded { module, .. } => {
                if let Some(s) = self.session.as_mut() {
                    s.modules.insert(m, module);
                }
                Ok(())
            }
            Response::Error { kind, message, .. } => Err(match kind {
                ErrorKind::Unsupported => DeviceError::Unsupported(message),
                _ => DeviceError::Load(message),
            }),
            other => Err(self.fail(DeviceError::Protocol(format!(
                "answered load with {}",
                kind_of(&other)
            )))),
        }
    }

    /// Sends `req` and waits up to `timeout` for the answer with its id. Any failure of the
    /// child ends the session (the next call starts a new one).
    fn call(&mut self, req: &Request, timeout: Duration) -> Result<Response, DeviceError> {
        let line = protocol::to_line(req);
        let s = self.session.as_mut().expect("a session");
        if writeln!(s.stdin, "{line}")
            .and_then(|_| s.stdin.flush())
            .is_err()
        {
            return Err(self.crashed("stopped reading its stdin"));
        }
        let s = self.session.as_mut().expect("a session");
        match s.lines.recv_timeout(timeout) {
            Ok(Line::Text(text)) => {
                s.line_no += 1;
                let n = s.line_no;
                match serde_json::from_str::<Response>(&text) {
                    Ok(r) if r.id() == Some(req.id()) || r.id().is_none() => Ok(r),
                    Ok(r) => Err(self.fail(DeviceError::Protocol(format!(
                        "stdout line {n}: answers request {:?}, expected {}",
                        r.id(),
                        req.id()
                    )))),
                    Err(e) => Err(self.fail(DeviceError::Protocol(format!(
                        "stdout line {n} is not a protocol message ({e}): {}",
                        quote(&text)
                    )))),
                }
            }
            Ok(Line::End) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.crashed("closed its stdout"))
            }
            Err(RecvTimeoutError::Timeout) => {
                let what = match req {
                    Request::Launch { kernel, .. } => format!("launch of `{kernel}`"),
                    Request::Load { .. } => "load".into(),
                    Request::Hello { .. } => "hello".into(),
                    Request::Shutdown { .. } => "shutdown".into(),
                };
                Err(self.fail(DeviceError::Timeout(format!(
                    "no answer to the {what} within {:.1} s; the device process was killed and \
                     will be restarted (--device-timeout sets the limit)",
                    timeout.as_secs_f64()
                ))))
            }
        }
    }

    /// Ends the session and returns `e`.
    fn fail(&mut self, e: DeviceError) -> DeviceError {
        self.kill_session();
        e
    }

    /// The child died: its exit status and last stderr lines.
    fn crashed(&mut self, how: &str) -> DeviceError {
        let Some(mut s) = self.session.take() else {
            return DeviceError::Crashed(how.into());
        };
        let mut status = None;
        for _ in 0..100 {
            if let Ok(Some(st)) = s.child.try_wait() {
                status = Some(st);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if status.is_none() {
            kill_group(&mut s.child);
            status = s.child.wait().ok();
        }
        // Give the stderr reader a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_since(s.stderr_from);
        let status = status.map_or("unknown status".to_string(), describe_status);
        DeviceError::Crashed(format!(
            "the device process (pid {}) {how} ({status}){}",
            s.child.id(),
            if tail.is_empty() {
                String::new()
            } else {
                format!("; its last stderr lines: {}", tail.join(" | "))
            }
        ))
    }

    /// The last stderr lines written since line `from`.
    fn stderr_since(&self, from: usize) -> Vec<String> {
        let Ok(l) = self.stderr.lock() else {
            return Vec::new();
        };
        let first_kept = l.total - l.lines.len();
        let start = from.saturating_sub(first_kept);
        let mine = &l.lines[start.min(l.lines.len())..];
        mine[mine.len().saturating_sub(STDERR_LINES_QUOTED)..].to_vec()
    }

    fn kill_session(&mut self) {
        if let Some(mut s) = self.session.take() {
            kill_group(&mut s.child);
            let _ = s.child.wait();
        }
    }
}

/// Kills the child and every process of its group (it leads one: see `start_session`).
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads; it
        // touches no memory of this process.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

impl Drop for ExecDevice {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A response's type, for messages.
fn kind_of(r: &Response) -> String {
    match r {
        Response::Error { kind, message, .. } => format!("an error ({kind}: {message})"),
        other => format!(
            "`{}`",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(String::from))
                .unwrap_or_default()
        ),
    }
}

fn quote(text: &str) -> String {
    let cut: String = text.chars().take(QUOTED_CHARS).collect();
    if cut.len() < text.len() {
        format!("`{cut}...`")
    } else {
        format!("`{cut}`")
    }
}

fn describe_status(st: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = st.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match st.code() {
        Some(c) => format!("exit status {c}"),
        None => "no exit status".into(),
    }
}

impl Device for ExecDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        self.code_objects.push(code_object.to_vec());
        let m = self.code_objects.len() - 1;
        if self.session.is_some() {
            if let Err(e) = self.load_in_session(m) {
                self.code_objects.pop();
                return Err(e);
            }
        } else if let Err(e) = self.ensure_session() {
            // A new session loads every code object, this one included.
            self.code_objects.pop();
            return Err(e);
        }
        Ok(ModuleId(m))
    }

    fn launch(&mut self, module: ModuleId, launch: &mut Launch) -> Result<(), DeviceError> {
        if module.0 >= self.code_objects.len() {
            return Err(DeviceError::Launch(format!(
                "module {} was never loaded",
                module.0
            )));
        }
        self.ensure_session()?;
        let child_module = match self.session.as_ref().and_then(|s| s.modules.get(&module.0)) {
            Some(&m) => m,
            None => {
                self.load_in_session(module.0)?;
                self.session.as_ref().expect("a session").modules[&module.0]
            }
        };
        let id = self.fresh_id();
        let req = Request::Launch {
            id,
            module: child_module,
            kernel: launch.kernel.clone(),
            workgroups: launch.workgroups,
            workgroup_size: launch.workgroup_size,
            dynamic_lds: 0,
            buffers: launch
                .buffers
                .iter()
                .map(|b| BufferIn {
                    name: b.name.to_string(),
                    bytes: Bytes(b.bytes.clone()),
                    output: b.copy_back,
                })
                .collect(),
        };
        match self.call(&req, self.opts.timeout)? {
            Response::Done { buffers, .. } => {
                let outputs: Vec<usize> = (0..launch.buffers.len())
                    .filter(|&i| launch.buffers[i].copy_back)
                    .collect();
                if buffers.len() != outputs.len() {
                    return Err(self.fail(DeviceError::Protocol(format!(
                        "the launch of `{}` has {} output buffers, the device sent {}",
                        launch.kernel,
                        outputs.len(),
                        buffers.len()
                    ))));
                }
                for (&i, got) in outputs.iter().zip(&buffers) {
                    let want = &launch.buffers[i];
                    if got.name != want.name || got.bytes.0.len() != want.bytes.len() {
                        return Err(self.fail(DeviceError::Protocol(format!(
                            "output buffer {i} of `{}` should be `{}` of {} bytes; the device \
                             sent `{}` of {} bytes",
                            launch.kernel,
                            want.name,
                            want.bytes.len(),
                            got.name,
                            got.bytes.0.len()
                        ))));
                    }
                }
                for (&i, got) in outputs.iter().zip(buffers) {
                    launch.buffers[i].bytes = got.bytes.0;
                }
                Ok(())
            }
            Response::Error {
                kind,
                message,
                offset,
                bytes,
                ..
            } => Err(match kind {
                ErrorKind::Unsupported => DeviceError::Unsupported(format!(
                    "{message}{}{}",
                    offset.map_or(String::new(), |o| format!(
                        " (at {o:#x} in `{}`",
                        launch.kernel
                    )),
                    match (offset, bytes) {
                        (Some(_), Some(b)) => format!(": {b})"),
                        (Some(_), None) => ")".to_string(),
                        (None, Some(b)) => format!(" ({b})"),
                        (None, None) => String::new(),
                    }
                )),
                ErrorKind::Fault => DeviceError::Launch(format!("the kernel faulted: {message}")),
                ErrorKind::Other => DeviceError::Launch(message),
            }),
            other => Err(self.fail(DeviceError::Protocol(format!(
                "answered a launch with {}",
                kind_of(&other)
            )))),
        }
    }

    fn stderr_log(&self) -> Vec<String> {
        self.stderr.lock().map_or(Vec::new(), |l| l.lines.clone())
    }
}

/// What the commands that open a device were asked for an exec device (`--device-cmd`,
/// `--device-timeout`; the CLI parses the flags into this).
#[derive(Clone, Debug, Default)]
pub struct ExecArgs {
    /// The device's command line, run as `sh -c 'COMMAND'`, speaking the device protocol on
    /// stdin/stdout (docs/device-protocol.md).
    pub device_cmd: Option<String>,
    /// Seconds one launch may take before the device process is killed (a start and a load may
    /// take at least 60 s).
    pub device_timeout: f64,
}

impl ExecArgs {
    /// The options for a device running `target` (or its own), or why the flags do not go
    /// together.
    pub fn options(&self, target: Option<&'static Target>) -> Result<ExecOptions, String> {
        let Some(cmd) = &self.device_cmd else {
            return Err(
                "--backend exec needs --device-cmd 'COMMAND ARGS' (the program speaking \
                        the device protocol, e.g. --device-cmd 'ds-harness serve-device')"
                    .into(),
            );
        };
        if cmd.trim().is_empty() {
            return Err("--device-cmd is empty: give the device's command line".into());
        }
        let mut o = ExecOptions::new(cmd, target);
        o.timeout = Duration::from_secs_f64(self.device_timeout);
        o.hello_timeout = o.hello_timeout.max(o.timeout);
        Ok(o)
    }
}
