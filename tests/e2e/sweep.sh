#!/usr/bin/env bash
# sweep.sh FLOWBENCH SOURCE_DIR WORK_DIR - the sweep runner and the tuner
# end to end: pruning and a failing configuration recorded while the sweep
# goes on; --limit, SIGINT and kill -9 each followed by --resume with no
# record lost or duplicated; tune -> cache -> spmv/sweep --tuned with the
# exact, nearest and default fallbacks; a strategy replayed on a recorded
# exhaustive sweep; a start-point prior fit to recorded sweeps and used by a
# replay (leaving the replayed matrix out) and by a measured search.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src"
suites=tests/data/suites
fail() { echo "FAIL: $*" >&2; exit 1; }
# a command that ends the script under set -e says where, not only ctest's "Failed"
set -E
trap 'err=$?; [[ $- != *e* ]] || echo "FAIL: sweep.sh line $LINENO: a command exited $err" >&2' ERR
measurements() { jq -c 'select(.type == "measurement" and .benchmark != "stream")' "$1"; }
count() { measurements "$1" | jq -s "map(select($2)) | length"; }
# Every configuration of the plan exactly once: N records, N distinct keys.
exactly_once() { # FILE N
  local n keys
  n=$(measurements "$1" | wc -l)
  keys=$(measurements "$1" | jq -r .sweep_key | sort -u | wc -l)
  [ "$n" -eq "$2" ] && [ "$keys" -eq "$2" ] || fail "$1: $n records, $keys distinct keys, want $2 of each"
}
wait_records() { # FILE N PID: until FILE has N measurement records
  for _ in $(seq 300); do
    [ -f "$1" ] && [ "$(measurements "$1" | wc -l)" -ge "$2" ] && return 0
    kill -0 "$3" 2>/dev/null || fail "the sweep ended before $2 records"
    sleep 0.1
  done
  fail "no $2 records in 30 s"
}

echo "== a matrix that does not parse: the suite is refused before anything is measured"
code=0
"$bin" sweep $suites/bad-matrix.suite --out "$work/bad.jsonl" 2> "$work/bad.log" || code=$?
[ "$code" -eq 2 ] || fail "a suite with a bad matrix exited $code, want 2"
[ ! -e "$work/bad.jsonl" ] || fail "a refused suite wrote $work/bad.jsonl"
grep -q 'bad-matrix.suite: case vector: matrix .*bad_field.mtx cannot be opened: .*line 1' "$work/bad.log" ||
  fail "the refusal does not name the suite, the matrix and the problem: $(cat "$work/bad.log")"

echo "== pruning is a record, not a failure; the sweep goes on and exits 0"
"$bin" sweep $suites/e2e.suite --out "$work/e2e.jsonl" 2> "$work/e2e.log" || fail "sweep exited $?"
exactly_once "$work/e2e.jsonl" 12
[ "$(count "$work/e2e.jsonl" '.status == "ok"')" -eq 6 ] || fail "want 6 ok"
[ "$(count "$work/e2e.jsonl" '.status == "pruned"')" -eq 6 ] || fail "want 6 pruned"
[ "$(count "$work/e2e.jsonl" '.status == "ok" and .fraction_of_stream > 0 and .suite == "e2e" and .case == "vector"')" -eq 6 ] ||
  fail "ok records lack suite, case or the stream fraction"
grep -q '6 pruned' "$work/e2e.log" || fail "summary lacks the pruned count"

echo "== --dry-run: the same plan and prunes, nothing measured or written"
"$bin" sweep $suites/e2e.suite --dry-run --out "$work/dry.jsonl" > "$work/dry.txt" 2> /dev/null || fail "dry run exited $?"
[ ! -e "$work/dry.jsonl" ] || fail "--dry-run wrote a results file"
grep -q '12 configurations planned; 6 would run, 6 pruned' "$work/dry.txt" || fail "dry run counts: $(tail -1 "$work/dry.txt")"
diff <(sed -n 's/  pruned: .*//p' "$work/dry.txt" | sort) \
  <(jq -r 'select(.status == "pruned") | .sweep_key' "$work/e2e.jsonl" | sort) > /dev/null ||
  fail "the dry run prunes other configurations than the sweep"

