#!/usr/bin/env bash
# doc-tables.sh [--check] [--root DIR] [REFDIR...] - the GPU figures of the
# docs, made from the records of reference runs so that none is typed by
# hand. Rewrites, in README.md, docs/kernels.md and docs/solver.md, every
# block between
#   <!-- BEGIN GENERATED NAME (scripts/device/doc-tables.sh) -->
#   <!-- END GENERATED NAME -->
# with what the records give; the first line of each block is a comment
# naming the reference dirs it was made from. The blocks:
#   readme-gpu    (README.md) per GPU: stream triad, the best flowbench CSR
#                 kernel on the cavity level-2 Laplacian (gen:cube:57,
#                 double, warm) in GB/s, its ratio to cuSPARSE, and the
#                 speedup of the best GPU variant over the best OpenMP one
#                 of the same node (peers in neither), as `flowbench
#                 report`'s "Speedup over OpenMP" gives it
#   spmv-targets  (docs/kernels.md) per GPU, the targets of issue 23: per
#                 target and matrix the fastest checked flowbench kernel
#                 with its fraction of the triad and, for blocks, its ratio
#                 to cuSPARSE bsrmv, cuSPARSE's own fraction, and the new
#                 kernels (sell, bcsr-warp, bcsr-lanes); as
#                 scripts/spmv-targets.sh computes them
#   solver-gpu    (docs/solver.md) per reference dir, per case (cavity levels
#                 0-2, Ahmed, any other solved) and backend: steps, median
#                 time step, whole run, CPU->GPU, GPU->CPU, set-up, the
#                 speedup over OpenMP per step and total, J/step; as
#                 `solve --compare` and `report` define them
#                 (harness/results/presentation/speedup.h): from the best record of
#                 each side (stable first, then the fastest step), flagged
#                 "?" with the reason where a side is unstable or
#                 contended, "*" where one throttled
# A cell whose measurement no record holds says "not measured".
#
# REFDIR: a reference run's directory; its records are REFDIR/results.jsonl
# (or .gz) and REFDIR/phase*/results.jsonl[.gz] (a phased device run), in
# that order; a record superseded by a later one of the same configuration
# (the key `flowbench report` uses) counts no more. Without REFDIR the dirs
# are the lines of results/reference/gpu-sources.txt (relative to the
# repository root; blank and # lines skipped). Only checked ("ok") records
# with a median time count. --root DIR takes the docs and gpu-sources.txt
# from DIR instead of this repository (the test runs on a copy).
#
# --check writes nothing; exits 1 with a line per stale block on stderr when
# a block differs from what the records give. Bad input (an unreadable
# dir, a dir without records, a file that is not JSON lines, an unknown or
# unclosed block in the docs) is one line on stderr and exit 2.
#
# After a GPU run is ingested (results/reference/<gpu>-<date>/), add its dir
# to results/reference/gpu-sources.txt and run
#   scripts/device/doc-tables.sh && git diff README.md docs/
# tests/lint/test_doc_tables.sh (ctest lint.doc_tables) runs --check.
set -euo pipefail
me=doc-tables.sh
usage="usage: $me [--check] [--root DIR] [REFDIR...]"
root=$(cd "$(dirname "$0")/../.." && pwd)
check=0 dirs=() from_list=0
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=1; shift ;;
    --root) root=$(cd "${2:?$usage}" 2>/dev/null && pwd) || { echo "$me: $2: no such directory" >&2; exit 2; }; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "$me: unknown option $1 ($usage)" >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
docs=(README.md docs/kernels.md docs/solver.md)
blocks=(readme-gpu spmv-targets solver-gpu)

