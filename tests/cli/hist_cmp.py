#!/usr/bin/env python3
"""Compare two history.csv files column by column (backend parity tests).

usage: hist_cmp.py A.csv B.csv NAME [TOL]

Prints one line, "NAME: N rows, worst D (column C)[, bitwise]", and exits 0
when every column of B matches A's to TOL (default 1e-9) relative to the
column's scale, 1 otherwise (also on a row-count mismatch).

The scale of a column is its largest magnitude in A, with one exception:
`total` (kinetic + strain - external_work, docs/case_format.md) stays near zero
in a conserving run, so its own largest value is the size of the round-off
of the cancellation, not of the energies.  A difference in `total` is the sum
of the differences of its three terms, so it is measured on the scale of
those terms: max over the rows of |kinetic| + |strain| + |external_work|.
(Columns named wall* are timings and are skipped.)
"""
import csv
import sys


def column_scale(rows, k):
    if k == "total" and all(t in rows[0] for t in ("kinetic", "strain", "external_work")):
        return max(abs(float(r["kinetic"])) + abs(float(r["strain"])) + abs(float(r["external_work"]))
                   for r in rows)
    return max(abs(float(r[k])) for r in rows)


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.splitlines()[2])
        return 2
    a = list(csv.DictReader(open(argv[1])))
    b = list(csv.DictReader(open(argv[2])))
    name, tol = argv[3], float(argv[4]) if len(argv) == 5 else 1e-9
    if len(a) != len(b) or not a:
        print(f"{name}: {len(a)} and {len(b)} rows")
        return 1
    worst, col, same = 0.0, "-", True
    for k in a[0]:
        if k.startswith("wall"):
            continue
        if k not in b[0]:
            print(f"{name}: column {k} missing from {argv[2]}")
            return 1
        x = [float(r[k]) for r in a]
        y = [float(r[k]) for r in b]
        sc = max(column_scale(a, k), 1e-300)
        d = max(abs(p - q) for p, q in zip(x, y)) / sc
        same = same and x == y
        if d > worst:
            worst, col = d, k
    print(f"{name}: {len(a)} rows, worst {worst:.2e} (column {col}){', bitwise' if same else ''}")
    return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
