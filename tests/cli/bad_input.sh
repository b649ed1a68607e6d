#!/bin/sh
# CLI checks: bad cases must fail with a message that names the problem and
# where (file and JSON path, element or line) and must leave no complete-
# looking output; the good paths (--help, --version, check, run) must work.
# POSIX sh, run from the repository root; prints TAP.  $CRDYN: the binary
# (default ./build/crdyn).  VERBOSE=1 also shows the message of each bad case.
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0; nfail=0

ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $1"; }

# A small valid case; $1 replaces the "supports" line, $2 the "loads" line,
# $3 extra top-level keys (with a leading comma), $4 the "sections" line.
base() {
  sup=${1:-'"supports": [{"set": "x0", "fix": "all"}],'}
  lds=${2:-'"loads": [{"set": "x1", "force": [0, 0, 1], "total": true}],'}
  sec=${4:-'"sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": 0.1}],'}
  cat <<JSON
{
  "format": 1,
  "title": "cli test",
  "mesh": {"generate": {"type": "rectangle", "lx": 4, "ly": 1, "nx": 2, "ny": 1}},
  $sec
  $sup
  $lds
  "analysis": {"type": "static", "steps": 1, "max_load_factor": 1.0}$3
}
JSON
}

# A 2 x 1 explicit mesh (nodes 0..5, quads 0 and 1, counter-clockwise about +z);
# $1 replaces the quads, $2 the nodes.
explicit() {
  nodes=${2:-'[[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2,1,0]]'}
  cat <<JSON
{
  "format": 1,
  "mesh": {"nodes": $nodes,
           "quads": $1},
  "sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": 0.1}],
  "sets": {"left": {"box": [[-0.1, -0.1, -0.1], [0.1, 1.1, 0.1]]}},
  "supports": [{"set": "left", "fix": "all"}],
  "analysis": {"type": "static", "steps": 1}
}
JSON
}

# bad NAME CASEFILE FRAGMENT...: run it; it must exit non-zero, its stderr
# must hold every fragment, and its output folder no history.csv/summary.json.
bad() {
  name=$1; cf=$2; shift 2
  out="$T/out_$n"
  "$CRDYN" run "$cf" --out "$out" --quiet >"$T/stdout" 2>"$T/stderr"
  rc=$?
  why=""
  [ "$rc" -ne 0 ] || why="$why exit status 0;"
  [ "$rc" -lt 128 ] || why="$why killed by a signal (status $rc);"
  for frag in "$@"; do
    grep -F -q -e "$frag" "$T/stderr" || why="$why stderr lacks '$frag';"
  done
  for f in history.csv summary.json; do
    [ ! -e "$out/$f" ] || why="$why left $f;"
  done
  if [ -z "$why" ]; then
    ok "$name"
    [ -z "${VERBOSE:-}" ] || sed 's/^/#   stderr: /' "$T/stderr" | head -3
  else
    not_ok "$name:$why"
    sed 's/^/#   stderr: /' "$T/stderr" | head -5
  fi
}


# ---------------------------------------------------------------- bad input
printf '{\n  "format": 1,\n  "title": "x",,\n  "mesh": {}\n}\n' >"$T/malformed.json"
bad "malformed JSON names the file and the line" "$T/malformed.json" "malformed.json" "line 3"

base "" "" ',
  "analysys": {"type": "static"}' >"$T/topkey.json"
bad "unknown top-level key" "$T/topkey.json" "topkey.json" '$.analysys'

base "" "" "" '"sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thicknes": 0.1}],' >"$T/nestkey.json"
bad "unknown nested key" "$T/nestkey.json" "nestkey.json" '$.sections[0].thicknes'

base '"supports": [{"set": "left", "fix": "all"}],' >"$T/noset.json"
bad "support on a missing set" "$T/noset.json" "noset.json" '$.supports[0].set' "left"

base "" "" ',
  "sets": {"far": {"box": [[100, 100, 100], [101, 101, 101]]}}' >"$T/emptybox.json"
bad "box set that selects nothing" "$T/emptybox.json" "emptybox.json" '$.sets.far'

base "" "" "" '"sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": 0}],' >"$T/thick0.json"
bad "zero thickness" "$T/thick0.json" "thick0.json" '$.sections[0].thickness'
base "" '"loads": [{"set": "x1", "moment": [0, 0.6, 0.8]}],' >"$T/moment_normal.json"
bad "a moment with a part along a smooth node's normal" "$T/moment_normal.json" "moment_normal.json" \
  '$.loads[0]' "along the node's normal" "no drilling"
