#!/usr/bin/env bash
# README's test command: installs the test oracles (Debian packages) if missing, then runs the
# whole test suite. Under CI=true a test whose tool is missing fails instead of skipping, and a
# snapshot file no test read fails the run (scripts/unreferenced-snapshots.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Everything the tests run, in one build so cargo schedules the whole graph at once: the test
# binaries, ds-harness, and the stand-in HIP runtime the hip tests load
# (target/debug/libds_hip_standin.so). On 2 cores from a fresh clone: 150 s, against 173 s for the
# stand-in first and the tests after it.
cargo build --locked --workspace --lib --bins --tests
# Two test threads more than cores: the harness's tests spend seconds waiting on devices'
# time-outs and subprocesses, and spare threads keep the cores busy meanwhile (2 cores: the
# harness's tests in 48 s with 4 threads, 53 s with 3, 60 s with 2; the CPU-bound LLVM oracle tests
# no slower). A value already set wins.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$(($(nproc) + 2))}"
refs=$(mktemp "${TMPDIR:-/tmp}/ds-harness-snapshot-refs.XXXXXX")
trap 'rm -f "$refs"' EXIT
INSTA_SNAPSHOT_REFERENCES_FILE=$refs cargo test --workspace --locked
# Run by hand, a test that skips for a missing tool reads none of its snapshots: only a CI run,
# where every test runs, can tell an unread snapshot from a skipped one.
if [ "${CI:-}" = true ]; then
  scripts/unreferenced-snapshots.sh "$refs"
else
  scripts/unreferenced-snapshots.sh "$refs" || echo "test.sh: (not CI: a skipped test reads no snapshot, so this is only a warning)" >&2
fi