echo "== --filter: the configurations it matches, recorded; --resume must give the same"
"$bin" sweep $suites/e2e.suite --filter '^bcsr$' --out "$work/filter.jsonl" 2> "$work/filter.log" ||
  fail "filtered sweep exited $?"
[ "$(jq -s '[.[] | select(.type == "measurement" and .benchmark != "stream")] | length' "$work/filter.jsonl")" -eq 4 ] &&
  jq -e -s 'all(.[] | select(.type == "measurement" and .benchmark != "stream"); .kernel == "bcsr")' \
    "$work/filter.jsonl" > /dev/null || fail "--filter ^bcsr$ ran other kernels"
if "$bin" sweep $suites/e2e.suite --out "$work/filter.jsonl" --resume 2> "$work/filter2.log"; then
  fail "--resume without the recorded --filter was accepted"
fi
grep -q -- '--filter differs' "$work/filter2.log" || fail "no message naming --filter: $(cat "$work/filter2.log")"

echo "== --limit then --resume"
"$bin" sweep $suites/e2e.suite --out "$work/limit.jsonl" --limit 5 2> "$work/limit.log"
exactly_once "$work/limit.jsonl" 5
grep -q -- '--resume' "$work/limit.log" || fail "a stopped sweep must say how to resume"
"$bin" sweep $suites/e2e.suite --out "$work/limit.jsonl" --resume --dry-run > "$work/dry-resume.txt"
# the 12 configurations less the 5 recorded (stream records are not in the plan)
[ "$(grep -c '  run$\|  pruned: ' "$work/dry-resume.txt")" -eq 7 ] &&
  grep -Eq '12 configurations planned, 5 already recorded in .*limit.jsonl \(not listed\); [0-9]+ would run' \
    "$work/dry-resume.txt" || fail "--resume --dry-run does not list only what is missing: $(tail -1 "$work/dry-resume.txt")"
"$bin" sweep $suites/e2e.suite --out "$work/limit.jsonl" --resume 2> "$work/resume.log"
grep -q 'resuming .*: 5 of 12' "$work/resume.log" || fail "resume did not find the 5 records"
exactly_once "$work/limit.jsonl" 12
[ "$(jq -s 'map(select(.benchmark == "stream")) | length' "$work/limit.jsonl")" -eq 5 ] ||
  fail "resume measured the stream again"
# the read ceiling of the first run's stream reaches the resumed records too
jq -e -s '[.[] | select(.benchmark == "spmv" and .fraction_of_stream != null)] | length > 0
          and all(.[]; .read_gbs > 0)' "$work/limit.jsonl" > /dev/null ||
  fail "spmv records without the read ceiling: $(jq -c 'select(.benchmark == "spmv") | [.kernel, .read_gbs]' "$work/limit.jsonl")"

echo "== SIGINT stops cleanly; --resume runs only what is missing"
"$bin" sweep $suites/slow.suite --out "$work/int.jsonl" 2> "$work/int.log" &
pid=$!
wait_records "$work/int.jsonl" 2 $pid
kill -INT $pid
code=0
wait $pid || code=$?
[ "$code" -eq 130 ] || fail "interrupted sweep exited $code, want 130"
[ ! -e "$work/int.jsonl.inflight" ] || fail "a clean stop left the in-flight marker"
before=$(measurements "$work/int.jsonl" | wc -l)
[ "$before" -lt 8 ] || fail "the interrupt came too late to test anything"
"$bin" sweep $suites/slow.suite --out "$work/int.jsonl" --resume 2> "$work/int2.log"
exactly_once "$work/int.jsonl" 8
[ "$(count "$work/int.jsonl" '.status == "ok"')" -eq 8 ] || fail "resumed records not all ok"

