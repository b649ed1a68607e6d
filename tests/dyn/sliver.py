#!/usr/bin/env python3
"""A step whose start acceleration carries a defect from the step before
(docs/dynamics.md, "Adaptive implicit steps": no step shorter than half of
the one before it; monotone energy: balance accelerations where the rise
is not brought down), TAP lines:
  - the thin cantilever strip loaded smoothly over 0.5 s, then free, with
    dt "auto" at rho_inf 0.8 (monotone energy): its steps are found from a
    run to t = 1, then stages ending 0.1 % of a step after 8 of those step
    ends (those of least strain energy in the free motion, where the force
    scale of Newton's residual is smallest) are run with
    CRDYN_TEST_SLIVER_STEP=1 (the rest as a last step however short) and
    CRDYN_TEST_MONO_CUT=1 (such a step cut, not restarted), as before the
    fix: some of them fail, the sliver's energy rise (linear in its length)
    needing a dissipation (quadratic in it) beyond what Newton converges
    with; the same with monotone energy off all run (a sliver alone is no
    trouble); with slivers, restarted from balance accelerations, all run;
    without the hooks (balanced last steps) all run;
  - the strip in 16 elements under a 0.2 ms pulse of forces in the shape of
    its first mode, fixed dt 1e-4 (profiling/hybrid.sh D): the step after
    the pulse's end (the load's rate changed) fails with
    CRDYN_TEST_MONO_CUT=1 and runs without it;
  - the same strip with "integrator": "auto" and newton_cost 15 to t = 1
    (profiling/hybrid.sh, problem C), where the failure was found, runs to
    its end; with the hook its outcome is reported (it depends on where the
    steps fall).
usage: sliver.py CRDYN"""
import json, math, os, subprocess, sys, tempfile

from dynrun import CASES as cases, plan, run, tap


def strip(t_end, integrator="implicit", **extra):
    c = json.load(open(os.path.join(cases, "cantilever_strip_pulse.json")))
    c["sections"][0]["thickness"] = 0.02
    c["loads"][0]["force"] = [0, 0, 8e-6]
    c["loads"][0]["amplitude"] = [[0, 0], [0.25, 1], [0.5, 0]]
    c["output"] = {"history_every": 1, "probes": [{"name": "tip", "node": 8}]}
    st = dict(integrator=integrator, t_end=t_end, rho_inf=0.8, tolerance=1e-10, dt="auto",
              error_tolerance=1e-3, dt_max=0.01, **extra)
    c["analysis"]["stages"] = [st]
    return c


def mode_pulse():
    """profiling/hybrid.sh D to t = 1 ms, fixed dt 1e-4: 16 elements, forces
    in the shape of the first mode over 0.2 ms."""
    c = strip(1e-3)
    nx = 16
    c["mesh"]["generate"]["nx"] = nx
    c["sections"][0]["thickness"] = 0.1
    c["output"]["probes"] = [{"name": "tip", "node": nx}]
    b = 1.875104
    s = (math.cosh(b) + math.cos(b)) / (math.sinh(b) + math.sin(b))
    phi = lambda x: math.cosh(b * x) - math.cos(b * x) - s * (math.sinh(b * x) - math.sin(b * x))
    c["sets"], c["loads"] = {}, []
    for i in range(1, nx + 1):
        c["sets"]["c%d" % i] = {"nodes": [i, i + nx + 1]}
        f = 5e-3 * (0.5 if i == nx else 1.0) * phi(i / nx) / phi(1.0)
        c["loads"].append({"set": "c%d" % i, "force": [0, 0, f], "total": True,
                           "amplitude": [[0, 0], [1e-4, 1], [2e-4, 0]]})
    c["analysis"]["stages"] = [dict(integrator="implicit", t_end=1e-3, dt=1e-4, rho_inf=0.8, tolerance=1e-10)]
    return c


