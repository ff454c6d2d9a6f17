//! The helpers' own tests: the skip-or-fail rule, temporary directories that never collide and
//! never sit in the work tree, commands that run in the scratch directory, take large inputs
//! without deadlocking and are killed past their limit, and the LLVM 22 swizzle spelling.

use super::*;
use std::time::{Duration, Instant};

#[test]
fn a_missing_tool_skips_by_hand_and_fails_under_ci() {
    assert_eq!(decide(true, "x", true), Ok(true));
    assert_eq!(decide(true, "x", false), Ok(true));
    assert_eq!(decide(false, "llvm-mc-19 not found", false), Ok(false));
    assert_eq!(
        decide(false, "llvm-mc-19 not found", true),
        Err("CI=true and llvm-mc-19 not found".to_string())
    );
}

#[test]
fn temp_dirs_are_fresh_distinct_and_outside_the_work_tree() {
    let a = temp_dir("same name");
    let b = temp_dir("same name");
    assert_ne!(a, b);
    for d in [&a, &b] {
        assert!(d.is_dir(), "{}", d.display());
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "{}", d.display());
        assert!(d.starts_with(std::env::temp_dir()), "{}", d.display());
        let work_tree = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert!(!d.starts_with(work_tree.canonicalize().unwrap()));
    }
    assert!(a
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .ends_with("same_name"));
}

#[test]
fn commands_run_in_the_scratch_directory_unless_told_otherwise() {
    let pwd = |c: Cmd| String::from_utf8(c.output().stdout).unwrap();
    let here = pwd(Cmd::new("pwd").arg("-P"));
    assert_eq!(
        here.trim(),
        scratch_dir().canonicalize().unwrap().to_str().unwrap()
    );
    let dir = temp_dir("elsewhere");
    let there = pwd(Cmd::new("pwd").arg("-P").current_dir(&dir));
    assert_eq!(there.trim(), dir.canonicalize().unwrap().to_str().unwrap());
}

#[test]
fn a_large_stdin_and_stdout_do_not_deadlock() {
    // Four times a pipe's default capacity each way: a sequential write-then-read would block.
    let input: Vec<u8> = (0..256 * 1024).map(|i| (i % 251) as u8).collect();
    let out = Cmd::new("cat").stdin(input.clone()).output();
    assert!(out.status.success());
    assert_eq!(out.stdout, input);
    let closed = Cmd::new("cat").output();
    assert!(
        closed.status.success() && closed.stdout.is_empty(),
        "stdin closed"
    );
}

#[test]
fn a_command_past_its_limit_is_killed_and_named() {
    let started = Instant::now();
    let why = Cmd::new("sh")
        .args(["-c", "echo started >&2; sleep 30"])
        .within(Duration::from_millis(300))
        .try_output()
        .unwrap_err();
    // Killed at its limit with the `sleep` it started (which holds its stderr open: waiting for
    // that would take the full 30 s).
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "killed at its limit"
    );
    assert!(why.contains("did not end within 300ms"), "{why}");
    assert!(why.contains("\"sh\""), "the command is named: {why}");
    assert!(why.contains("started"), "its stderr so far: {why}");
    let why = Cmd::new("/nonexistent/tool").try_output().unwrap_err();
    assert!(why.contains("does not start"), "{why}");
}

#[test]
fn llvm_22_spells_high_swizzle_offsets_as_its_macros() {
    use llvm::printed_by;
    let plain = "ds_swizzle_b32 v1, v2 offset:32768";
    assert_eq!(printed_by(22, plain), plain);
    assert_eq!(
        printed_by(19, "ds_swizzle_b32 v1, v2 offset:57345"),
        "ds_swizzle_b32 v1, v2 offset:57345"
    );
    assert_eq!(
        printed_by(22, "ds_swizzle_b32 v1, v2 offset:57345"),
        "ds_swizzle_b32 v1, v2 offset:swizzle(FFT,1)"
    );
    // 0xC000 | dir 1 (bit 10) | n 3 (bits 9:5).
    let o = 0xc000 | 1 << 10 | 3 << 5;
    assert_eq!(
        printed_by(22, &format!("ds_swizzle_b32 v1, v2 offset:{o} gds")),
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,1,3) gds"
    );
    assert_eq!(llvm::package("ld.lld", 22), "lld-22");
    assert_eq!(llvm::package("llvm-objdump", 19), "llvm-19");
}

#[test]
fn an_expected_panic_is_caught_and_not_counted_as_a_failure() {
    let _ = temp_dir("hook installed");
    let r = catch_expected_panic(|| -> u32 { panic!("the test's own") });
    assert!(r.is_err());
    assert!(!temp::failed(), "an expected panic keeps no files");
    assert_eq!(catch_expected_panic(|| 7).unwrap(), 7);
}