echo "== kill -9 inside a configuration: recorded as crashed on --resume"
"$bin" sweep $suites/slow.suite --out "$work/kill.jsonl" 2> "$work/kill.log" &
pid=$!
wait_records "$work/kill.jsonl" 2 $pid
for _ in $(seq 100); do # until the marker names a configuration the file lacks
  key=$(cat "$work/kill.jsonl.inflight" 2>/dev/null || true)
  # grep, not jq: the slow suite's records are hundreds of KB, and a check that
  # takes longer than a configuration kills the sweep in the next one, or
  # between a record's write and its marker's removal (no crash to find)
  [ -n "$key" ] && ! grep -qF "\"sweep_key\":\"$key\"" "$work/kill.jsonl" && break
  sleep 0.05
done
kill -9 $pid
wait $pid || true
[ -s "$work/kill.jsonl.inflight" ] || fail "no in-flight marker after kill -9"
victim=$(cat "$work/kill.jsonl.inflight")
code=0
"$bin" sweep $suites/slow.suite --out "$work/kill.jsonl" --resume 2> "$work/kill2.log" || code=$?
[ "$code" -eq 1 ] || fail "a sweep that recorded a crashed configuration exited $code, want 1"
grep -q 'sweep slow: 1 configuration(s) failed to run and 0 gave a wrong result' "$work/kill2.log" ||
  fail "no failure summary line: $(tail -3 "$work/kill2.log")"
exactly_once "$work/kill.jsonl" 8
[ "$(measurements "$work/kill.jsonl" | jq -r 'select(.status == "crashed") | .sweep_key')" = "$victim" ] ||
  fail "the configuration killed is not the one recorded as crashed"
[ ! -e "$work/kill.jsonl.inflight" ] || fail "the in-flight marker outlived the sweep"

echo "== tune stores the best point; spmv --tuned: exact, nearest, default"
cache=$work/cache/tuning.json
"$bin" tune --matrix gen:cube:8 --kernel csr-vector --strategy exhaustive --budget 0.02 --min-samples 3 \
  --cache "$cache" --out "$work/tune.jsonl" --no-variants > "$work/tune.txt" 2> "$work/tune.log"
grep -q '41 of 42 points evaluated (1 pruned)' "$work/tune.txt" || fail "exhaustive did not evaluate every point the device takes"
grep -q 'stored in' "$work/tune.txt" || fail "tune did not store its result"
[ "$(jq '.entries | length' "$cache")" -eq 1 ] || fail "cache should hold one entry"
best=$(jq -cS '.entries[0].params' "$cache")
# tune --out: every evaluation says its search; the search's best is written again, marked, with the
# counts; it is among what the confirmation in fresh processes measured again, and the entry is its choice
jq -e -s --slurpfile c "$cache" '[.[] | select(.type == "measurement")]
    | all(.search.strategy == "exhaustive" and .search.seed == 1 and .search.evaluation >= 1)
      and (map(select(.search.best)) | length == 1 and .[0].search.evaluations == 41 and .[0].search.space_size == 42
           and (.[0].params as $p | $c[0].entries[0].confidence.candidates | map(.params) | index($p) != null))' \
  "$work/tune.jsonl" > /dev/null || fail "tune --out records lack their search, or the best is not marked"
tuned() { "$bin" spmv --no-stream --tuned --cache "$cache" --json --min-samples 3 --budget 0.02 "$@" 2>/dev/null; }
[ "$(tuned --matrix gen:cube:8 --kernel csr-vector | jq -r .tuning.source)" = exact ] || fail "no exact match"
[ "$(tuned --matrix gen:cube:8 --kernel csr-vector | jq -cS .params)" = "$best" ] || fail "exact match ran other params"
[ "$(tuned --matrix gen:cube:11 --kernel csr-vector | jq -r .tuning.source)" = nearest ] || fail "no nearest match"
# --out naming the tuning cache (given, or the default one) would append records to it: refused, the cache kept
cp "$cache" "$work/cache.before"
mkdir -p "$FLOWBENCH_CACHE_DIR" && cp "$cache" "$FLOWBENCH_CACHE_DIR/tuning.json"
refused_out() { # ARGS: exit 2, refusing to write over the cache
  local code=0
  "$bin" "$@" > /dev/null 2> "$work/tuned-out.err" || code=$?
  [ "$code" = 2 ] && grep -q 'is the input .*refusing to overwrite it' "$work/tuned-out.err" ||
    fail "$*: exit $code, $(cat "$work/tuned-out.err")"
}
for run in "spmv --matrix gen:cube:8 --no-stream --tuned --cache $cache --out $work/cache/./tuning.json" \
           "spmv --matrix gen:cube:8 --no-stream --tuned --out $FLOWBENCH_CACHE_DIR/tuning.json" \
           "grid --family heat2d --grid grid:16x16 --no-stream --tuned --out $FLOWBENCH_CACHE_DIR/tuning.json" \
           "sweep $suites/e2e.suite --tuned --cache $cache --out $cache"; do
  refused_out $run
