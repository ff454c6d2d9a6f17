#!/usr/bin/env bash
# README's test command: installs the test oracles (Debian packages) if missing, then runs the
# whole test suite. Under CI=true a test whose tool is missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo test --workspace --locked
