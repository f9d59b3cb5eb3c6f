#!/usr/bin/env bash
# scale.sh FLOWBENCH SOURCE_DIR WORK_DIR WHAT - inputs of the size a year of
# nightly runs leaves (scripts/scale-gen.sh) are read in time that grows
# with their length, not its square; and a signal stops a command reading
# one. Time is bounded by the test's ctest TIMEOUT, never measured here:
# before these paths were linear each took minutes.
#   report     report on 20k records over 1,000 matrices
#   cache      sweep --tuned with a 20k-entry tuning cache
#   suite      sweep --limit 1 of a 150k-case suite
#   interrupt  SIGINT and SIGTERM during report, SIGINT during export, on
#              a large file: exit 130 within two seconds (the file grows
#              until the command is still running when the signal comes;
#              skipped if it never is)
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
what=$4
gen=$src/scripts/scale-gen.sh
rm -rf "$work" && mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

report() {
  "$gen" results 2 1000 > r.jsonl
  "$bin" report r.jsonl > report.md || fail "report exited $?"
  grep -q '^- runs in this file: 2,' report.md || fail "the report does not count 2 runs"
  # one best variant per matrix and device
  [ "$(grep -c '^| m[0-9]* | ' report.md)" -ge 2000 ] || fail "the best-variant table lacks rows"
  echo "report on 20k records: ok"
}

cache() {
  "$gen" cache 20000 > cache.json
  "$gen" suite 1 > one.suite
  "$bin" sweep one.suite --tuned --cache cache.json --limit 1 --out one.jsonl 2> sweep.log ||
    fail "sweep --tuned exited $?: $(cat sweep.log)"
  grep -q 'tuning cache cache.json (20000 entries)' sweep.log || fail "the cache did not load whole: $(cat sweep.log)"
  echo "20k-entry cache: ok"
}

suite() {
  # long names sharing a prefix, as generated suites have them
  "$gen" suite 150000 nightly-spmv-csr-scalar-work-group-size-sweep-case- > big.suite
  "$bin" sweep big.suite --limit 1 --out big.jsonl 2> sweep.log || fail "sweep exited $?: $(tail -3 sweep.log)"
  grep -q 'stopped with 1 of 150000 recorded' sweep.log || fail "the suite did not load whole: $(tail -3 sweep.log)"
  echo "150k-case suite: ok"
}

# Sends SIGNAL to `flowbench COMMAND FILE` 0.3 s after its start. Returns
# 2 when the command had ended before the signal could come, else 0 when
# it exits 130, saying so, within two seconds; fails otherwise.
signal_run() { # SIGNAL COMMAND FILE
  local pid code waited=0
  "$bin" "$2" "$3" > /dev/null 2> err.log &
  pid=$!
  sleep 0.3
  if ! kill "-$1" "$pid" 2> /dev/null; then
    wait "$pid" || true
    return 2
  fi
  while kill -0 "$pid" 2> /dev/null && [ "$waited" -lt 20 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -0 "$pid" 2> /dev/null && { kill -9 "$pid"; fail "$2 still running 2 s after SIG$1"; }
  code=0
  wait "$pid" || code=$?
  # exit 0 at once: it finished as the signal came; only a larger file tells
  [ "$code" -eq 0 ] && [ "$waited" -le 2 ] && return 2
  [ "$code" -eq 130 ] || fail "$2 exited $code after SIG$1, want 130 ($(cat err.log))"
  grep -q '^flowbench: interrupted$' err.log || fail "no 'flowbench: interrupted' after SIG$1: $(cat err.log)"
  return 0
}

interrupt() {
  local sig cmd
  "$gen" results 2 1000 > big.jsonl
  for run in "INT report" "TERM report" "INT export"; do
    read -r sig cmd <<< "$run"
    until signal_run "$sig" "$cmd" big.jsonl; do # it ended before the signal came
      [ "$(wc -l < big.jsonl)" -lt 400000 ] || {
        echo "skipped: $cmd ends within 0.3 s even on $(wc -l < big.jsonl) records"
        exit 77
      }
      cat big.jsonl big.jsonl > bigger.jsonl && mv bigger.jsonl big.jsonl # later runs repeat the first
    done
    echo "SIG$sig during $cmd on $(wc -l < big.jsonl) records: exit 130"
  done
}

case $what in
  report | cache | suite | interrupt) "$what" ;;
  *) fail "unknown test '$what'" ;;
esac
