//! The device protocol's messages (version [`PROTOCOL_VERSION`]), as `docs/device-protocol.md`
//! describes them: one JSON object per line on the device's stdin (requests) and stdout
//! (responses), every object tagged by its `"type"`, binary data as standard base64 with padding.
//! Both ends of the protocol use these types: the exec device (the harness side) and
//! `ds-harness serve-device` (the device side).

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// The protocol version this harness speaks. A device answers `hello` with the version it speaks;
/// a different one is refused, in words.
pub const PROTOCOL_VERSION: u32 = 1;

/// Binary data, carried as a base64 string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({} bytes)", self.0.len())
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s.as_bytes())
            .map(Bytes)
            .map_err(|e| serde::de::Error::custom(format!("not base64: {e}")))
    }
}

/// What the harness asks of a device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// The first message: the harness's protocol version. Answered by [`Response::Hello`].
    Hello {
        id: u64,
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The harness's name and version, free text.
        harness: String,
    },
    /// Load a code object (an HSA ELF). Answered by [`Response::Loaded`].
    Load {
        id: u64,
        /// The whole ELF file.
        code_object: Bytes,
    },
    /// Run one kernel to completion. Answered by [`Response::Done`] or [`Response::Error`].
    Launch {
        id: u64,
        /// A module number from [`Response::Loaded`].
        module: u64,
        /// The kernel's symbol name (its descriptor is `<kernel>.kd`).
        kernel: String,
        /// Workgroups in the grid (x dimension).
        workgroups: u32,
        /// Work-items per workgroup (x dimension).
        workgroup_size: u32,
        /// Bytes of dynamic LDS on top of the kernel's fixed allocation (0 for this harness's
        /// kernels).
        dynamic_lds: u32,
        /// The kernarg buffers in kernarg order: the kernarg segment holds one 64-bit address per
        /// buffer and nothing else.
        buffers: Vec<BufferIn>,
    },
    /// End the session. Answered by [`Response::Bye`]; then the device exits with status 0.
    Shutdown { id: u64 },
}

impl Request {
    /// The request's id.
    pub fn id(&self) -> u64 {
        match *self {
            Request::Hello { id, .. }
            | Request::Load { id, .. }
            | Request::Launch { id, .. }
            | Request::Shutdown { id } => id,
        }
    }
}

/// One kernarg buffer of a launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferIn {
    /// What the buffer holds (for messages).
    pub name: String,
    /// Its contents before the launch (output buffers too: they hold a poison pattern).
    pub bytes: Bytes,
    /// The kernel writes it: the device sends it back.
    pub output: bool,
}

/// One output buffer after a launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferOut {
    /// The buffer's name, as in the launch.
    pub name: String,
    /// Its contents after the kernel finished: exactly as many bytes as were sent.
    pub bytes: Bytes,
}

/// What a device answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// Who the device is.
    Hello {
        id: u64,
        /// The protocol version the device speaks.
        protocol: u32,
        /// The device's name, e.g. "my-emulator (RDNA3)" or a GPU's marketing name.
        device: String,
        /// The target whose code objects it runs, e.g. the gfx arch name.
        target: String,
        /// Free-text version of the emulator or runtime.
        version: String,
        /// True only when a real GPU runs the kernels (recordings go under the target's name
        /// only then).
        #[serde(default)]
        hardware: bool,
        /// Further provenance, key -> value (runtime, driver, host...).
        #[serde(default)]
        details: BTreeMap<String, String>,
    },
    /// A code object was loaded.
    Loaded {
        id: u64,
        /// The number launches name it by.
        module: u64,
    },
    /// A launch finished: its output buffers, in kernarg order.
    Done { id: u64, buffers: Vec<BufferOut> },
    /// A request could not be carried out.
    Error {
        /// The request's id; null when the request could not even be read.
        id: Option<u64>,
        /// What went wrong.
        kind: ErrorKind,
        /// In words.
        message: String,
        /// `unsupported`: byte offset of the instruction from the kernel's entry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
        /// `unsupported`: the instruction's bytes, as hex (e.g. `"d8d80000 10000004"`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<String>,
    },
    /// The answer to `shutdown`.
    Bye { id: u64 },
}

impl Response {
    /// The id of the request this answers (none for an error about an unreadable request).
    pub fn id(&self) -> Option<u64> {
        match *self {
            Response::Hello { id, .. }
            | Response::Loaded { id, .. }
            | Response::Done { id, .. }
            | Response::Bye { id } => Some(id),
            Response::Error { id, .. } => id,
        }
    }
}

/// The kind of an error response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The device does not implement an instruction of the kernel (`offset` and `bytes` say
    /// which). Counted apart from failures with `--allow-unsupported`.
    Unsupported,
    /// The kernel faulted (bad memory access, illegal instruction...).
    Fault,
    /// Anything else (a malformed request, an unknown module...).
    Other,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Fault => "fault",
            ErrorKind::Other => "other",
        })
    }
}

/// One message as one line (no newline inside; the caller adds it).
pub fn to_line<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("protocol messages always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_travel_as_base64() {
        let r = Request::Load {
            id: 2,
            code_object: Bytes(b"\x7fELF".to_vec()),
        };
        let line = to_line(&r);
        assert_eq!(line, r#"{"type":"load","id":2,"code_object":"f0VMRg=="}"#);
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), r);
    }

    #[test]
    fn an_unsupported_error_names_offset_and_bytes() {
        let line = r#"{"type":"error","id":7,"kind":"unsupported","message":"no","offset":180,"bytes":"d8d80000 10000004"}"#;
        let r: Response = serde_json::from_str(line).unwrap();
        assert_eq!(r.id(), Some(7));
        assert!(matches!(
            r,
            Response::Error {
                kind: ErrorKind::Unsupported,
                offset: Some(180),
                ..
            }
        ));
    }

    #[test]
    fn bad_base64_is_refused_in_words() {
        let e = serde_json::from_str::<Request>(r#"{"type":"load","id":1,"code_object":"!!"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("not base64"), "{e}");
    }
}
