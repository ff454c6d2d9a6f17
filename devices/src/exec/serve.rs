//! The device side of the protocol: serves any [`Device`] of this process on a line reader and
//! writer (`ds-harness serve-device` serves the emulated or the HIP device on stdin/stdout).
//! A request that cannot be read is answered with an `other` error naming its line, and the
//! session goes on; end of input or `shutdown` ends it.

use super::protocol::{self, BufferOut, ErrorKind, Request, Response, PROTOCOL_VERSION};
use crate::{Backend, Buffer, Device, DeviceError, Launch, ModuleId};
use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufRead, Write};

/// What a served device says about itself beyond its [`crate::DeviceInfo`].
#[derive(Clone, Debug)]
pub struct ServeInfo {
    /// Free-text version, e.g. `ds-harness 0.1.0 emu`.
    pub version: String,
    /// True only when a GPU runs the kernels.
    pub hardware: bool,
}

/// Serves `device` until end of input or `shutdown`. Only I/O errors on `output` end it early.
pub fn serve(
    device: &mut dyn Device,
    about: &ServeInfo,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut names = Names::default();
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let req: Request = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                send(
                    &mut output,
                    &error(None, ErrorKind::Other, format!("stdin line {}: {e}", n + 1)),
                )?;
                continue;
            }
        };
        let answer = match req {
            Request::Hello { id, .. } => {
                let info = device.info();
                let mut details: BTreeMap<String, String> = info.details.iter().cloned().collect();
                details.insert("served backend".into(), info.backend.to_string());
                Response::Hello {
                    id,
                    protocol: PROTOCOL_VERSION,
                    device: info.name.clone(),
                    target: info.target.name.to_string(),
                    version: about.version.clone(),
                    hardware: about.hardware,
                    details,
                }
            }
            Request::Load { id, code_object } => match device.load(&code_object.0) {
                Ok(m) => Response::Loaded {
                    id,
                    module: m.0 as u64,
                },
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
            } => {
                if dynamic_lds != 0 {
                    error(
                        Some(id),
                        ErrorKind::Other,
                        format!("dynamic LDS ({dynamic_lds} bytes) is not supported by this server: the harness's kernels use none"),
                    )
                } else {
                    let mut l = Launch {
                        kernel,
                        workgroups,
                        workgroup_size,
                        buffers: buffers
                            .into_iter()
                            .map(|b| Buffer {
                                name: names.intern(b.name),
                                bytes: b.bytes.0,
                                copy_back: b.output,
                            })
                            .collect(),
                    };
                    match device.launch(ModuleId(module as usize), &mut l) {
                        Ok(()) => Response::Done {
                            id,
                            buffers: l
                                .buffers
                                .into_iter()
                                .filter(|b| b.copy_back)
                                .map(|b| BufferOut {
                                    name: b.name.to_string(),
                                    bytes: protocol::Bytes(b.bytes),
                                })
                                .collect(),
                        },
                        Err(e) => device_error(id, e),
                    }
                }
            }
            Request::Shutdown { id } => {
                send(&mut output, &Response::Bye { id })?;
                return Ok(());
            }
        };
        send(&mut output, &answer)?;
    }
    Ok(())
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

fn send(out: &mut impl Write, r: &Response) -> io::Result<()> {
    writeln!(out, "{}", protocol::to_line(r))?;
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

fn device_error(id: u64, e: DeviceError) -> Response {
    let kind = match e {
        DeviceError::Unsupported(_) => ErrorKind::Unsupported,
        DeviceError::Launch(_) | DeviceError::Timeout(_) => ErrorKind::Fault,
        _ => ErrorKind::Other,
    };
    error(Some(id), kind, e.to_string())
}

/// Distinct buffer names kept; names past these are all called `buffer`.
const MAX_NAMES: usize = 64;

/// Buffer names as `&'static str` (the [`Launch`] type's), each distinct name leaked once.
#[derive(Debug, Default)]
struct Names(HashSet<&'static str>);

impl Names {
    fn intern(&mut self, name: String) -> &'static str {
        if let Some(&n) = self.0.get(name.as_str()) {
            return n;
        }
        if self.0.len() >= MAX_NAMES {
            return "buffer";
        }
        let n: &'static str = Box::leak(name.into_boxed_str());
        self.0.insert(n);
        n
    }
}