done
cmp -s "$cache" "$work/cache.before" && cmp -s "$FLOWBENCH_CACHE_DIR/tuning.json" "$work/cache.before" ||
  fail "--tuned --out wrote into the tuning cache"
rm "$FLOWBENCH_CACHE_DIR/tuning.json"
# ... and so is a cache not made yet (an empty one to --tuned): records written
# there made the next --tuned refuse it as "not valid JSON"
for run in "spmv --matrix gen:cube:8 --no-stream --tuned --out $FLOWBENCH_CACHE_DIR/tuning.json" \
           "spmv --matrix gen:cube:8 --no-stream --tuned --cache $work/new-cache.json --out $work/./new-cache.json" \
           "solve cavity --level 0 --steps 1 --backend opencl --tuned --out $FLOWBENCH_CACHE_DIR/tuning.json"; do
  refused_out $run
done
[ ! -e "$FLOWBENCH_CACHE_DIR/tuning.json" ] && [ ! -e "$work/new-cache.json" ] || fail "--tuned --out made the tuning cache"
[ "$(tuned --matrix gen:cube:8 --kernel csr-vector --precision single | jq -r .tuning.source)" = default ] ||
  fail "another precision must fall back to the defaults"
[ "$(tuned --matrix gen:cube:8:block=2 --kernel csr-vector | jq -r .tuning.source)" = default ] ||
  fail "another block size must fall back to the defaults"

echo "== sweep --tuned runs each kernel once, saying where its point came from"
"$bin" sweep $suites/e2e.suite --tuned --cache "$cache" --out "$work/tuned.jsonl" 2> "$work/tuned.log" ||
  fail "sweep --tuned exited $?"
# the cache was tuned on gen:cube:8, the suite runs gen:cube:6 and 5: the nearest signature
[ "$(count "$work/tuned.jsonl" '.kernel == "csr-vector" and .tuning.source == "nearest"')" -eq 2 ] ||
  fail "sweep --tuned did not use the nearest entry"
[ "$(measurements "$work/tuned.jsonl" | jq -cS 'select(.kernel == "csr-vector" and .status == "ok") | .params' | sort -u)" = "$best" ] ||
  fail "sweep --tuned ran other params than the cached ones"
[ "$(count "$work/tuned.jsonl" '.kernel == "bcsr" and .status == "pruned"')" -eq 2 ] || fail "bcsr should be pruned once per matrix"

echo "== the resume hint repeats every option that shapes the plan; --resume with other options is refused"
"$bin" sweep $suites/e2e.suite --backend openmp --tuned --cache "$cache" --out "$work/hint.jsonl" --limit 1 \
  2> "$work/hint.log"
hint=$(sed -n 's/.*continue with: //p' "$work/hint.log")
case "$hint" in
  "flowbench sweep $suites/e2e.suite --out $work/hint.jsonl --resume --backend openmp --tuned --cache $cache") ;;
  *) fail "resume hint: '$hint'" ;;
esac
for opts in "" "--backend openmp" "--backend openmp --tuned --cache $work/other.json"; do
  code=0
  "$bin" sweep $suites/e2e.suite --out "$work/hint.jsonl" --resume $opts 2> "$work/hint2.log" || code=$?
  [ "$code" -eq 2 ] || fail "--resume with '$opts' exited $code, want 2"
  [ "$(grep -c differs "$work/hint2.log")" -eq 1 ] && tail -1 "$work/hint2.log" | grep -Eq -- '--resume: --(backend|tuned|cache) differs: ' ||
    fail "--resume with '$opts': want one line naming the option: $(cat "$work/hint2.log")"
