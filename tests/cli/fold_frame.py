#!/usr/bin/env python3
"""The right-angle frame of two plate strips meeting at a fold (intersection
nodes, docs/element.md "Intersection nodes in the problem"), against the
inextensible elastica of the frame with a rigid corner and against linear
frame theory.

The frame: leg 1 along +x from the clamped edge x = 0 to the fold at
x = L1 = 12, in the plane z = 0 (normal +z); leg 2 from the fold edge up
along +z to z = L2 = 6, in the plane x = L1 (normal -x, the sheet's
orientation carried round the fold).  Both legs are 1 wide (y in [0, 1])
and h = 0.1 thick, E = 1.2e6, nu = 0, so EI = E h^3 / 12 = 100 per unit
width and the strips bend as beams in the x-z plane about y.  A dead force
P, total, along -x on the free edge of leg 2 pulls it back over leg 1; the
corner turns by more than 30 degrees at the largest load.

Elastica (inextensible, unshearable, a rigid corner): with psi(s) the angle
of the axis from +x towards +z along the arc length s (leg 1 on [0, L1],
leg 2 on [L1, L1 + L2]) and m = EI psi' the bending moment,
    x' = cos psi,  z' = sin psi,  psi' = m / EI,  m' = -(t x F) = -P sin psi
(t x F the x-z cross product of the unit tangent and F = (-P, 0)), with
psi(0) = 0, psi jumping by +90 degrees at the corner (m continuous) and
m = 0 at the free end: shooting on m(0) (the secant method from the linear
m(0) = L2 P), classical Runge-Kutta with 4000 steps a leg.

A moment (0, -m, 0) at the fold instead (shared by its nodes): leg 1 bends
into an arc of curvature m / EI and the corner turns by m L1 / EI (60
degrees here); leg 2, unloaded, stays straight and turns with it.

Linear frame theory (the same beam model, small rotations): leg 1 under
the end moment L2 P: rotation L1 L2 P / EI and rise L1^2 L2 P / (2 EI) at
the corner; leg 2 turned with it and bent as a cantilever, so the tip moves
by ux = -(L1 L2^2 + L2^3 / 3) P / EI, uz = L1^2 L2 P / (2 EI).

    python3 tests/cli/fold_frame.py             # TAP: the frame against both references,
                                                # load control and arc length
    python3 tests/cli/fold_frame.py --table     # the figures only
    CRDYN_TEST_TRIAD_C=tilt python3 ... --expect-fail   # the broken corner (see fold_frame.sh)

$CRDYN names the binary (default ./build/crdyn).  Standard library only.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

L1, L2, WIDTH, H, E = 12.0, 6.0, 1.0, 0.1, 1.2e6
EI = E * WIDTH * H ** 3 / 12.0
PMAX = 0.9           # the corner turns by 37 degrees
STEPS = 6            # load levels P = PMAX k / STEPS
P_LINEAR = 1e-4      # a load small enough for linear theory (rotations of 1e-5)
M_FOLD = math.pi / 3 * EI / L1  # a moment at the fold that turns the corner by 60 degrees
TOL = 0.01           # 1 % of the reference tip displacement (chosen before the runs)
N1, N2, NW = 24, 12, 2  # elements along leg 1, leg 2 and across


def rhs(y, P):
    """d/ds of (x, z, psi, m)."""
    x, z, psi, m = y
    return (math.cos(psi), math.sin(psi), m / EI, -P * math.sin(psi))


def rk4_leg(y, length, P, n=4000):
    h = length / n
    for _ in range(n):
        k1 = rhs(y, P)
        k2 = rhs([a + 0.5 * h * b for a, b in zip(y, k1)], P)
        k3 = rhs([a + 0.5 * h * b for a, b in zip(y, k2)], P)
        k4 = rhs([a + h * b for a, b in zip(y, k3)], P)
        y = [a + h / 6.0 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(y, k1, k2, k3, k4)]
    return y


def shoot(m0, P):
    """(tip x, tip z, corner angle, m at the tip) from m(0) = m0."""
    y = rk4_leg([0.0, 0.0, 0.0, m0], L1, P)
    corner = y[2]
    y[2] += 0.5 * math.pi
    y = rk4_leg(y, L2, P)
    return y[0], y[1], corner, y[3]


def elastica(P):
    """(ux, uz, corner rotation in radians) of the tip of the frame under P."""
    a, b = L2 * P, 1.05 * L2 * P
    fa, fb = shoot(a, P)[3], shoot(b, P)[3]
    for _ in range(60):
        if fb == fa:
            break
        c = b - fb * (b - a) / (fb - fa)
        a, fa, b, fb = b, fb, c, shoot(c, P)[3]
        if abs(fb) < 1e-13 * max(1.0, L2 * P):
            break
    x, z, corner, _ = shoot(b, P)
    return x - L1, z - L2, corner


def linear(P):
    return -(L1 * L2 ** 2 + L2 ** 3 / 3.0) * P / EI, L1 ** 2 * L2 * P / (2.0 * EI)


def mesh(n1, n2, nw):
    """Nodes and quads of the frame; the root, tip and probe node."""
    nodes, idx = [], {}
    for i in range(n1 + 1):
        for j in range(nw + 1):
            idx[("a", i, j)] = len(nodes)
            nodes.append([L1 * i / n1, WIDTH * j / nw, 0.0])
    for k in range(1, n2 + 1):
        for j in range(nw + 1):
            idx[("b", k, j)] = len(nodes)
            nodes.append([L1, WIDTH * j / nw, L2 * k / n2])

    def b(k, j):
        return idx[("a", n1, j)] if k == 0 else idx[("b", k, j)]
    quads = []
    for i in range(n1):
        for j in range(nw):
            quads.append([idx[("a", i, j)], idx[("a", i + 1, j)], idx[("a", i + 1, j + 1)], idx[("a", i, j + 1)]])
    for k in range(n2):  # the shared edge traversed the other way: normal -x
        for j in range(nw):
            quads.append([b(k, j + 1), b(k, j), b(k + 1, j), b(k + 1, j + 1)])
    root = [idx[("a", 0, j)] for j in range(nw + 1)]
    tip = [b(n2, j) for j in range(nw + 1)]
    fold = [idx[("a", n1, j)] for j in range(nw + 1)]
    return nodes, quads, root, tip, fold, b(n2, nw // 2)


def case(P, steps, nlgeom=True, arc=False, moment=0.0):
    """The frame under the tip force P, or (moment != 0) under the moment
    (0, -moment, 0) shared by the fold's nodes instead."""
    nodes, quads, root, tip, fold, probe = mesh(N1, N2, NW)
    loads = [{"set": "tip", "force": [-P, 0.0, 0.0], "total": True}]
    if moment:
        loads = [{"set": "fold", "moment": [0.0, -moment / len(fold), 0.0]}]
    return {"format": 1, "title": "right-angle frame of two plate strips at a fold",
            "mesh": {"nodes": nodes, "quads": quads},
            "sections": [{"elements": "all", "E": E, "nu": 0.0, "thickness": H}],
            "sets": {"root": {"nodes": root}, "tip": {"nodes": tip}, "fold": {"nodes": fold}},
            "supports": [{"set": "root", "fix": "all"}],
            "loads": loads,
            "output": {"probes": [{"name": "T", "node": probe}]},
            "analysis": {"type": "static", "nlgeom": nlgeom, "steps": steps, "max_load_factor": 1.0,
                         "tolerance": 1e-9, "arc_length": arc}}


