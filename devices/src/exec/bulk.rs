//! The two messages that carry a launch's buffers, `launch` and `done`, in the binary framing
//! ([`super::frame`]) written and read directly from and into the buffers: serde's path copies
//! every buffer once more (an internally tagged message is buffered whole before it is read).
//! Only what these messages hold is read here (MessagePack specification: fixmap/map 16/32,
//! fixstr/str 8/16/32, bin 8/16/32, the unsigned and non-negative signed integers, true/false,
//! fixarray/array 16/32); anything else gives `None`, and the caller reads the frame through
//! serde, which names what is wrong.

use super::frame::{HEADER_BYTES, MAGIC};
use super::protocol::{BufferIn, Bytes, Request};
use crate::Launch;

/// A MessagePack reader over a frame's message.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn be(&mut self, n: usize) -> Option<u64> {
        Some(self.take(n)?.iter().fold(0, |v, &b| v << 8 | u64::from(b)))
    }

    /// A length after a marker: fix (in the marker's low bits) or 8/16/32 bits.
    fn len(&mut self, m: u8, fix: (u8, u8), wide: [u8; 3]) -> Option<usize> {
        let n = match m {
            _ if m & !fix.1 == fix.0 => u64::from(m & fix.1),
            _ if m == wide[0] => self.be(1)?,
            _ if m == wide[1] => self.be(2)?,
            _ if m == wide[2] => self.be(4)?,
            _ => return None,
        };
        usize::try_from(n).ok()
    }

    fn map(&mut self) -> Option<usize> {
        let m = self.byte()?;
        self.len(m, (0x80, 0x0f), [0xff, 0xde, 0xdf])
    }

    fn array(&mut self) -> Option<usize> {
        let m = self.byte()?;
        self.len(m, (0x90, 0x0f), [0xff, 0xdc, 0xdd])
    }

    fn str(&mut self) -> Option<&'a str> {
        let m = self.byte()?;
        let n = self.len(m, (0xa0, 0x1f), [0xd9, 0xda, 0xdb])?;
        std::str::from_utf8(self.take(n)?).ok()
    }

    fn bin(&mut self) -> Option<&'a [u8]> {
        let n = match self.byte()? {
            0xc4 => self.be(1)?,
            0xc5 => self.be(2)?,
            0xc6 => self.be(4)?,
            _ => return None,
        };
        self.take(usize::try_from(n).ok()?)
    }

    fn uint(&mut self) -> Option<u64> {
        match self.byte()? {
            m @ 0..=0x7f => Some(u64::from(m)),
            0xcc => self.be(1),
            0xd0 => self.be(1).filter(|&v| v < 0x80),
            0xcd => self.be(2),
            0xce => self.be(4),
            0xcf => self.be(8),
            0xd1 => self.be(2).filter(|&v| v < 0x8000),
            0xd2 => self.be(4).filter(|&v| v < 0x8000_0000),
            0xd3 => self.be(8).filter(|&v| v < 1 << 63),
            _ => None,
        }
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0xc2 => Some(false),
            0xc3 => Some(true),
            _ => None,
        }
    }
}

/// A MessagePack writer into a frame.
struct Writer(Vec<u8>);

impl Writer {
    fn len(&mut self, n: usize, fix: (u8, usize), wide: [u8; 3]) {
        let out = &mut self.0;
        match n {
            _ if n <= fix.1 => out.push(fix.0 | n as u8),
            _ if n <= 0xff && wide[0] != 0 => out.extend([wide[0], n as u8]),
            _ if n <= 0xffff => {
                out.push(wide[1]);
                out.extend((n as u16).to_be_bytes());
            }
            _ => {
                out.push(wide[2]);
                out.extend((n as u32).to_be_bytes());
            }
        }
    }

    fn map(&mut self, n: usize) {
        self.len(n, (0x80, 15), [0, 0xde, 0xdf]);
    }

    fn array(&mut self, n: usize) {
        self.len(n, (0x90, 15), [0, 0xdc, 0xdd]);
    }

    fn str(&mut self, s: &str) {
        self.len(s.len(), (0xa0, 31), [0xd9, 0xda, 0xdb]);
        self.0.extend_from_slice(s.as_bytes());
    }

    /// Bin has no fix form: up to 255 bytes (none included) it is bin 8.
    fn bin(&mut self, b: &[u8]) {
        match b.len() {
            n @ 0..=0xff => self.0.extend([0xc4, n as u8]),
            n => self.len(n, (0xc4, 0), [0xc4, 0xc5, 0xc6]),
        }
        self.0.extend_from_slice(b);
    }

