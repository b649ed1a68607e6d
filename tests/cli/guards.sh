#!/bin/sh
# Guards a user expects (each refusal beside a control that is accepted):
#   - an explicit stage whose given dt exceeds the stable estimate is
#     refused by check and by run before the first step, naming dt, the
#     estimate and the element; a dt just below it runs;
#   - crdyn check prints per stage the step, the steps, rows and frames,
#     the counts the run writes;
#     a stage of more steps than the counters hold is refused;
#   - clamped requests say so: modes above what the model has, an implicit
#     dt above the stage's length, a given explicit dt shortened to divide
#     the stage;
#   - the command line: run --help, an unknown backend or solver, a thread
#     count above the limit, an option given as another's value.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-guards.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check()  { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }

# variant NAME PYTHON: a copy of the two-stage strip with the python
# statement applied to the case c
variant() {
  python3 - tests/restart/strip_two_stage.json "$T/$1.json" "$2" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF
}
est=$("$CRDYN" check tests/restart/strip_two_stage.json | sed -n 's/.*stable estimate \([0-9.e+-]*\) at.*/\1/p' | head -1)
echo "# stable estimate of the strip at its initial state: $est"
variant too_big "c['analysis']['stages'][0]['dt'] = 310 * $est"
variant just_below "c['analysis']['stages'][0]['dt'] = 0.99 * $est"

# --- explicit dt above the stable estimate ------------------------------------
err=$("$CRDYN" check "$T/too_big.json" 2>&1); rc=$?
check "[ $rc -ne 0 ] && echo \"\$err\" | grep -q 'stages\[0\].dt: .* exceeds the stable step estimate .*(310x) at the initial state, set by element [0-9]* (nodes'" \
  "check refuses an explicit dt 310x the stable estimate: $err"
err=$("$CRDYN" run "$T/too_big.json" --out "$T/tb" --quiet 2>&1); rc=$?
check "[ $rc -ne 0 ] && echo \"\$err\" | grep -q 'exceeds the stable step estimate' && [ \$(wc -l <'$T/tb/history.csv.part') -le 2 ] && ! grep -q complete '$T/tb/summary.json'" \
  "run refuses it before the first step (no step in the history, no complete summary): $err"
"$CRDYN" run "$T/just_below.json" --out "$T/jb" --quiet >/dev/null 2>&1; rc=$?
check "[ $rc -eq 0 ]" "control: dt at 0.99 of the estimate runs (status $rc)"

# --- crdyn check: what a run would do ------------------------------------------
out=$("$CRDYN" check tests/restart/strip_two_stage.json)
check "echo \"\$out\" | grep -q '^stage 0   explicit, t 0 .. 0.05: dt .* (auto; stable estimate' && echo \"\$out\" | grep -q '^stage 1   implicit.*200 steps.*200 history rows, 3 frames' && echo \"\$out\" | grep -q '^in all'" \
  "check prints each stage's step, steps, rows and frames"