done
exactly_once "$work/hint.jsonl" 1
eval "\"\$bin\"${hint#flowbench}" 2> "$work/hint3.log" || fail "the resume hint failed: $(tail -1 "$work/hint3.log")"
exactly_once "$work/hint.jsonl" 4
[ "$(jq -s 'map(select(.type == "header" and .sweep.tuned and .sweep.backends == ["openmp"])) | length' \
  "$work/hint.jsonl")" -eq 2 ] || fail "headers do not record the sweep's options"

echo "== --repeat N: the plan N times, round after round; the hint and --resume keep N"
"$bin" sweep $suites/e2e.suite --repeat 2 --out "$work/rep.jsonl" --limit 15 2> "$work/rep.log"
hint=$(sed -n 's/.*continue with: //p' "$work/rep.log")
case "$hint" in *" --repeat 2") ;; *) fail "repeat resume hint: '$hint'" ;; esac
code=0
"$bin" sweep $suites/e2e.suite --out "$work/rep.jsonl" --resume 2> "$work/rep2.log" || code=$?
[ "$code" -eq 2 ] && grep -q -- '--resume: --repeat differs: .* with --repeat 2, this command has no --repeat' "$work/rep2.log" ||
  fail "--resume without --repeat: exit $code, $(tail -1 "$work/rep2.log")"
eval "\"\$bin\"${hint#flowbench}" 2> "$work/rep3.log" || fail "the repeat resume hint failed: $(tail -1 "$work/rep3.log")"
[ "$(jq -s '[.[] | select(.type == "measurement")] | map(.sweep_key) | (length == (unique | length))' "$work/rep.jsonl")" = true ] ||
  fail "--repeat: a sweep_key recorded twice"
