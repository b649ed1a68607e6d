#!/usr/bin/env python3
"""A T-section cantilever in linear statics: crdyn against OpenSees
(ASDShellQ4) and CalculiX (S4) on the same meshes.

The beam runs along +x from the clamped end x = 0 to x = L.  The flange
lies in the plane z = 0 (y in [-B/2, B/2], 2 NF elements across), the web
in the plane y = 0 (z in [-D, 0], NW elements down); they meet along the
line y = z = 0, where every node is a junction of three patches (the two
flange halves are one patch, flat, and the web another at 90 degrees:
crdyn makes those nodes intersection nodes with a triad).  Thickness T,
E, nu of steel.  Every node of x = 0 is clamped (all DOFs).

Load cases, each a separate linear static run, forces on the end x = L:
  bend     a total force -P z spread evenly over the web's end nodes
           (bending in the web's plane);
  lateral  a total force +P y spread evenly over the flange's end nodes
           (bending about the web's plane; the line of the load passes
           through the junction, the T's shear centre);
  torsion  +P z on the flange's end corner y = +B/2, -P z on y = -B/2
           (a couple P B about x: St-Venant torsion of the open section,
           with the little warping restraint a T has).
Quantities compared: bend, the z displacement of the junction's end node;
lateral, its y displacement; torsion, the end's twist
(uz(+B/2) - uz(-B/2)) / B.

OpenSees: ASDShellQ4 (linear), ElasticMembranePlateSection, 6 DOFs a
node, Linear algorithm, one load step.  CalculiX: S4 shells, which ccx
expands into C3D8I bricks through the thickness and joins at the junction
by a rigid knot; *STATIC without NLGEOM.

    python3 profiling/peers/t_section.py [--mesh NX NF NW ...]   # table, JSON on stdout's last line

crdyn from $CRDYN (default ./build/crdyn); OpenSees from profiling/peers/venv
(peers/install.sh); ccx from PATH.  A peer that is missing is reported as
such, not replaced."""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

L, B, D, T = 2.0, 0.2, 0.2, 0.01
E, NU = 2.1e11, 0.3
P = 1000.0
P_NL, STEPS_NL = 20000.0, 10   # torsion_nl: the end turns by about 40 degrees
CASES = ("bend", "lateral", "torsion", "torsion_nl")
HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(HERE, "venv", "bin", "python")


def mesh(nx, nf, nw):
    """Nodes (list of xyz), quads (0-based) and the named node sets."""
    nodes, index = [], {}

    def node(x, y, z):
        key = (round(x, 12), round(y, 12), round(z, 12))
        if key not in index:
            index[key] = len(nodes)
            nodes.append([x, y, z])
        return index[key]
    xs = [L * i / nx for i in range(nx + 1)]
    ys = [-B / 2 + B * j / (2 * nf) for j in range(2 * nf + 1)]
    zs = [-D * k / nw for k in range(nw + 1)]
    quads = []
    for i in range(nx):  # flange, normal +z: counter-clockwise seen from +z
        for j in range(2 * nf):
            quads.append([node(xs[i], ys[j], 0.0), node(xs[i + 1], ys[j], 0.0),
                          node(xs[i + 1], ys[j + 1], 0.0), node(xs[i], ys[j + 1], 0.0)])
    for i in range(nx):  # web, normal +y: counter-clockwise seen from +y
        for k in range(nw):
            quads.append([node(xs[i], 0.0, zs[k]), node(xs[i], 0.0, zs[k + 1]),
                          node(xs[i + 1], 0.0, zs[k + 1]), node(xs[i + 1], 0.0, zs[k])])
    sets = {
        "clamp": sorted(n for n, p in enumerate(nodes) if abs(p[0]) < 1e-12),
        "web_end": [node(L, 0.0, z) for z in zs],
        "flange_end": [node(L, y, 0.0) for y in ys],
        "tip": [node(L, 0.0, 0.0)],
        "corner_p": [node(L, B / 2, 0.0)],
        "corner_m": [node(L, -B / 2, 0.0)],
    }
    return nodes, quads, sets


def loads(case, sets):
    """[(node set name, total force vector)] of a load case."""
    if case == "bend":
        return [("web_end", [0.0, 0.0, -P])]
    if case == "lateral":
        return [("flange_end", [0.0, P, 0.0])]
    p = P_NL if case == "torsion_nl" else P
    return [("corner_p", [0.0, 0.0, p]), ("corner_m", [0.0, 0.0, -p])]


