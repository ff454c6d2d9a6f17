//! What an exec device answered, checked and put into words: its details (the harness's own
//! keys first, the device's renamed away from them), the bounds of an answer, a `done` answer's
//! buffers, an `unsupported` answer's instruction disassembled (LLVM AMDGPUUsage's code object
//! holds the kernel; `ds_isa::inst` decodes it), and exit statuses.

use super::protocol::{ErrorKind, Response};
use super::shared::BufferFile;
use super::text;
use super::{
    COMMAND_DETAIL, HARDWARE_DETAIL, MIN_LINE_BYTES, PROTOCOL_DETAIL, QUOTED_CHARS,
    RESERVED_DETAILS, VERSION_DETAIL,
};
use crate::{DeviceError, Launch};
use ds_isa::target::Target;

/// The device's [`DeviceInfo::details`]: the harness's own keys (command, version, protocol,
/// hardware: decided here, once) first, then the device's, printable and bounded, a device key
/// that names one of [`RESERVED_DETAILS`] (or repeats a key) renamed so it can never stand in
/// for the harness's.
pub(super) fn own_details(
    cmd: &str,
    version: &str,
    protocol: u32,
    hardware: bool,
    details: std::collections::BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut d = vec![
        (COMMAND_DETAIL.to_string(), cmd.to_string()),
        (
            VERSION_DETAIL.to_string(),
            text::bounded(version, text::MAX_NAME_CHARS),
        ),
        (PROTOCOL_DETAIL.to_string(), protocol.to_string()),
        (HARDWARE_DETAIL.to_string(), hardware.to_string()),
    ];
    for (k, v) in details {
        let mut key = text::detail_key(&k);
        if RESERVED_DETAILS.contains(&key.as_str()) {
            key = format!("device's {key}");
        }
        while d.iter().any(|(have, _)| *have == key) {
            key.push('\'');
        }
        d.push((key, text::bounded(&v, text::MAX_MESSAGE_CHARS)));
    }
    d
}

/// The words of a device error without its kind's prefix.
pub(super) fn message(e: &DeviceError) -> String {
    match e {
        DeviceError::Unavailable(m)
        | DeviceError::Load(m)
        | DeviceError::Launch(m)
        | DeviceError::Timeout(m)
        | DeviceError::BadRequest(m)
        | DeviceError::Unsupported(m)
        | DeviceError::Crashed(m)
        | DeviceError::Protocol(m) => m.clone(),
    }
}

/// Bytes an answer to `launch` may need: its output buffers as base64 with their names, every
/// character of them possibly escaped (`\/` for `/`) and whitespace between the JSON tokens;
/// at least [`MIN_LINE_BYTES`] (an error's message). Proportional to the request, never more.
pub fn answer_limit(launch: &Launch) -> usize {
    let buffers: usize = launch
        .buffers
        .iter()
        .filter(|b| b.copy_back)
        .map(|b| 2 * 4 * b.bytes.len().div_ceil(3) + 6 * b.name.len() + 256)
        .sum();
    (buffers + 4096).max(MIN_LINE_BYTES)
}

/// A response's type, for messages.
pub(super) fn kind_of(r: &Response) -> String {
    match r {
        Response::Error { kind, message, .. } => format!(
            "an error ({kind}: {})",
            text::bounded(message, text::MAX_MESSAGE_CHARS)
        ),
        other => format!(
            "`{}`",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(String::from))
                .unwrap_or_default()
        ),
    }
}

pub(super) fn quote(line: &str) -> String {
    format!("`{}`", text::bounded(line, QUOTED_CHARS))
}

