#!/usr/bin/env bash
# stream_ref.sh FLOWBENCH DIR - the stream triad reference (docs/measurement.md):
# the first spmv measures it (10 or more samples, min <= median <= max) and
# stores it; the second reuses it (source "stored", the same GB/s, its age);
# --stream-max-age 0 measures again; a store that does not parse is
# replaced with a warning; a cache-resident working set is said so in the
# record (cache_resident, roofline_note) and on stderr; a negative age is
# refused in one line.
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
export FLOWBENCH_STREAM_CACHE=$dir/stream.json
run=(spmv --matrix gen:cube:9 --kernel csr-scalar --stream-size 2000000 --json)
fail() { echo "FAIL: $*"; exit 1; }

"$bin" "${run[@]}" > "$dir/a.json" 2> "$dir/a.err" || fail "first spmv: $(tail -2 "$dir/a.err")"
jq -e '.stream_reference as $r | $r.source == "measured" and $r.samples >= 10 and $r.n == 2000000
       and $r.gbs_min <= $r.gbs and $r.gbs <= $r.gbs_max and .stream_gbs == $r.gbs
       and $r.file == env.FLOWBENCH_STREAM_CACHE' "$dir/a.json" > /dev/null ||
  fail "first record: $(jq -c .stream_reference "$dir/a.json")"
jq -e '.entries | length == 1' "$FLOWBENCH_STREAM_CACHE" > /dev/null || fail "no stored reference"

"$bin" "${run[@]}" > "$dir/b.json" 2> "$dir/b.err" || fail "second spmv"
jq -e --slurpfile a "$dir/a.json" '.stream_reference.source == "stored" and .stream_gbs == $a[0].stream_gbs
       and .stream_reference.age_s >= 0' "$dir/b.json" > /dev/null ||
  fail "second record did not reuse: $(jq -c .stream_reference "$dir/b.json")"
grep -q "stored" "$dir/b.err" || fail "the reuse is not said on stderr"

"$bin" "${run[@]}" --stream-max-age 0 > "$dir/c.json" 2> /dev/null || fail "--stream-max-age 0"
jq -e '.stream_reference.source == "measured"' "$dir/c.json" > /dev/null || fail "--stream-max-age 0 reused"
jq -e '.entries | length == 1' "$FLOWBENCH_STREAM_CACHE" > /dev/null || fail "the entry was not replaced"

echo "not json" > "$FLOWBENCH_STREAM_CACHE"
"$bin" "${run[@]}" > "$dir/d.json" 2> "$dir/d.err" || fail "a damaged store stopped the run"
grep -q "warning: .*stream.json.*replaced" "$dir/d.err" || fail "no warning for the damaged store: $(cat "$dir/d.err")"
jq -e '.entries | length == 1' "$FLOWBENCH_STREAM_CACHE" > /dev/null || fail "the damaged store was not replaced"

# gen:cube:9 (about 70 KB) sits in any last-level cache the device reports
jq -e 'if .device_cache_bytes // 0 > 0 or .cache_resident != null then
         .cache_resident == true and (.roofline_note | test("last-level cache")) else true end' "$dir/a.json" \
  > /dev/null || fail "cache residency: $(jq -c '{cache_resident, roofline_note}' "$dir/a.json")"
if jq -e '.cache_resident == true' "$dir/a.json" > /dev/null; then
  grep -q "not a roofline fraction" "$dir/a.err" || fail "the cache-resident note is not on stderr"
fi

set +e; "$bin" "${run[@]}" --stream-max-age -1 > /dev/null 2> "$dir/e.err"; rc=$?; set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$dir/e.err")" -eq 1 ] && grep -q -- "--stream-max-age" "$dir/e.err" ||
  fail "a negative age: exit $rc: $(cat "$dir/e.err")"
echo ok
