#!/usr/bin/env bash
# Snapshot files no test read: insta's own record of the snapshots a test run touched (the file
# named by INSTA_SNAPSHOT_REFERENCES_FILE, the record cargo-insta's `--unreferenced=reject` reads)
# against every `.snap` file under snapshots/. Usage: scripts/unreferenced-snapshots.sh REFS_FILE
# (after `INSTA_SNAPSHOT_REFERENCES_FILE=REFS_FILE cargo test --workspace`). Exit 1 and the list
# when a snapshot is unread: delete it, or the test that should read it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
refs=${1:?usage: scripts/unreferenced-snapshots.sh REFS_FILE}
[ -s "$refs" ] || { echo "unreferenced-snapshots: $refs is empty: no test recorded a snapshot (was INSTA_SNAPSHOT_REFERENCES_FILE set?)" >&2; exit 2; }
root=$(pwd -P)
unread=$(comm -23 \
  <(find snapshots -name '*.snap' | sort) \
  <(while IFS= read -r p; do p=$(realpath -m "$p"); echo "${p#"$root"/}"; done < "$refs" | sort -u))
if [ -n "$unread" ]; then
  echo "unreferenced-snapshots: no test read these snapshot files (delete them, or restore the test that reads them):" >&2
  echo "$unread" >&2
  exit 1
fi
echo "unreferenced-snapshots: every one of $(find snapshots -name '*.snap' | wc -l) snapshot files was read by a test"
