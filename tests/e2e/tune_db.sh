#!/usr/bin/env bash
# tune_db.sh FLOWBENCH SRCDIR WORKDIR - shipping tuned settings
# (docs/tuning.md, "Shipping your settings"), on caches written with jq
# (test data, not measurements):
#  - tune merge of two caches that disagree keeps the faster point, says so
#    and names where it came from; an input of another version is refused
#    naming it, and the output is left as it was;
#  - tune export --header: the header compiles with -Wall -Wextra -Werror as
#    C11 and C++17, and a program built on it gets the stored parameters of
#    three planted devices (exact, the same architecture, the same vendor
#    and type) and NULL for an unknown one; the docs' example program
#    compiles and runs on it;
#  - tune export --json validates against docs/tuning-db.schema.json (where
#    Debian's python3-jsonschema is installed).
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
cc=${CC:-cc}; cxx=${CXX:-c++}

# entry DEVICE ARCH TYPE KERNEL ROWS WG MEDIAN_S: one cache entry
entry() {
  jq -n --arg d "$1" --arg a "$2" --arg t "$3" --arg k "$4" --argjson rows "$5" --argjson wg "$6" --argjson m "$7" \
    '{device: $d, device_arch: $a, device_type: $t, kernel: $k, precision: "double", matrix: "m\($rows)",
      signature: {kind: "matrix", rows: $rows, nnz: ($rows * 7), nnz_per_row_mean: 7, nnz_per_row_stddev: 1,
                  nnz_per_row_max: 7, block: 1}, params: {WG_SIZE: $wg, VECTOR_SIZE: 4}, median_s: $m}'
}
cache() { jq -s '{flowbench_tuning_cache: 1, entries: .}'; }
h100="cuda|NVIDIA H100|NVIDIA|12.4|132" mi="opencl|gfx942|Advanced Micro Devices, Inc.|3.0|304" xeon="openmp|Xeon 8480|GenuineIntel|Linux|56"
{ entry "$h100" sm_90 gpu csr-vector 1000 128 0.002
  entry "$h100" sm_90 gpu csr-vector 100000 256 0.020
  entry "$mi" gfx942 gpu csr-vector 1000 64 0.003; } | cache > "$dir/a.json"
{ entry "$h100" sm_90 gpu csr-vector 1000 512 0.001   # faster than a.json's 128
  entry "$mi" gfx942 gpu csr-vector 1000 32 0.009     # slower than a.json's 64
  entry "$xeon" "Xeon 8480" cpu csr-vector 1000 16 0.010; } | cache > "$dir/b.json"

echo "== merge"
"$bin" tune merge "$dir/m.json" "$dir/a.json" "$dir/b.json" > "$dir/merge.txt" || fail "merge exited $?"
grep -q 'merged 2 caches into .*: 4 added, 1 replaced by a faster point, 1 kept' "$dir/merge.txt" ||
  fail "merge counts: $(cat "$dir/merge.txt")"
grep -q 'kept {"VECTOR_SIZE":4,"WG_SIZE":512} (1 ms, from .*b.json) over {"VECTOR_SIZE":4,"WG_SIZE":128} (2 ms, from .*a.json)' \
  "$dir/merge.txt" || fail "the faster H100 point is not said: $(cat "$dir/merge.txt")"
grep -q 'kept {"VECTOR_SIZE":4,"WG_SIZE":64} (3 ms, from .*a.json) over {"VECTOR_SIZE":4,"WG_SIZE":32} (9 ms' \
  "$dir/merge.txt" || fail "the kept gfx942 point is not said: $(cat "$dir/merge.txt")"
[ "$(jq '.entries | length' "$dir/m.json")" = 4 ] || fail "merged cache: $(jq -c . "$dir/m.json")"
jq -e '.entries[] | select(.device | startswith("cuda")) | select(.signature.rows == 1000) | .params.WG_SIZE == 512
       and (.from | endswith("b.json"))' "$dir/m.json" > /dev/null || fail "the merged H100 entry is not b's faster one"
