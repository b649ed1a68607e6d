#!/bin/sh
# The auto integrator against all-explicit and all-implicit, wall time in
# one run (docs/dynamics.md, "Automatic switching"), three problems of the
# cantilever strip: A. thin (0.02), a 5 ms tip pulse, then ringing; B. thick
# (0.1), a 1 ms pulse (explicit the faster; against explicit alone); C. thin,
# a smooth load over 0.5 s then free (implicit the faster; against implicit
# alone); D. thick, 16 elements, a 0.2 ms pulse of forces in the shape of
# the first mode, ringing to t = 0.3 (explicit the faster in the pulse,
# implicit in the ringing; against explicit, adaptive implicit and
# fixed-step implicit, each at two steps or tolerances).  Implicit and auto at rho_inf 0.8 and the error
# tolerance given; auto with measured costs and with newton_cost 15.  Runs
# interleaved, REPS rounds, the minimum of each; the tip history of each
# against a fixed-step implicit reference.
# usage: profiling/hybrid.sh [CRDYN] [REPS] [PROBLEMS]   (PROBLEMS: e.g. AD; all: ABCD)
CRDYN=${1:-build/crdyn}
REPS=${2:-3}
ONLY=${3:-ABCD}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-hybrid.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
python3 - "$CRDYN" "$REPS" "$T" "$ONLY" <<'PY'
import bisect, csv, json, math, os, subprocess, sys
crdyn, reps, tmp, only = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


def strip(thickness, force, amp, t_end):
    c = json.load(open("cases/cantilever_strip_pulse.json"))
    c["sections"][0]["thickness"] = thickness
    c["loads"][0]["force"] = [0, 0, force]
    c["loads"][0]["amplitude"] = amp
    c["output"] = {"history_dt": t_end / 500, "probes": [{"name": "tip", "node": 8}]}
    return c


def mode_pulse(nx, force, amp, t_end):
    """The thick strip in nx elements, tip probe, loaded by nodal forces in
    the shape of the cantilever's first mode (weighed by the nodes' lumped
    share of the mass): a pulse that sets the first mode ringing and the
    higher ones little."""
    c = strip(0.1, 0, amp, t_end)
    c["mesh"]["generate"]["nx"] = nx
    c["output"]["probes"] = [{"name": "tip", "node": nx}]
    b = 1.875104
    s = (math.cosh(b) + math.cos(b)) / (math.sinh(b) + math.sin(b))
    phi = lambda x: math.cosh(b * x) - math.cos(b * x) - s * (math.sinh(b * x) - math.sin(b * x))
    c["sets"], c["loads"] = {}, []
    for i in range(1, nx + 1):
        c["sets"]["c%d" % i] = {"nodes": [i, i + nx + 1]}
        f = force * (0.5 if i == nx else 1.0) * phi(i / nx) / phi(1.0)
        c["loads"].append({"set": "c%d" % i, "force": [0, 0, f], "total": True, "amplitude": amp})
    return c


def run(c, tag, st):
    c["analysis"]["stages"] = st if isinstance(st, list) else [st]
    p = os.path.join(tmp, "c.json")
    json.dump(c, open(p, "w"))
    out = os.path.join(tmp, tag)
    pr = subprocess.run([crdyn, "run", p, "--out", out, "--quiet"], capture_output=True, text=True)
    s = json.load(open(os.path.join(out, "summary.json")))
    if pr.returncode:  # reported in the table, not hidden
        s["failed"] = pr.stderr.strip().splitlines()[-1][:300]
        return s, None
    rows = list(csv.DictReader(open(os.path.join(out, "history.csv"))))
    return s, [(float(r["time"]), float(r["tip.uz"])) for r in rows]


def err(ref, h):
    tr, zr = [t for t, _ in ref], [z for _, z in ref]
    amp = max(abs(z) for z in zr)
    def at(t):
        j = max(0, min(bisect.bisect_right(tr, t) - 1, len(tr) - 2))
        return zr[j] + (t - tr[j]) / (tr[j + 1] - tr[j]) * (zr[j + 1] - zr[j])
    return max(abs(z - at(t)) for t, z in h) / amp


