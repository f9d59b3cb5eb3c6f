#!/usr/bin/env bash
# default_dram_cube.sh FLOWBENCH SRC DIR - the default suite's DRAM-sized
# matrix (scripts/lib/dram-cube.sh) on planted machines: the least
# gen:cube:N whose CSR working set is 4x the openmp device's last-level
# cache ($FLOWBENCH_CPUFREQ_ROOT plants the cache, $FLOWBENCH_PROC_ROOT the
# memory), never under gen:cube:29, at most the cap, held down where its
# block form would not fit in memory, and a line saying so where a cap
# leaves it under 4x the cache or in it. The byte model it sizes by is
# checked against `flowbench matrix info` and the spmv record's bytes, and
# the suite itself runs the study on what it picks.
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=../../scripts/lib/dram-cube.sh
. "$src/scripts/lib/dram-cube.sh"

# machine NAME CACHE_KB MEMORY_KB: a planted host
machine() {
  mkdir -p "$dir/$1/proc" "$dir/$1/sys/cpu0/cache/index3"
  echo "$2K" > "$dir/$1/sys/cpu0/cache/index3/size"
  printf 'processor\t: 0\nmodel name\t: Planted\nflags\t\t: sse2 avx2\n\n' > "$dir/$1/proc/cpuinfo"
  printf 'MemTotal:       %s kB\n' "$3" > "$dir/$1/proc/meminfo"
}
# pick NAME [MAX]: dram_cube on the planted host NAME; stderr in DIR/NAME.err
pick() {
  FLOWBENCH_PROC_ROOT=$dir/$1/proc FLOWBENCH_CPUFREQ_ROOT=$dir/$1/sys dram_cube "$bin" "${@:2}" 2> "$dir/$1.err"
}

echo "== the byte model is the spmv family's, with the cube's exact counts"
for n in 12 29 33; do
  info=$("$bin" matrix info "gen:cube:$n" --json | jq '.nnz * 12 + .rows * 20 + 4')
  [ "$info" -eq "$(cube_csr_bytes "$n")" ] || fail "gen:cube:$n: matrix info gives $info bytes, the model $(cube_csr_bytes "$n")"
done
rec=$("$bin" spmv --matrix gen:cube:12 --kernel csr-scalar --backend openmp --no-stream --max-samples 5 --json 2> /dev/null |
      jq .bytes)
[ "${rec%.*}" -eq "$(cube_csr_bytes 12)" ] || fail "the spmv record's bytes $rec are not the model's $(cube_csr_bytes 12)"

echo "== a 32 MiB L3 and 64 GiB: gen:cube:89, the first at 4x (gen:cube:88 is 138 KB short)"
machine l3-32 32768 67108864
[ "$(pick l3-32)" = gen:cube:89 ] || fail "32 MiB: $(pick l3-32)"
[ "$(cube_csr_bytes 88)" -lt $((4 * 32 << 20)) ] && [ "$(cube_csr_bytes 89)" -ge $((4 * 32 << 20)) ] ||
  fail "gen:cube:89 is not the least N at 4x 32 MiB"
[ ! -s "$dir/l3-32.err" ] || fail "32 MiB: a note where none is due: $(cat "$dir/l3-32.err")"

echo "== a 1 MiB cache: never under gen:cube:29"
machine l3-1 1024 67108864
[ "$(pick l3-1)" = gen:cube:29 ] || fail "1 MiB: $(pick l3-1)"

echo "== the 480 MiB cache of the defect: capped (40 here, for time), cache-resident, said so"
machine l3-480 491520 67108864
[ "$(pick l3-480 40)" = gen:cube:40 ] || fail "480 MiB: $(pick l3-480 40)"
grep -q "gen:cube:40 .* is cache-resident in the 480 MiB last-level cache, at most gen:cube:40 .*: its figures include cache reuse" \
  "$dir/l3-480.err" || fail "480 MiB: the cap is not said: $(cat "$dir/l3-480.err")"
[ "$(pick l3-480)" = gen:cube:100 ] || fail "480 MiB: the default cap is not gen:cube:100: $(pick l3-480)"

echo "== a 16 MiB cache under the cap but short of memory (4 GiB): held down, said so"
machine small-memory 16384 4194304
n=$(pick small-memory); n=${n#gen:cube:}
[ "$(cube_csr_bytes "$n")" -lt $((4 * 16 << 20)) ] && [ $((80 * $(cube_csr_bytes "$n"))) -le $((4194304 * 1024)) ] &&
  [ $((80 * $(cube_csr_bytes $((n + 1))))) -gt $((4194304 * 1024)) ] || fail "4 GiB: gen:cube:$n"
grep -q "under 4x the 16 MiB last-level cache, held at gen:cube:$n so that its 4x4 block form fits in half of the 4096 MiB memory" \
  "$dir/small-memory.err" || fail "4 GiB: not said: $(cat "$dir/small-memory.err")"

echo "== the default suite runs the study on what dram_cube picks, not on a fixed matrix"
grep -q '^cube=$(dram_cube "$bin")' "$src/scripts/default-suite.sh" || fail "default-suite.sh does not pick with dram_cube"
grep -q 'spmv-study.sh" "$bin" "$dir/results.jsonl" "$dev" "$cube"' "$src/scripts/default-suite.sh" ||
  fail "default-suite.sh does not study \$cube"
! grep -q 'gen:cube:29' "$src/scripts/default-suite.sh" || fail "default-suite.sh still names gen:cube:29"
echo "default_dram_cube e2e: all checks passed"
