#!/usr/bin/env python3
"""Exact inextensible elastica of a cantilever under a tip force of fixed
direction: the reference columns "elastica" of benchmark B6 (Sze 3.1,
docs/benchmarks.md) in tools/validate.py.

    python3 tools/elastica.py            # the table: P/Pmax, -u_tip, w_tip, tip rotation
    python3 tools/elastica.py --check    # compare with tools/validate.py B6_TABLE (TAP)

The beam (length L, bending stiffness EI) is clamped at s = 0 with its axis
along x, and the force P acts along the initial normal.  With theta(s) the
slope angle, bending gives EI theta'' = -P cos(theta), theta(0) = 0 and
theta'(L) = 0 (no moment at the tip).  Once integrated,
EI theta'^2 / 2 = P (sin(phi) - sin(theta)), phi = theta(L) the tip
rotation, so with k = sqrt(2 P / EI)

    k L   = int_0^phi dtheta / sqrt(sin phi - sin theta)                 (1)
    x_tip = sqrt(2 EI sin(phi) / P)
    w_tip = (1/k) int_0^phi sin(theta) dtheta / sqrt(sin phi - sin theta)

and -u_tip = L - x_tip.  The substitution sin(theta) = sin(phi) (1 - t^2)
removes the inverse square root at theta = phi: with c = sin(phi),
dtheta / sqrt(c - sin theta) = 2 sqrt(c) dt / cos(theta), and the
integrands are smooth and even in t on [-1, 1], so Gauss-Legendre
quadrature converges geometrically.  (1) is solved for phi by bisection
(its right-hand side grows with phi on (0, pi/2)).

Standard library only.
"""

import argparse
import math
import os
import sys

# Sze 3.1: L = 10, b = 1, h = 0.1, E = 1.2e6 (EI = 100), Pmax = 4 EI / L^2.
L = 10.0
EI = 1.2e6 * 1.0 * 0.1 ** 3 / 12.0
PMAX = 4.0


def gauss_legendre(n):
    """Nodes and weights of the n-point Gauss-Legendre rule on [-1, 1]."""
    xs, ws = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for j in range(2, n + 1):
                p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
            dp = n * (x * p1 - p0) / (x * x - 1.0)
            dx = p1 / dp
            x -= dx
            if abs(dx) < 1e-16:
                break
        xs.append(x)
        ws.append(2.0 / ((1.0 - x * x) * dp * dp))
    return xs, ws


GL = gauss_legendre(64)


def integrals(phi):
    """(int dtheta / sqrt(c - sin theta), int sin theta dtheta / sqrt(...))
    over [0, phi], c = sin(phi)."""
    c = math.sin(phi)
    i1 = i2 = 0.0
    for t, wt in zip(*GL):
        s = c * (1.0 - t * t)               # sin(theta)
        g = 2.0 * math.sqrt(c) / math.sqrt(1.0 - s * s)
        i1 += wt * g
        i2 += wt * g * s
    return 0.5 * i1, 0.5 * i2                # the integrands are even in t


def tip(P):
    """(-u_tip, w_tip, phi) of the elastica under tip force P."""
    k = math.sqrt(2.0 * P / EI)
    lo, hi = 0.0, 0.5 * math.pi - 1e-12
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if integrals(mid)[0] < k * L:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    phi = 0.5 * (lo + hi)
    x = math.sqrt(2.0 * EI * math.sin(phi) / P)
    return L - x, integrals(phi)[1] / k, phi


def table():
    return [(i / 20.0,) + tip(PMAX * i / 20.0) for i in range(1, 21)]


def check():
    """TAP: the elastica columns of tools/validate.py B6_TABLE are these
    values rounded to four decimals."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True
    import validate
    n = bad = 0
    ref = {round(row[0], 4): row for row in validate.B6_TABLE}
    for lf, u, w, phi in table():
        row = ref.get(round(lf, 4))
        for name, got, want in (("-u_tip", u, row[3] if row else None),
                                ("w_tip", w, row[4] if row else None)):
            n += 1
            ok = want is not None and abs(got - want) <= 0.5e-4 + 1e-12
            bad += not ok
            print("%sok %d - B6 P/Pmax=%.2f elastica %s %.6f, table %s"
                  % ("" if ok else "not ", n, lf, name, got, want))
    n += 1
    phi = table()[-1][3]
    ok = abs(phi - 1.12124) <= 0.5e-5
    bad += not ok
    print("%sok %d - B6 elastica tip rotation at P = Pmax %.6f rad (1.12124)"
          % ("" if ok else "not ", n, phi))
    print("1..%d" % n)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the B6 table of tools/validate.py (TAP)")
    args = ap.parse_args()
    if args.check:
        return check()
    print("P/Pmax   -u_tip     w_tip      tip rotation (rad)")
    for lf, u, w, phi in table():
        print("%.2f   %.6f   %.6f   %.6f" % (lf, u, w, phi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
