#!/bin/sh
# A T-section cantilever (flange and web meeting at a junction of three
# patches: intersection nodes) in statics (linear and large torsion) against OpenSees'
# ASDShellQ4 within 2 % (tests/cli/t_section.py), then the same with the
# junction taken as smooth (crease_angle 100) and with a wrong corner
# (CRDYN_TEST_TRIAD_C=tilt), each of which must fail.  POSIX sh, TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
CRDYN=${CRDYN:-$here/build/crdyn}
export CRDYN
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-tsec.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
py="python3 -B $here/tests/cli/t_section.py"
$py >"$T/good"; r1=$?
$py --crease 100 --expect-fail >"$T/smooth"; r2=$?
CRDYN_TEST_TRIAD_C=tilt $py --expect-fail >"$T/tilt"; r3=$?
n=$(grep -c '^ok \|^not ok ' "$T/good")
grep -v '^1\.\.' "$T/good"
sed -n "s/^\(not \)\{0,1\}ok 1 /\1ok $((n + 1)) /p" "$T/smooth"
sed -n "s/^\(not \)\{0,1\}ok 1 /\1ok $((n + 2)) /p" "$T/tilt"
grep -h '^#' "$T/smooth" "$T/tilt"
echo "1..$((n + 2))"
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ]
