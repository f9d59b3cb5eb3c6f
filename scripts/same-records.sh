#!/usr/bin/env bash
# same-records.sh OLD_FLOWBENCH NEW_FLOWBENCH OUT - do two builds write the
# same records? Runs one set of small commands (spmv, grid, sweep, tune,
# solve; openmp, and PoCL's OpenCL when there is one) with each binary and
# compares their measurement records in order: the same key set (array
# positions folded, so a different sample count is no difference) and the
# same values but where a value is a timing, a rate or a fact of the
# moment (stats, energy, environment, GB/s, seconds...). A refactoring
# that must not change behaviour (issue 35) shows "same" on every line.
# Exit 1 when any command differs, listing the first differences.
set -euo pipefail
old=$1 new=$2 out=$3
rm -rf "$out"; mkdir -p "$out/old" "$out/new"
q=(--min-samples 3 --max-samples 5 --budget 0.2)
# exhaustive: the order of the points is the space's, not the timings'
tq=(--strategy exhaustive --no-cache --no-variants "${q[@]}")
backends=(openmp)
"$new" devices 2> /dev/null | grep -q '^opencl:' && backends+=(opencl)
cmds=()
for b in "${backends[@]}"; do
  for k in csr-scalar csr-vector sell auto; do
    cmds+=("spmv --matrix gen:cube:8 --kernel $k --backend $b --no-stream ${q[*]}")
  done
  cmds+=("spmv --matrix gen:cube:8:block=3 --kernel bcsr --backend $b --no-stream ${q[*]}"
    "spmv --matrix gen:cube:8 --kernel csr-vector --backend $b --precision single --no-stream ${q[*]}"
    "grid --family heat2d --grid grid:33x17 --backend $b --no-stream ${q[*]}"
    "grid --family fv-surface --grid grid:9x7x5 --kernel fv-gather --backend $b --no-stream ${q[*]}"
    "tune --matrix gen:cube:8 --kernel csr-vector --backend $b ${tq[*]}"
    "tune --family heat2d --grid grid:33x33 --kernel heat-jacobi --backend $b ${tq[*]}"
    "solve cavity --level 0 --steps 3 --backend $b --no-stream --quiet")
done
[ ${#backends[@]} = 2 ] && cmds+=("tune --case cavity --level 0 --steps 2 --kernel ns --backend opencl \
--evals 2 --no-cache")
cmds+=("sweep cases/quick.suite --backend openmp" "sweep cases/grid-quick.suite --backend openmp"
  "sweep tests/data/suites/solver.suite"
  "spmv --matrix gen:cube:8 --kernel peer:graphblas --no-stream ${q[*]}")

# Paths whose values are measured, not computed: compared by key only.
timed='(^|\.)(stats|energy|environment|contention|counters|timings|memory|host|build|run_id|started|date|time|cache|stream|tuning)(\.|$)|(_s|_ms|gbs|gflops|gbs_best|fraction_of_stream|fraction_of_read|ns_per_cell|speedup|per_step|wall|seconds|evaluations_s|steps_per_s)$'
# shellcheck disable=SC2016 # jq's $p, not the shell's
flat='[paths(scalars) as $p | {key: ($p | map(tostring) | join(".")), value: getpath($p)}]'
keys='[paths(scalars) | map(if type == "number" then "[]" else . end) | join(".")] | unique'
# A search's best point, measured again, is the timings' choice.
measured='select(.type == "measurement" and (.search.best | not))'
# Keys present only when a measurement was unstable or contended.
moment='(^|\.)(quality_why|contended|contended_why)$'
# A point abandoned after a slow sample (a timing) has a reason the other may not.
abandoned='if .status == "abandoned" then .status = "ok" | del(.reason) else . end'

status=0
for i in "${!cmds[@]}"; do
  read -ra c <<< "${cmds[$i]}"
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    "$bin" "${c[@]}" --out "$out/$side/$i.jsonl" > "$out/$side/$i.txt" 2>&1 || echo "exit $?" >> "$out/$side/$i.txt"
  done
  diffs=$(jq -n -r --slurpfile a <(jq -c "$measured" "$out/old/$i.jsonl" 2> /dev/null) \
    --slurpfile b <(jq -c "$measured" "$out/new/$i.jsonl" 2> /dev/null) --arg timed "$timed" --arg moment "$moment" "
    def keyset: $abandoned | $keys | map(select(test(\$moment) | not));
    def vals: $abandoned | $flat | map(select(.key | test(\$timed) | not)) | from_entries;
    if (\$a | length) != (\$b | length) then \"records: \(\$a | length) against \(\$b | length)\"
    else [range(\$a | length) as \$r | (\$a[\$r] | keyset) as \$ka | (\$b[\$r] | keyset) as \$kb
      | (if \$ka != \$kb then \"record \(\$r): keys only old \(\$ka - \$kb), only new \(\$kb - \$ka)\" else empty end),
        ((\$a[\$r] | vals) as \$va | (\$b[\$r] | vals) as \$vb
         | \$va | keys[] | select(\$va[.] != \$vb[.]) | \"record \(\$r): \(.) \(\$va[.]) -> \(\$vb[.])\")]
      | .[:5][] end" || echo "records unreadable")
  n=$(jq -c "$measured" "$out/new/$i.jsonl" 2> /dev/null | wc -l || true)
  if [ "$n" = 0 ]; then
    status=1
    echo "NO RECORDS          ${cmds[$i]} (see $out/new/$i.txt)"
  elif [ -z "$diffs" ]; then
    echo "same      $n records  ${cmds[$i]}"
  else
    status=1
    echo "DIFFERENT $n records  ${cmds[$i]}"
    while IFS= read -r line; do echo "    $line"; done <<< "$diffs"
  fi
done
exit $status
