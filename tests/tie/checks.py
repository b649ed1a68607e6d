"""Checks of the hub-and-panels case (cases/hub_panels.json) from its history.

A rigid hub (free body) with two flexible panels tied to it is spun up by a
moment with a triangular amplitude over t = 0..0.5 and is then free.
After the moment (rho_inf = 1): total energy and angular momentum of hub
plus panels constant to 1e-8 relative, linear momentum zero; during it the
energy equals the work of the moment (the discrete work of the step);
the angular impulse of the moment is the change of J (to 1e-3: the moment
acts through the midpoint triad, an O(h^2) difference from the moment
itself); a tied node (probe "root") moves rigidly with the hub (position
and normal from the hub's pose to 1e-12); the hub's own balance holds with
the tie reaction of the history: m dv/dt = F_tie and dJ_hub/dt = M + M_tie
(differences over each step against its midpoint reaction, to 1e-4 of the largest reaction); Newton stays at
about 4 iterations per step.
"""
import csv
import math
import sys

n = int(sys.argv[2])
fail = 0


def ok(c, what):
    global n, fail
    n += 1
    fail += not c
    print("%sok %d - %s" % ("" if c else "not ", n, what))


rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1]))]
free = [r for r in rows if r["time"] >= 0.5 - 1e-12]
K = free[0]["kinetic"] + free[0]["strain"]
E = [r["total"] for r in free]
dE = (max(E) - min(E)) / K
ok(dE <= 1e-8, "after the moment: total energy constant to %.2e of %.4g (<= 1e-8)" % (dE, K))
J0 = [free[0]["J" + c] for c in "xyz"]
jn = math.sqrt(sum(j * j for j in J0))
dJ = max(math.dist([r["J" + c] for c in "xyz"], J0) for r in free) / jn
ok(dJ <= 1e-8, "after the moment: angular momentum constant to %.2e (<= 1e-8)" % dJ)
Lmax = max(abs(r["L" + c]) for r in rows for c in "xyz")
pscale = math.sqrt(2.0 * K * 18.0)  # momentum scale: sqrt(2 K m), m ~ 18 kg
ok(Lmax <= 1e-10 * pscale, "no net force: linear momentum stays zero, max %.2e" % Lmax)
ew = max(abs(r["total"]) for r in rows if r["time"] <= 0.5 + 1e-12) / K
ok(ew <= 1e-8, "during the moment: energy = work of the moment to %.2e" % ew)
imp = [6.0 * 0.25, 0.0, 50.0 * 0.25]
ei = math.dist(J0, imp) / math.hypot(*imp)
ok(ei <= 1e-3, "angular impulse of the moment (1.5, 0, 12.5) = J(0.5) to %.2e (<= 1e-3)" % ei)
it = [r["iterations"] for r in rows[1:]]
ok(sum(it) / len(it) <= 5.0 and max(it) <= 7,
   "Newton: %.2f iterations per step, at most %d (measured 4.05 and 5)" % (sum(it) / len(it), max(it)))


def rot(q, v):
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][k] * v[k] for k in range(3)) for i in range(3)]


X = [0.2, 0.2, 0.0]  # node 114 of the 24 x 4 mesh from (-1.2, -0.2)
ex = ep = 0.0
for r in rows:
    q = [r["hub.q" + c] for c in "wxyz"]
    x = [X[i] + r["root.u" + c] for i, c in enumerate("xyz")]
    xp = [r["hub." + c] + v for c, v in zip("xyz", rot(q, X))]
    ex = max(ex, math.dist(x, xp))
    ep = max(ep, math.dist([r["root.p" + c] for c in "xyz"], rot(q, [0.0, 0.0, 1.0])))
ok(ex <= 1e-12 and ep <= 1e-12, "tied node moves with the hub: position %.2e, normal %.2e (<= 1e-12)" % (ex, ep))
# hub balance with the tie reaction: m v' = F_tie, (R J R^T w)' = M(t) + M_tie
m, Jb = 5.0, [0.5, 0.5, 0.8]


def hub_J(r):
    q = [r["hub.q" + c] for c in "wxyz"]
    w = [r["hub.w" + c] for c in "xyz"]
    # R J R^T w: w to body axes (R^T), times J, back
    qc = [q[0], -q[1], -q[2], -q[3]]
    wb = rot(qc, w)
    return rot(q, [Jb[i] * wb[i] for i in range(3)])


ef = em = 0.0
fs = max(abs(r["hub.tie_f" + c]) for r in rows for c in "xyz")
ms = max(abs(r["hub.tie_m" + c]) for r in rows for c in "xyz")
for k in range(60, len(rows), 7):
    # the reaction of a row is the step's, at its midpoint: against the
    # step's differences
    a, b = rows[k - 1], rows[k]
    h = b["time"] - a["time"]
    tf = 0.5 * (a["time"] + b["time"])
    amp = max(0.0, 1.0 - abs(tf - 0.25) / 0.25) if tf < 0.5 else 0.0
    Mapp = [6.0 * amp, 0.0, 50.0 * amp]
    Ja, Jb_ = hub_J(a), hub_J(b)
    for i, s in enumerate("xyz"):
        ef = max(ef, abs(m * (b["hub.v" + s] - a["hub.v" + s]) / h - b["hub.tie_f" + s]))
        em = max(em, abs((Jb_[i] - Ja[i]) / h - Mapp[i] - b["hub.tie_m" + s]))
sc = max(fs, ms)
ok(ef <= 1e-4 * sc and em <= 1e-4 * sc,
   "hub balance with the tie reaction: force %.2e, moment %.2e of the reaction scale %.3g (<= 1e-4)" %
   (ef / sc, em / sc, sc))
print("# measured: dE %.2e, |L| %.2e, impulse %.2e" % (dE, Lmax, ei))
sys.exit(1 if fail else 0)