cp "$dir/m.json" "$dir/m.before"
jq '.flowbench_tuning_cache = 2' "$dir/a.json" > "$dir/v2.json"
rc=0; "$bin" tune merge "$dir/m.json" "$dir/v2.json" 2> "$dir/v2.err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$dir/v2.err")" = 1 ] && grep -q 'v2.json: tuning cache version 2, this flowbench reads version 1' "$dir/v2.err" ||
  fail "a version-2 input: exit $rc, $(cat "$dir/v2.err")"
cmp -s "$dir/m.json" "$dir/m.before" || fail "a refused merge changed the output"
rc=0; "$bin" tune merge "$dir/m.json" "$dir/m.json" 2> "$dir/self.err" || rc=$?
[ $rc = 2 ] && grep -q 'both the output and an input' "$dir/self.err" || fail "merge into an input: exit $rc"

echo "== export --header: C11 and C++17, three planted devices and an unknown one"
"$bin" tune export --cache "$dir/m.json" --header "$dir/flowbench_tuned.h" > /dev/null || fail "export --header exited $?"
cat > "$dir/probe.c" <<'C'
#include <stdio.h>
#include "flowbench_tuned.h"
static const char *or_none(const char *s) { return s ? s : "NULL"; }
int main(void)
{
    /* the H100 itself, small and large problems */
    printf("%s\n", or_none(flowbench_tuned("NVIDIA H100", "sm_90", "NVIDIA", "gpu", "csr-vector", "double", 1200)));
    printf("%s\n", or_none(flowbench_tuned("NVIDIA H100", "sm_90", "NVIDIA", "gpu", "csr-vector", "double", 9e4)));
    /* an H200: another device of the H100's architecture */
    printf("%s\n", or_none(flowbench_tuned("NVIDIA H200", "sm_90", "NVIDIA", "gpu", "csr-vector", "double", 1000)));
    /* another AMD GPU: the vendor and type of the gfx942 entry */
    printf("%s\n", or_none(flowbench_tuned("gfx90a", "gfx90a", "Advanced Micro Devices, Inc.", "gpu", "csr-vector",
                                           "double", 1000)));
    /* the Xeon, and an unknown device, and an unknown kernel */
    printf("%s\n", or_none(flowbench_tuned("Xeon 8480", NULL, "GenuineIntel", NULL, "csr-vector", "double", 1000)));
    printf("%s\n", or_none(flowbench_tuned("Some NPU", "npu1", "Nobody", "gpu", "csr-vector", "double", 1000)));
    printf("%s\n", or_none(flowbench_tuned("NVIDIA H100", "sm_90", "NVIDIA", "gpu", "csr-scalar", "double", 1000)));
    return 0;
}
C
cp "$dir/probe.c" "$dir/probe.cpp"
"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$dir" "$dir/probe.c" -o "$dir/probe-c" || fail "the header does not compile as C11"
"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$dir" "$dir/probe.cpp" -o "$dir/probe-cxx" || fail "the header does not compile as C++17"
cat > "$dir/want.txt" <<'OUT'
-DVECTOR_SIZE=4 -DWG_SIZE=512
-DVECTOR_SIZE=4 -DWG_SIZE=256
-DVECTOR_SIZE=4 -DWG_SIZE=512
-DVECTOR_SIZE=4 -DWG_SIZE=64
-DVECTOR_SIZE=4 -DWG_SIZE=16
NULL
NULL
OUT
for p in probe-c probe-cxx; do
  "$dir/$p" > "$dir/$p.txt" || fail "$p exited $?"
  diff "$dir/want.txt" "$dir/$p.txt" || fail "$p: the lookup gave other parameters"
