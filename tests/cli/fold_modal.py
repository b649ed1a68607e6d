#!/usr/bin/env python3
"""Modal analysis of shells with intersection nodes (src/host/analysis/modal.c;
docs/element.md, "Intersection nodes in modal analyses").

1. The open box of fold_dynamics.py (a cube of side 1 without its lid,
   h = 0.02, E = 1e5, nu = 0.3, rho = 1), free, N x N elements a face,
   N = 4, 8, 16, 32 (the intersection nodes: the box's edges): exactly six
   eigenvalues below 1e-9 of the smallest diag(K)/diag(M) (the rigid-body
   modes, frequency 0), each below 1e-8 of the first elastic one (the
   solver's round-off against the elastic spectrum); and the first six
   elastic frequencies converge under refinement: for each, over the
   three finest meshes, |f32 - f16| <= 0.5 |f16 - f8| (second order gives
   0.25) and |f32 - f16| / f32 <= 2 %.  (The first version of this check
   stopped at N = 16, where modes 9 to 12 still moved by 2.4 and 3.4 % from
   N = 8: the tolerances were kept and the mesh refined.)
2. The folded right-angle strip of fold_frame.py (leg 1 along +x, 12 long,
   clamped at x = 0; leg 2 6 long up along +z from the fold; both 1 wide,
   h = 0.1, E = 1.2e6, nu = 0, rho = 1), 24 + 12 elements along, 2 across:
   the first six frequencies against CalculiX's *FREQUENCY step with S4
   elements on the same mesh (S4 and its fold handled by ccx's own
   expansion to solid elements with knots: an independent model), each
   within 2 % (chosen before the runs).  Skipped, with a note, where ccx
   is not on PATH.

    python3 tests/cli/fold_modal.py [--expect-fail] [--table]

--expect-fail: a broken build (CRDYN_TEST_TRIAD_MASS=none: the fold
elements' mass left out): the strip's comparison must fail.  $CRDYN names the binary (default ./build/crdyn).  Standard library
only; TAP."""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold_dynamics as fd  # noqa: E402  (the box)
import fold_frame as ff  # noqa: E402  (the strip's mesh)

NMODES, NELASTIC, MESHES = 12, 6, (4, 8, 16, 32)
TOL_RIGID, TOL_RATIO, TOL_CONV, TOL_PEER = 1e-8, 0.5, 0.02, 0.02
RHO = 1.0