base "" "" ', "crease_angle": 180' >"$T/crease_angle.json"
bad "crease_angle out of (0, 180)" "$T/crease_angle.json" "crease_angle.json" '$.crease_angle' "(0, 180)"
# adaptive implicit steps: their keys only with dt "auto" on an implicit stage, dt_min <= dt_max
ST=cases/cantilever_strip_pulse.json
sed 's/"dt": 1e-3,/"dt": 1e-3, "error_tolerance": 1e-4,/' "$ST" >"$T/errtol_fixed.json"
bad "error_tolerance with a numeric dt" "$T/errtol_fixed.json" "errtol_fixed.json" '$.analysis.stages[0].error_tolerance' 'dt "auto"'
sed 's/"integrator": "implicit", "t_end": 0.5, "dt": 1e-3, "rho_inf": 1.0, "tolerance": 1e-10/"integrator": "explicit", "t_end": 0.5, "dt": "auto", "dt_max": 1e-3/' "$ST" >"$T/dtmax_explicit.json"
bad "dt_max in an explicit stage" "$T/dtmax_explicit.json" "dtmax_explicit.json" '$.analysis.stages[0].dt_max' "implicit or auto stages"
# integrator "auto": dt "auto" only, its keys only there, the same inertia for both integrators
sed 's/"integrator": "implicit", "t_end": 0.5, "dt": 1e-3,/"integrator": "auto", "t_end": 0.5, "dt": 1e-3,/' "$ST" >"$T/auto_dt.json"
bad "integrator auto with a numeric dt" "$T/auto_dt.json" "auto_dt.json" '$.analysis.stages[0].dt' 'must be "auto"'
sed 's/"integrator": "implicit", "t_end": 0.5, "dt": 1e-3,/"integrator": "auto", "t_end": 0.5, "dt": "auto", "newton_cost": 0,/' "$ST" >"$T/auto_cost0.json"
bad "newton_cost 0" "$T/auto_cost0.json" "auto_cost0.json" '$.analysis.stages[0].newton_cost' "> 0"
sed 's/"integrator": "implicit", "t_end": 0.5, "dt": 1e-3,/"integrator": "auto", "t_end": 0.5, "dt": "auto", "mass_scaling": 4,/' "$ST" >"$T/auto_ms.json"
bad "mass_scaling in an auto stage" "$T/auto_ms.json" "auto_ms.json" '$.analysis.stages[0].mass_scaling' "explicit stages"
sed 's/"dt": 1e-3,/"dt": "auto", "switch_margin": 0.5,/' "$ST" >"$T/margin_implicit.json"
bad "switch_margin in an implicit stage" "$T/margin_implicit.json" "margin_implicit.json" '$.analysis.stages[0].switch_margin' 'stages with integrator'
sed 's/"integrator": "implicit"/"integrator": "hybrid"/' "$ST" >"$T/integ_name.json"
bad "unknown integrator names the choices" "$T/integ_name.json" "integ_name.json" '$.analysis.stages[0].integrator' "implicit, explicit or auto"
sed 's/"dt": 1e-3,/"dt": "auto", "dt_min": 0.1, "dt_max": 0.01,/' "$ST" >"$T/dtmin_big.json"
bad "dt_min above dt_max" "$T/dtmin_big.json" "dtmin_big.json" '$.analysis.stages[0].dt_min' "exceeds dt_max"
sed 's/"dt": 1e-3,/"dt": "auto", "error_tolerance": 0,/' "$ST" >"$T/errtol0.json"
bad "error_tolerance 0" "$T/errtol0.json" "errtol0.json" '$.analysis.stages[0].error_tolerance'
base "" "" "" '"sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": 0.1, "membrane": "mitc9"}],' >"$T/membrane.json"
bad "unknown membrane names the value and the choices" "$T/membrane.json" "membrane.json" '$.sections[0].membrane' "mitc9" "tied_shear or displacement"

base "" "" "" '"sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": -0.1}],' >"$T/thickneg.json"
bad "negative thickness" "$T/thickneg.json" "thickneg.json" '$.sections[0].thickness'

explicit '[[0,1,4,3],[1,2,2,4]]' >"$T/repeated.json"
bad "degenerate quad (repeated node)" "$T/repeated.json" "repeated.json" "element 1"

