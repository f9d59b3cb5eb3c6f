#!/usr/bin/env bash
# check_layers.sh ROOT - fails when an #include points up the module order.
#
# The order, lowest first (docs/architecture.md, "Layers"): a file may
# include its own module and the modules before it, never one after it.
#   core < matrix < backends < bench < kernels < results < tune < solver < cli
# Inside kernels/, each family folder (kernels/spmv, kernels/grid, ...) is
# closed: it includes only itself, the files every family shares at the top
# of kernels/ (common_host.h) and the harness modules below kernels; the
# registry (kernels/families.*) alone includes the family folders.
# A quoted #include that names no file in the tree is an error too.
set -uo pipefail
root=${1:?usage: check_layers.sh ROOT}
cd "$root" || exit 2

order=(core matrix backends bench kernels results tune solver cli)
rank_of() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }

# module of a path: harness/M/... -> M, kernels/... -> kernels
module_of() {
  case "$1" in
    harness/*/*) local m=${1#harness/}; echo "${m%%/*}" ;;
    kernels/*) echo kernels ;;
    *) echo "?" ;;
  esac
}

# family folder of a kernels/ path ("" for the registry at kernels/ itself)
folder_of() {
  local rest=${1#kernels/}
  case "$rest" in */*) echo "${rest%%/*}" ;; *) echo "" ;; esac
}

# the file an #include "x" in $1 resolves to: its own folder first, then the
# include directories of the build (harness, harness/core, kernels)
resolve() {
  local from=$1 inc=$2 d cand
  for d in "$(dirname "$from")" harness harness/core kernels; do
    cand=$(realpath -m --relative-to=. "$d/$inc")
    [ -f "$cand" ] && { echo "$cand"; return; }
  done
}

errors=0
report() { echo "layers: $*" >&2; errors=$((errors + 1)); }

while IFS= read -r file; do
  from_mod=$(module_of "$file")
  from_rank=$(rank_of "$from_mod")
  [ "$from_rank" -ge 0 ] || { report "$file: not in a module (${order[*]})"; continue; }
  while IFS= read -r inc; do
    target=$(resolve "$file" "$inc")
    [ -n "$target" ] || { report "$file: #include \"$inc\" names no file in the tree"; continue; }
    to_mod=$(module_of "$target")
    to_rank=$(rank_of "$to_mod")
    if [ "$to_rank" -gt "$from_rank" ]; then
      report "$file includes $target: $from_mod may not include $to_mod (order: ${order[*]})"
    elif [ "$from_mod" = kernels ] && [ "$to_mod" = kernels ]; then
      from_f=$(folder_of "$file"); to_f=$(folder_of "$target")
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
