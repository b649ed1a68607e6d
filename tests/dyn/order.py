#!/usr/bin/env python3
"""Second-order accuracy in time: the RMS error of a probe history, against a
reference 32 times finer, must fall by 4 (within 10%) when the step halves.

  order.py CRDYN implicit|implicit-dissipative|explicit
implicit-dissipative: the implicit test at rho_inf = 0.8 with the monotone
energy control (implicit.c) that acts in the free vibration after the pulse;
implicit: the cantilever strip of cases/cantilever_strip_pulse.json (tip pulse
in z, bending), dt = T1/20, T1/40, T1/80; explicit: the same strip under an
axial tip pulse (membrane waves, whose period is a few tens of stable steps),
dt = 1e-5, 5e-6, 2.5e-6; both under a smooth pulse about one period long.  The error is sampled at the coarse steps.
Prints TAP lines."""
import csv, json, math, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
case = json.load(open(os.path.join(here, "..", "..", "cases", "cantilever_strip_pulse.json")))


def run(crdyn, tmp, integ, dt, tend, comp):
    c = json.loads(json.dumps(case))
    st = {"integrator": integ, "t_end": tend, "dt": dt}
    rho = 0.8 if integ == "implicit-dissipative" else 1.0
    integ = "implicit" if integ.startswith("implicit") else integ
    st["integrator"] = integ
    if integ == "implicit":
        st.update({"rho_inf": rho, "tolerance": 1e-12})
        # a smooth pulse one period T1 long: the response is the first mode,
        # resolved by every step of the test (higher modes, with w dt > 1 at
        # T1/20, would keep the error out of its asymptotic range)
        c["loads"][0]["amplitude"] = [[0.0025 * i, math.sin(math.pi * i / 40) ** 2] for i in range(41)]
    else:
        st["mass_scaling"] = 1e4  # the director inertia limit out of the way of the membrane one
        c["loads"][0]["force"] = [1e3, 0, 0]
        c["loads"][0]["amplitude"] = [[1.5e-5 * i, math.sin(math.pi * i / 40) ** 2] for i in range(41)]
    c["analysis"]["stages"] = [st]
    c["output"] = {"history_every": 1, "probes": [{"name": "tip", "node": 8}]}
    p = os.path.join(tmp, "c.json")
    json.dump(c, open(p, "w"))
    out = os.path.join(tmp, "o")
    subprocess.run([crdyn, "run", p, "--out", out, "--quiet"], check=True)
    summ = json.load(open(os.path.join(out, "summary.json")))["dynamics"]
    run.mono_steps = getattr(run, "mono_steps", 0) + summ.get("monotone_energy_steps", 0)
    rows = list(csv.DictReader(open(os.path.join(out, "history.csv"))))
    return {round(float(r["time"]) / dt): float(r["tip." + comp]) for r in rows}, dt


def main():
    crdyn, integ = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        if integ.startswith("implicit"):
            dts, tend, comp = [0.005, 0.0025, 0.00125], 0.4, "uz"
        else:
            dts, tend, comp = [1e-5, 5e-6, 2.5e-6], 2e-3, "ux"
        ref, dref = run(crdyn, tmp, integ, dts[0] / 32, tend, comp)
        errs = []
        for dt in dts:
            h, _ = run(crdyn, tmp, integ, dt, tend, comp)
            k = round(dts[0] / dt)
            s = [(h[n * k] - ref[n * 32]) ** 2 for n in range(1, round(tend / dts[0]) + 1)]
            errs.append(math.sqrt(sum(s) / len(s)))
        amp = max(abs(v) for v in ref.values())
        r1, r2 = errs[0] / errs[1], errs[1] / errs[2]
        ok = all(3.6 <= r <= 4.4 for r in (r1, r2))
        extra = ""
        if integ == "implicit-dissipative":  # the energy control must have acted in these runs
            ok = ok and run.mono_steps > 0
            extra = f"; {run.mono_steps} steps solved again for monotone energy"
        print(f"{'ok' if ok else 'not ok'} 1 - {integ}: RMS probe error {errs[0]:.3e} {errs[1]:.3e} {errs[2]:.3e}"
              f" (of {amp:.3e}); ratios {r1:.3f} {r2:.3f} (second order: 4 +- 10%){extra}")
        print("1..1")


main()
