//! Temporary directories: every test writes under a directory of its own, inside one root per test
//! process (`<system temp dir>/ds-tests-<pid>`), never into the work tree. The root goes when the
//! process exits, unless a test of it failed: then it stays, and its path is printed, for the
//! failure's files to be read.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A test of this process panicked (its files are kept).
static FAILED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread is inside [`catch_expected_panic`]: a panic here is the test's own, not a
    /// failure.
    static EXPECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f`'s result, or its panic caught: for a test whose subject is what a panic leaves behind. The
/// panic is not counted as a failed test (the temporary files still go at exit).
pub fn catch_expected_panic<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    EXPECTED.with(|e| e.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    EXPECTED.with(|e| e.set(false));
    r
}

/// This process's root, made on first use, with the exit clean-up and the panic watch set up.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("ds-tests-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !EXPECTED.with(|e| e.get()) {
                FAILED.store(true, Ordering::SeqCst);
            }
            previous(info);
        }));
        // SAFETY: `clean_up` is a plain `extern "C" fn` that touches only this module's statics
        // and the file system; atexit(3) runs it once, on `exit`.
        unsafe {
            libc::atexit(clean_up);
        }
        root
    })
}

/// Whether a test of this process failed (panicked outside [`catch_expected_panic`]).
pub fn failed() -> bool {
    FAILED.load(Ordering::SeqCst)
}

/// At exit: removes the root, or says where it is when a test failed.
extern "C" fn clean_up() {
    let Some(root) = std::env::temp_dir()
        .join(format!("ds-tests-{}", std::process::id()))
        .canonicalize()
        .ok()
    else {
        return;
    };
    if failed() {
        eprintln!("a test failed: its files are kept under {}", root.display());
    } else {
        let _ = std::fs::remove_dir_all(&root);
    }
}

/// A fresh, empty directory for test `name` (its own even when another test of this process
/// uses the same name: a per-process count names it too).
///
/// # Panics
/// When the directory cannot be created.
pub fn temp_dir(name: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = root().join(format!("{n:04}-{name}"));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The working directory every [`crate::Cmd`] runs in unless told otherwise: a directory of this
/// process's root, so a command that writes where it stands (an output without a path) writes
/// here, not into the work tree.
pub fn scratch_dir() -> &'static Path {
    static SCRATCH: OnceLock<PathBuf> = OnceLock::new();
    SCRATCH.get_or_init(|| temp_dir("cwd"))
}
