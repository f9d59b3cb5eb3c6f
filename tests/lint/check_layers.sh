#!/usr/bin/env bash
# check_layers.sh ROOT - fails when an #include points up the module order.
#
# The order, lowest first (docs/architecture.md, "Layers"): a file may
# include its own module and the modules before it, never one after it.
#   core < matrix < backends < bench < kernels < results < tune < solver < cli
# results/ is four modules in that place, lowest first: records (write,
# read, merge, export a record) < history (the SQLite store, change
# points) < gate (compare, interleave, the history gate) < presentation
# (figures, plots, report, HTML); a file directly in results/ is an error.
# Inside kernels/, each family folder (kernels/spmv, kernels/grid, ...) is
# closed: it includes only itself, the files every family shares at the top
# of kernels/ (common_host.h) and the harness modules below kernels; the
# registry (kernels/families.*) alone includes the family folders.
# A quoted #include that names no file in the tree is an error too.
set -uo pipefail
root=${1:?usage: check_layers.sh ROOT}
cd "$root" || exit 2

order=(core matrix backends bench kernels results/records results/history results/gate results/presentation
  tune solver cli)
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done
rank_of() { echo "${rank[$1]:--1}"; }

# The helpers below set a variable instead of printing: a subshell per
# include made this test take 10 s.

# module of a path into $module: harness/M/... -> M, harness/results/S/...
# -> results/S, kernels/... -> kernels
module_of() {
  case "$1" in
    harness/results/*/*) module=${1#harness/results/} module=results/${module%%/*} ;;
    harness/results/*) module="?" ;;
    harness/*/*) module=${1#harness/} module=${module%%/*} ;;
    kernels/*) module=kernels ;;
    *) module="?" ;;
  esac
}

# family folder of a kernels/ path into $folder ("" for the registry at kernels/ itself)
folder_of() {
  local rest=${1#kernels/}
  case "$rest" in */*) folder=${rest%%/*} ;; *) folder="" ;; esac
}

# $1 with "." and "dir/.." taken out, into $normal ("a/b/../c" -> "a/c")
normalize() {
  local part out=()
  IFS=/ read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    case "$part" in
      "" | .) ;;
      ..) [ "${#out[@]}" -gt 0 ] && unset 'out[${#out[@]}-1]' ;;
      *) out+=("$part") ;;
    esac
  done
  normal=$(IFS=/; echo "${out[*]}")
}

# the file an #include "x" in $1 resolves to, into $target ("" for none):
# its own folder first, then the include directories of the build
# (harness, harness/core, kernels)
resolve() {
  local from=$1 inc=$2 d
  target=""
  for d in "${from%/*}" harness harness/core kernels; do
    normalize "$d/$inc"
    [ -f "$normal" ] && { target=$normal; return; }
  done
}

errors=0
report() { echo "layers: $*" >&2; errors=$((errors + 1)); }

while IFS= read -r file; do
  module_of "$file"; from_mod=$module
  from_rank=$(rank_of "$from_mod")
  [ "$from_rank" -ge 0 ] || { report "$file: not in a module (${order[*]})"; continue; }
  while IFS= read -r inc; do
    resolve "$file" "$inc"
    [ -n "$target" ] || { report "$file: #include \"$inc\" names no file in the tree"; continue; }
    module_of "$target"; to_mod=$module
    to_rank=${rank[$to_mod]:--1}
    if [ "$to_rank" -gt "$from_rank" ]; then
      report "$file includes $target: $from_mod may not include $to_mod (order: ${order[*]})"
    elif [ "$from_mod" = kernels ] && [ "$to_mod" = kernels ]; then
      folder_of "$file"; from_f=$folder
      folder_of "$target"; to_f=$folder
      if [ -n "$from_f" ] && [ -n "$to_f" ] && [ "$from_f" != "$to_f" ]; then
        report "$file includes $target: family folder kernels/$from_f may not include kernels/$to_f"
      elif [ -n "$from_f" ] && [ -z "$to_f" ] && [[ "$target" == kernels/families.* ]]; then
        report "$file includes $target: family folder kernels/$from_f may not include the registry"
      fi
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find harness kernels -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.inc' \) | sort)

if [ "$errors" -gt 0 ]; then
  echo "layers: $errors include(s) break the module order" >&2
  exit 1
fi
echo "layers: every include follows ${order[*]}"
