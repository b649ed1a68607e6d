"""OpenSees (openseespy) side of the peer comparison: the cantilever plate
of profiling/bench.py with ASDShellQ4 -corotational shells and an
ElasticMembranePlateSection (E, nu, h, rho of ccx_plate), clamped along
x = 0, equal nodal z forces on x = 1 ramped by the same amplitude.
Implicit: GeneralizedAlpha with the rho_inf of crdyn's stage (alpha_m =
(2 - rho)/(1 + rho), alpha_f = 1/(1 + rho), OpenSees' convention), Newton,
NormDispIncr 1e-10 m (an unbalance test stalls at a round-off floor),
UmfPack.  Its Newton converges only linearly on this model (profiling/
README.md "OpenSees"), so bench.py times a bounded number of iterations.
Explicit: ExplicitDifference, Diagonal system, with a nodal rotary mass
rho h^3/12 per tributary area (the section has none).

openseespy is installed by peers/install.sh into profiling/peers/venv (an
ignored folder; crdyn does not depend on it).  Each run is a child process
of that venv's python with a time limit, so a crash or a hang of the peer
does not stop `make bench`; the result says why when it did not run."""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(HERE, "venv", "bin", "python")
sys.path.insert(0, HERE)
import ccx_plate  # noqa: E402

CHILD = r'''
import json, sys, time
import openseespy.opensees as ops
a = json.loads(sys.argv[1])
n, mode, dt, t_end, F, amp, rho_inf, tol = a["n"], a["mode"], a["dt"], a["t_end"], a["F"], a["amp"], a["rho_inf"], a["tol"]
E, NU, RHO, H = a["E"], a["NU"], a["RHO"], a["H"]
t0 = time.monotonic()
ops.wipe()
ops.model("basic", "-ndm", 3, "-ndf", 6)
nn = n + 1
for j in range(nn):
    for i in range(nn):
        ops.node(i + nn * j + 1, i / n, j / n, 0.0)
for j in range(nn):
    ops.fix(nn * j + 1, 1, 1, 1, 1, 1, 1)
ops.section("ElasticMembranePlateSection", 1, E, NU, H, RHO)
for j in range(n):
    for i in range(n):
        n0 = i + nn * j + 1
        ops.element("ASDShellQ4", i + n * j + 1, n0, n0 + 1, n0 + 1 + nn, n0 + nn, 1, "-corotational")
ops.timeSeries("Path", 1, "-time", *[p[0] for p in amp], "-values", *[p[1] for p in amp])
ops.pattern("Plain", 1, 1)
for j in range(nn):
    ops.load(nn * j + n + 1, 0.0, 0.0, F / nn, 0.0, 0.0, 0.0)
tip = a["tip"] + 1
ops.constraints("Plain")
ops.numberer("RCM")
if mode == "implicit":
    ops.system(a.get("system", "UmfPack"))
    ops.test("NormDispIncr", a["disp_tol"], a["max_iter"], a.get("print", 0))
    ops.algorithm("Newton")
    ops.integrator("GeneralizedAlpha", (2.0 - rho_inf) / (1.0 + rho_inf), 1.0 / (1.0 + rho_inf))
else:
    # the section has no rotary inertia: a diagonal rotational mass rho h^3/12
    # per tributary area (what crdyn's lumped director mass is) on every node,
    # drilling included, or the diagonal solver meets zero pivots
    ir = RHO * H ** 3 / 12.0 / (n * n)
    for j in range(nn):
        for i in range(1, nn):
            w = (0.5 if i == n else 1.0) * (0.5 if j in (0, n) else 1.0)
            ops.mass(i + nn * j + 1, 0.0, 0.0, 0.0, w * ir, w * ir, w * ir)
    ops.system("Diagonal")
    ops.algorithm("Linear")
    ops.integrator("ExplicitDifference")
ops.analysis("Transient")
setup = time.monotonic() - t0
hist, iters, steps, fail = [(0.0, 0.0)], 0, 0, None
nsteps = int(round(t_end / dt))
tl = time.monotonic()
for s in range(nsteps):
    rc = ops.analyze(1, dt)
    if mode == "implicit":
        iters += ops.testIter()
    if rc != 0:
        fail = "step %d did not converge in %d Newton iterations (NormDispIncr %g)" % (s + 1, a["max_iter"], a["disp_tol"])
        break
    steps += 1
    hist.append((ops.getTime(), ops.nodeDisp(tip, 3)))
loop = time.monotonic() - tl
print("RESULT " + json.dumps({"setup_s": setup, "loop_s": loop, "increments": steps, "newton_iterations": iters,
                              "tip": hist, "error": fail, "equations": 6 * nn * nn - 6 * nn}))
'''


def available():
    """'' when openseespy runs from the venv, else why not."""
    if not os.path.exists(VENV_PY):
        return "no venv at profiling/peers/venv (peers/install.sh makes it)"
    r = subprocess.run([VENV_PY, "-c", "import openseespy.opensees as o; o.wipe()"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    return "" if r.returncode == 0 else "openseespy does not load: " + r.stdout.strip()[-300:]


def version():
    r = subprocess.run([VENV_PY, "-c", "import openseespy.opensees as o; print(o.version())"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=120)
    return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else "?"


def run(workdir, n, mode, dt, t_end, f_total, amp, rho_inf=0.9, tol=1e-8, threads=1, timeout=900, system="UmfPack", disp_tol=1e-10, max_iter=40):
    os.makedirs(workdir, exist_ok=True)
    why = available()
    if why:
        return {"error": why}
    args = {"n": n, "mode": mode, "dt": dt, "t_end": t_end, "F": f_total, "amp": [list(p) for p in amp],
            "rho_inf": rho_inf, "tol": tol, "E": ccx_plate.E, "NU": ccx_plate.NU, "RHO": ccx_plate.RHO,
            "H": ccx_plate.H, "tip": ccx_plate.tip_node(n), "system": system,
            "disp_tol": disp_tol, "max_iter": max_iter, "print": int(os.environ.get("OPS_PRINT", "0"))}
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_THREAD_LIMIT=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    t0 = time.monotonic()
    try:
        r = subprocess.run([VENV_PY, "-c", CHILD, json.dumps(args)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env, cwd=workdir)
        out, rc = r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
    with open(os.path.join(workdir, "opensees_%s.log" % mode), "w") as f:
        f.write(out)
    res = {"wall_s": time.monotonic() - t0, "returncode": rc}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            res.update(json.loads(line[7:]))
    if "loop_s" not in res:
        res["error"] = "no result (status %s): %s" % (rc, out.strip()[-300:])
    return res


if __name__ == "__main__":
    m = sys.argv[1] if len(sys.argv) > 1 else "implicit"
    nn = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    dtt = 1e-3 if m == "implicit" else 1e-7
    amp = [(0, 0), (0.01, 1), (1, 1)] if m == "implicit" else [(0, 0), (1e-4, 1), (1, 1)]
    r = run("/tmp/ops_plate_test", nn, m, dtt, steps * dtt, 2020.0, amp)
    r["tip"] = r.get("tip", [])[-3:]
    print(json.dumps(r, indent=1))
