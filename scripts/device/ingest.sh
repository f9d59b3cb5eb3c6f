#!/usr/bin/env bash
# ingest.sh [--root DIR] [--docs | --no-docs] ARCHIVE... - the one step back
# home after a device run (docs/device-run.md): unpacks the archives that
# scripts/device/phase.sh wrote (phaseN-NAME.tar.xz) into
# results/reference/<gpu>-<date>/phaseN-NAME/, writes that folder's
# MACHINE.md (the machine, and per phase what ran, how long, what failed),
# derives there report.md (flowbench report) and, from the SpMV phase,
# spmv-targets.md (scripts/spmv-targets.sh), then, for a GPU run, lists the
# folder in results/reference/gpu-sources.txt and regenerates from every
# listed run the generated tables of README.md, docs/kernels.md and
# docs/solver.md (scripts/device/doc-tables.sh) and
# kernels/spmv/spmv_auto_rule.h (scripts/spmv-auto-rule.sh). Review with
# `git diff` and commit. Any subset of the phases may come (phase 1 alone,
# a phase cut at its budget): a run without records is filed but not
# listed, and ingest says which tables take the run and which say "not
# measured" for it.
#
#   ingest.sh --regenerate   only the last step, from gpu-sources.txt as it is
#
# <gpu> is the GPU's model in lower case (NVIDIA H200 -> h200), "cpu" for the
# CPU mode; <date> the UTC day the phase started. Archives of the CPU mode
# (phase.sh --cpu) are filed the same way but leave the docs alone unless
# --docs is given; --no-docs leaves them alone for a GPU run too. --root DIR
# works on DIR instead of this repository (the test runs on a copy); the
# derived files need a flowbench binary: $FLOWBENCH, else build/flowbench.
set -euo pipefail
me=ingest.sh
usage="usage: $me [--root DIR] [--docs | --no-docs] ARCHIVE... | $me [--root DIR] --regenerate"
here=$(cd "$(dirname "$0")/../.." && pwd)
root=$here docs=auto regenerate=0 archives=()
while [ $# -gt 0 ]; do
  case $1 in
    --root) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
            root=$(cd "$2" 2>/dev/null && pwd) || { echo "$me: $2: no such directory" >&2; exit 2; }; shift 2 ;;
    --docs) docs=yes; shift ;;
    --no-docs) docs=no; shift ;;
    --regenerate) regenerate=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$me: unknown option '$1'" >&2; echo "$usage" >&2; exit 2 ;;
    *) archives+=("$1"); shift ;;
  esac
