#!/usr/bin/env bash
# README's test command: installs the test oracles (Debian packages) if missing, then runs the
# whole test suite. Under CI=true a test whose tool is missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The stand-in HIP runtime the hip_standin* tests load (target/debug/libds_hip_standin.so).
cargo build --locked -p hip-standin
cargo test --workspace --locked
