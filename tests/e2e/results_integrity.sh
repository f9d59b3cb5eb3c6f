#!/usr/bin/env bash
# results_integrity.sh FLOWBENCH SRCDIR WORKDIR - a results file under two
# writers, a cut last line, and a record that could not be written:
#  - a second sweep on a file another sweep is writing is refused (exit 2)
#    naming the first one's pid and command, and writes nothing;
#  - a complete last record that lacks only its newline is kept (a
#    one-record file is no longer truncated to 0 bytes); a cut one is dropped;
#  - a record refused by the file system (EFBIG under ulimit -f) is not
#    labelled crashed on --resume: it is measured again;
#  - a results path that is not a regular file (a FIFO) is refused at once;
#  - readers skip a damaged line with a warning instead of refusing the file.
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir" && mkdir -p "$dir"
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }
suites=tests/data/suites

echo "== two writers: the second is refused, naming the first"
out=$dir/two.jsonl
"$bin" sweep $suites/slow.suite --out "$out" 2> "$dir/first.log" &
first=$!
trap 'kill "$first" 2> /dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
[ -s "$out" ] || fail "the first sweep wrote no header"
lines=$(wc -l < "$out")
code=0
"$bin" sweep $suites/slow.suite --out "$out" 2> "$dir/second.log" || code=$?
[ "$code" -eq 2 ] || fail "second writer exited $code, want 2: $(cat "$dir/second.log")"
# the writer is the first command's process, or the guarded child it runs (core/guard.h)
writers="$first$(pgrep -P "$first" | sed 's/^/|/' | tr -d '\n')"
grep -Eq "another flowbench is writing to it \(pid ($writers): .*sweep .*slow.suite" "$dir/second.log" ||
  fail "the refusal does not name the first writer: $(cat "$dir/second.log")"
kill -INT "$first"
wait "$first" || true
[ "$(jq -s 'map(select(.type == "header")) | length' "$out")" -eq 1 ] || fail "the second writer wrote a header"
[ "$(wc -l < "$out")" -ge "$lines" ] || fail "the file lost lines"

echo "== a last record without its newline is kept; a cut one is dropped"
"$bin" stream --backend openmp --size 4096 --out "$dir/one.jsonl" > /dev/null
head -n 2 "$dir/one.jsonl" | head -c -1 > "$dir/nonl.jsonl" # header + one record, no final newline
"$bin" stream --backend openmp --size 4096 --out "$dir/nonl.jsonl" > /dev/null 2> "$dir/nonl.log"
grep -q 'the last record lacked its newline: kept' "$dir/nonl.log" || fail "no note on the kept record"
jq -c . "$dir/nonl.jsonl" > /dev/null || fail "the repaired file is not JSON Lines"
[ "$(jq -s 'map(select(.type == "measurement")) | length' "$dir/nonl.jsonl")" -eq 6 ] ||
  fail "the record without a newline was lost"
head -n 1 "$dir/one.jsonl" > "$dir/cut.jsonl"
# through a file, not a pipe: head leaving after 40 bytes can SIGPIPE sed,
# which pipefail and set -e make a silent failure on a busy machine
sed -n 2p "$dir/one.jsonl" > "$dir/line2.jsonl"
head -c 40 "$dir/line2.jsonl" >> "$dir/cut.jsonl"
"$bin" stream --backend openmp --size 4096 --out "$dir/cut.jsonl" > /dev/null 2> "$dir/cut.log"
grep -q 'dropped an incomplete last line (40 bytes)' "$dir/cut.log" || fail "no note on the dropped line"
jq -c . "$dir/cut.jsonl" > /dev/null || fail "the cut line is still there"

echo "== a record the file system refused is measured again, not called crashed"
out=$dir/efbig.jsonl
sed 's/^stream: true/stream: false/' $suites/e2e.suite > "$dir/nostream.suite"
"$bin" sweep "$dir/nostream.suite" --out "$dir/whole.jsonl" --limit 1 2> /dev/null
# ulimit -f counts KiB in bash: the header and a few records fit, not twelve
size=$(( ($(head -n 1 "$dir/whole.jsonl" | wc -c) + 3000) / 1024 ))
code=0
(trap '' XFSZ; ulimit -f "$size"; "$bin" sweep "$dir/nostream.suite" --out "$out") 2> "$dir/efbig.log" || code=$?
[ "$code" -ne 0 ] || fail "the sweep did not notice its failed write"
grep -Eq 'was measured but not recorded: .*File too large.*; --resume measures it again' "$dir/efbig.log" ||
  fail "no line saying what happened: $(tail -3 "$dir/efbig.log")"
[ ! -e "$out.inflight" ] || fail "the in-flight marker outlived a failed write"
"$bin" sweep "$dir/nostream.suite" --out "$out" --resume 2> "$dir/efbig2.log"
! grep -q crashed "$out" || fail "a record that failed to write was labelled crashed"
[ "$(jq -s 'map(select(.type == "measurement")) | length' "$out")" -eq 12 ] ||
  fail "the resumed file does not hold the 12 configurations"

echo "== a results path that is not a regular file is refused, not waited on"
mkfifo "$dir/fifo.jsonl"
code=0
timeout 10 "$bin" stream --backend openmp --size 4096 --out "$dir/fifo.jsonl" > /dev/null 2> "$dir/fifo.log" || code=$?
[ "$code" -eq 2 ] && grep -q 'fifo.jsonl: not a regular file' "$dir/fifo.log" ||
  fail "--out FIFO: exit $code, $(cat "$dir/fifo.log")"

echo "== readers skip a damaged line"
{ head -n 2 "$dir/one.jsonl"; echo '{"type":"measurement","sche'; sed -n 3p "$dir/one.jsonl"; } > "$dir/damaged.jsonl"
"$bin" export "$dir/damaged.jsonl" --csv > "$dir/damaged.csv" 2> "$dir/damaged.log"
grep -q 'line 3: not valid JSON (a damaged write?): skipped' "$dir/damaged.log" || fail "no warning for line 3"
[ "$(wc -l < "$dir/damaged.csv")" -eq 3 ] || fail "the two good records were not exported"
echo "results integrity: all checks passed"
