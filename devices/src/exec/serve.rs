//! The device side of the protocol: serves any [`Device`] of this process on a line reader and
//! writer (`ds-harness serve-device` serves the emulated or the HIP device on stdin/stdout).
//! A request that cannot be read (not UTF-8, not JSON or MessagePack, longer than
//! [`MAX_REQUEST_BYTES`]) is answered with an `other` error naming it, and the session goes on
//! (but for bytes that are no frame in the binary framing: the stream cannot be followed past
//! them); end of input or `shutdown` ends it. A hello that offers the binary framing ([`frame`])
//! gets it. A launch is checked against its own buffers and the ceilings below before
//! the device allocates anything for it (docs/device-protocol.md, "Limits").

use super::bulk;
use super::frame::{self, Frame, Framing};
use super::protocol::{self, BufferIn, BufferOut, ErrorKind, Request, Response, PROTOCOL_VERSION};
use crate::{Backend, Buffer, Device, DeviceError, Launch, ModuleId};
use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufRead, Write};

/// Bytes of one request line at most (a code object of the whole default run is a few MB).
pub const MAX_REQUEST_BYTES: usize = 256 << 20;
/// Workgroups of one launch at most (the harness launches at most 1024).
pub const MAX_WORKGROUPS: u32 = 1 << 16;
/// Buffers of one launch at most.
pub const MAX_BUFFERS: usize = 64;
/// Bytes of a buffer's name at most.
pub const MAX_NAME_BYTES: usize = 256;

/// What a served device says about itself beyond its [`crate::DeviceInfo`].
#[derive(Clone, Debug)]
pub struct ServeInfo {
    /// Free-text version, e.g. `ds-harness 0.1.0 emu`.
    pub version: String,
    /// True only when a GPU runs the kernels.
    pub hardware: bool,
}

/// What the next request was, as read.
enum Incoming {
    Request(Request),
    /// A request that could not be read: the `other` error's message (the session goes on
    /// when `resync`, ends when the stream cannot be followed past it).
    Unreadable {
        why: String,
        resync: bool,
    },
    End,
}

/// Reads request `n` in `framing`.
fn next_request(input: &mut impl BufRead, framing: Framing, n: usize) -> io::Result<Incoming> {
    let unreadable = |why: String, resync| Incoming::Unreadable { why, resync };
    Ok(match framing {
        Framing::JsonLines => match read_line(input, MAX_REQUEST_BYTES)? {
            None => Incoming::End,
            Some(Err(why)) => unreadable(format!("stdin line {n}: {why}"), true),
            Some(Ok(line)) if line.trim().is_empty() => Incoming::Unreadable {
                why: String::new(),
                resync: true,
            },
            Some(Ok(line)) => match serde_json::from_str(&line) {
                Ok(r) => Incoming::Request(r),
                Err(e) => unreadable(format!("stdin line {n}: {e}"), true),
            },
        },
        Framing::Msgpack => match frame::read(input, MAX_REQUEST_BYTES)? {
            Frame::End => Incoming::End,
            // A launch is read straight into its buffers; anything else through serde.
            Frame::Body(body) => match bulk::read_launch(&body)
                .ok_or(())
                .or_else(|()| frame::decode(&body))
            {
                Ok(r) => Incoming::Request(r),
                Err(e) => unreadable(format!("frame {n} is not a request: {e}"), true),
            },
            Frame::TooLong { bytes } => unreadable(
                format!(
                    "frame {n} holds {bytes} bytes, more than the {MAX_REQUEST_BYTES} a request \
                     may have; skipped"
                ),
                true,
            ),
            Frame::Bad { why, head } => {
                unreadable(format!("{why}: `{head}`; the session ends"), false)
            }
        },
    })
}

