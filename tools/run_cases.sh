#!/bin/sh
# make cases: every shipped case (cases/*.json) runs as shipped.  Each case
# runs with `crdyn run CASE --out TMP/NAME --quiet` into a temporary folder
# and passes when crdyn exits with status 0 and summary.json says
# "status": "complete".  No case is shortened: every one runs with its own
# steps, t_end and analysis settings.  A case that runs longer than
# $CASE_TIMEOUT seconds (default 600) is stopped and fails.
#
#     sh tools/run_cases.sh [CRDYN]      (default: build/crdyn)
#
# POSIX sh, run from anywhere (the cases are found beside tools/); prints
# TAP, one line per case with its wall time, and exits 1 if any case fails
# (the end of its log is shown).  $KEEP=1 keeps the temporary folder.
here=$(cd "$(dirname "$0")/.." && pwd)
CRDYN=${1:-${CRDYN:-$here/build/crdyn}}
CASE_TIMEOUT=${CASE_TIMEOUT:-600}
export OMP_THREAD_LIMIT=${OMP_THREAD_LIMIT:-2} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-cases.XXXXXX") || exit 1
if [ -n "$KEEP" ]; then echo "# outputs kept in $T"; else trap 'rm -rf "$T"' EXIT INT TERM; fi
n=0; nfail=0
if [ ! -x "$CRDYN" ]; then
  echo "not ok 1 - crdyn binary $CRDYN is executable (build it with make)"; echo "1..1"; exit 1
fi
to=
command -v timeout >/dev/null 2>&1 && to="timeout $CASE_TIMEOUT"
start_all=$(date +%s)
cd "$here" || exit 1
for c in cases/*.json; do
  [ -e "$c" ] || continue
  name=$(basename "$c" .json)
  n=$((n + 1))
  t0=$(date +%s.%N)
  $to "$CRDYN" run "$c" --out "$T/$name" --quiet >"$T/$name.log" 2>&1; rc=$?
  dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  st=$(sed -n 's/^[[:space:]]*"status":[[:space:]]*"\([^"]*\)".*/\1/p' "$T/$name/summary.json" 2>/dev/null | head -1)
  if [ "$rc" -eq 0 ] && [ "$st" = complete ]; then
    echo "ok $n - $c: exit 0, status complete (${dt} s)"
  else
    nfail=$((nfail + 1))
    why="exit status $rc"
    [ "$rc" -eq 124 ] && [ -n "$to" ] && why="stopped after $CASE_TIMEOUT s"
    echo "not ok $n - $c: $why, summary.json status '${st:-none}' (${dt} s)"
    tail -5 "$T/$name.log" | sed 's/^/#   /'
  fi
  [ -n "$KEEP" ] || rm -rf "${T:?}/$name"
done
echo "1..$n"
echo "# $((n - nfail)) of $n cases complete, $nfail failed ($(($(date +%s) - start_all)) s)"
[ "$n" -gt 0 ] && [ "$nfail" -eq 0 ]
