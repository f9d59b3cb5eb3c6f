#!/usr/bin/env bash
# history.sh FLOWBENCH SRCDIR WORKDIR - `flowbench history` and `compare
# --history` from the command line, on results files made from the shipped
# constructed-base.jsonl with jq (test data, not measurements):
#  - add stores a run; the same run again is refused (exit 2, one line);
#  - a killed add (kill -9 while its transaction writes a run of 40,000
#    records: its rollback journal is there) leaves the database as it was;
#  - adds from four processes at once keep every run;
#  - a planted 30% step in triad is found at its commit; --fail-on-regression
#    exits 1 and --junit names it; the other kernels have no change point;
#  - compare --history: an unchanged NEW passes, a 30% slower one is SLOWER;
#    a NEW of three rounds (sweep --repeat 3) is judged by their median
#    (exit 1); contended slow runs in the history do not move the baseline,
#    and detect sees them only with --include-flagged;
#  - plot writes the HTML page (and the figures when gnuplot is there),
#    merge joins two databases without copying a run twice, export is CSV;
#  - without --db the database is $FLOWBENCH_HISTORY_DB, else history.db in
#    $FLOWBENCH_CACHE_DIR;
#  - bad input (not a results file, not a database, no --commit) is one
#    line on stderr naming the problem, exit 2.
set -euo pipefail
bin=$1; src=$2; dir=$3
base=$src/tests/data/results/constructed-base.jsonl
rm -rf "$dir"; mkdir -p "$dir"
db=$dir/h.db
fail() { echo "FAIL: $*" >&2; exit 1; }

# run I FACTOR TRIAD_FACTOR [QUALITY]: commit I's results: every sample times
# FACTOR (triad's times TRIAD_FACTOR too), its own run id, stats.quality.
run() {
  jq -c --arg id "run-$1" --argjson f "$2" --argjson t "$3" --arg q "${4:-stable}" '
    .run_id = $id
    | if .type == "measurement" then
        ($f * (if .kernel == "triad" then $t else 1 end)) as $k
        | .stats.samples_s |= map(. * $k) | .stats.median_s *= $k
        | .stats.quality = $q | .stats.quality_why = (if $q == "stable" then "" else "test: a busy neighbour" end)
      else . end' "$base" > "$dir/run-$1.jsonl"
}
# expect_one_error RC REGEX CMD...: exits RC with exactly one stderr line matching REGEX.
expect_one_error() {
  local want=$1 regex=$2 rc=0; shift 2
  "$@" > "$dir/out.txt" 2> "$dir/err.txt" || rc=$?
  [ "$rc" = "$want" ] || { cat "$dir/err.txt"; fail "$*: exit $rc, expected $want"; }
  [ "$(wc -l < "$dir/err.txt")" = 1 ] || { cat "$dir/err.txt"; fail "$*: not one line on stderr"; }
  grep -Eq -- "$regex" "$dir/err.txt" || { cat "$dir/err.txt"; fail "$*: no /$regex/"; }
}
records() { "$bin" history export --db "$db" 2> /dev/null | tail -n +2 | wc -l; }

# Twelve commits with ±1% noise; triad 30% slower from commit 8 on.
noise=(1.000 1.008 0.994 1.004 0.997 1.010 0.992 1.002 1.006 0.996 1.001 0.993)
for i in $(seq 1 12); do
  run "$(printf %02d "$i")" "${noise[$((i - 1))]}" "$([ "$i" -ge 8 ] && echo 1.3 || echo 1)"
  "$bin" history add "$dir/run-$(printf %02d "$i").jsonl" --commit "c$(printf %02d "$i")" --when $((1000 + i)) \
    --db "$db" > /dev/null
done
[ "$(records)" = 36 ] || fail "12 runs of 3 records: $(records) stored"

expect_one_error 2 'is in .*already: added for commit c03' "$bin" history add "$dir/run-03.jsonl" --commit c99 --db "$db"
[ "$(records)" = 36 ] || fail "a duplicate add changed the database"

# A killed add leaves nothing: a run of 40,000 configurations (one record
# copied with a parameter of its own) takes seconds to write; it is killed
# once its transaction has begun writing (SQLite's rollback journal exists).
jq -c 'select(.type == "measurement")' "$base" | head -1 > "$dir/one.json"
{ jq -c 'select(.type != "measurement")' "$base"
  jq -c '. as $r | range(40000) | . as $i | $r | .run_id = "run-big" | .params.BIG = $i' "$dir/one.json"; } \
  > "$dir/run-big.jsonl"
