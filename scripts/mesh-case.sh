#!/usr/bin/env bash
# mesh-case.sh GEO OUT.msh [SIZE_FACTOR] - meshes a case's geometry (a gmsh
# .geo with a size factor `sf`: cases/ahmed.geo, cases/cylinder.geo) with
# gmsh into an ASCII Gmsh 4.1 file that `flowbench matrix info` and the
# solver read, and prints the node and tetrahedron counts and how long
# meshing took. SIZE_FACTOR (default 1) multiplies every mesh size; the
# .geo's header says what its sizes give. scripts/mesh-ahmed.sh is this
# script on cases/ahmed.geo. gmsh comes from scripts/setup.sh (Debian's
# gmsh).
set -euo pipefail
me=mesh-case.sh
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: mesh-case.sh GEO OUT.msh [SIZE_FACTOR]" >&2
  exit 2
fi
geo=$1 out=$2 factor=${3:-1}
[ -e "$geo" ] || { echo "$me: $geo: no such geometry (a gmsh .geo file)" >&2; exit 2; }
[ -f "$geo" ] || { echo "$me: $geo: not a file (a gmsh .geo file)" >&2; exit 2; }
[ -r "$geo" ] || { echo "$me: $geo: cannot be read" >&2; exit 2; }
# a positive number: 0 would make every mesh size 0 (gmsh's -setnumber
# does not hold the .geo's own bounds on sf)
if ! [[ $factor =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v f="$factor" 'BEGIN { exit !(f > 0) }'; then
  echo "$me: SIZE_FACTOR '$factor' is not a positive number" >&2
  exit 2
fi
if ! command -v gmsh >/dev/null 2>&1; then
  echo "$me: gmsh not found on PATH (scripts/setup.sh installs it)" >&2
  exit 3
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
if ! gmsh -3 "$geo" -setnumber sf "$factor" -format msh41 -o "$out" >"$log" 2>&1 \
   || grep -q '^Error' "$log"; then
  # gmsh can print an error and still exit 0: either way, show why
  echo "$me: gmsh failed on $geo: $(grep -m1 '^Error' "$log" || tail -n1 "$log")" >&2
  exit 1
fi
end=$(date +%s.%N)
# counts from the file itself: $Nodes' header gives the nodes; tetrahedra
# are the element blocks of type 4 (entity dim, tag, type, count)
awk -v out="$out" -v factor="$factor" -v start="$start" -v end="$end" '
  /^\$Nodes/ { getline; nodes = $2 }
  /^\$Elements/ { getline; inel = 1; next }
  /^\$EndElements/ { inel = 0 }
  inel && NF == 4 && left == 0 { if ($3 == 4) tets += $4; left = $4; next }
  inel { left-- }
  END { printf "%s: %d nodes, %d tetrahedra (size factor %s), meshed in %.1f s\n", out, nodes, tets, factor, end - start }
' "$out"
