#!/bin/sh
# Explicit dynamics with intersection nodes (docs/dynamics.md, "Intersection
# nodes in the explicit step"; tests/cli/fold_dynamics.py): an open box
# (a cube without its lid, triads on its 20 edge nodes) after a force pulse
# at two corners keeps its linear and angular momenta to round-off and its
# energy within the central difference's second-order error; the
# right-angle frame of fold_frame.py under a slowly ramped load ends at its
# static solution.  Then the same box with the triads' moment taken without
# the chart's map (CRDYN_TEST_TRIAD_MOMENT=chart) and with the triads' spin
# left out of the angular momentum (CRDYN_TEST_TRIAD_MEASURE=no_spin): both
# must fail.  POSIX sh, TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
CRDYN=${CRDYN:-$here/build/crdyn}
export CRDYN
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-folddyn.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
python3 -B "$here/tests/cli/fold_dynamics.py" >"$T/good"; r1=$?
CRDYN_TEST_TRIAD_MOMENT=chart python3 -B "$here/tests/cli/fold_dynamics.py" --expect-fail >"$T/bad1"; r2=$?
CRDYN_TEST_TRIAD_MEASURE=no_spin python3 -B "$here/tests/cli/fold_dynamics.py" --expect-fail >"$T/bad2"; r3=$?
n=$(grep -c '^ok \|^not ok ' "$T/good")
grep -v '^1\.\.' "$T/good"
sed -n "s/^\(not \)\{0,1\}ok 1 - \(.*\)/\1ok $((n + 1)) - \2 (moment without M^T)/p" "$T/bad1"
grep '^#' "$T/bad1"
sed -n "s/^\(not \)\{0,1\}ok 1 - \(.*\)/\1ok $((n + 2)) - \2 (no triad spin in J)/p" "$T/bad2"
grep '^#' "$T/bad2"
echo "1..$((n + 2))"
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ]
