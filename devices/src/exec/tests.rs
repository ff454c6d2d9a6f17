//! The binary framing end to end on both sides of the protocol: `serve` switching to frames after
//! a hello that offers them (and staying in JSON lines otherwise) and answering a launch sent as
//! a frame with the very bytes the device gives in process; a device that picks a framing it was
//! not offered, or writes bytes that are no frame, refused in words.

use super::frame::{self, Frame, Framing, MSGPACK};
use super::protocol::{BufferIn, Request, Response};
use super::{bulk, serve, ExecDevice, ExecOptions};
use crate::emu::EmuDevice;
use crate::{Device, DeviceError, Launch};
use ds_isa::ds::DsOp;
use ds_isa::target::DEFAULT;
use ds_kernels::generator::generate_for;
use ds_reference::wave::{Case, FpMode, Lds, Variant, Wave, WaveSize};
use std::io::BufRead;

fn variant() -> Variant {
    Variant {
        op: DsOp::AddRtnU32,
        offset0: 0,
        offset1: 4,
        lds_size: 256,
        mode: FpMode::default(),
        wave: WaveSize::Wave32,
        regs: None,
        acc: false,
    }
}

/// A code object of one kernel and a launch of it over 3 cases.
fn kernel_and_launch() -> (Vec<u8>, Launch) {
    let v = variant();
    let k = generate_for(DEFAULT, &v).unwrap();
    let cases: Vec<Case> = (0..3)
        .map(|c| {
            let mut lds = Lds::zeroed(v.lds_size);
            lds.set_word(8, 100 * c);
            let mut wave = Wave::new(v.wave);
            for (l, lane) in wave.lanes.iter_mut().enumerate() {
                lane.addr = 4 * (l as u32 % 8);
                lane.data0[0] = l as u32 + c;
            }
            Case { lds, wave }
        })
        .collect();
    let launch = ds_kernels::abi::pack(&v, &cases).unwrap();
    (ds_kernels::code_object::write(DEFAULT, &[k]), launch)
}

fn hello(framings: &[&str]) -> Vec<u8> {
    Framing::JsonLines.encode(&Request::Hello {
        id: 1,
        protocol: super::PROTOCOL_VERSION,
        harness: "test".into(),
        framings: framings.iter().map(|f| f.to_string()).collect(),
        buffer_file: None,
        buffer_token: None,
    })
}

fn serve_bytes(input: &[u8]) -> Vec<u8> {
    let mut dev = EmuDevice::for_target(DEFAULT).with_threads(1);
    let about = serve::serve_info(&dev);
    let mut out = Vec::new();
    serve::serve(&mut dev, &about, input, &mut out).unwrap();
    let _ = dev.info();
    out
}

