#!/usr/bin/env bash
# sweep_mpi.sh FLOWBENCH SOURCE_DIR WORK_DIR - a sweep across ranks and
# shares (docs/scaling.md), on Open MPI over loopback ($FB_MPIEXEC,
# the environment of flowbench_mpi_test): 2 ranks sweep one suite into one
# file, every configuration once, each record saying its rank and host; a
# rank killed mid-sweep, then `mpirun ... --resume`, loses nothing and
# doubles nothing; a rank that cannot write its file stops alone while the
# others finish; --limit per rank resumed by one process; a join cut short
# finished, not doubled, and a stopped rank's configuration run again, a
# dead one's crashed; --shard 1/2 and 2/2 merged equal the whole plan;
# merge refuses a duplicate and a foreign header; a rank that cannot start
# stops every rank, no hang.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src"
suites=tests/data/suites
mpiexec=${FB_MPIEXEC:-mpiexec}
# a GPU node that got this build carries no MPI launcher: said, not failed
command -v "$mpiexec" > /dev/null || { echo "skipped: no MPI launcher ($mpiexec) on this machine"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# Every launch is bounded: a sweep that hangs fails the test, not ctest's time-out.
mpi() { timeout -k 5 60 "$mpiexec" -np "$@"; }
measurements() { jq -c 'select(.type == "measurement" and .benchmark != "stream")' "$1"; }
count() { measurements "$1" | jq -s "map(select($2)) | length"; }
keys() { measurements "$1" | jq -r .sweep_key | sort; }
exactly_once() { # FILE N: N records, N distinct keys
  local n k
  n=$(keys "$1" | wc -l)
  k=$(keys "$1" | sort -u | wc -l)
  [ "$n" -eq "$2" ] && [ "$k" -eq "$2" ] || fail "$1: $n records, $k distinct keys, want $2 of each"
}
# slow.suite's records hold thousands of samples each: read once, as KEY<tab>STATUS lines.
key_status() { jq -r 'select(.type == "measurement" and .benchmark != "stream") | [.sweep_key, .status] | @tsv' "$1"; }
configurations() { grep -c '"kernel":"csr-' "$1" 2>/dev/null || true; } # FILE: the slow suite's records so far
no_leftovers() { # FILE: the rank files and markers are gone
  ! ls "$1".rank-* "$1".inflight >/dev/null 2>&1 || fail "left beside $1: $(ls "$1".rank-* "$1".inflight 2>/dev/null)"
}
# The pid of rank R of the launch writing FILE (Open MPI names the rank in the environment).
rank_pid() { # FILE R
  local p
  for p in $(pgrep -f "flowbench sweep .*--out $1"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && { echo "$p"; return 0; }
  done
  return 1
}

echo "== 2 ranks, one file: every configuration once, each record says its rank and host"
mpi 2 "$bin" sweep $suites/e2e.suite --out "$work/two.jsonl" 2> "$work/two.log" || fail "2-rank sweep: $(tail -3 "$work/two.log")"
exactly_once "$work/two.jsonl" 12
[ "$(count "$work/two.jsonl" '.status == "ok"')" -eq 6 ] && [ "$(count "$work/two.jsonl" '.status == "pruned"')" -eq 6 ] ||
  fail "want 6 ok and 6 pruned, as on one process"
[ "$(count "$work/two.jsonl" '(.rank == 0 or .rank == 1) and .ranks == 2 and (.host | type == "string" and length > 0)')" -eq 12 ] ||
  fail "records lack rank, ranks or host: $(measurements "$work/two.jsonl" | jq -c '[.rank, .ranks, .host]' | sort | uniq -c)"
[ "$(count "$work/two.jsonl" '.rank == 0')" -eq 6 ] || fail "the plan is not dealt 6 and 6"
[ "$(jq -s 'map(select(.type == "header")) | length' "$work/two.jsonl")" -eq 1 ] || fail "want one header"
[ "$(jq -s 'map(select(.type == "header"))[0] | [.ranks, (.devices | map(.rank) | sort)] == [2, [0, 1]]' "$work/two.jsonl")" = true ] ||
  fail "the header does not list both ranks' devices"
[ "$(jq -r .run_id "$work/two.jsonl" | sort -u | wc -l)" -eq 1 ] || fail "the ranks' records are not one run"
[ "$(count "$work/two.jsonl" '.fraction_of_stream > 0')" -eq 6 ] || fail "ok records lack their rank's stream fraction"
[ "$(jq -s 'map(select(.benchmark == "stream" and .kernel == "triad")) | map(.rank) | sort' "$work/two.jsonl" | jq -c .)" = "[0,1]" ] ||
  fail "each rank measures its own stream reference"
grep -q '^\[rank 1/2 [^]]*\] \[ *[0-9]*/6\] ' "$work/two.log" || fail "progress lines do not say the rank"
[ "$(grep -c '^sweep e2e: 12 configurations on 2 ranks' "$work/two.log")" -eq 1 ] || fail "want one summary, rank 0's"
no_leftovers "$work/two.jsonl"

echo "== a rank killed mid-sweep; mpirun --resume runs only what is missing"
# slow.suite twice (--repeat 2): 16 configurations of 0.3 s, 8 per rank
out=$work/kill.jsonl
mpi 2 "$bin" sweep $suites/slow.suite --repeat 2 --out "$out" 2> "$work/kill.log" &
launch=$!
pid="" killed=""
for _ in $(seq 500); do # rank 1 has recorded one configuration and is inside another
  [ -n "$pid" ] || pid=$(rank_pid "$out" 1 || true)
  n=$(configurations "$out.rank-1")
  if [ -n "$pid" ] && [ "${n:-0}" -ge 1 ]; then
    key=$(head -1 "$out.rank-1.inflight" 2>/dev/null || true)
    if [ -n "$key" ] && ! grep -qF -- "\"sweep_key\":\"$key\"" "$out.rank-1"; then
      kill -9 "$pid" && killed=1 && break
    fi
  fi
  sleep 0.02
done
[ -n "$killed" ] || fail "rank 1 never was inside a configuration: $(tail -3 "$work/kill.log")"
code=0
wait $launch || code=$?
[ "$code" -ne 0 ] && [ "$code" -ne 124 ] || fail "the launch with a killed rank exited $code"
[ "$(configurations "$out.rank-1")" -ge 1 ] && [ "$(configurations "$out")" -ge 1 ] ||
  fail "a rank's records are gone, or rank 0 recorded none before the kill"
# What rank 1 was in when the kill landed: its marker's configuration, unless
# the kill fell between a record and the next marker (then none is lost).
victim=$(head -1 "$out.rank-1.inflight" 2>/dev/null || true)
grep -qF -- "\"sweep_key\":\"$victim\"" "$out.rank-1" && victim=""
want=1 crashed=1
[ -n "$victim" ] || want=0 crashed=0
code=0
mpi 2 "$bin" sweep $suites/slow.suite --repeat 2 --out "$out" --resume 2> "$work/kill2.log" || code=$?
[ "$code" -eq "$want" ] ||
  fail "the resume exited $code, want $want ($crashed crashed): $(tail -3 "$work/kill2.log")"
grep -q "joined [1-9][0-9]* record(s) of 1 rank file(s) a run that did not end left" "$work/kill2.log" ||
  fail "the resume did not join rank 1's file: $(grep sweep: "$work/kill2.log" | head -5)"
key_status "$out" > "$work/kill.tsv"
[ "$(wc -l < "$work/kill.tsv")" -eq 16 ] && [ "$(cut -f1 "$work/kill.tsv" | sort -u | wc -l)" -eq 16 ] ||
  fail "want the 16 configurations once each: $(cut -f1 "$work/kill.tsv" | sort | uniq -c)"
[ "$(awk -F'\t' '$2 == "crashed" { print $1 }' "$work/kill.tsv")" = "$victim" ] ||
  fail "want exactly the killed rank's configuration crashed (${victim:-none}): $(cat "$work/kill.tsv")"
[ "$(awk -F'\t' '$2 == "ok"' "$work/kill.tsv" | wc -l)" -eq $((16 - crashed)) ] ||
  fail "a configuration another rank was in was not run again"
no_leftovers "$out"

echo "== a rank that cannot write its file stops alone; the others finish; nothing hangs; --resume completes"
# rank 1 under a file size limit of 12 KB (SIGXFSZ ignored: its writes fail
# with EFBIG); over TCP, as the limit also refuses Open MPI's shared memory
out=$work/full.jsonl
code=0
OMPI_MCA_btl=self,tcp timeout -k 5 60 "$mpiexec" -np 1 "$bin" sweep $suites/e2e.suite --repeat 3 --out "$out" : \
  -np 1 bash -c "trap '' XFSZ && ulimit -f 12 && exec '$bin' sweep $suites/e2e.suite --repeat 3 --out '$out'" \
  2> "$work/full.log" || code=$?
[ "$code" -ne 0 ] && [ "$code" -ne 124 ] && [ "$code" -ne 137 ] || fail "a rank that cannot write: exit $code (124: a hang)"
grep -q "^flowbench: rank 1 of 2 ([^)]*): $out.rank-1: cannot write a record (File too large)" "$work/full.log" &&
  grep -q '^flowbench: rank 0 of 2 ([^)]*): another rank of the sweep stopped' "$work/full.log" &&
  grep -q "^sweep e2e: stopped with [0-9]* of 36 recorded; continue with" "$work/full.log" ||
  fail "the failing rank, rank 0 and the summary do not say it: $(grep -v '^\[' "$work/full.log" | head -8)"
[ "$(count "$out" '.rank == 0')" -eq 18 ] || fail "rank 0 did not finish its share"
mpi 2 "$bin" sweep $suites/e2e.suite --repeat 3 --out "$out" --resume 2> "$work/full2.log" || fail "resume: $(tail -2 "$work/full2.log")"
exactly_once "$out" 36
no_leftovers "$out"

echo "== --limit per rank, resumed by one process without mpirun"
mpi 2 "$bin" sweep $suites/e2e.suite --out "$work/limit.jsonl" --limit 2 2> "$work/limit.log" ||
  fail "--limit sweep: $(tail -3 "$work/limit.log")"
exactly_once "$work/limit.jsonl" 4
grep -q 'stopped with 4 of 12 recorded; continue with (under mpirun or srun, any number of ranks, or none): flowbench sweep' \
  "$work/limit.log" || fail "no resume hint: $(tail -2 "$work/limit.log")"
"$bin" sweep $suites/e2e.suite --out "$work/limit.jsonl" --resume 2> "$work/limit2.log" || fail "one-process resume"
grep -q 'resuming .*: 4 of 12' "$work/limit2.log" || fail "the resume did not find the ranks' 4 records"
exactly_once "$work/limit.jsonl" 12
[ "$(count "$work/limit.jsonl" '.ranks == 2')" -eq 4 ] && [ "$(count "$work/limit.jsonl" 'has("rank") | not')" -eq 8 ] ||
  fail "records of the ranks and of the one process are not told apart"

echo "== a join cut short is finished, not doubled; a rank stopped by a signal runs again, one that died is crashed"
# OUT as a kill of every rank leaves it: rank 1's file whole but for two
# configurations, its last 3 records already joined into OUT; the markers
# of rank 2 (stopped by the launcher's SIGTERM, then killed) and rank 3
# (died) inside those two
part=$work/part.jsonl
stopped='e2e|vector|gen:cube:5|openmp|double|bcsr|WG_SIZE=32'
died='e2e|vector|gen:cube:5|openmp|double|bcsr|WG_SIZE=64'
drop="select(.sweep_key != \"$stopped\" and .sweep_key != \"$died\")"
jq -c "select(.rank != 1) | $drop" "$work/two.jsonl" > "$part"
jq -c 'select(.type == "header")' "$work/two.jsonl" > "$part.rank-1"
jq -c "select(.rank == 1) | $drop" "$work/two.jsonl" >> "$part.rank-1"
tail -3 "$part.rank-1" >> "$part"
printf '%s\nsignalled\n' "$stopped" > "$part.rank-2.inflight"
printf '%s\n' "$died" > "$part.rank-3.inflight"
code=0
"$bin" sweep $suites/e2e.suite --out "$part" --resume 2> "$work/part.log" || code=$?
[ "$code" -eq 1 ] || fail "resume after a cut join exited $code, want 1 (one crashed): $(tail -2 "$work/part.log")"
grep -q "joined [0-9]* record(s) of 1 rank file(s) a run that did not end left (the rest were joined before)" "$work/part.log" ||
  fail "the cut join was not finished: $(grep sweep: "$work/part.log" | head -3)"
grep -q 'resuming .*: 10 of 12' "$work/part.log" || fail "the resume did not find the 10 records: $(grep resuming "$work/part.log")"
exactly_once "$part" 12
[ "$(count "$part" ".sweep_key == \"$died\" and .status == \"crashed\"")" -eq 1 ] &&
  [ "$(count "$part" ".sweep_key == \"$stopped\" and .status == \"pruned\"")" -eq 1 ] ||
  fail "want the died rank's configuration crashed and the stopped one's run again: $(measurements "$part" | jq -c 'select(.sweep_key | endswith("gen:cube:5|openmp|double|bcsr|WG_SIZE=32", "gen:cube:5|openmp|double|bcsr|WG_SIZE=64")) | [.sweep_key, .status]')"
no_leftovers "$part"

echo "== --shard 1/2 + 2/2, merged: the whole plan's keys, once each"
for i in 1 2; do
  "$bin" sweep $suites/e2e.suite --shard $i/2 --out "$work/shard$i.jsonl" 2> "$work/shard$i.log" ||
    fail "--shard $i/2: $(tail -1 "$work/shard$i.log")"
  [ "$(count "$work/shard$i.jsonl" ".shard == \"$i/2\" and (.host | length > 0)")" -eq 6 ] ||
    fail "shard $i: want 6 records saying shard $i/2 and host"
done
code=0
"$bin" sweep $suites/e2e.suite --shard 2/2 --out "$work/shard1.jsonl" --resume 2> "$work/other-share.log" || code=$?
[ "$code" -eq 2 ] && grep -q -- "--resume: --shard differs: .*shard1.jsonl was recorded with --shard 1/2, this command has --shard 2/2" \
  "$work/other-share.log" || fail "--resume of share 1 as share 2: exit $code, $(tail -1 "$work/other-share.log")"
"$bin" merge "$work/merged.jsonl" "$work/shard1.jsonl" "$work/shard2.jsonl" 2> "$work/merge.log" ||
  fail "merge: $(cat "$work/merge.log")"
[ "$(keys "$work/merged.jsonl")" = "$(keys "$work/two.jsonl")" ] || fail "the merged shares are not the plan's keys"
exactly_once "$work/merged.jsonl" 12
[ "$(jq -s 'map(select(.type == "header")) | length' "$work/merged.jsonl")" -eq 2 ] || fail "merge keeps each share's header"
"$bin" merge "$work/half.jsonl" "$work/shard2.jsonl" 2> "$work/half.log"
grep -q 'no input holds shard 1/2' "$work/half.log" || fail "merge does not name a missing share"

echo "== merge refuses a duplicate and a foreign header, writing nothing"
cp "$work/shard1.jsonl" "$work/again.jsonl"
code=0
"$bin" merge "$work/dup.jsonl" "$work/shard1.jsonl" "$work/again.jsonl" 2> "$work/dup.log" || code=$?
[ "$code" -eq 2 ] && [ "$(wc -l < "$work/dup.log")" -eq 1 ] || fail "duplicate: exit $code, $(cat "$work/dup.log")"
grep -q "recorded twice: $work/shard1.jsonl: line [0-9]* and $work/again.jsonl: line [0-9]*" "$work/dup.log" ||
  fail "the refusal does not name both files: $(cat "$work/dup.log")"
code=0
head -1 "$work/kill.jsonl" > "$work/slow-header.jsonl"
"$bin" merge "$work/foreign.jsonl" "$work/shard1.jsonl" "$work/slow-header.jsonl" 2> "$work/foreign.log" || code=$?
[ "$code" -eq 2 ] && grep -q "slow-header.jsonl: line 1: a header of another sweep (suite \"slow\", not \"e2e\"" "$work/foreign.log" ||
  fail "foreign header: exit $code, $(cat "$work/foreign.log")"
[ ! -e "$work/dup.jsonl" ] && [ ! -e "$work/foreign.jsonl" ] || fail "a refused merge wrote its output"

echo "== a rank that cannot start stops every rank, no hang"
exec 9> "$work/held.jsonl" # as a sweep holds it: flock, on a descriptor of this shell
flock -n 9 || fail "cannot lock $work/held.jsonl"
code=0
mpi 2 "$bin" sweep $suites/e2e.suite --out "$work/held.jsonl" 2> "$work/held.log" || code=$?
exec 9>&-
[ "$code" -ne 0 ] && [ "$code" -ne 124 ] && [ "$code" -ne 137 ] || fail "a sweep on a locked file exited $code (124: it hung)"
grep -q 'held.jsonl: another flowbench is writing to it' "$work/held.log" || fail "no reason given: $(cat "$work/held.log")"
[ ! -s "$work/held.jsonl" ] && no_leftovers "$work/held.jsonl" || fail "the refused sweep wrote something"
echo "sweep_mpi e2e: all checks passed"
