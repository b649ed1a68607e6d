#!/bin/sh
# Rigid bodies from the command line: the flip and heavy-top cases run,
# history.csv carries the body columns (docs/case_format.md), and the
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
sed 's/\[\[-1,0,0/[[-2,0,0/' "$tmp/sing.json" > "$tmp/indef.json"
"$CRDYN" run "$tmp/indef.json" --out "$tmp/s2" --quiet 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'not positive definite' "$tmp/err" && [ ! -f "$tmp/s2/history.csv" ]
ok $? "an indefinite mass (negative added mass beyond the mass) is refused"
# checkpoint and restart: a run stopped by SIGINT at a random step (or at
# the stage boundary) and restarted gives the uninterrupted history bitwise
cat > "$tmp/two.json" <<'J'
{"format": 1, "title": "two-stage heavy top",
 "rigid_bodies": [{"name": "top", "mass": 1.0, "inertia": [[1.5,0,0],[0,1.5,0],[0,0,0.5]],
   "center_of_mass": [0.0, -0.2, 0.34641016151377546], "orientation": [0.9659258262890683, 0.25881904510252074, 0, 0],
   "angular_velocity": [0.0, -6.0, 10.392304845413264], "fix": ["ux", "uy", "uz"]},
  {"name": "free", "mass": 2.0, "inertia": [[1,0,0],[0,2,0],[0,0,3]], "angular_velocity": [0.1, 1, 0.05],
   "velocity": [1, 0, 0], "integrator": "newton_euler"}],
 "loads": [{"gravity": [0, 0, -9.81]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "implicit", "t_end": 1.0, "dt": 0.002},
                                            {"integrator": "explicit", "t_end": 2.0, "dt": 0.001}]},
 "output": {"history_every": 3, "checkpoint_every": 250}}
J
"$CRDYN" run "$tmp/two.json" --out "$tmp/ref" --quiet; ok $? "two-stage rigid case runs (checkpoint every 250 steps)"
seed=${RESTART_SEED:-$$}
k=$(( (seed % 1400) + 1 ))
for stop in $k 500; do
  rm -rf "$tmp/int"
  CRDYN_TEST_SIGINT_STEP=$stop "$CRDYN" run "$tmp/two.json" --out "$tmp/int" --quiet 2> "$tmp/err"; rc=$?
  [ $rc -eq 130 ] && [ -f "$tmp/int/checkpoint.crd" ] && [ ! -f "$tmp/int/history.csv" ]
  ok $? "SIGINT at step $stop: exit 130, checkpoint written, no complete history"
  "$CRDYN" run "$tmp/two.json" --out "$tmp/int" --quiet --restart "$tmp/int/checkpoint.crd"
  cmp -s "$tmp/ref/history.csv" "$tmp/int/history.csv"
  ok $? "restart after step $stop (seed $seed): history bitwise equal to the uninterrupted run"
done
"$CRDYN" run cases/heavy_top.json --out "$tmp/x" --quiet --restart "$tmp/int/checkpoint.crd" 2> "$tmp/err"
[ $? -ne 0 ] && grep -q 'another case' "$tmp/err"
ok $? "a checkpoint of another case is refused"
echo "1..$n"