/// The hello answer (a JSON line), then the frames after it.
fn split(out: &[u8]) -> (Response, Vec<Vec<u8>>) {
    let mut r = out;
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let hello = serde_json::from_str(&line).unwrap();
    let mut frames = Vec::new();
    loop {
        match frame::read(&mut r, 1 << 30).unwrap() {
            Frame::Body(b) => frames.push(b),
            Frame::End => return (hello, frames),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_launch_in_frames_answers_the_bytes_the_device_gives_in_process() {
    let (code_object, launch) = kernel_and_launch();
    let mut input = hello(&["zstd", MSGPACK]);
    input.extend(frame::encode(&Request::Load {
        id: 2,
        code_object: super::protocol::Bytes(code_object.clone()),
    }));
    input.extend(bulk::launch_frame(
        3,
        0,
        &launch,
        &bulk::fills(&launch),
        None,
    ));
    input.extend(frame::encode(&Request::Shutdown { id: 4 }));
    let (hello, frames) = split(&serve_bytes(&input));
    let Response::Hello { framing, .. } = hello else {
        panic!("{hello:?}")
    };
    assert_eq!(framing.as_deref(), Some(MSGPACK));
    assert_eq!(frames.len(), 3);
    assert!(matches!(
        frame::decode::<Response>(&frames[0]).unwrap(),
        Response::Loaded { id: 2, .. }
    ));
    let (id, got) = bulk::read_done(&frames[1]).expect("a done frame");
    assert_eq!(
        frame::decode::<Response>(&frames[2]).unwrap(),
        Response::Bye { id: 4 }
    );
    // The same launch in process.
    let mut dev = EmuDevice::for_target(DEFAULT).with_threads(1);
    let m = dev.load(&code_object).unwrap();
    let mut want = launch.clone();
    dev.launch(m, &mut want).unwrap();
    let outputs: Vec<(&str, &[u8])> = (want.buffers.iter())
        .filter(|b| b.copy_back)
        .map(|b| (b.name, &b.bytes[..]))
        .collect();
    assert_eq!(id, 3);
    assert_eq!(got, outputs);
}

#[test]
fn a_hello_without_framings_keeps_json_lines() {
    let mut input = hello(&[]);
    input.extend(Framing::JsonLines.encode(&Request::Shutdown { id: 2 }));
    let out = String::from_utf8(serve_bytes(&input)).unwrap();
    let lines: Vec<Response> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        matches!(lines[0], Response::Hello { framing: None, .. }),
        "{out}"
    );
    assert_eq!(lines[1], Response::Bye { id: 2 });
}

#[test]
fn bytes_that_are_no_frame_end_the_session_in_words_and_a_huge_fill_is_refused() {
    let (_, launch) = kernel_and_launch();
    // An output of 1 GiB of poison, as a fill: refused before anything is allocated.
    let mut buffers: Vec<BufferIn> = (launch.buffers.iter())
        .map(|b| BufferIn::of(b.name, &b.bytes, b.copy_back, true))
        .collect();
    buffers[2].size = Some(1 << 30);
    let f = frame::encode(&Request::Launch {
        id: 2,
        module: 0,
        kernel: launch.kernel.clone(),
        workgroups: launch.workgroups,
        workgroup_size: launch.workgroup_size,
        dynamic_lds: 0,
        buffers,
    });
    let mut input = hello(&[MSGPACK]);
    input.extend(f);
    input.extend(b"printf debugging\n".iter());
    input.extend(frame::encode(&Request::Shutdown { id: 9 }));
    let (_, frames) = split(&serve_bytes(&input));
    let answers: Vec<Response> = frames.iter().map(|b| frame::decode(b).unwrap()).collect();
    assert_eq!(
        answers.len(),
        2,
        "no bye: the stream ends at the stray bytes: {answers:?}"
    );
    let Response::Error { id, message, .. } = &answers[0] else {
        panic!("{answers:?}")
    };
    assert_eq!(*id, Some(2));
    assert!(message.contains("holds 1073741824 bytes"), "{message}");
    let Response::Error { id, message, .. } = &answers[1] else {
        panic!("{answers:?}")
    };
    assert_eq!(*id, None);
    assert!(
        message.contains("not a frame") && message.contains("printf debugging"),
        "{message}"
    );
}

/// An exec device that is `sh -c script`.
fn start(script: &str) -> Result<ExecDevice, DeviceError> {
    let mut o = ExecOptions::new(script, None);
    o.hello_timeout = std::time::Duration::from_secs(20);
    o.timeout = std::time::Duration::from_secs(20);
    ExecDevice::start(o)
}

const HELLO: &str =
    r#"{"type":"hello","id":1,"protocol":1,"device":"sh","target":"gfx1100","version":"v""#;

#[test]
fn a_device_choosing_a_framing_it_was_not_offered_is_refused() {
    let script = format!("read l; echo '{HELLO},\"framing\":\"zstd\"}}'; sleep 5");
    let e = start(&script).unwrap_err().to_string();
    assert!(
        e.contains("chose framing `zstd`") && e.contains("offered msgpack"),
        "{e}"
    );
    let mut o = ExecOptions::new(
        &format!("read l; echo '{HELLO},\"framing\":\"msgpack\"}}'"),
        None,
    );
    o.framings.clear();
    let e = ExecDevice::start(o).unwrap_err().to_string();
    assert!(e.contains("JSON lines only"), "{e}");
}

#[test]
fn a_device_writing_text_after_choosing_frames_is_named_with_its_bytes() {
    // It writes a line where its answer to the load should be (after the harness has read
    // its hello and switched to frames).
    let script = format!(
        "read l; echo '{HELLO},\"framing\":\"msgpack\"}}'; sleep 1; echo 'Segfault here'; sleep 5"
    );
    let mut dev = start(&script).unwrap();
    let e = dev.load(b"\x7fELF").unwrap_err().to_string();
    assert!(
        e.contains("not a frame") && e.contains("Segfault here"),
        "{e}"
    );
}

/// A hello offering the binary framing and the buffer file at `path`, with `token`.
fn hello_with_file(path: &str, token: &str) -> Vec<u8> {
    Framing::JsonLines.encode(&Request::Hello {
        id: 1,
        protocol: super::PROTOCOL_VERSION,
        harness: "test".into(),
        framings: vec![MSGPACK.to_string()],
        buffer_file: Some(path.to_string()),
        buffer_token: Some(token.to_string()),
    })
}

/// Serves load, `launch` (through `file` when given: its offsets) and shutdown after `hello`;
/// the hello's answer and the launch's.
fn serve_launch(
    hello: Vec<u8>,
    code_object: &[u8],
    launch: &Launch,
    file: Option<&super::shared::BufferFile>,
) -> (Response, Response, Option<Vec<u64>>) {
    let fills = bulk::fills(launch);
    let offsets = file.map(|f| {
        let is_fill: Vec<bool> = fills.iter().map(Option::is_some).collect();
        f.put(launch, &is_fill, 1).unwrap().unwrap()
    });
    let (hello, done) = serve_frames(hello, code_object, launch, &fills, offsets.as_deref());
    (hello, done, offsets)
}

/// Serves load, the launch frame of `launch` (`fills`, `offsets` as [`bulk::launch_frame`]
/// takes them) and shutdown after `hello`; the hello's answer and the launch's.
fn serve_frames(
    hello: Vec<u8>,
    code_object: &[u8],
    launch: &Launch,
    fills: &[Option<&[u8]>],
    offsets: Option<&[u64]>,
) -> (Response, Response) {
    let mut input = hello;
    input.extend(frame::encode(&Request::Load {
        id: 2,
        code_object: super::protocol::Bytes(code_object.to_vec()),
    }));
    input.extend(bulk::launch_frame(3, 0, launch, fills, offsets));
    input.extend(frame::encode(&Request::Shutdown { id: 4 }));
    let (hello, frames) = split(&serve_bytes(&input));
    assert_eq!(frames.len(), 3, "{hello:?}");
    (hello, frame::decode(&frames[1]).unwrap())
}

/// `launch` run in process.
fn in_process(code_object: &[u8], launch: &Launch) -> Launch {
    let mut dev = EmuDevice::for_target(DEFAULT).with_threads(1);
    let m = dev.load(code_object).unwrap();
    let mut want = launch.clone();
    dev.launch(m, &mut want).unwrap();
    want
}

#[test]
fn a_launch_through_the_buffer_file_leaves_the_bytes_the_device_gives_in_process() {
    let (code_object, launch) = kernel_and_launch();
    let file = super::shared::BufferFile::create().unwrap();
    let (hello, done, offsets) = serve_launch(
        hello_with_file(&file.path(), &file.token()),
        &code_object,
        &launch,
        Some(&file),
    );
    assert_file_taken(&hello, true);
    let Response::Done { id: 3, buffers } = done else {
        panic!("{done:?}")
    };
    // No bytes travel: each output is its size, and its bytes are in the file.
    assert!(buffers
        .iter()
        .all(|b| b.bytes.0.is_empty() && b.size.is_some()));
    let mut got = launch.clone();
    for b in got.buffers.iter_mut().filter(|b| b.copy_back) {
        b.bytes.fill(0);
    }
    let outs = (buffers.iter())
        .map(|b| (b.name.as_str(), super::answer::Out::File(b.size.unwrap())))
        .collect();
    super::answer::take_outputs(&mut got, outs, Some((&file, offsets.as_deref().unwrap())))
        .unwrap();
    assert_eq!(got, in_process(&code_object, &launch));
}

/// Asserts that `hello` (a device's answer) took the buffer file, or did not.
fn assert_file_taken(hello: &Response, taken: bool) {
    let took = matches!(
        hello,
        Response::Hello {
            buffer_file: true,
            ..
        }
    );
    assert_eq!(took, taken, "{hello:?}");
}

#[test]
fn a_launch_naming_a_buffer_file_the_session_has_not_is_refused_in_words() {
    let (code_object, launch) = kernel_and_launch();
    let file = super::shared::BufferFile::create().unwrap();
    // The hello offers no file, and the launch says its buffers are in one.
    let (hello, done, _) = serve_launch(hello(&[MSGPACK]), &code_object, &launch, Some(&file));
    assert_file_taken(&hello, false);
    let Response::Error { message, .. } = done else {
        panic!("{done:?}")
    };
    assert!(
        message.contains("this session has none") && message.contains("Buffer file"),
        "{message}"
    );
    // A file that does not open, or does not start with the token (a file of the same name on
    // another machine), is declined, and the buffers go on the pipes.
    let gone = format!("{}-gone", file.path());
    let other = "00".repeat(super::shared::TOKEN_BYTES);
    for hello in [
        hello_with_file(&gone, &file.token()),
        hello_with_file(&file.path(), &other),
        hello_with_file(&file.path(), ""),
    ] {
        let (hello, done, _) = serve_launch(hello, &code_object, &launch, None);
        assert_file_taken(&hello, false);
        assert!(matches!(done, Response::Done { id: 3, .. }), "{done:?}");
    }
}

#[test]
fn the_buffer_file_is_private_and_no_device_can_cut_it_short() {
    use std::os::unix::fs::PermissionsExt;
    let (_, mut launch) = kernel_and_launch();
    let want = launch.clone();
    let file = super::shared::BufferFile::create().unwrap();
    let path = std::path::PathBuf::from(file.path());
    let dir = path.parent().unwrap().to_path_buf();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&path), 0o600);
    let offsets = (file.put(&launch, &vec![false; launch.buffers.len()], 1))
        .unwrap()
        .unwrap();
    // What a device opens through the link is the harness's file: the token, then the buffers.
    let mut seen = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut start = [0u8; super::shared::TOKEN_BYTES];
    std::io::Read::read_exact(&mut seen, &mut start).unwrap();
    assert_eq!(super::shared::hex(&start), file.token());
    // It cannot be cut short under the harness's mapping.
    assert!(
        seen.set_len(0).is_err(),
        "the device truncated the buffer file"
    );
    let last = launch.buffers.len() - 1;
    launch.buffers[last].bytes.fill(0);
    file.take(&mut launch, last, offsets[last]).unwrap();
    assert_eq!(launch, want);
    // An offset outside the file is named, not read.
    let e = file.take(&mut launch, last, u64::MAX - 8).unwrap_err();
    assert!(e.to_string().contains("outside the buffer file"), "{e}");
    drop(file);
    assert!(!dir.exists(), "the directory outlived the device");
}