for r in 1 2; do
  [ "$(count "$work/rep.jsonl" ".round == $r and .rounds == 2")" -eq 12 ] ||
    fail "--repeat 2: round $r does not hold the 12 configurations once each"
  [ "$(jq -s "map(select(.benchmark == \"stream\" and .round == $r)) | length" "$work/rep.jsonl")" -eq 5 ] ||
    fail "--repeat 2: round $r has no stream run"
done
[ "$(jq -rs '[.[] | select(.type == "measurement") | .round] | . == sort' "$work/rep.jsonl")" = true ] ||
  fail "--repeat: round 2 started before round 1 ended"
count "$work/rep.jsonl" '.round == 2 and (.sweep_key | endswith("|round=2") | not)' | grep -qx 0 ||
  fail "--repeat: a round-2 key without its round"

echo "== a kernel's default point is never abandoned; a point is abandoned only after a second look"
"$bin" sweep $suites/abandon.suite --out "$work/abandon.jsonl" 2> "$work/abandon.log" || fail "abandon sweep: $(tail -1 "$work/abandon.log")"
[ "$(count "$work/abandon.jsonl" '.params.VECTOR_SIZE == 8 and .status == "ok"')" -eq 1 ] ||
  fail "the default point was not measured: $(measurements "$work/abandon.jsonl" | jq -c '[.params, .status]')"
[ "$(count "$work/abandon.jsonl" '.status == "abandoned" and .attempts != 2')" -eq 0 ] ||
  fail "a point was recorded abandoned without a second look"

echo "== a strategy replayed on the recorded exhaustive sweep"
"$bin" tune --matrix gen:cube:8 --kernel csr-vector --strategy anneal --replay "$work/tune.jsonl" --seeds 20 \
  > "$work/replay.txt" 2> "$work/replay.log" || fail "tune --replay exited $?: $(tail -3 "$work/replay.log")"
grep -Eq 'replay over 20 seeds: .* within 5% of the optimum in [0-9]+' "$work/replay.txt" || fail "no replay summary"
grep -Eq 'recorded optimum: [0-9.]+ ms over [0-9]+ evaluable points of [0-9]+: WG_SIZE=[0-9]+ VECTOR_SIZE=[0-9]+$' \
  "$work/replay.txt" || fail "no recorded optimum with its point"
# where the 20 seeds ended: distinct points whose seeds add up to 20, the
# recorded optimum's ratio 1.000x
[ "$(sed -n 's/^  ends: .* in \([0-9]*\) seeds (.*/\1/p' "$work/replay.txt" | awk '{ n += $1 } END { print n }')" = 20 ] ||
  fail "the seeds' end points do not add up to 20: $(grep ends: "$work/replay.txt")"
[ "$(grep '^  ends: ' "$work/replay.txt" | sort -u | wc -l)" = "$(grep -c '^  ends: ' "$work/replay.txt")" ] ||
  fail "an end point is listed twice"
opt=$(sed -n 's/.*recorded optimum: .*: //p' "$work/replay.txt")
! grep -q "^  ends: $opt in " "$work/replay.txt" || grep -q "^  ends: $opt in [0-9]* seeds (1.000x)" "$work/replay.txt" ||
  fail "the optimum's own end point is not 1.000x"
echo "== the rounds of a sweep --repeat run are one cost (their median); a later run replaces an earlier one"
# from tune.jsonl's points: an earlier run where one point is 1 ns, then 3
# rounds of a later one where the slowest point is 1 ns in the last round
# (a transient): the median of the rounds ignores it, the earlier run is gone
ok='select(.type == "measurement" and .status == "ok" and (.search.best | not))'
slowest=$(jq -cS -s "map($ok) | max_by(.stats.median_s) | .params" "$work/tune.jsonl")
fastest=$(jq -cS -s "map($ok) | min_by(.stats.median_s) | .params" "$work/tune.jsonl")
{ jq -c 'select(.type == "header")' "$work/tune.jsonl" | head -1
  jq -c --argjson p "$fastest" "$ok"' | .run_id = "old" | .stats.median_s = (if .params == $p then 1 else 1e-9 end)' "$work/tune.jsonl"
  for r in 1 2 3; do
    jq -c --argjson p "$slowest" --argjson r $r "$ok"' | .run_id = "new" | .round = $r | .rounds = 3
        | if $r == 3 and .params == $p then .stats.median_s = 1e-9 else . end' "$work/tune.jsonl"
  done; } > "$work/rounds.jsonl"
optimum=$(jq -s "map($ok) | min_by(.stats.median_s) | .stats.median_s * 1e3" "$work/tune.jsonl")
"$bin" tune --matrix gen:cube:8 --kernel csr-vector --strategy exhaustive --replay "$work/rounds.jsonl" \
  --no-variants > "$work/rounds.txt" 2>&1 || fail "replay of rounds: $(tail -1 "$work/rounds.txt")"
grep -q "recorded optimum: $(printf %.4f "$optimum") ms" "$work/rounds.txt" ||
  fail "replay of rounds: not the median of the rounds ($(printf %.4f "$optimum") ms): $(grep optimum "$work/rounds.txt")"
"$bin" tune --fit-prior "$work/rounds.jsonl" --prior "$work/rounds-prior.json" > /dev/null
jq -e --argjson t "$optimum" '.entries[0].best | (.median_s * 1e3 / $t - 1) | fabs < 1e-5' \
  "$work/rounds-prior.json" > /dev/null || fail "--fit-prior of rounds: $(jq -c '.entries[0].best' "$work/rounds-prior.json")"
# a record whose row statistics overflow (a cv no double holds): the file and line named, exit 2
jq -c 'if .type == "measurement" then .matrix.nnz_per_row.stddev = 1e308 | .matrix.nnz_per_row.mean = 1e-300 else . end' \
  "$work/tune.jsonl" > "$work/overflow.jsonl"
code=0
"$bin" tune --fit-prior "$work/overflow.jsonl" --prior "$work/overflow-prior.json" > /dev/null 2> "$work/overflow.err" || code=$?
[ "$code" = 2 ] && grep -q 'overflow.jsonl: line [0-9]*: matrix: "nnz_per_row" .*gives no finite spread' "$work/overflow.err" ||
  fail "fit-prior of overflowing statistics: exit $code, $(cat "$work/overflow.err")"
echo "== a prior fit beside the cache; tune --replay starts from it, its own matrix left out"
"$bin" tune --matrix gen:cube:6 --kernel csr-vector --strategy exhaustive --budget 0.02 --min-samples 3 \
  --no-cache --out "$work/tune6.jsonl" --no-variants > /dev/null 2> "$work/tune6.log"
"$bin" tune --fit-prior "$work/tune.jsonl" "$work/tune6.jsonl" --cache "$cache" > "$work/fit.txt"
prior=$work/cache/tuning-prior.json
jq -e '.entries | length == 2 and all(.kernel == "csr-vector")' "$prior" > /dev/null || fail "prior: not 2 landscapes"
jq -e --arg a "$work/tune.jsonl" '.fit_from[0].path == $a and (.fit_from[0].hash | length) == 16
    and (.fit_from[0].devices | length) == 1' "$prior" > /dev/null || fail "prior: fit_from lacks path, hash, device"
"$bin" tune --matrix gen:cube:8 --kernel csr-vector --replay "$work/tune.jsonl" --cache "$cache" --start prior \
  --seeds 5 --no-variants > "$work/prior.txt" 2> "$work/prior.log"
grep -q "start: .*the prior's ($prior: from gen:cube:6; gen:cube:8 itself left out)" "$work/prior.txt" ||
  fail "replay did not start from the prior without its own matrix: $(grep start: "$work/prior.txt")"
grep -q 'replay over 5 seeds' "$work/prior.txt" || fail "no replay summary from the prior's start"
# fit to gen:cube:8 alone, the prior has nothing once gen:cube:8 is left out
"$bin" tune --fit-prior "$work/tune.jsonl" --prior "$work/self.json" > /dev/null
set +e
"$bin" tune --matrix gen:cube:8 --kernel csr-vector --replay "$work/tune.jsonl" --prior "$work/self.json" \
  --start prior --no-variants > /dev/null 2> "$work/self.log"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "no landscape of csr-vector in double precision but the replayed matrix's" "$work/self.log" ||
  fail "replay with a prior of only its own matrix: exit $rc, $(cat "$work/self.log")"
# measured: every record's search says where it started
"$bin" tune --matrix gen:cube:6 --kernel csr-vector --evals 3 --budget 0.02 --min-samples 3 --cache "$cache" \
  --no-cache --no-variants --out "$work/tunep.jsonl" > "$work/tunep.txt" 2> /dev/null
start=$(jq -c 'select(.type == "measurement") | .search.start.params' "$work/tunep.jsonl" | head -1)
jq -e -s --argjson start "$start" '[.[] | select(.type == "measurement")]
    | all(.search.start.source == "prior" and .search.start.from == ["gen:cube:6", "gen:cube:8"])
      and .[0].params == $start' "$work/tunep.jsonl" > /dev/null ||
  fail "tune --out records do not say the prior's start, or the search did not begin there"
"$bin" tune --matrix gen:cube:6 --kernel csr-vector --evals 3 --budget 0.02 --min-samples 3 --cache "$cache" \
  --no-cache --no-variants --start default --out "$work/tuned-default.jsonl" > /dev/null 2>&1
jq -e -s '[.[] | select(.type == "measurement")] | all(.search.start == {"source": "default", "why": "--start default"})
    and .[0].params == {"WG_SIZE": 128, "VECTOR_SIZE": 8}' "$work/tuned-default.jsonl" > /dev/null ||
  fail "tune --start default did not begin at the default or does not say so"
echo "== plot --beside: GB/s against a record field, rows in numeric order"
"$bin" plot "$work/tune.jsonl" --out "$work/beside" --scripts plots --beside params.VECTOR_SIZE > "$work/beside.txt"
table=$(ls "$work"/beside/beside-params.vector-size-*.csv)
[ "$(tail -n +2 "$table" | cut -d, -f1 | tr '\n' ' ')" = "1 2 4 8 16 32 64 " ] || fail "beside table rows: $(cat "$table")"
[ -s "${table%.csv}.png" ] && [ -s "${table%.csv}.svg" ] || fail "no beside figure drawn"
"$bin" plot "$work/tune.jsonl" --out "$work/nobeside" --scripts plots > "$work/nobeside.txt"
! ls "$work"/nobeside/beside-* >/dev/null 2>&1 || fail "a beside figure without --beside"
echo "sweep e2e: all checks passed"
