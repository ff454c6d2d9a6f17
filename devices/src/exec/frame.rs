//! The device protocol's binary framing (docs/device-protocol.md, "Binary framing"), which the
//! two ends may agree on in `hello` instead of JSON lines: every later message is [`MAGIC`], the
//! length of the rest as a little-endian u32, and the message as a MessagePack map with the same
//! fields as its JSON line (MessagePack specification, "map format family"; binary data as the
//! `bin` family instead of base64 text, see [`super::protocol::Bytes`]). The magic makes stray
//! output nameable: bytes that do not start with it are reported, quoted, never taken as a length.

use super::protocol::SizeHint;
use super::text;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{self, BufRead, Read};

/// Every frame's first four bytes.
pub const MAGIC: [u8; 4] = *b"DSHM";
/// The framing's name in `hello` (`framings` offered by the harness, `framing` chosen by the
/// device).
pub const MSGPACK: &str = "msgpack";
/// Bytes before a frame's message: the magic and the length.
pub const HEADER_BYTES: usize = 8;
/// Bytes of a bad frame's start quoted in a message.
const HEAD_BYTES: usize = 120;

/// How messages travel after `hello`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// One JSON object per line, binary data as base64 (what every device speaks).
    JsonLines,
    /// [`MAGIC`], a length, a MessagePack map.
    Msgpack,
}

impl Framing {
    /// The name `hello` uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Framing::JsonLines => "json",
            Framing::Msgpack => MSGPACK,
        }
    }

    /// `message` as it goes on the wire in this framing (a JSON line with its newline, or a frame).
    pub fn encode<T: Serialize + SizeHint>(self, message: &T) -> Vec<u8> {
        match self {
            Framing::JsonLines => {
                let mut line = super::protocol::to_line(message).into_bytes();
                line.push(b'\n');
                line
            }
            Framing::Msgpack => encode(message),
        }
    }
}

/// `message` as one frame.
pub fn encode<T: Serialize + SizeHint>(message: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + 1024 + message.binary_bytes());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[0; 4]);
    rmp_serde::encode::write_named(&mut out, message).expect("protocol messages always serialise");
    let len = u32::try_from(out.len() - HEADER_BYTES).expect("a message under 4 GiB");
    out[4..HEADER_BYTES].copy_from_slice(&len.to_le_bytes());
    out
}

/// A frame's message (the bytes after its header).
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    rmp_serde::from_slice(body).map_err(|e| e.to_string())
}

/// What reading one frame gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A frame's message.
    Body(Vec<u8>),
    /// The input ended before a frame began.
    End,
    /// A frame whose message is longer than the limit (its body is skipped unread into memory).
    TooLong { bytes: u64 },
    /// Bytes that are no frame (they do not start with [`MAGIC`]), or a frame cut short: its
    /// first bytes, printable. The stream cannot be followed past it.
    Bad { why: &'static str, head: String },
}

/// Reads one frame of at most `max` bytes of message from `input`.
pub fn read(input: &mut impl BufRead, max: usize) -> io::Result<Frame> {
    let mut header = [0u8; HEADER_BYTES];
    let mut got = 0;
    while got < HEADER_BYTES {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            if got == 0 {
                return Ok(Frame::End);
            }
            return Ok(bad(
                "the input ends inside a frame's header",
                &header[..got],
                input,
            ));
        }
        let n = buf.len().min(HEADER_BYTES - got);
        header[got..got + n].copy_from_slice(&buf[..n]);
        input.consume(n);
        got += n;
        if header[..got.min(4)] != MAGIC[..got.min(4)] {
            return Ok(bad(
                "bytes that are not a frame (no DSHM)",
                &header[..got],
                input,
            ));
        }
    }
    let len = u32::from_le_bytes(header[4..].try_into().expect("4 bytes")) as u64;
    if len > max as u64 {
        io::copy(&mut input.take(len), &mut io::sink())?;
        return Ok(Frame::TooLong { bytes: len });
    }
    // `len` is within the limit: the body is read into room made for it once.
    let mut body = Vec::with_capacity(len as usize);
    let read = input.take(len).read_to_end(&mut body)?;
    if (read as u64) < len {
        return Ok(bad("the input ends inside a frame", &body, input));
    }
    Ok(Frame::Body(body))
}

/// A bad frame: its first bytes (those read and what is buffered after them), printable.
fn bad(why: &'static str, read: &[u8], input: &mut impl BufRead) -> Frame {
    let mut head = read.to_vec();
    if let Ok(more) = input.fill_buf() {
        head.extend_from_slice(&more[..more.len().min(HEAD_BYTES)]);
    }
    head.truncate(HEAD_BYTES);
    Frame::Bad {
        why,
        head: text::printable(&String::from_utf8_lossy(&head)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{BufferOut, Bytes, Response};
    use super::*;

    #[test]
    fn a_frame_carries_binary_as_bin_and_reads_back() {
        let r = Response::Done {
            id: 9,
            buffers: vec![BufferOut {
                name: "lds_out".into(),
                bytes: Bytes(vec![0, 1, 0xff, b'\n']),
                size: None,
            }],
        };
        let f = encode(&r);
        assert_eq!(f[..4], MAGIC);
        assert_eq!(
            u32::from_le_bytes(f[4..8].try_into().unwrap()) as usize,
            f.len() - 8
        );
        // The bytes themselves, as MessagePack bin 8 (0xc4, length 4): no base64.
        assert!(f.windows(6).any(|w| w == [0xc4, 4, 0, 1, 0xff, b'\n']));
        let mut two = f.clone();
        two.extend_from_slice(&f);
        let mut input = &two[..];
        for _ in 0..2 {
            let Frame::Body(body) = read(&mut input, 1 << 20).unwrap() else {
                panic!("a frame")
            };
            assert_eq!(decode::<Response>(&body).unwrap(), r);
        }
        assert_eq!(read(&mut input, 1 << 20).unwrap(), Frame::End);
    }

    #[test]
    fn stray_text_a_cut_frame_and_a_long_one_are_named() {
        let mut input: &[u8] = b"debug: x = 3\n";
        let Frame::Bad { why, head } = read(&mut input, 100).unwrap() else {
            panic!()
        };
        assert!(why.contains("not a frame"), "{why}");
        assert!(head.starts_with("debug: x = 3"), "{head}");
        let f = encode(&Response::Bye { id: 1 });
        let mut cut = &f[..f.len() - 1];
        assert!(matches!(read(&mut cut, 100).unwrap(), Frame::Bad { .. }));
        let mut long = &f[..];
        assert_eq!(
            read(&mut long, 2).unwrap(),
            Frame::TooLong {
                bytes: (f.len() - 8) as u64
            }
        );
        assert!(long.is_empty(), "the long frame's body is skipped");
    }
}