def attempt(crdyn, tmp, case, tag, sliver, cut=None):
    """sliver: CRDYN_TEST_SLIVER_STEP=1; cut: CRDYN_TEST_MONO_CUT=1 (with the
    sliver unless told)."""
    p = os.path.join(tmp, tag + ".json")
    json.dump(case, open(p, "w"))
    env = dict(os.environ)
    env.pop("CRDYN_TEST_SLIVER_STEP", None)
    env.pop("CRDYN_TEST_MONO_CUT", None)
    if sliver:
        env["CRDYN_TEST_SLIVER_STEP"] = "1"
    if sliver if cut is None else cut:
        env["CRDYN_TEST_MONO_CUT"] = "1"
    pr = subprocess.run([crdyn, "run", p, "--out", os.path.join(tmp, tag), "--quiet"], env=env,
                        capture_output=True, text=True)
    return pr.returncode, (pr.stderr.strip().splitlines() or [""])[-1]


def main():
    crdyn = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        rows, _ = run(crdyn, tmp, strip(1.0), "full")
        t = [r["time"] for r in rows]
        ends = sorted((rows[i]["strain"], t[i], t[i] - t[i - 1]) for i in range(1, len(t)) if 0.55 < t[i] < 0.99)
        ends = [(te, h) for _, te, h in ends[:8]]
        failed, bad, free, restarted = [], [], [], []
        for k, (te, h) in enumerate(ends):
            c = strip(te + 1e-3 * h)
            rc, msg = attempt(crdyn, tmp, c, "s%d" % k, True)
            if rc:
                failed.append((te, msg))
            rc, msg = attempt(crdyn, tmp, c, "b%d" % k, False)
            if rc:
                bad.append((te, msg))
            rc, msg = attempt(crdyn, tmp, c, "r%d" % k, True, False)
            if rc:
                restarted.append((te, msg))
            c["analysis"]["stages"][0]["monotone_energy"] = False
            rc, msg = attempt(crdyn, tmp, c, "f%d" % k, True)
            if rc:
                free.append((te, msg))
        for te, msg in failed:
            print("# with the hook, a sliver after the step ending at t = %.6g: %s" % (te, msg[:240]))
        tap(len(failed) > 0, "a sliver of 0.1 %% of the step before, left as the last step and cut where monotone "
            "energy fails (hooks): %d of %d stages fail" % (len(failed), len(ends)))
        for te, msg in restarted:
            print("# slivers restarted from balance accelerations, stage ending after t = %.6g: %s" % (te, msg[:200]))
        tap(not restarted, "the same slivers, restarted from balance accelerations where monotone energy fails: all "
            "%d stages run to their end" % len(ends))
        for te, msg in free:
            print("# hook, no monotone energy, stage ending after t = %.6g: %s" % (te, msg[:200]))
        tap(not free, "the same slivers without monotone energy: all %d stages run to their end" % len(ends))
        for te, msg in bad:
            print("# balanced steps, stage ending after t = %.6g: %s" % (te, msg[:200]))
        tap(not bad and len(ends) >= 4, "balanced last steps: all %d stages run to their end" % len(ends))
        c = strip(1.0, "auto", newton_cost=15)
        rc, msg = attempt(crdyn, tmp, c, "auto", False)
        tap(rc == 0, "auto, newton_cost 15, to t = 1 (profiling/hybrid.sh C) runs to its end%s"
            % ("" if rc == 0 else ": " + msg[:200]))
        rc, msg = attempt(crdyn, tmp, c, "auto_sliver", True)
        print("# the same with the hooks: %s" % ("runs to its end" if rc == 0 else msg[:200]))
        c = mode_pulse()
        rc, msg = attempt(crdyn, tmp, c, "pulse_cut", False, True)
        # whether the hooked run meets the failing step depends on the last
        # bits of the arithmetic (a clang sanitizer build runs through it);
        # the slivers' hooked failures above are the check that can fail
        if rc != 0:
            tap(True, "a pulse's end under fixed steps, the step cut where monotone energy fails (hook): the stage "
                "fails (%s)" % msg[:160])
        else:
            tap(True, "a pulse's end under fixed steps, the step cut where monotone energy fails (hook) # SKIP this "
                "build's arithmetic does not reach the failing step (the hooked slivers above fail)")
        rc, msg = attempt(crdyn, tmp, c, "pulse", False)
        tap(rc == 0, "the same restarted from balance accelerations runs to its end%s" % ("" if rc == 0 else ": " + msg[:200]))
    plan()


main()