/// Serves `device` until end of input or `shutdown`. Only I/O errors on `output` end it early.
/// The session starts in JSON lines; a hello offering the binary framing switches both
/// directions to it after the hello's answer.
pub fn serve(
    device: &mut dyn Device,
    about: &ServeInfo,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    keep_freed_memory();
    let mut names = Names::default();
    // Each loaded kernel's buffer arguments (its metadata's `.args`), by module and name.
    let mut args: BTreeMap<(u64, String), Vec<String>> = BTreeMap::new();
    let mut input = input;
    let mut framing = Framing::JsonLines;
    // The buffer file the hello offered, once opened.
    let mut file: Option<super::shared::Opened> = None;
    let mut n = 0;
    loop {
        n += 1;
        let req = match next_request(&mut input, framing, n)? {
            Incoming::End => return Ok(()),
            Incoming::Unreadable { why, .. } if why.is_empty() => continue,
            Incoming::Unreadable { why, resync } => {
                send(&mut output, framing, &error(None, ErrorKind::Other, why))?;
                if resync {
                    continue;
                }
                return Ok(());
            }
            Incoming::Request(r) => r,
        };
        let mut next = framing;
        let answer = match req {
            Request::Hello {
                id,
                framings,
                buffer_file,
                buffer_token,
                ..
            } => {
                let info = device.info();
                let mut details: BTreeMap<String, String> = info.details.iter().cloned().collect();
                details.insert("served backend".into(), info.backend.to_string());
                let binary = framings.iter().any(|f| f == frame::MSGPACK);
                if binary {
                    next = Framing::Msgpack;
                }
                // The buffer file goes with the binary framing; one that does not open (another
                // machine's path, say) is declined, and buffers travel on the pipes.
                file = buffer_file
                    .filter(|_| binary)
                    .and_then(|path| super::shared::Opened::open(&path, buffer_token.as_deref()?));
                Response::Hello {
                    id,
                    protocol: PROTOCOL_VERSION,
                    device: info.name.clone(),
                    target: info.target.name.to_string(),
                    version: about.version.clone(),
                    hardware: about.hardware,
                    details,
                    framing: binary.then(|| frame::MSGPACK.to_string()),
                    buffer_file: file.is_some(),
                }
            }
            Request::Load { id, code_object } => match device.load(&code_object.0) {
                Ok(m) => {
                    remember_args(&mut args, m.0 as u64, &code_object.0);
                    Response::Loaded {
                        id,
                        module: m.0 as u64,
                    }
                }
                Err(e) => device_error(id, e),
            },
            Request::Launch {
                id,
                module,
                kernel,
                workgroups,
                workgroup_size,
                dynamic_lds,
                buffers,
            } => match check_launch(workgroups, dynamic_lds, &buffers)
                .and_then(|()| check_args(args.get(&(module, kernel.clone())), &kernel, &buffers))
                .and_then(|()| in_file(&buffers, file.as_ref()))
            {
                Err(why) => error(Some(id), ErrorKind::Other, why),
                Ok(read) => {
                    let wanted: Vec<(String, bool, Option<u64>)> = (buffers.iter())
                        .map(|b| (b.name.clone(), b.output, b.at))
                        .collect();
                    let mut l = Launch {
                        kernel,
                        workgroups,
                        workgroup_size,
                        buffers: (buffers.into_iter().zip(read))
                            .map(|(b, read)| Buffer {
                                name: names.intern(&b.name),
                                copy_back: b.output,
                                bytes: read.unwrap_or_else(|| b.into_bytes()),
                            })
                            .collect(),
                    };
                    match device.launch(ModuleId(module as usize), &mut l) {
                        // Each output buffer goes back under the name the request gave it.
                        Ok(()) => done(id, l, wanted, file.as_ref()),
                        Err(e) => device_error(id, e),
                    }
                }
            },
            Request::Shutdown { id } => {
                send(&mut output, framing, &Response::Bye { id })?;
                return Ok(());
            }
        };
        send(&mut output, framing, &answer)?;
        framing = next;
    }
}

/// Keeps freed buffers for the next launch: glibc gives back every large block at once (and maps
/// it again, zeroed, for the next), which costs a served launch's buffers more system time than
/// the copies themselves; one arena for the device's threads, so that what one frees serves the
/// others (mallopt(3)). A run dropped that last setting (its threads waited on the one arena's
/// lock); here it costs nothing measurable: `serve-device --backend emu` without it ran a wave32
/// x1000 exec run 1.01x as fast (5 alternating runs, medians).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only sets allocator parameters.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
        });
    }
}

/// The hello a served device of this process gives: hardware only for a GPU through HIP that is
/// not the stand-in runtime.
pub fn serve_info(device: &dyn Device) -> ServeInfo {
    let info = device.info();
    let stand_in = info
        .details
        .iter()
        .any(|(k, v)| k == "provenance" && v.contains("stand-in"));
    ServeInfo {
        version: format!(
            "ds-harness {} serve-device --backend {}",
            env!("CARGO_PKG_VERSION"),
            info.backend
        ),
        hardware: info.backend == Backend::Hip && !stand_in,
    }
}

fn send(out: &mut impl Write, framing: Framing, r: &Response) -> io::Result<()> {
    out.write_all(&framing.encode(r))?;
    out.flush()
}