def run(crdyn, tmp, name, cf):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(cf, f)
    out = os.path.join(tmp, name)
    r = subprocess.run([crdyn, "run", path, "--out", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with open(os.path.join(out, "history.csv")) as f:
        rows = list(csv.DictReader(f))
    return [(float(w["load_factor"]), float(w["T.ux"]), float(w["T.uz"]), float(w["strain"]),
             float(w["external_work"])) for w in rows[1:]], ""


def moment_tip(m):
    """The tip under the moment m at the corner: leg 1 an arc of curvature
    m / EI (a pure moment), leg 2 straight and turned with the corner."""
    th = m * L1 / EI
    R = L1 / th
    return R * math.sin(th) - L2 * math.sin(th) - L1, R * (1 - math.cos(th)) + L2 * math.cos(th) - L2, th


def t_junction(n, length=2.0, h=0.05, P=1e-3):
    """A T junction: three strips of `length` (1 wide, nu = 0) meet along
    the edge x = z = 0, leg A along +x, B up along +z, C down along -z, n x 2
    elements each; B and C clamped at their far ends, a total force P along
    -z on A's free edge.  Linear beam theory: the junction turns by
    P length / (4 EI / length + 4 EI / length), so the tip of A sinks by
    P length^3 / (3 EI) + P length^3 / (8 EI) = (11/24) P length^3 / EI."""
    nodes, quads = [], []

    def add(p):
        nodes.append(p)
        return len(nodes) - 1
    edge = [add([0.0, y, 0.0]) for y in (0.0, 0.5, 1.0)]

    def strip(dx, dz, flip):
        prev = edge
        for k in range(1, n + 1):
            cur = [add([dx * length * k / n, y, dz * length * k / n]) for y in (0.0, 0.5, 1.0)]
            for j in range(2):
                q = [prev[j], cur[j], cur[j + 1], prev[j + 1]]
                quads.append(q[::-1] if flip else q)
            prev = cur
        return prev
    a, b, c = strip(1, 0, False), strip(0, 1, True), strip(0, -1, False)
    EIj = E * WIDTH * h ** 3 / 12.0
    return ({"format": 1, "title": "T junction of three plate strips", "mesh": {"nodes": nodes, "quads": quads},
             "sections": [{"elements": "all", "E": E, "nu": 0.0, "thickness": h}],
             "sets": {"a": {"nodes": a}, "b": {"nodes": b}, "c": {"nodes": c}},
             "supports": [{"set": "b", "fix": "all"}, {"set": "c", "fix": "all"}],
             "loads": [{"set": "a", "force": [0.0, 0.0, -P], "total": True}],
             "output": {"probes": [{"name": "T", "node": a[1]}]},
             "analysis": {"type": "static", "nlgeom": False}},
            -(11.0 / 24.0) * P * length ** 3 / EIj)


def rel_err(u, ref):
    return math.hypot(u[0] - ref[0], u[1] - ref[1]) / math.hypot(ref[0], ref[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", action="store_true", help="the reference figures only")
    ap.add_argument("--expect-fail", action="store_true", help="pass when the comparison fails (a broken build)")
    args = ap.parse_args()
    if args.table:
        for k in range(1, STEPS + 1):
            P = PMAX * k / STEPS
            ux, uz, c = elastica(P)
            print("P %.3f  elastica ux %.6f uz %.6f corner %.2f deg  linear ux %.6f uz %.6f"
                  % (P, ux, uz, math.degrees(c), *linear(P)))
        return 0
    crdyn = os.environ.get("CRDYN", "./build/crdyn")
    n, bad = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        rows, err = run(crdyn, tmp, "frame", case(PMAX, STEPS))
        lin, err2 = run(crdyn, tmp, "small", case(P_LINEAR, 1))
        checks = []
        if rows is None or lin is None:
            checks.append((False, "crdyn ran the frame: " + (err or err2)))
        else:
            for lf, ux, uz, _, _ in rows:
                ref = elastica(lf * PMAX)
                e = rel_err((ux, uz), ref)
                checks.append((e <= TOL, "P = %.3f (corner %.1f deg): tip (%.5f, %.5f) against the elastica's "
                               "(%.5f, %.5f): %.3f %%" % (lf * PMAX, math.degrees(ref[2]), ux, uz, ref[0],
                                                          ref[1], 100 * e)))
            arc, err3 = run(crdyn, tmp, "arc", case(PMAX, STEPS, arc=True))
            worst = max(rel_err((ux, uz), elastica(lf * PMAX)) for lf, ux, uz, _, _ in arc) if arc else float("nan")
            checks.append((arc is not None and len(arc) >= STEPS and worst <= TOL,
                           "arc length (%d steps to load factor %.3f): at most %.3f %% from the elastica%s"
                           % (len(arc or []), arc[-1][0] if arc else 0.0, 100 * worst, err3)))
            mom, err4 = run(crdyn, tmp, "moment", case(0.0, 4, moment=M_FOLD))
            ref = moment_tip(M_FOLD)
            e = rel_err(mom[-1][1:3], ref) if mom else float("nan")
            checks.append((mom is not None and e <= TOL,
                           "a moment at the fold's triad nodes turning the corner by %.1f deg: tip (%.5f, %.5f) "
                           "against the arc's (%.5f, %.5f): %.3f %%%s" % (math.degrees(ref[2]), *(mom[-1][1:3] if mom
                           else (0, 0)), ref[0], ref[1], 100 * e, err4)))
            if mom:
                de = max(abs(w[3] - w[4]) / w[3] for w in mom)
                checks.append((de < 1e-6, "the moment's external work (the turns of the triads) equals the strain "
                               "energy at every step: %.1e relative" % de))
            tcase, tref = t_junction(16)
            tj, err5 = run(crdyn, tmp, "tjunction", tcase)
            e = abs(tj[-1][2] / tref - 1.0) if tj else float("nan")
            checks.append((tj is not None and e <= TOL, "a T junction of three strips (16 x 2 elements a leg, the "
                           "junction's triads): tip %.5e against linear beam theory's %.5e: %.3f %%%s"
                           % (tj[-1][2] if tj else 0.0, tref, 100 * e, err5)))
            ref = linear(P_LINEAR)
            e = rel_err(lin[-1][1:3], ref)
            checks.append((e <= TOL, "P = %g: tip (%.4e, %.4e) against linear frame theory's (%.4e, %.4e): %.3f %%"
                           % (P_LINEAR, lin[-1][1], lin[-1][2], ref[0], ref[1], 100 * e)))
            big = max(abs(math.degrees(elastica(lf * PMAX)[2])) for lf, _, _, _, _ in rows)
            checks.append((big > 30.0, "the corner turns by more than 30 degrees (%.1f)" % big))
    all_ok = all(c for c, _ in checks)
    if args.expect_fail:
        for c, what in checks:
            print("# %s %s" % ("within" if c else "OUTSIDE", what))
        ok = not all_ok
        print("%s 1 - a broken corner (%s) fails the frame check" % ("ok" if ok else "not ok",
                                                                    os.environ.get("CRDYN_TEST_TRIAD_C", "?")))
        print("1..1")
        return 0 if ok else 1
    for c, what in checks:
        n += 1
        bad += not c
        print("%s %d - %s" % ("ok" if c else "not ok", n, what))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