def quantity(case, u):
    """The compared figure from u[name] = (ux, uy, uz) of tip, corner_p, corner_m."""
    if case == "bend":
        return u["tip"][2]
    if case == "lateral":
        return u["tip"][1]
    if case == "torsion":
        return (u["corner_p"][2] - u["corner_m"][2]) / B
    # the angle the flange's end line has turned through about x
    return math.atan2(u["corner_p"][2] - u["corner_m"][2], B + u["corner_p"][1] - u["corner_m"][1])


def crdyn_case(nx, nf, nw, case, crease=None):
    """crdyn's case; crease sets crease_angle (None: crdyn's default)."""
    nodes, quads, sets = mesh(nx, nf, nw)
    used = ("clamp", "web_end", "flange_end", "tip", "corner_p", "corner_m")
    extra = {} if crease is None else {"crease_angle": crease}
    return {"format": 1, **extra, "title": "T-section cantilever (%s), %dx(%d+%d)" % (case, nx, 2 * nf, nw),
            "mesh": {"nodes": nodes, "quads": quads},
            "sections": [{"elements": "all", "E": E, "nu": NU, "thickness": T}],
            "sets": {k: {"nodes": sets[k]} for k in used},
            "supports": [{"set": "clamp", "fix": "all"}],
            "loads": [{"set": s, "force": f, "total": True} for s, f in loads(case, sets)],
            "output": {"probes": [{"name": k, "node": sets[k][0]} for k in ("tip", "corner_p", "corner_m")]},
            "analysis": ({"type": "static", "nlgeom": True, "steps": STEPS_NL} if case == "torsion_nl"
                         else {"type": "static", "nlgeom": False})}


def run_crdyn(crdyn, tmp, nx, nf, nw, case, crease=None):
    name = "crdyn_%s_%d_%d_%d" % (case, nx, nf, nw)
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(crdyn_case(nx, nf, nw, case, crease), f)
    out = os.path.join(tmp, name)
    r = subprocess.run([crdyn, "run", path, "--out", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "crdyn: " + r.stderr.strip()[-300:]
    with open(os.path.join(out, "history.csv")) as f:
        head = f.readline().strip().split(",")
        last = f.readlines()[-1].strip().split(",")
    row = dict(zip(head, map(float, last)))
    u = {k: (row[k + ".ux"], row[k + ".uy"], row[k + ".uz"]) for k in ("tip", "corner_p", "corner_m")}
    return quantity(case, u), ""


OPS_CHILD = r'''
import json, sys
import openseespy.opensees as ops
a = json.loads(sys.argv[1])
ops.wipe()
ops.model("basic", "-ndm", 3, "-ndf", 6)
for i, p in enumerate(a["nodes"]):
    ops.node(i + 1, *p)
ops.section("ElasticMembranePlateSection", 1, a["E"], a["NU"], a["T"], 0.0)
for e, q in enumerate(a["quads"]):
    ops.element("ASDShellQ4", e + 1, *[n + 1 for n in q], 1, *(["-corotational"] if a["nl"] else []))
for n in a["clamp"]:
    ops.fix(n + 1, 1, 1, 1, 1, 1, 1)
ops.timeSeries("Constant", 1)
ops.pattern("Plain", 1, 1)
for nodes, f in a["loads"]:
    for n in nodes:
        ops.load(n + 1, *[c / len(nodes) for c in f], 0.0, 0.0, 0.0)
ops.system("UmfPack")
ops.numberer("RCM")
ops.constraints("Plain")
if a["nl"]:
    ops.test("NormDispIncr", 1e-10, 200)
    ops.algorithm("Newton")
else:
    ops.algorithm("Linear")
ops.integrator("LoadControl", 1.0 / a["steps"])
ops.analysis("Static")
rc = ops.analyze(a["steps"])
u = {k: [ops.nodeDisp(n + 1, c) for c in (1, 2, 3)] for k, n in a["probes"].items()}
print("RESULT " + json.dumps({"rc": rc, "u": u}))
'''


def run_opensees(nx, nf, nw, case):
    if not os.path.exists(VENV_PY):
        return None, "OpenSees: no venv at profiling/peers/venv (peers/install.sh)"
    nodes, quads, sets = mesh(nx, nf, nw)
    args = {"nodes": nodes, "quads": quads, "clamp": sets["clamp"], "E": E, "NU": NU, "T": T,
            "loads": [(sets[s], f) for s, f in loads(case, sets)],
            "probes": {k: sets[k][0] for k in ("tip", "corner_p", "corner_m")},
            "nl": case == "torsion_nl", "steps": STEPS_NL if case == "torsion_nl" else 1}
    r = subprocess.run([VENV_PY, "-c", OPS_CHILD, json.dumps(args)], capture_output=True, text=True, timeout=900)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[7:])
            if res["rc"] != 0:
                return None, "OpenSees: analyze returned %d" % res["rc"]
            return quantity(case, res["u"]), ""
    return None, "OpenSees: no result: " + (r.stdout + r.stderr).strip()[-300:]


def ccx_deck(nx, nf, nw, case):
    nodes, quads, sets = mesh(nx, nf, nw)
    out = ["*HEADING", "T-section cantilever (%s)" % case, "*NODE, NSET=NALL"]
    out += ["%d, %.12g, %.12g, %.12g" % (i + 1, *p) for i, p in enumerate(nodes)]
    out.append("*ELEMENT, TYPE=S4, ELSET=EALL")
    out += ["%d, %d, %d, %d, %d" % (e + 1, *[n + 1 for n in q]) for e, q in enumerate(quads)]
    for k in ("clamp", "tip", "corner_p", "corner_m"):
        out.append("*NSET, NSET=%s" % k.upper())
        out += ["%d," % (n + 1) for n in sets[k]]
    out += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU),
            "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL", "%g" % T,
            "*BOUNDARY", "CLAMP, 1, 6"]
    if case == "torsion_nl":
        out += ["*STEP, NLGEOM, INC=1000", "*STATIC, DIRECT", "%g, 1." % (1.0 / STEPS_NL), "*CLOAD"]
    else:
        out += ["*STEP", "*STATIC", "*CLOAD"]
    for s, f in loads(case, sets):
        for n in sets[s]:
            out += ["%d, %d, %.12g" % (n + 1, c + 1, f[c] / len(sets[s])) for c in range(3) if f[c] != 0.0]
    for k in ("tip", "corner_p", "corner_m"):
        out += ["*NODE PRINT, NSET=%s" % k.upper(), "U"]
    out.append("*END STEP")
    return "\n".join(out) + "\n"


