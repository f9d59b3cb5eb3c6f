#!/usr/bin/env bash
# check_format.sh ROOT - every C source and header of the library, the
# command and the tests is laid out as .clang-format says.
#
# Layout depends on clang-format's version; the file is written for Debian
# 12's clang-format 14 (scripts/setup.sh installs it). Another version is a
# skip (exit 77) that says so, not a failure. To fix a file:
#   clang-format -i FILE
set -uo pipefail
root=${1:?usage: check_format.sh ROOT}
cd "$root" || exit 2
want=14

if ! command -v clang-format >/dev/null; then
  echo "format: skipped: clang-format is not installed (scripts/setup.sh installs it)"
  exit 77
fi
have=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$have" != "$want" ]; then
  echo "format: skipped: clang-format $have here; .clang-format is checked with version $want"
  exit 77
fi

# One clang-format for every file (a process per file took 17 s of the
# test suite): --dry-run names each line it would change, "FILE:L:C:
# warning: code should be clang-formatted".
mapfile -t sources < <(find harness kernels tests -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
  -not -path 'tests/data/*' | sort)
files=${#sources[@]}
mapfile -t differ < <(clang-format --style=file --dry-run "${sources[@]}" 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)
bad=${#differ[@]}
for f in "${differ[@]}"; do echo "format: $f differs from .clang-format (clang-format -i $f)" >&2; done

if [ "$bad" -gt 0 ]; then
  echo "format: $bad of $files files differ" >&2
  exit 1
fi
echo "format: $files files follow .clang-format"
