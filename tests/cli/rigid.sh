#!/bin/sh
# Rigid bodies from the command line: the flip and heavy-top cases run,
# history.csv carries the body columns (CASE_FORMAT.md), and the
# conservation figures hold in the written history (tests/rigid/checks.py);
# bad rigid-body input fails with a message naming the JSON path.
CRDYN=${CRDYN:-./build/crdyn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
"$CRDYN" run cases/rigid_flip.json --out "$tmp/flip" --quiet; ok $? "rigid_flip.json runs"
"$CRDYN" run cases/heavy_top.json --out "$tmp/top" --quiet; ok $? "heavy_top.json runs"
python3 tests/rigid/checks.py "$tmp/flip/history.csv" "$tmp/top/history.csv" "$n" > "$tmp/checks.txt"
rc=$?
cat "$tmp/checks.txt"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/checks.txt")))
[ $rc -eq 0 ] || { n=$((n + 1)); echo "not ok $n - checks.py exited $rc"; }
# bad input
cat > "$tmp/partial.json" <<'J'
{"format": 1, "rigid_bodies": [{"name": "b", "mass": 1, "inertia": [[1,0,0],[0,1,0],[0,0,1]], "fix": ["uz"]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "implicit", "t_end": 1, "dt": 0.1}]}}
J
"$CRDYN" run "$tmp/partial.json" --out "$tmp/p" --quiet 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'rigid_bodies\[0\].fix' "$tmp/err" && [ ! -f "$tmp/p/history.csv" ]
ok $? "a partial fix is refused naming \$.rigid_bodies[0].fix, no history"
cat > "$tmp/auto.json" <<'J'
{"format": 1, "rigid_bodies": [{"name": "b", "mass": 1, "inertia": [[1,0,0],[0,1,0],[0,0,1]]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "explicit", "t_end": 1, "dt": "auto"}]}}
J
"$CRDYN" run "$tmp/auto.json" --out "$tmp/a" --quiet 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'stages\[0\].dt' "$tmp/err"
ok $? "dt auto without a mesh is refused naming \$.analysis.stages[0].dt"
cat > "$tmp/sing.json" <<'J'
{"format": 1, "rigid_bodies": [{"name": "b", "mass": 1, "inertia": [[1,0,0],[0,1,0],[0,0,1]],
  "added_mass": [[-1,0,0,0,0,0],[0,0,0,0,0,0],[0,0,0,0,0,0],[0,0,0,0,0,0],[0,0,0,0,0,0],[0,0,0,0,0,0]]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "implicit", "t_end": 1, "dt": 0.1}]}}
J
"$CRDYN" run "$tmp/sing.json" --out "$tmp/s" --quiet 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'singular' "$tmp/err"
ok $? "a singular mass (added mass cancelling the mass) is refused"
echo "1..$n"