    fn uint(&mut self, v: u64) {
        match v {
            0..=0x7f => self.0.push(v as u8),
            _ => {
                self.0.push(0xcf);
                self.0.extend(v.to_be_bytes());
            }
        }
    }

    fn bool(&mut self, v: bool) {
        self.0.push(if v { 0xc3 } else { 0xc2 });
    }
}

/// The pattern each buffer of `launch` goes as ([`BufferIn::pattern`]: outputs only).
pub fn fills(launch: &Launch) -> Vec<Option<&[u8]>> {
    (launch.buffers.iter())
        .map(|b| BufferIn::pattern(&b.bytes, b.copy_back, true))
        .collect()
}

/// The frame of a `launch` request for `launch` (module `module`, request `id`), written from its
/// buffers: an output buffer that is one 4-byte pattern repeated (`fills[i]`, from
/// [`BufferIn::pattern`]) goes as `fill` and `size` ([`BufferIn::of`]). With `offsets` (the
/// buffer file's, [`super::shared::BufferFile::put`]) every buffer goes as its `at` and `size`
/// instead of its bytes.
pub fn launch_frame(
    id: u64,
    module: u64,
    launch: &Launch,
    fills: &[Option<&[u8]>],
    offsets: Option<&[u64]>,
) -> Vec<u8> {
    let bytes: usize = match offsets {
        Some(_) => 64 * launch.buffers.len(),
        None => launch.buffers.iter().map(|b| b.bytes.len() + 64).sum(),
    };
    let mut w = Writer(Vec::with_capacity(HEADER_BYTES + 256 + bytes));
    w.0.extend_from_slice(&MAGIC);
    w.0.extend_from_slice(&[0; 4]);
    w.map(8);
    w.str("type");
    w.str("launch");
    w.str("id");
    w.uint(id);
    w.str("module");
    w.uint(module);
    w.str("kernel");
    w.str(&launch.kernel);
    w.str("workgroups");
    w.uint(launch.workgroups.into());
    w.str("workgroup_size");
    w.uint(launch.workgroup_size.into());
    w.str("dynamic_lds");
    w.uint(0);
    w.str("buffers");
    w.array(launch.buffers.len());
    for (i, b) in launch.buffers.iter().enumerate() {
        let fill = fills[i];
        let at = offsets.map(|o| o[i]);
        w.map(3 + usize::from(fill.is_some()) + usize::from(at.is_some()));
        w.str("name");
        w.str(b.name);
        if let Some(p) = fill {
            w.str("fill");
            w.bin(p);
        }
        match (fill, at) {
            (None, None) => {
                w.str("bytes");
                w.bin(&b.bytes);
            }
            _ => {
                w.str("size");
                w.uint(b.bytes.len() as u64);
            }
        }
        if let Some(at) = at {
            w.str("at");
            w.uint(at);
        }
        w.str("output");
        w.bool(b.copy_back);
    }
    let len = u32::try_from(w.0.len() - HEADER_BYTES).expect("a launch under 4 GiB");
    w.0[4..HEADER_BYTES].copy_from_slice(&len.to_le_bytes());
    w.0
}

/// Output buffers (name, bytes), borrowed from a frame's message.
pub type Outputs<'a> = Vec<(&'a str, &'a [u8])>;

/// A `done` answer's id and output buffers, borrowed from the frame's message.
pub fn read_done(body: &[u8]) -> Option<(u64, Outputs<'_>)> {
    let mut r = Reader(body);
    let (mut id, mut buffers, mut done) = (None, None, false);
    for _ in 0..r.map()? {
        match r.str()? {
            "type" => done = r.str()? == "done",
            "id" => id = Some(r.uint()?),
            "buffers" => {
                let n = r.array()?;
                let mut v = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    let (mut name, mut bytes) = (None, None);
                    for _ in 0..r.map()? {
                        match r.str()? {
                            "name" => name = Some(r.str()?),
                            "bytes" => bytes = Some(r.bin()?),
                            _ => return None,
                        }
                    }
                    v.push((name?, bytes?));
                }
                buffers = Some(v);
            }
            _ => return None,
        }
    }
    (done && r.0.is_empty()).then_some(())?;
    Some((id?, buffers?))
}

