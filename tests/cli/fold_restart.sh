#!/bin/sh
# Checkpoint and restart with intersection nodes (docs/checkpoint.md,
# "triads.state"; tests/cli/fold_restart.py): the open box, explicit,
# implicit and explicit then implicit, stopped at random steps and
# restarted, gives the uninterrupted history.csv byte for byte; broken
# checkpoints (no triad section, wrong size, a bad chart) are refused.
# Then the same with the triads' rates not restored
# (CRDYN_TEST_TRIAD_CKPT=no_rates): some restart must differ.  POSIX sh, TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
CRDYN=${CRDYN:-$here/build/crdyn}
export CRDYN
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-foldrst.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
seed=${RESTART_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
python3 -B "$here/tests/cli/fold_restart.py" --seed "$seed" >"$T/good"; r1=$?
python3 -B "$here/tests/cli/fold_restart.py" --seed "$seed" --expect-fail >"$T/bad"; r2=$?
n=$(grep -c '^ok \|^not ok ' "$T/good")
grep -v '^1\.\.' "$T/good"
sed -n "s/^\(not \)\{0,1\}ok 1 - \(.*\)/\1ok $((n + 1)) - \2 (CRDYN_TEST_TRIAD_CKPT=no_rates)/p" "$T/bad"
echo "1..$((n + 1))"
[ $r1 -eq 0 ] && [ $r2 -eq 0 ]
