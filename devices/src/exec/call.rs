//! One exchange with the exec device's running child ([`ExecDevice::exchange`]): a request
//! written (in the session's framing), its answer read within the deadline and checked (its id,
//! its framing, its size), and what every way of not answering comes to: a protocol error
//! naming the line, a crash with the child's status and last stderr lines, or a time-out that
//! kills the process group (docs/device-protocol.md, "What the harness does when a device
//! misbehaves").

use super::answer::describe_status;
use super::child::{Line, NoLine};
use super::{
    bulk, frame, quote, text, Answer, DeviceError, ExecDevice, Request, Response, Stage,
    DEFAULT_HELLO_TIMEOUT_SECS, MAX_TIMEOUTS_IN_A_ROW, QUOTED_CHARS, STDERR_LINES_QUOTED,
};
use std::time::Duration;

impl ExecDevice {
    /// [`ExecDevice::exchange`] for a request answered by one message.
    pub(super) fn call(
        &mut self,
        req: &Request,
        timeout: Duration,
        limit: usize,
        stage: Stage,
    ) -> Result<Response, DeviceError> {
        match self.exchange(req, None, timeout, limit, stage)? {
            Answer::Message(r) => Ok(r),
            Answer::Done(body) => frame::decode(&body).map_err(DeviceError::Protocol),
        }
    }

    /// Sends `req` (or `wire`, its bytes already written) and waits up to `timeout` (from the
    /// moment it is handed to the writer, so a device that does not read its stdin times out
    /// too) for the answer with its id, which may be `limit` bytes long at most. Any failure of
    /// the child ends the session (the next call starts a new one).
    pub(super) fn exchange(
        &mut self,
        req: &Request,
        wire: Option<Vec<u8>>,
        timeout: Duration,
        limit: usize,
        stage: Stage,
    ) -> Result<Answer, DeviceError> {
        self.send_request(req, wire, limit)?;
        self.receive(req, timeout, limit, stage)
    }

