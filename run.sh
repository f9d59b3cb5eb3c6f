#!/usr/bin/env bash
# run.sh - the two entry points of the README, each self-contained on a
# fresh Debian 12 machine: install packages, configure, build, then
#   ./run.sh default   run the default suite, write results and plots
#   ./run.sh test      run the test suite (what CI runs), less the tests
#                      labelled nightly (the full NVRTC set, long fuzzing:
#                      `ctest --test-dir build -L nightly` runs them)
#   ./run.sh sanitize  the unit, CLI and fuzz tests of an ASan + UBSan build
#                      in build-sanitize/ (CI's second job, .ci/sanitize),
#                      less the nightly ones
set -euo pipefail
cd "$(dirname "$0")"

what=${1:-}
case "$what" in
  default|test|sanitize) ;;
  *) echo "usage: ./run.sh default|test|sanitize" >&2; exit 2 ;;
esac

./scripts/setup.sh

if [ "$what" = sanitize ]; then
  # CUDA off: NVRTC's compile test is the slowest part and runs in the
  # test job; every path it shares with the other backends runs here.
  # PETSc off: its Open MPI leaks at finalize from components it has
  # unloaded, which LeakSanitizer can neither name nor suppress; the PETSc
  # peer's tests run in the test job.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOWBENCH_SANITIZE=ON -DFLOWBENCH_WERROR=ON \
    -DFLOWBENCH_CUDA=OFF -DFLOWBENCH_PETSC=OFF
  cmake --build build-sanitize -j "$(nproc 2>/dev/null || echo 2)"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  exec ctest --test-dir build-sanitize --output-on-failure -j 2 --timeout 600 -L 'unit|cli|fuzz' -LE nightly
fi

jobs=$(nproc 2>/dev/null || echo 2)
werror=OFF
[ "$what" = test ] && werror=ON   # CI builds with -Wall -Wextra -Werror
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFLOWBENCH_WERROR=$werror
cmake --build build -j "$jobs"

if [ "$what" = test ]; then
  ctest --test-dir build --output-on-failure -j 2 --timeout 600 -LE nightly
else
  ./scripts/default-suite.sh build/flowbench
fi
