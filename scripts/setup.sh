#!/usr/bin/env bash
# Installs the Debian 12 packages flowbench builds and runs with.
# Root (as on CI): installs what is missing. Not root: prints the exact
# apt-get line and exits 2 if anything is missing, so nothing is installed by hand.
# The CUDA toolkit is not a Debian package; CMake detects it if present.
# ReFrame, from PyPI, goes into a virtual environment of the build.
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
  # the Bayesian-optimisation strategy's Gaussian process (tune/gp.c)
  liblapacke-dev
  # the one-host Slurm cluster of the tests (scripts/slurm/local-cluster.sh)
  # and ReFrame's virtual environment below
  slurm-wlm munge python3-venv
  # the man pages (help2man), cpack -G DEB's Depends (dpkg-shlibdeps), the
  # modulefile and the pages checked by e2e.install
  help2man dpkg-dev environment-modules man-db
)

REFRAME_VERSION=4.10.4

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} Debian packages present"
else
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
fi

# ReFrame is on PyPI, not in Debian: a virtual environment of the build
# (build/reframe-venv, or $FLOWBENCH_REFRAME_VENV), pinned. Optional like
# MPI: without it (no network, no python3-venv) tests/e2e/reframe.sh skips
# and says why.
venv=${FLOWBENCH_REFRAME_VENV:-$(cd "$(dirname "$0")/.." && pwd)/build/reframe-venv}
if [ "$("$venv/bin/reframe" --version 2> /dev/null)" = "$REFRAME_VERSION" ]; then
  echo "setup: ReFrame $REFRAME_VERSION present in $venv"
elif python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check "reframe-hpc==$REFRAME_VERSION"; then
  echo "setup: ReFrame $REFRAME_VERSION installed in $venv"
else
  echo "setup: ReFrame not installed in $venv (PyPI or python3 -m venv failed): the ReFrame test will skip" >&2
fi