fn error(id: Option<u64>, kind: ErrorKind, message: String) -> Response {
    Response::Error {
        id,
        kind,
        message,
        offset: None,
        bytes: None,
    }
}

/// The answer to a failed request: `unsupported` for an instruction the device lacks, `fault`
/// for a kernel that faulted or ran out of time, `other` for anything else (a launch naming a
/// module, kernel or workgroup size the device does not have is a bad request: `other`).
fn device_error(id: u64, e: DeviceError) -> Response {
    let kind = match e {
        DeviceError::Unsupported(_) => ErrorKind::Unsupported,
        DeviceError::Launch(_) | DeviceError::Timeout(_) => ErrorKind::Fault,
        _ => ErrorKind::Other,
    };
    error(Some(id), kind, e.to_string())
}

/// Checks a launch against the ceilings and its own buffers before anything is allocated for
/// it: 1 to [`MAX_WORKGROUPS`] workgroups, at most [`MAX_BUFFERS`] buffers with names of at most
/// [`MAX_NAME_BYTES`], and every buffer a whole number of per-workgroup records (its bytes a
/// non-zero multiple of the workgroups: the harness's kernels give each workgroup one case).
fn check_launch(workgroups: u32, dynamic_lds: u32, buffers: &[BufferIn]) -> Result<(), String> {
    if dynamic_lds != 0 {
        return Err(format!(
            "dynamic LDS ({dynamic_lds} bytes) is not supported by this server: the harness's \
             kernels use none"
        ));
    }
    if workgroups == 0 || workgroups > MAX_WORKGROUPS {
        return Err(format!(
            "{workgroups} workgroups: a launch has 1 to {MAX_WORKGROUPS} (docs/device-protocol.md, \
             Limits)"
        ));
    }
    if buffers.len() > MAX_BUFFERS {
        return Err(format!(
            "{} buffers: a launch has at most {MAX_BUFFERS}",
            buffers.len()
        ));
    }
    for (i, b) in buffers.iter().enumerate() {
        if b.name.len() > MAX_NAME_BYTES {
            return Err(format!(
                "buffer {i}'s name is {} bytes long; at most {MAX_NAME_BYTES}",
                b.name.len()
            ));
        }
        if let Some(fill) = &b.fill {
            if fill.0.is_empty() || fill.0.len() > protocol::MAX_FILL_BYTES || b.size.is_none() {
                return Err(format!(
                    "buffer {i} (`{}`) has a fill of {} bytes and {}: a fill is 1 to {} bytes \
                     with a size",
                    b.name,
                    fill.0.len(),
                    b.size.map_or("no size".into(), |s| format!("size {s}")),
                    protocol::MAX_FILL_BYTES
                ));
            }
        }
        let len = b.len();
        if len > MAX_REQUEST_BYTES as u64 {
            return Err(format!(
                "buffer {i} (`{}`) holds {len} bytes; a buffer holds at most {MAX_REQUEST_BYTES}",
                b.name
            ));
        }
        let len = len as usize;
        if len == 0 || !len.is_multiple_of(workgroups as usize) {
            return Err(format!(
                "buffer {i} (`{}`) holds {len} bytes, which is not {workgroups} workgroups' \
                 records: each buffer holds the same number of bytes for every workgroup",
                b.name
            ));
        }
    }
    Ok(())
}

/// The contents of the launch's buffers that are in the buffer file (`None` for the others),
/// read from it; why not, when a buffer names the file without one, or the file is short.
fn in_file(
    buffers: &[BufferIn],
    file: Option<&super::shared::Opened>,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let in_file: u64 = (buffers.iter().filter(|b| b.at.is_some()))
        .map(BufferIn::len)
        .sum();
    if in_file > MAX_REQUEST_BYTES as u64 {
        return Err(format!(
            "the buffers in the buffer file hold {in_file} bytes; a launch's hold at most \
             {MAX_REQUEST_BYTES}"
        ));
    }
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let Some(at) = b.at else { return Ok(None) };
            let Some(file) = file else {
                return Err(format!(
                    "buffer {i} (`{}`) is in the buffer file (`at`), and this session has none \
                     (docs/device-protocol.md, \"Buffer file\")",
                    b.name
                ));
            };
            if b.fill.is_some() {
                return Ok(None);
            }
            let n = b.len() as usize;
            let bytes = file.read(at, n).map_err(|e| {
                format!(
                    "buffer {i} (`{}`): cannot read its {n} bytes at {at} of the buffer file: {e}",
                    b.name
                )
            })?;
            Ok(Some(bytes))
        })
        .collect()
}