explicit '[[0,1,2,3]]' '[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]' >"$T/zeroarea.json"
bad "zero-area quad (collinear nodes)" "$T/zeroarea.json" "zeroarea.json" "element 0"

explicit '[[0,1,4,3],[1,4,5,2]]' >"$T/clockwise.json"
bad "quad numbered clockwise in a CCW mesh" "$T/clockwise.json" "clockwise.json" "element 1"

explicit '[[0,1,4,3],[1,2,4,5]]' >"$T/bowtie.json"
bad "bow-tie quad (symmetric: zero net area)" "$T/bowtie.json" "bowtie.json" "element 1"

explicit '[[0,1,4,3],[1,2,4,5]]' '[[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2.6,1.3,0]]' >"$T/bowtie2.json"
bad "bow-tie quad (asymmetric)" "$T/bowtie2.json" "bowtie2.json" "element 1"

# a crease of 90 degrees (intersection nodes 1 and 4) with one rotational component fixed there
explicit '[[0,1,4,3],[1,2,5,4]]' '[[0,0,0],[1,0,0],[1,0,1],[0,1,0],[1,1,0],[1,1,1]]' |
  sed 's/"supports": \[{"set": "left", "fix": "all"}\]/"supports": [{"set": "left", "fix": "all"}, {"set": "crease", "fix": ["py"]}]/;
       s/"sets": {/"sets": {"crease": {"box": [[0.9, -0.1, -0.1], [1.1, 1.1, 0.1]]}, /' >"$T/crease.json"
bad "a partial rotational support at a crease of 90 degrees is refused, naming the support and node" "$T/crease.json" \
  "crease.json" '$.supports[1]: node 1 is an intersection node (2 patches' "fix some of px, py, pz but not all"

explicit '[[0,1,4,3],[1,2,5,6]]' >"$T/range.json"
bad "node index out of range" "$T/range.json" "range.json" '$.mesh.quads[1]'

base "" '"loads": [{"set": "x1", "force": [0, 0, NaN]}],' >"$T/nan.json"
bad "NaN in a load is malformed JSON (with its line)" "$T/nan.json" "nan.json" "line 7"

base "" '"loads": [{"set": "x1", "force": [0, 0, 1e999]}],' >"$T/inf.json"
bad "1e999 in a load is not finite" "$T/inf.json" "inf.json" '$.loads[0].force[2]' "finite"

base '"supports": [],' >"$T/nosupport.json"
bad "static analysis without supports is singular" "$T/nosupport.json" "nosupport.json" '$.supports' "singular"

base '"supports": [{"set": "x0", "fix": ["uz"]}],' >"$T/rigid.json"
bad "supports leaving a rigid-body mode: singular" "$T/rigid.json" "rigid.json" "singular"

base '"supports": [{"set": "x0", "fix": ["uz"]}],' '"loads": [],' >"$T/rigid_noload.json"
bad "rigid-body mode with no loads is still singular" "$T/rigid_noload.json" "rigid_noload.json" "singular"

base "" "" ',
  "backend": "fpga"' >"$T/backend.json"
bad "unknown backend in the case" "$T/backend.json" "backend.json" '$.backend' "fpga"

base "" "" ',
  "backend": "cuda"' >"$T/cuda.json"
bad "backend not compiled in (cuda): names the file and \$.backend" "$T/cuda.json" "cuda.json" '$.backend' "cuda"

base >"$T/good.json"
out="$T/out_cli_backend"
"$CRDYN" run "$T/good.json" --backend fpga --out "$out" --quiet >/dev/null 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "fpga" "$T/stderr" && [ ! -e "$out/summary.json" ]; then
  ok "unknown --backend on the command line"
else not_ok "unknown --backend on the command line (status $rc)"; fi

bad "non-existent case file" "$T/no_such_case.json" "no_such_case.json"

cat >"$T/tri.msh" <<'MSH'
$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 4 1 4
2 1 0 4
1
2
3
4
0 0 0
1 0 0
1 1 0
0 1 0
$EndNodes
$Elements
2 2 1 2
2 1 3 1
1 1 2 3 4
2 1 2 1
2 1 3 4
$EndElements
MSH
cat >"$T/tri.json" <<'JSON'
{
  "format": 1,
  "mesh": {"file": "tri.msh"},
  "sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "rho": 0, "thickness": 0.1}],
  "sets": {"left": {"box": [[-0.1, -0.1, -0.1], [0.1, 1.1, 0.1]]}},
  "supports": [{"set": "left", "fix": "all"}],
  "analysis": {"type": "static", "steps": 1}
}
JSON
bad "Gmsh file with a triangle" "$T/tri.json" "tri.msh:20"

# ---------------------------------------------------------------- good paths
"$CRDYN" --help >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "usage" "$T/stdout"; then ok "--help exits 0 and prints usage"
else not_ok "--help exits 0 and prints usage (status $rc)"; fi

"$CRDYN" --version >"$T/stdout" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && grep -Eq '^crdyn [0-9]+\.[0-9]+' "$T/stdout"; then ok "--version prints crdyn and a version"
else not_ok "--version prints crdyn and a version (status $rc)"; fi

"$CRDYN" --no-such-option >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "no-such-option" "$T/stderr"; then ok "unknown option exits non-zero"
else not_ok "unknown option exits non-zero (status $rc)"; fi

"$CRDYN" run "$T/good.json" --frobnicate >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "frobnicate" "$T/stderr"; then ok "unknown option after run exits non-zero"
else not_ok "unknown option after run exits non-zero (status $rc)"; fi

"$CRDYN" frobnicate "$T/good.json" >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "frobnicate" "$T/stderr"; then ok "unknown command exits non-zero"
else not_ok "unknown command exits non-zero (status $rc)"; fi

"$CRDYN" run >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "no case" "$T/stderr"; then ok "run without a case exits non-zero"
else not_ok "run without a case exits non-zero (status $rc)"; fi

"$CRDYN" run "$T/good.json" --threads 0 --out "$T/out_threads" >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "threads" "$T/stderr" && [ ! -e "$T/out_threads/summary.json" ]; then
  ok "--threads 0 is refused"
else not_ok "--threads 0 is refused (status $rc)"; fi

"$CRDYN" check "$T/good.json" >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -eq 0 ]; then ok "check on a valid case exits 0"
else not_ok "check on a valid case exits 0 (status $rc)"; sed 's/^/#   /' "$T/stderr" | head -5; fi

base "" "" ',
  "output": {"probes": [{"name": "tip", "node": 2}], "vtk_every": 1}' >"$T/goodrun.json"
out="$T/run_ok"
"$CRDYN" run "$T/goodrun.json" --out "$out" --quiet >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -eq 0 ]; then ok "run on a valid case exits 0"
else not_ok "run on a valid case exits 0 (status $rc)"; sed 's/^/#   /' "$T/stderr" | head -5; fi
hdr='step,time,load_factor,iterations,residual,kinetic,strain,external_work,total,Lx,Ly,Lz,Jx,Jy,Jz,tip.ux,tip.uy,tip.uz,tip.px,tip.py,tip.pz,stage'
if [ -f "$out/history.csv" ] && [ "$(head -n 1 "$out/history.csv")" = "$hdr" ]; then
  ok "history.csv has the documented header with probe columns"
