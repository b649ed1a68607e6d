#!/bin/sh
# make complexity: the size and complexity of the host functions, measured
# by lizard (PyPI: pip install lizard), against the house rules
# (docs/architecture.md, "Conventions"): no function over 100 lines, at most
# 5 over 60 lines, none with a cyclomatic complexity over 30.  Lists the
# functions past each limit and exits 1 if a rule is broken.
#     sh tools/complexity.sh [FOLDER...]      (default: src/host)
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 1
command -v lizard >/dev/null 2>&1 || { echo "complexity: lizard not found (pip install lizard)"; exit 2; }
[ $# -gt 0 ] || set -- src/host
lizard --csv -l c -l cpp "$@" 2>/dev/null | python3 -c '
import csv, sys
# lizard --csv: nloc, ccn, tokens, params, length, location, file, function, long name, start, end
rows = [r for r in csv.reader(sys.stdin) if len(r) >= 11]
f = [(int(r[4]), int(r[1]), r[7], "%s:%s" % (r[6], r[9])) for r in rows]
over100 = sorted([x for x in f if x[0] > 100], reverse=True)
over60 = sorted([x for x in f if 60 < x[0] <= 100], reverse=True)
ccn30 = sorted([x for x in f if x[1] > 30], key=lambda x: -x[1])
print("complexity: %d functions; over 100 lines: %d (limit 0); 61-100 lines: %d (limit 5); CCN over 30: %d (limit 0)"
      % (len(f), len(over100), len(over60), len(ccn30)))
for title, lst in (("over 100 lines", over100), ("61-100 lines", over60), ("cyclomatic complexity over 30", ccn30)):
    if lst and (title != "61-100 lines" or len(lst) > 5):
        print(title + ":")
        for n, c, name, where in lst: print("  %4d lines  CCN %3d  %s  %s" % (n, c, name, where))
sys.exit(1 if over100 or len(over60) > 5 or ccn30 else 0)
'
