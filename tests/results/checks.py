#!/usr/bin/env python3
"""Element results in the VTU frames, read back from the files crdyn writes
(tests/vtu.py), and printed as TAP lines.

1. Cantilever strip under an end moment (cases/sze32_cantilever_moment.json:
   M = 2 pi EI / L on the tip, rolling the strip into a full circle; and the
   same strip at 1e-4 of that load, the small-rotation regime).  In every
   frame with load factor lam > 0 and every element:
     M_xx = lam M_y / b        to 1e-6 relative to M/b,
     M_yy, M_xy                below 1e-6 M/b,
     N_xx, N_yy, N_xy, Q_x, Q_y below 1e-6 M/(b L): the shear force that
                                would carry M over the strip's length, the
                                force-per-length scale of the problem.
   (M_y is the applied moment summed over the tip nodes; the moment vector a
   section of outward normal +x transmits is M_xx e_y per unit width.)
2. The energy densities times the elements' initial areas sum to the strain
   energy of the history row of the same step (1e-8 relative).
3. Dynamics (the strip pulse, implicit, rho_inf = 1): the frames carry the
   nodal velocity and normal rate; for the trapezoidal rule
   (v_n + v_n+1)/2 = (d_n+1 - d_n)/dt holds exactly; static frames carry no
   rates.
4. The frames are well-formed VTK XML (tests/vtu.py); when meshio is
   installed it must read them too (optional, not a dependency).

  checks.py CRDYN
"""
import csv, json, math, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import vtu  # noqa: E402

CRDYN = sys.argv[1]
TMP = tempfile.mkdtemp()
n = 0
RESULTANTS = ("N_xx", "N_yy", "N_xy", "M_xx", "M_yy", "M_xy", "Q_x", "Q_y", "strain_energy_density")


def ok(cond, what):
    global n
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}", flush=True)


def run(c, tag):
    p = os.path.join(TMP, tag + ".json")
    json.dump(c, open(p, "w"))
    out = os.path.join(TMP, tag)
    r = subprocess.run([CRDYN, "run", p, "--out", out, "--quiet"], capture_output=True, text=True)
    if r.returncode:
        print("# " + r.stderr.strip().replace("\n", "\n# "))
    return r.returncode == 0, out


def history(out):
    return list(csv.DictReader(open(os.path.join(out, "history.csv"))))


def frames(out):
    return [(t, vtu.read_vtu(f)) for t, f in vtu.read_pvd(os.path.join(out, "result.pvd"))]


def energy_error(fr, strain):
    """|sum_e u_e A_e - U| / U"""
    sed = fr.cell_data["strain_energy_density"]
    tot = sum(sed[e] * vtu.initial_area(fr, e) for e in range(len(fr.quads)))
    return abs(tot - strain) / max(abs(strain), 1e-300)


