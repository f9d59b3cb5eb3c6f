#!/usr/bin/env bash
# size-table.sh [--write] [ROOT] - checks the product line counts of
# docs/architecture.md's Size section against the tree: the total ("N
# lines, counted with") and each module row of its table (| `PATH` | N |
# ...; a row `PATH` (the rest) counts PATH less the rows below it in the
# table). Product code is every .c, .h, .cl and .cpp git tracks under
# harness/ and kernels/ (every such file there, in a tree that is no git
# checkout: a source package). Exit 1 naming each figure that is not the tree's;
# --write puts the tree's figures in place instead (the prose is left as
# written).
set -euo pipefail
write=0
[ "${1:-}" = --write ] && { write=1; shift; }
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc=$root/docs/architecture.md
[ -r "$doc" ] || { echo "size-table.sh: $doc: cannot read" >&2; exit 2; }
files_under() { # PATH: the files git tracks under it (every file, in a tree that is no git checkout)
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -- "$1"
  else
    (cd "$root" && find "$1" -type f)
  fi
}
lines_under() { # PATH: product lines under it
  files_under "$1" | grep -E '\.(c|h|cl|cpp)$' | (cd "$root" && xargs -r cat) | wc -l
}
commas() { echo "$1" | sed -E ':a;s/([0-9])([0-9]{3})($|,)/\1,\2\3/;ta'; }
# the rows: PATH and whether it is "(the rest)"
mapfile -t rows < <(sed -n '/^## Size$/,/^## /p' "$doc" | grep -E '^\| `[^`]+/`( \(the rest\))? \| [0-9,]+ \|' |
  sed -E 's/^\| `([^`]+)`( \(the rest\))? \| ([0-9,]+) \|.*/\1;\2;\3/')
[ ${#rows[@]} -gt 0 ] || { echo "size-table.sh: $doc: no module table in its Size section" >&2; exit 2; }
total=$(($(lines_under harness) + $(lines_under kernels)))
bad=0 sed_args=()
check() { # WHAT SHOWN ACTUAL PATTERN REPLACEMENT
  [ "${2//,/}" = "$3" ] && return 0
  if [ $write = 1 ]; then
    sed_args+=(-e "s#$4#$5#")
  else
    echo "docs/architecture.md: $1 says $2, the tree has $(commas "$3")"
    bad=1
  fi
}
shown=$(sed -n '/^## Size$/,/^## /p' "$doc" | grep -oE '^[0-9,]+ lines, counted with' | grep -oE '^[0-9,]+' || true)
[ -n "$shown" ] || { echo "size-table.sh: $doc: no \"N lines, counted with\" in its Size section" >&2; exit 2; }
check "the product total" "$shown" "$total" "^$shown lines, counted with" "$(commas "$total") lines, counted with"
for row in "${rows[@]}"; do
  IFS=';' read -r path rest n <<<"$row"
  actual=$(lines_under "$path")
  if [ -n "$rest" ]; then # less the other rows under it
    for other in "${rows[@]}"; do
      o=${other%%;*}
      [ "$o" != "$path" ] && [ "${o#"$path"}" != "$o" ] && actual=$((actual - $(lines_under "$o")))
    done
  fi
  check "\`$path\`" "$n" "$actual" "^| \`$path\`$rest | $n |" "| \`$path\`$rest | $(commas "$actual") |"
done
if [ $write = 1 ] && [ ${#sed_args[@]} -gt 0 ]; then sed -i "${sed_args[@]}" "$doc"; fi
[ $bad = 0 ] || { echo "(scripts/size-table.sh --write puts the tree's figures in)"; exit 1; }
