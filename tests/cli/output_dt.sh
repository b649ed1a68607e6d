#!/bin/sh
# Output by simulated time (output.history_dt, output.vtk_dt) and the stage
# column of history.csv, on a two-stage run (explicit steps of some 1e-5 s,
# then implicit steps of 1e-4 s):
#   - with history_dt alone, a row where each multiple of history_dt is
#     passed (at the first step at or after it), at each stage's end and at
#     t = 0, and no other; the same case by step (no history_dt) writes a
#     row every step, which the count must tell apart;
#   - vtk_dt: a frame at each multiple passed, result.pvd lists them;
#   - the host loop and the OpenCL device-resident explicit loop give the
#     same rows;
#   - a restart in the middle gives the same history;
#   - history_dt in a static case is refused with its JSON path.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-outdt.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check()  { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }

python3 - tests/restart/strip_two_stage.json "$T" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["output"] = {"history_dt": 0.004, "vtk_dt": 0.01, "probes": c["output"]["probes"]}
json.dump(c, open(sys.argv[2] + "/by_time.json", "w"), indent=1)
c["output"] = {"vtk_every": 0, "probes": c["output"]["probes"]}
json.dump(c, open(sys.argv[2] + "/by_step.json", "w"), indent=1)
EOF

# rows_ok HISTORY DT: the rows are t = 0, the first step at or after each
# multiple of DT, and each stage's last step; prints what is wrong
rows_ok() {
  python3 - "$1" "$2" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
dt = float(sys.argv[2])
t = [float(r["time"]) for r in rows]
stage = [int(float(r["stage"])) for r in rows]
bad = []
if t[0] != 0: bad.append("no row at t = 0")
k = lambda x: math.floor(x / dt + 1e-9)
for i in range(1, len(t)):
    passed = k(t[i]) > k(t[i - 1])
    stage_end = i + 1 == len(t) or stage[i + 1] != stage[i]
    if not passed and not stage_end: bad.append("row at t = %g passes no multiple" % t[i])
need = {m for m in range(1, k(t[-1]) + 1)}
have = {k(x) for x in t}
if need - have: bad.append("multiples with no row: %s" % sorted(need - have)[:5])
if sorted(set(stage)) != [1, 2] or stage != sorted(stage): bad.append("stage column %s" % sorted(set(stage)))
print("; ".join(bad[:3]) + (" (%d more)" % (len(bad) - 3) if len(bad) > 3 else "") if bad else "ok %d rows" % len(rows))
sys.exit(1 if bad else 0)
EOF
}

"$CRDYN" run "$T/by_time.json" --out "$T/time" --quiet >/dev/null 2>&1; rc=$?
msg=$(rows_ok "$T/time/history.csv" 0.004)
check "[ $rc -eq 0 ] && [ \"\${msg#ok}\" != \"\$msg\" ]" "history_dt 0.004: a row at each multiple passed, the stage ends and t = 0 ($msg)"
"$CRDYN" run "$T/by_step.json" --out "$T/step" --quiet >/dev/null 2>&1
msg=$(rows_ok "$T/step/history.csv" 0.004)
check "[ \"\${msg#ok}\" = \"\$msg\" ]" "control: the same case by step is told apart ($msg)"
nframes=$(ls "$T/time/frames" | grep -c '^frame_')
check "[ $nframes -eq 8 ] && [ $(grep -c 'frame_' "$T/time/result.pvd") -eq 8 ]" \
  "vtk_dt 0.01 over 0.07 s: 8 frames (t = 0, 7 multiples passed) in frames/ and result.pvd (got $nframes)"
last=$(tail -1 "$T/time/history.csv" | awk -F, '{print $NF}'); first=$(sed -n 2p "$T/time/history.csv" | awk -F, '{print $NF}')
check "[ '$(head -1 "$T/time/history.csv" | awk -F, '{print $NF}')' = stage ] && [ '$first' = 1 ] && [ '$last' = 2 ]" \
  "history.csv ends with the column stage: 1 in the explicit stage, 2 in the implicit one"

# the device-resident explicit loop (OpenCL on PoCL) stops at the same rows
if "$CRDYN" devices 2>/dev/null | grep -q 'fp64.*yes\|double.*yes'; then
  "$CRDYN" run "$T/by_time.json" --out "$T/ocl" --backend opencl --quiet >/dev/null 2>&1; rc=$?
  check "[ $rc -eq 0 ] && [ \"\$(cut -d, -f1,2 '$T/ocl/history.csv')\" = \"\$(cut -d, -f1,2 '$T/time/history.csv')\" ]" \
    "opencl (resident explicit loop): the same steps and times as the host loop"
else
  echo "ok $((n + 1)) # SKIP no OpenCL device with fp64"; n=$((n + 1))
fi

# a restart in the middle of the explicit stage
CRDYN_TEST_SIGINT_STEP=1500 "$CRDYN" run "$T/by_time.json" --out "$T/rs" --quiet >/dev/null 2>&1
"$CRDYN" run "$T/by_time.json" --out "$T/rs" --quiet --restart "$T/rs/checkpoint.crd" >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ] && cmp -s '$T/rs/history.csv' '$T/time/history.csv'" "restart at step 1500: the same history"

# history_dt needs a time: refused in a static case
printf '%s\n' '{"format": 1, "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": 2, "ny": 2}},' \
  '"sections": [{"elements": "all", "E": 1e5, "nu": 0.3, "thickness": 0.1}],' \
  '"supports": [{"set": "all", "fix": "all"}], "analysis": {"type": "static"},' \
  '"output": {"history_dt": 0.1}}' >"$T/static_dt.json"
err=$("$CRDYN" check "$T/static_dt.json" 2>&1); rc=$?
check "[ $rc -ne 0 ] && echo \"\$err\" | grep -q '\$.output.history_dt: .*only dynamic'" "history_dt in a static case refused: $err"
echo "1..$n"