def strip(tag, factor):
    c = json.load(open(os.path.join(ROOT, "cases", "sze32_cantilever_moment.json")))
    g = c["mesh"]["generate"]
    L, b, ny = g["lx"], g["ly"], g["ny"]
    c["analysis"]["max_load_factor"] = factor
    c["output"]["vtk_every"] = 1
    good, out = run(c, tag)
    ok(good, f"{tag}: runs")
    if not good:
        return
    My = c["loads"][0]["moment"][1] * (ny + 1)     # in full on each of the ny+1 tip nodes
    Mb = abs(My) / b
    rows = {float(r["load_factor"]): float(r["strain"]) for r in history(out)}
    frs = frames(out)
    ok(len(frs) >= 2 and all(set(RESULTANTS) <= set(f.cell_data) for _, f in frs),
       f"{tag}: {len(frs)} frames, each with the resultants and the energy density")
    eM = eMo = eN = eQ = eU = 0.0
    nchk = 0
    for lam, fr in frs:
        cd = fr.cell_data
        if lam > 0:
            want = lam * My / b
            for e in range(len(fr.quads)):
                eM = max(eM, abs(cd["M_xx"][e] - want) / (lam * Mb))
                eMo = max(eMo, abs(cd["M_yy"][e]) / (lam * Mb), abs(cd["M_xy"][e]) / (lam * Mb))
                eN = max(eN, max(abs(cd[k][e]) for k in ("N_xx", "N_yy", "N_xy")) / (lam * Mb / L))
                eQ = max(eQ, max(abs(cd[k][e]) for k in ("Q_x", "Q_y")) / (lam * Mb / L))
            nchk += 1
        if lam in rows and rows[lam] > 0:
            eU = max(eU, energy_error(fr, rows[lam]))
    print(f"# {tag}: M/b = {Mb:.10g}, {nchk} loaded frames x {len(frs[-1][1].quads)} elements: "
          f"max |M_xx - M/b|/(M/b) = {eM:.2e}, max |M_yy|,|M_xy| / (M/b) = {eMo:.2e}, "
          f"max |N| / (M/bL) = {eN:.2e}, max |Q| / (M/bL) = {eQ:.2e}, energy {eU:.2e}")
    ok(nchk > 0 and eM <= 1e-6, f"{tag}: M_xx = M/b in every element of every frame (max rel err {eM:.2e})")
    ok(nchk > 0 and eMo <= 1e-6, f"{tag}: M_yy = M_xy = 0 (max {eMo:.2e} of M/b)")
    ok(nchk > 0 and eN <= 1e-6, f"{tag}: N = 0 (max {eN:.2e} of M/(b L))")
    ok(nchk > 0 and eQ <= 1e-6, f"{tag}: Q = 0 (max {eQ:.2e} of M/(b L))")
    ok(eU <= 1e-8, f"{tag}: sum of energy density x area = history strain energy (max rel err {eU:.2e})")
    last = frs[-1][1]
    ok(abs(frs[-1][0] - factor) <= 1e-12 * factor, f"{tag}: the last frame is at full load")
    ok("velocity" not in last.point_data and "normal_rate" not in last.point_data,
       f"{tag}: static frames carry no velocity")
    return out


def dynamics():
    c = json.load(open(os.path.join(ROOT, "cases", "cantilever_strip_pulse.json")))
    st = c["analysis"]["stages"][0]
    st["t_end"] = 0.04
    dt = st["dt"]
    c["output"]["vtk_every"] = 1
    good, out = run(c, "strip_pulse")
    ok(good, "strip pulse (dynamics): runs")
    if not good:
        return
    frs = frames(out)
    rows = {round(float(r["time"]) / dt): float(r["strain"]) for r in history(out)}
    ok(all("velocity" in f.point_data and "normal_rate" in f.point_data for _, f in frs),
       f"strip pulse: {len(frs)} frames, each with velocity and normal_rate")
    vmax = max(abs(v[c]) for _, f in frs for v in f.point_data["velocity"] for c in range(3))
    err = 0.0
    for (t0, f0), (t1, f1) in zip(frs, frs[1:]):
        h = t1 - t0
        for i in range(len(f0.points)):
            for c in range(3):
                vm = 0.5 * (f0.point_data["velocity"][i][c] + f1.point_data["velocity"][i][c])
                dd = (f1.point_data["displacement"][i][c] - f0.point_data["displacement"][i][c]) / h
                err = max(err, abs(vm - dd))
    print(f"# strip pulse: max |(v_n + v_n+1)/2 - (d_n+1 - d_n)/dt| = {err:.2e}, max |v| = {vmax:.3e}")
    ok(vmax > 0 and err <= 1e-6 * vmax, f"strip pulse: velocities are the scheme's (trapezoidal identity, "
       f"err {err:.2e} of max |v| {vmax:.2e})")
    eU = 0.0
    for t, f in frs:
        k = round(t / dt)
        if k in rows and rows[k] > 0:
            eU = max(eU, energy_error(f, rows[k]))
    ok(eU <= 1e-8, f"strip pulse: energy density x area sums to the history strain energy (max rel err {eU:.2e})")


def meshio_check(out):
    try:
        import meshio  # optional: not a Debian package, not a dependency
    except ImportError:
        ok(True, "# SKIP meshio not installed")
        return
    f = vtu.read_pvd(os.path.join(out, "result.pvd"))[-1][1]
    m = meshio.read(f)
    good = (m.points.shape[0] > 0 and m.cells[0].type == "quad" and "M_xx" in m.cell_data
            and "displacement" in m.point_data)
    ok(good, f"meshio reads {os.path.basename(f)}: {m.points.shape[0]} points, {len(m.cells[0].data)} quads, "
       f"cell fields {sorted(m.cell_data)}")


out = strip("sze32_rollup", 1.0)
strip("sze32_small", 1e-4)
dynamics()
if out:
    meshio_check(out)
print(f"1..{n}")