#[test]
fn a_device_taking_a_buffer_file_it_was_not_offered_is_refused() {
    let takes = format!("read l; echo '{HELLO},\"framing\":\"msgpack\",\"buffer_file\":true}}'");
    let mut o = ExecOptions::new(&takes, None);
    o.buffer_file = false;
    let e = ExecDevice::start(o).unwrap_err().to_string();
    assert!(
        e.contains("took the buffer file") && e.contains("offered none"),
        "{e}"
    );
    // Offered, and taken without the binary framing.
    let script = format!("read l; echo '{HELLO},\"buffer_file\":true}}'");
    let e = ExecDevice::start(ExecOptions::new(&script, None))
        .unwrap_err()
        .to_string();
    assert!(e.contains("only with the binary framing"), "{e}");
}

#[test]
fn a_plain_buffer_file_is_read_and_written_and_the_harnesss_sealed_one_is_mapped() {
    use super::shared::{BufferFile, Opened, SLOTS_AT};
    use std::os::unix::fs::FileExt;
    let (code_object, launch) = kernel_and_launch();
    // The harness's own file: sealed, so a served device maps it.
    let sealed = BufferFile::create().unwrap();
    let opened = Opened::open(&sealed.path(), &sealed.token()).unwrap();
    assert!(opened.is_mapped());
    opened.write(SLOTS_AT, b"mapped").unwrap();
    assert_eq!(opened.read(SLOTS_AT, 6).unwrap(), b"mapped");
    // Another harness's plain file, its token and buffers written as a harness would: read and
    // written with pread/pwrite, and the launch leaves what it leaves in process.
    let dir = std::env::temp_dir().join(format!("ds-plain-buffers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("buffers");
    let token = [7u8; super::shared::TOKEN_BYTES];
    let plain = (std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true))
    .truncate(true)
    .open(&path)
    .unwrap();
    plain.write_all_at(&token, 0).unwrap();
    let mut offsets = Vec::new();
    let mut at = SLOTS_AT;
    for b in &launch.buffers {
        plain.write_all_at(&b.bytes, at).unwrap();
        offsets.push(at);
        at += b.bytes.len() as u64;
    }
    let hex = super::shared::hex(&token);
    let opened = Opened::open(path.to_str().unwrap(), &hex).unwrap();
    assert!(!opened.is_mapped());
    assert!(
        opened.read(at + 1, 8).is_err(),
        "a read past the end is an error"
    );
    let fills = vec![None; launch.buffers.len()];
    let hello = hello_with_file(path.to_str().unwrap(), &hex);
    let (hello, done) = serve_frames(hello, &code_object, &launch, &fills, Some(&offsets));
    assert_file_taken(&hello, true);
    assert!(matches!(done, Response::Done { id: 3, .. }), "{done:?}");
    let want = in_process(&code_object, &launch);
    for (i, b) in want.buffers.iter().enumerate().filter(|(_, b)| b.copy_back) {
        let mut got = vec![0u8; b.bytes.len()];
        plain.read_exact_at(&mut got, offsets[i]).unwrap();
        assert_eq!(got, b.bytes, "output `{}`", b.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
