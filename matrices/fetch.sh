#!/usr/bin/env bash
# fetch.sh [--dir DIR] GROUP/NAME... - downloads matrices from the
# SuiteSparse Matrix Collection (https://sparse.tamu.edu) in Matrix Market
# form and leaves DIR/NAME.mtx (default DIR: matrices/fetched, which git
# ignores), ready for `flowbench matrix info matrices/fetched/NAME.mtx`. Needs curl (or wget) and tar.
#
#   ./matrices/fetch.sh Williams/consph Janna/Fault_639 Bova/rma10
#
# A matrix already present is not downloaded again. Extra files of the
# archive (right-hand sides, coordinates) are kept in DIR/NAME/.
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)/fetched
if [ "${1:-}" = "--dir" ]; then
  dir=$2
  shift 2
fi
if [ $# -eq 0 ] || [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
base=${SUITESPARSE_URL:-https://sparse.tamu.edu/MM}
mkdir -p "$dir"

fetch() { # URL FILE
  if command -v curl >/dev/null; then curl -fL --retry 3 -o "$2" "$1"
  elif command -v wget >/dev/null; then wget -q -O "$2" "$1"
  else echo "fetch.sh: needs curl or wget" >&2; return 1
  fi
}

status=0
for spec in "$@"; do
  if ! [[ $spec =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
    echo "fetch.sh: '$spec' is not GROUP/NAME (e.g. Williams/consph)" >&2
    status=2
    continue
  fi
  name=${spec#*/}
  if [ -s "$dir/$name.mtx" ]; then
    echo "$dir/$name.mtx: already there"
    continue
  fi
  tmp=$(mktemp -d)
  if fetch "$base/$spec.tar.gz" "$tmp/$name.tar.gz" && tar -xzf "$tmp/$name.tar.gz" -C "$tmp" &&
     [ -s "$tmp/$name/$name.mtx" ]; then
    mv "$tmp/$name/$name.mtx" "$dir/$name.mtx"
    if [ -n "$(ls -A "$tmp/$name")" ]; then mkdir -p "$dir/$name" && mv "$tmp/$name"/* "$dir/$name/"; fi
    echo "$dir/$name.mtx: $(sed -n 1p "$dir/$name.mtx")"
  else
    echo "fetch.sh: could not download $spec from $base" >&2
    status=1
  fi
  rm -rf "$tmp"
done
exit $status
