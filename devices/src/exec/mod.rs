//! The exec device: an external program that speaks the device protocol ([`protocol`],
//! `docs/device-protocol.md`) on its stdin and stdout, started as `sh -c COMMAND`. Any emulator
//! that runs gfx11 code objects can be a device this way, and `ssh box ds-harness serve-device
//! --backend hip` is a GPU on another machine (docs/design-notes.md, "Devices beyond this process").
//!
//! Every call is bounded in time (the deadline covers writing the request too: see [`child`]) and
//! every answer in size. A child that dies ([`DeviceError::Crashed`]), does not answer in time
//! ([`DeviceError::Timeout`], then killed with its process group) or writes what the protocol
//! does not allow ([`DeviceError::Protocol`], naming the line) fails only the call it was
//! answering: the next call starts a new child, says hello again and loads the code objects
//! again, so a run goes on, until the device has failed to start [`MAX_FAILED_STARTS`] times or
//! timed out [`MAX_TIMEOUTS_IN_A_ROW`] times in a row: then it gives up ([`Device::gave_up`]) and
//! the run stops (exit 3). Everything the device says is made printable and bounded ([`text`]);
//! its stderr is kept (see [`Device::stderr_log`]).

mod answer;
mod bulk;
mod call;
mod child;
mod flight;
pub mod frame;
mod options;
pub mod protocol;
mod reap;
pub mod serve;
mod shared;
pub mod text;

use super::{Backend, Device, DeviceError, DeviceInfo, Launch, ModuleId};
use answer::{answer_limit, kind_of, launch_error, message, own_details, quote, take_outputs, Out};
use child::{Child, StderrLog};
use ds_isa::target::Target;
use frame::Framing;
pub use options::{ExecArgs, ExecOptions};
use protocol::{BufferIn, Bytes, ErrorKind, Request, Response, PROTOCOL_VERSION};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The detail key of the command line, in the device's [`DeviceInfo`].
pub const COMMAND_DETAIL: &str = "device command";
/// The detail key of the device's own version (its hello).
pub const VERSION_DETAIL: &str = "device version";
/// The detail key of the hardware claim of the device's hello (`true`/`false`), the only place
/// the harness takes it from.
pub const HARDWARE_DETAIL: &str = "hardware";
/// The detail key of the protocol version the device speaks.
pub const PROTOCOL_DETAIL: &str = "device protocol";
/// The detail key of how messages and buffers travelled, as the hello agreed: `JSON lines`,
/// `msgpack frames`, or `msgpack frames, buffers through a shared file`.
pub const TRANSPORT_DETAIL: &str = "device transport";
/// Detail keys the harness writes itself (here and in a recording's provenance): a device's own
/// detail of one of these names is kept as `device's <name>`, never in their place.
pub const RESERVED_DETAILS: [&str; 13] = [
    COMMAND_DETAIL,
    VERSION_DETAIL,
    HARDWARE_DETAIL,
    PROTOCOL_DETAIL,
    TRANSPORT_DETAIL,
    "backend",
    "gpu",
    "arch",
    "harness",
    "date",
    "fp_modes",
    "wave",
    "provenance",
];

/// Default bound on one launch or load, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 120.0;
/// Default bound on a child's start-up (spawn and hello), in seconds: `ssh` may take a while,
/// and a device does its start-up work before it answers hello.
pub const DEFAULT_HELLO_TIMEOUT_SECS: f64 = 60.0;
/// The largest `--device-timeout` (and `DS_HARNESS_HIP_TIMEOUT`) taken, in seconds: a week.
pub const MAX_TIMEOUT_SECS: f64 = 604_800.0;
/// Consecutive failed starts after which the device gives up.
pub const MAX_FAILED_STARTS: usize = 3;
/// Consecutive time-outs (of launches and loads, across restarts) after which the device gives
/// up: a device that is slow at every first launch after a start never gets anywhere.
pub const MAX_TIMEOUTS_IN_A_ROW: usize = 3;
/// Bytes any answer line may have (an answer to a launch may have more: its output buffers as
/// base64, see [`answer_limit`]); a longer line is a protocol error, and is never held in memory.
pub const MIN_LINE_BYTES: usize = 1 << 20;
/// Lines of stderr quoted in a crash message.
const STDERR_LINES_QUOTED: usize = 5;
/// Characters of a garbage line quoted in a protocol error.
pub(crate) const QUOTED_CHARS: usize = 120;

/// A running child.
struct Session {
    child: Child,
    /// Lines read from stdout so far (for naming a bad one).
    line_no: usize,
    /// harness module -> this child's module number.
    modules: HashMap<usize, u64>,
    /// First stderr line of this child in the shared log.
    stderr_from: usize,
    /// How messages travel after hello (agreed in it).
    framing: Framing,
    /// Launch buffers travel through the buffer file (agreed in hello).
    file: bool,
}

