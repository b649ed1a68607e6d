#!/bin/sh
# Run every test program (build/tests/t*) and CLI script (tests/cli/*.sh),
# count TAP lines, show failures, close with "N passed, N failed".
BUILD=${1:-build}
export CRDYN="$(pwd)/$BUILD/crdyn"
export OMP_THREAD_LIMIT=${OMP_THREAD_LIMIT:-2} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
pass=0; fail=0; log=$(mktemp)
for t in "$BUILD"/tests/t[0-9][0-9][0-9]-* tests/cli/*.sh; do
  [ -e "$t" ] || continue
  case "$t" in *.sh) cmd="sh $t";; *) cmd="$t";; esac
  start=$(date +%s)
  $cmd >"$log" 2>&1; rc=$?
  p=$(grep -c '^ok ' "$log"); f=$(grep -c '^not ok ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "not ok - $t exited with status $rc" >>"$log"
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf '%-44s %4d passed %3d failed  (%ds)\n' "$(basename "$t")" "$p" "$f" $(( $(date +%s) - start ))
  if [ "$f" -ne 0 ]; then grep -E '^not ok|^#' "$log" | head -40 | sed 's/^/    /'; tail -5 "$log" | sed 's/^/    | /'; fi
done
rm -f "$log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
