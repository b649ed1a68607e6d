#!/bin/sh
# Behaviour unchanged, bit for bit: runs every case with two crdyn binaries
# and compares their outputs byte by byte (history.csv, modes.csv, and every
# VTU frame and result.pvd).  For refactoring: build the binary before the
# change (e.g. in a git worktree), then
#
#     sh tools/compare_histories.sh OLD_CRDYN NEW_CRDYN [CASE...]
#
# Default cases: the shipped cases/*.json and the test cases of
# tests/restart, tests/valgrind, tests/watchdog (those that complete) and
# tests/opencl (on the CPU backend).  Prints TAP, one line per case; a case
# that fails with both binaries passes when both fail with the same message.
# POSIX sh; the cases are found beside tools/.
here=$(cd "$(dirname "$0")/.." && pwd)
OLD=$1 NEW=$2
[ -x "$OLD" ] && [ -x "$NEW" ] || { echo "usage: $0 OLD_CRDYN NEW_CRDYN [CASE...]" >&2; exit 2; }
shift 2
cd "$here" || exit 1
[ $# -gt 0 ] || set -- cases/*.json tests/restart/*.json tests/valgrind/*.json tests/watchdog/*.json tests/opencl/*.json
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-compare.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0; nfail=0
for c in "$@"; do
  n=$((n + 1))
  name=$(echo "$c" | tr '/' '_')
  "$OLD" run "$c" --out "$T/old/$name" --quiet --backend cpu >/dev/null 2>"$T/old.err"; r1=$?
  "$NEW" run "$c" --out "$T/new/$name" --quiet --backend cpu >/dev/null 2>"$T/new.err"; r2=$?
  bad=""
  if [ $r1 -ne $r2 ]; then bad="exit status $r1 against $r2"
  elif [ $r1 -ne 0 ]; then
    # the messages name the output folder: compared without it
    sed "s#$T/old/$name#OUT#g" "$T/old.err" >"$T/old.msg"; sed "s#$T/new/$name#OUT#g" "$T/new.err" >"$T/new.msg"
    cmp -s "$T/old.msg" "$T/new.msg" || bad="both fail, with other messages"
  else
    for f in $(cd "$T/old/$name" && find . -name '*.csv' -o -name '*.vtu' -o -name '*.pvd' | sort); do
      cmp -s "$T/old/$name/$f" "$T/new/$name/$f" || { bad="$bad $f"; }
    done
    [ "$(cd "$T/old/$name" && find . -name '*.csv' -o -name '*.vtu' | wc -l)" = \
      "$(cd "$T/new/$name" && find . -name '*.csv' -o -name '*.vtu' | wc -l)" ] || bad="$bad (file counts differ)"
  fi
  if [ -z "$bad" ]; then echo "ok $n - $c: outputs bitwise the same"
  else nfail=$((nfail + 1)); echo "not ok $n - $c: differs: $bad"; fi
  rm -rf "$T/old/$name" "$T/new/$name"
done
echo "1..$n"
echo "# $((n - nfail)) of $n cases bitwise the same"
[ $nfail -eq 0 ]