/// An answer as [`ExecDevice::exchange`] gives it.
enum Answer {
    Message(Response),
    /// A `done` frame's message, its buffers to be read in place ([`bulk::read_done`]).
    Done(Vec<u8>),
}

/// What a call is, for its limits and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Hello,
    Load,
    Launch,
}

/// An external program as a device.
pub struct ExecDevice {
    opts: ExecOptions,
    info: DeviceInfo,
    /// The hello's `hardware`, from the first start (a restart must say the same).
    hardware: bool,
    session: Option<Session>,
    /// Every code object loaded, by harness module id, to load again in a new child.
    code_objects: Vec<Vec<u8>>,
    next_id: u64,
    stderr: Arc<Mutex<StderrLog>>,
    failed_starts: usize,
    timeouts_in_a_row: usize,
    /// Why the device gave up, once it has.
    gave_up: Option<String>,
    /// Children started so far.
    starts: usize,
    /// The buffer file offered to every session, once made (none when the options offer none,
    /// or it could not be made: buffers then travel on the pipes).
    buffer_file: Option<shared::BufferFile>,
    /// Launches submitted and not yet answered, oldest first ([`Device::submit`]).
    in_flight: std::collections::VecDeque<flight::InFlight>,
    /// Launches answered (or failed) and not yet given back by [`Device::complete`], oldest first.
    ready: std::collections::VecDeque<(Launch, Result<(), DeviceError>)>,
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
                target: ds_isa::target::DEFAULT,
                details: Vec::new(),
            },
            hardware: false,
            opts,
            session: None,
            code_objects: Vec::new(),
            next_id: 1,
            stderr: Arc::new(Mutex::new(StderrLog::default())),
            failed_starts: 0,
            timeouts_in_a_row: 0,
            gave_up: None,
            starts: 0,
            buffer_file: None,
            in_flight: Default::default(),
            ready: Default::default(),
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

    /// Ends the session politely: `shutdown`, then waits a moment for the child to exit, then
    /// ends its process group (nothing it started outlives it).
    pub fn shutdown(&mut self) {
        if let Some(mut s) = self.session.take() {
            let id = self.next_id;
            self.next_id += 1;
            s.child.set_line_limit(MIN_LINE_BYTES);
            if s.child.send(s.framing.encode(&Request::Shutdown { id })) {
                let _ = s.child.next_line(Duration::from_secs(5));
            }
            s.child.close_stdin();
            for _ in 0..50 {
                if s.child.try_wait().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            s.child.kill();
        }
    }

    /// A running child that has said hello and loaded every code object, starting one if needed.
    fn ensure_session(&mut self) -> Result<(), DeviceError> {
        if self.session.is_some() {
            return Ok(());
        }
        if let Some(why) = &self.gave_up {
            return Err(DeviceError::Unavailable(why.clone()));
        }
        match self.start_session() {
            Ok(()) => {
                self.failed_starts = 0;
                Ok(())
            }
            Err(e) => {
                self.failed_starts += 1;
                self.kill_session();
                if self.failed_starts >= MAX_FAILED_STARTS && self.gave_up.is_none() {
                    self.gave_up = Some(format!(
                        "`{}` failed to start {MAX_FAILED_STARTS} times in a row; not trying \
                         again (the last time: {})",
                        self.opts.command,
                        message(&e)
                    ));
                }
                Err(e)
            }
        }
    }

    fn start_session(&mut self) -> Result<(), DeviceError> {
        let cmd = &self.opts.command.clone();
        let child = Child::spawn(cmd, Arc::clone(&self.stderr))
            .map_err(|e| DeviceError::Unavailable(format!("cannot start `sh -c {cmd}`: {e}")))?;
        self.starts += 1;
        let stderr_from = self.stderr.lock().map_or(0, |l| l.total());
        self.session = Some(Session {
            child,
            line_no: 0,
            modules: HashMap::new(),
            stderr_from,
            framing: Framing::JsonLines,
            file: false,
        });
        let id = self.fresh_id();
        let offered: Vec<String> = self.opts.framings.iter().map(|f| f.name().into()).collect();
        // The buffer file goes with the binary framing; one that cannot be made is not offered
        // (the buffers travel on the pipes, as with a device that declines it).
        if self.opts.buffer_file && !offered.is_empty() && self.buffer_file.is_none() {
            self.buffer_file = shared::BufferFile::create().ok();
        }
        let file_offered =
            (self.buffer_file.as_ref()).filter(|_| self.opts.buffer_file && !offered.is_empty());
        let hello = Request::Hello {
            id,
            protocol: PROTOCOL_VERSION,
            harness: format!("ds-harness {}", env!("CARGO_PKG_VERSION")),
            framings: offered.clone(),
            buffer_file: file_offered.map(|f| f.path()),
            buffer_token: file_offered.map(|f| f.token()),
        };
        let file_offered = file_offered.is_some();
        let timeout = self.opts.hello_timeout;
        let answer = self
            .call(&hello, timeout, MIN_LINE_BYTES, Stage::Hello)
            .map_err(|e| {
                DeviceError::Unavailable(format!("`{cmd}` did not say hello: {}", message(&e)))
            })?;
        let Response::Hello {
            protocol,
            device,
            target,
            version,
            hardware,
            details,
            framing,
            buffer_file,
            ..
        } = answer
        else {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` answered hello with {}",
                kind_of(&answer)
            )));
        };
        let framing = match framing {
            None => Framing::JsonLines,
            Some(f) if f == frame::MSGPACK && offered.contains(&f) => Framing::Msgpack,
            Some(f) => {
                return Err(DeviceError::Unavailable(format!(
                    "`{cmd}` chose framing `{}` in its hello; the harness offered {} (see \
                     docs/device-protocol.md, \"Binary framing\")",
                    text::bounded(&f, QUOTED_CHARS),
                    if offered.is_empty() {
                        "none: JSON lines only".to_string()
                    } else {
                        offered.join(", ")
                    }
                )))
            }
        };
        if buffer_file && (framing != Framing::Msgpack || !file_offered) {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` took the buffer file in its hello, and {} (see docs/device-protocol.md, \
                 \"Buffer file\")",
                if !file_offered {
                    "the harness offered none"
                } else {
                    "it goes only with the binary framing"
                }
            )));
        }
        if let Some(s) = self.session.as_mut() {
            s.framing = framing;
            s.file = buffer_file;
            s.child.set_framing(framing);
        }
        if protocol != PROTOCOL_VERSION {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` speaks device protocol {protocol}; this harness speaks {PROTOCOL_VERSION} \
                 (see docs/device-protocol.md)"
            )));
        }
        // A name, or HIP's `gcnArchName` form (`<name>:sramecc+:xnack-`, features checked
        // against the table's row).
        let target = Target::by_hsa_name(&target)
            .map(|n| n.target)
            .map_err(|e| {
                DeviceError::Unavailable(format!(
                    "`{cmd}` says it runs {}",
                    text::bounded(&e.to_string(), text::MAX_MESSAGE_CHARS)
                ))
            })?;
        if let Some(want) = self.opts.target {
            if target != want {
                return Err(DeviceError::Unavailable(format!(
                    "`{cmd}` runs {target}, and --target asks for {want}"
                )));
            }
        }
        ds_kernels::check_target(target)
            .map_err(|e| DeviceError::Unavailable(format!("`{cmd}` runs {e}")))?;
        let device = text::bounded(&device, text::MAX_NAME_CHARS);
        if self.starts == 1 {
            self.info.name = device;
            self.info.target = target;
            self.hardware = hardware;
            self.info.details = own_details(cmd, &version, protocol, hardware, details);
            let transport = match (framing, buffer_file) {
                (Framing::JsonLines, _) => "JSON lines",
                (Framing::Msgpack, false) => "msgpack frames",
                (Framing::Msgpack, true) => "msgpack frames, buffers through a shared file",
            };
            (self.info.details).insert(4, (TRANSPORT_DETAIL.to_string(), transport.to_string()));
        } else if device != self.info.name
            || target != self.info.target
            || hardware != self.hardware
        {
            return Err(DeviceError::Unavailable(format!(
                "`{cmd}` restarted as another device: `{device}` ({target}, hardware {hardware}), \
                 was `{}` ({}, hardware {})",
                self.info.name, self.info.target, self.hardware
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
        match self.call(&req, self.opts.timeout, MIN_LINE_BYTES, Stage::Load)? {
            Response::Loaded { module, .. } => {
                if let Some(s) = self.session.as_mut() {
                    s.modules.insert(m, module);
                }
                Ok(())
            }
            Response::Error { kind, message, .. } => {
                let message = text::bounded(&message, text::MAX_MESSAGE_CHARS);
                Err(match kind {
                    ErrorKind::Unsupported => DeviceError::Unsupported(message),
                    _ => DeviceError::Load(message),
                })
            }
            other => Err(self.fail(DeviceError::Protocol(format!(
                "answered load with {}",
                kind_of(&other)
            )))),
        }
    }
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Hello => "hello",
            Stage::Load => "load",
            Stage::Launch => "launch",
        }
    }
}

impl ExecDevice {
    /// Sends `launch` of `module` (starting a session, loading the module, as needed), its
    /// buffers at slot `slot` of the buffer file when the session has one.
    fn send_launch(
        &mut self,
        module: ModuleId,
        launch: &Launch,
        slot: usize,
    ) -> Result<flight::Sent, DeviceError> {
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
        let session = self.session.as_ref().expect("a session");
        let binary = session.framing == Framing::Msgpack;
        let file = self.buffer_file.as_ref().filter(|_| session.file);
        // In the binary framing the frame is written straight from the buffers (or names where
        // they are in the buffer file); the request stands for it in messages.
        let (wire, offsets) = match binary {
            false => (None, None),
            true => {
                let fills = bulk::fills(launch);
                let offsets = match file {
                    Some(f) => {
                        let is_fill: Vec<bool> = fills.iter().map(Option::is_some).collect();
                        f.put(launch, &is_fill, slot)?
                    }
                    None => None,
                };
                let frame =
                    bulk::launch_frame(id, child_module, launch, &fills, offsets.as_deref());
                (Some(frame), offsets)
            }
        };
        let req = Request::Launch {
            id,
            module: child_module,
            kernel: launch.kernel.clone(),
            workgroups: launch.workgroups,
            workgroup_size: launch.workgroup_size,
            dynamic_lds: 0,
            buffers: match wire {
                Some(_) => Vec::new(),
                None => (launch.buffers.iter())
                    .map(|b| BufferIn::of(b.name, &b.bytes, b.copy_back, false))
                    .collect(),
            },
        };
        let limit = answer_limit(launch);
        // The answer to a launch still under way may come first: room for the larger.
        let room = (self.in_flight.iter().map(|f| f.sent.limit)).fold(limit, usize::max);
        self.send_request(&req, wire, room)?;
        Ok(flight::Sent {
            req,
            offsets,
            limit,
            session: self.starts,
        })
    }

    /// Waits for the answer to `sent` (a launch of `launch`) and takes its outputs into `launch`.
    fn await_launch(
        &mut self,
        sent: &flight::Sent,
        launch: &mut Launch,
    ) -> Result<(), DeviceError> {
        let room = (self.in_flight.iter().map(|f| f.sent.limit)).fold(sent.limit, usize::max);
        let answer = self.receive(&sent.req, self.opts.timeout, room, Stage::Launch)?;
        let taken = match answer {
            Answer::Done(body) => {
                let (_, buffers) = bulk::read_done(&body).expect("read once already");
                let buffers = buffers.into_iter().map(|(n, b)| (n, Out::Bytes(b)));
                take_outputs(launch, buffers.collect(), None)
            }
            Answer::Message(Response::Done { buffers, .. }) => {
                let buffers = (buffers.iter())
                    .map(|b| match b.size {
                        Some(n) if b.bytes.0.is_empty() => (b.name.as_str(), Out::File(n)),
                        _ => (b.name.as_str(), Out::Bytes(&b.bytes.0[..])),
                    })
                    .collect();
                let file = self.buffer_file.as_ref().zip(sent.offsets.as_deref());
                take_outputs(launch, buffers, file)
            }
            Answer::Message(Response::Error {
                kind,
                message,
                offset,
                bytes,
                ..
            }) => {
                let target = self.info.target;
                return Err(launch_error(target, launch, kind, &message, offset, bytes));
            }
            Answer::Message(other) => Err(DeviceError::Protocol(format!(
                "answered a launch with {}",
                kind_of(&other)
            ))),
        };
        taken.map_err(|e| self.fail(e))
    }
}

impl Drop for ExecDevice {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Device for ExecDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn load(&mut self, code_object: &[u8]) -> Result<ModuleId, DeviceError> {
        // The answers to the launches under way come first.
        self.settle();
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
        // Every launch submitted before it first, so that answers stay in order.
        self.settle();
        let sent = self.send_launch(module, launch, 0)?;
        self.await_launch(&sent, launch)
    }

    fn submit(
        &mut self,
        module: ModuleId,
        launch: Launch,
    ) -> Option<(Launch, Result<(), DeviceError>)> {
        self.submit_launch(module, launch)
    }

    fn complete(&mut self) -> Option<(Launch, Result<(), DeviceError>)> {
        self.complete_launch()
    }

    fn stderr_log(&self) -> Vec<String> {
        self.stderr.lock().map_or(Vec::new(), |l| l.lines())
    }

    fn gave_up(&self) -> Option<String> {
        self.gave_up.clone()
    }
}

#[cfg(test)]
mod tests;
