#!/usr/bin/env bash
# mesh-ahmed.sh OUT.msh [SIZE_FACTOR] - meshes the Ahmed body case
# (cases/ahmed.geo): scripts/mesh-case.sh on it. SIZE_FACTOR (default 1)
# multiplies every mesh size: 1 is the paper-sized mesh (about 80,000 nodes,
# 435,000 tetrahedra, about 20 s), 4 a coarse one for tests (about 2,000
# nodes, under a second).
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: mesh-ahmed.sh OUT.msh [SIZE_FACTOR]" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$here/mesh-case.sh" "$here/../cases/ahmed.geo" "$@"
