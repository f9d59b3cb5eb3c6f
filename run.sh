#!/usr/bin/env bash
# run.sh - the two entry points of the README, each self-contained on a
# fresh Debian 12 machine: install packages, configure, build, then
#   ./run.sh default   run the default suite, write results and plots
#   ./run.sh test      run the test suite (what CI runs)
set -euo pipefail
cd "$(dirname "$0")"

what=${1:-}
case "$what" in
  default|test) ;;
  *) echo "usage: ./run.sh default|test" >&2; exit 2 ;;
esac

./scripts/setup.sh

jobs=$(nproc 2>/dev/null || echo 2)
werror=OFF
[ "$what" = test ] && werror=ON   # CI builds with -Wall -Wextra -Werror
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFLOWBENCH_WERROR=$werror
cmake --build build -j "$jobs"

if [ "$what" = test ]; then
  ctest --test-dir build --output-on-failure -j 2 --timeout 600
else
  ./scripts/default-suite.sh build/flowbench
fi
