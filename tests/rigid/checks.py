"""Conservation in the written histories of the rigid-body cases.

flip (torque-free, dqvi): spatial angular momentum J constant to 1e-12
relative, linear momentum zero, kinetic energy constant to 1e-10 relative
(bounded, no drift), |q| = 1, and the body flips (w_y changes sign).
top (gravity, fixed point, dqvi): the vertical angular momentum about the
fixed point J_z is a first integral (gravity has no moment about z):
constant to 1e-10; total energy K - W (W the work of gravity) bounded to
1e-4 relative; the fixed point stays at the origin.
"""
import csv
import math
import sys

n0 = int(sys.argv[3])
n = n0
fail = 0


def ok(c, what):
    global n, fail
    n += 1
    fail += not c
    print("%sok %d - %s" % ("" if c else "not ", n, what))


def read(path):
    with open(path) as f:
        r = csv.DictReader(f)
        return [{k: float(v) for k, v in row.items()} for row in r]


fl = read(sys.argv[1])
J0 = [fl[0]["J" + c] for c in "xyz"]
jn = math.sqrt(sum(j * j for j in J0))
ej = max(abs(r["J" + c] - J0[i]) for r in fl for i, c in enumerate("xyz")) / jn
ok(ej < 1e-12, "flip: angular momentum constant, max rel change %.2e" % ej)
el = max(abs(r["L" + c]) for r in fl for c in "xyz")
ok(el < 1e-14, "flip: linear momentum stays zero, max %.2e" % el)
K0 = fl[0]["kinetic"]
ek = max(abs(r["kinetic"] - K0) for r in fl) / K0
ok(ek < 1e-10, "flip: kinetic energy constant, max rel change %.2e" % ek)
eq = max(abs(math.sqrt(sum(r["box.q" + c] ** 2 for c in "wxyz")) - 1) for r in fl)
ok(eq < 1e-14, "flip: |q| = 1, max error %.2e" % eq)


def body_wy(r):
    """w_B . e_y = w_W . (R e_y), R e_y the second column of R(q)"""
    w, x, y, z = (r["box.q" + c] for c in "wxyz")
    ey = (2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x))
    return sum(a * b for a, b in zip(ey, (r["box.wx"], r["box.wy"], r["box.wz"])))


wmin = min(body_wy(r) for r in fl)
ok(wmin < -0.9, "flip: the body flips (body w_y reaches %.3f)" % wmin)

tp = read(sys.argv[2])
Jz0 = tp[0]["Jz"]
ez = max(abs(r["Jz"] - Jz0) for r in tp) / abs(Jz0)
ok(ez < 1e-10, "top: vertical angular momentum about the fixed point constant, max rel change %.2e" % ez)
E0 = tp[0]["total"]
ee = max(abs(r["total"] - E0) for r in tp) / abs(E0)
ok(ee < 1e-4, "top: total energy (kinetic - work of gravity) bounded, max rel change %.2e" % ee)
ex = max(abs(r["top." + c]) for r in tp for c in "xyz")
ok(ex == 0.0, "top: the fixed point stays at the origin (max %.2e)" % ex)
sys.exit(1 if fail else 0)