done
# the docs' example program, as docs/tuning.md shows it
sed -n '/<!-- begin use_tuned.c -->/,/<!-- end use_tuned.c -->/p' "$src/docs/tuning.md" | grep -v '^<!--\|^```' > "$dir/use_tuned.c"
[ "$(wc -l < "$dir/use_tuned.c")" -ge 10 ] || fail "docs/tuning.md has no use_tuned.c example"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$dir" "$dir/use_tuned.c" -o "$dir/use_tuned" || fail "the docs' example does not compile"
"$dir/use_tuned" "NVIDIA H100" sm_90 | grep -q -- '-DWG_SIZE=256' || fail "the docs' example: $("$dir/use_tuned" "NVIDIA H100" sm_90)"

echo "== hostile names: a device with UTF-8, quotes, a backslash, ??=, */ and a newline; a cache under a path that would end the comment"
odd=$'Radeon \u00e9 ??= "q" \\ */ x\ny'
printf '%s' "$odd" > "$dir/odd-name.txt"
entry "opencl|$odd|Odd Vendor|3.0|8" odd gpu csr-vector 1000 96 0.004 | cache > "$dir/odd.json"
nasty="$dir/ci*/"$'\n'"#define FLOWBENCH_INJECTED 1"$'\n'"/* x"
mkdir -p "$nasty" && cp "$dir/odd.json" "$nasty/c.json"
"$bin" tune export --cache "$nasty/c.json" --header "$dir/odd_tuned.h" > /dev/null || fail "export of the odd cache exited $?"
cat > "$dir/odd.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "odd_tuned.h"
#ifdef FLOWBENCH_INJECTED
#error the cache path injected a define
#endif
int main(int argc, char **argv)
{
    char name[256] = "";
    FILE *f = fopen(argv[argc - 1], "rb");
    size_t n = f ? fread(name, 1, sizeof name - 1, f) : 0;
    name[n] = '\0';
    const char *d = flowbench_tuned(name, "odd", "Odd Vendor", "gpu", "csr-vector", "double", 1000);
    puts(d ? d : "NULL");
    return f ? 0 : 1;
}
C
cp "$dir/odd.c" "$dir/odd.cpp"
"$cc" -std=c11 -Wall -Wextra -Werror -Wtrigraphs -pedantic -I"$dir" "$dir/odd.c" -o "$dir/odd-c" ||
  fail "the header of hostile names does not compile as C11"
"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$dir" "$dir/odd.cpp" -o "$dir/odd-cxx" || fail "... as C++17"
for p in odd-c odd-cxx; do
  [ "$("$dir/$p" "$dir/odd-name.txt")" = "-DWG_SIZE=96 -DVECTOR_SIZE=4" ] ||
    fail "$p: the exact hostile device name no longer matches its entry: $("$dir/$p" "$dir/odd-name.txt")"
done

echo "== parameters: names are C identifiers, values integers, at most 6 a kernel: read, merged and exported alike"
# a name or value that would inject build options, and more parameters than
# a kernel has (their defines, cut at the buffer's end, were exported as
# "... -DP14_XXXXX" with exit 0): one line naming the cache, entry and parameter
jq '.entries[0].params = {"WG_SIZE=64 -cl-fast-relaxed-math -DX": 1}' "$dir/a.json" > "$dir/inject-name.json"
jq '.entries[1].params.WG_SIZE = "64 -cl-fast-relaxed-math"' "$dir/a.json" > "$dir/inject-value.json"
jq '.entries[2].params = ([range(20)] | map({key: "P\(. + 10)_\("X" * 55)", value: 1000000000}) | from_entries)' \
  "$dir/a.json" > "$dir/inject-many.json"
