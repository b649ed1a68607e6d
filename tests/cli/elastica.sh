#!/bin/sh
# The elastica reference of benchmark B6 (docs/benchmarks.md): the columns
# "elastica" of tools/validate.py's B6 table are tools/elastica.py's exact
# solution rounded to four decimals, and the tip rotation at Pmax is
# 1.12124 rad.  POSIX sh, run from anywhere; prints TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
exec python3 -B "$here/tools/elastica.py" --check