steps=$(echo "$out" | sed -n 's/^stage 0 .*, \([0-9]*\) steps.*/\1/p')
"$CRDYN" run tests/restart/strip_two_stage.json --out "$T/s2" --quiet >/dev/null 2>&1
real=$(awk -F, 'NR > 1 && $NF == 1' "$T/s2/history.csv" | tail -1 | cut -d, -f1)
check "[ '$steps' = '$real' ]" "check's explicit step count is the run's ($steps, run $real)"
# rows and frames by step and by time together, where step and time
# multiples meet and a stage ends on one: check counts what the run writes
variant mixed "c['output'] = dict(history_every=7, history_dt=0.01, vtk_every=100, vtk_dt=0.01)"
plan=$("$CRDYN" check "$T/mixed.json" | sed -n 's/^in all .*, \([0-9]*\) history rows, \([0-9]*\) frames/\1 \2/p')
"$CRDYN" run "$T/mixed.json" --out "$T/mx" --quiet >/dev/null 2>&1
got=$(python3 -c "import json; c = json.load(open('$T/mx/summary.json'))['counts']; print(c['history_rows'], c['frames'])")
check "[ -n '$plan' ] && [ '$plan' = '$got' ]" "check's history rows and frames are the run's (check: $plan; run: $got)"
variant billion "c['analysis']['stages'] = [dict(integrator='implicit', t_end=1.0, dt=1e-9)]"
out=$("$CRDYN" check "$T/billion.json")
check "echo \"\$out\" | grep -q '1000000000 steps'" "a stage of 1e9 steps is visible in check: $(echo "$out" | grep '^stage')"
variant too_many "c['analysis']['stages'] = [dict(integrator='implicit', t_end=1.0, dt=1e-10)]"
err=$("$CRDYN" check "$T/too_many.json" 2>&1); rc=$?
check "[ $rc -ne 0 ] && echo \"\$err\" | grep -q 'stages\[0\].dt: .*steps.*at most'" "a stage of 1e10 steps is refused: $err"

# --- clamped requests say so ---------------------------------------------------
printf '%s\n' '{"format": 1, "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": 1, "ny": 1}},' \
  '"sections": [{"elements": "all", "E": 1e5, "nu": 0.3, "rho": 1, "thickness": 0.1}],' \
  '"supports": [{"set": "x0", "fix": "all"}], "analysis": {"type": "modal", "modes": 50}}' >"$T/modes.json"
out=$("$CRDYN" run "$T/modes.json" --out "$T/modes" 2>&1); rc=$?
check "[ $rc -eq 0 ] && echo \"\$out\" | grep -q 'note: \$.analysis.modes: 50 modes asked, the model has 10 equations: 9 computed'" \
  "modes above the model's: the run says how many it computes"
check "\"$CRDYN\" check '$T/modes.json' | grep -q 'note: \$.analysis.modes: 50 modes asked'" "and so does check"
variant long_dt "c['analysis']['stages'][1]['dt'] = 0.5"
out=$("$CRDYN" run "$T/long_dt.json" --out "$T/ld" 2>&1)
check "echo \"\$out\" | grep -q 'note: stage 1: dt 0.5 exceeds the stage.s length 0.02: one step of 0.02'" \
  "an implicit dt above the stage's length: the run says it takes one step"
variant uneven "c['analysis']['stages'][0]['dt'] = 0.7 * $est"
out=$("$CRDYN" run "$T/uneven.json" --out "$T/un" 2>&1)
check "echo \"\$out\" | grep -q 'note: stage 0: dt .* given, .* used: the stage.s 0.05 s in [0-9]* equal steps'" \
  "a given explicit dt shortened to divide the stage: the run says so"

# --- the command line ------------------------------------------------------------
out=$("$CRDYN" run --help); rc=$?
check "[ $rc -eq 0 ] && echo \"\$out\" | grep -q '^usage: crdyn run CASE' && echo \"\$out\" | grep -q -- '--threads N'" "crdyn run --help prints the command's help"
clirefuse() { # ARGS... then the expected message part in $want
  err=$("$CRDYN" "$@" 2>&1); rc=$?
  check "[ $rc -eq 2 ] && echo \"\$err\" | grep -q -- \"\$want\"" "crdyn $*: refused (status $rc): $err"
}
want="unknown backend (known: cpu, opencl, cuda, auto"; clirefuse run cases/sze31_cantilever_shear.json --backend bogus
want="unknown linear solver (known: cholmod"; clirefuse run cases/sze31_cantilever_shear.json --solver bogus
want="expected an integer from 1 to 4096"; clirefuse run cases/sze31_cantilever_shear.json --threads 100000
want="--out needs a value (DIR), got the option '--quiet'"; clirefuse run cases/sze31_cantilever_shear.json --out --quiet
want="unknown option '--bogus'"; clirefuse check cases/sze31_cantilever_shear.json --bogus
echo "1..$n"
