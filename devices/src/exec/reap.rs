//! No external device outlives the harness: every running device's process group is registered
//! here, and SIGINT, SIGTERM, SIGHUP and SIGQUIT (POSIX signal(7)) to the harness kill every
//! registered group before the harness dies of the signal as it would have; the devices' buffer
//! files and their directories are registered too, and removed then. The other exit paths
//! (returning from `main`, an error, a panic) end a device, and remove its buffer file, through
//! `ExecDevice`'s `Drop`.
//!
//! The handler only calls async-signal-safe functions (kill(2), unlink(2), rmdir(2), sigaction(2),
//! raise(3)) and reads fixed arrays of atomics, as signal-safety(7) requires.

use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::sync::Once;

/// Process groups of devices running at once, at most (each exec device runs one child).
const SLOTS: usize = 64;

static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// The signals that end the harness and must end its devices too.
#[cfg(unix)]
const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Registers the process group `pgid` (a device's child leads it), installing the signal
/// handlers on first use. Returns the slot to [`unregister`], or `None` when every slot is taken
/// (the group is then ended only by `Drop`).
pub fn register(pgid: i32) -> Option<usize> {
    install();
    GROUPS.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// Forgets the group in `slot` (its device has been ended).
pub fn unregister(slot: Option<usize>) {
    if let Some(s) = slot {
        GROUPS[s].store(0, Ordering::SeqCst);
    }
}

/// Buffer files (and their directories) of devices alive at once, at most.
static FILES: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static DIRS: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// Registers a buffer file and its directory, to be removed if a signal ends the harness;
/// returns the slot to [`unregister_file`], or `None` (no slot free, or a path with a NUL byte:
/// then only `Drop` removes them).
pub fn register_file(file: &std::path::Path, dir: &std::path::Path) -> Option<usize> {
    use std::os::unix::ffi::OsStrExt;
    install();
    let c = |p: &std::path::Path| CString::new(p.as_os_str().as_bytes()).ok();
    let (f, d) = (c(file)?, c(dir)?);
    let slot = FILES.iter().position(|slot| {
        slot.compare_exchange(
            std::ptr::null_mut(),
            f.as_ptr().cast_mut(),
            Ordering::SeqCst,
            Ordering::SeqCst,
        )
        .is_ok()
    })?;
    DIRS[slot].store(d.as_ptr().cast_mut(), Ordering::SeqCst);
    // The handler may read them at any moment, so they are never freed (a few bytes per device).
    std::mem::forget(f);
    std::mem::forget(d);
    Some(slot)
}

/// Forgets the buffer file in `slot` (its device removed it).
pub fn unregister_file(slot: Option<usize>) {
    if let Some(s) = slot {
        DIRS[s].store(std::ptr::null_mut(), Ordering::SeqCst);
        FILES[s].store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// Removes every registered buffer file, then its directory.
fn remove_files() {
    for (file, dir) in FILES.iter().zip(&DIRS) {
        let (f, d) = (file.load(Ordering::SeqCst), dir.load(Ordering::SeqCst));
        // SAFETY: registered pointers are NUL-terminated strings never freed; unlink(2) and
        // rmdir(2) are async-signal-safe.
        unsafe {
            if !f.is_null() {
                libc::unlink(f);
            }
            if !d.is_null() {
                libc::rmdir(d);
            }
        }
    }
}

/// Kills every registered process group.
fn kill_all() {
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) with a negative pid signals a process group; async-signal-safe.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    kill_all();
    remove_files();
    // SAFETY: restores the default action and raises the signal again, so the harness ends as
    // the signal would have ended it (exit status, core dump); both are async-signal-safe.
    unsafe {
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &dfl, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// Installs the handler for [`SIGNALS`] once, except for a signal the harness was started with
/// ignored (`nohup` ignores SIGHUP): that one stays ignored.
fn install() {
    static ONCE: Once = Once::new();
    #[cfg(unix)]
    ONCE.call_once(|| {
        for sig in SIGNALS {
            // SAFETY: sigaction(2) with valid pointers to zero-initialised structs; the handler
            // is an `extern "C" fn(c_int)` as sa_handler requires (no SA_SIGINFO).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(sig, &act, std::ptr::null_mut());
            }
        }
    });
}
