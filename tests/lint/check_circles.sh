#!/usr/bin/env bash
# check_circles.sh OBJDIR - fails when the files of one module call each
# other in a circle (docs/architecture.md, "Layers"): file A calls a
# function file B defines, and B, directly or through other files of the
# module, calls back into A. Such files can only be read together, and a
# change to one is a change to all. The calls are read from the compiled
# objects (nm: the symbols each defines and the ones it needs), so a
# module is the folder of the sources (harness/M, or kernels/F for one
# family), and a call through a function pointer is not seen.
#
# Prints each circle as its files and one call per edge, e.g.
#   harness/tune: sweep.c -> sweep_records.c (sweep_switch_target) -> sweep.c (sweep_best)
# and exits 1 when there is one; 0 and a count when there is none.
set -uo pipefail
objdir=${1:?usage: check_circles.sh OBJDIR, the CMakeFiles/flowbench_core.dir of a build}
[ -d "$objdir" ] || { echo "check_circles: $objdir: no such folder (build first)" >&2; exit 2; }
cd "$objdir" || exit 2

# one line per symbol: "D module file symbol" (a function it defines) or
# "U module file symbol" (one it needs); nm -A prefixes each line with its
# object, ./harness/tune/sweep.c.o
symbols() {
  local objects
  mapfile -t objects < <(find ./harness ./kernels -name '*.c.o' 2>/dev/null | sort)
  [ "${#objects[@]}" -gt 0 ] || { echo "check_circles: no objects under $objdir" >&2; return 1; }
  { nm -A --defined-only -g "${objects[@]}" | awk '$(NF - 1) == "T" { print "D", $1, $NF }'
    nm -A -u "${objects[@]}" | awk '{ print "U", $1, $NF }'; } |
    awk '{ split($2, p, ":"); o = p[1]; sub(/^\.\//, "", o); sub(/\.o$/, "", o)
           f = o; sub(/.*\//, "", f); m = o; sub(/\/[^\/]*$/, "", m)
           print $1, m, f, $3 }'
}

symbols | awk '
  $1 == "D" { def[$2 SUBSEP $4] = $3; next }
  { need[++n] = $2 SUBSEP $3 SUBSEP $4 }
  function add_file(m, f) { if (!((m SUBSEP f) in seen)) { seen[m SUBSEP f] = 1; nf[m]++; file[m, nf[m]] = f } }
  END {
    # edges between files of one module, with one function that makes each
    for (i = 1; i <= n; ++i) {
      split(need[i], p, SUBSEP)
      to = def[p[1] SUBSEP p[3]]
      if (to == "" || to == p[2]) continue
      e = p[1] SUBSEP p[2] SUBSEP to
      if (!(e in via)) via[e] = p[3]
      add_file(p[1], p[2]); add_file(p[1], to)
      reach[e] = 1
    }
    # transitive closure per module (Warshall: modules hold tens of files)
    for (m in nf)
      for (k = 1; k <= nf[m]; ++k) for (i = 1; i <= nf[m]; ++i) {
        if (!((m SUBSEP file[m, i] SUBSEP file[m, k]) in reach)) continue
        for (j = 1; j <= nf[m]; ++j)
          if ((m SUBSEP file[m, k] SUBSEP file[m, j]) in reach) reach[m SUBSEP file[m, i] SUBSEP file[m, j]] = 1
      }
    # a circle: the files that reach each other, named in the order found
    for (m in nf) for (i = 1; i <= nf[m]; ++i) {
      a = file[m, i]
      if ((m SUBSEP a) in placed || !((m SUBSEP a SUBSEP a) in reach)) continue
      line = m ":"
      for (j = 1; j <= nf[m]; ++j) {
        b = file[m, j]
        if ((m SUBSEP a SUBSEP b) in reach && (m SUBSEP b SUBSEP a) in reach) member[++nm] = b
      }
      for (x = 1; x <= nm; ++x) { placed[m SUBSEP member[x]] = 1
        for (y = 1; y <= nm; ++y) if ((m SUBSEP member[x] SUBSEP member[y]) in via)
          line = line " " member[x] " -> " member[y] " (" via[m SUBSEP member[x] SUBSEP member[y]] ");" }
      nm = 0
      print line
      ++circles
    }
    if (circles) { printf "%d circle(s) of calls between the files of one module\n", circles; exit 1 }
    print "no circle of calls between the files of one module"
  }'
