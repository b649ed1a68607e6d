#!/bin/sh
# The auto integrator against all-explicit and all-implicit, wall time in
# one run (docs/dynamics.md, "Automatic switching"): the thin cantilever
# strip (thickness 0.02) hit by a 5 ms tip pulse, then ringing to t = 0.5;
# all-implicit and auto at error_tolerance 1e-3, rho_inf 0.8; auto with
# measured costs and with newton_cost 15.  Runs interleaved, REPS rounds,
# the minimum of each; the tip history of each against a fixed-step
# implicit reference (dt = 1e-5).
# usage: profiling/hybrid.sh [CRDYN] [REPS]
CRDYN=${1:-build/crdyn}
REPS=${2:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-hybrid.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
python3 - "$CRDYN" "$REPS" "$T" <<'PY'
import bisect, csv, json, os, subprocess, sys
crdyn, reps, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = json.load(open("cases/cantilever_strip_pulse.json"))
c["sections"][0]["thickness"] = 0.02
c["loads"][0]["force"] = [0, 0, 8e-6]
c["loads"][0]["amplitude"] = [[0, 0], [0.0025, 1], [0.005, 0]]
c["output"] = {"history_dt": 1e-3, "probes": [{"name": "tip", "node": 8}]}
imp = dict(t_end=0.5, rho_inf=0.8, tolerance=1e-10)
runs = {"explicit": dict(integrator="explicit", t_end=0.5, dt="auto"),
        "implicit": dict(integrator="implicit", dt="auto", error_tolerance=1e-3, dt_max=0.01, **imp),
        "auto (measured)": dict(integrator="auto", dt="auto", error_tolerance=1e-3, dt_max=0.01, **imp),
        "auto (newton_cost 15)": dict(integrator="auto", dt="auto", error_tolerance=1e-3, dt_max=0.01,
                                      newton_cost=15, **imp),
        "reference": dict(integrator="implicit", dt=1e-5, **imp)}
def run(tag, st):
    c["analysis"]["stages"] = [st]
    p = os.path.join(tmp, "c.json")
    json.dump(c, open(p, "w"))
    out = os.path.join(tmp, tag.replace(" ", "_").replace("(", "").replace(")", ""))
    subprocess.run([crdyn, "run", p, "--out", out, "--quiet"], check=True)
    s = json.load(open(os.path.join(out, "summary.json")))
    rows = list(csv.DictReader(open(os.path.join(out, "history.csv"))))
    return s, [(float(r["time"]), float(r["tip.uz"])) for r in rows]
_, ref = run("reference", runs["reference"])
tr, zr = [t for t, _ in ref], [z for _, z in ref]
amp = max(abs(z) for z in zr)
def err(h):
    def at(t):
        j = max(0, min(bisect.bisect_right(tr, t) - 1, len(tr) - 2))
        return zr[j] + (t - tr[j]) / (tr[j + 1] - tr[j]) * (zr[j + 1] - zr[j])
    return max(abs(z - at(t)) for t, z in h) / amp
best = {}
for k in range(reps):
    for tag, st in runs.items():
        if tag == "reference": continue
        s, h = run(tag, st)
        w = s["time_s"]["wall"]
        if tag not in best or w < best[tag][0]: best[tag] = (w, s, err(h))
fast = min(best["explicit"][0], best["implicit"][0])
print("| run | wall s (min of %d) | / faster of explicit, implicit | explicit steps | implicit steps | switches | tip error |" % reps)
print("|---|---|---|---|---|---|---|")
for tag, (w, s, e) in best.items():
    d = s["dynamics"]
    print("| %s | %.3f | %.2f | %d | %d | %d | %.2f %% |" % (tag, w, w / fast, d["explicit_steps"], d["implicit_steps"],
          d.get("integrator_switches", 0), 100 * e))
PY