if [ ${#dirs[@]} -eq 0 ]; then
  list=$root/results/reference/gpu-sources.txt
  [ -r "$list" ] || { echo "$me: $list: cannot read (the reference dirs, one a line)" >&2; exit 2; }
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}; line=${line%"${line##*[![:space:]]}"}; line=${line#"${line%%[![:space:]]*}"}
    [ -n "$line" ] && dirs+=("$root/$line")
  done < "$list"
  [ ${#dirs[@]} -gt 0 ] || { echo "$me: $list: names no reference dir" >&2; exit 2; }
  from_list=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each dir's records, tagged with the dir (as named from the root), the
# file's place and the line's, and its run's OpenMP threads (header).
names=()
: > "$tmp/records.jsonl"
k=0
for d in "${dirs[@]}"; do
  [ -d "$d" ] && [ -r "$d" ] && [ -x "$d" ] || { echo "$me: $d: cannot read the directory" >&2; exit 2; }
  abs=$(cd "$d" && pwd)
  case $abs/ in "$root"/*) name=${abs#"$root"/} ;; *) name=$d ;; esac
  names+=("$name")
  files=()
  for f in "$d"/results.jsonl "$d"/results.jsonl.gz; do [ -e "$f" ] && files+=("$f"); done
  while IFS= read -r p; do
    for f in "$p"/results.jsonl "$p"/results.jsonl.gz; do [ -e "$f" ] && files+=("$f"); done
  done < <(find "$d" -mindepth 1 -maxdepth 1 -name 'phase*' -type d | sort -V)
  [ ${#files[@]} -gt 0 ] || { echo "$me: $name: no records (no results.jsonl[.gz] in it or in its phase*/)" >&2; exit 2; }
  before=$(wc -l < "$tmp/records.jsonl")
  for f in "${files[@]}"; do
    k=$((k + 1))
    [ -r "$f" ] || { echo "$me: $f: cannot read" >&2; exit 2; }
    case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac > "$tmp/in.jsonl" 2> "$tmp/err" ||
      { echo "$me: $f: cannot read: $(head -1 "$tmp/err")" >&2; exit 2; }
    jq -c -n --arg ref "$name" --argjson file "$k" '
      foreach inputs as $r ({h: null, i: 0};
        (if ($r | type) == "object" and $r.type == "header" then .h = $r else . end) | .i += 1;
        . as $s | $r
        | select(type == "object" and .type == "measurement" and (["stream", "spmv", "solve"] | index($r.benchmark)))
        | del(.stats.samples_s, .cg, .auto)
        | . + {_ref: $ref, _i: ($file * 1e9 + $s.i), _threads: (.threads // $s.h.host.omp_threads)})' \
      "$tmp/in.jsonl" >> "$tmp/records.jsonl" 2> "$tmp/err" ||
      { echo "$me: $f: not JSON lines: $(head -1 "$tmp/err")" >&2; exit 2; }
  done
  [ "$(wc -l < "$tmp/records.jsonl")" -gt "$before" ] ||
    { echo "$me: $name: no records (no stream, spmv or solve measurement in ${files[*]#"$root"/})" >&2; exit 2; }
done
printf '%s\n' "${names[@]}" | jq -R . | jq -s . > "$tmp/names.json"

# The blocks, as one JSON object {NAME: markdown}.
jq -s --slurpfile refs "$tmp/names.json" '
  $refs[0] as $refs
  # numbers: d decimals, zeros kept ("0.80"); n significant digits
  | def fixed(d): if type != "number" then "-" else
      d as $d | (. * pow(10; $d) | round) as $r | ($r | fabs | tostring) as $s
      | (if $d > 0 then ("0" * ([$d + 1 - ($s | length), 0] | max)) + $s | .[:-$d] + "." + .[-$d:] else $s end)
      | if $r < 0 then "-" + . else . end end;
    def sig(n): if type != "number" then "-" elif . == 0 then "0"
      else fixed([n - 1 - (fabs | log10 | floor), 0] | max) end;
    def frac: if . == null then "-" else fixed(2) end;
    def short: sub("^gen:"; "");
    def block_kernel: test("^bcsr") or . == "peer:cusparse-bsr";
    def peer: startswith("peer:");
    def cold: .cold == true;
    def bsize: .matrix.block.size // 0;
    def base: .matrix.name | sub(":block=[0-9]+$"; "");
    def cpu_like: (.device_name // "") | test("pthread|cpu|CPU");
    def gpu: .backend != "openmp" and (cpu_like | not);
    # quality.c: stats.quality, else a contended environment
    def quality: if .stats.quality == "unstable" then "unstable"
                 elif .stats.quality == "contended" or .environment.contended == true then "contended"
                 else "stable" end;
    def flagged: quality != "stable";
    def why: if .stats.quality == "unstable" or .stats.quality == "contended" then .stats.quality_why
             elif .environment.contended == true then .environment.contended_why else "" end
             | if . == null or . == "" then "(no reason recorded)" else . end;
    def side_why: "\(.device) \(quality): \(why)";
    def median: .stats.median_s;
    def fastest: sort_by(median) | first;
    def problem: (.matrix // .grid) | if type == "string" then . else (.hash // .source // .name // "") end;
    # reader.c fb_record_key: a later record of the same configuration supersedes
    def rkey: [._ref, .benchmark, .kernel, .backend, .device_name, .precision,
               (.params // {} | to_entries | sort_by(.key)), problem, .suite, .case, cold, (.mpi.ranks // 1)];

  [.[] | select(.status == "ok" and ((.stats.median_s // 0) > 0))]
  | group_by(rkey) | map(max_by(._i)) | sort_by(._i) as $all
  | ($refs | join(", ")) as $from
  | "<!-- made from \($from) by scripts/device/doc-tables.sh: edit the records, not this block -->" as $note

  # the GPUs of a reference dir: cuda where the dir has it, else the other
  # device backends of GPUs (the same GPU through opencl beside cuda: left out)
  | def units($ref): [$all[] | select(._ref == $ref and gpu and .benchmark != "solve")]
      | (map(select(.backend == "cuda") | .device_name) | unique) as $cu
      | map(select(.backend == "cuda" or (.device_name as $n | $cu | index($n) | not)))
      | map({ref: $ref, backend, device, name: .device_name}) | unique
      | sort_by(if .backend == "cuda" then 0 else 1 end);
    def of($u): $all[] | select(._ref == $u.ref and .backend == $u.backend and .device == $u.device);
    def triad($u; $p): [of($u) | select(.benchmark == "stream" and .kernel == "triad" and .precision == $p and (cold | not))]
      | last | .gbs;
    def fraction($u): .fraction_of_stream // (triad($u; .precision) as $t | if $t and .gbs then .gbs / $t else null end);
    def caption($u): "`\($u.ref)` (\($u.name), \($u.backend))";

  # ---- README: the one paragraph per GPU ---------------------------------
  def readme($u):
    triad($u; "double") as $t
    | [of($u) | select(.benchmark == "spmv" and .matrix.name == "gen:cube:57" and .precision == "double" and (cold | not))] as $m
    | ([$m[] | select((.kernel | peer | not) and (.kernel | block_kernel | not) and .kernel != "auto")] | fastest) as $best
    | ([$m[] | select(.kernel == "peer:cusparse")] | fastest) as $cs
    | ([$all[] | select(._ref == $u.ref and .backend == "openmp" and .benchmark == "spmv" and .matrix.name == "gen:cube:57"
                        and .precision == "double" and (cold | not) and (.kernel | peer | not))] | fastest) as $omp
    | "Measured on an \($u.name) (`\($u.ref)/`, \($u.backend)): stream triad "
      + (if $t then "\($t | fixed(0)) GB/s" else "not measured" end) + "; on the cavity level-2 Laplacian "
      + (if $best == null then "(`gen:cube:57`, double) the flowbench CSR kernels were not measured."
         else "the best flowbench CSR kernel (\($best.kernel)) reaches \($best.gbs | fixed(0)) GB/s"
           + (if ($best | flagged) then "?" else "" end) + ", "
           + (if $cs then "\($cs.stats.median_s / $best.stats.median_s | fixed(2))x cuSPARSE'"'"'s CSR SpMV"
              else "cuSPARSE'"'"'s CSR SpMV not measured" end) + ", and "
           + (if $omp then "\($omp.stats.median_s / $best.stats.median_s | fixed(1))x"
                + (if ($omp | flagged) or ($best | flagged) then "?" else "" end)
                + " the \(if $omp._threads then "\($omp._threads)-thread " else "" end)OpenMP baseline of the same node"
              else "the OpenMP baseline of the same node not measured" end) + "."
           + ([$best, $omp | select(. != null and flagged) | side_why] as $w
              | if ($w | length) > 0 then " (?: not a figure to trust: \($w | join("; ")).)" else "" end)
         end);
  ([$refs[] as $r | units($r) as $us
    | if ($us | length) == 0 then "`\($r)`: no stream or SpMV records from a GPU." else $us[] | readme(.) end]) as $readme

  # ---- kernels.md: the targets of issue 23 per GPU ------------------------
  | def rows: [
      {t: "CSR >= 0.90 of triad, double", b: 0, p: "double", new: ["sell"]},
      {t: "CSR >= 0.90 of triad, single", b: 0, p: "single", new: ["sell"]},
      {t: "BCSR >= 0.90 of triad and >= 1.0x cuSPARSE bsrmv, 4x4, double", b: 4, p: "double", new: ["bcsr-warp", "bcsr-lanes"]},
      {t: "the same, 4x4, single", b: 4, p: "single", new: ["bcsr-warp", "bcsr-lanes"]},
      {t: "the same, 5x5, double", b: 5, p: "double", new: ["bcsr-warp", "bcsr-lanes"]},
      {t: "the same, 5x5, single", b: 5, p: "single", new: ["bcsr-warp", "bcsr-lanes"]}];
    # the records of a row on one matrix: flowbench kernels of its format
    def on($u; $row; $cold; $m): [of($u) | select(.benchmark == "spmv" and base == $m and bsize == $row.b
                                                   and .precision == $row.p and (cold == $cold))];
    def mine($row): select((.kernel | peer | not) and .kernel != "auto"
                           and ((.kernel | block_kernel) == ($row.b > 0)));
    def figure($u; $row; $peer): (fraction($u) | frac) + (if flagged then "?" else "" end)
      + (if $row.b > 0 and $peer then " and \($peer.stats.median_s / .stats.median_s | fixed(2))x" else "" end);
    def cell($u; $row; $cold; $m): on($u; $row; $cold; $m) as $rs
      | ([$rs[] | select(.kernel == (if $row.b > 0 then "peer:cusparse-bsr" else "peer:cusparse" end))] | fastest) as $peer
      | ([$rs[] | mine($row)] | fastest) as $best
      | (if $peer then "cuSPARSE \($peer | fraction($u) | frac)" else "cuSPARSE not measured" end) as $p
      | if $best then "\($best | figure($u; $row; $peer)) (\($best.kernel); \($p))"
        elif $peer then "not measured (\($p))" else "not measured" end;
    def newcell($u; $row; $cold; $ms): [$row.new[] as $k
      | [$ms[] as $m | (on($u; $row; $cold; $m) as $rs
          | ([$rs[] | select(.kernel == (if $row.b > 0 then "peer:cusparse-bsr" else "peer:cusparse" end))] | fastest) as $peer
          | [$rs[] | select(.kernel == $k)] | fastest
          | select(. != null) | "\($m | short) \(figure($u; $row; $peer))")] | {k: $k, got: .}]
      | (map(select(.got | length > 0) | "\(.k): \(.got | join(", "))")
         + (map(select(.got | length == 0) | .k) | if length > 0 then ["\(join(", ")): not measured on a GPU"] else [] end))
      | join("; ");
    def targets($u):
      [of($u) | select(.benchmark == "spmv")] as $sp
      | ($sp | group_by(base) | map({m: (.[0] | base), rows: (map(.matrix.rows / ([bsize, 1] | max)) | min)})
         | sort_by(.rows) | map(.m)) as $ms
      | ([$sp[] | select(cold)] | length > 0) as $hascold
      | "\(caption($u)): per target and matrix, the fraction of the triad (and for blocks the ratio to cuSPARSE bsrmv) of the fastest flowbench kernel, cuSPARSE'"'"'s own fraction beside it:",
        "",
        "| target | \($ms | map(short) | join(" | ")) | the new kernels on \($ms | map(short) | join(", ")) |",
        "|---|\($ms | map("---|") | join(""))---|",
        (([false] + (if $hascold then [true] else [] end))[] as $cold | rows[] as $row
         | "| \($row.t)\(if $cold then ", cold L2" else "" end) | "
           + ([$ms[] as $m | cell($u; $row; $cold; $m)] | join(" | ")) + " | \(newcell($u; $row; $cold; $ms)) |"),
        (if $hascold then empty
         else "| cold L2 (flushed before every sample) | \($ms | map("not measured") | join(" | ")) | not measured |" end);
  ([$refs[] as $r | units($r) as $us
    | if ($us | length) == 0 then "`\($r)`: no SpMV records from a GPU: every target not measured."
      else $us[] | [targets(.)] | join("\n") end]) as $targets

  # ---- solver.md: the solver per case and backend -------------------------
  | def case_name: .matrix.name | if test("^cavity-l[0-9]+$") then "cavity level \(.[8:])"
                                 elif . == "ahmed" then "Ahmed" else . end;
    def backend_label: "\(.device) \(.device_name)\(if (.mpi.ranks // 1) > 1 then " x \(.mpi.ranks) ranks" else "" end)";
    def better: sort_by([(if flagged then 1 else 0 end), median]) | first;
    def whole: if .total_s then .total_s + (.timings.cpu_to_gpu_s // 0) + (.timings.gpu_to_cpu_s // 0) else null end;
    def speedups($b): (if $b then ([$b, .] | map(select(flagged)) | length == 0) else true end) as $ok
      | ($b != null and ([$b, .] | map(select(.energy.throttled == true)) | length > 0)) as $thr
      | ((if $ok then "" else "?" end) + (if $thr then "*" else "" end)) as $mark
      | if $b == null then ["no OpenMP run", "-"]
        else [[($b | median), median], [($b | whole), whole]]
             | map(if .[0] and .[1] and .[0] > 0 and .[1] > 0 then "\(.[0] / .[1] | fixed(2))x\($mark)" else "-" end) end;
    def srow($case; $bl; $b): [$case, $bl, (.steps // "-" | tostring), (median * 1e3 | sig(4)), (whole | sig(4)),
        (.timings.cpu_to_gpu_s // 0 | sig(3)), (.timings.gpu_to_cpu_s // 0 | sig(3)),
        (.timings.device_setup_s | sig(3))]
      + (if .backend == "openmp" and (.mpi.ranks // 1) <= 1 then ["(baseline)", "(baseline)"] else speedups($b) end)
      + [(.energy.joules_per_step | if . then sig(3) else "-" end)]
      | "| " + join(" | ") + " |";
    def solver($r):
      [$all[] | select(._ref == $r and .benchmark == "solve")] as $s
      | ($s | map(.matrix.name) | unique) as $seen
      | (["cavity-l0", "cavity-l1", "cavity-l2", "ahmed"] + ($seen - ["cavity-l0", "cavity-l1", "cavity-l2", "ahmed"])) as $cases
      | [$cases[] as $c | $s | map(select(.matrix.name == $c)) | group_by(.precision) | .[]
         | ([.[] | select(.backend == "openmp" and (.mpi.ranks // 1) <= 1)] | better) as $b
         | {b: $b, runs: (map(select(.backend != "openmp" or (.mpi.ranks // 1) > 1)) | group_by(backend_label) | map(better))}] as $groups
      | "`\($r)`\(if ($s | length) == 0 then " (no solve records)" else "" end):", "",
        "| case | backend | steps | step ms | whole run s | CPU->GPU s | GPU->CPU s | set-up s | speedup per step | speedup total | J/step |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ($cases[] as $c
         | [$groups[] | select((.b // .runs[0]).matrix.name == $c)] as $g
         | (if ($g | length) == 0 then null else ($g[0].b // $g[0].runs[0]) | case_name end) as $name
         | ($g[] | (.b // .runs[0]) as $any | (($any | case_name) + (if $any.precision != "double" then ", \($any.precision)" else "" end)) as $cn
            | .b as $b | ((.b | select(. != null) | srow($cn; backend_label; null)), (.runs[] | srow($cn; backend_label; $b)))),
           (if [$g[] | .runs[] | select(gpu)] | length > 0 then empty
            else "| \($name // ({matrix: {name: $c}} | case_name)) | GPU | not measured on a GPU | | | | | | | | |" end)),
        ([$groups[] | .b as $b | .runs[] | select($b != null and ([$b, .] | map(select(flagged)) | length > 0))
          | "- \(case_name), \(backend_label): \([$b, .] | map(select(flagged) | side_why) | join("; "))"] as $n
         | if ($n | length) > 0 then "", "?: no speedup to trust:", "", $n[] else empty end),
        (if [$groups[] | .b as $b | .runs[] | select($b != null and ([$b, .] | map(select(.energy.throttled == true)) | length > 0))] | length > 0
         then "", "*: a side ran throttled (its energy.throttle_why says how)." else empty end);
  ([$refs[] | [solver(.)] | join("\n")]) as $solver

  | {"readme-gpu": ([$note] + ($readme | join("\n\n") | [.]) | join("\n")),
     "spmv-targets": ([$note, ""] + ($targets | join("\n\n") | [.]) | join("\n")),
     "solver-gpu": ([$note, ""] + ($solver | join("\n\n") | [.]) | join("\n"))}
' "$tmp/records.jsonl" > "$tmp/blocks.json" 2> "$tmp/err" ||
  { echo "$me: making the tables failed: $(head -3 "$tmp/err")" >&2; exit 2; }
for b in "${blocks[@]}"; do jq -r --arg b "$b" '.[$b]' "$tmp/blocks.json" > "$tmp/block.$b"; done

# Each doc with its blocks replaced (into $tmp first: nothing is written
# unless every doc passes); unknown, unclosed or nested blocks refused.
seen=" "
for doc in "${docs[@]}"; do
  [ -r "$root/$doc" ] || { echo "$me: $root/$doc: cannot read" >&2; exit 2; }
  id=${doc//\//_}
  awk -v dir="$tmp" -v doc="$doc" -v id="$id" -v known=" ${blocks[*]} " -v me="$me" '
    function fail(line, msg) { print me ": " doc ":" line ": " msg > "/dev/stderr"; bad = 1; exit 2 }
    /<!-- *(BEGIN|END) +GENERATED/ {
      if ($0 ~ /^<!-- BEGIN GENERATED [a-z0-9-]+ \(scripts\/device\/doc-tables\.sh\) -->$/) {
        if (name != "") fail(NR, "block " $4 " begins inside block " name)
        name = $4
        if (index(known, " " name " ") == 0) fail(NR, "unknown generated block " name " (known:" known ")")
        begin = NR; print; print name > (dir "/seen." id)
        file = dir "/block." name; body = ""
        while ((getline l < file) > 0) { print l; body = body l "\n" }
        close(file); old = ""; next
      }
      if ($0 ~ /^<!-- END GENERATED [a-z0-9-]+ -->$/) {
        if (name == "" || $4 != name) fail(NR, "END of block " $4 " without its BEGIN")
        if (old != body) print name > (dir "/stale." id)
        name = ""; print; next
      }
      fail(NR, "malformed marker (want <!-- BEGIN GENERATED NAME (scripts/device/doc-tables.sh) --> ... <!-- END GENERATED NAME -->)")
    }
    name != "" { old = old $0 "\n"; next }
    { print }
    END { if (!bad && name != "") fail(begin, "block " name " has no END line") }
  ' "$root/$doc" > "$tmp/new.$id" || exit 2
  [ -e "$tmp/seen.$id" ] && seen+="$(tr '\n' ' ' < "$tmp/seen.$id")"
done
for b in "${blocks[@]}"; do
  case $seen in *" $b "*) ;; *) echo "$me: block $b is in none of ${docs[*]}" >&2; exit 2 ;; esac
done
run="scripts/device/doc-tables.sh"
[ $from_list -eq 1 ] || run+=" ${names[*]}"
stale=0
for doc in "${docs[@]}"; do
  id=${doc//\//_}
  [ -e "$tmp/stale.$id" ] || continue
  stale=1
  if [ $check -eq 1 ]; then
    while read -r b; do echo "$doc: block $b is stale: run $run" >&2; done < "$tmp/stale.$id"
  else
    cat "$tmp/new.$id" > "$root/$doc"
    echo "$me: $doc: rewrote $(paste -sd' ' "$tmp/stale.$id")"
  fi
done
[ $check -eq 1 ] && [ $stale -eq 1 ] && exit 1
exit 0
