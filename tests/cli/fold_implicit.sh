#!/bin/sh
# Implicit dynamics with intersection nodes (docs/dynamics.md, "Intersection
# nodes in the implicit step"; tests/cli/fold_implicit.py): the open box of
# fold_dynamics.sh after a force pulse keeps its energy to 1e-8 and its
# momenta to 1e-10 with rho_inf = 1, never gains energy with rho_inf = 0.8,
# and runs explicit then implicit.  Then the same box with the triads'
# equations tested with statics' A1 instead of the midpoint basis B
# (CRDYN_TEST_TRIAD_BASIS=A1): the conservation check must fail.  POSIX sh, TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
CRDYN=${CRDYN:-$here/build/crdyn}
export CRDYN
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-foldimp.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
python3 -B "$here/tests/cli/fold_implicit.py" >"$T/good"; r1=$?
CRDYN_TEST_TRIAD_BASIS=A1 python3 -B "$here/tests/cli/fold_implicit.py" --expect-fail >"$T/bad"; r2=$?
n=$(grep -c '^ok \|^not ok ' "$T/good")
grep -v '^1\.\.' "$T/good"
sed -n "s/^\(not \)\{0,1\}ok 1 - \(.*\)/\1ok $((n + 1)) - \2 (A1 for the basis)/p" "$T/bad"
grep '^#' "$T/bad"
echo "1..$((n + 1))"
[ $r1 -eq 0 ] && [ $r2 -eq 0 ]