"$bin" history add "$dir/run-big.jsonl" --commit c13 --when 1013 --db "$db" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 1000); do [ -e "$db-journal" ] && break; sleep 0.01; done
kill -9 "$pid" 2> /dev/null || true
rc=0; wait "$pid" 2> /dev/null || rc=$?
[ "$rc" = 137 ] || fail "the big add was not killed in its transaction (exit $rc): make its run larger"
[ "$(records)" = 36 ] || fail "a killed add left $(($(records) - 36)) record(s)"

# Concurrent adds keep everything (the killed add's lock is gone too).
for w in 1 2 3 4; do
  run "w$w" "1.00$w" 1.3
  "$bin" history add "$dir/run-w$w.jsonl" --commit "c12" --db "$db" > /dev/null &
done
wait
[ "$(records)" = 48 ] || fail "four concurrent adds: $(records) records, expected 48"

# The planted step.
rc=0
"$bin" history detect --db "$db" --fail-on-regression --junit "$dir/junit.xml" > "$dir/detect.txt" || rc=$?
[ "$rc" = 1 ] || { cat "$dir/detect.txt"; fail "detect --fail-on-regression: exit $rc, expected 1"; }
grep -Eq '^  at c08 \(commit 8 of 12, after c07\): \+30\.[0-9]% slower' "$dir/detect.txt" ||
  { cat "$dir/detect.txt"; fail "the step at c08 was not found"; }
[ "$(grep -c '^  at ' "$dir/detect.txt")" = 1 ] || { cat "$dir/detect.txt"; fail "change points besides c08"; }
grep -q 'testcase classname="stream/triad"' "$dir/junit.xml" || fail "junit: no triad case"
[ "$(grep -c '<failure type="REGRESSION"' "$dir/junit.xml")" = 1 ] || fail "junit: expected one failure"
if command -v xmllint > /dev/null; then xmllint --noout "$dir/junit.xml" || fail "junit.xml is not XML"; fi
"$bin" history detect --db "$db" --since c10 --fail-on-regression > /dev/null || fail "--since c10: nothing after it"

# compare --history, with contended slow runs stored after the step.
for i in 14 15 16; do
  run "$i" 1.6 1.3 contended
  "$bin" history add "$dir/run-$i.jsonl" --commit "c$i" --when $((1000 + i)) --db "$db" > /dev/null
done
"$bin" history show --filter copy --db "$db" | grep -q 'unstable or contended' || fail "show: flagged runs not shown"
"$bin" history detect --db "$db" --filter copy > "$dir/detect.txt"
grep -q '^  at ' "$dir/detect.txt" && { cat "$dir/detect.txt"; fail "detect counted contended runs"; }
"$bin" history detect --db "$db" --filter copy --include-flagged > "$dir/detect.txt"
grep -Eq '^  at c14 .*\+(59|60)\.[0-9]% slower' "$dir/detect.txt" || { cat "$dir/detect.txt"; fail "--include-flagged: no step at c14"; }
run new 1.003 1.3
"$bin" compare --history "$db" "$dir/run-new.jsonl" > "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "unchanged NEW"; }
grep -Eq '^SAME +stream copy' "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "copy is not SAME (contended runs in the baseline?)"; }
run slow 1.3 1.3
rc=0
"$bin" compare --history "$db" "$dir/run-slow.jsonl" --junit "$dir/cmp.xml" > "$dir/cmp.txt" || rc=$?
[ "$rc" = 1 ] && grep -Eq '^SLOWER +stream copy' "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "30% slower NEW: exit $rc"; }
grep -q '<failure type="SLOWER"' "$dir/cmp.xml" || fail "compare --history --junit: no SLOWER failure"