    /// Hands `req` (or `wire`, its bytes already written) to the writer; its answer may be
    /// `limit` bytes long at most.
    pub(super) fn send_request(
        &mut self,
        req: &Request,
        wire: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<(), DeviceError> {
        let s = self.session.as_mut().expect("a session");
        let bytes = wire.unwrap_or_else(|| s.framing.encode(req));
        s.child.set_line_limit(limit);
        if !s.child.send(bytes) {
            return Err(self.crashed("stopped reading its stdin"));
        }
        Ok(())
    }

    /// Waits up to `timeout` for the answer to `req` (sent), which may be `limit` bytes long at
    /// most; see [`Self::exchange`].
    pub(super) fn receive(
        &mut self,
        req: &Request,
        timeout: Duration,
        limit: usize,
        stage: Stage,
    ) -> Result<Answer, DeviceError> {
        let s = self.session.as_mut().expect("a session");
        s.child.set_line_limit(limit);
        let parsed = match s.child.next_line(timeout) {
            // The answer to a launch, read in place by the caller.
            Ok(Line::Frame(body))
                if stage == Stage::Launch
                    && bulk::read_done(&body).is_some_and(|(id, _)| id == req.id()) =>
            {
                Ok(Answer::Done(body))
            }
            Ok(Line::Frame(body)) => frame::decode::<Response>(&body)
                .map(Answer::Message)
                .map_err(|e| {
                    let what = format!("a frame of {} bytes", body.len() + frame::HEADER_BYTES);
                    (e, what)
                }),
            Ok(Line::Text(text)) => serde_json::from_str::<Response>(&text)
                .map(Answer::Message)
                .map_err(|e| (e.to_string(), text)),
            other => return Err(self.no_answer(req, stage, timeout, limit, other)),
        };
        let s = self.session.as_mut().expect("a session");
        s.line_no += 1;
        let n = s.line_no;
        let id = match &parsed {
            Ok(Answer::Message(r)) => r.id(),
            Ok(Answer::Done(_)) => Some(req.id()),
            Err(_) => None,
        };
        match parsed {
            Ok(a) if id == Some(req.id()) || id.is_none() => {
                if stage == Stage::Launch {
                    self.timeouts_in_a_row = 0;
                }
                Ok(a)
            }
            Ok(_) => Err(self.fail(DeviceError::Protocol(format!(
                "stdout line {n}: answers request {}, expected {}",
                id.map_or("with no id".to_string(), |i| i.to_string()),
                req.id()
            )))),
            Err((e, text)) => Err(self.fail(DeviceError::Protocol(format!(
                "stdout line {n} is not a protocol message ({}): {}",
                text::bounded(&e, QUOTED_CHARS),
                quote(&text)
            )))),
        }
    }

    /// What a call that got no answer line comes to: a line too long, bytes that are no frame,
    /// the end of stdout, or no line in time.
    pub(super) fn no_answer(
        &mut self,
        req: &Request,
        stage: Stage,
        timeout: Duration,
        limit: usize,
        got: Result<Line, NoLine>,
    ) -> DeviceError {
        let s = self.session.as_mut().expect("a session");
        match got {
            Ok(Line::Text(_) | Line::Frame(_)) => unreachable!("an answer"),
            Ok(Line::NotAFrame { why, head }) => {
                s.line_no += 1;
                let n = s.line_no;
                self.fail(DeviceError::Protocol(format!(
                    "stdout message {n}: {why} (the device chose the binary framing in its \
                     hello): `{head}`"
                )))
            }
            Ok(Line::TooLong { bytes, head }) => {
                s.line_no += 1;
                let n = s.line_no;
                self.fail(DeviceError::Protocol(format!(
                    "stdout line {n} is longer (over {bytes} bytes) than the {limit} bytes an \
                     answer to this {} can need: `{}...`",
                    stage.name(),
                    text::cut(&head, QUOTED_CHARS)
                )))
            }
            Ok(Line::End) | Err(NoLine::Closed) => self.crashed("closed its stdout"),
            Err(NoLine::Timeout) => self.timed_out(req, stage, timeout),
        }
    }

    /// The device did not answer `req` in time: its process group is killed, and after
    /// [`MAX_TIMEOUTS_IN_A_ROW`] the device gives up.
    pub(super) fn timed_out(
        &mut self,
        req: &Request,
        stage: Stage,
        timeout: Duration,
    ) -> DeviceError {
        self.kill_session();
        let t = timeout.as_secs_f64();
        let killed = "the device's process group was killed";
        let e = match (stage, req) {
            (Stage::Launch, Request::Launch { kernel, .. }) => DeviceError::Timeout(format!(
                "no answer to the launch of `{kernel}` within {t:.1} s (--device-timeout); {killed}"
            )),
            (Stage::Load, Request::Load { code_object, .. }) => DeviceError::Load(format!(
                "no answer to the load of a code object of {} bytes within {t:.1} s \
                 (--device-timeout); {killed}",
                code_object.0.len()
            )),
            (Stage::Hello, _) => DeviceError::Unavailable(format!(
                "no answer to hello within {t:.1} s (the start limit: the larger of \
                 {DEFAULT_HELLO_TIMEOUT_SECS} s and --device-timeout); {killed}"
            )),
            _ => DeviceError::Unavailable(format!(
                "no answer to the {} within {t:.1} s; {killed}",
                stage.name()
            )),
        };
        if matches!(stage, Stage::Launch | Stage::Load) {
            self.timeouts_in_a_row += 1;
            if self.timeouts_in_a_row >= MAX_TIMEOUTS_IN_A_ROW && self.gave_up.is_none() {
                self.gave_up = Some(format!(
                    "`{}` timed out {MAX_TIMEOUTS_IN_A_ROW} times in a row (--device-timeout \
                     {t} s); not trying again. A device that does its start-up work at its \
                     first load or launch instead of before it answers hello times out after \
                     every restart: do that work before answering hello (docs/device-protocol.md), \
                     or raise --device-timeout",
                    self.opts.command
                ));
            }
        }
        e
    }

    /// Ends the session and returns `e`.
    pub(super) fn fail(&mut self, e: DeviceError) -> DeviceError {
        self.kill_session();
        e
    }

    /// The child died: its exit status and last stderr lines.
    pub(super) fn crashed(&mut self, how: &str) -> DeviceError {
        let Some(mut s) = self.session.take() else {
            return DeviceError::Crashed(how.into());
        };
        let mut status = None;
        for _ in 0..100 {
            if let Some(st) = s.child.try_wait() {
                status = Some(st);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let killed = s.child.kill();
        let status = status.or(killed);
        // Give the stderr reader a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self
            .stderr
            .lock()
            .map_or(Vec::new(), |l| l.since(s.stderr_from, STDERR_LINES_QUOTED));
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

    pub(super) fn kill_session(&mut self) {
        if let Some(mut s) = self.session.take() {
            s.child.kill();
        }
    }
}
