use super::*;
use std::os::unix::fs::symlink;

/// The test's own directory, under the test process's temporary root (gone when it exits).
fn temp(name: &str) -> PathBuf {
    ds_test_support::temp_dir(&format!("output-{name}"))
}

fn check(p: &Path) -> Result<OutputPath, OutputError> {
    OutputPath::check("--json", p, Dash::Refused("stdout carries the summary"))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Root-only cases: skip with a reason by hand, fail under CI=true (CI runs as root).
fn require_root(what: &str) -> bool {
    ds_test_support::require(is_root(), &format!("not root: {what} needs root (mknod)"))
}

#[test]
fn a_missing_file_in_an_existing_directory_is_created_atomically() {
    let dir = temp("missing");
    let p = dir.join("r.json");
    let o = check(&p).unwrap();
    assert!(o.rewrites_in_place());
    assert!(!p.exists(), "the check creates nothing");
    o.write(b"one").unwrap();
    o.write(b"two").unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"two");
    // No temporary or probe file is left beside it.
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn a_regular_file_is_replaced_and_keeps_its_permissions() {
    let dir = temp("regular");
    let p = dir.join("r.json");
    fs::write(&p, "old").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    check(&p).unwrap().write(b"new").unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"new");
    assert_eq!(fs::metadata(&p).unwrap().mode() & 0o777, 0o640);
}

#[test]
fn a_symlink_stays_a_symlink_and_its_target_is_replaced() {
    let dir = temp("symlink");
    let target = dir.join("real.json");
    fs::write(&target, "old").unwrap();
    let link = dir.join("link.json");
    symlink("real.json", &link).unwrap();
    let o = check(&link).unwrap();
    assert_eq!(
        o.kind(),
        &OutputKind::Atomic {
            target: target.clone()
        }
    );
    o.write(b"new").unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new");
}

#[test]
fn a_dangling_symlink_creates_its_target_and_stays_a_symlink() {
    let dir = temp("dangling");
    let link = dir.join("link.json");
    symlink(dir.join("later.json"), &link).unwrap();
    check(&link).unwrap().write(b"x").unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(dir.join("later.json")).unwrap(), b"x");
}

#[test]
fn dev_null_is_written_through_and_stays_a_device() {
    let o = check(Path::new("/dev/null")).unwrap();
    assert_eq!(o.kind(), &OutputKind::WriteThrough);
    assert!(!o.rewrites_in_place());
    o.write(b"{}").unwrap();
    assert!(fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_character_device_made_with_mknod_stays_a_device() {
    if !require_root("a character device made with mknod") {
        return;
    }
    let dir = temp("mknod");
    let dev = dir.join("null");
    let c = std::ffi::CString::new(dev.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; makes a character device with /dev/null's numbers (1, 3).
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(rc, 0, "mknod: {}", io::Error::last_os_error());
    let o = check(&dev).unwrap();
    assert_eq!(o.kind(), &OutputKind::WriteThrough);
    o.write(b"report").unwrap();
    let m = fs::symlink_metadata(&dev).unwrap();
    assert!(m.file_type().is_char_device(), "{m:?}");
    assert_eq!(m.rdev(), libc::makedev(1, 3));
}

#[test]
fn a_fifo_is_written_through_to_its_reader() {
    let dir = temp("fifo");
    let fifo = dir.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Nobody reads it yet: refused at once, before any work (a write would wait forever).
    let e = check(&fifo).unwrap_err().to_string();
    assert!(e.contains("nobody is reading"), "{e}");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let start = std::time::Instant::now();
    let o = loop {
        match check(&fifo) {
            Ok(o) => break o,
            Err(_) if start.elapsed().as_secs() < 10 => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(o.kind(), &OutputKind::WriteThrough);
    o.write(b"through").unwrap();
    assert_eq!(reader.join().unwrap(), b"through");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_missing_directory_is_an_error_and_nothing_is_created() {
    let dir = temp("nodir");
    let p = dir.join("a/b/r.json");
    let e = check(&p).unwrap_err().to_string();
    assert!(e.starts_with("--json "), "{e}");
    assert!(
        e.contains("does not exist") && e.contains("mkdir -p"),
        "{e}"
    );
    assert!(!dir.join("a").exists());
}

#[test]
fn a_directory_or_an_unwritable_place_is_an_error() {
    let dir = temp("isdir");
    let e = check(&dir).unwrap_err().to_string();
    assert!(e.contains("is a directory"), "{e}");
    // Not even root may create files in /proc.
    let e = check(Path::new("/proc/ds-harness.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not writable"), "{e}");
}

#[test]
fn dash_is_stdout_only_where_allowed() {
    let e = check(Path::new("-")).unwrap_err().to_string();
    assert!(e.contains("stdout carries the summary"), "{e}");
    let o = OutputPath::check("--out", Path::new("-"), Dash::Stdout).unwrap();
    assert_eq!(o.kind(), &OutputKind::Stdout);
}

#[test]
fn two_outputs_naming_one_file_are_refused() {
    let dir = temp("same");
    let a = check(&dir.join("r.json")).unwrap();
    let b = check(&dir.join("./r.json")).unwrap();
    fs::create_dir(dir.join("sub")).unwrap();
    let c = check(&dir.join("sub/../r.json")).unwrap();
    let other = check(&dir.join("s.json")).unwrap();
    assert!(check_distinct(&[("--json", &a), ("--markdown", &other)]).is_ok());
    let e = check_distinct(&[("--json", &a), ("--junit", &b)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--junit") && e.contains("same file as --json"),
        "{e}"
    );
    assert!(check_distinct(&[("--json", &a), ("--junit", &c)]).is_err());
    // Through a symlink to an existing file.
    fs::write(dir.join("r.json"), "x").unwrap();
    symlink(dir.join("r.json"), dir.join("l.json")).unwrap();
    let a = check(&dir.join("r.json")).unwrap();
    let l = check(&dir.join("l.json")).unwrap();
    assert!(check_distinct(&[("--json", &a), ("--junit", &l)]).is_err());
}

#[test]
fn output_dirs_need_an_existing_parent_and_must_be_directories() {
    let dir = temp("outdir");
    assert!(OutputDir::check("--out", &dir.join("new")).is_ok());
    assert!(!dir.join("new").exists(), "the check creates nothing");
    let e = OutputDir::check("--out", &dir.join("a/b"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not exist"), "{e}");
    fs::write(dir.join("f"), "").unwrap();
    let e = OutputDir::check("--record", &dir.join("f"))
        .unwrap_err()
        .to_string();
    // A regular file is called one (issue 33 L2: it was "a special file").
    assert!(e.contains("not a directory (a regular file)"), "{e}");
    let e = OutputDir::check("--record", Path::new("/proc/ds-harness"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not writable"), "{e}");
}