def table(title, c, runs, ref_stage):
    _, ref = run(c, "ref", ref_stage)
    best, failed = {}, {}
    for k in range(reps):
        for tag, st in runs.items():
            s, h = run(c, tag, st)
            if h is None:
                failed[tag] = s["failed"]
                continue
            w = s["time_s"]["wall"]
            if tag not in best or w < best[tag][0]:
                best[tag] = (w, s, err(ref, h))
    # each integrator at its own best step: the fastest direct run whose tip is within 1 % (any, if none is)
    direct = [(w, e) for k, (w, _, e) in best.items() if k.startswith(("explicit", "implicit"))]
    fast = min([w for w, e in direct if e <= 0.01] or [w for w, _ in direct])
    print("\n%s\n" % title)
    print("| run | wall s (min of %d) | / fastest direct run within 1 %% | explicit steps | implicit steps | switches | tip error |" % reps)
    print("|---|---|---|---|---|---|---|")
    for tag, (w, s, e) in best.items():
        d = s["dynamics"]
        print("| %s | %.3f | %.2f | %d | %d | %d | %.2f %% |" % (tag, w, w / fast, d["explicit_steps"],
              d["implicit_steps"], d.get("integrator_switches", 0), 100 * e))
    for tag, why in failed.items():
        print("| %s | failed: %s | | | | | |" % (tag, why))


def three(imp, tol):
    ad = dict(dt="auto", error_tolerance=tol, dt_max=0.01, **imp)
    return {"explicit": dict(integrator="explicit", t_end=imp["t_end"], dt="auto"),
            "implicit": dict(integrator="implicit", **ad),
            "auto (measured)": dict(integrator="auto", **ad),
            "auto (newton_cost 15)": dict(integrator="auto", newton_cost=15, **ad)}


imp = dict(t_end=0.5, rho_inf=0.8, tolerance=1e-10)
if "A" in only:
  table("A. Thin strip (thickness 0.02), 5 ms tip pulse, ringing to t = 0.5; tolerance 1e-3; reference: "
      "implicit, dt = 1e-5", strip(0.02, 8e-6, [[0, 0], [0.0025, 1], [0.005, 0]], 0.5), three(imp, 1e-3),
      dict(integrator="implicit", dt=1e-5, **imp))
imp = dict(t_end=0.05, rho_inf=0.8, tolerance=1e-10)
runs = three(imp, 1e-4)
del runs["implicit"]
if "B" in only:
  table("B. Thick strip (thickness 0.1), 1 ms tip pulse, to t = 0.05; tolerance 1e-4 (explicit the faster); "
      "reference: explicit at half the stable step", strip(0.1, 2e-2, [[0, 0], [0.0005, 1], [0.001, 0]], 0.05), runs,
      dict(integrator="explicit", t_end=0.05, dt="auto", safety=0.45))
imp = dict(t_end=1.0, rho_inf=0.8, tolerance=1e-10)
runs = three(imp, 1e-3)
del runs["explicit"]
if "C" in only:
  table("C. Thin strip, a smooth load over 0.5 s, then free to t = 1 (implicit the faster); tolerance 1e-3; "
      "reference: implicit, dt = 1e-4", strip(0.02, 8e-6, [[0, 0], [0.25, 1], [0.5, 0]], 1.0), runs,
      dict(integrator="implicit", dt=1e-4, **imp))
imp = dict(t_end=0.3, rho_inf=0.8, tolerance=1e-10)
ad = dict(dt="auto", dt_max=0.0032, **imp)  # dt_max: the first adaptive step (dt_max / 64) within the pulse
runs = {"explicit": dict(integrator="explicit", t_end=0.3, dt="auto")}
for tol in (1e-3, 3e-4):
    runs["implicit, tolerance %g" % tol] = dict(integrator="implicit", error_tolerance=tol, **ad)
for dt in (1e-4, 5e-5):
    runs["implicit, dt %g" % dt] = dict(integrator="implicit", dt=dt, **imp)
for tol in (3e-4, 1e-4):
    runs["auto (measured), tolerance %g" % tol] = dict(integrator="auto", error_tolerance=tol, **ad)
    runs["auto (newton_cost 15), tolerance %g" % tol] = dict(integrator="auto", newton_cost=15, error_tolerance=tol, **ad)
pulse = dict(imp, t_end=2e-4)
if "D" in only:
  table("D. Thick strip (thickness 0.1), 16 elements, a 0.2 ms pulse of forces in the shape of the first mode, "
        "ringing to t = 0.3; reference: implicit, dt = 1e-6 over the pulse, then 1e-5",
        mode_pulse(16, 5e-3, [[0, 0], [1e-4, 1], [2e-4, 0]], 0.3), runs,
        [dict(integrator="implicit", dt=1e-6, **pulse), dict(integrator="implicit", dt=1e-5, **imp)])
PY
