#!/bin/sh
# Folds and junctions (docs/element.md "Folds and junctions"): the patches
# at each node and the crease_angle that separates them.  A fold, a box
# corner and a coarse full cylinder are refused with the nodes, their
# patches and the crease_angle that would merge them; the cylinder runs
# once crease_angle is above its 45 degrees, and not just below.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-folds.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }

# refused NAME CASE FRAGMENT...: non-zero exit, every fragment in stderr, no history
refused() {
  name=$1; cf=$2; shift 2
  "$CRDYN" run "$cf" --out "$T/out" --quiet >/dev/null 2>"$T/err"; rc=$?
  why=""
  [ $rc -ne 0 ] || why="$why exit 0;"
  for frag in "$@"; do grep -F -q -e "$frag" "$T/err" || why="$why stderr lacks '$frag';"; done
  [ ! -e "$T/out/history.csv" ] || why="$why left history.csv;"
  if [ -z "$why" ]; then ok "$name"; else not_ok "$name:$why"; sed 's/^/#   /' "$T/err"; fi
  rm -rf "$T/out"
}

# cyl ANGLE_KEY: a full cylinder, 8 elements around (45 degrees apart)
cyl() {
  cat <<JSON
{"format": 1, "title": "coarse full cylinder" $1,
 "mesh": {"generate": {"type": "cylinder", "radius": 1, "length": 2, "angle": [0, 360], "nc": 8, "nl": 4}},
 "sections": [{"elements": "all", "E": 1e6, "nu": 0.3, "thickness": 0.05}],
 "supports": [{"set": "y0", "fix": "all"}],
 "loads": [{"set": "y1", "force": [0, 0, -1], "total": true}],
 "analysis": {"type": "static", "nlgeom": false}}
JSON
}
cyl "" >"$T/cyl.json"
refused "coarse full cylinder at the default crease_angle: refused, its nodes and the angle named" "$T/cyl.json" \
  "40 node(s)" "node 0 (2 patches, normals 45.0 degrees apart)" "crease_angle = 40" '"crease_angle" above 45.0'
cyl ', "crease_angle": 44' >"$T/cyl44.json"
refused "the same with crease_angle 44 (just below its 45 degrees): still refused" "$T/cyl44.json" "crease_angle = 44"
cyl ', "crease_angle": 46' >"$T/cyl46.json"
"$CRDYN" run "$T/cyl46.json" --out "$T/c46" --quiet >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -s "$T/c46/history.csv" ]; then ok "the same with crease_angle 46: runs as a smooth surface"
else not_ok "the same with crease_angle 46: exit $rc"; sed 's/^/#   /' "$T/err"; fi

# an L of three plates folded by 90 degrees at nodes 2 and 5
cat >"$T/fold.json" <<'JSON'
{"format": 1, "title": "L fold",
 "mesh": {"nodes": [[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2,1,0],[2,0,1],[2,1,1]],
          "quads": [[0,1,4,3],[1,2,5,4],[2,6,7,5]]},
 "sections": [{"elements": "all", "E": 1e6, "nu": 0.3, "thickness": 0.05}],
 "sets": {"root": {"nodes": [0, 3]}},
 "supports": [{"set": "root", "fix": "all"}],
 "analysis": {"type": "static", "nlgeom": false}}
JSON
refused "a fold of 90 degrees: refused at its two nodes" "$T/fold.json" "2 node(s)" \
  "node 2 (2 patches, normals 90.0 degrees apart)" "node 5 (2 patches, normals 90.0 degrees apart)"

# a box corner: three faces meet at node 0, each pair across a shared edge
cat >"$T/corner.json" <<'JSON'
{"format": 1, "title": "box corner",
 "mesh": {"nodes": [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[0,1,1],[0,0,1],[1,0,1]],
          "quads": [[0,3,2,1],[0,5,4,3],[0,1,6,5]]},
 "sections": [{"elements": "all", "E": 1e6, "nu": 0.3, "thickness": 0.05}],
 "sets": {"far": {"nodes": [2, 4, 6]}},
 "supports": [{"set": "far", "fix": "all"}],
 "analysis": {"type": "static", "nlgeom": false}}
JSON
refused "a box corner: node 0 has three patches" "$T/corner.json" "node 0 (3 patches, normals 90.0 degrees apart)"
echo "1..$n"
