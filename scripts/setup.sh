#!/usr/bin/env bash
# Installs the Debian 12 packages flowbench builds and runs with.
# Root (as on CI): installs what is missing. Not root: prints the exact
# apt-get line and exits 2 if anything is missing, so nothing is installed by hand.
# The CUDA toolkit is not a Debian package; CMake detects it if present.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libjansson-dev libcmocka-dev libyaml-dev
  libsuitesparse-dev libgraphblas-dev zlib1g-dev libviennacl-dev
  libpapi-dev
  gnuplot-nox gmsh jq
  clang libclang-rt-14-dev clang-format
  libopenmpi-dev openmpi-bin libmetis-dev
  libsqlite3-dev chromium python3-jsonschema libpetsc-real-dev
  # the man pages (help2man), cpack -G DEB's Depends (dpkg-shlibdeps), the
  # modulefile and the pages checked by e2e.install
  help2man dpkg-dev environment-modules man-db
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages; run as root:" >&2
  echo "  apt-get update && $line" >&2
  exit 2
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$line
