# shellcheck shell=bash
# tune-replay.sh - sourced by tune-study.sh and tune-verify.sh: the pairs of
# a recorded landscape and one replayed search strategy on one of them.

# replay_pairs SWEEP.jsonl[.gz]: matrix \t kernel, one line per SpMV pair
# with a usable time (tune --replay skips the pairs with 4 points or fewer).
# A gzipped sweep is read as tune --replay reads it.
replay_pairs() {
  case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac |
    jq -r 'select(.type == "measurement" and .benchmark == "spmv" and .status == "ok")
           | [.matrix.source, .kernel] | @tsv' | sort -u
}

# replay_run BIN SWEEP BACKEND MATRIX KERNEL STRATEGY START PRIOR SEEDS:
# tune --replay's output for the strategy over SEEDS seeds (START "-": no
# --start, for random); fails for a pair it cannot search. The budget is
# tune's default --evals (a quarter of the space, at least 4), or with
# TUNE_STUDY_EVALS=quarter a strict quarter (at least 1: a 6-point space
# gets 1 evaluation, the start alone), learned from a first 1-seed replay.
replay_run() {
  local bin=$1 file=$2 backend=$3 matrix=$4 kernel=$5 strategy=$6 start=$7 prior=$8 seeds=$9
  local args=(--strategy "$strategy") out points
  [ "$start" = - ] || args+=(--start "$start" --prior "$prior")
  if [ "${TUNE_STUDY_EVALS:-default}" = quarter ]; then
    out=$(replay_once "$bin" "$file" "$backend" "$matrix" "$kernel" "${args[@]}" --seeds 1) || return
    points=$(replay_points "$out")
    args+=(--evals $((points >= 4 ? points / 4 : 1)))
  fi
  replay_once "$bin" "$file" "$backend" "$matrix" "$kernel" "${args[@]}" --seeds "$seeds"
}

replay_once() { # BIN SWEEP BACKEND MATRIX KERNEL TUNE_ARGS...
  local bin=$1 file=$2 backend=$3 matrix=$4 kernel=$5
  shift 5
  "$bin" tune --replay "$file" --matrix "$matrix" --kernel "$kernel" --backend "$backend" "$@" --no-variants 2>/dev/null
}

# replay_points OUTPUT: the size of the space the replay searched.
replay_points() { sed -n 's/.* of \([0-9]*\) points evaluated.*/\1/p' <<<"$1"; }