done
[ $regenerate = 1 ] || [ ${#archives[@]} -gt 0 ] || { echo "$usage" >&2; exit 2; }
bin=${FLOWBENCH:-$here/build/flowbench}
sources=$root/results/reference/gpu-sources.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# env_value FILE KEY: a value of a phase's machine.env (read, never sourced:
# it came from another machine).
env_value() { sed -n "s/^$2=//p" "$1" | head -n 1; }

# The folder a phase files under: the GPU's model ("NVIDIA H100 80GB HBM3"
# -> h100, the first word with a digit), "cpu" in the CPU mode, and the day.
run_folder() { # MACHINE_ENV
  local gpu slug day
  gpu=$(env_value "$1" gpu) day=$(env_value "$1" date)
  day=${day%%T*}
  if [ "$(env_value "$1" mode)" = cpu ] || [ "$gpu" = none ] || [ -z "$gpu" ]; then
    slug=cpu
  else
    slug=$(tr ' ' '\n' <<<"${gpu#NVIDIA }" | grep -m 1 '[0-9]' | tr 'A-Z' 'a-z' | sed 's/-.*//; s/[^a-z0-9]//g')
    slug=${slug:-gpu}
  fi
  echo "$slug-$day"
}

# unpack ARCHIVE: one phase into results/reference/<gpu>-<date>/, replacing
# an earlier copy of the same phase; prints the run folder.
unpack() {
  local archive=$1 work=$tmp/unpack phase_dir env folder dest
  [ -r "$archive" ] || { echo "$me: $archive: cannot read" >&2; return 2; }
  rm -rf "$work" && mkdir -p "$work"
  tar -C "$work" -xf "$archive" 2>/dev/null || { echo "$me: $archive: not a tar archive (phase.sh writes phaseN-NAME.tar.xz)" >&2; return 2; }
  phase_dir=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'phase[0-9]*-*' | head -n 1)
  env=${phase_dir:+$phase_dir/machine.env}
  [ -n "$phase_dir" ] && [ -s "$env" ] || { echo "$me: $archive: no phaseN-NAME/machine.env inside: not a phase of scripts/device/phase.sh" >&2; return 2; }
  [[ $(env_value "$env" date) =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T ]] || { echo "$me: $archive: machine.env has no date" >&2; return 2; }
  folder=$(run_folder "$env")
  dest=$root/results/reference/$folder
  mkdir -p "$dest"
  rm -rf "${dest:?}/$(basename "$phase_dir")"
  mv "$phase_dir" "$dest/"
  compress_records "$dest/$(basename "$phase_dir")"
  echo "$folder"
}

# Record files over 256 KiB are kept gzipped (doc-tables.sh, report and the
# rule read both).
compress_records() { # PHASE_DIR
  local f
  for f in "$1"/*.jsonl; do
    [ -e "$f" ] && [ "$(stat -c %s "$f")" -gt 262144 ] && gzip -f -9 "$f"
  done
  return 0
}

phase_dirs() { find "$1" -mindepth 1 -maxdepth 1 -type d -name 'phase[0-9]*-*' | sort; }
record_files() { find "$1" -mindepth 2 -maxdepth 2 -name 'results.jsonl*' | sort; }

machine_md() { # FOLDER: MACHINE.md from the phases' machine.env and steps
  local dest=$root/results/reference/$1 first d env
  first=$(phase_dirs "$dest" | head -n 1)/machine.env
  {
    echo "# $(env_value "$first" gpu | sed 's/^none$/CPU mode (no GPU)/'), $(env_value "$first" date | cut -c1-10)"
    echo
    echo "Generated by scripts/device/ingest.sh from the phases' machine.env and steps-final.tsv."
    echo
    echo "## Machine"
    echo
    echo "- GPU: $(env_value "$first" gpu), driver $(env_value "$first" driver)"
    echo "- host: $(env_value "$first" host), $(env_value "$first" cpus) logical CPUs ($(env_value "$first" cpu_model)), $(( $(env_value "$first" memory_kb || echo 0) / 1048576 )) GiB, $(env_value "$first" kernel)"
    echo "- flowbench: $(env_value "$first" flowbench); \`devices.txt\` in each phase is \`flowbench devices\` there"
    echo
    echo "## Phases"
    echo
    echo "Each ran as \`scripts/device/phase.sh$([ "$(env_value "$first" mode)" = cpu ] && echo " --cpu")$([ "$(env_value "$first" tiny)" = 1 ] && echo " --tiny") N OUTDIR\`; its page is \`phaseN-NAME/summary.md\`."
    echo
    echo "| phase | started (UTC) | wall s of budget | steps ok | failed or stopped | skipped | records ok |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    for d in $(phase_dirs "$dest"); do
      env=$d/machine.env
      printf '| %s | %s | %s of %s | %s | %s | %s | %s |\n' "$(basename "$d")" "$(env_value "$env" date)" \
        "$(env_value "$env" wall_s)" "$(env_value "$env" budget_s)" "$(count_steps "$d" 'ok')" \
        "$(count_steps "$d" '(failed|stopped)')" "$(count_steps "$d" 'skipped')" "$(count_ok_records "$d")"
    done
    echo
    for d in $(phase_dirs "$dest"); do
      grep -h -s -E "tests passed|tests failed" "$d/ctest.log" | sed "s|^|- $(basename "$d") ctest: |" || true
      grep -h -s -E $'\t(failed|stopped)' "$d/steps-final.tsv" | awk -F'\t' -v p="$(basename "$d")" '{print "- " p ": step " $1 " " $2}' || true
    done
  } >"$dest/MACHINE.md"
}

count_steps() { # PHASE_DIR STATUS_REGEX: the steps whose last status starts so
  awk -F'\t' -v re="^($2)" '$2 ~ re { n++ } END { print n + 0 }' "$1/steps-final.tsv" 2>/dev/null || echo 0
}
count_ok_records() { # PHASE_DIR
  local f n=0
  for f in "$1"/*.jsonl "$1"/*.jsonl.gz; do
    [ -e "$f" ] || continue
    n=$((n + $(gzip -dcf "$f" | grep -c '"status": *"ok"' || true)))
  done
  echo $n
}

derive() { # FOLDER: report.md over every phase, spmv-targets.md from the SpMV phase
  local dest=$root/results/reference/$1 files backend=cuda
  mapfile -t files < <(record_files "$dest")
  [ ${#files[@]} -gt 0 ] || return 0
  [ "$(env_value "$(phase_dirs "$dest" | head -n 1)/machine.env" mode)" = cpu ] && backend=opencl
  if [ -x "$bin" ]; then
    gzip -dcf "${files[@]}" >"$dest/all-phases.jsonl"
    (cd "$root" && "$bin" report "results/reference/$1/all-phases.jsonl" --out "$dest/report.md") >/dev/null \
      2>"$tmp/report.err" || echo "$me: flowbench report on $1 failed: $(head -n 1 "$tmp/report.err")" >&2
    rm -f "$dest/all-phases.jsonl"
  else
    echo "$me: $bin: no flowbench binary: report.md not made (FLOWBENCH=PATH)" >&2
  fi
  mapfile -t files < <(find "$dest" -path '*phase3-spmv/results.jsonl*')
  if [ ${#files[@]} -gt 0 ]; then
    "$here/scripts/spmv-targets.sh" "${files[@]}" -- "$backend" >"$dest/spmv-targets.md" 2>"$tmp/targets.err" ||
      echo "$me: spmv-targets.sh on $1 failed: $(head -n 1 "$tmp/targets.err")" >&2
  fi
}

list_source() { # FOLDER: first in gpu-sources.txt (newest first), once
  local line=results/reference/$1
  touch "$sources"
  grep -q -x -F "$line" "$sources" && return 0
  { echo "$line"; cat "$sources"; } >"$tmp/sources" && cat "$tmp/sources" >"$sources"
}

# The docs' tables and the auto rule from every listed run (paths relative
# to the root: the rule's header names them).
regenerate_docs() {
  local dirs files=() d
  "$here/scripts/device/doc-tables.sh" --root "$root"
  mapfile -t dirs < <(grep -v -E '^[[:space:]]*(#|$)' "$sources")
  for d in "${dirs[@]}"; do
    while read -r f; do files+=("${f#"$root"/}"); done < <(find "$root/$d" -maxdepth 2 -name 'results.jsonl*' | sort)
  done
  # the CPU rows: seven rounds of cases/spmv-auto.suite's cubes and of
  # spmv-auto-mesh.suite's meshes in two orders (each configuration at the
  # median of its rounds)
  files+=(results/reference/spmv-auto-sell16-vm-2026-11-29/{cubes,mesh}-{a,b,c}.jsonl.gz)
  (cd "$root" && "$here/scripts/spmv-auto-rule.sh" "${files[@]}") >"$tmp/rule.h"
  cp "$tmp/rule.h" "$root/kernels/spmv/spmv_auto_rule.h"
}

# count_kind FOLDER BENCHMARK: the run's checked records of a benchmark.
count_kind() {
  local f n=0
  while read -r f; do
    n=$((n + $(gzip -dcf "$f" | jq -c --arg b "$2" 'select(.type == "measurement" and .benchmark == $b and .status == "ok")' \
      2>/dev/null | wc -l)))
  done < <(record_files "$root/results/reference/$1")
  echo $n
}

# What this run gives the docs' tables, said once: a run without records
# (phase 1 alone) is not listed, and the docs stay as they were; a run
# without SpMV or solver records (a subset of the phases, a cut phase) is
# listed, and the tables it has nothing for say "not measured" for it.
listable() { # FOLDER: 0 when the run has records for the tables
  local spmv solve stream
  spmv=$(count_kind "$1" spmv) solve=$(count_kind "$1" solve) stream=$(count_kind "$1" stream)
  if [ $((spmv + solve + stream)) -eq 0 ]; then
    echo "$me: results/reference/$1: no stream, SpMV or solver records (phase 1 alone?): not listed in" \
      "gpu-sources.txt; README.md, docs/kernels.md, docs/solver.md and the auto rule left alone" >&2
    return 1
  fi
  echo "$me: results/reference/$1: $spmv SpMV, $solve solver, $stream stream records:" \
    "$([ "$spmv" -gt 0 ] && echo "README.md's GPU line, docs/kernels.md's targets and the auto rule take them" ||
      echo "README.md's GPU line and docs/kernels.md's targets say 'not measured' for it (no phase 3)");" \
    "$([ "$solve" -gt 0 ] && echo "docs/solver.md's table takes them" ||
      echo "docs/solver.md's table says 'no solve records' for it (no phase 2)")" >&2
}

folders=()
for a in "${archives[@]}"; do
  folder=$(unpack "$a") || exit 2
  folders+=("$folder")
  echo "$me: $a -> results/reference/$folder/" >&2
done
mapfile -t folders < <(printf '%s\n' "${folders[@]}" | sed '/^$/d' | sort -u)
touch_docs=0
for folder in "${folders[@]}"; do
  machine_md "$folder"
  derive "$folder"
  case $docs in
    yes) listable "$folder" && list_source "$folder" && touch_docs=1 ;;
    auto) [[ $folder == cpu-* ]] || { listable "$folder" && list_source "$folder" && touch_docs=1; } ;;
  esac
done
if [ $regenerate = 1 ] || [ $touch_docs = 1 ]; then
  regenerate_docs
  echo "$me: regenerated the tables of README.md, docs/kernels.md, docs/solver.md and kernels/spmv/spmv_auto_rule.h: review with git diff" >&2
fi