# NEW recorded with --repeat 3: its rounds' medians pooled (median of the
# three), so one slow last round is not a SLOWER, and three slow rounds are.
rounds() { # NAME FACTOR1 FACTOR2 FACTOR3: a run of three rounds of copy at those factors
  local name=$1; shift
  { jq -c --arg id "run-$name" 'select(.type != "measurement") | .run_id = $id' "$dir/run-new.jsonl"
    local k=1
    for f in "$@"; do
      run "$name-$k" "$f" 1.3
      jq -c --arg id "run-$name" --argjson k "$k" 'select(.type == "measurement") | .run_id = $id | .round = $k | .rounds = 3' \
        "$dir/run-$name-$k.jsonl"
      k=$((k + 1))
    done; } > "$dir/run-$name.jsonl"
}
rounds last-slow 1.0 1.003 1.3
"$bin" compare --history "$db" "$dir/run-last-slow.jsonl" > "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "one slow round of three"; }
grep -Eq '^SAME +stream copy.*\(of 3 rounds\)' "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "rounds not pooled"; }
rounds all-slow 1.3 1.31 1.3
rc=0
"$bin" compare --history "$db" "$dir/run-all-slow.jsonl" > "$dir/cmp.txt" || rc=$?
[ "$rc" = 1 ] && grep -Eq '^SLOWER +stream copy.*\(of 3 rounds\)' "$dir/cmp.txt" || { cat "$dir/cmp.txt"; fail "three slow rounds: exit $rc"; }

# plot, merge, export.
"$bin" history plot --db "$db" --out "$dir/plots" --no-figures > /dev/null
grep -q '<svg' "$dir/plots/index.html" && grep -q 'stream triad' "$dir/plots/index.html" || fail "plot: no trend page"
if command -v gnuplot > /dev/null; then
  "$bin" history plot --db "$db" --out "$dir/plots" --filter triad > /dev/null 2>&1 || fail "plot with gnuplot"
  [ -s "$dir/plots/history-1.png" ] && [ -s "$dir/plots/history-1.svg" ] || fail "plot: no figure"
fi
db2=$dir/h2.db
run other 1 1
"$bin" history add "$dir/run-other.jsonl" "$dir/run-01.jsonl" --commit c01 --db "$db2" > /dev/null
"$bin" history merge "$db2" --db "$db" > "$dir/merge.txt"
grep -q '1 run(s), 3 record(s) added, 1 run(s) already there' "$dir/merge.txt" || { cat "$dir/merge.txt"; fail "merge"; }
"$bin" history export --db "$db" --out "$dir/h.csv" 2> /dev/null
head -1 "$dir/h.csv" | grep -q '^commit,branch,when,run,key,' || fail "export: no CSV header"

# Without --db: $FLOWBENCH_HISTORY_DB, else history.db in $FLOWBENCH_CACHE_DIR,
# which comes before XDG_CACHE_HOME (set to this test's folder, so that a
# path that misses it writes nowhere of the user's).
cdir=$dir/cache-dir
env -u FLOWBENCH_HISTORY_DB -u FLOWBENCH_TUNING_CACHE FLOWBENCH_CACHE_DIR="$cdir" XDG_CACHE_HOME="$dir/xdg" \
  "$bin" history add "$dir/run-01.jsonl" --commit c01 > /dev/null
[ -s "$cdir/history.db" ] || fail "history add without --db: no history.db in \$FLOWBENCH_CACHE_DIR (written: $(find "$dir/xdg" -type f 2> /dev/null))"
FLOWBENCH_HISTORY_DB=$dir/env.db FLOWBENCH_CACHE_DIR="$cdir" "$bin" history add "$dir/run-02.jsonl" --commit c02 > /dev/null
[ -s "$dir/env.db" ] || fail "\$FLOWBENCH_HISTORY_DB did not come before \$FLOWBENCH_CACHE_DIR"

# Bad input: one line, exit 2.
echo '{"type":"measurement","schema":1}' > "$dir/bad.jsonl"
expect_one_error 2 'bad.jsonl' "$bin" history add "$dir/bad.jsonl" --commit x --db "$db"
echo 'SQLite format 3 but not really, and long enough to be read as a header by sqlite.........................' \
  > "$dir/garbage.db"
expect_one_error 2 'garbage.db: not a flowbench history' "$bin" history detect --db "$dir/garbage.db"
expect_one_error 2 'history add: --commit SHA is required' "$bin" history add "$dir/run-01.jsonl" --db "$db"
expect_one_error 2 "history show: --junit does not apply" "$bin" history show --junit x --db "$db"
echo "history: all checks passed"
