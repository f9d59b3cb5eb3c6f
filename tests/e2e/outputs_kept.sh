#!/usr/bin/env bash
# outputs_kept.sh FLOWBENCH SRCDIR DIR - a file flowbench writes whole
# (`matrix export`, `spmv --y-out`) replaces its destination only when it
# is complete: a write that fails (here: the file size limit, ulimit -f)
# leaves what the user had byte for byte and no temporary file behind; a
# destination that is not a regular file (a directory, a FIFO, a link to
# a device) is refused before anything is written and is still there.
set -uo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
cd "$src" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# ok WHAT FAILS_BEFORE: "ok: WHAT" unless the case failed
ok() { [ "$fails" -eq "$2" ] && echo "ok: $1"; }

# run_limited ARGS...: flowbench with files limited to $limit_kb KiB
# (default 16; SIGXFSZ ignored, so the write fails with EFBIG instead of
# killing the process).
run_limited() { (trap '' XFSZ; ulimit -f "${limit_kb:-16}"; exec timeout 20 "$bin" "$@") > "$dir/out.txt" 2>&1; }

# kept_after_failure NAME ARGS...: DIR/NAME holds old text; the command
# must fail naming it with the reason and leave it as it was.
kept_after_failure() {
  local name=$1 before=$fails; shift
  printf 'what the user had\n' > "$dir/$name"; cp "$dir/$name" "$dir/$name.orig"
  run_limited "$@"; local rc=$?
  [ "$rc" -ne 0 ] || { fail "$name: the limited write succeeded (exit 0)"; return; }
  grep -Eq "$name: (write failed|cannot write): File too large" "$dir/out.txt" ||
    fail "$name: the error does not name the file and the reason: $(cat "$dir/out.txt")"
  cmp -s "$dir/$name" "$dir/$name.orig" || fail "$name: a failed write changed or removed the destination"
  ls "$dir/$name".tmp.* > /dev/null 2>&1 && fail "$name: a temporary file was left behind"
  ok "$name kept after a failed write" "$before"
}
kept_after_failure keep.mtx matrix export gen:cube:12 "$dir/keep.mtx"
kept_after_failure keep.mtx.gz matrix export gen:cube:12 "$dir/keep.mtx.gz"
kept_after_failure y.mtx spmv --matrix gen:cube:12 --no-stream --max-samples 5 --y-out "$dir/y.mtx"
kept_after_failure x.csv export tests/data/results/constructed-sweep.jsonl --out "$dir/x.csv"
limit_kb=2 kept_after_failure report.md report tests/data/results/constructed-sweep.jsonl --out "$dir/report.md"

# standard output that cannot be written is named, with the reason
before=$fails
"$bin" export tests/data/results/constructed-sweep.jsonl > /dev/full 2> "$dir/out.txt"; rc=$?
{ [ "$rc" -eq 3 ] && grep -q '^flowbench: standard output: write failed: No space left on device$' "$dir/out.txt"; } ||
  fail "export to a full standard output: exit $rc: $(cat "$dir/out.txt")"
ok "export to a full standard output" "$before"

# refused_target WHAT REGEX PATH ARGS...: exit 2 with REGEX, PATH still there.
refused_target() {
  local what=$1 regex=$2 path=$3 before=$fails; shift 3
  timeout 10 "$bin" "$@" > "$dir/out.txt" 2>&1 < /dev/null; local rc=$?
  [ "$rc" -eq 124 ] && { fail "$what: blocked (killed after 10 s)"; return; }
  { [ "$rc" -eq 2 ] && grep -Eq -- "$regex" "$dir/out.txt"; } ||
    fail "$what: exit $rc, expected 2 and /$regex/: $(cat "$dir/out.txt")"
  [ -e "$path" ] || [ -L "$path" ] || fail "$what: the destination was removed"
  ok "$what" "$before"
}
mkdir "$dir/d.mtx"; mkfifo "$dir/f.mtx"; ln -s /dev/full "$dir/full.mtx"
refused_target "export to a directory" "d\.mtx: is a directory" "$dir/d.mtx" \
  matrix export matrices/general.mtx "$dir/d.mtx"
refused_target "export to a FIFO" "f\.mtx: not a regular file" "$dir/f.mtx" \
  matrix export matrices/general.mtx "$dir/f.mtx"
refused_target "export to a link to a device" "full\.mtx: not a regular file" "$dir/full.mtx" \
  matrix export matrices/general.mtx "$dir/full.mtx"
refused_target "--y-out to a FIFO" "f\.mtx: not a regular file" "$dir/f.mtx" \
  spmv --matrix matrices/general.mtx --no-stream --max-samples 5 --y-out "$dir/f.mtx"
[ -p "$dir/f.mtx" ] || fail "the FIFO is no longer a FIFO"

# a write that succeeds replaces the file, keeping its permissions
printf 'old\n' > "$dir/ok.mtx"; chmod 640 "$dir/ok.mtx"
"$bin" matrix export matrices/general.mtx "$dir/ok.mtx" > /dev/null || fail "export over an existing file failed"
head -1 "$dir/ok.mtx" | grep -q '^%%MatrixMarket' || fail "export did not replace the old file"
[ "$(stat -c %a "$dir/ok.mtx")" = 640 ] || fail "export changed the permissions of the file it replaced"
ls "$dir"/*.tmp.* > /dev/null 2>&1 && fail "temporary files left in $dir"
[ "$fails" -eq 0 ] || { echo "FAIL: $fails case(s)"; exit 1; }
echo ok
