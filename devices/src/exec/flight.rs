//! Launches in flight (docs/device-protocol.md, "Launches in flight"): [`Device::submit`] sends
//! a launch and returns, so the device has the next launch as soon as it has answered the last,
//! and the harness packs, checks and builds cases meanwhile; [`Device::complete`] waits for the
//! oldest answer. At most [`MAX_IN_FLIGHT`] launches are under way; each has its own slot of the
//! buffer file. The answers come in order (the protocol answers requests one at a time).
//!
//! A launch waits for its answer as a lone launch would: its deadline starts when the harness
//! starts waiting for it (when the launch before it has been answered), so a device gets the
//! whole `--device-timeout` for each. When a session ends (a crash, a time-out, a protocol
//! error) while a launch waits for its answer, that launch fails, and every later one that went
//! to the same session is sent again, in order, to the next session: it never ran as far as the
//! harness can tell, and is not reported as lost for another launch's failure.

use super::{ExecDevice, Launch};
use crate::{DeviceError, ModuleId};

/// Launches under way at most: one running, the next waiting in the device's input.
pub const MAX_IN_FLIGHT: usize = 2;

/// A launch request as sent.
#[derive(Debug)]
pub(super) struct Sent {
    /// The request (in the binary framing without its buffers: it stands for the frame in
    /// messages).
    pub req: super::Request,
    /// Its buffers' offsets in the buffer file, when they went through it.
    pub offsets: Option<Vec<u64>>,
    /// The longest answer it may have.
    pub limit: usize,
    /// The session it went to (the device's start count then).
    pub session: usize,
}

/// A launch submitted and not yet answered.
#[derive(Debug)]
pub(super) struct InFlight {
    pub module: ModuleId,
    pub launch: Launch,
    pub sent: Sent,
    /// Its slot of the buffer file.
    pub slot: usize,
}

/// A launch and its outcome, as [`crate::Device::complete`] gives it back.
type Finished = (Launch, Result<(), DeviceError>);

impl ExecDevice {
    pub(super) fn submit_launch(&mut self, module: ModuleId, launch: Launch) -> Option<Finished> {
        // Launches of a session that has ended are sent again before anything goes to the next
        // one: its answers must come in the order the launches were submitted.
        if self.session.is_none() && !self.in_flight.is_empty() {
            self.settle();
        }
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            let oldest = self.in_flight.pop_front().expect("a launch in flight");
            let done = self.finish(oldest);
            self.ready.push_back(done);
        }
        let slot = (0..MAX_IN_FLIGHT)
            .find(|s| self.in_flight.iter().all(|f| f.slot != *s))
            .expect("a free slot");
        match self.send_launch(module, &launch, slot) {
            Ok(sent) => {
                self.in_flight.push_back(InFlight {
                    module,
                    launch,
                    sent,
                    slot,
                });
                None
            }
            // Answered now: it is not in flight, and the caller has it back at once.
            Err(e) => Some((launch, Err(e))),
        }
    }

    pub(super) fn complete_launch(&mut self) -> Option<Finished> {
        if let Some(done) = self.ready.pop_front() {
            return Some(done);
        }
        let oldest = self.in_flight.pop_front()?;
        Some(self.finish(oldest))
    }

    /// Waits for every launch in flight, keeping their outcomes, in order, for
    /// [`crate::Device::complete`].
    pub(super) fn settle(&mut self) {
        while let Some(f) = self.in_flight.pop_front() {
            let done = self.finish(f);
            self.ready.push_back(done);
        }
    }

    /// Waits for the answer to `f`; when the session it went to has ended, sends it again to
    /// the running one (starting it) and waits for that answer.
    fn finish(&mut self, f: InFlight) -> Finished {
        let InFlight {
            module,
            mut launch,
            sent,
            slot,
        } = f;
        let r = if self.session.is_some() && sent.session == self.starts {
            self.await_launch(&sent, &mut launch)
        } else {
            // Later launches of the dead session are sent again when their turn comes; none of
            // this session's is in flight before it.
            self.send_launch(module, &launch, slot)
                .and_then(|again| self.await_launch(&again, &mut launch))
        };
        (launch, r)
    }
}