else not_ok "history.csv has the documented header with probe columns"; fi
rows=$( [ -f "$out/history.csv" ] && wc -l <"$out/history.csv" || echo 0)
if [ "$rows" -ge 3 ]; then ok "history.csv has the initial and final rows"
else not_ok "history.csv has the initial and final rows ($rows lines)"; fi
if [ -f "$out/summary.json" ] && grep -Eq '"status":[[:space:]]*"complete"' "$out/summary.json"; then
  ok "summary.json says status complete"
else not_ok "summary.json says status complete"; fi
if [ -f "$out/result.pvd" ] && ls "$out"/frames/*.vtu >/dev/null 2>&1; then ok "result.pvd and frames/*.vtu written"
else not_ok "result.pvd and frames/*.vtu written"; fi
if [ ! -e "$out/history.csv.part" ]; then ok "no history.csv.part left after a complete run"
else not_ok "no history.csv.part left after a complete run"; fi

# a failed run must not leave the summary of an earlier complete run in its folder
"$CRDYN" run "$T/rigid.json" --out "$out" --quiet >"$T/stdout" 2>"$T/stderr"; rc=$?
if [ "$rc" -ne 0 ] && [ ! -e "$out/summary.json" ] && [ ! -e "$out/history.csv" ]; then
  ok "a failing run removes an earlier run's history.csv and summary.json"
else not_ok "a failing run removes an earlier run's history.csv and summary.json (status $rc)"; fi

echo "1..$n"
[ "$nfail" -eq 0 ]