def run_modal(crdyn, tmp, name, cf):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(cf, f)
    out = os.path.join(tmp, name)
    r = subprocess.run([crdyn, "run", path, "--out", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    with open(os.path.join(out, "modes.csv")) as f:
        return [(float(r["eigenvalue"]), float(r["frequency"])) for r in csv.DictReader(f)], ""


def box_modal(n):
    fd.N = n
    c = fd.box()
    c["loads"] = []
    c["analysis"] = {"type": "modal", "modes": NMODES}
    return c


def strip_modal():
    c = ff.case(0.0, 1)
    c["sections"][0]["rho"] = RHO
    c["loads"] = []
    c["analysis"] = {"type": "modal", "modes": NELASTIC}
    return c


def ccx_deck():
    nodes, quads, root, _, _, _ = ff.mesh(ff.N1, ff.N2, ff.NW)
    out = ["*HEADING", "folded right-angle strip, clamped leg 1: frequencies", "*NODE, NSET=NALL"]
    out += ["%d, %.12g, %.12g, %.12g" % (i + 1, *p) for i, p in enumerate(nodes)]
    out.append("*ELEMENT, TYPE=S4, ELSET=EALL")
    out += ["%d, %d, %d, %d, %d" % (e + 1, *[n + 1 for n in q]) for e, q in enumerate(quads)]
    out.append("*NSET, NSET=ROOT")
    out += ["%d," % (n + 1) for n in root]
    out += ["*MATERIAL, NAME=M", "*ELASTIC", "%g, 0." % ff.E, "*DENSITY", "%g" % RHO,
            "*SHELL SECTION, ELSET=EALL, MATERIAL=M", "%g" % ff.H, "*BOUNDARY", "ROOT, 1, 6",
            "*STEP", "*FREQUENCY", "%d" % NELASTIC, "*END STEP"]
    return "\n".join(out) + "\n"


def run_ccx(tmp):
    ccx = shutil.which("ccx")
    if not ccx:
        return None, "ccx not on PATH"
    with open(os.path.join(tmp, "strip.inp"), "w") as f:
        f.write(ccx_deck())
    r = subprocess.run([ccx, "strip"], cwd=tmp, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    dat = os.path.join(tmp, "strip.dat")
    if r.returncode != 0 or not os.path.exists(dat):
        return None, "ccx failed: " + (r.stdout + r.stderr).strip()[-300:]
    freq, on = [], False
    with open(dat) as f:
        for line in f:
            if "E I G E N V A L U E   O U T P U T" in line:
                on = True
            m = re.match(r"\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", line)
            if on and m and len(freq) < NELASTIC:
                freq.append(float(m.group(4)))  # cycles / time
    return (freq, "") if len(freq) == NELASTIC else (None, "ccx: %d frequencies in %s" % (len(freq), dat))


def check_box(crdyn, tmp, lines):
    res = {}
    for n in MESHES:
        res[n], err = run_modal(crdyn, tmp, "box%d" % n, box_modal(n))
        if res[n] is None:
            return False, False, ["box N = %d failed: %s" % (n, err)]
    ok_rigid, ok_conv = True, True
    for n in MESHES:
        lam = [x[0] for x in res[n]]
        nz = sum(1 for x in res[n] if x[1] == 0.0)
        worst = max(abs(v) for v in lam[:6]) / lam[6]
        ok_rigid = ok_rigid and nz == 6 and worst <= TOL_RIGID
        lines.append("box N = %2d: %d zero frequencies, max |lambda_rigid| / lambda_7 = %.2g; elastic f = %s"
                     % (n, nz, worst, " ".join("%.6g" % x[1] for x in res[n][6:])))
    for k in range(6, 6 + NELASTIC):
        f = [res[n][k][1] for n in MESHES]
        a, b, c = f[-3:]
        ratio = abs(c - b) / abs(b - a) if b != a else float("inf")
        ok_conv = ok_conv and ratio <= TOL_RATIO and abs(c - b) / c <= TOL_CONV
        lines.append("mode %2d: f = %s; |f32 - f16| / |f16 - f8| = %.3f, |f32 - f16| / f32 = %.2g"
                     % (k + 1, ", ".join("%.6g" % x for x in f), ratio, abs(c - b) / c))
    return ok_rigid, ok_conv, lines


def check_strip(crdyn, tmp, lines):
    mine, err = run_modal(crdyn, tmp, "strip", strip_modal())
    if mine is None:
        return False, ["strip failed: " + err]
    peer, err = run_ccx(tmp)
    if peer is None:
        return None, ["strip: " + err + " (comparison skipped)"]
    ok = True
    for k in range(NELASTIC):
        d = abs(mine[k][1] - peer[k]) / peer[k]
        ok = ok and d <= TOL_PEER
        lines.append("strip mode %d: crdyn %.6g, CalculiX S4 %.6g: %.3f %%" % (k + 1, mine[k][1], peer[k], 100 * d))
    return ok, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-fail", action="store_true")
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    crdyn = os.environ.get("CRDYN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "crdyn"))
    with tempfile.TemporaryDirectory(prefix="crdyn-foldmodal.") as tmp:
        lines = []
        ok_s, lines = check_strip(crdyn, tmp, lines)
        if a.expect_fail:
            bad = ok_s is False
            print("%sok 1 - the folded strip's frequencies off CalculiX's by more than %g %%"
                  % ("" if bad else "not ", 100 * TOL_PEER))
            for s in lines:
                print("# " + s)
            print("1..1")
            return 0 if bad else 1
        ok_r, ok_c, lines = check_box(crdyn, tmp, lines)
        for s in lines:
            print("# " + s)
        if a.table:
            return 0
        res = [(ok_r, "open box, free, N = 4, 8, 16, 32: exactly six zero frequencies, each eigenvalue below "
                "%g of the first elastic one" % TOL_RIGID),
               (ok_c, "open box: the first %d elastic frequencies converge (|f32 - f16| <= %g |f16 - f8|, "
                "<= %g %% of f32)" % (NELASTIC, TOL_RATIO, 100 * TOL_CONV)),
               (ok_s is not False, "folded strip, clamped: the first %d frequencies within %g %% of CalculiX S4%s"
                % (NELASTIC, 100 * TOL_PEER, " (skipped: no ccx)" if ok_s is None else ""))]
        for k, (ok, what) in enumerate(res):
            print("%sok %d - %s" % ("" if ok else "not ", k + 1, what))
        print("1..%d" % len(res))
        return 0 if all(ok is not False for ok, _ in res) else 1


if __name__ == "__main__":
    sys.exit(main())
