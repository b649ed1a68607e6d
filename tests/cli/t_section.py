#!/usr/bin/env python3
"""A T-section cantilever in statics (a flange and a web meeting
along a junction where three patches share the nodes: intersection nodes
with triads) against OpenSees' ASDShellQ4 on the same mesh, within 2 %:
bending in the web's plane, lateral bending and torsion, linear, and the
torsion at 20 times the load with large rotations (the end turned by 34
degrees; OpenSees' -corotational ASDShellQ4 under the same dead loads).

The model, its loads and the peer runs are those of
profiling/peers/t_section.py (read its head): L = 2, flange 0.2 wide,
web 0.2 deep, 0.01 thick, steel, clamped at x = 0; 20 elements along,
4 across the flange, 4 down the web for the linear cases, twice that in
each direction for the large-rotation one (on the coarser mesh crdyn and
OpenSees differ by 1.97 % there and CalculiX lies on the other side of
crdyn, 1.7 % away: a closeness at the limit that says little, so the
check takes the finer mesh, where the three agree within 0.6 %).  OpenSees is not installed where the
tests run, so its figures on this mesh are kept below, from
`python3 profiling/peers/t_section.py --mesh 20 2 4 --mesh 40 4 8` with openseespy
3.7.1 (its ASDShellQ4 is a Reissner-Mindlin shell with drilling
rotations; CalculiX S4 on the same mesh is within 0.25 % of it in
bending and 2.4 % in torsion, where its brick expansion and rigid knot at
the junction stiffen the coarse mesh; docs/validation.md).

The torsion case is the one that sees the junction: with the junction
taken as smooth (crease_angle 100, its nodes one averaged normal: the
--expect-fail run of t_section.sh), or with the web's corners turned by
0.2 degrees about the junction line (CRDYN_TEST_TRIAD_C=tilt), the twist
is 4 to 5 % off and the check fails.

    python3 tests/cli/t_section.py [--crease 100] [--expect-fail]

$CRDYN names the binary (default ./build/crdyn).  Standard library only."""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "profiling", "peers"))
import t_section as ts  # noqa: E402

# (case, mesh, OpenSees' figure on that mesh)
OPENSEES = [("bend", (20, 2, 4), -7.722386391151133e-04), ("lateral", (20, 2, 4), 1.9050450906986465e-03),
            ("torsion", (20, 2, 4), 3.7615988662337445e-02), ("torsion_nl", (40, 4, 8), 0.5988134400483431)]
TOL = 0.02  # the 2 %, set before the runs
VTU_TOL = 1e-8  # the VTU's ten digits


def vtu_fields(path):
    """{name: list of tuples} of a crdyn VTU (ascii DataArrays)."""
    text = open(path).read()
    out = {}
    for m in re.finditer(r'<DataArray type="\w+" Name="(\w+)"(?: NumberOfComponents="(\d+)")? format="ascii">'
                         r'(.*?)</DataArray>', text, re.S):
        v, nc = [float(w) for w in m.group(3).split()], int(m.group(2) or 1)
        out[m.group(1)] = [tuple(v[i:i + nc]) for i in range(0, len(v), nc)]
    return out


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def vtu_check(crdyn, tmp, crease):
    """The frames of the large torsion on a 4x(2+2) mesh: at each intersection
    node the triad is orthonormal with e_z the "normal" field; in the first
    frame each corner's normal is its element's own (flat) normal; in the
    last each corner normal's components in its node's triad are those of
    the first (a patch's normal turns with the triad: c = R_0^T p0)."""
    cf = ts.crdyn_case(4, 1, 2, "torsion_nl", crease)
    cf["output"]["vtk_every"] = 1
    path, out = os.path.join(tmp, "vtu.json"), os.path.join(tmp, "vtu")
    with open(path, "w") as f:
        json.dump(cf, f)
    r = subprocess.run([crdyn, "run", path, "--out", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        return False, "the VTU run failed: " + r.stderr.strip()[-200:]
    frames = sorted(os.listdir(os.path.join(out, "frames")))
    first, last = (vtu_fields(os.path.join(out, "frames", f)) for f in (frames[0], frames[-1]))
    if "corner_normals" not in first:
        return False, "no triad fields in the VTU"
    nodes, quads = cf["mesh"]["nodes"], cf["mesh"]["quads"]
    tri = [i for i, w in enumerate(first["intersection"]) if w[0] == 1.0]
    worst = 0.0
    for fr in (first, last):
        for i in tri:
            ex, ey, ez = fr["triad_x"][i], fr["triad_y"][i], fr["normal"][i]
            worst = max(worst, abs(dot(ex, ex) - 1), abs(dot(ey, ey) - 1), abs(dot(ex, ey)),
                        max(abs(a - b) for a, b in zip(ez, (ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2],
                                                          ex[0] * ey[1] - ex[1] * ey[0]))))
    for e, q in enumerate(quads):
        a, b, c, d = (nodes[n] for n in q)
        n = [(c[k] - a[k]) for k in range(3)], [(d[k] - b[k]) for k in range(3)]
        g = (n[0][1] * n[1][2] - n[0][2] * n[1][1], n[0][2] * n[1][0] - n[0][0] * n[1][2],
             n[0][0] * n[1][1] - n[0][1] * n[1][0])
        g = [w / math.sqrt(dot(g, g)) for w in g]
        for k, node in enumerate(q):
            p0, p1 = first["corner_normals"][e][3 * k:3 * k + 3], last["corner_normals"][e][3 * k:3 * k + 3]
            worst = max(worst, max(abs(x - y) for x, y in zip(p0, g)))
            if node in tri:
                frame0 = [first[f][node] for f in ("triad_x", "triad_y", "normal")]
                frame1 = [last[f][node] for f in ("triad_x", "triad_y", "normal")]
                worst = max(worst, max(abs(dot(u, p0) - dot(v, p1)) for u, v in zip(frame0, frame1)))
    turn = math.degrees(math.acos(max(-1.0, min(1.0, dot(first["normal"][tri[-1]], last["normal"][tri[-1]])))))
    return worst <= VTU_TOL, ("the VTU's triads and corner normals at %d intersection nodes (the end's turned by "
                              "%.1f deg): largest departure %.1e" % (len(tri), turn, worst))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crease", type=float)
    ap.add_argument("--expect-fail", action="store_true", help="pass when some comparison fails")
    args = ap.parse_args()
    crdyn = os.environ.get("CRDYN", "./build/crdyn")
    checks = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, mesh, ref in OPENSEES:
            v, err = ts.run_crdyn(crdyn, tmp, *mesh, case, args.crease)
            e = abs(v / ref - 1.0) if v is not None else float("nan")
            checks.append((v is not None and e <= TOL, "T-section %s %dx(%d+%d): crdyn %.6e against OpenSees %.6e: %.3f %%%s"
                           % (case, mesh[0], 2 * mesh[1], mesh[2], v if v is not None else 0.0, ref, 100 * e, (" " + err) if err else "")))
        checks.append(vtu_check(crdyn, tmp, args.crease))
    if args.expect_fail:
        for ok, what in checks:
            print("# %s %s" % ("within" if ok else "OUTSIDE", what))
        failed = not all(ok for ok, _ in checks)
        print("%s 1 - a broken junction (%s) is caught by the T-section's comparison"
              % ("ok" if failed else "not ok", "crease_angle %g" % args.crease if args.crease
                 else "CRDYN_TEST_TRIAD_C=" + os.environ.get("CRDYN_TEST_TRIAD_C", "?")))
        print("1..1")
        return 0 if failed else 1
    for i, (ok, what) in enumerate(checks, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    print("1..%d" % len(checks))
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
