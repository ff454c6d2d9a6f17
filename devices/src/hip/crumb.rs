//! Naming the kernel when a GPU fault takes the process down. On a device exception (a memory
//! fault, an illegal instruction) ROCm's runtime prints its own line ("Memory access fault by
//! GPU node-N ...") and calls `abort()`; `hipEventQuery` never reports it. So before every launch
//! the hip device leaves a breadcrumb (the kernel, its grid, the device, and what the caller said
//! it is launching), and a `SIGABRT` handler installed when a HIP device opens writes it to stderr
//! as the process dies: the fault then names its kernel. `DS_HARNESS_HIP_TRACE=1` also prints
//! every breadcrumb before its launch.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// Environment variable: `1` prints every launch's breadcrumb on stderr before the launch.
pub const ENV_TRACE: &str = "DS_HARNESS_HIP_TRACE";

const CAP: usize = 480;
static BYTES: [AtomicU8; CAP] = [const { AtomicU8::new(0) }; CAP];
static LEN: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Leaves `text` (cut to the breadcrumb's size) for the abort handler, and prints it when
/// tracing.
pub fn leave(text: &str) {
    let bytes = text.as_bytes();
    let n = bytes.len().min(CAP);
    LEN.store(0, Ordering::SeqCst);
    for (slot, &b) in BYTES.iter().zip(&bytes[..n]) {
        slot.store(b, Ordering::Relaxed);
    }
    LEN.store(n, Ordering::SeqCst);
    if std::env::var(ENV_TRACE).is_ok_and(|v| v == "1") {
        eprintln!("launch: {text}");
    }
}

/// The breadcrumb as left last (empty before the first launch).
pub fn last() -> String {
    let n = LEN.load(Ordering::SeqCst);
    let bytes: Vec<u8> = BYTES[..n]
        .iter()
        .map(|b| b.load(Ordering::Relaxed))
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

extern "C" fn on_abort(_: libc::c_int) {
    // Only async-signal-safe work here: copy the breadcrumb to the stack and write(2) it.
    let mut buf = [0u8; CAP + 160];
    let head: &[u8] = b"\nds-harness: the process is aborting (a GPU fault ends a HIP process this way) during the last launch: ";
    let mut n = 0;
    for &b in head {
        buf[n] = b;
        n += 1;
    }
    let len = LEN.load(Ordering::SeqCst);
    for slot in &BYTES[..len] {
        buf[n] = slot.load(Ordering::Relaxed);
        n += 1;
    }
    buf[n] = b'\n';
    n += 1;
    // SAFETY: write(2) on stderr with a buffer of `n` initialised bytes.
    unsafe { libc::write(2, buf.as_ptr().cast(), n) };
}

/// Installs the `SIGABRT` handler once per process (it resets itself to the default action, so
/// the abort still ends the process with its signal).
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: a zeroed sigaction with a plain handler, no mask and SA_RESETHAND; `on_abort` only
    // does async-signal-safe work.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}

/// What a caller (the run) says it is launching, e.g. "cases 0..160 of ds_add_u32 (seed 0x0)",
/// added to the next breadcrumbs of any device that can take the process down.
pub fn set_context(text: String) {
    if let Ok(mut c) = CONTEXT.lock() {
        *c = text;
    }
}

/// The caller's current launch context (see [`set_context`]).
pub fn context() -> String {
    CONTEXT.lock().map(|c| c.clone()).unwrap_or_default()
}

static CONTEXT: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breadcrumb_keeps_the_last_launch_cut_to_its_size() {
        leave("kernel a");
        leave("kernel b");
        assert_eq!(last(), "kernel b");
        leave(&"x".repeat(2 * CAP));
        assert_eq!(last().len(), CAP);
    }
}