/// A `launch` request, its buffers copied once out of the frame's message.
pub fn read_launch(body: &[u8]) -> Option<Request> {
    let mut r = Reader(body);
    let mut launch = false;
    let (mut id, mut module, mut kernel, mut buffers) = (None, None, None, None);
    let (mut workgroups, mut workgroup_size, mut dynamic_lds) = (None, None, None);
    let u32_of = |v: u64| u32::try_from(v).ok();
    for _ in 0..r.map()? {
        match r.str()? {
            "type" => launch = r.str()? == "launch",
            "id" => id = Some(r.uint()?),
            "module" => module = Some(r.uint()?),
            "kernel" => kernel = Some(r.str()?.to_string()),
            "workgroups" => workgroups = u32_of(r.uint()?),
            "workgroup_size" => workgroup_size = u32_of(r.uint()?),
            "dynamic_lds" => dynamic_lds = u32_of(r.uint()?),
            "buffers" => {
                let n = r.array()?;
                let mut v = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    let mut b = BufferIn {
                        name: String::new(),
                        bytes: Bytes::default(),
                        output: false,
                        fill: None,
                        size: None,
                        at: None,
                    };
                    let mut named = false;
                    for _ in 0..r.map()? {
                        match r.str()? {
                            "name" => (b.name, named) = (r.str()?.to_string(), true),
                            "bytes" => b.bytes = Bytes(r.bin()?.to_vec()),
                            "output" => b.output = r.bool()?,
                            "fill" => b.fill = Some(Bytes(r.bin()?.to_vec())),
                            "size" => b.size = Some(r.uint()?),
                            "at" => b.at = Some(r.uint()?),
                            _ => return None,
                        }
                    }
                    named.then_some(())?;
                    v.push(b);
                }
                buffers = Some(v);
            }
            _ => return None,
        }
    }
    (launch && r.0.is_empty()).then_some(())?;
    Some(Request::Launch {
        id: id?,
        module: module?,
        kernel: kernel?,
        workgroups: workgroups?,
        workgroup_size: workgroup_size?,
        dynamic_lds: dynamic_lds?,
        buffers: buffers?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::frame;
    use super::super::protocol::{BufferOut, Response};
    use super::*;
    use crate::Buffer;

    fn launch() -> Launch {
        Launch {
            kernel: "k".into(),
            workgroups: 2,
            workgroup_size: 32,
            buffers: vec![
                Buffer {
                    name: "in",
                    bytes: (0..=255).collect(),
                    copy_back: false,
                },
                Buffer {
                    name: "out",
                    bytes: [0xef, 0xbe, 0xad, 0xde].repeat(300),
                    copy_back: true,
                },
            ],
        }
    }

    #[test]
    fn a_launch_frame_reads_as_serde_reads_it_and_back() {
        let f = launch_frame(7, 3, &launch(), &fills(&launch()), None);
        let body = &f[HEADER_BYTES..];
        let by_serde: Request = frame::decode(body).unwrap();
        let Request::Launch { buffers, .. } = &by_serde else {
            panic!("{by_serde:?}")
        };
        assert_eq!(buffers[0].bytes.0, (0..=255).collect::<Vec<u8>>());
        assert_eq!(buffers[1].fill, Some(Bytes(vec![0xef, 0xbe, 0xad, 0xde])));
        assert_eq!(buffers[1].size, Some(1200));
        assert_eq!(read_launch(body), Some(by_serde.clone()));
        // What serde writes reads the same way here.
        let again = frame::encode(&by_serde);
        assert_eq!(read_launch(&again[HEADER_BYTES..]), Some(by_serde));
    }

    #[test]
    fn an_empty_buffer_goes_as_a_bin_of_length_zero() {
        let mut l = launch();
        l.buffers[0].bytes.clear();
        let f = launch_frame(7, 3, &l, &fills(&l), None);
        let by_serde: Request = frame::decode(&f[HEADER_BYTES..]).unwrap();
        let Request::Launch { buffers, .. } = &by_serde else {
            panic!("{by_serde:?}")
        };
        assert!(buffers[0].bytes.0.is_empty());
        assert_eq!(read_launch(&f[HEADER_BYTES..]), Some(by_serde));
    }

    #[test]
    fn a_done_frame_reads_borrowed_and_anything_else_is_left_to_serde() {
        let r = Response::Done {
            id: 4,
            buffers: vec![BufferOut {
                name: "out".into(),
                bytes: Bytes(vec![1; 70_000]),
                size: None,
            }],
        };
        let f = frame::encode(&r);
        let (id, bufs) = read_done(&f[HEADER_BYTES..]).unwrap();
        assert_eq!(
            (id, bufs.len(), bufs[0].0, bufs[0].1.len()),
            (4, 1, "out", 70_000)
        );
        let bye = frame::encode(&Response::Bye { id: 4 });
        assert_eq!(read_done(&bye[HEADER_BYTES..]), None);
        assert_eq!(read_done(&f[HEADER_BYTES..f.len() - 1]), None);
    }
}
