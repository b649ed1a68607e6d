#!/usr/bin/env python3
"""Adaptive implicit steps (dt "auto", docs/dynamics.md "Adaptive implicit
steps"), TAP lines:
  - the cantilever strip of cases/cantilever_strip_pulse.json (a sharp tip
    pulse, then ringing) at error tolerances 1e-3, 1e-4, 1e-5 against a
    fixed-step reference (dt = 5e-6): the error falls with the tolerance as
    the second order of the scheme says (RMS error against the number of
    steps with slope near -2); the mean steps in the pulse and after it are
    reported;
  - the flying L-plate (cases/flying_l_plate.json) with dt auto at rho_inf =
    1: after the load, energy and momenta constant across the changes of
    step; the same at rho_inf = 0.9 loses energy (the check sees it);
  - a pulse shorter than the first step is felt (steps end on the
    amplitude table's points); fixed steps over it are not.
usage: adaptive.py CRDYN"""
import bisect, csv, json, math, os, subprocess, sys, tempfile

from dynrun import CASES as cases, plan, run, tap


def strip(crdyn, tmp):
    base = json.load(open(os.path.join(cases, "cantilever_strip_pulse.json")))
    base["output"] = {"history_every": 1, "probes": [{"name": "tip", "node": 8}]}
    base["analysis"]["stages"][0]["t_end"] = 0.3
    ref = json.loads(json.dumps(base))
    ref["analysis"]["stages"][0]["dt"] = 5e-6
    rr, _ = run(crdyn, tmp, ref, "ref")
    tr, zr = [r["time"] for r in rr], [r["tip.uz"] for r in rr]
    amp = max(abs(z) for z in zr)

    def at(t):
        j = max(0, min(bisect.bisect_right(tr, t) - 1, len(tr) - 2))
        f = (t - tr[j]) / (tr[j + 1] - tr[j])
        return zr[j] + f * (zr[j + 1] - zr[j])

    res = []
    for tol in (1e-3, 1e-4, 1e-5):
        c = json.loads(json.dumps(base))
        c["analysis"]["stages"][0].update({"dt": "auto", "error_tolerance": tol, "dt_max": 0.01})
        rows, _ = run(crdyn, tmp, c, "tol")
        e = math.sqrt(sum((r["tip.uz"] - at(r["time"])) ** 2 for r in rows[1:]) / (len(rows) - 1)) / amp
        t = [r["time"] for r in rows]
        dts = [(t[i + 1] - t[i], t[i]) for i in range(len(t) - 1)]
        pulse = [h for h, ti in dts if ti < 0.02]
        after = [h for h, ti in dts if ti > 0.1]
        res.append((tol, len(rows) - 1, e, sum(pulse) / len(pulse), sum(after) / len(after)))
        print("# tolerance %g: %d steps, RMS error %.3e of the amplitude, mean dt %.3g in the pulse, %.3g after"
              % res[-1])
    for (t1, n1, e1, _, _), (t2, n2, e2, _, _) in zip(res, res[1:]):
        slope = math.log(e2 / e1) / math.log(n2 / n1)
        tap(e2 < e1 and -2.6 < slope < -1.4,
            "strip: tolerance %g -> %g: error %.2e -> %.2e over %d -> %d steps, slope %.2f (second order: -2)"
            % (t1, t2, e1, e2, n1, n2, slope))
    tol, _, _, hp, ha = res[1]
    # reported, not asserted: at rho_inf = 1 the higher modes the sharp
    # pulse sets ringing keep their energy, and the estimate keeps seeing
    # them, so the steps after the pulse are not much longer
    print("# tolerance %g: mean step in the pulse %.3g, in the ringing after it %.3g (ratio %.2f)"
          % (tol, hp, ha, ha / hp))


def drift(rows, t0):
    free = [r for r in rows if r["time"] >= t0]
    E = [r["kinetic"] + r["strain"] for r in free]
    L = [[r[k] for k in ("Lx", "Ly", "Lz", "Jx", "Jy", "Jz")] for r in free]
    dE = max(abs(e - E[0]) for e in E) / abs(E[0])
    dL = max(max(abs(a - b) for a, b in zip(l, L[0])) for l in L) / max(abs(x) for x in L[0])
    return dE, dL


def flying(crdyn, tmp):
    c = json.load(open(os.path.join(cases, "flying_l_plate.json")))
    c["output"]["vtk_every"] = 1000000
    c["analysis"]["stages"][0].update({"dt": "auto", "error_tolerance": 1e-3, "dt_max": 0.5})
    rows, summ = run(crdyn, tmp, c, "fly")
    t = [r["time"] for r in rows]
    h = [t[i + 1] - t[i] for i in range(len(t) - 2)]  # the last step ends on t_end
    dE, dL = drift(rows, 5.0)
    cuts = summ["counts"]["step_cuts"] if "counts" in summ else summ.get("step_cuts", 0)
    tap(dE < 1e-9 and dL < 1e-9 and max(h) > 4 * min(h),
        "flying plate, dt auto, rho_inf = 1: %d steps from %.3g to %.3g; after the load energy constant to %.1e, "
        "momenta to %.1e" % (len(rows) - 1, min(h), max(h), dE, dL))
    c["analysis"]["stages"][0]["rho_inf"] = 0.9
    rows, _ = run(crdyn, tmp, c, "fly9")
    dE9, _ = drift(rows, 5.0)
    tap(dE9 > 1e-6, "the same at rho_inf = 0.9 loses energy (%.1e): the check above sees a change" % dE9)


def short_pulse(crdyn, tmp):
    """A tip pulse of 50 us, shorter than the stage's first adaptive step
    (dt_max / 64 = 1.6e-4): the steps end on the amplitude table's points,
    so the pulse is felt; fixed steps of 1.6e-4 step over it (the same
    check sees a strip that never moves)."""
    base = json.load(open(os.path.join(cases, "cantilever_strip_pulse.json")))
    base["loads"][0]["amplitude"] = [[0, 0], [2.5e-5, 1], [5e-5, 0]]
    base["output"] = {"history_every": 1, "probes": [{"name": "tip", "node": 8}]}

    def felt(stage, tag):
        c = json.loads(json.dumps(base))
        c["analysis"]["stages"] = [dict(integrator="implicit", t_end=0.01, rho_inf=1.0, tolerance=1e-10, **stage)]
        rows, _ = run(crdyn, tmp, c, tag)
        return max(abs(r["tip.uz"]) for r in rows), max(abs(r["external_work"]) for r in rows)

    z, w = felt({"dt": "auto", "dt_max": 0.01}, "pulse_auto")
    tap(z > 0 and w > 0, "a 50 us pulse under dt auto (first step 1.6e-4): the tip moves (%.3g), work %.3g" % (z, w))
    z, w = felt({"dt": 1.6e-4}, "pulse_fixed")
    tap(not (z > 0 and w > 0), "the same pulse with fixed steps of 1.6e-4: the check sees nothing felt (%.3g, %.3g)"
        % (z, w))


def main():
    crdyn = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        strip(crdyn, tmp)
        flying(crdyn, tmp)
        short_pulse(crdyn, tmp)
    plan()


if __name__ == "__main__":
    main()