pub(super) fn describe_status(st: std::process::ExitStatus) -> String {
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

/// The instruction an `unsupported` answer names: its bytes (hex, in memory order, spaces
/// allowed) disassembled for `target`, or why they do not decode.
pub(super) fn disassemble(target: &Target, hex: &str) -> String {
    let digits: String = hex.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.is_empty() {
        return String::new();
    }
    let bytes: Option<Vec<u8>> = digits
        .len()
        .is_multiple_of(2)
        .then(|| {
            (0..digits.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
                .collect()
        })
        .flatten();
    let shown = text::bounded(hex, QUOTED_CHARS);
    match bytes {
        None => format!("{shown} (not hex bytes)"),
        // The target's own instruction set: an op of one target's features decodes for it.
        Some(b) => match ds_isa::inst::decode(target, &b) {
            Ok((inst, _)) => format!("{shown} = `{}`", inst.text(target.generation)),
            Err(e) => format!("{shown} (does not decode for {target}: {e})"),
        },
    }
}

/// Where a `done` answer has an output buffer's contents.
pub(super) enum Out<'a> {
    /// In the answer.
    Bytes(&'a [u8]),
    /// This many bytes in the buffer file, at the launch buffer's offset.
    File(u64),
}

impl Out<'_> {
    fn len(&self) -> u64 {
        match self {
            Out::Bytes(b) => b.len() as u64,
            Out::File(n) => *n,
        }
    }
}

/// Checks a `done` answer's output buffers (name, contents) against the launch (each one the
/// launch sent, in order, of its name and size) and copies them into it: from the buffer file,
/// at the launch's offsets, for those the answer says are there (`file`: the file and the
/// offsets, when the launch went through it).
pub(super) fn take_outputs(
    launch: &mut Launch,
    buffers: Vec<(&str, Out)>,
    file: Option<(&BufferFile, &[u64])>,
) -> Result<(), DeviceError> {
    let outputs: Vec<usize> = (0..launch.buffers.len())
        .filter(|&i| launch.buffers[i].copy_back)
        .collect();
    if buffers.len() != outputs.len() {
        return Err(DeviceError::Protocol(format!(
            "the launch of `{}` has {} output buffers, the device sent {}",
            launch.kernel,
            outputs.len(),
            buffers.len()
        )));
    }
    for (&i, (name, out)) in outputs.iter().zip(&buffers) {
        let want = &launch.buffers[i];
        if *name != want.name || out.len() != want.bytes.len() as u64 {
            return Err(DeviceError::Protocol(format!(
                "output buffer {i} of `{}` should be `{}` of {} bytes; the device sent `{}` of {} \
                 bytes",
                launch.kernel,
                want.name,
                want.bytes.len(),
                text::bounded(name, QUOTED_CHARS),
                out.len()
            )));
        }
        if matches!(out, Out::File(_)) && file.is_none() {
            return Err(DeviceError::Protocol(format!(
                "output buffer {i} of `{}` came as a size with no bytes (in the buffer file), and \
                 this launch did not go through one (docs/device-protocol.md, \"Buffer file\")",
                launch.kernel
            )));
        }
    }
    for (&i, (_, out)) in outputs.iter().zip(buffers) {
        match out {
            Out::Bytes(bytes) => launch.buffers[i].bytes.copy_from_slice(bytes),
            // With a file (checked above).
            Out::File(_) => {
                if let Some((f, offsets)) = file {
                    f.take(launch, i, offsets[i])?;
                }
            }
        }
    }
    Ok(())
}

/// The device error of a launch the device answered with an error: an `unsupported` one names
/// the instruction (`offset` from the kernel's entry, `bytes` disassembled for `target`).
pub(super) fn launch_error(
    target: &Target,
    launch: &Launch,
    kind: ErrorKind,
    message: &str,
    offset: Option<u64>,
    bytes: Option<String>,
) -> DeviceError {
    let message = text::bounded(message, text::MAX_MESSAGE_CHARS);
    match kind {
        ErrorKind::Unsupported => {
            let at = match (offset, bytes) {
                (Some(o), Some(b)) => format!(
                    " (at {o:#x} in `{}`: {})",
                    launch.kernel,
                    disassemble(target, &b)
                ),
                (Some(o), None) => format!(" (at {o:#x} in `{}`)", launch.kernel),
                (None, Some(b)) => format!(" ({})", disassemble(target, &b)),
                (None, None) => String::new(),
            };
            DeviceError::Unsupported(format!("{message}{at}"))
        }
        ErrorKind::Fault => DeviceError::Launch(format!("the kernel faulted: {message}")),
        ErrorKind::Other => DeviceError::Launch(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::{DsInst, DsOp};

    /// An `unsupported` answer's bytes decode for the device's own target: an op of its
    /// features (gfx942's packed add, gfx908's src2) is named, not "does not decode".
    #[test]
    fn an_unsupported_instruction_is_disassembled_for_the_devices_own_target() {
        for (t, op) in [("gfx942", "ds_pk_add_f16"), ("gfx908", "ds_add_src2_u32")] {
            let target = Target::by_name(t).unwrap();
            let op = DsOp::from_name(op).unwrap();
            let bytes = DsInst::new(op).to_bytes(target).unwrap();
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let text = disassemble(target, &hex);
            assert!(
                text.contains(&format!("= `{}", op.mnemonic(target.generation))),
                "{t}: {text}"
            );
        }
    }
}
