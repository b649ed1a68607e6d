#!/usr/bin/env python3
"""Two histories equal to a relative tolerance, each column measured on the
scale of the quantity it is a component of (a different factorization, as
MUMPS's against CHOLMOD's, changes the round-off, not the answer):
  - a probe's ux, uy, uz on the largest of the three (a component that stays
    zero is round-off on the scale of the others), likewise px, py, pz;
  - kinetic, strain, external_work and total on the largest of the first
    three (total is their round-off), Lx..Lz and Jx..Jz on their largest;
  - residual and iterations are the Newton loop's own figures, not the
    motion's: not compared (the rows must still be the same steps);
  - every other column on its own largest magnitude.
usage: close.py A.csv B.csv NAME [TOL]  (default 1e-10); prints one line,
exits 1 above TOL or on different rows."""
import csv, sys


def main(argv):
    a = list(csv.DictReader(open(argv[1])))
    b = list(csv.DictReader(open(argv[2])))
    name, tol = argv[3], float(argv[4]) if len(argv) > 4 else 1e-10
    if len(a) != len(b) or [r["step"] for r in a] != [r["step"] for r in b]:
        print("%s: %d rows against %d (different steps)" % (name, len(a), len(b)))
        return 1
    cols = [c for c in a[0] if c not in ("residual", "iterations")]
    groups = {}
    for c in cols:
        if "." in c and c[-2:-1] in ("u", "p") and c[-1] in "xyz":
            g = c[:-1]
        elif c in ("kinetic", "strain", "external_work", "total"):
            g = "energy"
        elif c[:1] in ("L", "J") and c[1:] in ("x", "y", "z"):
            g = c[0]
        else:
            g = c
        groups.setdefault(g, []).append(c)
    worst, where = 0.0, ""
    for g, cs in groups.items():
        basis = [c for c in cs if c != "total"]
        scale = max(abs(float(r[c])) for r in a for c in basis) or 1.0
        for c in cs:
            d = max(abs(float(x[c]) - float(y[c])) for x, y in zip(a, b)) / scale
            if d > worst:
                worst, where = d, c
    print("%s: %d rows, worst %.2e (column %s)" % (name, len(a), worst, where or "-"))
    return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
