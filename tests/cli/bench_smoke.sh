#!/bin/sh
# make bench's driver on 4x4 and 8x8 plates with tiny ceilings, no peers:
# the table, the ratios and the exponents are written (not the figures).
B=$(dirname "$CRDYN")
D=$(mktemp -d)
if python3 profiling/bench.py --build "$B" --smoke --out "$D" --results "$D/RESULTS.md" >"$D/log" 2>&1; then
  echo "ok - bench.py --smoke runs"
else
  echo "not ok - bench.py --smoke failed"; sed 's/^/# /' "$D/log" | tail -20
fi
grep -q '^| plate 4 | 16 |' "$D/RESULTS.md" 2>/dev/null && echo "ok - ladder row of the 4x4 plate" || echo "not ok - no 4x4 row in RESULTS.md"
grep -q 'DGEMM (OpenBLAS' "$D/RESULTS.md" 2>/dev/null && echo "ok - ceilings in the report" || echo "not ok - no ceilings"
grep -q '| refactorization | [0-9.-]' "$D/RESULTS.md" 2>/dev/null && echo "ok - exponents fitted" || echo "not ok - no exponent"
python3 - "$D/results.json" <<'PY' && echo "ok - flops counted and throughput positive" || echo "not ok - flops or throughput missing"
import json, sys
r = json.load(open(sys.argv[1]))
f = r["flops"]
assert f["tangent"]["flops"] > f["force"]["flops"] > 1000
assert all(x["tangent_elem_per_s"] > 0 and x["refactor_s"] > 0 for x in r["ladder"])
PY
rm -rf "$D"