for bad in 'name:entry 0: "params": the name "WG_SIZE=64 -cl-fast-relaxed-math -DX" is not a C identifier' \
           'value:entry 1: "params": WG_SIZE is "64 -cl-fast-relaxed-math", not an integer' \
           'many:entry 2: "params": holds 20 parameters; a kernel has at most 6'; do
  kind=${bad%%:*} want=${bad#*:} c=$dir/inject-$kind.json
  for cmd in "tune export --cache $c --header $dir/inject.h" "tune export --cache $c --json $dir/inject-db.json" \
             "tune merge $dir/inject-m.json $c" "spmv --matrix gen:cube:4 --kernel csr-vector --no-stream --tuned --cache $c"; do
    rc=0; "$bin" $cmd > /dev/null 2> "$dir/inject.err" || rc=$?
    [ $rc = 2 ] && [ "$(wc -l < "$dir/inject.err")" = 1 ] && grep -qF "inject-$kind.json: $want" "$dir/inject.err" ||
      fail "$cmd: exit $rc, $(cat "$dir/inject.err")"
  done
done
[ ! -e "$dir/inject.h" ] && [ ! -e "$dir/inject-db.json" ] && [ ! -e "$dir/inject-m.json" ] || fail "a refused cache was written out"

echo "== tune export never writes over its cache, by any spelling; a missing cache is refused"
cp "$dir/m.json" "$dir/keep.json"
default_cache=${FLOWBENCH_CACHE_DIR:?the test sets it}/tuning.json
mkdir -p "$FLOWBENCH_CACHE_DIR" && cp "$dir/m.json" "$default_cache"
for args in "--cache $dir/m.json --json $dir/./m.json" "--cache $dir/m.json --header $(realpath "$dir")/m.json" \
            "--json $default_cache"; do
  rc=0; "$bin" tune export $args > /dev/null 2> "$dir/over.err" || rc=$?
  [ $rc = 2 ] && grep -q 'refusing to overwrite it' "$dir/over.err" || fail "tune export $args: exit $rc, $(cat "$dir/over.err")"
done
cmp -s "$dir/m.json" "$dir/keep.json" && cmp -s "$default_cache" "$dir/keep.json" || fail "tune export overwrote a cache"
rc=0; "$bin" tune export --cache "$dir/nope.json" --json "$dir/nope-out.json" > /dev/null 2> "$dir/nope.err" || rc=$?
[ $rc = 2 ] && grep -q 'nope.json: no tuning cache there' "$dir/nope.err" && [ ! -e "$dir/nope-out.json" ] ||
  fail "tune export of a missing cache: exit $rc, $(cat "$dir/nope.err")"
rc=0; "$bin" tune merge "$dir/m.json" "$dir/./m.json" > /dev/null 2> "$dir/mself.err" || rc=$?
[ $rc = 2 ] && grep -q 'both the output and an input' "$dir/mself.err" || fail "tune merge OUT ./OUT: exit $rc"

echo "== a shared store that is a symbolic link stays a link: its target gets the entries"
mkdir -p "$dir/shared" && cp "$dir/a.json" "$dir/shared/store.json"
ln -sfn shared/store.json "$dir/link.json"
"$bin" tune merge "$dir/link.json" "$dir/b.json" > /dev/null || fail "merge into a link exited $?"
[ -L "$dir/link.json" ] || fail "the link was replaced by a regular file"
[ "$(jq '.entries | length' "$dir/shared/store.json")" = 4 ] || fail "the link's target did not get the merged entries"

echo "== export --json against the schema"
"$bin" tune export --cache "$dir/m.json" --json "$dir/db.json" > /dev/null || fail "export --json exited $?"
jq -e '.flowbench_tuning_db == 1 and (.entries | length) == 4' "$dir/db.json" > /dev/null || fail "db.json: $(head -c 300 "$dir/db.json")"
if /usr/bin/python3 -c 'import jsonschema' 2> /dev/null; then
  /usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$dir/db.json" "$src/docs/tuning-db.schema.json" ||
    fail "db.json does not validate against docs/tuning-db.schema.json"
else
  echo "python3-jsonschema not installed: the schema check is skipped (scripts/setup.sh installs it)"
fi
rc=0; "$bin" tune export --cache "$dir/m.json" 2> "$dir/none.err" || rc=$?
[ $rc = 2 ] && grep -q 'give one of --header FILE.h or --json FILE' "$dir/none.err" || fail "export without a target: exit $rc"
echo "tune db: merge, header (C11, C++17), example, JSON schema: ok"