def run_ccx(tmp, nx, nf, nw, case):
    ccx = shutil.which("ccx")
    if not ccx:
        return None, "CalculiX: ccx not on PATH (peers/install.sh)"
    job = "ccx_%s_%d_%d_%d" % (case, nx, nf, nw)
    with open(os.path.join(tmp, job + ".inp"), "w") as f:
        f.write(ccx_deck(nx, nf, nw, case))
    r = subprocess.run([ccx, job], cwd=tmp, capture_output=True, text=True, timeout=1800,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    dat = os.path.join(tmp, job + ".dat")
    if r.returncode != 0 or not os.path.exists(dat):
        return None, "CalculiX: failed: " + (r.stdout + r.stderr).strip()[-300:]
    nodes, _, sets = mesh(nx, nf, nw)
    ids = {sets[k][0] + 1: k for k in ("tip", "corner_p", "corner_m")}
    u = {}
    with open(dat) as f:
        for line in f:
            m = re.match(r"\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", line)
            if m and int(m.group(1)) in ids:
                u[ids[int(m.group(1))]] = tuple(float(m.group(c)) for c in (2, 3, 4))
    if len(u) < 3:
        return None, "CalculiX: probes not found in %s" % dat
    return quantity(case, u), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mesh", nargs=3, type=int, action="append", metavar=("NX", "NF", "NW"))
    ap.add_argument("--no-ccx", action="store_true")
    ap.add_argument("--crease", type=float, help="crdyn's crease_angle (above 90: the junction taken as smooth)")
    args = ap.parse_args()
    meshes = args.mesh or [(20, 2, 4), (40, 4, 8)]
    crdyn = os.environ.get("CRDYN", "./build/crdyn")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for nx, nf, nw in meshes:
            for case in CASES:
                c, ec = run_crdyn(crdyn, tmp, nx, nf, nw, case, args.crease)
                o, eo = run_opensees(nx, nf, nw, case)
                x, ex = (None, "CalculiX: not run") if args.no_ccx else run_ccx(tmp, nx, nf, nw, case)
                row = {"mesh": [nx, nf, nw], "case": case, "crdyn": c, "opensees": o, "ccx": x,
                       "notes": [s for s in (ec, eo, ex) if s]}
                rows.append(row)
                rel = lambda a, b: "%+.3f %%" % (100 * (a / b - 1)) if a is not None and b else "-"
                print("%-8s %3dx(%d+%d)  crdyn %-12s OpenSees %-12s (%s)  ccx %-12s (%s)  %s" % (
                    case, nx, 2 * nf, nw, "%.5e" % c if c is not None else "-",
                    "%.5e" % o if o is not None else "-", rel(c, o),
                    "%.5e" % x if x is not None else "-", rel(c, x), "; ".join(row["notes"])), flush=True)
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