/// The answer to a launch that ran: its output buffers (in the buffer file, for those the launch
/// put there), each under the name the request gave it.
fn done(
    id: u64,
    l: Launch,
    wanted: Vec<(String, bool, Option<u64>)>,
    file: Option<&super::shared::Opened>,
) -> Response {
    let mut buffers = Vec::new();
    for (b, (name, output, at)) in l.buffers.into_iter().zip(wanted) {
        match (output, at, file) {
            (false, _, _) => {}
            (true, Some(at), Some(file)) => {
                if let Err(e) = file.write(at, &b.bytes) {
                    let why = format!("cannot write output `{name}` to the buffer file: {e}");
                    return error(Some(id), ErrorKind::Other, why);
                }
                buffers.push(BufferOut {
                    name,
                    bytes: protocol::Bytes::default(),
                    size: Some(b.bytes.len() as u64),
                });
            }
            (true, _, _) => buffers.push(BufferOut {
                name,
                bytes: protocol::Bytes(b.bytes),
                size: None,
            }),
        }
    }
    Response::Done { id, buffers }
}

/// Records the buffer arguments of each kernel of a loaded code object (nothing when its
/// metadata cannot be read: the device loaded it, and its launches are then not checked here).
fn remember_args(args: &mut BTreeMap<(u64, String), Vec<String>>, module: u64, bytes: &[u8]) {
    if let Ok(co) = ds_kernels::code_object::read(bytes) {
        for k in co.metadata.kernels {
            let names = (k.args.iter().enumerate())
                .map(|(i, a)| a.name.clone().unwrap_or_else(|| format!("argument {i}")))
                .collect();
            args.insert((module, k.name), names);
        }
    }
}

/// A launch gives a kernel as many buffers as its metadata has arguments (one 64-bit address
/// each, in kernarg order): fewer is a protocol error naming the missing ones, never a launch
/// whose kernel reads addresses nobody gave it (and faults).
fn check_args(
    want: Option<&Vec<String>>,
    kernel: &str,
    buffers: &[BufferIn],
) -> Result<(), String> {
    let Some(want) = want.filter(|w| w.len() != buffers.len()) else {
        return Ok(());
    };
    let missing: Vec<&str> = want
        .iter()
        .filter(|w| !buffers.iter().any(|b| &b.name == *w))
        .map(String::as_str)
        .collect();
    Err(format!(
        "protocol error: the launch of `{kernel}` has {} buffers, its kernel takes {} ({}){} \
         (docs/device-protocol.md, launch: one buffer per kernel argument, in kernarg order)",
        buffers.len(),
        want.len(),
        want.join(", "),
        if missing.is_empty() {
            String::new()
        } else {
            format!("; missing: {}", missing.join(", "))
        }
    ))
}

/// One line of `input` (without its newline): `None` at the end, `Some(Err(why))` for a line
/// that is not UTF-8 or longer than `max` bytes (whose bytes past `max` are skipped unread into
/// memory).
fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Option<Result<String, String>>> {
    let mut line = Vec::new();
    let mut bytes = 0usize;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            if bytes == 0 {
                return Ok(None);
            }
            break;
        }
        let (part, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let room = (max + 1).saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        bytes = bytes.saturating_add(part.len() + usize::from(found));
        let used = part.len() + usize::from(found);
        input.consume(used);
        if found {
            break;
        }
    }
    if line.len() > max {
        return Ok(Some(Err(format!(
            "the line is longer than {max} bytes, the most a request may be; skipped"
        ))));
    }
    Ok(Some(String::from_utf8(line).map_err(|e| {
        format!(
            "not UTF-8 (byte {} is not part of a UTF-8 character); protocol lines are UTF-8 JSON",
            e.utf8_error().valid_up_to()
        )
    })))
}

/// Distinct buffer names kept as `&'static str`; past these a buffer is called `buffer` inside
/// the device (its messages), and still answered under its own name.
const MAX_NAMES: usize = 64;

/// Buffer names as `&'static str` (the [`Launch`] type's), each distinct name leaked once.
#[derive(Debug, Default)]
struct Names(HashSet<&'static str>);

impl Names {
    fn intern(&mut self, name: &str) -> &'static str {
        if let Some(&n) = self.0.get(name) {
            return n;
        }
        if self.0.len() >= MAX_NAMES {
            return "buffer";
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        self.0.insert(n);
        n
    }
}
