#!/bin/sh
# Folds and junctions (docs/element.md "Folds and junctions", "Intersection
# nodes in the problem"): the patches at each node and the crease_angle
# that separates them.  A fold, a box corner and a coarse full cylinder run
# in statics with a triad at each intersection node, and a note names those
# nodes and the crease_angle that would merge their patches; the cylinder
# runs as a smooth surface (no note) once crease_angle is above its 45
# degrees, and not just below.  What intersection nodes do not support yet
# is refused with the nodes named: implicit and auto dynamic stages (explicit
# stages run; checkpoints carry the triads; modal analyses run), the device
# backends (auto keeps the cpu), a partial rotational support at the node.
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

# runs NAME CASE FRAGMENT...: exit 0, a history, every fragment in stderr
# (none given: stderr without a note of intersection nodes)
runs() {
  name=$1; cf=$2; shift 2
  "$CRDYN" run "$cf" --out "$T/out" >/dev/null 2>"$T/err"; rc=$?
  why=""
  [ $rc -eq 0 ] || why="$why exit $rc;"
  [ -s "$T/out/history.csv" ] || why="$why no history.csv;"
  for frag in "$@"; do grep -F -q -e "$frag" "$T/err" || why="$why stderr lacks '$frag';"; done
  [ $# -gt 0 ] || ! grep -q "intersection node" "$T/err" || why="$why a note of intersection nodes;"
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
runs "coarse full cylinder at the default crease_angle: runs folded, the note names its nodes and the angle" \
  "$T/cyl.json" "40 intersection node(s) (node 0, node 1, node 2, node 3 and 36 more)" "crease_angle = 40 degrees" \
  '"crease_angle" above 45.0'
cyl ', "crease_angle": 44' >"$T/cyl44.json"
runs "the same with crease_angle 44 (just below its 45 degrees): still folded" "$T/cyl44.json" "crease_angle = 44"
cyl ', "crease_angle": 46' >"$T/cyl46.json"
runs "the same with crease_angle 46: runs as a smooth surface, no note" "$T/cyl46.json"

# an L of two plates folded by 90 degrees at nodes 2 and 5
fold() {
  cat <<JSON
{"format": 1, "title": "L fold",
 "mesh": {"nodes": [[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2,1,0],[2,0,1],[2,1,1]],
          "quads": [[0,1,4,3],[1,2,5,4],[2,6,7,5]]},
 "sections": [{"elements": "all", "E": 1e6, "nu": 0.3, "thickness": 0.05, "rho": 1}],
 "sets": {"root": {"nodes": [0, 3]}, "fold": {"nodes": [2, 5]}, "tip": {"nodes": [6, 7]}},
 "supports": [{"set": "root", "fix": "all"}$2],
 "loads": [{"set": "tip", "force": [-1, 0, 0]}],
 "analysis": $1}
JSON
}
fold '{"type": "static", "nlgeom": false}' >"$T/fold.json"
runs "a fold of 90 degrees: runs, a triad at its two nodes" "$T/fold.json" "2 intersection node(s) (node 2, node 5)"
fold '{"type": "static", "steps": 4}' ', {"set": "fold", "fix": ["px", "py", "pz"]}' >"$T/held.json"
runs "the same, geometrically nonlinear, with the fold's triads held (px, py, pz fixed)" "$T/held.json" \
  "2 intersection node(s)"
fold '{"type": "static"}' ', {"set": "fold", "fix": ["uy", "px"]}' >"$T/partial.json"
refused "a partial rotational support at an intersection node: refused, the support and node named" \
  "$T/partial.json" '$.supports[1]: node 2 is an intersection node (2 patches' "fix some of px, py, pz but not all"
fold '{"type": "modal", "modes": 2}' >"$T/modal.json"
runs "a modal analysis with intersection nodes: runs (tests/cli/fold_modal.sh)" "$T/modal.json" \
  "2 intersection node(s) (node 2, node 5)"
fold '{"type": "dynamic", "stages": [{"integrator": "implicit", "t_end": 0.01, "dt": 0.001}]}' >"$T/dyn.json"
runs "an implicit dynamic stage with intersection nodes: runs" "$T/dyn.json" "2 intersection node(s) (node 2, node 5)"
sed 's/"loads": \[/"loads": [{"set": "fold", "moment": [0, 1, 0]}, /' "$T/dyn.json" >"$T/dynmom.json"
refused "the same with a moment at the fold's nodes: refused" "$T/dynmom.json" \
  '$.loads[0]: a moment at an intersection node in an implicit stage ($.analysis.stages[0]): not yet (2 intersection node(s): node 2, node 5)'
fold '{"type": "dynamic", "stages": [{"integrator": "explicit", "t_end": 0.001, "dt": "auto"}, {"integrator": "auto", "t_end": 0.01, "dt": "auto"}]}' >"$T/dynauto.json"
refused "an auto dynamic stage after an explicit one: refused" "$T/dynauto.json" \
  '$.analysis.stages[1] (auto): auto stages with intersection nodes: not yet'
fold '{"type": "dynamic", "stages": [{"integrator": "explicit", "t_end": 0.002, "dt": "auto"}]}' >"$T/dynex.json"
runs "an explicit dynamic stage with intersection nodes: runs" "$T/dynex.json" "2 intersection node(s) (node 2, node 5)"
sed 's/"analysis"/"output": {"checkpoint_every": 10}, "analysis"/' "$T/dynex.json" >"$T/dynck.json"
runs "the same with checkpoints: runs (the triads' state in the checkpoint, tests/cli/fold_restart.sh)" "$T/dynck.json" \
  "2 intersection node(s) (node 2, node 5)"
for be in opencl cuda; do # refused before any device is looked for
  "$CRDYN" run "$T/fold.json" --out "$T/out" --quiet --backend $be >/dev/null 2>"$T/err"; rc=$?
  if [ $rc -ne 0 ] && grep -q "not supported in the $be backend" "$T/err" && [ ! -e "$T/out/history.csv" ]; then
    ok "--backend $be with intersection nodes: refused"
  else not_ok "--backend $be with intersection nodes: exit $rc"; sed 's/^/#   /' "$T/err"; fi
  rm -rf "$T/out"
done
"$CRDYN" run "$T/fold.json" --out "$T/out" --backend auto >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -s "$T/out/history.csv" ]; then ok "--backend auto with intersection nodes: runs on the cpu backend"
else not_ok "--backend auto with intersection nodes: exit $rc"; sed 's/^/#   /' "$T/err"; fi
rm -rf "$T/out"

# a box corner: three faces meet at node 0, each pair across a shared edge
cat >"$T/corner.json" <<'JSON'
{"format": 1, "title": "box corner",
 "mesh": {"nodes": [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[0,1,1],[0,0,1],[1,0,1]],
          "quads": [[0,3,2,1],[0,5,4,3],[0,1,6,5]]},
 "sections": [{"elements": "all", "E": 1e6, "nu": 0.3, "thickness": 0.05}],
 "sets": {"far": {"nodes": [2, 4, 6]}, "corner": {"nodes": [0]}},
 "supports": [{"set": "far", "fix": "all"}],
 "loads": [{"set": "corner", "force": [1, 1, 1]}, {"set": "corner", "moment": [0.1, 0, 0]}],
 "analysis": {"type": "static", "steps": 2}}
JSON
runs "a box corner (three patches at node 0, two at nodes 1, 3, 5), a force and a moment at the corner: runs" \
  "$T/corner.json" "4 intersection node(s) (node 0, node 1, node 3, node 5)"
echo "1..$n"
