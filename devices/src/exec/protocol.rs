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
        if s.is_human_readable() {
            s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
        } else {
            s.serialize_bytes(&self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        d.deserialize_any(BytesVisitor)
    }
}

/// Reads [`Bytes`] as a base64 string (JSON lines) or as raw binary (the binary framing).
struct BytesVisitor;

impl<'de> serde::de::Visitor<'de> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("base64 text or binary data")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Bytes, E> {
        base64::engine::general_purpose::STANDARD
            .decode(s.as_bytes())
            .map(Bytes)
            .map_err(|e| E::custom(format!("not base64: {e}")))
    }

    fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(b.to_vec()))
    }

    fn visit_byte_buf<E: serde::de::Error>(self, b: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(b))
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
        /// Framings the harness can speak after hello besides JSON lines (`msgpack`: the binary
        /// framing); the device picks one in its answer, or none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        framings: Vec<String>,
        /// Offered with the binary framing: a file (in a directory only this user may enter) that
        /// launch buffers may travel through instead of the pipes, if the device takes it in its
        /// answer (docs/device-protocol.md, "Buffer file").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        buffer_file: Option<String>,
        /// With `buffer_file`: the file's first bytes, as hex; a device takes the file only when
        /// it reads them there (so a file of the same name elsewhere is never taken for it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        buffer_token: Option<String>,
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
    /// Its contents before the launch (output buffers too: they hold a poison pattern); empty
    /// when `fill` gives them.
    #[serde(default)]
    pub bytes: Bytes,
    /// The kernel writes it: the device sends it back.
    pub output: bool,
    /// In the binary framing: the contents are `size` bytes of this pattern repeated (its last
    /// copy cut short), instead of `bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<Bytes>,
    /// The length with `fill` or `at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// With the buffer file: the buffer's offset in it. Without `fill`, its `size` bytes there are
    /// its contents; an output buffer's contents after the launch go there too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
}

/// The most bytes a `fill` pattern may have.
pub const MAX_FILL_BYTES: usize = 16;

impl BufferIn {
    /// `bytes` as a launch sends them: in the binary framing an output buffer that is one
    /// pattern of up to 4 bytes repeated (the poison the harness fills outputs with) goes as the
    /// pattern and its size.
    pub fn of(name: &str, bytes: &[u8], output: bool, binary: bool) -> BufferIn {
        match BufferIn::pattern(bytes, output, binary) {
            Some(p) => BufferIn {
                name: name.to_string(),
                bytes: Bytes::default(),
                output,
                fill: Some(Bytes(p.to_vec())),
                size: Some(bytes.len() as u64),
                at: None,
            },
            None => BufferIn {
                name: name.to_string(),
                bytes: Bytes(bytes.to_vec()),
                output,
                fill: None,
                size: None,
                at: None,
            },
        }
    }

    /// The 4 bytes `bytes` repeats, for an output buffer in the binary framing (see
    /// [`BufferIn::of`]).
    pub fn pattern(bytes: &[u8], output: bool, binary: bool) -> Option<&[u8]> {
        // A repetition of its first 4 bytes is itself shifted by 4: one comparison.
        let p = bytes.get(..4).filter(|_| binary && output)?;
        (bytes[4..] == bytes[..bytes.len() - 4]).then_some(p)
    }

    /// The buffer's length.
    pub fn len(&self) -> u64 {
        match (&self.fill, self.at, self.size) {
            (Some(_), _, Some(n)) | (None, Some(_), Some(n)) => n,
            _ => self.bytes.0.len() as u64,
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its contents (a `fill` written out).
    pub fn into_bytes(self) -> Vec<u8> {
        match (self.fill, self.size) {
            (Some(p), Some(n)) if !p.0.is_empty() => {
                let n = n as usize;
                let mut v = Vec::with_capacity(n);
                v.extend_from_slice(&p.0[..p.0.len().min(n)]);
                while v.len() < n {
                    v.extend_from_within(..v.len().min(n - v.len()));
                }
                v
            }
            _ => self.bytes.0,
        }
    }
}

/// One output buffer after a launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferOut {
    /// The buffer's name, as in the launch.
    pub name: String,
    /// Its contents after the kernel finished: exactly as many bytes as were sent (none with
    /// `size`).
    #[serde(default)]
    pub bytes: Bytes,
    /// With the buffer file: the contents are this many bytes (as many as were sent) in the file
    /// at the launch buffer's `at`, written there before this answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
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
        /// The framing of every later message, one of the hello's `framings`; none: JSON lines.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        framing: Option<String>,
        /// The device opened the hello's `buffer_file` and takes launch buffers through it (only
        /// with the binary framing).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        buffer_file: bool,
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

/// What a message's frame is about to hold (its binary data, and room for the rest), so that it
/// is written without growing.
pub trait SizeHint {
    /// Bytes of binary data the message carries.
    fn binary_bytes(&self) -> usize;
}

impl SizeHint for Request {
    fn binary_bytes(&self) -> usize {
        match self {
            Request::Load { code_object, .. } => code_object.0.len(),
            Request::Launch { buffers, .. } => buffers
                .iter()
                .map(|b| b.bytes.0.len() + b.name.len() + 64)
                .sum(),
            Request::Hello { .. } | Request::Shutdown { .. } => 0,
        }
    }
}

impl SizeHint for Response {
    fn binary_bytes(&self) -> usize {
        match self {
            Response::Done { buffers, .. } => buffers
                .iter()
                .map(|b| b.bytes.0.len() + b.name.len() + 64)
                .sum(),
            Response::Error { message, .. } => message.len(),
            _ => 0,
        }
    }
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
