#!/bin/sh
# Validation against published shell benchmarks (docs/benchmarks.md B1-B3, B6-B9):
# runs tools/validate.py, which runs the cases of cases/ and prints TAP.
# POSIX sh, run from the repository root.  $CRDYN: the binary (exported by
# tests/run.sh; default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
exec python3 tools/validate.py --crdyn "$CRDYN"
