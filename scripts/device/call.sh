#!/usr/bin/env bash
# call.sh [--cpu] [--tiny] [--budget SECONDS] A|B OUTDIR [COPYDIR] - one of
# the two commands of a short GPU allocation (docs/device-run.md): the
# phases of scripts/device/phase.sh in order of value, inside one time
# budget for the whole command, each phase's archive and page copied to
# COPYDIR (default $OUT, the device tool's folder of what comes back) as
# soon as that phase ends, so a command cut off by its time-out still
# brings home every phase it finished.
#   A  correctness (phase 1, at most PHASE1_MAX_S of the budget, default
#      130 s), then the solver's tables (phase 2, the rest)
#   B  the SpMV targets (phase 3, the whole budget)
# It first unpacks .devpack/flowbench-gpu.tar.gz (scripts/device/bundle.sh:
# build-gpu/ and .devlibs/) where that is carried.
# The budget (default 300 s) is what the phases may spend; the command
# needs about 20 s more for the archives. Exit status: the worst of the
# phases' (0 ok, 1 a step failed or was stopped, 3 no CUDA device in GPU
# mode, 130 interrupted); 2 for a usage error.
set -uo pipefail
me=call.sh
usage() { echo "usage: $me [--cpu] [--tiny] [--budget SECONDS] A|B OUTDIR [COPYDIR]" >&2; exit 2; }
opts=() budget=300
while [ $# -gt 0 ]; do
  case $1 in
    --cpu | --tiny) opts+=("$1"); shift ;;
    --budget) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$me: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
call=$1 out=$2 copy=${3:-${OUT:-}}
case $call in
  A) phases=(1 2) ;;
  B) phases=(3) ;;
  *) echo "$me: call '$call': expected A or B" >&2; exit 2 ;;
esac
[[ $budget =~ ^[0-9]+$ ]] && [ "$budget" -ge 20 ] ||
  { echo "$me: --budget '$budget': expected whole seconds, at least 20" >&2; exit 2; }
phase1_max=${PHASE1_MAX_S:-130}
[[ $phase1_max =~ ^[0-9]+$ ]] || { echo "$me: PHASE1_MAX_S '$phase1_max': expected whole seconds" >&2; exit 2; }
if [ -n "$copy" ]; then
  mkdir -p "$copy" || { echo "$me: $copy: cannot create the folder to copy to" >&2; exit 2; }
fi
here=$(dirname "$0")
deadline=$(($(date +%s) + budget))
rc=0 child=

# What bundle.sh packed (build-gpu/ and .devlibs/ in one gzipped file, the
# one carried folder) is unpacked beside the source, over nothing left of
# an older pack; build-gpu/.unpacked holds the pack's checksum, so a second
# call on the same machine with the same pack (carried again) finds it
# unpacked. The stamp lives in build-gpu/, not in the carried .devpack/,
# which every call replaces.
root=$(cd "$here/../.." && pwd)
pack=$root/.devpack/flowbench-gpu.tar.gz stamp=$root/build-gpu/.unpacked
if [ -f "$pack" ]; then
  sum=$(cksum <"$pack")
  if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$root/build-gpu" "$root/.devlibs"
    tar -C "$root" -xzf "$pack" || { echo "$me: $pack: cannot unpack it (scripts/device/bundle.sh makes it)" >&2; exit 2; }
    echo "$sum" >"$stamp"
  fi
fi

# What a phase left (archive and page) to COPYDIR, whatever its status.
copy_back() { # PHASE
  [ -n "$copy" ] || return 0
  local f
  for f in "$out"/phase"$1"-*.tar.xz "$out"/phase"$1"-*.tar.gz "$out"/phase"$1"-*.md; do
    [ -f "$f" ] && cp "$f" "$copy/"
  done
  return 0
}

# The worst status so far: 130 over 3 over 1 over 0.
worst() {
  local r=$1
  if [ "$r" = 130 ] || [ "$rc" = 130 ]; then rc=130
  elif [ "$r" = 3 ] || [ "$rc" = 3 ]; then rc=3
  elif [ "$r" != 0 ] || [ "$rc" != 0 ]; then rc=1
  fi
}

# SIGTERM (the device tool's time-out) or Ctrl-C: the running phase stops
# its step and writes its archive (phase.sh's own handling), which is
# copied before the call ends.
stop() {
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
  copy_back "$running"
  exit 130
}
trap stop INT TERM

for p in "${phases[@]}"; do
  left=$((deadline - $(date +%s)))
  share=$left
  [ "$p" = 1 ] && [ ${#phases[@]} -gt 1 ] && [ "$share" -gt "$phase1_max" ] && share=$phase1_max
  if [ "$share" -lt 10 ]; then
    echo "$me: phase $p not started: ${left} s of the call's budget left" >&2
    worst 1
    continue
  fi
  echo "$me: call $call, phase $p with $share s of the call's $budget s" >&2
  running=$p
  "$here/phase.sh" "${opts[@]}" --budget "$share" "$p" "$out" &
  child=$!
  wait "$child"
  r=$?
  child=
  copy_back "$p"
  worst "$r"
  # No CUDA device: the next phase would find none either.
  [ "$r" = 3 ] && break
done
echo "$me: call $call done, status $rc$([ -n "$copy" ] && echo "; archives and pages in $copy")" >&2
exit $rc
